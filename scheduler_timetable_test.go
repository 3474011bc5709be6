package main

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestScheduler_DeltaScheduleWithoutCatchup: a duration schedule without
// catchup takes its latest interval aligned to the duration since the
// epoch in Airflow 2, and "now minus the interval" in 1.10.
func TestScheduler_DeltaScheduleWithoutCatchup(t *testing.T) {
	t.Parallel()
	// The clock starts at schedEpoch (2024-01-10 12:00 UTC) plus skew.
	const skew = 87*time.Minute + 45*time.Second + 123456*time.Microsecond // 13:27:45.123456
	cases := []struct {
		name     string
		ed       edition
		schedule string
		later    time.Duration // a second pass this much later
		want     []string
		cite     string
	}{
		{"2: 6h aligns to the epoch", edition2, "6h", time.Minute,
			[]string{"scheduled__2024-01-10T06:00:00+00:00"},
			"2.10.3 airflow/timetables/interval.py:249-257 (_round) and :259-272 (_skip_to_latest)"},
		{"2: 1d aligns to midnight UTC", edition2, "1d", time.Hour,
			[]string{"scheduled__2024-01-09T00:00:00+00:00"},
			"2.10.3 airflow/timetables/interval.py:259-272"},
		{"2: the next interval follows the last one", edition2, "6h", 5 * time.Hour,
			[]string{"scheduled__2024-01-10T06:00:00+00:00", "scheduled__2024-01-10T12:00:00+00:00"},
			"2.10.3 airflow/timetables/interval.py:103-116"},
		{"1.10: 6h is now minus the interval", edition110, "6h", 0,
			[]string{"scheduled__2024-01-10T07:27:45.123456+00:00"},
			"1.10.15 airflow/jobs/scheduler_job.py:676-692 and :749-756"},
		{"1.10: later passes wait for the interval after it", edition110, "6h", 5 * time.Hour,
			[]string{"scheduled__2024-01-10T07:27:45.123456+00:00"},
			"1.10.15 airflow/jobs/scheduler_job.py:705 and :749"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"s.yaml": fmt.Sprintf(`
dag_id: s
schedule_interval: %s
catchup: false
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: EmptyOperator}
`, tc.schedule)}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.clock.Advance(skew)
				h.settle()
				if tc.later > 0 {
					h.clock.Advance(tc.later)
					h.settle()
				}
				var got []string
				for _, run := range h.runsOf("s") {
					got = append(got, run.RunID)
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("runs\n got %v\nwant %v (%s)", got, tc.want, tc.cite)
				}
			})
		})
	}
}

// TestScheduler_TaskEndDatesEndTheSchedule: where a schedule ends when
// tasks have end dates. Airflow 2.10.3 ends it at the DAG's end_date, or,
// when the DAG has none and every task has one (default_args' end_date),
// at the latest task end_date (airflow/models/dag.py:1213-1219,
// airflow/timetables/interval.py:113). Airflow 1.10.15 ends it at the
// earliest end_date of the DAG or any task
// (airflow/jobs/scheduler_job.py:737,742-747). Tasks' end dates are
// capped by the DAG's in both (2.10.3 dag.py:2832-2837, 1.10.15
// dag.py:1328-1333). The clock is at 2024-01-10 12:00, a @daily schedule
// from 2024-01-01 with catchup.
func TestScheduler_TaskEndDatesEndTheSchedule(t *testing.T) {
	t.Parallel()
	const head = "dag_id: d\nschedule_interval: '@daily'\ncatchup: true\n"
	cases := []struct {
		name  string
		def   string
		runs2 int // scheduled runs in edition 2
		runs1 int // and in the 1.10 editions
	}{
		{"default_args end_date", head + "default_args: {start_date: 2024-01-01, end_date: 2024-01-03}\n" +
			"tasks:\n  - {task_id: a, operator: PythonOperator}\n  - {task_id: b, operator: PythonOperator}\n", 3, 3},
		{"one task's end_date", head + "start_date: 2024-01-01\n" +
			"tasks:\n  - {task_id: a, operator: PythonOperator, end_date: 2024-01-03}\n  - {task_id: b, operator: PythonOperator}\n", 9, 3},
		{"DAG end_date after the tasks'", head + "start_date: 2024-01-01\nend_date: 2024-01-05\n" +
			"tasks:\n  - {task_id: a, operator: PythonOperator, end_date: 2024-01-03}\n", 5, 3},
		{"task end_date after the DAG's", head + "start_date: 2024-01-01\nend_date: 2024-01-02\n" +
			"tasks:\n  - {task_id: a, operator: PythonOperator, end_date: 2024-01-07}\n", 2, 2},
	}
	for _, tc := range cases {
		for _, ed := range allEditions {
			t.Run(tc.name+"/"+string(ed), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					h := newSchedHarness(t, map[string]string{"d.yaml": tc.def}, func(o *schedulerOptions) { o.Edition = ed })
					h.settle()
					var dates []string
					for _, run := range h.runsOf("d") {
						if !run.ExternalTrigger {
							dates = append(dates, run.ExecutionDate.Format(time.DateOnly))
						}
					}
					want := tc.runs2
					if ed != edition2 {
						want = tc.runs1
					}
					if len(dates) != want {
						t.Errorf("scheduled runs %v, want %d from 2024-01-01", dates, want)
					}
				})
			})
		}
	}
}
