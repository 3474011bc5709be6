package main

import (
	"fmt"
	"slices"
	"time"
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
// the one ending at now (1.10). No interval starts after end (nil: never;
// editionRules.scheduleEnd says where a DAG's schedule ends). ok is false
// when there is nothing (more) to schedule, or the interval is not due
// yet (its end has not passed).
func nextInterval(dag *DAG, last *time.Time, now time.Time, epochAligned bool, end *time.Time) (dataInterval, bool, error) {
	iv, ok, err := plannedInterval(dag, last, now, epochAligned, end)
	if err != nil || !ok || iv.end.After(now) {
		return dataInterval{}, false, err
	}
	return iv, true, nil
}

// plannedInterval is nextInterval whether or not the interval is due:
// what Airflow writes in DagModel's next_dagrun fields when it creates
// the latest run (2.10.3 models/dag.py:4180 calculate_dagrun_date_fields).
func plannedInterval(dag *DAG, last *time.Time, now time.Time, epochAligned bool, end *time.Time) (dataInterval, bool, error) {
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
		cron, err := cronOf(dag)
		if err != nil {
			return dataInterval{}, false, err
		}
		if cron == nil {
			return dataInterval{}, false, fmt.Errorf("schedule %q: airlite does not schedule it", sched)
		}
		if last != nil {
			start, err = cron.next(*last, false)
		} else {
			start, err = cron.next(start, true)
		}
		if err != nil {
			return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
		}
		if !dag.Catchup {
			latest, err := cron.manualInterval(now)
			if err != nil {
				return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
			}
			if latest.start.After(start) {
				start = latest.start
			}
		}
		end, err := cron.next(start, false)
		if err != nil {
			return dataInterval{}, false, fmt.Errorf("schedule %q: %w", sched, err)
		}
		iv = dataInterval{start, end}
	}
	if end != nil && iv.start.After(*end) {
		return dataInterval{}, false, nil
	}
	return iv, true, nil
}

// inferDataInterval is the data interval of a run dated date that was
// stored without one: the schedule's interval from date for a scheduled
// run, and for a triggered one what Airflow 2's timetables infer
// (infer_manual_data_interval): the last complete cron interval, the
// duration before date; date itself without a regular schedule.
func inferDataInterval(dag *DAG, date time.Time, scheduled bool) dataInterval {
	exact := dataInterval{date, date}
	if dag == nil || dag.Schedule == nil {
		return exact
	}
	// A schedule compiled as cron when the DAG was read is not a duration
	// (validateSchedule tries that first): skip parsing it again.
	if sched := *dag.Schedule; dag.cron == nil && isDurationSchedule(sched) {
		d, _ := parseDuration(sched)
		if scheduled {
			return dataInterval{date, date.Add(d)}
		}
		return dataInterval{date.Add(-d), date}
	}
	cron, err := cronOf(dag)
	if err != nil || cron == nil {
		return exact
	}
	if scheduled {
		end, err := cron.next(date, false)
		if err != nil {
			return exact
		}
		return dataInterval{date, end}
	}
	iv, err := cron.manualInterval(date)
	if err != nil {
		return exact
	}
	return iv
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

// taskEndDates are the end dates of dag's tasks as Airflow's DAG.add_task
// leaves them: capped by the DAG's end_date, the DAG's when the task has
// none (Airflow 2.10.3 airflow/models/dag.py:2832-2837, 1.10.15
// airflow/models/dag.py:1328-1333). all is false when a task has none.
func taskEndDates(dag *DAG) (ends []time.Time, all bool) {
	all = true
	for _, t := range dag.Tasks {
		end := t.EndDate
		if end == nil || (dag.EndDate != nil && dag.EndDate.Before(*end)) {
			end = dag.EndDate
		}
		if end == nil {
			all = false
			continue
		}
		ends = append(ends, *end)
	}
	return ends, all
}

// scheduleEnd2 is where Airflow 2.10.3 ends a DAG's schedule: at its
// end_date, or when it has none and every task has one, at the latest
// task end_date (DAG._time_restriction, airflow/models/dag.py:1213-1219).
func scheduleEnd2(dag *DAG) *time.Time {
	if dag.EndDate != nil {
		return dag.EndDate
	}
	ends, all := taskEndDates(dag)
	if !all || len(ends) == 0 {
		return nil
	}
	latest := slices.MaxFunc(ends, time.Time.Compare)
	return &latest
}

// scheduleEnd110 is where Airflow 1.10.15 ends a DAG's schedule: at the
// earliest end_date of the DAG or any of its tasks (create_dag_run,
// airflow/jobs/scheduler_job.py:737,742-747).
func scheduleEnd110(dag *DAG) *time.Time {
	ends, _ := taskEndDates(dag)
	if dag.EndDate != nil {
		ends = append(ends, *dag.EndDate)
	}
	if len(ends) == 0 {
		return nil
	}
	earliest := slices.MinFunc(ends, time.Time.Compare)
	return &earliest
}

// scheduledRunRule is how a release dates the run its schedule creates
// for an interval (editionRules.scheduledRuns).
//
// Airflow 1.10 and 2 date it at the interval's start and run it once the
// interval has passed; its id is the logical date, its interval follows
// from the schedule when read. Airflow 3 (triggerTimetable) reads a cron
// expression or preset as a CronTriggerTimetable ([scheduler]
// create_cron_data_intervals is False from 3.0): the run is dated at the
// tick it runs at, its data interval the instant; a duration keeps its
// DeltaDataIntervalTimetable, dated at the interval's start and run after
// its end. Either way Airflow 3 stores the interval, names the run after
// its run_after (Timetable.generate_run_id,
// airflow-core/src/airflow/timetables/base.py) and records that the
// timetable triggered it.
type scheduledRunRule struct {
	triggerTimetable bool
}

// scheduledForm is a scheduled run as the rule dates it.
type scheduledForm struct {
	logical, runAfter time.Time // runAfter zero: the logical date
	interval          *dataInterval
	runID             string
	runType           string // "": from the run id
	triggeredBy       string
}

// form is the run the schedule creates for iv.
func (r scheduledRunRule) form(dag *DAG, iv dataInterval) scheduledForm {
	if !r.triggerTimetable {
		return scheduledForm{logical: iv.start, runID: "scheduled__" + isoFormat(iv.start)}
	}
	f := scheduledForm{logical: iv.start, runAfter: iv.end, interval: &iv, runType: "scheduled", triggeredBy: "timetable"}
	if cron, err := cronOf(dag); err == nil && cron != nil {
		f.logical, f.interval = iv.end, &dataInterval{iv.end, iv.end}
	}
	f.runID = "scheduled__" + isoFormat(f.runAfter)
	return f
}

// lastStart is the start of the interval whose run is dated last, which
// the planner (nextInterval) counts from: a CronTriggerTimetable's run is
// dated at its interval's end, the tick after the start.
func (r scheduledRunRule) lastStart(dag *DAG, last *time.Time) *time.Time {
	if !r.triggerTimetable || last == nil {
		return last
	}
	cron, err := cronOf(dag)
	if err != nil || cron == nil {
		return last
	}
	start, err := cron.prev(*last, false)
	if err != nil {
		return last
	}
	return &start
}
