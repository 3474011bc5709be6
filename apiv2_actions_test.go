package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"unsafe"
)

// lastV2EventLog is the newest row GET /api/v2/eventLogs lists.
func lastV2EventLog(t *testing.T, ts *testServer) (map[string]any, int) {
	t.Helper()
	res := ts.do(t, http.MethodGet, "/api/v2/eventLogs?order_by=-event_log_id&limit=1", "")
	if res.status != http.StatusOK {
		t.Fatalf("list event logs: status %d, body %s", res.status, res.body)
	}
	var got struct {
		EventLogs    []map[string]any `json:"event_logs"`
		TotalEntries int              `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(res.body), &got); err != nil {
		t.Fatalf("decode event logs: %v", err)
	}
	if len(got.EventLogs) == 0 {
		return nil, got.TotalEntries
	}
	return got.EventLogs[0], got.TotalEntries
}

// TestV2ActionLogging: each route Airflow 3.2.1 wraps in action_logging
// writes one row, as api_fastapi/logging/decorators.py builds it, and
// GET /api/v2/eventLogs shows it; a request refused by validation is
// logged too (the dependency runs before the endpoint's parameters are
// checked).
func TestV2ActionLogging(t *testing.T) {
	const dag = "example_bash_operator"
	const ti = "/dags/" + dag + "/dagRuns/r1/taskInstances/runme_0"
	cases := []struct {
		name, method, path, body string
		event, dagID, taskID     string
		runID                    any
		extra                    string
	}{
		{name: "patch_dag", method: "PATCH", path: "/dags/" + dag + "?update_mask=is_paused", body: `{"is_paused": true}`,
			event: "patch_dag", dagID: dag, extra: `{"update_mask": "is_paused", "is_paused": true, "method": "PATCH"}`},
		// action_logging names the row after the endpoint's function,
		// patch_dags, with no dag_id (no dag_id among the path, query
		// and body; c57fba0e api_fastapi/logging/decorators.py:84,
		// routes/public/dags.py:316-318). test_dags.py's test_patch_dags
		// checks for a "patch_dag" row of dag1, which only a row another
		// test left could give: its Log table is never cleared.
		{name: "patch_dags", method: "PATCH", path: "/dags?dag_id_pattern=example_bash", body: `{"is_paused": false}`,
			event: "patch_dags", extra: `{"dag_id_pattern": "example_bash", "is_paused": false, "method": "PATCH"}`},
		{name: "favorite_dag", method: "POST", path: "/dags/" + dag + "/favorite",
			event: "favorite_dag", dagID: dag, extra: `{"method": "POST"}`},
		{name: "unfavorite_dag", method: "POST", path: "/dags/" + dag + "/unfavorite",
			event: "unfavorite_dag", dagID: dag, extra: `{"method": "POST"}`},
		{name: "delete_dag missing", method: "DELETE", path: "/dags/nope",
			event: "delete_dag", dagID: "nope", extra: `{"method": "DELETE"}`},
		// get_task_instances_batch is a read Airflow logs all the same
		// (c57fba0e routes/public/task_instances.py:540-548), its path's
		// "~" as the row's dag_id and run_id.
		{name: "get_task_instances_batch", method: "POST", path: "/dags/~/dagRuns/~/taskInstances/list", body: `{"dag_ids": ["x"], "page_limit": 5}`,
			event: "get_task_instances_batch", dagID: "~", runID: "~", extra: `{"dag_ids": ["x"], "page_limit": 5, "method": "POST"}`},
		{name: "get_task_instances_batch, a dag_id not ~ is logged before its 422", method: "POST", path: "/dags/x/dagRuns/~/taskInstances/list", body: `{}`,
			event: "get_task_instances_batch", dagID: "x", runID: "~", extra: `{"method": "POST"}`},
		{name: "post_pool", method: "POST", path: "/pools", body: `{"name": "p1", "slots": 3}`,
			event: "post_pool", extra: `{"name": "p1", "slots": 3, "method": "POST"}`},
		{name: "post_pool invalid is still logged", method: "POST", path: "/pools", body: `{"name": "p2"}`,
			event: "post_pool", extra: `{"name": "p2", "method": "POST"}`},
		{name: "patch_pool", method: "PATCH", path: "/pools/p1", body: `{"name": "p1", "slots": 4}`,
			event: "patch_pool", extra: `{"pool_name": "p1", "name": "p1", "slots": 4, "method": "PATCH"}`},
		{name: "bulk_pools", method: "PATCH", path: "/pools", body: `{"actions": [{"action": "delete", "entities": ["p1"]}]}`,
			event: "bulk_pools", extra: `{"actions": [{"action": "delete", "entities": ["p1"]}], "method": "PATCH"}`},
		{name: "delete_pool", method: "DELETE", path: "/pools/gone",
			event: "delete_pool", extra: `{"pool_name": "gone", "method": "DELETE"}`},
		{name: "post_variable sensitive key", method: "POST", path: "/variables", body: `{"key": "api_password", "value": "s3cret"}`,
			event: "post_variable", extra: `{"key": "api_password", "value": "***", "method": "POST"}`},
		{name: "post_variable plain key", method: "POST", path: "/variables", body: `{"key": "colour", "value": "blue"}`,
			event: "post_variable", extra: `{"key": "colour", "value": "blue", "method": "POST"}`},
		{name: "patch_variable", method: "PATCH", path: "/variables/colour", body: `{"key": "colour", "value": "red"}`,
			event: "patch_variable", extra: `{"key": "colour", "value": "red", "method": "PATCH"}`},
		{name: "bulk_variables", method: "PATCH", path: "/variables", body: `{"actions": [{"action": "delete", "entities": ["colour"]}]}`,
			event: "bulk_variables", extra: `{"actions": [{"action": "delete", "entities": ["colour"]}], "method": "PATCH"}`},
		{name: "delete_variable", method: "DELETE", path: "/variables/api_password",
			event: "delete_variable", extra: `{"variable_key": "api_password", "method": "DELETE"}`},
		{name: "post_connection masks", method: "POST", path: "/connections",
			body:  `{"connection_id": "c1", "conn_type": "http", "password": "pw", "extra": "{\"token\": \"t\", \"region\": \"eu\"}"}`,
			event: "post_connection",
			extra: `{"connection_id": "c1", "conn_type": "http", "password": "***", "extra": {"token": "***", "region": "eu"}, "method": "POST"}`},
		{name: "patch_connection", method: "PATCH", path: "/connections/c1", body: `{"connection_id": "c1", "conn_type": "ftp"}`,
			event: "patch_connection", extra: `{"connection_id": "c1", "conn_type": "ftp", "method": "PATCH"}`},
		{name: "bulk_connections", method: "PATCH", path: "/connections", body: `{"actions": [{"action": "delete", "entities": ["c1"]}]}`,
			event: "bulk_connections", extra: `{"actions": [{"action": "delete", "entities": ["c1"]}], "method": "PATCH"}`},
		// test_connections.py test_post_should_fail_with_non_json_object_as_extra:
		// refused with a 422, logged with the decorator's note on the extra.
		{name: "post_connection extra a JSON list", method: "POST", path: "/connections",
			body:  `{"connection_id": "test_connection_id", "conn_type": "test_type", "extra": "[1,2,3]"}`,
			event: "post_connection",
			extra: "{\"connection_id\": \"test_connection_id\", \"conn_type\": \"test_type\", \"extra\": \"Expected JSON object in `extra` field, got non-dict JSON\", \"method\": \"POST\"}"},
		{name: "post_connection extra not JSON", method: "POST", path: "/connections",
			body:  `{"connection_id": "test_connection_id", "conn_type": "test_type", "extra": "some_string"}`,
			event: "post_connection",
			extra: "{\"connection_id\": \"test_connection_id\", \"conn_type\": \"test_type\", \"extra\": \"Encountered non-JSON in `extra` field\", \"method\": \"POST\"}"},
		{name: "post_connection extra empty", method: "POST", path: "/connections",
			body:  `{"connection_id": "c4", "conn_type": "t", "extra": "", "password": ""}`,
			event: "post_connection",
			extra: `{"connection_id": "c4", "conn_type": "t", "extra": "", "password": "***", "method": "POST"}`},
		{name: "create_default_connections", method: "POST", path: "/connections/defaults",
			event: "create_default_connections", extra: `{"method": "POST"}`},
		{name: "delete_connection", method: "DELETE", path: "/connections/c2",
			event: "delete_connection", extra: `{"connection_id": "c2", "method": "DELETE"}`},
		{name: "create_asset_event missing asset", method: "POST", path: "/assets/events", body: `{"asset_id": 999, "extra": {"password": "x"}}`,
			event: "create_asset_event", extra: `{"asset_id": 999, "extra": {"password": "***"}, "method": "POST"}`},
		{name: "delete_dag_asset_queued_event bad int still logged", method: "DELETE", path: "/dags/" + dag + "/assets/abc/queuedEvents?before=2026-01-01",
			event: "delete_dag_asset_queued_event", dagID: dag, extra: `{"before": "2026-01-01", "asset_id": "abc", "method": "DELETE"}`},
		{name: "materialize_asset missing asset", method: "POST", path: "/assets/999/materialize",
			event: "materialize_asset", extra: `{"asset_id": "999", "method": "POST"}`},
		{name: "delete_asset_queued_events", method: "DELETE", path: "/assets/1/queuedEvents",
			event: "delete_asset_queued_events", extra: `{"asset_id": "1", "method": "DELETE"}`},
		{name: "patch_task_instance", method: "PATCH", path: ti, body: `{"new_state": "success"}`,
			event: "patch_task_instance", dagID: dag, taskID: "runme_0", runID: "r1", extra: `{"new_state": "success", "method": "PATCH"}`},
		{name: "patch_task_instance mapped", method: "PATCH", path: ti + "/2?update_mask=new_state", body: `{"new_state": "failed"}`,
			event: "patch_task_instance", dagID: dag, taskID: "runme_0", runID: "r1",
			extra: `{"update_mask": "new_state", "map_index": "2", "new_state": "failed", "method": "PATCH"}`},
		{name: "post_clear_task_instances not a dry run", method: "POST", path: "/dags/" + dag + "/clearTaskInstances", body: `{"dry_run": false}`,
			event: "post_clear_task_instances", dagID: dag, extra: `{"dry_run": false, "method": "POST"}`},
		{name: "create_xcom_entry", method: "POST", path: ti + "/xcomEntries", body: `{"key": "k", "value": 1}`,
			event: "create_xcom_entry", dagID: dag, taskID: "runme_0", runID: "r1", extra: `{"key": "k", "value": 1, "method": "POST"}`},
		{name: "update_xcom_entry", method: "PATCH", path: ti + "/xcomEntries/k", body: `{"value": 2}`,
			event: "update_xcom_entry", dagID: dag, taskID: "runme_0", runID: "r1", extra: `{"xcom_key": "k", "value": 2, "method": "PATCH"}`},
		{name: "delete_xcom_entry", method: "DELETE", path: ti + "/xcomEntries/k?map_index=-1",
			event: "delete_xcom_entry", dagID: dag, taskID: "runme_0", runID: "r1", extra: `{"map_index": "-1", "xcom_key": "k", "method": "DELETE"}`},
		{name: "update_hitl_detail", method: "PATCH", path: ti + "/-1/hitlDetails", body: `{"chosen_options": ["a"]}`,
			event: "update_hitl_detail", dagID: dag, taskID: "runme_0", runID: "r1",
			extra: `{"map_index": "-1", "chosen_options": ["a"], "method": "PATCH"}`},
		{name: "trigger_dag_run", method: "POST", path: "/dags/nope/dagRuns", body: `{"dag_run_id": "t1", "logical_date": null}`,
			event: "trigger_dag_run", dagID: "nope", runID: "t1", extra: `{"dag_run_id": "t1", "logical_date": null, "method": "POST"}`},
		{name: "trigger_dag_run stored with the run", method: "POST", path: "/dags/" + dag + "/dagRuns", body: `{"dag_run_id": "t2", "logical_date": null}`,
			event: "trigger_dag_run", dagID: dag, runID: "t2", extra: `{"dag_run_id": "t2", "logical_date": null, "method": "POST"}`},
		{name: "trigger_dag_run refused body", method: "POST", path: "/dags/" + dag + "/dagRuns", body: `{"dag_run_id": "t3", "bogus": 1}`,
			event: "trigger_dag_run", dagID: dag, runID: "t3", extra: `{"dag_run_id": "t3", "bogus": 1, "method": "POST"}`},
		{name: "patch_dag_run", method: "PATCH", path: "/dags/" + dag + "/dagRuns/r1", body: `{"note": "n"}`,
			event: "patch_dag_run", dagID: dag, runID: "r1", extra: `{"note": "n", "method": "PATCH"}`},
		{name: "clear_dag_run not a dry run", method: "POST", path: "/dags/" + dag + "/dagRuns/r1/clear", body: `{"dry_run": false}`,
			event: "clear_dag_run", dagID: dag, runID: "r1", extra: `{"dry_run": false, "method": "POST"}`},
		{name: "delete_dag_run", method: "DELETE", path: "/dags/" + dag + "/dagRuns/r1",
			event: "delete_dag_run", dagID: dag, runID: "r1", extra: `{"method": "DELETE"}`},
		{name: "delete_dag_asset_queued_events", method: "DELETE", path: "/dags/" + dag + "/assets/queuedEvents",
			event: "delete_dag_asset_queued_events", dagID: dag, extra: `{"method": "DELETE"}`},
		{name: "create_backfill", method: "POST", path: "/backfills",
			body:  `{"dag_id": "` + dag + `", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z"}`,
			event: "create_backfill", dagID: dag, extra: `{"dag_id": "` + dag + `", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z", "method": "POST"}`},
		{name: "pause_backfill", method: "PUT", path: "/backfills/1/pause",
			event: "pause_backfill", extra: `{"backfill_id": "1", "method": "PUT"}`},
		{name: "unpause_backfill", method: "PUT", path: "/backfills/1/unpause",
			event: "unpause_backfill", extra: `{"backfill_id": "1", "method": "PUT"}`},
		{name: "cancel_backfill", method: "PUT", path: "/backfills/1/cancel",
			event: "cancel_backfill", extra: `{"backfill_id": "1", "method": "PUT"}`},
		{name: "cancel_backfill completed is still logged", method: "PUT", path: "/backfills/1/cancel",
			event: "cancel_backfill", extra: `{"backfill_id": "1", "method": "PUT"}`},
		{name: "pause_backfill missing", method: "PUT", path: "/backfills/99/pause",
			event: "pause_backfill", extra: `{"backfill_id": "99", "method": "PUT"}`},
	}
	ts := newTestServer(t, edition3)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var header []string
			if c.body != "" {
				header = []string{"Content-Type", "application/json"}
			}
			_, before := lastV2EventLog(t, ts)
			res := ts.do(t, c.method, "/api/v2"+c.path, c.body, header...)
			got, after := lastV2EventLog(t, ts)
			if after != before+1 {
				t.Fatalf("%s %s (status %d): rows %d -> %d, want one more", c.method, c.path, res.status, before, after)
			}
			var dagID any
			if c.dagID != "" {
				dagID = c.dagID
			}
			var taskID any
			if c.taskID != "" {
				taskID = c.taskID
			}
			want := map[string]any{"event": c.event, "owner": anonymousAdmin, "dag_id": dagID, "run_id": c.runID,
				"task_id": taskID, "map_index": nil, "try_number": nil, "logical_date": nil, "extra": c.extra}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s = %#v, want %#v", c.name, k, got[k], v)
				}
			}
		})
	}
}

