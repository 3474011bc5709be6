package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// requirePython skips a test when the machine has no python3 (CI
// installs Debian's).
func requirePython(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3 on PATH (%v): the Python DAG reader cannot be tested here", err)
	}
	return p
}

// readPyFolder lists and reads a testdata folder, results by file name.
func readPyFolder(t *testing.T, r pythonReader, dir string, rules *editionRules) map[string]pyFileResult {
	t.Helper()
	files, err := listPythonFiles(context.Background(), dir, rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Logger = zerolog.New(zerolog.NewTestWriter(t))
	got, err := r.ReadFolder(context.Background(), dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Fatalf("%d results for %d files", len(got), len(files))
	}
	out := map[string]pyFileResult{}
	for i, res := range got {
		if res.File != files[i] {
			t.Fatalf("result %d is for %s, want %s", i, res.File, files[i])
		}
		out[filepath.Base(res.File)] = res
	}
	return out
}

func pyDAG(t *testing.T, res pyFileResult, id string) pySerializedDAG {
	t.Helper()
	for _, d := range res.DAGs {
		if d.DagID == id {
			return d
		}
	}
	t.Fatalf("no DAG %s in %s (import error %v)", id, res.File, res.ImportError)
	return pySerializedDAG{}
}

func pyTaskOf(t *testing.T, d pySerializedDAG, id string) pyTask {
	t.Helper()
	for _, task := range d.Tasks {
		if task.TaskID == id {
			return task
		}
	}
	t.Fatalf("no task %s in DAG %s", id, d.DagID)
	return pyTask{}
}

func taskIDs(d pySerializedDAG) []string {
	var ids []string
	for _, task := range d.Tasks {
		ids = append(ids, task.TaskID)
	}
	return ids
}

func rawEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func TestPythonReader_Edition2Folder(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v2")
	res := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, dir, &rules2)

	t.Run("listing", func(t *testing.T) {
		// .airflowignore keeps ignored/ out; safe mode (2.10.3
		// utils/file.py:348-365) passes over files without both words.
		if _, ok := res["skipped_dag.py"]; ok {
			t.Error("a file under an ignored folder was read")
		}
		for _, name := range []string{"not_a_pipeline.py", "shared_names.py"} {
			if r := res[name]; !r.Skipped || r.ImportError != nil || len(r.DAGs) != 0 {
				t.Errorf("%s: %+v, want skipped by safe mode", name, r)
			}
		}
	})

	t.Run("classic DAG", func(t *testing.T) {
		r := res["classic.py"]
		if r.ImportError != nil {
			t.Fatalf("import error: %s", *r.ImportError)
		}
		d := pyDAG(t, r, "py_classic")
		if d.Fileloc != filepath.Join(dir, "classic.py") || d.ProcessorDagsFolder != dir {
			t.Errorf("fileloc %q, dags folder %q", d.Fileloc, d.ProcessorDagsFolder)
		}
		// A cron schedule: schedule_interval is the string, the timetable
		// CronDataIntervalTimetable (2.10.3 models/dag.py:240-244 with
		// create_cron_data_intervals on; timetables/interval.py:139-142).
		rawEqual(t, "schedule_interval", d.ScheduleInterval, `"30 6 * * 1-5"`)
		if d.Timetable == nil || d.Timetable.Type != "airflow.timetables.interval.CronDataIntervalTimetable" {
			t.Fatalf("timetable %+v", d.Timetable)
		}
		rawEqual(t, "timetable var", d.Timetable.Var, `{"expression": "30 6 * * 1-5", "timezone": "UTC"}`)
		if d.StartDate == nil || *d.StartDate != float64(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).Unix()) {
			t.Errorf("start_date %v", d.StartDate)
		}
		if d.Catchup || d.MaxActiveRuns != 2 || d.MaxActiveTasks != 16 || *d.Description != "classic operators" {
			t.Errorf("catchup %v, max_active_runs %d, max_active_tasks %d, description %q", d.Catchup, d.MaxActiveRuns, d.MaxActiveTasks, *d.Description)
		}
		if !reflect.DeepEqual(d.Tags, []string{"python", "classic"}) || d.Owner != "ada, data-team" {
			t.Errorf("tags %v, owner %q", d.Tags, d.Owner)
		}
		// default_args in BaseSerialization's encoding (serialized_objects.py
		// serialize: dict and timedelta wrapped in __var/__type).
		rawEqual(t, "default_args", d.DefaultArgs, `{"__var": {"owner": "data-team", "retries": 3,
			"retry_delay": {"__var": 120.0, "__type": "timedelta"}}, "__type": "dict"}`)
		// params: a list of [name, Param] pairs, plain values boxed into
		// Params (serialized_objects.py:978-994, 940-946).
		if len(d.Params) != 2 || d.Params[0].Name != "who" || d.Params[1].Name != "n" ||
			d.Params[0].Class != "airflow.models.param.Param" {
			t.Fatalf("params %+v", d.Params)
		}
		rawEqual(t, "param who default", d.Params[0].Default, `"world"`)
		rawEqual(t, "param who description", d.Params[0].Description, `"who to greet"`)
		rawEqual(t, "param who schema", d.Params[0].Schema, `{"__var": {"type": "string"}, "__type": "dict"}`)
		rawEqual(t, "param n schema", d.Params[1].Schema, `{"__var": {}, "__type": "dict"}`)
		// Labels: edge_info[upstream][downstream] (serialized_objects.py:1669).
		if want := map[string]map[string]pyEdgeInfo{"start": {"say": {Label: "first"}}}; !reflect.DeepEqual(d.EdgeInfo, want) {
			t.Errorf("edge_info %v", d.EdgeInfo)
		}
		wantIDs := []string{"start", "say", "hello", "load.one", "load.two", "call", "done", "a", "b", "c", "d"}
		if got := taskIDs(d); !reflect.DeepEqual(got, wantIDs) {
			t.Errorf("task ids %v, want %v", got, wantIDs)
		}

		say := pyTaskOf(t, d, "say")
		// _task_type, _task_module and _operator_name (serialized_objects.py
		// :1164-1167); template_fields of 2.10.3 operators/bash.py:148-150.
		if say.TaskType != "BashOperator" || say.TaskModule != "airflow.operators.bash" || say.OperatorName != "BashOperator" {
			t.Errorf("say: %s %s %s", say.TaskType, say.TaskModule, say.OperatorName)
		}
		if !reflect.DeepEqual(say.TemplateFields, []string{"bash_command", "env", "cwd"}) ||
			!reflect.DeepEqual(say.TemplateExt, []string{".sh", ".bash"}) {
			t.Errorf("say template fields %v ext %v", say.TemplateFields, say.TemplateExt)
		}
		// default_args fill what the operator was not given; cwd None is
		// left out as Airflow leaves out None (serialize_to_json).
		if say.Owner != "data-team" || say.Retries.String() != "3" || *say.RetryDelay != 120 || say.Pool != "default_pool" ||
			say.TriggerRule != "all_success" || say.Queue != "default" || say.WeightRule != "downstream" || say.UIColor != "#f0ede4" {
			t.Errorf("say: %+v", say)
		}
		rawEqual(t, "say bash_command", say.TemplateValues["bash_command"], `"echo {{ params.who }}"`)
		rawEqual(t, "say env", say.TemplateValues["env"], `{"MODE": "test"}`)
		if _, ok := say.TemplateValues["cwd"]; ok {
			t.Error("cwd None is serialized")
		}
		if !reflect.DeepEqual(say.DownstreamTaskIDs, []string{"load.one"}) {
			t.Errorf("say downstream %v", say.DownstreamTaskIDs)
		}
		if hello := pyTaskOf(t, d, "hello"); hello.Owner != "ada" || hello.TaskModule != "airflow.operators.python" ||
			!reflect.DeepEqual(hello.TemplateFields, []string{"templates_dict", "op_args", "op_kwargs"}) {
			t.Errorf("hello: %+v", hello)
		}
		if two := pyTaskOf(t, d, "load.two"); two.TriggerRule != "one_success" || two.Label != "two" || !two.IsEmpty {
			t.Errorf("load.two: %+v", two)
		}
		// A provider class airlite does not know keeps its module path and
		// its arguments.
		call := pyTaskOf(t, d, "call")
		if call.TaskType != "HttpOperator" || call.TaskModule != "airflow.providers.http.operators.http" || !call.Generic {
			t.Errorf("call: %s %s generic %v", call.TaskType, call.TaskModule, call.Generic)
		}
		rawEqual(t, "call endpoint", call.Kwargs["endpoint"], `"/ping"`)
		if got := pyTaskOf(t, d, "a").DownstreamTaskIDs; !reflect.DeepEqual(got, []string{"c", "d"}) {
			t.Errorf("cross_downstream: a -> %v", got)
		}
		if got := pyTaskOf(t, d, "load.two").DownstreamTaskIDs; !reflect.DeepEqual(got, []string{"call"}) {
			t.Errorf("chain: load.two -> %v", got)
		}
		// The task group tree (TaskGroupSerialization.serialize_task_group).
		root := d.TaskGroup
		if root == nil || root.GroupID != nil {
			t.Fatalf("root group %+v", root)
		}
		load := root.Children["load"].Group
		if load == nil || *load.GroupID != "load" || load.Tooltip != "load things" ||
			load.Children["load.one"].TaskID != "load.one" || !reflect.DeepEqual(load.UpstreamTaskIDs, []string{"hello", "say"}) ||
			!reflect.DeepEqual(load.DownstreamTaskIDs, []string{"call"}) {
			t.Errorf("group load %+v", load)
		}

		// DAGs kept in globals() by a loop.
		for i, id := range []string{"py_loop_1", "py_loop_2"} {
			loop := pyDAG(t, r, id)
			rawEqual(t, id+" schedule_interval", loop.ScheduleInterval, `null`)
			if loop.Timetable.Type != "airflow.timetables.simple.NullTimetable" || *loop.TimetableDescription != "Never, external triggers only" {
				t.Errorf("%s timetable %+v", id, loop.Timetable)
			}
			rawEqual(t, id+" command", pyTaskOf(t, loop, "only").TemplateValues["bash_command"], strconv.Quote("echo "+strconv.Itoa(i+1)))
		}
	})

	t.Run("taskflow DAG", func(t *testing.T) {
		r := res["taskflow.py"]
		if r.ImportError != nil {
			t.Fatalf("import error: %s", *r.ImportError)
		}
		d := pyDAG(t, r, "py_taskflow")
		if *d.DocMD != "Orders each day." || len(d.Params) != 1 || d.Params[0].Name != "limit" {
			t.Errorf("doc_md %v, params %+v", d.DocMD, d.Params)
		}
		// A dataset condition: DatasetTriggeredTimetable, schedule_interval
		// "Dataset" (2.10.3 timetables/simple.py, serialized_objects.py
		// encode_dataset_condition).
		rawEqual(t, "schedule_interval", d.ScheduleInterval, `"Dataset"`)
		if d.Timetable.Type != "airflow.timetables.simple.DatasetTriggeredTimetable" {
			t.Fatalf("timetable %s", d.Timetable.Type)
		}
		rawEqual(t, "dataset condition", d.Timetable.Var, `{"dataset_condition": {"__type": "dataset_all", "objects": [
			{"__type": "dataset", "uri": "s3://bucket/orders", "extra": {}},
			{"__type": "dataset_any", "objects": [
				{"__type": "dataset", "uri": "s3://bucket/customers", "extra": {}},
				{"__type": "dataset", "uri": "s3://bucket/fx", "extra": {}}]}]}}`)
		// Task ids: the function's name, __1 for a second call
		// (decorators/base.py:126-163); a group called twice gets __1
		// (utils/task_group.py _check_for_group_id_collisions).
		wantIDs := []string{"make_room", "extract", "extract__1", "summarize", "echo", "pick", "gate", "wait", "in_venv",
			"outside", "section.extract", "section.summarize", "section__1.extract", "section__1.summarize", "double", "clean"}
		if got := taskIDs(d); !reflect.DeepEqual(got, wantIDs) {
			t.Errorf("task ids %v, want %v", got, wantIDs)
		}
		// Each decorator's class, module and custom_operator_name
		// (decorators/python.py:28-44, bash.py:30-47, branch_python.py:29-33,
		// short_circuit.py:29-33, sensor.py:29-47, python_virtualenv.py:29-33,
		// external_python.py:29-33).
		for _, c := range []struct{ id, typ, module, name string }{
			{"extract", "_PythonDecoratedOperator", "airflow.decorators.python", "@task"},
			{"echo", "_BashDecoratedOperator", "airflow.decorators.bash", "@task.bash"},
			{"pick", "_BranchPythonDecoratedOperator", "airflow.decorators.branch_python", "@task.branch"},
			{"gate", "_ShortCircuitDecoratedOperator", "airflow.decorators.short_circuit", "@task.short_circuit"},
			{"wait", "DecoratedSensorOperator", "airflow.decorators.sensor", "@task.sensor"},
			{"in_venv", "_PythonVirtualenvDecoratedOperator", "airflow.decorators.python_virtualenv", "@task.virtualenv"},
			{"outside", "_PythonExternalDecoratedOperator", "airflow.decorators.external_python", "@task.external_python"},
		} {
			task := pyTaskOf(t, d, c.id)
			if task.TaskType != c.typ || task.TaskModule != c.module || task.OperatorName != c.name {
				t.Errorf("%s: %s %s %s, want %s %s %s", c.id, task.TaskType, task.TaskModule, task.OperatorName, c.typ, c.module, c.name)
			}
		}
		if got := pyTaskOf(t, d, "echo").TemplateFields; !reflect.DeepEqual(got, []string{"op_args", "op_kwargs", "bash_command", "env", "cwd"}) {
			t.Errorf("@task.bash template fields %v", got)
		}
		// An XComArg argument: the upstream edge, and the value as its str()
		// (serialization/helpers.py serialize_template_field).
		echo := pyTaskOf(t, d, "echo")
		rawEqual(t, "echo op_args", echo.TemplateValues["op_args"], `"[XComArg(<Task(_PythonDecoratedOperator): summarize>, 'n')]"`)
		if got := pyTaskOf(t, d, "extract").DownstreamTaskIDs; !reflect.DeepEqual(got, []string{"double", "summarize"}) {
			t.Errorf("extract downstream %v", got)
		}
		if s := pyTaskOf(t, d, "summarize"); !s.MultipleOutputs || s.Retries.String() != "1" {
			t.Errorf("summarize: multiple_outputs %v retries %s", s.MultipleOutputs, s.Retries)
		}
		// partial/expand: one task, mapped.
		double := pyTaskOf(t, d, "double")
		if !double.IsMapped {
			t.Error("double is not mapped")
		}
		rawEqual(t, "expand_input", double.ExpandInput, `{"type": "dict-of-lists", "value": {"x": {"__type": "xcomref", "__var": {"task_id": "extract", "key": "return_value"}}}}`)
		if room, clean := pyTaskOf(t, d, "make_room"), pyTaskOf(t, d, "clean"); !room.IsSetup || !clean.IsTeardown ||
			clean.TriggerRule != "all_done_setup_success" {
			t.Errorf("setup %v, teardown %v %s", room.IsSetup, clean.IsTeardown, clean.TriggerRule)
		}
		if w := pyTaskOf(t, d, "wait"); !reflect.DeepEqual(w.TemplateFields, []string{"op_args", "op_kwargs"}) {
			t.Errorf("sensor template fields %v", w.TemplateFields)
		}
		sec := d.TaskGroup.Children["section__1"].Group
		if sec == nil || *sec.GroupID != "section__1" || sec.Children["section__1.extract"].TaskID != "section__1.extract" {
			t.Errorf("group section__1 %+v", sec)
		}
	})

	t.Run("schedules", func(t *testing.T) {
		r := res["schedules.py"]
		// 2.10.3 models/dag.py:232-249 create_timetable; each timetable's
		// serialize(), summary and description (timetables/*.py).
		for _, c := range []struct{ id, interval, typ, ttVar, summary, description string }{
			{"py_trigger", `"0 3 * * *"`, "airflow.timetables.trigger.CronTriggerTimetable",
				`{"expression": "0 3 * * *", "timezone": "UTC", "interval": 0.0}`, "0 3 * * *", ""},
			{"py_once", `"@once"`, "airflow.timetables.simple.OnceTimetable", `{}`, "@once", "Once, as soon as possible"},
			{"py_every", `{"__var": 21600.0, "__type": "timedelta"}`, "airflow.timetables.interval.DeltaDataIntervalTimetable",
				`{"delta": 21600.0}`, "6:00:00", ""},
			{"py_unset", `{"__var": 86400.0, "__type": "timedelta"}`, "airflow.timetables.interval.DeltaDataIntervalTimetable",
				`{"delta": 86400.0}`, "1 day, 0:00:00", ""},
		} {
			d := pyDAG(t, r, c.id)
			rawEqual(t, c.id+" schedule_interval", d.ScheduleInterval, c.interval)
			if d.Timetable.Type != c.typ || *d.TimetableSummary != c.summary || *d.TimetableDescription != c.description {
				t.Errorf("%s: %s %q %q", c.id, d.Timetable.Type, *d.TimetableSummary, *d.TimetableDescription)
			}
			rawEqual(t, c.id+" timetable", d.Timetable.Var, c.ttVar)
		}
	})

	t.Run("sub-DAGs", func(t *testing.T) {
		r := res["subdags.py"]
		if len(r.DAGs) != 2 {
			t.Fatalf("%d DAGs, want the parent and its sub-DAG once", len(r.DAGs))
		}
		child := pyDAG(t, r, "py_parent.section")
		if !child.IsSubdag || *child.ParentDag != "py_parent" {
			t.Errorf("child is_subdag %v parent %v", child.IsSubdag, child.ParentDag)
		}
		if op := pyTaskOf(t, pyDAG(t, r, "py_parent"), "section"); op.TaskType != "SubDagOperator" || *op.Subdag != "py_parent.section" {
			t.Errorf("section: %s %v", op.TaskType, op.Subdag)
		}
	})

	t.Run("import errors", func(t *testing.T) {
		for _, c := range []struct {
			file        string
			traceback   bool
			last        string
			airflowFile string
		}{
			// bag_dag's checks: "{type}: {message}" (2.10.3 dagbag.py:485),
			// with the cycle text of utils/dag_cycle_tester.py:66 and
			// croniter's out-of-range text.
			{file: "cycle.py", last: "AirflowDagCycleException: Cycle detected in DAG: py_cycle. Faulty task: y"},
			{file: "bad_cron.py", last: "AirflowTimetableInvalid: [61 * * * *] is not acceptable, out of range"},
			// Errors while importing: the stack trace, two frames deep
			// (dagbag.py:389-391), ending with the exception line.
			{file: "duplicate_task.py", traceback: true,
				last: "airflow.exceptions.DuplicateTaskIdFound: Task id 'same' has already been added to the DAG"},
			{file: "no_start_date.py", traceback: true, last: "ValueError: DAG is missing the start_date parameter"},
			{file: "broken_import.py", traceback: true, last: "ModuleNotFoundError: No module named 'module_that_is_not_there'",
				airflowFile: "broken_import.py"},
		} {
			r := res[c.file]
			if r.ImportError == nil {
				t.Errorf("%s: no import error", c.file)
				continue
			}
			text := *r.ImportError
			if c.traceback != strings.HasPrefix(text, "Traceback (most recent call last):\n") {
				t.Errorf("%s: traceback form %v: %q", c.file, c.traceback, text)
			}
			lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
			if lines[len(lines)-1] != c.last {
				t.Errorf("%s: last line %q, want %q", c.file, lines[len(lines)-1], c.last)
			}
			if c.airflowFile != "" && !strings.Contains(text, filepath.Join(dir, c.airflowFile)) {
				t.Errorf("%s: the trace does not name the file: %q", c.file, text)
			}
			if len(r.DAGs) != 0 {
				t.Errorf("%s: %d DAGs beside the import error", c.file, len(r.DAGs))
			}
		}
	})
}

