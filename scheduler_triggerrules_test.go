package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestTriggerRules_PerEdition evaluates a waiting task with two upstream
// tasks in the given states, as each edition's Airflow does. "waits" is
// no state: the rule is neither met nor impossible yet.
func TestTriggerRules_PerEdition(t *testing.T) {
	t.Parallel()
	const (
		runs  = TaskScheduled // the rule is met
		waits = TaskNone      // not met, not yet impossible
		none  = TaskNone      // an upstream task not finished
	)
	// Airflow 2.10.3 airflow/ti_deps/deps/trigger_rule_dep.py: the states
	// set at :379-425 (flag_upstream_failed), the passing checks at
	// :444-560, always at :110. Airflow 1.10.15
	// airflow/ti_deps/deps/trigger_rule_dep.py: the states set at :138-163,
	// the passing checks at :165-231, dummy at :69.
	cases := []struct {
		ed     edition
		rule   string
		u1, u2 TaskState
		want   TaskState
		line   string
	}{
		{edition2, "all_success", TaskSuccess, TaskSuccess, runs, "2.10.3 :472"},
		{edition2, "all_success", TaskSuccess, TaskFailed, TaskUpstreamFailed, "2.10.3 :381"},
		{edition2, "all_success", TaskSkipped, TaskUpstreamFailed, TaskUpstreamFailed, "2.10.3 :381"},
		{edition2, "all_success", TaskSuccess, TaskSkipped, TaskSkipped, "2.10.3 :384"},
		{edition2, "all_success", TaskSuccess, none, waits, "2.10.3 :476"},
		{edition2, "all_failed", TaskFailed, TaskUpstreamFailed, runs, "2.10.3 :486"},
		{edition2, "all_failed", TaskFailed, TaskSkipped, TaskSkipped, "2.10.3 :390"},
		{edition2, "all_failed", TaskFailed, none, waits, "2.10.3 :489"},
		{edition2, "all_done", TaskFailed, TaskSkipped, runs, "2.10.3 :499"},
		{edition2, "all_done", TaskFailed, none, waits, "2.10.3 :499"},
		{edition2, "all_done_setup_success", TaskFailed, TaskSkipped, runs, "2.10.3 :543 (no setup tasks)"},
		{edition2, "one_success", TaskFailed, TaskSuccess, runs, "2.10.3 :445"},
		{edition2, "one_success", TaskSuccess, none, runs, "2.10.3 :445"},
		{edition2, "one_success", TaskFailed, TaskFailed, TaskUpstreamFailed, "2.10.3 :397"},
		{edition2, "one_success", TaskSkipped, TaskFailed, TaskUpstreamFailed, "2.10.3 :397"},
		{edition2, "one_success", TaskSkipped, TaskSkipped, TaskSkipped, "2.10.3 :394"},
		{edition2, "one_success", TaskFailed, none, waits, "2.10.3 :445"},
		{edition2, "one_failed", TaskUpstreamFailed, none, runs, "2.10.3 :454"},
		{edition2, "one_failed", TaskSuccess, TaskSkipped, TaskSkipped, "2.10.3 :400"},
		{edition2, "one_failed", TaskSuccess, none, waits, "2.10.3 :454"},
		{edition2, "one_done", TaskFailed, none, runs, "2.10.3 :463"},
		{edition2, "one_done", TaskSkipped, TaskUpstreamFailed, TaskSkipped, "2.10.3 :403"},
		{edition2, "one_done", TaskSkipped, none, waits, "2.10.3 :463"},
		{edition2, "none_failed", TaskSuccess, TaskSkipped, runs, "2.10.3 :509"},
		{edition2, "none_failed", TaskSkipped, TaskSkipped, runs, "2.10.3 :509"},
		{edition2, "none_failed", TaskUpstreamFailed, none, TaskUpstreamFailed, "2.10.3 :406"},
		{edition2, "none_failed_min_one_success", TaskSuccess, TaskSkipped, runs, "2.10.3 :509"},
		{edition2, "none_failed_min_one_success", TaskSkipped, TaskSkipped, TaskSkipped, "2.10.3 :411"},
		{edition2, "none_failed_min_one_success", TaskFailed, TaskSuccess, TaskUpstreamFailed, "2.10.3 :409"},
		{edition2, "none_failed_or_skipped", TaskSkipped, TaskSkipped, TaskSkipped, "2.10.3 airflow/models/baseoperator.py:1016-1023 maps it"},
		{edition2, "none_skipped", TaskSuccess, TaskFailed, runs, "2.10.3 :522"},
		{edition2, "none_skipped", TaskSkipped, none, TaskSkipped, "2.10.3 :414"},
		{edition2, "none_skipped", TaskSuccess, none, waits, "2.10.3 :522"},
		{edition2, "all_skipped", TaskSkipped, TaskSkipped, runs, "2.10.3 :532"},
		{edition2, "all_skipped", TaskSkipped, TaskUpstreamFailed, TaskSkipped, "2.10.3 :417"},
		{edition2, "all_skipped", TaskSkipped, none, waits, "2.10.3 :533"},
		{edition2, "always", none, none, runs, "2.10.3 :110"},
		{edition2, "dummy", TaskFailed, none, runs, "2.10.3 airflow/models/baseoperator.py:1008-1014 maps it to always"},

		{edition110, "all_success", TaskSuccess, TaskSuccess, runs, "1.10.15 :179"},
		{edition110, "all_success", TaskSuccess, TaskFailed, TaskUpstreamFailed, "1.10.15 :141"},
		{edition110, "all_success", TaskSuccess, TaskSkipped, TaskSkipped, "1.10.15 :143"},
		{edition110, "all_failed", TaskFailed, TaskUpstreamFailed, runs, "1.10.15 :189"},
		{edition110, "all_failed", TaskFailed, TaskSuccess, TaskSkipped, "1.10.15 :146"},
		{edition110, "all_done", TaskFailed, TaskSkipped, runs, "1.10.15 :198"},
		{edition110, "all_done", TaskFailed, none, waits, "1.10.15 :198"},
		{edition110, "one_success", TaskFailed, TaskSuccess, runs, "1.10.15 :166"},
		{edition110, "one_success", TaskFailed, TaskFailed, TaskSkipped, "1.10.15 :148-149"},
		{edition110, "one_success", TaskUpstreamFailed, TaskSkipped, TaskSkipped, "1.10.15 :148-149"},
		{edition110, "one_success", TaskFailed, none, waits, "1.10.15 :166"},
		{edition110, "one_failed", TaskUpstreamFailed, none, runs, "1.10.15 :173"},
		{edition110, "one_failed", TaskSuccess, TaskSkipped, TaskSkipped, "1.10.15 :151-152"},
		{edition110, "none_failed", TaskSuccess, TaskSkipped, runs, "1.10.15 :207"},
		{edition110, "none_failed", TaskFailed, none, TaskUpstreamFailed, "1.10.15 :154-155"},
		{edition110, "none_failed_or_skipped", TaskSuccess, TaskSkipped, runs, "1.10.15 :216"},
		{edition110, "none_failed_or_skipped", TaskSkipped, TaskSkipped, TaskSkipped, "1.10.15 :159-160"},
		{edition110, "none_failed_or_skipped", TaskSuccess, TaskFailed, TaskUpstreamFailed, "1.10.15 :157-158"},
		{edition110, "none_skipped", TaskSuccess, TaskFailed, runs, "1.10.15 :225"},
		{edition110, "none_skipped", TaskSkipped, none, TaskSkipped, "1.10.15 :162-163"},
		{edition110, "dummy", TaskUpstreamFailed, none, runs, "1.10.15 :69"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s+%s", tc.ed, tc.rule, orNone(tc.u1), orNone(tc.u2)), func(t *testing.T) {
			t.Parallel()
			rule, ok := tc.ed.rules().triggerRule(tc.rule)
			if !ok {
				t.Fatalf("edition %s refuses trigger rule %s (%s)", tc.ed, tc.rule, tc.line)
			}
			task := &Task{TaskID: "d", Upstream: []string{"u1", "u2"}, TriggerRule: tc.rule}
			byID := runTIs{
				"u1": {{TaskID: "u1", MapIndex: -1, State: tc.u1}},
				"u2": {{TaskID: "u2", MapIndex: -1, State: tc.u2}},
				"d":  {{TaskID: "d", MapIndex: -1}},
			}
			got, _ := evaluateTask(rule, task, byID["d"][0], byID, time.Time{})
			if got != tc.want {
				t.Errorf("%s: d = %q, want %q (%s)", tc.rule, orNone(got), orNone(tc.want), tc.line)
			}
		})
	}
}

