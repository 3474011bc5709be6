package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// The snapshot benchmarks use 100,000 runs with 1,000,000 task instances
// when AIRLITE_BENCH_FULL=1, and 1,000 runs with 10,000 task instances
// otherwise, so that CI's -benchtime=1x smoke stays quick. See
// BENCHMARKS.md.
func snapBenchSize() (runs, tasksPerRun int) {
	if os.Getenv("AIRLITE_BENCH_FULL") == "1" {
		return 100_000, 10
	}
	return 1_000, 10
}

// snapBenchStore builds a store of finished runs directly through store
// transactions, with every optional field of a task instance set, plus
// the embedded DAGs (for the trigger benchmark).
func snapBenchStore(b *testing.B) (*Store, *DAGSet) {
	b.Helper()
	runs, perRun := snapBenchSize()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		b.Fatal(err)
	}
	store := storeWith(b, dags)
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const chunk = 10_000
	for from := 0; from < runs; from += chunk {
		err := store.update(func(txn *memdb.Txn) error {
			for i := from; i < min(from+chunk, runs); i++ {
				id, err := nextCounter(txn, counterRunID)
				if err != nil {
					return err
				}
				date := base.Add(time.Duration(i) * time.Minute)
				start, end := date.Add(time.Second), date.Add(time.Minute)
				runID := "scheduled__" + isoFormat(date)
				run := &DagRun{ID: id, DagID: "bench_dag", RunID: runID, ExecutionDate: date, State: RunSuccess,
					Conf: json.RawMessage(`{"n": 1}`), StartDate: &start, EndDate: &end, QueuedAt: &date, RunType: "scheduled"}
				if err := txn.Insert(tableDagRuns, run); err != nil {
					return err
				}
				for k := 0; k < perRun; k++ {
					d := 12.5
					pid := 1000 + k
					ti := &TaskInstance{DagID: "bench_dag", RunID: runID, TaskID: fmt.Sprintf("task_%02d", k),
						ExecutionDate: date, State: TaskSuccess, TryNumber: 1, MaxTries: 1, StartDate: &start, EndDate: &end,
						Duration: &d, QueuedDttm: &start, Pool: defaultPoolName, PoolSlots: 1, Queue: "default",
						PriorityWeight: perRun - k, Operator: "BashOperator", Hostname: "host.example", Unixname: "airflow",
						PID: &pid, UpdatedAt: &end}
					if err := putTaskInstancesTxn(txn, ti); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return store, dags
}

// peakHeap samples the heap while it runs and reports the highest value.
type peakHeap struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func startPeakHeap() *peakHeap {
	p := &peakHeap{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > p.peak.Load() {
				p.peak.Store(ms.HeapAlloc)
			}
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakHeap) end() float64 {
	close(p.stop)
	<-p.done
	return float64(p.peak.Load()) / (1 << 20)
}

func reportMaxRSS(b *testing.B) {
	if mb, ok := maxRSSMB(); ok {
		b.ReportMetric(mb, "maxrss-MB")
	}
}

func BenchmarkSnapshotWrite(b *testing.B) {
	store, _ := snapBenchStore(b)
	path := filepath.Join(b.TempDir(), "snapshot.json")
	runtime.GC()
	var stats snapshotStats
	peak := startPeakHeap()
	for b.Loop() {
		var err error
		if stats, err = writeSnapshot(store, path, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(peak.end(), "peak-heap-MB")
	b.ReportMetric(float64(stats.Bytes)/(1<<20), "file-MB")
	b.ReportMetric(float64(stats.Rows), "rows")
	reportMaxRSS(b)
}

func BenchmarkSnapshotRestore(b *testing.B) {
	store, dags := snapBenchStore(b)
	path := filepath.Join(b.TempDir(), "snapshot.json")
	stats, err := writeSnapshot(store, path, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	store = nil
	runtime.GC()
	peak := startPeakHeap()
	for b.Loop() {
		restored, _, err := restoreSnapshot(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		if err := restored.LoadDAGs(dags); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(peak.end(), "peak-heap-MB")
	b.ReportMetric(float64(stats.Bytes)/(1<<20), "file-MB")
	b.ReportMetric(float64(stats.Rows), "rows")
	reportMaxRSS(b)
}

// BenchmarkSnapshotTriggerLatency measures the p99 latency of triggers
// over HTTP with no snapshot being written, then while snapshots are
// written back to back, in the same run, and reports both and their
// ratio (target: at most 2).
func BenchmarkSnapshotTriggerLatency(b *testing.B) {
	store, dags := snapBenchStore(b)
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := newServer(serverOptions{Edition: edition2, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.Nop(), Now: time.Now, Unixname: "airflow"})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.routes())
	defer ts.Close()
	client := ts.Client()
	path := filepath.Join(b.TempDir(), "snapshot.json")
	n := 0
	trigger := func() time.Duration {
		n++
		body := fmt.Sprintf(`{"execution_date": "%s", "replace_microseconds": "false"}`,
			isoFormat(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n)*time.Microsecond)))
		start := time.Now()
		resp, err := client.Post(ts.URL+apiPrefix+"/dags/example_bash_operator/dag_runs", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		took := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("trigger: %d", resp.StatusCode)
		}
		return took
	}
	p99 := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)*99/100]
	}
	const samples = 2000
	for i := 0; i < 200; i++ { // warm up
		trigger()
	}
	runtime.GC()
	var quiet, during []time.Duration
	snapshots := 0
	for b.Loop() {
		quiet, during = quiet[:0], during[:0]
		for i := 0; i < samples; i++ {
			quiet = append(quiet, trigger())
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var writing atomic.Bool
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				writing.Store(true)
				if _, err := writeSnapshot(store, path, time.Now()); err != nil {
					b.Error(err)
					return
				}
				snapshots++
			}
		}()
		for !writing.Load() {
			runtime.Gosched()
		}
		for i := 0; i < samples; i++ {
			during = append(during, trigger())
		}
		close(stop)
		wg.Wait()
	}
	q, d := p99(quiet), p99(during)
	b.ReportMetric(float64(q.Microseconds()), "p99-quiet-µs")
	b.ReportMetric(float64(d.Microseconds()), "p99-snapshot-µs")
	b.ReportMetric(float64(d)/float64(q), "p99-ratio")
	b.ReportMetric(float64(snapshots), "snapshots")
}

// BenchmarkSnapshotRestoreRowsOfTasks restores 2,000 runs of 10 task
// instances (100 runs in CI's smoke pass), each task instance with
// lineage, captured output, an earlier try and an XCom entry: the tables
// whose keys the restore checks itself (keysPastMax, heldAlreadyTxn).
func BenchmarkSnapshotRestoreRowsOfTasks(b *testing.B) {
	store, err := newStore()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	err = store.update(func(txn *memdb.Txn) error {
		for i := range benchSize(2000, 100) {
			date := t0.Add(time.Duration(i) * time.Hour)
			run := &DagRun{ID: int64(i + 1), DagID: "d", RunID: fmt.Sprintf("r%d", i), ExecutionDate: date, State: RunSuccess}
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
			for k := range 10 {
				ti := &TaskInstance{DagID: "d", RunID: run.RunID, TaskID: fmt.Sprintf("t%d", k), MapIndex: -1, ExecutionDate: date,
					State: TaskSuccess, TryNumber: 2, MaxTries: 2, Pool: "default_pool", PoolSlots: 1, EndDate: &date}
				if err := putTaskInstancesTxn(txn, ti); err != nil {
					return err
				}
				if err := txn.Insert(tableLineage, &LineageRecord{DagID: "d", RunID: run.RunID, TaskID: ti.TaskID, MapIndex: -1, Inlets: json.RawMessage(`[]`)}); err != nil {
					return err
				}
				if err := appendTaskLogTxn(txn, tiKey{"d", run.RunID, ti.TaskID, -1}, TryLog{Try: 1, Output: "x\n"}); err != nil {
					return err
				}
				try := *ti
				try.TryNumber, try.State = 1, TaskFailed
				if err := recordTryTxn(txn, &try, date); err != nil {
					return err
				}
				if err := store.putXComTxn(txn, &XComEntry{DagID: "d", RunID: run.RunID, TaskID: ti.TaskID, RunRowID: run.ID, MapIndex: -1,
					Key: "return_value", Value: json.RawMessage(`1`), Timestamp: date}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "s.json")
	stats, err := writeSnapshot(store, path, t0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := restoreSnapshot(b.Context(), path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(stats.Rows), "rows")
}
