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

// nibbleInt indexes an int64 field four bits to a byte (encodeNibbles),
// for keys that grow by one on each insert, such as a run's id: whole
// bytes would fill a radix node with 256 children that every insert
// copies. As the last part of a prefix query a nil argument matches any
// value.
type nibbleInt[T any] struct{ get func(*T) int64 }

func (x nibbleInt[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("index: want %T, got %T", (*T)(nil), obj)
	}
	return true, encodeNibbles(uint64(x.get(o)) ^ (1 << 63)), nil
}

func (x nibbleInt[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index: want one argument, got %d", len(args))
	}
	switch v := args[0].(type) {
	case int64:
		return encodeNibbles(uint64(v) ^ (1 << 63)), nil
	case int:
		return encodeNibbles(uint64(v) ^ (1 << 63)), nil
	}
	return nil, fmt.Errorf("index: argument must be an integer: %#v", args[0])
}

func (x nibbleInt[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 && args[0] == nil {
		return nil, nil
	}
	return x.FromArgs(args...)
}

// encodeNibbles writes v four bits to a byte, most significant first, so
// that byte order is numeric order and no radix node has more than 16
// children (for a key twice as long).
func encodeNibbles(v uint64) []byte {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(v >> (60 - 4*i) & 0xf)
	}
	return b
}
