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
	return s.walkedTIPage(q.DagIDs, q.Keep, q.KeepKey, q.Offset, q.Limit, s.TIRunAfterWalk(q))
}

// TIRunAfterWalk is TIRunAfterPage's walk (q's DagIDs and Limit aside).
func (s *Store) TIRunAfterWalk(q TIRunAfterQuery) TIWalk {
	return func(txn *memdb.Txn, dagIDs []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		m := &runAfterMerge{desc: q.Desc}
		for _, dagID := range dagIDs {
			var it memdb.ResultIterator
			var err error
			if q.Desc {
				it, err = runsDownTxn(txn, dagID, endOfTime)
			} else {
				it, err = runsUpTxn(txn, dagID)
			}
			if err != nil {
				return nil, false, fmt.Errorf("list runs of %s by run_after: %w", dagID, err)
			}
			w := &runAfterWalk{dagID: dagID, it: it}
			if m.advance(w, read) {
				m.walks = append(m.walks, w)
			}
		}
		heap.Init(m)
		take := tiedRunsTake{Keep: q.Keep, TaskIDs: q.TaskIDs, Compare: q.Compare, Offset: q.Offset, Limit: limit, Read: read}
		for !take.full() && len(m.walks) > 0 {
			// The runs of the merge's next microsecond, and their rows.
			at := m.walks[0].run.After().UnixMicro()
			var tied tiedRuns
			for len(m.walks) > 0 && m.walks[0].run.After().UnixMicro() == at {
				w := m.walks[0]
				if err := tied.add(txn, w.run, read); err != nil {
					return nil, false, err
				}
				if m.advance(w, read) {
					heap.Fix(m, 0)
				} else {
					heap.Pop(m)
				}
			}
			take.from(tied)
		}
		return take.Page, true, nil
	}
}

// tiedRuns are runs that tie in a listing's order (a microsecond of
// run_after, a run attribute's value), their rows of task instances and
// how many those hold.
type tiedRuns struct {
	runs []*DagRun
	rows []*runTasks
	n    int
}

// add looks up run's row of task instances and keeps both (a run without
// one has none to list).
func (t *tiedRuns) add(txn *memdb.Txn, run *DagRun, read *int) error {
	row, err := runTasksTxn(txn, run.DagID, run.RunID)
	if err != nil {
		return err
	}
	*read++
	if row != nil {
		t.runs, t.rows = append(t.runs, run), append(t.rows, row)
		t.n += len(row.TIs)
	}
	return nil
}

// tiedRunsTake takes a page from tied runs in turn: each group's task
// instances that Keep picks, sorted by Compare (the listing's keys after
// the one they tie on, then the id), past Offset, up to Limit.
type tiedRunsTake struct {
	Keep    func(RunTaskInstance) bool
	TaskIDs []string // with Keep: the only tasks whose instances it picks
	Compare func(a, b RunTaskInstance) int
	Offset  int
	Limit   int
	Read    *int
	Page    []RunTaskInstance
}

func (t *tiedRunsTake) full() bool { return len(t.Page) >= t.Limit }

// from takes what it can of tied: without a filter, a group wholly
// before the offset is passed by its count, its task instances unread.
func (t *tiedRunsTake) from(tied tiedRuns) {
	if t.Keep == nil && t.Offset >= tied.n {
		t.Offset -= tied.n
		return
	}
	var tis []RunTaskInstance
	for i, row := range tied.rows {
		for _, part := range t.parts(row) {
			for _, ti := range part {
				*t.Read++
				if r := (RunTaskInstance{Run: tied.runs[i], TI: ti}); t.Keep == nil || t.Keep(r) {
					tis = append(tis, r)
				}
			}
		}
	}
	slices.SortFunc(tis, t.Compare)
	for _, r := range tis {
		switch {
		case t.Offset > 0:
			t.Offset--
		case len(t.Page) < t.Limit:
			t.Page = append(t.Page, r)
		}
	}
}

// parts are the spans of a run's row whose task instances the page looks
// at: the row, or with Keep and TaskIDs those tasks' (binary searches).
func (t *tiedRunsTake) parts(row *runTasks) [][]*TaskInstance {
	if t.Keep == nil || t.TaskIDs == nil {
		return [][]*TaskInstance{row.TIs}
	}
	parts := make([][]*TaskInstance, 0, len(t.TaskIDs))
	for _, id := range t.TaskIDs {
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
