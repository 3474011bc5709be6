package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
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

// TestScheduler_Edition3Timetables: Airflow 3.2.1 reads a cron schedule
// as a CronTriggerTimetable and a duration as a DeltaTriggerTimetable
// ([scheduler] create_cron_data_intervals and create_delta_data_intervals
// are False; config.yml of the 3.2.0-era main Phinhas214/airflow c57fba0e,
// lines 2561-2597). Both fire at a time that is the run's logical date and
// run_after, with the instant as its data interval (interval defaults to
// timedelta(0)); with catchup the first run is start_date's first tick (a
// duration's: start_date itself), without it the latest of now's tick (a
// duration's: now itself), the tick after the last run and start_date's
// first tick (_TriggerTimetable.next_dagrun_info, timetables/trigger.py:
// 76-104; a duration's alignments are the identity, _delta.py:67-71). No
// run fires after end_date (trigger.py:99). The clock starts at
// schedEpoch, 2024-01-10 12:00 UTC.
func TestScheduler_Edition3Timetables(t *testing.T) {
	t.Parallel()
	at := func(d, h, m int) time.Time { return time.Date(2024, 1, d, h, m, 0, 0, time.UTC) }
	cases := []struct {
		name, schedule, extra string
		skew                  time.Duration   // the clock moves before the first pass
		later                 []time.Duration // a pass after each move
		want                  []time.Time
	}{
		{"cron with catchup starts at start_date's tick", "'@daily'", "catchup: true\nstart_date: 2024-01-08", 0, nil,
			[]time.Time{at(8, 0, 0), at(9, 0, 0), at(10, 0, 0)}},
		{"cron with catchup from between ticks", "'@daily'", "catchup: true\nstart_date: 2024-01-08T06:00:00+00:00", 0, nil,
			[]time.Time{at(9, 0, 0), at(10, 0, 0)}},
		{"cron with catchup stops at end_date", "'@daily'", "catchup: true\nstart_date: 2024-01-01\nend_date: 2024-01-03", 0, nil,
			[]time.Time{at(1, 0, 0), at(2, 0, 0), at(3, 0, 0)}},
		{"cron without catchup takes now's tick", "'@daily'", "catchup: false\nstart_date: 2023-12-31", 0,
			[]time.Duration{24 * time.Hour}, []time.Time{at(10, 0, 0), at(11, 0, 0)}},
		{"duration with catchup starts at start_date", "6h", "catchup: true\nstart_date: 2024-01-09T03:00:00+00:00", 0, nil,
			[]time.Time{at(9, 3, 0), at(9, 9, 0), at(9, 15, 0), at(9, 21, 0), at(10, 3, 0), at(10, 9, 0)}},
		{"duration with catchup stops at end_date", "6h", "catchup: true\nstart_date: 2024-01-10\nend_date: 2024-01-10T06:00:00+00:00", 0, nil,
			[]time.Time{at(10, 0, 0), at(10, 6, 0)}},
		{"duration without catchup fires now, then a duration later", "1d", "catchup: false\nstart_date: 2021-01-01", 37 * time.Minute,
			[]time.Duration{time.Hour, 23 * time.Hour, 25 * time.Hour},
			[]time.Time{at(10, 12, 37), at(11, 12, 37), at(12, 13, 37)}},
		// A pass a little after a fire time (within a parse interval)
		// dates the run at that time, as Airflow's next_dagrun, worked
		// out when the last run was made, says; long after, now.
		{"duration without catchup keeps its step when a pass comes late", "1d", "catchup: false\nstart_date: 2021-01-01", 37 * time.Minute,
			[]time.Duration{24*time.Hour + 2*time.Second, 24*time.Hour - time.Second},
			[]time.Time{at(10, 12, 37), at(11, 12, 37), at(12, 12, 37)}},
		{"duration without catchup waits for start_date", "6h", "catchup: false\nstart_date: 2024-01-11", 0,
			[]time.Duration{11 * time.Hour, time.Hour}, []time.Time{at(11, 0, 0)}},
		// Without a start_date (trigger.py:147-148 and :216-237).
		{"duration without a start_date fires now", "6h", "catchup: false", 5 * time.Minute,
			[]time.Duration{6 * time.Hour}, []time.Time{at(10, 12, 5), at(10, 18, 5)}},
		{"cron without a start_date waits for the next tick", "'@daily'", "catchup: false", 0,
			[]time.Duration{11 * time.Hour, time.Hour}, []time.Time{at(11, 0, 0)}},
		{"cron without a start_date takes a tick just past", "'@hourly'", "catchup: false", 6 * time.Minute,
			nil, []time.Time{at(10, 12, 0)}},
		{"cron without a start_date passes a tick longer past", "'@hourly'", "catchup: false", 7 * time.Minute,
			[]time.Duration{53 * time.Minute}, []time.Time{at(10, 13, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"s.yaml": "dag_id: s\nschedule_interval: " + tc.schedule + "\n" + tc.extra +
					"\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"}, func(o *schedulerOptions) { o.Edition = edition3 })
				h.clock.Advance(tc.skew)
				h.settle()
				for _, by := range tc.later {
					h.clock.Advance(by)
					h.settle()
				}
				runs := h.runsOf("s")
				var got []string
				for _, run := range runs {
					got = append(got, run.RunID)
				}
				var want []string
				for _, w := range tc.want {
					want = append(want, "scheduled__"+isoFormat(w))
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("runs\n got %v\nwant %v", got, want)
				}
				for i, run := range runs {
					w := tc.want[i]
					ld, _ := run.LogicalDate()
					if !ld.Equal(w) || !run.After().Equal(w) || run.DataIntervalStart == nil || !run.DataIntervalStart.Equal(w) ||
						run.DataIntervalEnd == nil || !run.DataIntervalEnd.Equal(w) {
						t.Errorf("run %s: logical %v run_after %v interval %v..%v, want each %v", run.RunID, ld, run.After(),
							run.DataIntervalStart, run.DataIntervalEnd, w)
					}
				}
			})
		})
	}
}

