package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// v2FileTokenOf is the file_token GET /api/v2/dags/{dag_id} answers.
func v2FileTokenOf(t *testing.T, ts *testServer, dagID string) string {
	t.Helper()
	res := ts.do(t, http.MethodGet, "/api/v2/dags/"+dagID, "")
	var d struct {
		FileToken string `json:"file_token"`
	}
	if err := json.Unmarshal([]byte(res.body), &d); err != nil || res.status != http.StatusOK || d.FileToken == "" {
		t.Fatalf("GET dag %s = %d %s", dagID, res.status, res.body)
	}
	return d.FileToken
}

// TestAPIv2_ReparseDagFile follows Airflow 3.2.1 test_dag_parsing.py:
// 201 and a null body, a second request while the first waits is 409,
// tokens airlite did not sign and files no DAG comes from are 404 File
// not found, and the action is logged.
func TestAPIv2_ReparseDagFile(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	url := "/api/v2/parseDagFile/" + v2FileTokenOf(t, ts, "tutorial")
	// test_201_and_400_requests
	if res := ts.do(t, http.MethodPut, url, ""); res.status != http.StatusCreated || res.body != "null" {
		t.Fatalf("PUT = %d %s, want 201 null", res.status, res.body)
	}
	res := ts.do(t, http.MethodPut, url, "")
	var dup struct {
		Detail v2DBErrorDetail `json:"detail"`
	}
	if err := json.Unmarshal([]byte(res.body), &dup); err != nil || res.status != http.StatusConflict || dup.Detail.Reason != "Unique constraint violation" {
		t.Errorf("second PUT = %d %s, want 409 Unique constraint violation", res.status, res.body)
	}
	events := ts.do(t, http.MethodGet, "/api/v2/eventLogs?event=reparse_dag_file", "")
	if !strings.Contains(events.body, `"total_entries":2`) || !strings.Contains(events.body, `"dag_id":null`) {
		t.Errorf("event log = %s, want two reparse_dag_file rows without a dag_id", events.body)
	}

	notFound := `{"detail":"File not found"}`
	for _, tc := range []struct{ name, token string }{
		// test_bad_file_request
		{"a file no DAG comes from", ts.srv.v2FileToken(ptr("some_bundle"), ptr("/some/random/file.py"))},
		{"another bundle", ts.srv.v2FileToken(ptr("other"), ptr("tutorial.yaml"))},
		{"not signed by airlite", "eyJidW5kbGVfbmFtZSI6ImRhZ3MtZm9sZGVyIn0.c2lnbmF0dXJl"},
		{"no signature", "token"},
		{"a stable API token", signFileToken(ts.srv.v1Secret, "tutorial.yaml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := ts.do(t, http.MethodPut, "/api/v2/parseDagFile/"+tc.token, ""); res.status != http.StatusNotFound || res.body != notFound {
				t.Errorf("PUT = %d %s, want 404 %s", res.status, res.body, notFound)
			}
		})
	}
}

// A parse request has the reloader read the file on its next pass even
// when its size and modification time did not move (an edit the walk's
// stamps cannot see), with no wait for the interval: the DAG's new task
// is served right after that pass, and the request is taken (a new one
// is accepted).
func TestAPIv2_ReparseDagFileReadsItAgain(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha", "bbbbb")})
	url := "/api/v2/parseDagFile/" + v2FileTokenOf(t, s.ts, "alpha")

	path := filepath.Join(s.folder.dir, "alpha.yaml")
	if err := os.WriteFile(path, []byte(reloadDAG("alpha", "ccccc")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, s.folder.mtime, s.folder.mtime); err != nil {
		t.Fatal(err)
	}
	s.pass(t, 0, false) // same stamp: a pass alone does not see the edit

	if res := s.ts.do(t, http.MethodPut, url, ""); res.status != http.StatusCreated {
		t.Fatalf("PUT = %d %s", res.status, res.body)
	}
	s.pass(t, 0, true)
	res := s.ts.do(t, http.MethodGet, "/api/v2/dags/alpha/tasks", "")
	if got := strings.Join(taskIDsOf(t, res.body), ","); got != "ccccc,first" {
		t.Errorf("tasks after the request = %s (%s), want ccccc,first", got, res.body)
	}
	if res := s.ts.do(t, http.MethodPut, url, ""); res.status != http.StatusCreated {
		t.Errorf("PUT after the pass = %d %s, want 201", res.status, res.body)
	}
	s.pass(t, time.Second, true)
}
