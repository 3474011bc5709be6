package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/adhocore/gronx"
)

// cronExpressions are Airflow's presets and the cron forms DAG authors
// write, with gronx's L, W and #: only those on which croniter's day rule
// (TestCronSchedule_DayRule) and gronx's Vixie cron rule agree, since
// gronx is the reference here. They part when a day field starts with `*`
// but is not `*` (*/2) beside a restricted other field, when a field lists
// every value without `*` (1-31, 0-6), and with a day of month beside #.
var cronExpressions = []string{
	"@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly",
	"0 0 * * *", "*/5 * * * *", "30 6 * * 1-5", "15 14 1 * *", "0 22 * * 1-5",
	"23 0-20/2 * * *", "5 4 * * sun", "0 0,12 1 */2 *", "0 0 13 * 5", "0 0 31 * *",
	"59 23 * * 6", "0 12 * JAN,JUL *", "*/7 */5 */3 * *", "0 0 L * *",
	"0 0 * * 1#2", "0 0 29 2 *", "1-3 * * * *", "0 0 * * 7", "45 23 28-31 * *",
}

// TestCronSchedule_MatchesGronx compares the compiled schedule with
// gronx's own walk (what airlite asked before) at random instants, and
// checks each answer against gronx.IsDue, the expression's definition:
// the answer fires, and no minute between the instant and it does.
func TestCronSchedule_MatchesGronx(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, schedule := range cronExpressions {
		c, err := compileCron(schedule, edition2.rules().cronDays)
		if err != nil {
			t.Fatalf("compileCron(%q): %v", schedule, err)
		}
		for i := 0; i < 60; i++ {
			at := base.Add(time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour)))).Truncate(time.Second)
			if i%4 == 0 {
				at = at.Truncate(time.Hour) // on a tick, often
			}
			for _, incl := range []bool{true, false} {
				got, err := c.prev(at, incl)
				if err != nil {
					t.Fatalf("%q prev(%s, %v): %v", schedule, at, incl, err)
				}
				if want, werr := gronx.PrevTickBefore(c.expr, at, incl); werr == nil && !want.Equal(got) {
					t.Errorf("%q prev(%s, %v) = %s, gronx says %s", schedule, at, incl, got, want)
				}
				checkAnswer(t, c, at, got, incl, false)
				got, err = c.next(at, incl)
				if err != nil {
					t.Fatalf("%q next(%s, %v): %v", schedule, at, incl, err)
				}
				if want, werr := gronx.NextTickAfter(c.expr, at, incl); werr == nil && !want.Equal(got) {
					t.Errorf("%q next(%s, %v) = %s, gronx says %s", schedule, at, incl, got, want)
				}
				checkAnswer(t, c, at, got, incl, true)
			}
		}
	}
}

// checkAnswer checks a search's answer against gronx.IsDue: it fires, it
// lies on the right side of the instant searched from (or on it, incl),
// and no whole minute strictly between them fires (checked when they are
// at most three hours apart: gronx is slow under -race).
func checkAnswer(t *testing.T, c *cronSchedule, at, answer time.Time, incl, forwards bool) {
	t.Helper()
	g := gronx.New()
	if due, err := g.IsDue(c.expr, answer); !due || answer.Second() != 0 {
		t.Fatalf("%q from %s: answer %s does not fire (%v)", c.expr, at, answer, err)
	}
	from, to := answer, at.Truncate(time.Second)
	if forwards {
		from, to = to, answer
	}
	if to.Before(from) || (!incl && to.Equal(from)) {
		t.Fatalf("%q from %s (incl %v, forwards %v): answer %s on the wrong side", c.expr, at, incl, forwards, answer)
	}
	if to.Sub(from) > 3*time.Hour {
		return
	}
	for m := from.Truncate(time.Minute).Add(time.Minute); m.Before(to); m = m.Add(time.Minute) {
		if due, _ := g.IsDue(c.expr, m); due {
			t.Fatalf("%q from %s (incl %v, forwards %v): %s fires, before answer %s", c.expr, at, incl, forwards, m, answer)
		}
	}
}

