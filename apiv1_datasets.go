package main

// The stable API's datasets and DAG-file parsing requests (Airflow 2.10.3
// airflow/api_connexion/endpoints/dataset_endpoint.py, dag_parsing.py);
// what airlite has of them is the operations' (ops_datasets.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
)

// qBefore is components/parameters/Before.
var qBefore = v1Param{name: "before", kind: paramDateTime, schema: "{'type': 'string', 'format': 'date-time'}"}

// v1DatasetExtra is a dataset's or an event's extra as JsonObjectField
// dumps it: the object ({} when there is none).
func v1DatasetExtra(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	v, err := decodeJSONValue(raw)
	if err != nil {
		return map[string]any{}
	}
	return v
}

// v1Dataset is DatasetSchema: producing_tasks (TaskOutletDatasetReference)
// and consuming_dags (the DAGs scheduled on it, DagScheduleDatasetReference),
// each reference dated as its own row is (2.10.3 inserts the row when a
// parse first finds the reference and never updates it).
func v1Dataset(a assetView) map[string]any {
	created, updated := isoFormat(a.CreatedAt), isoFormat(a.UpdatedAt)
	producing := make([]any, len(a.Producing))
	for i, r := range a.Producing {
		since := isoFormat(a.ReferenceSince(AssetProducing, r.DagID, r.TaskID))
		producing[i] = map[string]any{"dag_id": r.DagID, "task_id": r.TaskID, "created_at": since, "updated_at": since}
	}
	consuming := make([]any, len(a.Scheduled))
	for i, id := range a.Scheduled {
		since := isoFormat(a.ReferenceSince(AssetScheduled, id, ""))
		consuming[i] = map[string]any{"dag_id": id, "created_at": since, "updated_at": since}
	}
	return map[string]any{"id": a.ID, "uri": a.URI, "extra": v1DatasetExtra(a.Extra), "created_at": created,
		"updated_at": updated, "producing_tasks": producing, "consuming_dags": consuming, "aliases": []any{}}
}

// v1DatasetEvent is DatasetEventSchema. created_dagruns are the runs that
// consumed the event (BasicDAGRunSchema).
func (s *server) v1DatasetEvent(e assetEventView, created []*DagRun) map[string]any {
	var uri any
	if e.Asset != nil {
		uri = e.Asset.URI
	}
	runs := make([]any, len(created))
	for i, r := range created {
		runs[i] = map[string]any{"dag_run_id": r.RunID, "dag_id": r.DagID, "logical_date": isoFormat(r.ExecutionDate),
			"start_date": v1Date(r.StartDate), "end_date": v1Date(r.EndDate), "state": string(r.State),
			"data_interval_start": v1Date(r.DataIntervalStart), "data_interval_end": v1Date(r.DataIntervalEnd)}
	}
	return map[string]any{"id": e.ID, "dataset_id": e.AssetID, "dataset_uri": uri, "extra": v1DatasetExtra(e.Extra),
		"source_task_id": nullableStr(e.SourceTaskID), "source_dag_id": nullableStr(e.SourceDagID), "source_run_id": nullableStr(e.SourceRunID),
		"source_map_index": e.SourceMapIndex, "created_dagruns": runs, "timestamp": isoFormat(e.Timestamp)}
}

func nullableStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// V1GetDatasets is GET /datasets: uri_pattern (ILIKE %p%), dag_ids
// (comma-separated: scheduled on the dataset or producing it), ordered by
// id, uri, created_at or updated_at; total_entries counts every dataset.
func (s *server) V1GetDatasets(q v1Values) (map[string]any, error) {
	pg, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("id", datasetOrders)
	if err != nil {
		return nil, err
	}
	dq := datasetQuery{key: sortKey{attr: attr, desc: desc}, offset: pg.offset, limit: pg.limit}
	if p, ok := q.str("uri_pattern"); ok && p != "" {
		dq.uri = likePattern(p) // ILIKE '%p%' (p's own % and _ wildcards): the pattern is unanchored
	}
	if ids, ok := q.str("dag_ids"); ok && ids != "" {
		dq.dagIDs = strings.Split(ids, ",")
	}
	res, err := s.ops.datasets(dq)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(res.rows))
	for i, a := range res.rows {
		out[i] = v1Dataset(a)
	}
	return map[string]any{"datasets": out, "total_entries": res.total}, nil
}

