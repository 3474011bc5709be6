package main

// Assets and their events (Airflow 3's AssetModel and AssetEvent,
// airflow/models/asset.py): an asset is registered the first time a DAG
// names it (a task's outlet or inlet) or an event is recorded for it; an
// event is recorded when a task that names the asset among its outlets
// succeeds (FinishTry), or through POST /api/v2/assets/events.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableAssets      = "assets"
	tableAssetEvents = "asset_events"

	counterAssetID      = "asset"
	counterAssetEventID = "asset_event"
)

// Asset is an asset: its identity is its name and its uri.
type Asset struct {
	ID        int64
	Name      string
	URI       string
	Group     string
	Extra     json.RawMessage // a JSON object, as given (order kept)
	CreatedAt time.Time
	UpdatedAt time.Time
	// References are what the DAGs say of the asset as Airflow keeps it
	// in rows of their own, each dated when it was recorded
	// (memstore_assetrefs.go); by kind, dag_id and task_id.
	References []AssetReference
}

// AssetReference is a reference row of an asset: a DAG scheduled on it
// (DagScheduleAssetReference, TaskID ""), a task that has it among its
// outlets (TaskOutletAssetReference) or inlets (TaskInletAssetReference).
// Since is its created_at and updated_at: Airflow sets both when the row
// is inserted and never changes them.
type AssetReference struct {
	Kind   AssetRefKind
	DagID  string
	TaskID string
	Since  time.Time
}

// AssetRefKind is the kind of an asset reference.
type AssetRefKind string

const (
	AssetScheduled AssetRefKind = "scheduled"
	AssetProducing AssetRefKind = "producing"
	AssetConsuming AssetRefKind = "consuming"
)

// AssetEvent is one change of an asset: by a task (its source), or by a
// client (no source).
type AssetEvent struct {
	ID             int64
	AssetID        int64
	Extra          json.RawMessage // a JSON object
	SourceDagID    *string
	SourceTaskID   *string
	SourceRunID    *string
	SourceMapIndex int
	// SourceAliasIDs are the aliases the event came through (an event a
	// task added through outlet_events[AssetAlias(...)]); none: none.
	SourceAliasIDs []int64
	PartitionKey   *string
	Timestamp      time.Time
}

// assetRef is an asset as a DAG names it.
type assetRef struct {
	Name, URI, Group string
	Extra            json.RawMessage
}

// assetsTable holds assets by id, by (name, uri), and by name, uri,
// created_at and updated_at for a listing's orders
// (memstore_assetrefs.go). Assets come with DAG
// files and events of new assets, so the indexes cost little.
func assetsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAssets,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: intField[Asset]{func(a *Asset) int64 { return a.ID }}},
			"name_uri": {Name: "name_uri", Unique: true, Indexer: stringField[Asset]{func(a *Asset) string {
				return assetKey(a.Name, a.URI)
			}}},
			indexAssetName: {Name: indexAssetName, Indexer: stringField[Asset]{func(a *Asset) string { return a.Name }}},
			indexAssetURI:  {Name: indexAssetURI, Indexer: stringField[Asset]{func(a *Asset) string { return a.URI }}},
			// Nanoseconds, as the listing compares times (instants
			// between the years 1678 and 2262: every asset's).
			indexAssetCreated: {Name: indexAssetCreated, Indexer: intField[Asset]{func(a *Asset) int64 { return a.CreatedAt.UnixNano() }}},
			indexAssetUpdated: {Name: indexAssetUpdated, Indexer: intField[Asset]{func(a *Asset) int64 { return a.UpdatedAt.UnixNano() }}},
			// The assets with references: those a DAG named when the
			// references were last recorded, whose references go when
			// no DAG names them any more.
			indexAssetReferenced: {Name: indexAssetReferenced, Indexer: &memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
				return len(obj.(*Asset).References) > 0, nil
			}}},
		},
	}
}

