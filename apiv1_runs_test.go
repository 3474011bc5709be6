package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// postRun creates a run through the stable API and fails unless it is
// created.
func (ts *testServer) postRun(t *testing.T, dagID, body string) map[string]any {
	t.Helper()
	res := ts.v1(t, "POST", "/dags/"+dagID+"/dagRuns", body)
	if res.status != http.StatusOK {
		t.Fatalf("post run %s %s: %d %s", dagID, body, res.status, res.body)
	}
	return decodeJSON[map[string]any](t, res.body)
}

// runIDsOf reads the dag_run_ids of a run collection, in order.
func runIDsOf(t *testing.T, body string) ([]string, float64) {
	t.Helper()
	var c struct {
		Runs []struct {
			RunID string `json:"dag_run_id"`
		} `json:"dag_runs"`
		Total float64 `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("collection %q: %v", body, err)
	}
	ids := []string{}
	for _, r := range c.Runs {
		ids = append(ids, r.RunID)
	}
	return ids, c.Total
}

func wantRuns(ids []string, total float64) func(t *testing.T, _ *testServer, res response) {
	return func(t *testing.T, _ *testServer, res response) {
		t.Helper()
		got, gotTotal := runIDsOf(t, res.body)
		if !reflect.DeepEqual(got, ids) || gotTotal != total {
			t.Errorf("runs %v (total %v), want %v (total %v)", got, gotTotal, ids, total)
		}
	}
}

// threeRuns creates runs r1, r2, r3 of tutorial on three days, r2 through
// the experimental API, and one run of example_bash_operator.
func threeRuns(t *testing.T, ts *testServer) {
	t.Helper()
	ts.postRun(t, "tutorial", `{"dag_run_id": "r1", "logical_date": "2024-01-03T00:00:00+00:00"}`)
	ts.trigger(t, "tutorial", `{"run_id": "r2", "execution_date": "2024-01-01T00:00:00+00:00"}`)
	ts.postRun(t, "tutorial", `{"dag_run_id": "r3", "execution_date": "2024-01-02T00:00:00Z", "note": "third"}`)
	ts.postRun(t, "example_bash_operator", `{"dag_run_id": "b1", "logical_date": "2024-01-05T00:00:00+00:00"}`)
}

// TestServerV1_DagRuns follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_dag_run_endpoint.py.
func TestServerV1_DagRuns(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "post", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"dag_run_id": "my_run", "logical_date": "2024-01-01T10:00:00+00:00", "conf": {"a": 1}, "note": "hi"}`,
			wantStatus: 200, wantJSON: `{"conf": {"a": 1}, "dag_id": "tutorial", "dag_run_id": "my_run",
				"data_interval_end": "2024-01-01T10:00:00+00:00", "data_interval_start": "2023-12-31T10:00:00+00:00",
				"end_date": null, "execution_date": "2024-01-01T10:00:00+00:00", "external_trigger": true,
				"last_scheduling_decision": null, "logical_date": "2024-01-01T10:00:00+00:00", "note": "hi",
				"run_type": "manual", "start_date": null, "state": "queued"}`,
			check: func(t *testing.T, ts *testServer, _ response) {
				// The experimental API sees the same run.
				res := ts.do(t, "GET", apiPrefix+"/dags/tutorial/dag_runs/2024-01-01T10:00:00+00:00", "")
				if res.body != `{"state": "queued"}` {
					t.Errorf("experimental state: %s", res.body)
				}
			}},
		{name: "post: defaults, cron interval", method: "POST", path: "/dags/example_bash_operator/dagRuns", body: `{}`,
			wantStatus: 200, check: func(t *testing.T, _ *testServer, res response) {
				got := decodeJSON[map[string]any](t, res.body)
				want := map[string]any{"dag_run_id": "manual__2024-05-01T10:00:00.123456+00:00",
					"logical_date": "2024-05-01T10:00:00.123456+00:00", "conf": map[string]any{},
					"data_interval_start": "2024-04-30T00:00:00+00:00", "data_interval_end": "2024-05-01T00:00:00+00:00"}
				for k, v := range want {
					if !reflect.DeepEqual(got[k], v) {
						t.Errorf("%s = %v, want %v", k, got[k], v)
					}
				}
			}},
		{name: "post: data interval given", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"logical_date": "2024-01-01T10:00:00+00:00", "data_interval_start": "2023-01-01T00:00:00+00:00", "data_interval_end": "2023-01-02T00:00:00+00:00"}`,
			wantStatus: 200, check: func(t *testing.T, _ *testServer, res response) {
				if !strings.Contains(res.body, `"data_interval_start": "2023-01-01T00:00:00+00:00"`) {
					t.Errorf("body %s", res.body)
				}
			}},
		// test_dag_run_endpoint.py:1443
		{name: "post: logical_date conflicts with execution_date", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"execution_date": "2020-11-10T08:25:56.939143+00:00", "logical_date": "2020-11-11T08:25:56.939143+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "logical_date conflicts with execution_date",
				detail: "'2020-11-11T08:25:56.939143+00:00' != '2020-11-10T08:25:56.939143+00:00'"}},
		// logical_date is nullable in v1.yaml, but DAGRunSchema's
		// execution_date column is not: marshmallow's "Field may not be
		// null." (2.10.3 api_connexion/schemas/dag_run_schema.py:66,86-91),
		// as the real Airflow 2.10.3 answered.
		{name: "post: logical_date null", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"dag_run_id": "n", "logical_date": null}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'logical_date': ['Field may not be null.']}"}},
		{name: "post: execution_date null", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"execution_date": null}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'logical_date': ['Field may not be null.']}"}},
		// test_dag_run_endpoint.py:1502
		{name: "post: naive date", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"execution_date": "2020-11-10T08:25:56.939143"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'2020-11-10T08:25:56.939143' is not a 'date-time' - 'execution_date'"}},
		// test_dag_run_endpoint.py:1535
		{name: "post: conf not an object", method: "POST", path: "/dags/tutorial/dagRuns", body: `{"conf": "some string"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'some string' is not of type 'object' - 'conf'"}},
		// test_dag_run_endpoint.py:1571, 1582
		{name: "post: start_date is read-only", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"start_date": "2020-06-11T18:00:00+00:00", "execution_date": "2020-06-12T18:00:00+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Property is read-only - 'start_date'"}},
		{name: "post: state is read-only", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"state": "failed", "execution_date": "2020-06-12T18:00:00+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Property is read-only - 'state'"}},
		{name: "post: one end of the interval", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"data_interval_start": "2023-01-01T00:00:00+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: `{'_schema': ["Both 'data_interval_start' and 'data_interval_end' must be specified together"]}`}},
		{name: "post: unknown DAG", method: "POST", path: "/dags/nope/dagRuns", body: `{}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "DAG not found", detail: "DAG with dag_id: 'nope' not found"}},
		// test_dag_run_endpoint.py:1600, 1620
		{name: "post: run_id taken", method: "POST", path: "/dags/tutorial/dagRuns", setup: threeRuns,
			body:       `{"dag_run_id": "r1", "execution_date": "2020-06-12T18:00:00+00:00"}`,
			wantStatus: 409, wantProblem: &wantProblem{title: "Conflict", detail: "DAGRun with DAG ID: 'tutorial' and DAGRun ID: 'r1' already exists"}},
		{name: "post: date taken", method: "POST", path: "/dags/tutorial/dagRuns", setup: threeRuns,
			body:       `{"dag_run_id": "new", "execution_date": "2024-01-01T00:00:00+00:00"}`,
			wantStatus: 409, wantProblem: &wantProblem{title: "Conflict",
				detail: "DAGRun with DAG ID: 'tutorial' and DAGRun logical date: '2024-01-01 00:00:00+00:00' already exists"}},
		// Airflow 2.10.3 airflow/models/dag.py:3152-3164, answered 400 by
		// dag_run_endpoint.py:360-361; after the duplicate checks.
		{name: "post: run id reserved for backfills", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"dag_run_id": "backfill__x", "execution_date": "2023-06-12T18:00:00+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: "A manual DAG run cannot use ID 'backfill__x' since it is reserved for backfill runs"}},
		{name: "post: run id reserved for the schedule", method: "POST", path: "/dags/tutorial/dagRuns",
			body:       `{"dag_run_id": "scheduled__2023-06-12", "execution_date": "2023-06-12T18:00:00+00:00"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request",
				detail: "A manual DAG run cannot use ID 'scheduled__2023-06-12' since it is reserved for scheduled runs"}},
		{name: "post: reserved id taken is a conflict first", method: "POST", path: "/dags/tutorial/dagRuns", setup: threeRuns,
			body:       `{"dag_run_id": "scheduled__x", "execution_date": "2024-01-01T00:00:00+00:00"}`,
			wantStatus: 409, wantProblem: &wantProblem{title: "Conflict",
				detail: "DAGRun with DAG ID: 'tutorial' and DAGRun logical date: '2024-01-01 00:00:00+00:00' already exists"}},
		{name: "get", path: "/dags/tutorial/dagRuns/r3?fields=dag_run_id&fields=note&fields=state", setup: threeRuns,
			wantStatus: 200, wantJSON: `{"dag_run_id": "r3", "note": "third", "state": "queued"}`},
		{name: "get: unknown field", path: "/dags/tutorial/dagRuns/r3?fields=nope", setup: threeRuns,
			wantStatus: 400, wantProblem: &wantProblem{title: "DAGRunSchema error", detail: "nope not in DAGRunSchema"}},
		{name: "get: unknown run", path: "/dags/tutorial/dagRuns/nope",
			wantStatus: 404, wantProblem: &wantProblem{title: "DAGRun not found", detail: "DAGRun with DAG ID: 'tutorial' and DagRun ID: 'nope' not found"}},
		{name: "get: the run named list", path: "/dags/~/dagRuns/list", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAGRun not found", detail: "DAGRun with DAG ID: '~' and DagRun ID: 'list' not found"}},
		{name: "list: by id", path: "/dags/tutorial/dagRuns", setup: threeRuns, wantStatus: 200, check: wantRuns([]string{"r1", "r2", "r3"}, 3)},
		{name: "list: by logical date, a page", path: "/dags/tutorial/dagRuns?order_by=execution_date&limit=2", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{"r2", "r3"}, 3)},
		{name: "list: by logical date descending, offset", path: "/dags/tutorial/dagRuns?order_by=-execution_date&offset=1", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{"r3", "r2"}, 3)},
		{name: "list: every DAG", path: "/dags/~/dagRuns?order_by=-dag_run_id", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{"r3", "r2", "r1", "b1"}, 4)},
		{name: "list: date filters", path: "/dags/~/dagRuns?execution_date_gte=2024-01-02T00:00:00%2B00:00&execution_date_lte=2024-01-03T00:00:00Z",
			setup: threeRuns, wantStatus: 200, check: wantRuns([]string{"r1", "r3"}, 2)},
		{name: "list: state filter", path: "/dags/tutorial/dagRuns?state=success&state=failed", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{}, 0)},
		{name: "list: start_date filter leaves out runs never started", path: "/dags/tutorial/dagRuns?start_date_gte=2000-01-01T00:00:00Z",
			setup: threeRuns, wantStatus: 200, check: wantRuns([]string{}, 0)},
		{name: "list: a date the format refuses", path: "/dags/tutorial/dagRuns?start_date_gte=2020-06-12T18", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'2020-06-12T18' is not a 'date-time'\n\nFailed validating 'format' in schema:\n    {'type': 'string', 'format': 'date-time'}\n\nOn instance:\n    '2020-06-12T18'"}},
		{name: "list: order_by not allowed", path: "/dags/tutorial/dagRuns?order_by=note", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'note' is disallowed or the attribute does not exist on the model"}},
		// test_dag_run_endpoint.py:975 (TestGetDagRunBatch 400s)
		{name: "batch", method: "POST", path: "/dags/~/dagRuns/list", setup: threeRuns,
			body:       `{"dag_ids": ["tutorial", "nope"], "order_by": "-execution_date", "page_limit": 2}`,
			wantStatus: 200, check: wantRuns([]string{"r1", "r3"}, 3)},
		{name: "batch: page_offset", method: "POST", path: "/dags/~/dagRuns/list", body: `{"page_offset": -1}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "-1 is less than the minimum of 0 - 'page_offset'"}},
		{name: "batch: page_limit", method: "POST", path: "/dags/~/dagRuns/list", body: `{"page_limit": 0}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "0 is less than the minimum of 1 - 'page_limit'"}},
		{name: "batch: dag_ids not an array", method: "POST", path: "/dags/~/dagRuns/list", body: `{"dag_ids": "TEST_DAG_ID"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'TEST_DAG_ID' is not of type 'array' - 'dag_ids'"}},
		{name: "batch: naive date", method: "POST", path: "/dags/~/dagRuns/list", body: `{"start_date_gte": "2020-06-12T18"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'2020-06-12T18' is not a 'date-time' - 'start_date_gte'"}},
		// test_dag_run_endpoint.py:1771
		{name: "patch state: not allowed", method: "PATCH", path: "/dags/tutorial/dagRuns/r1", setup: threeRuns, body: `{"state": "running"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'running' is not one of ['success', 'failed', 'queued'] - 'state'"}},
		{name: "patch state: unknown run", method: "PATCH", path: "/dags/tutorial/dagRuns/nope", body: `{"state": "success"}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dag Run id nope not found in dag tutorial", detail: nil}},
		{name: "patch state: success", method: "PATCH", path: "/dags/tutorial/dagRuns/r1", setup: threeRuns, body: `{"state": "success"}`,
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				got := decodeJSON[map[string]any](t, res.body)
				if got["state"] != "success" || got["end_date"] != "2024-05-01T10:00:00.123456+00:00" {
					t.Errorf("run %s", res.body)
				}
				ti, err := ts.store.TaskInstance("tutorial", "r1", "print_date")
				if err != nil || ti.State != TaskSuccess {
					t.Errorf("task instance %+v, %v: want success", ti, err)
				}
			}},
		{name: "clear: dry run is the default", method: "POST", path: "/dags/tutorial/dagRuns/r1/clear", setup: threeRuns, body: `{}`,
			wantStatus: 200, check: func(t *testing.T, _ *testServer, res response) {
				if !strings.Contains(res.body, `"task_id": "print_date"`) || !strings.Contains(res.body, `"dag_run_id": "r1"`) ||
					!strings.Contains(res.body, `"execution_date": "2024-01-03T00:00:00+00:00"`) {
					t.Errorf("dry run %s", res.body)
				}
			}},
		{name: "clear: a finished run is queued again", method: "POST", path: "/dags/tutorial/dagRuns/r1/clear", body: `{"dry_run": false}`,
			setup: func(t *testing.T, ts *testServer) {
				threeRuns(t, ts)
				ts.v1(t, "PATCH", "/dags/tutorial/dagRuns/r1", `{"state": "failed"}`)
			},
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				got := decodeJSON[map[string]any](t, res.body)
				if got["state"] != "queued" || got["start_date"] != nil || got["end_date"] != nil {
					t.Errorf("cleared run %s", res.body)
				}
				ti, err := ts.store.TaskInstance("tutorial", "r1", "print_date")
				if err != nil || ti.State != TaskNone {
					t.Errorf("task instance %+v, %v: want no state", ti, err)
				}
			}},
		{name: "clear: unknown run", method: "POST", path: "/dags/tutorial/dagRuns/nope/clear", body: `{}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dag Run id nope not found in dag   tutorial", detail: nil}},
		{name: "set note", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/setNote", setup: threeRuns, body: `{"note": "looked at"}`,
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				got := ts.v1(t, "GET", "/dags/tutorial/dagRuns/r1?fields=note", "")
				if got.body != "{\n  \"note\": \"looked at\"\n}\n" {
					t.Errorf("note read back: %q", got.body)
				}
			}},
		{name: "set note: too long", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/setNote", setup: threeRuns,
			body:       `{"note": "` + strings.Repeat("x", 1001) + `"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'note': ['Longer than maximum length 1000.']}"}},
		{name: "delete", method: "DELETE", path: "/dags/tutorial/dagRuns/r1", setup: threeRuns, wantStatus: 204, wantRaw: strPtr(""),
			check: func(t *testing.T, ts *testServer, _ response) {
				wantRuns([]string{"r2", "r3"}, 2)(t, ts, ts.v1(t, "GET", "/dags/tutorial/dagRuns", ""))
				if _, err := ts.store.TaskInstance("tutorial", "r1", "print_date"); err == nil {
					t.Error("the run's task instances are still there")
				}
			}},
		{name: "delete: unknown run", method: "DELETE", path: "/dags/tutorial/dagRuns/nope", wantStatus: 404,
			wantProblem: &wantProblem{title: "Not Found", detail: "DAGRun with DAG ID: 'tutorial' and DagRun ID: 'nope' not found"}},
		{name: "reset runs takes notes and all", method: "PATCH", path: "/dags/tutorial/dagRuns/r1/setNote", setup: threeRuns,
			body: `{"note": "gone soon"}`, wantStatus: 200, check: func(t *testing.T, ts *testServer, _ response) {
				if res := ts.do(t, "POST", "/_airlite/reset?scope=runs", ""); res.status != http.StatusOK {
					t.Fatalf("reset: %d %s", res.status, res.body)
				}
				if res := ts.v1(t, "GET", "/dags/tutorial/dagRuns/r1", ""); res.status != http.StatusNotFound {
					t.Errorf("after reset: %d %s", res.status, res.body)
				}
			}},
		{name: "upstream dataset events", path: "/dags/tutorial/dagRuns/r1/upstreamDatasetEvents", setup: threeRuns,
			wantStatus: 200, wantJSON: `{"dataset_events": [], "total_entries": 0}`},
	})
}

