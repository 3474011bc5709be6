package main

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// pageDAG is a one-task DAG for the listing-cost tests.
const pageDAG = "dag_id: paged\nschedule_interval: null\nstart_date: 2020-01-01\ntasks:\n  - {task_id: only, operator: EmptyOperator}\n"

// TestServerV1_ListRuns_ReadsThePage lists pages of 100 runs of a DAG
// with 10,000 runs (every tenth failed, 50 running) and checks, through the store's
// rowsRead hook, that a page reads about its own rows, not the DAG's
// runs, in the orders and with the filters the store's indexes serve;
// and that each page and total are those of every matching run sorted as
// Airflow sorts them (order, then id; offset, then limit: Airflow 2.10.3
// airflow/api_connexion/endpoints/dag_run_endpoint.py:174 and :188-189).
// Another DAG's runs come before and after, so that the walks cross DAG
// boundaries.
func TestServerV1_ListRuns_ReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withDAG(pageDAG), withDAG(
		"dag_id: other\nschedule_interval: null\nstart_date: 2020-01-01\ntasks:\n  - {task_id: only, operator: EmptyOperator}\n"))
	dagOf := func(id string) *DAG {
		row, err := ts.store.DagByID(id)
		if err != nil {
			t.Fatal(err)
		}
		return row.Def
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	everyTenthFailed := func(i int) RunState {
		if i%10 == 9 {
			return RunFailed
		}
		return RunSuccess
	}
	// In "paged", five runs in a thousand are still running.
	fewRunning := func(i int) RunState {
		if i%200 == 100 {
			return RunRunning
		}
		return everyTenthFailed(i)
	}
	addRunsIn(t, ts.store, dagOf("other"), base.Add(-time.Hour*24*365), 500, false, everyTenthFailed)
	// The later half of the DAG's ids has the earlier logical dates, so
	// that the id order and the date order differ.
	addRunsIn(t, ts.store, dagOf("paged"), base, 5000, false, fewRunning)
	addRunsIn(t, ts.store, dagOf("paged"), base.Add(-time.Hour*24*30), 5000, false, fewRunning)
	addRunsIn(t, ts.store, dagOf("other"), base.Add(time.Hour*24*365), 500, false, everyTenthFailed)

	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, dagID string
		query       v1Values
		states      []RunState // the filter, for the expected answer
		maxRead     int
	}{
		{"default order (id)", "paged", v1Values{"limit": {"100"}}, nil, 100},
		{"id descending", "paged", v1Values{"limit": {"100"}, "order_by": {"-id"}}, nil, 100},
		{"id, a later page", "paged", v1Values{"limit": {"100"}, "offset": {"300"}}, nil, 400},
		{"logical date", "paged", v1Values{"limit": {"100"}, "order_by": {"execution_date"}}, nil, 100},
		{"logical date descending", "paged", v1Values{"limit": {"100"}, "order_by": {"-execution_date"}}, nil, 100},
		{"a common state", "paged", v1Values{"limit": {"100"}, "state": {"success"}}, []RunState{RunSuccess}, 112},
		{"two states", "paged", v1Values{"limit": {"100"}, "state": {"success", "failed"}}, []RunState{RunSuccess, RunFailed}, 100},
		// A rare unfinished state: its 50 runs from the state index.
		{"a rare unfinished state", "paged", v1Values{"limit": {"20"}, "offset": {"10"}, "state": {"running"}}, []RunState{RunRunning}, 50},
		{"a rare unfinished state, id descending", "paged", v1Values{"limit": {"20"}, "order_by": {"-id"}, "state": {"running", "queued"}}, []RunState{RunRunning, RunQueued}, 50},
		{"every DAG, a rare unfinished state", "~", v1Values{"limit": {"100"}, "state": {"running"}}, []RunState{RunRunning}, 50},
		// Every DAG: a seek in each of the two DAGs, and the page.
		{"every DAG", "~", v1Values{"limit": {"100"}}, nil, 102},
		{"every DAG, id descending", "~", v1Values{"limit": {"100"}, "order_by": {"-id"}}, nil, 102},
		{"every DAG, a common state", "~", v1Values{"limit": {"100"}, "state": {"success"}}, []RunState{RunSuccess}, 114},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read = 0
			got, err := ts.srv.V1GetDagRuns(tc.dagID, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("read %d rows", read)
			if read > tc.maxRead {
				t.Errorf("the page read %d rows, want at most %d", read, tc.maxRead)
			}
			ids, total := pageRunIDs(t, got)
			wantIDs, wantTotal := expectedRunPage(t, ts.store, tc.dagID, tc.query, tc.states)
			if !slices.Equal(ids, wantIDs) || total != wantTotal {
				t.Errorf("page %v… (%d runs, total %d), want %v… (%d runs, total %d)",
					head(ids), len(ids), total, head(wantIDs), len(wantIDs), wantTotal)
			}
		})
	}
}

