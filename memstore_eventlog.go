package main

// The event log (Airflow's log table).

import (
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

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
// total written, since a try writes two events. The counter is read only
// when the log is empty: a reset raises it to the last row's id before it
// empties the log, and a restore to the highest id restored, so a row is
// never behind it. (Reading it would also cost a trigger that writes its
// event: the counters it has written in the same batch copy their nodes
// again after a read, see Store.write.)
func (s *Store) appendEventLogTxn(txn *memdb.Txn, e *EventLog) error {
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return fmt.Errorf("find the last event log: %w", err)
	}
	var id int64
	if last != nil {
		id = last.(*EventLog).ID
	} else {
		id = counterValue(txn, counterEventLogID)
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
	dropped := int64(-1) // the id dropped last
	for {
		oldest, err := txn.First(tableEventLogs, indexID)
		if err != nil {
			return fmt.Errorf("find the oldest event log: %w", err)
		}
		if dropped >= 0 && oldest != nil && oldest.(*EventLog).ID != dropped+1 {
			// Ids were missing between the one dropped and the new
			// oldest (a restore's): they are no longer in the span.
			if err := addTotalTxn(txn, totalEventLogGaps, -(oldest.(*EventLog).ID - dropped - 1)); err != nil {
				return err
			}
		}
		if oldest == nil || oldest.(*EventLog).ID > id-keep {
			return nil
		}
		if err := txn.Delete(tableEventLogs, oldest); err != nil {
			return fmt.Errorf("drop event log %d: %w", oldest.(*EventLog).ID, err)
		}
		dropped = oldest.(*EventLog).ID
	}
}

// totalEventLogGaps counts the ids missing between the oldest and the
// newest event (zero unless a snapshot restored rows with ids missing:
// the log only ever gains the next id and loses its oldest rows), so
// that the number of events is two lookups (eventLogCountTxn).
const totalEventLogGaps = "event_log_gaps"

// eventLogCountTxn is how many events the log holds: its id span less
// the gaps.
func eventLogCountTxn(txn *memdb.Txn) (int, error) {
	first, err := txn.First(tableEventLogs, indexID)
	if err != nil || first == nil {
		return 0, err
	}
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return 0, err
	}
	return int(last.(*EventLog).ID - first.(*EventLog).ID + 1 - totalTxn(txn, totalEventLogGaps)), nil
}

// recountEventLogGapsTxn sets the gaps from the rows (after a restore).
func recountEventLogGapsTxn(txn *memdb.Txn) error {
	if _, err := txn.DeleteAll(tableTotals, indexID, totalEventLogGaps); err != nil {
		return fmt.Errorf("clear %s: %w", totalEventLogGaps, err)
	}
	it, err := txn.Get(tableEventLogs, indexID)
	if err != nil {
		return fmt.Errorf("count event logs: %w", err)
	}
	var n, first, last int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if n == 0 {
			first = raw.(*EventLog).ID
		}
		last = raw.(*EventLog).ID
		n++
	}
	if n == 0 {
		return nil
	}
	return addTotalTxn(txn, totalEventLogGaps, last-first+1-n)
}

// EventLogPage is a page of the event log in id order (newest first when
// desc) and how many events there are: it walks the id index from one
// end and stops at the page's end, and the total is eventLogCountTxn's.
func (s *Store) EventLogPage(desc bool, offset, limit int) ([]*EventLog, int, error) {
	txn := s.read()
	total, err := eventLogCountTxn(txn)
	if err != nil {
		return nil, 0, fmt.Errorf("count event logs: %w", err)
	}
	get := txn.Get
	if desc {
		get = txn.GetReverse
	}
	it, err := get(tableEventLogs, indexID)
	if err != nil {
		return nil, 0, fmt.Errorf("list event logs: %w", err)
	}
	out, read := walkPage[EventLog](it, offset, limit)
	if s.rowsRead != nil {
		s.rowsRead(read)
	}
	return out, total, nil
}

// EventLogFilteredPage is a page of the events keep picks in id order
// (newest first when desc), and how many it picks: the walk stops at the
// page's end, and the count is remembered under countKey (which names
// keep) for the event log as it stands (tablePage): each new event
// counts again once.
func (s *Store) EventLogFilteredPage(desc bool, offset, limit int, keep func(*EventLog) bool, countKey string) ([]*EventLog, int, error) {
	return tablePage(s, tableEventLogs, indexID, desc, offset, limit, keep, "filter "+countKey)
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
	if _, err := txn.DeleteAll(tableTotals, indexID, totalEventLogGaps); err != nil {
		return fmt.Errorf("clear %s: %w", totalEventLogGaps, err)
	}
	return nil
}

// EventLogs lists the event log by id, oldest first.
func (s *Store) EventLogs() ([]*EventLog, error) {
	all, err := allRows[EventLog](s.read(), tableEventLogs, "event logs")
	if s.rowsRead != nil {
		s.rowsRead(len(all))
	}
	return all, err
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
	mapIndex, try, date := ti.MapIndex, ti.TryNumber, ti.ExecutionDate
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
