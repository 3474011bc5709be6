package main

// The scheduler's asset-triggered runs: a DAG scheduled on assets gets a
// run once the events queued for it satisfy its condition (2.10.3
// models/dag.py:4060-4110 dags_needing_dagruns, and
// jobs/scheduler_job_runner.py:1387-1490
// _create_dag_runs_dataset_triggered; Airflow 3's
// _create_dag_runs_asset_triggered).

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// assetRunType is the edition's run type for runs that assets trigger:
// dataset_triggered (Airflow 2), asset_triggered (Airflow 3); "" when
// the edition has none (1.10).
func assetRunType(r *editionRules) string {
	for _, t := range r.runTypes {
		if strings.HasSuffix(t, "_triggered") {
			return t
		}
	}
	return ""
}

// createAssetTriggeredRuns creates the run of every unpaused DAG whose
// asset condition the queued events satisfy.
func (s *scheduler) createAssetTriggeredRuns(now time.Time) error {
	runType := assetRunType(s.rules)
	if runType == "" {
		return nil
	}
	queue, err := s.opts.Store.QueuedAssetEvents("", 0)
	if err != nil || len(queue) == 0 {
		return err
	}
	var dagIDs []string
	for _, e := range queue {
		if !slices.Contains(dagIDs, e.DagID) {
			dagIDs = append(dagIDs, e.DagID)
		}
	}
	for _, dagID := range dagIDs {
		_, err := s.opts.Store.CreateAssetTriggeredRun(dagID, func(v storeView, queue []*AssetQueueEntry) (*assetRun, error) {
			return s.planAssetRun(v, dagID, runType, queue, now)
		})
		if err != nil {
			s.opts.Logger.Error().Err(err).Str("dag_id", dagID).Msg("create asset-triggered run")
		}
	}
	return nil
}

// planAssetRun is the DAG's run when its condition holds over the queued
// assets, else nil. Its date is the latest queued entry's; it consumes
// the events of the DAG's assets after the previous asset-triggered run
// and up to that date.
func (s *scheduler) planAssetRun(v storeView, dagID, runType string, queue []*AssetQueueEntry, now time.Time) (*assetRun, error) {
	row, err := v.Dag(dagID)
	// Nor one with import errors (dags_needing_dagruns).
	if err != nil || !row.Active() || row.IsPaused || row.ImportErrors || row.Def.AssetSchedule == nil || row.Def.ParentDagID != "" {
		return nil, nil //nolint:nilerr // a DAG gone, paused or failing waits with its queue
	}
	dag := row.Def
	queuedIDs := map[int64]bool{}
	triggered := queue[0].CreatedAt
	for _, e := range queue {
		queuedIDs[e.AssetID] = true
		if e.CreatedAt.After(triggered) {
			triggered = e.CreatedAt
		}
	}
	assetIDs := map[int64]bool{}
	for _, ref := range dag.AssetSchedule.refs() {
		a, err := v.AssetByRef(ref)
		if err != nil {
			return nil, err
		}
		if a != nil {
			assetIDs[a.ID] = true
		}
	}
	// An alias in the condition stands for the assets attached to it
	// now; their events are the run's too.
	resolved := map[string][]assetRef{}
	for _, alias := range dag.AssetSchedule.aliases() {
		name := alias.Name
		assets, err := v.AliasAssets(name)
		if err != nil {
			return nil, err
		}
		for _, a := range assets {
			assetIDs[a.ID] = true
			resolved[name] = append(resolved[name], assetRef{Name: a.Name, URI: a.URI})
		}
	}
	holds := dag.AssetSchedule.holds(func(ref assetRef) bool {
		a, err := v.AssetByRef(ref)
		return err == nil && a != nil && queuedIDs[a.ID]
	}, func(alias string) []assetRef { return resolved[alias] })
	if !holds {
		return nil, nil
	}
	prev, err := previousAssetRun(v, dagID, runType, triggered)
	if err != nil {
		return nil, err
	}
	ids := slices.Collect(maps.Keys(assetIDs))
	var after *time.Time
	if prev != nil {
		at := prev.After()
		after = &at
	}
	picked, err := v.AssetEventsBetween(ids, after, triggered)
	if err != nil {
		return nil, err
	}
	var events []int64
	var first, last time.Time
	for _, e := range picked {
		events = append(events, e.ID)
		if first.IsZero() || e.Timestamp.Before(first) {
			first = e.Timestamp
		}
		if e.Timestamp.After(last) {
			last = e.Timestamp
		}
	}
	nr := newRun{start: s.rules.newRun, dag: dag, runType: runType, conf: s.rules.emptyConf, now: now, unixname: s.opts.Unixname}
	if s.rules.nullLogicalDate {
		// Airflow 3: no logical date, run_after the queue's latest entry,
		// triggered_by asset.
		nr.noDate, nr.runAfter, nr.triggeredBy = true, triggered, "asset"
		// DagRun.generate_run_id without a logical date: run_after and a
		// random part (jobs/scheduler_job_runner.py:2078-2081 of the
		// 3.2.0-era main c57fba0e).
		nr.runID = s.rules.runID(runType, nil, triggered)
	} else {
		// Airflow 2: the logical date is the queue's latest entry; the
		// interval spans the events (DatasetTriggeredTimetable
		// data_interval_for_events, from the events' timestamps).
		if _, err := v.RunAt(dagID, triggered); err == nil {
			return nil, nil // a run at that date exists already
		}
		nr.date = triggered
		nr.runID = s.rules.runID(runType, &triggered, triggered)
		if len(events) > 0 {
			nr.interval = &dataInterval{first, last}
		} else {
			nr.interval = &dataInterval{triggered, triggered}
		}
	}
	return &assetRun{run: nr, events: events}, nil
}

// previousAssetRun is the DAG's latest asset-triggered run before at, by
// run_after (the logical date before Airflow 3), or nil.
func previousAssetRun(v storeView, dagID, runType string, at time.Time) (*DagRun, error) {
	it, err := runsDownTxn(v.txn, dagID, at)
	if err != nil {
		return nil, fmt.Errorf("find asset-triggered run of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		run := raw.(*DagRun)
		if run.DagID != dagID {
			return nil, nil
		}
		if run.RunType == runType && run.After().Before(at) {
			return run, nil
		}
	}
	return nil, nil
}
