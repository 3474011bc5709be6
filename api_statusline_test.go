package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The editions that speak Flask send Werkzeug's status lines, on every
// answer of a kept-alive connection; edition 3 sends Go's, which are
// uvicorn's (Python's http.HTTPStatus phrases). apache-airflow-client
// 2.10.0's test_python_client.py looks for FORBIDDEN in the config
// route's error.
func TestStatusLine_WerkzeugReasons(t *testing.T) {
	t.Parallel()
	requests := []string{"GET /api/v1/config", "GET /api/experimental/test", "GET /nope", "DELETE /api/experimental/test"}
	for _, tc := range []struct {
		e        edition
		requests []string
		want     []string
	}{
		{edition2, requests, []string{"HTTP/1.1 403 FORBIDDEN", "HTTP/1.1 200 OK", "HTTP/1.1 404 NOT FOUND", "HTTP/1.1 405 METHOD NOT ALLOWED"}},
		{edition110, requests, []string{"HTTP/1.1 404 NOT FOUND", "HTTP/1.1 200 OK", "HTTP/1.1 404 NOT FOUND", "HTTP/1.1 405 METHOD NOT ALLOWED"}},
		{edition3, []string{"GET /api/v2/config", "GET /api/v2/version", "GET /nope", "DELETE /api/v2/version"},
			[]string{"HTTP/1.1 403 Forbidden", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 405 Method Not Allowed"}},
	} {
		t.Run(string(tc.e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, tc.e)
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			r := bufio.NewReader(conn)
			// One connection, kept alive: every answer's line is rewritten,
			// not only the first.
			for i, req := range tc.requests {
				if _, err := io.WriteString(conn, req+" HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				res, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("%s: %v", req, err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if got := res.Proto + " " + res.Status; got != tc.want[i] {
					t.Errorf("%s: status line %q, want %q", req, got, tc.want[i])
				}
			}
		})
	}
}

// reasonConn rewrites the status line at the start of a due answer and
// nothing else.
func TestStatusLine_RewritesOnlyTheDueLine(t *testing.T) {
	t.Parallel()
	const body = "HTTP/1.1 404 Not Found\r\n" // a body that looks like a status line
	for _, tc := range []struct {
		name   string
		due    bool
		writes []string
		want   string
	}{
		{"due", true, []string{"HTTP/1.1 404 Not Found\r\nA: b\r\n\r\n", body}, "HTTP/1.1 404 NOT FOUND\r\nA: b\r\n\r\n" + body},
		{"not due", false, []string{"HTTP/1.1 404 Not Found\r\n\r\n"}, "HTTP/1.1 404 Not Found\r\n\r\n"},
		{"100 Continue first", true, []string{"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 201 Created\r\n\r\n"},
			"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 CREATED\r\n\r\n"},
		{"HTTP/1.0", true, []string{"HTTP/1.0 400 Bad Request\r\n\r\n"}, "HTTP/1.0 400 BAD REQUEST\r\n\r\n"},
		{"no status line at the start", true, []string{"hello", "HTTP/1.1 200 OK\r\n"}, "helloHTTP/1.1 200 OK\r\n"},
		{"a reason that is not Go's", true, []string{"HTTP/1.1 404 Gone Fishing\r\n"}, "HTTP/1.1 404 Gone Fishing\r\n"},
		{"a cut line", true, []string{"HTTP/1.1 404 Not Fo", "und\r\n"}, "HTTP/1.1 404 Not Found\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sink bytes.Buffer
			c := &reasonConn{Conn: &recordConn{w: &sink}}
			c.answerDue.Store(tc.due)
			for _, w := range tc.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if sink.String() != tc.want {
				t.Errorf("wrote %q, want %q", sink.String(), tc.want)
			}
		})
	}
}

// recordConn is a net.Conn that keeps what is written to it.
type recordConn struct {
	net.Conn
	w io.Writer
}

func (c *recordConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *recordConn) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkStatusLine is what the rewrite adds to an answer's first
// write: a map lookup and two buffers instead of one.
func BenchmarkStatusLine(b *testing.B) {
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 250\r\n\r\n" + strings.Repeat("x", 250))
	for _, due := range []bool{false, true} {
		name := "passed"
		if due {
			name = "rewritten"
		}
		b.Run(name, func(b *testing.B) {
			c := &reasonConn{Conn: &recordConn{w: io.Discard}}
			b.ReportAllocs()
			for b.Loop() {
				c.answerDue.Store(due)
				if _, err := c.Write(answer); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
