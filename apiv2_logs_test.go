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
