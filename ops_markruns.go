package main

import (
	"errors"
	"fmt"
	"time"
)

// runsToMark are the runs POST /dags/{dag_id}/updateTaskInstancesState
// reaches from run with include_future and include_past, picked as
// Airflow 2.10.3's get_run_ids does (airflow/api/common/mark_tasks.py:331):
// logical dates from the first run's (past) or run's own to the last
// run's (future) or run's own; within them, for a DAG without a
// schedule every run, for @once and @continuous (not periodic) run
// alone, and for a cron or duration schedule the runs dated at the range's
// start or at a date the schedule yields from there
// (DAG.iter_dagrun_infos_between with align=False, airflow/models/dag.py:1222).
// run itself is always among them, even off the schedule, where Airflow
// would leave it out (docs/behaviour.md §5). runs are the DAG's runs by
// logical date; the answer keeps that order.
func runsToMark(dag *DAG, runs []*DagRun, run *DagRun, future, past bool) ([]*DagRun, error) {
	if (!future && !past) || len(runs) == 0 {
		return []*DagRun{run}, nil
	}
	start, end := run.ExecutionDate, run.ExecutionDate
	if past {
		start = runs[0].ExecutionDate
	}
	if future {
		end = runs[len(runs)-1].ExecutionDate
	}
	onSchedule, err := scheduleDateTest(dag, start)
	if err != nil {
		return nil, err
	}
	var picked []*DagRun
	for _, r := range runs {
		date := r.ExecutionDate
		if r.RunID == run.RunID {
			picked = append(picked, r)
			continue
		}
		if date.Before(start) || date.After(end) || onSchedule == nil {
			continue
		}
		ok, err := onSchedule(date)
		if err != nil {
			return nil, err
		}
		if ok {
			picked = append(picked, r)
		}
	}
	return picked, nil
}

// scheduleDateTest says whether a logical date is one that dag's
// schedule yields counting from start (start itself included, as
// align=False invents a run there); nil when only the named run counts
// (@once, @continuous).
func scheduleDateTest(dag *DAG, start time.Time) (func(time.Time) (bool, error), error) {
	if dag.Schedule == nil {
		// NullTimetable cannot be scheduled: every existing run in range.
		return func(time.Time) (bool, error) { return true, nil }, nil
	}
	sched := *dag.Schedule
	switch {
	case sched == "@once" || sched == "@continuous":
		return nil, nil
	case dag.cron == nil && isDurationSchedule(sched):
		// DeltaDataIntervalTimetable steps from start by the duration.
		d, _ := parseDuration(sched)
		if d <= 0 {
			return nil, fmt.Errorf("schedule %q: duration must be positive", sched)
		}
		return func(t time.Time) (bool, error) { return t.Sub(start)%d == 0, nil }, nil
	}
	cron, err := cronOf(dag)
	if err != nil {
		return nil, err
	}
	if cron == nil {
		return nil, fmt.Errorf("schedule %q: airlite does not schedule it", sched)
	}
	return func(t time.Time) (bool, error) {
		if t.Equal(start) {
			return true, nil
		}
		tick, err := cron.next(t, true)
		if errors.Is(err, errCronNoTick) {
			return false, nil // no tick follows t for years: t is none
		}
		if err != nil {
			return false, fmt.Errorf("schedule %q: %w", sched, err)
		}
		return tick.Equal(t), nil
	}, nil
}
