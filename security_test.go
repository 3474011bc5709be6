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
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// newSchedServer is a test server whose store a real scheduler (real
// operators, real clock, a fast loop) runs; it stops at cleanup.
func newSchedServer(t *testing.T, e edition, tune func(*schedulerOptions), options ...testOption) (*testServer, *scheduler) {
	t.Helper()
	var sched *scheduler
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
			ts, _ := newSchedServer(t, e, nil, withDAG(`
dag_id: inject
schedule_interval: null
tasks:
  - task_id: echo
    operator: BashOperator
    cwd: `+dir+`
    bash_command: echo {{ dag_run.conf.x }}; echo "{{ dag_run.conf.x }}"; echo '{{ dag_run.conf.x }}'; echo "$AIRLITE_CONF"; echo {{ run_id }}
`))
			payload := fmt.Sprintf("$(touch %[1]s) `touch %[1]s` ';touch %[1]s;' \"; touch %[1]s; \" && touch %[1]s", marker)
			runID := "plain_run"
			if e.isAirflow1() {
				runID = "$(touch pwned)`touch pwned`;touch pwned" // 1.10 takes any run_id; the task runs in dir
			}
			body, _ := json.Marshal(map[string]any{"conf": map[string]any{"x": payload}, "run_id": runID,
				"execution_date": "2024-05-01T00:00:00+00:00"})
			ts.trigger(t, "inject", string(body))
			done := ts.waitRun(t, "inject", runID)
			if done["state"] != "success" {
				t.Fatalf("run ended %v", done)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("request data ran as shell text: %s exists (%v)", marker, err)
			}
			raw, err := ts.store.read().First(tableTaskLogs, indexID, "inject", runID, "echo")
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

// procAlive reports whether a process exists and is not a zombie.
func procAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	rest := string(data[bytes.LastIndexByte(data, ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z") && !strings.HasPrefix(strings.TrimSpace(rest), "X")
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
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("%s (pid %d) still runs 15s later", what, pid)
	}
}

// Stopping the scheduler (airlite's shutdown) kills a task's whole process
// group, background children included.
func TestSecurity_TaskProcessesEndWithScheduler(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	ts, sched := newSchedServer(t, edition2, nil, withDAG(fmt.Sprintf(`
dag_id: sleeper
schedule_interval: null
tasks:
  - task_id: s
    operator: BashOperator
    env: {PIDFILE: %q}
    bash_command: sleep 300 & echo $! > "$PIDFILE"; wait
`, pidFile)))
	ts.trigger(t, "sleeper", `{"execution_date": "2024-05-01"}`)
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
	cmd.Env = append(os.Environ(), "AIRLITE_TEST_HELPER=1", "HOME="+dir,
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
	ts, _ := newSchedServer(t, edition2, func(o *schedulerOptions) {
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
	done := ts.waitRun(t, "panicky", "first")
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
	if done := ts.waitRun(t, "panicky", "second"); done["state"] != "failed" {
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
	store, sn, err := openStore(c, dags, zerolog.Nop())
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
