package main

// DAG runs: the table, lookups in date order, creating a run with its
// task instances, and the intents that move a run through its states.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Typed accessors for the indexes (see memstore_indexers.go).
var (
	runDagID = stringField[DagRun]{func(r *DagRun) string { return r.DagID }}
	runRowID = seqField[DagRun]{func(r *DagRun) int64 { return r.ID }}
)

// dagRunsTable holds runs keyed by (dag_id, run_id), and found by
// (dag_id, run_after) in run_after order (runOrderIndex), by
// (dag_id, integer id) in id order (the stable API's default order: a page
// reads its rows alone; ids are never reused), and, while unfinished, by
// (state, dag_id): a prefix query on the state alone lists every run in a
// state, the full key one DAG's. A run is found by its logical date in the
// run_after index when the two are the same (every run of editions 1.10
// and 2: its key there is (dag_id, date) alone), else in the (dag_id,
// logical date) index, which holds only the runs whose logical date
// differs from their run_after (runByDateTxn, runDateIndex): runs
// without a logical date are in neither, so they never collide, as
// Airflow 3's nullable logical_date under dag_run_dag_id_logical_date_key
// (airflow-core/src/airflow/models/dagrun.py, DagRun.__table_args__).
// Every index costs each trigger a radix-tree insert (about 60 allocations
// and 4 KB), so the one state index serves both state questions, a run of
// editions 1.10 and 2 costs no entry in the logical-date index, and every
// DAG's runs in id order merge the DAGs' walks of the (dag_id, id) index
// (runMerge) instead of keeping an index of their own.
func dagRunsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDagRuns,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringPairIndex(
				func(r *DagRun) string { return r.DagID }, func(r *DagRun) string { return r.RunID })},
			indexDagAfter: {Name: indexDagAfter, Unique: true, Indexer: runOrderIndex{}},
			indexDagDate:  {Name: indexDagDate, Unique: true, AllowMissing: true, Indexer: runDateIndex{}},
			indexDagRow:   {Name: indexDagRow, Unique: true, Indexer: runRowIndex()},
			indexState:    {Name: indexState, AllowMissing: true, Indexer: runStateIndex()},
		},
	}
}

// putRunTxn stores a changed copy of a run, and keeps its DAG's counts
// (its state, conf and type count: a run a backfill takes over becomes
// a backfill run).
func putRunTxn(txn *memdb.Txn, old, next *DagRun) error {
	if err := txn.Insert(tableDagRuns, next); err != nil {
		return fmt.Errorf("store run %s of %s: %w", next.RunID, next.DagID, err)
	}
	if err := markRunTxn(txn, old, next); err != nil {
		return err
	}
	if err := settleTIStartsTxn(txn, old, next); err != nil {
		return err
	}
	if old.State == next.State && bytes.Equal(old.Conf, next.Conf) && old.ExternalTrigger == next.ExternalTrigger && old.RunType == next.RunType {
		return nil
	}
	return moveRunCountTxn(txn, old, next)
}

// deleteRunTxn removes one run row and its task instances, and takes them
// from its DAG's counts; what other tables hold of it goes as forgetRunTxn
// says.
func deleteRunTxn(txn *memdb.Txn, run *DagRun) error {
	if err := txn.Delete(tableDagRuns, run); err != nil {
		return fmt.Errorf("delete run %s of %s: %w", run.RunID, run.DagID, err)
	}
	if err := markRunTxn(txn, run, nil); err != nil {
		return err
	}
	if err := settleTIStartsTxn(txn, run, nil); err != nil {
		return err
	}
	if err := forgetRunTxn(txn, run); err != nil {
		return err
	}
	row, err := runTasksTxn(txn, run.DagID, run.RunID)
	if err != nil {
		return err
	}
	tis, ordered := 0, 0
	if row != nil {
		tis = len(row.TIs)
		if err := txn.Delete(tableTasks, row); err != nil {
			return fmt.Errorf("delete task instances of %s/%s: %w", run.DagID, run.RunID, err)
		}
		delta, err := reorderTIsTxn(txn, row.TIs, nil)
		if err != nil {
			return err
		}
		ordered = -delta
	}
	return countRunTxn(txn, run, -1, tis, ordered)
}

