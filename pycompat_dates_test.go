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
		"2016-000", "16-11-2016x", "tomorrow", "12345", "2016-13", "2016-00", "May 1 2024 x", "Feb 30 2024",
		"2024-05-01 10:00 +2400", "nan", "utc",
		// JavaScript's Date.toString(): dateutil refuses the zone's long name.
		"Wed May 01 2024 12:00:00 GMT+0200 (Central European Summer Time)",
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

// The loose forms clients send, read through the whole of timezone.parse
// (Airflow 2.10.3 airflow/utils/timezone.py:197-207 and Airflow 1.10.15
// airflow/utils/timezone.py:174-180: pendulum.parse, non-strict): what
// pendulum's own parsers take first, then dateutil. Today is testNow's
// date, 2024-05-01.
func TestParseAirflowDate_LooseForms(t *testing.T) {
	t.Parallel()
	utc := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	tests := []struct {
		in         string
		want       time.Time
		wantOffset int
	}{
		{"2024-05-01 10:00:00 UTC", utc(2024, 5, 1, 10, 0, 0), 0},
		{"2024-05-01T10:00:00 UTC", utc(2024, 5, 1, 10, 0, 0), 0},
		// dateutil reads GMT+0200 as POSIX does: the local time plus two
		// hours is GMT.
		{"Wed May 01 2024 12:00:00 GMT+0200", utc(2024, 5, 1, 14, 0, 0), -7200},
		{"Wed, 01 May 2024 12:00:00 +0200", utc(2024, 5, 1, 10, 0, 0), 7200},
		{"May 1 2024 10:00", utc(2024, 5, 1, 10, 0, 0), 0},
		{"05/01/2024 10:00", utc(2024, 5, 1, 10, 0, 0), 0},
		{"2024/05/01 10:00", utc(2024, 5, 1, 10, 0, 0), 0},
		{"2024.05.01", utc(2024, 5, 1, 0, 0, 0), 0},
		{"2024-5-1", utc(2024, 5, 1, 0, 0, 0), 0},
		{"Wednesday, May 1, 2024 10:00 AM", utc(2024, 5, 1, 10, 0, 0), 0},
		{"Wednesday, May 1, 2024 10:00 PM", utc(2024, 5, 1, 22, 0, 0), 0},
		{"1st of May 2024 10am", utc(2024, 5, 1, 10, 0, 0), 0},
		{"10:30", utc(2024, 5, 1, 10, 30, 0), 0},                  // today
		{"Friday", utc(2024, 5, 3, 0, 0, 0), 0},                   // the next Friday from today
		{"June 2024", utc(2024, 6, 1, 0, 0, 0), 0},                // today's day of the month
		{"5/1/24", utc(2005, 1, 24, 0, 0, 0), 0},                  // pendulum asks for yearfirst
		{"2024-05-01 10:00:00 EST", utc(2024, 5, 1, 10, 0, 0), 0}, // an unknown zone name is ignored
		{"2016-11-16T", utc(2016, 11, 16, 0, 0, 0), 0},            // T is a word dateutil skips
		// pendulum's ISO parser reads a year, or a year and month, as
		// their first day (pendulum 3.0.0 rust/src/parsing.rs:302-327;
		// pendulum 1.4.4 pendulum/parsing/parser.py:135-147).
		{"2016-11", utc(2016, 11, 1, 0, 0, 0), 0},
		{"2024", utc(2024, 1, 1, 0, 0, 0), 0},
	}
	for _, tc := range tests {
		got, err := parseAirflowDate(tc.in, testNow)
		if err != nil {
			t.Errorf("parseAirflowDate(%q): %v", tc.in, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("parseAirflowDate(%q) = %v, want %v", tc.in, got.UTC(), tc.want)
		}
		if _, off := got.Zone(); off != tc.wantOffset {
			t.Errorf("parseAirflowDate(%q) keeps offset %d, want %d", tc.in, off, tc.wantOffset)
		}
	}
}

// The ISO form is what clients send nearly always; it is read before any
// loose form is tried.
func BenchmarkParseAirflowDate(b *testing.B) {
	for _, in := range []string{"2024-05-01T10:00:00+00:00", "Wed, 01 May 2024 10:00:00 GMT"} {
		b.Run(in, func(b *testing.B) {
			for b.Loop() {
				if _, err := parseAirflowDate(in, testNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A loose date goes through the API as Airflow takes it: the trigger
// echoes it in the client's offset (Airflow 2.10.3
// airflow/www/api/experimental/endpoints.py:106-111,138-140), a path finds
// the run by the same instant in another form, and a time alone is on the
// server's today, the fake clock's under --clock fake.
func TestServer_LooseDates(t *testing.T) {
	t.Parallel()
	const dag = "example_bash_operator"
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(time.Date(2024, 7, 31, 8, 0, 0, 0, time.UTC))
			ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }))
			got := ts.trigger(t, dag, `{"execution_date": "Wed May 01 2024 12:00:00 GMT+0200"}`)
			if got["execution_date"] != "2024-05-01T12:00:00-02:00" || got["run_id"] != "manual__2024-05-01T12:00:00-02:00" {
				t.Errorf("trigger answered %v, want 12:00 at -02:00 (14:00 UTC)", got)
			}
			res := ts.do(t, "GET", apiPrefix+"/dags/"+dag+"/dag_runs/2024-05-01%2014:00:00%20UTC", "")
			if res.status != 200 {
				t.Errorf("run state by a loose date: %d %s", res.status, res.body)
			}
			got = ts.trigger(t, dag, `{"execution_date": "10:30"}`)
			if got["execution_date"] != "2024-07-31T10:30:00+00:00" {
				t.Errorf("a time alone: %v, want today (the fake clock's) at 10:30 UTC", got["execution_date"])
			}
		})
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
