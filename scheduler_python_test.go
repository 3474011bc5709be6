package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"
)

// The runtime DAGs of testdata/pytasks/flows.py and legacy.py, task for
// task and edge for edge, until the Python front end builds them: each
// task carries PythonCallable, as the builder sets it.
const pyTasksYAML = `
dag_id: py_xcom
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: produce, operator: PythonOperator, downstream: [total]}
  - {task_id: total, operator: PythonOperator}
  - {task_id: templated, operator: PythonOperator}
  - {task_id: signature, operator: PythonOperator, params: {p: 1}}
  - {task_id: only_ds, operator: PythonOperator}
  - {task_id: push_extra, operator: PythonOperator}
---
dag_id: py_outcomes
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: crash, operator: PythonOperator}
  - {task_id: flaky, operator: PythonOperator, retries: 1, retry_delay: 0s}
  - {task_id: skipper, operator: PythonOperator}
  - {task_id: fatal, operator: PythonOperator, retries: 3, retry_delay: 0s}
---
dag_id: py_branch
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: choose, operator: PythonOperator, downstream: [left, right, join]}
  - {task_id: left, operator: PythonOperator, downstream: [join]}
  - {task_id: right, operator: PythonOperator, downstream: [join]}
  - {task_id: join, operator: PythonOperator, trigger_rule: none_failed_min_one_success}
  - {task_id: classic, operator: PythonOperator, downstream: [up, down]}
  - {task_id: up, operator: PythonOperator}
  - {task_id: down, operator: PythonOperator}
---
dag_id: py_short
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: gate, operator: PythonOperator, downstream: [after]}
  - {task_id: after, operator: PythonOperator, downstream: [further]}
  - {task_id: further, operator: PythonOperator}
  - {task_id: open_gate, operator: PythonOperator, downstream: [behind]}
  - {task_id: behind, operator: PythonOperator}
---
dag_id: py_sleep
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: sleeper, operator: PythonOperator}
---
dag_id: py_fast
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: quick, operator: PythonOperator}
`

const pyLegacyYAML = `
dag_id: py_legacy
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: with_context, operator: PythonOperator}
  - {task_id: without_context, operator: PythonOperator}
  - {task_id: branch, operator: PythonOperator, downstream: [kept, gone]}
  - {task_id: kept, operator: PythonOperator}
  - {task_id: gone, operator: PythonOperator}
`

// needPython skips a test only when no python3 is on PATH.
func needPython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
}

// pyHarness is a store and a scheduler that runs the real operators, on a
// clock that moves only when told; tries are real processes, so it waits
// for them in real time instead of in a synctest bubble.
type pyHarness struct {
	t     *testing.T
	store *Store
	sched *scheduler
	clock *testClock
	api   *airflowAPI
}

func newPyHarness(t *testing.T, e edition, pyFile string, docs ...string) *pyHarness {
	t.Helper()
	needPython(t)
	fsys := fstest.MapFS{}
	for i, doc := range docs {
		for j, part := range strings.Split(doc, "\n---\n") {
			fsys["d"+strconv.Itoa(i)+"_"+strconv.Itoa(j)+".yaml"] = &fstest.MapFile{Data: []byte(part)}
		}
	}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		t.Fatalf("load dags: %v", err)
	}
	folder, err := filepath.Abs("testdata/pytasks")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dags.DAGs {
		for _, task := range d.Tasks {
			task.PythonCallable = &PythonCallable{File: filepath.Join(folder, pyFile), Folder: folder}
		}
	}
	store := storeWith(t, dags)
	clock := &testClock{t: schedEpoch}
	sched := newScheduler(schedulerOptions{Store: store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 8, Unixname: "tester", Hostname: "host"})
	t.Cleanup(sched.stop)
	api := newAirflowAPI(&operations{store: store, edition: e, now: clock.Now, unixname: "tester", kick: sched.Kick})
	return &pyHarness{t: t, store: store, sched: sched, clock: clock, api: api}
}

func (h *pyHarness) running() int {
	h.sched.mu.Lock()
	defer h.sched.mu.Unlock()
	return len(h.sched.tasks)
}

