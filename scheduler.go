package main

// RunState is a DAG run's state, with Airflow's names.
type RunState string

const (
	RunQueued  RunState = "queued"
	RunRunning RunState = "running"
	RunSuccess RunState = "success"
	RunFailed  RunState = "failed"
)

// Finished reports whether the run has ended.
func (s RunState) Finished() bool { return s == RunSuccess || s == RunFailed }

// TaskState is a task instance's state, with Airflow's names; "" is
// Airflow's None (created, not yet considered by the scheduler).
type TaskState string

const (
	TaskNone           TaskState = ""
	TaskScheduled      TaskState = "scheduled"
	TaskQueued         TaskState = "queued"
	TaskRunning        TaskState = "running"
	TaskSuccess        TaskState = "success"
	TaskFailed         TaskState = "failed"
	TaskSkipped        TaskState = "skipped"
	TaskUpForRetry     TaskState = "up_for_retry"
	TaskUpstreamFailed TaskState = "upstream_failed"
)

// Finished reports whether the task instance will not run again.
func (s TaskState) Finished() bool {
	switch s {
	case TaskSuccess, TaskFailed, TaskSkipped, TaskUpstreamFailed:
		return true
	}
	return false
}
