package main

import (
	"math/rand/v2"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_TaskInstances_LeadGroupsReadThePage lists every run's task
// instances (of every DAG, one DAG) in orders led by state or try_number
// with another key after it (the Airflow 3 UI's state column, then its
// start: order_by=state,-start_date), either way, with and without
// filters, and checks through the store's rowsRead hook that a page
// passes the groups before it by their counts and picks its group's task
// instances along the next key's walk: about its own rows over the
// group's share of the walk, not every task instance of the group it
// starts in (read and sorted before: a state's three sevenths, a try's
// third). Each answer is the sorting path's.
func TestAPIv2_TaskInstances_LeadGroupsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tilead_b", "tilead_a", "tilead_c"} {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
		varyTIKeys(t, ts.store, id, false)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tilead_a/dagRuns/~/taskInstances"
	const walks = 4 // a DAG's walks' first chunks or blocks
	// success is three of varyTIKeys' seven states, each try number a
	// third: a picked row costs 7/3 and 3 entries of the walk (and a
	// chunk each 32 to 64 entries).
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		// failed, skipped (two sevenths) passed by their counts, then
		// the successes by -start_date.
		{"every DAG, state, -start_date, offset", "GET", all + "?limit=20&offset=360&order_by=state&order_by=-start_date", "", 2*(20+20)*7/3 + 3*walks},
		{"one DAG, -state, end_date, offset", "GET", dagA + "?limit=10&offset=60&order_by=-state&order_by=end_date", "", 2*(10+10)*7/3 + walks},
		{"every DAG, -try_number, duration", "GET", all + "?limit=25&order_by=-try_number&order_by=duration", "", 2*25*3 + 3*walks},
		{"every DAG, try_number, -id, offset", "GET", all + "?limit=20&offset=356&order_by=try_number&order_by=-id", "", 2*(20+20)*3 + 3*walks},
		{"every DAG, state, run_after", "GET", all + "?limit=20&offset=350&order_by=state&order_by=run_after", "", 2*(20+20)*7/3 + 3*walks},
		// A filter picks along the walk too (its counts remembered).
		{"one DAG, a task, -try_number, -start_date", "GET", dagA + "?limit=10&task_id=t1&order_by=-try_number&order_by=-start_date", "", 2*10*3*4 + walks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_LeadGroupsAsTheSort asks random listings of every
// run's task instances led by state or try_number (either way) with one
// or two keys after it, of one DAG, some or every DAG, filters or none,
// offsets into every group, between random writes, and holds each to
// the sorting path's answer.
func TestTaskInstances_LeadGroupsAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{addStartedRuns(t, store, "tilgsort_a", base, 30, true), addStartedRuns(t, store, "tilgsort_b", base, 24, false)}
	varyTIKeys(t, store, "tilgsort_a", false)
	varyTIKeys(t, store, "tilgsort_b", true) // NULL states, no start
	expandTwoTasks(t, store, dags[1], 3)
	rng := rand.New(rand.NewPCG(21, 17))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	seconds := []string{"start_date", "end_date", "duration", "run_after", "id", "logical_date", "state", "try_number",
		"map_index", "operator", "task_id", "data_interval_end", "rendered_map_index"}
	for i := range 600 {
		if i%6 == 0 {
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		lead := "state"
		if rng.IntN(3) == 0 {
			lead = "try_number"
		}
		q := randomOneKeyTISearch(rng, lead, dags)
		if rng.IntN(4) == 0 {
			q.offset = 100 + rng.IntN(250) // into the later groups, past the end
		}
		for range 1 + rng.IntN(2) {
			q.order = append(q.order, sortKey{attr: seconds[rng.IntN(len(seconds))], desc: rng.IntN(2) == 0})
		}
		if rng.IntN(8) == 0 {
			q.states = []TaskState{TaskFailed, TaskNone, TaskSuccess}
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}

// TestAPIv2_TaskInstances_CountsAfterAWrite lists every DAG's task
// instances by operator alone, and led by state with a key after it,
// after a write of one DAG's task instances, and checks through the
// store's rowsRead hook that the first page after it counts that DAG's
// task instances again, not every DAG's (the counts are remembered per
// version of each DAG's task-instance rows). Each answer is the sorting
// path's.
func TestAPIv2_TaskInstances_CountsAfterAWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := []string{"ticount_b", "ticount_a", "ticount_c", "ticount_d"}
	for i, id := range ids {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
		varyTIKeys(t, ts.store, id, false)
		setOperators(t, ts.store, id, operatorOfTask)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	// A DAG's 320 task instances and its blocks counted again (a block
	// a run and task: two rows a task instance), and the page's walk.
	const recount = 2 * 320
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		{"operator", all + "?limit=50&order_by=operator", recount + 2*50*16/3 + 4*4},
		{"state, -start_date", all + "?limit=20&offset=460&order_by=state&order_by=-start_date", recount + 2*(20+20)*7/3 + 4*4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFirstPageAfterWrite(t, ts, &read, "GET", apiV2Prefix+tc.path, "", "ticount_a", tc.maxRead)
		})
	}
}

// changeOneTI writes one task instance of a DAG's first run: its
// queue changed (no order's key).
func changeOneTI(tb testing.TB, store *Store, dagID string) {
	tb.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	tis, err := store.TaskInstancesOfRun(dagID, runs[0].RunID)
	if err != nil {
		tb.Fatal(err)
	}
	c := *tis[0]
	c.Queue += "_changed"
	if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &c) }); err != nil {
		tb.Fatal(err)
	}
}

// TestAPIv2_TaskInstances_RenderedAfterAWrite lists every DAG's task
// instances by rendered_map_index after a write of one DAG's task
// instances, and checks through the store's rowsRead hook that the
// first page after it reads that DAG's mapped task instances again (the
// rendered part remembered per version of each DAG's rows), not every
// DAG's. Each answer is the sorting path's.
func TestAPIv2_TaskInstances_RenderedAfterAWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"tirendw_b", "tirendw_a", "tirendw_c"} {
		expandTwoTasks(t, ts.store, addStartedRuns(t, ts.store, id, base, 80, false), 3)
		setRenderedMapIndexes(t, ts.store, id, func(run, _ int, ti *TaskInstance) bool { return run%3 == 0 || ti.MapIndex == 1 })
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	// A DAG's 480 mapped task instances read again (a mapped block of
	// one costs its feeder's row, its own and its member), and the page.
	const reread = 3*480 + 50 + 3*8
	for _, path := range []string{"?limit=50&order_by=-rendered_map_index", "?limit=50&offset=1200&order_by=rendered_map_index"} {
		t.Run(path, func(t *testing.T) {
			checkFirstPageAfterWrite(t, ts, &read, "GET", apiV2Prefix+"/dags/~/dagRuns/~/taskInstances"+path, "", "tirendw_a", reread)
		})
	}
}
