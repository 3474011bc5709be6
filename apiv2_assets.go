package main

// Airflow 3's assets, asset aliases, asset events and queued events
// (Airflow 3.2.1 core_api/routes/public/assets.py,
// core_api/datamodels/assets.py): their answers and the handlers of
// their rows (api_route_v2.go), over the operations (ops_datasets.go).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// v2AssetResponse is AssetResponse.
type v2AssetResponse struct {
	ID             int64                `json:"id"`
	Name           string               `json:"name"`
	URI            string               `json:"uri"`
	Group          string               `json:"group"`
	Extra          any                  `json:"extra"`
	CreatedAt      v2When               `json:"created_at"`
	UpdatedAt      v2When               `json:"updated_at"`
	ScheduledDags  []v2DagScheduleRef   `json:"scheduled_dags"`
	ProducingTasks []v2TaskAssetRef     `json:"producing_tasks"`
	ConsumingTasks []v2TaskAssetRef     `json:"consuming_tasks"`
	Aliases        []v2AssetAlias       `json:"aliases"`
	Watchers       []any                `json:"watchers"`
	LastAssetEvent *v2LastAssetEventRef `json:"last_asset_event"`
}

// v2DagScheduleRef is DagScheduleAssetReference.
type v2DagScheduleRef struct {
	DagID     string `json:"dag_id"`
	CreatedAt v2When `json:"created_at"`
	UpdatedAt v2When `json:"updated_at"`
}

// v2TaskAssetRef is TaskOutletAssetReference and TaskInletAssetReference.
type v2TaskAssetRef struct {
	DagID     string `json:"dag_id"`
	TaskID    string `json:"task_id"`
	CreatedAt v2When `json:"created_at"`
	UpdatedAt v2When `json:"updated_at"`
}

// v2AssetAlias is AssetAliasResponse.
type v2AssetAlias struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Group string `json:"group"`
}

// v2LastAssetEventRef is LastAssetEventResponse.
type v2LastAssetEventRef struct {
	ID        *int64  `json:"id"`
	Timestamp *v2When `json:"timestamp"`
}

// v2AssetCollection is AssetCollectionResponse.
type v2AssetCollection struct {
	Assets       []v2AssetResponse `json:"assets"`
	TotalEntries int               `json:"total_entries"`
}

// v2AssetAliasCollection is AssetAliasCollectionResponse.
type v2AssetAliasCollection struct {
	AssetAliases []v2AssetAlias `json:"asset_aliases"`
	TotalEntries int            `json:"total_entries"`
}

// v2AssetEventResponse is AssetEventResponse.
type v2AssetEventResponse struct {
	ID             int64              `json:"id"`
	AssetID        int64              `json:"asset_id"`
	URI            *string            `json:"uri"`
	Name           *string            `json:"name"`
	Group          *string            `json:"group"`
	Extra          any                `json:"extra"`
	SourceTaskID   *string            `json:"source_task_id"`
	SourceDagID    *string            `json:"source_dag_id"`
	SourceRunID    *string            `json:"source_run_id"`
	SourceMapIndex int                `json:"source_map_index"`
	CreatedDagruns []v2DagRunAssetRef `json:"created_dagruns"`
	Timestamp      v2When             `json:"timestamp"`
	PartitionKey   *string            `json:"partition_key"`
}

// v2DagRunAssetRef is DagRunAssetReference: a run that consumed the
// event. Airflow declares start_date required, which a queued run lacks
// (its pydantic would fail there); airlite answers null.
type v2DagRunAssetRef struct {
	RunID             string  `json:"run_id"`
	DagID             string  `json:"dag_id"`
	LogicalDate       *v2When `json:"logical_date"`
	StartDate         *v2When `json:"start_date"`
	EndDate           *v2When `json:"end_date"`
	State             string  `json:"state"`
	DataIntervalStart *v2When `json:"data_interval_start"`
	DataIntervalEnd   *v2When `json:"data_interval_end"`
	PartitionKey      *string `json:"partition_key"`
}

// v2AssetEventCollection is AssetEventCollectionResponse.
type v2AssetEventCollection struct {
	AssetEvents  []v2AssetEventResponse `json:"asset_events"`
	TotalEntries int                    `json:"total_entries"`
}

// v2MaskedExtra is an extra as the models show it: the secrets masker
// over the object (redact_extra), its keys in their order.
func v2MaskedExtra(m secretsMasker, raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := decodePyJSON(raw)
	if err != nil {
		return nil
	}
	return v2Input(m.redact(v, "", 0))
}

