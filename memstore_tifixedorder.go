package main

// Every run's task instances in the orders of keys a task instance gets
// when it is made and keeps: its id, and its map_index, each either way
// (Airflow 3's SortParam ends an order with the primary key in the first
// key's direction: c57fba0e api_fastapi/common/parameters.py:327-330, so
// -map_index is (map_index, id) down and -id is id down). ti_order keeps
// the blocks of both orders (memstore_tiorder.go); a walk down takes a
// DAG's blocks in reverse: ti_order's by (map_index, lo) down, its
// pending and grouped blocks by lo down, and, by id, its mapped blocks by
// lo down (blocks of one: orderTIsTxn), each block's members by id down.
// No write of its own.

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	memdb "github.com/hashicorp/go-memdb"
)

// TIOrderQuery is a page of task instances in ti_order's orders: by
// (map_index, id), or by id alone when ByID, either way.
type TIOrderQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	ByID   bool
	Desc   bool
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it, for the count of what it picks.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	Offset, Limit int
}

// TIOrderPage is a page of the task instances q picks in its order and
// how many it picks; ok is false when the store cannot walk it (a task
// instance of those DAGs without an id, or a mapped block that holds more
// than one: the caller sorts). Ascending, it is TaskInstanceOrderPage or
// TaskInstanceFilteredPage; descending, the merge walks the blocks down
// to the page's end, passing whole blocks for the offset without a
// filter. The total is the run counts' without a filter, else counted
// once per version of the task-instance rows and filter.
func (s *Store) TIOrderPage(q TIOrderQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	if !q.Desc {
		if q.Keep == nil {
			return s.TaskInstanceOrderPage(q.DagIDs, q.ByID, q.Offset, q.Limit)
		}
		return s.TaskInstanceFilteredPage(q.DagIDs, q.ByID, q.Offset, q.Limit, q.Keep, q.KeepKey)
	}
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	total, dagIDs, ok, err := s.walkedTITotal(txn, q.DagIDs, q.Keep, q.KeepKey, &read)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if q.Offset >= total || q.Limit <= 0 {
		return []RunTaskInstance{}, total, true, nil
	}
	m := &tiOrderMerge{txn: txn, byID: q.ByID, desc: true}
	defer func() { read += m.read }()
	var wide bool
	if err := m.startDesc(dagIDs, &wide); err != nil {
		return nil, 0, false, err
	}
	page, _, err = m.page(q.Offset, min(q.Limit, total-q.Offset), q.Keep, false)
	if err != nil || wide {
		return nil, 0, false, err
	}
	return page, total, true, nil
}

// startDesc opens the merge's walks down over dagIDs' blocks: by
// (map_index, id), each DAG's blocks of ti_order; by id, its unmapped
// blocks of ti_order and its mapped blocks (mapped_ti_order, by lo: a
// mapped block that holds more than one sets wide and ends the walk, as
// its lo is not its hi); and each DAG's pending and grouped blocks,
// unmapped ones.
func (m *tiOrderMerge) startDesc(dagIDs []string, wide *bool) error {
	add := func(it memdb.ResultIterator, err error, bound func(*tiOrderRow) bool) error {
		if err != nil {
			return fmt.Errorf("list task instances: %w", err)
		}
		w := &tiOrderWalk{it: it, bound: bound}
		if m.nextBlock(w) {
			m.walks = append(m.walks, w)
		}
		return nil
	}
	for _, dagID := range dagIDs {
		ofDag := func(b *tiOrderRow) bool { return b.DagID == dagID }
		if m.byID {
			it, err := m.txn.ReverseLowerBound(tableTIOrder, indexID, dagID, 0)
			if err := add(it, err, func(b *tiOrderRow) bool { return b.DagID == dagID && b.MapIndex == -1 }); err != nil {
				return err
			}
			// The mapped table's keys are dag_id NUL lo NUL map_index:
			// a dag_id arg ending NUL 0xff seeks past the DAG's last.
			it, err = m.txn.ReverseLowerBound(tableTIOrderMapped, indexID, dagID+"\x00\xff")
			single := func(b *tiOrderRow) bool {
				if b.DagID != dagID {
					return false
				}
				if b.Lo != b.Hi {
					*wide = true
					return false
				}
				return true
			}
			if err := add(it, err, single); err != nil {
				return err
			}
		} else {
			it, err := m.txn.ReverseLowerBound(tableTIOrder, indexID, dagID, math.MaxInt)
			if err := add(it, err, ofDag); err != nil {
				return err
			}
		}
		pending := blockList(slices.Clone(runCountTxn(m.txn, dagID).Pending))
		slices.Reverse(pending)
		if err := add(&pending, nil, nil); err != nil {
			return err
		}
		it, err := m.txn.ReverseLowerBound(tableTIOrderGroups, indexID, dagID, "\xff")
		if err := add(&groupedBlocks{it: it, down: true}, err, ofDag); err != nil {
			return err
		}
	}
	heap.Init(m)
	return nil
}
