package main

// Datasets and DAG-file parse requests (Airflow 2.10.3
// airflow/api_connexion/endpoints/dataset_endpoint.py, dag_parsing.py).
// Airflow 2's datasets are the rows of Airflow 3's assets (the same
// store, the same scheduler: scheduler_assets.go), named by uri. A parse
// request for a known file has the DAG folder's reloader read it at once
// (dag_reload.go).

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The datasets' faults.
const (
	faultDatasetNotFound        opFault = "dataset_not_found"          // uri
	faultDatasetOfEventNotFound opFault = "dataset_of_event_not_found" // uri: an event's dataset, worded apart by Airflow
	faultQueuedEventNotFound    opFault = "queued_event_not_found"     // dag_id and/or uri
)

// datasetOrders and datasetEventOrders are the attributes the (empty)
// listings are ordered by (allowed_attrs).
var (
	datasetOrders      = []string{"id", "uri", "created_at", "updated_at"}
	datasetEventOrders = []string{"source_dag_id", "source_task_id", "source_run_id", "source_map_index", "timestamp"}
)

// dataset is the dataset at uri (of the lowest id, should two assets
// share it).
func (o *operations) dataset(uri string) (assetView, error) {
	return o.assetViewBy(func() (*Asset, error) { return o.store.AssetByURI(uri) }, opErr(errNotFound, faultDatasetNotFound, "uri", uri))
}

// datasetQuery is the stable API's listing of datasets (get_datasets):
// uri_pattern, the DAGs scheduled on a dataset or producing it, an order.
type datasetQuery struct {
	uri    *regexp.Regexp
	dagIDs []string
	key    sortKey
	offset int
	limit  int
}

// datasets lists datasets as q asks. Its total counts every dataset,
// filtered or not, as get_datasets counts them before it filters. With
// dag_ids it reads the assets those DAGs produce or are scheduled on (a
// list per DAG, kept per version of the tables) and sorts them; otherwise
// it walks the asset table's index in the order asked for to the page's
// end, a uri_pattern picking as it goes.
func (o *operations) datasets(q datasetQuery) (listed[assetView], error) {
	named, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile)
	if err != nil {
		return listed[assetView]{}, err
	}
	keys := []sortKey{q.key}
	var page listed[*Asset]
	_, total, err := o.store.AssetPage(assetByID, false, false, 0, 0, nil, "")
	if err != nil {
		return listed[assetView]{}, err
	}
	order, desc, tiesUp, indexed := assetIndexOrder(keys)
	switch {
	case len(q.dagIDs) > 0:
		page = listKeyed(filterAssets(named.NamedBy(q.dagIDs, false), nil, q.uri), nil, keyedQuery{keys: keys, offset: q.offset, limit: q.limit}, compareAssets)
	case indexed:
		keep, countKey := assetPatternKeep(nil, q.uri)
		if page.rows, _, err = o.store.AssetPage(order, desc, tiesUp, q.offset, q.limit, keep, countKey); err != nil {
			return listed[assetView]{}, err
		}
	default:
		all, err := o.store.Assets()
		if err != nil {
			return listed[assetView]{}, err
		}
		page = listKeyed(filterAssets(all, nil, q.uri), nil, keyedQuery{keys: keys, offset: q.offset, limit: q.limit}, compareAssets)
	}
	views, err := o.assetViewsOf(named, page.rows)
	return listed[assetView]{rows: views, total: total}, err
}

// assetPatternKeep is patternKeep for an asset's name and uri (nil: no
// filter).
func assetPatternKeep(name, uri *regexp.Regexp) (keep func(*Asset) bool, countKey string) {
	if name == nil && uri == nil {
		return nil, "all"
	}
	_, nameKey := patternKeep(name)
	_, uriKey := patternKeep(uri)
	return func(a *Asset) bool {
		return (name == nil || name.MatchString(a.Name)) && (uri == nil || uri.MatchString(a.URI))
	}, "name " + nameKey + " uri " + uriKey
}

// filterAssets are the assets of rows whose name and uri the patterns
// pick (nil: any), in a slice of their own.
func filterAssets(rows []*Asset, name, uri *regexp.Regexp) []*Asset {
	keep, _ := assetPatternKeep(name, uri)
	out := make([]*Asset, 0, len(rows))
	for _, a := range rows {
		if keep == nil || keep(a) {
			out = append(out, a)
		}
	}
	return out
}

