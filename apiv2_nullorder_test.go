package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// TestSortParam_RenderedMapIndexNullsSmallest is Airflow's
// test_rendered_map_index_order (c57fba0e
// airflow-core/tests/unit/api_fastapi/core_api/routes/public/test_task_instances.py:868-895,
// marked for SQLite, where NULL is the smallest value): 110 mapped task
// instances, map_index 0 rendered "a", the others NULL. Ascending, the
// NULLs come first by id; descending, "a" then the NULLs by id descending.
func TestSortParam_RenderedMapIndexNullsSmallest(t *testing.T) {
	t.Parallel()
	run := &DagRun{ID: 1, DagID: "mapped_tis", RunID: "run_mapped_tis"}
	var rows []RunTaskInstance
	for i := range 110 {
		ti := &TaskInstance{ID: fmt.Sprintf("id-%03d", i), TaskID: "task_2", MapIndex: i}
		if i == 0 {
			a := "a"
			ti.RenderedMapIndex = &a
		}
		rows = append(rows, RunTaskInstance{Run: run, TI: ti})
	}
	for _, tc := range []struct {
		name  string
		desc  bool
		limit int
		want  []int
	}{
		{"asc", false, 108, seqInts(1, 109)},
		{"desc", true, 100, append([]int{0}, reversedInts(seqInts(11, 110))...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(rows)
			slices.SortStableFunc(got, compareTISortParam([]sortKey{{attr: "rendered_map_index", desc: tc.desc}}))
			var idx []int
			for _, r := range got[:tc.limit] {
				idx = append(idx, r.TI.MapIndex)
			}
			if !slices.Equal(idx, tc.want) {
				t.Errorf("map indexes %v, want %v", idx, tc.want)
			}
		})
	}
}

// seqInts is from, from+1, ..., to-1.
func seqInts(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// reversedInts is s backwards.
func reversedInts(s []int) []int {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// TestAPIv2_ListMappedByRenderedMapIndex is test_rendered_map_index_order
// over HTTP (c57fba0e test_task_instances.py:868-895, SQLite's order):
// a mapped task's instances, map_index 0 rendered "a" and the others
// without one, listed by rendered_map_index: ascending the NULLs first,
// by id; descending "a" first, then the NULLs by id descending.
func TestAPIv2_ListMappedByRenderedMapIndex(t *testing.T) {
	t.Parallel()
	ts := mappedServer(t, edition3)
	ti, err := ts.store.TaskInstanceAt("mapped", "r1", "m", 0)
	if err != nil {
		t.Fatal(err)
	}
	next := *ti
	a := "a"
	next.RenderedMapIndex = &a
	if err := ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) }); err != nil {
		t.Fatal(err)
	}
	const list = "/dags/mapped/dagRuns/r1/taskInstances/m/listMapped"
	for _, tc := range []struct {
		order string
		want  []string
	}{
		{"rendered_map_index", []string{"m[1]=failed", "m[2]=success", "m[0]=success"}},
		{"-rendered_map_index", []string{"m[0]=success", "m[2]=success", "m[1]=failed"}},
	} {
		t.Run(tc.order, func(t *testing.T) {
			rows, total := v2TIRows(t, ts.v2(t, http.MethodGet, list+"?order_by="+tc.order, "", http.StatusOK).body)
			if !slices.Equal(rows, tc.want) || total != 3 {
				t.Errorf("rows %v of %d, want %v of 3", rows, total, tc.want)
			}
		})
	}
}
