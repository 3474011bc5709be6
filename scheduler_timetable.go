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

// plannedInterval returns the next interval a DAG's schedule asks a run
// for, due or not, after the run whose logical date is last (nil: no
// scheduled run yet), as Airflow 1.10's and 2's timetables compute it:
// cron intervals run tick to tick, a duration runs from start_date in
// steps, @once runs once at start_date. Without catchup only the latest
// complete interval is taken; for a duration that is the one ending at
// now rounded down to a multiple of the duration since the Unix epoch
// when epochAligned (Airflow 2), else the one ending at now (1.10). No
// interval starts after end (nil: never; editionRules.scheduleEnd says
// where a DAG's schedule ends). ok is false when there is nothing (more)
// to schedule. The interval is what Airflow writes in DagModel's
// next_dagrun fields when it creates the latest run (2.10.3
// models/dag.py:4180 calculate_dagrun_date_fields); the run is due once
// its end has passed.
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
	if dag != nil && dag.timetable != nil {
		if scheduled {
			return dag.timetable.scheduledInterval(date)
		}
		return dag.timetable.manualInterval(date)
	}
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
// (editionRules.scheduledRuns).
//
// Airflow 1.10 and 2 date it at its interval's start and run it once the
// interval has passed; its id is the logical date, its interval follows
// from the schedule when read. Airflow 3 (triggerTimetable) reads a cron
// expression or preset as a CronTriggerTimetable and a duration as a
// DeltaTriggerTimetable ([scheduler] create_cron_data_intervals and
// create_delta_data_intervals both default to False:
// airflow-core/src/airflow/config_templates/config.yml:2561-2597 of the
// 3.2.0-era main Phinhas214/airflow c57fba0e): the run is dated at the
// time it fires, which is also its run_after, and its data interval is
// that instant (the timetables' interval defaults to timedelta(0),
// timetables/trigger.py:101-104,125,188). Airflow 3 stores the interval,
// names the run after its run_after (Timetable.generate_run_id,
// timetables/base.py:325-340) and records that the timetable triggered
// it.
type scheduledRunRule struct {
	triggerTimetable bool
}

// plannedRun is the run a DAG's schedule wants next, due or not: what
// Airflow writes in DagModel's next_dagrun fields (next_dagrun, its data
// interval, next_dagrun_create_after).
type plannedRun struct {
	logical  time.Time
	interval dataInterval
	runAfter time.Time // due once now reaches it
}

// plannedRun is the run dag's schedule wants after its last run dated
// last (nil: none yet; schedulingRules.lastRun says which runs count),
// asked at now, as the release's timetables
// plan it (Airflow 3.2.1: DagModel.calculate_dagrun_date_fields,
// models/dag.py:728-770 of c57fba0e, from the timetable's next
// DagRunInfo; 2.10.3 models/dag.py:4180). ok is false when the schedule
// wants no (more) runs.
func (r *schedulingRules) plannedRun(dag *DAG, last *time.Time, now time.Time) (plannedRun, bool, error) {
	if tt := dag.timetable; tt != nil {
		iv, ok, err := tt.nextRun(last, dag.scheduleStart(), dag.Catchup, now, r.scheduleEnd(dag))
		return plannedRun{logical: iv.start, interval: iv, runAfter: iv.end}, ok, err
	}
	if dag.Schedule == nil {
		return plannedRun{}, false, nil
	}
	if r.scheduledRuns.triggerTimetable && *dag.Schedule != "@once" {
		at, ok, err := triggerNext(dag, last, now, r.scheduleEnd(dag))
		return plannedRun{logical: at, interval: dataInterval{at, at}, runAfter: at}, ok, err
	}
	iv, ok, err := plannedInterval(dag, last, now, r.deltaEpochAligned, r.scheduleEnd(dag))
	return plannedRun{logical: iv.start, interval: iv, runAfter: iv.end}, ok, err
}

// triggerNext is when Airflow 3's trigger timetable for dag's schedule
// fires next after the automated run that fired at last (nil: none yet),
// asked at now (_TriggerTimetable.next_dagrun_info, timetables/
// trigger.py:76-104 of c57fba0e; the restriction's earliest is the
// DAG's start_date, its latest the schedule's end, end).
//
// With catchup it is the fire time after last, else start_date's first
// fire time. Without, it is the latest of now's last fire time, the one
// after last and start_date's first. A DAG without a start_date (Airflow
// 3 allows one without catchup) fires first as _calc_first_run says.
// None fires after end.
func triggerNext(dag *DAG, last *time.Time, now time.Time, end *time.Time) (time.Time, bool, error) {
	fires, err := fireTimesOf(dag)
	if err != nil {
		return time.Time{}, false, err
	}
	next, ok, err := nextFire(fires, last, dag.scheduleStart(), dag.Catchup, now, end)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("schedule %q: %w", *dag.Schedule, err)
	}
	return next, ok, nil
}

