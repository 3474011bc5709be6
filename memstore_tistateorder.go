package main

// Airflow 3's task instances across runs by a key that changes while a
// task instance lives: state, end_date, duration, try_number (order_by
// names get_task_instances' SortParam maps to the TaskInstance columns
// of those names, routes/public/task_instances.py:441-466 of c57fba0e;
// the Airflow 3 UI's task instance table sorts by its state, dates,
// duration and try columns), and the task instances without a start in
// the start_date order. As the start order (memstore_tistarts.go), each
// DAG's settled runs' task instances are kept sorted by (key, id) in
// chunks, written when a run settles or goes (its task instances in one
// go) and when a settled run's task instance changes a key or its id,
// never by a trigger or a try in a running run; a page merges the chunks
// with the DAG's unfinished runs' task instances, read and sorted once per
// version of its runs and task instances (pendingKeyedTxn). Unlike the
// start chunks, these hold the task instances whose key is NULL too,
// below every value (SQLite's order, sortParamCompare), so a page never
// falls back to the sort. One table holds every order's chunks, and each
// DAG's tail: the runs that settled since its last flush (tiKeyTailMax),
// whose task instances a page reads from their rows with the unfinished
// runs' (once per version), so that a run's settling writes one row, not
// a chunk of each order (about 100 allocations each, with their radix
// trees' paths: 9 % more for BenchmarkSchedulerEmptyOperators3).

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	memdb "github.com/hashicorp/go-memdb"
)

// tiKeyOrder is an order a keyed chunk belongs to.
type tiKeyOrder uint8

const (
	tiKeyState tiKeyOrder = iota + 1
	tiKeyEndDate
	tiKeyDuration
	tiKeyTryNumber
	// tiKeyUnstarted holds the task instances without a start (key NULL,
	// by id): the part of the start_date order the start chunks leave out.
	tiKeyUnstarted
)

// tiKeyOrders are the orders the keyed chunks hold.
var tiKeyOrders = [...]tiKeyOrder{tiKeyState, tiKeyEndDate, tiKeyDuration, tiKeyTryNumber, tiKeyUnstarted}

// tiKeyOrderOf is the chunks' order of an order_by attribute.
func tiKeyOrderOf(attr string) (tiKeyOrder, bool) {
	switch attr {
	case "state":
		return tiKeyState, true
	case "end_date":
		return tiKeyEndDate, true
	case "duration":
		return tiKeyDuration, true
	case "try_number":
		return tiKeyTryNumber, true
	}
	return 0, false
}

// tiNullKey is the Sec of a NULL key: below every value's.
const tiNullKey = math.MinInt64

// tiKeyOf is a task instance's entry in an order, its key in Sec and
// Nsec (compareTIStarts' order is the key's): false when it has no id (an
// edition before 3) or, in tiKeyUnstarted, a start.
//   - state: its first 12 bytes, big-endian (Airflow's states differ
//     within them; "" is None, NULL);
//   - end_date: as a start is (tiStartOf);
//   - duration: the float's bits in an order that sorts as the value;
//   - try_number: the number.
func tiKeyOf(order tiKeyOrder, ti *TaskInstance) (tiStartEntry, bool) {
	if ti.ID == "" {
		return tiStartEntry{}, false
	}
	e := tiStartEntry{Sec: tiNullKey, MapIndex: int32(ti.MapIndex), ID: ti.ID, RunID: ti.RunID, TaskID: ti.TaskID}
	switch order {
	case tiKeyState:
		var b [12]byte
		copy(b[:], ti.State)
		e.Sec = int64(binary.BigEndian.Uint64(b[:8]) ^ 1<<63)
		e.Nsec = int32(binary.BigEndian.Uint32(b[8:])) // ASCII: the sign bit stays clear
	case tiKeyEndDate:
		if ti.EndDate != nil {
			e.Sec, e.Nsec = ti.EndDate.Unix(), int32(ti.EndDate.Nanosecond())
		}
	case tiKeyDuration:
		if ti.Duration != nil {
			// +0: no negative zero, which compares equal to zero.
			bits := math.Float64bits(*ti.Duration + 0)
			if bits>>63 == 0 {
				bits |= 1 << 63
			} else {
				bits = ^bits
			}
			e.Sec = int64(bits ^ 1<<63)
		}
	case tiKeyTryNumber:
		e.Sec = int64(ti.TryNumber)
	case tiKeyUnstarted:
		if ti.StartDate != nil {
			return tiStartEntry{}, false
		}
	default:
		return tiStartEntry{}, false
	}
	return e, true
}

