package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// testNow is the fixed clock of every API test: a time with microseconds,
// so that the replace_microseconds rules show.
var testNow = time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC)

const testUnixname = "airflow"

var (
	allEditions = []edition{edition2, edition110, edition110RBAC}
	airflow1    = []edition{edition110, edition110RBAC}
	airflow2    = []edition{edition2}
)

// testServer is one airlite server with its own state.
type testServer struct {
	*httptest.Server
	srv     *server
	store   *Store
	dags    *DAGSet
	edition edition
}

// testSetup is what options change before the server is built.
type testSetup struct {
	opts  serverOptions
	extra []string // YAML definitions added to the embedded set
	// extraOwn are definitions read with the server's edition's rules
	// (withOwnDAG), added after extra.
	extraOwn []string
	pools    []*Pool // fixture pools (as a pools.yaml would give)
	notReady bool
	runLimit RunLimit // --max-runs-per-dag and --run-retention
	limits   Limits   // --max-pools, --max-dags, --max-conf-bytes-total
}

type testOption func(t *testing.T, s *testSetup)

// withAuth selects an auth backend; users, when not empty, is written to a
// users file.
func withAuth(backend, users string) testOption {
	return func(t *testing.T, s *testSetup) {
		t.Helper()
		file := ""
		if users != "" {
			file = filepath.Join(t.TempDir(), "users")
			if err := os.WriteFile(file, []byte(users), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		a, err := newAuthenticator(backend, file)
		if err != nil {
			t.Fatalf("newAuthenticator(%s): %v", backend, err)
		}
		s.opts.Auth = a
	}
}

// withDAG adds a definition to the embedded examples.
func withDAG(yamlText string) testOption {
	return func(t *testing.T, s *testSetup) { s.extra = append(s.extra, yamlText) }
}

// withOwnDAG adds a definition read with the server edition's rules,
// for keys only some editions take (withDAG reads as edition 2).
func withOwnDAG(yamlText string) testOption {
	return func(t *testing.T, s *testSetup) { s.extraOwn = append(s.extraOwn, yamlText) }
}

// withFixturePools adds pools as a pools.yaml beside the definitions would.
func withFixturePools(pools ...*Pool) testOption {
	return func(t *testing.T, s *testSetup) { s.pools = append(s.pools, pools...) }
}

// withOptions changes the server options directly.
func withOptions(fn func(*serverOptions)) testOption {
	return func(t *testing.T, s *testSetup) { fn(&s.opts) }
}

// withExamplesOnly keeps the embedded examples named (and their files),
// for tests whose lists and counts were written against those: the
// examples an edition embeds grow, and such a test need not follow.
func withExamplesOnly(dagIDs ...string) testOption {
	return func(t *testing.T, s *testSetup) {
		t.Helper()
		set := *s.opts.DAGs
		set.DAGs, set.Files = nil, nil
		for _, id := range dagIDs {
			i := slices.IndexFunc(s.opts.DAGs.DAGs, func(d *DAG) bool { return d.DagID == id })
			if i < 0 {
				t.Fatalf("withExamplesOnly: no example %q", id)
			}
			d := s.opts.DAGs.DAGs[i]
			set.DAGs = append(set.DAGs, d)
			for _, f := range s.opts.DAGs.Files {
				if filepath.Base(f) == filepath.Base(d.FilePath) {
					set.Files = append(set.Files, f)
				}
			}
		}
		slices.SortFunc(set.DAGs, func(a, b *DAG) int { return strings.Compare(a.DagID, b.DagID) })
		s.opts.DAGs = &set
	}
}

// firstExamples3 are the examples edition 3 embedded first, which the
// listing tests of /api/v2/dags were written against.
var firstExamples3 = []string{"example_bash_operator", "example_python_operator", "example_simplest_dag", "example_trigger_target_dag", "tutorial"}

// withExamplesPaused pauses the embedded examples, so that their scheduled
// runs (the tutorial's sleep 5 among them) do not run beside a test that
// brings its own DAGs to a real scheduler.
func withExamplesPaused() testOption {
	return func(t *testing.T, s *testSetup) {
		for _, d := range s.opts.DAGs.DAGs {
			d.IsPausedUponCreation = true
		}
	}
}

// notReady leaves the server in its starting state.
func notReady() testOption {
	return func(t *testing.T, s *testSetup) { s.notReady = true }
}

// testExamplesReadAt is when newTestServer reads the examples: 1.10's
// start on days_ago(2) of it (2014-12-30), before every date the tests
// trigger at, as if airlite had been started long before testNow.
var testExamplesReadAt = time.Date(2015, 1, 1, 10, 0, 0, 0, time.UTC)

// newTestServer starts an airlite server for one edition, with the
// edition's embedded example DAGs read at testExamplesReadAt, the "default"
// auth backend, a fixed clock and no scheduler.
func newTestServer(t *testing.T, e edition, options ...testOption) *testServer {
	t.Helper()
	dags, err := loadExampleDAGs(e.rules(), testExamplesReadAt)
	if err != nil {
		t.Fatalf("loadExampleDAGs: %v", err)
	}
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		t.Fatal(err)
	}
	setup := &testSetup{opts: serverOptions{
		Edition: e, DAGs: dags, Auth: auth,
		Logger:   zerolog.New(zerolog.NewTestWriter(t)),
		Now:      func() time.Time { return testNow },
		Unixname: testUnixname,
		// As main sets it for a loopback listener, which httptest's is.
		Browser: browserPolicy{HostCheck: true},
	}}
	for _, o := range options {
		o(t, setup)
	}
	dags = setup.opts.DAGs // withOptions may bring its own set
	for i, text := range slices.Concat(setup.extra, setup.extraOwn) {
		rules := edition2.rules()
		if i >= len(setup.extra) {
			rules = e.rules()
		}
		d, err := parseDAGFor([]byte(text), time.Now(), rules)
		if err != nil {
			t.Fatalf("parseDAG: %v", err)
		}
		d.FilePath = "testdata/" + d.DagID + ".yaml"
		dags.DAGs = append(dags.DAGs, d)
	}
	dags.Pools = append(dags.Pools, setup.pools...)
	store := storeWith(t, dags)
	store.SetRunLimit(setup.runLimit)
	store.SetLimits(setup.limits)
	setup.opts.Store = store
	srv, err := newServer(setup.opts)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	ts := startHTTPTestServer(t, srv.routes(), e)
	if !setup.notReady {
		srv.ready.Store(true)
	}
	return &testServer{Server: ts, srv: srv, store: store, dags: dags, edition: e}
}

// startHTTPTestServer serves h on loopback as main serves the edition:
// with Werkzeug's status lines where the edition has them.
func startHTTPTestServer(t *testing.T, h http.Handler, e edition) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	if e.rules().werkzeugReasons {
		ts.Listener = capitalReasons(ts.Config, ts.Listener)
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// response is what a request got back.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request; header holds name/value pairs. It follows
// redirects.
func (ts *testServer) do(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	return ts.send(t, ts.Client(), method, path, body, header...)
}

// doNoRedirect is do answered by the first response, redirects included.
func (ts *testServer) doNoRedirect(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return ts.send(t, &client, method, path, body, header...)
}

func (ts *testServer) send(t *testing.T, client *http.Client, method, path, body string, header ...string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, r)
	if err != nil {
		t.Fatalf("new request %s %s: %v", method, path, err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// trigger posts a trigger request that must succeed and returns its answer.
func (ts *testServer) trigger(t *testing.T, dagID, body string) map[string]any {
	t.Helper()
	res := ts.do(t, http.MethodPost, apiPrefix+"/dags/"+dagID+"/dag_runs", body)
	if res.status != http.StatusOK {
		t.Fatalf("trigger %s %s: status %d, body %s", dagID, body, res.status, res.body)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.body), &out); err != nil {
		t.Fatalf("trigger %s: %v in %q", dagID, err, res.body)
	}
	return out
}

// insertBareDag adds a DagModel row with no definition, as Airflow keeps
// rows of DAG files that are gone.
func (ts *testServer) insertBareDag(t *testing.T, dagID string) {
	t.Helper()
	err := ts.store.update(func(txn *memdb.Txn) error {
		return txn.Insert(tableDags, &DagRow{DagID: dagID})
	})
	if err != nil {
		t.Fatalf("insert bare dag %s: %v", dagID, err)
	}
}

// addExperimentalPools sets up the pools of Airflow's pool tests (fixture
// A.1): default_pool (id 1), experimental_1 (id 2), experimental_2 (id 3).
func (ts *testServer) addExperimentalPools(t *testing.T) {
	t.Helper()
	for _, p := range []struct {
		name  string
		slots int64
	}{{"experimental_1", 0}, {"experimental_2", 1}} {
		desc := p.name
		if _, err := ts.store.UpsertPool(p.name, p.slots, &desc); err != nil {
			t.Fatalf("UpsertPool %s: %v", p.name, err)
		}
	}
}

// setTaskState stores a task instance in a new state.
func (ts *testServer) setTaskState(t *testing.T, dagID, runID, taskID string, state TaskState) {
	t.Helper()
	ti, err := ts.store.TaskInstance(dagID, runID, taskID)
	if err != nil {
		t.Fatalf("TaskInstance %s/%s/%s: %v", dagID, runID, taskID, err)
	}
	changed := *ti
	changed.State = state
	if err := ts.store.UpsertTaskInstance(&changed); err != nil {
		t.Fatal(err)
	}
}

func (ts *testServer) poolCount(t *testing.T) int {
	t.Helper()
	pools, err := ts.store.Pools()
	if err != nil {
		t.Fatal(err)
	}
	return len(pools)
}

// wire renders compact JSON the way the edition writes it: Airflow 1.10
// (Flask 1.1) as it is plus a newline, Airflow 2 with ", " and ": " and no
// newline. It works on the text, independently of the code under test.
func wire(e edition, compact string) string {
	if e.isAirflow1() {
		return compact + "\n"
	}
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		b.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// errorBody is Airflow's {"error": msg} with msg given as JSON string
// content (already escaped).
func errorBody(e edition, escapedMsg string) string {
	return wire(e, `{"error":"`+escapedMsg+`"}`)
}

func TestWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    edition
		in   string
		want string
	}{
		{edition2, `{"a":[1,2],"b":"x, y: z \"q,:\" \\"}`, `{"a": [1, 2], "b": "x, y: z \"q,:\" \\"}`},
		{edition110, `{"a":[1,2]}`, "{\"a\":[1,2]}\n"},
	}
	for _, tc := range tests {
		if got := wire(tc.e, tc.in); got != tc.want {
			t.Errorf("wire(%s, %s) = %s, want %s", tc.e, tc.in, got, tc.want)
		}
	}
}

// httpCase is one request against a fresh server of each listed edition.
type httpCase struct {
	name     string
	editions []edition // nil: all
	options  []testOption
	setup    func(t *testing.T, ts *testServer)
	method   string // GET when empty
	path     string // below /api/experimental unless it starts with /_ or /api/
	body     string
	header   []string

	wantStatus int
	// wantBody is the exact body in compact form, rendered per edition by
	// wire; wantError is shorthand for {"error": wantError}.
	wantBody  string
	wantError string
	// wantRaw is the exact body as it is (no edition rendering).
	wantRaw *string
	// wantCrash: a 500 with a JSON {"error": …} body (where Airflow has an
	// unhandled exception, airlite says what was wrong).
	wantCrash bool
	// wantFields are top-level values of a JSON object body.
	wantFields   map[string]any
	wantType     string
	wantContains []string
	wantAbsent   []string
	check        func(t *testing.T, ts *testServer, res response)
}

func strPtr(s string) *string { return &s }

func runCases(t *testing.T, cases []httpCase) {
	t.Helper()
	for _, tc := range cases {
		editions := tc.editions
		if editions == nil {
			editions = allEditions
		}
		for _, e := range editions {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ts := newTestServer(t, e, tc.options...)
				if tc.setup != nil {
					tc.setup(t, ts)
				}
				method := tc.method
				if method == "" {
					method = http.MethodGet
				}
				path := tc.path
				if !strings.HasPrefix(path, "/_") && !strings.HasPrefix(path, "/api/") {
					path = apiPrefix + path
				}
				res := ts.do(t, method, path, tc.body, tc.header...)
				checkResponse(t, e, tc, res)
				if tc.check != nil {
					tc.check(t, ts, res)
				}
			})
		}
	}
}

func checkResponse(t *testing.T, e edition, tc httpCase, res response) {
	t.Helper()
	wantStatus := tc.wantStatus
	if wantStatus == 0 && !tc.wantCrash {
		t.Fatal("the case sets no expected status")
	}
	if tc.wantCrash {
		wantStatus = http.StatusInternalServerError
	}
	if res.status != wantStatus {
		t.Errorf("status = %d, want %d (body %q)", res.status, wantStatus, res.body)
	}
	wantType := tc.wantType
	switch {
	case tc.wantBody != "":
		if want := wire(e, tc.wantBody); res.body != want {
			t.Errorf("body =\n%q\nwant\n%q", res.body, want)
		}
		if wantType == "" {
			wantType = "application/json"
		}
	case tc.wantError != "":
		if want := errorBody(e, tc.wantError); res.body != want {
			t.Errorf("body =\n%q\nwant\n%q", res.body, want)
		}
		if wantType == "" {
			wantType = "application/json"
		}
	case tc.wantCrash:
		var body map[string]any
		if err := json.Unmarshal([]byte(res.body), &body); err != nil {
			t.Errorf("crash body %q is not JSON: %v", res.body, err)
		} else if msg, ok := body["error"].(string); !ok || msg == "" || len(body) != 1 {
			t.Errorf("crash body %q: want only a non-empty error", res.body)
		}
		if wantType == "" {
			wantType = "application/json"
		}
	}
	if tc.wantRaw != nil && res.body != *tc.wantRaw {
		t.Errorf("body =\n%q\nwant\n%q", res.body, *tc.wantRaw)
	}
	if wantType != "" {
		if got := res.header.Get("Content-Type"); got != wantType {
			t.Errorf("Content-Type = %q, want %q", got, wantType)
		}
	}
	if tc.wantFields != nil {
		got := decodeJSON[map[string]any](t, res.body)
		for k, v := range tc.wantFields {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
	}
	for _, s := range tc.wantContains {
		if !strings.Contains(res.body, s) {
			t.Errorf("body %q does not contain %q", res.body, s)
		}
	}
	for _, s := range tc.wantAbsent {
		if strings.Contains(res.body, s) {
			t.Errorf("body %q contains %q", res.body, s)
		}
	}
}

// decodeJSON decodes a response body, failing the test when it is not JSON.
func decodeJSON[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
	return v
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkAllStrings fails unless every value of an info object is a string,
// and returns the object.
func checkAllStrings(t *testing.T, body string) map[string]string {
	t.Helper()
	raw := decodeJSON[map[string]any](t, body)
	out := map[string]string{}
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			t.Errorf("value of %q is %T (%v), want a string", k, v, v)
		}
		out[k] = s
	}
	return out
}