func TestPythonReader_Edition110Folder(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v110")
	res := readPyFolder(t, pythonReader{Edition: "1.10"}, dir, &rules110)
	r := res["classic110.py"]
	if r.ImportError != nil {
		t.Fatalf("import error: %s", *r.ImportError)
	}
	d := pyDAG(t, r, "py110")
	// 1.10.15: no timetables, no task groups; the operators' modules are
	// the *_operator ones (1.10.15 serialized_objects.py keeps
	// op.__class__.__module__).
	if d.Timetable != nil || d.TaskGroup != nil {
		t.Errorf("timetable %+v, task group %+v", d.Timetable, d.TaskGroup)
	}
	rawEqual(t, "schedule_interval", d.ScheduleInterval, `"@hourly"`)
	for _, c := range []struct{ id, typ, module string }{
		{"run", "BashOperator", "airflow.operators.bash_operator"},
		{"check", "PythonOperator", "airflow.operators.python_operator"},
		{"end", "DummyOperator", "airflow.operators.dummy_operator"},
	} {
		task := pyTaskOf(t, d, c.id)
		if task.TaskType != c.typ || task.TaskModule != c.module || task.Owner != "old" {
			t.Errorf("%s: %s %s owner %s", c.id, task.TaskType, task.TaskModule, task.Owner)
		}
	}
	// 1.10.15's BashOperator templates bash_command and env only
	// (operators/bash_operator.py:88); a second task id is a warning there
	// (models/dag.py:1336-1343): the first task stays.
	if got := pyTaskOf(t, d, "run").TemplateFields; !reflect.DeepEqual(got, []string{"bash_command", "env"}) {
		t.Errorf("template fields %v", got)
	}
	if got := taskIDs(d); !reflect.DeepEqual(got, []string{"run", "check", "end"}) {
		t.Errorf("task ids %v", got)
	}
	// 1.10.15 import errors are str(e) (models/dagbag.py:260), and its
	// cycle text names both tasks (models/dag.py:1683).
	for file, want := range map[string]string{
		"new_paths.py": "No module named 'airflow.operators.bash'",
		"cycle110.py":  "Cycle detected in DAG. Faulty task: q to p",
	} {
		if r := res[file]; r.ImportError == nil || *r.ImportError != want {
			t.Errorf("%s: import error %v, want %q", file, r.ImportError, want)
		}
	}
}