// TestCronSchedule_DayRule: the day-of-month and day-of-week fields
// combine as croniter combines them with day_or=True, Airflow's use
// (Airflow 2.10.3 airflow/timetables/_cron.py:109,119; 1.10.15
// airflow/models/dag.py:421,449): either field matching fires, unless one
// of them expands to `*`. croniter 5.0.1 (constraints-2.10.3) and 0.3.36
// (constraints-1.10.15) differ only on a field that lists every value.
// Rows without a croniter test are worked out from its source, cited.
func TestCronSchedule_DayRule(t *testing.T) {
	t.Parallel()
	airflow2, airflow110 := edition2.rules().cronDays, edition110.rules().cronDays
	both := []cronDayRule{airflow2, airflow110}
	day := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name     string
		expr     string
		rules    []cronDayRule
		from     time.Time
		forwards bool
		want     []time.Time // the ticks after (or before) from, in order
	}{
		// croniter 5.0.1 src/croniter/tests/test_croniter.py:214-220: odd days
		// or Saturdays (gronx: odd Saturdays). 0.3.36 the same (croniter.py:192).
		{"step beside weekday, next", "0 16 */2 * sat", both, day(2023, 5, 2, 0), true,
			[]time.Time{day(2023, 5, 3, 16), day(2023, 5, 5, 16), day(2023, 5, 6, 16), day(2023, 5, 7, 16)}},
		{"step beside weekday, prev", "0 16 */2 * sat", both, day(2023, 5, 8, 0), false,
			[]time.Time{day(2023, 5, 7, 16), day(2023, 5, 6, 16), day(2023, 5, 5, 16), day(2023, 5, 3, 16), day(2023, 5, 1, 16)}},
		// The same rule: odd days or Mondays, where gronx has odd Mondays.
		{"odd days or Mondays", "0 0 */2 * 1", both, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 3, 0), day(2024, 1, 5, 0), day(2024, 1, 7, 0), day(2024, 1, 8, 0), day(2024, 1, 9, 0)}},
		// croniter 5.0.1 src/croniter/tests/test_croniter.py:156-169, 0.3.36
		// src/croniter/tests/test_croniter.py:148-161: the 1st or Wednesdays.
		{"day or weekday", "0 0 1 * wed", both, day(2010, 1, 25, 0), true,
			[]time.Time{day(2010, 1, 27, 0), day(2010, 2, 1, 0), day(2010, 2, 3, 0)}},
		{"Friday or the 13th", "0 0 13 * 5", both, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 5, 0), day(2024, 1, 12, 0), day(2024, 1, 13, 0), day(2024, 1, 19, 0)}},
		{"last day or Friday", "0 0 L * 5", both, day(2024, 1, 25, 0), true,
			[]time.Time{day(2024, 1, 26, 0), day(2024, 1, 31, 0), day(2024, 2, 2, 0)}},
		// A field that lists every value: croniter 0.3.36 makes it `*`
		// (croniter.py:618-619), so the other field alone decides; 5.0.1
		// only beside a `*` (croniter.py:1000-1008, its test at
		// test_croniter.py:349-357), so here either field matching fires:
		// every day.
		{"every day listed beside Monday, 2.10.3", "0 0 1-31 * 1", []cronDayRule{airflow2}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 2, 0), day(2024, 1, 3, 0), day(2024, 1, 4, 0)}},
		{"every day listed beside Monday, 1.10.15", "0 0 1-31 * 1", []cronDayRule{airflow110}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 8, 0), day(2024, 1, 15, 0), day(2024, 1, 22, 0)}},
		{"every day listed beside Monday, 1.10.15, prev", "0 0 1-31 * 1", []cronDayRule{airflow110}, day(2024, 1, 10, 0), false,
			[]time.Time{day(2024, 1, 8, 0), day(2024, 1, 1, 0), day(2023, 12, 25, 0)}},
		{"every day by step beside Monday, 2.10.3", "0 0 */1 * 1", []cronDayRule{airflow2}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 2, 0), day(2024, 1, 3, 0), day(2024, 1, 4, 0)}},
		{"every day by step beside Monday, 1.10.15", "0 0 */1 * 1", []cronDayRule{airflow110}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 8, 0), day(2024, 1, 15, 0), day(2024, 1, 22, 0)}},
		{"every weekday listed beside the 15th, 2.10.3", "0 0 15 * 0-6", []cronDayRule{airflow2}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 2, 0), day(2024, 1, 3, 0), day(2024, 1, 4, 0)}},
		{"every weekday listed beside the 15th, 1.10.15", "0 0 15 * 1-7", []cronDayRule{airflow110}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 15, 0), day(2024, 2, 15, 0), day(2024, 3, 15, 0)}},
		// Beside a `*` both releases make every weekday `*`: odd days.
		{"every weekday by step beside a step", "0 0 */2 * */1", both, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 3, 0), day(2024, 1, 5, 0), day(2024, 1, 7, 0)}},
		// `?` is `*` (croniter 5.0.1 croniter.py:847-856; 0.3.36 refuses it).
		{"question mark", "0 0 ? * 1", []cronDayRule{airflow2}, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 8, 0), day(2024, 1, 15, 0), day(2024, 1, 22, 0)}},
		// An nth weekday: croniter's pass for the day of month still asks
		// for the nth weekday (5.0.1 croniter.py:675-681, 0.3.36
		// croniter.py:441-447), so the union is the nth weekday alone:
		// second Mondays, not the 10th or second Mondays.
		{"nth weekday beside a day", "0 0 10 * 1#2", both, day(2024, 1, 1, 0), true,
			[]time.Time{day(2024, 1, 8, 0), day(2024, 2, 12, 0), day(2024, 3, 11, 0)}},
	} {
		for _, rule := range tc.rules {
			c, err := compileCron(tc.expr, rule)
			if err != nil {
				t.Fatalf("%s: compileCron(%q): %v", tc.name, tc.expr, err)
			}
			at := tc.from
			for i, want := range tc.want {
				step := c.prev
				if tc.forwards {
					step = c.next
				}
				got, err := step(at, false)
				if err != nil || !got.Equal(want) {
					t.Errorf("%s (full field is star: %v): tick %d from %s = %s, %v; want %s", tc.name, rule.fullFieldIsStar, i+1, at, got, err, want)
					break
				}
				at = got
			}
		}
	}
}

