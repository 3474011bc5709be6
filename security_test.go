package main

// Security and fault tests that need the real scheduler: request data
// never runs as shell text, task processes never outlive airlite, and a
// panicking task fails alone while the scheduler goes on.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// newSchedServer is a test server whose store a real scheduler (real
// operators, real clock, a fast loop) runs; it stops at cleanup. The
// embedded examples are paused: only the test's own DAGs run.
func newSchedServer(t *testing.T, e edition, tune func(*schedulerOptions), options ...testOption) (*testServer, *scheduler) {
	t.Helper()
	var sched *scheduler
	options = append([]testOption{withExamplesPaused()}, options...)
	options = append(options, withOptions(func(o *serverOptions) {
		o.Now = time.Now
		o.Kick = func() {
			if sched != nil {
				sched.Kick()
			}
		}
		o.WithTasksStopped = func(match func(tiKey) bool, change func() error) error {
			if sched == nil {
				return change()
			}
			return sched.WithTasksStopped(match, change)
		}
	}))
	ts := newTestServer(t, e, options...)
	opts := schedulerOptions{Store: ts.store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Interval: 20 * time.Millisecond, Parallelism: 8, Unixname: testUnixname, Hostname: "test"}
	if tune != nil {
		tune(&opts)
	}
	sched = newScheduler(opts)
	sched.start()
	t.Cleanup(sched.stop)
	return ts, sched
}

// waitRun waits through the admin endpoint for a run to finish.
func (ts *testServer) waitRun(t *testing.T, dagID, runID string) map[string]any {
	t.Helper()
	res := ts.do(t, http.MethodGet, "/_airlite/dags/"+url.PathEscape(dagID)+"/dag_runs/"+url.PathEscape(runID)+"/wait?timeout=60s", "")
	if res.status != http.StatusOK {
		t.Fatalf("wait for %s/%s: %d %s", dagID, runID, res.status, res.body)
	}
	return decodeJSON[map[string]any](t, res.body)
}

// A trigger whose conf and run_id carry command substitutions, backticks
// and quotes runs a real bash task through the API and the scheduler:
// the task prints the text, and nothing it names is executed.
func TestSecurity_TriggerConfIsNeverShellText(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			marker := filepath.Join(dir, "pwned")
			ts, sched := newSchedServer(t, e, tickDriven, withDAG(`
dag_id: inject
schedule_interval: null
tasks:
  - task_id: echo
    operator: BashOperator
    cwd: `+dir+`
    bash_command: echo {{ dag_run.conf.x }}; echo "{{ dag_run.conf.x }}"; X={{ dag_run.conf.x }}; echo "$X"; echo "$AIRLITE_CONF"; echo {{ run_id }}
`))
			payload := fmt.Sprintf("$(touch %[1]s) `touch %[1]s` ';touch %[1]s;' \"; touch %[1]s; \" && touch %[1]s", marker)
			runID := "plain_run"
			if e.isAirflow1() {
				runID = "$(touch pwned)`touch pwned`;touch pwned" // 1.10 takes any run_id; the task runs in dir
			}
			body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": payload}, "run_id": runID,
				"execution_date": "2024-05-01T00:00:00+00:00"})
			ts.trigger(t, "inject", string(body))
			done := ts.tickRun(t, sched, "inject", runID)
			if done["state"] != "success" {
				t.Fatalf("run ended %v", done)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("request data ran as shell text: %s exists (%v)", marker, err)
			}
			raw, err := ts.store.read().First(tableTaskLogs, indexID, "inject", runID, "echo", "-1")
			if err != nil || raw == nil {
				t.Fatalf("task log: %v", err)
			}
			tries := raw.(*TaskLog).Tries
			out := tries[len(tries)-1].Output
			conf, _ := json.Marshal(map[string]any{"x": payload})
			want := strings.Repeat(payload+"\n", 3)
			if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, runID+"\n") {
				t.Errorf("output\n got %q\nwant %q, the conf as JSON, then %q", out, want, runID)
			}
			var gotConf map[string]any
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-2]), &gotConf); err != nil || gotConf["x"] != payload {
				t.Errorf("AIRLITE_CONF line %q (%v), want %s", lines[len(lines)-2], err, conf)
			}
		})
	}
}

