package main

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_Runs_UnfinishedAfterManyClears lists a page of a DAG's runs
// (1,000 settled, then a backfill's 50,000 queued) by -start_date, clears
// 100 settled runs in one write (more than the 64 the run counts name),
// and lists it again: the first page after the clears reads the blocks of
// 256 ids whose node changed, found down the nodes of the ids' hex digits
// that changed (the existing ones of a changed node looked up, a row
// each: about 16 a level), and the page, where it read every unfinished
// run again, and then looked up every block (a row each, 200 here). The
// answer is held to the sorting path's.
func TestAPIv2_Runs_UnfinishedAfterManyClears(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 1000)
	addQueuedRuns(t, ts.store, "example_bash_operator", base.Add(-100000*time.Hour), 50000)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	runs, err := ts.store.RunsOfDag("example_bash_operator", "")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(runs, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) }) // the settled, then the queued
	for _, tc := range []struct {
		name, order string
		clears      []int // runs' places among the settled
		maxRead     int
	}{
		// 100 runs of one block; the changed nodes' existing children:
		// 16 at most a level, four levels below the DAG's ids' common
		// digits.
		{"100 clears, -start_date", "-start_date", []int{100, 200}, 20 + 256 + 4*16 + 40},
		// Three blocks (ids spread over 400), and the state order's walks
		// (the failed runs picked by stretch).
		{"100 clears more, state", "state", []int{500, 900}, 20 + 3*256 + 4*16 + 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/dags/example_bash_operator/dagRuns?limit=20&order_by=" + url.QueryEscape(tc.order)
			ts.do(t, http.MethodGet, apiV2Prefix+path, "") // remembered
			err := ts.store.update(func(txn *memdb.Txn) error {
				for i := tc.clears[0]; i < tc.clears[1]; i += (tc.clears[1] - tc.clears[0]) / 100 {
					old := runs[i] // each cleared once
					next := *old
					next.State, next.StartDate, next.EndDate = RunQueued, nil, nil
					if err := putRunTxn(txn, old, &next); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			ts.srv.ops.sortLists.Store(true)
			want := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
			ts.srv.ops.sortLists.Store(false)
			read = 0
			got := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
			if got.status != 200 || got.body != want.body {
				t.Errorf("answer %d differs from the sorted one:\n got %.600s\nwant %.600s", got.status, got.body, want.body)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows for the first page after the clears, want 1 to %d", read, tc.maxRead)
			}
			t.Logf("read %d rows for the first page after the clears", read)
		})
	}
}

// TestChangedBlocks_AsEveryBlock writes a DAG's runs at random (runs
// updated anywhere, deleted, new ones, ids apart) and after each write
// holds changedBlocksTxn's walk down the changed prefixes to every block
// looked up: its blocks are the DAG's blocks with their nodes, in order,
// and the changed ones those whose node is not the last look's (or that
// it had not).
func TestChangedBlocks_AsEveryBlock(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 41)
	dagID := f.dagIDs[0]
	addQueuedRuns(t, f.ts.store, dagID, f.base.Add(-10000*time.Hour), 3000)
	s := f.ts.store
	// everyBlock is each block of the DAG's runs and its node, read run
	// by run.
	everyBlock := func(txn *memdb.Txn) map[string]<-chan struct{} {
		t.Helper()
		out := map[string]<-chan struct{}{}
		it, err := dagRunsByID(txn, dagID, false)
		if err != nil {
			t.Fatal(err)
		}
		for raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID; raw = it.Next() {
			prefix := seqPrefix(raw.(*DagRun).ID, pendingBlockDigits)
			if _, ok := out[prefix]; !ok {
				bit, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
				if err != nil {
					t.Fatal(err)
				}
				out[prefix] = bit.WatchCh()
			}
		}
		return out
	}
	read := 0
	old, _, err := changedBlocksTxn(s.read(), dagID, nil, &read)
	if err != nil {
		t.Fatal(err)
	}
	oldBlocks := everyBlock(s.read())
	sawChanged, sawSome := 0, 0
	for round := range 60 {
		err := s.update(func(txn *memdb.Txn) error {
			runs, err := dagRunsOfTxn(txn, dagID)
			if err != nil {
				return err
			}
			for range f.rng.IntN(4) {
				switch r := runs[f.rng.IntN(len(runs))]; f.rng.IntN(3) {
				case 0:
					next := *r
					next.State, next.StartDate = RunRunning, f.at()
					if err := putRunTxn(txn, r, &next); err != nil {
						return err
					}
				case 1:
					if err := deleteRunTxn(txn, r); err != nil {
						return err
					}
				default:
					if err := f.insertTxn(txn, dagID, round); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		txn := s.read()
		now, changed, err := changedBlocksTxn(txn, dagID, old, &read)
		if err != nil {
			t.Fatal(err)
		}
		want := everyBlock(txn)
		var wantChanged []string
		for prefix, node := range want {
			if oldBlocks[prefix] != node {
				wantChanged = append(wantChanged, prefix)
			}
		}
		slices.Sort(wantChanged)
		got := map[string]<-chan struct{}{}
		now.blocks(func(prefix string, node <-chan struct{}) { got[prefix] = node })
		if !maps.Equal(got, want) || !slices.Equal(changed, wantChanged) {
			t.Fatalf("round %d: %d blocks, changed %v; want %d, changed %v", round, len(got), changed, len(want), wantChanged)
		}
		if !slices.IsSortedFunc(now, func(a, b runBlockNode) int { return strings.Compare(a.prefix, b.prefix) }) {
			t.Fatalf("round %d: the prefixes are not in order", round)
		}
		if len(changed) > 0 {
			sawChanged++
		}
		if len(changed) < len(want) {
			sawSome++
		}
		old, oldBlocks = now, want
	}
	if sawChanged < 20 || sawSome < 20 {
		t.Errorf("%d rounds changed blocks, %d left some unchanged: want 20 or more of each", sawChanged, sawSome)
	}
}