// A run triggered through /api/v1 is the experimental API's run too, and
// the status pages show it: the dag_run_url the experimental listing
// gives opens its run page, and / lists it.
func TestServerV1_RunSeenByBothAPIsAndThePages(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	res := ts.v1(t, "POST", "/dags/example_bash_operator/dagRuns", `{"dag_run_id": "through_v1", "logical_date": "2024-02-01T00:00:00+00:00"}`)
	if res.status != 200 {
		t.Fatalf("POST dagRuns: %d %s", res.status, res.body)
	}
	res = ts.do(t, "GET", apiPrefix+"/dags/example_bash_operator/dag_runs", "")
	var runs []map[string]any
	if err := json.Unmarshal([]byte(res.body), &runs); err != nil {
		t.Fatalf("experimental listing %q: %v", res.body, err)
	}
	url := ""
	for _, run := range runs {
		if run["run_id"] == "through_v1" {
			url, _ = run["dag_run_url"].(string)
		}
	}
	if url == "" {
		t.Fatalf("the experimental listing does not show the v1 run: %s", res.body)
	}
	if page := ts.do(t, "GET", url, ""); page.status != 200 || !strings.Contains(page.body, "through_v1") {
		t.Errorf("run page %s: %d, run id shown: %v", url, page.status, strings.Contains(page.body, "through_v1"))
	}
	if home := ts.do(t, "GET", "/", ""); !strings.Contains(home.body, "through_v1") {
		t.Errorf("/ does not list the v1 run")
	}
}

