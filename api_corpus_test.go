package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// The corpus: a fixed sequence of requests per edition, sent to servers
// built from the edition's examples on a fake clock, with every answer
// (status, headers, body bytes) recorded in testdata/corpus/<edition>.jsonl.
// Replaying it proves a change of the API layer changed no answer; a
// change that means to change answers regenerates it with
//
//	go test -run TestAPICorpus -update .
//
// and the diff of testdata/corpus/ shows every answer it changed.

// updateGolden rewrites golden files from today's answers instead of
// comparing with them.
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/ from today's answers")

// corpusSecret signs the stable API's file tokens in the corpus: newServer
// draws one at random, which would change every file_token.
var corpusSecret = []byte("airlite-corpus-s")

// corpusDAG is the corpus's own DAG: a chain with a try that pushes XCom,
// one that fails and one left upstream_failed. (The scheduler runs one
// try at a time, Parallelism 1, so that the order of events never depends
// on which goroutine ends first.)
const corpusDAG = `
dag_id: corpus_chain
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: extract, operator: PythonOperator, simulate: {duration: 0s, xcom: {rows: 3}}, downstream: [transform]}
  - {task_id: transform, operator: PythonOperator, simulate: {duration: 0s, outcome: failed}, downstream: [load]}
  - {task_id: load, operator: DummyOperator}
`

// corpusBashDAG runs one real BashOperator try, whose templated fields
// and output the answers show.
const corpusBashDAG = `
dag_id: corpus_bash
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: say, operator: BashOperator, bash_command: 'echo "ds={{ ds }} run={{ run_id }}"', env: {GREETING: 'hi {{ ds }}'}}
`

// corpusUsers is the users file of the basic_auth server.
const corpusUsers = "admin:secret\n"

// corpusBodyShown is the longest request body a record shows as it is.
const corpusBodyShown = 4 << 10

// corpusRecord is one line of a corpus file: a request and its answer, or
// a step that is no request (a scheduler pass), named in Step.
type corpusRecord struct {
	Server    string            `json:"server"`
	Step      string            `json:"step,omitempty"`
	Method    string            `json:"method,omitempty"`
	Path      string            `json:"path,omitempty"`
	ReqHeader map[string]string `json:"req_header,omitempty"`
	ReqBody   string            `json:"req_body,omitempty"`
	Status    int               `json:"status,omitempty"`
	// StatusText is the status line's text after the code, which
	// Airflow's clients show in their errors.
	StatusText string            `json:"status_text,omitempty"`
	Header     map[string]string `json:"header,omitempty"`
	Body       string            `json:"body,omitempty"`
	// BodyBase64 holds a body that is not UTF-8, which Body could not
	// carry byte for byte.
	BodyBase64 []byte `json:"body_base64,omitempty"`
}

// corpusServer is one server of the corpus with the scheduler that the
// sequence drives by explicit passes.
type corpusServer struct {
	name  string
	ts    *testServer
	sched *scheduler
	clock *fakeClock
	// auth is the Authorization header every request sends, if any.
	auth string
	// masks hide what the edition's answers carry that no option of the
	// server fixes, after maskCorpusRecord.
	masks []func(*corpusRecord)
}

// newCorpusServer builds a server as main does with --clock fake and the
// scheduler on, except that the scheduler runs no loop (the sequence runs
// its passes) and the file-token secret is fixed.
func newCorpusServer(t *testing.T, e edition, name, backend, users string, storeOpts ...func(*Store)) *corpusServer {
	t.Helper()
	dags, err := loadExampleDAGs(e.rules(), testExamplesReadAt)
	if err != nil {
		t.Fatalf("loadExampleDAGs: %v", err)
	}
	// Paused, so that a pass creates no scheduled run of an example.
	for _, d := range dags.DAGs {
		d.IsPausedUponCreation = true
	}
	for _, text := range []string{corpusDAG, corpusBashDAG} {
		d, err := parseDAG([]byte(text))
		if err != nil {
			t.Fatalf("parseDAG: %v", err)
		}
		d.FilePath = "testdata/" + d.DagID + ".yaml"
		dags.DAGs = append(dags.DAGs, d)
	}
	store := storeWith(t, dags)
	for _, o := range storeOpts {
		o(store)
	}

	usersFile := ""
	if users != "" {
		usersFile = filepath.Join(t.TempDir(), "users")
		if err := os.WriteFile(usersFile, []byte(users), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	auth, err := newAuthenticator(backend, usersFile)
	if err != nil {
		t.Fatalf("newAuthenticator(%s): %v", backend, err)
	}
	logger := zerolog.New(zerolog.NewTestWriter(t))
	clock := newFakeClock(testNow)
	sched := newScheduler(schedulerOptions{Store: store, Edition: e, Logger: logger, Now: clock.Now,
		Parallelism: 1, Unixname: testUnixname, Hostname: "corpus-host"}) // Interval 0: no loop; one try at a time
	t.Cleanup(sched.stop)
	clock.moved = sched.Kick
	srv, err := newServer(serverOptions{
		Edition: e, Store: store, DAGs: dags, Auth: auth, Logger: logger,
		Now: clock.Now, Clock: clock, Unixname: testUnixname,
		Kick: sched.Kick, WithTasksStopped: sched.WithTasksStopped, SchedulerHeartbeat: sched.Heartbeat,
		Journal: newJournal(20),
		Browser: browserPolicy{HostCheck: true},
	})
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	srv.v1Secret = corpusSecret
	srv.ready.Store(true)
	hs := startHTTPTestServer(t, srv.routes(), e)
	cs := &corpusServer{name: name, sched: sched, clock: clock,
		ts: &testServer{Server: hs, srv: srv, store: store, dags: dags, edition: e}}
	switch {
	case users != "" && backend == authSimple:
		token, err := auth.tokens.issue("admin", roleUsersFile, jwtExpiration)
		if err != nil {
			t.Fatal(err)
		}
		cs.auth = "Bearer " + token
		cs.masks = append(cs.masks, maskV2CorpusRecord)
	case users != "":
		cs.auth = "Basic " + base64Std("admin:secret")
	case e.rules().apiV2:
		cs.masks = append(cs.masks, maskV2CorpusRecord)
	}
	return cs
}

// corpusStep is one step of a sequence: a request, or a scheduler pass
// when pass is set.
type corpusStep struct {
	method, path, body string
	header             []string // name/value pairs
	pass               bool
}

// corpusSeq builds a sequence; its methods read like the requests.
type corpusSeq struct{ steps []corpusStep }

const jsonType = "application/json"

func (q *corpusSeq) req(method, path, body string, header ...string) {
	q.steps = append(q.steps, corpusStep{method: method, path: path, body: body, header: header})
}
func (q *corpusSeq) get(path string)  { q.req(http.MethodGet, path, "") }
func (q *corpusSeq) head(path string) { q.req(http.MethodHead, path, "") }
func (q *corpusSeq) del(path string)  { q.req(http.MethodDelete, path, "") }
func (q *corpusSeq) post(path, body string) {
	q.req(http.MethodPost, path, body, "Content-Type", jsonType)
}
func (q *corpusSeq) patch(path, body string) {
	q.req(http.MethodPatch, path, body, "Content-Type", jsonType)
}
func (q *corpusSeq) put(path, body string) {
	q.req(http.MethodPut, path, body, "Content-Type", jsonType)
}
func (q *corpusSeq) schedulerPass() { q.steps = append(q.steps, corpusStep{pass: true}) }
func (q *corpusSeq) postRaw(path, body string, header ...string) {
	q.req(http.MethodPost, path, body, header...)
}

// run sends every step to cs and records the answers.
func (cs *corpusServer) run(t *testing.T, steps []corpusStep) []corpusRecord {
	t.Helper()
	client := *cs.ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var out []corpusRecord
	for _, st := range steps {
		if st.pass {
			settleTicks(t, cs.sched, cs.clock.Now)
			out = append(out, corpusRecord{Server: cs.name, Step: "scheduler pass"})
			continue
		}
		out = append(out, cs.send(t, &client, st))
	}
	return out
}

// send sends one request and records it with its answer.
func (cs *corpusServer) send(t *testing.T, client *http.Client, st corpusStep) corpusRecord {
	t.Helper()
	var body io.Reader
	if st.body != "" {
		body = strings.NewReader(st.body)
	}
	req, err := http.NewRequest(st.method, cs.ts.URL+st.path, body)
	if err != nil {
		t.Fatalf("new request %s %s: %v", st.method, st.path, err)
	}
	rec := corpusRecord{Server: cs.name, Method: st.method, Path: st.path, ReqBody: st.body}
	if len(st.body) > corpusBodyShown {
		// A body sent for its size: its size says what it was.
		rec.ReqBody = fmt.Sprintf("<%d bytes starting %q>", len(st.body), st.body[:16])
	}
	if len(st.header) > 0 {
		rec.ReqHeader = map[string]string{}
	}
	for i := 0; i+1 < len(st.header); i += 2 {
		if st.header[i] == "Host" {
			req.Host = st.header[i+1]
		} else {
			req.Header.Set(st.header[i], st.header[i+1])
		}
		rec.ReqHeader[st.header[i]] = st.header[i+1]
	}
	// The server's credentials go with every request that names none; a
	// step that names an empty Authorization sends none at all.
	if _, named := req.Header["Authorization"]; !named && cs.auth != "" {
		req.Header.Set("Authorization", cs.auth)
	} else if named && req.Header.Get("Authorization") == "" {
		req.Header.Del("Authorization")
	}
	// Asked for explicitly, the transport leaves a compressed answer as
	// it came (it decompresses only when it added the header itself).
	req.Header.Set("Accept-Encoding", "identity")
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", st.method, st.path, err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: read body: %v", st.method, st.path, err)
	}
	rec.Status = res.StatusCode
	rec.StatusText = strings.TrimPrefix(res.Status, strconv.Itoa(res.StatusCode)+" ")
	rec.Header = map[string]string{}
	for name, values := range res.Header {
		// Date is net/http's, from the real clock: the one header no
		// option of the server sets.
		if name == "Date" {
			continue
		}
		rec.Header[name] = strings.Join(values, "\n")
	}
	if utf8.Valid(b) {
		rec.Body = string(b)
	} else {
		rec.BodyBase64 = b
	}
	maskCorpusRecord(&rec)
	for _, mask := range cs.masks {
		mask(&rec)
	}
	return rec
}

