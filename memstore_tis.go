package main

// Task instances: one row per run holding its task instances, lookups,
// forced states, clears and the slots active ones hold.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// taskInstancesTable holds one row per run with that run's task instances
// (runTasks), keyed by (dag_id, run_id) and found by each unfinished state
// one of its task instances is in.
func taskInstancesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTasks,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringPairIndex(
				func(r *runTasks) string { return r.DagID }, func(r *runTasks) string { return r.RunID })},
			indexState: {Name: indexState, AllowMissing: true, Indexer: taskStatesIndex{}},
		},
	}
}

// TaskInstance returns a task's task instance of map_index -1 (every task
// but an expanded mapped one has that one), or errNotFound.
func (s *Store) TaskInstance(dagID, runID, taskID string) (*TaskInstance, error) {
	return taskInstanceTxn(s.read(), dagID, runID, taskID)
}

// TaskInstanceAt returns the task instance (dag_id, run_id, task_id,
// map_index), or errNotFound.
func (s *Store) TaskInstanceAt(dagID, runID, taskID string, mapIndex int) (*TaskInstance, error) {
	return taskInstanceAtTxn(s.read(), tiKey{dagID, runID, taskID, mapIndex})
}

func taskInstanceTxn(txn *memdb.Txn, dagID, runID, taskID string) (*TaskInstance, error) {
	return taskInstanceAtTxn(txn, tiKey{dagID, runID, taskID, -1})
}

func taskInstanceAtTxn(txn *memdb.Txn, key tiKey) (*TaskInstance, error) {
	row, err := runTasksTxn(txn, key.dagID, key.runID)
	if err != nil {
		return nil, err
	}
	if row != nil {
		if i, ok := row.find(key.taskID, key.mapIndex); ok {
			return row.TIs[i], nil
		}
	}
	return nil, errNotFound
}

// TaskInstancesOfTask returns a task's task instances in a run: its one of
// map_index -1, or those it expanded into, by map_index (none: the run
// has none of the task).
func (s *Store) TaskInstancesOfTask(dagID, runID, taskID string) ([]*TaskInstance, error) {
	tis, err := taskInstancesOfTaskTxn(s.read(), dagID, runID, taskID)
	if s.rowsRead != nil {
		s.rowsRead(len(tis))
	}
	return tis, err
}

// MappedTaskInstancePage is a page of the expanded instances (map_index
// 0 and up) of a run's task by map_index, descending when desc, and how
// many there are: the run's row keeps a task's instances by map_index, so
// the page is a part of it found by a binary search (its rows and the
// run's row read), not every instance of the task.
func (s *Store) MappedTaskInstancePage(dagID, runID, taskID string, desc bool, offset, limit int) ([]*TaskInstance, int, error) {
	row, err := runTasksTxn(s.read(), dagID, runID)
	if err != nil || row == nil {
		return []*TaskInstance{}, 0, err
	}
	from, _ := row.find(taskID, 0)
	_, to := row.ofTask(taskID)
	total := max(to-from, 0)
	page := make([]*TaskInstance, 0, max(0, min(limit, total-offset)))
	for i := offset; i < total && len(page) < limit; i++ {
		if desc {
			page = append(page, row.TIs[to-1-i])
		} else {
			page = append(page, row.TIs[from+i])
		}
	}
	if s.rowsRead != nil {
		s.rowsRead(1 + len(page))
	}
	return page, total, nil
}

func taskInstancesOfTaskTxn(txn *memdb.Txn, dagID, runID, taskID string) ([]*TaskInstance, error) {
	row, err := runTasksTxn(txn, dagID, runID)
	if err != nil || row == nil {
		return nil, err
	}
	from, to := row.ofTask(taskID)
	return slices.Clone(row.TIs[from:to]), nil
}

