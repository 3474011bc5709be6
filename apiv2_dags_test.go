package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// v2DagIDs reads a DAG collection's ids and total_entries.
func v2DagIDs(t *testing.T, body string) ([]string, int) {
	t.Helper()
	var c struct {
		Dags []struct {
			DagID string `json:"dag_id"`
		} `json:"dags"`
		Total int `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	ids := []string{}
	for _, d := range c.Dags {
		ids = append(ids, d.DagID)
	}
	return ids, c.Total
}

// v2Runs gives DAGs runs: a failed one of example_bash_operator started
// 2024-01-01, a successful one of tutorial started 2024-02-01 (and an
// older failed one), as test_dags.py's fixture does for its DAGs.
func v2Runs(t *testing.T, ts *testServer) {
	t.Helper()
	at := func(m time.Month) *time.Time { d := time.Date(2024, m, 1, 0, 0, 0, 0, time.UTC); return &d }
	for _, r := range []*DagRun{
		{ID: 1, DagID: "example_bash_operator", RunID: "r1", ExecutionDate: *at(1), State: RunFailed, StartDate: at(1), EndDate: at(1)},
		{ID: 2, DagID: "tutorial", RunID: "r2", ExecutionDate: *at(1), State: RunFailed, StartDate: at(1), EndDate: at(1)},
		{ID: 3, DagID: "tutorial", RunID: "r3", ExecutionDate: *at(2), State: RunSuccess, StartDate: at(2), EndDate: at(2)},
		// Never started, and still tutorial's latest run: the DAG list
		// joins the highest id (c57fba0e common/db/dags.py).
		{ID: 4, DagID: "tutorial", RunID: "r4", ExecutionDate: *at(3), State: RunQueued},
	} {
		if err := ts.store.UpsertDagRun(r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAPIv2_GetDags reproduces test_dags.py TestGetDags's cases on the
// edition's first five examples: filters, the latest run's filters, orders
// with NULLs last, patterns with "|".
func TestAPIv2_GetDags(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesOnly(firstExamples3...))
	v2Runs(t, ts)
	if err := ts.store.SetPaused("example_python_operator", true, false); err != nil {
		t.Fatal(err)
	}
	ts.insertBareDag(t, "gone") // a DAG whose file no longer defines it: stale
	all := []string{"example_bash_operator", "example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "tutorial"}
	for _, tc := range []struct {
		query     string
		wantIDs   []string
		wantTotal int
	}{
		{"", all, 5},
		{"limit=1", all[:1], 5},
		{"offset=1&limit=2", all[1:3], 5},
		{"limit=0", []string{}, 5},
		{"tags=example2", []string{"example_bash_operator"}, 1},
		{"tags=example&tags=example2", []string{"example_bash_operator", "example_python_operator", "example_trigger_target_dag", "tutorial"}, 4},
		{"tags=example&tags=example2&tags_match_mode=all", []string{"example_bash_operator"}, 1},
		{"exclude_stale=false", append(slices.Clone(all[:4]), "gone", "tutorial"), 6},
		{"paused=true", []string{"example_python_operator"}, 1},
		{"paused=false", []string{"example_bash_operator", "example_simplest_dag", "example_trigger_target_dag", "tutorial"}, 4},
		{"owners=airflow", all, 5},
		{"owners=nobody", []string{}, 0},
		{"last_dag_run_state=success", []string{}, 0},
		{"last_dag_run_state=queued", []string{"tutorial"}, 1},
		{"last_dag_run_state=failed", []string{"example_bash_operator"}, 1},
		{"dag_run_state=failed&dag_run_state=queued", []string{"example_bash_operator", "tutorial"}, 2},
		{"dag_run_state=failed&dag_run_state=success", []string{"example_bash_operator"}, 1},
		{"dag_run_state=failed&last_dag_run_state=queued", []string{}, 0},
		// tutorial's latest run has no start or end: a range matches it
		// not (3.2.1 compares the date alone here).
		{"dag_run_start_date_gte=2024-02-01T00:00:00Z", []string{}, 0},
		{"dag_run_start_date_lt=2024-02-01", []string{"example_bash_operator"}, 1},
		{"dag_run_end_date_lte=2024-03-01T00:00:00%2B00:00", []string{"example_bash_operator"}, 1},
		{"dag_id_pattern=TUT", []string{"tutorial"}, 1},
		{"dag_id_pattern=tutorial%20%7C%20example_python", []string{"example_python_operator", "tutorial"}, 2},
		{"dag_id_pattern=~", all, 5},
		{"dag_id_pattern=example_%25_operator", []string{"example_bash_operator", "example_python_operator"}, 2},
		{"dag_display_name_pattern=trigger", []string{"example_trigger_target_dag"}, 1},
		{"bundle_name=dags-folder", all, 5},
		{"bundle_name=other", []string{}, 0},
		{"bundle_version=v1", []string{}, 0},
		{"has_asset_schedule=true", []string{}, 0},
		{"has_asset_schedule=false", all, 5},
		{"has_import_errors=false", all, 5},
		{"timetable_type=NullTimetable", []string{"example_python_operator", "example_simplest_dag", "example_trigger_target_dag"}, 3},
		{"timetable_type=CronTriggerTimetable&timetable_type=DeltaTriggerTimetable", []string{"example_bash_operator", "tutorial"}, 2},
		{"is_favorite=true", []string{}, 0},
		{"order_by=-dag_id", []string{"tutorial", "example_trigger_target_dag", "example_simplest_dag", "example_python_operator", "example_bash_operator"}, 5},
		{"order_by=-dag_display_name", []string{"tutorial", "example_trigger_target_dag", "example_simplest_dag", "example_python_operator", "example_bash_operator"}, 5},
		// SQLite's order, NULL the smallest value: first ascending, last
		// descending (c57fba0e test_dags.py:440-470, marked for SQLite);
		// ties by dag_id in the first key's direction (SortParam's final
		// discriminator).
		{"order_by=last_run_state", []string{"example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "example_bash_operator", "tutorial"}, 5},
		{"order_by=last_run_start_date", []string{"example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "tutorial", "example_bash_operator"}, 5},
		{"order_by=next_dagrun", []string{"example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "example_bash_operator", "tutorial"}, 5},
		{"order_by=-next_dagrun", []string{"tutorial", "example_bash_operator", "example_trigger_target_dag", "example_simplest_dag", "example_python_operator"}, 5},
		{"order_by=-last_run_state", []string{"tutorial", "example_bash_operator", "example_trigger_target_dag", "example_simplest_dag", "example_python_operator"}, 5},
		{"order_by=-last_run_start_date", []string{"example_bash_operator", "tutorial", "example_trigger_target_dag", "example_simplest_dag", "example_python_operator"}, 5},
		// example_bash_operator's next tick, 2024-05-01T00:00, comes
		// before tutorial's 1d DeltaTriggerTimetable firing now (10:00).
		{"order_by=next_dagrun&order_by=-dag_id", []string{"example_trigger_target_dag", "example_simplest_dag", "example_python_operator", "example_bash_operator", "tutorial"}, 5},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, "/api/v2/dags?"+tc.query, "")
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			ids, total := v2DagIDs(t, res.body)
			if !slices.Equal(ids, tc.wantIDs) || total != tc.wantTotal {
				t.Errorf("dags %v total %d, want %v total %d", ids, total, tc.wantIDs, tc.wantTotal)
			}
		})
	}
}

// TestAPIv2_DagErrors checks the DAG routes' refusals: Airflow's texts,
// SortParam's 400s, pydantic's 422s.
func TestAPIv2_DagErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	eleven := strings.Repeat("order_by=dag_id&", 11)
	for _, tc := range []struct {
		method, path, body string
		wantStatus         int
		wantBody           string
	}{
		{"GET", "/api/v2/dags/nope", "", 404, "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
		{"GET", "/api/v2/dags/nope/details", "", 404, "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
		{"PATCH", "/api/v2/dags/nope", `{"is_paused":true}`, 404, `{"detail":"Dag with id: nope was not found"}`},
		{"DELETE", "/api/v2/dags/nope", "", 404, `{"detail":"Dag with id: nope was not found"}`},
		// 3.2.1 still says "DAG" here (its document's "Mark the DAG as
		// favorite." is the same commit's docstring); main renamed both later.
		{"POST", "/api/v2/dags/nope/favorite", "", 404, `{"detail":"DAG with id 'nope' not found"}`},
		{"POST", "/api/v2/dags/nope/unfavorite", "", 404, `{"detail":"DAG with id 'nope' not found"}`},
		{"POST", "/api/v2/dags/tutorial/unfavorite", "", 409, `{"detail":"DAG is not marked as favorite"}`},
		{"PATCH", "/api/v2/dags/tutorial?update_mask=field_1&update_mask=is_paused", `{"is_paused":true}`, 400,
			"{\"detail\":\"Only `is_paused` field can be updated through the REST API\"}"},
		{"PATCH", "/api/v2/dags?update_mask=field_1&update_mask=is_paused", `{"is_paused":true}`, 400,
			"{\"detail\":\"Only `is_paused` field can be updated through the REST API\"}"},
		{"PATCH", "/api/v2/dags/tutorial", `{"is_paused":true,"x":1}`, 422,
			`{"detail":[{"type":"extra_forbidden","loc":["body","x"],"msg":"Extra inputs are not permitted","input":1}]}`},
		{"PATCH", "/api/v2/dags/tutorial", `{}`, 422,
			`{"detail":[{"type":"missing","loc":["body","is_paused"],"msg":"Field required","input":{}}]}`},
		{"GET", "/api/v2/dags?order_by=nope", "", 400, `{"detail":"Ordering with 'nope' is disallowed or the attribute does not exist on the model"}`},
		// Allowed, but DagModel has no state: AttributeError, a 500
		// (TestAPIv2_AirflowGetDagsOrderWithoutColumn).
		{"GET", "/api/v2/dags?order_by=-state", "", 500, "Internal Server Error"},
		{"GET", "/api/v2/dags?" + eleven, "", 400, `{"detail":"Ordering with more than 10 parameters is not allowed. Provided: ['dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id', 'dag_id']"}`},
		{"GET", "/api/v2/dags?dag_run_state=nope", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		// _transform_dag_run_states raises inside its dependency, before
		// FastAPI reports the query's validation errors.
		{"GET", "/api/v2/dags?limit=x&last_dag_run_state=done&dag_run_state=nope", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		{"GET", "/api/v2/dags?tags_match_mode=some", "", 422,
			`{"detail":[{"type":"literal_error","loc":["query","tags_match_mode"],"msg":"Input should be 'any' or 'all'","input":"some","ctx":{"expected":"'any' or 'all'"}}]}`},
		{"GET", "/api/v2/dags?last_dag_run_state=done", "", 422,
			`{"detail":[{"type":"enum","loc":["query","last_dag_run_state"],"msg":"Input should be 'queued', 'running', 'success' or 'failed'","input":"done","ctx":{"expected":"'queued', 'running', 'success' or 'failed'"}}]}`},
		{"GET", "/api/v2/dags?paused=maybe&limit=-1", "", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}},` +
				`{"type":"bool_parsing","loc":["query","paused"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`},
		{"GET", "/api/v2/dagTags?order_by=nope", "", 400, `{"detail":"Ordering with 'nope' is disallowed or the attribute does not exist on the model"}`},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			res := ts.do(t, tc.method, tc.path, tc.body)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("%s %s = %d %s\nwant %d %s", tc.method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// lastParseDurationRe finds a DAG answer's last_parse_duration.
var lastParseDurationRe = regexp.MustCompile(`"last_parse_duration":[0-9.e+-]+`)

// TestAPIv2_GetDag checks DAGResponse field by field, in pydantic's
// order, and the details' own fields. next_dagrun_* are the
// CronTriggerTimetable's next DagRunInfo: without catchup and without a
// run, now's tick, the instant as its interval and its run_after.
func TestAPIv2_GetDag(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	res := ts.do(t, http.MethodGet, "/api/v2/dags/example_bash_operator", "")
	token := ts.srv.v2FileToken(ptr(bundleName), ptr("example_bash_operator.yaml"))
	want := `{"dag_id":"example_bash_operator","dag_display_name":"example_bash_operator","is_paused":false,"is_stale":false,` +
		`"last_parsed_time":"2024-05-01T10:00:00.123456Z","last_parse_duration":MEASURED,"last_expired":null,"bundle_name":"dags-folder",` +
		`"bundle_version":null,"relative_fileloc":"example_bash_operator.yaml","fileloc":"fixtures/3.2.1/example_bash_operator.yaml",` +
		`"description":null,"timetable_summary":"0 0 * * *","timetable_description":"At 00:00","timetable_partitioned":false,` +
		`"tags":[{"name":"example","dag_id":"example_bash_operator","dag_display_name":"example_bash_operator"},` +
		`{"name":"example2","dag_id":"example_bash_operator","dag_display_name":"example_bash_operator"}],` +
		`"max_active_tasks":16,"max_active_runs":16,"max_consecutive_failed_dag_runs":0,"has_task_concurrency_limits":false,` +
		`"has_import_errors":false,"next_dagrun_logical_date":"2024-05-01T00:00:00Z","next_dagrun_data_interval_start":"2024-05-01T00:00:00Z",` +
		`"next_dagrun_data_interval_end":"2024-05-01T00:00:00Z","next_dagrun_run_after":"2024-05-01T00:00:00Z","allowed_run_types":null,` +
		`"owners":["airflow"],"file_token":"` + token + `"}`
	// last_parse_duration is the seconds the file's read took (a measure,
	// TestAPIv2_YAMLDagLastParseDuration checks it): any positive number.
	got := lastParseDurationRe.ReplaceAllStringFunc(res.body, func(m string) string {
		if n, err := strconv.ParseFloat(strings.TrimPrefix(m, `"last_parse_duration":`), 64); err != nil || n <= 0 {
			return m
		}
		return `"last_parse_duration":MEASURED`
	})
	if res.status != http.StatusOK || got != want {
		t.Errorf("GET dag = %d\n%s\nwant\n%s", res.status, res.body, want)
	}
	if raw, err := loadSignedJSON(ts.srv.v1Secret, token); err != nil || string(raw) != `{"bundle_name":"dags-folder","relative_fileloc":"example_bash_operator.yaml"}` {
		t.Errorf("file_token holds %s (%v)", raw, err)
	}

	if res := ts.do(t, http.MethodPost, "/api/v2/dags/tutorial/favorite", ""); res.status != http.StatusNoContent || res.body != "" {
		t.Fatalf("favorite = %d %s", res.status, res.body)
	}
	res = ts.do(t, http.MethodGet, "/api/v2/dags/tutorial/details", "")
	var d map[string]any
	if err := json.Unmarshal([]byte(res.body), &d); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range strings.SplitSeq(res.body[1:], `,"`) {
		if name, _, ok := strings.Cut(strings.TrimPrefix(k, `"`), `":`); ok && d[name] != nil || ok && strings.HasSuffix(k, "null") {
			if !slices.Contains(keys, name) {
				keys = append(keys, name)
			}
		}
	}
	tail := []string{"catchup", "dag_run_timeout", "asset_expression", "doc_md", "start_date", "end_date", "is_paused_upon_creation",
		"params", "render_template_as_native_obj", "template_search_path", "timezone", "last_parsed", "default_args", "owner_links",
		"is_favorite", "active_runs_count", "file_token", "concurrency", "latest_dag_version"}
	if i := slices.Index(keys, "catchup"); i < 0 || !slices.Equal(keys[i:i+len(tail)], tail) {
		t.Errorf("details keys %v: want the DAG's then %v", keys, tail)
	}
	for name, want := range map[string]any{
		"description": "A simple tutorial DAG", "timetable_summary": "1 day, 0:00:00", "catchup": false, "timezone": "UTC",
		"start_date": "2021-01-01T00:00:00Z", "concurrency": 16.0, "is_favorite": true, "active_runs_count": 0.0,
		"owner_links": map[string]any{}, "params": map[string]any{}, "template_search_path": nil, "is_paused_upon_creation": nil,
		"default_args": map[string]any{"depends_on_past": false, "retries": 1.0, "retry_delay": "PT5M"},
		"last_parsed":  "2024-05-01T10:00:00.123456Z",
	} {
		if got, _ := json.Marshal(d[name]); string(got) != mustJSON(t, want) {
			t.Errorf("details %s = %s, want %s", name, got, mustJSON(t, want))
		}
	}
	v, _ := d["latest_dag_version"].(map[string]any)
	if v["version_number"] != 1.0 || v["dag_id"] != "tutorial" || v["bundle_name"] != "dags-folder" || v["bundle_url"] != nil || v["created_at"] != "2024-05-01T10:00:00.123456Z" {
		t.Errorf("latest_dag_version %v", v)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAPIv2_PatchDags reproduces test_dags.py TestPatchDag and
// TestPatchDags: the paused flag, update_mask, no pattern patching none.
func TestAPIv2_PatchDags(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	paused := func(t *testing.T, dagID string) bool {
		t.Helper()
		row, err := ts.store.DagByID(dagID)
		if err != nil {
			t.Fatal(err)
		}
		return row.IsPaused
	}
	res := ts.do(t, http.MethodPatch, "/api/v2/dags/tutorial?update_mask=is_paused", `{"is_paused":true}`)
	if res.status != 200 || !strings.Contains(res.body, `"is_paused":true`) || !paused(t, "tutorial") {
		t.Fatalf("patch tutorial = %d %s", res.status, res.body)
	}
	// No dag_id_pattern: ILIKE '%None%', which no example's id holds.
	res = ts.do(t, http.MethodPatch, "/api/v2/dags", `{"is_paused":false}`)
	if ids, total := v2DagIDs(t, res.body); res.status != 200 || len(ids) != 0 || total != 0 || !paused(t, "tutorial") {
		t.Errorf("patch without a pattern = %d %s", res.status, res.body)
	}
	// 3.2.1 pauses the page of the DAGs selected, not every one of them
	// (c57fba0e dags.py patch_dags: the update's ids are the page's; the
	// fix that pages through them all, apache/airflow#65309, is 3.2.2's).
	res = ts.do(t, http.MethodPatch, "/api/v2/dags?dag_id_pattern=~&limit=2&offset=1", `{"is_paused":true}`)
	ids, total := v2DagIDs(t, res.body)
	if res.status != 200 || total != 11 || !slices.Equal(ids, []string{"example_complex", "example_python_operator"}) || strings.Contains(res.body, `"is_paused":false`) {
		t.Errorf("patch a page of all = %d %v %d %s", res.status, ids, total, res.body)
	}
	for id, want := range map[string]bool{"example_bash_operator": false, "example_complex": true, "example_python_operator": true,
		"example_simplest_dag": false, "tutorial": true, "tutorial_dag": false, "tutorial_taskflow_api": false} {
		if paused(t, id) != want {
			t.Errorf("%s paused %t, want %t: the patch pauses the page of the DAGs selected", id, !want, want)
		}
	}
	// The pattern is ILIKE '%tutorial%': of the tutorials, the paused one.
	res = ts.do(t, http.MethodPatch, "/api/v2/dags?dag_id_pattern=tutorial&paused=true", `{"is_paused":false}`)
	if ids, _ := v2DagIDs(t, res.body); !slices.Equal(ids, []string{"tutorial"}) || paused(t, "tutorial") || !paused(t, "example_complex") {
		t.Errorf("patch the tutorials = %s", res.body)
	}
}

// TestAPIv2_FavoritesAndDelete: favorites are per user, a second mark is
// the unique constraint's 409, a delete with a running task is a 409 and
// otherwise 204, after which the DAG is gone.
func TestAPIv2_FavoritesAndDelete(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, step := range []struct {
		method, path string
		wantStatus   int
	}{
		{"POST", "/api/v2/dags/tutorial/favorite", 204},
		{"POST", "/api/v2/dags/tutorial/favorite", 409},
		{"GET", "/api/v2/dags?is_favorite=true", 200},
		{"POST", "/api/v2/dags/tutorial/unfavorite", 204},
		{"POST", "/api/v2/dags/tutorial/unfavorite", 409},
	} {
		res := ts.do(t, step.method, step.path, "")
		if res.status != step.wantStatus {
			t.Fatalf("%s %s = %d %s, want %d", step.method, step.path, res.status, res.body, step.wantStatus)
		}
		if step.wantStatus == 409 && step.path == "/api/v2/dags/tutorial/favorite" {
			var e struct {
				Detail v2DBErrorDetail `json:"detail"`
			}
			if err := json.Unmarshal([]byte(res.body), &e); err != nil || e.Detail.Reason != "Unique constraint violation" || e.Detail.Statement != "hidden" ||
				!strings.HasPrefix(res.body, `{"detail":{"reason":"Unique constraint violation","statement":"hidden","orig_error":"hidden","message":"Serious error`) {
				t.Errorf("second favorite: %s", res.body)
			}
		}
		if step.method == "GET" {
			if ids, _ := v2DagIDs(t, res.body); !slices.Equal(ids, []string{"tutorial"}) {
				t.Errorf("favorites %v, want [tutorial]", ids)
			}
		}
	}
	// Another user's favorites are not the caller's.
	if err := ts.store.SetFavorite("example_bash_operator", "someone_else", true); err != nil {
		t.Fatal(err)
	}
	if res := ts.do(t, "GET", "/api/v2/dags?is_favorite=true", ""); !strings.Contains(res.body, `"total_entries":0`) {
		t.Errorf("favorites of another user shown: %s", res.body)
	}
	if res := ts.do(t, "GET", "/api/v2/dags?is_favorite=false", ""); !strings.Contains(res.body, `"total_entries":11`) {
		t.Errorf("is_favorite=false: %s", res.body)
	}

	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial"}); err != nil { // the operations' trigger
		t.Fatal(err)
	}
	runs, err := ts.store.RunsOfDag("tutorial", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	ts.setTaskState(t, "tutorial", runs[0].RunID, "print_date", TaskRunning)
	if res := ts.do(t, "DELETE", "/api/v2/dags/tutorial", ""); res.status != 409 || res.body != `{"detail":"Task instances of dag with id: 'tutorial' are still running"}` {
		t.Errorf("delete while running = %d %s", res.status, res.body)
	}
	ts.setTaskState(t, "tutorial", runs[0].RunID, "print_date", TaskSuccess)
	if res := ts.do(t, "DELETE", "/api/v2/dags/tutorial", ""); res.status != 204 || res.body != "" {
		t.Errorf("delete = %d %s", res.status, res.body)
	}
	if res := ts.do(t, "GET", "/api/v2/dags/tutorial/details", ""); res.status != 404 {
		t.Errorf("details after delete = %d %s", res.status, res.body)
	}
}

// TestAPIv2_DagTags reproduces test_dag_tags.py: distinct names, order,
// pattern, pagination.
func TestAPIv2_DagTags(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for query, want := range map[string]string{
		"":                                 `{"tags":["example","example2","example3"],"total_entries":3}`,
		"?order_by=-name":                  `{"tags":["example3","example2","example"],"total_entries":3}`,
		"?limit=1&offset=1":                `{"tags":["example2"],"total_entries":3}`,
		"?tag_name_pattern=2":              `{"tags":["example2"],"total_entries":1}`,
		"?tag_name_pattern=nothing":        `{"tags":[],"total_entries":0}`,
		"?tag_name_pattern=~":              `{"tags":["example","example2","example3"],"total_entries":3}`,
		"?tag_name_pattern=nothing%7Cple2": `{"tags":["example2"],"total_entries":1}`,
	} {
		if res := ts.do(t, "GET", "/api/v2/dagTags"+query, ""); res.status != 200 || res.body != want {
			t.Errorf("dagTags%s = %d %s, want %s", query, res.status, res.body, want)
		}
	}
}

// TestAPIv2_FavoritesPerUser: each caller's favorites are their own (the
// user id of the token), under the simple auth manager.
func TestAPIv2_FavoritesPerUser(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withAuth(authSimple, "ann:secret\nbob:secret\n"))
	ann, bob := ts.bearer(t, "ann"), ts.bearer(t, "bob")
	if res := ts.do(t, "POST", "/api/v2/dags/tutorial/favorite", "", ann...); res.status != 204 {
		t.Fatalf("ann's favorite = %d %s", res.status, res.body)
	}
	if res := ts.do(t, "POST", "/api/v2/dags/tutorial/favorite", "", bob...); res.status != 204 {
		t.Errorf("bob's favorite of the same DAG = %d %s", res.status, res.body)
	}
	if res := ts.do(t, "POST", "/api/v2/dags/tutorial/unfavorite", "", bob...); res.status != 204 {
		t.Errorf("bob's unfavorite = %d %s", res.status, res.body)
	}
	for who, header := range map[string][]string{"ann": ann, "bob": bob} {
		res := ts.do(t, "GET", "/api/v2/dags?is_favorite=true", "", header...)
		ids, _ := v2DagIDs(t, res.body)
		want := map[string][]string{"ann": {"tutorial"}, "bob": {}}[who]
		if !slices.Equal(ids, want) {
			t.Errorf("%s's favorites %v, want %v", who, ids, want)
		}
		res = ts.do(t, "GET", "/api/v2/dags/tutorial/details", "", header...)
		if wantFav := who == "ann"; strings.Contains(res.body, `"is_favorite":true`) != wantFav {
			t.Errorf("%s's details: is_favorite should be %v: %s", who, wantFav, res.body)
		}
	}
	if res := ts.do(t, "GET", "/api/v2/dags", ""); res.status != 401 {
		t.Errorf("without a token = %d %s", res.status, res.body)
	}
}

// withV2DagFilterFixtures names two examples (dag_display_name, which
// only Python files give) and adds on_asset, a DAG scheduled on a named
// asset, read with edition 3's rules as the DAG folder would be.
func withV2DagFilterFixtures(t *testing.T, s *testSetup) {
	t.Helper()
	for _, d := range s.opts.DAGs.DAGs {
		switch d.DagID {
		case "tutorial":
			d.DisplayName = "alpha tutorial"
		case "example_bash_operator":
			d.DisplayName = "zulu bash"
		}
	}
	const onAsset = `
dag_id: on_asset
schedule: [{name: test_asset_1, uri: "test://asset1"}]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: EmptyOperator, owner: "test_owner,another_test_owner"}
`
	d, err := parseDAGFor([]byte(onAsset), testExamplesReadAt, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	d.FilePath = "testdata/on_asset.yaml"
	s.opts.DAGs.DAGs = append(s.opts.DAGs.DAGs, d)
}

// TestAPIv2_GetDags_FilterColumns checks the filters and orders of
// get_dags against the DagModel columns Airflow 3.2.1 reads them from
// (common/parameters.py): owners as ILIKE '%owner%' on DagModel.owners,
// dag_display_name_pattern and order_by=dag_display_name on
// dag_display_name, has_asset_schedule and asset_dependency on the DAG's
// DagScheduleAssetReference rows (the asset's name or URI, ILIKE),
// timetable_type on the timetable's class.
func TestAPIv2_GetDags_FilterColumns(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesOnly(firstExamples3...), withV2DagFilterFixtures)
	examples := []string{"example_bash_operator", "example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "tutorial"}
	for _, tc := range []struct {
		query     string
		wantIDs   []string
		wantTotal int
	}{
		{"owners=air", examples, 5},
		{"owners=AIRFLOW", examples, 5},
		{"owners=another", []string{"on_asset"}, 1},
		{"owners=nobody&owners=test_own", []string{"on_asset"}, 1},
		{"dag_display_name_pattern=alpha", []string{"tutorial"}, 1},
		{"dag_display_name_pattern=ZULU", []string{"example_bash_operator"}, 1},
		// The id is not the display name any more.
		{"dag_display_name_pattern=example_bash", []string{}, 0},
		{"dag_display_name_pattern=on_asset", []string{"on_asset"}, 1},
		{"order_by=dag_display_name", []string{"tutorial", "example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "on_asset", "example_bash_operator"}, 6},
		{"order_by=-dag_display_name&limit=2", []string{"example_bash_operator", "on_asset"}, 6},
		{"has_asset_schedule=true", []string{"on_asset"}, 1},
		{"has_asset_schedule=false", examples, 5},
		{"asset_dependency=test_asset", []string{"on_asset"}, 1},
		{"asset_dependency=TEST://ASSET", []string{"on_asset"}, 1},
		{"asset_dependency=nonexistent", []string{}, 0},
		{"has_asset_schedule=true&asset_dependency=test_asset", []string{"on_asset"}, 1},
		{"has_asset_schedule=false&asset_dependency=test_asset", []string{}, 0},
		{"timetable_type=AssetTriggeredTimetable", []string{"on_asset"}, 1},
		{"timetable_type=airflow.timetables.simple.AssetTriggeredTimetable", []string{}, 0},
		// An empty value: FilterParam skips an empty string (bundle_name,
		// bundle_version); the ILIKE filters match every value ('%%').
		{"bundle_name=&limit=1", examples[:1], 6},
		{"bundle_version=&limit=1", examples[:1], 6},
		{"owners=&limit=1", examples[:1], 6},
		{"asset_dependency=", []string{"on_asset"}, 1},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, "/api/v2/dags?"+tc.query, "")
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			ids, total := v2DagIDs(t, res.body)
			if !slices.Equal(ids, tc.wantIDs) || total != tc.wantTotal {
				t.Errorf("dags %v total %d, want %v total %d", ids, total, tc.wantIDs, tc.wantTotal)
			}
		})
	}
}

// TestAPIv2_PatchDags_NoPattern: patch_dags reads dag_id_pattern with
// skip_none=False (common/parameters.py QueryDagIdPatternSearchWithNone),
// so an absent pattern is _SearchParam's ILIKE '%None%': the DAGs whose
// id holds "none" in any case are patched, no other.
func TestAPIv2_PatchDags_NoPattern(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG("dag_id: nonEthEless\nschedule_interval: null\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n"))
	res := ts.do(t, http.MethodPatch, "/api/v2/dags", `{"is_paused":true}`)
	ids, total := v2DagIDs(t, res.body)
	if res.status != http.StatusOK || !slices.Equal(ids, []string{"nonEthEless"}) || total != 1 {
		t.Fatalf("patch without a pattern = %d %s, want nonEthEless alone", res.status, res.body)
	}
	for id, want := range map[string]bool{"nonEthEless": true, "tutorial": false} {
		row, err := ts.store.DagByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if row.IsPaused != want {
			t.Errorf("%s paused %t, want %t", id, row.IsPaused, want)
		}
	}
}

// TestAPIv2_Dags_LastRunReadsItsRun lists DAGs by their latest run's
// state, dates and order with one DAG of 300 runs (the last three queued,
// never started) and checks through the store's rowsRead hook that the
// listing reads each DAG's run of the highest id, not every run; and that
// it answers as the rule says (that run, started or not: c57fba0e
// common/db/dags.py generate_dag_with_latest_run_query).
func TestAPIv2_Dags_LastRunReadsItsRun(t *testing.T) {
	t.Parallel()
	// Five DAGs, which the bound on the rows read below counts.
	ts := newTestServer(t, edition3, withExamplesOnly(firstExamples3...))
	var dag *DAG
	for _, d := range ts.dags.DAGs {
		if d.DagID == "example_bash_operator" {
			dag = d
		}
	}
	addRunsIn(t, ts.store, dag, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 297, false, func(i int) RunState {
		return [...]RunState{RunSuccess, RunFailed}[i%2] // the last, i = 296: success
	})
	for i := range 3 {
		r := &DagRun{ID: int64(10000 + i), DagID: dag.DagID, RunID: "queued_" + string(rune('a'+i)),
			ExecutionDate: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC), State: RunQueued}
		if err := ts.store.UpsertDagRun(r); err != nil {
			t.Fatal(err)
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		query   string
		wantIDs []string
	}{
		{"last_dag_run_state=queued", []string{"example_bash_operator"}},
		{"last_dag_run_state=success", []string{}},
		{"dag_run_state=queued&dag_run_state=success&limit=1", []string{"example_bash_operator"}},
		{"dag_run_start_date_gte=2025-01-01T04:00:00Z", []string{}},                         // the queued run has no start
		{"order_by=-last_run_state&limit=2", []string{"example_bash_operator", "tutorial"}}, // NULLs last, ties by -dag_id
	} {
		t.Run(tc.query, func(t *testing.T) {
			ts.do(t, http.MethodGet, "/api/v2/dags?"+tc.query, "")
			read = 0
			res := ts.do(t, http.MethodGet, "/api/v2/dags?"+tc.query, "")
			ids, _ := v2DagIDs(t, res.body)
			if res.status != http.StatusOK || !slices.Equal(ids, tc.wantIDs) {
				t.Errorf("%d %v, want %v: %.300s", res.status, ids, tc.wantIDs, res.body)
			}
			// Five DAGs: a seek each (a run read, or none), and what the
			// page's DAGs show.
			if read > 5+10 {
				t.Errorf("read %d rows, want at most 15", read)
			}
		})
	}
}

// TestDagStats_ReadTheCounts asks both APIs' DAG statistics with a DAG of
// 300 runs in four states and checks the counts, and through the store's
// rowsRead hook that they come from the run counts the writes keep (a row
// a DAG), not from the runs.
func TestDagStats_ReadTheCounts(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			var dag *DAG
			for _, d := range ts.dags.DAGs {
				if d.DagID == "example_bash_operator" {
					dag = d
				}
			}
			addRunsIn(t, ts.store, dag, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 300, false, func(i int) RunState {
				return runStates[i%4] // 75 of each
			})
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			path, want := apiV2Prefix+"/dagStats", `{"dag_id":"example_bash_operator","dag_display_name":"example_bash_operator","stats":[{"state":"queued","count":75},{"state":"running","count":75},{"state":"success","count":75},{"state":"failed","count":75}]}`
			if e == edition2 {
				path, want = apiV1Prefix+"/dagStats?dag_ids=example_bash_operator,nope", `"count": 75,`+"\n"+`          "state": "failed"`
			}
			res := ts.do(t, http.MethodGet, path, "")
			if res.status != 200 || !strings.Contains(res.body, want) {
				t.Errorf("%d %.600s, want %s", res.status, res.body, want)
			}
			if read > 20 {
				t.Errorf("read %d rows, want at most 20 (a count row a DAG)", read)
			}
		})
	}
}

