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

// TestAPIv2_TaskInstances_KeyOrdersReadThePage lists every run's task
// instances (of every DAG, one DAG, the batch's DAGs) by state, end_date,
// duration and try_number, the Airflow 3 UI's other columns, either way,
// with and without filters, and by start_date ascending and descending
// past the started task instances (those without a start, NULL: first
// ascending, last descending), and checks through the store's rowsRead
// hook that a page reads about its own rows and what its offset skips,
// not every task instance of the runs (1,132 here: read and sorted
// before). Each answer is the sorting path's.
func TestAPIv2_TaskInstances_KeyOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tikey_b", "tikey_a", "tikey_c"} {
		addStartedRuns(t, ts.store, id, base, 80, i == 0)
		varyTIKeys(t, ts.store, id, false)
	}
	// Five of a DAG's runs running again: their task instances are in no
	// chunk, and a page merges them, read once per version of the DAG's
	// runs and task instances.
	runs, err := ts.store.RunsOfDag("tikey_a", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs[40:45] {
		if _, err := ts.store.ForceRunState("tikey_a", run.RunID, RunRunning, base, runStateDates{}); err != nil {
			t.Fatal(err)
		}
	}
	// Three ran again and settled: in the DAG's tail, read as the
	// running ones are.
	for _, state := range []RunState{RunRunning, RunSuccess} {
		for _, run := range runs[50:53] {
			if _, err := ts.store.ForceRunState("tikey_a", run.RunID, state, base, runStateDates{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tikey_a/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	// A page reads the chunks its walks pass (32 to 64 entries each, a
	// walk of chunks and one of the running runs' task instances a DAG)
	// and its own task instances; the offset passes entries unread.
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"every DAG, state", "GET", all + "?limit=50&order_by=state", "", 50 + 3*4},
		{"every DAG, -state, offset", "GET", all + "?limit=20&offset=300&order_by=-state", "", 300/16 + 20 + 3*4},
		{"one DAG, -end_date", "GET", dagA + "?limit=25&order_by=-end_date", "", 25 + 4},
		{"one DAG, end_date (NULLs first), offset", "GET", dagA + "?limit=25&offset=100&order_by=end_date", "", 100/16 + 25 + 4},
		{"every DAG, -duration", "GET", all + "?limit=50&order_by=-duration", "", 50 + 3*4},
		{"one DAG, duration, the running runs' part", "GET", dagA + "?limit=25&offset=250&order_by=duration", "", 250/16 + 25 + 4},
		{"every DAG, try_number", "GET", all + "?limit=50&offset=40&order_by=try_number", "", 40/16 + 50 + 3*4},
		{"batch, two DAGs, -duration", "POST", batch, `{"dag_ids": ["tikey_c", "tikey_a"], "order_by": "-duration", "page_limit": 40, "page_offset": 60}`,
			60/16 + 40 + 2*4},
		// Ties on a key that few task instances share are looked up
		// together and put in the order of the keys after it.
		{"one DAG, -end_date, then map_index", "GET", dagA + "?limit=25&order_by=-end_date&order_by=map_index", "", 2*25 + 4},
		// Filters pick along the walk (their count remembered).
		{"every DAG, a task, -duration", "GET", all + "?limit=14&task_id=t1&order_by=-duration", "", 14 + 3*4},
		// (success: three states in seven)
		{"one DAG, a state, end_date, offset", "GET", dagA + "?limit=10&offset=30&state=success&order_by=end_date", "", 3*40 + 4},
		// The start order past its started task instances: first
		// ascending, last descending.
		{"one DAG, start_date", "GET", dagA + "?limit=25&order_by=start_date", "", 25 + 4},
		{"every DAG, start_date, offset", "GET", all + "?limit=20&offset=100&order_by=start_date", "", 100/16 + 20 + 3*4},
		{"every DAG, -start_date, the last page", "GET", all + "?limit=30&offset=1110&order_by=-start_date", "", 1110/16 + 30 + 3*4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// checkTIKeyedChunks holds the store's keyed chunks to what its runs and
// task instances say: each DAG's settled runs' task instances with ids,
// in each order sorted, in chunks of one to twice tiStartChunkSize.
func checkTIKeyedChunks(t *testing.T, store *Store, step string) {
	t.Helper()
	txn := store.read()
	type at struct {
		order tiKeyOrder
		dagID string
	}
	tails := map[[2]string]bool{} // the settled runs of the tails, in no chunk
	it, err := txn.Get(tableTIKeyed, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if tail, ok := raw.(*tiKeyTail); ok {
			if len(tail.RunIDs) == 0 || len(tail.RunIDs) >= tiKeyTailMax {
				t.Fatalf("%s: the tail of %s holds %d runs", step, tail.DagID, len(tail.RunIDs))
			}
			for _, runID := range tail.RunIDs {
				if run, err := runByRunIDTxn(txn, tail.DagID, runID); err != nil || !runSettled(run) || tails[[2]string{tail.DagID, runID}] {
					t.Fatalf("%s: run %s of the tail of %s is not a settled run once there (%v)", step, runID, tail.DagID, err)
				}
				tails[[2]string{tail.DagID, runID}] = true
			}
		}
	}
	want := map[at][]tiStartEntry{}
	it, err = txn.Get(tableTasks, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		row := raw.(*runTasks)
		if run, err := runByRunIDTxn(txn, row.DagID, row.RunID); err != nil || !runSettled(run) || tails[[2]string{row.DagID, row.RunID}] {
			continue
		}
		for _, order := range tiKeyOrders {
			for _, ti := range row.TIs {
				if e, ok := tiKeyOf(order, ti); ok {
					want[at{order, ti.DagID}] = append(want[at{order, ti.DagID}], e)
				}
			}
		}
	}
	got := map[at][]tiStartEntry{}
	it, err = txn.Get(tableTIKeyed, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c, ok := raw.(*tiKeyChunk)
		if !ok {
			continue
		}
		if len(c.TIs) == 0 || len(c.TIs) > 2*tiKeyChunkSize {
			t.Fatalf("%s: a chunk %d of %s holds %d task instances", step, c.Order, c.DagID, len(c.TIs))
		}
		for _, ti := range c.TIs {
			e, ok := tiKeyOf(c.Order, ti)
			if !ok {
				t.Fatalf("%s: a chunk %d of %s holds task %s of %s, not in its order", step, c.Order, c.DagID, ti.TaskID, ti.RunID)
			}
			got[at{c.Order, c.DagID}] = append(got[at{c.Order, c.DagID}], e)
		}
	}
	for k, entries := range want {
		slices.SortFunc(entries, compareTIStarts)
		if !slices.Equal(got[k], entries) {
			t.Fatalf("%s: the chunks %d of %s hold %d entries, the task instances %d (or in another order)", step, k.order, k.dagID, len(got[k]), len(entries))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Fatalf("%s: chunks %d of %s, which has no such task instance", step, k.order, k.dagID)
		}
	}
}

// TestTiKeyOf_SortsAsTheKey holds the keyed entries' order to
// compareTIAttr's (SortParam's, NULL lowest) on pairs of task instances
// of every state and of dates, durations and tries around the edges.
func TestTiKeyOf_SortsAsTheKey(t *testing.T) {
	t.Parallel()
	at := func(sec int64, nsec int) *time.Time {
		x := time.Unix(sec, int64(nsec)).UTC()
		return &x
	}
	f := func(v float64) *float64 { return &v }
	states := []TaskState{TaskNone, TaskScheduled, TaskQueued, TaskRunning, TaskSuccess, TaskFailed, TaskSkipped, TaskUpForRetry,
		TaskUpstreamFailed, TaskRemoved, "up_for_reschedule", "deferred", "restarting"}
	dates := []*time.Time{nil, at(0, 0), at(-5, 3), at(1700000000, 999999999), at(1700000001, 0), at(1700000000, 1)}
	durations := []*float64{nil, f(0), f(-0.5), f(0.25), f(3), f(1e9), f(-1e-9)}
	var tis []*TaskInstance
	for i := range 60 {
		tis = append(tis, &TaskInstance{ID: fmt.Sprintf("id%02d", i%7), TaskID: "t", RunID: "r", State: states[i%len(states)],
			EndDate: dates[i%len(dates)], Duration: durations[i%len(durations)], TryNumber: i % 4})
	}
	for _, tc := range []struct {
		order tiKeyOrder
		attr  string
	}{{tiKeyState, "state"}, {tiKeyEndDate, "end_date"}, {tiKeyDuration, "duration"}, {tiKeyTryNumber, "try_number"}} {
		compare := compareTISortParam([]sortKey{{attr: tc.attr}})
		for _, a := range tis {
			for _, b := range tis {
				ea, _ := tiKeyOf(tc.order, a)
				eb, _ := tiKeyOf(tc.order, b)
				want := compare(RunTaskInstance{TI: a}, RunTaskInstance{TI: b})
				if got := compareTIStarts(ea, eb); got != want {
					t.Fatalf("%s: %+v against %+v: %d, want %d", tc.attr, a, b, got, want)
				}
				if sameStart(ea, eb) != (compareTIAttr(tc.attr, RunTaskInstance{TI: a}, RunTaskInstance{TI: b}) == 0 &&
					tiAttrIsNull(tc.attr, RunTaskInstance{TI: a}) == tiAttrIsNull(tc.attr, RunTaskInstance{TI: b})) {
					t.Fatalf("%s: %+v against %+v: ties %t", tc.attr, a, b, sameStart(ea, eb))
				}
			}
		}
	}
}

// TestTaskInstances_KeyOrdersAsTheSort asks random listings of every
// run's task instances led by state, end_date, duration, try_number or
// start_date (either way, alone or with another key after it, of one DAG,
// some or every DAG, filters or none, deep offsets), between random
// writes, and holds each to the sorting path's answer, and the keyed
// chunks to the task instances after each write.
func TestTaskInstances_KeyOrdersAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	store := ts.store
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{addStartedRuns(t, store, "tiksort_a", base, 30, true), addStartedRuns(t, store, "tiksort_b", base, 24, false)}
	varyTIKeys(t, store, "tiksort_a", false)
	varyTIKeys(t, store, "tiksort_b", true)
	// 20 runs run again and settle: 16 go to the chunks at once, four
	// stay in the DAG's tail.
	runs, err := store.RunsOfDag("tiksort_a", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, state := range []RunState{RunRunning, RunFailed} {
		for _, run := range runs[3:23] {
			if _, err := store.ForceRunState("tiksort_a", run.RunID, state, base, runStateDates{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tail, err := tiKeyTailTxn(store.read(), "tiksort_a"); err != nil || len(tail.RunIDs) != 4 {
		t.Fatalf("the tail holds %v (%v), want four runs", tail, err)
	}
	checkTIKeyedChunks(t, store, "set-up")
	rng := rand.New(rand.NewPCG(21, 15))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	leads := []string{"state", "end_date", "duration", "try_number", "start_date"}
	seconds := []sortKey{{attr: "run_after", desc: true}, {attr: "try_number", desc: true}, {attr: "state"},
		{attr: "map_index", desc: true}, {attr: "id"}, {attr: "start_date", desc: true}, {attr: "duration"}}
	for i := range 700 {
		if i%6 == 0 {
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
			checkTIKeyedChunks(t, store, fmt.Sprintf("write before listing %d", i))
		}
		q := &tiSearch{offset: rng.IntN(80), limit: 1 + rng.IntN(40), order: []sortKey{{attr: leads[rng.IntN(len(leads))], desc: rng.IntN(2) == 0}}}
		if rng.IntN(6) == 0 {
			q.offset = 200 + rng.IntN(200) // to the end
		}
		if rng.IntN(3) == 0 {
			q.order = append(q.order, seconds[rng.IntN(len(seconds))])
		}
		switch rng.IntN(3) {
		case 0:
			q.dagIDs = []string{dags[rng.IntN(2)].DagID}
		case 1:
			q.dagIDs = []string{"tiksort_b", "tiksort_a"}
		}
		switch rng.IntN(6) {
		case 0:
			q.states = []TaskState{TaskSuccess, TaskFailed}
		case 1:
			q.taskIDs = []string{"t1"}
		case 2:
			q.mapIndexes = []int64{-1}
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}

// TestAPIv2_TaskInstances_NamedRunsOrdersAfterAWrite lists a named run's
// task instances (its last task expanded into 400 mapped instances) in
// the UI's run page order, by state, by -duration, with a filter, and
// asks each again after a write of some of its task instances (a mapped
// instance's next try, another's end, a note), and checks that the first
// page after the write reads its run, its row, the task instances the
// write changed and its own, not every task instance of the run (402:
// sorted again before), and answers as the sort.
func TestAPIv2_TaskInstances_NamedRunsOrdersAfterAWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dag := addStartedRuns(t, ts.store, "tinamedw", base, 4, true)
	expandLastTask(t, ts.store, dag, 400)
	runs, err := ts.store.RunsOfDag("tinamedw", "")
	if err != nil {
		t.Fatal(err)
	}
	runID := runs[2].RunID
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	one := "/dags/tinamedw/dagRuns/" + url.PathEscape(runID) + "/taskInstances"
	now := base.Add(time.Hour)
	writes := []func(tis []*TaskInstance) error{
		func(tis []*TaskInstance) error { // a mapped instance's next try starts
			next := *tis[200]
			next.ID, next.State, next.TryNumber, next.StartDate, next.EndDate, next.Duration = newTaskInstanceID(), TaskRunning, 2, &now, nil, nil
			return ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) })
		},
		func(tis []*TaskInstance) error { // two end, one failed
			a, b := *tis[10], *tis[300]
			end := now.Add(time.Minute)
			d := 90.5
			a.State, a.EndDate, a.Duration = TaskFailed, &end, &d
			b.State, b.EndDate = TaskSuccess, &end
			return ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &a, &b) })
		},
		func(tis []*TaskInstance) error { // a note: no key changes
			note := "seen"
			_, err := ts.store.SetTaskInstanceNote(tis[5].key(), &note)
			return err
		},
	}
	for _, tc := range []struct{ name, query string }{
		{"the UI's order", "?limit=20&offset=40&order_by=-start_date&order_by=-run_after"},
		{"state", "?limit=20&offset=380&order_by=state"},
		{"-duration", "?limit=30&order_by=-duration"},
		{"a filter, -end_date", "?limit=20&offset=5&state=success&order_by=-end_date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, write := range writes {
				ts.do(t, "GET", apiV2Prefix+one+tc.query, "") // remembered
				tis, err := ts.store.TaskInstancesOfRun("tinamedw", runID)
				if err != nil {
					t.Fatal(err)
				}
				if err := write(tis); err != nil {
					t.Fatal(err)
				}
				ts.srv.ops.sortLists.Store(true)
				want := ts.do(t, "GET", apiV2Prefix+one+tc.query, "")
				ts.srv.ops.sortLists.Store(false)
				read = 0
				got := ts.do(t, "GET", apiV2Prefix+one+tc.query, "")
				if got.status != 200 || got.body != want.body {
					t.Fatalf("write %d: %d %.400s, want %.400s", i, got.status, got.body, want.body)
				}
				if limit := 2 + 2*2 + 30; read > limit {
					t.Errorf("write %d: read %d rows, want at most %d", i, read, limit)
				}
			}
		})
	}
}
