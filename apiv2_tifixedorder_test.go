package main

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// expandTwoTasks expands the last two tasks of each run of dag into
// width mapped instances each, both in one write, as a clear or an
// expansion of two mapped tasks at once makes them: the instances of one
// map_index of the run come in together.
func expandTwoTasks(tb testing.TB, store *Store, dag *DAG, width int) {
	tb.Helper()
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	tasks := []string{dag.Tasks[len(dag.Tasks)-2].TaskID, dag.Tasks[len(dag.Tasks)-1].TaskID}
	for _, run := range runs {
		tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
		if err != nil {
			tb.Fatal(err)
		}
		var mapped []*TaskInstance
		for _, ti := range tis {
			if ti.MapIndex != -1 || (ti.TaskID != tasks[0] && ti.TaskID != tasks[1]) {
				continue
			}
			for mi := range width {
				m := *ti
				m.MapIndex = mi
				if mi > 0 {
					m.ID = newTaskInstanceID()
				}
				mapped = append(mapped, &m)
			}
		}
		if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mapped...) }); err != nil {
			tb.Fatal(err)
		}
	}
}

// setRunIntervals gives every run of the store a data interval as a
// scheduled run's, [its logical date, a minute later); with odd, every
// fifth run's is an hour before its run's (a manual run's inferred
// interval: the order breaks) and every seventh has none (NULL, below
// every value).
func setRunIntervals(tb testing.TB, store *Store, odd bool) {
	tb.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		it, err := txn.Get(tableDagRuns, indexID)
		if err != nil {
			return err
		}
		var runs []*DagRun
		for raw := it.Next(); raw != nil; raw = it.Next() {
			runs = append(runs, raw.(*DagRun))
		}
		for i, r := range runs {
			c := *r
			start, end := c.ExecutionDate, c.ExecutionDate.Add(time.Minute)
			if odd && i%5 == 0 {
				start, end = start.Add(-time.Hour), end.Add(-time.Hour)
			}
			c.DataIntervalStart, c.DataIntervalEnd = &start, &end
			if odd && i%7 == 0 {
				c.DataIntervalStart, c.DataIntervalEnd = nil, nil
			}
			if err := txn.Insert(tableDagRuns, &c); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestAPIv2_TaskInstances_FixedOrdersReadThePage lists every run's task
// instances in the orders of the keys a task instance gets when it is
// made: by -id (and id with keys after it, which never decide), by
// -map_index (SortParam's tie-break then the id descending: c57fba0e
// api_fastapi/common/parameters.py:327-330), by their runs' logical_date
// or data interval, of every DAG, one DAG, the
// batch's DAGs, with filters or none, and checks through the store's
// rowsRead hook that a page reads about its own rows and those its
// offset skips (a block and a task instance a row; a block at each
// walk's start and end: four walks a DAG), not every task instance of the
// runs (read and sorted before: 1,000 and more). One DAG's ids are
// shuffled across its runs (blocks of one), one has two mapped tasks
// that expanded together. Each answer is the sorting path's.
func TestAPIv2_TaskInstances_FixedOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"tifixed_b", "tifixed_a", "tifixed_c"} {
		dag := addStartedRuns(t, ts.store, id, base, 80, i == 0)
		if i == 2 {
			expandTwoTasks(t, ts.store, dag, 3)
		}
	}
	setRunIntervals(t, ts.store, false)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const all = "/dags/~/dagRuns/~/taskInstances"
	const dagA = "/dags/tifixed_a/dagRuns/~/taskInstances"
	const dagC = "/dags/tifixed_c/dagRuns/~/taskInstances"
	const batch = "/dags/~/dagRuns/~/taskInstances/list"
	const walks = 2 * 4 // a block at each end of a DAG's four walks
	for _, tc := range []struct {
		name, method, path, body string
		maxRead                  int
	}{
		{"every DAG, -id", "GET", all + "?limit=50&order_by=-id", "", 2*50 + 3*walks},
		{"every DAG, -id, offset", "GET", all + "?limit=20&offset=300&order_by=-id", "", 300 + 2*20 + 3*walks},
		{"every DAG, -map_index", "GET", all + "?limit=50&order_by=-map_index", "", 2*50 + 3*walks},
		{"every DAG, -map_index, offset", "GET", all + "?limit=30&offset=700&order_by=-map_index", "", 700 + 2*30 + 3*walks},
		{"one DAG, -id, then state", "GET", dagA + "?limit=25&offset=40&order_by=-id&order_by=state", "", 40 + 2*25 + walks},
		{"one DAG, id, then -start_date", "GET", dagA + "?limit=25&offset=40&order_by=id&order_by=-start_date", "", 40 + 2*25 + 2*walks},
		{"two mapped tasks, -id", "GET", dagC + "?limit=40&offset=20&order_by=-id", "", 20 + 2*40 + walks},
		{"two mapped tasks, -map_index", "GET", dagC + "?limit=40&order_by=-map_index", "", 2*40 + walks},
		// Filters pick along the walk (their count remembered): the task
		// instances of the order up to the page's last.
		{"one DAG, -id, a task", "GET", dagA + "?limit=20&task_id=t1&order_by=-id", "", 2*5*20 + walks},
		{"one DAG, -map_index, a state", "GET", dagA + "?limit=10&offset=10&state=success&order_by=-map_index", "", 2*25 + walks},
		{"batch, two DAGs, -id", "POST", batch, `{"dag_ids": ["tifixed_c", "tifixed_a"], "order_by": "-id", "page_limit": 40, "page_offset": 60}`,
			60 + 2*40 + 2*walks},
		{"batch, every DAG, -map_index", "POST", batch, `{"order_by": "-map_index", "page_limit": 15}`, 2*15 + 3*walks},
		// By the runs' logical_date: a run costs its run and its row, and
		// its task instances when the page takes some or a filter looks
		// at them (four to ten a run; a task's filter: that task's, one
		// to three); the DAGs' runs of one minute tie; a DAG's marks.
		{"every DAG, -logical_date", "GET", all + "?limit=50&order_by=-logical_date", "", (50/4+3*2)*(2+10) + 3},
		{"every DAG, logical_date, offset", "GET", all + "?limit=20&offset=200&order_by=logical_date", "", 2*(200/4+3) + (20/4+3*2)*(2+10) + 3},
		{"one DAG, -logical_date, then start_date", "GET", dagA + "?limit=30&offset=31&order_by=-logical_date&order_by=start_date", "",
			2*(31/4+2) + (30/4+2)*(2+10) + 1},
		{"one DAG, a task, logical_date", "GET", dagA + "?limit=14&task_id=t3&order_by=logical_date", "", 15*2 + 14*3 + 1},
		// By the runs' data interval, likewise (a DAG's fixed marks).
		{"every DAG, -data_interval_start", "GET", all + "?limit=50&order_by=-data_interval_start", "", (50/4+3*2)*(2+10) + 3},
		{"one DAG, data_interval_end, offset", "GET", dagA + "?limit=20&offset=100&order_by=data_interval_end", "",
			2*(100/4+2) + (20/4+2)*(2+10) + 1},
		{"batch, two DAGs, -data_interval_end, then state", "GET", all + "?limit=20&dag_id=tifixed_a&order_by=-data_interval_end&order_by=state", "",
			(20/4+2)*(2+10) + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageReadSorted(t, ts, &read, tc.method, tc.path, tc.body, tc.maxRead)
		})
	}
}

