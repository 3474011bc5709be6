package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonReader_Edition3Folder reads Airflow 3 DAG files: airflow.sdk
// and the standard provider's operators load, with Airflow 3's module
// paths and defaults (schedule None, catchup off); what Airflow 3 removed
// (schedule_interval, days_ago, DummyOperator) is an import error in
// Python's words, as Airflow 3 raises it.
func TestPythonReader_Edition3Folder(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v3")
	res := readPyFolder(t, pythonReader{Edition: "3", Variables: map[string]string{}}, dir, &rules3)

	sdk := res["sdk.py"]
	if sdk.ImportError != nil {
		t.Fatalf("sdk.py: %s", *sdk.ImportError)
	}
	classic := pyDAG(t, sdk, "v3_classic")
	if classic.Catchup || classic.Timetable == nil || !strings.HasSuffix(classic.Timetable.Type, "NullTimetable") {
		t.Errorf("v3_classic: catchup %v, timetable %+v; want Airflow 3's defaults (off, None)", classic.Catchup, classic.Timetable)
	}
	for task, module := range map[string]string{
		"say": "airflow.providers.standard.operators.bash", "start": "airflow.providers.standard.operators.empty",
		"grp.py": "airflow.providers.standard.operators.python",
	} {
		if got := pyTaskOf(t, classic, task).TaskModule; got != module {
			t.Errorf("%s's module = %q, want %q", task, got, module)
		}
	}
	flow := pyDAG(t, sdk, "v3_taskflow")
	work := pyTaskOf(t, flow, "inner.work")
	if work.TaskModule != "airflow.providers.standard.decorators.python" || !work.IsMapped || work.OperatorName != "@task" {
		t.Errorf("inner.work = module %q, mapped %v, %q", work.TaskModule, work.IsMapped, work.OperatorName)
	}
	if clean := pyTaskOf(t, flow, "clean"); !clean.IsTeardown || clean.TriggerRule != "all_done_setup_success" {
		t.Errorf("clean: teardown %v, rule %q", clean.IsTeardown, clean.TriggerRule)
	}
	if make := pyTaskOf(t, flow, "make"); !slicesContain(make.DownstreamTaskIDs, "inner.work") {
		t.Errorf("make's downstream %v lacks inner.work (the with-block)", make.DownstreamTaskIDs)
	}

	for file, want := range map[string]string{
		"old_schedule.py": "TypeError: DAG.__init__() got an unexpected keyword argument 'schedule_interval'",
		"old_days_ago.py": "ImportError: cannot import name 'days_ago' from 'airflow.utils.dates'",
		"old_dummy.py":    "ModuleNotFoundError: No module named 'airflow.operators.dummy'",
	} {
		r := res[file]
		if r.ImportError == nil || !strings.Contains(*r.ImportError, want) {
			t.Errorf("%s: import error %v, want %q", file, r.ImportError, want)
		}
	}
}

// TestPythonReader_SDKNotInEdition2: airflow.sdk is Airflow 3's; a 2.10.3
// DAG folder that imports it fails as 2.10.3 fails.
func TestPythonReader_SDKNotInEdition2(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/v3")
	res := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, dir, &rules2)
	if r := res["sdk.py"]; r.ImportError == nil || !strings.Contains(*r.ImportError, "No module named 'airflow.sdk'") {
		t.Errorf("sdk.py in edition 2: import error %v, want no module airflow.sdk", r.ImportError)
	}
	if r := res["old_dummy.py"]; r.ImportError != nil {
		t.Errorf("old_dummy.py in edition 2: %s, want it to load", *r.ImportError)
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestPythonTask_Edition3Runs: an Airflow 3 DAG file's tasks run in
// edition 3: the standard provider's BashOperator and PythonOperator, the
// callable imported through airflow.sdk.
func TestPythonTask_Edition3Runs(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/v3", edition3)
	store, runID := runPyDAG(t, set, edition3, "v3_classic")
	states := map[string]TaskState{}
	tis, _ := store.TaskInstancesOfRun("v3_classic", runID)
	for _, ti := range tis {
		states[ti.TaskID] = ti.State
	}
	for _, id := range []string{"start", "say", "grp.py"} {
		if states[id] != TaskSuccess {
			t.Errorf("%s = %q, want success (states %v)", id, states[id], states)
		}
	}
	if e, err := store.XCom("v3_classic", runID, "grp.py", xcomReturnKey, -1); err != nil || string(e.Value) != `"hi"` {
		t.Errorf("grp.py pushed %v %v, want \"hi\" (its callable ran)", e, err)
	}
}
