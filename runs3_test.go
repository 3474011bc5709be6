package main

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
)

// Airflow 3's runs and task instances (edition 3), through the operations
// and the scheduler: logical_date null, run_after, generated run ids,
// stored data intervals, UUID task instance ids, try_number counted at
// scheduling.

const runs3DAG = `
dag_id: r3
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: a, operator: PythonOperator, downstream: [b]}
  - {task_id: b, operator: PythonOperator}
`

// newRuns3Harness is a scheduler harness in edition 3, and its operations.
func newRuns3Harness(t *testing.T, files map[string]string) (*schedHarness, *operations) {
	t.Helper()
	h := newSchedHarness(t, files, func(o *schedulerOptions) { o.Edition = edition3 })
	return h, h.api.ops
}

// TestRuns3_TriggerWithoutLogicalDate: a run without a logical date has
// run_after now, the timetable's id (manual__ and run_after, no random
// part: Timetable.generate_run_id), run_type manual, no data interval,
// and task instances with version 7 UUIDs at try 0; two such runs never
// collide: the second, named from the same instant, runs a microsecond
// later.
func TestRuns3_TriggerWithoutLogicalDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, ops := newRuns3Harness(t, map[string]string{"r3.yaml": runs3DAG})
		var runs []*DagRun
		for range 2 {
			got, err := ops.trigger(triggerRequest{dagID: "r3", noDate: true, dateUnit: time.Microsecond, conf: []byte(`{}`)})
			if err != nil {
				t.Fatalf("trigger: %v", err)
			}
			runs = append(runs, got.run)
		}
		if runs[0].RunID == runs[1].RunID {
			t.Fatalf("two runs without a logical date share the id %s", runs[0].RunID)
		}
		seen := map[string]bool{}
		for i, run := range runs {
			after := schedEpoch.Add(time.Duration(i) * time.Microsecond)
			if run.RunID != "manual__"+isoFormat(after) {
				t.Errorf("run id %q, want manual__%s", run.RunID, isoFormat(after))
			}
			if _, ok := run.LogicalDate(); ok {
				t.Errorf("run %s has a logical date", run.RunID)
			}
			if !run.After().Equal(after) || run.RunType != "manual" || run.DataIntervalStart != nil {
				t.Errorf("run %s: run_after %v, run_type %q, interval %v; want %v, manual, none",
					run.RunID, run.After(), run.RunType, run.DataIntervalStart, after)
			}
			for _, taskID := range []string{"a", "b"} {
				ti := h.ti("r3", run.RunID, taskID)
				id, err := uuid.Parse(ti.ID)
				if err != nil || id.Version() != 7 || seen[ti.ID] {
					t.Errorf("task instance %s/%s id %q: want a new version 7 UUID (%v)", run.RunID, taskID, ti.ID, err)
				}
				seen[ti.ID] = true
				if ti.TryNumber != 0 {
					t.Errorf("task instance %s/%s try_number %d before it is scheduled, want 0", run.RunID, taskID, ti.TryNumber)
				}
			}
		}
	})
}

// TestRuns3_TriggerWithLogicalDate: a logical date is unique per DAG (the
// second trigger is the operations' run_exists fault); the run id is made
// from run_after; the data interval is the timetable's (none: the
// instant); run_after stays as asked (apache/airflow#59477).
func TestRuns3_TriggerWithLogicalDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ops := newRuns3Harness(t, map[string]string{"r3.yaml": runs3DAG})
		date := time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)
		asked := time.Date(2024, 1, 9, 8, 0, 0, 0, time.FixedZone("", 2*3600))
		got, err := ops.trigger(triggerRequest{dagID: "r3", date: &date, runAfter: &asked, dateUnit: time.Microsecond})
		if err != nil {
			t.Fatalf("trigger: %v", err)
		}
		run := got.run
		if run.RunID != "manual__2024-01-09T08:00:00+02:00" {
			t.Errorf("run id %q, want manual__ and the run_after asked for", run.RunID)
		}
		if ld, ok := run.LogicalDate(); !ok || !ld.Equal(date) || !run.After().Equal(asked) {
			t.Errorf("logical date %v %v, run_after %v; want %v and %v", ld, ok, run.After(), date, asked)
		}
		if run.DataIntervalStart == nil || !run.DataIntervalStart.Equal(date) || !run.DataIntervalEnd.Equal(date) {
			t.Errorf("data interval %v..%v, want the instant %v", run.DataIntervalStart, run.DataIntervalEnd, date)
		}
		_, err = ops.trigger(triggerRequest{dagID: "r3", runID: "other", date: &date, dateUnit: time.Microsecond})
		var fault *opError
		if !errors.As(err, &fault) || fault.fault != faultRunExists || fault.values["by_date"] != run.RunID {
			t.Fatalf("second trigger at the same logical date: %v, want run_exists naming %s", err, run.RunID)
		}
		// A run without a logical date does not collide with it either.
		if _, err := ops.trigger(triggerRequest{dagID: "r3", noDate: true, dateUnit: time.Microsecond}); err != nil {
			t.Fatalf("trigger without a logical date: %v", err)
		}
	})
}

