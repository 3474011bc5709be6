package main

// Derived tables: sums the writes keep over whole tables (totals) and
// per DAG (run counts), so that limits and page totals cost one lookup.

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// derivedTables hold what other tables already say, kept for speed:
// snapshots leave them out and restore builds them again.
var derivedTables = map[string]bool{tableRunCounts: true, tableTotals: true, tableTIOrder: true}

// Names in the totals table.
const (
	totalXComs       = "xcoms"        // rows of the XCom table
	totalAssetEvents = "asset_events" // rows of the asset events table
)

// allDAGs is the DagID of the run-counts row that counts every DAG's runs
// (N, States, ConfBytes; not TaskInstances): the --max-conf-bytes-total
// check reads its ConfBytes. It lives in the table that the trigger
// writes anyway, so that a trigger touches one more leaf there rather
// than a table of its own (each table a write touches costs its radix
// tree's transaction and an entry in the root tree at commit).
const allDAGs = ""

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

// recountTotalTxn sets the total name from the rows of table (after a
// restore).
func recountTotalTxn(txn *memdb.Txn, table, name string) error {
	it, err := txn.Get(table, indexID)
	if err != nil {
		return fmt.Errorf("count %s: %w", table, err)
	}
	var n int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	if _, err := txn.DeleteAll(tableTotals, indexID, name); err != nil {
		return fmt.Errorf("clear total %s: %w", name, err)
	}
	return addTotalTxn(txn, name, n)
}

// runCountsTable holds the number of runs of each DAG that has any, and
// the bytes of their confs, and the row allDAGs for every DAG.
func runCountsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableRunCounts,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: runCountKey{}},
		},
	}
}

// runCountKey indexes a run count by its DagID and a NUL, as stringField
// does, but indexes allDAGs ("") too: its key is the NUL alone, which
// stringField's FromArgs("") finds.
type runCountKey struct{ stringField[runCount] }

func (runCountKey) FromObject(obj any) (bool, []byte, error) {
	c, ok := obj.(*runCount)
	if !ok {
		return false, nil, fmt.Errorf("run count index: want *runCount, got %T", obj)
	}
	b := make([]byte, len(c.DagID)+1)
	copy(b, c.DagID)
	return true, b, nil
}

func runCountTxn(txn *memdb.Txn, dagID string) runCount {
	raw, err := txn.First(tableRunCounts, indexID, dagID)
	if err != nil || raw == nil {
		return runCount{DagID: dagID}
	}
	return *raw.(*runCount)
}

// RunStateCounts is how many runs a DAG has in each of runStates (the
// states its statistics show), from the counts the writes keep: one row.
func (s *Store) RunStateCounts(dagID string) map[RunState]int {
	c := runCountTxn(s.read(), dagID)
	if s.rowsRead != nil {
		s.rowsRead(1)
	}
	out := make(map[RunState]int, len(runStates))
	for i, state := range runStates {
		out[state] = c.States[i]
	}
	return out
}

// DagIDsWithRuns are the ids of the DAGs that have runs, by dag_id, from
// the run counts (a row a DAG).
func (s *Store) DagIDsWithRuns() ([]string, error) {
	it, err := s.read().Get(tableRunCounts, indexID)
	if err != nil {
		return nil, fmt.Errorf("count runs: %w", err)
	}
	var out []string
	read := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		read++
		if c := raw.(*runCount); c.DagID != allDAGs && c.N > 0 {
			out = append(out, c.DagID)
		}
	}
	if s.rowsRead != nil {
		s.rowsRead(read)
	}
	return out, nil
}

// countRunTxn adds run, with tis task instances (ordered of them with an
// id), to its DAG's counts (sign 1) or takes it away (sign -1), and to
// allDAGs' counts.
func countRunTxn(txn *memdb.Txn, run *DagRun, sign, tis, ordered int) error {
	return countNewRunTxn(txn, run, sign, tis, ordered, nil)
}

