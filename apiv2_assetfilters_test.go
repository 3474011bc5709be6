package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// assetsByScan is the straightforward answer to q: every asset (or the
// ones the DAGs name), each filter applied, sorted by q's keys then id.
func assetsByScan(tb testing.TB, ts *testServer, q assetQuery) listed[*Asset] {
	tb.Helper()
	named, err := ts.store.NamedAssets(testNow, true)
	if err != nil {
		tb.Fatal(err)
	}
	all := slices.Clone(named.active)
	if !q.onlyActive {
		if all, err = ts.store.Assets(); err != nil {
			tb.Fatal(err)
		}
	}
	var kept []*Asset
	for _, a := range all {
		switch {
		case q.name != nil && !q.name.MatchString(a.Name):
		case q.uri != nil && !q.uri.MatchString(a.URI):
		case q.dagIDs != nil && !named.Naming(a).namedBy(q.dagIDs):
		default:
			kept = append(kept, a)
		}
	}
	return listKeyed(kept, nil, keyedQuery{keys: q.keys, offset: q.offset, limit: q.limit}, compareAssets)
}

// datasetsByScan is the same for 2.10.3's get_datasets: the DAGs
// producing a dataset or scheduled on it, its total every dataset.
func datasetsByScan(tb testing.TB, ts *testServer, q datasetQuery) listed[*Asset] {
	tb.Helper()
	named, err := ts.store.NamedAssets(testNow, false)
	if err != nil {
		tb.Fatal(err)
	}
	all, err := ts.store.Assets()
	if err != nil {
		tb.Fatal(err)
	}
	in := func(id string) bool { return slices.Contains(q.dagIDs, id) }
	var kept []*Asset
	for _, a := range all {
		n := named.Naming(a)
		switch {
		case q.uri != nil && !q.uri.MatchString(a.URI):
		case len(q.dagIDs) > 0 && !slices.ContainsFunc(n.Producing, func(r assetTaskRef) bool { return in(r.DagID) }) && !slices.ContainsFunc(n.Scheduled, in):
		default:
			kept = append(kept, a)
		}
	}
	page := listKeyed(kept, nil, keyedQuery{keys: []sortKey{q.key}, offset: q.offset, limit: q.limit}, compareAssets)
	page.total = len(all)
	return page
}

func assetIDs(rows []*Asset) []int64 {
	out := make([]int64, len(rows))
	for i, a := range rows {
		out[i] = a.ID
	}
	return out
}

func viewIDs(rows []assetView) []int64 {
	out := make([]int64, len(rows))
	for i, a := range rows {
		out[i] = a.ID
	}
	return out
}

// like is a pattern filter as the APIs read one (a LIKE '%p%').
func like(p string) *regexp.Regexp { return likePattern(p) }

