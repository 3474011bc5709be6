package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addRunsWithTIIDs stores n finished runs of dag, one a minute from base,
// with task instances as edition 3 makes them: each with an id (uuid7),
// a run's given to the store in one write, and the last task expanded
// into three mapped instances (map_index 0, 1, 2) in every third run.
// shuffled hands the ids out in an order shuffled against the runs' (a
// restore of rows whose ids another clock made), so that runs' id ranges
// overlap; otherwise in the order of the runs, as one airlite makes them.
func addRunsWithTIIDs(tb testing.TB, store *Store, dag *DAG, base time.Time, n int, shuffled bool) {
	tb.Helper()
	ids := make([]string, n*(len(dag.Tasks)+2))
	for i := range ids {
		ids[i] = newTaskInstanceID()
	}
	if shuffled {
		rand.New(rand.NewPCG(uint64(n), 1)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	}
	next := 0
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			date := base.Add(time.Duration(i) * time.Minute)
			start, end := date.Add(time.Second), date.Add(time.Minute)
			run := &DagRun{ID: id, DagID: dag.DagID, RunID: "scheduled__" + isoFormat(date), ExecutionDate: date,
				State: RunSuccess, Conf: json.RawMessage(`{}`), StartDate: &start, EndDate: &end, RunType: "scheduled"}
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
			var tis []*TaskInstance
			for k, t := range dag.Tasks {
				mapIndexes := []int{-1}
				if k == len(dag.Tasks)-1 && i%3 == 0 {
					mapIndexes = []int{0, 1, 2}
				}
				for _, mi := range mapIndexes {
					s, e, dur := start, end, float64(k)
					tis = append(tis, &TaskInstance{ID: ids[next], DagID: run.DagID, RunID: run.RunID, TaskID: t.TaskID, MapIndex: mi,
						ExecutionDate: date, State: TaskSuccess, TryNumber: 1, StartDate: &s, EndDate: &e, Duration: &dur,
						Pool: "default_pool", PoolSlots: 1, Queue: "default", Operator: t.Operator})
					next++
				}
			}
			if err := putTaskInstancesTxn(txn, tis...); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		tb.Fatalf("add runs of %s: %v", dag.DagID, err)
	}
}

// TestAPIv2_TaskInstances_ReadThePage lists pages of task instances of
// three DAGs' 80 runs each (1,122 task instances, 243 of them mapped; one
// DAG's ids shuffled across its runs) in get_task_instances' default
// order (map_index, then id) and the batch's (id) and checks, through the
// store's rowsRead hook, that a page reads about its own rows and those
// its offset skips, not the runs' task instances: at most the offset, a
// block and a task instance per row of the page, and a block at the
// start and the end of each walk merged (one per DAG; by id two per DAG,
// and one per mapped block the page reaches): whole blocks are passed for the offset where no other
// walk reaches into them, the shuffled DAG's task instances one by one
// (blocks of one). Each answer must be, byte for byte,
// the one a filter that drops nothing gives (a filtered merge, which
// TestTaskInstances_FilteredPagesAsTheSort holds to the sorting path).
func TestAPIv2_TaskInstances_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tipaged_b", "tipaged_a", "tipaged_c"} {
		dag := benchDAG(t, id, 4)
		if _, err := ts.store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		addRunsWithTIIDs(t, ts.store, dag, base, 80, i == 0)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tipaged_a/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	for _, tc := range []struct {
		name, method, path, body, sorted, sortedBody string // sorted: the same list through the sorting path
		maxRead                                      int
	}{
		{"every DAG", "GET", all + "?limit=50", "", all + "?limit=50&dag_id_pattern=%25", "", 2*50 + 2*3},
		{"every DAG, offset", "GET", all + "?limit=20&offset=300", "", all + "?limit=20&offset=300&dag_id_pattern=%25", "", 300 + 2*20 + 2*3},
		{"every DAG, by map_index", "GET", all + "?limit=30&offset=10&order_by=map_index", "",
			all + "?limit=30&offset=10&order_by=map_index&dag_id_pattern=%25", "", 10 + 2*30 + 2*3},
		{"every DAG, the mapped ones", "GET", all + "?limit=30&offset=900", "", all + "?limit=30&offset=900&dag_id_pattern=%25", "", 900 + 2*30 + 2*3},
		{"every DAG, past the end", "GET", all + "?limit=10&offset=2000", "", all + "?limit=10&offset=2000&dag_id_pattern=%25", "", 0},
		{"one DAG", "GET", dagA + "?limit=25", "", dagA + "?limit=25&dag_id_pattern=%25", "", 2*25 + 2},
		{"one DAG, offset", "GET", dagA + "?limit=25&offset=150", "", dagA + "?limit=25&offset=150&dag_id_pattern=%25", "", 150 + 2*25 + 2},
		{"batch, two DAGs", "POST", batch, `{"dag_ids": ["tipaged_c", "tipaged_a"], "page_limit": 40, "page_offset": 60}`,
			batch, `{"dag_ids": ["tipaged_c", "tipaged_a"], "page_limit": 40, "page_offset": 60, "queue": ["default"]}`, 60 + 2*40 + 2*2*5},
		{"batch, every DAG", "POST", batch, `{"page_limit": 15}`, batch, `{"page_limit": 15, "queue": ["default"]}`, 2*15 + 2*3*5},
		{"batch, by map_index", "POST", batch, `{"dag_ids": ["tipaged_b"], "order_by": "map_index", "page_offset": 5}`,
			batch, `{"dag_ids": ["tipaged_b"], "order_by": "map_index", "page_offset": 5, "queue": ["default"]}`, 5 + 2*100 + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &read, tc.method, tc.path, tc.body, tc.sorted, tc.sortedBody, tc.maxRead)
		})
	}
}

