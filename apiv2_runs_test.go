package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The DAG run routes of /api/v2, after Airflow 3.2.1's
// tests/unit/api_fastapi/core_api/routes/public/test_dag_run.py.

const v2RunsDAG = `
dag_id: v2runs
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: task_1, operator: EmptyOperator}
  - {task_id: task_2, operator: EmptyOperator}
`

// v2NoManualDAG allows scheduled and backfill runs only.
const v2NoManualDAG = `
dag_id: v2nomanual
schedule: "@daily"
start_date: 2024-01-01T00:00:00+00:00
allowed_run_types: [scheduled, backfill]
tasks:
  - {task_id: task_1, operator: EmptyOperator}
`

// v2JSON decodes an answer's body.
func v2JSON(t *testing.T, res response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(res.body), &m); err != nil {
		t.Fatalf("decode %q: %v", res.body, err)
	}
	return m
}

// TestAPIv2_TriggerDagRun: the answers of trigger_dag_run, with a
// logical date (test_should_respond_200) and with null
// (test_should_respond_200_with_null_logical_date), in the model's field
// order.
func TestAPIv2_TriggerDagRun(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	// testNow is 2024-05-01T10:00:00.123456Z: run_after defaults to it.
	// The caller is all-admins mode's anonymous admin.
	res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns",
		`{"dag_run_id": "dag_run_5", "note": "test-note", "logical_date": "2024-05-01T10:00:00.123456+00:00"}`)
	want := `{"dag_run_id":"dag_run_5","dag_id":"v2runs","logical_date":"2024-05-01T10:00:00.123456Z","queued_at":"2024-05-01T10:00:00.123456Z",` +
		`"start_date":null,"end_date":null,"duration":null,"data_interval_start":"2024-05-01T10:00:00.123456Z","data_interval_end":"2024-05-01T10:00:00.123456Z",` +
		`"run_after":"2024-05-01T10:00:00.123456Z","last_scheduling_decision":null,"run_type":"manual","state":"queued","triggered_by":"rest_api",` +
		`"triggering_user_name":"Anonymous","conf":{},"note":"test-note","dag_versions":[{"id":"<uuid>","version_number":1,"dag_id":"v2runs",` +
		`"bundle_name":"dags-folder","bundle_version":null,"created_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"v2runs","bundle_url":null}],` +
		`"bundle_version":null,"dag_display_name":"v2runs","partition_key":null}`
	// The DAG version's id is a UUID of its own.
	body := regexp.MustCompile(`"id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`).ReplaceAllString(res.body, `"id":"<uuid>"`)
	if res.status != http.StatusOK || body != want {
		t.Errorf("trigger = %d %s\nwant 200 %s", res.status, res.body, want)
	}
	// Without a run id: manual__ and run_after; the interval given is kept.
	res = ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", `{"logical_date": "2024-01-02T00:00:00Z",
		"data_interval_start": "2024-01-03T00:00:00+00:00", "data_interval_end": "2024-01-04T05:00:00+00:00", "conf": {"b": 1, "a": [true]}}`)
	got := v2JSON(t, res)
	if res.status != http.StatusOK || got["dag_run_id"] != "manual__2024-05-01T10:00:00.123456+00:00" ||
		got["data_interval_start"] != "2024-01-03T00:00:00Z" || got["data_interval_end"] != "2024-01-04T05:00:00Z" ||
		got["run_after"] != "2024-05-01T10:00:00.123456Z" || !strings.Contains(res.body, `"conf":{"b":1,"a":[true]}`) {
		t.Errorf("trigger with an interval = %d %s", res.status, res.body)
	}
	// logical_date null: no date, no interval, the id the timetable makes
	// of run_after; the frozen clock's instant is taken, so each run is a
	// microsecond later (TestAPIv2_TriggerRunIDs).
	for _, at := range []string{"2024-05-01T10:00:00.123457", "2024-05-01T10:00:00.123458"} {
		res = ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", `{"logical_date": null}`)
		got = v2JSON(t, res)
		if res.status != http.StatusOK || got["logical_date"] != nil || got["data_interval_start"] != nil ||
			got["dag_run_id"] != "manual__"+at+"+00:00" || got["run_after"] != at+"Z" {
			t.Errorf("trigger with logical_date null = %d %s, want run %s", res.status, res.body, at)
		}
	}
}

// TestAPIv2_TriggerDagRunErrors: test_invalid_data, the 404s, the 409 of
// a duplicate logical date or run id, a missing logical_date, an
// interval given by half, a run id the patterns refuse, a DAG whose
// allowed_run_types leave out manual (after the body's 422s and the 404).
func TestAPIv2_TriggerDagRunErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG), withOwnDAG(v2NoManualDAG))
	if res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", `{"dag_run_id": "r1", "logical_date": "2024-01-01T00:00:00Z"}`); res.status != http.StatusOK {
		t.Fatalf("first trigger: %d %s", res.status, res.body)
	}
	conflict := `^\{"detail":\{"reason":"Unique constraint violation","statement":"hidden","orig_error":"hidden","message":"Serious error when handling your request\. ` +
		`Check logs for more details - you will find it in api server when you look for ID [A-Za-z0-9]{8}"\}\}$`
	for _, tc := range []struct {
		name, dagID, body string
		status            int
		want              string // exact body, or a pattern when it starts with ^
	}{
		{"extra field", "v2runs", `{"executiondate": "2020-11-10T08:25:56Z", "logical_date": null}`, 422,
			`{"detail":[{"type":"extra_forbidden","loc":["body","executiondate"],"msg":"Extra inputs are not permitted","input":"2020-11-10T08:25:56Z"}]}`},
		{"naive interval start", "v2runs", `{"data_interval_start": "2020-11-10T08:25:56", "logical_date": null}`, 422,
			`{"detail":[{"type":"timezone_aware","loc":["body","data_interval_start"],"msg":"Input should have timezone info","input":"2020-11-10T08:25:56"}]}`},
		{"run id not a string", "v2runs", `{"dag_run_id": 20, "logical_date": null}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","dag_run_id"],"msg":"Input should be a valid string","input":20}]}`},
		{"conf not a dict", "v2runs", `{"conf": 20, "logical_date": null}`, 422,
			`{"detail":[{"type":"dict_type","loc":["body","conf"],"msg":"Input should be a valid dictionary","input":20}]}`},
		{"logical_date missing", "v2runs", `{}`, 422,
			`{"detail":[{"type":"missing","loc":["body","logical_date"],"msg":"Field required","input":{}}]}`},
		{"no body", "v2runs", ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"half an interval", "v2runs", `{"data_interval_start": "2024-02-16T00:00:00+00:00", "logical_date": null}`, 422,
			`{"detail":[{"type":"value_error","loc":["body"],"msg":"Value error, Either both data_interval_start and data_interval_end must be provided or both must be None",` +
				`"input":{"data_interval_start":"2024-02-16T00:00:00+00:00","logical_date":null},"ctx":{"error":{}}}]}`},
		{"unknown DAG", "randoms", `{"logical_date": null}`, 404, `{"detail":"DAG with dag_id: 'randoms' not found"}`},
		{"same logical date", "v2runs", `{"dag_run_id": "r2", "logical_date": "2024-01-01T00:00:00Z"}`, 409, conflict},
		{"same run id", "v2runs", `{"dag_run_id": "r1", "logical_date": null}`, 409, conflict},
		{"manual runs not allowed", "v2nomanual", `{"logical_date": null}`, 400,
			`{"detail":"Dag with dag_id: 'v2nomanual' does not allow manual runs"}`},
		{"manual runs not allowed, body refused first", "v2nomanual", `{}`, 422,
			`{"detail":[{"type":"missing","loc":["body","logical_date"],"msg":"Field required","input":{}}]}`},
		{"manual runs not allowed, run id", "v2nomanual", `{"dag_run_id": "a b", "logical_date": null}`, 400,
			`{"detail":"Dag with dag_id: 'v2nomanual' does not allow manual runs"}`},
		{"run id refused", "v2runs", `{"dag_run_id": "a b", "logical_date": null}`, 400,
			`{"detail":"The run_id provided 'a b' does not match regex pattern '^[A-Za-z0-9_.~:+-]+$' or '^(?:manual|scheduled|asset_triggered)__(?:\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00)$'"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, http.MethodPost, "/api/v2/dags/"+tc.dagID+"/dagRuns", tc.body, "Content-Type", "application/json")
			ok := res.body == tc.want
			if strings.HasPrefix(tc.want, "^") {
				ok = regexp.MustCompile(tc.want).MatchString(res.body)
			}
			if res.status != tc.status || !ok {
				t.Errorf("= %d %s\nwant %d %s", res.status, res.body, tc.status, tc.want)
			}
		})
	}
}

// v2Trigger posts a trigger that must succeed and returns its run id.
func v2Trigger(t *testing.T, ts *testServer, dagID, body string) string {
	t.Helper()
	res := ts.do(t, http.MethodPost, "/api/v2/dags/"+dagID+"/dagRuns", body)
	if res.status != http.StatusOK {
		t.Fatalf("trigger %s %s: %d %s", dagID, body, res.status, res.body)
	}
	return v2JSON(t, res)["dag_run_id"].(string)
}

// v2RunIDs are the run ids of a collection answer, in order.
func v2RunIDs(t *testing.T, res response) []string {
	t.Helper()
	var c struct {
		DagRuns []struct {
			ID string `json:"dag_run_id"`
		} `json:"dag_runs"`
		Total int `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(res.body), &c); err != nil {
		t.Fatalf("decode %s: %v", res.body, err)
	}
	ids := []string{}
	for _, r := range c.DagRuns {
		ids = append(ids, r.ID)
	}
	return append(ids, "total="+itoa(c.Total))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAPIv2_GetDagRuns: get_dag_run, get_dag_runs with its filters,
// order_by and pagination, ~ across DAGs, and the batch list.
func TestAPIv2_GetDagRuns(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG), withDAG(strings.Replace(v2RunsDAG, "dag_id: v2runs", "dag_id: other", 1)))
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "dag_run_1", "logical_date": "2024-02-16T00:00:00Z"}`)
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "dag_run_2", "logical_date": "2024-02-20T00:00:00Z", "conf": {"k": "needle"}}`)
	v2Trigger(t, ts, "other", `{"dag_run_id": "dag_run_3", "logical_date": null}`)
	if res := ts.do(t, http.MethodPatch, "/api/v2/dags/v2runs/dagRuns/dag_run_2", `{"state": "failed"}`); res.status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.status, res.body)
	}
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"/dags/v2runs/dagRuns", "dag_run_1 dag_run_2 total=2"},
		{"/dags/~/dagRuns", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/v2runs/dagRuns?order_by=-id", "dag_run_2 dag_run_1 total=2"},
		{"/dags/v2runs/dagRuns?order_by=state", "dag_run_2 dag_run_1 total=2"},
		{"/dags/v2runs/dagRuns?order_by=-dag_run_id", "dag_run_2 dag_run_1 total=2"},
		{"/dags/~/dagRuns?order_by=-logical_date", "dag_run_2 dag_run_1 dag_run_3 total=3"},
		{"/dags/v2runs/dagRuns?limit=1&offset=1", "dag_run_2 total=2"},
		{"/dags/v2runs/dagRuns?logical_date_gte=2024-02-17T00:00:00Z", "dag_run_2 total=1"},
		{"/dags/v2runs/dagRuns?logical_date_lt=2024-02-20T00:00:00Z", "dag_run_1 total=1"},
		{"/dags/~/dagRuns?state=queued", "dag_run_1 dag_run_3 total=2"},
		{"/dags/~/dagRuns?state=failed&state=success", "dag_run_2 total=1"},
		{"/dags/~/dagRuns?run_type=manual", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?run_type=scheduled", "total=0"},
		{"/dags/~/dagRuns?conf_contains=needle", "dag_run_2 total=1"},
		{"/dags/~/dagRuns?run_id_pattern=run_3", "dag_run_3 total=1"},
		// "|" between two terms or more is an OR; with one term left
		// (a leading or trailing "|"), or none, 3.2.1 matches the value
		// as it came, "|" and all (_SearchParam.to_orm's len(terms) > 1,
		// c57fba0e parameters.py:181-186): no run id holds "|". Matching
		// the one term is apache/airflow#65190, in 3.2.2.
		{"/dags/~/dagRuns?run_id_pattern=run_3%7Crun_1", "dag_run_1 dag_run_3 total=2"},
		{"/dags/~/dagRuns?run_id_pattern=run_3%7C", "total=0"},
		{"/dags/~/dagRuns?run_id_pattern=%7Crun_3", "total=0"},
		{"/dags/~/dagRuns?run_id_pattern=%20%7C%20run_3", "total=0"},
		{"/dags/~/dagRuns?run_id_pattern=%7C", "total=0"},
		{"/dags/~/dagRuns?dag_id_pattern=oth", "dag_run_3 total=1"},
		// All-admins mode: the caller is the anonymous admin.
		{"/dags/~/dagRuns?triggering_user_name_pattern=anon", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?triggering_user_name_pattern=bob", "total=0"},
		// A run not started or not ended counts as now (testNow) in the
		// start and end ranges (datetime_range_filter_factory's COALESCE);
		// dag_run_2 ended at testNow when it was set failed.
		{"/dags/~/dagRuns?end_date_gte=2024-05-01T00:00:00Z", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?end_date_lt=2024-05-01T00:00:00Z", "total=0"},
		{"/dags/~/dagRuns?start_date_lte=2024-05-02T00:00:00Z&start_date_gt=2024-05-01T00:00:00Z", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?start_date_gt=2024-05-02T00:00:00Z", "total=0"},
		// RangeFilter applies a bound only when it is truthy: 0 filters
		// nothing, so runs without a duration stay.
		{"/dags/~/dagRuns?duration_gte=0", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?duration_lt=0.0", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"/dags/~/dagRuns?duration_gte=0.5", "total=0"},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2"+tc.query, "")
		if got := strings.Join(v2RunIDs(t, res), " "); res.status != http.StatusOK || got != tc.want {
			t.Errorf("GET %s = %d %s, want %s", tc.query, res.status, got, tc.want)
		}
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/dags/v2runs/dagRuns/invalid", "", 404, `{"detail":"The DagRun with dag_id: ` + "`v2runs`" + ` and run_id: ` + "`invalid`" + ` was not found"}`},
		// 3.1+ checks the DAG with get_latest_version_of_dag (test_dag_run.py
		// test_get_dag_runs_not_found); "The DAG with dag_id" was 3.0's.
		{"GET", "/dags/invalid/dagRuns", "", 404, `{"detail":"The Dag with ID: ` + "`invalid`" + ` was not found"}`},
		{"GET", "/dags/v2runs/dagRuns?order_by=invalid", "", 400, `{"detail":"Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}`},
		{"GET", "/dags/v2runs/dagRuns?state=nope", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		{"GET", "/dags/v2runs/dagRuns?run_type=nope", "", 422, `{"detail":"Invalid value for run type. Valid values are backfill, scheduled, manual, asset_triggered, asset_materialization"}`},
		// run_type's and state's transforms raise inside their dependencies,
		// which FastAPI solves before it reports the query's validation
		// errors, in the signature's order (run_type before state): airflowctl's
		// "dagrun list" sends limit= and state= empty when not given.
		{"GET", "/dags/v2runs/dagRuns?start_date=&end_date=&state=&limit=&dag_id=v2runs", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		{"GET", "/dags/v2runs/dagRuns?limit=x&state=nope&run_type=nope", "", 422, `{"detail":"Invalid value for run type. Valid values are backfill, scheduled, manual, asset_triggered, asset_materialization"}`},
		{"GET", "/dags/invalid/dagRuns?state=nope", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		{"GET", "/dags/v2runs/dagRuns?limit=-1&offset=-1", "", 422, `{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}},` +
			`{"type":"greater_than_equal","loc":["query","offset"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"POST", "/dags/v2runs/dagRuns/list", `{}`, 422, `{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"v2runs","ctx":{"expected":"'~'"}}]}`},
		{"POST", "/dags/v2runs/dagRuns/list", `{"page_limit": -1}`, 422, `{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"v2runs","ctx":{"expected":"'~'"}},` +
			`{"type":"greater_than_equal","loc":["body","page_limit"],"msg":"Input should be greater than or equal to 0","input":-1,"ctx":{"ge":0}}]}`},
		{"POST", "/dags/~/dagRuns/list", `{"page_limit": -1}`, 422, `{"detail":[{"type":"greater_than_equal","loc":["body","page_limit"],"msg":"Input should be greater than or equal to 0","input":-1,"ctx":{"ge":0}}]}`},
	} {
		res := ts.do(t, tc.method, "/api/v2"+tc.path, tc.body)
		if res.status != tc.status || res.body != tc.want {
			t.Errorf("%s %s = %d %s\nwant %d %s", tc.method, tc.path, res.status, res.body, tc.status, tc.want)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{`{}`, "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{`{"dag_ids": ["other"]}`, "dag_run_3 total=1"},
		// dag_id IN ('other', 'other'): a DAG named twice is one DAG.
		{`{"dag_ids": ["other", "other"]}`, "dag_run_3 total=1"},
		{`{"dag_ids": ["other", "other"], "states": ["success", "failed", "queued", "running"]}`, "dag_run_3 total=1"},
		// dag_id IN (''): no DAG has the empty id.
		{`{"dag_ids": [""]}`, "total=0"},
		{`{"states": ["failed"], "order_by": "-id"}`, "dag_run_2 total=1"},
		{`{"logical_date_gte": "2024-02-17T00:00:00Z", "page_limit": 5}`, "dag_run_2 total=1"},
		{`{"order_by": "-dag_run_id", "page_offset": 1}`, "dag_run_2 dag_run_1 total=3"},
		// A duration bound given as an integer bounds; 0 bounds nothing.
		{`{"duration_gte": 1}`, "total=0"},
		{`{"duration_gte": 0}`, "dag_run_1 dag_run_2 dag_run_3 total=3"},
	} {
		res := ts.do(t, http.MethodPost, "/api/v2/dags/~/dagRuns/list", tc.body)
		if got := strings.Join(v2RunIDs(t, res), " "); res.status != http.StatusOK || got != tc.want {
			t.Errorf("batch %s = %d %s (%s), want %s", tc.body, res.status, got, res.body, tc.want)
		}
	}
}

// TestAPIv2_PatchClearDeleteDagRun: patch_dag_run (state, note,
// update_mask), clear_dag_run's dry run, delete_dag_run.
func TestAPIv2_PatchClearDeleteDagRun(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "r", "logical_date": null}`)
	path := "/api/v2/dags/v2runs/dagRuns/r"
	res := ts.do(t, http.MethodPatch, path, `{"state": "success", "note": "n1"}`)
	if got := v2JSON(t, res); res.status != 200 || got["state"] != "success" || got["note"] != "n1" || got["end_date"] == nil {
		t.Errorf("patch state and note = %d %s", res.status, res.body)
	}
	res = ts.do(t, http.MethodPatch, path+"?update_mask=note", `{"state": "failed", "note": "n2"}`)
	if got := v2JSON(t, res); res.status != 200 || got["state"] != "success" || got["note"] != "n2" {
		t.Errorf("patch with update_mask=note = %d %s", res.status, res.body)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"state": "running"}`, `{"detail":[{"type":"enum","loc":["body","state"],"msg":"Input should be 'queued', 'success' or 'failed'","input":"running","ctx":{"expected":"'queued', 'success' or 'failed'"}}]}`},
		{`{"note": "` + strings.Repeat("x", 1001) + `"}`, `"type":"string_too_long"`},
	} {
		res := ts.do(t, http.MethodPatch, path, tc.body)
		if res.status != 422 || !strings.Contains(res.body, tc.want) {
			t.Errorf("patch %.40s = %d %s, want 422 %s", tc.body, res.status, res.body, tc.want)
		}
	}
	// The dry run (the default) lists both task instances and changes nothing.
	res = ts.do(t, http.MethodPost, path+"/clear", `{}`)
	if got := v2JSON(t, res); res.status != 200 || got["total_entries"] != 2.0 || !strings.Contains(res.body, `"state":"success"`) {
		t.Errorf("clear dry run = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, path+"/clear", `{"dry_run": true, "only_failed": true}`); !strings.Contains(res.body, `"total_entries":0`) {
		t.Errorf("clear dry run only failed = %d %s", res.status, res.body)
	}
	res = ts.do(t, http.MethodPost, path+"/clear", `{"dry_run": false}`)
	if got := v2JSON(t, res); res.status != 200 || got["state"] != "queued" || got["dag_run_id"] != "r" {
		t.Errorf("clear = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns/nope/clear", `{"dry_run": false}`); res.status != 404 {
		t.Errorf("clear a missing run = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodGet, path+"/upstreamAssetEvents", ""); res.body != `{"asset_events":[],"total_entries":0}` {
		t.Errorf("upstreamAssetEvents = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodDelete, path, ""); res.status != http.StatusNoContent {
		t.Errorf("delete = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodDelete, path, ""); res.status != 404 {
		t.Errorf("delete again = %d %s", res.status, res.body)
	}
}

// TestAPIv2_RunsThroughTheScheduler: a v2 trigger with logical_date null
// runs a bash task to success on the scheduler; a failing task fails its
// run; clearing the run runs it again, to success; wait answers the
// finished run's state and its task's return value at once.
func TestAPIv2_RunsThroughTheScheduler(t *testing.T) {
	t.Parallel()
	flag := t.TempDir() + "/ran-once"
	dag := `
dag_id: v2bash
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: hello
    operator: BashOperator
    bash_command: echo "hello {{ run_id }}"
    downstream: [flaky]
  - task_id: flaky
    operator: BashOperator
    bash_command: "test -e ` + flag + ` || { touch ` + flag + `; exit 1; }; echo second"
`
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(dag))
	runID := v2Trigger(t, ts, "v2bash", `{"logical_date": null}`)
	path := "/api/v2/dags/v2bash/dagRuns/" + runID
	settleTicks(t, sched, time.Now)
	got := v2JSON(t, ts.do(t, http.MethodGet, path, ""))
	if got["state"] != "failed" || got["logical_date"] != nil || got["start_date"] == nil || got["duration"] == nil {
		t.Fatalf("run after the first pass: %v, want failed", got)
	}
	hello, _ := ts.store.TaskInstance("v2bash", runID, "hello")
	flaky, _ := ts.store.TaskInstance("v2bash", runID, "flaky")
	if states := []TaskState{hello.State, flaky.State}; states[0] != TaskSuccess || states[1] != TaskFailed {
		t.Fatalf("task states %v, want hello success, flaky failed", states)
	}
	res := ts.do(t, http.MethodPost, path+"/clear", `{"dry_run": false, "only_failed": true}`)
	if got := v2JSON(t, res); res.status != 200 || got["state"] != "queued" {
		t.Fatalf("clear = %d %s", res.status, res.body)
	}
	settleTicks(t, sched, time.Now)
	if got := v2JSON(t, ts.do(t, http.MethodGet, path, "")); got["state"] != "success" {
		t.Fatalf("run after the clear: %v, want success", got)
	}
	flaky, err := ts.store.TaskInstance("v2bash", runID, "flaky")
	if err != nil || flaky.TryNumber != 2 || flaky.State != TaskSuccess {
		t.Errorf("flaky: %+v %v, want success on try 2", flaky, err)
	}
	res = ts.do(t, http.MethodGet, path+"/wait?interval=1&result=hello&result=flaky&result=none", "")
	// Each value as the column holds it: a task's return value itself.
	want := `{"state": "success", "results": {"flaky": "second", "hello": "hello ` + runID + `"}}` + "\n"
	// dag_run.py wait_dag_run_until_finished returns StreamingResponse with
	// no media_type, so Starlette sends no Content-Type (the document's
	// application/x-ndjson is only its description); the generated client
	// then reads the body as JSON, and refuses one typed x-ndjson.
	if ctype := res.header.Get("Content-Type"); res.status != 200 || res.body != want || ctype != "" {
		t.Errorf("wait = %d %q (Content-Type %q)\nwant %q and no Content-Type", res.status, res.body, ctype, want)
	}
	for _, tc := range []struct{ query, want string }{
		{"", `{"detail":[{"type":"missing","loc":["query","interval"],"msg":"Field required","input":null}]}`},
		{"?interval=0", `{"detail":[{"type":"greater_than","loc":["query","interval"],"msg":"Input should be greater than 0","input":"0","ctx":{"gt":0.0}}]}`},
	} {
		if res := ts.do(t, http.MethodGet, path+"/wait"+tc.query, ""); res.status != 422 || res.body != tc.want {
			t.Errorf("wait%s = %d %s, want 422 %s", tc.query, res.status, res.body, tc.want)
		}
	}
	if res := ts.do(t, http.MethodGet, "/api/v2/dags/v2bash/dagRuns/nope/wait?interval=1", ""); res.status != 404 {
		t.Errorf("wait for a missing run = %d %s", res.status, res.body)
	}
}

// TestAPIv2_WaitStreamsUntilTheRunEnds: wait answers a line per interval
// while the run is not finished, the last one its end.
func TestAPIv2_WaitStreamsUntilTheRunEnds(t *testing.T) {
	t.Parallel()
	ts, _ := newSchedServer(t, edition3, nil, withDAG(`
dag_id: v2wait
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: BashOperator, bash_command: "sleep 0.3"}
`))
	runID := v2Trigger(t, ts, "v2wait", `{"logical_date": null}`)
	res := ts.do(t, http.MethodGet, "/api/v2/dags/v2wait/dagRuns/"+runID+"/wait?interval=0.05", "")
	lines := strings.Split(strings.TrimSuffix(res.body, "\n"), "\n")
	if res.status != 200 || len(lines) < 2 || lines[len(lines)-1] != `{"state": "success"}` {
		t.Fatalf("wait = %d %q, want several lines ending in success", res.status, res.body)
	}
	for _, line := range lines[:len(lines)-1] {
		if line != `{"state": "queued"}` && line != `{"state": "running"}` {
			t.Errorf("line %q before the end, want queued or running", line)
		}
	}
}

// TestAPIv2_DagRunsNeedAToken: under the simple auth manager with users,
// the run routes answer 401 without a token; with one, the run records
// its user as triggering_user_name.
func TestAPIv2_DagRunsNeedAToken(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	if res := ts.do(t, http.MethodGet, "/api/v2/dags/~/dagRuns", ""); res.status != 401 || res.body != `{"detail":"Not authenticated"}` {
		t.Errorf("list without a token = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/dags/example_bash_operator/dagRuns", `{"logical_date": null}`); res.status != 401 {
		t.Errorf("trigger without a token = %d %s", res.status, res.body)
	}
	res := ts.do(t, http.MethodPost, "/api/v2/dags/example_bash_operator/dagRuns", `{"logical_date": null}`, ts.bearer(t, "ann")...)
	if got := v2JSON(t, res); res.status != 200 || got["triggering_user_name"] != "ann" {
		t.Errorf("trigger with ann's token = %d %s", res.status, res.body)
	}
}

// TestAPIv2_ListRunsReadsThePage: get_dag_runs' default order (id), -id
// and a state filter read about their page of a DAG with 2,000 runs, not
// the DAG's runs (issue #21: list endpoints cost O(limit)); a filter the
// store's indexes do not serve reads them all and still answers right.
func TestAPIv2_ListRunsReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(pageDAG))
	row, err := ts.store.DagByID("paged")
	if err != nil {
		t.Fatal(err)
	}
	addRunsIn(t, ts.store, row.Def, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 2000, false, func(i int) RunState {
		if i%10 == 9 {
			return RunFailed
		}
		return RunSuccess
	})
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		query   string
		total   int
		maxRead int
	}{
		{"?limit=50", 2000, 50},
		{"?limit=50&order_by=-id", 2000, 50},
		{"?limit=50&state=failed", 200, 500},
		{"?limit=50&logical_date_gte=2025-01-01T00:00:00Z", 2000, 1 << 30},
	} {
		read = 0
		res := ts.do(t, http.MethodGet, "/api/v2/dags/paged/dagRuns"+tc.query, "")
		ids := v2RunIDs(t, res)
		if res.status != 200 || len(ids) != 51 || ids[50] != "total="+itoa(tc.total) {
			t.Errorf("%s = %d, %d rows, %s; want 50 rows of %d", tc.query, res.status, len(ids)-1, ids[len(ids)-1], tc.total)
		}
		if read > tc.maxRead {
			t.Errorf("%s read %d rows, want at most %d", tc.query, read, tc.maxRead)
		}
	}
}

// TestAPIv2_TriggerValuesAreNeverShellText: a v2 trigger's conf, run id
// and note carrying command substitutions, backticks and quotes run a
// real bash task through the scheduler: the task prints the text, and
// nothing it names is executed.
func TestAPIv2_TriggerValuesAreNeverShellText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(`
dag_id: inject3
schedule_interval: null
tasks:
  - task_id: echo
    operator: BashOperator
    cwd: `+dir+`
    bash_command: echo {{ dag_run.conf.x }}; echo "{{ dag_run.conf.x }}"; X={{ dag_run.conf.x }}; echo "$X"; echo {{ run_id }}; echo {{ task_instance_key_str }}
`))
	payload := fmt.Sprintf("$(touch %[1]s) `touch %[1]s` ';touch %[1]s;' \"; touch %[1]s; \" && touch %[1]s", marker)
	body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": payload}, "logical_date": nil,
		"note": "$(touch " + marker + ")", "partition_key": "`touch " + marker + "`"})
	res := ts.do(t, http.MethodPost, "/api/v2/dags/inject3/dagRuns", string(body))
	if res.status != http.StatusOK {
		t.Fatalf("trigger = %d %s", res.status, res.body)
	}
	runID := v2JSON(t, res)["dag_run_id"].(string)
	settleTicks(t, sched, time.Now)
	if got := v2JSON(t, ts.do(t, http.MethodGet, "/api/v2/dags/inject3/dagRuns/"+runID, "")); got["state"] != "success" {
		t.Fatalf("run ended %v", got)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("request data ran as shell text: %s exists (%v)", marker, err)
	}
	raw, err := ts.store.read().First(tableTaskLogs, indexID, "inject3", runID, "echo", "-1")
	if err != nil || raw == nil {
		t.Fatalf("task log: %v", err)
	}
	tries := raw.(*TaskLog).Tries
	want := strings.Repeat(payload+"\n", 3) + runID + "\n" + "inject3__echo__" + runID + "\n"
	if out := tries[len(tries)-1].Output; out != want {
		t.Errorf("output\n got %q\nwant %q", out, want)
	}
}

// TestV2Run_DurationIsPythonsFloat checks DAGRunResponse's duration as
// pydantic writes a float field (datamodels/dag_run.py duration: float |
// None): 0.0, not 0, for a run that started and ended in one instant.
func TestV2Run_DurationIsPythonsFloat(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		took time.Duration
		want string
	}{
		{0, `"duration":0.0,`},
		{1500 * time.Millisecond, `"duration":1.5,`},
		{2 * time.Second, `"duration":2.0,`},
	} {
		end := start.Add(tc.took)
		run := &DagRun{DagID: "d", RunID: "r", StartDate: &start, EndDate: &end, State: RunSuccess}
		b, err := json.Marshal(ts.srv.v2Run(run))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("run of %v renders %s, want %s", tc.took, b, tc.want)
		}
	}
}

// TestAPIv2_GetDagRunsOrder: SortParam's order (common/parameters.py
// SortParam.to_orm): NULLs after every value in both directions, each
// key in turn, then the run's id in the first key's direction.
func TestAPIv2_GetDagRunsOrder(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "dag_run_1", "logical_date": "2024-02-16T00:00:00Z"}`)
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "dag_run_2", "logical_date": "2024-02-20T00:00:00Z"}`)
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "dag_run_3", "logical_date": null}`)
	// dag_run_2 failed: the one with an end date.
	if res := ts.do(t, http.MethodPatch, "/api/v2/dags/v2runs/dagRuns/dag_run_2", `{"state": "failed"}`); res.status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.status, res.body)
	}
	for _, tc := range []struct{ order, want string }{
		// NULL below every value (SQLite's order, which Airflow 3.2's
		// SortParam leaves to the database): first ascending, last
		// descending.
		{"logical_date", "dag_run_3 dag_run_1 dag_run_2 total=3"},
		{"-logical_date", "dag_run_2 dag_run_1 dag_run_3 total=3"},
		{"end_date", "dag_run_1 dag_run_3 dag_run_2 total=3"},
		{"-end_date", "dag_run_2 dag_run_3 dag_run_1 total=3"},
		// A run that never started has no duration: ties, by id.
		{"duration", "dag_run_1 dag_run_2 dag_run_3 total=3"},
		{"-duration", "dag_run_3 dag_run_2 dag_run_1 total=3"},
		{"state", "dag_run_2 dag_run_1 dag_run_3 total=3"},
		{"-state", "dag_run_3 dag_run_1 dag_run_2 total=3"},
		{"state&order_by=-dag_run_id", "dag_run_2 dag_run_3 dag_run_1 total=3"},
		{"-state&order_by=dag_run_id", "dag_run_1 dag_run_3 dag_run_2 total=3"},
		{"-state&order_by=-logical_date", "dag_run_1 dag_run_3 dag_run_2 total=3"},
	} {
		t.Run(tc.order, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, "/api/v2/dags/v2runs/dagRuns?order_by="+tc.order, "")
			if got := strings.Join(v2RunIDs(t, res), " "); res.status != http.StatusOK || got != tc.want {
				t.Errorf("= %d %s, want %s", res.status, got, tc.want)
			}
		})
	}
	// The batch list orders by the same rule.
	res := ts.do(t, http.MethodPost, "/api/v2/dags/~/dagRuns/list", `{"order_by": "logical_date"}`)
	if got := strings.Join(v2RunIDs(t, res), " "); got != "dag_run_3 dag_run_1 dag_run_2 total=3" {
		t.Errorf("batch by logical_date = %d %s", res.status, got)
	}
}

