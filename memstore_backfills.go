package main

// Backfills (Airflow 3's Backfill and BackfillDagRun,
// airflow-core/src/airflow/models/backfill.py): a backfill is a request to
// run a DAG's schedule between two dates; each date it covers has a link
// row, naming the run it made or took over, or why it made none. The
// operations (ops_backfills.go) decide what to create; the scheduler
// (scheduler_backfills.go) starts the runs and completes the backfill.

import (
	"encoding/json"
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableBackfills    = "backfills"
	tableBackfillRuns = "backfill_dag_runs"

	counterBackfillID    = "backfill"
	counterBackfillRunID = "backfill_dag_run"

	indexBackfillDag = "dag"
	indexBackfillOf  = "backfill"
	indexBackfillRun = "run"
)

// Backfill is one backfill of a DAG (models/backfill.py Backfill).
type Backfill struct {
	ID                int64
	DagID             string
	FromDate, ToDate  time.Time
	DagRunConf        json.RawMessage // nil: null
	IsPaused          bool
	ReprocessBehavior string // none, failed, completed
	MaxActiveRuns     int
	CreatedAt         time.Time
	CompletedAt       *time.Time
	UpdatedAt         time.Time
	TriggeringUser    *string
}

// BackfillDagRun links a backfill to the run it made or took over for one
// date (models/backfill.py BackfillDagRun).
type BackfillDagRun struct {
	ID         int64
	BackfillID int64
	DagID      string
	// RunID is the run's run_id; "": none (ExceptionReason says why, or
	// the run was deleted).
	RunID           string
	ExceptionReason string // "in flight", "already exists"; "": a run
	LogicalDate     time.Time
	SortOrdinal     int
}

// backfillsTable holds backfills by id and by DAG.
func backfillsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableBackfills,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:          {Name: indexID, Unique: true, Indexer: intField[Backfill]{func(b *Backfill) int64 { return b.ID }}},
			indexBackfillDag: {Name: indexBackfillDag, Indexer: stringField[Backfill]{func(b *Backfill) string { return b.DagID }}},
		},
	}
}

// backfillRunsTable holds the link rows by id, by backfill, and by the
// run they name (dag_id, run_id; none when they name no run).
func backfillRunsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableBackfillRuns,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:         {Name: indexID, Unique: true, Indexer: intField[BackfillDagRun]{func(l *BackfillDagRun) int64 { return l.ID }}},
			indexBackfillOf: {Name: indexBackfillOf, Indexer: intField[BackfillDagRun]{func(l *BackfillDagRun) int64 { return l.BackfillID }}},
			indexBackfillRun: {Name: indexBackfillRun, AllowMissing: true, Indexer: stringField[BackfillDagRun]{func(l *BackfillDagRun) string {
				if l.RunID == "" {
					return ""
				}
				return l.DagID + "\x00" + l.RunID
			}}},
		},
	}
}

// Backfills lists the backfills of a DAG by id ("": every DAG's).
func (s *Store) Backfills(dagID string) ([]*Backfill, error) {
	txn := s.read()
	var it memdb.ResultIterator
	var err error
	if dagID == "" {
		it, err = txn.Get(tableBackfills, indexID)
	} else {
		it, err = txn.Get(tableBackfills, indexBackfillDag, dagID)
	}
	if err != nil {
		return nil, fmt.Errorf("list backfills: %w", err)
	}
	out := []*Backfill{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*Backfill))
	}
	return out, nil
}

// BackfillByID is one backfill, or errNotFound.
func (s *Store) BackfillByID(id int64) (*Backfill, error) {
	return backfillByIDTxn(s.read(), id)
}

func backfillByIDTxn(txn *memdb.Txn, id int64) (*Backfill, error) {
	raw, err := txn.First(tableBackfills, indexID, id)
	if err != nil {
		return nil, fmt.Errorf("look up backfill %d: %w", id, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Backfill), nil
}

// BackfillRuns lists a backfill's link rows in sort_ordinal order.
func (s *Store) BackfillRuns(id int64) ([]*BackfillDagRun, error) {
	return backfillRunsTxn(s.read(), id)
}

func backfillRunsTxn(txn *memdb.Txn, id int64) ([]*BackfillDagRun, error) {
	it, err := txn.Get(tableBackfillRuns, indexBackfillOf, id)
	if err != nil {
		return nil, fmt.Errorf("list runs of backfill %d: %w", id, err)
	}
	var out []*BackfillDagRun
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*BackfillDagRun))
	}
	// Link rows are inserted in sort_ordinal order, so ids follow it.
	return out, nil
}

// BackfillOfRun is the backfill whose link names the run, or errNotFound.
func (s *Store) BackfillOfRun(dagID, runID string) (*Backfill, error) {
	return backfillOfRunTxn(s.read(), dagID, runID)
}

