package main

// XCom entries: what tries push, and what templates pull.

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// xcomsTable holds the XCom values tasks pushed, keyed by (dag_id, run_id,
// task_id, key, map_index): map_index last, so that the prefixes of a task
// instance's, a run's and a DAG's entries stay (dag_id, run_id, task_id,
// ""), (dag_id, run_id, "") and (dag_id, ""). A mapped task's instances
// push under their own map_index (scheduler_mapping.go), others under -1.
func xcomsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableXComs,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: oneAlloc[XComEntry]{
				CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
					stringField[XComEntry]{func(x *XComEntry) string { return x.DagID }},
					stringField[XComEntry]{func(x *XComEntry) string { return x.RunID }},
					stringField[XComEntry]{func(x *XComEntry) string { return x.TaskID }},
					keyField[XComEntry]{stringField[XComEntry]{func(x *XComEntry) string { return x.Key }}},
					intField[XComEntry]{func(x *XComEntry) int64 { return int64(x.MapIndex) }}}},
				key: xcomKey,
			}},
			// Airflow's order of a listing (get_xcom_entries: dag_id,
			// task_id, run_id, map_index, key), which a page walks to
			// its end (XComPage); (dag_id, task_id, run_id, map_index)
			// is also one task instance's entries.
			indexXComOrder: {Name: indexXComOrder, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				stringField[XComEntry]{func(x *XComEntry) string { return x.DagID }},
				stringField[XComEntry]{func(x *XComEntry) string { return x.TaskID }},
				stringField[XComEntry]{func(x *XComEntry) string { return x.RunID }},
				intField[XComEntry]{func(x *XComEntry) int64 { return int64(x.MapIndex) }},
				keyField[XComEntry]{stringField[XComEntry]{func(x *XComEntry) string { return x.Key }}}}}},
			// One key's entries in a listing's order (the key first, then
			// dag_id, task_id, run_id, map_index): a page filtered by
			// xcom_key across runs walks them, not the scope's entries
			// of every key to its last match (xcomFilteredPage).
			indexXComKeyOrder: {Name: indexXComKeyOrder, Unique: true, Indexer: oneAlloc[XComEntry]{
				CompoundIndex: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
					keyField[XComEntry]{stringField[XComEntry]{func(x *XComEntry) string { return x.Key }}},
					stringField[XComEntry]{func(x *XComEntry) string { return x.DagID }},
					stringField[XComEntry]{func(x *XComEntry) string { return x.TaskID }},
					stringField[XComEntry]{func(x *XComEntry) string { return x.RunID }},
					intField[XComEntry]{func(x *XComEntry) int64 { return int64(x.MapIndex) }}}},
				key: xcomKeyOrderKey,
			}},
		},
	}
}

// xcomKey is an entry's key in the id index, in one allocation:
// dag_id, run_id, task_id and key each with a NUL, then map_index as
// intField encodes it; none when an id is empty (the key may be).
func xcomKey(x *XComEntry) (bool, []byte) {
	if x.DagID == "" || x.RunID == "" || x.TaskID == "" {
		return false, nil
	}
	k := make([]byte, 0, len(x.DagID)+len(x.RunID)+len(x.TaskID)+len(x.Key)+12)
	k = append(append(append(append(append(append(k, x.DagID...), 0), x.RunID...), 0), x.TaskID...), 0)
	k = append(append(k, x.Key...), 0)
	return true, binary.BigEndian.AppendUint64(k, uint64(int64(x.MapIndex))^(1<<63))
}

