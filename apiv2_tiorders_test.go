package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addStartedRuns stores n finished runs of a DAG of four tasks (ids
// shuffled across runs when shuffled, every third run's last task
// mapped into three; addRunsWithTIIDs) and dates their task instances'
// starts as a scheduler that runs two runs at once would: run i's task
// k starts at base + i/2 minutes + k%3 seconds, so task instances of
// two runs, and of other DAGs stored alike, start at the same time; every
// seventh run was cleared and ran again three hours later; every
// eleventh run's first task never started (no state, no dates).
func addStartedRuns(t *testing.T, store *Store, dagID string, base time.Time, n int, shuffled bool) *DAG {
	t.Helper()
	dag := benchDAG(t, dagID, 4)
	if _, err := store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	addRunsWithTIIDs(t, store, dag, base, n, shuffled)
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		t.Fatal(err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		for _, run := range runs {
			i := int(run.ExecutionDate.Sub(base) / time.Minute)
			tis, err := taskInstancesOfRunTxn(txn, dagID, run.RunID)
			if err != nil {
				return err
			}
			var changed []*TaskInstance
			for k, ti := range tis {
				c := *ti
				start := base.Add(time.Duration(i/2)*time.Minute + time.Duration(k%3)*time.Second)
				if i%7 == 0 {
					start = start.Add(3 * time.Hour)
				}
				end := start.Add(time.Minute)
				c.StartDate, c.EndDate = &start, &end
				if i%11 == 0 && k == 0 {
					c.State, c.StartDate, c.EndDate, c.Duration = TaskNone, nil, nil, nil
				}
				changed = append(changed, &c)
			}
			if err := putTaskInstancesTxn(txn, changed...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dag
}

// TestAPIv2_TaskInstances_StartOrderReadsThePage lists every run's task
// instances (of every DAG, one DAG, the batch's DAGs) by start_date, the
// Airflow 3 UI's default order of its task instance pages (-start_date,
// -run_after: TaskInstances.tsx), with and without filters, and checks
// through the store's rowsRead hook that a page reads about its own rows
// and what its offset skips, not every task instance of the runs (1,132
// here: read and sorted before). Each answer is the sorting path's
// (operations.sortLists).
func TestAPIv2_TaskInstances_StartOrderReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tistart_b", "tistart_a", "tistart_c"} {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
	}
	// Five of a DAG's runs running again: their started task instances
	// are in no chunk, and a page merges them, read once per version of
	// the DAG's runs and task instances.
	runs, err := ts.store.RunsOfDag("tistart_a", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs[40:45] {
		if _, err := ts.store.ForceRunState("tistart_a", run.RunID, RunRunning, base, runStateDates{}); err != nil {
			t.Fatal(err)
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tistart_a/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		// A page reads the chunks its walks pass (32 to 64 entries each,
		// one walk a DAG) and the task instances of the page and of the
		// starts it ties on.
		{"every DAG, the UI's order", "GET", all + "?limit=50&order_by=-start_date&order_by=-run_after", "", 2*50 + 3*4},
		{"every DAG, -start_date, offset", "GET", all + "?limit=20&offset=300&order_by=-start_date", "", 300/16 + 2*20 + 3*4},
		// (Ascending, the task instances without a start come first,
		// SQLite's NULL order: TIStartPage leaves those pages to the sort.)
		{"one DAG, -start_date, offset", "GET", dagA + "?limit=25&offset=100&order_by=-start_date", "", 100/16 + 2*25 + 4},
		{"one DAG, the running runs' part", "GET", dagA + "?limit=25&offset=250&order_by=-start_date", "", 250/16 + 2*25 + 4},
		{"one DAG, -start_date, then try_number", "GET", dagA + "?limit=25&order_by=-start_date&order_by=try_number", "", 2*25 + 4},
		{"batch, two DAGs, -start_date", "POST", batch, `{"dag_ids": ["tistart_c", "tistart_a"], "order_by": "-start_date", "page_limit": 40, "page_offset": 60}`,
			60/16 + 2*40 + 2*4},
		// Filters pick along the walk (their count remembered): the
		// task instances of the order up to the page's last; a task's
		// or a map index's filter passes the others' entries unread.
		{"every DAG, a task, the UI's order", "GET", all + "?limit=14&task_id=t1&order_by=-start_date&order_by=-run_after", "", 14 + 3*4},
		{"one DAG, a state, -start_date, offset", "GET", dagA + "?limit=10&offset=30&state=success&order_by=-start_date", "", 2*45 + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestAPIv2_TaskInstances_RunAfterOrderReadsThePage lists every run's
// task instances by their runs' run_after, the order of the Airflow 3
// UI's task overview (-run_after, a task's: Task/Overview/Overview.tsx),
// and checks that a page reads the runs (and their rows) up to its last
// task instance, and the task instances of those runs, not every task
// instance (read and sorted before). Each answer is the sorting path's.
func TestAPIv2_TaskInstances_RunAfterOrderReadsThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tiafter_b", "tiafter_a", "tiafter_c"} {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tiafter_a/dagRuns/~/taskInstances"
	// A run costs its run and its row, and its task instances when the
	// page takes some or a filter looks at them (five or six a run; a
	// task's filter: that task's, one or three).
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		{"one DAG, a task, the overview's order", dagA + "?limit=14&task_id=t3&order_by=-run_after", 15*2 + 14*3},
		{"every DAG, -run_after", all + "?limit=50&order_by=-run_after", (50/5 + 3*2) * (2 + 6)},
		{"every DAG, run_after, offset", all + "?limit=20&offset=200&order_by=run_after", 2*(200/5+3) + (20/5+3*2)*(2+6)},
		{"one DAG, -run_after, then start_date", dagA + "?limit=30&offset=31&order_by=-run_after&order_by=start_date", 2*(31/5+2) + (30/5+2)*(2+6)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, "GET", tc.path, "", tc.maxRead)
		})
	}
}

// TestAPIv2_TaskInstances_NamedRunsOrdersReadThePage lists the task
// instances of named runs whose last task expanded into 400 mapped
// instances in orders other than get_task_instances' default: by id (the
// batch's default), the UI's run page (-start_date, -run_after), its
// mapped task page (a task's, the same order), by state. A run's task
// instances in such an order are sorted once per version of its rows
// and remembered, so a page asked again reads its runs, their rows and
// its own task instances, not every task instance of the runs (402 a run
// before: read and sorted at each page). Each answer is the sorting
// path's.
func TestAPIv2_TaskInstances_NamedRunsOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dag := addStartedRuns(t, ts.store, "tinamed", base, 6, true)
	expandLastTask(t, ts.store, dag, 400)
	runs, err := ts.store.RunsOfDag("tinamed", "")
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	one := "/dags/tinamed/dagRuns/" + url.PathEscape(runs[2].RunID) + "/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	named := fmt.Sprintf(`"dag_run_ids": [%q, %q]`, runs[4].RunID, runs[1].RunID)
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"a run, the UI's order", "GET", one + "?limit=20&order_by=-start_date&order_by=-run_after", "", 2 + 20},
		{"a run, by id, offset", "GET", one + "?limit=20&offset=300&order_by=id", "", 2 + 20},
		{"a run's mapped task, the UI's order", "GET", one + "?limit=50&offset=100&task_id=t3&order_by=-start_date&order_by=-run_after", "", 2 + 50},
		{"a run, by state, a filter", "GET", one + "?limit=20&offset=10&state=success&order_by=state", "", 2 + 20},
		{"batch, two runs, by id (the batch's default)", "POST", batch, `{"dag_ids": ["tinamed"], ` + named + `, "page_offset": 500, "page_limit": 30}`, 4 + 30},
		{"batch, every DAG, -start_date", "POST", batch, `{` + named + `, "order_by": "-start_date", "page_limit": 30}`, 4 + 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// changeStartedTIs applies a random write to a random run of dag's task
// instances through the store's writes or as the scheduler's would (a
// new try with a new id and start, a try sent back without its dates, a
// clear, a forced state, a note, an expansion into mapped instances, a
// deletion of a task instance or of a run, the run's state forced: it
// settles or runs again), at now, which the caller moves on.
func changeStartedTIs(t *testing.T, store *Store, dag *DAG, rng *rand.Rand, now time.Time) {
	t.Helper()
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		return
	}
	run := runs[rng.IntN(len(runs))]
	tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tis) == 0 {
		return
	}
	ti := tis[rng.IntN(len(tis))]
	switch rng.IntN(11) {
	case 9, 10: // the run ends, or starts again
		state := []RunState{RunSuccess, RunFailed, RunRunning, RunQueued}[rng.IntN(4)]
		_, err = store.ForceRunState(dag.DagID, run.RunID, state, now, runStateDates{tiSetState: rng.IntN(2) == 0, restartFinished: true})
	case 0, 1: // a next try starts, at now or at a start another has
		next := *ti
		next.ID = newTaskInstanceID()
		start := now
		if other := tis[rng.IntN(len(tis))]; rng.IntN(3) == 0 && other.StartDate != nil {
			start = *other.StartDate
		}
		next.State, next.TryNumber, next.StartDate, next.EndDate = TaskRunning, ti.TryNumber+1, &start, nil
		err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) })
	case 2: // a try goes back to no state, without its dates
		next := *ti
		next.State, next.StartDate, next.EndDate, next.Duration = TaskNone, nil, nil, nil
		err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) })
	case 3:
		var pick func(*TaskInstance) bool
		if rng.IntN(2) == 0 {
			pick = func(x *TaskInstance) bool { return x.TaskID == ti.TaskID }
		}
		_, err = store.ClearTaskInstances(dag.DagID, run.RunID, pick, rng.IntN(2) == 0, now)
	case 4:
		_, _, err = store.ForceTaskStatesInRuns(dag.DagID, []string{run.RunID}, []string{ti.TaskID}, nil, TaskSuccess, now)
	case 5:
		note := "noted"
		_, err = store.SetTaskInstanceNote(ti.key(), &note)
	case 6:
		if ti.MapIndex != -1 {
			return
		}
		var mapped []*TaskInstance
		for mi := range 2 + rng.IntN(6) {
			m := *ti
			m.MapIndex = mi
			if mi > 0 {
				m.ID = newTaskInstanceID()
				m.StartDate = nil
				if rng.IntN(2) == 0 {
					start := now.Add(time.Duration(mi) * time.Second)
					m.StartDate = &start
				}
			}
			mapped = append(mapped, &m)
		}
		err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mapped...) })
	case 7:
		_, err = store.DeleteTaskInstance(ti.DagID, ti.RunID, ti.TaskID, ti.MapIndex)
	default:
		if len(runs) > 3 {
			err = store.DeleteRun(dag.DagID, run.RunID)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// checkTIStartChunks holds the store's start chunks to what its runs and
// task instances say: each DAG's settled runs' started task instances
// with ids, sorted, in chunks of one to twice tiStartChunkSize.
func checkTIStartChunks(t *testing.T, store *Store, step string) {
	t.Helper()
	txn := store.read()
	want := map[string][]tiStartEntry{}
	it, err := txn.Get(tableTasks, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		row := raw.(*runTasks)
		if run, err := runByRunIDTxn(txn, row.DagID, row.RunID); err != nil || !runSettled(run) {
			continue
		}
		for _, ti := range row.TIs {
			if e, ok := tiStartOf(ti); ok {
				want[ti.DagID] = append(want[ti.DagID], e)
			}
		}
	}
	got := map[string][]tiStartEntry{}
	it, err = txn.Get(tableTIStarts, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*tiStartChunk)
		if len(c.Entries) == 0 || len(c.Entries) > 2*tiStartChunkSize {
			t.Fatalf("%s: a chunk of %s holds %d entries", step, c.DagID, len(c.Entries))
		}
		got[c.DagID] = append(got[c.DagID], c.Entries...)
	}
	for dagID, entries := range want {
		slices.SortFunc(entries, compareTIStarts)
		if !slices.Equal(got[dagID], entries) {
			t.Fatalf("%s: the start chunks of %s hold %d entries, the task instances %d (or in another order)", step, dagID, len(got[dagID]), len(entries))
		}
	}
	for dagID := range got {
		if _, ok := want[dagID]; !ok {
			t.Fatalf("%s: start chunks of %s, which has no started task instance", step, dagID)
		}
	}
}