// procAlive reports whether a process exists and is not a zombie. It
// reads the process through readProcStat, which every platform has (/proc
// on Linux, ps elsewhere on Unix, the process list on Windows), so that a
// check of a process's end checks it everywhere rather than finding no
// /proc and taking the process for gone.
func procAlive(pid int) bool {
	st, ok := readProcStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// readPID waits for a task to write its pid file.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var data []byte
	written := pollUntil(30*time.Second, func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil && bytes.HasSuffix(data, []byte("\n"))
	})
	if !written {
		t.Fatalf("no pid in %s after 30s", path)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	return pid
}

// waitGone waits until a process has ended.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !pollUntil(15*time.Second, func() bool { return !procAlive(pid) }) {
		_ = killPID(pid)
		t.Fatalf("%s (pid %d) still runs 15s later", what, pid)
	}
}

// Stopping the scheduler (airlite's shutdown) kills a task's whole process
// group, background children included.
func TestSecurity_TaskProcessesEndWithScheduler(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	ts, sched := newSchedServer(t, edition2, tickDriven, withDAG(fmt.Sprintf(`
dag_id: sleeper
schedule_interval: null
tasks:
  - task_id: s
    operator: BashOperator
    env: {PIDFILE: %q}
    bash_command: sleep 300 & echo $! > "$PIDFILE"; wait
`, pidFile)))
	ts.trigger(t, "sleeper", `{"execution_date": "2024-05-01"}`)
	if err := sched.tick(time.Now()); err != nil { // launches s
		t.Fatal(err)
	}
	if n := len(sched.running()); n != 1 {
		t.Fatalf("%d tries running after the pass, want s", n)
	}
	// Real waits, bounded: bash writing its child's pid, then the
	// kernel ending the group.
	pid := readPID(t, pidFile)
	if !procAlive(pid) {
		t.Fatalf("background sleep %d is not running", pid)
	}
	sched.stop()
	waitGone(t, pid, "the task's background child")
}

