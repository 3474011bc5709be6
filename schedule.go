package main

import (
	"fmt"
	"time"

	"github.com/adhocore/gronx"
)

// cronPresets are Airflow's schedule presets as cron expressions.
var cronPresets = map[string]string{
	"@hourly":    "0 * * * *",
	"@daily":     "0 0 * * *",
	"@midnight":  "0 0 * * *",
	"@weekly":    "0 0 * * 0",
	"@monthly":   "0 0 1 * *",
	"@quarterly": "0 0 1 */3 *",
	"@yearly":    "0 0 1 1 *",
	"@annually":  "0 0 1 1 *",
}

// dataInterval is the span a scheduled run covers; its logical date
// (execution_date) is the start, and it is due once the end has passed.
type dataInterval struct{ start, end time.Time }

// nextInterval returns the next interval a DAG's schedule asks a run for,
// after the run whose logical date is last (nil: no scheduled run yet), as
// Airflow's timetables compute it: cron intervals run tick to tick, a
// duration runs from start_date in steps, @once runs once at start_date.
// Without catchup only the latest complete interval is taken. ok is false
// when there is nothing (more) to schedule.
func nextInterval(dag *DAG, last *time.Time, now time.Time) (dataInterval, bool, error) {
	if dag.Schedule == nil || dag.StartDate == nil {
		return dataInterval{}, false, nil
	}
	sched := *dag.Schedule
	start := dag.StartDate.UTC()
	var iv dataInterval
	switch {
	case sched == "@once":
		if last != nil {
			return dataInterval{}, false, nil
		}
		iv = dataInterval{start, start}
	case isDurationSchedule(sched):
		d, _ := parseDuration(sched)
		if d <= 0 {
			return dataInterval{}, false, fmt.Errorf("schedule %q: duration must be positive", sched)
		}
		if last != nil {
			start = last.Add(d)
		}
		if !dag.Catchup {
			if latest := now.Add(-d); latest.After(start) {
				start = latest
			}
		}
		iv = dataInterval{start, start.Add(d)}
	default:
		expr := sched
		if preset, ok := cronPresets[sched]; ok {
			expr = preset
		}
		var err error
		if last != nil {
			start, err = gronx.NextTickAfter(expr, last.UTC(), false)
		} else {
			start, err = gronx.NextTickAfter(expr, start, true)
		}
		if err != nil {
			return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
		}
		if !dag.Catchup {
			latest, err := latestCompleteCronStart(expr, now)
			if err != nil {
				return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
			}
			if latest.After(start) {
				start = latest
			}
		}
		end, err := gronx.NextTickAfter(expr, start, false)
		if err != nil {
			return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
		}
		iv = dataInterval{start, end}
	}
	if dag.EndDate != nil && iv.start.After(*dag.EndDate) {
		return dataInterval{}, false, nil
	}
	if iv.end.After(now) {
		return dataInterval{}, false, nil
	}
	return iv, true, nil
}

// latestCompleteCronStart is the start of the last cron interval that has
// ended by now.
func latestCompleteCronStart(expr string, now time.Time) (time.Time, error) {
	end, err := gronx.PrevTickBefore(expr, now, true)
	if err != nil {
		return time.Time{}, err
	}
	return gronx.PrevTickBefore(expr, end, false)
}

func isDurationSchedule(s string) bool {
	if s == "" || s[0] == '@' {
		return false
	}
	_, err := parseDuration(s)
	return err == nil
}

// createScheduledRuns creates the runs that schedules ask for, for every
// unpaused DAG that is not a sub-DAG (Airflow never schedules those on
// their own), up to max_active_runs.
func (s *scheduler) createScheduledRuns(now time.Time) error {
	rows, err := s.opts.Store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		dag := row.Def
		if dag == nil || row.IsPaused || dag.Schedule == nil || dag.ParentDagID != "" {
			continue
		}
		for {
			created, err := s.createNextRun(dag, now)
			if err != nil {
				s.opts.Logger.Error().Err(err).Str("dag_id", dag.DagID).Msg("create scheduled run")
				break
			}
			if !created {
				break
			}
		}
	}
	return nil
}

// createNextRun creates the DAG's next due run, if any and if the DAG is
// under max_active_runs.
func (s *scheduler) createNextRun(dag *DAG, now time.Time) (bool, error) {
	return s.opts.Store.CreateRun(func(v storeView) (*newRun, error) {
		row, err := v.Dag(dag.DagID)
		if err != nil || row.Def != dag || row.IsPaused {
			return nil, nil
		}
		active := 0
		for _, state := range []RunState{RunQueued, RunRunning} {
			n, err := v.CountRuns(dag.DagID, state)
			if err != nil {
				return nil, err
			}
			active += n
		}
		if active >= dag.MaxActiveRuns {
			return nil, nil
		}
		last, err := v.LastScheduledDate(dag.DagID)
		if err != nil {
			return nil, err
		}
		iv, ok, err := nextInterval(dag, last, now)
		if err != nil || !ok {
			return nil, err
		}
		if _, err := v.RunAt(dag.DagID, iv.start); err == nil {
			return nil, fmt.Errorf("a run already exists at %s, the next scheduled date", isoFormat(iv.start))
		}
		return &newRun{start: s.rules.newRun, dag: dag, runID: "scheduled__" + isoFormat(iv.start), date: iv.start,
			conf: s.rules.emptyConf, now: now, unixname: s.opts.Unixname}, nil
	})
}