// settle runs passes, each waiting for the tries it launched, until the
// store stops changing.
func (h *pyHarness) settle() {
	h.t.Helper()
	for range 60 {
		before := h.store.ChangeIndex()
		if err := h.sched.tick(h.clock.Now()); err != nil {
			h.t.Fatalf("tick: %v", err)
		}
		if !pollUntil(60*time.Second, func() bool { return h.running() == 0 }) {
			h.t.Fatal("tries still running after a minute")
		}
		if h.store.ChangeIndex() == before {
			return
		}
		h.clock.Advance(time.Second)
	}
	h.t.Fatal("scheduler did not settle")
}

func (h *pyHarness) trigger(dagID, body string) string {
	h.t.Helper()
	res, err := h.api.TriggerDAG(dagID, []byte(body))
	if err != nil {
		h.t.Fatalf("trigger %s: %v", dagID, err)
	}
	return res["run_id"].(string)
}

func (h *pyHarness) states(dagID, runID string) map[string]TaskState {
	h.t.Helper()
	tis, err := h.store.TaskInstancesOfRun(dagID, runID)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]TaskState{}
	for _, ti := range tis {
		out[ti.TaskID] = ti.State
	}
	return out
}

// xcom is the stored JSON of one entry, "" when there is none.
func (h *pyHarness) xcom(dagID, runID, taskID, key string) string {
	h.t.Helper()
	e, err := h.store.XCom(dagID, runID, taskID, key, -1)
	if err != nil {
		return ""
	}
	return string(e.Value)
}

// log is every try's output of a task instance.
func (h *pyHarness) log(dagID, runID, taskID string) string {
	h.t.Helper()
	logs, err := h.store.TaskLogsOfRun(dagID, runID)
	if err != nil {
		h.t.Fatal(err)
	}
	var b strings.Builder
	if l := logs[taskID]; l != nil {
		for _, try := range l.Tries {
			b.WriteString(try.Output)
		}
	}
	return b.String()
}

func wantStates(t *testing.T, got, want map[string]TaskState) {
	t.Helper()
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s is %q, want %q (all: %v)", id, got[id], st, got)
		}
	}
}

// Return values become return_value rows (multiple_outputs: one row per
// key as well); TaskFlow arguments come from the upstream XComs;
// ti.xcom_pull and Variable.get reach the store over the channel;
// op_args/op_kwargs are rendered; the context is passed by signature; a
// hostile conf value arrives as data.
func TestPythonTask_XComsContextAndTemplates(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	if _, err := h.store.SetVariable("greeting", "hello", nil); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	hostile := `{{ 7*7 }}'"; __import__('os').system('touch ` + marker + `') #` + "\u2028\x00"
	conf, _ := json.Marshal(map[string]any{"hostile": hostile})
	runID := h.trigger("py_xcom", `{"execution_date": "2024-01-02T00:00:00+00:00", "conf": `+string(conf)+`}`)
	h.settle()
	wantStates(t, h.states("py_xcom", runID), map[string]TaskState{"produce": TaskSuccess, "total": TaskSuccess,
		"templated": TaskSuccess, "signature": TaskSuccess, "only_ds": TaskSuccess, "push_extra": TaskSuccess})

	for _, c := range []struct{ task, key, want string }{
		{"produce", "return_value", `{"a": 1, "b": "two"}`},
		{"produce", "a", `1`},
		{"produce", "b", `"two"`},
		{"total", "return_value", `{"sum": 4, "pulled": 1, "whole": [{"a": 1, "b": "two"}], "var": "hello", "missing": "fallback", "ds": "2024-01-02", "shout": "HI!"}`},
		{"only_ds", "return_value", `"2024-01-02"`},
		{"push_extra", "extra", `[1, 2]`},
		{"push_extra", "return_value", ``}, // None is not pushed
	} {
		if got := h.xcom("py_xcom", runID, c.task, c.key); got != c.want {
			t.Errorf("xcom %s/%s = %s, want %s", c.task, c.key, got, c.want)
		}
	}
	var templated map[string]any
	if err := json.Unmarshal([]byte(h.xcom("py_xcom", runID, "templated", "return_value")), &templated); err != nil {
		t.Fatalf("templated: %v", err)
	}
	want := map[string]any{"day": "2024-01-02", "hostile": hostile, "run": runID, "conf": hostile,
		"params_conf": hostile, "has_ti": true, "task_id": "templated"}
	for k, v := range want {
		if templated[k] != v {
			t.Errorf("templated[%s] = %#v, want %#v", k, templated[k], v)
		}
	}
	ti, err := h.store.TaskInstance("py_xcom", runID, "templated")
	if err != nil {
		t.Fatal(err)
	}
	if args, _ := ti.Rendered["op_args"].([]any); len(args) != 2 || args[0] != "2024-01-02" || args[1] != hostile ||
		ti.Rendered["op_kwargs"].(map[string]any)["run"] != runID || ti.Rendered["templates_dict"] != nil {
		t.Errorf("templated's rendered fields %#v", ti.Rendered)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the conf value ran as code")
	}
	var sig map[string]any
	if err := json.Unmarshal([]byte(h.xcom("py_xcom", runID, "signature", "return_value")), &sig); err != nil {
		t.Fatalf("signature: %v", err)
	}
	if sig["ds"] != "2024-01-02" || sig["logical_date"] != "2024-01-02T00:00:00+00:00" || sig["run_id"] != runID ||
		sig["try"] != 1.0 || sig["params"].(map[string]any)["p"] != 1.0 ||
		sig["templates_dict"].(map[string]any)["when"] != "20240102" {
		t.Errorf("signature got %v", sig)
	}
	if log := h.log("py_xcom", runID, "produce"); !strings.Contains(log, "producing\n") {
		t.Errorf("produce's log lacks what it printed:\n%s", log)
	}
}

