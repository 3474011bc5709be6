package main

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestScheduler_MaxActiveRunsPerEdition: three triggered runs of a DAG
// with max_active_runs 1, the first one's task held running.
func TestScheduler_MaxActiveRunsPerEdition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed edition
		// the later runs' state and their task's while the first runs
		later, laterTask RunState
		cite             string
	}{
		// Queued runs start under the limit.
		{edition2, RunQueued, "", "2.10.3 airflow/jobs/scheduler_job_runner.py:1580 (_start_queued_dagruns)"},
		// Triggered runs are created running; the scheduler examines
		// running runs by execution date and stops at max_active_runs.
		{edition110, RunRunning, "", "1.10.15 airflow/jobs/scheduler_job.py:768-783, airflow/models/dagrun.py:161"},
		{edition110RBAC, RunRunning, "", "1.10.15 airflow/jobs/scheduler_job.py:781-783"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
max_active_runs: 1
tasks:
  - {task_id: a, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				release := h.runner.hold("a")
				var ids []string
				for i := 3; i >= 1; i-- { // created out of date order
					ids = append([]string{h.trigger("d", fmt.Sprintf(`{"run_id": "r%d", "execution_date": "2024-01-0%d"}`, i, i))}, ids...)
				}
				h.settle()
				if got := h.ti("d", ids[0], "a").State; got != TaskRunning {
					t.Fatalf("the earliest run's task = %q, want running (%s)", orNone(got), tc.cite)
				}
				for _, id := range ids[1:] {
					if got := h.runState("d", id); got != tc.later {
						t.Errorf("run %s = %q, want %q (%s)", id, got, tc.later, tc.cite)
					}
					if got := h.ti("d", id, "a").State; got != TaskNone {
						t.Errorf("task of run %s = %q, want no state (%s)", id, orNone(got), tc.cite)
					}
				}
				close(release)
				h.settle()
				for _, id := range ids {
					if got := h.runState("d", id); got != RunSuccess {
						t.Errorf("run %s = %q after the first ended, want success", id, got)
					}
				}
			})
		})
	}
}

// TestScheduler_DagrunTimeoutPerEdition: which runs time out, and what
// becomes of their task instances.
func TestScheduler_DagrunTimeoutPerEdition(t *testing.T) {
	t.Parallel()
	const dagText = `
dag_id: d
schedule_interval: '@daily'
catchup: false
start_date: 2024-01-01
dagrun_timeout: 10m
tasks:
  - {task_id: slow, operator: PythonOperator, downstream: [after]}
  - {task_id: after, operator: PythonOperator}
`
	cases := []struct {
		name      string
		ed        edition
		triggered bool
		wantRun   RunState
		// the tasks when the run has timed out, and after slow's try ends
		wantSlow, wantAfter TaskState
		wantSlowEnds        TaskState
		cite                string
	}{
		{"2: a scheduled run", edition2, false, RunFailed, TaskSkipped, TaskSkipped, TaskSkipped,
			"2.10.3 airflow/jobs/scheduler_job_runner.py:1643-1658"},
		{"2: a triggered run", edition2, true, RunFailed, TaskSkipped, TaskSkipped, TaskSkipped,
			"2.10.3 airflow/jobs/scheduler_job_runner.py:1643-1658 (every run)"},
		{"1.10: a scheduled run", edition110, false, RunFailed, TaskRunning, TaskNone, TaskSuccess,
			"1.10.15 airflow/jobs/scheduler_job.py:645-655 (no task changes), :1531-1541"},
		{"1.10: a triggered run never times out", edition110, true, RunRunning, TaskRunning, TaskNone, TaskSuccess,
			"1.10.15 airflow/jobs/scheduler_job.py:636-641 (external_trigger=False)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": dagText}, func(o *schedulerOptions) { o.Edition = tc.ed })
				release := h.runner.hold("slow")
				if tc.triggered {
					if err := h.store.SetPaused("d", true, true); err != nil {
						t.Fatal(err)
					}
					h.trigger("d", `{"run_id": "manual", "execution_date": "2024-01-10T00:00:00+00:00"}`)
					if err := h.store.SetPaused("d", false, true); err != nil {
						t.Fatal(err)
					}
				}
				h.settle()
				runs := h.runsOf("d")
				var run *DagRun
				for _, r := range runs {
					if r.ExternalTrigger == tc.triggered {
						run = r
					}
				}
				if run == nil {
					t.Fatalf("no run of the kind in %v", runs)
				}
				h.clock.Advance(11 * time.Minute)
				h.settle()
				if got := h.runState("d", run.RunID); got != tc.wantRun {
					t.Errorf("run = %q, want %q (%s)", got, tc.wantRun, tc.cite)
				}
				if got := h.ti("d", run.RunID, "slow").State; got != tc.wantSlow {
					t.Errorf("slow = %q, want %q (%s)", orNone(got), orNone(tc.wantSlow), tc.cite)
				}
				if got := h.ti("d", run.RunID, "after").State; got != tc.wantAfter {
					t.Errorf("after = %q, want %q (%s)", orNone(got), orNone(tc.wantAfter), tc.cite)
				}
				close(release)
				h.settle()
				if got := h.ti("d", run.RunID, "slow").State; got != tc.wantSlowEnds {
					t.Errorf("slow once its try ends = %q, want %q (%s)", orNone(got), orNone(tc.wantSlowEnds), tc.cite)
				}
			})
		})
	}
}