// pageRunIDs reads "dag_id/dag_run_id" of each run of a collection, and
// its total_entries.
func pageRunIDs(t *testing.T, c map[string]any) ([]string, int) {
	t.Helper()
	var ids []string
	for _, r := range c["dag_runs"].([]any) {
		run := map[string]any{}
		for _, f := range r.(pyObject) {
			run[f.key] = f.val
		}
		ids = append(ids, fmt.Sprint(run["dag_id"], "/", run["dag_run_id"]))
	}
	return ids, c["total_entries"].(int)
}

// expectedRunPage is the page as Airflow's query gives it, from every run
// of the DAG (of every DAG for "~"): filter, sort by the attribute then
// id, count, offset, limit.
func expectedRunPage(t *testing.T, store *Store, dagID string, q v1Values, states []RunState) ([]string, int) {
	t.Helper()
	dagIDs := []string{dagID}
	if dagID == "~" {
		dagIDs = []string{"other", "paged"}
	}
	var all []*DagRun
	for _, id := range dagIDs {
		runs, err := store.RunsOfDag(id, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if states == nil || slices.Contains(states, r.State) {
				all = append(all, r)
			}
		}
	}
	attr, desc, err := q.orderBy("id", v1RunOrder)
	if err != nil {
		t.Fatal(err)
	}
	byAttr := compareRuns(attr)
	slices.SortFunc(all, func(a, b *DagRun) int {
		if desc {
			return byAttr(b, a)
		}
		return byAttr(a, b)
	})
	p, err := q.page()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range all[min(p.offset, len(all)):min(p.offset+p.limit, len(all))] {
		ids = append(ids, r.DagID+"/"+r.RunID)
	}
	return ids, len(all)
}

func head(ids []string) []string { return ids[:min(3, len(ids))] }

