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
	"math"
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

// dataset is the dataset at uri.
func (o *operations) dataset(uri string) (assetView, error) {
	all, err := o.assetViews()
	if err != nil {
		return assetView{}, err
	}
	for _, a := range all {
		if a.URI == uri {
			return a, nil
		}
	}
	return assetView{}, opErr(errNotFound, faultDatasetNotFound, "uri", uri)
}

// datasetQuery is the stable API's listing of datasets (get_datasets):
// uri_pattern, the DAGs scheduled on a dataset or producing it, an order.
type datasetQuery struct {
	uri    func(string) bool
	dagIDs []string
	key    sortKey
	offset int
	limit  int
}

// datasets lists datasets as q asks. Its total counts every dataset,
// filtered or not, as get_datasets counts them before it filters.
func (o *operations) datasets(q datasetQuery) (listed[assetView], error) {
	all, err := o.assetViews()
	if err != nil {
		return listed[assetView]{}, err
	}
	total := len(all)
	kept := all[:0]
	for _, a := range all {
		named := slices.ContainsFunc(a.Producing, func(r assetTaskRef) bool { return slices.Contains(q.dagIDs, r.DagID) }) ||
			slices.ContainsFunc(a.Scheduled, func(id string) bool { return slices.Contains(q.dagIDs, id) })
		switch {
		case q.uri != nil && !q.uri(a.URI):
		case len(q.dagIDs) > 0 && !named:
		default:
			kept = append(kept, a)
		}
	}
	res := listKeyed(kept, nil, keyedQuery{keys: []sortKey{q.key}, offset: q.offset, limit: q.limit}, func(a, b assetView, attr string) int {
		switch attr {
		case "uri":
			return strings.Compare(a.URI, b.URI)
		case "created_at":
			return a.CreatedAt.Compare(b.CreatedAt)
		case "updated_at":
			return a.UpdatedAt.Compare(b.UpdatedAt)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	res.total = total
	return res, nil
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

// assetTaskRef is a task that names an asset (an outlet or an inlet).
type assetTaskRef struct {
	DagID, TaskID string
}

// assetView is an asset with what the DAGs say of it now and its last
// event.
type assetView struct {
	*Asset
	Producing, Consuming []assetTaskRef
	// Scheduled are the DAGs scheduled on the asset (Airflow's
	// DagScheduleAssetReference rows), by dag_id.
	Scheduled []string
	LastEvent *AssetEvent
	// Aliases are the aliases events came to the asset through
	// (AssetModel.aliases), by id.
	Aliases []*AssetAlias
}

// Active is AssetModel.active: a DAG names the asset now, in its
// schedule or among a task's outlets or inlets (Airflow keeps an
// AssetActive row for every asset a parsed DAG references).
func (a assetView) Active() bool {
	return len(a.Producing) > 0 || len(a.Consuming) > 0 || len(a.Scheduled) > 0
}

// namedBy says whether one of dagIDs is scheduled on the asset, produces
// it or reads it (_DagIdAssetReferenceFilter: scheduled_dags,
// producing_tasks, consuming_tasks).
func (a assetView) namedBy(dagIDs []string) bool {
	in := func(r assetTaskRef) bool { return slices.Contains(dagIDs, r.DagID) }
	return slices.ContainsFunc(a.Scheduled, func(id string) bool { return slices.Contains(dagIDs, id) }) ||
		slices.ContainsFunc(a.Producing, in) || slices.ContainsFunc(a.Consuming, in)
}

// dagAssetRefs are the assets the DAGs name, in DAG and task order, who
// names each (by name and uri), the DAGs scheduled on each, and the
// aliases the DAGs name (in their schedules, outlets and inlets).
func (o *operations) dagAssetRefs() ([]assetRef, map[string][2][]assetTaskRef, map[string][]string, []aliasRef, error) {
	rows, err := o.store.Dags()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	scheduled := map[string][]string{}
	var refs []assetRef
	var aliases []aliasRef
	addAlias := func(r aliasRef) {
		if !slices.ContainsFunc(aliases, func(a aliasRef) bool { return a.Name == r.Name }) {
			aliases = append(aliases, r)
		}
	}
	who := map[string][2][]assetTaskRef{}
	note := func(v any, dagID, taskID string, side int) {
		v = normalizeYAML(v)
		if alias, ok := aliasOf(v); ok {
			addAlias(alias)
			return
		}
		ref, ok := assetOf(v)
		if !ok {
			return
		}
		k := ref.Name + "\x00" + ref.URI
		w, seen := who[k]
		if !seen {
			refs = append(refs, ref)
		}
		w[side] = append(w[side], assetTaskRef{DagID: dagID, TaskID: taskID})
		who[k] = w
	}
	for _, row := range rows {
		if row.Def == nil {
			continue
		}
		for _, ref := range row.Def.AssetSchedule.refs() {
			k := ref.Name + "\x00" + ref.URI
			w, seen := who[k]
			if !seen {
				refs = append(refs, ref)
			}
			who[k] = w
			scheduled[k] = append(scheduled[k], row.DagID)
		}
		for _, alias := range row.Def.AssetSchedule.aliases() {
			addAlias(alias)
		}
		for _, t := range row.Def.Tasks {
			for _, v := range t.Outlets {
				note(v, row.DagID, t.TaskID, 0)
			}
			for _, v := range t.Inlets {
				note(v, row.DagID, t.TaskID, 1)
			}
		}
	}
	return refs, who, scheduled, aliases, nil
}

// assetViews registers the assets the DAGs name that are new, and lists
// every asset with its references and its last event (the latest
// timestamp, the highest id among equals).
func (o *operations) assetViews() ([]assetView, error) {
	refs, who, scheduled, aliasRefs, err := o.dagAssetRefs()
	if err != nil {
		return nil, err
	}
	if err := o.store.EnsureAssets(refs, o.clock()); err != nil {
		return nil, err
	}
	if err := o.store.EnsureAssetAliases(aliasRefs); err != nil {
		return nil, err
	}
	aliases, err := o.store.AssetAliases()
	if err != nil {
		return nil, err
	}
	aliasesOf := map[int64][]*AssetAlias{}
	for _, al := range aliases {
		for _, id := range al.AssetIDs {
			aliasesOf[id] = append(aliasesOf[id], al)
		}
	}
	assets, err := o.store.Assets()
	if err != nil {
		return nil, err
	}
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
		w := who[a.Name+"\x00"+a.URI]
		k := a.Name + "\x00" + a.URI
		out[i] = assetView{Asset: a, Producing: w[0], Consuming: w[1], Scheduled: scheduled[k], LastEvent: last[a.ID], Aliases: aliasesOf[a.ID]}
	}
	return out, nil
}

// assetQuery is an Airflow 3 listing of assets: name and uri filters,
// the DAGs that name them, only those a DAG names now, the order.
type assetQuery struct {
	name, uri  func(string) bool
	dagIDs     []string
	onlyActive bool
	keys       []sortKey
	offset     int
	limit      int
}

// assets lists assets as q asks.
func (o *operations) assets(q assetQuery) (listed[assetView], error) {
	all, err := o.assetViews()
	if err != nil {
		return listed[assetView]{}, err
	}
	kept := all[:0]
	for _, a := range all {
		switch {
		case q.onlyActive && !a.Active():
		case q.name != nil && !q.name(a.Name):
		case q.uri != nil && !q.uri(a.URI):
		case q.dagIDs != nil && !a.namedBy(q.dagIDs):
		default:
			kept = append(kept, a)
		}
	}
	return listKeyed(kept, nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, func(a, b assetView, attr string) int {
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
	}), nil
}

// asset is the asset with id.
func (o *operations) asset(id int64) (assetView, error) {
	all, err := o.assetViews()
	if err != nil {
		return assetView{}, err
	}
	for _, a := range all {
		if a.ID == id {
			return a, nil
		}
	}
	return assetView{}, opErr(errNotFound, faultAssetNotFound, "asset_id", strconv.FormatInt(id, 10))
}

// assetEventQuery is an Airflow 3 listing of asset events.
type assetEventQuery struct {
	assetID                          *int64
	sourceDagID, sourceTaskID, runID *string
	mapIndex                         *int64
	name                             func(string) bool
	gte, gt, lte, lt                 *time.Time
	keys                             []sortKey
	offset, limit                    int
}

// pagedOrder says whether the store's (timestamp, id) index serves q: no
// filter, ordered by timestamp either way (the default of
// get_asset_events and of 2.10.3's get_dataset_events, which share this),
// its ties by id ascending (listKeyed's last key, /api/v1) or, when q
// names the id after it in the same direction (SortParam's primary key,
// /api/v2: v2WithPK), in that direction. Filters, and the orders by the
// source's ids or map index, sort every event.
func (q assetEventQuery) pagedOrder() (desc, tiesFollow, ok bool) {
	if q.assetID != nil || q.sourceDagID != nil || q.sourceTaskID != nil || q.runID != nil || q.mapIndex != nil ||
		q.name != nil || q.gte != nil || q.gt != nil || q.lte != nil || q.lt != nil {
		return false, false, false
	}
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
// event with its asset (nil when it is gone).
func (o *operations) pageAssetEvents(desc, tiesFollow bool, offset, limit int) (listed[assetEventView], error) {
	events, total, err := o.store.AssetEventPage(desc, tiesFollow, offset, limit)
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
		return o.pageAssetEvents(desc, tiesFollow, q.offset, q.limit)
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
		case q.name != nil && (a == nil || !q.name(a.Name)):
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
	if _, err := o.assetViews(); err != nil { // the DAGs' assets are known
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
	name          func(string) bool
	keys          []sortKey
	offset, limit int
}

// assetAliases lists the aliases the DAGs name and those events came
// through, as q asks.
func (o *operations) assetAliases(q aliasQuery) (listed[*AssetAlias], error) {
	if _, err := o.assetViews(); err != nil { // the DAGs' aliases are known
		return listed[*AssetAlias]{}, err
	}
	all, err := o.store.AssetAliases()
	if err != nil {
		return listed[*AssetAlias]{}, err
	}
	kept := all[:0]
	for _, a := range all {
		if q.name == nil || q.name(a.Name) {
			kept = append(kept, a)
		}
	}
	return listKeyed(kept, nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, func(a, b *AssetAlias, attr string) int {
		if attr == "name" {
			return strings.Compare(a.Name, b.Name)
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}

// assetAlias is the alias with id.
func (o *operations) assetAlias(id int64) (*AssetAlias, error) {
	res, err := o.assetAliases(aliasQuery{limit: math.MaxInt})
	if err != nil {
		return nil, err
	}
	for _, a := range res.rows {
		if a.ID == id {
			return a, nil
		}
	}
	return nil, opErr(errNotFound, faultAssetAliasNotFound, "alias_id", strconv.FormatInt(id, 10))
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
