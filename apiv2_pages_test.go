package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAPIv2_ListPages_ReadThePage lists pages of 300 DAGs and 600 events
// in the orders the store's indexes keep and checks, through the store's
// rowsRead hook, that once the total is known a page reads its own rows
// (and those its offset skips), not the table; and that each answer is,
// byte for byte, the one the sorting path gives for the same rows (forced
// here by a filter that drops nothing; for the event log, a filter walks
// the same index: TestEventLogs_FiltersReadThePage holds it to a sort).
func TestAPIv2_ListPages_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for i := range 300 {
		// Ids out of insertion order, some paused.
		id := fmt.Sprintf("paged_%03d", (i*7)%300)
		d := benchDAG(t, id, 1)
		if i%2 == 0 {
			d.Tags = []string{"bench"}
		}
		if _, err := ts.store.UpsertDAG(d); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := ts.store.SetPaused(id, true, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 600 {
		// Times out of id order.
		e := EventLog{Event: fmt.Sprintf("event_%d", i%5), When: base.Add(time.Duration((i*37)%600) * time.Second)}
		if err := ts.store.AppendEventLog(e); err != nil {
			t.Fatal(err)
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, path, sorted string // sorted: the same list through the sorting path
		maxRead            int
	}{
		// "": the same list through the path that reads and sorts every
		// DAG (operations.sortLists).
		{"dags", "/dags?limit=50", "", 50},
		{"dags offset", "/dags?limit=50&offset=100", "", 150},
		{"dags desc", "/dags?limit=20&order_by=-dag_id", "", 20},
		{"dags by display name", "/dags?limit=20&order_by=-dag_display_name&order_by=next_dagrun", "", 20},
		{"dags paused", "/dags?limit=10&offset=5&paused=true", "", 4 * 15},
		{"dags unpaused", "/dags?limit=10&paused=false", "", 3 * 10},
		{"dags past the end", "/dags?limit=10&offset=400", "", 0}, // the count says so
		// paged_1xx follow the examples and paged_0xx by dag_id; the
		// pattern's total is counted once per version of the DAG table.
		{"dags by pattern", "/dags?limit=10&dag_id_pattern=paged_1", "", 120},
		{"dags by patterns and tags, desc", "/dags?limit=10&offset=3&order_by=-dag_id&dag_id_pattern=paged_2&tags=bench&owners=airflow", "", 120},
		{"events", "/eventLogs?limit=50", "/eventLogs?limit=50&excluded_events=none", 50},
		{"events offset", "/eventLogs?limit=25&offset=100", "/eventLogs?limit=25&offset=100&excluded_events=none", 125},
		{"events desc", "/eventLogs?limit=30&order_by=-id", "/eventLogs?limit=30&order_by=-id&excluded_events=none", 30},
		{"events by event_log_id, then when", "/eventLogs?limit=30&order_by=-event_log_id&order_by=when",
			"/eventLogs?limit=30&order_by=-id&excluded_events=none", 30},
		{"events past the end", "/eventLogs?offset=700", "/eventLogs?offset=700&excluded_events=none", 700},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sorted == "" {
				checkDagPageRead(t, ts, &read, tc.path, tc.maxRead)
				return
			}
			checkPageRead(t, ts, &read, http.MethodGet, tc.path, "", tc.sorted, "", tc.maxRead)
		})
	}
}

// checkDagPageRead is checkPageRead for a DAG listing, held to the answer
// of the path that reads and sorts every DAG for the same request.
func checkDagPageRead(t *testing.T, ts *testServer, read *int, path string, maxRead int) response {
	t.Helper()
	ts.srv.ops.sortLists.Store(true)
	want := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
	ts.srv.ops.sortLists.Store(false)
	return checkPageReadWant(t, ts, read, http.MethodGet, path, "", want, maxRead)
}

