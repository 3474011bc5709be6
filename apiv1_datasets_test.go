package main

import (
	"net/http"
	"testing"
)

// TestServerV1_Datasets follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_dataset_endpoint.py for a store with
// no datasets, dataset events or queued events.
func TestServerV1_Datasets(t *testing.T) {
	t.Parallel()
	bad := func(detail string) *wantProblem { return &wantProblem{title: "Bad Request", detail: detail} }
	queued := func(detail string) *wantProblem { return &wantProblem{title: "Queue event not found", detail: detail} }
	runV1Cases(t, []v1Case{
		{name: "list", path: "/datasets?limit=5&offset=1&uri_pattern=s3&dag_ids=a,b&order_by=-uri", wantStatus: 200,
			wantJSON: `{"datasets": [], "total_entries": 0}`},
		// test_dataset_endpoint.py:211 (test_order_by_raises_400_for_invalid_attr)
		{name: "list: order_by not allowed", path: "/datasets?order_by=fake", wantStatus: 400,
			wantProblem: bad("Ordering with 'fake' is disallowed or the attribute does not exist on the model")},
		// test_dataset_endpoint.py:129 (test_should_respond_404), the uri encoded
		{name: "get: none", path: "/datasets/s3%3A%2F%2Fbucket%2Fkey", wantStatus: 404,
			wantProblem: &wantProblem{title: "Dataset not found", detail: "The Dataset with uri: `s3://bucket/key` was not found"}},
		{name: "events", path: "/datasets/events?dataset_id=1&source_dag_id=d&source_task_id=t&source_run_id=r&source_map_index=-1&order_by=-timestamp",
			wantStatus: 200, wantJSON: `{"dataset_events": [], "total_entries": 0}`},
		// test_dataset_endpoint.py:537 (test_order_by_raises_400_for_invalid_attr)
		{name: "events: order_by not allowed", path: "/datasets/events?order_by=fake", wantStatus: 400,
			wantProblem: bad("Ordering with 'fake' is disallowed or the attribute does not exist on the model")},
		{name: "events: dataset_id not an integer", path: "/datasets/events?dataset_id=x", wantStatus: 400,
			wantProblem: bad("Wrong type, expected 'integer' for query parameter 'dataset_id'")},
		// dataset_endpoint.py:338-350: no dataset of that uri
		{name: "create event: no dataset", method: "POST", path: "/datasets/events", body: `{"dataset_uri": "s3://bucket/key", "extra": {"foo": "bar"}}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Dataset not found", detail: "Dataset with uri: 's3://bucket/key' not found"}},
		// test_dataset_endpoint.py:711 (an unknown field)
		{name: "create event: unknown field", method: "POST", path: "/datasets/events",
			body: `{"dataset_uri": "TEST_DATASET_URI", "extra": {"foo": "bar"}, "fake": {}}`, wantStatus: 400,
			wantProblem: bad("{'fake': ['Unknown field.']}")},
		{name: "create event: uri missing", method: "POST", path: "/datasets/events", body: `{"extra": {}}`, wantStatus: 400,
			wantProblem: bad("'dataset_uri' is a required property")},
		{name: "create event: extra not an object", method: "POST", path: "/datasets/events", body: `{"dataset_uri": "u", "extra": 1}`,
			wantStatus: 400, wantProblem: bad("1 is not of type 'object' - 'extra'")},
		// test_dataset_endpoint.py:871 and :954 (test_should_respond_404)
		{name: "dag queued event", path: "/dags/not_exists/datasets/queuedEvent/not_exists", wantStatus: 404,
			wantProblem: queued("Queue event with dag_id: `not_exists` and dataset uri: `not_exists` was not found")},
		{name: "dag queued event: delete", method: "DELETE", path: "/dags/not_exists/datasets/queuedEvent/not_exists", wantStatus: 404,
			wantProblem: queued("Queue event with dag_id: `not_exists` and dataset uri: `not_exists` was not found")},
		// test_dataset_endpoint.py:1012 and :1065
		{name: "dag queued events", path: "/dags/not_exists/datasets/queuedEvent?before=2024-01-01T00:00:00Z", wantStatus: 404,
			wantProblem: queued("Queue event with dag_id: `not_exists` was not found")},
		{name: "dag queued events: delete", method: "DELETE", path: "/dags/not_exists/datasets/queuedEvent", wantStatus: 404,
			wantProblem: queued("Queue event with dag_id: `not_exists` was not found")},
		{name: "dag queued events: before not a date", path: "/dags/d/datasets/queuedEvent?before=yesterday", wantStatus: 400,
			wantProblem: bad("'yesterday' is not a 'date-time'\n\nFailed validating 'format' in schema:\n    {'type': 'string', 'format': 'date-time'}\n\nOn instance:\n    'yesterday'")},
		// test_dataset_endpoint.py:1150 and :1222
		{name: "dataset queued events", path: "/datasets/queuedEvent/s3%3A%2F%2Fbucket%2Fkey", wantStatus: 404,
			wantProblem: queued("Queue event with dataset uri: `s3://bucket/key` was not found")},
		{name: "dataset queued events: delete", method: "DELETE", path: "/datasets/queuedEvent/not_exists", wantStatus: 404,
			wantProblem: queued("Queue event with dataset uri: `not_exists` was not found")},
	})
}

// TestServerV1_ReparseDagFile follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_dag_parsing.py: a request waiting
// for the DAG folder's reloader (none here) makes a second one a duplicate.
func TestServerV1_ReparseDagFile(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	token := decodeJSON[map[string]any](t, ts.v1(t, "GET", "/dags/tutorial?fields=file_token", "").body)["file_token"].(string)
	// test_dag_parsing.py:79 (test_201_and_400_requests)
	res := ts.v1(t, "PUT", "/parseDagFile/"+token, "")
	if res.status != http.StatusCreated || res.body != "" {
		t.Errorf("parse request: %d %q, want 201 with no body", res.status, res.body)
	}
	// test_dag_parsing.py:91: the duplicate request
	if res := ts.v1(t, "PUT", "/parseDagFile/"+token, ""); res.status != http.StatusCreated || res.body != "Duplicate request" {
		t.Errorf("second parse request: %d %q, want 201 Duplicate request", res.status, res.body)
	}
	checkV1Response(t, v1Case{wantStatus: 404, wantProblem: &wantProblem{title: "File not found", detail: nil}},
		ts.v1(t, "PUT", "/parseDagFile/bad_file_token", ""))
	// test_dag_parsing.py:100 (test_bad_file_request)
	other := signPayload(ts.srv.v1Secret, []byte(`"/no/such/dag.py"`))
	checkV1Response(t, v1Case{wantStatus: 404, wantProblem: &wantProblem{title: "File not found", detail: nil}},
		ts.v1(t, "PUT", "/parseDagFile/"+other, ""))
}
