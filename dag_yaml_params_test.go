package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// paramsOf is the params object of a JSON answer, as written.
func paramsOf(t *testing.T, body string) string {
	t.Helper()
	var d struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil || d.Params == nil {
		t.Fatalf("no params in %s (%v)", body, err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, d.Params); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestYAMLParams_AsPython: a definition file's !Param params show in the
// DAG's details as the twin Python file's Param params do (v1 in edition
// 2, v2 in edition 3), value, description and schema in the order
// written, and a trigger's conf is answered the same for both.
func TestYAMLParams_AsPython(t *testing.T) {
	t.Parallel()
	confs := []string{
		`{}`,
		`{"required": 1, "nothing": null}`,
		`{"required": 1}`,
		`{"required": 1, "nothing": 0, "rows": 2}`,
		`{"required": 1, "nothing": 0, "mode": "half"}`,
		`{"required": 1, "nothing": 0, "limited": "abcd"}`,
		`{"required": 1, "nothing": 0, "obj": {}}`,
		`{"required": 1, "nothing": 0, "described": "x"}`,
		`{"required": "x", "nothing": null}`,
		`{"required": 1, "nothing": 0, "note": 5}`,
	}
	// jsonschema 4.23's str() for the maxLength case (python-jsonschema
	// 4.26.0 gives the same text).
	const limited = "Invalid input for param limited: 'abcd' is too long\n\nFailed validating 'maxLength' in schema:\n" +
		"    {'type': 'string', 'maxLength': 3}\n\nOn instance:\n    'abcd'"
	for _, e := range []edition{edition2, edition3} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			set := readPyServeFolderAs(t, "testdata/pydags/params_twins", e)
			ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.DAGs = set }))
			details := func(dagID string) string {
				if e == edition3 {
					return paramsOf(t, ts.v2(t, "GET", "/dags/"+dagID+"/details", "", http.StatusOK).body)
				}
				res := ts.v1(t, "GET", "/dags/"+dagID+"/details", "")
				if res.status != http.StatusOK {
					t.Fatalf("details of %s = %d %s", dagID, res.status, res.body)
				}
				return paramsOf(t, res.body)
			}
			py, yml := details("py_params"), details("yaml_params")
			if py != yml {
				t.Errorf("params differ:\npython %s\nyaml   %s", py, yml)
			}
			for _, want := range []string{`"description":"Rows to load"`, `"title":"Rows"`, `"required":["a"]`, `"value":{"a":1}`} {
				if !strings.Contains(yml, want) {
					t.Errorf("yaml params lack %s: %s", want, yml)
				}
			}
			trigger := func(dagID, conf string, i int) (int, string) {
				if e == edition3 {
					res := ts.do(t, "POST", apiV2Prefix+"/dags/"+dagID+"/dagRuns", `{"logical_date": null, "conf": `+conf+`}`)
					var d struct{ Detail any }
					_ = json.Unmarshal([]byte(res.body), &d)
					s, _ := d.Detail.(string)
					return res.status, s
				}
				res := ts.v1(t, "POST", "/dags/"+dagID+"/dagRuns", fmt.Sprintf(`{"logical_date": "2024-03-%02dT00:00:00+00:00", "conf": %s}`, i+1, conf))
				var p struct{ Detail string }
				_ = json.Unmarshal([]byte(res.body), &p)
				return res.status, p.Detail
			}
			refused := 0
			for i, conf := range confs {
				pyStatus, pyDetail := trigger("py_params", conf, i)
				yStatus, yDetail := trigger("yaml_params", conf, i)
				if pyStatus != yStatus || pyDetail != yDetail {
					t.Errorf("conf %s: python %d %q, yaml %d %q", conf, pyStatus, pyDetail, yStatus, yDetail)
				}
				if yStatus == http.StatusBadRequest {
					refused++
				}
				if strings.Contains(conf, `"limited"`) && yDetail != limited {
					t.Errorf("limited: %d %q, want 400 %q", yStatus, yDetail, limited)
				}
			}
			if refused != len(confs)-1 {
				t.Errorf("%d of %d confs refused, want all but the second", refused, len(confs))
			}
		})
	}
}

