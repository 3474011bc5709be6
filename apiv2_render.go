package main

// Answers of the v2 dialect as pydantic 2 serializes Airflow's response
// models: datetimes in RFC 3339 with "Z" for UTC and microseconds only
// when there are some (pydantic-core's speedate rendering), null for
// absent values.

import (
	"time"
)

// v2When is a datetime field of a response model.
type v2When time.Time

// v2Time renders t as pydantic does: 2026-11-26T17:57:58Z, or
// 2026-11-26T17:57:58.123456Z with a fraction.
func v2Time(t time.Time) string {
	return string(appendV2Time(nil, t))
}

// appendV2Time appends v2Time's text to b.
func appendV2Time(b []byte, t time.Time) []byte {
	t = t.UTC()
	if b, ok := appendDateClock(b, t, 'T'); ok {
		return append(b, 'Z')
	}
	if t.Nanosecond()/1000 != 0 {
		return t.AppendFormat(b, "2006-01-02T15:04:05.000000Z")
	}
	return t.AppendFormat(b, "2006-01-02T15:04:05Z")
}

// MarshalText renders the datetime as pydantic does, for encoding/json to
// quote: a text marshaler's output is quoted as it is, where a JSON
// marshaler's is scanned again (the v2 answers hold several dates).
func (w v2When) MarshalText() ([]byte, error) {
	return appendV2Time(make([]byte, 0, len("2006-01-02T15:04:05.000000Z")), time.Time(w)), nil
}

// v2Zoned is a datetime field whose value keeps the offset it was given
// (an ORM object answered before it is read back): pydantic writes a
// zero offset as "Z" and any other as ±HH:MM.
type v2Zoned time.Time

// MarshalText renders the datetime with its own offset.
func (w v2Zoned) MarshalText() ([]byte, error) {
	t := time.Time(w)
	if _, offset := t.Zone(); offset == 0 {
		return v2When(t).MarshalText()
	}
	if t.Nanosecond()/1000 != 0 {
		return t.AppendFormat(nil, "2006-01-02T15:04:05.000000-07:00"), nil
	}
	return t.AppendFormat(nil, "2006-01-02T15:04:05-07:00"), nil
}

// v2At is a nullable datetime field: nil for a nil or zero time.
func v2At(t *time.Time) *v2When {
	if t == nil || t.IsZero() {
		return nil
	}
	w := v2When(*t)
	return &w
}

// v2Window is the page of rows a limit and an offset ask for (for lists
// the store cannot page itself).
func v2Window[T any](rows []T, p page) []T {
	if p.offset >= len(rows) {
		return []T{}
	}
	rows = rows[p.offset:]
	if p.limit < len(rows) {
		rows = rows[:p.limit]
	}
	return rows
}
