package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goldenTemplates is testdata/templates_golden.json, written by
// scripts/template_golden.py with the real Jinja2 (3.1.6).
type goldenTemplates struct {
	Conf      map[string]any    `json:"conf"`
	Variables map[string]string `json:"variables"`
	Rows      []struct {
		Name     string  `json:"name"`
		Edition  edition `json:"edition"`
		Template string  `json:"template"`
		Want     *string `json:"want"`
		Error    string  `json:"error"`
	} `json:"rows"`
}

// goldenContext is the context the generator renders with: a triggered
// run of DAG "example" (no schedule), task "t", on 2024-03-04T05:06:07.000123Z.
func goldenContext(t *testing.T, e edition, conf map[string]any, variables map[string]string) templateContext {
	t.Helper()
	raw, err := json.Marshal(conf)
	if err != nil {
		t.Fatal(err)
	}
	return templateContext{
		dag:  &DAG{DagID: "example", Params: map[string]any{"p": "from the DAG"}},
		task: &Task{TaskID: "t", Operator: "BashOperator"},
		run: &DagRun{DagID: "example", RunID: "manual__2024-03-04T05:06:07.000123+00:00", RunType: "manual",
			ExecutionDate: time.Date(2024, 3, 4, 5, 6, 7, 123000, time.UTC), Conf: raw, ExternalTrigger: true, State: RunRunning},
		try:   1,
		rules: e.rules(),
		variables: func(key string) (string, bool) {
			v, ok := variables[key]
			return v, ok
		},
	}
}

// Templates render as Jinja2 renders them in Airflow: the context of each
// edition (Airflow 2.10.3 airflow/models/taskinstance.py:1109-1160, 1.10.15
// airflow/models/taskinstance.py:1348-1389), strict undefined names in 2
// (airflow/models/dag.py:536) and lenient ones in 1.10 (airflow/models/dag.py:810),
// Python's str() of what is printed.
func TestTemplate_Golden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/templates_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden goldenTemplates
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	for _, row := range golden.Rows {
		t.Run(string(row.Edition)+"/"+row.Name, func(t *testing.T) {
			t.Parallel()
			tc := goldenContext(t, row.Edition, golden.Conf, golden.Variables)
			got, err := tc.renderText(row.Template)
			if row.Want != nil {
				if err != nil || got != *row.Want {
					t.Errorf("render %q\n got %q, %v\nwant %q", row.Template, got, err, *row.Want)
				}
				return
			}
			if err == nil {
				t.Fatalf("render %q = %q, want an error like %s", row.Template, got, row.Error)
			}
			if want := goldenErrorWords(row.Error); !strings.Contains(err.Error(), want) {
				t.Errorf("render %q: %v\nwant it to name %q", row.Template, err, want)
			}
		})
	}
}

// goldenErrorWords is what airlite's error must say of a Jinja2 error: a
// KeyError as it is, an undefined name by its name.
func goldenErrorWords(jinjaError string) string {
	if strings.HasPrefix(jinjaError, "KeyError: ") {
		return jinjaError
	}
	if i := strings.LastIndex(jinjaError, "'"); i > 0 {
		j := strings.LastIndex(jinjaError[:i], "'")
		return jinjaError[j+1 : i]
	}
	return jinjaError
}

// No lookup means no Variables: var.value fails as Airflow's does.
func TestTemplate_NoVariables(t *testing.T) {
	t.Parallel()
	tc := goldenContext(t, edition2, nil, nil)
	tc.variables = nil
	_, err := tc.renderText("{{ var.value.x }}")
	// Airflow 2.10.3 airflow/models/variable.py:145
	if err == nil || !strings.Contains(err.Error(), "KeyError: 'Variable x does not exist'") {
		t.Errorf("render var.value.x without variables: %v", err)
	}
}

