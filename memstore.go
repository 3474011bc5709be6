package main

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
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

	indexID      = "id"
	indexDagDate = "dag_date" // runs: (dag_id, execution_date)
	indexRowID   = "row_id"   // pools: integer id
	indexDagRow  = "dag_row"  // runs: (dag_id, integer id)
	indexState   = "state"    // runs: (state, dag_id); task instances: state
	indexRoot    = "root"     // dags: parent of a sub-DAG
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
	counterEventLogID   = "event_log" // the event log's highest id when a reset emptied it
)

// dagsTable holds one row per DAG id.
func dagsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDags,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:   {Name: indexID, Unique: true, Indexer: stringField[DagRow]{func(r *DagRow) string { return r.DagID }}},
			indexRoot: {Name: indexRoot, AllowMissing: true, Indexer: stringField[DagRow]{func(r *DagRow) string { return r.RootDagID }}},
		},
	}
}

// Typed accessors for the indexes (see memstore_indexers.go).
var (
	runDagID = stringField[DagRun]{func(r *DagRun) string { return r.DagID }}
	runRowID = seqField[DagRun]{func(r *DagRun) int64 { return r.ID }}
)

// runKeyIndexes is the (dag_id, run_id, task_id) key of the tables that
// hold one row per task instance.
func runKeyIndexes[T any](dag, run, task func(*T) string) *memdb.CompoundIndex {
	return &memdb.CompoundIndex{Indexes: []memdb.Indexer{stringField[T]{dag}, stringField[T]{run}, stringField[T]{task}}}
}

// dagRunsTable holds runs keyed by (dag_id, run_id), and found by
// (dag_id, execution_date) in date order, by (dag_id, integer id) in id
// order (the stable API's default order: a page reads its rows alone;
// ids are never reused), and, while unfinished, by (state, dag_id): a
// prefix query on the state alone lists every run in a state, the full
// key one DAG's. Every index costs each trigger a radix-tree insert (about
// 60 allocations and 4 KB), so the one state index serves both state
// questions, and every DAG's runs in id order merge the DAGs' walks of
// the (dag_id, id) index (runMerge) instead of keeping an index of their
// own.
func dagRunsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDagRuns,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				runDagID, stringField[DagRun]{func(r *DagRun) string { return r.RunID }}}}},
			indexDagDate: {Name: indexDagDate, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				runDagID, timeIndex{field: "ExecutionDate"}}}},
			indexDagRow: {Name: indexDagRow, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{runDagID, runRowID}}},
			indexState: {Name: indexState, AllowMissing: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				activeStateIndex(), runDagID}}},
		},
	}
}

// taskInstancesTable holds one row per run with that run's task instances
// (runTasks), keyed by (dag_id, run_id) and found by each unfinished state
// one of its task instances is in.
func taskInstancesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTasks,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				stringField[runTasks]{func(r *runTasks) string { return r.DagID }},
				stringField[runTasks]{func(r *runTasks) string { return r.RunID }}}}},
			indexState: {Name: indexState, AllowMissing: true, Indexer: taskStatesIndex{}},
		},
	}
}

// poolsTable holds pools by name, and by integer id.
func poolsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tablePools,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Pool]{func(p *Pool) string { return p.Name }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Pool]{func(p *Pool) int64 { return p.ID }}},
		},
	}
}

// lineageTable holds the inlets and outlets of finished tasks, keyed like
// task instances.
func lineageTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableLineage,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: runKeyIndexes(
				func(l *LineageRecord) string { return l.DagID }, func(l *LineageRecord) string { return l.RunID },
				func(l *LineageRecord) string { return l.TaskID })},
		},
	}
}

// taskLogsTable holds the captured output of every try of a task
// instance, keyed like task instances.
func taskLogsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTaskLogs,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: runKeyIndexes(
				func(l *TaskLog) string { return l.DagID }, func(l *TaskLog) string { return l.RunID },
				func(l *TaskLog) string { return l.TaskID })},
		},
	}
}

// tryHistoryTable holds the earlier tries of task instances
// (TaskInstanceHistory), one row per task instance, keyed like task
// instances.
func tryHistoryTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTryHistory,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: runKeyIndexes(
				func(h *TaskInstanceHistory) string { return h.DagID }, func(h *TaskInstanceHistory) string { return h.RunID },
				func(h *TaskInstanceHistory) string { return h.TaskID })},
		},
	}
}

// taskInstanceTables are the tables whose rows belong to one task
// instance, keyed (dag_id, run_id, task_id): they go with their run.
var taskInstanceTables = []string{tableLineage, tableTaskLogs, tableTryHistory}

// countersTable holds the change index and the id sequences.
func countersTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableCounters,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField[counter]{func(c *counter) string { return c.Name }}},
		},
	}
}

// derivedTables hold what other tables already say, kept for speed:
// snapshots leave them out and restore builds them again.
var derivedTables = map[string]bool{tableRunCounts: true, tableTotals: true}

// Names in the totals table.
const (
	totalConfBytes = "conf_bytes" // len(Conf) summed over every run
	totalXComs     = "xcoms"      // rows of the XCom table
)

// totalsTable holds sums over whole tables (storeTotal).
func totalsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTotals,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField[storeTotal]{func(c *storeTotal) string { return c.Name }}},
		},
	}
}

func totalTxn(txn *memdb.Txn, name string) int64 {
	raw, err := txn.First(tableTotals, indexID, name)
	if err != nil || raw == nil {
		return 0
	}
	return raw.(*storeTotal).Value
}

// addTotalTxn changes a total by delta.
func addTotalTxn(txn *memdb.Txn, name string, delta int64) error {
	if delta == 0 {
		return nil
	}
	if err := txn.Insert(tableTotals, &storeTotal{Name: name, Value: totalTxn(txn, name) + delta}); err != nil {
		return fmt.Errorf("add to total %s: %w", name, err)
	}
	return nil
}

// runCountsTable holds the number of runs of each DAG that has any, and
// the bytes of their confs.
func runCountsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableRunCounts,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField[runCount]{func(c *runCount) string { return c.DagID }}},
		},
	}
}

func runCountTxn(txn *memdb.Txn, dagID string) runCount {
	raw, err := txn.First(tableRunCounts, indexID, dagID)
	if err != nil || raw == nil {
		return runCount{DagID: dagID}
	}
	return *raw.(*runCount)
}

// countRunTxn adds run, with tis task instances, to its DAG's counts
// (sign 1) or takes it away (sign -1), and its conf's bytes to the
// store's total.
func countRunTxn(txn *memdb.Txn, run *DagRun, sign, tis int) error {
	c := runCountTxn(txn, run.DagID)
	confBytes := int64(sign * len(run.Conf))
	c.N += sign
	c.States[runStateSlot(run.State)] += sign
	c.ConfBytes += confBytes
	c.TaskInstances += sign * tis
	if err := storeRunCountTxn(txn, &c); err != nil {
		return err
	}
	return addTotalTxn(txn, totalConfBytes, confBytes)
}

// storeRunCountTxn keeps c, or drops it when it counts nothing.
func storeRunCountTxn(txn *memdb.Txn, c *runCount) error {
	if c.N <= 0 && c.TaskInstances <= 0 {
		if _, err := txn.DeleteAll(tableRunCounts, indexID, c.DagID); err != nil {
			return fmt.Errorf("clear run count of %s: %w", c.DagID, err)
		}
	} else if err := txn.Insert(tableRunCounts, c); err != nil {
		return fmt.Errorf("count runs of %s: %w", c.DagID, err)
	}
	return nil
}

// putRunTxn stores a changed copy of a run, and keeps its DAG's counts.
func putRunTxn(txn *memdb.Txn, old, next *DagRun) error {
	if err := txn.Insert(tableDagRuns, next); err != nil {
		return fmt.Errorf("store run %s of %s: %w", next.RunID, next.DagID, err)
	}
	if old.State == next.State && len(old.Conf) == len(next.Conf) {
		return nil
	}
	if err := countRunTxn(txn, old, -1, 0); err != nil {
		return err
	}
	return countRunTxn(txn, next, 1, 0)
}

// deleteRunTxn removes one run row and its task instances, and takes them
// from its DAG's counts.
func deleteRunTxn(txn *memdb.Txn, run *DagRun) error {
	if err := txn.Delete(tableDagRuns, run); err != nil {
		return fmt.Errorf("delete run %s of %s: %w", run.RunID, run.DagID, err)
	}
	row, err := runTasksTxn(txn, run.DagID, run.RunID)
	if err != nil {
		return err
	}
	tis := 0
	if row != nil {
		tis = len(row.TIs)
		if err := txn.Delete(tableTasks, row); err != nil {
			return fmt.Errorf("delete task instances of %s/%s: %w", run.DagID, run.RunID, err)
		}
	}
	return countRunTxn(txn, run, -1, tis)
}

// forgetRunCountTxn is countRunTxn for a write that removes every run of
// a DAG.
func forgetRunCountTxn(txn *memdb.Txn, dagID string) error {
	c := runCountTxn(txn, dagID)
	if _, err := txn.DeleteAll(tableRunCounts, indexID, dagID); err != nil {
		return fmt.Errorf("clear run count of %s: %w", dagID, err)
	}
	return addTotalTxn(txn, totalConfBytes, -c.ConfBytes)
}

// clearRunCountsTxn is countRunTxn for a write that removes every run.
func clearRunCountsTxn(txn *memdb.Txn) error {
	if _, err := txn.DeleteAll(tableRunCounts, indexID); err != nil {
		return fmt.Errorf("clear %s: %w", tableRunCounts, err)
	}
	if _, err := txn.DeleteAll(tableTotals, indexID, totalConfBytes); err != nil {
		return fmt.Errorf("clear %s: %w", tableTotals, err)
	}
	return nil
}

// recountRunsTxn sets every DAG's run counts, task-instance count and conf
// bytes, and the total, from the runs and task-instance tables (after a
// restore).
func recountRunsTxn(txn *memdb.Txn) error {
	if err := clearRunCountsTxn(txn); err != nil {
		return err
	}
	counts := map[string]*runCount{}
	countOf := func(dagID string) *runCount {
		c := counts[dagID]
		if c == nil {
			c = &runCount{DagID: dagID}
			counts[dagID] = c
		}
		return c
	}
	it, err := txn.Get(tableDagRuns, indexID)
	if err != nil {
		return fmt.Errorf("count runs: %w", err)
	}
	var total int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		c := countOf(run.DagID)
		c.N++
		c.States[runStateSlot(run.State)]++
		c.ConfBytes += int64(len(run.Conf))
		total += int64(len(run.Conf))
	}
	tit, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return fmt.Errorf("count task instances: %w", err)
	}
	for raw := tit.Next(); raw != nil; raw = tit.Next() {
		row := raw.(*runTasks)
		countOf(row.DagID).TaskInstances += len(row.TIs)
	}
	for _, c := range counts {
		if err := storeRunCountTxn(txn, c); err != nil {
			return err
		}
	}
	return addTotalTxn(txn, totalConfBytes, total)
}

func schema() *memdb.DBSchema {
	tables := []*memdb.TableSchema{dagsTable(), dagRunsTable(), taskInstancesTable(), poolsTable(), lineageTable(),
		taskLogsTable(), tryHistoryTable(), countersTable(), runCountsTable(), totalsTable(), variablesTable(), connectionsTable(),
		xcomsTable(), eventLogsTable()}
	s := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{}}
	for _, t := range tables {
		s.Tables[t.Name] = t
	}
	return s
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
	// lease is the ids the id lease on disk covers, none beyond which is
	// handed out (snapshot_idlease.go); the snapshotter keeps it.
	lease idCeiling
	// rowsRead, when set (before the store is shared), hears how many
	// rows each listing read: tests check that a page costs its rows.
	rowsRead func(n int)
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

