package main

// The binary's life: a planned stop lets running tasks end within
// --shutdown-grace, puts back the ones still running without using a try,
// and they run again at the next start.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// airliteProc is a running airlite binary.
type airliteProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	exited chan error
	logs   *syncBuffer
}

// startBinary starts the binary with args (plus a free loopback port, a
// ready file and JSON logs) and waits until it serves. It is killed at
// cleanup if still running.
func startBinary(t *testing.T, args ...string) *airliteProc {
	t.Helper()
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(airliteBinary(t), append([]string{"--addr", "127.0.0.1:0", "--ready-file", ready,
		"--log-format", "json"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIRLITE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p := &airliteProc{t: t, cmd: cmd, exited: make(chan error, 1), logs: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
		}
		if t.Failed() {
			t.Logf("airlite output:\n%s", p.logs.String())
		}
	})
	if !pollUntil(20*time.Second, func() bool {
		b, err := os.ReadFile(ready)
		if err == nil && len(b) > 0 {
			p.base = strings.TrimSpace(string(b))
			return true
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			return true
		default:
			return false
		}
	}) || p.base == "" {
		t.Fatalf("airlite did not serve:\n%s", p.logs.String())
	}
	return p
}

// stop sends SIGTERM and waits up to limit for a clean exit.
func (p *airliteProc) stop(limit time.Duration) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			p.t.Fatalf("airlite exited with %v after SIGTERM:\n%s", err, p.logs.String())
		}
	case <-time.After(limit):
		p.t.Fatalf("airlite still running %s after SIGTERM", limit)
	}
}

func (p *airliteProc) getJSON(path string) (int, map[string]any) {
	p.t.Helper()
	res, err := http.Get(p.base + path)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var v map[string]any
	_ = json.Unmarshal(body, &v)
	return res.StatusCode, v
}

func (p *airliteProc) trigger(dagID, body string) {
	p.t.Helper()
	res, err := http.Post(p.base+apiPrefix+"/dags/"+dagID+"/dag_runs", "application/json", strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		p.t.Fatalf("trigger %s: %d", dagID, res.StatusCode)
	}
}

// taskState reads a task instance's state and try number through the API.
func (p *airliteProc) taskState(dagID, date, taskID string) (state any, try any) {
	p.t.Helper()
	status, v := p.getJSON(apiPrefix + "/dags/" + dagID + "/dag_runs/" + date + "/tasks/" + taskID)
	if status != http.StatusOK {
		p.t.Fatalf("task instance %s: %d %v", taskID, status, v)
	}
	return v["state"], v["try_number"]
}

func writeDAGFolder(t *testing.T, defs ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dags")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, def := range defs {
		if err := os.WriteFile(filepath.Join(dir, "dag"+string(rune('a'+i))+".yaml"), []byte(def), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const stopDate = "2024-05-01T00:00:00+00:00"

// TestBinary_PlannedStopLetsTasksFinish: SIGTERM while a task runs waits
// for it within --shutdown-grace; the task's success is in the snapshot.
func TestBinary_PlannedStopLetsTasksFinish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	home := t.TempDir()
	marker := filepath.Join(home, "started")
	dags := writeDAGFolder(t, "dag_id: graceful\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n"+
		"    bash_command: touch "+marker+"; sleep 1; echo done\n")
	args := []string{"--dags", dags, "--home", home, "--shutdown-grace", "20s"}
	p := startBinary(t, args...)
	p.trigger("graceful", `{"execution_date": "`+stopDate+`"}`)
	if !pollUntil(20*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
		t.Fatal("the task never started")
	}
	p.stop(15 * time.Second)
	again := startBinary(t, append(args, "--scheduler", "off")...)
	if state, try := again.taskState("graceful", stopDate, "t"); state != "success" || try != "1" {
		t.Fatalf("after a planned stop: state %v, try %v; want success, 1", state, try)
	}
}

// TestBinary_PlannedStopPutsBackUnfinishedTasks: a task still running when
// the grace is over is stopped, goes back to no state without using a
// try, and runs again (to success) at the next start.
func TestBinary_PlannedStopPutsBackUnfinishedTasks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	home := t.TempDir()
	marker := filepath.Join(home, "first-try")
	dags := writeDAGFolder(t, "dag_id: longrun\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n"+
		"    retries: 0\n    bash_command: if [ -f "+marker+" ]; then echo second; else touch "+marker+"; sleep 60; fi\n")
	args := []string{"--dags", dags, "--home", home, "--shutdown-grace", "200ms"}
	p := startBinary(t, args...)
	p.trigger("longrun", `{"execution_date": "`+stopDate+`"}`)
	if !pollUntil(20*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
		t.Fatal("the task never started")
	}
	p.stop(15 * time.Second)
	off := startBinary(t, append(args, "--scheduler", "off")...)
	if state, _ := off.taskState("longrun", stopDate, "t"); state != "None" {
		t.Fatalf("after the grace: state %v, want none (not failed, not up_for_retry)", state)
	}
	off.stop(10 * time.Second)
	on := startBinary(t, args...)
	status, v := on.getJSON("/_airlite/dags/longrun/dag_runs/manual__" + stopDate + "/wait?timeout=30s")
	if status != http.StatusOK || v["state"] != "success" {
		t.Fatalf("the run after a restart: %d %v", status, v)
	}
	if state, try := on.taskState("longrun", stopDate, "t"); state != "success" || try != "1" {
		t.Fatalf("after the second start: state %v, try %v; want success, 1 (the stopped try not counted)", state, try)
	}
}