// TestAPIv2_Edition3NextDagrun: under the fake clock, an Airflow 3.2.1
// DAG's scheduled runs and its next_dagrun fields follow its trigger
// timetable. DagModel's next_dagrun fields are the timetable's next
// DagRunInfo (models/dag.py:728-770 calculate_dagrun_date_fields of the
// 3.2.0-era main Phinhas214/airflow c57fba0e): for a trigger timetable
// the logical date, both ends of the interval and run_after are the
// next fire time. A paused DAG's is recomputed from now at each parse
// (dag_processing/collection.py:617-619), so it moves with the clock.
func TestAPIv2_Edition3NextDagrun(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(time.Date(2026, 12, 2, 6, 37, 0, 0, time.UTC))
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }),
		withExamplesOnly("example_bash_operator", "example_skip_dag", "tutorial"))
	for dagID, paused := range map[string]bool{"example_bash_operator": false, "example_skip_dag": false, "tutorial": true} {
		if err := ts.store.SetPaused(dagID, paused, true); err != nil {
			t.Fatal(err)
		}
	}
	runner := &fakeRunner{outcomes: map[string][]TaskState{}, held: map[string]chan struct{}{}, starts: map[tiKey]int{}}
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 32, RunTask: runner.run, Unixname: testUnixname})
	t.Cleanup(sched.stop)
	settleTicks(t, sched, clock.Now)

	type next struct{ dagID, logical, start, end, runAfter string }
	check := func(when string, runs map[string][]string, nexts []next) {
		t.Helper()
		for dagID, want := range runs {
			var got []string
			all, err := ts.store.RunsOfDag(dagID, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, run := range all {
				got = append(got, run.RunID)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: runs of %s %v, want %v", when, dagID, got, want)
			}
		}
		for _, n := range nexts {
			want := fmt.Sprintf(`{"next_dagrun_logical_date":%s,"next_dagrun_data_interval_start":%s,"next_dagrun_data_interval_end":%s,"next_dagrun_run_after":%s}`,
				n.logical, n.start, n.end, n.runAfter)
			for _, path := range []string{"/dags/" + n.dagID, "/dags/" + n.dagID + "/details", "/dags?dag_id_pattern=" + n.dagID} {
				v := ts.v2JSON(t, path)
				if dags, ok := v["dags"]; ok {
					var list []map[string]json.RawMessage
					if err := json.Unmarshal(dags, &list); err != nil || len(list) != 1 {
						t.Fatalf("%s: GET %s: %s (%v)", when, path, dags, err)
					}
					v = list[0]
				}
				got := fmt.Sprintf(`{"next_dagrun_logical_date":%s,"next_dagrun_data_interval_start":%s,"next_dagrun_data_interval_end":%s,"next_dagrun_run_after":%s}`,
					v["next_dagrun_logical_date"], v["next_dagrun_data_interval_start"], v["next_dagrun_data_interval_end"], v["next_dagrun_run_after"])
				if got != want {
					t.Errorf("%s: GET %s\n got %s\nwant %s", when, path, got, want)
				}
			}
		}
		for _, dagID := range []string{"example_skip_dag", "tutorial"} {
			v := ts.v2JSON(t, "/dags/"+dagID+"/details")
			if got := string(v["timetable_summary"]) + " " + string(v["timetable_description"]); got != `"1 day, 0:00:00" ""` {
				t.Errorf("%s: %s timetable summary and description %s, want DeltaTriggerTimetable's", when, dagID, got)
			}
		}
	}
	q := func(s string) string { return `"` + s + `"` }
	check("at 06:37", map[string][]string{
		"example_bash_operator": {"scheduled__2026-12-02T00:00:00+00:00"},
		"example_skip_dag":      {"scheduled__2026-12-02T06:37:00+00:00"},
		"tutorial":              nil,
	}, []next{
		{"example_bash_operator", q("2026-12-03T00:00:00Z"), q("2026-12-03T00:00:00Z"), q("2026-12-03T00:00:00Z"), q("2026-12-03T00:00:00Z")},
		{"example_skip_dag", q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z")},
		{"tutorial", q("2026-12-02T06:37:00Z"), q("2026-12-02T06:37:00Z"), q("2026-12-02T06:37:00Z"), q("2026-12-02T06:37:00Z")},
	})
	expect(t, ts.do(t, "POST", "/_airlite/clock", `{"advance": "24h"}`), 200)
	settleTicks(t, sched, clock.Now)
	check("a day later", map[string][]string{
		"example_bash_operator": {"scheduled__2026-12-02T00:00:00+00:00", "scheduled__2026-12-03T00:00:00+00:00"},
		"example_skip_dag":      {"scheduled__2026-12-02T06:37:00+00:00", "scheduled__2026-12-03T06:37:00+00:00"},
	}, []next{
		{"example_bash_operator", q("2026-12-04T00:00:00Z"), q("2026-12-04T00:00:00Z"), q("2026-12-04T00:00:00Z"), q("2026-12-04T00:00:00Z")},
		{"example_skip_dag", q("2026-12-04T06:37:00Z"), q("2026-12-04T06:37:00Z"), q("2026-12-04T06:37:00Z"), q("2026-12-04T06:37:00Z")},
		{"tutorial", q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z"), q("2026-12-03T06:37:00Z")},
	})
}

// TestSchedulingRules_PlannedRun: the run each edition's timetables plan
// next, due or not (the DAG's next_dagrun fields). Editions 2 and 1.10
// plan data intervals, run after their end (2.10.3 timetables/
// interval.py; 1.10.15 jobs/scheduler_job.py:676-692); edition 3 plans
// trigger timetables' fire times, the logical date, run_after and the
// interval's two ends all at once (timetables/trigger.py:76-104 of the
// 3.2.0-era main Phinhas214/airflow c57fba0e).
func TestSchedulingRules_PlannedRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 1, 10, 13, 27, 45, 123456789, time.UTC)
	at := func(d, h, m int) time.Time { return time.Date(2024, 1, d, h, m, 0, 0, time.UTC) }
	nowMicro := now.Truncate(time.Microsecond)
	type plan struct{ logical, start, end, runAfter time.Time }
	instant := func(t time.Time) *plan { return &plan{t, t, t, t} }
	cases := []struct {
		name     string
		ed       edition
		schedule string
		catchup  bool
		start    time.Time
		end      *time.Time
		last     *time.Time
		want     *plan // nil: none
	}{
		{"2: 6h without catchup, aligned to the epoch", edition2, "6h", false, at(1, 0, 0), nil, nil,
			&plan{at(10, 6, 0), at(10, 6, 0), at(10, 12, 0), at(10, 12, 0)}},
		{"1.10: 6h without catchup, ending now", edition110, "6h", false, at(1, 0, 0), nil, nil,
			&plan{now.Add(-6 * time.Hour), now.Add(-6 * time.Hour), now, now}},
		{"2: daily with catchup after the last", edition2, "@daily", true, at(1, 0, 0), nil, ptr(at(3, 0, 0)),
			&plan{at(4, 0, 0), at(4, 0, 0), at(5, 0, 0), at(5, 0, 0)}},
		{"2: daily without catchup, the latest interval", edition2, "0 0 * * *", false, at(1, 0, 0), nil, nil,
			&plan{at(9, 0, 0), at(9, 0, 0), at(10, 0, 0), at(10, 0, 0)}},
		{"3: 6h without catchup fires now", edition3, "6h", false, at(1, 0, 0), nil, nil, instant(nowMicro)},
		{"3: 6h without catchup, a duration after the last", edition3, "6h", false, at(1, 0, 0), nil, ptr(at(10, 12, 0)),
			instant(at(10, 18, 0))},
		{"3: 6h without catchup, now when the last is older", edition3, "6h", false, at(1, 0, 0), nil, ptr(at(10, 6, 0)),
			instant(nowMicro)},
		{"3: 6h without catchup, start_date ahead", edition3, "6h", false, at(11, 0, 0), nil, nil, instant(at(11, 0, 0))},
		{"3: 6h with catchup starts at start_date", edition3, "6h", true, at(9, 3, 0), nil, nil, instant(at(9, 3, 0))},
		{"3: 6h with catchup after the last", edition3, "6h", true, at(9, 3, 0), nil, ptr(at(9, 9, 0)), instant(at(9, 15, 0))},
		{"3: daily without catchup after the last", edition3, "@daily", false, at(1, 0, 0), nil, ptr(at(10, 0, 0)), instant(at(11, 0, 0))},
		{"3: daily without catchup, now's tick", edition3, "@daily", false, at(1, 0, 0), nil, ptr(at(5, 0, 0)), instant(at(10, 0, 0))},
		{"3: daily with catchup at start_date's tick", edition3, "@daily", true, at(8, 0, 0), nil, nil, instant(at(8, 0, 0))},
		{"3: daily with catchup from between ticks", edition3, "@daily", true, at(8, 6, 0), nil, nil, instant(at(9, 0, 0))},
		{"3: none past end_date", edition3, "6h", true, at(9, 3, 0), ptr(at(9, 8, 0)), ptr(at(9, 3, 0)), nil},
		{"3: the fire time at end_date", edition3, "6h", true, at(9, 3, 0), ptr(at(9, 9, 0)), ptr(at(9, 3, 0)), instant(at(9, 9, 0))},
		{"3: @once at start_date", edition3, "@once", false, at(9, 3, 0), nil, nil, instant(at(9, 3, 0))},
		{"3: @once only once", edition3, "@once", false, at(9, 3, 0), nil, ptr(at(9, 3, 0)), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dag := &DAG{DagID: "d", Schedule: ptr(tc.schedule), StartDate: ptr(tc.start), EndDate: tc.end, Catchup: tc.catchup}
			p, ok, err := tc.ed.rules().plannedRun(dag, tc.last, now)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if ok {
					t.Errorf("planned %+v, want none", p)
				}
				return
			}
			got := plan{p.logical, p.interval.start, p.interval.end, p.runAfter}
			if !ok || got != *tc.want {
				t.Errorf("planned %v (%v), want %v", got, ok, *tc.want)
			}
		})
	}
}

