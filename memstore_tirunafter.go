package main

// Airflow 3's task instances in their runs' run_after order: the order of
// the Airflow 3 UI's task overview (-run_after, a task's instances:
// ui/src/pages/Task/Overview/Overview.tsx of c57fba0e), which
// get_task_instances' SortParam takes from the run (to_replace
// DagRun.run_after, routes/public/task_instances.py:461-466) and ends
// with the task instance's id. The runs' (dag_id, run_after) index
// (runOrderIndex) orders them to the microsecond, so a page walks each
// DAG's runs by it, merges the walks, reads the rows of the runs of one
// microsecond together and puts their task instances in the listing's
// order (its keys after run_after, then the id): no derived table, no
// write.

import (
	"container/heap"
	"fmt"
	"slices"

	memdb "github.com/hashicorp/go-memdb"
)

// TIRunAfterQuery is a page of task instances whose order's first key is
// their run's run_after.
type TIRunAfterQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// Desc is run_after's direction.
	Desc bool
	// Compare is the listing's whole order (run_after first, then its
	// other keys and the id); the task instances of runs of one
	// microsecond are put in it.
	Compare func(a, b RunTaskInstance) int
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it, for the count of what it picks.
	Keep    func(RunTaskInstance) bool
	KeepKey string
	// TaskIDs, when set with Keep, are the only tasks whose instances
	// Keep can pick (its task_id filter): a run's others are not read.
	TaskIDs       []string
	Offset, Limit int
}

// TIRunAfterPage is a page of the task instances q picks in q.Compare's
// order, led by their runs' run_after, and how many it picks; ok is false
// when a task instance of those DAGs has no id (a store restored from an
// edition before 3: the caller sorts). The page reads the runs of the
// walks up to its last task instance and their rows; without a filter,
// the runs its offset passes whole cost their run and row (their task
// instances are counted, not read). The total is the run counts' without
// a filter, else counted once per version of the task-instance rows and
// filter.
func (s *Store) TIRunAfterPage(q TIRunAfterQuery) (page []RunTaskInstance, total int, ok bool, err error) {
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
	page = []RunTaskInstance{}
	if q.Offset >= total || q.Limit <= 0 {
		return page, total, true, nil
	}
	limit := min(q.Limit, total-q.Offset)
	m := &runAfterMerge{desc: q.Desc}
	for _, dagID := range dagIDs {
		var it memdb.ResultIterator
		if q.Desc {
			it, err = runsDownTxn(txn, dagID, endOfTime)
		} else {
			it, err = runsUpTxn(txn, dagID)
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("list runs of %s by run_after: %w", dagID, err)
		}
		w := &runAfterWalk{dagID: dagID, it: it}
		if m.advance(w, &read) {
			m.walks = append(m.walks, w)
		}
	}
	heap.Init(m)
	offset := q.Offset
	for len(page) < limit && len(m.walks) > 0 {
		// The runs of the merge's next microsecond, and their rows.
		at := m.walks[0].run.After().UnixMicro()
		var runs []*DagRun
		var rows []*runTasks
		n := 0
		for len(m.walks) > 0 && m.walks[0].run.After().UnixMicro() == at {
			w := m.walks[0]
			row, err := runTasksTxn(txn, w.dagID, w.run.RunID)
			if err != nil {
				return nil, 0, false, err
			}
			read++
			if row != nil {
				runs, rows = append(runs, w.run), append(rows, row)
				n += len(row.TIs)
			}
			if m.advance(w, &read) {
				heap.Fix(m, 0)
			} else {
				heap.Pop(m)
			}
		}
		if q.Keep == nil && offset >= n {
			offset -= n // passed by their count
			continue
		}
		var tis []RunTaskInstance
		for i, row := range rows {
			for _, part := range q.parts(row) {
				for _, ti := range part {
					read++
					if r := (RunTaskInstance{Run: runs[i], TI: ti}); q.Keep == nil || q.Keep(r) {
						tis = append(tis, r)
					}
				}
			}
		}
		slices.SortFunc(tis, q.Compare)
		for _, r := range tis {
			switch {
			case offset > 0:
				offset--
			case len(page) < limit:
				page = append(page, r)
			}
		}
	}
	return page, total, true, nil
}

// parts are the spans of a run's row whose task instances the page looks
// at: the row, or with Keep and TaskIDs those tasks' (binary searches).
func (q *TIRunAfterQuery) parts(row *runTasks) [][]*TaskInstance {
	if q.Keep == nil || q.TaskIDs == nil {
		return [][]*TaskInstance{row.TIs}
	}
	parts := make([][]*TaskInstance, 0, len(q.TaskIDs))
	for _, id := range q.TaskIDs {
		if from, to := row.ofTask(id); from < to {
			parts = append(parts, row.TIs[from:to])
		}
	}
	return parts
}

// runAfterMerge merges the DAGs' walks of their runs by run_after: a heap
// of the walks by their run's run_after to the microsecond (the index's
// unit).
type runAfterMerge struct {
	desc  bool
	walks []*runAfterWalk
}

// runAfterWalk is one DAG's runs by run_after and the run it is at.
type runAfterWalk struct {
	dagID string
	it    memdb.ResultIterator
	run   *DagRun
}

// advance moves w to its next run; false at its end (the walk down runs
// on past the DAG's runs: another DAG's run ends it).
func (m *runAfterMerge) advance(w *runAfterWalk, read *int) bool {
	raw := w.it.Next()
	if raw == nil || raw.(*DagRun).DagID != w.dagID {
		w.run = nil
		return false
	}
	*read++
	w.run = raw.(*DagRun)
	return true
}

func (m *runAfterMerge) Len() int { return len(m.walks) }
func (m *runAfterMerge) Less(i, j int) bool {
	a, b := m.walks[i].run.After().UnixMicro(), m.walks[j].run.After().UnixMicro()
	if m.desc {
		return a > b
	}
	return a < b
}
func (m *runAfterMerge) Swap(i, j int) { m.walks[i], m.walks[j] = m.walks[j], m.walks[i] }
func (m *runAfterMerge) Push(x any)    { m.walks = append(m.walks, x.(*runAfterWalk)) }
func (m *runAfterMerge) Pop() any {
	last := m.walks[len(m.walks)-1]
	m.walks = m.walks[:len(m.walks)-1]
	return last
}
