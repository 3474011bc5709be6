package main

// A cron schedule compiled once per DAG. gronx reads the expression (its
// field syntax, names, L/W/#), but its NextTickAfter/PrevTickBefore
// re-parse every field at every step of their walk: about 300 allocations
// to infer one triggered run's data interval. Here gronx's own checker is
// asked once per minute, hour and month value, and the walk runs on bit
// sets, asking gronx only whether a candidate day matches each day field.
// The two day fields combine as croniter, which Airflow uses, combines
// them (cronDayRule), not by Vixie cron's rule as gronx does.

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/adhocore/gronx"
)

// cronDayRule is how a release's croniter combines a cron expression's
// day-of-month and day-of-week fields (editionRules.cronDays; the zero
// value is Airflow 2's). Airflow calls croniter with day_or=True: a day
// fires when either field matches it, unless one of the two fields is
// `*` as croniter expands it; then the other field alone decides.
type cronDayRule struct {
	// fullFieldIsStar: a day field that lists every value without being
	// `*` (1-31, */1; 0-6, 1-7) counts as `*` (croniter 0.3.36, Airflow
	// 1.10.15); otherwise only when the other day field's text holds a
	// `*` (croniter 5.0.1, Airflow 2.10.3).
	fullFieldIsStar bool
	// croniter is the release that reads the expression: what it takes,
	// and its wrap-around ranges (scheduler_croniter.go).
	croniter croniterRelease
}

// refusal is the text of the import error the release's Airflow records
// for a DAG whose cron expression croniter refuses: CronMixin.validate
// re-raises it as AirflowTimetableInvalid and DagBag writes
// "{type}: {message}" (2.10.3 airflow/timetables/_cron.py:102-106,
// models/dagbag.py:485; c57fba0e timetables/_cron.py:140-144,
// dag_processing/dagbag.py:358); 1.10.15's DagBag writes "Invalid Cron
// expression: " and croniter's message (models/dagbag.py:312-317).
//
// A ValueError is no croniter error: it escapes both and Airflow records
// it as raised (its traceback, of which airlite gives the last line).
func (r cronDayRule) refusal(e *croniterRefusal) string {
	switch {
	case e.class == "ValueError":
		return e.Error()
	case r.croniter == croniter0336:
		return "Invalid Cron expression: " + e.message
	}
	return "AirflowTimetableInvalid: " + e.message
}

// cronSearchDays bounds a search: eight years hold a February 29th
// whichever year a search starts in (2100 is not a leap year; 2096 and
// 2104 are).
const cronSearchDays = 8*366 + 1

// cronSchedule is a five-field cron expression (presets expanded) as bit
// sets of its minutes, hours and months; days are asked of gronx, since
// they depend on the month (L, W, #) and on both day fields.
type cronSchedule struct {
	expr     string
	monthDay string   // the day-of-month field, as gronx reads it
	weekDay  string   // the day-of-week field, as gronx reads it
	days     dayMatch // how the two combine
	minutes  uint64   // bit m: minute m fires
	hours    uint32   // bit h: hour h fires
	months   uint16   // bit m (1-12): month m fires
	// nearest is croniter 6's nW: the weekday nearest day n of the month
	// (n past the month's end: its last day) fires, whatever the day of
	// week says (croniter 6.2.2 croniter.py:653-672, 864-888).
	nearest int
	// loc is the zone whose wall clock the ticks are in (inZone); nil:
	// UTC, where next and prev are the wall clock's own walk.
	loc *time.Location
}

// dayMatch is which of a cron expression's day fields must match a day.
type dayMatch int

const (
	daysBoth        dayMatch = iota // both (one of them is `*` to croniter)
	daysEither                      // either one
	daysWeekdayOnly                 // the day of week alone: its nth weekday (#, L) beside a day of month
)

// cronOf is a DAG's schedule compiled when it is a cron expression or a
// preset: the one parseSchedule kept, or compiled now, with Airflow 2's
// day rule, for a DAG built in Go rather than read from a file. It is nil
// for any other schedule.
func cronOf(dag *DAG) (*cronSchedule, error) {
	if dag == nil || dag.Schedule == nil {
		return nil, nil
	}
	if dag.cron != nil {
		return dag.cron, nil
	}
	s := *dag.Schedule
	if s == "@once" || s == "@continuous" || isDurationSchedule(s) {
		return nil, nil
	}
	c, err := compileCron(s, cronDayRule{})
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", s, err)
	}
	return c, nil
}