// TestYAMLParams_Read: what the front end makes of !Param: a value alone
// is Param(value), nothing is Param() (no default), schema replaces the
// other keywords, a task's params go over default_args' (a plain value
// replacing a Param), the schema keeps its key order for jsonschema's
// walk.
func TestYAMLParams_Read(t *testing.T) {
	t.Parallel()
	spec, err := readYAMLDAG([]byte(`
dag_id: d
params:
  a: !Param {default: 1, maximum: 3, type: integer}
  b: !Param
  c: !Param null
  d: !Param [1, 2]
  e: !Param {default: x, schema: {maxLength: 1}, minLength: 2}
default_args:
  params: {x: !Param {default: 1, type: integer}, y: !Param {default: 2, type: integer}}
tasks:
  - {task_id: t1, operator: EmptyOperator, params: {x: 5, z: !Param {default: 0}}}
  - {task_id: t2, operator: EmptyOperator}
`), testNow)
	if err != nil || spec.ReadErr != nil {
		t.Fatal(err, spec.ReadErr)
	}
	docs := spec.ParamDocs
	if a := docs["a"]; string(a.rawSchema) != `{"maximum":3,"type":"integer"}` || a.NoDefault || spec.Params["a"] != int64(1) {
		t.Errorf("a: %+v %s value %#v", a, a.rawSchema, spec.Params["a"])
	}
	if b := docs["b"]; !b.NoDefault || spec.Params["b"] != nil || len(b.Schema) != 0 {
		t.Errorf("b: %+v, want Param() without a default", b)
	}
	if c := docs["c"]; c.NoDefault || spec.Params["c"] != nil {
		t.Errorf("c: %+v, want Param(None)", c)
	}
	if d, ok := spec.Params["d"].([]any); !ok || len(d) != 2 || d[0] != int64(1) {
		t.Errorf("d: %#v, want [1, 2]", spec.Params["d"])
	}
	if e := docs["e"]; string(e.rawSchema) != `{"maxLength":1}` {
		t.Errorf("e: schema %s, want schema's alone", e.rawSchema)
	}
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		if docs[name].order != i || docs[name].Class != "airflow.models.param.Param" {
			t.Errorf("%s: order %d class %q, want %d", name, docs[name].order, docs[name].Class, i)
		}
	}
	t1, t2 := spec.Tasks[0], spec.Tasks[1]
	if _, ok := t1.ParamDocs["x"]; ok || t1.Params["x"] != 5 || t1.ParamDocs["y"].Schema["type"] != "integer" || t1.ParamDocs["z"].Class == "" {
		t.Errorf("t1: %v %+v", t1.Params, t1.ParamDocs)
	}
	if t2.ParamDocs["x"].Schema["type"] != "integer" || t2.Params["x"] != int64(1) {
		t.Errorf("t2: %v %+v, want default_args' params", t2.Params, t2.ParamDocs)
	}
	plain, err := readYAMLDAG([]byte("dag_id: d\nparams: {a: 1}\ntasks: [{task_id: t, operator: EmptyOperator}]\n"), testNow)
	if err != nil || plain.ParamDocs != nil || plain.Params["a"] != 1 {
		t.Errorf("plain params: %v %+v %v, want no docs", plain.Params, plain.ParamDocs, err)
	}
}

