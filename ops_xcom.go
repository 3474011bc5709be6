package main

// XCom entries: listing a task instance's (or many, by wildcard) and one
// entry with its value (Airflow 2.10.3 airflow/models/xcom.py,
// api_connexion/endpoints/xcom_endpoint.py). airlite's task instances are
// never mapped, so every entry has map_index -1.

import (
	"errors"
	"math"
	"time"
)

// faultXComNotFound is an entry that is not there.
const faultXComNotFound opFault = "xcom_not_found" // dag_id, run_id, task_id, key

// xcomQuery picks XCom entries: an empty dag_id, run_id or task_id
// matches any; key, when given (even empty), must match; mapIndex, when
// given, must match.
type xcomQuery struct {
	dagID, runID, taskID string
	key                  *string
	mapIndex             *int64
}

// xcomRead is an entry with its run's logical date, read now (XCom's
// association proxy to the run); nil when the run is gone or replaced.
type xcomRead struct {
	*XComEntry
	ExecutionDate *time.Time
}

// xcomEntries lists the entries f picks, in Airflow's order (dag_id,
// task_id, run_id, map_index, key), q's window of them.
func (o *operations) xcomEntries(f xcomQuery, q listQuery) (listed[xcomRead], error) {
	sf := XComFilter{DagID: f.dagID, RunID: f.runID, TaskID: f.taskID}
	if f.key != nil {
		if *f.key == "" {
			return listed[xcomRead]{rows: []xcomRead{}}, nil // no entry has an empty key
		}
		sf.Key = *f.key
	}
	entries, err := o.store.XComEntries(sf)
	if err != nil {
		return listed[xcomRead]{}, err
	}
	kept := entries
	if f.mapIndex != nil {
		kept = nil
		for _, e := range entries {
			if int64(e.MapIndex) == *f.mapIndex {
				kept = append(kept, e)
			}
		}
	}
	rows := window(kept, q)
	items := make([]xcomRead, len(rows))
	for i, e := range rows {
		items[i] = o.readXCom(e)
	}
	return listed[xcomRead]{rows: items, total: len(kept)}, nil
}

func (o *operations) readXCom(e *XComEntry) xcomRead {
	item := xcomRead{XComEntry: e}
	if run, err := o.store.RunByRunID(e.DagID, e.RunID); err == nil && run.ID == e.RunRowID {
		date := run.ExecutionDate
		item.ExecutionDate = &date
	}
	return item
}

// xcomEntry is one entry with its value, of a map index (-1 unless the
// task is mapped).
func (o *operations) xcomEntry(dagID, runID, taskID, key string, mapIndex int64) (xcomRead, error) {
	notFound := opErr(errNotFound, faultXComNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID, "key", key)
	if mapIndex < -1 || mapIndex > math.MaxInt32 {
		return xcomRead{}, notFound
	}
	e, err := o.store.XCom(dagID, runID, taskID, key, int(mapIndex))
	if errors.Is(err, errNotFound) {
		return xcomRead{}, notFound
	}
	if err != nil {
		return xcomRead{}, err
	}
	return o.readXCom(e), nil
}
