package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
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
// query: a nil argument matches every id (a DAG's runs in id order).
func (x seqField[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 && args[0] == nil {
		return nil, nil
	}
	return x.FromArgs(args...)
}

func encodeSeq(v int64) []byte {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return b[:]
}

// runKeyIndexes is the (dag_id, run_id, task_id) key of the tables that
// hold one row per task instance.
func runKeyIndexes[T any](dag, run, task func(*T) string) *memdb.CompoundIndex {
	return &memdb.CompoundIndex{Indexes: []memdb.Indexer{stringField[T]{dag}, stringField[T]{run}, stringField[T]{task}}}
}

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

// timeIndex indexes a time.Time field by its instant in microseconds, in an
// order-preserving encoding, so that a compound (dag_id, date) index lists a
// DAG's runs in date order. As the last part of a prefix query a nil
// argument matches every date.
type timeIndex struct{ field string }

func (x timeIndex) FromObject(obj any) (bool, []byte, error) {
	var t time.Time
	switch o := obj.(type) {
	case *DagRun:
		t = o.ExecutionDate
	default:
		return false, nil, fmt.Errorf("time index %s: unsupported object %T", x.field, obj)
	}
	return true, encodeTime(t), nil
}

func (x timeIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, errors.New("time index: want one argument")
	}
	t, ok := args[0].(time.Time)
	if !ok {
		return nil, fmt.Errorf("time index: argument is %T, not time.Time", args[0])
	}
	return encodeTime(t), nil
}

func (x timeIndex) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 && args[0] == nil {
		return nil, nil
	}
	return x.FromArgs(args...)
}

// encodeTime writes the instant four bits to a byte, most significant
// first (the sign bit flipped keeps negative instants in order). A write
// copies every radix-tree node on its key's path, and whole bytes let a
// node grow 256 children (a DAG's dates a minute apart do): nibbles cap a
// node at 16 children, for a key twice as long.
func encodeTime(t time.Time) []byte {
	v := uint64(t.UnixMicro()) ^ (1 << 63)
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(v >> (60 - 4*i) & 0xf)
	}
	return b
}
