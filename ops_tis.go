package main

// Task instances: list them, clear them, set their states (with their
// relatives, in the runs before and after), patch one, force one from
// the admin endpoints. Airflow 2.10.3's task_instance_endpoint.py and
// airflow/api/common/mark_tasks.py are what these follow.

import (
	"errors"
	"slices"
	"sort"
	"time"
)

// Task-instance faults.
const (
	faultBadTIState  opFault = "bad_ti_state" // state: a name that is no task-instance state
	faultTaskMissing opFault = "task_missing" // dag_id, task_id: the DAG has no such task
	faultTINotFound  opFault = "ti_not_found" // dag_id, task_id and run_id or date
)

// tiName names a task instance with its run's logical date, as Airflow's
// TaskInstanceReferenceSchema does.
type tiName struct {
	dagID, runID, taskID string
	date                 time.Time
}

// tiQuery is the neutral query of a task-instance listing: its filters
// and page; each dialect reads its parameters into one.
type tiQuery struct {
	dagIDs, runIDs, taskIDs    []string // nil: any
	executionGTE, executionLTE *time.Time
	startGTE, startLTE         *time.Time
	endGTE, endLTE             *time.Time
	updatedGTE, updatedLTE     *time.Time
	durationGTE, durationLTE   *float64
	states                     []TaskState // "" is Airflow's None
	statesGiven                bool
	pools, queues, executors   []string
	executorsGiven             bool
	offset, limit              int
}

func (q *tiQuery) match(ti *TaskInstance, run *DagRun) bool {
	if q.taskIDs != nil && !slices.Contains(q.taskIDs, ti.TaskID) {
		return false
	}
	if q.statesGiven && !slices.Contains(q.states, ti.State) {
		return false
	}
	if q.pools != nil && !slices.Contains(q.pools, ti.Pool) {
		return false
	}
	if q.queues != nil && !slices.Contains(q.queues, ti.Queue) {
		return false
	}
	if q.executorsGiven { // airlite's task instances have no executor (NULL)
		return false
	}
	if (q.durationGTE != nil || q.durationLTE != nil) &&
		(ti.Duration == nil || (q.durationGTE != nil && *ti.Duration < *q.durationGTE) || (q.durationLTE != nil && *ti.Duration > *q.durationLTE)) {
		return false
	}
	date := run.ExecutionDate
	return inRange(&date, q.executionGTE, q.executionLTE) && inRange(ti.StartDate, q.startGTE, q.startLTE) &&
		inRange(ti.EndDate, q.endGTE, q.endLTE) && inRange(ti.UpdatedAt, q.updatedGTE, q.updatedLTE)
}

// unfiltered reports whether q keeps every task instance of the runs it
// names.
func (q *tiQuery) unfiltered() bool {
	return q.taskIDs == nil && !q.statesGiven && q.pools == nil && q.queues == nil && !q.executorsGiven &&
		q.durationGTE == nil && q.durationLTE == nil && q.executionGTE == nil && q.executionLTE == nil &&
		q.startGTE == nil && q.startLTE == nil && q.endGTE == nil && q.endLTE == nil &&
		q.updatedGTE == nil && q.updatedLTE == nil
}

// parseTIStates is _convert_ti_states: "none" is no state; a name that is
// no task-instance state is faultBadTIState (Airflow raises a ValueError).
func parseTIStates(names []string) ([]TaskState, error) {
	out := make([]TaskState, 0, len(names))
	for _, n := range names {
		if n == "none" {
			out = append(out, TaskNone)
			continue
		}
		switch s := TaskState(n); {
		case s.Known() && s != TaskNone, n == "deferred", n == "removed", n == "restarting", n == "up_for_reschedule":
			out = append(out, s)
		default:
			return nil, opErr(errInvalid, faultBadTIState, "state", n)
		}
	}
	return out, nil
}

