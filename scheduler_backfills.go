package main

// The scheduler's part in Airflow 3's backfills (memstore_backfills.go):
// a backfill's queued runs start in its sort order, no more than its
// max_active_runs running at a time and none while it is paused, apart
// from the DAG's max_active_runs (DagRun.get_queued_dag_runs_to_set_running
// partitions queued runs by dag_id and backfill_id, airflow-core/src/
// airflow/models/dagrun.py); a backfill none of whose runs is queued or
// running is completed (SchedulerJobRunner._mark_backfills_complete,
// jobs/scheduler_job_runner.py).

import (
	"errors"
	"fmt"
	"time"
)

// startBackfillRuns starts the queued runs of the backfills not completed
// yet, each in its sort order while it has room.
func (s *scheduler) startBackfillRuns(now time.Time) error {
	if !s.rules.backfills {
		return nil
	}
	all, err := s.opts.Store.Backfills("")
	if err != nil {
		return err
	}
	for _, b := range all {
		if b.CompletedAt != nil || b.IsPaused {
			continue
		}
		links, err := s.opts.Store.BackfillRuns(b.ID)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.RunID == "" {
				continue
			}
			run, err := s.opts.Store.RunByRunID(l.DagID, l.RunID)
			if errors.Is(err, errNotFound) || (err == nil && (run.State != RunQueued || run.After().After(now))) {
				continue
			}
			if err != nil {
				return err
			}
			id := b.ID
			err = s.opts.Store.StartRun(run.DagID, run.RunID, now, func(v storeView, run *DagRun) (bool, error) {
				if _, ok := s.runnable(v, run); !ok {
					return false, nil
				}
				cur, err := v.backfill(id)
				if err != nil || cur.IsPaused || cur.CompletedAt != nil {
					return false, err
				}
				running, err := v.backfillRunsIn(id, RunRunning)
				return err == nil && running < cur.MaxActiveRuns, err
			})
			if err != nil {
				return fmt.Errorf("start run %s of backfill %d: %w", run.RunID, id, err)
			}
		}
	}
	return nil
}

// ownedByBackfill reports whether a queued run is a run of a backfill not
// completed, which startBackfillRuns starts rather than startQueuedRuns.
func (s *scheduler) ownedByBackfill(run *DagRun) (bool, error) {
	if !s.rules.backfills {
		return false, nil
	}
	b, err := s.opts.Store.BackfillOfRun(run.DagID, run.RunID)
	if errors.Is(err, errNotFound) {
		return false, nil
	}
	return err == nil && b.CompletedAt == nil, err
}