// forgetRunTxn removes what refers to a run that goes from the tables
// of other things: the record of the asset events it consumed, as
// Airflow's dagrun_asset_event rows cascade from the run's
// (dagrun_asset_event_dag_run_id_fkey ON DELETE CASCADE), and the
// backfill links that name it, which stay in their backfill's record
// naming no run (models/backfill.py BackfillDagRun: bdr_dag_run_fkey
// ON DELETE SET NULL). It reads those rows only.
func forgetRunTxn(txn *memdb.Txn, run *DagRun) error {
	if _, err := txn.DeleteAll(tableConsumedEvents, indexID, run.ID); err != nil {
		return fmt.Errorf("delete the consumed events of %s/%s: %w", run.DagID, run.RunID, err)
	}
	it, err := txn.Get(tableBackfillRuns, indexBackfillRun, run.DagID+"\x00"+run.RunID)
	if err != nil {
		return fmt.Errorf("look up the backfill links of %s/%s: %w", run.DagID, run.RunID, err)
	}
	return unlinkBackfillRunsTxn(txn, it)
}

// unlinkBackfillRunsTxn makes the backfill links it walks name no run.
func unlinkBackfillRunsTxn(txn *memdb.Txn, it memdb.ResultIterator) error {
	var links []*BackfillDagRun
	for raw := it.Next(); raw != nil; raw = it.Next() {
		links = append(links, raw.(*BackfillDagRun))
	}
	for _, l := range links {
		unlinked := *l
		unlinked.RunID = ""
		if err := txn.Insert(tableBackfillRuns, &unlinked); err != nil {
			return fmt.Errorf("unlink backfill run %d: %w", l.ID, err)
		}
	}
	return nil
}

