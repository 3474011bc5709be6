package main

// Endpoint benchmarks, each against a bare net/http twin that serves the
// same bytes over the same loopback client, so that the ratio airlite/bare
// comes out of one run. The big states (10,000 runs of a DAG, 1,000 DAGs,
// 100,000 runs) are built through store transactions, not HTTP. A smoke pass
// (-benchtime=1x) shrinks them unless AIRLITE_BENCH_FULL=1; BENCHMARKS.md
// has the figures and the commands.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// benchSize is n, or smoke in a smoke pass (-benchtime=1x) unless
// AIRLITE_BENCH_FULL=1 asks for the full-size states.
func benchSize(n, smoke int) int {
	if os.Getenv("AIRLITE_BENCH_FULL") == "1" {
		return n
	}
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() == "1x" {
		return smoke
	}
	return n
}

// benchDate is the execution date of the run the GET benchmarks read.
var benchDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const benchDatePath = "2026-01-01T00:00:00+00:00"

// benchDAG is a definition with n EmptyOperator tasks in a chain.
func benchDAG(tb testing.TB, dagID string, n int) *DAG {
	tb.Helper()
	var y strings.Builder
	fmt.Fprintf(&y, "dag_id: %s\nschedule_interval: null\nstart_date: 2020-01-01\ntasks:\n", dagID)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&y, "  - {task_id: t%d, operator: EmptyOperator", i)
		if i+1 < n {
			fmt.Fprintf(&y, ", downstream: [t%d]", i+1)
		}
		y.WriteString("}\n")
	}
	d, err := parseDAG([]byte(y.String()))
	if err != nil {
		tb.Fatalf("parseDAG: %v", err)
	}
	d.FilePath = "bench/" + dagID + ".yaml"
	return d
}

// benchStoreWith builds a store with the embedded fixtures and extra DAGs.
func benchStoreWith(tb testing.TB, extra ...*DAG) (*Store, *DAGSet) {
	tb.Helper()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		tb.Fatal(err)
	}
	dags.DAGs = append(dags.DAGs, extra...)
	sort.Slice(dags.DAGs, func(i, j int) bool { return dags.DAGs[i].DagID < dags.DAGs[j].DagID })
	store, err := newStore()
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.LoadDAGs(dags); err != nil {
		tb.Fatal(err)
	}
	return store, dags
}

// addRuns stores n successful runs of dag, one a minute from base, each
// with finished task instances when withTIs (addRunsIn).
func addRuns(tb testing.TB, store *Store, dag *DAG, base time.Time, n int, withTIs bool) {
	tb.Helper()
	addRunsIn(tb, store, dag, base, n, withTIs, func(int) RunState { return RunSuccess })
}

