package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_Runs_OrdersReadThePage lists pages of 300 runs of each of two
// DAGs in the orders no index of the run table keeps (start_date,
// end_date, updated_at, state, logical_date) and those one keeps within a DAG
// (run_after, run_id), of one DAG, of every DAG and of the batch's
// dag_ids, with filters, and checks through the store's rowsRead hook
// that a page reads about its rows (and the DAG's marks and unfinished
// runs), not every run: before, each read every run of its DAGs and
// sorted them (duration until lists3: its chunks). Each answer is held to
// the sorting path's (operations.sortLists).
func TestAPIv2_Runs_OrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 300)
	addSchedulerRuns(t, ts.store, "tutorial", base.Add(time.Second), 300)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const one = "/dags/example_bash_operator/dagRuns"
	for _, tc := range []struct {
		name, path, order, filters string
		maxRead                    int
	}{
		{"-start_date", one, "-start_date", "limit=20", 60},
		{"start_date, offset", one, "start_date", "limit=20&offset=100", 150},
		{"-end_date", one, "-end_date", "limit=20", 60},
		{"-updated_at", one, "-updated_at", "limit=20", 60},
		{"state", one, "state", "limit=20", 90},
		{"-state, offset", one, "-state", "limit=20&offset=250", 360},
		{"-run_after", one, "-run_after", "limit=20", 25},
		{"logical_date, offset", one, "logical_date", "limit=20&offset=20", 50},
		{"run_id, offset", one, "run_id", "limit=20&offset=40", 65},
		{"-start_date, state filter", one, "-start_date", "limit=20&state=failed", 250},
		{"every DAG, -start_date", "/dags/~/dagRuns", "-start_date", "limit=20", 90},
		{"-duration", one, "-duration", "limit=20", 40},
		{"duration, offset", one, "duration", "limit=20&offset=100", 150},
		{"every DAG, -duration, a state", "/dags/~/dagRuns", "-duration", "limit=20&state=failed", 250},
		{"every DAG, run_after, run_type", "/dags/~/dagRuns", "run_after", "limit=20&run_type=scheduled", 45},
		{"every DAG, -id, run_id_pattern", "/dags/~/dagRuns", "-id", "limit=20&run_id_pattern=T0", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path + "?order_by=" + url.QueryEscape(tc.order) + "&" + tc.filters
			checkPageReadSorted(t, ts, &read, http.MethodGet, path, "", tc.maxRead)
		})
	}
	// The batch takes one order key: each answer is held to the sorting
	// path's for the same listing (sortedRuns).
	const batch = "/dags/~/dagRuns/list"
	from := time.Date(2025, 1, 1, 2, 0, 0, 0, time.UTC)
	both := []string{"tutorial", "example_bash_operator"}
	for _, tc := range []struct {
		name, body string
		want       runQuery
		maxRead    int
	}{
		{"batch, by id, a date range", `{"dag_ids": ["tutorial", "example_bash_operator"], "page_limit": 20, "start_date_gte": "2025-01-01T02:00:00Z"}`,
			runQuery{dagIDs: both, order: []runOrderKey{{"id", false}}, more: &runFilters{start: timeRange{gte: &from}}}, 150},
		{"batch, -end_date", `{"dag_ids": ["tutorial", "example_bash_operator"], "page_limit": 20, "order_by": "-end_date"}`,
			runQuery{dagIDs: both, order: []runOrderKey{{"end_date", true}}}, 90},
		{"batch, every DAG, state", `{"page_limit": 20, "page_offset": 30, "order_by": "state", "states": ["failed", "success"]}`,
			runQuery{offset: 30, states: []string{"failed", "success"}, order: []runOrderKey{{"state", false}}}, 220},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			want.limit = 20
			runs, total, err := ts.srv.ops.sortedRuns(&want)
			if err != nil {
				t.Fatal(err)
			}
			ts.do(t, http.MethodPost, apiV2Prefix+batch, tc.body, "Content-Type", "application/json")
			read = 0
			got := ts.do(t, http.MethodPost, apiV2Prefix+batch, tc.body, "Content-Type", "application/json")
			if got.status != 200 {
				t.Fatalf("status %d: %.300s", got.status, got.body)
			}
			var page struct {
				DagRuns []struct {
					DagID string `json:"dag_id"`
					RunID string `json:"dag_run_id"`
				} `json:"dag_runs"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(got.body), &page); err != nil {
				t.Fatal(err)
			}
			var gotIDs, wantIDs []string
			for _, r := range page.DagRuns {
				gotIDs = append(gotIDs, r.DagID+"/"+r.RunID)
			}
			for _, r := range runs {
				wantIDs = append(wantIDs, r.DagID+"/"+r.RunID)
			}
			if !slices.Equal(gotIDs, wantIDs) || page.Total != total || total == 0 {
				t.Errorf("page %v of %d, want %v of %d", gotIDs, page.Total, wantIDs, total)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows for the page, want 1 to %d", read, tc.maxRead)
			}
		})
	}
}

// TestAPIv1_Runs_OrdersReadThePage is TestAPIv2_Runs_OrdersReadThePage
// for /api/v1 (edition 2): order_by in the orders no index keeps, and
// execution_date of every DAG or with a filter, of one DAG, every DAG and
// the batch's dag_ids; each page (asked a second time: a filter's count
// is remembered per version of the run table) held to the sorting
// path's.
func TestAPIv1_Runs_OrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 300)
	addSchedulerRuns(t, ts.store, "tutorial", base.Add(time.Second), 300)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	both := []string{"example_bash_operator", "tutorial"}
	from := time.Date(2025, 1, 1, 2, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		dagID string         // GET's; "" asks the batch
		query v1Values       // GET's
		body  map[string]any // the batch's
		want  runQuery
		max   int
	}{
		{"-start_date", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"-start_date"}}, nil,
			runQuery{dagIDs: []string{"example_bash_operator"}, orderBy: "start_date", desc: true}, 60},
		{"end_date, offset", "example_bash_operator", v1Values{"limit": {"20"}, "offset": {"100"}, "order_by": {"end_date"}}, nil,
			runQuery{dagIDs: []string{"example_bash_operator"}, orderBy: "end_date", offset: 100}, 150},
		{"-updated_at, every DAG", "~", v1Values{"limit": {"20"}, "order_by": {"-updated_at"}}, nil,
			runQuery{orderBy: "updated_at", desc: true}, 90},
		{"state, a date range", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"state"}, "start_date_gte": {"2025-01-01T02:00:00Z"}}, nil,
			runQuery{dagIDs: []string{"example_bash_operator"}, orderBy: "state", startGTE: &from}, 160},
		{"-execution_date, every DAG", "~", v1Values{"limit": {"20"}, "order_by": {"-execution_date"}}, nil,
			runQuery{orderBy: "execution_date", desc: true}, 25},
		{"dag_run_id, a state", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"dag_run_id"}, "state": {"failed"}}, nil,
			runQuery{dagIDs: []string{"example_bash_operator"}, orderBy: "dag_run_id", states: []string{"failed"}}, 220},
		{"batch, -start_date", "", nil, map[string]any{"dag_ids": []any{"tutorial", "example_bash_operator"}, "order_by": "-start_date", "page_limit": json.Number("20")},
			runQuery{dagIDs: both, orderBy: "start_date", desc: true}, 90},
		{"batch, execution_date, a state", "", nil, map[string]any{"order_by": "execution_date", "states": []any{"failed"}, "page_limit": json.Number("20")},
			runQuery{orderBy: "execution_date", states: []string{"failed"}}, 220},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			want.limit = 20
			runs, total, err := ts.srv.ops.sortedRuns(&want)
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for _, r := range runs {
				wantIDs = append(wantIDs, r.DagID+"/"+r.RunID)
			}
			var got map[string]any
			for range 2 { // the first counts what a filter picks
				read = 0
				if tc.dagID != "" {
					got, err = ts.srv.V1GetDagRuns(tc.dagID, tc.query)
				} else {
					got, err = ts.srv.V1GetDagRunsBatch(tc.body)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if read == 0 || read > tc.max {
				t.Errorf("the page read %d rows, want 1 to %d", read, tc.max)
			}
			ids, gotTotal := pageRunIDs(t, got)
			if !slices.Equal(ids, wantIDs) || gotTotal != total || total == 0 {
				t.Errorf("page %v of %d, want %v of %d", ids, gotTotal, wantIDs, total)
			}
		})
	}
}

// TestAPIv2_Runs_UnfinishedReadOnce lists a DAG's runs in the marked
// orders (whose unfinished runs are read from the state index and sorted)
// with a backfill's 400 queued runs beside 300 settled ones, and checks
// through the store's rowsRead hook that a page asked a second time reads
// about its rows: the unfinished runs, sorted, are remembered per version
// of the DAG's queued and running runs (before, every page read the 400
// and sorted them); each answer the sorting path's.
func TestAPIv2_Runs_UnfinishedReadOnce(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 300)
	addQueuedRuns(t, ts.store, "example_bash_operator", base.Add(-1000*time.Hour), 400)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const one = "/dags/example_bash_operator/dagRuns"
	for _, tc := range []struct {
		name, order, filters string
		maxRead              int
	}{
		{"-start_date", "-start_date", "limit=20", 60},
		{"start_date, offset", "start_date", "limit=20&offset=100", 150},
		{"-updated_at", "-updated_at", "limit=20", 60},
		{"end_date", "end_date", "limit=20", 60},
		{"-end_date, into the nulls", "-end_date", "limit=20&offset=290", 290 + 50},
		{"state, the queued", "state", "limit=20&offset=40", 90},
		{"-state", "-state", "limit=20", 90},
		{"logical_date", "logical_date", "limit=20&offset=390", 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := one + "?order_by=" + url.QueryEscape(tc.order) + "&" + tc.filters
			checkPageReadSorted(t, ts, &read, http.MethodGet, path, "", tc.maxRead)
		})
	}
}

// TestAPIv2_Runs_SeveralKeysReadThePage lists pages of 300 runs of each of
// two DAGs by several order keys whose first the store walks (a date, a
// marked one or run_after's index, the id), and checks through the store's
// rowsRead hook that a page reads about its rows: the walks read the runs
// that tie on the first key together and put them in the order of the
// others, where every run of the DAGs was read and sorted; led by dag_id
// or state (600 rows read before, runlists4), each DAG's or state's runs
// in turn, in the order of the keys after it. Each answer is held to the
// sorting path's (sortedRuns).
func TestAPIv2_Runs_SeveralKeysReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 300)
	addSchedulerRuns(t, ts.store, "tutorial", base.Add(time.Second), 300)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	for _, tc := range []struct {
		name, path string
		want       runQuery
		maxRead    int
	}{
		{"-start_date, run_id", "/dags/example_bash_operator/dagRuns?limit=20&order_by=-start_date&order_by=run_id",
			runQuery{dagIDs: []string{"example_bash_operator"}, order: []runOrderKey{{"start_date", true}, {"run_id", false}}}, 60},
		{"end_date, -state, offset", "/dags/example_bash_operator/dagRuns?limit=20&offset=100&order_by=end_date&order_by=-state",
			runQuery{dagIDs: []string{"example_bash_operator"}, offset: 100, order: []runOrderKey{{"end_date", false}, {"state", true}}}, 160},
		{"every DAG, -run_after, -start_date", "/dags/~/dagRuns?limit=20&order_by=-run_after&order_by=-start_date",
			runQuery{order: []runOrderKey{{"run_after", true}, {"start_date", true}}}, 50},
		{"every DAG, logical_date, conf, a state", "/dags/~/dagRuns?limit=20&order_by=logical_date&order_by=conf&state=success",
			runQuery{states: []string{"success"}, order: []runOrderKey{{"logical_date", false}, {"conf", false}}}, 90},
		{"every DAG, -id, duration", "/dags/~/dagRuns?limit=20&order_by=-id&order_by=duration",
			runQuery{order: []runOrderKey{{"id", true}, {"duration", false}}}, 30},
		// Led by dag_id or state: each DAG's or state's runs in the order
		// of the keys after it, the sections before the page counted.
		{"every DAG, dag_id, -start_date", "/dags/~/dagRuns?limit=20&order_by=dag_id&order_by=-start_date",
			runQuery{order: []runOrderKey{{"dag_id", false}, {"start_date", true}}}, 60},
		{"every DAG, -dag_id, run_after, offset", "/dags/~/dagRuns?limit=20&offset=310&order_by=-dag_id&order_by=run_after",
			runQuery{offset: 310, order: []runOrderKey{{"dag_id", true}, {"run_after", false}}}, 60},
		// A finished state's runs are picked along the next key's walk:
		// the failed runs, one in ten, cost about ten reads each.
		{"state, -end_date", "/dags/example_bash_operator/dagRuns?limit=20&order_by=state&order_by=-end_date",
			runQuery{dagIDs: []string{"example_bash_operator"}, order: []runOrderKey{{"state", false}, {"end_date", true}}}, 250},
		{"-state, -start_date, offset", "/dags/example_bash_operator/dagRuns?limit=20&offset=100&order_by=-state&order_by=-start_date",
			runQuery{dagIDs: []string{"example_bash_operator"}, offset: 100, order: []runOrderKey{{"state", true}, {"start_date", true}}}, 160},
		{"every DAG, -state, dag_id, a state", "/dags/~/dagRuns?limit=20&order_by=-state&order_by=dag_id&state=running&state=success",
			runQuery{states: []string{"running", "success"}, order: []runOrderKey{{"state", true}, {"dag_id", false}}}, 60},
		{"every DAG, state, run_id, past the failed", "/dags/~/dagRuns?limit=20&offset=60&order_by=state&order_by=run_id",
			runQuery{offset: 60, order: []runOrderKey{{"state", false}, {"run_id", false}}}, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			want.limit = 20
			runs, total, err := ts.srv.ops.sortedRuns(&want)
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for _, r := range runs {
				wantIDs = append(wantIDs, r.DagID+"/"+r.RunID)
			}
			ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
			read = 0
			got := ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
			if got.status != 200 {
				t.Fatalf("status %d: %.300s", got.status, got.body)
			}
			var page struct {
				DagRuns []struct {
					DagID string `json:"dag_id"`
					RunID string `json:"dag_run_id"`
				} `json:"dag_runs"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(got.body), &page); err != nil {
				t.Fatal(err)
			}
			var gotIDs []string
			for _, r := range page.DagRuns {
				gotIDs = append(gotIDs, r.DagID+"/"+r.RunID)
			}
			if !slices.Equal(gotIDs, wantIDs) || page.Total != total || total == 0 {
				t.Errorf("page %v of %d, want %v of %d", gotIDs, page.Total, wantIDs, total)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows for the page, want 1 to %d", read, tc.maxRead)
			}
		})
	}
}

