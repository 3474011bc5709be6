package main

// Tries: launching and finishing one, the process it ran, orphans, and
// what a try leaves (lineage, captured output, the earlier tries).

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// lineageTable holds the inlets and outlets of finished tasks, keyed like
// task instances.
func lineageTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableLineage,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: runKeyIndexes(
				func(l *LineageRecord) string { return l.DagID }, func(l *LineageRecord) string { return l.RunID },
				func(l *LineageRecord) string { return l.TaskID }, func(l *LineageRecord) int { return l.MapIndex })},
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
				func(l *TaskLog) string { return l.TaskID }, func(l *TaskLog) int { return l.MapIndex })},
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
				func(h *TaskInstanceHistory) string { return h.TaskID }, func(h *TaskInstanceHistory) int { return h.MapIndex })},
		},
	}
}

// taskInstanceTables are the tables whose rows belong to one task
// instance, keyed (dag_id, run_id, task_id, map_index): they go with
// their run.
var taskInstanceTables = []string{tableLineage, tableTaskLogs, tableTryHistory}

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

// TaskLogsOfRun returns the captured output of a run's task instances of
// map_index -1, by task_id (TaskLogOf finds an expanded instance's).
func (s *Store) TaskLogsOfRun(dagID, runID string) (map[string]*TaskLog, error) {
	it, err := s.read().Get(tableTaskLogs, indexID+"_prefix", dagID, runID, "")
	if err != nil {
		return nil, fmt.Errorf("list task logs of %s/%s: %w", dagID, runID, err)
	}
	logs := map[string]*TaskLog{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if l := raw.(*TaskLog); l.MapIndex == -1 {
			logs[l.TaskID] = l
		}
	}
	return logs, nil
}

// TaskLogOf returns the captured output of one task instance's tries
// (nil: none yet).
func (s *Store) TaskLogOf(key tiKey) (*TaskLog, error) {
	raw, err := s.read().First(tableTaskLogs, indexID, key.dagID, key.runID, key.taskID, mapIndexArg(key.mapIndex))
	if err != nil || raw == nil {
		return nil, err
	}
	return raw.(*TaskLog), nil
}

// LaunchTry stores what start returns for a scheduled task instance of a
// running run: the task instance as its try begins (running, or already
// finished), or nil to leave it scheduled. A task instance that is gone
// or no longer scheduled is left alone, so that no try starts twice.
func (s *Store) LaunchTry(key tiKey, start func(v storeView, run *DagRun, ti *TaskInstance) (*TaskInstance, error)) error {
	return s.update(func(txn *memdb.Txn) error {
		ti, err := taskInstanceAtTxn(txn, key)
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
			if err := deleteXComsOfTxn(txn, key); err != nil {
				return err
			}
		}
		if err := putRunTaskInstancesTxn(txn, run, next); err != nil {
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
	// AliasEvents are the events the try added through aliases
	// (outlet_events[AssetAlias(...)].add), recorded when it succeeded.
	AliasEvents []aliasEvent
	// OutletExtras are the extras of the outlet assets' events, by asset
	// name and uri (outlet_events[asset].extra); none: {}.
	OutletExtras map[string]json.RawMessage
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
		stored, err := taskInstanceAtTxn(txn, key)
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
		// A try followed by a retry joins the history, as Airflow's
		// handle_failure records it before up_for_retry, with the id it
		// ran under; the task instance takes a new id for its next try.
		// endTry dates every try it ends, on the scheduler's clock.
		if res.TI.State == TaskUpForRetry && res.TI.EndDate != nil {
			if err := recordTryTxn(txn, res.TI, *res.TI.EndDate); err != nil {
				return err
			}
			next := *res.TI
			nextTryID(&next)
			res.TI = &next
		}
		if err := putRunTaskInstancesTxn(txn, run, res.TI); err != nil {
			return err
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
		at := time.Now().UTC()
		if res.TI.EndDate != nil {
			at = *res.TI.EndDate
		}
		if res.Lineage != nil {
			if err := txn.Insert(tableLineage, res.Lineage); err != nil {
				return fmt.Errorf("store lineage of %s: %w", key, err)
			}
			// A successful task's asset outlets are changes of those
			// assets (memstore_assets.go).
			if err := recordLineageEventsTxn(txn, res.TI, res.Lineage, res.OutletExtras, at); err != nil {
				return err
			}
		}
		if err := recordAliasEventsTxn(txn, res.TI, res.AliasEvents, at); err != nil {
			return err
		}
		for _, x := range res.XComs {
			mapIndex := -1
			if x.MapIndex != nil {
				mapIndex = *x.MapIndex
			}
			if key.mapIndex >= 0 {
				mapIndex = key.mapIndex // an expanded instance pushes under its own
			}
			e := &XComEntry{DagID: key.dagID, RunID: key.runID, TaskID: key.taskID, RunRowID: run.ID,
				MapIndex: mapIndex, Key: x.Key, Value: x.Value, Timestamp: at, MapLength: x.MapLength}
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
		stored, err := taskInstanceAtTxn(txn, key)
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
				recs = append(recs, taskProcessRecord{Key: ti.key(), PID: *ti.PID, Identity: ti.ProcIdentity})
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
			key := old.key()
			ti, try := decide(storeView{txn}, old)
			if ti == nil {
				continue
			}
			if old.State == TaskRunning && (ti.State == TaskNone || ti.State == TaskUpForRetry) {
				if err := recordTryTxn(txn, old, now); err != nil {
					return fmt.Errorf("record orphaned try %s: %w", key, err)
				}
				if ti.ID == old.ID {
					next := *ti
					nextTryID(&next)
					ti = &next
				}
			}
			if err := putTaskInstancesTxn(txn, ti); err != nil {
				return fmt.Errorf("reset orphaned task %s: %w", key, err)
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
	hist := &TaskInstanceHistory{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID, MapIndex: ti.MapIndex}
	raw, err := txn.First(tableTryHistory, indexID, ti.DagID, ti.RunID, ti.TaskID, mapIndexArg(ti.MapIndex))
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
func (s *Store) EarlierTries(dagID, runID, taskID string, mapIndex int) ([]*TaskInstance, int, error) {
	raw, err := s.read().First(tableTryHistory, indexID, dagID, runID, taskID, mapIndexArg(mapIndex))
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
	log := &TaskLog{DagID: key.dagID, RunID: key.runID, TaskID: key.taskID, MapIndex: key.mapIndex}
	raw, err := txn.First(tableTaskLogs, indexID, key.dagID, key.runID, key.taskID, mapIndexArg(key.mapIndex))
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
