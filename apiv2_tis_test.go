package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// v2PairDAG is a two-task DAG whose first task prints (and so pushes) a
// line.
const v2PairDAG = `
dag_id: v2pair
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: hello
    operator: BashOperator
    bash_command: echo hello from airlite
    downstream: [after]
  - task_id: after
    operator: BashOperator
    bash_command: echo done
`

// v2FailDAG's task fails once, then succeeds: a retry follows its first
// try.
const v2FailDAG = `
dag_id: v2fail
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: flaky
    operator: BashOperator
    bash_command: echo trying
    retries: 1
    retry_delay: 0
  - task_id: later
    operator: BashOperator
    bash_command: echo later
    upstream: [flaky]
`

// v2TriggerAt triggers a run through the operations, as the v2 trigger
// route does, at a logical date.
func v2TriggerAt(t *testing.T, ts *testServer, dagID, runID, date string) *DagRun {
	t.Helper()
	d, err := time.Parse(time.RFC3339, date)
	if err != nil {
		t.Fatal(err)
	}
	// run_after the logical date, as Airflow's test fixtures make their
	// runs (a trigger without run_after runs after now).
	got, err := ts.srv.ops.trigger(triggerRequest{dagID: dagID, runID: runID, date: &d, runAfter: &d})
	if err != nil {
		t.Fatalf("trigger %s %s: %v", dagID, runID, err)
	}
	return got.run
}

// v2Get sends a request to /api/v2 and checks its status.
func (ts *testServer) v2(t *testing.T, method, path, body string, wantStatus int, header ...string) response {
	t.Helper()
	res := ts.do(t, method, apiV2Prefix+path, body, header...)
	if res.status != wantStatus {
		t.Fatalf("%s %s = %d %s, want %d", method, path, res.status, res.body, wantStatus)
	}
	return res
}

// jsonKeys is the keys of a JSON object in the order the body gives them.
func jsonKeys(t *testing.T, body string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, v)
				// skip the value
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					t.Fatalf("decode %s: %v", body, err)
				}
			}
		}
	}
	return keys
}

// v2TIFields are TaskInstanceResponse's fields in their order.
var v2TIFields = []string{"id", "task_id", "dag_id", "dag_run_id", "map_index", "logical_date", "run_after", "start_date",
	"end_date", "duration", "state", "try_number", "max_tries", "task_display_name", "dag_display_name", "hostname", "unixname",
	"pool", "pool_slots", "queue", "priority_weight", "operator", "operator_name", "queued_when", "scheduled_when", "pid",
	"executor", "executor_config", "note", "rendered_map_index", "rendered_fields", "trigger", "triggerer_job", "dag_version"}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// newV2RunServer is an edition-3 server with a scheduler driven by tick,
// the pair DAG run r1 to its end through real bash tasks.
func newV2RunServer(t *testing.T, options ...testOption) (*testServer, *scheduler) {
	t.Helper()
	ts, sched := newSchedServer(t, edition3, tickDriven, append([]testOption{withDAG(v2PairDAG), withDAG(v2FailDAG)}, options...)...)
	v2TriggerAt(t, ts, "v2pair", "r1", "2024-02-01T00:00:00Z")
	settleTicks(t, sched, time.Now)
	finishedRun(t, ts.store, "v2pair", "r1")
	return ts, sched
}

// TestAPIv2_TaskInstanceEndToEnd triggers a run through the operations,
// runs its bash tasks on the scheduler and reads the task instance, its
// tries, its log and its XCom through /api/v2 (Airflow 3.2.1
// test_task_instances.py TestGetTaskInstance, test_log.py, test_xcom.py).
func TestAPIv2_TaskInstanceEndToEnd(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)

	res := ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello", "", 200)
	if got := jsonKeys(t, res.body); !slices.Equal(got, v2TIFields) {
		t.Errorf("fields %v\nwant %v", got, v2TIFields)
	}
	ti := decodeJSON[map[string]any](t, res.body)
	for k, want := range map[string]any{"state": "success", "try_number": 1.0, "map_index": -1.0, "dag_run_id": "r1",
		"logical_date": "2024-02-01T00:00:00Z", "run_after": "2024-02-01T00:00:00Z", "operator": "BashOperator",
		"operator_name": "BashOperator", "executor_config": "{}", "executor": nil, "trigger": nil,
		"task_display_name": "hello", "dag_display_name": "v2pair", "pool": "default_pool", "note": nil} {
		if ti[k] != want {
			t.Errorf("task instance %s = %v, want %v", k, ti[k], want)
		}
	}
	if v, _ := ti["dag_version"].(map[string]any); v["version_number"] != 1.0 || v["dag_id"] != "v2pair" {
		t.Errorf("dag_version %v", ti["dag_version"])
	}
	if id, _ := ti["id"].(string); !uuidPattern.MatchString(id) {
		t.Errorf("id %q is no UUIDv7", id)
	}
	if rf := ti["rendered_fields"].(map[string]any); rf["bash_command"] != "echo hello from airlite" {
		t.Errorf("rendered_fields %v", rf)
	}
	// The same task instance by its map index -1; another index is none.
	if got := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/-1", "", 200).body); got["id"] != ti["id"] {
		t.Errorf("mapped get %v", got["id"])
	}

	tries := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/tries", "", 200).body)
	if tries["total_entries"] != 1.0 {
		t.Errorf("tries %v", tries)
	}
	one := ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/tries/1", "", 200)
	if keys := jsonKeys(t, one.body); keys[0] != "task_id" || slices.Contains(keys, "id") || slices.Contains(keys, "note") || keys[len(keys)-1] != "dag_version" {
		t.Errorf("try fields %v", keys)
	}

	log := ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/logs/1", "", 200, "Accept", "application/json")
	wantLog := `{"content":[{"event":"::group::Log message source details","sources":["dag_id=v2pair/run_id=r1/task_id=hello/attempt=1.log"]},` +
		`{"event":"::endgroup::"},{"timestamp":null,"event":"hello from airlite"}],"continuation_token":null}`
	if log.body != wantLog {
		t.Errorf("log %s\nwant %s", log.body, wantLog)
	}

	entries := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries", "", 200).body)
	if entries["total_entries"] != 1.0 {
		t.Errorf("xcom entries %v", entries)
	}
	x := ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries/return_value", "", 200)
	if v := decodeJSON[map[string]any](t, x.body)["value"]; v != `"hello from airlite"` {
		t.Errorf("xcom native value %v", v)
	}
	x = ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries/return_value?deserialize=true", "", 200)
	if v := decodeJSON[map[string]any](t, x.body)["value"]; v != "hello from airlite" {
		t.Errorf("xcom deserialized value %v", v)
	}
}

// TestAPIv2_TaskInstanceRetryTries runs a task whose first try fails and
// whose retry succeeds: the tries list both, by their numbers, the task
// instance its second try with a new id, each try's log its own.
func TestAPIv2_TaskInstanceRetryTries(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition3, func(o *schedulerOptions) {
		tickDriven(o)
		o.RunTask = func(_ context.Context, job taskJob) taskOutcome {
			if job.key.taskID == "flaky" && job.try == 1 {
				return taskOutcome{state: TaskFailed, output: "first try fails\n"}
			}
			return taskOutcome{state: TaskSuccess, output: "try " + job.key.taskID + "\n"}
		}
	}, withDAG(v2FailDAG))
	v2TriggerAt(t, ts, "v2fail", "r1", "2024-03-01T00:00:00Z")
	settleTicks(t, sched, time.Now)
	finishedRun(t, ts.store, "v2fail", "r1")

	tries := decodeJSON[struct {
		TaskInstances []map[string]any `json:"task_instances"`
		TotalEntries  int              `json:"total_entries"`
	}](t, ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/tries", "", 200).body)
	if tries.TotalEntries != 2 || tries.TaskInstances[0]["try_number"] != 1.0 || tries.TaskInstances[0]["state"] != "failed" ||
		tries.TaskInstances[1]["try_number"] != 2.0 || tries.TaskInstances[1]["state"] != "success" {
		t.Fatalf("tries %+v", tries)
	}
	first := ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/tries/1", "", 200)
	if got := decodeJSON[map[string]any](t, first.body)["state"]; got != "failed" {
		t.Errorf("try 1 state %v", got)
	}
	ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/tries/3", "", 404)
	log1 := ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/logs/1", "", 200)
	if !strings.Contains(log1.body, `{"timestamp":null,"event":"first try fails"}`) {
		t.Errorf("log of try 1: %s", log1.body)
	}
	log2 := ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/logs/2", "", 200)
	if !strings.Contains(log2.body, `{"timestamp":null,"event":"try flaky"}`) || strings.Contains(log2.body, "first try") {
		t.Errorf("log of try 2: %s", log2.body)
	}
	ts.v2(t, "GET", "/dags/v2fail/dagRuns/r1/taskInstances/flaky/logs/3", "", 404)
}