// TestStore_EventLogCount_Gaps counts the event log from its first and
// last ids less the gaps a restore brought, through the ring's drops.
func TestStore_EventLogCount_Gaps(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Restore()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{3, 4, 7, 9} {
		if err := r.Insert(tableEventLogs, &EventLog{ID: id, Event: "restored"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	check := func(step string, wantIDs ...int64) {
		t.Helper()
		for _, desc := range []bool{false, true} {
			page, total, err := store.EventLogPage(desc, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, e := range page {
				ids = append(ids, e.ID)
			}
			if desc {
				for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
					ids[i], ids[j] = ids[j], ids[i]
				}
			}
			if total != len(wantIDs) || fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
				t.Errorf("%s (desc %t): ids %v, total %d; want %v", step, desc, ids, total, wantIDs)
			}
		}
	}
	check("restored", 3, 4, 7, 9)
	if err := store.AppendEventLog(EventLog{Event: "new"}); err != nil {
		t.Fatal(err)
	}
	check("appended", 3, 4, 7, 9, 10)
	store.limits.EventLogs = 3
	if err := store.AppendEventLog(EventLog{Event: "new"}); err != nil {
		t.Fatal(err)
	}
	check("ring of 3", 9, 10, 11)
	store.limits.EventLogs = 1
	if err := store.AppendEventLog(EventLog{Event: "new"}); err != nil {
		t.Fatal(err)
	}
	check("ring of 1", 12)
}

// TestAPIv1_EventLogs_ReadThePage is the same check for the stable API's
// event log (Airflow 2.10.3 event_log_endpoint.py get_event_logs), which
// pages from the same walk when it filters nothing and orders by id.
func TestAPIv1_EventLogs_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 400 {
		e := EventLog{Event: fmt.Sprintf("event_%d", i%5), When: base.Add(time.Duration((i*37)%400) * time.Second)}
		if err := ts.store.AppendEventLog(e); err != nil {
			t.Fatal(err)
		}
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, query string
		maxRead     int
	}{
		{"default", "limit=50", 50},
		{"offset", "limit=20&offset=100", 120},
		{"by id", "limit=20&order_by=event_log_id", 20},
		{"by id desc", "limit=20&offset=3&order_by=-event_log_id", 23},
		{"past the end", "offset=500", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := ts.do(t, http.MethodGet, apiV1Prefix+"/eventLogs?"+tc.query+"&excluded_events=none", "")
			read = 0
			got := ts.do(t, http.MethodGet, apiV1Prefix+"/eventLogs?"+tc.query, "")
			if got.status != 200 || want.status != 200 || got.body != want.body {
				t.Errorf("got %d %.400s\nwant %d %.400s", got.status, got.body, want.status, want.body)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows from an index for the page, want 1 to %d", read, tc.maxRead)
			}
		})
	}
}