// TestServerV1_DagRunDateFilters checks the end_date and updated_at
// ranges of the run listings, GET and the batch form, as Airflow 2.10.3
// airflow/api_connexion/endpoints/dag_run_endpoint.py:154-172 applies them
// (start_date is in TestServerV1_DagRuns). Runs a, b, c are created at
// testNow; a is marked success an hour later, b failed two hours later.
func TestServerV1_DagRunDateFilters(t *testing.T) {
	t.Parallel()
	at := func(d time.Duration) string { return url.QueryEscape(isoFormat(testNow.Add(d))) }
	cases := []struct {
		name, method, path, body string
		want                     []string
	}{
		{"end_date_gte", "GET", "/dags/tutorial/dagRuns?end_date_gte=" + at(90*time.Minute), "", []string{"b"}},
		{"end_date_lte leaves out runs not ended", "GET", "/dags/tutorial/dagRuns?end_date_lte=" + at(90*time.Minute), "", []string{"a"}},
		{"end_date range, both ends inclusive", "GET",
			"/dags/tutorial/dagRuns?end_date_gte=" + at(time.Hour) + "&end_date_lte=" + at(2*time.Hour), "", []string{"a", "b"}},
		{"updated_at_gte", "GET", "/dags/tutorial/dagRuns?updated_at_gte=" + at(30*time.Minute), "", []string{"a", "b"}},
		{"updated_at_lte", "GET", "/dags/tutorial/dagRuns?updated_at_lte=" + at(30*time.Minute), "", []string{"c"}},
		{"batch: end_date_lte", "POST", "/dags/~/dagRuns/list", `{"end_date_lte": "` + isoFormat(testNow.Add(90*time.Minute)) + `"}`, []string{"a"}},
		// The form reads updated_at_* and never passes them on (dag_run_endpoint.py:285-297).
		{"batch: updated_at_gte is not applied", "POST", "/dags/~/dagRuns/list", `{"updated_at_gte": "` + isoFormat(testNow.Add(90*time.Minute)) + `"}`,
			[]string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(testNow)
			ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }))
			for i, id := range []string{"a", "b", "c"} {
				ts.postRun(t, "tutorial", fmt.Sprintf(`{"dag_run_id": %q, "logical_date": "2024-01-0%dT00:00:00+00:00"}`, id, i+1))
			}
			for _, mark := range []struct{ id, state string }{{"a", "success"}, {"b", "failed"}} {
				if _, err := clock.Advance(time.Hour); err != nil {
					t.Fatal(err)
				}
				if res := ts.v1(t, "PATCH", "/dags/tutorial/dagRuns/"+mark.id, `{"state": "`+mark.state+`"}`); res.status != http.StatusOK {
					t.Fatalf("patch %s: %d %s", mark.id, res.status, res.body)
				}
			}
			res := ts.v1(t, tc.method, tc.path, tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if got, total := runIDsOf(t, res.body); !slices.Equal(got, tc.want) || int(total) != len(tc.want) {
				t.Errorf("runs %v (total %v), want %v", got, total, tc.want)
			}
		})
	}
}

