package main

import (
	"fmt"
	"sort"
	"strings"
)

// Trigger rules: when a task whose upstream tasks have (partly) finished
// may run. Each Airflow release has its own set of rule names and, for a
// few rules, its own outcome; an edition's table (editionRules.triggerRules)
// names the rules its release accepts and what each does.

// triggerRule decides from a waiting task's upstream counts whether its
// rule is met, and, when the rule can never be met, the state the task
// takes at once (Airflow's flag_upstream_failed): skipped or
// upstream_failed. blocked wins over met, as a task Airflow has set to a
// finished state is never scheduled.
type triggerRule func(c upstreamCounts) (blocked TaskState, met bool)

// namedRule is a rule name an edition accepts: what the task says its rule
// is (Airflow 2 renames its deprecated names when the operator is built),
// and how it decides.
type namedRule struct {
	shown  string
	decide triggerRule
}

// upstreamCounts summarises the states of a task's upstream tasks.
type upstreamCounts struct {
	total, success, skipped, failed, upstreamFailed, done int
	// The setup tasks among them (2.10.3 trigger_rule_dep.py:362-373
	// upstream_setup, success_setup, skipped_setup).
	setups, setupSuccess, setupSkipped int
}

func (c upstreamCounts) allDone() bool { return c.done >= c.total }
func (c upstreamCounts) failures() int { return c.failed + c.upstreamFailed }
func countUpstream(task *Task, byID runTIs) upstreamCounts {
	c := upstreamCounts{}
	for _, id := range task.Upstream {
		// No task instance in this run (its dates leave the run out):
		// never done, as Airflow counts task instances; a mapped task
		// counts each of its instances (scheduler_mapping.go), but those
		// a revision removed (its length shrank after a clear), which
		// airlite leaves out where Airflow's all_success would wait for
		// them forever (2.10.3 trigger_rule_dep.py:475-490 takes them off
		// only for a mapped downstream).
		tis := byID[id]
		removed := 0
		for _, ti := range tis {
			if ti.State == TaskRemoved && ti.MapIndex >= 0 {
				removed++
			}
		}
		if len(tis) > 0 && removed == len(tis) {
			c.total, c.skipped = c.total+1, c.skipped+1 // shrunk to nothing: as an empty expansion
		} else {
			c.total += max(len(tis)-removed, 1)
		}
		for _, ti := range tis {
			switch ti.State {
			case TaskSuccess:
				c.success++
			case TaskSkipped:
				c.skipped++
			case TaskFailed:
				c.failed++
			case TaskUpstreamFailed:
				c.upstreamFailed++
			}
		}
	}
	c.done += c.success + c.skipped + c.failed + c.upstreamFailed
	for _, id := range task.setupUpstream {
		tis := byID[id]
		if len(tis) == 0 {
			c.setups++
			continue
		}
		for _, ti := range tis {
			c.setups++
			switch ti.State {
			case TaskSuccess:
				c.setupSuccess++
			case TaskSkipped:
				c.setupSkipped++
			}
		}
	}
	return c
}

// teardownScopeWaiting is how many task instances between a teardown's
// setups and it (Task.teardownScope) have not finished: Airflow 3.2.0's
// TriggerRuleDep, once a teardown's direct upstream tasks let it run,
// fails it while any has not (trigger_rule_dep.py
// _evaluate_teardown_scope, apache/airflow#64181; evaluated only after
// the direct relatives passed, #64558), the always rule aside (it passes
// before). A mapped task counts each of its instances, one not expanded
// yet once; a task with no instance in the run is never done, as in
// countUpstream. 0 for any task that is not a teardown.
func teardownScopeWaiting(task *Task, byID runTIs) int {
	if task.TriggerRule == "always" {
		return 0
	}
	waiting := 0
	for _, id := range task.teardownScope {
		tis := byID[id]
		if len(tis) == 0 {
			waiting++
		}
		for _, ti := range tis {
			if !ti.State.Finished() {
				waiting++
			}
		}
	}
	return waiting
}

// The rules. Where the releases agree there is one function; the line
// numbers are in ti_deps/deps/trigger_rule_dep.py at 2.10.3 and 1.10.15.

func ruleAllSuccess(c upstreamCounts) (TaskState, bool) {
	switch {
	case c.failures() > 0:
		return TaskUpstreamFailed, false
	case c.skipped > 0:
		return TaskSkipped, false
	}
	return "", c.success == c.total
}

func ruleAllFailed(c upstreamCounts) (TaskState, bool) {
	if c.success > 0 || c.skipped > 0 {
		return TaskSkipped, false
	}
	return "", c.failures() == c.total
}

func ruleAllDone(c upstreamCounts) (TaskState, bool) { return "", c.allDone() }

func ruleAllSkipped(c upstreamCounts) (TaskState, bool) {
	if c.success > 0 || c.failures() > 0 {
		return TaskSkipped, false
	}
	return "", c.skipped == c.total
}

// ruleOneSuccess2: Airflow 2 skips when every upstream task was skipped
// and fails upstream when none succeeded (2.10.3 :391-397).
func ruleOneSuccess2(c upstreamCounts) (TaskState, bool) {
	switch {
	case c.allDone() && c.done == c.skipped:
		return TaskSkipped, false
	case c.allDone() && c.success == 0:
		return TaskUpstreamFailed, false
	}
	return "", c.success > 0
}

// ruleOneSuccess110: 1.10 skips whenever all are done and none succeeded,
// failed upstreams included (1.10.15 :147-149).
func ruleOneSuccess110(c upstreamCounts) (TaskState, bool) {
	if c.allDone() && c.success == 0 {
		return TaskSkipped, false
	}
	return "", c.success > 0
}

