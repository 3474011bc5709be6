package main

// The orders of a DAG's runs that no index keeps (start_date, end_date,
// updated_at, state, Airflow 3's logical_date), kept as marks where the settled runs, in
// id order, break that order: a page merges the stretches between the
// marks, each already in order, instead of reading and sorting every run.

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// tableSettledMarks is derived from the runs: the marks of each marked
// order. Its name shares no leading letters with a table a trigger writes
// (go-memdb keeps the tables' trees in one radix tree by name: a shared
// prefix would put a node on the trigger's path).
const tableSettledMarks = "settled_run_marks"

func init() {
	derivedTables[tableSettledMarks] = true
}

// markedRunAttrs are the orders the marks keep (compareRunAttr's names).
// Every other order of runs is an index's (id, run_after, run_id, the
// DAG's, edition 2's execution_date, its run_after), duration's (whose
// values follow no order of the runs' ids: a mark every other run; kept
// sorted in chunks, memstore_rundurations.go), or a fixed one's (conf,
// external_trigger: values that never change, marked over every run,
// memstore_runfixed.go).
// A run's logical date never changes, but Airflow 3's runs of one DAG
// are in no index by it: those whose logical date is their run_after are
// in the run_after index among the others (runOrderIndex).
var markedRunAttrs = [...]string{"start_date", "end_date", "updated_at", "state", "logical_date"}

// runOrderMarks are a DAG's marks in one of markedRunAttrs, over its
// settled runs (success or failed: runSettled) in id order: the runs
// whose value is null (Nulls), and those that break the order (Breaks),
// each by id. A run breaks a time's order when its value is below that of
// the settled run before it whose value is not null (a descent), and the
// state's order when its state differs from that run's. Between two
// breaks the settled runs with a value, in id order, are in the
// attribute's order, ties by id: a page merges these stretches (or, by
// state, takes one state's stretches one after another). A scheduler's
// runs start, end and change in about their ids' order, so the descents
// are few (a run started again, one ending before an older one); a
// state's breaks are two a streak of failures. Runs that are not settled
// (queued, running) are read from the state index and sorted at each
// page: their values change while they run, and marks kept for them would
// be written by every trigger and start. One row holds a DAG's marks of an
// order: a mark is eight bytes, where an entry of an index costs about
// 470 (BenchmarkMemory100kRuns with one more index of the run table:
// 1,708 bytes a run, 2,181 with it).
type runOrderMarks struct {
	DagID, Attr string
	Breaks      []runBreak // by id
	Nulls       []int64    // run ids, ascending
}

// runBreak is a run that breaks a marked order, with its value and the
// id and value of the settled run before it: the first run of a stretch
// and the last of the one before, so that a page starts a stretch's walk
// only when the merge reaches the stretch's first run, either way
// (runOrderMerge's pending stretches). The values are the times of the
// time orders; a state's are not kept (its stretches are walked one after
// another).
type runBreak struct {
	ID, PrevID       int64
	Value, PrevValue time.Time
}

// markedValue is a run's value in a marked time order (zero for state
// and for a null).
func markedValue(attr string, r *DagRun) time.Time {
	var t *time.Time
	switch attr {
	case "start_date":
		t = r.StartDate
	case "end_date":
		t = r.EndDate
	case "updated_at":
		t = r.UpdatedAt
	case "logical_date":
		if ld, ok := r.LogicalDate(); ok {
			t = &ld
		}
	}
	if t == nil {
		return time.Time{}
	}
	return *t
}

// breakOf is r's break after prev in an order.
func breakOf(attr string, r, prev *DagRun) runBreak {
	return runBreak{ID: r.ID, PrevID: prev.ID, Value: markedValue(attr, r), PrevValue: markedValue(attr, prev)}
}

// breakAt finds a run's break in m: its index, and whether it is there.
func (m *runOrderMarks) breakAt(id int64) (int, bool) {
	return slices.BinarySearchFunc(m.Breaks, id, func(b runBreak, id int64) int { return cmp.Compare(b.ID, id) })
}

