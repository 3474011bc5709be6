package main

// Benchmarks of the task-instance lists branch tilists5b took from
// reading their scope to reading about their page (issue #21): every
// run's task instances by state, end_date, duration, try_number, and by
// start_date where the task instances without a start are (first
// ascending, last descending). BENCHMARKS.md has the figures and the
// commands.

import (
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// varyTIKeys gives the started task instances of dagID's runs the keys a
// scheduler's varied outcomes leave (their starts kept): run i's task k
// ends (i*7+k)%50 seconds after its start, lasts as long (a duration of
// many ties), is in try (i+k)%3+1, and ends in one of five states
// (success most); one in seventeen has no end or duration (NULL); with
// unstarted, one in thirteen never started (no state, no dates). One
// write a thousand runs.
func varyTIKeys(tb testing.TB, store *Store, dagID string, unstarted bool) {
	tb.Helper()
	states := []TaskState{TaskSuccess, TaskSuccess, TaskFailed, TaskSkipped, TaskSuccess, TaskUpstreamFailed, TaskUpForRetry}
	rewriteTIs(tb, store, dagID, func(i, k int, c *TaskInstance) bool {
		if c.StartDate == nil {
			return false
		}
		secs := (i*7 + k) % 50
		end := c.StartDate.Add(time.Duration(secs) * time.Second)
		d := float64(secs)
		c.EndDate, c.Duration = &end, &d
		c.TryNumber = (i+k)%3 + 1
		c.State = states[(i*3+k)%len(states)]
		if (i*5+k)%17 == 0 {
			c.EndDate, c.Duration = nil, nil
		}
		if unstarted && (i*3+k)%13 == 0 {
			c.State, c.StartDate, c.EndDate, c.Duration = TaskNone, nil, nil, nil
		}
		return true
	})
}

// rewriteTIs writes the task instances of a DAG's runs that change
// changes: each run's i-th (the runs in RunsOfDag's order) k-th task
// instance copied and given to change, written when it says so; a
// thousand runs a write.
func rewriteTIs(tb testing.TB, store *Store, dagID string, change func(i, k int, c *TaskInstance) bool) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	for from := 0; from < len(runs); from += 1000 {
		err = store.update(func(txn *memdb.Txn) error {
			for i := from; i < min(from+1000, len(runs)); i++ {
				tis, err := taskInstancesOfRunTxn(txn, dagID, runs[i].RunID)
				if err != nil {
					return err
				}
				var changed []*TaskInstance
				for k, ti := range tis {
					c := *ti
					if change(i, k, &c) {
						changed = append(changed, &c)
					}
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

// BenchmarkV2ListTaskInstancesByKey lists a page of 50 of every run's
// task instances (GET /api/v2/dags/~/dagRuns/~/taskInstances and one
// DAG's) with rows task instances stored (BenchmarkV2ListTaskInstancesOrdered's,
// their keys varied: varyTIKeys, one in thirteen without a start) by the
// Airflow 3 UI's columns: state, -state from offset 200, -end_date,
// end_date (NULLs first), -duration, try_number from offset 200, and by
// start_date ascending (those without a start first). The pages walk each DAG's keyed chunks, where every
// task instance was read and sorted.
func BenchmarkV2ListTaskInstancesByKey(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchKeyedTIStore,
		benchPage{"state", all + "&order_by=state"},
		benchPage{"state_desc_offset", dag + "&offset=200&order_by=-state"},
		benchPage{"end_date_desc", all + "&order_by=-end_date"},
		benchPage{"end_date", dag + "&order_by=end_date"},
		benchPage{"duration_desc", all + "&order_by=-duration"},
		benchPage{"try_number_offset", dag + "&offset=200&order_by=try_number"},
		benchPage{"start_date", dag + "&order_by=start_date"})
}

// benchKeyedTIStore is benchTIStore with bench_tis's starts spread and
// its keys (state, end_date, duration, try_number) varied: the store of
// the keyed orders' and their lead groups' pages.
func benchKeyedTIStore(b *testing.B, rows int) (*Store, *DAGSet) {
	b.Helper()
	store, dags := benchTIStore(b, rows)
	spreadTIStarts(b, store, "bench_tis")
	varyTIKeys(b, store, "bench_tis", true)
	return store, dags
}
