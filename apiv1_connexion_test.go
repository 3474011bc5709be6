package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServerV1_ArrayQueryCommas: connexion 2.14's OpenAPIURIParser reads
// a form-style array query parameter (explode true by default) by joining
// its repeated values with "," and splitting the result
// (connexion/decorators/uri_parsing.py:243-267), so one value with commas
// is several values: tags=a,b is tags=a&tags=b.
func TestServerV1_ArrayQueryCommas(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "tags split at commas", path: "/dags?tags=example2,nothing", wantStatus: 200,
			check: wantDags([]string{"example_bash_operator"}, 1)},
		{name: "fields split at commas", path: "/dags?fields=dag_id,is_paused&limit=1", wantStatus: 200,
			wantJSON: `{"dags": [{"dag_id": "example_bash_operator", "is_paused": false}], "total_entries": 6}`},
		{name: "fields: repeated and split", path: "/dags/tutorial?fields=dag_id,is_paused&fields=is_active", wantStatus: 200,
			wantJSON: `{"dag_id": "tutorial", "is_paused": false, "is_active": true}`},
		{name: "run states split at commas", path: "/dags/tutorial/dagRuns?state=queued,failed", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{"r1", "r2", "r3"}, 3)},
		// _convert_ti_states' ValueError is not caught (2.10.3
		// api_connexion/endpoints/task_instance_endpoint.py:278-281,338):
		// the real Airflow 2.10.3 answered state=none,nope with a 500.
		{name: "task instance states split at commas", path: "/dags/~/dagRuns/~/taskInstances?state=queued,exploded", wantStatus: 500,
			wantProblem: &wantProblem{title: "Internal Server Error", detail: "'exploded' is not a valid TaskInstanceState"}},
	})
}

// TestServerV1_ClearTIsDates: ClearTaskInstances' start_date and end_date
// have format "datetime" in v1.yaml, which connexion does not check, so
// ClearTaskInstanceFormSchema answers: its validate_istimezone raises
// BadRequest for a naive date, marshmallow's DateTime refuses what is not
// ISO 8601. Airflow 2.10.3 tests/api_connexion/endpoints/
// test_task_instance_endpoint.py:1805 (test_should_raise_400_for_naive_and_bad_datetime),
// airflow/api_connexion/parameters.py:38.
func TestServerV1_ClearTIsDates(t *testing.T) {
	t.Parallel()
	const path = "/dags/tutorial/clearTaskInstances"
	naive := &wantProblem{title: "Invalid datetime format", detail: "Naive datetime is disallowed"}
	runV1Cases(t, []v1Case{
		{name: "naive end_date", method: "POST", path: path, body: `{"end_date": "2020-11-10T12:42:39.442973"}`,
			wantStatus: 400, wantProblem: naive},
		{name: "bad end_date", method: "POST", path: path, body: `{"end_date": "2020-11-10T12:4po"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'end_date': ['Not a valid datetime.']}"}},
		{name: "naive start_date", method: "POST", path: path, body: `{"start_date": "2020-11-10T12:42:39.442973"}`,
			wantStatus: 400, wantProblem: naive},
		{name: "bad start_date", method: "POST", path: path, body: `{"start_date": "2020-11-10T12:4po"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'start_date': ['Not a valid datetime.']}"}},
		{name: "both bad", method: "POST", path: path, body: `{"start_date": "x", "end_date": "2020-13-01T00:00:00Z", "only_running": true}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: "{'start_date': ['Not a valid datetime.'], 'end_date': ['Not a valid datetime.']}"}},
		{name: "a space and an offset without colon are ISO 8601", method: "POST", path: path,
			body:       `{"start_date": "2020-11-10 12:42+0000", "end_date": "2020-11-11T00:00:00Z"}`,
			wantStatus: 200, wantJSON: `{"task_instances": []}`},
	})
}

// TestServerV1_MarshmallowErrorMap: a body that marshmallow refuses is
// answered with ValidationError.messages whole, as the endpoints put it
// in the detail (task_instance_endpoint.py: post_set_task_instances_state
// and patch_task_instance, BadRequest(detail=str(err.messages))): every
// missing required field in the schema's order, then every unknown key
// (SetTaskInstanceStateFormSchema, SetSingleTaskInstanceStateFormSchema,
// task_instance_schema.py:206).
func TestServerV1_MarshmallowErrorMap(t *testing.T) {
	t.Parallel()
	missing := func(names ...string) string {
		s := ""
		for _, n := range names {
			s += "'" + n + "': ['Missing data for required field.'], "
		}
		return s
	}
	runV1Cases(t, []v1Case{
		{name: "updateTaskInstancesState: unknown and missing", method: "POST", path: "/dags/tutorial/updateTaskInstancesState",
			body: `{"state": "success", "task_ids": ["print_date"]}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "{" + missing("task_id", "include_upstream", "include_downstream",
				"include_future", "include_past", "new_state") + "'state': ['Unknown field.'], 'task_ids': ['Unknown field.']}"}},
		{name: "patch task instance: unknown and missing", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/print_date",
			body: `{"state": "success"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "{" + missing("new_state") + "'state': ['Unknown field.']}"}},
	})
}

// TestServerV1_PostRunBadRunID: a dag_run_id matching neither run-id
// pattern makes DAG.create_dagrun raise AirflowException (Airflow 2.10.3
// airflow/models/dag.py:3175-3181), which post_dag_run does not catch (it
// catches ValueError and ParamValidationError,
// api_connexion/endpoints/dag_run_endpoint.py:360): Airflow's 500 for an
// unhandled exception, which airlite answers as a problem document
// (docs/behaviour.md §5).
func TestServerV1_PostRunBadRunID(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "a space in the run id", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"dag_run_id": "my run"}`,
			wantStatus: 500, wantProblem: &wantProblem{title: "Internal Server Error",
				detail: `The provided run ID 'my run' is invalid. It does not match either the configured pattern: ` +
					`'^[A-Za-z0-9_.~:+-]+$' or the built-in pattern: ` +
					`'^(?:manual|scheduled|dataset_triggered)__(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00)$'`},
			check: func(t *testing.T, ts *testServer, _ response) {
				res := ts.v1(t, "GET", "/dags/tutorial/dagRuns", "")
				wantRuns([]string{}, 0)(t, ts, res)
			}},
		// A reserved prefix is create_dagrun's ValueError: still a 400.
		{name: "a reserved prefix", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"dag_run_id": "scheduled__x"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: "A manual DAG run cannot use ID 'scheduled__x' since it is reserved for scheduled runs"}},
	})
}

