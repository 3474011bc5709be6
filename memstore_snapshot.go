package main

// What the snapshot codec (snapshot*.go) reads and fills the store
// through, so that it never holds a transaction: a point-in-time copy of
// every table to write (storeSnapshot), and a restore into a fresh store
// (storeRestore, as Nomad's StateRestore).

import (
	"bytes"
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
	// The greatest key restored so far in each index heldAlreadyTxn
	// looks up, by table and index (restoredKeyIndexes).
	maxKeys map[[2]string][]byte
}

// restoredKeyIndexes are, by table, the unique indexes whose keys a
// restore checks itself (heldAlreadyTxn) rather than the snapshot reader.
var restoredKeyIndexes = map[string][]string{
	tableCounters: {indexID}, tableLineage: {indexID}, tableTaskLogs: {indexID}, tableTryHistory: {indexID},
	tableXComs: {indexID}, tableDagVersions: {indexID, indexVersionUUID}, tableDagFavorites: {indexID},
	tableAssetQueue: {indexID}, tableConsumedEvents: {indexID}, tableAssets: {"name_uri"},
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
	return &storeRestore{store: s, txn: txn, maxIDs: map[string]int64{}, maxKeys: map[[2]string][]byte{}}, nil
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
	if fresh, err := r.keysPastMax(table, obj); err != nil {
		return err
	} else if !fresh {
		if err := heldAlreadyTxn(r.txn, obj); err != nil {
			return err
		}
	}
	return r.txn.Insert(table, obj)
}

// keysPastMax reports whether obj's key in each index of table that
// heldAlreadyTxn checks is past every key restored before it, which no
// restored row can then hold; it keeps the greatest key of each. The
// writer writes a table's rows in its primary key's order, so that a
// file airlite wrote needs no lookup in its primary key: a lookup in a
// write transaction drops the index's cache of nodes it may write in
// place (go-immutable-radix Txn.Clone), and the inserts after it then
// copied their paths again, 4 million allocations more for 80,000 rows
// of lineage, captured output, earlier tries and XCom.
func (r *storeRestore) keysPastMax(table string, obj any) (bool, error) {
	fresh := true
	for _, index := range restoredKeyIndexes[table] {
		indexer, ok := r.store.db.DBSchema().Tables[table].Indexes[index].Indexer.(memdb.SingleIndexer)
		if !ok {
			return false, fmt.Errorf("restore %s: index %s is not a single indexer", table, index)
		}
		_, key, err := indexer.FromObject(obj)
		if err != nil {
			return false, fmt.Errorf("restore %s: key of index %s: %w", table, index, err)
		}
		at := [2]string{table, index}
		if max, ok := r.maxKeys[at]; ok && bytes.Compare(key, max) <= 0 {
			fresh = false
			continue
		}
		r.maxKeys[at] = key
	}
	return fresh, nil
}

// keyTwiceError is a restored row under a key that a row restored before
// it holds.
type keyTwiceError struct{ key string }

func (e *keyTwiceError) Error() string { return e.key + " appears twice" }