// journalVolatile matches what the request journal takes from the real
// clock: when a request came and how long it took (api_journal.go,
// server.go's observed; no option of the server sets that clock).
var journalVolatile = regexp.MustCompile(`"(time|duration_ms)":\s*("[^"]*"|[0-9.e+-]+)`)

// realPID matches a task instance's pid when a real process ran its try
// (corpus_bash's BashOperator): the operating system picks it.
var realPID = regexp.MustCompile(`("pid":\s*"?)[0-9]+`)

// maskCorpusRecord hides what no option of the server makes fixed; it is
// the corpus's only mask: the time and duration of each entry of the
// request journal, and the pid of a try that ran a real process. A masked
// answer's length changes with what was masked, so its Content-Length
// is masked too.
func maskCorpusRecord(rec *corpusRecord) {
	masked := rec.Body
	if strings.HasPrefix(rec.Path, "/_airlite/requests") && rec.Method == http.MethodGet {
		masked = journalVolatile.ReplaceAllString(masked, `"$1":"<masked>"`)
	}
	masked = realPID.ReplaceAllString(masked, `${1}<masked>`)
	if masked == rec.Body {
		return
	}
	rec.Body = masked
	if _, ok := rec.Header["Content-Length"]; ok {
		rec.Header["Content-Length"] = "<masked>"
	}
}

// corpusPath is the golden file of an edition.
func corpusPath(e edition) string { return filepath.Join("testdata", "corpus", string(e)+".jsonl") }

// encodeCorpus renders records one JSON line each, HTML characters as
// they are, map keys sorted (encoding/json sorts them).
func encodeCorpus(t *testing.T, recs []corpusRecord) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatalf("encode corpus record: %v", err)
		}
	}
	return buf.Bytes()
}

// readCorpus reads an edition's golden lines.
func readCorpus(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open corpus (go test -run TestAPICorpus -update . writes it): %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return lines
}

// TestAPICorpus replays every edition's corpus: each request of the
// sequence must get the recorded answer, byte for byte.
func TestAPICorpus(t *testing.T) {
	t.Parallel()
	for _, e := range corpusEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			recs := corpusRecords(t, e)
			got := encodeCorpus(t, recs)
			path := corpusPath(e)
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			compareCorpus(t, readCorpus(t, path), strings.Split(strings.TrimSuffix(string(got), "\n"), "\n"))
		})
	}
}

// corpusEditions are the editions with a corpus: every edition.
var corpusEditions = append(append([]edition(nil), allEditions...), edition3)

// corpusRecords runs an edition's servers and sequences.
func corpusRecords(t *testing.T, e edition) []corpusRecord {
	t.Helper()
	if e.rules().apiV2 {
		return corpusV2Records(t, e)
	}
	var recs []corpusRecord
	mainSrv := newCorpusServer(t, e, "main", authDefault, "")
	recs = append(recs, mainSrv.run(t, corpusMainSequence(e))...)
	deny := newCorpusServer(t, e, "deny_all", authDenyAll, "")
	recs = append(recs, deny.run(t, corpusAuthSequence(e))...)
	basic := newCorpusServer(t, e, "basic_auth", authBasic, corpusUsers)
	recs = append(recs, basic.run(t, corpusBasicSequence(e))...)
	password := newCorpusServer(t, e, "password_auth", authPassword, corpusUsers)
	recs = append(recs, password.run(t, corpusPasswordSequence(e))...)
	limited := newCorpusServer(t, e, "limits", authDefault, "", func(s *Store) {
		s.SetLimits(corpusLimits)
		s.SetRunLimit(RunLimit{Max: 2})
	})
	recs = append(recs, limited.run(t, corpusLimitsSequence(e))...)
	retention := newCorpusServer(t, e, "retention", authDefault, "", func(s *Store) {
		s.SetRunLimit(RunLimit{Max: 1, DropOldestFinished: true})
	})
	recs = append(recs, retention.run(t, corpusRetentionSequence(e))...)
	starting := newCorpusServer(t, e, "starting", authDefault, "")
	starting.ts.srv.ready.Store(false)
	return append(recs, starting.run(t, corpusStartingSequence(e))...)
}

// corpusV2Records runs edition 3's servers: Airflow 3 has no deny_all,
// basic_auth or password_auth backend, so the simple auth manager with a
// users file takes their place.
func corpusV2Records(t *testing.T, e edition) []corpusRecord {
	t.Helper()
	var recs []corpusRecord
	mainSrv := newCorpusServer(t, e, "main", authDefault, "")
	recs = append(recs, mainSrv.run(t, corpusV2MainSequence(e))...)
	simple := newCorpusServer(t, e, "simple_auth_manager", authSimple, corpusUsers)
	recs = append(recs, simple.run(t, corpusTokenSequence(e))...)
	limited := newCorpusServer(t, e, "limits", authDefault, "", func(s *Store) {
		s.SetLimits(corpusLimits)
		s.SetRunLimit(RunLimit{Max: 2})
	})
	recs = append(recs, limited.run(t, corpusV2LimitsSequence(e))...)
	starting := newCorpusServer(t, e, "starting", authDefault, "")
	starting.ts.srv.ready.Store(false)
	return append(recs, starting.run(t, corpusV2StartingSequence(e))...)
}

// corpusFirstRun is the run the main sequence triggers first, which the
// pages and /_airlite steps read.
func corpusFirstRun(e edition) string {
	if e.rules().apiV2 {
		return corpusV2Run
	}
	return "exp_run_1"
}

// compareCorpus fails with every record whose answer differs, showing
// what differs: status, headers, and the body around its first change. A
// record whose request differs means the sequence itself changed: the
// records after it no longer pair up, so it stops there.
func compareCorpus(t *testing.T, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("corpus has %d records, the sequence made %d (a request added or removed: rerun with -update)", len(want), len(got))
	}
	diffs := 0
	for i := range min(len(want), len(got)) {
		if want[i] == got[i] {
			continue
		}
		var w, g corpusRecord
		if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
			t.Fatalf("corpus record %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if w.Server != g.Server || w.Step != g.Step || w.Method != g.Method || w.Path != g.Path ||
			w.ReqBody != g.ReqBody || !maps.Equal(w.ReqHeader, g.ReqHeader) {
			t.Fatalf("record %d: the sequence changed here (server %s, %s), the corpus has (server %s, %s): rerun with -update",
				i+1, g.Server, corpusStepName(g), w.Server, corpusStepName(w))
		}
		diffs++
		t.Errorf("record %d (server %s): %s\n%s", i+1, w.Server, corpusStepName(w), describeCorpusDiff(w, g))
	}
	if diffs > 0 {
		t.Logf("%d of %d answers differ; if the change is meant, rerun with -update and review the diff of testdata/corpus/", diffs, len(want))
	}
}

