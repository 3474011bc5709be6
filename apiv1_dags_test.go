package main

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// dagIDsOf reads the dag_ids of a DAG collection, in order.
func dagIDsOf(t *testing.T, body string) ([]string, float64) {
	t.Helper()
	var c struct {
		Dags []struct {
			DagID string `json:"dag_id"`
		} `json:"dags"`
		Total float64 `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("collection %q: %v", body, err)
	}
	ids := []string{}
	for _, d := range c.Dags {
		ids = append(ids, d.DagID)
	}
	return ids, c.Total
}

func wantDags(ids []string, total float64) func(t *testing.T, _ *testServer, res response) {
	return func(t *testing.T, _ *testServer, res response) {
		t.Helper()
		got, gotTotal := dagIDsOf(t, res.body)
		if !reflect.DeepEqual(got, ids) || gotTotal != total {
			t.Errorf("dags %v (total %v), want %v (total %v)", got, gotTotal, ids, total)
		}
	}
}

var topLevelDags = []string{"example_bash_operator", "example_papermill_operator", "example_python_operator",
	"example_subdag_operator", "example_trigger_target_dag", "tutorial"}

// TestServerV1_Dags follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_dag_endpoint.py (TestGetDags,
// TestPatchDag, TestPatchDags, TestDeleteDagEndpoint).
func TestServerV1_Dags(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "list: sub-DAGs left out, by dag_id", path: "/dags", wantStatus: 200, check: wantDags(topLevelDags, 6)},
		{name: "list: limit and offset", path: "/dags?limit=2&offset=1", wantStatus: 200, check: wantDags(topLevelDags[1:3], 6)},
		{name: "list: limit above the maximum", path: "/dags?limit=1000", wantStatus: 200, check: wantDags(topLevelDags, 6)},
		{name: "list: limit 0 is the fallback", path: "/dags?limit=0", wantStatus: 200, check: wantDags(topLevelDags, 6)},
		{name: "list: descending", path: "/dags?order_by=-dag_id&limit=2", wantStatus: 200,
			check: wantDags([]string{"tutorial", "example_trigger_target_dag"}, 6)},
		// test_dag_endpoint.py:1054 (test_should_raise_400_for_invalid_order_by)
		{name: "list: order_by not allowed", path: "/dags?order_by=fileloc", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'fileloc' is disallowed or the attribute does not exist on the model"}},
		// ILIKE: _ is one character, % any run, case ignored
		{name: "list: dag_id_pattern", path: "/dags?dag_id_pattern=EXAMPLE_P%25_OPERATOR", wantStatus: 200,
			check: wantDags([]string{"example_papermill_operator", "example_python_operator"}, 2)},
		{name: "list: tags (any of)", path: "/dags?tags=example2&tags=nothing", wantStatus: 200,
			check: wantDags([]string{"example_bash_operator"}, 1)},
		{name: "list: paused", path: "/dags?paused=true", wantStatus: 200, check: wantDags([]string{}, 0)},
		{name: "list: paused not a boolean", path: "/dags?paused=yes", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Wrong type, expected 'boolean' for query parameter 'paused'"}},
		{name: "list: fields", path: "/dags?fields=dag_id&fields=is_paused&limit=1", wantStatus: 200,
			wantJSON: `{"dags": [{"dag_id": "example_bash_operator", "is_paused": false}], "total_entries": 6}`},
		// marshmallow 3.23.0 schema.py:960-978 collects the unknown names in
		// an OrderedSet (the request's order, once each) and prints its repr;
		// the real Airflow 2.10.3 answered /dags?fields=nope with OrderedSet(['nope']).
		{name: "list: unknown field", path: "/dags?fields=dag_id&fields=nope", wantStatus: 400,
			wantProblem: &wantProblem{title: "DAGCollectionSchema error", detail: "Invalid fields for <DAGSchema(many=False)>: OrderedSet(['nope'])."}},
		{name: "list: unknown fields in the request's order, once each", path: "/dags?fields=zz,dag_id,aa&fields=zz", wantStatus: 400,
			wantProblem: &wantProblem{title: "DAGCollectionSchema error", detail: "Invalid fields for <DAGSchema(many=False)>: OrderedSet(['zz', 'aa'])."}},
		{name: "get", path: "/dags/example_bash_operator?fields=dag_id&fields=schedule_interval&fields=tags&fields=owners&fields=timetable_description&fields=next_dagrun",
			wantStatus: 200, wantJSON: `{"dag_id": "example_bash_operator",
				"schedule_interval": {"__type": "CronExpression", "value": "0 0 * * *"},
				"tags": [{"name": "example"}, {"name": "example2"}], "owners": ["airflow"],
				"timetable_description": "At 00:00", "next_dagrun": "2024-04-30T00:00:00+00:00"}`},
		{name: "get: a duration schedule", path: "/dags/tutorial?fields=schedule_interval", wantStatus: 200,
			wantJSON: `{"schedule_interval": {"__type": "TimeDelta", "days": 1, "seconds": 0, "microseconds": 0}}`},
		// test_dag_endpoint.py:286 (test_should_respond_404)
		{name: "get: unknown DAG", path: "/dags/nope", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAG not found", detail: "The DAG with dag_id: nope was not found"}},
		{name: "get: unknown field", path: "/dags/tutorial?fields=nope", wantStatus: 400,
			wantProblem: &wantProblem{title: "DAGSchema init error", detail: "Invalid fields for <DAGSchema(many=False)>: OrderedSet(['nope'])."}},
		{name: "details", path: "/dags/example_bash_operator/details?fields=catchup&fields=dag_run_timeout&fields=params&fields=timezone&fields=start_date&fields=concurrency",
			wantStatus: 200, wantJSON: `{"catchup": false, "concurrency": 16,
				"dag_run_timeout": {"__type": "TimeDelta", "days": 0, "seconds": 3600, "microseconds": 0},
				"params": {"example_key": {"__class": "airflow.models.param.Param", "description": null, "schema": {}, "value": "example_value"}},
				"start_date": "2021-01-01T00:00:00+00:00", "timezone": "UTC"}`},
		{name: "details: unknown DAG", path: "/dags/nope/details", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAG not found", detail: "The DAG with dag_id: nope was not found"}},
		// test_dag_endpoint.py (TestPatchDag)
		{name: "patch", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				if !strings.Contains(res.body, `"is_paused": true`) {
					t.Errorf("answer %s: want is_paused true", res.body)
				}
				if got := ts.do(t, "GET", apiPrefix+"/dags/tutorial/paused", ""); got.body != `{"is_paused": true}` {
					t.Errorf("experimental API sees %s", got.body)
				}
			}},
		{name: "patch: update_mask", method: "PATCH", path: "/dags/tutorial?update_mask=is_paused", body: `{"is_paused": true}`, wantStatus: 200},
		// patch_dag reads patch_body["is_paused"]: a KeyError, a crash 500
		// (2.10.3 api_connexion/endpoints/dag_endpoint.py patch_dag), as the
		// real Airflow 2.10.3 answered an empty body.
		{name: "patch: no is_paused", method: "PATCH", path: "/dags/tutorial", body: `{}`,
			wantStatus: 500, wantProblem: &wantProblem{title: "Internal Server Error", detail: "is_paused: a boolean is required"}},
		{name: "patch: update_mask of another field", method: "PATCH", path: "/dags/tutorial?update_mask=description", body: `{"is_paused": true}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Only `is_paused` field can be updated through the REST API"}},
		{name: "patch: read-only field", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true, "dag_id": "x"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Property is read-only - 'dag_id'"}},
		{name: "patch: read-only checked before type here", method: "PATCH", path: "/dags/tutorial", body: `{"is_active": 5}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Property is read-only - 'is_active'"}},
		{name: "patch: wrong type", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": "true"}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'true' is not of type 'boolean' - 'is_paused'"}},
		{name: "patch: not an object", method: "PATCH", path: "/dags/tutorial", body: `[1]`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "[1] is not of type 'object'"}},
		{name: "patch: unknown field", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true, "zz": 1, "aa": 2}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'aa': ['Unknown field.'], 'zz': ['Unknown field.']}"}},
		{name: "patch: empty body", method: "PATCH", path: "/dags/tutorial", header: []string{"Content-Type", "application/json"},
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Request body must not be empty"}},
		{name: "patch: not JSON", method: "PATCH", path: "/dags/tutorial", body: `{`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Request body is not valid JSON"}},
		// connexion 2.14 RequestBodyValidator reads Flask's get_json(silent=True):
		// json.loads refuses what follows the value ("Extra data"), so the
		// body is None and "not valid JSON"; nothing is paused.
		{name: "patch: text after the JSON value", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true} x`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Request body is not valid JSON"}},
		{name: "patch: a second JSON value", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}{}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Request body is not valid JSON"}},
		{name: "patch: not labelled JSON", method: "PATCH", path: "/dags/tutorial", body: `{"is_paused": true}`, header: []string{"Content-Type", "text/plain"},
			wantStatus: 415, wantProblem: &wantProblem{title: "Unsupported Media Type", typ: "about:blank", detail: "Invalid Content-type (text/plain), expected JSON data"}},
		{name: "patch: unknown DAG", method: "PATCH", path: "/dags/nope", body: `{"is_paused": true}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dag with id: 'nope' not found", detail: nil}},
		// test_dag_endpoint.py (TestPatchDags)
		{name: "patch many: dag_id_pattern required", method: "PATCH", path: "/dags", body: `{"is_paused": true}`,
			wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Missing query parameter 'dag_id_pattern'"}},
		{name: "patch many: ~ is every DAG", method: "PATCH", path: "/dags?dag_id_pattern=~&limit=2", body: `{"is_paused": true}`,
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				wantDags(topLevelDags[:2], 6)(t, ts, res)
				if strings.Count(res.body, `"is_paused": true`) != 2 {
					t.Errorf("answer %s: want both DAGs answered paused", res.body)
				}
				got := ts.v1(t, "GET", "/dags?paused=true", "")
				wantDags(topLevelDags[:2], 2)(t, ts, got)
			}},
		// test_dag_endpoint.py (TestDeleteDagEndpoint)
		{name: "delete", method: "DELETE", path: "/dags/tutorial", wantStatus: 204, wantRaw: strPtr(""),
			check: func(t *testing.T, ts *testServer, _ response) {
				if got := ts.v1(t, "GET", "/dags/tutorial", ""); got.status != 404 {
					t.Errorf("after delete: %d %s", got.status, got.body)
				}
			}},
		{name: "delete: unknown DAG", method: "DELETE", path: "/dags/nope", wantStatus: 404,
			wantProblem: &wantProblem{title: "Dag with id: 'nope' not found", detail: nil}},
		{name: "delete: a task still running", method: "DELETE", path: "/dags/tutorial", wantStatus: 409,
			setup: func(t *testing.T, ts *testServer) {
				res := ts.trigger(t, "tutorial", `{"run_id": "r1"}`)
				ts.setTaskState(t, "tutorial", res["run_id"].(string), "print_date", TaskRunning)
			},
			wantProblem: &wantProblem{title: "Conflict", detail: "Task instances of dag with id: 'tutorial' are still running"}},
	})
}

// TestServerV1_Tasks follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_endpoint.py.
func TestServerV1_Tasks(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		// No sub_dag key: TaskSchema's sub_dag reads an attribute no
		// operator has, and marshmallow leaves it out
		// (Airflow 2.10.3 airflow/api_connexion/schemas/task_schema.py:64).
		{name: "get", path: "/dags/example_bash_operator/tasks/runme_0", wantStatus: 200, wantJSON: `{
			"class_ref": {"class_name": "BashOperator", "module_path": "airflow.operators.bash"},
			"depends_on_past": false, "doc_md": null, "downstream_task_ids": ["run_after_loop"],
			"end_date": null, "execution_timeout": null, "extra_links": [], "is_mapped": false,
			"operator_name": "BashOperator", "owner": "airflow", "params": {"example_key": {"__class": "airflow.models.param.Param", "description": null, "schema": {}, "value": "example_value"}}, "pool": "default_pool", "pool_slots": 1,
			"priority_weight": 1, "queue": "default", "retries": 0,
			"retry_delay": {"__type": "TimeDelta", "days": 0, "microseconds": 0, "seconds": 300},
			"retry_exponential_backoff": false, "start_date": "2021-01-01T00:00:00+00:00", "task_display_name": "runme_0",
			"task_id": "runme_0", "template_fields": ["bash_command", "env", "cwd"], "trigger_rule": "all_success",
			"ui_color": "#f0ede4", "ui_fgcolor": "#000", "wait_for_downstream": false, "weight_rule": "downstream"}`},
		// Observed from the real Airflow 2.10.3: a PythonOperator's template
		// fields (airflow/operators/python.py:192), a SubDagOperator's white
		// text (airflow/operators/subdag.py:79).
		{name: "a PythonOperator's template fields", path: "/dags/example_python_operator/tasks/print_the_context", wantStatus: 200,
			check: wantTaskFields(map[string]any{"template_fields": []any{"templates_dict", "op_args", "op_kwargs"}, "ui_fgcolor": "#000"})},
		// TaskSchema's operator_name is custom_operator_name or task_type:
		// "@task" for a decorated task, as the real Airflow 2.10.3 answered.
		{name: "a @task's operator_name", path: "/dags/example_trigger_target_dag/tasks/run_this", wantStatus: 200,
			check: wantTaskFields(map[string]any{"operator_name": "@task",
				"class_ref": map[string]any{"class_name": "_PythonDecoratedOperator", "module_path": "airflow.decorators.python"}})},
		{name: "a SubDagOperator's colours", path: "/dags/example_subdag_operator/tasks/section-1", wantStatus: 200,
			check: wantTaskFields(map[string]any{"template_fields": []any{}, "ui_color": "#555", "ui_fgcolor": "#fff"})},
		// test_task_endpoint.py:218 (test_should_respond_404)
		{name: "unknown task", path: "/dags/example_bash_operator/tasks/nope", wantStatus: 404,
			wantProblem: &wantProblem{title: "Task not found", detail: nil}},
		{name: "unknown DAG", path: "/dags/nope/tasks/x", wantStatus: 404, wantProblem: &wantProblem{title: "DAG not found", detail: nil}},
		{name: "list, descending", path: "/dags/example_bash_operator/tasks?order_by=-task_id", wantStatus: 200,
			check: func(t *testing.T, _ *testServer, res response) {
				var c struct {
					Tasks []struct {
						TaskID string `json:"task_id"`
					} `json:"tasks"`
					Total int `json:"total_entries"`
				}
				if err := json.Unmarshal([]byte(res.body), &c); err != nil {
					t.Fatal(err)
				}
				if c.Total != len(c.Tasks) || len(c.Tasks) < 2 || c.Tasks[0].TaskID < c.Tasks[1].TaskID {
					t.Errorf("tasks %+v: want all, task_id descending", c)
				}
			}},
		// get_tasks sorts with Python's sorted(..., reverse=True), which
		// keeps tasks of equal keys in the DAG's order (task_endpoint.py:57
		// of 2.10.3): every task has owner "airflow", so -owner lists them
		// as owner does.
		{name: "list, descending keeps ties in order", path: "/dags/example_bash_operator/tasks?order_by=-owner", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				asc := ts.v1(t, "GET", "/dags/example_bash_operator/tasks?order_by=owner", "")
				if got, want := taskIDsOf(t, res.body), taskIDsOf(t, asc.body); !slices.Equal(got, want) || len(got) < 2 {
					t.Errorf("-owner: %v, owner: %v: want the same order", got, want)
				}
			}},
		// test_task_endpoint.py:300 (test_get_tasks_should_respond_400_invalid_order_by)
		{name: "list, unknown order", path: "/dags/example_bash_operator/tasks?order_by=invalid_task_colume_name", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'SerializedBaseOperator' object has no attribute 'invalid_task_colume_name'"}},
	})
}

// TestServerV1_DagSourceAndStats follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_dag_source_endpoint.py and
// test_dag_stats_endpoint.py.
func TestServerV1_DagSourceAndStats(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	res := ts.v1(t, "GET", "/dags/example_bash_operator?fields=file_token", "")
	var d struct {
		FileToken string `json:"file_token"`
	}
	if err := json.Unmarshal([]byte(res.body), &d); err != nil || d.FileToken == "" {
		t.Fatalf("file_token from %s: %v", res.body, err)
	}
	code := ts.do(t, "GET", apiPrefix+"/dags/example_bash_operator/code", "").body
	text := ts.v1(t, "GET", "/dagSources/"+d.FileToken, "", "Accept", "text/plain")
	if text.status != 200 || text.body != code || text.header.Get("Content-Type") != "text/plain" {
		t.Errorf("text source: %d %s %q", text.status, text.header.Get("Content-Type"), text.body)
	}
	asJSON := ts.v1(t, "GET", "/dagSources/"+d.FileToken, "", "Accept", "application/json")
	var content map[string]string
	if err := json.Unmarshal([]byte(asJSON.body), &content); err != nil || content["content"] != code {
		t.Errorf("JSON source: %q (%v)", asJSON.body, err)
	}
	if got := ts.v1(t, "GET", "/dagSources/"+d.FileToken, "", "Accept", "image/png"); got.status != 406 || got.body != "Not Allowed Accept Header" {
		t.Errorf("source as png: %d %q", got.status, got.body)
	}
	bad := ts.v1(t, "GET", "/dagSources/"+d.FileToken+"x", "", "Accept", "text/plain")
	if want := problemText(404, &wantProblem{title: "Dag source not found", detail: nil}); bad.status != 404 || bad.body != want {
		t.Errorf("bad token: %d %q", bad.status, bad.body)
	}

	ts.trigger(t, "tutorial", `{"run_id": "a"}`)
	ts.trigger(t, "tutorial", `{"run_id": "b", "execution_date": "2024-01-01"}`)
	stats := ts.v1(t, "GET", "/dagStats?dag_ids=tutorial,nope,tutorial", "")
	want := `{"dags": [{"dag_id": "tutorial", "stats": [{"count": 2, "state": "queued"}, {"count": 0, "state": "running"},
		{"count": 0, "state": "success"}, {"count": 0, "state": "failed"}]}], "total_entries": 1}`
	checkV1Response(t, v1Case{wantStatus: http.StatusOK, wantJSON: want}, stats)
	missing := ts.v1(t, "GET", "/dagStats", "")
	checkV1Response(t, v1Case{wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "Missing query parameter 'dag_ids'"}}, missing)
}

// next_dagrun is null past where the release's schedule ends: with no DAG
// end_date, at the latest task end_date (Airflow 2.10.3
// airflow/models/dag.py:1213-1219, airflow/timetables/interval.py:113).
func TestServerV1_NextDagrunStopsAtTheScheduleEnd(t *testing.T) {
	t.Parallel()
	ended := "dag_id: ended\nschedule: '@daily'\nstart_date: 2020-01-01\ndefault_args: {end_date: 2019-12-31}\n" +
		"tasks: [{task_id: t, operator: EmptyOperator}]\n"
	runV1Cases(t, []v1Case{
		{name: "ended", path: "/dags/ended?fields=next_dagrun", options: []testOption{withDAG(ended)},
			wantStatus: 200, wantJSON: `{"next_dagrun": null}`},
	})
}

// TestServerV1_DagsOnlyActive: a DAG whose file is gone keeps its row,
// inactive; list and patch-many leave it out unless only_active=false
// (Airflow 2.10.3 airflow/api_connexion/endpoints/dag_endpoint.py:109-111
// and :182-185; DagModel.is_active).
func TestServerV1_DagsOnlyActive(t *testing.T) {
	t.Parallel()
	others := slices.DeleteFunc(slices.Clone(topLevelDags), func(id string) bool { return id == "tutorial" })
	cases := []struct {
		name, method, path, body string
		want                     []string
		active                   map[string]bool // is_active of the answer's DAGs, where it matters
	}{
		{"list: active by default", "GET", "/dags", "", others, nil},
		{"list: only_active=true", "GET", "/dags?only_active=true", "", others, nil},
		{"list: only_active=false", "GET", "/dags?only_active=false", "", topLevelDags,
			map[string]bool{"tutorial": false, "example_bash_operator": true}},
		{"patch many: active by default", "PATCH", "/dags?dag_id_pattern=tutorial", `{"is_paused": false}`, []string{}, nil},
		{"patch many: only_active=false", "PATCH", "/dags?dag_id_pattern=tutorial&only_active=false", `{"is_paused": false}`,
			[]string{"tutorial"}, map[string]bool{"tutorial": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			fewer := &DAGSet{Pools: ts.dags.Pools}
			for _, d := range ts.dags.DAGs {
				if d.DagID != "tutorial" {
					fewer.DAGs = append(fewer.DAGs, d)
				}
			}
			if err := ts.store.LoadDAGs(fewer); err != nil {
				t.Fatal(err)
			}
			res := ts.v1(t, tc.method, tc.path, tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			wantDags(tc.want, float64(len(tc.want)))(t, ts, res)
			var c struct {
				Dags []struct {
					DagID    string `json:"dag_id"`
					IsActive bool   `json:"is_active"`
				} `json:"dags"`
			}
			if err := json.Unmarshal([]byte(res.body), &c); err != nil {
				t.Fatal(err)
			}
			for _, d := range c.Dags {
				if want, ok := tc.active[d.DagID]; ok && d.IsActive != want {
					t.Errorf("%s is_active = %v, want %v", d.DagID, d.IsActive, want)
				}
			}
		})
	}
}

// wantTaskFields checks some fields of a task's answer.
func wantTaskFields(want map[string]any) func(t *testing.T, _ *testServer, res response) {
	return func(t *testing.T, _ *testServer, res response) {
		t.Helper()
		got := decodeJSON[map[string]any](t, res.body)
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s = %#v, want %#v", k, got[k], v)
			}
		}
	}
}
