package main

// The binary's life: a planned stop lets running tasks end within
// --shutdown-grace, puts back the ones still running without using a try,
// and they run again at the next start.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
// skipStopBySignal skips a test that stops the airlite binary with
// SIGTERM: Windows cannot send another process a signal (os.Process.Signal
// there only kills), and these tests' DAGs are POSIX shell.
func skipStopBySignal(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("stops airlite with SIGTERM, which Windows cannot send (os.Process.Signal only kills there)")
	}
}

func startBinary(t *testing.T, args ...string) *airliteProc {
	t.Helper()
	return startBinaryEnv(t, nil, args...)
}

// startBinaryEnv is startBinary with env (KEY=value) added to the
// environment airlite gets. Its TMPDIR is the test's own unless env
// names one, so that what a binary killed at cleanup leaves there goes
// with the test.
func startBinaryEnv(t *testing.T, env []string, args ...string) *airliteProc {
	t.Helper()
	skipStopBySignal(t)
	dir := t.TempDir()
	env = append([]string{"TMPDIR=" + t.TempDir()}, env...)
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(airliteBinary(t), append([]string{"--addr", "127.0.0.1:0", "--ready-file", ready,
		"--log-format", "json"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIRLITE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
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
	if runtime.GOOS != "linux" {
		t.Skip("a child subreaper is Linux's (scheduler_procs_other.go)")
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

// errInjectedServe is the failure failingListener's Accept returns.
var errInjectedServe = errors.New("injected accept failure")

// failingListener accepts as its listener does until fail is closed;
// then Accept returns errInjectedServe, and http.Server.Serve returns it.
type failingListener struct {
	net.Listener
	fail chan struct{}
}

func (l *failingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	select {
	case <-l.fail:
		if c != nil {
			c.Close()
		}
		return nil, errInjectedServe
	default:
		return c, err
	}
}

// failServing is a processOptions.listen whose listener fails once fail
// is closed: the listener is closed too, so that a blocked Accept wakes.
func failServing(fail chan struct{}) func(network, addr string) (net.Listener, error) {
	return func(network, addr string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		go func() {
			<-fail
			ln.Close()
		}()
		return &failingListener{Listener: ln, fail: fail}, nil
	}
}

// startProcess calls runProcess with po and args in the background, in a
// temporary HOME, and returns at once; the call is cancelled and awaited
// at cleanup.
func startProcess(t *testing.T, po processOptions, args ...string) *runningServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &runningServer{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	env := mapEnv(map[string]string{"HOME": t.TempDir()})
	go func() { s.done <- runProcess(ctx, args, env, s.stdout, s.stderr, po) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-s.done:
			s.done <- err
		case <-time.After(30 * time.Second):
			t.Error("runProcess did not return within 30s of cleanup")
		}
	})
	return s
}

// returned waits for runProcess to return and gives its error.
func (s *runningServer) returned(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("runProcess did not return within 30s; log:\n%s", s.stderr.String())
		return nil
	}
}

// serving waits for the listening line and sets baseURL.
func (s *runningServer) serving(t *testing.T) {
	t.Helper()
	waitForRun(t, s, "the listening line", func() bool { return s.stdout.String() != "" })
	m := listeningLine.FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("stdout = %q, want one listening line", s.stdout.String())
	}
	s.baseURL = m[1]
}

// exitPath is one way a start that opened the store comes to an end.
type exitPath struct {
	name    string
	args    func(t *testing.T, dir string) []string // beyond the common ones
	listen  func(fail chan struct{}) func(network, addr string) (net.Listener, error)
	end     func(s *runningServer, fail chan struct{}) // nil: runProcess returns by itself
	wantErr string                                     // "" for none
}

// exitPaths covers every exit after the store is open.
var exitPaths = []exitPath{
	{name: "signal", end: func(s *runningServer, _ chan struct{}) { s.cancel() }},
	{name: "serve error", listen: failServing, end: func(_ *runningServer, fail chan struct{}) { close(fail) },
		wantErr: "serve: " + errInjectedServe.Error()},
	{name: "ready file unwritable", wantErr: "write ready file", args: func(t *testing.T, dir string) []string {
		return []string{"--ready-file", filepath.Join(dir, "no-such-folder", "ready")}
	}},
	{name: "address in use", wantErr: "listen on", args: func(t *testing.T, dir string) []string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return []string{"--addr", ln.Addr().String()}
	}},
	{name: "open API beyond loopback", wantErr: "refusing to listen", args: func(t *testing.T, dir string) []string {
		return []string{"--addr", "0.0.0.0:0"}
	}},
	{name: "users file missing", wantErr: "no-such-users", args: func(t *testing.T, dir string) []string {
		return []string{"--auth-backend", "basic_auth", "--users", filepath.Join(dir, "no-such-users")}
	}},
}