// TestAPIv2_TaskInstances_PendingReadThePage is ReadThePage for runs a v2
// trigger made: the newest blocks of a DAG wait in its run count
// (runCount.Pending), the others in groups (tableTIOrderGroups), new
// tries and mapped instances are in ti_order, and a page merges them, two
// more walks per DAG: it reads about its own rows and those its offset
// skips, in both orders, across the lines between them, and each answer
// is the sorting path's.
func TestAPIv2_TaskInstances_PendingReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []struct {
		id   string
		runs int
	}{{"tipend_a", 2*tiPendingMax + 7}, {"tipend_b", 5}} {
		dag := benchDAG(t, d.id, 4)
		if _, err := ts.store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		triggerRunsV3(t, ts.store, dag, base, "run", d.runs)
	}
	if c := runCountTxn(ts.store.read(), "tipend_a"); len(c.Pending) != 7 {
		t.Fatalf("tipend_a: %d blocks pending, want 7", len(c.Pending))
	}
	// New tries in a grouped block and a pending one, t3 of run_5 expanded.
	var changed []*TaskInstance
	for _, runID := range []string{"run_1", "run_20", "run_36"} {
		ti, err := ts.store.TaskInstance("tipend_a", runID, "t0")
		if err != nil {
			t.Fatal(err)
		}
		next := *ti
		nextTryID(&next)
		changed = append(changed, &next)
	}
	ti, err := ts.store.TaskInstance("tipend_a", "run_5", "t3")
	if err != nil {
		t.Fatal(err)
	}
	for mi := range 3 {
		m := *ti
		m.MapIndex = mi
		if mi > 0 {
			nextTryID(&m)
		}
		changed = append(changed, &m)
	}
	if err := ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, changed...) }); err != nil {
		t.Fatal(err)
	}
	checkOrderBlocks(t, ts.store, "retried and expanded")
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tipend_a/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	// Walks: tipend_a's ti_order, groups and pending blocks (by id, its
	// unmapped ti_order blocks, mapped ones and the two); tipend_b's
	// pending blocks.
	for _, tc := range []struct {
		name, method, path, body, sorted, sortedBody string
		maxRead                                      int
	}{
		{"one DAG", "GET", dagA + "?limit=25", "", dagA + "?limit=25&dag_id_pattern=%25", "", 2*25 + 2*3},
		{"one DAG, across the pending", "GET", dagA + "?limit=20&offset=120", "", dagA + "?limit=20&offset=120&dag_id_pattern=%25", "", 120 + 2*20 + 2*3},
		{"one DAG, the new tries", "GET", dagA + "?limit=10&offset=150", "", dagA + "?limit=10&offset=150&dag_id_pattern=%25", "", 150 + 2*10 + 2*3},
		{"one DAG, by id", "GET", dagA + "?limit=10&offset=15&order_by=id", "", dagA + "?limit=10&offset=15&order_by=id&dag_id_pattern=%25", "", 15 + 2*10 + 2*4},
		{"one DAG, by id, the pending", "GET", dagA + "?limit=10&offset=140&order_by=id", "", dagA + "?limit=10&offset=140&order_by=id&dag_id_pattern=%25", "", 140 + 2*10 + 2*4},
		{"every DAG", "GET", all + "?limit=50", "", all + "?limit=50&dag_id_pattern=%25", "", 2*50 + 2*4},
		{"every DAG, offset", "GET", all + "?limit=30&offset=140", "", all + "?limit=30&offset=140&dag_id_pattern=%25", "", 140 + 2*30 + 2*4},
		{"batch, every DAG", "POST", batch, `{"page_limit": 15, "page_offset": 150}`, batch, `{"page_limit": 15, "page_offset": 150, "queue": ["default"]}`, 150 + 2*15 + 2*5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &read, tc.method, tc.path, tc.body, tc.sorted, tc.sortedBody, tc.maxRead)
		})
	}
}