// TestBinary_CrashLeavesNoTaskProcesses: airlite is killed outright while
// a task's background child runs (the child survives its bash, which dies
// with airlite); the next start ends that child before anything runs,
// then runs the task again.
func TestBinary_CrashLeavesNoTaskProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	home := t.TempDir()
	pidFile := filepath.Join(home, "child.pid")
	dags := writeDAGFolder(t, "dag_id: orphan\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n"+
		"    bash_command: if [ -f "+pidFile+" ]; then echo again; else sleep 300 & echo $! > "+pidFile+"; wait; fi\n")
	args := []string{"--dags", dags, "--home", home, "--snapshot-interval", "50ms"}
	p := startBinary(t, args...)
	p.trigger("orphan", `{"execution_date": "`+stopDate+`"}`)
	child := readPID(t, pidFile)
	// The snapshot must hold the running try and its process.
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
	if !procAlive(child) {
		t.Fatalf("the task's background child %d died with airlite: the test proves nothing", child)
	}
	again := startBinary(t, args...)
	waitGone(t, child, "the crashed instance's task child")
	status, v := again.getJSON("/_airlite/dags/orphan/dag_runs/manual__" + stopDate + "/wait?timeout=30s")
	if status != http.StatusOK || v["state"] != "success" {
		t.Fatalf("the run after the restart: %d %v", status, v)
	}
}

// TestBinary_AdoptedProcessesEndAtStop: a task starts a process in a new
// session (out of its process group's reach) and ends; airlite, a child
// subreaper, adopts it, and a planned stop ends it.
func TestBinary_AdoptedProcessesEndAtStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	home := t.TempDir()
	pidFile := filepath.Join(home, "daemon.pid")
	dags := writeDAGFolder(t, "dag_id: daemon\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n"+
		"    bash_command: setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "+pidFile+"\n")
	p := startBinary(t, "--dags", dags, "--home", home, "--snapshot", "off")
	p.trigger("daemon", `{"execution_date": "`+stopDate+`"}`)
	status, v := p.getJSON("/_airlite/dags/daemon/dag_runs/manual__" + stopDate + "/wait?timeout=30s")
	if status != http.StatusOK || v["state"] != "success" {
		t.Fatalf("run: %d %v", status, v)
	}
	daemon := readPID(t, pidFile)
	if st, ok := readProcStat(daemon); !ok || st.ppid != p.cmd.Process.Pid {
		t.Fatalf("process %d (%+v, %v) was not adopted by airlite %d", daemon, st, ok, p.cmd.Process.Pid)
	}
	p.stop(15 * time.Second)
	waitGone(t, daemon, "a process a task left in its own session")
}

// rssKiB reads a process's resident set size.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestBinary_NonReadingClientsOfALongListing: 400 clients ask for a run
// listing of 10,000 runs (2.4 MB) and never read it. The binary's RSS
// stays under 400 MiB (each such client held the whole answer before:
// 400 x 2.4 MB), and it answers others meanwhile.
func TestBinary_NonReadingClientsOfALongListing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	dags := writeDAGFolder(t, "dag_id: many\nschedule_interval: null\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n")
	p := startBinary(t, "--dags", dags, "--snapshot", "off", "--scheduler", "off", "--journal-size", "0", "--log-level", "warn")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 10000; i += 8 {
				body := fmt.Sprintf(`{"run_id": "r%d", "execution_date": "2020-01-01T00:00:00+00:00", "replace_microseconds": "false"}`, i)
				body = strings.Replace(body, "2020-01-01T00:00:00", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute).Format("2006-01-02T15:04:05"), 1)
				res, err := client.Post(p.base+apiPrefix+"/dags/many/dag_runs", "application/json", strings.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("trigger %d: %d", i, res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(p.base, "http://")
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := 0; i < 400; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET "+apiPrefix+"/dags/many/dag_runs HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	// The server renders and writes until every socket is full.
	time.Sleep(3 * time.Second)
	rss := rssKiB(t, p.cmd.Process.Pid)
	status, _ := p.getJSON(apiPrefix + "/test")
	if status != http.StatusOK {
		t.Errorf("/test beside 400 stalled clients: %d", status)
	}
	if rss > 400<<10 {
		t.Errorf("RSS %d MiB with 400 clients not reading a 2.4 MB listing, over 400 MiB", rss>>10)
	}
	t.Logf("RSS with 400 stalled clients of a 10,000-run listing: %d MiB", rss>>10)
}

// A recorded process group is never airlite's own, whatever the record
// (a snapshot from another host, or a forged one) says. The check runs in
// a child process that leads a group of its own, so that a broken guard
// kills that child only.
func TestKillOrphanedGroup_NeverOwnGroup(t *testing.T) {
	t.Parallel()
	if processIdentity(os.Getpid()) == "" {
		t.Skip("no /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillOrphanedGroup_Helper$")
	cmd.Env = append(os.Environ(), "AIRLITE_TEST_OWN_GROUP=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "killed 0") {
		t.Fatalf("the child asked to end its own group: %v\n%s", err, out)
	}
}

// TestKillOrphanedGroup_Helper is the child of NeverOwnGroup.
func TestKillOrphanedGroup_Helper(t *testing.T) {
	if os.Getenv("AIRLITE_TEST_OWN_GROUP") != "1" {
		t.Skip("only runs as a child process")
	}
	// An identity from this boot's first tick matches every process of
	// the group; the guard must still refuse.
	boot, _, _ := strings.Cut(processIdentity(os.Getpid()), "/")
	fmt.Printf("killed %d\n", killOrphanedGroup(syscall.Getpgrp(), boot+"/0"))
}