// forgetRunsOfTxn is forgetRunTxn for every run of a DAG ("": of every
// DAG, whose consumed events and backfill links go or unlink whole).
func forgetRunsOfTxn(txn *memdb.Txn, dagID string) error {
	if dagID == "" {
		if _, err := txn.DeleteAll(tableConsumedEvents, indexID); err != nil {
			return fmt.Errorf("delete consumed events: %w", err)
		}
		it, err := txn.Get(tableBackfillRuns, indexBackfillRun)
		if err != nil {
			return fmt.Errorf("list backfill links: %w", err)
		}
		return unlinkBackfillRunsTxn(txn, it)
	}
	it, err := runsUpTxn(txn, dagID)
	if err != nil {
		return fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	var runs []*DagRun
	for raw := it.Next(); raw != nil; raw = it.Next() {
		runs = append(runs, raw.(*DagRun))
	}
	for _, run := range runs {
		if err := forgetRunTxn(txn, run); err != nil {
			return err
		}
	}
	return nil
}

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
	it, err := runsUpTxn(txn, dagID)
	if err != nil {
		return fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	var finished []*DagRun // oldest run_after first
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

// RunByDate returns the run of a DAG at an instant, or errNotFound.
func (s *Store) RunByDate(dagID string, date time.Time) (*DagRun, error) {
	return runByDateTxn(s.read(), dagID, date)
}

// runByDateTxn finds a run by its logical date: among the runs whose
// run_after it is (every run of editions 1.10 and 2), the one whose
// logical date it is too, else in the index of the others' logical dates.
func runByDateTxn(txn *memdb.Txn, dagID string, date time.Time) (*DagRun, error) {
	key := []any{dagID, date} // boxed once for both lookups
	raw, err := txn.First(tableDagRuns, indexDagAfter, key...)
	if err != nil {
		return nil, fmt.Errorf("look up run of %s at %s: %w", dagID, isoFormat(date), err)
	}
	if raw != nil {
		return raw.(*DagRun), nil
	}
	raw, err = txn.First(tableDagRuns, indexDagDate, key...)
	if err != nil {
		return nil, fmt.Errorf("look up run of %s at %s: %w", dagID, isoFormat(date), err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagRun), nil
}

// endOfTime is after every time a run may hold: Python's datetime.max.
var endOfTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)

// runsUpTxn walks a DAG's runs by run_after, the earliest first.
func runsUpTxn(txn *memdb.Txn, dagID string) (memdb.ResultIterator, error) {
	return txn.Get(tableDagRuns, indexDagAfter+"_prefix", dagID, nil)
}

// runsDownTxn walks a DAG's runs by run_after from the latest at or
// before upTo down; the walk runs on past the DAG's runs, so readers stop
// at the first run of another DAG.
func runsDownTxn(txn *memdb.Txn, dagID string, upTo time.Time) (memdb.ResultIterator, error) {
	return txn.ReverseLowerBound(tableDagRuns, indexDagAfter, dagID, upTo, int64(1<<63-1))
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

// RunsOfDag lists a DAG's runs by run_after (the execution date before
// Airflow 3); state "" lists all.
func (s *Store) RunsOfDag(dagID string, state RunState) ([]*DagRun, error) {
	it, err := runsUpTxn(s.read(), dagID)
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

// LatestRunByID is a DAG's run of the highest id, started or not (the
// run Airflow 3's DAG list joins as the last run: c57fba0e
// api_fastapi/common/db/dags.py generate_dag_with_latest_run_query takes
// max(dag_run.id) per DAG, a queued run without a start date included
// since apache/airflow#52668), nil when the DAG has none. It reads that
// one run.
func (s *Store) LatestRunByID(dagID string) (*DagRun, error) {
	it, err := dagRunsByID(s.read(), dagID, true)
	if err != nil {
		return nil, fmt.Errorf("find the latest run of %s: %w", dagID, err)
	}
	raw := it.Next()
	if s.rowsRead != nil && raw != nil {
		s.rowsRead(1)
	}
	if run, ok := raw.(*DagRun); ok && run.DagID == dagID {
		return run, nil
	}
	return nil, nil
}

// RecentRuns lists a DAG's last n runs by run_after, oldest first,
// reading only those.
func (s *Store) RecentRuns(dagID string, n int) ([]*DagRun, error) {
	it, err := runsDownTxn(s.read(), dagID, endOfTime)
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
// run_after, by dag_id.
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
	it, err := runsDownTxn(txn, dagID, endOfTime)
	if err != nil {
		return nil, fmt.Errorf("find latest run of %s: %w", dagID, err)
	}
	raw := it.Next()
	if raw == nil || raw.(*DagRun).DagID != dagID {
		return nil, errNotFound
	}
	return raw.(*DagRun), nil
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
	// tiIDs: each task instance gets a UUID (TaskInstance.ID) when it is
	// created, and a new one for each next try (Airflow 3).
	tiIDs bool
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
		DagID: dagID, RunID: runID, TaskID: t.TaskID, MapIndex: -1, ExecutionDate: date,
		MaxTries: t.Retries, Pool: t.Pool, PoolSlots: t.PoolSlots, Queue: t.Queue,
		PriorityWeight: t.TotalWeight, Operator: t.Operator, Unixname: unixname,
	}
	if rs.tiUpdatedAt {
		ti.UpdatedAt = &now
	}
	if rs.tiIDs {
		ti.ID = newTaskInstanceID()
	}
	return ti
}

// newTaskInstanceID is a new task instance id: a version 7 UUID, as
// Airflow 3's uuid7() (airflow-core/src/airflow/models/taskinstance.py,
// TaskInstance.id default), in the canonical hyphenated form
// (uuid7Source).
func newTaskInstanceID() string {
	var id [1]string
	taskInstanceIDs.fill(id[:])
	return id[0]
}

// nextTryID gives ti a new id for its next try when it has one: the try
// that ended keeps the old one, in the history.
func nextTryID(ti *TaskInstance) {
	if ti.ID != "" {
		ti.ID = newTaskInstanceID()
	}
}

// isBackfill reports whether runID names a backfill run, whose tasks the
// scheduler never schedules.
func (rs runStart) isBackfill(runID string) bool {
	return rs.backfillPrefix != "" && strings.HasPrefix(runID, rs.backfillPrefix)
}

// newRun describes a run to create with insertRunTreeTxn.
type newRun struct {
	start runStart
	dag   *DAG
	runID string
	date  time.Time // the logical date, UTC
	// noDate makes a run without a logical date (date is then unused),
	// and runAfter is its run_after when it is not the logical date;
	// zero: the logical date. Every edition before 3 gives a date alone.
	noDate   bool
	runAfter time.Time
	conf     json.RawMessage
	now      time.Time
	unixname string
	external bool // triggered through the API rather than by the schedule
	// runType is the run's type; "": inferred from the run id's prefix
	// (Airflow 1.10 and 2). Airflow 3 names it when it creates the run.
	runType string
	// triggeredBy, user and partitionKey are Airflow 3's triggered_by,
	// triggering_user_name and partition_key; "" and nil: none.
	triggeredBy  string
	user         *string
	partitionKey *string
	// note and interval are what the stable API's POST may give the run
	// (not its sub-DAGs' runs); nil: none.
	note     *string
	interval *dataInterval
	// event is the stable API's record of the trigger (api.post_dag_run),
	// stored in the same write as the run; nil: none.
	event *EventLog
	// dateChecked says that the plan found no run of the DAG at date in
	// the same transaction (the trigger's runExists), so that the insert
	// does not look again; sub-DAGs' runs are looked for all the same.
	dateChecked bool
	// startedAtCreation sets start_date at creation beside queued_at, as
	// Airflow 3's backfill runs have it (models/backfill.py
	// _create_backfill_dag_run: start_date=utcnow(); the scheduler sets
	// it again when the run starts).
	startedAtCreation bool
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
	// The event's id is read before nextIDTxn writes the run's counter
	// (see Store.write: a read of a table the transaction has written
	// copies its nodes again at the next write).
	var eventID int64
	if nr.event != nil {
		eventID = nextEventLogIDTxn(txn)
	}
	// A run without a logical date starts at its run_after; a logical
	// date stays unique among the DAG's runs.
	date, runAfter := nr.date, nr.runAfter
	switch {
	case nr.noDate && runAfter.IsZero():
		return nil, fmt.Errorf("insert run %s of %s: no logical date and no run_after", nr.runID, nr.dag.DagID)
	case nr.noDate:
		date = time.Time{}
	case runAfter.Equal(date):
		runAfter = time.Time{}
	}
	if !nr.noDate && !nr.dateChecked {
		if _, err := runByDateTxn(txn, nr.dag.DagID, date); err == nil {
			return nil, &existsError{what: "run of " + nr.dag.DagID + " at", id: isoFormat(date)}
		} else if !errors.Is(err, errNotFound) {
			return nil, err
		}
	}
	id, err := s.nextIDTxn(txn, counterRunID)
	if err != nil {
		return nil, err
	}
	if nr.event != nil {
		if err := s.appendEventLogAtTxn(txn, nr.event, eventID); err != nil {
			return nil, err
		}
	}
	// The run's dates it keeps by pointer, made in one block when it has
	// an interval: each was an allocation, and an object every collection
	// marks as long as the run lives. No row is written once stored, so
	// the pointers may share a block.
	var nowAt *time.Time
	var interval *[3]time.Time
	if nr.interval != nil {
		interval = &[3]time.Time{nr.now, nr.interval.start, nr.interval.end}
		nowAt = &interval[0]
	} else {
		now := nr.now
		nowAt = &now
	}
	run := &DagRun{
		ID: id, DagID: nr.dag.DagID, RunID: nr.runID, ExecutionDate: date, NoLogicalDate: nr.noDate, RunAfter: runAfter,
		State: nr.start.state, Conf: nr.conf, ExternalTrigger: nr.external, RunType: nr.runType,
		UpdatedAt: nowAt, Note: nr.note, TriggeredBy: nr.triggeredBy, TriggeringUser: nr.user, PartitionKey: nr.partitionKey,
	}
	if run.RunType == "" {
		run.RunType = runTypeOf(nr.runID)
	}
	// A task's start and end dates admit a run by its logical date, or,
	// without one, by its run_after.
	admitAt := run.ExecutionDate
	if nr.noDate {
		admitAt = runAfter
	}
	if interval != nil {
		run.DataIntervalStart, run.DataIntervalEnd = &interval[1], &interval[2]
	}
	if nr.start.startDate {
		run.StartDate = nowAt
	} else {
		run.QueuedAt = nowAt
	}
	if nr.startedAtCreation {
		run.StartDate = nowAt
	}
	// The run and its task instances record the DAG's version as it is
	// (memstore_dagversions.go).
	if v, err := latestVersionTxn(txn, nr.dag.DagID); err != nil {
		return nil, err
	} else if v != nil {
		run.DagVersionID = v.ID
	}
	if err := txn.Insert(tableDagRuns, run); err != nil {
		return nil, fmt.Errorf("insert run %s of %s: %w", nr.runID, nr.dag.DagID, err)
	}
	if err := markRunTxn(txn, nil, run); err != nil { // a new run is not settled: no read
		return nil, err
	}
	tiCount, ordered := 0, 0
	var block *tiOrderRow
	if len(nr.dag.Tasks) > 0 {
		// One allocation for all of the run's task instances.
		tis := make([]TaskInstance, len(nr.dag.Tasks))
		row := &runTasks{DagID: nr.dag.DagID, RunID: nr.runID, TIs: make([]*TaskInstance, 0, len(tis))}
		start := nr.start
		start.tiIDs = false // made below, all in one go
		for i, t := range nr.dag.Tasks {
			if !start.hasTask(t, nr.runID, admitAt) {
				continue
			}
			tis[i] = start.taskInstance(t, nr.dag.DagID, nr.runID, date, nr.now, nr.unixname)
			tis[i].DagVersionID = run.DagVersionID
			row.TIs = append(row.TIs, &tis[i])
		}
		if nr.start.tiIDs {
			var small [16]string
			ids := small[:0]
			if len(row.TIs) > len(small) {
				ids = make([]string, 0, len(row.TIs))
			}
			ids = ids[:len(row.TIs)]
			taskInstanceIDs.fill(ids)
			for i, ti := range row.TIs {
				ti.ID = ids[i]
			}
			// Ids made in one go have no other id among them
			// (uuid7Source hands out one id after another, under its
			// lock) and lie past every id stored, unless a restore
			// brought ids ahead of the source: the run's task
			// instances, all of map_index -1, are then one block of
			// the default orders, which waits in the DAG's run count
			// (pendBlockTxn); else reorderTIsTxn places them.
			if len(ids) > 0 && !s.aheadTIIDs.Load() {
				block = &tiOrderRow{MapIndex: -1, Lo: ids[0], Hi: ids[len(ids)-1], N: len(ids), DagID: nr.dag.DagID, RunID: nr.runID}
			}
		}
		slices.SortFunc(row.TIs, func(a, b *TaskInstance) int { return strings.Compare(a.TaskID, b.TaskID) })
		if err := txn.Insert(tableTasks, row); err != nil {
			return nil, fmt.Errorf("insert tasks of %s/%s: %w", nr.dag.DagID, nr.runID, err)
		}
		tiCount = len(row.TIs)
		if block != nil {
			ordered = block.N
		} else if ordered, err = reorderTIsTxn(txn, nil, row.TIs); err != nil {
			return nil, err
		}
	}
	if err := countNewRunTxn(txn, run, 1, tiCount, ordered, block); err != nil {
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
		if _, err := runByDateTxn(txn, childID, nr.date); err == nil && !nr.noDate {
			return nil, &subDagRunExists{childID: childID, date: nr.date}
		}
		childRun := nr
		childRun.dag = child.Def
		childRun.note, childRun.interval, childRun.event, childRun.dateChecked = nil, nil, nil, false
		childRun.partitionKey = nil
		if _, err := s.insertRunTreeTxn(txn, childRun); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// enforceConfLimitTxn refuses a run whose conf of n bytes would bring
// the confs of every run past max bytes (--max-conf-bytes-total). The sum
// is kept by the writes (allDAGs' run count): one lookup.
func enforceConfLimitTxn(txn *memdb.Txn, n int, max int64) error {
	if max <= 0 || n == 0 {
		return nil
	}
	total := confBytesTxn(txn)
	if total+int64(n) <= max {
		return nil
	}
	return &limitError{limit: limitConfBytesTotal, have: total, adding: int64(n), max: max}
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
		if err := forgetRunsOfTxn(txn, dagID); err != nil {
			return err
		}
		xcomsOf := []any{dagID, ""}
		if dagID == "" {
			xcomsOf = nil
		}
		if err := deleteXComsTxn(txn, xcomsOf...); err != nil {
			return err
		}
		if err := deleteTIOrderTxn(txn, dagID); err != nil {
			return err
		}
		if err := deleteMarksOfTxn(txn, dagID); err != nil {
			return err
		}
		for _, table := range append([]string{tableDagRuns, tableTasks}, taskInstanceTables...) {
			var err error
			switch {
			case dagID == "":
				_, err = txn.DeleteAll(table, indexID)
			case table == tableDagRuns:
				_, err = txn.DeleteAll(table, indexDagAfter+"_prefix", dagID, nil)
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
		if err := putRunTaskInstancesTxn(txn, run, adv.Tasks...); err != nil {
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
				stopped = append(stopped, ti.key())
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

// LastRunDate is the logical date of a DAG's latest run of kind, or nil
// (the APIs' next_dagrun starts from it).
func (s *Store) LastRunDate(dagID string, kind lastRunKind) (*time.Time, error) {
	return storeView{s.read()}.LastRunDate(dagID, kind)
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

// DeleteRun removes one run with its task instances, lineage, task
// logs, earlier tries and XCom entries (Airflow's rows that cascade from
// the run's; not its sub-DAGs' runs, as Airflow deletes the one row).
func (s *Store) DeleteRun(dagID, runID string) error {
	return s.DeleteRunIn(dagID, runID, nil)
}

// runStateError is a run whose state refuses a write; it wraps
// errConflict.
type runStateError struct{ state RunState }

func (e *runStateError) Error() string { return fmt.Sprintf("run is %s: %v", e.state, errConflict) }
func (e *runStateError) Unwrap() error { return errConflict }

// DeleteRunIn is DeleteRun of a run whose state deletable accepts (nil:
// any), checked in the delete's transaction, so the scheduler cannot
// start the run between the check and the delete; another state is a
// *runStateError.
func (s *Store) DeleteRunIn(dagID, runID string, deletable func(RunState) bool) error {
	return s.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if err != nil {
			return err
		}
		if deletable != nil && !deletable(run.State) {
			return &runStateError{state: run.State}
		}
		if err := deleteRunTxn(txn, run); err != nil {
			return err
		}
		for _, table := range taskInstanceTables {
			if _, err := txn.DeleteAll(table, indexID+"_prefix", dagID, runID, ""); err != nil {
				return fmt.Errorf("delete %s of %s/%s: %w", table, dagID, runID, err)
			}
		}
		return deleteXComsTxn(txn, dagID, runID, "")
	})
}
