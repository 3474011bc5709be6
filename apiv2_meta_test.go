package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// v2GroupCase is one request of a v2 route group and its exact answer.
type v2GroupCase struct {
	name       string
	method     string // GET when empty
	path       string // under /api/v2
	body       string
	header     []string
	wantStatus int
	wantBody   string
	wantType   string // the Content-Type; application/json when empty
}

// runV2GroupCases sends each case to ts and compares status, body and
// Content-Type.
func runV2GroupCases(t *testing.T, ts *testServer, cases []v2GroupCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Helper()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			res := ts.do(t, method, apiV2Prefix+tc.path, tc.body, tc.header...)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("%s %s =\n %d %s\nwant\n %d %s", method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
			wantType := tc.wantType
			if wantType == "" {
				wantType = "application/json"
			}
			if got := res.header.Get("Content-Type"); got != wantType {
				t.Errorf("Content-Type %q, want %q", got, wantType)
			}
		})
	}
}

const (
	v2ForbiddenConfig = `{"detail":"Your Airflow administrator chose not to expose the configuration, most likely for security reasons."}`
	v2NotAcceptable   = `{"detail":"Only application/json or text/plain is supported"}`
)

// TestAPIv2_Config follows test_config.py with expose_config off, Airflow
// 3's default: every request is refused, after the Accept header's check.
func TestAPIv2_Config(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "no accept", path: "/config", wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "json", path: "/config", header: []string{"Accept", "application/json"}, wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "json utf8", path: "/config", header: []string{"Accept", "application/json; charset=utf-8"}, wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "any", path: "/config", header: []string{"Accept", "*/*"}, wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "text", path: "/config", header: []string{"Accept", "text/plain"}, wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "section", path: "/config?section=core", wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "section not existing", path: "/config?section=not_exist_section", wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "invalid accept", path: "/config", header: []string{"Accept", "invalid"}, wantStatus: 406, wantBody: v2NotAcceptable},
		// The header's start decides, not its best match.
		{name: "html first", path: "/config", header: []string{"Accept", "text/html, application/json"}, wantStatus: 406, wantBody: v2NotAcceptable},
		{name: "option", path: "/config/section/core/option/parallelism", wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "option text", path: "/config/section/smtp/option/smtp_host", header: []string{"Accept", "text/plain"}, wantStatus: 403, wantBody: v2ForbiddenConfig},
		{name: "option invalid accept", path: "/config/section/core/option/parallelism", header: []string{"Accept", "invalid"},
			wantStatus: 406, wantBody: v2NotAcceptable},
		{name: "post", method: "POST", path: "/config", wantStatus: 405, wantBody: `{"detail":"Method Not Allowed"}`},
	})
}

// TestAPIv2_PluginsAndProviders follows test_plugins.py and
// test_providers.py for a deployment with neither: empty collections,
// their pagination parameters checked.
func TestAPIv2_PluginsAndProviders(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "plugins", path: "/plugins", wantStatus: 200, wantBody: `{"plugins":[],"total_entries":0}`},
		{name: "plugins page", path: "/plugins?limit=1&offset=1", wantStatus: 200, wantBody: `{"plugins":[],"total_entries":0}`},
		{name: "plugins negative limit", path: "/plugins?limit=-1", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{name: "plugin import errors", path: "/plugins/importErrors", wantStatus: 200, wantBody: `{"import_errors":[],"total_entries":0}`},
		{name: "providers", path: "/providers", wantStatus: 200, wantBody: `{"providers":[],"total_entries":0}`},
		{name: "providers page", path: "/providers?limit=5&offset=0", wantStatus: 200, wantBody: `{"providers":[],"total_entries":0}`},
		{name: "providers bad offset", path: "/providers?offset=x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["query","offset"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
	})
}