// TestRuns3_EditionsBeforeRefuseNoLogicalDate: only edition 3 makes a
// run without a logical date.
func TestRuns3_EditionsBeforeRefuseNoLogicalDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"r3.yaml": runs3DAG}, nil)
		if _, err := h.api.ops.trigger(triggerRequest{dagID: "r3", noDate: true}); err == nil {
			t.Fatal("edition 2 made a run without a logical date")
		}
	})
}

// TestRuns3_TryNumberAndIDsThroughTheScheduler: try_number counts up when
// the task is scheduled; a retry and a clear each give the task instance a
// new id, the try kept in the history keeping the old one.
func TestRuns3_TryNumberAndIDsThroughTheScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dag := strings.Replace(runs3DAG, "{task_id: a, operator: PythonOperator,", "{task_id: a, operator: PythonOperator, retries: 1, retry_delay: 0,", 1)
		h, ops := newRuns3Harness(t, map[string]string{"r3.yaml": dag})
		h.runner.outcomes["a"] = []TaskState{TaskFailed}
		held := h.runner.hold("b")
		got, err := ops.trigger(triggerRequest{dagID: "r3", noDate: true, dateUnit: time.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		runID := got.run.RunID
		first := h.ti("r3", runID, "a").ID
		h.settle() // a's first try fails: up for retry
		h.clock.Advance(10 * time.Minute)
		h.settle()
		a := h.ti("r3", runID, "a")
		if a.State != TaskSuccess || a.TryNumber != 2 {
			t.Fatalf("a: %s try %d, want success on try 2", a.State, a.TryNumber)
		}
		if a.ID == first {
			t.Errorf("a kept its id %s across a retry", a.ID)
		}
		tries, _, err := h.store.EarlierTries("r3", runID, "a", -1)
		if err != nil || len(tries) != 1 || tries[0].ID != first || tries[0].TryNumber != 1 {
			t.Fatalf("earlier tries %v %v: want try 1 under the first id %s", tries, err, first)
		}
		b := h.ti("r3", runID, "b")
		if b.State != TaskRunning || b.TryNumber != 1 {
			t.Fatalf("b: %s try %d, want running try 1", b.State, b.TryNumber)
		}
		close(held)
		h.settle()
		if state := h.runState("r3", runID); state != RunSuccess {
			t.Fatalf("run %s, want success", state)
		}
		before := h.ti("r3", runID, "b").ID
		run, err := ops.runByID("r3", runID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ops.clearRun(run, false); err != nil {
			t.Fatal(err)
		}
		b = h.ti("r3", runID, "b")
		if b.ID == before || b.TryNumber != 1 || b.State != TaskNone {
			t.Errorf("b after a clear: id %s (was %s), try %d, state %q; want a new id, try 1, no state", b.ID, before, b.TryNumber, b.State)
		}
		h.settle()
		if b := h.ti("r3", runID, "b"); b.State != TaskSuccess || b.TryNumber != 2 {
			t.Errorf("b after the clear ran: %s try %d, want success on try 2", b.State, b.TryNumber)
		}
	})
}

