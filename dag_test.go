package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// oneTask is a minimal valid task list.
const oneTask = "tasks:\n  - {task_id: a, operator: EmptyOperator}\n"

// oneTaskEveryEdition names an operator that both releases ship.
const oneTaskEveryEdition = "tasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo}\n"

// goWords are the decoder's words, which no error of a definition file
// may show.
var goWords = regexp.MustCompile(`unmarshal|!!|main\.|(^|\s)yaml:|\binto\b|\bfield\b|\bint\b`)

// quotedValue is a value of the file quoted back in an error (%q): the
// file's own text, which may hold anything, "!!" included.
var quotedValue = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// speaksDecoder reports whether an error shows the decoder's words in
// airlite's own text, leaving aside the values it quotes from the file.
func speaksDecoder(msg string) bool {
	return goWords.MatchString(quotedValue.ReplaceAllString(msg, `"…"`))
}

// laughs is a DAG file whose aliases double its params ten times over:
// a few hundred bytes that would decode to millions of values.
func laughs() string {
	var b strings.Builder
	b.WriteString("dag_id: x\nparams:\n  l0: &l0 [a, b, c, d, e, f, g, h, i, j]\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String() + oneTask
}

// Every error a definition folder can give names the file and the line,
// and says what is wrong in plain words (never the decoder's Go types or
// YAML tags), with the nearest key or name for a typo.
func TestLoadDAGs_Errors(t *testing.T) {
	t.Parallel()
	sub := func(parent, child string) fstest.MapFS {
		return fstest.MapFS{
			"parent.yaml": {Data: []byte("dag_id: p\ntasks:\n  - {task_id: s, operator: SubDagOperator, subdag: " + parent + "}\n")},
			"child.yaml":  {Data: []byte("dag_id: " + child + "\n" + oneTask)},
		}
	}
	one := func(text string) fstest.MapFS { return fstest.MapFS{"f.yaml": {Data: []byte(text)}} }
	task := func(keys string) fstest.MapFS { // one task with these keys, on line 3
		return one("dag_id: x\ntasks:\n  - {task_id: a, " + keys + "}\n")
	}
	pools := func(text string) fstest.MapFS { return fstest.MapFS{"pools.yaml": {Data: []byte(text)}} }
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		// The file as a whole.
		{"empty file", one(""), "dags/f.yaml: line 1: empty file: no DAG defined"},
		{"only comments and blanks", one("# a DAG, one day\n\n   \n"), "dags/f.yaml: line 1: empty file: no DAG defined"},
		{"null document", one("---\n~\n"), "dags/f.yaml: line 2: empty file: no DAG defined"},
		{"yaml syntax", one("dag_id: x\ntasks: [\n"),
			"dags/f.yaml: line 3: not valid YAML or JSON: a value is missing here (an unclosed [ or {, or a stray character?)"},
		{"unclosed flow mapping", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator\n"),
			"dags/f.yaml: line 3: not valid YAML or JSON: a mapping { ... } is not closed, or lacks a comma"},
		{"tab indentation", one("dag_id: x\ntasks:\n\t- {task_id: a}\n"),
			"dags/f.yaml: line 3: not valid YAML or JSON: a character that cannot start a value here (a tab used for indentation? quote the value)"},
		{"colon in a plain value", one("dag_id: x\ndescription: a: b\n" + oneTask),
			`dags/f.yaml: line 2: not valid YAML or JSON: a colon where none may be (quote a value that holds ": ")`},
		{"not UTF-8", one("dag_id: x\ndescription: caf\xe9\n" + oneTask), "dags/f.yaml: line 2: not valid YAML or JSON: bytes that are not UTF-8 text"},
		{"control character", one("dag_id: x\n\x01\n"),
			"dags/f.yaml: line 2: not valid YAML or JSON: a control character, which YAML does not allow (is this a text file?)"},
		{"undefined alias", one("dag_id: x\ndefault_args: *defaults\n" + oneTask),
			"dags/f.yaml: line 2: not valid YAML or JSON: *defaults names no anchor (&defaults) defined above it"},
		{"alias inside its own value", one("dag_id: x\ntasks: &t\n  - <<: *t\n"),
			"dags/f.yaml: line 3: *t is used inside the value it names (&t), which never ends"},
		{"aliases that multiply", one(laughs()), "dags/f.yaml: line 1: aliases (*name) expand this file to over 10 times its values: write the values out"},
		{"a list, not a mapping", one("- dag_id: x\n"), "dags/f.yaml: line 1: the DAG must be a mapping of keys to values, not a list"},
		{"a word, not a mapping", one("hello\n"), `dags/f.yaml: line 1: the DAG must be a mapping of keys to values, not "hello"`},
		{"second document", one("dag_id: x\n" + oneTask + "---\ndag_id: y\n"),
			"dags/f.yaml: line 5: a second YAML document (after ---): a file holds one definition"},
		{"json syntax", fstest.MapFS{"j.json": {Data: []byte("{\n  \"dag_id\": \"j\"\n  \"tasks\": []\n}\n")}},
			"dags/j.json: line 3: not valid YAML or JSON: a mapping { ... } is not closed, or lacks a comma"},

		// Keys.
		{"unknown DAG key", one("dag_id: x\nschedul: '@daily'\n" + oneTask), `dags/f.yaml: line 2: unknown key "schedul" (did you mean schedule?)`},
		{"unknown DAG key, letter case", one("dag_id: x\nDAG_ID: y\n" + oneTask), `dags/f.yaml: line 2: unknown key "DAG_ID" (did you mean dag_id?)`},
		{"unknown DAG key, nothing near", one("dag_id: x\nflavour: mint\n" + oneTask),
			`dags/f.yaml: line 2: unknown key "flavour" in the DAG (it takes dag_id, description, schedule_interval, schedule, ` +
				`start_date, end_date, catchup, is_paused_upon_creation, max_active_runs, max_active_tasks, concurrency, ` +
				`dagrun_timeout, tags, allowed_run_types, params, doc_md, timezone, default_args, tasks)`},
		{"task key at DAG level", one("dag_id: x\nretries: 3\n" + oneTask),
			`dags/f.yaml: line 2: unknown key "retries" in the DAG: it is a task key: set it on a task, or on every task in default_args`},
		{"unknown task key", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: BashOperator\n    bash_command: echo\n    bash_comand: x\n"),
			`dags/f.yaml: line 6: unknown key "bash_comand" (did you mean bash_command?)`},
		{"DAG key in a task", task("operator: EmptyOperator, schedule_interval: '@daily'"),
			`dags/f.yaml: line 3: unknown key "schedule_interval" in a task: it is a DAG key: set it at the top of the file`},
		{"unknown default_args key", one("dag_id: x\ndefault_args:\n  ownr: me\n" + oneTask), `dags/f.yaml: line 3: unknown key "ownr" (did you mean owner?)`},
		{"unknown simulate key", task("operator: PythonOperator, simulate: {outcom: failed}"),
			`dags/f.yaml: line 3: unknown key "outcom" (did you mean outcome?)`},
		{"unknown simulate key, nothing near", task("operator: PythonOperator, simulate: {colour: red}"),
			`dags/f.yaml: line 3: unknown key "colour" in simulate (it takes duration, outcome, fail_times, xcom)`},
		{"repeated key", one("dag_id: x\ncatchup: true\ncatchup: false\n" + oneTask),
			`dags/f.yaml: line 3: key "catchup" appears twice in the DAG (first at line 2)`},
		{"repeated env name", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: EmptyOperator\n    env:\n      A: '1'\n      A: '2'\n"),
			`dags/f.yaml: line 7: key "A" appears twice in env (first at line 6)`},
		{"repeated task key in a merge", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, retries: 1, retries: 2}\n"),
			`dags/f.yaml: line 3: key "retries" appears twice in a task (first at line 3)`},
		{"unknown key from a merge", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, <<: {ownr: me}}\n"),
			`dags/f.yaml: line 3: unknown key "ownr" (did you mean owner?)`},
		{"a mapping as a key", one("dag_id: x\n? {a: b}\n: c\n" + oneTask), "dags/f.yaml: line 2: a key must be a word, not a mapping"},
		{"json unknown key", fstest.MapFS{"j.json": {Data: []byte("{\n  \"dag_id\": \"j\",\n  \"tasks\": [\n" +
			"    {\"task_id\": \"t\", \"operator\": \"EmptyOperator\",\n     \"trigger_rul\": \"all_done\"}\n  ]\n}\n")}},
			`dags/j.json: line 5: unknown key "trigger_rul" (did you mean trigger_rule?)`},

		// Values of the wrong form.
		{"word for a number", task("operator: EmptyOperator, retries: three"), `dags/f.yaml: line 3: retries must be a whole number, not "three"`},
		{"fraction for a number", one("dag_id: x\nmax_active_runs: 1.5\n" + oneTask), "dags/f.yaml: line 2: max_active_runs must be a whole number, not the number 1.5"},
		{"word for a flag", one("dag_id: x\ncatchup: maybe\n" + oneTask), `dags/f.yaml: line 2: catchup must be true or false, not "maybe"`},
		{"list for a string", one("dag_id: [a, b]\n" + oneTask), "dags/f.yaml: line 1: dag_id must be a string, not a list"},
		{"mapping for a list", one("dag_id: x\ntags: {a: b}\n" + oneTask), "dags/f.yaml: line 2: tags must be a list of strings, not a mapping"},
		{"mapping in a list of strings", one("dag_id: x\ntags:\n  - a\n  - {b: c}\n" + oneTask),
			"dags/f.yaml: line 4: each item of tags must be a string, not a mapping"},
		{"list for env", task("operator: EmptyOperator, env: [A]"), "dags/f.yaml: line 3: env must be a mapping of names to strings, not a list"},
		{"list as an env value", task("operator: EmptyOperator, env: {A: [1]}"), "dags/f.yaml: line 3: each item of env must be a string, not a list"},
		{"word for params", one("dag_id: x\nparams: none\n" + oneTask), `dags/f.yaml: line 2: params must be a mapping, not "none"`},
		{"word for simulate", task("operator: PythonOperator, simulate: fast"), `dags/f.yaml: line 3: simulate must be a mapping of keys to values, not "fast"`},
		{"list for default_args", one("dag_id: x\ndefault_args: [a]\n" + oneTask), "dags/f.yaml: line 2: default_args must be a mapping of keys to values, not a list"},
		{"mapping for tasks", one("dag_id: x\ntasks: {a: b}\n"),
			"dags/f.yaml: line 2: tasks must be a list of tasks (each a mapping: - task_id: ...), not a mapping"},
		{"word for a task", one("dag_id: x\ntasks:\n  - a\n"), `dags/f.yaml: line 3: each task must be a mapping of keys (task_id, operator, ...), not "a"`},
		{"bad dag date", one("dag_id: x\nstart_date: nope\n" + oneTask),
			`dags/f.yaml: line 2: start_date must be a date (2021-01-01 or 2021-01-01T00:00:00+00:00), not "nope"`},
		{"list for a date", one("dag_id: x\nend_date: [2021]\n" + oneTask), "dags/f.yaml: line 2: end_date must be a date, not a list"},
		{"bad task date", task("operator: EmptyOperator, start_date: nope"),
			`dags/f.yaml: line 3: start_date must be a date (2021-01-01 or 2021-01-01T00:00:00+00:00), not "nope"`},
		{"bad duration", one("dag_id: x\ndagrun_timeout: soon\n" + oneTask),
			`dags/f.yaml: line 2: dagrun_timeout must be a duration (5m, 1h30m, 1d, 0:05:00 or a number of seconds), not "soon"`},
		{"bad simulate duration", task("operator: PythonOperator, simulate: {duration: forever}"),
			`dags/f.yaml: line 3: duration must be a duration (5m, 1h30m, 1d, 0:05:00 or a number of seconds), not "forever"`},
		{"mapping for a schedule", one("dag_id: x\nschedule: {every: day}\n" + oneTask),
			"dags/f.yaml: line 2: schedule must be a cron expression, a preset, a duration or null, not a mapping"},

		// Missing or refused values.
		{"missing dag_id", one(oneTask), "dags/f.yaml: line 1: dag_id is missing"},
		{"bad dag_id", one("dag_id: 'a b'\n" + oneTask), `dags/f.yaml: line 1: dag_id "a b" may hold only letters, digits, dashes, dots and underscores`},
		{"no tasks key", one("dag_id: x\n"), `dags/f.yaml: line 1: dag "x" has no tasks`},
		{"empty task list", one("dag_id: x\ndescription: d\ntasks: []\n"), `dags/f.yaml: line 3: dag "x" has no tasks`},
		{"missing task_id", one("dag_id: x\ntasks:\n  - {operator: EmptyOperator}\n"), "dags/f.yaml: line 3: a task without task_id"},
		{"dot in task_id", one("dag_id: x\ntasks:\n  - operator: EmptyOperator\n    task_id: a.b\n"),
			`dags/f.yaml: line 4: task_id "a.b" may hold only letters, digits, dashes, dots and underscores`},
		{"no operator", one("dag_id: x\ntasks:\n  - {task_id: a}\n"), `dags/f.yaml: line 3: task "a": operator is missing`},
		{"max_active_runs", one("dag_id: x\nmax_active_runs: 0\n" + oneTask), "dags/f.yaml: line 2: max_active_runs must be at least 1, not 0"},
		{"max_active_tasks", one("dag_id: x\nmax_active_tasks: -1\n" + oneTask), "dags/f.yaml: line 2: max_active_tasks must be at least 1, not -1"},
		{"concurrency", one("dag_id: x\nconcurrency: 0\n" + oneTask), "dags/f.yaml: line 2: concurrency must be at least 1, not 0"},
		{"negative retries", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: EmptyOperator\n    retries: -1\n"),
			`dags/f.yaml: line 5: task "a": retries must be 0 or more, not -1`},
		{"negative retries from default_args", one("dag_id: x\ndefault_args: {retries: -2}\n" + oneTask),
			`dags/f.yaml: line 2: task "a": retries must be 0 or more, not -2`},
		{"pool_slots", task("operator: EmptyOperator, pool_slots: 0"), `dags/f.yaml: line 3: task "a": pool_slots must be at least 1, not 0`},
		{"trigger rule typo", task("operator: EmptyOperator, trigger_rule: all_sucess"),
			`dags/f.yaml: line 3: task "a": unknown trigger_rule "all_sucess" (did you mean all_success?)`},
		{"trigger rule", task("operator: EmptyOperator, trigger_rule: sometimes"),
			`dags/f.yaml: line 3: task "a": unknown trigger_rule "sometimes" (one of all_done, all_failed, all_skipped, all_success, ` +
				`always, dummy, none_failed, none_failed_min_one_success, none_failed_or_skipped, none_skipped, one_done, one_failed, one_success)`},
		{"weight rule", task("operator: EmptyOperator, weight_rule: heavy"),
			`dags/f.yaml: line 3: task "a": unknown weight_rule "heavy" (downstream, upstream or absolute)`},
		{"bash without command", task("operator: BashOperator"), `dags/f.yaml: line 3: task "a": a BashOperator needs a bash_command`},
		{"subdag on another operator", task("operator: EmptyOperator, subdag: x.a"),
			`dags/f.yaml: line 3: task "a": subdag is only for SubDagOperator, not EmptyOperator`},
		{"simulate outcome", task("operator: PythonOperator, simulate: {outcome: maybe}"),
			`dags/f.yaml: line 3: task "a": simulate outcome "maybe": want success, failed or skipped`},
		{"simulate fail_times", task("operator: PythonOperator, simulate: {fail_times: -1}"),
			`dags/f.yaml: line 3: task "a": simulate fail_times must be 0 or more, not -1`},
		{"task_id in default_args", one("dag_id: x\ndefault_args:\n  owner: me\n  upstream: [a]\n" + oneTask),
			"dags/f.yaml: line 4: default_args cannot set upstream: it belongs to each task"},
		{"request value as a redirect target", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: BashOperator\n" +
			"    bash_command: 'echo hi > {{ dag_run.conf.x }}'\n"),
			`dags/f.yaml: line 5: task "a": bash_command: {{ dag_run.conf.x }} as a redirect target: ` +
				`a value from a request would choose the file bash opens; name the file in the DAG file`},

		// Operators.
		{"operator typo", task("operator: BashOpertor, bash_command: echo"),
			`dags/f.yaml: line 3: task "a": unknown operator "BashOpertor" (did you mean BashOperator?)`},
		{"operator letter case", task("operator: pythonoperator"), `dags/f.yaml: line 3: task "a": unknown operator "pythonoperator" (did you mean PythonOperator?)`},
		{"operator typo in a block", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: KubernetesPodOperater\n"),
			`dags/f.yaml: line 4: task "a": unknown operator "KubernetesPodOperater" (did you mean KubernetesPodOperator?)`},
		{"unknown operator", task("operator: MyInHouseThing"),
			`dags/f.yaml: line 3: task "a": unknown operator "MyInHouseThing": no Airflow operator or sensor has that name; ` +
				`give the task a simulate: block to run it as a simulated task`},
		{"bash_command on a Python task", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: PythonOperator\n    bash_command: echo hi\n"),
			`dags/f.yaml: line 5: task "a": bash_command is taken by BashOperator, not by PythonOperator`},
		{"bash_command on a simulated unknown operator", task("operator: MyInHouseThing, simulate: {}, bash_command: echo"),
			`dags/f.yaml: line 3: task "a": bash_command is taken by BashOperator, not by MyInHouseThing`},
		{"bash_command on a BashSensor", task("operator: BashSensor, bash_command: test -f /tmp/x"),
			`dags/f.yaml: line 3: task "a": airlite runs bash_command for BashOperator only: a BashSensor is simulated, ` +
				`so its command would never run (use BashOperator, or drop bash_command)`},

		// Schedules.
		{"schedule preset", one("dag_id: x\nschedule_interval: '@fortnightly'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "@fortnightly": unknown preset (one of @once, @hourly, @daily, @weekly, @monthly, @quarterly, @yearly)`},
		{"schedule preset typo", one("dag_id: x\nschedule: '@dayly'\n" + oneTask),
			`dags/f.yaml: line 2: schedule "@dayly": unknown preset (did you mean @daily?)`},
		{"schedule cron", one("dag_id: x\nschedule_interval: '* * *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "* * *": want a cron expression with five fields, a preset (@daily) or a duration (1d, 6h)`},
		// Airflow refuses these when it parses the file, with croniter's
		// message (CronMixin.validate, 2.10.3
		// airflow/timetables/_cron.py:102-106; dagbag.py:485 writes
		// "{type}: {message}"), instead of at every scheduling pass.
		{"cron minute out of range", one("dag_id: x\nschedule_interval: '61 * * * *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "61 * * * *": AirflowTimetableInvalid: [61 * * * *] is not acceptable, out of range`},
		{"cron hour in a list", one("dag_id: x\nschedule_interval: '0 1,24 * * *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 1,24 * * *": AirflowTimetableInvalid: [0 1,24 * * *] is not acceptable, out of range`},
		{"cron day out of range", one("dag_id: x\nschedule_interval: '0 0 32 * *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 0 32 * *": AirflowTimetableInvalid: [0 0 32 * *] is not acceptable, out of range`},
		{"cron weekday out of range", one("dag_id: x\nschedule_interval: '0 0 * * 8'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 0 * * 8": AirflowTimetableInvalid: [0 0 * * 8] is not acceptable, out of range`},
		{"cron words", one("dag_id: x\nschedule_interval: 'a b c d e'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "a b c d e": AirflowTimetableInvalid: [a b c d e] is not acceptable`},
		{"cron step 0", one("dag_id: x\nschedule_interval: '*/0 * * * *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "*/0 * * * *": AirflowTimetableInvalid: invalid range: range() arg 3 must not be zero`},
		{"cron last Friday as gronx writes it", one("dag_id: x\nschedule_interval: '0 0 * * 5L'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 0 * * 5L": AirflowTimetableInvalid: [0 0 * * 5l] is not acceptable`},
		{"cron star beside an out-of-range value", one("dag_id: x\nschedule_interval: '0 0 * Jun,*,13 *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 0 * Jun,*,13 *": AirflowTimetableInvalid: [0 0 * Jun,*,13 *] is not acceptable, out of range`},
		{"cron no such date", one("dag_id: x\nschedule_interval: '0 0 30 2 *'\n" + oneTask),
			`dags/f.yaml: line 2: schedule_interval "0 0 30 2 *": not a valid cron expression: it never fires (no such date)`},
		{"cron sixth Monday", one("dag_id: x\nschedule: '0 0 * * 1#6'\n" + oneTask),
			`dags/f.yaml: line 2: schedule "0 0 * * 1#6": AirflowTimetableInvalid: [0 0 * * 1#6] is not acceptable. Invalid day_of_week value: '6'`},
		{"both schedules", one("dag_id: x\nschedule: '@daily'\nschedule_interval: '@daily'\n" + oneTask),
			"dags/f.yaml: line 2: give schedule_interval or schedule, not both"},

		// Between tasks and files.
		{"cycle", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, downstream: [b]}\n" +
			"  - {task_id: b, operator: EmptyOperator, downstream: [c]}\n  - {task_id: c, operator: EmptyOperator, downstream: [a]}\n"),
			"dags/f.yaml: line 3: tasks form a cycle: a >> b >> c >> a"},
		{"self cycle", task("operator: EmptyOperator, upstream: [a]"), "dags/f.yaml: line 3: tasks form a cycle: a >> a"},
		{"unknown downstream", task("operator: EmptyOperator, downstream: [zz]"), `dags/f.yaml: line 3: task "a": downstream task "zz" does not exist`},
		{"unknown upstream", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n  - {task_id: b, operator: EmptyOperator, upstream: [zz]}\n"),
			`dags/f.yaml: line 4: task "b": upstream task "zz" does not exist`},
		{"duplicate task_id", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n  - {task_id: a, operator: EmptyOperator}\n"),
			`dags/f.yaml: line 4: duplicate task_id "a" (first at line 3)`},
		{"duplicate dag_id", fstest.MapFS{"a.yaml": {Data: []byte("dag_id: x\n" + oneTask)}, "b.yml": {Data: []byte("dag_id: x\n" + oneTask)}},
			`dags/b.yml: line 1: dag_id "x" is already defined in dags/a.yaml`},
		{"subdag naming", sub("other", "other"), `dags/parent.yaml: line 3: task "s": subdag must be named "p.s" (Airflow names a sub-DAG <parent>.<task_id>), not "other"`},
		{"subdag missing", sub("p.s", "q"), `dags/parent.yaml: line 3: task "s": subdag "p.s" is not defined by any file`},

		// Pools files.
		{"empty pools", pools(""), "dags/pools.yaml: line 1: empty file: no pools defined (write [] for none)"},
		{"pools syntax", pools("- {name: a, slots: 1\n"), "dags/pools.yaml: line 2: not valid YAML or JSON: a mapping { ... } is not closed, or lacks a comma"},
		{"pools not a list", pools("name: a\nslots: 1\n"), "dags/pools.yaml: line 1: a pools file holds a list of pools (- {name: etl, slots: 4}), not a mapping"},
		{"pool without a name", pools("- {slots: 1}\n"), "dags/pools.yaml: line 1: a pool without a name"},
		{"pool without slots", pools("- {name: a}\n"), `dags/pools.yaml: line 1: pool "a": slots is missing`},
		{"word for slots", pools("- {name: a, slots: many}\n"), `dags/pools.yaml: line 1: slots must be a whole number, not "many"`},
		{"duplicate pool", fstest.MapFS{"pools.yml": {Data: []byte("- {name: a, slots: 1}\n- {name: a, slots: 2}\n")}},
			`dags/pools.yml: line 2: duplicate pool "a" (first at line 1)`},
		{"default_pool in file", fstest.MapFS{"pools.json": {Data: []byte(`[{"name": "default_pool", "slots": 3}]`)}},
			"dags/pools.json: line 1: default_pool is built in; change its slots through the API"},
		{"pool unknown key", pools("- {name: a, slot: 1}\n"), `dags/pools.yaml: line 1: unknown key "slot" (did you mean slots?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := loadDAGs(tc.fsys, "dags")
			if err == nil {
				t.Fatalf("loadDAGs = %+v, want an error", set)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
			if speaksDecoder(err.Error()) {
				t.Errorf("error %q speaks the decoder's words", err)
			}
		})
	}
}

// Operators that Airflow ships load as before (Bash, Empty/Dummy and
// SubDag run, the others are simulated); a name Airflow does not know
// loads only with simulate:, which declares the task simulated. A
// bash_command in default_args reaches BashOperators only, as Airflow
// applies default_args to the arguments an operator's constructor takes
// (Airflow 2.10.3 airflow/models/baseoperator.py:478-480, 1.10.15
// airflow/utils/decorators.py:88-90).
func TestParseDAG_Operators(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: ops
default_args: {bash_command: echo from defaults, retries: 1}
tasks:
  - {task_id: bash, operator: BashOperator}
  - {task_id: empty, operator: EmptyOperator}
  - {task_id: dummy, operator: DummyOperator}
  - {task_id: k8s, operator: KubernetesPodOperator}
  - {task_id: decorated, operator: _PythonDecoratedOperator}
  - {task_id: sensor, operator: S3KeySensor}
  - {task_id: old_name, operator: SimpleHttpOperator}
  - {task_id: new_name, operator: HttpOperator}
  - {task_id: sql, operator: SQLExecuteQueryOperator}
  - {task_id: in_house, operator: MyInHouseOperator, simulate: {outcome: failed}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := dag.Task("bash").BashCommand; got != "echo from defaults" {
		t.Errorf("BashOperator bash_command = %q, want the default_args one", got)
	}
	for _, id := range []string{"empty", "dummy", "k8s", "decorated", "sensor", "old_name", "new_name", "sql", "in_house"} {
		task := dag.Task(id)
		if task.BashCommand != "" {
			t.Errorf("%s (%s) got default_args' bash_command %q", id, task.Operator, task.BashCommand)
		}
		if task.Retries != 1 {
			t.Errorf("%s: retries = %d, want default_args' 1", id, task.Retries)
		}
	}
	if sim := dag.Task("in_house").Simulate; sim == nil || sim.Outcome != "failed" {
		t.Errorf("in_house simulate = %+v, want outcome failed", sim)
	}
	// Every operator the docs name is known, and the list is sorted and
	// without repeats (closestName breaks ties by order).
	for _, set := range []*operatorSet{operators2(), operators110()} {
		if !sort.StringsAreSorted(set.names) {
			t.Errorf("operator names %s... are not sorted", set.names[:3])
		}
	}
	for _, name := range []string{"BashOperator", "BashSensor", "BranchPythonOperator", "BigQueryInsertJobOperator",
		"DockerOperator", "EmailOperator", "EmptyOperator", "ExternalTaskSensor", "GCSToBigQueryOperator",
		"PapermillOperator", "PostgresOperator", "PythonOperator", "S3CreateBucketOperator", "ShortCircuitOperator",
		"SubDagOperator", "TriggerDagRunOperator", "_PythonDecoratedOperator"} {
		if !operators2().known[name] {
			t.Errorf("%s is not a known operator", name)
		}
	}
}

// YAML anchors, aliases and merge keys work in definitions: a merge's
// keys apply first and the mapping's own keys win.
func TestParseDAG_Anchors(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: anchors
default_args: &defaults
  retries: 2
  owner: team
tasks:
  - &first
    task_id: a
    operator: BashOperator
    bash_command: echo a
    env: &env {A: "1"}
  - <<: *first
    task_id: b
    retries: 5
  - task_id: c
    operator: EmptyOperator
    <<: [*defaults, {owner: other, queue: q}]
    upstream: [a, b]
`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := dag.Task("a"), dag.Task("b"), dag.Task("c")
	if b.Operator != "BashOperator" || b.BashCommand != "echo a" || b.Retries != 5 || b.Owner != "team" ||
		!reflect.DeepEqual(b.Env, map[string]string{"A": "1"}) {
		t.Errorf("b = %+v, want a's keys with its own retries", b)
	}
	if a.Retries != 2 || c.Retries != 2 || c.Owner != "team" || c.Queue != "q" {
		t.Errorf("a retries %d; c retries %d owner %q queue %q, want 2; 2, team (the first merged mapping wins), q",
			a.Retries, c.Retries, c.Owner, c.Queue)
	}
}

func TestLoadDAGs_Embedded(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			set, err := loadExampleDAGs(e.rules(), testNow)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range set.DAGs {
				ids = append(ids, d.DagID)
				if want := filepath.Join("fixtures", e.rules().version, d.DagID+".yaml"); d.FilePath != want {
					t.Errorf("%s: FilePath = %q, want %q", d.DagID, d.FilePath, want)
				}
			}
			want := []string{"example_bash_operator", "example_papermill_operator", "example_python_operator",
				"example_subdag_operator", "example_subdag_operator.section-1", "example_subdag_operator.section-2",
				"example_trigger_target_dag", "tutorial"}
			if !reflect.DeepEqual(ids, want) {
				t.Errorf("dag ids = %v, want %v", ids, want)
			}
			byID := map[string]*DAG{}
			for _, d := range set.DAGs {
				byID[d.DagID] = d
			}
			for _, id := range []string{"example_subdag_operator.section-1", "example_subdag_operator.section-2"} {
				if got := byID[id].ParentDagID; got != "example_subdag_operator" {
					t.Errorf("%s: ParentDagID = %q", id, got)
				}
			}
			if got := byID["example_subdag_operator"].SubDAGIDs(); !reflect.DeepEqual(got,
				[]string{"example_subdag_operator.section-1", "example_subdag_operator.section-2"}) {
				t.Errorf("SubDAGIDs = %v", got)
			}
			if len(set.Pools) != 0 {
				t.Errorf("embedded pools = %v, want none", set.Pools)
			}
		})
	}
}

// Airflow's downstream weight rule (spec A.2).
func TestParseDAG_PriorityWeights(t *testing.T) {
	t.Parallel()
	set, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	var dag *DAG
	for _, d := range set.DAGs {
		if d.DagID == "example_bash_operator" {
			dag = d
		}
	}
	want := map[string]int{"runme_0": 3, "runme_1": 3, "runme_2": 3, "run_after_loop": 2, "also_run_this": 2,
		"this_will_skip": 2, "run_this_last": 1}
	for id, w := range want {
		if got := dag.Task(id).TotalWeight; got != w {
			t.Errorf("%s weight = %d, want %d", id, got, w)
		}
	}
	if got := dag.Task("run_this_last").Upstream; !reflect.DeepEqual(got, []string{"also_run_this", "run_after_loop", "this_will_skip"}) {
		t.Errorf("run_this_last upstream = %v", got)
	}
	if got := dag.Task("run_after_loop").Upstream; !reflect.DeepEqual(got, []string{"runme_0", "runme_1", "runme_2"}) {
		t.Errorf("run_after_loop upstream = %v", got)
	}
}

func TestParseDAG_WeightRules(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: w
tasks:
  - {task_id: a, operator: EmptyOperator, downstream: [b, c], priority_weight: 2}
  - {task_id: b, operator: EmptyOperator, downstream: [d], weight_rule: upstream, priority_weight: 5}
  - {task_id: c, operator: EmptyOperator, downstream: [d], weight_rule: absolute, priority_weight: 7}
  - {task_id: d, operator: EmptyOperator, upstream: [b]}
`))
	if err != nil {
		t.Fatal(err)
	}
	// a: 2 + b 5 + c 7 + d 1 (d counted once); b upstream: 5 + a 2; c absolute 7.
	for id, w := range map[string]int{"a": 15, "b": 7, "c": 7, "d": 1} {
		if got := dag.Task(id).TotalWeight; got != w {
			t.Errorf("%s weight = %d, want %d", id, got, w)
		}
	}
	if got := dag.Task("d").Upstream; !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Errorf("d upstream = %v, want [b c] (upstream and downstream mirrored, no duplicates)", got)
	}
}

func TestParseDAG_DefaultArgs(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: defaults
start_date: 2021-01-01T00:00:00+00:00
schedule_interval: "@daily"
default_args:
  owner: someone
  retries: 2
  retry_delay: 1m
  email: [a@example.com]
  email_on_failure: false
  env: {A: "1"}
  params: {p: 1}
  start_date: 2022-02-02
  pool: shared
tasks:
  - task_id: inherits
    operator: BashOperator
    bash_command: echo
  - task_id: overrides
    operator: BashOperator
    bash_command: echo
    owner: me
    retries: 0
    retry_delay: 0:00:30
    email_on_failure: true
    env: {B: "2"}
    start_date: 2023-03-03T03:03:03Z
    pool: own
`))
	if err != nil {
		t.Fatal(err)
	}
	in, over := dag.Task("inherits"), dag.Task("overrides")
	if in.Owner != "someone" || in.Retries != 2 || in.RetryDelay != time.Minute || in.EmailOnFailure || !in.EmailOnRetry ||
		in.Pool != "shared" || !reflect.DeepEqual(in.Env, map[string]string{"A": "1"}) ||
		!reflect.DeepEqual(in.Email, []any{"a@example.com"}) {
		t.Errorf("inherits = %+v", in)
	}
	if want := time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC); in.StartDate == nil || !in.StartDate.Equal(want) {
		t.Errorf("inherits start_date = %v, want %v", in.StartDate, want)
	}
	if over.Owner != "me" || over.Retries != 0 || over.RetryDelay != 30*time.Second || !over.EmailOnFailure || over.Pool != "own" {
		t.Errorf("overrides = %+v", over)
	}
	// Maps merge key by key, and each task has its own copy.
	if !reflect.DeepEqual(over.Env, map[string]string{"A": "1", "B": "2"}) {
		t.Errorf("overrides env = %v", over.Env)
	}
	if !reflect.DeepEqual(in.Env, map[string]string{"A": "1"}) {
		t.Errorf("inherits env changed by another task: %v", in.Env)
	}
	if want := time.Date(2023, 3, 3, 3, 3, 3, 0, time.UTC); !over.StartDate.Equal(want) {
		t.Errorf("overrides start_date = %v, want %v", over.StartDate, want)
	}
	if want := time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC); dag.DefaultArgsStartDate == nil || !dag.DefaultArgsStartDate.Equal(want) {
		t.Errorf("DefaultArgsStartDate = %v, want %v", dag.DefaultArgsStartDate, want)
	}
	if dag.DefaultArgs["owner"] != "someone" {
		t.Errorf("DefaultArgs = %v", dag.DefaultArgs)
	}
}

func TestParseDAG_Defaults(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte("dag_id: plain\nstart_date: 2021-01-01\n" + oneTask))
	if err != nil {
		t.Fatal(err)
	}
	if dag.Schedule != nil || !dag.Catchup || dag.MaxActiveRuns != 16 || dag.MaxActiveTasks != 16 ||
		dag.IsPausedUponCreation || dag.DefaultArgsStartDate != nil {
		t.Errorf("dag = %+v", dag)
	}
	a := dag.Task("a")
	want := Task{TaskID: "a", Operator: "EmptyOperator", RetryDelay: 5 * time.Minute, Pool: defaultPoolName, PoolSlots: 1,
		PriorityWeight: 1, WeightRule: "downstream", TriggerRule: "all_success", Queue: "default", Owner: "airflow",
		EmailOnFailure: true, EmailOnRetry: true, StartDate: dag.StartDate, Upstream: []string{}, Downstream: []string{},
		TotalWeight: 1}
	if !reflect.DeepEqual(*a, want) {
		t.Errorf("task =\n%+v\nwant\n%+v", *a, want)
	}
	if dag.Task("nope") != nil {
		t.Error("Task(nope) is not nil")
	}
}

func TestParseDAG_Schedules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want string // "" for none
	}{
		{"schedule_interval: null", ""},
		{"schedule_interval: '@once'", "@once"},
		{"schedule: '0 0 * * *'", "0 0 * * *"},
		{"schedule_interval: 1d", "1d"},
		{"schedule_interval: ' @daily '", "@daily"},
	} {
		dag, err := parseDAG([]byte("dag_id: s\n" + tc.yaml + "\n" + oneTask))
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		got := ""
		if dag.Schedule != nil {
			got = *dag.Schedule
		}
		if got != tc.want {
			t.Errorf("%s: schedule = %q, want %q", tc.yaml, got, tc.want)
		}
	}
}

