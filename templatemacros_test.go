package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// macros.datetime.now()/utcnow() and macros.time.time() read airlite's
// clock, so that under --clock fake they give the fake time. Airflow
// 2.10.3 airflow/macros/__init__.py:20-23 (time, datetime) and 1.10.15
// airflow/macros/__init__.py:21,24 import them from the standard library.
func TestTemplate_MacrosFollowTheClock(t *testing.T) {
	t.Parallel()
	fake := time.Date(2031, 7, 8, 9, 10, 11, 123456789, time.UTC)
	cases := []struct{ template, want string }{
		{"{{ macros.datetime.now() }}", "2031-07-08 09:10:11.123456"},
		{"{{ macros.datetime.utcnow().isoformat() }}", "2031-07-08T09:10:11.123456"},
		{"{{ macros.datetime.now().year }}", "2031"},
		{"{{ macros.time.time() }}", "1941268211.123456"}, // Python: datetime(2031, 7, 8, 9, 10, 11, 123456, timezone.utc).timestamp(),
		{"{{ (macros.datetime.now() - macros.timedelta(hours=10)).strftime('%Y-%m-%d %H') }}", "2031-07-07 23"},
	}
	for _, e := range allEditions {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.template, func(t *testing.T) {
				t.Parallel()
				c := goldenContext(t, e, nil, nil)
				c.now = func() time.Time { return fake }
				got, err := c.renderText(tc.template)
				if err != nil || got != tc.want {
					t.Errorf("render %s = %q, %v; want %q", tc.template, got, err, tc.want)
				}
			})
		}
	}
}

// The scheduler hands its clock to the templates of the tries it runs.
func TestBash_MacrosNowIsTheSchedulersClock(t *testing.T) {
	t.Parallel()
	fake := newFakeClock(time.Date(2031, 7, 8, 9, 10, 11, 0, time.UTC))
	dag, err := parseDAG([]byte(`
dag_id: d
tasks:
  - {task_id: t, operator: BashOperator, bash_command: 'echo {{ macros.datetime.now() }}'}
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := newScheduler(schedulerOptions{Store: storeWith(t, &DAGSet{}), Edition: edition2, Now: fake.Now,
		Logger: zerolog.New(zerolog.NewTestWriter(t))})
	out := runner.runBash(context.Background(), taskJob{key: tiKey{"d", "r", "t", -1}, try: 1, dag: dag, task: dag.Task("t"),
		run: DagRun{DagID: "d", RunID: "r", ExecutionDate: testNow}})
	if out.state != TaskSuccess || out.output != "2031-07-08 09:10:11\n" {
		t.Fatalf("outcome %q (%s), output %q; want the fake clock's time", out.state, out.reason, out.output)
	}
}

// uuid4() and random() have no fixed value: their shape is what is
// checked. Airflow 2.10.3 airflow/macros/__init__.py:22,24 (uuid, random:
// the function itself); 1.10.15 airflow/macros/__init__.py:23,26.
func TestTemplate_MacrosUUIDAndRandom(t *testing.T) {
	t.Parallel()
	uuidRe := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} [0-9a-f]{32} 4$`)
	randomRe := regexp.MustCompile(`^0(\.\d+)?(e-\d+)?$`)
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			c := goldenContext(t, e, nil, nil)
			got, err := c.renderText("{% set u = macros.uuid.uuid4() %}{{ u }} {{ u.hex }} {{ u.version }}")
			if err != nil || !uuidRe.MatchString(got) {
				t.Errorf("uuid4 = %q, %v", got, err)
			}
			got, err = c.renderText("{{ macros.random() }}")
			if err != nil || !randomRe.MatchString(got) {
				t.Errorf("random() = %q, %v; want a float in [0, 1)", got, err)
			}
		})
	}
}

// What Python refuses, airlite refuses, naming Python's error.
func TestTemplate_TimedeltaErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ template, want string }{
		{"{{ macros.timedelta(days='1') }}", "TypeError: unsupported type for timedelta days component: str"},
		{"{{ macros.timedelta(fortnights=1) }}", "'fortnights' is an invalid keyword argument"},
		{"{{ macros.timedelta(1, days=1) }}", "given by name ('days') and position (1)"},
		{"{{ macros.timedelta(1, 2, 3, 4, 5, 6, 7, 8) }}", "takes at most 7 arguments (8 given)"},
		{"{{ macros.timedelta(days=10**300) }}", "OverflowError"},
		{"{{ macros.timedelta(days=1.0e308) }}", "OverflowError"},
		{"{{ execution_date + macros.timedelta(days=3000000) }}", "OverflowError: date value out of range"},
		{"{{ execution_date + 1 }}", "unsupported operand type(s) for +"},
		{"{{ macros.timedelta(days=1) - execution_date }}", "unsupported operand type(s) for -"},
		{"{{ execution_date - macros.datetime.now() }}", "can't subtract offset-naive and offset-aware datetimes"},
		{"{{ execution_date < macros.timedelta(days=1) }}", "not supported between instances"},
		{"{{ execution_date.replace(month=13) }}", "ValueError: month must be in 1..12"},
		{"{{ execution_date.replace(day=31, month=2) }}", "ValueError: day is out of range for month"},
		{"{{ execution_date.isoformat('ab') }}", "must be a unicode character"},
		{"{{ macros.dateutil.relativedelta.relativedelta(months='1') }}", "relativedelta months must be an int"},
		{"{{ execution_date + macros.dateutil.relativedelta.relativedelta(years=9000) }}", "ValueError: year 11024 is out of range"},
		{"{{ macros.dateutil.relativedelta.relativedelta(days=1) - execution_date }}", "unsupported operand type(s) for -"},
	}
	for _, e := range allEditions {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.template, func(t *testing.T) {
				t.Parallel()
				got, err := goldenContext(t, e, nil, nil).renderText(tc.template)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("render %s = %q, %v; want an error naming %q", tc.template, got, err, tc.want)
				}
			})
		}
	}
}