// TestStore_TaskInstanceOrder_FollowsWrites checks that the order of task
// instances (ti_order) follows every write of them: a new try's id, a
// mapped task's expansion, a deleted task instance, a deleted run and a
// deleted DAG, a reset and a snapshot's restore; after each, a page of
// every task instance equals the sorted list of the task instances
// stored, and the counts say how many have an id.
func TestStore_TaskInstanceOrder_FollowsWrites(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{benchDAG(t, "order_a", 3), benchDAG(t, "order_b", 2)}
	for i, dag := range dags {
		if _, err := store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		addRunsWithTIIDs(t, store, dag, base, 6, i == 0)
	}
	check := func(step string) {
		t.Helper()
		type key struct {
			mapIndex int
			id, name string
		}
		var want []key
		for _, dag := range dags {
			runs, err := store.RunsOfDag(dag.DagID, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, run := range runs {
				tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
				if err != nil {
					t.Fatal(err)
				}
				for _, ti := range tis {
					want = append(want, key{ti.MapIndex, ti.ID, ti.DagID + "/" + ti.RunID + "/" + ti.TaskID})
				}
			}
		}
		for _, byID := range []bool{false, true} {
			slices.SortFunc(want, func(a, b key) int {
				if byID {
					return strings.Compare(a.id, b.id)
				}
				return cmp.Or(cmp.Compare(a.mapIndex, b.mapIndex), strings.Compare(a.id, b.id))
			})
			page, total, ok, err := store.TaskInstanceOrderPage(nil, byID, 0, 10000)
			if err != nil || !ok {
				t.Fatalf("%s: page: ok %v, %v", step, ok, err)
			}
			var got []key
			for _, r := range page {
				got = append(got, key{r.TI.MapIndex, r.TI.ID, r.TI.DagID + "/" + r.Run.RunID + "/" + r.TI.TaskID})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || total != len(want) {
				t.Errorf("%s, by id %v: page (total %d):\n%v\nwant (%d):\n%v", step, byID, total, got, len(want), want)
			}
		}
	}
	check("added")

	runs, err := store.RunsOfDag("order_a", "")
	if err != nil {
		t.Fatal(err)
	}
	ti, err := store.TaskInstance("order_a", runs[1].RunID, "t0")
	if err != nil {
		t.Fatal(err)
	}
	retried := *ti
	nextTryID(&retried)
	expanded := *ti
	expanded.TaskID, expanded.MapIndex = "t1", 0
	expanded.ID = newTaskInstanceID()
	if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &retried, &expanded) }); err != nil {
		t.Fatal(err)
	}
	runsB, err := store.RunsOfDag("order_b", "")
	if err != nil {
		t.Fatal(err)
	}
	tiB, err := store.TaskInstance("order_b", runsB[1].RunID, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var mappedB []*TaskInstance
	for mi := range 3 {
		m := *tiB
		m.MapIndex, m.ID = mi, newTaskInstanceID()
		mappedB = append(mappedB, &m)
	}
	if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mappedB...) }); err != nil {
		t.Fatal(err)
	}
	check("a new try's id, t1 expanded in both DAGs")

	if _, err := store.DeleteTaskInstance("order_a", runs[2].RunID, "t2", -1); err != nil {
		t.Fatal(err)
	}
	check("a task instance deleted")

	if err := store.update(func(txn *memdb.Txn) error { return deleteRunTxn(txn, runs[3]) }); err != nil {
		t.Fatal(err)
	}
	check("a run deleted")

	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(store, path, base); err != nil {
		t.Fatal(err)
	}
	if store, _, err = restoreSnapshot(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	check("restored")

	if _, err := store.DeleteDag("order_b", nil); err != nil {
		t.Fatal(err)
	}
	dags = dags[:1]
	check("a DAG deleted")
	it, err := store.read().Get(tableTIOrderMapped, indexID+"_prefix", "order_b")
	if err != nil {
		t.Fatal(err)
	}
	if raw := it.Next(); raw != nil {
		t.Errorf("the deleted DAG's mapped block %+v is left", raw)
	}
}