func TestLoadDAGs_PoolsAndSources(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"pools.yaml":  {Data: []byte("- {name: small, slots: 2, description: two}\n- {name: open, slots: -1}\n")},
		"a.yaml":      {Data: []byte("dag_id: a\n" + oneTask)},
		"a.py":        {Data: []byte("# the source\n")},
		"b.json":      {Data: []byte(`{"dag_id": "b", "tasks": [{"task_id": "t", "operator": "EmptyOperator"}]}`)},
		"notes.txt":   {Data: []byte("not a dag")},
		"sub/c.yaml":  {Data: []byte("dag_id: d\n" + oneTask)},
		"sub/c.py":    {Data: []byte("# c\n")},
		"README.md":   {Data: []byte("# hi")},
		"c.YML":       {Data: []byte("dag_id: c\n" + oneTask)},
		"ignored.pyc": {Data: []byte{0}},
	}
	set, err := loadDAGs(fsys, "dags")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range set.DAGs {
		ids = append(ids, d.DagID)
	}
	if !reflect.DeepEqual(ids, []string{"a", "b", "c", "d"}) {
		t.Errorf("dag ids = %v", ids)
	}
	if set.DAGs[0].SourceCode != "# the source\n" || set.DAGs[1].SourceCode != "" || set.DAGs[3].SourceCode != "# c\n" {
		t.Errorf("source code: %q, %q, %q", set.DAGs[0].SourceCode, set.DAGs[1].SourceCode, set.DAGs[3].SourceCode)
	}
	if len(set.Pools) != 2 || set.Pools[0].Name != "small" || set.Pools[0].Slots != 2 || *set.Pools[0].Description != "two" ||
		set.Pools[1].Slots != -1 || set.Pools[1].Description != nil {
		t.Errorf("pools = %+v", set.Pools)
	}
}

func TestLoadDAGDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.yaml"), []byte("dag_id: x\n"+oneTask), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := loadDAGDir(dir)
	if err != nil || len(set.DAGs) != 1 || set.DAGs[0].FilePath != filepath.Join(dir, "x.yaml") {
		t.Fatalf("loadDAGDir = %+v, %v", set, err)
	}
	if _, err := loadDAGDir(filepath.Join(dir, "absent")); err == nil || !strings.Contains(err.Error(), "open dags folder") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := loadDAGDir(filepath.Join(dir, "x.yaml")); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("file as folder: %v", err)
	}
}

// The code endpoint's Python rendering of a definition.
func TestRenderPython(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: rendered
schedule_interval: "@daily"
start_date: 2021-01-01T00:00:00+00:00
tasks:
  - {task_id: first-step, operator: BashOperator, bash_command: "echo 'hi'", downstream: [last]}
  - {task_id: last, operator: EmptyOperator, retries: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := renderPython(dag, python2)
	for _, want := range []string{
		"from airflow.operators.bash import BashOperator\n",
		"from airflow.operators.empty import EmptyOperator\n",
		"    dag_id='rendered',\n",
		"    schedule='@daily',\n",
		"    start_date=pendulum.datetime(2021, 1, 1, tz=\"UTC\"),\n",
		"    first_step = BashOperator(\n        task_id='first-step',\n        bash_command=\"echo 'hi'\",\n",
		"        retries=2,\n",
		"    first_step >> last\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering does not contain %q:\n%s", want, got)
		}
	}
}