// addRunsIn stores n finished runs of dag, one a minute from base, the
// i-th in state(i), each with finished task instances when withTIs, in one
// transaction per 10,000 runs, then counts the store's runs again. The
// rows look like those the scheduler leaves: every date set, each in its
// own allocation.
func addRunsIn(tb testing.TB, store *Store, dag *DAG, base time.Time, n int, withTIs bool, state func(i int) RunState) {
	tb.Helper()
	defer func() {
		if err := store.update(recountRunsTxn); err != nil {
			tb.Fatalf("count runs: %v", err)
		}
	}()
	for done := 0; done < n; {
		batch := min(n-done, 10000)
		err := store.update(func(txn *memdb.Txn) error {
			for i := done; i < done+batch; i++ {
				id, err := nextCounter(txn, counterRunID)
				if err != nil {
					return err
				}
				date := base.Add(time.Duration(i) * time.Minute)
				queued, start, end := date.Add(time.Second), date.Add(2*time.Second), date.Add(time.Minute)
				run := &DagRun{ID: id, DagID: dag.DagID, RunID: "scheduled__" + isoFormat(date), ExecutionDate: date,
					State: state(i), Conf: json.RawMessage(`{}`), QueuedAt: &queued, StartDate: &start, EndDate: &end,
					RunType: "scheduled"}
				if err := txn.Insert(tableDagRuns, run); err != nil {
					return err
				}
				if !withTIs {
					continue
				}
				for _, t := range dag.Tasks {
					q, s, e, u := start, start, end, end
					dur, pid := 1.5, 4242
					ti := &TaskInstance{DagID: run.DagID, RunID: run.RunID, TaskID: t.TaskID, ExecutionDate: date,
						State: TaskSuccess, TryNumber: 1, MaxTries: t.Retries, StartDate: &s, EndDate: &e, Duration: &dur,
						QueuedDttm: &q, Pool: t.Pool, PoolSlots: t.PoolSlots, Queue: t.Queue, PriorityWeight: t.TotalWeight,
						Operator: t.Operator, Hostname: "bench-host", Unixname: "bench", PID: &pid, UpdatedAt: &u}
					if err := putTaskInstancesTxn(txn, ti); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("add runs: %v", err)
		}
		done += batch
	}
}

// benchHandler is airlite's whole handler for a store, as the binary builds
// it: edition 2, the access log through the same non-blocking writer (to
// io.Discard here, stderr in the binary), the journal, default auth.
func benchHandler(tb testing.TB, store *Store, dags *DAGSet) http.Handler {
	tb.Helper()
	return benchHandlerOf(tb, edition2, store, dags)
}

// benchHandlerOf is benchHandler for an edition.
func benchHandlerOf(tb testing.TB, e edition, store *Store, dags *DAGSet) http.Handler {
	tb.Helper()
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		tb.Fatal(err)
	}
	out := newAsyncWriter(io.Discard, 1<<20)
	tb.Cleanup(func() { out.Close() })
	access := zerolog.New(out)
	srv, err := newServer(serverOptions{Edition: e, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.New(io.Discard).With().Timestamp().Logger(), AccessLog: &access, Now: time.Now,
		Unixname: "bench", Journal: newJournal(1000), Browser: browserPolicy{HostCheck: true}})
	if err != nil {
		tb.Fatal(err)
	}
	srv.ready.Store(true)
	return srv.routes()
}

// benchServer serves benchHandler over loopback.
func benchServer(tb testing.TB, store *Store, dags *DAGSet) *httptest.Server {
	tb.Helper()
	ts := httptest.NewServer(benchHandler(tb, store, dags))
	tb.Cleanup(ts.Close)
	return ts
}

// benchClient is the one loopback client both servers of a pair are hit with.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
}

// target is one request to one server; body, when set, makes it a POST.
type target struct {
	client *http.Client
	url    string
	body   func() []byte
}

// do sends the request, reads the whole answer into io.Discard and fails
// on a non-200.
func (t target) do(tb testing.TB) {
	resp := t.send(tb)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		tb.Fatalf("%s: status %d: %.300s", t.url, resp.StatusCode, body)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		tb.Fatal(err)
	}
}

func (t target) send(tb testing.TB) *http.Response {
	var resp *http.Response
	var err error
	if t.body != nil {
		resp, err = t.client.Post(t.url, "application/json", bytes.NewReader(t.body()))
	} else {
		resp, err = t.client.Get(t.url)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// capture is an answer as airlite sent it, for a bare twin to send again.
type capture struct {
	header http.Header
	body   []byte
}

func captureOf(tb testing.TB, t target) capture {
	tb.Helper()
	resp := t.send(tb)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("capture %s: status %d, %v: %.300s", t.url, resp.StatusCode, err, body)
	}
	h := resp.Header.Clone()
	for _, k := range []string{"Date", "Content-Length"} {
		h.Del(k)
	}
	return capture{header: h, body: body}
}

func (c capture) write(w http.ResponseWriter) {
	for k, v := range c.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(c.body)
}

// bareGet is the twin of a GET endpoint: the captured bytes, nothing else.
func bareGet(c capture) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { c.write(w) }
}

// barePost is the twin of a trigger: decode the JSON body into a map, keep
// it in a map under a mutex, answer the captured bytes.
func barePost(c capture) http.HandlerFunc {
	var (
		mu   sync.Mutex
		runs = map[int]map[string]any{}
	)
	return func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		runs[len(runs)] = v
		mu.Unlock()
		c.write(w)
	}
}