// enforceRunLimitTxn makes room for one more run of dagID, or refuses it.
// The count is kept by the writes (runCount); only dropping runs walks
// them, oldest first, and stops at the last one it drops.
func enforceRunLimitTxn(txn *memdb.Txn, dagID string, l RunLimit) error {
	if l.Max <= 0 {
		return nil
	}
	n := runCountTxn(txn, dagID).N
	if n < l.Max {
		return nil
	}
	if !l.DropOldestFinished {
		return &limitError{limit: limitRunsPerDag, dagID: dagID, have: int64(n), finished: -1}
	}
	excess := n - l.Max + 1
	it, err := txn.Get(tableDagRuns, indexDagDate+"_prefix", dagID, nil)
	if err != nil {
		return fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	var finished []*DagRun // oldest execution date first
	for raw := it.Next(); raw != nil && len(finished) < excess; raw = it.Next() {
		if run := raw.(*DagRun); run.State.Finished() {
			finished = append(finished, run)
		}
	}
	if len(finished) < excess {
		unfinished := 0
		for _, state := range []RunState{RunQueued, RunRunning} {
			c, err := storeView{txn}.CountRuns(dagID, state)
			if err != nil {
				return err
			}
			unfinished += c
		}
		return &limitError{limit: limitRunsPerDag, dagID: dagID, have: int64(n), finished: int64(n - unfinished)}
	}
	for _, run := range finished {
		if err := deleteRunTxn(txn, run); err != nil {
			return err
		}
		for _, table := range taskInstanceTables {
			if _, err := txn.DeleteAll(table, indexID+"_prefix", dagID, run.RunID, ""); err != nil {
				return fmt.Errorf("drop %s of run %s of %s: %w", table, run.RunID, dagID, err)
			}
		}
		if err := deleteXComsTxn(txn, dagID, run.RunID, ""); err != nil {
			return err
		}
	}
	return nil
}

func newStore() (*Store, error) {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	return &Store{db: db}, nil
}

// read opens a read transaction: a point-in-time view that never blocks
// writers.
func (s *Store) read() *memdb.Txn { return s.db.Txn(false) }

// update runs fn in a write transaction and commits when fn succeeds,
// bumping the change index if fn wrote anything; on error nothing changes.
func (s *Store) update(fn func(txn *memdb.Txn) error) error {
	txn := s.db.Txn(true)
	defer txn.Abort()
	txn.TrackChanges()
	if err := fn(txn); err != nil {
		return err
	}
	if len(txn.Changes()) == 0 {
		return nil // nothing written: the change index stays
	}
	if _, err := nextCounter(txn, counterChange); err != nil {
		return err
	}
	txn.Commit()
	return nil
}

// ChangeIndex is the number of write transactions committed so far.
func (s *Store) ChangeIndex() int64 { return counterValue(s.read(), counterChange) }

// IDCounters returns the highest run and pool ids handed out so far. ws,
// when not nil, is given channels that fire when either changes.
func (s *Store) IDCounters(ws memdb.WatchSet) (run, pool int64) {
	txn := s.read()
	for _, c := range []struct {
		name  string
		value *int64
	}{{counterRunID, &run}, {counterPoolID, &pool}} {
		ch, raw, _ := txn.FirstWatch(tableCounters, indexID, c.name)
		if ws != nil {
			ws.Add(ch)
		}
		if raw != nil {
			*c.value = raw.(*counter).Value
		}
	}
	return run, pool
}

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
	if err := s.lease.admit(name, counterValue(txn, name)+1); err != nil {
		return 0, err
	}
	return nextCounter(txn, name)
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

// LoadDAGs replaces the DAG table with the given definitions. A DAG already
// known keeps its paused flag; a new one takes is_paused_upon_creation.
// Rows whose definition is no longer given stay, without a definition, as
// Airflow keeps DagModel rows of vanished files.
func (s *Store) LoadDAGs(set *DAGSet) error {
	return s.updateIDs(func(txn *memdb.Txn) error {
		given := map[string]bool{}
		for _, d := range set.DAGs {
			given[d.DagID] = true
			row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
			if old, err := dagRowTxn(txn, d.DagID); err == nil {
				row.IsPaused = old.IsPaused
			}
			if err := txn.Insert(tableDags, row); err != nil {
				return fmt.Errorf("insert dag %s: %w", d.DagID, err)
			}
		}
		rows, err := allDagRowsTxn(txn)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if given[row.DagID] || row.Def == nil {
				continue
			}
			orphan := *row
			orphan.Def = nil
			if err := txn.Insert(tableDags, &orphan); err != nil {
				return fmt.Errorf("insert dag %s: %w", row.DagID, err)
			}
		}
		return s.ensurePoolsTxn(txn, set.Pools, false)
	})
}

// Reset puts the store back to what the definitions say: no runs, task
// instances or lineage, default_pool and the fixture pools only, paused
// flags as the files set them, DAGs deleted through the API back. Id
// sequences keep counting, so no run id is ever reused.
func (s *Store) Reset(set *DAGSet) error {
	return s.updateIDs(func(txn *memdb.Txn) error {
		for _, table := range []string{tableDags, tableDagRuns, tableTasks, tablePools, tableLineage, tableTaskLogs,
			tableTryHistory, tableVariables, tableConns} {
			if _, err := txn.DeleteAll(table, indexID); err != nil {
				return fmt.Errorf("reset %s: %w", table, err)
			}
		}
		if err := deleteXComsTxn(txn); err != nil {
			return err
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
		}
		return s.ensurePoolsTxn(txn, set.Pools, true)
	})
}

// ensurePoolsTxn creates default_pool and the fixture pools when missing;
// with overwrite, fixture values replace existing ones.
func (s *Store) ensurePoolsTxn(txn *memdb.Txn, pools []*Pool, overwrite bool) error {
	desc := "Default pool"
	all := append([]*Pool{{Name: defaultPoolName, Slots: defaultPoolSlots, Description: &desc}}, pools...)
	for _, p := range all {
		existing, err := poolTxn(txn, p.Name)
		if err == nil && !overwrite {
			continue
		}
		np := *p
		if existing != nil {
			np.ID = existing.ID
		} else if np.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
			return err
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("insert pool %s: %w", p.Name, err)
		}
	}
	return nil
}

// DagByID returns the DAG row, or errNotFound.
func (s *Store) DagByID(dagID string) (*DagRow, error) { return dagRowTxn(s.read(), dagID) }

func dagRowTxn(txn *memdb.Txn, dagID string) (*DagRow, error) {
	raw, err := txn.First(tableDags, indexID, dagID)
	if err != nil {
		return nil, fmt.Errorf("look up dag %s: %w", dagID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagRow), nil
}

// Dags lists every DAG row by dag_id.
func (s *Store) Dags() ([]*DagRow, error) { return allDagRowsTxn(s.read()) }

func allDagRowsTxn(txn *memdb.Txn) ([]*DagRow, error) {
	it, err := txn.Get(tableDags, indexID)
	if err != nil {
		return nil, fmt.Errorf("list dags: %w", err)
	}
	var rows []*DagRow
	for raw := it.Next(); raw != nil; raw = it.Next() {
		rows = append(rows, raw.(*DagRow))
	}
	return rows, nil
}

// SetPaused sets the paused flag of a DAG and, with withSubDAGs, of every
// sub-DAG below it.
func (s *Store) SetPaused(dagID string, paused, withSubDAGs bool) error {
	return s.update(func(txn *memdb.Txn) error {
		ids := []string{dagID}
		for i := 0; i < len(ids); i++ {
			row, err := dagRowTxn(txn, ids[i])
			if err != nil {
				return err
			}
			updated := *row
			updated.IsPaused = paused
			if err := txn.Insert(tableDags, &updated); err != nil {
				return fmt.Errorf("pause dag %s: %w", ids[i], err)
			}
			if !withSubDAGs {
				break
			}
			children, err := txn.Get(tableDags, indexRoot, ids[i])
			if err != nil {
				return fmt.Errorf("list sub-dags of %s: %w", ids[i], err)
			}
			for raw := children.Next(); raw != nil; raw = children.Next() {
				ids = append(ids, raw.(*DagRow).DagID)
			}
		}
		return nil
	})
}

// RunByDate returns the run of a DAG at an instant, or errNotFound.
func (s *Store) RunByDate(dagID string, date time.Time) (*DagRun, error) {
	return runByDateTxn(s.read(), dagID, date)
}

func runByDateTxn(txn *memdb.Txn, dagID string, date time.Time) (*DagRun, error) {
	raw, err := txn.First(tableDagRuns, indexDagDate, dagID, date)
	if err != nil {
		return nil, fmt.Errorf("look up run of %s at %s: %w", dagID, isoFormat(date), err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagRun), nil
}

// RunByRunID returns the run of a DAG with a run_id, or errNotFound.
func (s *Store) RunByRunID(dagID, runID string) (*DagRun, error) {
	return runByRunIDTxn(s.read(), dagID, runID)
}

func runByRunIDTxn(txn *memdb.Txn, dagID, runID string) (*DagRun, error) {
	raw, err := txn.First(tableDagRuns, indexID, dagID, runID)
	if err != nil {
		return nil, fmt.Errorf("look up run %s of %s: %w", runID, dagID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagRun), nil
}

// RunsOfDag lists a DAG's runs by execution date; state "" lists all.
func (s *Store) RunsOfDag(dagID string, state RunState) ([]*DagRun, error) {
	it, err := s.read().Get(tableDagRuns, indexDagDate+"_prefix", dagID, nil)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	runs := []*DagRun{}
	read := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		read++
		run := raw.(*DagRun)
		if state == "" || run.State == state {
			runs = append(runs, run)
		}
	}
	if s.rowsRead != nil {
		s.rowsRead(read)
	}
	return runs, nil
}

// RecentRuns lists a DAG's last n runs by execution date, oldest first,
// reading only those.
func (s *Store) RecentRuns(dagID string, n int) ([]*DagRun, error) {
	end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	it, err := s.read().ReverseLowerBound(tableDagRuns, indexDagDate, dagID, end)
	if err != nil {
		return nil, fmt.Errorf("list recent runs of %s: %w", dagID, err)
	}
	var runs []*DagRun
	for raw := it.Next(); raw != nil && len(runs) < n; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			break
		}
		runs = append(runs, run)
	}
	slices.Reverse(runs)
	return runs, nil
}

