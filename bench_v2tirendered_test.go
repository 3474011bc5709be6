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

// benchTIGroupStore is benchTIStore's with operatorOfTask's operators
// and the mapped task instances of every other mapped run rendered
// (benchTIOperatorStore's and benchTIRenderedStore's).
func benchTIGroupStore(b *testing.B, rows int) (*Store, *DAGSet) {
	store, dags := benchTIOperatorStore(b, rows)
	setRenderedMapIndexes(b, store, "bench_tis", func(run, _ int, _ *TaskInstance) bool { return run%2 == 0 })
	return store, dags
}

// BenchmarkV2ListTaskInstancesGroupLed lists a page of 50 of every run's
// task instances by orders led by operator, map_index or
// rendered_map_index with a key after it: every DAG's BashOperators by
// -start_date, a DAG's from offset 200 by -operator then start_date
// (its PythonOperators), by map_index then -start_date (the unmapped
// ones), a DAG's by -map_index then start_date (the mapped ones,
// sorted), by rendered_map_index then -start_date (the NULL part), a
// state's by -rendered_map_index then -end_date (the rendered part). The
// pages pick the group's along the next key's walk, where every task
// instance was read and sorted.
func BenchmarkV2ListTaskInstancesGroupLed(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchTIGroupStore,
		benchPage{"operator_start", all + "&order_by=operator&order_by=-start_date"},
		benchPage{"operator_desc_offset", dag + "&offset=200&order_by=-operator&order_by=start_date"},
		benchPage{"map_index_start", all + "&order_by=map_index&order_by=-start_date"},
		benchPage{"map_index_desc", dag + "&order_by=-map_index&order_by=start_date"},
		benchPage{"rendered_start", all + "&order_by=rendered_map_index&order_by=-start_date"},
		benchPage{"rendered_desc_state", dag + "&state=success&order_by=-rendered_map_index&order_by=-end_date"})
}
