package main

import (
	"fmt"
	"slices"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// durations are the store's duration chunks flattened by DAG, after a
// check that each chunk is sorted, keyed by its first entry and after the
// chunk before it.
func (f *runOrderFixture) durations(t *testing.T, txn *memdb.Txn) map[string][]durationEntry {
	t.Helper()
	it, err := txn.Get(tableRunDurations, indexID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]durationEntry{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runDurationChunk)
		if len(c.Entries) == 0 || len(c.Entries) > 2*durationChunkSize {
			t.Fatalf("chunk of %s with %d entries", c.DagID, len(c.Entries))
		}
		prev := out[c.DagID]
		if !slices.IsSortedFunc(c.Entries, compareDurations) || (len(prev) > 0 && compareDurations(prev[len(prev)-1], c.Entries[0]) >= 0) {
			t.Fatalf("chunk of %s out of order: %v after %d entries", c.DagID, c.Entries, len(prev))
		}
		out[c.DagID] = append(prev, c.Entries...)
	}
	return out
}

// TestRunDurations_FollowEveryWrite gives one DAG of the fixture 400 runs
// more (its chunks split), applies random run writes (states and dates,
// clears, deletes, new runs) and checks after each batch that the
// duration chunks the writes kept hold the entries a rebuild from the runs
// makes, and that pages by duration (either way, a second key or none,
// of one DAG or every DAG) are the sorting path's.
func TestRunDurations_FollowEveryWrite(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 9)
	err := f.ts.store.update(func(txn *memdb.Txn) error {
		for i := range 400 {
			if err := f.insertTxn(txn, f.dagIDs[0], 5000+i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	o := f.ts.srv.ops
	for i := range 60 {
		f.change(t, 1+f.rng.IntN(12))
		txn := f.ts.store.db.Txn(true)
		kept := f.durations(t, txn)
		if err := remarkRunsTxn(txn); err != nil {
			t.Fatal(err)
		}
		rebuilt := f.durations(t, txn)
		txn.Abort()
		if fmt.Sprint(kept) != fmt.Sprint(rebuilt) {
			t.Fatalf("batch %d: duration entries kept %v, rebuilt %v", i, kept, rebuilt)
		}
		if len(kept[f.dagIDs[0]]) <= 2*durationChunkSize {
			t.Fatalf("batch %d: %d entries, no split", i, len(kept[f.dagIDs[0]]))
		}
		for range 5 {
			q := &runQuery{offset: f.rng.IntN(300), limit: 1 + f.rng.IntN(60), order: []runOrderKey{{"duration", f.rng.IntN(2) == 0}}}
			if f.rng.IntN(2) == 0 {
				q.dagIDs = []string{f.dagIDs[0]}
			}
			if f.rng.IntN(3) == 0 {
				q.order = append(q.order, runOrderKey{[]string{"start_date", "run_id", "conf"}[f.rng.IntN(3)], f.rng.IntN(2) == 0})
			}
			if f.rng.IntN(4) == 0 {
				q.states = []string{"success"}
			}
			want, wantTotal, err := o.sortedRuns(q)
			if err != nil {
				t.Fatal(err)
			}
			oq, _ := q.orderQuery()
			got, total, ok, err := f.ts.store.RunOrderPage(oq)
			if err != nil || !ok {
				t.Fatalf("batch %d (%+v): not walked (%v)", i, *q, err)
			}
			if !slices.Equal(runRowIDs(got), runRowIDs(want)) || total != wantTotal {
				t.Fatalf("batch %d (%+v): %v of %d, want %v of %d", i, *q, runRowIDs(got), total, runRowIDs(want), wantTotal)
			}
		}
	}
}
