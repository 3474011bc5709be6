package main

// Airflow 3's order of runs by duration (DagRun.duration, end_date less
// start_date: an order_by that get_dag_runs' SortParam accepts,
// routes/public/dag_run.py): durations follow no order of the runs' ids
// (a mark, memstore_runmarks.go, would break every other run), so each
// DAG's settled runs' (duration, id) are kept sorted in chunks, rows of a
// derived table written when a run settles or its dates change as it
// stays settled (never by a trigger or a start: an unfinished run is in
// no chunk; a page reads those as pendingRunsTxn remembers them). A page
// walks the chunks in the order and looks each run up. An entry is 24
// bytes a settled run, where an index entry of the run table costs
// about 470 (runOrderMarks).

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	memdb "github.com/hashicorp/go-memdb"
)

// tableRunDurations is derived from the runs: chunks of each DAG's settled
// runs by duration. Its name shares its leading letters with no table a
// trigger writes.
const tableRunDurations = "settled_run_durations"

func init() {
	derivedTables[tableRunDurations] = true
}

// durationChunkSize is how many entries a chunk holds after a split (a
// chunk splits past twice as many): a run's end copies one chunk.
const durationChunkSize = 64

// durationEntry is a settled run in the order: its duration in seconds
// (runDuration's, as the listing compares them), or Null when it has no
// start or end date (after every value, by id), and its id.
type durationEntry struct {
	Null bool
	D    float64
	ID   int64
}

// durationOf is a settled run's entry.
func durationOf(r *DagRun) durationEntry {
	d := runDuration(r)
	if d == nil {
		return durationEntry{Null: true, ID: r.ID}
	}
	return durationEntry{D: *d + 0, ID: r.ID} // +0: no negative zero, which the key would put apart
}

// compareDurations is the chunks' order: values up, then the nulls, ties
// and nulls by id.
func compareDurations(a, b durationEntry) int {
	return cmp.Or(boolCompare(a.Null, b.Null), cmp.Compare(a.D, b.D), cmp.Compare(a.ID, b.ID))
}

// runDurationChunk is some of a DAG's settled runs in the order, at least
// one, keyed by the first.
type runDurationChunk struct {
	DagID   string
	Entries []durationEntry
}

// runDurationsTable holds the chunks by (dag_id, first entry).
func runDurationsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableRunDurations,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: durationChunkIndex{}},
		},
	}
}

// durationChunkIndex keys a chunk as dag_id NUL and its first entry,
// whose bytes sort as compareDurations. FromArgs takes a dag_id and an
// entry (where LowerBound and ReverseLowerBound seek), or a dag_id alone
// (a DAG's chunks, also PrefixFromArgs).
type durationChunkIndex struct{}

func durationKey(dagID string, e *durationEntry) []byte {
	k := make([]byte, 0, len(dagID)+18)
	k = append(append(k, dagID...), 0)
	if e == nil {
		return k
	}
	null := byte(0)
	if e.Null {
		null = 1
	}
	// A float's bits sort as its value once the sign bit is flipped for
	// positive values and every bit for negative ones.
	bits := math.Float64bits(e.D)
	if bits>>63 == 0 {
		bits |= 1 << 63
	} else {
		bits = ^bits
	}
	k = binary.BigEndian.AppendUint64(append(k, null), bits)
	return append(k, encodeInt64(e.ID)...)
}

func (durationChunkIndex) FromObject(obj any) (bool, []byte, error) {
	c, ok := obj.(*runDurationChunk)
	if !ok {
		return false, nil, fmt.Errorf("run duration index: want *runDurationChunk, got %T", obj)
	}
	if c.DagID == "" || len(c.Entries) == 0 {
		return false, nil, fmt.Errorf("run duration index: chunk of %q with %d entries", c.DagID, len(c.Entries))
	}
	return true, durationKey(c.DagID, &c.Entries[0]), nil
}

func (durationChunkIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("run duration index: want (dag_id[, entry]), got %d arguments", len(args))
	}
	dagID, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("run duration index: dag_id must be a string: %#v", args[0])
	}
	if len(args) == 1 {
		return durationKey(dagID, nil), nil
	}
	e, ok := args[1].(durationEntry)
	if !ok {
		return nil, fmt.Errorf("run duration index: want a durationEntry: %#v", args[1])
	}
	return durationKey(dagID, &e), nil
}