// listTaskInstances is the listing: the runs the query names (every run
// of a DAG, or of every DAG), their task instances by DAG, logical date
// and task_id, then the page, and how many match. Every run's task
// instances, unfiltered, are the store's TaskInstancePage, which reads
// the page and the runs before it; otherwise every run named is read.
func (o *operations) listTaskInstances(q *tiQuery) ([]RunTaskInstance, int, error) {
	store := o.store
	dagIDs := q.dagIDs
	if dagIDs == nil {
		rows, err := store.Dags()
		if err != nil {
			return nil, 0, err
		}
		for _, row := range rows {
			dagIDs = append(dagIDs, row.DagID)
		}
	}
	sort.Strings(dagIDs)
	dagIDs = slices.Compact(dagIDs)
	if q.runIDs == nil && q.unfiltered() {
		return store.TaskInstancePage(dagIDs, q.offset, q.limit)
	}
	out := []RunTaskInstance{}
	total := 0
	for _, dagID := range dagIDs {
		var runs []*DagRun
		if q.runIDs != nil {
			for _, runID := range q.runIDs {
				if run, err := store.RunByRunID(dagID, runID); err == nil {
					runs = append(runs, run)
				}
			}
			slices.SortFunc(runs, func(a, b *DagRun) int { return a.ExecutionDate.Compare(b.ExecutionDate) })
		} else {
			var err error
			if runs, err = store.RunsOfDag(dagID, ""); err != nil {
				return nil, 0, err
			}
		}
		for _, run := range runs {
			tis, err := store.TaskInstancesOfRun(dagID, run.RunID)
			if err != nil {
				return nil, 0, err
			}
			for _, ti := range tis {
				if !q.match(ti, run) {
					continue
				}
				if total >= q.offset && len(out) < q.limit {
					out = append(out, RunTaskInstance{Run: run, TI: ti})
				}
				total++
			}
		}
	}
	return out, total, nil
}

// taskInstance is a run's task instance with its run.
func (o *operations) taskInstance(dagID, runID, taskID string) (*DagRun, *TaskInstance, error) {
	run, err := o.store.RunByRunID(dagID, runID)
	if err == nil {
		var ti *TaskInstance
		if ti, err = o.store.TaskInstance(dagID, runID, taskID); err == nil {
			return run, ti, nil
		}
	}
	if errors.Is(err, errNotFound) {
		return nil, nil, opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	}
	return nil, nil, err
}

// runTaskInstance is one task instance of a run the caller has found.
func (o *operations) runTaskInstance(run *DagRun, taskID string) (*TaskInstance, error) {
	ti, err := o.store.TaskInstance(run.DagID, run.RunID, taskID)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultTINotFound, "dag_id", run.DagID, "run_id", run.RunID, "task_id", taskID)
	}
	return ti, err
}

// dagTask is a loaded DAG and one of its tasks.
func (o *operations) dagTask(dagID, taskID string) (*DAG, *Task, error) {
	row, err := o.dagDefinition(dagID)
	if err != nil {
		return nil, nil, err
	}
	task := row.Def.Task(taskID)
	if task == nil {
		return nil, nil, opErr(errNotFound, faultTaskMissing, "dag_id", dagID, "task_id", taskID)
	}
	return row.Def, task, nil
}

// setTaskStates marks the task instances of taskIDs in runs, all in one
// write, through the store's forced task state (set_task_instance_state);
// tries that stop running stop with it. With dryRun nothing changes and
// the answer is the task instances that would.
func (o *operations) setTaskStates(dagID string, runs []*DagRun, taskIDs []string, state TaskState, dryRun bool) ([]tiName, error) {
	names := []tiName{}
	if dryRun {
		for _, run := range runs {
			for _, id := range taskIDs {
				ti, err := o.store.TaskInstance(dagID, run.RunID, id)
				if err == nil && ti.State != state {
					names = append(names, tiName{dagID, run.RunID, id, run.ExecutionDate})
				}
			}
		}
		return names, nil
	}
	now := o.clock()
	runIDs := make([]string, len(runs))
	dates := make(map[string]time.Time, len(runs))
	for i, run := range runs {
		runIDs[i], dates[run.RunID] = run.RunID, run.ExecutionDate
	}
	var marked []tiKey
	err := o.stopWriteWake(func() (stopped []tiKey, err error) {
		marked, stopped, err = o.store.ForceTaskStatesInRuns(dagID, runIDs, taskIDs, state, now)
		return stopped, err
	})
	if err != nil {
		return nil, err
	}
	for _, k := range marked {
		names = append(names, tiName{dagID, k.runID, k.taskID, dates[k.runID]})
	}
	return names, nil
}