// TestScheduler_TaskStartDateAfterTheRun: a task whose start_date (or, in
// Airflow 2, end_date) leaves out the run's logical date gets no task
// instance, and the run ends without it.
func TestScheduler_TaskStartDateAfterTheRun(t *testing.T) {
	t.Parallel()
	const dagText = `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
  - {task_id: late, operator: PythonOperator, start_date: 2024-01-05}
  - {task_id: ended, operator: PythonOperator, end_date: 2024-01-02}
`
	cases := []struct {
		ed       edition
		wantTIs  []string // task instances of a run at 2024-01-03, by task_id
		cite     string
		backfill bool
	}{
		{edition2, []string{"a"}, "2.10.3 airflow/models/dagrun.py:1231-1236 (task_filter)", false},
		{edition2, []string{"a", "ended", "late"}, "2.10.3 airflow/models/dagrun.py:1233 (is_backfill)", true},
		{edition110, []string{"a", "ended"}, "1.10.15 airflow/models/dagrun.py:450-452 (start_date only)", false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/backfill=%v", tc.ed, tc.backfill), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": dagText}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.runner.hold("ended") // in 1.10 its task instance exists; keep it out of the outcome
				runID := "manual__x"
				if tc.backfill {
					runID = "backfill__x"
				}
				h.trigger("d", fmt.Sprintf(`{"run_id": %q, "execution_date": "2024-01-03T00:00:00+00:00"}`, runID))
				tis, err := h.store.TaskInstancesOfRun("d", runID)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, ti := range tis {
					got = append(got, ti.TaskID)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.wantTIs) {
					t.Fatalf("task instances %v, want %v (%s)", got, tc.wantTIs, tc.cite)
				}
				if len(tc.wantTIs) == 1 {
					h.settle()
					if got := h.runState("d", runID); got != RunSuccess {
						t.Errorf("run = %q, want success without the left-out tasks", got)
					}
				}
			})
		})
	}
}

// TestScheduler_TriggeredRunInTheFutureWaits: a run triggered for a date
// after now waits until that date.
func TestScheduler_TriggeredRunInTheFutureWaits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed      edition
		waiting RunState
		cite    string
	}{
		// Queued and running runs are examined only once their date has come.
		{edition2, RunQueued, "2.10.3 airflow/models/dagrun.py:431-432 (next_dagruns_to_examine), airflow/jobs/scheduler_job_runner.py:1690"},
		// Running runs dated in the future are passed over.
		{edition110, RunRunning, "1.10.15 airflow/jobs/scheduler_job.py:772-779"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				// The clock is at 2024-01-10 12:00.
				runID := h.trigger("d", `{"execution_date": "2024-01-11T00:00:00+00:00"}`)
				h.settle()
				if got := h.runState("d", runID); got != tc.waiting {
					t.Errorf("run before its date = %q, want %q (%s)", got, tc.waiting, tc.cite)
				}
				if got := h.ti("d", runID, "a").State; got != TaskNone {
					t.Errorf("task before the run's date = %q, want no state (%s)", orNone(got), tc.cite)
				}
				h.clock.Advance(12 * time.Hour)
				h.settle()
				if got := h.runState("d", runID); got != RunSuccess {
					t.Errorf("run at its date = %q, want success", got)
				}
			})
		})
	}
}

