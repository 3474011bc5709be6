package main

import (
	"encoding/json"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// BenchmarkV2ListXComsSparseKey lists a page of 50 of BenchmarkV2ListXComs'
// entries (rows of key return_value) by an xcom_key that one map index
// in 500 of each run's task also has (200 entries at 100,000), every
// DAG's and the DAG's: the key's entries walked (indexXComKeyOrder),
// where the walk of the scope read every entry to the page's last match.
func BenchmarkV2ListXComsSparseKey(b *testing.B) {
	const dagID = "bench_xcoms"
	fill := fillXComs(dagID)
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := fill(b, rows)
		runs, err := store.RunsOfDag(dagID, "")
		if err != nil {
			b.Fatal(err)
		}
		err = store.update(func(txn *memdb.Txn) error {
			for _, run := range runs {
				for _, task := range []string{"t0", "t1"} {
					for mi := 0; mi < max(rows/20, 1); mi += 500 {
						e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: task, RunRowID: run.ID, MapIndex: mi,
							Key: "rare", Value: json.RawMessage(`1`), Timestamp: benchDate}
						if err := store.putXComTxn(txn, e); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"every_rare_key", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&xcom_key=rare"},
		benchPage{"dag_rare_key_offset", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=100&xcom_key=rare"})
}