func checkKeys(t *testing.T, got map[string]string, want []string) {
	t.Helper()
	sort.Strings(want)
	if keys := sortedMapKeys(got); !reflect.DeepEqual(keys, want) {
		t.Errorf("keys =\n%v\nwant\n%v", keys, want)
	}
}

func checkValues(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// docs/behaviour.md §3.5: the key sets of task info for a BashOperator.
var (
	taskInfoKeys1 = []string{"bash_command", "depends_on_past", "do_xcom_push", "email", "email_on_failure",
		"email_on_retry", "end_date", "env", "execution_timeout", "executor_config", "inlets", "lineage_data",
		"max_retry_delay", "on_failure_callback", "on_retry_callback", "on_success_callback", "outlets",
		"output_encoding", "owner", "params", "pool", "pool_slots", "priority_weight", "queue", "resources",
		"retries", "retry_delay", "retry_exponential_backoff", "run_as_user", "sla", "start_date", "sub_process",
		"subdag", "task_concurrency", "task_id", "trigger_rule", "wait_for_downstream", "weight_rule",
		"xcom_push_flag"}
	taskInfoKeys2 = []string{"allow_nested_operators", "bash_command", "cwd", "depends_on_past", "do_xcom_push",
		"doc", "doc_json", "doc_md", "doc_rst", "doc_yaml", "downstream_task_ids", "email", "email_on_failure",
		"email_on_retry", "end_date", "env", "execution_timeout", "executor", "executor_config",
		"ignore_first_depends_on_past", "inlets", "map_index_template", "max_active_tis_per_dag",
		"max_active_tis_per_dagrun", "max_retry_delay", "multiple_outputs", "on_execute_callback",
		"on_failure_callback", "on_retry_callback", "on_skipped_callback", "on_success_callback",
		"operator_extra_links", "outlets", "owner", "params", "pool", "pool_slots", "priority_weight", "queue",
		"resources", "retries", "retry_delay", "retry_exponential_backoff", "run_as_user", "sla", "start_date",
		"start_from_trigger", "start_trigger_args", "task_group", "task_id", "template_ext", "template_fields",
		"template_fields_renderers", "trigger_rule", "ui_color", "ui_fgcolor", "upstream_task_ids",
		"wait_for_downstream", "wait_for_past_depends_before_skipping", "weight_rule"}
)

// B. Task info.
func TestServer_TaskInfo(t *testing.T) {
	t.Parallel()
	stable := map[string]string{ // docs/behaviour.md §3.5, "Stable values": stable in every edition
		"email": "None", "task_id": "runme_0", "pool": "default_pool", "queue": "default",
		"retries": "0", "retry_delay": "0:05:00", "trigger_rule": "all_success", "end_date": "None",
		"bash_command": `echo "{{ task_instance_key_str }}" && sleep 1`,
	}
	// Each release's example_bash_operator: 1.10.15's default_args set owner
	// "Airflow" and start_date days_ago(2) (airflow/example_dags/example_bash_operator.py:28-31),
	// 2.10.3's DAG starts on 2021-01-01 (airflow/example_dags/example_bash_operator.py:33).
	example1 := map[string]string{"owner": "Airflow", "start_date": "2014-12-30 00:00:00+00:00"}
	example2 := map[string]string{"owner": "airflow", "start_date": "2021-01-01 00:00:00+00:00"}
	runCases(t, []httpCase{
		{name: "B1 runme_0 key set", editions: airflow1, path: "/dags/example_bash_operator/tasks/runme_0",
			wantStatus: 200, wantType: "application/json", wantContains: []string{`"email"`}, wantAbsent: []string{"error"},
			check: func(t *testing.T, ts *testServer, res response) {
				info := checkAllStrings(t, res.body)
				checkKeys(t, info, taskInfoKeys1)
				checkValues(t, info, stable)
				checkValues(t, info, example1)
				checkValues(t, info, map[string]string{"weight_rule": "downstream", "output_encoding": "utf-8",
					"subdag": "None", "env": "None", "email_on_failure": "True", "depends_on_past": "False"})
			}},
		{name: "B1 runme_0 key set", editions: airflow2, path: "/dags/example_bash_operator/tasks/runme_0",
			wantStatus: 200, wantType: "application/json", wantContains: []string{`"email"`}, wantAbsent: []string{"error"},
			check: func(t *testing.T, ts *testServer, res response) {
				info := checkAllStrings(t, res.body)
				checkKeys(t, info, taskInfoKeys2)
				checkValues(t, info, stable)
				checkValues(t, info, example2)
				checkValues(t, info, map[string]string{
					"params":                    "{'example_key': 'example_value'}",
					"downstream_task_ids":       "{'run_after_loop'}",
					"upstream_task_ids":         "set()",
					"template_fields":           "['bash_command', 'env', 'cwd']",
					"template_ext":              "['.sh', '.bash']",
					"template_fields_renderers": "{'bash_command': 'bash', 'env': 'json'}",
					"ui_color":                  "#f0ede4", "ui_fgcolor": "#000", "operator_extra_links": "()",
					"ignore_first_depends_on_past": "True", "start_trigger_args": "None",
					"start_from_trigger": "False",
				})
				checkDeprecationHeaders(t, edition2, res.header)
			}},
		{name: "run_this_last sets", editions: airflow2, path: "/dags/example_bash_operator/tasks/run_this_last",
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				info := checkAllStrings(t, res.body)
				checkValues(t, info, map[string]string{
					"upstream_task_ids":   "{'also_run_this', 'run_after_loop', 'this_will_skip'}",
					"downstream_task_ids": "set()", "ui_color": "#e8f7e4", "template_fields": "[]",
				})
				if _, ok := info["bash_command"]; ok {
					t.Error("an EmptyOperator has no bash_command")
				}
			}},
		// Observed from the real Airflow 2.10.3: a SubDagOperator writes white
		// on grey (airflow/operators/subdag.py:78-79), a PythonOperator names
		// its template fields (airflow/operators/python.py:192-193).
		{name: "SubDagOperator colours", editions: airflow2, path: "/dags/example_subdag_operator/tasks/section-1", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				// and, a sensor, its deps (a set: sorted here, §5) and reschedule
				checkValues(t, checkAllStrings(t, res.body), map[string]string{"ui_color": "#555", "ui_fgcolor": "#fff",
					"subdag": "<DAG: example_subdag_operator.section-1>", "reschedule": "False",
					"deps": "{<TIDep(Mapped dependencies have succeeded)>, <TIDep(Not In Retry Period)>, <TIDep(Not Previously Skipped)>, " +
						"<TIDep(Previous Dagrun State)>, <TIDep(Ready To Reschedule)>, <TIDep(Trigger Rule)>}"})
			}},
		{name: "PythonOperator template fields", editions: airflow2, path: "/dags/example_python_operator/tasks/print_the_context", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				checkValues(t, checkAllStrings(t, res.body), map[string]string{
					"template_fields":           "['templates_dict', 'op_args', 'op_kwargs']",
					"template_fields_renderers": "{'templates_dict': 'json', 'op_args': 'py', 'op_kwargs': 'py'}",
					"ui_fgcolor":                "#000",
				})
			}},
		{name: "default_args and task overrides", path: "/dags/tutorial/tasks/sleep", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				checkValues(t, checkAllStrings(t, res.body), map[string]string{
					"email": "['airflow@example.com']", "email_on_failure": "False", "email_on_retry": "False",
					"retries": "3", "retry_delay": "0:05:00", "depends_on_past": "False", "bash_command": "sleep 5",
				})
			}},
		// 1.10.15's task info lists the operator's instance attributes
		// (airflow/www/api/experimental/endpoints.py:177-180): doc_md only
		// where the file sets it (tutorial.py:94); Airflow 2 lists it always.
		{name: "doc_md set", path: "/dags/tutorial/tasks/print_date", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				info := checkAllStrings(t, res.body)
				if info["doc_md"] != airliteDocMD {
					t.Errorf("doc_md = %q", info["doc_md"])
				}
			}},
		{name: "doc_md not set", editions: airflow1, path: "/dags/tutorial/tasks/sleep", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				if _, ok := checkAllStrings(t, res.body)["doc_md"]; ok {
					t.Error("doc_md listed for a task that has none")
				}
			}},
		{name: "B2 unknown task", editions: airflow1, path: "/dags/example_bash_operator/tasks/DNE",
			wantStatus: 404, wantError: "Task DNE not found in dag example_bash_operator"},
		{name: "B3 unknown task", path: "/dags/example_bash_operator/tasks/does-not-exist",
			wantStatus: 404, wantError: "Task does-not-exist not found in dag example_bash_operator"},
		{name: "B4 unknown dag", path: "/dags/DNE/tasks/DNE",
			wantStatus: 404, wantError: "Dag id DNE not found in DagModel"},
		{name: "B5 unknown dag", path: "/dags/does-not-exist/tasks/does-not-exist",
			wantStatus: 404, wantError: "Dag id does-not-exist not found in DagModel"},
		{name: "dag without definition", path: "/dags/my_dag_id/tasks/x",
			setup:      func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			wantStatus: 404, wantError: "Dag id my_dag_id not found"},
	})
}

// C. DAG code.
func TestServer_GetDagCode(t *testing.T) {
	t.Parallel()
	runCases(t, []httpCase{
		{name: "C1 source", path: "/dags/example_bash_operator/code", wantStatus: 200,
			wantType: "text/html; charset=utf-8", wantContains: []string{"BashOperator(", "example_bash_operator"},
			check: func(t *testing.T, ts *testServer, res response) {
				checkDeprecationHeaders(t, ts.edition, res.header)
				checkCodeHeaders(t, ts, res)
			}},
		// No .py beside the embedded examples: airlite writes each as a DAG
		// file of the edition's release would read.
		{name: "rendered in the release's idiom", editions: airflow2, path: "/dags/example_bash_operator/code", wantStatus: 200,
			wantContains: []string{"rendered by airlite from fixtures/2.10.3/example_bash_operator.yaml",
				"from airflow.operators.bash import BashOperator\n", "from airflow.operators.empty import EmptyOperator\n",
				"    schedule='0 0 * * *',\n", "    start_date=pendulum.datetime(2021, 1, 1, tz=\"UTC\"),\n"}},
		{name: "rendered in the release's idiom", editions: airflow1, path: "/dags/example_bash_operator/code", wantStatus: 200,
			wantContains: []string{"rendered by airlite from fixtures/1.10.15/example_bash_operator.yaml",
				"from airflow.operators.bash_operator import BashOperator\n", "from airflow.operators.dummy_operator import DummyOperator\n",
				"from airflow.utils.dates import days_ago\n", "    schedule_interval='0 0 * * *',\n",
				"    default_args={'owner': 'Airflow', 'start_date': days_ago(2)},\n"},
			wantAbsent: []string{"pendulum", "schedule="}},
		{name: "C2 unknown dag", path: "/dags/xyz/code", wantStatus: 404, wantError: "Dag id xyz not found in DagModel",
			check: checkCodeHeaders},
		{name: "dag without definition", path: "/dags/my_dag_id/code",
			setup:      func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			wantStatus: 404, wantError: "Dag id my_dag_id not found", check: checkCodeHeaders},
		{name: "HEAD has no body", method: http.MethodHead, path: "/dags/example_bash_operator/code",
			wantStatus: 200, wantType: "text/html; charset=utf-8", wantRaw: strPtr(""), check: checkCodeHeaders},
	})
}

