package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// randomRunQuery is a listing of f's runs in a random order (one key, as
// /api/v1 or /api/v2 asks it), of one DAG, two or every one, with random
// filters and window.
func (f *runOrderFixture) randomRunQuery(v2 bool) *runQuery {
	rng := f.rng
	q := &runQuery{offset: rng.IntN(90), limit: rng.IntN(50)}
	confLed := v2 && f.confLed && rng.IntN(4) == 0
	switch rng.IntN(3) {
	case 0:
		q.dagIDs = []string{f.dagIDs[rng.IntN(len(f.dagIDs))]}
		if confLed {
			q.dagIDs = []string{f.dagIDs[rng.IntN(2)]}
		}
	case 1:
		q.dagIDs = []string{f.dagIDs[3], f.dagIDs[rng.IntN(3)]}
	}
	if confLed {
		// One DAG's, two or every DAG's (the own confs' DAG among
		// them), with the filters the other listings draw below.
		if rng.IntN(2) == 0 {
			q.offset = rng.IntN(1200) // past the first values, into {}
		}
		q.order = []runOrderKey{{"conf", rng.IntN(2) == 0}}
		keys := []string{"start_date", "run_id", "duration", "end_date", "updated_at", "logical_date", "run_after", "id"}
		for range rng.IntN(3) {
			q.order = append(q.order, runOrderKey{keys[rng.IntN(len(keys))], rng.IntN(2) == 0})
		}
	} else if v2 {
		attr := []string{"id", "state", "dag_id", "run_id", "run_after", "start_date", "end_date", "updated_at", "duration", "logical_date", "conf"}[rng.IntN(11)]
		q.order = []runOrderKey{{attr, rng.IntN(2) == 0}}
		if rng.IntN(3) == 0 || attr == "dag_id" || attr == "state" {
			// Several keys: the walks put the runs that tie on the first
			// in the order of the others; after dag_id or state, each
			// DAG's or state's runs in the order of the keys after it.
			keys := []string{"start_date", "run_id", "state", "conf", "duration", "end_date", "updated_at", "logical_date", "run_after", "dag_id", "id"}
			for range 1 + rng.IntN(2) {
				q.order = append(q.order, runOrderKey{keys[rng.IntN(len(keys))], rng.IntN(2) == 0})
			}
		}
	} else {
		q.orderBy = []string{"id", "state", "dag_id", "execution_date", "dag_run_id", "start_date", "end_date", "updated_at", "external_trigger", "conf"}[rng.IntN(10)]
		q.desc = rng.IntN(2) == 0
	}
	switch rng.IntN(6) {
	case 0:
		q.states = [][]string{{"success"}, {"failed", "queued"}, {"running", "success"}}[rng.IntN(3)]
	case 1:
		q.states = []string{"none", "failed"}
	case 2:
		at := f.at()
		if v2 {
			q.more = &runFilters{start: timeRange{gte: at}, openDatesAt: f.at()}
		} else {
			q.startGTE = at
		}
	case 3:
		if v2 {
			q.more = &runFilters{runID: likePattern("_1"), runTypes: []string{"manual"}}
		} else {
			q.updatedLTE = f.at()
		}
	}
	return q
}

