package main

import (
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
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
// logged. It returns how many were changed.
func resolveOrphans(store *Store, ed edition, now time.Time, log zerolog.Logger) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	states := []TaskState{TaskQueued, TaskRunning}
	if ed.isAirflow1() {
		states = append(states, TaskScheduled)
	}
	changed := 0
	err := store.update(func(txn *memdb.Txn) error {
		changed = 0
		var orphans []*TaskInstance
		for _, state := range states {
			tis, err := taskInstancesInStateTxn(txn, state)
			if err != nil {
				return err
			}
			orphans = append(orphans, tis...)
		}
		for _, old := range orphans {
			ti := *old
			key := tiKey{ti.DagID, ti.RunID, ti.TaskID}
			ti.UpdatedAt = &now
			zombie := ed.isAirflow1() && old.State == TaskRunning
			if zombie {
				ti.EndDate = &now
				if ti.StartDate != nil {
					d := now.Sub(*ti.StartDate).Seconds()
					ti.Duration = &d
				}
				ti.State = TaskFailed
				if ti.MaxTries > 0 && ti.TryNumber <= ti.MaxTries {
					ti.State = TaskUpForRetry
					next := now
					if row, err := dagRowTxn(txn, ti.DagID); err == nil && row.Def != nil {
						if task := row.Def.Task(ti.TaskID); task != nil {
							next = now.Add(retryDelay(task, &ti))
						}
					}
					ti.NextRetryAt = &next
				}
			} else {
				ti.State, ti.NextRetryAt = TaskNone, nil
			}
			if err := putTaskInstancesTxn(txn, &ti); err != nil {
				return fmt.Errorf("reset orphaned task %s: %w", key, err)
			}
			if old.State == TaskRunning {
				reason := "airlite stopped while this try was running; the task instance was reset at restart"
				if zombie {
					reason = "airlite stopped while this try was running; the try is failed at restart (a zombie)"
				}
				if err := appendTaskLogTxn(txn, key, taskOutcome{state: TaskFailed, reason: reason}.tryLog(old.TryNumber)); err != nil {
					return fmt.Errorf("log orphaned task %s: %w", key, err)
				}
			}
			state := string(ti.State)
			if state == "" {
				state = "None"
			}
			log.Warn().Str("task", key.String()).Int("try", old.TryNumber).Str("was", string(old.State)).
				Str("now", state).Msg("orphaned task instance resolved at restart")
			changed++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("resolve orphaned tasks: %w", err)
	}
	return changed, nil
}