// runTasksTxn returns the row of a run's task instances, or nil.
func runTasksTxn(txn *memdb.Txn, dagID, runID string) (*runTasks, error) {
	raw, err := txn.First(tableTasks, indexID, dagID, runID)
	if err != nil {
		return nil, fmt.Errorf("look up tasks of %s/%s: %w", dagID, runID, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*runTasks), nil
}

// TaskInstancesOfRun lists a run's task instances by task_id and
// map_index.
func (s *Store) TaskInstancesOfRun(dagID, runID string) ([]*TaskInstance, error) {
	tis, err := taskInstancesOfRunTxn(s.read(), dagID, runID)
	if s.rowsRead != nil {
		s.rowsRead(len(tis))
	}
	return tis, err
}

// taskInstancesOfRunTxn lists a run's task instances by task_id, in a
// slice the caller may change.
func taskInstancesOfRunTxn(txn *memdb.Txn, dagID, runID string) ([]*TaskInstance, error) {
	row, err := runTasksTxn(txn, dagID, runID)
	if err != nil || row == nil {
		return nil, err
	}
	return slices.Clone(row.TIs), nil
}

// taskInstancesInStateTxn lists the task instances in an unfinished state,
// by (dag_id, run_id, task_id).
func taskInstancesInStateTxn(txn *memdb.Txn, state TaskState) ([]*TaskInstance, error) {
	it, err := txn.Get(tableTasks, indexState, string(state))
	if err != nil {
		return nil, fmt.Errorf("list %s tasks: %w", state, err)
	}
	var tis []*TaskInstance
	for raw := it.Next(); raw != nil; raw = it.Next() {
		for _, ti := range raw.(*runTasks).TIs {
			if ti.State == state {
				tis = append(tis, ti)
			}
		}
	}
	return tis, nil
}

// countTaskInstancesTxn counts the task instances of a DAG that match
// (all of them when match is nil).
func countTaskInstancesTxn(txn *memdb.Txn, dagID string, match func(*TaskInstance) bool) (int, error) {
	it, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
	if err != nil {
		return 0, fmt.Errorf("list tasks of %s: %w", dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		for _, ti := range raw.(*runTasks).TIs {
			if match == nil || match(ti) {
				n++
			}
		}
	}
	return n, nil
}

// putTaskInstancesTxn stores new or changed task instances, each a fresh
// copy (stored ones are never changed), into their runs' rows. Task
// instances of one run given one after another cost one row write. A task
// instance of map_index 0 or more takes the place of its task's map_index
// -1 one, as Airflow's expand_mapped_task turns that row into index 0: a
// task has either the one or the others.
func putTaskInstancesTxn(txn *memdb.Txn, tis ...*TaskInstance) error {
	return storeTaskInstancesTxn(txn, false, tis, nil)
}

// putRunTaskInstancesTxn is putTaskInstancesTxn for task instances of
// one run the caller has read in txn (a try's start or end, the
// scheduler's decisions for a run): the derived orders of settled runs'
// task instances need not look it up again (each try's state change
// would cost a lookup).
func putRunTaskInstancesTxn(txn *memdb.Txn, run *DagRun, tis ...*TaskInstance) error {
	return storeTaskInstancesTxn(txn, false, tis, run)
}

// storeTaskInstancesTxn is putTaskInstancesTxn; with refuseTwice, a task
// instance whose key is already stored is an error, not a replacement
// (a restore: two rows under one key would lose one). run, when not
// nil, is the run of every task instance of tis, as txn has it.
func storeTaskInstancesTxn(txn *memdb.Txn, refuseTwice bool, tis []*TaskInstance, run *DagRun) error {
	for len(tis) > 0 {
		dagID, runID := tis[0].DagID, tis[0].RunID
		n := 1
		for n < len(tis) && tis[n].DagID == dagID && tis[n].RunID == runID {
			n++
		}
		group := tis[:n]
		tis = tis[n:]
		old, err := runTasksTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		row := &runTasks{DagID: dagID, RunID: runID}
		if old != nil {
			row.TIs = make([]*TaskInstance, len(old.TIs), len(old.TIs)+len(group))
			copy(row.TIs, old.TIs)
		}
		for _, ti := range group {
			if ti.TaskID == "" {
				return fmt.Errorf("store task of %s/%s: empty task_id", dagID, runID)
			}
			if ti.MapIndex >= 0 {
				if i, found := row.find(ti.TaskID, -1); found {
					if refuseTwice {
						return unmappedAndExpandedError(ti)
					}
					row.TIs = slices.Delete(row.TIs, i, i+1)
				}
			}
			i, found := row.find(ti.TaskID, ti.MapIndex)
			// Expanded instances sort after their task's -1 one.
			if refuseTwice && ti.MapIndex == -1 && !found && i < len(row.TIs) && row.TIs[i].TaskID == ti.TaskID {
				return unmappedAndExpandedError(ti)
			}
			if found {
				if refuseTwice {
					return fmt.Errorf("task instance %s of run %s of DAG %s (map_index %d) appears twice", ti.TaskID, runID, dagID, ti.MapIndex)
				}
				row.TIs[i] = ti
			} else {
				row.TIs = slices.Insert(row.TIs, i, ti)
			}
		}
		if err := txn.Insert(tableTasks, row); err != nil {
			return fmt.Errorf("store tasks of %s/%s: %w", dagID, runID, err)
		}
		if err := recountTIsTxn(txn, old, row); err != nil {
			return err
		}
		// A restore orders every DAG's starts at its end
		// (recountRunsTxn), at once.
		if !refuseTwice {
			known := run
			if known != nil && (known.DagID != dagID || known.RunID != runID) {
				known = nil
			}
			if err := restartTIsTxn(txn, dagID, runID, known, oldTIs(old), row.TIs); err != nil {
				return err
			}
		}
	}
	return nil
}

// oldTIs is a run's row's task instances; none without a row.
func oldTIs(row *runTasks) []*TaskInstance {
	if row == nil {
		return nil
	}
	return row.TIs
}

// unmappedAndExpandedError is a restore's task instance whose task has
// the other kind stored: a task has its map_index -1 task instance or the
// ones it expanded into, never both (putTaskInstancesTxn).
func unmappedAndExpandedError(ti *TaskInstance) error {
	return fmt.Errorf("task %s of run %s of DAG %s has a task instance of map_index -1 and expanded ones", ti.TaskID, ti.RunID, ti.DagID)
}

// recountTIsTxn brings ti_order and the DAG's task-instance counts from a
// run's row of task instances old (nil: none) to row.
func recountTIsTxn(txn *memdb.Txn, old, row *runTasks) error {
	var before []*TaskInstance
	if old != nil {
		before = old.TIs
	}
	ordered, err := reorderTIsTxn(txn, before, row.TIs)
	if err != nil {
		return err
	}
	added := len(row.TIs) - len(before)
	if added == 0 && ordered == 0 {
		return nil
	}
	c := runCountTxn(txn, row.DagID)
	c.TaskInstances += added
	c.OrderedTIs += ordered
	return storeRunCountTxn(txn, &c)
}

// ForceTaskStates marks task instances of a run with a state, as Airflow's
// set_state does; pick chooses the task_ids from the DAG's definition. A
// finished run goes back to running so that the scheduler decides its
// outcome again. It returns the task_ids marked and the task instances
// that were running, whose tries the caller stops.
func (s *Store) ForceTaskStates(dagID, runID string, state TaskState, now time.Time,
	pick func(dag *DAG) ([]string, error)) (marked []string, stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		marked, stopped = nil, nil
		row, err := dagRowTxn(txn, dagID)
		if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
			return &missingError{what: "dag", dagID: dagID}
		}
		if err != nil {
			return err
		}
		ids, err := pick(row.Def)
		if err != nil {
			return err
		}
		keys, st, err := forceTaskStatesTxn(txn, dagID, runID, ids, nil, state, now, false)
		for _, k := range keys {
			if !slices.Contains(marked, k.taskID) {
				marked = append(marked, k.taskID)
			}
		}
		stopped = st
		return err
	})
	return marked, stopped, err
}