// TestAPIv2_Runs_FixedOrdersReadThePage lists pages of 300 runs of each of
// two DAGs (one in ten manual, with a conf of its own: addMixedRuns) by
// conf, of one DAG, every DAG and the batch's dag_ids, with filters, and
// checks through the store's rowsRead hook that a page reads about its
// rows (the marks where the runs' confs, in id order, descend, and the
// stretches the page comes from), not every run: before, each read every
// run of its DAGs and sorted them. Each answer is held to the sorting
// path's (operations.sortLists).
func TestAPIv2_Runs_FixedOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addMixedRuns(t, ts.store, "example_bash_operator", base, 300, 10)
	addMixedRuns(t, ts.store, "tutorial", base.Add(time.Second), 300, 10)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const one = "/dags/example_bash_operator/dagRuns"
	for _, tc := range []struct {
		name, path, order, filters string
		maxRead                    int
	}{
		{"conf", one, "conf", "limit=20", 70},
		{"-conf", one, "-conf", "limit=20", 30},
		{"conf, into the {}", one, "conf", "limit=20&offset=40", 120},
		{"-conf, offset", one, "-conf", "limit=20&offset=100", 140},
		{"every DAG, conf", "/dags/~/dagRuns", "conf", "limit=20", 90},
		{"every DAG, -conf, a state", "/dags/~/dagRuns", "-conf", "limit=20&state=failed", 250},
		{"conf, run_type", one, "conf", "limit=20&run_type=manual", 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path + "?order_by=" + url.QueryEscape(tc.order) + "&" + tc.filters
			checkPageReadSorted(t, ts, &read, http.MethodGet, path, "", tc.maxRead)
		})
	}
	t.Run("batch, -conf", func(t *testing.T) {
		body := `{"dag_ids": ["tutorial", "example_bash_operator"], "page_limit": 20, "page_offset": 10, "order_by": "-conf"}`
		checkPageReadSorted(t, ts, &read, http.MethodPost, "/dags/~/dagRuns/list", body, 60)
	})
}