// TestAPIv2_KeyedLists_ReadThePage lists pages of pools, variables and
// connections (120 of each made through the API in an order their names
// do not follow) by id and by name, both ways, with and without a name
// pattern, and checks each page's names and total against the store's
// rows sorted in the test, and that a page without a pattern reads its
// own rows once the total is known.
func TestAPIv2_KeyedLists_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for i := range 120 {
		name := fmt.Sprintf("k_%03d", (i*7)%120)
		for _, c := range []struct{ path, body string }{
			{"/pools", `{"name": "` + name + `", "slots": 1}`},
			{"/variables", `{"key": "` + name + `", "value": "v"}`},
			{"/connections", `{"connection_id": "` + name + `", "conn_type": "http"}`},
		} {
			if res := ts.do(t, http.MethodPost, apiV2Prefix+c.path, c.body); res.status != 201 {
				t.Fatalf("POST %s: %d %s", c.path, res.status, res.body)
			}
		}
	}
	type named struct {
		id   int64
		name string
	}
	rowsOf := func(t *testing.T, list string) []named {
		var out []named
		switch list {
		case "pools":
			ps, err := ts.store.Pools()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				out = append(out, named{p.ID, p.Name})
			}
		case "variables":
			vs, err := ts.store.Variables()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				out = append(out, named{v.ID, v.Key})
			}
		case "connections":
			cs, err := ts.store.Connections()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				out = append(out, named{c.ID, c.ConnID})
			}
		}
		return out
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, l := range []struct{ list, items, nameField, nameOrder, pattern string }{
		{"pools", "pools", "name", "pool", "pool_name_pattern"},
		{"variables", "variables", "key", "key", "variable_key_pattern"},
		{"connections", "connections", "connection_id", "conn_id", "connection_id_pattern"},
	} {
		for _, tc := range []struct {
			order, pattern string
			offset, limit  int
		}{
			{"", "", 0, 50}, {"-id", "", 10, 20}, {l.nameOrder, "", 30, 25}, {"-" + l.nameOrder, "", 0, 10},
			{l.nameOrder, "11", 2, 5}, {"-id", "03", 0, 50}, {"id", "", 200, 10},
		} {
			query := fmt.Sprintf("offset=%d&limit=%d", tc.offset, tc.limit)
			if tc.order != "" {
				query += "&order_by=" + tc.order
			}
			if tc.pattern != "" {
				query += "&" + l.pattern + "=" + tc.pattern
			}
			t.Run(l.list+"?"+query, func(t *testing.T) {
				want := rowsOf(t, l.list)
				want = slices.DeleteFunc(want, func(n named) bool { return !strings.Contains(n.name, tc.pattern) })
				attr, desc := strings.CutPrefix(tc.order, "-")
				slices.SortFunc(want, func(a, b named) int {
					c := cmp.Compare(a.id, b.id)
					if attr == l.nameOrder {
						c = strings.Compare(a.name, b.name)
					}
					if desc {
						c = -c
					}
					return c
				})
				total := len(want)
				want = want[min(tc.offset, len(want)):]
				want = want[:min(tc.limit, len(want))]
				ts.do(t, http.MethodGet, apiV2Prefix+"/"+l.list+"?"+query, "") // counts the table once
				read = 0
				res := ts.do(t, http.MethodGet, apiV2Prefix+"/"+l.list+"?"+query, "")
				var got struct {
					Items []map[string]any
					Total int `json:"total_entries"`
				}
				raw := map[string]json.RawMessage{}
				if err := json.Unmarshal([]byte(res.body), &raw); err != nil || res.status != 200 {
					t.Fatalf("%d %s: %v", res.status, res.body, err)
				}
				if err := json.Unmarshal(raw[l.items], &got.Items); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw["total_entries"], &got.Total); err != nil {
					t.Fatal(err)
				}
				var names, wantNames []string
				for _, it := range got.Items {
					names = append(names, fmt.Sprint(it[l.nameField]))
				}
				for _, n := range want {
					wantNames = append(wantNames, n.name)
				}
				if got.Total != total || !slices.Equal(names, wantNames) {
					t.Errorf("total %d, names %v\nwant %d, %v", got.Total, names, total, wantNames)
				}
				// Past the end, the count says there is nothing to read.
				if maxRead := min(tc.offset+tc.limit, total); tc.pattern == "" && ((read == 0) != (maxRead <= tc.offset) || read > maxRead) {
					t.Errorf("read %d rows from an index for the page, want 1 to %d (none past the end)", read, maxRead)
				}
			})
		}
	}
}