// TestServerV1_AsAirflowAnswered records what the real Airflow 2.10.3
// answered (its webserver run on this machine, over the DAG files behind airlite's fixtures)
// where airlite differed.
func TestServerV1_AsAirflowAnswered(t *testing.T) {
	t.Parallel()
	bodyHas := func(parts ...string) func(t *testing.T, _ *testServer, res response) {
		return func(t *testing.T, _ *testServer, res response) {
			t.Helper()
			for _, p := range parts {
				if !strings.Contains(res.body, p) {
					t.Errorf("body lacks %q:\n%s", p, res.body)
				}
			}
		}
	}
	runV1Cases(t, []v1Case{
		// TaskSchema's pool_slots, priority_weight and retries are
		// fields.Number, which dumps a float (task_schema.py:48-58); a
		// task's params are its DAG's merged with its own.
		{name: "task: numbers as floats, the DAG's params", path: "/dags/example_bash_operator/tasks/runme_0", wantStatus: 200,
			check: bodyHas(`"pool_slots": 1.0,`, `"priority_weight": 1.0,`, `"retries": 0.0,`,
				`"params": {
    "example_key": {
      "__class": "airflow.models.param.Param",
      "description": null,
      "schema": {},
      "value": "example_value"
    }
  },`)},
		{name: "tasks: numbers as floats", path: "/dags/tutorial/tasks", wantStatus: 200,
			check: bodyHas(`"retries": 3.0,`, `"retries": 1.0,`)},
		// DAGDetailSchema's owners reads DagModel.owners through a
		// method field the detail object lacks: always empty.
		{name: "details: owners empty", path: "/dags/tutorial/details", wantStatus: 200, check: bodyHas(`"owners": [],`)},
	})
}