func orNone(s TaskState) string {
	if s == TaskNone {
		return "none"
	}
	return string(s)
}

// TestTriggerRules_NamesPerEdition: each edition accepts the rule names
// of its Airflow release: 1.10.15 airflow/utils/trigger_rule.py:27-35,
// 2.10.3 airflow/utils/trigger_rule.py:26-39 (dummy and
// none_failed_or_skipped renamed at airflow/models/baseoperator.py:1008-1023).
func TestTriggerRules_NamesPerEdition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed    edition
		rule  string
		ok    bool
		shown string // what task info says
	}{
		{edition2, "all_done_setup_success", true, "all_done_setup_success"},
		{edition2, "dummy", true, "always"},
		{edition2, "none_failed_or_skipped", true, "none_failed_min_one_success"},
		{edition2, "all_skipped", true, "all_skipped"},
		{edition2, "sometimes", false, ""},
		{edition110, "dummy", true, "dummy"},
		{edition110, "none_failed_or_skipped", true, "none_failed_or_skipped"},
		{edition110, "all_skipped", false, ""},
		{edition110, "one_done", false, ""},
		{edition110, "always", false, ""},
		{edition110, "none_failed_min_one_success", false, ""},
		{edition110, "all_done_setup_success", false, ""},
		{edition110RBAC, "always", false, ""},
		{edition110RBAC, "dummy", true, "dummy"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed)+"/"+tc.rule, func(t *testing.T) {
			t.Parallel()
			r := tc.ed.rules()
			_, ok := r.triggerRule(tc.rule)
			if ok != tc.ok {
				t.Fatalf("accepted = %v, want %v", ok, tc.ok)
			}
			dag := &DAG{DagID: "d", Tasks: []*Task{{TaskID: "t", TriggerRule: tc.rule}}}
			err := r.checkDAG(dag)
			if (err == nil) != tc.ok {
				t.Fatalf("checkDAG: %v, want accepted %v", err, tc.ok)
			}
			if tc.ok {
				if got := r.taskInfo(dag, dag.Tasks[0])["trigger_rule"]; got != tc.shown {
					t.Errorf("task info trigger_rule = %v, want %s", got, tc.shown)
				}
			}
		})
	}
}