// naiveWeight is Airflow's priority_weight_total read literally: the task's
// weight plus that of every distinct task reachable through next.
func naiveWeight(dag *DAG, t *Task, next func(*Task) []string) int {
	seen := map[string]bool{t.TaskID: true}
	sum, queue := t.PriorityWeight, []*Task{t}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, id := range next(cur) {
			if !seen[id] {
				seen[id] = true
				sum += dag.Task(id).PriorityWeight
				queue = append(queue, dag.Task(id))
			}
		}
	}
	return sum
}

// Priority weights on random DAGs (diamonds, shared descendants, mixed
// rules and weights) match the literal reading of Airflow's rule, also
// when the tasks span several bitset blocks.
func TestDAG_PriorityWeightsMatchAirflowsRule(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 40, 300} {
		for round := 0; round < 3; round++ {
			var b strings.Builder
			b.WriteString("dag_id: weights\nschedule_interval: null\ntasks:\n")
			uniform := round == 0
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "  - task_id: t%d\n    operator: EmptyOperator\n", i)
				if !uniform {
					fmt.Fprintf(&b, "    priority_weight: %d\n", rng.IntN(5)+1)
					fmt.Fprintf(&b, "    weight_rule: %s\n", []string{"downstream", "upstream", "absolute"}[rng.IntN(3)])
				}
				var down []string
				for k := 0; k < 3 && i+1 < n; k++ { // edges only forward: acyclic
					down = append(down, fmt.Sprintf("t%d", i+1+rng.IntN(min(n-i-1, 50))))
				}
				if len(down) > 0 {
					fmt.Fprintf(&b, "    downstream: [%s]\n", strings.Join(down, ", "))
				}
			}
			dag, err := parseDAG([]byte(b.String()))
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			down := func(t *Task) []string { return t.Downstream }
			for _, task := range dag.Tasks {
				want := task.PriorityWeight
				switch task.WeightRule {
				case "downstream":
					want = naiveWeight(dag, task, down)
				case "upstream":
					want = naiveWeight(dag, task, func(t *Task) []string { return t.Upstream })
				}
				if task.TotalWeight != want {
					t.Fatalf("n=%d round %d: task %s (%s) weight %d, want %d", n, round, task.TaskID, task.WeightRule, task.TotalWeight, want)
				}
			}
			index := map[string]int{}
			for i, task := range dag.Tasks {
				index[task.TaskID] = i
			}
			for i, sum := range reachableWeights(dag.Tasks, index, down, 64) {
				if want := naiveWeight(dag, dag.Tasks[i], down) - dag.Tasks[i].PriorityWeight; sum != want {
					t.Fatalf("n=%d round %d, blocks of 64: task %s reaches weight %d, want %d", n, round, dag.Tasks[i].TaskID, sum, want)
				}
			}
		}
	}
}