// corpusStepName names a record's step for a failure message.
func corpusStepName(r corpusRecord) string {
	if r.Step != "" {
		return r.Step
	}
	return r.Method + " " + r.Path
}

// describeCorpusDiff says how the answers of the same request differ.
func describeCorpusDiff(w, g corpusRecord) string {
	var b strings.Builder
	if w.Status != g.Status || w.StatusText != g.StatusText {
		fmt.Fprintf(&b, "  status: want %d %s, got %d %s\n", w.Status, w.StatusText, g.Status, g.StatusText)
	}
	for _, name := range sortedMapKeys(mergeKeys(w.Header, g.Header)) {
		if wv, gv := w.Header[name], g.Header[name]; wv != gv {
			fmt.Fprintf(&b, "  header %s: want %q, got %q\n", name, wv, gv)
		}
	}
	if w.Body != g.Body || !bytes.Equal(w.BodyBase64, g.BodyBase64) {
		wl, gl := strings.Split(w.Body, "\n"), strings.Split(g.Body, "\n")
		first := 0
		for first < len(wl) && first < len(gl) && wl[first] == gl[first] {
			first++
		}
		from := max(0, first-2)
		fmt.Fprintf(&b, "  body differs from line %d:\n  want: %q\n  got:  %q\n", first+1,
			strings.Join(wl[from:min(len(wl), first+3)], "\n"), strings.Join(gl[from:min(len(gl), first+3)], "\n"))
	}
	return b.String()
}

// mergeKeys is the union of two maps' keys.
func mergeKeys(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k := range a {
		out[k] = ""
	}
	for k := range b {
		out[k] = ""
	}
	return out
}

// File and log tokens as the server signs them with corpusSecret.
const (
	corpusChainToken = "InRlc3RkYXRhL2NvcnB1c19jaGFpbi55YW1sIg.BRE4cJQJX7CXPTNs0KL4ghqadGU"
	corpusBashToken  = "ImZpeHR1cmVzLzIuMTAuMy9leGFtcGxlX2Jhc2hfb3BlcmF0b3IueWFtbCI.p98Ve3_hV4eMTJ1zZoKTC7kMKds"
	corpusLogToken   = "eyJkb3dubG9hZF9sb2dzIjpmYWxzZSwiZW5kX29mX2xvZyI6dHJ1ZSwibG9nX3BvcyI6MH0.X3GoQV84PX7pwP5OLUERzEvwIt4"
)

// Run IDs and dates the sequences use.
const (
	corpusDate1 = "2024-03-01T00:00:00+00:00"
	corpusDate2 = "2024-03-02T00:00:00+00:00"
	corpusDate3 = "2024-03-03T00:00:00+00:00"
)

// corpusMainSequence is every route with its happy path and its errors,
// in one order on one server, so that state-changing requests see what
// the ones before them did.
func corpusMainSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	corpusExperimental(q, e)
	corpusPages(q, e)
	corpusAdmin(q, e)
	if e.rules().apiV1 {
		corpusV1(q, e)
	}
	corpusRouting(q, e)
	// Reset last: everything the sequence made goes.
	q.post("/_airlite/reset", `{}`)
	q.get(apiPrefix + "/dags/corpus_chain/dag_runs")
	q.get(apiPrefix + "/pools")
	return q.steps
}

// corpusExperimental covers /api/experimental.
func corpusExperimental(q *corpusSeq, e edition) {
	const x = apiPrefix
	q.get(x + "/test")
	q.head(x + "/test")
	q.head(x + "/dags/nope/dag_runs")
	q.get(x + "/info")
	q.get(x + "/latest_runs")

	// The DAG's pause state, then unpause the corpus DAG for the scheduler.
	q.get(x + "/dags/corpus_chain/paused")
	q.get(x + "/dags/nope/paused")
	q.get(x + "/dags/corpus_chain/paused/true")
	q.get(x + "/dags/corpus_chain/paused/false")
	q.get(x + "/dags/corpus_chain/paused/maybe")
	q.get(x + "/dags/nope/paused/false")

	// Triggers: happy, with conf, run_id, dates, and every refusal.
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "`+corpusDate1+`", "run_id": "exp_run_1", "conf": {"a": 1}}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "`+corpusDate1+`"}`)              // duplicate date
	q.post(x+"/dags/corpus_chain/dag_runs", `{"run_id": "exp_run_1"}`)                            // duplicate run_id
	q.post(x+"/dags/corpus_chain/dag_runs", `{}`)                                                 // dateless: the fake clock's date
	q.post(x+"/dags/corpus_chain/dag_runs", ``)                                                   // no body
	q.postRaw(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-04T00:00:00+00:00"}`) // no Content-Type
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "not a date"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-13-45"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"conf": "not an object"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"conf": "{\"k\": \"v\"}", "execution_date": "2024-03-05T00:00:00+00:00"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"conf": [1, 2]}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"run_id": 5}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"replace_microseconds": "false", "execution_date": "2024-03-06T00:00:00.123456+00:00"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"unknown": 1, "execution_date": "2024-03-07T00:00:00+00:00"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{not json`)
	q.post(x+"/dags/corpus_chain/dag_runs", `[1]`)
	q.post(x+"/dags/nope/dag_runs", `{}`)
	q.schedulerPass()

	// Reads of runs and task instances.
	q.get(x + "/dags/corpus_chain/dag_runs")
	q.get(x + "/dags/corpus_chain/dag_runs?state=success")
	q.get(x + "/dags/corpus_chain/dag_runs?state=failed")
	q.get(x + "/dags/nope/dag_runs")
	q.get(x + "/dags/corpus_chain/dag_runs/" + corpusDate1)
	q.get(x + "/dags/corpus_chain/dag_runs/2024-03-01T00:00:00")
	q.get(x + "/dags/corpus_chain/dag_runs/2024-03-01")
	q.get(x + "/dags/corpus_chain/dag_runs/bad-date")
	q.get(x + "/dags/corpus_chain/dag_runs/2020-01-01T00:00:00+00:00")
	q.get(x + "/dags/nope/dag_runs/" + corpusDate1)
	q.get(x + "/dags/corpus_chain/dag_runs/" + corpusDate1 + "/tasks/extract")
	q.get(x + "/dags/corpus_chain/dag_runs/" + corpusDate1 + "/tasks/transform")
	q.get(x + "/dags/corpus_chain/dag_runs/" + corpusDate1 + "/tasks/nope")
	q.get(x + "/dags/corpus_chain/dag_runs/bad-date/tasks/extract")
	q.get(x + "/dags/corpus_chain/dag_runs/2020-01-01T00:00:00+00:00/tasks/extract")
	q.get(x + "/dags/corpus_chain/tasks/extract")
	q.get(x + "/dags/corpus_chain/tasks/nope")
	q.get(x + "/dags/nope/tasks/extract")
	q.get(x + "/dags/example_bash_operator/tasks/runme_0")
	q.get(x + "/dags/corpus_chain/code")
	q.get(x + "/dags/example_bash_operator/code")
	q.get(x + "/dags/nope/code")
	q.get(x + "/latest_runs")
	q.get(x + "/lineage/corpus_chain/" + corpusDate1)
	q.get(x + "/lineage/corpus_chain/bad-date")
	q.get(x + "/lineage/nope/" + corpusDate1)

	// Values as each edition writes them: non-ASCII text, big and
	// fractional numbers, nesting, in conf and back out.
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-08T00:00:00+00:00", "run_id": "exp_values", "conf": {"text": "héllo ✓ \u00e9 <b>&amp;</b>", "big": 12345678901234567890, "neg": -0.0, "f": 1.0, "e": 1e3, "small": 1.5e-7, "nested": {"list": [1, "two", null, true]}}}`)
	q.get(x + "/dags/corpus_chain/dag_runs?state=queued")
	q.get(x + "/dags/corpus_chain/dag_runs?state=nope")

	// A real BashOperator try in every edition.
	q.get(x + "/dags/corpus_bash/paused/false")
	q.post(x+"/dags/corpus_bash/dag_runs", `{"execution_date": "2024-03-13T00:00:00+00:00", "run_id": "exp_bash"}`)
	q.schedulerPass()
	q.get(x + "/dags/corpus_bash/dag_runs/2024-03-13T00:00:00+00:00/tasks/say")
	q.get(x + "/dags/corpus_bash/dag_runs/2024-03-13T00:00:00+00:00")
	q.get("/_airlite/dags/corpus_bash/dag_runs/exp_bash/wait")

	// Pools.
	q.get(x + "/pools")
	q.post(x+"/pools", `{"name": "exp_pool", "slots": 3, "description": "from the corpus"}`)
	q.post(x+"/pools", `{"name": "exp_pool", "slots": 4, "description": "again"}`)
	q.post(x+"/pools", `{"name": "", "slots": 1, "description": ""}`)
	q.post(x+"/pools", `{"name": "exp_bad", "slots": "many", "description": ""}`)
	q.post(x+"/pools", `{"name": "exp_bad"}`)
	q.post(x+"/pools", `{bad`)
	q.get(x + "/pools/exp_pool")
	q.get(x + "/pools/nope")
	q.del(x + "/pools/exp_pool")
	q.del(x + "/pools/exp_pool")
	q.del(x + "/pools/default_pool")
	q.get(x + "/pools")

	// Delete a DAG (where the edition has the route).
	q.del(x + "/dags/example_python_operator")
	q.del(x + "/dags/nope")

	// Methods and unknown routes.
	q.req(http.MethodPut, x+"/dags/corpus_chain/dag_runs", `{}`, "Content-Type", jsonType)
	q.req(http.MethodPost, x+"/test", "")
	q.del(x + "/test")
	q.get(x + "/nope")
	q.get(x + "/")
	q.get(x)
	q.get(x + "/dags/corpus_chain/dag_runs/")
	q.req(http.MethodOptions, x+"/test", "")
}

