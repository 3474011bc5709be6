package main

// The orders Airflow 3 lists task instances in by default: get_task_instances
// by (map_index, id), get_task_instances_batch by id (the primary key;
// routes/public/task_instances.py, SortParam in common/parameters.py). A
// derived table holds one small row per task instance that has an id (edition
// 3), kept by every write of the task-instance rows, so that a page walks an
// index to the page's end instead of every run's task instances.

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableTIOrder  = "ti_order"  // derived: one row per task instance with an id
	indexDagOrder = "dag_order" // ti_order: (dag_id, map_index, id)
)

// tiOrderRow is a task instance's place in the default orders: its key in
// the run's row of task instances and its (map_index, id).
type tiOrderRow struct {
	MapIndex             int
	ID                   string
	DagID, RunID, TaskID string
}

// tiOrderTable orders task instances by (map_index, id), every DAG's
// together (id) and each DAG's apart (dag_order). A task instance's row
// changes only when its id does (a new try, a clear) or it comes or goes:
// a try's start and end leave it alone. The trigger writes two entries
// per task instance here (edition 3 only; ids are empty before).
func tiOrderTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIOrder,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:       {Name: indexID, Unique: true, Indexer: tiOrderIndex{}},
			indexDagOrder: {Name: indexDagOrder, Unique: true, Indexer: tiOrderIndex{byDag: true}},
		},
	}
}

// tiOrderIndex keys a row as [dag_id NUL] encodeInt64(map_index) id NUL.
// FromArgs takes a leading part of ([dag_id,] map_index, id), which
// LowerBound seeks to; PrefixFromArgs (dag_id) for byDag.
type tiOrderIndex struct{ byDag bool }

func (x tiOrderIndex) FromObject(obj any) (bool, []byte, error) {
	r, ok := obj.(*tiOrderRow)
	if !ok {
		return false, nil, fmt.Errorf("task-instance order index: want *tiOrderRow, got %T", obj)
	}
	if r.ID == "" || (x.byDag && r.DagID == "") {
		return false, nil, nil
	}
	k := make([]byte, 0, len(r.DagID)+len(r.ID)+10)
	if x.byDag {
		k = append(append(k, r.DagID...), 0)
	}
	k = append(k, encodeInt64(int64(r.MapIndex))...)
	return true, append(append(k, r.ID...), 0), nil
}

func (x tiOrderIndex) FromArgs(args ...any) ([]byte, error) {
	var k []byte
	if x.byDag {
		if len(args) == 0 {
			return nil, fmt.Errorf("task-instance order index: want dag_id first")
		}
		dagID, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: dag_id must be a string: %#v", args[0])
		}
		k = append([]byte(dagID), 0)
		args = args[1:]
	}
	if len(args) > 2 {
		return nil, fmt.Errorf("task-instance order index: too many arguments")
	}
	if len(args) > 0 {
		mapIndex, ok := args[0].(int)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: map_index must be an int: %#v", args[0])
		}
		k = append(k, encodeInt64(int64(mapIndex))...)
	}
	if len(args) > 1 {
		id, ok := args[1].(string)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: id must be a string: %#v", args[1])
		}
		k = append(append(k, id...), 0)
	}
	return k, nil
}

