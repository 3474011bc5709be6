package main

// DAGs scheduled on assets (data-aware scheduling): an event of an asset
// a DAG's schedule names queues the DAG (Airflow's AssetDagRunQueue,
// 2.10.3 models/dataset.py DatasetDagRunQueue), and the scheduler
// creates the DAG's run once its condition holds (scheduler_assets.go),
// recording the events the run consumed.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableAssetQueue     = "asset_dag_run_queue"
	tableConsumedEvents = "dagrun_asset_event"
	assetCondAll        = "all"
	assetCondAny        = "any"
	// assetCondAlias is a leaf naming an alias (Ref.Name and Ref.Group
	// are the alias's): it holds when one of the assets attached to the alias has a
	// queued event (3.2.1 resolves a scheduled alias to those assets).
	assetCondAlias = "alias"
)

// assetCond is a DAG's asset schedule: a leaf names an asset; "all" and
// "any" combine conditions (2.10.3 datasets/__init__.py DatasetAll,
// DatasetAny; a list of assets is their DatasetAll).
type assetCond struct {
	Op  string // "": a leaf
	Ref assetRef
	Of  []*assetCond
}

// refs are the assets the condition names, each once, in reading order.
func (c *assetCond) refs() []assetRef {
	if c == nil {
		return nil
	}
	if c.Op == "" {
		return []assetRef{c.Ref}
	}
	if c.Op == assetCondAlias {
		return nil
	}
	var out []assetRef
	for _, o := range c.Of {
		for _, r := range o.refs() {
			if !slices.ContainsFunc(out, func(x assetRef) bool { return x.Name == r.Name && x.URI == r.URI }) {
				out = append(out, r)
			}
		}
	}
	return out
}

// aliases are the aliases the condition names (with the group each
// leaf gives), each name once, in reading order.
func (c *assetCond) aliases() []aliasRef {
	if c == nil {
		return nil
	}
	if c.Op == assetCondAlias {
		return []aliasRef{{Name: c.Ref.Name, Group: c.Ref.Group}}
	}
	var out []aliasRef
	for _, o := range c.Of {
		for _, r := range o.aliases() {
			if !slices.ContainsFunc(out, func(x aliasRef) bool { return x.Name == r.Name }) {
				out = append(out, r)
			}
		}
	}
	return out
}

// holds evaluates the condition over the assets that have queued events
// (BaseDataset.evaluate: all needs each, any one); an alias is the any
// of the assets attached to it (resolve).
func (c *assetCond) holds(queued func(assetRef) bool, resolve func(alias string) []assetRef) bool {
	switch c.Op {
	case "":
		return queued(c.Ref)
	case assetCondAlias:
		return resolve != nil && slices.ContainsFunc(resolve(c.Ref.Name), queued)
	case assetCondAll:
		for _, o := range c.Of {
			if !o.holds(queued, resolve) {
				return false
			}
		}
		return len(c.Of) > 0
	default:
		return slices.ContainsFunc(c.Of, func(o *assetCond) bool { return o.holds(queued, resolve) })
	}
}

// AssetQueueEntry is one asset's queued event for a DAG (an
// AssetDagRunQueue row): the first event since the DAG's last
// asset-triggered run queues it, later ones leave its created_at.
type AssetQueueEntry struct {
	AssetID   int64
	DagID     string
	CreatedAt time.Time
}

// ConsumedEvents are the asset events a run consumed (Airflow's
// dagrun_dataset_event association), by the run's row id. DagID is the
// run's, which finds the run by (dag_id, row id): derived, kept by the
// write that records the row and by a restore, never in a snapshot.
type ConsumedEvents struct {
	RunRowID int64
	DagID    string
	EventIDs []int64
}

func assetQueueKey(dagID string, assetID int64) string {
	return dagID + "\x00" + strconv.FormatInt(assetID, 10)
}

func assetQueueTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAssetQueue,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField[AssetQueueEntry]{func(e *AssetQueueEntry) string {
				return assetQueueKey(e.DagID, e.AssetID)
			}}},
		},
	}
}

func consumedEventsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableConsumedEvents,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: intField[ConsumedEvents]{func(c *ConsumedEvents) int64 { return c.RunRowID }}},
			// An event's created_dagruns: the rows that list it.
			indexConsumedEvent: {Name: indexConsumedEvent, AllowMissing: true, Indexer: consumedEventIndex{}},
		},
	}
}

// indexConsumedEvent indexes consumed-events rows by each event id they
// list.
const indexConsumedEvent = "event"

// consumedEventIndex keys a consumed-events row by each of its event ids
// (encodeSeq), for FromArgs(event id).
type consumedEventIndex struct{}

func (consumedEventIndex) FromObject(obj any) (bool, [][]byte, error) {
	c, ok := obj.(*ConsumedEvents)
	if !ok {
		return false, nil, fmt.Errorf("consumed event index: want *ConsumedEvents, got %T", obj)
	}
	keys := make([][]byte, 0, len(c.EventIDs))
	for _, id := range c.EventIDs {
		if id >= 0 {
			keys = append(keys, encodeSeq(id))
		}
	}
	return len(keys) > 0, keys, nil
}