// TestRuns3_TryNumberAtScheduleOnlyInEdition3: edition 2 counts the try
// when it starts, as airlite always has.
func TestRuns3_TryNumberAtScheduleOnlyInEdition3(t *testing.T) {
	for _, tc := range []struct {
		edition edition
		want    int
	}{{edition2, 0}, {edition3, 1}} {
		t.Run(string(tc.edition), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// A pool of no slots keeps the task scheduled.
				dag := strings.Replace(runs3DAG, "{task_id: a, operator: PythonOperator,", "{task_id: a, operator: PythonOperator, pool: none,", 1)
				h := newSchedHarness(t, map[string]string{"r3.yaml": dag}, func(o *schedulerOptions) { o.Edition = tc.edition })
				date := schedEpoch
				got, err := h.api.ops.trigger(triggerRequest{dagID: "r3", date: &date, dateUnit: time.Microsecond})
				if err != nil {
					t.Fatal(err)
				}
				h.settle()
				a := h.ti("r3", got.run.RunID, "a")
				if a.State != TaskScheduled || a.TryNumber != tc.want {
					t.Errorf("a: %s try %d, want scheduled try %d", a.State, a.TryNumber, tc.want)
				}
				if (a.ID != "") != (tc.edition == edition3) {
					t.Errorf("a's id %q in edition %s", a.ID, tc.edition)
				}
			})
		})
	}
}

// TestRuns3_TemplateContext: Airflow 3's context renders the names that
// follow from a logical date only in a run that has one; execution_date
// and the prev_/next_ names are gone (an undefined name fails, strict as
// Airflow 3's templates), task_instance_key_str falls back to the run id.
func TestRuns3_TemplateContext(t *testing.T) {
	t.Parallel()
	dated := goldenContext(t, edition3, map[string]any{}, nil)
	start, end := time.Date(2024, 3, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)
	dated.run.DataIntervalStart, dated.run.DataIntervalEnd = &start, &end
	undated := goldenContext(t, edition3, map[string]any{}, nil)
	undated.run.NoLogicalDate, undated.run.ExecutionDate = true, time.Time{}
	undated.run.RunAfter = time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	undated.run.RunID = "manual__2024-03-04T05:06:07+00:00_AbCd1234"
	for _, tc := range []struct {
		name     string
		ctx      templateContext
		template string
		want     string // "error: ..." for a failed render, with the words it holds
	}{
		{"ds", dated, "{{ ds }} {{ ts_nodash }}", "2024-03-04 20240304T050607"},
		{"stored interval", dated, "{{ data_interval_start }} {{ dag_run.data_interval_end }}", "2024-03-03 00:00:00+00:00 2024-03-04 00:00:00+00:00"},
		{"key with date", dated, "{{ task_instance_key_str }}", "example__t__20240304"},
		{"logical date", dated, "{{ dag_run.logical_date }}", "2024-03-04 05:06:07.000123+00:00"},
		{"execution_date gone", dated, "{{ execution_date }}", "error: execution_date"},
		{"next_ds gone", dated, "{{ next_ds }}", "error: next_ds"},
		{"prev_ds gone", dated, "{{ prev_ds }}", "error: prev_ds"},
		{"tomorrow_ds gone", dated, "{{ tomorrow_ds }}", "error: tomorrow_ds"},
		{"conf gone", dated, "{{ conf }}", "error: conf"},
		{"dag_run.execution_date gone", dated, "{{ dag_run.execution_date }}", "error: execution_date"},
		{"run id", undated, "{{ run_id }} {{ dag_run.run_type }}", "manual__2024-03-04T05:06:07+00:00_AbCd1234 manual"},
		{"no ds", undated, "{{ ds }}", "error: ds"},
		{"no logical date", undated, "{{ dag_run.logical_date }} {{ dag_run.data_interval_start }}", "None None"},
		{"run_after", undated, "{{ dag_run.run_after }}", "2024-03-04 05:06:07+00:00"},
		{"key without date", undated, "{{ task_instance_key_str }}", "example__t__manual__2024-03-04T05:06:07+00:00_AbCd1234"},
		{"try", undated, "{{ ti.try_number }} {{ task_instance_key_str is defined }}", "1 True"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ctx.renderText(tc.template)
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s = %q, %v; want an error naming %s", tc.template, got, err, want)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("%s = %q, %v; want %q", tc.template, got, err, tc.want)
			}
		})
	}
}