// compareAssets is listKeyed's comparison of assets by an attribute a
// listing orders them by (id otherwise).
func compareAssets(a, b *Asset, attr string) int {
	switch attr {
	case "name":
		return strings.Compare(a.Name, b.Name)
	case "uri":
		return strings.Compare(a.URI, b.URI)
	case "created_at":
		return a.CreatedAt.Compare(b.CreatedAt)
	case "updated_at":
		return a.UpdatedAt.Compare(b.UpdatedAt)
	}
	return cmp.Compare(a.ID, b.ID)
}

// assetIndexOrder says whether an index keeps the order keys ask for
// (listKeyed's: each key, then id ascending): the first key id, name,
// uri, created_at or updated_at, and after it nothing, or the id in its direction (SortParam's
// primary key, /api/v2: v2WithPK); and whether the ties of a descending
// name or uri go up (/api/v1, where listKeyed's id ascending decides).
func assetIndexOrder(keys []sortKey) (order assetOrder, desc, tiesUp, ok bool) {
	if len(keys) == 0 {
		return assetByID, false, false, true
	}
	k := keys[0]
	switch k.attr {
	case "id":
		order = assetByID
	case "name":
		order = assetByName
	case "uri":
		order = assetByURI
	case "created_at":
		order = assetByCreated
	case "updated_at":
		order = assetByUpdated
	default:
		return 0, false, false, false
	}
	switch {
	case len(keys) == 1:
		return order, k.desc, k.desc && order != assetByID, true
	case len(keys) == 2 && keys[1].attr == "id" && keys[1].desc == k.desc:
		return order, k.desc, false, true
	}
	return 0, false, false, false
}

// createDatasetEvent records an event of the dataset at uri, which must
// exist, with extra (the body's, from_rest_api added: 2.10.3
// create_dataset_event).
func (o *operations) createDatasetEvent(uri string, extra json.RawMessage) (assetEventView, error) {
	a, err := o.dataset(uri)
	if errors.Is(err, errNotFound) {
		return assetEventView{}, opErr(errNotFound, faultDatasetOfEventNotFound, "uri", uri)
	}
	if err != nil {
		return assetEventView{}, err
	}
	return o.createAssetEvent(a.ID, extra, nil)
}

// datasetQueuedEvents are the queue entries of a DAG ("": any) and a
// dataset ("": any), created before before (nil: any), each with its
// dataset's uri; none is the queued events' fault.
func (o *operations) datasetQueuedEvents(dagID, uri string, before *time.Time) ([]*AssetQueueEntry, map[int64]string, error) {
	var assetID int64
	if uri != "" {
		a, err := o.dataset(uri)
		if errors.Is(err, errNotFound) {
			return nil, nil, queuedEvents(dagID, uri)
		}
		if err != nil {
			return nil, nil, err
		}
		assetID = a.ID
	}
	rows, err := o.store.QueuedAssetEvents(dagID, assetID)
	if err != nil {
		return nil, nil, err
	}
	rows = slices.DeleteFunc(rows, func(e *AssetQueueEntry) bool { return before != nil && !e.CreatedAt.Before(*before) })
	if len(rows) == 0 {
		return nil, nil, queuedEvents(dagID, uri)
	}
	uris := map[int64]string{}
	for _, e := range rows {
		if a, err := o.store.AssetByID(e.AssetID); err == nil {
			uris[e.AssetID] = a.URI
		}
	}
	return rows, uris, nil
}

// deleteDatasetQueuedEvents removes those entries; none is the fault.
func (o *operations) deleteDatasetQueuedEvents(dagID, uri string, before *time.Time) error {
	var assetID int64
	if uri != "" {
		a, err := o.dataset(uri)
		if errors.Is(err, errNotFound) {
			return queuedEvents(dagID, uri)
		}
		if err != nil {
			return err
		}
		assetID = a.ID
	}
	n, err := o.store.DeleteQueuedAssetEvents(dagID, assetID, before)
	if err != nil {
		return err
	}
	if n == 0 {
		return queuedEvents(dagID, uri)
	}
	return nil
}

// queuedEvents are the queued dataset events of a DAG, a dataset, or the
// pair ("" for either: any): there are none. It reads nothing, so it
// needs no operations.
func queuedEvents(dagID, uri string) error {
	return opErr(errNotFound, faultQueuedEventNotFound, "dag_id", dagID, "uri", uri)
}