// TestAPIv2_TaskInstanceErrors checks the texts and statuses of
// task_instances.py's errors.
func TestAPIv2_TaskInstanceErrors(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	const tis = "/dags/v2pair/dagRuns/r1/taskInstances"
	for _, tc := range []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
	}{
		{"get missing", "GET", tis + "/nope", "", 404,
			"{\"detail\":\"The Task Instance with dag_id: `v2pair`, run_id: `r1` and task_id: `nope` was not found\"}"},
		{"mapped get other index", "GET", tis + "/hello/3", "", 404,
			"{\"detail\":\"The Mapped Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `hello`, and map_index: `3` was not found\"}"},
		{"mapped get not an int", "GET", tis + "/hello/abc", "", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","map_index"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]}`},
		{"listMapped unmapped task", "GET", tis + "/hello/listMapped", "", 404, `{"detail":"Task id hello is not mapped"}`},
		{"listMapped missing task", "GET", tis + "/nope/listMapped", "", 404, `{"detail":"Task id nope not found"}`},
		{"listMapped missing dag", "GET", "/dags/nodag/dagRuns/r1/taskInstances/x/listMapped", "", 404, "{\"detail\":\"The Dag with ID: `nodag` was not found\"}"},
		{"dependencies missing (a tuple's detail)", "GET", tis + "/nope/dependencies", "", 404,
			"{\"detail\":[\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `nope` and map_index: `-1` was not found\"]}"},
		{"dependencies other index", "GET", tis + "/hello/2/dependencies", "", 404,
			"{\"detail\":[\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `hello` and map_index: `2` was not found\"]}"},
		{"dependencies of a finished task", "GET", tis + "/hello/dependencies", "", 200, `{"dependencies":[]}`},
		{"tries missing", "GET", tis + "/nope/tries", "", 404,
			"{\"detail\":\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `nope` and map_index: `-1` was not found\"}"},
		{"mapped tries other index", "GET", tis + "/hello/4/tries", "", 404,
			"{\"detail\":\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `hello` and map_index: `4` was not found\"}"},
		{"try missing", "GET", tis + "/hello/tries/7", "", 404,
			"{\"detail\":\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `hello`, try_number: `7` and map_index: `-1` was not found\"}"},
		// 3.2.0 finds the run by dag_id and run_id, and refuses a run_id
		// without a dag_id (its document adds the 400; test_task_instances.py
		// test_dag_id_required_when_dag_run_id_specified).
		{"list of a missing run", "GET", "/dags/v2pair/dagRuns/nope/taskInstances", "", 404,
			"{\"detail\":\"DagRun with dag_id: `v2pair` and run_id: `nope` was not found\"}"},
		{"list of a run of another DAG", "GET", "/dags/nodag/dagRuns/r1/taskInstances", "", 404,
			"{\"detail\":\"DagRun with dag_id: `nodag` and run_id: `r1` was not found\"}"},
		{"list of a run without its DAG", "GET", "/dags/~/dagRuns/r1/taskInstances", "", 400, `{"detail":"dag_id is required when dag_run_id is specified"}`},
		{"list of a missing DAG", "GET", "/dags/nodag/dagRuns/~/taskInstances", "", 404, "{\"detail\":\"The Dag with ID: `nodag` was not found\"}"},
		{"list of a missing dag", "GET", "/dags/nodag/dagRuns/~/taskInstances", "", 404, "{\"detail\":\"The Dag with ID: `nodag` was not found\"}"},
		{"list with a bad state", "GET", tis + "?state=exploded", "", 422,
			`{"detail":"Invalid value for state. Valid values are removed, scheduled, queued, running, success, restarting, failed, up_for_retry, up_for_reschedule, upstream_failed, skipped, deferred"}`},
		// _transform_ti_states raises inside its dependency, which FastAPI
		// solves before it reports the query's errors and before the
		// endpoint looks the DAG up.
		{"list with a bad state and a bad limit", "GET", tis + "?limit=x&state=exploded", "", 422,
			`{"detail":"Invalid value for state. Valid values are removed, scheduled, queued, running, success, restarting, failed, up_for_retry, up_for_reschedule, upstream_failed, skipped, deferred"}`},
		{"list of a missing DAG with a bad state", "GET", "/dags/nodag/dagRuns/~/taskInstances?state=exploded", "", 422,
			`{"detail":"Invalid value for state. Valid values are removed, scheduled, queued, running, success, restarting, failed, up_for_retry, up_for_reschedule, upstream_failed, skipped, deferred"}`},
		{"mapped list with a bad state and a bad limit", "GET", "/dags/nodag/dagRuns/r1/taskInstances/t/listMapped?limit=x&state=exploded", "", 422,
			`{"detail":"Invalid value for state. Valid values are removed, scheduled, queued, running, success, restarting, failed, up_for_retry, up_for_reschedule, upstream_failed, skipped, deferred"}`},
		{"list ordered by an unknown attribute", "GET", tis + "?order_by=-nope", "", 400,
			`{"detail":"Ordering with 'nope' is disallowed or the attribute does not exist on the model"}`},
		{"list with a negative limit", "GET", tis + "?limit=-1", "", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"batch outside ~", "POST", "/dags/v2pair/dagRuns/~/taskInstances/list", `{}`, 422,
			`{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"v2pair","ctx":{"expected":"'~'"}}]}`},
		// FastAPI gathers the path's errors before the body's in one 422
		// (fastapi/dependencies/utils.py solve_dependencies, then the body).
		{"batch outside ~ without a body", "POST", "/dags/v2pair/dagRuns/~/taskInstances/list", "", 422,
			`{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"v2pair","ctx":{"expected":"'~'"}},` +
				`{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"batch outside ~ twice with a bad field", "POST", "/dags/v2pair/dagRuns/r1/taskInstances/list", `{"nope":1}`, 422,
			`{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"v2pair","ctx":{"expected":"'~'"}},` +
				`{"type":"literal_error","loc":["path","dag_run_id"],"msg":"Input should be '~'","input":"r1","ctx":{"expected":"'~'"}},` +
				`{"type":"extra_forbidden","loc":["body","nope"],"msg":"Extra inputs are not permitted","input":1}]}`},
		{"batch unknown field", "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"dag_id":"x"}`, 422,
			`{"detail":[{"type":"extra_forbidden","loc":["body","dag_id"],"msg":"Extra inputs are not permitted","input":"x"}]}`},
		{"delete missing", "DELETE", tis + "/nope", "", 404,
			"{\"detail\":\"The Task Instance with dag_id: `v2pair`, run_id: `r1`, task_id: `nope` and map_index: `-1` was not found\"}"},
		{"patch missing dag", "PATCH", "/dags/nodag/dagRuns/r1/taskInstances/hello", `{"new_state":"success"}`, 404,
			"{\"detail\":\"The Dag with ID: `nodag` was not found\"}"},
		{"patch missing task", "PATCH", tis + "/nope", `{"new_state":"success"}`, 404, `{"detail":"Task 'nope' not found in DAG 'v2pair'"}`},
		{"patch missing run", "PATCH", "/dags/v2pair/dagRuns/nope/taskInstances/hello", `{"new_state":"success"}`, 404,
			"{\"detail\":[\"The Task Instance with dag_id: `v2pair`, run_id: `nope`, task_id: `hello` and map_index: `None` was not found\"]}"},
		{"patch to the state it has", "PATCH", tis + "/hello", `{"new_state":"success"}`, 409, `{"detail":"Task id hello is already in success state"}`},
		{"patch to a state one cannot set", "PATCH", tis + "/hello", `{"new_state":"running"}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","new_state"],"msg":"Value error, 'running' is not one of ['success', 'failed', 'skipped']","input":"running","ctx":{"error":{}}}]}`},
		{"patch to no state", "PATCH", tis + "/hello", `{"new_state":null}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","new_state"],"msg":"Value error, 'new_state' should not be empty","input":null,"ctx":{"error":{}}}]}`},
		{"patch a note too long", "PATCH", tis + "/hello", `{"note":"` + strings.Repeat("n", 1001) + `"}`, 422,
			`{"detail":[{"type":"string_too_long","loc":["body","note"],"msg":"String should have at most 1000 characters","input":"` + strings.Repeat("n", 1001) + `","ctx":{"max_length":1000}}]}`},
		{"clear a missing dag", "POST", "/dags/nodag/clearTaskInstances", `{}`, 404, "{\"detail\":\"The Dag with ID: `nodag` was not found\"}"},
		{"clear a missing run", "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"nope"}`, 404, `{"detail":"Dag Run id nope not found in dag v2pair"}`},
		// validate_model's ValidationError("...") is a TypeError: 500.
		{"clear only failed and only running", "POST", "/dags/v2pair/clearTaskInstances", `{"only_failed":true,"only_running":true}`, 500, "Internal Server Error"},
		{"clear no task_ids", "POST", "/dags/v2pair/clearTaskInstances", `{"task_ids":[],"dry_run":"not a bool"}`, 500, "Internal Server Error"},
		{"clear a start after its end", "POST", "/dags/v2pair/clearTaskInstances",
			`{"start_date":"2024-02-02T00:00:00Z","end_date":"2024-02-01T00:00:00Z"}`, 500, "Internal Server Error"},
		{"clear a run and a date", "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"r1","end_date":"2024-02-01T00:00:00Z"}`, 500, "Internal Server Error"},
		{"clear a bad task_ids item", "POST", "/dags/v2pair/clearTaskInstances", `{"task_ids":[3]}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","task_ids",0,"str"],"msg":"Input should be a valid string","input":3},` +
				`{"type":"tuple_type","loc":["body","task_ids",0,"tuple[str, int]"],"msg":"Input should be a valid tuple","input":3}]}`},
		{"clear a naive date", "POST", "/dags/v2pair/clearTaskInstances", `{"start_date":"2024-02-01T00:00:00"}`, 422,
			`{"detail":[{"type":"timezone_aware","loc":["body","start_date"],"msg":"Input should have timezone info","input":"2024-02-01T00:00:00"}]}`},
		{"extra links", "GET", tis + "/hello/links", "", 200, `{"extra_links":{},"total_entries":0}`},
		{"extra links of a missing task", "GET", tis + "/nope/links", "", 404, `{"detail":"Task with ID = nope not found"}`},
		{"extra links of another index", "GET", tis + "/hello/links?map_index=1", "", 404, `{"detail":"TaskInstance not found"}`},
		// No run: get_dag_for_run_or_latest_version reads the latest DAG.
		{"extra links of a missing run", "GET", "/dags/v2pair/dagRuns/nope/taskInstances/hello/links", "", 404, `{"detail":"TaskInstance not found"}`},
		{"external log url", "GET", tis + "/hello/externalLogUrl/1", "", 400, `{"detail":"Task log handler does not support external logs."}`},
		{"log of a missing try", "GET", tis + "/hello/logs/2", "", 404, `{"detail":"TaskInstance not found"}`},
		// try_number is a NonNegativeInt (3.1 on): hello ran, so no try 0.
		{"log of try 0", "GET", tis + "/hello/logs/0", "", 404, `{"detail":"TaskInstance not found"}`},
		{"log of try -1", "GET", tis + "/hello/logs/-1", "", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["path","try_number"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"log with a forged token", "GET", tis + "/hello/logs/1?token=abc.def", "", 400,
			`{"detail":"Bad Signature. Please use only the tokens provided by the API."}`},
		{"a method no route takes", "PUT", tis + "/hello", "", 405, `{"detail":"Method Not Allowed"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, tc.method, apiV2Prefix+tc.path, tc.body)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("%s %s = %d %s\nwant %d %s", tc.method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestAPIv2_TaskInstanceListFilters checks get_task_instances' filters,
// "~" across DAGs and runs, pagination and order_by (test_task_instances.py
// TestGetTaskInstances).
func TestAPIv2_TaskInstanceListFilters(t *testing.T) {
	t.Parallel()
	ts, sched := newV2RunServer(t)
	v2TriggerAt(t, ts, "v2pair", "r2", "2024-02-02T00:00:00Z")
	settleTicks(t, sched, time.Now)
	type page struct {
		TaskInstances []struct {
			TaskID   string `json:"task_id"`
			DagRunID string `json:"dag_run_id"`
		} `json:"task_instances"`
		TotalEntries int `json:"total_entries"`
	}
	for _, tc := range []struct {
		path      string
		wantTotal int
		want      []string // run/task of the page, in order
	}{
		{"/dags/v2pair/dagRuns/r1/taskInstances", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances", 4, nil},
		{"/dags/v2pair/dagRuns/r2/taskInstances", 2, nil},
		{"/dags/v2pair/dagRuns/~/taskInstances?task_id=hello", 2, []string{"r1/hello", "r2/hello"}},
		{"/dags/~/dagRuns/~/taskInstances?state=success&state=failed", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?state=no_status", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?logical_date_gte=2024-02-02T00:00:00Z", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances?logical_date_gt=2024-02-02T00:00:00Z", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?run_after_lt=2024-02-02T00:00:00Z", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances?task_display_name_pattern=hel", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances?dag_id_pattern=nomatch", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?task_display_name_pattern=nomatch%20|%20aft", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances?task_display_name_pattern=H_LLO", 2, nil},
		{"/dags/~/dagRuns/~/taskInstances?pool=default_pool&queue=default", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?pool=other", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?executor=LocalExecutor", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?version_number=1", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?version_number=2", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?try_number=1&map_index=-1", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?try_number=2", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?operator=BashOperator", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?duration_gte=0", 4, nil},
		// RangeFilter.to_orm applies a bound only when it is truthy: 0
		// bounds nothing.
		{"/dags/~/dagRuns/~/taskInstances?duration_lt=0", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?duration_lt=0.000001", 0, nil},
		{"/dags/~/dagRuns/~/taskInstances?order_by=-logical_date&order_by=state&limit=2", 4, nil},
		{"/dags/~/dagRuns/~/taskInstances?order_by=-run_after&limit=1&offset=1", 4, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := ts.v2(t, "GET", tc.path, "", 200)
			p := decodeJSON[page](t, res.body)
			if p.TotalEntries != tc.wantTotal {
				t.Errorf("total %d, want %d: %s", p.TotalEntries, tc.wantTotal, res.body)
			}
			if tc.want != nil {
				var got []string
				for _, ti := range p.TaskInstances {
					got = append(got, ti.DagRunID+"/"+ti.TaskID)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("page %v, want %v", got, tc.want)
				}
			}
		})
	}
	// The default order is by id: the order the task instances were made.
	p := decodeJSON[page](t, ts.v2(t, "GET", "/dags/~/dagRuns/~/taskInstances?limit=2&offset=1", "", 200).body)
	if len(p.TaskInstances) != 2 || p.TaskInstances[0].DagRunID != "r1" || p.TaskInstances[1].DagRunID != "r2" {
		t.Errorf("page by id %+v", p)
	}
	p = decodeJSON[page](t, ts.v2(t, "GET", "/dags/~/dagRuns/~/taskInstances?order_by=-logical_date", "", 200).body)
	if p.TaskInstances[0].DagRunID != "r2" || p.TaskInstances[3].DagRunID != "r1" {
		t.Errorf("page by -logical_date %+v", p)
	}
	// The batch form: filters in the body, page_limit 100 by default.
	p = decodeJSON[page](t, ts.v2(t, "POST", "/dags/~/dagRuns/~/taskInstances/list",
		`{"dag_run_ids":["r2"],"task_ids":["after"],"state":["success"],"logical_date_gte":"2024-02-01T00:00:00Z"}`, 200).body)
	if p.TotalEntries != 1 || p.TaskInstances[0].DagRunID != "r2" || p.TaskInstances[0].TaskID != "after" {
		t.Errorf("batch %+v", p)
	}
	// IN lists: a value given twice picks once.
	p = decodeJSON[page](t, ts.v2(t, "POST", "/dags/~/dagRuns/~/taskInstances/list",
		`{"dag_ids":["v2pair","v2pair"],"dag_run_ids":["r2","r2"],"task_ids":["after","after"],"pool":["default_pool","default_pool"]}`, 200).body)
	if p.TotalEntries != 1 || len(p.TaskInstances) != 1 || p.TaskInstances[0].DagRunID != "r2" {
		t.Errorf("batch with ids twice %+v, want r2/after once", p)
	}
	p = decodeJSON[page](t, ts.v2(t, "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"page_limit":1,"order_by":"-start_date"}`, 200).body)
	if p.TotalEntries != 4 || len(p.TaskInstances) != 1 || p.TaskInstances[0].DagRunID != "r2" || p.TaskInstances[0].TaskID != "after" {
		t.Errorf("batch page %+v", p)
	}
	ts.v2(t, "POST", "/dags/~/dagRuns/~/taskInstances/list", `{"logical_date_gte":"2024-02-01T00:00:00"}`, 422)
}

// TestAPIv2_TaskInstancesOfATaskGroup: task_group_id keeps the task
// instances of every task in the group and its nested groups
// (QueryTaskInstanceTaskGroupFilter: iter_tasks of the DAG's group, by
// its full group id, prefixed or not); a group the DAG lacks is its 404,
// and without a DAG ("~") the filter has none to read and Airflow fails
// (its ValueError: Starlette's 500).
func TestAPIv2_TaskInstancesOfATaskGroup(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/groups", edition3)
	ts, sched := newSchedServer(t, edition3, nil, withOptions(func(o *serverOptions) { o.DAGs = set }))
	runID := v2Trigger(t, ts, "py_groups", `{"logical_date": null}`)
	settleTicks(t, sched, time.Now)
	type page struct {
		TaskInstances []struct {
			TaskID string `json:"task_id"`
		} `json:"task_instances"`
		TotalEntries int `json:"total_entries"`
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"task_group_id=outer", []string{"outer.a", "outer.inner.b"}},
		{"task_group_id=outer.inner", []string{"outer.inner.b"}},
		{"task_group_id=flat", []string{"c", "d.e"}},
		{"task_group_id=outer&task_id=outer.a", []string{"outer.a"}},
		{"task_group_id=outer&task_id=c", nil},
	} {
		for _, run := range []string{runID, "~"} {
			path := "/api/v2/dags/py_groups/dagRuns/" + run + "/taskInstances?" + tc.query
			res := ts.do(t, "GET", path, "")
			p := decodeJSON[page](t, res.body)
			var got []string
			for _, ti := range p.TaskInstances {
				got = append(got, ti.TaskID)
			}
			slices.Sort(got)
			if res.status != 200 || !slices.Equal(got, tc.want) || p.TotalEntries != len(tc.want) {
				t.Errorf("%s = %d %s, want %v", path, res.status, res.body, tc.want)
			}
		}
	}
	for _, group := range []string{"nope", "", "top", "inner"} {
		path := "/api/v2/dags/py_groups/dagRuns/~/taskInstances?task_group_id=" + group
		want := `{"detail":{"reason":"not_found","message":"Task group ` + group + ` not found"}}`
		if res := ts.do(t, "GET", path, ""); res.status != 404 || res.body != want {
			t.Errorf("%s = %d %s, want 404 %s", path, res.status, res.body, want)
		}
	}
	if res := ts.do(t, "GET", "/api/v2/dags/~/dagRuns/~/taskInstances?task_group_id=outer", ""); res.status != 500 || res.body != "Internal Server Error" {
		t.Errorf("task_group_id across DAGs = %d %s, want Starlette's 500", res.status, res.body)
	}
}