// TestYAMLParams_Refused: the messages that refuse a Param a definition
// cannot have.
func TestYAMLParams_Refused(t *testing.T) {
	t.Parallel()
	const head = "dag_id: d\nstart_date: 2024-01-01T00:00:00+00:00\nschedule: null\n"
	const task = "tasks: [{task_id: t, operator: EmptyOperator}]\n"
	for _, tc := range []struct {
		name string
		e    edition
		body string
		want string
	}{
		{"1.10 has no Param", edition110, "params:\n  a: 1\n  rows: !Param {default: 5}\n" + task,
			"line 6: params: rows: Airflow 1.10.15 has no Param (it came with Airflow 2.2): write the param's value alone"},
		{"1.10 task", edition110RBAC, "tasks: [{task_id: t, operator: DummyOperator, params: {r: !Param 1}}]\n",
			`line 4: task "t": params: r: Airflow 1.10.15 has no Param (it came with Airflow 2.2): write the param's value alone`},
		{"tag on params", edition2, "params: !Param {rows: 5}\n" + task,
			"line 4: params: !Param marks one param's value (params: {rows: !Param {default: 5, type: integer}}), not the params"},
		{"unknown tag", edition2, "params:\n  rows: !Parm 5\n" + task, "line 5: params: rows: unknown tag !Parm (did you mean !Param?)"},
		{"schema not a mapping", edition2, "params:\n  rows: !Param {schema: 5}\n" + task,
			"line 5: params: rows: schema must be a mapping of JSON Schema keywords, not the number 5"},
		{"not JSON", edition3, "params:\n  rows: !Param {default: .inf}\n" + task, "line 5: params: rows: default: .inf is not a JSON value"},
		{"not a mapping", edition2, "params: [1]\n" + task, "line 4: params must be a mapping, not a list"},
		{"twice", edition2, "params: {a: !Param 1, a: 2}\n" + task, `line 4: key "a" appears twice in params (first at line 4)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseDAGFor([]byte(head+tc.body), testNow, tc.e.rules())
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// TestAPIv2_ParamsDump: /api/v2 shows params as 3.2.1's
// SerializedParam.dump (serialization/definitions/param.py:70-77 of
// c57fba0e, datamodels/dags.py:207-213 and tasks.py:105-111): value,
// schema, description, source, in the file's order (schema keys too);
// the value resolve()'s, null for a param without a default or whose
// default its schema refuses (v1 shows the default, as 2.10.3's
// Param.dump); no __class. A task's params are the DAG's, source "dag",
// with its own over them, source "task" (task-sdk bases/operator.py:
// 136-172).
func TestAPIv2_ParamsDump(t *testing.T) {
	t.Parallel()
	const pyParams = `{"rows":{"value":5,"schema":{"type":"integer","minimum":3},"description":null,"source":null},` +
		`"mode":{"value":"full","schema":{"enum":["full","delta"]},"description":null,"source":null},` +
		`"plain":{"value":"x","schema":{},"description":null,"source":null},` +
		`"described":{"value":5,"schema":{"type":"integer","title":"Rows"},"description":"Rows to load","source":null},` +
		`"limited":{"value":"abc","schema":{"type":"string","maxLength":3},"description":null,"source":null},` +
		`"obj":{"value":{"a":1},"schema":{"type":"object","required":["a"]},"description":null,"source":null},` +
		`"note":{"value":null,"schema":{"type":["null","string"]},"description":null,"source":null},` +
		`"required":{"value":null,"schema":{"type":"integer"},"description":null,"source":null},` +
		`"bare":{"value":7,"schema":{},"description":null,"source":null},` +
		`"nothing":{"value":null,"schema":{},"description":null,"source":null}}`
	raw := func(body string) string {
		t.Helper()
		var d struct {
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatal(err)
		}
		return string(d.Params)
	}
	set := readPyServeFolderAs(t, "testdata/pydags/params_twins", edition3)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
	for _, dagID := range []string{"py_params", "yaml_params"} {
		if got := raw(ts.v2(t, "GET", "/dags/"+dagID+"/details", "", http.StatusOK).body); got != pyParams {
			t.Errorf("%s details params\n%s\nwant\n%s", dagID, got, pyParams)
		}
		want := strings.ReplaceAll(pyParams, `"source":null`, `"source":"dag"`)
		if got := raw(ts.v2(t, "GET", "/dags/"+dagID+"/tasks/t", "", http.StatusOK).body); got != want {
			t.Errorf("%s task params\n%s\nwant\n%s", dagID, got, want)
		}
	}

	const own = `
dag_id: own_params
schedule: null
start_date: 2024-01-01T00:00:00+00:00
params:
  a: !Param {default: 1, type: integer}
  bad: !Param {default: x, type: integer}
tasks:
  - {task_id: mine, operator: EmptyOperator, params: {a: 3, b: 2}}
  - {task_id: theirs, operator: EmptyOperator}
`
	ts3 := newTestServer(t, edition3, withDAG(own))
	wantDAG := `{"a":{"value":1,"schema":{"type":"integer"},"description":null,"source":null},` +
		`"bad":{"value":null,"schema":{"type":"integer"},"description":null,"source":null}}`
	if got := raw(ts3.v2(t, "GET", "/dags/own_params/details", "", http.StatusOK).body); got != wantDAG {
		t.Errorf("own_params details params\n%s\nwant\n%s", got, wantDAG)
	}
	for task, want := range map[string]string{
		"mine": `{"a":{"value":3,"schema":{},"description":null,"source":"task"},` +
			`"bad":{"value":null,"schema":{"type":"integer"},"description":null,"source":"dag"},` +
			`"b":{"value":2,"schema":{},"description":null,"source":"task"}}`,
		"theirs": strings.ReplaceAll(wantDAG, `"source":null`, `"source":"dag"`),
	} {
		if got := raw(ts3.v2(t, "GET", "/dags/own_params/tasks/"+task, "", http.StatusOK).body); got != want {
			t.Errorf("task %s params\n%s\nwant\n%s", task, got, want)
		}
	}
	ts2 := newTestServer(t, edition2, withDAG(own))
	if got := paramsOf(t, ts2.v1(t, "GET", "/dags/own_params/details", "").body); !strings.Contains(got, `"value":"x"`) {
		t.Errorf("v1 details params %s, want the default as the file gave it", got)
	}
}

// TestParams_DefaultArgs: default_args' params are the DAG's, over its
// own params, and leave default_args (2.10.3 models/dag.py:576-584;
// 1.10.15 models/dag.py:253-256; task-sdk definitions/dag.py
// _convert_params:168-184 of c57fba0e), in a Python file and in a
// definition file alike: the DAG's details show a=10 and c's schema, and
// default_args without params; a trigger checks c.
func TestParams_DefaultArgs(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition3} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			set := readPyServeFolderAs(t, "testdata/pydags/params_twins", e)
			ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.DAGs = set }))
			details := func(dagID string) (params, defaults string) {
				var body string
				if e == edition3 {
					body = ts.v2(t, "GET", "/dags/"+dagID+"/details", "", http.StatusOK).body
				} else {
					body = ts.v1(t, "GET", "/dags/"+dagID+"/details", "").body
				}
				var d struct {
					DefaultArgs json.RawMessage `json:"default_args"`
				}
				if err := json.Unmarshal([]byte(body), &d); err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				_ = json.Compact(&b, d.DefaultArgs)
				return paramsOf(t, body), b.String()
			}
			pyParams, pyDefaults := details("py_defaults")
			yParams, yDefaults := details("yaml_defaults")
			if pyParams != yParams || pyDefaults != yDefaults {
				t.Errorf("python %s %s\nyaml   %s %s", pyParams, pyDefaults, yParams, yDefaults)
			}
			if !strings.Contains(yParams, `"value":10`) || !strings.Contains(yParams, `"schema":{"type":"integer"}`) || strings.Contains(yDefaults, "params") {
				t.Errorf("yaml params %s, default_args %s: want a=10, c's schema, no params in default_args", yParams, yDefaults)
			}
			for _, dagID := range []string{"py_defaults", "yaml_defaults"} {
				var status int
				if e == edition3 {
					status = ts.do(t, "POST", apiV2Prefix+"/dags/"+dagID+"/dagRuns", `{"logical_date": null, "conf": {"c": "x"}}`).status
				} else {
					status = ts.v1(t, "POST", "/dags/"+dagID+"/dagRuns", `{"conf": {"c": "x"}}`).status
				}
				if status != http.StatusBadRequest {
					t.Errorf("%s: trigger with c=x = %d, want 400", dagID, status)
				}
			}
		})
	}
}

// TestYAMLParams_Code: /code's rendering of a definition writes its
// Params as the calls that make them, with the release's import; the
// 1.10 idiom has no Param (a definition cannot have one there).
func TestYAMLParams_Code(t *testing.T) {
	t.Parallel()
	def := []byte(`
dag_id: coded
schedule: null
params:
  rows: !Param {default: 5, type: integer, minimum: 3, description: Rows}
  plain: x
  odd: !Param {default: 1, not: {const: 2}}
  needed: !Param {type: string}
tasks: [{task_id: t, operator: EmptyOperator}]
`)
	for _, tc := range []struct {
		e       edition
		py      pythonDialect
		import_ string
	}{{edition2, python2, "from airflow.models.param import Param\n"}, {edition3, python3, "from airflow.sdk import Param\n"}} {
		dag, err := parseDAGFor(def, testNow, tc.e.rules())
		if err != nil {
			t.Fatal(err)
		}
		got := renderPython(dag, tc.py)
		want := "    params={'rows': Param(5, description='Rows', type='integer', minimum=3), 'plain': 'x', " +
			"'odd': Param(1, schema={'not': {'const': 2}}), 'needed': Param(type='string')},\n"
		if !strings.Contains(got, tc.import_) || !strings.Contains(got, want) {
			t.Errorf("edition %s:\n%s\nwant %q and\n%s", tc.e, got, tc.import_, want)
		}
	}
}