// TestScheduler_DeadlockFailsTheRun: a task waiting on an upstream task
// that has no task instance in the run (its start_date is after the
// run's date) can never run; Airflow fails the run as deadlocked. A
// depends_on_past task waiting on the previous run is no deadlock.
func TestScheduler_DeadlockFailsTheRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed   edition
		cite string
	}{
		{edition2, "2.10.3 airflow/models/dagrun.py:783-790 (should_schedule), :809-816, :873-877; trigger_rule_dep.py:375 (done counts task instances)"},
		{edition110, "1.10.15 airflow/models/dagrun.py:270-283, :311-316"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{
					"late.yaml": `
dag_id: late
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: late, operator: PythonOperator, start_date: 2024-01-05, downstream: [after]}
  - {task_id: after, operator: PythonOperator, trigger_rule: all_done}
`,
					"past.yaml": `
dag_id: past
schedule_interval: null
catchup: false
start_date: 2024-01-01
tasks:
  - {task_id: past, operator: PythonOperator, depends_on_past: true}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.runner.outcomes["past"] = []TaskState{TaskFailed}
				first := h.trigger("past", `{"execution_date": "2024-01-06T00:00:00+00:00"}`)
				second := h.trigger("past", `{"execution_date": "2024-01-07T00:00:00+00:00"}`)
				stuck := h.trigger("late", `{"execution_date": "2024-01-03T00:00:00+00:00"}`)
				h.settle()
				if got := h.runState("past", first); got != RunFailed {
					t.Errorf("first run = %q, want failed", got)
				}
				// Its task waits on the first run's failed one: no deadlock.
				if got := h.runState("past", second); got != RunRunning {
					t.Errorf("second run = %q, want running: its depends_on_past task waits (%s)", got, tc.cite)
				}
				if got := h.runState("late", stuck); got != RunFailed {
					t.Errorf("run whose task waits on a task without an instance = %q, want failed (%s)", got, tc.cite)
				}
				if got := h.ti("late", stuck, "after").State; got != TaskNone {
					t.Errorf("after = %q, want no state", orNone(got))
				}
			})
		})
	}
}

// TestScheduler_ScheduleCountsTriggeredRuns: whether a triggered run
// takes one of max_active_runs from the schedule.
func TestScheduler_ScheduleCountsTriggeredRuns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed        edition
		scheduled int // scheduled runs created while the triggered one runs
		cite      string
	}{
		{edition2, 0, "2.10.3 airflow/models/dagrun.py:367-384 (active_runs_of_dags counts every run), airflow/jobs/scheduler_job_runner.py:1512"},
		{edition110, 1, "1.10.15 airflow/jobs/scheduler_job.py:636-644 (external_trigger=False)"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: '@daily'
catchup: false
start_date: 2024-01-01
max_active_runs: 1
tasks:
  - {task_id: a, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				if err := h.store.SetPaused("d", true, true); err != nil {
					t.Fatal(err)
				}
				h.runner.hold("a")
				h.trigger("d", `{"execution_date": "2024-01-08T00:00:00+00:00"}`)
				if err := h.store.SetPaused("d", false, true); err != nil {
					t.Fatal(err)
				}
				h.settle()
				n := 0
				for _, run := range h.runsOf("d") {
					if !run.ExternalTrigger {
						n++
					}
				}
				if n != tc.scheduled {
					t.Errorf("%d scheduled runs, want %d (%s)", n, tc.scheduled, tc.cite)
				}
			})
		})
	}
}

// TestScheduler_BackfillRunIDsNeverRun: a triggered run whose run_id has
// the release's backfill prefix is a backfill run, which the scheduler
// never examines: it stays as created, its tasks in no state, and it
// does not hold back the DAG's other runs.
func TestScheduler_BackfillRunIDsNeverRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed       edition
		runID    string
		want     RunState // the run's state once the scheduler settles
		backfill bool
		cite     string
	}{
		{edition2, "backfill__b", RunQueued, true,
			"2.10.3 airflow/models/dag.py:3152-3158 (run_type from the run_id), airflow/utils/types.py:78,89-95, " +
				"airflow/models/dagrun.py:410 (never examined, so never started)"},
		{edition2, "backfill_b", RunSuccess, false, "2.10.3 airflow/utils/types.py:93 (the prefix is backfill__)"},
		{edition110, "backfill_b", RunRunning, true,
			"1.10.15 airflow/jobs/scheduler_job.py:785-787, airflow/models/dagrun.py:492-497, airflow/jobs/backfill_job.py:54"},
		{edition110RBAC, "backfill_b", RunRunning, true, "1.10.15 airflow/jobs/scheduler_job.py:785-787"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed)+"/"+tc.runID, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
max_active_runs: 1
tasks:
  - {task_id: a, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.trigger("d", `{"run_id": "`+tc.runID+`", "execution_date": "2024-01-02T00:00:00+00:00"}`)
				later := h.trigger("d", `{"execution_date": "2024-01-03T00:00:00+00:00"}`)
				h.settle()
				if got := h.runState("d", tc.runID); got != tc.want {
					t.Errorf("run %s = %q, want %q (%s)", tc.runID, got, tc.want, tc.cite)
				}
				if ran := h.runner.startCount(tiKey{"d", tc.runID, "a", -1}); tc.backfill && ran != 0 {
					t.Errorf("task a of %s ran %d times, want never (%s)", tc.runID, ran, tc.cite)
				}
				if got := h.ti("d", tc.runID, "a").State; tc.backfill && got != TaskNone {
					t.Errorf("task a of %s = %q, want no state (%s)", tc.runID, got, tc.cite)
				}
				if got := h.runState("d", later); got != RunSuccess {
					t.Errorf("the later manual run = %q, want success: a backfill run does not count toward max_active_runs (%s)", got, tc.cite)
				}
			})
		})
	}
}
