package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// A DAG's allowed_run_types (Airflow 3.2.0, migration 0105_3_2_0): the
// task SDK's converter and validator (c57fba0e task-sdk definitions/
// dag.py:211-221, 613-633), the serialized DAG's sorted values or null
// (serialization/serialized_objects.py:1716-1721), and DAGResponse's
// field.

// TestPythonReader_AllowedRunTypes: a DAG file gives one DagRunType or a
// collection of them (members or their values); the serialized DAG has
// the sorted values, none for an empty collection or none given.
func TestPythonReader_AllowedRunTypes(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/runtypes")
	res := readPyFolder(t, pythonReader{Edition: "3", Variables: map[string]string{}}, dir, &rules3)
	file := res["runtypes.py"]
	if file.ImportError != nil {
		t.Fatalf("runtypes.py: %s", *file.ImportError)
	}
	for id, want := range map[string][]string{
		"rt_manual_only":   {"manual"},
		"rt_no_manual":     {"backfill", "scheduled"},
		"rt_asset_or_time": {"asset_triggered", "manual"},
		"rt_empty":         nil,
		"rt_unset":         nil,
	} {
		if got := pyDAG(t, file, id).AllowedRunTypes; !slices.Equal(got, want) || (want == nil) != (got == nil) {
			t.Errorf("%s: allowed_run_types %q, want %q", id, got, want)
		}
	}
}

// TestPythonReader_AllowedRunTypesRefused: a value that is no DagRunType
// (a string is a collection of its characters to the converter) and the
// validator's three ValueErrors are the file's import error; Airflow
// 2.10.3's DAG has no such argument.
func TestPythonReader_AllowedRunTypesRefused(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir, _ := filepath.Abs("testdata/pydags/runtypes_bad")
	res := readPyFolder(t, pythonReader{Edition: "3", Variables: map[string]string{}}, dir, &rules3)
	for file, want := range map[string]string{
		"bad_value.py":    "ValueError: 'bogus' is not a valid DagRunType",
		"bad_string.py":   "ValueError: 'm' is not a valid DagRunType",
		"no_scheduled.py": "ValueError: allowed_run_types must include SCHEDULED when the Dag has a schedule defined",
		"no_manual.py":    "ValueError: allowed_run_types must include MANUAL when the Dag has no schedule defined (schedule=None)",
		"no_asset.py":     "ValueError: allowed_run_types must include ASSET_TRIGGERED when the Dag is scheduled by assets",
	} {
		if r := res[file]; r.ImportError == nil || !strings.Contains(*r.ImportError, want) {
			t.Errorf("%s: import error %v, want %q", file, r.ImportError, want)
		}
	}
	res2 := readPyFolder(t, pythonReader{Edition: "2", Variables: map[string]string{}}, dir, &rules2)
	want := "TypeError: DAG.__init__() got an unexpected keyword argument 'allowed_run_types'"
	if r := res2["edition2.py"]; r.ImportError == nil || !strings.Contains(*r.ImportError, want) {
		t.Errorf("edition2.py in edition 2: import error %v, want %q", r.ImportError, want)
	}
}

// TestYAMLDAG_AllowedRunTypes: a definition's allowed_run_types key is
// the Python argument's collection of values, checked as the task SDK
// checks it, and refused in the editions whose Airflow has none.
func TestYAMLDAG_AllowedRunTypes(t *testing.T) {
	t.Parallel()
	const task = "tasks: [{task_id: t, operator: EmptyOperator}]\n"
	const head = "dag_id: d\nstart_date: 2024-01-01T00:00:00+00:00\n"
	for _, tc := range []struct {
		name string
		e    edition
		body string
		want []string // nil: null
		err  string
	}{
		{"sorted, once each", edition3, "schedule: '@daily'\nallowed_run_types: [scheduled, manual, scheduled]\n", []string{"manual", "scheduled"}, ""},
		{"manual only", edition3, "schedule: null\nallowed_run_types: [manual]\n", []string{"manual"}, ""},
		{"empty", edition3, "schedule: '@daily'\nallowed_run_types: []\n", nil, ""},
		{"unset", edition3, "schedule: '@daily'\n", nil, ""},
		{"assets", edition3, "schedule: [s3://rt/a]\nallowed_run_types: [asset_triggered]\n", []string{"asset_triggered"}, ""},
		{"not a run type", edition3, "schedule: null\nallowed_run_types: [manual, bogus]\n", nil,
			"line 4: allowed_run_types: 'bogus' is not a valid DagRunType"},
		{"no scheduled", edition3, "schedule: '@daily'\nallowed_run_types: [manual, backfill]\n", nil,
			"line 4: allowed_run_types must include SCHEDULED when the Dag has a schedule defined"},
		{"@once is a schedule", edition3, "schedule: '@once'\nallowed_run_types: [manual]\n", nil,
			"line 4: allowed_run_types must include SCHEDULED when the Dag has a schedule defined"},
		{"no manual", edition3, "schedule: null\nallowed_run_types: [scheduled]\n", nil,
			"line 4: allowed_run_types must include MANUAL when the Dag has no schedule defined (schedule=None)"},
		{"no asset_triggered", edition3, "schedule: [s3://rt/a]\nallowed_run_types: [manual, scheduled]\n", nil,
			"line 4: allowed_run_types must include ASSET_TRIGGERED when the Dag is scheduled by assets"},
		{"edition 2", edition2, "schedule: null\nallowed_run_types: [manual]\n", nil,
			"line 4: allowed_run_types: Airflow 2.10.3 has no allowed_run_types (it came with Airflow 3.2)"},
		{"edition 1.10", edition110, "schedule_interval: null\nallowed_run_types: [manual]\n", nil,
			"line 4: allowed_run_types: Airflow 1.10.15 has no allowed_run_types (it came with Airflow 3.2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dag, err := parseDAGFor([]byte(head+tc.body+task), testNow, tc.e.rules())
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %v\nwant  %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dag.AllowedRunTypes, tc.want) || (tc.want == nil) != (dag.AllowedRunTypes == nil) {
				t.Errorf("allowed_run_types %q, want %q", dag.AllowedRunTypes, tc.want)
			}
		})
	}
}

