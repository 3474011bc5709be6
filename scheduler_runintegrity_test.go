package main

import (
	"context"
	"net/url"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// A running run of a DAG replaced through POST /_airlite/dags gets task
// instances for the tasks added (unless the task starts after the run's
// date), and those of the tasks removed become removed, or go back to no
// state when the task returns. The run then finishes as its new DAG
// says: removed task instances count for nothing.
//
// Airflow 2.10.3 airflow/jobs/scheduler_job_runner.py:1694,1720-1739
// (verify_integrity when the DAG changed), airflow/models/dagrun.py:1231-1236
// (missing tasks, start_date), :1268-1275 (restored), :971-980 (removed,
// left out), :756 (not a leaf), airflow/utils/state.py:162-170 (finished).
// Airflow 1.10.15 airflow/jobs/scheduler_job.py:790-792 (verify_integrity on
// every running run), airflow/models/dagrun.py:428-446 (removed; the
// `is not State.RUNNING` test compares identities, which a state read from
// the database never shares, so running runs get it too), :450-460 (missing
// tasks, start_date), :262-264 with airflow/utils/state.py:52-63 (removed
// task instances are left out of the run's decision).
func TestScheduler_ReplacedDAGChangesRunningRuns(t *testing.T) {
	t.Parallel()
	const before = `
dag_id: grows
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: gate, operator: PythonOperator, pool: closed, downstream: [after, gone, back]}
  - {task_id: after, operator: DummyOperator}
  - {task_id: gone, operator: DummyOperator}
  - {task_id: back, operator: DummyOperator}
`
	// first is new and upstream of after, which already has a task
	// instance waiting: without first's, after could never start.
	const without = `
dag_id: grows
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: gate, operator: PythonOperator, pool: closed, downstream: [first]}
  - {task_id: first, operator: DummyOperator, downstream: [after]}
  - {task_id: after, operator: DummyOperator}
  - {task_id: future, operator: DummyOperator, start_date: 2024-02-01}
`
	const restored = without + `  - {task_id: back, operator: DummyOperator, upstream: [gate]}
`
	for _, ed := range allEditions {
		t.Run(string(ed), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, ed, withExamplesPaused())
			sched := newScheduler(schedulerOptions{Store: ts.store, Edition: ed, Logger: zerolog.New(zerolog.NewTestWriter(t)),
				Now: func() time.Time { return testNow }, Parallelism: 8, Unixname: testUnixname, Hostname: "test",
				RunTask: func(ctx context.Context, job taskJob) taskOutcome {
					t.Errorf("%s ran: only DummyOperators may run", job.key)
					return taskOutcome{state: TaskFailed}
				}})
			t.Cleanup(sched.stop)
			tick := func() {
				t.Helper()
				if err := sched.tick(testNow); err != nil {
					t.Fatalf("tick: %v", err)
				}
			}
			states := func(runID string) map[string]TaskState {
				t.Helper()
				tis, err := ts.store.TaskInstancesOfRun("grows", runID)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]TaskState{}
				for _, ti := range tis {
					got[ti.TaskID] = ti.State
				}
				return got
			}
			expect(t, ts.do(t, "POST", "/_airlite/dags", before), 200)
			runID := ts.trigger(t, "grows", `{"execution_date": "2024-01-10T00:00:00+00:00"}`)["run_id"].(string)
			tick()
			if got := states(runID)["gate"]; got != TaskScheduled {
				t.Fatalf("gate = %q, want scheduled (it waits for its pool)", orNone(got))
			}

			expect(t, ts.do(t, "POST", "/_airlite/dags", without), 200, `"replaced":true`)
			tick()
			got := states(runID)
			if got["gone"] != TaskRemoved || got["back"] != TaskRemoved {
				t.Errorf("gone, back = %q, %q, want removed", orNone(got["gone"]), orNone(got["back"]))
			}
			if s, ok := got["first"]; !ok || s != TaskNone {
				t.Errorf("first = %q (present %v), want a task instance in no state", orNone(s), ok)
			}
			if s, ok := got["future"]; ok {
				t.Errorf("future has a task instance (%q): its start_date is after the run's date", orNone(s))
			}
			if run, err := ts.store.RunByRunID("grows", runID); err != nil || run.State != RunRunning {
				t.Fatalf("run = %v, %v, want running", run, err)
			}

			expect(t, ts.do(t, "POST", "/_airlite/dags", restored), 200)
			tick()
			if got := states(runID)["back"]; got != TaskNone {
				t.Errorf("back after it returns = %q, want no state", orNone(got))
			}

			expect(t, ts.do(t, "POST", "/_airlite/dags/grows/dag_runs/"+url.PathEscape(runID)+"/tasks/gate/state", `{"state": "success"}`), 200)
			tick()
			want := map[string]TaskState{"gate": TaskSuccess, "first": TaskSuccess, "after": TaskSuccess, "back": TaskSuccess, "gone": TaskRemoved}
			got = states(runID)
			for id, w := range want {
				if got[id] != w {
					t.Errorf("%s = %q, want %q", id, orNone(got[id]), w)
				}
			}
			if run, err := ts.store.RunByRunID("grows", runID); err != nil || run.State != RunSuccess {
				t.Errorf("run = %v, %v, want success: a removed task instance counts for nothing", run, err)
			}
		})
	}
}

// A task removed from its DAG while its try runs: the task instance
// becomes removed, the try is stopped and its result dropped, and the run
// ends on the tasks left (Airflow 2.10.3 airflow/models/dagrun.py:971-980,
// airflow/jobs/local_task_job_runner.py:345-349; 1.10.15
// airflow/models/dagrun.py:428-438, airflow/jobs/local_task_job.py:152-167).
func TestScheduler_RemovedTaskStopsItsTry(t *testing.T) {
	t.Parallel()
	for _, ed := range allEditions {
		t.Run(string(ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: slow, operator: PythonOperator}
  - {task_id: kept, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = ed })
				h.runner.hold("slow")
				runID := h.trigger("d", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				if got := h.ti("d", runID, "slow").State; got != TaskRunning {
					t.Fatalf("slow = %q, want running", orNone(got))
				}
				smaller, err := parseDAG([]byte("dag_id: d\nschedule_interval: null\nstart_date: 2024-01-01\n" +
					"tasks:\n  - {task_id: kept, operator: PythonOperator}\n"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := h.store.UpsertDAG(smaller); err != nil {
					t.Fatal(err)
				}
				h.settle()
				if got := h.ti("d", runID, "slow"); got.State != TaskRemoved || got.TryNumber != 1 {
					t.Errorf("slow = %q try %d, want removed, its stopped try's result dropped", orNone(got.State), got.TryNumber)
				}
				if n := len(h.sched.running()); n != 0 {
					t.Errorf("%d tries still running, want slow's stopped", n)
				}
				if got := h.runState("d", runID); got != RunSuccess {
					t.Errorf("run = %q, want success", got)
				}
			})
		})
	}
}