// tiStartOrUnstarted is a task instance's entry in the whole start_date
// order: its start's, or the NULL key's when it has none.
func tiStartOrUnstarted(ti *TaskInstance) (tiStartEntry, bool) {
	if e, ok := tiStartOf(ti); ok {
		return e, true
	}
	return tiKeyOf(tiKeyUnstarted, ti)
}

// tiKeysDiffer reports whether a task instance's change from a to b
// (one task and map_index) moves it in one of the keyed orders.
func tiKeysDiffer(a, b *TaskInstance) bool {
	return a.ID != b.ID || a.State != b.State || a.TryNumber != b.TryNumber || (a.StartDate == nil) != (b.StartDate == nil) ||
		compareTimes(a.EndDate, b.EndDate) != 0 || (a.EndDate == nil) != (b.EndDate == nil) ||
		(a.Duration == nil) != (b.Duration == nil) || (a.Duration != nil && *a.Duration != *b.Duration)
}

// diffTIRows calls gone for each task instance of old whose task and
// map_index new has not, came for each of new's that old has not, and
// changed for the pairs of one task and map_index that are not the same
// pointer (a write copies what it changes; both sorted as runTasks keeps
// them): the rows a write of a run's task instances replaced, walked once
// by each derived order of them.
func diffTIRows(old, new []*TaskInstance, gone, came func(*TaskInstance), changed func(a, b *TaskInstance)) {
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new):
			gone(old[i])
			i++
		case i == len(old):
			came(new[j])
			j++
		case old[i] == new[j]:
			i++
			j++
		default:
			a, b := old[i], new[j]
			switch c := cmp.Or(strings.Compare(a.TaskID, b.TaskID), cmp.Compare(a.MapIndex, b.MapIndex)); {
			case c < 0:
				gone(a)
				i++
			case c > 0:
				came(b)
				j++
			default:
				changed(a, b)
				i++
				j++
			}
		}
	}
}

// tableTIKeyed is derived from the task instances: chunks of each DAG's
// settled runs' task instances in the keyed orders. Its name shares its
// leading letters with no table a trigger writes.
const tableTIKeyed = "keyed_task_instances"

func init() {
	derivedTables[tableTIKeyed] = true
}

// tiKeyChunk is a chunk of an order: some of a DAG's settled runs' task
// instances, at least one, in the order of their entries (tiKeyOf), keyed
// by the first's. It holds the task instances, not their entries (8
// bytes each, not 64: four orders of entries took a task instance's heap
// from 916 to 1,245 bytes), and a walk computes each entry from its task
// instance: a stored task instance is never changed (a write copies what
// it changes), and a settled run's task instance whose key or id changes
// leaves its chunks with its old one (rekeyTIsTxn). One whose other
// columns change may stay there as the copy before: its entry is the
// same, and a page resolves an entry from its run's row.
type tiKeyChunk struct {
	Order tiKeyOrder
	DagID string
	TIs   []*TaskInstance
}

// tiKeyedTable holds the chunks by (order, dag_id, first entry).
func tiKeyedTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIKeyed,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: tiKeyChunkIndex{}},
		},
	}
}