// checkCodeHeaders checks that a /code answer, source text labelled
// text/html as Flask labels it, is never sniffed and, opened in a
// browser, runs sandboxed.
func checkCodeHeaders(t *testing.T, _ *testServer, res response) {
	t.Helper()
	for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"} {
		if got := res.header.Values(name); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// D. Pause and unpause.
func TestServer_DagPaused(t *testing.T) {
	t.Parallel()
	const dag = "/dags/example_bash_operator"
	setPaused := func(value string) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			t.Helper()
			res := ts.do(t, http.MethodGet, apiPrefix+dag+"/paused/"+value, "")
			if want := wire(ts.edition, `{"response":"ok"}`); res.status != 200 || res.body != want {
				t.Fatalf("paused/%s: %d %q, want 200 %q", value, res.status, res.body, want)
			}
		}
	}
	then := func(steps ...func(t *testing.T, ts *testServer)) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			for _, s := range steps {
				s(t, ts)
			}
		}
	}
	runCases(t, []httpCase{
		{name: "D1 pause", path: dag + "/paused/true", wantStatus: 200, wantBody: `{"response":"ok"}`,
			check: func(t *testing.T, ts *testServer, res response) {
				checkDeprecationHeaders(t, ts.edition, res.header)
				if row, _ := ts.store.DagByID("example_bash_operator"); !row.IsPaused {
					t.Error("DAG not paused")
				}
			}},
		{name: "fresh DAG is not paused", path: dag + "/paused", wantStatus: 200, wantBody: `{"is_paused":false}`},
		{name: "D2 paused after true", setup: setPaused("true"), path: dag + "/paused",
			wantStatus: 200, wantBody: `{"is_paused":true}`},
		{name: "D3 D4 unpaused after false", setup: then(setPaused("true"), setPaused("false")), path: dag + "/paused",
			wantStatus: 200, wantBody: `{"is_paused":false}`},
		{name: "D5 True unpauses", setup: then(setPaused("true"), setPaused("True")), path: dag + "/paused",
			wantStatus: 200, wantBody: `{"is_paused":false}`},
		{name: "D5 1 unpauses", setup: then(setPaused("true"), setPaused("1")), path: dag + "/paused",
			wantStatus: 200, wantBody: `{"is_paused":false}`},
		{name: "D6 unknown dag is_paused", path: "/dags/nope/paused", wantCrash: true},
		{name: "D6 unknown dag pause", path: "/dags/nope/paused/true", wantCrash: true},
		{name: "bare row is_paused", path: "/dags/my_dag_id/paused",
			setup:      func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			wantStatus: 200, wantBody: `{"is_paused":false}`},
		// 1.10 classic loads the DAG file to pause its sub-DAGs too.
		{name: "bare row pause crashes", editions: []edition{edition110}, path: "/dags/my_dag_id/paused/true",
			setup: func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") }, wantCrash: true},
		{name: "bare row pause", editions: []edition{edition2, edition110RBAC}, path: "/dags/my_dag_id/paused/true",
			setup:      func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			wantStatus: 200, wantBody: `{"response":"ok"}`},
		{name: "sub-DAGs paused with parent", editions: []edition{edition2, edition110},
			path: "/dags/example_subdag_operator/paused/true", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				for _, id := range []string{"example_subdag_operator", "example_subdag_operator.section-1", "example_subdag_operator.section-2"} {
					if row, _ := ts.store.DagByID(id); !row.IsPaused {
						t.Errorf("%s not paused", id)
					}
				}
			}},
		{name: "rbac pauses one row", editions: []edition{edition110RBAC},
			path: "/dags/example_subdag_operator/paused/true", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				if row, _ := ts.store.DagByID("example_subdag_operator"); !row.IsPaused {
					t.Error("parent not paused")
				}
				if row, _ := ts.store.DagByID("example_subdag_operator.section-1"); row.IsPaused {
					t.Error("sub-DAG paused; 1.10 RBAC updates only the one row")
				}
			}},
	})
}

// startDateDAG has a default_args start_date, which trigger checks.
const startDateDAG = `
dag_id: start_date_check
schedule_interval: null
start_date: 2010-01-01T00:00:00+00:00
default_args:
  start_date: 2016-09-05T10:10:00Z
tasks:
  - {task_id: only, operator: EmptyOperator}
`