// TestAPIv2_Assets_FiltersReadThePage lists pages of 604 assets (305 named
// by the DAGs), their times out of id order, by created_at and updated_at
// either way and with name, uri and DAG filters, and checks through the
// store's rowsRead hook that a page (asked a second time: a pattern's
// count is remembered per version of the tables) reads the rows of its
// order up to its last one (the named assets' list or the asset table's
// index), or with dag_ids the assets those DAGs name, and one last event
// each; and that its rows and total are the full scan's.
func TestAPIv2_Assets_FiltersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, assetPagesDAGs(600)...)
	addAssetEvents(t, ts.store, 600, 900)
	addAssetTies(t, ts.store)
	scrambleAssetTimes(t, ts.store)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	by := func(attr string, desc bool) []sortKey {
		return []sortKey{{attr: attr, desc: desc}, {attr: "id", desc: desc}}
	}
	cases := []struct {
		name string
		q    assetQuery
		// walked: the page may read the rows of its order up to its last
		// (of every asset, or of the named ones); scoped: with dag_ids,
		// the assets the DAGs name instead.
		scoped int
	}{
		{name: "by created_at", q: assetQuery{onlyActive: true, keys: by("created_at", false), limit: 30}},
		{name: "by -updated_at, offset", q: assetQuery{onlyActive: true, keys: by("updated_at", true), offset: 40, limit: 20}},
		{name: "every asset by created_at, offset", q: assetQuery{keys: by("created_at", false), offset: 100, limit: 20}},
		{name: "every asset by -created_at", q: assetQuery{keys: by("created_at", true), offset: 7, limit: 20}},
		{name: "every asset by updated_at", q: assetQuery{keys: by("updated_at", false), offset: 300, limit: 25}},
		{name: "name_pattern", q: assetQuery{onlyActive: true, name: like("asset_1"), keys: by("id", false), limit: 20}},
		{name: "name_pattern by -name", q: assetQuery{onlyActive: true, name: like("set_2"), keys: by("name", true), offset: 5, limit: 20}},
		{name: "every asset, uri_pattern by uri", q: assetQuery{uri: like("bucket/asset_3"), keys: by("uri", false), offset: 3, limit: 20}},
		{name: "every asset, both patterns by -updated_at", q: assetQuery{name: like("asset_4"), uri: like("s3"), keys: by("updated_at", true), limit: 10}},
		{name: "dag_ids", q: assetQuery{onlyActive: true, dagIDs: []string{"pages_consumer"}, keys: by("id", false), limit: 20}, scoped: 2},
		{name: "dag_ids, every asset, by -created_at", q: assetQuery{dagIDs: []string{"pages_consumer", "nope"}, keys: by("created_at", true), limit: 20}, scoped: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := assetsByScan(t, ts, tc.q)
			if len(want.rows) == 0 {
				t.Fatalf("the case lists nothing")
			}
			// The order walked: the scan's, unfiltered.
			uq := tc.q
			uq.name, uq.uri, uq.dagIDs, uq.offset, uq.limit = nil, nil, nil, 0, 1<<30
			order := assetIDs(assetsByScan(t, ts, uq).rows)
			maxRead := slices.Index(order, want.rows[len(want.rows)-1].ID) + 1 + len(want.rows)
			if tc.scoped > 0 {
				maxRead = tc.scoped + len(want.rows)
			}
			if _, err := ts.srv.ops.assets(tc.q); err != nil {
				t.Fatal(err)
			}
			read = 0
			got, err := ts.srv.ops.assets(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(viewIDs(got.rows), assetIDs(want.rows)) || got.total != want.total {
				t.Errorf("assets %v of %d, want %v of %d", viewIDs(got.rows), got.total, assetIDs(want.rows), want.total)
			}
			if read == 0 || read > maxRead {
				t.Errorf("read %d rows, want 1 to %d", read, maxRead)
			}
		})
	}
}

// TestAPIv1_Datasets_FiltersReadThePage is its twin for 2.10.3's
// datasets: by created_at and updated_at (descending, ties by id
// ascending), with uri_pattern and dag_ids.
func TestAPIv1_Datasets_FiltersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, assetPagesDAGs(300)...)
	addAssetEvents(t, ts.store, 300, 300)
	addAssetTies(t, ts.store)
	scrambleAssetTimes(t, ts.store)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	cases := []struct {
		name   string
		q      datasetQuery
		scoped int
	}{
		{name: "by created_at", q: datasetQuery{key: sortKey{attr: "created_at"}, offset: 10, limit: 20}},
		{name: "by -updated_at", q: datasetQuery{key: sortKey{attr: "updated_at", desc: true}, offset: 30, limit: 20}},
		{name: "uri_pattern", q: datasetQuery{key: sortKey{attr: "id"}, uri: like("asset_1"), limit: 20}},
		{name: "uri_pattern by -created_at", q: datasetQuery{key: sortKey{attr: "created_at", desc: true}, uri: like("asset_2"), offset: 2, limit: 20}},
		{name: "dag_ids", q: datasetQuery{key: sortKey{attr: "uri", desc: true}, dagIDs: []string{"pages_consumer"}, limit: 20}, scoped: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := datasetsByScan(t, ts, tc.q)
			if len(want.rows) == 0 {
				t.Fatalf("the case lists nothing")
			}
			uq := tc.q
			uq.uri, uq.dagIDs, uq.offset, uq.limit = nil, nil, 0, 1<<30
			order := assetIDs(datasetsByScan(t, ts, uq).rows)
			// Descending with ties by id ascending, the walk reads to the
			// end of the page's last tie.
			maxRead := slices.Index(order, want.rows[len(want.rows)-1].ID) + 1 + len(want.rows) + 8
			if tc.scoped > 0 {
				maxRead = tc.scoped + len(want.rows)
			}
			if _, err := ts.srv.ops.datasets(tc.q); err != nil {
				t.Fatal(err)
			}
			read = 0
			got, err := ts.srv.ops.datasets(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(viewIDs(got.rows), assetIDs(want.rows)) || got.total != want.total {
				t.Errorf("datasets %v of %d, want %v of %d", viewIDs(got.rows), got.total, assetIDs(want.rows), want.total)
			}
			if read == 0 || read > maxRead {
				t.Errorf("read %d rows, want 1 to %d", read, maxRead)
			}
		})
	}
}