// assetEventsTable holds asset events by id, and by (timestamp, id):
// get_asset_events' default order (routes/public/assets.py, SortParam's
// default "timestamp" with the primary key after it). Events come with
// tries that have outlets or from the API, seldom against runs and task
// instances, so the second index costs little.
func assetEventsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAssetEvents,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:        {Name: indexID, Unique: true, Indexer: intField[AssetEvent]{func(e *AssetEvent) int64 { return e.ID }}},
			indexTimestamp: {Name: indexTimestamp, Unique: true, Indexer: assetEventTimeIndex{}},
			indexAssetTime: {Name: indexAssetTime, Unique: true, Indexer: assetEventLastIndex{}},
		},
	}
}

// indexAssetTime orders asset events by (asset_id, timestamp, id): an
// asset's last event is one seek (LastAssetEvents), where a listing of
// assets read every event.
const indexAssetTime = "asset_time"

// assetEventLastIndex keys an event as encodeInt64(asset_id),
// encodeTime(timestamp) and encodeSeq(id); FromArgs takes an asset id,
// the start of its events' keys and the end of the one before's, and
// optionally a time, the start of its events from then on.
type assetEventLastIndex struct{}

func (assetEventLastIndex) FromObject(obj any) (bool, []byte, error) {
	e, ok := obj.(*AssetEvent)
	if !ok {
		return false, nil, fmt.Errorf("asset event index: want *AssetEvent, got %T", obj)
	}
	if e.ID < 0 {
		return false, nil, fmt.Errorf("asset event index: negative id %d", e.ID)
	}
	k := append(make([]byte, 0, 48), encodeInt64(e.AssetID)...)
	return true, append(appendTime(k, e.Timestamp), encodeSeq(e.ID)...), nil
}

func (assetEventLastIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("asset event index: want an asset id and a time, got %d arguments", len(args))
	}
	id, ok := args[0].(int64)
	if !ok {
		return nil, fmt.Errorf("asset event index: want an int64 asset id, got %T", args[0])
	}
	k := encodeInt64(id)
	if len(args) == 2 {
		t, ok := args[1].(time.Time)
		if !ok {
			return nil, fmt.Errorf("asset event index: want a time.Time, got %T", args[1])
		}
		k = appendTime(k, t)
	}
	return k, nil
}

