package main

// The orders of values a run is created with and keeps (conf, /api/v1's
// external_trigger, the data interval Airflow 3 orders task instances
// by), kept as marks where a DAG's runs, every one of them
// in id order, descend in the order: a page merges the stretches between
// the marks, each in order, as it does a marked order's
// (memstore_runorder.go), instead of reading and sorting every run. A new
// run is the DAG's highest id, so a trigger compares its values with the
// DAG's newest run's, which its counts keep (runCount.Newest), and writes
// a mark only when its value is below that one: most runs of a DAG share
// a conf ({}) and an external_trigger, and write nothing.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// tableFixedMarks is derived from the runs: the marks of each fixed order.
// A trigger writes it when its run breaks an order; its name shares no
// leading letters with another table a trigger writes (go-memdb keeps the
// tables' trees in one radix tree by name).
const tableFixedMarks = "fixed_run_marks"

func init() {
	derivedTables[tableFixedMarks] = true
}

// fixedRunAttrs are the orders the fixed marks keep (compareRunAttr's
// names): a run's conf, external_trigger and data interval are set when
// it is created and never changed (no API sets them on a stored run).
// The data interval's orders are those of Airflow 3's task-instance
// listings (SortParam's to_replace, c57fba0e
// routes/public/task_instances.py:461-466: TIRunOrderPage walks the runs
// in them); a DAG's scheduled runs ascend in them, and a run without an
// interval (NULL, below every value) after one with writes a mark.
var fixedRunAttrs = [...]string{"conf", "external_trigger", "data_interval_start", "data_interval_end"}

// fixedMarksMax bounds a DAG's marks in a fixed order. Past it (confs
// that descend every other run: each run's conf its own, in no order)
// the DAG's order is no longer kept (Unkept) and its pages sort, as
// before, until a restore's recount marks it again: a page sorts the
// stretches that wait (one a mark) and a run that breaks the order
// copies the DAG's marks, so that many would cost each page and trigger
// more than they save.
const fixedMarksMax = 512

// fixedValues are a run's values in the fixed orders. Conf and the
// interval share the run's (never changed once stored).
type fixedValues struct {
	Conf                       json.RawMessage
	External                   bool
	IntervalStart, IntervalEnd *time.Time
}

func fixedValuesOf(r *DagRun) fixedValues {
	return fixedValues{Conf: r.Conf, External: r.ExternalTrigger, IntervalStart: r.DataIntervalStart, IntervalEnd: r.DataIntervalEnd}
}

// compareFixed orders two runs' values in a fixed order as
// compareRunAttr does: conf by its stored bytes, external_trigger false
// before true, the interval's times with NULL below every time (SQLite's
// order, which Airflow 3's SortParam has).
func compareFixed(attr string, a, b fixedValues) int {
	switch attr {
	case "conf":
		return bytes.Compare(a.Conf, b.Conf)
	case "data_interval_start":
		return compareNullLow(a.IntervalStart, b.IntervalStart)
	case "data_interval_end":
		return compareNullLow(a.IntervalEnd, b.IntervalEnd)
	}
	return boolCompare(a.External, b.External)
}

// compareNullLow orders two times, NULL below every time.
func compareNullLow(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

// fixedBreak is a run whose value is below that of the run before it (a
// descent), with the id and values of that run: the first run of a
// stretch and the last of the one before, so that a page starts a
// stretch's walk when the merge reaches its first run, either way.
type fixedBreak struct {
	ID, PrevID       int64
	Value, PrevValue fixedValues
}

// runFixedMarks are a DAG's marks in one of fixedRunAttrs: the runs that
// break the order (Breaks), by id. Between two breaks the DAG's runs, in
// id order, are in the order, ties by id. Unkept says that the DAG had
// more than fixedMarksMax, and keeps none.
type runFixedMarks struct {
	DagID, Attr string
	Breaks      []fixedBreak
	Unkept      bool
}

// fixedMarksTable holds the marks by (dag_id, attr); a DAG's rows go with
// its runs.
func fixedMarksTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableFixedMarks,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringPairIndex(
				func(m *runFixedMarks) string { return m.DagID }, func(m *runFixedMarks) string { return m.Attr })},
		},
	}
}

// fixedMarksTxn is a DAG's marks in a fixed order (none: empty).
func fixedMarksTxn(txn *memdb.Txn, dagID, attr string) (*runFixedMarks, error) {
	raw, err := txn.First(tableFixedMarks, indexID, dagID, attr)
	if err != nil {
		return nil, fmt.Errorf("look up the %s marks of %s: %w", attr, dagID, err)
	}
	if raw == nil {
		return &runFixedMarks{DagID: dagID, Attr: attr}, nil
	}
	return raw.(*runFixedMarks), nil
}

