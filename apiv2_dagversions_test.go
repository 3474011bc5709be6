package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
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
		{"/api/v2/dags/~/dagVersions?limit=2", "[example_bash_operator@1 example_complex@1]", 12},
		// Ties of the keys go by id in the first key's direction
		// (SortParam.to_orm's final discriminator, c57fba0e
		// common/parameters.py:326-330); the ids were made in dag_id
		// order, tutorial@2 last.
		{"/api/v2/dags/~/dagVersions?order_by=-version_number&limit=3", "[tutorial@2 tutorial_taskflow_api@1 tutorial_dag@1]", 12},
		{"/api/v2/dags/~/dagVersions?order_by=-bundle_name&limit=2", "[tutorial@2 tutorial_taskflow_api@1]", 12},
		{"/api/v2/dags/~/dagVersions?order_by=bundle_version&limit=2", "[example_bash_operator@1 example_complex@1]", 12},
		{"/api/v2/dags/~/dagVersions?order_by=-version_number&order_by=id&limit=2", "[tutorial@2 example_bash_operator@1]", 12},
		{"/api/v2/dags/tutorial/dagVersions?order_by=-bundle_name", "[tutorial@2 tutorial@1]", 2},
		{"/api/v2/dags/tutorial/dagVersions?order_by=bundle_name", "[tutorial@1 tutorial@2]", 2},
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

// withDAGDisplayName gives the loaded DAG dagID a display name (as a
// Python file's dag_display_name does), on a copy of its definition.
func withDAGDisplayName(dagID, name string) testOption {
	return withOptions(func(o *serverOptions) {
		for i, d := range o.DAGs.DAGs {
			if d.DagID == dagID {
				c := *d
				c.DisplayName = name
				o.DAGs.DAGs[i] = &c
			}
		}
	})
}

// TestAPIv2_DagDisplayNameJoined: the answers that carry a DAG's
// dag_display_name take its DagModel's (datamodels backfills.py,
// dag_versions.py and event_log.py read AliasPath("dag_model",
// "dag_display_name"); dag_sources.py and dag_stats.py read the DAG model
// too), not the dag_id.
func TestAPIv2_DagDisplayNameJoined(t *testing.T) {
	t.Parallel()
	const dag, name = "example_bash_operator", "Bash, displayed"
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAGDisplayName(dag, name))
	ts.v2(t, "POST", "/dags/"+dag+"/dagRuns", `{"dag_run_id": "shown", "logical_date": null}`, 200, "Content-Type", "application/json")
	backfill := ts.v2(t, "POST", "/backfills", `{"dag_id": "`+dag+`", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z"}`, 200,
		"Content-Type", "application/json")
	for _, tc := range []struct {
		name, body string
		pick       func(m map[string]any) any
	}{
		{"backfill", backfill.body, func(m map[string]any) any { return m["dag_display_name"] }},
		{"dag stats", ts.v2(t, "GET", "/dagStats?dag_ids="+dag, "", 200).body,
			func(m map[string]any) any { return m["dags"].([]any)[0].(map[string]any)["dag_display_name"] }},
		{"dag source", ts.v2(t, "GET", "/dagSources/"+dag, "", 200).body, func(m map[string]any) any { return m["dag_display_name"] }},
		{"dag version", ts.v2(t, "GET", "/dags/"+dag+"/dagVersions/1", "", 200).body, func(m map[string]any) any { return m["dag_display_name"] }},
		{"dag versions", ts.v2(t, "GET", "/dags/"+dag+"/dagVersions", "", 200).body,
			func(m map[string]any) any { return m["dag_versions"].([]any)[0].(map[string]any)["dag_display_name"] }},
		{"event log", ts.v2(t, "GET", "/eventLogs?dag_id="+dag+"&limit=1", "", 200).body,
			func(m map[string]any) any { return m["event_logs"].([]any)[0].(map[string]any)["dag_display_name"] }},
		// The answers that nest a DagVersionResponse, and the run's and the
		// task instance's own (datamodels dag_run.py, task_instances.py).
		{"run", ts.v2(t, "GET", "/dags/"+dag+"/dagRuns/shown", "", 200).body, func(m map[string]any) any { return m["dag_display_name"] }},
		{"run's version", ts.v2(t, "GET", "/dags/"+dag+"/dagRuns/shown", "", 200).body,
			func(m map[string]any) any { return m["dag_versions"].([]any)[0].(map[string]any)["dag_display_name"] }},
		{"task instance", ts.v2(t, "GET", "/dags/"+dag+"/dagRuns/shown/taskInstances/runme_0", "", 200).body,
			func(m map[string]any) any { return m["dag_display_name"] }},
		{"task instance's version", ts.v2(t, "GET", "/dags/"+dag+"/dagRuns/shown/taskInstances/runme_0", "", 200).body,
			func(m map[string]any) any { return m["dag_version"].(map[string]any)["dag_display_name"] }},
		{"details' latest version", ts.v2(t, "GET", "/dags/"+dag+"/details", "", 200).body,
			func(m map[string]any) any { return m["latest_dag_version"].(map[string]any)["dag_display_name"] }},
	} {
		if got := tc.pick(decodeJSON[map[string]any](t, tc.body)); got != name {
			t.Errorf("%s: dag_display_name = %v, want %q (%s)", tc.name, got, name, tc.body)
		}
	}
}

// TestAPIv2_DagVersions_OneDagReadsThePage gives a DAG 300 versions and
// lists pages of them (by id and by version_number, either way, with
// bundle_name), checking through the store's rowsRead hook that a page
// reads its versions and those its offset skips, not every version of the
// DAG (which it read and sorted), and that each answer is the sorting
// path's (a second order key, which never decides).
func TestAPIv2_DagVersions_OneDagReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	row, err := ts.store.DagByID("example_bash_operator")
	if err != nil {
		t.Fatal(err)
	}
	err = ts.store.update(func(txn *memdb.Txn) error {
		for i := range 300 {
			d := *row.Def
			d.Description = fmt.Sprintf("version %d", i)
			if err := recordVersionTxn(txn, &d, testNow.Add(time.Duration(i)*time.Second)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const versions = "/dags/example_bash_operator/dagVersions"
	for _, tc := range []struct {
		query, tie string
		maxRead    int
	}{
		{"?limit=20", "&order_by=version_number", 20},
		{"?limit=20&offset=100&order_by=-id", "&order_by=version_number", 120},
		{"?limit=20&order_by=-version_number", "&order_by=id", 20},
		{"?limit=20&offset=40&order_by=version_number&bundle_name=dags-folder", "&order_by=id", 60},
	} {
		t.Run(tc.query, func(t *testing.T) {
			checkPageRead(t, ts, &read, http.MethodGet, versions+tc.query, "", versions+tc.query+tc.tie, "", tc.maxRead)
		})
	}
}
