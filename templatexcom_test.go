package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pullDay is the logical date of the run whose task pulls.
var pullDay = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

// pullStore is a store with runs of DAG d the day before, at and the day
// after pullDay ("prev", "r", "next"), and two runs of DAG other: run_id
// "r" an hour later and "same_day" at pullDay, so that a pull by run_id
// (2.10.3) and one by logical date (1.10.15) read different entries.
// hostile is pushed by task "hostile" of run r.
func pullStore(t *testing.T, e edition, hostile string) *scheduler {
	t.Helper()
	runner := bashRunnerOf(t, e)
	runs := []struct {
		dag, run string
		at       time.Time
	}{
		{"d", "prev", pullDay.AddDate(0, 0, -1)},
		{"d", "r", pullDay},
		{"d", "next", pullDay.AddDate(0, 0, 1)},
		{"other", "r", pullDay.Add(time.Hour)},
		{"other", "same_day", pullDay},
	}
	ids := map[string]*DagRun{}
	for i, r := range runs {
		run := &DagRun{ID: int64(i + 1), DagID: r.dag, RunID: r.run, ExecutionDate: r.at, State: RunRunning, RunType: "manual", ExternalTrigger: true}
		if err := runner.opts.Store.UpsertDagRun(run); err != nil {
			t.Fatal(err)
		}
		ids[r.dag+"/"+r.run] = run
	}
	hostileJSON, _ := json.Marshal(hostile)
	pushed := []struct {
		run, task, key, value string
		at                    time.Duration // after pullDay
	}{
		{"d/r", "push", "return_value", `"hello"`, time.Minute},
		{"d/r", "push", "k", `{"a": [1, "x"]}`, time.Minute},
		{"d/r", "second", "return_value", `"two"`, 2 * time.Minute}, // the newest of run r
		{"d/r", "hostile", "return_value", string(hostileJSON), 30 * time.Second},
		{"d/prev", "push", "return_value", `"old"`, -time.Hour},
		{"d/prev", "only_prev", "return_value", `"prev-only"`, -time.Hour},
		{"d/next", "push", "return_value", `"future"`, 25 * time.Hour},
		{"d/next", "only_next", "return_value", `"next-only"`, 25 * time.Hour},
		{"other/r", "o", "return_value", `"other-by-run-id"`, 2 * time.Hour},
		{"other/same_day", "o", "return_value", `"other-by-date"`, time.Hour},
	}
	for _, p := range pushed {
		run := ids[p.run]
		e := &XComEntry{DagID: run.DagID, RunID: run.RunID, TaskID: p.task, RunRowID: run.ID, MapIndex: -1,
			Key: p.key, Value: json.RawMessage(p.value), Timestamp: pullDay.Add(p.at)}
		if err := runner.opts.Store.UpsertXCom(e); err != nil {
			t.Fatal(err)
		}
	}
	return runner
}

// runPull runs task t of DAG d (defined by yaml) in run r with runner; a
// DAG refused at load is a failed try whose reason says so.
func runPull(t *testing.T, runner *scheduler, taskYAML string) taskOutcome {
	t.Helper()
	dag, err := parseDAG([]byte("dag_id: d\ntasks:\n  - " + taskYAML + "\n"))
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: "refused at load: " + err.Error()}
	}
	run, err := runner.opts.Store.RunByRunID("d", "r")
	if err != nil {
		t.Fatal(err)
	}
	return runner.runBash(context.Background(), taskJob{key: tiKey{"d", "r", "t", -1}, try: 1, dag: dag, task: dag.Task("t"), run: *run})
}

