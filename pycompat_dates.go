package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// errBadDate is wrapped by parseAirflowDate; callers turn it into Airflow's
// "could not be identified as a date" message.
var errBadDate = errors.New("not a date")

var (
	// Calendar date, extended or basic form, then an optional time and offset,
	// as pendulum's ISO 8601 parser reads them.
	isoDateTimeRe = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})` +
		`(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?)?` +
		`\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$`)
	// Ordinal date (2016-321) and week date (2016-W46-3).
	isoOrdinalRe = regexp.MustCompile(`^(\d{4})-?(\d{3})$`)
	isoWeekRe    = regexp.MustCompile(`^(\d{4})-?W(\d{2})(?:-?(\d))?$`)
)

// pendulumYearMonthRe is a year, or a year and month, which pendulum's own
// parsers read before dateutil sees them: as the first day of the year or
// month (dateutil would take the missing fields from today).
var pendulumYearMonthRe = regexp.MustCompile(`^(\d{4})(?:-(\d{2}))?$`)

// parseAirflowDate reads an execution date the way Airflow's
// timezone.parse (pendulum, non-strict) does: ISO 8601 first, then what
// dateutil reads (pycompat_dateutil.go), with today taken from now; "now" is the
// current time; a date without offset is UTC (Airflow's default_timezone).
// The offset the client sent is kept in the result's location, because
// Airflow echoes it back. Precision is microseconds.
func parseAirflowDate(raw string, now time.Time) (time.Time, error) {
	return parseAirflowDateAs(raw, now, false)
}

// parseAirflowDateStrict is timezone.parse(text, strict=True): pendulum's
// ISO 8601 forms and "now" only, no dateutil.
func parseAirflowDateStrict(raw string, now time.Time) (time.Time, error) {
	return parseAirflowDateAs(raw, now, true)
}

func parseAirflowDateAs(raw string, now time.Time, strict bool) (time.Time, error) {
	t, err := parseAnyDate(raw, now, strict)
	if err != nil {
		return t, err
	}
	// Python's datetime holds years 1 to 9999, in the given offset and in
	// UTC (Airflow stores UTC); pendulum refuses the rest.
	if y, u := t.Year(), t.UTC().Year(); y < 1 || y > 9999 || u < 1 || u > 9999 {
		return time.Time{}, fmt.Errorf("parse date %q: year out of range 1..9999: %w", raw, errBadDate)
	}
	return t, nil
}

func parseAnyDate(raw string, now time.Time, strict bool) (time.Time, error) {
	s := strings.TrimSpace(raw)
	if strings.EqualFold(s, "now") {
		return now.UTC().Truncate(time.Microsecond), nil
	}
	if m := isoDateTimeRe.FindStringSubmatch(s); m != nil {
		return isoDateTime(m)
	}
	if m := isoOrdinalRe.FindStringSubmatch(s); m != nil {
		year, _ := strconv.Atoi(m[1])
		day, _ := strconv.Atoi(m[2])
		t := time.Date(year, 1, day, 0, 0, 0, 0, time.UTC)
		if day < 1 || t.Year() != year {
			return time.Time{}, fmt.Errorf("parse date %q: day %d out of range: %w", raw, day, errBadDate)
		}
		return t, nil
	}
	if m := isoWeekRe.FindStringSubmatch(s); m != nil {
		return isoWeekDate(raw, m)
	}
	if m := pendulumYearMonthRe.FindStringSubmatch(s); m != nil {
		year, _ := strconv.Atoi(m[1])
		month := 1
		if m[2] != "" {
			month, _ = strconv.Atoi(m[2])
		}
		if month < 1 || month > 12 {
			return time.Time{}, fmt.Errorf("parse date %q: month %d out of range: %w", raw, month, errBadDate)
		}
		return time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC), nil
	}
	// dateutil reads the text as the client sent it: surrounding
	// whitespace makes tokens of its own.
	if t, ok := parseDateutil(raw, now); ok && !strict {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("parse date %q: %w", raw, errBadDate)
}

func isoDateTime(m []string) (time.Time, error) {
	num := func(s string) int {
		n, _ := strconv.Atoi(s)
		return n
	}
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	hour, minute, sec := num(m[4]), num(m[5]), num(m[6])
	micros := 0
	if frac := m[7]; frac != "" {
		frac = (frac + "000000")[:6] // more digits than microseconds are cut
		micros = num(frac)
	}
	loc := time.UTC
	if off := m[8]; off != "" && off != "Z" && off != "z" {
		digits := strings.ReplaceAll(off[1:], ":", "")
		hours := num(digits[:2])
		mins := 0
		if len(digits) == 4 {
			mins = num(digits[2:])
		}
		if hours > 23 || mins > 59 {
			return time.Time{}, fmt.Errorf("parse date: offset %q out of range: %w", off, errBadDate)
		}
		secs := hours*3600 + mins*60
		if off[0] == '-' {
			secs = -secs
		}
		if secs != 0 {
			loc = time.FixedZone("", secs)
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, micros*1000, loc)
	// time.Date normalises 2021-02-30 to March; pendulum refuses it.
	if t.Year() != year || int(t.Month()) != month || t.Day() != day ||
		t.Hour() != hour || t.Minute() != minute || t.Second() != sec {
		return time.Time{}, fmt.Errorf("parse date: fields out of range: %w", errBadDate)
	}
	return t, nil
}

func isoWeekDate(raw string, m []string) (time.Time, error) {
	year, _ := strconv.Atoi(m[1])
	week, _ := strconv.Atoi(m[2])
	weekday := 1
	if m[3] != "" {
		weekday, _ = strconv.Atoi(m[3])
	}
	if week < 1 || week > 53 || weekday < 1 || weekday > 7 {
		return time.Time{}, fmt.Errorf("parse date %q: week date out of range: %w", raw, errBadDate)
	}
	// ISO week 1 is the week holding January 4th.
	jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
	offset := (int(jan4.Weekday()) + 6) % 7 // days since Monday
	monday := jan4.AddDate(0, 0, -offset)
	t := monday.AddDate(0, 0, (week-1)*7+weekday-1)
	if _, w := t.ISOWeek(); w != week {
		return time.Time{}, fmt.Errorf("parse date %q: week %d out of range: %w", raw, week, errBadDate)
	}
	return t, nil
}

// isoFormat is Python's datetime.isoformat(): microseconds only when
// non-zero, the offset as ±HH:MM, never Z.
func isoFormat(t time.Time) string { return pyDateTime(t, 'T') }

// strFormat is Python's str(datetime): isoformat with a space.
func strFormat(t time.Time) string { return pyDateTime(t, ' ') }

func pyDateTime(t time.Time, sep byte) string {
	var buf [40]byte
	return string(appendPyDateTime(buf[:0], t, sep))
}

// appendPyDateTime appends pyDateTime's text to b.
func appendPyDateTime(b []byte, t time.Time, sep byte) []byte {
	b, ok := appendDateClock(b, t, sep)
	if !ok {
		return append(b, pyDateTimeSlow(t, sep)...)
	}
	_, offset := t.Zone()
	// As Go's "-07:00": whole minutes, truncated toward zero.
	zone, sign := offset/60, byte('+')
	if zone < 0 {
		zone, sign = -zone, '-'
	}
	b = append(b, sign)
	b = append2(b, zone/60, ':')
	b = append2(b, zone%60, 0)
	return b[:len(b)-1]
}

// appendDateClock appends t's date, sep and wall clock, with six digits
// of microseconds when there are some: the part Python's isoformat and
// pydantic's datetimes share, written by hand as time's formatter costs
// the v2 trigger's answer a tenth of its own work (five datetimes). It
// appends nothing and answers false for a year that does not take four
// digits, which the callers give to time's formatter.
func appendDateClock(b []byte, t time.Time, sep byte) ([]byte, bool) {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return b, false
	}
	hour, minute, sec := t.Clock()
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	b = append2(b, int(month), '-')
	b = append2(b, day, sep)
	b = append2(b, hour, ':')
	b = append2(b, minute, ':')
	b = append2(b, sec, 0)
	b = b[:len(b)-1]
	if us := t.Nanosecond() / 1000; us != 0 {
		b = append(b, '.', byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
			byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	}
	return b, true
}

// append2 appends a two-digit number and a separator byte.
func append2(b []byte, n int, sep byte) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10), sep)
}

// pyDateTimeSlow is pyDateTime through time's formatter, for years that
// do not take four digits.
func pyDateTimeSlow(t time.Time, sep byte) string {
	b := make([]byte, 0, 32)
	b = t.AppendFormat(b, "2006-01-02")
	b = append(b, sep)
	b = t.AppendFormat(b, "15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		b = append(b, fmt.Sprintf(".%06d", us)...)
	}
	return string(t.AppendFormat(b, "-07:00"))
}

// pyTimedelta renders a duration as Python's str(timedelta): "0:05:00",
// "1 day, 0:00:00", "2 days, 1:00:00.500000". Python normalises a negative
// delta to -N days plus a positive clock; negative durations never occur
// in definitions, so they keep a readable "-0:05:00".
func pyTimedelta(d time.Duration) string {
	if us := d.Microseconds(); us < 0 {
		return "-" + pyTimedeltaMicros(-us)
	}
	return pyTimedeltaMicros(d.Microseconds())
}

// pyTimedeltaMicros is str(timedelta(microseconds=us)), normalised as
// Python does: "[-]D day[s], H:MM:SS[.ffffff]" with a clock in 0..24h.
func pyTimedeltaMicros(us int64) string {
	const perSecond, perDay = 1_000_000, 86_400 * 1_000_000
	days, rest := us/perDay, us%perDay
	if rest < 0 {
		days--
		rest += perDay
	}
	seconds, micros := rest/perSecond, rest%perSecond
	s := fmt.Sprintf("%d:%02d:%02d", seconds/3600, seconds/60%60, seconds%60)
	if micros != 0 {
		s += fmt.Sprintf(".%06d", micros)
	}
	switch days {
	case 0:
		return s
	case 1, -1:
		return fmt.Sprintf("%d day, %s", days, s)
	}
	return fmt.Sprintf("%d days, %s", days, s)
}

// parseDuration reads the durations of DAG files: Go forms ("90s", "1h30m"),
// days ("1d", "2d12h"), Python's timedelta text ("0:05:00", "1 day, 0:00:00")
// and plain numbers of seconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("parse duration: empty")
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(secs * float64(time.Second)), nil
	}
	if strings.Contains(s, ":") {
		return parseTimedeltaText(s)
	}
	var days time.Duration
	if before, after, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(before)
		if err != nil {
			return 0, fmt.Errorf("parse duration %q: bad day count", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		if after == "" {
			return days, nil
		}
		s = after
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("parse duration: %w", err)
	}
	return days + d, nil
}

func parseTimedeltaText(s string) (time.Duration, error) {
	var days time.Duration
	if before, after, ok := strings.Cut(s, ","); ok {
		fields := strings.Fields(before)
		if len(fields) != 2 || !strings.HasPrefix(fields[1], "day") {
			return 0, fmt.Errorf("parse duration %q: bad day part", s)
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil {
			return 0, fmt.Errorf("parse duration %q: bad day count", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		s = strings.TrimSpace(after)
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("parse duration %q: want H:MM:SS", s)
	}
	h, errH := strconv.Atoi(parts[0])
	m, errM := strconv.Atoi(parts[1])
	sec, errS := strconv.ParseFloat(parts[2], 64)
	if errH != nil || errM != nil || errS != nil {
		return 0, fmt.Errorf("parse duration %q: want H:MM:SS", s)
	}
	return days + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(sec*float64(time.Second)), nil
}

// daysAgoRe is the relative start date of Airflow 1.10's examples,
// days_ago(n) from airflow.utils.dates.
var daysAgoRe = regexp.MustCompile(`^days_ago\(\s*(\d{1,4})\s*\)$`)

// daysAgo is Airflow 1.10.15's days_ago(n) at now (airflow/utils/dates.py:233):
// today's midnight in UTC, n days back.
func daysAgo(n int, now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n) * 24 * time.Hour)
}
