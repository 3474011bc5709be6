package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// testClock is a clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeRunner stands in for operators: each try ends with a scripted state,
// and a task can be held running until released.
type fakeRunner struct {
	mu       sync.Mutex
	outcomes map[string][]TaskState // task_id -> state of try 1, 2, …; success beyond
	keyed    map[tiKey][]TaskState  // one task instance's, before its task's
	returns  map[string]string      // task_id -> the JSON its tries return
	// aliasEvents are the events a task's successful tries add through
	// aliases (outlet_events[AssetAlias(...)].add), by task_id.
	aliasEvents map[string][]aliasEvent
	held        map[string]chan struct{}
	started     []tiKey
	starts      map[tiKey]int
	onStart     func() // checks invariants while the task is running
}

func (f *fakeRunner) run(ctx context.Context, job taskJob) taskOutcome {
	f.mu.Lock()
	f.started = append(f.started, job.key)
	f.starts[job.key]++
	hold := f.held[job.key.taskID]
	script := f.outcomes[job.key.taskID]
	if s, ok := f.keyed[job.key]; ok {
		script = s
	}
	check := f.onStart
	f.mu.Unlock()
	if check != nil {
		check()
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return taskOutcome{state: TaskFailed, reason: "stopped"}
		}
	}
	if job.try <= len(script) {
		return taskOutcome{state: script[job.try-1], output: "try " + strconv.Itoa(job.try) + "\n"}
	}
	f.mu.Lock()
	ret := f.returns[job.key.taskID]
	aliasEvents := f.aliasEvents[job.key.taskID]
	f.mu.Unlock()
	out := taskOutcome{state: TaskSuccess, output: "try " + strconv.Itoa(job.try) + "\n", aliasEvents: aliasEvents}
	if ret != "" {
		out.returnValue = json.RawMessage(ret)
	}
	return out
}

func (f *fakeRunner) hold(taskID string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{})
	f.held[taskID] = ch
	return ch
}

func (f *fakeRunner) startCount(k tiKey) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts[k]
}

// schedHarness is a store, a scheduler with a fake runner and a test clock,
// and the API's trigger, inside a synctest bubble.
type schedHarness struct {
	t      *testing.T
	store  *Store
	sched  *scheduler
	clock  *testClock
	runner *fakeRunner
	api    *airflowAPI
	dags   *DAGSet
}

var schedEpoch = time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)

// newSchedHarness loads the given definition files (name -> YAML).
func newSchedHarness(t *testing.T, files map[string]string, tune func(*schedulerOptions)) *schedHarness {
	t.Helper()
	return newSchedHarnessWith(t, files, nil, tune)
}

// newSchedHarnessWith is newSchedHarness whose DAGs patch changes once
// read (patch nil: none), for what a YAML file cannot say.
func newSchedHarnessWith(t *testing.T, files map[string]string, patch func(*DAGSet), tune func(*schedulerOptions)) *schedHarness {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		t.Fatalf("load dags: %v", err)
	}
	if patch != nil {
		patch(dags)
	}
	return newSchedHarnessOf(t, dags, tune)
}

// newSchedHarnessOf is newSchedHarness over DAGs already read (a Python
// folder's, read outside the bubble).
func newSchedHarnessOf(t *testing.T, dags *DAGSet, tune func(*schedulerOptions)) *schedHarness {
	t.Helper()
	store := storeWith(t, dags)
	clock := &testClock{t: schedEpoch}
	runner := &fakeRunner{outcomes: map[string][]TaskState{}, held: map[string]chan struct{}{}, starts: map[tiKey]int{}}
	opts := schedulerOptions{
		Store: store, Edition: edition2, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 32, RunTask: runner.run, Unixname: "tester",
	}
	if tune != nil {
		tune(&opts)
	}
	sched := newScheduler(opts)
	t.Cleanup(sched.stop)
	api := newAirflowAPI(&operations{store: store, edition: opts.Edition, now: clock.Now, unixname: "tester", kick: sched.Kick})
	return &schedHarness{t: t, store: store, sched: sched, clock: clock, runner: runner, api: api, dags: dags}
}

// step runs one pass and waits until every task goroutine it started has
// finished or is blocked.
func (h *schedHarness) step() {
	h.t.Helper()
	if err := h.sched.tick(h.clock.Now()); err != nil {
		h.t.Fatalf("tick: %v", err)
	}
	synctest.Wait()
}

// settle steps until the store stops changing.
func (h *schedHarness) settle() {
	h.t.Helper()
	for i := 0; i < 50; i++ {
		before := h.store.ChangeIndex()
		h.step()
		if h.store.ChangeIndex() == before {
			return
		}
	}
	h.t.Fatal("scheduler did not settle in 50 passes")
}

func (h *schedHarness) trigger(dagID, body string) string {
	h.t.Helper()
	res, err := h.api.TriggerDAG(dagID, []byte(body))
	if err != nil {
		h.t.Fatalf("trigger %s: %v", dagID, err)
	}
	return res["run_id"].(string)
}

func (h *schedHarness) runState(dagID, runID string) RunState {
	h.t.Helper()
	run, err := h.store.RunByRunID(dagID, runID)
	if err != nil {
		h.t.Fatalf("run %s/%s: %v", dagID, runID, err)
	}
	return run.State
}

func (h *schedHarness) ti(dagID, runID, taskID string) *TaskInstance {
	h.t.Helper()
	ti, err := h.store.TaskInstance(dagID, runID, taskID)
	if err != nil {
		h.t.Fatalf("task %s/%s/%s: %v", dagID, runID, taskID, err)
	}
	return ti
}

func (h *schedHarness) taskStates(dagID, runID string) map[string]TaskState {
	h.t.Helper()
	tis, err := h.store.TaskInstancesOfRun(dagID, runID)
	if err != nil {
		h.t.Fatal(err)
	}
	states := map[string]TaskState{}
	for _, ti := range tis {
		states[ti.TaskID] = ti.State
	}
	return states
}