// E. Trigger.
func TestServer_TriggerDAG(t *testing.T) {
	t.Parallel()
	const (
		path  = "/dags/example_bash_operator/dag_runs"
		myRun = "my_run2024-05-01T10:00:00.123456+00:00"
		// D is NOW + 1 hour with microseconds (E.2).
		D = "2024-05-01T11:00:00.654321+00:00"
	)
	// runAt checks that the DAG has a run at an instant, with a run_id.
	runAt := func(dagID string, date time.Time, runID string) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			run, err := ts.store.RunByDate(dagID, date)
			if err != nil {
				t.Fatalf("no run of %s at %s: %v", dagID, date, err)
			}
			if run.RunID != runID {
				t.Errorf("run_id = %q, want %q", run.RunID, runID)
			}
			if !run.ExternalTrigger {
				t.Error("external_trigger is false")
			}
		}
	}
	confIs := func(runID, want string) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			run, err := ts.store.RunByRunID("example_bash_operator", runID)
			if err != nil {
				t.Fatalf("run %s: %v", runID, err)
			}
			if string(run.Conf) != want {
				t.Errorf("conf = %q, want %q", run.Conf, want)
			}
		}
	}
	noRuns := func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		runs, err := ts.store.RunsOfDag("example_bash_operator", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 0 {
			t.Errorf("%d runs created, want none", len(runs))
		}
	}
	triggered := func(body string) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) { ts.trigger(t, "example_bash_operator", body) }
	}
	nowDate := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	dDate := time.Date(2024, 5, 1, 11, 0, 0, 654321000, time.UTC)
	msg2 := func(date, runID string) string {
		return "Created <DagRun example_bash_operator @ " + date + ": " + runID +
			", state:queued, queued_at: 2024-05-01 10:00:00.123456+00:00. externally triggered: True>"
	}
	msg1 := func(date, runID string) string {
		return "Created <DagRun example_bash_operator @ " + date + ": " + runID + ", externally triggered: True>"
	}
	body := func(date, msg, runID string) string {
		return `{"execution_date":"` + date + `","message":"` + msg + `","run_id":"` + runID + `"}`
	}
	const gen = "manual__2024-05-01T10:00:00+00:00"
	runIDError := `The provided run ID 'my run' is invalid. It does not match either the configured pattern: ` +
		`'^[A-Za-z0-9_.~:+-]+$' or the built-in pattern: ` +
		`'^(?:manual|scheduled|dataset_triggered)__(?:\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00)$'`

	runCases(t, []httpCase{
		// E.1
		{name: "E1 run_id microseconds zeroed", editions: airflow2, method: "POST", path: path,
			body: `{"run_id": "` + myRun + `"}`, wantStatus: 200,
			wantBody: body("2024-05-01T10:00:00+00:00", msg2("2024-05-01 10:00:00+00:00", myRun), myRun),
			check: func(t *testing.T, ts *testServer, res response) {
				runAt("example_bash_operator", nowDate, myRun)(t, ts, res)
				checkDeprecationHeaders(t, edition2, res.header)
			}},
		{name: "E1 run_id microseconds zeroed", editions: airflow1, method: "POST", path: path,
			body: `{"run_id": "` + myRun + `"}`, wantStatus: 200,
			wantBody: body("2024-05-01T10:00:00+00:00", msg1("2024-05-01 10:00:00+00:00", myRun), myRun),
			check:    runAt("example_bash_operator", nowDate, myRun)},
		{name: "E2 unknown dag", method: "POST", path: "/dags/does_not_exist_dag/dag_runs", body: `{}`,
			wantStatus: 404, wantError: "Dag id does_not_exist_dag not found in DagModel"},
		{name: "E3 string conf", editions: airflow2, method: "POST", path: path,
			body: `{"conf": "This is a string not a dict"}`, wantStatus: 400, check: noRuns,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		{name: "conf null", editions: airflow2, method: "POST", path: path, body: `{"conf": null}`, wantStatus: 400,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		{name: "conf array", editions: airflow2, method: "POST", path: path, body: `{"conf": [1]}`, wantStatus: 400,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		{name: "conf number", editions: airflow2, method: "POST", path: path, body: `{"conf": 3}`, wantStatus: 400,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		// The conf check comes before the date check in Airflow 2.
		{name: "conf checked before date", editions: airflow2, method: "POST", path: path,
			body: `{"conf": "x", "execution_date": "nope"}`, wantStatus: 400,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		{name: "E4 dict conf", editions: airflow2, method: "POST", path: path,
			body: `{"run_id": "` + myRun + `", "conf": {"param": "value"}}`, wantStatus: 200,
			wantBody: body("2024-05-01T10:00:00+00:00", msg2("2024-05-01 10:00:00+00:00", myRun), myRun),
			check:    confIs(myRun, `{"param":"value"}`)},
		// E.2
		{name: "E5 date keeps microseconds", editions: airflow2, method: "POST", path: path,
			body: `{"execution_date": "` + D + `"}`, wantStatus: 200,
			wantBody: body(D, msg2("2024-05-01 11:00:00.654321+00:00", "manual__"+D), "manual__"+D),
			check:    runAt("example_bash_operator", dDate, "manual__"+D)},
		{name: "E5 date keeps microseconds", editions: airflow1, method: "POST", path: path,
			body: `{"execution_date": "` + D + `"}`, wantStatus: 200,
			wantBody: body(D, msg1(D, "manual__"+D), "manual__"+D),
			check:    runAt("example_bash_operator", dDate, "manual__"+D)},
		{name: "E6 replace_microseconds true", method: "POST", path: path,
			body: `{"execution_date": "` + D + `", "replace_microseconds": "true"}`, wantStatus: 200,
			wantFields: map[string]any{"execution_date": "2024-05-01T11:00:00+00:00", "run_id": "manual__2024-05-01T11:00:00+00:00"},
			check: func(t *testing.T, ts *testServer, res response) {
				runAt("example_bash_operator", dDate.Truncate(time.Second), "manual__2024-05-01T11:00:00+00:00")(t, ts, res)
			}},
		{name: "replace_microseconds false without date", method: "POST", path: path,
			body: `{"replace_microseconds": "false"}`, wantStatus: 200,
			wantFields: map[string]any{"run_id": "manual__2024-05-01T10:00:00.123456+00:00", "execution_date": "2024-05-01T10:00:00.123456+00:00"},
			check:      runAt("example_bash_operator", testNow, "manual__2024-05-01T10:00:00.123456+00:00")},
		{name: "replace_microseconds YES", method: "POST", path: path,
			body: `{"execution_date": "` + D + `", "replace_microseconds": "YES"}`, wantStatus: 200,
			wantFields: map[string]any{"run_id": "manual__2024-05-01T11:00:00+00:00"}},
		{name: "replace_microseconds on", editions: airflow2, method: "POST", path: path,
			body: `{"execution_date": "` + D + `", "replace_microseconds": "on"}`, wantStatus: 200,
			wantFields: map[string]any{"run_id": "manual__2024-05-01T11:00:00+00:00"}},
		{name: "replace_microseconds on is false", editions: airflow1, method: "POST", path: path,
			body: `{"execution_date": "` + D + `", "replace_microseconds": "on"}`, wantStatus: 200,
			wantFields: map[string]any{"run_id": "manual__" + D}},
		{name: "replace_microseconds null", editions: airflow2, method: "POST", path: path,
			body: `{"replace_microseconds": null}`, wantStatus: 200,
			wantFields: map[string]any{"run_id": "manual__2024-05-01T10:00:00.123456+00:00"}},
		{name: "replace_microseconds null crashes", editions: airflow1, method: "POST", path: path,
			body: `{"replace_microseconds": null}`, wantCrash: true, check: noRuns},
		{name: "replace_microseconds boolean", method: "POST", path: path,
			body: `{"replace_microseconds": true}`, wantCrash: true, check: noRuns},
		{name: "replace_microseconds number", method: "POST", path: path,
			body: `{"replace_microseconds": 1}`, wantCrash: true, check: noRuns},
		{name: "E7 unknown dag with date", method: "POST", path: "/dags/does_not_exist_dag/dag_runs",
			body: `{"execution_date": "` + D + `"}`, wantStatus: 404,
			wantError: "Dag id does_not_exist_dag not found in DagModel"},
		{name: "E8 bad date", method: "POST", path: path, body: `{"execution_date": "not_a_datetime"}`,
			wantStatus: 400, check: noRuns,
			wantError: "Given execution date, not_a_datetime, could not be identified as a date. Example date format: 2015-11-16T14:34:15+00:00"},
		{name: "bad date checked before dag", method: "POST", path: "/dags/nope/dag_runs",
			body: `{"execution_date": "not_a_datetime"}`, wantStatus: 400,
			wantError: "Given execution date, not_a_datetime, could not be identified as a date. Example date format: 2015-11-16T14:34:15+00:00"},
		{name: "execution_date number", method: "POST", path: path, body: `{"execution_date": 20240501}`, wantCrash: true},
		{name: "execution_date null means now", method: "POST", path: path, body: `{"execution_date": null}`,
			wantStatus: 200, wantContains: []string{gen}},
		// Client offsets are echoed; the run is stored in UTC.
		{name: "client offset", editions: airflow2, method: "POST", path: path,
			body: `{"execution_date": "2016-11-16T14:34:15+02:00"}`, wantStatus: 200,
			wantBody: body("2016-11-16T14:34:15+02:00",
				"Created <DagRun example_bash_operator @ 2016-11-16 14:34:15+02:00: manual__2016-11-16T14:34:15+02:00, state:queued, queued_at: 2024-05-01 10:00:00.123456+00:00. externally triggered: True>",
				"manual__2016-11-16T14:34:15+02:00"),
			check: runAt("example_bash_operator", time.Date(2016, 11, 16, 12, 34, 15, 0, time.UTC), "manual__2016-11-16T14:34:15+02:00")},
		{name: "client offset", editions: airflow1, method: "POST", path: path,
			body: `{"execution_date": "2016-11-16T14:34:15+02:00"}`, wantStatus: 200,
			wantBody: body("2016-11-16T14:34:15+02:00",
				"Created <DagRun example_bash_operator @ 2016-11-16T14:34:15+02:00: manual__2016-11-16T14:34:15+02:00, externally triggered: True>",
				"manual__2016-11-16T14:34:15+02:00"),
			check: runAt("example_bash_operator", time.Date(2016, 11, 16, 12, 34, 15, 0, time.UTC), "manual__2016-11-16T14:34:15+02:00")},
		{name: "naive date is UTC", method: "POST", path: path, body: `{"execution_date": "2016-11-16 14:34:15"}`,
			wantStatus: 200, wantContains: []string{"manual__2016-11-16T14:34:15+00:00"}},
		// E.3
		{name: "E9 duplicate run_id", editions: airflow2, method: "POST", path: path,
			setup: triggered(`{"run_id": "dup1"}`),
			body:  `{"run_id": "dup1", "execution_date": "2024-05-02T00:00:00+00:00"}`, wantStatus: 400,
			wantError: "A DAG Run already exists for DAG example_bash_operator at 2024-05-02 00:00:00+00:00 with run id dup1"},
		{name: "E9 duplicate run_id", editions: airflow1, method: "POST", path: path,
			setup: triggered(`{"run_id": "dup1"}`),
			body:  `{"run_id": "dup1", "execution_date": "2024-05-02T00:00:00+00:00"}`, wantStatus: 400,
			wantError: "Run id dup1 already exists for dag id example_bash_operator"},
		{name: "E10 duplicate date", editions: airflow2, method: "POST", path: path,
			setup: triggered(`{"run_id": "first", "execution_date": "2024-05-02T00:00:00+00:00"}`),
			body:  `{"run_id": "second", "execution_date": "2024-05-02T02:00:00+02:00"}`, wantStatus: 400,
			wantError: "A DAG Run already exists for DAG example_bash_operator at 2024-05-02 02:00:00+02:00 with run id second"},
		{name: "E10 duplicate date", editions: airflow1, method: "POST", path: path,
			setup: triggered(`{"run_id": "first", "execution_date": "2024-05-02T00:00:00+00:00"}`),
			body:  `{"run_id": "second", "execution_date": "2024-05-02T00:00:00+00:00"}`, wantCrash: true},
		{name: "two bare triggers in one second", editions: airflow2, method: "POST", path: path,
			setup: triggered(`{}`), body: `{}`, wantStatus: 400,
			wantError: "A DAG Run already exists for DAG example_bash_operator at 2024-05-01 10:00:00+00:00 with run id " + gen},
		{name: "two bare triggers in one second", editions: airflow1, method: "POST", path: path,
			setup: triggered(`{}`), body: `{}`, wantStatus: 400,
			wantError: "Run id " + gen + " already exists for dag id example_bash_operator"},
		{name: "run_id and date match two runs", editions: airflow2, method: "POST", path: path,
			setup: func(t *testing.T, ts *testServer) {
				triggered(`{"run_id": "a", "execution_date": "2024-05-02T00:00:00+00:00"}`)(t, ts)
				triggered(`{"run_id": "b", "execution_date": "2024-05-03T00:00:00+00:00"}`)(t, ts)
			},
			body: `{"run_id": "a", "execution_date": "2024-05-03T00:00:00+00:00"}`, wantCrash: true},
		// 1.10 checks for a duplicate before it reads conf.
		{name: "duplicate before conf", editions: airflow1, method: "POST", path: path,
			setup:      triggered(`{"run_id": "dup1"}`),
			body:       `{"run_id": "dup1", "conf": "not json", "execution_date": "2024-05-02T00:00:00+00:00"}`,
			wantStatus: 400, wantError: "Run id dup1 already exists for dag id example_bash_operator"},
		{name: "E11 before default_args start_date", method: "POST", path: "/dags/start_date_check/dag_runs",
			options: []testOption{withDAG(startDateDAG)},
			body:    `{"execution_date": "2015-07-05T10:10:00Z"}`, wantCrash: true},
		{name: "E11 after default_args start_date", method: "POST", path: "/dags/start_date_check/dag_runs",
			options: []testOption{withDAG(startDateDAG)},
			body:    `{"execution_date": "2018-07-05T10:10:00Z"}`, wantStatus: 200,
			wantContains: []string{"manual__2018-07-05T10:10:00+00:00"}},
		{name: "dag start_date is not checked", editions: airflow2, method: "POST", path: path,
			body: `{"execution_date": "2015-07-05T10:10:00Z"}`, wantStatus: 200},
		// 1.10.15's example sets start_date in default_args: days_ago(2) when
		// the file was read, midnight UTC (testExamplesReadAt: 2014-12-30).
		// Airflow 1.10.15 airflow/example_dags/example_bash_operator.py:28-31,
		// airflow/api/common/experimental/trigger_dag.py:63-69
		{name: "before days_ago(2) of the example", editions: airflow1, method: "POST", path: path,
			body:      `{"execution_date": "2014-12-29T23:59:59Z"}`,
			wantCrash: true, wantError: "The execution_date [2014-12-29T23:59:59+00:00] should be >= start_date [2014-12-30T00:00:00+00:00] from DAG's default_args",
			check: noRuns},
		{name: "at days_ago(2) of the example", editions: airflow1, method: "POST", path: path,
			body: `{"execution_date": "2014-12-30T00:00:00Z"}`, wantStatus: 200},
		{name: "E12 string conf decoded", editions: airflow1, method: "POST", path: path,
			body: `{"run_id": "r", "conf": "{\"foo\": \"bar\"}"}`, wantStatus: 200, check: confIs("r", `{"foo":"bar"}`)},
		{name: "E12 string conf refused", editions: airflow2, method: "POST", path: path,
			body: `{"conf": "{\"foo\": \"bar\"}"}`, wantStatus: 400,
			wantError: "Dag Run conf must be a dictionary object, other types are not supported"},
		{name: "string conf not json", editions: airflow1, method: "POST", path: path,
			body: `{"conf": "not json"}`, wantCrash: true, check: noRuns},
		{name: "array conf", editions: airflow1, method: "POST", path: path, body: `{"conf": [1]}`, wantCrash: true},
		{name: "number conf", editions: airflow1, method: "POST", path: path, body: `{"conf": 5}`, wantCrash: true},
		{name: "string conf holding an array", editions: airflow1, method: "POST", path: path,
			body: `{"run_id": "r", "conf": "[1, 2]"}`, wantStatus: 200, check: confIs("r", `[1,2]`)},
		{name: "non-ASCII run_id", editions: airflow1, method: "POST", path: path, body: `{"run_id": "café"}`,
			wantStatus: 200, wantBody: body("2024-05-01T10:00:00+00:00", msg1("2024-05-01 10:00:00+00:00", `caf\u00e9`), `caf\u00e9`)},
		{name: "non-ASCII run_id", editions: airflow2, method: "POST", path: path, body: `{"run_id": "café"}`,
			wantStatus: 500, wantContains: []string{`"error": "The provided run ID 'caf\u00e9' is invalid.`}},
		{name: "falsy conf stored as null", editions: airflow1, method: "POST", path: path,
			body: `{"run_id": "r", "conf": ""}`, wantStatus: 200, check: confIs("r", "")},
		{name: "no conf", editions: airflow2, method: "POST", path: path,
			body: `{"run_id": "r"}`, wantStatus: 200, check: confIs("r", `{}`)},
		{name: "E13 dict conf", method: "POST", path: path,
			body: `{"run_id": "r", "conf": {"foo": "bar"}}`, wantStatus: 200, check: confIs("r", `{"foo":"bar"}`)},
		{name: "E14 sub-DAG runs", method: "POST", path: "/dags/example_subdag_operator/dag_runs",
			body: `{"run_id": "sub"}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				for _, id := range []string{"example_subdag_operator", "example_subdag_operator.section-1", "example_subdag_operator.section-2"} {
					runAt(id, nowDate, "sub")(t, ts, res)
				}
				tis, err := ts.store.TaskInstancesOfRun("example_subdag_operator.section-2", "sub")
				if err != nil || len(tis) != 5 {
					t.Errorf("section-2 task instances: %d, %v; want 5", len(tis), err)
				}
			}},
		{name: "E15 empty body object", editions: airflow2, method: "POST", path: path, body: `{}`, wantStatus: 200,
			wantBody: body("2024-05-01T10:00:00+00:00", msg2("2024-05-01 10:00:00+00:00", gen), gen)},
		{name: "E15 empty body object", editions: airflow1, method: "POST", path: path, body: `{}`, wantStatus: 200,
			wantBody: body("2024-05-01T10:00:00+00:00", msg1("2024-05-01 10:00:00+00:00", gen), gen)},
		{name: "E16 exactly three keys", method: "POST", path: path, body: `{"run_id": "x", "unknown": 1}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				got := sortedMapKeys(decodeJSON[map[string]any](t, res.body))
				if want := []string{"execution_date", "message", "run_id"}; !reflect.DeepEqual(got, want) {
					t.Errorf("keys = %v, want %v", got, want)
				}
			}},
		{name: "empty run_id generated", method: "POST", path: path, body: `{"run_id": ""}`,
			wantStatus: 200, wantContains: []string{gen}},
		{name: "null run_id generated", method: "POST", path: path, body: `{"run_id": null}`,
			wantStatus: 200, wantContains: []string{gen}},
		{name: "run_id pattern", editions: airflow2, method: "POST", path: path, body: `{"run_id": "my run"}`,
			wantStatus: 500, wantError: runIDError, check: noRuns},
		{name: "run_id pattern not checked", editions: airflow1, method: "POST", path: path,
			body: `{"run_id": "my run"}`, wantStatus: 200},
		{name: "run_id not a string", editions: airflow2, method: "POST", path: path, body: `{"run_id": 5}`,
			wantCrash: true, check: noRuns},
		{name: "paused DAG can be triggered", method: "POST", path: path, body: `{}`, wantStatus: 200,
			setup: func(t *testing.T, ts *testServer) {
				if err := ts.store.SetPaused("example_bash_operator", true, true); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "bare row", method: "POST", path: "/dags/my_dag_id/dag_runs", body: `{}`,
			setup:      func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			wantStatus: 404, wantError: "Dag id my_dag_id not found"},
		// Bodies of other JSON kinds: TestServer_TriggerDAG_BodyKinds.
		{name: "invalid json", method: "POST", path: path, body: `{"run_id": `, wantStatus: 400, check: noRuns},
		{name: "empty body", method: "POST", path: path, body: ``, wantStatus: 400},
		{name: "content type ignored", method: "POST", path: path, body: `{}`, header: []string{"Content-Type", "text/plain"},
			wantStatus: 200},
		{name: "run state", editions: airflow2, method: "POST", path: path, body: `{"run_id": "r"}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				run, _ := ts.store.RunByRunID("example_bash_operator", "r")
				if run.State != RunQueued || run.StartDate != nil || run.QueuedAt == nil || !run.QueuedAt.Equal(testNow) {
					t.Errorf("run = %+v, want queued, no start_date, queued_at now", run)
				}
			}},
		{name: "run state", editions: airflow1, method: "POST", path: path, body: `{"run_id": "r"}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				run, _ := ts.store.RunByRunID("example_bash_operator", "r")
				if run.State != RunRunning || run.StartDate == nil || !run.StartDate.Equal(testNow) {
					t.Errorf("run = %+v, want running, started now", run)
				}
			}},
	})
}

// taskInstancePrecondition is the run of sections F and G: run_id
// test_task_instance_info_run at NOW without microseconds.
func taskInstancePrecondition(t *testing.T, ts *testServer) {
	t.Helper()
	ts.trigger(t, "example_bash_operator",
		`{"run_id": "test_task_instance_info_run", "execution_date": "2024-05-01T10:00:00+00:00"}`)
}

const (
	// DS and WRONG as Airflow's tests encode them (quote_plus).
	dsPath    = "2024-05-01T10%3A00%3A00%2B00%3A00"
	wrongPath = "1990-01-01T01%3A01%3A01%2B00%3A00"
	badDate   = "Given execution date, not_a_datetime, could not be identified as a date. Example date format: 2015-11-16T14:34:15+00:00"
)

// F. Task-instance info.
func TestServer_TaskInstanceInfo(t *testing.T) {
	t.Parallel()
	const tiPath = "/dags/example_bash_operator/dag_runs/" + dsPath + "/tasks/also_run_this"
	runCases(t, []httpCase{
		{name: "F1 fresh task instance", editions: airflow1, setup: taskInstancePrecondition, path: tiPath,
			wantStatus: 200,
			wantBody: `{"dag_id":"example_bash_operator","duration":"None","end_date":"None",` +
				`"execution_date":"2024-05-01 10:00:00+00:00","executor_config":"{}","hostname":"","job_id":"None",` +
				`"max_tries":"0","operator":"BashOperator","pid":"None","pool":"default_pool","pool_slots":"1",` +
				`"priority_weight":"2","queue":"default","queued_dttm":"None","start_date":"None","state":"None",` +
				`"task_id":"also_run_this","test_mode":"False","unixname":"airflow"}`},
		// A @task's instance records the decorator's custom_operator_name
		// (Airflow 2.10.3 airflow/decorators/python.py:44,
		// airflow/models/taskinstance.py:1294).
		{name: "@task custom_operator_name", editions: airflow2, path: "/dags/example_trigger_target_dag/dag_runs/" + dsPath + "/tasks/run_this",
			setup: func(t *testing.T, ts *testServer) {
				ts.trigger(t, "example_trigger_target_dag", `{"execution_date": "2024-05-01T10:00:00+00:00"}`)
			},
			wantStatus: 200, wantContains: []string{`"custom_operator_name": "@task"`, `"operator": "_PythonDecoratedOperator"`}},
		{name: "F1 fresh task instance", editions: airflow2, setup: taskInstancePrecondition, path: tiPath,
			wantStatus: 200,
			wantBody: `{"custom_operator_name":"None","dag_id":"example_bash_operator",` +
				`"dag_run":"<DagRun example_bash_operator @ 2024-05-01 10:00:00+00:00: test_task_instance_info_run, state:queued, queued_at: 2024-05-01 10:00:00.123456+00:00. externally triggered: True>",` +
				`"duration":"None","end_date":"None","executor":"None","executor_config":"{}",` +
				`"external_executor_id":"None","hostname":"","job_id":"None","map_index":"-1","max_tries":"0",` +
				`"next_kwargs":"None","next_method":"None","operator":"BashOperator","pid":"None","pool":"default_pool",` +
				`"pool_slots":"1","priority_weight":"2","queue":"default","queued_by_job_id":"None","queued_dttm":"None",` +
				`"rendered_map_index":"None","rendered_task_instance_fields":"None","run_id":"test_task_instance_info_run",` +
				`"start_date":"None","state":"None","task_id":"also_run_this","test_mode":"False","trigger_id":"None",` +
				`"trigger_timeout":"None","try_number":"0","unixname":"airflow","updated_at":"2024-05-01 10:00:00.123456+00:00"}`,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "runme_0 weight and raw plus in path", setup: taskInstancePrecondition,
			path: "/dags/example_bash_operator/dag_runs/2024-05-01T10:00:00+00:00/tasks/runme_0", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				checkValues(t, checkAllStrings(t, res.body), map[string]string{"priority_weight": "3", "task_id": "runme_0"})
			}},
		{name: "state after a change", setup: func(t *testing.T, ts *testServer) {
			taskInstancePrecondition(t, ts)
			ts.setTaskState(t, "example_bash_operator", "test_task_instance_info_run", "also_run_this", TaskRunning)
		}, path: tiPath, wantStatus: 200, wantContains: []string{`"state":`, `"running"`}},
		{name: "date in another offset", setup: taskInstancePrecondition,
			path: "/dags/example_bash_operator/dag_runs/2024-05-01T12%3A00%3A00%2B02%3A00/tasks/also_run_this", wantStatus: 200},
		{name: "F2 unknown dag", setup: taskInstancePrecondition,
			path:       "/dags/does_not_exist_dag/dag_runs/" + dsPath + "/tasks/also_run_this",
			wantStatus: 404, wantError: "Dag id does_not_exist_dag not found in DagModel"},
		{name: "F3 unknown task", setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/" + dsPath + "/tasks/does_not_exist_task",
			wantStatus: 404, wantError: "Task does_not_exist_task not found in dag example_bash_operator"},
		{name: "F4 no run at date", editions: airflow1, setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/" + wrongPath + "/tasks/also_run_this",
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01T01:01:01+00:00 not found in dag example_bash_operator"},
		{name: "F4 no run at date", editions: airflow2, setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/" + wrongPath + "/tasks/also_run_this",
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01 01:01:01+00:00 not found in dag example_bash_operator"},
		{name: "F4 offset kept in message", editions: airflow1,
			path:       "/dags/example_bash_operator/dag_runs/1990-01-01T01:01:01.5%2B02:00/tasks/also_run_this",
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01T01:01:01.500000+02:00 not found in dag example_bash_operator"},
		{name: "F4 offset kept in message", editions: airflow2,
			path:       "/dags/example_bash_operator/dag_runs/1990-01-01T01:01:01.5%2B02:00/tasks/also_run_this",
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01 01:01:01.500000+02:00 not found in dag example_bash_operator"},
		{name: "F5 bad date", setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/not_a_datetime/tasks/also_run_this",
			wantStatus: 400, wantError: badDate},
		{name: "bad date before unknown dag", path: "/dags/nope/dag_runs/not_a_datetime/tasks/x",
			wantStatus: 400, wantError: badDate},
		{name: "unknown task before missing run", path: "/dags/example_bash_operator/dag_runs/" + wrongPath + "/tasks/nope",
			wantStatus: 404, wantError: "Task nope not found in dag example_bash_operator"},
		{name: "bare row", setup: func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			path: "/dags/my_dag_id/dag_runs/" + dsPath + "/tasks/x", wantStatus: 404, wantError: "Dag id my_dag_id not found"},
		{name: "task instance missing", editions: airflow2, setup: runWithoutTasks,
			path:       "/dags/example_bash_operator/dag_runs/2020-01-01/tasks/also_run_this",
			wantStatus: 404, wantError: "Task also_run_this instance for date 2020-01-01 00:00:00+00:00 not found"},
		{name: "task instance missing", editions: airflow1, setup: runWithoutTasks,
			path:       "/dags/example_bash_operator/dag_runs/2020-01-01/tasks/also_run_this",
			wantStatus: 404, wantError: "Task also_run_this instance for date 2020-01-01T00:00:00+00:00 not found"},
	})
}

// runWithoutTasks stores a run of example_bash_operator at 2020-01-01 with
// no task instances.
func runWithoutTasks(t *testing.T, ts *testServer) {
	t.Helper()
	run := &DagRun{ID: 99, DagID: "example_bash_operator", RunID: "bare",
		ExecutionDate: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), State: RunSuccess}
	if err := ts.store.UpsertDagRun(run); err != nil {
		t.Fatal(err)
	}
}

// G. Dag-run state.
func TestServer_DagRunStatus(t *testing.T) {
	t.Parallel()
	runCases(t, []httpCase{
		{name: "G1 running", editions: airflow1, setup: taskInstancePrecondition,
			path: "/dags/example_bash_operator/dag_runs/" + dsPath, wantStatus: 200, wantBody: `{"state":"running"}`},
		{name: "G1 queued", editions: airflow2, setup: taskInstancePrecondition,
			path: "/dags/example_bash_operator/dag_runs/" + dsPath, wantStatus: 200, wantBody: `{"state":"queued"}`,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "state follows the store", setup: func(t *testing.T, ts *testServer) {
			taskInstancePrecondition(t, ts)
			run, _ := ts.store.RunByRunID("example_bash_operator", "test_task_instance_info_run")
			changed := *run
			changed.State = RunFailed
			if err := ts.store.UpsertDagRun(&changed); err != nil {
				t.Fatal(err)
			}
		}, path: "/dags/example_bash_operator/dag_runs/" + dsPath, wantStatus: 200, wantBody: `{"state":"failed"}`},
		{name: "G2 unknown dag", setup: taskInstancePrecondition, path: "/dags/does_not_exist_dag/dag_runs/" + dsPath,
			wantStatus: 404, wantError: "Dag id does_not_exist_dag not found in DagModel"},
		{name: "G3 no run at date", editions: airflow1, setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/" + wrongPath,
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01T01:01:01+00:00 not found in dag example_bash_operator"},
		{name: "G3 no run at date", editions: airflow2, setup: taskInstancePrecondition,
			path:       "/dags/example_bash_operator/dag_runs/" + wrongPath,
			wantStatus: 404, wantError: "Dag Run for date 1990-01-01 01:01:01+00:00 not found in dag example_bash_operator"},
		{name: "microseconds must match", setup: taskInstancePrecondition,
			path: "/dags/example_bash_operator/dag_runs/2024-05-01T10:00:00.000001%2B00:00", wantStatus: 404},
		{name: "G4 bad date", setup: taskInstancePrecondition, path: "/dags/example_bash_operator/dag_runs/not_a_datetime",
			wantStatus: 400, wantError: badDate},
		{name: "bare row", setup: func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			path: "/dags/my_dag_id/dag_runs/" + dsPath, wantStatus: 404, wantError: "Dag id my_dag_id not found"},
	})
}

// H. Dag-run list.
func TestServer_DagRuns(t *testing.T) {
	t.Parallel()
	const path = "/dags/example_bash_operator/dag_runs"
	precondition := func(t *testing.T, ts *testServer) {
		t.Helper()
		ts.trigger(t, "example_bash_operator", `{"run_id": "test_get_dag_runs_success"}`)
	}
	const (
		d  = "2024-05-01+10%3A00%3A00%2B00%3A00"
		e2 = `[{"dag_id":"example_bash_operator","dag_run_url":"/dags/example_bash_operator/graph?execution_date=` + d +
			`","execution_date":"2024-05-01T10:00:00+00:00","id":1,"run_id":"test_get_dag_runs_success","start_date":"","state":"queued"}]`
		e1 = `[{"dag_id":"example_bash_operator","dag_run_url":"/admin/airflow/graph?dag_id=example_bash_operator&execution_date=` + d +
			`","execution_date":"2024-05-01T10:00:00+00:00","id":1,"run_id":"test_get_dag_runs_success","start_date":"2024-05-01T10:00:00.123456+00:00","state":"running"}]`
		e1rbac = `[{"dag_id":"example_bash_operator","dag_run_url":"/graph?dag_id=example_bash_operator&execution_date=` + d +
			`","execution_date":"2024-05-01T10:00:00+00:00","id":1,"run_id":"test_get_dag_runs_success","start_date":"2024-05-01T10:00:00.123456+00:00","state":"running"}]`
	)
	oneRun := func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		runs := decodeJSON[[]map[string]any](t, res.body)
		if len(runs) != 1 || runs[0]["dag_id"] != "example_bash_operator" || runs[0]["id"] != float64(1) {
			t.Errorf("runs = %v, want one run of example_bash_operator with id 1", runs)
		}
	}
	runCases(t, []httpCase{
		{name: "H1 H7 one run", editions: airflow2, setup: precondition, path: path, wantStatus: 200, wantBody: e2,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "H1 H7 one run", editions: []edition{edition110}, setup: precondition, path: path, wantStatus: 200, wantBody: e1},
		{name: "H1 H7 one run", editions: []edition{edition110RBAC}, setup: precondition, path: path, wantStatus: 200, wantBody: e1rbac},
		{name: "H2 state=running", editions: airflow1, setup: precondition, path: path + "?state=running", wantStatus: 200, check: oneRun},
		{name: "H3 state=RUNNING", editions: airflow1, setup: precondition, path: path + "?state=RUNNING", wantStatus: 200, check: oneRun},
		{name: "H2' state=queued", editions: airflow2, setup: precondition, path: path + "?state=queued", wantStatus: 200, check: oneRun},
		{name: "H3' state=QUEUED", editions: airflow2, setup: precondition, path: path + "?state=QUEUED", wantStatus: 200, check: oneRun},
		{name: "other valid state", editions: airflow2, setup: precondition, path: path + "?state=running", wantStatus: 200, wantBody: `[]`},
		{name: "empty state is no filter", setup: precondition, path: path + "?state=", wantStatus: 200, check: oneRun},
		{name: "H4 unknown state", editions: airflow1, setup: precondition, path: path + "?state=dummy", wantStatus: 200, wantBody: `[]`},
		{name: "H4' unknown state", editions: airflow2, setup: precondition, path: path + "?state=dummy", wantCrash: true},
		{name: "H5 unknown dag", path: "/dags/DUMMY_DAG/dag_runs", wantStatus: 400,
			wantError: "Dag id DUMMY_DAG not found in DagModel"},
		{name: "bare row", setup: func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") },
			path: "/dags/my_dag_id/dag_runs", wantStatus: 400, wantError: "Dag id my_dag_id not found"},
		{name: "H6 no runs", path: path, wantStatus: 200, wantBody: `[]`},
		{name: "ids count up, by date", setup: func(t *testing.T, ts *testServer) {
			ts.trigger(t, "example_bash_operator", `{"run_id": "c", "execution_date": "2024-03-01"}`)
			ts.trigger(t, "example_subdag_operator", `{"run_id": "s"}`) // ids 2, 3, 4
			ts.trigger(t, "example_bash_operator", `{"run_id": "a", "execution_date": "2024-01-01"}`)
			ts.trigger(t, "example_bash_operator", `{"run_id": "b", "execution_date": "2024-02-01T00:00:00.5+00:00"}`)
		}, path: path, wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
			runs := decodeJSON[[]map[string]any](t, res.body)
			var got []string
			for _, r := range runs {
				got = append(got, r["run_id"].(string)+"="+strings.TrimSuffix(jsonText(r["id"]), ".0"))
			}
			if want := []string{"a=5", "b=6", "c=1"}; !reflect.DeepEqual(got, want) {
				t.Errorf("runs = %v, want %v", got, want)
			}
			if url := runs[1]["dag_run_url"].(string); !strings.HasSuffix(url, "execution_date=2024-02-01+00%3A00%3A00.500000%2B00%3A00") {
				t.Errorf("dag_run_url = %q: want the str form with microseconds", url)
			}
		}},
		{name: "client offset listed in UTC", setup: func(t *testing.T, ts *testServer) {
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2016-11-16T14:34:15+02:00"}`)
		}, path: path, wantStatus: 200, wantContains: []string{`"execution_date":`, `"2016-11-16T12:34:15+00:00"`}},
	})
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// I. Delete DAG.
func TestServer_DeleteDag(t *testing.T) {
	t.Parallel()
	bare := func(t *testing.T, ts *testServer) { ts.insertBareDag(t, "my_dag_id") }
	gone := func(ids ...string) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			for _, id := range ids {
				if _, err := ts.store.DagByID(id); err == nil {
					t.Errorf("%s still exists", id)
				}
				if runs, _ := ts.store.RunsOfDag(id, ""); len(runs) != 0 {
					t.Errorf("%s still has %d runs", id, len(runs))
				}
			}
			if res := ts.do(t, "GET", apiPrefix+"/dags/"+ids[0]+"/tasks/x", ""); res.status != 404 ||
				!strings.Contains(res.body, "not found in DagModel") {
				t.Errorf("task info after delete: %d %s", res.status, res.body)
			}
		}
	}
	withEdition := []edition{edition2, edition110}
	runCases(t, []httpCase{
		{name: "I1 bare row", editions: withEdition, setup: bare, method: "DELETE", path: "/dags/my_dag_id",
			wantStatus: 200, wantBody: `{"count":1,"message":"Removed 1 record(s)"}`, check: gone("my_dag_id")},
		{name: "I2 unknown dag", editions: withEdition, method: "DELETE", path: "/dags/does_not_exist_dag",
			wantStatus: 404, wantError: "Dag id does_not_exist_dag not found"},
		{name: "I3 route absent", editions: []edition{edition110RBAC}, setup: bare, method: "DELETE",
			path: "/dags/my_dag_id", wantStatus: 404,
			check: func(t *testing.T, ts *testServer, res response) {
				if _, err := ts.store.DagByID("my_dag_id"); err != nil {
					t.Error("the DAG was deleted")
				}
			}},
		{name: "dag with a run", editions: airflow2, method: "DELETE", path: "/dags/example_bash_operator",
			setup: func(t *testing.T, ts *testServer) { ts.trigger(t, "example_bash_operator", `{}`) },
			// 1 dag row + 1 run + 7 task instances
			wantStatus: 200, wantBody: `{"count":9,"message":"Removed 9 record(s)"}`, check: gone("example_bash_operator")},
		{name: "dag with a run", editions: []edition{edition110}, method: "DELETE", path: "/dags/example_bash_operator",
			setup: func(t *testing.T, ts *testServer) { ts.trigger(t, "example_bash_operator", `{}`) },
			// 1 dag row + 1 run + 6 task instances (1.10.15's example has no this_will_skip)
			wantStatus: 200, wantBody: `{"count":8,"message":"Removed 8 record(s)"}`, check: gone("example_bash_operator")},
		{name: "dag with lineage", editions: withEdition, method: "DELETE", path: "/dags/example_papermill_operator",
			setup: func(t *testing.T, ts *testServer) {
				ts.trigger(t, "example_papermill_operator", `{"run_id": "r"}`)
				if err := ts.store.UpsertLineage(&LineageRecord{DagID: "example_papermill_operator", RunID: "r",
					TaskID: "run_example_notebook", Inlets: json.RawMessage(`[1]`)}); err != nil {
					t.Fatal(err)
				}
			},
			// 1 dag row + 1 run + 1 task instance + 1 lineage record
			wantStatus: 200, wantBody: `{"count":4,"message":"Removed 4 record(s)"}`},
		{name: "sub-DAGs go too", editions: withEdition, method: "DELETE", path: "/dags/example_subdag_operator",
			setup: func(t *testing.T, ts *testServer) { ts.trigger(t, "example_subdag_operator", `{}`) },
			// 3 dag rows + 3 runs + 15 task instances
			wantStatus: 200, wantBody: `{"count":21,"message":"Removed 21 record(s)"}`,
			check: gone("example_subdag_operator", "example_subdag_operator.section-1", "example_subdag_operator.section-2")},
		{name: "other DAGs stay", editions: withEdition, method: "DELETE", path: "/dags/example_bash_operator",
			wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
				if _, err := ts.store.DagByID("example_python_operator"); err != nil {
					t.Error("example_python_operator was deleted")
				}
			}},
		{name: "running task instance", editions: airflow2, method: "DELETE", path: "/dags/example_bash_operator",
			setup: func(t *testing.T, ts *testServer) {
				ts.trigger(t, "example_bash_operator", `{"run_id": "r"}`)
				ts.setTaskState(t, "example_bash_operator", "r", "runme_0", TaskRunning)
			},
			wantStatus: 500, wantError: "TaskInstances still running",
			check: func(t *testing.T, ts *testServer, res response) {
				if _, err := ts.store.DagByID("example_bash_operator"); err != nil {
					t.Error("the DAG was deleted")
				}
			}},
		{name: "running task instance", editions: []edition{edition110}, method: "DELETE", path: "/dags/example_bash_operator",
			setup: func(t *testing.T, ts *testServer) {
				ts.trigger(t, "example_bash_operator", `{"run_id": "r"}`)
				ts.setTaskState(t, "example_bash_operator", "r", "runme_0", TaskRunning)
			},
			wantStatus: 200, wantBody: `{"count":8,"message":"Removed 8 record(s)"}`},
	})
}

// J. Pools.
func TestServer_Pools(t *testing.T) {
	t.Parallel()
	fixture := func(t *testing.T, ts *testServer) { ts.addExperimentalPools(t) }
	count := func(want int) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			if got := ts.poolCount(t); got != want {
				t.Errorf("%d pools, want %d", got, want)
			}
		}
	}
	const (
		pool1  = `{"description":"experimental_2","id":3,"pool":"experimental_2","slots":1}`
		pool2  = `{"description":"experimental_2","id":3,"include_deferred":false,"pool":"experimental_2","slots":1}`
		all1   = `[{"description":"Default pool","id":1,"pool":"default_pool","slots":128},{"description":"experimental_1","id":2,"pool":"experimental_1","slots":0},` + pool1 + `]`
		all2   = `[{"description":"Default pool","id":1,"include_deferred":false,"pool":"default_pool","slots":128},{"description":"experimental_1","id":2,"include_deferred":false,"pool":"experimental_1","slots":0},` + pool2 + `]`
		create = `{"name": "foo", "slots": 1, "description": ""}`
	)
	long := strings.Repeat("a", 300)
	runCases(t, []httpCase{
		{name: "J1 get pool", editions: airflow1, setup: fixture, path: "/pools/experimental_2", wantStatus: 200, wantBody: pool1},
		{name: "J1 get pool", editions: airflow2, setup: fixture, path: "/pools/experimental_2", wantStatus: 200, wantBody: pool2,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "J2 unknown pool", setup: fixture, path: "/pools/foo", wantStatus: 404, wantError: "Pool 'foo' doesn't exist"},
		{name: "J3 all pools", editions: airflow1, setup: fixture, path: "/pools", wantStatus: 200, wantBody: all1},
		{name: "J3 all pools", editions: airflow2, setup: fixture, path: "/pools", wantStatus: 200, wantBody: all2},
		{name: "J4 create", editions: airflow1, setup: fixture, method: "POST", path: "/pools", body: create,
			wantStatus: 200, wantBody: `{"description":"","id":4,"pool":"foo","slots":1}`, check: count(4)},
		{name: "J4 create", editions: airflow2, setup: fixture, method: "POST", path: "/pools", body: create,
			wantStatus: 200, wantBody: `{"description":"","id":4,"include_deferred":false,"pool":"foo","slots":1}`, check: count(4)},
		{name: "J5 empty name", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "", "slots": 1, "description": ""}`, wantStatus: 400,
			wantError: "Pool name shouldn't be empty", check: count(3)},
		{name: "J5 blank name", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "    ", "slots": 1, "description": ""}`, wantStatus: 400,
			wantError: "Pool name shouldn't be empty", check: count(3)},
		{name: "null name", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": null, "slots": 1, "description": ""}`, wantStatus: 400, wantError: "Pool name shouldn't be empty"},
		{name: "number name", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": 5, "slots": 1, "description": ""}`, wantCrash: true, check: count(3)},
		{name: "J6 delete", editions: airflow1, setup: fixture, method: "DELETE", path: "/pools/experimental_2",
			wantStatus: 200, wantBody: pool1, check: count(2)},
		{name: "J6 delete", editions: airflow2, setup: fixture, method: "DELETE", path: "/pools/experimental_2",
			wantStatus: 200, wantBody: pool2, check: count(2)},
		{name: "J7 delete unknown", setup: fixture, method: "DELETE", path: "/pools/foo",
			wantStatus: 404, wantError: "Pool 'foo' doesn't exist", check: count(3)},
		{name: "J8 delete default_pool", setup: fixture, method: "DELETE", path: "/pools/default_pool",
			wantStatus: 400, wantError: "default_pool cannot be deleted", check: count(3)},
		{name: "J9 blank name", setup: fixture, path: "/pools/%20%20%20%20", wantStatus: 400, wantError: "Pool name shouldn't be empty"},
		{name: "J10 upsert", editions: airflow1, setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "experimental_1", "slots": 5, "description": ""}`, wantStatus: 200,
			wantBody: `{"description":"","id":2,"pool":"experimental_1","slots":5}`, check: count(3)},
		{name: "J10 upsert keeps include_deferred", editions: airflow2, method: "POST", path: "/pools",
			setup: func(t *testing.T, ts *testServer) {
				err := ts.store.update(func(txn *memdb.Txn) error {
					return txn.Insert(tablePools, &Pool{ID: 7, Name: "deferring", Slots: 2, IncludeDeferred: true})
				})
				if err != nil {
					t.Fatal(err)
				}
			},
			body: `{"name": "deferring", "slots": 5, "description": "d"}`, wantStatus: 200,
			wantBody: `{"description":"d","id":7,"include_deferred":true,"pool":"deferring","slots":5}`},
		{name: "upsert default_pool", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": "default_pool", "slots": 4, "description": null}`, wantStatus: 200,
			wantBody: `{"description":null,"id":1,"pool":"default_pool","slots":4}`},
		{name: "J11 bad slots", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": "foo", "description": ""}`, wantStatus: 400,
			wantError: "Bad value for `slots`: foo", check: count(3)},
		{name: "fractional string slots", method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": "5.5", "description": ""}`, wantStatus: 400, wantError: "Bad value for `slots`: 5.5"},
		{name: "numeric string slots", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": " 5 ", "description": "x"}`, wantStatus: 200,
			wantBody: `{"description":"x","id":2,"pool":"foo","slots":5}`},
		{name: "float slots truncate", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": 5.7, "description": "x"}`, wantStatus: 200,
			wantBody: `{"description":"x","id":2,"pool":"foo","slots":5}`},
		{name: "boolean slots", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": true, "description": "x"}`, wantStatus: 200,
			wantBody: `{"description":"x","id":2,"pool":"foo","slots":1}`},
		{name: "negative slots", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": "foo", "slots": -1, "description": "x"}`, wantStatus: 200,
			wantBody: `{"description":"x","id":2,"pool":"foo","slots":-1}`},
		{name: "null slots", method: "POST", path: "/pools", body: `{"name": "foo", "slots": null, "description": ""}`, wantCrash: true},
		{name: "array slots", method: "POST", path: "/pools", body: `{"name": "foo", "slots": [1], "description": ""}`, wantCrash: true},
		{name: "name kept untrimmed", editions: airflow1, method: "POST", path: "/pools",
			body: `{"name": " padded ", "slots": 1, "description": "x"}`, wantStatus: 200,
			wantBody: `{"description":"x","id":2,"pool":" padded ","slots":1}`},
		// Airflow 1.10 has no check (its 50-character column fails in the
		// database); airlite applies Airflow 2's limit in every edition.
		{name: "J12 long name", method: "POST", path: "/pools",
			body: `{"name": "` + long + `", "slots": 1, "description": ""}`, wantStatus: 400,
			wantError: "Pool name can't be more than 256 characters", check: count(1)},
		{name: "256 characters", method: "POST", path: "/pools",
			body: `{"name": "` + strings.Repeat("é", 256) + `", "slots": 1, "description": ""}`, wantStatus: 200},
		{name: "slots checked before length", editions: airflow2, method: "POST", path: "/pools",
			body: `{"name": "` + long + `", "slots": "x", "description": ""}`, wantStatus: 400, wantError: "Bad value for `slots`: x"},
		{name: "J13 delete blank name", setup: fixture, method: "DELETE", path: "/pools/%20%20%20%20",
			wantStatus: 400, wantError: "Pool name shouldn't be empty"},
		{name: "J14 missing description", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "x", "slots": 1}`, wantCrash: true, check: count(3)},
		{name: "J14 extra include_deferred", setup: fixture, method: "POST", path: "/pools",
			body: `{"name": "x", "slots": 1, "description": "", "include_deferred": true}`, wantCrash: true, check: count(3)},
		{name: "body not an object", method: "POST", path: "/pools", body: `[1]`, wantCrash: true},
		{name: "invalid json", method: "POST", path: "/pools", body: `{`, wantStatus: 400},
		{name: "non-ASCII name echoed escaped", path: "/pools/caf%C3%A9", wantStatus: 404, wantError: `Pool 'caf\u00e9' doesn't exist`},
	})
}

// K. Info and lineage (Airflow 2 only).
func TestServer_InfoAndLineage(t *testing.T) {
	t.Parallel()
	precondition := func(t *testing.T, ts *testServer) {
		t.Helper()
		ts.trigger(t, "example_papermill_operator",
			`{"run_id": "test_lineage_info_run", "execution_date": "2024-05-01T10:00:00+00:00"}`)
	}
	withLineage := func(recs ...*LineageRecord) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			t.Helper()
			precondition(t, ts)
			for _, rec := range recs {
				if err := ts.store.UpsertLineage(rec); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	const lineagePath = "/lineage/example_papermill_operator/" + dsPath
	runCases(t, []httpCase{
		{name: "K1 info", editions: airflow2, path: "/info", wantStatus: 200, wantBody: `{"version":"2.10.3"}`,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "K1 no info", editions: airflow1, path: "/info", wantStatus: 404},
		{name: "K2 no lineage", editions: airflow2, setup: precondition, path: lineagePath, wantStatus: 200,
			wantBody: `{"task_ids":{}}`,
			check:    func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, edition2, res.header) }},
		{name: "K2 lineage record", editions: airflow2, path: lineagePath, wantStatus: 200,
			setup: withLineage(&LineageRecord{DagID: "example_papermill_operator", RunID: "test_lineage_info_run",
				TaskID:  "run_example_notebook",
				Inlets:  json.RawMessage(`[{"url":"/tmp/hello_world.ipynb"}]`),
				Outlets: json.RawMessage(`[{"url":"/tmp/out-2024.ipynb","size":1.0}]`)}),
			wantBody: `{"task_ids":{"run_example_notebook":{"inlets":[{"url":"/tmp/hello_world.ipynb"}],"outlets":[{"size":1.0,"url":"/tmp/out-2024.ipynb"}]}}}`},
		{name: "only inlets", editions: airflow2, path: lineagePath, wantStatus: 200,
			setup: withLineage(
				&LineageRecord{DagID: "example_papermill_operator", RunID: "test_lineage_info_run", TaskID: "a",
					Inlets: json.RawMessage(`["x"]`)},
				&LineageRecord{DagID: "example_papermill_operator", RunID: "test_lineage_info_run", TaskID: "b"}),
			wantBody: `{"task_ids":{"a":{"inlets":["x"]}}}`},
		{name: "lineage of another run", editions: airflow2, path: lineagePath, wantStatus: 200,
			setup: withLineage(&LineageRecord{DagID: "example_papermill_operator", RunID: "other", TaskID: "a",
				Inlets: json.RawMessage(`["x"]`)}),
			wantBody: `{"task_ids":{}}`},
		{name: "K3 unknown dag", editions: airflow2, setup: precondition, path: "/lineage/does_not_exist_dag/" + dsPath,
			wantStatus: 404, wantError: "Dag id does_not_exist_dag not found in DagModel"},
		{name: "K4 no run at date", editions: airflow2, setup: precondition,
			path: "/lineage/example_papermill_operator/" + wrongPath, wantStatus: 404,
			wantError: "Dag Run for date 1990-01-01 01:01:01+00:00 not found in dag example_papermill_operator"},
		{name: "K5 bad date", editions: airflow2, setup: precondition,
			path: "/lineage/example_papermill_operator/not_a_datetime", wantStatus: 400, wantError: badDate},
		{name: "bad date before unknown dag", editions: airflow2, path: "/lineage/nope/not_a_datetime",
			wantStatus: 400, wantError: badDate},
		{name: "trailing slash", editions: airflow2, setup: precondition, path: lineagePath + "/", wantStatus: 404},
		{name: "no lineage route", editions: airflow1, setup: precondition, path: lineagePath, wantStatus: 404},
	})
}

// L. Authentication.
func TestServer_Auth(t *testing.T) {
	t.Parallel()
	basic := withAuth(authBasic, "test:test\n")
	password := withAuth(authPassword, "hello:world\n")
	b64 := func(s string) string { return base64Std(s) }
	var cases []httpCase
	unauthorized := func(name string, opts []testOption, header ...string) httpCase {
		return httpCase{name: name, editions: airflow2, options: opts, path: "/pools", header: header,
			wantStatus: 401, wantRaw: strPtr("Unauthorized"), wantType: "text/html; charset=utf-8",
			check: func(t *testing.T, ts *testServer, res response) {
				if got := res.header.Get("WWW-Authenticate"); got != "Basic" {
					t.Errorf("WWW-Authenticate = %q, want Basic", got)
				}
				checkDeprecationHeaders(t, edition2, res.header)
			}}
	}
	// L7, L8, L9
	for _, h := range []string{"basic", "basic ", "bearer", "test:test", "dGVzdDp0ZXN0", "bearer ", "basic: ", "basic 123",
		"basic " + b64("test"), "basic " + b64("test:"), "basic " + b64("test:123"), "basic " + b64("test test"),
		"Basic", "Basic " + b64(":test"), "Basic " + b64("nobody:test")} {
		cases = append(cases, unauthorized("L7-L9 "+h, []testOption{basic}, "Authorization", h))
	}
	cases = append(cases, unauthorized("L7 no header", []testOption{basic}))
	cases = append(cases,
		httpCase{name: "L6 L10 basic_auth", editions: airflow2, options: []testOption{basic}, path: "/pools",
			header: []string{"Authorization", "Basic dGVzdDp0ZXN0"}, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				pools := decodeJSON[[]map[string]any](t, res.body)
				if len(pools) == 0 || pools[0]["pool"] != "default_pool" {
					t.Errorf("pools = %v, want default_pool first", pools)
				}
			}},
		httpCase{name: "basic_auth lower-case scheme", editions: airflow2, options: []testOption{basic}, path: "/test",
			header: []string{"Authorization", "basic dGVzdDp0ZXN0"}, wantStatus: 200, wantBody: `{"status":"OK"}`},
		httpCase{name: "basic_auth bcrypt user", editions: airflow2, path: "/test",
			options: []testOption{withAuth(authBasic, "test:"+bcryptHash(t, "s3cret")+"\n")},
			header:  []string{"Authorization", "Basic " + b64("test:s3cret")}, wantStatus: 200},
		unauthorized("basic_auth bcrypt wrong password",
			[]testOption{withAuth(authBasic, "test:"+bcryptHash(t, "s3cret")+"\n")}, "Authorization", "Basic "+b64("test:nope")),
		httpCase{name: "L1 password_auth", editions: []edition{edition110}, options: []testOption{password}, path: "/pools",
			header: []string{"Authorization", "Basic aGVsbG86d29ybGQ="}, wantStatus: 200},
		httpCase{name: "L2 password_auth no header", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", wantStatus: 401, wantRaw: strPtr("Unauthorized"), wantType: "text/html; charset=utf-8",
			check: func(t *testing.T, ts *testServer, res response) {
				if got := res.header.Get("WWW-Authenticate"); got != "Basic" {
					t.Errorf("WWW-Authenticate = %q, want Basic", got)
				}
				checkDeprecationHeaders(t, edition110, res.header)
			}},
		httpCase{name: "L3 password_auth wrong password", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", header: []string{"Authorization", "Basic " + b64("hello:nope")},
			wantStatus: 403, wantRaw: strPtr("Forbidden"), wantType: "text/html; charset=utf-8"},
		httpCase{name: "password_auth unknown user", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", header: []string{"Authorization", "Basic " + b64("nobody:world")},
			wantStatus: 403, wantRaw: strPtr("Forbidden")},
		httpCase{name: "password_auth any scheme word", editions: []edition{edition110}, options: []testOption{password},
			path: "/test", header: []string{"Authorization", "Whatever " + b64("hello:world")}, wantStatus: 200},
		httpCase{name: "password_auth bad base64", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", header: []string{"Authorization", "Basic !!!"}, wantCrash: true},
		httpCase{name: "password_auth no colon", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", header: []string{"Authorization", "Basic " + b64("hello")}, wantCrash: true},
		httpCase{name: "password_auth scheme only", editions: []edition{edition110}, options: []testOption{password},
			path: "/pools", header: []string{"Authorization", "Basic"}, wantCrash: true},
		httpCase{name: "L11 deny_all", options: []testOption{withAuth(authDenyAll, "")}, path: "/test",
			wantStatus: 403, wantRaw: strPtr("Forbidden"), wantType: "text/html; charset=utf-8",
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, ts.edition, res.header) }},
		httpCase{name: "L11 deny_all trigger", options: []testOption{withAuth(authDenyAll, "")}, method: "POST",
			path: "/dags/example_bash_operator/dag_runs", body: `{}`, wantStatus: 403, wantRaw: strPtr("Forbidden"),
			check: func(t *testing.T, ts *testServer, res response) {
				if runs, _ := ts.store.RunsOfDag("example_bash_operator", ""); len(runs) != 0 {
					t.Error("a refused trigger created a run")
				}
			}},
		httpCase{name: "deny_all OPTIONS not authenticated", options: []testOption{withAuth(authDenyAll, "")},
			method: "OPTIONS", path: "/pools", wantStatus: 200, wantRaw: strPtr("")},
		httpCase{name: "deny_all reset", options: []testOption{withAuth(authDenyAll, "")}, method: "POST",
			path: "/_airlite/reset", wantStatus: 403, wantRaw: strPtr("Forbidden")},
		httpCase{name: "deny_all health", options: []testOption{withAuth(authDenyAll, "")},
			path: "/_airlite/health", wantStatus: 200},
	)
	runCases(t, cases)
}

