package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestScheduler_TriggerDagRunOperatorRenderedFields: a
// TriggerDagRunOperator's try keeps its template_fields rendered, as the
// release serializes them for the API's rendered_fields (2.10.3
// airflow/operators/trigger_dagrun.py template_fields through
// serialization/helpers.py serialize_template_field; 3.2.1's standard
// provider's through task_runner.py _serialize_template_field, dicts
// sorted): None stays null, trigger_run_id is the one given (the
// generated id is execute's), a datetime logical_date is its str(), and
// 3.2.1's NOTSET (no logical_date) is its str().
func TestScheduler_TriggerDagRunOperatorRenderedFields(t *testing.T) {
	t.Parallel()
	templated := `{"trigger_dag_id": "fields_target", "trigger_run_id": "t_c", "logical_date": "2024-05-01",
		"conf": {"a": [1, "2024-02-01"], "b": "from c"}, "wait_for_completion": false, "skip_when_already_exists": "yes"}`
	dated := `{"trigger_dag_id": "fields_target", "trigger_run_id": "d", "logical_date": "2024-06-01 00:00:00+00:00",
		"conf": null, "wait_for_completion": false, "skip_when_already_exists": false}`
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
		want    map[string]string
	}{
		{"2", edition2, "testdata/pydags/triggerop_fields2", map[string]string{
			"plain": `{"trigger_dag_id": "fields_target", "trigger_run_id": null, "logical_date": null, "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`,
			"templated": templated, "dated": dated}},
		{"3", edition3, "testdata/pydags/triggerop_fields3", map[string]string{
			"plain": `{"trigger_dag_id": "fields_target", "trigger_run_id": null, "logical_date": "` + argNotSetText + `", "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`,
			"templated": templated, "dated": dated,
			"dateless": `{"trigger_dag_id": "fields_target", "trigger_run_id": "n", "logical_date": null, "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			triggeringScheduler(t, ts)
			taskIDs := make([]string, 0, len(tc.want))
			for id := range tc.want {
				taskIDs = append(taskIDs, id)
			}
			postEditionRun(t, ts, "fields_controller", `{"dag_run_id": "c", "logical_date": "2024-02-01T00:00:00+00:00"}`)
			awaitTriesEnded(t, ts.store, "fields_controller", "c", taskIDs...)
			for task, want := range tc.want {
				path := "/dags/fields_controller/dagRuns/c/taskInstances/" + task
				res := getEdition(t, ts, path)
				checkRenderedFields(t, task, res.body, want)
			}
		})
	}
}

// postEditionRun triggers a run through the edition's stable API (v2 in
// edition 3, v1 in 2).
func postEditionRun(t *testing.T, ts *testServer, dagID, body string) {
	t.Helper()
	if ts.edition == edition3 {
		ts.v2(t, http.MethodPost, "/dags/"+dagID+"/dagRuns", body, http.StatusOK)
		return
	}
	ts.postRun(t, dagID, body)
}

// getEdition GETs path through the edition's stable API.
func getEdition(t *testing.T, ts *testServer, path string) response {
	t.Helper()
	if ts.edition == edition3 {
		return ts.v2(t, http.MethodGet, path, "", http.StatusOK)
	}
	res := ts.v1(t, http.MethodGet, path, "")
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.status, res.body)
	}
	return res
}

// checkRenderedFields checks a task instance answer's rendered_fields.
func checkRenderedFields(t *testing.T, task, body, want string) {
	t.Helper()
	var ti struct {
		Rendered any `json:"rendered_fields"`
	}
	var wantV any
	if err := json.Unmarshal([]byte(body), &ti); err != nil {
		t.Fatalf("%s: %v: %s", task, err, body)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatalf("%s: want: %v", task, err)
	}
	if !reflect.DeepEqual(ti.Rendered, wantV) {
		t.Errorf("%s rendered_fields = %v, want %v", task, ti.Rendered, wantV)
	}
}

// TestScheduler_TriggerDagRunOperatorPausedTarget: the operator triggers
// a paused DAG's run as any other (2.10.3 trigger_dag and 3.2.1's
// execution API's trigger route do not look at is_paused): the run is
// created queued and the scheduler leaves it there, as it leaves every
// run of a paused DAG; a try waiting for it waits until the DAG is
// unpaused and the run ends.
func TestScheduler_TriggerDagRunOperatorPausedTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
	}{
		{"2", edition2, "testdata/pydags/triggerop_paused2"},
		{"3", edition3, "testdata/pydags/triggerop_paused3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			pause := func(paused bool) {
				t.Helper()
				body := fmt.Sprintf(`{"is_paused": %v}`, paused)
				if tc.edition == edition3 {
					ts.v2(t, http.MethodPatch, "/dags/paused_target", body, http.StatusOK)
				} else if res := ts.v1(t, http.MethodPatch, "/dags/paused_target", body); res.status != http.StatusOK {
					t.Fatalf("pause: %d %s", res.status, res.body)
				}
			}
			pause(true)
			triggeringScheduler(t, ts)
			postEditionRun(t, ts, "paused_controller", `{"dag_run_id": "c", "logical_date": "2024-01-05T00:00:00+00:00"}`)
			awaitTriesEnded(t, ts.store, "paused_controller", "c", "fire")
			if !pollUntil(10*time.Second, func() bool {
				_, err := ts.store.RunByRunID("paused_target", "waited")
				return err == nil
			}) {
				t.Fatal("the waiting task did not trigger its run")
			}
			time.Sleep(300 * time.Millisecond) // some 30 of the scheduler's loops
			for _, runID := range []string{"fired", "waited"} {
				run, err := ts.store.RunByRunID("paused_target", runID)
				if err != nil || run.State != RunQueued || run.StartDate != nil {
					t.Errorf("%s: %+v %v, want queued and not started", runID, run, err)
				}
			}
			if ti, err := ts.store.TaskInstance("paused_controller", "c", "wait"); err != nil || ti.State != TaskRunning {
				t.Errorf("wait: %+v %v, want running (waiting)", ti, err)
			}
			pause(false)
			awaitTriesEnded(t, ts.store, "paused_controller", "c", "wait")
			checkTry(t, ts.store, "paused_controller", "c", "wait", TaskSuccess)
			if run := awaitRunEnd(t, ts.store, "paused_target", "waited"); run.State != RunSuccess {
				t.Errorf("waited ended %s", run.State)
			}
		})
	}
}

// TestPyDAG_TriggerDagRunOperatorFailWhenPaused: fail_when_dag_is_paused
// is refused when the DAG file is read, as each release's class refuses
// it: 2.10.3's operator has no such argument (BaseOperator's "Invalid
// arguments"), 3.2.1's standard provider raises NotImplementedError when
// it is set on Airflow 3 (operators/trigger_dagrun.py __init__), and
// 1.10.15's BaseOperator takes (and ignores) any argument.
func TestPyDAG_TriggerDagRunOperatorFailWhenPaused(t *testing.T) {
	t.Parallel()
	const dag = `
import pendulum
from airflow import DAG
%s

with DAG("guarded", schedule_interval=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    TriggerDagRunOperator(task_id="fire", trigger_dag_id="other", fail_when_dag_is_paused=%s)
`
	imp2 := "from airflow.operators.trigger_dagrun import TriggerDagRunOperator"
	imp3 := "from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator"
	imp110 := "from airflow.operators.dagrun_operator import TriggerDagRunOperator"
	for _, tc := range []struct {
		name    string
		edition edition
		imports string
		flag    string
		want    string // "": read without an import error
	}{
		{"2", edition2, imp2, "True",
			"Invalid arguments were passed to TriggerDagRunOperator (task_id: fire). Invalid arguments were:\n**kwargs: {'fail_when_dag_is_paused': True}"},
		{"2 false", edition2, imp2, "False",
			"Invalid arguments were passed to TriggerDagRunOperator (task_id: fire). Invalid arguments were:\n**kwargs: {'fail_when_dag_is_paused': False}"},
		{"3", edition3, imp3, "True", "NotImplementedError: Setting `fail_when_dag_is_paused` not yet supported for Airflow 3.x"},
		{"3 false", edition3, imp3, "False", ""},
		{"1.10", edition110, imp110, "True", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			text := fmt.Sprintf(dag, tc.imports, tc.flag)
			if tc.edition == edition3 {
				text = strings.Replace(text, "schedule_interval", "schedule", 1)
				text = strings.Replace(text, "from airflow import DAG", "from airflow.sdk import DAG", 1)
			}
			if err := os.WriteFile(filepath.Join(dir, "guarded.py"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			set := readPyServeFolderAs(t, dir, tc.edition)
			var errs []string
			for _, e := range set.ImportErrors {
				errs = append(errs, e.Text)
			}
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("import errors %q, want none", errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
				t.Errorf("import errors %q, want one with %q", errs, tc.want)
			}
		})
	}
}

// TestScheduler_TriggerDagRunOperatorWaitFollowsClock: wait_for_completion's
// poke_interval passes on the scheduler's clock, so that moving the fake
// clock (/_airlite/clock) past it ends the sleep at once, as it makes a
// retry's delay due, where an hour's poke_interval would otherwise hold
// the try an hour.
func TestScheduler_TriggerDagRunOperatorWaitFollowsClock(t *testing.T) {
	t.Parallel()
	ts := servePyFolderAs(t, "testdata/pydags/triggerop_clock3", edition3)
	clock := newFakeClock(testNow)
	sched := triggeringSchedulerOn(t, ts, clock.Now)
	clock.moved = sched.Kick
	ts.v2(t, http.MethodPost, "/dags/clock_controller/dagRuns", `{"dag_run_id": "c", "logical_date": null}`, http.StatusOK)
	if run := awaitRunEnd(t, ts.store, "clock_target", "waited"); run.State != RunSuccess {
		t.Fatalf("the triggered run ended %s", run.State)
	}
	if ti, err := ts.store.TaskInstance("clock_controller", "c", "wait"); err != nil || ti.State != TaskRunning {
		t.Fatalf("wait: %+v %v, want running until the clock moves", ti, err)
	}
	if _, err := clock.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	if !pollUntil(15*time.Second, func() bool {
		ti, err := ts.store.TaskInstance("clock_controller", "c", "wait")
		return err == nil && ti.State == TaskSuccess
	}) {
		t.Fatal("the wait did not end when the clock passed its poke_interval")
	}
	checkTry(t, ts.store, "clock_controller", "c", "wait", TaskSuccess, "DagRun finished with allowed state. dag_id=clock_target state=success\n")
}

// TestScheduler_TriggerDagRunOperatorLink: the operator's "Triggered DAG"
// extra link names the run its try triggered. Edition 2 answers 2.10.3's
// TriggerDagRunLink.get_link, url_for of the grid view for
// trigger_dag_id as the file wrote it, the trigger_run_id XCom as the
// dag_run_id query (werkzeug's quoting); edition 3 the XCom 3.2.1's task
// runner pushes at finalize, build_airflow_dagrun_url of the rendered
// trigger_dag_id and that run id ([api] base_url unset: "/").
func TestScheduler_TriggerDagRunOperatorLink(t *testing.T) {
	t.Parallel()
	generated := "manual__" + isoFormat(testNow)
	quoted := strings.NewReplacer(":", "%3A", "+", "%2B").Replace(generated)
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
		want    map[string]string
	}{
		{"2", edition2, "testdata/pydags/triggerop_fields2", map[string]string{
			"plain":     "/dags/fields_target/grid?dag_run_id=" + quoted,
			"templated": "/dags/%7B%7B%20'fields_'%20~%20'target'%20%7D%7D/grid?dag_run_id=t_c",
			"dated":     "/dags/fields_target/grid?dag_run_id=d"}},
		{"3", edition3, "testdata/pydags/triggerop_fields3", map[string]string{
			"plain":     "/dags/fields_target/runs/" + generated,
			"templated": "/dags/fields_target/runs/t_c",
			"dated":     "/dags/fields_target/runs/d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			triggeringScheduler(t, ts)
			postEditionRun(t, ts, "fields_controller", `{"dag_run_id": "c", "logical_date": "2024-02-01T00:00:00+00:00"}`)
			awaitTriesEnded(t, ts.store, "fields_controller", "c", "plain", "templated", "dated")
			for task, want := range tc.want {
				path := "/dags/fields_controller/dagRuns/c/taskInstances/" + task + "/links"
				res := getEdition(t, ts, path)
				var got struct {
					ExtraLinks map[string]any `json:"extra_links"`
				}
				links := map[string]any{}
				if tc.edition == edition3 {
					if err := json.Unmarshal([]byte(res.body), &got); err != nil {
						t.Fatalf("%s: %v: %s", task, err, res.body)
					}
					links = got.ExtraLinks
				} else if err := json.Unmarshal([]byte(res.body), &links); err != nil {
					t.Fatalf("%s: %v: %s", task, err, res.body)
				}
				if len(links) != 1 || links["Triggered DAG"] != want {
					t.Errorf("%s links = %s, want Triggered DAG %q", task, res.body, want)
				}
			}
		})
	}
}

// TestPlanOperatorTrigger_ConfRenderedOnce: the operator's conf is
// rendered once, so the run gets the conf its rendered field shows (each
// render reads the store's variables again).
func TestPlanOperatorTrigger_ConfRenderedOnce(t *testing.T) {
	t.Parallel()
	reads := 0
	variables := func(key string) (string, bool) {
		reads++
		return "value-" + key, true
	}
	task := &Task{TaskID: "trigger"}
	dag := &DAG{DagID: "d", Tasks: []*Task{task}}
	run := &DagRun{DagID: "d", RunID: "r1", ExecutionDate: testNow, RunType: "manual"}
	rules := edition2.rules()
	tc := templateContext{dag: dag, task: task, run: run, try: 1, rules: rules, variables: variables}
	s := &scheduler{opts: schedulerOptions{Now: func() time.Time { return testNow }}, rules: rules}
	args := &TriggerDagRunArgs{DagID: "target", Conf: json.RawMessage(`{"k": "{{ var.value.colour }}"}`)}
	plan, err := s.planOperatorTrigger(tc, args)
	if err != nil {
		t.Fatal(err)
	}
	if string(plan.conf) != `{"k":"value-colour"}` {
		t.Errorf("conf %s, want the variable's value", plan.conf)
	}
	if got := fmt.Sprint(plan.rendered["conf"]); got != "map[k:value-colour]" {
		t.Errorf("rendered conf %s, want the variable's value", got)
	}
	if reads != 1 {
		t.Errorf("the conf's template read the variable %d times, want once", reads)
	}
}

// TestOperatorConf_StoredAsTheAPIsStoreIt: a TriggerDagRunOperator's
// rendered conf is stored as the API triggers store a conf (compactConf):
// compact JSON, within maxConfBytes, so that a template cannot store a
// run conf larger than any trigger may; an empty object is no conf.
func TestOperatorConf_StoredAsTheAPIsStoreIt(t *testing.T) {
	t.Parallel()
	big := `{"k": "` + strings.Repeat("x", maxConfBytes) + `"}`
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"object compacted", `{ "a" : [1, 2] }`, `{"a":[1,2]}`, ""},
		{"string holding an object", `"{ \"a\": 1 }"`, `{"a":1}`, ""},
		{"empty object is none", `{}`, "", ""},
		{"too large", big, "", "conf is too large"},
		{"not an object", `[1]`, "", "JSON Serializable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := operatorConf(json.RawMessage(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("operatorConf(%.40s) error %v, want one with %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("operatorConf(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}