// v2Asset is an asset as AssetResponse shows it.
func v2Asset(m secretsMasker, a assetView) v2AssetResponse {
	// Each reference shows its own row's dates (created_at and
	// updated_at alike: Airflow never updates the row).
	refs := func(kind AssetRefKind, rs []assetTaskRef) []v2TaskAssetRef {
		out := make([]v2TaskAssetRef, len(rs))
		for i, r := range rs {
			since := v2When(a.ReferenceSince(kind, r.DagID, r.TaskID))
			out[i] = v2TaskAssetRef{DagID: r.DagID, TaskID: r.TaskID, CreatedAt: since, UpdatedAt: since}
		}
		return out
	}
	scheduled := make([]v2DagScheduleRef, len(a.Scheduled))
	for i, id := range a.Scheduled {
		since := v2When(a.ReferenceSince(AssetScheduled, id, ""))
		scheduled[i] = v2DagScheduleRef{DagID: id, CreatedAt: since, UpdatedAt: since}
	}
	out := v2AssetResponse{ID: a.ID, Name: a.Name, URI: a.URI, Group: a.Group, Extra: v2MaskedExtra(m, a.Extra),
		CreatedAt: v2When(a.CreatedAt), UpdatedAt: v2When(a.UpdatedAt), ScheduledDags: scheduled,
		ProducingTasks: refs(AssetProducing, a.Producing), ConsumingTasks: refs(AssetConsuming, a.Consuming), Aliases: make([]v2AssetAlias, len(a.Aliases)), Watchers: []any{},
		LastAssetEvent: &v2LastAssetEventRef{}}
	for i, al := range a.Aliases {
		out.Aliases[i] = v2AssetAliasOf(al)
	}
	if e := a.LastEvent; e != nil {
		id := e.ID
		out.LastAssetEvent.ID, out.LastAssetEvent.Timestamp = &id, v2At(&e.Timestamp)
	}
	return out
}

// v2AssetEvent is an event as AssetEventResponse shows it, with the runs
// that consumed it.
func v2AssetEvent(m secretsMasker, e assetEventView, created []*DagRun) v2AssetEventResponse {
	out := v2AssetEventResponse{ID: e.ID, AssetID: e.AssetID, Extra: v2MaskedExtra(m, e.Extra), SourceTaskID: e.SourceTaskID,
		SourceDagID: e.SourceDagID, SourceRunID: e.SourceRunID, SourceMapIndex: e.SourceMapIndex,
		CreatedDagruns: make([]v2DagRunAssetRef, len(created)), Timestamp: v2When(e.Timestamp), PartitionKey: e.PartitionKey}
	if a := e.Asset; a != nil {
		out.URI, out.Name, out.Group = &a.URI, &a.Name, &a.Group
	}
	for i, r := range created {
		ref := v2DagRunAssetRef{RunID: r.RunID, DagID: r.DagID, StartDate: v2At(r.StartDate), EndDate: v2At(r.EndDate),
			State: string(r.State), PartitionKey: r.PartitionKey}
		if ld, ok := r.LogicalDate(); ok {
			ref.LogicalDate = v2At(&ld)
		}
		if r.DataIntervalStart != nil {
			ref.DataIntervalStart, ref.DataIntervalEnd = v2At(r.DataIntervalStart), v2At(r.DataIntervalEnd)
		}
		out.CreatedDagruns[i] = ref
	}
	return out
}

// v2AssetEvents are events as AssetEventResponse shows them, each with
// the runs that consumed it (AssetEvent.created_dagruns).
func (s *server) v2AssetEvents(events []assetEventView) ([]v2AssetEventResponse, error) {
	created, err := s.ops.eventRuns(events)
	if err != nil {
		return nil, err
	}
	out := make([]v2AssetEventResponse, len(events))
	for i, e := range events {
		out[i] = v2AssetEvent(s.rules().masker, e, created[e.ID])
	}
	return out, nil
}

// v2CreateAssetEventsBody is CreateAssetEventsBody.
var v2CreateAssetEventsBody = &v2Model{name: "CreateAssetEventsBody", fields: []v2Field{
	{name: "asset_id", typ: v2TInt, required: true},
	{name: "extra", typ: v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
		d, ok := v.(pyDict)
		if !ok {
			return nil, []v2Issue{{Type: "dict_type", Loc: loc, Msg: "Input should be a valid dictionary", Input: v2Input(v)}}
		}
		return d, nil
	}}},
	{name: "partition_key", typ: v2TStr, nullable: true},
}}

