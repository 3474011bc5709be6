package main

// A task instance's dependencies: why a task instance that has not
// started cannot be queued now (Airflow 2.10.3
// airflow/api_connexion/endpoints/task_instance_endpoint.py:702-761, the
// deps of airflow/ti_deps/dependencies_deps.py SCHEDULER_QUEUED_DEPS and
// BaseOperator.deps, each in airflow/ti_deps/deps/*.py). The checks are
// the ones airlite's scheduler makes (the trigger rule's upstream counts,
// depends_on_past, the pool and the DAG's slots, the run's state and date,
// the paused flag); the names and reasons are Airflow's.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// faultDepsTaskInstanceNotFound is a task instance whose dependencies
// were asked for and that is not there.
const faultDepsTaskInstanceNotFound opFault = "deps_task_instance_not_found" // dag_id, run_id, task_id

// tiDep is one failed dependency: TIDepStatus's dep_name and reason.
type tiDep struct{ name, reason string }

// taskInstanceDependencies are the failed dependencies of a task
// instance with no state or scheduled, sorted by name (those of one name
// in the order their dep gives them); none for any other state, or when
// the DAG or the task is gone (as Airflow answers).
func (o *operations) taskInstanceDependencies(dagID, runID, taskID string, mapIndex int64) ([]tiDep, error) {
	var deps []tiDep
	err := o.store.View(func(v storeView) error {
		ti, err := v.TaskInstanceAt(dagID, runID, taskID, int(mapIndex))
		if err != nil {
			if errors.Is(err, errNotFound) {
				return opErr(errNotFound, faultDepsTaskInstanceNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
			}
			return err
		}
		if ti.State != TaskNone && ti.State != TaskScheduled {
			return nil
		}
		row, err := v.Dag(dagID)
		if err != nil || row.Def == nil || row.Def.Task(taskID) == nil {
			return nil // Airflow answers no dependencies without the DAG or the task
		}
		deps, err = failedDeps(v, row, row.Def.Task(taskID), ti, o.now().UTC(), o.rules().depLogicalDate, o.rules().teardownScope)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(deps, func(a, b tiDep) int { return strings.Compare(a.name, b.name) })
	return deps, nil
}

// failedDeps evaluates SCHEDULER_QUEUED_DEPS and the task's deps for a
// task instance with no state or scheduled. Deps airlite has nothing for
// always pass: backfill runs, task concurrency limits, retry periods (the
// state is never up_for_retry here), branching skips, mapped upstreams.
func failedDeps(v storeView, row *DagRow, task *Task, ti *TaskInstance, now time.Time, logicalWords, teardownScope bool) ([]tiDep, error) {
	dag := row.Def
	run, err := v.Run(ti.DagID, ti.RunID)
	if err != nil {
		return nil, err
	}
	var deps []tiDep
	fail := func(name, format string, args ...any) { deps = append(deps, tiDep{name, fmt.Sprintf(format, args...)}) }

	// runnable_exec_date_dep.py:33-57, with the task's dates as
	// DAG.add_task sets them (airflow/models/dag.py:2824-2837). Airflow 3
	// names the dep and its reasons by the logical date
	// (airflow-core/src/airflow/ti_deps/deps/runnable_exec_date_dep.py,
	// exec_date_after_start_date_dep.py), and checks none for a run
	// without one.
	depName, future, dateIs := "Execution Date", "Execution date %s is in the future (the current date is %s).", "The execution date is %s"
	if logicalWords {
		depName, future, dateIs = "Logical Date", "Logical date %s is in the future (the current date is %s).", "The logical date is %s"
	}
	logical, dated := run.LogicalDate()
	if logical.After(now) && dated {
		fail(depName, future, isoFormat(logical), isoFormat(now))
	}
	taskStart, taskEnd := taskDates(dag, task)
	if taskEnd != nil && logical.After(*taskEnd) && dated {
		fail(depName, dateIs+" but this is after the task's end date %s.", isoFormat(logical), isoFormat(*taskEnd))
	}
	if dag.EndDate != nil && logical.After(*dag.EndDate) && dated {
		fail(depName, dateIs+" but this is after the task's DAG's end date %s.", isoFormat(logical), isoFormat(*dag.EndDate))
	}
	// valid_state_dep.py:46-55 with QUEUEABLE_STATES (scheduled)
	if ti.State != TaskScheduled {
		fail("Task Instance State", "Task is in the 'None' state.")
	}
	// dag_ti_slots_available_dep.py:30-37 and pool_slots_available_dep.py:33-66,
	// counted as the scheduler counts (queued and running hold slots)
	usage, err := v.ActiveUsage()
	if err != nil {
		return nil, err
	}
	if usage.byDag[ti.DagID] >= dag.MaxActiveTasks {
		fail("Task Instance Slots Available", "The maximum number of running tasks (%d) for this task's DAG '%s' has been reached.",
			dag.MaxActiveTasks, ti.DagID)
	}
	pool, err := v.Pool(ti.Pool)
	switch {
	case errors.Is(err, errNotFound):
		fail("Pool Slots Available", "Tasks using non-existent pool '%s' will not be scheduled", ti.Pool)
	case err != nil:
		return nil, err
	case pool.Slots >= 0 && pool.Slots-usage.byPool[ti.Pool] <= int64(ti.PoolSlots)-1: // negative: unlimited, as the scheduler reads it
		fail("Pool Slots Available", "Not scheduling since there are %d open slots in pool %s and require %d pool slots",
			pool.Slots-usage.byPool[ti.Pool], ti.Pool, ti.PoolSlots)
	}
	// dagrun_exists_dep.py:30-38
	if run.State != RunRunning {
		fail("Dagrun Running", "Task instance's dagrun was not in the 'running' state but in the state '%s'.", run.State)
	}
	// dag_unpaused_dep.py:30-35
	if row.IsPaused {
		fail("Dag Not Paused", "Task's DAG '%s' is paused.", ti.DagID)
	}
	// exec_date_after_start_date_dep.py:30-47
	if taskStart != nil && logical.Before(*taskStart) && dated {
		fail(depName, dateIs+" but this is before the task's start date %s.", isoFormat(logical), isoFormat(*taskStart))
	}
	if dag.StartDate != nil && logical.Before(*dag.StartDate) && dated {
		fail(depName, dateIs+" but this is before the task's DAG's start date %s.", isoFormat(logical), isoFormat(*dag.StartDate))
	}
	// prev_dagrun_dep.py:125-201 (edition 2's rule: the stable API is edition 2's alone)
	if task.DependsOnPast {
		wait, err := pastDependsWait2(v, dag, task, run)
		if err != nil {
			return nil, err
		}
		switch wait {
		case pastNotRun:
			fail("Previous Dagrun State", "depends_on_past is true for this task's DAG, but the previous task instance has not run yet.")
		case pastUnsuccessful:
			fail("Previous Dagrun State", "depends_on_past is true for this task, but 1 previous task instance(s) are not in a successful state.")
		}
	}
	// trigger_rule_dep.py:97-113 and :329-562
	rule := task.TriggerRule
	if nr, ok := triggerRules2[rule]; ok {
		rule = nr.shown // a deprecated name, as the operator renames it
	}
	if len(task.Upstream) > 0 && rule != "always" {
		tis, err := v.TaskInstancesOfRun(ti.DagID, ti.RunID)
		if err != nil {
			return nil, err
		}
		byID := make(runTIs, len(tis))
		for _, t := range tis {
			byID[t.TaskID] = append(byID[t.TaskID], t)
		}
		if reason := triggerRuleReason(rule, task.Upstream, countUpstream(task, byID)); reason != "" {
			fail("Trigger Rule", "%s", reason)
		} else if n := teardownScopeWaiting(task, byID); teardownScope && n > 0 {
			// 3.2.0 trigger_rule_dep.py _evaluate_teardown_scope
			// (apache/airflow#64181): in_scope_task_ids is a set,
			// printed here sorted (Python prints it in no set order).
			ids := make([]string, len(task.teardownScope))
			for i, id := range task.teardownScope {
				ids[i] = pyQuote(id)
			}
			fail("Trigger Rule", "Task's trigger rule '%s' requires all tasks between setup and teardown to have completed, "+
				"but found %d in-scope task(s) not done. in_scope_task_ids={%s}", rule, n, strings.Join(ids, ", "))
		}
	}
	return deps, nil
}

// taskDates are a task's start and end dates as DAG.add_task leaves them:
// the DAG's where the task has none, else the later start and the
// earlier end.
func taskDates(dag *DAG, task *Task) (start, end *time.Time) {
	start, end = task.StartDate, task.EndDate
	switch {
	case start == nil:
		start = dag.StartDate
	case dag.StartDate != nil && dag.StartDate.After(*start):
		start = dag.StartDate
	}
	switch {
	case end == nil:
		end = dag.EndDate
	case dag.EndDate != nil && dag.EndDate.Before(*end):
		end = dag.EndDate
	}
	return start, end
}

// triggerRuleReason is TriggerRuleDep's failing reason for an unmapped
// task instance of rule whose upstream tasks (sorted ids) have the counts
// c, or "" when the
// rule is met. airlite has no setup tasks and no removed task instances.
func triggerRuleReason(rule string, upstream []string, c upstreamCounts) string {
	ids := make([]string, len(upstream))
	for i, id := range upstream {
		ids[i] = pyQuote(id)
	}
	// str() of _UpstreamTIStates and of the upstream_task_ids set (sorted
	// here; Python prints a set in no set order)
	tail := fmt.Sprintf(" upstream_states=_UpstreamTIStates(success=%d, skipped=%d, failed=%d, upstream_failed=%d, removed=0, done=%d, "+
		"success_setup=0, skipped_setup=0), upstream_task_ids={%s}", c.success, c.skipped, c.failed, c.upstreamFailed, c.done, strings.Join(ids, ", "))
	prefix := fmt.Sprintf("Task's trigger rule '%s' ", rule)
	notDone := c.total - c.done
	switch rule {
	case "one_success":
		if c.success <= 0 {
			return prefix + "requires one upstream task success, but none were found." + tail
		}
	case "one_failed":
		if c.failed == 0 && c.upstreamFailed == 0 {
			return prefix + "requires one upstream task failure, but none were found." + tail
		}
	case "one_done":
		if c.success+c.failed <= 0 {
			return prefix + "requires at least one upstream task failure or success but none were failed or success." + tail
		}
	case "all_success":
		if n := c.total - c.success; n > 0 {
			return prefix + fmt.Sprintf("requires all upstream tasks to have succeeded, but found %d non-success(es).", n) + tail
		}
	case "all_failed":
		if n := c.total - c.failed - c.upstreamFailed; n > 0 {
			return prefix + fmt.Sprintf("requires all upstream tasks to have failed, but found %d non-failure(s).", n) + tail
		}
	case "all_done", "all_done_setup_success":
		if !c.allDone() {
			return prefix + fmt.Sprintf("requires all upstream tasks to have completed, but found %d task(s) that were not done.", notDone) + tail
		}
	case "none_failed", "none_failed_min_one_success":
		if n := c.total - c.success - c.skipped; n > 0 {
			return prefix + fmt.Sprintf("requires all upstream tasks to have succeeded or been skipped, but found %d non-success(es).", n) + tail
		}
	case "none_skipped":
		if !c.allDone() || c.skipped > 0 {
			return prefix + fmt.Sprintf("requires all upstream tasks to not have been skipped, but found %d task(s) skipped.", c.skipped) + tail
		}
	case "all_skipped":
		if n := c.total - c.skipped; n > 0 {
			return prefix + fmt.Sprintf("requires all upstream tasks to have been skipped, but found %d task(s) in non skipped state.", n) + tail
		}
	default:
		return fmt.Sprintf("No strategy to evaluate trigger rule '%s'.", rule)
	}
	return ""
}
