package main

import (
	"errors"
	"testing"
	"time"
)

func TestParseAirflowDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.FixedZone("CEST", 2*3600))
	utc := func(y int, mo time.Month, d, h, mi, s, us int) time.Time {
		return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
	}
	tests := []struct {
		in         string
		want       time.Time
		wantOffset int // seconds east of UTC that the result keeps
	}{
		{"2016-11-16T14:34:15+00:00", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"2016-11-16T14:34:15.123456+00:00", utc(2016, 11, 16, 14, 34, 15, 123456), 0},
		{"2016-11-16T14:34:15.123456+02:00", utc(2016, 11, 16, 12, 34, 15, 123456), 7200},
		{"2016-11-16T14:34:15-05:30", utc(2016, 11, 16, 20, 4, 15, 0), -19800},
		{"2016-11-16T14:34:15+0530", utc(2016, 11, 16, 9, 4, 15, 0), 19800},
		{"2016-11-16T14:34:15-05", utc(2016, 11, 16, 19, 34, 15, 0), -18000},
		{"2016-11-16T14:34:15-00:00", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"2016-11-16T14:34:15Z", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"2016-11-16T14:34:15.5Z", utc(2016, 11, 16, 14, 34, 15, 500000), 0},
		{"2016-11-16T14:34:15,25Z", utc(2016, 11, 16, 14, 34, 15, 250000), 0},
		{"2016-11-16T14:34:15.1234567Z", utc(2016, 11, 16, 14, 34, 15, 123456), 0}, // cut to microseconds
		{"2016-11-16T14:34:15", utc(2016, 11, 16, 14, 34, 15, 0), 0},               // naive: UTC
		{"2016-11-16 14:34:15", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"2016-11-16T14:34", utc(2016, 11, 16, 14, 34, 0, 0), 0},
		{"2016-11-16T14", utc(2016, 11, 16, 14, 0, 0, 0), 0},
		{"2016-11-16", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"  2016-11-16  ", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"20161116T143415", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"20161116T143415+0100", utc(2016, 11, 16, 13, 34, 15, 0), 3600},
		{"20161116", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"2016-W46-3", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"2016W463", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"2016-W46", utc(2016, 11, 14, 0, 0, 0, 0), 0},
		{"2020-W53-7", utc(2021, 1, 3, 0, 0, 0, 0), 0},
		{"2009-W01-1", utc(2008, 12, 29, 0, 0, 0, 0), 0},
		{"2016-321", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"2016321", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"2016-366", utc(2016, 12, 31, 0, 0, 0, 0), 0},
		{"2020-02-29", utc(2020, 2, 29, 0, 0, 0, 0), 0},
		{"now", utc(2024, 5, 1, 8, 0, 0, 123456), 0},
		{"Wed, 16 Nov 2016 14:34:15 +0000", utc(2016, 11, 16, 14, 34, 15, 0), 0},
		{"2016/11/16", utc(2016, 11, 16, 0, 0, 0, 0), 0},
		{"Nov 16 2016", utc(2016, 11, 16, 0, 0, 0, 0), 0},
	}
	for _, tc := range tests {
		got, err := parseAirflowDate(tc.in, now)
		if err != nil {
			t.Errorf("parseAirflowDate(%q): %v", tc.in, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("parseAirflowDate(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if _, off := got.Zone(); off != tc.wantOffset {
			t.Errorf("parseAirflowDate(%q) keeps offset %d, want %d", tc.in, off, tc.wantOffset)
		}
	}
}

func TestParseAirflowDate_Invalid(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "not_a_datetime", "é", "2021-02-30", "2019-02-29", "2021-13-01", "2021-00-10", "2021-04-31",
		"2016-11-16T25:00:00", "2016-11-16T14:60:00", "2016-11-16T14:34:61", "2016-11-16T14:34:15+24:00",
		"2016-11-16T14:34:15+02:60", "2016-W54", "2016-W00-1", "2016-W10-8", "2016-W53", "2016-367", "2015-366",
		"2016-000", "2016-11", "16-11-2016x", "2016-11-16T", "tomorrow", "12345",
	} {
		got, err := parseAirflowDate(in, testNow)
		if err == nil {
			t.Errorf("parseAirflowDate(%q) = %v, want an error", in, got)
			continue
		}
		if !errors.Is(err, errBadDate) {
			t.Errorf("parseAirflowDate(%q) error %v does not wrap errBadDate", in, err)
		}
	}
}

func TestIsoAndStrFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t       time.Time
		iso, py string
	}{
		{time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), "2024-05-01T10:00:00+00:00", "2024-05-01 10:00:00+00:00"},
		{time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC), "2024-05-01T10:00:00.123456+00:00", "2024-05-01 10:00:00.123456+00:00"},
		{time.Date(2024, 5, 1, 10, 0, 0, 1000, time.UTC), "2024-05-01T10:00:00.000001+00:00", "2024-05-01 10:00:00.000001+00:00"},
		{time.Date(2024, 5, 1, 10, 0, 0, 999, time.UTC), "2024-05-01T10:00:00+00:00", "2024-05-01 10:00:00+00:00"}, // below a microsecond
		{time.Date(2016, 11, 16, 14, 34, 15, 0, time.FixedZone("", 7200)), "2016-11-16T14:34:15+02:00", "2016-11-16 14:34:15+02:00"},
		{time.Date(2016, 11, 16, 14, 34, 15, 500000000, time.FixedZone("", -19800)), "2016-11-16T14:34:15.500000-05:30", "2016-11-16 14:34:15.500000-05:30"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "0001-01-01T00:00:00+00:00", "0001-01-01 00:00:00+00:00"},
	}
	for _, tc := range tests {
		if got := isoFormat(tc.t); got != tc.iso {
			t.Errorf("isoFormat(%v) = %q, want %q", tc.t, got, tc.iso)
		}
		if got := strFormat(tc.t); got != tc.py {
			t.Errorf("strFormat(%v) = %q, want %q", tc.t, got, tc.py)
		}
	}
}

func TestPyTimedelta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00:00"},
		{5 * time.Minute, "0:05:00"},
		{90 * time.Minute, "1:30:00"},
		{23*time.Hour + 59*time.Minute + 59*time.Second, "23:59:59"},
		{24 * time.Hour, "1 day, 0:00:00"},
		{49*time.Hour + 500*time.Millisecond, "2 days, 1:00:00.500000"},
		{time.Microsecond, "0:00:00.000001"},
		{time.Nanosecond, "0:00:00"},
		{-5 * time.Minute, "-0:05:00"},
	}
	for _, tc := range tests {
		if got := pyTimedelta(tc.d); got != tc.want {
			t.Errorf("pyTimedelta(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"90s", 90 * time.Second},
		{"1h30m", 90 * time.Minute},
		{"5m", 5 * time.Minute},
		{"200ms", 200 * time.Millisecond},
		{"1d", 24 * time.Hour},
		{"2d12h", 60 * time.Hour},
		{"0:05:00", 5 * time.Minute},
		{"1:30:15.5", time.Hour + 30*time.Minute + 15500*time.Millisecond},
		{"1 day, 0:00:00", 24 * time.Hour},
		{"2 days, 1:00:00", 49 * time.Hour},
		{"300", 5 * time.Minute},
		{"1.5", 1500 * time.Millisecond},
		{" 60 ", time.Minute},
	}
	for _, tc := range tests {
		got, err := parseDuration(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "  ", "soon", "xd", "1d2x", "1:2", "a:b:c", "1 week, 0:00:00", "two days, 0:00:00", "1 day 0:00:00"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, got)
		}
	}
}

// Round trip: what isoFormat writes, parseAirflowDate reads back exactly.
func TestParseAirflowDate_RoundTrip(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Time{
		testNow,
		time.Date(2016, 11, 16, 14, 34, 15, 0, time.FixedZone("", 7200)),
		time.Date(1990, 1, 1, 1, 1, 1, 1000, time.FixedZone("", -3600)),
	} {
		got, err := parseAirflowDate(isoFormat(d), testNow)
		if err != nil || !got.Equal(d) || isoFormat(got) != isoFormat(d) {
			t.Errorf("round trip of %s: %v, %v", isoFormat(d), got, err)
		}
	}
}

// days_ago(n) is today's midnight in UTC, n days back (Airflow 1.10.15
// airflow/utils/dates.py:233-243: utcnow().replace(hour=0, ...) - timedelta(days=n)).
func TestDaysAgo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n    int
		now  time.Time
		want time.Time
	}{
		{2, time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC), time.Date(2024, 4, 29, 0, 0, 0, 0, time.UTC)},
		{0, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)},
		{1, time.Date(2024, 3, 1, 23, 59, 59, 0, time.UTC), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		// The day is UTC's, whatever the offset now is read in.
		{2, time.Date(2024, 5, 1, 1, 0, 0, 0, time.FixedZone("+02:00", 2*3600)), time.Date(2024, 4, 28, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		if got := daysAgo(tc.n, tc.now); !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("daysAgo(%d, %v) = %v, want %v", tc.n, tc.now, got, tc.want)
		}
	}
	for _, text := range []string{"days_ago(2)", "days_ago( 2 )"} {
		dag, err := parseDAGAt([]byte("dag_id: d\nstart_date: "+text+"\ntasks: [{task_id: t, operator: EmptyOperator}]\n"), cases[0].now)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !dag.StartDate.Equal(cases[0].want) {
			t.Errorf("%s: start_date %v, want %v", text, dag.StartDate, cases[0].want)
		}
	}
	if _, err := parseDAG([]byte("dag_id: d\nstart_date: days_ago(x)\ntasks: [{task_id: t, operator: EmptyOperator}]\n")); err == nil {
		t.Error("days_ago(x) accepted")
	}
}
