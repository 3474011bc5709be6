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