// A task process dies with airlite even when airlite is killed outright
// (SIGKILL, no shutdown): bash runs with a parent-death signal.
func TestSecurity_TaskProcessesDieWithKilledAirlite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts airlite as a child process")
	}
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	dags := filepath.Join(dir, "dags")
	if err := os.Mkdir(dags, 0o700); err != nil {
		t.Fatal(err)
	}
	def := fmt.Sprintf("dag_id: sleeper\nschedule_interval: null\ntasks:\n  - task_id: s\n    operator: BashOperator\n"+
		"    env: {PIDFILE: %q}\n    bash_command: echo $$ > \"$PIDFILE\"; exec sleep 300\n", pidFile)
	if err := os.WriteFile(filepath.Join(dags, "sleeper.yaml"), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecurity_HelperAirlite$")
	cmd.Env = append(os.Environ(), "AIRLITE_TEST_HELPER=1", "HOME="+dir, "TMPDIR="+dir, // its try folder goes with the test
		"AIRLITE_ADDR=127.0.0.1:0", "AIRLITE_DAGS="+dags, "AIRLITE_SNAPSHOT=off", "AIRLITE_READY_FILE="+ready,
		"AIRLITE_LOG_FORMAT=json", "AIRLITE_HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := strings.TrimSpace(string(readFileSoon(t, ready)))
	res, err := http.Post(base+apiPrefix+"/dags/sleeper/dag_runs", "application/json", strings.NewReader(`{"execution_date": "2024-05-01"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("trigger: %d", res.StatusCode)
	}
	pid := readPID(t, pidFile)
	if !procAlive(pid) {
		t.Fatalf("task %d is not running", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, pid, "the task of a killed airlite")
}

// TestSecurity_HelperAirlite is airlite itself, run as a child process by
// TestSecurity_TaskProcessesDieWithKilledAirlite.
func TestSecurity_HelperAirlite(t *testing.T) {
	if os.Getenv("AIRLITE_TEST_HELPER") != "1" {
		t.Skip("only runs as a child process")
	}
	if err := run(context.Background(), nil, os.Getenv, os.Stdout, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

func readFileSoon(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			return data
		}
		<-tick.C
	}
	t.Fatalf("%s not written after 30s", path)
	return nil
}

// A task whose operator panics fails (its stack logged), and the
// scheduler goes on running other tasks.
func TestScheduler_TaskPanicFailsTaskOnly(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts, sched := newSchedServer(t, edition2, func(o *schedulerOptions) {
		tickDriven(o)
		o.Logger = zerolog.New(&logs)
		real := o.RunTask
		o.RunTask = func(ctx context.Context, job taskJob) taskOutcome {
			if job.key.taskID == "boom" {
				var m map[string]int
				m["nil map"]++ // a real runtime panic
			}
			if real != nil {
				return real(ctx, job)
			}
			return taskOutcome{state: TaskSuccess}
		}
	}, withDAG(`
dag_id: panicky
schedule_interval: null
tasks:
  - {task_id: boom, operator: PythonOperator}
  - {task_id: fine, operator: PythonOperator}
`))
	ts.trigger(t, "panicky", `{"execution_date": "2024-05-01", "run_id": "first"}`)
	done := ts.tickRun(t, sched, "panicky", "first")
	tasks, _ := done["tasks"].(map[string]any)
	if done["state"] != "failed" || tasks["boom"] != "failed" || tasks["fine"] != "success" {
		t.Fatalf("run %v, want failed with boom failed and fine success", done)
	}
	out := logs.String()
	for _, want := range []string{"task panicked", "assignment to entry in nil map", "TestScheduler_TaskPanicFailsTaskOnly"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	// The scheduler still runs the next run.
	ts.trigger(t, "panicky", `{"execution_date": "2024-05-02", "run_id": "second"}`)
	if done := ts.tickRun(t, sched, "panicky", "second"); done["state"] != "failed" {
		t.Errorf("second run %v", done)
	}
}

// The snapshot folder and file are created owner-only.
func TestSecurity_SnapshotFolderOwnerOnly(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	c := config{Home: home, Snapshot: filepath.Join(home, "snaps", "snapshot.json"), SnapshotInterval: time.Hour,
		SnapshotBad: snapshotBadRefuse, Edition: edition2}
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store, sn, err := openStore(t.Context(), c, dags, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeSnapshot(store, c.Snapshot, time.Now()); err != nil {
		t.Fatal(err)
	}
	_ = sn
	for path, want := range map[string]os.FileMode{home: 0o700, filepath.Dir(c.Snapshot): 0o700, c.Snapshot: 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

// shapeRun is what a run gives the allowed shapes.
type shapeRun struct{ value, conf, runID, ds string }

// valueLine is the output of a shape that prints the value alone.
func valueLine(r shapeRun) string { return r.value + "\n" }

// allowedShapes are bash_command shapes that place a value from a request
// where bash takes it as data; want is the task's output.
var allowedShapes = []struct {
	name, command string
	want          func(r shapeRun) string
}{
	{"unquoted word", `echo {{ dag_run.conf.x }}`, valueLine},
	{"double quotes", `echo "{{ dag_run.conf.x }}"`, valueLine},
	{"inside a double-quoted sentence", `echo "<{{ dag_run.conf.x }}>"`, func(r shapeRun) string { return "<" + r.value + ">\n" }},
	{"option value", `printf '%s\n' --opt={{ dag_run.conf.x }}`, func(r shapeRun) string { return "--opt=" + r.value + "\n" }},
	{"assignment before a command", `X={{ dag_run.conf.x }} printenv X`, valueLine},
	{"assignment", `X={{ dag_run.conf.x }}; printf '%s\n' "$X"`, valueLine},
	{"export", `export X="{{ dag_run.conf.x }}"; printenv X`, valueLine},
	{"local in a function", `f() { local X={{ dag_run.conf.x }}; echo "$X"; }; f`, valueLine},
	{"case word", `case {{ dag_run.conf.x }} in "$WANT") echo same;; *) echo different;; esac`, func(shapeRun) string { return "same\n" }},
	{"for list", `for v in {{ dag_run.conf.x }}; do echo "$v"; done`, valueLine},
	{"pipeline", `echo {{ dag_run.conf.x }} | cat`, valueLine},
	{"and list", `true && echo "{{ dag_run.conf.x }}"`, valueLine},
	{"subshell", `(echo {{ dag_run.conf.x }})`, valueLine},
	{"if body", `if true; then echo {{ dag_run.conf.x }}; fi`, valueLine},
	{"while body", `while true; do echo {{ dag_run.conf.x }}; break; done`, valueLine},
	{"function body", `f() { echo "{{ dag_run.conf.x }}"; }; f`, valueLine},
	{"params overridden by conf", `echo {{ params.x }}`, valueLine},
	// Python's str() of the conf dict, as Jinja prints it in Airflow.
	{"the whole conf", `echo "{{ dag_run.conf }}"`, func(r shapeRun) string { return "{'x': " + pyQuote(r.value) + "}\n" }},
	{"run_id", `echo "{{ run_id }}"`, func(r shapeRun) string { return r.runID + "\n" }},
	{"dag_run.run_id", `echo {{ dag_run.run_id }}`, func(r shapeRun) string { return r.runID + "\n" }},
	{"static name in a here-document", "cat <<EOF\n{{ ds }}\nEOF\necho {{ dag_run.conf.x }}", func(r shapeRun) string { return r.ds + "\n" + r.value + "\n" }},
}

// refusedShapes are bash_command shapes where bash would read a value from
// a request as shell text; loading a DAG with one fails, naming context.
var refusedShapes = []struct{ name, command, context string }{
	{"here-document", "cat <<EOF\n{{ dag_run.conf.x }}\nEOF", "inside a here-document"},
	{"here-document, quoted delimiter", "cat <<'EOF'\n{{ dag_run.conf.x }}\nEOF", "inside a here-document"},
	{"here-document, whole conf", "cat <<EOF\n{{ dag_run.conf }}\nEOF", "inside a here-document"},
	{"here-document delimiter", "cat <<{{ dag_run.conf.x }}\nx\n{{ dag_run.conf.x }}", "unclosed here-document `{{ dag_run.conf.x }}`"},
	{"command substitution in double quotes", `echo "$(echo {{ dag_run.conf.x }} | tr a b)"`, "inside a $(...) command substitution"},
	{"command substitution", `echo $(echo {{ dag_run.conf.x }})`, "inside a $(...) command substitution"},
	{"backquotes in double quotes", "echo \"`echo {{ dag_run.conf.x }}`\"", "inside a `...` command substitution"},
	{"process substitution", `cat <(echo {{ dag_run.conf.x }})`, "inside a <(...) process substitution"},
	{"default word", `echo "${V:-{{ dag_run.conf.x }}}"`, "inside a ${...} parameter expansion"},
	{"parameter name", `echo ${{ dag_run.conf.x }}`, "inside a ${...} parameter expansion"},
	{"bash -c", `bash -c "echo {{ dag_run.conf.x }}"`, "argument of bash"},
	{"bash by path", `/bin/bash -c "echo {{ dag_run.conf.x }}"`, "argument of /bin/bash"},
	{"sh -c", `sh -c 'echo "$1"' sh {{ dag_run.conf.x }}`, "argument of sh"},
	{"eval", `eval echo {{ dag_run.conf.x }}`, "argument of eval"},
	{"ssh", `ssh host echo {{ dag_run.conf.x }}`, "argument of ssh"},
	{"sudo sh -c", `sudo sh -c "echo {{ dag_run.conf.x }}"`, "argument of sudo"},
	{"shell after a wrapper", `nocode sh -c "echo {{ dag_run.conf.x }}"`, "argument of sh"},
	{"python3 -c", `python3 -c "print('{{ dag_run.conf.x }}')"`, "argument of python3"},
	{"versioned python", `python3.11 -c "print({{ dag_run.conf.x }})"`, "argument of python3.11"},
	{"awk", `awk "BEGIN { print \"{{ dag_run.conf.x }}\" }"`, "argument of awk"},
	{"find -exec", `find . -exec {{ dag_run.conf.x }} {} +`, "after find -exec"},
	{"printf -v", `printf -v {{ dag_run.conf.x }} %s 1`, "after printf -v"},
	{"test -v", `[ -v {{ dag_run.conf.x }} ]`, "after [ -v"},
	{"read", `read {{ dag_run.conf.x }} < /dev/null`, "argument of read"},
	{"unset", `unset {{ dag_run.conf.x }}`, "argument of unset"},
	{"compgen", `compgen -W "{{ dag_run.conf.x }}" x`, "argument of compgen"},
	{"command name from a variable", `"$CMD" {{ dag_run.conf.x }}`, "command whose name is not plain text"},
	{"single quotes", `echo '{{ dag_run.conf.x }}'`, "inside single quotes"},
	{"dollar single quotes", `echo $'{{ dag_run.conf.x }}'`, "inside $'...' quotes"},
	{"dollar double quotes", `echo $"{{ dag_run.conf.x }}"`, `inside $"..." quotes`},
	{"comment", `echo hi # {{ dag_run.conf.x }}`, "inside a # comment"},
	{"arithmetic expansion", `echo $(( {{ dag_run.conf.x }} + 1 ))`, "inside arithmetic"},
	{"arithmetic command", `(( {{ dag_run.conf.x }} ))`, "inside arithmetic"},
	{"let", `let n={{ dag_run.conf.x }}`, "inside arithmetic"},
	{"array index", `a[{{ dag_run.conf.x }}]=1`, "in an array index"},
	{"array literal", `a=({{ dag_run.conf.x }})`, "in an array literal"},
	{"test clause", `[[ {{ dag_run.conf.x }} == a ]]`, "inside a [[ ... ]] test"},
	{"extended glob", `ls @({{ dag_run.conf.x }})`, "inside an extended glob"},
	{"command name", `{{ dag_run.conf.x }} arg`, "as the command name"},
	{"command name in a pipeline", `echo a | {{ dag_run.conf.x }}`, "as the command name"},
	{"redirect target", `echo hi > {{ dag_run.conf.x }}`, "as a redirect target"},
	{"here-string", `cat <<< {{ dag_run.conf.x }}`, "in a here-string"},
	{"after a backslash", `echo \{{ dag_run.conf.x }}`, "after a backslash"},
	{"PATH", `PATH={{ dag_run.conf.x }} ls`, "assigned to PATH"},
	{"LD_PRELOAD", `LD_PRELOAD={{ dag_run.conf.x }} ls`, "assigned to LD_PRELOAD"},
	{"an integer variable of bash", `RANDOM={{ dag_run.conf.x }}`, "assigned to RANDOM"},
	{"variable declared with attributes", `declare -i n; n={{ dag_run.conf.x }}`, "assigned to n, which the command declares with -i or -n"},
	{"variable declared by a builtin command", `builtin declare -n r; r={{ dag_run.conf.x }}`, "assigned to r, which the command declares with -i or -n"},
	{"variable name", `{{ dag_run.conf.x }}=1`, "as a variable name"},
	{"declare with options", `declare -a a={{ dag_run.conf.x }}`, "in a declare with options"},
	{"local with options", `f() { local -r X={{ dag_run.conf.x }}; }`, "in a local with options"},
	{"export without =", `export {{ dag_run.conf.x }}`, "not NAME=value"},
	{"case pattern", `case a in {{ dag_run.conf.x }}) echo x;; esac`, "as a case pattern"},
	{"select list", `select v in {{ dag_run.conf.x }}; do break; done`, "in a select list"},
	{"unparseable", `echo "{{ dag_run.conf.x }}`, "does not parse as bash"},
	{"reserved name", `echo __airlite_value_1__ {{ dag_run.conf.x }}`, "reserved"},
	{"unknown name", `cat <<EOF` + "\n{{ whatever }}\nEOF", "inside a here-document"},
}

// hostileValues are conf values (and, in 1.10, run_ids) that run a
// command if bash reads them as shell text, and harmless ones that a
// quoting mistake would corrupt. M is the marker file, in the task's cwd.
var hostileValues = []string{
	"$(touch M)",
	"`touch M`",
	"'; touch M; '",
	`"; touch M; "`,
	"\ntouch M",
	`$'\x27'`,
	"it's \"quoted\"\nand a second line",
	"two  spaces * and a glob",
	`back\slash \" \' \\`,
}

// Every shape that places a request value is either run with the value as
// data (the task prints it verbatim, nothing it names runs) or refused when
// the DAG loads, with the file, the line and a hint.
func TestSecurity_RequestValuesReachBashAsData(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition110, edition110RBAC} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var def strings.Builder
			def.WriteString("dag_id: shapes\nschedule_interval: null\nparams: {x: from the DAG}\ntasks:\n")
			for i, shape := range allowedShapes {
				command, _ := json.Marshal(shape.command) // a JSON string is a YAML double-quoted scalar
				fmt.Fprintf(&def, "  - task_id: shape_%d\n    operator: BashOperator\n    cwd: %q\n"+
					"    env: {WANT: \"{{ dag_run.conf.x }}\"}\n    bash_command: %s\n", i, dir, command)
			}
			ts, sched := newSchedServer(t, e, tickDriven, withDAG(def.String()))
			day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
			runIDs := make([]string, len(hostileValues))
			for i, value := range hostileValues {
				runIDs[i] = fmt.Sprintf("value_%d", i)
				if e.isAirflow1() {
					runIDs[i] = value // 1.10 takes any run_id
				}
				body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": value}, "run_id": runIDs[i],
					"execution_date": day.AddDate(0, 0, i).Format(time.RFC3339)})
				ts.trigger(t, "shapes", string(body))
			}
			for i, value := range hostileValues {
				done := ts.tickRun(t, sched, "shapes", runIDs[i])
				run, err := ts.store.RunByRunID("shapes", runIDs[i])
				if err != nil {
					t.Fatalf("run %q: %v", runIDs[i], err)
				}
				ds := day.AddDate(0, 0, i).Format("2006-01-02")
				for j, shape := range allowedShapes {
					want := shape.want(shapeRun{value: value, conf: string(run.Conf), runID: runIDs[i], ds: ds})
					if got := ts.taskOutput(t, "shapes", runIDs[i], fmt.Sprintf("shape_%d", j)); got != want {
						t.Errorf("%s with %q (run %v)\n got %q\nwant %q", shape.name, value, done["state"], got, want)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "M")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a request value ran as shell text: the marker exists (%v)", err)
			}
			for _, shape := range refusedShapes {
				command, _ := json.Marshal(shape.command)
				def := fmt.Sprintf("dag_id: refused\nschedule_interval: null\ntasks:\n  - task_id: t\n"+
					"    operator: BashOperator\n    cwd: %q\n    bash_command: %s\n", dir, command)
				res := ts.do(t, http.MethodPost, "/_airlite/dags", def)
				msg, _ := decodeJSON[map[string]any](t, res.body)["error"].(string)
				if res.status != http.StatusBadRequest || !strings.Contains(msg, `line 7: task "t": bash_command: `) ||
					!strings.Contains(msg, shape.context) {
					t.Errorf("%s: loading %q answered %d %q, want 400 naming line 7 and %q",
						shape.name, shape.command, res.status, msg, shape.context)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "M")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused shape ran: the marker exists (%v)", err)
			}
		})
	}
}

