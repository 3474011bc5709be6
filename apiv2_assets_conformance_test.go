package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cases of Airflow 3.2.1's
// tests/unit/api_fastapi/core_api/routes/public/test_assets.py, with the
// rows made the way airlite makes them: assets named by DAG files (a
// schedule, an outlet, an inlet), an asset no DAG names any more (given to
// the store directly: inactive), and events given to the store with their
// sources and timestamps.

// v2AssetFilterDAGs are test_filter_assets_by_dag_ids_works' references:
// dag1 and dag2 scheduled on an asset each, dag3 producing one and reading
// another.
var v2AssetFilterDAGs = []string{`
dag_id: dag1
schedule: [{name: s3-folder-key, uri: "s3://folder/key"}]
start_date: 2024-01-01
tasks: [{task_id: t, operator: BashOperator, bash_command: "true"}]
`, `
dag_id: dag2
schedule: [{name: gcp-bucket-key, uri: "gcp://bucket/key"}]
start_date: 2024-01-01
tasks: [{task_id: t, operator: BashOperator, bash_command: "true"}]
`, `
dag_id: dag3
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: task1, operator: BashOperator, bash_command: "true", outlets: [{name: some-asset-key, uri: "somescheme://asset/key"}],
     inlets: [{name: wasb-some_asset_bucket_-key, uri: "wasb://some_asset_bucket_/key"}]}
`}

// v2AssetsDefaultDate is test_assets.py's DEFAULT_DATE.
var v2AssetsDefaultDate = time.Date(2020, 6, 11, 18, 0, 0, 0, time.UTC)

// newAssetFilterServer serves v2AssetFilterDAGs' assets, registered in DAG
// order (ids 1 to 4), and one inactive asset (id 5).
func newAssetFilterServer(t *testing.T) *testServer {
	t.Helper()
	opts := []testOption{withExamplesPaused()}
	for _, d := range v2AssetFilterDAGs {
		opts = append(opts, withDAG(d))
	}
	ts := newTestServer(t, edition3, opts...)
	if res := ts.do(t, http.MethodGet, "/api/v2/assets", ""); res.status != http.StatusOK {
		t.Fatalf("GET /assets = %d %s", res.status, res.body)
	}
	if err := ts.store.EnsureAssets([]assetRef{{Name: "inactive", URI: "inactive"}}, testNow); err != nil {
		t.Fatal(err)
	}
	return ts
}