// TestScheduler_BackfillIsLastAutomatedRun: the latest backfill run counts
// as the last automated run, which the next scheduled run follows, in
// Airflow 2.10.3 (models/dag.py:3523-3556, _get_latest_runs_stmt: the
// latest logical date of BACKFILL_JOB and SCHEDULED runs, read at each
// parse, lines 3310-3318) and 3.2.1 (dag_processing/collection.py:
// 105-134 and 617-619 of c57fba0e). With catchup the schedule goes on
// after the backfill's last date, not from start_date; without, a
// duration waits a duration after it. Edition 3's backfills come from
// the backfills route; edition 2's from a trigger named as a backfill's
// (the experimental API takes the run type from the id: 2.10.3
// models/dag.py:3152-3157). The clock is at 2024-01-10 12:00 UTC.
func TestScheduler_BackfillIsLastAutomatedRun(t *testing.T) {
	t.Parallel()
	at := func(d, h int) time.Time { return time.Date(2024, 1, d, h, 0, 0, 0, time.UTC) }
	cases := []struct {
		name, schedule, extra string
		ed                    edition
		from, to              time.Time     // the backfill's dates
		later                 time.Duration // a second pass this much later
		want                  []time.Time   // the scheduled runs' logical dates
	}{
		{"3: cron with catchup goes on after the backfill", "'@daily'", "catchup: true\nstart_date: 2024-01-01", edition3,
			at(5, 0), at(7, 0), 0, []time.Time{at(8, 0), at(9, 0), at(10, 0)}},
		{"3: duration without catchup waits a duration after the backfill", "12h", "catchup: false\nstart_date: 2021-01-01", edition3,
			at(10, 6), at(10, 6), 6 * time.Hour, []time.Time{at(10, 18)}},
		{"2: cron with catchup goes on after the backfill", "'@daily'", "catchup: true\nstart_date: 2024-01-01", edition2,
			at(7, 0), at(7, 0), 0, []time.Time{at(8, 0), at(9, 0)}},
		{"2: duration with catchup goes on after the backfill", "12h", "catchup: true\nstart_date: 2024-01-09", edition2,
			at(9, 12), at(9, 12), 0, []time.Time{at(10, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"s.yaml": "dag_id: s\nschedule_interval: " + tc.schedule + "\n" + tc.extra +
					"\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"}, func(o *schedulerOptions) { o.Edition = tc.ed })
				if tc.ed == edition3 {
					o := &operations{store: h.store, edition: tc.ed, now: h.clock.Now, unixname: "tester", kick: h.sched.Kick}
					if _, err := o.createBackfill(&backfillRequest{dagID: "s", from: tc.from, to: tc.to, reprocess: "none", maxActiveRuns: 10}); err != nil {
						t.Fatal(err)
					}
				} else {
					h.trigger("s", fmt.Sprintf(`{"run_id": "backfill__%s", "execution_date": "%s"}`, isoFormat(tc.from), isoFormat(tc.from)))
				}
				h.settle()
				if tc.later > 0 {
					h.clock.Advance(tc.later)
					h.settle()
				}
				var got, want []string
				for _, run := range h.runsOf("s") {
					if run.RunType == "scheduled" {
						got = append(got, isoFormat(run.ExecutionDate))
					}
				}
				for _, w := range tc.want {
					want = append(want, isoFormat(w))
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("scheduled runs\n got %v\nwant %v", got, want)
				}
			})
		})
	}
}

