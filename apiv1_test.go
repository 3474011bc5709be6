package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// v1Case is one request to the stable API and what must come back.
type v1Case struct {
	name       string
	method     string // GET when empty
	path       string // under /api/v1
	body       string
	header     []string // name/value pairs; a body gets Content-Type JSON unless set
	options    []testOption
	setup      func(t *testing.T, ts *testServer)
	wantStatus int
	// One of: the exact body, the decoded JSON, or a problem document.
	wantRaw     *string
	wantJSON    string // compared after decoding both
	wantProblem *wantProblem
	check       func(t *testing.T, ts *testServer, res response)
}

// wantProblem is a problem document; nil title or detail is JSON null.
type wantProblem struct {
	title, detail any
	typ           string // "" for the status's Airflow link
}

// problemText is the document as connexion writes it, built here by hand
// so that the wire form is checked and not only the fields.
func problemText(status int, p *wantProblem) string {
	typ := p.typ
	if typ == "" {
		typ = v1ErrorsDoc + map[int]string{400: "BadRequest", 401: "Unauthenticated", 403: "PermissionDenied",
			404: "NotFound", 409: "AlreadyExists", 500: "Unknown"}[status]
	}
	str := func(v any) string {
		if v == nil {
			return "null"
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return fmt.Sprintf("{\n  \"detail\": %s,\n  \"status\": %d,\n  \"title\": %s,\n  \"type\": %q\n}\n",
		str(p.detail), status, str(p.title), typ)
}

func runV1Cases(t *testing.T, cases []v1Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2, tc.options...)
			if tc.setup != nil {
				tc.setup(t, ts)
			}
			res := ts.v1(t, tc.method, tc.path, tc.body, tc.header...)
			checkV1Response(t, tc, res)
			if tc.check != nil {
				tc.check(t, ts, res)
			}
		})
	}
}

// v1 sends a request to the stable API; a body is labelled JSON unless
// the header pairs say otherwise.
func (ts *testServer) v1(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	if method == "" {
		method = http.MethodGet
	}
	if body != "" {
		labelled := false
		for i := 0; i+1 < len(header); i += 2 {
			labelled = labelled || strings.EqualFold(header[i], "Content-Type")
		}
		if !labelled {
			header = append(header, "Content-Type", "application/json")
		}
	}
	return ts.do(t, method, apiV1Prefix+path, body, header...)
}

func checkV1Response(t *testing.T, tc v1Case, res response) {
	t.Helper()
	if res.status != tc.wantStatus {
		t.Errorf("status = %d, want %d (body %q)", res.status, tc.wantStatus, res.body)
	}
	switch {
	case tc.wantProblem != nil:
		if want := problemText(tc.wantStatus, tc.wantProblem); res.body != want {
			t.Errorf("body =\n%s\nwant\n%s", res.body, want)
		}
		if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type = %q, want application/problem+json", ct)
		}
	case tc.wantRaw != nil:
		if res.body != *tc.wantRaw {
			t.Errorf("body =\n%q\nwant\n%q", res.body, *tc.wantRaw)
		}
	case tc.wantJSON != "":
		var got, want any
		if err := json.Unmarshal([]byte(res.body), &got); err != nil {
			t.Fatalf("body %q: %v", res.body, err)
		}
		if err := json.Unmarshal([]byte(tc.wantJSON), &want); err != nil {
			t.Fatalf("wantJSON %q: %v", tc.wantJSON, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("body =\n%s\nwant\n%s", res.body, tc.wantJSON)
		}
		if ct := res.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
	}
}