// The loader names the file, the line of the bash_command and what to do
// instead.
func TestSecurity_RefusedShapeNamesFileLineAndHint(t *testing.T) {
	t.Parallel()
	for _, shape := range refusedShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			command, _ := json.Marshal(shape.command)
			def := fmt.Sprintf("dag_id: refused\nschedule_interval: null\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n"+
				"  - task_id: echo\n    operator: BashOperator\n    bash_command: %s\n", command)
			if err := os.WriteFile(filepath.Join(dir, "refused.yaml"), []byte(def), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadDAGDir(dir)
			prefix := filepath.Join(dir, "refused.yaml") + `: line 7: task "echo": bash_command: `
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), shape.context) {
				t.Fatalf("load %q: %v\nwant %q... naming %q", shape.command, err, prefix, shape.context)
			}
		})
	}
}

// taskOutput is the output of a task's last try.
func (ts *testServer) taskOutput(t *testing.T, dagID, runID, taskID string) string {
	t.Helper()
	raw, err := ts.store.read().First(tableTaskLogs, indexID, dagID, runID, taskID, "-1")
	if err != nil || raw == nil {
		t.Fatalf("task log of %s/%s/%s: %v", dagID, runID, taskID, err)
	}
	tries := raw.(*TaskLog).Tries
	return tries[len(tries)-1].Output
}