// ti.xcom_pull in a template reads the store's XCom entries as each
// release's TaskInstance.xcom_pull does. want "" with wantErr: the try
// fails naming wantErr. Airflow 2.10.3 airflow/models/taskinstance.py:3650
// (signature), :565-661 (_xcom_pull), airflow/models/xcom.py:495-561
// (get_many); 1.10.15 airflow/models/taskinstance.py:1515-1564,
// airflow/models/xcom.py:124-167 (get_one).
func TestTemplate_XComPull(t *testing.T) {
	t.Parallel()
	type want struct{ out, err string }
	tests := []struct {
		name, expr string
		v2, v110   want
	}{
		// Airflow 2.10.3 taskinstance.py:3652-3654, 1.10.15 :1517-1519:
		// the task's DAG, key return_value, its own run.
		{"one task", `ti.xcom_pull(task_ids='push')`, want{out: "hello"}, want{out: "hello"}},
		{"task_instance", `task_instance.xcom_pull(task_ids='push')`, want{out: "hello"}, want{out: "hello"}},
		{"positional", `ti.xcom_pull('push', 'd', 'return_value', False)`, want{out: "hello"}, want{out: "hello"}},
		{"a key", `ti.xcom_pull(task_ids='push', key='k')`, want{out: "{'a': [1, 'x']}"}, want{out: "{'a': [1, 'x']}"}},
		{"into a value", `ti.xcom_pull('push', key='k')['a'][1]`, want{out: "x"}, want{out: "x"}},
		// 2.10.3 taskinstance.py:629-630 returns default, None unless given;
		// 1.10.15 get_one returns None (xcom.py:154-155).
		{"nothing found", `ti.xcom_pull(task_ids='missing')`, want{out: "None"}, want{out: "None"}},
		{"default", `ti.xcom_pull(task_ids='missing', default='dflt')`, want{out: "dflt"},
			want{err: "unexpected keyword argument 'default'"}},
		{"default unused", `ti.xcom_pull(task_ids='push', default='dflt')`, want{out: "hello"},
			want{err: "unexpected keyword argument 'default'"}},
		// task_ids None: the newest entry of the run (xcom.py:558; 1.10.15 :152).
		{"any task", `ti.xcom_pull()`, want{out: "two"}, want{out: "two"}},
		// 2.10.3: a list of what matched, in the order of task_ids
		// (taskinstance.py:644-661); 1.10.15: a tuple, one item per id,
		// None where nothing matched (taskinstance.py:1561-1562).
		{"many tasks", `ti.xcom_pull(task_ids=['push', 'second'])`, want{out: "['hello', 'two']"}, want{out: "('hello', 'two')"}},
		{"many tasks in their order", `ti.xcom_pull(task_ids=['second', 'push'])`, want{out: "['two', 'hello']"}, want{out: "('two', 'hello')"}},
		{"many with a missing one", `ti.xcom_pull(task_ids=['push', 'missing'])`, want{out: "['hello']"}, want{out: "('hello', None)"}},
		{"a list of one", `ti.xcom_pull(task_ids=['push'])`, want{out: "['hello']"}, want{out: "('hello',)"}},
		{"an empty list", `ti.xcom_pull(task_ids=[])`, want{out: "[]"}, want{out: "()"}},
		{"many joined", `ti.xcom_pull(task_ids=['push', 'second'])|join(',')`, want{out: "hello,two"}, want{out: "hello,two"}},
		{"many indexed", `ti.xcom_pull(task_ids=['push', 'second'])[1]`, want{out: "two"}, want{out: "two"}},
		// include_prior_dates: runs at or before this one's date, the
		// newest first (2.10.3 xcom.py:548-558; 1.10.15 :144-152).
		{"another run's", `ti.xcom_pull(task_ids='only_prev')`, want{out: "None"}, want{out: "None"}},
		{"prior dates", `ti.xcom_pull(task_ids='only_prev', include_prior_dates=True)`, want{out: "prev-only"}, want{out: "prev-only"}},
		{"prior dates, newest first", `ti.xcom_pull(task_ids='push', include_prior_dates=True)`, want{out: "hello"}, want{out: "hello"}},
		{"never a later run", `ti.xcom_pull(task_ids='only_next', include_prior_dates=True)`, want{out: "None"}, want{out: "None"}},
		// Another DAG: 2.10.3 reads its run with this run's run_id
		// (xcom.py:556), 1.10.15 its run at this run's date (xcom.py:147).
		{"another DAG", `ti.xcom_pull(task_ids='o', dag_id='other')`, want{out: "other-by-run-id"}, want{out: "other-by-date"}},
		// An empty string: 2.10.3 filters on it (nothing matches); 1.10.15's
		// `if task_id:`/`if dag_id:` (xcom.py:141-144) filter nothing.
		{"empty task id", `ti.xcom_pull(task_ids='')`, want{out: "None"}, want{out: "two"}},
		{"empty dag id", `ti.xcom_pull(task_ids='o', dag_id='')`, want{out: "None"}, want{out: "other-by-date"}},
		// key None or '': any key (2.10.3 xcom.py:525; 1.10.15 :139).
		{"any key", `ti.xcom_pull(task_ids='second', key=None)`, want{out: "two"}, want{out: "two"}},
		// map_indexes is 2.10.3's only; airlite's entries are unmapped (-1).
		{"map index", `ti.xcom_pull(task_ids='push', map_indexes=-1)`, want{out: "hello"},
			want{err: "unexpected keyword argument 'map_indexes'"}},
		{"map indexes", `ti.xcom_pull(task_ids='push', map_indexes=[-1])`, want{out: "['hello']"},
			want{err: "unexpected keyword argument 'map_indexes'"}},
		{"other map index", `ti.xcom_pull(task_ids='push', map_indexes=0)`, want{out: "None"},
			want{err: "unexpected keyword argument 'map_indexes'"}},
		{"unknown argument", `ti.xcom_pull(task_ids='push', bogus=1)`, want{err: "unexpected keyword argument 'bogus'"},
			want{err: "unexpected keyword argument 'bogus'"}},
		{"too many arguments", `ti.xcom_pull('push', 'd', 'return_value', False, None, 1)`, want{err: "positional arguments"},
			want{err: "positional arguments"}},
		{"twice", `ti.xcom_pull('push', task_ids='push')`, want{err: "multiple values for argument 'task_ids'"},
			want{err: "multiple values for argument 'task_ids'"}},
	}
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			runner := pullStore(t, e, "unused")
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					w := tc.v2
					if e != edition2 {
						w = tc.v110
					}
					command, _ := json.Marshal(`printf '%s\n' "{{ ` + tc.expr + ` }}"`)
					out := runPull(t, runner, `{task_id: t, operator: BashOperator, bash_command: `+string(command)+`}`)
					if w.err != "" {
						if out.state != TaskFailed || !strings.Contains(out.reason, w.err) {
							t.Errorf("{{ %s }}: %s (%s), output %q; want a failure naming %q", tc.expr, out.state, out.reason, out.output, w.err)
						}
						return
					}
					if out.state != TaskSuccess || out.output != w.out+"\n" {
						t.Errorf("{{ %s }}: %s (%s), output %q; want %q", tc.expr, out.state, out.reason, out.output, w.out)
					}
				})
			}
		})
	}
}

