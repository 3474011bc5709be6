package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// addSparseXComs stores, for each of a DAG's runs (runs of them made),
// entries of tasks a and b under keys common_0..common_9, and under
// "rare" for one run in every 25 (task a's): a sparse xcom_key.
func addSparseXComs(t *testing.T, store *Store, dagID string, runs int) {
	t.Helper()
	addRunsWithXComs(t, store, dagID, runs, []int{-1}, func(i int, task string) []string {
		keys := []string{}
		for k := range 10 {
			keys = append(keys, fmt.Sprintf("common_%d", k))
		}
		if i%25 == 0 && task == "a" {
			keys = append(keys, "rare")
		}
		return keys
	})
}

// TestXComs_SparseKeyReadsThePage lists XCom entries across runs by an
// xcom_key that one run in 25 has (400 runs, 8,016 entries), every
// DAG's, a DAG's and a task's, through both APIs, and checks through the
// store's rowsRead hook that a page reads that key's entries to its end
// (the key's part of indexXComKeyOrder) and the runs they name, where
// the walk of the scope read every key's entries to the page's last
// match. Each answer is the long way's (operations.sortLists).
func TestXComs_SparseKeyReadsThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			const dagID = "example_trigger_target_dag"
			addSparseXComs(t, ts.store, dagID, 400)
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			prefix := apiV2Prefix
			if e == edition2 {
				prefix = apiV1Prefix
			}
			// An entry and its run a row each, the run looked up once.
			for _, tc := range []struct {
				path    string
				maxRead int
			}{
				{"/dags/~/dagRuns/~/taskInstances/~/xcomEntries?xcom_key=rare&limit=10", 2*10 + 2},
				{"/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?xcom_key=rare&limit=5&offset=6", 2*11 + 2},
				{"/dags/" + dagID + "/dagRuns/~/taskInstances/a/xcomEntries?xcom_key=rare&limit=10", 2*10 + 2},
			} {
				t.Run(tc.path, func(t *testing.T) {
					checkXComPageRead(t, ts, &read, prefix+tc.path, tc.maxRead)
				})
			}
		})
	}
}

// checkXComPageRead asks path the long way (operations.sortLists), then
// twice the store's way (the first counts the filter's entries), and
// holds the second to the long way's answer, a page of entries, read
// from 1 to maxRead rows (the store's rowsRead hook adding to *read).
func checkXComPageRead(t *testing.T, ts *testServer, read *int, path string, maxRead int) {
	t.Helper()
	do := func() string {
		res := ts.do(t, http.MethodGet, path, "")
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", path, res.status, res.body)
		}
		return res.body
	}
	ts.srv.ops.sortLists.Store(true)
	want := do()
	ts.srv.ops.sortLists.Store(false)
	do()
	*read = 0
	got := do()
	if got != want {
		t.Errorf("answer differs from the long way's:\n got %.500s\nwant %.500s", got, want)
	}
	if strings.Contains(got, `"xcom_entries":[]`) || strings.Contains(got, `"xcom_entries": []`) {
		t.Errorf("no entries: %.300s", got)
	}
	if *read == 0 || *read > maxRead {
		t.Errorf("read %d rows, want 1 to %d", *read, maxRead)
	}
}

// TestXComs_KeyAsTheScan asks 400 random listings of XCom entries across
// runs by xcom_key (every DAG's, one DAG's, a task's across DAGs or a
// DAG's; with a map_index, a pattern or a run filter beside it), each
// twice, between random pushes, deletes of entries and runs, and holds
// each page and total to the long way's (operations.sortLists): the
// walk of the key's entries (xcomKeyWalk) must pick what the walk of the
// scope picked.
func TestXComs_KeyAsTheScan(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addXComsAcrossRuns(t, ts.store, 40)
	addXComGrid(t, ts.store)
	addSparseXComs(t, ts.store, "example_python_operator", 30)
	o := ts.srv.ops
	rng := rand.New(rand.NewPCG(8, 33))
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	ptrTo := func(s string) *string { return &s }
	dags := []string{"example_trigger_target_dag", "example_bash_operator", "example_python_operator", "tutorial"}
	keys := []string{"return_value", "k", "k1", "rare", "common_3", "", "nope"}
	for i := range 400 {
		if i%4 == 0 {
			changeXComs(t, ts.store, dags[rng.IntN(len(dags))], keys, rng)
		}
		q := xcomSearch{dagID: pick("", "", dags[0], dags[2], dags[1]), taskID: pick("", "", "a", "b"), offset: rng.IntN(30), limit: 1 + rng.IntN(20),
			key: ptrTo(keys[rng.IntN(len(keys))])}
		switch rng.IntN(6) {
		case 0:
			mi := int64(rng.IntN(3) - 1)
			q.mapIndex = &mi
		case 1:
			q.runPattern = likePattern(pick("T00:0", "00:1", "zz"))
		case 2:
			q.taskPattern, q.dagPattern = likePattern(pick("a", "b")), likePattern(pick("tut", "example_", "target"))
		}
		checkXComSearchAsScan(t, o, i, q)
	}
}

// checkXComSearchAsScan holds listing i of XCom entries (q) to the long
// way's (operations.sortLists), asked twice: its entries and total.
func checkXComSearchAsScan(t *testing.T, o *operations, i int, q xcomSearch) {
	t.Helper()
	o.sortLists.Store(true)
	want, wantTotal, err := o.searchXComs(q)
	o.sortLists.Store(false)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rows []xcomRead) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, fmt.Sprint(r.DagID, "/", r.TaskID, "/", r.RunID, "/", r.MapIndex, "/", r.Key))
		}
		return out
	}
	for range 2 {
		got, total, err := o.searchXComs(q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(want)) || total != wantTotal {
			key := "any"
			if q.key != nil {
				key = fmt.Sprintf("%q", *q.key)
			}
			t.Fatalf("listing %d (%+v, key %s): %v of %d, want %v of %d", i, q, key, ids(got), total, ids(want), wantTotal)
		}
	}
}

// changeXComs writes a DAG's XCom entries at random: a new entry of a
// random run, task, map index and key, a random entry deleted, or a
// random run deleted with its entries.
func changeXComs(t *testing.T, store *Store, dagID string, keys []string, rng *rand.Rand) {
	t.Helper()
	runs, err := store.RunsOfDag(dagID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		return
	}
	run := runs[rng.IntN(len(runs))]
	switch rng.IntN(6) {
	case 0:
		if len(runs) > 3 {
			err = store.DeleteRun(dagID, run.RunID)
		}
	case 1, 2:
		entries, ferr := store.XComEntries(XComFilter{DagID: dagID, RunID: run.RunID})
		if ferr != nil {
			t.Fatal(ferr)
		}
		if len(entries) > 0 {
			x := entries[rng.IntN(len(entries))]
			err = store.DeleteXCom(x.DagID, x.RunID, x.TaskID, x.Key, x.MapIndex)
		}
	default:
		e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: []string{"a", "b", "c"}[rng.IntN(3)], RunRowID: run.ID,
			MapIndex: rng.IntN(3) - 1, Key: keys[rng.IntN(len(keys))], Value: json.RawMessage(`2`), Timestamp: run.ExecutionDate}
		err = store.update(func(txn *memdb.Txn) error { return store.putXComTxn(txn, e) })
	}
	if err != nil && !errors.Is(err, errNotFound) {
		t.Fatal(err)
	}
}
