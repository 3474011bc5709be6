package main

import (
	"testing"
	"time"
)

const depsDAG = `
dag_id: deps
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
catchup: false
max_active_tasks: 1
tasks:
  - task_id: first
    operator: BashOperator
    bash_command: echo one
    pool: small
    downstream: [second]
  - task_id: second
    operator: BashOperator
    bash_command: echo two
    depends_on_past: true
    trigger_rule: none_failed_or_skipped
`

// setRunState puts a run in a state directly.
func (ts *testServer) setRunState(t *testing.T, dagID, runID string, state RunState) {
	t.Helper()
	run, err := ts.store.RunByRunID(dagID, runID)
	if err != nil {
		t.Fatal(err)
	}
	changed := *run
	changed.State = state
	if err := ts.store.UpsertDagRun(&changed); err != nil {
		t.Fatal(err)
	}
}

// TestServerV1_TaskInstanceDependencies follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:2623-2737
// (TestGetTaskDependencies), with the reasons of airflow/ti_deps/deps/*.py.
func TestServerV1_TaskInstanceDependencies(t *testing.T) {
	t.Parallel()
	tutorial := func(t *testing.T, ts *testServer) { threeRuns(t, ts) }
	depsRuns := func(states ...TaskState) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			ts.postRun(t, "deps", `{"dag_run_id": "d1", "logical_date": "2024-02-01T00:00:00+00:00"}`)
			ts.postRun(t, "deps", `{"dag_run_id": "d2", "logical_date": "2024-02-02T00:00:00+00:00"}`)
			ts.setRunState(t, "deps", "d2", RunRunning)
			if _, err := ts.store.CreatePool(Pool{Name: "small", Slots: 1}); err != nil {
				t.Fatal(err)
			}
			for i, s := range states { // first and second of d1
				ts.setTaskState(t, "deps", "d1", []string{"first", "second"}[i], s)
			}
			ts.setTaskState(t, "deps", "d2", "first", TaskScheduled)
		}
	}
	withDeps := []testOption{withDAG(depsDAG)}
	const notRunning = `{"name": "Dagrun Running", "reason": "Task instance's dagrun was not in the 'running' state but in the state 'queued'."}`
	const noneState = `{"name": "Task Instance State", "reason": "Task is in the 'None' state."}`
	runV1Cases(t, []v1Case{
		// test_task_instance_endpoint.py:2641-2689 (test_should_respond_dependencies, state None):
		// here the run is still queued, and nothing is upstream
		{name: "no state, queued run", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/dependencies", setup: tutorial,
			wantStatus: 200, wantJSON: `{"dependencies": [` + notRunning + `, ` + noneState + `]}`},
		// trigger_rule_dep.py:472-486 (all_success)
		{name: "upstream not done", path: "/dags/tutorial/dagRuns/r3/taskInstances/sleep/dependencies", setup: tutorial,
			wantStatus: 200, wantJSON: `{"dependencies": [` + notRunning + `, ` + noneState + `,
				{"name": "Trigger Rule", "reason": "Task's trigger rule 'all_success' requires all upstream tasks to have succeeded, but found 1 non-success(es). upstream_states=_UpstreamTIStates(success=0, skipped=0, failed=0, upstream_failed=0, removed=0, done=0, success_setup=0, skipped_setup=0), upstream_task_ids={'print_date'}"}]}`},
		// test_task_instance_endpoint.py:2631 (test_should_respond_empty_non_scheduled): a state other than None and scheduled
		{name: "running: none", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/dependencies",
			setup: func(t *testing.T, ts *testServer) {
				tutorial(t, ts)
				ts.setTaskState(t, "tutorial", "r3", "print_date", TaskRunning)
			}, wantStatus: 200, wantJSON: `{"dependencies": []}`},
		{name: "success: none", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/dependencies",
			setup: func(t *testing.T, ts *testServer) {
				tutorial(t, ts)
				ts.setTaskState(t, "tutorial", "r3", "print_date", TaskSuccess)
			}, wantStatus: 200, wantJSON: `{"dependencies": []}`},
		// dag_unpaused_dep.py:30-35
		{name: "paused DAG", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/dependencies",
			setup: func(t *testing.T, ts *testServer) {
				tutorial(t, ts)
				ts.v1(t, "PATCH", "/dags/tutorial", `{"is_paused": true}`)
				ts.setRunState(t, "tutorial", "r3", RunRunning)
				ts.setTaskState(t, "tutorial", "r3", "print_date", TaskScheduled)
			}, wantStatus: 200, wantJSON: `{"dependencies": [{"name": "Dag Not Paused", "reason": "Task's DAG 'tutorial' is paused."}]}`},
		// runnable_exec_date_dep.py:36-44
		{name: "future logical date", path: "/dags/tutorial/dagRuns/future/taskInstances/print_date/dependencies",
			setup: func(t *testing.T, ts *testServer) {
				ts.postRun(t, "tutorial", `{"dag_run_id": "future", "logical_date": "2030-01-01T00:00:00+00:00"}`)
				ts.setRunState(t, "tutorial", "future", RunRunning)
				ts.setTaskState(t, "tutorial", "future", "print_date", TaskScheduled)
			}, wantStatus: 200, wantJSON: `{"dependencies": [{"name": "Execution Date",
				"reason": "Execution date 2030-01-01T00:00:00+00:00 is in the future (the current date is 2024-05-01T10:00:00.123456+00:00)."}]}`},
		// test_task_instance_endpoint.py:2641-2662 (scheduled, before the start dates)
		{name: "before the start date", path: "/dags/tutorial/dagRuns/early/taskInstances/print_date/dependencies",
			setup: func(t *testing.T, ts *testServer) {
				// Airflow creates no task instance before the task's start
				// date (DagRun.verify_integrity); its test inserts one, as here.
				ts.postRun(t, "tutorial", `{"dag_run_id": "early", "logical_date": "2020-01-01T00:00:00+00:00"}`)
				ts.setRunState(t, "tutorial", "early", RunRunning)
				threeRuns(t, ts)
				ti, err := ts.store.TaskInstance("tutorial", "r3", "print_date")
				if err != nil {
					t.Fatal(err)
				}
				early := *ti
				early.RunID, early.ExecutionDate, early.State = "early", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), TaskScheduled
				if err := ts.store.UpsertTaskInstance(&early); err != nil {
					t.Fatal(err)
				}
			}, wantStatus: 200, wantJSON: `{"dependencies": [
				{"name": "Execution Date", "reason": "The execution date is 2020-01-01T00:00:00+00:00 but this is before the task's start date 2021-01-01T00:00:00+00:00."},
				{"name": "Execution Date", "reason": "The execution date is 2020-01-01T00:00:00+00:00 but this is before the task's DAG's start date 2021-01-01T00:00:00+00:00."}]}`},
		// pool_slots_available_dep.py:46-66: the one slot of small is held by d1's first
		{name: "pool full", path: "/dags/deps/dagRuns/d2/taskInstances/first/dependencies", options: withDeps,
			setup: depsRuns(TaskRunning), wantStatus: 200, wantJSON: `{"dependencies": [{"name": "Pool Slots Available",
				"reason": "Not scheduling since there are 0 open slots in pool small and require 1 pool slots"},
				{"name": "Task Instance Slots Available", "reason": "The maximum number of running tasks (1) for this task's DAG 'deps' has been reached."}]}`},
		{name: "pool free", path: "/dags/deps/dagRuns/d2/taskInstances/first/dependencies", options: withDeps,
			setup: depsRuns(TaskSuccess), wantStatus: 200, wantJSON: `{"dependencies": []}`},
		// pool_slots_available_dep.py:41-45
		{name: "pool missing", path: "/dags/deps/dagRuns/d2/taskInstances/first/dependencies", options: withDeps,
			setup: func(t *testing.T, ts *testServer) {
				depsRuns(TaskSuccess)(t, ts)
				if _, err := ts.store.DeletePool("small"); err != nil {
					t.Fatal(err)
				}
			}, wantStatus: 200, wantJSON: `{"dependencies": [{"name": "Pool Slots Available",
				"reason": "Tasks using non-existent pool 'small' will not be scheduled"}]}`},
		// prev_dagrun_dep.py:181-188 and trigger_rule_dep.py:509-520 (the deprecated name shown renamed)
		{name: "depends_on_past and upstream", path: "/dags/deps/dagRuns/d2/taskInstances/second/dependencies", options: withDeps,
			setup: func(t *testing.T, ts *testServer) {
				depsRuns(TaskSuccess, TaskFailed)(t, ts)
				ts.setTaskState(t, "deps", "d2", "second", TaskScheduled)
			}, wantStatus: 200, wantJSON: `{"dependencies": [
				{"name": "Previous Dagrun State", "reason": "depends_on_past is true for this task, but 1 previous task instance(s) are not in a successful state."},
				{"name": "Trigger Rule", "reason": "Task's trigger rule 'none_failed_min_one_success' requires all upstream tasks to have succeeded or been skipped, but found 1 non-success(es). upstream_states=_UpstreamTIStates(success=0, skipped=0, failed=0, upstream_failed=0, removed=0, done=0, success_setup=0, skipped_setup=0), upstream_task_ids={'first'}"}]}`},
		{name: "depends_on_past met", path: "/dags/deps/dagRuns/d2/taskInstances/second/dependencies", options: withDeps,
			setup: func(t *testing.T, ts *testServer) {
				depsRuns(TaskSuccess, TaskSuccess)(t, ts)
				ts.setTaskState(t, "deps", "d2", "first", TaskSkipped)
				ts.setTaskState(t, "deps", "d2", "second", TaskScheduled)
			}, wantStatus: 200, wantJSON: `{"dependencies": []}`},
		// prev_dagrun_dep.py:165-179: the previous run has no task instance
		// of the task, and an earlier one had
		{name: "depends_on_past: previous not run", path: "/dags/deps/dagRuns/d3/taskInstances/second/dependencies", options: withDeps,
			setup: func(t *testing.T, ts *testServer) {
				depsRuns(TaskSuccess, TaskSuccess)(t, ts)
				ts.postRun(t, "deps", `{"dag_run_id": "d3", "logical_date": "2024-02-03T00:00:00+00:00"}`)
				ts.setRunState(t, "deps", "d3", RunRunning)
				ts.setTaskState(t, "deps", "d3", "first", TaskSuccess)
				ts.setTaskState(t, "deps", "d3", "second", TaskScheduled)
				if err := ts.store.RemoveTaskInstance("deps", "d2", "second"); err != nil {
					t.Fatal(err)
				}
			}, wantStatus: 200, wantJSON: `{"dependencies": [{"name": "Previous Dagrun State",
				"reason": "depends_on_past is true for this task's DAG, but the previous task instance has not run yet."}]}`},
		// test_task_instance_endpoint.py:2728 (test_should_respond_404)
		{name: "unknown DAG", path: "/dags/INVALID_DAG_ID/dagRuns/r3/taskInstances/print_date/dependencies", setup: tutorial,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task Instance not found for dag_id=INVALID_DAG_ID, run_id=r3, task_id=print_date", detail: nil}},
		{name: "map index 0", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/0/dependencies", setup: tutorial,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date", detail: nil}},
	})
}
