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
	"strings"
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