func base64Std(s string) string {
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for i := 0; i < len(s); i += 3 {
		var n uint32
		k := 0
		for j := 0; j < 3; j++ {
			n <<= 8
			if i+j < len(s) {
				n |= uint32(s[i+j])
				k++
			}
		}
		for j := 0; j < 4; j++ {
			if j <= k {
				b.WriteByte(enc[n>>(18-6*j)&0x3f])
			} else {
				b.WriteByte('=')
			}
		}
	}
	return b.String()
}

func TestBase64Std(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"hello:world": "aGVsbG86d29ybGQ=", "test:test": "dGVzdDp0ZXN0", "ab": "YWI=", "": ""} {
		if got := base64Std(in); got != want {
			t.Errorf("base64Std(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkDeprecationHeaders checks Airflow 2's headers on an API response,
// and their absence in 1.10.
func checkDeprecationHeaders(t *testing.T, e edition, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Deprecation":     "true",
		"Link":            `<https://airflow.apache.org/docs/apache-airflow/2.10.3/upgrading-to-2.html#migration-guide-from-experimental-api-to-stable-api-v1>; rel="deprecation"; type="text/html"`,
		"X-Robots-Tag":    "noindex, nofollow",
		"Cache-Control":   "no-store",
		"X-Frame-Options": "",
	}
	for name, v := range want {
		if e.isAirflow1() {
			v = ""
		}
		if got := h.Get(name); got != v {
			t.Errorf("%s header = %q, want %q", name, got, v)
		}
	}
}

// Headers, routing, HEAD and OPTIONS.
func TestServer_Routing(t *testing.T) {
	t.Parallel()
	const problem404 = "{\n  \"detail\": \"The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.\",\n  \"status\": 404,\n  \"title\": \"Not Found\",\n  \"type\": \"about:blank\"\n}\n"
	const problem405 = "{\n  \"detail\": \"The method is not allowed for the requested URL.\",\n  \"status\": 405,\n  \"title\": \"Method Not Allowed\",\n  \"type\": \"about:blank\"\n}\n"
	noDeprecation := func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		if res.header.Get("Deprecation") != "" || res.header.Get("Link") != "" {
			t.Errorf("deprecation headers on an unmatched request: %v", res.header)
		}
	}
	allow := func(want ...string) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			got := strings.Split(res.header.Get("Allow"), ", ")
			sort.Strings(got)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Allow = %v, want %v", got, want)
			}
			checkDeprecationHeaders(t, ts.edition, res.header)
		}
	}
	runCases(t, []httpCase{
		{name: "test endpoint", path: "/test", wantStatus: 200, wantBody: `{"status":"OK"}`,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, ts.edition, res.header) }},
		{name: "headers on errors", path: "/pools/nope", wantStatus: 404,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, ts.edition, res.header) }},
		{name: "headers on 500", path: "/dags/nope/paused", wantCrash: true,
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, ts.edition, res.header) }},
		{name: "404 problem", editions: airflow2, path: "/nope", wantStatus: 404, wantRaw: strPtr(problem404),
			wantType: "application/problem+json", check: noDeprecation},
		{name: "404 outside the API", editions: airflow2, path: "/api/experimental/dags", wantStatus: 404, wantRaw: strPtr(problem404),
			wantType: "application/problem+json", check: noDeprecation},
		{name: "405 problem", editions: airflow2, method: "PUT", path: "/pools", wantStatus: 405, wantRaw: strPtr(problem405),
			wantType: "application/problem+json", check: noDeprecation},
		{name: "405 on admin", editions: airflow2, method: "GET", path: "/_airlite/reset", wantStatus: 405,
			wantRaw: strPtr(problem405)},
		{name: "404", editions: airflow1, path: "/nope", wantStatus: 404, check: noDeprecation},
		{name: "405", editions: airflow1, method: "PUT", path: "/pools", wantStatus: 405},
		{name: "no trailing-slash redirect pools", path: "/pools/", wantStatus: 404},
		{name: "no trailing-slash redirect test", path: "/test/", wantStatus: 404},
		{name: "no case redirect", path: "/Pools", wantStatus: 404},
		{name: "HEAD test", method: "HEAD", path: "/test", wantStatus: 200, wantRaw: strPtr(""), wantType: "application/json",
			check: func(t *testing.T, ts *testServer, res response) { checkDeprecationHeaders(t, ts.edition, res.header) }},
		{name: "HEAD pool", method: "HEAD", path: "/pools/default_pool", wantStatus: 200, wantRaw: strPtr("")},
		{name: "HEAD unknown pool", method: "HEAD", path: "/pools/nope", wantStatus: 404, wantRaw: strPtr("")},
		// Flask's default OPTIONS answer is an empty Response, whose
		// mimetype is text/html (as the real Airflow 2.10.3 answered).
		{name: "OPTIONS pools", method: "OPTIONS", path: "/pools", wantStatus: 200, wantRaw: strPtr(""),
			wantType: "text/html; charset=utf-8", check: allow("GET", "HEAD", "OPTIONS", "POST")},
		{name: "OPTIONS dag_runs", method: "OPTIONS", path: "/dags/x/dag_runs", wantStatus: 200,
			wantType: "text/html; charset=utf-8", check: allow("GET", "HEAD", "OPTIONS", "POST")},
		{name: "OPTIONS pool", method: "OPTIONS", path: "/pools/x", wantStatus: 200,
			check: allow("DELETE", "GET", "HEAD", "OPTIONS")},
		{name: "OPTIONS unknown path", method: "OPTIONS", path: "/nope", wantStatus: 404},
		{name: "DELETE dag OPTIONS", editions: []edition{edition2, edition110}, method: "OPTIONS", path: "/dags/x",
			wantStatus: 200, check: allow("DELETE", "OPTIONS")},
	})
}