// RunsInState lists every run in a state, in id order.
func (s *Store) RunsInState(state RunState) ([]*DagRun, error) {
	index, args := indexState+"_prefix", []any{string(state), ""}
	if state.Finished() {
		index, args = indexID, nil // finished runs are not in the state index
	}
	it, err := s.read().Get(tableDagRuns, index, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s runs: %w", state, err)
	}
	var runs []*DagRun
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if run := raw.(*DagRun); run.State == state {
			runs = append(runs, run)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	return runs, nil
}

// LatestRuns returns, for every DAG that has runs, its run with the latest
// execution date, by dag_id.
func (s *Store) LatestRuns() ([]*DagRun, error) {
	txn := s.read()
	rows, err := allDagRowsTxn(txn)
	if err != nil {
		return nil, err
	}
	var latest []*DagRun
	for _, row := range rows {
		run, err := latestRunTxn(txn, row.DagID)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		latest = append(latest, run)
	}
	return latest, nil
}

func latestRunTxn(txn *memdb.Txn, dagID string) (*DagRun, error) {
	end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	it, err := txn.ReverseLowerBound(tableDagRuns, indexDagDate, dagID, end)
	if err != nil {
		return nil, fmt.Errorf("find latest run of %s: %w", dagID, err)
	}
	raw := it.Next()
	if raw == nil || raw.(*DagRun).DagID != dagID {
		return nil, errNotFound
	}
	return raw.(*DagRun), nil
}

// TaskInstance returns one task instance, or errNotFound.
func (s *Store) TaskInstance(dagID, runID, taskID string) (*TaskInstance, error) {
	return taskInstanceTxn(s.read(), dagID, runID, taskID)
}

func taskInstanceTxn(txn *memdb.Txn, dagID, runID, taskID string) (*TaskInstance, error) {
	row, err := runTasksTxn(txn, dagID, runID)
	if err != nil {
		return nil, err
	}
	if row != nil {
		if i, ok := row.find(taskID); ok {
			return row.TIs[i], nil
		}
	}
	return nil, errNotFound
}

// runTasksTxn returns the row of a run's task instances, or nil.
func runTasksTxn(txn *memdb.Txn, dagID, runID string) (*runTasks, error) {
	raw, err := txn.First(tableTasks, indexID, dagID, runID)
	if err != nil {
		return nil, fmt.Errorf("look up tasks of %s/%s: %w", dagID, runID, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*runTasks), nil
}

// TaskInstancesOfRun lists a run's task instances by task_id.
func (s *Store) TaskInstancesOfRun(dagID, runID string) ([]*TaskInstance, error) {
	return taskInstancesOfRunTxn(s.read(), dagID, runID)
}

// taskInstancesOfRunTxn lists a run's task instances by task_id, in a
// slice the caller may change.
func taskInstancesOfRunTxn(txn *memdb.Txn, dagID, runID string) ([]*TaskInstance, error) {
	row, err := runTasksTxn(txn, dagID, runID)
	if err != nil || row == nil {
		return nil, err
	}
	return slices.Clone(row.TIs), nil
}

// taskInstancesInStateTxn lists the task instances in an unfinished state,
// by (dag_id, run_id, task_id).
func taskInstancesInStateTxn(txn *memdb.Txn, state TaskState) ([]*TaskInstance, error) {
	it, err := txn.Get(tableTasks, indexState, string(state))
	if err != nil {
		return nil, fmt.Errorf("list %s tasks: %w", state, err)
	}
	var tis []*TaskInstance
	for raw := it.Next(); raw != nil; raw = it.Next() {
		for _, ti := range raw.(*runTasks).TIs {
			if ti.State == state {
				tis = append(tis, ti)
			}
		}
	}
	return tis, nil
}

// countTaskInstancesTxn counts the task instances of a DAG that match
// (all of them when match is nil).
func countTaskInstancesTxn(txn *memdb.Txn, dagID string, match func(*TaskInstance) bool) (int, error) {
	it, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
	if err != nil {
		return 0, fmt.Errorf("list tasks of %s: %w", dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		for _, ti := range raw.(*runTasks).TIs {
			if match == nil || match(ti) {
				n++
			}
		}
	}
	return n, nil
}

// putTaskInstancesTxn stores new or changed task instances, each a fresh
// copy (stored ones are never changed), into their runs' rows. Task
// instances of one run given one after another cost one row write.
func putTaskInstancesTxn(txn *memdb.Txn, tis ...*TaskInstance) error {
	for len(tis) > 0 {
		dagID, runID := tis[0].DagID, tis[0].RunID
		n := 1
		for n < len(tis) && tis[n].DagID == dagID && tis[n].RunID == runID {
			n++
		}
		group := tis[:n]
		tis = tis[n:]
		old, err := runTasksTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		row := &runTasks{DagID: dagID, RunID: runID}
		if old != nil {
			row.TIs = make([]*TaskInstance, len(old.TIs), len(old.TIs)+len(group))
			copy(row.TIs, old.TIs)
		}
		for _, ti := range group {
			if ti.TaskID == "" {
				return fmt.Errorf("store task of %s/%s: empty task_id", dagID, runID)
			}
			if i, found := row.find(ti.TaskID); found {
				row.TIs[i] = ti
			} else {
				row.TIs = slices.Insert(row.TIs, i, ti)
			}
		}
		if err := txn.Insert(tableTasks, row); err != nil {
			return fmt.Errorf("store tasks of %s/%s: %w", dagID, runID, err)
		}
		added := len(row.TIs)
		if old != nil {
			added -= len(old.TIs)
		}
		if added != 0 {
			c := runCountTxn(txn, dagID)
			c.TaskInstances += added
			if err := storeRunCountTxn(txn, &c); err != nil {
				return err
			}
		}
	}
	return nil
}

// runStart is how a new run begins, which differs between the Airflow
// releases airlite answers as: callers pass the form of theirs, so that
// the store knows no releases.
type runStart struct {
	state       RunState // the run's first state
	startDate   bool     // start_date is the creation time; otherwise queued_at is
	tiUpdatedAt bool     // task instances have updated_at, set at creation
	// A task gets no task instance in a run dated before its start_date
	// (or, with taskEndDate, after its end_date), unless the run_id
	// starts with backfillPrefix.
	taskEndDate    bool
	backfillPrefix string
}

// hasTask reports whether a run at date with runID gets a task instance
// of t.
func (rs runStart) hasTask(t *Task, runID string, date time.Time) bool {
	if rs.isBackfill(runID) {
		return true
	}
	if t.StartDate != nil && t.StartDate.After(date) {
		return false
	}
	return !rs.taskEndDate || t.EndDate == nil || !date.After(*t.EndDate)
}

// taskInstance is t's task instance, in no state, of the run runID of
// dagID at date, created at now.
func (rs runStart) taskInstance(t *Task, dagID, runID string, date, now time.Time, unixname string) TaskInstance {
	ti := TaskInstance{
		DagID: dagID, RunID: runID, TaskID: t.TaskID, ExecutionDate: date,
		MaxTries: t.Retries, Pool: t.Pool, PoolSlots: t.PoolSlots, Queue: t.Queue,
		PriorityWeight: t.TotalWeight, Operator: t.Operator, Unixname: unixname,
	}
	if rs.tiUpdatedAt {
		ti.UpdatedAt = &now
	}
	return ti
}

// isBackfill reports whether runID names a backfill run, whose tasks the
// scheduler never schedules.
func (rs runStart) isBackfill(runID string) bool {
	return rs.backfillPrefix != "" && strings.HasPrefix(runID, rs.backfillPrefix)
}

// newRun describes a run to create with insertRunTreeTxn.
type newRun struct {
	start    runStart
	dag      *DAG
	runID    string
	date     time.Time // UTC
	conf     json.RawMessage
	now      time.Time
	unixname string
	external bool // triggered through the API rather than by the schedule
	// note and interval are what the stable API's POST may give the run
	// (not its sub-DAGs' runs); nil: none.
	note     *string
	interval *dataInterval
	// event is the stable API's record of the trigger (api.post_dag_run),
	// stored in the same write as the run; nil: none.
	event *EventLog
}

// insertRunTreeTxn creates a run with its task instances (state None), then
// the same for every sub-DAG below it, as Airflow's trigger and scheduler
// do. The run and its sub-DAG runs begin as nr.start says. The store's run
// limit is applied to the run and to each sub-DAG run.
func (s *Store) insertRunTreeTxn(txn *memdb.Txn, nr newRun) (*DagRun, error) {
	if err := enforceRunLimitTxn(txn, nr.dag.DagID, s.runLimit); err != nil {
		return nil, err
	}
	if err := enforceConfLimitTxn(txn, len(nr.conf), s.limits.ConfBytes); err != nil {
		return nil, err
	}
	if nr.event != nil {
		if err := s.appendEventLogTxn(txn, nr.event); err != nil {
			return nil, err
		}
	}
	id, err := s.nextIDTxn(txn, counterRunID)
	if err != nil {
		return nil, err
	}
	now := nr.now
	run := &DagRun{
		ID: id, DagID: nr.dag.DagID, RunID: nr.runID, ExecutionDate: nr.date, State: nr.start.state,
		Conf: nr.conf, ExternalTrigger: nr.external, RunType: runTypeOf(nr.runID),
		UpdatedAt: &now, Note: nr.note,
	}
	if nr.interval != nil {
		start, end := nr.interval.start, nr.interval.end
		run.DataIntervalStart, run.DataIntervalEnd = &start, &end
	}
	if nr.start.startDate {
		run.StartDate = &now
	} else {
		run.QueuedAt = &now
	}
	if err := txn.Insert(tableDagRuns, run); err != nil {
		return nil, fmt.Errorf("insert run %s of %s: %w", nr.runID, nr.dag.DagID, err)
	}
	tiCount := 0
	if len(nr.dag.Tasks) > 0 {
		// One allocation for all of the run's task instances.
		tis := make([]TaskInstance, len(nr.dag.Tasks))
		row := &runTasks{DagID: nr.dag.DagID, RunID: nr.runID, TIs: make([]*TaskInstance, 0, len(tis))}
		for i, t := range nr.dag.Tasks {
			if !nr.start.hasTask(t, nr.runID, nr.date) {
				continue
			}
			tis[i] = nr.start.taskInstance(t, nr.dag.DagID, nr.runID, nr.date, now, nr.unixname)
			row.TIs = append(row.TIs, &tis[i])
		}
		slices.SortFunc(row.TIs, func(a, b *TaskInstance) int { return strings.Compare(a.TaskID, b.TaskID) })
		if err := txn.Insert(tableTasks, row); err != nil {
			return nil, fmt.Errorf("insert tasks of %s/%s: %w", nr.dag.DagID, nr.runID, err)
		}
		tiCount = len(row.TIs)
	}
	if err := countRunTxn(txn, run, 1, tiCount); err != nil {
		return nil, err
	}
	for _, childID := range nr.dag.SubDAGIDs() {
		child, err := dagRowTxn(txn, childID)
		if err != nil || child.Def == nil {
			continue // a sub-DAG deleted through the API has nothing to run
		}
		if _, err := runByRunIDTxn(txn, childID, nr.runID); err == nil {
			return nil, &subDagRunExists{childID: childID, runID: nr.runID}
		}
		if _, err := runByDateTxn(txn, childID, nr.date); err == nil {
			return nil, &subDagRunExists{childID: childID, date: nr.date}
		}
		childRun := nr
		childRun.dag = child.Def
		childRun.note, childRun.interval, childRun.event = nil, nil, nil
		if _, err := s.insertRunTreeTxn(txn, childRun); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// enforceConfLimitTxn refuses a run whose conf of n bytes would bring
// the confs of every run past max bytes (--max-conf-bytes-total). The sum
// is kept by the writes (totalConfBytes): one lookup.
func enforceConfLimitTxn(txn *memdb.Txn, n int, max int64) error {
	if max <= 0 || n == 0 {
		return nil
	}
	total := totalTxn(txn, totalConfBytes)
	if total+int64(n) <= max {
		return nil
	}
	return &limitError{limit: limitConfBytesTotal, have: total, adding: int64(n), max: max}
}

// Lineage lists the lineage records of a run by task_id.
func (s *Store) Lineage(dagID, runID string) ([]*LineageRecord, error) {
	it, err := s.read().Get(tableLineage, indexID+"_prefix", dagID, runID, "")
	if err != nil {
		return nil, fmt.Errorf("list lineage of %s/%s: %w", dagID, runID, err)
	}
	var recs []*LineageRecord
	for raw := it.Next(); raw != nil; raw = it.Next() {
		recs = append(recs, raw.(*LineageRecord))
	}
	return recs, nil
}

// TaskLogsOfRun returns the captured output of a run's task instances, by
// task_id.
func (s *Store) TaskLogsOfRun(dagID, runID string) (map[string]*TaskLog, error) {
	it, err := s.read().Get(tableTaskLogs, indexID+"_prefix", dagID, runID, "")
	if err != nil {
		return nil, fmt.Errorf("list task logs of %s/%s: %w", dagID, runID, err)
	}
	logs := map[string]*TaskLog{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		l := raw.(*TaskLog)
		logs[l.TaskID] = l
	}
	return logs, nil
}

// DeleteDag removes a DAG, its sub-DAGs ("<dag_id>.…") and every run, task
// instance and lineage record of them, and returns how many rows went, as
// Airflow counts them. refuse, when non-nil, is checked inside the same
// transaction and stops the deletion with its error.
func (s *Store) DeleteDag(dagID string, refuse func(v storeView, dagIDs []string) error) (int, error) {
	count := 0
	err := s.update(func(txn *memdb.Txn) error {
		count = 0
		ids, err := dagAndSubDagIDsTxn(txn, dagID)
		if err != nil {
			return err
		}
		if refuse != nil {
			if err := refuse(storeView{txn}, ids); err != nil {
				return err
			}
		}
		if len(ids) == 0 {
			return errNotFound
		}
		for _, id := range ids {
			n, err := txn.DeleteAll(tableDags, indexID, id)
			if err != nil {
				return fmt.Errorf("delete dag %s: %w", id, err)
			}
			count += n
			// Task instances count one each, not one per run's row.
			tis, err := countTaskInstancesTxn(txn, id, nil)
			if err != nil {
				return err
			}
			if _, err := txn.DeleteAll(tableTasks, indexID+"_prefix", id, ""); err != nil {
				return fmt.Errorf("delete task instances of %s: %w", id, err)
			}
			count += tis
			for _, del := range []struct{ table, index string }{
				{tableDagRuns, indexDagDate + "_prefix"},
				{tableLineage, indexID + "_prefix"},
			} {
				n, err := txn.DeleteAll(del.table, del.index, id, prefixEnd(del.table))
				if err != nil {
					return fmt.Errorf("delete %s of %s: %w", del.table, id, err)
				}
				count += n
			}
			// Captured output is not a database row in Airflow: not
			// counted. Earlier tries go with their task instances, as
			// Airflow's foreign key cascades: not counted either.
			for _, table := range []string{tableTaskLogs, tableTryHistory} {
				if _, err := txn.DeleteAll(table, indexID+"_prefix", id, ""); err != nil {
					return fmt.Errorf("delete %s of %s: %w", table, id, err)
				}
			}
			// XCom rows go with their task instances, as Airflow's
			// foreign key cascades: not counted.
			if err := deleteXComsTxn(txn, id, ""); err != nil {
				return err
			}
			if err := forgetRunCountTxn(txn, id); err != nil {
				return err
			}
		}
		return nil
	})
	return count, err
}

// prefixEnd is the last argument of a (dag_id, …) prefix query that ends
// the prefix exactly after dag_id.
func prefixEnd(table string) any {
	if table == tableDagRuns {
		return nil
	}
	return ""
}

// dagAndSubDagIDsTxn lists dagID (when it exists) and every DAG id that
// starts with "dagID.", as Airflow's delete_dag does.
func dagAndSubDagIDsTxn(txn *memdb.Txn, dagID string) ([]string, error) {
	var ids []string
	if _, err := dagRowTxn(txn, dagID); err == nil {
		ids = append(ids, dagID)
	} else if !errors.Is(err, errNotFound) {
		return nil, err
	}
	it, err := txn.Get(tableDags, indexID+"_prefix", dagID+".")
	if err != nil {
		return nil, fmt.Errorf("list sub-dags of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		ids = append(ids, raw.(*DagRow).DagID)
	}
	return ids, nil
}

// UpsertDAG adds or replaces one DAG definition. A replaced DAG keeps its
// paused flag and its runs. A new DAG loaded at runtime (FilePath
// loadedDAGFileLoc) is refused at the store's LoadedDAGs limit.
func (s *Store) UpsertDAG(d *DAG) (replaced bool, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
		old, err := dagRowTxn(txn, d.DagID)
		switch {
		case err == nil:
			row.IsPaused, replaced = old.IsPaused, true
		case !errors.Is(err, errNotFound):
			return err
		case d.FilePath == loadedDAGFileLoc:
			if err := enforceLoadedDAGLimitTxn(txn, s.limits.LoadedDAGs); err != nil {
				return err
			}
		}
		if err := txn.Insert(tableDags, row); err != nil {
			return fmt.Errorf("insert dag %s: %w", d.DagID, err)
		}
		return nil
	})
	return replaced, err
}

// enforceLoadedDAGLimitTxn refuses one more DAG loaded at runtime at max
// such DAGs (--max-dags). The DAG table holds the DAG folder's DAGs and at
// most max more, so it counts them.
func enforceLoadedDAGLimitTxn(txn *memdb.Txn, max int) error {
	if max <= 0 {
		return nil
	}
	rows, err := allDagRowsTxn(txn)
	if err != nil {
		return err
	}
	n := 0
	for _, row := range rows {
		if row.FileLoc == loadedDAGFileLoc {
			n++
		}
	}
	if n < max {
		return nil
	}
	return &limitError{limit: limitDags, have: int64(n)}
}

// DeleteRuns removes the runs, task instances, lineage, task logs and earlier tries of
// one DAG, or of every DAG when dagID is "". DAGs and pools stay.
func (s *Store) DeleteRuns(dagID string) error {
	return s.update(func(txn *memdb.Txn) error {
		if dagID == "" {
			if err := clearRunCountsTxn(txn); err != nil {
				return err
			}
		} else if err := forgetRunCountTxn(txn, dagID); err != nil {
			return err
		}
		xcomsOf := []any{dagID, ""}
		if dagID == "" {
			xcomsOf = nil
		}
		if err := deleteXComsTxn(txn, xcomsOf...); err != nil {
			return err
		}
		for _, table := range append([]string{tableDagRuns, tableTasks}, taskInstanceTables...) {
			var err error
			switch {
			case dagID == "":
				_, err = txn.DeleteAll(table, indexID)
			case table == tableDagRuns:
				_, err = txn.DeleteAll(table, indexDagDate+"_prefix", dagID, nil)
			default:
				_, err = txn.DeleteAll(table, indexID+"_prefix", dagID, "")
			}
			if err != nil {
				return fmt.Errorf("delete %s: %w", table, err)
			}
		}
		return nil
	})
}

// ResetPools puts the pools back to default_pool and the fixture pools.
func (s *Store) ResetPools(fixture []*Pool) error {
	return s.updateIDs(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tablePools, indexID); err != nil {
			return fmt.Errorf("delete pools: %w", err)
		}
		return s.ensurePoolsTxn(txn, fixture, true)
	})
}

// ResetPaused puts every DAG's paused flag back to what its definition
// says.
func (s *Store) ResetPaused() error {
	return s.update(func(txn *memdb.Txn) error {
		rows, err := allDagRowsTxn(txn)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if row.Def == nil || row.IsPaused == row.Def.IsPausedUponCreation {
				continue
			}
			updated := *row
			updated.IsPaused = row.Def.IsPausedUponCreation
			if err := txn.Insert(tableDags, &updated); err != nil {
				return fmt.Errorf("reset paused flag of %s: %w", row.DagID, err)
			}
		}
		return nil
	})
}

// Pools lists every pool by name.
func (s *Store) Pools() ([]*Pool, error) {
	it, err := s.read().Get(tablePools, indexID)
	if err != nil {
		return nil, fmt.Errorf("list pools: %w", err)
	}
	pools := []*Pool{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		pools = append(pools, raw.(*Pool))
	}
	return pools, nil
}

// PoolPage lists the pools from the offset-th by name, at most limit of
// them, and counts them all.
func (s *Store) PoolPage(offset, limit int) (page []*Pool, total int, err error) {
	it, err := s.read().Get(tablePools, indexID)
	if err != nil {
		return nil, 0, fmt.Errorf("list pools: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if total >= offset && len(page) < limit {
			page = append(page, raw.(*Pool))
		}
		total++
	}
	return page, total, nil
}

// PoolByName returns a pool, or errNotFound.
func (s *Store) PoolByName(name string) (*Pool, error) { return poolTxn(s.read(), name) }

func poolTxn(txn *memdb.Txn, name string) (*Pool, error) {
	raw, err := txn.First(tablePools, indexID, name)
	if err != nil {
		return nil, fmt.Errorf("look up pool %s: %w", name, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Pool), nil
}

// UpsertPool creates a pool or replaces an existing one's slots and
// description (its id and include_deferred stay), and returns the result.
func (s *Store) UpsertPool(name string, slots int64, description *string) (*Pool, error) {
	var out *Pool
	err := s.updateIDs(func(txn *memdb.Txn) error {
		p := &Pool{Name: name, Slots: slots, Description: description}
		existing, err := poolTxn(txn, name)
		switch {
		case err == nil:
			p.ID, p.IncludeDeferred = existing.ID, existing.IncludeDeferred
		case errors.Is(err, errNotFound):
			if err := enforcePoolLimitTxn(txn, s.limits.Pools); err != nil {
				return err
			}
			if p.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
				return err
			}
		default:
			return err
		}
		if err := txn.Insert(tablePools, p); err != nil {
			return fmt.Errorf("store pool %s: %w", name, err)
		}
		out = p
		return nil
	})
	return out, err
}

// CreatePool adds a pool that must not exist yet (the stable API's POST
// /pools): a taken name is errConflict, --max-pools applies.
func (s *Store) CreatePool(p Pool) (*Pool, error) {
	var out *Pool
	err := s.updateIDs(func(txn *memdb.Txn) error {
		if _, err := poolTxn(txn, p.Name); err == nil {
			return &existsError{what: "pool", id: p.Name}
		} else if !errors.Is(err, errNotFound) {
			return err
		}
		if err := enforcePoolLimitTxn(txn, s.limits.Pools); err != nil {
			return err
		}
		np := p
		var err error
		if np.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
			return err
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("store pool %s: %w", np.Name, err)
		}
		out = &np
		return nil
	})
	return out, err
}