// TestAPIv2_YAMLDagLastParseDuration: a YAML file's DAG shows how long
// reading and building its file took (DagModel.last_parse_duration, which
// Airflow's DAG processor sets from each file's parse), as a Python file's
// does, in the DAG, its details and the list.
func TestAPIv2_YAMLDagLastParseDuration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yaml := "dag_id: timed\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: 'true'}\n"
	if err := os.WriteFile(filepath.Join(dir, "timed.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := loadDAGSet(t.Context(), dir, edition3, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
	check := func(where string, raw json.RawMessage) {
		t.Helper()
		var took *float64
		if err := json.Unmarshal(raw, &took); err != nil || took == nil || *took <= 0 || *took > 60 {
			t.Errorf("%s: last_parse_duration %s, want the seconds the file's read took", where, raw)
		}
	}
	for _, path := range []string{"/dags/timed", "/dags/timed/details"} {
		check(path, ts.v2JSON(t, path)["last_parse_duration"])
	}
	var list struct {
		Dags []map[string]json.RawMessage `json:"dags"`
	}
	if err := json.Unmarshal([]byte(ts.v2(t, "GET", "/dags", "", 200).body), &list); err != nil || len(list.Dags) != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	check("/dags", list.Dags[0]["last_parse_duration"])
}

// TestDags_DocMDOfAYAMLDefinition: a YAML definition's DAG-level doc_md is
// the DAG's doc_md, as a Python file's dag.doc_md is: /api/v2's details
// show it cleaned as Airflow 3.2.1's do, /api/v1's as written; a DAG
// without one shows null.
func TestDags_DocMDOfAYAMLDefinition(t *testing.T) {
	t.Parallel()
	const dag = "dag_id: documented\nschedule: null\ndoc_md: |\n  ### Title\n  A line.\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n"
	for _, tc := range []struct {
		e          edition
		path, want string
	}{
		{edition3, "/api/v2/dags/documented/details", `"doc_md":"### Title\nA line."`},
		{edition3, "/api/v2/dags/example_simplest_dag/details", `"doc_md":null`},
		{edition2, "/api/v1/dags/documented/details", `"doc_md": "### Title\nA line.\n"`},
	} {
		ts := newTestServer(t, tc.e, withDAG(dag))
		expect(t, ts.do(t, http.MethodGet, tc.path, ""), 200, tc.want)
	}
}

// TestAPIv2_Dags_RunEndDateAlone: get_dags' dag_run_start_date_* and
// dag_run_end_date_* compare the latest run's date alone (3.2.1's
// datetime_range_filter_factory coalesces only filters named start_date
// and end_date, c57fba0e parameters.py:651-653; apache/airflow#66696, in
// 3.2.2, extended its NULL handling to them): a running run, which has no
// end date, matches no end_date bound.
func TestAPIv2_Dags_RunEndDateAlone(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesOnly(firstExamples3...))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &DagRun{ID: 1, DagID: "tutorial", RunID: "running", ExecutionDate: start, State: RunRunning, StartDate: &start}
	if err := ts.store.UpsertDagRun(run); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query   string
		wantIDs []string
	}{
		{"dag_run_start_date_gte=2024-01-01T00:00:00Z", []string{"tutorial"}},
		{"dag_run_end_date_lte=2030-01-01T00:00:00Z", []string{}},
		{"dag_run_end_date_gte=2024-01-01T00:00:00Z", []string{}},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/dags?"+tc.query, "")
		if ids, _ := v2DagIDs(t, res.body); res.status != http.StatusOK || !slices.Equal(ids, tc.wantIDs) {
			t.Errorf("GET /dags?%s = %d %v, want %v", tc.query, res.status, ids, tc.wantIDs)
		}
	}
}

