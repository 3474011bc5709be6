package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// mappingRun triggers a DAG of an edition 2 folder and runs it to its end
// with the real task runner.
func mappingRun(t *testing.T, set *DAGSet, dagID string) (*Store, string) {
	t.Helper()
	return runPyDAG(t, set, edition2, dagID)
}

// runPyDAG triggers a DAG of a Python folder and runs it to its end with
// the real task runner, in edition e.
func runPyDAG(t *testing.T, set *DAGSet, e edition, dagID string) (*Store, string) {
	t.Helper()
	store, api, settle := newRealScheduler(t, set, e)
	if err := store.SetPaused(dagID, false, false); err != nil {
		t.Fatal(err)
	}
	res, err := api.TriggerDAG(dagID, []byte(fmt.Sprintf(`{"execution_date": %q}`, isoFormat(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)))))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle(dagID, runID)
	finishedRun(t, store, dagID, runID)
	return store, runID
}

// rowsByTask are a run's task instances by task_id, each task's by
// map_index.
func rowsByTask(t *testing.T, store *Store, dagID, runID string) map[string][]*TaskInstance {
	t.Helper()
	tis, err := store.TaskInstancesOfRun(dagID, runID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*TaskInstance{}
	for _, ti := range tis {
		out[ti.TaskID] = append(out[ti.TaskID], ti)
	}
	return out
}

// mappedXCom is the JSON return value of one instance of a mapped task.
func mappedXCom(t *testing.T, store *Store, dagID, runID, taskID string, mapIndex int) string {
	t.Helper()
	e, err := store.XCom(dagID, runID, taskID, xcomReturnKey, mapIndex)
	if err != nil {
		return ""
	}
	return string(e.Value)
}

// TestMapping_ExpandsAtRunTime: each mapped task runs one instance per
// element, map_index 0..n-1, each pushing its own return value; a task
// fed by a mapped one gets the list of their values (Airflow's
// LazyXComSequence); an empty expansion skips the task and what follows
// it by all_success. Each instance is a task instance of its own, as
// Airflow's expand_mapped_task makes them: map_index 0..n-1 take the place
// of the task's map_index -1 one.
func TestMapping_ExpandsAtRunTime(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/mapping")
	store, runID := mappingRun(t, set, "py_map")
	byID := rowsByTask(t, store, "py_map", runID)
	cases := []struct {
		task   string
		values []string // each instance's return value, by map_index
		reduce string   // the downstream task fed by it, and its value
		want   string
	}{
		{"square", []string{"1", "4", "9"}, "total", "14"},
		{"pair", []string{`"x!"`, `"y!"`}, "pairs", `["x!", "y!"]`},
		{"cross", []string{`"1a"`, `"1b"`, `"1c"`, `"2a"`, `"2b"`, `"2c"`}, "crossed", `["1a", "1b", "1c", "2a", "2b", "2c"]`},
		{"item", []string{`"k=1"`, `"j=2"`}, "items", `["j=2", "k=1"]`},
		{"adds", []string{"3", "30"}, "", ""},
	}
	for _, c := range cases {
		rows := byID[c.task]
		if len(rows) != len(c.values) {
			t.Errorf("%s has %d task instances, want %d", c.task, len(rows), len(c.values))
			continue
		}
		for i, want := range c.values {
			if ti := rows[i]; ti.MapIndex != i || ti.State != TaskSuccess || ti.TryNumber != 1 {
				t.Errorf("%s[%d] = map_index %d, %q, try %d; want map_index %d, success, try 1", c.task, i, ti.MapIndex, ti.State, ti.TryNumber, i)
			}
			if got := mappedXCom(t, store, "py_map", runID, c.task, i); got != want {
				t.Errorf("%s[%d] pushed %s, want %s", c.task, i, got, want)
			}
		}
		if got := mappedXCom(t, store, "py_map", runID, c.task, -1); got != "" {
			t.Errorf("%s pushed %s under map_index -1, want nothing", c.task, got)
		}
		if c.reduce != "" {
			if got := mappedXCom(t, store, "py_map", runID, c.reduce, -1); got != c.want {
				t.Errorf("%s pushed %s, want %s", c.reduce, got, c.want)
			}
		}
	}
	// map_index_template, rendered with the instance's context when Jinja
	// is importable (else None, as a template airlite cannot render).
	if rendered := byID["square"][1].RenderedMapIndex; rendered != nil && *rendered != "2" {
		t.Errorf("square[1] rendered_map_index = %q, want 2", *rendered)
	}
	// A length of 0 skips the map_index -1 task instance (2.10.3
	// abstractoperator.py expand_mapped_task:634-642), which stays.
	if rows := byID["never"]; len(rows) != 1 || rows[0].MapIndex != -1 || rows[0].State != TaskSkipped {
		t.Errorf("never (expanded over []) = %d task instances, first %+v; want one, map_index -1, skipped", len(rows), rows[0])
	}
	// Airflow writes that state straight into the row: no dates, where
	// the trigger rule's skip of after_empty goes through set_state.
	if never := byID["never"][0]; never.StartDate != nil || never.EndDate != nil || never.Duration != nil {
		t.Errorf("never's dates %v, %v, %v: want none", never.StartDate, never.EndDate, never.Duration)
	}
	if ti := byID["after_empty"][0]; ti.State != TaskSkipped {
		t.Errorf("after_empty = %q, want skipped (its upstream skipped)", ti.State)
	} else if ti.StartDate == nil || ti.EndDate == nil {
		t.Errorf("after_empty's dates %v, %v: want both (set_state)", ti.StartDate, ti.EndDate)
	}
}

// TestMapping_TriggerRulesCountInstances: a downstream task counts each
// mapped instance, as Airflow's trigger_rule_dep counts task instances:
// one failed instance of three fails all_success, meets one_success and
// all_done; the mapped task instance itself ends failed.
func TestMapping_TriggerRulesCountInstances(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/mapping")
	store, runID := mappingRun(t, set, "py_map_fail")
	byID := rowsByTask(t, store, "py_map_fail", runID)
	want := map[string]TaskState{"one_ok": TaskSuccess, "all_ok": TaskUpstreamFailed, "done": TaskSuccess}
	for id, st := range want {
		if rows := byID[id]; len(rows) != 1 || rows[0].State != st {
			t.Errorf("%s = %+v, want one task instance, %q", id, rows, st)
		}
	}
	var got []TaskState
	for _, ti := range byID["maybe"] {
		got = append(got, ti.State)
	}
	if !slices.Equal(got, []TaskState{TaskSuccess, TaskFailed, TaskSuccess}) {
		t.Errorf("maybe's instances = %v, want success, failed, success", got)
	}
	if v := mappedXCom(t, store, "py_map_fail", runID, "maybe", 2); v != "3" {
		t.Errorf("maybe[2] pushed %q, want 3", v)
	}
}

func TestParseTaskMapping(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw string
		want      []mappedArg
		wantErr   bool
	}{
		{"literals in written order", `{"type": "dict-of-lists", "value": {"b": [1, 2], "a": {"__var": {"k": 1}, "__type": "dict"}}}`,
			[]mappedArg{{Name: "b", Literal: true, Length: 2}, {Name: "a", Literal: true, Length: 1}}, false},
		{"an upstream's xcom", `{"type": "dict-of-lists", "value": {"x": {"__type": "xcomref", "__var": {"task_id": "up", "key": "return_value"}}}}`,
			[]mappedArg{{Name: "x", Ref: xcomRef{TaskID: "up", Key: "return_value"}}}, false},
		{"expand_kwargs", `{"type": "list-of-dicts", "value": [{"__var": {"a": 1}, "__type": "dict"}]}`,
			[]mappedArg{{Literal: true, Length: 1}}, false},
		{"not mappable", `{"type": "dict-of-lists", "value": {"x": 3}}`, nil, true},
		{"unknown type", `{"type": "other", "value": {}}`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := parseTaskMapping(json.RawMessage(c.raw))
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				return
			}
			if len(m.Args) != len(c.want) {
				t.Fatalf("args = %+v, want %+v", m.Args, c.want)
			}
			for i, a := range m.Args {
				w := c.want[i]
				if a.Name != w.Name || a.Literal != w.Literal || a.Length != w.Length || a.Ref != w.Ref {
					t.Errorf("arg %d = %+v, want %+v", i, a, w)
				}
			}
		})
	}
}