// TestAPIv1_Runs_FixedOrdersReadThePage is
// TestAPIv2_Runs_FixedOrdersReadThePage for /api/v1 (edition 2), whose
// orders are conf and external_trigger: each page (asked a second time: a
// filter's count is remembered) held to the sorting path's.
func TestAPIv1_Runs_FixedOrdersReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addMixedRuns(t, ts.store, "example_bash_operator", base, 300, 10)
	addMixedRuns(t, ts.store, "tutorial", base.Add(time.Second), 300, 10)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	one := []string{"example_bash_operator"}
	for _, tc := range []struct {
		name  string
		dagID string         // GET's; "" asks the batch
		query v1Values       // GET's
		body  map[string]any // the batch's
		want  runQuery
		max   int
	}{
		{"conf", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"conf"}}, nil,
			runQuery{dagIDs: one, orderBy: "conf"}, 70},
		{"-conf, offset", "example_bash_operator", v1Values{"limit": {"20"}, "offset": {"100"}, "order_by": {"-conf"}}, nil,
			runQuery{dagIDs: one, orderBy: "conf", desc: true, offset: 100}, 140},
		{"-external_trigger", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"-external_trigger"}}, nil,
			runQuery{dagIDs: one, orderBy: "external_trigger", desc: true}, 70},
		{"external_trigger, offset", "example_bash_operator", v1Values{"limit": {"20"}, "offset": {"100"}, "order_by": {"external_trigger"}}, nil,
			runQuery{dagIDs: one, orderBy: "external_trigger", offset: 100}, 140},
		{"every DAG, -external_trigger, a state", "~", v1Values{"limit": {"20"}, "order_by": {"-external_trigger"}, "state": {"success"}}, nil,
			runQuery{orderBy: "external_trigger", desc: true, states: []string{"success"}}, 120},
		{"batch, conf", "", nil, map[string]any{"dag_ids": []any{"tutorial", "example_bash_operator"}, "order_by": "conf", "page_limit": json.Number("20")},
			runQuery{dagIDs: []string{"tutorial", "example_bash_operator"}, orderBy: "conf"}, 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			want.limit = 20
			runs, total, err := ts.srv.ops.sortedRuns(&want)
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for _, r := range runs {
				wantIDs = append(wantIDs, r.DagID+"/"+r.RunID)
			}
			var got map[string]any
			for range 2 { // the first counts what a filter picks
				read = 0
				if tc.dagID != "" {
					got, err = ts.srv.V1GetDagRuns(tc.dagID, tc.query)
				} else {
					got, err = ts.srv.V1GetDagRunsBatch(tc.body)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if read == 0 || read > tc.max {
				t.Errorf("the page read %d rows, want 1 to %d", read, tc.max)
			}
			ids, gotTotal := pageRunIDs(t, got)
			if !slices.Equal(ids, wantIDs) || gotTotal != total || total == 0 {
				t.Errorf("page %v of %d, want %v of %d", ids, gotTotal, wantIDs, total)
			}
		})
	}
}