// countNewRunTxn is countRunTxn that also adds a new run's block of task
// instances (nil: none) to its DAG's pending blocks (pendBlockTxn).
func countNewRunTxn(txn *memdb.Txn, run *DagRun, sign, tis, ordered int, block *tiOrderRow) error {
	// Both rows are read before either is written (see Store.write: a
	// read after a write of the table copies its nodes again).
	counts := [2]runCount{runCountTxn(txn, run.DagID), runCountTxn(txn, allDAGs)}
	counts[0].TaskInstances += sign * tis
	counts[0].OrderedTIs += sign * ordered
	if block != nil {
		if err := pendBlockTxn(txn, &counts[0], block); err != nil {
			return err
		}
	}
	for kind := range lastRunKinds {
		if !kind.counts(run) {
			continue
		}
		last, err := lastRunAfterTxn(txn, counts[0].Last[kind], run, sign, kind)
		if err != nil {
			return err
		}
		counts[0].Last[kind] = last
	}
	if err := fixedRunCountTxn(txn, &counts[0], run, sign); err != nil {
		return err
	}
	for i := range counts {
		c := &counts[i]
		c.N += sign
		c.States[runStateSlot(run.State)] += sign
		c.ConfBytes += int64(sign * len(run.Conf))
		if err := storeRunCountTxn(txn, c); err != nil {
			return err
		}
	}
	return nil
}

// moveRunCountTxn is countRunTxn for a run changed in place, old to next
// (one id): its count moves between states and its conf bytes change,
// in one read and write of the counts; its last dates as a -1 then a +1
// would have them. A run's fixed values never change (no write
// of the store changes them): were they to, its fixed marks are set anew.
func moveRunCountTxn(txn *memdb.Txn, old, next *DagRun) error {
	counts := [2]runCount{runCountTxn(txn, next.DagID), runCountTxn(txn, allDAGs)}
	c := &counts[0]
	for _, step := range []struct {
		run  *DagRun
		sign int
	}{{old, -1}, {next, 1}} {
		for kind := range lastRunKinds {
			if !kind.counts(step.run) {
				continue
			}
			last, err := lastRunAfterTxn(txn, c.Last[kind], step.run, step.sign, kind)
			if err != nil {
				return err
			}
			c.Last[kind] = last
		}
	}
	if v := fixedValuesOf(next); !fixedValuesEqual(fixedValuesOf(old), v) {
		if next.ID == c.NewestID {
			c.Newest = v
		}
		if err := refixRunTxn(txn, next, true); err != nil {
			return err
		}
	}
	if runSettled(old) && !runSettled(next) {
		c.UnsettledN++
		c.Unsettled = append(slices.Clone(c.Unsettled[max(0, len(c.Unsettled)-unsettledMax+1):]), next.ID)
	}
	for i := range counts {
		c := &counts[i]
		c.States[runStateSlot(old.State)]--
		c.States[runStateSlot(next.State)]++
		c.ConfBytes += int64(len(next.Conf) - len(old.Conf))
		if err := storeRunCountTxn(txn, c); err != nil {
			return err
		}
	}
	return nil
}

// unsettledMax bounds a DAG's runCount.Unsettled: more clears between
// two pages of its runs than that read its unfinished runs again.
const unsettledMax = 64

// lastRunKind is which of a DAG's runs its last run is the latest of
// (runCount.Last): the run the schedule plans its next one after.
type lastRunKind int

const (
	// lastScheduled: scheduled runs.
	lastScheduled lastRunKind = iota
	// lastAutomated: scheduled and backfill runs.
	lastAutomated
	lastRunKinds // how many kinds there are
)

// counts says whether run is one of kind's: a run with a logical date of
// the kind's run types (manual runs never are).
func (k lastRunKind) counts(run *DagRun) bool {
	if run.NoLogicalDate {
		return false
	}
	return run.RunType == "scheduled" || (k == lastAutomated && run.RunType == "backfill")
}