// TestAPIv2_TaskInstancePatchClearDelete sets a state and a note, dry
// runs, clears and deletes task instances (test_task_instances.py
// TestPatchTaskInstance, TestPostClearTaskInstances,
// TestDeleteTaskInstance).
func TestAPIv2_TaskInstancePatchClearDelete(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	const tis = "/dags/v2pair/dagRuns/r1/taskInstances"

	// A dry run lists what would change and changes nothing.
	dry := decodeJSON[v2TICollectionT](t, ts.v2(t, "PATCH", tis+"/hello/dry_run", `{"new_state":"FAILED","include_downstream":true}`, 200).body)
	if dry.TotalEntries != 2 || dry.TaskInstances[0]["state"] != "success" {
		t.Errorf("dry run %+v", dry)
	}
	// Only the note: no state change.
	patched := decodeJSON[v2TICollectionT](t, ts.v2(t, "PATCH", tis+"/hello", `{"note":"looked at"}`, 200).body)
	if patched.TotalEntries != 1 || patched.TaskInstances[0]["note"] != "looked at" || patched.TaskInstances[0]["state"] != "success" {
		t.Errorf("note patch %+v", patched)
	}
	// update_mask limits the fields: new_state is left out.
	masked := decodeJSON[v2TICollectionT](t, ts.v2(t, "PATCH", tis+"/hello?update_mask=note", `{"new_state":"failed","note":null}`, 200).body)
	if masked.TaskInstances[0]["note"] != nil || masked.TaskInstances[0]["state"] != "success" {
		t.Errorf("masked patch %+v", masked)
	}
	failed := decodeJSON[v2TICollectionT](t, ts.v2(t, "PATCH", tis+"/hello", `{"new_state":"failed"}`, 200).body)
	if failed.TaskInstances[0]["state"] != "failed" {
		t.Errorf("state patch %+v", failed)
	}

	// Clear: a dry run by default, only the failed ones by default.
	dryClear := decodeJSON[v2TICollectionT](t, ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"r1"}`, 200).body)
	if dryClear.TotalEntries != 1 || dryClear.TaskInstances[0]["task_id"] != "hello" || dryClear.TaskInstances[0]["state"] != "failed" {
		t.Errorf("dry clear %+v", dryClear)
	}
	pairs := decodeJSON[v2TICollectionT](t, ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances",
		`{"only_failed":false,"task_ids":[["after",3]],"include_upstream":true}`, 200).body)
	if pairs.TotalEntries != 1 || pairs.TaskInstances[0]["task_id"] != "hello" {
		t.Errorf("clear by a [task_id, map_index] pair %+v", pairs)
	}
	cleared := decodeJSON[v2TICollectionT](t, ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"r1","dry_run":false}`, 200).body)
	if cleared.TotalEntries != 1 || cleared.TaskInstances[0]["state"] != nil {
		t.Errorf("clear %+v", cleared)
	}

	// Delete: 200 and null; the task instance is gone.
	if res := ts.v2(t, "DELETE", tis+"/after", "", 200); res.body != "null" {
		t.Errorf("delete answered %s", res.body)
	}
	ts.v2(t, "GET", tis+"/after", "", 404)
	// Its tries, log and XCom went with it.
	ts.v2(t, "GET", tis+"/after/tries", "", 404)
	ts.v2(t, "GET", tis+"/after/logs/1", "", 404)
	ts.v2(t, "GET", tis+"/after/xcomEntries/return_value", "", 404)
	if n, err := ts.store.XComEntries(XComFilter{DagID: "v2pair", RunID: "r1", TaskID: "after"}); err != nil || len(n) != 0 {
		t.Errorf("xcom entries left %v %v", n, err)
	}
}

