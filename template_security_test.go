package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// jinjaShapes are bash_commands that run request values through Jinja
// (subscripts, filters, concatenation, format, loops, control flow) before
// bash sees them; want is the task's output for a conf {"x": value}.
var jinjaShapes = []struct {
	name, command string
	want          func(value, ds string) string
}{
	{"subscript", `printf '%s\n' {{ dag_run.conf['x'] }}`, func(v, _ string) string { return v + "\n" }},
	{"replace", `printf '%s\n' "{{ dag_run.conf.x|replace('M', 'N') }}"`, func(v, _ string) string { return strings.ReplaceAll(v, "M", "N") + "\n" }},
	{"join in a loop", `{% for v in [dag_run.conf.x, 'b'] %}printf '[%s]' {{ v }};{% endfor %}echo`, func(v, _ string) string { return "[" + v + "][b]\n" }},
	{"concatenation", `printf '%s\n' {{ dag_run.conf.x ~ "|" ~ ds }}`, func(v, ds string) string { return v + "|" + ds + "\n" }},
	{"format on params", `printf '%s\n' "{{ "%s!"|format(params.x) }}"`, func(v, _ string) string { return v + "!\n" }},
	{"upper", `X={{ dag_run.conf.x|upper }}; printf '%s\n' "$X"`, func(v, _ string) string { return strings.ToUpper(v) + "\n" }},
	{"if on a value", `{% if dag_run.conf.x == 'never' %}echo no{% else %}echo yes{% endif %}`, func(string, string) string { return "yes\n" }},
	{"inline if", `printf '%s\n' {{ dag_run.conf["x"] if dag_run else "" }}`, func(v, _ string) string { return v + "\n" }},
	{"tutorial loop", `{% for i in range(2) %}echo "{{ macros.ds_add(ds, 7) }}";{% endfor %}`, func(_, ds string) string {
		day, _ := time.Parse("2006-01-02", ds)
		return strings.Repeat(day.AddDate(0, 0, 7).Format("2006-01-02")+"\n", 2)
	}},
}

// Request values that Jinja transforms still reach bash only as data: a
// real bash task prints them verbatim and nothing they name runs.
func TestSecurity_JinjaRequestValuesReachBashAsData(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var def strings.Builder
			def.WriteString("dag_id: jinja\nschedule_interval: null\nparams: {x: from the DAG}\ntasks:\n")
			for i, shape := range jinjaShapes {
				command, _ := json.Marshal(shape.command)
				fmt.Fprintf(&def, "  - task_id: shape_%d\n    operator: BashOperator\n    cwd: %q\n    bash_command: %s\n", i, dir, command)
			}
			ts, sched := newSchedServer(t, e, tickDriven, withDAG(def.String()))
			day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
			for i, value := range hostileValues {
				body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": value}, "run_id": fmt.Sprintf("value_%d", i),
					"execution_date": day.AddDate(0, 0, i).Format(time.RFC3339)})
				ts.trigger(t, "jinja", string(body))
			}
			for i, value := range hostileValues {
				runID := fmt.Sprintf("value_%d", i)
				done := ts.tickRun(t, sched, "jinja", runID)
				ds := day.AddDate(0, 0, i).Format("2006-01-02")
				for j, shape := range jinjaShapes {
					if got, want := ts.taskOutput(t, "jinja", runID, fmt.Sprintf("shape_%d", j)), shape.want(value, ds); got != want {
						t.Errorf("%s with %q (run %v)\n got %q\nwant %q", shape.name, value, done["state"], got, want)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "M")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a request value ran as shell text: the marker exists (%v)", err)
			}
		})
	}
}

// Variables and Connections set through /api/v1 reach a template's
// var.value and conn as request values: a hostile one is echoed verbatim
// and runs nothing, and a missing Variable fails the try as Airflow's
// Variable.get does (Airflow 2.10.3 airflow/models/variable.py:145-146).
func TestSecurity_VariablesAndConnectionsReachBashAsData(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	dag, err := parseDAG([]byte(`
dag_id: d
tasks:
  - {task_id: t, operator: BashOperator, bash_command: 'echo {{ var.value.greeting }}'}
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := bashRunner(t)
	job := taskJob{key: tiKey{"d", "r", "t", -1}, try: 1, dag: dag, task: dag.Task("t"),
		run: DagRun{DagID: "d", RunID: "r", ExecutionDate: testNow}}
	out := runner.runBash(context.Background(), job)
	if out.state != TaskFailed || !strings.Contains(out.reason, "Variable greeting does not exist") {
		t.Fatalf("missing variable: %q %q", out.state, out.reason)
	}
	hostile := "$(touch " + marker + "); `touch " + marker + "`"
	if _, err := runner.opts.Store.SetVariable("greeting", hostile, nil); err != nil {
		t.Fatal(err)
	}
	out = runner.runBash(context.Background(), job)
	if out.state != TaskSuccess || out.output != hostile+"\n" {
		t.Fatalf("variable: %q (%s), output %q, want it verbatim", out.state, out.reason, out.output)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a variable's value ran as shell code")
	}
	// A Connection's fields come from the same API: data as well.
	connDAG, err := parseDAG([]byte(`
dag_id: c
tasks:
  - {task_id: t, operator: BashOperator, bash_command: 'echo {{ conn.db.host }}'}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.opts.Store.CreateConnection(Connection{ConnID: "db", ConnType: "http", Host: &hostile}); err != nil {
		t.Fatal(err)
	}
	out = runner.runBash(context.Background(), taskJob{key: tiKey{"c", "r", "t", -1}, try: 1, dag: connDAG, task: connDAG.Task("t"),
		run: DagRun{DagID: "c", RunID: "r", ExecutionDate: testNow}})
	if out.state != TaskSuccess || out.output != hostile+"\n" {
		t.Fatalf("connection: %q (%s), output %q, want it verbatim", out.state, out.reason, out.output)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a connection's host ran as shell code")
	}
}
