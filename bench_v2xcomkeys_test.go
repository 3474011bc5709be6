package main

import (
	"net/url"
	"testing"
	"time"
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

// BenchmarkV2ListXComsRunFilter lists a page of 50 of BenchmarkV2ListXComs'
// entries (ten runs, each a tenth of the entries) by run filters that
// pick the last run: a run_after range (its runs sought by run_after),
// a logical_date range and a run_id pattern (the DAG's runs read once
// per version of them): the picked run's entries of each task sought
// (xcomAdmittedRunsWalk), where the walk of the scope read the nine other
// runs' entries of a task before them; and a run_id pattern every run
// matches (each run's task sought: as many rows as the walk).
func BenchmarkV2ListXComsRunFilter(b *testing.B) {
	const dagID = "bench_xcoms"
	last := benchDate.Add(9 * time.Minute)
	benchV2Pages(b, fillXComs(dagID),
		benchPage{"every_run_after", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&run_after_gte=" + last.Format(time.RFC3339)},
		benchPage{"dag_logical_offset", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=40&logical_date_gte=" + last.Format(time.RFC3339)},
		benchPage{"task_run_id_pattern", "/dags/" + dagID + "/dagRuns/~/taskInstances/t1/xcomEntries?limit=50&run_id_pattern=" + url.QueryEscape(isoFormat(last)[11:16])},
		benchPage{"every_run_id_pattern_all_offset", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=200&run_id_pattern=scheduled"})
}