func (h *schedHarness) runsOf(dagID string) []*DagRun {
	h.t.Helper()
	runs, err := h.store.RunsOfDag(dagID, "")
	if err != nil {
		h.t.Fatal(err)
	}
	return runs
}

// checkLimits fails the test if running task instances exceed
// parallelism, a DAG's max_active_tasks or a pool's slots.
func (h *schedHarness) checkLimits() {
	h.t.Helper()
	usage, err := h.store.ActiveUsage()
	if err != nil {
		h.t.Error(err)
		return
	}
	if usage.total > h.sched.opts.Parallelism {
		h.t.Errorf("%d tasks active, parallelism is %d", usage.total, h.sched.opts.Parallelism)
	}
	for dagID, n := range usage.byDag {
		row, err := h.store.DagByID(dagID)
		if err == nil && row.Def != nil && n > row.Def.MaxActiveTasks {
			h.t.Errorf("%d tasks of %s active, max_active_tasks is %d", n, dagID, row.Def.MaxActiveTasks)
		}
	}
	for name, used := range usage.byPool {
		p, err := h.store.PoolByName(name)
		if err == nil && p.Slots >= 0 && used > p.Slots {
			h.t.Errorf("pool %s: %d slots used of %d", name, used, p.Slots)
		}
	}
}

const twoUpstreamDAG = `
dag_id: rules
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: u1, operator: PythonOperator, downstream: [d]}
  - {task_id: u2, operator: PythonOperator, downstream: [d]}
  - {task_id: d, operator: PythonOperator, trigger_rule: %s}
`

func TestScheduler_TriggerRules(t *testing.T) {
	t.Parallel()
	const ran = TaskSuccess // d ran (the fake runner succeeds)
	cases := []struct {
		rule   string
		u1, u2 TaskState
		want   TaskState
	}{
		{"all_success", TaskSuccess, TaskSuccess, ran},
		{"all_success", TaskSuccess, TaskFailed, TaskUpstreamFailed},
		{"all_success", TaskSuccess, TaskSkipped, TaskSkipped},
		{"all_failed", TaskFailed, TaskFailed, ran},
		{"all_failed", TaskFailed, TaskSuccess, TaskSkipped},
		{"all_done", TaskFailed, TaskSkipped, ran},
		{"all_skipped", TaskSkipped, TaskSkipped, ran},
		{"all_skipped", TaskSkipped, TaskSuccess, TaskSkipped},
		{"one_success", TaskFailed, TaskSuccess, ran},
		{"one_success", TaskFailed, TaskFailed, TaskUpstreamFailed},
		{"one_success", TaskSkipped, TaskSkipped, TaskSkipped},
		{"one_failed", TaskFailed, TaskSuccess, ran},
		{"one_failed", TaskSuccess, TaskSuccess, TaskSkipped},
		{"one_done", TaskSkipped, TaskFailed, ran},
		{"one_done", TaskSkipped, TaskSkipped, TaskSkipped},
		{"none_failed", TaskSuccess, TaskSkipped, ran},
		{"none_failed", TaskFailed, TaskSuccess, TaskUpstreamFailed},
		{"none_failed_min_one_success", TaskSuccess, TaskSkipped, ran},
		{"none_failed_min_one_success", TaskSkipped, TaskSkipped, TaskSkipped},
		{"none_failed_min_one_success", TaskFailed, TaskSuccess, TaskUpstreamFailed},
		{"none_failed_or_skipped", TaskSkipped, TaskSkipped, TaskSkipped},
		{"none_skipped", TaskSuccess, TaskFailed, ran},
		{"none_skipped", TaskSkipped, TaskSuccess, TaskSkipped},
		{"always", TaskFailed, TaskFailed, ran},
		{"dummy", TaskUpstreamFailed, TaskFailed, ran},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s+%s", tc.rule, tc.u1, tc.u2), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"rules.yaml": fmt.Sprintf(twoUpstreamDAG, tc.rule)}, nil)
				// upstream_failed cannot come from a try: script it as a failed
				// task's downstream by failing u1 without retries instead.
				h.runner.outcomes["u1"] = []TaskState{tc.u1}
				h.runner.outcomes["u2"] = []TaskState{tc.u2}
				if tc.u1 == TaskUpstreamFailed {
					h.runner.outcomes["u1"] = []TaskState{TaskFailed}
				}
				runID := h.trigger("rules", `{}`)
				h.settle()
				if got := h.ti("rules", runID, "d").State; got != tc.want {
					t.Errorf("d = %q, want %q", got, tc.want)
				}
				if got := h.runner.startCount(tiKey{"rules", runID, "d", -1}); (tc.want == ran) != (got == 1) {
					t.Errorf("d started %d times, want ran=%v", got, tc.want == ran)
				}
				if st := h.runState("rules", runID); !st.Finished() {
					t.Errorf("run state %q, want finished", st)
				}
			})
		})
	}
}

func TestScheduler_RunOutcomeFromLeaves(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		u1, u2  TaskState
		rule    string
		wantRun RunState
	}{
		{"all leaves succeed", TaskSuccess, TaskSuccess, "all_success", RunSuccess},
		{"leaf upstream_failed", TaskFailed, TaskSuccess, "all_success", RunFailed},
		{"leaf skipped counts as success", TaskSkipped, TaskSuccess, "all_success", RunSuccess},
		{"failed inner task, leaf all_done succeeds", TaskFailed, TaskSuccess, "all_done", RunSuccess},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"rules.yaml": fmt.Sprintf(twoUpstreamDAG, tc.rule)}, nil)
				h.runner.outcomes["u1"] = []TaskState{tc.u1}
				h.runner.outcomes["u2"] = []TaskState{tc.u2}
				runID := h.trigger("rules", `{}`)
				h.settle()
				if got := h.runState("rules", runID); got != tc.wantRun {
					t.Errorf("run = %q, want %q (tasks %v)", got, tc.wantRun, h.taskStates("rules", runID))
				}
				run, _ := h.store.RunByRunID("rules", runID)
				if run.StartDate == nil || run.EndDate == nil {
					t.Errorf("run start/end dates not recorded: %+v", run)
				}
			})
		})
	}
}

