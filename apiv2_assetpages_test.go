package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addAssetEvents registers assets asset_0..asset_{assets-1} and stores n
// events of them, their timestamps out of id order and some shared (the
// events of one try's outlets share its end).
func addAssetEvents(tb testing.TB, store *Store, assets, n int) {
	tb.Helper()
	var refs []assetRef
	for i := range assets {
		refs = append(refs, assetRef{Name: fmt.Sprintf("asset_%d", i), URI: fmt.Sprintf("s3://bucket/asset_%d", i)})
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := store.EnsureAssets(refs, base); err != nil {
		tb.Fatal(err)
	}
	dag, task := "producer", "make"
	for i := range n {
		at := base.Add(time.Duration((i*37)%(n/2+1)) * time.Second)
		e := AssetEvent{AssetID: int64(i%assets + 1), Extra: json.RawMessage(`{}`), SourceDagID: &dag, SourceTaskID: &task, SourceMapIndex: -1, Timestamp: at}
		if _, err := store.AddAssetEvent(e); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestAPIv2_AssetEvents_ReadThePage lists pages of 600 asset events
// (timestamps out of id order, pairs of them equal) by timestamp either
// way, Airflow's default order, and checks through the store's rowsRead
// hook that a page reads its own events and those its offset skips (ties
// go by id in the timestamp's direction, SortParam's primary key), and
// that each answer is, byte for byte, the sorting
// path's (forced by a second order key); then that a snapshot's
// restore keeps the order and the total.
func TestAPIv2_AssetEvents_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addAssetEvents(t, ts.store, 7, 600)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const events = "/assets/events"
	cases := []struct {
		name, path string
		maxRead    int // 0: none
	}{
		{"default", "?limit=50", 50},
		{"offset", "?limit=25&offset=300", 325},
		{"by timestamp", "?limit=30&offset=10&order_by=timestamp", 40},
		{"by -timestamp", "?limit=30&order_by=-timestamp", 30 + 2},
		{"by -timestamp, offset", "?limit=30&offset=41&order_by=-timestamp", 71 + 2},
		{"past the end", "?limit=10&offset=700", 0},
	}
	check := func(t *testing.T, path string, maxRead int) {
		t.Helper()
		// A second key (every event's source_map_index is -1) keeps the
		// order and makes the listing sort.
		sorted := events + path + "&order_by=source_map_index"
		if !strings.Contains(path, "order_by") {
			sorted = events + path + "&order_by=timestamp&order_by=source_map_index"
		}
		got := checkPageRead(t, ts, &read, http.MethodGet, events+path, "", sorted, "", maxRead)
		if !strings.Contains(got.body, `"total_entries":600`) {
			t.Errorf("total not 600: %.300s", got.body)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.path, tc.maxRead) })
	}

	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(ts.store, path, time.Now()); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	page, total, err := restored.AssetEventPage(true, false, 0, 5)
	if err != nil || total != 600 || len(page) != 5 {
		t.Fatalf("restored: %d events of %d, %v", len(page), total, err)
	}
	before, _, err := ts.store.AssetEventPage(true, false, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range page {
		if page[i].ID != before[i].ID {
			t.Errorf("restored page's event %d is id %d, was %d", i, page[i].ID, before[i].ID)
		}
	}
}

// TestAPIv1_DatasetEvents_ReadThePage lists pages of 2.10.3's dataset
// events, which share the v2 listing's operation: by timestamp either way
// from the index, each answer the one a source_map_index filter that
// drops nothing gives (a filtered walk of the same index;
// TestAssetEvents_FiltersReadThePage holds those to a sort).
func TestAPIv1_DatasetEvents_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	addAssetEvents(t, ts.store, 5, 300)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		path    string
		maxRead int
	}{
		{"?limit=20", 20},
		{"?limit=20&offset=100&order_by=-timestamp", 120 + 2},
	} {
		t.Run(tc.path, func(t *testing.T) {
			checkV1PageRead(t, ts, &read, "/datasets/events"+tc.path, "/datasets/events"+tc.path+"&source_map_index=-1", 300, tc.maxRead)
		})
	}
}