func (consumedEventIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("consumed event index: want one event id, got %d args", len(args))
	}
	id, ok := args[0].(int64)
	if !ok || id < 0 {
		return nil, fmt.Errorf("consumed event index: want an event id, got %#v", args[0])
	}
	return encodeSeq(id), nil
}

// queueAssetEventTxn queues every unpaused DAG whose asset schedule names
// the asset of an event just recorded at at, or one of the aliases the
// event came through (2.10.3 datasets/manager.py:116-118 and
// _queue_dagruns: an entry already there is kept; 3.2.1
// assets/manager.py register_asset_change: dags_to_queue_from_asset_alias
// too, queued for the asset).
//
// The DAGs come from the index of what their schedules name, not a walk of
// every DAG.
func queueAssetEventTxn(txn *memdb.Txn, a *Asset, aliases []string, at time.Time) error {
	keys := []string{scheduledOnAsset(a.Name, a.URI)}
	for _, alias := range aliases {
		keys = append(keys, scheduledOnAlias(alias))
	}
	for _, key := range keys {
		it, err := txn.Get(tableDags, indexScheduledOn, key)
		if err != nil {
			return fmt.Errorf("find the dags scheduled on %s: %w", a.URI, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if row := raw.(*DagRow); !row.IsPaused {
				if err := queueForTxn(txn, row.DagID, a, at); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// queueForTxn queues the asset's event for the DAG, unless one is queued
// already.
func queueForTxn(txn *memdb.Txn, dagID string, a *Asset, at time.Time) error {
	have, err := txn.First(tableAssetQueue, indexID, assetQueueKey(dagID, a.ID))
	if err != nil {
		return fmt.Errorf("look up queued event: %w", err)
	}
	if have != nil {
		return nil
	}
	if err := txn.Insert(tableAssetQueue, &AssetQueueEntry{AssetID: a.ID, DagID: dagID, CreatedAt: at}); err != nil {
		return fmt.Errorf("queue %s for %s: %w", a.URI, dagID, err)
	}
	return nil
}

// QueuedAssetEvents lists the queue, by DAG then asset id; dagID and
// assetID narrow it ("" and 0: any).
func (s *Store) QueuedAssetEvents(dagID string, assetID int64) ([]*AssetQueueEntry, error) {
	return queuedTxn(s.read(), dagID, assetID)
}

func queuedTxn(txn *memdb.Txn, dagID string, assetID int64) ([]*AssetQueueEntry, error) {
	it, err := txn.Get(tableAssetQueue, indexID)
	if err != nil {
		return nil, fmt.Errorf("list queued asset events: %w", err)
	}
	out := []*AssetQueueEntry{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		e := raw.(*AssetQueueEntry)
		if (dagID == "" || e.DagID == dagID) && (assetID == 0 || e.AssetID == assetID) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b *AssetQueueEntry) int {
		return cmp.Or(cmp.Compare(a.DagID, b.DagID), cmp.Compare(a.AssetID, b.AssetID))
	})
	return out, nil
}

// DeleteQueuedAssetEvents removes the queue entries that dagID and
// assetID name and that were created before before (nil: any), and says
// how many it removed.
func (s *Store) DeleteQueuedAssetEvents(dagID string, assetID int64, before *time.Time) (int, error) {
	n := 0
	err := s.update(func(txn *memdb.Txn) error {
		rows, err := queuedTxn(txn, dagID, assetID)
		if err != nil {
			return err
		}
		for _, e := range rows {
			if before != nil && !e.CreatedAt.Before(*before) {
				continue
			}
			if err := txn.Delete(tableAssetQueue, e); err != nil {
				return fmt.Errorf("delete queued asset event: %w", err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// ConsumedAssetEvents are the events the run with row id runRowID
// consumed, by id; none for a run no asset triggered.
func (s *Store) ConsumedAssetEvents(runRowID int64) ([]*AssetEvent, error) {
	txn := s.read()
	raw, err := txn.First(tableConsumedEvents, indexID, runRowID)
	if err != nil {
		return nil, fmt.Errorf("look up consumed events: %w", err)
	}
	out := []*AssetEvent{}
	if raw == nil {
		return out, nil
	}
	for _, id := range raw.(*ConsumedEvents).EventIDs {
		ev, err := txn.First(tableAssetEvents, indexID, id)
		if err != nil {
			return nil, fmt.Errorf("look up asset event %d: %w", id, err)
		}
		if ev != nil {
			out = append(out, ev.(*AssetEvent))
		}
	}
	return out, nil
}

// assetRun is the asset-triggered run plan asks for: the run, and the
// events it consumes.
type assetRun struct {
	run    newRun
	events []int64
}

// CreateAssetTriggeredRun creates, in one write, the run plan makes from
// the DAG's queue (nil: none), records the events it consumed and
// clears the DAG's queue, as _create_dag_runs_dataset_triggered does
// (2.10.3 jobs/scheduler_job_runner.py:1387-1490). It says whether it
// created a run.
func (s *Store) CreateAssetTriggeredRun(dagID string, plan func(v storeView, queue []*AssetQueueEntry) (*assetRun, error)) (bool, error) {
	created := false
	err := s.updateIDs(func(txn *memdb.Txn) error {
		queue, err := queuedTxn(txn, dagID, 0)
		if err != nil || len(queue) == 0 {
			return err
		}
		ar, err := plan(storeView{txn}, queue)
		if err != nil || ar == nil {
			return err
		}
		run, err := s.insertRunTreeTxn(txn, ar.run)
		if err != nil {
			return err
		}
		if err := putConsumedEventsTxn(txn, run, ar.events); err != nil {
			return err
		}
		for _, e := range queue {
			if err := txn.Delete(tableAssetQueue, e); err != nil {
				return fmt.Errorf("clear queued asset event: %w", err)
			}
		}
		created = true
		return nil
	})
	return created, err
}

// putConsumedEventsTxn records the events run consumed.
func putConsumedEventsTxn(txn *memdb.Txn, run *DagRun, events []int64) error {
	if err := txn.Insert(tableConsumedEvents, &ConsumedEvents{RunRowID: run.ID, DagID: run.DagID, EventIDs: events}); err != nil {
		return fmt.Errorf("store consumed events of %s/%s: %w", run.DagID, run.RunID, err)
	}
	return nil
}

// findConsumersTxn gives each restored consumed-events row its run's
// dag_id (a snapshot has the run's row id only), from one walk of the
// runs when there are such rows; a row whose run is gone keeps none.
func findConsumersTxn(txn *memdb.Txn) error {
	it, err := txn.Get(tableConsumedEvents, indexID)
	if err != nil {
		return fmt.Errorf("list consumed events: %w", err)
	}
	var rows []*ConsumedEvents
	for raw := it.Next(); raw != nil; raw = it.Next() {
		rows = append(rows, raw.(*ConsumedEvents))
	}
	if len(rows) == 0 {
		return nil
	}
	dagOf := map[int64]string{}
	runs, err := txn.Get(tableDagRuns, indexID)
	if err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	for raw := runs.Next(); raw != nil; raw = runs.Next() {
		run := raw.(*DagRun)
		dagOf[run.ID] = run.DagID
	}
	for _, c := range rows {
		found := *c
		found.DagID = dagOf[c.RunRowID]
		if err := txn.Insert(tableConsumedEvents, &found); err != nil {
			return fmt.Errorf("store consumed events of run %d: %w", c.RunRowID, err)
		}
	}
	return nil
}

// checkAssetQueueEntry is what a restored queue entry must be.
func checkAssetQueueEntry(obj any) error {
	e := obj.(*AssetQueueEntry)
	if err := checkRowKeys("dag_id", e.DagID, "asset_id", strconv.FormatInt(e.AssetID, 10)); err != nil {
		return err
	}
	if err := checkDates(namedDate{"created_at", &e.CreatedAt}); err != nil {
		return err
	}
	return checkRowID("asset_id", e.AssetID)
}

// checkConsumedEvents is what a restored consumption must be.
func checkConsumedEvents(obj any) error {
	return checkRowID("run id", obj.(*ConsumedEvents).RunRowID)
}

// AssetByRef is the asset ref names, or nil.
func (v storeView) AssetByRef(ref assetRef) (*Asset, error) {
	raw, err := v.txn.First(tableAssets, "name_uri", ref.Name+"\x00"+ref.URI)
	if err != nil {
		return nil, fmt.Errorf("look up asset %s: %w", ref.URI, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*Asset), nil
}

// AssetEvents lists every asset event by id.
func (v storeView) AssetEvents() ([]*AssetEvent, error) {
	return allRows[AssetEvent](v.txn, tableAssetEvents, "asset events")
}

// RunsConsumingEvents are the runs that consumed each of the events ids
// (an event's created_dagruns), by event id: the consumed-events rows
// that list each event, and their runs by (dag_id, row id).
func (s *Store) RunsConsumingEvents(ids []int64) (map[int64][]*DagRun, error) {
	txn := s.read()
	out := map[int64][]*DagRun{}
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	for _, id := range ids {
		if _, done := out[id]; done || id < 0 {
			continue
		}
		it, err := txn.Get(tableConsumedEvents, indexConsumedEvent, id)
		if err != nil {
			return nil, fmt.Errorf("find the runs that consumed event %d: %w", id, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			c := raw.(*ConsumedEvents)
			if c.DagID == "" {
				continue // its run is gone (a restore found none)
			}
			run, err := txn.First(tableDagRuns, indexDagRow, c.DagID, c.RunRowID)
			if err != nil {
				return nil, fmt.Errorf("look up run %d of %s: %w", c.RunRowID, c.DagID, err)
			}
			if run != nil {
				read++
				out[id] = append(out[id], run.(*DagRun))
			}
		}
	}
	return out, nil
}
