package main

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// triggeringScheduler is a scheduler over ts's store whose loop runs
// (every 10 ms, on ts's fixed clock) and whose TriggerDagRunOperator
// tries trigger through ts's operations, wired as main wires them: the
// operations wake the scheduler, the scheduler calls their trigger.
func triggeringScheduler(t *testing.T, ts *testServer) *scheduler {
	t.Helper()
	return triggeringSchedulerOn(t, ts, func() time.Time { return testNow })
}

// triggeringSchedulerOn is triggeringScheduler on the clock now.
func triggeringSchedulerOn(t *testing.T, ts *testServer, now func() time.Time) *scheduler {
	t.Helper()
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: ts.edition, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: now, Interval: 10 * time.Millisecond, Parallelism: 16,
		Unixname: testUnixname, Hostname: "test"})
	ts.srv.ops.kick = sched.Kick
	ts.srv.ops.tasksStopped = sched.WithTasksStopped
	sched.useOperations(ts.srv.ops)
	sched.start()
	t.Cleanup(sched.stop)
	return sched
}

// awaitRunEnd waits for a run to finish and returns it.
func awaitRunEnd(t *testing.T, store *Store, dagID, runID string) *DagRun {
	t.Helper()
	var run *DagRun
	if !pollUntil(60*time.Second, func() bool {
		r, err := store.RunByRunID(dagID, runID)
		run = r
		return err == nil && r.State.Finished()
	}) {
		t.Fatalf("run %s of %s did not finish: %+v", runID, dagID, run)
	}
	return run
}

// awaitTriesEnded waits until each of a run's tasks has ended a try
// (success, failed, skipped or up_for_retry: a retry waits its delay on
// a clock that stands still).
func awaitTriesEnded(t *testing.T, store *Store, dagID, runID string, taskIDs ...string) {
	t.Helper()
	ended := func() bool {
		for _, id := range taskIDs {
			ti, err := store.TaskInstance(dagID, runID, id)
			if err != nil {
				return false
			}
			switch ti.State {
			case TaskSuccess, TaskFailed, TaskSkipped, TaskUpForRetry:
			default:
				return false
			}
		}
		return true
	}
	if !pollUntil(60*time.Second, ended) {
		t.Fatalf("the tasks %v of %s %s did not end", taskIDs, dagID, runID)
	}
}

// tryOutput is the log of a task instance's last try.
func tryOutput(t *testing.T, store *Store, dagID, runID, taskID string) string {
	t.Helper()
	logs, err := store.TaskLogsOfRun(dagID, runID)
	if err != nil || logs[taskID] == nil || len(logs[taskID].Tries) == 0 {
		t.Fatalf("%s: logs %v %v", taskID, logs[taskID], err)
	}
	tries := logs[taskID].Tries
	return tries[len(tries)-1].Output
}

// checkTry checks a task instance's state and that its last try's log
// holds each of logs.
func checkTry(t *testing.T, store *Store, dagID, runID, taskID string, state TaskState, logs ...string) {
	t.Helper()
	ti, err := store.TaskInstance(dagID, runID, taskID)
	if err != nil {
		t.Fatal(err)
	}
	if ti.State != state {
		t.Errorf("%s: state %s, want %s", taskID, ti.State, state)
	}
	out := tryOutput(t, store, dagID, runID, taskID)
	for _, want := range logs {
		if !strings.Contains(out, want) {
			t.Errorf("%s: log lacks %q:\n%s", taskID, want, out)
		}
	}
}

// TestScheduler_TriggerDagRunOperatorRefused: a TriggerDagRunOperator's
// try asks Airflow 3.2.1's execution API to trigger its DAG (c57fba0e
// execution_api/routes/dag_runs.py trigger_dag_run); a DAG that is not
// there (404) or does not allow manual runs (400, allowed_run_types) is
// refused, the refusal escapes the task runner's run() through its
// finally (task_runner.py:1292-1293, 1350-1356: state unbound, apache/
// airflow#63089) and the process exits 1: failed, or up_for_retry when
// retries are left (supervisor.py final_state). A DAG that allows them is
// triggered.
func TestScheduler_TriggerDagRunOperatorRefused(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/triggerop")
	ts.v2(t, http.MethodPost, "/dags/top_controller/dagRuns", `{"dag_run_id": "r", "logical_date": null}`, http.StatusOK)
	triggeringScheduler(t, ts)
	awaitTriesEnded(t, ts.store, "top_controller", "r", "refused", "refused_retried", "refused_templated", "missing", "allowed")
	awaitRunEnd(t, ts.store, "top_any", "manual__"+isoFormat(testNow))

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
		{"allowed", TaskSuccess, []string{"Triggering Dag Run. trigger_dag_id=top_any\n", "Dag Run triggered successfully. trigger_dag_id=top_any\n"}},
	} {
		checkTry(t, ts.store, "top_controller", "r", tc.task, tc.state, tc.log...)
	}
	runs, err := ts.store.RunsOfDag("top_scheduled_only", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if run.RunType != "scheduled" {
			t.Errorf("the refused DAG has a %s run %s", run.RunType, run.RunID)
		}
	}
	if runs, err := ts.store.RunsOfDag("top_any", ""); err != nil || len(runs) != 1 || runs[0].RunType != "manual" {
		t.Errorf("top_any's runs: %v (%v), want the one the operator triggered", runs, err)
	}
}