// checkV1PageRead is checkPageRead's twin for /api/v1: the answer to path
// (asked twice, the second counted) is the answer to sorted, its total
// total, and it reads 1 to maxRead rows.
func checkV1PageRead(t *testing.T, ts *testServer, read *int, path, sorted string, total, maxRead int) {
	t.Helper()
	want := ts.do(t, http.MethodGet, apiV1Prefix+sorted, "")
	ts.do(t, http.MethodGet, apiV1Prefix+path, "")
	*read = 0
	got := ts.do(t, http.MethodGet, apiV1Prefix+path, "")
	if got.status != 200 || got.body != want.body {
		t.Errorf("answer %d differs from the sorted one:\n got %.600s\nwant %.600s", got.status, got.body, want.body)
	}
	if n := fmt.Sprintf(`"total_entries": %d`, total); !strings.Contains(got.body, n) {
		t.Errorf("total not %d: %.300s", total, got.body)
	}
	if *read == 0 || *read > maxRead {
		t.Errorf("read %d rows for the page, want 1 to %d", *read, maxRead)
	}
}

// The runs that consumed a page's events (their created_dagruns) are
// found through the events' ids: the consumed-events rows of those
// events and their runs are read, not every run nor every consumed row;
// a restore finds them again.
func TestStore_RunsConsumingEvents_ReadTheirRows(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	dag := dags.DAGs[0]
	addRuns(t, store, dag, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 400, false)
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil || len(runs) != 400 {
		t.Fatalf("runs %d (%v)", len(runs), err)
	}
	// Run i consumed events i and i+1 (ids from 1).
	err = store.update(func(txn *memdb.Txn) error {
		for i, run := range runs {
			if err := putConsumedEventsTxn(txn, run, []int64{int64(i + 1), int64(i + 2)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var read int
	consumers := func(store *Store) map[int64][]string {
		t.Helper()
		got, err := store.RunsConsumingEvents([]int64{5, 9999})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64][]string{}
		for id, rs := range got {
			for _, r := range rs {
				out[id] = append(out[id], r.RunID)
			}
			slices.Sort(out[id])
		}
		return out
	}
	want := map[int64][]string{5: {runs[3].RunID, runs[4].RunID}}
	slices.Sort(want[5])
	store.rowsRead = func(n int) { read += n }
	if got := consumers(store); !reflect.DeepEqual(got, want) {
		t.Errorf("consumers %v, want %v", got, want)
	}
	if read == 0 || read > 4 {
		t.Errorf("read %d rows for one consumed event, want its 2 consumed rows and their 2 runs", read)
	}

	if got := consumers(snapshotRoundTrip(t, store)); !reflect.DeepEqual(got, want) {
		t.Errorf("restored: consumers %v, want %v", got, want)
	}
}

// An asset's last_asset_event is its event with the latest timestamp
// (the highest id among equals), found with a seek per asset: a listing
// of assets reads one event row an asset, not every event; a restore
// finds the same.
func TestAPIv2_Assets_LastEventBySeek(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addAssetEvents(t, ts.store, 7, 600)
	events, err := ts.store.AssetEvents()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]int64{} // asset id -> its last event's id
	stamp := map[int64]time.Time{}
	for _, e := range events {
		if at, ok := stamp[e.AssetID]; !ok || !e.Timestamp.Before(at) {
			want[e.AssetID], stamp[e.AssetID] = e.ID, e.Timestamp
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	ts.do(t, http.MethodGet, apiV2Prefix+"/assets?limit=100&only_active=false", "") // the DAGs' assets, read once
	read = 0
	var got struct {
		Assets []struct {
			ID   int64 `json:"id"`
			Last struct {
				ID *int64 `json:"id"`
			} `json:"last_asset_event"`
		} `json:"assets"`
	}
	res := ts.do(t, http.MethodGet, apiV2Prefix+"/assets?limit=100&only_active=false", "")
	if err := json.Unmarshal([]byte(res.body), &got); err != nil || len(got.Assets) != 7 {
		t.Fatalf("%d %s (%v)", res.status, res.body, err)
	}
	for _, a := range got.Assets {
		if a.Last.ID == nil || *a.Last.ID != want[a.ID] {
			t.Errorf("asset %d: last event %v, want %d", a.ID, a.Last.ID, want[a.ID])
		}
	}
	if read == 0 || read > 14 {
		t.Errorf("read %d rows for 7 assets and their last events, want an asset row and one event each", read)
	}

	restored := snapshotRoundTrip(t, ts.store)
	ids := make([]int64, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	last, err := restored.LastAssetEvents(append(ids, 99))
	if err != nil {
		t.Fatal(err)
	}
	for id, e := range want {
		if last[id] == nil || last[id].ID != e {
			t.Errorf("restored: asset %d's last event %+v, want %d", id, last[id], e)
		}
	}
	if last[99] != nil {
		t.Errorf("asset 99 (none) has a last event %+v", last[99])
	}
}

// The events an asset-triggered run consumes (its assets' events after
// the DAG's previous such run, up to the queue's latest entry) are read
// per asset from the (asset_id, timestamp) index: the same events, by id,
// as a filter of every event picks.
func TestStore_AssetEventsBetween(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addAssetEvents(t, ts.store, 7, 600)
	all, err := ts.store.AssetEvents()
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	after, until := base.Add(40*time.Second), base.Add(200*time.Second)
	for _, c := range []struct {
		name  string
		ids   []int64
		after *time.Time
	}{
		{"some assets, a window", []int64{2, 5, 3}, &after},
		{"every asset, from the start", []int64{1, 2, 3, 4, 5, 6, 7}, nil},
		{"an asset with no events", []int64{99}, &after},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []int64
			for _, e := range all {
				if slices.Contains(c.ids, e.AssetID) && !e.Timestamp.After(until) && (c.after == nil || e.Timestamp.After(*c.after)) {
					want = append(want, e.ID)
				}
			}
			got, err := storeView{ts.store.read()}.AssetEventsBetween(c.ids, c.after, until)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []int64
			for _, e := range got {
				gotIDs = append(gotIDs, e.ID)
			}
			if !slices.Equal(gotIDs, want) {
				t.Errorf("events %v, want %v", gotIDs, want)
			}
		})
	}
}

// assetPagesDAGs are two DAGs that name assets of addAssetEvents' (asset_i
// at s3://bucket/asset_i): pages_producer has every other one below n
// among its task make's outlets and asset_1 to asset_9 among its task
// read's inlets; pages_consumer is scheduled on asset_4 and asset_7.
func assetPagesDAGs(n int) []testOption {
	ref := func(i int) string { return fmt.Sprintf(`{name: asset_%d, uri: "s3://bucket/asset_%d"}`, i, i) }
	var outlets, inlets []string
	for i := 0; i < n; i += 2 {
		outlets = append(outlets, ref(i))
	}
	for i := 1; i < 10; i++ {
		inlets = append(inlets, ref(i))
	}
	return []testOption{
		withDAG(`
dag_id: pages_producer
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: EmptyOperator, outlets: [` + strings.Join(outlets, ", ") + `]}
  - {task_id: read, operator: EmptyOperator, inlets: [` + strings.Join(inlets, ", ") + `]}
`),
		withDAG(`
dag_id: pages_consumer
schedule: [` + ref(4) + `, ` + ref(7) + `]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: EmptyOperator}
`),
	}
}

// addAssetTies registers assets that share a name or a uri with
// addAssetEvents' (ids after theirs), and attaches asset_2 and asset_3 to
// aliases through a try's alias events.
func addAssetTies(t *testing.T, store *Store) {
	t.Helper()
	err := store.EnsureAssets([]assetRef{{Name: "asset_5", URI: "s3://other/asset_5"}, {Name: "asset_40", URI: "s3://other/asset_40"},
		{Name: "other_7", URI: "s3://bucket/asset_7"}, {Name: "asset_5", URI: "s3://third/asset_5"}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	ti := &TaskInstance{DagID: "pages_producer", TaskID: "make", RunID: "manual__1", MapIndex: -1, State: TaskSuccess}
	err = store.update(func(txn *memdb.Txn) error {
		return recordAliasEventsTxn(txn, ti, []aliasEvent{
			{Alias: aliasRef{Name: "pages_b"}, Asset: assetRef{Name: "asset_3", URI: "s3://bucket/asset_3"}},
			{Alias: aliasRef{Name: "pages_a"}, Asset: assetRef{Name: "asset_2", URI: "s3://bucket/asset_2"}},
			{Alias: aliasRef{Name: "pages_b"}, Asset: assetRef{Name: "asset_2", URI: "s3://bucket/asset_2"}},
		}, testNow)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sortedOrder is a v2 listing's path (its query) with its order key
// named twice (id when it names none): the same order, which no index
// keeps as asked (two keys before the primary key), so the listing sorts.
func sortedOrder(path string) string {
	q, err := url.ParseQuery(strings.TrimPrefix(path, "?"))
	if err != nil {
		panic(err)
	}
	key := q.Get("order_by")
	if key == "" {
		return path + "&order_by=id&order_by=id"
	}
	return path + "&order_by=" + url.QueryEscape(key)
}

// TestAPIv2_Assets_ReadThePage lists pages of 600 assets, every other one
// named by a DAG (only_active, the default, lists those), in the orders
// an index keeps (id, name, uri, either way; ties by id in the first
// key's direction, SortParam's primary key), and checks through the
// store's rowsRead hook that a page reads its own assets, those its
// offset skips (none for the named ones, a list the store keeps per
// version of the tables, which a page reads from its offset on) and one
// last event each, and that each answer
// is, byte for byte, the sorting path's (sortedOrder).
func TestAPIv2_Assets_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, assetPagesDAGs(600)...)
	addAssetEvents(t, ts.store, 600, 900)
	addAssetTies(t, ts.store)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	cases := []struct {
		name, path string
		maxRead    int // 0: none
	}{
		{"default", "?limit=50", 50 + 50},
		{"offset", "?limit=25&offset=100", 25 + 25},
		{"by -id", "?limit=20&order_by=-id&offset=3", 20 + 20},
		{"by name", "?limit=30&order_by=name", 30 + 30},
		{"by -name", "?limit=30&offset=7&order_by=-name", 30 + 30},
		{"by uri", "?limit=30&order_by=uri&offset=100", 30 + 30},
		{"by -uri", "?limit=30&order_by=-uri", 30 + 30},
		{"every asset", "?limit=50&only_active=false", 50 + 50},
		{"every asset, offset", "?limit=20&offset=200&only_active=false", 220 + 20},
		// Three assets named asset_5 stand at 446-448 by name (155-157
		// by -name), two at s3://bucket/asset_7 at 567-568 by uri (35-36
		// by -uri): the pages start inside those ties.
		{"every asset by -name", "?limit=20&offset=156&order_by=-name&only_active=false", 176 + 20},
		{"every asset by name", "?limit=20&offset=447&order_by=name&only_active=false", 467 + 20},
		{"every asset by -uri", "?limit=20&offset=36&order_by=-uri&only_active=false", 56 + 20},
		{"every asset by uri", "?limit=20&offset=568&order_by=uri&only_active=false", 588 + 20},
		{"every asset by uri, the last", "?limit=20&offset=595&order_by=uri&only_active=false", 604 + 9},
		{"past the end", "?limit=10&offset=5000", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &read, http.MethodGet, "/assets"+tc.path, "", "/assets"+sortedOrder(tc.path), "", tc.maxRead)
		})
	}

	// Each asset's answer: the tasks and DAGs that name it, its aliases.
	got := ts.do(t, http.MethodGet, apiV2Prefix+"/assets?limit=4&offset=2&only_active=false", "")
	for _, want := range []string{
		`"id":3,"name":"asset_2"`, `"producing_tasks":[{"dag_id":"pages_producer","task_id":"make"`,
		`"consuming_tasks":[{"dag_id":"pages_producer","task_id":"read"`, `"aliases":[{"id":1,"name":"pages_b","group":"asset"},{"id":2,"name":"pages_a","group":"asset"}]`,
		`"id":5,"name":"asset_4"`, `"scheduled_dags":[{"dag_id":"pages_consumer"`, `"total_entries":604`,
	} {
		if !strings.Contains(got.body, want) {
			t.Errorf("no %s in %.2000s", want, got.body)
		}
	}
	if got := ts.do(t, http.MethodGet, apiV2Prefix+"/assets?limit=1", ""); !strings.Contains(got.body, `"total_entries":305}`) {
		t.Errorf("the named assets' total is not 300 and 5 inlets: %.300s", got.body)
	}
}

// TestAPIv1_Datasets_ReadThePage lists pages of 2.10.3's datasets (every
// asset) by id and uri from the store's indexes, descending uris' ties by
// id ascending (listKeyed's last key), each answer the one a uri_pattern
// that drops nothing gives (a walk of the same index that filters;
// TestAssets_PagesAsTheScan holds both to a sort of every asset).
func TestAPIv1_Datasets_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, assetPagesDAGs(300)...)
	addAssetEvents(t, ts.store, 300, 300)
	addAssetTies(t, ts.store)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		path    string
		maxRead int
	}{
		{"?limit=20", 20 + 20},
		{"?limit=20&offset=100&order_by=-id", 120 + 20},
		{"?limit=20&offset=10&order_by=uri", 30 + 20},
		{"?limit=20&offset=150&order_by=-uri", 170 + 1 + 20},
		// Two assets at s3://bucket/asset_7 stand at 35 and 36 by -uri,
		// the lower id first: a page ends, or starts, between them.
		{"?limit=16&offset=20&order_by=-uri", 36 + 2 + 16},
		{"?limit=20&offset=36&order_by=-uri", 56 + 1 + 20},
	} {
		t.Run(tc.path, func(t *testing.T) {
			checkV1PageRead(t, ts, &read, "/datasets"+tc.path, "/datasets"+tc.path+"&uri_pattern=%25", 304, tc.maxRead)
		})
	}
}

// TestAPIv2_AssetAliases_ReadThePage lists pages of 300 aliases by id and
// name from the alias table's indexes, each answer the one a name_pattern
// that drops nothing gives (a walk that filters), and gets an alias and an
// asset by id, each reading its own row and no event but its last.
func TestAPIv2_AssetAliases_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, assetPagesDAGs(100)...)
	addAssetEvents(t, ts.store, 100, 1000)
	var refs []aliasRef
	for i := range 300 {
		refs = append(refs, aliasRef{Name: fmt.Sprintf("alias_%d", (i*7)%300)})
	}
	if err := ts.store.EnsureAssetAliases(refs); err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		{"default", "?limit=50", 50},
		{"by -id, offset", "?limit=20&offset=100&order_by=-id", 120},
		{"by name", "?limit=20&offset=10&order_by=name", 30},
		{"by -name", "?limit=20&order_by=-name", 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &read, http.MethodGet, "/assets/aliases"+tc.path, "", "/assets/aliases"+tc.path+"&name_pattern=%25", "", tc.maxRead)
		})
	}
	for _, tc := range []struct {
		path, want string
		maxRead    int
	}{
		{"/assets/aliases/7", `{"id":7,"name":"alias_42","group":"asset"}`, 1},
		{"/assets/aliases/301", "{\"detail\":\"The Asset Alias with ID: `301` was not found\"}", 1},
		{"/assets/8", `"id":8,"name":"asset_7"`, 2},
	} {
		ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
		read = 0
		got := ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
		if !strings.Contains(got.body, tc.want) {
			t.Errorf("%s: %d %.300s, want %s", tc.path, got.status, got.body, tc.want)
		}
		if read > tc.maxRead {
			t.Errorf("%s: read %d rows, want at most %d", tc.path, read, tc.maxRead)
		}
	}
}