// ForceTaskStatesInRuns marks the same tasks in several runs of a DAG in
// one write, as ForceTaskStates marks them in one run (Airflow's set_state
// with future or past), leaving those already in the state as they are
// (set_state selects only the others); pick, when not nil, chooses among
// their task instances (set_task_instance_state's map_indexes). It returns
// the task instances marked, run by run, and those that were running.
func (s *Store) ForceTaskStatesInRuns(dagID string, runIDs, taskIDs []string, pick func(*TaskInstance) bool, state TaskState, now time.Time) (marked, stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		marked, stopped = nil, nil
		for _, runID := range runIDs {
			keys, st, err := forceTaskStatesTxn(txn, dagID, runID, taskIDs, pick, state, now, true)
			if err != nil {
				return err
			}
			marked = append(marked, keys...)
			stopped = append(stopped, st...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return marked, stopped, nil
}

// forceTaskStatesTxn marks the task instances ids of a run, but with
// skipSame those already in state; a finished run where one changed goes
// back to running.
func forceTaskStatesTxn(txn *memdb.Txn, dagID, runID string, ids []string, pick func(*TaskInstance) bool, state TaskState, now time.Time, skipSame bool) (marked, stopped []tiKey, err error) {
	run, err := runByRunIDTxn(txn, dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, nil, &missingError{what: "run", dagID: dagID, runID: runID}
	}
	if err != nil {
		return nil, nil, err
	}
	var changed []*TaskInstance
	for _, id := range ids {
		// A mapped task's instances are marked together, as Airflow's
		// set_state marks every task instance of the task.
		tis, err := taskInstancesOfTaskTxn(txn, dagID, runID, id)
		if err != nil {
			return nil, nil, err
		}
		for _, ti := range tis {
			if (skipSame && ti.State == state) || (pick != nil && !pick(ti)) {
				continue
			}
			if ti.State == TaskRunning {
				stopped = append(stopped, ti.key())
			}
			forced := *ti
			forced.State, forced.UpdatedAt, forced.NextRetryAt = state, &now, nil
			forced.setStateDates(now)
			changed = append(changed, &forced)
			marked = append(marked, ti.key())
		}
	}
	if err := putTaskInstancesTxn(txn, changed...); err != nil {
		return nil, nil, err
	}
	if run.State.Finished() && (len(changed) > 0 || !skipSame) {
		reopened := *run
		reopened.State, reopened.EndDate, reopened.UpdatedAt = RunRunning, nil, &now
		if err := putRunTxn(txn, run, &reopened); err != nil {
			return nil, nil, err
		}
	}
	return marked, stopped, nil
}

// setStateDates dates a marked task instance as Airflow's
// TaskInstance.set_state does (airflow/models/taskinstance.py, alike in
// 1.10.15, 2.10.3 and 3.2.1), which mark_tasks.set_state calls for every
// instance it marks: a start date if it has none; in a finished state or
// up_for_retry an end date if it has none, and the duration between the
// two.
func (ti *TaskInstance) setStateDates(now time.Time) {
	if ti.StartDate == nil {
		ti.StartDate = &now
	}
	if ti.State.Finished() || ti.State == TaskUpForRetry {
		if ti.EndDate == nil {
			ti.EndDate = &now
		}
		took := ti.EndDate.Sub(*ti.StartDate).Seconds()
		ti.Duration = &took
	}
}

// slotUsage counts what active (queued and running) task instances hold,
// as Airflow counts pool and parallelism slots.
type slotUsage struct {
	total   int
	byDag   map[string]int
	byPool  map[string]int64 // pool_slots of queued and running
	running map[string]int64 // pool_slots of running only
}

// ActiveUsage counts the slots that queued and running task instances hold.
func (s *Store) ActiveUsage() (*slotUsage, error) { return activeUsageTxn(s.read()) }

func activeUsageTxn(txn *memdb.Txn) (*slotUsage, error) {
	u := &slotUsage{byDag: map[string]int{}, byPool: map[string]int64{}, running: map[string]int64{}}
	for _, state := range []TaskState{TaskQueued, TaskRunning} {
		tis, err := taskInstancesInStateTxn(txn, state)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			u.total++
			u.byDag[ti.DagID]++
			u.byPool[ti.Pool] += int64(ti.PoolSlots)
			if state == TaskRunning {
				u.running[ti.Pool] += int64(ti.PoolSlots)
			}
		}
	}
	return u, nil
}

// ScheduledTaskInstances lists the task instances waiting for a slot,
// with the slots that active ones hold, from one point in time.
func (s *Store) ScheduledTaskInstances() ([]*TaskInstance, *slotUsage, error) {
	txn := s.read()
	tis, err := taskInstancesInStateTxn(txn, TaskScheduled)
	if err != nil || len(tis) == 0 {
		return nil, nil, err
	}
	usage, err := activeUsageTxn(txn)
	return tis, usage, err
}

// SetTaskInstanceNote sets or clears a task instance's note and returns
// the task instance as stored.
func (s *Store) SetTaskInstanceNote(key tiKey, note *string) (*TaskInstance, error) {
	var out *TaskInstance
	err := s.update(func(txn *memdb.Txn) error {
		ti, err := taskInstanceAtTxn(txn, key)
		if err != nil {
			return err
		}
		noted := *ti
		noted.Note = note
		out = &noted
		return putTaskInstancesTxn(txn, &noted)
	})
	return out, err
}

// ClearRun clears every task instance of a run and queues the run again
// when it had finished (ClearTaskInstances).
func (s *Store) ClearRun(dagID, runID string, now time.Time) (stopped []tiKey, err error) {
	return s.ClearTaskInstances(dagID, runID, nil, true, now)
}

// tasksNamed picks the task instances of taskIDs (a mapped task's: all of
// its instances); nil picks all.
func tasksNamed(taskIDs []string) func(*TaskInstance) bool {
	if taskIDs == nil {
		return nil
	}
	return func(ti *TaskInstance) bool { return slices.Contains(taskIDs, ti.TaskID) }
}

// ClearTaskInstances clears task instances of a run (those pick picks;
// nil is all), as Airflow's clear_task_instances does: each goes back to no
// state, its try's dates dropped, with room for its retries again; with
// requeueRun a finished run is queued again with no start. It returns
// the task instances that were running, whose tries the caller stops.
func (s *Store) ClearTaskInstances(dagID, runID string, pick func(*TaskInstance) bool, requeueRun bool, now time.Time) (stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		var err error
		stopped, err = clearTaskInstancesTxn(txn, dagID, runID, pick, requeueRun, now)
		return err
	})
	return stopped, err
}

