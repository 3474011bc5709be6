package main

// Task instances: list them, clear them, set their states (with their
// relatives, in the runs before and after), patch one, force one from
// the admin endpoints. Airflow 2.10.3's task_instance_endpoint.py and
// airflow/api/common/mark_tasks.py are what these follow.

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
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
	mapIndex             int
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
// the page and the runs before it; named runs' unfiltered, the page's
// part of each run's row (RunTaskInstancesWindow); otherwise every run
// named is read.
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
	dagIDs = inList(dagIDs)
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
			if q.unfiltered() {
				// Every task instance of the run: the page's part of
				// its row, the rest counted.
				tis, n, err := store.RunTaskInstancesWindow(dagID, run.RunID, q.offset-total, q.limit-len(out))
				if err != nil {
					return nil, 0, err
				}
				for _, ti := range tis {
					out = append(out, RunTaskInstance{Run: run, TI: ti})
				}
				total += n
				continue
			}
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

// taskInstanceAt is a run's task instance of a map index with its run;
// errNotFound (faultTINotFound) when either is not there.
func (o *operations) taskInstanceAt(dagID, runID, taskID string, mapIndex int64) (*DagRun, *TaskInstance, error) {
	run, err := o.store.RunByRunID(dagID, runID)
	if err == nil {
		var ti *TaskInstance
		if ti, err = o.store.TaskInstanceAt(dagID, runID, taskID, int(mapIndex)); err == nil {
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

// tasksInGroup is the ids of the tasks in a DAG's task group and the
// groups nested in it; ok is false when the DAG has no such group.
func (o *operations) tasksInGroup(dagID, groupID string) (ids []string, ok bool, err error) {
	row, err := o.dagDefinition(dagID)
	if err != nil {
		return nil, false, err
	}
	ids, ok = row.Def.TasksInGroup(groupID)
	return ids, ok, nil
}

// setTaskStates marks the task instances of taskIDs in runs, all in one
// write, through the store's forced task state (set_task_instance_state);
// tries that stop running stop with it; pick, when not nil, chooses among
// them (map_indexes). With dryRun nothing changes and the answer is the
// task instances that would.
func (o *operations) setTaskStates(dagID string, runs []*DagRun, taskIDs []string, pick func(*TaskInstance) bool, state TaskState, dryRun bool) ([]tiName, error) {
	names := []tiName{}
	if dryRun {
		for _, run := range runs {
			for _, id := range taskIDs {
				tis, err := o.store.TaskInstancesOfTask(dagID, run.RunID, id)
				if err != nil {
					return nil, err
				}
				for _, ti := range tis {
					if ti.State != state && (pick == nil || pick(ti)) {
						names = append(names, tiName{dagID, run.RunID, id, run.ExecutionDate, ti.MapIndex})
					}
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
		marked, stopped, err = o.store.ForceTaskStatesInRuns(dagID, runIDs, taskIDs, pick, state, now)
		return stopped, err
	})
	if err != nil {
		return nil, err
	}
	for _, k := range marked {
		names = append(names, tiName{dagID, k.runID, k.taskID, dates[k.runID], k.mapIndex})
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
	// mapIndex, when not nil, marks only the task's instance of that
	// map_index (set_task_instance_state's map_indexes); its relatives are
	// marked whole.
	mapIndex *int64
	// resumeDownstream: once marked, the task's downstream tasks that
	// failed or whose upstream failed are cleared, the task itself left
	// out, and their runs queued again (Airflow 3's
	// DAG.set_task_instance_state, which PATCH taskInstances uses).
	resumeDownstream bool
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
	var pick func(*TaskInstance) bool
	if req.mapIndex != nil {
		pick = func(ti *TaskInstance) bool { return ti.TaskID != req.taskID || int64(ti.MapIndex) == *req.mapIndex }
	}
	names, err := o.setTaskStates(req.dagID, runs, relatives(def, task, req.upstream, req.downstream), pick, req.state, req.dryRun)
	if err != nil || req.dryRun || !req.resumeDownstream {
		return names, err
	}
	downstream := slices.DeleteFunc(relatives(def, task, false, true), func(id string) bool { return id == req.taskID })
	if _, err := o.clearTaskInstances(clearRequest{dagID: req.dagID, runID: run.RunID, taskIDs: downstream,
		future: req.future, past: req.past, onlyFailed: true, resetRuns: true, runOnly: true, noEndCap: true}); err != nil {
		return nil, err
	}
	return names, nil
}

// patchTaskInstance sets one task instance's state, that of its
// map_index (patch_task_instance, patch_mapped_task_instance); with dryRun
// nothing changes.
func (o *operations) patchTaskInstance(dagID, runID, taskID string, mapIndex int64, state TaskState, dryRun bool) (tiName, error) {
	if _, _, err := o.dagTask(dagID, taskID); err != nil {
		return tiName{}, err
	}
	run, _, err := o.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if err != nil {
		return tiName{}, err
	}
	if !dryRun {
		pick := func(ti *TaskInstance) bool { return int64(ti.MapIndex) == mapIndex }
		if _, err := o.setTaskStates(dagID, []*DagRun{run}, []string{taskID}, pick, state, false); err != nil {
			return tiName{}, err
		}
	}
	return tiName{dagID, runID, taskID, run.ExecutionDate, int(mapIndex)}, nil
}

// setTaskInstanceNote sets or (nil) removes a task instance's note.
func (o *operations) setTaskInstanceNote(dagID, runID, taskID string, mapIndex int64, note *string) (*DagRun, *TaskInstance, error) {
	run, _, err := o.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if err != nil {
		return nil, nil, err
	}
	ti, err := o.store.SetTaskInstanceNote(tiKey{dagID, runID, taskID, int(mapIndex)}, note)
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
	// runOnly: with a runID and neither past nor future, the clear
	// reaches that run alone, whatever its date (Airflow 3's DAG.clear by
	// run_id); noEndCap: no bound after the runs' dates unless one is
	// given (Airflow 3 has no allow_trigger_in_future cap).
	runOnly, noEndCap bool
	// mapped are task instances named with a map index other than -1 (a
	// [task_id, map_index] pair of Airflow 3): each clears that task
	// instance, unless its task is cleared whole, and adds the task's
	// relatives (post_clear_task_instances: mapped_tasks_tuples).
	mapped []tiKey
	// preventRunning refuses a clear that reaches a running task instance
	// (Airflow 3's prevent_running_task): faultClearRunning, nothing
	// cleared.
	preventRunning bool
}

// faultClearRunning is a clear with prevent_running_task that reaches a
// running task instance.
const faultClearRunning opFault = "clear_running" // dag_id, run_id, task_id

// faultClearNoLogicalDate is include_past or include_future asked of a
// run without a logical date.
const faultClearNoLogicalDate opFault = "clear_no_logical_date" // dag_id, run_id

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
	onlyRun := ""
	if req.runID != "" {
		run, err := o.runByID(req.dagID, req.runID)
		if err != nil {
			return nil, err
		}
		if _, dated := run.LogicalDate(); !dated && (req.past || req.future) {
			return nil, opErr(errInvalid, faultClearNoLogicalDate, "dag_id", req.dagID, "run_id", req.runID)
		}
		start, end = &run.ExecutionDate, &run.ExecutionDate
		if req.runOnly && !req.past && !req.future {
			onlyRun = run.RunID
		}
	}
	if req.past {
		start = nil
	}
	// Runs without a logical date are reached only by a clear with no
	// bound of its own (the cap at now below does not count).
	undated := start == nil && end == nil
	now := o.clock()
	if req.noEndCap && req.future {
		end = nil
	} else if !req.noEndCap && (req.future || end == nil) {
		// DAG.clear never reaches a run dated after now:
		// [scheduler] allow_trigger_in_future is false by default.
		end = &now
	}
	var taskIDs []string
	if req.taskIDs != nil || req.mapped != nil {
		seen := map[string]bool{}
		for _, id := range req.taskIDs {
			if task := row.Def.Task(id); task != nil {
				for _, rel := range relatives(row.Def, task, req.upstream, req.downstream) {
					seen[rel] = true
				}
			}
		}
		// A task named by a pair adds its relatives but not itself
		// (partial_subset(exclude_original=True)).
		for _, k := range req.mapped {
			if task := row.Def.Task(k.taskID); task != nil {
				for _, rel := range relatives(row.Def, task, req.upstream, req.downstream) {
					if rel != k.taskID && !slices.ContainsFunc(req.mapped, func(m tiKey) bool { return m.taskID == rel }) {
						seen[rel] = true
					}
				}
			}
		}
		taskIDs = sortedKeys(seen)
	}
	sel := clearSelection{start: start, end: end, undated: undated, subdags: req.subdags, runID: onlyRun}
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
	picks := make([]map[tiKey]bool, len(sel.targets))
	pairNamed := func(dagID string, ti *TaskInstance) bool {
		return dagID == req.dagID && slices.ContainsFunc(req.mapped, func(k tiKey) bool {
			return k.taskID == ti.TaskID && k.mapIndex == ti.MapIndex
		})
	}
	for i, tg := range sel.targets {
		tis, err := o.store.TaskInstancesOfRun(tg.dagID, tg.run.RunID)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			switch {
			case tg.tasks != nil && !slices.Contains(tg.tasks, ti.TaskID) && !pairNamed(tg.dagID, ti),
				req.onlyFailed && ti.State != TaskFailed && ti.State != TaskUpstreamFailed,
				req.onlyRunning && ti.State != TaskRunning:
				continue
			}
			if req.preventRunning && !req.dryRun && ti.State == TaskRunning {
				return nil, opErr(errConflict, faultClearRunning, "dag_id", tg.dagID, "run_id", tg.run.RunID, "task_id", ti.TaskID)
			}
			if picks[i] == nil {
				picks[i] = map[tiKey]bool{}
			}
			picks[i][ti.key()] = true
			names = append(names, tiName{tg.dagID, tg.run.RunID, ti.TaskID, tg.run.ExecutionDate, ti.MapIndex})
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
			picked := picks[i]
			keys, err := o.store.ClearTaskInstances(tg.dagID, tg.run.RunID, func(ti *TaskInstance) bool { return picked[ti.key()] }, req.resetRuns, now)
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

// timeBounds is a range filter on a datetime (Airflow 3's RangeFilter,
// common/parameters.py): each bound nil when not given. A null value is
// outside any range (SQL compares NULL as unknown).
type timeBounds struct{ gte, gt, lte, lt *time.Time }

func (b timeBounds) admits(t *time.Time) bool {
	if b.gte == nil && b.gt == nil && b.lte == nil && b.lt == nil {
		return true
	}
	if t == nil {
		return false
	}
	return (b.gte == nil || !t.Before(*b.gte)) && (b.gt == nil || t.After(*b.gt)) &&
		(b.lte == nil || !t.After(*b.lte)) && (b.lt == nil || t.Before(*b.lt))
}

// numBounds is a range filter on a number (float_range_filter_factory).
type numBounds struct{ gte, gt, lte, lt *float64 }

func (b numBounds) admits(v *float64) bool {
	if b.gte == nil && b.gt == nil && b.lte == nil && b.lt == nil {
		return true
	}
	if v == nil {
		return false
	}
	return (b.gte == nil || *v >= *b.gte) && (b.gt == nil || *v > *b.gt) &&
		(b.lte == nil || *v <= *b.lte) && (b.lt == nil || *v < *b.lt)
}

// tiSearch is the neutral query of Airflow 3's task-instance listings
// (get_task_instances, get_task_instances_batch, get_mapped_task_instances):
// every filter is nil or unset when not given.
type tiSearch struct {
	dagIDs, runIDs, taskIDs                  []string // nil: any
	runAfter, logical, start, end, updated   timeBounds
	duration                                 numBounds
	states                                   []TaskState // TaskNone is no state
	pools, queues, executors, operators      []string
	tryNumbers, mapIndexes, versionNumbers   []int64
	taskPattern, dagPattern, runPattern      *regexp.Regexp
	poolPattern, queuePattern, operatorMatch *regexp.Regexp
	order                                    []sortKey
	offset, limit                            int
	// mappedOnly keeps the expanded instances of mapped tasks
	// (get_mapped_task_instances: map_index >= 0).
	mappedOnly bool
	// openDatesAt, when set, is the time a task instance without a start
	// or end date counts as in the start and end ranges (the query
	// filters compare COALESCE(date, now())).
	openDatesAt *time.Time
}

// match reports whether a run's task instance passes every filter but
// the DAG version's (versionIn). The executor of airlite's task
// instances is null, so a filter on it keeps none.
func (q *tiSearch) match(ti *TaskInstance, run *DagRun) bool {
	var logical *time.Time
	if date, ok := run.LogicalDate(); ok {
		logical = &date
	}
	after := run.After()
	switch {
	case q.taskIDs != nil && !slices.Contains(q.taskIDs, ti.TaskID),
		q.states != nil && !slices.Contains(q.states, ti.State),
		q.pools != nil && !slices.Contains(q.pools, ti.Pool),
		q.queues != nil && !slices.Contains(q.queues, ti.Queue),
		q.operators != nil && !slices.Contains(q.operators, ti.Operator),
		q.executors != nil,
		q.tryNumbers != nil && !slices.Contains(q.tryNumbers, int64(ti.TryNumber)),
		q.mapIndexes != nil && !slices.Contains(q.mapIndexes, int64(ti.MapIndex)),
		q.mappedOnly && ti.MapIndex < 0,
		q.taskPattern != nil && !q.taskPattern.MatchString(ti.TaskID),
		q.dagPattern != nil && !q.dagPattern.MatchString(ti.DagID),
		q.runPattern != nil && !q.runPattern.MatchString(ti.RunID),
		q.poolPattern != nil && !q.poolPattern.MatchString(ti.Pool),
		q.queuePattern != nil && !q.queuePattern.MatchString(ti.Queue),
		q.operatorMatch != nil && !q.operatorMatch.MatchString(ti.Operator):
		return false
	}
	start, end := ti.StartDate, ti.EndDate
	if q.openDatesAt != nil {
		start, end = cmp.Or(start, q.openDatesAt), cmp.Or(end, q.openDatesAt)
	}
	return q.runAfter.admits(&after) && q.logical.admits(logical) && q.start.admits(start) &&
		q.end.admits(end) && q.updated.admits(ti.UpdatedAt) && q.duration.admits(ti.Duration)
}

// pagedOrder says whether the store's ti_order serves q: no filter but
// the DAGs, and the order get_task_instances has by default (map_index,
// then id) or get_task_instances_batch (id: order_by absent, SortParam's
// primary key), or order_by=id. Other orders, and filters on the runs or
// the task instances, are sorted from every run q names: the index keeps
// neither their keys nor their matches.
func (q *tiSearch) pagedOrder() (byID, ok bool) {
	var none timeBounds
	if q.runIDs != nil || q.taskIDs != nil || q.runAfter != none || q.logical != none || q.start != none || q.end != none ||
		q.updated != none || q.duration != (numBounds{}) || q.states != nil || q.pools != nil || q.queues != nil ||
		q.executors != nil || q.operators != nil || q.tryNumbers != nil || q.mapIndexes != nil || q.versionNumbers != nil ||
		q.taskPattern != nil || q.dagPattern != nil || q.runPattern != nil || q.poolPattern != nil || q.queuePattern != nil ||
		q.operatorMatch != nil || q.mappedOnly {
		return false, false
	}
	switch {
	case len(q.order) == 0:
		return true, true
	case len(q.order) > 1 || q.order[0].desc:
		return false, false
	}
	switch q.order[0].attr {
	case "id":
		return true, true
	case "map_index":
		return false, true
	}
	return false, false
}

// mappedPage says whether q is a run's mapped task's expanded instances
// (get_mapped_task_instances) with no other filter, by map_index either
// way (unique among them: the keys after it never decide), which the
// run's row keeps in order; and whether descending.
func (q *tiSearch) mappedPage() (desc, ok bool) {
	var none timeBounds
	if !q.mappedOnly || len(q.dagIDs) != 1 || len(q.runIDs) != 1 || len(q.taskIDs) != 1 || q.runAfter != none || q.logical != none ||
		q.start != none || q.end != none || q.updated != none || q.duration != (numBounds{}) || q.states != nil || q.pools != nil ||
		q.queues != nil || q.executors != nil || q.operators != nil || q.tryNumbers != nil || q.mapIndexes != nil ||
		q.versionNumbers != nil || q.taskPattern != nil || q.dagPattern != nil || q.runPattern != nil || q.poolPattern != nil ||
		q.queuePattern != nil || q.operatorMatch != nil {
		return false, false
	}
	if len(q.order) == 0 {
		return false, true
	}
	return q.order[0].desc, q.order[0].attr == "map_index"
}

// filteredOrder says whether the store's ti_order serves q with its
// filters picking along the merge: the orders pagedOrder takes, filters on
// the task instances, their runs' dates and ids and their DAG versions'
// numbers (a version looked up once for its task instances), not a list
// of runs (one run's row is read at once).
func (q *tiSearch) filteredOrder() (byID, ok bool) {
	if q.runIDs != nil {
		return false, false
	}
	c := *q
	c.versionNumbers = nil
	var none timeBounds
	c.taskIDs, c.runAfter, c.logical, c.start, c.end, c.updated, c.duration = nil, none, none, none, none, none, numBounds{}
	c.states, c.pools, c.queues, c.executors, c.operators, c.tryNumbers, c.mapIndexes = nil, nil, nil, nil, nil, nil, nil
	c.taskPattern, c.dagPattern, c.runPattern, c.poolPattern, c.queuePattern, c.operatorMatch, c.mappedOnly = nil, nil, nil, nil, nil, nil, false
	return c.pagedOrder()
}

// filterKey names every filter match reads, for the count of what they
// pick.
func (q *tiSearch) filterKey() string {
	bounds := func(b timeBounds) string {
		return strings.Join([]string{timeKey(b.gte), timeKey(b.gt), timeKey(b.lte), timeKey(b.lt)}, ",")
	}
	num, re := floatKey, patternKey
	ints := func(list []int64) string {
		if list == nil {
			return "None"
		}
		return fmt.Sprint(list)
	}
	states := "None"
	if q.states != nil {
		states = fmt.Sprintf("%q", q.states)
	}
	// The time open dates count as matters to the start and end ranges
	// alone (the request's now).
	open := "None"
	if q.start != (timeBounds{}) || q.end != (timeBounds{}) {
		open = timeKey(q.openDatesAt)
	}
	return fmt.Sprintf("tasks=%s after=%s logical=%s start=%s end=%s updated=%s duration=%s,%s,%s,%s states=%s pools=%s queues=%s executors=%s operators=%s tries=%s maps=%s mapped=%t patterns=%s,%s,%s,%s,%s,%s open=%s versions=%s",
		listKey(q.taskIDs), bounds(q.runAfter), bounds(q.logical), bounds(q.start), bounds(q.end), bounds(q.updated),
		num(q.duration.gte), num(q.duration.gt), num(q.duration.lte), num(q.duration.lt), states, listKey(q.pools),
		listKey(q.queues), listKey(q.executors), listKey(q.operators), ints(q.tryNumbers), ints(q.mapIndexes), q.mappedOnly,
		re(q.taskPattern), re(q.dagPattern), re(q.runPattern), re(q.poolPattern), re(q.queuePattern), re(q.operatorMatch), open,
		ints(q.versionNumbers))
}

// namedRunsOrder says whether the store's NamedRunsTIPage serves q: the
// task instances of named runs (a dag_run_id, the batch's dag_run_ids),
// with any filter, in get_task_instances' default order (map_index, then
// id). Other orders of named runs are sorted from their task instances.
func (q *tiSearch) namedRunsOrder() bool {
	return q.runIDs != nil && len(q.order) == 1 && q.order[0] == sortKey{attr: "map_index"}
}

// namedRunsQuery is q as NamedRunsTIPage reads it; without a filter the
// page passes its offset by counting, else the filters pick along the
// merge (a version's number looked up once for its task instances, as
// searchTaskInstances' filtered merge does).
func (o *operations) namedRunsQuery(q *tiSearch) NamedRunsTIQuery {
	nq := NamedRunsTIQuery{DagIDs: inList(slices.Clone(q.dagIDs)), RunIDs: inList(slices.Clone(q.runIDs)), Offset: q.offset, Limit: q.limit}
	c := *q
	c.runIDs = nil
	if c.unfilteredSearch() {
		return nq
	}
	nq.Keep, nq.KeepKey = o.tiKeep(q), q.filterKey()
	return nq
}

// searchTaskInstances lists the task instances q picks in q's order (then
// by id, the primary key Airflow's SortParam adds), q's window of them,
// and how many match. Where pagedOrder allows, the store's ti_order
// gives the window (the page and the rows its offset skips); otherwise
// it reads every run q names (sortedTaskInstances), as
// operations.sortLists sends every listing (tests).
func (o *operations) searchTaskInstances(q *tiSearch) ([]RunTaskInstance, int, error) {
	if o.sortLists.Load() {
		return o.sortedTaskInstances(q)
	}
	if desc, ok := q.mappedPage(); ok {
		run, err := o.store.RunByRunID(q.dagIDs[0], q.runIDs[0])
		if errors.Is(err, errNotFound) {
			return []RunTaskInstance{}, 0, nil
		}
		if err != nil {
			return nil, 0, err
		}
		tis, total, err := o.store.MappedTaskInstancePage(q.dagIDs[0], q.runIDs[0], q.taskIDs[0], desc, q.offset, q.limit)
		rows := make([]RunTaskInstance, len(tis))
		for i, ti := range tis {
			rows[i] = RunTaskInstance{Run: run, TI: ti}
		}
		return rows, total, err
	}
	if byID, ok := q.pagedOrder(); ok {
		rows, total, ok, err := o.store.TaskInstanceOrderPage(q.dagIDs, byID, q.offset, q.limit)
		if ok || err != nil {
			return rows, total, err
		}
	}
	if byID, ok := q.filteredOrder(); ok {
		rows, total, ok, err := o.store.TaskInstanceFilteredPage(q.dagIDs, byID, q.offset, q.limit, o.tiKeep(q), q.filterKey())
		if ok || err != nil {
			return rows, total, err
		}
	}
	if rows, total, ok, err := o.fixedOrderPage(q); ok || err != nil {
		return rows, total, err
	}
	if q.namedRunsOrder() {
		rows, total, ok, err := o.store.NamedRunsTIPage(o.namedRunsQuery(q))
		if ok || err != nil {
			return rows, total, err
		}
	}
	if q.runIDs != nil {
		nq := NamedRunsSortedQuery{DagIDs: inList(slices.Clone(q.dagIDs)), RunIDs: inList(slices.Clone(q.runIDs)), TaskIDs: q.taskIDs,
			Compare: compareTISortParam(q.order), OrderName: sortKeysName(q.order), Offset: q.offset, Limit: q.limit}
		if !q.unfilteredSearch() {
			nq.Keep, nq.KeepKey = o.tiKeep(q), q.filterKey()
		}
		rows, total, ok, err := o.store.NamedRunsSortedPage(nq)
		if ok || err != nil {
			return rows, total, err
		}
	}
	if rows, total, ok, err := o.leadGroupPage(q); ok || err != nil {
		return rows, total, err
	}
	if lead := q.walkedLead(); lead != "" {
		var keep func(RunTaskInstance) bool
		var keepKey string
		if !q.unfilteredSearch() {
			keep, keepKey = o.tiKeep(q), q.filterKey()
		}
		var rows []RunTaskInstance
		var total int
		var ok bool
		var err error
		if order, keyed := tiKeyOrderOf(lead); keyed {
			rows, total, ok, err = o.store.TIKeyPage(order, q.startQuery(q.order, keep, keepKey, q.offset))
		} else if lead == "start_date" {
			rows, total, ok, err = o.store.TIStartPage(q.startQuery(q.order, keep, keepKey, q.offset))
		} else {
			rows, total, ok, err = o.store.TIRunAfterPage(q.runAfterQuery(q.order, keep, keepKey, q.offset))
		}
		if ok || err != nil {
			return rows, total, err
		}
	}
	return o.sortedTaskInstances(q)
}

// named reports whether a task instance of a task and map_index can pass
// q's filters on them (task_id, map_index, get_mapped_task_instances'
// expanded ones).
func (q *tiSearch) named(taskID string, mapIndex int) bool {
	return (q.taskIDs == nil || slices.Contains(q.taskIDs, taskID)) &&
		(q.mapIndexes == nil || slices.Contains(q.mapIndexes, int64(mapIndex))) && (!q.mappedOnly || mapIndex >= 0)
}

// sortKeysName names an order: its keys as order_by says them.
func sortKeysName(keys []sortKey) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if k.desc {
			b.WriteByte('-')
		}
		b.WriteString(k.attr)
	}
	return b.String()
}

// walkedLead is the first key of q's order when the store walks every
// run's task instances in it (TIStartPage, TIRunAfterPage, TIKeyPage),
// whatever the keys after it and the filters: start_date, run_after,
// state, end_date, duration, try_number; "" otherwise (named runs, other
// orders).
func (q *tiSearch) walkedLead() string {
	if q.runIDs != nil || len(q.order) == 0 {
		return ""
	}
	switch a := q.order[0].attr; a {
	case "start_date", "run_after", "state", "end_date", "duration", "try_number":
		return a
	}
	return ""
}

// unfilteredSearch reports whether q picks every task instance of the
// runs of its DAGs: no filter but the DAGs.
func (q *tiSearch) unfilteredSearch() bool {
	c := *q
	c.dagIDs, c.order, c.offset, c.limit = nil, nil, 0, 0
	_, ok := c.pagedOrder()
	return ok
}

// tiKeep is q's filters as a walk picks with them: match, and the DAG
// version's number looked up once for its task instances (a version row
// never changes).
func (o *operations) tiKeep(q *tiSearch) func(RunTaskInstance) bool {
	in := map[string]bool{} // a version id: whether its number is asked for
	return func(r RunTaskInstance) bool {
		if !q.match(r.TI, r.Run) {
			return false
		}
		if q.versionNumbers == nil {
			return true
		}
		ok, seen := in[r.TI.DagVersionID]
		if !seen {
			ok = o.versionIn(r.TI, q.versionNumbers)
			in[r.TI.DagVersionID] = ok
		}
		return ok
	}
}

// sortedTaskInstances is searchTaskInstances by reading every task
// instance of the runs q names and sorting those it picks.
func (o *operations) sortedTaskInstances(q *tiSearch) ([]RunTaskInstance, int, error) {
	dagIDs := q.dagIDs
	if dagIDs == nil {
		rows, err := o.store.Dags()
		if err != nil {
			return nil, 0, err
		}
		for _, row := range rows {
			dagIDs = append(dagIDs, row.DagID)
		}
	}
	dagIDs = inList(dagIDs)
	var all []RunTaskInstance
	for _, dagID := range dagIDs {
		var runs []*DagRun
		if q.runIDs != nil {
			for _, runID := range q.runIDs {
				if run, err := o.store.RunByRunID(dagID, runID); err == nil {
					runs = append(runs, run)
				}
			}
		} else {
			var err error
			if runs, err = o.store.RunsOfDag(dagID, ""); err != nil {
				return nil, 0, err
			}
		}
		for _, run := range runs {
			tis, err := o.store.TaskInstancesOfRun(dagID, run.RunID)
			if err != nil {
				return nil, 0, err
			}
			for _, ti := range tis {
				if q.match(ti, run) && o.versionIn(ti, q.versionNumbers) {
					all = append(all, RunTaskInstance{Run: run, TI: ti})
				}
			}
		}
	}
	slices.SortStableFunc(all, compareTISortParam(q.order))
	total := len(all)
	if q.offset >= len(all) {
		return []RunTaskInstance{}, total, nil
	}
	all = all[q.offset:]
	if q.limit < len(all) {
		all = all[:q.limit]
	}
	return all, total, nil
}

// compareTISortParam is Airflow 3's SortParam order over task instances
// (sortParamCompare), the id their primary key.
func compareTISortParam(keys []sortKey) func(a, b RunTaskInstance) int {
	return sortParamCompare(keys, tiAttrIsNull, compareTIAttr, func(a, b RunTaskInstance) int { return compareTIAttr("id", a, b) })
}

// tiAttrIsNull reports whether an attribute compareTIAttr orders by is
// NULL for a task instance.
func tiAttrIsNull(attr string, x RunTaskInstance) bool {
	switch attr {
	case "state":
		return x.TI.State == TaskNone
	case "duration":
		return x.TI.Duration == nil
	case "start_date":
		return x.TI.StartDate == nil
	case "end_date":
		return x.TI.EndDate == nil
	case "logical_date":
		_, ok := x.Run.LogicalDate()
		return !ok
	case "data_interval_start":
		return x.Run.DataIntervalStart == nil
	case "data_interval_end":
		return x.Run.DataIntervalEnd == nil
	case "rendered_map_index":
		return x.TI.RenderedMapIndex == nil
	}
	return false
}

// compareTIAttr orders two task instances by one attribute of theirs or
// of their runs, nulls last as PostgreSQL sorts them ascending. Without
// ids (an edition before 3), "id" is the run's order and the task_id,
// the order Airflow's ids were made in.
func compareTIAttr(attr string, a, b RunTaskInstance) int {
	switch attr {
	case "id":
		if a.TI.ID != "" || b.TI.ID != "" {
			return strings.Compare(a.TI.ID, b.TI.ID)
		}
		return cmp.Or(a.Run.After().Compare(b.Run.After()), cmp.Compare(a.Run.ID, b.Run.ID), strings.Compare(a.TI.TaskID, b.TI.TaskID),
			cmp.Compare(a.TI.MapIndex, b.TI.MapIndex))
	case "state":
		return compareTIPresence(a.TI.State != TaskNone, b.TI.State != TaskNone, func() int { return strings.Compare(string(a.TI.State), string(b.TI.State)) })
	case "duration":
		return compareTIPresence(a.TI.Duration != nil, b.TI.Duration != nil, func() int { return cmp.Compare(*a.TI.Duration, *b.TI.Duration) })
	case "start_date":
		return compareTimes(a.TI.StartDate, b.TI.StartDate)
	case "end_date":
		return compareTimes(a.TI.EndDate, b.TI.EndDate)
	case "try_number":
		return cmp.Compare(a.TI.TryNumber, b.TI.TryNumber)
	case "operator":
		return strings.Compare(a.TI.Operator, b.TI.Operator)
	case "logical_date":
		da, oka := a.Run.LogicalDate()
		db, okb := b.Run.LogicalDate()
		return compareTIPresence(oka, okb, func() int { return da.Compare(db) })
	case "run_after":
		return a.Run.After().Compare(b.Run.After())
	case "data_interval_start":
		return compareTimes(a.Run.DataIntervalStart, b.Run.DataIntervalStart)
	case "data_interval_end":
		return compareTimes(a.Run.DataIntervalEnd, b.Run.DataIntervalEnd)
	case "map_index":
		return cmp.Compare(a.TI.MapIndex, b.TI.MapIndex)
	case "rendered_map_index":
		return compareTIPresence(a.TI.RenderedMapIndex != nil, b.TI.RenderedMapIndex != nil, func() int {
			return strings.Compare(*a.TI.RenderedMapIndex, *b.TI.RenderedMapIndex)
		})
	}
	return 0
}

func compareTimes(a, b *time.Time) int {
	return compareTIPresence(a != nil, b != nil, func() int { return a.Compare(*b) })
}

// compareTIPresence orders present values by cmp and a null after any value.
func compareTIPresence(aSet, bSet bool, cmp func() int) int {
	switch {
	case aSet && bSet:
		return cmp()
	case aSet:
		return -1
	case bSet:
		return 1
	}
	return 0
}

// tiTries is a task instance's tries as Airflow 3 lists them: the earlier
// ones from the history, then the task instance itself unless it waits
// for a retry (its try is already in the history then). A task instance
// that is not there has none.
func (o *operations) tiTries(dagID, runID, taskID string, mapIndex int64) (*DagRun, []*TaskInstance, error) {
	run, ti, err := o.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	earlier, _, err := o.store.EarlierTries(dagID, runID, taskID, ti.MapIndex)
	if err != nil {
		return nil, nil, err
	}
	tries := slices.Clone(earlier)
	if ti.State != TaskUpForRetry {
		tries = append(tries, ti)
	}
	return run, tries, nil
}

// tiTry is one try of a task instance by its number: the task instance's
// own when it is that try, else the history's; nil when none is.
func (o *operations) tiTry(dagID, runID, taskID string, mapIndex, try int64) (*DagRun, *TaskInstance, error) {
	run, ti, err := o.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if int64(ti.TryNumber) == try {
		return run, ti, nil
	}
	earlier, _, err := o.store.EarlierTries(dagID, runID, taskID, ti.MapIndex)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range earlier {
		if int64(t.TryNumber) == try {
			return run, t, nil
		}
	}
	return run, nil, nil
}

// tryLog is what a task instance's log holds of one try: its output, and
// whether more may come (the try is still running).
type tryLog struct {
	ti      *TaskInstance
	output  string
	running bool
}

// taskTryLog is the log of one try of a task instance (a task instance
// that is not there, or a try it never had, is faultTINotFound).
func (o *operations) taskTryLog(dagID, runID, taskID string, mapIndex, try int64) (tryLog, error) {
	notFound := opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	_, ti, err := o.tiTry(dagID, runID, taskID, mapIndex, try)
	if err != nil {
		return tryLog{}, err
	}
	if ti == nil {
		return tryLog{}, notFound
	}
	l, err := o.store.TaskLogOf(tiKey{dagID, runID, taskID, int(mapIndex)})
	if err != nil {
		return tryLog{}, err
	}
	out := tryLog{ti: ti, running: ti.State == TaskRunning}
	if l != nil {
		for _, t := range l.Tries {
			if int64(t.Try) == try {
				out.output = t.Output
			}
		}
	}
	return out, nil
}

// deleteTaskInstance removes a task instance (a running try stops with
// it); a task instance that is not there is faultTINotFound.
func (o *operations) deleteTaskInstance(dagID, runID, taskID string, mapIndex int64) error {
	notFound := opErr(errNotFound, faultTINotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID)
	err := o.stopWriteWake(func() ([]tiKey, error) {
		ti, err := o.store.DeleteTaskInstance(dagID, runID, taskID, int(mapIndex))
		if err != nil || ti.State != TaskRunning {
			return nil, err
		}
		return []tiKey{ti.key()}, nil
	})
	if errors.Is(err, errNotFound) {
		return notFound
	}
	return err
}

// loadedTask is a task of a DAG whose definition is loaded; nil when the
// DAG or the task is not there.
func (o *operations) loadedTask(dagID, taskID string) *Task {
	row, err := o.store.DagByID(dagID)
	if err != nil || row.Def == nil {
		return nil
	}
	return row.Def.Task(taskID)
}

// tiVersion is the DAG version a task instance (or a try) ran with; nil
// when it records none or the version is gone.
func (o *operations) tiVersion(ti *TaskInstance) *DagVersion {
	if ti.DagVersionID == "" {
		return nil
	}
	v, err := o.store.DagVersionByID(ti.DagVersionID)
	if err != nil {
		return nil
	}
	return v
}

// versionIn reports whether a task instance ran with a DAG version of
// one of the numbers (nil: any).
func (o *operations) versionIn(ti *TaskInstance, numbers []int64) bool {
	if numbers == nil {
		return true
	}
	v := o.tiVersion(ti)
	return v != nil && slices.Contains(numbers, v.Number)
}
