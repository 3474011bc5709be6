package main

import (
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// View hands fn a read-only view of the store at one point in time, for
// decisions that read several tables (the stable API's dependencies).
func (s *Store) View(fn func(v storeView) error) error { return fn(storeView{s.read()}) }

// storeView is a read-only look at the store from inside one of its
// writes. Intent methods hand it to the caller's decision function, which
// reads what it needs and returns what should change; only the store
// writes, and the caller never holds a transaction.
type storeView struct{ txn *memdb.Txn }

func (v storeView) Dag(dagID string) (*DagRow, error) { return dagRowTxn(v.txn, dagID) }

func (v storeView) Run(dagID, runID string) (*DagRun, error) {
	return runByRunIDTxn(v.txn, dagID, runID)
}

func (v storeView) RunAt(dagID string, date time.Time) (*DagRun, error) {
	return runByDateTxn(v.txn, dagID, date)
}

func (v storeView) TaskInstance(dagID, runID, taskID string) (*TaskInstance, error) {
	return taskInstanceTxn(v.txn, dagID, runID, taskID)
}

// TaskInstancesOfTask are a task's task instances in a run, by map_index.
func (v storeView) TaskInstancesOfTask(dagID, runID, taskID string) ([]*TaskInstance, error) {
	return taskInstancesOfTaskTxn(v.txn, dagID, runID, taskID)
}

// TaskInstanceAt is the task instance (dag_id, run_id, task_id,
// map_index), or errNotFound.
func (v storeView) TaskInstanceAt(dagID, runID, taskID string, mapIndex int) (*TaskInstance, error) {
	return taskInstanceAtTxn(v.txn, tiKey{dagID, runID, taskID, mapIndex})
}

func (v storeView) Pool(name string) (*Pool, error) { return poolTxn(v.txn, name) }

// TaskInstancesOfRun lists a run's task instances by task_id.
func (v storeView) TaskInstancesOfRun(dagID, runID string) ([]*TaskInstance, error) {
	return taskInstancesOfRunTxn(v.txn, dagID, runID)
}

// ActiveUsage counts the slots that queued and running task instances hold.
func (v storeView) ActiveUsage() (*slotUsage, error) { return activeUsageTxn(v.txn) }

// CountRuns counts a DAG's runs in an unfinished state.
func (v storeView) CountRuns(dagID string, state RunState) (int, error) {
	it, err := v.txn.Get(tableDagRuns, indexState, string(state), dagID)
	if err != nil {
		return 0, fmt.Errorf("count %s runs of %s: %w", state, dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	return n, nil
}

// CountScheduledRuns counts a DAG's runs in an unfinished state that the
// schedule created (not triggered).
func (v storeView) CountScheduledRuns(dagID string, state RunState) (int, error) {
	it, err := v.txn.Get(tableDagRuns, indexState, string(state), dagID)
	if err != nil {
		return 0, fmt.Errorf("count %s runs of %s: %w", state, dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if !raw.(*DagRun).ExternalTrigger {
			n++
		}
	}
	return n, nil
}

// LastRunDate is the logical date of a DAG's latest run of kind, or nil.
// Other runs in between are passed over.
func (v storeView) LastRunDate(dagID string, kind lastRunKind) (*time.Time, error) {
	return runCountTxn(v.txn, dagID).Last[kind], nil
}

// walkLastRun is LastRunDate found by a walk down the DAG's runs to its
// latest one of kind (when the one the counts kept goes).
func (v storeView) walkLastRun(dagID string, kind lastRunKind) (*time.Time, error) {
	it, err := runsDownTxn(v.txn, dagID, endOfTime)
	if err != nil {
		return nil, fmt.Errorf("find last run of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return nil, nil
		}
		if kind.counts(run) {
			d := run.ExecutionDate
			return &d, nil
		}
	}
	return nil, nil
}

// PreviousRun is the DAG's latest run with a logical date before the
// given one that match accepts (nil: any), or nil. It walks the runs by
// run_after, which is the logical date of every run before Airflow 3.
func (v storeView) PreviousRun(dagID string, before time.Time, match func(*DagRun) bool) (*DagRun, error) {
	it, err := runsDownTxn(v.txn, dagID, before)
	if err != nil {
		return nil, fmt.Errorf("find run of %s before %s: %w", dagID, isoFormat(before), err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return nil, nil
		}
		if !run.NoLogicalDate && run.ExecutionDate.Before(before) && (match == nil || match(run)) {
			return run, nil
		}
	}
	return nil, nil
}

// HasEarlierTaskInstance reports whether any run of the DAG before the
// given logical date has a task instance of the task.
func (v storeView) HasEarlierTaskInstance(dagID, taskID string, before time.Time) (bool, error) {
	it, err := runsDownTxn(v.txn, dagID, before)
	if err != nil {
		return false, fmt.Errorf("find runs of %s before %s: %w", dagID, isoFormat(before), err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return false, nil
		}
		if run.NoLogicalDate || !run.ExecutionDate.Before(before) {
			continue
		}
		tis, err := taskInstancesOfTaskTxn(v.txn, dagID, run.RunID, taskID)
		if err != nil {
			return false, err
		}
		if len(tis) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// CountTaskInstances counts the task instances of a DAG that match (all
// of them when match is nil).
func (v storeView) CountTaskInstances(dagID string, match func(*TaskInstance) bool) (int, error) {
	return countTaskInstancesTxn(v.txn, dagID, match)
}
