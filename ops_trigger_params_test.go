package main

import (
	"encoding/json"
	"net/http"
	"strings"
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

// TestTrigger_ParamsWithoutDefault: a Param without a default (its value
// NOTSET) must get one from the conf. 2.10.3's Param.resolve raises
// "No value passed and Param has no default value" (models/param.py:
// 125-128), Airflow 3's SerializedParam.resolve "No value passed"
// (serialization/definitions/param.py:61-62 of c57fba0e), both wrapped
// by ParamsDict.validate; a null in the conf is a value, checked by the
// schema. The DAG's params show such a param's value as null in both
// APIs (Param.dump, param.py:150-151; SerializedParam.dump's resolve()).
func TestTrigger_ParamsWithoutDefault(t *testing.T) {
	t.Parallel()
	const (
		v2Text   = "Invalid input for param rows: No value passed and Param has no default value"
		v3Text   = "Invalid input for param rows: No value passed"
		nullRows = "Invalid input for param rows: None is not of type 'integer'\n\nFailed validating 'type' in schema:\n    {'type': 'integer'}\n\nOn instance:\n    None"
	)
	wantParams := `{"anything":null}`
	paramValues := func(t *testing.T, body string) string {
		t.Helper()
		var d struct {
			Params map[string]struct {
				Value any `json:"value"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatal(err)
		}
		vals := map[string]any{}
		for k, p := range d.Params {
			vals[k] = p.Value
		}
		got, _ := json.Marshal(vals)
		return string(got)
	}

	t.Run("edition 2", func(t *testing.T) {
		t.Parallel()
		set := readPyServeFolderAs(t, "testdata/pydags/params", edition2)
		for _, d := range set.DAGs {
			if d.DagID != "required_params" {
				continue
			}
			if !d.ParamDocs["rows"].NoDefault || d.ParamDocs["note"].NoDefault || d.Params["rows"] != nil || d.Params["note"] != nil {
				t.Errorf("params %v, docs %+v: want rows without a default, note with None", d.Params, d.ParamDocs)
			}
		}
		ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = set }))
		for i, tc := range []struct{ dag, conf, want string }{
			{"required_params", `{}`, v2Text},
			{"required_params", `{"note": "x"}`, v2Text},
			{"required_params", `{"rows": null}`, nullRows},
			{"required_untyped", `{"other": 1}`, "Invalid input for param anything: No value passed and Param has no default value"},
		} {
			res := ts.v1(t, "POST", "/dags/"+tc.dag+"/dagRuns", `{"conf": `+tc.conf+`}`)
			var p struct{ Detail string }
			if err := json.Unmarshal([]byte(res.body), &p); err != nil {
				t.Fatal(err)
			}
			if res.status != http.StatusBadRequest || p.Detail != tc.want {
				t.Errorf("v1 %s %s = %d %q, want 400 %q", tc.dag, tc.conf, res.status, p.Detail, tc.want)
			}
			date := []string{"2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"}[i]
			res = ts.do(t, "POST", "/api/experimental/dags/"+tc.dag+"/dag_runs",
				`{"execution_date": "`+date+`T00:00:00+00:00", "conf": `+tc.conf+`}`)
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(res.body), &e); err != nil {
				t.Fatal(err)
			}
			if res.status != http.StatusInternalServerError || e.Error != tc.want {
				t.Errorf("experimental %s %s = %d %q, want 500 %q", tc.dag, tc.conf, res.status, e.Error, tc.want)
			}
		}
		if res := ts.do(t, "POST", "/api/experimental/dags/required_params/dag_runs", `{}`); res.status != http.StatusInternalServerError || !strings.Contains(res.body, "No value passed") {
			t.Errorf("experimental without conf = %d %s, want 500", res.status, res.body)
		}
		for _, tc := range []struct{ dag, conf string }{
			{"required_params", `{"rows": 4}`},
			{"required_untyped", `{"anything": null}`},
		} {
			if res := ts.v1(t, "POST", "/dags/"+tc.dag+"/dagRuns", `{"logical_date": "2024-04-01T00:00:00+00:00", "conf": `+tc.conf+`}`); res.status != http.StatusOK {
				t.Errorf("v1 %s %s = %d %s, want 200", tc.dag, tc.conf, res.status, res.body)
			}
		}
		res := ts.v1(t, "GET", "/dags/required_untyped/details", "")
		if got := paramValues(t, res.body); res.status != http.StatusOK || got != wantParams {
			t.Errorf("details params = %d %s, want %s", res.status, got, wantParams)
		}
	})

	t.Run("edition 3", func(t *testing.T) {
		t.Parallel()
		set := readPyServeFolderAs(t, "testdata/pydags/params", edition3)
		ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
		for _, tc := range []struct{ dag, conf, want string }{
			{"required_params", `{}`, v3Text},
			{"required_params", `{"rows": null}`, nullRows},
			{"required_untyped", `{"other": 1}`, "Invalid input for param anything: No value passed"},
		} {
			res := ts.v2(t, "POST", "/dags/"+tc.dag+"/dagRuns", `{"logical_date": null, "conf": `+tc.conf+`}`, http.StatusBadRequest)
			var e struct{ Detail string }
			if err := json.Unmarshal([]byte(res.body), &e); err != nil {
				t.Fatal(err)
			}
			if e.Detail != tc.want {
				t.Errorf("%s %s: detail %q, want %q", tc.dag, tc.conf, e.Detail, tc.want)
			}
		}
		ts.v2(t, "POST", "/dags/required_params/dagRuns", `{"logical_date": null}`, http.StatusBadRequest)
		ts.v2(t, "POST", "/dags/required_params/dagRuns", `{"logical_date": null, "conf": {"rows": 4}}`, http.StatusOK)
		ts.v2(t, "POST", "/dags/required_untyped/dagRuns", `{"logical_date": null, "conf": {"anything": null}}`, http.StatusOK)
		res := ts.v2(t, "GET", "/dags/required_untyped/details", "", http.StatusOK)
		if got := paramValues(t, res.body); got != wantParams {
			t.Errorf("details params = %s, want %s", got, wantParams)
		}
	})
}
