package main

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TriggerDate hands out strictly increasing dates at the unit asked for,
// the clock's own time whenever that is later than the last one, and
// never moves the clock.
func TestFakeClock_TriggerDate(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 5, 1, 10, 0, 0, 250000000, time.UTC)
	at := func(sec, micro int) time.Time { return time.Date(2024, 5, 1, 10, 0, sec, micro*1000, time.UTC) }
	type step struct {
		advance time.Duration // moves the clock before the read
		unit    time.Duration
		want    time.Time
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"seconds in a row", []step{
			{0, time.Second, at(0, 0)}, {0, time.Second, at(1, 0)}, {0, time.Second, at(2, 0)},
		}},
		{"microseconds in a row", []step{
			{0, time.Microsecond, at(0, 250000)}, {0, time.Microsecond, at(0, 250001)},
		}},
		{"a second after microseconds", []step{
			{0, time.Microsecond, at(0, 250000)}, {0, time.Second, at(1, 0)}, {0, time.Microsecond, at(1, 1)},
		}},
		{"the clock moved past the last date", []step{
			{0, time.Second, at(0, 0)}, {0, time.Second, at(1, 0)}, {time.Minute, time.Second, at(60, 0)},
		}},
		{"the clock moved, not past the last date", []step{
			{0, time.Second, at(0, 0)}, {0, time.Second, at(1, 0)}, {0, time.Second, at(2, 0)},
			{time.Second, time.Second, at(3, 0)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(start)
			for i, s := range tc.steps {
				if _, err := clock.Advance(s.advance); err != nil {
					t.Fatal(err)
				}
				before := clock.Now()
				if got := clock.TriggerDate(s.unit); !got.Equal(s.want) {
					t.Errorf("step %d: TriggerDate(%v) = %v, want %v", i, s.unit, got, s.want)
				}
				if after := clock.Now(); !after.Equal(before) {
					t.Errorf("step %d: TriggerDate moved the clock from %v to %v", i, before, after)
				}
			}
		})
	}
}

// Two dateless triggers in a row under --clock fake both create a run, as
// they would under a real clock that moves between them; with a fixed
// clock and no fake clock, Airflow's duplicate rule answers the second
// (Airflow 2.10.3 airflow/api/common/trigger_dag.py:84-87; Airflow 1.10.15
// airflow/api/common/experimental/trigger_dag.py:76).
func TestServer_TriggerDAG_FakeClockDateless(t *testing.T) {
	t.Parallel()
	const dag = "example_bash_operator"
	cases := []struct {
		name    string
		fake    bool
		body    string
		wantIDs []string // run_ids of the two triggers; "" where the second is refused
	}{
		{"fake clock, microseconds replaced", true, `{}`,
			[]string{"manual__2024-05-01T10:00:00+00:00", "manual__2024-05-01T10:00:01+00:00"}},
		{"fake clock, microseconds kept", true, `{"replace_microseconds": "false"}`,
			[]string{"manual__2024-05-01T10:00:00.123456+00:00", "manual__2024-05-01T10:00:00.123457+00:00"}},
		{"fixed clock", false, `{}`, []string{"manual__2024-05-01T10:00:00+00:00", ""}},
	}
	for _, e := range allEditions {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				clock := newFakeClock(testNow)
				ts := newTestServer(t, e, withOptions(func(o *serverOptions) {
					if tc.fake {
						o.Clock, o.Now = clock, clock.Now
					}
				}))
				for i, want := range tc.wantIDs {
					res := ts.do(t, "POST", apiPrefix+"/dags/"+dag+"/dag_runs", tc.body)
					if want == "" {
						if res.status != 400 {
							t.Errorf("trigger %d: status %d, want 400 (duplicate): %s", i, res.status, res.body)
						}
						continue
					}
					if res.status != 200 {
						t.Fatalf("trigger %d: status %d: %s", i, res.status, res.body)
					}
					if got := decodeBody(t, res)["run_id"]; got != want {
						t.Errorf("trigger %d: run_id %v, want %v", i, got, want)
					}
				}
				if !clock.Now().Equal(testNow) {
					t.Errorf("the triggers moved the clock to %v", clock.Now())
				}
			})
		}
	}
}

// Under the fake clock (here the harness's clock; inside the bubble the
// real clock stands at 2000-01-01) the dates a try records are the fake
// clock's, so its duration is end_date - start_date in fake time, as
// Airflow computes it (2.10.3 airflow/models/taskinstance.py:902-905,
// 1.10.15 airflow/models/taskinstance.py:1477-1481): 0 for a try the clock
// did not move during.
func TestScheduler_TryDatesFollowTheFakeClock(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed    edition
		moved time.Duration // the clock's move while the try runs
	}{
		{edition2, 90 * time.Second},
		{edition2, 0},
		{edition110, 90 * time.Second},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.ed, tc.moved), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: a, operator: PythonOperator}
`}, func(o *schedulerOptions) { o.Edition = tc.ed })
				release := h.runner.hold("a")
				runID := h.trigger("d", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				started := h.clock.Now()
				h.clock.Advance(tc.moved)
				close(release)
				h.settle()
				ti := h.ti("d", runID, "a")
				if ti.State != TaskSuccess {
					t.Fatalf("a = %q, want success", ti.State)
				}
				if ti.StartDate == nil || !ti.StartDate.Equal(started) {
					t.Errorf("start_date %v, want the fake clock's %v", ti.StartDate, started)
				}
				if ti.EndDate == nil || !ti.EndDate.Equal(started.Add(tc.moved)) {
					t.Errorf("end_date %v, want the fake clock's %v", ti.EndDate, started.Add(tc.moved))
				}
				if ti.Duration == nil || *ti.Duration != tc.moved.Seconds() {
					t.Errorf("duration %v, want %v s", ti.Duration, tc.moved.Seconds())
				}
				run, err := h.store.RunByRunID("d", runID)
				if err != nil {
					t.Fatal(err)
				}
				if run.EndDate == nil || !run.EndDate.Equal(started.Add(tc.moved)) {
					t.Errorf("run end_date %v, want the fake clock's %v", run.EndDate, started.Add(tc.moved))
				}
			})
		})
	}
}