// TestRuns3_ScheduledRuns: Airflow 3's scheduler dates a cron run at the
// tick it runs at (CronTriggerTimetable) and a duration's at the time it
// fires (DeltaTriggerTimetable), the instant as its interval and its
// run_after; either is named after its run_after, stores its interval and
// was triggered by the timetable.
func TestRuns3_ScheduledRuns(t *testing.T) {
	day := func(d, h int) time.Time { return time.Date(2024, 1, d, h, 0, 0, 0, time.UTC) }
	type want struct {
		id                            string
		logical, runAfter, start, end time.Time
	}
	for _, tc := range []struct {
		name, schedule, extra string
		advance               time.Duration
		want                  []want
	}{
		{"daily without catchup", "'@daily'", "catchup: false\nstart_date: 2023-12-31", 24 * time.Hour, []want{
			{"scheduled__2024-01-10T00:00:00+00:00", day(10, 0), day(10, 0), day(10, 0), day(10, 0)},
			{"scheduled__2024-01-11T00:00:00+00:00", day(11, 0), day(11, 0), day(11, 0), day(11, 0)},
		}},
		{"duration with catchup", "6h", "catchup: true\nstart_date: 2024-01-10T00:00:00+00:00", 0, []want{
			{"scheduled__2024-01-10T00:00:00+00:00", day(10, 0), day(10, 0), day(10, 0), day(10, 0)},
			{"scheduled__2024-01-10T06:00:00+00:00", day(10, 6), day(10, 6), day(10, 6), day(10, 6)},
			{"scheduled__2024-01-10T12:00:00+00:00", day(10, 12), day(10, 12), day(10, 12), day(10, 12)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, _ := newRuns3Harness(t, map[string]string{"s.yaml": "dag_id: s\nschedule_interval: " + tc.schedule + "\n" + tc.extra +
					"\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"})
				h.settle()
				if tc.advance > 0 {
					h.clock.Advance(tc.advance)
					h.settle()
				}
				runs := h.runsOf("s")
				if len(runs) != len(tc.want) {
					t.Fatalf("%d runs, want %d", len(runs), len(tc.want))
				}
				for i, run := range runs {
					w := tc.want[i]
					ld, _ := run.LogicalDate()
					if run.RunID != w.id || !ld.Equal(w.logical) || !run.After().Equal(w.runAfter) ||
						run.DataIntervalStart == nil || !run.DataIntervalStart.Equal(w.start) || !run.DataIntervalEnd.Equal(w.end) {
						t.Errorf("run %d: %s logical %v run_after %v interval %v..%v; want %+v", i, run.RunID, ld, run.After(),
							run.DataIntervalStart, run.DataIntervalEnd, w)
					}
					if run.RunType != "scheduled" || run.TriggeredBy != "timetable" || run.State != RunSuccess {
						t.Errorf("run %s: type %q triggered by %q state %s", run.RunID, run.RunType, run.TriggeredBy, run.State)
					}
				}
			})
		})
	}
}

// TestRuns3_PythonContextWithoutLogicalDate: a Python callable's dag_run
// of a run without a logical date has none and no data interval; a run
// with one shows its stored interval.
func TestRuns3_PythonContextWithoutLogicalDate(t *testing.T) {
	t.Parallel()
	s := &scheduler{}
	undated := goldenContext(t, edition3, map[string]any{}, nil)
	undated.run.NoLogicalDate, undated.run.ExecutionDate = true, time.Time{}
	undated.run.RunAfter = time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	c := s.pythonContext(undated)
	for _, k := range []string{"logical_date", "data_interval_start", "data_interval_end"} {
		if v, ok := c.DagRun[k]; !ok || v != nil {
			t.Errorf("dag_run.%s = %v (%v), want None", k, v, ok)
		}
	}
	dated := goldenContext(t, edition3, map[string]any{}, nil)
	start := time.Date(2024, 3, 3, 0, 0, 0, 0, time.UTC)
	dated.run.DataIntervalStart, dated.run.DataIntervalEnd = &start, &dated.run.ExecutionDate
	c = s.pythonContext(dated)
	if c.DagRun["data_interval_start"] != "2024-03-03T00:00:00+00:00" || c.DagRun["logical_date"] != "2024-03-04T05:06:07.000123+00:00" {
		t.Errorf("dag_run = %v, want the stored interval", c.DagRun)
	}
}
