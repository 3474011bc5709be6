package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

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

// The date key keeps instants in order, before 1970 too, and no byte of it
// exceeds 15, so that no radix node of the date index has more than 16
// children.
func TestEncodeTime_OrderAndFanOut(t *testing.T) {
	t.Parallel()
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Unix(0, 0).UTC(),
		time.Unix(0, 1000).UTC(),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
	}
	for i, tm := range times {
		key := encodeTime(tm)
		for _, b := range key {
			if b > 0xf {
				t.Fatalf("%v: key byte %#x above 15", tm, b)
			}
		}
		if i > 0 {
			if prev := encodeTime(times[i-1]); bytes.Compare(prev, key) >= 0 {
				t.Errorf("%v sorts before %v: %x >= %x", times[i-1], tm, prev, key)
			}
		}
	}
	if !bytes.Equal(encodeTime(times[4]), encodeTime(times[4].In(time.FixedZone("x", 3600)))) {
		t.Error("the same instant in another zone has another key")
	}
}

// seqField keeps ids in their numeric order across digit and width
// changes (First and Last of the event log rely on it) and refuses what
// it cannot order.
func TestSeqField_OrderAndRefusals(t *testing.T) {
	t.Parallel()
	x := seqField[EventLog]{func(e *EventLog) int64 { return e.ID }}
	ids := []int64{0, 1, 9, 10, 15, 16, 255, 256, 4095, 4096, 1 << 40, 1<<63 - 1}
	var prev []byte
	for _, id := range ids {
		ok, key, err := x.FromObject(&EventLog{ID: id})
		if err != nil || !ok {
			t.Fatalf("FromObject(%d) = %v, %v", id, ok, err)
		}
		arg, err := x.FromArgs(id)
		if err != nil || string(arg) != string(key) {
			t.Fatalf("FromArgs(%d) = %q, %v; want %q", id, arg, err, key)
		}
		if prev != nil && string(prev) >= string(key) {
			t.Errorf("key of %d (%q) does not sort after the previous (%q)", id, key, prev)
		}
		prev = key
	}
	for _, tc := range []struct {
		name string
		args []any
	}{{"negative", []any{int64(-1)}}, {"a string", []any{"1"}}, {"two", []any{1, 2}}, {"none", nil}} {
		if _, err := x.FromArgs(tc.args...); err == nil {
			t.Errorf("FromArgs(%s) took it", tc.name)
		}
	}
	if _, _, err := x.FromObject(&EventLog{ID: -1}); err == nil {
		t.Error("FromObject took a negative id")
	}
}

// As the last part of a compound prefix query, a nil id matches every id
// and an id matches itself (the (dag_id, id) index of runs).
func TestSeqField_Prefix(t *testing.T) {
	t.Parallel()
	x := seqField[DagRun]{func(r *DagRun) int64 { return r.ID }}
	if p, err := x.PrefixFromArgs(nil); err != nil || len(p) != 0 {
		t.Errorf("PrefixFromArgs(nil) = %x, %v; want an empty prefix", p, err)
	}
	_, key, err := x.FromObject(&DagRun{ID: 42})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := x.PrefixFromArgs(int64(42)); err != nil || !bytes.Equal(p, key) {
		t.Errorf("PrefixFromArgs(42) = %q, %v; want the key %q", p, err, key)
	}
}