// TestRun_RefusesTriggerRuleOfOtherRelease: a DAG file whose task uses a
// rule its edition's Airflow does not know does not load, as the operator
// raises when the file is parsed (1.10.15
// airflow/models/baseoperator.py:359): an import error, which
// --fail-on-import-errors makes a refusal to start.
func TestRun_RefusesTriggerRuleOfOtherRelease(t *testing.T) {
	t.Parallel()
	const dag = "dag_id: newer\ntasks:\n" +
		"  - {task_id: a, operator: DummyOperator, downstream: [b]}\n" +
		"  - {task_id: b, operator: DummyOperator, trigger_rule: always}\n"
	for _, tc := range []struct {
		ed edition
	}{{edition110}, {edition110RBAC}} {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			dags, home := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(dags, "newer.yaml"), []byte(dag), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr syncBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			args := []string{"--addr", "127.0.0.1:0", "--dags", dags, "--home", home, "--snapshot", "off",
				"--scheduler", "off", "--edition", string(tc.ed), "--fail-on-import-errors"}
			err := run(ctx, args, mapEnv(map[string]string{"HOME": home}), &stdout, &stderr)
			if err == nil || ctx.Err() != nil {
				t.Fatalf("run = %v (deadline %v), want a refusal", err, ctx.Err())
			}
			for _, want := range []string{"newer.yaml", `"b"`, `"always"`, "1.10.15"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %s", err, want)
				}
			}
		})
	}
}

// TestScheduler_TriggerRuleStateDates checks the dates of a task instance
// its trigger rule finishes: Airflow's TriggerRuleDep sets the state with
// TaskInstance.set_state, which in 2.10.3 and 3.2.1 writes a start and an
// end date where there are none and the duration between them
// (2.10.3 airflow/models/taskinstance.py:2422-2428; 3.2.1's
// airflow-core/src/airflow/models/taskinstance.py set_state alike), and
// in 1.10.15 the two dates without a duration
// (airflow/models/taskinstance.py:537-541).
func TestScheduler_TriggerRuleStateDates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ed           edition
		wantDuration bool
	}{
		{edition2, true},
		{edition3, true},
		{edition110, false},
	} {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"rules.yaml": fmt.Sprintf(twoUpstreamDAG, "all_success")},
					func(o *schedulerOptions) { o.Edition = tc.ed })
				h.runner.outcomes["u1"] = []TaskState{TaskFailed}
				runID := h.trigger("rules", `{}`)
				h.settle()
				d := h.ti("rules", runID, "d")
				if d.State != TaskUpstreamFailed {
					t.Fatalf("d = %q, want upstream_failed", d.State)
				}
				if d.StartDate == nil || d.EndDate == nil || !d.StartDate.Equal(*d.EndDate) {
					t.Errorf("d's dates %v, %v: want both, equal", d.StartDate, d.EndDate)
				}
				switch {
				case tc.wantDuration && (d.Duration == nil || *d.Duration != 0):
					t.Errorf("d's duration %v, want 0", d.Duration)
				case !tc.wantDuration && d.Duration != nil:
					t.Errorf("d's duration %v, want none", *d.Duration)
				}
			})
		})
	}
}