// markRequest is updateTaskInstancesState's: a task of one run (by
// runID, or by date when runID is "") and, as asked, its relatives, in
// that run and in the runs runsToMark picks.
type markRequest struct {
	dagID, taskID                              string
	runID                                      string
	date                                       time.Time
	state                                      TaskState
	upstream, downstream, future, past, dryRun bool
}

// markTaskInstances sets the states of the task instances req reaches
// (set_state); with dryRun it lists those that would change.
func (o *operations) markTaskInstances(req markRequest) ([]tiName, error) {
	def, task, err := o.dagTask(req.dagID, req.taskID)
	if err != nil {
		return nil, err
	}
	var run *DagRun
	if req.runID == "" {
		run, err = o.store.RunByDate(req.dagID, req.date)
		if errors.Is(err, errNotFound) {
			return nil, opErr(errNotFound, faultTINotFound, "dag_id", req.dagID, "task_id", req.taskID,
				"date", req.date.Format(time.RFC3339Nano))
		}
	} else {
		run, err = o.store.RunByRunID(req.dagID, req.runID)
		if errors.Is(err, errNotFound) {
			return nil, opErr(errNotFound, faultTINotFound, "dag_id", req.dagID, "task_id", req.taskID, "run_id", req.runID)
		}
	}
	if err != nil {
		return nil, err
	}
	all, err := o.store.RunsOfDag(req.dagID, "")
	if err != nil {
		return nil, err
	}
	runs, err := runsToMark(def, all, run, req.future, req.past)
	if err != nil {
		return nil, err
	}
	return o.setTaskStates(req.dagID, runs, relatives(def, task, req.upstream, req.downstream), req.state, req.dryRun)
}

// patchTaskInstance sets one task instance's state (patch_task_instance);
// with dryRun nothing changes. A mapIndex other than -1 names no task
// instance: airlite has no mapped tasks.
func (o *operations) patchTaskInstance(dagID, runID, taskID string, mapIndex int64, state TaskState, dryRun bool) (tiName, error) {
	if _, _, err := o.dagTask(dagID, taskID); err != nil {
		return tiName{}, err
	}
	run, _, err := o.taskInstance(dagID, runID, taskID)
	if err == nil && mapIndex != -1 {
		err = opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	}
	if err != nil {
		return tiName{}, err
	}
	if !dryRun {
		if _, err := o.setTaskStates(dagID, []*DagRun{run}, []string{taskID}, state, false); err != nil {
			return tiName{}, err
		}
	}
	return tiName{dagID, runID, taskID, run.ExecutionDate}, nil
}

// setTaskInstanceNote sets or (nil) removes a task instance's note.
func (o *operations) setTaskInstanceNote(dagID, runID, taskID string, mapIndex int64, note *string) (*DagRun, *TaskInstance, error) {
	run, _, err := o.taskInstance(dagID, runID, taskID)
	if err == nil && mapIndex != -1 {
		err = opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	}
	if err != nil {
		return nil, nil, err
	}
	ti, err := o.store.SetTaskInstanceNote(dagID, runID, taskID, note)
	if errors.Is(err, errNotFound) {
		return nil, nil, opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	}
	return run, ti, err
}

// forceTaskState marks a task instance, and with upstream/downstream its
// relatives in the same run, as Airflow's set_state does (see
// Store.ForceTaskStates); tries that stop running stop with it. The
// answer is the task_ids marked; a missing DAG, run or task is its fault
// (faultDagNotFound, faultRunNotFound, faultTaskMissing).
func (o *operations) forceTaskState(dagID, runID, taskID string, state TaskState, upstream, downstream bool) ([]string, error) {
	now := o.clock()
	pick := func(dag *DAG) ([]string, error) {
		task := dag.Task(taskID)
		if task == nil {
			return nil, &missingError{what: "task", dagID: dagID, taskID: taskID}
		}
		return relatives(dag, task, upstream, downstream), nil
	}
	var marked []string
	err := o.stopWriteWake(func() (stopped []tiKey, err error) {
		marked, stopped, err = o.store.ForceTaskStates(dagID, runID, state, now, pick)
		return stopped, err
	})
	return marked, missingFault(err)
}