// UpdatePool changes a pool by change, which gets a copy; it may rename
// the pool (its id stays; a taken name is errConflict). Task instances
// keep the pool name they were created with, as Airflow's rows do.
func (s *Store) UpdatePool(name string, change func(Pool) Pool) (*Pool, error) {
	var out *Pool
	err := s.update(func(txn *memdb.Txn) error {
		old, err := poolTxn(txn, name)
		if err != nil {
			return err
		}
		np := change(*old)
		np.ID = old.ID
		if np.Name != old.Name {
			if _, err := poolTxn(txn, np.Name); err == nil {
				return &existsError{what: "pool", id: np.Name}
			} else if !errors.Is(err, errNotFound) {
				return err
			}
			if err := txn.Delete(tablePools, old); err != nil {
				return fmt.Errorf("rename pool %s: %w", name, err)
			}
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("store pool %s: %w", np.Name, err)
		}
		out = &np
		return nil
	})
	return out, err
}

// PoolSlots is what task instances of one pool hold, by state, in
// pool_slots, as Airflow's Pool counts them.
type PoolSlots struct {
	Running, Queued, Scheduled int64
}

// PoolSlotsByName counts the slots of scheduled, queued and running task
// instances per pool name, from one point in time.
func (s *Store) PoolSlotsByName() (map[string]PoolSlots, error) {
	txn := s.read()
	out := map[string]PoolSlots{}
	for _, state := range []TaskState{TaskScheduled, TaskQueued, TaskRunning} {
		tis, err := taskInstancesInStateTxn(txn, state)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			u := out[ti.Pool]
			switch state {
			case TaskScheduled:
				u.Scheduled += int64(ti.PoolSlots)
			case TaskQueued:
				u.Queued += int64(ti.PoolSlots)
			default:
				u.Running += int64(ti.PoolSlots)
			}
			out[ti.Pool] = u
		}
	}
	return out, nil
}

// enforcePoolLimitTxn refuses one more pool at max pools (--max-pools).
// Pools are few (the limit keeps them so), so it counts them.
func enforcePoolLimitTxn(txn *memdb.Txn, max int) error {
	if max <= 0 {
		return nil
	}
	it, err := txn.Get(tablePools, indexID)
	if err != nil {
		return fmt.Errorf("count pools: %w", err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	if n < max {
		return nil
	}
	return &limitError{limit: limitPools, have: int64(n)}
}

// DeletePool removes a pool and returns it as it was, or errNotFound.
func (s *Store) DeletePool(name string) (*Pool, error) {
	var out *Pool
	err := s.update(func(txn *memdb.Txn) error {
		p, err := poolTxn(txn, name)
		if err != nil {
			return err
		}
		if err := txn.Delete(tablePools, p); err != nil {
			return fmt.Errorf("delete pool %s: %w", name, err)
		}
		out = p
		return nil
	})
	return out, err
}

// View hands fn a read-only view of the store at one point in time, for
// decisions that read several tables (the stable API's dependencies).
func (s *Store) View(fn func(v storeView) error) error { return fn(storeView{s.read()}) }

// storeView is a read-only look at the store from inside one of its
// writes. Intent methods hand it to the caller's decision function, which
// reads what it needs and returns what should change; only the store
// writes, and the caller never holds a transaction.
type storeView struct{ txn *memdb.Txn }

func (v storeView) Dag(dagID string) (*DagRow, error) { return dagRowTxn(v.txn, dagID) }

func (v storeView) Run(dagID, runID string) (*DagRun, error) {
	return runByRunIDTxn(v.txn, dagID, runID)
}

func (v storeView) RunAt(dagID string, date time.Time) (*DagRun, error) {
	return runByDateTxn(v.txn, dagID, date)
}

func (v storeView) TaskInstance(dagID, runID, taskID string) (*TaskInstance, error) {
	return taskInstanceTxn(v.txn, dagID, runID, taskID)
}

func (v storeView) Pool(name string) (*Pool, error) { return poolTxn(v.txn, name) }

// TaskInstancesOfRun lists a run's task instances by task_id.
func (v storeView) TaskInstancesOfRun(dagID, runID string) ([]*TaskInstance, error) {
	return taskInstancesOfRunTxn(v.txn, dagID, runID)
}

// ActiveUsage counts the slots that queued and running task instances hold.
func (v storeView) ActiveUsage() (*slotUsage, error) { return activeUsageTxn(v.txn) }

// CountRuns counts a DAG's runs in an unfinished state.
func (v storeView) CountRuns(dagID string, state RunState) (int, error) {
	it, err := v.txn.Get(tableDagRuns, indexState, string(state), dagID)
	if err != nil {
		return 0, fmt.Errorf("count %s runs of %s: %w", state, dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	return n, nil
}

// CountScheduledRuns counts a DAG's runs in an unfinished state that the
// schedule created (not triggered).
func (v storeView) CountScheduledRuns(dagID string, state RunState) (int, error) {
	it, err := v.txn.Get(tableDagRuns, indexState, string(state), dagID)
	if err != nil {
		return 0, fmt.Errorf("count %s runs of %s: %w", state, dagID, err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if !raw.(*DagRun).ExternalTrigger {
			n++
		}
	}
	return n, nil
}

// LastScheduledDate is the logical date of a DAG's latest scheduled run,
// or nil. Manual runs in between are passed over.
func (v storeView) LastScheduledDate(dagID string) (*time.Time, error) {
	end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	it, err := v.txn.ReverseLowerBound(tableDagRuns, indexDagDate, dagID, end)
	if err != nil {
		return nil, fmt.Errorf("find last scheduled run of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return nil, nil
		}
		if run.RunType == "scheduled" {
			d := run.ExecutionDate
			return &d, nil
		}
	}
	return nil, nil
}

// PreviousRun is the DAG's latest run with a logical date before the
// given one that match accepts (nil: any), or nil.
func (v storeView) PreviousRun(dagID string, before time.Time, match func(*DagRun) bool) (*DagRun, error) {
	it, err := v.txn.ReverseLowerBound(tableDagRuns, indexDagDate, dagID, before)
	if err != nil {
		return nil, fmt.Errorf("find run of %s before %s: %w", dagID, isoFormat(before), err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return nil, nil
		}
		if run.ExecutionDate.Before(before) && (match == nil || match(run)) {
			return run, nil
		}
	}
	return nil, nil
}

// HasEarlierTaskInstance reports whether any run of the DAG before the
// given logical date has a task instance of the task.
func (v storeView) HasEarlierTaskInstance(dagID, taskID string, before time.Time) (bool, error) {
	it, err := v.txn.ReverseLowerBound(tableDagRuns, indexDagDate, dagID, before)
	if err != nil {
		return false, fmt.Errorf("find runs of %s before %s: %w", dagID, isoFormat(before), err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return false, nil
		}
		if !run.ExecutionDate.Before(before) {
			continue
		}
		_, err := taskInstanceTxn(v.txn, dagID, run.RunID, taskID)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, errNotFound) {
			return false, err
		}
	}
	return false, nil
}

// The store's limits on what it keeps (the command line sets them).
const (
	limitRunsPerDag     = "runs per DAG"
	limitConfBytesTotal = "conf bytes in total"
	limitDags           = "DAGs loaded at runtime"
	limitPools          = "pools"
	limitVariables      = "variables"
	limitVariableBytes  = "bytes of a variable"
	limitConnections    = "connections"
	limitConnBytes      = "bytes of a connection"
	limitXComs          = "XCom entries"
	limitXComBytes      = "bytes of an XCom value"
)

// limitError is a write refused at one of the store's limits, with the
// figures; the HTTP layer phrases it (limitText). It matches
// errBadRequest.
type limitError struct {
	limit    string
	dagID    string // runs per DAG
	have     int64  // what is kept now
	finished int64  // runs per DAG with drop-oldest: how many have finished (-1: not asked)
	adding   int64  // conf bytes: the new conf's size; a value's size
	max      int64  // conf bytes, a value's size: the limit
	key      string // the variable, connection or XCom key refused
}

func (e *limitError) Error() string        { return "limit of " + e.limit + " reached" }
func (e *limitError) Is(target error) bool { return target == errBadRequest }

// subDagRunExists is a run that cannot be created because a sub-DAG below
// it already has a run with its run_id or date (Airflow crashes on its
// unique keys). It matches errCrash.
type subDagRunExists struct {
	childID string
	runID   string    // set when the run_id is taken
	date    time.Time // else the date
}

func (e *subDagRunExists) Error() string        { return "sub-DAG " + e.childID + " already has the run" }
func (e *subDagRunExists) Is(target error) bool { return target == errCrash }

// missingError says which row a write did not find. It matches
// errNotFound; the HTTP layer phrases it.
type missingError struct {
	what                 string // "dag", "run" or "task"
	dagID, runID, taskID string
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s %s/%s/%s not found", e.what, e.dagID, e.runID, e.taskID)
}

func (e *missingError) Is(target error) bool { return target == errNotFound }

// CountTaskInstances counts the task instances of a DAG that match (all
// of them when match is nil).
func (v storeView) CountTaskInstances(dagID string, match func(*TaskInstance) bool) (int, error) {
	return countTaskInstancesTxn(v.txn, dagID, match)
}

// TriggerRun creates the run that plan describes, as CreateRun does, in a
// write batched with concurrent triggers (memstore_writebatch.go): plan may run
// more than once and must leave no effect but its answer.
func (s *Store) TriggerRun(plan func(v storeView) (*newRun, error)) (*DagRun, error) {
	var created *DagRun
	err := s.leased(func() error {
		return s.updateBatched(func(txn *memdb.Txn) error {
			created = nil
			nr, err := plan(storeView{txn})
			if err != nil {
				return err
			}
			created, err = s.insertRunTreeTxn(txn, *nr)
			return err
		})
	})
	return created, err
}

// CreateRun creates the run that plan describes, with its task instances
// and its sub-DAGs' runs; plan returns nil to create nothing. It reports
// whether a run was created. A run whose id the id lease does not cover
// yet waits for the lease (leased): plan may run more than once.
func (s *Store) CreateRun(plan func(v storeView) (*newRun, error)) (bool, error) {
	created := false
	err := s.updateIDs(func(txn *memdb.Txn) error {
		nr, err := plan(storeView{txn})
		if err != nil || nr == nil {
			return err
		}
		if _, err := s.insertRunTreeTxn(txn, *nr); err != nil {
			return err
		}
		created = true
		return nil
	})
	return created, err
}

// StartRun moves a queued run to running at now when admit, asked inside
// the same write, agrees. A run that is no longer queued stays as it is.
func (s *Store) StartRun(dagID, runID string, now time.Time, admit func(v storeView, run *DagRun) (bool, error)) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if errors.Is(err, errNotFound) || (err == nil && run.State != RunQueued) {
			return nil // changed since it was listed
		}
		if err != nil {
			return err
		}
		if ok, err := admit(storeView{txn}, run); err != nil || !ok {
			return err
		}
		started := *run
		started.State = RunRunning
		started.StartDate, started.UpdatedAt = &now, &now
		return putRunTxn(txn, run, &started)
	})
}

// runAdvance is what a scheduler pass changes in one running run.
type runAdvance struct {
	Tasks []*TaskInstance // new copies of changed task instances
	End   RunState        // success or failed ends the run; "" leaves it running
	At    time.Time       // when the run ended
}

// AdvanceRun lets decide change a running run's task instances, and end
// the run, in one write. tis is the run's task instances by task_id, in a
// slice decide may keep; a run that is no longer running is left alone.
func (s *Store) AdvanceRun(dagID, runID string, decide func(v storeView, run *DagRun, tis []*TaskInstance) (runAdvance, error)) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if errors.Is(err, errNotFound) || (err == nil && run.State != RunRunning) {
			return nil
		}
		if err != nil {
			return err
		}
		tis, err := taskInstancesOfRunTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		adv, err := decide(storeView{txn}, run, tis)
		if err != nil {
			return err
		}
		if err := putTaskInstancesTxn(txn, adv.Tasks...); err != nil {
			return err
		}
		if adv.End != "" {
			return finishRunTxn(txn, run, adv.End, adv.At)
		}
		return nil
	})
}