func ruleOneFailed(c upstreamCounts) (TaskState, bool) {
	if c.allDone() && c.failures() == 0 {
		return TaskSkipped, false
	}
	return "", c.failures() > 0
}

func ruleOneDone(c upstreamCounts) (TaskState, bool) {
	if c.allDone() && c.failed == 0 && c.success == 0 {
		return TaskSkipped, false
	}
	return "", c.success+c.failed > 0
}

func ruleNoneFailed(c upstreamCounts) (TaskState, bool) {
	if c.failures() > 0 {
		return TaskUpstreamFailed, false
	}
	return "", c.allDone()
}

// ruleNoneFailedMinOneSuccess is 2's none_failed_min_one_success and
// 1.10's none_failed_or_skipped, which decide alike.
func ruleNoneFailedMinOneSuccess(c upstreamCounts) (TaskState, bool) {
	switch {
	case c.failures() > 0:
		return TaskUpstreamFailed, false
	case c.skipped == c.total:
		return TaskSkipped, false
	}
	return "", c.allDone()
}

func ruleNoneSkipped(c upstreamCounts) (TaskState, bool) {
	if c.skipped > 0 {
		return TaskSkipped, false
	}
	return "", c.allDone()
}

func ruleAlways(upstreamCounts) (TaskState, bool) { return "", true }

// ruleAllDoneSetupSuccess is a teardown's rule: every upstream task done
// and, when some are setups, at least one setup successful; all setups
// skipped skip it, none successful fails it upstream (:418-425, :542-560).
func ruleAllDoneSetupSuccess(c upstreamCounts) (TaskState, bool) {
	if !c.allDone() {
		return "", false
	}
	switch {
	case c.setups > 0 && c.setupSkipped >= c.setups:
		return TaskSkipped, false
	case c.setups > 0 && c.setupSuccess == 0:
		return TaskUpstreamFailed, false
	}
	return "", true
}

// triggerRules2 are Airflow 2.10.3's rules (airflow/utils/trigger_rule.py:26-39).
var triggerRules2 = map[string]namedRule{
	"all_success":                 {"all_success", ruleAllSuccess},
	"all_failed":                  {"all_failed", ruleAllFailed},
	"all_done":                    {"all_done", ruleAllDone},
	"all_done_setup_success":      {"all_done_setup_success", ruleAllDoneSetupSuccess},
	"all_skipped":                 {"all_skipped", ruleAllSkipped},
	"one_success":                 {"one_success", ruleOneSuccess2},
	"one_failed":                  {"one_failed", ruleOneFailed},
	"one_done":                    {"one_done", ruleOneDone},
	"none_failed":                 {"none_failed", ruleNoneFailed},
	"none_failed_min_one_success": {"none_failed_min_one_success", ruleNoneFailedMinOneSuccess},
	"none_skipped":                {"none_skipped", ruleNoneSkipped},
	"always":                      {"always", ruleAlways},
	// Deprecated names, renamed when the operator is built
	// (airflow/models/baseoperator.py:1008-1023).
	"dummy":                  {"always", ruleAlways},
	"none_failed_or_skipped": {"none_failed_min_one_success", ruleNoneFailedMinOneSuccess},
}

// triggerRules110 are Airflow 1.10.15's rules (airflow/utils/trigger_rule.py:27-35).
var triggerRules110 = map[string]namedRule{
	"all_success":            {"all_success", ruleAllSuccess},
	"all_failed":             {"all_failed", ruleAllFailed},
	"all_done":               {"all_done", ruleAllDone},
	"one_success":            {"one_success", ruleOneSuccess110},
	"one_failed":             {"one_failed", ruleOneFailed},
	"none_failed":            {"none_failed", ruleNoneFailed},
	"none_failed_or_skipped": {"none_failed_or_skipped", ruleNoneFailedMinOneSuccess},
	"none_skipped":           {"none_skipped", ruleNoneSkipped},
	"dummy":                  {"dummy", ruleAlways},
}

// triggerRule is how the edition decides the named rule; ok is false for a
// name its release does not know.
func (r *editionRules) triggerRule(name string) (triggerRule, bool) {
	nr, ok := r.triggerRules[name]
	return nr.decide, ok
}

// shownTriggerRule is the rule a task of the edition says it has.
func (r *editionRules) shownTriggerRule(name string) string {
	if nr, ok := r.triggerRules[name]; ok {
		return nr.shown
	}
	return name
}

// checkDAGs refuses a set of DAGs with one that checkDAG refuses, naming
// its file.
func (r *editionRules) checkDAGs(set *DAGSet) error {
	for _, dag := range set.DAGs {
		if err := r.checkDAG(dag); err != nil {
			return fmt.Errorf("%s: %w", dag.FilePath, err)
		}
	}
	return nil
}

// checkDAG refuses a DAG whose tasks use a trigger rule the edition's
// release does not know, as its operators refuse it when the DAG file is
// parsed (baseoperator.py: 1.10.15 :359, 2.10.3 :1025).
func (r *editionRules) checkDAG(dag *DAG) error {
	for _, t := range dag.Tasks {
		if _, ok := r.triggerRules[t.TriggerRule]; !ok {
			names := make([]string, 0, len(r.triggerRules))
			for name := range r.triggerRules {
				names = append(names, name)
			}
			sort.Strings(names)
			return fmt.Errorf("dag %s: task %q: trigger_rule %q is not one of Airflow %s's: %s",
				dag.DagID, t.TaskID, t.TriggerRule, r.version, strings.Join(names, ", "))
		}
	}
	return nil
}