// AssetEventsBetween are the events of the assets ids with a timestamp
// after after (nil: any) and not after until, by id: a seek and a walk of
// those events per asset, where the listing of every event read them all.
func (v storeView) AssetEventsBetween(ids []int64, after *time.Time, until time.Time) ([]*AssetEvent, error) {
	var out []*AssetEvent
	for _, id := range ids {
		args := []any{id}
		if after != nil {
			args = append(args, *after)
		}
		it, err := v.txn.LowerBound(tableAssetEvents, indexAssetTime, args...)
		if err != nil {
			return nil, fmt.Errorf("list events of asset %d: %w", id, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			e := raw.(*AssetEvent)
			if e.AssetID != id || e.Timestamp.After(until) {
				break
			}
			if after == nil || e.Timestamp.After(*after) {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b *AssetEvent) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// LastAssetEvents are the last events of the assets ids (the latest
// timestamp, the highest id among equals), by asset id: a seek each.
func (s *Store) LastAssetEvents(ids []int64) (map[int64]*AssetEvent, error) {
	txn := s.read()
	out := make(map[int64]*AssetEvent, len(ids))
	read := 0
	for _, id := range ids {
		if id == math.MaxInt64 {
			continue // no id after it to seek before
		}
		// The greatest key before the next asset's first is this
		// asset's last event, if it has one.
		it, err := txn.ReverseLowerBound(tableAssetEvents, indexAssetTime, id+1)
		if err != nil {
			return nil, fmt.Errorf("find the last event of asset %d: %w", id, err)
		}
		if raw := it.Next(); raw != nil {
			read++
			if raw.(*AssetEvent).AssetID == id {
				out[id] = raw.(*AssetEvent)
			}
		}
	}
	if s.rowsRead != nil {
		s.rowsRead(read)
	}
	return out, nil
}

// indexTimestamp orders asset events, and import errors, by (timestamp,
// id).
const indexTimestamp = "timestamp"

// assetEventTimeIndex keys an event as encodeTime(timestamp) and
// encodeSeq(id); it is only walked whole.
type assetEventTimeIndex struct{}

func (assetEventTimeIndex) FromObject(obj any) (bool, []byte, error) {
	e, ok := obj.(*AssetEvent)
	if !ok {
		return false, nil, fmt.Errorf("asset event time index: want *AssetEvent, got %T", obj)
	}
	if e.ID < 0 {
		return false, nil, fmt.Errorf("asset event time index: negative id %d", e.ID)
	}
	return true, append(appendTime(make([]byte, 0, 32), e.Timestamp), encodeSeq(e.ID)...), nil
}

func (assetEventTimeIndex) FromArgs(args ...any) ([]byte, error) {
	return nil, fmt.Errorf("asset event time index: walked whole, not looked up (%d arguments)", len(args))
}

// AssetEventPage is a page of every asset event by timestamp (descending
// when desc), ties by id ascending or, with tiesFollow, in the
// timestamp's direction, and how many events there are (a total the
// inserts keep). It reads the page, the events its offset skips and,
// descending with ties ascending, the rest of its last timestamp's events
// (pickPage).
func (s *Store) AssetEventPage(desc, tiesFollow bool, offset, limit int) ([]*AssetEvent, int, error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	total := int(totalTxn(txn, totalAssetEvents))
	if offset >= total || limit == 0 {
		return []*AssetEvent{}, total, nil
	}
	walk := txn.Get
	if desc {
		walk = txn.GetReverse
	}
	it, err := walk(tableAssetEvents, indexTimestamp)
	if err != nil {
		return nil, 0, fmt.Errorf("list asset events: %w", err)
	}
	var tied func(a, b *AssetEvent) bool
	if desc && !tiesFollow {
		// Descending, the events of one timestamp come by id descending.
		tied = func(a, b *AssetEvent) bool { return a.Timestamp.Equal(b.Timestamp) }
	}
	page, _, read := pickPage(it, offset, limit, nil, tied, false)
	return page, total, nil
}

// AssetEventFilteredPage is AssetEventPage over the events keep picks:
// of the asset with id assetID (nil: of every asset; that asset's part of
// the (asset_id, timestamp, id) index is walked), and how many it picks,
// counted once per version of the rows walked under countKey, which
// names keep (tablePageOf).
func (s *Store) AssetEventFilteredPage(assetID *int64, desc, tiesFollow bool, offset, limit int, keep func(*AssetEvent) bool, countKey string) ([]*AssetEvent, int, error) {
	var tied func(a, b *AssetEvent) bool
	if desc && !tiesFollow {
		tied = func(a, b *AssetEvent) bool { return a.Timestamp.Equal(b.Timestamp) }
	}
	if assetID != nil {
		// The count is remembered under the watch channel of the asset's
		// part of the index, which an asset without events shares with
		// its neighbours: the key names the asset.
		return tablePageOf(s, tableAssetEvents, indexAssetTime, []any{*assetID}, desc, offset, limit, keep, tied,
			fmt.Sprintf("asset %d %s", *assetID, countKey))
	}
	return tablePageOf(s, tableAssetEvents, indexTimestamp, nil, desc, offset, limit, keep, tied, countKey)
}

// Assets lists every asset by id.
func (s *Store) Assets() ([]*Asset, error) {
	all, err := allRows[Asset](s.read(), tableAssets, "assets")
	if s.rowsRead != nil {
		s.rowsRead(len(all))
	}
	return all, err
}

// AssetByID is one asset, or errNotFound.
func (s *Store) AssetByID(id int64) (*Asset, error) { return assetBy(s.read(), indexID, id) }

// AssetByIDRead is AssetByID, telling rowsRead of the row it read (a
// listing that looks assets up as it goes).
func (s *Store) AssetByIDRead(id int64) (*Asset, error) {
	a, err := assetBy(s.read(), indexID, id)
	if s.rowsRead != nil && err == nil {
		s.rowsRead(1)
	}
	return a, err
}

// AssetByURI is the asset at uri of the lowest id, or errNotFound.
func (s *Store) AssetByURI(uri string) (*Asset, error) { return assetBy(s.read(), indexAssetURI, uri) }

// assetBy is the first asset in index at key, or errNotFound.
func assetBy(txn *memdb.Txn, index string, key any) (*Asset, error) {
	raw, err := txn.First(tableAssets, index, key)
	if err != nil {
		return nil, fmt.Errorf("look up asset %v: %w", key, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Asset), nil
}

// AssetEvents lists every asset event by id.
func (s *Store) AssetEvents() ([]*AssetEvent, error) {
	all, err := storeView{s.read()}.AssetEvents()
	if s.rowsRead != nil {
		s.rowsRead(len(all))
	}
	return all, err
}

// EnsureAssets registers the assets refs name that are not registered
// yet, at now, in the order given.
func (s *Store) EnsureAssets(refs []assetRef, now time.Time) error {
	txn := s.read()
	missing := slices.DeleteFunc(slices.Clone(refs), func(r assetRef) bool {
		raw, err := txn.First(tableAssets, "name_uri", r.Name+"\x00"+r.URI)
		return err == nil && raw != nil
	})
	if len(missing) == 0 {
		return nil // nothing to write: reads stay reads
	}
	return s.update(func(txn *memdb.Txn) error {
		for _, r := range missing {
			if _, err := ensureAssetTxn(txn, r, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// ensureAssetTxn is the asset r names, registered at now if new.
func ensureAssetTxn(txn *memdb.Txn, r assetRef, now time.Time) (*Asset, error) {
	raw, err := txn.First(tableAssets, "name_uri", r.Name+"\x00"+r.URI)
	if err != nil {
		return nil, fmt.Errorf("look up asset %s: %w", r.URI, err)
	}
	if raw != nil {
		return raw.(*Asset), nil
	}
	id, err := nextCounter(txn, counterAssetID)
	if err != nil {
		return nil, err
	}
	a := &Asset{ID: id, Name: r.Name, URI: r.URI, Group: r.group(), Extra: r.extra(), CreatedAt: now, UpdatedAt: now}
	if err := txn.Insert(tableAssets, a); err != nil {
		return nil, fmt.Errorf("store asset %s: %w", r.URI, err)
	}
	return a, nil
}

// AddAssetEvent records an event of the asset with id e.AssetID (which
// must exist: errNotFound) and returns it with its id.
func (s *Store) AddAssetEvent(e AssetEvent) (*AssetEvent, error) {
	var out *AssetEvent
	err := s.update(func(txn *memdb.Txn) error {
		raw, err := txn.First(tableAssets, indexID, e.AssetID)
		if err != nil {
			return fmt.Errorf("look up asset %d: %w", e.AssetID, err)
		}
		if raw == nil {
			return errNotFound
		}
		out, err = insertAssetEventTxn(txn, e)
		return err
	})
	return out, err
}

func insertAssetEventTxn(txn *memdb.Txn, e AssetEvent) (*AssetEvent, error) {
	id, err := nextCounter(txn, counterAssetEventID)
	if err != nil {
		return nil, err
	}
	e.ID = id
	if err := txn.Insert(tableAssetEvents, &e); err != nil {
		return nil, fmt.Errorf("store asset event: %w", err)
	}
	if err := addTotalTxn(txn, totalAssetEvents, 1); err != nil {
		return nil, err
	}
	raw, err := txn.First(tableAssets, indexID, e.AssetID)
	if err != nil {
		return nil, fmt.Errorf("look up asset %d: %w", e.AssetID, err)
	}
	// An event with a partition key (even "") queues no DAG that is not
	// partition-aware, and airlite's DAGs never are (3.2.0's
	// assets/manager.py _queue_dagruns, apache/airflow#63848); it is still
	// among the events a later run consumes. Only Airflow 3's events
	// carry a key.
	if raw != nil && e.PartitionKey == nil {
		aliases, err := aliasNamesTxn(txn, e.SourceAliasIDs)
		if err != nil {
			return nil, err
		}
		if err := queueAssetEventTxn(txn, raw.(*Asset), aliases, e.Timestamp); err != nil {
			return nil, err
		}
	}
	return &e, nil
}

// recordLineageEventsTxn records the asset events of a successful try
// from the lineage it left (its outlets, as the lineage table keeps them).
func recordLineageEventsTxn(txn *memdb.Txn, ti *TaskInstance, rec *LineageRecord, extras map[string]json.RawMessage, at time.Time) error {
	if ti.State != TaskSuccess || len(rec.Outlets) == 0 {
		return nil
	}
	var outlets []any
	if err := json.Unmarshal(rec.Outlets, &outlets); err != nil {
		return nil // outlets that are no list name no asset
	}
	return recordOutletEventsTxn(txn, ti, outlets, extras, at)
}

// recordOutletEventsTxn records an event of each asset among a finished
// task's outlets (a task instance that succeeded), registering an asset
// seen for the first time: what Airflow's task runner does with the
// outlets of a successful task (register_asset_change).
func recordOutletEventsTxn(txn *memdb.Txn, ti *TaskInstance, outlets []any, extras map[string]json.RawMessage, at time.Time) error {
	for _, o := range outlets {
		ref, ok := assetOf(o)
		if !ok {
			continue
		}
		a, err := ensureAssetTxn(txn, ref, at)
		if err != nil {
			return err
		}
		dagID, taskID, runID := ti.DagID, ti.TaskID, ti.RunID
		extra := extras[ref.Name+"\x00"+ref.URI]
		if extra == nil {
			extra = json.RawMessage("{}")
		}
		if _, err := insertAssetEventTxn(txn, AssetEvent{AssetID: a.ID, Extra: extra, SourceDagID: &dagID,
			SourceTaskID: &taskID, SourceRunID: &runID, SourceMapIndex: ti.MapIndex, Timestamp: at}); err != nil {
			return err
		}
	}
	return nil
}

// assetOf reads an outlet or an inlet as an asset: an object with a uri
// or a name (Asset(uri=...) names itself by its uri, Asset(name=...)
// takes its name as its uri), as a DAG file writes it or as Airflow
// serializes an Asset or a Dataset ({"__type": "asset", ...}).
func assetOf(v any) (assetRef, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return assetRef{}, false
	}
	if typ, ok := m["__type"].(string); ok && typ != "asset" && typ != "dataset" {
		return assetRef{}, false
	}
	if inner, ok := m["__var"].(map[string]any); ok {
		m = inner
	}
	uri, _ := m["uri"].(string)
	name, _ := m["name"].(string)
	if uri == "" && name == "" {
		return assetRef{}, false
	}
	ref := assetRef{Name: cmp.Or(name, uri), URI: cmp.Or(uri, name)}
	ref.Group, _ = m["group"].(string)
	if extra, ok := m["extra"].(map[string]any); ok {
		if b, err := spacedJSON.marshal(extra); err == nil {
			ref.Extra = b
		}
	}
	return ref, true
}

// checkAsset is what a restored asset must be: an id, a uri and a name,
// and an extra that is a JSON object.
func checkAsset(obj any) error {
	a := obj.(*Asset)
	if err := checkRowKeys("name", a.Name, "uri", a.URI); err != nil {
		return err
	}
	if err := checkJSONObject("extra", a.Extra); err != nil {
		return err
	}
	if err := checkDates(namedDate{"created_at", &a.CreatedAt}, namedDate{"updated_at", &a.UpdatedAt}); err != nil {
		return err
	}
	for i := range a.References {
		r := &a.References[i]
		switch r.Kind {
		case AssetScheduled, AssetProducing, AssetConsuming:
		default:
			return fmt.Errorf("reference kind %q is not scheduled, producing or consuming", r.Kind)
		}
		if err := checkRowKeys("reference dag_id", r.DagID); err != nil {
			return err
		}
		if err := checkDates(namedDate{"reference since", &r.Since}); err != nil {
			return err
		}
	}
	return checkRowID("id", a.ID)
}

// checkAssetEvent is what a restored asset event must be.
func checkAssetEvent(obj any) error {
	e := obj.(*AssetEvent)
	if err := checkRowID("asset_id", e.AssetID); err != nil {
		return err
	}
	if err := checkJSONObject("extra", e.Extra); err != nil {
		return err
	}
	if err := checkDates(namedDate{"timestamp", &e.Timestamp}); err != nil {
		return err
	}
	return checkRowID("id", e.ID)
}

// checkJSONObject refuses a value that is not a JSON object.
func checkJSONObject(name string, raw json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s is not a JSON object: %w", name, err)
	}
	return nil
}