// V2GetAssets is GET /assets.
func (s *server) V2GetAssets(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "id", []string{"id", "name", "uri", "created_at", "updated_at"}, nil)
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	onlyActive, given := req.query.v2Bool("only_active")
	res, err := s.ops.assets(assetQuery{name: req.query.v2Pattern("name_pattern"), uri: req.query.v2Pattern("uri_pattern"),
		dagIDs: v2AssetDagIDs(req.query), onlyActive: onlyActive || !given, keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit})
	if err != nil {
		return nil, err
	}
	out := v2AssetCollection{Assets: make([]v2AssetResponse, len(res.rows)), TotalEntries: res.total}
	for i, a := range res.rows {
		out.Assets[i] = v2Asset(s.rules().masker, a)
	}
	return out, nil
}

// v2AssetDagIDs is the dag_ids parameter (nil: absent); one value with
// commas is the list they separate (_DagIdAssetReferenceFilter.depends).
func v2AssetDagIDs(q v1Values) []string {
	ids := q.list("dag_ids")
	if len(ids) == 1 && strings.Contains(ids[0], ",") {
		return strings.Split(ids[0], ",")
	}
	return ids
}

// V2GetAsset is GET /assets/{asset_id}.
func (s *server) V2GetAsset(id string) (any, error) {
	n, _ := strconv.ParseInt(id, 10, 64)
	a, err := s.ops.asset(n)
	if err != nil {
		return nil, apiv2AssetPhrases.phrase(err)
	}
	return v2Asset(s.rules().masker, a), nil
}

// V2GetAssetAliases is GET /assets/aliases: the aliases the DAGs name
// and those events came through.
func (s *server) V2GetAssetAliases(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "id", []string{"id", "name"}, nil)
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	res, err := s.ops.assetAliases(aliasQuery{name: req.query.v2Pattern("name_pattern"), keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit})
	if err != nil {
		return nil, err
	}
	out := v2AssetAliasCollection{AssetAliases: make([]v2AssetAlias, len(res.rows)), TotalEntries: res.total}
	for i, a := range res.rows {
		out.AssetAliases[i] = v2AssetAliasOf(a)
	}
	return out, nil
}

// v2AssetAliasOf is an alias as AssetAliasResponse shows it.
func v2AssetAliasOf(a *AssetAlias) v2AssetAlias {
	return v2AssetAlias{ID: a.ID, Name: a.Name, Group: a.Group}
}

// V2GetAssetEvents is GET /assets/events.
func (s *server) V2GetAssetEvents(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "timestamp", []string{"source_task_id", "source_dag_id", "source_run_id", "source_map_index", "timestamp"}, nil)
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	q := assetEventQuery{name: req.query.v2Pattern("name_pattern"), keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit,
		gte: req.query.v2Time("timestamp_gte"), gt: req.query.v2Time("timestamp_gt"),
		lte: req.query.v2Time("timestamp_lte"), lt: req.query.v2Time("timestamp_lt")}
	if _, ok := req.query.str("asset_id"); ok {
		n := req.query.integer("asset_id", 0)
		q.assetID = &n
	}
	if _, ok := req.query.str("source_map_index"); ok {
		n := req.query.integer("source_map_index", 0)
		q.mapIndex = &n
	}
	for name, into := range map[string]**string{"source_dag_id": &q.sourceDagID, "source_task_id": &q.sourceTaskID, "source_run_id": &q.runID} {
		if v, ok := req.query.str(name); ok {
			*into = &v
		}
	}
	res, err := s.ops.assetEvents(q)
	if err != nil {
		return nil, err
	}
	events, err := s.v2AssetEvents(res.rows)
	if err != nil {
		return nil, err
	}
	return v2AssetEventCollection{AssetEvents: events, TotalEntries: res.total}, nil
}