// TestScheduler_TriggerDagRunOperatorRuns3: in edition 3 the operator's
// try triggers its DAG through the operations' trigger as Airflow 3.2.1's
// execution API does (c57fba0e execution_api/routes/dag_runs.py
// trigger_dag_run; trigger_dag with triggered_by operator): a manual run
// named as DagRun.generate_run_id names it (manual__ and the logical date,
// now by default), with the conf rendered in its key order, that the
// scheduler then runs; the try pushes trigger_run_id. With
// wait_for_completion it ends with the run: success in allowed_states,
// failed in failed_states, a terminal state without retries
// (task_runner.py:1463-1516); a run of that id already there fails the
// task without retries, skips it (skip_when_already_exists) or is cleared
// and run again (reset_dag_run, sdk/api/client.py:706-716).
func TestScheduler_TriggerDagRunOperatorRuns3(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/triggerop_run")
	ts.v2(t, http.MethodPost, "/dags/run_target/dagRuns", `{"dag_run_id": "existing", "logical_date": null, "conf": {"msg": "first"}}`, http.StatusOK)
	ts.v2(t, http.MethodPost, "/dags/run_target/dagRuns", `{"dag_run_id": "reset_me", "logical_date": null, "conf": {"msg": "first"}}`, http.StatusOK)
	triggeringScheduler(t, ts)
	awaitRunEnd(t, ts.store, "run_target", "existing")
	awaitRunEnd(t, ts.store, "run_target", "reset_me")
	ts.v2(t, http.MethodPost, "/dags/run_controller/dagRuns", `{"dag_run_id": "c", "logical_date": null}`, http.StatusOK)
	awaitRunEnd(t, ts.store, "run_controller", "c")

	defaultID := "manual__" + isoFormat(testNow)
	for _, tc := range []struct {
		task, runID, dagID string
		taskState          TaskState
		runState           RunState
		conf               string
		logical            string // "": no logical date
		targetLog          string
		taskLog            []string
	}{
		{task: "fire", runID: defaultID, dagID: "run_target", taskState: TaskSuccess, runState: RunSuccess,
			conf: `{"msg":"from c","n":1}`, logical: isoFormat(testNow), targetLog: "got from c",
			taskLog: []string{"Triggering Dag Run. trigger_dag_id=run_target\n", "Dag Run triggered successfully. trigger_dag_id=run_target\n"}},
		{task: "named", runID: "named_c", dagID: "run_target", taskState: TaskSuccess, runState: RunSuccess,
			conf: `{"msg":"named"}`, logical: "2024-03-01T10:00:00+00:00", targetLog: "got named"},
		{task: "wait_ok", runID: "waited", dagID: "run_target", taskState: TaskSuccess, runState: RunSuccess,
			conf: `{"msg":"waited"}`, targetLog: "got waited",
			taskLog: []string{"Waiting for dag run to complete execution in allowed state. dag_id=run_target run_id=waited allowed_state=[<DagRunState.SUCCESS: 'success'>]\n",
				"DagRun finished with allowed state. dag_id=run_target state=success\n"}},
		{task: "wait_fail", runID: "waited_fail", dagID: "run_failing", taskState: TaskFailed, runState: RunFailed,
			logical: isoFormat(testNow), taskLog: []string{"DagRun finished with failed state. dag_id=run_failing state=failed\n"}},
		{task: "exists_fail", runID: "existing", dagID: "run_target", taskState: TaskFailed, runState: RunSuccess,
			conf: `{"msg":"first"}`, taskLog: []string{"Dag Run already exists, marking task as failed. dag_id=run_target\n"}},
		{task: "exists_skip", runID: "existing", dagID: "run_target", taskState: TaskSkipped, runState: RunSuccess,
			conf: `{"msg":"first"}`, taskLog: []string{"Dag Run already exists, skipping task as skip_when_already_exists is set to True. dag_id=run_target\n"}},
		{task: "exists_reset", runID: "reset_me", dagID: "run_target", taskState: TaskSuccess, runState: RunSuccess,
			conf: `{"msg":"first"}`, targetLog: "got first",
			taskLog: []string{"Dag Run already exists; Resetting Dag Run. dag_id=run_target run_id=reset_me\n", "DagRun finished with allowed state."}},
	} {
		checkTry(t, ts.store, "run_controller", "c", tc.task, tc.taskState, tc.taskLog...)
		run := awaitRunEnd(t, ts.store, tc.dagID, tc.runID)
		if run.State != tc.runState || run.RunType != "manual" || !run.ExternalTrigger {
			t.Errorf("%s: run %s is %s, %s, external %v", tc.task, tc.runID, run.State, run.RunType, run.ExternalTrigger)
		}
		if string(run.Conf) != tc.conf && !(tc.conf == "" && run.Conf == nil) {
			t.Errorf("%s: conf %s, want %s", tc.task, run.Conf, tc.conf)
		}
		logical := ""
		if !run.NoLogicalDate {
			logical = isoFormat(run.ExecutionDate)
		}
		if logical != tc.logical {
			t.Errorf("%s: logical date %q, want %q", tc.task, logical, tc.logical)
		}
		if tc.task != "exists_fail" && tc.task != "exists_skip" && tc.task != "exists_reset" && run.TriggeredBy != "operator" {
			t.Errorf("%s: triggered_by %q, want operator", tc.task, run.TriggeredBy)
		}
		if tc.targetLog != "" {
			if got := tryOutput(t, ts.store, tc.dagID, tc.runID, "t"); !strings.Contains(got, tc.targetLog) {
				t.Errorf("%s: the target's log lacks %q:\n%s", tc.task, tc.targetLog, got)
			}
		}
		xcom, err := ts.store.XCom("run_controller", "c", tc.task, "trigger_run_id", -1)
		switch {
		case tc.taskState == TaskSkipped || tc.task == "exists_fail":
			if err == nil {
				t.Errorf("%s: pushed trigger_run_id %s", tc.task, xcom.Value)
			}
		case err != nil:
			t.Errorf("%s: trigger_run_id: %v", tc.task, err)
		case string(xcom.Value) != `"`+tc.runID+`"`:
			t.Errorf("%s: trigger_run_id %s, want %q", tc.task, xcom.Value, tc.runID)
		}
	}
	// A run at a logical date another run has, under another id: the
	// route's trigger breaks the table's unique key (a 500, retried).
	if got := ts.tiState(t, "run_controller", "c", "date_taken"); got != TaskFailed {
		t.Errorf("date_taken: %s, want failed", got)
	}
	if out := tryOutput(t, ts.store, "run_controller", "c", "date_taken"); !strings.Contains(out, "UNIQUE constraint failed: dag_run.dag_id, dag_run.logical_date") {
		t.Errorf("date_taken's log: %s", out)
	}
	if _, err := ts.store.RunByRunID("run_target", "other_id"); err == nil {
		t.Error("date_taken created its run")
	}
	// The reset ran the run's task again: a second try.
	if ti, err := ts.store.TaskInstance("run_target", "reset_me", "t"); err != nil || ti.TryNumber != 2 {
		t.Errorf("reset_me's task: %+v %v, want its second try", ti, err)
	}
}

