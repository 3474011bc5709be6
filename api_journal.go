package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// journalBodyLimit bounds the request body kept per journal entry.
const journalBodyLimit = 16 << 10

// journalEntry is one request as a client sent it.
type journalEntry struct {
	Seq        int64     `json:"seq"`
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Query      string    `json:"query"`
	Body       string    `json:"body"`
	BodyCut    bool      `json:"body_truncated"`
	Status     int       `json:"status"`
	DurationMS float64   `json:"duration_ms"`
}

// journal keeps the last size requests in a ring, so that its memory is
// bounded whatever the traffic. All fields are guarded by mu.
type journal struct {
	mu      sync.Mutex
	entries []journalEntry // ring buffer
	next    int            // where the next entry goes
	full    bool
	seq     int64
}

func newJournal(size int) *journal {
	if size <= 0 {
		return nil
	}
	return &journal{entries: make([]journalEntry, size)}
}

func (j *journal) add(e journalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	j.entries[j.next] = e
	j.next = (j.next + 1) % len(j.entries)
	if j.next == 0 {
		j.full = true
	}
}

// journalFilter selects entries; zero fields match everything.
type journalFilter struct {
	Method     string
	PathPrefix string
	Status     int
	Limit      int // the newest Limit entries
}

// list returns the matching entries, oldest first.
func (j *journal) list(f journalFilter) []journalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	ordered := append([]journalEntry(nil), j.entries[:j.next]...)
	if j.full {
		ordered = append(append([]journalEntry(nil), j.entries[j.next:]...), ordered...)
	}
	out := []journalEntry{}
	for _, e := range ordered {
		if (f.Method == "" || strings.EqualFold(e.Method, f.Method)) &&
			strings.HasPrefix(e.Path, f.PathPrefix) && (f.Status == 0 || e.Status == f.Status) {
			out = append(out, e)
		}
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

func (j *journal) clear() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.next
	if j.full {
		n = len(j.entries)
	}
	j.next, j.full = 0, false
	clear(j.entries)
	return n
}

// boundedBuffer keeps the first limit bytes written to it.
type boundedBuffer struct {
	buf   bytes.Buffer
	limit int
	cut   bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.limit - b.buf.Len()
	if room < len(p) {
		b.cut = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// journaled reports whether a request goes into the journal: the APIs' (the
// experimental API, /api/v1, /api/v2) and the admin endpoints', but not the
// journal's own nor the status pages' (a browser left open would fill the
// journal with page refreshes), nor edition 3's /auth token routes, whose
// bodies are passwords.
func journaled(path string) bool {
	return strings.HasPrefix(path, apiPrefix+"/") || strings.HasPrefix(path, apiV1Prefix+"/") ||
		strings.HasPrefix(path, apiV2Prefix+"/") ||
		(strings.HasPrefix(path, "/_airlite/") && !strings.HasPrefix(path, "/_airlite/requests"))
}

// tee starts keeping r's body as the handler reads it, when r goes into the
// journal; it returns nil otherwise. A request without a body shares one
// empty buffer.
func (j *journal) tee(r *http.Request) *boundedBuffer {
	if j == nil || !journaled(r.URL.Path) {
		return nil
	}
	if r.Body == nil || r.Body == http.NoBody {
		return &noBody
	}
	body := &boundedBuffer{limit: journalBodyLimit}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, body), r.Body}
	return body
}

// noBody is the body of every request that has none; nothing writes to it.
var noBody boundedBuffer

// addRequest adds the request once its answer is written; body is what
// tee returned.
func (j *journal) addRequest(r *http.Request, body *boundedBuffer, status int, start, end time.Time) {
	j.add(journalEntry{
		Time: start.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Body: strings.ToValidUTF8(body.buf.String(), "\uFFFD"), BodyCut: body.cut,
		Status: status, DurationMS: float64(end.Sub(start).Microseconds()) / 1000,
	})
}
