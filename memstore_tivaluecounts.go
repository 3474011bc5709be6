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

// tiValueCountsTxn is how many task instances of dagIDs (each once, as
// tiOrderTotal gives them) keep picks (nil: every one) have each value
// valueOf gives, summed over the DAGs' counts remembered in memo under
// column and keepKey.
func tiValueCountsTxn[V comparable](txn *memdb.Txn, memo *versionMemo[map[V]int], column string, dagIDs []string,
	valueOf func(RunTaskInstance) V, keep func(RunTaskInstance) bool, keepKey string, read *int) (map[V]int, error) {
	counts := map[V]int{}
	for _, dagID := range dagIDs {
		it, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
		if err != nil {
			return nil, fmt.Errorf("count task instances of %s: %w", dagID, err)
		}
		count := func() (map[V]int, error) {
			of := map[V]int{}
			m := &tiOrderMerge{txn: txn, byID: true}
			defer func() { *read += m.read }()
			if err := m.start([]string{dagID}); err != nil {
				return nil, err
			}
			_, _, err := m.page(0, 0, func(r RunTaskInstance) bool {
				if keep == nil || keep(r) {
					of[valueOf(r)]++
				}
				return false
			}, true)
			return of, err
		}
		var got map[V]int
		if root := it.WatchCh(); root != nil {
			got, err = memo.get(root, column+"\x00"+keepKey+"\x00"+dagID, count)
		} else {
			got, err = count()
		}
		if err != nil {
			return nil, err
		}
		for v, n := range got {
			counts[v] += n
		}
	}
	return counts, nil
}

// TICountsAt is the version of the task-instance rows and the DAGs a
// count of them by value was made for (TIStateCounts, TITryCounts).
type TICountsAt struct {
	root   <-chan struct{}
	dagIDs []string
}

// tiLeadCounts is tiValueCountsTxn in a read of its own, with the
// version it counted; ok is false when a DAG has task instances without
// ids (tiOrderTotal: an edition before 3, which ti_order does not hold).
func tiLeadCounts[V comparable](s *Store, memo *versionMemo[map[V]int], column string, dagIDs []string, valueOf func(RunTaskInstance) V,
	keep func(RunTaskInstance) bool, keepKey string) (counts map[V]int, at TICountsAt, ok bool, err error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	_, ids, ok, err := tiOrderTotal(txn, dagIDs)
	if err != nil || !ok {
		return nil, TICountsAt{}, ok, err
	}
	root, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return nil, TICountsAt{}, false, fmt.Errorf("count task instances: %w", err)
	}
	counts, err = tiValueCountsTxn(txn, memo, column, ids, valueOf, keep, keepKey, &read)
	if err != nil {
		return nil, TICountsAt{}, false, err
	}
	return counts, TICountsAt{root: root.WatchCh(), dagIDs: ids}, true, nil
}

// TILeadValue is a value of a listing's lead key, and whether the next
// key is NULL (Null names it: "" none): the task instances of a value
// whose next key is NULL are where the next key's walk has its NULLs.
type TILeadValue[V comparable] struct {
	Value    V
	NextNull bool
}

// TILeadQuery is a count of task instances by a lead's value (and the
// next key's NULLs).
type TILeadQuery struct {
	// DagIDs are the DAGs whose runs' task instances are counted; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// Null says whether a task instance's next key is NULL; NullName
	// names it (the next key).
	Null     func(RunTaskInstance) bool
	NullName string
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it.
	Keep    func(RunTaskInstance) bool
	KeepKey string
}

// TIStateCounts is how many task instances q picks are in each state
// (TaskNone: none).
func (s *Store) TIStateCounts(q TILeadQuery) (map[TILeadValue[TaskState]]int, TICountsAt, bool, error) {
	return tiLeadCounts(s, &s.tiStateCounts, "state\x00"+q.NullName, q.DagIDs, func(r RunTaskInstance) TILeadValue[TaskState] {
		return TILeadValue[TaskState]{r.TI.State, q.Null(r)}
	}, q.Keep, q.KeepKey)
}

// TITryCounts is how many task instances q picks have each try_number.
func (s *Store) TITryCounts(q TILeadQuery) (map[TILeadValue[int]]int, TICountsAt, bool, error) {
	return tiLeadCounts(s, &s.tiTryCounts, "try_number\x00"+q.NullName, q.DagIDs, func(r RunTaskInstance) TILeadValue[int] {
		return TILeadValue[int]{r.TI.TryNumber, q.Null(r)}
	}, q.Keep, q.KeepKey)
}

// RememberTITotal has the walked pages of the task instances at's count
// was made for take n as the count of those their filter countKey picks
// (filteredTITotal's memory), while the rows stand as they were counted:
// a group of a value, listed with the value as a filter, need not be
// counted again by a walk of every task instance.
func (s *Store) RememberTITotal(at TICountsAt, countKey string, n int) {
	if at.root == nil {
		return
	}
	_, _ = s.counts.count(at.root, tiCountKey(at.dagIDs, countKey), func() (int, error) { return n, nil })
}

// TICountsStand reports whether the task-instance rows are still as at
// counted them: pages read since then in reads of their own read them
// as counted.
func (s *Store) TICountsStand(at TICountsAt) bool {
	root, err := s.read().Get(tableTasks, indexID)
	return err == nil && at.root != nil && root.WatchCh() == at.root
}
