package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
)

// cronDescriptionRow is one row of testdata/cron_description_golden.jsonl:
// what CronMixin answered for an expression, asked of the real
// cron-descriptor and croniter (scripts/cron_description_golden.py).
type cronDescriptionRow struct {
	Airflow         string `json:"airflow"`
	CronDescriptor  string `json:"cron_descriptor"`
	Expr            string `json:"expr"`
	CroniterAccepts bool   `json:"croniter_accepts"`
	Description     string `json:"description"`
	Text            string `json:"text"`
}

// readCronDescriptionGolden reads the golden rows.
func readCronDescriptionGolden(t *testing.T) []cronDescriptionRow {
	t.Helper()
	f, err := os.Open("testdata/cron_description_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var rows []cronDescriptionRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row cronDescriptionRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("row %d: %v", len(rows)+1, err)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 1000 {
		t.Fatalf("%d golden rows; the file has lost some", len(rows))
	}
	return rows
}

// goldenDescriber is the describer of a golden row's Airflow release.
func goldenDescriber(t *testing.T, row cronDescriptionRow) cronDescriber {
	t.Helper()
	d, ok := map[string]cronDescriber{"2.10.3": cronDescriber2, "3.2.1": cronDescriber3}[row.Airflow]
	if !ok || d.release != row.CronDescriptor {
		t.Fatalf("%q: Airflow %s with cron-descriptor %s: no such describer", row.Expr, row.Airflow, row.CronDescriptor)
	}
	return d
}

// TestCronDescriber_Wording compares the wording with cron-descriptor's
// on every golden expression, without the croniter check: what Airflow
// would answer if croniter took the expression (text).
func TestCronDescriber_Wording(t *testing.T) {
	t.Parallel()
	for _, row := range readCronDescriptionGolden(t) {
		d := goldenDescriber(t, row)
		expr := row.Expr
		if preset, ok := airflowCronPreset(expr); ok {
			expr = preset
		}
		got, err := d.text(expr)
		if got != row.Text || (err != nil) != (row.Text == "") {
			t.Errorf("Airflow %s, %q: %q (%v), want %q", row.Airflow, row.Expr, got, err, row.Text)
		}
	}
}

// TestCronDescriber_Description compares timetable_description with
// Airflow's for every golden expression, and airlite's croniter verdict
// (which takes or refuses a DAG's schedule) with croniter's.
func TestCronDescriber_Description(t *testing.T) {
	t.Parallel()
	for _, row := range readCronDescriptionGolden(t) {
		d := goldenDescriber(t, row)
		cron := row.Expr
		if preset, ok := airflowCronPreset(cron); ok {
			cron = preset
		}
		_, err := croniterExpand(cron, d.croniter)
		var refused *croniterRefusal
		if fields := len(pyFields(cron)); fields == 5 || fields == 1 {
			if takes := !errors.As(err, &refused); takes != row.CroniterAccepts && cron != "R * * * *" {
				t.Errorf("Airflow %s, %q: croniter %s takes it %v (%v), croniter says %v", row.Airflow, row.Expr, d.croniter, takes, err, row.CroniterAccepts)
			}
		}
		if got := d.describe(row.Expr); got != row.Description {
			t.Errorf("Airflow %s, %q: %q, want %q", row.Airflow, row.Expr, got, row.Description)
		}
	}
}