// TestServerV1_MappedTaskInstancesExpanded: the stable API shows a mapped task's
// instances as Airflow does: listMapped by map_index with their states,
// each instance at …/{map_index}; a task that
// is not mapped is a 404 naming why, and a mapped task expanded into
// nothing an empty list.
func TestServerV1_MappedTaskInstancesExpanded(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := servePyFolder(t, "testdata/pydags/mapping")
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition2, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 16, Unixname: "tester"})
	t.Cleanup(sched.stop)
	for _, id := range []string{"py_map", "py_map_fail"} {
		if err := ts.store.SetPaused(id, false, false); err != nil {
			t.Fatal(err)
		}
		res := ts.v1(t, http.MethodPost, "/dags/"+id+"/dagRuns", `{"dag_run_id": "r1"}`)
		if res.status != http.StatusOK {
			t.Fatalf("trigger %s: %d %s", id, res.status, res.body)
		}
		settleUntil(t, sched, time.Now, func() bool {
			run, err := ts.store.RunByRunID(id, "r1")
			return err == nil && run.State.Finished()
		})
	}
	base := "/dags/py_map_fail/dagRuns/r1/taskInstances/maybe"
	list := ts.v1JSON(t, doc, base+"/listMapped")
	rows, _ := list["task_instances"].([]any)
	if list["total_entries"] != float64(3) || len(rows) != 3 {
		t.Fatalf("listMapped = %v, want 3 instances", list)
	}
	for i, want := range []string{"success", "failed", "success"} {
		row := rows[i].(map[string]any)
		if row["map_index"] != float64(i) || row["state"] != want || row["task_id"] != "maybe" || row["try_number"] != float64(1) {
			t.Errorf("instance %d = %v, want map_index %d, %s, try 1", i, row, i, want)
		}
	}
	failed := ts.v1JSON(t, doc, base+"/listMapped?state=failed&order_by=-map_index")
	if failed["total_entries"] != float64(1) {
		t.Errorf("listMapped?state=failed = %v, want the one failed instance", failed)
	}
	tries := ts.v1JSON(t, doc, base+"/1/tries")
	if rows, _ := tries["task_instances"].([]any); len(rows) != 1 || rows[0].(map[string]any)["map_index"] != float64(1) ||
		rows[0].(map[string]any)["state"] != "failed" {
		t.Errorf("GET …/maybe/1/tries = %v, want its one try, failed, map_index 1", tries)
	}
	if try := ts.v1JSON(t, doc, base+"/1/tries/1"); try["map_index"] != float64(1) || try["try_number"] != float64(1) {
		t.Errorf("GET …/maybe/1/tries/1 = %v, want map_index 1, try 1", try)
	}
	one := ts.v1JSON(t, doc, base+"/2")
	if one["map_index"] != float64(2) || one["state"] != "success" {
		t.Errorf("GET …/maybe/2 = %v, want map_index 2, success", one)
	}
	square := ts.v1JSON(t, doc, "/dags/py_map/dagRuns/r1/taskInstances/square/1")
	if r, ok := square["rendered_map_index"]; ok && r != nil && r != "2" {
		t.Errorf("square/1 rendered_map_index = %v, want 2 (map_index_template)", r)
	}
	cases := []struct {
		path, title string
		status      int
	}{
		{base + "/3", "Task instance not found", http.StatusNotFound},
		{base, "Task instance not found", http.StatusNotFound},
		{"/dags/py_map_fail/dagRuns/r1/taskInstances/all_ok/listMapped", "Task id all_ok is not mapped", http.StatusNotFound},
		{"/dags/py_map_fail/dagRuns/r1/taskInstances/nope/listMapped", "Task id nope not found", http.StatusNotFound},
		{"/dags/py_map/dagRuns/r1/taskInstances/never/listMapped", "", http.StatusOK},
	}
	if res := ts.v1(t, http.MethodGet, base, ""); !strings.Contains(res.body, "Task instance is mapped, add the map_index value to the URL") {
		t.Errorf("GET %s = %s, want the detail naming the map index", base, res.body)
	}
	for _, c := range cases {
		res := ts.v1(t, http.MethodGet, c.path, "")
		if res.status != c.status || (c.title != "" && !strings.Contains(res.body, `"title": "`+c.title+`"`)) {
			t.Errorf("GET %s = %d %s, want %d %q", c.path, res.status, res.body, c.status, c.title)
		}
	}
}

