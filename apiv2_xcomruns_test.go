package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestXComs_RunFilterReadsItsRuns lists a DAG's XCom entries across 400
// runs (16 entries a run) by run filters that pick a few runs (a
// run_after or logical_date range, a run_id pattern), and checks through
// the store's rowsRead hook that a page reads the runs of the range (the
// DAG's runs, for a pattern, once per version of them) and the picked
// runs' entries to its end,
// where the walk of the scope read every run's entries to the page's
// last match. Each answer is the long way's (operations.sortLists).
func TestXComs_RunFilterReadsItsRuns(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	const dagID = "example_trigger_target_dag"
	addRunsWithXComs(t, ts.store, dagID, 400, []int{0, -1}, func(i int, _ string) []string {
		return []string{"return_value", "k1", "k2", "k3"}
	})
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	// Runs one a minute from 2025-01-01T00:00; the last 20 from 06:20.
	for _, tc := range []struct {
		query   string
		maxRead int
	}{
		// Two tasks' count rows, the range's runs and one past, 20 seeks' entries.
		{"run_after_gte=2025-01-01T06:20:00Z&limit=10", 1 + 2 + 21 + 20 + 10},
		{"run_after_gt=2025-01-01T03:00:00Z&run_after_lt=2025-01-01T03:05:00Z&limit=10&offset=30", 1 + 2 + 6 + 4*8 + 40},
		// The logical date is no hint: every run read, but once per
		// version of the DAG's runs (the first request), then the
		// picked ones' entries.
		{"logical_date_gte=2025-01-01T06:30:00Z&limit=5&offset=3", 1 + 2 + 10 + 8},
		{"run_id_pattern=T03%3A1&limit=10&offset=70", 1 + 2 + 4*10 + 80},
		// Every run picked: each run's task sought, the page's rows.
		{"run_id_pattern=scheduled&limit=10&offset=20", 1 + 2 + 30},
	} {
		t.Run(tc.query, func(t *testing.T) {
			checkXComPageRead(t, ts, &read, apiV2Prefix+"/dags/~/dagRuns/~/taskInstances/~/xcomEntries?"+tc.query, tc.maxRead)
		})
	}
}

// TestXComs_RunFiltersAsTheScan asks 500 random listings of XCom entries
// across runs with run filters (run_after and logical_date ranges of
// every bound, a run_id pattern) and others beside them (a task, DAG and
// task patterns, map_index, a key pattern), each twice, between pushes,
// deletes of entries and of runs and new runs, and holds each page and
// total to the long way's (operations.sortLists): the walk of the picked
// runs (xcomAdmittedRunsWalk) must pick, in order, what the walk of the
// scope picked.
func TestXComs_RunFiltersAsTheScan(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addXComsAcrossRuns(t, ts.store, 60)
	addXComGrid(t, ts.store)
	addSparseXComs(t, ts.store, "example_python_operator", 30)
	o := ts.srv.ops
	rng := rand.New(rand.NewPCG(17, 29))
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	dags := []string{"example_trigger_target_dag", "example_bash_operator", "example_python_operator", "tutorial"}
	keys := []string{"return_value", "k", "k1", "rare", "common_3"}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func() *time.Time {
		t := base.Add(time.Duration(rng.IntN(80*60)) * time.Second)
		return &t
	}
	bounds := func() timeBounds {
		var b timeBounds
		for b == (timeBounds{}) { // a filter: an empty one joins no run
			for _, to := range []**time.Time{&b.gte, &b.gt, &b.lte, &b.lt} {
				if rng.IntN(3) == 0 {
					*to = at()
				}
			}
		}
		return b
	}
	added := 0
	for i := range 500 {
		switch {
		case i%5 == 0:
			changeXComs(t, ts.store, dags[rng.IntN(len(dags))], keys, rng)
		case i%7 == 0:
			// A run named out of its run_after's order, at a random time.
			added++
			addNamedRun(t, ts.store, dags[rng.IntN(len(dags))], fmt.Sprintf("manual__%c%d", 'a'+rune(rng.IntN(26)), added), *at())
		}
		q := xcomSearch{dagID: pick("", "", dags[0], dags[2], dags[1]), taskID: pick("", "", "a", "b"), offset: rng.IntN(30), limit: 1 + rng.IntN(20)}
		switch rng.IntN(3) {
		case 0:
			q.runAfter = bounds()
		case 1:
			q.logical = bounds()
		default:
			q.runPattern = likePattern(pick("T00:0", "00:1", "zz", "scheduled", "T00:2|T00:3"))
		}
		if rng.IntN(4) == 0 {
			q.runAfter = bounds()
		}
		switch rng.IntN(5) {
		case 0:
			mi := int64(rng.IntN(3) - 1)
			q.mapIndex = &mi
		case 1:
			q.keyPattern = likePattern(pick("k", "return", "1", "rare"))
		case 2:
			q.taskPattern, q.dagPattern = likePattern(pick("a", "b")), likePattern(pick("tut", "example_", "target"))
		}
		checkXComSearchAsScan(t, o, i, q)
	}
}

// addNamedRun stores a finished run of a DAG under runID with its
// logical date and run_after at date.
func addNamedRun(t *testing.T, store *Store, dagID, runID string, date time.Time) {
	t.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		id, err := nextCounter(txn, counterRunID)
		if err != nil {
			return err
		}
		return txn.Insert(tableDagRuns, &DagRun{ID: id, DagID: dagID, RunID: runID, ExecutionDate: date, RunAfter: date,
			State: RunSuccess, Conf: json.RawMessage(`{}`), RunType: "manual"})
	})
	if err == nil {
		err = store.update(recountRunsTxn)
	}
	if err != nil {
		t.Fatalf("add run %s: %v", runID, err)
	}
}