// chainDAG is a DAG of n tasks in one line.
func chainDAG(n int) []byte {
	var b strings.Builder
	b.WriteString("dag_id: chain\nschedule_interval: null\ntasks:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - task_id: t%d\n    operator: EmptyOperator\n", i)
		if i+1 < n {
			fmt.Fprintf(&b, "    downstream: [t%d]\n", i+1)
		}
	}
	return []byte(b.String())
}

// BenchmarkParseDAG_Chain15000 loads a 15,000-task chain (it took 28 s
// when weights were computed by a walk per task).
func BenchmarkParseDAG_Chain15000(b *testing.B) {
	text := chainDAG(15000)
	b.ResetTimer()
	for b.Loop() {
		dag, err := parseDAG(text)
		if err != nil {
			b.Fatal(err)
		}
		if dag.Tasks[0].TotalWeight != 15000 {
			b.Fatalf("first task weight %d", dag.Tasks[0].TotalWeight)
		}
	}
}

// A DAG folder that holds a FIFO and a symlink to a device named like
// definitions loads the real definitions and passes over the rest with a
// warning (reading either would never end); a file over the size limit is
// refused; a cancelled start stops the reading.
func TestLoadDAGDir_OnlyRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), []byte("dag_id: good\n"+oneTask), 0o600); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "fifo.yaml"))
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	var warned []string
	loader := dagLoader{rules: edition2.rules(), warn: func(file, problem string) { warned = append(warned, filepath.Base(file)+": "+problem) }}
	set, err := loader.loadDir(dir)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(set.DAGs) != 1 || set.DAGs[0].DagID != "good" {
		t.Fatalf("loaded %d DAGs, want good only", len(set.DAGs))
	}
	if len(warned) != 2 || !strings.Contains(strings.Join(warned, "\n"), "fifo.yaml: not a regular file") ||
		!strings.Contains(strings.Join(warned, "\n"), "zero.yaml: not a regular file") {
		t.Errorf("warnings %q, want one each for fifo.yaml and zero.yaml", warned)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxDefinitionBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.loadDir(dir); err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("an oversized file: %v, want an error naming it and the limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (dagLoader{ctx: ctx, rules: edition2.rules()}).loadDir(dir); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled load: %v, want context.Canceled", err)
	}
}

