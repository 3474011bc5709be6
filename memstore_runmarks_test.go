package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// runOrderFixture is a store with runs of three DAGs and of a DAG id with
// no DAG row, dates drawn so that orders tie and values are null, for the
// randomized tests of the run orders.
type runOrderFixture struct {
	ts     *testServer
	rng    *rand.Rand
	dagIDs []string // the three DAGs, then the id with no DAG row
	base   time.Time
	// confLed makes one /api/v2 listing in four by several keys led by
	// conf, of one DAG, two or every DAG, filtered as the others are
	// (walked by RunOrderQuery.Ties).
	confLed bool
}

func newRunOrderFixture(t *testing.T, e edition, seed uint64) *runOrderFixture {
	t.Helper()
	f := &runOrderFixture{ts: newTestServer(t, e), rng: rand.New(rand.NewPCG(seed, 7)), base: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	for _, d := range f.ts.dags.DAGs {
		if len(f.dagIDs) < 3 && d.ParentDagID == "" {
			f.dagIDs = append(f.dagIDs, d.DagID)
		}
	}
	f.dagIDs = append(f.dagIDs, "no_such_dag")
	err := f.ts.store.update(func(txn *memdb.Txn) error {
		for i := range 240 {
			if err := f.insertTxn(txn, f.dagIDs[i%len(f.dagIDs)], i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// at is one of few times: runs share them.
func (f *runOrderFixture) at() *time.Time {
	t := f.base.Add(time.Duration(f.rng.IntN(40)) * time.Minute)
	if f.rng.IntN(5) == 0 {
		t = t.Add(time.Duration(f.rng.IntN(3)) * time.Nanosecond) // ties broken below a microsecond
	}
	return &t
}

// maybe is at() or, one time in n, nil.
func (f *runOrderFixture) maybe(n int) *time.Time {
	if f.rng.IntN(n) == 0 {
		return nil
	}
	return f.at()
}

// insertTxn stores a new run of dagID (the i-th), as createRun and the
// counts would, with random dates and state.
func (f *runOrderFixture) insertTxn(txn *memdb.Txn, dagID string, i int) error {
	if f.rng.IntN(4) == 0 {
		// Ids apart, as other DAGs' runs leave them: the unfinished
		// runs are remembered by block of 256 ids (pendingRunsTxn).
		gap := &counter{Name: counterRunID, Value: counterValue(txn, counterRunID) + int64(f.rng.IntN(400))}
		if err := txn.Insert(tableCounters, gap); err != nil {
			return err
		}
	}
	id, err := nextCounter(txn, counterRunID)
	if err != nil {
		return err
	}
	date := f.base.Add(time.Duration(i) * time.Minute)
	r := &DagRun{ID: id, DagID: dagID, RunID: fmt.Sprintf("run_%03d_%d", f.rng.IntN(60), id), ExecutionDate: date,
		Conf: json.RawMessage(`{}`), RunType: []string{"scheduled", "manual"}[f.rng.IntN(2)]}
	// Most runs share a conf and external_trigger, as the scheduler's do;
	// the others break the fixed orders (a nil conf is edition 3's empty
	// one).
	if f.rng.IntN(3) == 0 {
		r.Conf = []json.RawMessage{nil, json.RawMessage(`{"a":1}`), json.RawMessage(`{"b":[2]}`), json.RawMessage(`{"a":0}`)}[f.rng.IntN(4)]
		r.ExternalTrigger = f.rng.IntN(2) == 0
	}
	if !f.ts.srv.rules().nullLogicalDate || f.rng.IntN(3) == 0 {
		// Editions 1.10 and 2: every run's logical date is its run_after.
	} else if f.rng.IntN(2) == 0 {
		r.RunAfter = *f.at()
	} else {
		r.NoLogicalDate, r.ExecutionDate, r.RunAfter = true, time.Time{}, *f.at()
	}
	f.settle(r)
	if err := txn.Insert(tableDagRuns, r); err != nil {
		return err
	}
	if err := markRunTxn(txn, nil, r); err != nil {
		return err
	}
	return countRunTxn(txn, r, 1, 0, 0)
}

// settle gives r a random state and the dates such a run may have.
func (f *runOrderFixture) settle(r *DagRun) {
	r.State = []RunState{RunSuccess, RunSuccess, RunFailed, RunQueued, RunRunning}[f.rng.IntN(5)]
	r.StartDate, r.EndDate, r.UpdatedAt = f.maybe(4), nil, f.maybe(8)
	if r.State.Finished() {
		r.EndDate = f.maybe(6)
	}
}

// change applies n random writes: a run's state and dates, a run
// deleted, a new run.
func (f *runOrderFixture) change(t *testing.T, n int) {
	t.Helper()
	err := f.ts.store.update(func(txn *memdb.Txn) error {
		for range n {
			dagID := f.dagIDs[f.rng.IntN(len(f.dagIDs))]
			runs := []*DagRun{}
			it, err := dagRunsByID(txn, dagID, false)
			if err != nil {
				return err
			}
			for raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID; raw = it.Next() {
				runs = append(runs, raw.(*DagRun))
			}
			switch k := f.rng.IntN(10); {
			case k == 0 && len(runs) > 0:
				gone := runs[f.rng.IntN(len(runs))]
				if f.rng.IntN(3) == 0 {
					gone = runs[len(runs)-1] // the newest: a new run compares with the one before
				}
				if err := deleteRunTxn(txn, gone); err != nil {
					return err
				}
			case k == 1 || len(runs) == 0:
				if err := f.insertTxn(txn, dagID, 1000+f.rng.IntN(100000)); err != nil {
					return err
				}
			default:
				old := runs[f.rng.IntN(len(runs))]
				next := *old
				switch f.rng.IntN(3) {
				case 0:
					f.settle(&next)
				case 1:
					next.UpdatedAt = f.at()
				default:
					next.State, next.StartDate, next.EndDate = RunQueued, nil, nil // a clear
				}
				if err := putRunTxn(txn, old, &next); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// marks are the store's run marks, in key order, then its fixed marks
// and each DAG's newest run as its counts keep it.
func (f *runOrderFixture) marks(t *testing.T, txn *memdb.Txn) []string {
	t.Helper()
	it, err := txn.Get(tableSettledMarks, indexID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, fmt.Sprint(*raw.(*runOrderMarks)))
	}
	if it, err = txn.Get(tableFixedMarks, indexID); err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		m := raw.(*runFixedMarks)
		out = append(out, fmt.Sprintf("fixed %s %s unkept=%t", m.DagID, m.Attr, m.Unkept))
		for _, b := range m.Breaks {
			out = append(out, fmt.Sprintf("  %d after %d: %s %t after %s %t", b.ID, b.PrevID, b.Value.Conf, b.Value.External, b.PrevValue.Conf, b.PrevValue.External))
		}
	}
	for _, id := range f.dagIDs {
		c := runCountTxn(txn, id)
		out = append(out, fmt.Sprintf("newest of %s: %d %s %t", id, c.NewestID, c.Newest.Conf, c.Newest.External))
	}
	return out
}

// TestRunMarks_FollowEveryWrite applies random run writes (states and
// dates changed, clears, deletes, new runs) and checks after each batch
// that the marks the writes kept are those a rebuild from the runs makes.
func TestRunMarks_FollowEveryWrite(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 3)
	for i := range 60 {
		f.change(t, 1+f.rng.IntN(6))
		txn := f.ts.store.db.Txn(true)
		kept := f.marks(t, txn)
		if err := recountRunsTxn(txn); err != nil { // the marks too
			t.Fatal(err)
		}
		rebuilt := f.marks(t, txn)
		txn.Abort()
		if !slices.Equal(kept, rebuilt) {
			t.Fatalf("batch %d: marks kept %v, rebuilt %v", i, kept, rebuilt)
		}
		if i == 59 && len(kept) == 0 {
			t.Fatal("no marks: the test exercises nothing")
		}
	}
}

// TestRunMarks_GoWithTheirRuns removes runs wholesale (a DAG's runs,
// the DAG, every run, a reset) and checks that their marks and duration
// chunks go with them, and only theirs.
func TestRunMarks_GoWithTheirRuns(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 5)
	s := f.ts.store
	marksOf := func() map[string]int {
		t.Helper()
		out := map[string]int{}
		it, err := s.read().Get(tableSettledMarks, indexID)
		if err != nil {
			t.Fatal(err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			out[raw.(*runOrderMarks).DagID]++
		}
		// The duration chunks go with the marks.
		if it, err = s.read().Get(tableRunDurations, indexID); err != nil {
			t.Fatal(err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			out[raw.(*runDurationChunk).DagID]++
		}
		return out
	}
	for _, id := range f.dagIDs {
		if marksOf()[id] == 0 {
			t.Fatalf("no marks of %s before: %v", id, marksOf())
		}
	}
	if err := s.DeleteRuns(f.dagIDs[0]); err != nil {
		t.Fatal(err)
	}
	if m := marksOf(); m[f.dagIDs[0]] != 0 || m[f.dagIDs[1]] == 0 {
		t.Errorf("after the runs of %s went: %v", f.dagIDs[0], m)
	}
	if _, err := s.DeleteDag(f.dagIDs[1], nil); err != nil {
		t.Fatal(err)
	}
	if m := marksOf(); m[f.dagIDs[1]] != 0 || m[f.dagIDs[2]] == 0 {
		t.Errorf("after the DAG %s went: %v", f.dagIDs[1], m)
	}
	if err := s.DeleteRuns(""); err != nil {
		t.Fatal(err)
	}
	if m := marksOf(); len(m) != 0 {
		t.Errorf("after every run went: %v", m)
	}
	f.change(t, 40)
	if len(marksOf()) == 0 {
		t.Fatal("no marks before the reset")
	}
	if err := s.Reset(f.ts.dags); err != nil {
		t.Fatal(err)
	}
	if m := marksOf(); len(m) != 0 {
		t.Errorf("after a reset: %v", m)
	}
}

// TestRunMarks_OrdersWithoutValues: a DAG whose settled runs have no
// logical date (Airflow 3 runs triggered with logical_date null) has no
// run to look for in that order, so a run's end does not walk back over
// every run of the DAG; once a settled run has one, the order is looked
// for again. updated_at is set on every settled run.
func TestRunMarks_OrdersWithoutValues(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	logicalDate := slices.Index(markedRunAttrs[:], "logical_date")
	updatedAt := slices.Index(markedRunAttrs[:], "updated_at")
	settle := func(runID, logical string) {
		t.Helper()
		v2Trigger(t, ts, "v2runs", fmt.Sprintf(`{"dag_run_id": %q, "logical_date": %s}`, runID, logical))
		if res := ts.do(t, http.MethodPatch, "/api/v2/dags/v2runs/dagRuns/"+runID, `{"state": "success"}`); res.status != 200 {
			t.Fatalf("settle %s: %d %s", runID, res.status, res.body)
		}
	}
	none := func() [len(markedRunAttrs)]bool {
		t.Helper()
		txn := ts.store.read()
		var all [len(markedRunAttrs)]*runOrderMarks
		for i, attr := range markedRunAttrs {
			m, err := runMarksTxn(txn, "v2runs", attr)
			if err != nil {
				t.Fatal(err)
			}
			all[i] = m
		}
		return ordersWithoutValues(runCountTxn(txn, "v2runs"), all, nil)
	}
	for i := range 3 {
		settle(fmt.Sprintf("dateless_%d", i), "null")
	}
	if got := none(); !got[logicalDate] || got[updatedAt] {
		t.Errorf("three dateless runs settled: no values %v; want logical_date without, updated_at with", got)
	}
	settle("dated", `"2024-03-01T00:00:00Z"`)
	if got := none(); got[logicalDate] {
		t.Errorf("a dated run settled: no values %v; want logical_date with", got)
	}
}