// TestAPIv2_Runs_UnfinishedAfterAWrite lists a DAG's runs in the marked
// orders with a backfill's 2,000 queued runs beside 300 settled ones, and
// checks through the store's rowsRead hook that the first page after a
// write of the DAG's runs (a queued run started, a run triggered, a
// settled run cleared) reads about its rows and the runs of the blocks
// of 256 ids the write touched: a DAG's unfinished runs are remembered by
// block, a block read again only when its node in the (dag_id, id) index
// changed (a cleared run's block found from the DAG's counts). Before,
// that page read the 2,000 again (2,007-2,097 rows) and sorted them. Each
// answer is the sorting path's.
func TestAPIv2_Runs_UnfinishedAfterAWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addSchedulerRuns(t, ts.store, "example_bash_operator", base, 300)
	addQueuedRuns(t, ts.store, "example_bash_operator", base.Add(-1000*time.Hour), 2000)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	runs, err := ts.store.RunsOfDag("example_bash_operator", "")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(runs, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) }) // 300 settled, then the queued
	put := func(run *DagRun, change func(*DagRun)) {
		t.Helper()
		next := *run
		change(&next)
		if err := ts.store.update(func(txn *memdb.Txn) error { return putRunTxn(txn, run, &next) }); err != nil {
			t.Fatal(err)
		}
	}
	at := base.Add(400 * 24 * time.Hour)
	for _, tc := range []struct {
		name, order, filters string
		write                func()
		maxRead              int
	}{
		{"a queued run started, -start_date", "-start_date", "limit=20", func() {
			put(runs[1000], func(r *DagRun) { r.State, r.StartDate, r.UpdatedAt = RunRunning, &at, &at })
		}, 20 + 256 + 40},
		{"a run triggered, -updated_at", "-updated_at", "limit=20", func() {
			v2Trigger(t, ts, "example_bash_operator", `{"dag_run_id": "late", "logical_date": null}`)
		}, 20 + 256 + 40},
		{"a settled run cleared, state", "state", "limit=20&offset=40", func() {
			put(runs[100], func(r *DagRun) { r.State, r.StartDate, r.EndDate = RunQueued, nil, nil })
		}, 60 + 256 + 60},
		{"a queued run failed, end_date", "end_date", "limit=20", func() {
			put(runs[1500], func(r *DagRun) { r.State, r.StartDate, r.EndDate, r.UpdatedAt = RunFailed, &at, &at, &at })
		}, 20 + 256 + 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/dags/example_bash_operator/dagRuns?order_by=" + url.QueryEscape(tc.order) + "&" + tc.filters
			ts.do(t, http.MethodGet, apiV2Prefix+path, "") // remembered
			tc.write()
			ts.srv.ops.sortLists.Store(true)
			want := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
			ts.srv.ops.sortLists.Store(false)
			read = 0
			got := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
			if got.status != 200 || got.body != want.body {
				t.Errorf("answer %d differs from the sorted one:\n got %.600s\nwant %.600s", got.status, got.body, want.body)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("read %d rows for the first page after the write, want 1 to %d", read, tc.maxRead)
			}
		})
	}
}