func TestScheduler_RetriesWithBackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: PythonOperator, retries: 3, retry_delay: 5m, retry_exponential_backoff: true}
`}, nil)
		h.runner.outcomes["t"] = []TaskState{TaskFailed, TaskFailed, TaskSuccess}
		runID := h.trigger("d", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
		h.settle()
		ti := h.ti("d", runID, "t")
		if ti.State != TaskUpForRetry || ti.TryNumber != 1 || ti.MaxTries != 3 {
			t.Fatalf("after try 1: state %q try %d max %d, want up_for_retry 1 3", ti.State, ti.TryNumber, ti.MaxTries)
		}
		// Airflow: ceil(300·2^0)=300, plus sha1("d#t#2024-01-01 00:00:00+00:00#1") mod 300 = 521 s.
		if got := ti.NextRetryAt.Sub(*ti.EndDate); got != 521*time.Second {
			t.Fatalf("first retry delay %s, want 521s", got)
		}
		h.clock.Advance(520 * time.Second)
		h.settle()
		if got := h.runner.startCount(tiKey{"d", runID, "t", -1}); got != 1 {
			t.Fatalf("retried before the delay: %d tries", got)
		}
		// At exactly the delay it still waits: Airflow retries once
		// next_retry_datetime() < utcnow(), strictly (TaskInstance.
		// ready_for_retry, Airflow 2.10.3 airflow/models/taskinstance.py:2686-2688,
		// 1.10.15 airflow/models/taskinstance.py:732-738; 2.10.3's
		// tests/models/test_taskinstance.py:656-660 asserts "up for retry" there).
		h.clock.Advance(time.Second)
		h.settle()
		if got := h.runner.startCount(tiKey{"d", runID, "t", -1}); got != 1 {
			t.Fatalf("retried at exactly the delay: %d tries", got)
		}
		h.clock.Advance(time.Microsecond)
		h.settle()
		ti = h.ti("d", runID, "t")
		if ti.State != TaskUpForRetry || ti.TryNumber != 2 {
			t.Fatalf("after try 2: state %q try %d", ti.State, ti.TryNumber)
		}
		if got := ti.NextRetryAt.Sub(*ti.EndDate); got != 817*time.Second {
			t.Fatalf("second retry delay %s, want 817s", got)
		}
		h.clock.Advance(817*time.Second + time.Microsecond)
		h.settle()
		ti = h.ti("d", runID, "t")
		if ti.State != TaskSuccess || ti.TryNumber != 3 {
			t.Fatalf("after try 3: state %q try %d, want success 3", ti.State, ti.TryNumber)
		}
		if got := h.runState("d", runID); got != RunSuccess {
			t.Fatalf("run %q, want success", got)
		}
		logs, err := h.store.read().First(tableTaskLogs, indexID, "d", runID, "t", "-1")
		if err != nil || logs == nil || len(logs.(*TaskLog).Tries) != 3 {
			t.Fatalf("task log: %v %+v, want 3 tries", err, logs)
		}
	})
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		task Task
		try  int
		want time.Duration
	}{
		{"fixed delay", Task{RetryDelay: 5 * time.Minute}, 2, 5 * time.Minute},
		{"backoff try 1", Task{RetryDelay: 5 * time.Minute, RetryExponentialBackoff: true}, 1, 521 * time.Second},
		{"backoff try 3", Task{RetryDelay: 5 * time.Minute, RetryExponentialBackoff: true}, 3, 1518 * time.Second},
		{"backoff capped", Task{RetryDelay: 5 * time.Minute, RetryExponentialBackoff: true, MaxRetryDelay: 10 * time.Minute}, 3, 10 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ti := &TaskInstance{DagID: "d", TaskID: "t", ExecutionDate: date, TryNumber: tc.try}
			if got := retryDelay(&tc.task, ti); got != tc.want {
				t.Errorf("retryDelay = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestScheduler_PoolsParallelismAndPriority(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var tasks strings.Builder
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&tasks, "  - {task_id: t%d, operator: PythonOperator, pool: p, priority_weight: %d}\n", i, i)
		}
		h := newSchedHarness(t, map[string]string{
			"wide.yaml":  "dag_id: wide\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n" + tasks.String(),
			"pools.yaml": "- {name: p, slots: 2, description: two}\n",
		}, func(o *schedulerOptions) { o.Parallelism = 5 })
		h.runner.onStart = h.checkLimits
		release := make(chan struct{})
		for i := 0; i < 8; i++ {
			h.runner.held[fmt.Sprintf("t%d", i)] = release
		}
		runID := h.trigger("wide", `{}`)
		h.settle()
		h.checkLimits()
		states := h.taskStates("wide", runID)
		if states["t7"] != TaskRunning || states["t6"] != TaskRunning || states["t5"] != TaskScheduled {
			t.Fatalf("highest priority weights should run first within 2 slots: %v", states)
		}
		// More slots: parallelism (5) is now the limit.
		if _, err := h.store.UpsertPool("p", 10, nil); err != nil {
			t.Fatal(err)
		}
		h.settle()
		h.checkLimits()
		running := 0
		for _, st := range h.taskStates("wide", runID) {
			if st == TaskRunning {
				running++
			}
		}
		if running != 5 {
			t.Fatalf("%d running, want parallelism 5", running)
		}
		close(release)
		h.settle()
		if got := h.runState("wide", runID); got != RunSuccess {
			t.Fatalf("run %q, want success", got)
		}
		for k, n := range h.runner.starts {
			if n != 1 {
				t.Errorf("%s started %d times", k, n)
			}
		}
	})
}

func TestScheduler_MaxActiveTasksAndMissingPool(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
max_active_tasks: 2
tasks:
  - {task_id: a, operator: PythonOperator}
  - {task_id: b, operator: PythonOperator}
  - {task_id: c, operator: PythonOperator}
  - {task_id: nopool, operator: PythonOperator, pool: later}
`}, nil)
		h.runner.onStart = h.checkLimits
		release := make(chan struct{})
		for _, id := range []string{"a", "b", "c"} {
			h.runner.held[id] = release
		}
		runID := h.trigger("d", `{}`)
		h.settle()
		states := h.taskStates("d", runID)
		running := 0
		for _, id := range []string{"a", "b", "c"} {
			if states[id] == TaskRunning {
				running++
			}
		}
		if running != 2 {
			t.Fatalf("%d running, want max_active_tasks 2: %v", running, states)
		}
		if states["nopool"] != TaskScheduled {
			t.Fatalf("task in a missing pool is %q, want scheduled", states["nopool"])
		}
		close(release)
		h.settle()
		if got := h.ti("d", runID, "nopool").State; got != TaskScheduled {
			t.Fatalf("task in a missing pool is %q, want still scheduled", got)
		}
		if _, err := h.store.UpsertPool("later", 1, nil); err != nil {
			t.Fatal(err)
		}
		h.settle()
		if got := h.runState("d", runID); got != RunSuccess {
			t.Fatalf("run %q after the pool appeared, want success", got)
		}
	})
}