// fixedBreakAfter is r's break after prev in an order (nil: r does not
// break it, or there is no prev).
func fixedBreakAfter(attr string, r, prev *DagRun) *fixedBreak {
	if r == nil || prev == nil {
		return nil
	}
	v, pv := fixedValuesOf(r), fixedValuesOf(prev)
	if compareFixed(attr, v, pv) >= 0 {
		return nil
	}
	return &fixedBreak{ID: r.ID, PrevID: prev.ID, Value: v, PrevValue: pv}
}

// with is m with a run's break set to b (nil: none): m itself when it
// already is, else a copy; past fixedMarksMax breaks the copy keeps none
// (Unkept).
func (m *runFixedMarks) with(id int64, b *fixedBreak) *runFixedMarks {
	if m.Unkept {
		return m
	}
	i, has := slices.BinarySearchFunc(m.Breaks, id, func(b fixedBreak, id int64) int { return cmp.Compare(b.ID, id) })
	switch {
	case !has && b == nil:
		return m
	case has && b != nil && fixedBreaksEqual(m.Breaks[i], *b):
		return m
	}
	next := &runFixedMarks{DagID: m.DagID, Attr: m.Attr}
	switch {
	case b == nil:
		next.Breaks = slices.Delete(slices.Clone(m.Breaks), i, i+1)
	case has:
		next.Breaks = slices.Clone(m.Breaks)
		next.Breaks[i] = *b
	case len(m.Breaks) >= fixedMarksMax:
		next.Unkept = true
	default:
		next.Breaks = slices.Insert(slices.Clone(m.Breaks), i, *b)
	}
	return next
}

func fixedBreaksEqual(a, b fixedBreak) bool {
	return a.ID == b.ID && a.PrevID == b.PrevID && fixedValuesEqual(a.Value, b.Value) && fixedValuesEqual(a.PrevValue, b.PrevValue)
}

// fixedValuesEqual reports whether two runs' values are the same in
// every fixed order.
func fixedValuesEqual(x, y fixedValues) bool {
	return bytes.Equal(x.Conf, y.Conf) && x.External == y.External && compareNullLow(x.IntervalStart, y.IntervalStart) == 0 &&
		compareNullLow(x.IntervalEnd, y.IntervalEnd) == 0
}

// putFixedMarksTxn stores a DAG's changed marks of a fixed order (none
// left and kept: the row goes).
func putFixedMarksTxn(txn *memdb.Txn, old, next *runFixedMarks) error {
	if next == old {
		return nil
	}
	var err error
	switch {
	case len(next.Breaks) > 0 || next.Unkept:
		err = txn.Insert(tableFixedMarks, next)
	case len(old.Breaks) > 0 || old.Unkept:
		err = txn.Delete(tableFixedMarks, old)
	}
	if err != nil {
		return fmt.Errorf("store the %s marks of %s: %w", next.Attr, next.DagID, err)
	}
	return nil
}

// fixedRunCountTxn keeps the fixed marks, and c's newest run, once run
// comes (sign 1: its row inserted) or goes (sign -1: its row deleted); c
// is the DAG's counts as they were before (countNewRunTxn's). A run above
// every other, a new one, is compared with the newest run c keeps:
// nothing is read, and a mark written only when it breaks an order. A run
// that goes, or comes below the newest (no write of the store does
// that), has its marks and those of the run after it set anew from its
// neighbours, read when the DAG has marks in the order.
func fixedRunCountTxn(txn *memdb.Txn, c *runCount, run *DagRun, sign int) error {
	if sign > 0 && (c.N == 0 || run.ID > c.NewestID) {
		if c.N > 0 {
			if err := fixedTopRunTxn(txn, run, c.NewestID, c.Newest); err != nil {
				return err
			}
		}
		c.NewestID, c.Newest = run.ID, fixedValuesOf(run)
		return nil
	}
	if sign < 0 && run.ID == c.NewestID {
		prev, err := runBesideTxn(txn, run.DagID, run.ID, true)
		if err != nil {
			return err
		}
		c.NewestID, c.Newest = 0, fixedValues{}
		if prev != nil {
			c.NewestID, c.Newest = prev.ID, fixedValuesOf(prev)
		}
	}
	return refixRunTxn(txn, run, sign > 0)
}