// TestV2ActionLoggingSkips: requests Airflow does not log write no row: a
// GET, a route without action_logging, a body that is not JSON (FastAPI
// refuses it before any dependency runs).
func TestV2ActionLoggingSkips(t *testing.T) {
	ts := newTestServer(t, edition3)
	for _, c := range []struct{ name, method, path, body string }{
		{"get dag", "GET", "/api/v2/dags/example_bash_operator", ""},
		{"list pools", "GET", "/api/v2/pools", ""},
		{"invalid json", "POST", "/api/v2/pools", "{"},
		// test_connection has no action_logging in 3.2.1 (c57fba0e
		// routes/public/connections.py:223).
		{"test connection", "POST", "/api/v2/connections/test", `{"connection_id": "c2", "conn_type": "http"}`},
		{"clear dag run, dry run by default", "POST", "/api/v2/dags/example_bash_operator/dagRuns/r1/clear", "{}"},
		{"clear task instances, dry run by default", "POST", "/api/v2/dags/example_bash_operator/clearTaskInstances", "{}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, before := lastV2EventLog(t, ts)
			ts.do(t, c.method, c.path, c.body, "Content-Type", "application/json")
			if _, after := lastV2EventLog(t, ts); after != before {
				t.Errorf("%s %s: rows %d -> %d, want none written", c.method, c.path, before, after)
			}
		})
	}
}