func finishRunTxn(txn *memdb.Txn, run *DagRun, state RunState, now time.Time) error {
	done := *run
	done.State, done.EndDate, done.UpdatedAt = state, &now, &now
	return putRunTxn(txn, run, &done)
}

// LaunchTry stores what start returns for a scheduled task instance of a
// running run: the task instance as its try begins (running, or already
// finished), or nil to leave it scheduled. A task instance that is gone
// or no longer scheduled is left alone, so that no try starts twice.
func (s *Store) LaunchTry(key tiKey, start func(v storeView, run *DagRun, ti *TaskInstance) (*TaskInstance, error)) error {
	return s.update(func(txn *memdb.Txn) error {
		ti, err := taskInstanceTxn(txn, key.dagID, key.runID, key.taskID)
		if errors.Is(err, errNotFound) || (err == nil && ti.State != TaskScheduled) {
			return nil // deleted or changed since it was listed
		}
		if err != nil {
			return err
		}
		run, err := runByRunIDTxn(txn, key.dagID, key.runID)
		if errors.Is(err, errNotFound) || (err == nil && run.State != RunRunning) {
			return nil
		}
		if err != nil {
			return err
		}
		next, err := start(storeView{txn}, run, ti)
		if err != nil || next == nil {
			return err
		}
		// A try that starts clears what earlier tries pushed, as
		// Airflow's TaskInstance.clear_xcom_data does before it runs.
		if next.State == TaskRunning {
			if err := deleteXComsTxn(txn, key.dagID, key.runID, key.taskID, ""); err != nil {
				return err
			}
		}
		if err := putTaskInstancesTxn(txn, next); err != nil {
			return err
		}
		if next.State != TaskRunning || next.StartDate == nil {
			return nil // an EmptyOperator: Airflow's scheduler ends it without running it, unlogged
		}
		return s.appendEventLogTxn(txn, taskEventTxn(txn, string(TaskRunning), next, *next.StartDate))
	})
}

// tryResult is what a finished try leaves: its task instance, its output,
// the lineage it declared (nil for none) and the XCom values it pushed.
type tryResult struct {
	TI      *TaskInstance
	Log     *TryLog // nil: the try leaves no output (it is not counted)
	Lineage *LineageRecord
	XComs   []xcomPush
}

// FinishTry records a try's result as record builds it from the stored
// task instance. Nothing is recorded when the try no longer owns its task
// instance: the run is gone or was re-created under the same run_id (its
// never-reused id differs from runRowID), or the task instance is not
// running this try any more (forced, timed out, reset).
func (s *Store) FinishTry(key tiKey, runRowID int64, try int, record func(stored *TaskInstance) (tryResult, error)) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, key.dagID, key.runID)
		switch {
		case errors.Is(err, errNotFound):
			return nil
		case err != nil:
			return err
		case run.ID != runRowID:
			return nil
		}
		stored, err := taskInstanceTxn(txn, key.dagID, key.runID, key.taskID)
		switch {
		case errors.Is(err, errNotFound):
			return nil
		case err != nil:
			return err
		case stored.State != TaskRunning || stored.TryNumber != try:
			return nil
		}
		res, err := record(stored)
		if err != nil {
			return err
		}
		if err := putTaskInstancesTxn(txn, res.TI); err != nil {
			return err
		}
		// A try followed by a retry joins the history, as Airflow's
		// handle_failure records it before up_for_retry.
		// endTry dates every try it ends, on the scheduler's clock.
		if res.TI.State == TaskUpForRetry && res.TI.EndDate != nil {
			if err := recordTryTxn(txn, res.TI, *res.TI.EndDate); err != nil {
				return err
			}
		}
		if event := tryEndEvent(res.TI.State); event != "" {
			at := time.Now().UTC()
			if res.TI.EndDate != nil {
				at = *res.TI.EndDate
			}
			if err := s.appendEventLogTxn(txn, taskEventTxn(txn, event, res.TI, at)); err != nil {
				return err
			}
		}
		if res.Log != nil {
			if err := appendTaskLogTxn(txn, key, *res.Log); err != nil {
				return err
			}
		}
		if res.Lineage != nil {
			if err := txn.Insert(tableLineage, res.Lineage); err != nil {
				return fmt.Errorf("store lineage of %s: %w", key, err)
			}
		}
		at := time.Now().UTC()
		if res.TI.EndDate != nil {
			at = *res.TI.EndDate
		}
		for _, x := range res.XComs {
			e := &XComEntry{DagID: key.dagID, RunID: key.runID, TaskID: key.taskID, RunRowID: run.ID,
				MapIndex: -1, Key: x.Key, Value: x.Value, Timestamp: at}
			if err := s.putXComTxn(txn, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// RecordTaskProcess records the bash process of a running try: its pid,
// which the API shows as Airflow does, and its identity. Nothing is
// recorded when the try no longer owns its task instance (see FinishTry).
func (s *Store) RecordTaskProcess(key tiKey, runRowID int64, try, pid int, identity string) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, key.dagID, key.runID)
		if err != nil || run.ID != runRowID {
			return nil
		}
		stored, err := taskInstanceTxn(txn, key.dagID, key.runID, key.taskID)
		if err != nil || stored.State != TaskRunning || stored.TryNumber != try {
			return nil
		}
		ti := *stored
		ti.PID, ti.ProcIdentity = &pid, identity
		return putTaskInstancesTxn(txn, &ti)
	})
}

// taskProcessRecord is a try's process group as a crashed instance left it.
type taskProcessRecord struct {
	Key      tiKey
	PID      int
	Identity string
}

// TakeTaskProcesses lists the tries whose process was recorded and never
// seen to end (a crash), and forgets them: at start, before anything runs,
// so that the caller ends those process groups once.
func (s *Store) TakeTaskProcesses() ([]taskProcessRecord, error) {
	var recs []taskProcessRecord
	err := s.update(func(txn *memdb.Txn) error {
		recs = nil
		it, err := txn.Get(tableTasks, indexID)
		if err != nil {
			return fmt.Errorf("list task instances: %w", err)
		}
		var changed []*TaskInstance
		for raw := it.Next(); raw != nil; raw = it.Next() {
			for _, ti := range raw.(*runTasks).TIs {
				if ti.ProcIdentity == "" || ti.PID == nil {
					continue
				}
				recs = append(recs, taskProcessRecord{Key: tiKey{ti.DagID, ti.RunID, ti.TaskID}, PID: *ti.PID, Identity: ti.ProcIdentity})
				cleared := *ti
				cleared.ProcIdentity = ""
				changed = append(changed, &cleared)
			}
		}
		return putTaskInstancesTxn(txn, changed...)
	})
	return recs, err
}

// ResetOrphans changes, in one write, every task instance in one of
// states as decide says: the task instance to store in its place (nil
// leaves it as it is) and the line its try leaves in the task log (nil for
// none). A running try that another try will follow (the task instance
// goes back to no state or up for retry) joins the history, ended at
// now. It returns how many changed.
func (s *Store) ResetOrphans(states []TaskState, now time.Time, decide func(v storeView, ti *TaskInstance) (*TaskInstance, *TryLog)) (int, error) {
	changed := 0
	err := s.update(func(txn *memdb.Txn) error {
		changed = 0
		var orphans []*TaskInstance
		for _, state := range states {
			tis, err := taskInstancesInStateTxn(txn, state)
			if err != nil {
				return err
			}
			orphans = append(orphans, tis...)
		}
		for _, old := range orphans {
			key := tiKey{old.DagID, old.RunID, old.TaskID}
			ti, try := decide(storeView{txn}, old)
			if ti == nil {
				continue
			}
			if err := putTaskInstancesTxn(txn, ti); err != nil {
				return fmt.Errorf("reset orphaned task %s: %w", key, err)
			}
			if old.State == TaskRunning && (ti.State == TaskNone || ti.State == TaskUpForRetry) {
				if err := recordTryTxn(txn, old, now); err != nil {
					return fmt.Errorf("record orphaned try %s: %w", key, err)
				}
			}
			if try != nil {
				if err := appendTaskLogTxn(txn, key, *try); err != nil {
					return fmt.Errorf("log orphaned task %s: %w", key, err)
				}
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// recordTryTxn keeps ti's try in its task instance's history, as
// Airflow's TaskInstanceHistory.record_ti does when a try is retried or
// cleared: each try number once; a try that had not finished is kept as
// failed, ended at now. A task instance that has begun no try (try 0)
// leaves nothing: there is no earlier try to keep (Airflow keeps a
// failed try 0, docs/behaviour.md §5). The history keeps the last
// maxLogTries tries and counts the ones it drops.
func recordTryTxn(txn *memdb.Txn, ti *TaskInstance, now time.Time) error {
	if ti.TryNumber < 1 {
		return nil
	}
	hist := &TaskInstanceHistory{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID}
	raw, err := txn.First(tableTryHistory, indexID, ti.DagID, ti.RunID, ti.TaskID)
	if err != nil {
		return fmt.Errorf("read tries of %s/%s/%s: %w", ti.DagID, ti.RunID, ti.TaskID, err)
	}
	var tries []*TaskInstance
	if raw != nil {
		old := raw.(*TaskInstanceHistory)
		tries, hist.Dropped = old.Tries, old.Dropped
		if n := len(tries); n > 0 && tries[n-1].TryNumber >= ti.TryNumber {
			return nil // this try is kept already
		}
	}
	try := *ti
	try.ProcIdentity, try.NextRetryAt, try.Note = "", nil, nil
	if !try.State.Finished() {
		try.State, try.EndDate, try.Duration = TaskFailed, &now, nil
		if try.StartDate != nil {
			d := now.Sub(*try.StartDate).Seconds()
			try.Duration = &d
		}
	}
	if drop := len(tries) + 1 - maxLogTries; drop > 0 {
		tries, hist.Dropped = tries[drop:], hist.Dropped+drop
	}
	hist.Tries = append(append(make([]*TaskInstance, 0, len(tries)+1), tries...), &try)
	if err := txn.Insert(tableTryHistory, hist); err != nil {
		return fmt.Errorf("record try %d of %s/%s/%s: %w", try.TryNumber, ti.DagID, ti.RunID, ti.TaskID, err)
	}
	return nil
}

// EarlierTries returns a task instance's history: its earlier tries in
// try order (none when it has none, or does not exist), and how many
// earlier tries were dropped.
func (s *Store) EarlierTries(dagID, runID, taskID string) ([]*TaskInstance, int, error) {
	raw, err := s.read().First(tableTryHistory, indexID, dagID, runID, taskID)
	if err != nil {
		return nil, 0, fmt.Errorf("read tries of %s/%s/%s: %w", dagID, runID, taskID, err)
	}
	if raw == nil {
		return nil, 0, nil
	}
	h := raw.(*TaskInstanceHistory)
	return h.Tries, h.Dropped, nil
}

// appendTaskLogTxn adds a try's output to its task instance's log, which
// keeps the last maxLogTries tries and counts the ones it drops.
func appendTaskLogTxn(txn *memdb.Txn, key tiKey, try TryLog) error {
	log := &TaskLog{DagID: key.dagID, RunID: key.runID, TaskID: key.taskID}
	raw, err := txn.First(tableTaskLogs, indexID, key.dagID, key.runID, key.taskID)
	if err != nil {
		return err
	}
	var tries []TryLog
	if raw != nil {
		old := raw.(*TaskLog)
		tries, log.Dropped = old.Tries, old.Dropped
	}
	if drop := len(tries) + 1 - maxLogTries; drop > 0 {
		tries, log.Dropped = tries[drop:], log.Dropped+drop
	}
	log.Tries = append(append(make([]TryLog, 0, len(tries)+1), tries...), try)
	return txn.Insert(tableTaskLogs, log)
}

// runStateDates is how a change of state moves a run's dates, which
// differs between the releases' DagRun.set_state: callers pass theirs.
type runStateDates struct {
	// A finished run marked the other finished state keeps its end_date
	// (2.10.3 airflow/models/dagrun.py:335-337); otherwise any change to
	// a finished state ends it now (1.10.15 airflow/models/dagrun.py:82-85).
	endOnlyFromUnfinished bool
	// A finished run set running starts again now (2.10.3 dagrun.py:329-334).
	restartFinished bool
	// The task instances a finished state marks go through
	// TaskInstance.set_state: started now if they had not started, ended
	// now if not ended, their duration the span between (2.10.3
	// models/taskinstance.py:2425-2428). Otherwise they end now.
	tiSetState bool
}

// ForceRunState sets a run's state as Airflow's set_dag_run_state_to_* do:
// success marks every task instance success; failed fails running task
// instances and skips those not yet finished; running and queued change
// the run alone. The run's dates move as dates says. It returns the task
// instances that were running and no longer are, whose tries the caller
// stops.
func (s *Store) ForceRunState(dagID, runID string, state RunState, now time.Time, dates runStateDates) (stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		stopped = nil
		run, err := runByRunIDTxn(txn, dagID, runID)
		if errors.Is(err, errNotFound) {
			return &missingError{what: "run", dagID: dagID, runID: runID}
		}
		if err != nil {
			return err
		}
		tis, err := taskInstancesOfRunTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		var changed []*TaskInstance
		for _, ti := range tis {
			next := ti.State
			switch {
			case state == RunSuccess:
				next = TaskSuccess
			case state == RunFailed && ti.State == TaskRunning:
				next = TaskFailed
			case state == RunFailed && !ti.State.Finished():
				next = TaskSkipped
			}
			if next == ti.State {
				continue
			}
			if ti.State == TaskRunning {
				stopped = append(stopped, tiKey{ti.DagID, ti.RunID, ti.TaskID})
			}
			forced := *ti
			forced.State, forced.EndDate, forced.UpdatedAt = next, &now, &now
			if dates.tiSetState {
				if forced.StartDate == nil {
					forced.StartDate = &now
				}
				if ti.EndDate != nil {
					forced.EndDate = ti.EndDate
				}
				d := forced.EndDate.Sub(*forced.StartDate).Seconds()
				forced.Duration = &d
			}
			changed = append(changed, &forced)
		}
		if err := putTaskInstancesTxn(txn, changed...); err != nil {
			return err
		}
		forced := *run
		forced.State, forced.UpdatedAt = state, &now
		// The dates move only on a change of state, as DagRun.set_state
		// moves them.
		switch {
		case state == RunQueued:
			forced.StartDate, forced.EndDate, forced.QueuedAt = nil, nil, &now
		case state.Finished():
			if run.State != state && !(dates.endOnlyFromUnfinished && run.State.Finished()) {
				forced.EndDate = &now
			}
		default:
			forced.EndDate = nil
			if forced.StartDate == nil || (dates.restartFinished && run.State.Finished()) {
				forced.StartDate = &now
			}
		}
		return putRunTxn(txn, run, &forced)
	})
	return stopped, err
}

// ForceTaskStates marks task instances of a run with a state, as Airflow's
// set_state does; pick chooses the task_ids from the DAG's definition. A
// finished run goes back to running so that the scheduler decides its
// outcome again. It returns the task_ids marked and the task instances
// that were running, whose tries the caller stops.
func (s *Store) ForceTaskStates(dagID, runID string, state TaskState, now time.Time,
	pick func(dag *DAG) ([]string, error)) (marked []string, stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		marked, stopped = nil, nil
		row, err := dagRowTxn(txn, dagID)
		if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
			return &missingError{what: "dag", dagID: dagID}
		}
		if err != nil {
			return err
		}
		ids, err := pick(row.Def)
		if err != nil {
			return err
		}
		marked, stopped, err = forceTaskStatesTxn(txn, dagID, runID, ids, state, now, false)
		return err
	})
	return marked, stopped, err
}