func backfillOfRunTxn(txn *memdb.Txn, dagID, runID string) (*Backfill, error) {
	raw, err := txn.Last(tableBackfillRuns, indexBackfillRun, dagID+"\x00"+runID)
	if err != nil {
		return nil, fmt.Errorf("look up backfill of run %s of %s: %w", runID, dagID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return backfillByIDTxn(txn, raw.(*BackfillDagRun).BackfillID)
}

// backfillDate is one date a new backfill covers, as the operations
// planned it: a run to create (create), a finished run to clear and take
// over (reprocess), or neither (exception says why).
type backfillDate struct {
	logical   time.Time
	create    *newRun
	reprocess *DagRun
	exception string
}

// backfillPlan is a backfill to create with its dates, in sort order.
type backfillPlan struct {
	backfill Backfill
	dates    []backfillDate
}

// errBackfillRunning is CreateBackfill's answer when the DAG has a
// backfill not completed yet (AlreadyRunningBackfill).
var errBackfillRunning = fmt.Errorf("a backfill of the dag is running: %w", errConflict)

// CreateBackfill stores the backfill plan describes, in one write: its
// row, then for each date the run it creates (queued), or the finished
// run it clears and queues again as a backfill run, and the link row.
// plan is asked inside the write, so that what it saw of the DAG's runs
// and backfills (storeView.backfillRunning) holds.
func (s *Store) CreateBackfill(plan func(v storeView) (*backfillPlan, error)) (*Backfill, error) {
	var out *Backfill
	err := s.updateIDs(func(txn *memdb.Txn) error {
		p, err := plan(storeView{txn})
		if err != nil {
			return err
		}
		b := p.backfill
		if b.ID, err = nextCounter(txn, counterBackfillID); err != nil {
			return err
		}
		if err := txn.Insert(tableBackfills, &b); err != nil {
			return fmt.Errorf("store backfill of %s: %w", b.DagID, err)
		}
		for i, d := range p.dates {
			link := &BackfillDagRun{BackfillID: b.ID, DagID: b.DagID, LogicalDate: d.logical, SortOrdinal: i + 1, ExceptionReason: d.exception}
			switch {
			case d.create != nil:
				run, err := s.insertRunTreeTxn(txn, *d.create)
				if err != nil {
					return err
				}
				link.RunID = run.RunID
			case d.reprocess != nil:
				if err := reprocessRunTxn(txn, d.reprocess, b.CreatedAt); err != nil {
					return err
				}
				link.RunID = d.reprocess.RunID
			}
			if link.ID, err = nextCounter(txn, counterBackfillRunID); err != nil {
				return err
			}
			if err := txn.Insert(tableBackfillRuns, link); err != nil {
				return fmt.Errorf("store run link of backfill %d: %w", b.ID, err)
			}
		}
		out = &b
		return nil
	})
	return out, err
}

// deleteBackfillsOfTxn removes a deleted DAG's backfills, counted as
// delete_dag counts every row with a dag_id, and their run links, which
// cascade (bdr_backfill_fkey ON DELETE CASCADE): not counted.
func deleteBackfillsOfTxn(txn *memdb.Txn, dagID string) (int, error) {
	it, err := txn.Get(tableBackfills, indexBackfillDag, dagID)
	if err != nil {
		return 0, fmt.Errorf("list backfills of %s: %w", dagID, err)
	}
	var ids []int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		ids = append(ids, raw.(*Backfill).ID)
	}
	for _, id := range ids {
		if _, err := txn.DeleteAll(tableBackfillRuns, indexBackfillOf, id); err != nil {
			return 0, fmt.Errorf("delete the run links of backfill %d: %w", id, err)
		}
	}
	n, err := txn.DeleteAll(tableBackfills, indexBackfillDag, dagID)
	if err != nil {
		return 0, fmt.Errorf("delete backfills of %s: %w", dagID, err)
	}
	return n, nil
}

// reprocessRunTxn is _handle_clear_run: the finished run is cleared and
// queued again (dag.clear with dag_run_state queued), and becomes a
// backfill run (run_type and triggered_by backfill).
func reprocessRunTxn(txn *memdb.Txn, run *DagRun, now time.Time) error {
	if _, err := clearTaskInstancesTxn(txn, run.DagID, run.RunID, nil, true, now); err != nil {
		return err
	}
	cur, err := runByRunIDTxn(txn, run.DagID, run.RunID)
	if err != nil {
		return err
	}
	next := *cur
	next.RunType, next.TriggeredBy, next.UpdatedAt = "backfill", "backfill", &now
	return putRunTxn(txn, cur, &next)
}

// UpdateBackfill changes one backfill in one write: change gets a copy
// to modify (and the view, to read runs), and may return an error to
// change nothing. errNotFound when there is no such backfill.
func (s *Store) UpdateBackfill(id int64, change func(v storeView, b *Backfill) error) (*Backfill, error) {
	var out *Backfill
	err := s.update(func(txn *memdb.Txn) error {
		cur, err := backfillByIDTxn(txn, id)
		if err != nil {
			return err
		}
		next := *cur
		if err := change(storeView{txn}, &next); err != nil {
			return err
		}
		if err := txn.Insert(tableBackfills, &next); err != nil {
			return fmt.Errorf("store backfill %d: %w", id, err)
		}
		out = &next
		return nil
	})
	return out, err
}

// CancelBackfill is cancel_backfill's write: the backfill paused, its
// queued runs failed, its completed_at now.
func (s *Store) CancelBackfill(id int64, now time.Time, refuse func(b *Backfill) error) (*Backfill, error) {
	return s.UpdateBackfill(id, func(v storeView, b *Backfill) error {
		if err := refuse(b); err != nil {
			return err
		}
		links, err := backfillRunsTxn(v.txn, id)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.RunID == "" {
				continue
			}
			run, err := runByRunIDTxn(v.txn, l.DagID, l.RunID)
			if err != nil || run.State != RunQueued {
				continue // deleted, or past queued
			}
			// The route's UPDATE sets the state (and updated_at, its
			// onupdate); no end_date.
			failed := *run
			failed.State, failed.UpdatedAt = RunFailed, &now
			if err := putRunTxn(v.txn, run, &failed); err != nil {
				return err
			}
		}
		b.IsPaused, b.CompletedAt, b.UpdatedAt = true, &now, now
		return nil
	})
}

