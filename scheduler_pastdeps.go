package main

import (
	"errors"
	"time"
)

// depends_on_past: a task instance of a task with depends_on_past runs
// only once the same task has succeeded or been skipped in the DAG's
// previous run. Which run counts as previous, and what happens when it
// has no task instance of the task, differ between the releases; each
// edition names its function (editionRules.pastDependsMet).

// pastDependency reports whether the previous run lets task's task
// instance in run go.
type pastDependency func(v storeView, dag *DAG, task *Task, run *DagRun) (bool, error)

// pastDone reports whether a previous task instance lets the next one go:
// success or skipped, in both releases.
func pastDone(ti *TaskInstance) bool { return ti.State == TaskSuccess || ti.State == TaskSkipped }

// pastDependsMet2 is Airflow 2.10.3's PrevDagrunDep
// (airflow/ti_deps/deps/prev_dagrun_dep.py:125-201): met when
// pastDependsWait2 finds nothing to wait for.
func pastDependsMet2(v storeView, dag *DAG, task *Task, run *DagRun) (bool, error) {
	wait, err := pastDependsWait2(v, dag, task, run)
	return err == nil && wait == pastMet, err
}

// pastWait is why depends_on_past holds a task instance back.
type pastWait int

const (
	pastMet          pastWait = iota
	pastNotRun                // the previous run has no task instance of the task
	pastUnsuccessful          // the previous task instance neither succeeded nor was skipped
)

// pastDependsWait2 is the decision of pastDependsMet2 with its reason:
// with catchup the previous run is the latest one before that is not
// manual, without catchup the latest one before; a previous run from
// before the task's start_date (with catchup) does not count; a previous
// run without the task is passed over when no earlier run ever had it
// (ignore_first_depends_on_past, True by default and not configurable in
// airlite).
func pastDependsWait2(v storeView, dag *DAG, task *Task, run *DagRun) (pastWait, error) {
	var notManual func(*DagRun) bool
	if dag.Catchup {
		notManual = func(r *DagRun) bool { return r.RunType != "manual" }
	}
	last, err := v.PreviousRun(dag.DagID, run.ExecutionDate, notManual)
	if err != nil || last == nil {
		return pastMet, err
	}
	if dag.Catchup && task.StartDate != nil && last.ExecutionDate.Before(*task.StartDate) {
		return pastMet, nil
	}
	// The previous run's task instances of the task, every map_index
	// (2.10.3 prev_dagrun_dep.py _has_tis, _count_unsuccessful_tis).
	prevs, err := v.TaskInstancesOfTask(dag.DagID, last.RunID, task.TaskID)
	if err == nil && len(prevs) == 0 {
		earlier, err := v.HasEarlierTaskInstance(dag.DagID, task.TaskID, run.ExecutionDate)
		switch {
		case err != nil:
			return pastMet, err
		case earlier:
			return pastNotRun, nil
		}
		return pastMet, nil
	}
	if err != nil {
		return pastMet, err
	}
	for _, prev := range prevs {
		if !pastDone(prev) {
			return pastUnsuccessful, nil
		}
	}
	return pastMet, nil
}

// pastDependsMet110 is Airflow 1.10.15's PrevDagrunDep
// (airflow/ti_deps/deps/prev_dagrun_dep.py:35-86) with
// TaskInstance._get_previous_ti (airflow/models/taskinstance.py:579-608):
// with catchup the previous run is the one at the schedule's previous
// date (none without a schedule, or @once: the dependency is met), and it
// counts only from the task's start_date; without catchup it is the
// latest run before. A previous run without the task instance, or no run
// at the previous date, keeps the task waiting.
func pastDependsMet110(v storeView, dag *DAG, task *Task, run *DagRun) (bool, error) {
	var last *DagRun
	if dag.Catchup {
		prevDate, ok, err := previousSchedule(dag, run.ExecutionDate)
		if err != nil || !ok {
			return err == nil, err
		}
		if task.StartDate != nil && prevDate.Before(*task.StartDate) {
			return true, nil
		}
		last, err = v.RunAt(dag.DagID, prevDate)
		if errors.Is(err, errNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	} else {
		var err error
		if last, err = v.PreviousRun(dag.DagID, run.ExecutionDate, nil); err != nil || last == nil {
			return err == nil, err
		}
	}
	prev, err := v.TaskInstance(dag.DagID, last.RunID, task.TaskID)
	if errors.Is(err, errNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return pastDone(prev), nil
}

// previousSchedule is 1.10's DAG.previous_schedule: the schedule's date
// strictly before date; ok is false without a schedule or with @once.
func previousSchedule(dag *DAG, date time.Time) (time.Time, bool, error) {
	if dag.Schedule == nil || *dag.Schedule == "@once" {
		return time.Time{}, false, nil
	}
	sched := *dag.Schedule
	if isDurationSchedule(sched) {
		d, _ := parseDuration(sched)
		return date.Add(-d), true, nil
	}
	cron, err := cronOf(dag)
	if err != nil || cron == nil {
		return time.Time{}, false, err
	}
	prev, err := cron.prev(date, false)
	if err != nil {
		return time.Time{}, false, err
	}
	return prev, true, nil
}
