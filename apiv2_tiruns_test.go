package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_TaskInstances_NamedRunsReadThePage lists the task instances
// of named runs (get_task_instances with a dag_run_id, the batch's
// dag_run_ids) whose last task expanded into 400 mapped instances, in
// get_task_instances' default order (map_index, then id), and checks
// through the store's rowsRead hook that a page reads its runs and rows
// and about its own task instances (at most one more a task, to pass
// the rest of its offset), not every task instance of the runs (402 a
// run before: read and sorted); with a filter, the task instances of
// the order up to the page's last (the count remembered). Each answer is
// the sorting path's (operations.sortLists).
func TestAPIv2_TaskInstances_NamedRunsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dag := benchDAG(t, "wide", 3)
	if _, err := ts.store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	addRunsWithTIIDs(t, ts.store, dag, base, 6, true)
	expandLastTask(t, ts.store, dag, 400)
	runs, err := ts.store.RunsOfDag("wide", "")
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	one := "/dags/wide/dagRuns/" + url.PathEscape(runs[2].RunID) + "/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	named := fmt.Sprintf(`"dag_run_ids": [%q, %q]`, runs[4].RunID, runs[1].RunID)
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"a run", "GET", one + "?limit=20", "", 2 + 20 + 3},
		{"a run, offset", "GET", one + "?limit=20&offset=300", "", 2 + 20 + 3},
		{"a run, the last page", "GET", one + "?limit=50&offset=380", "", 2 + 22 + 3},
		{"a run, a filter", "GET", one + "?limit=20&offset=100&state=success", "", 2 + 120},
		{"batch, two runs", "POST", batch, `{"dag_ids": ["wide"], ` + named + `, "order_by": "map_index", "page_offset": 500, "page_limit": 30}`, 4 + 30 + 6},
		{"batch, every DAG", "POST", batch, `{` + named + `, "order_by": "map_index", "page_limit": 30}`, 4 + 30 + 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_NamedRunsAsTheSort asks random listings of the task
// instances of named runs (one run or several, of one DAG, some or every
// DAG, runs that are not there, filters or none) in (map_index, id)
// order, between random writes (new tries, expansions, deletions), and
// holds each to the sorting path's answer.
func TestTaskInstances_NamedRunsAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{benchDAG(t, "named_a", 4), benchDAG(t, "named_b", 3)}
	for i, dag := range dags {
		if _, err := store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		addRunsWithTIIDs(t, store, dag, base.Add(time.Duration(i)*time.Second), 12, i == 0)
	}
	rng := rand.New(rand.NewPCG(21, 3))
	o := ts.srv.ops
	runIDsOf := func(dagID string) []string {
		runs, err := store.RunsOfDag(dagID, "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.RunID)
		}
		return ids
	}
	keys := func(rows []RunTaskInstance) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%s/%s/%s/%d", r.TI.DagID, r.Run.RunID, r.TI.TaskID, r.TI.MapIndex))
		}
		return out
	}
	for i := range 400 {
		if i%10 == 0 {
			changeTaskInstances(t, store, dags[rng.IntN(len(dags))], rng)
		}
		q := &tiSearch{offset: rng.IntN(30), limit: 1 + rng.IntN(30), order: []sortKey{{attr: "map_index"}}}
		switch rng.IntN(3) {
		case 0:
			q.dagIDs = []string{dags[rng.IntN(2)].DagID}
		case 1:
			q.dagIDs = []string{"named_b", "named_a"}
		}
		ids := append(runIDsOf("named_a"), runIDsOf("named_b")...)
		for range 1 + rng.IntN(3) {
			q.runIDs = append(q.runIDs, ids[rng.IntN(len(ids))])
		}
		if rng.IntN(6) == 0 {
			q.runIDs = append(q.runIDs, "no_such_run")
		}
		q.runIDs = inList(q.runIDs) // as the batch reads dag_run_ids
		switch rng.IntN(5) {
		case 0:
			q.states = []TaskState{TaskSuccess}
		case 1:
			q.taskIDs = []string{"t0", "t2"}
		case 2:
			q.mapIndexes = []int64{-1, 1}
		}
		sorted := *q
		sorted.dagIDs, sorted.runIDs = slices.Clone(q.dagIDs), slices.Clone(q.runIDs)
		want, wantTotal, err := o.sortedTaskInstances(&sorted)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second with a filter's count remembered
			c := *q
			c.dagIDs, c.runIDs = slices.Clone(q.dagIDs), slices.Clone(q.runIDs)
			got, total, err := o.searchTaskInstances(&c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys(got), keys(want)) || total != wantTotal {
				t.Fatalf("listing %d (%+v): %v of %d, want %v of %d", i, *q, keys(got), total, keys(want), wantTotal)
			}
		}
	}
}

// changeTaskInstances applies a random write to a random run of dag's
// task instances: a new try (a new id), a task expanded into mapped
// instances, or a task instance deleted.
func changeTaskInstances(t *testing.T, store *Store, dag *DAG, rng *rand.Rand) {
	t.Helper()
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		t.Fatal(err)
	}
	run := runs[rng.IntN(len(runs))]
	tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
	if err != nil || len(tis) == 0 {
		t.Fatal(err, len(tis))
	}
	ti := tis[rng.IntN(len(tis))]
	switch rng.IntN(3) {
	case 0:
		next := *ti
		next.ID = newTaskInstanceID()
		next.State = TaskFailed
		err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) })
	case 1:
		if ti.MapIndex != -1 {
			return
		}
		var mapped []*TaskInstance
		for mi := range 2 + rng.IntN(8) {
			m := *ti
			m.MapIndex = mi
			if mi > 0 {
				m.ID = newTaskInstanceID()
			}
			mapped = append(mapped, &m)
		}
		err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mapped...) })
	default:
		_, err = store.DeleteTaskInstance(ti.DagID, ti.RunID, ti.TaskID, ti.MapIndex)
	}
	if err != nil {
		t.Fatal(err)
	}
}