// gonja computes {% set %} and {% with %} expressions where airlite's
// rewrite cannot reach; a date there fails the render instead of turning
// into 0 (gonja's arithmetic on a value it does not know).
func TestTemplate_DateArithmeticOutOfReachFailsClosed(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		for _, template := range []string{
			"{% set y = execution_date - macros.timedelta(days=1) %}{{ y }}",
			"{% with y = execution_date + macros.timedelta(days=1) %}{{ y }}{% endwith %}",
			"{% filter upper %}{{ execution_date + macros.timedelta(days=1) }}{% endfilter %}",
		} {
			t.Run(string(e)+"/"+template, func(t *testing.T) {
				t.Parallel()
				got, err := goldenContext(t, e, nil, nil).renderText(template)
				if err == nil || !strings.Contains(err.Error(), "move the arithmetic out of that tag") {
					t.Errorf("render %s = %q, %v; want it refused", template, got, err)
				}
			})
		}
	}
}

// A macro applied to a request value gives a request value: the print is
// not static, so its value reaches bash through the environment, never
// as shell text. Macros of static values stay static.
func TestTemplate_MacrosOfRequestValuesAreNotStatic(t *testing.T) {
	t.Parallel()
	requestValued := []string{
		"{{ macros.json.dumps(dag_run.conf) }}",
		"{{ macros.json.loads(dag_run.conf.j) }}",
		"{{ macros.timedelta(days=dag_run.conf.n) }}",
		"{{ macros.timedelta(dag_run.conf.n) }}",
		"{{ execution_date + macros.timedelta(hours=params.h) }}",
		"{{ execution_date - macros.timedelta(days=var.value.n|int) }}",
		"{{ execution_date.strftime(dag_run.conf.fmt) }}",
		"{{ execution_date.replace(day=dag_run.conf.d) }}",
		"{{ execution_date.isoformat(dag_run.conf.sep) }}",
		"{{ macros.datetime.strptime(dag_run.conf.d, '%Y') }}",
		"{{ macros.ds_add(ds, dag_run.conf.n) }}",
		"{{ macros.json.dumps(ti.xcom_pull(task_ids='a')) }}",
		"{{ macros.json.dumps(conn.db.extra_dejson) }}",
		"{{ -macros.timedelta(days=dag_run.conf.n) }}",
		"{{ execution_date + macros.dateutil.relativedelta.relativedelta(months=dag_run.conf.n) }}",
		"{{ macros.dateutil.relativedelta.relativedelta(day=params.d) }}",
		"{{ execution_date.subtract(days=dag_run.conf.n) }}",
		"{{ execution_date.add(dag_run.conf.n) }}",
		"{{ 'a' if execution_date < execution_date + macros.timedelta(days=dag_run.conf.n) else 'b' }}",
	}
	for _, p := range requestValued {
		if isStaticPrint(p, nil) {
			t.Errorf("%s counts as static; it holds a request value", p)
		}
	}
	static := []string{
		"{{ (execution_date - macros.timedelta(days=1)).strftime('%Y-%m-%d') }}",
		"{{ macros.datetime.now() }}",
		"{{ macros.uuid.uuid4() }}",
		"{{ (data_interval_end + macros.timedelta(hours=1)).isoformat() }}",
	}
	for _, p := range static {
		if !isStaticPrint(p, nil) {
			t.Errorf("%s counts as a request value; it holds none", p)
		}
	}
}