// TestCronSchedule_CroniterGolden compares the schedule's ticks with
// croniter's own, asked by scripts/croniter_golden.py for every pairing of
// day-of-month and day-of-week forms it lists (testdata/croniter_days_golden.jsonl):
// croniter 5.0.1 with Airflow 2.10.3's rule, 0.3.36 with 1.10.15's.
func TestCronSchedule_CroniterGolden(t *testing.T) {
	t.Parallel()
	rules := map[string]cronDayRule{"5.0.1": edition2.rules().cronDays, "0.3.36": edition110.rules().cronDays}
	f, err := os.Open("testdata/croniter_days_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			Croniter string      `json:"croniter"`
			Expr     string      `json:"expr"`
			From     time.Time   `json:"from"`
			Next     bool        `json:"next"`
			Ticks    []time.Time `json:"ticks"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("golden line %q: %v", sc.Text(), err)
		}
		rule, ok := rules[row.Croniter]
		if !ok {
			t.Fatalf("golden line %q: no rule for croniter %s", sc.Text(), row.Croniter)
		}
		rows++
		c, err := compileCron(row.Expr, rule)
		if err != nil {
			t.Errorf("croniter %s: compileCron(%q): %v", row.Croniter, row.Expr, err)
			continue
		}
		step := c.prev
		if row.Next {
			step = c.next
		}
		at := row.From
		for i, want := range row.Ticks {
			got, err := step(at, false)
			if err != nil || !got.Equal(want) {
				t.Errorf("croniter %s %q from %s (next %v): tick %d = %s, %v; croniter says %s", row.Croniter, row.Expr, row.From, row.Next, i+1, got, err, want)
				break
			}
			at = got
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 2000 {
		t.Fatalf("golden file has %d rows; want the script's full table", rows)
	}
}

func TestCompileCron_Refuses(t *testing.T) {
	for _, tc := range []struct{ schedule, want string }{
		// croniter's refusals (scheduler_croniter.go), in its words.
		{"@always", "CroniterBadCronError: Exactly 5, 6 or 7 columns has to be specified for iterator expression."},
		{"@5minutes", "CroniterBadCronError: Exactly 5, 6 or 7 columns has to be specified for iterator expression."},
		{"0 0 * * * *", "want five fields: minute, hour, day of month, month, day of week"},
		{"0 0 1 1 * 2030", "want five fields: minute, hour, day of month, month, day of week"},
		{"0 0 * JAN,FOO *", "CroniterNotAlphaError: [0 0 * jan,foo *] is not acceptable"},
		{"0 0 1,32 * *", "CroniterBadCronError: [0 0 1,32 * *] is not acceptable, out of range"},
		{"0 0 * * 1-9", "CroniterBadCronError: 0 0 * * 1-9 is out of bands"},
		{"*,99 * * * *", "CroniterBadCronError: [*,99 * * * *] is not acceptable, out of range"},
	} {
		if c, err := compileCron(tc.schedule, cronDayRule{}); err == nil || err.Error() != tc.want {
			t.Errorf("compileCron(%q) = %v, %v; want error %q", tc.schedule, c, err, tc.want)
		}
	}
}

// TestCronOf_DAGBuiltInGo: a DAG read from a file carries its compiled
// schedule; one built in Go gets it compiled on demand, the same.
func TestCronOf_DAGBuiltInGo(t *testing.T) {
	daily := "@daily"
	read, err := parseDAG([]byte("dag_id: x\nschedule: '@daily'\n" + oneTask))
	if err != nil {
		t.Fatal(err)
	}
	if read.cron == nil {
		t.Fatal("parseDAG kept no compiled schedule")
	}
	built := &DAG{DagID: "x", Schedule: &daily}
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, dag := range []*DAG{read, built} {
		c, err := cronOf(dag)
		if err != nil || c == nil {
			t.Fatalf("cronOf = %v, %v", c, err)
		}
		iv, err := c.manualInterval(at)
		if err != nil || !iv.start.Equal(time.Date(2024, 4, 30, 0, 0, 0, 0, time.UTC)) || !iv.end.Equal(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("manualInterval(%s) = %v, %v", at, iv, err)
		}
	}
	for _, s := range []string{"@once", "1d", "@continuous"} {
		if c, err := cronOf(&DAG{Schedule: &s}); c != nil || err != nil {
			t.Errorf("cronOf(%q) = %v, %v; want nil, nil", s, c, err)
		}
	}
	if c, err := cronOf(&DAG{}); c != nil || err != nil {
		t.Errorf("cronOf(no schedule) = %v, %v", c, err)
	}
}

// TestCronSchedule_ZoneGolden: a cron schedule in a DAG's time zone ticks
// as Airflow 2.10.3 and 3.2.1 work it out (timetables/_cron.py CronMixin:
// croniter on the zone's wall clock; a tick placed in the zone with
// fold=1 by pendulum, so a skipped time moves forward by the gap and a
// repeated one is the second; an hour field of every hour moves the
// instant by as much as the wall clock moved; aligning keeps a time that
// is a tick). testdata/cron_tz_golden.jsonl was written by
// scripts/cron_tz_golden.py with croniter 6.2.4 (5.0.1 answers the same)
// and pendulum 3.2.0.
func TestCronSchedule_ZoneGolden(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/cron_tz_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			TZ    json.RawMessage `json:"tz"`
			Expr  string          `json:"expr"`
			From  time.Time       `json:"from"`
			Op    string          `json:"op"`
			Ticks []time.Time     `json:"ticks"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("golden line %q: %v", sc.Text(), err)
		}
		rows++
		z, err := parseDagZone(row.TZ)
		if err != nil {
			t.Fatalf("golden line %q: zone: %v", sc.Text(), err)
		}
		c, err := compileCron(row.Expr, edition2.rules().cronDays)
		if err != nil {
			t.Fatalf("compileCron(%q): %v", row.Expr, err)
		}
		c = c.inZone(z.loc)
		step := map[string]func(time.Time) (time.Time, error){
			"next":       func(t time.Time) (time.Time, error) { return c.next(t, false) },
			"prev":       func(t time.Time) (time.Time, error) { return c.prev(t, false) },
			"align_next": func(t time.Time) (time.Time, error) { return c.next(t, true) },
			"align_prev": func(t time.Time) (time.Time, error) { return c.prev(t, true) },
		}[row.Op]
		at := row.From
		for i, want := range row.Ticks {
			got, err := step(at)
			if err != nil || !got.Equal(want) {
				t.Errorf("%s %q %s from %s: answer %d = %s, %v; Airflow says %s", row.TZ, row.Expr, row.Op, row.From, i+1,
					got.UTC().Format(time.RFC3339Nano), err, want.Format(time.RFC3339Nano))
				break
			}
			at = got
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 1500 {
		t.Fatalf("golden file has %d rows; want the script's full table", rows)
	}
}

// TestTriggerInterval_CronCompiledOnce: a trigger reads the cron schedule
// its DAG was built with; it neither compiles nor expands the expression
// again (compileCron and croniter's expansion allocate a few hundred
// times, the interval at most its one result).
func TestTriggerInterval_CronCompiledOnce(t *testing.T) {
	at := time.Date(2024, 5, 1, 10, 30, 0, 0, time.UTC)
	for _, e := range append(slices.Clone(allEditions), edition3) {
		t.Run(string(e), func(t *testing.T) {
			ts := newTestServer(t, e)
			def := "dag_id: cron_trigger\nschedule: '5-50/15 1,13 * JAN-DEC MON-FRI'\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: 'true'}\n"
			if _, err := ts.srv.loadDAG([]byte(def)); err != nil {
				t.Fatalf("loadDAG: %v", err)
			}
			dag := ts.srv.dagDefOf("cron_trigger")
			if dag == nil || dag.cron == nil {
				t.Fatal("the loaded DAG keeps no compiled schedule")
			}
			rules := e.rules()
			allocs := testing.AllocsPerRun(50, func() {
				if c, err := cronOf(dag); err != nil || c != dag.cron {
					t.Fatalf("cronOf = %p, %v; want the DAG's own %p", c, err, dag.cron)
				}
				rules.manualInterval(dag, at)
			})
			if allocs > 1 {
				t.Errorf("a trigger's interval allocates %v times; want at most 1 (the schedule compiled again?)", allocs)
			}
			compiles := testing.AllocsPerRun(5, func() {
				if _, err := compileCron(*dag.Schedule, cronDayRule{}); err != nil {
					t.Fatal(err)
				}
			})
			if compiles <= 1 {
				t.Errorf("compileCron allocates %v times: the bound above tells nothing", compiles)
			}
		})
	}
}
