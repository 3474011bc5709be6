package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// paramsMsg is str() of the ParamValidationError for one param, with
// jsonschema's text for the DAG's schemas in typed.py.
func paramsMsg(param, msg, keyword, schema, instance string) string {
	return "Invalid input for param " + param + ": " + msg + "\n\nFailed validating '" + keyword +
		"' in schema:\n    " + schema + "\n\nOn instance:\n    " + instance
}

const (
	rowsSchema = "{'type': 'integer', 'minimum': 3}"
	modeSchema = "{'enum': ['full', 'delta']}"
)

// TestTrigger_ParamsAsAirflow2: /api/v1's post_dag_run answers a conf
// its DAG's params refuse with 400 and the error's text, the
// experimental trigger with 500 {"error": text} (an AirflowException's
// status); 2.10.3's ParamsDict.update checks the conf's keys in the
// conf's order, so mode is refused before rows. A valid conf triggers
// with the conf as sent; a DAG without schemas takes any conf; a
// duplicate run is found before the params.
func TestTrigger_ParamsAsAirflow2(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/params", edition2)
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = set }))
	bad := []struct {
		name, conf, want string
	}{
		{"type", `{"rows": "abc"}`, paramsMsg("rows", "'abc' is not of type 'integer'", "type", rowsSchema, "'abc'")},
		{"minimum", `{"rows": 2}`, paramsMsg("rows", "2 is less than the minimum of 3", "minimum", rowsSchema, "2")},
		{"conf_order", `{"mode": "half", "rows": 2}`, paramsMsg("mode", "'half' is not one of ['full', 'delta']", "enum", modeSchema, "'half'")},
		{"null", `{"rows": null}`, paramsMsg("rows", "None is not of type 'integer'", "type", rowsSchema, "None")},
	}
	for i, tc := range bad {
		t.Run("v1 "+tc.name, func(t *testing.T) {
			res := ts.v1(t, "POST", "/dags/typed_params/dagRuns", `{"dag_run_id": "v1_bad_`+tc.name+`", "conf": `+tc.conf+`}`)
			var p struct {
				Detail string `json:"detail"`
				Status int    `json:"status"`
				Title  string `json:"title"`
			}
			if err := json.Unmarshal([]byte(res.body), &p); err != nil {
				t.Fatal(err)
			}
			if res.status != http.StatusBadRequest || p.Status != 400 || p.Title != "Bad Request" || p.Detail != tc.want {
				t.Errorf("POST = %d %+v, want 400 Bad Request with detail\n%s", res.status, p, tc.want)
			}
		})
		t.Run("experimental "+tc.name, func(t *testing.T) {
			date := []string{"2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"}[i]
			res := ts.do(t, "POST", "/api/experimental/dags/typed_params/dag_runs",
				`{"execution_date": "`+date+`T00:00:00+00:00", "conf": `+tc.conf+`}`)
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(res.body), &e); err != nil {
				t.Fatal(err)
			}
			if res.status != http.StatusInternalServerError || e.Error != tc.want {
				t.Errorf("POST = %d %q, want 500 with error\n%s", res.status, e.Error, tc.want)
			}
		})
	}
	res := ts.v1(t, "POST", "/dags/typed_params/dagRuns", `{"dag_run_id": "ok", "conf": {"rows": 7, "extra": [1]}}`)
	if res.status != http.StatusOK {
		t.Fatalf("valid conf: %d %s", res.status, res.body)
	}
	var run struct{ Conf map[string]any }
	if err := json.Unmarshal([]byte(res.body), &run); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(run.Conf); string(got) != `{"extra":[1],"rows":7}` {
		t.Errorf("conf = %s, want the conf as sent", got)
	}
	if res := ts.v1(t, "POST", "/dags/typed_params/dagRuns", `{"dag_run_id": "ok", "conf": {"rows": 1}}`); res.status != http.StatusConflict {
		t.Errorf("duplicate with a bad conf = %d %s, want the duplicate's 409", res.status, res.body)
	}
	if res := ts.v1(t, "POST", "/dags/untyped_params/dagRuns", `{"conf": {"rows": "abc"}}`); res.status != http.StatusOK {
		t.Errorf("DAG without schemas = %d %s, want 200", res.status, res.body)
	}
}

// TestTrigger_ParamsAsAirflow3: POST /api/v2/dags/{id}/dagRuns answers
// 400 with the error's text; Airflow 3 merges the conf first and checks
// the params in the DAG's order (rows before mode), and before the
// insert meets a duplicate run.
func TestTrigger_ParamsAsAirflow3(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/params", edition3)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
	for _, tc := range []struct{ name, conf, want string }{
		{"type", `{"rows": "abc"}`, paramsMsg("rows", "'abc' is not of type 'integer'", "type", rowsSchema, "'abc'")},
		{"params order", `{"mode": "half", "rows": 2}`, paramsMsg("rows", "2 is less than the minimum of 3", "minimum", rowsSchema, "2")},
		{"mode", `{"mode": "half"}`, paramsMsg("mode", "'half' is not one of ['full', 'delta']", "enum", modeSchema, "'half'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.v2(t, "POST", "/dags/typed_params/dagRuns", `{"logical_date": null, "conf": `+tc.conf+`}`, http.StatusBadRequest)
			var e struct{ Detail string }
			if err := json.Unmarshal([]byte(res.body), &e); err != nil {
				t.Fatal(err)
			}
			if e.Detail != tc.want {
				t.Errorf("detail =\n%s\nwant\n%s", e.Detail, tc.want)
			}
		})
	}
	res := ts.v2(t, "POST", "/dags/typed_params/dagRuns", `{"dag_run_id": "ok", "logical_date": null, "conf": {"rows": 7, "extra": [1]}}`, http.StatusOK)
	var run struct{ Conf map[string]any }
	if err := json.Unmarshal([]byte(res.body), &run); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(run.Conf); string(got) != `{"extra":[1],"rows":7}` {
		t.Errorf("conf = %s, want the conf as sent", got)
	}
	ts.v2(t, "POST", "/dags/typed_params/dagRuns", `{"dag_run_id": "ok", "logical_date": null, "conf": {"rows": 1}}`, http.StatusBadRequest)
	ts.v2(t, "POST", "/dags/untyped_params/dagRuns", `{"logical_date": null, "conf": {"rows": "abc"}}`, http.StatusOK)
}