// TestTaskInstances_FixedOrdersAsTheSort asks random listings of every
// run's task instances led by id or map_index, either way (with keys
// after the id, or -map_index alone), or by their runs' logical_date or
// data interval (runs without one among them, intervals out of the
// runs' order), of one DAG, some or every DAG,
// filters or none, between random writes (new tries with new ids,
// clears, expansions into mapped instances, deletions, runs settling or
// running again: changeStartedTIs), and holds each to the sorting path's
// answer, and the blocks to the task instances after each write.
func TestTaskInstances_FixedOrdersAsTheSort(t *testing.T) {
	t.Parallel()
	ts, dags, base := twoStartedDAGs(t, "tifxsort")
	store := ts.store
	setRunIntervals(t, store, true)
	// Runs without a logical date or interval (NULL, below every
	// value), queued.
	for i, dagID := range []string{"tifxsort_a", "tifxsort_b", "tifxsort_a"} {
		v2Trigger(t, ts, dagID, fmt.Sprintf(`{"dag_run_id": "dateless_%d", "logical_date": null}`, i))
	}
	checkOrderBlocks(t, store, "set-up")
	rng := rand.New(rand.NewPCG(21, 6))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	orders := [][]sortKey{{{attr: "id", desc: true}}, {{attr: "map_index", desc: true}}, {{attr: "id"}, {attr: "start_date", desc: true}},
		{{attr: "id", desc: true}, {attr: "state"}}, {{attr: "map_index"}}, {{attr: "id"}},
		{{attr: "logical_date"}}, {{attr: "logical_date", desc: true}}, {{attr: "logical_date"}, {attr: "start_date", desc: true}},
		{{attr: "logical_date", desc: true}, {attr: "map_index"}}, {{attr: "data_interval_start"}}, {{attr: "data_interval_start", desc: true}},
		{{attr: "data_interval_end", desc: true}, {attr: "start_date"}}, {{attr: "data_interval_end"}, {attr: "id", desc: true}}}
	for i := range 600 {
		if i%6 == 0 {
			changeStartedTIs(t, store, dags[rng.IntN(len(dags))], rng, now)
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
			checkOrderBlocks(t, store, fmt.Sprintf("write before listing %d", i))
		}
		q := &tiSearch{offset: rng.IntN(150), limit: 1 + rng.IntN(40), order: orders[rng.IntN(len(orders))]}
		switch rng.IntN(3) {
		case 0:
			q.dagIDs = []string{dags[rng.IntN(2)].DagID}
		case 1:
			q.dagIDs = []string{"tifxsort_b", "tifxsort_a"}
		}
		switch rng.IntN(6) {
		case 0:
			q.states = []TaskState{TaskSuccess}
		case 1:
			q.taskIDs = []string{"t3"}
		case 2:
			q.mapIndexes = []int64{-1, 1}
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}
