package main

// Timetables a Python DAG file gives as objects (schedule=
// CronTriggerTimetable(...), EventsTimetable(...) ...), planned as
// Airflow's classes plan them (next_dagrun_info, infer_manual_data_interval):
// 2.10.3 airflow/timetables/ and c57fba0e airflow-core/src/airflow/
// timetables/ (trigger.py, interval.py, events.py, assets.py). A schedule
// string, and an object equal to what the edition makes of one, stay a
// DAG's Schedule (scheduler_timetable.go); these are the others.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// timetableKind is which of Airflow's timetable classes a DAG's object is.
type timetableKind int

const (
	ttCronTrigger  timetableKind = iota + 1 // CronTriggerTimetable
	ttDeltaTrigger                          // DeltaTriggerTimetable (Airflow 3)
	ttMultiCron                             // MultipleCronTriggerTimetable (Airflow 3)
	ttCronData                              // CronDataIntervalTimetable
	ttDeltaData                             // DeltaDataIntervalTimetable
	ttEvents                                // EventsTimetable
)

// timetableKinds are the classes airlite runs, by class name; the time
// part of DatasetOrTimeSchedule and AssetOrTimeSchedule is one of them.
var timetableKinds = map[string]timetableKind{
	"CronTriggerTimetable": ttCronTrigger, "DeltaTriggerTimetable": ttDeltaTrigger,
	"MultipleCronTriggerTimetable": ttMultiCron, "CronDataIntervalTimetable": ttCronData,
	"DeltaDataIntervalTimetable": ttDeltaData, "EventsTimetable": ttEvents,
}

// timetableSpec is a timetable object as the file serialized it: its
// class name and its serialize() (compiled by compileTimetable once the
// edition's cron rules are known).
type timetableSpec struct {
	Kind string
	Var  json.RawMessage
}

// dagTimetable is a timetable object compiled: what its class needs to
// plan runs.
type dagTimetable struct {
	kind      timetableKind
	crons     []*cronSchedule // cron kinds, ticking in the timetable's zone
	delta     calDelta        // delta kinds: the step
	interval  calDelta        // trigger kinds: the data interval before a fire time
	immediate runImmediately  // cron trigger kinds
	events    []time.Time     // sorted
	restrict  bool            // EventsTimetable's restrict_to_events
}

// timetableVar is the union of the serialized forms airlite reads.
type timetableVar struct {
	Expression     string          `json:"expression"`
	Expressions    []string        `json:"expressions"`
	Timezone       json.RawMessage `json:"timezone"`
	Interval       json.RawMessage `json:"interval"`
	Delta          json.RawMessage `json:"delta"`
	RunImmediately json.RawMessage `json:"run_immediately"`
	EventDates     []string        `json:"event_dates"`
	Restrict       bool            `json:"restrict_to_events"`
}

// compileTimetable compiles spec with the edition's day rule.
func compileTimetable(spec *timetableSpec, days cronDayRule) (*dagTimetable, error) {
	kind, ok := timetableKinds[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("timetable %s: airlite does not run it", spec.Kind)
	}
	var v timetableVar
	if err := json.Unmarshal(spec.Var, &v); err != nil {
		return nil, fmt.Errorf("read %s: %w", spec.Kind, err)
	}
	tt := &dagTimetable{kind: kind, restrict: v.Restrict}
	var err error
	if len(v.Interval) > 0 {
		if tt.interval, err = parseCalDelta(v.Interval); err != nil {
			return nil, fmt.Errorf("%s interval: %w", spec.Kind, err)
		}
	}
	switch kind {
	case ttDeltaTrigger, ttDeltaData:
		if tt.delta, err = parseCalDelta(v.Delta); err != nil {
			return nil, fmt.Errorf("%s delta: %w", spec.Kind, err)
		}
	case ttEvents:
		for _, s := range v.EventDates {
			at, err := parsePyISO(s)
			if err != nil {
				return nil, fmt.Errorf("%s event %q: %w", spec.Kind, s, err)
			}
			tt.events = append(tt.events, at)
		}
		slices.SortFunc(tt.events, time.Time.Compare)
	default:
		exprs := v.Expressions
		if kind != ttMultiCron {
			exprs = []string{v.Expression}
		}
		zone, err := parseDagZone(v.Timezone)
		if err != nil {
			return nil, err
		}
		for _, e := range exprs {
			c, err := compileCron(e, days)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", spec.Kind, e, err)
			}
			tt.crons = append(tt.crons, c.inZone(zone.location()))
		}
		if tt.immediate, err = parseRunImmediately(v.RunImmediately); err != nil {
			return nil, fmt.Errorf("%s run_immediately: %w", spec.Kind, err)
		}
	}
	return tt, nil
}