// TestServerV1_PatchDagRunState follows Airflow 2.10.3's
// update_dag_run_state (airflow/api_connexion/endpoints/dag_run_endpoint.py:390-397):
// the task instances as airflow/api/common/mark_tasks.py marks them
// (success: every one, :405-411; failed: running ones fail, unfinished
// ones are skipped, :479-527; queued: none, :563-566), and the run's dates
// as DagRun.set_state moves them (airflow/models/dagrun.py:326-346): an
// end_date only when an unfinished run finishes, none of a queued run.
// Each PATCH comes an hour after the one before, on a fake clock.
func TestServerV1_PatchDagRunState(t *testing.T) {
	t.Parallel()
	hour := func(n int) *time.Time { d := testNow.Add(time.Duration(n) * time.Hour); return &d }
	cases := []struct {
		name       string
		patches    []string
		wantRun    RunState
		start, end *time.Time // the run's dates afterwards
		queuedAt   *time.Time // nil: not checked
		wantTIs    map[string]TaskState
	}{
		{"failed", []string{"failed"}, RunFailed, nil, hour(1), nil,
			map[string]TaskState{"print_date": TaskFailed, "sleep": TaskSuccess, "templated": TaskSkipped}},
		{"success", []string{"success"}, RunSuccess, nil, hour(1), nil,
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskSuccess, "templated": TaskSuccess}},
		{"failed after success keeps the end_date", []string{"success", "failed"}, RunFailed, nil, hour(1), nil,
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskSuccess, "templated": TaskSuccess}},
		{"success twice keeps the end_date", []string{"success", "success"}, RunSuccess, nil, hour(1), nil,
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskSuccess, "templated": TaskSuccess}},
		{"queued after success: no dates, tasks kept", []string{"success", "queued"}, RunQueued, nil, nil, hour(2),
			map[string]TaskState{"print_date": TaskSuccess, "sleep": TaskSuccess, "templated": TaskSuccess}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(testNow)
			ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }))
			ts.postRun(t, "tutorial", `{"dag_run_id": "r1", "logical_date": "2024-01-03T00:00:00+00:00"}`)
			ts.setTaskState(t, "tutorial", "r1", "print_date", TaskRunning)
			ts.setTaskState(t, "tutorial", "r1", "sleep", TaskSuccess)
			for _, state := range tc.patches {
				if _, err := clock.Advance(time.Hour); err != nil {
					t.Fatal(err)
				}
				if res := ts.v1(t, "PATCH", "/dags/tutorial/dagRuns/r1", `{"state": "`+state+`"}`); res.status != http.StatusOK {
					t.Fatalf("patch %s: %d %s", state, res.status, res.body)
				}
			}
			run, err := ts.store.RunByRunID("tutorial", "r1")
			if err != nil {
				t.Fatal(err)
			}
			if run.State != tc.wantRun {
				t.Errorf("run = %q, want %q", run.State, tc.wantRun)
			}
			sameTime := func(what string, got, want *time.Time) {
				t.Helper()
				if (got == nil) != (want == nil) || (got != nil && !got.Equal(*want)) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			sameTime("start_date", run.StartDate, tc.start)
			sameTime("end_date", run.EndDate, tc.end)
			if tc.queuedAt != nil {
				sameTime("queued_at", run.QueuedAt, tc.queuedAt)
			}
			for task, want := range tc.wantTIs {
				if got := ts.tiState(t, "tutorial", "r1", task); got != want {
					t.Errorf("%s = %q, want %q", task, orNone(got), orNone(want))
				}
			}
		})
	}
}