// corpusPages covers the status pages and /health.
func corpusPages(q *corpusSeq, e edition) {
	first := corpusFirstRun(e)
	// Edition 3's run page names the run in its path (Airflow 3's UI);
	// the others take it from the query.
	runPath := strings.NewReplacer(":dag_id", "corpus_chain", ":run_id", first).Replace(e.rules().uiRunPath)
	q.get("/health")
	q.head("/health")
	q.get("/")
	q.head("/")
	q.get("/pools")
	q.head("/pools")
	q.head(runPath + "?dag_id=corpus_chain&run_id=" + first)
	q.head(runPath + "?dag_id=nope&run_id=" + first)
	q.head("/nope")
	q.get(runPath + "?dag_id=corpus_chain&execution_date=" + strings.ReplaceAll(corpusDate1, "+", "%2B"))
	q.get(runPath + "?dag_id=corpus_chain&run_id=" + first)
	q.get(strings.NewReplacer(":dag_id", "corpus_bash", ":run_id", "exp_bash").Replace(e.rules().uiRunPath) + "?dag_id=corpus_bash&run_id=exp_bash")
	q.get(runPath + "?dag_id=corpus_chain&execution_date=bad-date")
	q.get(runPath + "?dag_id=nope&execution_date=" + strings.ReplaceAll(corpusDate1, "+", "%2B"))
	q.get(runPath)
	q.req(http.MethodPost, "/trigger", "dag_id=corpus_chain", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/trigger", "dag_id=nope", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/trigger", "dag_id=corpus_chain&conf=%7B%22k%22%3A+1%7D", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/trigger", "dag_id=corpus_chain&conf=not+json", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/trigger", "", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/trigger", "dag_id=corpus_chain", "Content-Type", "application/x-www-form-urlencoded",
		"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
	q.req(http.MethodPost, "/paused", "dag_id=example_bash_operator&is_paused=false", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/paused", "dag_id=nope&is_paused=false", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/paused", "dag_id=example_bash_operator&is_paused=true", "Content-Type", "application/x-www-form-urlencoded")
	q.req(http.MethodPost, "/", "")
	q.req(http.MethodPost, "/health", "")
	q.get("/nope")
	q.get("/static/nope.css")
	q.req(http.MethodGet, "/", "", "Accept", "text/html")
	q.req(http.MethodGet, "/nope", "", "Accept", "text/html,application/xhtml+xml")
}

// corpusAdmin covers /_airlite.
func corpusAdmin(q *corpusSeq, e edition) {
	const a = "/_airlite"
	first := corpusFirstRun(e)
	q.get(a + "/health")
	q.get(a + "/ready")
	q.get(a + "/clock")
	q.post(a+"/clock", `{"advance": "1h"}`)
	q.post(a+"/clock", `{"advance": "-1h"}`)
	q.post(a+"/clock", `{"set": "2020-01-01T00:00:00+00:00"}`)
	q.post(a+"/clock", `{"advance": "soon"}`)
	q.post(a+"/clock", `{"nope": 1}`)
	q.post(a+"/clock", `{bad`)
	q.get(a + "/clock")
	q.get(a + "/dags/corpus_chain/dag_runs/" + first + "/wait")
	q.get(a + "/dags/corpus_chain/dag_runs/" + first + "/wait?timeout=soon")
	q.get(a + "/dags/corpus_chain/dag_runs/nope/wait?timeout=1ms")
	q.get(a + "/dags/nope/dag_runs/nope/wait?timeout=1ms")
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/state", `{"state": "success"}`)
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/state", `{"state": "bogus"}`)
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/state", `{bad`)
	q.post(a+"/dags/corpus_chain/dag_runs/nope/state", `{"state": "success"}`)
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/tasks/transform/state", `{"state": "success"}`)
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/tasks/nope/state", `{"state": "success"}`)
	q.post(a+"/dags/corpus_chain/dag_runs/"+first+"/tasks/transform/state", `{"state": "bogus"}`)
	q.post(a+"/dags", "dag_id: corpus_loaded\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: only, operator: DummyOperator}\n")
	q.post(a+"/dags", "dag_id: corpus_loaded\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: only, operator: DummyOperator}\n  - {task_id: second, operator: DummyOperator}\n")
	q.post(a+"/dags", "dag_id: corpus_bad\ntasks:\n  - {task_id: x, operator: BashOpertor}\n")
	q.post(a+"/dags", "not: [yaml")
	q.post(a+"/dags", `{"dag_id": "corpus_json", "schedule_interval": null, "start_date": "2024-01-01", "tasks": [{"task_id": "only", "operator": "DummyOperator"}]}`)
	q.post(a+"/dags", "")
	q.get(a + "/health/")
	q.get(a + "/requests")
	q.get(a + "/requests?method=POST&limit=2")
	q.get(a + "/requests?limit=many")
	q.del(a + "/requests")
	q.get(a + "/requests")
	q.get(a + "/nope")
	q.req(http.MethodPut, a+"/health", "")
	q.req(http.MethodGet, a+"/reset", "")
}

// corpusV1 covers /api/v1, in an order in which each state-changing
// request sees what the ones before it did.
func corpusV1(q *corpusSeq, e edition) {
	const v = "/api/v1"
	const run = v + "/dags/corpus_chain/dagRuns/v1_run_1"
	const ti = run + "/taskInstances"
	q.get(v + "/health")
	q.get(v + "/version")
	q.get(v + "/config")
	q.req(http.MethodGet, v+"/config", "", "Accept", jsonType)
	q.req(http.MethodGet, v+"/config", "", "Accept", "text/plain")
	q.get(v + "/config?section=core")
	q.get(v + "/config/section/core/option/dags_folder")
	q.get(v + "/providers")
	q.get(v + "/plugins")
	q.get(v + "/plugins?limit=-1")
	q.get(v + "/importErrors")
	q.get(v + "/importErrors?order_by=nope")
	q.get(v + "/importErrors/1")
	q.get(v + "/importErrors/abc")
	q.get(v + "/dagWarnings")
	q.get(v + "/dagWarnings?dag_id=corpus_chain&warning_type=nope")

	// DAGs.
	q.get(v + "/dags")
	q.get(v + "/dags?limit=2&offset=1&order_by=-dag_id")
	q.get(v + "/dags?limit=abc")
	q.get(v + "/dags?limit=-5")
	q.get(v + "/dags?offset=-1")
	q.get(v + "/dags?order_by=nope")
	q.get(v + "/dags?tags=example&only_active=false")
	q.get(v + "/dags?paused=true&fields=dag_id,is_paused")
	q.get(v + "/dags?paused=maybe")
	q.get(v + "/dags?dag_id_pattern=corpus")
	q.get(v + "/dags?fields=nope")
	q.get(v + "/dags?unknown=1")
	q.get(v + "/dags/corpus_chain")
	q.get(v + "/dags/corpus_chain?fields=dag_id")
	q.get(v + "/dags/nope")
	q.get(v + "/dags/corpus_chain/details")
	q.get(v + "/dags/nope/details")
	q.get(v + "/dags/corpus_chain/tasks")
	q.get(v + "/dags/corpus_chain/tasks?order_by=-task_id")
	q.get(v + "/dags/corpus_chain/tasks?order_by=nope")
	q.get(v + "/dags/nope/tasks")
	q.get(v + "/dags/corpus_chain/tasks/extract")
	q.get(v + "/dags/corpus_chain/tasks/nope")
	q.patch(v+"/dags/example_bash_operator", `{"is_paused": false}`)
	q.patch(v+"/dags/example_bash_operator?update_mask=is_paused", `{"is_paused": true}`)
	q.patch(v+"/dags/example_bash_operator?update_mask=nope", `{"is_paused": true}`)
	q.patch(v+"/dags/example_bash_operator", `{"is_paused": "yes"}`)
	q.patch(v+"/dags/example_bash_operator", `{"is_paused": true, "nope": 1}`)
	q.patch(v+"/dags/example_bash_operator", `{bad`)
	q.req(http.MethodPatch, v+"/dags/example_bash_operator", `{"is_paused": true}`, "Content-Type", "text/plain")
	q.req(http.MethodPatch, v+"/dags/example_bash_operator", `{"is_paused": true}`)
	q.patch(v+"/dags/nope", `{"is_paused": true}`)
	q.patch(v+"/dags?dag_id_pattern=example_subdag", `{"is_paused": true}`)
	q.patch(v+"/dags", `{"is_paused": true}`)
	q.patch(v+"/dags?dag_id_pattern=corpus_", `{"is_paused": false}`)
	q.get(v + "/dagStats?dag_ids=corpus_chain,nope")
	q.get(v + "/dagStats")
	q.get(v + "/dagSources/nope")
	// Tokens signed with corpusSecret, as the answers above hand them out.
	q.req(http.MethodGet, v+"/dagSources/"+corpusChainToken, "", "Accept", "text/plain")
	q.req(http.MethodGet, v+"/dagSources/"+corpusChainToken, "", "Accept", jsonType)
	q.get(v + "/dagSources/" + corpusChainToken)
	q.req(http.MethodGet, v+"/dagSources/"+corpusBashToken, "", "Accept", "text/plain")
	q.put(v+"/parseDagFile/"+corpusChainToken, ``)

	// Runs: trigger, reads, lists with filters and pagination.
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_1", "logical_date": "`+corpusDate2+`", "conf": {"b": 2}, "note": "first note"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_1"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_dup", "logical_date": "`+corpusDate2+`"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_2", "execution_date": "`+corpusDate3+`"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": "not a date"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": "2024-03-09T00:00:00"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"conf": "text"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": 5}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"nope": 1}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"state": "running"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{bad`)
	q.post(v+"/dags/corpus_chain/dagRuns", `[]`)
	q.postRaw(v+"/dags/corpus_chain/dagRuns", `{}`, "Content-Type", "text/plain")
	q.postRaw(v+"/dags/corpus_chain/dagRuns", `{}`)
	q.post(v+"/dags/nope/dagRuns", `{}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "has spaces!"}`)
	q.schedulerPass()
	q.get(v + "/dags/corpus_chain/dagRuns")
	q.get(v + "/dags/corpus_chain/dagRuns?limit=1&offset=1&order_by=-execution_date")
	q.get(v + "/dags/corpus_chain/dagRuns?state=failed&state=success")
	q.get(v + "/dags/corpus_chain/dagRuns?execution_date_gte=" + strings.ReplaceAll(corpusDate2, "+", "%2B"))
	q.get(v + "/dags/corpus_chain/dagRuns?execution_date_gte=not-a-date")
	q.get(v + "/dags/corpus_chain/dagRuns?start_date_lte=2024-13-01T00:00:00Z")
	q.get(v + "/dags/corpus_chain/dagRuns?order_by=nope")
	q.get(v + "/dags/corpus_chain/dagRuns?limit=0")
	q.get(v + "/dags/corpus_chain/dagRuns?fields=dag_run_id,state")
	q.get(v + "/dags/nope/dagRuns")
	q.get(v + "/dags/~/dagRuns")
	q.post(v+"/dags/~/dagRuns/list", `{"dag_ids": ["corpus_chain"], "page_limit": 2, "order_by": "-execution_date"}`)
	q.post(v+"/dags/~/dagRuns/list", `{"states": ["bogus"]}`)
	q.post(v+"/dags/~/dagRuns/list", `{"page_limit": "many"}`)
	q.post(v+"/dags/~/dagRuns/list", `{"nope": 1}`)
	q.post(v+"/dags/~/dagRuns/list", `{bad`)
	q.get(run)
	q.get(run + "?fields=state")
	q.get(v + "/dags/corpus_chain/dagRuns/nope")
	q.get(v + "/dags/nope/dagRuns/v1_run_1")
	q.get(run + "/upstreamDatasetEvents")
	q.get(v + "/dags/corpus_chain/dagRuns/nope/upstreamDatasetEvents")

	// Task instances.
	q.get(ti)
	q.get(ti + "?state=failed&limit=1")
	q.get(ti + "?duration_gte=abc")
	q.get(ti + "?pool=default_pool&queue=default")
	q.get(ti + "?limit=-1")
	q.get(v + "/dags/corpus_chain/dagRuns/nope/taskInstances")
	q.get(v + "/dags/~/dagRuns/~/taskInstances")
	q.post(v+"/dags/~/dagRuns/~/taskInstances/list", `{"dag_ids": ["corpus_chain"], "state": ["failed", "success"]}`)
	q.post(v+"/dags/~/dagRuns/~/taskInstances/list", `{"state": "failed"}`)
	q.post(v+"/dags/~/dagRuns/~/taskInstances/list", `{"nope": 1}`)
	q.get(ti + "/extract")
	q.get(ti + "/transform")
	q.get(ti + "/nope")
	q.get(ti + "/extract/0")
	q.get(ti + "/extract/-1")
	q.get(ti + "/extract/abc")
	q.get(ti + "/extract/tries")
	q.get(ti + "/extract/tries/1")
	q.get(ti + "/extract/tries/9")
	q.get(ti + "/extract/tries/abc")
	q.get(ti + "/extract/tries?order_by=nope")
	q.get(ti + "/extract/0/tries")
	q.get(ti + "/extract/0/tries/1")
	q.get(ti + "/extract/listMapped")
	q.get(ti + "/extract/links")
	q.get(ti + "/nope/links")
	q.get(ti + "/load/dependencies")
	q.get(ti + "/load/0/dependencies")
	q.get(ti + "/nope/dependencies")
	q.get(ti + "/extract/logs/1")
	q.get(ti + "/extract/logs/1?full_content=true")
	q.req(http.MethodGet, ti+"/extract/logs/1", "", "Accept", "text/plain")
	q.get(ti + "/extract/logs/9")
	q.get(ti + "/extract/logs/abc")
	q.get(ti + "/extract/logs/1?full_content=maybe")
	q.get(ti + "/extract/logs/1?token=bad")
	q.get(ti + "/extract/logs/1?token=" + corpusLogToken)
	q.get(ti + "/extract/xcomEntries")
	q.get(ti + "/extract/xcomEntries?limit=1")
	q.get(ti + "/extract/xcomEntries/rows")
	q.get(ti + "/extract/xcomEntries/rows?stringify=false")
	q.get(ti + "/extract/xcomEntries/rows?deserialize=true")
	q.get(ti + "/extract/xcomEntries/nope")
	q.get(ti + "/extract/xcomEntries/rows?map_index=abc")
	q.get(v + "/dags/~/dagRuns/~/taskInstances/~/xcomEntries")
	q.patch(ti+"/transform/setNote", `{"note": "ti note"}`)
	q.patch(ti+"/transform/0/setNote", `{"note": "mapped note"}`)
	q.patch(ti+"/transform/setNote", `{"note": 5}`)
	q.patch(ti+"/transform/setNote", `{}`)
	q.patch(ti+"/nope/setNote", `{"note": "x"}`)
	q.patch(ti+"/transform", `{"dry_run": true, "new_state": "success"}`)
	q.patch(ti+"/transform", `{"dry_run": false, "new_state": "success"}`)
	q.patch(ti+"/transform", `{"new_state": "running"}`)
	q.patch(ti+"/transform", `{"new_state": "success", "nope": 1}`)
	q.patch(ti+"/transform/0", `{"new_state": "failed"}`)
	q.patch(ti+"/nope", `{"new_state": "failed"}`)
	q.get(ti + "/transform")

	// Clear task instances, set their states.
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "task_ids": ["extract"], "include_downstream": true}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "dag_run_id": "v1_run_1", "task_ids": ["load"], "include_upstream": true}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "only_failed": true, "include_future": true, "include_past": true}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "start_date": "`+corpusDate2+`", "end_date": "`+corpusDate3+`"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "start_date": "2024-03-02T00:00:00"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "start_date": "nope"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "dag_run_id": "nope"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "task_ids": "extract"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "nope": 1}`)
	q.post(v+"/dags/nope/clearTaskInstances", `{"dry_run": true}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": false, "dag_run_id": "v1_run_1", "task_ids": ["transform"], "include_downstream": true, "reset_dag_runs": true}`)
	q.get(ti)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "dag_run_id": "v1_run_1", "new_state": "failed", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": false, "task_id": "transform", "dag_run_id": "v1_run_1", "new_state": "success", "include_upstream": false, "include_downstream": false, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "execution_date": "`+corpusDate2+`", "new_state": "success", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"state": "success", "task_ids": ["extract"]}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "nope", "dag_run_id": "v1_run_1", "new_state": "success", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "dag_run_id": "nope", "new_state": "success", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "dag_run_id": "v1_run_1", "new_state": "running", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/nope/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "dag_run_id": "v1_run_1", "new_state": "success", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": false, "task_id": "extract", "dag_run_id": "v1_run_1", "new_state": "failed", "include_upstream": true, "include_downstream": true, "include_future": true, "include_past": true}`)
	q.post(v+"/dags/corpus_chain/updateTaskInstancesState", `{"dry_run": true, "task_id": "extract", "dag_run_id": "v1_run_1", "execution_date": "`+corpusDate2+`", "new_state": "success", "include_upstream": false, "include_downstream": true, "include_future": false, "include_past": false}`)
	q.get(ti)

	// Run state, note, clear.
	q.patch(run, `{"state": "failed"}`)
	q.patch(run, `{"state": "queued"}`)
	q.patch(run, `{"state": "running"}`)
	q.patch(run, `{"state": "bogus"}`)
	q.patch(run, `{"nope": 1}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/nope", `{"state": "failed"}`)
	q.patch(run+"/setNote", `{"note": "second note"}`)
	q.patch(run+"/setNote", `{"note": null}`)
	q.patch(run+"/setNote", `{}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/nope/setNote", `{"note": "x"}`)
	q.post(run+"/clear", `{"dry_run": true}`)
	q.post(run+"/clear", `{"dry_run": false}`)
	q.post(run+"/clear", `{"dry_run": "no"}`)
	q.post(run+"/clear", `{"nope": 1}`)
	q.post(v+"/dags/corpus_chain/dagRuns/nope/clear", `{"dry_run": true}`)
	q.get(run)
	q.get(ti)
	q.schedulerPass()
	q.get(run)
	q.get(ti)

	// Datasets.
	q.get(v + "/datasets")
	q.get(v + "/datasets?limit=abc")
	q.get(v + "/datasets/events")
	q.get(v + "/datasets/events?dataset_id=abc")
	q.post(v+"/datasets/events", `{"dataset_uri": "s3://nope", "extra": {}}`)
	q.post(v+"/datasets/events", `{"nope": 1}`)
	q.get(v + "/datasets/s3://nope")
	q.get(v + "/datasets/queuedEvent/s3://nope")
	q.del(v + "/datasets/queuedEvent/s3://nope")
	q.get(v + "/dags/corpus_chain/datasets/queuedEvent")
	q.del(v + "/dags/corpus_chain/datasets/queuedEvent")
	q.get(v + "/dags/corpus_chain/datasets/queuedEvent/s3://nope")
	q.del(v + "/dags/corpus_chain/datasets/queuedEvent/s3://nope?before=nope")
	q.put(v+"/parseDagFile/nope", ``)

	// FAB.
	q.get(v + "/roles")
	q.post(v+"/roles", `{"name": "r", "actions": []}`)
	q.get(v + "/roles/Admin")
	q.patch(v+"/roles/Admin", `{"name": "r", "actions": []}`)
	q.del(v + "/roles/Admin")
	q.get(v + "/permissions")
	q.get(v + "/users")
	q.post(v+"/users", `{"username": "u"}`)
	q.get(v + "/users/admin")
	q.patch(v+"/users/admin", `{"username": "u"}`)
	q.del(v + "/users/admin")

	// Pools.
	q.get(v + "/pools")
	q.get(v + "/pools?limit=1&offset=0&order_by=-name")
	q.get(v + "/pools?order_by=nope")
	q.post(v+"/pools", `{"name": "v1_pool", "slots": 2, "description": "d", "include_deferred": true}`)
	q.post(v+"/pools", `{"name": "v1_pool", "slots": 2}`)
	q.post(v+"/pools", `{"name": "v1_bad", "slots": "two"}`)
	q.post(v+"/pools", `{"slots": 2}`)
	q.post(v+"/pools", `{"name": "v1_bad", "slots": 2, "nope": 1}`)
	q.post(v+"/pools", `{bad`)
	q.get(v + "/pools/v1_pool")
	q.get(v + "/pools/nope")
	q.patch(v+"/pools/v1_pool", `{"name": "v1_pool", "slots": 5}`)
	q.patch(v+"/pools/v1_pool?update_mask=slots", `{"slots": 6}`)
	q.patch(v+"/pools/v1_pool?update_mask=nope", `{"slots": 6}`)
	q.patch(v+"/pools/v1_pool", `{"name": "renamed", "slots": 5}`)
	q.patch(v+"/pools/default_pool", `{"name": "default_pool", "slots": 64}`)
	q.patch(v+"/pools/nope", `{"name": "nope", "slots": 1}`)
	q.del(v + "/pools/v1_pool")
	q.del(v + "/pools/renamed")
	q.get(v + "/pools")
	q.del(v + "/pools/default_pool")

	// Variables.
	q.get(v + "/variables")
	q.post(v+"/variables", `{"key": "v1_var", "value": "one", "description": "d"}`)
	q.post(v+"/variables", `{"key": "v1/path", "value": "two"}`)
	q.post(v+"/variables", `{"key": "v1_var"}`)
	q.post(v+"/variables", `{"key": "v1_bad", "value": 5}`)
	q.post(v+"/variables", `{"key": "v1_bad", "value": "x", "nope": 1}`)
	q.get(v + "/variables?limit=1&order_by=-key")
	q.get(v + "/variables?order_by=nope")
	q.get(v + "/variables/v1_var")
	q.get(v + "/variables/v1/path")
	q.get(v + "/variables/nope")
	q.patch(v+"/variables/v1_var", `{"key": "v1_var", "value": "changed"}`)
	q.patch(v+"/variables/v1_var?update_mask=value", `{"key": "v1_var", "value": "masked"}`)
	q.patch(v+"/variables/v1_var", `{"key": "other", "value": "x"}`)
	q.patch(v+"/variables/nope", `{"key": "nope", "value": "x"}`)
	q.del(v + "/variables/v1_var")
	q.del(v + "/variables/v1_var")

	// Connections.
	q.get(v + "/connections")
	q.post(v+"/connections", `{"connection_id": "v1_conn", "conn_type": "http", "host": "example.com", "port": 80, "password": "secret", "extra": "{\"a\": 1}"}`)
	q.post(v+"/connections", `{"connection_id": "v1_conn", "conn_type": "http"}`)
	q.post(v+"/connections", `{"connection_id": "v1_bad"}`)
	q.post(v+"/connections", `{"connection_id": "v1_bad", "conn_type": "http", "port": "eighty"}`)
	q.post(v+"/connections", `{"connection_id": "bad id!", "conn_type": "http"}`)
	q.get(v + "/connections?limit=1&order_by=-connection_id")
	q.get(v + "/connections?order_by=nope")
	q.get(v + "/connections/v1_conn")
	q.get(v + "/connections/nope")
	q.patch(v+"/connections/v1_conn", `{"connection_id": "v1_conn", "conn_type": "http", "host": "changed.example.com"}`)
	q.patch(v+"/connections/v1_conn?update_mask=port", `{"connection_id": "v1_conn", "conn_type": "http", "port": 8080}`)
	q.patch(v+"/connections/v1_conn", `{"connection_id": "other", "conn_type": "http"}`)
	q.patch(v+"/connections/nope", `{"connection_id": "nope", "conn_type": "http"}`)
	q.post(v+"/connections/test", `{"connection_id": "v1_conn", "conn_type": "http"}`)
	q.del(v + "/connections/v1_conn")
	q.del(v + "/connections/v1_conn")

	// Event logs.
	q.get(v + "/eventLogs")
	q.get(v + "/eventLogs?limit=3&offset=2&order_by=-event_log_id")
	q.get(v + "/eventLogs?dag_id=corpus_chain&event=success")
	q.get(v + "/eventLogs?order_by=nope")
	q.get(v + "/eventLogs?after=nope")
	q.get(v + "/eventLogs/1")
	q.get(v + "/eventLogs/99999")
	q.get(v + "/eventLogs/abc")

	// Delete a run, then a DAG.
	q.del(v + "/dags/corpus_chain/dagRuns/v1_run_2")
	q.del(v + "/dags/corpus_chain/dagRuns/v1_run_2")
	q.del(v + "/dags/nope/dagRuns/v1_run_2")
	q.get(v + "/dags/corpus_chain/dagRuns")
	q.del(v + "/dags/corpus_loaded")
	q.del(v + "/dags/corpus_loaded")
	q.get(v + "/dags/corpus_loaded")

	// The examples as the stable API shows them: schedules, tags,
	// params, templated tasks, sub-DAGs.
	q.get(v + "/dags/example_bash_operator")
	q.get(v + "/dags/example_bash_operator/details")
	q.get(v + "/dags/example_bash_operator/tasks")
	q.get(v + "/dags/tutorial/details")
	q.get(v + "/dags/tutorial/tasks")
	q.get(v + "/dags/example_subdag_operator/details")
	q.get(v + "/dags/example_subdag_operator.section-1")
	q.get(v + "/dags/example_trigger_target_dag/tasks/bash_task")
	q.get(v + "/dags?only_active=true&limit=100&offset=0")
	q.get(v + "/dags?tags=example,example2")
	q.get(v + "/dags?tags=example&tags=example2")
	q.get(v + "/dags?dag_id_pattern=nope")
	q.get(v + "/dags?limit=1000000")
	q.get(v + "/dags?offset=1000")

	// A scheduled DAG, unpaused: its next run before and after the pass
	// that creates the latest one.
	q.post("/_airlite/dags", "dag_id: corpus_daily\nschedule_interval: '@daily'\nstart_date: 2024-04-28\ncatchup: false\ntasks:\n  - {task_id: only, operator: DummyOperator}\n")
	q.patch(v+"/dags/corpus_daily", `{"is_paused": false}`)
	q.get(v + "/dags/corpus_daily")
	q.schedulerPass()
	q.get(v + "/dags/corpus_daily")
	q.get(v + "/dags/corpus_daily/details")
	q.get(v + "/dags/corpus_daily/dagRuns")
	q.patch(v+"/dags/corpus_daily", `{"is_paused": true}`)

	// A run set to failed before any pass: its task instances have no
	// state yet.
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_3", "logical_date": "2024-03-10T00:00:00+00:00"}`)
	q.req(http.MethodPost, v+"/dags/corpus_chain/dagRuns", ``, "Content-Type", jsonType)
	q.req(http.MethodPost, v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_run_4", "logical_date": "2024-03-11T00:00:00+00:00"}`, "Content-Type", "application/json; charset=utf-8")
	q.get(v + "/dags/corpus_chain/dagRuns/v1_run_3/taskInstances")
	q.patch(v+"/dags/corpus_chain/dagRuns/v1_run_3", `{"state": "failed"}`)
	q.get(v + "/dags/corpus_chain/dagRuns/v1_run_3/taskInstances")
	q.patch(v+"/dags/corpus_chain/dagRuns/v1_run_4", `{"state": "success"}`)
	q.get(v + "/dags/corpus_chain/dagRuns/v1_run_4/taskInstances")
	q.get(v + "/dags/corpus_chain/dagRuns?state=queued,failed")
	q.get(v + "/dags/corpus_chain/dagRuns?state=queued&state=failed&order_by=dag_run_id")
	q.get(v + "/dags/corpus_chain/dagRuns?offset=100")
	q.get(v + "/dags/corpus_chain/dagRuns?end_date_gte=2024-05-01T00:00:00Z&updated_at_lte=2030-01-01T00:00:00Z")
	q.get(v + "/dags/~/dagRuns/~/taskInstances?state=failed,success")
	q.get(v + "/dagStats?dag_ids=corpus_chain")

	// A real BashOperator try: its rendered fields, log and XCom.
	const bashTI = v + "/dags/corpus_bash/dagRuns/bash_run/taskInstances/say"
	q.post(v+"/dags/corpus_bash/dagRuns", `{"dag_run_id": "bash_run", "logical_date": "2024-03-12T00:00:00+00:00"}`)
	q.schedulerPass()
	q.get(bashTI)
	q.get(bashTI + "/logs/1")
	q.req(http.MethodGet, bashTI+"/logs/1", "", "Accept", "text/plain")
	q.get(bashTI + "/xcomEntries")
	q.get(bashTI + "/tries")
	q.get(apiPrefix + "/dags/corpus_bash/dag_runs/2024-03-12T00:00:00+00:00/tasks/say")
	q.get(apiPrefix + "/dags/corpus_bash/tasks/say")
	q.get("/_airlite/dags/corpus_bash/dag_runs/bash_run/wait")

	// Paths as clients encode them, values as Airflow 2 writes them.
	q.get(v + "/variables/v1%2Fpath")
	q.get(v + "/dags/corpus%5Fchain")
	q.get(v + "/dags/corpus_chain/dagRuns/v1%5Frun%5F1")
	q.get(v + "/dags?limit=1&limit=2")
	q.post(v+"/variables", `{"key": "unicode", "value": "héllo ✓ <b>&amp;</b> \u2028"}`)
	q.get(v + "/variables/unicode")
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v1_values", "logical_date": "2024-03-14T00:00:00+00:00", "conf": {"text": "héllo ✓", "big": 12345678901234567890, "neg": -0.0, "f": 1.0, "e": 1e3, "small": 1.5e-7, "nested": {"list": [1, "two", null, true]}}}`)
	q.get(v + "/dags/corpus_chain/dagRuns/exp_values")
	q.get(v + "/dags/corpus_chain/dagRuns/v1_run_1/taskInstances/extract/tries/1")
	q.get(v + "/dags/corpus_chain/dagRuns/v1_run_1/taskInstances/transform/tries")

	// Event logs with every filter.
	q.get(v + "/eventLogs?dag_id=corpus_chain&task_id=extract&run_id=v1_run_1&try_number=1&map_index=-1&limit=5")
	q.get(v + "/eventLogs?owner=anonymous&limit=3&order_by=-when")
	q.get(v + "/eventLogs?included_events=success,failed&limit=4")
	q.get(v + "/eventLogs?excluded_events=running&limit=4&order_by=event")
	q.get(v + "/eventLogs?before=2024-05-01T10:30:00Z&after=2024-05-01T09:00:00Z&limit=3")
	q.get(v + "/eventLogs?try_number=abc")

	// Methods, unknown routes, HEAD.
	q.req(http.MethodPut, v+"/dags", `{}`, "Content-Type", jsonType)
	q.req(http.MethodPost, v+"/health", "")
	q.del(v + "/version")
	q.head(v + "/dags")
	q.head(v + "/dags/nope")
	q.get(v + "/nope")
	q.get(v + "/dags/")
	q.get(v)
	q.get(v + "/")
	q.req(http.MethodOptions, v+"/dags", "")
}

// corpusRouting covers what no route answers, per prefix.
func corpusRouting(q *corpusSeq, e edition) {
	q.get("/api")
	q.get("/api/v2/dags")
	q.get("/api/v1/dags")
	q.get("/admin/")
	q.get("/_airlite")
	q.req("BREW", "/", "")
	q.post(apiPrefix+"/dags/corpus_chain/dag_runs", strings.Repeat("x", maxBodyBytes+1))

	// The browser policy (api_guard.go): a foreign Host, a cross-site
	// request, a preflight.
	q.req(http.MethodGet, apiPrefix+"/test", "", "Host", "evil.example")
	q.req(http.MethodGet, "/", "", "Host", "evil.example:8080")
	q.req(http.MethodPost, apiPrefix+"/dags/corpus_chain/dag_runs", `{}`, "Content-Type", jsonType,
		"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
	q.req(http.MethodGet, apiPrefix+"/test", "", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
	q.req(http.MethodOptions, apiPrefix+"/dags/corpus_chain/dag_runs", "", "Origin", "http://evil.example",
		"Access-Control-Request-Method", "POST")
	q.req(http.MethodPost, apiPrefix+"/pools", `{"name": "p", "slots": 1, "description": ""}`, "Content-Type", "text/plain",
		"Origin", "http://evil.example")
	if e.rules().apiV1 {
		q.req(http.MethodPatch, "/api/v1/dags/corpus_chain", `{"is_paused": true}`, "Content-Type", jsonType,
			"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
		q.req(http.MethodGet, "/api/v1/dags/corpus_chain", "", "Cookie", "session=abc")
	}

	// Reset scopes.
	q.post("/_airlite/reset?scope=runs&dag_id=corpus_chain", ``)
	q.post("/_airlite/reset?scope=runs&dag_id=nope", ``)
	q.post("/_airlite/reset?scope=pools", ``)
	q.post("/_airlite/reset?scope=runs", ``)
	q.post("/_airlite/reset?scope=nope", ``)
	q.post("/_airlite/reset?dag_id=corpus_chain", ``)
}

// corpusAuthSequence is what a refusing backend answers on every prefix.
func corpusAuthSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	q.get(apiPrefix + "/test")
	q.get(apiPrefix + "/dags/corpus_chain/dag_runs")
	q.post(apiPrefix+"/dags/corpus_chain/dag_runs", `{}`)
	q.get(apiPrefix + "/nope")
	q.get("/")
	q.get("/pools")
	q.get("/health")
	q.get("/_airlite/health")
	q.get("/_airlite/ready")
	q.get("/_airlite/clock")
	q.post("/_airlite/reset", `{}`)
	q.get("/api/v1/health")
	q.get("/api/v1/version")
	q.get("/api/v1/dags")
	q.post("/api/v1/dags/corpus_chain/dagRuns", `{}`)
	q.get("/api/v1/roles")
	q.get("/api/v1/nope")
	q.req(http.MethodGet, "/api/v1/dags", "", "Authorization", "Basic "+base64Std("admin:secret"))
	return q.steps
}

// corpusPasswordSequence is the password_auth backend: the same
// credentials as basic_auth, refused and accepted.
func corpusPasswordSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	for _, path := range []string{apiPrefix + "/test", "/api/v1/dags/corpus_chain", "/pools", "/_airlite/clock"} {
		q.get(path)
		q.req(http.MethodGet, path, "", "Authorization", "")
		q.req(http.MethodGet, path, "", "Authorization", "Basic "+base64Std("admin:wrong"))
		q.req(http.MethodGet, path, "", "Authorization", "Basic "+base64Std("admin"))
	}
	return q.steps
}

// corpusLimits are small limits, so that one request reaches each.
var corpusLimits = Limits{Pools: 2, LoadedDAGs: 1, ConfBytes: 64, Variables: 1, Connections: 1, XComs: 1,
	VariableBytes: 10, ConnectionBytes: 200, XComBytes: 1 << 10, EventLogs: 5}

// corpusLimitsSequence reaches every limit of the store once: what each
// refusal answers.
func corpusLimitsSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	x := apiPrefix
	q.post(x+"/pools", `{"name": "lim_1", "slots": 1, "description": ""}`)
	q.post(x+"/pools", `{"name": "lim_2", "slots": 1, "description": ""}`)
	q.post(x+"/pools", `{"name": "lim_1", "slots": 5, "description": "replaced"}`)
	q.post("/_airlite/dags", "dag_id: lim_a\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: t, operator: DummyOperator}\n")
	q.post("/_airlite/dags", "dag_id: lim_b\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: t, operator: DummyOperator}\n")
	q.post("/_airlite/dags", "dag_id: lim_a\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: u, operator: DummyOperator}\n")
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-01T00:00:00+00:00", "conf": {"far_too_long": "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"}}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-01T00:00:00+00:00", "conf": {"k": 1}}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-02T00:00:00+00:00"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-03T00:00:00+00:00"}`)
	q.get(x + "/dags/corpus_chain/paused/false")
	q.schedulerPass()
	q.get(x + "/dags/corpus_chain/dag_runs")
	q.get(x + "/dags/corpus_chain/dag_runs/2024-03-01T00:00:00+00:00/tasks/extract")
	if e.rules().apiV1 {
		const v = "/api/v1"
		q.post(v+"/pools", `{"name": "lim_3", "slots": 1}`)
		q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "lim_run"}`)
		q.post(v+"/variables", `{"key": "a", "value": "short"}`)
		q.post(v+"/variables", `{"key": "b", "value": "short"}`)
		q.post(v+"/variables", `{"key": "a", "value": "far too long a value"}`)
		q.patch(v+"/variables/a", `{"key": "a", "value": "far too long a value"}`)
		q.post(v+"/connections", `{"connection_id": "c1", "conn_type": "http"}`)
		q.post(v+"/connections", `{"connection_id": "c2", "conn_type": "http"}`)
		q.patch(v+"/connections/c1", `{"connection_id": "c1", "conn_type": "http", "extra": "`+strings.Repeat("x", 250)+`"}`)
		q.get(v + "/dags/corpus_chain/dagRuns/~/taskInstances/extract/xcomEntries")
		q.get(v + "/dags/~/dagRuns/~/taskInstances/~/xcomEntries")
		q.get(v + "/eventLogs")
	}
	return q.steps
}