// TestRun_EveryExitAfterOpenStops: whatever ends airlite once its store is
// open (a signal, a serve error, a ready file that cannot be written, a
// refused listen or auth setup), the final snapshot is written and the
// snapshot's lock released.
func TestRun_EveryExitAfterOpenStops(t *testing.T) {
	t.Parallel()
	for _, tc := range exitPaths {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			snap := filepath.Join(dir, "snapshot.json")
			args := []string{"--home", dir, "--snapshot", snap, "--snapshot-interval", "1h", "--scheduler", "off",
				"--log-format", "json"}
			if tc.args != nil {
				args = append(args, tc.args(t, dir)...)
			}
			if !slices.Contains(args, "--addr") {
				args = append(args, "--addr", "127.0.0.1:0")
			}
			fail := make(chan struct{})
			var po processOptions
			if tc.listen != nil {
				po.listen = tc.listen(fail)
			}
			s := startProcess(t, po, args...)
			if tc.end != nil {
				s.serving(t)
				tc.end(s, fail)
			}
			err := s.returned(t)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("runProcess = %v, want an error with %q; log:\n%s", err, tc.wantErr, s.stderr.String())
			}
			if _, _, err := restoreSnapshot(context.Background(), snap); err != nil {
				t.Errorf("no final snapshot: %v", err)
			}
			lock, err := lockSnapshot(config{Home: dir, Snapshot: snap})
			if err != nil {
				t.Fatalf("the snapshot's lock is still held: %v", err)
			}
			lock.release()
		})
	}
}

// TestRun_StopGivesRunningTasksGrace: a serve error stops airlite as a
// signal does: running tries get --shutdown-grace to end (one ends within
// it and succeeds), the one still running then is killed and put back
// without using a try, and the final snapshot holds both outcomes.
func TestRun_StopGivesRunningTasksGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs task processes for seconds")
	}
	for _, tc := range exitPaths {
		if tc.end == nil {
			continue // never served: no task could be running
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			snap := filepath.Join(dir, "snapshot.json")
			started, release, pidFile := filepath.Join(dir, "started"), filepath.Join(dir, "release"), filepath.Join(dir, "pid")
			dags := writeDAGFolder(t, "dag_id: two\nschedule_interval: null\ntasks:\n"+
				"  - task_id: finishes\n    operator: BashOperator\n    bash_command: touch "+started+
				"; while [ ! -f "+release+" ]; do sleep 0.05; done\n"+
				"  - task_id: outlasts\n    operator: BashOperator\n    retries: 0\n    bash_command: echo $$ > "+pidFile+"; exec sleep 300\n")
			args := []string{"--home", dir, "--snapshot", snap, "--snapshot-interval", "1h", "--dags", dags,
				"--shutdown-grace", "3s", "--log-format", "json", "--addr", "127.0.0.1:0"}
			fail := make(chan struct{})
			var po processOptions
			if tc.listen != nil {
				po.listen = tc.listen(fail)
			}
			s := startProcess(t, po, args...)
			s.serving(t)
			res, err := http.Post(s.baseURL+apiPrefix+"/dags/two/dag_runs", "application/json",
				strings.NewReader(`{"execution_date": "`+stopDate+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			pid := readPID(t, pidFile)
			waitForRun(t, s, "the first task", func() bool { _, err := os.Stat(started); return err == nil })

			tc.end(s, fail)
			waitForRun(t, s, "the wait for running tasks", func() bool {
				return strings.Contains(s.stderr.String(), "waiting for running tasks")
			})
			if err := os.WriteFile(release, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := s.returned(t); tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("runProcess = %v, want an error with %q", err, tc.wantErr)
			}
			if procAlive(pid) {
				t.Errorf("the task outlasting the grace (pid %d) still runs", pid)
			}
			again := startRun(t, "--home", dir, "--snapshot", snap, "--dags", dags)
			for task, want := range map[string]string{"finishes": "success", "outlasts": "None"} {
				status, body := mainGet(t, again.baseURL+apiPrefix+"/dags/two/dag_runs/"+stopDate+"/tasks/"+task)
				var v map[string]any
				_ = json.Unmarshal([]byte(body), &v)
				if status != http.StatusOK || v["state"] != want {
					t.Errorf("task %s in the final snapshot: %d %s; want state %s", task, status, body, want)
				}
			}
		})
	}
}