// pulledHostile is a value that, run as shell code, creates marker and
// removes canary.
func pulledHostile(marker, canary string) string {
	return "$(touch " + marker + "); `touch " + marker + "`; rm -f " + canary + "; it's \"quoted\""
}

// A pulled value can carry a request's text (through an earlier task's
// output), so it is a request value: it reaches bash only as data where the
// conf may (an argument, an env value, NAME=value), in every edition, and a
// placement that would run it is refused at load or fails the try
// (docs/behaviour.md §4.11.4).
func TestSecurity_PulledValuesReachBashAsData(t *testing.T) {
	t.Parallel()
	shapes := []struct{ name, task string }{
		{"unquoted argument", `{task_id: t, operator: BashOperator, bash_command: "printf '%s\\n' {{ ti.xcom_pull(task_ids='hostile') }}"}`},
		{"quoted argument", `{task_id: t, operator: BashOperator, bash_command: "printf '%s\\n' \"{{ task_instance.xcom_pull(task_ids='hostile') }}\""}`},
		{"assignment", `{task_id: t, operator: BashOperator, bash_command: "V={{ ti.xcom_pull(task_ids='hostile') }}; printf '%s\\n' \"$V\""}`},
		{"env", `{task_id: t, operator: BashOperator, env: {V: "{{ ti.xcom_pull(task_ids='hostile') }}"}, bash_command: "printf '%s\\n' \"$V\""}`},
		{"set first", `{task_id: t, operator: BashOperator, bash_command: "{% set v = ti.xcom_pull(task_ids='hostile') %}printf '%s\\n' {{ v }}"}`},
	}
	// Where bash would read code, the pull fails the try (a placement the
	// load check cannot see) or the file is refused.
	runsCode := []struct{ name, task string }{
		{"concatenated into a command", `{task_id: t, operator: BashOperator, bash_command: "{% set v = 'echo ' ~ ti.xcom_pull(task_ids='hostile') %}{{ v }}"}`},
		{"bash -c", `{task_id: t, operator: BashOperator, bash_command: "{% if true %}bash -c {{ ti.xcom_pull(task_ids='hostile') }}{% endif %}"}`},
		{"taken in by a filter block", `{task_id: t, operator: BashOperator, bash_command: "{% filter upper %}printf '%s\\n' {{ ti.xcom_pull(task_ids='hostile') }}{% endfilter %}"}`},
	}
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			marker, canary := filepath.Join(dir, "pwned"), filepath.Join(dir, "canary")
			if err := os.WriteFile(canary, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			hostile := pulledHostile(marker, canary)
			runner := pullStore(t, e, hostile)
			for _, shape := range shapes {
				out := runPull(t, runner, shape.task)
				if out.state != TaskSuccess || out.output != hostile+"\n" {
					t.Errorf("%s: %s (%s), output %q; want the value verbatim", shape.name, out.state, out.reason, out.output)
				}
			}
			for _, shape := range runsCode {
				out := runPull(t, runner, shape.task)
				if out.state != TaskFailed {
					t.Errorf("%s: %s, output %q; want the try to fail", shape.name, out.state, out.output)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a pulled value ran as shell code: the marker exists")
			}
			if _, err := os.Stat(canary); err != nil {
				t.Fatalf("a pulled value ran as shell code: the canary is gone (%v)", err)
			}
			// A pulled value as a command is refused when the DAG loads.
			if _, err := parseDAG([]byte("dag_id: d\ntasks:\n  - {task_id: t, operator: BashOperator, bash_command: \"{{ ti.xcom_pull(task_ids='hostile') }}\"}\n")); err == nil {
				t.Error("a pulled value as the command loaded")
			}
		})
	}
}