// TestStore_TaskInstanceOrder_RandomWrites applies random writes (new
// tries, task instances deleted, mapped tasks expanded, instances added
// with ids from anywhere in the order) to the task instances of two DAGs,
// one of them made with ids out of order, and checks after each that
// pages in both orders, of every DAG and of some, equal the task
// instances stored, sorted: the blocks split and shrink as ids land
// among them.
func TestStore_TaskInstanceOrder_RandomWrites(t *testing.T) {
	t.Parallel()
	store, _ := benchStoreWith(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{benchDAG(t, "random_a", 4), benchDAG(t, "random_b", 3)}
	for _, dag := range dags {
		if _, err := store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		addRunsWithTIIDs(t, store, dag, base, 8, dag.DagID == "random_b")
	}
	pool := make([]string, 1000)
	for i := range pool {
		pool[i] = newTaskInstanceID()
	}
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	check := func(step string) {
		t.Helper()
		checkOrderPages(t, store, dags, [][]string{nil, {"random_a"}, {"random_b", "random_a"}}, rng, step)
	}
	check("added")
	for step := range 300 {
		dag := dags[rng.IntN(len(dags))]
		runs, err := store.RunsOfDag(dag.DagID, "")
		if err != nil {
			t.Fatal(err)
		}
		run := runs[rng.IntN(len(runs))]
		tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		task := dag.Tasks[rng.IntN(len(dag.Tasks))].TaskID
		var what string
		err = store.update(func(txn *memdb.Txn) error {
			i := slices.IndexFunc(tis, func(ti *TaskInstance) bool { return ti.TaskID == task })
			switch op := rng.IntN(4); {
			case i < 0 || op == 0: // (re)made with an id from anywhere
				what = "add " + task
				ti := &TaskInstance{ID: pool[0], DagID: dag.DagID, RunID: run.RunID, TaskID: task, MapIndex: -1,
					ExecutionDate: run.ExecutionDate, State: TaskNone, Pool: "default_pool", Queue: "default"}
				pool = pool[1:]
				return putTaskInstancesTxn(txn, ti)
			case op == 1: // a new try
				what = "retry " + task
				next := *tis[i]
				next.ID = pool[0]
				pool = pool[1:]
				return putTaskInstancesTxn(txn, &next)
			case op == 2 && tis[i].MapIndex == -1: // expanded, index 0 keeping the id
				what = "expand " + task
				var mapped []*TaskInstance
				for mi := range 2 + rng.IntN(6) { // mapped blocks by id overlap across map indexes
					m := *tis[i]
					m.MapIndex = mi
					if mi > 0 {
						m.ID = pool[0]
						pool = pool[1:]
					}
					mapped = append(mapped, &m)
				}
				return putTaskInstancesTxn(txn, mapped...)
			default:
				what = "delete " + task
				return nil
			}
		})
		if err != nil {
			t.Fatalf("step %d, %s: %v", step, what, err)
		}
		if what == "delete "+task {
			for _, ti := range tis {
				if ti.TaskID == task {
					if _, err := store.DeleteTaskInstance(ti.DagID, ti.RunID, ti.TaskID, ti.MapIndex); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
		}
		check(fmt.Sprintf("step %d, %s of %s", step, what, run.RunID))
	}
}

// TestAPIv2_TaskInstances_ByIDReadThePage lists task instances by id
// (order_by=id, and the batch's default) of a DAG whose last task each of
// 30 runs expands into 80 mapped instances: a page merges the DAG's
// unmapped blocks with its mapped ones as their ids come (the mapped
// blocks in one index by id), so that it reads about its own rows and
// those its offset skips, not a walk per map index (81 of them); each
// answer the sorting path's.
func TestAPIv2_TaskInstances_ByIDReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dag := benchDAG(t, "wide", 3)
	if _, err := ts.store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	addRunsWithTIIDs(t, ts.store, dag, base, 30, false)
	expandLastTask(t, ts.store, dag, 80)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const dagTIs = "/dags/wide/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	for _, tc := range []struct {
		name, method, path, body, sorted, sortedBody string
		maxRead                                      int
	}{
		{"by id", "GET", dagTIs + "?limit=20&order_by=id", "", dagTIs + "?limit=20&order_by=id&dag_id_pattern=%25", "", 3*20 + 4},                                     // 116 before
		{"by id, offset", "GET", dagTIs + "?limit=20&offset=500&order_by=id", "", dagTIs + "?limit=20&offset=500&order_by=id&dag_id_pattern=%25", "", 500 + 3*20 + 4}, // 632
		{"batch", "POST", batch, `{"dag_ids": ["wide"], "page_limit": 25, "page_offset": 40}`,
			batch, `{"dag_ids": ["wide"], "page_limit": 25, "page_offset": 40, "queue": ["default"]}`, 40 + 3*25 + 4}, // 168
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &read, tc.method, tc.path, tc.body, tc.sorted, tc.sortedBody, tc.maxRead)
		})
	}
}

