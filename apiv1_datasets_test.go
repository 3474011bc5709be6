package main

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
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

// The stable API's datasets are the store's assets: a producer's task
// makes an event of its outlet, the scheduler runs the DAG scheduled on
// it, and /datasets, /datasets/events, /datasets/{uri} and the queued
// events show them in DatasetSchema's and DatasetEventSchema's shapes
// (2.10.3 test_dataset_endpoint.py); POST /datasets/events adds an event
// with from_rest_api, which queues and runs its consumers.
func TestServerV1_DatasetsOfTheStore(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition2, tickDriven, withDAG(`
dag_id: producer
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: make, operator: BashOperator, bash_command: "true", outlets: [{uri: "s3://x/a"}]}
`), withDAG(`
dag_id: on_a
schedule: ["s3://x/a"]
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: BashOperator, bash_command: "true"}
`), withDAG(`
dag_id: on_both
schedule: {all: ["s3://x/a", "s3://x/b"]}
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: BashOperator, bash_command: "true"}
`))
	if res := ts.v1(t, "POST", "/dags/producer/dagRuns", `{"dag_run_id": "p1"}`); res.status != 200 {
		t.Fatalf("trigger = %d %s", res.status, res.body)
	}
	settleTicks(t, sched, time.Now)
	onA, err := ts.store.RunsOfDag("on_a", "")
	if err != nil || len(onA) != 1 {
		t.Fatalf("on_a runs %v (%v), want one dataset-triggered run", onA, err)
	}
	ds := func(path string) map[string]any {
		t.Helper()
		res := ts.v1(t, "GET", path, "")
		if res.status != 200 {
			t.Fatalf("GET %s = %d %s", path, res.status, res.body)
		}
		return decodeJSON[map[string]any](t, res.body)
	}
	list := ds("/datasets")
	if list["total_entries"] != 2.0 || len(list["datasets"].([]any)) != 2 {
		t.Fatalf("datasets = %v, want a and b", list)
	}
	a := list["datasets"].([]any)[0].(map[string]any)
	keys := slices.Sorted(maps.Keys(a))
	if fmt.Sprint(keys) != "[aliases consuming_dags created_at extra id producing_tasks updated_at uri]" || a["uri"] != "s3://x/a" {
		t.Errorf("dataset a = %v: want DatasetSchema's fields", a)
	}
	if got := fmt.Sprint(a["producing_tasks"].([]any)[0].(map[string]any)["task_id"], a["consuming_dags"]); !strings.Contains(got, "make") ||
		!strings.Contains(got, "dag_id:on_a") || !strings.Contains(got, "dag_id:on_both") {
		t.Errorf("dataset a's references = %s, want producer.make and on_a, on_both", got)
	}
	// dag_ids filters; total_entries counts every dataset (get_datasets).
	if got := ds("/datasets?dag_ids=producer"); got["total_entries"] != 2.0 || len(got["datasets"].([]any)) != 1 {
		t.Errorf("datasets of producer = %v, want a alone, total 2", got)
	}
	if got := ds("/datasets?uri_pattern=X/B"); len(got["datasets"].([]any)) != 1 {
		t.Errorf("datasets like %%X/B%% = %v, want b", got)
	}
	if got := ds("/datasets/s3%3A%2F%2Fx%2Fa"); got["uri"] != "s3://x/a" {
		t.Errorf("GET dataset = %v", got)
	}
	events := ds("/datasets/events")
	if events["total_entries"] != 1.0 {
		t.Fatalf("events = %v, want the producer's", events)
	}
	e := events["dataset_events"].([]any)[0].(map[string]any)
	created := e["created_dagruns"].([]any)
	if e["source_dag_id"] != "producer" || e["source_task_id"] != "make" || e["source_run_id"] != "p1" || e["dataset_uri"] != "s3://x/a" ||
		len(created) != 1 || created[0].(map[string]any)["dag_run_id"] != onA[0].RunID {
		t.Errorf("event = %v, want producer's, created_dagruns on_a's run", e)
	}
	up := ds("/dags/on_a/dagRuns/" + url.PathEscape(onA[0].RunID) + "/upstreamDatasetEvents")
	if up["total_entries"] != 1.0 || up["dataset_events"].([]any)[0].(map[string]any)["id"] != e["id"] {
		t.Errorf("on_a's run's upstream events = %v, want the producer's event", up)
	}
	if got := ds("/datasets/events?source_dag_id=nope"); got["total_entries"] != 0.0 {
		t.Errorf("events of another DAG = %v", got)
	}
	// on_both waits for b: its queue holds a's event.
	q := ds("/dags/on_both/datasets/queuedEvent")
	if q["total_entries"] != 1.0 || q["queued_events"].([]any)[0].(map[string]any)["uri"] != "s3://x/a" {
		t.Errorf("on_both's queue = %v, want a", q)
	}
	if one := ds("/dags/on_both/datasets/queuedEvent/s3%3A%2F%2Fx%2Fa"); one["dag_id"] != "on_both" || one["uri"] != "s3://x/a" || one["created_at"] == nil {
		t.Errorf("on_both's queued event of a = %v", one)
	}
	if got := ds("/datasets/queuedEvent/s3%3A%2F%2Fx%2Fa"); got["total_entries"] != 1.0 {
		t.Errorf("a's queue = %v", got)
	}

	res := ts.v1(t, "POST", "/datasets/events", `{"dataset_uri": "s3://x/b", "extra": {"k": "v"}}`)
	posted := decodeJSON[map[string]any](t, res.body)
	if res.status != 200 || fmt.Sprint(posted["extra"]) != "map[from_rest_api:true k:v]" || posted["dataset_uri"] != "s3://x/b" || posted["source_dag_id"] != nil {
		t.Errorf("POST event = %d %s", res.status, res.body)
	}
	settleTicks(t, sched, time.Now)
	if runs, _ := ts.store.RunsOfDag("on_both", ""); len(runs) != 1 {
		t.Errorf("on_both runs after b's event: %d, want 1", len(runs))
	}
	if res := ts.v1(t, "GET", "/dags/on_both/datasets/queuedEvent", ""); res.status != 404 {
		t.Errorf("on_both's queue after its run = %d %s, want 404", res.status, res.body)
	}
}