// TestTaskInstances_WalkedOrdersAsTheSort asks random listings of every
// run's task instances led by start_date or run_after (either way, alone
// or with another key after it, of one DAG, some or every DAG, filters
// or none, pages into the task instances without a start), between
// random writes, and holds each to the sorting path's answer, and the
// start chunks to the task instances after each write.
func TestTaskInstances_WalkedOrdersAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{addStartedRuns(t, store, "tisort_a", base, 30, true), addStartedRuns(t, store, "tisort_b", base, 24, false)}
	checkTIStartChunks(t, store, "set-up")
	rng := rand.New(rand.NewPCG(21, 4))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	seconds := []sortKey{{attr: "run_after", desc: true}, {attr: "run_after"}, {attr: "try_number", desc: true}, {attr: "state"},
		{attr: "map_index", desc: true}, {attr: "id"}, {attr: "logical_date", desc: true}, {attr: "start_date", desc: true}}
	for i := range 600 {
		if i%6 == 0 {
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
			checkTIStartChunks(t, store, fmt.Sprintf("write before listing %d", i))
		}
		lead := []string{"start_date", "run_after"}[rng.IntN(2)]
		q := &tiSearch{offset: rng.IntN(80), limit: 1 + rng.IntN(40), order: []sortKey{{attr: lead, desc: rng.IntN(3) > 0}}}
		if rng.IntN(8) == 0 {
			q.offset = 200 + rng.IntN(150) // into the task instances without a start
		}
		if rng.IntN(2) == 0 {
			q.order = append(q.order, seconds[rng.IntN(len(seconds))])
		}
		switch rng.IntN(3) {
		case 0:
			q.dagIDs = []string{dags[rng.IntN(2)].DagID}
		case 1:
			q.dagIDs = []string{"tisort_b", "tisort_a"}
		}
		switch rng.IntN(6) {
		case 0:
			q.states = []TaskState{TaskSuccess}
		case 1:
			q.taskIDs = []string{"t1"}
		case 2:
			q.mapIndexes = []int64{-1}
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}

// TestTaskInstances_NamedRunsOrdersAsTheSort asks random listings of the
// task instances of named runs (one run or several, of one DAG, some or
// every DAG, runs that are not there, filters or none) in orders other
// than (map_index, id), each twice (the second from the sort remembered)
// and again after random writes of the runs' task instances and of the
// runs, and holds each to the sorting path's answer.
func TestTaskInstances_NamedRunsOrdersAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{addStartedRuns(t, store, "tinsort_a", base, 12, true), addStartedRuns(t, store, "tinsort_b", base, 9, false)}
	rng := rand.New(rand.NewPCG(21, 5))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	keys := func(rows []RunTaskInstance) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.TI.DagID+"/"+r.Run.RunID+"/"+r.TI.ID)
		}
		return out
	}
	orders := [][]sortKey{nil, {{attr: "id"}}, {{attr: "id", desc: true}}, {{attr: "start_date", desc: true}, {attr: "run_after", desc: true}},
		{{attr: "start_date"}}, {{attr: "state"}}, {{attr: "duration", desc: true}}, {{attr: "end_date"}, {attr: "map_index", desc: true}},
		{{attr: "run_after", desc: true}}, {{attr: "try_number"}, {attr: "start_date", desc: true}}, {{attr: "map_index", desc: true}}}
	var pool []*tiSearch // listings asked again after writes
	for i := range 800 {
		if i%5 == 0 {
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		if i%25 == 0 { // a run's own write: its note
			runs, err := store.RunsOfDag("tinsort_a", "")
			if err != nil {
				t.Fatal(err)
			}
			note := fmt.Sprint("note ", i)
			if _, err := store.SetRunNote("tinsort_a", runs[rng.IntN(len(runs))].RunID, &note, now); err != nil {
				t.Fatal(err)
			}
		}
		if len(pool) > 0 && rng.IntN(2) == 0 { // a listing asked before a write
			q := pool[rng.IntN(len(pool))]
			c := *q
			want, wantTotal, err := o.sortedTaskInstances(&c)
			if err != nil {
				t.Fatal(err)
			}
			c = *q
			got, total, err := o.searchTaskInstances(&c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys(got), keys(want)) || total != wantTotal {
				t.Fatalf("listing %d again (%+v): %v of %d, want %v of %d", i, *q, keys(got), total, keys(want), wantTotal)
			}
			continue
		}
		q := &tiSearch{offset: rng.IntN(30), limit: 1 + rng.IntN(30), order: orders[rng.IntN(len(orders))]}
		if len(pool) < 8 {
			pool = append(pool, q)
		} else {
			pool[rng.IntN(len(pool))] = q
		}
		switch rng.IntN(3) {
		case 0:
			q.dagIDs = []string{dags[rng.IntN(2)].DagID}
		case 1:
			q.dagIDs = []string{"tinsort_b", "tinsort_a"}
		}
		var ids []string
		for _, dag := range dags {
			runs, err := store.RunsOfDag(dag.DagID, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				ids = append(ids, r.RunID)
			}
		}
		for range 1 + rng.IntN(3) {
			q.runIDs = append(q.runIDs, ids[rng.IntN(len(ids))])
		}
		if rng.IntN(6) == 0 {
			q.runIDs = append(q.runIDs, "no_such_run")
		}
		q.runIDs = inList(q.runIDs)
		switch rng.IntN(5) {
		case 0:
			q.states = []TaskState{TaskSuccess}
		case 1:
			q.taskIDs = []string{"t0", "t3"}
		case 2:
			q.taskIDs, q.mappedOnly = []string{"t3"}, true
		}
		sorted := *q
		want, wantTotal, err := o.sortedTaskInstances(&sorted)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			c := *q
			var read int
			store.rowsRead = func(n int) { read += n }
			got, total, err := o.searchTaskInstances(&c)
			store.rowsRead = nil
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys(got), keys(want)) || total != wantTotal {
				t.Fatalf("listing %d (%+v): %v of %d, want %v of %d", i, *q, keys(got), total, keys(want), wantTotal)
			}
			// Remembered, a page reads its runs and rows (at most two
			// runs a name: two DAGs) and its own task instances.
			if maxRead := 2*2*len(q.runIDs) + len(got); round == 1 && read > maxRead {
				t.Errorf("listing %d (%+v): read %d rows the second time, want at most %d", i, *q, read, maxRead)
			}
		}
	}
}

