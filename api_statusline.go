package main

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Airflow 1.10.15's and 2.10.3's webservers are Flask applications:
// Werkzeug writes a status line's reason in capitals ("HTTP/1.1 404 NOT
// FOUND", werkzeug/sansio/response.py _clean_status: HTTP_STATUS_CODES
// [code].upper()), and gunicorn sends it as it is. Airflow's Python
// clients show that reason in their ApiException ("Reason: FORBIDDEN"),
// and apache-airflow-client 2.10.0's own test (test_python_client.py)
// tells the config route's expected 403 by the word FORBIDDEN in it.
//
// Go's net/http writes http.StatusText(code) itself and has no setting
// for another phrase. A connection of the editions that speak Flask is
// wrapped instead: when a request starts (the server's StateActive),
// the connection expects the answer's status line, which net/http writes
// at the start of the answer's first write (its buffer was flushed at
// the end of the answer before), and sends that line with the reason in
// capitals. Nothing else of the stream is touched: a write that does not
// start with a status line net/http writes, or comes after it, passes as
// it is, and keep-alive, timeouts and deadlines stay net/http's.

// capitalReasons makes srv send Werkzeug's status lines on the
// connections ln accepts, and returns the listener to serve.
func capitalReasons(srv *http.Server, ln net.Listener) net.Listener {
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		if rc, ok := c.(*reasonConn); ok && state == http.StateActive {
			rc.answerDue.Store(true)
		}
		if prev != nil {
			prev(c, state)
		}
	}
	return reasonListener{ln}
}

type reasonListener struct{ net.Listener }

func (l reasonListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &reasonConn{Conn: c}, nil
}

// reasonConn is a connection whose status lines go out as Werkzeug
// writes them.
type reasonConn struct {
	net.Conn
	// answerDue: a request has started and its status line has not been
	// written yet. Set by the server's state hook, read by the writes;
	// both run on the connection's goroutine, the atomic keeps a handler
	// that writes from another goroutine safe.
	answerDue atomic.Bool
	// scratch holds the rewritten first write of an answer; used by
	// the connection's writes only, which net/http makes one at a time.
	scratch []byte
}

func (c *reasonConn) Write(p []byte) (int, error) {
	if !c.answerDue.Load() {
		return c.Conn.Write(p)
	}
	line, ok := goStatusLine(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if bytes.HasSuffix(line, []byte(" 100 Continue\r\n")) {
		// An interim answer (Expect: 100-continue), which gunicorn also
		// writes as "100 Continue": the final one is still due.
		return c.Conn.Write(p)
	}
	c.answerDue.Store(false)
	capital, ok := capitalLines[string(line)]
	if !ok {
		capital = bytes.ToUpper(line) // HTTP/1.0; the same length: the reasons are ASCII
	}
	// One write of a copy: net/http's first write of an answer is its
	// 4 KiB buffer. Not writev (net.Buffers): it would do, but the race
	// detector sees no order through it, where a plain write orders what
	// the handler did before it with the client's read.
	c.scratch = append(append(c.scratch[:0], capital...), p[len(line):]...)
	n, err := c.Conn.Write(c.scratch)
	if cap(c.scratch) > maxScratch {
		c.scratch = nil // a rare large first write is not kept for the connection's life
	}
	return n, err
}

// maxScratch bounds the copy a connection keeps between answers.
const maxScratch = 8 << 10

// CloseWrite lets net/http half-close the connection as it does a bare
// TCP connection's (closeWriteAndWait).
func (c *reasonConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// capitalLines are the HTTP/1.1 status lines net/http writes, each with
// Werkzeug's: the answers need no allocation for them.
var capitalLines = func() map[string][]byte {
	m := map[string][]byte{}
	for code := 100; code < 600; code++ {
		if text := http.StatusText(code); text != "" {
			line := "HTTP/1.1 " + strconv.Itoa(code) + " " + text + "\r\n"
			m[line] = []byte(strings.ToUpper(line))
		}
	}
	return m
}()

// goStatusLine is the status line at the start of p, as net/http writes
// it ("HTTP/1.x NNN <http.StatusText>\r\n"), if p starts with one.
func goStatusLine(p []byte) ([]byte, bool) {
	const proto = len("HTTP/1.1 ")
	if len(p) < proto+4 || !bytes.HasPrefix(p, []byte("HTTP/1.")) || p[proto-1] != ' ' || p[proto+3] != ' ' {
		return nil, false
	}
	code, err := strconv.Atoi(string(p[proto : proto+3]))
	if err != nil {
		return nil, false
	}
	text := http.StatusText(code)
	end := proto + 4 + len(text)
	if text == "" || len(p) < end+2 || string(p[proto+4:end]) != text || p[end] != '\r' || p[end+1] != '\n' {
		return nil, false
	}
	return p[:end+2], true
}
