package main

// Human-in-the-loop details (Airflow 3's HITLDetail rows, written by the
// standard provider's HITL operators when a task waits for a person).
// airlite runs no such operator, so no task instance has a detail; the
// operations find the task instance a request names and say so.

import (
	"errors"
	"strconv"
)

// HITL faults.
const (
	faultHITLTaskInstanceNotFound opFault = "hitl_task_instance_not_found" // dag_id, run_id, task_id, map_index
	faultHITLDetailMissing        opFault = "hitl_detail_missing"          // ti_id
)

// hitlDetail is the human-in-the-loop detail of a task instance (of its
// try try, nil for the current one): Airflow's
// _get_task_instance_with_hitl_detail, which finds the task instance
// first (a try in the history, else the current one if it is that try),
// then its detail, which airlite never has.
func (o *operations) hitlDetail(dagID, runID, taskID string, mapIndex int64, try *int64) error {
	ti, err := o.hitlTaskInstance(dagID, runID, taskID, mapIndex, try)
	if err != nil {
		return err
	}
	return opErr(errNotFound, faultHITLDetailMissing, "ti_id", ti.ID)
}

// hitlTaskInstance is the task instance (or its try) a HITL request names.
func (o *operations) hitlTaskInstance(dagID, runID, taskID string, mapIndex int64, try *int64) (*TaskInstance, error) {
	missing := opErr(errNotFound, faultHITLTaskInstanceNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID,
		"map_index", strconv.FormatInt(mapIndex, 10))
	if mapIndex != -1 { // airlite maps no task
		return nil, missing
	}
	if try != nil {
		earlier, _, err := o.store.EarlierTries(dagID, runID, taskID, -1)
		if err != nil {
			return nil, err
		}
		for _, ti := range earlier {
			if int64(ti.TryNumber) == *try {
				return ti, nil
			}
		}
	}
	ti, err := o.store.TaskInstance(dagID, runID, taskID)
	if errors.Is(err, errNotFound) || (err == nil && try != nil && int64(ti.TryNumber) != *try) {
		return nil, missing
	}
	return ti, err
}
