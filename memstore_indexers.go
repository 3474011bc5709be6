package main

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// go-memdb's StringFieldIndex and IntFieldIndex find their field with
// reflect.FieldByName on every insert, and a restore inserts every row.
// These indexers read the field through a typed accessor and encode keys
// exactly as memdb's own do, so queries are unchanged.

// stringField indexes a string field: the value and a NUL terminator; an
// empty value is not indexed (as StringFieldIndex does).
type stringField[T any] struct{ get func(*T) string }

func (x stringField[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	v := x.get(o)
	if v == "" {
		return false, nil, nil
	}
	b := make([]byte, len(v)+1)
	copy(b, v)
	return true, b, nil
}

func (x stringField[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index: want one argument, got %d", len(args))
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("index: argument must be a string: %#v", args[0])
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b, nil
}

func (x stringField[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	b, err := x.FromArgs(args...)
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// keyField is stringField for a field whose empty value is a value of
// its own (an XCom key: create_xcom_entry stores ""), indexed as the NUL
// terminator alone, as FromArgs encodes "".
type keyField[T any] struct{ stringField[T] }

func (x keyField[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	b, err := x.FromArgs(x.get(o))
	return err == nil, b, err
}

// intField indexes an int64 field with memdb's order-preserving encoding.
type intField[T any] struct{ get func(*T) int64 }

func (x intField[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	return true, encodeInt64(x.get(o)), nil
}

func (x intField[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index: want one argument, got %d", len(args))
	}
	switch v := args[0].(type) {
	case int64:
		return encodeInt64(v), nil
	case int:
		return encodeInt64(int64(v)), nil
	}
	return nil, fmt.Errorf("index: argument must be an integer: %#v", args[0])
}

// PrefixFromArgs makes intField the last part of a compound prefix
// query: a nil argument matches every value (the XCom order index's
// (dag_id, task_id, run_id, nil) is one run's entries of a task).
func (x intField[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 && args[0] == nil {
		return nil, nil
	}
	return x.FromArgs(args...)
}

func encodeInt64(v int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v)^(1<<63))
	return b[:]
}

// seqField indexes an id handed out in sequence (at least 0) as 16 hex
// digits, one byte each. The order is the ids' order, as with intField,
// but a radix node holds at most 16 edges instead of 256: appending the
// next id copies a few small nodes rather than a node of 256 edges, which
// is what a row written with every try costs (the event log, and each
// trigger's run in the (dag_id, id) index).
type seqField[T any] struct{ get func(*T) int64 }

func (x seqField[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	id := x.get(o)
	if id < 0 {
		return false, nil, fmt.Errorf("index: negative sequence id %d", id)
	}
	return true, encodeSeq(id), nil
}

func (x seqField[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index: want one argument, got %d", len(args))
	}
	switch v := args[0].(type) {
	case int64:
		if v >= 0 {
			return encodeSeq(v), nil
		}
	case int:
		if v >= 0 {
			return encodeSeq(int64(v)), nil
		}
	}
	return nil, fmt.Errorf("index: argument must be an integer of at least 0: %#v", args[0])
}

// PrefixFromArgs makes seqField the last part of a compound prefix
// query: a nil argument matches every id (a DAG's runs in id order). A
// seqPrefix is the leading hex digits of the ids of an aligned block
// (go-memdb's DeletePrefix takes a string).
func (x seqField[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return []byte(v), nil
		}
	}
	return x.FromArgs(args...)
}

// seqPrefix is the key prefix seqField gives the ids of the aligned
// block of 16^digits ids that holds id: all of its 16 hex digits but the
// last digits.
func seqPrefix(id int64, digits int) string { return string(encodeSeq(id)[:16-digits]) }

func encodeSeq(v int64) []byte {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return b[:]
}

// runKeyIndexes is the (dag_id, run_id, task_id, map_index) key of the
// tables that hold one row per task instance; map_index is written as
// mapIndexArg writes it, so that the prefix (dag_id, run_id, task_id, "")
// finds a task's rows and (dag_id, run_id, "") a run's.
func runKeyIndexes[T any](dag, run, task func(*T) string, mapIndex func(*T) int) oneAlloc[T] {
	return oneAlloc[T]{
		CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{stringField[T]{dag}, stringField[T]{run}, stringField[T]{task},
			stringField[T]{func(o *T) string { return mapIndexArg(mapIndex(o)) }}}},
		key: func(o *T) (bool, []byte) {
			d, r, t := dag(o), run(o), task(o)
			if d == "" || r == "" || t == "" {
				return false, nil
			}
			k := make([]byte, 0, len(d)+len(r)+len(t)+8)
			k = append(append(append(append(append(append(k, d...), 0), r...), 0), t...), 0)
			return true, append(strconv.AppendInt(k, int64(mapIndex(o)), 10), 0)
		},
	}
}

// mapIndexArg is a map_index as runKeyIndexes keys it.
func mapIndexArg(mapIndex int) string { return strconv.Itoa(mapIndex) }

// activeIndex indexes the State field of unfinished runs only: queued or
// running.
// Every state query asks for those; finished rows, the bulk of a long-lived
// store, then cost no state index entries (about 350 bytes each), and
// RunsInState scans the table for a finished state.
type activeIndex struct {
	stringField[DagRun] // FromArgs and PrefixFromArgs: a state name
}

func activeStateIndex() activeIndex { return activeIndex{} }

func (x activeIndex) FromObject(obj any) (bool, []byte, error) {
	var state string
	switch o := obj.(type) {
	case *DagRun:
		if o.State.Finished() {
			return false, nil, nil
		}
		state = string(o.State)
	default:
		return false, nil, fmt.Errorf("state index: unsupported object %T", obj)
	}
	if state == "" {
		return false, nil, nil
	}
	return true, append([]byte(state), 0), nil
}

// taskStatesIndex indexes a run's task-instance row under each unfinished
// state (scheduled, queued, running, up_for_retry …) that one of its task
// instances is in, as activeIndex does for runs: finished and None task
// instances cost no entries.
type taskStatesIndex struct {
	stringField[runTasks] // FromArgs and PrefixFromArgs: a state name
}

func (taskStatesIndex) FromObject(obj any) (bool, [][]byte, error) {
	row, ok := obj.(*runTasks)
	if !ok {
		return false, nil, fmt.Errorf("task state index: unsupported object %T", obj)
	}
	var seen []TaskState // a handful at most
	var vals [][]byte
	for _, ti := range row.TIs {
		if ti.State == "" || ti.State.Finished() || slices.Contains(seen, ti.State) {
			continue
		}
		seen = append(seen, ti.State)
		vals = append(vals, append([]byte(ti.State), 0))
	}
	return len(vals) > 0, vals, nil
}

// encodeTime writes the instant four bits to a byte, most significant
// first (the sign bit flipped keeps negative instants in order). A write
// copies every radix-tree node on its key's path, and whole bytes let a
// node grow 256 children (a DAG's dates a minute apart do): nibbles cap a
// node at 16 children, for a key twice as long.
func encodeTime(t time.Time) []byte { return appendTime(make([]byte, 0, 16), t) }

// appendTime appends encodeTime(t) to b.
func appendTime(b []byte, t time.Time) []byte {
	v := uint64(t.UnixMicro()) ^ (1 << 63)
	for i := range 16 {
		b = append(b, byte(v>>(60-4*i)&0xf))
	}
	return b
}

// timeIDIndex orders rows by a time to the nanosecond, as time.Compare
// does (seconds with the sign bit flipped, then nanoseconds, big-endian),
// ties by an integer id (encodeInt64). FromArgs takes nothing (the whole
// index) or (time, id), which LowerBound and ReverseLowerBound seek to.
type timeIDIndex[T any] struct {
	at func(*T) time.Time
	id func(*T) int64
}

func (x timeIDIndex[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	return true, timeIDKey(x.at(o), x.id(o)), nil
}

func timeIDKey(t time.Time, id int64) []byte {
	k := make([]byte, 20)
	binary.BigEndian.PutUint64(k, uint64(t.Unix())^(1<<63))
	binary.BigEndian.PutUint32(k[8:], uint32(t.Nanosecond()))
	copy(k[12:], encodeInt64(id))
	return k
}

func (x timeIDIndex[T]) FromArgs(args ...any) ([]byte, error) {
	switch len(args) {
	case 0:
		return nil, nil
	case 2:
		t, ok := args[0].(time.Time)
		id, ok2 := args[1].(int64)
		if ok && ok2 {
			return timeIDKey(t, id), nil
		}
	}
	return nil, fmt.Errorf("index: a time and id index takes nothing or (time.Time, int64), got %#v", args)
}

// dagTimeKey is dag_id, a NUL and encodeTime(t), with room for more.
func dagTimeKey(dagID string, t time.Time, room int) []byte {
	return appendTime(append(append(make([]byte, 0, len(dagID)+17+room), dagID...), 0), t)
}

// runOrderIndex orders a DAG's runs by run_after: its key is dag_id, a NUL
// and the run_after (encodeTime). A run whose logical date is its run_after
// (every run of editions 1.10 and 2) has that key alone, unique since a
// logical date is; any other run has its id (encodeSeq) after it, so that
// runs sharing a run_after follow it in creation order. A lookup of
// (dag_id, date) is then the run whose logical date and run_after are
// date, found with one index read, and the runs of editions 1.10 and 2
// cost no longer keys than a (dag_id, logical date) index did.
//
// FromArgs takes (dag_id, time) or (dag_id, time, id); PrefixFromArgs
// (dag_id), (dag_id, nil) for every run of the DAG, or (dag_id, time).
type runOrderIndex struct{}

func (runOrderIndex) FromObject(obj any) (bool, []byte, error) {
	r, ok := obj.(*DagRun)
	if !ok {
		return false, nil, fmt.Errorf("run order index: want *DagRun, got %T", obj)
	}
	if r.DagID == "" {
		return false, nil, nil
	}
	key := dagTimeKey(r.DagID, r.After(), 16)
	if r.NoLogicalDate || !r.RunAfter.IsZero() {
		key = append(key, encodeSeq(r.ID)...)
	}
	return true, key, nil
}

func (x runOrderIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, fmt.Errorf("run order index: want (dag_id, time[, id]), got %d arguments", len(args))
	}
	key, err := x.PrefixFromArgs(args[:2]...)
	if err != nil || len(args) == 2 {
		return key, err
	}
	id, ok := args[2].(int64)
	if !ok || id < 0 {
		return nil, fmt.Errorf("run order index: id must be an int64 of at least 0: %#v", args[2])
	}
	return append(key, encodeSeq(id)...), nil
}

func (runOrderIndex) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("run order index: want (dag_id[, time]), got %d arguments", len(args))
	}
	dagID, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("run order index: dag_id must be a string: %#v", args[0])
	}
	if len(args) == 1 || args[1] == nil {
		return append([]byte(dagID), 0), nil
	}
	t, ok := args[1].(time.Time)
	if !ok {
		return nil, fmt.Errorf("run order index: argument is %T, not time.Time", args[1])
	}
	return dagTimeKey(dagID, t, 16), nil
}

// runDateIndex finds a run by (dag_id, logical date) where its logical
// date is not its run_after (runOrderIndex finds the others); runs
// without a logical date are not in it.
type runDateIndex struct{}

func (runDateIndex) FromObject(obj any) (bool, []byte, error) {
	r, ok := obj.(*DagRun)
	if !ok {
		return false, nil, fmt.Errorf("run date index: want *DagRun, got %T", obj)
	}
	if r.DagID == "" || r.NoLogicalDate || r.RunAfter.IsZero() {
		return false, nil, nil
	}
	return true, dagTimeKey(r.DagID, r.ExecutionDate, 0), nil
}

func (runDateIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("run date index: want (dag_id, time), got %d arguments", len(args))
	}
	dagID, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("run date index: dag_id must be a string: %#v", args[0])
	}
	t, ok := args[1].(time.Time)
	if !ok {
		return nil, fmt.Errorf("run date index: argument is %T, not time.Time", args[1])
	}
	return dagTimeKey(dagID, t, 0), nil
}