// TestRuns_OrderedPagesAsTheSort lists random pages of runs (one order
// key as each API asks it, or up to three of /api/v2's, any DAGs,
// filters) between random writes and holds each, asked twice, to the
// sorting path's page; the orders the store walks must be walked
// (RunOrderPage answers). Two rounds give a DAG runs each with a conf of
// its own, past the fixed marks' bound.
func TestRuns_OrderedPagesAsTheSort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    edition
		v2   bool
		seed uint64
		// ownConfs gives a DAG 1,100 runs more, each with a conf of its
		// own (addOwnConfRuns): its fixed orders keep no marks, and are
		// walked from its runs sorted (fixedOrderTxn).
		ownConfs bool
	}{{edition3, true, 11, false}, {edition2, false, 12, false}, {edition3, false, 13, false},
		{edition3, true, 14, true}, {edition2, false, 15, true}} {
		t.Run(fmt.Sprintf("%s_v2=%t_own=%t", tc.e, tc.v2, tc.ownConfs), func(t *testing.T) {
			t.Parallel()
			f := newRunOrderFixture(t, tc.e, tc.seed)
			if tc.ownConfs {
				addOwnConfRuns(t, f.ts.store, f.dagIDs[1], f.base.Add(-5000*time.Hour), 1100)
				f.confLed = tc.v2
			}
			o := f.ts.srv.ops
			walked, sectioned, tied, tiedWide := 0, 0, 0, 0
			for i := range 400 {
				if i%20 == 0 {
					f.change(t, 5)
				}
				q := f.randomRunQuery(tc.v2)
				if q.orderBy == "execution_date" && tc.e == edition3 {
					// /api/v1 is edition 2's: RunPage's walk by date is
					// run_after, which edition 3's runs may not share.
					continue
				}
				want, wantTotal, err := o.sortedRuns(q)
				if err != nil {
					t.Fatal(err)
				}
				if oq, ok := q.orderQuery(); ok && oq.Walked() {
					_, _, served, err := f.ts.store.RunOrderPage(oq)
					if err != nil {
						t.Fatal(err)
					}
					if !served {
						t.Fatalf("listing %d (%+v): not walked", i, *q)
					}
					walked++
					if oq.Then != nil {
						sectioned++
					}
					if oq.Ties != nil {
						tied++
						if oq.Keep != nil || oq.States != nil || len(oq.DagIDs) != 1 {
							tiedWide++
						}
					}
				}
				for range 2 {
					got, total, err := o.listRuns(q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(runRowIDs(got), runRowIDs(want)) || total != wantTotal {
						t.Fatalf("listing %d (%+v, more %+v): %v of %d, want %v of %d", i, *q, q.more, runRowIDs(got), total, runRowIDs(want), wantTotal)
					}
				}
			}
			if walked < 150 {
				t.Errorf("%d listings walked, want most of 400", walked)
			}
			if wantSectioned := 40 - 10*boolInt(f.confLed); tc.v2 && sectioned < wantSectioned {
				t.Errorf("%d listings by several keys led by dag_id or state walked, want %d or more", sectioned, wantSectioned)
			}
			t.Logf("%d listings walked, %d by keys led by dag_id or state, %d by keys led by conf (%d of several DAGs or filtered)",
				walked, sectioned, tied, tiedWide)
			if f.confLed && (tied < 40 || tiedWide < 25) {
				t.Errorf("%d listings by several keys led by conf walked (%d of several DAGs or filtered), want 40 or more (25)", tied, tiedWide)
			}
		})
	}
}

func runRowIDs(runs []*DagRun) []int64 {
	out := []int64{}
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}

