package main

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"
)

// fakeScheduler stands in for the scheduler's two hooks: it counts wakes
// and, for each change applied with tasks stopped, records which of its
// running tries the match stops.
type fakeScheduler struct {
	running []tiKey
	wakes   int
	stopped []tiKey
	steps   int
}

func (f *fakeScheduler) withTasksStopped(match func(tiKey) bool, change func() error) error {
	f.steps++
	err := change()
	if err != nil {
		return err // the scheduler stops nothing when the change fails
	}
	for _, k := range f.running {
		if match(k) {
			f.stopped = append(f.stopped, k)
		}
	}
	return nil
}

// opsServer is a test server whose operations report to a fake scheduler.
func opsServer(t *testing.T, e edition) (*testServer, *fakeScheduler) {
	t.Helper()
	ts := newTestServer(t, e)
	f := &fakeScheduler{}
	ts.srv.ops.kick = func() { f.wakes++ }
	ts.srv.ops.tasksStopped = f.withTasksStopped
	return ts, f
}

// TestOps_StopWriteWake: the tries stopped are exactly those the write
// reports, in one step, and the scheduler is woken once; a failed write
// stops nothing and wakes nobody.
func TestOps_StopWriteWake(t *testing.T) {
	t.Parallel()
	a, b, c := tiKey{"d", "r", "a", -1}, tiKey{"d", "r", "b", -1}, tiKey{"d", "r2", "a", -1}
	cases := []struct {
		name        string
		reported    []tiKey
		err         error
		wantStopped []tiKey
		wantWakes   int
	}{
		{"one of three", []tiKey{b}, nil, []tiKey{b}, 1},
		{"none", nil, nil, nil, 1},
		{"all", []tiKey{a, b, c}, nil, []tiKey{a, b, c}, 1},
		{"a failed write", []tiKey{a}, errors.New("boom"), nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeScheduler{running: []tiKey{a, b, c}}
			o := &operations{kick: func() { f.wakes++ }, tasksStopped: f.withTasksStopped}
			err := o.stopWriteWake(func() ([]tiKey, error) { return tc.reported, tc.err })
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if !slices.Equal(f.stopped, tc.wantStopped) || f.wakes != tc.wantWakes || f.steps != 1 {
				t.Errorf("stopped %v in %d steps, %d wakes; want %v in 1 step, %d wakes", f.stopped, f.steps, f.wakes, tc.wantStopped, tc.wantWakes)
			}
		})
	}
}