// Airflow 3's assets (Airflow 3.2.1 core_api/routes/public/assets.py):
// the assets the DAGs name and those events made known, their events
// (memstore_assets.go), and the queued events of DAGs scheduled on
// assets (memstore_assetqueue.go).
const (
	faultAssetNotFound          opFault = "asset_not_found"          // asset_id
	faultAssetOfEventNotFound   opFault = "asset_of_event_not_found" // asset_id: POST /assets/events words it apart
	faultAssetAliasNotFound     opFault = "asset_alias_not_found"    // alias_id
	faultAssetQueuedNotFound    opFault = "asset_queued_not_found"   // asset_id and/or dag_id
	faultAssetNoMaterializer    opFault = "asset_no_materializer"    // asset_id: no DAG has it among its outlets
	faultAssetManyMaterializers opFault = "asset_many_materializers" // asset_id
)

// assetView is an asset with what the DAGs say of it now and its last
// event.
type assetView struct {
	*Asset
	assetNaming
	LastEvent *AssetEvent
	// Aliases are the aliases events came to the asset through
	// (AssetModel.aliases), by id.
	Aliases []*AssetAlias
}

// assetViewsOf are the views of assets: what the DAGs say of each, its
// aliases, and its last event (the latest timestamp, the highest id among
// equals: a seek each).
func (o *operations) assetViewsOf(named *NamedAssets, assets []*Asset) ([]assetView, error) {
	ids := make([]int64, len(assets))
	for i, a := range assets {
		ids[i] = a.ID
	}
	last, err := o.store.LastAssetEvents(ids)
	if err != nil {
		return nil, err
	}
	out := make([]assetView, len(assets))
	for i, a := range assets {
		out[i] = assetView{Asset: a, assetNaming: named.Naming(a), LastEvent: last[a.ID], Aliases: named.Aliases(a.ID)}
	}
	return out, nil
}

// assetQuery is an Airflow 3 listing of assets: name and uri filters,
// the DAGs that name them, only those a DAG names now, the order.
type assetQuery struct {
	name, uri  *regexp.Regexp
	dagIDs     []string
	onlyActive bool
	keys       []sortKey
	offset     int
	limit      int
}

// assets lists assets as q asks. With dag_ids it reads the assets those
// DAGs name (a list per DAG, kept per version of the tables: the DAGs
// name only active assets) and sorts them. Otherwise, in an order an
// index keeps (the first key id, name, uri, created_at or updated_at,
// either way), it walks that order to the page's end, of the assets the
// DAGs name (only_active) in the lists the store keeps of them, of every
// asset in the table's index; a name or uri pattern picks as it walks,
// its total counted once per version of the tables and pattern. Two
// order keys sort every asset (of those the DAGs name, with only_active).
func (o *operations) assets(q assetQuery) (listed[assetView], error) {
	named, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile)
	if err != nil {
		return listed[assetView]{}, err
	}
	var page listed[*Asset]
	order, desc, tiesUp, indexed := assetIndexOrder(q.keys)
	keep, countKey := assetPatternKeep(q.name, q.uri)
	switch {
	case q.dagIDs != nil:
		page = listKeyed(filterAssets(named.NamedBy(q.dagIDs, true), q.name, q.uri), nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, compareAssets)
	case !indexed || (q.onlyActive && tiesUp):
		all := named.Active()
		if !q.onlyActive {
			if all, err = o.store.Assets(); err != nil {
				return listed[assetView]{}, err
			}
		}
		page = listKeyed(filterAssets(all, q.name, q.uri), nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, compareAssets)
	case q.onlyActive:
		page.rows, page.total = named.Page(order, desc, q.offset, q.limit, keep, countKey)
	default:
		if page.rows, page.total, err = o.store.AssetPage(order, desc, tiesUp, q.offset, q.limit, keep, countKey); err != nil {
			return listed[assetView]{}, err
		}
	}
	views, err := o.assetViewsOf(named, page.rows)
	return listed[assetView]{rows: views, total: page.total}, err
}

// asset is the asset with id.
func (o *operations) asset(id int64) (assetView, error) {
	return o.assetViewBy(func() (*Asset, error) { return o.store.AssetByID(id) },
		opErr(errNotFound, faultAssetNotFound, "asset_id", strconv.FormatInt(id, 10)))
}

// assetViewBy is the view of the asset lookup finds, once the DAGs'
// assets are registered; notFound when there is none.
func (o *operations) assetViewBy(lookup func() (*Asset, error), notFound error) (assetView, error) {
	named, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile)
	if err != nil {
		return assetView{}, err
	}
	a, err := lookup()
	if errors.Is(err, errNotFound) {
		return assetView{}, notFound
	}
	if err != nil {
		return assetView{}, err
	}
	views, err := o.assetViewsOf(named, []*Asset{a})
	if err != nil {
		return assetView{}, err
	}
	return views[0], nil
}