// macroShapes run a hostile request value through the new macros in a
// real bash task: the task prints it (or what the macro makes of it)
// verbatim and nothing it names runs. json exists in Airflow 2 only
// (Airflow 2.10.3 airflow/macros/__init__.py:20).
var macroShapes = []struct {
	name, command string
	json          bool
	want          func(value string) string
}{
	{"json.dumps of the conf", `printf '%s\n' "{{ macros.json.dumps(dag_run.conf) }}"`, true, func(v string) string {
		return `{"x": ` + string(appendPyString(nil, v)) + "}\n"
	}},
	{"json round trip", `printf '%s\n' {{ macros.json.loads(macros.json.dumps(dag_run.conf.x)) }}`, true, func(v string) string { return v + "\n" }},
	{"timedelta of a request length", `printf '%s\n' "{{ (execution_date + macros.timedelta(days=dag_run.conf.x|length)).strftime('%Y-%m-%d') }}"`, false, func(v string) string {
		return testNow.AddDate(0, 0, len(v)).Format("2006-01-02") + "\n"
	}},
	{"strftime with a request format", `printf '%s\n' "{{ execution_date.strftime(dag_run.conf.x) }}"`, false, func(v string) string { return v + "\n" }},
	{"relativedelta of a request length", `printf '%s\n' "{{ (execution_date - macros.dateutil.relativedelta.relativedelta(months=dag_run.conf.x|length)).strftime('%Y-%m') }}"`, false, func(v string) string {
		return testNow.AddDate(0, -len(v), 0).Format("2006-01") + "\n"
	}},
	{"pendulum subtract of a request length", `printf '%s\n' "{{ execution_date.subtract(days=dag_run.conf.x|length).strftime('%Y-%m-%d') }}"`, false, func(v string) string {
		return testNow.AddDate(0, 0, -len(v)).Format("2006-01-02") + "\n"
	}},
	{"comparison", `echo {{ 'later' if execution_date + macros.timedelta(seconds=dag_run.conf.x|length) > execution_date else 'no' }}`, false, func(string) string { return "later\n" }},
	{"concatenation with a uuid", `printf '%s\n' {{ dag_run.conf.x ~ macros.uuid.uuid4().hex[:0] }}`, false, func(v string) string { return v + "\n" }},
}

func TestSecurity_MacrosKeepRequestValuesAsData(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			hasJSON := e.rules().templateVars(goldenContext(t, e, nil, nil))["macros"].(templateMacros).json
			var def strings.Builder
			def.WriteString("dag_id: d\ntasks:\n")
			for i, shape := range macroShapes {
				command, _ := json.Marshal(shape.command)
				fmt.Fprintf(&def, "  - {task_id: t%d, operator: BashOperator, bash_command: %s}\n", i, command)
			}
			dag, err := parseDAG([]byte(def.String()))
			if err != nil {
				t.Fatal(err)
			}
			runner := bashRunnerOf(t, e)
			for _, value := range hostileValues {
				if strings.Contains(value, "%") {
					t.Fatalf("%q: the strftime shape wants values without %%", value)
				}
				conf, _ := json.Marshal(map[string]any{"x": value})
				for i, shape := range macroShapes {
					if shape.json && !hasJSON {
						continue
					}
					job := taskJob{key: tiKey{"d", "r", fmt.Sprintf("t%d", i), -1}, try: 1, dag: dag, task: dag.Task(fmt.Sprintf("t%d", i)),
						run: DagRun{DagID: "d", RunID: "r", ExecutionDate: testNow, Conf: conf}}
					job.task.Cwd = dir
					out := runner.runBash(context.Background(), job)
					if want := shape.want(value); out.state != TaskSuccess || out.output != want {
						t.Errorf("%s with %q: %q (%s)\n got %q\nwant %q", shape.name, value, out.state, out.reason, out.output, want)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "M")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a request value ran as shell text: the marker exists (%v)", err)
			}
		})
	}
}

// pendulum's add and subtract on the context's dates: pendulum 3.0.0
// src/pendulum/datetime.py:561,644 and 1.4.4 pendulum/pendulum.py:1129,1182,
// both through add_duration (3.0.0 src/pendulum/helpers.py:80), which is
// dateutil's relativedelta arithmetic: the wants are Python's
// datetime(2024, 3, 4, 5, 6, 7, 123, utc) + relativedelta(...).
func TestTemplate_PendulumAddSubtract(t *testing.T) {
	t.Parallel()
	cases := []struct{ template, want string }{
		{"{{ execution_date.add(days=1) }}", "2024-03-05 05:06:07.000123+00:00"},
		{"{{ execution_date.subtract(months=1, hours=6) }}", "2024-02-03 23:06:07.000123+00:00"},
		{"{{ execution_date.replace(month=1, day=31).add(months=1) }}", "2024-02-29 05:06:07.000123+00:00"},
		{"{{ execution_date.add(1, 0, 2, 0, 0, 70, 5, 877) }}", "2025-03-18 06:16:12.001000+00:00"},
		{"{{ execution_date.subtract(weeks=1) }}", "2024-02-26 05:06:07.000123+00:00"},
	}
	for _, e := range allEditions {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.template, func(t *testing.T) {
				t.Parallel()
				want := tc.want
				if e != edition2 { // pendulum 1's str() is isoformat
					want = strings.Replace(want, " ", "T", 1)
				}
				got, err := goldenContext(t, e, nil, nil).renderText(tc.template)
				if err != nil || got != want {
					t.Errorf("render %s = %q, %v; want %q", tc.template, got, err, want)
				}
			})
		}
	}
	if _, err := goldenContext(t, edition2, nil, nil).renderText("{{ execution_date.add(seconds='1') }}"); err == nil || !strings.Contains(err.Error(), "must be an int") {
		t.Errorf("add(seconds='1'): %v, want a TypeError", err)
	}
}
