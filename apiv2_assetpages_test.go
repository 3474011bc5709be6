package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
// path's (forced by a filter that drops nothing); then that a snapshot's
// restore keeps the order and the total.
func TestAPIv2_AssetEvents_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addAssetEvents(t, ts.store, 7, 600)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const events = "/assets/events"
	const all = "&timestamp_gte=2000-01-01T00:00:00Z"
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
		got := checkPageRead(t, ts, &read, http.MethodGet, events+path, "", events+path+all, "", maxRead)
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
// from the index, each answer the sorting path's (a source_map_index
// filter that drops nothing forces it).
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
			want := ts.do(t, http.MethodGet, apiV1Prefix+"/datasets/events"+tc.path+"&source_map_index=-1", "")
			read = 0
			got := ts.do(t, http.MethodGet, apiV1Prefix+"/datasets/events"+tc.path, "")
			if got.status != 200 || got.body != want.body {
				t.Errorf("answer %d differs from the sorted one:\n got %.600s\nwant %.600s", got.status, got.body, want.body)
			}
			if !strings.Contains(got.body, `"total_entries": 300`) && !strings.Contains(got.body, `"total_entries":300`) {
				t.Errorf("total not 300: %.300s", got.body)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows for the page, want 1 to %d", read, tc.maxRead)
			}
		})
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
	if read == 0 || read > 7 {
		t.Errorf("read %d event rows for 7 assets' last events, want one each", read)
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
