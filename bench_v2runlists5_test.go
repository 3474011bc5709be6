package main

// Benchmarks of the run listings runlists4 left reading their scope
// (issue #21): runs by conf of a DAG whose runs each have a conf of their
// own, past its fixed marks' bound. BENCHMARKS.md has the figures and the
// commands.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addOwnConfRuns stores n runs of dagID as addMixedRuns does, each
// triggered through the API with a conf of its own ({"k": v}, v a hash of
// its place, in no order) and external_trigger in turn true
// and false: both fixed orders descend about every other run, far past
// fixedMarksMax, so neither keeps its marks.
func addOwnConfRuns(tb testing.TB, store *Store, dagID string, base time.Time, n int) {
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
			r := &DagRun{ID: id, DagID: dagID, RunID: "manual__" + isoFormat(date), ExecutionDate: date, State: state,
				Conf: json.RawMessage(fmt.Sprintf(`{"k":%d}`, uint32(i)*2654435761%1000003)), RunType: "manual", ExternalTrigger: i%2 == 0,
				StartDate: &start, EndDate: &end, UpdatedAt: &end}
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

// benchOwnConfRuns is BenchmarkV2ListRunsOrdered's store with
// addOwnConfRuns' runs: rows of a DAG, a quarter as many of a second.
func benchOwnConfRuns(b *testing.B, rows int) (*Store, *DAGSet) {
	dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
	store, dags := benchStoreWith(b, dag, other)
	addOwnConfRuns(b, store, dag.DagID, benchDate, rows)
	addOwnConfRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
	return store, dags
}

// BenchmarkV2ListRunsOwnConf lists a page of 50 runs by conf of a DAG
// whose runs each have a conf of their own (addOwnConfRuns): a DAG's by
// conf, from offset 200 by -conf, every DAG's by -conf, and /api/v1's
// by -external_trigger: the DAG's runs sorted, remembered per version of
// its runs, where every run was read and sorted.
func BenchmarkV2ListRunsOwnConf(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			store, dags := benchOwnConfRuns(b, rows)
			v2 := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(v2.Close)
			v1 := httptest.NewServer(benchHandlerOf(b, edition2, store, dags))
			b.Cleanup(v1.Close)
			for _, p := range []struct {
				name string
				ts   *httptest.Server
				path string
			}{
				{"conf", v2, apiV2Prefix + "/dags/bench_runs/dagRuns?limit=50&order_by=conf"},
				{"-conf_offset", v2, apiV2Prefix + "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=-conf"},
				{"all_-conf", v2, apiV2Prefix + "/dags/~/dagRuns?limit=50&order_by=-conf"},
				{"v1_-external_trigger", v1, apiV1Prefix + "/dags/bench_runs/dagRuns?limit=50&order_by=-external_trigger"},
			} {
				b.Run(p.name, func(b *testing.B) { pairURL(b, p.ts, p.path) })
			}
		})
	}
}

