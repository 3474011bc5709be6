package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Table and index names.
const (
	tableDags       = "dags"
	tableDagRuns    = "dag_runs"
	tableTasks      = "task_instances"
	tablePools      = "pools"
	tableLineage    = "lineage"
	tableTaskLogs   = "task_logs"
	tableCounters   = "counters"
	tableRunCounts  = "run_counts"
	tableTotals     = "totals"
	tableVariables  = "variables"
	tableConns      = "connections"
	tableXComs      = "xcom"
	tableEventLogs  = "event_logs"
	tableTryHistory = "task_instance_history"

	indexID       = "id"
	indexDagAfter = "dag_after" // runs: (dag_id, run_after, integer id), every run
	indexDagDate  = "dag_date"  // runs: (dag_id, logical date), where it is not run_after
	indexRowID    = "row_id"    // pools: integer id
	indexDagRow   = "dag_row"   // runs: (dag_id, integer id)
	indexState    = "state"     // runs: (state, dag_id); task instances: state
	indexRoot     = "root"      // dags: parent of a sub-DAG
)

// Counter names in the counters table.
const (
	counterChange = "change"  // bumped by every write transaction
	counterRunID  = "dag_run" // last dag run id handed out
	counterPoolID = "pool"    // last pool id handed out
	// Variable and connection ids only order listings (no answer shows
	// them), so they are not leased.
	counterVariableID   = "variable"
	counterConnectionID = "connection"
	counterEventLogID   = "event_log" // the event log's highest id handed out
)

// countersTable holds the change index and the id sequences.
func countersTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableCounters,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField[counter]{func(c *counter) string { return c.Name }}},
		},
	}
}

func schema() *memdb.DBSchema {
	tables := []*memdb.TableSchema{dagsTable(), dagRunsTable(), taskInstancesTable(), poolsTable(), lineageTable(),
		taskLogsTable(), tryHistoryTable(), countersTable(), runCountsTable(), totalsTable(), variablesTable(), connectionsTable(),
		xcomsTable(), eventLogsTable(), importErrorsTable(), assetsTable(), assetEventsTable(), assetAliasesTable(), assetQueueTable(), consumedEventsTable(),
		dagVersionsTable(), dagFavoritesTable(), backfillsTable(), backfillRunsTable(), tiOrderTable(), tiOrderMappedTable(), tiOrderGroupsTable(), xcomCountsTable(),
		settledMarksTable(), runDurationsTable(), tiStartsTable(), fixedMarksTable(), tiKeyedTable()}
	s := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{}}
	for _, t := range tables {
		s.Tables[t.Name] = t
	}
	return s
}