// TestBlockMembers_AsTheScan holds blockMembers' binary searches to a
// look at each task instance of random runs' rows (tasks of several map
// indexes, ids in and out of blocks' ranges).
func TestBlockMembers_AsTheScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 5))
	for round := range 300 {
		row := &runTasks{DagID: "d", RunID: "r"}
		ids := rng.Perm(60) // unique ids, out of order
		for task := range 1 + rng.IntN(5) {
			width := rng.IntN(6) // 0: unmapped
			for mi := -1; mi < width; mi++ {
				if mi == -1 && width > 0 && rng.IntN(2) == 0 {
					continue
				}
				row.TIs = append(row.TIs, &TaskInstance{TaskID: fmt.Sprintf("t%d", task), MapIndex: mi, ID: fmt.Sprintf("%03d", ids[len(row.TIs)])})
			}
		}
		lo := fmt.Sprintf("%03d", rng.IntN(60))
		hi := fmt.Sprintf("%03d", rng.IntN(60))
		if hi < lo {
			lo, hi = hi, lo
		}
		b := &tiOrderRow{MapIndex: rng.IntN(7) - 1, Lo: lo, Hi: hi}
		var want []*TaskInstance
		for _, ti := range row.TIs {
			if ti.MapIndex == b.MapIndex && ti.ID >= b.Lo && ti.ID <= b.Hi {
				want = append(want, ti)
			}
		}
		slices.SortFunc(want, func(a, b *TaskInstance) int { return strings.Compare(a.ID, b.ID) })
		if got := blockMembers(row, b); !slices.Equal(got, want) {
			t.Fatalf("round %d: block %+v of %d task instances: %d members, want %d", round, b, len(row.TIs), len(got), len(want))
		}
	}
}