// TestServerV1_ListTaskInstances_ReadsThePage lists pages of 100 task
// instances across every run of a DAG with 10,000 runs of two tasks, and
// across every DAG, and checks through the store's rowsRead hook that a
// page reads its own runs and those before it in the DAG (two rows each:
// the run and its task-instance row), a DAG before the page none; and
// that each page and total are those of the listing that reads every run
// (Airflow 2.10.3 airflow/api_connexion/endpoints/task_instance_endpoint.py:232
// counts before the page).
func TestServerV1_ListTaskInstances_ReadsThePage(t *testing.T) {
	t.Parallel()
	twoTasks := func(id string) string {
		return "dag_id: " + id + "\nschedule_interval: null\nstart_date: 2020-01-01\ntasks:\n" +
			"  - {task_id: a, operator: EmptyOperator}\n  - {task_id: b, operator: EmptyOperator, upstream: [a]}\n"
	}
	ts := newTestServer(t, edition2, withDAG(twoTasks("paged")), withDAG(twoTasks("other")))
	dagOf := func(id string) *DAG {
		row, err := ts.store.DagByID(id)
		if err != nil {
			t.Fatal(err)
		}
		return row.Def
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	success := func(int) RunState { return RunSuccess }
	addRunsIn(t, ts.store, dagOf("other"), base, 1000, true, success)
	addRunsIn(t, ts.store, dagOf("paged"), base, 10000, true, success)

	// Every DAG's listing reads the DAG table for the DAGs' ids.
	dags, err := ts.store.Dags()
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, dagID string
		query       v1Values
		maxRead     int
	}{
		{"every run of a DAG", "paged", v1Values{"limit": {"100"}}, 100},
		{"every run of a DAG, a later page", "paged", v1Values{"limit": {"100"}, "offset": {"300"}}, 400},
		{"every run of every DAG", "~", v1Values{"limit": {"100"}}, 100 + len(dags)},
		// "other" (2,000 task instances) is skipped by its count.
		{"every DAG, past the first DAG", "~", v1Values{"limit": {"100"}, "offset": {"2050"}}, 150 + len(dags)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read = 0
			got, err := ts.srv.V1GetTaskInstances(tc.dagID, "~", tc.query)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("read %d rows", read)
			if read > tc.maxRead {
				t.Errorf("the page read %d rows, want at most %d", read, tc.maxRead)
			}
			// The listing that reads every run: a filter every task
			// instance here passes (each has a start date).
			p, err := tc.query.page()
			if err != nil {
				t.Fatal(err)
			}
			everyStart := time.Time{}
			q := &tiQuery{offset: p.offset, limit: p.limit, startGTE: &everyStart}
			if tc.dagID != "~" {
				q.dagIDs = []string{tc.dagID}
			}
			want, wantTotal, err := ts.srv.fetchTaskInstances(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != p.limit || wantTotal == 0 {
				t.Fatalf("the full listing has %d of %d task instances: the test would compare nothing", len(want), wantTotal)
			}
			if !reflect.DeepEqual(got["task_instances"], want) || got["total_entries"] != wantTotal {
				t.Errorf("page of %d (total %v), want %d (total %d)", len(got["task_instances"].([]any)), got["total_entries"], len(want), wantTotal)
			}
		})
	}
}

// TestServerV1_ListTaskInstances_NamedRunReadsThePage lists pages of a
// named run's task instances (GET .../dagRuns/{dag_run_id}/taskInstances,
// and the batch's dag_run_ids) whose last task expanded into 400 mapped
// instances, and checks through the store's rowsRead hook that a page
// reads its own task instances, not the run's 402 (read before, each
// checked against the filters the listing has none of); each page and
// total those of a filter every task instance passes (the path that
// reads them all).
func TestServerV1_ListTaskInstances_NamedRunReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	dag := benchDAG(t, "wide", 3)
	if _, err := ts.store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	addRunsWithTIIDs(t, ts.store, dag, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 3, false)
	expandLastTask(t, ts.store, dag, 400)
	runs, err := ts.store.RunsOfDag("wide", "")
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	everyStart := time.Time{}
	for _, tc := range []struct {
		name   string
		runIDs []string
		offset int
	}{
		{"a run", []string{runs[1].RunID}, 0},
		{"a run, offset", []string{runs[1].RunID}, 300},
		{"a run, the last page", []string{runs[1].RunID}, 390},
		{"two runs, across them", []string{runs[2].RunID, runs[0].RunID}, 380},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &tiQuery{dagIDs: []string{"wide"}, runIDs: tc.runIDs, offset: tc.offset, limit: 20}
			read = 0
			got, total, err := ts.srv.fetchTaskInstances(q)
			if err != nil {
				t.Fatal(err)
			}
			if read == 0 || read > 20 {
				t.Errorf("the page read %d rows, want 1 to 20", read)
			}
			all := *q
			all.startGTE = &everyStart
			want, wantTotal, err := ts.srv.fetchTaskInstances(&all)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !reflect.DeepEqual(got, want) || total != wantTotal {
				t.Errorf("page of %d (total %d), want %d (total %d)", len(got), total, len(want), wantTotal)
			}
		})
	}
	if got, err := ts.srv.V1GetTaskInstances("wide", runs[1].RunID, v1Values{"limit": {"20"}, "offset": {"300"}}); err != nil || got["total_entries"] != 402 {
		t.Errorf("the GET's total: %v (%v), want 402", got["total_entries"], err)
	}
}
