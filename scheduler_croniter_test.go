package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// croniterAcceptRow is one row of testdata/croniter_accept_golden.jsonl
// (scripts/croniter_accept_golden.py): a croniter release's verdict on an
// expression, and its ticks when it takes it.
type croniterAcceptRow struct {
	Croniter string      `json:"croniter"`
	Expr     string      `json:"expr"`
	Error    *string     `json:"error"`
	From     time.Time   `json:"from"`
	Next     []time.Time `json:"next"`
	Prev     []time.Time `json:"prev"`
}

// croniterRules is each golden release's day rule, from the edition that
// installs it.
func croniterRules(t *testing.T) map[string]cronDayRule {
	t.Helper()
	rules := map[string]cronDayRule{}
	for _, e := range []edition{edition110, edition2, edition3} {
		r := e.rules().cronDays
		rules[r.croniter.String()] = r
	}
	if len(rules) != 3 {
		t.Fatalf("editions install %d croniter releases, want 3", len(rules))
	}
	return rules
}

func readCroniterAcceptGolden(t *testing.T) []croniterAcceptRow {
	t.Helper()
	f, err := os.Open("testdata/croniter_accept_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var rows []croniterAcceptRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row croniterAcceptRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("row %d: %v", len(rows)+1, err)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 4000 {
		t.Fatalf("%d golden rows; the file has lost some", len(rows))
	}
	return rows
}

// croniterKnownDivergences are golden rows where airlite's ticks are not
// croniter's, each with why (docs/behaviour.md, cron schedules). A row
// listed here that comes to agree fails the test, so the list stays true.
var croniterKnownDivergences = map[string]string{}

func init() {
	// croniter before 6 steps from a day to the next day-of-month value
	// by their difference, even when that value is past the month's end
	// (31 in February): it lands a few days into the next month and
	// skips the values before (from 2024-02-27, `*/30` fires on March
	// 31st, not March 1st). airlite fires on March 1st.
	for _, expr := range []string{"8 */30,22-23/6 22,*/6,5 * *", "5-31,50,35,8-33 11,16 */6 * *", "6 12/20 */30 * *",
		"30-45/5 * */15 * *", "35/2 * */10,20,*/5 * MON-0"} {
		croniterKnownDivergences["0.3.36 "+expr] = "day past the month's end"
		croniterKnownDivergences["5.0.1 "+expr] = "day past the month's end"
	}
	for _, expr := range []string{"* 15,15,19,*/2 31-3,24 1-8 *,SUN", "13,* * 31-5 7,JUL-4 0", "* 9,15-16 */15 *,8,NOV 5-SUN,0-5",
		"*,49,13 14,8 */10 * *"} {
		croniterKnownDivergences["5.0.1 "+expr] = "day past the month's end"
	}
	// croniter 6.2.2 looking back from a W day beside an nth weekday
	// wants both (its next wants the W day alone, as airlite does).
	croniterKnownDivergences["6.2.2 59/3 * 15W 10-6 FRI#3"] = "W beside # looking back"
	// R: a random value croniter draws afresh each time it reads the
	// expression; airlite refuses it.
	croniterKnownDivergences["5.0.1 R * * * *"] = "random"
	croniterKnownDivergences["6.2.2 R * * * *"] = "random"
}