type v2TICollectionT struct {
	TaskInstances []map[string]any `json:"task_instances"`
	TotalEntries  int              `json:"total_entries"`
}

// TestAPIv2_BulkTaskInstances checks bulk_task_instances: updates name
// their task instances with dag_id and dag_run_id, deletes by task_id,
// create is refused per entity (test_task_instances.py
// TestBulkTaskInstances).
func TestAPIv2_BulkTaskInstances(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	res := ts.v2(t, "PATCH", "/dags/v2pair/dagRuns/r1/taskInstances", `{"actions":[
		{"action":"create","entities":[{"task_id":"hello"}]},
		{"action":"update","entities":[{"task_id":"hello","dag_id":"v2pair","dag_run_id":"r1","new_state":"skipped"},{"task_id":"nope","map_index":2}]},
		{"action":"update","action_on_non_existence":"skip","entities":[{"task_id":"after","dag_id":"v2pair","dag_run_id":"r1","note":"bulk"}]},
		{"action":"delete","entities":["after"]}]}`, 200)
	want := `{"create":{"success":[],"errors":[{"error":"Task instances bulk create is not supported","status_code":405}]},` +
		`"update":{"success":["v2pair.r1.after[-1]"],"errors":[{"error":"The task instances with these identifiers: [{'dag_id': 'v2pair', 'dag_run_id': 'r1', 'task_id': 'nope', 'map_index': 2}] were not found","status_code":404}]},` +
		`"delete":{"success":["v2pair.r1.after[-1]"],"errors":[]}}`
	if res.body != want {
		t.Errorf("bulk %s\nwant %s", res.body, want)
	}
	ts.v2(t, "PATCH", "/dags/v2pair/dagRuns/r1/taskInstances", `{"actions":[{"action":"nope","entities":[]}]}`, 422)
	wild := ts.v2(t, "PATCH", "/dags/~/dagRuns/~/taskInstances", `{"actions":[{"action":"delete","entities":["hello"]}]}`, 200)
	if !strings.Contains(wild.body, "When using wildcard in path, dag_id and dag_run_id must be specified in BulkTaskInstanceBody object, not as string for task_id: hello") {
		t.Errorf("wildcard %s", wild.body)
	}
}

