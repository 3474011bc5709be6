package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// readPyServeFolder reads a DAG folder of Python and YAML files as
// airlite's start does: YAML first, tolerant, then Python.
func readPyServeFolder(t *testing.T, dir string) *DAGSet {
	t.Helper()
	return readPyServeFolderAs(t, dir, edition2)
}

// readPyServeFolderAs is readPyServeFolder for edition e.
func readPyServeFolderAs(t *testing.T, dir string, e edition) *DAGSet {
	t.Helper()
	requirePython(t)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	logger := zerolog.New(zerolog.NewTestWriter(t))
	set, err := loadDAGSet(context.Background(), abs, e, logger)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	c := config{DagsDir: abs, Edition: e, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, logger); err != nil {
		t.Fatal(err)
	}
	return set
}

// servePyFolder serves a folder read by readPyServeFolder, its import
// errors recorded.
func servePyFolder(t *testing.T, dir string) *testServer {
	t.Helper()
	set := readPyServeFolder(t, dir)
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = set }))
	if err := recordImportErrors(ts.store, set, testNow); err != nil {
		t.Fatal(err)
	}
	return ts
}

// v1JSON answers a GET through the v1 API, checked against Airflow's
// v1 document, decoded.
func (ts *testServer) v1JSON(t *testing.T, doc *v1SchemaDoc, path string) map[string]any {
	t.Helper()
	res := ts.v1(t, "GET", path, "")
	doc.checkAnswer(t, ts.srv.v1Routes(), "GET", apiV1Prefix+path, res)
	if res.status != 200 {
		t.Fatalf("GET %s = %d %s", path, res.status, res.body)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(res.body), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// wantFields checks the named fields of an answer, each as JSON.
func wantFields(t *testing.T, what string, got map[string]any, want map[string]string) {
	t.Helper()
	for key, text := range want {
		var w any
		if err := json.Unmarshal([]byte(text), &w); err != nil {
			t.Fatalf("%s %s: want: %v", what, key, err)
		}
		g, ok := got[key]
		if !ok {
			t.Errorf("%s: no %s", what, key)
			continue
		}
		// Numbers decode as float64 on both sides.
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			t.Errorf("%s %s = %s, want %s", what, key, gj, text)
		}
	}
}

// TestServePython_DAGsAsAirflow serves a folder of Python and YAML files
// and checks what /api/v1 shows of the Python DAGs, field by field, as
// Airflow 2.10.3 shows them after parsing the same files: DagModel
// (models/dag.py:3280-3306), DAGSchema and DAGDetailSchema
// (api_connexion/schemas/dag_schema.py:52-160), TaskSchema
// (task_schema.py:36-90); every answer is also checked against the v1
// document.
func TestServePython_DAGsAsAirflow(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/serve")
	dir, _ := filepath.Abs("testdata/pydags/serve")
	etlFile := filepath.Join(dir, "etl.py")

	list := ts.v1JSON(t, doc, "/dags?dag_id_pattern=py_")
	dags, _ := list["dags"].([]any)
	if len(dags) != 2 {
		t.Fatalf("GET /dags?dag_id_pattern=py_: %d DAGs, want py_etl and py_on_data", len(dags))
	}
	etl, onData := dags[0].(map[string]any), dags[1].(map[string]any)
	// owners: the tasks' owners joined with ", " and split at ","
	// (dag.py:1514-1520, dag_schema.py:82-86), the space kept.
	etlFields := map[string]string{
		"dag_id": `"py_etl"`, "fileloc": fmt.Sprintf("%q", etlFile), "is_active": "true", "is_paused": "false",
		"description": `"extract, transform, load"`, "owners": `["etl-team", " qa"]`,
		"schedule_interval":     `{"__type": "CronExpression", "value": "@daily"}`,
		"timetable_description": `"At 00:00"`, "tags": `[{"name": "etl"}, {"name": "py"}]`,
		"max_active_runs": "16", "max_active_tasks": "16", "is_subdag": "false", "root_dag_id": "null",
		"has_task_concurrency_limits": "false",
	}
	wantFields(t, "py_etl", etl, etlFields)
	// A dataset-triggered DAG: schedule_interval is the timetable's
	// summary (dag.py:679-682), a string dumped as a CronExpression
	// (common_schema.py:112); airlite does not schedule it.
	wantFields(t, "py_on_data", onData, map[string]string{
		"schedule_interval":     `{"__type": "CronExpression", "value": "Dataset"}`,
		"timetable_description": `"Triggered by datasets"`, "owners": `["ana"]`, "tags": "[]",
		"next_dagrun": "null", "description": "null",
		// report has max_active_tis_per_dag (models/dag.py:3296-3299).
		"has_task_concurrency_limits": "true",
	})
	wantFields(t, "GET /dags/py_etl", ts.v1JSON(t, doc, "/dags/py_etl"), etlFields)

	details := ts.v1JSON(t, doc, "/dags/py_etl/details")
	detailFields := maps.Clone(etlFields)
	delete(detailFields, "owners")
	wantFields(t, "py_etl details", details, detailFields)
	wantFields(t, "py_etl details", details, map[string]string{
		// get_dag_details dumps the DagModel, which has owners but no
		// owner: DAGDetailSchema.get_owners finds none (dag_schema.py:132-136).
		"owners": "[]",
		"doc_md": `"Loads *everything*."`, "catchup": "false", "start_date": `"2024-01-01T00:00:00+00:00"`,
		"timezone": `"UTC"`, "dag_run_timeout": "null", "is_paused_upon_creation": "null",
		// Param.dump() (param.py:143-152): the schema and description the
		// file gave; a plain value is a Param with neither.
		"params": `{"rows": {"__class": "airflow.models.param.Param", "description": "rows to load", "schema": {"type": "integer"}, "value": 5},
			"mode": {"__class": "airflow.models.param.Param", "description": null, "schema": {}, "value": "full"}}`,
	})

	tasks := ts.v1JSON(t, doc, "/dags/py_etl/tasks")
	byID := map[string]map[string]any{}
	var ids []string
	for _, raw := range tasks["tasks"].([]any) {
		task := raw.(map[string]any)
		id := task["task_id"].(string)
		byID[id] = task
		ids = append(ids, id)
	}
	// Group prefixes and TaskFlow's __1 suffix for a second call
	// (2.10.3 utils/task_group.py child_id, decorators/base.py
	// get_unique_task_id).
	if want := []string{"double", "end", "extract.check", "extract.pull", "start", "total", "total__1"}; !slices.Equal(ids, want) {
		t.Fatalf("task ids %v, want %v", ids, want)
	}
	bashFields := map[string]string{
		"class_ref":     `{"module_path": "airflow.operators.bash", "class_name": "BashOperator"}`,
		"operator_name": `"BashOperator"`, "template_fields": `["bash_command", "env", "cwd"]`,
		"downstream_task_ids": `["extract.pull"]`, "owner": `"etl-team"`, "retries": "2",
		"retry_delay":  `{"__type": "TimeDelta", "days": 0, "seconds": 30, "microseconds": 0}`,
		"trigger_rule": `"all_success"`, "is_mapped": "false", "ui_color": `"#f0ede4"`, "ui_fgcolor": `"#000"`,
		"start_date": `"2024-01-01T00:00:00+00:00"`, "task_display_name": `"start"`,
	}
	wantFields(t, "start", byID["start"], bashFields)
	wantFields(t, "GET /tasks/start", ts.v1JSON(t, doc, "/dags/py_etl/tasks/start"), bashFields)
	wantFields(t, "extract.check", byID["extract.check"], map[string]string{
		"class_ref":     `{"module_path": "airflow.operators.python", "class_name": "PythonOperator"}`,
		"operator_name": `"PythonOperator"`, "owner": `"qa"`, "downstream_task_ids": `["double"]`,
		"template_fields": `["templates_dict", "op_args", "op_kwargs"]`, "ui_color": `"#ffefeb"`,
	})
	// A mapped @task stays one task (TaskSchema._get_is_mapped,
	// task_schema.py:84-85), its operator_name the decorator's.
	wantFields(t, "double", byID["double"], map[string]string{
		"class_ref":     `{"module_path": "airflow.decorators.python", "class_name": "_PythonDecoratedOperator"}`,
		"operator_name": `"@task"`, "is_mapped": "true", "downstream_task_ids": `["total"]`,
	})
	wantFields(t, "end", byID["end"], map[string]string{"trigger_rule": `"all_done"`, "downstream_task_ids": "[]",
		"class_ref": `{"module_path": "airflow.operators.empty", "class_name": "EmptyOperator"}`, "ui_color": `"#e8f7e4"`})
	wantFields(t, "total__1", byID["total__1"], map[string]string{"operator_name": `"@task"`, "downstream_task_ids": `["end"]`, "is_mapped": "false"})

	// file_token leads to the Python file's source (dag_source_endpoint.py).
	if res := ts.v1(t, "GET", "/dagSources/"+etl["file_token"].(string), "", "Accept", "text/plain"); res.status != 200 || !strings.Contains(res.body, `dag_id="py_etl"`) {
		t.Errorf("GET /dagSources/<py_etl's token> = %d %.200s, want etl.py's source", res.status, res.body)
	}

	// The YAML DAG beside them answers as YAML DAGs do.
	wantFields(t, "yaml_hello", ts.v1JSON(t, doc, "/dags/yaml_hello"), map[string]string{
		"fileloc": fmt.Sprintf("%q", filepath.Join(dir, "hello.yaml")), "is_active": "true"})
}

// TestServePython_ImportErrors: a Python file that fails at import, a
// YAML file that fails to build and a Python file whose dag_id a YAML
// file has are import errors, while every other file's DAGs load.
func TestServePython_ImportErrors(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/serve")
	dir, _ := filepath.Abs("testdata/pydags/serve")
	got := map[string]string{}
	for _, raw := range ts.v1JSON(t, doc, "/importErrors")["import_errors"].([]any) {
		e := raw.(map[string]any)
		got[filepath.Base(e["filename"].(string))] = e["stack_trace"].(string)
	}
	want := map[string][]string{
		"broken.py":   {"Traceback (most recent call last):", "broken.py\", line 4", "RuntimeError: settings.ini is missing"},
		"broken.yaml": {"broken.yaml: line 5: task \"t\": unknown operator \"BashOprator\" (did you mean BashOperator?)"},
		// models/dagbag.py:485 and exceptions.py:198-199.
		"same_id.py": {"AirflowDagDuplicatedIdException: Ignoring DAG yaml_hello from " + filepath.Join(dir, "same_id.py") +
			" - also found in " + filepath.Join(dir, "hello.yaml")},
	}
	if len(got) != len(want) {
		t.Errorf("import errors for %v, want %d files", got, len(want))
	}
	for file, parts := range want {
		for _, part := range parts {
			if !strings.Contains(got[file], part) {
				t.Errorf("import error of %s = %q, want it to hold %q", file, got[file], part)
			}
		}
	}
	var served []string
	for _, raw := range ts.v1JSON(t, doc, "/dags")["dags"].([]any) {
		served = append(served, raw.(map[string]any)["dag_id"].(string))
	}
	for _, id := range []string{"py_etl", "py_on_data", "yaml_hello"} {
		if !slices.Contains(served, id) {
			t.Errorf("DAG %s not served beside the import errors; served %v", id, served)
		}
	}
}

// TestServePython_TriggeredRunSucceeds runs a triggered Python DAG
// through the scheduler: its BashOperator runs (its template rendered
// with the DAG's params), the Empty ones end at once, the Python tasks
// (PythonOperator, a mapped @task) are simulated and their logs say so.
func TestServePython_TriggeredRunSucceeds(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/serve")
	store, api, settle := newRealScheduler(t, set, edition2)
	for _, d := range set.DAGs {
		if err := store.SetPaused(d.DagID, d.DagID != "py_etl", false); err != nil {
			t.Fatal(err)
		}
	}
	date := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	res, err := api.TriggerDAG("py_etl", []byte(fmt.Sprintf(`{"execution_date": %q}`, isoFormat(date))))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle("py_etl", runID)
	if run := finishedRun(t, store, "py_etl", runID); run.State != RunSuccess {
		t.Errorf("py_etl ended %q, want success", run.State)
	}
	// Six tasks, the mapped one's three instances each a task instance.
	tis, _ := store.TaskInstancesOfRun("py_etl", runID)
	if len(tis) != 9 {
		t.Errorf("%d task instances, want 9", len(tis))
	}
	for _, ti := range tis {
		if ti.State != TaskSuccess {
			t.Errorf("%s = %q, want success", ti.TaskID, ti.State)
		}
	}
	logOf := func(task string, mapIndex ...int) string {
		key := tiKey{"py_etl", runID, task, -1}
		if len(mapIndex) > 0 {
			key.mapIndex = mapIndex[0]
		}
		raw, _ := store.TaskLogOf(key)
		if raw == nil || len(raw.Tries) == 0 {
			t.Fatalf("no log for %s", key)
		}
		return raw.Tries[0].Output
	}
	if out := logOf("start"); !strings.Contains(out, "starting 5") {
		t.Errorf("start's log = %q, want the bash command's output with params.rows rendered", out)
	}
	// The PythonOperator's callable runs (scheduler_python.go); the mapped
	// task expands into three instances (scheduler_mapping.go) and the
	// @task it feeds gets their values; total([1]) runs.
	if out := logOf("extract.check"); !strings.Contains(out, "loud") || !strings.Contains(out, "Returned value was: None") {
		t.Errorf("extract.check's log = %q, want the callable's output and its return value", out)
	}
	// Each instance has its own log (Airflow's log per task instance and
	// try): index 2's is index 2's output.
	for i, want := range []string{"2", "4", "6"} {
		if out := logOf("double", i); !strings.Contains(out, "Returned value was: "+want) || strings.Count(out, "Returned value was") != 1 {
			t.Errorf("double[%d]'s log = %q, want its own return value %s", i, out, want)
		}
	}
	if out := logOf("total"); !strings.Contains(out, "Returned value was: 12") {
		t.Errorf("total's log = %q, want the sum of the mapped values, 12", out)
	}
	if out := logOf("total__1"); !strings.Contains(out, "Returned value was: 1") {
		t.Errorf("total__1's log = %q, want the callable's return value 1", out)
	}
}

// TestServePython_Edition110 reads 1.10.15's import paths: the DAG's
// schedule_interval (1.10.15 has no timetables) is its schedule, the
// classic operators keep their 1.10 modules, and the files that fail are
// import errors with 1.10.15's words.
func TestServePython_Edition110(t *testing.T) {
	t.Parallel()
	requirePython(t)
	abs, _ := filepath.Abs("testdata/pydags/v110")
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	set := &DAGSet{}
	c := config{DagsDir: abs, Edition: edition110, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, zerolog.New(zerolog.NewTestWriter(t))); err != nil {
		t.Fatal(err)
	}
	if len(set.DAGs) != 1 || set.DAGs[0].DagID != "py110" {
		t.Fatalf("DAGs %v, want py110 alone", set.DAGs)
	}
	d := set.DAGs[0]
	if d.Schedule == nil || *d.Schedule != "@hourly" || d.cron == nil {
		t.Errorf("py110's schedule = %v, want @hourly, compiled", d.Schedule)
	}
	want := map[string]string{"run": "airflow.operators.bash_operator", "check": "airflow.operators.python_operator", "end": "airflow.operators.dummy_operator"}
	for id, module := range want {
		task := d.Task(id)
		if task == nil || task.OperatorModule != module {
			t.Errorf("task %s = %+v, want module %s", id, task, module)
		}
	}
	if check := d.Task("check"); check.Simulate != nil || check.PythonCallable == nil || d.Task("run").Simulate != nil {
		t.Errorf("the PythonOperator's callable and the BashOperator must both run, neither simulated")
	}
	var failed []string
	for _, e := range set.ImportErrors {
		failed = append(failed, filepath.Base(e.File)+": "+e.Text)
	}
	wantFailed := []string{"cycle110.py: Cycle detected in DAG. Faulty task: q to p", "new_paths.py: No module named 'airflow.operators.bash'"}
	if !reflect.DeepEqual(failed, wantFailed) {
		t.Errorf("import errors %q, want %q", failed, wantFailed)
	}
}

// TestServePython_SubDAGsAndTimetables: a SubDagOperator's DAG is the
// parent's sub-DAG (2.10.3 models/dagbag.py:540-544), and timetable
// objects keep Airflow's summary with no schedule string: a dataset
// schedule is not run on the clock, a CronTriggerTimetable is
// (scheduler_pytimetable.go).
func TestServePython_SubDAGsAndTimetables(t *testing.T) {
	t.Parallel()
	requirePython(t)
	abs, _ := filepath.Abs("testdata/pydags/v2")
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	set := &DAGSet{}
	c := config{DagsDir: abs, Edition: edition2, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, zerolog.New(zerolog.NewTestWriter(t))); err != nil {
		t.Fatal(err)
	}
	byID := map[string]*DAG{}
	for _, d := range set.DAGs {
		byID[d.DagID] = d
	}
	if sub := byID["py_parent.section"]; sub == nil || sub.ParentDagID != "py_parent" || byID["py_parent"].Task("section").Subdag != "py_parent.section" {
		t.Errorf("py_parent.section = %+v, want the sub-DAG of py_parent's section task", sub)
	}
	for id, want := range map[string]struct {
		tt   Timetable
		runs bool
	}{
		"py_taskflow": {Timetable{Summary: "Dataset", Description: "Triggered by datasets", Type: "airflow.timetables.simple.DatasetTriggeredTimetable"}, false},
		"py_trigger":  {Timetable{Summary: "0 3 * * *", Description: "At 03:00", Type: "airflow.timetables.trigger.CronTriggerTimetable"}, true},
	} {
		d := byID[id]
		if d == nil || d.Timetable == nil || *d.Timetable != want.tt || d.Schedule != nil || (d.timetable != nil) != want.runs {
			t.Errorf("%s: timetable %+v, schedule %v, run on the clock %v; want %+v, no schedule string, %v", id, d.Timetable, d.Schedule,
				d.timetable != nil, want.tt, want.runs)
		}
	}
	if d := byID["py_every"]; d == nil || d.Schedule == nil || *d.Schedule != "6h0m0s" {
		t.Errorf("py_every's timedelta(hours=6) schedule = %v, want 6h0m0s", d.Schedule)
	}
}

// TestServePython_TaskBashRuns: @task.bash's callable runs in the task's
// Python process and returns the command, which airlite renders and runs
// as a BashOperator's (2.10.3 decorators/bash.py
// _BashDecoratedOperator.execute): the command's output is the log, its
// last line the XCom; a blank command fails the try with Airflow's
// TypeError; exit 99 skips; another code fails. A conf value reaches bash
// as data, never as shell text, inline or through env.
func TestServePython_TaskBashRuns(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/taskbash")
	store, api, settle := newRealScheduler(t, set, edition2)
	if err := store.SetPaused("py_task_bash", false, false); err != nil {
		t.Fatal(err)
	}
	date := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	hostile := `x"; echo INJECTED; echo "`
	conf, _ := json.Marshal(map[string]any{"execution_date": isoFormat(date), "conf": map[string]string{"who": hostile}})
	res, err := api.TriggerDAG("py_task_bash", conf)
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle("py_task_bash", runID)
	tis, _ := store.TaskInstancesOfRun("py_task_bash", runID)
	got := map[string]TaskState{}
	for _, ti := range tis {
		got[ti.TaskID] = ti.State
	}
	wantStates(t, got, map[string]TaskState{"greet": TaskSuccess, "from_conf": TaskSuccess, "blank": TaskFailed,
		"skip_me": TaskSkipped, "fail_me": TaskFailed})
	logOf := func(task string) string {
		raw, _ := store.read().First(tableTaskLogs, indexID, "py_task_bash", runID, task, "-1")
		if raw == nil || len(raw.(*TaskLog).Tries) == 0 {
			t.Fatalf("no log for %s", task)
		}
		return raw.(*TaskLog).Tries[0].Output
	}
	if out := logOf("greet"); !strings.Contains(out, "hello world on 2024-03-01\nrows=5") {
		t.Errorf("greet's log = %q, want the rendered command's output", out)
	}
	if x, err := store.XCom("py_task_bash", runID, "greet", "return_value", -1); err != nil || string(x.Value) != `"rows=5"` {
		t.Errorf("greet's return_value = %v %v, want the last line \"rows=5\"", x, err)
	}
	out := logOf("from_conf")
	if !strings.Contains(out, "env="+hostile) || !strings.Contains(out, "inline="+hostile) || strings.Contains(out, "\nINJECTED") {
		t.Errorf("from_conf's log = %q, want the conf value printed as it is, twice, and never run", out)
	}
	if out := logOf("blank"); !strings.Contains(out, "TypeError: The returned value from the TaskFlow callable must be a non-empty string.") {
		t.Errorf("blank's log = %q, want Airflow's TypeError", out)
	}
	if out := logOf("fail_me"); !strings.Contains(out, "about to fail") {
		t.Errorf("fail_me's log = %q, want the command's output", out)
	}
}