// fixedTopRunTxn marks a new run above every other of its DAG in the
// orders where its value is below the newest run's (id, values).
func fixedTopRunTxn(txn *memdb.Txn, run *DagRun, newestID int64, newest fixedValues) error {
	v := fixedValuesOf(run)
	var all [len(fixedRunAttrs)]*runFixedMarks
	for i, attr := range fixedRunAttrs {
		if compareFixed(attr, v, newest) >= 0 {
			continue
		}
		m, err := fixedMarksTxn(txn, run.DagID, attr)
		if err != nil {
			return err
		}
		all[i] = m
	}
	for _, m := range all {
		if m == nil {
			continue
		}
		next := m.with(run.ID, &fixedBreak{ID: run.ID, PrevID: newestID, Value: v, PrevValue: newest})
		if err := putFixedMarksTxn(txn, m, next); err != nil {
			return err
		}
	}
	return nil
}

// refixRunTxn sets the fixed marks of a run that came (inserted) or went,
// and of the run after it, anew from their neighbours. A run that goes
// from an order without marks leaves it without (its runs ascend, and
// still do without it): nothing is read.
func refixRunTxn(txn *memdb.Txn, run *DagRun, inserted bool) error {
	var all [len(fixedRunAttrs)]*runFixedMarks
	need := false
	for i, attr := range fixedRunAttrs {
		m, err := fixedMarksTxn(txn, run.DagID, attr)
		if err != nil {
			return err
		}
		all[i] = m
		need = need || (!m.Unkept && (inserted || len(m.Breaks) > 0))
	}
	if !need {
		return nil
	}
	prev, err := runBesideTxn(txn, run.DagID, run.ID, true)
	if err != nil {
		return err
	}
	after, err := runBesideTxn(txn, run.DagID, run.ID, false)
	if err != nil {
		return err
	}
	cur, prevOfAfter := (*DagRun)(nil), prev
	if inserted {
		cur, prevOfAfter = run, run
	}
	for i, attr := range fixedRunAttrs {
		m := all[i]
		next := m.with(run.ID, fixedBreakAfter(attr, cur, prev))
		if after != nil {
			next = next.with(after.ID, fixedBreakAfter(attr, after, prevOfAfter))
		}
		if err := putFixedMarksTxn(txn, m, next); err != nil {
			return err
		}
	}
	return nil
}

// runBesideTxn is the DAG's run nearest id before it (back) or after it,
// nil when there is none.
func runBesideTxn(txn *memdb.Txn, dagID string, id int64, back bool) (*DagRun, error) {
	var it memdb.ResultIterator
	var err error
	if back {
		if id <= 0 {
			return nil, nil
		}
		it, err = txn.ReverseLowerBound(tableDagRuns, indexDagRow, dagID, id-1)
	} else {
		it, err = txn.LowerBound(tableDagRuns, indexDagRow, dagID, id+1)
	}
	if err != nil {
		return nil, fmt.Errorf("find the runs beside run %d of %s: %w", id, dagID, err)
	}
	if raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID {
		return raw.(*DagRun), nil
	}
	return nil, nil
}

// fixedMarker builds a DAG's fixed marks from its runs in id order
// (remarkRunsTxn's walk): add each run in turn, then put.
type fixedMarker struct {
	marks [len(fixedRunAttrs)]*runFixedMarks
	last  *DagRun
}

func newFixedMarker(dagID string) *fixedMarker {
	f := &fixedMarker{}
	for i, attr := range fixedRunAttrs {
		f.marks[i] = &runFixedMarks{DagID: dagID, Attr: attr}
	}
	return f
}

func (f *fixedMarker) add(r *DagRun) {
	for i, attr := range fixedRunAttrs {
		if b := fixedBreakAfter(attr, r, f.last); b != nil && !f.marks[i].Unkept {
			if len(f.marks[i].Breaks) >= fixedMarksMax {
				f.marks[i].Breaks, f.marks[i].Unkept = nil, true
			} else {
				f.marks[i].Breaks = append(f.marks[i].Breaks, *b)
			}
		}
	}
	f.last = r
}

func (f *fixedMarker) put(txn *memdb.Txn) error {
	for _, m := range f.marks {
		if len(m.Breaks) > 0 || m.Unkept {
			if err := txn.Insert(tableFixedMarks, m); err != nil {
				return fmt.Errorf("store the %s marks of %s: %w", m.Attr, m.DagID, err)
			}
		}
	}
	return nil
}

// deleteFixedMarksOfTxn removes a DAG's fixed marks ("": every DAG's).
func deleteFixedMarksOfTxn(txn *memdb.Txn, dagID string) error {
	var err error
	if dagID == "" {
		_, err = txn.DeleteAll(tableFixedMarks, indexID)
	} else {
		_, err = txn.DeleteAll(tableFixedMarks, indexID+"_prefix", dagID, "")
	}
	if err != nil {
		return fmt.Errorf("delete the fixed run marks of %q: %w", dagID, err)
	}
	return nil
}