// settledMarksTable holds the marks by (dag_id, attr); a DAG's rows go
// with the DAG.
func settledMarksTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableSettledMarks,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringPairIndex(
				func(m *runOrderMarks) string { return m.DagID }, func(m *runOrderMarks) string { return m.Attr })},
		},
	}
}

// runSettled reports whether a run is in the marked sequences: finished.
// Every other run of a known state is in the state index (queued,
// running).
func runSettled(r *DagRun) bool { return r != nil && r.State.Finished() }

// runAttrNullable is runAttrIsNull for the marked orders, updated_at
// included (a run of an old snapshot may have none).
func runAttrNullable(attr string, r *DagRun) bool {
	if attr == "updated_at" {
		return r.UpdatedAt == nil
	}
	return runAttrIsNull(attr, r)
}

// markedCompares are compareRunAttr of each of markedRunAttrs.
var markedCompares = func() (out [len(markedRunAttrs)]func(a, b *DagRun) int) {
	for i, attr := range markedRunAttrs {
		out[i] = compareRunAttr(attr)
	}
	return out
}()

// breaks reports whether r breaks the i-th marked order after prev, the
// settled run with a value before it: a descent, or a change of state.
func breaks(i int, r, prev *DagRun) bool {
	c := markedCompares[i](r, prev)
	if markedRunAttrs[i] == "state" {
		return c != 0
	}
	return c < 0
}

// runMarksTxn is a DAG's marks in an order (none: empty).
func runMarksTxn(txn *memdb.Txn, dagID, attr string) (*runOrderMarks, error) {
	raw, err := txn.First(tableSettledMarks, indexID, dagID, attr)
	if err != nil {
		return nil, fmt.Errorf("look up the %s marks of %s: %w", attr, dagID, err)
	}
	if raw == nil {
		return &runOrderMarks{DagID: dagID, Attr: attr}, nil
	}
	return raw.(*runOrderMarks), nil
}

// runMark is what a run is in a marked order: nothing, a break (brk
// set), or null.
type runMark struct {
	brk  *runBreak
	null bool
}

// markOf is a run's mark in m.
func (m *runOrderMarks) markOf(id int64) runMark {
	if i, ok := m.breakAt(id); ok {
		return runMark{brk: &m.Breaks[i]}
	}
	_, null := slices.BinarySearch(m.Nulls, id)
	return runMark{null: null}
}

// with is m with a run's mark set to mark: m itself when it already is,
// else a copy.
func (m *runOrderMarks) with(id int64, mark runMark) *runOrderMarks {
	has := m.markOf(id)
	if has.null == mark.null && (has.brk == nil) == (mark.brk == nil) && (has.brk == nil || *has.brk == *mark.brk) {
		return m
	}
	next := &runOrderMarks{DagID: m.DagID, Attr: m.Attr,
		Breaks: slices.DeleteFunc(slices.Clone(m.Breaks), func(b runBreak) bool { return b.ID == id }),
		Nulls:  slices.DeleteFunc(slices.Clone(m.Nulls), func(x int64) bool { return x == id })}
	switch {
	case mark.brk != nil:
		i, _ := next.breakAt(id)
		next.Breaks = slices.Insert(next.Breaks, i, *mark.brk)
	case mark.null:
		i, _ := slices.BinarySearch(next.Nulls, id)
		next.Nulls = slices.Insert(next.Nulls, i, id)
	}
	return next
}