// loop sends n requests and returns the total time and the median latency.
func loop(tb testing.TB, t target, n int) (time.Duration, time.Duration) {
	lat := make([]time.Duration, n)
	start := time.Now()
	for i := range lat {
		t0 := time.Now()
		t.do(tb)
		lat[i] = time.Since(t0)
	}
	total := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return total, lat[n/2]
}

// compare runs a for b.N requests under the timer (ns/op, allocs/op), then
// ref for as many outside it. It reports ref's mean as refName-ns/op, a's
// median latency, and x-refName: a's median over ref's. Medians, because
// the machine is shared and a few stalls move a mean by several times.
func compare(b *testing.B, a, ref target, refName string) {
	a.do(b) // warm both connections
	ref.do(b)
	b.ReportAllocs()
	b.ResetTimer()
	_, median := loop(b, a, b.N)
	b.StopTimer()
	refTotal, refMedian := loop(b, ref, b.N)
	b.ReportMetric(float64(refTotal.Nanoseconds())/float64(b.N), refName+"-ns/op")
	b.ReportMetric(float64(median)/float64(refMedian), "x-"+refName)
	b.ReportMetric(float64(median.Nanoseconds())/1000, "µs-median")
	b.ReportMetric(float64(refMedian.Nanoseconds())/1000, refName+"-µs-median")
}

// plain runs t for b.N requests: the bare twin's own ns/op and allocs/op.
func plain(b *testing.B, t target) {
	t.do(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.do(b)
	}
}

// pair benchmarks a GET path of airlite against its bare twin.
func pair(b *testing.B, ts *httptest.Server, path string) {
	client := benchClient()
	a := target{client: client, url: ts.URL + apiPrefix + path}
	bare := httptest.NewServer(bareGet(captureOf(b, a)))
	defer bare.Close()
	ref := target{client: client, url: bare.URL + apiPrefix + path}
	b.Run("airlite", func(b *testing.B) { compare(b, a, ref, "bare") })
	b.Run("bare", func(b *testing.B) { plain(b, ref) })
}

// withRun is the fixture store with one run of example_bash_operator at
// benchDate, through the trigger's own transaction.
func withRun(b *testing.B) *httptest.Server {
	store, dags := benchStoreWith(b)
	addTriggeredRun(b, store, "example_bash_operator", benchDate)
	return benchServer(b, store, dags)
}

