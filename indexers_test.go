package main

import (
	"bytes"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// The typed indexers must encode keys exactly as memdb's reflective ones,
// or queries would miss rows.
func TestIndexers_MatchMemdbEncoding(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "example_bash_operator", "dag.sub-1", "é\x01"} {
		run := &DagRun{DagID: s}
		typed := stringField[DagRun]{get: func(r *DagRun) string { return r.DagID }}
		ref := &memdb.StringFieldIndex{Field: "DagID"}
		ok1, b1, err1 := typed.FromObject(run)
		ok2, b2, err2 := ref.FromObject(run)
		if ok1 != ok2 || !bytes.Equal(b1, b2) || (err1 == nil) != (err2 == nil) {
			t.Errorf("FromObject(%q): typed %v %q %v, memdb %v %q %v", s, ok1, b1, err1, ok2, b2, err2)
		}
		a1, _ := typed.FromArgs(s)
		a2, _ := ref.FromArgs(s)
		p1, _ := typed.PrefixFromArgs(s)
		p2, _ := ref.PrefixFromArgs(s)
		if !bytes.Equal(a1, a2) || !bytes.Equal(p1, p2) {
			t.Errorf("args(%q): typed %q %q, memdb %q %q", s, a1, p1, a2, p2)
		}
	}
	for _, n := range []int64{-1 << 63, -5, 0, 1, 42, 1<<63 - 1} {
		run := &DagRun{ID: n}
		typed := intField[DagRun]{get: func(r *DagRun) int64 { return r.ID }}
		ref := &memdb.IntFieldIndex{Field: "ID"}
		_, b1, _ := typed.FromObject(run)
		_, b2, _ := ref.FromObject(run)
		a1, _ := typed.FromArgs(n)
		a2, _ := ref.FromArgs(n)
		if !bytes.Equal(b1, b2) || !bytes.Equal(a1, a2) {
			t.Errorf("int %d: typed %x %x, memdb %x %x", n, b1, a1, b2, a2)
		}
	}
	if _, _, err := (stringField[DagRun]{get: func(r *DagRun) string { return r.DagID }}).FromObject(&Pool{}); err == nil {
		t.Error("a row of another type must be an error")
	}
	if _, err := (intField[DagRun]{get: func(r *DagRun) int64 { return r.ID }}).FromArgs("1"); err == nil {
		t.Error("a string argument to an int index must be an error")
	}
}
