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

// eventLogDropEvery is how many appends apart the rows that fell out of
// the newest --max-event-logs ids are dropped, all in one go. Until then
// they are hidden: every read starts at the log's floor
// (eventLogFloorTxn), so the log shows what dropping each row at once
// would leave. A drop per append cost a trigger three walks of the id
// index (its last, its first after the insert, and the first again) and a
// delete, each copying the tree's path anew (a read of an index the
// transaction wrote empties its cache of copied nodes): 7.5 % of the v2
// trigger's CPU under load. 256 ids are two hex digits of seqField's key,
// a subtree the drop takes whole.
const (
	eventLogDropEvery  = 256
	eventLogDropDigits = 2 // 16^2 = eventLogDropEvery
)

// appendEventLogTxn stores e under the next id; the rows that fall out
// of the newest --max-event-logs ids are hidden at once and dropped every
// eventLogDropEvery appends, in the same write. e becomes the row: the
// caller hands it over and neither keeps nor changes it after. Only its
// id is set here, at each try of the write (a write may be tried more
// than once; the row of a try that failed was never seen). A copy made
// here cost every logged request an allocation. The next id follows
// the counter, which is the highest id handed out (a reset leaves the
// last row's, a restore raises it to the highest id restored): a lookup
// in the small counters table, which every write changes anyway, instead
// of a walk of the log's index (see Store.write: a read of an index the
// transaction has written copies its nodes again at the next insert).
func (s *Store) appendEventLogTxn(txn *memdb.Txn, e *EventLog) error {
	return s.appendEventLogAtTxn(txn, e, nextEventLogIDTxn(txn))
}

// appendEventLogAtTxn is appendEventLogTxn with the next id read by the
// caller (nextEventLogIDTxn), before it wrote another counter.
func (s *Store) appendEventLogAtTxn(txn *memdb.Txn, e *EventLog, id int64) error {
	e.ID = id
	if err := txn.Insert(tableEventLogs, e); err != nil {
		return fmt.Errorf("store event log %d: %w", id, err)
	}
	if err := txn.Insert(tableCounters, &counter{Name: counterEventLogID, Value: id}); err != nil {
		return fmt.Errorf("bump counter %s: %w", counterEventLogID, err)
	}
	keep := int64(s.limits.EventLogs)
	if floor := id - keep + 1; keep <= 0 || floor <= 0 || floor%eventLogDropEvery != 0 {
		return nil
	}
	return dropEventLogsTxn(txn, id-keep+1)
}

// nextEventLogIDTxn is the id the next event gets.
func nextEventLogIDTxn(txn *memdb.Txn) int64 { return counterValue(txn, counterEventLogID) + 1 }

// dropEventLogsTxn drops every row under the id floor: those of the last
// eventLogDropEvery appends, and any a lower --max-event-logs or a restore
// left under it. The ids missing among the dropped ones leave the gaps'
// count, as they leave the span eventLogCountTxn counts.
func dropEventLogsTxn(txn *memdb.Txn, floor int64) error {
	it, err := txn.Get(tableEventLogs, indexID)
	if err != nil {
		return fmt.Errorf("find the oldest event logs: %w", err)
	}
	var old []*EventLog
	next := floor // the first id kept
	for raw := it.Next(); raw != nil; raw = it.Next() {
		e := raw.(*EventLog)
		if e.ID >= floor {
			next = e.ID
			break
		}
		old = append(old, e)
	}
	if len(old) == 0 {
		return nil
	}
	// By blocks of eventLogDropEvery ids, each a subtree of the index
	// that go-memdb drops whole: every row under the floor is in a block
	// wholly under it, the floor being a multiple of eventLogDropEvery.
	for i, e := range old {
		if i > 0 && e.ID/eventLogDropEvery == old[i-1].ID/eventLogDropEvery {
			continue
		}
		if _, err := txn.DeletePrefix(tableEventLogs, indexID+"_prefix", seqPrefix(e.ID, eventLogDropDigits)); err != nil {
			return fmt.Errorf("drop event logs from %d: %w", e.ID, err)
		}
	}
	return addTotalTxn(txn, totalEventLogGaps, -(next - old[0].ID - int64(len(old))))
}

// eventLogFloorTxn is the lowest id the log shows: the rows under it
// have fallen out of the newest keep ids (--max-event-logs; 0 keeps
// every row) and wait for their drop (eventLogDropEvery).
func eventLogFloorTxn(txn *memdb.Txn, keep int) (int64, error) {
	if keep <= 0 {
		return 0, nil
	}
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return 0, fmt.Errorf("find the last event log: %w", err)
	}
	if last == nil {
		return 0, nil
	}
	return max(last.(*EventLog).ID-int64(keep)+1, 0), nil
}

