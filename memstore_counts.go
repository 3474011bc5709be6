package main

// Derived tables: sums the writes keep over whole tables (totals) and
// per DAG (run counts), so that limits and page totals cost one lookup.

import (
	"fmt"

	memdb "github.com/hashicorp/go-memdb"
)

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
