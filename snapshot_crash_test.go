package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashDAG is the DAG the crash test triggers: two tasks per run.
const crashDAG = "example_trigger_target_dag"

// TestCrash_SIGKILLUnderLoad builds airlite, runs it under steady trigger
// load and kills it with SIGKILL at random moments, 50 times. After every
// kill the snapshot on disk loads, airlite restarts, every run of that
// snapshot is served, and no run id ever names two runs, including ids of
// runs lost because they were created after the last snapshot.
func TestCrash_SIGKILLUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills airlite 50 times; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "airlite")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	snapshot := filepath.Join(home, "snapshot.json")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))

	idOf := map[string]int64{}  // run_id -> id, for every run ever seen
	runOf := map[int64]string{} // id -> run_id
	see := func(when string, runs []crashRun) {
		t.Helper()
		for _, r := range runs {
			if id, ok := idOf[r.RunID]; ok && id != r.ID {
				t.Fatalf("%s: run %s has id %d, it had %d", when, r.RunID, r.ID, id)
			}
			if other, ok := runOf[r.ID]; ok && other != r.RunID {
				t.Fatalf("%s: run id %d reused: it named %s, now %s", when, r.ID, other, r.RunID)
			}
			idOf[r.RunID], runOf[r.ID] = r.ID, r.RunID
		}
	}
	var inSnapshot map[string]int64 // runs of the last completed snapshot
	const kills = 50
	for i := 0; i <= kills; i++ {
		p := startCrashProcess(t, bin, home, dir)
		runs := p.list(t)
		see(fmt.Sprintf("restart %d", i), runs)
		served := map[string]int64{}
		for _, r := range runs {
			served[r.RunID] = r.ID
		}
		for runID, id := range inSnapshot {
			if served[runID] != id {
				t.Fatalf("restart %d: run %s (id %d) of the last snapshot is not served (got id %d)", i, runID, id, served[runID])
			}
		}
		if i == kills {
			p.terminate(t)
			break
		}
		// Steady load from two clients, a listing to learn the newest ids
		// (most of them not yet in a snapshot), a little more load, then
		// SIGKILL at a random moment.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.triggerUntil(stop)
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(150)) * time.Millisecond)
		see(fmt.Sprintf("load %d", i), p.list(t))
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		close(stop)
		wg.Wait()
		p.wait()

		store, _, err := restoreSnapshot(t.Context(), snapshot)
		if errors.Is(err, fs.ErrNotExist) && inSnapshot == nil {
			continue // killed before the first snapshot: nothing was promised yet
		}
		if err != nil {
			t.Fatalf("kill %d: the snapshot does not load: %v", i, err)
		}
		all, err := store.RunsOfDag(crashDAG, "")
		if err != nil {
			t.Fatal(err)
		}
		next := map[string]int64{}
		for _, r := range all {
			next[r.RunID] = r.ID
		}
		for runID := range inSnapshot {
			if _, ok := next[runID]; !ok {
				t.Fatalf("kill %d: run %s of an earlier snapshot is missing from the newer one", i, runID)
			}
		}
		inSnapshot = next
	}
	if len(inSnapshot) < kills {
		t.Errorf("only %d runs reached a snapshot: the load was too light to mean anything", len(inSnapshot))
	}
	t.Logf("%d kills, %d runs seen, %d in the last snapshot", kills, len(idOf), len(inSnapshot))

	// After the clean stop the lease is back at the highest id: the next
	// start continues right after it.
	lease, err := readLease(leasePath(snapshot))
	if err != nil {
		t.Fatal(err)
	}
	var highest int64
	for id := range runOf {
		highest = max(highest, id)
	}
	store, _, err := restoreSnapshot(t.Context(), snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if got := counterValue(store.read(), counterRunID); lease.DagRun != got || got < highest {
		t.Errorf("after a clean stop: lease %d, counter %d, highest id seen %d", lease.DagRun, got, highest)
	}
}

type crashRun struct {
	ID    int64  `json:"id"`
	RunID string `json:"run_id"`
}

type crashProcess struct {
	cmd    *exec.Cmd
	base   string
	client *http.Client
	done   chan error
	stderr *crashBuffer
}

func startCrashProcess(t *testing.T, bin, home, dir string) *crashProcess {
	t.Helper()
	skipStopBySignal(t)
	ready := filepath.Join(dir, "ready")
	os.Remove(ready)
	p := &crashProcess{client: &http.Client{Timeout: 5 * time.Second}, done: make(chan error, 1), stderr: &crashBuffer{}}
	p.cmd = exec.Command(bin, "--addr", "127.0.0.1:0", "--home", home, "--ready-file", ready,
		"--snapshot-interval", "50ms", "--scheduler", "off", "--log-format", "json", "--log-level", "warn")
	p.cmd.Stdout = io.Discard
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.wait()
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, err := os.ReadFile(ready)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			p.base = strings.TrimSpace(string(data))
			break
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("airlite exited at start: %v\n%s", err, p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("airlite not ready within 15s:\n%s", p.stderr.String())
		}
	}
	resp, err := p.client.Get(p.base + "/_airlite/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/_airlite/ready = %d after the ready file", resp.StatusCode)
	}
	return p
}

func (p *crashProcess) wait() {
	err := <-p.done
	p.done <- err
}

func (p *crashProcess) terminate(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-p.done
	p.done <- err
	if err != nil {
		t.Fatalf("airlite after SIGTERM: %v\n%s", err, p.stderr.String())
	}
}

func (p *crashProcess) list(t *testing.T) []crashRun {
	t.Helper()
	resp, err := p.client.Get(p.base + apiPrefix + "/dags/" + crashDAG + "/dag_runs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var runs []crashRun
	if err := json.NewDecoder(resp.Body).Decode(&runs); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list runs: %d %v", resp.StatusCode, err)
	}
	return runs
}

// triggerUntil triggers runs until stop is closed; errors are expected
// once the process is killed.
func (p *crashProcess) triggerUntil(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		resp, err := p.client.Post(p.base+apiPrefix+"/dags/"+crashDAG+"/dag_runs", "application/json",
			strings.NewReader(`{"replace_microseconds": "false", "conf": {"message": "crash"}}`))
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				return
			}
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// Steady, not flat out: a few hundred runs a second in all keeps
		// the state, and the test's time, bounded.
		time.Sleep(4 * time.Millisecond)
	}
}

// crashBuffer collects a child's stderr for failure messages.
type crashBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *crashBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *crashBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