// nextFire is triggerNext's walk over fires: the fire time after the
// automated run that fired at last (nil: none), the restriction's earliest
// (nil: none) and catchup, asked at now; ok is false past end.
func nextFire(fires fireTimes, last, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (time.Time, bool, error) {
	now = now.UTC().Truncate(time.Microsecond) // Python's datetimes hold microseconds
	var next time.Time
	var err error
	latest := func(t time.Time, err error) error {
		if err == nil && t.After(next) {
			next = t
		}
		return err
	}
	switch {
	case catchup && last != nil:
		next, err = fires.after(*last)
	case catchup && earliest == nil:
		next, err = fires.first(now)
	case catchup:
		next, err = fires.atOrAfter(earliest.UTC())
	case last != nil && onTime(fires, *last, now):
		next, err = fires.after(*last)
	default:
		next, err = fires.atOrBefore(now)
		if err == nil && last != nil {
			err = latest(fires.after(*last))
		} else if err == nil && earliest == nil {
			err = latest(fires.first(now))
		}
		if err == nil && earliest != nil {
			err = latest(fires.atOrAfter(earliest.UTC()))
		}
	}
	if err != nil {
		return time.Time{}, false, err
	}
	if end != nil && end.Before(next) {
		return time.Time{}, false, nil
	}
	return next, true, nil
}

// parseInterval is how often Airflow's DAG processor reads a file again
// ([dag_processor] min_file_process_interval, 30 s by default), working
// out each DAG's next_dagrun from its clock at that time
// (dag_processing/collection.py:617-619 of c57fba0e).
const parseInterval = 30 * time.Second

// onTime reports whether the fire time after last is at most a parse
// interval behind now. Airflow works out next_dagrun when it makes a run,
// and again at each parse, from the clock at that time: the run after
// last is stored as that fire time, and the scheduler makes it within a
// second or so, before a parse could move it to its own clock. airlite
// plans at each pass from now, so without this a duration's run would be
// dated at the pass (a little after its time) and each later one would
// drift by as much. A run longer overdue (airlite stopped, the clock
// moved on) is dated now, as a parse in between would have it.
func onTime(fires fireTimes, last, now time.Time) bool {
	due, err := fires.after(last)
	return err == nil && !now.After(due.Add(parseInterval))
}

// fireTimes are when a trigger timetable fires: the alignments and steps
// _TriggerTimetable.next_dagrun_info asks its mixin for.
type fireTimes interface {
	after(t time.Time) (time.Time, error)      // _get_next: the fire time after t
	atOrAfter(t time.Time) (time.Time, error)  // _align_to_next: t when it is one
	atOrBefore(t time.Time) (time.Time, error) // _align_to_prev: t when it is one
	first(now time.Time) (time.Time, error)    // _calc_first_run, without a start_date
}

// fireTimesOf is the trigger timetable of dag's schedule: a duration's
// DeltaTriggerTimetable or a cron expression's CronTriggerTimetable.
func fireTimesOf(dag *DAG) (fireTimes, error) {
	sched := *dag.Schedule
	if dag.cron == nil && isDurationSchedule(sched) {
		d, _ := parseDuration(sched)
		if d <= 0 {
			return nil, fmt.Errorf("schedule %q: duration must be positive", sched)
		}
		return deltaFires(d), nil
	}
	cron, err := cronOf(dag)
	if err != nil {
		return nil, err
	}
	if cron == nil {
		return nil, fmt.Errorf("schedule %q: airlite does not schedule it", sched)
	}
	return cronFires{c: cron}, nil
}

// deltaFires is DeltaTriggerTimetable's (DeltaMixin, timetables/
// _delta.py:61-71): a step is the duration, every time is aligned, and
// without a start_date the first run is now (trigger.py:147-148).
type deltaFires time.Duration

func (d deltaFires) after(t time.Time) (time.Time, error)      { return t.Add(time.Duration(d)), nil }
func (d deltaFires) atOrAfter(t time.Time) (time.Time, error)  { return t, nil }
func (d deltaFires) atOrBefore(t time.Time) (time.Time, error) { return t, nil }
func (d deltaFires) first(now time.Time) (time.Time, error)    { return now, nil }

// cronFires is CronTriggerTimetable's (CronMixin, timetables/_cron.py):
// the ticks of its expression. immediate is its run_immediately.
type cronFires struct {
	c         *cronSchedule
	immediate runImmediately
}

// runImmediately is CronTriggerTimetable's run_immediately (Airflow 3):
// always (True) the tick before now first, or within a span of it (a
// timedelta); the zero value (False, the default) within a tenth of the
// gap between ticks, five minutes at least (trigger.py:216-237 of
// c57fba0e, where False and None take the same branch).
type runImmediately struct {
	always bool
	within *time.Duration
}

func (f cronFires) after(t time.Time) (time.Time, error)      { return f.c.next(t, false) }
func (f cronFires) atOrAfter(t time.Time) (time.Time, error)  { return f.c.next(t, true) }
func (f cronFires) atOrBefore(t time.Time) (time.Time, error) { return f.c.prev(t, true) }

// first is _calc_first_run (trigger.py:216-237): the tick before now when
// run_immediately says so, else the tick after.
func (f cronFires) first(now time.Time) (time.Time, error) {
	past, err := f.c.prev(now, true)
	if err != nil || f.immediate.always {
		return past, err
	}
	next, err := f.c.next(now, true)
	if err != nil {
		return time.Time{}, err
	}
	buffer := max(next.Sub(past)/10, 5*time.Minute)
	if f.immediate.within != nil {
		buffer = *f.immediate.within
	}
	if now.Sub(past) <= buffer {
		return past, nil
	}
	return next, nil
}

// scheduledForm is a scheduled run as the rule dates it.
type scheduledForm struct {
	logical, runAfter time.Time // runAfter zero: the logical date
	interval          *dataInterval
	runID             string
	runType           string // "": from the run id
	triggeredBy       string
}

// form is the run the schedule creates for p.
func (r scheduledRunRule) form(p plannedRun) scheduledForm {
	if !r.triggerTimetable {
		return scheduledForm{logical: p.logical, runID: "scheduled__" + isoFormat(p.logical)}
	}
	iv := p.interval
	return scheduledForm{logical: p.logical, runAfter: p.runAfter, interval: &iv, runType: "scheduled",
		triggeredBy: "timetable", runID: "scheduled__" + isoFormat(p.runAfter)}
}
