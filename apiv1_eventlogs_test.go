package main

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The times of test_event_log_endpoint.py's setup_attrs (default_time and
// default_time_2).
var (
	eventTime1 = time.Date(2020, 6, 10, 20, 0, 0, 0, time.UTC)
	eventTime2 = time.Date(2020, 6, 11, 7, 0, 0, 0, time.UTC)
)

// tiEvent is the Airflow test's create_log_model: Log(event,
// task_instance=ti) of TEST_DAG_ID's task TEST_TASK_ID in run
// TEST_RUN_ID at default_time, not run yet (try 0), owner airflow.
func tiEvent(event string, when time.Time, change ...func(*EventLog)) EventLog {
	owner, mapIndex, try, date := "airflow", -1, 0, eventTime1
	e := EventLog{When: when, Event: event, DagID: "TEST_DAG_ID", TaskID: "TEST_TASK_ID", RunID: "TEST_RUN_ID",
		MapIndex: &mapIndex, TryNumber: &try, ExecutionDate: &date, Owner: &owner}
	for _, c := range change {
		c(&e)
	}
	return e
}

// cliEvent is the Airflow test's log_model_3, a row with no task
// instance: Log(event="cli_scheduler", owner="root", extra=…).
func cliEvent() EventLog {
	owner, extra := "root", `{"host_name": "e24b454f002a"}`
	return EventLog{When: eventTime2, Event: "cli_scheduler", Owner: &owner, Extra: &extra}
}

