package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// storeWith is a fresh store with the given definitions loaded.
func storeWith(tb testing.TB, dags *DAGSet) *Store {
	tb.Helper()
	store, err := newStore()
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.LoadDAGs(dags); err != nil {
		tb.Fatalf("load dags: %v", err)
	}
	return store
}

// pollUntil checks cond every few milliseconds until it holds (true) or
// limit has passed (false).
func pollUntil(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// waitFor fails the test unless cond holds within ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !pollUntil(10*time.Second, cond) {
		t.Fatal("condition not met in 10 s")
	}
}

// Writes that only tests make, to set up states directly. They are
// store methods (memstore.go's helpers), kept here so that the program
// has intent-level writes only.

// UpsertTaskInstance stores a changed copy of a task instance.
func (s *Store) UpsertTaskInstance(ti *TaskInstance) error {
	return s.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, ti) })
}

// RemoveTaskInstance drops one task instance from its run's row.
func (s *Store) RemoveTaskInstance(dagID, runID, taskID string) error {
	return s.update(func(txn *memdb.Txn) error {
		row, err := runTasksTxn(txn, dagID, runID)
		if err != nil || row == nil {
			return err
		}
		kept := &runTasks{DagID: dagID, RunID: runID}
		for _, ti := range row.TIs {
			if ti.TaskID != taskID {
				kept.TIs = append(kept.TIs, ti)
			}
		}
		return txn.Insert(tableTasks, kept)
	})
}

// UpsertDagRun stores a changed copy of a run, or a new run.
func (s *Store) UpsertDagRun(run *DagRun) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := runByRunIDTxn(txn, run.DagID, run.RunID)
		switch {
		case errors.Is(err, errNotFound):
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
			return countRunTxn(txn, run, 1, 0)
		case err != nil:
			return err
		}
		return putRunTxn(txn, old, run)
	})
}

// UpsertLineage stores what a task declared as inlets and outlets.
func (s *Store) UpsertLineage(rec *LineageRecord) error {
	return s.update(func(txn *memdb.Txn) error {
		if err := txn.Insert(tableLineage, rec); err != nil {
			return fmt.Errorf("store lineage of %s/%s/%s: %w", rec.DagID, rec.RunID, rec.TaskID, err)
		}
		return nil
	})
}
