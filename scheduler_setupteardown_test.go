package main

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

// TestSetupTeardown_ContextManagersLink: `with setup >> teardown:`,
// `with setup:` and `with teardown:` put the tasks made inside between
// them, as Airflow 2.10.3's SetupTeardownContext does.
func TestSetupTeardown_ContextManagersLink(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/setup")
	byDAG := map[string]*DAG{}
	for _, d := range set.DAGs {
		byDAG[d.DagID] = d
	}
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	cases := []struct {
		dag, task string
		down      []string
	}{
		{"py_setup", "create", []string{"delete", "work"}},
		{"py_setup", "work", []string{"after_work"}},
		{"py_setup", "after_work", []string{"delete"}},
		{"py_setup", "delete", nil},
		{"py_setup_classic", "s", []string{"inside"}},
		{"py_setup_classic", "before_t", []string{"t"}},
	}
	for _, c := range cases {
		task := byDAG[c.dag].Task(c.task)
		if task == nil {
			t.Errorf("%s.%s missing", c.dag, c.task)
			continue
		}
		if got := task.Downstream; !slices.Equal(got, c.down) && !(len(got) == 0 && len(c.down) == 0) {
			t.Errorf("%s.%s downstream = %v, want %v", c.dag, c.task, got, c.down)
		}
	}
	if d := byDAG["py_setup"].Task("delete"); !d.IsTeardown || d.TriggerRule != "all_done_setup_success" {
		t.Errorf("delete: teardown %v, rule %q", d.IsTeardown, d.TriggerRule)
	}
	if c := byDAG["py_setup"].Task("create"); !c.IsSetup {
		t.Error("create is not a setup task")
	}
}

// TestSetupTeardown_Runs: the teardown runs after the work failed and the
// run fails on the work (the teardown is no leaf of the run's state);
// what the failed callable pushed before it raised stays; a setup's
// Variable.set and a teardown's Variable.delete reach the store; a
// teardown whose only setup failed is upstream_failed.
func TestSetupTeardown_Runs(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/setup")
	store, runID := mappingRun(t, set, "py_setup")
	if run := finishedRun(t, store, "py_setup", runID); run.State != RunFailed {
		t.Errorf("py_setup ended %q, want failed (its work failed)", run.State)
	}
	states := map[string]TaskState{}
	tis, _ := store.TaskInstancesOfRun("py_setup", runID)
	for _, ti := range tis {
		states[ti.TaskID] = ti.State
	}
	want := map[string]TaskState{"create": TaskSuccess, "work": TaskFailed, "after_work": TaskUpstreamFailed, "delete": TaskSuccess}
	for id, st := range want {
		if states[id] != st {
			t.Errorf("%s = %q, want %q", id, states[id], st)
		}
	}
	if e, err := store.XCom("py_setup", runID, "work", "progress", -1); err != nil || string(e.Value) != "50" {
		t.Errorf("work's push before it failed: %v %v, want 50 kept", e, err)
	}
	if _, err := store.XCom("py_setup", runID, "work", xcomReturnKey, -1); err == nil {
		t.Error("a failed try pushed a return value")
	}
	if v, ok := store.VariableValue("made_by_setup"); !ok || v != "{\n  \"n\": 1\n}" {
		t.Errorf("made_by_setup = %q %v, want the JSON Variable.set wrote", v, ok)
	}
	if _, ok := store.VariableValue("doomed"); ok {
		t.Error("doomed was not deleted by the teardown")
	}
	raw, _ := store.read().First(tableTaskLogs, indexID, "py_setup", runID, "delete", "-1")
	if raw == nil || !strings.Contains(raw.(*TaskLog).Tries[0].Output, "gone: 1 0") {
		t.Errorf("delete's log lacks Variable.delete's counts: %+v", raw)
	}

	store2, runID2 := mappingRun(t, set, "py_setup_fails")
	states = map[string]TaskState{}
	tis, _ = store2.TaskInstancesOfRun("py_setup_fails", runID2)
	for _, ti := range tis {
		states[ti.TaskID] = ti.State
	}
	want = map[string]TaskState{"make": TaskFailed, "use": TaskUpstreamFailed, "clean": TaskUpstreamFailed}
	for id, st := range want {
		if states[id] != st {
			t.Errorf("py_setup_fails %s = %q, want %q", id, states[id], st)
		}
	}
}