// The one-allocation keys must be the keys of the CompoundIndex that
// answers their queries.
func TestIndexers_OneAllocMatchesCompound(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []*DagRun{
		{ID: 1, DagID: "example_bash_operator", RunID: "manual__2026-01-01T00:00:00+00:00", State: RunQueued, ExecutionDate: at},
		{ID: 1 << 40, DagID: "d", RunID: "r", State: RunRunning},
		{ID: 7, DagID: "d", RunID: "r", State: RunSuccess},
		{ID: 8, DagID: "d", RunID: "r", State: RunFailed},
		{ID: 9, DagID: "d", RunID: "", State: ""},
		{ID: 0, DagID: "", RunID: "r", State: RunQueued},
	}
	runIndexes := dagRunsTable().Indexes
	for _, name := range []string{indexID, indexDagRow, indexState} {
		x := runIndexes[name].Indexer.(oneAlloc[DagRun])
		for _, r := range runs {
			ok1, b1, err1 := x.FromObject(r)
			ok2, b2, err2 := x.CompoundIndex.FromObject(r)
			if ok1 != ok2 || !bytes.Equal(b1, b2) || err1 != nil || err2 != nil {
				t.Errorf("%s of %+v: one allocation %v %q %v, compound %v %q %v", name, r, ok1, b1, err1, ok2, b2, err2)
			}
		}
	}
	x := taskInstancesTable().Indexes[indexID].Indexer.(oneAlloc[runTasks])
	for _, row := range []*runTasks{{DagID: "d", RunID: "r"}, {DagID: "d"}, {RunID: "r"}} {
		ok1, b1, _ := x.FromObject(row)
		ok2, b2, _ := x.CompoundIndex.FromObject(row)
		if ok1 != ok2 || !bytes.Equal(b1, b2) {
			t.Errorf("task instances of %+v: one allocation %v %q, compound %v %q", row, ok1, b1, ok2, b2)
		}
	}
	if _, _, err := x.FromObject(&DagRun{}); err == nil {
		t.Error("a row of another type must be an error")
	}
	// The tables of a task instance's rows, and XCom's id index.
	for _, ti := range []tiKey{{"d", "r", "t", -1}, {"d", "r", "t", 0}, {"d", "r", "t", 12}, {"d\x00", "r", "t", 3}, {"", "r", "t", -1}, {"d", "", "t", -1}, {"d", "r", "", -1}} {
		checkOneAlloc(t, lineageTable(), &LineageRecord{DagID: ti.dagID, RunID: ti.runID, TaskID: ti.taskID, MapIndex: ti.mapIndex})
		checkOneAlloc(t, taskLogsTable(), &TaskLog{DagID: ti.dagID, RunID: ti.runID, TaskID: ti.taskID, MapIndex: ti.mapIndex})
		checkOneAlloc(t, tryHistoryTable(), &TaskInstanceHistory{DagID: ti.dagID, RunID: ti.runID, TaskID: ti.taskID, MapIndex: ti.mapIndex})
		for _, key := range []string{"return_value", ""} {
			e := &XComEntry{DagID: ti.dagID, RunID: ti.runID, TaskID: ti.taskID, MapIndex: ti.mapIndex, Key: key}
			checkOneAlloc(t, xcomsTable(), e)
			byKey := xcomsTable().Indexes[indexXComKeyOrder].Indexer.(oneAlloc[XComEntry])
			ok1, b1, err1 := byKey.FromObject(e)
			ok2, b2, err2 := byKey.CompoundIndex.FromObject(e)
			if ok1 != ok2 || !bytes.Equal(b1, b2) || err1 != nil || err2 != nil {
				t.Errorf("xcom by key of %+v: one allocation %v %q %v, compound %v %q %v", e, ok1, b1, err1, ok2, b2, err2)
			}
		}
	}
}

// checkOneAlloc compares the key of obj in table's id index, a oneAlloc,
// with the key its CompoundIndex makes.
func checkOneAlloc(t *testing.T, table *memdb.TableSchema, obj any) {
	t.Helper()
	ok1, b1, err1 := table.Indexes[indexID].Indexer.(memdb.SingleIndexer).FromObject(obj)
	ok2, b2, err2 := compoundOf(table.Indexes[indexID].Indexer).FromObject(obj)
	if ok1 != ok2 || !bytes.Equal(b1, b2) || err1 != nil || err2 != nil {
		t.Errorf("%s of %+v: one allocation %v %q %v, compound %v %q %v", table.Name, obj, ok1, b1, err1, ok2, b2, err2)
	}
}

// compoundOf is the CompoundIndex a oneAlloc of a task instance's row or an
// XCom entry keeps.
func compoundOf(x memdb.Indexer) *memdb.CompoundIndex {
	switch o := x.(type) {
	case oneAlloc[LineageRecord]:
		return o.CompoundIndex
	case oneAlloc[TaskLog]:
		return o.CompoundIndex
	case oneAlloc[TaskInstanceHistory]:
		return o.CompoundIndex
	case oneAlloc[XComEntry]:
		return o.CompoundIndex
	}
	panic(fmt.Sprintf("%T is no oneAlloc of a task instance's row", x))
}