// eventLogsFromTxn walks the log by id from the floor up.
func eventLogsFromTxn(txn *memdb.Txn, keep int) (memdb.ResultIterator, error) {
	floor, err := eventLogFloorTxn(txn, keep)
	if err != nil {
		return nil, err
	}
	it, err := txn.LowerBound(tableEventLogs, indexID, floor)
	if err != nil {
		return nil, fmt.Errorf("list event logs: %w", err)
	}
	return it, nil
}

// eventLogsDownTo walks the log by id from the newest down to floor.
type eventLogsDownTo struct {
	memdb.ResultIterator
	floor int64
}

func (w eventLogsDownTo) Next() any {
	raw := w.ResultIterator.Next()
	if raw == nil || raw.(*EventLog).ID < w.floor {
		return nil
	}
	return raw
}

// totalEventLogGaps counts the ids missing between the oldest and the
// newest event (zero unless a snapshot restored rows with ids missing:
// the log only ever gains the next id and loses its oldest rows), so
// that the number of events is two lookups (eventLogCountTxn).
const totalEventLogGaps = "event_log_gaps"

// eventLogCountTxn is how many events the log shows (from the floor,
// eventLogFloorTxn): its id span less the gaps, less the rows under the
// floor that wait for their drop (their span when there are no gaps, else
// counted: at most eventLogDropEvery of them, unless a lower
// --max-event-logs or a restore left more until the next drop).
func eventLogCountTxn(txn *memdb.Txn, keep int) (int, error) {
	first, err := txn.First(tableEventLogs, indexID)
	if err != nil || first == nil {
		return 0, err
	}
	last, err := txn.Last(tableEventLogs, indexID)
	if err != nil {
		return 0, err
	}
	lo, hi := first.(*EventLog).ID, last.(*EventLog).ID
	gaps := totalTxn(txn, totalEventLogGaps)
	n := hi - lo + 1 - gaps
	floor := lo
	if keep > 0 {
		floor = max(hi-int64(keep)+1, lo)
	}
	switch {
	case floor == lo:
	case gaps == 0:
		n -= floor - lo
	default:
		it, err := txn.Get(tableEventLogs, indexID)
		if err != nil {
			return 0, err
		}
		for raw := it.Next(); raw != nil && raw.(*EventLog).ID < floor; raw = it.Next() {
			n--
		}
	}
	return int(n), nil
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
	total, err := eventLogCountTxn(txn, s.limits.EventLogs)
	if err != nil {
		return nil, 0, fmt.Errorf("count event logs: %w", err)
	}
	var it memdb.ResultIterator
	if desc {
		floor, err := eventLogFloorTxn(txn, s.limits.EventLogs)
		if err != nil {
			return nil, 0, err
		}
		down, err := txn.GetReverse(tableEventLogs, indexID)
		if err != nil {
			return nil, 0, fmt.Errorf("list event logs: %w", err)
		}
		it = eventLogsDownTo{down, floor}
	} else if it, err = eventLogsFromTxn(txn, s.limits.EventLogs); err != nil {
		return nil, 0, err
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
// Rows under the log's floor wait for their drop (eventLogDropEvery) and
// are not shown: the floor joins the filter and the count's key.
func (s *Store) EventLogFilteredPage(desc bool, offset, limit int, keep func(*EventLog) bool, countKey string) ([]*EventLog, int, error) {
	floor, err := eventLogFloorTxn(s.read(), s.limits.EventLogs)
	if err != nil {
		return nil, 0, err
	}
	shown := keep
	if floor > 0 {
		shown = func(e *EventLog) bool { return e.ID >= floor && keep(e) }
	}
	return tablePage(s, tableEventLogs, indexID, desc, offset, limit, shown, fmt.Sprintf("filter %s from %d", countKey, floor))
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
	it, err := eventLogsFromTxn(s.read(), s.limits.EventLogs)
	if err != nil {
		return nil, err
	}
	out := []*EventLog{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*EventLog))
	}
	if s.rowsRead != nil {
		s.rowsRead(len(out))
	}
	return out, nil
}

// EventLogByID is one event; errNotFound when the log has none by that id.
func (s *Store) EventLogByID(id int64) (*EventLog, error) {
	txn := s.read()
	floor, err := eventLogFloorTxn(txn, s.limits.EventLogs)
	if err != nil {
		return nil, err
	}
	if id < floor {
		return nil, errNotFound // fallen out, waiting for its drop
	}
	raw, err := txn.First(tableEventLogs, indexID, id)
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
