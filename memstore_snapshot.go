package main

// What the snapshot codec (snapshot*.go) reads and fills the store
// through, so that it never holds a transaction: a point-in-time copy of
// every table to write (storeSnapshot), and a restore into a fresh store
// (storeRestore, as Nomad's StateRestore).

import (
	"errors"
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// storeSnapshot is the store at one point in time, for the snapshot
// writer: writers are never blocked while it is read.
type storeSnapshot struct {
	txn       *memdb.Txn
	eventLogs int // --max-event-logs: the rows under its floor are left out
}

// Snapshot takes a point-in-time copy of every table.
func (s *Store) Snapshot() storeSnapshot { return storeSnapshot{s.read(), s.limits.EventLogs} }

// ChangeIndex is the number of write transactions the copy holds.
func (v storeSnapshot) ChangeIndex() int64 { return counterValue(v.txn, counterChange) }

// Rows calls fn with every row of table in its primary key's order, and
// stops at fn's first error.
func (v storeSnapshot) Rows(table string, fn func(row any) error) error {
	var it memdb.ResultIterator
	var err error
	if table == tableEventLogs {
		// The log as it shows: the rows that fell out of the newest
		// --max-event-logs ids wait for their drop (eventLogDropEvery).
		it, err = eventLogsFromTxn(v.txn, v.eventLogs)
	} else {
		it, err = v.txn.Get(table, indexID)
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", table, err)
	}
	for row := it.Next(); row != nil; row = it.Next() {
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// storeRestore fills a fresh store with a snapshot's rows in one write
// transaction, committed only when every row is in: a restore gives the
// whole snapshot or nothing. Rows go in as they are (the snapshot holds
// what the intents wrote); Commit builds the derived tables again and
// raises the id counters past every id restored, whatever the counters
// the snapshot holds say.
type storeRestore struct {
	store *Store
	txn   *memdb.Txn
	// The highest run and pool ids restored (the id lease's counters).
	maxRunID, maxPoolID int64
	// The highest task-instance id restored ("" for none).
	maxTIID string
	// The highest ids restored of the other tables numbered by a
	// counter, by the counter's name.
	maxIDs map[string]int64
}

// errStoreNotFresh refuses a restore into a store that has been written.
var errStoreNotFresh = errors.New("restore: the store is not fresh")

// Restore opens a restore into s, which must be fresh (newStore, never
// written). Until Commit or Abort no other write can begin.
func (s *Store) Restore() (*storeRestore, error) {
	txn := s.db.Txn(true)
	if counterValue(txn, counterChange) != 0 {
		txn.Abort()
		return nil, errStoreNotFresh
	}
	return &storeRestore{store: s, txn: txn, maxIDs: map[string]int64{}}, nil
}

// Insert stores one row of table as it is. The task instances table
// takes InsertTaskInstances; derived tables are built by Commit.
func (r *storeRestore) Insert(table string, obj any) error {
	if derivedTables[table] || table == tableTasks {
		return fmt.Errorf("restore %s: not restored row by row", table)
	}
	switch o := obj.(type) {
	case *DagRun:
		if date, ok := o.LogicalDate(); ok {
			if _, err := runByDateTxn(r.txn, o.DagID, date); err == nil {
				return fmt.Errorf("restore run %s of %s: another run has its logical date %s", o.RunID, o.DagID, isoFormat(date))
			} else if !errors.Is(err, errNotFound) {
				return err
			}
		}
		r.maxRunID = max(r.maxRunID, o.ID)
	case *Pool:
		r.maxPoolID = max(r.maxPoolID, o.ID)
	case *Variable:
		r.sawID(counterVariableID, o.ID)
	case *Connection:
		r.sawID(counterConnectionID, o.ID)
	case *EventLog:
		r.sawID(counterEventLogID, o.ID)
	case *Asset:
		r.sawID(counterAssetID, o.ID)
	case *AssetEvent:
		r.sawID(counterAssetEventID, o.ID)
	case *AssetAlias:
		r.sawID(counterAssetAliasID, o.ID)
	case *Backfill:
		r.sawID(counterBackfillID, o.ID)
	case *BackfillDagRun:
		r.sawID(counterBackfillRunID, o.ID)
	}
	return r.txn.Insert(table, obj)
}

// sawID remembers id as restored under counter.
func (r *storeRestore) sawID(counter string, id int64) {
	r.maxIDs[counter] = max(r.maxIDs[counter], id)
}

// InsertTaskInstances stores task instances; those of one run given one
// after another go into the store as one row.
func (r *storeRestore) InsertTaskInstances(tis []*TaskInstance) error {
	for _, ti := range tis {
		r.maxTIID = max(r.maxTIID, ti.ID)
	}
	return storeTaskInstancesTxn(r.txn, true, tis)
}

// Run is a run restored so far, or errNotFound.
func (r *storeRestore) Run(dagID, runID string) (*DagRun, error) {
	return runByRunIDTxn(r.txn, dagID, runID)
}

// Commit builds the derived tables, raises the counters to the highest
// ids restored and makes the restore the store's state. It returns the
// change index restored.
func (r *storeRestore) Commit() (int64, error) {
	if err := recountRunsTxn(r.txn); err != nil {
		return 0, err
	}
	if err := recountXComsTxn(r.txn); err != nil {
		return 0, err
	}
	if err := recountTotalTxn(r.txn, tableAssetEvents, totalAssetEvents); err != nil {
		return 0, err
	}
	if err := recountEventLogGapsTxn(r.txn); err != nil {
		return 0, err
	}
	if err := findConsumersTxn(r.txn); err != nil {
		return 0, err
	}
	// Ids keep counting from the highest id restored, whatever the
	// counters say: a new row under a restored id would take its place.
	if err := raiseCountersTxn(r.txn, r.maxIDs); err != nil {
		return 0, fmt.Errorf("restore counters: %w", err)
	}
	if err := raiseIDCountersTxn(r.txn, r.maxRunID, r.maxPoolID); err != nil {
		return 0, fmt.Errorf("restore counters: %w", err)
	}
	// New runs' task-instance ids grow past every id restored, so that
	// they fall among none (orderTIsTxn).
	if r.maxTIID != "" && !taskInstanceIDs.raisePast(r.maxTIID, time.Now()) {
		r.store.aheadTIIDs.Store(true)
	}
	r.txn.Commit()
	return r.store.ChangeIndex(), nil
}

// Abort drops every row inserted; after Commit it does nothing.
func (r *storeRestore) Abort() { r.txn.Abort() }
