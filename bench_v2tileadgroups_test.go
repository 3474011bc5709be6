package main

// Benchmarks of the task-instance lists branch tilists6b took from
// reading a group of their lead key to reading about their page (issue
// #21): every run's task instances led by state or try_number with
// another key after it. BENCHMARKS.md has the figures and the commands.

import "testing"

// BenchmarkV2ListTaskInstancesLeadGroups lists a page of 50 of every
// run's task instances (GET /api/v2/dags/~/dagRuns/~/taskInstances and
// one DAG's) with rows task instances stored (BenchmarkV2ListTaskInstancesByKey's:
// varyTIKeys, one in thirteen without a start or a state) in orders led by
// state or try_number with a key after it: the UI's state, -start_date
// (the unstarted first, NULL in both: picked along the id walk), from
// offset 200 too; -state, -start_date (upstream_failed, a seventh,
// along the start walk); -state, run_after (along the runs' walk);
// -try_number, -duration (a third); try_number, -id from offset 200; and
// -state, end_date from offset 200, whose next key's NULLs (a thirteenth
// and a seventeenth, one tie group) come first: its group read either
// way. The groups before the page are passed by their counts (once per
// version of each DAG's task instances), where each group was read
// whole and sorted.
func BenchmarkV2ListTaskInstancesLeadGroups(b *testing.B) {
	const all, dag = "/dags/~/dagRuns/~/taskInstances?limit=50", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50"
	benchV2Pages(b, benchKeyedTIStore,
		benchPage{"state_start_date_desc", all + "&order_by=state&order_by=-start_date"},
		benchPage{"state_start_date_desc_offset", dag + "&offset=200&order_by=state&order_by=-start_date"},
		benchPage{"state_desc_start_date_desc", all + "&order_by=-state&order_by=-start_date"},
		benchPage{"state_desc_run_after", all + "&order_by=-state&order_by=run_after"},
		benchPage{"try_number_desc_duration_desc", all + "&order_by=-try_number&order_by=-duration"},
		benchPage{"try_number_id_desc_offset", dag + "&offset=200&order_by=try_number&order_by=-id"},
		benchPage{"state_desc_end_date_offset", dag + "&offset=200&order_by=-state&order_by=end_date"})
}