func TestRuleAllDoneSetupSuccess(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		c           upstreamCounts
		wantBlocked TaskState
		wantMet     bool
	}{
		{"not done", upstreamCounts{total: 2, done: 1, setups: 1, setupSuccess: 1}, "", false},
		{"done, a setup succeeded", upstreamCounts{total: 2, done: 2, failed: 1, setups: 1, setupSuccess: 1}, "", true},
		{"done, no setups", upstreamCounts{total: 1, done: 1, failed: 1}, "", true},
		{"setups all skipped", upstreamCounts{total: 2, done: 2, skipped: 2, setups: 2, setupSkipped: 2}, TaskSkipped, false},
		{"no setup succeeded", upstreamCounts{total: 2, done: 2, failed: 1, skipped: 1, setups: 2, setupSkipped: 1}, TaskUpstreamFailed, false},
	}
	for _, c := range cases {
		blocked, met := ruleAllDoneSetupSuccess(c.c)
		if blocked != c.wantBlocked || met != c.wantMet {
			t.Errorf("%s: (%q, %v), want (%q, %v)", c.name, blocked, met, c.wantBlocked, c.wantMet)
		}
	}
}

// TestSetupTeardown_TeardownWaitsForItsScope: Airflow 3.2.0's
// TriggerRuleDep, once a teardown's direct upstream tasks let it run,
// also waits for every task between its setups and it (its indirect
// upstream tasks downstream of one of its direct setups) to finish
// (_evaluate_teardown_scope, apache/airflow#64181 and #64558, both in
// 3.2.0's release notes; the 3.2.0-era main c57fba0e had neither). Here
// t_fail fails, d is upstream_failed, and td waits for t_slow in edition
// 3; 2.10.3 starts it while t_slow runs.
func TestSetupTeardown_TeardownWaitsForItsScope(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition3} {
		set := readPyServeFolderAs(t, "testdata/pydags/teardownscope", e)
		t.Run(string(e), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarnessOf(t, set, func(o *schedulerOptions) { o.Edition = e })
				if err := h.store.SetPaused("teardown_scope", false, false); err != nil {
					t.Fatal(err)
				}
				h.runner.outcomes["t_fail"] = []TaskState{TaskFailed}
				release := h.runner.hold("t_slow")
				runID := h.trigger("teardown_scope", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				states := func() map[string]TaskState {
					tis, err := h.store.TaskInstancesOfRun("teardown_scope", runID)
					if err != nil {
						t.Fatal(err)
					}
					out := map[string]TaskState{}
					for _, ti := range tis {
						out[ti.TaskID] = ti.State
					}
					return out
				}
				got := states()
				if got["t_fail"] != TaskFailed || got["d"] != TaskUpstreamFailed || got["t_slow"] != TaskRunning {
					t.Fatalf("states while t_slow runs %v, want t_fail failed, d upstream_failed, t_slow running", got)
				}
				wantTd := TaskNone // waits for t_slow
				if e == edition2 {
					wantTd = TaskSuccess // ran beside it
				}
				if got["td"] != wantTd {
					t.Errorf("td while t_slow runs = %q, want %q", got["td"], wantTd)
				}
				if e == edition3 {
					// The task instance dependencies route names the wait.
					ops := &operations{store: h.store, edition: e, now: h.clock.Now, unixname: "tester"}
					deps, err := ops.taskInstanceDependencies("teardown_scope", runID, "td", -1)
					want := []tiDep{{"Task Instance State", "Task is in the 'None' state."}, {"Trigger Rule", "Task's trigger rule 'all_done_setup_success' requires all tasks between setup and teardown " +
						"to have completed, but found 1 in-scope task(s) not done. in_scope_task_ids={'t_fail', 't_slow'}"}}
					if err != nil || !slices.Equal(deps, want) {
						t.Errorf("td's dependencies %+v (%v), want %+v", deps, err, want)
					}
				}
				close(release)
				h.settle()
				got = states()
				if got["t_slow"] != TaskSuccess || got["td"] != TaskSuccess {
					t.Errorf("states at the end %v, want t_slow and td success", got)
				}
				if st := h.runState("teardown_scope", runID); st != RunFailed {
					t.Errorf("run ended %q, want failed (d is upstream_failed)", st)
				}
			})
		})
	}
}