func (x tiOrderIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// reorderTIsTxn brings ti_order from a run's task instances old to new
// (either nil; both sorted as runTasks keeps them) and returns how many
// more task instances with an id the run has. Task instances the write
// did not change are the same pointers and cost a comparison.
func reorderTIsTxn(txn *memdb.Txn, old, new []*TaskInstance) (int, error) {
	delta := 0
	drop := func(ti *TaskInstance) error {
		if ti.ID == "" {
			return nil
		}
		delta--
		if err := txn.Delete(tableTIOrder, &tiOrderRow{MapIndex: ti.MapIndex, ID: ti.ID}); err != nil {
			return fmt.Errorf("unorder task %s of %s/%s: %w", ti.TaskID, ti.DagID, ti.RunID, err)
		}
		return nil
	}
	add := func(ti *TaskInstance) error {
		if ti.ID == "" {
			return nil
		}
		delta++
		row := &tiOrderRow{MapIndex: ti.MapIndex, ID: ti.ID, DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID}
		if err := txn.Insert(tableTIOrder, row); err != nil {
			return fmt.Errorf("order task %s of %s/%s: %w", ti.TaskID, ti.DagID, ti.RunID, err)
		}
		return nil
	}
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		var err error
		switch {
		case j == len(new):
			err = drop(old[i])
			i++
		case i == len(old):
			err = add(new[j])
			j++
		case old[i] == new[j]:
			i++
			j++
		default:
			a, b := old[i], new[j]
			switch c := cmp.Or(strings.Compare(a.TaskID, b.TaskID), cmp.Compare(a.MapIndex, b.MapIndex)); {
			case c < 0:
				err = drop(a)
				i++
			case c > 0:
				err = add(b)
				j++
			default:
				if a.ID != b.ID {
					if err = drop(a); err == nil {
						err = add(b)
					}
				}
				i++
				j++
			}
		}
		if err != nil {
			return delta, err
		}
	}
	return delta, nil
}

// deleteTIOrderTxn drops the rows of a DAG's task instances ("": every
// DAG's), for writes that delete them all at once.
func deleteTIOrderTxn(txn *memdb.Txn, dagID string) error {
	var err error
	if dagID == "" {
		_, err = txn.DeleteAll(tableTIOrder, indexID)
	} else {
		_, err = txn.DeleteAll(tableTIOrder, indexDagOrder+"_prefix", dagID)
	}
	if err != nil {
		return fmt.Errorf("unorder task instances of %q: %w", dagID, err)
	}
	return nil
}