// A task's own value must not change default_args for the tasks after it:
// Airflow copies default_args into each operator (airflow/models/baseoperator.py).
func TestParseDAG_TaskValueStaysWithItsTask(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: defaults
default_args: {retries: 1, retry_delay: 1m, start_date: 2022-02-02, email_on_failure: false, simulate: {duration: 1s}}
tasks:
  - {task_id: first, operator: EmptyOperator}
  - {task_id: own, operator: EmptyOperator, retries: 3, retry_delay: 2m, start_date: 2023-03-03, email_on_failure: true, simulate: {duration: 5s}}
  - {task_id: after, operator: EmptyOperator}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"first", "after"} {
		task := dag.Task(id)
		if task.Retries != 1 || task.RetryDelay != time.Minute || task.EmailOnFailure ||
			!task.StartDate.Equal(time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC)) || task.Simulate.Duration != time.Second {
			t.Errorf("%s took another task's values: retries %d, retry_delay %v, start_date %v, email_on_failure %v, simulate %v",
				id, task.Retries, task.RetryDelay, task.StartDate, task.EmailOnFailure, task.Simulate.Duration)
		}
	}
	if own := dag.Task("own"); own.Retries != 3 || own.Simulate.Duration != 5*time.Second {
		t.Errorf("own: retries %d, simulate %v", own.Retries, own.Simulate.Duration)
	}
}