// clearTaskInstancesTxn is ClearTaskInstances inside txn (a backfill's
// reprocessing clears runs in its own write).
func clearTaskInstancesTxn(txn *memdb.Txn, dagID, runID string, pick func(*TaskInstance) bool, requeueRun bool, now time.Time) (stopped []tiKey, err error) {
	err = func() error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		tis, err := taskInstancesOfRunTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		changed := make([]*TaskInstance, 0, len(tis))
		for _, ti := range tis {
			if pick != nil && !pick(ti) {
				continue
			}
			if ti.State == TaskRunning {
				stopped = append(stopped, ti.key())
			}
			// Airflow's clear_task_instances records every cleared
			// try first.
			if err := recordTryTxn(txn, ti, now); err != nil {
				return err
			}
			cleared := *ti
			nextTryID(&cleared)
			// Only the state goes: the end date (and duration) stay
			// until the next try starts (2.10.3 models/taskinstance.py
			// clear_task_instances sets the state alone, as 1.10.15's
			// does; 3.2.1's prepare_db_for_next_try records the try and
			// gives a new id).
			cleared.State, cleared.NextRetryAt, cleared.UpdatedAt = TaskNone, nil, &now
			cleared.MaxTries = ti.TryNumber + ti.MaxTries - max(ti.TryNumber-1, 0)
			if cleared.MaxTries < ti.TryNumber {
				cleared.MaxTries = ti.TryNumber
			}
			changed = append(changed, &cleared)
		}
		if err := putTaskInstancesTxn(txn, changed...); err != nil {
			return err
		}
		if !requeueRun || !run.State.Finished() {
			return nil
		}
		queued := *run
		queued.State, queued.StartDate, queued.EndDate, queued.QueuedAt, queued.UpdatedAt = RunQueued, nil, nil, &now, &now
		return putRunTxn(txn, run, &queued)
	}()
	return stopped, err
}

