package main

import "time"

// verifyIntegrity brings a running run's task instances in line with its
// DAG as the DAG is now, which may have changed since the run was created
// (POST /_airlite/dags replaces a DAG and keeps its runs), as Airflow's
// scheduler does before it decides a run (DagRun.verify_integrity; in
// 2.10.3 task_instance_scheduling_decisions marks a running run's removed
// tasks):
//
//   - a task added since gets a task instance in no state, if the run would
//     have had one at its creation (start.hasTask: not when the task starts
//     after the run's date);
//   - a task instance whose task is gone becomes removed, and its running
//     try is stopped, as Airflow's task runner stops a try whose state was
//     changed under it; removed task instances count for nothing in the
//     run's decisions (TaskState.Finished);
//   - a removed task instance whose task is back returns to no state.
//
// Both releases do all three for running runs. tis are the run's task
// instances and have the same by task_id. It returns the new and changed
// task instances and the tries to stop.
func verifyIntegrity(start runStart, dag *DAG, run *DagRun, tis []*TaskInstance, have runTIs,
	now time.Time, unixname string) (changed []*TaskInstance, stop []tiKey) {
	for _, ti := range tis {
		var next TaskState
		switch task := dag.Task(ti.TaskID); {
		case task == nil && ti.State != TaskRemoved:
			next = TaskRemoved
			if ti.State == TaskRunning {
				stop = append(stop, ti.key())
			}
		case task != nil && ti.State == TaskRemoved:
			next = TaskNone
		default:
			continue
		}
		updated := *ti
		updated.State, updated.UpdatedAt = next, &now
		changed = append(changed, &updated)
	}
	for _, t := range dag.Tasks {
		if len(have[t.TaskID]) > 0 || !start.hasTask(t, run.RunID, run.ExecutionDate) {
			continue
		}
		ti := start.taskInstance(t, run.DagID, run.RunID, run.ExecutionDate, now, unixname)
		changed = append(changed, &ti)
	}
	return changed, stop
}