// TestAPIv2_DagWarnings follows dag_warning.py list_dag_warnings: no DAG
// of airlite's has a warning, and the filters and order are checked.
func TestAPIv2_DagWarnings(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	const empty = `{"dag_warnings":[],"total_entries":0}`
	const types = `'asset conflict', 'non-existent pool' or 'runtime varying value'`
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "all", path: "/dagWarnings", wantStatus: 200, wantBody: empty},
		{name: "filters", path: "/dagWarnings?dag_id=tutorial&warning_type=non-existent%20pool&limit=1", wantStatus: 200, wantBody: empty},
		{name: "order", path: "/dagWarnings?order_by=-timestamp&order_by=message", wantStatus: 200, wantBody: empty},
		{name: "bad type", path: "/dagWarnings?warning_type=bogus", wantStatus: 422,
			wantBody: `{"detail":[{"type":"enum","loc":["query","warning_type"],"msg":"Input should be ` + types + `","input":"bogus","ctx":{"expected":"` + types + `"}}]}`},
		{name: "bad order", path: "/dagWarnings?order_by=bogus", wantStatus: 400,
			wantBody: `{"detail":"Ordering with 'bogus' is disallowed or the attribute does not exist on the model"}`},
	})
}

// TestAPIv2_Jobs follows test_job.py for airlite's one job, its scheduler,
// listed as Airflow lists a running SchedulerJob (and no job while the
// scheduler is off or before its first pass, as /monitor/health has no
// heartbeat then).
func TestAPIv2_Jobs(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	beat := testNow.Add(-5 * time.Second)
	scheduler := func(last time.Time, running bool) testOption {
		return withOptions(func(o *serverOptions) {
			o.SchedulerHeartbeat = func() (time.Time, bool) { return last, running }
			o.SchedulerJob = schedulerJobInfo{Start: start, Hostname: "airlite-host"}
		})
	}
	const job = `{"id":1,"dag_id":null,"state":"running","job_type":"SchedulerJob","start_date":"2024-05-01T09:00:00Z","end_date":null,` +
		`"latest_heartbeat":"2024-05-01T09:59:55.123456Z","executor_class":null,"hostname":"airlite-host","unixname":"airflow","dag_display_name":null}`
	const one, none = `{"jobs":[` + job + `],"total_entries":1}`, `{"jobs":[],"total_entries":0}`
	t.Run("scheduler off", func(t *testing.T) {
		t.Parallel()
		runV2GroupCases(t, newTestServer(t, edition3), []v2GroupCase{{name: "list", path: "/jobs", wantStatus: 200, wantBody: none}})
	})
	t.Run("before the first pass", func(t *testing.T) {
		t.Parallel()
		runV2GroupCases(t, newTestServer(t, edition3, scheduler(time.Time{}, true)), []v2GroupCase{{name: "list", path: "/jobs", wantStatus: 200, wantBody: none}})
	})
	t.Run("running", func(t *testing.T) {
		t.Parallel()
		runV2GroupCases(t, newTestServer(t, edition3, scheduler(beat, true)), []v2GroupCase{
			{name: "list", path: "/jobs", wantStatus: 200, wantBody: one},
			{name: "type", path: "/jobs?job_type=SchedulerJob&job_state=running&hostname=airlite-host", wantStatus: 200, wantBody: one},
			{name: "other type", path: "/jobs?job_type=TriggererJob", wantStatus: 200, wantBody: none},
			{name: "other host", path: "/jobs?hostname=HOSTNAME", wantStatus: 200, wantBody: none},
			{name: "executor class", path: "/jobs?executor_class=LocalExecutor", wantStatus: 200, wantBody: none},
			{name: "started after", path: "/jobs?start_date_gte=2024-05-01T09:00:00Z&start_date_lt=2024-05-02", wantStatus: 200, wantBody: one},
			{name: "started later", path: "/jobs?start_date_gt=2024-05-01T09:00:00Z", wantStatus: 200, wantBody: none},
			// A job without an end date ends now in the range (3.2.1's
			// datetime_range_filter_factory compares COALESCE(end_date,
			// now()); apache/airflow#66696, in 3.2.2, lets a NULL pass
			// any lower bound).
			{name: "no end date, ends by a later date", path: "/jobs?end_date_lte=2030-01-01T00:00:00Z", wantStatus: 200, wantBody: one},
			{name: "no end date, ends after an earlier date", path: "/jobs?end_date_gte=2024-05-01T10:00:00Z", wantStatus: 200, wantBody: one},
			{name: "no end date, ends after a later date", path: "/jobs?end_date_gt=2030-01-01T00:00:00Z", wantStatus: 200, wantBody: none},
			{name: "no end date, ends before now", path: "/jobs?end_date_lt=2024-05-01T10:00:00Z", wantStatus: 200, wantBody: none},
			{name: "alive", path: "/jobs?is_alive=true", wantStatus: 200, wantBody: one},
			// get_jobs keeps the alive jobs whatever is_alive says.
			{name: "not alive", path: "/jobs?is_alive=false", wantStatus: 200, wantBody: one},
			{name: "order", path: "/jobs?order_by=-latest_heartbeat&order_by=hostname", wantStatus: 200, wantBody: one},
			{name: "page past", path: "/jobs?offset=1", wantStatus: 200, wantBody: `{"jobs":[],"total_entries":1}`},
			{name: "limit 0", path: "/jobs?limit=0", wantStatus: 200, wantBody: `{"jobs":[],"total_entries":1}`},
			{name: "bad order", path: "/jobs?order_by=nope", wantStatus: 400,
				wantBody: `{"detail":"Ordering with 'nope' is disallowed or the attribute does not exist on the model"}`},
			// The dependencies' parameters first (the date range), then
			// get_jobs' own (is_alive).
			{name: "bad filters", path: "/jobs?is_alive=maybe&start_date_gte=x", wantStatus: 422,
				wantBody: `{"detail":[{"type":"datetime_from_date_parsing","loc":["query","start_date_gte"],"msg":"Input should be a valid datetime or date, input is too short","input":"x","ctx":{"error":"input is too short"}},` +
					`{"type":"bool_parsing","loc":["query","is_alive"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`},
		})
	})
	t.Run("heartbeat late", func(t *testing.T) {
		t.Parallel()
		late := `{"jobs":[` + `{"id":1,"dag_id":null,"state":"running","job_type":"SchedulerJob","start_date":"2024-05-01T09:00:00Z","end_date":null,` +
			`"latest_heartbeat":"2024-05-01T09:30:00Z","executor_class":null,"hostname":"airlite-host","unixname":"airflow","dag_display_name":null}],"total_entries":1}`
		runV2GroupCases(t, newTestServer(t, edition3, scheduler(time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC), true)), []v2GroupCase{
			{name: "listed", path: "/jobs", wantStatus: 200, wantBody: late},
			{name: "not alive", path: "/jobs?is_alive=true", wantStatus: 200, wantBody: `{"jobs":[],"total_entries":1}`},
		})
	})
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition3, scheduler(beat, false))
		res := ts.do(t, http.MethodGet, apiV2Prefix+"/jobs?job_state=success", "")
		if got := decodeJSON[map[string]any](t, res.body)["total_entries"]; got != float64(1) {
			t.Errorf("a stopped scheduler's job in state success: %s", res.body)
		}
	})
}

