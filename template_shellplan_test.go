package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// renderPlan compiles a bash_command and renders it for a run whose conf
// is {"x": "V", "y": "W"} on 2024-03-04, try 2.
func renderPlan(t *testing.T, command string) (string, []string, error) {
	t.Helper()
	plan, err := compileShellPlan(command)
	if err != nil {
		return "", nil, err
	}
	dag := &DAG{DagID: "d", Params: map[string]any{"p": "from the DAG"}}
	task := &Task{TaskID: "t"}
	run := &DagRun{DagID: "d", RunID: "manual__r", ExecutionDate: time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC),
		Conf: []byte(`{"x": "V", "y": "W"}`)}
	rendered, env, err := templateContext{dag: dag, task: task, run: run, try: 2, rules: edition2.rules()}.renderShell(plan)
	if err != nil {
		t.Fatalf("render %q: %v", command, err)
	}
	return rendered, env, nil
}

func TestShellPlan_AllowedShapes(t *testing.T) {
	t.Parallel()
	const x = "{{ dag_run.conf.x }}"
	v1 := []string{"AIRLITE_VALUE_1=V"}
	cases := []struct {
		name, command string
		wantCommand   string
		wantEnv       []string
	}{
		{"unquoted word", "echo " + x, `echo "${AIRLITE_VALUE_1}"`, v1},
		{"double quotes", `echo "` + x + `"`, `echo "${AIRLITE_VALUE_1}"`, v1},
		{"inside a double-quoted sentence", `echo "a ` + x + ` b"`, `echo "a ${AIRLITE_VALUE_1} b"`, v1},
		{"double quotes next to a word", `echo a"` + x + `"b`, `echo a"${AIRLITE_VALUE_1}"b`, v1},
		{"option value", "grep --regexp=" + x + " f", `grep --regexp="${AIRLITE_VALUE_1}" f`, v1},
		{"assignment", "X=" + x, `X="${AIRLITE_VALUE_1}"`, v1},
		{"assignment before a command", "X=" + x + " ./run.sh", `X="${AIRLITE_VALUE_1}" ./run.sh`, v1},
		{"append", "X+=" + x, `X+="${AIRLITE_VALUE_1}"`, v1},
		{"export", "export X=" + x, `export X="${AIRLITE_VALUE_1}"`, v1},
		{"local", "f() { local X=" + x + "; }", `f() { local X="${AIRLITE_VALUE_1}"; }`, v1},
		{"declare without options", "declare X=" + x, `declare X="${AIRLITE_VALUE_1}"`, v1},
		{"readonly", "readonly X=" + x, `readonly X="${AIRLITE_VALUE_1}"`, v1},
		{"case word", "case " + x + " in a) echo a;; esac", `case "${AIRLITE_VALUE_1}" in a) echo a;; esac`, v1},
		{"for list", "for v in a " + x + "; do echo $v; done", `for v in a "${AIRLITE_VALUE_1}"; do echo $v; done`, v1},
		{"pipeline", "echo " + x + " | tr a b", `echo "${AIRLITE_VALUE_1}" | tr a b`, v1},
		{"and list", "true && echo " + x, `true && echo "${AIRLITE_VALUE_1}"`, v1},
		{"subshell", "(echo " + x + ")", `(echo "${AIRLITE_VALUE_1}")`, v1},
		{"group", "{ echo " + x + "; }", `{ echo "${AIRLITE_VALUE_1}"; }`, v1},
		{"if body", "if true; then echo " + x + "; else echo no; fi", `if true; then echo "${AIRLITE_VALUE_1}"; else echo no; fi`, v1},
		{"if condition", "if grep -q " + x + " f; then :; fi", `if grep -q "${AIRLITE_VALUE_1}" f; then :; fi`, v1},
		{"while body", "while true; do echo " + x + "; break; done", `while true; do echo "${AIRLITE_VALUE_1}"; break; done`, v1},
		{"function body", "f() { echo \"" + x + "\"; }; f", `f() { echo "${AIRLITE_VALUE_1}"; }; f`, v1},
		{"case body", "case a in a) echo " + x + ";; esac", `case a in a) echo "${AIRLITE_VALUE_1}";; esac`, v1},
		{"an argument after a command substitution", "echo $(date) " + x, `echo $(date) "${AIRLITE_VALUE_1}"`, v1},
		{"a quoted program name", `"./my script" ` + x, `"./my script" "${AIRLITE_VALUE_1}"`, v1},
		{"find with a value that is data", "find . -name " + x, `find . -name "${AIRLITE_VALUE_1}"`, v1},
		{"find -exec with a value as an argument", "find . -exec grep -l " + x + " {} +", `find . -exec grep -l "${AIRLITE_VALUE_1}" {} +`, v1},
		{"printf -v with a value as data", `printf -v out '%s' ` + x, `printf -v out '%s' "${AIRLITE_VALUE_1}"`, v1},
		{"test", `[ "` + x + `" = yes ]`, `[ "${AIRLITE_VALUE_1}" = yes ]`, v1},
		{"two backslashes", `echo \\` + x, `echo \\"${AIRLITE_VALUE_1}"`, v1},
		{"a value beside a variable", `echo "$HOME/` + x + `"`, `echo "$HOME/${AIRLITE_VALUE_1}"`, v1},
		{"multi-line", "set -e\necho " + x + "\necho {{ dag_run.conf.y }}",
			"set -e\necho \"${AIRLITE_VALUE_1}\"\necho \"${AIRLITE_VALUE_2}\"", []string{"AIRLITE_VALUE_1=V", "AIRLITE_VALUE_2=W"}},
		{"params, run_id, whole conf", `echo {{ params.p }} {{run_id}} "{{ dag_run.conf }}"`,
			`echo "${AIRLITE_VALUE_1}" "${AIRLITE_VALUE_2}" "${AIRLITE_VALUE_3}"`,
			// The conf prints as Python's str() of the dict, as Jinja does in Airflow.
			[]string{"AIRLITE_VALUE_1=from the DAG", "AIRLITE_VALUE_2=manual__r", `AIRLITE_VALUE_3={'x': 'V', 'y': 'W'}`}},

		// Static names come from the DAG file or the server: inlined anywhere.
		{"static in a here-document", "cat <<EOF\n{{ ds }}\nEOF", "cat <<EOF\n2024-03-04\nEOF", nil},
		{"static in single quotes", "echo '{{ ts }}'", "echo '2024-03-04T00:00:00+00:00'", nil},
		{"static in arithmetic", "echo $(( {{ try_number }} + 1 ))", "echo $(( 2 + 1 ))", nil},
		{"static as the command name", "./{{ task_id }}.sh {{ ds_nodash }}", "./t.sh 20240304", nil},
		{"static names beside a value", "cat <<EOF > {{ task_instance_key_str }}.txt\n{{ dag_id }}\nEOF\necho " + x,
			"cat <<EOF > d__t__20240304.txt\nd\nEOF\necho \"${AIRLITE_VALUE_1}\"", v1},
		{"no template, not parsed", `echo "unterminated`, `echo "unterminated`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, env, err := renderPlan(t, tc.command)
			if err != nil {
				t.Fatalf("compile %q: %v", tc.command, err)
			}
			if got != tc.wantCommand || !slices.Equal(env, tc.wantEnv) {
				t.Errorf("render %q\n got %q %q\nwant %q %q", tc.command, got, env, tc.wantCommand, tc.wantEnv)
			}
		})
	}
}

