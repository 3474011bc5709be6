package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The tests below hold what the real Airflow 2.10.3 answered for the
// files of testdata/pydags/conform (its webserver over a DAG folder of
// those files, GET /api/v1/...), where airlite's reader was seen to
// differ while serving Airflow 2.10.3's own example DAGs.

// v1Tasks is GET /dags/{id}/tasks by task id, checked against the v1
// document when doc is given.
func (ts *testServer) v1Tasks(t *testing.T, doc *v1SchemaDoc, dagID string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, raw := range ts.v1JSONAsAirflow(t, doc, "/dags/"+dagID+"/tasks")["tasks"].([]any) {
		task := raw.(map[string]any)
		out[task["task_id"].(string)] = task
	}
	return out
}

// v1JSONAsAirflow is v1JSON, or without the document's check when doc is
// nil: where Airflow's answer is not what its document declares.
func (ts *testServer) v1JSONAsAirflow(t *testing.T, doc *v1SchemaDoc, path string) map[string]any {
	t.Helper()
	if doc != nil {
		return ts.v1JSON(t, doc, path)
	}
	res := ts.v1(t, "GET", path, "")
	var v map[string]any
	if res.status != 200 || json.Unmarshal([]byte(res.body), &v) != nil {
		t.Fatalf("GET %s = %d %s", path, res.status, res.body)
	}
	return v
}

// TestServePython_XComArgUpstream: an XComArg given to a classic
// operator's template field makes its task upstream (2.10.3
// models/baseoperator.py:506-511 set_xcomargs_dependencies), a mapped
// task's output included; one given to a field that is not templated does
// not.
func TestServePython_XComArgUpstream(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/conform")
	tasks := ts.v1Tasks(t, doc, "conform_xcomarg")
	for id, want := range map[string]string{
		"plus": `["total"]`, "total": `["show"]`, "show": "[]", "not_a_field": "[]",
	} {
		wantFields(t, id, tasks[id], map[string]string{"downstream_task_ids": want})
	}
	wantFields(t, "plus", tasks["plus"], map[string]string{"is_mapped": "true", "template_fields": "[]"})
	wantFields(t, "total", tasks["total"], map[string]string{"template_fields": `["values"]`, "operator_name": `"Total"`})
}

// TestServePython_DisplayNames: dag_display_name and task_display_name
// are the ones the file gave (2.10.3 models/dag.py DagModel
// dag_display_name, models/baseoperator.py task_display_name), the ids
// where it gave none; Airflow 3 shows them the same way in /api/v2.
func TestServePython_DisplayNames(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/conform")
	wantFields(t, "conform_xcomarg", ts.v1JSON(t, doc, "/dags/conform_xcomarg"), map[string]string{"dag_display_name": `"XComArg upstreams"`})
	wantFields(t, "conform_xcomarg details", ts.v1JSON(t, doc, "/dags/conform_xcomarg/details"), map[string]string{"dag_display_name": `"XComArg upstreams"`})
	wantFields(t, "conform_any", ts.v1JSON(t, doc, "/dags/conform_any"), map[string]string{"dag_display_name": `"conform_any"`})
	tasks := ts.v1Tasks(t, doc, "conform_xcomarg")
	wantFields(t, "total", tasks["total"], map[string]string{"task_display_name": `"Sum it"`})
	wantFields(t, "plus", tasks["plus"], map[string]string{"task_display_name": `"plus"`})
	wantFields(t, "GET /tasks/total", ts.v1JSON(t, doc, "/dags/conform_xcomarg/tasks/total"), map[string]string{"task_display_name": `"Sum it"`})
}