// checkTISearchAsSorted asks q twice, the second with what the first
// remembered (a filter's count, a sort), and holds each answer to the
// sorting path's (listing i of a randomized test).
func checkTISearchAsSorted(t *testing.T, o *operations, i int, q *tiSearch) {
	t.Helper()
	sorted := *q
	want, wantTotal, err := o.sortedTaskInstances(&sorted)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c := *q
		got, total, err := o.searchTaskInstances(&c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tiIDsOf(got), tiIDsOf(want)) || total != wantTotal {
			t.Fatalf("listing %d (%+v): %v of %d, want %v of %d", i, *q, tiIDsOf(got), total, tiIDsOf(want), wantTotal)
		}
	}
}

// tiIDsOf are the ids of a page's task instances, in its order.
func tiIDsOf(rows []RunTaskInstance) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.TI.ID)
	}
	return out
}

// twoStartedDAGs is the store the walk-against-sort tests draw their
// listings from: in edition 3, addStartedRuns' prefix_a of 30 runs (ids
// shuffled across runs) and prefix_b of 24, two of whose tasks
// expandTwoTasks expands into three mapped instances; base is the runs'
// first date.
func twoStartedDAGs(t *testing.T, prefix string) (*testServer, []*DAG, time.Time) {
	t.Helper()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{addStartedRuns(t, ts.store, prefix+"_a", base, 30, true), addStartedRuns(t, ts.store, prefix+"_b", base, 24, false)}
	expandTwoTasks(t, ts.store, dags[1], 3)
	return ts, dags, base
}
