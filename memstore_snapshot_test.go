package main

import (
	"errors"
	"testing"
	"time"
)

// newRestore opens a restore into a fresh store.
func newRestore(t *testing.T) (*Store, *storeRestore) {
	t.Helper()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Restore()
	if err != nil {
		t.Fatalf("restore into a fresh store: %v", err)
	}
	t.Cleanup(r.Abort)
	return store, r
}

// A restore goes into a fresh store only: rows restored over written ones
// would mix two states.
func TestStoreRestore_RefusesAWrittenStore(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetVariable("k", "v", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Restore(); !errors.Is(err, errStoreNotFresh) {
		t.Fatalf("restore into a written store: %v, want errStoreNotFresh", err)
	}
}

// Nothing of an aborted restore stays, and the store is fresh again.
func TestStoreRestore_AbortLeavesNothing(t *testing.T) {
	t.Parallel()
	store, r := newRestore(t)
	if err := r.Insert(tableVariables, &Variable{ID: 3, Key: "k", Val: "v"}); err != nil {
		t.Fatal(err)
	}
	r.Abort()
	if vars, err := store.Variables(); err != nil || len(vars) != 0 {
		t.Fatalf("variables after an abort: %v %v, want none", vars, err)
	}
	again, err := store.Restore()
	if err != nil {
		t.Fatalf("restore after an abort: %v", err)
	}
	again.Abort()
}

// Commit builds the run counts the snapshot leaves out, and ids go on
// from the highest restored, whatever the restored counters say.
func TestStoreRestore_CommitCountsRunsAndRaisesIDs(t *testing.T) {
	t.Parallel()
	store, r := newRestore(t)
	date := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	rows := []struct {
		table string
		obj   any
	}{
		{tableCounters, &counter{Name: counterChange, Value: 12}},
		{tableCounters, &counter{Name: counterRunID, Value: 2}}, // behind the run below
		{tableDags, &DagRow{DagID: "d", FileLoc: "d.yaml"}},
		{tableDagRuns, &DagRun{ID: 41, DagID: "d", RunID: "r", ExecutionDate: date, State: RunSuccess, Conf: []byte(`{"a":1}`)}},
		{tablePools, &Pool{ID: 7, Name: "p", Slots: 1}},
		{tableVariables, &Variable{ID: 5, Key: "k", Val: "v"}},
	}
	for _, row := range rows {
		if err := r.Insert(row.table, row.obj); err != nil {
			t.Fatalf("insert into %s: %v", row.table, err)
		}
	}
	if err := r.InsertTaskInstances([]*TaskInstance{{DagID: "d", RunID: "r", TaskID: "a", Pool: "p", PoolSlots: 1, State: TaskSuccess}}); err != nil {
		t.Fatal(err)
	}
	if run, err := r.Run("d", "r"); err != nil || run.ID != 41 {
		t.Fatalf("run restored so far: %v %v", run, err)
	}
	if _, err := r.Run("d", "other"); !errors.Is(err, errNotFound) {
		t.Fatalf("a run not restored: %v, want errNotFound", err)
	}
	index, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if index != 12 {
		t.Errorf("change index %d, want the restored 12", index)
	}
	if run, pool := store.IDCounters(nil); run != 41 || pool != 7 {
		t.Errorf("id counters %d, %d, want 41, 7", run, pool)
	}
	if _, total, err := store.RunPage(RunPageQuery{DagID: "d", Limit: 10}); err != nil || total != 1 {
		t.Errorf("runs counted %d (%v), want 1", total, err)
	}
	if n, _, err := store.TaskInstancePage([]string{"d"}, 0, 10); err != nil || len(n) != 1 {
		t.Errorf("task instances %d (%v), want 1", len(n), err)
	}
	v, err := store.SetVariable("k2", "v", nil)
	if err != nil || v.ID != 6 {
		t.Errorf("next variable %+v (%v), want id 6", v, err)
	}
}

// Task instances go in by run (InsertTaskInstances), derived tables are
// built by Commit: neither is restored row by row.
func TestStoreRestore_InsertRefusesTablesNotRestoredRowByRow(t *testing.T) {
	t.Parallel()
	_, r := newRestore(t)
	for table := range derivedTables {
		if err := r.Insert(table, &runCount{DagID: "d"}); err == nil {
			t.Errorf("insert into %s: no error", table)
		}
	}
	if err := r.Insert(tableTasks, &TaskInstance{DagID: "d", RunID: "r", TaskID: "a"}); err == nil {
		t.Errorf("insert into %s: no error", tableTasks)
	}
}