// TestServePython_ExternalTaskOperators: ExternalTaskSensor and
// ExternalTaskMarker show their class's template fields, colour and
// extra link (2.10.3 sensors/external_task.py:150-152 and 476-478); the
// marker is an EmptyOperator.
func TestServePython_ExternalTaskOperators(t *testing.T) {
	t.Parallel()
	ts := servePyFolder(t, "testdata/pydags/conform")
	// The v1 document declares each extra link as {"class_ref": {...}};
	// Airflow 2.10.3 answers the class reference itself (TaskSchema's
	// extra_links is a list of ClassReferenceSchema, task_schema.py:47-49),
	// so these answers are not checked against the document.
	tasks := ts.v1Tasks(t, nil, "conform_external")
	link := `[{"class_name": "ExternalDagLink", "module_path": "airflow.sensors.external_task"}]`
	wantFields(t, "wait", tasks["wait"], map[string]string{
		"class_ref":       `{"class_name": "ExternalTaskSensor", "module_path": "airflow.sensors.external_task"}`,
		"operator_name":   `"ExternalTaskSensor"`,
		"template_fields": `["external_dag_id", "external_task_id", "external_task_ids", "external_task_group_id"]`,
		"ui_color":        `"#4db7db"`, "ui_fgcolor": `"#000"`, "extra_links": link, "downstream_task_ids": `["mark"]`,
	})
	wantFields(t, "mark", tasks["mark"], map[string]string{
		"class_ref":       `{"class_name": "ExternalTaskMarker", "module_path": "airflow.sensors.external_task"}`,
		"template_fields": `["external_dag_id", "external_task_id", "execution_date"]`,
		"ui_color":        `"#4db7db"`, "extra_links": link, "downstream_task_ids": `["done"]`,
	})
	wantFields(t, "done", tasks["done"], map[string]string{"extra_links": "[]", "ui_color": `"#e8f7e4"`})
	wantFields(t, "GET /tasks/wait", ts.v1JSONAsAirflow(t, nil, "/dags/conform_external/tasks/wait"), map[string]string{"extra_links": link})
	dir, _ := filepath.Abs("testdata/pydags/conform")
	res := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, dir, &rules2)
	if mark := pyTaskOf(t, pyDAG(t, res["conform.py"], "conform_external"), "mark"); !mark.IsEmpty {
		t.Errorf("mark's _is_empty = false, want true (ExternalTaskMarker's base is EmptyOperator)")
	}
}

// TestServePython_DatasetExpressions: a dataset schedule's
// dataset_expression is DagModel's (2.10.3 datasets/__init__.py
// as_expression: URIs in {"all"|"any": [...]}), and a
// DatasetOrTimeSchedule shows "Dataset or <cron>" and its cron's text
// (timetables/datasets.py:52 and 77-78).
func TestServePython_DatasetExpressions(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/conform")
	for id, want := range map[string]map[string]string{
		"conform_or_time": {
			"dataset_expression":    `{"all": ["s3://conform/a", "s3://conform/b"]}`,
			"schedule_interval":     `{"__type": "CronExpression", "value": "Dataset or 0 1 * * 3"}`,
			"timetable_description": `"Triggered by datasets or At 01:00, only on Wednesday"`,
		},
		"conform_any": {
			"dataset_expression":    `{"any": ["s3://conform/a", {"all": ["s3://conform/b", "s3://conform/c"]}]}`,
			"schedule_interval":     `{"__type": "CronExpression", "value": "Dataset"}`,
			"timetable_description": `"Triggered by datasets"`,
		},
		"conform_list":     {"dataset_expression": `{"all": ["s3://conform/a"]}`},
		"conform_external": {"dataset_expression": "null", "timetable_description": `"At 00:00"`},
		// cron_descriptor's text for 2.10.3 example_branch_python_dop_operator_3.py's schedule.
		"conform_every_minute": {"timetable_description": `"Every minute"`,
			"schedule_interval": `{"__type": "CronExpression", "value": "*/1 * * * *"}`},
	} {
		wantFields(t, id, ts.v1JSON(t, doc, "/dags/"+id+"/details"), want)
	}
}