// TestAPIv2_WaitFlushesUnderTheAccessLog: each line of the wait stream
// reaches the client as it is written when the access log wraps the
// answer (as it always does outside tests), not once 4 KiB of lines have
// piled up: the log's status recorder is no http.Flusher itself.
func TestAPIv2_WaitFlushesUnderTheAccessLog(t *testing.T) {
	t.Parallel()
	access := zerolog.Nop()
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.AccessLog = &access }))
	runID := v2Trigger(t, ts, "example_bash_operator", `{"logical_date": null}`) // no scheduler: it stays queued
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		ts.URL+"/api/v2/dags/example_bash_operator/dagRuns/"+runID+"/wait?interval=0.05", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("wait: no answer within 5 s: %v", err)
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != "{\"state\": \"queued\"}\n" {
		t.Fatalf("first line %q, %v; want the queued state", line, err)
	}
}

// TestAPIv2_DeleteDagRun_RunningIsConflict: delete_dag_run refuses a run
// in a state a PATCH cannot set (DAGRunPatchStates: queued, success,
// failed), so a running run is a 409 and stays; the 3.2.0-era main has it
// (Phinhas214/airflow c57fba0e, routes/public/dag_run.py:136-152,
// test_dag_run.py:1335-1350; apache/airflow#60195 of 2026-01-07, before
// 3.2's branch).
func TestAPIv2_DeleteDagRun_RunningIsConflict(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	v2Trigger(t, ts, "v2runs", `{"dag_run_id": "r", "logical_date": null}`)
	run, err := ts.store.RunByRunID("v2runs", "r")
	if err != nil {
		t.Fatal(err)
	}
	running := *run
	running.State = RunRunning
	if err := ts.store.UpsertDagRun(&running); err != nil {
		t.Fatal(err)
	}
	path := "/api/v2/dags/v2runs/dagRuns/r"
	res := ts.do(t, http.MethodDelete, path, "")
	const want = `{"detail":"The DagRun with dag_id: ` + "`v2runs`" + ` and run_id: ` + "`r`" + ` cannot be deleted in running state"}`
	if res.status != http.StatusConflict || res.body != want {
		t.Errorf("delete a running run = %d %s, want 409 %s", res.status, res.body, want)
	}
	if res := ts.do(t, http.MethodGet, path, ""); res.status != 200 {
		t.Errorf("the running run after the refused delete = %d %s", res.status, res.body)
	}
	// Queued, success and failed runs go.
	for _, state := range []RunState{RunQueued, RunSuccess, RunFailed} {
		changed := running
		changed.State = state
		if err := ts.store.UpsertDagRun(&changed); err != nil {
			t.Fatal(err)
		}
		if res := ts.do(t, http.MethodDelete, path, ""); res.status != http.StatusNoContent {
			t.Errorf("delete a %s run = %d %s", state, res.status, res.body)
		}
		v2Trigger(t, ts, "v2runs", `{"dag_run_id": "r", "logical_date": null}`)
		again, err := ts.store.RunByRunID("v2runs", "r")
		if err != nil {
			t.Fatal(err)
		}
		running = *again
	}
}

