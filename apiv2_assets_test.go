package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// v2AssetDAG produces s3://bucket/report (its task's outlet) and reads
// s3://bucket/raw (an inlet).
const v2AssetDAG = `
dag_id: producer
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: BashOperator, bash_command: "true", inlets: [{uri: "s3://bucket/raw"}], outlets: [{uri: "s3://bucket/report", extra: {owner: ann}}, "not an asset"]}
`

// TestAPIv2_Assets follows test_assets.py: the DAGs' assets listed and
// got, an event made through POST /assets/events, the events listed
// with their filters, and the 404s of aliases and queued events.
func TestAPIv2_Assets(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2AssetDAG))
	const date = `"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z"`
	asset1 := `\{"id":1,"name":"s3://bucket/report","uri":"s3://bucket/report","group":"asset","extra":\{"owner":"ann"\},"created_at":` + date + `,"updated_at":` + date +
		`,"scheduled_dags":\[\],"producing_tasks":\[\{"dag_id":"producer","task_id":"make","created_at":` + date + `,"updated_at":` + date + `\}\],"consuming_tasks":\[\],"aliases":\[\],"watchers":\[\],`
	for _, c := range []v2Call{
		{method: "GET", path: "/api/v2/assets", wantStatus: 200, wantRe: `^\{"assets":\[` + asset1 + `"last_asset_event":\{"id":null,"timestamp":null\}\},\{"id":2,"name":"s3://bucket/raw",.*"consuming_tasks":\[\{"dag_id":"producer","task_id":"make",.*\],"total_entries":2\}$`},
		{method: "GET", path: "/api/v2/assets?uri_pattern=report", wantStatus: 200, wantRe: `^\{"assets":\[` + asset1 + `.*\],"total_entries":1\}$`},
		{method: "GET", path: "/api/v2/assets?dag_ids=other", wantStatus: 200, wantBody: `{"assets":[],"total_entries":0}`},
		{method: "GET", path: "/api/v2/assets?order_by=-uri&limit=1", wantStatus: 200, wantRe: `^\{"assets":\[` + asset1 + `.*\],"total_entries":2\}$`},
		{method: "GET", path: "/api/v2/assets?order_by=extra", wantStatus: 400, wantBody: `{"detail":"Ordering with 'extra' is disallowed or the attribute does not exist on the model"}`},
		{method: "GET", path: "/api/v2/assets/1", wantStatus: 200, wantRe: `^` + asset1 + `"last_asset_event":\{"id":null,"timestamp":null\}\}$`},
		{method: "GET", path: "/api/v2/assets/9", wantStatus: 404, wantBody: "{\"detail\":\"The Asset with ID: `9` was not found\"}"},
		{method: "GET", path: "/api/v2/assets/x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["path","asset_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		{method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 9}`, wantStatus: 404, wantBody: "{\"detail\":\"Asset with ID: `9` was not found\"}"},
		{method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 1, "extra": {"password": "pw", "n": 1}, "source": "x"}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"extra_forbidden","loc":["body","source"],"msg":"Extra inputs are not permitted","input":"x"}]}`},
		{method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 1, "extra": {"password": "pw", "n": 1}}`, wantStatus: 200,
			wantRe: `^\{"id":1,"asset_id":1,"uri":"s3://bucket/report","name":"s3://bucket/report","group":"asset","extra":\{"password":"\*\*\*","n":1,"from_rest_api":true\},` +
				`"source_task_id":null,"source_dag_id":null,"source_run_id":null,"source_map_index":-1,"created_dagruns":\[\],"timestamp":` + date + `,"partition_key":null\}$`},
		{method: "GET", path: "/api/v2/assets/1", wantStatus: 200, wantRe: `"last_asset_event":\{"id":1,"timestamp":` + date + `\}\}$`},
		{method: "GET", path: "/api/v2/assets/events?asset_id=1", wantStatus: 200, wantRe: `^\{"asset_events":\[\{"id":1,"asset_id":1,.*\}\],"total_entries":1\}$`},
		{method: "GET", path: "/api/v2/assets/events?asset_id=2", wantStatus: 200, wantBody: `{"asset_events":[],"total_entries":0}`},
		{method: "GET", path: "/api/v2/assets/events?source_dag_id=producer", wantStatus: 200, wantBody: `{"asset_events":[],"total_entries":0}`},
		{method: "GET", path: "/api/v2/assets/events?name_pattern=REPORT&timestamp_gte=2000-01-01", wantStatus: 200, wantRe: `"total_entries":1\}$`},
		{method: "GET", path: "/api/v2/assets/events?timestamp_lt=2000-01-01", wantStatus: 200, wantBody: `{"asset_events":[],"total_entries":0}`},
		{method: "GET", path: "/api/v2/assets/aliases", wantStatus: 200, wantBody: `{"asset_aliases":[],"total_entries":0}`},
		{method: "GET", path: "/api/v2/assets/aliases/3", wantStatus: 404, wantBody: "{\"detail\":\"The Asset Alias with ID: `3` was not found\"}"},
		// 3.2.1's document gives the two list routes no 404: none is an empty list.
		{method: "GET", path: "/api/v2/assets/1/queuedEvents", wantStatus: 200, wantBody: `{"queued_events":[],"total_entries":0}`},
		{method: "DELETE", path: "/api/v2/assets/1/queuedEvents", wantStatus: 404, wantBody: "{\"detail\":\"Queue event with asset_id: `1` was not found\"}"},
		{method: "GET", path: "/api/v2/dags/producer/assets/queuedEvents", wantStatus: 200, wantBody: `{"queued_events":[],"total_entries":0}`},
		{method: "DELETE", path: "/api/v2/dags/producer/assets/queuedEvents", wantStatus: 404, wantBody: "{\"detail\":\"Queue event with dag_id: `producer` was not found\"}"},
		{method: "GET", path: "/api/v2/dags/producer/assets/1/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queued event with dag_id: `producer` and asset_id: `1` was not found\"}"},
		{method: "DELETE", path: "/api/v2/dags/producer/assets/1/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queued event with dag_id: `producer` and asset_id: `1` was not found\"}"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) { c.check(t, ts) })
	}
}

// A successful task whose outlets name an asset records an event of it,
// with the task as its source; a task that fails records none.
func TestAssets_OutletEventOnSuccess(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: ok, operator: PythonOperator, outlets: [{uri: "s3://b/ok"}]}
  - {task_id: bad, operator: PythonOperator, outlets: [{name: "bad-asset"}]}
`}, nil)
		h.runner.outcomes["bad"] = []TaskState{TaskFailed}
		h.trigger("d", `{"execution_date": "2024-01-02"}`)
		h.settle()
		events, err := h.store.AssetEvents()
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || deref(events[0].SourceTaskID) != "ok" || deref(events[0].SourceDagID) != "d" || events[0].SourceMapIndex != -1 {
			t.Fatalf("events %+v, want one of task ok", events)
		}
		assets, err := h.store.Assets()
		if err != nil || len(assets) != 1 || assets[0].URI != "s3://b/ok" || assets[0].Name != "s3://b/ok" {
			t.Fatalf("assets %+v (%v), want s3://b/ok", assets, err)
		}
	})
}

