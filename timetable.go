package main

import (
	"fmt"
	"time"

	"github.com/adhocore/gronx"
)

// The timetables: when a DAG's schedule wants its next run, as Airflow's
// timetables compute it. The scheduler (createScheduledRuns) asks.

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
// Without catchup only the latest complete interval is taken; for a
// duration that is the one ending at now rounded down to a multiple of
// the duration since the Unix epoch when epochAligned (Airflow 2), else
// the one ending at now (1.10). ok is false when there is nothing (more)
// to schedule.
func nextInterval(dag *DAG, last *time.Time, now time.Time, epochAligned bool) (dataInterval, bool, error) {
	first := dag.scheduleStart()
	if dag.Schedule == nil || first == nil {
		return dataInterval{}, false, nil
	}
	sched := *dag.Schedule
	start := first.UTC()
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
			end := now
			if epochAligned {
				end = alignToEpoch(now, d)
			}
			if latest := end.Add(-d); latest.After(start) {
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

// alignToEpoch rounds t down to a whole number of d since the Unix epoch,
// as Airflow 2's DeltaDataIntervalTimetable._round does, so that the
// latest interval does not move with the wall clock.
func alignToEpoch(t time.Time, d time.Duration) time.Time {
	off := t.Sub(time.Unix(0, 0)) % d
	if off < 0 {
		off += d
	}
	return t.Add(-off)
}