// TestMappedTaskInstances_ReadThePage lists pages of the 500 mapped
// instances of a run's task (get_mapped_task_instances, both APIs) by
// map_index, either way, and checks through the store's rowsRead hook
// that a page reads its own instances and the run's row, not the task's
// every instance; each answer the one a filter that drops nothing gives
// (the path that reads them all and sorts).
func TestMappedTaskInstances_ReadThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			dag := benchDAG(t, "wide", 2)
			if _, err := ts.store.UpsertDAG(dag); err != nil {
				t.Fatal(err)
			}
			addRunsWithTIIDs(t, ts.store, dag, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 2, false)
			expandLastTask(t, ts.store, dag, 500)
			runs, err := ts.store.RunsOfDag("wide", "")
			if err != nil {
				t.Fatal(err)
			}
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			prefix, all := apiV2Prefix, "&pool=default_pool"
			if e == edition2 {
				prefix, all = apiV1Prefix, "&state=success"
			}
			base := prefix + "/dags/wide/dagRuns/" + url.PathEscape(runs[1].RunID) + "/taskInstances/t1/listMapped"
			for _, tc := range []struct {
				query   string
				maxRead int
			}{
				{"?limit=20", 20 + 4},
				{"?limit=20&offset=100", 20 + 4},
				{"?limit=25&offset=30&order_by=-map_index", 25 + 4},
				{"?limit=10&offset=495", 5 + 4},
			} {
				t.Run(tc.query, func(t *testing.T) {
					want := ts.do(t, http.MethodGet, base+tc.query+all, "")
					ts.do(t, http.MethodGet, base+tc.query, "")
					read = 0
					got := ts.do(t, http.MethodGet, base+tc.query, "")
					if got.status != 200 || got.body != want.body {
						t.Errorf("answer %d differs from the filtered one:\n got %.400s\nwant %.400s", got.status, got.body, want.body)
					}
					if !strings.Contains(got.body, `"total_entries":500`) && !strings.Contains(got.body, `"total_entries": 500`) {
						t.Errorf("total not 500: %.300s", got.body)
					}
					if read == 0 || read > tc.maxRead {
						t.Errorf("read %d rows, want 1 to %d", read, tc.maxRead)
					}
				})
			}
		})
	}
}

// TestTaskInstances_FilteredPagesAsTheSort asks random filtered listings
// of task instances (states, pools, task patterns, start ranges, the
// mapped ones, one DAG or every DAG) in the merge's orders (map_index
// then id; id; either way), each twice and interleaved so that remembered
// counts of other filters are at hand, and holds each to the sorting
// path's answer (operations.sortedTaskInstances); and checks
// through rowsRead that a filtered page reads the task instances of its
// order up to its last one once its count is known.
func TestTaskInstances_FilteredPagesAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tifilter_b", "tifilter_a"} {
		dag := benchDAG(t, id, 4)
		if _, err := ts.store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		addRunsWithTIIDs(t, ts.store, dag, base, 40, i == 0)
		// A second version of the DAG, which the odd runs' task
		// instances ran with.
		v1, err := ts.store.LatestDagVersion(id)
		if err != nil {
			t.Fatal(err)
		}
		changedDAG := *dag
		changedDAG.Description = "version 2"
		if err := ts.store.update(func(txn *memdb.Txn) error { return recordVersionTxn(txn, &changedDAG, base) }); err != nil {
			t.Fatal(err)
		}
		v2, err := ts.store.LatestDagVersion(id)
		if err != nil || v2.Number != 2 {
			t.Fatalf("version 2: %+v (%v)", v2, err)
		}
		// Every third task instance failed, in another pool.
		runs, err := ts.store.RunsOfDag(id, "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r, run := range runs {
			tis, err := ts.store.TaskInstancesOfRun(id, run.RunID)
			if err != nil {
				t.Fatal(err)
			}
			var changed []*TaskInstance
			for _, ti := range tis {
				c := *ti
				c.DagVersionID = []string{v1.ID, v2.ID}[r%2]
				if n++; n%3 == 0 {
					c.State, c.Pool = TaskFailed, "other_pool"
				}
				changed = append(changed, &c)
			}
			if err := ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, changed...) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := ts.srv.ops
	rng := rand.New(rand.NewPCG(21, 11))
	ids := func(rows []RunTaskInstance) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.TI.ID)
		}
		return out
	}
	for i := range 300 {
		q := &tiSearch{offset: rng.IntN(200), limit: 1 + rng.IntN(40)}
		if rng.IntN(2) == 0 {
			q.dagIDs = [][]string{{"tifilter_a"}, {"tifilter_b", "tifilter_a"}}[rng.IntN(2)]
		}
		switch rng.IntN(6) {
		case 5:
			q.versionNumbers = [][]int64{{1}, {2}, {2, 1}, {3}}[rng.IntN(4)]
		case 0:
			q.states = []TaskState{TaskFailed}
		case 1:
			q.pools = []string{"default_pool"}
		case 2:
			q.taskPattern = likePattern([]string{"t1", "t", "zz"}[rng.IntN(3)])
		case 3:
			at := base.Add(time.Duration(rng.IntN(40)) * time.Minute)
			q.start = timeBounds{gte: &at}
		default:
			q.mappedOnly = true
		}
		first := []sortKey{{attr: "map_index"}, {attr: "id"}, {attr: "map_index", desc: true}, {attr: "id", desc: true}}[rng.IntN(4)]
		if rng.IntN(3) > 0 {
			q.order = []sortKey{first}
		}
		// The same order with keys after the unique id, through the
		// sorting path.
		sorted := *q
		sorted.order = []sortKey{first, {attr: "id", desc: first.desc}, {attr: "start_date"}}
		if q.order == nil { // the batch's default, id
			sorted.order = []sortKey{{attr: "id"}, {attr: "start_date"}}
		}
		want, wantTotal, err := o.sortedTaskInstances(&sorted)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			got, total, err := o.searchTaskInstances(q)
			ts.store.rowsRead = nil
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), ids(want)) || total != wantTotal {
				t.Fatalf("listing %d (%+v): %v of %d, want %v of %d", i, *q, ids(got), total, ids(want), wantTotal)
			}
			// Remembered, the count costs nothing: the merge reads the
			// task instances of the order up to the page's last, and a
			// block each at most, and a block at each walk's ends.
			if round == 1 && len(got) > 0 {
				all, _, err := o.searchTaskInstances(&tiSearch{dagIDs: q.dagIDs, order: sorted.order, limit: 1 << 30})
				if err != nil {
					t.Fatal(err)
				}
				pos := slices.Index(ids(all), got[len(got)-1].TI.ID)
				if maxRead := 2*(pos+1) + 16; read > maxRead {
					t.Errorf("listing %d: read %d rows for a page ending at %d of the order, want at most %d", i, read, pos, maxRead)
				}
			}
		}
	}
}

