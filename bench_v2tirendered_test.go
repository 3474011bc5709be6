package main

import "testing"

// benchTIRenderedStore is benchTIStore's (runs of ten tasks, every third
// with a mapped task of three, rows task instances) with the mapped
// task instances of every other such run given a rendered map_index.
func benchTIRenderedStore(b *testing.B, rows int) (*Store, *DAGSet) {
	store, dags := benchTIStore(b, rows)
	setRenderedMapIndexes(b, store, "bench_tis", func(run, _ int, _ *TaskInstance) bool { return run%2 == 0 })
	return store, dags
}

// BenchmarkV2ListTaskInstancesRendered lists a page of 50 of every run's
// task instances (GET /api/v2/dags/~/dagRuns/~/taskInstances, a DAG's)
// by rendered_map_index: ascending (the NULL part first), from offset
// 200, descending (the rendered part first), a state's descending. The
// pages walk ti_order by id and a sort of the rendered ones, remembered,
// where every task instance was read and sorted.
func BenchmarkV2ListTaskInstancesRendered(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchTIRenderedStore,
		benchPage{"rendered", all + "&order_by=rendered_map_index"},
		benchPage{"rendered_offset", dag + "&offset=200&order_by=rendered_map_index"},
		benchPage{"rendered_desc", all + "&order_by=-rendered_map_index"},
		benchPage{"rendered_desc_state", dag + "&state=success&order_by=-rendered_map_index"})
}

// benchTIOperatorStore is benchTIStore's with operatorOfTask's operators
// (t0 a BashOperator, t1 a PythonOperator, the other eight tasks
// EmptyOperators).
func benchTIOperatorStore(b *testing.B, rows int) (*Store, *DAGSet) {
	store, dags := benchTIStore(b, rows)
	setOperators(b, store, "bench_tis", operatorOfTask)
	return store, dags
}

// BenchmarkV2ListTaskInstancesByOperator lists a page of 50 of every
// run's task instances by operator: ascending (the BashOperators, one
// task in ten), descending (the PythonOperators), a DAG's from offset
// 200 (among the BashOperators). The pages pick the operator's along the id walk, where every task instance
// was read and sorted.
func BenchmarkV2ListTaskInstancesByOperator(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchTIOperatorStore,
		benchPage{"operator", all + "&order_by=operator"},
		benchPage{"operator_desc", all + "&order_by=-operator"},
		benchPage{"operator_offset", dag + "&offset=200&order_by=operator"})
}