// TestAPIv1_Dags_ReadThePage lists pages of 300 DAGs through the stable
// API (Airflow 2.10.3 dag_endpoint.py get_dags: by dag_id, either way)
// and checks each page's ids and total against the store's rows sorted
// in the test, and that, without a pattern or tags, a page reads its own
// rows once the total is known.
func TestAPIv1_Dags_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	for i := range 300 {
		id := fmt.Sprintf("paged_%03d", (i*7)%300)
		if _, err := ts.store.UpsertDAG(benchDAG(t, id, 1)); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := ts.store.SetPaused(id, true, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := ts.store.Dags()
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		query         string
		paused        *bool
		pattern       string
		desc          bool
		offset, limit int
		maxRead       int
	}{
		{query: "limit=50", limit: 50, maxRead: 60}, // the fixtures' sub-DAGs are walked past
		{query: "limit=20&offset=100&order_by=-dag_id", desc: true, offset: 100, limit: 20, maxRead: 130},
		{query: "limit=10&offset=5&paused=true", paused: ptr(true), offset: 5, limit: 10, maxRead: 70},
		// paged_1xx follow the fixtures' DAGs and paged_0xx by dag_id (by
		// -dag_id, the DAGs after paged_ and paged_2xx).
		{query: "limit=10&dag_id_pattern=paged_1", pattern: "paged_1", limit: 10, maxRead: 125},
		{query: "limit=10&offset=85&order_by=-dag_id&dag_id_pattern=paged_1", pattern: "paged_1", desc: true, offset: 85, limit: 10, maxRead: 215},
		{query: "limit=10&offset=1000", offset: 1000, limit: 10, maxRead: 0}, // the count says there is none
	} {
		t.Run(tc.query, func(t *testing.T) {
			var want []string
			for _, row := range all {
				if row.RootDagID == "" && row.Def != nil && (tc.paused == nil || row.IsPaused == *tc.paused) &&
					strings.Contains(row.DagID, tc.pattern) {
					want = append(want, row.DagID)
				}
			}
			slices.Sort(want)
			if tc.desc {
				slices.Reverse(want)
			}
			total := len(want)
			want = want[min(tc.offset, len(want)):]
			want = want[:min(tc.limit, len(want))]
			ts.do(t, http.MethodGet, apiV1Prefix+"/dags?"+tc.query, "") // counts the table once
			read = 0
			res := ts.do(t, http.MethodGet, apiV1Prefix+"/dags?"+tc.query, "")
			var got struct {
				Dags []struct {
					DagID string `json:"dag_id"`
				} `json:"dags"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != 200 {
				t.Fatalf("%d %.300s: %v", res.status, res.body, err)
			}
			var ids []string
			for _, d := range got.Dags {
				ids = append(ids, d.DagID)
			}
			if got.Total != total || !slices.Equal(ids, want) {
				t.Errorf("total %d, ids %v\nwant %d, %v", got.Total, ids, total, want)
			}
			if (read == 0) != (tc.maxRead == 0) || read > tc.maxRead {
				t.Errorf("read %d rows from an index for the page, want 1 to %d (0: none)", read, tc.maxRead)
			}
		})
	}
}

// checkPageRead asks an index-paged list for a page (path and body, under
// /api/v2) and for the same page in a form only the sorting path answers
// (sorted and sortedBody), once to count a remembered total, then with
// *read zeroed; it checks that the two answers are the same bytes with a
// total, and that the page read 1 to maxRead rows (none at all for 0). It
// answers the page.
func checkPageRead(t *testing.T, ts *testServer, read *int, method, path, body, sorted, sortedBody string, maxRead int) response {
	t.Helper()
	want := ts.do(t, method, apiV2Prefix+sorted, sortedBody, "Content-Type", "application/json")
	return checkPageReadWant(t, ts, read, method, path, body, want, maxRead)
}

// checkPageReadSorted is checkPageRead with the same listing sent the
// long way (operations.sortLists) for the answer to hold the page to.
func checkPageReadSorted(t *testing.T, ts *testServer, read *int, method, path, body string, maxRead int) response {
	t.Helper()
	ts.srv.ops.sortLists.Store(true)
	want := ts.do(t, method, apiV2Prefix+path, body, "Content-Type", "application/json")
	ts.srv.ops.sortLists.Store(false)
	return checkPageReadWant(t, ts, read, method, path, body, want, maxRead)
}

// checkPageReadWant is checkPageRead with the sorted answer given.
func checkPageReadWant(t *testing.T, ts *testServer, read *int, method, path, body string, want response, maxRead int) response {
	t.Helper()
	ts.do(t, method, apiV2Prefix+path, body, "Content-Type", "application/json")
	*read = 0
	got := ts.do(t, method, apiV2Prefix+path, body, "Content-Type", "application/json")
	if got.status != 200 || want.status != 200 {
		t.Fatalf("status %d and %d: %.300s %.300s", got.status, want.status, got.body, want.body)
	}
	if got.body != want.body {
		t.Errorf("answer differs from the sorted one:\n got %.600s\nwant %.600s", got.body, want.body)
	}
	if !strings.Contains(got.body, `"total_entries":`) || strings.Contains(got.body, `"total_entries":0`) {
		t.Errorf("no total: %.300s", got.body)
	}
	if (*read == 0) != (maxRead == 0) || *read > maxRead {
		t.Errorf("read %d rows from an index for the page, want 1 to %d (0: none)", *read, maxRead)
	}
	return got
}

// TestEventLogs_FiltersReadThePage lists filtered pages of 600 events
// (event_0 to event_4 in turn, owners in turn of three) by id, either
// way, through /api/v2 and /api/v1, and checks through the store's
// rowsRead hook that a page (asked a second time: the filter's count is
// remembered per version of the event log) reads the events of the id
// order up to its last one, not every event; and its ids and total
// against a filter and sort of every event in the test.
func TestEventLogs_FiltersReadThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range 600 {
				owner := fmt.Sprintf("owner_%d", i%3)
				ev := EventLog{Event: fmt.Sprintf("event_%d", i%5), Owner: &owner, DagID: "d", When: base.Add(time.Duration((i*37)%600) * time.Second)}
				if err := ts.store.AppendEventLog(ev); err != nil {
					t.Fatal(err)
				}
			}
			all, err := ts.store.EventLogs()
			if err != nil {
				t.Fatal(err)
			}
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			prefix, idField, totalField := apiV2Prefix, "event_log_id", `"total_entries":%d`
			if e == edition2 {
				prefix, totalField = apiV1Prefix, `"total_entries": %d`
			}
			for _, tc := range []struct {
				query         string
				pick          func(*EventLog) bool
				desc          bool
				offset, limit int
			}{
				{"event=event_3&limit=20&offset=10", func(e *EventLog) bool { return e.Event == "event_3" }, false, 10, 20},
				{"owner=owner_1&event=event_2&limit=10&order_by=-event_log_id", func(e *EventLog) bool { return e.Event == "event_2" && *e.Owner == "owner_1" }, true, 0, 10},
				{"excluded_events=event_0&limit=30&offset=100", func(e *EventLog) bool { return e.Event != "event_0" }, false, 100, 30},
				{"dag_id=d&after=2026-01-01T00:05:00Z&limit=15&order_by=-event_log_id&offset=4", func(e *EventLog) bool {
					return e.When.After(base.Add(5 * time.Minute))
				}, true, 4, 15},
			} {
				t.Run(tc.query, func(t *testing.T) {
					var want []int64
					for _, ev := range all {
						if tc.pick(ev) {
							want = append(want, ev.ID)
						}
					}
					total := len(want)
					if tc.desc {
						slices.Reverse(want)
					}
					order := make([]int64, len(all))
					for i, ev := range all {
						order[i] = ev.ID
					}
					if tc.desc {
						slices.Reverse(order)
					}
					want = want[tc.offset:min(tc.offset+tc.limit, len(want))]
					maxRead := slices.Index(order, want[len(want)-1]) + 1
					path := prefix + "/eventLogs?" + tc.query
					ts.do(t, http.MethodGet, path, "")
					read = 0
					res := ts.do(t, http.MethodGet, path, "")
					var got []int64
					for _, m := range regexp.MustCompile(`"`+idField+`": ?(\d+)`).FindAllStringSubmatch(res.body, -1) {
						n, _ := strconv.ParseInt(m[1], 10, 64)
						got = append(got, n)
					}
					if res.status != 200 || !slices.Equal(got, want) || !strings.Contains(res.body, fmt.Sprintf(totalField, total)) {
						t.Errorf("%d ids %v, want %v of %d: %.300s", res.status, got, want, total, res.body)
					}
					if read == 0 || read > maxRead {
						t.Errorf("read %d rows, want 1 to %d", read, maxRead)
					}
				})
			}
		})
	}
}

// TestAPIv2_Runs_FiltersReadThePage lists a DAG's 300 runs (four states
// in turn, started a minute apart) by id, either way, with filters the
// run counts do not serve (run_id_pattern, start_date ranges, run_type
// with a state), and checks through the store's rowsRead hook that a
// page (asked a second time: the filter's count is remembered while the
// runs do not change) reads the DAG's runs of its order up to its last
// one, not all of them; each answer the one the sorting path gives (a
// second order key, after the unique id, forces it).
func TestAPIv2_Runs_FiltersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var dag *DAG
	for _, d := range ts.dags.DAGs {
		if d.DagID == "example_bash_operator" {
			dag = d
		}
	}
	addRunsIn(t, ts.store, dag, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 300, false, func(i int) RunState { return runStates[i%4] })
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const runs = "/dags/example_bash_operator/dagRuns"
	for _, tc := range []struct {
		name, query string
		maxRead     int
	}{
		// Run ids hold their date: "T01" picks the 60 runs of the second
		// hour (runs 60-119).
		{"run_id_pattern", "?limit=20&run_id_pattern=T01", 80},
		{"run_id_pattern, -id, offset", "?limit=20&offset=30&order_by=-id&run_id_pattern=T01", 180 + 50},
		{"start_date_gte", "?limit=25&start_date_gte=2025-01-01T02:00:00Z", 120 + 25},
		{"run_type and state", "?limit=10&offset=5&run_type=scheduled&state=failed", 4 * 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sorted := runs + tc.query + "&order_by=id&order_by=run_after"
			if strings.Contains(tc.query, "order_by=-id") {
				sorted = runs + tc.query + "&order_by=run_after"
			}
			checkPageRead(t, ts, &read, http.MethodGet, runs+tc.query, "", sorted, "", tc.maxRead)
		})
	}
}

// TestRuns_FilteredPagesAsTheSort asks random filtered listings of a
// DAG's runs by id (states, run types, run id patterns, start ranges,
// windows, either way), each twice and interleaved so that remembered
// counts of other filters are at hand, and holds each to the listing the
// sorting path gives (a second order key after the unique id).
func TestRuns_FilteredPagesAsTheSort(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var dag *DAG
	for _, d := range ts.dags.DAGs {
		if d.DagID == "example_bash_operator" {
			dag = d
		}
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addRunsIn(t, ts.store, dag, base, 200, false, func(i int) RunState { return runStates[(i*7)%4] })
	rng := rand.New(rand.NewPCG(21, 9))
	o := ts.srv.ops
	for i := range 300 {
		q := &runQuery{dagIDs: []string{dag.DagID}, orderBy: "id", desc: rng.IntN(2) == 0, offset: rng.IntN(120), limit: 1 + rng.IntN(40)}
		if rng.IntN(3) == 0 {
			q.states = [][]string{{"success"}, {"failed", "queued"}, {"running"}}[rng.IntN(3)]
		}
		if rng.IntN(2) == 0 {
			q.more = &runFilters{}
			switch rng.IntN(4) {
			case 0:
				q.more.runID = likePattern([]string{"T01", "T02:1", "00:0", "zz"}[rng.IntN(4)])
			case 1:
				at := base.Add(time.Duration(rng.IntN(200)) * time.Minute)
				q.more.start = timeRange{gte: &at}
			case 2:
				q.more.runTypes = [][]string{{"scheduled"}, {"manual"}}[rng.IntN(2)]
			default:
				lt := base.Add(time.Duration(rng.IntN(200)) * time.Minute)
				q.more.runAfter = timeRange{lt: &lt}
			}
		}
		sorted := *q
		sorted.order = []runOrderKey{{"id", q.desc}, {"run_after", false}}
		want, wantTotal, err := o.listRuns(&sorted)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, total, err := o.listRuns(q)
			if err != nil {
				t.Fatal(err)
			}
			ids := func(runs []*DagRun) []int64 {
				out := []int64{}
				for _, r := range runs {
					out = append(out, r.ID)
				}
				return out
			}
			if !slices.Equal(ids(got), ids(want)) || total != wantTotal {
				t.Fatalf("listing %d (%+v, more %+v): %v of %d, want %v of %d", i, *q, q.more, ids(got), total, ids(want), wantTotal)
			}
		}
	}
}

// TestAPIv2_Dags_ImportErrorsAndFavoritesReadThePage lists 300 DAGs (the
// files of one in three failing their last read, one in five the caller's
// favorite, another user's favorites besides) with has_import_errors and
// is_favorite, and checks through the rowsRead hook that a page reads
// the DAG rows of its order up to its last and a lookup of each one's
// import error and favorite, not every DAG (the path that read and
// sorted them), each answer that path's for the same request; and that a
// new import error or favorite counts again.
func TestAPIv2_Dags_ImportErrorsAndFavoritesReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	failed := map[string]string{}
	var files []string
	for i := range 300 {
		id := fmt.Sprintf("paged_%03d", (i*7)%300)
		d := benchDAG(t, id, 1)
		d.FilePath = "/dags/" + id + ".py"
		if _, err := ts.store.UpsertDAG(d); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			failed[absPath(d.FilePath)] = "Traceback"
			files = append(files, absPath(d.FilePath))
		}
		if i%5 == 0 {
			if err := ts.store.SetFavorite(id, anonymousAdmin, true); err != nil {
				t.Fatal(err)
			}
		}
		if i%2 == 0 {
			if err := ts.store.SetFavorite(id, "someone_else", true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ts.store.RecordParse(files, failed, testNow); err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		// About three rows (and their lookups) a DAG picked.
		{"import errors", "/dags?limit=10&has_import_errors=true", 3 * 10 * 3},
		{"no import errors, desc, offset", "/dags?limit=10&offset=20&order_by=-dag_id&has_import_errors=false", 3 * 30 * 3},
		{"favorites", "/dags?limit=10&is_favorite=true", 5 * 10 * 3},
		{"not favorites without import errors", "/dags?limit=10&is_favorite=false&has_import_errors=false", 3 * 10 * 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkDagPageRead(t, ts, &read, tc.path, tc.maxRead)
		})
	}
	// The counts follow the tables the filters read.
	if err := ts.store.SetFavorite("paged_001", anonymousAdmin, true); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.RecordParse([]string{absPath("/dags/paged_001.py")}, map[string]string{absPath("/dags/paged_001.py"): "Traceback"}, testNow); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dags?limit=1&is_favorite=true", "/dags?limit=1&has_import_errors=true"} {
		checkDagPageRead(t, ts, &read, path, 100)
	}
	// One DAG's GET looks up its own file's import error and the caller's
	// favorite, not every import error.
	read = 0
	res := ts.do(t, http.MethodGet, apiV2Prefix+"/dags/paged_001", "")
	if d := v2JSON(t, res); res.status != 200 || d["has_import_errors"] != true || read > 5 {
		t.Errorf("GET one DAG: %d has_import_errors %v, %d rows read; want 200, true, a few rows", res.status, d["has_import_errors"], read)
	}
	read = 0
	if res := ts.do(t, http.MethodGet, apiV2Prefix+"/dags/paged_002", ""); res.status != 200 || v2JSON(t, res)["has_import_errors"] != false || read > 5 {
		t.Errorf("GET one DAG without an import error: %d %s, %d rows read", res.status, res.body, read)
	}
}