// assetEventQuery is an Airflow 3 listing of asset events.
type assetEventQuery struct {
	assetID                          *int64
	sourceDagID, sourceTaskID, runID *string
	mapIndex                         *int64
	name                             *regexp.Regexp
	gte, gt, lte, lt                 *time.Time
	keys                             []sortKey
	offset, limit                    int
}

// filtered says whether q has a filter.
func (q assetEventQuery) filtered() bool {
	return q.assetID != nil || q.sourceDagID != nil || q.sourceTaskID != nil || q.runID != nil || q.mapIndex != nil ||
		q.name != nil || q.gte != nil || q.gt != nil || q.lte != nil || q.lt != nil
}

// filterKey names q's filters, for the count of the events they pick.
func (q assetEventQuery) filterKey() string {
	str := func(s *string) string {
		if s == nil {
			return "None"
		}
		return strconv.Quote(*s)
	}
	num := func(n *int64) string {
		if n == nil {
			return "None"
		}
		return strconv.FormatInt(*n, 10)
	}
	name := "None"
	if q.name != nil {
		name = strconv.Quote(q.name.String())
	}
	return fmt.Sprintf("dag=%s task=%s run=%s map=%s name=%s gte=%s gt=%s lte=%s lt=%s", str(q.sourceDagID), str(q.sourceTaskID),
		str(q.runID), num(q.mapIndex), name, timeKey(q.gte), timeKey(q.gt), timeKey(q.lte), timeKey(q.lt))
}

// pagedOrder says whether the store's (timestamp, id) index serves q:
// ordered by timestamp either way (the default of get_asset_events and of
// 2.10.3's get_dataset_events, which share this), its ties by id
// ascending (listKeyed's last key, /api/v1) or, when q names the id after
// it in the same direction (SortParam's primary key, /api/v2: v2WithPK),
// in that direction; with filters, one asset's events from the
// (asset_id, timestamp) index. The orders by the source's ids or map
// index sort every event.
func (q assetEventQuery) pagedOrder() (desc, tiesFollow, ok bool) {
	if len(q.keys) == 0 || q.keys[0].attr != "timestamp" {
		return false, false, false
	}
	desc = q.keys[0].desc
	switch {
	case len(q.keys) == 1:
		return desc, false, true
	case len(q.keys) == 2 && q.keys[1].attr == "id" && q.keys[1].desc == desc:
		return desc, true, true
	}
	return false, false, false
}

// pageAssetEvents is assetEvents' answer from the store's page, each
// event with its asset (nil when it is gone). A filter picks as the
// index is walked (one asset's part of it for asset_id); a name pattern
// looks up the asset of each event the walk meets, once an asset, where
// every asset was read to know those it names.
func (o *operations) pageAssetEvents(q assetEventQuery, desc, tiesFollow bool) (listed[assetEventView], error) {
	var events []*AssetEvent
	var total int
	var err error
	if !q.filtered() {
		events, total, err = o.store.AssetEventPage(desc, tiesFollow, q.offset, q.limit)
	} else {
		var named func(id int64) bool
		var lookupErr error
		if q.name != nil {
			seen := map[int64]bool{}
			named = func(id int64) bool {
				matched, ok := seen[id]
				if !ok {
					a, err := o.store.AssetByIDRead(id)
					if err != nil && !errors.Is(err, errNotFound) {
						lookupErr = cmp.Or(lookupErr, err)
					}
					matched = a != nil && q.name.MatchString(a.Name)
					seen[id] = matched
				}
				return matched
			}
		}
		eq := func(want, got *string) bool { return want == nil || (got != nil && *got == *want) }
		keep := func(e *AssetEvent) bool {
			switch {
			case q.assetID != nil && e.AssetID != *q.assetID:
			case !eq(q.sourceDagID, e.SourceDagID), !eq(q.sourceTaskID, e.SourceTaskID), !eq(q.runID, e.SourceRunID):
			case q.mapIndex != nil && int64(e.SourceMapIndex) != *q.mapIndex:
			case named != nil && !named(e.AssetID):
			case q.gte != nil && e.Timestamp.Before(*q.gte), q.gt != nil && !e.Timestamp.After(*q.gt):
			case q.lte != nil && e.Timestamp.After(*q.lte), q.lt != nil && !e.Timestamp.Before(*q.lt):
			default:
				return true
			}
			return false
		}
		events, total, err = o.store.AssetEventFilteredPage(q.assetID, desc, tiesFollow, q.offset, q.limit, keep, q.filterKey())
		err = cmp.Or(err, lookupErr)
	}
	if err != nil {
		return listed[assetEventView]{}, err
	}
	rows := make([]assetEventView, len(events))
	assets := map[int64]*Asset{} // a page's events share few assets
	for i, e := range events {
		a, seen := assets[e.AssetID]
		if !seen {
			if a, err = o.store.AssetByID(e.AssetID); err != nil && !errors.Is(err, errNotFound) {
				return listed[assetEventView]{}, err
			}
			assets[e.AssetID] = a
		}
		rows[i] = assetEventView{AssetEvent: e, Asset: a}
	}
	return listed[assetEventView]{rows: rows, total: total}, nil
}

