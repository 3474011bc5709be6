package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestEdition3_OldAPIsAnswerAsAirflow3 checks the paths Airflow 3's app
// answers with its catch-alls (core_api/app.py init_views): the
// experimental API and /api/v1 are gone, /health moved, and a method no
// route takes is Starlette's 405.
func TestEdition3_OldAPIsAnswerAsAirflow3(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, tc := range []struct {
		method, path string
		wantStatus   int
		wantBody     string
		wantAllow    string
	}{
		{"GET", "/api/v1/dags", 404, `{"error":"/api/v1 has been removed in Airflow 3, please use its upgraded version /api/v2 instead."}`, ""},
		{"GET", "/api/v1/dags/example_bash_operator/dagRuns", 404, `{"error":"/api/v1 has been removed in Airflow 3, please use its upgraded version /api/v2 instead."}`, ""},
		{"GET", "/api/v1/health", 404, `{"error":"/api/v1 has been removed in Airflow 3, please use its upgraded version /api/v2 instead."}`, ""},
		{"GET", "/api/experimental/test", 404, `{"error":"API route not found"}`, ""},
		{"GET", "/api/experimental/dags/example_bash_operator/dag_runs", 404, `{"error":"API route not found"}`, ""},
		{"GET", "/api/v2/nope", 404, `{"error":"API route not found"}`, ""},
		{"GET", "/api/v3/version", 404, `{"error":"API route not found"}`, ""},
		{"GET", "/health", 404, "{\"error\":\"Moved in Airflow 3. Please change config to check `/api/v2/monitor/health`\"}", ""},
		{"POST", "/api/experimental/dags/example_bash_operator/dag_runs", 405, `{"detail":"Method Not Allowed"}`, "GET"},
		{"POST", "/api/v1/dags/example_bash_operator/dagRuns", 405, `{"detail":"Method Not Allowed"}`, "GET"},
		{"DELETE", "/api/v2/nope", 405, `{"detail":"Method Not Allowed"}`, "GET"},
		{"POST", "/api/v2/version", 405, `{"detail":"Method Not Allowed"}`, "GET"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			res := ts.do(t, tc.method, tc.path, "")
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("%s %s = %d %s, want %d %s", tc.method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			if got := res.header.Get("Allow"); tc.wantAllow != "" && got != tc.wantAllow {
				t.Errorf("Allow %q, want %q", got, tc.wantAllow)
			}
		})
	}
}

// TestAPIv2_VersionAndHealth checks the two routes Airflow 3 answers
// without a token (tests/unit/api_fastapi/core_api/routes/public/
// test_version.py, test_monitor.py).
func TestAPIv2_VersionAndHealth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withAuth(authBasic, "ann:secret"))
	for _, tc := range []struct {
		path     string
		wantBody string
	}{
		{"/api/v2/version", `{"version":"3.2.1","git_version":null}`},
		// No scheduler in this server: unhealthy, no heartbeat, as Airflow
		// without a running scheduler job; no triggerer, no DAG processor.
		{"/api/v2/monitor/health", `{"metadatabase":{"status":"healthy"},"scheduler":{"status":"unhealthy","latest_scheduler_heartbeat":null},` +
			`"triggerer":{"status":null,"latest_triggerer_heartbeat":null},"dag_processor":{"status":null,"latest_dag_processor_heartbeat":null}}`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, tc.path, "")
			if res.status != http.StatusOK || res.body != tc.wantBody {
				t.Errorf("GET %s = %d %s, want 200 %s", tc.path, res.status, res.body, tc.wantBody)
			}
		})
	}
}

// TestServerV2_Journal checks that /_airlite/requests records /api/v2
// requests as it does the other APIs' (a client of edition 3 had an empty
// journal), and not the token routes, whose bodies hold passwords.
func TestServerV2_Journal(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Journal = newJournal(10) }))
	ts.v2(t, "GET", "/version", "", http.StatusOK)
	ts.v2(t, "PATCH", "/dags/example_bash_operator", `{"is_paused":true}`, http.StatusOK)
	res := ts.do(t, "GET", "/_airlite/requests", "")
	var got struct {
		Requests []struct {
			Method, Path, Body string
			Status             int
		}
	}
	if err := json.Unmarshal([]byte(res.body), &got); err != nil {
		t.Fatalf("journal %s: %v", res.body, err)
	}
	if len(got.Requests) != 2 {
		t.Fatalf("journal %s: want the two /api/v2 requests", res.body)
	}
	if r := got.Requests[1]; r.Method != "PATCH" || r.Path != "/api/v2/dags/example_bash_operator" ||
		r.Body != `{"is_paused":true}` || r.Status != http.StatusOK {
		t.Errorf("journal row %+v, want the PATCH with its body and 200", r)
	}
}