// xcomKeyOrderKey is an entry's key in indexXComKeyOrder, in one
// allocation: key, dag_id, task_id and run_id each with a NUL, then
// map_index as intField encodes it; none when an id is empty.
func xcomKeyOrderKey(x *XComEntry) (bool, []byte) {
	if x.DagID == "" || x.RunID == "" || x.TaskID == "" {
		return false, nil
	}
	k := make([]byte, 0, len(x.Key)+len(x.DagID)+len(x.TaskID)+len(x.RunID)+12)
	k = append(append(append(append(append(append(k, x.Key...), 0), x.DagID...), 0), x.TaskID...), 0)
	k = append(append(k, x.RunID...), 0)
	return true, binary.BigEndian.AppendUint64(k, uint64(int64(x.MapIndex))^(1<<63))
}

// indexXComOrder is the XCom table's index in a listing's order.
const indexXComOrder = "order"

// indexXComKeyOrder is the XCom table's index by key, then in a
// listing's order.
const indexXComKeyOrder = "key_order"

// putXComTxn stores one XCom value, replacing the one under the same key
// (which a try cleared when it started, so only a try pushing a key twice
// replaces). A new entry is refused at the XCom limit; a value over the
// size limit always.
func (s *Store) putXComTxn(txn *memdb.Txn, e *XComEntry) error {
	if max := s.limits.XComBytes; max > 0 && len(e.Value) > max {
		return &limitError{limit: limitXComBytes, key: e.Key, adding: int64(len(e.Value)), max: int64(max)}
	}
	old, err := txn.First(tableXComs, indexID, e.DagID, e.RunID, e.TaskID, e.Key, e.MapIndex)
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
		if err := countXComsTxn(txn, e.DagID, e.RunID, e.TaskID, 1); err != nil {
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
// run's, (dag_id, "") for a DAG's, none for all; and keeps their counts,
// at the cost of the entries it removes.
func deleteXComsTxn(txn *memdb.Txn, prefix ...any) error {
	if len(prefix) == 0 {
		for _, table := range []string{tableXComs, tableXComCounts} {
			if _, err := txn.DeleteAll(table, indexID); err != nil {
				return fmt.Errorf("delete %s: %w", table, err)
			}
		}
		_, err := txn.DeleteAll(tableTotals, indexID, totalXComs)
		if err != nil {
			return fmt.Errorf("clear xcom count: %w", err)
		}
		return nil
	}
	it, err := txn.Get(tableXComs, indexID+"_prefix", prefix...)
	if err != nil {
		return fmt.Errorf("list xcom entries %v: %w", prefix, err)
	}
	return deleteXComEntriesTxn(txn, it)
}

// deleteXComsOfTxn removes the XCom entries one task instance pushed:
// those of its task under its map_index, a prefix of the order index.
func deleteXComsOfTxn(txn *memdb.Txn, key tiKey) error {
	it, err := txn.Get(tableXComs, indexXComOrder+"_prefix", key.dagID, key.taskID, key.runID, key.mapIndex)
	if err != nil {
		return fmt.Errorf("list xcom entries of %s: %w", key, err)
	}
	return deleteXComEntriesTxn(txn, it)
}

// deleteXComEntriesTxn removes the entries it walks and takes them from
// the counts.
func deleteXComEntriesTxn(txn *memdb.Txn, it memdb.ResultIterator) error {
	var gone []*XComEntry
	for raw := it.Next(); raw != nil; raw = it.Next() {
		gone = append(gone, raw.(*XComEntry))
	}
	for _, e := range gone {
		if err := txn.Delete(tableXComs, e); err != nil {
			return fmt.Errorf("delete xcom %s of %s/%s/%s: %w", e.Key, e.DagID, e.RunID, e.TaskID, err)
		}
	}
	if err := uncountXComsTxn(txn, gone); err != nil {
		return err
	}
	return addTotalTxn(txn, totalXComs, -int64(len(gone)))
}

// recountXComsTxn rebuilds the XCom counts from the table (after a
// restore): the total, and the counts of each DAG, run and task that
// the pages skip by.
func recountXComsTxn(txn *memdb.Txn) error {
	if err := recountTotalTxn(txn, tableXComs, totalXComs); err != nil {
		return err
	}
	it, err := txn.Get(tableXComs, indexID)
	if err != nil {
		return fmt.Errorf("count xcom entries: %w", err)
	}
	per := map[xcomTask]int{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		e := raw.(*XComEntry)
		per[xcomTask{e.DagID, e.RunID, e.TaskID}]++
	}
	if _, err := txn.DeleteAll(tableXComCounts, indexID); err != nil {
		return fmt.Errorf("clear xcom counts: %w", err)
	}
	for k, c := range per {
		if err := countXComsTxn(txn, k.dagID, k.runID, k.taskID, c); err != nil {
			return err
		}
	}
	return nil
}

// XComFilter picks XCom entries; an empty id matches any, a nil Key
// too (an entry's key may be "").
type XComFilter struct {
	DagID, RunID, TaskID string
	Key                  *string
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
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	for raw := it.Next(); raw != nil; raw = it.Next() {
		read++
		e := raw.(*XComEntry)
		if (f.RunID == "" || e.RunID == f.RunID) && (f.TaskID == "" || e.TaskID == f.TaskID) && (f.Key == nil || e.Key == *f.Key) {
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
		case run.NoLogicalDate && (q.IncludePriorDates || q.ByDate):
			return nil // no logical date to compare
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
func (s *Store) XCom(dagID, runID, taskID, key string, mapIndex int) (*XComEntry, error) {
	raw, err := s.read().First(tableXComs, indexID, dagID, runID, taskID, key, mapIndex)
	if err != nil {
		return nil, fmt.Errorf("look up xcom %s of %s/%s/%s: %w", key, dagID, runID, taskID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*XComEntry), nil
}

// CreateXCom stores a new XCom entry (Airflow 3's create_xcom_entry);
// errConflict when one is there under its key and map index.
func (s *Store) CreateXCom(e *XComEntry) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := txn.First(tableXComs, indexID, e.DagID, e.RunID, e.TaskID, e.Key, e.MapIndex)
		if err != nil {
			return fmt.Errorf("look up xcom %s of %s/%s/%s: %w", e.Key, e.DagID, e.RunID, e.TaskID, err)
		}
		if old != nil {
			return errConflict
		}
		return s.putXComTxn(txn, e)
	})
}

// SetXComValue replaces an XCom entry's value and returns the entry as
// stored (its timestamp kept: Airflow's column has no onupdate);
// errNotFound when there is none.
func (s *Store) SetXComValue(dagID, runID, taskID, key string, mapIndex int, value json.RawMessage) (*XComEntry, error) {
	var out *XComEntry
	err := s.update(func(txn *memdb.Txn) error {
		raw, err := txn.First(tableXComs, indexID, dagID, runID, taskID, key, mapIndex)
		if err != nil {
			return fmt.Errorf("look up xcom %s of %s/%s/%s: %w", key, dagID, runID, taskID, err)
		}
		if raw == nil {
			return errNotFound
		}
		e := *raw.(*XComEntry)
		e.Value = value
		out = &e
		return s.putXComTxn(txn, &e)
	})
	return out, err
}

// DeleteXCom removes one XCom entry; errNotFound when there is none.
func (s *Store) DeleteXCom(dagID, runID, taskID, key string, mapIndex int) error {
	return s.update(func(txn *memdb.Txn) error {
		raw, err := txn.First(tableXComs, indexID, dagID, runID, taskID, key, mapIndex)
		if err != nil {
			return fmt.Errorf("look up xcom %s of %s/%s/%s: %w", key, dagID, runID, taskID, err)
		}
		if raw == nil {
			return errNotFound
		}
		if err := txn.Delete(tableXComs, raw); err != nil {
			return fmt.Errorf("delete xcom %s of %s/%s/%s: %w", key, dagID, runID, taskID, err)
		}
		if err := countXComsTxn(txn, dagID, runID, taskID, -1); err != nil {
			return err
		}
		return addTotalTxn(txn, totalXComs, -1)
	})
}
