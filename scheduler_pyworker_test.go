package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// workerPID is the pid of the scheduler's one running Python worker.
func workerPID(t *testing.T, s *scheduler) int {
	t.Helper()
	s.pyworkers.mu.Lock()
	defer s.pyworkers.mu.Unlock()
	if len(s.pyworkers.workers) != 1 {
		t.Fatalf("%d python workers, want 1", len(s.pyworkers.workers))
	}
	for _, w := range s.pyworkers.workers {
		return w.cmd.Process.Pid
	}
	return 0
}

// sleeperJob is a try of py_sleep's sleeper, which writes its pid and its
// child's to the returned file and sleeps.
func sleeperJob(t *testing.T, h *pyHarness) (taskJob, string) {
	t.Helper()
	row, err := h.store.DagByID("py_sleep")
	if err != nil {
		t.Fatal(err)
	}
	task := *row.Def.Task("sleeper")
	pidFile := filepath.Join(t.TempDir(), "pids")
	task.Params = map[string]any{"pid_file": pidFile}
	run := DagRun{ID: 1, DagID: "py_sleep", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
	return taskJob{key: tiKey{"py_sleep", "r", "sleeper", -1}, try: 1, dag: row.Def, task: &task, run: run}, pidFile
}

// A try runs as a child the warm worker forked: in a process group and
// session of its own (pgid and sid its pid), the worker a child of
// airlite. A stop ends the try's group; the scheduler's stop ends the
// worker.
func TestPythonWorker_TryIsForkedIntoItsOwnGroup(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	job, pidFile := sleeperJob(t, h)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan taskOutcome, 1)
	go func() { done <- h.sched.runOperator(ctx, job) }()
	pids := awaitPIDs(t, pidFile)
	worker := workerPID(t, h.sched)
	st, ok := readProcStat(pids[0])
	if !ok {
		t.Fatalf("no process %d", pids[0])
	}
	if st.ppid != worker || st.pgrp != pids[0] || sessionOf(t, pids[0]) != pids[0] {
		t.Errorf("try %d: parent %d, group %d, session %d; want parent the worker %d, group and session its own",
			pids[0], st.ppid, st.pgrp, sessionOf(t, pids[0]), worker)
	}
	if ws, ok := readProcStat(worker); !ok || ws.ppid != os.Getpid() || ws.pgrp != worker {
		t.Errorf("worker %d: %+v, want a child of airlite (%d) leading its own group", worker, ws, os.Getpid())
	}
	cancel(errTaskStopped)
	if out := <-done; out.state != TaskFailed || !strings.HasPrefix(out.reason, "killed: ") {
		t.Errorf("outcome %s (%s), want failed, killed", out.state, out.reason)
	}
	for _, pid := range pids {
		waitGone(t, pid, "the stopped try's process")
	}
	h.sched.stop()
	waitGone(t, worker, "the python worker after the scheduler's stop")
}

// sessionOf is a process's session id (/proc/<pid>/stat field 6).
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	sid, err := strconv.Atoi(f[3])
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

