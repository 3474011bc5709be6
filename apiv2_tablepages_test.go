package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_ImportErrors_ReadThePage lists pages of 300 import errors
// (file names out of id order) by id and by filename, either way, with
// and without a filename pattern, and checks through the store's rowsRead
// hook that once the total is counted a page reads its own rows and those
// its offset skips, and that each answer is, byte for byte, the sorting
// path's (forced by a first key that never decides, bundle_name).
func TestAPIv2_ImportErrors_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	failed := map[string]string{}
	var read []string
	for i := range 300 {
		name := fmt.Sprintf("/dags/broken_%03d.py", (i*7)%300)
		failed[name] = "Traceback: line " + fmt.Sprint(i)
		read = append(read, name)
	}
	if err := ts.store.RecordParse(read, failed, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	var rows int
	ts.store.rowsRead = func(n int) { rows += n }
	const list = "/importErrors"
	for _, tc := range []struct {
		name, path, sorted string
		maxRead            int
	}{
		{"default", "?limit=50", "?limit=50&order_by=bundle_name&order_by=id", 50},
		{"offset", "?limit=20&offset=100", "?limit=20&offset=100&order_by=bundle_name&order_by=id", 120},
		{"by -id", "?limit=20&order_by=-import_error_id", "?limit=20&order_by=bundle_name&order_by=-id", 20},
		{"by filename", "?limit=20&offset=5&order_by=filename", "?limit=20&offset=5&order_by=bundle_name&order_by=filename", 25},
		{"by -filename, then timestamp", "?limit=20&order_by=-filename&order_by=timestamp",
			"?limit=20&order_by=bundle_name&order_by=-filename", 20},
		{"a pattern", "?limit=10&filename_pattern=broken_1%25", "?limit=10&filename_pattern=broken_1%25&order_by=bundle_name&order_by=id", 300},
		{"past the end", "?limit=10&offset=400", "?limit=10&offset=400&order_by=bundle_name&order_by=id", 0}, // the count says so
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &rows, http.MethodGet, list+tc.path, "", list+tc.sorted, "", tc.maxRead)
		})
	}
}

