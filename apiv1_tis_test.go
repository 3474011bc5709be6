package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const v1PairDAG = `
dag_id: v1pair
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: first
    operator: BashOperator
    bash_command: echo one
    downstream: [second]
  - task_id: second
    operator: BashOperator
    bash_command: echo two
`

// TestServerV1_TaskInstancesAndLogs runs a DAG triggered through the
// stable API on the scheduler (a fake task that prints its task_id),
// driven pass by pass rather than by a loop, and
// reads its task instances and logs back, following Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py and
// test_log_endpoint.py.
func TestServerV1_TaskInstancesAndLogs(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition2, func(o *schedulerOptions) {
		o.RunTask = func(_ context.Context, job taskJob) taskOutcome {
			return taskOutcome{state: TaskSuccess, output: "hello from " + job.key.taskID + "\n"}
		}
		tickDriven(o)
	}, withDAG(v1PairDAG))
	ts.postRun(t, "v1pair", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00"}`)
	if got := ts.tickRun(t, sched, "v1pair", "r1")["state"]; got != "success" {
		t.Fatalf("run ended %v", got)
	}
	// Both APIs see the run end.
	if got := decodeJSON[map[string]any](t, ts.v1(t, "GET", "/dags/v1pair/dagRuns/r1", "").body)["state"]; got != "success" {
		t.Errorf("stable API state %v", got)
	}
	if got := ts.do(t, "GET", apiPrefix+"/dags/v1pair/dag_runs/2024-02-01T00:00:00+00:00", "").body; got != `{"state": "success"}` {
		t.Errorf("experimental API state %s", got)
	}

	ti := decodeJSON[map[string]any](t, ts.v1(t, "GET", "/dags/v1pair/dagRuns/r1/taskInstances/first", "").body)
	for k, want := range map[string]any{"state": "success", "try_number": 1.0, "map_index": -1.0, "dag_run_id": "r1",
		"execution_date": "2024-02-01T00:00:00+00:00", "hostname": "test", "operator": "BashOperator", "executor_config": "{}"} {
		if ti[k] != want {
			t.Errorf("task instance %s = %v, want %v", k, ti[k], want)
		}
	}
	checkV1Response(t, v1Case{wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found", detail: nil}},
		ts.v1(t, "GET", "/dags/v1pair/dagRuns/r1/taskInstances/nope", ""))

	list := ts.v1(t, "GET", "/dags/v1pair/dagRuns/r1/taskInstances?limit=1&offset=1", "")
	if !strings.Contains(list.body, `"task_id": "second"`) || !strings.Contains(list.body, `"total_entries": 2`) {
		t.Errorf("page of task instances: %s", list.body)
	}
	across := ts.v1(t, "GET", "/dags/~/dagRuns/~/taskInstances?state=success&pool=default_pool", "")
	if !strings.Contains(across.body, `"total_entries": 2`) {
		t.Errorf("task instances across runs: %s", across.body)
	}
	none := ts.v1(t, "GET", "/dags/~/dagRuns/~/taskInstances?state=none", "")
	if !strings.Contains(none.body, `"total_entries": 0`) {
		t.Errorf("no-state filter: %s", none.body)
	}
	// An unknown state name: _convert_ti_states' ValueError, uncaught in
	// get_task_instances, a crash 500 (observed from the real Airflow
	// 2.10.3); the batch form's items are TaskState, whose enum connexion
	// checks first: a 400 (observed too; v1.yaml ListTaskInstanceForm).
	checkV1Response(t, v1Case{wantStatus: 500, wantProblem: &wantProblem{title: "Internal Server Error", detail: "'exploded' is not a valid TaskInstanceState"}},
		ts.v1(t, "GET", "/dags/~/dagRuns/~/taskInstances?state=exploded", ""))
	checkV1Response(t, v1Case{wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
		detail: "'nope' is not one of [None, 'success', 'running', 'failed', 'upstream_failed', 'skipped', 'up_for_retry', 'up_for_reschedule', 'queued', 'none', 'scheduled', 'deferred', 'removed', 'restarting'] - 'state.1'"}},
		ts.v1(t, "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"state": [null, "nope"]}`))
	checkV1Response(t, v1Case{wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "5 is not of type 'string' - 'state.0'"}},
		ts.v1(t, "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"state": [5]}`))
	batch := ts.v1(t, "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"dag_ids": ["v1pair"], "task_ids": ["second"]}`)
	if !strings.Contains(batch.body, `"task_id": "second"`) || !strings.Contains(batch.body, `"total_entries": 1`) {
		t.Errorf("batch: %s", batch.body)
	}
	// IN lists (2.10.3 task_instance_endpoint.py _apply_array_filter,
	// column.in_(values)): a value given twice picks once.
	twice := ts.v1(t, "POST", "/dags/~/dagRuns/~/taskInstances/list",
		`{"dag_ids": ["v1pair", "v1pair"], "dag_run_ids": ["r1", "r1"], "task_ids": ["second", "second"], "pool": ["default_pool", "default_pool"]}`)
	if !strings.Contains(twice.body, `"task_id": "second"`) || !strings.Contains(twice.body, `"total_entries": 1`) {
		t.Errorf("batch with values twice: %s", twice.body)
	}

	// Logs: JSON by default, text when asked; a token continues.
	logPath := "/dags/v1pair/dagRuns/r1/taskInstances/first/logs/1"
	res := ts.v1(t, "GET", logPath, "", "Accept", "application/json")
	l := decodeJSON[map[string]string](t, res.body)
	if l["content"] != `[('test', 'hello from first\n')]` || l["continuation_token"] == "" {
		t.Errorf("JSON log %q", res.body)
	}
	again := decodeJSON[map[string]string](t, ts.v1(t, "GET", logPath+"?token="+url.QueryEscape(l["continuation_token"]), "").body)
	if again["content"] != `[('test', '')]` {
		t.Errorf("continued log %q: want nothing new", again["content"])
	}
	full := decodeJSON[map[string]string](t, ts.v1(t, "GET", logPath+"?full_content=true&token="+url.QueryEscape(l["continuation_token"]), "").body)
	if full["content"] != l["content"] {
		t.Errorf("full content %q", full["content"])
	}
	// The token is the file task handler's metadata alone: read_log_chunks
	// replaces get_log's, so download_logs is not carried (2.10.3
	// api_connexion/endpoints/log_endpoint.py:73-76,
	// utils/log/file_task_handler.py:428). Observed from the real Airflow
	// 2.10.3: a token whose payload is {"end_of_log":true,"log_pos":0}.
	for _, tok := range []string{l["continuation_token"], full["continuation_token"]} {
		if raw, err := loadSignedJSON(ts.srv.v1Secret, tok); err != nil || string(raw) != `{"end_of_log":true,"log_pos":17}` {
			t.Errorf("token payload %s (%v)", raw, err)
		}
	}
	text := ts.v1(t, "GET", logPath, "", "Accept", "text/plain")
	if text.status != http.StatusOK || text.body != "test\nhello from first\n\n" || text.header.Get("Content-Type") != "text/plain" {
		t.Errorf("text log %d %q %s", text.status, text.body, text.header.Get("Content-Type"))
	}
	// test_log_endpoint.py: a bad token, a task instance that is not there
	checkV1Response(t, v1Case{wantStatus: 400, wantProblem: &wantProblem{title: "Bad Signature. Please use only the tokens provided by the API.", detail: nil}},
		ts.v1(t, "GET", logPath+"?token=abc.def", ""))
	checkV1Response(t, v1Case{wantStatus: 404, wantProblem: &wantProblem{title: "TaskInstance not found", detail: nil}},
		ts.v1(t, "GET", "/dags/v1pair/dagRuns/nope/taskInstances/first/logs/1", ""))
	// A try number that is not unsigned digits fails Werkzeug's int
	// converter: no route (Airflow 2.10.3
	// tests/api_connexion/endpoints/test_task_instance_endpoint.py:510
	// shows the same for map_index -1).
	checkV1Response(t, v1Case{wantStatus: 404, wantProblem: &wantProblem{title: "Not Found", typ: "about:blank",
		detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."}},
		ts.v1(t, "GET", "/dags/v1pair/dagRuns/r1/taskInstances/first/logs/one", ""))

	// Every answer above has the document's shape.
	doc := loadV1Schemas(t)
	vr := ts.srv.v1Routes()
	for _, p := range []string{"/dags/v1pair/dagRuns/r1/taskInstances/first", "/dags/v1pair/dagRuns/r1/taskInstances",
		"/dags/~/dagRuns/~/taskInstances", logPath} {
		doc.checkAnswer(t, vr, "GET", apiV1Prefix+p, ts.v1(t, "GET", p, "", "Accept", "application/json"))
	}
	doc.checkAnswer(t, vr, "POST", apiV1Prefix+"/dags/~/dagRuns/~/taskInstances/list", batch)
}

// tiState reads a task instance's state from the store.
func (ts *testServer) tiState(t *testing.T, dagID, runID, taskID string) TaskState {
	t.Helper()
	ti, err := ts.store.TaskInstance(dagID, runID, taskID)
	if err != nil {
		t.Fatal(err)
	}
	return ti.State
}

func wantTIState(dagID, runID, taskID string, want TaskState) func(t *testing.T, ts *testServer, _ response) {
	return func(t *testing.T, ts *testServer, _ response) {
		t.Helper()
		if got := ts.tiState(t, dagID, runID, taskID); got != want {
			t.Errorf("%s/%s/%s is %q, want %q", dagID, runID, taskID, got, want)
		}
	}
}

// TestServerV1_TaskInstanceStates follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py
// (TestPatchTaskInstance, TestPostSetTaskInstanceState,
// TestPostClearTaskInstances).
func TestServerV1_TaskInstanceStates(t *testing.T) {
	t.Parallel()
	failed := func(t *testing.T, ts *testServer) {
		threeRuns(t, ts)
		ts.setTaskState(t, "tutorial", "r1", "sleep", TaskFailed)
	}
	const ref = `{"dag_id": "tutorial", "dag_run_id": "r1", "execution_date": "2024-01-03T00:00:00+00:00", "task_id": "print_date"}`
	runV1Cases(t, []v1Case{
		{name: "patch: dry run by default", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/print_date", setup: threeRuns,
			body: `{"new_state": "success"}`, wantStatus: 200, wantJSON: ref, check: wantTIState("tutorial", "r1", "print_date", TaskNone)},
		{name: "patch", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/print_date", setup: threeRuns,
			body: `{"new_state": "failed", "dry_run": false}`, wantStatus: 200, wantJSON: ref, check: wantTIState("tutorial", "r1", "print_date", TaskFailed)},
		{name: "patch: state not allowed", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/print_date", setup: threeRuns,
			body: `{"new_state": "running"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'running' is not one of ['success', 'failed', 'skipped'] - 'new_state'"}},
		{name: "patch: new_state missing", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/print_date", setup: threeRuns,
			body: `{"dry_run": true}`, wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'new_state': ['Missing data for required field.']}"}},
		{name: "patch: unknown task", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/nope", setup: threeRuns,
			body: `{"new_state": "success"}`, wantStatus: 404, wantProblem: &wantProblem{title: "Task not found", detail: "Task 'nope' not found in DAG 'tutorial'"}},
		{name: "patch: unknown run", method: "PATCH", path: "/dags/tutorial/dagRuns/nope/taskInstances/print_date",
			body: `{"new_state": "success"}`, wantStatus: 404,
			wantProblem: &wantProblem{title: "Not Found", detail: "Task instance not found for task 'print_date' on DAG run with ID 'nope'"}},
		{name: "set states: downstream too", method: "POST", path: "/dags/tutorial/updateTaskInstancesState", setup: threeRuns,
			body: `{"dry_run": false, "task_id": "print_date", "dag_run_id": "r1", "include_upstream": false, "include_downstream": true,
				"include_future": false, "include_past": false, "new_state": "skipped"}`,
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				if strings.Count(res.body, `"task_id"`) != 3 {
					t.Errorf("answer %s: want the task and its two downstream tasks", res.body)
				}
				wantTIState("tutorial", "r1", "templated", TaskSkipped)(t, ts, res)
			}},
		{name: "set states: required fields", method: "POST", path: "/dags/tutorial/updateTaskInstancesState", body: `{"task_id": "x"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: "{'include_upstream': ['Missing data for required field.'], 'include_downstream': ['Missing data for required field.'], " +
					"'include_future': ['Missing data for required field.'], 'include_past': ['Missing data for required field.'], " +
					"'new_state': ['Missing data for required field.']}"}},
		{name: "set states: run and date", method: "POST", path: "/dags/tutorial/updateTaskInstancesState",
			body: `{"task_id": "print_date", "include_upstream": false, "include_downstream": false, "include_future": false,
				"include_past": false, "new_state": "success"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'_schema': ['Exactly one of execution_date or dag_run_id must be provided']}"}},
		{name: "clear: failed ones, dry run", method: "POST", path: "/dags/tutorial/clearTaskInstances", setup: failed, body: `{}`,
			wantStatus: 200, wantJSON: `{"task_instances": [{"dag_id": "tutorial", "dag_run_id": "r1", "execution_date": "2024-01-03T00:00:00+00:00", "task_id": "sleep"}]}`,
			check: wantTIState("tutorial", "r1", "sleep", TaskFailed)},
		{name: "clear", method: "POST", path: "/dags/tutorial/clearTaskInstances", setup: failed,
			body: `{"dry_run": false, "dag_run_id": "r1", "reset_dag_runs": true}`, wantStatus: 200,
			check: wantTIState("tutorial", "r1", "sleep", TaskNone)},
		{name: "clear: both only flags", method: "POST", path: "/dags/tutorial/clearTaskInstances", body: `{"only_running": true}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'_schema': ['only_failed and only_running both are set to True']}"}},
		{name: "clear: unknown run", method: "POST", path: "/dags/tutorial/clearTaskInstances", body: `{"dag_run_id": "nope"}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dag Run id nope not found in dag tutorial", detail: nil}},
		{name: "clear: unknown DAG", method: "POST", path: "/dags/nope/clearTaskInstances", body: `{}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dag id nope not found", detail: nil}},
	})
}

// tiRefsOf reads a task instance reference collection as sorted
// "run/task" pairs: Airflow's own tests check membership, not order.
func tiRefsOf(t *testing.T, body string) []string {
	t.Helper()
	var c struct {
		TaskInstances []struct {
			RunID  string `json:"dag_run_id"`
			TaskID string `json:"task_id"`
		} `json:"task_instances"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("collection %q: %v", body, err)
	}
	refs := []string{}
	for _, ti := range c.TaskInstances {
		refs = append(refs, ti.RunID+"/"+ti.TaskID)
	}
	slices.Sort(refs)
	return refs
}

// TestServerV1_ClearTaskInstancesOptions checks which task instances each
// option of POST /dags/{dag_id}/clearTaskInstances reaches, following
// Airflow 2.10.3 tests/api_connexion/endpoints/test_task_instance_endpoint.py:1160-1366
// (TestPostClearTaskInstances: start and end date filters, only_running,
// only_failed, task_ids), :1559 and :1649 (include_past, include_future),
// and the endpoint airflow/api_connexion/endpoints/task_instance_endpoint.py:483-510
// with DAG.clear's selection, airflow/models/dag.py:1983-1991.
func TestServerV1_ClearTaskInstancesOptions(t *testing.T) {
	t.Parallel()
	// tutorial: print_date >> [sleep, templated]. Runs by logical date:
	// r2 2024-01-01, r3 01-02, r1 01-03, and r4 2024-06-01, after the
	// server's clock (testNow, 2024-05-01).
	setup := func(t *testing.T, ts *testServer) {
		threeRuns(t, ts)
		ts.postRun(t, "tutorial", `{"dag_run_id": "r4", "logical_date": "2024-06-01T00:00:00+00:00"}`)
		for _, s := range []struct {
			run, task string
			state     TaskState
		}{
			{"r2", "print_date", TaskFailed}, {"r2", "sleep", TaskRunning},
			{"r3", "print_date", TaskFailed},
			{"r1", "print_date", TaskFailed}, {"r1", "sleep", TaskUpstreamFailed}, {"r1", "templated", TaskRunning},
			{"r4", "print_date", TaskFailed},
		} {
			ts.setTaskState(t, "tutorial", s.run, s.task, s.state)
		}
	}
	cases := []struct {
		name, body string
		want       []string
		cite       string
	}{
		{"only failed by default, never a run after now", `{}`,
			[]string{"r1/print_date", "r1/sleep", "r2/print_date", "r3/print_date"},
			"airflow/api_connexion/schemas/task_instance_schema.py:178; models/dag.py:1988-1991 (end_date or utcnow)"},
		{"start date filter", `{"start_date": "2024-01-02T00:00:00+00:00"}`,
			[]string{"r1/print_date", "r1/sleep", "r3/print_date"}, "airflow/models/dag.py:1983-1984"},
		{"end date filter", `{"end_date": "2024-01-02T00:00:00+00:00"}`,
			[]string{"r2/print_date", "r3/print_date"}, "airflow/models/dag.py:1988-1991"},
		{"only running", `{"only_running": true, "only_failed": false}`,
			[]string{"r1/templated", "r2/sleep"}, "airflow/models/dag.py:2463-2465"},
		{"neither only flag", `{"only_failed": false, "dag_run_id": "r1"}`,
			[]string{"r1/print_date", "r1/sleep", "r1/templated"}, "airflow/models/dag.py:2460-2465"},
		{"task ids", `{"task_ids": ["sleep"]}`,
			[]string{"r1/sleep"}, "tests/api_connexion/endpoints/test_task_instance_endpoint.py:1245-1270 (clear by task ids)"},
		{"task ids with downstream", `{"task_ids": ["print_date"], "include_downstream": true}`,
			[]string{"r1/print_date", "r1/sleep", "r2/print_date", "r3/print_date"}, "airflow/api_connexion/endpoints/task_instance_endpoint.py:500-509"},
		{"task ids with upstream", `{"task_ids": ["sleep"], "include_upstream": true, "dag_run_id": "r1"}`,
			[]string{"r1/print_date", "r1/sleep"}, "airflow/api_connexion/endpoints/task_instance_endpoint.py:500-509"},
		{"one run", `{"dag_run_id": "r3"}`,
			[]string{"r3/print_date"}, "airflow/api_connexion/endpoints/task_instance_endpoint.py:488-494"},
		{"one run and the past", `{"dag_run_id": "r3", "include_past": true}`,
			[]string{"r2/print_date", "r3/print_date"}, "airflow/api_connexion/endpoints/task_instance_endpoint.py:495-496"},
		{"one run and the future", `{"dag_run_id": "r3", "include_future": true}`,
			[]string{"r1/print_date", "r1/sleep", "r3/print_date"},
			"airflow/api_connexion/endpoints/task_instance_endpoint.py:497-498; models/dag.py:1988-1991 (still not after now)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			setup(t, ts)
			res := ts.v1(t, "POST", "/dags/tutorial/clearTaskInstances", tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if got := tiRefsOf(t, res.body); !slices.Equal(got, tc.want) {
				t.Errorf("cleared %v, want %v (Airflow 2.10.3 %s)", got, tc.want, tc.cite)
			}
			// A dry run (the default) changes nothing.
			if got := ts.tiState(t, "tutorial", "r3", "print_date"); got != TaskFailed {
				t.Errorf("r3/print_date = %q after a dry run, want failed", got)
			}
		})
	}
}

// TestServerV1_SetTaskInstancesStateOptions checks which task instances
// POST /dags/{dag_id}/updateTaskInstancesState marks: the task and, as
// asked, its relatives (Airflow 2.10.3 airflow/api/common/mark_tasks.py:142,
// :283-298), only those not already in the new state (:204-206), changed
// only when dry_run, true by default, is false
// (airflow/api_connexion/schemas/task_instance_schema.py:209, mark_tasks.py:160-172).
func TestServerV1_SetTaskInstancesStateOptions(t *testing.T) {
	t.Parallel()
	const flags = `"include_future": false, "include_past": false`
	cases := []struct {
		name, body string
		want       []string             // the answer
		states     map[string]TaskState // r1's task instances afterwards
	}{
		{"dry run by default, downstream, one already marked",
			`{"task_id": "print_date", "dag_run_id": "r1", "include_upstream": false, "include_downstream": true, ` + flags + `, "new_state": "success"}`,
			[]string{"r1/sleep", "r1/templated"},
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskNone, "templated": TaskNone}},
		{"upstream, committed",
			`{"task_id": "sleep", "dag_run_id": "r1", "include_upstream": true, "include_downstream": false, ` + flags + `, "new_state": "failed", "dry_run": false}`,
			[]string{"r1/print_date", "r1/sleep"},
			map[string]TaskState{"print_date": TaskFailed, "sleep": TaskFailed, "templated": TaskNone}},
		{"the task alone",
			`{"task_id": "sleep", "dag_run_id": "r1", "include_upstream": false, "include_downstream": false, ` + flags + `, "new_state": "skipped", "dry_run": false}`,
			[]string{"r1/sleep"},
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskSkipped, "templated": TaskNone}},
		{"by logical date",
			`{"task_id": "print_date", "execution_date": "2024-01-03T00:00:00+00:00", "include_upstream": false, "include_downstream": false, ` + flags + `, "new_state": "failed", "dry_run": false}`,
			[]string{"r1/print_date"},
			map[string]TaskState{"print_date": TaskFailed, "sleep": TaskNone, "templated": TaskNone}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			threeRuns(t, ts)
			ts.setTaskState(t, "tutorial", "r1", "print_date", TaskSuccess)
			res := ts.v1(t, "POST", "/dags/tutorial/updateTaskInstancesState", tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if got := tiRefsOf(t, res.body); !slices.Equal(got, tc.want) {
				t.Errorf("answered %v, want %v", got, tc.want)
			}
			for task, want := range tc.states {
				if got := ts.tiState(t, "tutorial", "r1", task); got != want {
					t.Errorf("r1/%s = %q, want %q", task, orNone(got), orNone(want))
				}
			}
		})
	}
}

// TestServerV1_ClearTaskInstancesSubDAGs: include_subdags (false by
// default, airflow/api_connexion/schemas/task_instance_schema.py:180)
// adds the task instances of the sub-DAGs' runs at the same dates
// (Airflow 2.10.3 airflow/models/dag.py:1969-1975, and
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:1298-1321,
// "include sub dag"); named task_ids keep to the tasks named (:1985-1986).
func TestServerV1_ClearTaskInstancesSubDAGs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       map[string]int // task instances listed per dag_id
	}{
		{"the DAG alone by default", `{"only_failed": false}`,
			map[string]int{"example_subdag_operator": 5}},
		{"include_subdags", `{"only_failed": false, "include_subdags": true}`,
			map[string]int{"example_subdag_operator": 5, "example_subdag_operator.section-1": 5, "example_subdag_operator.section-2": 5}},
		{"include_subdags, only failed", `{"include_subdags": true}`,
			map[string]int{"example_subdag_operator": 1, "example_subdag_operator.section-2": 1}},
		{"include_subdags with task_ids", `{"only_failed": false, "include_subdags": true, "task_ids": ["start"]}`,
			map[string]int{"example_subdag_operator": 1}},
		{"include_subdags, cleared", `{"include_subdags": true, "dry_run": false}`,
			map[string]int{"example_subdag_operator": 1, "example_subdag_operator.section-2": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			ts.postRun(t, "example_subdag_operator", `{"dag_run_id": "s1", "logical_date": "2024-01-03T00:00:00+00:00"}`)
			ts.setTaskState(t, "example_subdag_operator", "s1", "section-2", TaskFailed)
			ts.setTaskState(t, "example_subdag_operator.section-2", "s1", "section-2-task-3", TaskFailed)
			res := ts.v1(t, "POST", "/dags/example_subdag_operator/clearTaskInstances", tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			var c struct {
				TaskInstances []struct {
					DagID string `json:"dag_id"`
				} `json:"task_instances"`
			}
			if err := json.Unmarshal([]byte(res.body), &c); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, ti := range c.TaskInstances {
				got[ti.DagID]++
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("task instances per DAG %v, want %v", got, tc.want)
			}
			wantSub := TaskFailed
			if strings.Contains(tc.body, `"dry_run": false`) {
				wantSub = TaskNone
			}
			if got := ts.tiState(t, "example_subdag_operator.section-2", "s1", "section-2-task-3"); got != wantSub {
				t.Errorf("the sub-DAG's failed task instance is %q, want %q", orNone(got), orNone(wantSub))
			}
		})
	}
}