// CompleteBackfills marks each backfill not completed whose runs are
// none of them queued or running completed at now
// (SchedulerJobRunner._mark_backfills_complete).
func (s *Store) CompleteBackfills(now time.Time) error {
	txn := s.read()
	var done []int64
	it, err := txn.Get(tableBackfills, indexID)
	if err != nil {
		return fmt.Errorf("list backfills: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		b := raw.(*Backfill)
		if b.CompletedAt != nil {
			continue
		}
		if unfinished, err := backfillUnfinishedTxn(txn, b.ID); err != nil || unfinished {
			if err != nil {
				return err
			}
			continue
		}
		done = append(done, b.ID)
	}
	if len(done) == 0 {
		return nil // nothing to write: reads stay reads
	}
	return s.update(func(txn *memdb.Txn) error {
		for _, id := range done {
			cur, err := backfillByIDTxn(txn, id)
			if err != nil {
				return err
			}
			if unfinished, err := backfillUnfinishedTxn(txn, id); err != nil || unfinished || cur.CompletedAt != nil {
				if err != nil {
					return err
				}
				continue
			}
			next := *cur
			next.CompletedAt, next.UpdatedAt = &now, now
			if err := txn.Insert(tableBackfills, &next); err != nil {
				return fmt.Errorf("store backfill %d: %w", id, err)
			}
		}
		return nil
	})
}

// backfillUnfinishedTxn reports whether a run of the backfill is queued
// or running.
func backfillUnfinishedTxn(txn *memdb.Txn, id int64) (bool, error) {
	links, err := backfillRunsTxn(txn, id)
	if err != nil {
		return false, err
	}
	for _, l := range links {
		if l.RunID == "" {
			continue
		}
		run, err := runByRunIDTxn(txn, l.DagID, l.RunID)
		if err != nil {
			continue // deleted: the link names no run (ondelete set null)
		}
		if run.State == RunQueued || run.State == RunRunning {
			return true, nil
		}
	}
	return false, nil
}

// backfillRunning reports whether the DAG has a backfill not completed.
func (v storeView) backfillRunning(dagID string) (bool, error) {
	it, err := v.txn.Get(tableBackfills, indexBackfillDag, dagID)
	if err != nil {
		return false, fmt.Errorf("list backfills of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if raw.(*Backfill).CompletedAt == nil {
			return true, nil
		}
	}
	return false, nil
}

// backfillRunsIn counts the runs of backfill id in state.
func (v storeView) backfillRunsIn(id int64, state RunState) (int, error) {
	links, err := backfillRunsTxn(v.txn, id)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range links {
		if l.RunID == "" {
			continue
		}
		run, err := runByRunIDTxn(v.txn, l.DagID, l.RunID)
		if err == nil && run.State == state {
			n++
		}
	}
	return n, nil
}

// backfillRunsRunning counts the running runs of a DAG's backfills not
// completed, which its max_active_runs does not count (Airflow 3's
// DagModel.exceeds_max_non_backfill).
func (v storeView) backfillRunsRunning(dagID string) (int, error) {
	it, err := v.txn.Get(tableBackfills, indexBackfillDag, dagID)
	if err != nil {
		return 0, fmt.Errorf("list backfills of %s: %w", dagID, err)
	}
	var ids []int64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if b := raw.(*Backfill); b.CompletedAt == nil {
			ids = append(ids, b.ID)
		}
	}
	n := 0
	for _, id := range ids {
		c, err := v.backfillRunsIn(id, RunRunning)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// backfill is one backfill, or errNotFound.
func (v storeView) backfill(id int64) (*Backfill, error) { return backfillByIDTxn(v.txn, id) }
