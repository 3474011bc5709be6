package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAPIv2_TaskInstances_GroupLedOrdersReadThePage lists every run's
// task instances by orders led by operator, map_index or
// rendered_map_index with keys after it (SortParam's keys in turn, then
// the id in the first key's direction: c57fba0e
// api_fastapi/common/parameters.py:327-330), of every DAG or one, with a
// filter or none, and checks through the store's rowsRead hook that a
// page, asked a second time (the groups' counts and the mapped part's
// sort remembered per version), reads about its rows and those its
// offset skips along the next key's walk, not the 1,280 task instances
// of the runs read and sorted. Each answer is the sorting path's.
func TestAPIv2_TaskInstances_GroupLedOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tigrp_b", "tigrp_a", "tigrp_c"} {
		dag := addStartedRuns(t, ts.store, id, base, 80, i == 0)
		if i == 2 {
			expandTwoTasks(t, ts.store, dag, 3)
		}
		setOperators(t, ts.store, id, operatorOfTask)
	}
	// tigrp_c: 268 of its 480 mapped task instances rendered, the rest
	// of its 640 NULL (TestAPIv2_TaskInstances_RenderedMapIndexReadsThePage).
	setRenderedMapIndexes(t, ts.store, "tigrp_c", func(run, _ int, ti *TaskInstance) bool { return run%3 == 0 || ti.MapIndex == 1 })
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tigrp_a/dagRuns/~/taskInstances"
	const dagC = "/dags/tigrp_c/dagRuns/~/taskInstances"
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		// t0's BashOperators, 240 of 1,280, along every DAG's start walk
		// down: about 16/3 task instances read a row.
		{"every DAG, operator, -start_date", "GET", all + "?limit=50&order_by=operator&order_by=-start_date", "", 400},
		// A DAG's 80 PythonOperators passed by their count, its
		// EmptyOperators (half) along its start walk from the 20th.
		{"one DAG, -operator, start_date, offset", "GET", dagA + "?limit=20&offset=100&order_by=-operator&order_by=start_date", "", 120},
		{"one DAG, operator, -end_date, a state", "GET", dagA + "?limit=20&state=success&order_by=operator&order_by=-end_date", "", 150},
		// Nested: an operator's task instances by map_index, the id down
		// (tigrp_c's would walk its 320 newest ids, mapped EmptyOperators,
		// before a PythonOperator: a rare operator along the id walk).
		{"one DAG, -operator, map_index", "GET", dagA + "?limit=30&order_by=-operator&order_by=map_index", "", 250},
		// Nested: an operator's task instances led by state with a
		// walked key after it, its states passed by their counts (as a
		// page led by state: leadGroupPage), not each state's read whole.
		{"every DAG, operator, -state, -start_date", "GET", all + "?limit=30&offset=20&order_by=operator&order_by=-state&order_by=-start_date", "", 400},
		{"one DAG, -operator, try_number, end_date", "GET", dagA + "?limit=20&offset=10&order_by=-operator&order_by=try_number&order_by=end_date", "", 180},
		// The unmapped task instances (most) along the start walk.
		{"every DAG, map_index, -start_date", "GET", all + "?limit=50&order_by=map_index&order_by=-start_date", "", 150},
		// The mapped part first, read and sorted once per version.
		{"one DAG, -map_index, start_date, offset", "GET", dagC + "?limit=30&offset=100&order_by=-map_index&order_by=start_date", "", 40},
		{"one DAG, map_index, -id", "GET", dagA + "?limit=20&offset=30&order_by=map_index&order_by=-id", "", 100},
		{"every DAG, rendered_map_index, -start_date", "GET", all + "?limit=50&order_by=rendered_map_index&order_by=-start_date", "", 120},
		// The rendered part's last, then the NULL part along the id walk.
		{"one DAG, -rendered_map_index, id, across", "GET", dagC + "?limit=30&offset=250&order_by=-rendered_map_index&order_by=id", "", 100},
		{"one DAG, -rendered_map_index, -end_date", "GET", dagC + "?limit=30&order_by=-rendered_map_index&order_by=-end_date", "", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_GroupLedOrdersAsTheSort asks random listings of
// every run's task instances by operator, map_index or rendered_map_index
// (either way) then one or two other keys of get_task_instances' (either
// way, any of them, the lead's again too), of one DAG, some or every
// DAG, filters or none, between random writes (changeStartedTIs's,
// operators changed, mapped instances rendered: NULLs and ties), and
// holds each to the sorting path's answer.
func TestTaskInstances_GroupLedOrdersAsTheSort(t *testing.T) {
	t.Parallel()
	ts, dags, base := twoStartedDAGs(t, "tigsort")
	store := ts.store
	rng := rand.New(rand.NewPCG(21, 17))
	ops := []string{"", "BashOperator", "EmptyOperator", "PythonOperator"}
	for _, d := range dags {
		setOperators(t, store, d.DagID, operatorOfTask)
	}
	setRenderedMapIndexes(t, store, "tigsort_b", func(int, int, *TaskInstance) bool { return rng.IntN(2) == 0 })
	o := ts.srv.ops
	now := base.Add(time.Hour)
	for i := range 600 {
		switch {
		case i%15 == 5:
			setOperators(t, store, dags[rng.IntN(len(dags))].DagID, func(run int, ti *TaskInstance) string {
				if rng.IntN(7) == 0 {
					return ops[rng.IntN(len(ops))]
				}
				return ti.Operator
			})
		case i%15 == 10:
			setRenderedMapIndexes(t, store, "tigsort_b", func(int, int, *TaskInstance) bool { return rng.IntN(9) == 0 })
		case i%5 == 0:
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		lead := []string{"operator", "map_index", "rendered_map_index"}[rng.IntN(3)]
		q := randomOneKeyTISearch(rng, lead, dags)
		for range 1 + rng.IntN(2) {
			q.order = append(q.order, sortKey{attr: v2TIOrderAttrs[rng.IntN(len(v2TIOrderAttrs))], desc: rng.IntN(2) == 0})
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}
