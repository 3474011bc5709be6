package main

// DAGs: delete one, pause and unpause.

import (
	"errors"
	"strings"
)

// DAG faults.
const (
	// faultDagRunning is a delete refused while a task instance of the
	// DAG runs (Airflow 2's delete_dag): dag_id.
	faultDagRunning opFault = "dag_running"
)

// deleteDag deletes a DAG's row, runs, task instances and the rest that
// names it, with its sub-DAGs', and answers how many records went
// (delete_dag's count). The edition says whether a running task refuses
// the delete (Airflow 2) or is stopped with it (1.10).
func (o *operations) deleteDag(dagID string) (int, error) {
	rules := o.rules()
	refuse := func(v storeView, ids []string) error {
		if !rules.deleteRefusesRunning {
			return nil
		}
		for _, id := range ids {
			n, err := v.CountTaskInstances(id, func(ti *TaskInstance) bool { return ti.State == TaskRunning })
			if err != nil {
				return err
			}
			if n > 0 {
				return opErr(errConflict, faultDagRunning, "dag_id", dagID)
			}
		}
		return nil
	}
	var count int
	del := func() (err error) {
		count, err = o.store.DeleteDag(dagID, refuse)
		return err
	}
	var err error
	if rules.deleteStopsTasks {
		// 1.10 deletes whatever runs; the DAG's tasks (and its sub-DAGs')
		// stop with the delete, so that none writes into a deleted run.
		err = o.stopping(func(k tiKey) bool { return k.dagID == dagID || strings.HasPrefix(k.dagID, dagID+".") }, del)
	} else {
		err = del()
	}
	var oe *opError
	if errors.Is(err, errNotFound) && !errors.As(err, &oe) {
		return 0, opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	return count, err
}

// setPaused pauses or unpauses a DAG and, with subdags, its sub-DAGs; an
// unpaused DAG may have runs to create, so the scheduler is woken.
func (o *operations) setPaused(dagID string, paused, subdags bool) error {
	err := o.store.SetPaused(dagID, paused, subdags)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	if err != nil {
		return err
	}
	if !paused {
		o.wake()
	}
	return nil
}

// pauseDag is the experimental API's and the status page's pause
// (airflow/api/common/experimental/... set_is_paused through DagModel):
// the DAG's row must exist and, where the rules say so, its definition
// load; the rules say whether its sub-DAGs follow.
func (o *operations) pauseDag(dagID string, paused bool) error {
	row, err := o.store.DagByID(dagID)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	if err != nil {
		return err
	}
	rules := o.rules()
	if rules.pauseNeedsDefinition && row.Def == nil {
		return opErr(errNotFound, faultDagNotLoaded, "dag_id", dagID)
	}
	return o.setPaused(dagID, paused, rules.pauseSubDAGs)
}

// setPausedAll pauses or unpauses each of dagIDs (those deleted since
// they were read are passed over), then wakes the scheduler once.
func (o *operations) setPausedAll(dagIDs []string, paused bool) error {
	for _, id := range dagIDs {
		if err := o.store.SetPaused(id, paused, false); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
	}
	if !paused {
		o.wake()
	}
	return nil
}
