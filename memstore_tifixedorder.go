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
	Keep    func(RunTaskInstance) bool
	KeepKey string
	// WholeUnmapped says Keep picks every unmapped task instance (a
	// group of a page led by map_index or rendered_map_index without a
	// filter): the walk passes their blocks for the offset by their
	// counts.
	WholeUnmapped bool
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
	return s.walkedTIPage(q.DagIDs, q.Keep, q.KeepKey, q.Offset, q.Limit, s.TIOrderWalk(q))
}

// TIOrderWalk is TIOrderPage's walk either way (q's DagIDs and Limit
// aside): a group's of a page led by another key (TIGroupPage).
func (s *Store) TIOrderWalk(q TIOrderQuery) TIWalk {
	return func(txn *memdb.Txn, dagIDs []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		m := &tiOrderMerge{txn: txn, byID: q.ByID, desc: q.Desc}
		if q.WholeUnmapped {
			m.passWhole = func(b *tiOrderRow) bool { return b.MapIndex < 0 }
		}
		defer func() { *read += m.read }()
		var wide bool
		var err error
		if q.Desc {
			err = m.startDesc(dagIDs, &wide)
		} else {
			err = m.start(dagIDs)
		}
		if err != nil || wide {
			return nil, false, err
		}
		page, _, err := m.page(q.Offset, limit, q.Keep, false)
		return page, err == nil, err
	}
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

// TIRunOrderQuery is a page of task instances whose order's first key is
// an attribute of their runs that RunOrderPage walks (logical_date: to
// the run, c57fba0e routes/public/task_instances.py:461-466): every
// task instance of a run ties on it, so the page walks the runs in its
// order, reads the runs that tie together and puts their task instances
// in the listing's order (its keys after it, then the id), as
// TIRunAfterPage does with the runs' run_after index.
type TIRunOrderQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// Attr is the runs' attribute (runOrderWalks' names), Desc its
	// direction; RunCompare is its SortParam order of runs (nulls below
	// every value, ties by the run's id), RunCompareName names it (a
	// DAG's unfinished runs sorted in it are remembered), RunTie is 0
	// for two runs that tie on Attr.
	Attr           string
	Desc           bool
	RunCompare     func(a, b *DagRun) int
	RunCompareName string
	RunTie         func(a, b *DagRun) int
	// Compare is the listing's whole order (Attr first, then its other
	// keys and the id).
	Compare func(a, b RunTaskInstance) int
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it. TaskIDs, when set with Keep, are the
	// only tasks whose instances Keep can pick: a run's others are not
	// read.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	TaskIDs       []string
	Offset, Limit int
}

// TIRunOrderPage is a page of the task instances q picks in q.Compare's
// order, led by an attribute of their runs, and how many it picks; ok is
// false when the store cannot walk it (a task instance without an id, a
// run in no known state for a marked order, runs out of the walked
// order: the caller sorts). The page reads the runs of the walks up to
// its last task instance (a marked order's marks and unfinished runs
// too: RunOrderPage) and their rows; without a filter, the runs its
// offset passes whole cost their run and row. The total is the run
// counts' without a filter, else counted once per version of the
// task-instance rows and filter.
func (s *Store) TIRunOrderPage(q TIRunOrderQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	return s.walkedTIPage(q.DagIDs, q.Keep, q.KeepKey, q.Offset, q.Limit, s.TIRunOrderWalk(q))
}

// TIRunOrderWalk is TIRunOrderPage's walk (q's DagIDs and Limit aside).
func (s *Store) TIRunOrderWalk(q TIRunOrderQuery) TIWalk {
	return func(txn *memdb.Txn, dagIDs []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		w := &runOrderWalk{s: s, txn: txn, q: RunOrderQuery{DagIDs: dagIDs, Attr: q.Attr, Desc: q.Desc, Compare: q.RunCompare,
			NullsLast: true, CompareName: q.RunCompareName}}
		defer func() { *read += w.read }()
		if !w.q.Walked() {
			return nil, false, nil
		}
		if _, ok, err := w.scope(); !ok || err != nil {
			return nil, false, err
		}
		m := &runOrderMerge{compare: w.q.Compare, w: w}
		for _, dagID := range dagIDs {
			if err := w.addWalks(m, dagID); err != nil {
				return nil, false, notWalked(err)
			}
		}
		heap.Init(m)
		m.sortPending()
		take := tiedRunsTake{Keep: q.Keep, TaskIDs: q.TaskIDs, Compare: q.Compare, Offset: q.Offset, Limit: limit, Read: read}
		run, err := m.next()
		for err == nil && run != nil && !take.full() {
			var tied tiedRuns
			for first := run; err == nil && run != nil && q.RunTie(run, first) == 0; run, err = m.next() {
				if err := tied.add(txn, run, read); err != nil {
					return nil, false, err
				}
			}
			take.from(tied)
		}
		if err != nil {
			return nil, false, notWalked(err)
		}
		return take.Page, true, nil
	}
}