func TestShellPlan_RefusedShapes(t *testing.T) {
	t.Parallel()
	for _, shape := range refusedShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileShellPlan(shape.command)
			var refusal *shellRefusal
			if !errors.As(err, &refusal) || !strings.Contains(err.Error(), shape.context) {
				t.Fatalf("compile %q: %v, want a refusal naming %q", shape.command, err, shape.context)
			}
			if !strings.Contains(err.Error(), "; ") || refusal.line < 1 {
				t.Errorf("refusal %q (line %d) lacks advice or a line", err, refusal.line)
			}
		})
	}
}

// The refusal says what to do instead, and on which line of the command.
func TestShellPlan_RefusalMessage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, command string
		wantLine      int
		want          string
	}{
		{"here-document", "set -e\ncat <<EOF\n{{ dag_run.conf.x }}\nEOF", 3,
			`{{ dag_run.conf.x }} inside a here-document: a value from a request would be read as shell text; ` +
				`pass it through env instead (env: {X: "{{ dag_run.conf.x }}"}) and write "$X"`},
		{"command name", "{{ dag_run.conf.x }} a", 1,
			`{{ dag_run.conf.x }} as the command name: a value from a request would choose the program to run; name the program in the DAG file`},
		{"bash -c", "echo hi\n\nbash -c \"echo {{ params.x }}\"", 3,
			`{{ params.x }} as an argument of bash, which reads its arguments as code: a value from a request would be read as code; ` +
				`pass it through env instead (env: {X: "{{ params.x }}"}) and let the program read X from its environment ("$X" in bash -c '...')`},
		{"unparseable", "echo ok\necho \"{{ run_id }}", 2,
			`does not parse as bash (line 2 of the command: reached EOF without closing quote `},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileShellPlan(tc.command)
			var refusal *shellRefusal
			if !errors.As(err, &refusal) {
				t.Fatalf("compile %q: %v, want a refusal", tc.command, err)
			}
			if refusal.line != tc.wantLine || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("refusal at line %d: %q\nwant line %d: %q", refusal.line, err, tc.wantLine, tc.want)
			}
		})
	}
}