// heldAlreadyTxn is a keyTwiceError when a stored row holds obj's key,
// in a table whose key is not a number or name the snapshot reader
// tracks (it refuses run, pool, variable, connection, asset and backfill
// keys twice itself), or an asset's name and uri, which meet in one
// string. go-memdb refuses no duplicate: a second row under the primary
// key takes the first one's place, and one under another unique index
// hides the first from it, so a restore would lose a row without a word.
// The lookups are the ones the store's writes of such rows make before
// they insert (putXComTxn, appendTaskLogTxn, recordTryTxn, SetFavorite,
// queueForTxn, ensureAssetTxn).
func heldAlreadyTxn(txn *memdb.Txn, obj any) error {
	switch o := obj.(type) {
	case *counter:
		return refuseHeldTxn(txn, tableCounters, indexID, obj, o.Name)
	case *LineageRecord:
		return refuseHeldTxn(txn, tableLineage, indexID, obj, o.DagID, o.RunID, o.TaskID, mapIndexArg(o.MapIndex))
	case *TaskLog:
		return refuseHeldTxn(txn, tableTaskLogs, indexID, obj, o.DagID, o.RunID, o.TaskID, mapIndexArg(o.MapIndex))
	case *TaskInstanceHistory:
		return refuseHeldTxn(txn, tableTryHistory, indexID, obj, o.DagID, o.RunID, o.TaskID, mapIndexArg(o.MapIndex))
	case *XComEntry:
		return refuseHeldTxn(txn, tableXComs, indexID, obj, o.DagID, o.RunID, o.TaskID, o.Key, o.MapIndex)
	case *DagVersion:
		if err := refuseHeldTxn(txn, tableDagVersions, indexID, obj, o.DagID, o.Number); err != nil {
			return err
		}
		return refuseHeldTxn(txn, tableDagVersions, indexVersionUUID, obj, o.ID)
	case *DagFavorite:
		return refuseHeldTxn(txn, tableDagFavorites, indexID, obj, o.DagID, o.UserID)
	case *AssetQueueEntry:
		return refuseHeldTxn(txn, tableAssetQueue, indexID, obj, assetQueueKey(o.DagID, o.AssetID))
	case *ConsumedEvents:
		return refuseHeldTxn(txn, tableConsumedEvents, indexID, obj, o.RunRowID)
	case *Asset:
		// The reader refuses a name and uri twice; this lookup sees two
		// pairs that meet in the index's name, NUL, uri.
		return refuseHeldTxn(txn, tableAssets, "name_uri", obj, assetKey(o.Name, o.URI))
	}
	return nil
}

// refuseHeldTxn is heldAlreadyTxn's lookup of obj's key args in index.
func refuseHeldTxn(txn *memdb.Txn, table, index string, obj any, args ...any) error {
	raw, err := txn.First(table, index, args...)
	if err != nil {
		return fmt.Errorf("look up %s: %w", restoredKey(obj, index), err)
	}
	if raw != nil {
		return &keyTwiceError{restoredKey(obj, index)}
	}
	return nil
}

// restoredKey names obj's key in index, for heldAlreadyTxn's errors.
func restoredKey(obj any, index string) string {
	ti := func(dagID, runID, taskID string, mapIndex int) string {
		return fmt.Sprintf("task instance %s of run %s of DAG %s (map_index %d)", taskID, runID, dagID, mapIndex)
	}
	switch o := obj.(type) {
	case *counter:
		return fmt.Sprintf("counter %q", o.Name)
	case *LineageRecord:
		return ti(o.DagID, o.RunID, o.TaskID, o.MapIndex)
	case *TaskLog:
		return ti(o.DagID, o.RunID, o.TaskID, o.MapIndex)
	case *TaskInstanceHistory:
		return ti(o.DagID, o.RunID, o.TaskID, o.MapIndex)
	case *XComEntry:
		return fmt.Sprintf("key %q of %s", o.Key, ti(o.DagID, o.RunID, o.TaskID, o.MapIndex))
	case *DagVersion:
		if index == indexVersionUUID {
			return fmt.Sprintf("id %q", o.ID)
		}
		return fmt.Sprintf("version %d of DAG %q", o.Number, o.DagID)
	case *DagFavorite:
		return fmt.Sprintf("DAG %q as a favorite of user %q", o.DagID, o.UserID)
	case *AssetQueueEntry:
		return fmt.Sprintf("asset %d queued for DAG %q", o.AssetID, o.DagID)
	case *ConsumedEvents:
		return fmt.Sprintf("dag_run_id %d", o.RunRowID)
	case *Asset:
		return fmt.Sprintf("name %q with uri %q", o.Name, o.URI)
	}
	return fmt.Sprintf("%T's key", obj)
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
	return storeTaskInstancesTxn(r.txn, true, tis, nil)
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