// V1GetDatasetEvents is GET /datasets/events, ordered by timestamp by
// default (also source_dag_id, source_task_id, source_run_id,
// source_map_index); a filter of 0 or "" is no filter, as Airflow tests
// them for truth.
func (s *server) V1GetDatasetEvents(q v1Values) (map[string]any, error) {
	pg, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("timestamp", datasetEventOrders)
	if err != nil {
		return nil, err
	}
	eq := assetEventQuery{keys: []sortKey{{attr: attr, desc: desc}}, offset: pg.offset, limit: pg.limit}
	if n := q.integer("dataset_id", 0); n != 0 {
		eq.assetID = &n
	}
	if n := q.integer("source_map_index", 0); n != 0 {
		eq.mapIndex = &n
	}
	for name, into := range map[string]**string{"source_dag_id": &eq.sourceDagID, "source_task_id": &eq.sourceTaskID, "source_run_id": &eq.runID} {
		if v, ok := q.str(name); ok && v != "" {
			*into = &v
		}
	}
	res, err := s.ops.assetEvents(eq)
	if err != nil {
		return nil, err
	}
	created, err := s.ops.eventRuns(res.rows)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(res.rows))
	for i, e := range res.rows {
		out[i] = s.v1DatasetEvent(e, created[e.ID])
	}
	return map[string]any{"dataset_events": out, "total_entries": res.total}, nil
}

// V1GetDataset is GET /datasets/{uri}.
func (s *server) V1GetDataset(uri string) (map[string]any, error) {
	a, err := s.ops.dataset(uri)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Dataset(a), nil
}

// createDatasetEventSchema is components/schemas/CreateDatasetEvent.
var createDatasetEventSchema = bodySchema{rw("dataset_uri", "string", false), rw("extra", "object", true)}

// checkCreateDatasetEventBody is connexion's check (dataset_uri
// required), then CreateDatasetEventSchema's load: unknown keys refused,
// extra (a JsonObjectField) not null.
func checkCreateDatasetEventBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, createDatasetEventSchema)
	if err != nil {
		return nil, err
	}
	if _, ok := body["dataset_uri"]; !ok {
		return nil, v1BadRequest("'dataset_uri' is a required property")
	}
	if err := unknownFields(body, []string{"dataset_uri", "extra"}); err != nil {
		return nil, err
	}
	if e, ok := body["extra"]; ok && e == nil {
		return nil, v1BadRequest("{'extra': ['Field may not be null.']}")
	}
	return body, nil
}

// V1CreateDatasetEvent is POST /datasets/events: the dataset must exist;
// the event's extra is the body's with from_rest_api true
// (create_dataset_event).
func (s *server) V1CreateDatasetEvent(body map[string]any) (map[string]any, error) {
	uri, _ := body["dataset_uri"].(string)
	extra := map[string]any{}
	if e, ok := body["extra"].(map[string]any); ok {
		maps.Copy(extra, e)
	}
	extra["from_rest_api"] = true
	raw, err := json.Marshal(extra)
	if err != nil {
		return nil, fmt.Errorf("create dataset event: %w", err)
	}
	e, err := s.ops.createDatasetEvent(uri, raw)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return s.v1DatasetEvent(e, nil), nil
}

// v1QueuedEvents is QueuedEventCollectionSchema.
func v1QueuedEvents(rows []*AssetQueueEntry, uris map[int64]string) map[string]any {
	out := make([]any, len(rows))
	for i, e := range rows {
		out[i] = map[string]any{"uri": uris[e.AssetID], "dag_id": e.DagID, "created_at": isoFormat(e.CreatedAt)}
	}
	return map[string]any{"queued_events": out, "total_entries": len(rows)}
}

// V1GetQueuedEvents is GET /dags/{dag_id}/datasets/queuedEvent and
// /datasets/queuedEvent/{uri}; with both, the one event (QueuedEventSchema).
func (s *server) V1GetQueuedEvents(dagID, uri string, q v1Values) (map[string]any, error) {
	rows, uris, err := s.ops.datasetQueuedEvents(dagID, uri, q.dateTime("before"))
	if err != nil {
		return nil, v1ResourceError(err)
	}
	if dagID != "" && uri != "" {
		return map[string]any{"uri": uri, "dag_id": dagID, "created_at": isoFormat(rows[0].CreatedAt)}, nil
	}
	return v1QueuedEvents(rows, uris), nil
}

// V1DeleteQueuedEvents is the DELETE of those routes: 204, or the 404.
func (s *server) V1DeleteQueuedEvents(dagID, uri string, q v1Values) error {
	return v1ResourceError(s.ops.deleteDatasetQueuedEvents(dagID, uri, q.dateTime("before")))
}

// V1ReparseDagFile is PUT /parseDagFile/{file_token}: a token airlite did
// not sign, or one naming a file no DAG row comes from, is 404 File not
// found; otherwise the file is asked to be read again (the DAG folder's
// reloader reads it at once) and the answer is 201 with no body, or, when
// it was asked already and not yet read, 201 "Duplicate request" (2.10.3
// dag_parsing.py reparse_dag_file, its IntegrityError branch).
func (s *server) V1ReparseDagFile(token string) (duplicate bool, err error) {
	path, err := loadFileToken(s.v1Secret, token)
	if err != nil {
		return false, &problem{status: http.StatusNotFound, title: "File not found"}
	}
	err = s.ops.reparseDagFile(path)
	if errors.Is(err, errConflict) {
		return true, nil
	}
	return false, v1ResourceError(err)
}