// TestAPIv2_DagAllowedRunTypes: DAGResponse and DAGDetailsResponse show
// the sorted run types, null when the DAG allows every one.
func TestAPIv2_DagAllowedRunTypes(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/runtypes")
	for id, want := range map[string]string{
		"rt_no_manual": `["backfill","scheduled"]`, "rt_asset_or_time": `["asset_triggered","manual"]`, "rt_empty": "null", "rt_unset": "null",
	} {
		for _, path := range []string{"/dags/" + id, "/dags/" + id + "/details"} {
			if got := string(ts.v2JSON(t, path)["allowed_run_types"]); got != want {
				t.Errorf("%s: allowed_run_types %s, want %s", path, got, want)
			}
		}
	}
	res := ts.v2(t, http.MethodPost, "/dags/rt_no_manual/dagRuns", `{"logical_date": null}`, http.StatusBadRequest)
	if want := `{"detail":"Dag with dag_id: 'rt_no_manual' does not allow manual runs"}`; res.body != want {
		t.Errorf("trigger = %s, want %s", res.body, want)
	}
}

// TestScheduler_AllowedRunTypesWithoutScheduled: a DAG on assets or a time
// that does not allow scheduled runs gets none (c57fba0e
// jobs/scheduler_job_runner.py:1947-1955 skips it), while its asset
// runs and manual triggers are made, as the scheduler checks no other run
// type.
func TestScheduler_AllowedRunTypesWithoutScheduled(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/runtypes")
	sched := newSucceedingScheduler3(t, ts)
	var assets struct {
		Assets []struct {
			ID int `json:"id"`
		} `json:"assets"`
	}
	res := ts.v2(t, http.MethodGet, "/assets?uri_pattern=s3://rt/a", "", http.StatusOK)
	if err := json.Unmarshal([]byte(res.body), &assets); err != nil || len(assets.Assets) != 1 {
		t.Fatalf("assets = %s", res.body)
	}
	ts.v2(t, http.MethodPost, "/assets/events", fmt.Sprintf(`{"asset_id": %d}`, assets.Assets[0].ID), http.StatusOK)
	ts.v2(t, http.MethodPost, "/dags/rt_asset_or_time/dagRuns", `{"logical_date": null}`, http.StatusOK)
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	types := func(dagID string) []string {
		runs, err := ts.store.RunsOfDag(dagID, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.RunType)
		}
		slices.Sort(got)
		return got
	}
	if got, want := types("rt_asset_or_time"), []string{"asset_triggered", "manual"}; !slices.Equal(got, want) {
		t.Errorf("rt_asset_or_time's runs %v, want %v (no scheduled one)", got, want)
	}
	if got := types("rt_unset"); !slices.Contains(got, "scheduled") {
		t.Errorf("rt_unset's runs %v, want a scheduled one (it allows every type)", got)
	}
}