// V2CreateAssetEvent is POST /assets/events: the event's extra is the
// body's with "from_rest_api": true (set_from_rest_api).
func (s *server) V2CreateAssetEvent(body map[string]any) (any, error) {
	id, _ := body["asset_id"].(int64)
	extra, _ := body["extra"].(pyDict)
	extra = setPyField(extra, "from_rest_api", true)
	raw, err := compactJSON.marshal(extra)
	if err != nil {
		return nil, fmt.Errorf("encode asset event extra: %w", err)
	}
	e, err := s.ops.createAssetEvent(id, raw, optString(body["partition_key"]))
	if err != nil {
		return nil, apiv2AssetPhrases.phrase(err)
	}
	return v2AssetEvent(s.rules().masker, e, nil), nil // a new event: no run consumed it yet
}

// setPyField is d with key set to v: in its place when d has it, else
// last (a Python dict's assignment).
func setPyField(d pyDict, key string, v any) pyDict {
	out := make(pyDict, 0, len(d)+1)
	set := false
	for _, f := range d {
		if f.key == key {
			f.val, set = v, true
		}
		out = append(out, f)
	}
	if !set {
		out = append(out, pyField{key, v})
	}
	return out
}

// apiv2AssetPhrases words the assets' faults as Airflow 3.2.1's
// routes/public/assets.py does.
var apiv2AssetPhrases = phrasebook{
	faultAssetNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Asset with ID: `%s` was not found", e.value("asset_id"))}
	},
	faultAssetOfEventNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("Asset with ID: `%s` was not found", e.value("asset_id"))}
	},
	faultAssetAliasNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Asset Alias with ID: `%s` was not found", e.value("alias_id"))}
	},
	faultAssetQueuedNotFound: func(e *opError) error {
		dagID, assetID := e.value("dag_id"), e.value("asset_id")
		var detail string
		switch {
		case dagID != "" && assetID != "":
			detail = fmt.Sprintf("Queued event with dag_id: `%s` and asset_id: `%s` was not found", dagID, assetID)
		case dagID != "":
			detail = fmt.Sprintf("Queue event with dag_id: `%s` was not found", dagID)
		default:
			detail = fmt.Sprintf("Queue event with asset_id: `%s` was not found", assetID)
		}
		return &v2Error{status: http.StatusNotFound, detail: detail}
	},
	faultAssetNoMaterializer: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: "No DAG materializes asset with ID: " + e.value("asset_id")}
	},
	faultAssetManyMaterializers: func(e *opError) error {
		return &v2Error{status: http.StatusConflict, detail: "More than one DAG materializes asset with ID: " + e.value("asset_id")}
	},
}

// v2MaterializeBody is MaterializeAssetBody (3.2.1's document): the
// trigger's fields, none required; the body itself may be left out.
var v2MaterializeBody = &v2Model{name: "MaterializeAssetBody", fields: []v2Field{
	{name: "dag_run_id", typ: v2TStr, nullable: true},
	{name: "data_interval_start", typ: v2TAware, nullable: true},
	{name: "data_interval_end", typ: v2TAware, nullable: true},
	{name: "logical_date", typ: v2TAware, nullable: true},
	{name: "run_after", typ: v2TTime, nullable: true},
	{name: "conf", typ: v2TDictAsSent, nullable: true}, // read by v2CreateRun with v2BodyField
	{name: "note", typ: v2TStr, nullable: true},
	{name: "partition_key", typ: v2TStr, nullable: true},
}}

// v2OptionalBody is v2Body for a body that may be absent or null
// (MaterializeAssetBody | None): then it is the model's defaults.
func v2OptionalBody(model *v2Model) func(*apiRoute) {
	return withBody(func(v any) (map[string]any, error) {
		switch v.(type) {
		case v2NoInput, nil:
			return map[string]any{}, nil
		}
		out, issues := model.validate(v, []any{"body"})
		if issues != nil {
			return nil, v2Invalid(issues)
		}
		return out, nil
	})
}

// V2MaterializeAsset is materialize_asset (routes/public/assets.py): a
// run of the one DAG producing the asset, of type asset_materialization,
// queued, answered as the DAG run.
func (s *server) V2MaterializeAsset(req *apiRequest) (any, error) {
	id, _ := strconv.ParseInt(req.path["asset_id"], 10, 64)
	dagID, err := s.ops.materializer(id)
	if err != nil {
		return nil, apiv2AssetPhrases.phrase(err)
	}
	return s.v2CreateRun(req, dagID, "asset_materialization", "rest_api", v2MaterializeRunPhrases) // whatever the Referer (assets.py:436)
}