// tiKeyTail is a DAG's settled runs whose task instances no keyed chunk
// holds yet, in the order they settled; never changed once stored.
type tiKeyTail struct {
	DagID  string
	RunIDs []string
	// N is how many task instances the runs had when they settled.
	N int
}

// tiKeyTailMax is how many runs a DAG's tail holds before they go to
// the chunks in one write; tiKeyTailMaxTIs how many of their task
// instances (a run of thousands of mapped instances goes at once).
const (
	tiKeyTailMax    = 16
	tiKeyTailMaxTIs = 2048
)

// tiKeyChunkIndex keys a chunk as its order's byte and the start index's
// key (tiStartKey), a tail as a zero byte and its dag_id NUL. FromArgs
// takes (order, dag_id[, entry]), also PrefixFromArgs.
type tiKeyChunkIndex struct{}

func (tiKeyChunkIndex) FromObject(obj any) (bool, []byte, error) {
	if t, ok := obj.(*tiKeyTail); ok {
		if t.DagID == "" {
			return false, nil, fmt.Errorf("task instance key index: a tail without a dag_id")
		}
		return true, appendTIStartKey([]byte{0}, t.DagID, nil), nil
	}
	c, ok := obj.(*tiKeyChunk)
	if !ok {
		return false, nil, fmt.Errorf("task instance key index: want *tiKeyChunk, got %T", obj)
	}
	if c.Order == 0 || c.DagID == "" || len(c.TIs) == 0 {
		return false, nil, fmt.Errorf("task instance key index: chunk %d of %q with %d task instances", c.Order, c.DagID, len(c.TIs))
	}
	e, ok := tiKeyOf(c.Order, c.TIs[0])
	if !ok {
		return false, nil, fmt.Errorf("task instance key index: chunk %d of %q led by task %s of %s, not in the order", c.Order, c.DagID, c.TIs[0].TaskID, c.TIs[0].RunID)
	}
	return true, appendTIStartKey([]byte{byte(c.Order)}, c.DagID, &e), nil
}

func (tiKeyChunkIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, fmt.Errorf("task instance key index: want (order, dag_id[, entry]), got %d arguments", len(args))
	}
	order, ok := args[0].(tiKeyOrder)
	if !ok {
		return nil, fmt.Errorf("task instance key index: order must be a tiKeyOrder: %#v", args[0])
	}
	dagID, ok := args[1].(string)
	if !ok {
		return nil, fmt.Errorf("task instance key index: dag_id must be a string: %#v", args[1])
	}
	if len(args) == 2 {
		return appendTIStartKey([]byte{byte(order)}, dagID, nil), nil
	}
	e, ok := args[2].(tiStartEntry)
	if !ok {
		return nil, fmt.Errorf("task instance key index: want a tiStartEntry: %#v", args[2])
	}
	return appendTIStartKey([]byte{byte(order)}, dagID, &e), nil
}

