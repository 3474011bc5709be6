package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestScheduler_TriggerDagRunOperatorRefused: a TriggerDagRunOperator's
// try asks Airflow 3.2.1's execution API to trigger its DAG (c57fba0e
// execution_api/routes/dag_runs.py trigger_dag_run); a DAG that is not
// there (404) or does not allow manual runs (400, allowed_run_types) is
// refused, the refusal escapes the task runner's run() through its
// finally (task_runner.py:1292-1293, 1350-1356: state unbound, apache/
// airflow#63089) and the process exits 1: failed, or up_for_retry when
// retries are left (supervisor.py final_state). A DAG that allows them is
// triggered, as airlite simulates it: success.
func TestScheduler_TriggerDagRunOperatorRefused(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/triggerop")
	ts.v2(t, http.MethodPost, "/dags/top_controller/dagRuns", `{"dag_run_id": "r", "logical_date": null}`, http.StatusOK)
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: func() time.Time { return testNow }, Parallelism: 8, Unixname: testUnixname, Hostname: "test"})
	t.Cleanup(sched.stop)
	settleTicks(t, sched, func() time.Time { return testNow })

	refused := func(dagID string) string {
		return `'detail': {'detail': {'reason': 'denied_run_type', 'message': "Dag with dag_id '` + dagID + `' does not allow manual runs"}}`
	}
	for _, tc := range []struct {
		task  string
		state TaskState
		log   []string
	}{
		{"refused", TaskFailed, []string{"Triggering Dag Run. trigger_dag_id=top_scheduled_only\n",
			"AirflowRuntimeError: API_SERVER_ERROR: {'status_code': 400, 'message': 'Server returned error', " + refused("top_scheduled_only"),
			"UnboundLocalError: cannot access local variable 'state' where it is not associated with a value",
			"Process exited abnormally exit_code=1"}},
		{"refused_retried", TaskUpForRetry, []string{refused("top_scheduled_only")}},
		{"refused_templated", TaskFailed, []string{"trigger_dag_id=top_scheduled_only\n", refused("top_scheduled_only")}},
		{"missing", TaskFailed, []string{"'status_code': 404", `'detail': {'detail': {'reason': 'not_found', 'message': "Dag with dag_id: 'top_nowhere' not found"}}`}},
		{"allowed", TaskSuccess, []string{"simulated TriggerDagRunOperator: success"}},
	} {
		ti, err := ts.store.TaskInstance("top_controller", "r", tc.task)
		if err != nil {
			t.Fatal(err)
		}
		if ti.State != tc.state {
			t.Errorf("%s: state %s, want %s", tc.task, ti.State, tc.state)
		}
		logs, err := ts.store.TaskLogsOfRun("top_controller", "r")
		if err != nil || logs[tc.task] == nil || len(logs[tc.task].Tries) != 1 {
			t.Fatalf("%s: logs %v %v", tc.task, logs[tc.task], err)
		}
		for _, want := range tc.log {
			if out := logs[tc.task].Tries[0].Output; !strings.Contains(out, want) {
				t.Errorf("%s: log lacks %q:\n%s", tc.task, want, out)
			}
		}
	}
}

// TestScheduler_TriggerDagRunOperatorEarlierEditions: Airflow 2.10.3 and
// 1.10.15 trigger in the task's own process, which airlite simulates: a
// TriggerDagRunOperator's try there succeeds whatever its target.
func TestScheduler_TriggerDagRunOperatorEarlierEditions(t *testing.T) {
	t.Parallel()
	task := &Task{TaskID: "trigger", Operator: "TriggerDagRunOperator", TriggerDagID: "nowhere"}
	for _, e := range []edition{edition2, edition110} {
		sched := newScheduler(schedulerOptions{Store: storeWith(t, &DAGSet{}), Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t))})
		t.Cleanup(sched.stop)
		out := sched.runOperator(t.Context(), taskJob{key: tiKey{dagID: "d", runID: "r", taskID: "trigger", mapIndex: -1}, try: 1,
			dag: &DAG{DagID: "d"}, task: task})
		if out.state != TaskSuccess {
			t.Errorf("edition %s: %s (%s), want success", e, out.state, out.reason)
		}
	}
}