// TestAssets_PagesAsTheScan asks random listings of assets and datasets
// (orders, directions, filters, windows) of a store whose assets share
// names, uris and times, and holds each answer to the full scan's.
func TestAssets_PagesAsTheScan(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e, assetPagesDAGs(120)...)
			addAssetEvents(t, ts.store, 120, 50)
			addAssetTies(t, ts.store)
			scrambleAssetTimes(t, ts.store)
			rng := rand.New(rand.NewPCG(21, uint64(len(e))))
			attrs := []string{"id", "name", "uri", "created_at", "updated_at"}
			patterns := []string{"asset_1", "SET_2", "other", "s3://bucket", "_5", "zzz", "%"}
			pick := func() *regexp.Regexp {
				if rng.IntN(3) > 0 {
					return nil
				}
				return like(patterns[rng.IntN(len(patterns))])
			}
			dags := [][]string{nil, nil, {"pages_consumer"}, {"pages_producer"}, {"pages_consumer", "pages_producer"}, {"nope"}, {""}}
			for i := range 400 {
				key := sortKey{attr: attrs[rng.IntN(len(attrs))], desc: rng.IntN(2) == 0}
				offset, limit := rng.IntN(140), 1+rng.IntN(40)
				if rng.IntN(4) == 0 {
					offset = rng.IntN(10)
				}
				var got, want []int64
				var gotTotal, wantTotal int
				if e == edition3 {
					keys := []sortKey{key, {attr: "id", desc: key.desc}}
					if rng.IntN(8) == 0 { // two attributes: sorted
						keys = []sortKey{key, {attr: attrs[rng.IntN(len(attrs))], desc: rng.IntN(2) == 0}, {attr: "id", desc: key.desc}}
					}
					q := assetQuery{name: pick(), uri: pick(), dagIDs: dags[rng.IntN(len(dags))], onlyActive: rng.IntN(2) == 0, keys: keys, offset: offset, limit: limit}
					res, err := ts.srv.ops.assets(q)
					if err != nil {
						t.Fatal(err)
					}
					w := assetsByScan(t, ts, q)
					got, gotTotal, want, wantTotal = viewIDs(res.rows), res.total, assetIDs(w.rows), w.total
				} else {
					ids := dags[rng.IntN(len(dags))]
					if len(ids) == 1 && ids[0] == "" {
						ids = nil // v1 reads dag_ids= as none
					}
					q := datasetQuery{key: key, uri: pick(), dagIDs: ids, offset: offset, limit: limit}
					res, err := ts.srv.ops.datasets(q)
					if err != nil {
						t.Fatal(err)
					}
					w := datasetsByScan(t, ts, q)
					got, gotTotal, want, wantTotal = viewIDs(res.rows), res.total, assetIDs(w.rows), w.total
				}
				if !slices.Equal(got, want) || gotTotal != wantTotal {
					t.Fatalf("listing %d: %v of %d, want %v of %d", i, got, gotTotal, want, wantTotal)
				}
			}
		})
	}
}