// The byte form of JSON answers.
func TestServer_JSONBytes(t *testing.T) {
	t.Parallel()
	lineage := func(raw string) func(t *testing.T, ts *testServer) {
		return func(t *testing.T, ts *testServer) {
			t.Helper()
			taskInstancePreconditionFor(t, ts, "example_papermill_operator")
			if err := ts.store.UpsertLineage(&LineageRecord{DagID: "example_papermill_operator", RunID: "r",
				TaskID: "t", Inlets: json.RawMessage(raw)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const lineagePath = "/lineage/example_papermill_operator/" + dsPath
	dateError := func(raw string) string {
		return "Given execution date, " + raw + ", could not be identified as a date. Example date format: 2015-11-16T14:34:15+00:00"
	}
	trigger := "/dags/example_bash_operator/dag_runs"
	runCases(t, []httpCase{
		{name: "1.10 compact with newline", editions: airflow1, path: "/test", wantStatus: 200,
			wantRaw: strPtr("{\"status\":\"OK\"}\n"), wantType: "application/json"},
		{name: "2 spaced without newline", editions: airflow2, path: "/test", wantStatus: 200,
			wantRaw: strPtr(`{"status": "OK"}`), wantType: "application/json"},
		{name: "1.10 error", editions: airflow1, path: "/pools/foo", wantStatus: 404,
			wantRaw: strPtr("{\"error\":\"Pool 'foo' doesn't exist\"}\n")},
		{name: "2 error", editions: airflow2, path: "/pools/foo", wantStatus: 404,
			wantRaw: strPtr(`{"error": "Pool 'foo' doesn't exist"}`)},
		{name: "1.10 empty list", editions: airflow1, path: "/dags/example_bash_operator/dag_runs", wantStatus: 200,
			wantRaw: strPtr("[]\n")},
		{name: "latest_runs empty", path: "/latest_runs", wantStatus: 200, wantBody: `{"items":[]}`},
		{name: "non-ASCII escaped", method: "POST", path: trigger, body: `{"execution_date": "é"}`,
			wantStatus: 400, wantError: dateError(`\u00e9`)},
		{name: "surrogate pair", method: "POST", path: trigger, body: `{"execution_date": "😀"}`,
			wantStatus: 400, wantError: dateError(`\ud83d\ude00`)},
		{name: "DEL and controls escaped", method: "POST", path: trigger, body: `{"execution_date": "a\u007fb\n\t\u0001\""}`,
			wantStatus: 400, wantError: dateError(`a\u007fb\n\t\u0001\"`)},
		{name: "slash and html characters kept", method: "POST", path: trigger, body: `{"execution_date": "a/b<c>&d\\e"}`,
			wantStatus: 400, wantError: dateError(`a/b<c>&d\\e`)},
		{name: "non-ASCII in path", path: "/dags/caf%C3%A9/tasks/x", wantStatus: 404,
			wantError: `Dag id caf\u00e9 not found in DagModel`},
		{name: "sorted keys and python floats", editions: airflow2, path: lineagePath, wantStatus: 200,
			setup:    lineage(`[{"z": 1.0, "a": 1e16, "m": 0.00001, "b": 0.0001, "é": "ü", "n": null, "t": true, "i": -0}]`),
			wantRaw:  strPtr(`{"task_ids": {"t": {"inlets": [{"a": 1e+16, "b": 0.0001, "i": 0, "m": 1e-05, "n": null, "t": true, "z": 1.0, "\u00e9": "\u00fc"}]}}}`),
			wantType: "application/json"},
		{name: "latest_runs", editions: airflow2, setup: func(t *testing.T, ts *testServer) {
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-01-01"}`)
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-02-01"}`)
			ts.trigger(t, "tutorial", `{"execution_date": "2023-01-01"}`)
		}, path: "/latest_runs", wantStatus: 200, check: func(t *testing.T, ts *testServer, res response) {
			items := decodeJSON[map[string][]map[string]any](t, res.body)["items"]
			byDag := map[string]map[string]any{}
			for _, it := range items {
				byDag[it["dag_id"].(string)] = it
			}
			if len(items) != 2 || byDag["example_bash_operator"]["execution_date"] != "2024-02-01T00:00:00+00:00" ||
				byDag["tutorial"]["execution_date"] != "2023-01-01T00:00:00+00:00" {
				t.Errorf("items = %v", items)
			}
			want := map[string]any{"dag_id": "tutorial", "start_date": "", "execution_date": "2023-01-01T00:00:00+00:00",
				"dag_run_url": "/dags/tutorial/graph?execution_date=2023-01-01+00%3A00%3A00%2B00%3A00"}
			if !reflect.DeepEqual(byDag["tutorial"], want) {
				t.Errorf("tutorial item = %v, want %v", byDag["tutorial"], want)
			}
		}},
		{name: "latest_runs", editions: []edition{edition110}, setup: func(t *testing.T, ts *testServer) {
			ts.trigger(t, "tutorial", `{"execution_date": "2023-01-01"}`)
		}, path: "/latest_runs", wantStatus: 200,
			wantBody: `{"items":[{"dag_id":"tutorial","dag_run_url":"/admin/airflow/graph?dag_id=tutorial&execution_date=2023-01-01+00%3A00%3A00%2B00%3A00","execution_date":"2023-01-01T00:00:00+00:00","start_date":"2024-05-01T10:00:00.123456+00:00"}]}`},
	})
}

func taskInstancePreconditionFor(t *testing.T, ts *testServer, dagID string) {
	t.Helper()
	ts.trigger(t, dagID, `{"run_id": "r", "execution_date": "2024-05-01T10:00:00+00:00"}`)
}

// Request bodies over 1 MiB are refused with a JSON 413.
func TestServer_BodyLimit(t *testing.T) {
	t.Parallel()
	exact := `{"run_id": "big"` + strings.Repeat(" ", maxBodyBytes-len(`{"run_id": "big"}`)) + `}`
	runCases(t, []httpCase{
		{name: "over the limit", method: "POST", path: "/dags/example_bash_operator/dag_runs",
			body: exact + " ", wantStatus: 413, wantError: "request body too large: the limit is 1048576 bytes",
			check: func(t *testing.T, ts *testServer, res response) {
				if runs, _ := ts.store.RunsOfDag("example_bash_operator", ""); len(runs) != 0 {
					t.Error("a refused body created a run")
				}
			}},
		{name: "pool over the limit", method: "POST", path: "/pools", body: exact + " ", wantStatus: 413},
		{name: "exactly the limit", method: "POST", path: "/dags/example_bash_operator/dag_runs",
			body: exact, wantStatus: 200, wantContains: []string{"big"}},
	})
}

// Admin endpoints.
func TestServer_Admin(t *testing.T) {
	t.Parallel()
	runCases(t, []httpCase{
		{name: "health", path: "/_airlite/health", wantStatus: 200, wantRaw: strPtr("{\"status\":\"ok\"}\n"),
			wantType: "application/json"},
		{name: "health while starting", options: []testOption{notReady()}, path: "/_airlite/health", wantStatus: 200},
		{name: "ready", path: "/_airlite/ready", wantStatus: 200, wantType: "application/json"},
		{name: "not ready", options: []testOption{notReady()}, path: "/_airlite/ready", wantStatus: 503,
			wantType: "application/json"},
		{name: "admin has no deprecation headers", editions: airflow2, path: "/_airlite/health", wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				if res.header.Get("Deprecation") != "" {
					t.Error("Deprecation header on an admin endpoint")
				}
			}},
	})
}

func TestServer_Ready(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, notReady())
	if res := ts.do(t, "GET", "/_airlite/ready", ""); res.status != 503 {
		t.Fatalf("before ready: %d, want 503", res.status)
	}
	ts.srv.ready.Store(true)
	if res := ts.do(t, "GET", "/_airlite/ready", ""); res.status != 200 {
		t.Fatalf("after ready: %d, want 200", res.status)
	}
}

const pausedDAG = `
dag_id: starts_paused
schedule_interval: null
is_paused_upon_creation: true
tasks:
  - {task_id: only, operator: EmptyOperator}
`

func TestServer_Reset(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			fixtureDesc := "from the fixtures"
			var (
				mu    sync.Mutex // the hooks run on the server's goroutines
				calls []string
			)
			record := func(call string) {
				mu.Lock()
				defer mu.Unlock()
				calls = append(calls, call)
			}
			ts := newTestServer(t, e, withDAG(pausedDAG),
				withFixturePools(&Pool{Name: "fixture_pool", Slots: 4, Description: &fixtureDesc}),
				withOptions(func(o *serverOptions) {
					o.WithTasksStopped = func(_ func(tiKey) bool, change func() error) error {
						record("stop")
						return change()
					}
					o.Kick = func() { record("kick") }
				}))
			api := func(method, path, body string, wantStatus int) response {
				t.Helper()
				res := ts.do(t, method, apiPrefix+path, body)
				if res.status != wantStatus {
					t.Fatalf("%s %s: %d %s, want %d", method, path, res.status, res.body, wantStatus)
				}
				return res
			}
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-01-01"}`)
			ts.trigger(t, "example_subdag_operator", `{}`) // runs 2, 3, 4
			api("POST", "/pools", `{"name": "extra", "slots": 1, "description": ""}`, 200)
			api("POST", "/pools", `{"name": "default_pool", "slots": 1, "description": ""}`, 200)
			api("DELETE", "/pools/fixture_pool", "", 200)
			api("GET", "/dags/example_bash_operator/paused/true", "", 200)
			api("GET", "/dags/starts_paused/paused/false", "", 200)
			if e != edition110RBAC {
				api("DELETE", "/dags/tutorial", "", 200)
			}
			mu.Lock()
			calls = nil
			mu.Unlock()

			res := ts.do(t, "POST", "/_airlite/reset", "")
			if res.status != 200 || res.body != "{\"scope\":\"all\",\"status\":\"reset\"}\n" {
				t.Fatalf("reset: %d %q", res.status, res.body)
			}
			mu.Lock()
			gotCalls := append([]string(nil), calls...)
			mu.Unlock()
			if want := []string{"stop", "kick"}; !reflect.DeepEqual(gotCalls, want) {
				t.Errorf("calls = %v, want %v", gotCalls, want)
			}
			if res := api("GET", "/dags/example_bash_operator/dag_runs", "", 200); res.body != wire(e, "[]") {
				t.Errorf("runs after reset: %s", res.body)
			}
			if res := api("GET", "/latest_runs", "", 200); res.body != wire(e, `{"items":[]}`) {
				t.Errorf("latest_runs after reset: %s", res.body)
			}
			pools := decodeJSON[[]map[string]any](t, api("GET", "/pools", "", 200).body)
			var got []string
			for _, p := range pools {
				got = append(got, p["pool"].(string)+"="+jsonText(p["slots"])+"/"+jsonText(p["description"]))
			}
			if want := []string{`default_pool=128/"Default pool"`, `fixture_pool=4/"from the fixtures"`}; !reflect.DeepEqual(got, want) {
				t.Errorf("pools after reset = %v, want %v", got, want)
			}
			if res := api("GET", "/dags/example_bash_operator/paused", "", 200); res.body != wire(e, `{"is_paused":false}`) {
				t.Errorf("example_bash_operator paused after reset: %s", res.body)
			}
			if res := api("GET", "/dags/starts_paused/paused", "", 200); res.body != wire(e, `{"is_paused":true}`) {
				t.Errorf("starts_paused after reset: %s", res.body)
			}
			api("GET", "/dags/tutorial/tasks/print_date", "", 200)
			api("GET", "/dags/example_subdag_operator.section-1/tasks/section-1-task-1", "", 200)

			ts.trigger(t, "example_bash_operator", `{}`)
			runs := decodeJSON[[]map[string]any](t, api("GET", "/dags/example_bash_operator/dag_runs", "", 200).body)
			if len(runs) != 1 || runs[0]["id"] != float64(5) {
				t.Errorf("runs after reset and trigger = %v, want one with id 5", runs)
			}
		})
	}
}