// markRunTxn keeps the marks (and the duration chunks,
// durationRunTxn) after a run changed from old to next (old
// nil: inserted; next nil: deleted; both the same run). A run that is
// settled neither before nor after changes no mark (a trigger, a start):
// nothing is read. Otherwise the settled runs around it are found by a
// walk of the DAG's runs in id order, passing those not settled, and the
// marks of the run and of the next settled run are set anew.
func markRunTxn(txn *memdb.Txn, old, next *DagRun) error {
	if !runSettled(old) && !runSettled(next) {
		return nil
	}
	if runSettled(old) && runSettled(next) && !markedValuesDiffer(old, next) {
		return nil
	}
	run := next
	if run == nil {
		run = old
	}
	// Every order's marks are read before any is written (a read of a
	// table the transaction wrote copies its nodes again at the next
	// write).
	var all [len(markedRunAttrs)]*runOrderMarks
	for i, attr := range markedRunAttrs {
		m, err := runMarksTxn(txn, run.DagID, attr)
		if err != nil {
			return err
		}
		all[i] = m
	}
	none := ordersWithoutValues(runCountTxn(txn, run.DagID), all, old)
	before, err := settledNeighbours(txn, run.DagID, run.ID, true, none)
	if err != nil {
		return err
	}
	after, err := settledNeighbours(txn, run.DagID, run.ID, false, none)
	if err != nil {
		return err
	}
	for i, attr := range markedRunAttrs {
		in := runSettled(next) && !runAttrNullable(attr, next)
		var mark runMark
		switch {
		case runSettled(next) && !in:
			mark.null = true
		case in && before[i] != nil && breaks(i, next, before[i]):
			b := breakOf(attr, next, before[i])
			mark.brk = &b
		}
		marks := all[i]
		changed := marks.with(run.ID, mark)
		if n := after[i]; n != nil {
			// The next settled run's break names the run before it,
			// which may be this one, or was.
			prev := before[i]
			if in {
				prev = next
			}
			mark = runMark{}
			if prev != nil && breaks(i, n, prev) {
				b := breakOf(attr, n, prev)
				mark.brk = &b
			}
			changed = changed.with(n.ID, mark)
		}
		if changed == marks {
			continue
		}
		if err := putRunMarksTxn(txn, marks, changed); err != nil {
			return err
		}
	}
	return durationRunTxn(txn, old, next)
}

// putRunMarksTxn stores a DAG's changed marks of an order (none left:
// the row goes).
func putRunMarksTxn(txn *memdb.Txn, old, next *runOrderMarks) error {
	var err error
	switch {
	case len(next.Breaks) > 0 || len(next.Nulls) > 0:
		err = txn.Insert(tableSettledMarks, next)
	case len(old.Breaks) > 0 || len(old.Nulls) > 0:
		err = txn.Delete(tableSettledMarks, old)
	}
	if err != nil {
		return fmt.Errorf("store the %s marks of %s: %w", next.Attr, next.DagID, err)
	}
	return nil
}

// markedValuesDiffer reports whether two settled copies of a run differ
// in a marked order's value or nullness.
func markedValuesDiffer(a, b *DagRun) bool {
	for i, attr := range markedRunAttrs {
		if runAttrNullable(attr, a) != runAttrNullable(attr, b) {
			return true
		}
		if !runAttrNullable(attr, a) && markedCompares[i](a, b) != 0 {
			return true
		}
	}
	return false
}

// ordersWithoutValues says, for each of markedRunAttrs, whether no
// settled run of the DAG but the one being written (old: as it was
// before the write, nil when new) has a value in that order: the settled
// runs the DAG's counts keep, less the nulls its marks (all, by order)
// keep, less the run itself. settledNeighbours need not look for such an
// order's run: a DAG of Airflow 3 runs triggered without a logical date
// has none in the logical_date order, and the walk for one went back
// over every run of the DAG at each run's end.
func ordersWithoutValues(count runCount, all [len(markedRunAttrs)]*runOrderMarks, old *DagRun) [len(markedRunAttrs)]bool {
	var none [len(markedRunAttrs)]bool
	settled := count.States[runStateSlot(RunSuccess)] + count.States[runStateSlot(RunFailed)]
	if runSettled(old) {
		settled--
	}
	for i, marks := range all {
		nulls := len(marks.Nulls)
		if old != nil && marks.markOf(old.ID).null {
			nulls--
		}
		none[i] = settled-nulls <= 0
	}
	return none
}