// relatives is the task and, transitively, its upstream and/or downstream
// tasks, by task_id.
func relatives(dag *DAG, task *Task, upstream, downstream bool) []string {
	seen := map[string]bool{task.TaskID: true}
	queue := []*Task{task}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		var next []string
		if upstream {
			next = append(next, t.Upstream...)
		}
		if downstream {
			next = append(next, t.Downstream...)
		}
		for _, id := range next {
			if !seen[id] {
				seen[id] = true
				queue = append(queue, dag.Task(id))
			}
		}
	}
	return sortedKeys(seen)
}

// clearRequest is clearTaskInstances': the runs of one run_id, or of the
// logical dates between start and end, and which of their task
// instances.
type clearRequest struct {
	dagID      string
	runID      string     // "": the runs between start and end
	start, end *time.Time // nil: no bound (end: now)
	// taskIDs are the tasks named (nil: every task), to which upstream
	// and downstream add their relatives.
	taskIDs                 []string
	upstream, downstream    bool
	future, past            bool
	subdags, parentdag      bool
	onlyFailed, onlyRunning bool
	resetRuns, dryRun       bool
}

// clearTaskInstances clears the task instances req reaches (DAG.clear),
// with include_subdags the sub-DAGs' and with include_parentdag the
// parent's (addClearTargets); with dryRun it only lists them. The
// clears are one step of the scheduler's: the tries they take away stop
// together, then the scheduler is woken once.
func (o *operations) clearTaskInstances(req clearRequest) ([]tiName, error) {
	row, err := o.dagDefinition(req.dagID)
	if err != nil {
		return nil, err
	}
	start, end := req.start, req.end
	if req.runID != "" {
		run, err := o.runByID(req.dagID, req.runID)
		if err != nil {
			return nil, err
		}
		start, end = &run.ExecutionDate, &run.ExecutionDate
	}
	if req.past {
		start = nil
	}
	now := o.clock()
	if req.future || end == nil {
		// DAG.clear never reaches a run dated after now:
		// [scheduler] allow_trigger_in_future is false by default.
		end = &now
	}
	var taskIDs []string
	if req.taskIDs != nil {
		seen := map[string]bool{}
		for _, id := range req.taskIDs {
			if task := row.Def.Task(id); task != nil {
				for _, rel := range relatives(row.Def, task, req.upstream, req.downstream) {
					seen[rel] = true
				}
			}
		}
		taskIDs = sortedKeys(seen)
	}
	sel := clearSelection{start: start, end: end, subdags: req.subdags}
	if err := o.addClearTargets(&sel, row.Def, nil, taskIDs); err != nil {
		return nil, err
	}
	if req.parentdag && row.Def.ParentDagID != "" {
		// The parent's SubDagOperator that runs this DAG and its
		// downstream tasks, filtered by the same task_ids, in the parent's
		// runs in range; one level up (Airflow 2.10.3
		// airflow/models/dag.py:2012-2035).
		parent, err := o.store.DagByID(row.Def.ParentDagID)
		if err != nil && !errors.Is(err, errNotFound) {
			return nil, err
		}
		if err == nil && parent.Def != nil {
			if op := subDagOperatorOf(parent.Def, req.dagID); op != nil {
				if err := o.addClearTargets(&sel, parent.Def, relatives(parent.Def, op, false, true), taskIDs); err != nil {
					return nil, err
				}
			}
		}
	}
	names := []tiName{}
	picks := make([][]string, len(sel.targets))
	for i, tg := range sel.targets {
		tis, err := o.store.TaskInstancesOfRun(tg.dagID, tg.run.RunID)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			switch {
			case tg.tasks != nil && !slices.Contains(tg.tasks, ti.TaskID),
				req.onlyFailed && ti.State != TaskFailed && ti.State != TaskUpstreamFailed,
				req.onlyRunning && ti.State != TaskRunning:
				continue
			}
			picks[i] = append(picks[i], ti.TaskID)
			names = append(names, tiName{tg.dagID, tg.run.RunID, ti.TaskID, tg.run.ExecutionDate})
		}
	}
	if req.dryRun {
		return names, nil
	}
	err = o.stopWriteWake(func() (stopped []tiKey, err error) {
		for i, tg := range sel.targets {
			if len(picks[i]) == 0 {
				continue
			}
			keys, err := o.store.ClearTaskInstances(tg.dagID, tg.run.RunID, picks[i], req.resetRuns, now)
			stopped = append(stopped, keys...)
			if err != nil {
				return stopped, err
			}
		}
		return stopped, nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}