// v2ListIDs reads a collection's "id"s and its total_entries.
func v2ListIDs(t *testing.T, body, key string) ([]int64, int) {
	t.Helper()
	var page map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	var rows []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(page[key], &rows); err != nil {
		t.Fatalf("decode %s of %s: %v", key, body, err)
	}
	var total int
	if err := json.Unmarshal(page["total_entries"], &total); err != nil {
		t.Fatalf("decode total_entries of %s: %v", body, err)
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, total
}

// v2ListCase is one listing and the ids it answers, in order, with its
// total; or, for an error, the status and body.
type v2ListCase struct {
	query      string
	wantIDs    []int64
	wantTotal  int
	wantStatus int
	wantBody   string
}

func (c v2ListCase) check(t *testing.T, ts *testServer, path, key string) {
	t.Helper()
	res := ts.do(t, http.MethodGet, path+c.query, "")
	if c.wantStatus != 0 {
		if res.status != c.wantStatus || (c.wantBody != "" && res.body != c.wantBody) {
			t.Fatalf("GET %s%s = %d %s, want %d %s", path, c.query, res.status, res.body, c.wantStatus, c.wantBody)
		}
		return
	}
	if res.status != http.StatusOK {
		t.Fatalf("GET %s%s = %d %s", path, c.query, res.status, res.body)
	}
	ids, total := v2ListIDs(t, res.body, key)
	if !slices.Equal(ids, c.wantIDs) || total != c.wantTotal {
		t.Errorf("GET %s%s = ids %v total %d, want %v total %d", path, c.query, ids, total, c.wantIDs, c.wantTotal)
	}
}

// TestAPIv2_AssetsList follows TestGetAssets and
// TestGetAssetsEndpointPagination: only_active, the patterns, dag_ids,
// order_by, limit and offset.
func TestAPIv2_AssetsList(t *testing.T) {
	t.Parallel()
	ts := newAssetFilterServer(t)
	orderErr := `{"detail":"Ordering with 'fake' is disallowed or the attribute does not exist on the model"}`
	for _, c := range []v2ListCase{
		// An asset only a schedule names is active (AssetActive: every
		// asset a DAG references); one no DAG names is not.
		{query: "", wantIDs: []int64{1, 2, 3, 4}, wantTotal: 4},
		{query: "?only_active=0", wantIDs: []int64{1, 2, 3, 4, 5}, wantTotal: 5},
		{query: "?only_active=false", wantIDs: []int64{1, 2, 3, 4, 5}, wantTotal: 5},
		{query: "?only_active=true", wantIDs: []int64{1, 2, 3, 4}, wantTotal: 4},
		{query: "?only_active=maybe", wantStatus: 422},
		// test_filter_assets_by_name_pattern_works
		{query: "?name_pattern=s3", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?name_pattern=bucket", wantIDs: []int64{2, 4}, wantTotal: 2},
		{query: "?name_pattern=asset", wantIDs: []int64{3, 4}, wantTotal: 2},
		{query: "?name_pattern=", wantIDs: []int64{1, 2, 3, 4}, wantTotal: 4},
		{query: "?name_pattern=S3%25KEY", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?name_pattern=" + url.QueryEscape("s3 | gcp"), wantIDs: []int64{1, 2}, wantTotal: 2},
		{query: "?name_pattern=_asset_", wantIDs: []int64{3, 4}, wantTotal: 2}, // "_" is any one character
		// test_filter_assets_by_uri_pattern_works
		{query: "?uri_pattern=s3", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?uri_pattern=bucket", wantIDs: []int64{2, 4}, wantTotal: 2},
		{query: "?uri_pattern=asset", wantIDs: []int64{3, 4}, wantTotal: 2},
		{query: "?uri_pattern=", wantIDs: []int64{1, 2, 3, 4}, wantTotal: 4},
		// test_filter_assets_by_dag_ids_works: a DAG scheduled on an asset,
		// producing it or reading it; a comma list is split.
		{query: "?dag_ids=dag1,dag2", wantIDs: []int64{1, 2}, wantTotal: 2},
		{query: "?dag_ids=dag3", wantIDs: []int64{3, 4}, wantTotal: 2},
		{query: "?dag_ids=dag2,dag3", wantIDs: []int64{2, 3, 4}, wantTotal: 3},
		{query: "?dag_ids=dag1&dag_ids=dag3", wantIDs: []int64{1, 3, 4}, wantTotal: 3},
		{query: "?dag_ids=nope", wantIDs: []int64{}, wantTotal: 0},
		// test_filter_assets_by_dag_ids_and_uri_pattern_works
		{query: "?dag_ids=dag1,dag2&uri_pattern=folder", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?dag_ids=dag3&uri_pattern=nothing", wantIDs: []int64{}, wantTotal: 0},
		{query: "?dag_ids=dag2,dag3&uri_pattern=key", wantIDs: []int64{2, 3, 4}, wantTotal: 3},
		// order_by
		{query: "?order_by=-id", wantIDs: []int64{4, 3, 2, 1}, wantTotal: 4},
		{query: "?order_by=name", wantIDs: []int64{2, 1, 3, 4}, wantTotal: 4},
		{query: "?order_by=-uri", wantIDs: []int64{4, 3, 1, 2}, wantTotal: 4},
		{query: "?order_by=created_at&order_by=-name", wantIDs: []int64{4, 3, 1, 2}, wantTotal: 4},
		{query: "?order_by=updated_at", wantIDs: []int64{1, 2, 3, 4}, wantTotal: 4},
		{query: "?order_by=fake", wantStatus: 400, wantBody: orderErr},
		{query: "?order_by=extra", wantStatus: 400},
		// limit and offset: the total counts every row the filters keep.
		{query: "?limit=1", wantIDs: []int64{1}, wantTotal: 4},
		{query: "?offset=3", wantIDs: []int64{4}, wantTotal: 4},
		{query: "?offset=1&limit=2", wantIDs: []int64{2, 3}, wantTotal: 4},
		{query: "?offset=9", wantIDs: []int64{}, wantTotal: 4},
		{query: "?limit=0", wantIDs: []int64{}, wantTotal: 4},
		{query: "?limit=-1", wantStatus: 422},
	} {
		t.Run(c.query, func(t *testing.T) { c.check(t, ts, "/api/v2/assets", "assets") })
	}
}

// TestAPIv2_AssetsPageSize is test_should_respect_page_size_limit_default
// and test_limit_and_offset over 110 assets.
func TestAPIv2_AssetsPageSize(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var refs []assetRef
	for i := 1; i <= 110; i++ {
		refs = append(refs, assetRef{Name: "simple" + strconv.Itoa(i), URI: "s3://bucket/key/" + strconv.Itoa(i)})
	}
	if err := ts.store.EnsureAssets(refs, v2AssetsDefaultDate); err != nil {
		t.Fatal(err)
	}
	span := func(from, to int64) []int64 {
		var ids []int64
		for i := from; i <= to; i++ {
			ids = append(ids, i)
		}
		return ids
	}
	for _, c := range []v2ListCase{
		{query: "?only_active=false", wantIDs: span(1, 50), wantTotal: 110},
		{query: "?only_active=false&limit=100", wantIDs: span(1, 100), wantTotal: 110},
		{query: "?only_active=false&offset=50&limit=50", wantIDs: span(51, 100), wantTotal: 110},
		{query: "?only_active=false&offset=3&limit=3", wantIDs: []int64{4, 5, 6}, wantTotal: 110},
	} {
		t.Run(c.query, func(t *testing.T) { c.check(t, ts, "/api/v2/assets", "assets") })
	}
}

// TestAPIv2_AssetGet follows TestGetAssetEndpoint: every field of
// AssetResponse, the references of the DAGs, a masked extra.
func TestAPIv2_AssetGet(t *testing.T) {
	t.Parallel()
	ts := newAssetFilterServer(t)
	if err := ts.store.EnsureAssets([]assetRef{{Name: "sensitive1", URI: "s3://bucket/key/1", Extra: json.RawMessage(`{"password": "bar", "foo": 1}`)}}, v2AssetsDefaultDate); err != nil {
		t.Fatal(err)
	}
	const at = `"created_at":"2024-05-01T10:00:00.123456Z","updated_at":"2024-05-01T10:00:00.123456Z"`
	for _, c := range []v2Call{
		{name: "scheduled", method: "GET", path: "/api/v2/assets/1", wantStatus: 200, wantBody: `{"id":1,"name":"s3-folder-key","uri":"s3://folder/key","group":"asset","extra":{},` + at +
			`,"scheduled_dags":[{"dag_id":"dag1",` + at + `}],"producing_tasks":[],"consuming_tasks":[],"aliases":[],"watchers":[],"last_asset_event":{"id":null,"timestamp":null}}`},
		{name: "produced", method: "GET", path: "/api/v2/assets/3", wantStatus: 200, wantBody: `{"id":3,"name":"some-asset-key","uri":"somescheme://asset/key","group":"asset","extra":{},` + at +
			`,"scheduled_dags":[],"producing_tasks":[{"dag_id":"dag3","task_id":"task1",` + at + `}],"consuming_tasks":[],"aliases":[],"watchers":[],"last_asset_event":{"id":null,"timestamp":null}}`},
		{name: "consumed", method: "GET", path: "/api/v2/assets/4", wantStatus: 200, wantRe: `"producing_tasks":\[\],"consuming_tasks":\[\{"dag_id":"dag3","task_id":"task1",`},
		// get_asset finds an inactive asset too.
		{name: "inactive", method: "GET", path: "/api/v2/assets/5", wantStatus: 200, wantRe: `^\{"id":5,"name":"inactive","uri":"inactive",`},
		{name: "masked", method: "GET", path: "/api/v2/assets/6", wantStatus: 200,
			wantBody: `{"id":6,"name":"sensitive1","uri":"s3://bucket/key/1","group":"asset","extra":{"password":"***","foo":1},"created_at":"2020-06-11T18:00:00Z","updated_at":"2020-06-11T18:00:00Z",` +
				`"scheduled_dags":[],"producing_tasks":[],"consuming_tasks":[],"aliases":[],"watchers":[],"last_asset_event":{"id":null,"timestamp":null}}`},
		{name: "404", method: "GET", path: "/api/v2/assets/99", wantStatus: 404, wantBody: "{\"detail\":\"The Asset with ID: `99` was not found\"}"},
		{name: "422", method: "GET", path: "/api/v2/assets/x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["path","asset_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
}

// seedAssetEvents gives the store test_assets.py's assets (simple1 to
// simpleN, extra {"foo": "bar"}) and one event of each (asset i, event i,
// source run source_run_id_i), the i-th a day after DEFAULT_DATE times
// i-1 when varying.
func seedAssetEvents(t *testing.T, ts *testServer, n int, varying bool) {
	t.Helper()
	var refs []assetRef
	for i := 1; i <= n; i++ {
		refs = append(refs, assetRef{Name: "simple" + strconv.Itoa(i), URI: "s3://bucket/key/" + strconv.Itoa(i), Extra: json.RawMessage(`{"foo": "bar"}`)})
	}
	if err := ts.store.EnsureAssets(refs, v2AssetsDefaultDate); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		at := v2AssetsDefaultDate
		if varying {
			at = at.AddDate(0, 0, i-1)
		}
		dagID, taskID, runID := "source_dag_id", "source_task_id", "source_run_id_"+strconv.Itoa(i)
		if _, err := ts.store.AddAssetEvent(AssetEvent{AssetID: int64(i), Extra: json.RawMessage(`{"foo": "bar"}`), SourceDagID: &dagID,
			SourceTaskID: &taskID, SourceRunID: &runID, SourceMapIndex: -1, Timestamp: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAPIv2_AssetEventsList follows TestGetAssetEvents: the body, the
// filters, the timestamp ranges, order_by, limit and offset.
func TestAPIv2_AssetEventsList(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	seedAssetEvents(t, ts, 3, true)
	res := ts.do(t, http.MethodGet, "/api/v2/assets/events?limit=1", "")
	want := `{"asset_events":[{"id":1,"asset_id":1,"uri":"s3://bucket/key/1","name":"simple1","group":"asset","extra":{"foo":"bar"},"source_task_id":"source_task_id",` +
		`"source_dag_id":"source_dag_id","source_run_id":"source_run_id_1","source_map_index":-1,"created_dagruns":[],"timestamp":"2020-06-11T18:00:00Z","partition_key":null}],"total_entries":3}`
	if res.status != http.StatusOK || res.body != want {
		t.Errorf("GET /assets/events?limit=1\n got %d %s\nwant %s", res.status, res.body, want)
	}
	orderErr := `{"detail":"Ordering with 'fake' is disallowed or the attribute does not exist on the model"}`
	day := func(d int) string { return url.QueryEscape(v2Time(v2AssetsDefaultDate.AddDate(0, 0, d))) }
	for _, c := range []v2ListCase{
		{query: "", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		// test_filtering
		{query: "?asset_id=2", wantIDs: []int64{2}, wantTotal: 1},
		{query: "?asset_id=x", wantStatus: 422},
		{query: "?source_dag_id=source_dag_id", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?source_dag_id=other", wantIDs: []int64{}, wantTotal: 0},
		{query: "?source_task_id=source_task_id", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?source_run_id=source_run_id_1", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?source_map_index=-1", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?source_map_index=0", wantIDs: []int64{}, wantTotal: 0},
		{query: "?name_pattern=simple1", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?name_pattern=simple%25", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?name_pattern=nonexistent", wantIDs: []int64{}, wantTotal: 0},
		// test_filter_by_timestamp_gte_and_lte
		{query: "?timestamp_gte=" + day(0) + "&timestamp_lte=" + day(0), wantIDs: []int64{1}, wantTotal: 1},
		{query: "?timestamp_gte=" + day(0) + "&timestamp_lte=" + day(1), wantIDs: []int64{1, 2}, wantTotal: 2},
		{query: "?timestamp_gte=" + day(1) + "&timestamp_lte=" + day(-1), wantIDs: []int64{}, wantTotal: 0},
		{query: "?timestamp_gte=" + day(1) + "&timestamp_lte=" + day(2), wantIDs: []int64{2, 3}, wantTotal: 2},
		{query: "?timestamp_gt=" + day(0), wantIDs: []int64{2, 3}, wantTotal: 2},
		{query: "?timestamp_lt=" + day(2), wantIDs: []int64{1, 2}, wantTotal: 2},
		{query: "?timestamp_gt=" + day(0) + "&timestamp_lt=" + day(2), wantIDs: []int64{2}, wantTotal: 1},
		{query: "?timestamp_gte=2020-06-12", wantIDs: []int64{2, 3}, wantTotal: 2},
		{query: "?timestamp_gte=yesterday", wantStatus: 422},
		// order_by
		{query: "?order_by=-timestamp", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?order_by=-source_run_id", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?order_by=source_dag_id", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?order_by=-source_map_index", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?order_by=fake", wantStatus: 400, wantBody: orderErr},
		{query: "?order_by=id", wantStatus: 400},
		// test_limit_and_offset
		{query: "?limit=1", wantIDs: []int64{1}, wantTotal: 3},
		{query: "?offset=1", wantIDs: []int64{2, 3}, wantTotal: 3},
		{query: "?offset=1&limit=1", wantIDs: []int64{2}, wantTotal: 3},
	} {
		t.Run(c.query, func(t *testing.T) { c.check(t, ts, "/api/v2/assets/events", "asset_events") })
	}
}

// TestAPIv2_AssetEventsPageSize is test_limit_and_offset's default page
// over 110 events.
func TestAPIv2_AssetEventsPageSize(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	seedAssetEvents(t, ts, 110, false)
	res := ts.do(t, http.MethodGet, "/api/v2/assets/events", "")
	ids, total := v2ListIDs(t, res.body, "asset_events")
	if len(ids) != 50 || ids[0] != 1 || ids[49] != 50 || total != 110 {
		t.Errorf("default page: %d ids from %v, total %d; want 1 to 50 of 110", len(ids), ids[:min(3, len(ids))], total)
	}
	res = ts.do(t, http.MethodGet, "/api/v2/assets/events?offset=3&limit=100", "")
	if ids, _ = v2ListIDs(t, res.body, "asset_events"); len(ids) != 100 || ids[0] != 4 || ids[99] != 103 {
		t.Errorf("offset 3 limit 100: %d ids, want 4 to 103", len(ids))
	}
}

// TestAPIv2_AssetEventCreate follows TestPostAssetEvents: the answer, the
// masked extra, a body Airflow refuses, and the asset's last event after.
func TestAPIv2_AssetEventCreate(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	seedAssetEvents(t, ts, 2, false) // events 1 and 2
	for _, c := range []v2Call{
		{name: "200", method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 1, "extra": {"foo": "bar"}}`, wantStatus: 200,
			wantBody: `{"id":3,"asset_id":1,"uri":"s3://bucket/key/1","name":"simple1","group":"asset","extra":{"foo":"bar","from_rest_api":true},"source_task_id":null,` +
				`"source_dag_id":null,"source_run_id":null,"source_map_index":-1,"created_dagruns":[],"timestamp":"2024-05-01T10:00:00.123456Z","partition_key":null}`},
		{name: "masked", method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 1, "extra": {"password": "bar"}, "partition_key": "p"}`, wantStatus: 200,
			wantRe: `^\{"id":4,"asset_id":1,.*"extra":\{"password":"\*\*\*","from_rest_api":true\},.*"partition_key":"p"\}$`},
		{name: "no extra", method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 2}`, wantStatus: 200,
			wantRe: `"extra":\{"from_rest_api":true\}`},
		{name: "last event", method: "GET", path: "/api/v2/assets/2", wantStatus: 200,
			wantRe: `"last_asset_event":\{"id":5,"timestamp":"2024-05-01T10:00:00.123456Z"\}\}$`},
		{name: "unknown asset", method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 9}`, wantStatus: 404,
			wantBody: "{\"detail\":\"Asset with ID: `9` was not found\"}"},
		// test_invalid_attr_not_allowed: asset_uri is no field of the body.
		{name: "invalid attr", method: "POST", path: "/api/v2/assets/events", body: `{"asset_uri": "s3://bucket/key/1", "extra": {"foo": "bar"}, "fake": {}}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["body","asset_id"],"msg":"Field required","input":{"asset_uri":"s3://bucket/key/1","extra":{"foo":"bar"},"fake":{}}},` +
				`{"type":"extra_forbidden","loc":["body","asset_uri"],"msg":"Extra inputs are not permitted","input":"s3://bucket/key/1"},` +
				`{"type":"extra_forbidden","loc":["body","fake"],"msg":"Extra inputs are not permitted","input":{}}]}`},
		{name: "extra not a dict", method: "POST", path: "/api/v2/assets/events", body: `{"asset_id": 1, "extra": [1]}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"dict_type","loc":["body","extra"],"msg":"Input should be a valid dictionary","input":[1]}]}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
	// test_should_update_assets_endpoint: the list shows each asset's own
	// last event.
	res := ts.do(t, http.MethodGet, "/api/v2/assets?only_active=false", "")
	var page struct {
		Assets []struct {
			ID   int64 `json:"id"`
			Last struct {
				ID *int64 `json:"id"`
			} `json:"last_asset_event"`
		} `json:"assets"`
	}
	if err := json.Unmarshal([]byte(res.body), &page); err != nil || len(page.Assets) != 2 {
		t.Fatalf("GET /assets = %s (%v)", res.body, err)
	}
	if got := page.Assets[0].Last.ID; got == nil || *got != 4 {
		t.Errorf("asset 1's last event %v, want 4", got)
	}
	if got := page.Assets[1].Last.ID; got == nil || *got != 5 {
		t.Errorf("asset 2's last event %v, want 5", got)
	}
}

// TestAPIv2_AssetQueuedEvents follows TestGetDagAssetQueuedEvents,
// TestDeleteDagDatasetQueuedEvents, TestGetAssetQueuedEvents,
// TestDeleteAssetQueuedEvents and TestDeleteDagAssetQueuedEvent, with
// the before parameter.
func TestAPIv2_AssetQueuedEvents(t *testing.T) {
	t.Parallel()
	newQueued := func(t *testing.T) *testServer {
		ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(assetDAGs["on_a.yaml"]))
		ts.do(t, http.MethodGet, "/api/v2/assets", "")
		if res := ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1}`); res.status != http.StatusOK {
			t.Fatalf("POST /assets/events = %d %s", res.status, res.body)
		}
		return ts
	}
	const entry = `{"dag_id":"on_a","asset_id":1,"created_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"on_a"}`
	badBefore := `{"detail":"Invalid datetime: 'soon'. Please check the date parameter have this value."}`
	for _, c := range []v2Call{
		{name: "dag", method: "GET", path: "/api/v2/dags/on_a/assets/queuedEvents", wantStatus: 200, wantBody: `{"queued_events":[` + entry + `],"total_entries":1}`},
		{name: "dag before", method: "GET", path: "/api/v2/dags/on_a/assets/queuedEvents?before=2024-05-01T10:00:00Z", wantStatus: 200, wantBody: `{"queued_events":[],"total_entries":0}`},
		{name: "dag after", method: "GET", path: "/api/v2/dags/on_a/assets/queuedEvents?before=2024-05-02", wantStatus: 200, wantBody: `{"queued_events":[` + entry + `],"total_entries":1}`},
		{name: "dag bad before", method: "GET", path: "/api/v2/dags/on_a/assets/queuedEvents?before=soon", wantStatus: 400, wantBody: badBefore},
		{name: "asset", method: "GET", path: "/api/v2/assets/1/queuedEvents", wantStatus: 200, wantBody: `{"queued_events":[` + entry + `],"total_entries":1}`},
		{name: "asset bad before", method: "GET", path: "/api/v2/assets/1/queuedEvents?before=soon", wantStatus: 400, wantBody: badBefore},
		{name: "pair", method: "GET", path: "/api/v2/dags/on_a/assets/1/queuedEvents", wantStatus: 200, wantBody: entry},
		{name: "pair before", method: "GET", path: "/api/v2/dags/on_a/assets/1/queuedEvents?before=2020-01-01", wantStatus: 404,
			wantBody: "{\"detail\":\"Queued event with dag_id: `on_a` and asset_id: `1` was not found\"}"},
		{name: "pair other dag", method: "GET", path: "/api/v2/dags/not_exists/assets/1/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queued event with dag_id: `not_exists` and asset_id: `1` was not found\"}"},
		{name: "delete dag", method: "DELETE", path: "/api/v2/dags/on_a/assets/queuedEvents", wantStatus: 204},
		{name: "delete dag before", method: "DELETE", path: "/api/v2/dags/on_a/assets/queuedEvents?before=2020-01-01", wantStatus: 404,
			wantBody: "{\"detail\":\"Queue event with dag_id: `on_a` was not found\"}"},
		{name: "delete dag bad before", method: "DELETE", path: "/api/v2/dags/on_a/assets/queuedEvents?before=soon", wantStatus: 400, wantBody: badBefore},
		{name: "delete dag missing", method: "DELETE", path: "/api/v2/dags/not_exists/assets/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queue event with dag_id: `not_exists` was not found\"}"},
		{name: "delete asset", method: "DELETE", path: "/api/v2/assets/1/queuedEvents", wantStatus: 204},
		{name: "delete asset missing", method: "DELETE", path: "/api/v2/assets/2/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queue event with asset_id: `2` was not found\"}"},
		{name: "delete pair", method: "DELETE", path: "/api/v2/dags/on_a/assets/1/queuedEvents", wantStatus: 204},
		{name: "delete pair missing", method: "DELETE", path: "/api/v2/dags/not_exists/assets/1/queuedEvents", wantStatus: 404,
			wantBody: "{\"detail\":\"Queued event with dag_id: `not_exists` and asset_id: `1` was not found\"}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newQueued(t)
			c.check(t, ts)
			if c.method == http.MethodDelete && c.wantStatus == http.StatusNoContent {
				if q, _ := ts.store.QueuedAssetEvents("", 0); len(q) != 0 {
					t.Errorf("queue after %s: %+v, want empty", c.path, q)
				}
			}
		})
	}
}

// TestAPIv2_AssetMaterialize follows TestPostAssetMaterialize: one DAG
// producing the asset gets an asset_materialization run; two are a 409;
// none is a 404.
func TestAPIv2_AssetMaterialize(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(`
dag_id: test_dag_1
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: task, operator: EmptyOperator, outlets: [{name: simple1, uri: "s3://bucket/key/1"}]}]
`), withDAG(`
dag_id: test_dag_2a
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: task, operator: EmptyOperator, outlets: [{name: simple2, uri: "s3://bucket/key/2"}]}]
`), withDAG(`
dag_id: test_dag_2b
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: task, operator: EmptyOperator, outlets: [{name: simple2, uri: "s3://bucket/key/2"}]}]
`), withDAG(`
dag_id: test_dag_no
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: task, operator: EmptyOperator, inlets: [{name: simple3, uri: "s3://bucket/key/3"}]}]
`), withOwnDAG(`
dag_id: test_dag_manual
schedule_interval: null
start_date: 2024-01-01
allowed_run_types: [manual]
tasks: [{task_id: task, operator: EmptyOperator, outlets: [{name: simple4, uri: "s3://bucket/key/4"}]}]
`))
	ts.do(t, http.MethodGet, "/api/v2/assets", "")
	for _, c := range []v2Call{
		// The id is validate_context's, which names a manual run whatever
		// the run type create_dagrun is given (MaterializeAssetBody is the
		// trigger's body, #64211; datamodels/dag_run.py:131-135 of c57fba0e).
		{name: "200", method: "POST", path: "/api/v2/assets/1/materialize", wantStatus: 200,
			wantRe: `^\{"dag_run_id":"manual__2024-05-01T10:00:00.123456\+00:00","dag_id":"test_dag_1","logical_date":null,"queued_at":"2024-05-01T10:00:00.123456Z",` +
				`"start_date":null,"end_date":null,"duration":null,"data_interval_start":null,"data_interval_end":null,"run_after":"2024-05-01T10:00:00.123456Z",` +
				`"last_scheduling_decision":null,"run_type":"asset_materialization","state":"queued","triggered_by":"rest_api","triggering_user_name":"Anonymous","conf":\{\},"note":null,` +
				`"dag_versions":\[.*\],"bundle_version":null,"dag_display_name":"test_dag_1","partition_key":null\}$`},
		{name: "body", method: "POST", path: "/api/v2/assets/1/materialize", body: `{"dag_run_id": "mine", "conf": {"a": 1}, "note": "n"}`, wantStatus: 200,
			wantRe: `^\{"dag_run_id":"mine",.*"run_type":"asset_materialization",.*"conf":\{"a":1\},"note":"n",`},
		{name: "409", method: "POST", path: "/api/v2/assets/2/materialize", wantStatus: 409, wantBody: `{"detail":"More than one DAG materializes asset with ID: 2"}`},
		// Outlets are numbered before inlets: test_dag_manual's asset is 3.
		{name: "404 inlet", method: "POST", path: "/api/v2/assets/4/materialize", wantStatus: 404, wantBody: `{"detail":"No DAG materializes asset with ID: 4"}`},
		{name: "404 unknown", method: "POST", path: "/api/v2/assets/99/materialize", wantStatus: 404, wantBody: `{"detail":"No DAG materializes asset with ID: 99"}`},
		{name: "null body", method: "POST", path: "/api/v2/assets/1/materialize", body: `null`, wantStatus: 200, wantRe: `"run_type":"asset_materialization"`},
		// allowed_run_types without asset_materialization (c57fba0e
		// routes/public/assets.py:422-426).
		{name: "400 not allowed", method: "POST", path: "/api/v2/assets/3/materialize", wantStatus: 400,
			wantBody: `{"detail":"Dag with dag_id: 'test_dag_manual' does not allow asset materialization runs"}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
}

// TestAPIv2_AssetEventCreatedDagruns: an event's created_dagruns are the
// runs that consumed it (DagRunAssetReference), in GET /assets/events and
// in a run's upstreamAssetEvents, as test_should_respond_200 shows them.
func TestAPIv2_AssetEventCreatedDagruns(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(assetDAGs["on_a.yaml"]))
	sched := newSucceedingScheduler3(t, ts)
	ts.do(t, http.MethodGet, "/api/v2/assets", "")
	if res := ts.do(t, http.MethodPost, "/api/v2/assets/events", `{"asset_id": 1}`); res.status != http.StatusOK {
		t.Fatalf("POST /assets/events = %d %s", res.status, res.body)
	}
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	runs, err := ts.store.RunsOfDag("on_a", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("on_a runs %+v (%v), want one", runs, err)
	}
	r := runs[0]
	start := "null"
	if r.StartDate != nil {
		start = `"` + v2Time(*r.StartDate) + `"`
	}
	created := `"created_dagruns":[{"run_id":"` + r.RunID + `","dag_id":"on_a","logical_date":null,"start_date":` + start +
		`,"end_date":null,"state":"` + string(r.State) + `","data_interval_start":null,"data_interval_end":null,"partition_key":null}]`
	for _, path := range []string{"/api/v2/assets/events", "/api/v2/dags/on_a/dagRuns/" + r.RunID + "/upstreamAssetEvents"} {
		res := ts.do(t, http.MethodGet, path, "")
		if res.status != http.StatusOK || !strings.Contains(res.body, created) {
			t.Errorf("GET %s = %d %s\nwant %s", path, res.status, res.body, created)
		}
	}
}

// TestAPIv2_AssetAliases follows TestGetAssetAliases,
// TestGetAssetAliasesEndpointPagination and TestGetAssetAliasEndpoint:
// the aliases a DAG names (its outlets) and others the store has.
func TestAPIv2_AssetAliases(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(`
dag_id: aliased
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: t, operator: EmptyOperator, outlets: [{alias: foo1}, {alias: {name: bar12, group: alias}}]}]
`))
	if res := ts.do(t, http.MethodGet, "/api/v2/assets/aliases", ""); res.body != `{"asset_aliases":[{"id":1,"name":"foo1","group":"asset"},{"id":2,"name":"bar12","group":"alias"}],"total_entries":2}` {
		t.Fatalf("GET /assets/aliases = %d %s", res.status, res.body)
	}
	if err := ts.store.EnsureAssetAliases([]aliasRef{{Name: "bar2"}, {Name: "bar3"}, {Name: "rex23"}}); err != nil {
		t.Fatal(err)
	}
	orderErr := `{"detail":"Ordering with 'fake' is disallowed or the attribute does not exist on the model"}`
	for _, c := range []v2ListCase{
		{query: "", wantIDs: []int64{1, 2, 3, 4, 5}, wantTotal: 5},
		{query: "?name_pattern=foo", wantIDs: []int64{1}, wantTotal: 1},
		{query: "?name_pattern=1", wantIDs: []int64{1, 2}, wantTotal: 2},
		{query: "?name_pattern=", wantIDs: []int64{1, 2, 3, 4, 5}, wantTotal: 5},
		{query: "?uri_pattern=", wantIDs: []int64{1, 2, 3, 4, 5}, wantTotal: 5}, // not a parameter of the route
		{query: "?order_by=name", wantIDs: []int64{2, 3, 4, 1, 5}, wantTotal: 5},
		{query: "?order_by=-name", wantIDs: []int64{5, 1, 4, 3, 2}, wantTotal: 5},
		{query: "?order_by=-id&limit=2", wantIDs: []int64{5, 4}, wantTotal: 5},
		{query: "?limit=1", wantIDs: []int64{1}, wantTotal: 5},
		{query: "?offset=3&limit=3", wantIDs: []int64{4, 5}, wantTotal: 5},
		{query: "?order_by=fake", wantStatus: 400, wantBody: orderErr},
		{query: "?limit=-1", wantStatus: 422},
	} {
		t.Run(c.query, func(t *testing.T) { c.check(t, ts, "/api/v2/assets/aliases", "asset_aliases") })
	}
	for _, c := range []v2Call{
		{name: "get", method: "GET", path: "/api/v2/assets/aliases/2", wantStatus: 200, wantBody: `{"id":2,"name":"bar12","group":"alias"}`},
		{name: "404", method: "GET", path: "/api/v2/assets/aliases/9", wantStatus: 404, wantBody: "{\"detail\":\"The Asset Alias with ID: `9` was not found\"}"},
		{name: "422", method: "GET", path: "/api/v2/assets/aliases/x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["path","asset_alias_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		// An alias is no asset: the DAG's outlets name none.
		{name: "assets", method: "GET", path: "/api/v2/assets", wantStatus: 200, wantBody: `{"assets":[],"total_entries":0}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
}

// TestAPIv2_AssetAliasesPageSize is test_should_respect_page_size_limit_default.
func TestAPIv2_AssetAliasesPageSize(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var refs []aliasRef
	for i := 1; i <= 110; i++ {
		refs = append(refs, aliasRef{Name: "simple" + strconv.Itoa(i)})
	}
	if err := ts.store.EnsureAssetAliases(refs); err != nil {
		t.Fatal(err)
	}
	res := ts.do(t, http.MethodGet, "/api/v2/assets/aliases?offset=1", "")
	if ids, total := v2ListIDs(t, res.body, "asset_aliases"); len(ids) != 50 || ids[0] != 2 || total != 110 {
		t.Errorf("offset 1: %d ids from %v, total %d; want 2 to 51 of 110", len(ids), ids[:min(2, len(ids))], total)
	}
}