// TestAPIv2_TaskInstances_StartOrderBesideABackfill lists every run's task
// instances by -start_date of a DAG with five running runs (their started
// task instances in no chunk: merged from the DAG's unfinished runs) and
// a backfill's 1,100 queued runs, after a write of the DAG's runs: its
// unfinished runs are then remembered by block (pendingRunsTxn's next
// version), and the page must still merge the running runs' task
// instances (it left them out while the start walk read the unfinished
// runs' field that a version made by block fills only when asked). Each
// answer is the sorting path's.
func TestAPIv2_TaskInstances_StartOrderBesideABackfill(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	addStartedRuns(t, ts.store, "tistart_a", base, 80, false)
	runs, err := ts.store.RunsOfDag("tistart_a", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs[70:75] {
		if _, err := ts.store.ForceRunState("tistart_a", run.RunID, RunRunning, base, runStateDates{}); err != nil {
			t.Fatal(err)
		}
	}
	addQueuedRuns(t, ts.store, "tistart_a", base.Add(-2000*time.Hour), 1100)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const page = "/dags/tistart_a/dagRuns/~/taskInstances?limit=30&order_by=-start_date"
	checkPageReadSorted(t, ts, &read, "GET", page, "", 1300)
	if _, err := ts.store.ForceRunState("tistart_a", runs[20].RunID, RunRunning, base.Add(time.Hour), runStateDates{}); err != nil {
		t.Fatal(err)
	}
	checkPageReadSorted(t, ts, &read, "GET", page, "", 1300)
}
