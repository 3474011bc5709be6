package main

// Benchmarks of the task-instance lists branch tilists4 took from reading
// their scope to reading about their page (issue #21): every run's task
// instances by start_date (the Airflow 3 UI's -start_date, -run_after)
// and by run_after, a named run's in other orders. BENCHMARKS.md has the
// figures and the commands.

import (
	"net/url"
	"runtime"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// spreadTIStarts dates the task instances of dagID's runs (addRunsWithTIIDs,
// one a minute) as a scheduler running two runs at once leaves them: run
// i's task k starts at its date + i%2 minutes + k seconds, so starts of
// two runs interleave and some tie; every 37th run ran again three hours
// later (a clear). One write a thousand runs.
func spreadTIStarts(tb testing.TB, store *Store, dagID string) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	for len(runs) > 0 {
		n := min(len(runs), 1000)
		batch := runs[:n]
		runs = runs[n:]
		err := store.update(func(txn *memdb.Txn) error {
			for i, run := range batch {
				tis, err := taskInstancesOfRunTxn(txn, dagID, run.RunID)
				if err != nil {
					return err
				}
				changed := make([]*TaskInstance, len(tis))
				for k, ti := range tis {
					c := *ti
					start := run.ExecutionDate.Add(time.Duration(i%2)*time.Minute + time.Duration(k)*time.Second)
					if run.ID%37 == 0 {
						start = start.Add(3 * time.Hour)
					}
					end := start.Add(30 * time.Second)
					c.StartDate, c.EndDate = &start, &end
					changed[k] = &c
				}
				if err := putTaskInstancesTxn(txn, changed...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkV2ListTaskInstancesOrdered lists a page of 50 of every run's
// task instances (GET /api/v2/dags/~/dagRuns/~/taskInstances and one
// DAG's) in the Airflow 3 UI's orders with rows task instances stored
// (runs of ten tasks, every third with a mapped task; spreadTIStarts): its
// task instance pages' -start_date, -run_after (every DAG's, a task's),
// start_date from offset 200, and its task overview's -run_after (a
// task's) and every DAG's -run_after. The pages walk the started task
// instances' chunks or the runs by run_after, where every task instance
// was read and sorted.
func BenchmarkV2ListTaskInstancesOrdered(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchTIStore(b, rows)
		spreadTIStarts(b, store, "bench_tis")
		return store, dags
	},
		benchPage{"ui_order", all + "&order_by=-start_date&order_by=-run_after"},
		benchPage{"start_offset", dag + "&offset=200&order_by=start_date"},
		benchPage{"task_ui_order", dag + "&task_id=t3&order_by=-start_date&order_by=-run_after"},
		benchPage{"task_run_after", dag + "&task_id=t3&order_by=-run_after"},
		benchPage{"run_after", all + "&order_by=-run_after"})
}

// BenchmarkV2ListTaskInstancesOfRunOrdered lists a page of 50 of a named
// run's task instances (BenchmarkV2ListTaskInstancesOfRun's store: four
// runs of ten tasks, the last expanded into rows/4 mapped instances in
// each) in other orders than get_task_instances' default: the UI's run
// page (-start_date, -run_after), by id from offset 200 (the batch's
// default), the UI's mapped task page (the mapped task's, -start_date,
// -run_after). A run's task instances are sorted once per version of its
// row and remembered, where every page read and sorted them.
func BenchmarkV2ListTaskInstancesOfRunOrdered(b *testing.B) {
	run := url.PathEscape("scheduled__" + isoFormat(benchDate.Add(time.Minute)))
	base := "/dags/bench_tis/dagRuns/" + run + "/taskInstances?limit=50"
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_tis", 10)
		store, dags := benchStoreWith(b, dag)
		addRunsWithTIIDs(b, store, dag, benchDate, 4, false)
		expandLastTask(b, store, dag, rows/4)
		return store, dags
	},
		benchPage{"run_ui_order", base + "&order_by=-start_date&order_by=-run_after"},
		benchPage{"run_by_id_offset", base + "&offset=200&order_by=id"},
		benchPage{"mapped_ui_order", base + "&task_id=t9&order_by=-start_date&order_by=-run_after"})
}

// BenchmarkMemoryTaskInstances3 is the heap a task instance of edition 3
// costs (an id, every date: addRunsWithTIIDs' finished runs of ten
// tasks, every third with a mapped task of three), with its share of its
// run's, over n runs: what the derived orders of task instances add
// shows against a build without them.
func BenchmarkMemoryTaskInstances3(b *testing.B) {
	n := benchSize(20000, 200)
	dag := benchDAG(b, "bench_mem3", 10)
	var perTI float64
	for i := 0; i < b.N; i++ {
		store, _ := benchStoreWith(b, dag)
		before := heapAfterGC()
		addRunsWithTIIDs(b, store, dag, benchDate, n, false)
		grown := heapAfterGC() - before
		tis := 0
		for _, r := range mustRunsOf(b, store, dag.DagID) {
			got, err := store.TaskInstancesOfRun(dag.DagID, r.RunID)
			if err != nil {
				b.Fatal(err)
			}
			tis += len(got)
		}
		runtime.KeepAlive(store)
		perTI = float64(grown) / float64(tis)
	}
	b.ReportMetric(perTI, "B/TI")
}

// mustRunsOf is a DAG's runs.
func mustRunsOf(tb testing.TB, store *Store, dagID string) []*DagRun {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	return runs
}
