package main

// The soak: many clients send mixed traffic (triggers, reads, pool churn,
// pause flips, resets) while the scheduler runs real bash and simulated
// tasks. It runs for AIRLITE_SOAK (a duration; 3s when unset) and is
// skipped with -short. The 60 s figures in BENCHMARKS.md come from
//
//	AIRLITE_SOAK=60s go test -race -count=1 -run '^TestSoak$' -v .

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

const soakDAGs = `
dag_id: soak_bash
schedule_interval: null
max_active_runs: 8
tasks:
  - {task_id: a, operator: BashOperator, bash_command: 'echo {{ dag_run.conf.x }} "$AIRLITE_CONF"', downstream: [b, c]}
  - {task_id: b, operator: BashOperator, bash_command: 'exit 99'}
  - {task_id: c, operator: EmptyOperator}
`

const soakSim = `
dag_id: soak_sim
schedule_interval: null
max_active_runs: 8
tasks:
  - {task_id: a, operator: PythonOperator, pool: soak_pool, simulate: {duration: 20ms}, downstream: [b]}
  - {task_id: b, operator: PythonOperator, retries: 1, retry_delay: 10ms, simulate: {duration: 10ms, fail_times: 1}}
`

// soakStats counts what the clients saw.
type soakStats struct {
	requests   atomic.Int64
	unexpected atomic.Int64 // statuses outside 200, 400, 404
	server5xx  atomic.Int64
	byStatus   sync.Map // int -> *atomic.Int64
	firstBad   atomic.Value
}

