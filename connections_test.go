package main

// Connections that stall: a body that never completes is answered once and
// the connection closed, and an answer a client does not read is cut off
// after the route's write timeout.

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// stalledBody sends a request's headers and the first byte of a body that
// claims 100, then waits for the answer.
func stalledBody(t *testing.T, addr, method, path string) (status string, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := method + " " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		return "no answer: " + err.Error(), false
	}
	res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(line), br)), nil)
	if err != nil {
		return "bad answer: " + err.Error(), false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	_, err = br.ReadByte()
	return res.Status, err == io.EOF
}

// TestServer_StalledBodyAnsweredAndClosed: a body that stops arriving is
// answered 400 once its time is up, and the connection is closed: it
// neither hangs nor is kept for another request.
func TestServer_StalledBodyAnsweredAndClosed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.BodyTimeout = 200 * time.Millisecond }))
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, rt := range []struct{ method, path string }{
		{"POST", apiPrefix + "/dags/example_bash_operator/dag_runs"},
		{"POST", apiPrefix + "/pools"},
		{"POST", "/_airlite/dags"},
		{"POST", "/_airlite/clock"},
		{"POST", "/trigger"},
	} {
		status, closed := stalledBody(t, addr, rt.method, rt.path)
		if !strings.HasPrefix(status, "400") || !closed {
			t.Errorf("%s %s with a stalled body: %q, connection closed %v; want 400 and closed", rt.method, rt.path, status, closed)
		}
	}
	// The server still answers.
	if res := ts.do(t, "GET", apiPrefix+"/test", ""); res.status != 200 {
		t.Errorf("after stalled bodies: %d", res.status)
	}
}

// TestServer_WaitOutlastsTheWriteTimeout: answers are cut off after the
// server's short write timeout, but the long-poll wait sets its own
// deadline and answers after a longer wait.
func TestServer_WaitOutlastsTheWriteTimeout(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	short := httptest.NewUnstartedServer(nil)
	short.Config = newHTTPServer(ts.srv.routes(), zerolog.New(zerolog.NewTestWriter(t)), 100*time.Millisecond)
	short.Start()
	t.Cleanup(short.Close)
	ts.trigger(t, "example_bash_operator", `{"run_id": "never_ends"}`) // no scheduler: it stays queued
	res, err := http.Get(short.URL + "/_airlite/dags/example_bash_operator/dag_runs/never_ends/wait?timeout=500ms")
	if err != nil {
		t.Fatalf("wait longer than the write timeout: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "still queued") {
		t.Fatalf("wait: %d %s (%v), want 408 saying the run is still queued", res.StatusCode, body, err)
	}
}

// TestBinary_StalledBodiesClosed: twenty clients that send part of a body
// and go silent are all answered and closed once --body-timeout passes,
// and the server answers others meanwhile and after.
func TestBinary_StalledBodiesClosed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	base := startAirlite(t, "--body-timeout", "1s", "--scheduler", "off")
	addr := strings.TrimPrefix(base, "http://")
	type result struct {
		status string
		closed bool
	}
	results := make(chan result, 20)
	for i := 0; i < 20; i++ {
		go func() {
			status, closed := stalledBody(t, addr, "POST", apiPrefix+"/dags/example_bash_operator/dag_runs")
			results <- result{status, closed}
		}()
	}
	res, err := http.Get(base + apiPrefix + "/test")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a client beside the stalled ones: %v %v", res, err)
	}
	res.Body.Close()
	for i := 0; i < 20; i++ {
		if r := <-results; !strings.HasPrefix(r.status, "400") || !r.closed {
			t.Errorf("stalled client %d: %q, closed %v; want 400 and closed", i, r.status, r.closed)
		}
	}
}

// blockingWriter is a client that stops reading, as a socket whose
// buffers are full: the first 64 KiB are taken, then a Write waits until
// released.
type blockingWriter struct {
	h        http.Header
	written  int
	blocked  chan struct{} // closed when a Write starts waiting
	release  chan struct{}
	once     sync.Once
	maxWrite int
}

func (b *blockingWriter) Header() http.Header { return b.h }
func (b *blockingWriter) WriteHeader(int)     {}
func (b *blockingWriter) Write(p []byte) (int, error) {
	b.maxWrite = max(b.maxWrite, len(p))
	b.written += len(p)
	if b.written > 64<<10 {
		b.once.Do(func() { close(b.blocked) })
		<-b.release
	}
	return len(p), nil
}

// TestServer_StalledListingsHoldLittle: clients that stop reading a long
// run listing hold a small part of it each, not the whole answer: the
// listing is written in chunks as it is rendered, and the rows rendered
// and written are garbage. With 20 stalled clients of a 1.5 MB listing,
// whole copies would hold 30 MB.
func TestServer_StalledListingsHoldLittle(t *testing.T) {
	ts := newTestServer(t, edition2, withDAG("dag_id: many\nschedule_interval: null\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n"))
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 6000; i++ {
		addTriggeredRun(t, ts.store, "many", base.Add(time.Duration(i)*time.Minute))
	}
	path := apiPrefix + "/dags/many/dag_runs"
	whole := ts.do(t, "GET", path, "")
	if whole.status != 200 || len(whole.body) < 1<<20 {
		t.Fatalf("listing: %d, %d bytes; want 200 and over 1 MiB", whole.status, len(whole.body))
	}
	handler := ts.Config.Handler
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const clients = 20
	release := make(chan struct{})
	var wg sync.WaitGroup
	writers := make([]*blockingWriter, clients)
	for i := range writers {
		w := &blockingWriter{h: http.Header{}, blocked: make(chan struct{}), release: release}
		writers[i] = w
		r := httptest.NewRequest("GET", path, nil)
		r.Host = "127.0.0.1:8080"
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			handler.ServeHTTP(w, r)
		}()
		select {
		case <-w.blocked:
		case <-done:
			t.Fatalf("client %d: the listing was written without blocking", i)
		}
	}
	runtime.GC()
	var stalled runtime.MemStats
	runtime.ReadMemStats(&stalled)
	close(release)
	wg.Wait()
	held := int64(stalled.HeapAlloc) - int64(before.HeapAlloc)
	if limit := int64(clients) * 256 << 10; held > limit {
		t.Errorf("%d stalled clients hold %d KiB of heap, over %d KiB (the listing is %d KiB)", clients, held>>10, limit>>10, len(whole.body)>>10)
	}
	for i, w := range writers {
		if w.maxWrite > 64<<10 {
			t.Errorf("client %d: a write of %d bytes, want chunks of at most 64 KiB", i, w.maxWrite)
		}
	}
}

// A listing written in chunks is byte for byte the listing rendered at
// once, in each edition's JSON form.
func TestServer_StreamedListingBytes(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e, withDAG("dag_id: many\nschedule_interval: null\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n"))
			base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := 0; i < 500; i++ {
				addTriggeredRun(t, ts.store, "many", base.Add(time.Duration(i)*time.Minute))
			}
			res := ts.do(t, "GET", apiPrefix+"/dags/many/dag_runs", "")
			list, err := ts.srv.api.DagRuns("many", "")
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.rules().appendJSON(nil, list)
			if err != nil {
				t.Fatal(err)
			}
			if res.status != 200 || res.body != string(want) {
				t.Fatalf("streamed listing (%d bytes) differs from the rendered one (%d bytes)", len(res.body), len(want))
			}
		})
	}
}