// corpusRetentionSequence is --max-runs-per-dag 1 with --run-retention
// drop-oldest-finished: a finished run makes way, an unfinished one not.
func corpusRetentionSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	x := apiPrefix
	q.get(x + "/dags/corpus_chain/paused/false")
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-01T00:00:00+00:00", "run_id": "first"}`)
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-02T00:00:00+00:00", "run_id": "refused"}`)
	q.schedulerPass()
	q.post(x+"/dags/corpus_chain/dag_runs", `{"execution_date": "2024-03-02T00:00:00+00:00", "run_id": "second"}`)
	q.get(x + "/dags/corpus_chain/dag_runs")
	q.get(x + "/dags/corpus_chain/dag_runs/2024-03-01T00:00:00+00:00")
	q.get(x + "/latest_runs")
	return q.steps
}

// corpusStartingSequence is what a server answers before it is ready.
func corpusStartingSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	q.get("/_airlite/ready")
	q.get("/_airlite/health")
	q.get("/health")
	q.get(apiPrefix + "/test")
	q.post(apiPrefix+"/dags/corpus_chain/dag_runs", `{}`)
	q.get("/")
	q.get("/api/v1/dags")
	return q.steps
}

// corpusBasicSequence is the basic_auth backend: refusals for missing or
// wrong credentials, answers for right ones, and a reset at the end.
func corpusBasicSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	bad := "Basic " + base64Std("admin:wrong")
	unknown := "Basic " + base64Std("nobody:secret")
	for _, path := range []string{apiPrefix + "/test", "/api/v1/dags", "/", "/_airlite/clock"} {
		q.get(path)
		q.req(http.MethodGet, path, "", "Authorization", "")
		q.req(http.MethodGet, path, "", "Authorization", bad)
		q.req(http.MethodGet, path, "", "Authorization", unknown)
		q.req(http.MethodGet, path, "", "Authorization", "Bearer token")
		q.req(http.MethodGet, path, "", "Authorization", "Basic !!!")
	}
	q.post(apiPrefix+"/dags/corpus_chain/dag_runs", `{"execution_date": "`+corpusDate1+`"}`)
	q.get(apiPrefix + "/dags/corpus_chain/dag_runs")
	q.post("/_airlite/reset", `{}`)
	q.get(apiPrefix + "/dags/corpus_chain/dag_runs")
	q.post("/_airlite/reset", `{bad`)
	_ = e
	return q.steps
}