// Templates that would read files or that do not parse are refused when
// the DAG loads, naming the line.
func TestTemplate_RefusedAtLoad(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, command, want string }{
		{"include", `{% include "/etc/passwd" %}`, "reads another template file"},
		{"import", `{% import "x" as y %}`, "reads another template file"},
		{"unclosed block", "echo a\n{% if true %}echo b", "not a valid Jinja template"},
		{"unclosed print", "echo {{ ds", "not a valid Jinja template"},
		// Closing the rewrite's parentheses would take the value out of the print filter.
		// gonja's lexer never returns on this text (found by FuzzJinjaShell).
		{"replacement character before a number", "{%\uFFFD0.\u3789", "U+FFFD"},
		{"invalid UTF-8", "{%\x920.\u3789", "invalid UTF-8"},
		{"breaking out of the wrap", `echo {{ dag_run.conf.x) if true else (ds }}`, "not a valid Jinja template"},
		{"breaking out with a filter", `echo {{ dag_run.conf.x)|string|lower(( }}`, "not a valid Jinja template"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileShellPlan(tc.command)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("compile %q: %v, want %q", tc.command, err, tc.want)
			}
		})
	}
}

// renderShellText renders a bash_command for the golden run, refusals at
// load and at run time alike returned as errors.
func renderShellText(t *testing.T, command string) (string, []string, error) {
	t.Helper()
	plan, err := compileShellPlan(command)
	if err != nil {
		return "", nil, err
	}
	tc := goldenContext(t, edition2, map[string]any{"x": "$(touch M)", "l": []any{"a;b", "`c`"}, "mode": "a"}, nil)
	return tc.renderShell(plan)
}

