package main

// Every run's task instances by rendered_map_index alone, either way.
// NULL is the lowest value (SQLite's order; sortParamCompare), and the
// id breaks ties in the key's direction (c57fba0e
// api_fastapi/common/parameters.py:327-330). A task instance gets a
// rendered map_index only when it is mapped (map_index 0 and up: a try's
// map_index_template, python/airlite_task.py render_map_index), so the
// NULL part, most task instances, is ti_order's id walk with a filter,
// and the rendered part is read from the mapped blocks alone, sorted
// once per version of the task-instance rows and remembered. No write of
// its own.

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"

	memdb "github.com/hashicorp/go-memdb"
)

// TIRenderedQuery is a page of task instances by (rendered_map_index,
// id), either way.
type TIRenderedQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	Desc   bool
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	Offset, Limit int
}

// maxTIRenderedSorts bounds the rendered parts remembered
// (Store.tiRendered); past it the memory starts again empty.
const maxTIRenderedSorts = 16

// TIRenderedPage is a page of the task instances q picks by
// rendered_map_index and how many it picks; ok is false when the store
// cannot walk it (a task instance without an id, a mapped block that
// holds more than one walked down: the caller sorts). Ascending, the
// NULL part comes first (ti_order's id walk picking the task instances
// without a value, to the page's end), then the rendered part; down, the
// rendered part first, then the NULL part by id down. The NULL part's
// count is the run counts' total less the rendered part's, or with a
// filter a filter's count, once per version of the task-instance rows;
// the rendered part is read from the DAGs' mapped blocks and
// sorted once per version. A rendered value on an unmapped task instance
// (which no write makes) would be missed: the randomized test holds the
// walk to the sort.
func (s *Store) TIRenderedPage(q TIRenderedQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	all, ids, ok, err := tiOrderTotal(txn, q.DagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	nullKeep := func(r RunTaskInstance) bool {
		return r.TI.RenderedMapIndex == nil && (q.Keep == nil || q.Keep(r))
	}
	rendered, err := s.renderedTIsTxn(txn, ids, q.Keep, q.KeepKey, &read)
	if err != nil {
		return nil, 0, false, err
	}
	// Without a filter the NULL part is the run counts' total but the
	// rendered ones: no count of its own.
	nulls := all - len(rendered)
	if q.Keep != nil {
		if nulls, err = s.filteredTITotal(txn, ids, nullKeep, "rendered_map_index NULL "+q.KeepKey, &read); err != nil {
			return nil, 0, false, err
		}
	}
	total = nulls + len(rendered)
	page = []RunTaskInstance{}
	if q.Offset >= total || q.Limit <= 0 {
		return page, total, true, nil
	}
	limit := min(q.Limit, total-q.Offset)
	take := func(offset int) {
		for i := offset; i < len(rendered) && len(page) < limit; i++ {
			r := rendered[i]
			if q.Desc {
				r = rendered[len(rendered)-1-i]
			}
			page = append(page, r)
			read++
		}
	}
	nullPage := func(offset int) error {
		m := &tiOrderMerge{txn: txn, byID: true, desc: q.Desc}
		if q.Keep == nil {
			// Unmapped task instances are never rendered: their blocks
			// are the NULL part's whole.
			m.passWhole = func(b *tiOrderRow) bool { return b.MapIndex < 0 }
		}
		defer func() { read += m.read }()
		if q.Desc {
			var wide bool
			if err := m.startDesc(ids, &wide); err != nil {
				return err
			}
			if wide {
				ok = false
				return nil
			}
		} else if err := m.start(ids); err != nil {
			return err
		}
		got, _, err := m.page(offset, limit-len(page), nullKeep, false)
		page = append(page, got...)
		return err
	}
	if q.Desc {
		take(q.Offset)
		if len(page) < limit {
			err = nullPage(max(0, q.Offset-len(rendered)))
		}
	} else {
		if q.Offset < nulls {
			err = nullPage(q.Offset)
		}
		if err == nil && len(page) < limit {
			take(max(0, q.Offset-nulls))
		}
	}
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	return page, total, true, nil
}

// renderedTIsTxn is the task instances of dagIDs keep picks that have a
// rendered map_index, by (rendered_map_index, id): each DAG's
// (renderedOfDAGTxn) put together and sorted once per version of the
// task-instance rows and filter, then remembered.
func (s *Store) renderedTIsTxn(txn *memdb.Txn, dagIDs []string, keep func(RunTaskInstance) bool, keepKey string, read *int) ([]RunTaskInstance, error) {
	root, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return nil, fmt.Errorf("list task instances: %w", err)
	}
	return s.tiRendered.get(root.WatchCh(), tiCountKey(dagIDs, keepKey), func() ([]RunTaskInstance, error) {
		var sorted []RunTaskInstance
		for _, dagID := range dagIDs {
			part, err := s.renderedOfDAGTxn(txn, dagID, keep, keepKey, read)
			if err != nil {
				return nil, err
			}
			if len(dagIDs) == 1 {
				return part, nil
			}
			sorted = append(sorted, part...)
		}
		slices.SortFunc(sorted, compareRendered)
		return sorted, nil
	})
}

// compareRendered is the rendered part's order: (rendered_map_index, id).
func compareRendered(a, b RunTaskInstance) int {
	if c := strings.Compare(*a.TI.RenderedMapIndex, *b.TI.RenderedMapIndex); c != 0 {
		return c
	}
	return strings.Compare(a.TI.ID, b.TI.ID)
}

// renderedOfDAGTxn is renderedTIsTxn for one DAG: read from its mapped
// blocks of ti_order (map_index 0 and up; pending and grouped blocks are
// unmapped) and sorted once per version of its task-instance rows (the
// watch channel of its prefix of them) and filter, then remembered
// (Store.tiRenderedOfDAG), so that a write of one DAG's task instances
// has the next page read that DAG's mapped blocks again, not every
// DAG's.
func (s *Store) renderedOfDAGTxn(txn *memdb.Txn, dagID string, keep func(RunTaskInstance) bool, keepKey string, read *int) ([]RunTaskInstance, error) {
	rows, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
	if err != nil {
		return nil, fmt.Errorf("list task instances of %s: %w", dagID, err)
	}
	sort := func() ([]RunTaskInstance, error) {
		m := &tiOrderMerge{txn: txn}
		defer func() { *read += m.read }()
		it, err := txn.LowerBound(tableTIOrder, indexID, dagID, 0)
		if err != nil {
			return nil, fmt.Errorf("list task instances: %w", err)
		}
		w := &tiOrderWalk{it: it, bound: func(b *tiOrderRow) bool { return b.DagID == dagID && b.MapIndex >= 0 }}
		if m.nextBlock(w) {
			m.walks = append(m.walks, w)
		}
		heap.Init(m)
		sorted, _, err := m.page(0, math.MaxInt, func(r RunTaskInstance) bool {
			return r.TI.RenderedMapIndex != nil && (keep == nil || keep(r))
		}, false)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(sorted, compareRendered)
		return sorted, nil
	}
	root := rows.WatchCh()
	if root == nil {
		return sort()
	}
	return s.tiRenderedOfDAG.get(root, dagID+"\x00"+keepKey, sort)
}
