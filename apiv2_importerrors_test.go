package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// withV2ImportErrors stores test_import_error.py's three import errors
// (ids 1, 2, 3): FILENAME1..3 with their stack traces and timestamps.
func withV2ImportErrors(t *testing.T, ts *testServer) {
	t.Helper()
	for _, e := range []struct {
		file, trace string
		at          time.Time
	}{
		{"test_filename1.py", "test_stacktrace1", time.Date(2024, 6, 15, 1, 0, 0, 0, time.UTC)},
		{"test_filename2.py", "test_stacktrace2", time.Date(2024, 6, 15, 5, 0, 0, 0, time.UTC)},
		{"Lorem_ipsum.py", "Lorem ipsum dolor sit amet, consectetur adipiscing elit.", time.Date(2024, 6, 15, 3, 0, 0, 0, time.UTC)},
	} {
		if err := ts.store.RecordParse([]string{e.file}, map[string]string{e.file: e.trace}, e.at); err != nil {
			t.Fatal(err)
		}
	}
}

// v2ImportErrorJSON is one of withV2ImportErrors' rows as the API answers it.
func v2ImportErrorJSON(id int) string {
	rows := map[int][3]string{
		1: {"2024-06-15T01:00:00Z", "test_filename1.py", "test_stacktrace1"},
		2: {"2024-06-15T05:00:00Z", "test_filename2.py", "test_stacktrace2"},
		3: {"2024-06-15T03:00:00Z", "Lorem_ipsum.py", "Lorem ipsum dolor sit amet, consectetur adipiscing elit."},
	}
	r := rows[id]
	return fmt.Sprintf(`{"import_error_id":%d,"timestamp":%q,"filename":%q,"bundle_name":"dags-folder","stack_trace":%q}`, id, r[0], r[1], r[2])
}

// v2ImportErrorList is a page of withV2ImportErrors' rows.
func v2ImportErrorList(total int, ids ...int) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = v2ImportErrorJSON(id)
	}
	return fmt.Sprintf(`{"import_errors":[%s],"total_entries":%d}`, strings.Join(items, ","), total)
}

// TestAPIv2_ImportErrors follows test_import_error.py (a caller who may
// read every DAG, as airlite's callers are): one error, the list with its
// pagination, order_by and filename_pattern, and the errors.
func TestAPIv2_ImportErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	withV2ImportErrors(t, ts)
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "get 1", path: "/importErrors/1", wantStatus: 200, wantBody: v2ImportErrorJSON(1)},
		{name: "get 2", path: "/importErrors/2", wantStatus: 200, wantBody: v2ImportErrorJSON(2)},
		{name: "get 3, as pydantic reads the int", path: "/importErrors/003", wantStatus: 200, wantBody: v2ImportErrorJSON(3)},
		{name: "get missing", path: "/importErrors/9999", wantStatus: 404,
			wantBody: "{\"detail\":\"The ImportError with import_error_id: `9999` was not found\"}"},
		{name: "get not an int", path: "/importErrors/abc", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["path","import_error_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]}`},
		{name: "list", path: "/importErrors", wantStatus: 200, wantBody: v2ImportErrorList(3, 1, 2, 3)},
		{name: "offset limit 1 1", path: "/importErrors?limit=1&offset=1", wantStatus: 200, wantBody: v2ImportErrorList(3, 2)},
		{name: "offset limit 1 2", path: "/importErrors?limit=1&offset=2", wantStatus: 200, wantBody: v2ImportErrorList(3, 3)},
		{name: "-filename", path: "/importErrors?order_by=-filename", wantStatus: 200, wantBody: v2ImportErrorList(3, 2, 1, 3)},
		{name: "timestamp", path: "/importErrors?order_by=timestamp", wantStatus: 200, wantBody: v2ImportErrorList(3, 1, 3, 2)},
		{name: "import_error_id", path: "/importErrors?order_by=import_error_id", wantStatus: 200, wantBody: v2ImportErrorList(3, 1, 2, 3)},
		{name: "-import_error_id", path: "/importErrors?order_by=-import_error_id", wantStatus: 200, wantBody: v2ImportErrorList(3, 3, 2, 1)},
		{name: "invalid order_by", path: "/importErrors?order_by=invalid_order_by", wantStatus: 400,
			wantBody: `{"detail":"Ordering with 'invalid_order_by' is disallowed or the attribute does not exist on the model"}`},
		{name: "combined 2 1 -filename", path: "/importErrors?limit=2&offset=1&order_by=-filename", wantStatus: 200, wantBody: v2ImportErrorList(3, 1, 3)},
		{name: "combined 1 2 -filename", path: "/importErrors?limit=1&offset=2&order_by=-filename", wantStatus: 200, wantBody: v2ImportErrorList(3, 3)},
		{name: "combined 5 1 timestamp", path: "/importErrors?limit=5&offset=1&order_by=timestamp", wantStatus: 200, wantBody: v2ImportErrorList(3, 3, 2)},
		{name: "two keys", path: "/importErrors?order_by=bundle_name&order_by=-stacktrace", wantStatus: 200, wantBody: v2ImportErrorList(3, 2, 1, 3)},
		{name: "pattern", path: "/importErrors?filename_pattern=test_", wantStatus: 200, wantBody: v2ImportErrorList(2, 1, 2)},
		{name: "pattern case", path: "/importErrors?filename_pattern=LOREM", wantStatus: 200, wantBody: v2ImportErrorList(1, 3)},
		{name: "pattern or", path: "/importErrors?filename_pattern=name2%20|%20ipsum", wantStatus: 200, wantBody: v2ImportErrorList(2, 2, 3)},
		{name: "pattern none", path: "/importErrors?filename_pattern=zzz", wantStatus: 200, wantBody: `{"import_errors":[],"total_entries":0}`},
		{name: "limit 0", path: "/importErrors?limit=0", wantStatus: 200, wantBody: `{"import_errors":[],"total_entries":3}`},
	})
}

// TestV2ImportErrorFilename: a file inside the DAG folder is named by its
// slash path inside it; one outside it, or with no folder, as loaded.
func TestV2ImportErrorFilename(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ folder, file, want string }{
		{"/dags", "/dags/a.py", "a.py"},
		{"/dags", "/dags/sub/b.yaml", "sub/b.yaml"},
		{"/dags", "/dagsx/c.py", "/dagsx/c.py"},
		{"/dags", "/other/d.py", "/other/d.py"},
		{"/dags", "/dags/..x/e.py", "..x/e.py"},
		{"", "/dags/a.py", "/dags/a.py"},
	} {
		if got := v2ImportErrorFilename(tc.folder, tc.file); got != tc.want {
			t.Errorf("v2ImportErrorFilename(%q, %q) = %q, want %q", tc.folder, tc.file, got, tc.want)
		}
	}
}