// ForceTaskStatesInRuns marks the same tasks in several runs of a DAG in
// one write, as ForceTaskStates marks them in one run (Airflow's set_state
// with future or past), leaving those already in the state as they are
// (set_state selects only the others). It returns the task instances
// marked, run by run, and those that were running.
func (s *Store) ForceTaskStatesInRuns(dagID string, runIDs, taskIDs []string, state TaskState, now time.Time) (marked, stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		marked, stopped = nil, nil
		for _, runID := range runIDs {
			ids, st, err := forceTaskStatesTxn(txn, dagID, runID, taskIDs, state, now, true)
			if err != nil {
				return err
			}
			for _, id := range ids {
				marked = append(marked, tiKey{dagID, runID, id})
			}
			stopped = append(stopped, st...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return marked, stopped, nil
}

// forceTaskStatesTxn marks the task instances ids of a run, but with
// skipSame those already in state; a finished run where one changed goes
// back to running.
func forceTaskStatesTxn(txn *memdb.Txn, dagID, runID string, ids []string, state TaskState, now time.Time, skipSame bool) (marked []string, stopped []tiKey, err error) {
	run, err := runByRunIDTxn(txn, dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, nil, &missingError{what: "run", dagID: dagID, runID: runID}
	}
	if err != nil {
		return nil, nil, err
	}
	var changed []*TaskInstance
	for _, id := range ids {
		ti, err := taskInstanceTxn(txn, dagID, runID, id)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if skipSame && ti.State == state {
			continue
		}
		if ti.State == TaskRunning {
			stopped = append(stopped, tiKey{dagID, runID, id})
		}
		forced := *ti
		forced.State, forced.EndDate, forced.UpdatedAt, forced.NextRetryAt = state, &now, &now, nil
		changed = append(changed, &forced)
		marked = append(marked, id)
	}
	if err := putTaskInstancesTxn(txn, changed...); err != nil {
		return nil, nil, err
	}
	if run.State.Finished() && (len(changed) > 0 || !skipSame) {
		reopened := *run
		reopened.State, reopened.EndDate, reopened.UpdatedAt = RunRunning, nil, &now
		if err := putRunTxn(txn, run, &reopened); err != nil {
			return nil, nil, err
		}
	}
	return marked, stopped, nil
}

// slotUsage counts what active (queued and running) task instances hold,
// as Airflow counts pool and parallelism slots.
type slotUsage struct {
	total   int
	byDag   map[string]int
	byPool  map[string]int64 // pool_slots of queued and running
	running map[string]int64 // pool_slots of running only
}

// ActiveUsage counts the slots that queued and running task instances hold.
func (s *Store) ActiveUsage() (*slotUsage, error) { return activeUsageTxn(s.read()) }

func activeUsageTxn(txn *memdb.Txn) (*slotUsage, error) {
	u := &slotUsage{byDag: map[string]int{}, byPool: map[string]int64{}, running: map[string]int64{}}
	for _, state := range []TaskState{TaskQueued, TaskRunning} {
		tis, err := taskInstancesInStateTxn(txn, state)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			u.total++
			u.byDag[ti.DagID]++
			u.byPool[ti.Pool] += int64(ti.PoolSlots)
			if state == TaskRunning {
				u.running[ti.Pool] += int64(ti.PoolSlots)
			}
		}
	}
	return u, nil
}

// ScheduledTaskInstances lists the task instances waiting for a slot,
// with the slots that active ones hold, from one point in time.
func (s *Store) ScheduledTaskInstances() ([]*TaskInstance, *slotUsage, error) {
	txn := s.read()
	tis, err := taskInstancesInStateTxn(txn, TaskScheduled)
	if err != nil || len(tis) == 0 {
		return nil, nil, err
	}
	usage, err := activeUsageTxn(txn)
	return tis, usage, err
}

// WatchRun returns a run and a channel closed when its row next changes;
// errNotFound when it does not exist.
func (s *Store) WatchRun(dagID, runID string) (*DagRun, <-chan struct{}, error) {
	ch, raw, err := s.read().FirstWatch(tableDagRuns, indexID, dagID, runID)
	if err != nil {
		return nil, nil, fmt.Errorf("watch run %s of %s: %w", runID, dagID, err)
	}
	if raw == nil {
		return nil, nil, errNotFound
	}
	return raw.(*DagRun), ch, nil
}

// variablesTable holds Airflow Variables by key, and by the id that orders
// them.
func variablesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableVariables,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Variable]{func(v *Variable) string { return v.Key }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Variable]{func(v *Variable) int64 { return v.ID }}},
		},
	}
}

// connectionsTable holds Airflow Connections by connection_id, and by the
// id that orders them.
func connectionsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableConns,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Connection]{func(c *Connection) string { return c.ConnID }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Connection]{func(c *Connection) int64 { return c.ID }}},
		},
	}
}

// xcomsTable holds the XCom values tasks pushed, keyed by (dag_id, run_id,
// task_id, key): map_index is always -1, so it is left out of the key.
func xcomsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableXComs,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				stringField[XComEntry]{func(x *XComEntry) string { return x.DagID }},
				stringField[XComEntry]{func(x *XComEntry) string { return x.RunID }},
				stringField[XComEntry]{func(x *XComEntry) string { return x.TaskID }},
				stringField[XComEntry]{func(x *XComEntry) string { return x.Key }}}}},
		},
	}
}

// Variable returns the variable under key; false when there is none.
// Templates read var.value.{key} through it.
func (s *Store) Variable(key string) (Variable, bool) {
	v, err := variableTxn(s.read(), key)
	if err != nil {
		return Variable{}, false
	}
	return *v, true
}

// VariableValue is Variable's value alone: the lookup a template engine
// takes.
func (s *Store) VariableValue(key string) (string, bool) {
	v, ok := s.Variable(key)
	return v.Val, ok
}

func variableTxn(txn *memdb.Txn, key string) (*Variable, error) {
	raw, err := txn.First(tableVariables, indexID, key)
	if err != nil {
		return nil, fmt.Errorf("look up variable %s: %w", key, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Variable), nil
}

// Variables lists every variable by id: the order they were set in.
func (s *Store) Variables() ([]*Variable, error) {
	it, err := s.read().Get(tableVariables, indexRowID)
	if err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	vars := []*Variable{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		vars = append(vars, raw.(*Variable))
	}
	return vars, nil
}

// SetVariable stores a variable as Airflow's Variable.set does: any
// variable under the key is replaced by a new one, with a new id. A new
// key is refused at the variable limit; a value over the size limit
// always.
func (s *Store) SetVariable(key, val string, description *string) (*Variable, error) {
	var out *Variable
	err := s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		switch {
		case err == nil:
			if err := txn.Delete(tableVariables, old); err != nil {
				return fmt.Errorf("replace variable %s: %w", key, err)
			}
		case !errors.Is(err, errNotFound):
			return err
		default:
			if err := enforceCountTxn(txn, tableVariables, s.limits.Variables, limitVariables); err != nil {
				return err
			}
		}
		id, err := nextCounter(txn, counterVariableID)
		if err != nil {
			return err
		}
		out = &Variable{ID: id, Key: key, Val: val, Description: description}
		return s.putVariableTxn(txn, out)
	})
	return out, err
}

// UpdateVariable changes an existing variable as change says, keeping its
// key and id (Airflow's PATCH sets the row's attributes); errNotFound when
// there is none.
func (s *Store) UpdateVariable(key string, change func(v Variable) Variable) (*Variable, error) {
	var out *Variable
	err := s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		if err != nil {
			return err
		}
		next := change(*old)
		next.ID, next.Key = old.ID, old.Key
		out = &next
		return s.putVariableTxn(txn, out)
	})
	return out, err
}

func (s *Store) putVariableTxn(txn *memdb.Txn, v *Variable) error {
	if max := s.limits.VariableBytes; max > 0 && len(v.Val) > max {
		return &limitError{limit: limitVariableBytes, key: v.Key, adding: int64(len(v.Val)), max: int64(max)}
	}
	if err := txn.Insert(tableVariables, v); err != nil {
		return fmt.Errorf("store variable %s: %w", v.Key, err)
	}
	return nil
}

// DeleteVariable removes a variable; errNotFound when there is none.
func (s *Store) DeleteVariable(key string) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		if err != nil {
			return err
		}
		if err := txn.Delete(tableVariables, old); err != nil {
			return fmt.Errorf("delete variable %s: %w", key, err)
		}
		return nil
	})
}

// ResetVariables removes every variable.
func (s *Store) ResetVariables() error {
	return s.update(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tableVariables, indexID); err != nil {
			return fmt.Errorf("delete variables: %w", err)
		}
		return nil
	})
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

// ConnectionByID returns a connection, or errNotFound.
func (s *Store) ConnectionByID(connID string) (*Connection, error) {
	return connectionTxn(s.read(), connID)
}

// connectionFound is ConnectionByID for templates: found or not; a lookup
// error counts as not found, which fails the render naming the conn_id.
func (s *Store) connectionFound(connID string) (*Connection, bool) {
	c, err := s.ConnectionByID(connID)
	return c, err == nil
}

