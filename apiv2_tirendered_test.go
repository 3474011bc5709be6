package main

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// setRenderedMapIndexes gives mapped task instances of dag a rendered
// map_index, as a try's map_index_template does (python/airlite_task.py:
// mapped instances only): each one pick takes, a value of few (ties).
func setRenderedMapIndexes(tb testing.TB, store *Store, dagID string, pick func(run, i int, ti *TaskInstance) bool) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	for n, run := range runs {
		tis, err := store.TaskInstancesOfRun(dagID, run.RunID)
		if err != nil {
			tb.Fatal(err)
		}
		var changed []*TaskInstance
		for i, ti := range tis {
			if ti.MapIndex < 0 || !pick(n, i, ti) {
				continue
			}
			c := *ti
			v := fmt.Sprintf("item %d", (n*7+ti.MapIndex)%11)
			c.RenderedMapIndex = &v
			changed = append(changed, &c)
		}
		if len(changed) == 0 {
			continue
		}
		if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, changed...) }); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestAPIv2_TaskInstances_RenderedMapIndexReadsThePage lists every
// run's task instances by rendered_map_index alone, either way (NULL
// lowest as SQLite sorts it, then the id in the key's direction:
// c57fba0e api_fastapi/common/parameters.py:327-330), of every DAG, one
// DAG, with a filter or none, and checks through the
// store's rowsRead hook that a page, asked a second time (a filter's
// count and the rendered ones' sort remembered per version), reads
// about its own rows and those its offset skips, not the 1,280 task
// instances of the runs. Each answer is the sorting path's.
func TestAPIv2_TaskInstances_RenderedMapIndexReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tirend_b", "tirend_a", "tirend_c"} {
		dag := addStartedRuns(t, ts.store, id, base, 80, i == 0)
		if i == 2 {
			expandTwoTasks(t, ts.store, dag, 3)
		}
	}
	// 80 runs × 2 tasks × 3 mapped: every third run's all (27 × 6), the
	// others' map_index 1 (53 × 2): 268 rendered, the rest NULL.
	setRenderedMapIndexes(t, ts.store, "tirend_c", func(run, _ int, ti *TaskInstance) bool { return run%3 == 0 || ti.MapIndex == 1 })
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tirend_a/dagRuns/~/taskInstances"
	const dagC = "/dags/tirend_c/dagRuns/~/taskInstances"
	const walks = 2 * 4 // a block at each end of a DAG's four walks
	const rendered, nullC = 268, 640 - 268
	// alongNulls bounds a walk of tirend_c's NULL part by id to its n-th:
	// the rendered task instances among them are read too, and a mapped
	// block (of one) costs its feeder's row, its own and its member.
	alongNulls := func(n int) int { return 3*n*640/nullC + walks }
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"every DAG, rendered_map_index", "GET", all + "?limit=50&order_by=rendered_map_index", "", 2*50 + 3*walks},
		{"every DAG, rendered_map_index, offset", "GET", all + "?limit=20&offset=300&order_by=rendered_map_index", "", 2*(300+20) + 3*walks},
		{"every DAG, -rendered_map_index", "GET", all + "?limit=50&order_by=-rendered_map_index", "", 50},
		{"one DAG, -rendered_map_index, past the rendered", "GET", dagC + "?limit=30&offset=280&order_by=-rendered_map_index", "",
			alongNulls(280 - rendered + 30)},
		{"one DAG, rendered_map_index, past the NULLs", "GET", dagC + "?limit=30&offset=400&order_by=rendered_map_index", "", 30},
		// The NULL part from the page's offset, then the rendered part's
		// first: a filter's walk (not a sort's) reads the offset's rows.
		{"one DAG, rendered_map_index, NULLs then rendered", "GET", dagC + "?limit=40&offset=60&order_by=rendered_map_index", "",
			alongNulls(60+40) - 40},
		// To the NULL part's end: more rows than the sort's 720, the
		// crossing's answer checked.
		{"one DAG, rendered_map_index, the last NULLs then rendered", "GET", dagC + "?limit=40&offset=360&order_by=rendered_map_index", "",
			alongNulls(nullC) + 40},
		{"one DAG without mapped tasks, -rendered_map_index", "GET", dagA + "?limit=25&offset=40&order_by=-rendered_map_index", "", 2*(40+25) + walks},
		// Unfiltered, an unmapped block (a run's task instances, two to
		// four) is passed for the offset by its count: it holds no
		// rendered one (317 rows read when each is looked at).
		{"one DAG without mapped tasks, rendered_map_index, offset", "GET", dagA + "?limit=20&offset=200&order_by=rendered_map_index", "",
			200/2 + 2*20 + 3*walks},
		{"one DAG, a state, -rendered_map_index", "GET", dagC + "?limit=20&state=success&order_by=-rendered_map_index", "", 20},
		{"every DAG, a task, rendered_map_index", "GET", all + "?limit=20&offset=10&task_id=t1&order_by=rendered_map_index", "", 2*4*(10+20) + 3*walks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_RenderedMapIndexAsTheSort asks random listings of
// every run's task instances by rendered_map_index alone, either way, of
// one DAG, some or every DAG, filters or none, between random writes
// (changeStartedTIs's, and rendered values given to mapped task
// instances), and holds each to the sorting path's answer.
func TestTaskInstances_RenderedMapIndexAsTheSort(t *testing.T) {
	t.Parallel()
	ts, dags, base := twoStartedDAGs(t, "tirdsort")
	store := ts.store
	rng := rand.New(rand.NewPCG(21, 15))
	setRenderedMapIndexes(t, store, "tirdsort_b", func(int, int, *TaskInstance) bool { return rng.IntN(2) == 0 })
	o := ts.srv.ops
	now := base.Add(time.Hour)
	for i := range 400 {
		switch {
		case i%10 == 5:
			d := dags[rng.IntN(len(dags))].DagID
			setRenderedMapIndexes(t, store, d, func(int, int, *TaskInstance) bool { return rng.IntN(9) == 0 })
		case i%5 == 0:
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		checkTISearchAsSorted(t, o, i, randomOneKeyTISearch(rng, "rendered_map_index", dags))
	}
}