// The asset events are a table of their own, kept by snapshots.
func TestAssets_SnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2AssetDAG))
	if res := ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1, "extra": {"k": "v"}, "partition_key": "p1"}`); res.status != http.StatusOK {
		t.Fatalf("POST /assets/events = %d %s", res.status, res.body)
	}
	restored := snapshotRoundTrip(t, ts.store)
	events, err := restored.AssetEvents()
	if err != nil || len(events) != 1 || string(events[0].Extra) != `{"k":"v","from_rest_api":true}` || deref(events[0].PartitionKey) != "p1" {
		t.Fatalf("restored events %+v (%v)", events, err)
	}
	assets, err := restored.Assets()
	if err != nil || len(assets) != 2 || assets[0].URI != "s3://bucket/report" || !regexp.MustCompile(`owner`).Match(assets[0].Extra) {
		t.Fatalf("restored assets %+v (%v)", assets, err)
	}
	if !strings.Contains(string(assets[1].Extra), "{}") {
		t.Errorf("asset without extra restored with %s", assets[1].Extra)
	}
}

// snapshotRoundTrip writes store's snapshot and restores it.
func snapshotRoundTrip(t *testing.T, store *Store) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(store, path, snapNow); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	return restored
}

// An alias only a schedule names is registered with the group the
// schedule gives it (AssetAlias's group, "asset" when not given), in the
// YAML form and in a Python file's serialized condition.
func TestAPIv2_ScheduledAliasKeepsItsGroup(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(`
dag_id: on_grouped
schedule: [{alias: {name: grouped, group: reports}}, {alias: plain}]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: EmptyOperator}
`))
	for _, c := range scheduledAliasCalls {
		c.check(t, ts)
	}

	for _, serialized := range []map[string]any{
		{"__type": "asset_alias", "name": "n", "group": "g"},
		{"__type": "asset_alias", "__var": map[string]any{"name": "n", "group": "g"}},
	} {
		cond, err := assetCondOf(serialized)
		if err != nil {
			t.Fatal(err)
		}
		if got := cond.aliases(); len(got) != 1 || got[0] != (aliasRef{Name: "n", Group: "g"}) {
			t.Errorf("aliases of %v: %+v, want n in group g", serialized, got)
		}
	}
}

// scheduledAliasCalls are the answers about the aliases grouped (in
// group reports) and plain (no group given), which only a schedule names.
var scheduledAliasCalls = []v2Call{
	{method: "GET", path: "/api/v2/assets/aliases", wantStatus: 200,
		wantBody: `{"asset_aliases":[{"id":1,"name":"grouped","group":"reports"},{"id":2,"name":"plain","group":"asset"}],"total_entries":2}`},
	{method: "GET", path: "/api/v2/assets/aliases/1", wantStatus: 200, wantBody: `{"id":1,"name":"grouped","group":"reports"}`},
	{method: "GET", path: "/api/v2/assets/aliases/2", wantStatus: 200, wantBody: `{"id":2,"name":"plain","group":"asset"}`},
}

// The same through a Python file: AssetAlias(name, group=...) in a
// condition is serialized with its group (task-sdk AssetAlias: group
// defaults to "asset"), and the alias no task declares is registered in
// it, first asked for by id.
func TestAPIv2_PythonScheduledAliasKeepsItsGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const file = `
import pendulum
from airflow.sdk import DAG, AssetAlias, AssetAny, task

