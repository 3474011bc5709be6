package main

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// resolveOrphans decides what becomes of task instances that were queued
// or running when the snapshot was taken: their process is gone, so they
// cannot still be running. airlite does what Airflow does with such
// orphans:
//
//   - Airflow 2.10.3 (SchedulerJobRunner.adopt_or_reset_orphaned_tasks,
//     run once at scheduler start): task instances in an adoptable state
//     (queued, running, restarting) whose scheduler job is no longer
//     running, in running non-backfill runs, are offered to the executor;
//     the Local and Sequential executors adopt none (BaseExecutor.
//     try_adopt_task_instances returns them all), so every one is reset
//     to state None. The scheduler schedules it again, as a new try.
//   - Airflow 1.10.15 (BaseJob.reset_state_for_orphaned_tasks at scheduler
//     start): scheduled and queued task instances are reset to None;
//     running ones are zombies (their LocalTaskJob stopped heartbeating)
//     and go through handle_failure: up_for_retry when the task has
//     retries and try_number <= max_tries, else failed.
//
// Airflow only looks at running runs; airlite applies the same rule to a
// task instance of any run, since none can still be running. Each one is
// logged once the change is stored. It returns how many were changed.
func resolveOrphans(store *Store, policy orphanPolicy, now time.Time, log zerolog.Logger) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	type change struct{ was, now *TaskInstance }
	var changes []change
	changed, err := store.ResetOrphans(policy.states, now, func(v storeView, old *TaskInstance) (*TaskInstance, *TryLog) {
		ti := *old
		ti.UpdatedAt = &now
		zombie := policy.zombies && old.State == TaskRunning
		if zombie {
			var task *Task
			if row, err := v.Dag(ti.DagID); err == nil && row.Def != nil {
				task = row.Def.Task(ti.TaskID)
			}
			endTry(&ti, TaskFailed, task, now)
		} else {
			ti.State, ti.NextRetryAt = TaskNone, nil
		}
		var try *TryLog
		if old.State == TaskRunning {
			reason := "airlite stopped while this try was running; the task instance was reset at restart"
			if zombie {
				reason = "airlite stopped while this try was running; the try is failed at restart (a zombie)"
			}
			l := taskOutcome{state: TaskFailed, reason: reason}.tryLog(old.TryNumber)
			try = &l
		}
		changes = append(changes, change{old, &ti})
		return &ti, try
	})
	if err != nil {
		return 0, fmt.Errorf("resolve orphaned tasks: %w", err)
	}
	for _, c := range changes {
		state := string(c.now.State)
		if state == "" {
			state = "None"
		}
		log.Warn().Str("task", c.was.key().String()).Int("try", c.was.TryNumber).
			Str("was", string(c.was.State)).Str("now", state).Msg("orphaned task instance resolved at restart")
	}
	return changed, nil
}