// manualInterval is the last complete interval at or before t: the data
// interval Airflow 2's CronDataIntervalTimetable infers for a triggered
// run (infer_manual_data_interval).
func (c *cronSchedule) manualInterval(t time.Time) (dataInterval, error) {
	end, err := c.prev(t, true)
	if err != nil {
		return dataInterval{}, err
	}
	start, err := c.prev(end, false)
	if err != nil {
		return dataInterval{}, err
	}
	return dataInterval{start, end}, nil
}

// cronFields are the five fields of Airflow's cron expressions, by
// gronx's position (0 is the second gronx puts before them).
var cronFields = [6]struct {
	name     string
	min, max int
}{1: {"minute", 0, 59}, 2: {"hour", 0, 23}, 3: {"day of month", 1, 31}, 4: {"month", 1, 12}, 5: {"day of week", 0, 7}}

// compileCron compiles an Airflow schedule that is a cron expression or a
// cron preset. Its errors name the field and say what is wrong with it.
func compileCron(schedule string, days cronDayRule) (*cronSchedule, error) {
	// Airflow's presets become expressions before croniter sees them;
	// croniter reads its own @midnight and @annually (or, 0.3.36,
	// refuses them).
	expr := schedule
	if preset, ok := airflowCronPreset(schedule); ok {
		expr = preset
	}
	// croniter decides what is taken, and how (scheduler_croniter.go);
	// gronx reads what croniter expanded. The day fields as written
	// decide how they combine (match).
	expanded, err := croniterExpand(expr, days.croniter)
	if err != nil {
		return nil, err
	}
	writtenExpr := expr
	if alias, ok := cronPresets[expr]; ok {
		writtenExpr = alias
	}
	written := append([]string{""}, pyFields(writtenExpr)...)
	segs, err := gronx.Segments(strings.Join(expanded.segments[:], " "))
	if err != nil || len(written) != 6 || len(segs) != 6 || segs[0] != "0" {
		return nil, errors.New("want five fields: minute, hour, day of month, month, day of week")
	}
	c := &cronSchedule{expr: writtenExpr, monthDay: segs[3], weekDay: segs[5], nearest: expanded.nearest}
	checker := &gronx.SegmentChecker{}
	// fires asks gronx whether field pos fires at ref. Every value of
	// every field is asked once, so that a bad part of a list is found
	// whichever part comes first.
	fires := func(pos int, ref time.Time) (bool, error) {
		checker.SetRef(ref)
		due, err := checker.CheckDue(segs[pos], pos)
		if err != nil {
			return false, cronFieldError(pos, written[pos], err)
		}
		return due, nil
	}
	for m := 0; m < 60; m++ {
		due, err := fires(1, time.Date(2024, 1, 1, 0, m, 0, 0, time.UTC))
		if err != nil {
			return nil, err
		}
		if due {
			c.minutes |= 1 << m
		}
	}
	for h := 0; h < 24; h++ {
		due, err := fires(2, time.Date(2024, 1, 1, h, 0, 0, 0, time.UTC))
		if err != nil {
			return nil, err
		}
		if due {
			c.hours |= 1 << h
		}
	}
	for m := 1; m <= 12; m++ {
		due, err := fires(4, time.Date(2024, time.Month(m), 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return nil, err
		}
		if due {
			c.months |= 1 << m
		}
	}
	// Days are asked of gronx while searching; here only their syntax,
	// over a month that has 31 days and every weekday.
	for d := 1; d <= 31; d++ {
		day := time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC)
		if _, err := fires(3, day); err != nil {
			return nil, err
		}
		if _, err := fires(5, day); err != nil {
			return nil, err
		}
	}
	if c.minutes == 0 || c.hours == 0 || c.months == 0 {
		return nil, errors.New("it never fires")
	}
	c.days = days.match(c, checker, written[3], written[5])
	return c, nil
}