with DAG("on_grouped", schedule=AssetAny(AssetAlias("grouped", group="reports"), AssetAlias("plain")),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    @task
    def t():
        pass

    t()
`
	if err := os.WriteFile(filepath.Join(dir, "on_grouped.py"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	set := readPyServeFolderAs(t, dir, edition3)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
	for _, c := range slices.Backward(scheduledAliasCalls) {
		c.check(t, ts)
	}
}

// A DAG file read again gives the assets and aliases it names its group
// and extra, as the DAG processor overwrites them at every parse
// (dag_processing/collection.py sync_assets, sync_asset_aliases); an
// asset's updated_at moves, its created_at stays.
func TestAPIv2_ReparsedFileRedefinesAssets(t *testing.T) {
	t.Parallel()
	const def = `
dag_id: producer
schedule: [{alias: {name: daily_alias, group: GROUP}}]
start_date: 2024-01-01
tasks:
  - task_id: t
    operator: EmptyOperator
    outlets: [{name: report, uri: "s3://b/report", group: GROUP, extra: {v: VALUE}}]
`
	clock := newFakeClock(testNow)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }),
		withDAG(strings.NewReplacer("GROUP", "reports", "VALUE", "1").Replace(def)))
	const created = `"created_at":"2024-05-01T10:00:00.123456Z"`
	expect(t, ts.do(t, "GET", "/api/v2/assets", ""), 200, `"group":"reports"`, `"extra":{"v":1}`, created,
		`"updated_at":"2024-05-01T10:00:00.123456Z"`)
	expect(t, ts.do(t, "GET", "/api/v2/assets/aliases", ""), 200, `"name":"daily_alias","group":"reports"`)

	if _, err := clock.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	expect(t, ts.do(t, "POST", "/_airlite/dags", strings.NewReplacer("GROUP", "audits", "VALUE", "2").Replace(def)), 200)
	expect(t, ts.do(t, "GET", "/api/v2/assets", ""), 200, `"group":"audits"`, `"extra":{"v":2}`, created,
		`"updated_at":"2024-05-01T11:00:00.123456Z"`, `"total_entries":1`)
	expect(t, ts.do(t, "GET", "/api/v2/assets/aliases", ""), 200, `"name":"daily_alias","group":"audits"`, `"total_entries":1`)

	// The same definition again changes nothing, updated_at included.
	if _, err := clock.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	expect(t, ts.do(t, "POST", "/_airlite/dags", strings.NewReplacer("GROUP", "audits", "VALUE", "2").Replace(def)), 200)
	expect(t, ts.do(t, "GET", "/api/v2/assets", ""), 200, `"updated_at":"2024-05-01T11:00:00.123456Z"`)
}

// Airflow 2.10.3 keeps what the first parse stored of a dataset
// (models/dag.py bulk_write_to_db creates the missing ones only).
func TestAPIv1_ReparsedFileKeepsDatasets(t *testing.T) {
	t.Parallel()
	const def = `
dag_id: producer
schedule_interval: null
start_date: 2024-01-01
tasks:
  - task_id: t
    operator: EmptyOperator
    outlets: [{uri: "s3://b/report", extra: {v: VALUE}}]
`
	ts := newTestServer(t, edition2, withDAG(strings.Replace(def, "VALUE", "1", 1)))
	expect(t, ts.do(t, "GET", "/api/v1/datasets", ""), 200, `"v": 1`)
	expect(t, ts.do(t, "POST", "/_airlite/dags", strings.Replace(def, "VALUE", "2", 1)), 200)
	expect(t, ts.do(t, "GET", "/api/v1/datasets", ""), 200, `"v": 1`, `"total_entries": 1`)
}
