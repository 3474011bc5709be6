package main

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/adhocore/gronx"
)

// cronExpressions are Airflow's presets and the cron forms DAG authors
// write, with gronx's L, W and # and Vixie cron's day OR weekday rule.
var cronExpressions = []string{
	"@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly",
	"0 0 * * *", "*/5 * * * *", "30 6 * * 1-5", "15 14 1 * *", "0 22 * * 1-5",
	"23 0-20/2 * * *", "5 4 * * sun", "0 0,12 1 */2 *", "0 0 13 * 5", "0 0 31 * *",
	"59 23 * * 6", "0 12 * JAN,JUL *", "*/7 */5 */3 * *", "0 0 L * *", "0 0 * * 5L",
	"0 0 * * 1#2", "0 9 15W * *", "0 0 29 2 *", "1-3 * * * *", "0 0 * * 7", "45 23 28-31 * *",
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
		c, err := compileCron(schedule)
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

func TestCompileCron_Refuses(t *testing.T) {
	for _, tc := range []struct{ schedule, want string }{
		{"@always", "want five fields: minute, hour, day of month, month, day of week"},
		{"@5minutes", "want five fields: minute, hour, day of month, month, day of week"},
		{"0 0 * * * *", "want five fields: minute, hour, day of month, month, day of week"},
		{"0 0 1 1 * 2030", "want five fields: minute, hour, day of month, month, day of week"},
		{"0 0 * JAN,FOO *", `month "JAN,FOO" is not a number, a range (1-5), a step (*/15), a list (1,5) or a name (JAN, MON)`},
		{"0 0 1,32 * *", `day of month "1,32" is outside 1-31`},
		{"0 0 * * 1-9", `day of week "1-9" has a range outside 0-7 or running backwards`},
	} {
		if c, err := compileCron(tc.schedule); err == nil || err.Error() != tc.want {
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
