package main

import (
	"fmt"
	"testing"
	"time"
)

// Airflow 3.2's common/db/test_dags.py (c57fba0e airflow-core/tests/unit/
// api_fastapi/common/db/test_dags.py:38-300): generate_dag_with_latest_run_query,
// the query behind GET /dags, joins each DAG's latest run (its highest id)
// even when that run is queued and has no start date. The test reads the
// joined columns; on the wire they are what GET /dags?order_by=last_run_state
// and last_run_start_date sort by, with dag_id after them in the first
// key's direction (SortParam's tie-breaker), a NULL start lowest (SQLite).

// TestAPIv2_AirflowDagsLatestRunJoin: test_includes_queued_run_without_start_date,
// test_includes_queued_run_when_ordering_by_state and _by_start_date,
// test_latest_queued_run_without_start_date_is_included and
// test_queued_runs_with_null_start_date_are_properly_joined, on one state:
// dag_with_queued_run (its run queued, not started), dag_with_running_run
// (running, started now) and dag_with_multiple_runs (a successful run of
// 2025-01-01, then a queued one not started). test_filters_by_dag_ids_when_provided
// is not replayed: it limits the query to the DAGs a user may read, and
// airlite's users read every DAG.
func TestAPIv2_AirflowDagsLatestRunJoin(t *testing.T) {
	t.Parallel()
	var options []testOption
	for _, id := range []string{"dag_with_queued_run", "dag_with_running_run", "dag_with_multiple_runs"} {
		options = append(options, withOwnDAG(fmt.Sprintf("dag_id: %s\nschedule_interval: null\nstart_date: 2024-01-01T00:00:00+00:00\ntasks:\n  - {task_id: op, operator: EmptyOperator}\n", id)))
	}
	ts := newTestServer(t, edition3, append(options, withExamplesOnly())...)
	now := ts.store.clock()
	older := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []*DagRun{
		{ID: 1, DagID: "dag_with_queued_run", RunID: "manual__queued", ExecutionDate: now, State: RunQueued, RunType: "manual"},
		{ID: 2, DagID: "dag_with_running_run", RunID: "manual__running", ExecutionDate: now, State: RunRunning, RunType: "manual", StartDate: &now},
		{ID: 3, DagID: "dag_with_multiple_runs", RunID: "manual__older", ExecutionDate: older, State: RunSuccess, RunType: "manual", StartDate: &older, EndDate: &older},
		{ID: 4, DagID: "dag_with_multiple_runs", RunID: "manual__newer_queued", ExecutionDate: now, State: RunQueued, RunType: "manual"},
	} {
		if err := ts.store.UpsertDagRun(r); err != nil {
			t.Fatal(err)
		}
	}
	const (
		queuedFirst  = "ids:dag_with_multiple_runs dag_with_queued_run dag_with_running_run total=3"
		runningFirst = "ids:dag_with_running_run dag_with_queued_run dag_with_multiple_runs total=3"
	)
	runAirflowDagCases(t, ts, []airflowCase{
		{"GET", "/dags?order_by=dag_id", "", 200, "ids:dag_with_multiple_runs dag_with_queued_run dag_with_running_run total=3"},
		{"GET", "/dags?order_by=last_run_state", "", 200, queuedFirst},
		{"GET", "/dags?order_by=-last_run_state", "", 200, runningFirst},
		{"GET", "/dags?order_by=last_run_start_date", "", 200, queuedFirst},
		{"GET", "/dags?order_by=-last_run_start_date", "", 200, runningFirst},
		// The latest run's state is the one the last_dag_run_state filter
		// reads: the multiple runs' DAG is queued, not successful.
		{"GET", "/dags?last_dag_run_state=queued", "", 200, "ids:dag_with_multiple_runs dag_with_queued_run total=2"},
		{"GET", "/dags?last_dag_run_state=success", "", 200, "ids:total=0"},
	})
}