// TestRuns_UnfinishedBlocksAsTheSort gives a DAG of the run-order fixture
// a backfill's 1,500 queued runs (its unfinished runs remembered by block
// of 256 ids, pendingRunsTxn) and lists random pages of its runs, and of
// every DAG's, in the orders that read unfinished runs (the marked ones,
// duration, several keys led by state) between random writes as a
// scheduler and its users make them (the backfill's first queued run
// started, its first running run ended, a run triggered, a settled run
// cleared or deleted, now and then 80 settled runs cleared at once), each
// held to the sorting path's page; the first
// page after a write in one order reads the blocks the writes touched and
// about the page, not the 1,500 again.
func TestRuns_UnfinishedBlocksAsTheSort(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 17)
	dagID := f.dagIDs[0]
	addQueuedRuns(t, f.ts.store, dagID, f.base.Add(-2000*time.Hour), 1500)
	var read int
	f.ts.store.rowsRead = func(n int) { read += n }
	write := func() {
		t.Helper()
		err := f.ts.store.update(func(txn *memdb.Txn) error {
			it, err := dagRunsByID(txn, dagID, false)
			if err != nil {
				return err
			}
			var settled []*DagRun
			var first [2]*DagRun // the first queued and running runs
			for raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID; raw = it.Next() {
				switch r := raw.(*DagRun); {
				case runSettled(r):
					settled = append(settled, r)
				case r.State == RunQueued && first[0] == nil:
					first[0] = r
				case r.State == RunRunning && first[1] == nil:
					first[1] = r
				}
			}
			k := f.rng.IntN(10)
			var old *DagRun
			switch {
			case k < 4 && first[0] != nil, k < 7 && first[1] == nil:
				old = first[0]
			case k < 7:
				old = first[1]
			case k == 7 && len(settled) > 0:
				old = settled[f.rng.IntN(len(settled))]
			case k == 8 && len(settled) > 0:
				return deleteRunTxn(txn, settled[f.rng.IntN(len(settled))])
			default:
				id, err := nextCounter(txn, counterRunID)
				if err != nil {
					return err
				}
				r := &DagRun{ID: id, DagID: dagID, RunID: fmt.Sprintf("late_%d", id), ExecutionDate: f.base.Add(time.Duration(id) * time.Hour),
					State: RunQueued, Conf: json.RawMessage(`{}`), RunType: "manual", UpdatedAt: f.at()}
				if err := txn.Insert(tableDagRuns, r); err != nil {
					return err
				}
				if err := markRunTxn(txn, nil, r); err != nil {
					return err
				}
				return countRunTxn(txn, r, 1, 0, 0)
			}
			if old == nil {
				return nil
			}
			next := *old
			switch old.State {
			case RunQueued:
				next.State, next.StartDate, next.UpdatedAt = RunRunning, f.at(), f.at()
			case RunRunning:
				next.State, next.EndDate, next.UpdatedAt = []RunState{RunSuccess, RunFailed}[f.rng.IntN(2)], f.maybe(6), f.at()
			default: // a clear
				next.State, next.StartDate, next.EndDate, next.UpdatedAt = RunQueued, nil, nil, f.at()
			}
			return putRunTxn(txn, old, &next)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// clearMany clears up to 80 settled runs in one write: more than the
	// run counts name (unsettledMax), so the next page looks up every
	// block (pendingRuns.everyBlock).
	clearMany := func() {
		t.Helper()
		err := f.ts.store.update(func(txn *memdb.Txn) error {
			it, err := dagRunsByID(txn, dagID, false)
			if err != nil {
				return err
			}
			var settled []*DagRun
			for raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID; raw = it.Next() {
				if r := raw.(*DagRun); runSettled(r) {
					settled = append(settled, r)
				}
			}
			for _, i := range f.rng.Perm(len(settled))[:min(80, len(settled))] {
				next := *settled[i]
				next.State, next.StartDate, next.EndDate, next.UpdatedAt = RunQueued, nil, nil, f.at()
				if err := putRunTxn(txn, settled[i], &next); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	o := f.ts.srv.ops
	orders := []string{"start_date", "end_date", "updated_at", "state", "logical_date", "duration"}
	for i := range 200 {
		for range 2 {
			write()
		}
		many := i%25 == 12
		if many {
			clearMany()
		}
		q := &runQuery{offset: f.rng.IntN(60), limit: 1 + f.rng.IntN(40), order: []runOrderKey{{orders[f.rng.IntN(len(orders))], f.rng.IntN(2) == 0}}}
		if f.rng.IntN(4) > 0 {
			q.dagIDs = []string{dagID}
		}
		if f.rng.IntN(4) == 0 {
			q.order = append([]runOrderKey{{"state", f.rng.IntN(2) == 0}}, q.order...)
		}
		want, wantTotal, err := o.sortedRuns(q)
		if err != nil {
			t.Fatal(err)
		}
		read = 0
		got, total, err := o.listRuns(q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(runRowIDs(got), runRowIDs(want)) || total != wantTotal {
			t.Fatalf("listing %d (%+v): %v of %d, want %v of %d", i, *q, runRowIDs(got), total, runRowIDs(want), wantTotal)
		}
		// (A state's section picks its runs along the next key's walk,
		// which passes the other states' runs: not bounded here.)
		if i > 0 && len(q.order) == 1 && !many && read > 2*256+400 {
			t.Errorf("listing %d (%+v): read %d rows, want the blocks two writes touch and the page", i, *q, read)
		}
	}
}