// TestServerV1_DeleteContentType: delete_pool and delete_variable return
// a Flask Response(status=204), labelled Flask's default text/html
// (2.10.3 api_connexion/endpoints/pool_endpoint.py:53,
// variable_endpoint.py:57); the other deletions return connexion's
// NoContent, labelled JSON (connection_endpoint.py:73).
func TestServerV1_DeleteContentType(t *testing.T) {
	t.Parallel()
	ct := func(want string) func(t *testing.T, _ *testServer, res response) {
		return func(t *testing.T, _ *testServer, res response) {
			t.Helper()
			if got := res.header.Get("Content-Type"); got != want || res.body != "" {
				t.Errorf("Content-Type %q, body %q; want %q and no body", got, res.body, want)
			}
		}
	}
	create := func(path, body string) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			t.Helper()
			if res := ts.v1(t, "POST", path, body); res.status != 200 {
				t.Fatalf("create %s: %d %s", path, res.status, res.body)
			}
		}
	}
	runV1Cases(t, []v1Case{
		{name: "pool", method: "DELETE", path: "/pools/p1", setup: create("/pools", `{"name": "p1", "slots": 2}`),
			wantStatus: 204, check: ct("text/html; charset=utf-8")},
		{name: "variable", method: "DELETE", path: "/variables/v1", setup: create("/variables", `{"key": "v1", "value": "x"}`),
			wantStatus: 204, check: ct("text/html; charset=utf-8")},
		{name: "connection", method: "DELETE", path: "/connections/c1", setup: create("/connections", `{"connection_id": "c1", "conn_type": "http"}`),
			wantStatus: 204, check: ct("application/json")},
	})
}

// TestServerV1_NextDagrun: DagModel's next_dagrun fields are the interval
// the scheduler creates next, set when the latest scheduled run is
// created (2.10.3 models/dag.py:4180 calculate_dagrun_date_fields, from
// the last automated run's data interval), not only once it is due.
func TestServerV1_NextDagrun(t *testing.T) {
	t.Parallel()
	const fields = "?fields=next_dagrun&fields=next_dagrun_data_interval_start&fields=next_dagrun_data_interval_end&fields=next_dagrun_create_after"
	scheduledRun := func(t *testing.T, ts *testServer) {
		t.Helper()
		run := &DagRun{ID: 99, DagID: "example_bash_operator", RunID: "scheduled__2024-04-30T00:00:00+00:00", RunType: "scheduled",
			ExecutionDate: time.Date(2024, 4, 30, 0, 0, 0, 0, time.UTC), State: RunRunning}
		if err := ts.store.UpsertDagRun(run); err != nil {
			t.Fatal(err)
		}
	}
	runV1Cases(t, []v1Case{
		{name: "no run yet: the latest complete interval", path: "/dags/example_bash_operator" + fields, wantStatus: 200,
			wantJSON: `{"next_dagrun": "2024-04-30T00:00:00+00:00", "next_dagrun_data_interval_start": "2024-04-30T00:00:00+00:00",
				"next_dagrun_data_interval_end": "2024-05-01T00:00:00+00:00", "next_dagrun_create_after": "2024-05-01T00:00:00+00:00"}`},
		{name: "after the latest run: the interval not yet due", path: "/dags/example_bash_operator" + fields, setup: scheduledRun,
			wantStatus: 200,
			wantJSON: `{"next_dagrun": "2024-05-01T00:00:00+00:00", "next_dagrun_data_interval_start": "2024-05-01T00:00:00+00:00",
				"next_dagrun_data_interval_end": "2024-05-02T00:00:00+00:00", "next_dagrun_create_after": "2024-05-02T00:00:00+00:00"}`},
	})
}

// TestServer_TaskInfoObjects: Airflow 2.10.3's experimental task info is
// str() of each attribute; task_group (the DAG's root TaskGroup, one
// object for all its tasks) and weight_rule (a PriorityWeightStrategy,
// airflow/task/priority_strategy.py:77-118) have no __str__, so Python
// shows their class and address, as the real Airflow answered.
func TestServer_TaskInfoObjects(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	info := func(task string) map[string]string {
		t.Helper()
		res := ts.do(t, "GET", apiPrefix+"/dags/example_bash_operator/tasks/"+task, "")
		return checkAllStrings(t, res.body)
	}
	a, b := info("runme_0"), info("runme_1")
	group := regexp.MustCompile(`^<airflow\.utils\.task_group\.TaskGroup object at 0x7f[0-9a-f]{9}0>$`)
	weight := regexp.MustCompile(`^<airflow\.task\.priority_strategy\._DownstreamPriorityWeightStrategy object at 0x7f[0-9a-f]{9}0>$`)
	for _, ti := range []map[string]string{a, b} {
		if !group.MatchString(ti["task_group"]) || !weight.MatchString(ti["weight_rule"]) {
			t.Errorf("task_group %q, weight_rule %q", ti["task_group"], ti["weight_rule"])
		}
	}
	if a["task_group"] != b["task_group"] || a["weight_rule"] == b["weight_rule"] {
		t.Errorf("one TaskGroup per DAG, one strategy per task: %q %q, %q %q", a["task_group"], b["task_group"], a["weight_rule"], b["weight_rule"])
	}
	res := newTestServer(t, edition110).do(t, "GET", apiPrefix+"/dags/example_bash_operator/tasks/runme_0", "")
	if got := checkAllStrings(t, res.body)["weight_rule"]; got != "downstream" { // a str in 1.10.15
		t.Errorf("1.10 weight_rule %q", got)
	}
}

