package main

// Fuzz targets for everything that reads outside input: dates, the trigger
// and pool bodies, path parameters, DAG definition files and snapshots.
// Each has seeds in f.Add and in testdata/fuzz/<FuzzName>/; .ci/run runs
// each for a few seconds. Run one longer with
//
//	go test -run '^$' -fuzz '^FuzzTriggerBody$' -fuzztime 5m .
//
// The invariants: no input panics; a rejected request leaves the store
// exactly as it was (stateDigest); an accepted one stores what it said.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// stateDigest names the store's state: the change index, then every row
// of every table by identity. Rows in memdb are never changed in place, so
// two equal digests mean the same state; any write shows.
// rejected reports whether a request body was refused; a refusal must be
// one of the API's errors and leave the store as it was (digest before).
func rejected(t *testing.T, store *Store, before string, body []byte, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	checkAPIError(t, err)
	if after := stateDigest(t, store); after != before {
		t.Fatalf("rejected body %q (%v) changed the store:\nbefore %s\nafter  %s", body, err, before, after)
	}
	return true
}

func stateDigest(t testing.TB, store *Store) string {
	t.Helper()
	txn := store.read()
	var b strings.Builder
	fmt.Fprintf(&b, "change=%d", counterValue(txn, counterChange))
	tables := make([]string, 0, len(schema().Tables))
	for name := range schema().Tables {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	for _, table := range tables {
		it, err := txn.Get(table, indexID)
		if err != nil {
			t.Fatalf("list %s: %v", table, err)
		}
		n := 0
		fmt.Fprintf(&b, "\n%s:", table)
		for raw := it.Next(); raw != nil; raw = it.Next() {
			fmt.Fprintf(&b, " %p", raw)
			n++
		}
		fmt.Fprintf(&b, " (%d rows)", n)
	}
	return b.String()
}

// fuzzDAGs is the embedded example set, parsed once per process: fuzz
// iterations only read it.
var fuzzDAGs = sync.OnceValues(loadEmbeddedDAGs)

// fuzzStore is a fresh store with the embedded DAGs.
func fuzzStore(t testing.TB) *Store {
	t.Helper()
	dags, err := fuzzDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	return store
}

func fuzzAPI(store *Store, e edition) *airflowAPI {
	return newAirflowAPI(&operations{store: store, edition: e, now: func() time.Time { return testNow }, unixname: testUnixname})
}

// fuzzEdition picks an edition from a fuzzed byte.
func fuzzEdition(b byte) edition { return allEditions[int(b)%len(allEditions)] }

// checkAPIError fails unless err is one of the API's own answers: anything
// else is an internal error, a 500 no client input may cause.
func checkAPIError(t *testing.T, err error) {
	t.Helper()
	var apiErr *apiError
	if !errors.As(err, &apiErr) {
		t.Fatalf("internal error (a 500 nobody meant): %v", err)
	}
}

func FuzzParseAirflowDate(f *testing.F) {
	for _, s := range []string{
		"2016-11-16T14:34:15", "2016-11-16 14:34:15", "2016-11-16", "2016-11-16T14:34:15.123456+02:00",
		"2016-11-16T14:34:15Z", "now", " NOW ", "20161116T143415", "2016-321", "2016-W46-3", "2016W463",
		"Wed, 16 Nov 2016 14:34:15 +0000", "2016/11/16 14:34:15", "11/16/2016", "Nov 16 2016", "16 November 2016",
		"2021-02-30", "2016-11-16T24:00:00", "2016-11-16T14:34:15+24:00", "0000-01-01", "9999-12-31T23:59:59.999999-23:59",
		"2016-11-16T14:34:15.1234567890123", "", "\x00", "2016-11-16T14:34:15+0530", "0001-01-01T00:00:00+01:00",
		"Wed May 01 2024 12:00:00 GMT+0200", "Wednesday, May 1, 2024 10:00 AM", "2024.05.01", "2024-5-1", "10h36m28.5s",
		"5/1/24", "Monday", "2016-11", "2024", "3rd of May 2001", "10:00 -03:00 (BRST)", "9999-12-31 23:59 -0100",
	} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := parseAirflowDate(raw, now)
		if err != nil {
			if !errors.Is(err, errBadDate) {
				t.Fatalf("parseAirflowDate(%q) error %v does not wrap errBadDate", raw, err)
			}
			return
		}
		if y, u := got.Year(), got.UTC().Year(); y < 1 || y > 9999 || u < 1 || u > 9999 {
			t.Fatalf("parseAirflowDate(%q) = %v: year %d (UTC %d) is outside Python's 1..9999", raw, got, y, u)
		}
		if got.Nanosecond()%1000 != 0 {
			t.Fatalf("parseAirflowDate(%q) = %v: finer than microseconds", raw, got)
		}
		// Both renderings parse back to the same instant and offset.
		for _, text := range []string{isoFormat(got), strFormat(got)} {
			back, err := parseAirflowDate(text, now)
			if err != nil {
				t.Fatalf("parseAirflowDate(%q) = %v, whose rendering %q does not parse: %v", raw, got, text, err)
			}
			if !back.Equal(got) {
				t.Fatalf("parseAirflowDate(%q) = %v; its rendering %q parses as %v", raw, got, text, back)
			}
			_, off1 := got.Zone()
			_, off2 := back.Zone()
			if off1 != off2 {
				t.Fatalf("parseAirflowDate(%q) offset %d; its rendering %q parses with offset %d", raw, off1, text, off2)
			}
		}
	})
}