// TestOps_TriggerThroughEveryAPI: a trigger through the experimental
// API, /api/v1, the status page and the operations themselves lands the
// same run (the same row and task instances, apart from the run's
// serial id), and wakes the scheduler once.
func TestOps_TriggerThroughEveryAPI(t *testing.T) {
	t.Parallel()
	const dagID, runID, date = "example_bash_operator", "traced", "2024-05-01T09:00:00+00:00"
	at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	ways := []struct {
		name    string
		trigger func(t *testing.T, ts *testServer)
	}{
		{"experimental", func(t *testing.T, ts *testServer) {
			ts.trigger(t, dagID, `{"run_id": "`+runID+`", "execution_date": "`+date+`"}`)
		}},
		{"v1", func(t *testing.T, ts *testServer) {
			ts.postRun(t, dagID, `{"dag_run_id": "`+runID+`", "logical_date": "`+date+`"}`)
		}},
		{"operations", func(t *testing.T, ts *testServer) {
			if _, err := ts.srv.ops.trigger(triggerRequest{dagID: dagID, runID: runID, date: &at, conf: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	type landed struct {
		run *DagRun
		tis []TaskInstance
	}
	got := map[string]landed{}
	for _, w := range ways {
		ts, f := opsServer(t, edition2)
		w.trigger(t, ts)
		if f.wakes != 1 {
			t.Errorf("%s: %d wakes, want 1", w.name, f.wakes)
		}
		run, err := ts.store.RunByRunID(dagID, runID)
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		tis, err := ts.store.TaskInstancesOfRun(dagID, runID)
		if err != nil {
			t.Fatal(err)
		}
		copied := *run
		copied.ID = 0
		l := landed{run: &copied}
		for _, ti := range tis {
			l.tis = append(l.tis, *ti)
		}
		got[w.name] = l
	}
	want := got["operations"]
	if len(want.tis) == 0 {
		t.Fatal("the run has no task instances: the test would compare nothing")
	}
	for name, l := range got {
		if !reflect.DeepEqual(l.run, want.run) {
			t.Errorf("%s landed run %+v, want %+v", name, *l.run, *want.run)
		}
		if !reflect.DeepEqual(l.tis, want.tis) {
			t.Errorf("%s landed task instances %+v, want %+v", name, l.tis, want.tis)
		}
	}
}

// TestOps_Wakes: each operation that changes what the scheduler acts on
// wakes it exactly once, a dry run or a change it has nothing to do for
// never; the tries stopped are the affected ones only.
func TestOps_Wakes(t *testing.T) {
	t.Parallel()
	const dagID = "example_bash_operator"
	cases := []struct {
		name        string
		op          func(o *operations) error
		wantWakes   int
		wantStopped []tiKey
	}{
		{"set a run's state", func(o *operations) error { return o.setRunState(dagID, "r1", RunFailed) }, 1,
			[]tiKey{{dagID, "r1", "runme_0", -1}}},
		{"clear a run, dry", func(o *operations) error {
			run, _ := o.runByID(dagID, "r1")
			_, err := o.clearRun(run, true)
			return err
		}, 0, nil},
		{"clear a run", func(o *operations) error {
			run, _ := o.runByID(dagID, "r1")
			_, err := o.clearRun(run, false)
			return err
		}, 1, []tiKey{{dagID, "r1", "runme_0", -1}}},
		{"clear task instances, dry", func(o *operations) error {
			_, err := o.clearTaskInstances(clearRequest{dagID: dagID, dryRun: true})
			return err
		}, 0, nil},
		{"clear running task instances of two runs", func(o *operations) error {
			_, err := o.clearTaskInstances(clearRequest{dagID: dagID, onlyRunning: true})
			return err
		}, 1, []tiKey{{dagID, "r1", "runme_0", -1}, {dagID, "r2", "runme_0", -1}}},
		{"mark with past and future, dry", func(o *operations) error {
			_, err := o.markTaskInstances(markRequest{dagID: dagID, taskID: "runme_0", runID: "r1", state: TaskSuccess, future: true, dryRun: true})
			return err
		}, 0, nil},
		{"mark with future", func(o *operations) error {
			_, err := o.markTaskInstances(markRequest{dagID: dagID, taskID: "runme_0", runID: "r1", state: TaskSuccess, future: true})
			return err
		}, 1, []tiKey{{dagID, "r1", "runme_0", -1}, {dagID, "r2", "runme_0", -1}}},
		{"patch one", func(o *operations) error {
			_, err := o.patchTaskInstance(dagID, "r2", "runme_0", -1, TaskFailed, false)
			return err
		}, 1, []tiKey{{dagID, "r2", "runme_0", -1}}},
		{"delete a run", func(o *operations) error { return o.deleteRun(dagID, "r2") }, 0,
			[]tiKey{{dagID, "r2", "runme_0", -1}, {dagID, "r2", "runme_1", -1}}},
		{"unpause", func(o *operations) error { return o.setPaused(dagID, false, false) }, 1, nil},
		{"pause", func(o *operations) error { return o.setPaused(dagID, true, false) }, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, f := opsServer(t, edition2)
			for i, runID := range []string{"r1", "r2"} {
				ts.postRun(t, dagID, `{"dag_run_id": "`+runID+`", "logical_date": "2024-04-0`+string(rune('1'+i))+`T00:00:00+00:00"}`)
				ts.setTaskState(t, dagID, runID, "runme_0", TaskRunning)
			}
			// A try that runs elsewhere must never be stopped.
			f.running = []tiKey{{dagID, "r1", "runme_0", -1}, {dagID, "r2", "runme_0", -1}, {dagID, "r2", "runme_1", -1}, {"other", "r1", "runme_0", -1}}
			f.wakes = 0
			if err := tc.op(ts.srv.ops); err != nil {
				t.Fatal(err)
			}
			if f.wakes != tc.wantWakes {
				t.Errorf("%d wakes, want %d", f.wakes, tc.wantWakes)
			}
			if !slices.Equal(f.stopped, tc.wantStopped) {
				t.Errorf("stopped %v, want %v", f.stopped, tc.wantStopped)
			}
		})
	}
}

// TestOps_Faults: the operations answer domain faults with the values a
// phrasebook needs, and the neutral kind.
func TestOps_Faults(t *testing.T) {
	t.Parallel()
	const dagID = "example_bash_operator"
	at := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		op     func(o *operations) error
		fault  opFault
		kind   error
		values map[string]string
	}{
		{"unknown DAG", func(o *operations) error {
			_, err := o.trigger(triggerRequest{dagID: "nope"})
			return err
		}, faultDagNotFound, errNotFound, map[string]string{"dag_id": "nope"}},
		{"run id taken", func(o *operations) error {
			later := at.Add(time.Hour)
			_, err := o.trigger(triggerRequest{dagID: dagID, runID: "r1", date: &later})
			return err
		}, faultRunExists, errConflict, map[string]string{"dag_id": dagID, "run_id": "r1", "by_id": "r1"}},
		{"date taken", func(o *operations) error {
			_, err := o.trigger(triggerRequest{dagID: dagID, runID: "other", date: &at})
			return err
		}, faultRunExists, errConflict, map[string]string{"dag_id": dagID, "run_id": "other", "by_date": "r1"}},
		{"reserved run id", func(o *operations) error {
			later := at.Add(time.Hour)
			_, err := o.trigger(triggerRequest{dagID: dagID, runID: "scheduled__x", date: &later, checks: triggerChecks{reservedRunIDs: true}})
			return err
		}, faultRunIDReserved, errInvalid, map[string]string{"run_id": "scheduled__x", "run_type": "scheduled"}},
		{"unknown run", func(o *operations) error { return o.deleteRun(dagID, "nope") },
			faultRunNotFound, errNotFound, map[string]string{"dag_id": dagID, "run_id": "nope"}},
		{"unknown task", func(o *operations) error {
			_, err := o.markTaskInstances(markRequest{dagID: dagID, taskID: "nope", runID: "r1"})
			return err
		}, faultTaskMissing, errNotFound, map[string]string{"dag_id": dagID, "task_id": "nope"}},
		{"no task instance in that run", func(o *operations) error {
			_, err := o.patchTaskInstance(dagID, "nope", "runme_0", -1, TaskFailed, true)
			return err
		}, faultTINotFound, errNotFound, map[string]string{"dag_id": dagID, "run_id": "nope", "task_id": "runme_0"}},
		{"a state that is none", func(o *operations) error {
			_, err := parseTIStates([]string{"running", "bogus"})
			return err
		}, faultBadTIState, errInvalid, map[string]string{"state": "bogus"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, _ := opsServer(t, edition2)
			ts.postRun(t, dagID, `{"dag_run_id": "r1", "logical_date": "2024-04-01T00:00:00+00:00"}`)
			err := tc.op(ts.srv.ops)
			var oe *opError
			if !errors.As(err, &oe) {
				t.Fatalf("err %v, want the fault %s", err, tc.fault)
			}
			if oe.fault != tc.fault || !errors.Is(err, tc.kind) {
				t.Errorf("fault %s (%v), want %s (%v)", oe.fault, oe.kind, tc.fault, tc.kind)
			}
			for k, v := range tc.values {
				if oe.value(k) != v {
					t.Errorf("%s = %q, want %q", k, oe.value(k), v)
				}
			}
		})
	}
}

// TestOps_TriggerFormAsExperimental: the status page's trigger form and
// an experimental trigger without a date or run id land the same run
// (now, to the second), each waking the scheduler once.
func TestOps_TriggerFormAsExperimental(t *testing.T) {
	t.Parallel()
	const dagID = "example_bash_operator"
	ways := map[string]func(t *testing.T, ts *testServer){
		"experimental": func(t *testing.T, ts *testServer) { ts.trigger(t, dagID, `{"conf": {"a": 1}}`) },
		"status page": func(t *testing.T, ts *testServer) {
			if res := uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {dagID}, "conf": {`{"a": 1}`}}); res.status != http.StatusSeeOther {
				t.Fatalf("trigger form: status %d, body %s", res.status, res.body)
			}
		},
	}
	var runs []DagRun
	for _, e := range []edition{edition110, edition2} {
		for name, trigger := range ways {
			ts, f := opsServer(t, e)
			trigger(t, ts)
			if f.wakes != 1 {
				t.Errorf("%s %s: %d wakes, want 1", e, name, f.wakes)
			}
			got, err := ts.store.RunsOfDag(dagID, "")
			if err != nil || len(got) != 1 {
				t.Fatalf("%s %s: runs %v, %v", e, name, got, err)
			}
			runs = append(runs, *got[0])
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("%s: the form landed %+v, the API %+v", e, runs[1], runs[0])
		}
		runs = runs[:0]
	}
}