// TestScheduler_TriggerDagRunOperatorStopWhileWaiting: a try waiting for
// its triggered run (wait_for_completion) waits in its own goroutine, not
// in the scheduler's loop, which goes on meanwhile; a stop ends the wait,
// puts the task instance back to no state (a planned stop's rule) and
// leaves no goroutine behind. Not parallel: it counts goroutines.
func TestScheduler_TriggerDagRunOperatorStopWhileWaiting(t *testing.T) {
	ts := servePy3Folder(t, "testdata/pydags/triggerop_wait")
	ts.v2(t, http.MethodPatch, "/dags/held_target", `{"is_paused": true}`, http.StatusOK)
	before := runtime.NumGoroutine()
	sched := triggeringScheduler(t, ts)
	ts.v2(t, http.MethodPost, "/dags/held_controller/dagRuns", `{"dag_run_id": "c", "logical_date": null}`, http.StatusOK)
	waitFor(t, func() bool {
		ti, err := ts.store.TaskInstance("held_controller", "c", "wait")
		_, rerr := ts.store.RunByRunID("held_target", "held")
		return err == nil && ti.State == TaskRunning && rerr == nil
	})
	// The loop still runs while the try waits: a trigger of another DAG
	// is scheduled (its run starts, the paused target's stays queued).
	ts.v2(t, http.MethodPost, "/dags/held_controller/dagRuns", `{"dag_run_id": "d", "logical_date": null}`, http.StatusOK)
	waitFor(t, func() bool {
		ti, err := ts.store.TaskInstance("held_controller", "d", "wait")
		return err == nil && ti.State != TaskNone && ti.State != TaskScheduled
	})
	if run, err := ts.store.RunByRunID("held_target", "held"); err != nil || run.State != RunQueued {
		t.Fatalf("the held run: %+v %v, want queued", run, err)
	}
	sched.stop()
	sched.mu.Lock()
	n := len(sched.tasks)
	sched.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d task goroutines left after the stop", n)
	}
	if ti, err := ts.store.TaskInstance("held_controller", "c", "wait"); err != nil || ti.State != TaskNone {
		t.Errorf("the waiting try after the stop: %+v %v, want no state", ti, err)
	}
	if after := waitGoroutines(before, 10*time.Second); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before the scheduler, %d after its stop\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// servePyFolderAs serves a folder of Python DAG files read in edition e.