// TestServerV1_Framework covers what connexion does before an endpoint:
// routing, strict query validation, pagination checks, auth and the
// problem documents. Airflow 2.10.3 airflow/www/extensions/init_views.py:280
// (strict_validation=True) and airflow/api_connexion/exceptions.py:31.
func TestServerV1_Framework(t *testing.T) {
	t.Parallel()
	const version = "{\n  \"git_version\": \".release:c99887ec11ce3e1a43f2794fcf36d27555140f00\",\n  \"version\": \"2.10.3\"\n}\n"
	runV1Cases(t, []v1Case{
		{name: "version, indented as connexion writes", path: "/version", wantStatus: 200, wantRaw: strPtr(version)},
		{name: "health without a scheduler", path: "/health", wantStatus: 200,
			wantJSON: `{"dag_processor": {"latest_dag_processor_heartbeat": null, "status": null},
				"metadatabase": {"status": "healthy"},
				"scheduler": {"latest_scheduler_heartbeat": null, "status": "unhealthy"},
				"triggerer": {"latest_triggerer_heartbeat": null, "status": null}}`},
		{name: "health with a scheduler", path: "/health", wantStatus: 200,
			options: []testOption{withOptions(func(o *serverOptions) {
				o.SchedulerHeartbeat = func() (time.Time, bool) { return testNow, true }
			})},
			check: func(t *testing.T, _ *testServer, res response) {
				if !strings.Contains(res.body, `"latest_scheduler_heartbeat": "2024-05-01T10:00:00.123456+00:00"`) ||
					!strings.Contains(res.body, `"status": "healthy"`) {
					t.Errorf("body %s: want a healthy scheduler beating now", res.body)
				}
			}},
		// Airflow 2.10.3 tests/api_connexion/endpoints/test_config_endpoint.py:216
		{name: "config refused as expose_config = False", path: "/config", header: []string{"Accept", "application/json"},
			wantStatus: 403, wantProblem: &wantProblem{title: "Forbidden",
				detail: "Your Airflow administrator chose not to expose the configuration, most likely for security reasons."}},
		{name: "config with */*", path: "/config", header: []string{"Accept", "*/*"}, wantStatus: 403,
			wantProblem: &wantProblem{title: "Forbidden",
				detail: "Your Airflow administrator chose not to expose the configuration, most likely for security reasons."}},
		// Airflow 2.10.3 tests/api_connexion/endpoints/test_config_endpoint.py:193
		{name: "config not acceptable", path: "/config", header: []string{"Accept", "application/octet-stream"},
			wantStatus: 406, wantRaw: strPtr("")},
		// Airflow 2.10.3 airflow/api_connexion/endpoints/config_endpoint.py
		// get_value: the same Accept check, then the same refusal.
		{name: "config option refused", path: "/config/section/core/option/dags_folder", header: []string{"Accept", "text/plain"},
			wantStatus: 403, wantProblem: &wantProblem{title: "Forbidden",
				detail: "Your Airflow administrator chose not to expose the configuration, most likely for security reasons."}},
		{name: "config option not acceptable", path: "/config/section/core/option/dags_folder",
			header: []string{"Accept", "application/octet-stream"}, wantStatus: 406, wantRaw: strPtr("")},
		// import_error_endpoint.py:48-54
		{name: "import error by id", path: "/importErrors/007", wantStatus: 404,
			wantProblem: &wantProblem{title: "Import error not found", detail: "The ImportError with import_error_id: `7` was not found"}},
		{name: "providers", path: "/providers", wantStatus: 200, wantRaw: strPtr("{\n  \"providers\": [],\n  \"total_entries\": 0\n}\n")},
		{name: "plugins", path: "/plugins?limit=5&offset=0", wantStatus: 200, wantJSON: `{"plugins": [], "total_entries": 0}`},
		{name: "import errors", path: "/importErrors?order_by=-filename", wantStatus: 200, wantJSON: `{"import_errors": [], "total_entries": 0}`},
		{name: "dag warnings", path: "/dagWarnings?dag_id=x&warning_type=y", wantStatus: 200, wantJSON: `{"dag_warnings": [], "total_entries": 0}`},
		// Airflow 2.10.3 airflow/api_connexion/parameters.py:95 (apply_sorting)
		{name: "order_by not allowed", path: "/importErrors?order_by=-stacktrace", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'stacktrace' is disallowed or the attribute does not exist on the model"}},
		// connexion 2.14 decorators/validation.py (strict_validation)
		{name: "unknown query parameter", path: "/plugins?limit=1&bogus=1&also=2", wantStatus: 400,
			wantProblem: &wantProblem{title: nil, detail: "Extra query parameter(s) also, bogus not in spec"}},
		{name: "no query parameters at all on version", path: "/version?x=1", wantStatus: 400,
			wantProblem: &wantProblem{title: nil, detail: "Extra query parameter(s) x not in spec"}},
		{name: "limit not an integer", path: "/plugins?limit=ten", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Wrong type, expected 'integer' for query parameter 'limit'"}},
		{name: "offset below its minimum", path: "/plugins?offset=-1", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "-1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema:\n    {'type': 'integer', 'minimum': 0}\n\nOn instance:\n    -1"}},
		// Airflow 2.10.3 airflow/api_connexion/parameters.py:62 (check_limit)
		{name: "negative limit", path: "/plugins?limit=-1", wantStatus: 400,
			wantProblem: &wantProblem{title: "Page limit must be a positive integer", detail: nil}},
		{name: "unknown path", path: "/nothing", wantStatus: 404, wantProblem: &wantProblem{title: "Not Found", typ: "about:blank",
			detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."}},
		{name: "trailing slash", path: "/version/", wantStatus: 404, wantProblem: &wantProblem{title: "Not Found", typ: "about:blank",
			detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."}},
		{name: "wrong method", method: "DELETE", path: "/version", wantStatus: 405, wantProblem: &wantProblem{title: "Method Not Allowed",
			typ: "about:blank", detail: "The method is not allowed for the requested URL."}},
		{name: "options", method: "OPTIONS", path: "/version", wantStatus: 200, wantRaw: strPtr(""),
			check: func(t *testing.T, _ *testServer, res response) {
				// Flask's empty OPTIONS Response is text/html, as the
				// real Airflow 2.10.3 answered.
				if got := res.header.Get("Content-Type"); got != "text/html; charset=utf-8" {
					t.Errorf("Content-Type = %q, want Flask's text/html", got)
				}
				if got := res.header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
					t.Errorf("Allow = %q", got)
				}
			}},
		{name: "head", method: "HEAD", path: "/version", wantStatus: 200, wantRaw: strPtr("")},
		// Airflow 2.10.3 airflow/api_connexion/security.py:48 (check_authentication)
		{name: "basic_auth without credentials", path: "/plugins", options: []testOption{withAuth(authBasic, "admin:secret\n")},
			wantStatus: 401, wantProblem: &wantProblem{title: "Unauthorized", detail: nil},
			check: func(t *testing.T, _ *testServer, res response) {
				if got := res.header.Get("WWW-Authenticate"); got != "Basic" {
					t.Errorf("WWW-Authenticate = %q, want Basic", got)
				}
			}},
		// A browser's session cookie is no credential to basic_auth: it reads
		// request.authorization only (Airflow 2.10.3
		// airflow/providers/fab/auth_manager/api/auth/backend/basic_auth.py:43-47, :60-68).
		{name: "basic_auth with a session cookie alone", path: "/plugins", options: []testOption{withAuth(authBasic, "admin:secret\n")},
			header: []string{"Cookie", "session=eyJfZnJlc2giOmZhbHNlfQ.ZkLmPA.abc"}, wantStatus: 401, wantProblem: &wantProblem{title: "Unauthorized", detail: nil}},
		{name: "basic_auth with credentials", path: "/plugins", options: []testOption{withAuth(authBasic, "admin:secret\n")},
			header: []string{"Authorization", "Basic YWRtaW46c2VjcmV0"}, wantStatus: 200, wantJSON: `{"plugins": [], "total_entries": 0}`},
		{name: "deny_all is a 401 here", path: "/providers", options: []testOption{withAuth(authDenyAll, "")},
			wantStatus: 401, wantProblem: &wantProblem{title: "Unauthorized", detail: nil},
			check: func(t *testing.T, _ *testServer, res response) {
				if got := res.header.Get("WWW-Authenticate"); got != "" {
					t.Errorf("WWW-Authenticate = %q, want none", got)
				}
			}},
		{name: "validation comes before auth", path: "/plugins?x=1", options: []testOption{withAuth(authDenyAll, "")},
			wantStatus: 400, wantProblem: &wantProblem{title: nil, detail: "Extra query parameter(s) x not in spec"}},
		{name: "health and version need no auth", path: "/version", options: []testOption{withAuth(authDenyAll, "")},
			wantStatus: 200, wantRaw: strPtr(version)},
		{name: "cross-site browser request refused", path: "/version", header: []string{"Sec-Fetch-Site", "cross-site"},
			wantStatus: 403, check: func(t *testing.T, _ *testServer, res response) {
				if ct := res.header.Get("Content-Type"); ct != "application/problem+json" || !strings.Contains(res.body, "cross-site request refused") {
					t.Errorf("refusal %q (%s): want a problem document", res.body, ct)
				}
			}},
	})
}

// TestServerV1_NotInAirflow1 checks that the 1.10 editions have no stable
// API: Airflow 1.10 answers its usual 404 (docs/behaviour.md §1.5).
func TestServerV1_NotInAirflow1(t *testing.T) {
	t.Parallel()
	for _, e := range airflow1 {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			res := ts.do(t, http.MethodGet, apiV1Prefix+"/version", "")
			want := errorBody(e, "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.")
			if res.status != 404 || res.body != want {
				t.Errorf("%d %q, want 404 %q", res.status, res.body, want)
			}
		})
	}
}

// TestServerV1_Journal checks that /_airlite/requests records stable-API
// requests.
func TestServerV1_Journal(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Journal = newJournal(10) }))
	ts.v1(t, "GET", "/version", "")
	res := ts.do(t, "GET", "/_airlite/requests", "")
	if !strings.Contains(res.body, `"/api/v1/version"`) {
		t.Errorf("journal %s: want the /api/v1/version request", res.body)
	}
}

func TestAppendIndented(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`{"a":[],"b":{"c":"x,y:{}"},"d":[1,2]}`, "{\n  \"a\": [],\n  \"b\": {\n    \"c\": \"x,y:{}\"\n  },\n  \"d\": [\n    1,\n    2\n  ]\n}"},
		{`{"q":"a\"b\\"}`, "{\n  \"q\": \"a\\\"b\\\\\"\n}"},
	} {
		if got := string(appendIndented(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendIndented(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