// TestMapping_XComPullOfMappedTask: ti.xcom_pull of a mapped task gives
// its instances' values in map_index order, map_indexes picks some (in
// its order), as
// Airflow 2.10.3's _xcom_pull does.
func TestMapping_XComPullOfMappedTask(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/mapping")
	store, runID := mappingRun(t, set, "py_map_pull")
	got := mappedXCom(t, store, "py_map_pull", runID, "puller", -1)
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		log, _ := store.TaskLogOf(tiKey{"py_map_pull", runID, "puller", -1})
		t.Fatalf("puller pushed %q: %v; its task instances %v, log %+v", got, err, rowsByTask(t, store, "py_map_pull", runID)["puller"], log)
	}
	// map_indexes [2, 0]: in that order (2.10.3 _xcom_pull's case ordering).
	want := map[string]string{"all": "[10 20 30]", "one": "20", "some": "[30 10]"}
	for k, w := range want {
		if g := fmt.Sprint(v[k]); g != w {
			t.Errorf("%s = %s, want %s", k, g, w)
		}
	}
}

// BenchmarkMapping_TenInstances runs a mapped @task of ten elements, from
// trigger to the run's end (each instance a python3 process):
// go test -run '^$' -bench BenchmarkMapping_TenInstances -benchtime 3x .
func BenchmarkMapping_TenInstances(b *testing.B) {
	needPython(b)
	abs, err := filepath.Abs("testdata/pydags/mapping")
	if err != nil {
		b.Fatal(err)
	}
	logger := zerolog.Nop()
	set, err := loadDAGSet(context.Background(), abs, edition2, logger)
	if err != nil {
		b.Fatal(err)
	}
	vars, err := newStore()
	if err != nil {
		b.Fatal(err)
	}
	if err := readPythonDAGs(context.Background(), config{DagsDir: abs, Edition: edition2, Python: "python3"}, vars, set, logger); err != nil {
		b.Fatal(err)
	}
	store := storeWith(b, set)
	if err := store.SetPaused("py_map_ten", false, false); err != nil {
		b.Fatal(err)
	}
	sched := newScheduler(schedulerOptions{Store: store, Edition: edition2, Logger: logger, Now: time.Now, Parallelism: 16, Unixname: "bench"})
	defer sched.stop()
	api := newAirflowAPI(&operations{store: store, edition: edition2, now: time.Now, unixname: "bench", kick: sched.Kick})
	b.ResetTimer()
	for i := range b.N {
		// A date of its own: runs triggered within one second would share
		// the logical date now gives them.
		date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i)
		res, err := api.TriggerDAG("py_map_ten", []byte(fmt.Sprintf(`{"run_id": "r%d", "execution_date": %q}`, i, isoFormat(date))))
		if err != nil {
			b.Fatal(err)
		}
		runID := res["run_id"].(string)
		for {
			if err := sched.tick(time.Now()); err != nil {
				b.Fatal(err)
			}
			for _, rt := range sched.running() {
				<-rt.done
			}
			if run, err := store.RunByRunID("py_map_ten", runID); err == nil && run.State.Finished() {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/10, "ms/instance")
}

// TestMapping_RetryRunsFailedInstancesOnly: each of Airflow's mapped task
// instances retries on its own: the one that failed runs again, the
// others keep their try and their values.
func TestMapping_RetryRunsFailedInstancesOnly(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/mapping")
	store := storeWith(t, set)
	sched := newScheduler(schedulerOptions{Store: store, Edition: edition2, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 16, Unixname: "tester"})
	t.Cleanup(sched.stop)
	if err := store.SetPaused("py_map_retry", false, false); err != nil {
		t.Fatal(err)
	}
	api := newAirflowAPI(&operations{store: store, edition: edition2, now: time.Now, unixname: "tester", kick: sched.Kick})
	res, err := api.TriggerDAG("py_map_retry", []byte(`{"run_id": "r1"}`))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	for range 50 {
		settleUntil(t, sched, time.Now, func() bool {
			run, err := store.RunByRunID("py_map_retry", runID)
			return err == nil && run.State.Finished()
		})
		if run, _ := store.RunByRunID("py_map_retry", runID); run.State.Finished() {
			break
		}
	}
	if run := finishedRun(t, store, "py_map_retry", runID); run.State != RunSuccess {
		t.Errorf("run ended %q, want success after the retry", run.State)
	}
	var tries []int
	for _, ti := range rowsByTask(t, store, "py_map_retry", runID)["flaky"] {
		tries = append(tries, ti.TryNumber)
		if ti.State != TaskSuccess {
			t.Errorf("flaky[%d] = %q, want success", ti.MapIndex, ti.State)
		}
	}
	if !slices.Equal(tries, []int{1, 2, 1}) {
		t.Errorf("flaky: instances' tries %v; want [1 2 1]", tries)
	}
	// The retried instance's first try is in its own history.
	if earlier, _, err := store.EarlierTries("py_map_retry", runID, "flaky", 1); err != nil || len(earlier) != 1 ||
		earlier[0].State != TaskFailed || earlier[0].MapIndex != 1 {
		t.Errorf("flaky[1]'s earlier tries = %+v (%v), want its failed first try", earlier, err)
	}
	if got := mappedXCom(t, store, "py_map_retry", runID, "gather", -1); got != "[1, 2, 3]" {
		t.Errorf("gather pushed %s, want every instance's value, kept ones included", got)
	}
}

// TestMapping_OtherOperatorsSimulatedPerInstance: a mapped operator other
// than a Python callable (its elements live in Python only) expands too,
// each instance simulated.
func TestMapping_OtherOperatorsSimulatedPerInstance(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/mapping")
	store, runID := mappingRun(t, set, "py_map_bash")
	byID := rowsByTask(t, store, "py_map_bash", runID)
	for task, n := range map[string]int{"echo": 2, "nothing": 3} {
		rows := byID[task]
		if len(rows) != n {
			t.Errorf("%s has %d task instances, want %d", task, len(rows), n)
		}
		for _, ti := range rows {
			if ti.State != TaskSuccess {
				t.Errorf("%s[%d] = %q, want success", task, ti.MapIndex, ti.State)
			}
		}
	}
	for i := range 2 {
		l, err := store.TaskLogOf(tiKey{"py_map_bash", runID, "echo", i})
		if err != nil || l == nil || !strings.Contains(l.Tries[0].Output, "simulated BashOperator") {
			t.Errorf("echo[%d]'s log does not say it was simulated: %+v (%v)", i, l, err)
		}
	}
}