// TestAPIv2_PatternListsReadThePage lists asset aliases, pools, variables
// and connections with a name pattern: a page (asked a second time, the
// pattern's count remembered for the table as it stands) reads the rows
// of its order up to its last one, not every row; the answer is the one
// a filter of every row gives.
func TestAPIv2_PatternListsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var refs []aliasRef
	for i := range 300 {
		refs = append(refs, aliasRef{Name: fmt.Sprintf("alias_%d", (i*7)%300)})
	}
	if err := ts.store.EnsureAssetAliases(refs); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		key := fmt.Sprintf("item_%d", (i*7)%300)
		for _, c := range []struct{ path, body string }{
			{"/variables", `{"key":"` + key + `","value":"v"}`},
			{"/pools", `{"name":"` + key + `","slots":1}`},
			{"/connections", `{"connection_id":"` + key + `","conn_type":"http"}`},
		} {
			if res := ts.do(t, "POST", apiV2Prefix+c.path, c.body, "Content-Type", "application/json"); res.status != 201 {
				t.Fatalf("%s %s: %d %s", c.path, c.body, res.status, res.body)
			}
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, path, param, rows string
		total                   int
		maxRead                 int
	}{
		// alias_1, alias_10-19, alias_100-199: 111 of 300, ids by
		// (i*7)%300; by name they come first after alias_0.
		{"aliases by name", "/assets/aliases?limit=20&order_by=name&name_pattern=alias_1", "", "asset_aliases", 111, 21},
		{"aliases by id", "/assets/aliases?limit=20&offset=10&name_pattern=alias_1", "", "asset_aliases", 111, 71},
		{"variables by key", "/variables?limit=20&order_by=key&variable_key_pattern=item_2", "", "variables", 111, 20 + 112},
		{"pools by -name", "/pools?limit=20&order_by=-name&pool_name_pattern=item_1", "", "pools", 111, 20 + 300 - 111 - 1},
		{"connections by connection_id", "/connections?limit=20&offset=5&order_by=connection_id&connection_id_pattern=item_1", "", "connections", 111, 26},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.do(t, "GET", apiV2Prefix+tc.path, "")
			read = 0
			got := ts.do(t, "GET", apiV2Prefix+tc.path, "")
			if got.status != 200 || !strings.Contains(got.body, fmt.Sprintf(`"total_entries":%d`, tc.total)) {
				t.Fatalf("%d %.300s, want total %d", got.status, got.body, tc.total)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows, want 1 to %d", read, tc.maxRead)
			}
		})
	}

	// The remembered count follows a change of the table.
	if res := ts.do(t, "POST", apiV2Prefix+"/variables", `{"key":"new_item_2","value":"v"}`, "Content-Type", "application/json"); res.status != 201 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	got := ts.do(t, "GET", apiV2Prefix+"/variables?limit=1&order_by=key&variable_key_pattern=item_2", "")
	if !strings.Contains(got.body, `"key":"item_2"`) || !strings.Contains(got.body, `"total_entries":112`) {
		t.Errorf("after a new variable: %.300s, want item_2 of 112", got.body)
	}
}