// TestPythonReader_ImportErrorFrames: the two frames of an import
// error's trace are the ones the real Airflow 2.10.3 showed: for a DAG
// without start_date, the DAG file's line and DAG.__init__ (models/dag.py:650
// raises there); for a duplicate task id, the operator's __init__ adding
// it to its task group and the group's add (models/baseoperator.py:967,
// utils/task_group.py:250). Airflow's own files are airlite's there.
func TestPythonReader_ImportErrorFrames(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v2")
	res := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, dir, &rules2)
	frame := regexp.MustCompile(`(?m)^  File "([^"]+)", line (\d+), in (\S+)$`)
	for file, want := range map[string][]string{
		"no_start_date.py":  {filepath.Join(dir, "no_start_date.py") + ":3:<module>", "airflow/models/dag.py:__init__"},
		"duplicate_task.py": {"airflow/models/baseoperator.py:__init__", "task_group.py:add"},
	} {
		r := res[file]
		if r.ImportError == nil {
			t.Fatalf("%s: no import error", file)
		}
		var got []string
		for _, m := range frame.FindAllStringSubmatch(*r.ImportError, -1) {
			got = append(got, m[1]+":"+m[2]+":"+m[3])
		}
		if len(got) != len(want) {
			t.Fatalf("%s: frames %v, want %d like %v", file, got, len(want), want)
		}
		for i, w := range want {
			parts := strings.Split(w, ":")
			g := strings.Split(got[i], ":")
			if !strings.HasSuffix(g[0], parts[0]) || g[len(g)-1] != parts[len(parts)-1] || (len(parts) == 3 && g[1] != parts[1]) {
				t.Errorf("%s: frame %d = %s, want %s", file, i, got[i], w)
			}
		}
	}
	if !strings.Contains(*res["no_start_date.py"].ImportError, "\n    dag = DAG(\"py_no_start\", schedule=\"@daily\")\n") {
		t.Errorf("no_start_date.py: the trace does not quote the DAG file's line: %s", *res["no_start_date.py"].ImportError)
	}
}

// servePy3Folder serves a folder of Airflow 3 DAG files as edition 3.
func servePy3Folder(t *testing.T, dir string) *testServer {
	t.Helper()
	set := readPyServeFolderAs(t, dir, edition3)
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	return newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
}

// v2JSON answers a GET of /api/v2, decoded in its key order.
func (ts *testServer) v2JSON(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	res := ts.do(t, http.MethodGet, "/api/v2"+path, "")
	var v map[string]json.RawMessage
	if res.status != 200 || json.Unmarshal([]byte(res.body), &v) != nil {
		t.Fatalf("GET /api/v2%s = %d %s", path, res.status, res.body)
	}
	return v
}

// wantRaw checks fields of an answer byte for byte (Airflow 3's JSON keeps
// its models' key order).
func wantRaw(t *testing.T, what string, got map[string]json.RawMessage, want map[string]string) {
	t.Helper()
	for key, w := range want {
		if string(got[key]) != w {
			t.Errorf("%s %s = %s, want %s", what, key, got[key], w)
		}
	}
}