// oneAlloc is a compound index whose key FromObject builds in one
// allocation, where memdb's CompoundIndex allocates for each part and
// again to join them: the trigger writes three such keys and each update
// of a run or of its task instances one or more. Queries go through the
// CompoundIndex (FromArgs, PrefixFromArgs), whose keys key must equal
// (TestIndexers_OneAllocMatchesCompound).
type oneAlloc[T any] struct {
	*memdb.CompoundIndex
	key func(o *T) (bool, []byte)
}

func (x oneAlloc[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	ok, b := x.key(o)
	return ok, b, nil
}

// stringPairIndex is the compound index of two string fields, as
// CompoundIndex{stringField{a}, stringField{b}} keys it: a NUL b NUL, no
// entry when either is empty.
func stringPairIndex[T any](a, b func(*T) string) oneAlloc[T] {
	return oneAlloc[T]{
		CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{stringField[T]{a}, stringField[T]{b}}},
		key: func(o *T) (bool, []byte) {
			va, vb := a(o), b(o)
			if va == "" || vb == "" {
				return false, nil
			}
			k := make([]byte, 0, len(va)+len(vb)+2)
			k = append(append(k, va...), 0)
			return true, append(append(k, vb...), 0)
		},
	}
}

// runRowIndex is (dag_id, integer id): CompoundIndex{runDagID, runRowID}.
func runRowIndex() oneAlloc[DagRun] {
	return oneAlloc[DagRun]{
		CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{runDagID, runRowID}},
		key: func(r *DagRun) (bool, []byte) {
			if r.DagID == "" || r.ID < 0 {
				return false, nil
			}
			k := make([]byte, 0, len(r.DagID)+1+16)
			k = append(append(k, r.DagID...), 0)
			return true, append(k, encodeSeq(r.ID)...)
		},
	}
}

// runStateIndex is (state, dag_id) of unfinished runs:
// CompoundIndex{activeStateIndex(), runDagID}.
func runStateIndex() oneAlloc[DagRun] {
	return oneAlloc[DagRun]{
		CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{activeStateIndex(), runDagID}},
		key: func(r *DagRun) (bool, []byte) {
			if r.State == "" || r.State.Finished() || r.DagID == "" {
				return false, nil
			}
			k := make([]byte, 0, len(r.State)+len(r.DagID)+2)
			k = append(append(k, r.State...), 0)
			return true, append(append(k, r.DagID...), 0)
		},
	}
}
