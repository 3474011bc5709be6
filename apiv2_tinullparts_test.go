package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

// unendTIs clears the end and duration of a DAG's started task
// instances that unend picks (by run and task index): a next key of
// end_date or duration NULL for part of every group.
func unendTIs(tb testing.TB, store *Store, dagID string, unend func(run, k int) bool) {
	tb.Helper()
	rewriteTIs(tb, store, dagID, func(i, k int, c *TaskInstance) bool {
		if c.StartDate == nil || c.EndDate == nil || !unend(i, k) {
			return false
		}
		c.EndDate, c.Duration = nil, nil
		return true
	})
}

// TestTaskInstances_GroupNullsAsTheSort asks random listings led by
// state, try_number or operator (either way) whose next key is
// start_date, end_date or duration (either way, NULL for part of most
// groups), with a key after it or none, of one DAG, some or every DAG,
// filters or none, offsets into the groups' NULL and valued parts,
// between random writes and deletes, and holds each page and total to
// the sorting path's: a group is taken as its NULLs (a slice of the
// scope's, sorted once per version) and its values (the next key's walk
// past its NULLs).
func TestTaskInstances_GroupNullsAsTheSort(t *testing.T) {
	t.Parallel()
	ts, dags, base := twoStartedDAGs(t, "tignull")
	store := ts.store
	varyTIKeys(t, store, dags[0].DagID, false)
	varyTIKeys(t, store, dags[1].DagID, true) // NULL states, no start
	unendTIs(t, store, dags[0].DagID, func(run, k int) bool { return (run+k)%3 == 0 })
	unendTIs(t, store, dags[1].DagID, func(run, k int) bool { return (run*2+k)%5 < 2 })
	setOperators(t, store, dags[0].DagID, operatorOfTask)
	setOperators(t, store, dags[1].DagID, operatorOfTask)
	rng := rand.New(rand.NewPCG(43, 7))
	o := ts.srv.ops
	now := base.Add(time.Hour)
	leads := []string{"state", "state", "try_number", "operator"}
	nexts := []string{"end_date", "end_date", "duration", "start_date"}
	thirds := []string{"start_date", "run_after", "id", "map_index", "logical_date", "task_id"}
	for i := range 600 {
		if i%5 == 0 {
			dag := dags[rng.IntN(len(dags))]
			switch rng.IntN(3) {
			case 0:
				unendTIs(t, store, dag.DagID, func(run, k int) bool { return rng.IntN(40) == 0 })
			default:
				changeStartedTIs(t, store, dag, rng, now)
			}
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		q := randomOneKeyTISearch(rng, leads[rng.IntN(len(leads))], dags)
		if rng.IntN(3) == 0 {
			q.offset = 100 + rng.IntN(250)
		}
		q.order = append(q.order, sortKey{attr: nexts[rng.IntN(len(nexts))], desc: rng.IntN(2) == 0})
		if rng.IntN(3) == 0 {
			q.order = append(q.order, sortKey{attr: thirds[rng.IntN(len(thirds))], desc: rng.IntN(2) == 0})
		}
		if rng.IntN(6) == 0 {
			q.states = []TaskState{TaskSuccess, TaskNone, TaskUpstreamFailed}
		}
		checkTISearchAsSorted(t, o, i, q)
	}
}

// TestAPIv2_TaskInstances_GroupNullsReadThePage lists a DAG's task
// instances led by state or try_number whose next key, end_date or
// duration, is NULL for a third of each group, at pages inside a
// group's NULLs and past them, and checks through the store's rowsRead
// hook that a page reads about its rows: the NULLs a slice of the
// scope's (nullPartTxn, remembered), the values picked along the next
// key's walk past the NULLs, where the keyed walk read the group whole
// (BenchmarkV2ListTaskInstancesLeadGroups' `-state`, `end_date` from
// offset 200). Each answer is the sorting path's.
func TestAPIv2_TaskInstances_GroupNullsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	addStartedRuns(t, ts.store, "tignullr_a", base, 600, true)
	varyTIKeys(t, ts.store, "tignullr_a", true)
	unendTIs(t, ts.store, "tignullr_a", func(run, k int) bool { return (run+k)%3 == 0 })
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const dag = "/dags/tignullr_a/dagRuns/~/taskInstances"
	const walks = 4 // the walk's first chunks
	// 2,400 task instances, 2,215 started: upstream_failed (the first
	// state descending) about 316 of them, 105 with no end; a try number
	// a third, 246 with no end.
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		{"-state, end_date, in the NULLs", dag + "?limit=20&offset=60&order_by=-state&order_by=end_date", 20},
		{"-state, end_date, past the NULLs", dag + "?limit=20&offset=150&order_by=-state&order_by=end_date", (150-117+20)*7 + walks},
		{"-state, -end_date, the NULLs last", dag + "?limit=20&offset=300&order_by=-state&order_by=-end_date", 20},
		{"try_number, duration, start_date, in the NULLs", dag + "?limit=25&offset=200&order_by=try_number&order_by=duration&order_by=start_date", 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkPageReadSorted(t, ts, &read, "GET", tc.path, "", tc.maxRead)
			t.Logf("read %d rows: %.120s", read, got.body)
		})
	}
}