// TestServerV1_RenderedFields: a task instance that ran answers its
// rendered template fields, as RenderedTaskInstanceFields holds them for
// a BashOperator (2.10.3 airflow/models/renderedtifields.py: the
// operator's template_fields bash_command, env, cwd, each rendered; None
// stays null). A request value (the conf) shows as it was rendered.
func TestServerV1_RenderedFields(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition2, tickDriven, withDAG(`
dag_id: rendered
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: plain
    operator: BashOperator
    bash_command: echo {{ ds }} {{ dag_run.conf.x }}
    downstream: [with_env]
  - task_id: with_env
    operator: BashOperator
    bash_command: echo "$WHO"
    env: {WHO: "{{ run_id }}"}
`))
	ts.postRun(t, "rendered", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00", "conf": {"x": "$(hi)"}}`)
	before := ts.v1(t, "GET", "/dags/rendered/dagRuns/r1/taskInstances/plain", "")
	if !strings.Contains(before.body, `"rendered_fields": {},`) {
		t.Errorf("before the try: %s", before.body)
	}
	if got := ts.tickRun(t, sched, "rendered", "r1")["state"]; got != "success" {
		t.Fatalf("run ended %v", got)
	}
	for task, want := range map[string]string{
		"plain":    `{"bash_command": "echo 2024-02-01 $(hi)", "cwd": null, "env": null}`,
		"with_env": `{"bash_command": "echo \"$WHO\"", "cwd": null, "env": {"WHO": "r1"}}`,
	} {
		res := ts.v1(t, "GET", "/dags/rendered/dagRuns/r1/taskInstances/"+task, "")
		var ti struct {
			Rendered any `json:"rendered_fields"`
		}
		var wantV any
		if err := json.Unmarshal([]byte(res.body), &ti); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(want), &wantV)
		if !reflect.DeepEqual(ti.Rendered, wantV) {
			t.Errorf("%s rendered_fields = %v, want %s", task, ti.Rendered, want)
		}
	}
}

// TestServerV1_RunFailedTaskDates: set_dag_run_state_to_failed marks the
// task instances through TaskInstance.set_state, which starts one that
// never started and ends it now, with the duration between
// (2.10.3 api/common/mark_tasks.py:512-515, models/taskinstance.py:2425-2428):
// start_date = end_date = now and duration 0.0 for a task that had not run.
func TestServerV1_RunFailedTaskDates(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.postRun(t, "tutorial", `{"dag_run_id": "r1", "logical_date": "2024-01-01T00:00:00+00:00"}`)
	if res := ts.v1(t, "PATCH", "/dags/tutorial/dagRuns/r1", `{"state": "failed"}`); res.status != 200 {
		t.Fatalf("patch: %d %s", res.status, res.body)
	}
	res := ts.v1(t, "GET", "/dags/tutorial/dagRuns/r1/taskInstances/print_date", "")
	const now = `"2024-05-01T10:00:00.123456+00:00"`
	for _, want := range []string{`"state": "skipped"`, `"start_date": ` + now, `"end_date": ` + now, `"duration": 0.0,`} {
		if !strings.Contains(res.body, want) {
			t.Errorf("task instance lacks %s:\n%s", want, res.body)
		}
	}
}

// TestServerV1_ClearTIsEmptyTaskIDs: ClearTaskInstances' task_ids has
// minItems 1 in v1.yaml, so connexion refuses an empty list before
// marshmallow sees it, as the real Airflow 2.10.3 answered.
func TestServerV1_ClearTIsEmptyTaskIDs(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "empty task_ids", method: "POST", path: "/dags/tutorial/clearTaskInstances", body: `{"task_ids": [], "only_running": true}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "[] should be non-empty - 'task_ids'"}},
	})
}
