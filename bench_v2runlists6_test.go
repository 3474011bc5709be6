package main

// Benchmarks of the run listings runlists5 left reading their scope
// (issue #21): several keys led by conf across DAGs and with filters, a
// DAG's runs sorted by conf at the first page after deletes. BENCHMARKS.md
// has the figures and the commands.

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// BenchmarkV2ListRunsLedByConfWide lists a page of 50 runs by several
// keys led by conf across DAGs and with filters: every DAG's (a DAG whose
// runs share a few confs, addMixedRuns' manual run in 500 with one of
// seven and {} for the others, and one whose runs each have their own,
// addOwnConfRuns, a quarter as many) by conf then -start_date (own confs
// first) and by -conf then -start_date ({}'s runs walked by start_date),
// a DAG's successful runs by -conf then run_id, and every DAG's manual
// runs by conf then -start_date from offset 100: each conf's runs in
// turn, where every run of the DAGs was read and sorted.
func BenchmarkV2ListRunsLedByConfWide(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addMixedRuns(b, store, dag.DagID, benchDate, rows, 500)
		addOwnConfRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
		return store, dags
	},
		benchPage{"all_conf,-start_date", "/dags/~/dagRuns?limit=50&order_by=conf&order_by=-start_date"},
		benchPage{"all_-conf,-start_date", "/dags/~/dagRuns?limit=50&order_by=-conf&order_by=-start_date"},
		benchPage{"success_-conf,run_id", "/dags/bench_runs/dagRuns?limit=50&state=success&order_by=-conf&order_by=run_id"},
		benchPage{"all_manual_conf,-start_date_offset", "/dags/~/dagRuns?limit=50&offset=100&run_type=manual&order_by=conf&order_by=-start_date"})
}

// BenchmarkV2ListRunsOwnConfAfterDeletes lists a page of 50 of
// BenchmarkV2ListRunsOwnConf's DAG's runs by conf (or by conf then
// -start_date) after each write that deletes some of its runs (outside
// the timer): 300 of the oldest (more than the 256 a sorted list may hold
// gone), the newest, or one in the middle before the page by several
// keys (whose counts need none gone). The page looks up every block of
// 256 ids and reads those that changed, where every run was read and
// sorted again.
func BenchmarkV2ListRunsOwnConfAfterDeletes(b *testing.B) {
	for _, rows := range benchListSizes() {
		for _, c := range []struct {
			name, order string
			pick        func(runs []*DagRun) []*DagRun
		}{
			{"oldest_300", "&order_by=conf", func(runs []*DagRun) []*DagRun { return runs[:min(300, len(runs)/100+1)] }},
			{"newest", "&order_by=conf", func(runs []*DagRun) []*DagRun { return runs[len(runs)-1:] }},
			{"middle_conf,-start_date", "&order_by=conf&order_by=-start_date", func(runs []*DagRun) []*DagRun { return runs[len(runs)/2 : len(runs)/2+1] }},
		} {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, c.name), func(b *testing.B) {
				store, dags := benchOwnConfRuns(b, rows)
				ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
				b.Cleanup(ts.Close)
				page := target{client: benchClient(), url: ts.URL + apiV2Prefix + "/dags/bench_runs/dagRuns?limit=50" + c.order}
				benchPageAfterWrites(b, page, func(int) {
					err := store.update(func(txn *memdb.Txn) error {
						runs, err := dagRunsOfTxn(txn, "bench_runs")
						if err != nil {
							return err
						}
						if len(runs) < 2 {
							return nil
						}
						for _, r := range c.pick(runs) {
							if err := deleteRunTxn(txn, r); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// benchPageAfterWrites times page after each write (write(i), outside
// the timer; the page asked once before) and reports the median.
func benchPageAfterWrites(b *testing.B, page target, write func(i int)) {
	b.Helper()
	page.do(b)
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		write(i)
		b.StartTimer()
		t0 := time.Now()
		page.do(b)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "µs-median")
}