// An exception fails the try with its traceback in the log, and retries
// apply; AirflowSkipException skips; AirflowFailException fails without
// the retries left.
func TestPythonTask_Outcomes(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	runID := h.trigger("py_outcomes", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
	h.settle()
	wantStates(t, h.states("py_outcomes", runID), map[string]TaskState{
		"flaky": TaskSuccess, "skipper": TaskSkipped, "fatal": TaskFailed, "crash": TaskFailed})
	if log := h.log("py_outcomes", runID, "crash"); !strings.Contains(log, "about to vanish\n") ||
		!strings.Contains(log, "python task process ended without a result (exit status 3)") {
		t.Errorf("crash's log:\n%s", log)
	}
	flaky := h.log("py_outcomes", runID, "flaky")
	for _, want := range []string{"Traceback (most recent call last):", `raise ValueError("boom on try %d" % ti.try_number)`,
		"ValueError: boom on try 1", "try 2\n"} {
		if !strings.Contains(flaky, want) {
			t.Errorf("flaky's log lacks %q:\n%s", want, flaky)
		}
	}
	if got := h.xcom("py_outcomes", runID, "flaky", "return_value"); got != `"ok on try 2"` {
		t.Errorf("flaky's return value %s", got)
	}
	ti, err := h.store.TaskInstance("py_outcomes", runID, "fatal")
	if err != nil {
		t.Fatal(err)
	}
	if ti.TryNumber != 1 {
		t.Errorf("fatal ran %d tries, want 1 (no retry)", ti.TryNumber)
	}
	if log := h.log("py_outcomes", runID, "fatal"); !strings.Contains(log, "AirflowFailException: no point retrying") {
		t.Errorf("fatal's log:\n%s", log)
	}
	if log := h.log("py_outcomes", runID, "skipper"); !strings.Contains(log, "nothing to do") {
		t.Errorf("skipper's log:\n%s", log)
	}
}

// A branch skips the direct downstream tasks it does not follow, but not
// one downstream of a followed task (Airflow 2's join); a short circuit's
// falsy result skips everything downstream.
func TestPythonTask_BranchAndShortCircuit(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	for _, way := range []string{"left", "right"} {
		runID := h.trigger("py_branch", `{"execution_date": "2024-01-0`+map[string]string{"left": "2", "right": "3"}[way]+
			`T00:00:00+00:00", "conf": {"way": "`+way+`"}}`)
		h.settle()
		other := map[string]string{"left": "right", "right": "left"}[way]
		wantStates(t, h.states("py_branch", runID), map[string]TaskState{"choose": TaskSuccess, way: TaskSuccess,
			other: TaskSkipped, "join": TaskSuccess, "classic": TaskSuccess, "up": TaskSuccess, "down": TaskSkipped})
		if got := h.xcom("py_branch", runID, "choose", "return_value"); got != `"`+way+`"` {
			t.Errorf("choose pushed %s", got)
		}
	}
	runID := h.trigger("py_short", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
	h.settle()
	wantStates(t, h.states("py_short", runID), map[string]TaskState{"gate": TaskSuccess, "after": TaskSkipped,
		"further": TaskSkipped, "open_gate": TaskSuccess, "behind": TaskSuccess})
	if got := h.xcom("py_short", runID, "gate", "return_value"); got != `0` {
		t.Errorf("gate pushed %q, want its condition", got)
	}
}

// Edition 1.10: the context only with provide_context; a branch's choice
// is not pushed.
func TestPythonTask_Edition110(t *testing.T) {
	h := newPyHarness(t, edition110, "legacy.py", pyLegacyYAML)
	runID := h.trigger("py_legacy", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
	h.settle()
	wantStates(t, h.states("py_legacy", runID), map[string]TaskState{"with_context": TaskSuccess,
		"without_context": TaskSuccess, "branch": TaskSuccess, "kept": TaskSuccess, "gone": TaskSkipped})
	if got := h.xcom("py_legacy", runID, "with_context", "return_value"); got != `"day 20240102 2024-01-02 with_context"` {
		t.Errorf("with_context pushed %s", got)
	}
	if got := h.xcom("py_legacy", runID, "without_context", "return_value"); got != `{"double": 42, "has_context": false}` {
		t.Errorf("without_context pushed %s", got)
	}
	if got := h.xcom("py_legacy", runID, "branch", "return_value"); got != "" {
		t.Errorf("branch pushed %s, want nothing", got)
	}
}

// A stop, and an execution timeout, end the try's whole process group:
// the callable's process and the one it started.
func TestPythonTask_StopEndsProcessGroup(t *testing.T) {
	needPython(t)
	for _, how := range []string{"stop", "execution_timeout"} {
		t.Run(how, func(t *testing.T) {
			h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
			row, err := h.store.DagByID("py_sleep")
			if err != nil {
				t.Fatal(err)
			}
			dag := row.Def
			task := *dag.Task("sleeper")
			pidFile := filepath.Join(t.TempDir(), "pids")
			task.Params = map[string]any{"pid_file": pidFile}
			run := DagRun{ID: 1, DagID: "py_sleep", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if how == "execution_timeout" {
				task.ExecutionTimeout = 5 * time.Second
			}
			done := make(chan taskOutcome, 1)
			go func() {
				done <- h.sched.runOperator(ctx, taskJob{key: tiKey{"py_sleep", "r", "sleeper", -1}, try: 1, dag: dag, task: &task, run: run})
			}()
			pids := awaitPIDs(t, pidFile)
			if how == "stop" {
				cancel(errTaskStopped)
			}
			out := <-done
			if out.state != TaskFailed || !strings.HasPrefix(out.reason, "killed: ") {
				t.Errorf("outcome %s (%s), want failed, killed", out.state, out.reason)
			}
			for _, pid := range pids {
				if !pollUntil(5*time.Second, func() bool {
					st, ok := readProcStat(pid)
					return !ok || st.state == 'Z'
				}) {
					t.Errorf("process %d still runs", pid)
					_ = killPID(pid)
				}
			}
		})
	}
}

// The reader's serialized tasks say which tasks' callables airlite runs.
func TestPythonCallableOperator_FromSerializedTasks(t *testing.T) {
	needPython(t)
	folder, _ := filepath.Abs("testdata/pytasks")
	r := pythonReader{Edition: "2", Logger: zerolog.Nop()}
	res, err := r.ReadFolder(context.Background(), folder, []string{filepath.Join(folder, "flows.py")})
	if err != nil || len(res) != 1 || res[0].ImportError != nil {
		t.Fatalf("read flows.py: %v %+v", err, res)
	}
	runs := map[string]bool{}
	for _, d := range res[0].DAGs {
		for i := range d.Tasks {
			runs[d.DagID+"."+d.Tasks[i].TaskID] = pythonCallableOperator(&d.Tasks[i])
		}
	}
	for _, id := range []string{"py_xcom.produce", "py_xcom.templated", "py_branch.choose", "py_branch.classic",
		"py_short.gate", "py_short.open_gate"} {
		if !runs[id] {
			t.Errorf("%s is not run (all: %v)", id, runs)
		}
	}
}

// BenchmarkPythonTask_LaunchToCallable measures a try from its launch
// (runOperator called) to its callable running: the callable returns
// time.time() when it runs, compared with the launch.
//
//	go test -run '^$' -bench BenchmarkPythonTask -benchtime 20x .
func BenchmarkPythonTask_LaunchToCallable(b *testing.B) {
	needPython(b)
	fsys := fstest.MapFS{}
	for j, part := range strings.Split(pyTasksYAML, "\n---\n") {
		fsys["d"+strconv.Itoa(j)+".yaml"] = &fstest.MapFile{Data: []byte(part)}
	}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		b.Fatal(err)
	}
	folder, _ := filepath.Abs("testdata/pytasks")
	var dag *DAG
	for _, d := range dags.DAGs {
		for _, task := range d.Tasks {
			task.PythonCallable = &PythonCallable{File: filepath.Join(folder, "flows.py"), Folder: folder}
		}
		if d.DagID == "py_fast" {
			dag = d
		}
	}
	store := storeWith(b, dags)
	sched := newScheduler(schedulerOptions{Store: store, Edition: edition2, Logger: zerolog.Nop(), Parallelism: 1})
	b.Cleanup(sched.stop)
	run := DagRun{ID: 1, DagID: "py_fast", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
	try := func() (toCall, toEnd time.Duration) {
		start := time.Now()
		out := sched.runOperator(context.Background(), taskJob{key: tiKey{"py_fast", "r", "quick", -1}, try: 1, dag: dag, task: dag.Task("quick"), run: run})
		toEnd = time.Since(start)
		if out.state != TaskSuccess {
			b.Fatalf("try %s: %s\n%s", out.state, out.reason, out.output)
		}
		var called float64
		if err := json.Unmarshal(out.returnValue, &called); err != nil {
			b.Fatalf("return value %s: %v", out.returnValue, err)
		}
		return time.Duration(called*float64(time.Second)) - time.Duration(start.UnixNano()), toEnd
	}
	// The first try starts the warm worker (scheduler_pyworker.go): its
	// own figure, outside the timed tries.
	first, _ := try()
	b.ReportMetric(float64(first.Microseconds())/1000, "ms-first-try-to-callable")
	var toCall, toEnd time.Duration
	calls := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, e := try()
		toCall += c
		toEnd += e
		calls = append(calls, c)
	}
	slices.Sort(calls)
	b.ReportMetric(float64(calls[len(calls)/2].Microseconds())/1000, "ms-to-callable-median")
	// The floor on this machine: a bare interpreter printing the time.
	var bare time.Duration
	cpu0, cpuKnown := childCPU()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		text, err := exec.Command("python3", "-c", "import time; print(time.time())").Output()
		if err != nil {
			b.Fatal(err)
		}
		at, _ := strconv.ParseFloat(strings.TrimSpace(string(text)), 64)
		bare += time.Duration(at*float64(time.Second)) - time.Duration(start.UnixNano())
	}
	cpu1, _ := childCPU()
	bareCPU := cpu1 - cpu0
	// A forked try is the worker's child, not this process's: its CPU
	// time is not in childCPU, and no cpu-ms/try is reported.
	// CPU time (user+system) of the processes, which a loaded machine
	// does not stretch as it stretches wall time.
	if cpuKnown {
		b.ReportMetric(float64(bareCPU.Microseconds())/1000/float64(b.N), "cpu-ms/bare-python")
	}
	b.ReportMetric(float64(bare.Microseconds())/1000/float64(b.N), "ms-bare-python")
	b.ReportMetric(float64(toCall.Microseconds())/1000/float64(b.N), "ms-to-callable")
	b.ReportMetric(float64(toEnd.Microseconds())/1000/float64(b.N), "ms-to-end")
}

// Without an interpreter, a Python callable task is simulated, and its log
// says why.
func TestPythonTask_NoInterpreterSimulates(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	row, err := h.store.DagByID("py_fast")
	if err != nil {
		t.Fatal(err)
	}
	task := *row.Def.Task("quick")
	task.PythonCallable = &PythonCallable{File: "x.py", Python: filepath.Join(t.TempDir(), "no-python")}
	run := DagRun{ID: 1, DagID: "py_fast", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
	out := h.sched.runOperator(context.Background(), taskJob{key: tiKey{"py_fast", "r", "quick", -1}, try: 1, dag: row.Def, task: &task, run: run})
	if out.state != TaskSuccess || !strings.Contains(out.output, "no Python to run this task's callable") ||
		!strings.Contains(out.output, "simulated") {
		t.Errorf("outcome %s, output %q", out.state, out.output)
	}
}

// A running Python try is recorded as a bash try is (its pid and
// identity), so that the next start after a crash ends its group.
func TestPythonTask_RecordedForLeftovers(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	pidFile := filepath.Join(t.TempDir(), "pids")
	conf, _ := json.Marshal(map[string]any{"pid_file": pidFile})
	runID := h.trigger("py_sleep", `{"execution_date": "2024-01-02T00:00:00+00:00", "conf": `+string(conf)+`}`)
	if err := h.sched.tick(h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	pids := awaitPIDs(t, pidFile)
	ti, err := h.store.TaskInstance("py_sleep", runID, "sleeper")
	if err != nil {
		t.Fatal(err)
	}
	if ti.PID == nil || *ti.PID != pids[0] || ti.ProcIdentity == "" {
		t.Fatalf("recorded pid %v identity %q, want the python process %d", ti.PID, ti.ProcIdentity, pids[0])
	}
	// What the next start does with a crashed instance's records.
	if err := endLeftoverTaskProcesses(h.store, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !pollUntil(10*time.Second, func() bool {
			st, ok := readProcStat(pid)
			return !ok || st.state == 'Z'
		}) {
			t.Errorf("process %d still runs", pid)
			_ = killPID(pid)
		}
	}
	h.settle()
	if st := h.states("py_sleep", runID)["sleeper"]; st != TaskFailed {
		t.Errorf("sleeper is %s, want failed", st)
	}
}

// awaitPIDs waits for the callable to write its process ids (its own and
// its child's) to pidFile, and returns them.
func awaitPIDs(t *testing.T, pidFile string) []int {
	t.Helper()
	var pids []int
	if !pollUntil(30*time.Second, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		for _, f := range strings.Fields(string(data)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
		return true
	}) {
		t.Fatal("the callable did not start")
	}
	return pids
}

// A request the callable makes that JSON cannot hold (here a NaN among
// Variable.set's arguments) fails the try in Python, where the callable
// made it, with Python's own error in the log: never airlite's decode
// error for a line the task process should not have sent.
func TestPythonTask_RequestJSONCannotHoldFailsInPython(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nan.py"), []byte(`
import pendulum
from airflow import DAG
from airflow.models import Variable
from airflow.operators.python import PythonOperator

def note():
    Variable.set("score", "1", description=float("nan"))

with DAG("nan_request", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    PythonOperator(task_id="note", python_callable=note)
`), 0o600); err != nil {
		t.Fatal(err)
	}
	store, api, settle := newRealScheduler(t, readPyServeFolderAs(t, dir, edition2), edition2)
	res, err := api.TriggerDAG("nan_request", []byte(`{"execution_date": "2024-03-01T00:00:00+00:00"}`))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle("nan_request", runID)
	if run := finishedRun(t, store, "nan_request", runID); run.State != RunFailed {
		t.Errorf("run %s, want failed", run.State)
	}
	raw, _ := store.TaskLogOf(tiKey{"nan_request", runID, "note", -1})
	if raw == nil || len(raw.Tries) == 0 {
		t.Fatal("no log for the try")
	}
	out := raw.Tries[0].Output
	if !strings.Contains(out, "ValueError: Out of range float values are not JSON compliant") || strings.Contains(out, "decode task") {
		t.Errorf("the try's log, want Python's ValueError and no decode error:\n%s", out)
	}
}

// TestPythonTask_XComReservedKeys: a value pushed or returned with a dict
// holding serde's keys (__classname__, __id__) fails the try as the
// release's XCom serialization refuses it. Airflow 3 serializes through
// serde, which looks into every dict at any depth; 2.10.3's XComEncoder
// looks at a top-level dict, and serde only into what json cannot write
// (a top-level tuple), so a dict in a list passes there.
func TestPythonTask_XComReservedKeys(t *testing.T) {
	t.Parallel()
	const tasks = `
    @task
    def returns_reserved():
        return {"__classname__": "x", "v": 1}

    @task
    def pushes_in_list(ti=None):
        ti.xcom_push(key="nested", value=[{"__id__": 1}])

    @task
    def pushes_in_tuple(ti=None):
        ti.xcom_push(key="tupled", value=({"__id__": 1},))

    @task
    def plain():
        return {"__other__": 1, "classname": 2}

    returns_reserved()
    pushes_in_list()
    pushes_in_tuple()
    plain()
`
	const serdeMsg = "AttributeError: reserved key __classname__ or __id__ found in dict to serialize"
	for _, tc := range []struct {
		name    string
		e       edition
		header  string
		states  map[string]TaskState
		reasons map[string]string
	}{
		{"edition 3", edition3, "from airflow.sdk import DAG, task",
			map[string]TaskState{"returns_reserved": TaskFailed, "pushes_in_list": TaskFailed, "pushes_in_tuple": TaskFailed, "plain": TaskSuccess},
			map[string]string{"returns_reserved": serdeMsg, "pushes_in_list": serdeMsg, "pushes_in_tuple": serdeMsg}},
		{"edition 2", edition2, "from airflow import DAG\nfrom airflow.decorators import task",
			map[string]TaskState{"returns_reserved": TaskFailed, "pushes_in_list": TaskSuccess, "pushes_in_tuple": TaskFailed, "plain": TaskSuccess},
			map[string]string{"returns_reserved": "AttributeError: reserved key __classname__ found in dict to serialize", "pushes_in_tuple": serdeMsg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := "import pendulum\n" + tc.header + "\n\nwith DAG(\"reserved\", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz=\"UTC\")):\n" + tasks
			if err := os.WriteFile(filepath.Join(dir, "reserved.py"), []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			set := readPyServeFolderAs(t, dir, tc.e)
			store, api, settle := newRealScheduler(t, set, tc.e)
			res, err := api.TriggerDAG("reserved", []byte(`{"execution_date": "2024-03-01T00:00:00+00:00"}`))
			if err != nil {
				t.Fatal(err)
			}
			runID := res["run_id"].(string)
			settle("reserved", runID)
			finishedRun(t, store, "reserved", runID)
			tis, err := store.TaskInstancesOfRun("reserved", runID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ti := range tis {
				if want := tc.states[ti.TaskID]; ti.State != want {
					t.Errorf("%s is %q, want %q", ti.TaskID, ti.State, want)
				}
				if reason := tc.reasons[ti.TaskID]; reason != "" {
					l, _ := store.TaskLogOf(tiKey{"reserved", runID, ti.TaskID, -1})
					if l == nil || len(l.Tries) == 0 || !strings.Contains(l.Tries[0].Output, reason) {
						t.Errorf("%s's log lacks %q: %+v", ti.TaskID, reason, l)
					}
				}
			}
			if tc.e == edition2 {
				if e, err := store.XCom("reserved", runID, "pushes_in_list", "nested", -1); err != nil || string(e.Value) != `[{"__id__": 1}]` {
					t.Errorf("edition 2 pushed %+v (%v)", e, err)
				}
			}
		})
	}
}
