package main

import "testing"

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
		row, err := store.DagByID(dagID)
		if err != nil {
			b.Fatal(err)
		}
		putXComsOfRuns(b, store, row.Def, "rare", max(rows/20, 1), 500)
		return store, dags
	},
		benchPage{"every_rare_key", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&xcom_key=rare"},
		benchPage{"dag_rare_key_offset", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=100&xcom_key=rare"})
}