// Store is the in-memory state of airlite: DAGs, runs, task instances,
// pools and lineage. It is the single source of truth for the API, the
// scheduler and snapshots.
type Store struct {
	db *memdb.MemDB
	// runLimit caps the runs kept per DAG (--max-runs-per-dag); set once
	// before the store is shared.
	runLimit RunLimit
	// limits bound what the store holds in total; set once before the
	// store is shared.
	limits Limits
	writes writeQueue // updateBatched's writers (memstore_writebatch.go)
	// aheadTIIDs is set by a restore that brought a task-instance id
	// the id source could not be moved past (uuid7Source.raisePast): a
	// new run's ids may then fall among stored ones, and its block is
	// checked against the blocks stored (orderTIsTxn).
	aheadTIIDs atomic.Bool
	// lease is the ids the id lease on disk covers, none beyond which is
	// handed out (snapshot_idlease.go); the snapshotter keeps it.
	lease idCeiling
	// rowsRead, when set (before the store is shared), hears how many
	// rows each listing read: tests check that a page costs its rows.
	rowsRead func(n int)
	// committed, when set (before the store is shared), is shown each
	// write's changes before it commits: tests count the index entries a
	// write makes (memstore_writecost_test.go).
	committed func(memdb.Changes)
	// now, when set (before the store is shared), is the clock DAG
	// versions are dated by; time.Now otherwise.
	now func() time.Time
	// counts remembers filtered row counts per version of a table
	// (memstore_counts.go), for page totals.
	counts treeCounts
	// dagTags remembers the DAGs' distinct tags per version of the DAG
	// table (memstore_counts.go), for /dagTags.
	dagTags treeValue[[]string]
	// assetRefs remembers what the DAG definitions say of assets per
	// version of the DAG table, and namedAssets the assets they name per
	// version of the DAG, asset and alias tables (memstore_assetrefs.go).
	assetRefs   treeValue[*dagAssetRefs]
	namedAssets namedAssetsMemo
	// pending remembers each DAG's unfinished runs per version of its
	// runs (memstore_runpending.go), for the marked orders' pages.
	pending pendingRunsMemo
	// fixedOrders remembers the runs of each DAG whose fixed marks are
	// not kept sorted in those orders, per version of its runs
	// (memstore_runfixedorder.go).
	fixedOrders fixedOrdersMemo
	// fixedCounts remembers, for filtered listings by several keys led by
	// a fixed order, each value's count of the runs the filters pick, per
	// version of the run table (memstore_runfixedorder.go).
	fixedCounts versionMemo[map[string]int]
	// definitions remembers the definitions file the last snapshot of
	// each path named (snapshot_definitions.go), so that one is written
	// only when the DAGs' definitions change.
	definitions definitionsWritten
	// tiSorts remembers named runs' task instances sorted in the orders
	// pages asked for, per version of the runs' rows (memstore_tiruns.go).
	tiSorts namedRunsSorts
	// tiMappedParts remembers the mapped part of listings led by
	// map_index or rendered_map_index, sorted, per version of the
	// task-instance rows (memstore_tigroups.go).
	tiMappedParts versionMemo[[]RunTaskInstance]
	// tiMappedOfDAG remembers a DAG's mapped task instances a listing's
	// mapped part takes, per version of its task-instance rows
	// (memstore_tigroups.go, mappedOfDAGTxn).
	tiMappedOfDAG versionMemo[[]RunTaskInstance]
	// tiOperators remembers each operator's count of a DAG's task
	// instances for listings led by operator, per version of the DAG's
	// task-instance rows (memstore_tivaluecounts.go, tiValueCountsTxn).
	tiOperators versionMemo[map[TILeadValue[string]]int]
	// tiStateCounts and tiTryCounts remember each state's and try
	// number's count of a DAG's task instances, for listings led by
	// state or try_number with keys after it (memstore_tigroups.go,
	// tiValueCountsTxn).
	tiStateCounts versionMemo[map[TILeadValue[TaskState]]int]
	tiTryCounts   versionMemo[map[TILeadValue[int]]int]
	// tiFilteredOfDAG remembers how many of a DAG's task instances a
	// listing's filter picks, per version of the DAG's task-instance rows
	// (memstore_tistarts.go, filteredTITotal).
	tiFilteredOfDAG versionMemo[int]
	// xcomRunsOfDAG remembers the runs of a DAG an XCom listing's run
	// filters take, per version of the DAG's runs (memstore_xcompages.go,
	// xcomAdmittedRuns).
	xcomRunsOfDAG versionMemo[xcomRunsTaken]
	// tiNullsOfDAG remembers a DAG's task instances whose next key is
	// NULL in a group page's listing, per version of its task-instance
	// rows, and tiNullParts the scope's, sorted in the listing's order,
	// per version of the scope's (memstore_tigroups.go, nullPartTxn).
	tiNullsOfDAG versionMemo[[]RunTaskInstance]
	tiNullParts  versionMemo[[]RunTaskInstance]
	// tiPending remembers each DAG's unfinished runs' started task
	// instances per version of its runs and task instances
	// (memstore_tistarts.go), for the start_date order's pages.
	tiPending tiPendingMemo
	// tiKeyedPending is tiPending for the orders by state, end_date,
	// duration, try_number, and the task instances without a start, by
	// order and DAG (memstore_tistateorder.go).
	tiKeyedPending tiPendingMemo
}