func TestScheduler_MaxActiveRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
max_active_runs: 1
tasks:
  - {task_id: a, operator: PythonOperator}
`}, nil)
		release := h.runner.hold("a")
		var ids []string
		for i := 1; i <= 3; i++ {
			ids = append(ids, h.trigger("d", fmt.Sprintf(`{"run_id": "r%d", "execution_date": "2024-01-0%d"}`, i, i)))
		}
		h.settle()
		want := []RunState{RunRunning, RunQueued, RunQueued}
		for i, id := range ids {
			if got := h.runState("d", id); got != want[i] {
				t.Fatalf("run %s = %q, want %q", id, got, want[i])
			}
		}
		close(release)
		h.settle()
		for _, id := range ids {
			if got := h.runState("d", id); got != RunSuccess {
				t.Fatalf("run %s = %q, want success", id, got)
			}
		}
	})
}

func TestScheduler_Schedules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		schedule string
		extra    string
		advance  time.Duration // clock moves after the first settle
		wantIDs  []string
	}{
		{"daily catchup over 10 days", "'@daily'", "catchup: true\nstart_date: 2023-12-31", 0, dailyIDs(time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC), 10)},
		{"daily without catchup takes the latest interval", "'@daily'", "catchup: false\nstart_date: 2023-12-31", 0,
			[]string{"scheduled__2024-01-09T00:00:00+00:00"}},
		{"catchup bounded by max_active_runs", "'0 0 * * *'", "catchup: true\nstart_date: 2024-01-01\nmax_active_runs: 3", 0, dailyIDs(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 9)},
		{"end_date stops the schedule", "'@daily'", "catchup: true\nstart_date: 2024-01-01\nend_date: 2024-01-03", 0, dailyIDs(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 3)},
		{"once", "'@once'", "start_date: 2024-01-05", 48 * time.Hour, []string{"scheduled__2024-01-05T00:00:00+00:00"}},
		{"hourly picks up the next hour", "'@hourly'", "catchup: false\nstart_date: 2024-01-01", time.Hour,
			[]string{"scheduled__2024-01-10T11:00:00+00:00", "scheduled__2024-01-10T12:00:00+00:00"}},
		{"duration with catchup", "6h", "catchup: true\nstart_date: 2024-01-09T00:00:00+00:00", 0,
			[]string{"scheduled__2024-01-09T00:00:00+00:00", "scheduled__2024-01-09T06:00:00+00:00", "scheduled__2024-01-09T12:00:00+00:00",
				"scheduled__2024-01-09T18:00:00+00:00", "scheduled__2024-01-10T00:00:00+00:00", "scheduled__2024-01-10T06:00:00+00:00"}},
		{"null schedule makes no runs", "null", "start_date: 2024-01-01", 72 * time.Hour, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"s.yaml": fmt.Sprintf(`
dag_id: s
schedule_interval: %s
%s
tasks:
  - {task_id: a, operator: EmptyOperator}
`, tc.schedule, tc.extra)}, nil)
				h.settle()
				if tc.advance > 0 {
					h.clock.Advance(tc.advance)
					h.settle()
				}
				var got []string
				for _, run := range h.runsOf("s") {
					got = append(got, run.RunID)
					if run.State != RunSuccess || run.ExternalTrigger {
						t.Errorf("run %s: state %q external %v, want success and scheduled", run.RunID, run.State, run.ExternalTrigger)
					}
				}
				if strings.Join(got, ",") != strings.Join(tc.wantIDs, ",") {
					t.Errorf("runs\n got %v\nwant %v", got, tc.wantIDs)
				}
			})
		})
	}
}

func dailyIDs(from time.Time, n int) []string {
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, "scheduled__"+isoFormat(from.AddDate(0, 0, i)))
	}
	return ids
}

func TestScheduler_CatchupRespectsMaxActiveRunsAtEveryStep(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"s.yaml": `
dag_id: s
schedule_interval: '@daily'
catchup: true
start_date: 2024-01-01
max_active_runs: 3
tasks:
  - {task_id: a, operator: PythonOperator}