// TestAPIv2_DagVersions_ReadThePage lists pages of every DAG's versions
// (GET /dags/~/dagVersions: 120 DAGs, some with several versions) by id
// either way and checks through the rowsRead hook that once the total is
// counted a page reads its own rows and those its offset skips, each
// answer the sorting path's (a first key that decides nothing but never
// reorders: bundle_name, every version's the same).
func TestAPIv2_DagVersions_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for i := range 120 {
		id := fmt.Sprintf("versioned_%03d", (i*7)%120)
		for n := range 1 + i%3 {
			if _, err := ts.store.UpsertDAG(benchDAG(t, id, 1+n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var rows int
	ts.store.rowsRead = func(n int) { rows += n }
	const list = "/dags/~/dagVersions"
	for _, tc := range []struct {
		name, path, sorted string
		maxRead            int
	}{
		{"default", "?limit=50", "?limit=50&order_by=bundle_name&order_by=id", 50},
		{"offset", "?limit=20&offset=100", "?limit=20&offset=100&order_by=bundle_name&order_by=id", 120},
		{"by -id", "?limit=20&offset=3&order_by=-id&order_by=version_number", "?limit=20&offset=3&order_by=bundle_name&order_by=-id", 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPageRead(t, ts, &rows, http.MethodGet, list+tc.path, "", list+tc.sorted, "", tc.maxRead)
		})
	}
}

// addBackfills stores n backfills, alternating between two DAGs (ids in
// creation order, as the store hands them out), and one change of every
// fifth after the others, as the scheduler's completions make.
func addBackfills(tb testing.TB, store *Store, n int) {
	tb.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			b := &Backfill{ID: int64(i + 1), DagID: []string{"filled_a", "filled_b"}[i%2], FromDate: base, ToDate: base.Add(time.Hour),
				ReprocessBehavior: "none", MaxActiveRuns: 10, CreatedAt: base, UpdatedAt: base}
			if err := txn.Insert(tableBackfills, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i += 5 {
		if _, err := store.UpdateBackfill(int64(i+1), func(_ storeView, b *Backfill) error {
			b.IsPaused = true
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestAPIv2_Backfills_ReadThePage lists pages of a DAG's backfills (300
// of two DAGs) by id either way and checks through the rowsRead hook
// that once the DAG's count is known a page reads its own rows and those
// its offset skips, and that each page is the DAG's backfills in id
// order (reversed for -id) cut at the offset; a change of one of them
// counts the DAG's again.
func TestAPIv2_Backfills_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addBackfills(t, ts.store, 300)
	all, err := ts.store.Backfills("filled_b")
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	ts.store.rowsRead = func(n int) { rows += n }
	for _, tc := range []struct {
		name          string
		desc          bool
		offset, limit int
		maxRead       int
	}{
		{"default", false, 0, 20, 20},
		{"offset", false, 100, 20, 120},
		{"by -id", true, 7, 10, 17},
		{"past the end", false, 160, 10, 0}, // the count says so
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fmt.Sprintf("%s/backfills?dag_id=filled_b&offset=%d&limit=%d", apiV2Prefix, tc.offset, tc.limit)
			if tc.desc {
				path += "&order_by=-id"
			}
			ordered := slices.Clone(all)
			if tc.desc {
				slices.Reverse(ordered)
			}
			want := v2BackfillCollection{Backfills: []v2BackfillResponse{}, TotalEntries: len(all)}
			for _, b := range v2Window(ordered, page{offset: tc.offset, limit: tc.limit}) {
				want.Backfills = append(want.Backfills, ts.srv.v2Backfill(b))
			}
			wantBody, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			ts.do(t, http.MethodGet, path, "") // counts the DAG's backfills once
			rows = 0
			got := ts.do(t, http.MethodGet, path, "")
			if got.status != 200 || got.body != string(wantBody) {
				t.Errorf("answer %d:\n got %.600s\nwant %.600s", got.status, got.body, wantBody)
			}
			if (rows == 0) != (tc.maxRead == 0) || rows > tc.maxRead {
				t.Errorf("read %d rows from an index for the page, want 1 to %d (0: none)", rows, tc.maxRead)
			}
		})
	}
	if _, err := ts.store.UpdateBackfill(2, func(_ storeView, b *Backfill) error {
		b.IsPaused = !b.IsPaused
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows = 0
	if got := ts.do(t, http.MethodGet, apiV2Prefix+"/backfills?dag_id=filled_b&limit=5", ""); !strings.Contains(got.body, `"total_entries":150`) {
		t.Errorf("after a change: %.300s", got.body)
	}
	if rows < 150 {
		t.Errorf("after a change of the DAG's backfills the page read %d rows, want its count walked again (150)", rows)
	}
}

// TestAPIv2_DagTags_ReadThePage lists pages of the tags of 300 DAGs (40
// distinct, out of order) and checks through the rowsRead hook that the
// DAGs are read once per change of the DAG table, not per page, and that
// each page is the distinct tags sorted (reversed for -name), cut at the
// offset, with a pattern too.
func TestAPIv2_DagTags_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	var tags []string
	for i := range 300 {
		d := benchDAG(t, fmt.Sprintf("tagged_%03d", i), 1)
		d.Tags = []string{fmt.Sprintf("team_%02d", (i*7)%40), fmt.Sprintf("kind_%d", i%3)}
		tags = append(tags, d.Tags...)
		if _, err := ts.store.UpsertDAG(d); err != nil {
			t.Fatal(err)
		}
	}
	dags, err := ts.store.Dags()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range dags {
		if row.Def != nil {
			tags = append(tags, row.Def.Tags...)
		}
	}
	slices.Sort(tags)
	tags = slices.Compact(tags)
	var rows int
	ts.store.rowsRead = func(n int) { rows += n }
	get := func(t *testing.T, query string) v2DagTagCollection {
		t.Helper()
		got := ts.do(t, http.MethodGet, apiV2Prefix+"/dagTags"+query, "")
		var out v2DagTagCollection
		if err := json.Unmarshal([]byte(got.body), &out); got.status != 200 || err != nil {
			t.Fatalf("GET %s: %d %s (%v)", query, got.status, got.body, err)
		}
		return out
	}
	if get(t, "?limit=1"); rows < 300 {
		t.Errorf("the first page read %d DAG rows, want every DAG's (300 and more)", rows)
	}
	for _, tc := range []struct {
		name, query string
		want        func() []string
	}{
		{"default", "?limit=10&offset=5", func() []string { return tags[5:15] }},
		{"by -name", "?limit=10&offset=3&order_by=-name", func() []string {
			r := slices.Clone(tags)
			slices.Reverse(r)
			return r[3:13]
		}},
		{"a pattern", "?limit=5&tag_name_pattern=team_1%25", func() []string {
			var r []string
			for _, tag := range tags {
				if strings.HasPrefix(tag, "team_1") {
					r = append(r, tag)
				}
			}
			return r[:5]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			get(t, tc.query) // reads the DAGs once
			rows = 0
			got := get(t, tc.query)
			if fmt.Sprint(got.Tags) != fmt.Sprint(tc.want()) {
				t.Errorf("tags %v, want %v", got.Tags, tc.want())
			}
			if rows != 0 {
				t.Errorf("read %d DAG rows for a page, want none (the tags are remembered)", rows)
			}
		})
	}
	if err := ts.store.SetPaused("tagged_001", true, false); err != nil {
		t.Fatal(err)
	}
	rows = 0
	if got := get(t, "?limit=3"); got.TotalEntries != len(tags) || rows < 300 {
		t.Errorf("after a change: %d tags of %d, %d DAG rows read (want them read again)", got.TotalEntries, len(tags), rows)
	}
}

// TestAPIv2_XComs_ReadThePage lists pages of every XCom entry (three
// DAGs' runs, tasks, map indexes and keys) in get_xcom_entries' order
// (dag_id, task_id, run_id, map_index, key): a page reads its own
// entries and those its offset skips, its total is the store's count,
// and each answer is the filtering path's byte for byte (forced by a
// run_after bound that drops nothing).
func TestAPIv2_XComs_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	n := addXComGrid(t, ts.store)
	var read int
	ts.store.rowsRead = func(r int) { read += r }
	const xcoms = "/dags/~/dagRuns/~/taskInstances/~/xcomEntries"
	const all = "&run_after_gte=2000-01-01T00:00:00Z"
	for _, tc := range []struct {
		name, path string
		maxRead    int // 0: none
	}{
		{"first page", "?limit=20", 20},
		{"offset", "?limit=25&offset=100", 125},
		{"last page", "?limit=50&offset=" + strconv.Itoa(n-10), n},
		{"past the end", "?limit=10&offset=" + strconv.Itoa(n+5), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkPageRead(t, ts, &read, http.MethodGet, xcoms+tc.path, "", xcoms+tc.path+all, "", tc.maxRead)
			if want := fmt.Sprintf(`"total_entries":%d}`, n); !strings.HasSuffix(got.body, want) {
				t.Errorf("total: %.200s, want %s", got.body[max(0, len(got.body)-200):], want)
			}
		})
	}
	// The order is Airflow's: the first entries are example_bash_operator's
	// task a, its first run, map_index -1, keys k then return_value.
	first := ts.v2JSON(t, xcoms+"?limit=2")["xcom_entries"]
	if !regexp.MustCompile(`^\[\{"key":"k",.*"map_index":-1,"task_id":"a","dag_id":"example_bash_operator","run_id":"scheduled__2025-01-01T00:00:00\+00:00".*\{"key":"return_value",.*"map_index":-1,"task_id":"a"`).Match(first) {
		t.Errorf("first entries %s", first)
	}
}

// addXComGrid stores five runs of three example DAGs, and for each run
// two tasks × two map indexes × two keys of XCom entries, written out of
// listing order; it returns how many.
func addXComGrid(t *testing.T, store *Store) int {
	t.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, dagID := range []string{"tutorial", "example_bash_operator", "example_python_operator"} {
		row, err := store.DagByID(dagID)
		if err != nil {
			t.Fatal(err)
		}
		addRuns(t, store, row.Def, base, 5, false)
		runs, err := store.RunsOfDag(dagID, "")
		if err != nil {
			t.Fatal(err)
		}
		err = store.update(func(txn *memdb.Txn) error {
			for _, run := range runs {
				for _, task := range []string{"b", "a"} {
					for _, mi := range []int{1, -1} {
						for _, key := range []string{"return_value", "k"} {
							e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: task, RunRowID: run.ID, MapIndex: mi, Key: key,
								Value: json.RawMessage(`1`), Timestamp: base}
							if err := store.putXComTxn(txn, e); err != nil {
								return err
							}
							n++
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestAPIv1_XComs_ReadThePage: 2.10.3's listing of every XCom entry
// shares the store's page: each page is the long way's window (the
// entries XComEntries sorts), reads its rows and those its offset skips,
// and counts every entry.
func TestAPIv1_XComs_ReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	n := addXComGrid(t, ts.store)
	sorted, err := ts.store.XComEntries(XComFilter{})
	if err != nil || len(sorted) != n {
		t.Fatalf("%d entries (%v), want %d", len(sorted), err, n)
	}
	var read int
	ts.store.rowsRead = func(r int) { read += r }
	for _, c := range []struct{ offset, limit int }{{0, 7}, {33, 20}, {n - 3, 10}} {
		read = 0
		res := ts.v1(t, http.MethodGet, fmt.Sprintf("/dags/~/dagRuns/~/taskInstances/~/xcomEntries?offset=%d&limit=%d", c.offset, c.limit), "")
		var got struct {
			Entries []struct {
				DagID    string `json:"dag_id"`
				TaskID   string `json:"task_id"`
				MapIndex int    `json:"map_index"`
				Key      string `json:"key"`
			} `json:"xcom_entries"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != http.StatusOK {
			t.Fatalf("offset %d: %d %s (%v)", c.offset, res.status, res.body, err)
		}
		want := sorted[c.offset:min(c.offset+c.limit, n)]
		if got.Total != n || len(got.Entries) != len(want) {
			t.Fatalf("offset %d: %d entries of %d, want %d of %d", c.offset, len(got.Entries), got.Total, len(want), n)
		}
		for i, e := range got.Entries {
			if w := want[i]; e.DagID != w.DagID || e.TaskID != w.TaskID || e.MapIndex != w.MapIndex || e.Key != w.Key {
				t.Errorf("offset %d entry %d: %+v, want %s/%s/%d/%s", c.offset, i, e, w.DagID, w.TaskID, w.MapIndex, w.Key)
			}
		}
		if read == 0 || read > c.offset+c.limit {
			t.Errorf("offset %d limit %d: read %d rows", c.offset, c.limit, read)
		}
	}
}

// TestImportErrors_ByTimestampReadThePage records 300 failing files over
// ten reads of the folder (the files of a read share its time; some fail
// again later, out of id order) and lists pages by timestamp, either way,
// with a filename pattern, through /api/v2 (ties by id in the key's
// direction: SortParam's primary key) and /api/v1 (ties by id ascending:
// a stable sort of the rows by id), checking through the rowsRead hook
// that a page reads its rows and those its offset skips, not every row
// (both read and sorted every import error), and each answer against the
// sort.
func TestImportErrors_ByTimestampReadThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for read := range 10 {
				failed := map[string]string{}
				var files []string
				for i := range 300 {
					if i%10 == read || (read == 9 && i%7 == 0) {
						name := fmt.Sprintf("/dags/broken_%03d.py", (i*7)%300)
						failed[name] = "Traceback"
						files = append(files, name)
					}
				}
				if err := ts.store.RecordParse(files, failed, base.Add(time.Duration((read*37)%10)*time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
			var rows int
			ts.store.rowsRead = func(n int) { rows += n }
			if e == edition3 {
				for _, tc := range []struct {
					path, sorted string
					maxRead      int
				}{
					{"?limit=20&order_by=timestamp", "?limit=20&order_by=timestamp&order_by=id", 20},
					{"?limit=20&offset=35&order_by=-timestamp", "?limit=20&offset=35&order_by=-timestamp&order_by=-id", 55},
					{"?limit=10&order_by=-timestamp&filename_pattern=broken_1%25", "?limit=10&order_by=-timestamp&order_by=-id&filename_pattern=broken_1%25", 120},
				} {
					t.Run(tc.path, func(t *testing.T) {
						checkPageRead(t, ts, &rows, http.MethodGet, "/importErrors"+tc.path, "", "/importErrors"+tc.sorted, "", tc.maxRead)
					})
				}
				return
			}
			all, err := ts.store.ImportErrors()
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				order         string
				offset, limit int
				maxRead       int
			}{
				// Down the index by time, each time's rows by id
				// ascending (a seek a time).
				{"-timestamp", 35, 20, 55}, {"timestamp", 0, 20, 20}, {"-filename", 10, 10, 20}, {"", 280, 50, 300},
			} {
				t.Run(tc.order, func(t *testing.T) {
					want := slices.Clone(all)
					attr, desc := strings.TrimPrefix(tc.order, "-"), strings.HasPrefix(tc.order, "-")
					slices.SortStableFunc(want, func(a, b *ImportError) int {
						c := cmp.Compare(a.ID, b.ID)
						switch attr {
						case "timestamp":
							c = a.Timestamp.Compare(b.Timestamp)
						case "filename":
							c = strings.Compare(a.Filename, b.Filename)
						}
						if desc {
							return -c
						}
						return c
					})
					want = want[tc.offset:min(tc.offset+tc.limit, len(want))]
					q := v1Values{"offset": {strconv.Itoa(tc.offset)}, "limit": {strconv.Itoa(tc.limit)}}
					if tc.order != "" {
						q["order_by"] = []string{tc.order}
					}
					var got map[string]any
					for range 2 { // the first counts the rows
						rows = 0
						if got, err = ts.srv.V1GetImportErrors(q); err != nil {
							t.Fatal(err)
						}
					}
					var ids, wantIDs []int64
					for _, item := range got["import_errors"].([]any) {
						ids = append(ids, item.(map[string]any)["import_error_id"].(int64))
					}
					for _, e := range want {
						wantIDs = append(wantIDs, e.ID)
					}
					if !slices.Equal(ids, wantIDs) || got["total_entries"] != len(all) {
						t.Errorf("page %v of %v, want %v of %d", ids, got["total_entries"], wantIDs, len(all))
					}
					if rows == 0 || rows > tc.maxRead {
						t.Errorf("read %d rows, want 1 to %d", rows, tc.maxRead)
					}
				})
			}
		})
	}
}
