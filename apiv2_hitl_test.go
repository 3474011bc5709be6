package main

import (
	"testing"
	"time"
)

// TestAPIv2_HITL follows hitl.py as Airflow answers it with no HITL
// operator in any DAG: no detail listed, any one asked a 404 naming the
// task instance (its id when it exists), and the update's body checked
// first.
func TestAPIv2_HITL(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Kick = func() {} }))
	date := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial", runID: "r1", date: &date}); err != nil {
		t.Fatal(err)
	}
	ti, err := ts.store.TaskInstance("tutorial", "r1", "print_date")
	if err != nil {
		t.Fatal(err)
	}
	if ti.ID == "" {
		t.Fatal("edition 3's task instance has no id")
	}
	const empty = `{"hitl_details":[],"total_entries":0}`
	const base = "/dags/tutorial/dagRuns/r1/taskInstances/print_date"
	noDetail := `{"detail":"Human-in-the-loop detail does not exist for Task Instance with id ` + ti.ID + `"}`
	notFound := func(runID, taskID, mapIndex string) string {
		return "{\"detail\":\"The Task Instance with dag_id: `tutorial`, run_id: `" + runID + "`, task_id: `" + taskID + "` and map_index: `" + mapIndex + "` was not found\"}"
	}
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "list", path: "/dags/tutorial/dagRuns/r1/hitlDetails", wantStatus: 200, wantBody: empty},
		{name: "list all runs", path: "/dags/~/dagRuns/~/hitlDetails", wantStatus: 200, wantBody: empty},
		{name: "list unknown run", path: "/dags/nope/dagRuns/nope/hitlDetails", wantStatus: 200, wantBody: empty},
		{name: "list filters", path: "/dags/~/dagRuns/~/hitlDetails?response_received=false&state=deferred&created_at_gte=2024-01-01&order_by=-run_after&order_by=subject",
			wantStatus: 200, wantBody: empty},
		{name: "list bad order", path: "/dags/~/dagRuns/~/hitlDetails?order_by=nope", wantStatus: 400,
			wantBody: `{"detail":"Ordering with 'nope' is disallowed or the attribute does not exist on the model"}`},
		{name: "list bad filter", path: "/dags/~/dagRuns/~/hitlDetails?response_received=perhaps", wantStatus: 422,
			wantBody: `{"detail":[{"type":"bool_parsing","loc":["query","response_received"],"msg":"Input should be a valid boolean, unable to interpret input","input":"perhaps"}]}`},
		// state is QueryTIStateFilter, whose _transform_ti_states refuses a
		// name that is no state as the dependency it is: before the query's
		// validation and the order's check (c57fba0e routes/public/hitl.py:288,
		// common/parameters.py:898-923).
		{name: "list bad state", path: "/dags/~/dagRuns/~/hitlDetails?state=bogus&limit=x&order_by=nope", wantStatus: 422,
			wantBody: `{"detail":"Invalid value for state. Valid values are removed, scheduled, queued, running, success, restarting, failed, up_for_retry, up_for_reschedule, upstream_failed, skipped, deferred"}`},
		{name: "list no state", path: "/dags/~/dagRuns/~/hitlDetails?state=none&state=no_status&state=deferred", wantStatus: 200, wantBody: empty},
		{name: "get", path: base + "/-1/hitlDetails", wantStatus: 404, wantBody: noDetail},
		{name: "get mapped", path: base + "/0/hitlDetails", wantStatus: 404, wantBody: notFound("r1", "print_date", "0")},
		{name: "get unknown task", path: "/dags/tutorial/dagRuns/r1/taskInstances/nope/-1/hitlDetails", wantStatus: 404, wantBody: notFound("r1", "nope", "-1")},
		{name: "get unknown run", path: "/dags/tutorial/dagRuns/r9/taskInstances/print_date/-1/hitlDetails", wantStatus: 404, wantBody: notFound("r9", "print_date", "-1")},
		{name: "get bad map index", path: base + "/x/hitlDetails", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["path","map_index"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		{name: "try current", path: base + "/-1/hitlDetails/tries/-1", wantStatus: 404, wantBody: noDetail},
		{name: "try 0", path: base + "/-1/hitlDetails/tries/0", wantStatus: 404, wantBody: noDetail},
		{name: "try never made", path: base + "/-1/hitlDetails/tries/3", wantStatus: 404, wantBody: notFound("r1", "print_date", "-1")},
		{name: "update", method: "PATCH", path: base + "/-1/hitlDetails", body: `{"chosen_options": ["yes"], "params_input": {"a": 1}}`,
			wantStatus: 404, wantBody: noDetail},
		{name: "update unknown", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/taskInstances/nope/-1/hitlDetails", body: `{"chosen_options": ["yes"]}`,
			wantStatus: 404, wantBody: notFound("r1", "nope", "-1")},
		{name: "update without options", method: "PATCH", path: base + "/-1/hitlDetails", body: `{"chosen_options": []}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"too_short","loc":["body","chosen_options"],"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}}]}`},
		{name: "update missing", method: "PATCH", path: base + "/-1/hitlDetails", body: `{}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["body","chosen_options"],"msg":"Field required","input":{}}]}`},
	})
}
