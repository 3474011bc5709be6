package main

// Benchmarks of the lists branch lists3 took from reading their scope to
// reading about their page (issue #21): the task instances of a named run,
// runs in a marked order beside a backfill's queued runs, runs by several
// order keys. BENCHMARKS.md has the figures and the commands.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addQueuedRuns stores n queued runs of dagID after its others, as a
// backfill makes them (models/backfill.py _create_backfill_dag_run: the
// start date set at creation), one logical date a minute from base.
func addQueuedRuns(tb testing.TB, store *Store, dagID string, base time.Time, n int) {
	tb.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			date := base.Add(time.Duration(i) * time.Minute)
			created := base.Add(365 * 24 * time.Hour).Add(time.Duration(i) * time.Millisecond)
			r := &DagRun{ID: id, DagID: dagID, RunID: "backfill__" + isoFormat(date), ExecutionDate: date, State: RunQueued,
				Conf: json.RawMessage(`{}`), RunType: "backfill", StartDate: &created, QueuedAt: &created, UpdatedAt: &created}
			if err := txn.Insert(tableDagRuns, r); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkV2ListTaskInstancesOfRun lists a page of 50 of a named run's
// task instances (GET .../dagRuns/{run}/taskInstances, its default order
// map_index then id; from offset 200; with a state filter) with rows task
// instances stored: four runs of ten tasks, the last expanded into rows/4
// mapped instances in each run. The page merges the run's tasks, where
// every task instance of the run was read and sorted.
func BenchmarkV2ListTaskInstancesOfRun(b *testing.B) {
	run := url.PathEscape("scheduled__" + isoFormat(benchDate.Add(time.Minute)))
	base := "/dags/bench_tis/dagRuns/" + run + "/taskInstances?limit=50"
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_tis", 10)
		store, dags := benchStoreWith(b, dag)
		addRunsWithTIIDs(b, store, dag, benchDate, 4, false)
		expandLastTask(b, store, dag, rows/4)
		return store, dags
	},
		benchPage{"run", base},
		benchPage{"run_offset", base + "&offset=200"},
		benchPage{"run_state", base + "&offset=200&state=success"})
}

// BenchmarkV2ListRunsBackfill lists a page of 50 of a DAG's runs in the
// marked orders with rows/2 runs as the scheduler leaves them
// (addSchedulerRuns) and a backfill's rows/2 queued runs after them
// (addQueuedRuns): the unfinished runs are read and sorted once per
// version of the DAG's runs, where every page read and sorted them.
func BenchmarkV2ListRunsBackfill(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_runs", 1)
		store, dags := benchStoreWith(b, dag)
		addSchedulerRuns(b, store, dag.DagID, benchDate, rows/2)
		addQueuedRuns(b, store, dag.DagID, benchDate.Add(-time.Duration(rows)*time.Hour), rows/2)
		return store, dags
	},
		benchPage{"-start_date", "/dags/bench_runs/dagRuns?limit=50&order_by=-start_date"},
		benchPage{"end_date_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=end_date"},
		benchPage{"state", "/dags/bench_runs/dagRuns?limit=50&order_by=state"})
}

// BenchmarkV2ListRunsSeveralKeys lists a page of 50 runs of
// BenchmarkV2ListRunsOrdered's store by two order keys (the Airflow 3
// UI's kind): a DAG's by -start_date then run_id, every DAG's by
// -run_after then -start_date: the walks of the first key read the runs
// that tie on it together, where every run was read and sorted.
func BenchmarkV2ListRunsSeveralKeys(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addSchedulerRuns(b, store, dag.DagID, benchDate, rows)
		addSchedulerRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
		return store, dags
	},
		benchPage{"-start_date,run_id", "/dags/bench_runs/dagRuns?limit=50&order_by=-start_date&order_by=run_id"},
		benchPage{"all_-run_after,-start_date", "/dags/~/dagRuns?limit=50&order_by=-run_after&order_by=-start_date"})
}

// BenchmarkV2ListRunsByDuration lists a page of 50 runs of
// BenchmarkV2ListRunsOrdered's store by duration: a DAG's longest first,
// from offset 200 shortest first, every DAG's longest first: the DAGs'
// duration chunks walked to the page's end, where every run was read and
// sorted.
func BenchmarkV2ListRunsByDuration(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addSchedulerRuns(b, store, dag.DagID, benchDate, rows)
		addSchedulerRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
		return store, dags
	},
		benchPage{"-duration", "/dags/bench_runs/dagRuns?limit=50&order_by=-duration"},
		benchPage{"duration_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=duration"},
		benchPage{"all_-duration", "/dags/~/dagRuns?limit=50&order_by=-duration"})
}

// BenchmarkV1ListTaskInstancesOfRun is BenchmarkV2ListTaskInstancesOfRun's
// first two pages through /api/v1 (edition 2): the page's part of the
// run's row, where every task instance of the run was read.
func BenchmarkV1ListTaskInstancesOfRun(b *testing.B) {
	run := url.PathEscape("scheduled__" + isoFormat(benchDate.Add(time.Minute)))
	base := apiV1Prefix + "/dags/bench_tis/dagRuns/" + run + "/taskInstances?limit=50"
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			dag := benchDAG(b, "bench_tis", 10)
			store, dags := benchStoreWith(b, dag)
			addRunsWithTIIDs(b, store, dag, benchDate, 4, false)
			expandLastTask(b, store, dag, rows/4)
			ts := httptest.NewServer(benchHandlerOf(b, edition2, store, dags))
			b.Cleanup(ts.Close)
			b.Run("run", func(b *testing.B) { pairURL(b, ts, base) })
			b.Run("run_offset", func(b *testing.B) { pairURL(b, ts, base+"&offset=200") })
		})
	}
}