// TestBinary_StopLeavesNoTempFolders: a binary that ran Python tasks
// leaves nothing in the temp folder once stopped: neither the task
// program it extracted (once a process, for every try and the warm
// worker) nor a try's working folder.
func TestBinary_StopLeavesNoTempFolders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	requirePython(t)
	tmp := t.TempDir()
	dags, err := filepath.Abs("testdata/pydags/serve")
	if err != nil {
		t.Fatal(err)
	}
	p := startBinaryEnv(t, []string{"TMPDIR=" + tmp}, "--dags", dags, "--snapshot", "off")
	p.trigger("py_etl", `{"execution_date": "`+stopDate+`"}`)
	if !pollUntil(60*time.Second, func() bool {
		state, _ := p.taskState("py_etl", stopDate, "total")
		return state == "success"
	}) {
		t.Fatalf("py_etl's last task never succeeded:\n%s", p.logs.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) == 0 {
		t.Fatal("the running binary made nothing in its temp folder: the test checks nothing")
	}
	p.stop(30 * time.Second)
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("left in the temp folder after the stop: %v", names)
	}
}

// TestBinary_NextStartRemovesACrashedInstancesTempFolders: a binary
// killed outright (SIGKILL, the OOM killer) cannot remove its temp
// folders; the next start removes them, and they are the crashed
// instance's only: a running instance's folders stay (TestTempFolders_Sweep).
func TestBinary_NextStartRemovesACrashedInstancesTempFolders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	requirePython(t)
	tmp, dags := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	if err := os.WriteFile(filepath.Join(dags, "slow.py"), []byte(`
import os, time
import pendulum
from airflow import DAG
from airflow.operators.python import PythonOperator

def slow():
    with open(`+strconv.Quote(pidFile)+`, "w") as f:
        f.write("%d\n" % os.getpid())
    time.sleep(300)

with DAG("slow", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    PythonOperator(task_id="sleeps", python_callable=slow)
`), 0o600); err != nil {
		t.Fatal(err)
	}
	env, args := []string{"TMPDIR=" + tmp}, []string{"--dags", dags, "--snapshot", "off"}
	p := startBinaryEnv(t, env, args...)
	p.trigger("slow", `{"execution_date": "`+stopDate+`"}`)
	try := readPID(t, pidFile)
	crashed := folderNames(t, tmp)
	// The task program and the running try's folder, at least.
	if len(crashed) < 2 {
		t.Fatalf("the running binary has %v in its temp folder, want the task program and the try's folder", crashed)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	waitGone(t, try, "the crashed instance's try")
	if left := folderNames(t, tmp); !slices.Equal(left, crashed) {
		t.Fatalf("after the crash the temp folder holds %v, want what the instance had (%v)", left, crashed)
	}

	again := startBinaryEnv(t, env, args...)
	var kept []string
	for _, name := range folderNames(t, tmp) {
		if slices.Contains(crashed, name) {
			kept = append(kept, name)
		}
	}
	if len(kept) > 0 {
		t.Errorf("the crashed instance's %v outlived the next start", kept)
	}
	again.stop(30 * time.Second)
	if left := folderNames(t, tmp); len(left) > 0 {
		t.Errorf("left in the temp folder after the second instance's stop: %v", left)
	}
}

// folderNames lists a folder's entries by name, sorted.
func folderNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