// match is how the day fields of c combine (their syntax already
// checked), as croniter decides it with day_or=True. The rule is in
// _get_next: croniter 5.0.1 src/croniter/croniter.py:370, 0.3.36
// src/croniter/croniter.py:192. Both passes of its union ask for the nth
// weekday when the day of week names one (5.0.1 croniter.py:675-681,
// 0.3.36 croniter.py:441-447), so beside a day of month it alone decides.
func (r cronDayRule) match(c *cronSchedule, checker *gronx.SegmentChecker, writtenMonthDay, writtenWeekDay string) dayMatch {
	monthDayStar := dayFieldIsStar(c.monthDay) ||
		(allDaysListed(c.monthDay, 3, 31, checker) && (r.fullFieldIsStar || strings.Contains(writtenWeekDay, "*")))
	weekDayStar := dayFieldIsStar(c.weekDay) ||
		(allDaysListed(c.weekDay, 5, 7, checker) && (r.fullFieldIsStar || strings.Contains(writtenMonthDay, "*")))
	switch {
	case monthDayStar || weekDayStar:
		return daysBoth
	case strings.ContainsAny(c.weekDay, "#L"):
		return daysWeekdayOnly
	}
	return daysEither
}

// dayFieldIsStar: croniter expands a day field to `*` when it is `*` or
// `?` (5.0.1 croniter.py:847-856; 0.3.36 refuses `?`) or a list holding
// a `*`, which its sorting puts first, where it looks.
func dayFieldIsStar(seg string) bool {
	for _, part := range strings.Split(seg, ",") {
		if part == "*" || part == "?" {
			return true
		}
	}
	return false
}

// allDaysListed: the day field at gronx's position pos matches each of
// the first n days of January 2024 (its 31 days; its first seven are every
// weekday), with no L, W or #, which croniter does not count as values:
// it lists every value of its field, what croniter's expansion counts
// (LEN_MEANS_ALL: 31 days of month, 7 days of week).
func allDaysListed(seg string, pos, n int, checker *gronx.SegmentChecker) bool {
	if strings.ContainsAny(seg, "LW#") {
		return false
	}
	for d := 1; d <= n; d++ {
		checker.SetRef(time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC))
		if due, err := checker.CheckDue(seg, pos); err != nil || !due {
			return false
		}
	}
	return true
}

// cronFieldError says in plain words what gronx found wrong with a field
// (a cron "field": the word is left out, as Go's decoder uses it).
func cronFieldError(pos int, segment string, err error) error {
	f := cronFields[pos]
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "range"):
		return fmt.Errorf("%s %q has a range outside %d-%d or running backwards", f.name, segment, f.min, f.max)
	case strings.Contains(msg, "out of bounds"):
		return fmt.Errorf("%s %q is outside %d-%d", f.name, segment, f.min, f.max)
	case strings.Contains(msg, "step can't be 0"):
		return fmt.Errorf("%s %q has a step of 0", f.name, segment)
	}
	return fmt.Errorf("%s %q is not a number, a range (1-5), a step (*/15), a list (1,5) or a name (JAN, MON)", f.name, segment)
}

// errCronNoTick is a search that found no tick within cronSearchDays.
var errCronNoTick = errors.New("it never fires (no such date)")

// dayDue reports whether the day of t (UTC midnight) fires.
func (c *cronSchedule) dayDue(checker *gronx.SegmentChecker, day time.Time) bool {
	if c.months&(1<<int(day.Month())) == 0 {
		return false
	}
	if c.nearest > 0 {
		return day.Day() == nearestWeekday(day.Year(), day.Month(), c.nearest)
	}
	checker.SetRef(day)
	monthDay := func() bool {
		due, err := checker.CheckDue(c.monthDay, 3)
		return err == nil && due
	}
	weekDay := func() bool {
		due, err := checker.CheckDue(c.weekDay, 5)
		return err == nil && due
	}
	switch c.days {
	case daysEither:
		return monthDay() || weekDay()
	case daysWeekdayOnly:
		return weekDay()
	}
	return monthDay() && weekDay()
}

// nearestWeekday is the day of the month (year, month) nearest day n,
// Monday to Friday, never in another month; n past the month's end is
// its last day.
func nearestWeekday(year int, month time.Month, n int) int {
	last := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
	day := min(n, last)
	switch time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Weekday() {
	case time.Saturday:
		if day > 1 {
			return day - 1
		}
		return day + 2
	case time.Sunday:
		if day < last {
			return day + 1
		}
		return day - 2
	}
	return day
}

// prev is the latest tick at or before t (incl: Airflow's _align_to_prev)
// or strictly before it (_get_prev), in the schedule's zone.
func (c *cronSchedule) prev(t time.Time, incl bool) (time.Time, error) {
	switch {
	case c.loc == nil:
		return c.wallPrev(t, incl)
	case incl:
		return c.alignInZone(t, false)
	}
	return c.stepInZone(t, false)
}