// TestAPIv2_LogFormats checks get_log's answers by Accept: JSON,
// NDJSON, a refusal for anything else, and the continuation token of a
// try still running. NDJSON lines are model_dump_json of the file task
// handler's StructuredLogMessage: every field, timestamp first (null:
// a line of plain output has none), as test_log.py's ndjson tests check.
// The NDJSON answer's token header is the request's own metadata, signed
// before the stream is read (routes/public/log.py get_log).
func TestAPIv2_LogFormats(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	const path = "/dags/v2pair/dagRuns/r1/taskInstances/hello/logs/1"
	wantND := `{"timestamp":null,"event":"::group::Log message source details","sources":["dag_id=v2pair/run_id=r1/task_id=hello/attempt=1.log"]}` + "\n" +
		`{"timestamp":null,"event":"::endgroup::"}` + "\n" + `{"timestamp":null,"event":"hello from airlite"}` + "\n"
	ndToken := func(t *testing.T, res response) string {
		t.Helper()
		raw, err := loadSignedJSON(ts.srv.v1Secret, res.header.Get("Airflow-Continuation-Token"))
		if err != nil {
			t.Fatalf("ndjson token %q: %v", res.header.Get("Airflow-Continuation-Token"), err)
		}
		return string(raw)
	}
	for _, tc := range []struct{ name, query, token string }{
		{"default", "", `{"download_logs":false}`},
		{"full content", "?full_content=true", `{"download_logs":true}`},
	} {
		nd := ts.v2(t, "GET", path+tc.query, "", 200, "Accept", "application/x-ndjson")
		if nd.body != wantND || nd.header.Get("Content-Type") != "application/x-ndjson" {
			t.Errorf("%s: ndjson %q %v", tc.name, nd.body, nd.header)
		}
		if got := ndToken(t, nd); got != tc.token {
			t.Errorf("%s: ndjson token = %s, want %s", tc.name, got, tc.token)
		}
	}
	ts.v2(t, "GET", path, "", 200, "Accept", "*/*")
	for _, accept := range []string{"text/plain", ""} {
		if res := ts.v2(t, "GET", path, "", 406, "Accept", accept); res.body != `{"detail":"Only application/json or application/x-ndjson is supported"}` {
			t.Errorf("Accept %q: %s", accept, res.body)
		}
	}
	// A token that says the log ended: no header.
	ended, err := signJSON(ts.srv.v1Secret, map[string]any{"download_logs": false, "end_of_log": true})
	if err != nil {
		t.Fatal(err)
	}
	if nd := ts.v2(t, "GET", path+"?token="+ended, "", 200, "Accept", "application/x-ndjson"); nd.header.Get("Airflow-Continuation-Token") != "" || nd.body != wantND {
		t.Errorf("ndjson after an ended token: %q %v", nd.body, nd.header)
	}

	// A running try: the answer carries a token, which reads on from the
	// lines already read.
	if _, _, err := ts.store.ForceTaskStates("v2pair", "r1", TaskRunning, time.Now().UTC(), func(*DAG) ([]string, error) { return []string{"hello"}, nil }); err != nil {
		t.Fatal(err)
	}
	first := decodeJSON[struct {
		Content []map[string]any `json:"content"`
		Token   *string          `json:"continuation_token"`
	}](t, ts.v2(t, "GET", path, "", 200).body)
	if first.Token == nil || len(first.Content) != 3 {
		t.Fatalf("running try's log %+v", first)
	}
	next := ts.v2(t, "GET", path+"?token="+*first.Token, "", 200)
	if strings.Contains(next.body, "hello from airlite") {
		t.Errorf("continued log repeats the lines read: %s", next.body)
	}
	full := ts.v2(t, "GET", path+"?full_content=true&token="+*first.Token, "", 200)
	if !strings.Contains(full.body, "hello from airlite") {
		t.Errorf("full_content log: %s", full.body)
	}
	// NDJSON reads from the start whatever the token's position
	// (read_log_stream drops log_pos).
	if nd := ts.v2(t, "GET", path+"?token="+*first.Token, "", 200, "Accept", "application/x-ndjson"); !strings.Contains(nd.body, "hello from airlite") {
		t.Errorf("ndjson with a token: %s", nd.body)
	}
}