// parseRunImmediately reads encode_run_immediately's form: a bool, or a
// timedelta's seconds (c57fba0e serialization/encoders.py:140-143).
func parseRunImmediately(raw json.RawMessage) (runImmediately, error) {
	var v any
	if len(raw) == 0 {
		return runImmediately{}, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return runImmediately{}, err
	}
	switch v := v.(type) {
	case nil:
		return runImmediately{}, nil
	case bool:
		return runImmediately{always: v}, nil
	case float64:
		d := time.Duration(v * float64(time.Second)).Round(time.Microsecond)
		return runImmediately{within: &d}, nil
	}
	return runImmediately{}, fmt.Errorf("%s: want a bool or seconds", raw)
}

// parsePyISO reads a Python datetime's isoformat (or str()): "T" or a
// space between date and time, an offset or none (read as UTC).
func parsePyISO(s string) (time.Time, error) {
	s = strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{"2006-01-02T15:04:05.999999Z07:00", "2006-01-02T15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("want an ISO 8601 date and time")
}

// fires are a trigger kind's fire times (cron kinds: the first cron's).
func (tt *dagTimetable) fires(i int) fireTimes {
	if tt.kind == ttDeltaTrigger {
		return calFires{tt.delta}
	}
	return cronFires{c: tt.crons[i], immediate: tt.immediate}
}

// scheduledInterval is the data interval of the automated run the
// timetable dated logical: the run's logical date is its interval's start
// (DagRunInfo.logical_date), so a trigger run ends its interval later, at
// its fire time. A relativedelta interval is added back, which for a
// start clipped to a month's end (31 March less a month) ends early.
func (tt *dagTimetable) scheduledInterval(logical time.Time) dataInterval {
	switch tt.kind {
	case ttCronTrigger, ttDeltaTrigger, ttMultiCron:
		return dataInterval{logical, tt.interval.add(logical, 1)}
	case ttCronData:
		if end, err := tt.crons[0].next(logical, false); err == nil {
			return dataInterval{logical, end}
		}
	case ttDeltaData:
		return dataInterval{logical, tt.delta.add(logical, 1)}
	}
	return dataInterval{logical, logical}
}

// manualInterval is infer_manual_data_interval for a run triggered at
// runAfter (2.10.3 and c57fba0e: trigger.py _TriggerTimetable and
// MultipleCronTriggerTimetable, whose timetables share one interval;
// interval.py; events.py).
func (tt *dagTimetable) manualInterval(runAfter time.Time) dataInterval {
	switch tt.kind {
	case ttCronTrigger, ttDeltaTrigger, ttMultiCron:
		return dataInterval{tt.interval.add(runAfter, -1), runAfter}
	case ttCronData:
		if iv, err := tt.crons[0].manualInterval(runAfter); err == nil {
			return iv
		}
	case ttDeltaData:
		return dataInterval{tt.delta.add(runAfter, -1), runAfter}
	case ttEvents:
		if !tt.restrict || len(tt.events) == 0 {
			break
		}
		if runAfter.Before(tt.events[0]) {
			return dataInterval{tt.events[0], tt.events[0]}
		}
		i, _ := slices.BinarySearchFunc(tt.events, runAfter, func(e, t time.Time) int {
			if e.After(t) {
				return 1
			}
			return -1
		})
		return dataInterval{tt.events[i-1], tt.events[i-1]}
	}
	return dataInterval{runAfter, runAfter}
}

// nextRun is next_dagrun_info: the data interval of the run after the
// automated one dated last (nil: none), with the restriction's earliest
// (the DAG's start_date), latest (end) and catchup, asked at now. The run
// is dated at the interval's start and due at its end. ok is false when
// the timetable wants no (more) runs.
func (tt *dagTimetable) nextRun(last, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (dataInterval, bool, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var lastIv *dataInterval
	if last != nil {
		iv := tt.scheduledInterval(*last)
		lastIv = &iv
	}
	switch tt.kind {
	case ttCronTrigger, ttDeltaTrigger:
		return tt.nextTrigger(0, lastIv, earliest, catchup, now, end)
	case ttMultiCron:
		return tt.nextMultiCron(lastIv, earliest, catchup, now, end)
	case ttEvents:
		return tt.nextEvent(lastIv, earliest, catchup, now, end)
	}
	return tt.nextDataInterval(lastIv, earliest, catchup, now, end)
}

// nextTrigger is _TriggerTimetable.next_dagrun_info (c57fba0e
// trigger.py:76-104; 2.10.3 trigger.py:96-122) for the i-th cron: the
// fire time, less the interval for the start.
func (tt *dagTimetable) nextTrigger(i int, last *dataInterval, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (dataInterval, bool, error) {
	var lastFire *time.Time
	if last != nil {
		lastFire = &last.end
	}
	fire, ok, err := nextFire(tt.fires(i), lastFire, earliest, catchup, now, end)
	if err != nil || !ok {
		return dataInterval{}, false, err
	}
	return dataInterval{tt.interval.add(fire, -1), fire}, true, nil
}

// nextMultiCron is MultipleCronTriggerTimetable.next_dagrun_info
// (c57fba0e trigger.py:299-360): each cron's next run; with catchup the
// earliest logical date, without it the latest one not after now, else
// the earliest one after now.
func (tt *dagTimetable) nextMultiCron(last *dataInterval, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (dataInterval, bool, error) {
	var best dataInterval
	bestKey, found := math.Inf(1), false
	for i := range tt.crons {
		iv, ok, err := tt.nextTrigger(i, last, earliest, catchup, now, end)
		if err != nil {
			return dataInterval{}, false, err
		}
		if !ok {
			continue
		}
		key := float64(iv.start.UnixMicro())
		if !catchup && !iv.start.After(now) {
			key = -key
		}
		if !found || key < bestKey {
			best, bestKey, found = iv, key, true
		}
	}
	return best, found, nil
}

// nextEvent is EventsTimetable.next_dagrun_info (events.py:82-106 of
// c57fba0e, 2.10.3 the same): the first event at or after earliest (now
// without catchup, when later) and after the last run's.
func (tt *dagTimetable) nextEvent(last *dataInterval, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (dataInterval, bool, error) {
	if !catchup && (earliest == nil || now.After(*earliest)) {
		earliest = &now
	}
	for _, ev := range tt.events {
		if earliest != nil && ev.Before(*earliest) {
			continue
		}
		if last != nil && !ev.After(last.end) {
			continue
		}
		if end != nil && ev.After(*end) {
			return dataInterval{}, false, nil
		}
		return dataInterval{ev, ev}, true, nil
	}
	return dataInterval{}, false, nil
}

// nextDataInterval is _DataIntervalTimetable.next_dagrun_info
// (interval.py:80-112 of c57fba0e, 2.10.3 the same): without catchup,
// earliest moves up to the latest complete interval (_skip_to_latest);
// the run after the last starts where the last ended, aligned.
func (tt *dagTimetable) nextDataInterval(last *dataInterval, earliest *time.Time, catchup bool, now time.Time, end *time.Time) (dataInterval, bool, error) {
	var err error
	if earliest != nil {
		e := earliest.UTC()
		earliest = &e
	}
	switch {
	case !catchup:
		var e time.Time
		if e, err = tt.skipToLatest(earliest, now); err != nil {
			return dataInterval{}, false, err
		}
		earliest = &e
	case earliest != nil:
		var e time.Time
		if e, err = tt.align(*earliest, true); err != nil {
			return dataInterval{}, false, err
		}
		earliest = &e
	}
	var start time.Time
	switch {
	case last == nil && earliest == nil:
		return dataInterval{}, false, nil
	case last == nil:
		start = *earliest
	default:
		if start, err = tt.align(last.end, false); err != nil {
			return dataInterval{}, false, err
		}
		if earliest != nil && earliest.After(start) {
			start = *earliest
		}
	}
	if end != nil && start.After(*end) {
		return dataInterval{}, false, nil
	}
	stop, err := tt.step(start, 1)
	if err != nil {
		return dataInterval{}, false, err
	}
	return dataInterval{start, stop}, true, nil
}

// step is _get_next (sign 1) or _get_prev (-1) of a data-interval kind.
func (tt *dagTimetable) step(t time.Time, sign int) (time.Time, error) {
	if tt.kind == ttDeltaData {
		return tt.delta.add(t, sign), nil
	}
	if sign > 0 {
		return tt.crons[0].next(t, false)
	}
	return tt.crons[0].prev(t, false)
}

// align is _align_to_next (forwards) or _align_to_prev: a delta aligns
// every time (DeltaMixin).
func (tt *dagTimetable) align(t time.Time, forwards bool) (time.Time, error) {
	if tt.kind == ttDeltaData {
		return t, nil
	}
	if forwards {
		return tt.crons[0].next(t, true)
	}
	return tt.crons[0].prev(t, true)
}

// skipToLatest is _skip_to_latest: for a cron, the start of the latest
// complete interval (the one starting now when now is a tick); for a
// delta, one step before now rounded down to a multiple of the step since
// the epoch (interval.py:140-160 and 199-230 of c57fba0e). Never before
// earliest (a cron's aligned).
func (tt *dagTimetable) skipToLatest(earliest *time.Time, now time.Time) (time.Time, error) {
	var start time.Time
	if tt.kind == ttDeltaData {
		start = tt.delta.add(tt.delta.round(now), -1)
		if earliest != nil && earliest.After(start) {
			start = *earliest
		}
		return start, nil
	}
	c := tt.crons[0]
	lastStart, err := c.prev(now, false)
	if err != nil {
		return time.Time{}, err
	}
	nextStart, err := c.next(lastStart, false)
	if err != nil {
		return time.Time{}, err
	}
	start = lastStart
	if !nextStart.Equal(now) {
		if start, err = c.prev(lastStart, false); err != nil {
			return time.Time{}, err
		}
	}
	if earliest != nil {
		e, err := c.next(*earliest, true)
		if err != nil {
			return time.Time{}, err
		}
		if e.After(start) {
			start = e
		}
	}
	return start, nil
}

// calFires are DeltaTriggerTimetable's fire times for a timedelta or a
// relativedelta (DeltaMixin, timetables/_delta.py of c57fba0e): a step is
// the delta, every time is aligned, and without a start_date the first
// run is now.
type calFires struct{ d calDelta }

func (f calFires) after(t time.Time) (time.Time, error)      { return f.d.add(t, 1), nil }
func (f calFires) atOrAfter(t time.Time) (time.Time, error)  { return t, nil }
func (f calFires) atOrBefore(t time.Time) (time.Time, error) { return t, nil }
func (f calFires) first(now time.Time) (time.Time, error)    { return now, nil }

// calDelta is a timedelta (rel nil) or a dateutil relativedelta.
type calDelta struct {
	d   time.Duration
	rel *relDelta
}

// relDelta is a relativedelta as Airflow encodes it (encode_relativedelta:
// its set fields; relativedelta keeps them normalized): relative fields
// added, absolute ones (year ... microsecond, nil: unset) replacing, and a
// weekday to move to.
type relDelta struct {
	years, months, days, leapdays, hours, minutes, seconds, microseconds int
	year, month, day, hour, minute, second, microsecond                  *int
	weekday                                                              *[2]int // [weekday (Monday 0), n (0: none)]
}

// parseCalDelta reads encode_interval's form: seconds, or a relativedelta's
// fields.
func parseCalDelta(raw json.RawMessage) (calDelta, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return calDelta{}, err
	}
	switch v := v.(type) {
	case float64:
		return calDelta{d: time.Duration(v * float64(time.Second)).Round(time.Microsecond)}, nil
	case map[string]any:
		r := &relDelta{}
		rel := map[string]*int{"years": &r.years, "months": &r.months, "days": &r.days, "leapdays": &r.leapdays,
			"hours": &r.hours, "minutes": &r.minutes, "seconds": &r.seconds, "microseconds": &r.microseconds}
		abs := map[string]**int{"year": &r.year, "month": &r.month, "day": &r.day, "hour": &r.hour,
			"minute": &r.minute, "second": &r.second, "microsecond": &r.microsecond}
		for k, val := range v {
			if k == "weekday" {
				wd, ok := val.([]any)
				if !ok || len(wd) == 0 {
					return calDelta{}, fmt.Errorf("relativedelta weekday %v", val)
				}
				w := [2]int{}
				for i, x := range wd[:min(2, len(wd))] {
					f, ok := x.(float64)
					if !ok {
						return calDelta{}, fmt.Errorf("relativedelta weekday %v", val)
					}
					w[i] = int(f)
				}
				r.weekday = &w
				continue
			}
			f, ok := val.(float64)
			if !ok || f != math.Trunc(f) {
				return calDelta{}, fmt.Errorf("relativedelta %s=%v: want a whole number", k, val)
			}
			n := int(f)
			switch {
			case rel[k] != nil:
				*rel[k] = n
			case abs[k] != nil:
				*abs[k] = &n
			default:
				return calDelta{}, fmt.Errorf("relativedelta field %q", k)
			}
		}
		return calDelta{rel: r}, nil
	}
	return calDelta{}, fmt.Errorf("%s: want seconds or a relativedelta", raw)
}

// add is t plus the delta (sign 1) or minus it (-1), in UTC.
func (c calDelta) add(t time.Time, sign int) time.Time {
	if c.rel == nil {
		return t.Add(time.Duration(sign) * c.d)
	}
	return c.rel.addTo(t.UTC(), sign)
}

// round is DeltaDataIntervalTimetable._round: t rounded down to a whole
// number of the delta since the epoch, a relativedelta counted as years
// of 365 days and months of 30 (interval.py:186-197 of c57fba0e).
func (c calDelta) round(t time.Time) time.Time {
	d := c.d
	if r := c.rel; r != nil {
		d = time.Duration(r.years*365+r.months*30+r.days)*24*time.Hour +
			time.Duration(r.hours)*time.Hour + time.Duration(r.minutes)*time.Minute + time.Duration(r.seconds)*time.Second
	}
	if d <= 0 {
		return t
	}
	return alignToEpoch(t, d)
}

// addTo is dateutil's relativedelta.__add__ (its __neg__ first for sign
// -1, which negates the relative fields): years and months first, the day
// clipped to the month's length, the absolute fields, then days and time,
// then the weekday.
func (r *relDelta) addTo(t time.Time, sign int) time.Time {
	or := func(p *int, v int) int {
		if p != nil {
			return *p
		}
		return v
	}
	year := or(r.year, t.Year()) + sign*r.years
	month := or(r.month, int(t.Month()))
	if r.months != 0 {
		month += sign * r.months
		if month > 12 {
			year, month = year+1, month-12
		} else if month < 1 {
			year, month = year-1, month+12
		}
	}
	last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	day := min(last, or(r.day, t.Day()))
	days := sign * r.days
	if r.leapdays != 0 && month > 2 && (year%4 == 0 && (year%100 != 0 || year%400 == 0)) {
		days += sign * r.leapdays
	}
	out := time.Date(year, time.Month(month), day, or(r.hour, t.Hour()), or(r.minute, t.Minute()),
		or(r.second, t.Second()), or(r.microsecond, t.Nanosecond()/1000)*1000, time.UTC)
	out = out.Add(time.Duration(days)*24*time.Hour + time.Duration(sign)*(time.Duration(r.hours)*time.Hour+
		time.Duration(r.minutes)*time.Minute+time.Duration(r.seconds)*time.Second+time.Duration(r.microseconds)*time.Microsecond))
	if r.weekday != nil {
		wd, nth := r.weekday[0], r.weekday[1]
		if nth == 0 {
			nth = 1
		}
		jump := (abs(nth) - 1) * 7
		cur := (int(out.Weekday()) + 6) % 7 // Python's weekday(): Monday 0
		if nth > 0 {
			jump += ((7-cur+wd)%7 + 7) % 7
		} else {
			jump = -(jump + ((cur-wd)%7+7)%7)
		}
		out = out.AddDate(0, 0, jump)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