`}, nil)
		release := h.runner.hold("a")
		h.settle()
		if n := len(h.runsOf("s")); n != 3 {
			t.Fatalf("%d runs created while all are active, want max_active_runs 3", n)
		}
		close(release)
		h.settle()
		if n := len(h.runsOf("s")); n != 9 {
			t.Fatalf("%d runs after catching up, want 9 (Jan 1..9)", n)
		}
	})
}

func TestScheduler_PausedRunsHoldStill(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator, downstream: [b]}
  - {task_id: b, operator: PythonOperator}
`}, nil)
		if err := h.store.SetPaused("d", true, true); err != nil {
			t.Fatal(err)
		}
		runID := h.trigger("d", `{}`)
		h.settle()
		if got := h.runState("d", runID); got != RunQueued {
			t.Fatalf("paused DAG's run is %q, want queued", got)
		}
		if err := h.store.SetPaused("d", false, true); err != nil {
			t.Fatal(err)
		}
		release := h.runner.hold("a")
		h.settle()
		if got := h.ti("d", runID, "a").State; got != TaskRunning {
			t.Fatalf("a = %q after unpause, want running", got)
		}
		// Paused mid-run: the running task finishes, nothing new starts.
		if err := h.store.SetPaused("d", true, true); err != nil {
			t.Fatal(err)
		}
		close(release)
		h.settle()
		if a, b := h.ti("d", runID, "a").State, h.ti("d", runID, "b").State; a != TaskSuccess || b != TaskNone {
			t.Fatalf("paused mid-run: a=%q b=%q, want success and none", a, b)
		}
		if err := h.store.SetPaused("d", false, true); err != nil {
			t.Fatal(err)
		}
		h.settle()
		if got := h.runState("d", runID); got != RunSuccess {
			t.Fatalf("run %q after unpause, want success", got)
		}
	})
}

func TestScheduler_DagrunTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
dagrun_timeout: 10m
tasks:
  - {task_id: slow, operator: PythonOperator, downstream: [after]}
  - {task_id: after, operator: PythonOperator}
`}, nil)
		h.runner.hold("slow")
		runID := h.trigger("d", `{}`)
		h.settle()
		h.clock.Advance(9 * time.Minute)
		h.settle()
		if got := h.runState("d", runID); got != RunRunning {
			t.Fatalf("run %q before the timeout, want running", got)
		}
		h.clock.Advance(2 * time.Minute)
		h.settle()
		if got := h.runState("d", runID); got != RunFailed {
			t.Fatalf("run %q after the timeout, want failed", got)
		}
		for task, st := range h.taskStates("d", runID) {
			if st != TaskSkipped {
				t.Errorf("%s = %q after the timeout, want skipped", task, st)
			}
		}
	})
}

func TestScheduler_SubDAGRunsWithParent(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"p.yaml": `
dag_id: p
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: start, operator: EmptyOperator, downstream: [sec]}
  - {task_id: sec, operator: SubDagOperator, subdag: p.sec, downstream: [end]}
  - {task_id: end, operator: EmptyOperator}
`,
		"p.sec.yaml": `
dag_id: p.sec
schedule_interval: '@daily'
start_date: 2024-01-01
catchup: true
tasks:
  - {task_id: inner, operator: PythonOperator}
`,
	}
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("child fails %v", fail), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, files, func(o *schedulerOptions) {})
				h.sched.opts.RunTask = func(ctx context.Context, job taskJob) taskOutcome {
					if job.task.Operator == "SubDagOperator" {
						return h.sched.runSubDag(ctx, job)
					}
					return h.runner.run(ctx, job)
				}
				if fail {
					h.runner.outcomes["inner"] = []TaskState{TaskFailed}
				}
				hold := h.runner.hold("inner")
				runID := h.trigger("p", `{}`)
				h.settle()
				if got := h.ti("p", runID, "sec").State; got != TaskRunning {
					t.Fatalf("sec = %q while the child runs, want running", got)
				}
				if got := h.ti("p.sec", runID, "inner").State; got != TaskRunning {
					t.Fatalf("child task = %q, want running", got)
				}
				close(hold)
				h.settle()
				wantChild, wantParent, wantSec := RunSuccess, RunSuccess, TaskSuccess
				if fail {
					wantChild, wantParent, wantSec = RunFailed, RunFailed, TaskFailed
				}
				if got := h.runState("p.sec", runID); got != wantChild {
					t.Errorf("child run %q, want %q", got, wantChild)
				}
				if got := h.ti("p", runID, "sec").State; got != wantSec {
					t.Errorf("sec = %q, want %q", got, wantSec)
				}
				if got := h.runState("p", runID); got != wantParent {
					t.Errorf("parent run %q, want %q", got, wantParent)
				}
				if n := len(h.runsOf("p.sec")); n != 1 {
					t.Errorf("sub-DAG has %d runs, want 1: sub-DAGs are never scheduled on their own", n)
				}
			})
		})
	}
}

func TestScheduler_NoTaskStartsTwice(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
`}, nil)
		release := h.runner.hold("a")
		runID := h.trigger("d", `{}`)
		for i := 0; i < 5; i++ {
			if err := h.sched.tick(h.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if got := h.runner.startCount(tiKey{"d", runID, "a", -1}); got != 1 {
			t.Fatalf("a started %d times, want 1", got)
		}
		close(release)
		h.settle()
	})
}