func addTriggeredRun(tb testing.TB, store *Store, dagID string, date time.Time) {
	tb.Helper()
	row, err := store.DagByID(dagID)
	if err != nil {
		tb.Fatal(err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		_, err := store.insertRunTreeTxn(txn, newRun{start: edition2.rules().newRun, dag: row.Def, runID: "manual__" + isoFormat(date),
			date: date, conf: json.RawMessage(`{}`), now: date, unixname: "bench", external: true})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkAPITest(b *testing.B) {
	store, dags := benchStoreWith(b)
	pair(b, benchServer(b, store, dags), "/test")
}

func BenchmarkAPIPools(b *testing.B) {
	store, dags := benchStoreWith(b)
	pair(b, benchServer(b, store, dags), "/pools")
}

func BenchmarkAPIRunState(b *testing.B) {
	pair(b, withRun(b), "/dags/example_bash_operator/dag_runs/"+benchDatePath)
}

func BenchmarkAPITaskInstanceInfo(b *testing.B) {
	pair(b, withRun(b), "/dags/example_bash_operator/dag_runs/"+benchDatePath+"/tasks/runme_0")
}

// BenchmarkAPIListRuns10k lists a DAG with 10,000 runs (target: median
// under 20 ms).
func BenchmarkAPIListRuns10k(b *testing.B) {
	many := benchDAG(b, "bench_many", 1)
	store, dags := benchStoreWith(b, many)
	addRuns(b, store, many, benchDate, benchSize(10000, 100), false)
	pair(b, benchServer(b, store, dags), "/dags/bench_many/dag_runs")
}

// BenchmarkAPILatestRuns1k lists the latest runs of 1,000 DAGs with ten
// runs each (target: under 10 ms).
func BenchmarkAPILatestRuns1k(b *testing.B) {
	n := benchSize(1000, 20)
	extra := make([]*DAG, n)
	for i := range extra {
		extra[i] = benchDAG(b, fmt.Sprintf("bench_%04d", i), 1)
	}
	store, dags := benchStoreWith(b, extra...)
	for _, d := range extra {
		addRuns(b, store, d, benchDate, 10, false)
	}
	pair(b, benchServer(b, store, dags), "/latest_runs")
}

// BenchmarkAPITrigger triggers example_bash_operator (a run and seven task
// instances each time) against a bare handler that decodes the same JSON
// into a map and keeps it in a map under a mutex.
func BenchmarkAPITrigger(b *testing.B) {
	store, dags := benchStoreWith(b)
	ts := benchServer(b, store, dags)
	var n atomic.Int64
	body := func() []byte {
		i := n.Add(1)
		date := benchDate.Add(time.Duration(i) * time.Second)
		return []byte(`{"conf": {"key": "value"}, "execution_date": "` + isoFormat(date) + `", "run_id": "bench_` + strconv.FormatInt(i, 10) + `"}`)
	}
	client := benchClient()
	path := apiPrefix + "/dags/example_bash_operator/dag_runs"
	a := target{client: client, url: ts.URL + path, body: body}
	bare := httptest.NewServer(barePost(captureOf(b, a)))
	defer bare.Close()
	ref := target{client: client, url: bare.URL + path, body: body}
	b.Run("airlite", func(b *testing.B) { compare(b, a, ref, "bare") })
	b.Run("bare", func(b *testing.B) { plain(b, ref) })
}

// BenchmarkAPIOtherDAGRuns checks that reading a small DAG costs the same
// with 100,000 runs (and task instances) of another DAG in the store as
// with one: it reports x-empty, the ratio of the two.
func BenchmarkAPIOtherDAGRuns(b *testing.B) {
	other := benchDAG(b, "bench_other", 1)
	emptyStore, dags := benchStoreWith(b, other)
	fullStore, _ := benchStoreWith(b, other)
	for _, s := range []*Store{emptyStore, fullStore} {
		for i := 0; i < 10; i++ {
			addTriggeredRun(b, s, "example_bash_operator", benchDate.Add(time.Duration(i)*time.Hour))
		}
	}
	n := benchSize(100000, 1000)
	addRuns(b, fullStore, other, benchDate, n, true)
	// One run of the other DAG, the latest, keeps /latest_runs the same.
	addRuns(b, emptyStore, other, benchDate.Add(time.Duration(n-1)*time.Minute), 1, true)
	empty, full := benchServer(b, emptyStore, dags), benchServer(b, fullStore, dags)
	client := benchClient()
	for _, path := range []string{
		"/dags/example_bash_operator/dag_runs/" + benchDatePath,
		"/dags/example_bash_operator/dag_runs",
		"/dags/example_bash_operator/dag_runs/" + benchDatePath + "/tasks/runme_0",
		"/latest_runs",
	} {
		name := strings.NewReplacer("/dags/example_bash_operator/", "", benchDatePath, "date", "/", "_").Replace(path)
		b.Run(strings.TrimPrefix(name, "_"), func(b *testing.B) {
			a := target{client: client, url: full.URL + apiPrefix + path}
			ref := target{client: client, url: empty.URL + apiPrefix + path}
			if !bytes.Equal(captureOf(b, a).body, captureOf(b, ref).body) {
				b.Fatalf("%s: the two stores answer differently", path)
			}
			compare(b, a, ref, "empty")
		})
	}
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemory100kRuns measures the heap held per stored run and per
// task instance at 100,000 runs of a 10-task DAG, finished as the scheduler
// leaves them (targets: 2 KiB per run, 1 KiB per task instance). Runs are
// measured alone first, then runs with their task instances.
func BenchmarkMemory100kRuns(b *testing.B) {
	n := benchSize(100000, 1000)
	dag := benchDAG(b, "bench_mem", 10)
	var perRun, perTI float64
	for i := 0; i < b.N; i++ {
		store, _ := benchStoreWith(b, dag)
		before := heapAfterGC()
		addRuns(b, store, dag, benchDate, n, false)
		runsOnly := heapAfterGC() - before
		runtime.KeepAlive(store)

		store, _ = benchStoreWith(b, dag)
		before = heapAfterGC()
		addRuns(b, store, dag, benchDate, n, true)
		withTIs := heapAfterGC() - before
		runtime.KeepAlive(store)

		perRun = float64(runsOnly) / float64(n)
		perTI = (float64(withTIs) - float64(runsOnly)) / float64(n*len(dag.Tasks))
	}
	b.ReportMetric(perRun, "B/run")
	b.ReportMetric(perTI, "B/TI")
}

// BenchmarkStartup measures the real binary from process start to its
// "listening on" line, with the embedded fixtures, no snapshot and no
// scheduler (target: under 20 ms).
func BenchmarkStartup(b *testing.B) {
	skipStopBySignal(b)
	dir := b.TempDir()
	bin := filepath.Join(dir, "airlite")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ready := filepath.Join(dir, fmt.Sprintf("ready-%d", i))
		cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--snapshot", "off", "--scheduler", "off", "--ready-file", ready)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		d := time.Since(t0)
		if err != nil || !strings.HasPrefix(line, "listening on ") {
			_ = cmd.Process.Kill()
			b.Fatalf("start-up: read %q, %v", line, err)
		}
		lat = append(lat, d)
		b.StopTimer()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("airlite exit: %v", err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
}

// TestBareServer is the bare Go server of scripts/loadtest.sh, kept in a
// test so that airlite stays one package: it runs only when
// AIRLITE_BARE_DIR names a folder of captured answers, listens on
// AIRLITE_BARE_ADDR, writes its URL to AIRLITE_BARE_READY and serves until
// SIGINT or SIGTERM. The folder holds a manifest of "METHOD PATH NAME"
// lines (PATH may end in a query, answered only to that query);
// NAME.body and NAME.headers (curl -D) are the captured answer.
func TestBareServer(t *testing.T) {
	dir := os.Getenv("AIRLITE_BARE_DIR")
	if dir == "" {
		t.Skip("the load script's bare server: set AIRLITE_BARE_DIR to run it")
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest"))
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string]map[string]http.Handler{} // "METHOD path" → query → answer
	for _, line := range strings.Split(strings.TrimSpace(string(manifest)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("manifest line %q: want METHOD PATH NAME", line)
		}
		c := readCapture(t, filepath.Join(dir, f[2]))
		h := bareGet(c)
		if f[0] == http.MethodPost {
			h = barePost(c)
		}
		path, query, _ := strings.Cut(f[1], "?")
		pattern := f[0] + " " + path
		if byQuery[pattern] == nil {
			byQuery[pattern] = map[string]http.Handler{}
		}
		byQuery[pattern][query] = h
	}
	mux := http.NewServeMux()
	for pattern, answers := range byQuery {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			h, ok := answers[r.URL.RawQuery]
			if !ok {
				http.NotFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	ln, err := net.Listen("tcp", os.Getenv("AIRLITE_BARE_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	if ready := os.Getenv("AIRLITE_BARE_READY"); ready != "" {
		if err := os.WriteFile(ready, []byte("http://"+ln.Addr().String()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	_ = srv.Close()
}

// readCapture reads NAME.body and the headers curl -D wrote to NAME.headers.
func readCapture(t *testing.T, name string) capture {
	body, err := os.ReadFile(name + ".body")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(name + ".headers")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	for _, line := range strings.Split(string(raw), "\n")[1:] { // the status line first
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok {
			continue
		}
		switch k = http.CanonicalHeaderKey(strings.TrimSpace(k)); k {
		case "Date", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive":
		default:
			h.Add(k, strings.TrimSpace(v))
		}
	}
	return capture{header: h, body: body}
}

// discardWriter is a ResponseWriter that keeps nothing, for handler-level
// benchmarks that leave the network out.
type discardWriter struct {
	h      http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(status int)      { d.status = status }

// BenchmarkHandler runs GET endpoints without the network: airlite's whole
// handler chain (journal, router, access log to a discarding writer, auth,
// edition headers, the endpoint) against the bare twin that writes the same
// bytes. It isolates what airlite adds per request, which the loopback
// benchmarks and the load run see only through the noise of the HTTP stack.
func BenchmarkHandler(b *testing.B) {
	store, dags := benchStoreWith(b)
	for i := 0; i < 10; i++ {
		addTriggeredRun(b, store, "example_bash_operator", benchDate.Add(-time.Duration(i)*time.Hour))
	}
	airlite := benchHandler(b, store, dags)
	ts := httptest.NewServer(airlite)
	defer ts.Close()
	runPath := "/dags/example_bash_operator/dag_runs/" + benchDatePath
	for _, e := range []struct{ name, path string }{
		{"test", "/test"},
		{"run_state", runPath},
		{"task_instance", runPath + "/tasks/runme_0"},
		{"list_runs", "/dags/example_bash_operator/dag_runs"},
	} {
		url := apiPrefix + e.path
		bare := bareGet(captureOf(b, target{client: benchClient(), url: ts.URL + url}))
		for _, h := range []struct {
			name    string
			handler http.Handler
		}{{"airlite", airlite}, {"bare", bare}} {
			b.Run(e.name+"/"+h.name, func(b *testing.B) {
				r := httptest.NewRequest(http.MethodGet, url, nil)
				r.Host = "127.0.0.1:8080" // as a client of the default address: the Host check passes
				w := &discardWriter{h: http.Header{}}
				h.handler.ServeHTTP(w, r)
				if w.status != http.StatusOK {
					b.Fatalf("%s answered %d: the benchmark would measure an error", url, w.status)
				}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					h.handler.ServeHTTP(w, r)
				}
			})
		}
	}
}

// BenchmarkV1PostDagRunEvent is the stable API's trigger of
// example_bash_operator with and without its event log row
// (api.post_dag_run, stored in the trigger's write), the event log capped
// at its default, so that the two lines give the row's cost.
func BenchmarkV1PostDagRunEvent(b *testing.B) {
	owner, extra := "anonymous", `{"dag_run_id": "bench"}`
	for _, withEvent := range []bool{false, true} {
		name := "without_event"
		if withEvent {
			name = "with_event"
		}
		b.Run(name, func(b *testing.B) {
			store, dags := benchStoreWith(b)
			store.SetLimits(Limits{EventLogs: defaultMaxEventLogs})
			auth, err := newAuthenticator(authDefault, "")
			if err != nil {
				b.Fatal(err)
			}
			srv, err := newServer(serverOptions{Edition: edition2, DAGs: dags, Store: store, Auth: auth,
				Logger: zerolog.Nop(), Now: time.Now})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var event *EventLog
				if withEvent {
					event = &EventLog{When: benchDate, Event: "api.post_dag_run", DagID: "example_bash_operator", Owner: &owner, Extra: &extra}
				}
				body := map[string]any{"dag_run_id": "bench_" + strconv.Itoa(i),
					"logical_date": isoFormat(benchDate.Add(time.Duration(i) * time.Second))}
				if _, err := srv.V1PostDagRun("example_bash_operator", body, event); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStoreTrigger is the store's part of a trigger alone: one run of
// example_bash_operator with its seven task instances and a conf, written
// as the experimental trigger writes it (TriggerRun), with the allocations
// of its index writes (TestTriggerIndexWrites lists them).
func BenchmarkStoreTrigger(b *testing.B) {
	store, _ := benchStoreWith(b)
	row, err := store.DagByID("example_bash_operator")
	if err != nil {
		b.Fatal(err)
	}
	start := edition2.rules().newRun
	conf := json.RawMessage(`{"key": "value"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		date := benchDate.Add(time.Duration(i) * time.Second)
		runID := "bench_" + strconv.Itoa(i)
		_, err := store.TriggerRun(func(v storeView) (*newRun, error) {
			if err := runExists(v, row.DagID, runID, &date); err != nil {
				return nil, err
			}
			return &newRun{start: start, dag: row.Def, runID: runID, date: date, conf: conf, now: date,
				unixname: "bench", external: true, dateChecked: true}, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