// TestServePython_Edition3AsAirflow: DAG files written as Airflow 3.2.1's
// example DAGs are (airflow.sdk, the standard provider) show in /api/v2
// what Airflow 3.2.1 shows: the standard provider's class references and
// the decorators' operator names (providers/standard decorators/*.py
// _PythonDecoratedOperator, _BashDecoratedOperator,
// _BranchPythonDecoratedOperator with custom_operator_name), extra
// links by name, display names, asset_expression as Asset.as_expression
// makes it (task-sdk definitions/asset/__init__.py: {"asset": {uri, name,
// group}}, {"all"|"any": [...]}) and AssetOrTimeSchedule's summary and
// text (airflow-core timetables/assets.py).
func TestServePython_Edition3AsAirflow(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/conform3")

	flow := ts.v2JSON(t, "/dags/conform3_flow/details")
	wantRaw(t, "conform3_flow", flow, map[string]string{
		"dag_display_name": `"Conform three"`, "timetable_summary": `"0 0 * * *"`, "timetable_description": `"At 00:00"`,
		"asset_expression": "null", "tags": `[{"name":"conform3","dag_id":"conform3_flow","dag_display_name":"Conform three"}]`,
	})
	left := `{"asset":{"uri":"s3://conform3/left","name":"s3://conform3/left","group":"asset"}}`
	right := `{"asset":{"uri":"s3://conform3/right","name":"right","group":"asset"}}`
	for id, want := range map[string]map[string]string{
		"conform3_assets": {"asset_expression": `{"any":[` + left + `,` + right + `]}`,
			"timetable_summary": `"Asset"`, "timetable_description": `"Triggered by assets"`},
		"conform3_list": {"asset_expression": `{"all":[` + left + `,` + right + `]}`},
		"conform3_or_time": {"asset_expression": `{"all":[` + left + `,` + right + `]}`,
			"timetable_summary":     `"Asset or 0 1 * * 3"`,
			"timetable_description": `"Triggered by assets or At 01:00, only on Wednesday"`},
	} {
		wantRaw(t, id, ts.v2JSON(t, "/dags/"+id+"/details"), want)
	}
	// get_dags' timetable_type filter reads the timetable's class
	// (DagModel.timetable_type), the one the file's schedule made: the
	// class name alone for Airflow's own (Timetable.type_name,
	// timetables/base.py:265-290 of the 3.2.0-era main Phinhas214/airflow
	// c57fba0e), so a qualified name finds none.
	for class, wantIDs := range map[string][]string{
		"CronTriggerTimetable":                            {"conform3_flow"},
		"AssetTriggeredTimetable":                         {"conform3_assets", "conform3_list"},
		"AssetOrTimeSchedule":                             {"conform3_or_time"},
		"DatasetTriggeredTimetable":                       {},
		"airflow.timetables.trigger.CronTriggerTimetable": {},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/dags?dag_id_pattern=conform3&timetable_type="+class, "")
		if ids, _ := v2DagIDs(t, res.body); !slices.Equal(ids, wantIDs) {
			t.Errorf("timetable_type=%s: %v, want %v", class, ids, wantIDs)
		}
	}

	var tasks struct {
		Tasks []map[string]json.RawMessage `json:"tasks"`
	}
	res := ts.do(t, http.MethodGet, "/api/v2/dags/conform3_flow/tasks", "")
	if err := json.Unmarshal([]byte(res.body), &tasks); err != nil {
		t.Fatalf("tasks: %d %s", res.status, res.body)
	}
	byID := map[string]map[string]json.RawMessage{}
	for _, task := range tasks.Tasks {
		var id string
		_ = json.Unmarshal(task["task_id"], &id)
		byID[id] = task
	}
	ref := func(module, class string) string {
		return `{"module_path":"` + module + `","class_name":"` + class + `"}`
	}
	for id, want := range map[string]map[string]string{
		"make": {"operator_name": `"@task"`, "class_ref": ref("airflow.providers.standard.decorators.python", "_PythonDecoratedOperator"),
			"downstream_task_ids": `["echo"]`},
		"echo": {"operator_name": `"@task.bash"`, "class_ref": ref("airflow.providers.standard.decorators.bash", "_BashDecoratedOperator"),
			"template_fields": `["op_args","op_kwargs","bash_command","env","cwd"]`, "downstream_task_ids": `["choose"]`},
		"choose": {"operator_name": `"@task.branch"`,
			"class_ref":           ref("airflow.providers.standard.decorators.branch_python", "_BranchPythonDecoratedOperator"),
			"downstream_task_ids": `["branch","grp.a","grp.b"]`},
		"branch": {"operator_name": `"BranchPythonOperator"`, "class_ref": ref("airflow.providers.standard.operators.python", "BranchPythonOperator")},
		"grp.a":  {"class_ref": ref("airflow.providers.standard.operators.empty", "EmptyOperator"), "task_display_name": `"grp.a"`},
		"grp.b":  {"class_ref": ref("airflow.providers.standard.operators.bash", "BashOperator")},
		"delete": {"trigger_rule": `"all_done_setup_success"`},
		"wait": {"class_ref": ref("airflow.providers.standard.sensors.external_task", "ExternalTaskSensor"),
			"extra_links": `["External DAG"]`, "ui_color": `"#4db7db"`},
		// providers/standard sensors/external_task.py: the marker's date
		// field is logical_date in Airflow 3.
		"mark": {"class_ref": ref("airflow.providers.standard.sensors.external_task", "ExternalTaskMarker"),
			"template_fields": `["external_dag_id","external_task_id","logical_date"]`, "extra_links": `["External DAG"]`},
	} {
		if byID[id] == nil {
			t.Errorf("no task %s in %v", id, sortedIDs(byID))
			continue
		}
		wantRaw(t, id, byID[id], want)
	}
}

func sortedIDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestServePython_PluginModulesLoad: plugin modules in the DAG folder
// (AirflowPlugin, listeners' hookimpl, a PriorityWeightStrategy, a custom
// Timetable's DagRunInfo) and ObjectStoragePath import as in Airflow
// 2.10.3, which listed no import error for its example_dags/plugins files
// and served tutorial_objectstorage.
func TestServePython_PluginModulesLoad(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/conform")
	if errs := ts.v1JSON(t, doc, "/importErrors")["import_errors"].([]any); len(errs) != 0 {
		t.Errorf("import errors %v, want none", errs)
	}
	wantFields(t, "conform_storage", ts.v1JSON(t, doc, "/dags/conform_storage"), map[string]string{"is_active": "true"})
}

// TestServePython_CoreGenericOperators: core sensors and operators that
// airlite keeps as generic classes show their class's template fields,
// colour and extra link, as the real Airflow 2.10.3 showed them for its
// example_sensors and example_trigger_controller_dag.
func TestServePython_CoreGenericOperators(t *testing.T) {
	t.Parallel()
	ts := servePyFolder(t, "testdata/pydags/conform")
	tasks := ts.v1Tasks(t, nil, "conform_core") // extra_links: see TestServePython_ExternalTaskOperators
	// cron_descriptor's text for 2.10.3 example_sla_dag.py's schedule.
	wantFields(t, "conform_core", ts.v1JSONAsAirflow(t, nil, "/dags/conform_core"), map[string]string{"timetable_description": `"Every 2 minutes"`})
	for id, want := range map[string]map[string]string{
		"bash_sensor": {"template_fields": `["bash_command", "env"]`, "ui_color": `"#e6f1f2"`, "extra_links": "[]",
			"class_ref": `{"class_name": "BashSensor", "module_path": "airflow.sensors.bash"}`},
		"file_sensor":  {"template_fields": `["filepath"]`, "ui_color": `"#91818a"`},
		"delta_sensor": {"template_fields": "[]", "ui_color": `"#e6f1f2"`},
		"latest":       {"ui_color": `"#e9ffdb"`, "template_fields": "[]"},
		"trigger": {
			"template_fields": `["trigger_dag_id", "trigger_run_id", "logical_date", "conf", "wait_for_completion", "skip_when_already_exists"]`,
			"ui_color":        `"#ffefeb"`,
			"extra_links":     `[{"class_name": "TriggerDagRunLink", "module_path": "airflow.operators.trigger_dagrun"}]`,
		},
	} {
		wantFields(t, id, tasks[id], want)
	}
}