// The API's methods are callable without HTTP.
func TestAirflowAPI_Direct(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	res, err := ts.srv.api.TriggerDAG("example_bash_operator", []byte(`{"run_id": "direct"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res["run_id"] != "direct" {
		t.Errorf("run_id = %v", res["run_id"])
	}
	_, err = ts.srv.api.Pool("nope")
	var apiErr *apiError
	if !errors.As(err, &apiErr) || apiErr.Error() != "Pool 'nope' doesn't exist" {
		t.Errorf("Pool(nope) error = %v", err)
	}
}

// Every request gets one access-log line at info: the route pattern it
// matched (none for an unknown path), method, status, bytes, duration and
// the time it ended; at warn there are none.
func TestServer_AccessLog(t *testing.T) {
	t.Parallel()
	for _, level := range []zerolog.Level{zerolog.InfoLevel, zerolog.WarnLevel} {
		t.Run(level.String(), func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			access := zerolog.New(&logs).Level(level)
			ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.AccessLog = &access }))
			before := time.Now().UTC().Truncate(time.Second)
			ts.do(t, http.MethodGet, apiPrefix+"/test", "")
			ts.do(t, http.MethodGet, "/no/such/path", "")
			ts.do(t, http.MethodPost, apiPrefix+"/dags/example_bash_operator/dag_runs", `{"run_id": "logged"}`)
			after := time.Now().UTC()
			var lines []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if line == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				lines = append(lines, m)
			}
			if level == zerolog.WarnLevel {
				if len(lines) != 0 {
					t.Fatalf("at warn: %d access lines, want none", len(lines))
				}
				return
			}
			want := []struct {
				route, method string
				status        float64
			}{
				{apiPrefix + "/test", "GET", 200},
				{"", "GET", 404},
				{apiPrefix + "/dags/:dag_id/dag_runs", "POST", 200},
			}
			if len(lines) != len(want) {
				t.Fatalf("%d access lines, want %d:\n%s", len(lines), len(want), logs.String())
			}
			for i, w := range want {
				m := lines[i]
				route, hasRoute := m["route"]
				if (w.route == "") == hasRoute || (hasRoute && route != w.route) {
					t.Errorf("line %d route %v, want %q", i, route, w.route)
				}
				if m["method"] != w.method || m["status"] != w.status || m["message"] != "request" || m["level"] != "info" {
					t.Errorf("line %d: %v", i, m)
				}
				if b, _ := m["bytes"].(float64); b <= 0 {
					t.Errorf("line %d bytes %v, want the body's size", i, m["bytes"])
				}
				if d, ok := m["dur"].(float64); !ok || d < 0 {
					t.Errorf("line %d dur %v", i, m["dur"])
				}
				stampText, _ := m["time"].(string)
				stamp, err := time.Parse(time.RFC3339, stampText)
				if err != nil || stamp.Before(before) || stamp.After(after) {
					t.Errorf("line %d time %v (%v), want between %v and %v", i, m["time"], err, before, after)
				}
			}
		})
	}
}

// isFalsy is Python's truthiness of a JSON value, which decides whether a
// trigger's conf and run_id count as given.
func TestIsFalsy(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		`null`: true, `false`: true, `""`: true, `[]`: true, `{}`: true, `[ ]`: true, "{\n\t}": true, ` {} `: true,
		`0`: true, `0.0`: true, `-0`: true, `0e5`: true, `1e-400`: true,
		`true`: false, `" "`: false, `"0"`: false, `[0]`: false, `{"a": 1}`: false, `[[]]`: false, `{"": null}`: false,
		`1`: false, `-1`: false, `0.5`: false, `7`: false, `"\u0000"`: false,
	} {
		if got := isFalsy(json.RawMessage(raw)); got != want {
			t.Errorf("isFalsy(%s) = %v, want %v", raw, got, want)
		}
	}
}