// TestAPIv2_XComCRUD checks create_xcom_entry, update_xcom_entry,
// delete_xcom_entry and get_xcom_entries' filters (test_xcom.py).
func TestAPIv2_XComCRUD(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	const xcoms = "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries"
	created := ts.v2(t, "POST", xcoms, `{"key":"test_xcom_key","value":{"key":"value","é":[1,2.5]}}`, 201)
	c := decodeJSON[map[string]any](t, created.body)
	if c["value"] != `{"key": "value", "\u00e9": [1, 2.5]}` || c["map_index"] != -1.0 || c["run_id"] != "r1" {
		t.Errorf("created %s", created.body)
	}
	if keys := jsonKeys(t, created.body); !slices.Equal(keys, []string{"key", "timestamp", "logical_date", "map_index",
		"task_id", "dag_id", "run_id", "dag_display_name", "task_display_name", "run_after", "value"}) {
		t.Errorf("xcom fields %v", keys)
	}
	for _, tc := range []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
	}{
		{"exists", "POST", xcoms, `{"key":"test_xcom_key","value":1}`, 409,
			"{\"detail\":\"The XCom with key: `test_xcom_key` with mentioned task instance already exists.\"}"},
		{"dag not found", "POST", "/dags/invalid-dag-id/dagRuns/r1/taskInstances/hello/xcomEntries", `{"key":"k","value":1}`, 404,
			"{\"detail\":\"The Dag with ID: `invalid-dag-id` was not found\"}"},
		{"task not found", "POST", "/dags/v2pair/dagRuns/r1/taskInstances/invalid-task-id/xcomEntries", `{"key":"k","value":1}`, 404,
			"{\"detail\":\"Task with ID: `invalid-task-id` not found in dag: `v2pair`\"}"},
		{"run not found", "POST", "/dags/v2pair/dagRuns/invalid-dag-run-id/taskInstances/hello/xcomEntries", `{"key":"k","value":1}`, 404,
			"{\"detail\":\"Dag Run with ID: `invalid-dag-run-id` not found for dag: `v2pair`\"}"},
		{"missing value", "POST", xcoms, `{"key":"k"}`, 422,
			`{"detail":[{"type":"missing","loc":["body","value"],"msg":"Field required","input":{"key":"k"}}]}`},
		{"get missing", "GET", xcoms + "/nope", "", 404, "{\"detail\":\"XCom entry with key: `nope` not found\"}"},
		{"get below -1", "GET", xcoms + "/nope?map_index=-2", "", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["query","map_index"],"msg":"Input should be greater than or equal to -1","input":"-2","ctx":{"ge":-1}}]}`},
		{"patch missing", "PATCH", xcoms + "/nope", `{"value":"new_value","map_index":-1}`, 404,
			"{\"detail\":\"The XCom with key: `nope` with mentioned task instance doesn't exist.\"}"},
		{"delete missing", "DELETE", xcoms + "/nope", "", 404,
			"{\"detail\":\"The XCom with key: `nope` with mentioned task instance doesn't exist.\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, tc.method, apiV2Prefix+tc.path, tc.body)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("%s %s = %d %s\nwant %d %s", tc.method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	// 3.2.1's update_xcom_entry stores json.dumps of the value once, as
	// create_xcom_entry does (c57fba0e routes/public/xcom.py:351, since
	// apache/airflow#58921 took out its second dumps): the answer and a
	// native read are json.dumps' text (test_xcom.py:815-816), a
	// deserialized read the value.
	patched := ts.v2(t, "PATCH", xcoms+"/test_xcom_key", `{"value":"new_value"}`, 200)
	if v := decodeJSON[map[string]any](t, patched.body)["value"]; v != `"new_value"` {
		t.Errorf("patched value %v", v)
	}
	for query, want := range map[string]string{"": `"new_value"`, "?deserialize=true": `new_value`} {
		got := ts.v2(t, "GET", xcoms+"/test_xcom_key"+query, "", 200)
		if v := decodeJSON[map[string]any](t, got.body)["value"]; v != want {
			t.Errorf("patched value read with %q: %v, want %s", query, v, want)
		}
	}
	for _, tc := range []struct{ value, want string }{
		{`{"b":[1,null]}`, `{"b": [1, null]}`},
		{`{"nested": {"key": "value"}, "list": [1, 2, 3]}`, `{"nested": {"key": "value"}, "list": [1, 2, 3]}`},
		{`999`, `999`},
		{`["updated", "list", "values"]`, `["updated", "list", "values"]`},
	} {
		patched = ts.v2(t, "PATCH", xcoms+"/test_xcom_key", `{"value":`+tc.value+`}`, 200)
		if v := decodeJSON[map[string]any](t, patched.body)["value"]; v != tc.want {
			t.Errorf("patched value %s: %v, want %s", tc.value, v, tc.want)
		}
	}
	str := ts.v2(t, "GET", xcoms+"/return_value?deserialize=true&stringify=true", "", 200)
	if v := decodeJSON[map[string]any](t, str.body)["value"]; v != "hello from airlite" {
		t.Errorf("stringified %v", v)
	}

	// Listing: "~" everywhere, filters, Airflow's order, pagination.
	type list struct {
		Entries []struct {
			Key    string `json:"key"`
			TaskID string `json:"task_id"`
		} `json:"xcom_entries"`
		Total int `json:"total_entries"`
	}
	all := decodeJSON[list](t, ts.v2(t, "GET", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries", "", 200).body)
	var got []string
	for _, e := range all.Entries {
		got = append(got, e.TaskID+"/"+e.Key)
	}
	if want := []string{"after/return_value", "hello/return_value", "hello/test_xcom_key"}; all.Total != 3 || !slices.Equal(got, want) {
		t.Errorf("all entries %v (%d), want %v", got, all.Total, want)
	}
	for query, want := range map[string]int{
		"xcom_key_pattern=test": 1, "xcom_key=return_value": 2, "map_index=-1": 3, "map_index_filter=0": 0,
		"task_id_pattern=hel": 2, "run_id_pattern=r1": 3, "dag_display_name_pattern=nope": 0,
		"logical_date_gte=2024-02-01T00:00:00Z": 3, "run_after_gt=2024-02-01T00:00:00Z": 0, "limit=1&offset=2": 3,
	} {
		if got := decodeJSON[list](t, ts.v2(t, "GET", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?"+query, "", 200).body); got.Total != want {
			t.Errorf("%s: %d entries, want %d", query, got.Total, want)
		}
	}
	if res := ts.v2(t, "DELETE", xcoms+"/test_xcom_key", "", 204); res.body != "" {
		t.Errorf("delete answered %q", res.body)
	}
	ts.v2(t, "GET", xcoms+"/test_xcom_key", "", 404)
}

// TestAPIv2_TaskInstancesOfARunWithoutLogicalDate reads the task
// instances of a run triggered with no logical date (Airflow 3's
// logical_date null): null in their answers, cleared by its run_id alone,
// and refused a clear reaching the runs before or after it.
func TestAPIv2_TaskInstancesOfARunWithoutLogicalDate(t *testing.T) {
	t.Parallel()
	ts, sched := newV2RunServer(t)
	got, err := ts.srv.ops.trigger(triggerRequest{dagID: "v2pair", runID: "nodate", noDate: true})
	if err != nil {
		t.Fatal(err)
	}
	settleTicks(t, sched, time.Now)
	finishedRun(t, ts.store, "v2pair", "nodate")
	ti := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/v2pair/dagRuns/nodate/taskInstances/hello", "", 200).body)
	if ti["logical_date"] != nil || ti["run_after"] != v2Time(got.run.After()) || ti["state"] != "success" {
		t.Errorf("task instance %v", ti)
	}
	// Not in a logical date range; in a run_after one.
	if p := decodeJSON[v2TICollectionT](t, ts.v2(t, "GET", "/dags/~/dagRuns/~/taskInstances?logical_date_gte=2000-01-01T00:00:00Z", "", 200).body); p.TotalEntries != 2 {
		t.Errorf("logical date range kept %d", p.TotalEntries)
	}
	cleared := decodeJSON[v2TICollectionT](t, ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances",
		`{"dag_run_id":"nodate","only_failed":false}`, 200).body)
	if cleared.TotalEntries != 2 || cleared.TaskInstances[0]["dag_run_id"] != "nodate" || cleared.TaskInstances[1]["dag_run_id"] != "nodate" {
		t.Errorf("clear by run id %+v", cleared)
	}
	res := ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"nodate","include_past":true}`, 400)
	if res.body != `{"detail":"Cannot use include_past or include_future with no logical_date(e.g. manually or asset-triggered)."}` {
		t.Errorf("past of a run without a date: %s", res.body)
	}
}