// FuzzDateutil: the dateutil reader never panics, answers the same twice,
// and what it accepts is a date Python could hold. Seeds: a spread of the
// golden table's texts (TestDateutilGolden checks their answers); every
// one of its 1,700 would take the whole of CI's few seconds to load.
func FuzzDateutil(f *testing.F) {
	for i, row := range readDateutilGolden(f) {
		if i%16 == 0 {
			f.Add(row.In)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := parseDateutil(raw, dateutilToday)
		again, okAgain := parseDateutil(raw, dateutilToday)
		if ok != okAgain || !got.Equal(again) || got.Location().String() != again.Location().String() {
			t.Fatalf("parseDateutil(%q) = %v, %v, then %v, %v", raw, got, ok, again, okAgain)
		}
		if !ok {
			return
		}
		if y := got.Year(); y < 1 || y > 9999 {
			t.Fatalf("parseDateutil(%q) = %v: year outside 1..9999", raw, got)
		}
		if got.Nanosecond()%1000 != 0 {
			t.Fatalf("parseDateutil(%q) = %v: finer than microseconds", raw, got)
		}
		if _, off := got.Zone(); off <= -86400 || off >= 86400 {
			t.Fatalf("parseDateutil(%q) = %v: offset of a day or more", raw, got)
		}
	})
}

