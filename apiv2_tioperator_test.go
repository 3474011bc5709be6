package main

import (
	"math/rand/v2"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// setOperators gives each task instance of dagID's runs the operator op
// names (the run's index among the DAG's runs, the task instance), as
// versions of a DAG whose tasks changed type would.
func setOperators(tb testing.TB, store *Store, dagID string, op func(run int, ti *TaskInstance) string) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	for n, run := range runs {
		tis, err := store.TaskInstancesOfRun(dagID, run.RunID)
		if err != nil {
			tb.Fatal(err)
		}
		var changed []*TaskInstance
		for _, ti := range tis {
			if o := op(n, ti); o != ti.Operator {
				c := *ti
				c.Operator = o
				changed = append(changed, &c)
			}
		}
		if len(changed) == 0 {
			continue
		}
		if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, changed...) }); err != nil {
			tb.Fatal(err)
		}
	}
}

// operatorOfTask is a DAG's operators by task: t0 a BashOperator, t1 a
// PythonOperator, the others EmptyOperators.
func operatorOfTask(_ int, ti *TaskInstance) string {
	switch ti.TaskID {
	case "t0":
		return "BashOperator"
	case "t1":
		return "PythonOperator"
	}
	return "EmptyOperator"
}

// TestAPIv2_TaskInstances_OperatorReadsThePage lists every run's task
// instances by operator alone, either way (then the id in the key's
// direction: c57fba0e api_fastapi/common/parameters.py:327-330), of
// every DAG, one DAG, with a filter or none, and checks through the
// store's rowsRead hook that a page, asked a second time (the
// operators' counts remembered per version), reads the id walk up to
// its last row (an operator's rows among the others), not the 1,280 task
// instances of the runs read and sorted. Each answer is the sorting
// path's.
func TestAPIv2_TaskInstances_OperatorReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tioper_b", "tioper_a", "tioper_c"} {
		dag := addStartedRuns(t, ts.store, id, base, 80, i == 0)
		if i == 2 {
			expandTwoTasks(t, ts.store, dag, 3)
		}
		setOperators(t, ts.store, id, operatorOfTask)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tioper_a/dagRuns/~/taskInstances"
	const walks = 2 * 4 // a block at each end of a DAG's four walks
	// Every DAG's t0 and t1 are 240 of 1,280 task instances each: the
	// walk reads (a block and a task instance each) 16/3 rows a picked one.
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"every DAG, operator", "GET", all + "?limit=50&order_by=operator", "", 2*50*16/3 + 3*walks},
		{"one DAG, -operator", "GET", dagA + "?limit=50&order_by=-operator", "", 2*50*4 + walks},
		// Not here: every DAG's -operator, whose walk down meets the
		// expanded DAG's 320 newest ids (mapped EmptyOperators) before a
		// PythonOperator, 954 rows read (a rare operator along the walk).
		// A DAG's 80 BashOperators passed by their count, then its
		// EmptyOperators (half of its task instances) from the 20th.
		{"one DAG, operator, offset", "GET", dagA + "?limit=20&offset=100&order_by=operator", "", 2*2*(20+20) + walks},
		{"one DAG, -operator, a state", "GET", dagA + "?limit=20&offset=20&state=success&order_by=-operator", "", 2*4*(20+20)*11/10 + walks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_OperatorAsTheSort asks random listings of every
// run's task instances by operator alone, either way, of one DAG, some
// or every DAG, filters or none, between random writes (changeStartedTIs's,
// and operators changed), and holds each to the sorting path's answer.
func TestTaskInstances_OperatorAsTheSort(t *testing.T) {
	t.Parallel()
	ts, dags, base := twoStartedDAGs(t, "tiopsort")
	store := ts.store
	rng := rand.New(rand.NewPCG(21, 16))
	ops := []string{"", "BashOperator", "EmptyOperator", "PythonOperator", "_PythonDecoratedOperator"}
	for _, d := range dags {
		setOperators(t, store, d.DagID, operatorOfTask)
	}
	o := ts.srv.ops
	now := base.Add(time.Hour)
	for i := range 400 {
		switch {
		case i%10 == 5:
			setOperators(t, store, dags[rng.IntN(len(dags))].DagID, func(run int, ti *TaskInstance) string {
				if rng.IntN(7) == 0 {
					return ops[rng.IntN(len(ops))]
				}
				return ti.Operator
			})
		case i%5 == 0:
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		checkTISearchAsSorted(t, o, i, randomOneKeyTISearch(rng, "operator", dags))
	}
}

// randomOneKeyTISearch is a random listing by attr alone (either way) of
// the task instances of both dags (a, b), of one, or of every DAG, with
// a state, task or map_index filter or none.
func randomOneKeyTISearch(rng *rand.Rand, attr string, dags []*DAG) *tiSearch {
	q := &tiSearch{offset: rng.IntN(150), limit: 1 + rng.IntN(40), order: []sortKey{{attr: attr, desc: rng.IntN(2) == 0}}}
	switch rng.IntN(3) {
	case 0:
		q.dagIDs = []string{dags[rng.IntN(2)].DagID}
	case 1:
		q.dagIDs = []string{dags[1].DagID, dags[0].DagID}
	}
	switch rng.IntN(6) {
	case 0:
		q.states = []TaskState{TaskSuccess}
	case 1:
		q.taskIDs = []string{"t3"}
	case 2:
		q.mapIndexes = []int64{-1, 1}
	}
	return q
}
