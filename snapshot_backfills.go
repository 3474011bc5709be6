package main

// Backfills in snapshots (memstore_backfills.go): added in format version
// 6; an older file has none. Their codecs are in snapshot.go's list.

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

type snapBackfill struct {
	ID                int64      `json:"id"`
	DagID             string     `json:"dag_id"`
	FromDate          time.Time  `json:"from_date"`
	ToDate            time.Time  `json:"to_date"`
	DagRunConf        *string    `json:"dag_run_conf"`
	IsPaused          bool       `json:"is_paused"`
	ReprocessBehavior string     `json:"reprocess_behavior"`
	MaxActiveRuns     int        `json:"max_active_runs"`
	CreatedAt         time.Time  `json:"created_at"`
	CompletedAt       *time.Time `json:"completed_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
	TriggeringUser    *string    `json:"triggering_user_name,omitempty"`
}

type snapBackfillDagRun struct {
	ID              int64     `json:"id"`
	BackfillID      int64     `json:"backfill_id"`
	DagID           string    `json:"dag_id"`
	RunID           string    `json:"run_id,omitempty"`
	ExceptionReason string    `json:"exception_reason,omitempty"`
	LogicalDate     time.Time `json:"logical_date"`
	SortOrdinal     int       `json:"sort_ordinal"`
}

// encodeBackfill and decodeBackfill convert a backfill to its record
// and back; encodeBackfillRun and decodeBackfillRun a run link.
func encodeBackfill(obj any) any {
	b := obj.(*Backfill)
	return &snapBackfill{ID: b.ID, DagID: b.DagID, FromDate: b.FromDate.UTC(), ToDate: b.ToDate.UTC(), DagRunConf: rawToString(b.DagRunConf),
		IsPaused: b.IsPaused, ReprocessBehavior: b.ReprocessBehavior, MaxActiveRuns: b.MaxActiveRuns, CreatedAt: b.CreatedAt.UTC(),
		CompletedAt: utcPtr(b.CompletedAt), UpdatedAt: b.UpdatedAt.UTC(), TriggeringUser: b.TriggeringUser}
}

var decodeBackfill = decodeInto(func(r *snapBackfill) any {
	return &Backfill{ID: r.ID, DagID: r.DagID, FromDate: r.FromDate, ToDate: r.ToDate, DagRunConf: stringToRaw(r.DagRunConf),
		IsPaused: r.IsPaused, ReprocessBehavior: r.ReprocessBehavior, MaxActiveRuns: r.MaxActiveRuns, CreatedAt: r.CreatedAt,
		CompletedAt: r.CompletedAt, UpdatedAt: r.UpdatedAt, TriggeringUser: r.TriggeringUser}
})

func encodeBackfillRun(obj any) any {
	l := obj.(*BackfillDagRun)
	return &snapBackfillDagRun{ID: l.ID, BackfillID: l.BackfillID, DagID: l.DagID, RunID: l.RunID, ExceptionReason: l.ExceptionReason,
		LogicalDate: l.LogicalDate.UTC(), SortOrdinal: l.SortOrdinal}
}

var decodeBackfillRun = decodeInto(func(r *snapBackfillDagRun) any {
	return &BackfillDagRun{ID: r.ID, BackfillID: r.BackfillID, DagID: r.DagID, RunID: r.RunID, ExceptionReason: r.ExceptionReason,
		LogicalDate: r.LogicalDate, SortOrdinal: r.SortOrdinal}
})

// checkBackfill refuses a backfill airlite could not have written.
func checkBackfill(obj any) error {
	b := obj.(*Backfill)
	if err := checkRowKeys("dag_id", b.DagID); err != nil {
		return err
	}
	// Ids end at 2^53 as the counters do: the restore raises the
	// counter to the highest id restored.
	if err := checkRowID("id", b.ID); err != nil {
		return err
	}
	if !slices.Contains(reprocessBehaviors, b.ReprocessBehavior) {
		return fmt.Errorf("backfill %d: reprocess_behavior %q", b.ID, b.ReprocessBehavior)
	}
	if b.DagRunConf != nil && !json.Valid(b.DagRunConf) {
		return fmt.Errorf("backfill %d: dag_run_conf is not JSON", b.ID)
	}
	return checkDates(namedDate{"from_date", &b.FromDate}, namedDate{"to_date", &b.ToDate}, namedDate{"created_at", &b.CreatedAt},
		namedDate{"updated_at", &b.UpdatedAt}, namedDate{"completed_at", b.CompletedAt})
}

// checkBackfillDagRun refuses a link airlite could not have written.
func checkBackfillDagRun(obj any) error {
	l := obj.(*BackfillDagRun)
	if err := checkRowKeys("dag_id", l.DagID); err != nil {
		return err
	}
	if err := checkRowID("id", l.ID); err != nil {
		return err
	}
	if err := checkRowID("backfill_id", l.BackfillID); err != nil {
		return err
	}
	if l.SortOrdinal < 1 {
		return fmt.Errorf("sort_ordinal %d is below 1", l.SortOrdinal)
	}
	return checkDates(namedDate{"logical_date", &l.LogicalDate})
}