// TestAPIv2_ClearPreventRunningTask refuses, with Airflow's 409, a clear
// with prevent_running_task that reaches a running task instance, and
// clears nothing.
func TestAPIv2_ClearPreventRunningTask(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	if _, _, err := ts.store.ForceTaskStates("v2pair", "r1", TaskRunning, time.Now().UTC(), func(*DAG) ([]string, error) { return []string{"after"}, nil }); err != nil {
		t.Fatal(err)
	}
	res := ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances", `{"dag_run_id":"r1","only_failed":false,"dry_run":false,"prevent_running_task":true}`, 409)
	if res.body != `{"detail":"AirflowClearRunningTaskException: Disable 'prevent_running_task' to proceed, or wait until the task is not running, queued, or scheduled state."}` {
		t.Errorf("409 %s", res.body)
	}
	if ti := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/v2pair/dagRuns/r1/taskInstances/hello", "", 200).body); ti["state"] != "success" {
		t.Errorf("hello was cleared: %v", ti["state"])
	}
}

// TestAPIv2_PatchResumesDownstream marks a failed task success: its
// downstream task, upstream_failed, is cleared and the run queued again,
// so the scheduler runs it (Airflow 3's DAG.set_task_instance_state).
func TestAPIv2_PatchResumesDownstream(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition3, func(o *schedulerOptions) {
		tickDriven(o)
		o.RunTask = func(_ context.Context, job taskJob) taskOutcome {
			if job.key.taskID == "hello" {
				return taskOutcome{state: TaskFailed, output: "no\n"}
			}
			return taskOutcome{state: TaskSuccess, output: "yes\n"}
		}
	}, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "r1", "2024-02-01T00:00:00Z")
	settleTicks(t, sched, time.Now)
	const tis = "/dags/v2pair/dagRuns/r1/taskInstances"
	if st := decodeJSON[map[string]any](t, ts.v2(t, "GET", tis+"/after", "", 200).body)["state"]; st != "upstream_failed" {
		t.Fatalf("after is %v", st)
	}
	patched := decodeJSON[v2TICollectionT](t, ts.v2(t, "PATCH", tis+"/hello", `{"new_state":"success"}`, 200).body)
	if patched.TotalEntries != 1 || patched.TaskInstances[0]["state"] != "success" {
		t.Errorf("patched %+v", patched)
	}
	if st := decodeJSON[map[string]any](t, ts.v2(t, "GET", tis+"/after", "", 200).body)["state"]; st != nil {
		t.Errorf("after not cleared: %v", st)
	}
	settleTicks(t, sched, time.Now)
	finishedRun(t, ts.store, "v2pair", "r1")
	if st := decodeJSON[map[string]any](t, ts.v2(t, "GET", tis+"/after", "", 200).body)["state"]; st != "success" {
		t.Errorf("after ran to %v", st)
	}
}

// TestAPIv2_DependenciesSpeakOfTheLogicalDate checks the dependencies of
// a task instance waiting in a queued run dated in the future, in Airflow
// 3's words (ti_deps: the "Logical Date" dep).
func TestAPIv2_DependenciesSpeakOfTheLogicalDate(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "future", "2099-01-01T00:00:00Z")
	res := ts.v2(t, "GET", "/dags/v2pair/dagRuns/future/taskInstances/hello/dependencies", "", 200)
	deps := decodeJSON[struct {
		Dependencies []struct{ Name, Reason string } `json:"dependencies"`
	}](t, res.body).Dependencies
	var names []string
	for _, d := range deps {
		names = append(names, d.Name)
		if d.Name == "Logical Date" && !strings.HasPrefix(d.Reason, "Logical date 2099-01-01T00:00:00+00:00 is in the future (the current date is ") {
			t.Errorf("reason %q", d.Reason)
		}
	}
	if want := []string{"Dagrun Running", "Logical Date", "Task Instance State"}; !slices.Equal(names, want) {
		t.Errorf("deps %v, want %v: %s", names, want, res.body)
	}
}

// BenchmarkV2TaskInstance reads one task instance of a run through
// /api/v2, twin of BenchmarkV1TaskInstance (each against a bare server
// answering the same bytes); and the run's task instances listed.
func BenchmarkV2TaskInstance(b *testing.B) {
	store, dags := benchStoreWith(b)
	addTriggeredRun(b, store, "example_bash_operator", benchDate)
	ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
	b.Cleanup(ts.Close)
	runID := "manual__" + benchDatePath
	for _, c := range []struct{ name, path string }{
		{"v2", apiV2Prefix + "/dags/example_bash_operator/dagRuns/" + runID + "/taskInstances/runme_0"},
		{"v2_list", apiV2Prefix + "/dags/example_bash_operator/dagRuns/" + runID + "/taskInstances"},
	} {
		b.Run(c.name, func(b *testing.B) { pairURL(b, ts, c.path) })
	}
}

// TestAPIv2_TaskInstanceListNullsAndTies: get_task_instances' SortParam
// (NULLs after every value in both directions, ties by id in the first
// key's direction) and its start and end ranges, which count a task
// instance not started or not ended as now (COALESCE(date, now())).
func TestAPIv2_TaskInstanceListNullsAndTies(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "r1", "2024-02-01T00:00:00Z")
	base := "/dags/v2pair/dagRuns/r1/taskInstances"
	ts.v2(t, "PATCH", base+"/hello", `{"new_state": "success"}`, 200)
	type page struct {
		TaskInstances []struct {
			TaskID string `json:"task_id"`
		} `json:"task_instances"`
	}
	var ids []string // the task instances' ids, in the order they were made
	for _, tc := range []struct{ query, want string }{
		// hello, marked success, has a state and an end date; after has
		// neither: NULL below every value (SQLite's order), first
		// ascending, last descending.
		{"order_by=end_date", "after hello"},
		{"order_by=-end_date", "hello after"},
		{"order_by=state", "after hello"},
		{"order_by=-state", "hello after"},
		{"order_by=-end_date&order_by=-state", "hello after"},
		// Neither has a start date: both count as testNow.
		{"start_date_gte=2024-05-01T00:00:00Z", "hello after"},
		{"start_date_gte=2024-05-01T00:00:00Z&order_by=-end_date", "hello after"},
		{"end_date_lt=2024-05-01T00:00:00Z", ""},
		{"start_date_gt=2024-05-02T00:00:00Z", ""},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := ts.v2(t, "GET", base+"?"+tc.query, "", 200)
			var got []string
			for _, ti := range decodeJSON[page](t, res.body).TaskInstances {
				got = append(got, ti.TaskID)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("= %v, want %s", got, tc.want)
			}
		})
	}
	// map_index ties everywhere: the ids decide, in map_index's direction.
	res := ts.v2(t, "GET", base+"?order_by=map_index", "", 200)
	for _, ti := range decodeJSON[struct {
		TaskInstances []struct {
			ID string `json:"id"`
		} `json:"task_instances"`
	}](t, res.body).TaskInstances {
		ids = append(ids, ti.ID)
	}
	if !slices.IsSorted(ids) {
		t.Errorf("order_by=map_index: ids %v, want ascending", ids)
	}
	res = ts.v2(t, "GET", base+"?order_by=-map_index", "", 200)
	var desc []string
	for _, ti := range decodeJSON[struct {
		TaskInstances []struct {
			ID string `json:"id"`
		} `json:"task_instances"`
	}](t, res.body).TaskInstances {
		desc = append(desc, ti.ID)
	}
	slices.Reverse(desc)
	if !slices.Equal(desc, ids) {
		t.Errorf("order_by=-map_index: ids %v, want %v reversed", desc, ids)
	}
}