func (s *soakStats) record(method, path string, status int, body string) {
	s.requests.Add(1)
	v, _ := s.byStatus.LoadOrStore(status, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	if status >= 500 {
		s.server5xx.Add(1)
	}
	switch status {
	case 200, 400, 404:
	default:
		s.unexpected.Add(1)
		s.firstBad.CompareAndSwap(nil, fmt.Sprintf("%s %s: %d %.300s", method, path, status, body))
	}
}

func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs without -short")
	}
	duration := 3 * time.Second
	if v := os.Getenv("AIRLITE_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("AIRLITE_SOAK=%q: %v", v, err)
		}
		duration = d
	}
	const clients = 24
	runtime.GC()
	goroutinesBefore := runtime.NumGoroutine()

	var schedPtr atomic.Pointer[scheduler]
	var tries atomic.Int64 // task tries that ran, bash and simulated
	ts, sched := newSchedServer(t, edition2, func(o *schedulerOptions) {
		o.Logger = zerolog.Nop()
		o.Interval = 50 * time.Millisecond
		o.Parallelism = 16
		o.RunTask = func(ctx context.Context, job taskJob) taskOutcome {
			tries.Add(1)
			return schedPtr.Load().runOperator(ctx, job)
		}
	}, withDAG(soakDAGs), withDAG(soakSim), withOptions(func(o *serverOptions) { o.Logger = zerolog.Nop() }),
		withFixturePools(&Pool{Name: "soak_pool", Slots: 4}),
		withRunLimit(RunLimit{Max: 300, DropOldestFinished: true}))
	schedPtr.Store(sched)

	var peakHeap atomic.Uint64
	stopSampling := make(chan struct{})
	var samplerWG sync.WaitGroup
	samplerWG.Add(1)
	go func() {
		defer samplerWG.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peakHeap.Load() {
				peakHeap.Store(ms.HeapAlloc)
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	var stats soakStats
	var dateSeq atomic.Int64
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			send := func(method, path, body string) {
				var r io.Reader
				if body != "" {
					r = strings.NewReader(body)
				}
				req, err := http.NewRequest(method, ts.URL+path, r)
				if err != nil {
					t.Error(err)
					return
				}
				res, err := client.Do(req)
				if err != nil {
					stats.record(method, path, 0, err.Error())
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				stats.record(method, path, res.StatusCode, string(b))
			}
			for time.Now().Before(deadline) {
				dags := []string{"soak_bash", "soak_sim", "example_bash_operator"}
				dag := dags[rng.IntN(len(dags))]
				switch n := rng.IntN(100); {
				case n < 30:
					date := base.Add(time.Duration(dateSeq.Add(1)) * time.Second)
					send("POST", apiPrefix+"/dags/"+dag+"/dag_runs", fmt.Sprintf(
						`{"execution_date": %q, "conf": {"x": "$(touch /nonexistent/%d)", "n": %d}, "replace_microseconds": "false"}`,
						isoFormat(date), c, n))
				case n < 40:
					send("GET", apiPrefix+"/dags/"+dag+"/dag_runs", "")
				case n < 50:
					date := base.Add(time.Duration(rng.Int64N(dateSeq.Load()+1)) * time.Second)
					send("GET", apiPrefix+"/dags/"+dag+"/dag_runs/"+isoFormat(date), "")
				case n < 55:
					date := base.Add(time.Duration(rng.Int64N(dateSeq.Load()+1)) * time.Second)
					send("GET", apiPrefix+"/dags/soak_bash/dag_runs/"+isoFormat(date)+"/tasks/a", "")
				case n < 60:
					send("GET", apiPrefix+"/latest_runs", "")
				case n < 65:
					send("GET", apiPrefix+"/pools", "")
				case n < 73:
					send("POST", apiPrefix+"/pools", fmt.Sprintf(`{"name": "churn_%d", "slots": %d, "description": "soak"}`, rng.IntN(8), rng.IntN(5)))
				case n < 80:
					send("DELETE", apiPrefix+fmt.Sprintf("/pools/churn_%d", rng.IntN(8)), "")
				case n < 84:
					send("POST", apiPrefix+"/pools", fmt.Sprintf(`{"name": "soak_pool", "slots": %d, "description": null}`, rng.IntN(6)))
				case n < 90:
					send("GET", apiPrefix+"/dags/"+dag+"/paused/"+[]string{"true", "false"}[rng.IntN(2)], "")
				case n < 93:
					send("GET", apiPrefix+"/dags/soak_bash/tasks/a", "")
				case n < 96:
					send("GET", apiPrefix+"/dags/"+dag+"/paused", "")
				case n < 99:
					send("POST", apiPrefix+"/dags/no_such_dag/dag_runs", "{")
				case rng.IntN(4) == 0:
					scope := []string{"all", "runs", "pools", "paused"}[rng.IntN(4)]
					send("POST", "/_airlite/reset?scope="+scope, "")
				default:
					send("GET", "/_airlite/health", "")
				}
			}
		}(c)
	}
	wg.Wait()
	runs := 0
	for _, dag := range []string{"soak_bash", "soak_sim", "example_bash_operator"} {
		rs, err := ts.store.RunsOfDag(dag, "")
		if err != nil {
			t.Fatal(err)
		}
		runs += len(rs)
		if len(rs) > 300 {
			t.Errorf("%s has %d runs, over the limit of 300", dag, len(rs))
		}
	}
	close(stopSampling)
	samplerWG.Wait()

	// Everything stops: the HTTP server, the scheduler and its tasks, the
	// client's connections. Goroutines go back to the baseline.
	sched.stop()
	client.CloseIdleConnections()
	ts.Close()
	goroutinesAfter := waitGoroutines(goroutinesBefore+2, 10*time.Second)

	var statuses []string
	stats.byStatus.Range(func(k, v any) bool {
		statuses = append(statuses, fmt.Sprintf("%d:%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("soak %s, %d clients: %d requests (%.0f/s), statuses %v, unexpected %d, 5xx %d, task tries run %d, runs kept %d, "+
		"peak heap %.1f MiB, goroutines before %d after %d",
		duration, clients, stats.requests.Load(), float64(stats.requests.Load())/duration.Seconds(), statuses,
		stats.unexpected.Load(), stats.server5xx.Load(), tries.Load(), runs, float64(peakHeap.Load())/(1<<20), goroutinesBefore, goroutinesAfter)
	if tries.Load() == 0 {
		t.Error("the scheduler ran no task")
	}
	if n := stats.unexpected.Load(); n > 0 {
		t.Errorf("%d unexpected answers; the first: %v", n, stats.firstBad.Load())
	}
	if n := stats.server5xx.Load(); n > 0 {
		t.Errorf("%d answers were 5xx", n)
	}
	if goroutinesAfter > goroutinesBefore+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after\n%s", goroutinesBefore, goroutinesAfter, buf[:runtime.Stack(buf, true)])
	}
	if peak := peakHeap.Load(); peak > 512<<20 {
		t.Errorf("peak heap %d MiB, over 512 MiB", peak>>20)
	}
}

// waitGoroutines waits until at most want goroutines run, or the timeout
// passes, and returns the count.
func waitGoroutines(want int, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		<-tick.C
	}
}