// lastRunAfterTxn is the DAG's last date of kind once run, one of kind's,
// comes (sign 1) or goes (sign -1): a later date is the new last; the
// last's run going gives way to the run at its date if one of kind's is
// still there (a changed copy put in its place) or else to the latest of
// kind's runs left, found by a walk down the DAG's runs.
func lastRunAfterTxn(txn *memdb.Txn, last *time.Time, run *DagRun, sign int, kind lastRunKind) (*time.Time, error) {
	date := run.ExecutionDate
	if sign > 0 {
		if last == nil || date.After(*last) {
			return &date, nil
		}
		return last, nil
	}
	if last == nil || !date.Equal(*last) {
		return last, nil
	}
	if same, err := runByDateTxn(txn, run.DagID, date); err == nil && kind.counts(same) {
		return last, nil
	} else if err != nil && !errors.Is(err, errNotFound) {
		return nil, err
	}
	return storeView{txn}.walkLastRun(run.DagID, kind)
}

// confBytesTxn is len(Conf) summed over every stored run.
func confBytesTxn(txn *memdb.Txn) int64 { return runCountTxn(txn, allDAGs).ConfBytes }

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

// forgetRunCountTxn is countRunTxn for a write that removes every run of
// a DAG.
func forgetRunCountTxn(txn *memdb.Txn, dagID string) error {
	c := runCountTxn(txn, dagID)
	if _, err := txn.DeleteAll(tableRunCounts, indexID, dagID); err != nil {
		return fmt.Errorf("clear run count of %s: %w", dagID, err)
	}
	all := runCountTxn(txn, allDAGs)
	all.N -= c.N
	all.ConfBytes -= c.ConfBytes
	for i := range all.States {
		all.States[i] -= c.States[i]
	}
	return storeRunCountTxn(txn, &all)
}

// clearRunCountsTxn is countRunTxn for a write that removes every run.
func clearRunCountsTxn(txn *memdb.Txn) error {
	if _, err := txn.DeleteAll(tableRunCounts, indexID); err != nil {
		return fmt.Errorf("clear %s: %w", tableRunCounts, err)
	}
	return nil
}

// recountRunsTxn sets every DAG's run counts, task-instance counts and
// conf bytes, and the total, from the runs and task-instance tables, and
// the runs' order marks (after a restore; ti_order is kept by
// putTaskInstancesTxn, which restores use). Blocks pending in the counts
// go to a group each DAG first (groupBlocksTxn).
func recountRunsTxn(txn *memdb.Txn) error {
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		return fmt.Errorf("count runs: %w", err)
	}
	var pending [][]*tiOrderRow
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if c := raw.(*runCount); len(c.Pending) > 0 {
			pending = append(pending, c.Pending)
		}
	}
	for _, blocks := range pending {
		if err := groupBlocksTxn(txn, blocks); err != nil {
			return err
		}
	}
	if err := clearRunCountsTxn(txn); err != nil {
		return err
	}
	if err := remarkRunsTxn(txn); err != nil {
		return err
	}
	if err := restartAllTIsTxn(txn); err != nil {
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
	it, err = txn.Get(tableDagRuns, indexID)
	if err != nil {
		return fmt.Errorf("count runs: %w", err)
	}
	all := countOf(allDAGs)
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		for _, c := range [2]*runCount{countOf(run.DagID), all} {
			c.N++
			c.States[runStateSlot(run.State)]++
			c.ConfBytes += int64(len(run.Conf))
		}
		c := countOf(run.DagID)
		if run.ID > c.NewestID {
			c.NewestID, c.Newest = run.ID, fixedValuesOf(run)
		}
		for kind := range lastRunKinds {
			if kind.counts(run) && (c.Last[kind] == nil || run.ExecutionDate.After(*c.Last[kind])) {
				date := run.ExecutionDate
				c.Last[kind] = &date
			}
		}
	}
	tit, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return fmt.Errorf("count task instances: %w", err)
	}
	for raw := tit.Next(); raw != nil; raw = tit.Next() {
		row := raw.(*runTasks)
		c := countOf(row.DagID)
		c.TaskInstances += len(row.TIs)
		for _, ti := range row.TIs {
			if ti.ID != "" {
				c.OrderedTIs++
			}
		}
	}
	for _, c := range counts {
		if err := storeRunCountTxn(txn, c); err != nil {
			return err
		}
	}
	return nil
}

