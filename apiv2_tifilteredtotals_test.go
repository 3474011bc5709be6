package main

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestTaskInstances_FilteredTotalsAsTheCount lists four DAGs' task
// instances with filters (each drawn from a few, so that their counts
// are remembered and asked again) in the walked orders, between writes
// and deletes of one DAG's task instances and runs, and holds each page
// and total_entries to the sorting path's: a DAG's filtered count is
// remembered per version of its own task-instance rows
// (filteredTITotal), so a count one write left standing must be its
// DAG's still.
func TestTaskInstances_FilteredTotalsAsTheCount(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var dags []*DAG
	for i, id := range []string{"tiftot_b", "tiftot_a", "tiftot_d", "tiftot_c"} {
		dags = append(dags, addStartedRuns(t, store, id, base, 12+6*i, i%2 == 0))
		varyTIKeys(t, store, id, i == 1)
		setOperators(t, store, id, operatorOfTask)
	}
	expandTwoTasks(t, store, dags[2], 3)
	rng := rand.New(rand.NewPCG(29, 11))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	filters := []func(q *tiSearch){
		func(q *tiSearch) { q.states = []TaskState{TaskSuccess} },
		func(q *tiSearch) { q.states = []TaskState{TaskFailed, TaskNone, TaskRunning} },
		func(q *tiSearch) { q.queues = []string{"default_changed"} },
		func(q *tiSearch) { q.pools = []string{"other_pool"} },
		func(q *tiSearch) { q.operators = []string{"BashOperator"} },
		func(q *tiSearch) { q.tryNumbers = []int64{2, 3} },
		func(q *tiSearch) { q.mapIndexes = []int64{-1, 1} },
		func(q *tiSearch) { q.taskPattern = regexp.MustCompile("(?i)t[12]") },
		func(q *tiSearch) { q.taskIDs = []string{"t3"}; q.states = []TaskState{TaskSuccess, TaskUpForRetry} },
	}
	orders := [][]sortKey{
		{{attr: "id"}}, {{attr: "id", desc: true}}, {{attr: "map_index"}}, {{attr: "start_date", desc: true}},
		{{attr: "end_date"}}, {{attr: "run_after", desc: true}}, {{attr: "state"}, {attr: "-start_date"}},
		{{attr: "operator"}, {attr: "duration", desc: true}}, {{attr: "logical_date"}},
	}
	orders[6][1] = sortKey{attr: "start_date", desc: true}
	scopes := [][]string{nil, {"tiftot_a"}, {"tiftot_c", "tiftot_b"}, {"tiftot_d"}}
	for i := range 500 {
		if i%3 == 0 {
			dag := dags[rng.IntN(len(dags))]
			if rng.IntN(2) == 0 {
				changeStartedTIs(t, store, dag, rng, now)
			} else {
				changeTIPlacement(t, store, dag.DagID, rng)
			}
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		q := &tiSearch{dagIDs: scopes[rng.IntN(len(scopes))], order: orders[rng.IntN(len(orders))], limit: 1 + rng.IntN(30)}
		if rng.IntN(3) == 0 {
			q.offset = rng.IntN(200)
		}
		filters[rng.IntN(len(filters))](q)
		checkTISearchAsSorted(t, o, i, q)
	}
}

// changeTIPlacement writes one task instance of a DAG's random run: its
// queue or pool changed to or from a second one (no order's key, a
// filter's column).
func changeTIPlacement(tb testing.TB, store *Store, dagID string, rng *rand.Rand) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil || len(runs) == 0 {
		tb.Fatalf("runs of %s: %v (%d)", dagID, err, len(runs))
	}
	tis, err := store.TaskInstancesOfRun(dagID, runs[rng.IntN(len(runs))].RunID)
	if err != nil {
		tb.Fatal(err)
	}
	if len(tis) == 0 {
		return
	}
	c := *tis[rng.IntN(len(tis))]
	if rng.IntN(2) == 0 {
		c.Queue = map[bool]string{true: "default", false: "default_changed"}[c.Queue == "default_changed"]
	} else {
		c.Pool = map[bool]string{true: "default_pool", false: "other_pool"}[c.Pool == "other_pool"]
	}
	if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &c) }); err != nil {
		tb.Fatal(err)
	}
}

// TestAPIv2_TaskInstances_FilteredTotalAfterAWrite lists every DAG's
// task instances with a filter, in orders the store walks, after a write
// of one DAG's task instances of four, and checks through the store's
// rowsRead hook that the first page after it counts that DAG's again for
// total_entries, not every DAG's (filteredTITotal: each DAG's count
// remembered per version of its rows). Each answer is the sorting
// path's.
func TestAPIv2_TaskInstances_FilteredTotalAfterAWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tiftotw_b", "tiftotw_a", "tiftotw_c", "tiftotw_d"} {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
		varyTIKeys(t, ts.store, id, false)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	// A DAG's 320 task instances and its blocks counted again (a block
	// a run and task: two rows a task instance); every DAG's would be
	// four times as many.
	const recount = 2 * 320
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		// By id: the page's walk reads the four DAGs' task instances up
		// to its 50 picks (a seventh are up_for_retry).
		{"up_for_retry by id", "GET", all + "?limit=50&state=up_for_retry", "", recount + 2*50*7 + 2*4*4},
		// By -start_date: the start walk's 50 picks of the success
		// three in seven, their ties (ten a start) read together.
		{"success by -start_date", "GET", all + "?limit=50&state=success&order_by=-start_date", "", recount + 4*50*7/3 + 4*16},
		{"queue by end_date", "GET", all + "?limit=20&queue=default&pool=default_pool&order_by=end_date", "", recount + 3*20 + 4*16},
		// The batch (POST .../list) counts its filters' total the same way.
		{"batch, failed by id", "POST", batch, `{"state": ["failed"], "page_limit": 30}`, recount + 2*30*7 + 2*4*4},
		{"batch, a task by -end_date", "POST", batch, `{"task_ids": ["t2"], "order_by": "-end_date", "page_limit": 30}`, recount + 4*30*4 + 4*16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFirstPageAfterWrite(t, ts, &read, tc.method, apiV2Prefix+tc.path, tc.body, "tiftotw_a", tc.maxRead)
		})
	}
}

// checkFirstPageAfterWrite asks path with method and body (counted and
// remembered), writes one
// task instance of dagID (changeOneTI), and holds the first page after it
// to the sorting path's answer and to at most maxRead rows (the store's
// rowsRead hook adding to *read).
func checkFirstPageAfterWrite(t *testing.T, ts *testServer, read *int, method, path, body, dagID string, maxRead int) {
	t.Helper()
	ask := func() response { return ts.do(t, method, path, body, "Content-Type", "application/json") }
	ask()
	changeOneTI(t, ts.store, dagID)
	ts.srv.ops.sortLists.Store(true)
	want := ask()
	ts.srv.ops.sortLists.Store(false)
	*read = 0
	got := ask()
	if got.status != 200 || got.body != want.body {
		t.Fatalf("after a write: %d %.300s, want the sorted %.300s", got.status, got.body, want.body)
	}
	if *read > maxRead {
		t.Errorf("the first page after a write read %d rows, want at most %d", *read, maxRead)
	}
	t.Logf("the first page after a write read %d rows", *read)
}