// SetClock sets the clock DAG versions are dated by; call it before
// sharing the store.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// clock is the time a write records.
func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Limits bound the store's totals, so that no sequence of requests grows
// it without bound (docs/behaviour.md §4.1). Each is refused with a 400
// that names its flag; 0 means no limit.
type Limits struct {
	// Pools is --max-pools: the pools a POST /pools may bring the store
	// to, default_pool and the DAG folder's pools included. Changing an
	// existing pool is always allowed.
	Pools int
	// LoadedDAGs is --max-dags: the DAGs loaded through POST /_airlite/dags
	// (beyond the DAG folder's). Replacing a DAG is always allowed.
	LoadedDAGs int
	// ConfBytes is --max-conf-bytes-total: the summed size of every stored
	// run's conf.
	ConfBytes int64
	// Variables, Connections and XComs are --max-variables,
	// --max-connections and --max-xcoms: the rows of each kept at once.
	// Replacing one never counts.
	Variables, Connections, XComs int
	// VariableBytes, ConnectionBytes and XComBytes are
	// --max-variable-bytes, --max-connection-bytes and --max-xcom-bytes:
	// the size of one variable's value, one connection's text
	// (Connection.Bytes) and one XCom value's JSON.
	VariableBytes, ConnectionBytes, XComBytes int
	// EventLogs is --max-event-logs: the event log keeps the rows of its
	// newest ids up to this many, dropping the oldest as a new one comes
	// (a ring).
	EventLogs int
}

// SetLimits sets the store's total limits; call it before sharing the store.
func (s *Store) SetLimits(l Limits) { s.limits = l }

// RunLimit is --max-runs-per-dag and --run-retention: at Max runs of one
// DAG, a new run is refused, or with DropOldestFinished the finished runs
// with the oldest execution dates go (with their task instances, lineage
// and task logs) in the same transaction. Max 0 means no limit.
type RunLimit struct {
	Max                int
	DropOldestFinished bool
}

// SetRunLimit sets the cap on runs per DAG; call it before sharing the store.
func (s *Store) SetRunLimit(l RunLimit) { s.runLimit = l }

func newStore() (*Store, error) {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	return &Store{db: db,
		tiMappedParts:   versionMemo[[]RunTaskInstance]{max: maxTIMappedParts},
		tiMappedOfDAG:   versionMemo[[]RunTaskInstance]{max: maxTIValueCounts},
		tiOperators:     versionMemo[map[TILeadValue[string]]int]{max: maxTIValueCounts},
		tiStateCounts:   versionMemo[map[TILeadValue[TaskState]]int]{max: maxTIValueCounts},
		tiTryCounts:     versionMemo[map[TILeadValue[int]]int]{max: maxTIValueCounts},
		tiFilteredOfDAG: versionMemo[int]{max: maxTIFilteredCounts},
		xcomRunsOfDAG:   versionMemo[xcomRunsTaken]{max: maxXComRunsOfDAG},
		tiNullsOfDAG:    versionMemo[[]RunTaskInstance]{max: maxTIValueCounts},
		tiNullParts:     versionMemo[[]RunTaskInstance]{max: maxTIMappedParts},
		fixedCounts:     versionMemo[map[string]int]{max: maxFixedCounts},
	}, nil
}

// read opens a read transaction: a point-in-time view that never blocks
// writers.
func (s *Store) read() *memdb.Txn { return s.db.Txn(false) }

// update runs fn in a write transaction and commits when fn succeeds,
// bumping the change index if fn wrote anything; on error nothing changes.
func (s *Store) update(fn func(txn *memdb.Txn) error) error { return s.write(fn, false) }

// write is update; alwaysWrites says that fn writes whenever it succeeds,
// so that the transaction need not track its changes to know (go-memdb's
// Changes copies and de-duplicates them: about a dozen allocations for a
// trigger).
func (s *Store) write(fn func(txn *memdb.Txn) error, alwaysWrites bool) error {
	txn := s.db.Txn(true)
	defer txn.Abort()
	if !alwaysWrites || s.committed != nil {
		txn.TrackChanges()
	}
	// Read before fn writes: go-memdb's read of an index that the
	// transaction has written (Txn.readableIndex, iradix Txn.Clone)
	// empties that index's cache of copied nodes, so that the next
	// insert copies its path again. fn never writes this counter.
	change := counterValue(txn, counterChange)
	if err := fn(txn); err != nil {
		return err
	}
	if !alwaysWrites && len(txn.Changes()) == 0 {
		return nil // nothing written: the change index stays
	}
	if err := txn.Insert(tableCounters, &counter{Name: counterChange, Value: change + 1}); err != nil {
		return fmt.Errorf("bump counter %s: %w", counterChange, err)
	}
	if s.committed != nil {
		s.committed(txn.Changes())
	}
	txn.Commit()
	return nil
}