// checkOrderPages checks that a page at a random offset of the task
// instances of each of dagSets (nil: every DAG), in both default orders
// and both ways (TIOrderPage's walks down), equals the task instances
// dags' runs have, sorted.
func checkOrderPages(t *testing.T, store *Store, dags []*DAG, dagSets [][]string, rng *rand.Rand, step string) {
	t.Helper()
	type key struct {
		mapIndex int
		id, name string
	}
	var want []key
	for _, dag := range dags {
		runs, err := store.RunsOfDag(dag.DagID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range runs {
			tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ti := range tis {
				want = append(want, key{ti.MapIndex, ti.ID, ti.DagID + "/" + ti.RunID + "/" + ti.TaskID})
			}
		}
	}
	for _, dagIDs := range dagSets {
		for _, o := range []struct{ byID, desc bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			byID := o.byID
			var w []key
			for _, k := range want {
				if dagIDs == nil || slices.Contains(dagIDs, strings.Split(k.name, "/")[0]) {
					w = append(w, k)
				}
			}
			slices.SortFunc(w, func(a, b key) int {
				if byID {
					return strings.Compare(a.id, b.id)
				}
				return cmp.Or(cmp.Compare(a.mapIndex, b.mapIndex), strings.Compare(a.id, b.id))
			})
			if o.desc {
				slices.Reverse(w)
			}
			offset, limit := rng.IntN(len(w)+1), 1+rng.IntN(15)
			page, total, ok, err := store.TaskInstanceOrderPage(dagIDs, byID, offset, limit)
			if o.desc {
				page, total, ok, err = store.TIOrderPage(TIOrderQuery{DagIDs: dagIDs, ByID: byID, Desc: true, Offset: offset, Limit: limit})
			}
			if err != nil || !ok {
				t.Fatalf("%s: page of %v: ok %v, %v", step, dagIDs, ok, err)
			}
			var got []key
			for _, r := range page {
				got = append(got, key{r.TI.MapIndex, r.TI.ID, r.TI.DagID + "/" + r.Run.RunID + "/" + r.TI.TaskID})
			}
			end := min(offset+limit, len(w))
			if fmt.Sprint(got) != fmt.Sprint(w[offset:end]) || total != len(w) {
				t.Fatalf("%s: %v by id %v down %v at %d: total %d, want %d\n got %v\nwant %v", step, dagIDs, byID, o.desc, offset, total, len(w), got, w[offset:end])
			}
		}
	}
}