func servePyFolderAs(t *testing.T, dir string, e edition) *testServer {
	t.Helper()
	set := readPyServeFolderAs(t, dir, e)
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	return newTestServer(t, e, withOptions(func(o *serverOptions) { o.DAGs = set }))
}

// TestScheduler_TriggerDagRunOperatorRuns2: Airflow 2.10.3's operator
// calls trigger_dag itself (airflow/operators/trigger_dagrun.py:167-271):
// a manual, externally triggered run named manual__ and its logical date
// (now by default; execution_date is logical_date's old name), the
// XComs trigger_execution_date_iso and trigger_run_id; a run already at
// that date (DagRunAlreadyExists) is cleared (reset_dag_run, and the
// XCom names it), skips the task or fails it; failed_states end a wait
// with an AirflowException, retried as any failure.
func TestScheduler_TriggerDagRunOperatorRuns2(t *testing.T) {
	t.Parallel()
	ts := servePyFolderAs(t, "testdata/pydags/triggerop2", edition2)
	ts.trigger(t, "run_target", `{"run_id": "pre", "execution_date": "2024-03-01T00:00:00+00:00", "conf": {"msg": "first"}}`)
	triggeringScheduler(t, ts)
	awaitRunEnd(t, ts.store, "run_target", "pre")
	ts.trigger(t, "run_controller", `{"run_id": "c"}`)
	awaitTriesEnded(t, ts.store, "run_controller", "c", "fire", "wait_fail", "exists_reset", "exists_skip", "exists_fail")

	defaultID := "manual__" + isoFormat(testNow)
	for _, tc := range []struct {
		task, runID, dagID string
		taskState          TaskState
		runState           RunState
		conf, date         string
		taskLog            string
	}{
		{"fire", defaultID, "run_target", TaskSuccess, RunSuccess, `{"msg":"from c"}`, isoFormat(testNow), "Triggered run_target run " + defaultID},
		{"wait_fail", "manual__2024-02-01T00:00:00+00:00", "run_failing", TaskUpForRetry, RunFailed, "", "2024-02-01T00:00:00+00:00",
			"Waiting for run_failing on 2024-02-01 00:00:00+00:00 to become allowed state [<DagRunState.SUCCESS: 'success'>] ..."},
		{"exists_reset", "pre", "run_target", TaskSuccess, RunSuccess, `{"msg":"first"}`, "2024-03-01T00:00:00+00:00",
			"Clearing run_target on 2024-03-01 00:00:00+00:00\n"},
		{"exists_skip", "", "", TaskSkipped, "", "", "", "Skipping due to skip_when_already_exists is set to True and DagRunAlreadyExists"},
		{"exists_fail", "", "", TaskFailed, "", "", "",
			"DagRunAlreadyExists: A DAG Run already exists for DAG run_target at 2024-03-01 00:00:00+00:00 with run id manual__2024-03-01T00:00:00+00:00"},
	} {
		checkTry(t, ts.store, "run_controller", "c", tc.task, tc.taskState, tc.taskLog)
		runXCom, runErr := ts.store.XCom("run_controller", "c", tc.task, "trigger_run_id", -1)
		dateXCom, dateErr := ts.store.XCom("run_controller", "c", tc.task, "trigger_execution_date_iso", -1)
		if tc.runID == "" {
			if runErr == nil || dateErr == nil {
				t.Errorf("%s pushed %v %v", tc.task, runXCom, dateXCom)
			}
			continue
		}
		if runErr != nil || dateErr != nil || string(runXCom.Value) != `"`+tc.runID+`"` || string(dateXCom.Value) != `"`+tc.date+`"` {
			t.Errorf("%s: XComs %v %v (%v %v), want %s at %s", tc.task, runXCom, dateXCom, runErr, dateErr, tc.runID, tc.date)
			continue
		}
		run := awaitRunEnd(t, ts.store, tc.dagID, tc.runID)
		if run.State != tc.runState || run.RunType != "manual" || !run.ExternalTrigger || isoFormat(run.ExecutionDate) != tc.date {
			t.Errorf("%s: run %s is %s, %s, external %v, at %s", tc.task, tc.runID, run.State, run.RunType, run.ExternalTrigger, isoFormat(run.ExecutionDate))
		}
		if string(run.Conf) != tc.conf && !(tc.conf == "" && run.Conf == nil) {
			t.Errorf("%s: conf %s, want %s", tc.task, run.Conf, tc.conf)
		}
	}
	if ti, err := ts.store.TaskInstance("run_target", "pre", "t"); err != nil || ti.TryNumber != 2 {
		t.Errorf("pre's task: %+v %v, want its second try (the reset)", ti, err)
	}
}