// ChangeIndex is the number of write transactions committed so far.
func (s *Store) ChangeIndex() int64 { return counterValue(s.read(), counterChange) }

// IDCounters returns the highest run and pool ids handed out so far. w,
// when not nil, is told to wake when either changes.
func (s *Store) IDCounters(w *idWatch) (run, pool int64) {
	txn := s.read()
	for _, c := range []struct {
		name  string
		value *int64
	}{{counterRunID, &run}, {counterPoolID, &pool}} {
		ch, raw, _ := txn.FirstWatch(tableCounters, indexID, c.name)
		if w != nil {
			w.ws.Add(ch)
		}
		if raw != nil {
			*c.value = raw.(*counter).Value
		}
	}
	return run, pool
}

// idWatch is a wait for the id counters to change: IDCounters arms it.
type idWatch struct{ ws memdb.WatchSet }

func newIDWatch() *idWatch { return &idWatch{ws: memdb.NewWatchSet()} }

// Wait returns nil when a counter it watches changes, or ctx's error when
// ctx ends first.
func (w *idWatch) Wait(ctx context.Context) error { return w.ws.WatchCtx(ctx) }

// RaiseIDCounters makes the run and pool id counters at least run and
// pool, so that no id up to them is handed out again (the id lease).
func (s *Store) RaiseIDCounters(run, pool int64) error {
	return s.update(func(txn *memdb.Txn) error { return raiseIDCountersTxn(txn, run, pool) })
}

// raiseIDCountersTxn makes the id counters at least run and pool (the
// lease, or the highest ids a restore found).
func raiseIDCountersTxn(txn *memdb.Txn, run, pool int64) error {
	return raiseCountersTxn(txn, map[string]int64{counterRunID: run, counterPoolID: pool})
}

// raiseCountersTxn makes each named counter at least its value.
func raiseCountersTxn(txn *memdb.Txn, atLeast map[string]int64) error {
	for name, v := range atLeast {
		if counterValue(txn, name) < v {
			if err := txn.Insert(tableCounters, &counter{Name: name, Value: v}); err != nil {
				return fmt.Errorf("raise counter %s: %w", name, err)
			}
		}
	}
	return nil
}

// LeaseWritten tells the store that the id lease at path, now on disk,
// covers run ids up to run and pool ids up to pool: from now on ids up to
// them, and none beyond, are handed out.
func (s *Store) LeaseWritten(path string, run, pool int64) { s.lease.set(path, run, pool) }

// LeaseFailed tells the store why the id lease at path could not be
// written; ids the lease on disk covers are still handed out.
func (s *Store) LeaseFailed(path string, err error) { s.lease.fail(path, err) }

// LeaseProblem says, as an errUnavailable, why the id lease cannot be
// written; nil when its last write succeeded.
func (s *Store) LeaseProblem() error { return s.lease.stuck() }

// PinIDCeiling sets the id ceiling to the ids handed out so far and
// returns them: a lease written with exactly these values then covers
// every id handed out. It holds the writer lock, so that no id is being
// handed out meanwhile.
func (s *Store) PinIDCeiling(path string) (run, pool int64) {
	txn := s.db.Txn(true)
	defer txn.Abort()
	run, pool = counterValue(txn, counterRunID), counterValue(txn, counterPoolID)
	s.lease.set(path, run, pool)
	return run, pool
}

// nextIDTxn hands out the next run or pool id (name is counterRunID or
// counterPoolID), or refuses it with errUnavailable when the id lease on
// disk does not cover it.
func (s *Store) nextIDTxn(txn *memdb.Txn, name string) (int64, error) {
	next := counterValue(txn, name) + 1
	if err := s.lease.admit(name, next); err != nil {
		return 0, err
	}
	if err := txn.Insert(tableCounters, &counter{Name: name, Value: next}); err != nil {
		return 0, fmt.Errorf("bump counter %s: %w", name, err)
	}
	return next, nil
}