func connectionTxn(txn *memdb.Txn, connID string) (*Connection, error) {
	raw, err := txn.First(tableConns, indexID, connID)
	if err != nil {
		return nil, fmt.Errorf("look up connection %s: %w", connID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Connection), nil
}

// Connections lists every connection by id: the order they were created in.
func (s *Store) Connections() ([]*Connection, error) {
	it, err := s.read().Get(tableConns, indexRowID)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	conns := []*Connection{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		conns = append(conns, raw.(*Connection))
	}
	return conns, nil
}

// CreateConnection stores a new connection with a new id; a
// connection_id already taken is an *existsError, as Airflow's POST
// refuses it.
func (s *Store) CreateConnection(c Connection) (*Connection, error) {
	var out *Connection
	err := s.update(func(txn *memdb.Txn) error {
		_, err := connectionTxn(txn, c.ConnID)
		switch {
		case err == nil:
			return &existsError{what: "connection", id: c.ConnID}
		case !errors.Is(err, errNotFound):
			return err
		}
		if err := enforceCountTxn(txn, tableConns, s.limits.Connections, limitConnections); err != nil {
			return err
		}
		if c.ID, err = nextCounter(txn, counterConnectionID); err != nil {
			return err
		}
		out = &c
		return s.putConnectionTxn(txn, out)
	})
	return out, err
}

// UpdateConnection changes an existing connection as change says, keeping
// its connection_id and id; errNotFound when there is none. change may
// refuse with an error, which the write returns.
func (s *Store) UpdateConnection(connID string, change func(c Connection) (Connection, error)) (*Connection, error) {
	var out *Connection
	err := s.update(func(txn *memdb.Txn) error {
		old, err := connectionTxn(txn, connID)
		if err != nil {
			return err
		}
		next, err := change(*old)
		if err != nil {
			return err
		}
		next.ID, next.ConnID = old.ID, old.ConnID
		out = &next
		return s.putConnectionTxn(txn, out)
	})
	return out, err
}

func (s *Store) putConnectionTxn(txn *memdb.Txn, c *Connection) error {
	if max := s.limits.ConnectionBytes; max > 0 && c.Bytes() > max {
		return &limitError{limit: limitConnBytes, key: c.ConnID, adding: int64(c.Bytes()), max: int64(max)}
	}
	if err := txn.Insert(tableConns, c); err != nil {
		return fmt.Errorf("store connection %s: %w", c.ConnID, err)
	}
	return nil
}

// DeleteConnection removes a connection; errNotFound when there is none.
func (s *Store) DeleteConnection(connID string) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := connectionTxn(txn, connID)
		if err != nil {
			return err
		}
		if err := txn.Delete(tableConns, old); err != nil {
			return fmt.Errorf("delete connection %s: %w", connID, err)
		}
		return nil
	})
}

// ResetConnections removes every connection.
func (s *Store) ResetConnections() error {
	return s.update(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tableConns, indexID); err != nil {
			return fmt.Errorf("delete connections: %w", err)
		}
		return nil
	})
}

// existsError is a row that cannot be created because its key is taken.
// It matches errConflict; the HTTP layer phrases it.
type existsError struct {
	what string // "connection"
	id   string
}

func (e *existsError) Error() string        { return e.what + " " + e.id + " already exists" }
func (e *existsError) Is(target error) bool { return target == errConflict }

// putXComTxn stores one XCom value, replacing the one under the same key
// (which a try cleared when it started, so only a try pushing a key twice
// replaces). A new entry is refused at the XCom limit; a value over the
// size limit always.
func (s *Store) putXComTxn(txn *memdb.Txn, e *XComEntry) error {
	if max := s.limits.XComBytes; max > 0 && len(e.Value) > max {
		return &limitError{limit: limitXComBytes, key: e.Key, adding: int64(len(e.Value)), max: int64(max)}
	}
	old, err := txn.First(tableXComs, indexID, e.DagID, e.RunID, e.TaskID, e.Key)
	if err != nil {
		return fmt.Errorf("look up xcom %s of %s/%s/%s: %w", e.Key, e.DagID, e.RunID, e.TaskID, err)
	}
	if old == nil {
		n := totalTxn(txn, totalXComs)
		if max := s.limits.XComs; max > 0 && n >= int64(max) {
			return &limitError{limit: limitXComs, key: e.Key, have: n}
		}
		if err := addTotalTxn(txn, totalXComs, 1); err != nil {
			return err
		}
	}
	if err := txn.Insert(tableXComs, e); err != nil {
		return fmt.Errorf("store xcom %s of %s/%s/%s: %w", e.Key, e.DagID, e.RunID, e.TaskID, err)
	}
	return nil
}

// deleteXComsTxn removes the XCom entries under a key prefix: (dag_id,
// run_id, task_id, "") for a task instance's, (dag_id, run_id, "") for a
// run's, (dag_id, "") for a DAG's, none for all; and keeps their count.
func deleteXComsTxn(txn *memdb.Txn, prefix ...any) error {
	index := indexID
	if len(prefix) > 0 {
		index += "_prefix"
	}
	n, err := txn.DeleteAll(tableXComs, index, prefix...)
	if err != nil {
		return fmt.Errorf("delete xcom entries %v: %w", prefix, err)
	}
	return addTotalTxn(txn, totalXComs, -int64(n))
}

// recountXComsTxn sets the XCom count from the table (after a restore).
func recountXComsTxn(txn *memdb.Txn) error {
	it, err := txn.Get(tableXComs, indexID)
	if err != nil {
		return fmt.Errorf("count xcom entries: %w", err)
	}
	var n int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	if _, err := txn.DeleteAll(tableTotals, indexID, totalXComs); err != nil {
		return fmt.Errorf("clear xcom count: %w", err)
	}
	return addTotalTxn(txn, totalXComs, n)
}

// XComFilter picks XCom entries; an empty field matches any.
type XComFilter struct {
	DagID, RunID, TaskID, Key string
}

// XComEntries lists the XCom entries that match, in Airflow's order:
// dag_id, task_id, run_id, map_index, key.
func (s *Store) XComEntries(f XComFilter) ([]*XComEntry, error) {
	var prefix []any
	switch {
	case f.DagID != "" && f.RunID != "" && f.TaskID != "":
		prefix = []any{f.DagID, f.RunID, f.TaskID, ""}
	case f.DagID != "" && f.RunID != "":
		prefix = []any{f.DagID, f.RunID, ""}
	case f.DagID != "":
		prefix = []any{f.DagID, ""}
	}
	index := indexID
	if prefix != nil {
		index += "_prefix"
	}
	it, err := s.read().Get(tableXComs, index, prefix...)
	if err != nil {
		return nil, fmt.Errorf("list xcom entries: %w", err)
	}
	entries := []*XComEntry{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		e := raw.(*XComEntry)
		if (f.RunID == "" || e.RunID == f.RunID) && (f.TaskID == "" || e.TaskID == f.TaskID) && (f.Key == "" || e.Key == f.Key) {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b *XComEntry) int {
		return cmp.Or(strings.Compare(a.DagID, b.DagID), strings.Compare(a.TaskID, b.TaskID),
			strings.Compare(a.RunID, b.RunID), cmp.Compare(a.MapIndex, b.MapIndex), strings.Compare(a.Key, b.Key))
	})
	return entries, nil
}

// XComPullQuery picks the XCom entries a template's xcom_pull reads, as
// Airflow's XCom.get_many (2.10.3) and XCom.get_one (1.10.15) do. Nil
// slices and an empty Key match any.
type XComPullQuery struct {
	DagIDs     []string
	TaskIDs    []string
	Key        string
	MapIndexes []int
	// The pulling task's run: 2.10.3 takes the entries of the runs with
	// its run_id (ByDate false), 1.10.15 those at its logical date.
	RunID  string
	Date   time.Time
	ByDate bool
	// IncludePriorDates takes the entries of runs at or before Date too.
	IncludePriorDates bool
}

// XComsToPull lists the entries a pull reads, newest first as Airflow
// orders them (the run's logical date, then the push's timestamp,
// descending), in one read.
func (s *Store) XComsToPull(q XComPullQuery) ([]*XComEntry, error) {
	txn := s.read()
	type found struct {
		e    *XComEntry
		date time.Time
	}
	var entries []found
	keep := func(e *XComEntry) error {
		if (q.TaskIDs != nil && !slices.Contains(q.TaskIDs, e.TaskID)) || (q.Key != "" && e.Key != q.Key) ||
			(q.MapIndexes != nil && !slices.Contains(q.MapIndexes, e.MapIndex)) {
			return nil
		}
		run, err := runByRunIDTxn(txn, e.DagID, e.RunID)
		if errors.Is(err, errNotFound) { // entries go with their run
			return nil
		}
		if err != nil {
			return err
		}
		date := run.ExecutionDate
		switch {
		case q.IncludePriorDates && date.After(q.Date):
			return nil
		case !q.IncludePriorDates && q.ByDate && !date.Equal(q.Date):
			return nil
		case !q.IncludePriorDates && !q.ByDate && e.RunID != q.RunID:
			return nil
		}
		entries = append(entries, found{e, date})
		return nil
	}
	scan := func(prefix ...any) error {
		index := indexID
		if len(prefix) > 0 {
			index += "_prefix"
		}
		it, err := txn.Get(tableXComs, index, prefix...)
		if err != nil {
			return fmt.Errorf("list xcom entries: %w", err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if err := keep(raw.(*XComEntry)); err != nil {
				return err
			}
		}
		return nil
	}
	if q.DagIDs == nil {
		if err := scan(); err != nil {
			return nil, err
		}
	}
	for _, dagID := range slices.Compact(slices.Sorted(slices.Values(q.DagIDs))) {
		var err error
		switch {
		case q.IncludePriorDates:
			err = scan(dagID, "")
		case q.ByDate:
			// One run of a DAG per logical date: scan only its entries.
			run, rerr := runByDateTxn(txn, dagID, q.Date)
			if errors.Is(rerr, errNotFound) {
				continue
			}
			if rerr != nil {
				return nil, rerr
			}
			err = scan(dagID, run.RunID, "")
		default:
			err = scan(dagID, q.RunID, "")
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(entries, func(a, b found) int {
		return cmp.Or(b.date.Compare(a.date), b.e.Timestamp.Compare(a.e.Timestamp),
			strings.Compare(a.e.DagID, b.e.DagID), strings.Compare(a.e.TaskID, b.e.TaskID), strings.Compare(a.e.Key, b.e.Key))
	})
	out := make([]*XComEntry, len(entries))
	for i, f := range entries {
		out[i] = f.e
	}
	return out, nil
}

// XCom returns one XCom entry, or errNotFound.
func (s *Store) XCom(dagID, runID, taskID, key string) (*XComEntry, error) {
	raw, err := s.read().First(tableXComs, indexID, dagID, runID, taskID, key)
	if err != nil {
		return nil, fmt.Errorf("look up xcom %s of %s/%s/%s: %w", key, dagID, runID, taskID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*XComEntry), nil
}

// LastScheduledDate is the logical date of a DAG's latest scheduled run,
// or nil (the stable API's next_dagrun starts from it).
func (s *Store) LastScheduledDate(dagID string) (*time.Time, error) {
	return storeView{s.read()}.LastScheduledDate(dagID)
}

// SetRunNote sets or clears a run's note and returns the run as stored.
func (s *Store) SetRunNote(dagID, runID string, note *string, now time.Time) (*DagRun, error) {
	var out *DagRun
	err := s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		noted := *run
		noted.Note, noted.UpdatedAt = note, &now
		out = &noted
		return putRunTxn(txn, run, &noted)
	})
	return out, err
}

// SetTaskInstanceNote sets or clears a task instance's note and returns
// the task instance as stored.
func (s *Store) SetTaskInstanceNote(dagID, runID, taskID string, note *string) (*TaskInstance, error) {
	var out *TaskInstance
	err := s.update(func(txn *memdb.Txn) error {
		ti, err := taskInstanceTxn(txn, dagID, runID, taskID)
		if err != nil {
			return err
		}
		noted := *ti
		noted.Note = note
		out = &noted
		return putTaskInstancesTxn(txn, &noted)
	})
	return out, err
}

// DeleteRun removes one run with its task instances, lineage, task
// logs and earlier tries (not its sub-DAGs' runs, as Airflow deletes the one row).
func (s *Store) DeleteRun(dagID, runID string) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		if err := deleteRunTxn(txn, run); err != nil {
			return err
		}
		for _, table := range taskInstanceTables {
			if _, err := txn.DeleteAll(table, indexID+"_prefix", dagID, runID, ""); err != nil {
				return fmt.Errorf("delete %s of %s/%s: %w", table, dagID, runID, err)
			}
		}
		return nil
	})
}

// ClearRun clears every task instance of a run and queues the run again
// when it had finished (ClearTaskInstances).
func (s *Store) ClearRun(dagID, runID string, now time.Time) (stopped []tiKey, err error) {
	return s.ClearTaskInstances(dagID, runID, nil, true, now)
}

// ClearTaskInstances clears task instances of a run (taskIDs; nil is
// all), as Airflow's clear_task_instances does: each goes back to no
// state, its try's dates dropped, with room for its retries again; with
// requeueRun a finished run is queued again with no start. It returns
// the task instances that were running, whose tries the caller stops.
func (s *Store) ClearTaskInstances(dagID, runID string, taskIDs []string, requeueRun bool, now time.Time) (stopped []tiKey, err error) {
	err = s.update(func(txn *memdb.Txn) error {
		stopped = nil
		run, err := runByRunIDTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		tis, err := taskInstancesOfRunTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		changed := make([]*TaskInstance, 0, len(tis))
		for _, ti := range tis {
			if taskIDs != nil && !slices.Contains(taskIDs, ti.TaskID) {
				continue
			}
			if ti.State == TaskRunning {
				stopped = append(stopped, tiKey{ti.DagID, ti.RunID, ti.TaskID})
			}
			// Airflow's clear_task_instances records every cleared
			// try first.
			if err := recordTryTxn(txn, ti, now); err != nil {
				return err
			}
			cleared := *ti
			cleared.State, cleared.EndDate, cleared.NextRetryAt, cleared.UpdatedAt = TaskNone, nil, nil, &now
			cleared.MaxTries = ti.TryNumber + ti.MaxTries - max(ti.TryNumber-1, 0)
			if cleared.MaxTries < ti.TryNumber {
				cleared.MaxTries = ti.TryNumber
			}
			changed = append(changed, &cleared)
		}
		if err := putTaskInstancesTxn(txn, changed...); err != nil {
			return err
		}
		if !requeueRun || !run.State.Finished() {
			return nil
		}
		queued := *run
		queued.State, queued.StartDate, queued.EndDate, queued.QueuedAt, queued.UpdatedAt = RunQueued, nil, nil, &now, &now
		return putRunTxn(txn, run, &queued)
	})
	return stopped, err
}