// TestScheduler_TriggerDagRunOperatorRuns110: Airflow 1.10.15's operator
// (airflow/operators/dagrun_operator.py:76-91) triggers trig__ and the
// execution date as given (rendered), or now; it pushes no XCom. A
// python_callable gets the context and a DagRunOrder of that run id, and
// what it returns is triggered (its run id, json.dumps of its payload as
// the conf); returning nothing triggers nothing.
func TestScheduler_TriggerDagRunOperatorRuns110(t *testing.T) {
	t.Parallel()
	ts := servePyFolderAs(t, "testdata/pydags/triggerop110", edition110)
	triggeringScheduler(t, ts)
	ts.trigger(t, "run_controller", `{"run_id": "c"}`)
	awaitRunEnd(t, ts.store, "run_controller", "c")
	for _, tc := range []struct{ task, runID, date, conf string }{
		{"fire", "trig__" + isoFormat(testNow), isoFormat(testNow), ""},
		{"dated", "trig__2024-02-01", "2024-02-01T00:00:00+00:00", ""},
		{"with_callable", "trig__2024-03-01T00:00:00+00:00_by_c", "2024-03-01T00:00:00+00:00", `{"msg": "from the callable"}`},
	} {
		checkTry(t, ts.store, "run_controller", "c", tc.task, TaskSuccess)
		run := awaitRunEnd(t, ts.store, "run_target", tc.runID)
		if run.State != RunSuccess || !run.ExternalTrigger || isoFormat(run.ExecutionDate) != tc.date ||
			string(run.Conf) != tc.conf && !(tc.conf == "" && run.Conf == nil) {
			t.Errorf("%s: run %+v (conf %s)", tc.task, run, run.Conf)
		}
		if _, err := ts.store.XCom("run_controller", "c", tc.task, "trigger_run_id", -1); err == nil {
			t.Errorf("%s pushed trigger_run_id", tc.task)
		}
	}
	checkTry(t, ts.store, "run_controller", "c", "no_order", TaskSuccess, "Criteria not met, moving on")
	// 1.10.15's template_fields (trigger_dag_id, execution_date), rendered.
	for task, want := range map[string]string{
		"fire":          `{"trigger_dag_id": "run_target", "execution_date": null}`,
		"dated":         `{"trigger_dag_id": "run_target", "execution_date": "2024-02-01"}`,
		"with_callable": `{"trigger_dag_id": "run_target", "execution_date": "2024-03-01T00:00:00+00:00"}`,
	} {
		ti, err := ts.store.TaskInstance("run_controller", "c", task)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"rendered_fields": ti.Rendered})
		checkRenderedFields(t, task, string(body), want)
	}
	if runs, err := ts.store.RunsOfDag("run_target", ""); err != nil || len(runs) != 3 {
		t.Errorf("run_target has %d runs (%v), want the three triggered", len(runs), err)
	}
}
