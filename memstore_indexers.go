package main

import (
	"encoding/binary"
	"fmt"
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
