package main

import (
	"net/http"
	"testing"
)

// TestAPIv2_LogOfTryZero: since 3.1 get_log's try_number is a
// NonNegativeInt (3.2.1's document: minimum 0), so try 0 of a task
// instance that has not run yet is found and read: the file task
// handler's read answers one message for it (utils/log/
// file_task_handler.py read: "Task was skipped, no logs available." for a
// skipped one, else the error "Try number 0 is invalid."), with the log
// ended; a negative try is the NonNegativeInt's 422.
func TestAPIv2_LogOfTryZero(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial", runID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.store.ForceTaskStates("tutorial", "r1", TaskSkipped, testNow, func(*DAG) ([]string, error) { return []string{"sleep"}, nil }); err != nil {
		t.Fatal(err)
	}
	const tis = "/api/v2/dags/tutorial/dagRuns/r1/taskInstances/"
	const invalid = `{"timestamp":null,"event":"Error fetching the logs. Try number 0 is invalid.","level":"error"}` + "\n"
	for _, c := range []v2Call{
		{name: "json", method: "GET", path: tis + "print_date/logs/0", wantStatus: 200,
			wantBody: `{"content":[{"event":"Error fetching the logs. Try number 0 is invalid.","level":"error"}],"continuation_token":null}`},
		{name: "skipped", method: "GET", path: tis + "sleep/logs/0", wantStatus: 200,
			wantBody: `{"content":[{"event":"Task was skipped, no logs available."}],"continuation_token":null}`},
		{name: "no try 1", method: "GET", path: tis + "print_date/logs/1", wantStatus: 404, wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "negative", method: "GET", path: tis + "print_date/logs/-1", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than_equal","loc":["path","try_number"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		// get_external_log_url's try_number stays a PositiveInt.
		{name: "external url", method: "GET", path: tis + "print_date/externalLogUrl/0", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than","loc":["path","try_number"],"msg":"Input should be greater than 0","input":"0","ctx":{"gt":0}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
	nd := ts.do(t, http.MethodGet, tis+"print_date/logs/0", "", "Accept", "application/x-ndjson")
	if nd.status != 200 || nd.body != invalid || nd.header.Get("Airflow-Continuation-Token") == "" {
		t.Errorf("ndjson try 0 = %d %q %v, want %q with a token", nd.status, nd.body, nd.header, invalid)
	}
	nd = ts.do(t, http.MethodGet, tis+"sleep/logs/0", "", "Accept", "application/x-ndjson")
	if want := `{"timestamp":null,"event":"Task was skipped, no logs available."}` + "\n"; nd.body != want {
		t.Errorf("ndjson skipped try 0 = %q, want %q", nd.body, want)
	}
}

// TestAPIv2_LogParameterErrors: get_log's Accept header is a dependency,
// solved (its 406 raised) before the parameters are validated; then the
// path's errors come first in one 422 with the query's
// (fastapi/dependencies/utils.py solve_dependencies).
func TestAPIv2_LogParameterErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	const log = "/api/v2/dags/tutorial/dagRuns/r1/taskInstances/print_date/logs/"
	for _, c := range []struct {
		v2Call
		accept string
	}{
		{v2Call{name: "path and query", method: "GET", path: log + "-1?map_index=x&full_content=maybe", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than_equal","loc":["path","try_number"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}},` +
				`{"type":"bool_parsing","loc":["query","full_content"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"},` +
				`{"type":"int_parsing","loc":["query","map_index"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`}, ""},
		{v2Call{name: "accept first", method: "GET", path: log + "-1?map_index=x", wantStatus: 406,
			wantBody: `{"detail":"Only application/json or application/x-ndjson is supported"}`}, "text/html"},
		{v2Call{name: "external url", method: "GET", path: "/api/v2/dags/tutorial/dagRuns/r1/taskInstances/print_date/externalLogUrl/0?map_index=x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than","loc":["path","try_number"],"msg":"Input should be greater than 0","input":"0","ctx":{"gt":0}},` +
				`{"type":"int_parsing","loc":["query","map_index"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var header []string
			if c.accept != "" {
				header = []string{"Accept", c.accept}
			}
			res := ts.do(t, c.method, c.path, "", header...)
			if res.status != c.wantStatus || res.body != c.wantBody {
				t.Errorf("%s %s = %d %s\nwant %d %s", c.method, c.path, res.status, res.body, c.wantStatus, c.wantBody)
			}
		})
	}
}