// next is the earliest tick at or after t (incl: Airflow's
// _align_to_next) or strictly after it (_get_next), in the schedule's
// zone.
func (c *cronSchedule) next(t time.Time, incl bool) (time.Time, error) {
	switch {
	case c.loc == nil:
		return c.wallNext(t, incl)
	case incl:
		return c.alignInZone(t, true)
	}
	return c.stepInZone(t, true)
}

// wallPrev is the latest tick at or before t (incl) or strictly before
// it, to the second, on t's fields read as UTC: what
// gronx.PrevTickBefore answers.
func (c *cronSchedule) wallPrev(t time.Time, incl bool) (time.Time, error) {
	t = t.UTC().Truncate(time.Second)
	if !incl {
		t = t.Add(-time.Second)
	}
	checker := &gronx.SegmentChecker{}
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	maxHour, maxMinute := t.Hour(), t.Minute()
	for i := 0; i < cronSearchDays; i++ {
		if c.dayDue(checker, day) {
			if h, m, ok := c.latestTime(maxHour, maxMinute); ok {
				return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute), nil
			}
		}
		day = day.AddDate(0, 0, -1)
		maxHour, maxMinute = 23, 59
	}
	return time.Time{}, fmt.Errorf("cron %q before %s: %w", c.expr, t.Format(time.RFC3339), errCronNoTick)
}

// wallNext is the earliest tick at or after t (incl) or strictly after
// it, to the second, on t's fields read as UTC: what gronx.NextTickAfter
// answers.
func (c *cronSchedule) wallNext(t time.Time, incl bool) (time.Time, error) {
	t = t.UTC()
	// Ticks fall on second 0: from the next whole minute, unless t is
	// one and may be the answer itself.
	if onMinute := t.Second() == 0 && t.Nanosecond() == 0; !incl || !onMinute {
		t = t.Truncate(time.Minute).Add(time.Minute)
	}
	checker := &gronx.SegmentChecker{}
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	minHour, minMinute := t.Hour(), t.Minute()
	for i := 0; i < cronSearchDays; i++ {
		if c.dayDue(checker, day) {
			if h, m, ok := c.earliestTime(minHour, minMinute); ok {
				return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute), nil
			}
		}
		day = day.AddDate(0, 0, 1)
		minHour, minMinute = 0, 0
	}
	return time.Time{}, fmt.Errorf("cron %q after %s: %w", c.expr, t.Format(time.RFC3339), errCronNoTick)
}

// latestTime is the latest hour:minute that fires at or before
// maxHour:maxMinute within one day.
func (c *cronSchedule) latestTime(maxHour, maxMinute int) (int, int, bool) {
	if c.hours&(1<<maxHour) != 0 {
		if m, ok := highestBitAtMost(c.minutes, maxMinute); ok {
			return maxHour, m, true
		}
	}
	if maxHour == 0 {
		return 0, 0, false
	}
	h, ok := highestBitAtMost(uint64(c.hours), maxHour-1)
	if !ok {
		return 0, 0, false
	}
	m, _ := highestBitAtMost(c.minutes, 59)
	return h, m, true
}

// earliestTime is the earliest hour:minute that fires at or after
// minHour:minMinute within one day.
func (c *cronSchedule) earliestTime(minHour, minMinute int) (int, int, bool) {
	if c.hours&(1<<minHour) != 0 {
		if m, ok := lowestBitAtLeast(c.minutes, minMinute); ok {
			return minHour, m, true
		}
	}
	if minHour == 23 {
		return 0, 0, false
	}
	h, ok := lowestBitAtLeast(uint64(c.hours), minHour+1)
	if !ok {
		return 0, 0, false
	}
	m, _ := lowestBitAtLeast(c.minutes, 0)
	return h, m, true
}

// highestBitAtMost is the highest set bit of set at or below limit.
func highestBitAtMost(set uint64, limit int) (int, bool) {
	masked := set & (uint64(1)<<(limit+1) - 1)
	if masked == 0 {
		return 0, false
	}
	return 63 - bits.LeadingZeros64(masked), true
}

// lowestBitAtLeast is the lowest set bit of set at or above limit.
func lowestBitAtLeast(set uint64, limit int) (int, bool) {
	masked := set >> limit << limit
	if masked == 0 {
		return 0, false
	}
	return bits.TrailingZeros64(masked), true
}