// treeCounts remembers how many rows of a table a filter picks, for the
// table as it stood when they were counted: a go-memdb index is an
// immutable radix tree whose root, and the root's watch channel, is new
// after every change of the table, so a count found under the channel
// the index has now is the count of its rows now (a restore that swaps
// the whole database brings new roots too). Counting costs a walk of the
// table once per change of it, and a count asked again costs a lookup.
type treeCounts struct {
	mu sync.Mutex
	of map[treeCountKey]int
}

// treeValue remembers one value derived from a table, for the table as it
// stood when it was derived (treeCounts' reasoning, one value).
type treeValue[T any] struct {
	mu    sync.Mutex
	root  <-chan struct{}
	value T
}

// get is the value derived under root, deriving it with walk when the
// table has changed since.
func (v *treeValue[T]) get(root <-chan struct{}, walk func() (T, error)) (T, error) {
	v.mu.Lock()
	if v.root == root && root != nil {
		value := v.value
		v.mu.Unlock()
		return value, nil
	}
	v.mu.Unlock()
	value, err := walk()
	if err != nil {
		return value, err
	}
	v.mu.Lock()
	v.root, v.value = root, value
	v.mu.Unlock()
	return value, nil
}

// treeCountKey is an index's root channel, those of up to two more
// tables the filter reads, and a name for the filter.
type treeCountKey struct {
	root        <-chan struct{}
	also, also2 <-chan struct{}
	key         string
}

// maxTreeCounts bounds the remembered counts; past it they are dropped
// (counts of trees that have changed since stay behind otherwise).
const maxTreeCounts = 64

// count is the count of rows under root and key, counting it with walk
// when it is not remembered.
// also are the root channels of other tables the filter reads (at most
// two), so that the count is found again only while those stand too.
func (c *treeCounts) count(root <-chan struct{}, key string, walk func() (int, error), also ...<-chan struct{}) (int, error) {
	k := treeCountKey{root: root, key: key}
	if len(also) > 0 {
		k.also = also[0]
	}
	if len(also) > 1 {
		k.also2 = also[1]
	}
	c.mu.Lock()
	n, ok := c.of[k]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := walk()
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	if c.of == nil || len(c.of) >= maxTreeCounts {
		c.of = map[treeCountKey]int{}
	}
	c.of[k] = n
	c.mu.Unlock()
	return n, nil
}

// versionMemo remembers a value per key for one version of a table (the
// watch channel of its root), at most max keys: past that the memory
// starts again empty. A value asked for under another version is made
// again by make.
type versionMemo[V any] struct {
	mu  sync.Mutex
	of  map[string]versionMemoEntry[V]
	max int
}

type versionMemoEntry[V any] struct {
	root  <-chan struct{}
	value V
}

// get is key's value for root's version, made by make when not
// remembered.
func (m *versionMemo[V]) get(root <-chan struct{}, key string, make func() (V, error)) (V, error) {
	m.mu.Lock()
	got, hit := m.of[key]
	m.mu.Unlock()
	if hit && got.root == root {
		return got.value, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	m.mu.Lock()
	if m.of == nil || len(m.of) >= m.max {
		m.of = map[string]versionMemoEntry[V]{}
	}
	m.of[key] = versionMemoEntry[V]{root: root, value: v}
	m.mu.Unlock()
	return v, nil
}