// The worker never imports DAG files: a try imports its file after the
// fork, so a file changed since the last try is read again.
func TestPythonWorker_ChangedFileIsImportedAgain(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	folder := t.TempDir()
	file := filepath.Join(folder, "changing.py")
	write := func(word string) {
		t.Helper()
		src := "from datetime import datetime\nfrom airflow import DAG\nfrom airflow.operators.python import PythonOperator\n\n" +
			"def quick():\n    return " + strconv.Quote(word) + "\n\n" +
			"with DAG('py_fast', start_date=datetime(2024, 1, 1), schedule=None):\n" +
			"    PythonOperator(task_id='quick', python_callable=quick)\n"
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	row, err := h.store.DagByID("py_fast")
	if err != nil {
		t.Fatal(err)
	}
	task := *row.Def.Task("quick")
	task.PythonCallable = &PythonCallable{File: file, Folder: folder}
	run := DagRun{ID: 1, DagID: "py_fast", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
	workers := map[int]bool{}
	for _, word := range []string{"first", "second, a longer answer"} {
		write(word)
		out := h.sched.runOperator(context.Background(), taskJob{key: tiKey{"py_fast", "r", "quick", -1}, try: 1, dag: row.Def, task: &task, run: run})
		if out.state != TaskSuccess || string(out.returnValue) != strconv.Quote(word) {
			t.Fatalf("try %s (%s) returned %s, want %q\n%s", out.state, out.reason, out.returnValue, word, out.output)
		}
		workers[workerPID(t, h.sched)] = true
	}
	if len(workers) != 1 {
		t.Errorf("workers %v, want both tries forked by one", workers)
	}
}

// A worker killed during a try fails that try (its child dies with it),
// and the next try starts a new worker.
func TestPythonWorker_KilledWorkerFailsItsTry(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	job, pidFile := sleeperJob(t, h)
	done := make(chan taskOutcome, 1)
	go func() { done <- h.sched.runOperator(context.Background(), job) }()
	pids := awaitPIDs(t, pidFile)
	worker := workerPID(t, h.sched)
	if err := killPID(worker); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-done:
		if out.state != TaskFailed {
			t.Errorf("outcome %s (%s), want failed", out.state, out.reason)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the try did not end with its worker")
	}
	waitGone(t, pids[0], "the try whose worker was killed")
	waitGone(t, pids[1], "the killed try's child")
	row, err := h.store.DagByID("py_fast")
	if err != nil {
		t.Fatal(err)
	}
	run := DagRun{ID: 1, DagID: "py_fast", RunID: "r", ExecutionDate: schedEpoch, State: RunRunning, RunType: "manual"}
	out := h.sched.runOperator(context.Background(), taskJob{key: tiKey{"py_fast", "r", "quick", -1}, try: 1, dag: row.Def, task: row.Def.Task("quick"), run: run})
	if out.state != TaskSuccess {
		t.Fatalf("the next try: %s (%s)\n%s", out.state, out.reason, out.output)
	}
	if again := workerPID(t, h.sched); again == worker {
		t.Errorf("the next try ran on the killed worker %d", worker)
	}
}

// Without the worker (noPythonWorker), a try is a python3 process of its
// own, a child of airlite: the path a worker that cannot start falls back to.
func TestPythonTask_OwnProcessWithoutWorker(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	h.sched.noPythonWorker = true
	job, pidFile := sleeperJob(t, h)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan taskOutcome, 1)
	go func() { done <- h.sched.runOperator(ctx, job) }()
	pids := awaitPIDs(t, pidFile)
	if st, ok := readProcStat(pids[0]); !ok || st.ppid != os.Getpid() || st.pgrp != pids[0] {
		t.Errorf("try %d: %+v, want a child of airlite leading its own group", pids[0], st)
	}
	cancel(errTaskStopped)
	if out := <-done; out.state != TaskFailed {
		t.Errorf("outcome %s (%s), want failed", out.state, out.reason)
	}
	if n := len(h.sched.pyworkers.workers); n != 0 {
		t.Errorf("%d workers started", n)
	}
}

// TestBinary_CrashLeavesNoPythonTaskProcesses: airlite is killed outright
// while a forked Python try runs with a background child. The worker and
// the try die with it (parent-death signals); the next start ends the
// background child (the try's recorded group) before anything runs.
func TestBinary_CrashLeavesNoPythonTaskProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	needPython(t)
	home := t.TempDir()
	dags := t.TempDir()
	pidFile := filepath.Join(home, "pids")
	src := fmt.Sprintf(`import os, subprocess, time
from datetime import datetime
from airflow import DAG
from airflow.operators.python import PythonOperator

PID_FILE = %s


def sleeper():
    if os.path.exists(PID_FILE):
        return "again"
    child = subprocess.Popen(["sleep", "300"])
    with open(PID_FILE + ".tmp", "w") as f:
        f.write("%%d %%d %%d" %% (os.getpid(), os.getppid(), child.pid))
    os.rename(PID_FILE + ".tmp", PID_FILE)
    time.sleep(300)


with DAG("py_orphan", start_date=datetime(2024, 1, 1), schedule=None):
    PythonOperator(task_id="t", python_callable=sleeper)
`, strconv.Quote(pidFile))
	if err := os.WriteFile(filepath.Join(dags, "orphan.py"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--dags", dags, "--home", home, "--snapshot-interval", "50ms"}
	p := startBinary(t, args...)
	p.trigger("py_orphan", `{"execution_date": "`+stopDate+`"}`)
	pids := awaitPIDs(t, pidFile) // the try, its parent (the worker), its child
	if len(pids) != 3 {
		t.Fatalf("pids %v", pids)
	}
	if st, ok := readProcStat(pids[1]); !ok || st.ppid != p.cmd.Process.Pid {
		t.Fatalf("the try's parent %d is not a worker of airlite (%+v)", pids[1], st)
	}
	if !pollUntil(20*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(home, "snapshot.json"))
		return strings.Contains(string(b), `"proc_identity"`)
	}) {
		t.Fatal("no snapshot recorded the task's process")
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	waitGone(t, pids[1], "the python worker of the killed airlite")
	waitGone(t, pids[0], "the forked try of the killed airlite")
	// The child usually outlives the crash, and the next start's sweep
	// ends it. But the worker races its own death: when it reads airlite's
	// socket closing before its parent-death SIGKILL lands, it kills its
	// tries' groups itself (airlite_worker.py), child included, which
	// happens under load. Either way no process is left behind, which
	// is what this test is about.
	if !procAlive(pids[2]) {
		t.Logf("the try's background child %d ended with the worker, before any sweep", pids[2])
	}
	again := startBinary(t, args...)
	waitGone(t, pids[2], "the crashed instance's try's child")
	status, v := again.getJSON("/_airlite/dags/py_orphan/dag_runs/manual__" + stopDate + "/wait?timeout=60s")
	if status != http.StatusOK || v["state"] != "success" {
		t.Fatalf("the run after the restart: %d %v", status, v)
	}
}

// Warming a worker returns once the worker has imported what tries use and
// said so, so that the ready line (main waits for it, bounded) comes with
// the first try's worker warm.
func TestPythonWorker_WarmReturnsWhenTheWorkerIsWarm(t *testing.T) {
	h := newPyHarness(t, edition2, "flows.py", pyTasksYAML)
	h.sched.warmPythonWorkers()
	h.sched.pyworkers.mu.Lock()
	defer h.sched.pyworkers.mu.Unlock()
	if len(h.sched.pyworkers.workers) != 1 {
		t.Fatalf("%d python workers, want 1", len(h.sched.pyworkers.workers))
	}
	for _, w := range h.sched.pyworkers.workers {
		select {
		case <-w.warm:
		default:
			t.Error("warmPythonWorkers returned before its worker said it was warm")
		}
	}
}