// TestAPIv2_TimetableSummaryOfCroniterAliases: @midnight and @annually
// are not among Airflow's presets, so CronMixin keeps them as its
// expression (its summary) and cron-descriptor, given one field, leaves
// the description empty.
func TestAPIv2_TimetableSummaryOfCroniterAliases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schedule, summary string }{
		{"@midnight", "@midnight"},
		{"@annually", "@annually"},
		{"@daily", "0 0 * * *"},
	} {
		dag := "dag_id: alias\nschedule: \"" + tc.schedule + "\"\nstart_date: 2024-01-01\ntasks:\n  - task_id: t\n    operator: EmptyOperator\n"
		ts := newTestServer(t, edition3, withOwnDAG(dag))
		res := ts.do(t, http.MethodGet, "/api/v2/dags/alias", "")
		var got struct {
			Summary     *string `json:"timetable_summary"`
			Description *string `json:"timetable_description"`
		}
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.schedule, res.status, res.body)
		}
		if got.Summary == nil || *got.Summary != tc.summary || got.Description == nil || *got.Description != cronDescriber3.describe(tc.schedule) {
			t.Errorf("%s: summary %v, description %v; want %q, %q", tc.schedule, deref(got.Summary), deref(got.Description),
				tc.summary, cronDescriber3.describe(tc.schedule))
		}
	}
}