// TestAPI_NextDagrunAfterBackfill: a DAG's next_dagrun fields follow its
// last automated run, a backfill's included (2.10.3 models/dag.py:
// 3310-3318 and 3523-3556; 3.2.1 dag_processing/collection.py:105-134,
// 617-619 of c57fba0e): a @daily DAG with catchup from 2024-01-01 whose
// only runs are a backfill's up to 2024-01-07 plans 2024-01-08 next (a
// data interval to 2024-01-09 in edition 2; the instant in 3).
func TestAPI_NextDagrunAfterBackfill(t *testing.T) {
	t.Parallel()
	const def = `
dag_id: nb
schedule_interval: "@daily"
start_date: 2024-01-01T00:00:00+00:00
catchup: true
tasks:
  - {task_id: a, operator: EmptyOperator}
`
	t.Run("3", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(def))
		res := ts.do(t, http.MethodPost, "/api/v2/backfills",
			`{"dag_id": "nb", "from_date": "2024-01-05T00:00:00Z", "to_date": "2024-01-07T00:00:00Z", "max_active_runs": 1}`)
		if res.status != 200 {
			t.Fatalf("create backfill = %d %s", res.status, res.body)
		}
		v := ts.v2JSON(t, "/dags/nb")
		got := fmt.Sprintf("%s %s %s %s", v["next_dagrun_logical_date"], v["next_dagrun_data_interval_start"],
			v["next_dagrun_data_interval_end"], v["next_dagrun_run_after"])
		if want := strings.Repeat(`"2024-01-08T00:00:00Z" `, 3) + `"2024-01-08T00:00:00Z"`; got != want {
			t.Errorf("next_dagrun fields %s, want %s", got, want)
		}
	})
	t.Run("2", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withExamplesPaused(), withDAG(def))
		ts.trigger(t, "nb", `{"run_id": "backfill__2024-01-07T00:00:00+00:00", "execution_date": "2024-01-07T00:00:00+00:00"}`)
		res := ts.v1(t, http.MethodGet, "/dags/nb/details", "")
		var v map[string]any
		if err := json.Unmarshal([]byte(res.body), &v); err != nil || res.status != 200 {
			t.Fatalf("GET details = %d %s (%v)", res.status, res.body, err)
		}
		got := fmt.Sprintf("%v %v %v %v", v["next_dagrun"], v["next_dagrun_data_interval_start"],
			v["next_dagrun_data_interval_end"], v["next_dagrun_create_after"])
		if want := "2024-01-08T00:00:00+00:00 2024-01-08T00:00:00+00:00 2024-01-09T00:00:00+00:00 2024-01-09T00:00:00+00:00"; got != want {
			t.Errorf("next_dagrun fields %s, want %s", got, want)
		}
	})
}