// Each edition knows its own release's operators: 1.10.15 has no
// EmptyOperator (its name is DummyOperator, which the error suggests) and
// no @task decorators; 2.10.3 has EmptyOperator and still imports the old
// names it keeps as deprecated aliases. The DAG folder and
// POST /_airlite/dags apply the same list.
func TestDAGFiles_OperatorsPerEdition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ed       edition
		operator string
		want     string // the error after `unknown operator "<operator>"`; "": loads
		cite     string
	}{
		{edition2, "EmptyOperator", "", "2.10.3 airflow/operators/empty.py:27"},
		{edition2, "DummyOperator", "", "2.10.3 airflow/operators/__init__.py:56-63 (deprecated alias of EmptyOperator)"},
		{edition2, "HiveToDruidTransfer", "", "2.10.3 airflow/operators/__init__.py:86-88 (deprecated alias)"},
		{edition2, "_PythonDecoratedOperator", "", "2.10.3 airflow/decorators/python.py:28"},
		{edition110, "DummyOperator", "", "1.10.15 airflow/operators/dummy_operator.py:24"},
		{edition110, "EmptyOperator", " (did you mean DummyOperator?)", "1.10.15 has no airflow/operators/empty.py"},
		{edition110RBAC, "EmptyOperator", " (did you mean DummyOperator?)", "1.10.15 has no airflow/operators/empty.py"},
		{edition110, "_PythonDecoratedOperator", ": no Airflow operator or sensor has that name", "1.10.15 has no airflow/decorators"},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed)+"/"+tc.operator, func(t *testing.T) {
			t.Parallel()
			def := "dag_id: ops\ntasks:\n  - {task_id: a, operator: " + tc.operator + "}\n"
			wantErr := ""
			if tc.want != "" {
				wantErr = `line 3: task "a": unknown operator "` + tc.operator + `"` + tc.want
			}
			fsys := fstest.MapFS{"ops.yaml": {Data: []byte(def)}}
			_, err := dagLoader{rules: tc.ed.rules()}.load(fsys, "dags")
			switch {
			case wantErr == "" && err != nil:
				t.Errorf("folder: %v, want it loaded (%s)", err, tc.cite)
			case wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), "dags/ops.yaml: "+wantErr)):
				t.Errorf("folder: %v, want %s (%s)", err, wantErr, tc.cite)
			}
			ts := newTestServer(t, tc.ed)
			if wantErr == "" {
				expect(t, ts.do(t, "POST", "/_airlite/dags", def), 200)
			} else {
				expect(t, ts.do(t, "POST", "/_airlite/dags", def), 400, strings.ReplaceAll(wantErr, `"`, `\"`))
			}
		})
	}
}