// TestAPIv2_NextDagRunWithoutScheduledRuns: the scheduler skips a DAG
// without scheduled runs before it creates one and leaves its next_dagrun
// fields alone (c57fba0e jobs/scheduler_job_runner.py:1947-1955), but the
// DAG processor works them out again at every parse (every
// min_file_process_interval, 30 s: dag_processing/manager.py
// prepare_file_queue re-queues each file parsed longer ago;
// collection.py:617-619 calculate_dagrun_date_fields from the last
// scheduled or backfill run, models/dag.py:728-770), from that parse's
// now: without catchup they move with the clock, to the latest fire time
// (airlite works them out at each request, as for a paused DAG); with
// catchup they stay at start_date's first; asset-triggered runs are not
// automated runs and move neither.
func TestAPIv2_NextDagRunWithoutScheduledRuns(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: testNow} // 2024-05-01T10:00:00.123456Z
	set := readPyServeFolderAs(t, "testdata/pydags/runtypes", edition3)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs, o.Now = set, clock.Now }))
	check := func(when string, want map[string]string) {
		t.Helper()
		for dagID, at := range want {
			got := ts.v2JSON(t, "/dags/"+dagID)
			wantRaw(t, when+" "+dagID, got, map[string]string{
				"next_dagrun_logical_date": at, "next_dagrun_data_interval_start": at,
				"next_dagrun_data_interval_end": at, "next_dagrun_run_after": at,
			})
		}
	}
	check("at first", map[string]string{
		"rt_asset_or_time":         `"2024-05-01T01:00:00Z"`,
		"rt_asset_or_time_catchup": `"2024-01-01T01:00:00Z"`,
	})
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 8, Unixname: testUnixname, Hostname: "test",
		RunTask: func(ctx context.Context, job taskJob) taskOutcome { return taskOutcome{state: TaskSuccess} }})
	t.Cleanup(sched.stop)
	assets := ts.v2JSON(t, "/assets?uri_pattern=s3://rt/a")
	var list []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(assets["assets"], &list); err != nil || len(list) != 1 {
		t.Fatalf("assets = %s", assets["assets"])
	}
	clock.Advance(36 * time.Hour)
	ts.v2(t, http.MethodPost, "/assets/events", fmt.Sprintf(`{"asset_id": %d}`, list[0].ID), http.StatusOK)
	settleTicks(t, sched, clock.Now)
	for _, dagID := range []string{"rt_asset_or_time", "rt_asset_or_time_catchup"} {
		runs, err := ts.store.RunsOfDag(dagID, "")
		if err != nil || len(runs) != 1 || runs[0].RunType != "asset_triggered" {
			t.Fatalf("%s's runs %v %v, want one asset-triggered", dagID, runs, err)
		}
	}
	check("a day and a half on", map[string]string{
		"rt_asset_or_time":         `"2024-05-02T01:00:00Z"`,
		"rt_asset_or_time_catchup": `"2024-01-01T01:00:00Z"`,
	})
}

// TestUI_TriggerRefusedRunType: the status page's trigger form of a DAG
// without manual runs says trigger_dag's ValueError (c57fba0e
// api/common/trigger_dag.py:168-169).
func TestUI_TriggerRefusedRunType(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withOwnDAG(v2NoManualDAG))
	res := uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {"v2nomanual"}, "conf": {""}})
	if want := htmlText("Dag with dag_id: 'v2nomanual' does not allow manual runs"); res.status != http.StatusBadRequest || !strings.Contains(res.body, want) {
		t.Errorf("status %d, want 400 with %q:\n%s", res.status, want, res.body)
	}
	if runs, err := ts.store.RunsOfDag("v2nomanual", ""); err != nil || len(runs) != 0 {
		t.Errorf("runs %v %v, want none", runs, err)
	}
}

// TestPythonReader_UtilsTypesNames: airflow.utils.types holds the names
// of each edition's Airflow module that a DAG file may import: 2.10.3's
// AttributeRemoved and EdgeInfoType (airflow/utils/types.py:49-106),
// 3.2's DagRunTriggeredByType (c57fba0e airflow-core utils/types.py:
// 54-64); a file importing one loads and uses it as Airflow's would.
func TestPythonReader_UtilsTypesNames(t *testing.T) {
	t.Parallel()
	requirePython(t)
	tests := []struct {
		edition string
		rules   *editionRules
		source  string
	}{
		{"2", &rules2, `
from airflow import DAG
from airflow.utils.types import AttributeRemoved, EdgeInfoType, NOTSET

removed = AttributeRemoved("retries")
assert removed.attribute_name == "retries"
try:
    removed.value
except RuntimeError as err:
    assert "retries" in str(err), err
else:
    raise AssertionError("a removed attribute was read")
info: EdgeInfoType = {"label": "edge"}
assert info["label"] == "edge"
with DAG("types_names", schedule=None):
    pass
`},
		{"3", &rules3, `
from airflow.sdk import DAG
from airflow.utils.types import DagRunTriggeredByType, DagRunType

assert DagRunTriggeredByType.REST_API.value == "rest_api"
assert DagRunTriggeredByType("asset") is DagRunTriggeredByType.ASSET
assert [m.value for m in DagRunTriggeredByType] == ["cli", "operator", "rest_api", "ui", "test", "timetable", "asset", "backfill"]
with DAG("types_names", schedule=None):
    pass
`},
	}
	for _, tc := range tests {
		t.Run("edition "+tc.edition, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "types_names.py"), []byte(tc.source), 0o644); err != nil {
				t.Fatal(err)
			}
			res := readPyFolder(t, pythonReader{Edition: tc.edition, Variables: map[string]string{}}, dir, tc.rules)
			file := res["types_names.py"]
			if file.ImportError != nil {
				t.Fatalf("types_names.py: %s", *file.ImportError)
			}
			pyDAG(t, file, "types_names")
		})
	}
}