// v2MaterializeRunPhrases is materialize_asset's wording of the run's
// faults: trigger_dag_run's, but for the ValueErrors of the params check
// and of DagRun's run_id check, which materialize_asset does not catch
// (no except around validate_context and create_dagrun, in the 3.2.0-era
// main c57fba0e assets.py:420-440 and in apache/airflow#64211's body
// form): Starlette's 500, where trigger_dag_run answers a 400. A
// duplicate dag_run_id is the IntegrityError handler's 409 in both.
var v2MaterializeRunPhrases = phrasebook{
	faultDagNotFound:  v2TriggerPhrases[faultDagNotFound],
	faultDagNotLoaded: v2TriggerPhrases[faultDagNotLoaded],
	faultRunExists:    v2TriggerPhrases[faultRunExists],
	// allowed_run_types without asset_materialization (c57fba0e
	// routes/public/assets.py:422-426).
	faultRunTypeNotAllowed: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf("Dag with dag_id: '%s' does not allow asset materialization runs", e.value("dag_id"))}
	},
}

// v2QueuedEvent is QueuedEventResponse (datamodels/assets.py).
type v2QueuedEvent struct {
	DagID          string `json:"dag_id"`
	AssetID        int64  `json:"asset_id"`
	CreatedAt      v2When `json:"created_at"`
	DagDisplayName string `json:"dag_display_name"`
}

type v2QueuedEventCollection struct {
	QueuedEvents []v2QueuedEvent `json:"queued_events"`
	TotalEntries int             `json:"total_entries"`
}

// v2Before is the before query parameter as a time (nil: absent):
// OptionalDateTimeQuery reads it with timezone.parse(strict=True), and
// text that is no date is a 400 (_safe_parse_datetime_optional), before
// the route looks for any queued event.
func v2Before(q v1Values, now time.Time) (*time.Time, error) {
	raw, ok := q.str("before")
	if !ok {
		return nil, nil
	}
	t, err := parseAirflowDateStrict(raw, now)
	if err != nil {
		return nil, &v2Error{status: http.StatusBadRequest,
			detail: fmt.Sprintf("Invalid datetime: %s. Please check the date parameter have this value.", pyRepr(raw))}
	}
	return &t, nil
}

// v2QueuedIDs reads the routes' dag_id and asset_id ("" and 0: absent).
func v2QueuedIDs(req *apiRequest) (string, int64) {
	id, _ := strconv.ParseInt(req.path["asset_id"], 10, 64)
	return req.path["dag_id"], id
}

// V2GetQueuedEvents is get_asset_queued_events and
// get_dag_asset_queued_events (routes/public/assets.py): the entries, none
// included; with both ids, get_dag_asset_queued_event: the one entry.
func (s *server) V2GetQueuedEvents(req *apiRequest) (any, error) {
	dagID, assetID := v2QueuedIDs(req)
	before, err := v2Before(req.query, s.opts.Now())
	if err != nil {
		return nil, err
	}
	rows, err := s.ops.queuedAssetEvents(dagID, assetID, before)
	if err != nil {
		return nil, apiv2AssetPhrases.phrase(err)
	}
	out := v2QueuedEventCollection{QueuedEvents: []v2QueuedEvent{}, TotalEntries: len(rows)}
	for _, e := range rows {
		out.QueuedEvents = append(out.QueuedEvents, v2QueuedEvent{DagID: e.DagID, AssetID: e.AssetID, CreatedAt: v2When(e.CreatedAt), DagDisplayName: e.DagID})
	}
	if dagID != "" && assetID != 0 {
		return out.QueuedEvents[0], nil
	}
	return out, nil
}

// V2DeleteQueuedEvents is delete_asset_queued_events,
// delete_dag_asset_queued_events and delete_dag_asset_queued_event: 204,
// or Airflow's 404 when nothing was deleted.
func (s *server) V2DeleteQueuedEvents(req *apiRequest) error {
	dagID, assetID := v2QueuedIDs(req)
	before, err := v2Before(req.query, s.opts.Now())
	if err != nil {
		return err
	}
	return apiv2AssetPhrases.phrase(s.ops.deleteQueuedAssetEvents(dagID, assetID, before))
}

// V2GetAssetAlias is GET /assets/aliases/{asset_alias_id}.
func (s *server) V2GetAssetAlias(id string) (any, error) {
	n, _ := strconv.ParseInt(id, 10, 64)
	a, err := s.ops.assetAlias(n)
	if err != nil {
		return nil, apiv2AssetPhrases.phrase(err)
	}
	return v2AssetAliasOf(a), nil
}