// settledNeighbours is, for each of markedRunAttrs, the DAG's nearest
// settled run whose value is not null before id (back) or after it,
// nil when none is (at once for the orders none says have no value).
// The walk passes the runs that are not settled and stops when every
// order has found its run.
func settledNeighbours(txn *memdb.Txn, dagID string, id int64, back bool, none [len(markedRunAttrs)]bool) ([len(markedRunAttrs)]*DagRun, error) {
	var found [len(markedRunAttrs)]*DagRun
	missing := len(found)
	for _, skip := range none {
		if skip {
			missing--
		}
	}
	if missing == 0 {
		return found, nil
	}
	var it memdb.ResultIterator
	var err error
	if back {
		if id == 0 {
			return found, nil
		}
		it, err = txn.ReverseLowerBound(tableDagRuns, indexDagRow, dagID, id-1)
	} else {
		it, err = txn.LowerBound(tableDagRuns, indexDagRow, dagID, id+1)
	}
	if err != nil {
		return found, fmt.Errorf("find the settled runs beside run %d of %s: %w", id, dagID, err)
	}
	for raw := it.Next(); raw != nil && missing > 0; raw = it.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		if !runSettled(r) {
			continue
		}
		for i, attr := range markedRunAttrs {
			if !none[i] && found[i] == nil && !runAttrNullable(attr, r) {
				found[i] = r
				missing--
			}
		}
	}
	return found, nil
}

// deleteMarksOfTxn removes a DAG's marks and duration chunks ("": every
// DAG's).
func deleteMarksOfTxn(txn *memdb.Txn, dagID string) error {
	if err := deleteDurationsOfTxn(txn, dagID); err != nil {
		return err
	}
	if err := deleteFixedMarksOfTxn(txn, dagID); err != nil {
		return err
	}
	var err error
	if dagID == "" {
		_, err = txn.DeleteAll(tableSettledMarks, indexID)
	} else {
		_, err = txn.DeleteAll(tableSettledMarks, indexID+"_prefix", dagID, "")
	}
	if err != nil {
		return fmt.Errorf("delete the run marks of %q: %w", dagID, err)
	}
	return nil
}

// remarkRunsTxn sets every mark anew from the runs (a restore, a recount):
// one walk of every run in (dag_id, id) order.
func remarkRunsTxn(txn *memdb.Txn) error {
	if err := deleteMarksOfTxn(txn, ""); err != nil {
		return err
	}
	it, err := txn.Get(tableDagRuns, indexDagRow)
	if err != nil {
		return fmt.Errorf("mark runs: %w", err)
	}
	var last [len(markedRunAttrs)]*DagRun // the DAG's last settled run with a value, per order
	var marks [len(markedRunAttrs)]*runOrderMarks
	var durations []durationEntry // the DAG's settled runs'
	var fixed *fixedMarker        // the DAG's fixed marks, over every run
	flush := func() error {
		if marks[0] != nil {
			if err := putDurationChunksTxn(txn, marks[0].DagID, durations); err != nil {
				return err
			}
			if err := fixed.put(txn); err != nil {
				return err
			}
		}
		durations = nil
		for _, m := range marks {
			if m != nil && (len(m.Breaks) > 0 || len(m.Nulls) > 0) {
				if err := txn.Insert(tableSettledMarks, m); err != nil {
					return fmt.Errorf("store the %s marks of %s: %w", m.Attr, m.DagID, err)
				}
			}
		}
		return nil
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		r := raw.(*DagRun)
		if marks[0] == nil || r.DagID != marks[0].DagID {
			if err := flush(); err != nil {
				return err
			}
			last = [len(markedRunAttrs)]*DagRun{}
			for i, attr := range markedRunAttrs {
				marks[i] = &runOrderMarks{DagID: r.DagID, Attr: attr}
			}
			fixed = newFixedMarker(r.DagID)
		}
		fixed.add(r)
		if !runSettled(r) {
			continue
		}
		durations = append(durations, durationOf(r))
		for i, attr := range markedRunAttrs {
			switch {
			case runAttrNullable(attr, r):
				marks[i].Nulls = append(marks[i].Nulls, r.ID)
				continue
			case last[i] != nil && breaks(i, r, last[i]):
				marks[i].Breaks = append(marks[i].Breaks, breakOf(attr, r, last[i]))
			}
			last[i] = r
		}
	}
	return flush()
}