// TaskInstanceOrderPage is a page of the task instances of dagIDs (nil:
// of every DAG the store has a row for), ordered by (map_index, id), or
// by id alone when byID, and how many there are. The total comes from the
// run counts; the page walks ti_order to its end: offset plus limit rows
// (for several DAGs also a seek per DAG; by id also a seek per distinct
// map_index, whose runs of ids the walk merges). ok is false when a task
// instance of those DAGs has no id (a store restored from an edition
// before 3): its place in the order is not in the index.
func (s *Store) TaskInstanceOrderPage(dagIDs []string, byID bool, offset, limit int) ([]RunTaskInstance, int, bool, error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	total, keep, dagIDs, ok, err := tiOrderTotal(txn, dagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	page := []RunTaskInstance{}
	if offset >= total || limit == 0 {
		return page, total, true, nil
	}
	m := &tiOrderMerge{byID: byID}
	switch {
	case byID:
		err = m.addMapIndexWalks(txn, dagIDs)
	case keep != nil:
		err = m.add(txn.Get(tableTIOrder, indexID))
	default:
		for _, dagID := range dagIDs {
			if err = m.add(txn.Get(tableTIOrder, indexDagOrder+"_prefix", dagID)); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("list task instances: %w", err)
	}
	heap.Init(m)
	var run *DagRun
	var row *runTasks
	for len(page) < limit {
		o := m.next()
		if o == nil {
			break
		}
		if keep != nil && !keep[o.DagID] {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		if run == nil || run.DagID != o.DagID || run.RunID != o.RunID {
			if run, err = runByRunIDTxn(txn, o.DagID, o.RunID); err != nil {
				return nil, 0, false, fmt.Errorf("list task instances: run of %s/%s/%s: %w", o.DagID, o.RunID, o.TaskID, err)
			}
			if row, err = runTasksTxn(txn, o.DagID, o.RunID); err != nil {
				return nil, 0, false, err
			}
		}
		i, found := -1, false
		if row != nil {
			i, found = row.find(o.TaskID, o.MapIndex)
		}
		if !found {
			return nil, 0, false, fmt.Errorf("list task instances: %s/%s/%s[%d] ordered but not stored", o.DagID, o.RunID, o.TaskID, o.MapIndex)
		}
		page = append(page, RunTaskInstance{Run: run, TI: row.TIs[i]})
	}
	read = m.pulled
	return page, total, true, nil
}

// tiOrderTotal is how many task instances dagIDs have, from the run
// counts, and the DAGs to walk: for nil, every DAG with a DAG row and
// runs, also as the set keep to filter the walk of every DAG's order by;
// ok is false when one of them has task instances without an id.
func tiOrderTotal(txn *memdb.Txn, dagIDs []string) (total int, keep map[string]bool, ids []string, ok bool, err error) {
	of := func(c runCount) bool {
		total += c.OrderedTIs
		return c.OrderedTIs == c.TaskInstances
	}
	if dagIDs != nil {
		ids = slices.Compact(slices.Sorted(slices.Values(dagIDs)))
		for _, id := range ids {
			if !of(runCountTxn(txn, id)) {
				return 0, nil, nil, false, nil
			}
		}
		return total, nil, ids, true, nil
	}
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		return 0, nil, nil, false, fmt.Errorf("count task instances: %w", err)
	}
	keep = map[string]bool{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runCount)
		if c.DagID == allDAGs {
			continue
		}
		if _, err := dagRowTxn(txn, c.DagID); err != nil {
			continue // no DAG row (or none to read): not listed
		}
		if !of(*c) {
			return 0, nil, nil, false, nil
		}
		keep[c.DagID] = true
		ids = append(ids, c.DagID)
	}
	return total, keep, ids, true, nil
}

// tiOrderMerge yields ti_order rows in (map_index, id) order, or in id
// order when byID, from several walks each already in that order: one per
// DAG, or (byID) one per DAG and distinct map_index.
type tiOrderMerge struct {
	byID   bool
	heads  []tiOrderHead
	pulled int // rows read from the walks, seeks included
}

// tiOrderHead is a walk's next row; a walk ends at the first row whose
// bound differs (another map_index or DAG).
type tiOrderHead struct {
	row   *tiOrderRow
	it    memdb.ResultIterator
	bound func(*tiOrderRow) bool
}

// add starts a walk that ends with its iterator.
func (m *tiOrderMerge) add(it memdb.ResultIterator, err error) error {
	if err != nil {
		return err
	}
	m.pulled++
	if raw := it.Next(); raw != nil {
		m.heads = append(m.heads, tiOrderHead{row: raw.(*tiOrderRow), it: it})
	}
	return nil
}

// addMapIndexWalks starts, for each DAG of dagIDs, a walk per distinct
// map_index of its task instances: each is in id order, and a seek past
// its map_index finds the next one.
func (m *tiOrderMerge) addMapIndexWalks(txn *memdb.Txn, dagIDs []string) error {
	for _, dagID := range dagIDs {
		from := math.MinInt
		for {
			it, err := txn.LowerBound(tableTIOrder, indexDagOrder, dagID, from)
			if err != nil {
				return err
			}
			m.pulled++
			raw := it.Next()
			if raw == nil || raw.(*tiOrderRow).DagID != dagID {
				break
			}
			first := raw.(*tiOrderRow)
			mapIndex := first.MapIndex
			m.heads = append(m.heads, tiOrderHead{row: first, it: it,
				bound: func(r *tiOrderRow) bool { return r.DagID == dagID && r.MapIndex == mapIndex }})
			if mapIndex == math.MaxInt {
				break
			}
			from = mapIndex + 1
		}
	}
	return nil
}

func (m *tiOrderMerge) Len() int { return len(m.heads) }
func (m *tiOrderMerge) Less(i, j int) bool {
	a, b := m.heads[i].row, m.heads[j].row
	if !m.byID && a.MapIndex != b.MapIndex {
		return a.MapIndex < b.MapIndex
	}
	return a.ID < b.ID
}
func (m *tiOrderMerge) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *tiOrderMerge) Push(x any)    { m.heads = append(m.heads, x.(tiOrderHead)) }
func (m *tiOrderMerge) Pop() any {
	last := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return last
}

// next is the next row of the merged order, nil after the last.
func (m *tiOrderMerge) next() *tiOrderRow {
	if len(m.heads) == 0 {
		return nil
	}
	top := &m.heads[0]
	r := top.row
	m.pulled++
	raw := top.it.Next()
	if raw != nil && (top.bound == nil || top.bound(raw.(*tiOrderRow))) {
		top.row = raw.(*tiOrderRow)
		heap.Fix(m, 0)
	} else {
		heap.Pop(m)
	}
	return r
}