// TestCronDescriber_Examples holds the texts airlite's former table gave
// (three of them seen from a real Airflow 2.10.3), the presets, and the
// rules CronMixin adds around cron-descriptor, per edition.
func TestCronDescriber_Examples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr         string
		want2, want3 string
	}{
		// The real Airflow 2.10.3 answered these (example_datasets.py,
		// example_branch_python_dop_operator_3.py, example_sla_dag.py).
		{"0 1 * * 3", "At 01:00, only on Wednesday", "At 01:00, only on Wednesday"},
		{"*/1 * * * *", "Every minute", "Every minute"},
		{"*/2 * * * *", "Every 2 minutes", "Every 2 minutes"},
		// The former table's others.
		{"0 0 * * *", "At 00:00", "At 00:00"},
		{"0 0 * * 0", "At 00:00, only on Sunday", "At 00:00, only on Sunday"},
		{"0 0 1 * *", "At 00:00, on day 1 of the month", "At 00:00, on day 1 of the month"},
		{"0 0 1 */3 *", "At 00:00, on day 1 of the month, every 3 months", "At 00:00, on day 1 of the month, every 3 months"},
		{"0 0 1 1 *", "At 00:00, on day 1 of the month, only in January", "At 00:00, on day 1 of the month, only in January"},
		{"0 3 * * *", "At 03:00", "At 03:00"},
		{"0 6 * * *", "At 06:00", "At 06:00"},
		{"0 9 * * *", "At 09:00", "At 09:00"},
		{"* * * * *", "Every minute", "Every minute"},
		// The former table had "At 0 minutes past the hour", cron-descriptor's
		// text before 1.2.29; 1.4.5 and 2.0.6 leave a minute 0 unsaid.
		{"0 * * * *", "Every hour", "Every hour"},
		// Presets: Airflow's six through their expressions; croniter's
		// @midnight and @annually reach cron-descriptor as one field.
		{"@hourly", "Every hour", "Every hour"},
		{"@daily", "At 00:00", "At 00:00"},
		{"@weekly", "At 00:00, only on Sunday", "At 00:00, only on Sunday"},
		{"@monthly", "At 00:00, on day 1 of the month", "At 00:00, on day 1 of the month"},
		{"@quarterly", "At 00:00, on day 1 of the month, every 3 months", "At 00:00, on day 1 of the month, every 3 months"},
		{"@yearly", "At 00:00, on day 1 of the month, only in January", "At 00:00, on day 1 of the month, only in January"},
		{"@midnight", "", ""},
		{"@annually", "", ""},
		// More than five fields (seconds, a year), fewer, or what croniter
		// refuses: "".
		{"0 0 * * * *", "", ""},
		{"0 0 1 1 * 2030", "", ""},
		{"0 0 * *", "", ""},
		{"0 25 * * *", "", ""},
		{"", "", ""},
		// Airflow 3 describes both restricted day fields, each alone.
		{"0 0 1 * 1", "At 00:00, on day 1 of the month, only on Monday",
			"At 00:00, on day 1 of the month (or) At 00:00, only on Monday"},
		{"0 0 ? * 1", "At 00:00, only on Monday", "At 00:00 (or) At 00:00, only on Monday"},
		// en_US.mo has no "fourth".
		{"0 0 * * 2#4", "At 00:00, on the  Tuesday of the month", "At 00:00, on the  Tuesday of the month"},
		// 1.4.5 reads a step of the day of week as a day.
		{"0 0 * * */7", "", "At 00:00, every 7 days of the week"},
		{"30 6,14,16 * * *", "At 06:30, 14:30 and 16:30", "At 06:30, 14:30 and 16:30"},
		{"*/5 9-17 * * mon-fri", "Every 5 minutes, between 09:00 and 17:59, Monday through Friday",
			"Every 5 minutes, between 09:00 and 17:59, Monday through Friday"},
	} {
		if got := cronDescriber2.describe(tc.expr); got != tc.want2 {
			t.Errorf("edition 2, %q: %q, want %q", tc.expr, got, tc.want2)
		}
		if got := cronDescriber3.describe(tc.expr); got != tc.want3 {
			t.Errorf("edition 3, %q: %q, want %q", tc.expr, got, tc.want3)
		}
		if got := (cronDescriber{}).describe(tc.expr); got != "" {
			t.Errorf("no describer, %q: %q, want nothing", tc.expr, got)
		}
	}
}

// cronNoise is an expression of cron's characters and a few strays,
// in one to seven fields.
func cronNoise(rng *rand.Rand) string {
	const alphabet = "0123456789*/-,?LW#LWMONSUNJANFEBmonjan  \t{}_+é\x1c"
	fields := make([]string, 1+rng.IntN(7))
	for i := range fields {
		b := make([]byte, 1+rng.IntN(8))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		fields[i] = string(b)
	}
	return strings.Join(fields, " ")
}

