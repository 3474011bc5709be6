package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// benchTIIntervalStore is benchTIStore's (runs of ten tasks, every third
// with a mapped task of three, rows task instances) with each run's data
// interval set as a scheduled run's: [its logical date, a minute later).
func benchTIIntervalStore(b *testing.B, rows int) (*Store, *DAGSet) {
	store, dags := benchTIStore(b, rows)
	err := store.update(func(txn *memdb.Txn) error {
		it, err := txn.Get(tableDagRuns, indexID)
		if err != nil {
			return err
		}
		var runs []*DagRun
		for raw := it.Next(); raw != nil; raw = it.Next() {
			runs = append(runs, raw.(*DagRun))
		}
		for _, r := range runs {
			c := *r
			start, end := c.ExecutionDate, c.ExecutionDate.Add(time.Minute)
			c.DataIntervalStart, c.DataIntervalEnd = &start, &end
			if err := txn.Insert(tableDagRuns, &c); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		b.Fatal(err)
	}
	return store, dags
}

// BenchmarkV2ListTaskInstancesFixedOrders lists a page of 50 of every
// run's task instances (GET /api/v2/dags/~/dagRuns/~/taskInstances, a
// DAG's) in the orders of keys a task instance or its run gets when it is
// made: -id (every DAG's; a DAG's from offset 200), -map_index, the
// runs' -logical_date, a task's by logical_date, the runs' data interval
// (-data_interval_start, data_interval_end from offset 200). The pages
// walk ti_order down, or the runs in the order, where every task
// instance was read and sorted.
func BenchmarkV2ListTaskInstancesFixedOrders(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchTIIntervalStore,
		benchPage{"id_desc", all + "&order_by=-id"},
		benchPage{"id_desc_offset", dag + "&offset=200&order_by=-id"},
		benchPage{"map_index_desc", all + "&order_by=-map_index"},
		benchPage{"logical_date_desc", all + "&order_by=-logical_date"},
		benchPage{"logical_date_task", dag + "&task_id=t3&order_by=logical_date"},
		benchPage{"interval_start_desc", all + "&order_by=-data_interval_start"},
		benchPage{"interval_end_offset", dag + "&offset=200&order_by=data_interval_end"})
}

// BenchmarkStoreTriggerIntervalBreaks is BenchmarkStoreTrigger with every
// other run given a data interval (a scheduled run's) and the others none
// (Airflow 3 runs triggered with logical_date null): each run without
// one after one with breaks the data interval's orders, which the fixed
// marks keep (a mark each, up to fixedMarksMax a DAG).
func BenchmarkStoreTriggerIntervalBreaks(b *testing.B) {
	store, _ := benchStoreWith(b)
	row, err := store.DagByID("example_bash_operator")
	if err != nil {
		b.Fatal(err)
	}
	start := edition2.rules().newRun
	conf := json.RawMessage(`{"key": "value"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		date := benchDate.Add(time.Duration(i) * time.Second)
		runID := "bench_" + strconv.Itoa(i)
		var iv *dataInterval
		if i%2 == 0 {
			iv = &dataInterval{date, date.Add(time.Second)}
		}
		_, err := store.TriggerRun(func(v storeView) (*newRun, error) {
			if err := runExists(v, row.DagID, runID, &date); err != nil {
				return nil, err
			}
			return &newRun{start: start, dag: row.Def, runID: runID, date: date, conf: conf, now: date, interval: iv,
				unixname: "bench", external: true, dateChecked: true}, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