// A value is carried as it is: bash only expands it, so it reaches the
// program intact whatever it holds, and a value no environment variable can
// carry fails the task instead of being cut.
func TestTemplate_RenderShellValues(t *testing.T) {
	t.Parallel()
	plan, err := compileShellPlan(`printf '%s' "{{ dag_run.conf.x }}"`)
	if err != nil {
		t.Fatal(err)
	}
	dag, task := &DAG{DagID: "d"}, &Task{TaskID: "t"}
	for _, value := range append(slices.Clone(hostileValues), "", "\x00") {
		conf, _ := spacedJSON.marshal(map[string]any{"x": value})
		run := &DagRun{DagID: "d", RunID: "r", Conf: conf}
		_, env, err := templateContext{dag: dag, task: task, run: run, try: 1, rules: edition2.rules()}.renderShell(plan)
		switch {
		case strings.Contains(value, "\x00"):
			if err == nil || !strings.Contains(err.Error(), "NUL") {
				t.Errorf("a NUL byte gave %q, %v; want an error", env, err)
			}
		case err != nil || !slices.Equal(env, []string{"AIRLITE_VALUE_1=" + value}):
			t.Errorf("value %q gave %q, %v", value, env, err)
		}
	}
}

// Any bash_command either compiles or is refused, without a panic; one
// that compiles renders every request value as the expansion of its own
// variable, never into the text of the command.
func FuzzShellPlan(f *testing.F) {
	for _, shape := range allowedShapes {
		f.Add(shape.command)
	}
	for _, shape := range refusedShapes {
		f.Add(shape.command)
	}
	f.Add("cat <<-EOF\n\t{{ ds }} {{ x }}\n\tEOF\necho \"${a[{{ y }}]}\" `{{ z }}` $'{{ w }}' # {{ v }}")
	const payload = "\x01payload$(touch M)"
	dag, task := &DAG{DagID: "d"}, &Task{TaskID: "t"}
	run := &DagRun{DagID: "d", RunID: "r", Conf: []byte(`{"x": "\u0001payload$(touch M)"}`)}
	f.Fuzz(func(t *testing.T, command string) {
		plan, err := compileShellPlan(command)
		var refusal *shellRefusal
		if err != nil {
			if !errors.As(err, &refusal) {
				t.Fatalf("compile %q: %v is not a refusal", command, err)
			}
			return
		}
		// Every name resolves: request values to the payload.
		resolved := &shellPlan{command: plan.command, exprs: slices.Clone(plan.exprs)}
		values := 0
		for i, e := range resolved.exprs {
			resolved.exprs[i].inner = "ds"
			if e.valueVar != "" {
				resolved.exprs[i].inner = "dag_run.conf.x"
				values++
			}
		}
		rendered, env, err := templateContext{dag: dag, task: task, run: run, try: 1, rules: edition2.rules()}.renderShell(resolved)
		if err != nil {
			return // a {% block %}, which fails the task
		}
		if strings.Contains(rendered, payload) || len(env) != values {
			t.Fatalf("%q rendered a value into the command: %q %q", command, rendered, env)
		}
	})
}