// TestCronDescriber_NeverPanics describes random expressions with every
// describer: an answer or "", never a panic.
func TestCronDescriber_NeverPanics(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 29))
	for range 20000 {
		expr := cronNoise(rng)
		for _, d := range []cronDescriber{cronDescriber2, cronDescriber3} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s, %q: panic %v", d.release, expr, r)
					}
				}()
				d.describe(expr)
				if fields := pyFields(expr); len(fields) == 5 {
					d.fullDescription([5]string(fields))
				}
			}()
		}
	}
}

// FuzzCronDescription: no input makes the wording panic.
func FuzzCronDescription(f *testing.F) {
	for _, seed := range []string{"0 0 * * *", "*/5 9-17 * * MON-FRI", "0 0 L * 5#4", "{0} } { * *", "- - - - -", "1-2-3 */ ,, # L-"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, d := range []cronDescriber{cronDescriber2, cronDescriber3} {
			d.text(expr)
		}
	})
}

// TestCronDescriber_Python checks Python's string rules the wording
// relies on.
func TestCronDescriber_Python(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"7", 7, true}, {"07", 7, true}, {" 7 ", 7, true}, {"+7", 7, true}, {"-7", -7, true}, {"1_0", 10, true},
		{"", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"+-7", 0, false}, {"- 7", 0, false},
		{"7L", 0, false}, {"0x7", 0, false}, {"99999999999999999999", 0, false}, {"000", 0, true},
	} {
		got, err := pyInt(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("int(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct{ template, want string }{
		{"at {0}", "at x"}, {"{{0}}", "{0}"}, {"{1}", ""}, {"a } b", ""}, {"{x}", ""}, {"{+0}", ""}, {"{00}", "x"},
	} {
		got, _ := pyFormat(tc.template, "x")
		if got != tc.want {
			t.Errorf("%q.format('x') = %q, want %q", tc.template, got, tc.want)
		}
	}
	for in, want := range map[string]string{"a, ": "a", "a,": "a", "a,,": "a,", "a": "a", "a,\n": "a\n", "a, \n": "a\n", "a\n": "a\n"} {
		if got := pyTrimTrailingComma(in); got != want {
			t.Errorf("trim %q = %q, want %q", in, got, want)
		}
	}
	if got := pyFields("0\x1c0\t*\u00a0* *"); len(got) != 5 {
		t.Errorf("split: %q", got)
	}
}

// TestTimetableDescription_Editions: the DAG answers of each edition
// carry its Airflow's wording of the schedule.
func TestTimetableDescription_Editions(t *testing.T) {
	t.Parallel()
	const dag = "dag_id: either_day\nschedule: \"0 6 1 * MON\"\nstart_date: 2024-01-01\ntasks:\n  - task_id: t\n    operator: EmptyOperator\n"
	for _, tc := range []struct {
		edition edition
		path    string
		want    string
	}{
		{edition2, "/api/v1/dags/either_day", `"timetable_description": "At 06:00, on day 1 of the month, only on Monday"`},
		{edition2, "/api/v1/dags/either_day/details", `"timetable_description": "At 06:00, on day 1 of the month, only on Monday"`},
		{edition3, "/api/v2/dags/either_day", `"timetable_description":"At 06:00, on day 1 of the month (or) At 06:00, only on Monday"`},
		{edition3, "/api/v2/dags/either_day/details", `"timetable_description":"At 06:00, on day 1 of the month (or) At 06:00, only on Monday"`},
	} {
		ts := newTestServer(t, tc.edition, withOwnDAG(dag))
		res := ts.do(t, http.MethodGet, tc.path, "")
		if res.status != http.StatusOK || !strings.Contains(res.body, tc.want) {
			t.Errorf("edition %s %s: %d %s\nwant %s", tc.edition, tc.path, res.status, res.body, tc.want)
		}
	}
}