// TestScheduler_CronInDagTimezone: a cron schedule in a DAG's time zone
// ticks at the zone's wall clock through a DST change, as Airflow 2.10.3
// and 3.2.1's CronMixin steps it (timetables/_cron.py): "0 0 * * *" in
// Europe/Amsterdam with catchup from local midnight of 2024-03-29 fires
// at 23:00 UTC, then 22:00 UTC from 2024-03-31 (dates worked out with
// croniter 6.2.4 and pendulum 3.2.0). Edition 3 runs at each tick;
// edition 2 once the interval after it has ended. The clock is at
// 2024-04-02 12:00 UTC. A YAML file names no zone: the DAG is given one
// as a Python file's start_date would.
func TestScheduler_CronInDagTimezone(t *testing.T) {
	t.Parallel()
	at := func(d, h int) time.Time { return time.Date(2024, 3, d, h, 0, 0, 0, time.UTC) }
	all := []time.Time{at(28, 23), at(29, 23), at(30, 23), at(31, 22), at(32, 22)}
	for _, tc := range []struct {
		ed   edition
		want []time.Time
	}{{edition3, all}, {edition2, all[:4]}} {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				zone, err := parseDagZone(json.RawMessage(`"Europe/Amsterdam"`))
				if err != nil {
					t.Fatal(err)
				}
				h := newSchedHarnessWith(t, map[string]string{"s.yaml": "dag_id: s\nschedule_interval: '0 0 * * *'\ncatchup: true\n" +
					"start_date: 2024-03-28T23:00:00+00:00\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"},
					func(dags *DAGSet) {
						d := dags.DAGs[0]
						d.Timezone, d.cron = zone, d.cron.inZone(zone.location())
					}, func(o *schedulerOptions) { o.Edition = tc.ed })
				h.clock.Advance(time.Date(2024, 4, 2, 12, 0, 0, 0, time.UTC).Sub(schedEpoch))
				h.settle()
				var got, want []string
				for _, run := range h.runsOf("s") {
					got = append(got, isoFormat(run.ExecutionDate))
				}
				for _, w := range tc.want {
					want = append(want, isoFormat(w))
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("scheduled runs\n got %v\nwant %v", got, want)
				}
			})
		})
	}
}