func TestScheduler_StopTasksOnReset(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
`}, nil)
		h.runner.hold("a") // never released: only a stop ends it
		h.trigger("d", `{}`)
		h.settle()
		if err := h.sched.WithTasksStopped(func(tiKey) bool { return true }, func() error { return h.store.Reset(h.dags) }); err != nil {
			t.Fatal(err)
		}
		h.settle()
		if runs := h.runsOf("d"); len(runs) != 0 {
			t.Fatalf("%d runs after reset, want 0", len(runs))
		}
		h.sched.mu.Lock()
		n := len(h.sched.tasks)
		h.sched.mu.Unlock()
		if n != 0 {
			t.Fatalf("%d task goroutines left after the reset", n)
		}
	})
}

// newRealScheduler runs the embedded fixtures (or files) with real
// operators and no loop, on a clock that stands still: the test runs the
// passes with settleTicks.
func newRealScheduler(t *testing.T, dags *DAGSet, e edition) (*Store, *airflowAPI, func(dagID, runID string)) {
	t.Helper()
	store := storeWith(t, dags)
	clock := &testClock{t: time.Now().UTC()}
	sched := newScheduler(schedulerOptions{
		Store: store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 16, Unixname: "tester",
	})
	t.Cleanup(sched.stop)
	// The tasks are real bash processes: settleUntil waits for each to
	// end, the one real wait left, bounded by triesGuard. It stops at the
	// run's end: an unpaused schedule goes on catching up behind it.
	settle := func(dagID, runID string) {
		t.Helper()
		settleUntil(t, sched, clock.Now, func() bool {
			run, err := store.RunByRunID(dagID, runID)
			return err == nil && run.State.Finished()
		})
	}
	return store, newAirflowAPI(&operations{store: store, edition: e, now: clock.Now, unixname: "tester", kick: sched.Kick}), settle
}

// finishedRun is a run that must have finished once the scheduler settled.
func finishedRun(t *testing.T, store *Store, dagID, runID string) *DagRun {
	t.Helper()
	run, err := store.RunByRunID(dagID, runID)
	if err != nil {
		t.Fatalf("run %s/%s: %v", dagID, runID, err)
	}
	if !run.State.Finished() {
		tis, _ := store.TaskInstancesOfRun(dagID, runID)
		states := map[string]TaskState{}
		for _, ti := range tis {
			states[ti.TaskID] = ti.State
		}
		t.Fatalf("run %s/%s is still %q once the scheduler settled; tasks %v", dagID, runID, run.State, states)
	}
	return run
}

// Each edition runs its release's example_bash_operator: 2.10.3's
// this_will_skip exits 99 and skips, which skips run_this_last
// (airflow/example_dags/example_bash_operator.py:67-74); 1.10.15's example
// has no such task and every task succeeds.
func TestScheduler_ExampleDAGsEndAsInAirflow(t *testing.T) {
	t.Parallel()
	wantTasks := map[edition]map[string]TaskState{
		edition2: {"runme_0": TaskSuccess, "runme_1": TaskSuccess, "runme_2": TaskSuccess,
			"run_after_loop": TaskSuccess, "also_run_this": TaskSuccess, "this_will_skip": TaskSkipped, "run_this_last": TaskSkipped},
		edition110: {"runme_0": TaskSuccess, "runme_1": TaskSuccess, "runme_2": TaskSuccess,
			"run_after_loop": TaskSuccess, "also_run_this": TaskSuccess, "run_this_last": TaskSuccess},
	}
	wantOutput := map[edition]func(time.Time) string{
		edition2: func(d time.Time) string {
			return "ti_key=example_bash_operator__also_run_this__" + d.Format("20060102")
		},
		edition110: func(d time.Time) string {
			return "run_id=manual__" + isoFormat(d) + " | dag_run=<DagRun example_bash_operator @ " + d.Format("2006-01-02")
		},
	}
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			// Read before the dates triggered below: 1.10's examples start
			// on days_ago(2).
			dags, err := loadExampleDAGs(e.rules(), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			store, api, settle := newRealScheduler(t, dags, e)
			// Pause the schedules so only the triggered runs exist.
			for _, d := range dags.DAGs {
				if d.Schedule != nil && d.ParentDagID == "" {
					if err := store.SetPaused(d.DagID, true, false); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := store.SetPaused("example_bash_operator", false, false); err != nil {
				t.Fatal(err)
			}
			// A day after the DAG's start_date: a task gets no task instance
			// in a run dated before its start_date (Airflow 2.10.3
			// airflow/models/dagrun.py:1231-1236, 1.10.15 :450-452).
			var bashDAG *DAG
			for _, d := range dags.DAGs {
				if d.DagID == "example_bash_operator" {
					bashDAG = d
				}
			}
			// An hour past midnight: no scheduled (daily) run can hold that date.
			date := bashDAG.scheduleStart().UTC().AddDate(0, 0, 1).Add(time.Hour)
			res, err := api.TriggerDAG("example_bash_operator", []byte(fmt.Sprintf(`{"execution_date": %q}`, isoFormat(date))))
			if err != nil {
				t.Fatal(err)
			}
			runID := res["run_id"].(string)
			settle("example_bash_operator", runID)
			run := finishedRun(t, store, "example_bash_operator", runID)
			if run.State != RunSuccess {
				t.Errorf("example_bash_operator ended %q, want success", run.State)
			}
			tis, _ := store.TaskInstancesOfRun("example_bash_operator", runID)
			want := wantTasks[e]
			if len(tis) != len(want) {
				t.Errorf("%d task instances, want %d", len(tis), len(want))
			}
			for _, ti := range tis {
				if ti.State != want[ti.TaskID] {
					t.Errorf("%s = %q, want %q", ti.TaskID, ti.State, want[ti.TaskID])
				}
			}
			logRaw, _ := store.read().First(tableTaskLogs, indexID, "example_bash_operator", runID, "also_run_this", "-1")
			if logRaw == nil || !strings.Contains(logRaw.(*TaskLog).Tries[0].Output, wantOutput[e](date)) {
				t.Errorf("also_run_this output not captured with its rendered template: %+v", logRaw)
			}
			// example_bash_operator's schedule catches up behind the run
			// checked above, and its tasks outweigh tutorial's: pause it.
			if err := store.SetPaused("example_bash_operator", true, false); err != nil {
				t.Fatal(err)
			}
			if err := store.SetPaused("tutorial", false, false); err != nil {
				t.Fatal(err)
			}
			// An hour into the schedule's first day: in 1.10 only the first
			// max_active_runs runs by date advance (Airflow 1.10.15
			// jobs/scheduler_job.py:768-783), and the schedule catches up
			// from its start.
			var tutorial *DAG
			for _, d := range dags.DAGs {
				if d.DagID == "tutorial" {
					tutorial = d
				}
			}
			tutorialDate := tutorial.scheduleStart().UTC().Add(time.Hour)
			res, err = api.TriggerDAG("tutorial", []byte(fmt.Sprintf(`{"execution_date": %q}`, isoFormat(tutorialDate))))
			if err != nil {
				t.Fatal(err)
			}
			tutorialRun := res["run_id"].(string)
			settle("tutorial", tutorialRun)
			if run := finishedRun(t, store, "tutorial", tutorialRun); run.State != RunSuccess {
				t.Errorf("tutorial ended %q, want success", run.State)
			}
		})
	}
}

func TestBash_ExecutionTimeoutKillsProcessTree(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	dag, err := parseDAG([]byte(fmt.Sprintf(`
dag_id: d
start_date: 2024-01-01
tasks:
  - task_id: t
    operator: BashOperator
    execution_timeout: 300ms
    bash_command: 'sleep 60 & echo $! > %s; wait'
`, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	job := taskJob{key: tiKey{"d", "r", "t", -1}, try: 1, dag: dag, task: dag.Task("t"),
		run: DagRun{DagID: "d", RunID: "r", ExecutionDate: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}}
	out := bashRunner(t).runOperator(context.Background(), job)
	if out.state != TaskFailed || !strings.Contains(out.reason, "execution_timeout") {
		t.Fatalf("outcome %+v, want failed by execution_timeout", out)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The grandchild was killed with the group; give the kernel a bounded
	// moment to reap it (it is bash's child, reparented on bash's death).
	if !pollUntil(5*time.Second, func() bool { return !processExists(pid) || isZombie(pid) }) {
		t.Fatalf("process %d outlived its task's timeout", pid)
	}
}

// bashRunner is a scheduler, with an empty store and no loop, whose
// runOperator or runBash a test calls directly.
func bashRunner(t *testing.T) *scheduler {
	t.Helper()
	return bashRunnerOf(t, edition2)
}

// bashRunnerOf is a scheduler of edition e that tests use to run one try.
func bashRunnerOf(t *testing.T, e edition) *scheduler {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		// Windows without Git's bash (CI's Linux always has one).
		t.Skipf("no bash on PATH on %s: BashOperator tries cannot run (%v)", runtime.GOOS, err)
	}
	return newScheduler(schedulerOptions{Store: storeWith(t, &DAGSet{}), Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t))})
}

// Exit code 99 skips a BashOperator in Airflow 2 (skip_on_exit_code=99,
// Airflow 2.10.3 airflow/operators/bash.py:161, :273-274); Airflow 1.10.15
// fails on any non-zero exit (airflow/operators/bash_operator.py:164-165).
func TestBash_ExitCode99SkipsOnlyInEdition2(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: d
tasks:
  - {task_id: t, operator: BashOperator, bash_command: echo hello; exit 99}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[edition]TaskState{edition2: TaskSkipped, edition110: TaskFailed, edition110RBAC: TaskFailed}
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			out := bashRunnerOf(t, e).runBash(context.Background(), taskJob{key: tiKey{"d", "r", "t", -1}, try: 1,
				dag: dag, task: dag.Task("t"), run: DagRun{DagID: "d", RunID: "r", ExecutionDate: testNow}})
			if out.state != want[e] || out.output != "hello\n" {
				t.Errorf("exit 99 gave %q (output %q), want %q", out.state, out.output, want[e])
			}
			if want[e] == TaskFailed && !strings.Contains(out.reason, "code 99") {
				t.Errorf("reason %q does not name the exit code", out.reason)
			}
		})
	}
}

// Without bash on PATH (a Windows machine without Git's bash), a
// BashOperator try fails and its log says why, as Airflow's does
// (2.10.3 airflow/operators/bash.py:236 looks bash up, falls back to
// "bash", and hooks/subprocess.py:90's Popen raises FileNotFoundError).
// Not parallel: it empties PATH.
func TestBash_NoBashOnPathFailsWithItsReason(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dag, err := parseDAG([]byte(`
dag_id: d
tasks:
  - {task_id: t, operator: BashOperator, bash_command: echo hello}
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := newScheduler(schedulerOptions{Store: storeWith(t, &DAGSet{}), Edition: edition2, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	out := runner.runBash(context.Background(), taskJob{key: tiKey{"d", "r", "t", -1}, try: 1,
		dag: dag, task: dag.Task("t"), run: DagRun{DagID: "d", RunID: "r", ExecutionDate: testNow}})
	if out.state != TaskFailed {
		t.Fatalf("state %s, want failed", out.state)
	}
	log := out.tryLog(1).Output
	for _, want := range []string{"[airlite] bash not found", "bash -c", "PATH"} {
		if !strings.Contains(log, want) {
			t.Errorf("the try's log %q does not say %q", log, want)
		}
	}
}

// isZombie reports whether pid has ended and waits to be reaped; a pid no
// longer listed has ended too.
func isZombie(pid int) bool { return !procAlive(pid) }

func TestBash_OutcomesAndRequestDataIsNeverShellText(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	dag, err := parseDAG([]byte(`
dag_id: d
start_date: 2024-01-01
params: {greeting: hello}
tasks:
  - task_id: t
    operator: BashOperator
    bash_command: echo {{ dag_run.conf.x }}; echo "{{ dag_run.conf.x }}"; X={{ dag_run.conf.x }}; echo "$X"; echo "{{ params.greeting }} {{ ds }} $AIRFLOW_CTX_DAG_RUN_ID"
  - {task_id: skip, operator: BashOperator, bash_command: exit 99}
  - {task_id: fail, operator: BashOperator, bash_command: echo oops >&2; exit 3}
  - task_id: unknown
    operator: BashOperator
    bash_command: echo {{ nope }}
`))
	if err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf("$(touch %s) `touch %s` ';touch %s;' \"", marker, marker, marker)
	conf, _ := spacedJSON.marshal(map[string]any{"x": payload})
	run := DagRun{DagID: "d", RunID: "manual__x", ExecutionDate: time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC), Conf: conf}
	runner := bashRunner(t)
	runTask := func(id string) taskOutcome {
		return runner.runBash(context.Background(), taskJob{key: tiKey{"d", "manual__x", id, -1}, try: 1, dag: dag, task: dag.Task(id), run: run})
	}
	out := runTask("t")
	if out.state != TaskSuccess {
		t.Fatalf("t: %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("request data ran as shell text")
	}
	want := strings.Repeat(payload+"\n", 3) + "hello 2024-03-04 manual__x\n"
	if out.output != want {
		t.Errorf("output\n got %q\nwant %q", out.output, want)
	}
	if got := runTask("skip").state; got != TaskSkipped {
		t.Errorf("exit 99 gave %q, want skipped", got)
	}
	if got := runTask("fail"); got.state != TaskFailed || got.output != "oops\n" || !strings.Contains(got.reason, "code 3") {
		t.Errorf("exit 3 gave %+v", got)
	}
	if got := runTask("unknown"); got.state != TaskFailed || !strings.Contains(got.reason, `"nope"`) {
		t.Errorf("unknown variable gave %+v, want a failure naming it", got)
	}
}

func TestScheduler_LineageRecordedAfterSuccess(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: nb, operator: PapermillOperator, inlets: [{url: in.ipynb}], outlets: [out.ipynb, 3]}
  - {task_id: plain, operator: PythonOperator}
`}, nil)
		h.trigger("d", `{"execution_date": "2024-01-02"}`)
		h.settle()
		got, err := h.api.Lineage("d", "2024-01-02")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := spacedJSON.marshal(got)
		want := `{"task_ids": {"nb": {"inlets": [{"url": "in.ipynb"}], "outlets": ["out.ipynb", 3]}}}`
		if string(body) != want {
			t.Errorf("lineage\n got %s\nwant %s", body, want)
		}
	})
}

// endTry is the one place a try ends, for the scheduler and for the
// orphan policy at restart.
func TestEndTry(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	now := start.Add(90 * time.Second)
	task := &Task{TaskID: "t", RetryDelay: 5 * time.Minute}
	cases := []struct {
		name      string
		state     TaskState
		try, max  int
		task      *Task
		want      TaskState
		wantRetry *time.Time
	}{
		{"success", TaskSuccess, 1, 2, task, TaskSuccess, nil},
		{"failed with a retry left", TaskFailed, 1, 1, task, TaskUpForRetry, ptrTime(now.Add(5 * time.Minute))},
		{"failed, retries used up", TaskFailed, 2, 1, task, TaskFailed, nil},
		{"failed without retries", TaskFailed, 0, 0, task, TaskFailed, nil},
		{"failed, DAG file gone", TaskFailed, 1, 1, nil, TaskUpForRetry, &now},
	}
	for _, tc := range cases {
		ti := TaskInstance{DagID: "d", RunID: "r", TaskID: "t", State: TaskRunning, TryNumber: tc.try, MaxTries: tc.max, StartDate: &start}
		endTry(&ti, tc.state, tc.task, now)
		if ti.State != tc.want {
			t.Errorf("%s: state %q, want %q", tc.name, ti.State, tc.want)
		}
		if ti.EndDate == nil || !ti.EndDate.Equal(now) || ti.UpdatedAt == nil || !ti.UpdatedAt.Equal(now) {
			t.Errorf("%s: end %v, updated %v, want %v", tc.name, ti.EndDate, ti.UpdatedAt, now)
		}
		if ti.Duration == nil || *ti.Duration != 90 {
			t.Errorf("%s: duration %v, want 90", tc.name, ti.Duration)
		}
		if (ti.NextRetryAt == nil) != (tc.wantRetry == nil) || (tc.wantRetry != nil && !ti.NextRetryAt.Equal(*tc.wantRetry)) {
			t.Errorf("%s: next retry %v, want %v", tc.name, ti.NextRetryAt, tc.wantRetry)
		}
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// execution_timeout ends a simulated task's try too, as Airflow's
// BaseOperator.execution_timeout bounds every operator's execute
// (Airflow 2.10.3 airflow/models/taskinstance.py:747-764, _execute_task;
// 1.10.15 airflow/models/taskinstance.py:975-982, _run_raw_task).
func TestOperator_ExecutionTimeoutEndsSimulatedTasks(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: d
tasks:
  - {task_id: slow, operator: PythonOperator, execution_timeout: 20ms, simulate: {duration: 5s}}
  - {task_id: quick, operator: PythonOperator, execution_timeout: 1h, simulate: {duration: 1ms}}
`))
	if err != nil {
		t.Fatal(err)
	}
	run := DagRun{DagID: "d", RunID: "r", ExecutionDate: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	// In a bubble the durations pass without waiting, and the timeout
	// fires exactly at 20 ms.
	synctest.Test(t, func(t *testing.T) {
		runner := bashRunner(t)
		begun := time.Now()
		out := runner.runOperator(context.Background(), taskJob{key: tiKey{"d", "r", "slow", -1}, try: 1, dag: dag, task: dag.Task("slow"), run: run})
		if out.state != TaskFailed || !strings.Contains(out.reason, "execution_timeout of 20ms") {
			t.Errorf("a simulated task past its execution_timeout: %+v, want failed naming the timeout", out)
		}
		if took := time.Since(begun); took != 20*time.Millisecond {
			t.Errorf("the try ended after %s, want its execution_timeout, 20ms", took)
		}
		out = runner.runOperator(context.Background(), taskJob{key: tiKey{"d", "r", "quick", -1}, try: 1, dag: dag, task: dag.Task("quick"), run: run})
		if out.state != TaskSuccess {
			t.Errorf("a simulated task within its execution_timeout: %+v, want success", out)
		}
	})
}