// End to end: a conf value a task printed comes back through XCom into the
// next task's command, and reaches it as data.
func TestSecurity_ConfThroughXComReachesBashAsData(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			marker := filepath.Join(dir, "M")
			// do_xcom_push: 1.10's BashOperator pushes only when asked.
			def := fmt.Sprintf(`dag_id: relay
schedule_interval: null
tasks:
  - {task_id: push, operator: BashOperator, cwd: %q, do_xcom_push: true, bash_command: "printf '%%s\\n' \"{{ dag_run.conf.x }}\""}
  - {task_id: pull, operator: BashOperator, cwd: %q, upstream: [push], bash_command: "printf '%%s\\n' {{ ti.xcom_pull(task_ids='push') }}"}
`, dir, dir)
			ts, sched := newSchedServer(t, e, tickDriven, withDAG(def))
			for i, value := range hostileValues {
				if strings.Contains(value, "\n") { // a return value is the last line
					continue
				}
				runID := fmt.Sprintf("v%d", i)
				body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": value}, "run_id": runID,
					"execution_date": pullDay.AddDate(0, 0, i).Format(time.RFC3339)})
				ts.trigger(t, "relay", string(body))
				done := ts.tickRun(t, sched, "relay", runID)
				if got := ts.taskOutput(t, "relay", runID, "pull"); got != value+"\n" {
					t.Errorf("%q came back as %q (run %v)", value, got, done["state"])
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a value relayed through XCom ran as shell code")
			}
		})
	}
}

// cwd is a template field in Airflow 2.10.3 (airflow/operators/bash.py:148),
// not in 1.10.15 (airflow/operators/bash_operator.py:88, which has no cwd
// at all; airlite's is taken as it is written). A cwd may hold static values
// only: one a request chose would decide which files the command touches.
func TestBash_CwdRenderedInEdition2Only(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, sub := range []string{"2024-05-01", "{{ ds }}"} {
		if err := os.Mkdir(filepath.Join(base, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, cwd string
		want      map[edition]string // output, or "fail: words" for a failed try
	}{
		{"static", base + "/{{ ds }}", map[edition]string{
			edition2: base + "/2024-05-01\n", edition110: base + "/{{ ds }}\n", edition110RBAC: base + "/{{ ds }}\n"}},
		{"conf", base + "/{{ dag_run.conf.dir }}", map[edition]string{
			edition2: "fail: may hold a value from a request", edition110: "fail: ", edition110RBAC: "fail: "}},
		{"pulled", "{{ ti.xcom_pull(task_ids='push') }}", map[edition]string{
			edition2: "fail: may hold a value from a request", edition110: "fail: ", edition110RBAC: "fail: "}},
		{"params", "{{ params.dir }}", map[edition]string{
			edition2: "fail: may hold a value from a request", edition110: "fail: ", edition110RBAC: "fail: "}},
	}
	for _, e := range allEditions {
		runner := pullStore(t, e, "unused")
		for _, tc := range tests {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				cwd, _ := json.Marshal(tc.cwd)
				out := runPull(t, runner, `{task_id: t, operator: BashOperator, params: {dir: x}, cwd: `+string(cwd)+`, bash_command: pwd}`)
				want := tc.want[e]
				if words, failed := strings.CutPrefix(want, "fail: "); failed {
					if out.state != TaskFailed || !strings.Contains(out.reason, words) {
						t.Errorf("cwd %q: %s (%s), output %q; want a failure naming %q", tc.cwd, out.state, out.reason, out.output, words)
					}
					return
				}
				if out.state != TaskSuccess || out.output != want {
					t.Errorf("cwd %q: %s (%s), output %q; want %q", tc.cwd, out.state, out.reason, out.output, want)
				}
			})
		}
	}
}