// TestAPIv2_MetaRoutesNeedAToken checks that the routes of this group
// stand behind Airflow 3's token check, which FastAPI runs before the
// Accept header's dependency and before the parameters are validated.
func TestAPIv2_MetaRoutesNeedAToken(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	const refused = `{"detail":"Not authenticated"}`
	for _, path := range []string{"/config", "/config/section/core/option/x", "/plugins?limit=-1", "/plugins/importErrors",
		"/providers", "/jobs?is_alive=x", "/dagWarnings?warning_type=x", "/importErrors", "/importErrors/x", "/eventLogs?order_by=x",
		"/eventLogs/1", "/dagSources/tutorial?version_number=x", "/dagStats"} {
		res := ts.do(t, http.MethodGet, apiV2Prefix+path, "", "Accept", "text/html")
		if res.status != http.StatusUnauthorized || res.body != refused {
			t.Errorf("GET %s without a token = %d %s, want 401 %s", path, res.status, res.body, refused)
		}
	}
	if res := ts.do(t, http.MethodGet, apiV2Prefix+"/plugins", "", ts.bearer(t, "ann")...); res.status != http.StatusOK {
		t.Errorf("GET /plugins with a token = %d %s, want 200", res.status, res.body)
	}
}

// TestAPIv2_Health_FollowsTheHeartbeat reads /monitor/health while the
// scheduler's heartbeat moves and stops: the answer, rendered once per
// heartbeat and liveness, is each time the one for the heartbeat of the
// moment (monitor.py get_health over airflow_health.py).
func TestAPIv2_Health_FollowsTheHeartbeat(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	beat, running := time.Time{}, true
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) {
		o.SchedulerHeartbeat = func() (time.Time, bool) {
			mu.Lock()
			defer mu.Unlock()
			return beat, running
		}
	}))
	const nobody = `,"triggerer":{"status":null,"latest_triggerer_heartbeat":null},"dag_processor":{"status":null,"latest_dag_processor_heartbeat":null}}`
	answer := func(status, beat string) string {
		return `{"metadatabase":{"status":"healthy"},"scheduler":{"status":"` + status + `","latest_scheduler_heartbeat":` + beat + `}` + nobody
	}
	for _, step := range []struct {
		name    string
		beat    time.Time
		running bool
		want    string
	}{
		{"no heartbeat yet", time.Time{}, true, answer("unhealthy", "null")},
		{"a heartbeat", testNow.Add(-time.Second), true, answer("healthy", `"2024-05-01T09:59:59.123456+00:00"`)},
		{"the same again", testNow.Add(-time.Second), true, answer("healthy", `"2024-05-01T09:59:59.123456+00:00"`)},
		{"the next", testNow.Add(-time.Second / 2), true, answer("healthy", `"2024-05-01T09:59:59.623456+00:00"`)},
		{"stopped", testNow.Add(-time.Second / 2), false, answer("unhealthy", `"2024-05-01T09:59:59.623456+00:00"`)},
		{"too old", testNow.Add(-time.Hour), true, answer("unhealthy", `"2024-05-01T09:00:00.123456+00:00"`)},
		{"none again", time.Time{}, true, answer("unhealthy", "null")},
	} {
		mu.Lock()
		beat, running = step.beat, step.running
		mu.Unlock()
		for range 2 {
			res := ts.do(t, http.MethodGet, "/api/v2/monitor/health", "")
			if res.status != 200 || res.body != step.want {
				t.Errorf("%s: %d %s\nwant %s", step.name, res.status, res.body, step.want)
			}
		}
	}
}