// TestPythonReader_Bounds reads a folder whose files sleep past the bound,
// ignore Python's alarm, ask for too much memory and leave a process
// behind: each is an import error, the others load, and nothing the
// reader started outlives it.
func TestPythonReader_Bounds(t *testing.T) {
	requirePython(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	t.Setenv("AIRLITE_TEST_PIDFILE", pidFile)
	dir, _ := filepath.Abs("testdata/pydags/bounds")
	var groups []int
	r := pythonReader{Edition: "2", Timeout: time.Second, Memory: 512 << 20, started: func(pgid int) { groups = append(groups, pgid) }}
	start := time.Now()
	res := readPyFolder(t, r, dir, &rules2)
	took := time.Since(start)

	for _, f := range []string{"a_first.py", "f_last.py", "e_child.py"} {
		if res[f].ImportError != nil {
			t.Errorf("%s: %s", f, *res[f].ImportError)
		}
	}
	if len(res["a_first.py"].DAGs) != 1 || len(res["f_last.py"].DAGs) != 1 {
		t.Errorf("the files around the failing ones did not load: %+v %+v", res["a_first.py"], res["f_last.py"])
	}
	// Python's alarm: Airflow's message (2.10.3 models/dagbag.py:406-411)
	// in the traceback's last line, AirflowTaskTimeout's.
	wantTimeout := "DagBag import timeout for " + filepath.Join(dir, "b_slow.py") + " after 1.0s.\n" +
		"Please take a look at these docs to improve your DAG import time:\n" +
		"* https://airflow.apache.org/docs/apache-airflow/2.10.3/best-practices.html#top-level-python-code\n" +
		"* https://airflow.apache.org/docs/apache-airflow/2.10.3/best-practices.html#reducing-dag-complexity"
	if e := res["b_slow.py"].ImportError; e == nil || !strings.HasSuffix(*e, "airflow.exceptions.AirflowTaskTimeout: "+wantTimeout+"\n") {
		t.Errorf("b_slow.py: %v", e)
	}
	// A file deaf to the alarm: the group is killed, same message, and a
	// new process reads the files after it.
	if e := res["c_deaf.py"].ImportError; e == nil || *e != strings.Replace(wantTimeout, "b_slow.py", "c_deaf.py", 1) {
		t.Errorf("c_deaf.py: %v", e)
	}
	if len(groups) != 2 {
		t.Errorf("%d reader processes, want 2 (one killed at c_deaf.py)", len(groups))
	}
	if e := res["d_hog.py"].ImportError; e == nil || !strings.HasSuffix(*e, "\nMemoryError\n") {
		t.Errorf("d_hog.py: %v", e)
	}
	// The slow files sleep 600 s each: a read that ends well before one
	// of them would have is bounded by the reader's timeout, not by them.
	// (Not a speed check: the margin is minutes, whatever the machine.)
	if took > 300*time.Second {
		t.Errorf("the folder took %v: a file's sleep was not cut short", took)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(data))
	assertProcessGone(t, child)
	for _, g := range groups {
		assertGroupGone(t, g)
	}
}

// assertProcessGone checks that pid has ended (a zombie not yet reaped by
// init counts as ended).
func assertProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if !procAlive(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the reader", pid)
		}
		runtime.Gosched()
	}
}