func (x durationChunkIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// durationChunkTxn is the chunk of the DAG that holds e, or would: the
// last that starts at e or before it, else the DAG's first; nil when the
// DAG has none.
func durationChunkTxn(txn *memdb.Txn, dagID string, e durationEntry) (*runDurationChunk, error) {
	it, err := txn.ReverseLowerBound(tableRunDurations, indexID, dagID, e)
	if err != nil {
		return nil, fmt.Errorf("find the duration chunk of run %d of %s: %w", e.ID, dagID, err)
	}
	if raw := it.Next(); raw != nil && raw.(*runDurationChunk).DagID == dagID {
		return raw.(*runDurationChunk), nil
	}
	raw, err := txn.First(tableRunDurations, indexID+"_prefix", dagID)
	if err != nil {
		return nil, fmt.Errorf("find the duration chunks of %s: %w", dagID, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*runDurationChunk), nil
}

// durationRunTxn keeps the chunks after a run changed from old to next
// (either nil; markRunTxn's arguments): its entry leaves with old when
// old was settled and comes with next when next is.
func durationRunTxn(txn *memdb.Txn, old, next *DagRun) error {
	if runSettled(old) && runSettled(next) && durationOf(old) == durationOf(next) {
		return nil
	}
	if runSettled(old) {
		if err := unsetDurationTxn(txn, old.DagID, durationOf(old)); err != nil {
			return err
		}
	}
	if runSettled(next) {
		return setDurationTxn(txn, next.DagID, durationOf(next))
	}
	return nil
}

// setDurationTxn puts an entry in its chunk, splitting a chunk grown past
// twice durationChunkSize.
func setDurationTxn(txn *memdb.Txn, dagID string, e durationEntry) error {
	c, err := durationChunkTxn(txn, dagID, e)
	if err != nil {
		return err
	}
	var entries []durationEntry
	if c != nil {
		i, found := slices.BinarySearchFunc(c.Entries, e, compareDurations)
		if found {
			return fmt.Errorf("order run %d of %s by duration: already there", e.ID, dagID)
		}
		entries = slices.Insert(slices.Clone(c.Entries), i, e)
	} else {
		entries = []durationEntry{e}
	}
	return replaceDurationChunkTxn(txn, c, dagID, entries)
}

// unsetDurationTxn takes an entry from its chunk.
func unsetDurationTxn(txn *memdb.Txn, dagID string, e durationEntry) error {
	c, err := durationChunkTxn(txn, dagID, e)
	if err != nil {
		return err
	}
	i, found := 0, false
	if c != nil {
		i, found = slices.BinarySearchFunc(c.Entries, e, compareDurations)
	}
	if !found {
		return fmt.Errorf("unorder run %d of %s by duration: no chunk holds it", e.ID, dagID)
	}
	return replaceDurationChunkTxn(txn, c, dagID, slices.Delete(slices.Clone(c.Entries), i, i+1))
}

// replaceDurationChunkTxn stores entries in old's place (old nil: a new
// chunk; entries empty: none), in two chunks when they are too many.
func replaceDurationChunkTxn(txn *memdb.Txn, old *runDurationChunk, dagID string, entries []durationEntry) error {
	if old != nil && (len(entries) == 0 || entries[0] != old.Entries[0]) {
		if err := txn.Delete(tableRunDurations, old); err != nil {
			return fmt.Errorf("replace a duration chunk of %s: %w", dagID, err)
		}
	}
	chunks := [][]durationEntry{entries}
	if len(entries) > 2*durationChunkSize {
		chunks = [][]durationEntry{entries[:durationChunkSize:durationChunkSize], entries[durationChunkSize:]}
	}
	for _, part := range chunks {
		if len(part) == 0 {
			continue
		}
		if err := txn.Insert(tableRunDurations, &runDurationChunk{DagID: dagID, Entries: part}); err != nil {
			return fmt.Errorf("store a duration chunk of %s: %w", dagID, err)
		}
	}
	return nil
}

// putDurationChunksTxn stores a DAG's entries, sorted, in chunks (a
// rebuild).
func putDurationChunksTxn(txn *memdb.Txn, dagID string, entries []durationEntry) error {
	slices.SortFunc(entries, compareDurations)
	for len(entries) > 0 {
		n := min(len(entries), durationChunkSize)
		if err := txn.Insert(tableRunDurations, &runDurationChunk{DagID: dagID, Entries: entries[:n:n]}); err != nil {
			return fmt.Errorf("store a duration chunk of %s: %w", dagID, err)
		}
		entries = entries[n:]
	}
	return nil
}

// deleteDurationsOfTxn removes a DAG's chunks ("": every DAG's).
func deleteDurationsOfTxn(txn *memdb.Txn, dagID string) error {
	var err error
	if dagID == "" {
		_, err = txn.DeleteAll(tableRunDurations, indexID)
	} else {
		_, err = txn.DeleteAll(tableRunDurations, indexID+"_prefix", dagID)
	}
	if err != nil {
		return fmt.Errorf("delete the duration chunks of %q: %w", dagID, err)
	}
	return nil
}

// runDurationWalk yields a DAG's settled runs from its chunks in the
// listing's order by duration (Airflow 3's SortParam: nulls below every
// value, first ascending, last descending): the values (nulls false) or
// the nulls (nulls true), each a walk of the chunks in the direction,
// from the first chunk that holds its part; the merge puts the two
// walks in the order. With tie set (keys after duration), the runs of one duration are
// read together and put in the listing's order.
type runDurationWalk struct {
	w       *runOrderWalk
	dagID   string
	it      memdb.ResultIterator
	desc    bool
	nulls   bool // the walk of the nulls
	entries []durationEntry
	at      int
	tie     bool
	compare func(a, b *DagRun) int
	held    []*DagRun
	peeked  *durationEntry
	last    *DagRun
	done    bool
}

// addDurationWalks adds a DAG's walks by duration to m.
func (w *runOrderWalk) addDurationWalks(m *runOrderMerge, dagID string) error {
	pending, err := w.s.pendingRunsTxn(w.txn, dagID, &w.read)
	if err != nil {
		return fmt.Errorf("list the unfinished runs of %s: %w", dagID, err)
	}
	if others := pending.inOrder(w.q.CompareName, w.q.Compare); len(others) > 0 {
		m.add(&runSliceWalk{runs: others})
	}
	for _, nulls := range []bool{false, true} {
		var it memdb.ResultIterator
		switch {
		case w.q.Desc:
			top := durationEntry{Null: nulls, D: math.Inf(1), ID: math.MaxInt64}
			if nulls {
				top.D = 0
			}
			it, err = w.txn.ReverseLowerBound(tableRunDurations, indexID, dagID, top)
		case nulls:
			it, err = w.nullDurationsUp(dagID)
		default:
			it, err = w.txn.Get(tableRunDurations, indexID+"_prefix", dagID)
		}
		if err != nil {
			return fmt.Errorf("list runs of %s by duration: %w", dagID, err)
		}
		m.add(&runDurationWalk{w: w, dagID: dagID, it: it, desc: w.q.Desc, nulls: nulls, tie: w.q.Lead != nil, compare: w.q.Compare})
	}
	return nil
}

// nullDurationsUp is an ascending walk of a DAG's chunks from the one
// that holds its first null: the last chunk led by a value (which may end
// with nulls), else the DAG's first.
func (w *runOrderWalk) nullDurationsUp(dagID string) (memdb.ResultIterator, error) {
	back, err := w.txn.ReverseLowerBound(tableRunDurations, indexID, dagID, durationEntry{D: math.Inf(1), ID: math.MaxInt64})
	if err != nil {
		return nil, err
	}
	if raw := back.Next(); raw != nil && raw.(*runDurationChunk).DagID == dagID {
		return w.txn.LowerBound(tableRunDurations, indexID, dagID, raw.(*runDurationChunk).Entries[0])
	}
	return w.txn.LowerBound(tableRunDurations, indexID, dagID)
}

// entry is the walk's next entry; false at its end.
func (x *runDurationWalk) entry() (durationEntry, bool) {
	if x.peeked != nil {
		e := *x.peeked
		x.peeked = nil
		return e, true
	}
	for !x.done {
		if x.at < len(x.entries) {
			e := x.entries[x.at]
			if x.desc {
				e = x.entries[len(x.entries)-1-x.at]
			}
			x.at++
			switch {
			case e.Null == x.nulls:
				return e, true
			case x.desc == x.nulls:
				x.done = true // past the walk's part: descending below the nulls, ascending above the values
			}
			continue // the other part, before the walk's
		}
		raw := x.it.Next()
		if raw == nil || raw.(*runDurationChunk).DagID != x.dagID {
			x.done = true
			break
		}
		x.w.read++
		x.entries, x.at = raw.(*runDurationChunk).Entries, 0
	}
	return durationEntry{}, false
}

// run looks an entry's run up (a missing run: the chunks do not follow
// the runs, and the caller sorts).
func (x *runDurationWalk) run(e durationEntry) (*DagRun, error) {
	raw, err := x.w.txn.First(tableDagRuns, indexDagRow, x.dagID, e.ID)
	if err != nil {
		return nil, fmt.Errorf("look up run %d of %s: %w", e.ID, x.dagID, err)
	}
	if raw == nil {
		return nil, errOrderNotWalked
	}
	x.w.read++
	return raw.(*DagRun), nil
}

func (x *runDurationWalk) next() (*DagRun, error) {
	if len(x.held) == 0 {
		e, ok := x.entry()
		if !ok {
			return nil, nil
		}
		r, err := x.run(e)
		if err != nil {
			return nil, err
		}
		x.held = append(x.held, r)
		for x.tie {
			n, ok := x.entry()
			if !ok {
				break
			}
			if n.Null != e.Null || n.D != e.D {
				x.peeked = &n
				break
			}
			r, err := x.run(n)
			if err != nil {
				return nil, err
			}
			x.held = append(x.held, r)
		}
		if len(x.held) > 1 {
			slices.SortFunc(x.held, x.compare)
		}
	}
	r := x.held[0]
	x.held = x.held[1:]
	if x.last != nil && x.compare(x.last, r) >= 0 {
		return nil, errOrderNotWalked
	}
	x.last = r
	return r, nil
}