func FuzzTriggerBody(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"conf": {"a": 1}}`, `{"conf": "{\"key\":\"value\"}"}`, `{"conf": null}`, `{"conf": []}`,
		`{"run_id": "my_run", "execution_date": "2024-05-01T10:00:00+02:00"}`,
		`{"execution_date": "2016-11-16", "replace_microseconds": "false"}`, `{"replace_microseconds": true}`,
		`{"run_id": 5}`, `{"run_id": "x", "run_id": "y"}`, `{"execution_date": 1}`, `[]`, `null`, `"x"`, `{`,
		`{"conf": {"cmd": "$(touch /tmp/x)", "b": "` + "`id`" + `"}}`, "{\"run_id\": \"\xff\xfe\"}",
		`{"unknown": 1, "conf": {"nested": {"deep": [1, 2, {"x": null}]}}}`, `{"run_id": "a/../b"}`,
		`{"execution_date": "1990-01-01T00:00:00+00:00", "run_id": "manual__1990-01-01T00:00:00+00:00"}`,
		// Other JSON kinds: Python's `in` on a str, a list, a number.
		`""`, `"conf"`, `"\u0063onf"`, `"xrun_idx"`, `["conf"]`, `[["conf"]]`, `["run_id_", 1, null]`,
		`5`, `-0.0`, `true`, `false`, `[{"conf": 1}]`, `"{\"execution_date\": \"now\"}"`,
	} {
		f.Add([]byte(s), byte(0))
		f.Add([]byte(s), byte(1))
	}
	f.Fuzz(func(t *testing.T, body []byte, ed byte) {
		e := fuzzEdition(ed)
		store := fuzzStore(t)
		api := fuzzAPI(store, e)
		// A run already there, so that duplicates are reached.
		if _, err := api.TriggerDAG("example_bash_operator", []byte(`{"execution_date": "2024-01-01T00:00:00+00:00", "run_id": "existing"}`)); err != nil {
			t.Fatal(err)
		}
		before := stateDigest(t, store)
		res, err := api.TriggerDAG("example_bash_operator", body)
		if rejected(t, store, before, body, err) {
			return
		}
		if _, err := e.marshal(res); err != nil {
			t.Fatalf("answer does not render: %v", err)
		}
		runID, _ := res["run_id"].(string)
		run, err := store.RunByRunID("example_bash_operator", runID)
		if err != nil {
			t.Fatalf("accepted body %q: run %q not stored: %v", body, runID, err)
		}
		if run.Conf != nil {
			if !json.Valid(run.Conf) {
				t.Fatalf("stored conf is not JSON: %q", run.Conf)
			}
			if len(run.Conf) > maxConfBytes {
				t.Fatalf("stored conf has %d bytes, over the %d limit", len(run.Conf), maxConfBytes)
			}
		}
		// An object conf round-trips: what was sent is what is stored.
		var fields map[string]json.RawMessage
		if json.Unmarshal(body, &fields) == nil && jsonKind(fields["conf"]) == "an object" && !isFalsy(fields["conf"]) {
			want, err := decodeJSONValue(fields["conf"])
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeJSONValue(run.Conf)
			if err != nil {
				t.Fatalf("stored conf %q: %v", run.Conf, err)
			}
			wantText, _ := json.Marshal(want)
			gotText, _ := json.Marshal(got)
			if !bytes.Equal(wantText, gotText) {
				t.Fatalf("conf sent %s, stored %s", wantText, gotText)
			}
		}
		// Every read of the new run answers.
		date := isoFormat(run.ExecutionDate)
		if _, err := api.DagRunState("example_bash_operator", date); err != nil {
			t.Fatalf("state of the new run at %s: %v", date, err)
		}
		if _, err := api.DagRuns("example_bash_operator", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := api.TaskInstanceInfo("example_bash_operator", date, "runme_0"); err != nil {
			// A run dated before a task's start_date has no instance of
			// it (Airflow 2.10.3 airflow/models/dagrun.py:1231-1236):
			// then the run holds no task instance at all.
			tis, tiErr := store.TaskInstancesOfRun("example_bash_operator", runID)
			if !errors.Is(err, errNotFound) || tiErr != nil || len(tis) != 0 {
				t.Fatalf("task instance of the new run at %s: %v (run has %d task instances)", date, err, len(tis))
			}
		}
		if _, err := api.LatestRuns(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzPoolBody(f *testing.F) {
	for _, s := range []string{
		`{"name": "p", "slots": 1, "description": "d"}`, `{"name": "p", "slots": "5", "description": null}`,
		`{"name": "p", "slots": 5.7, "description": ""}`, `{"name": "p", "slots": true, "description": "x"}`,
		`{"name": " ", "slots": 1, "description": ""}`, `{"name": null, "slots": 1, "description": ""}`,
		`{"name": "p", "slots": "foo", "description": ""}`, `{"name": "p", "slots": null, "description": ""}`,
		`{"name": "p", "slots": 1}`, `{"name": "p", "slots": 1, "description": "", "include_deferred": false}`,
		`{"name": "default_pool", "slots": -1, "description": "all"}`, `{"name": "p", "slots": " +1_000 ", "description": 1}`,
		`{"name": "p", "name": "q", "slots": 1, "description": ""}`, `{"name": "../etc", "slots": 1e400, "description": ""}`,
		"{\"name\": \"\xff\", \"slots\": 1, \"description\": \"\"}", `{"name": "` + strings.Repeat("n", 300) + `", "slots": 1, "description": ""}`,
		`[]`, `{`, ``,
	} {
		f.Add([]byte(s), byte(0))
		f.Add([]byte(s), byte(1))
	}
	f.Fuzz(func(t *testing.T, body []byte, ed byte) {
		e := fuzzEdition(ed)
		store := fuzzStore(t)
		api := fuzzAPI(store, e)
		before := stateDigest(t, store)
		res, err := api.CreatePool(body)
		if rejected(t, store, before, body, err) {
			return
		}
		if _, err := e.marshal(res); err != nil {
			t.Fatalf("answer does not render: %v", err)
		}
		var sent struct {
			Name        string
			Description *string
		}
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatalf("accepted body %q does not decode: %v", body, err)
		}
		if n := utf8.RuneCountInString(sent.Name); n > maxPoolNameChars {
			t.Fatalf("accepted a pool name of %d characters", n)
		}
		if sent.Description != nil && len(*sent.Description) > maxPoolDescriptionBytes {
			t.Fatalf("accepted a description of %d bytes", len(*sent.Description))
		}
		p, err := store.PoolByName(sent.Name)
		if err != nil {
			t.Fatalf("accepted pool %q not stored: %v", sent.Name, err)
		}
		if p.Slots != res["slots"] || p.Name != res["pool"] {
			t.Fatalf("stored %+v, answered %v", p, res)
		}
		if (p.Description == nil) != (sent.Description == nil) || (p.Description != nil && *p.Description != *sent.Description) {
			t.Fatalf("description sent %v, stored %v", sent.Description, p.Description)
		}
		// The pool reads back and deletes (unless it is default_pool).
		if _, err := api.Pool(sent.Name); err != nil && strings.TrimSpace(sent.Name) != "" {
			t.Fatalf("GET pool %q: %v", sent.Name, err)
		}
		if sent.Name != defaultPoolName {
			if _, err := api.DeletePool(sent.Name); err != nil {
				t.Fatalf("DELETE pool %q: %v", sent.Name, err)
			}
		}
	})
}

// fuzzPathServer is a server over a store with one run, answering in
// memory (no sockets), for the path fuzzer.
func fuzzPathServer(t *testing.T, e edition) (*Store, http.Handler) {
	t.Helper()
	store := fuzzStore(t)
	dags, _ := fuzzDAGs()
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(serverOptions{Edition: e, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.Nop(), Now: func() time.Time { return testNow }, Unixname: testUnixname})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.api.TriggerDAG("example_bash_operator", []byte(`{"execution_date": "2024-01-01T00:00:00+00:00"}`)); err != nil {
		t.Fatal(err)
	}
	srv.ready.Store(true)
	return store, srv.routes()
}

// pathRoutes are the experimental API's GET and DELETE routes with their
// parameters as %s.
var pathRoutes = []struct {
	method, pattern string
	writes          bool // may change the store
}{
	{http.MethodGet, "/dags/%[1]s/dag_runs", false},
	{http.MethodGet, "/dags/%[1]s/dag_runs?state=%[4]s", false},
	{http.MethodGet, "/dags/%[1]s/dag_runs/%[2]s", false},
	{http.MethodGet, "/dags/%[1]s/dag_runs/%[2]s/tasks/%[3]s", false},
	{http.MethodGet, "/dags/%[1]s/tasks/%[3]s", false},
	{http.MethodGet, "/dags/%[1]s/code", false},
	{http.MethodGet, "/dags/%[1]s/paused/%[4]s", true},
	{http.MethodGet, "/dags/%[1]s/paused", false},
	{http.MethodDelete, "/dags/%[1]s", true},
	{http.MethodGet, "/pools/%[4]s", false},
	{http.MethodDelete, "/pools/%[4]s", true},
	{http.MethodGet, "/lineage/%[1]s/%[2]s", false},
}

func FuzzPathParams(f *testing.F) {
	for _, s := range [][4]string{
		{"example_bash_operator", "2024-01-01T00:00:00+00:00", "runme_0", "true"},
		{"example_bash_operator", "2024-01-01T00%3A00%3A00%2B00%3A00", "runme_0", "default_pool"},
		{"..", "..%2F..", "%2e%2e", "%00"}, {"%2F", "%25", "%", "%zz"}, {"a%20b", "now", "", "%20%20"},
		{"example_bash_operator%00", "2024-01-01", "runme_0/../x", "../../etc/passwd"},
		{"%C3%A9", "%FF%FE", "\xff", "%E2%80%AE"}, {"example_subdag_operator", "2024-01-01 00:00:00", "section-1", "false"},
		{"x?y=1", "#frag", "a;b", "default_pool%3F"},
	} {
		f.Add(s[0], s[1], s[2], s[3], byte(0))
	}
	f.Fuzz(func(t *testing.T, dagID, date, taskID, other string, ed byte) {
		e := fuzzEdition(ed)
		store, h := fuzzPathServer(t, e)
		for _, route := range pathRoutes {
			target := apiPrefix + fmt.Sprintf(route.pattern, dagID, date, taskID, other)
			u, err := url.ParseRequestURI(target)
			if err != nil || u.Host != "" || u.Scheme != "" {
				continue // no client can send it
			}
			req := &http.Request{Method: route.method, URL: u, RequestURI: target, Header: http.Header{},
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "airlite"}
			req = req.WithContext(context.Background())
			before := stateDigest(t, store)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if strings.Contains(body, "internal error: see the airlite log") {
				t.Fatalf("%s %s: internal error or panic, status %d: %s", route.method, target, rec.Code, body)
			}
			ct := rec.Header().Get("Content-Type")
			switch {
			case rec.Code == http.StatusOK && strings.HasSuffix(route.pattern, "/code"):
			case strings.HasPrefix(ct, "application/json"), strings.HasPrefix(ct, "application/problem+json"):
				if !json.Valid(rec.Body.Bytes()) {
					t.Fatalf("%s %s: status %d, body is not JSON: %q", route.method, target, rec.Code, body)
				}
			default:
				t.Fatalf("%s %s: status %d, Content-Type %q", route.method, target, rec.Code, ct)
			}
			if rec.Code != http.StatusOK || !route.writes {
				if after := stateDigest(t, store); after != before {
					t.Fatalf("%s %s (status %d) changed the store:\nbefore %s\nafter  %s", route.method, target, rec.Code, before, after)
				}
			}
		}
	})
}

// definitionErrorRe is the start of every error of a definition file.
var definitionErrorRe = regexp.MustCompile(`^line [1-9][0-9]*: `)

func FuzzParseDAG(f *testing.F) {
	files, _ := filepath.Glob("fixtures/*/*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"dag_id: a\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n",
		"dag_id: a\ntasks:\n  - {task_id: t, operator: BashOperator, bash_command: 'echo {{ dag_run.conf.x }}', upstream: [u]}\n  - {task_id: u, operator: EmptyOperator, upstream: [t]}\n",
		"dag_id: a\nschedule_interval: '*/5 * * * *'\nstart_date: 2021-01-01\ndefault_args: {retries: 2, retry_delay: 1s, start_date: 2020-01-01}\ntasks:\n  - {task_id: t, operator: PythonOperator, simulate: {duration: 1s, outcome: failed, fail_times: 1}}\n",
		"dag_id: x\ntasks: &t\n  - <<: *t\n", "dag_id: x\ndefault_args: &d {retries: 1}\ntasks:\n  - {<<: *d, task_id: a, operator: EmptyOperator}\n",
		"dag_id: ../x\ntasks: []\n", "{\"dag_id\": \"j\", \"tasks\": [{\"task_id\": \"t\", \"operator\": \"EmptyOperator\"}]}", "&a [*a]", "dag_id: [",
		"dag_id: a\ndagrun_timeout: 99999999999999h\ntasks:\n  - {task_id: t, operator: EmptyOperator, retry_delay: -1s, execution_timeout: 0:00:01}\n",
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		dag, err := parseDAG(data)
		if err != nil {
			// Every refusal names its line and speaks plainly.
			if !definitionErrorRe.MatchString(err.Error()) || speaksDecoder(err.Error()) {
				t.Fatalf("error %q: want \"line N: ...\" in plain words", err)
			}
			return
		}
		if dag.DagID == "" || len(dag.Tasks) == 0 {
			t.Fatalf("accepted a DAG without id or tasks: %+v", dag)
		}
		for _, task := range dag.Tasks {
			for _, id := range append(append([]string(nil), task.Upstream...), task.Downstream...) {
				if dag.Task(id) == nil {
					t.Fatalf("task %s names unknown task %q", task.TaskID, id)
				}
			}
		}
		_ = renderPython(dag, python2)
		_ = renderPython(dag, python110)
		_ = renderPython(dag, python3)
		for _, e := range allEditions {
			for _, task := range dag.Tasks {
				if _, err := e.marshal(e.taskInfo(dag, task)); err != nil {
					t.Fatalf("task info of %s does not render: %v", task.TaskID, err)
				}
			}
		}
		if len(dag.SubDAGIDs()) > 0 {
			return // a sub-DAG needs its child's file too
		}
		// The DAG loads, triggers and schedules without a panic.
		store, err := newStore()
		if err != nil {
			t.Fatal(err)
		}
		dag.FilePath = "fuzz.yaml"
		if err := store.LoadDAGs(&DAGSet{DAGs: []*DAG{dag}}); err != nil {
			t.Fatalf("LoadDAGs: %v", err)
		}
		api := fuzzAPI(store, edition2)
		if _, err := api.TriggerDAG(dag.DagID, []byte(`{"execution_date": "2030-01-01T00:00:00+00:00", "conf": {"x": "$(id)"}}`)); err != nil {
			checkAPIError(t, err)
		}
		sched := newScheduler(schedulerOptions{Store: store, Edition: edition2, Logger: zerolog.Nop(),
			Now: func() time.Time { return now },
			RunTask: func(ctx context.Context, job taskJob) taskOutcome {
				return taskOutcome{state: TaskSuccess}
			}})
		for i := 0; i < 3; i++ {
			if err := sched.tick(now.Add(time.Duration(i) * time.Hour)); err != nil {
				t.Fatalf("tick: %v", err)
			}
			_ = sched.WithTasksStopped(func(tiKey) bool { return false }, func() error { return nil })
		}
		sched.stop()
	})
}

// fixSnapshotCRC rewrites the end line's checksum to match the bytes
// before it, so that fuzzed snapshots reach the row decoder instead of
// stopping at the checksum.
func fixSnapshotCRC(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return data
	}
	start := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	var footer snapshotFooter
	if json.Unmarshal(data[start:], &footer) != nil || footer.End != snapshotFormat {
		return data
	}
	footer.CRC32C = fmt.Sprintf("%08x", crc32.Checksum(data[:start], crc32c))
	line, _ := json.Marshal(footer)
	return append(append(append([]byte(nil), data[:start]...), line...), '\n')
}

// fuzzSnapshotSeed is a real snapshot of a store with runs, task states,
// pools and lineage.
func fuzzSnapshotSeed(f *testing.F) []byte {
	store, err := newStore()
	if err != nil {
		f.Fatal(err)
	}
	dags, err := fuzzDAGs()
	if err != nil {
		f.Fatal(err)
	}
	if err := store.LoadDAGs(dags); err != nil {
		f.Fatal(err)
	}
	api := fuzzAPI(store, edition2)
	if _, err := api.TriggerDAG("example_bash_operator", []byte(`{"execution_date": "2024-01-01T00:00:00+00:00", "conf": {"a": [1, "b"]}}`)); err != nil {
		f.Fatal(err)
	}
	if _, err := api.CreatePool([]byte(`{"name": "etl", "slots": 3, "description": "ETL"}`)); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), "seed.json")
	if _, err := writeSnapshot(store, path, testNow); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzRestoreSnapshot: a snapshot's bytes, changed anyhow (the checksum
// fixed so that the rows are read), either restore to a store that
// writes back the same rows (checkRestoredFaithfully) and serves them,
// or are refused as unreadable; never a panic.
func FuzzRestoreSnapshot(f *testing.F) {
	seed := fuzzSnapshotSeed(f)
	f.Add(seed)
	f.Add(snapTwoOfEach(f))
	lines := bytes.SplitAfter(seed, []byte("\n"))
	f.Add(bytes.Join(lines[:len(lines)/2], nil))
	f.Add(append([]byte(nil), lines[0]...))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"format":"airlite-snapshot","version":1}` + "\n" + `{"table":"dag_runs","rows":1}` + "\n" +
		`{"id":1,"dag_id":"x","run_id":"r","execution_date":"2024-01-01T00:00:00Z"}` + "\n" +
		`{"end":"airlite-snapshot","tables":1,"rows":1,"crc32c":"0"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		data = fixSnapshotCRC(data)
		store, err := snapRestoreForged(t, data)
		if err != nil {
			if !errors.Is(err, errSnapshotUnreadable) {
				t.Fatalf("restore error %v is not errSnapshotUnreadable", err)
			}
			return
		}
		// What was restored is served, written and read back the same.
		for _, e := range allEditions {
			api := fuzzAPI(store, e)
			rows, err := store.Dags()
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				if _, err := api.DagRuns(row.DagID, ""); err != nil {
					var apiErr *apiError
					if !errors.As(err, &apiErr) {
						t.Fatalf("runs of %s: %v", row.DagID, err)
					}
				}
			}
			if _, err := api.LatestRuns(); err != nil {
				t.Fatalf("latest runs: %v", err)
			}
			if res, err := api.Pools(); err != nil {
				t.Fatalf("pools: %v", err)
			} else if _, err := e.marshal(res); err != nil {
				t.Fatalf("pools do not render: %v", err)
			}
		}
		checkRestoredFaithfully(t, data, store)
	})
}

// FuzzRestoreSnapshotEdits: a valid snapshot with every table's rows
// (snapTwoOfEach), edited row by row (a row twice, moved or gone, a
// field copied from another row of any table, set to an edge value, or
// gone; snapEditable.apply), either restores faithfully
// (checkRestoredFaithfully) or is refused as unreadable; never a panic.
// Byte changes (FuzzRestoreSnapshot) seldom keep a file whole enough to
// reach the keys and references these edits reach.
func FuzzRestoreSnapshotEdits(f *testing.F) {
	seed := snapTwoOfEach(f)
	f.Add([]byte{})
	for op := range byte(6) {
		for table := range byte(20) {
			f.Add([]byte{op, table, 1, 0, 0, 1, 3, 7})
		}
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		e := readSnapEditable(t, seed)
		e.apply(prog)
		data := e.bytes()
		store, err := snapRestoreForged(t, data)
		if err != nil {
			if !errors.Is(err, errSnapshotUnreadable) {
				t.Fatalf("restore error %v is not errSnapshotUnreadable", err)
			}
			return
		}
		checkRestoredFaithfully(t, data, store)
	})
}