// TestScheduler_UnpauseAfterLongPause: a DAG paused for ten days and
// unpaused. Without catchup it runs once, for now's latest date: in
// edition 3 its trigger timetable's latest fire time (a duration's: now;
// c57fba0e timetables/trigger.py:76-104, next_dagrun worked out at each
// parse of a paused DAG too, dag_processing/collection.py:617-619), in
// edition 2 the latest complete interval (2.10.3 timetables/interval.py
// _skip_to_latest, a duration's aligned to the epoch; models/dag.py:
// 3310-3318 for a paused DAG). With catchup it makes every date it
// missed, from the one after its last run (trigger.py:83-84;
// interval.py:103-116). The clock starts at 2024-01-10 12:00 UTC; the
// DAG is unpaused at 2024-01-20 12:05. (Airflow dates edition 3's
// duration run at the last parse before the unpause, at most 30 s
// earlier: airlite at the pass, a known difference in behaviour.md.)
func TestScheduler_UnpauseAfterLongPause(t *testing.T) {
	t.Parallel()
	day := func(d, h, m int) string { return isoFormat(time.Date(2024, 1, d, h, m, 0, 0, time.UTC)) }
	days := func(from, to, h int) []string {
		var out []string
		for d := from; d <= to; d++ {
			out = append(out, day(d, h, 0))
		}
		return out
	}
	cases := []struct {
		name, schedule, extra string
		ed                    edition
		before, after         []string // runs made before the pause, and after the unpause
	}{
		{"3: cron without catchup", "'@daily'", "catchup: false\nstart_date: 2024-01-08", edition3,
			[]string{day(10, 0, 0)}, []string{day(20, 0, 0)}},
		{"3: cron with catchup", "'@daily'", "catchup: true\nstart_date: 2024-01-08", edition3,
			days(8, 10, 0), days(11, 20, 0)},
		{"3: duration without catchup", "6h", "catchup: false\nstart_date: 2021-01-01", edition3,
			[]string{day(10, 12, 0)}, []string{day(20, 12, 5)}},
		{"2: cron without catchup", "'@daily'", "catchup: false\nstart_date: 2024-01-08", edition2,
			[]string{day(9, 0, 0)}, []string{day(19, 0, 0)}},
		{"2: cron with catchup", "'@daily'", "catchup: true\nstart_date: 2024-01-08", edition2,
			days(8, 9, 0), days(10, 19, 0)},
		{"2: duration without catchup", "6h", "catchup: false\nstart_date: 2021-01-01", edition2,
			[]string{day(10, 6, 0)}, []string{day(20, 6, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"s.yaml": "dag_id: s\nschedule_interval: " + tc.schedule + "\n" + tc.extra +
					"\nmax_active_runs: 16\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"}, func(o *schedulerOptions) { o.Edition = tc.ed })
				runs := func() []string {
					var out []string
					for _, run := range h.runsOf("s") {
						out = append(out, isoFormat(run.ExecutionDate))
					}
					return out
				}
				h.settle()
				if got := runs(); strings.Join(got, ",") != strings.Join(tc.before, ",") {
					t.Fatalf("runs before the pause\n got %v\nwant %v", got, tc.before)
				}
				if err := h.store.SetPaused("s", true, true); err != nil {
					t.Fatal(err)
				}
				h.clock.Advance(10*24*time.Hour + 5*time.Minute)
				h.settle()
				if got := runs(); len(got) != len(tc.before) {
					t.Fatalf("a paused DAG made runs: %v", got[len(tc.before):])
				}
				if err := h.store.SetPaused("s", false, true); err != nil {
					t.Fatal(err)
				}
				h.settle()
				if got := runs()[len(tc.before):]; strings.Join(got, ",") != strings.Join(tc.after, ",") {
					t.Errorf("runs after the unpause\n got %v\nwant %v", got, tc.after)
				}
			})
		})
	}
}