// TestAPIv2_DagWarnings_NonexistentPools: a DAG whose tasks name pools
// that do not exist has one "non-existent pool" warning (the DAG
// processor's _create_dag_warnings: the missing names sorted, as Python's
// repr of the list), timestamped when the DAG was parsed; creating the
// warnPoolsDAG is a DAG whose tasks name two pools that do not exist
// (zeta, alpha) and the default pool.
const warnPoolsDAG = `
dag_id: warn_pools
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: a, operator: EmptyOperator, pool: zeta}
  - {task_id: b, operator: EmptyOperator, pool: alpha}
  - {task_id: c, operator: EmptyOperator}
`

// pools clears it; a stale DAG has none (purge_inactive_dag_warnings).
func TestAPIv2_DagWarnings_NonexistentPools(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(warnPoolsDAG))
	var parsed string
	{
		d := decodeJSON[map[string]any](t, ts.v2(t, "GET", "/dags/warn_pools", "", 200).body)
		parsed, _ = d["last_parsed_time"].(string)
	}
	warning := `{"dag_id":"warn_pools","warning_type":"non-existent pool","message":"Dag 'warn_pools' references non-existent pools: ['alpha', 'zeta']",` +
		`"timestamp":"` + parsed + `","dag_display_name":"warn_pools"}`
	one := `{"dag_warnings":[` + warning + `],"total_entries":1}`
	const empty = `{"dag_warnings":[],"total_entries":0}`
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "all", path: "/dagWarnings", wantStatus: 200, wantBody: one},
		{name: "by dag", path: "/dagWarnings?dag_id=warn_pools", wantStatus: 200, wantBody: one},
		{name: "other dag", path: "/dagWarnings?dag_id=tutorial", wantStatus: 200, wantBody: empty},
		{name: "by type", path: "/dagWarnings?warning_type=non-existent%20pool", wantStatus: 200, wantBody: one},
		{name: "other type", path: "/dagWarnings?warning_type=asset%20conflict", wantStatus: 200, wantBody: empty},
		{name: "page past it", path: "/dagWarnings?offset=1", wantStatus: 200, wantBody: `{"dag_warnings":[],"total_entries":1}`},
	})
	ts.v2(t, "POST", "/pools", `{"name": "alpha", "slots": 1}`, 201, "Content-Type", "application/json")
	halved := strings.Replace(one, `['alpha', 'zeta']`, `['zeta']`, 1)
	if res := ts.v2(t, "GET", "/dagWarnings", "", 200); res.body != halved {
		t.Errorf("after creating alpha: %s\nwant %s", res.body, halved)
	}
	ts.v2(t, "POST", "/pools", `{"name": "zeta", "slots": 1}`, 201, "Content-Type", "application/json")
	if res := ts.v2(t, "GET", "/dagWarnings", "", 200); res.body != empty {
		t.Errorf("after creating both pools: %s", res.body)
	}
}