// TestAssetEvents_FiltersReadThePage lists filtered pages of 600 events
// of 7 assets by timestamp, either way, through /api/v2 (asset_id,
// source filters, a time range) and /api/v1 (dataset_id): one asset's
// events are walked from its part of the (asset_id, timestamp) index,
// other filters pick along the timestamp index, each count remembered
// per version of the rows it covers; a page reads the events of its
// order up to its last one (and, descending in /api/v1, the rest of its
// last timestamp). Its ids and total are a filter and sort of every
// event in the test.
func TestAssetEvents_FiltersReadThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			addAssetEvents(t, ts.store, 7, 600)
			// Assets without events, which a name pattern need not read.
			var others []assetRef
			for i := range 300 {
				others = append(others, assetRef{Name: fmt.Sprintf("other_%d", i), URI: fmt.Sprintf("s3://bucket/other_%d", i)})
			}
			if err := ts.store.EnsureAssets(others, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			all, err := ts.store.AssetEvents()
			if err != nil {
				t.Fatal(err)
			}
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			type tcase struct {
				query         string
				pick          func(*AssetEvent) bool
				asset         int64 // 0: the walk is every event's
				desc          bool
				offset, limit int
			}
			cases := []tcase{
				{"asset_id=3&limit=20&offset=10", func(e *AssetEvent) bool { return e.AssetID == 3 }, 3, false, 10, 20},
				{"asset_id=5&limit=15&order_by=-timestamp", func(e *AssetEvent) bool { return e.AssetID == 5 }, 5, true, 0, 15},
				{"asset_id=2&source_dag_id=producer&limit=10&offset=30&order_by=-timestamp", func(e *AssetEvent) bool { return e.AssetID == 2 }, 2, true, 30, 10},
				{"source_task_id=make&timestamp_gte=2026-01-01T00:02:00Z&limit=25&offset=40", func(e *AssetEvent) bool {
					return !e.Timestamp.Before(base.Add(2 * time.Minute))
				}, 0, false, 40, 25},
				// asset_3 is the fourth asset: its name is looked up for
				// each asset the walk meets, not every asset's read.
				{"name_pattern=asset_3&limit=20&offset=5&order_by=-timestamp", func(e *AssetEvent) bool { return e.AssetID == 4 }, 0, true, 5, 20},
			}
			prefix, events, totalField := apiV2Prefix+"/assets/events?", `"asset_events"`, `"total_entries":%d`
			if e == edition2 {
				prefix, events, totalField = apiV1Prefix+"/datasets/events?", `"dataset_events"`, `"total_entries": %d`
				cases = []tcase{
					{"dataset_id=3&limit=20&offset=10", func(e *AssetEvent) bool { return e.AssetID == 3 }, 3, false, 10, 20},
					{"dataset_id=5&limit=15&order_by=-timestamp", func(e *AssetEvent) bool { return e.AssetID == 5 }, 5, true, 0, 15},
					{"source_dag_id=producer&limit=15&offset=50&order_by=-timestamp", func(e *AssetEvent) bool { return true }, 0, true, 50, 15},
				}
			}
			for _, tc := range cases {
				t.Run(tc.query, func(t *testing.T) {
					// The order: by timestamp, ties by id ascending (v1, and
					// v2 ascending) or in the timestamp's direction (v2).
					sorted := slices.Clone(all)
					slices.SortStableFunc(sorted, func(a, b *AssetEvent) int {
						c := a.Timestamp.Compare(b.Timestamp)
						if tc.desc {
							c = -c
						}
						if c == 0 && tc.desc && e == edition3 {
							return cmp.Compare(b.ID, a.ID)
						}
						return cmp.Or(c, cmp.Compare(a.ID, b.ID))
					})
					var walked, want []int64
					for _, ev := range sorted {
						if tc.asset == 0 || ev.AssetID == tc.asset {
							walked = append(walked, ev.ID)
						}
						if tc.pick(ev) {
							want = append(want, ev.ID)
						}
					}
					total := len(want)
					want = want[tc.offset:min(tc.offset+tc.limit, len(want))]
					maxRead := slices.Index(walked, want[len(want)-1]) + 1 + 2 // a tie after it
					maxRead += 2 * len(want)                                   // each event's asset and consumers
					maxRead += 7                                               // a name pattern's look at each asset met
					ts.do(t, "GET", prefix+tc.query, "")
					read = 0
					res := ts.do(t, "GET", prefix+tc.query, "")
					var got []int64
					body := res.body[strings.Index(res.body, events):]
					for _, m := range regexp.MustCompile(`"id": ?(\d+)`).FindAllStringSubmatch(body, -1) {
						n, _ := strconv.ParseInt(m[1], 10, 64)
						got = append(got, n)
					}
					if res.status != 200 || !slices.Equal(got, want) || !strings.Contains(res.body, fmt.Sprintf(totalField, total)) {
						t.Errorf("%d ids %v, want %v of %d: %.400s", res.status, got, want, total, res.body)
					}
					if read == 0 || read > maxRead {
						t.Errorf("read %d rows, want 1 to %d", read, maxRead)
					}
				})
			}
		})
	}
}