// TestCroniterExpand_Golden: airlite takes what each croniter release
// takes, refuses what it refuses with its message, and fires when it
// fires, on every golden expression.
func TestCroniterExpand_Golden(t *testing.T) {
	t.Parallel()
	rules := croniterRules(t)
	diverged := map[string]bool{}
	t.Cleanup(func() {
		for key, why := range croniterKnownDivergences {
			if !diverged[key] {
				t.Errorf("croniter %s: listed as diverging (%s), but agrees", key, why)
			}
		}
	})
	ticked := 0
	for _, row := range readCroniterAcceptGolden(t) {
		rule, ok := rules[row.Croniter]
		if !ok {
			t.Fatalf("%q: no edition installs croniter %s", row.Expr, row.Croniter)
		}
		expr := row.Expr
		if preset, ok := airflowCronPreset(expr); ok {
			expr = preset
		}
		c, err := compileCron(expr, rule)
		var refused *croniterRefusal
		switch {
		case len(pyFields(expr)) == 6 || len(pyFields(expr)) == 7:
			// Seconds or years: whatever croniter says, airlite refuses
			// them (validateSchedule, with its own words).
			if err == nil {
				t.Errorf("croniter %s, %q: taken, want airlite's refusal of six or seven fields", row.Croniter, row.Expr)
			}
			continue
		case croniterKnownDivergences[row.Croniter+" "+row.Expr] != "" && (row.Error == nil) != (err == nil):
			diverged[row.Croniter+" "+row.Expr] = true
			continue
		case row.Error == nil && err != nil:
			t.Errorf("croniter %s, %q: refused (%v); croniter takes it", row.Croniter, row.Expr, err)
			continue
		case row.Error != nil && strings.HasPrefix(*row.Error, "CroniterBadCronError: Traceback"):
			// A ValueError croniter wraps with its traceback: refused,
			// the message not restated.
			if !errors.As(err, &refused) {
				t.Errorf("croniter %s, %q: %v, want a refusal", row.Croniter, row.Expr, err)
			}
			continue
		case row.Error != nil:
			if !errors.As(err, &refused) || refused.Error() != *row.Error {
				t.Errorf("croniter %s, %q: %v\n  croniter: %s", row.Croniter, row.Expr, err, *row.Error)
			}
			continue
		}
		for _, dir := range []struct {
			name  string
			step  func(time.Time, bool) (time.Time, error)
			ticks []time.Time
		}{{"next", c.next, row.Next}, {"prev", c.prev, row.Prev}} {
			at := row.From
			for i, want := range dir.ticks {
				got, err := dir.step(at, false)
				if key := row.Croniter + " " + row.Expr; croniterKnownDivergences[key] != "" && (err != nil || !got.Equal(want)) {
					diverged[key] = true
					break
				}
				if err != nil || !got.Equal(want) {
					t.Errorf("croniter %s, %q %s from %s: tick %d = %s, %v; croniter says %s",
						row.Croniter, row.Expr, dir.name, row.From.Format(time.RFC3339), i+1, got, err, want)
					break
				}
				ticked++
				at = got
			}
		}
	}
	if ticked < 3000 {
		t.Errorf("%d ticks compared; the golden file has lost some", ticked)
	}
}

// TestCroniterExpand_WrapAround: a range whose start is past its end
// wraps around the field, as croniter 5 and 6 read it; croniter 0.3.36
// refuses it (but for -SUN).
func TestCroniterExpand_WrapAround(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr    string
		rel     croniterRelease
		want    [5]string
		refusal string
		nearest int
	}{
		{"0 22-2 * * *", croniter501, [5]string{"0", "0,1,2,22,23", "*", "*", "*"}, "", 0},
		{"0 0 * DEC-MAR *", croniter622, [5]string{"0", "0", "*", "1,2,3,12", "*"}, "", 0},
		{"0 0 * * FRI-MON", croniter501, [5]string{"0", "0", "*", "*", "0,1,5,6"}, "", 0},
		{"55-5/3 * * * *", croniter501, [5]string{"2,5,55,58", "*", "*", "*", "*"}, "", 0},
		{"0 0 * APR-JAN/3 *", croniter501, [5]string{"0", "0", "*", "1,4,7,10", "*"}, "", 0},
		{"1-1 * * * *", croniter501, [5]string{"*", "*", "*", "*", "*"}, "", 0},
		{"0 0 W3 * *", croniter622, [5]string{"0", "0", "*", "*", "*"}, "", 3},
		{"0 0 * * 5-SUN", croniter0336, [5]string{"0", "0", "*", "*", "0,5,6"}, "", 0},
		{"0 22-2 * * *", croniter0336, [5]string{}, "CroniterBadCronError: [0 22-2 * * *] is not acceptable", 0},
		{"0 0 * * 5L", croniter501, [5]string{}, "CroniterNotAlphaError: [0 0 * * 5l] is not acceptable", 0},
		{"*,99 * * * *", croniter622, [5]string{}, "CroniterBadCronError: [*,99 * * * *] is not acceptable, out of range", 0},
	} {
		got, err := croniterExpand(tc.expr, tc.rel)
		if tc.refusal != "" {
			if err == nil || err.Error() != tc.refusal {
				t.Errorf("croniter %s, %q: %v, want %s", tc.rel, tc.expr, err, tc.refusal)
			}
			continue
		}
		if err != nil || got.segments != tc.want || got.nearest != tc.nearest {
			t.Errorf("croniter %s, %q: %q W%d, %v; want %q W%d", tc.rel, tc.expr, got.segments, got.nearest, err, tc.want, tc.nearest)
		}
	}
}

// TestCroniterExpand_NeverPanics reads random expressions with every
// release and compiles them: an answer or an error, never a panic.
func TestCroniterExpand_NeverPanics(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 7))
	rules := croniterRules(t)
	for range 20000 {
		expr := cronNoise(rng)
		if rng.IntN(2) == 0 {
			expr = cronFieldsNoise(rng)
		}
		for _, rule := range rules {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("croniter %s, %q: panic %v", rule.croniter, expr, r)
					}
				}()
				if c, err := compileCron(expr, rule); err == nil {
					c.next(cronCheckFrom, false)
				}
			}()
		}
	}
}

