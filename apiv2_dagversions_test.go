package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestAPIv2_DagVersions reproduces test_dag_versions.py: a DAG's versions,
// every DAG's with "~", one by number, filters, order and the 404s.
func TestAPIv2_DagVersions(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	changed, err := parseDAGFor([]byte("dag_id: tutorial\nschedule: null\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo}\n"), testNow, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.UpsertDAG(changed); err != nil {
		t.Fatal(err)
	}
	v1, err := ts.store.DagVersionByNumber("tutorial", 1)
	if err != nil {
		t.Fatal(err)
	}
	want1 := `{"id":"` + v1.ID + `","version_number":1,"dag_id":"tutorial","bundle_name":"dags-folder","bundle_version":null,` +
		`"created_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"tutorial","bundle_url":null}`
	if res := ts.do(t, http.MethodGet, "/api/v2/dags/tutorial/dagVersions/1", ""); res.status != 200 || res.body != want1 {
		t.Errorf("version 1 = %d %s\nwant %s", res.status, res.body, want1)
	}
	numbers := func(t *testing.T, path string) ([]string, int) {
		t.Helper()
		res := ts.do(t, http.MethodGet, path, "")
		var c struct {
			Versions []struct {
				DagID  string `json:"dag_id"`
				Number int    `json:"version_number"`
			} `json:"dag_versions"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &c); err != nil || res.status != 200 {
			t.Fatalf("%s = %d %s", path, res.status, res.body)
		}
		out := []string{}
		for _, v := range c.Versions {
			out = append(out, v.DagID+"@"+string(rune('0'+v.Number)))
		}
		return out, c.Total
	}
	for _, tc := range []struct {
		path  string
		want  string
		total int
	}{
		{"/api/v2/dags/tutorial/dagVersions", "[tutorial@1 tutorial@2]", 2},
		{"/api/v2/dags/tutorial/dagVersions?order_by=-version_number", "[tutorial@2 tutorial@1]", 2},
		{"/api/v2/dags/tutorial/dagVersions?version_number=2", "[tutorial@2]", 1},
		{"/api/v2/dags/tutorial/dagVersions?bundle_name=dags-folder&limit=1&offset=1", "[tutorial@2]", 2},
		{"/api/v2/dags/tutorial/dagVersions?bundle_name=other", "[]", 0},
		{"/api/v2/dags/~/dagVersions?limit=2", "[example_bash_operator@1 example_python_operator@1]", 5},
	} {
		got, total := numbers(t, tc.path)
		if s := "[" + joinSpace(got) + "]"; s != tc.want || total != tc.total {
			t.Errorf("%s = %s %d, want %s %d", tc.path, s, total, tc.want, tc.total)
		}
	}
	for _, tc := range []struct {
		path       string
		wantStatus int
		want       string
	}{
		{"/api/v2/dags/tutorial/dagVersions/9", 404, "{\"detail\":\"The DagVersion with dag_id: `tutorial` and version_number: `9` was not found\"}"},
		{"/api/v2/dags/nope/dagVersions", 404, "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
		{"/api/v2/dags/tutorial/dagVersions?order_by=created_at", 400, `{"detail":"Ordering with 'created_at' is disallowed or the attribute does not exist on the model"}`},
		{"/api/v2/dags/tutorial/dagVersions/one", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","version_number"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"one"}]}`},
	} {
		if res := ts.do(t, http.MethodGet, tc.path, ""); res.status != tc.wantStatus || res.body != tc.want {
			t.Errorf("%s = %d %s, want %d %s", tc.path, res.status, res.body, tc.wantStatus, tc.want)
		}
	}
}

func joinSpace(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