// TestPythonReader_Edition3StartDate: Airflow 3 has no start_date
// requirement for a scheduled DAG that does not catch up; one that does
// fails as task-sdk definitions/dag.py _validate_catchup raises. Airflow
// 2.10.3 refuses a schedule without a start_date (models/dag.py:650).
func TestPythonReader_Edition3StartDate(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v3")
	res := readPyFolder(t, pythonReader{Edition: "3", Variables: map[string]string{}}, dir, &rules3)
	if r := res["no_start.py"]; r.ImportError != nil {
		t.Errorf("no_start.py: %s, want it to load", *r.ImportError)
	} else if d := pyDAG(t, r, "v3_no_start"); d.StartDate != nil || d.Catchup {
		t.Errorf("v3_no_start: start %v catchup %v", d.StartDate, d.Catchup)
	}
	want := "ValueError: start_date is required when catchup=True"
	if r := res["no_start_catchup.py"]; r.ImportError == nil || !strings.HasSuffix(strings.TrimSpace(*r.ImportError), want) {
		t.Errorf("no_start_catchup.py: import error %v, want one ending %q", r.ImportError, want)
	}
	v2, _ := filepath.Abs("testdata/pydags/v2")
	res2 := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, v2, &rules2)
	if r := res2["no_start_date.py"]; r.ImportError == nil || !strings.HasSuffix(strings.TrimSpace(*r.ImportError), "ValueError: DAG is missing the start_date parameter") {
		t.Errorf("edition 2 no_start_date.py: import error %v", r.ImportError)
	}
}

// TestServePython_LastParseDuration: a Python file's DAGs show how long
// the reader took over it (DagModel.last_parse_duration, a float of
// seconds, as Airflow 3's DAG processor sets it per file).
func TestServePython_LastParseDuration(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/conform3")
	for _, path := range []string{"/dags/conform3_flow", "/dags/conform3_flow/details"} {
		var took *float64
		if err := json.Unmarshal(ts.v2JSON(t, path)["last_parse_duration"], &took); err != nil || took == nil || *took <= 0 || *took > 60 {
			t.Errorf("GET %s: last_parse_duration %v (%v), want the seconds the reader took", path, took, err)
		}
	}
}

// TestServePython_Edition3TimedeltaSchedule: a Python DAG's
// schedule=timedelta(...) is a DeltaTriggerTimetable in Airflow 3.2.1
// ([scheduler] create_delta_data_intervals False): its summary is
// str(timedelta), its description empty, and its next run, without
// catchup and without a run, fires at now, the instant as its interval
// (timetables/trigger.py:76-104,147-148 of the 3.2.0-era main
// Phinhas214/airflow c57fba0e).
func TestServePython_Edition3TimedeltaSchedule(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir := t.TempDir()
	src := `import datetime

from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator

with DAG("py_delta", schedule=datetime.timedelta(hours=6), start_date=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)):
    EmptyOperator(task_id="t")
`
	if err := os.WriteFile(filepath.Join(dir, "py_delta.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := servePy3Folder(t, dir)
	now := `"2024-05-01T10:00:00.123456Z"`
	wantRaw(t, "py_delta details", ts.v2JSON(t, "/dags/py_delta/details"), map[string]string{
		"timetable_summary": `"6:00:00"`, "timetable_description": `""`, "catchup": "false",
		"next_dagrun_logical_date": now, "next_dagrun_data_interval_start": now,
		"next_dagrun_data_interval_end": now, "next_dagrun_run_after": now,
	})
	var ids []string
	for _, class := range []string{"DeltaTriggerTimetable", "DeltaDataIntervalTimetable", "airflow.timetables.trigger.DeltaTriggerTimetable"} {
		var c struct {
			Dags []struct {
				DagID string `json:"dag_id"`
			} `json:"dags"`
		}
		res := ts.do(t, http.MethodGet, "/api/v2/dags?timetable_type="+class, "")
		if err := json.Unmarshal([]byte(res.body), &c); err != nil {
			t.Fatalf("timetable_type=%s: %d %s", class, res.status, res.body)
		}
		for _, d := range c.Dags {
			ids = append(ids, class+":"+d.DagID)
		}
	}
	if strings.Join(ids, ",") != "DeltaTriggerTimetable:py_delta" {
		t.Errorf("timetable_type filters found %v, want py_delta as a DeltaTriggerTimetable only", ids)
	}
}