// DeleteTaskInstance removes one task instance of a run (Airflow 3's
// delete_task_instance, by map_index) and returns it as it was;
// errNotFound when it is not there.
func (s *Store) DeleteTaskInstance(dagID, runID, taskID string, mapIndex int) (*TaskInstance, error) {
	var out *TaskInstance
	err := s.update(func(txn *memdb.Txn) error {
		old, err := runTasksTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		if old == nil {
			return errNotFound
		}
		i, ok := old.find(taskID, mapIndex)
		if !ok {
			return errNotFound
		}
		out = old.TIs[i]
		row := &runTasks{DagID: dagID, RunID: runID, TIs: slices.Delete(slices.Clone(old.TIs), i, i+1)}
		if err := txn.Insert(tableTasks, row); err != nil {
			return fmt.Errorf("delete task %s of %s/%s: %w", taskID, dagID, runID, err)
		}
		if err := recountTIsTxn(txn, old, row); err != nil {
			return err
		}
		if err := restartTIsTxn(txn, dagID, runID, nil, old.TIs, row.TIs); err != nil {
			return err
		}
		// Its earlier tries, log, lineage and XCom entries go with it, as
		// Airflow's foreign keys cascade.
		for _, table := range taskInstanceTables {
			if _, err := txn.DeleteAll(table, indexID, dagID, runID, taskID, mapIndexArg(mapIndex)); err != nil {
				return fmt.Errorf("delete %s of %s/%s/%s: %w", table, dagID, runID, taskID, err)
			}
		}
		return deleteXComsOfTxn(txn, tiKey{dagID, runID, taskID, mapIndex})
	})
	return out, err
}