func (x tiKeyChunkIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// tiKeyChunkSize is how many task instances a keyed chunk holds after a
// split (a chunk splits past twice as many): twice the start chunks',
// whose entries are 8 times as big: the radix tree's node and key of a
// chunk are shared by more task instances (BenchmarkMemoryTaskInstances3:
// 1,016 bytes a task instance at 32, 985 at 64, 968 at 128, whose chunk
// a settled task instance's change would copy 2 KiB of in each order).
const tiKeyChunkSize = 64

// keyedChunks is tiChunkTable for one order's chunks.
type keyedChunks struct{ order tiKeyOrder }

// entry is ti's entry in the order (its key's, id's, place's).
func (k keyedChunks) entry(ti *TaskInstance) tiStartEntry {
	e, _ := tiKeyOf(k.order, ti)
	return e
}

func (k keyedChunks) chunkAt(txn *memdb.Txn, dagID string, ti *TaskInstance) (*tiKeyChunk, []*TaskInstance, error) {
	e := k.entry(ti)
	it, err := txn.ReverseLowerBound(tableTIKeyed, indexID, k.order, dagID, e)
	if err != nil {
		return nil, nil, fmt.Errorf("find the key chunk of task %s of %s/%s: %w", e.TaskID, dagID, e.RunID, err)
	}
	if raw := it.Next(); raw != nil {
		if c, ok := raw.(*tiKeyChunk); ok && c.Order == k.order && c.DagID == dagID {
			return c, c.TIs, nil
		}
	}
	raw, err := txn.First(tableTIKeyed, indexID+"_prefix", k.order, dagID)
	if err != nil {
		return nil, nil, fmt.Errorf("find the key chunks of %s: %w", dagID, err)
	}
	if raw == nil {
		return nil, nil, nil
	}
	c := raw.(*tiKeyChunk)
	return c, c.TIs, nil
}

func (k keyedChunks) nextFirst(txn *memdb.Txn, c *tiKeyChunk) (*TaskInstance, bool, error) {
	it, err := txn.LowerBound(tableTIKeyed, indexID, k.order, c.DagID, k.entry(c.TIs[0]))
	if err != nil {
		return nil, false, fmt.Errorf("find the key chunks of %s: %w", c.DagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n := raw.(*tiKeyChunk)
		if n.Order != k.order || n.DagID != c.DagID {
			break
		}
		if !k.same(n.TIs[0], c.TIs[0]) {
			return n.TIs[0], true, nil
		}
	}
	return nil, false, nil
}

func (k keyedChunks) replace(txn *memdb.Txn, old *tiKeyChunk, dagID string, tis []*TaskInstance) error {
	if old != nil && (len(tis) == 0 || !k.same(tis[0], old.TIs[0])) {
		if err := txn.Delete(tableTIKeyed, old); err != nil {
			return fmt.Errorf("replace a key chunk of %s: %w", dagID, err)
		}
	}
	for len(tis) > 0 {
		n := len(tis)
		if n > 2*tiKeyChunkSize {
			n = tiKeyChunkSize
		}
		if err := txn.Insert(tableTIKeyed, &tiKeyChunk{Order: k.order, DagID: dagID, TIs: tis[:n:n]}); err != nil {
			return fmt.Errorf("store a key chunk of %s: %w", dagID, err)
		}
		tis = tis[n:]
	}
	return nil
}

func (k keyedChunks) compare(a, b *TaskInstance) int { return compareTIStarts(k.entry(a), k.entry(b)) }
func (k keyedChunks) same(a, b *TaskInstance) bool   { return a == b || k.entry(a) == k.entry(b) }
func (keyedChunks) where(ti *TaskInstance) (taskID, runID string) {
	return ti.TaskID, ti.RunID
}

// sortKeyedTIs sorts task instances in the order of their entries: many
// (a flush's, a rebuild's) by their entries computed once each, where
// keyedChunks.compare computes two at each comparison (the rebuild's sort
// took 0.75 s of BenchmarkMemoryTaskInstances3's 7.3 s at 20,000 runs).
func sortKeyedTIs(order tiKeyOrder, tis []*TaskInstance) {
	if len(tis) < 64 {
		slices.SortFunc(tis, keyedChunks{order}.compare)
		return
	}
	type keyed struct {
		e  tiStartEntry
		ti *TaskInstance
	}
	ks := make([]keyed, len(tis))
	for i, ti := range tis {
		ks[i] = keyed{keyedChunks{order}.entry(ti), ti}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return compareTIStarts(a.e, b.e) })
	for i := range ks {
		tis[i] = ks[i].ti
	}
}

// changeKeyedTIsTxn takes drops from the DAG's chunks of an order and
// puts adds in (changeTIChunksTxn; each in the order: tiKeyOf's ok).
func changeKeyedTIsTxn(txn *memdb.Txn, order tiKeyOrder, dagID string, drops, adds []*TaskInstance) error {
	sortKeyedTIs(order, drops)
	sortKeyedTIs(order, adds) // changeTIChunksTxn's sort then finds them sorted
	return changeTIChunksTxn[*tiKeyChunk, *TaskInstance](txn, keyedChunks{order}, dagID, drops, adds)
}

// tiChunkTable is where an order's chunks C of entries E are: the chunk
// that holds an entry or would (nil entries: none) and its entries, the
// first entry of the chunk after one, a chunk's replacement, and the
// entries' order (same: one task instance in one place of it).
type tiChunkTable[C, E any] interface {
	chunkAt(txn *memdb.Txn, dagID string, e E) (C, []E, error)
	nextFirst(txn *memdb.Txn, c C) (E, bool, error)
	replace(txn *memdb.Txn, old C, dagID string, entries []E) error
	compare(a, b E) int
	same(a, b E) bool
	where(e E) (taskID, runID string)
}

// changeTIChunksTxn takes drops from the DAG's chunks of t and puts adds
// in, each chunk they touch rewritten once (a clear of a run's thousands
// of mapped instances gives each a new id: a chunk copy for each would
// cost thousands), a chunk grown past twice its table's size split
// (tiStartChunkSize, tiKeyChunkSize).
func changeTIChunksTxn[C, E any](txn *memdb.Txn, t tiChunkTable[C, E], dagID string, drops, adds []E) error {
	if len(drops) == 0 && len(adds) == 0 {
		return nil
	}
	slices.SortFunc(drops, t.compare)
	slices.SortFunc(adds, t.compare)
	for len(drops) > 0 || len(adds) > 0 {
		var first E
		switch {
		case len(drops) == 0:
			first = adds[0]
		case len(adds) == 0 || t.compare(drops[0], adds[0]) <= 0:
			first = drops[0]
		default:
			first = adds[0]
		}
		c, entries, err := t.chunkAt(txn, dagID, first)
		if err != nil {
			return err
		}
		// The chunk holds the entries up to the next chunk's first.
		nd, na := len(drops), len(adds)
		if entries != nil {
			next, ok, err := t.nextFirst(txn, c)
			if err != nil {
				return err
			}
			if ok {
				below := func(e E) bool { return t.compare(e, next) < 0 }
				nd = countWhile(drops, below)
				na = countWhile(adds, below)
			}
		}
		merged, err := mergeTIChunk(t, entries, drops[:nd], adds[:na])
		if err != nil {
			return fmt.Errorf("order task instances of %s: %w", dagID, err)
		}
		if err := t.replace(txn, c, dagID, merged); err != nil {
			return err
		}
		drops, adds = drops[nd:], adds[na:]
	}
	return nil
}

// rekeyTIsTxn keeps the keyed chunks after a settled run's task instances
// changed from old to new (both sorted as runTasks keeps them; restartTIsTxn
// found a key changed): an entry leaves with a task instance whose key or
// id changed, or that went, and comes with its new one.
func rekeyTIsTxn(txn *memdb.Txn, dagID, runID string, old, new []*TaskInstance) error {
	tail, err := tiKeyTailTxn(txn, dagID)
	if err != nil || slices.Contains(tail.RunIDs, runID) {
		return err // the tail's runs are read from their rows
	}
	for _, order := range tiKeyOrders {
		var drops, adds []*TaskInstance
		drop := func(ti *TaskInstance) {
			if _, ok := tiKeyOf(order, ti); ok {
				drops = append(drops, ti)
			}
		}
		add := func(ti *TaskInstance) {
			if _, ok := tiKeyOf(order, ti); ok {
				adds = append(adds, ti)
			}
		}
		diffTIRows(old, new, drop, add, func(a, b *TaskInstance) {
			ea, oka := tiKeyOf(order, a)
			eb, okb := tiKeyOf(order, b)
			if oka != okb || ea != eb {
				drop(a)
				add(b)
			}
		})
		if err := changeKeyedTIsTxn(txn, order, dagID, drops, adds); err != nil {
			return err
		}
	}
	return nil
}

// settleKeyedTIsTxn puts a run's task instances into the keyed orders
// (settled: its DAG's tail, which goes to the chunks when full) or takes
// them out (from the tail, or the chunks).
func settleKeyedTIsTxn(txn *memdb.Txn, dagID, runID string, tis []*TaskInstance, settled bool) error {
	if settled && !slices.ContainsFunc(tis, func(ti *TaskInstance) bool { return ti.ID != "" }) {
		return nil // an edition before 3 (no order), or none to order
	}
	tail, err := tiKeyTailTxn(txn, dagID)
	if err != nil {
		return err
	}
	if settled {
		if slices.Contains(tail.RunIDs, runID) {
			return nil // there already (a run settles once between leaving)
		}
		next := &tiKeyTail{DagID: dagID, RunIDs: append(slices.Clip(tail.RunIDs), runID), N: tail.N + len(tis)}
		if len(next.RunIDs) < tiKeyTailMax && next.N < tiKeyTailMaxTIs {
			if err := txn.Insert(tableTIKeyed, next); err != nil {
				return fmt.Errorf("store the settled runs of %s: %w", dagID, err)
			}
			return nil
		}
		return flushKeyTailTxn(txn, next)
	}
	if i := slices.Index(tail.RunIDs, runID); i >= 0 {
		next := &tiKeyTail{DagID: dagID, RunIDs: slices.Delete(slices.Clone(tail.RunIDs), i, i+1), N: max(0, tail.N-len(tis))}
		if len(next.RunIDs) == 0 {
			if err := txn.Delete(tableTIKeyed, tail); err != nil {
				return fmt.Errorf("store the settled runs of %s: %w", dagID, err)
			}
			return nil
		}
		if err := txn.Insert(tableTIKeyed, next); err != nil {
			return fmt.Errorf("store the settled runs of %s: %w", dagID, err)
		}
		return nil
	}
	return unkeyTIsTxn(txn, dagID, tis)
}

// tiKeyTailTxn is a DAG's tail (empty when it has none).
func tiKeyTailTxn(txn *memdb.Txn, dagID string) (*tiKeyTail, error) {
	raw, err := txn.First(tableTIKeyed, indexID, tiKeyOrder(0), dagID)
	if err != nil {
		return nil, fmt.Errorf("find the settled runs of %s: %w", dagID, err)
	}
	if raw == nil {
		return &tiKeyTail{DagID: dagID}, nil
	}
	return raw.(*tiKeyTail), nil
}

// flushKeyTailTxn puts the task instances of the tail's runs into the
// chunks, each order's in one change, and removes the tail.
func flushKeyTailTxn(txn *memdb.Txn, t *tiKeyTail) error {
	if err := txn.Delete(tableTIKeyed, t); err != nil && !errors.Is(err, memdb.ErrNotFound) {
		return fmt.Errorf("flush the settled runs of %s: %w", t.DagID, err)
	}
	rows := make([]*runTasks, 0, len(t.RunIDs))
	n := 0
	for _, runID := range t.RunIDs {
		row, err := runTasksTxn(txn, t.DagID, runID)
		if err != nil {
			return err
		}
		if row != nil {
			rows = append(rows, row)
			n += len(row.TIs)
		}
	}
	// Each order's task instances in one slice of their number (grown by
	// appends, the flush's garbage doubled).
	var tis [len(tiKeyOrders)][]*TaskInstance
	for i, order := range tiKeyOrders {
		if order != tiKeyUnstarted {
			tis[i] = make([]*TaskInstance, 0, n)
		}
	}
	for _, row := range rows {
		for i, order := range tiKeyOrders {
			for _, ti := range row.TIs {
				if _, ok := tiKeyOf(order, ti); ok {
					tis[i] = append(tis[i], ti)
				}
			}
		}
	}
	for i, order := range tiKeyOrders {
		if err := changeKeyedTIsTxn(txn, order, t.DagID, nil, tis[i]); err != nil {
			return err
		}
	}
	return nil
}

// unkeyTIsTxn takes a run's task instances out of the keyed chunks.
func unkeyTIsTxn(txn *memdb.Txn, dagID string, tis []*TaskInstance) error {
	for _, order := range tiKeyOrders {
		drops := make([]*TaskInstance, 0, len(tis))
		for _, ti := range tis {
			if _, ok := tiKeyOf(order, ti); ok {
				drops = append(drops, ti)
			}
		}
		if err := changeKeyedTIsTxn(txn, order, dagID, drops, nil); err != nil {
			return err
		}
	}
	return nil
}

// deleteKeyedTIsTxn removes a DAG's keyed chunks ("": every DAG's).
func deleteKeyedTIsTxn(txn *memdb.Txn, dagID string) error {
	if dagID == "" {
		if _, err := txn.DeleteAll(tableTIKeyed, indexID); err != nil {
			return fmt.Errorf("delete the key chunks: %w", err)
		}
		return nil
	}
	for _, order := range append([]tiKeyOrder{0}, tiKeyOrders[:]...) { // 0: the tail
		if _, err := txn.DeleteAll(tableTIKeyed, indexID+"_prefix", order, dagID); err != nil {
			return fmt.Errorf("delete the key chunks of %q: %w", dagID, err)
		}
	}
	return nil
}

// tiKeyedEntries are one DAG's settled task instances gathered for each
// keyed order's chunks, while restartAllTIsTxn walks the rows.
type tiKeyedEntries [len(tiKeyOrders)][]*TaskInstance

// take adds a settled run's task instances that have each order's key.
func (e *tiKeyedEntries) take(row *runTasks) {
	for i, order := range tiKeyOrders {
		for _, ti := range row.TIs {
			if _, ok := tiKeyOf(order, ti); ok {
				e[i] = append(e[i], ti)
			}
		}
	}
}

// storeTxn writes the gathered task instances as dagID's keyed chunks,
// sorted, and empties e (the chunks keep the slices they were cut from).
func (e *tiKeyedEntries) storeTxn(txn *memdb.Txn, dagID string) error {
	for i, order := range tiKeyOrders {
		es := e[i]
		sortKeyedTIs(order, es)
		for len(es) > 0 {
			n := min(len(es), tiKeyChunkSize)
			c := &tiKeyChunk{Order: order, DagID: dagID, TIs: es[:n:n]}
			if err := txn.Insert(tableTIKeyed, c); err != nil {
				return fmt.Errorf("store a key chunk of %s: %w", dagID, err)
			}
			es = es[n:]
		}
		e[i] = nil
	}
	return nil
}

// keyedChunkIter walks one order's chunks of a DAG as the start chunks
// (tiStartMerge.fill): it ends at the order's last.
type keyedChunkIter struct {
	it    memdb.ResultIterator
	order tiKeyOrder
}

func (k *keyedChunkIter) Next() any {
	c, ok := k.it.Next().(*tiKeyChunk) // not a tail: those sort before every order
	if !ok || c.Order != k.order {
		return nil
	}
	return c
}

func (k *keyedChunkIter) WatchCh() <-chan struct{} { return k.it.WatchCh() }

// addKeyed starts a walk of a DAG's chunks of an order (none: no walk),
// and one of its unfinished runs' task instances in that order.
func (m *tiStartMerge) addKeyed(s *Store, order tiKeyOrder, dagID string) error {
	var it memdb.ResultIterator
	var err error
	switch {
	case m.desc:
		top := tiStartEntry{Sec: 1<<63 - 1, Nsec: 1<<31 - 1, ID: "\xff"}
		it, err = m.txn.ReverseLowerBound(tableTIKeyed, indexID, order, dagID, top)
	case m.notNull:
		it, err = m.keyedPastNulls(order, dagID)
	default:
		it, err = m.txn.LowerBound(tableTIKeyed, indexID, order, dagID)
	}
	if err != nil {
		return fmt.Errorf("list task instances of %s: %w", dagID, err)
	}
	w := &tiStartWalk{dagID: dagID, it: &keyedChunkIter{it: it, order: order}, order: order}
	for m.fill(w) {
		if e, _ := m.head(w); !m.notNull || e.Sec != tiNullKey {
			m.walks = append(m.walks, w)
			break
		}
		if m.desc {
			break // the NULL key is the lowest: only its entries are left
		}
		w.at++ // a NULL key's entry of the first chunk, left out
	}
	pending, err := s.pendingKeyedTxn(m.txn, dagID, order, m.read)
	if err != nil {
		return err
	}
	if m.notNull {
		// Sorted ascending: the NULL key's entries first.
		pending = pending[sort.Search(len(pending), func(i int) bool { return pending[i].e.Sec != tiNullKey }):]
	}
	if len(pending) > 0 {
		m.walks = append(m.walks, &tiStartWalk{dagID: dagID, pending: pending})
	}
	return nil
}

// keyedPastNulls walks a DAG's chunks of an order up from the one that
// holds its last NULL key's entry (the last chunk led by one; none: its
// first), so that a walk that leaves out the NULL key reads no chunk of
// them but that one.
func (m *tiStartMerge) keyedPastNulls(order tiKeyOrder, dagID string) (memdb.ResultIterator, error) {
	lastNull := tiStartEntry{Sec: tiNullKey, Nsec: 1<<31 - 1, ID: "\xff"}
	back, err := m.txn.ReverseLowerBound(tableTIKeyed, indexID, order, dagID, lastNull)
	if err != nil {
		return nil, err
	}
	if c, ok := back.Next().(*tiKeyChunk); ok && c.Order == order && c.DagID == dagID {
		first, _ := tiKeyOf(order, c.TIs[0])
		return m.txn.LowerBound(tableTIKeyed, indexID, order, dagID, first)
	}
	return m.txn.LowerBound(tableTIKeyed, indexID, order, dagID)
}

// pendingKeyedTxn is pendingStartsTxn for a keyed order: the task
// instances of the DAG's unfinished runs and of its tail's runs in it,
// remembered per version.
func (s *Store) pendingKeyedTxn(txn *memdb.Txn, dagID string, order tiKeyOrder, read *int) ([]tiPendingStart, error) {
	tail, err := tiKeyTailTxn(txn, dagID)
	if err != nil {
		return nil, err
	}
	return s.pendingEntriesTxn(txn, &s.tiKeyedPending, dagID, string(rune(order))+dagID,
		func(ti *TaskInstance) (tiStartEntry, bool) { return tiKeyOf(order, ti) }, tail.RunIDs, read)
}

// TIKeyPage is TIStartPage for an order led by state, end_date,
// duration or try_number: each DAG's keyed chunks merged with its
// unfinished runs' task instances; ok is false when the store cannot
// walk it (task instances without ids, runs in a state neither settled
// nor unfinished): the caller sorts.
func (s *Store) TIKeyPage(order tiKeyOrder, q TIStartQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	return s.walkedTIPage(q.DagIDs, q.Keep, q.KeepKey, q.Offset, q.Limit, s.TIKeyWalk(order, q))
}

// TIKeyWalk is TIKeyPage's walk (q's DagIDs and Limit aside).
func (s *Store) TIKeyWalk(order tiKeyOrder, q TIStartQuery) TIWalk {
	return s.walkTIPage(q, func(ti *TaskInstance) (tiStartEntry, bool) { return tiKeyOf(order, ti) },
		func(m *tiStartMerge, dagID string) error { return m.addKeyed(s, order, dagID) })
}
