package main

// The stable API's datasets and DAG-file parsing requests (Airflow 2.10.3
// airflow/api_connexion/endpoints/dataset_endpoint.py, dag_parsing.py);
// what airlite has of them is the operations' (ops_datasets.go).

import (
	"errors"
	"net/http"
)

// qBefore is components/parameters/Before.
var qBefore = v1Param{name: "before", kind: paramDateTime, schema: "{'type': 'string', 'format': 'date-time'}"}

// V1GetDatasets is GET /datasets: the page checks and the order_by check
// (in id, uri, created_at, updated_at) run on an empty table.
func (s *server) V1GetDatasets(q v1Values) (map[string]any, error) {
	if _, err := q.page(); err != nil {
		return nil, err
	}
	if _, _, err := q.orderBy("id", datasetOrders); err != nil {
		return nil, err
	}
	return map[string]any{"datasets": []any{}, "total_entries": 0}, nil
}

// V1GetDatasetEvents is GET /datasets/events, ordered by timestamp by
// default (also source_dag_id, source_task_id, source_run_id,
// source_map_index).
func (s *server) V1GetDatasetEvents(q v1Values) (map[string]any, error) {
	if _, err := q.page(); err != nil {
		return nil, err
	}
	if _, _, err := q.orderBy("timestamp", datasetEventOrders); err != nil {
		return nil, err
	}
	return map[string]any{"dataset_events": []any{}, "total_entries": 0}, nil
}

// V1GetDataset is GET /datasets/{uri}.
func (s *server) V1GetDataset(uri string) error {
	return v1ResourceError(s.ops.dataset(uri))
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

// V1CreateDatasetEvent is POST /datasets/events: the dataset must exist.
func (s *server) V1CreateDatasetEvent(body map[string]any) error {
	uri, _ := body["dataset_uri"].(string)
	return v1ResourceError(s.ops.createDatasetEvent(uri))
}

// The queued events' 404s.
func dagQueuedEventNotFound(dagID, uri string) error {
	return v1ResourceError(queuedEvents(dagID, uri))
}

func dagQueuedEventsNotFound(dagID string) error {
	return v1ResourceError(queuedEvents(dagID, ""))
}

func datasetQueuedEventsNotFound(uri string) error {
	return v1ResourceError(queuedEvents("", uri))
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
