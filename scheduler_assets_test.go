package main

import (
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// assetDAGs are two producers, each a task whose outlet is an asset, and
// consumers scheduled on them: on a (a list), on a & b, on a | b.
var assetDAGs = map[string]string{
	"pa.yaml": `
dag_id: pa
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: PythonOperator, outlets: [{uri: "s3://x/a"}]}
`,
	"pb.yaml": `
dag_id: pb
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: PythonOperator, outlets: [{uri: "s3://x/b"}]}
`,
	"on_a.yaml": `
dag_id: on_a
schedule: ["s3://x/a"]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
	"on_both.yaml": `
dag_id: on_both
schedule: {all: ["s3://x/a", {uri: "s3://x/b"}]}
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
	"on_either.yaml": `
dag_id: on_either
schedule: {any: ["s3://x/a", "s3://x/b"]}
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
}

// consumed is the asset events a run consumed, as their source DAGs.
func consumed(t *testing.T, store *Store, run *DagRun) []string {
	t.Helper()
	events, err := store.ConsumedAssetEvents(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range events {
		out = append(out, deref(e.SourceDagID))
	}
	return out
}

// A producer's successful task makes an event of its outlet; the
// scheduler then creates a dataset_triggered run of each DAG whose
// condition holds, consuming the events, and clears their queue; an &
// condition waits for both assets.
func TestScheduler_AssetTriggeredRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, assetDAGs, nil)
		var dag *DAG
		for _, d := range h.dags.DAGs {
			if d.DagID == "on_both" {
				dag = d
			}
		}
		if dag.Schedule != nil || dag.Timetable == nil || dag.Timetable.Summary != "Dataset" ||
			dag.Timetable.Description != "Triggered by datasets" {
			t.Fatalf("on_both schedule %v timetable %+v, want Airflow 2's DatasetTriggeredTimetable", dag.Schedule, dag.Timetable)
		}
		h.trigger("pa", `{"execution_date": "2024-01-02"}`)
		h.settle()
		runs := h.runsOf("on_a")
		if len(runs) != 1 || runs[0].RunType != "dataset_triggered" || runs[0].ExternalTrigger ||
			!strings.HasPrefix(runs[0].RunID, "dataset_triggered__") {
			t.Fatalf("on_a runs %+v, want one dataset_triggered run", runs)
		}
		if runs[0].State != RunSuccess {
			t.Errorf("on_a's run is %s, want it run to success", runs[0].State)
		}
		if got := consumed(t, h.store, runs[0]); len(got) != 1 || got[0] != "pa" {
			t.Errorf("on_a's run consumed %v, want pa's event", got)
		}
		if n := len(h.runsOf("on_either")); n != 1 {
			t.Errorf("on_either has %d runs after a, want 1", n)
		}
		if n := len(h.runsOf("on_both")); n != 0 {
			t.Fatalf("on_both has %d runs after a alone, want none", n)
		}
		if q, _ := h.store.QueuedAssetEvents("on_both", 0); len(q) != 1 {
			t.Fatalf("on_both's queue %+v, want a's entry", q)
		}
		if q, _ := h.store.QueuedAssetEvents("on_a", 0); len(q) != 0 {
			t.Fatalf("on_a's queue %+v, want it cleared by its run", q)
		}

		h.clock.Advance(time.Minute)
		h.trigger("pb", `{"execution_date": "2024-01-02"}`)
		h.settle()
		both := h.runsOf("on_both")
		if len(both) != 1 {
			t.Fatalf("on_both runs %+v after a and b, want one", both)
		}
		if got := consumed(t, h.store, both[0]); len(got) != 2 {
			t.Errorf("on_both's run consumed %v, want a's and b's events", got)
		}
		// on_either's second run consumes b's event only: a's went to its first.
		either := h.runsOf("on_either")
		if len(either) != 2 {
			t.Fatalf("on_either runs %d, want 2", len(either))
		}
		for _, r := range either {
			if got := consumed(t, h.store, r); len(got) != 1 {
				t.Errorf("on_either run %s consumed %v, want one event", r.RunID, got)
			}
		}
		if n := len(h.runsOf("on_a")); n != 1 {
			t.Errorf("on_a has %d runs after b, want still 1", n)
		}
	})
}

// A paused consumer is not queued (datasets/manager.py:116-118).
func TestScheduler_AssetQueueSkipsPaused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, assetDAGs, nil)
		if err := h.store.SetPaused("on_a", true, false); err != nil {
			t.Fatal(err)
		}
		h.trigger("pa", `{"execution_date": "2024-01-02"}`)
		h.settle()
		if q, _ := h.store.QueuedAssetEvents("on_a", 0); len(q) != 0 || len(h.runsOf("on_a")) != 0 {
			t.Fatalf("paused on_a: queue %+v runs %d, want neither", q, len(h.runsOf("on_a")))
		}
	})
}

// In edition 3, POST /api/v2/assets/events queues the consumer, whose
// asset_triggered run has no logical date, runs after the event, and
// lists the event among its upstreamAssetEvents.
func TestAPIv2_AssetEventTriggersRun(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(`
dag_id: producer
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: DummyOperator, outlets: [{uri: "s3://x/a"}]}
`), withDAG(assetDAGs["on_a.yaml"]))
	sched := newSucceedingScheduler3(t, ts)
	// Listing registers the DAGs' assets; AssetResponse.scheduled_dags
	// are the DAGs scheduled on each (DagScheduleAssetReference).
	if res := ts.do(t, http.MethodGet, "/api/v2/assets", ""); !strings.Contains(res.body, `"scheduled_dags":[{"dag_id":"on_a","created_at":`) {
		t.Errorf("assets = %s, want on_a among a's scheduled_dags", res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1}`); res.status != http.StatusOK {
		t.Fatalf("POST /assets/events = %d %s", res.status, res.body)
	}
	q := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/assets/queuedEvents", "")
	if q.status != http.StatusOK || !strings.Contains(q.body, `"asset_id":1`) || !strings.Contains(q.body, `"dag_id":"on_a"`) {
		t.Fatalf("queuedEvents before the tick = %d %s", q.status, q.body)
	}
	one := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/assets/1/queuedEvents", "")
	if want := `{"dag_id":"on_a","asset_id":1,"created_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"on_a"}`; one.status != http.StatusOK || one.body != want {
		t.Fatalf("the pair's queued event = %d %s, want %s", one.status, one.body, want)
	}
	if before := ts.do(t, http.MethodGet, "/api/v2/assets/1/queuedEvents?before=2024-05-01T10:00:00Z", ""); before.body != `{"queued_events":[],"total_entries":0}` {
		t.Errorf("queued before the event = %s, want none", before.body)
	}
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	runs, err := ts.store.RunsOfDag("on_a", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("on_a runs %+v (%v), want one", runs, err)
	}
	r := runs[0]
	if r.RunType != "asset_triggered" || !r.NoLogicalDate || r.TriggeredBy != "asset" ||
		!regexp.MustCompile(`^asset_triggered__`+regexp.QuoteMeta(isoFormat(r.RunAfter))+`_[A-Za-z0-9]{8}$`).MatchString(r.RunID) {
		// DagRun.generate_run_id with no logical date: a random part
		// (jobs/scheduler_job_runner.py:2078-2081 of c57fba0e).
		t.Fatalf("run %+v, want Airflow 3's asset_triggered run", r)
	}
	up := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/dagRuns/"+r.RunID+"/upstreamAssetEvents", "")
	if up.status != http.StatusOK || !strings.Contains(up.body, `"total_entries":1`) || !strings.Contains(up.body, `"from_rest_api":true`) {
		t.Errorf("upstreamAssetEvents = %d %s", up.status, up.body)
	}
	if q := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/assets/queuedEvents", ""); q.body != `{"queued_events":[],"total_entries":0}` {
		t.Errorf("queuedEvents after the run = %d %s, want the queue cleared", q.status, q.body)
	}

	// A queued event deleted triggers nothing.
	ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1}`)
	if del := ts.do(t, http.MethodDelete, "/api/v2/assets/1/queuedEvents", ""); del.status != http.StatusNoContent {
		t.Fatalf("DELETE queuedEvents = %d %s", del.status, del.body)
	}
	if del := ts.do(t, http.MethodDelete, "/api/v2/dags/on_a/assets/queuedEvents", ""); del.status != http.StatusNotFound ||
		del.body != "{\"detail\":\"Queue event with dag_id: `on_a` was not found\"}" {
		t.Errorf("DELETE an empty queue = %d %s", del.status, del.body)
	}
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	if runs, _ := ts.store.RunsOfDag("on_a", ""); len(runs) != 1 {
		t.Errorf("on_a has %d runs after its queue was deleted, want 1", len(runs))
	}
}

// A Python DAG scheduled on datasets (schedule=[orders, customers | fx])
// keeps its condition: the builder's DAG names the three and holds once
// orders and one of the other two have events.
func TestPythonDAG_AssetSchedule(t *testing.T) {
	t.Parallel()
	requirePython(t)
	abs, _ := filepath.Abs("testdata/pydags/v2")
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	set := &DAGSet{}
	c := config{DagsDir: abs, Edition: edition2, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, zerolog.New(zerolog.NewTestWriter(t))); err != nil {
		t.Fatal(err)
	}
	var dag *DAG
	for _, d := range set.DAGs {
		if d.DagID == "py_taskflow" {
			dag = d
		}
	}
	if dag == nil || dag.AssetSchedule == nil {
		t.Fatalf("py_taskflow %+v: want an asset schedule", dag)
	}
	var uris []string
	for _, r := range dag.AssetSchedule.refs() {
		uris = append(uris, r.URI)
	}
	if want := []string{"s3://bucket/orders", "s3://bucket/customers", "s3://bucket/fx"}; !slices.Equal(uris, want) {
		t.Errorf("assets %v, want %v", uris, want)
	}
	for _, c := range []struct {
		queued []string
		want   bool
	}{
		{[]string{"s3://bucket/orders"}, false},
		{[]string{"s3://bucket/customers", "s3://bucket/fx"}, false},
		{[]string{"s3://bucket/orders", "s3://bucket/fx"}, true},
	} {
		got := dag.AssetSchedule.holds(func(r assetRef) bool { return slices.Contains(c.queued, r.URI) }, nil)
		if got != c.want {
			t.Errorf("holds with %v = %v, want %v", c.queued, got, c.want)
		}
	}
}

// POST /assets/{id}/materialize triggers the one DAG producing the asset
// (an asset_materialization run, queued, answered as DAGRunResponse); an
// asset nothing produces is Airflow's 404.
func TestAPIv2_MaterializeAsset(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(v2AssetDAG))
	ts.do(t, http.MethodGet, "/api/v2/assets", "") // registers the DAGs' assets: 1 report, 2 raw
	res := ts.do(t, http.MethodPost, "/api/v2/assets/1/materialize", "")
	if res.status != http.StatusOK || !strings.Contains(res.body, `"dag_id":"producer"`) || !strings.Contains(res.body, `"run_type":"asset_materialization"`) ||
		!strings.Contains(res.body, `"state":"queued"`) || !strings.Contains(res.body, `"dag_run_id":"manual__2024-05-01T10:00:00.123456+00:00"`) {
		t.Fatalf("materialize = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/assets/2/materialize", `{"logical_date": null}`); res.status != http.StatusNotFound ||
		res.body != `{"detail":"No DAG materializes asset with ID: 2"}` {
		t.Errorf("materialize an inlet = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/assets/1/materialize", `{"bogus": 1}`); res.status != http.StatusUnprocessableEntity ||
		!strings.Contains(res.body, `"extra_forbidden"`) {
		t.Errorf("materialize with an unknown field = %d %s", res.status, res.body)
	}
}

// TestAPIv2_PartitionedAssetEventQueuesNothing: an asset event with a
// partition_key queues no DAG that is not partition-aware (3.2.0's
// AssetManager._queue_dagruns returns before the non-partitioned queue
// when partition_key is not None, apache/airflow#63848; the 3.2.0-era
// main c57fba0e queued them). airlite's DAGs are never partition-aware,
// so such an event triggers no run; the next event without a key
// triggers one, which consumes both, as the scheduler's consumed events
// are every event since the last run with no partition filter.
func TestAPIv2_PartitionedAssetEventQueuesNothing(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(assetDAGs["on_a.yaml"]))
	sched := newSucceedingScheduler3(t, ts)
	ts.do(t, http.MethodGet, "/api/v2/assets", "") // registers on_a's asset: 1
	for _, key := range []string{`"2024-01-01"`, `""`} {
		if res := ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1, "partition_key": `+key+`}`); res.status != http.StatusOK ||
			!strings.Contains(res.body, `"partition_key":`+key) {
			t.Fatalf("POST /assets/events with partition_key %s = %d %s", key, res.status, res.body)
		}
		if q := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/assets/queuedEvents", ""); q.body != `{"queued_events":[],"total_entries":0}` {
			t.Errorf("queuedEvents after an event with partition_key %s = %s, want none", key, q.body)
		}
	}
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	if runs, err := ts.store.RunsOfDag("on_a", ""); err != nil || len(runs) != 0 {
		t.Fatalf("on_a runs %+v (%v), want none after partitioned events", runs, err)
	}
	ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1}`)
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	runs, err := ts.store.RunsOfDag("on_a", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("on_a runs %+v (%v), want one after an event without a key", runs, err)
	}
	up := ts.do(t, http.MethodGet, "/api/v2/dags/on_a/dagRuns/"+runs[0].RunID+"/upstreamAssetEvents", "")
	if !strings.Contains(up.body, `"total_entries":3`) {
		t.Errorf("upstreamAssetEvents = %s, want the three events", up.body)
	}
}