// assetEventView is an event with its asset.
type assetEventView struct {
	*AssetEvent
	Asset *Asset
}

// assetEvents lists asset events as q asks.
func (o *operations) assetEvents(q assetEventQuery) (listed[assetEventView], error) {
	if desc, tiesFollow, ok := q.pagedOrder(); ok {
		return o.pageAssetEvents(q, desc, tiesFollow)
	}
	events, err := o.store.AssetEvents()
	if err != nil {
		return listed[assetEventView]{}, err
	}
	assets, err := o.store.Assets()
	if err != nil {
		return listed[assetEventView]{}, err
	}
	byID := make(map[int64]*Asset, len(assets))
	for _, a := range assets {
		byID[a.ID] = a
	}
	eq := func(want, got *string) bool { return want == nil || (got != nil && *got == *want) }
	var kept []assetEventView
	for _, e := range events {
		a := byID[e.AssetID]
		switch {
		case q.assetID != nil && e.AssetID != *q.assetID:
		case !eq(q.sourceDagID, e.SourceDagID), !eq(q.sourceTaskID, e.SourceTaskID), !eq(q.runID, e.SourceRunID):
		case q.mapIndex != nil && int64(e.SourceMapIndex) != *q.mapIndex:
		case q.name != nil && (a == nil || !q.name.MatchString(a.Name)):
		case q.gte != nil && e.Timestamp.Before(*q.gte), q.gt != nil && !e.Timestamp.After(*q.gt):
		case q.lte != nil && e.Timestamp.After(*q.lte), q.lt != nil && !e.Timestamp.Before(*q.lt):
		default:
			kept = append(kept, assetEventView{AssetEvent: e, Asset: a})
		}
	}
	return listKeyed(kept, nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, func(a, b assetEventView, attr string) int {
		switch attr {
		case "source_task_id":
			return compareNullable(a.SourceTaskID, b.SourceTaskID, strings.Compare)
		case "source_dag_id":
			return compareNullable(a.SourceDagID, b.SourceDagID, strings.Compare)
		case "source_run_id":
			return compareNullable(a.SourceRunID, b.SourceRunID, strings.Compare)
		case "source_map_index":
			return cmp.Compare(a.SourceMapIndex, b.SourceMapIndex)
		case "timestamp":
			return a.Timestamp.Compare(b.Timestamp)
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}

// createAssetEvent records a change of the asset with id, by a client
// (asset_manager.register_asset_change): extra is the event's JSON
// object.
func (o *operations) createAssetEvent(id int64, extra json.RawMessage, partitionKey *string) (assetEventView, error) {
	if _, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile); err != nil { // the DAGs' assets are known
		return assetEventView{}, err
	}
	e, err := o.store.AddAssetEvent(AssetEvent{AssetID: id, Extra: extra, SourceMapIndex: -1, PartitionKey: partitionKey, Timestamp: o.clock()})
	if errors.Is(err, errNotFound) {
		return assetEventView{}, opErr(errNotFound, faultAssetOfEventNotFound, "asset_id", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return assetEventView{}, err
	}
	a, err := o.store.AssetByID(id)
	if err != nil {
		return assetEventView{}, err
	}
	return assetEventView{AssetEvent: e, Asset: a}, nil
}

// consumedAssetEvents are the asset events run consumed, with their
// assets (DagRun.consumed_asset_events).
func (o *operations) consumedAssetEvents(run *DagRun) ([]assetEventView, error) {
	events, err := o.store.ConsumedAssetEvents(run.ID)
	if err != nil {
		return nil, err
	}
	out := make([]assetEventView, 0, len(events))
	for _, e := range events {
		a, err := o.store.AssetByID(e.AssetID)
		if err != nil && !errors.Is(err, errNotFound) {
			return nil, err
		}
		out = append(out, assetEventView{AssetEvent: e, Asset: a})
	}
	return out, nil
}

// aliasQuery is an Airflow 3 listing of asset aliases: a name filter
// and the order.
type aliasQuery struct {
	name          *regexp.Regexp
	keys          []sortKey
	offset, limit int
}

// assetAliases lists the aliases the DAGs name and those events came
// through, as q asks: a page of the alias table's index by id or name.
func (o *operations) assetAliases(q aliasQuery) (listed[*AssetAlias], error) {
	if _, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile); err != nil { // the DAGs' aliases are known
		return listed[*AssetAlias]{}, err
	}
	kq := keyedQuery{match: q.name, keys: q.keys, offset: q.offset, limit: q.limit}
	if res, ok, err := pageKeyed(kq, "name", o.store.AliasKeyedPage); ok || err != nil {
		return res, err
	}
	all, err := o.store.AssetAliases()
	if err != nil {
		return listed[*AssetAlias]{}, err
	}
	return listKeyed(all, func(a *AssetAlias) string { return a.Name }, kq, func(a, b *AssetAlias, attr string) int {
		if attr == "name" {
			return strings.Compare(a.Name, b.Name)
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}

// assetAlias is the alias with id.
func (o *operations) assetAlias(id int64) (*AssetAlias, error) {
	if _, err := o.store.NamedAssets(o.clock(), o.rules().assetsFollowFile); err != nil { // the DAGs' aliases are known
		return nil, err
	}
	a, err := o.store.AssetAliasByID(id)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultAssetAliasNotFound, "alias_id", strconv.FormatInt(id, 10))
	}
	return a, err
}

// queuedAssetEvents are the queue entries (AssetDagRunQueue) of a DAG,
// an asset, or the pair ("" and 0: any), created before before (nil:
// any) (_generate_queued_event_where_clause). The pair's route wants
// one: none is its fault.
func (o *operations) queuedAssetEvents(dagID string, assetID int64, before *time.Time) ([]*AssetQueueEntry, error) {
	rows, err := o.store.QueuedAssetEvents(dagID, assetID)
	if err != nil {
		return nil, err
	}
	rows = slices.DeleteFunc(rows, func(e *AssetQueueEntry) bool { return before != nil && !e.CreatedAt.Before(*before) })
	if len(rows) == 0 && dagID != "" && assetID != 0 {
		return nil, queuedNotFound(dagID, assetID)
	}
	return rows, nil
}

// deleteQueuedAssetEvents removes those entries; none is a fault.
func (o *operations) deleteQueuedAssetEvents(dagID string, assetID int64, before *time.Time) error {
	n, err := o.store.DeleteQueuedAssetEvents(dagID, assetID, before)
	if err != nil {
		return err
	}
	if n == 0 {
		return queuedNotFound(dagID, assetID)
	}
	return nil
}

func queuedNotFound(dagID string, assetID int64) error {
	id := ""
	if assetID != 0 {
		id = strconv.FormatInt(assetID, 10)
	}
	return opErr(errNotFound, faultAssetQueuedNotFound, "dag_id", dagID, "asset_id", id)
}

// materializer is the one DAG whose tasks have the asset with id among
// their outlets (materialize_asset): none, or more than one, is a fault.
func (o *operations) materializer(id int64) (string, error) {
	a, err := o.asset(id)
	if errors.Is(err, errNotFound) {
		return "", opErr(errNotFound, faultAssetNoMaterializer, "asset_id", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return "", err
	}
	var dags []string
	for _, r := range a.Producing {
		if !slices.Contains(dags, r.DagID) {
			dags = append(dags, r.DagID)
		}
	}
	switch {
	case len(dags) == 0:
		return "", opErr(errNotFound, faultAssetNoMaterializer, "asset_id", strconv.FormatInt(id, 10))
	case len(dags) > 1:
		return "", opErr(errConflict, faultAssetManyMaterializers, "asset_id", strconv.FormatInt(id, 10))
	}
	return dags[0], nil
}

// eventRuns are the runs that consumed each of events, by event id
// (DatasetEvent.created_dagruns).
func (o *operations) eventRuns(events []assetEventView) (map[int64][]*DagRun, error) {
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return o.store.RunsConsumingEvents(ids)
}
