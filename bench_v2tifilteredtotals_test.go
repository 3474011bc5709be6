package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// BenchmarkV2ListTaskInstancesFilteredAfterWrite writes one task
// instance of one DAG of ten (its queue: no order's key), then lists a
// filtered page of 50 of every DAG's task instances (GET
// /api/v2/dags/~/dagRuns/~/taskInstances), each request the first page
// after a write: with rows task instances in ten DAGs of rows/100 runs
// of ten tasks (one run each at least: CI's small states have rows 20).
// Its total_entries counts the filter's picks of the
// written DAG again (filteredTITotal), not every DAG's. ns/op holds the
// write and the request.
func BenchmarkV2ListTaskInstancesFilteredAfterWrite(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var all []*DAG
			for i := range 10 {
				all = append(all, benchDAG(b, fmt.Sprintf("bench_tis_%d", i), 10))
			}
			store, dags := benchStoreWith(b, all...)
			for _, dag := range all {
				addRunsWithTIIDs(b, store, dag, benchDate, max(1, rows/100), false)
			}
			ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(ts.Close)
			client := benchClient()
			runs, err := store.RunsOfDag("bench_tis_3", "")
			if err != nil {
				b.Fatal(err)
			}
			written := runs[len(runs)/2].RunID
			for _, p := range []benchPage{
				{"task_id", "/dags/~/dagRuns/~/taskInstances?limit=50&task_id=t3"},
				{"queue_by_start_date", "/dags/~/dagRuns/~/taskInstances?limit=50&queue=default&order_by=-start_date"},
				{"pool_state_start_date", "/dags/~/dagRuns/~/taskInstances?limit=50&pool=default_pool&order_by=state&order_by=-start_date"},
			} {
				b.Run(p.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						changeQueueOfRun(b, store, "bench_tis_3", written)
						resp, err := client.Get(ts.URL + apiV2Prefix + p.path)
						if err != nil {
							b.Fatal(err)
						}
						body, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						if err != nil || resp.StatusCode != 200 {
							b.Fatalf("%d %v %.200s", resp.StatusCode, err, body)
						}
					}
				})
			}
		})
	}
}

// changeQueueOfRun writes a run's first task instance with its queue
// changed (no order's key) and back at the next call.
func changeQueueOfRun(tb testing.TB, store *Store, dagID, runID string) {
	tb.Helper()
	tis, err := store.TaskInstancesOfRun(dagID, runID)
	if err != nil || len(tis) == 0 {
		tb.Fatalf("task instances of %s/%s: %v", dagID, runID, err)
	}
	c := *tis[0]
	c.Queue = map[bool]string{true: "default", false: "default_changed"}[c.Queue == "default_changed"]
	if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &c) }); err != nil {
		tb.Fatal(err)
	}
}
