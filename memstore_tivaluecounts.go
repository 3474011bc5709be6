package main

// Every run's task instances counted by the value of one of their
// columns (state, try_number, operator), for pages whose order is led by
// it: a page passes the values before it by their counts and picks its
// value's task instances along a walk. Each DAG's counts are made by a
// walk of its part of ti_order once per version of its task-instance
// rows (the watch channel of its prefix of them, which a write of any of
// its runs' task instances replaces) and remembered, so that a write of
// one DAG's task instances has the next page count that DAG's again, not
// every DAG's. No write of their own.

import (
	"fmt"

	memdb "github.com/hashicorp/go-memdb"
)

// maxTIValueCounts bounds the counts remembered (a DAG's, of a column,
// under a filter) in each of Store.tiOperators, tiStateCounts and
// tiTryCounts; past it the memory starts again empty.
const maxTIValueCounts = 4096

// maxTIFilteredCounts bounds the filtered counts remembered (a DAG's,
// under a filter) in Store.tiFilteredOfDAG: an int each, so more of them
// than of the value counts.
const maxTIFilteredCounts = 1 << 16

// tiValueCountsTxn is how many task instances of dagIDs (each once, as
// tiOrderTotal gives them) keep picks (nil: every one) have each value
// valueOf gives, summed over the DAGs' counts remembered in memo under
// column and keepKey.
func tiValueCountsTxn[V comparable](txn *memdb.Txn, memo *versionMemo[map[V]int], column string, dagIDs []string,
	valueOf func(RunTaskInstance) V, keep func(RunTaskInstance) bool, keepKey string, read *int) (map[V]int, error) {
	counts := map[V]int{}
	for _, dagID := range dagIDs {
		got, err := ofDAGTxn(txn, memo, dagID, column+"\x00"+keepKey, func() (map[V]int, error) {
			of := map[V]int{}
			_, err := walkTIsOfDAG(txn, dagID, func(r RunTaskInstance) bool {
				if keep == nil || keep(r) {
					of[valueOf(r)]++
				}
				return false
			}, read)
			return of, err
		})
		if err != nil {
			return nil, err
		}
		for v, n := range got {
			counts[v] += n
		}
	}
	return counts, nil
}

// ofDAGTxn is make's value for a DAG's task instances, remembered in memo
// under key (with the DAG's id) per version of the DAG's task-instance
// rows: the watch channel of its prefix of them, which a write of any of
// its runs' task instances (or a run's delete) replaces, so that a write
// of one DAG's has the next read make that DAG's again, not every DAG's.
func ofDAGTxn[V any](txn *memdb.Txn, memo *versionMemo[V], dagID, key string, make func() (V, error)) (V, error) {
	rows, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
	if err != nil {
		var none V
		return none, fmt.Errorf("read task instances of %s: %w", dagID, err)
	}
	root := rows.WatchCh()
	if root == nil {
		return make()
	}
	return memo.get(root, key+"\x00"+dagID, make)
}

// walkTIsOfDAG walks every task instance of a DAG's runs in ti_order's
// id order, and is how many of them pick picks (pick may gather them
// itself and answer false), counting the rows it reads in read.
func walkTIsOfDAG(txn *memdb.Txn, dagID string, pick func(RunTaskInstance) bool, read *int) (int, error) {
	m := &tiOrderMerge{txn: txn, byID: true}
	defer func() { *read += m.read }()
	if err := m.start([]string{dagID}); err != nil {
		return 0, err
	}
	_, n, err := m.page(0, 0, pick, true)
	return n, err
}

// TILeadValue is a value of a listing's lead key, and whether the next
// key is NULL (always false when no key follows): the task instances of
// a value whose next key is NULL are where the next key's walk has its
// NULLs.
type TILeadValue[V comparable] struct {
	Value    V
	NextNull bool
}