// TestAPIv2_XComEmptyKey: create_xcom_entry checks no key (XComCreateBody's
// key is a plain str), so an empty one is stored like any other: 201,
// listed, picked by xcom_key=, and a second one is the 409 of an
// existing key.
func TestAPIv2_XComEmptyKey(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "r1", "2024-02-01T00:00:00Z")
	const xcoms = "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries"
	created := ts.v2(t, "POST", xcoms, `{"key":"","value":1}`, 201)
	if c := decodeJSON[map[string]any](t, created.body); c["key"] != "" || c["value"] != "1" {
		t.Errorf("created %s", created.body)
	}
	ts.v2(t, "POST", xcoms, `{"key":"","value":2}`, 409)
	ts.v2(t, "POST", xcoms, `{"key":"a","value":3}`, 201)
	list := ts.v2(t, "GET", xcoms, "", 200)
	if !strings.Contains(list.body, `"total_entries":2`) || !strings.Contains(list.body, `"key":""`) {
		t.Errorf("list %s", list.body)
	}
	// xcom_key="" is a key like any other (get_xcom_entries filters on
	// xcom_key is not None): in one run, and across runs.
	for _, path := range []string{xcoms, "/dags/v2pair/dagRuns/~/taskInstances/~/xcomEntries"} {
		list := ts.v2(t, "GET", path+"?xcom_key=", "", 200)
		if !strings.Contains(list.body, `"total_entries":1`) || !strings.Contains(list.body, `"key":""`) {
			t.Errorf("%s?xcom_key=: %s", path, list.body)
		}
	}
}

// TestAPIv2_XComReservedKeys: 3.2.1's XComCreateBody refuses a value
// holding serde's keys in any dict, at any depth (pydantic's value_error,
// the first such dict named by its path); a string is not looked into,
// and PATCH, whose body has no such validator before 3.2.2, stores them.
func TestAPIv2_XComReservedKeys(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "r1", "2024-02-01T00:00:00Z")
	const xcoms = "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries"
	refused := func(value, path, keys string) string {
		return `{"detail":[{"type":"value_error","loc":["body","value"],"msg":"Value error, XCom ` + path +
			` contains reserved serialization keys: ` + keys + `. These keys are reserved for internal use.","input":` +
			value + `,"ctx":{"error":{}}}]}`
	}
	tuple := `{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,2]}`
	for _, tc := range []struct {
		name, value string
		wantStatus  int
		wantBody    string
	}{
		{"serde's form", tuple, 422, refused(tuple, "value", "__classname__, __data__, __version__")},
		{"nested in a list in a dict", `{"a":[1,{"b":{"__var":1,"__type":"dict"}}]}`, 422,
			refused(`{"a":[1,{"b":{"__var":1,"__type":"dict"}}]}`, "value.a[1].b", "__type, __var")},
		{"the outer dict first", `{"__id__":1,"x":{"__cache__":2}}`, 422, refused(`{"__id__":1,"x":{"__cache__":2}}`, "value", "__id__")},
		{"in a top-level list", `[{"__source":"s"}]`, 422, refused(`[{"__source":"s"}]`, "value[0]", "__source")},
		{"other dunder keys", `{"__other__":1,"_classname":2}`, 201, ""},
		{"as a JSON string", `"{\"__classname__\": \"x\"}"`, 201, ""},
		{"null", `null`, 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, "POST", apiV2Prefix+xcoms, `{"key":"`+tc.name+`","value":`+tc.value+`}`)
			if res.status != tc.wantStatus || (tc.wantBody != "" && res.body != tc.wantBody) {
				t.Errorf("POST %s = %d %s\nwant %d %s", tc.value, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	// Refused before the route looks for the DAG, as FastAPI validates the
	// body first.
	if res := ts.do(t, "POST", apiV2Prefix+"/dags/nodag/dagRuns/r1/taskInstances/hello/xcomEntries", `{"key":"k","value":`+tuple+`}`); res.status != 422 {
		t.Errorf("reserved keys for a missing DAG: %d %s, want 422", res.status, res.body)
	}
	ts.v2(t, "POST", xcoms, `{"key":"patched","value":1}`, 201)
	patched := ts.v2(t, "PATCH", xcoms+"/patched", `{"value":`+tuple+`}`, 200)
	if v := decodeJSON[map[string]any](t, patched.body)["value"]; v != `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, 2]}` {
		t.Errorf("patched value %v", v)
	}
}

// TestAPIv2_ClearReachesNoUndatedRunByDate: DAG.clear compares the
// runs' logical dates with its bounds (DagRun.logical_date <= end_date),
// so a run without a logical date (NULL) is in no date range; a clear
// with no bound at all reaches it.
func TestAPIv2_ClearReachesNoUndatedRunByDate(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2PairDAG))
	v2TriggerAt(t, ts, "v2pair", "dated", "2024-02-01T00:00:00Z")
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "v2pair", runID: "nodate", noDate: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"dag_run_id":"dated","include_past":true}`, "dated dated"},
		{`{"end_date":"2030-01-01T00:00:00Z"}`, "dated dated"},
		{`{"start_date":"2000-01-01T00:00:00Z"}`, "dated dated"},
		{`{}`, "dated dated nodate nodate"},
	} {
		body := strings.Replace(tc.body, "{", `{"dry_run":true,"only_failed":false,`, 1)
		body = strings.Replace(body, ",}", "}", 1)
		res := ts.v2(t, "POST", "/dags/v2pair/clearTaskInstances", body, 200)
		var runs []string
		for _, ti := range decodeJSON[v2TICollectionT](t, res.body).TaskInstances {
			runs = append(runs, ti["dag_run_id"].(string))
		}
		slices.Sort(runs)
		if got := strings.Join(runs, " "); got != tc.want {
			t.Errorf("clear %s reached %q, want %q", tc.body, got, tc.want)
		}
	}
}

// TestAPIv2_XComKeyWithSlash: the entry routes take the rest of the
// path as the key ({xcom_key:path}), so a key with "/" is read, patched
// and deleted under its own path (routes/public/xcom.py:64,308,357 of the
// 3.2.0-era main, Phinhas214/airflow c57fba0e; apache/airflow#58344).
func TestAPIv2_XComKeyWithSlash(t *testing.T) {
	t.Parallel()
	ts, _ := newV2RunServer(t)
	const xcoms = "/dags/v2pair/dagRuns/r1/taskInstances/hello/xcomEntries"
	ts.v2(t, "POST", xcoms, `{"key":"a/b/c","value":1}`, 201)
	got := decodeJSON[map[string]any](t, ts.v2(t, "GET", xcoms+"/a/b/c", "", 200).body)
	if got["key"] != "a/b/c" || got["value"] != "1" {
		t.Errorf("GET a/b/c = %v", got)
	}
	ts.v2(t, "GET", xcoms+"/a/b", "", 404)
	patched := decodeJSON[map[string]any](t, ts.v2(t, "PATCH", xcoms+"/a/b/c", `{"value":2}`, 200).body)
	if patched["key"] != "a/b/c" {
		t.Errorf("PATCH a/b/c = %v", patched)
	}
	ts.v2(t, "DELETE", xcoms+"/a/b/c", "", 204)
	res := ts.do(t, "GET", apiV2Prefix+xcoms+"/a/b/c", "")
	if want := "{\"detail\":\"XCom entry with key: `a/b/c` not found\"}"; res.status != 404 || res.body != want {
		t.Errorf("GET after delete = %d %s, want 404 %s", res.status, res.body, want)
	}
}