// RunPageQuery is a page of runs in an order the store's indexes keep.
type RunPageQuery struct {
	DagID         string     // "" is every DAG (by id only)
	States        []RunState // any of these (each one of runStates); nil is any
	ByDate        bool       // by logical date (one DAG only), else by id
	Desc          bool
	Offset, Limit int
}

// RunPage reads a page of runs and how many runs match in all. It walks
// an index in the page's order and stops at the page's end: the cost is
// offset plus limit rows (with States, also the rows in other states
// among them; for every DAG also a seek per DAG); unfinished States that
// hold under a quarter of the runs are read from the state index, all of
// them, without the rows in between. The total comes
// from the counts the writes keep (one row per DAG), not from the runs.
// Every DAG's runs leave out those of a DAG id the store has no DAG row
// for, as the listing of every DAG's ids does.
func (s *Store) RunPage(q RunPageQuery) ([]*DagRun, int, error) {
	txn := s.read()
	total, all, dagIDs, err := runPageTotal(txn, q)
	if err != nil {
		return nil, 0, err
	}
	if !q.ByDate && q.States != nil && total*4 < all && !slices.ContainsFunc(q.States, RunState.Finished) {
		// Few runs in unfinished states among many: take them from the
		// state index rather than walk past the rest.
		runs, read, err := unfinishedRunPage(txn, q, dagIDs)
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
		return runs, total, err
	}
	it, err := runPageIterator(txn, q, dagIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("list runs of %q: %w", q.DagID, err)
	}
	read := 0
	defer func() {
		if m, ok := it.(*runMerge); ok {
			read = m.pulled // the rows of every DAG's walk
		}
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	offset := q.Offset
	runs := []*DagRun{}
	for len(runs) < q.Limit {
		raw := it.Next()
		if raw == nil {
			break
		}
		read++
		run := raw.(*DagRun)
		if q.DagID != "" && run.DagID != q.DagID {
			break // past the DAG's end of a reverse walk
		}
		if q.States != nil && !slices.Contains(q.States, run.State) {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		runs = append(runs, run)
	}
	return runs, total, nil
}

func runPageIterator(txn *memdb.Txn, q RunPageQuery, dagIDs []string) (memdb.ResultIterator, error) {
	switch {
	case q.ByDate && q.Desc:
		end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
		return txn.ReverseLowerBound(tableDagRuns, indexDagDate, q.DagID, end)
	case q.ByDate:
		return txn.Get(tableDagRuns, indexDagDate+"_prefix", q.DagID, nil)
	case q.DagID != "":
		return dagRunsByID(txn, q.DagID, q.Desc)
	}
	m := &runMerge{desc: q.Desc}
	for _, id := range dagIDs {
		it, err := dagRunsByID(txn, id, q.Desc)
		if err != nil {
			return nil, err
		}
		m.add(it)
	}
	heap.Init(m)
	return m, nil
}

// dagRunsByID walks one DAG's runs in id order, or from the highest id
// down; a reverse walk runs on past the DAG's runs, so readers stop at
// the first run of another DAG.
func dagRunsByID(txn *memdb.Txn, dagID string, desc bool) (memdb.ResultIterator, error) {
	if desc {
		return txn.ReverseLowerBound(tableDagRuns, indexDagRow, dagID, int64(1<<63-1))
	}
	return txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, nil)
}

// runMerge yields the runs of several DAGs in id order (descending when
// desc), from one walk of each DAG's (dag_id, id) index: a page of every
// DAG's runs costs a seek per DAG and its own rows.
type runMerge struct {
	desc   bool
	heads  []runHead
	pulled int // rows read from the walks
}

// runHead is the next run of one DAG's walk.
type runHead struct {
	run *DagRun
	it  memdb.ResultIterator
}

// add starts a DAG's walk; a walk with no run of its DAG is left out.
func (m *runMerge) add(it memdb.ResultIterator) {
	m.pulled++
	if raw := it.Next(); raw != nil {
		m.heads = append(m.heads, runHead{run: raw.(*DagRun), it: it})
	}
}

func (m *runMerge) Len() int { return len(m.heads) }
func (m *runMerge) Less(i, j int) bool {
	if m.desc {
		return m.heads[i].run.ID > m.heads[j].run.ID
	}
	return m.heads[i].run.ID < m.heads[j].run.ID
}
func (m *runMerge) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *runMerge) Push(x any)    { m.heads = append(m.heads, x.(runHead)) }
func (m *runMerge) Pop() any {
	last := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return last
}

// Next is memdb.ResultIterator's: the next run of the merged order.
func (m *runMerge) Next() any {
	if len(m.heads) == 0 {
		return nil
	}
	top := &m.heads[0]
	run := top.run
	m.pulled++
	if raw := top.it.Next(); raw != nil && raw.(*DagRun).DagID == run.DagID {
		top.run = raw.(*DagRun)
		heap.Fix(m, 0)
	} else {
		heap.Pop(m)
	}
	return run
}

// WatchCh is memdb.ResultIterator's; a page is read once, never watched.
func (m *runMerge) WatchCh() <-chan struct{} { return nil }

// unfinishedRunPage is RunPage for unfinished states, from the (state,
// dag_id) index: it reads every run in those states (of the DAG, or of
// dagIDs) and sorts them by id.
func unfinishedRunPage(txn *memdb.Txn, q RunPageQuery, dagIDs []string) ([]*DagRun, int, error) {
	var runs []*DagRun
	read := 0
	for i, state := range q.States {
		if slices.Contains(q.States[:i], state) {
			continue
		}
		index, args := indexState, []any{string(state), q.DagID}
		if q.DagID == "" {
			index, args = indexState+"_prefix", []any{string(state), ""}
		}
		it, err := txn.Get(tableDagRuns, index, args...)
		if err != nil {
			return nil, read, fmt.Errorf("list %s runs: %w", state, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			run := raw.(*DagRun)
			if q.DagID != "" || slices.Contains(dagIDs, run.DagID) {
				runs = append(runs, run)
			}
		}
	}
	slices.SortFunc(runs, func(a, b *DagRun) int {
		if q.Desc {
			return cmp.Compare(b.ID, a.ID)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	runs = runs[min(q.Offset, len(runs)):]
	return runs[:min(q.Limit, len(runs))], read, nil
}

// runPageTotal is how many runs match q and how many runs there are (of
// the DAG, or of every DAG), from the run counts; for every DAG also the
// DAG ids that have runs and a DAG row (nil for one DAG).
func runPageTotal(txn *memdb.Txn, q RunPageQuery) (matched, all int, dagIDs []string, err error) {
	of := func(c runCount) int {
		if q.States == nil {
			return c.N
		}
		n := 0
		for i, state := range q.States {
			if !slices.Contains(q.States[:i], state) {
				n += c.States[runStateSlot(state)]
			}
		}
		return n
	}
	if q.DagID != "" {
		c := runCountTxn(txn, q.DagID)
		return of(c), c.N, nil, nil
	}
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("count runs: %w", err)
	}
	dagIDs = []string{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runCount)
		if _, err := dagRowTxn(txn, c.DagID); err == nil {
			dagIDs = append(dagIDs, c.DagID)
			matched += of(*c)
			all += c.N
		} else if !errors.Is(err, errNotFound) {
			return 0, 0, nil, err
		}
	}
	return matched, all, dagIDs, nil
}

// RunTaskInstance is a task instance with its run.
type RunTaskInstance struct {
	Run *DagRun
	TI  *TaskInstance
}

// TaskInstancePage is the task instances of every run of dagIDs (taken in
// the order given), by DAG, logical date and task_id, skipping offset and
// reading at most limit, and how many there are in all. The total comes
// from the DAGs' counts; a DAG the page skips whole costs its count row,
// a run the page skips whole its task-instance row, so the cost is the
// page and the runs before it, not the DAGs' task instances.
func (s *Store) TaskInstancePage(dagIDs []string, offset, limit int) ([]RunTaskInstance, int, error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	page := []RunTaskInstance{}
	total := 0
	for _, dagID := range dagIDs {
		n := runCountTxn(txn, dagID).TaskInstances
		total += n
		if len(page) == limit || offset >= n {
			offset -= min(offset, n)
			continue
		}
		it, err := txn.Get(tableDagRuns, indexDagDate+"_prefix", dagID, nil)
		if err != nil {
			return nil, 0, fmt.Errorf("list runs of %s: %w", dagID, err)
		}
		for raw := it.Next(); raw != nil && len(page) < limit; raw = it.Next() {
			run := raw.(*DagRun)
			row, err := runTasksTxn(txn, dagID, run.RunID)
			if err != nil {
				return nil, 0, err
			}
			read += 2 // the run and its task-instance row
			if row == nil {
				continue
			}
			if offset >= len(row.TIs) {
				offset -= len(row.TIs)
				continue
			}
			for _, ti := range row.TIs[offset:min(len(row.TIs), offset+limit-len(page))] {
				page = append(page, RunTaskInstance{Run: run, TI: ti})
			}
			offset = 0
		}
	}
	return page, total, nil
}

// eventLogsTable holds Airflow's log table, the event log, by its integer
// id (which is also the order the events happened in).
func eventLogsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableEventLogs,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: seqField[EventLog]{func(e *EventLog) int64 { return e.ID }}},
		},
	}
}

// AppendEventLog stores one event on its own, as Airflow's action_logging
// commits its row before the action it records runs.
func (s *Store) AppendEventLog(e EventLog) error {
	return s.update(func(txn *memdb.Txn) error { return s.appendEventLogTxn(txn, &e) })
}

// appendEventLogTxn stores a copy of e under the next id; at
// --max-event-logs the rows that fall out of the newest ids go in the same
// write. e itself is not changed: a write may be tried more than once.
// The next id follows the last row's, or the counter that a reset leaves
// (clearEventLogsTxn): one read and one insert per event, no counter or
// total written, since a try writes two events.
func (s *Store) appendEventLogTxn(txn *memdb.Txn, e *EventLog) error {
	id := counterValue(txn, counterEventLogID)
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return fmt.Errorf("find the last event log: %w", err)
	}
	if last != nil {
		id = max(id, last.(*EventLog).ID)
	}
	id++
	row := *e
	row.ID = id
	if err := txn.Insert(tableEventLogs, &row); err != nil {
		return fmt.Errorf("store event log %d: %w", id, err)
	}
	keep := int64(s.limits.EventLogs)
	if keep <= 0 {
		return nil
	}
	for {
		oldest, err := txn.First(tableEventLogs, indexID)
		if err != nil {
			return fmt.Errorf("find the oldest event log: %w", err)
		}
		if oldest == nil || oldest.(*EventLog).ID > id-keep {
			return nil
		}
		if err := txn.Delete(tableEventLogs, oldest); err != nil {
			return fmt.Errorf("drop event log %d: %w", oldest.(*EventLog).ID, err)
		}
	}
}

// clearEventLogsTxn empties the event log (a reset); the counter keeps
// the last id, so that ids go on.
func clearEventLogsTxn(txn *memdb.Txn) error {
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return fmt.Errorf("find the last event log: %w", err)
	}
	if last != nil {
		if err := raiseCountersTxn(txn, map[string]int64{counterEventLogID: last.(*EventLog).ID}); err != nil {
			return err
		}
	}
	if _, err := txn.DeleteAll(tableEventLogs, indexID); err != nil {
		return fmt.Errorf("clear event logs: %w", err)
	}
	return nil
}

// EventLogs lists the event log by id, oldest first.
func (s *Store) EventLogs() ([]*EventLog, error) {
	it, err := s.read().Get(tableEventLogs, indexID)
	if err != nil {
		return nil, fmt.Errorf("list event logs: %w", err)
	}
	out := []*EventLog{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*EventLog))
	}
	return out, nil
}

// EventLogByID is one event; errNotFound when the log has none by that id.
func (s *Store) EventLogByID(id int64) (*EventLog, error) {
	raw, err := s.read().First(tableEventLogs, indexID, id)
	if err != nil {
		return nil, fmt.Errorf("look up event log %d: %w", id, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*EventLog), nil
}

// taskEventTxn is the event Airflow's task runner writes for a try
// (airflow/models/taskinstance.py: Log(state, ti), in 2.10.3 as in
// 1.10.15): the task instance's ids, its try and logical date, and its
// task's owner.
func taskEventTxn(txn *memdb.Txn, event string, ti *TaskInstance, at time.Time) *EventLog {
	e := &EventLog{When: at, Event: event, DagID: ti.DagID, TaskID: ti.TaskID, RunID: ti.RunID}
	mapIndex, try, date := -1, ti.TryNumber, ti.ExecutionDate
	e.MapIndex, e.TryNumber, e.ExecutionDate = &mapIndex, &try, &date
	if row, err := dagRowTxn(txn, ti.DagID); err == nil && row.Def != nil {
		if t := row.Def.Task(ti.TaskID); t != nil {
			owner := t.Owner
			e.Owner = &owner
		}
	}
	return e
}

// tryEndEvent is the event of a try that ended in state: Airflow writes
// the state for success and skipped, and "failed" from handle_failure
// whether or not a retry follows; "" when the try did not end (it goes
// back to no state uncounted).
func tryEndEvent(state TaskState) string {
	switch state {
	case TaskSuccess, TaskSkipped:
		return string(state)
	case TaskFailed, TaskUpForRetry:
		return string(TaskFailed)
	}
	return ""
}