// TestAPIv1_NextDagrunCreateAfterAtMaxActiveRuns: Airflow 2.10.3 clears
// a DAG's next_dagrun_create_after while it has max_active_runs runs
// queued or running, of any type (models/dag.py:3315-3316 at each parse,
// with DagRun.active_runs_of_dags; the scheduler's
// _should_update_dag_next_dagruns likewise), and keeps next_dagrun and
// its interval; once a run ends it is worked out again.
func TestAPIv1_NextDagrunCreateAfterAtMaxActiveRuns(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withExamplesPaused(), withDAG(`
dag_id: full
schedule_interval: "@daily"
start_date: 2024-01-01T00:00:00+00:00
catchup: true
max_active_runs: 1
tasks:
  - {task_id: a, operator: EmptyOperator}
`))
	fields := func() string {
		t.Helper()
		var got []string
		for _, path := range []string{"/dags/full", "/dags/full/details"} {
			res := ts.v1(t, http.MethodGet, path, "")
			var v map[string]any
			if err := json.Unmarshal([]byte(res.body), &v); err != nil || res.status != 200 {
				t.Fatalf("GET %s = %d %s (%v)", path, res.status, res.body, err)
			}
			got = append(got, fmt.Sprintf("%v %v %v", v["next_dagrun"], v["next_dagrun_data_interval_end"], v["next_dagrun_create_after"]))
		}
		if got[0] != got[1] {
			t.Errorf("the DAG %s, its details %s", got[0], got[1])
		}
		return got[1]
	}
	if got, want := fields(), "2024-01-01T00:00:00+00:00 2024-01-02T00:00:00+00:00 2024-01-02T00:00:00+00:00"; got != want {
		t.Fatalf("no run: next_dagrun, its interval's end, create_after %s, want %s", got, want)
	}
	run := ts.trigger(t, "full", `{}`)
	if got, want := fields(), "2024-01-01T00:00:00+00:00 2024-01-02T00:00:00+00:00 <nil>"; got != want {
		t.Errorf("one run queued of max_active_runs 1: %s, want %s", got, want)
	}
	ts.setRunState(t, "full", run["run_id"].(string), RunSuccess)
	if got, want := fields(), "2024-01-01T00:00:00+00:00 2024-01-02T00:00:00+00:00 2024-01-02T00:00:00+00:00"; got != want {
		t.Errorf("the run ended: %s, want %s", got, want)
	}
}