// TestV2ActionEventDryRun: a clear whose body's dry_run is absent or true
// is not logged (decorators.py skip_dry_run_events); dry_run false is, with
// dag_run_id from the path as run_id and logical_date from the query.
func TestV2ActionEventDryRun(t *testing.T) {
	for _, c := range []struct {
		name, body string
		logged     bool
	}{
		{"absent", `{}`, false}, {"true", `{"dry_run": true}`, false}, {"false", `{"dry_run": false}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := http.NewRequest("POST", "/api/v2/dags/d/dagRuns/r1/clear?logical_date=2026-01-02T03:04:05Z", nil)
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			ev, err := v2ActionEvent(edition3.rules().masker, "clear_dag_run", r, []pyField{{"dag_id", "d"}, {"dag_run_id", "r1"}}, []byte(c.body), nil, "ann", testNow)
			if err != nil {
				t.Fatal(err)
			}
			if (ev != nil) != c.logged {
				t.Fatalf("logged = %v, want %v", ev != nil, c.logged)
			}
			if ev == nil {
				return
			}
			if ev.DagID != "d" || ev.RunID != "r1" || *ev.Owner != "ann" || ev.ExecutionDate == nil ||
				ev.ExecutionDate.Format("2006-01-02T15:04:05Z07:00") != "2026-01-02T03:04:05Z" {
				t.Errorf("row = %+v", ev)
			}
			if want := `{"dry_run": false, "method": "POST"}`; *ev.Extra != want {
				t.Errorf("extra = %s, want %s", *ev.Extra, want)
			}
		})
	}
}

// TestV2ActionLogging_ConnectionExtraNotAString: 3.2.1's
// _mask_connection_fields runs json.loads on a body's extra before the
// body is validated and catches only JSONDecodeError, so an extra that is
// a true value but not a string (a number, a list, an object) raises
// TypeError in the dependency: Starlette's 500, and no row (the TypeError
// was caught only from apache/airflow#70890, after 3.2.1). A false one
// goes through the masker and the endpoint's 422.
func TestV2ActionLogging_ConnectionExtraNotAString(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		logged                   bool
	}{
		{"a number", "POST", "/api/v2/connections", `{"connection_id": "c", "conn_type": "t", "extra": 5}`, 500, false},
		{"an object", "PATCH", "/api/v2/connections/c", `{"connection_id": "c", "conn_type": "t", "extra": {"a": 1}}`, 500, false},
		{"true", "POST", "/api/v2/connections", `{"connection_id": "c", "conn_type": "t", "extra": true}`, 500, false},
		// test_connection has no action_logging: the body's 422.
		{"true, test", "POST", "/api/v2/connections/test", `{"connection_id": "c", "conn_type": "t", "extra": true}`, 422, false},
		{"zero", "POST", "/api/v2/connections", `{"connection_id": "c", "conn_type": "t", "extra": 0}`, 422, true},
		{"an empty list", "POST", "/api/v2/connections", `{"connection_id": "c", "conn_type": "t", "extra": []}`, 422, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, before := lastV2EventLog(t, ts)
			res := ts.do(t, c.method, c.path, c.body, "Content-Type", "application/json")
			if res.status != c.status || (c.status == 500 && res.body != "Internal Server Error") {
				t.Errorf("%s %s = %d %s, want %d", c.method, c.path, res.status, res.body, c.status)
			}
			if _, after := lastV2EventLog(t, ts); (after == before+1) != c.logged {
				t.Errorf("rows %d -> %d, logged want %v", before, after, c.logged)
			}
		})
	}
}

// TestV2ActionLogging_BodyNotAnObject: 3.2.1's action_logging reads the
// items of a JSON body for the variable and connection events whatever
// JSON it is (c57fba0e api_fastapi/logging/decorators.py:122-128), so a
// list, a scalar or null there raises AttributeError in the dependency:
// Starlette's 500 and no row (apache/airflow#72683 changed it after
// 3.2.1). Other events keep only an object's fields, and the endpoint
// answers its 422.
func TestV2ActionLogging_BodyNotAnObject(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, c := range []struct {
		method, path, body string
		status             int
		logged             bool
	}{
		{"POST", "/api/v2/variables", `[1]`, 500, false},
		{"PATCH", "/api/v2/variables/k", `"x"`, 500, false},
		{"PATCH", "/api/v2/variables", `null`, 500, false},
		{"POST", "/api/v2/connections", `5`, 500, false},
		{"PATCH", "/api/v2/connections", `[]`, 500, false},
		{"PATCH", "/api/v2/connections/c", `[{"a": 1}]`, 500, false},
		{"POST", "/api/v2/pools", `[1]`, 422, true},
		{"POST", "/api/v2/connections/test", `[1]`, 422, false},
	} {
		t.Run(c.method+" "+c.path+" "+c.body, func(t *testing.T) {
			_, before := lastV2EventLog(t, ts)
			res := ts.do(t, c.method, c.path, c.body, "Content-Type", "application/json")
			if res.status != c.status || (c.status == 500 && res.body != "Internal Server Error") {
				t.Errorf("%s %s = %d %s, want %d", c.method, c.path, res.status, res.body, c.status)
			}
			if _, after := lastV2EventLog(t, ts); (after == before+1) != c.logged {
				t.Errorf("rows %d -> %d, logged want %v", before, after, c.logged)
			}
		})
	}
}

// TestNamePointers checks the shared name pointers: one pointer a name,
// another for another name, and a pointer of its own past the bound.
func TestNamePointers(t *testing.T) {
	t.Parallel()
	c := &namePointers{m: map[string]*string{}}
	admin, again, other := c.of("admin"), c.of("admin"), c.of("other")
	if admin != again || *admin != "admin" {
		t.Errorf("of(admin) twice = %p %p (%q), want one pointer to admin", admin, again, *admin)
	}
	if other == admin || *other != "other" {
		t.Errorf("of(other) = %p %q, want its own pointer to other", other, *other)
	}
	line := "POST /api/v2/dags/cut_from_the_line/dagRuns HTTP/1.1"
	cut := line[len("POST /api/v2/dags/") : len(line)-len("/dagRuns HTTP/1.1")]
	if kept := sharedName(cut); kept != cut || unsafe.StringData(kept) == unsafe.StringData(cut) {
		t.Errorf("sharedName(%q) = %q, the same bytes: %v; want a copy, not a piece of the line",
			cut, kept, unsafe.StringData(kept) == unsafe.StringData(cut))
	}
	for i := len(c.m); i < sharedNamesMax; i++ {
		c.of(strconv.Itoa(i))
	}
	past, pastAgain := c.of("past the bound"), c.of("past the bound")
	if past == pastAgain || *past != "past the bound" || len(c.m) != sharedNamesMax {
		t.Errorf("past the bound: %p %p %q, %d kept; want two pointers, %d kept", past, pastAgain, *past, len(c.m), sharedNamesMax)
	}
}

// TestV2ActionEvent_MaskedBodyUnchanged checks that the row's extra hides
// a sensitive body field while the body it was built from keeps its
// value (the masked fields are a copy once something is hidden), and
// that the method and owner are the request's.
func TestV2ActionEvent_MaskedBodyUnchanged(t *testing.T) {
	t.Parallel()
	body := pyDict{{"conf", pyDict{{"password", "hunter2"}}}, {"note", "n"}}
	r := httptest.NewRequest(http.MethodPatch, "/api/v2/dags/d/dagRuns/r", nil)
	r.Header.Set("Content-Type", "application/json")
	ev, err := v2ActionEvent(edition3.rules().masker, "patch_dag_run", r, []pyField{{"dag_id", "d"}, {"dag_run_id", "r"}},
		[]byte(`{"conf": {"password": "hunter2"}, "note": "n"}`), body, "", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"conf": {"password": "***"}, "note": "n", "method": "PATCH"}`; *ev.Extra != want {
		t.Errorf("extra = %s, want %s", *ev.Extra, want)
	}
	if *ev.Owner != "anonymous" {
		t.Errorf("owner = %q, want anonymous", *ev.Owner)
	}
	if got := body[0].val.(pyDict)[0].val; got != "hunter2" {
		t.Errorf("the body's password became %v", got)
	}
}