// cronFieldsNoise is five fields of cron's own parts, numbers past the
// bounds among them.
func cronFieldsNoise(rng *rand.Rand) string {
	parts := []string{"*", "?", "L", "W", "#", "-", "/", ",", "0", "1", "5", "7", "13", "31", "60", "99", "MON", "fri", "DEC", "jan", "l", "w", "h", "r", "(", ")"}
	fields := make([]string, 5)
	for i := range fields {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		fields[i] = b.String()
	}
	return strings.Join(fields, " ")
}

// FuzzCroniterExpand: no input makes the reading panic.
func FuzzCroniterExpand(f *testing.F) {
	for _, seed := range []string{"0 22-2 * * *", "0 0 * * FRI-MON#2", "55-5/0 * * * *", "0 0 W3 * *", "0 0 * * 1#1x", "*,99 * ? * l5"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, r := range []croniterRelease{croniter0336, croniter501, croniter622} {
			croniterExpand(expr, r)
		}
	})
}

// TestValidateSchedule_Editions: each edition takes and refuses a DAG's
// schedule as its Airflow does, with its import error's text.
func TestValidateSchedule_Editions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schedule              string
		want110, want2, want3 string // "": taken
	}{
		{"0 22-2 * * *", "Invalid Cron expression: [0 22-2 * * *] is not acceptable", "", ""},
		{"0 0 * DEC-MAR *", "Invalid Cron expression: [0 0 * DEC-MAR *] is not acceptable", "", ""},
		{"0 0 * * FRI-MON", "Invalid Cron expression: [0 0 * * FRI-MON] is not acceptable", "", ""},
		{"0 0 W3 * *", "Invalid Cron expression: [0 0 W3 * *] is not acceptable",
			"AirflowTimetableInvalid: [0 0 w3 * *] is not acceptable", ""},
		{"0 0 15W * *", "Invalid Cron expression: [0 0 15W * *] is not acceptable",
			"AirflowTimetableInvalid: [0 0 15w * *] is not acceptable", ""},
		{"0 0 * * 5L", "Invalid Cron expression: [0 0 * * 5L] is not acceptable",
			"AirflowTimetableInvalid: [0 0 * * 5l] is not acceptable", "AirflowTimetableInvalid: [0 0 * * 5l] is not acceptable"},
		{"0 0 * * 2#6", "Invalid Cron expression: [0 0 * * 2#6] is not acceptable",
			"AirflowTimetableInvalid: [0 0 * * 2#6] is not acceptable. Invalid day_of_week value: '6'",
			"AirflowTimetableInvalid: [0 0 * * 2#6] is not acceptable. Invalid day_of_week value: '6'"},
		{"0 0 * * 1,2#2", "",
			"AirflowTimetableInvalid: day-of-week field does not support mixing literal values and nth day of week syntax.  Cron: '0 0 * * 1,2#2'    dow={1} vs nth={2: {2}}",
			"AirflowTimetableInvalid: day-of-week field does not support mixing literal values and nth day of week syntax.  Cron: '0 0 * * 1,2#2'    dow={1} vs nth={2: {2}}"},
		{"0 0 ?,1 * *", "Invalid Cron expression: [0 0 ?,1 * *] is not acceptable",
			"AirflowTimetableInvalid: [0 0 ?,1 * *] is not acceptable.  Question mark can not used with other characters",
			"AirflowTimetableInvalid: [0 0 ?,1 * *] is not acceptable. Question mark can not used with other characters"},
		{"*,99 * * * *", "Invalid Cron expression: [*,99 * * * *] is not acceptable, out of range",
			"AirflowTimetableInvalid: [*,99 * * * *] is not acceptable, out of range",
			"AirflowTimetableInvalid: [*,99 * * * *] is not acceptable, out of range"},
		{"@midnight", "Invalid Cron expression: Exactly 5 or 6 columns has to be specified for iteratorexpression.", "", ""},
	} {
		for _, e := range []struct {
			edition edition
			want    string
		}{{edition110, tc.want110}, {edition2, tc.want2}, {edition3, tc.want3}} {
			_, err := validateSchedule(tc.schedule, e.edition.rules().cronDays)
			if got := fmt.Sprint(err); (err == nil) != (e.want == "") || (err != nil && got != e.want) {
				t.Errorf("edition %s, %q: %v, want %q", e.edition, tc.schedule, err, e.want)
			}
		}
	}
}
