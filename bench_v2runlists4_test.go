package main

// Benchmarks of the run listings lists3 left reading their scope (issue
// #21): runs by conf and external_trigger, several keys led by dag_id or
// state, and a marked order's first page after a write. BENCHMARKS.md has
// the figures and the commands.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addMixedRuns stores n runs of dagID as addSchedulerRuns does, but one
// in every is a manual run triggered through the API (external_trigger)
// with a conf of its own ({"n": i%7}), the others scheduled with {}: each
// manual run breaks the order by conf (its conf sorts before {}) and the
// scheduled run after it the order by external_trigger.
func addMixedRuns(tb testing.TB, store *Store, dagID string, base time.Time, n, every int) {
	tb.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			date := base.Add(time.Duration(i) * time.Minute)
			start := date.Add(2 * time.Second)
			end := start.Add(time.Duration(10+i%7) * time.Second)
			state := RunSuccess
			if i%10 == 9 {
				state = RunFailed
			}
			r := &DagRun{ID: id, DagID: dagID, RunID: "scheduled__" + isoFormat(date), ExecutionDate: date, State: state,
				Conf: json.RawMessage(`{}`), RunType: "scheduled", StartDate: &start, EndDate: &end, UpdatedAt: &end}
			if i%every == every/2 {
				r.RunID, r.RunType, r.ExternalTrigger = "manual__"+isoFormat(date), "manual", true
				r.Conf = json.RawMessage(fmt.Sprintf(`{"n":%d}`, i%7))
			}
			if i >= n-2 {
				r.State, r.StartDate, r.EndDate, r.UpdatedAt = RunQueued, nil, nil, &date
			}
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

// BenchmarkV2ListRunsByConf lists a page of 50 runs by conf (rows of a
// DAG as addMixedRuns leaves them with a manual run in 500, 200 marks at
// 100,000, a quarter as many of a second DAG): a DAG's by conf, from
// offset 200 by -conf, every DAG's by -conf: the stretches between the
// DAG's fixed marks merged to the page's end, where every run was read
// and sorted. (A manual run in ten would pass fixedMarksMax: sorted.)
func BenchmarkV2ListRunsByConf(b *testing.B) {
	benchV2Pages(b, benchMixedRuns,
		benchPage{"conf", "/dags/bench_runs/dagRuns?limit=50&order_by=conf"},
		benchPage{"-conf_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=-conf"},
		benchPage{"all_-conf", "/dags/~/dagRuns?limit=50&order_by=-conf"})
}

// benchMixedRuns is BenchmarkV2ListRunsOrdered's store with addMixedRuns'
// runs.
func benchMixedRuns(b *testing.B, rows int) (*Store, *DAGSet) {
	dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
	store, dags := benchStoreWith(b, dag, other)
	addMixedRuns(b, store, dag.DagID, benchDate, rows, 500)
	addMixedRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4, 500)
	return store, dags
}

// BenchmarkV1ListRunsFixed is BenchmarkV2ListRunsByConf through /api/v1
// (edition 2), whose orders are conf and external_trigger.
func BenchmarkV1ListRunsFixed(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			store, dags := benchMixedRuns(b, rows)
			ts := httptest.NewServer(benchHandlerOf(b, edition2, store, dags))
			b.Cleanup(ts.Close)
			one := apiV1Prefix + "/dags/bench_runs/dagRuns?limit=50"
			for _, p := range []benchPage{
				{"conf", one + "&order_by=conf"},
				{"-external_trigger", one + "&order_by=-external_trigger"},
				{"external_trigger_offset", one + "&offset=200&order_by=external_trigger"},
				{"all_-conf", apiV1Prefix + "/dags/~/dagRuns?limit=50&order_by=-conf"},
			} {
				b.Run(p.name, func(b *testing.B) { pairURL(b, ts, p.path) })
			}
		})
	}
}

// BenchmarkV2ListRunsLedByDagOrState lists a page of 50 runs of
// BenchmarkV2ListRunsOrdered's store by several keys led by dag_id or
// state: every DAG's by dag_id then -start_date, a DAG's by -state then
// -start_date from offset 200, every DAG's by state then run_id (the
// failed first, one run in ten: picked along the run_id walk): each DAG's
// or state's runs in turn, where every run was read and sorted.
func BenchmarkV2ListRunsLedByDagOrState(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addSchedulerRuns(b, store, dag.DagID, benchDate, rows)
		addSchedulerRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
		return store, dags
	},
		benchPage{"all_dag_id,-start_date", "/dags/~/dagRuns?limit=50&order_by=dag_id&order_by=-start_date"},
		benchPage{"-state,-start_date_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=-state&order_by=-start_date"},
		benchPage{"all_state,run_id", "/dags/~/dagRuns?limit=50&order_by=state&order_by=run_id"})
}

// BenchmarkV2ListRunsAfterAWrite lists a page of 50 of a DAG's runs by
// -start_date (BenchmarkV2ListRunsBackfill's store: rows/2 settled runs
// and a backfill's rows/2 queued ones) after each of a scheduler's
// writes (the backfill's next queued run started), the write outside the
// timer: the page takes the DAG's unfinished runs anew, where they were
// all read again and sorted.
func BenchmarkV2ListRunsAfterAWrite(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			dag := benchDAG(b, "bench_runs", 1)
			store, dags := benchStoreWith(b, dag)
			addSchedulerRuns(b, store, dag.DagID, benchDate, rows/2)
			addQueuedRuns(b, store, dag.DagID, benchDate.Add(-time.Duration(rows)*time.Hour), rows/2)
			queued, err := store.RunsOfDag(dag.DagID, RunQueued)
			if err != nil {
				b.Fatal(err)
			}
			slices.SortFunc(queued, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) })
			ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(ts.Close)
			for _, p := range []benchPage{
				{"-start_date", "/dags/bench_runs/dagRuns?limit=50&order_by=-start_date"},
				{"state_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=state"},
			} {
				b.Run(p.name, func(b *testing.B) {
					page := target{client: benchClient(), url: ts.URL + apiV2Prefix + p.path}
					benchPageAfterWrites(b, page, func(int) {
						old := queued[0]
						queued = queued[1:]
						next := *old
						at := benchDate.Add(400 * 24 * time.Hour)
						next.State, next.StartDate, next.UpdatedAt = RunRunning, &at, &at
						if err := store.update(func(txn *memdb.Txn) error { return putRunTxn(txn, old, &next) }); err != nil {
							b.Fatal(err)
						}
					})
				})
			}
		})
	}
}