func TestPythonReader_StopEndsTheGroup(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/bounds")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan int, 4)
	r := pythonReader{Edition: "2", Timeout: time.Minute, started: func(pgid int) { started <- pgid }}
	done := make(chan error, 1)
	go func() {
		_, err := r.ReadFolder(ctx, dir, []string{filepath.Join(dir, "b_slow.py")})
		done <- err
	}()
	pgid := <-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFolder after a stop: %v", err)
	}
	assertGroupGone(t, pgid)
}

func TestPythonReader_NoPython(t *testing.T) {
	t.Parallel()
	r := pythonReader{Python: filepath.Join(t.TempDir(), "python3"), Edition: "2"}
	dir, _ := filepath.Abs("testdata/pydags/v2")
	got, err := r.ReadFolder(context.Background(), dir, []string{filepath.Join(dir, "cycle.py"), filepath.Join(dir, "classic.py"),
		filepath.Join(dir, "not_a_pipeline.py")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got[2].Skipped || got[2].ImportError != nil {
		t.Fatalf("%+v: want the file safe mode passes over skipped", got)
	}
	for _, res := range got[:2] {
		if res.ImportError == nil || !strings.Contains(*res.ImportError, "--python PATH or AIRLITE_PYTHON") ||
			!strings.Contains(*res.ImportError, "Install Python 3") {
			t.Errorf("%s: %v", res.File, res.ImportError)
		}
	}
}

// TestPythonProgram_Embedded checks that the narrow embed pattern holds
// every file of python/: a module left out would be an ImportError at
// parse time.
func TestPythonProgram_Embedded(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir("python", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) == "__pycache__" {
			return err
		}
		if _, err := pythonProgram.ReadFile(filepath.ToSlash(p)); err != nil {
			t.Errorf("%s is not embedded: widen the //go:embed pattern in dag_python.go", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A variable's value reaches the DAG file as data only: code in it is not
// run, and the value comes back as it was.
func TestPythonReader_VariableIsData(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v2")
	evil := `"); import os; os._exit(3) #'''` + "\n"
	r := pythonReader{Edition: "2", Variables: map[string]string{"mode": evil}}
	got, err := r.ReadFolder(context.Background(), dir, []string{filepath.Join(dir, "classic.py")})
	if err != nil || len(got) != 1 || got[0].ImportError != nil {
		t.Fatalf("%v %+v", err, got)
	}
	want, _ := json.Marshal(map[string]string{"MODE": evil})
	rawEqual(t, "env", pyTaskOf(t, pyDAG(t, got[0], "py_classic"), "say").TemplateValues["env"], string(want))
}

func TestConfig_Python(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"default", nil, nil, "python3"},
		{"flag", []string{"--python", "/venv/bin/python"}, nil, "/venv/bin/python"},
		{"environment", nil, map[string]string{"AIRLITE_PYTHON": "/opt/py/bin/python3"}, "/opt/py/bin/python3"},
		{"flag wins", []string{"--python", "/a"}, map[string]string{"AIRLITE_PYTHON": "/b"}, "/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			c, err := parseConfig(tc.args, mapEnv(tc.env), &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if c.Python != tc.want {
				t.Errorf("Python = %q, want %q", c.Python, tc.want)
			}
		})
	}
}

// TestServerV1_ImportErrors records a parse and reads it back through
// /importErrors as Airflow 2.10.3 answers it
// (api_connexion/endpoints/import_error_endpoint.py,
// schemas/error_schema.py), each answer checked against the document.
func TestServerV1_ImportErrors(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := newTestServer(t, edition2)
	vr := ts.srv.v1Routes()
	t1 := time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC)
	files := []string{"/dags/b.py", "/dags/a.py", "/dags/ok.py"}
	if err := ts.store.RecordParse(files, map[string]string{"/dags/b.py": "Traceback (most recent call last):\nboom\n",
		"/dags/a.py": "AirflowDagCycleException: Cycle detected in DAG: x. Faulty task: y"}, t1); err != nil {
		t.Fatal(err)
	}
	check := func(path string, wantStatus int, want string) {
		t.Helper()
		res := ts.v1(t, "GET", path, "")
		doc.checkAnswer(t, vr, "GET", apiV1Prefix+path, res)
		if res.status != wantStatus {
			t.Fatalf("GET %s: %d %s", path, res.status, res.body)
		}
		var got, w any
		if err := json.Unmarshal([]byte(res.body), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("GET %s = %s, want %s", path, res.body, want)
		}
	}
	b := `{"import_error_id": 1, "timestamp": "2024-05-01T10:00:00.123456+00:00", "filename": "/dags/b.py",
		"stack_trace": "Traceback (most recent call last):\nboom\n"}`
	a := `{"import_error_id": 2, "timestamp": "2024-05-01T10:00:00.123456+00:00", "filename": "/dags/a.py",
		"stack_trace": "AirflowDagCycleException: Cycle detected in DAG: x. Faulty task: y"}`
	check("/importErrors", 200, `{"import_errors": [`+b+`, `+a+`], "total_entries": 2}`)
	check("/importErrors?order_by=filename", 200, `{"import_errors": [`+a+`, `+b+`], "total_entries": 2}`)
	check("/importErrors?limit=1&offset=1", 200, `{"import_errors": [`+a+`], "total_entries": 2}`)
	check("/importErrors/2", 200, a)
	check("/importErrors/3", 404, `{"type": "https://airflow.apache.org/docs/apache-airflow/2.10.3/stable-rest-api-ref.html#section/Errors/NotFound",
		"title": "Import error not found", "status": 404, "detail": "The ImportError with import_error_id: `+"`3`"+` was not found"}`)

	// A later parse: a.py loads now, b.py still fails (same id, new time
	// and text), c.py is new.
	t2 := t1.Add(time.Minute)
	if err := ts.store.RecordParse([]string{"/dags/a.py", "/dags/b.py", "/dags/c.py"},
		map[string]string{"/dags/b.py": "again", "/dags/c.py": "new"}, t2); err != nil {
		t.Fatal(err)
	}
	check("/importErrors", 200, `{"import_errors": [
		{"import_error_id": 1, "timestamp": "2024-05-01T10:01:00.123456+00:00", "filename": "/dags/b.py", "stack_trace": "again"},
		{"import_error_id": 3, "timestamp": "2024-05-01T10:01:00.123456+00:00", "filename": "/dags/c.py", "stack_trace": "new"}],
		"total_entries": 2}`)
	check("/importErrors/2", 404, `{"type": "https://airflow.apache.org/docs/apache-airflow/2.10.3/stable-rest-api-ref.html#section/Errors/NotFound",
		"title": "Import error not found", "status": 404, "detail": "The ImportError with import_error_id: `+"`2`"+` was not found"}`)
}

// TestStartup_PythonImportErrors starts the store on a folder of Python
// files: the failing ones are import errors, the rest load, and the YAML
// DAGs beside them are served as before.
func TestStartup_PythonImportErrors(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v2")
	c := config{DagsDir: dir, Edition: edition2, Snapshot: "off", Python: "python3"}
	store, _, err := openStore(context.Background(), c, &DAGSet{}, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := store.ImportErrors()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rows {
		got = append(got, filepath.Base(e.Filename))
	}
	want := []string{"bad_cron.py", "broken_import.py", "cycle.py", "duplicate_task.py", "no_start_date.py"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("import errors for %v, want %v", got, want)
	}
}

func TestStartup_NoPythonMakesImportErrors(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs("testdata/pydags/v110")
	c := config{DagsDir: dir, Edition: edition110, Snapshot: "off", Python: filepath.Join(t.TempDir(), "nopython")}
	store, _, err := openStore(context.Background(), c, &DAGSet{}, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := store.ImportErrors()
	if len(rows) != 3 || !strings.Contains(rows[0].StackTrace, "AIRLITE_PYTHON") {
		t.Errorf("import errors %+v, want one per .py file saying how to fix it", rows)
	}
}
