package main

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestScheduler_DependsOnPast: a depends_on_past task waits for the same
// task of the DAG's previous run, the run each release calls previous.
func TestScheduler_DependsOnPast(t *testing.T) {
	t.Parallel()
	const dagText = `
dag_id: past
schedule_interval: %s
catchup: %v
start_date: %s
max_active_runs: 16
tasks:
  - {task_id: t, operator: PythonOperator, depends_on_past: true}
`
	jan := func(day int) time.Time { return time.Date(2024, 1, day, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		name     string
		ed       edition
		schedule string
		catchup  bool
		start    string
		fail     bool        // t's tries fail
		trigger  []time.Time // runs triggered, in order, after the schedule's
		// the state of t in each run by date (none: it waits)
		want map[time.Time]TaskState
		cite string
	}{
		{"2: scheduled runs wait for a failed first", edition2, "'@daily'", true, "2024-01-01", true, nil,
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskNone, jan(9): TaskNone},
			"2.10.3 airflow/ti_deps/deps/prev_dagrun_dep.py:181-188"},
		{"1.10: scheduled runs wait for a failed first", edition110, "'@daily'", true, "2024-01-01", true, nil,
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskNone, jan(9): TaskNone},
			"1.10.15 airflow/ti_deps/deps/prev_dagrun_dep.py:75-79"},
		{"2: with catchup, manual runs have no previous run", edition2, "null", true, "2024-01-01", true, []time.Time{jan(1), jan(2)},
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskFailed},
			"2.10.3 prev_dagrun_dep.py:147-157 (get_previous_scheduled_dagrun, dagrun.py:712-732, leaves manual runs out)"},
		{"1.10: with catchup and no schedule, there is no previous run", edition110, "null", true, "2024-01-01", true, []time.Time{jan(1), jan(2)},
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskFailed},
			"1.10.15 prev_dagrun_dep.py:49-54"},
		{"2: without catchup, the previous run of any kind", edition2, "null", false, "2024-01-01", true, []time.Time{jan(1), jan(2)},
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskNone},
			"2.10.3 prev_dagrun_dep.py:150-151, dagrun.py:691-707"},
		{"1.10: without catchup, the previous run of any kind", edition110, "null", false, "2024-01-01", true, []time.Time{jan(1), jan(2)},
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskNone},
			"1.10.15 prev_dagrun_dep.py:59-66, taskinstance.py:599-606"},
		{"2: the previous run is by date, not by creation", edition2, "null", false, "2024-01-01", true, []time.Time{jan(2), jan(1)},
			map[time.Time]TaskState{jan(1): TaskFailed, jan(2): TaskNone},
			"2.10.3 dagrun.py:701-707 (order by execution_date)"},
		// A yearly schedule: its run of 2023-01-01 succeeds; a run
		// triggered on 2024-01-03 follows it in 2, and in 1.10 waits for
		// a run at the schedule's previous date, 2024-01-01, which is not there.
		{"2: with catchup, the latest run that is not manual", edition2, "'0 0 1 1 *'", true, "2023-01-01", false, []time.Time{jan(3)},
			map[time.Time]TaskState{jan(3): TaskSuccess},
			"2.10.3 prev_dagrun_dep.py:147-149, dagrun.py:712-732"},
		{"1.10: with catchup, the run at the schedule's previous date", edition110, "'0 0 1 1 *'", true, "2023-01-01", false, []time.Time{jan(3)},
			map[time.Time]TaskState{jan(3): TaskNone},
			"1.10.15 taskinstance.py:600-601 with dagrun.py:242-249, then prev_dagrun_dep.py:68-73"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"past.yaml": fmt.Sprintf(dagText, tc.schedule, tc.catchup, tc.start)},
					func(o *schedulerOptions) { o.Edition = tc.ed })
				if tc.fail {
					h.runner.outcomes["t"] = []TaskState{TaskFailed}
				}
				h.settle()
				for _, d := range tc.trigger {
					h.trigger("past", fmt.Sprintf(`{"execution_date": %q}`, isoFormat(d)))
				}
				h.settle()
				for date, want := range tc.want {
					run, err := h.store.RunByDate("past", date)
					if err != nil {
						t.Fatalf("run at %s: %v", isoFormat(date), err)
					}
					if got := h.ti("past", run.RunID, "t").State; got != want {
						t.Errorf("t at %s = %q, want %q (%s)", isoFormat(date), orNone(got), orNone(want), tc.cite)
					}
				}
			})
		})
	}
}

// TestScheduler_DependsOnPast_TaskNewerThanPreviousRun: the previous run
// has no task instance of the task (it was added to the DAG since).
func TestScheduler_DependsOnPast_TaskNewerThanPreviousRun(t *testing.T) {
	t.Parallel()
	const before = `
dag_id: grows
schedule_interval: null
catchup: false
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
`
	const after = before + "  - {task_id: t, operator: PythonOperator, depends_on_past: true}\n"
	cases := []struct {
		ed   edition
		want TaskState
		cite string
	}{
		// ignore_first_depends_on_past (True by default): no earlier run
		// ever had t, so this is its first task instance.
		{edition2, TaskSuccess, "2.10.3 airflow/ti_deps/deps/prev_dagrun_dep.py:165-173"},
		// No previous task instance: it waits.
		{edition110, TaskNone, "1.10.15 airflow/ti_deps/deps/prev_dagrun_dep.py:68-73"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"grows.yaml": before}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.trigger("grows", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
				h.settle()
				grown, err := parseDAG([]byte(after))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := h.store.UpsertDAG(grown); err != nil {
					t.Fatal(err)
				}
				runID := h.trigger("grows", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				if got := h.ti("grows", runID, "t").State; got != tc.want {
					t.Errorf("t = %q, want %q (%s)", orNone(got), orNone(tc.want), tc.cite)
				}
			})
		})
	}
}
