package main

// A cron schedule in a DAG's time zone. Airflow 2.10.3 and 3.2.1 make a
// DAG's cron timetable in the DAG's zone (the start_date's, else [core]
// default_timezone, utc: 2.10.3 models/dag.py:616-628,695; c57fba0e
// task-sdk/src/airflow/sdk/definitions/dag.py:664-679, :130-152), and its
// CronMixin steps the zone's wall clock with croniter (2.10.3
// airflow/timetables/_cron.py:106-148; c57fba0e airflow-core/src/airflow/
// timetables/_cron.py:149-193).

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // zones for time.LoadLocation where the machine has no zoneinfo
)

// DagTimezone is a DAG's time zone as Airflow serializes it
// (encode_timezone, serialization/encoders.py:109-131 of c57fba0e): an
// IANA name, or for a fixed offset other than UTC's, its seconds east of
// UTC (Name ""). A DAG whose Timezone is nil is in UTC.
type DagTimezone struct {
	Name   string `json:",omitempty"`
	Offset int    `json:",omitempty"`
	loc    *time.Location
}

// parseDagZone reads a serialized DAG's timezone: a name, a number of
// seconds, or null and "" (Airflow's default zone, UTC), which give nil.
func parseDagZone(raw json.RawMessage) (*DagTimezone, error) {
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("read timezone %s: %w", raw, err)
		}
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if v == "" || v == "UTC" {
			return nil, nil
		}
		loc, err := time.LoadLocation(v)
		if err != nil {
			return nil, fmt.Errorf("timezone %q: %w", v, err)
		}
		return &DagTimezone{Name: v, loc: loc}, nil
	case float64:
		secs := int(v)
		if float64(secs) != v {
			return nil, fmt.Errorf("timezone %s: want whole seconds", raw)
		}
		if secs == 0 {
			return nil, nil
		}
		return &DagTimezone{Offset: secs, loc: time.FixedZone(fixedZoneName(secs), secs)}, nil
	}
	return nil, fmt.Errorf("timezone %s: want a name or an offset in seconds", raw)
}

// fixedZoneName is pendulum's name of a fixed offset: "+02:00", "-04:30".
func fixedZoneName(secs int) string {
	sign := '+'
	if secs < 0 {
		sign, secs = '-', -secs
	}
	return fmt.Sprintf("%c%02d:%02d", sign, secs/3600, secs/60%60)
}

// location is the zone (nil: UTC).
func (z *DagTimezone) location() *time.Location {
	if z == nil {
		return nil
	}
	return z.loc
}

// String is the zone as Airflow's APIs show a DAG's timezone, str() of
// pendulum 3's zone (2.10.3 TimezoneField, a marshmallow String; 3.2.1
// DAGDetailsResponse.get_timezone): the name of a named zone, the repr of
// a fixed one (FixedTimezone(7200, name="+02:00")).
func (z *DagTimezone) String() string {
	switch {
	case z == nil:
		return "UTC"
	case z.Name != "":
		return z.Name
	}
	return fmt.Sprintf("FixedTimezone(%d, name=%q)", z.Offset, fixedZoneName(z.Offset))
}

// inZone is c ticking in loc's wall clock (nil or UTC: c itself).
func (c *cronSchedule) inZone(loc *time.Location) *cronSchedule {
	if loc == nil || loc == time.UTC {
		return c
	}
	z := *c
	z.loc = loc
	return &z
}

// everyHour: the hour field fires at every hour, which croniter expands
// to `*`; Airflow then moves the instant by as much as the wall clock
// moved, so such a schedule keeps its pace through a DST change
// (_covers_every_hour, _cron.py:34-59 of c57fba0e).
func (c *cronSchedule) everyHour() bool { return c.hours == 1<<24-1 }

// stepInZone is _get_next (forwards) or _get_prev: croniter's tick after
// (before) t's wall clock in c.loc, placed in the zone.
func (c *cronSchedule) stepInZone(t time.Time, forwards bool) (time.Time, error) {
	local := t.In(c.loc)
	// The wall clock, without the zone or its fold (make_naive).
	naive := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(),
		local.Nanosecond(), time.UTC)
	var tick time.Time
	var err error
	if forwards {
		tick, err = c.wallNext(naive, false)
	} else {
		tick, err = c.wallPrev(naive, false)
	}
	if err != nil {
		return time.Time{}, err
	}
	if c.everyHour() {
		return t.Add(tick.Sub(naive)).UTC(), nil
	}
	return placeWallClock(tick, c.loc), nil
}

// placeWallClock is the instant at wall clock w (its fields read as they
// stand) in loc, as Airflow's make_aware places it: with fold=1 through
// pendulum 3's Timezone.convert (pendulum tz/timezone.py), so a time that
// a move forward skipped is moved forward by the gap and a time that a
// move back repeats is its second occurrence.
func placeWallClock(w time.Time, loc *time.Location) time.Time {
	// The offsets either side of any change near w (zones change at most
	// a few times a year, never twice in two days).
	_, before := w.Add(-36 * time.Hour).In(loc).Zone()
	_, after := w.Add(36 * time.Hour).In(loc).Zone()
	asIf := func(off int) time.Time { return w.Add(-time.Duration(off) * time.Second) }
	holds := func(off int) bool { _, o := asIf(off).In(loc).Zone(); return o == off }
	switch {
	case holds(after):
		return asIf(after).UTC() // the only reading, or the second of two
	case holds(before):
		return asIf(before).UTC()
	}
	// Skipped: moved forward by the gap, read after the change; the same
	// instant as the wall clock read with the offset before it.
	return asIf(before).UTC()
}

// alignInZone is _align_to_next (forwards) or _align_to_prev: t itself
// when the step past t and back returns to t, else that step.
func (c *cronSchedule) alignInZone(t time.Time, forwards bool) (time.Time, error) {
	first, err := c.stepInZone(t, forwards)
	if err != nil {
		return time.Time{}, err
	}
	back, err := c.stepInZone(first, !forwards)
	if err != nil && !errors.Is(err, errCronNoTick) {
		return time.Time{}, err
	}
	if err == nil && back.Equal(t) {
		return t.UTC(), nil
	}
	return first, nil
}