// leased runs write, a write that may hand out ids. When write is
// refused an id only because the lease is being extended (not because
// it cannot be written), it waits for the lease writer, up to leaseWait,
// and tries again.
func (s *Store) leased(write func() error) error {
	deadline := time.Now().Add(leaseWait)
	for {
		changed := s.lease.watch()
		err := write()
		if !errors.Is(err, errUnavailable) || s.lease.stuck() != nil {
			return err
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return err
		}
		timer := time.NewTimer(wait)
		select {
		case <-changed:
			timer.Stop()
		case <-timer.C:
			return err
		}
	}
}

// updateIDs is update for a write that may hand out ids: see leased.
func (s *Store) updateIDs(fn func(txn *memdb.Txn) error) error {
	return s.leased(func() error { return s.update(fn) })
}

func counterValue(txn *memdb.Txn, name string) int64 {
	raw, err := txn.First(tableCounters, indexID, name)
	if err != nil || raw == nil {
		return 0
	}
	return raw.(*counter).Value
}

// nextCounter increments a counter and returns its new value.
func nextCounter(txn *memdb.Txn, name string) (int64, error) {
	c := &counter{Name: name, Value: counterValue(txn, name) + 1}
	if err := txn.Insert(tableCounters, c); err != nil {
		return 0, fmt.Errorf("bump counter %s: %w", name, err)
	}
	return c.Value, nil
}

// Reset puts the store back to what the definitions say: no runs, task
// instances or lineage, default_pool and the fixture pools only, paused
// flags as the files set them, DAGs deleted through the API back. Id
// sequences keep counting, so no run id is ever reused.
func (s *Store) Reset(set *DAGSet) error {
	return s.updateIDs(func(txn *memdb.Txn) error {
		for _, table := range []string{tableDags, tableDagRuns, tableTasks, tablePools, tableLineage, tableTaskLogs,
			tableTryHistory, tableVariables, tableConns, tableAssets, tableAssetEvents, tableAssetQueue, tableConsumedEvents,
			tableDagVersions, tableDagFavorites, tableBackfills, tableBackfillRuns, tableTIOrder, tableTIOrderMapped, tableTIOrderGroups, tableSettledMarks, tableRunDurations, tableFixedMarks,
			tableTIStarts} {
			if _, err := txn.DeleteAll(table, indexID); err != nil {
				return fmt.Errorf("reset %s: %w", table, err)
			}
		}
		if err := deleteXComsTxn(txn); err != nil {
			return err
		}
		if _, err := txn.DeleteAll(tableTotals, indexID, totalAssetEvents); err != nil {
			return fmt.Errorf("reset asset event count: %w", err)
		}
		if err := clearEventLogsTxn(txn); err != nil {
			return err
		}
		if err := clearRunCountsTxn(txn); err != nil {
			return err
		}
		for _, d := range set.DAGs {
			row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
			if err := txn.Insert(tableDags, row); err != nil {
				return fmt.Errorf("insert dag %s: %w", d.DagID, err)
			}
			if err := recordVersionTxn(txn, d, s.clock()); err != nil {
				return err
			}
		}
		return s.ensurePoolsTxn(txn, set.Pools, true)
	})
}

// allRows lists every row of table, by id; what names them in an error.
func allRows[T any](txn *memdb.Txn, table, what string) ([]*T, error) {
	it, err := txn.Get(table, indexID)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	out := []*T{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*T))
	}
	return out, nil
}

// enforceCountTxn refuses one more row of table at max rows (0: no
// limit). Such tables are kept small by their limit, so it counts them.
func enforceCountTxn(txn *memdb.Txn, table string, max int, limit string) error {
	if max <= 0 {
		return nil
	}
	it, err := txn.Get(table, indexID)
	if err != nil {
		return fmt.Errorf("count %s: %w", table, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	if n < max {
		return nil
	}
	return &limitError{limit: limit, have: int64(n)}
}