// TestAPIv2_DagWarnings_AirflowOrders: test_dag_warning.py's lists
// (c57fba0e test_dag_warning.py:73-105): three DAGs with one warning
// each, filtered, paged and ordered; ties (one parse time) fall to the
// primary key's dag_id, descending after a descending first key
// (SortParam.to_orm, common/parameters.py:323-328).
func TestAPIv2_DagWarnings_AirflowOrders(t *testing.T) {
	t.Parallel()
	var opts []testOption
	for _, n := range []string{"1", "2", "3"} {
		opts = append(opts, withDAG(strings.NewReplacer("warn_pools", "test_dag"+n, "zeta", "p"+n, "alpha", "p"+n).Replace(warnPoolsDAG)))
	}
	ts := newTestServer(t, edition3, append([]testOption{withExamplesOnly()}, opts...)...)
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"", "1 2 3"},
		{"?dag_id=test_dag1", "1"},
		{"?warning_type=non-existent%20pool", "1 2 3"},
		{"?limit=1&order_by=message", "1"},
		{"?limit=1&offset=1&order_by=message", "2"},
		{"?limit=1&offset=2&order_by=dag_id", "3"},
		{"?limit=1&offset=2&order_by=-dag_id", "1"},
		{"?limit=1&order_by=timestamp", "1"},
		{"?limit=1&order_by=-timestamp", "3"},
		{"?order_by=timestamp", "1 2 3"},
		{"?order_by=-timestamp", "3 2 1"},
		{"?order_by=dag_id", "1 2 3"},
		{"?order_by=-dag_id", "3 2 1"},
	} {
		res := ts.v2(t, "GET", "/dagWarnings"+tc.query, "", 200)
		var c struct {
			Warnings []struct {
				DagID   string `json:"dag_id"`
				Message string `json:"message"`
			} `json:"dag_warnings"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &c); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range c.Warnings {
			got = append(got, strings.TrimPrefix(w.DagID, "test_dag"))
		}
		wantTotal := 3
		if strings.Contains(tc.query, "dag_id=") {
			wantTotal = 1
		}
		if strings.Join(got, " ") != tc.want || c.Total != wantTotal {
			t.Errorf("dagWarnings%s = %v of %d (%s), want %s", tc.query, got, c.Total, res.body, tc.want)
		}
	}
	if res := ts.do(t, "GET", "/api/v2/dagWarnings?warning_type=invalid", ""); res.status != 422 ||
		!strings.Contains(res.body, `"msg":"Input should be 'asset conflict', 'non-existent pool' or 'runtime varying value'"`) {
		t.Errorf("bad warning_type = %d %s", res.status, res.body)
	}
}