// withEventLogs stores events, in order (their ids 1, 2, …).
func withEventLogs(events ...EventLog) func(t *testing.T, ts *testServer) {
	return func(t *testing.T, ts *testServer) {
		t.Helper()
		for _, e := range events {
			if err := ts.store.AppendEventLog(e); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// numberedEvents are the pagination tests' TEST_EVENT_1 … TEST_EVENT_n.
func numberedEvents(n int) []EventLog {
	out := make([]EventLog, n)
	for i := range out {
		out[i] = tiEvent(fmt.Sprintf("TEST_EVENT_%d", i+1), eventTime1)
	}
	return out
}

// tiEventJSON is tiEvent's answer.
func tiEventJSON(id int, event, when string) string {
	return fmt.Sprintf(`{"event_log_id": %d, "event": %q, "dag_id": "TEST_DAG_ID", "task_id": "TEST_TASK_ID",
		"run_id": "TEST_RUN_ID", "map_index": -1, "try_number": 0, "execution_date": "2020-06-10T20:00:00+00:00",
		"owner": "airflow", "when": %q, "extra": null}`, id, event, when)
}

const cliEventJSON = `{"event_log_id": 3, "event": "cli_scheduler", "dag_id": null, "task_id": null, "run_id": null,
	"map_index": null, "try_number": null, "execution_date": null, "owner": "root",
	"when": "2020-06-11T07:00:00+00:00", "extra": "{\"host_name\": \"e24b454f002a\"}"}`

// wantEvents checks the events a list answered, by name and in order,
// and the total.
func wantEvents(total int, events ...string) func(t *testing.T, ts *testServer, res response) {
	return func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		got := decodeJSON[struct {
			EventLogs []struct {
				Event string `json:"event"`
			} `json:"event_logs"`
			Total int `json:"total_entries"`
		}](t, res.body)
		var names []string
		for _, e := range got.EventLogs {
			names = append(names, e.Event)
		}
		if got.Total != total || strings.Join(names, ",") != strings.Join(events, ",") {
			t.Errorf("events %v of %d, want %v of %d", names, got.Total, events, total)
		}
	}
}

// TestServerV1_EventLogs follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_event_log_endpoint.py and
// airflow/api_connexion/endpoints/event_log_endpoint.py.
func TestServerV1_EventLogs(t *testing.T) {
	t.Parallel()
	one := withEventLogs(tiEvent("TEST_EVENT", eventTime1))
	three := withEventLogs(tiEvent("TEST_EVENT_1", eventTime1), tiEvent("TEST_EVENT_2", eventTime2), cliEvent())
	attrs := withEventLogs(
		tiEvent("TEST_EVENT_1", eventTime1, func(e *EventLog) {
			owner := "TEST_OWNER_1"
			e.DagID, e.TaskID, e.Owner = "TEST_DAG_ID_1", "TEST_TASK_ID_1", &owner
		}),
		tiEvent("TEST_EVENT_2", eventTime2, func(e *EventLog) {
			owner := "TEST_OWNER_2"
			e.DagID, e.TaskID, e.Owner = "TEST_DAG_ID_2", "TEST_TASK_ID_2", &owner
		}))
	runs := withEventLogs(tiEvent("TEST_EVENT_1", eventTime1, func(e *EventLog) { e.RunID = "run_1" }),
		tiEvent("TEST_EVENT_2", eventTime1, func(e *EventLog) { e.RunID = "run_2" }),
		tiEvent("TEST_EVENT_3", eventTime1, func(e *EventLog) { e.RunID = "run_2" }))
	named := withEventLogs(tiEvent("TEST_EVENT_1", eventTime1), tiEvent("TEST_EVENT_2", eventTime1), tiEvent("cli_scheduler", eventTime1))
	tries := withEventLogs(tiEvent("try_1", eventTime1, func(e *EventLog) { one := 1; e.TryNumber = &one }),
		tiEvent("try_2", eventTime1, func(e *EventLog) { two := 2; e.TryNumber = &two }), cliEvent())
	ten := withEventLogs(numberedEvents(10)...)
	twoHundred := withEventLogs(numberedEvents(200)...)
	cases := []v1Case{
		// :129 test_should_respond_200
		{name: "get", path: "/eventLogs/1", setup: one, wantStatus: 200,
			wantJSON: tiEventJSON(1, "TEST_EVENT", "2020-06-10T20:00:00+00:00")},
		// :151 test_should_respond_404 (event_log_endpoint.py:49)
		{name: "get: unknown id", path: "/eventLogs/1", wantStatus: 404,
			wantProblem: &wantProblem{title: "Event Log not found", detail: nil}},
		{name: "get: an id past int64", path: "/eventLogs/99999999999999999999", wantStatus: 404,
			wantProblem: &wantProblem{title: "Event Log not found", detail: nil}},
		// connexion routes an integer path parameter through Werkzeug's int
		// converter: anything but digits is no route (§7.1).
		{name: "get: an id that is no integer", path: "/eventLogs/x", wantStatus: 404,
			wantProblem: &wantProblem{title: "Not Found", detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.", typ: "about:blank"}},
		// :161 test_should_raises_401_unauthenticated
		{name: "get: unauthenticated", path: "/eventLogs/1", setup: one, options: []testOption{withAuth(authBasic, "u:p\n")},
			wantStatus: 401, wantProblem: &wantProblem{title: "Unauthorized", detail: nil}},
		// :188 test_should_respond_200
		{name: "list", path: "/eventLogs", setup: three, wantStatus: 200,
			wantJSON: `{"event_logs": [` + tiEventJSON(1, "TEST_EVENT_1", "2020-06-10T20:00:00+00:00") + `, ` +
				tiEventJSON(2, "TEST_EVENT_2", "2020-06-11T07:00:00+00:00") + `, ` + cliEventJSON + `], "total_entries": 3}`},
		{name: "list: none", path: "/eventLogs", wantStatus: 200, wantJSON: `{"event_logs": [], "total_entries": 0}`},
		// :243 test_order_eventlogs_by_owner
		{name: "list: order_by -owner", path: "/eventLogs?order_by=-owner",
			setup: withEventLogs(tiEvent("TEST_EVENT_1", eventTime1),
				tiEvent("TEST_EVENT_2", eventTime2, func(e *EventLog) { zsh := "zsh"; e.Owner = &zsh }), cliEvent()),
			wantStatus: 200, check: wantEvents(3, "TEST_EVENT_2", "cli_scheduler", "TEST_EVENT_1")},
		// NULLs sort as PostgreSQL sorts them: last ascending, first descending.
		{name: "list: order_by dag_id, null last", path: "/eventLogs?order_by=dag_id", setup: withEventLogs(cliEvent(), tiEvent("a", eventTime1)),
			wantStatus: 200, check: wantEvents(2, "a", "cli_scheduler")},
		{name: "list: order_by -extra, null first", path: "/eventLogs?order_by=-extra", setup: withEventLogs(cliEvent(), tiEvent("a", eventTime1)),
			wantStatus: 200, check: wantEvents(2, "a", "cli_scheduler")},
		{name: "list: order_by when", path: "/eventLogs?order_by=-when", setup: three, wantStatus: 200,
			check: wantEvents(3, "TEST_EVENT_2", "cli_scheduler", "TEST_EVENT_1")},
		// :299 test_should_raises_401_unauthenticated
		{name: "list: unauthenticated", path: "/eventLogs", options: []testOption{withAuth(authBasic, "u:p\n")},
			wantStatus: 401, wantProblem: &wantProblem{title: "Unauthorized", detail: nil}},
		// :304 test_should_filter_eventlogs_by_allowed_attributes
		{name: "filter: dag_id", path: "/eventLogs?dag_id=TEST_DAG_ID_1", setup: attrs, wantStatus: 200, check: wantEvents(1, "TEST_EVENT_1")},
		{name: "filter: task_id", path: "/eventLogs?task_id=TEST_TASK_ID_1", setup: attrs, wantStatus: 200, check: wantEvents(1, "TEST_EVENT_1")},
		{name: "filter: owner", path: "/eventLogs?owner=TEST_OWNER_1", setup: attrs, wantStatus: 200, check: wantEvents(1, "TEST_EVENT_1")},
		{name: "filter: event", path: "/eventLogs?event=TEST_EVENT_1", setup: attrs, wantStatus: 200, check: wantEvents(1, "TEST_EVENT_1")},
		// :331 test_should_filter_eventlogs_by_when (strictly before, after)
		{name: "filter: before", path: "/eventLogs?before=2020-06-10T20%3A00%3A01%2B00%3A00", setup: attrs, wantStatus: 200,
			check: wantEvents(1, "TEST_EVENT_1")},
		{name: "filter: after", path: "/eventLogs?after=2020-06-10T20%3A00%3A01%2B00%3A00", setup: attrs, wantStatus: 200,
			check: wantEvents(1, "TEST_EVENT_2")},
		{name: "filter: before, strictly", path: "/eventLogs?before=2020-06-10T20:00:00Z", setup: attrs, wantStatus: 200, check: wantEvents(0)},
		{name: "filter: before not a date-time", path: "/eventLogs?before=yesterday", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'yesterday' is not a 'date-time'\n\nFailed validating 'format' in schema:\n    {'type': 'string', 'format': 'date-time'}\n\nOn instance:\n    'yesterday'"}},
		// :349 test_should_filter_eventlogs_by_run_id
		{name: "filter: run_id", path: "/eventLogs?run_id=run_2", setup: runs, wantStatus: 200, check: wantEvents(2, "TEST_EVENT_2", "TEST_EVENT_3")},
		// :369 and :382: included_events, excluded_events
		{name: "filter: included_events", path: "/eventLogs?included_events=TEST_EVENT_1,TEST_EVENT_2", setup: named,
			wantStatus: 200, check: wantEvents(2, "TEST_EVENT_1", "TEST_EVENT_2")},
		{name: "filter: excluded_events", path: "/eventLogs?excluded_events=TEST_EVENT_1,TEST_EVENT_2", setup: named,
			wantStatus: 200, check: wantEvents(1, "cli_scheduler")},
		// event_log_endpoint.py:95-98: "if map_index:", "if try_number:"
		// filter on a value that is not 0; a row without one never matches.
		{name: "filter: try_number", path: "/eventLogs?try_number=2", setup: tries, wantStatus: 200, check: wantEvents(1, "try_2")},
		{name: "filter: try_number 0 filters nothing", path: "/eventLogs?try_number=0", setup: tries, wantStatus: 200,
			check: wantEvents(3, "try_1", "try_2", "cli_scheduler")},
		{name: "filter: map_index -1", path: "/eventLogs?map_index=-1", setup: tries, wantStatus: 200, check: wantEvents(2, "try_1", "try_2")},
		{name: "filter: map_index not an integer", path: "/eventLogs?map_index=x", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Wrong type, expected 'integer' for query parameter 'map_index'"}},
		{name: "filter: unknown parameter", path: "/eventLogs?dag_ids=x", wantStatus: 400,
			wantProblem: &wantProblem{title: nil, detail: "Extra query parameter(s) dag_ids not in spec"}},
		// :452 test_handle_limit_and_offset
		{name: "page: limit 1", path: "/eventLogs?limit=1", setup: ten, wantStatus: 200, check: wantEvents(10, "TEST_EVENT_1")},
		{name: "page: limit 2", path: "/eventLogs?limit=2", setup: ten, wantStatus: 200, check: wantEvents(10, "TEST_EVENT_1", "TEST_EVENT_2")},
		{name: "page: offset 5", path: "/eventLogs?offset=5", setup: ten, wantStatus: 200,
			check: wantEvents(10, "TEST_EVENT_6", "TEST_EVENT_7", "TEST_EVENT_8", "TEST_EVENT_9", "TEST_EVENT_10")},
		{name: "page: limit 1 offset 5", path: "/eventLogs?limit=1&offset=5", setup: ten, wantStatus: 200, check: wantEvents(10, "TEST_EVENT_6")},
		{name: "page: limit 2 offset 2", path: "/eventLogs?limit=2&offset=2", setup: ten, wantStatus: 200,
			check: wantEvents(10, "TEST_EVENT_3", "TEST_EVENT_4")},
		// :464 test_should_respect_page_size_limit_default
		{name: "page: default limit 100", path: "/eventLogs", setup: twoHundred, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				got := decodeJSON[map[string]any](t, res.body)
				if n := len(got["event_logs"].([]any)); n != 100 || got["total_entries"] != float64(200) {
					t.Errorf("%d events of %v, want 100 of 200", n, got["total_entries"])
				}
			}},
		// :488 test_should_return_conf_max_if_req_max_above_conf (the maximum is 100 here)
		{name: "page: limit above the maximum", path: "/eventLogs?limit=180&offset=99", setup: twoHundred, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				if n := len(decodeJSON[map[string]any](t, res.body)["event_logs"].([]any)); n != 100 {
					t.Errorf("%d events, want 100", n)
				}
			}},
		{name: "page: negative limit", path: "/eventLogs?limit=-1", wantStatus: 400,
			wantProblem: &wantProblem{title: "Page limit must be a positive integer", detail: nil}},
		// :475 test_should_raise_400_for_invalid_order_by_name
		{name: "page: order_by not allowed", path: "/eventLogs?order_by=invalid", setup: ten, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}},
		{name: "page: order_by map_index not allowed", path: "/eventLogs?order_by=map_index", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'map_index' is disallowed or the attribute does not exist on the model"}},
	}
	runV1Cases(t, cases)
}

// wantAction is the event log row an action must leave; nil fields are
// NULL.
type wantAction struct {
	event, owner         string
	dagID, taskID, runID string
	extra                string
}

// TestServerV1_ActionsAreLogged checks the rows Airflow 2.10.3's
// action_logging (airflow/www/decorators.py:80-157) writes for the stable
// API's operations: "api." and the function's name (or the resource's
// event, airflow/utils/log/action_logger.py:21), the user or "anonymous"
// (:90), the ids from the path and query (:139-146), and extra as
// json.dumps of the query and path without the ids (:100-110) with the
// JSON body over them (:121-123), masked (:116-120, :42-76). The row is
// written before the action runs, so a failed action is logged too; a
// request refused before the decorator (connexion's checks, auth,
// format_parameters) is not.
func TestServerV1_ActionsAreLogged(t *testing.T) {
	t.Parallel()
	admin := withAuth(authBasic, "admin:secret\n")
	cases := []struct {
		name               string
		method, path, body string
		header             []string
		options            []testOption
		wantStatus         int
		want               *wantAction // nil: nothing logged
	}{
		// tests/api_connexion/endpoints/test_dag_run_endpoint.py:1325
		{name: "post_dag_run", method: "POST", path: "/dags/tutorial/dagRuns",
			body: `{"dag_run_id": "r9", "conf": {"password": "p", "a": 1}}`, wantStatus: 200,
			want: &wantAction{event: "api.post_dag_run", owner: "anonymous", dagID: "tutorial",
				extra: `{"dag_run_id": "r9", "conf": {"password": "***", "a": 1}}`}},
		{name: "post_dag_run: an unknown DAG is logged too", method: "POST", path: "/dags/nope/dagRuns", body: `{"note": "n"}`,
			wantStatus: 404, want: &wantAction{event: "api.post_dag_run", owner: "anonymous", dagID: "nope", extra: `{"note": "n"}`}},
		{name: "post_dag_run: a taken run_id is logged too", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"dag_run_id": "r1"}`,
			wantStatus: 409, want: &wantAction{event: "api.post_dag_run", owner: "anonymous", dagID: "tutorial", extra: `{"dag_run_id": "r1"}`}},
		{name: "post_dag_run: connexion's body check comes first", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"state": "x"}`,
			wantStatus: 400},
		// test_dag_endpoint.py:1383 (expected_extra=payload)
		{name: "patch_dag", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`, wantStatus: 200,
			want: &wantAction{event: "api.patch_dag", owner: "anonymous", dagID: "tutorial", extra: `{"is_paused": true}`}},
		{name: "patch_dag: the user is the owner", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`,
			header: []string{"Authorization", "Basic " + base64Std("admin:secret")}, options: []testOption{admin}, wantStatus: 200,
			want: &wantAction{event: "api.patch_dag", owner: "admin", dagID: "tutorial", extra: `{"is_paused": true}`}},
		{name: "patch_dag: unauthenticated, not logged", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`,
			options: []testOption{admin}, wantStatus: 401},
		// decorators.py:133: a request from the server's own pages is "ui."
		{name: "patch_dag: from the server's origin", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`,
			header: []string{"Origin", "{origin}"}, wantStatus: 200,
			want: &wantAction{event: "ui.patch_dag", owner: "anonymous", dagID: "tutorial", extra: `{"is_paused": true}`}},
		// decorators.py:98: only a Content-Type of exactly application/json puts the body in extra.
		{name: "patch_dag: a charset keeps the body out", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`,
			header: []string{"Content-Type", "application/json; charset=utf-8"}, wantStatus: 200,
			want: &wantAction{event: "api.patch_dag", owner: "anonymous", dagID: "tutorial", extra: `{}`}},
		// test_dag_endpoint.py:1673
		{name: "patch_dags", method: "PATCH", path: "/dags?dag_id_pattern=tut&update_mask=is_paused", body: `{"is_paused": false}`,
			wantStatus: 200, want: &wantAction{event: "api.patch_dags", owner: "anonymous",
				extra: `{"dag_id_pattern": "tut", "update_mask": "is_paused", "is_paused": false}`}},
		// dag_endpoint.py:166-167: format_parameters is outside action_logging.
		{name: "patch_dags: a negative limit, not logged", method: "PATCH", path: "/dags?dag_id_pattern=tut&limit=-1",
			body: `{"is_paused": false}`, wantStatus: 400},
		// test_dag_endpoint.py:2420
		{name: "delete_dag", method: "DELETE", path: "/dags/example_trigger_target_dag", wantStatus: 204,
			want: &wantAction{event: "api.delete_dag", owner: "anonymous", dagID: "example_trigger_target_dag", extra: `{}`}},
		// test_dag_run_endpoint.py:2182 (expected_extra=payload)
		{name: "set_dag_run_note", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/setNote", body: `{"note": "n"}`, wantStatus: 200,
			want: &wantAction{event: "api.set_dag_run_note", owner: "anonymous", dagID: "tutorial", runID: "r1", extra: `{"note": "n"}`}},
		{name: "update_dag_run_state", method: "PATCH", path: "/dags/tutorial/dagRuns/r1", body: `{"state": "failed"}`, wantStatus: 200,
			want: &wantAction{event: "api.update_dag_run_state", owner: "anonymous", dagID: "tutorial", runID: "r1", extra: `{"state": "failed"}`}},
		{name: "clear_dag_run", method: "POST", path: "/dags/tutorial/dagRuns/r1/clear", body: `{"dry_run": true}`, wantStatus: 200,
			want: &wantAction{event: "api.clear_dag_run", owner: "anonymous", dagID: "tutorial", runID: "r1", extra: `{"dry_run": true}`}},
		{name: "delete_dag_run", method: "DELETE", path: "/dags/tutorial/dagRuns/r3", wantStatus: 204,
			want: &wantAction{event: "api.delete_dag_run", owner: "anonymous", dagID: "tutorial", runID: "r3", extra: `{}`}},
		{name: "patch_task_instance", method: "PATCH", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date",
			body: `{"new_state": "success"}`, wantStatus: 200, want: &wantAction{event: "api.patch_task_instance", owner: "anonymous",
				dagID: "tutorial", taskID: "print_date", runID: "r3", extra: `{"new_state": "success"}`}},
		// Airflow 2.10.3 airflow/api_connexion/endpoints/pool_endpoint.py:43,87,144
		{name: "post_pool", method: "POST", path: "/pools", body: `{"name": "p", "slots": 2}`, wantStatus: 200,
			want: &wantAction{event: "api.post_pool", owner: "anonymous", extra: `{"name": "p", "slots": 2}`}},
		{name: "patch_pool", method: "PATCH", path: "/pools/default_pool?update_mask=slots", body: `{"slots": 3}`, wantStatus: 200,
			want: &wantAction{event: "api.patch_pool", owner: "anonymous", extra: `{"update_mask": "slots", "pool_name": "default_pool", "slots": 3}`}},
		{name: "delete_pool: refused, logged too", method: "DELETE", path: "/pools/default_pool", wantStatus: 400,
			want: &wantAction{event: "api.delete_pool", owner: "anonymous", extra: `{"pool_name": "default_pool"}`}},
		// task_instance_endpoint.py:648-650; the mapped route calls it (:587-591)
		{name: "set_task_instance_note", method: "PATCH", path: "/dags/tutorial/dagRuns/r3/taskInstances/print_date/setNote",
			body: `{"note": "n"}`, wantStatus: 200, want: &wantAction{event: "api.set_task_instance_note", owner: "anonymous",
				dagID: "tutorial", taskID: "print_date", runID: "r3", extra: `{"note": "n"}`}},
		// test_task_instance_endpoint.py:1385
		{name: "post_clear_task_instances", method: "POST", path: "/dags/tutorial/clearTaskInstances", body: `{"only_failed": false}`,
			wantStatus: 200, want: &wantAction{event: "api.post_clear_task_instances", owner: "anonymous", dagID: "tutorial",
				extra: `{"only_failed": false}`}},
		// The body's dag_run_id is no column: extra keeps it (decorators.py:121-123).
		{name: "post_set_task_instances_state", method: "POST", path: "/dags/tutorial/updateTaskInstancesState",
			body: `{"task_id": "print_date", "dag_run_id": "r3", "include_upstream": false, "include_downstream": false,
				"include_future": false, "include_past": false, "new_state": "failed"}`,
			wantStatus: 200, want: &wantAction{event: "api.post_set_task_instances_state", owner: "anonymous", dagID: "tutorial",
				extra: `{"task_id": "print_date", "dag_run_id": "r3", "include_upstream": false, "include_downstream": false, "include_future": false, "include_past": false, "new_state": "failed"}`}},
		// test_variable_endpoint.py:370 test_should_create_masked_variable
		{name: "variable.create: the value of a sensitive key masked", method: "POST", path: "/variables",
			body: `{"key": "api_key", "value": "secret_key", "description": "secret"}`, wantStatus: 200,
			want: &wantAction{event: "api.variable.create", owner: "anonymous", extra: `{"key": "api_key", "value": "***", "description": "secret"}`}},
		{name: "variable.create: a marshmallow refusal is logged too", method: "POST", path: "/variables", body: `{"key": "k"}`, wantStatus: 400,
			want: &wantAction{event: "api.variable.create", owner: "anonymous", extra: `{"key": "k"}`}},
		{name: "variable.edit", method: "PATCH", path: "/variables/k?update_mask=value", body: `{"key": "k", "value": "v2"}`, wantStatus: 404,
			want: &wantAction{event: "api.variable.edit", owner: "anonymous", extra: `{"key": "k", "value": "v2"}`}},
		{name: "variable.delete: the key from the path", method: "DELETE", path: "/variables/my_password", wantStatus: 404,
			want: &wantAction{event: "api.variable.delete", owner: "anonymous", extra: `{"variable_key": "my_password"}`}},
		// test_connection_endpoint.py:609 (expected_extra=payload) and
		// decorators.py:64-76: password and extra's secrets masked.
		{name: "connection.create", method: "POST", path: "/connections",
			body: `{"connection_id": "c1", "conn_type": "http", "password": "pw", "extra": "{\"token\": \"t\", \"n\": 1}"}`, wantStatus: 200,
			want: &wantAction{event: "api.connection.create", owner: "anonymous",
				extra: `{"connection_id": "c1", "conn_type": "http", "password": "***", "extra": {"token": "***", "n": 1}}`}},
		{name: "connection.create: extra not JSON", method: "POST", path: "/connections",
			body: `{"connection_id": "c2", "conn_type": "http", "extra": "nope"}`, wantStatus: 200,
			want: &wantAction{event: "api.connection.create", owner: "anonymous",
				extra: "{\"connection_id\": \"c2\", \"conn_type\": \"http\", \"extra\": \"Encountered non-JSON in `extra` field\"}"}},
		// test_connection_endpoint.py:90
		{name: "connection.delete", method: "DELETE", path: "/connections/nope", wantStatus: 404,
			want: &wantAction{event: "api.connection.delete", owner: "anonymous", extra: `{"connection_id": "nope"}`}},
		{name: "reads are not logged", method: "GET", path: "/dags/tutorial/dagRuns/r1", wantStatus: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2, append(tc.options, withOptions(func(o *serverOptions) { o.Kick = func() {} }))...)
			ts.store.SetLimits(Limits{EventLogs: 100})
			login := []string{"Authorization", "Basic " + base64Std("admin:secret")}
			if ts.srv.opts.Auth.backend == authBasic {
				for _, body := range []string{`{"dag_run_id": "r1"}`, `{"dag_run_id": "r3"}`} {
					ts.v1(t, "POST", "/dags/tutorial/dagRuns", body, login...)
				}
			} else {
				threeRuns(t, ts)
			}
			before, err := ts.store.EventLogs()
			if err != nil {
				t.Fatal(err)
			}
			header := slicesReplace(tc.header, "{origin}", ts.URL)
			res := ts.v1(t, tc.method, tc.path, tc.body, header...)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d (%s)", res.status, tc.wantStatus, res.body)
			}
			after, err := ts.store.EventLogs()
			if err != nil {
				t.Fatal(err)
			}
			added := after[len(before):]
			if tc.want == nil {
				if len(added) != 0 {
					t.Fatalf("logged %+v, want nothing", *added[0])
				}
				return
			}
			if len(added) != 1 {
				t.Fatalf("%d events logged, want 1", len(added))
			}
			e := added[0]
			got := wantAction{event: e.Event, dagID: e.DagID, taskID: e.TaskID, runID: e.RunID}
			if e.Owner != nil {
				got.owner = *e.Owner
			}
			if e.Extra != nil {
				got.extra = *e.Extra
			}
			if got != *tc.want {
				t.Errorf("logged\n%+v\nwant\n%+v", got, *tc.want)
			}
			if !e.When.Equal(testNow) || e.MapIndex != nil || e.TryNumber != nil || e.ExecutionDate != nil {
				t.Errorf("when %v, map_index %v, try_number %v, execution_date %v; want now and nulls",
					e.When, e.MapIndex, e.TryNumber, e.ExecutionDate)
			}
		})
	}
}

// slicesReplace is header pairs with each value old replaced by new.
func slicesReplace(pairs []string, old, new string) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		if p == old {
			p = new
		}
		out[i] = p
	}
	return out
}

// The event log is a ring of the newest --max-event-logs rows; ids are
// never reused, not even after a reset, which empties it (scope all only).
func TestStore_EventLogRingAndReset(t *testing.T) {
	t.Parallel()
	ids := func(t *testing.T, ts *testServer) []int64 {
		t.Helper()
		events, err := ts.store.EventLogs()
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, e := range events {
			out = append(out, e.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		max     int
		appends int
		reset   string // scope of a reset after the appends; "" for none
		after   int    // appends after the reset
		want    []int64
	}{
		{name: "under the cap", max: 3, appends: 2, want: []int64{1, 2}},
		{name: "the newest kept", max: 3, appends: 5, want: []int64{3, 4, 5}},
		{name: "no cap", max: 0, appends: 5, want: []int64{1, 2, 3, 4, 5}},
		{name: "reset all empties it, ids go on", max: 3, appends: 2, reset: "all", after: 1, want: []int64{3}},
		{name: "reset of runs keeps it", max: 3, appends: 2, reset: "runs", want: []int64{1, 2}},
		{name: "reset of variables keeps it", max: 3, appends: 2, reset: "variables", want: []int64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			ts.store.SetLimits(Limits{EventLogs: tc.max})
			appendN := func(n int) {
				for range n {
					if err := ts.store.AppendEventLog(tiEvent("e", eventTime1)); err != nil {
						t.Fatal(err)
					}
				}
			}
			appendN(tc.appends)
			if tc.reset != "" {
				if res := ts.do(t, "POST", "/_airlite/reset?scope="+tc.reset, ""); res.status != 200 {
					t.Fatalf("reset: %d %s", res.status, res.body)
				}
			}
			appendN(tc.after)
			if got := ids(t, ts); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("event ids %v, want %v", got, tc.want)
			}
		})
	}
}

// actionEvent reads a request as Airflow 2.10.3's action_logging does
// (airflow/www/decorators.py:100-146): query pairs in order (a repeated
// key keeps its first place and its last value in extra, its first value
// as a column), the path after them, ids left out of extra, values under
// a sensitive name masked, the body over them.
func TestActionEvent(t *testing.T) {
	t.Parallel()
	route := &v1Route{segs: strings.Split("dags/{dag_id}/dagRuns/{dag_run_id}/x/{api_token}", "/")}
	path := map[string]string{"dag_id": "d", "dag_run_id": "r", "api_token": "tok"}
	for _, tc := range []struct {
		name, target, body, contentType, origin string
		action                                  v1Action
		wantEvent, wantExtra, wantRun           string
	}{
		{name: "query then path, ids out, secrets masked", target: "/x?b=1&a=2&b=3&password=pw&run_id=q1&run_id=q2",
			action: v1Action{event: "f"}, wantEvent: "api.f", wantRun: "q1",
			wantExtra: `{"b": "3", "a": "2", "password": "***", "api_token": "***"}`},
		{name: "the body over the query", target: "/x?a=1", body: `{"a": {"secret": "s", "n": 2}, "dag_id": "b"}`,
			contentType: "application/json", action: v1Action{event: "f"}, wantEvent: "api.f", wantRun: "r",
			wantExtra: `{"a": {"secret": "***", "n": 2}, "api_token": "***", "dag_id": "b"}`},
		{name: "a body not labelled exactly JSON stays out", target: "/x", body: `{"a": 1}`,
			contentType: "application/json;charset=utf-8", action: v1Action{event: "f"}, wantEvent: "api.f", wantRun: "r",
			wantExtra: `{"api_token": "***"}`},
		{name: "from the server's own origin", target: "http://h:1/x", origin: "http://h:1", action: v1Action{event: "f"},
			wantEvent: "ui.f", wantRun: "r", wantExtra: `{"api_token": "***"}`},
		{name: "from another origin", target: "http://h:1/x", origin: "http://h:2", action: v1Action{event: "f"},
			wantEvent: "api.f", wantRun: "r", wantExtra: `{"api_token": "***"}`},
		{name: "variable: the value masked under the key", target: "/x", body: `{"value": "v0", "key": "my_secret", "value": "v"}`,
			contentType: "application/json", action: v1Action{event: "variable.create"}, wantEvent: "api.variable.create", wantRun: "r",
			wantExtra: `{"value": "v", "key": "my_secret"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("POST", tc.target, strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			e, err := actionEvent(actionRequest{r: r, path: route.pathFields(path), body: body, now: testNow, action: &tc.action, masker: edition2.rules().masker})
			if err != nil {
				t.Fatal(err)
			}
			if e.Event != tc.wantEvent || *e.Extra != tc.wantExtra || e.DagID != "d" || e.RunID != tc.wantRun ||
				*e.Owner != "anonymous" || !e.When.Equal(testNow) {
				t.Errorf("event %q extra %s dag %q run %q owner %q at %s; want %q %s d %q anonymous",
					e.Event, *e.Extra, e.DagID, e.RunID, *e.Owner, e.When, tc.wantEvent, tc.wantExtra, tc.wantRun)
			}
		})
	}
}

// Concurrent stable-API triggers, batched into shared writes, each leave
// exactly one row, whether their run was created or refused (a taken
// run_id), and no id twice.
func TestServerV1_ConcurrentTriggersLogOnce(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Kick = func() {} }))
	ts.store.SetLimits(Limits{EventLogs: 1000})
	const n = 24
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every third request reuses another's run_id: one of them is a 409.
			body := fmt.Sprintf(`{"dag_run_id": "c%d", "logical_date": "2024-02-01T00:00:%02d+00:00"}`, i-i%3, i)
			statuses <- ts.v1(t, "POST", "/dags/tutorial/dagRuns", body).status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		if s == 200 {
			created++
		}
	}
	events, err := ts.store.EventLogs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, e := range events {
		if e.Event != "api.post_dag_run" || seen[e.ID] {
			t.Errorf("row %d %q: want one api.post_dag_run per id", e.ID, e.Event)
		}
		seen[e.ID] = true
	}
	if len(events) != n || created != n/3 {
		t.Errorf("%d rows for %d requests (%d runs created, want %d)", len(events), n, created, n/3)
	}
}