// BenchmarkV2ListRunsOwnConfAfterATrigger lists a page of 50 of
// BenchmarkV2ListRunsOwnConf's DAG's runs by conf after each new run with
// a conf of its own (stored as a trigger stores it, outside the timer):
// the page reads the new run and its own runs, where every run was read
// and sorted.
func BenchmarkV2ListRunsOwnConfAfterATrigger(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			store, dags := benchOwnConfRuns(b, rows)
			ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(ts.Close)
			page := target{client: benchClient(), url: ts.URL + apiV2Prefix + "/dags/bench_runs/dagRuns?limit=50&order_by=conf"}
			benchPageAfterWrites(b, page, func(i int) {
				err := store.update(func(txn *memdb.Txn) error {
					id, err := nextCounter(txn, counterRunID)
					if err != nil {
						return err
					}
					date := benchDate.Add(time.Duration(rows+i) * time.Minute)
					r := &DagRun{ID: id, DagID: "bench_runs", RunID: "manual__" + isoFormat(date), ExecutionDate: date, State: RunQueued,
						Conf: json.RawMessage(fmt.Sprintf(`{"k":%d}`, uint32(rows+i)*2654435761%1000003)), RunType: "manual", ExternalTrigger: true, UpdatedAt: &date}
					if err := txn.Insert(tableDagRuns, r); err != nil {
						return err
					}
					if err := markRunTxn(txn, nil, r); err != nil {
						return err
					}
					return countRunTxn(txn, r, 1, 0, 0)
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkV2ListRunsLedByConf lists a page of 50 runs of one DAG by
// several keys led by conf: a DAG whose runs share a few confs
// (addMixedRuns, a manual run in 500 with one of seven, {} for the
// others) by conf then -start_date (the seven confs' few runs read and
// sorted) and by -conf then -start_date ({}'s runs walked by start_date),
// and a DAG whose runs each have their own (addOwnConfRuns) by conf then
// -start_date: each conf's runs in turn, where every run was read and
// sorted.
func BenchmarkV2ListRunsLedByConf(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addMixedRuns(b, store, dag.DagID, benchDate, rows, 500)
		addOwnConfRuns(b, store, other.DagID, benchDate.Add(time.Second), rows)
		return store, dags
	},
		benchPage{"conf,-start_date", "/dags/bench_runs/dagRuns?limit=50&order_by=conf&order_by=-start_date"},
		benchPage{"-conf,-start_date", "/dags/bench_runs/dagRuns?limit=50&order_by=-conf&order_by=-start_date"},
		benchPage{"own_conf,-start_date", "/dags/bench_more/dagRuns?limit=50&order_by=conf&order_by=-start_date"})
}

// BenchmarkV2ListRunsAfterManyClears lists a page of 50 of a DAG's runs
// by -start_date (rows/2 settled runs and a backfill's rows/2 queued
// ones, BenchmarkV2ListRunsAfterAWrite's store) after each write that
// clears 100 settled runs (more than the 64 the run counts name; outside
// the timer, as is the settling of them again before the next write):
// the page reads the blocks the clears touched, every block looked up,
// where every unfinished run was read again.
func BenchmarkV2ListRunsAfterManyClears(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			dag := benchDAG(b, "bench_runs", 1)
			store, dags := benchStoreWith(b, dag)
			addSchedulerRuns(b, store, dag.DagID, benchDate, rows/2)
			addQueuedRuns(b, store, dag.DagID, benchDate.Add(-time.Duration(rows)*time.Hour), rows/2)
			settled, err := store.RunsOfDag(dag.DagID, RunSuccess)
			if err != nil {
				b.Fatal(err)
			}
			slices.SortFunc(settled, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) })
			ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(ts.Close)
			page := target{client: benchClient(), url: ts.URL + apiV2Prefix + "/dags/bench_runs/dagRuns?limit=50&order_by=-start_date"}
			// Each write settles again, as they were, the runs the one
			// before cleared, and clears 100 settled runs in turn.
			set := func(runs []*DagRun, clear bool) {
				err := store.update(func(txn *memdb.Txn) error {
					for _, r := range runs {
						cur, err := txn.First(tableDagRuns, indexDagRow, r.DagID, r.ID)
						if err != nil || cur == nil {
							return fmt.Errorf("run %d: %v", r.ID, err)
						}
						next := *r
						if clear {
							next.State, next.StartDate, next.EndDate = RunQueued, nil, nil
						}
						if err := putRunTxn(txn, cur.(*DagRun), &next); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			// 100 clears a write (more than the 64 the run counts name);
			// CI's small states (AIRLITE_BENCH_FULL unset) have fewer
			// settled runs, every one of them cleared.
			clears := min(100, len(settled))
			var cleared []*DagRun
			benchPageAfterWrites(b, page, func(i int) {
				if cleared != nil {
					set(cleared, false)
				}
				from := 0
				if len(settled) > clears {
					from = i * clears % (len(settled) - clears)
				}
				cleared = settled[from : from+clears]
				set(cleared, true)
			})
		})
	}
}