// Full Jinja on request values in bash_command: the value always reaches
// bash through an environment variable, whatever the template does with
// it first, and control flow on it only chooses between the author's text.
func TestTemplate_ShellRequestValuesThroughJinja(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, command string
		wantCommand   string
		wantEnv       []string
	}{
		{"subscript", `echo {{ dag_run.conf['x'] }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(touch M)"}},
		{"replace", `echo "{{ dag_run.conf.x|replace('touch', 'rm') }}"`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(rm M)"}},
		{"join", `echo {{ dag_run.conf.l|join(' ') }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=a;b `c`"}},
		{"concatenation", `echo {{ "x" ~ dag_run.conf.x ~ ds }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=x$(touch M)2024-03-04"}},
		{"format", `echo {{ "%s;%s"|format(dag_run.conf.x, ds) }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(touch M);2024-03-04"}},
		{"macro on a conf value", `echo {{ macros.ds_add(dag_run.conf.get('d', ds), 1) }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=2024-03-05"}},
		{"for over conf", `{% for v in dag_run.conf.l %}echo {{ v }};{% endfor %}`, `echo "${AIRLITE_VALUE_1}";echo "${AIRLITE_VALUE_2}";`,
			[]string{"AIRLITE_VALUE_1=a;b", "AIRLITE_VALUE_2=`c`"}},
		{"if on conf", `{% if dag_run.conf.mode == 'a' %}echo A{% else %}echo B{% endif %}`, `echo A`, nil},
		{"set from conf", `{% set v = dag_run.conf.x %}echo "{{ v }}"`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(touch M)"}},
		{"static name rebound to conf", `{% set ds = dag_run.conf.x %}echo {{ ds }}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(touch M)"}},
		{"static in a loop stays inline", `{% for i in range(2) %}echo {{ macros.ds_add(ds, 7) }};{% endfor %}`, `echo 2024-03-11;echo 2024-03-11;`, nil},
		{"filter block keeping the marker", `{% filter trim %}  echo {{ dag_run.conf.x }}  {% endfilter %}`, `echo "${AIRLITE_VALUE_1}"`, []string{"AIRLITE_VALUE_1=$(touch M)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, env, err := renderShellText(t, tc.command)
			if err != nil || got != tc.wantCommand || strings.Join(env, "\n") != strings.Join(tc.wantEnv, "\n") {
				t.Errorf("render %q\n got %q %q %v\nwant %q %q", tc.command, got, env, err, tc.wantCommand, tc.wantEnv)
			}
		})
	}
}

// Where bash would read the value as code, or where airlite cannot follow
// it, the try fails (or the DAG is refused at load) and nothing of the
// value is in the command.
func TestTemplate_ShellRequestValuesRefusedThroughJinja(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, command, want string }{
		{"subscript in a here-document", "cat <<EOF\n{{ dag_run.conf['x'] }}\nEOF", "inside a here-document"},
		{"filter in eval", `eval {{ dag_run.conf.x|replace('a', 'b') }}`, "argument of eval"},
		{"join in bash -c", `bash -c "{{ dag_run.conf.l|join(' ') }}"`, "argument of bash"},
		{"concatenation as the command name", `{{ dag_run.conf.x ~ "" }} arg`, "as the command name"},
		{"format in single quotes", `echo '{{ "%s"|format(dag_run.conf.x) }}'`, "inside single quotes"},
		{"loop value in a command substitution", `{% for v in dag_run.conf.l %}echo $(echo {{ v }}){% endfor %}`, "command substitution"},
		{"conf under an if in a here-document", "cat <<EOF\n{% if true %}{{ dag_run.conf.x }}{% endif %}\nEOF", "inside a here-document"},
		{"filter block changing the marker", `{% filter upper %}echo {{ dag_run.conf.x }}{% endfilter %}`, "cannot keep it out of shell text"},
		{"set block", `{% set s %}{{ dag_run.conf.x }}{% endset %}echo "{{ s }}"`, "cannot keep it out of shell text"},
		{"macro", `{% macro m(v) %}{{ v }}{% endmacro %}echo "{{ m(dag_run.conf.x) }}"`, "cannot keep it out of shell text"},
		{"mutated list", `{% set l = [] %}{{ l.append(dag_run.conf.x) or "" }}echo {{ l[0] }}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, env, err := renderShellText(t, tc.command)
			if strings.Contains(got, "touch") {
				t.Fatalf("render %q put the value into the command: %q", tc.command, got)
			}
			if tc.want == "" { // accepted only with the value in the environment
				if err == nil && !strings.Contains(strings.Join(env, "\n"), "touch") {
					t.Errorf("render %q = %q %q", tc.command, got, env)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("render %q = %q, %v; want an error naming %q", tc.command, got, err, tc.want)
			}
		})
	}
}

// Any template either is refused, fails its try, or renders with every
// request value outside the command: the payload, whatever Jinja did to
// it, never reaches the text bash parses.
func FuzzJinjaShell(f *testing.F) {
	for _, seed := range []string{
		`echo {{ dag_run.conf['x'] }}`,
		`echo "{{ dag_run.conf.x|replace('p', 'q') }}"`,
		`{% for v in dag_run.conf.l %}echo {{ v }};{% endfor %}`,
		`echo {{ dag_run.conf.l|join(' ') ~ ds }}`,
		`{% if dag_run.conf.x %}echo {{ "%s"|format(dag_run.conf.x) }}{% endif %}`,
		`{% set s = dag_run.conf.x %}cat <<EOF\n{{ s }}\nEOF`,
		`{% filter lower %}echo {{ params.x }}{% endfilter %}`,
		`echo {{ dag_run.conf.x if dag_run else ds }} {{ run_id }}`,
		`{% macro m(a) %}{{ a }}{% endmacro %}echo {{ m(dag_run.conf.x) }}`,
		`echo {{ dag_run.conf.x[::-1] }} {{ dag_run.conf.x|reverse|join }}`,
	} {
		f.Add(seed)
	}
	const payload = "PaYload$(touch M)`id`"
	f.Fuzz(func(t *testing.T, command string) {
		plan, err := compileShellPlan(command)
		if err != nil {
			return
		}
		tc := goldenContext(t, edition2, map[string]any{"x": payload, "l": []any{payload, "b"}}, nil)
		rendered, _, err := tc.renderShell(plan)
		if err != nil {
			return
		}
		for _, piece := range []string{"PaYload", "paylo", "PAYLO", "touch M", "HCUOT", "`id`"} {
			if strings.Contains(rendered, piece) && !strings.Contains(command, piece) {
				t.Fatalf("%q rendered part of a request value into the command: %q", command, rendered)
			}
		}
	})
}

// An env value that is no valid template refuses the DAG at load, naming
// the task and the variable.
func TestTemplate_EnvRefusedAtLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	def := "dag_id: badenv\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n" +
		"    env: {X: \"{{ dag_run.conf.x \"}\n    bash_command: echo \"$X\"\n"
	if err := os.WriteFile(filepath.Join(dir, "badenv.yaml"), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadDAGDir(dir)
	if err == nil || !strings.Contains(err.Error(), `line 6: task "t": env X: template syntax error`) {
		t.Fatalf("load: %v", err)
	}
}

// The env templates of Airflow's example_trigger_target_dag render as in
// Airflow for a run triggered without a conf: 1.10.15 stores None (Jinja
// makes None["message"] undefined, which prints as nothing), 2.10.3
// stores {} (get gives None).
func TestTemplate_TriggerTargetExampleWithoutConf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		edition  edition
		conf     []byte
		template string
		want     string
	}{
		// Airflow 1.10.15 airflow/example_dags/example_trigger_target_dag.py:70
		{edition110, nil, `{{ dag_run.conf["message"] if dag_run else "" }}`, ""},
		// Airflow 2.10.3 airflow/example_dags/example_trigger_target_dag.py:55
		{edition2, []byte(`{}`), `{{ dag_run.conf.get("message") }}`, "None"},
		{edition2, []byte(`{"message": "hi"}`), `{{ dag_run.conf.get("message") }}`, "hi"},
	}
	for _, tc := range cases {
		ctx := goldenContext(t, tc.edition, nil, nil)
		ctx.run.Conf = tc.conf
		got, err := ctx.renderText(tc.template)
		if err != nil || got != tc.want {
			t.Errorf("%s: render %q with conf %s = %q, %v; want %q", tc.edition, tc.template, tc.conf, got, err, tc.want)
		}
	}
}

// The tutorial's templated command loads and renders: static dates
// inlined, the param (a request value, which a conf may override) passed
// through the environment, once per loop turn.
func TestTemplate_TutorialTemplatedCommand(t *testing.T) {
	t.Parallel()
	// Airflow 1.10.15 airflow/example_dags/tutorial.py:104
	const command = "\n{% for i in range(5) %}\n    echo \"{{ ds }}\"\n    echo \"{{ macros.ds_add(ds, 7)}}\"\n    echo \"{{ params.my_param }}\"\n{% endfor %}\n"
	plan, err := compileShellPlan(command)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	for _, e := range []edition{edition2, edition110} {
		tc := goldenContext(t, e, nil, nil)
		tc.task.Params = map[string]any{"my_param": "Parameter I passed in"}
		tc.run.Conf = nil
		got, env, err := tc.renderShell(plan)
		var want strings.Builder
		var wantEnv []string
		want.WriteString("\n")
		for i := range 5 {
			fmt.Fprintf(&want, "\n    echo \"2024-03-04\"\n    echo \"2024-03-11\"\n    echo \"${AIRLITE_VALUE_%d}\"\n", i+1)
			wantEnv = append(wantEnv, fmt.Sprintf("AIRLITE_VALUE_%d=Parameter I passed in", i+1))
		}
		if err != nil || got != want.String() || strings.Join(env, "\n") != strings.Join(wantEnv, "\n") {
			t.Errorf("%s: render\n got %q %q %v\nwant %q %q", e, got, env, err, want.String(), wantEnv)
		}
	}
}

// A scheduled run's neighbours are the schedule's ticks, and its data
// interval runs to the next one (Airflow 2.10.3
// airflow/models/taskinstance.py:1031-1068; 1.10.15
// airflow/models/taskinstance.py:1260-1266).
func TestTemplate_ScheduledRunDates(t *testing.T) {
	t.Parallel()
	daily := "@daily"
	cases := []struct {
		edition  edition
		template string
		want     string
	}{
		{edition2, "{{ prev_ds }} {{ next_ds }} {{ data_interval_start | ds }} {{ data_interval_end | ds }}", "2024-03-03 2024-03-05 2024-03-04 2024-03-05"},
		{edition2, "{{ next_execution_date }}", "2024-03-05 00:00:00+00:00"},
		{edition110, "{{ prev_ds_nodash }} {{ next_ds_nodash }} {{ prev_execution_date }}", "20240303 20240305 2024-03-03T00:00:00+00:00"},
	}
	for _, tc := range cases {
		ctx := goldenContext(t, tc.edition, nil, nil)
		ctx.dag.Schedule = &daily
		ctx.run.ExternalTrigger = false
		ctx.run.ExecutionDate = time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)
		got, err := ctx.renderText(tc.template)
		if err != nil || got != tc.want {
			t.Errorf("%s: render %q = %q, %v; want %q", tc.edition, tc.template, got, err, tc.want)
		}
	}
}

// conn reads the stored Connections as Airflow 2.10.3's ConnectionAccessor
// does (airflow/utils/context.py:140-162): fields, extra_dejson, str() the
// conn_id (airflow/models/connection.py:421-422), get with a default; a
// missing conn_id fails naming it (connection.py:537).
func TestTemplate_Connections(t *testing.T) {
	t.Parallel()
	host, extra := "db.example", `{"region": "eu", "n": 2}`
	port := 5432
	db := &Connection{ConnID: "db", ConnType: "postgres", Host: &host, Port: &port, Extra: &extra}
	tc := goldenContext(t, edition2, nil, nil)
	tc.connections = func(id string) (*Connection, bool) { return db, id == "db" }
	cases := []struct{ template, want string }{
		{"{{ conn.db }}", "db"},
		{"{{ conn.db.host }}:{{ conn.db.port }}", "db.example:5432"},
		{"{{ conn.db.login }} {{ conn.db.conn_type }}", "None postgres"},
		{"{{ conn.db.extra_dejson.region }}{{ conn.db.extra_dejson['n'] }}", "eu2"},
		{"{{ conn.get('nope', 'fallback') }}", "fallback"},
		{"{{ conn.get('nope') }}", "None"},
		{"{{ conn.get('db').host }}", "db.example"},
	}
	for _, c := range cases {
		got, err := tc.renderText(c.template)
		if err != nil || got != c.want {
			t.Errorf("%s = %q, %v; want %q", c.template, got, err, c.want)
		}
	}
	if _, err := tc.renderText("{{ conn.nope.host }}"); err == nil || !strings.Contains(err.Error(), "The conn_id `nope` isn't defined") {
		t.Errorf("missing connection: %v", err)
	}
}

// macros.datetime is Python's datetime class in Airflow's macros module
// (Airflow 2.10.3 airflow/macros/__init__.py:23, 1.10.15
// airflow/macros/__init__.py:21): strptime gives a naive datetime, whose
// str() has no offset.
func TestTemplate_MacrosDatetime(t *testing.T) {
	t.Parallel()
	cases := []struct {
		template, want, wantErr string
	}{
		{"{{ macros.datetime }}", "<class 'datetime.datetime'>", ""},
		{"{{ macros.datetime.strptime('2024-03-04 05:06', '%Y-%m-%d %H:%M') }}", "2024-03-04 05:06:00", ""},
		{"{{ macros.datetime.strptime(ds, '%Y-%m-%d').year }}", "2024", ""},
		{"{{ macros.datetime.strptime(ds_nodash, '%Y%m%d').strftime('%d/%m/%Y') }}", "04/03/2024", ""},
		{"{{ macros.datetime.utcnow().year > 2000 }}", "True", ""},
		{"{{ macros.datetime.strptime('May', '%Y') }}", "", "ValueError: time data 'May' does not match format '%Y'"},
	}
	for _, e := range []edition{edition2, edition110} {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.template, func(t *testing.T) {
				t.Parallel()
				got, err := goldenContext(t, e, nil, nil).renderText(tc.template)
				switch {
				case tc.wantErr == "" && (err != nil || got != tc.want):
					t.Errorf("render = %q, %v; want %q", got, err, tc.want)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("render = %q, %v; want an error saying %q", got, err, tc.wantErr)
				}
			})
		}
	}
}