// TestAPIv2_TriggerDagRun_RefererIsUI: trigger_dag_run records a run
// triggered by "ui" when the request has a Referer header, by "rest_api"
// otherwise (routes/public/dag_run.py:472-476 of the 3.2.0-era main,
// Phinhas214/airflow c57fba0e; apache/airflow#54650).
func TestAPIv2_TriggerDagRun_RefererIsUI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	for _, tc := range []struct {
		name   string
		header []string
		want   string
	}{
		{"no referer", nil, "rest_api"},
		{"empty referer", []string{"Referer", ""}, "rest_api"},
		// airlite's own page: another origin's is refused before (browserPolicy).
		{"referer", []string{"Referer", ts.URL + "/dags/v2runs"}, "ui"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"dag_run_id": "` + strings.ReplaceAll(tc.name, " ", "_") + `", "logical_date": null}`
			res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", body, tc.header...)
			if got := v2JSON(t, res); res.status != 200 || got["triggered_by"] != tc.want {
				t.Errorf("trigger = %d %s, want triggered_by %q", res.status, res.body, tc.want)
			}
			res = ts.do(t, http.MethodGet, "/api/v2/dags/v2runs/dagRuns/"+strings.ReplaceAll(tc.name, " ", "_"), "")
			if got := v2JSON(t, res); got["triggered_by"] != tc.want {
				t.Errorf("the run read back = %d %s, want triggered_by %q", res.status, res.body, tc.want)
			}
		})
	}
}

// TestAPIv2_PatchClearDagRun_DagMissing: a run whose DAG the DAG bag
// does not have is patch_dag_run's 404 from get_dag_for_run (common/
// dagbag.py:63-67) and clear_dag_run's own text, dry run or not
// (routes/public/dag_run.py:187,294-313 of the 3.2.0-era main,
// Phinhas214/airflow c57fba0e).
func TestAPIv2_PatchClearDagRun_DagMissing(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	if err := ts.store.UpsertDagRun(&DagRun{ID: 1, DagID: "gone", RunID: "r", ExecutionDate: testNow, State: RunSuccess}); err != nil {
		t.Fatal(err)
	}
	path := "/api/v2/dags/gone/dagRuns/r"
	for _, tc := range []struct{ method, path, body, want string }{
		{http.MethodPatch, path, `{"note": "n"}`, "{\"detail\":\"The Dag with ID: `gone` was not found\"}"},
		{http.MethodPost, path + "/clear", `{}`, `{"detail":"Dag with id gone was not found"}`},
		{http.MethodPost, path + "/clear", `{"dry_run": false}`, `{"detail":"Dag with id gone was not found"}`},
	} {
		if res := ts.do(t, tc.method, tc.path, tc.body); res.status != 404 || res.body != tc.want {
			t.Errorf("%s %s %s = %d %s, want 404 %s", tc.method, tc.path, tc.body, res.status, res.body, tc.want)
		}
	}
}

// TestAPIv2_GetDagRunsBatch_NoDurationOrder: the batch list's SortParam
// allows fewer attributes than get_dag_runs' (no duration), so
// order_by duration is SortParam's 400 there, while the GET list orders by
// it (routes/public/dag_run.py get_list_dag_runs_batch and get_dag_runs
// of the 3.2.0-era main, Phinhas214/airflow c57fba0e; parameters.py:308-312).
func TestAPIv2_GetDagRunsBatch_NoDurationOrder(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	const refused = `{"detail":"Ordering with 'duration' is disallowed or the attribute does not exist on the model"}`
	for _, order := range []string{"duration", "-duration"} {
		res := ts.do(t, http.MethodPost, "/api/v2/dags/~/dagRuns/list", `{"order_by": "`+order+`"}`)
		if res.status != 400 || res.body != refused {
			t.Errorf("batch order_by %s = %d %s, want 400 %s", order, res.status, res.body, refused)
		}
		if res := ts.do(t, http.MethodGet, "/api/v2/dags/~/dagRuns?order_by="+order, ""); res.status != 200 {
			t.Errorf("GET order_by %s = %d %s", order, res.status, res.body)
		}
	}
	for _, order := range []string{"run_after", "-conf", "dag_run_id"} {
		if res := ts.do(t, http.MethodPost, "/api/v2/dags/~/dagRuns/list", `{"order_by": "`+order+`"}`); res.status != 200 {
			t.Errorf("batch order_by %s = %d %s", order, res.status, res.body)
		}
	}
}