func TestSpeaksDecoder(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{`line 1: the DAG must be a mapping of keys to values, not "0!!"`, false},
		{`line 2: retries must be a whole number, not "into the field"`, false},
		{`line 1: cannot unmarshal !!str "x" into int`, true},
		{`line 3: yaml: mapping values are not allowed here`, true},
		{`line 4: "a" "b\"into" field`, true},
	} {
		if got := speaksDecoder(tc.msg); got != tc.want {
			t.Errorf("speaksDecoder(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// TestDAGFiles_CronDaysPerEdition: a DAG's schedule combines its day
// fields by its edition's croniter, read from a folder or loaded through
// /_airlite/dags. `0 0 1-31 * 1` is Mondays in croniter 0.3.36 (Airflow
// 1.10.15) and every day in 5.0.1 (Airflow 2.10.3); TestCronSchedule_DayRule
// cites why.
func TestDAGFiles_CronDaysPerEdition(t *testing.T) {
	t.Parallel()
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ed   edition
		want time.Time
	}{
		{edition2, time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
		{edition110, time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC)},
		{edition110RBAC, time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(string(tc.ed), func(t *testing.T) {
			t.Parallel()
			def := "dag_id: listed_days\nschedule_interval: '0 0 1-31 * 1'\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: 'true'}\n"
			set, err := dagLoader{rules: tc.ed.rules()}.load(fstest.MapFS{"days.yaml": {Data: []byte(def)}}, "dags")
			if err != nil || len(set.DAGs) != 1 {
				t.Fatalf("load: %v", err)
			}
			ts := newTestServer(t, tc.ed)
			if _, err := ts.srv.loadDAG([]byte(def)); err != nil {
				t.Fatalf("loadDAG: %v", err)
			}
			for how, dag := range map[string]*DAG{"folder": set.DAGs[0], "/_airlite/dags": ts.srv.dagDefOf("listed_days")} {
				c, err := cronOf(dag)
				if err != nil || c == nil {
					t.Fatalf("%s: cronOf = %v, %v", how, c, err)
				}
				if got, err := c.next(from, false); err != nil || !got.Equal(tc.want) {
					t.Errorf("%s: next(%s) = %s, %v; want %s", how, from, got, err, tc.want)
				}
			}
		})
	}
}

// TestRenderPython_Dialects: the rendered file imports the DAG and the
// operators from the release's modules (Airflow 3.2.1: airflow.sdk and the
// standard provider), and a duration schedule is a timedelta, which each
// release's DAG takes, where a string such as '1d' is no schedule Airflow
// reads.
func TestRenderPython_Dialects(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: rendered
schedule: 1d
start_date: 2021-01-01T00:00:00+00:00
tasks:
  - {task_id: first, operator: BashOperator, bash_command: "echo hi", downstream: [last]}
  - {task_id: last, operator: EmptyOperator}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		py   pythonDialect
		want []string
	}{
		{"3.2.1", python3, []string{
			"from airflow.sdk import DAG\n",
			"from airflow.providers.standard.operators.bash import BashOperator\n",
			"from airflow.providers.standard.operators.empty import EmptyOperator\n",
			"    schedule=datetime.timedelta(seconds=86400.0),\n",
		}},
		{"2.10.3", python2, []string{
			"from airflow import DAG\n",
			"from airflow.operators.bash import BashOperator\n",
			"    schedule=datetime.timedelta(seconds=86400.0),\n",
		}},
		{"1.10.15", python110, []string{
			"from airflow import DAG\n",
			"from airflow.operators.bash_operator import BashOperator\n",
			"    schedule_interval=datetime.timedelta(seconds=86400.0),\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := renderPython(dag, tc.py)
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("rendering does not contain %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "'1d'") {
				t.Errorf("the schedule is written as a string:\n%s", got)
			}
		})
	}
}
