package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// gatedWriter blocks every write until released, to fill the queue.
type gatedWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	gate   chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	return g.buf.Write(p)
}

func TestAsyncWriter_OrderDropsAndDrain(t *testing.T) {
	t.Parallel()
	g := &gatedWriter{gate: make(chan struct{})}
	a := newAsyncWriter(g, 32) // four lines
	buf := []byte("line 0\n")
	n, err := a.Write(buf)
	if n != len(buf) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	copy(buf, "LINE") // the logger reuses its buffer: the queued copy must not change
	for i := 1; i < 20; i++ {
		fmt.Fprintf(a, "line %d\n", i)
	}
	close(g.gate)
	dropped := a.Close()
	fmt.Fprintf(a, "after close\n") // dropped, never a panic
	got := g.buf.String()
	lines := bytes.Count([]byte(got), []byte("\n"))
	if int64(lines)+dropped != 20 {
		t.Errorf("%d lines written + %d dropped, want 20 in all", lines, dropped)
	}
	if dropped == 0 {
		t.Error("a full queue must drop lines")
	}
	if !bytes.HasPrefix([]byte(got), []byte("line 0\n")) {
		t.Errorf("first line %q: the queued copy changed or the order is lost", got)
	}
	if g.writes >= lines {
		t.Errorf("%d lines took %d writes: lines queued together must go in one write", lines, g.writes)
	}
	if bytes.Contains([]byte(got), []byte("after close")) {
		t.Error("a line written after Close was written")
	}
}

// A lone line goes out after flushDelay, without waiting for Close.
func TestAsyncWriter_FlushesWithoutClose(t *testing.T) {
	t.Parallel()
	g := &gatedWriter{gate: make(chan struct{})}
	close(g.gate)
	a := newAsyncWriter(g, 1<<10)
	t.Cleanup(func() { a.Close() })
	for i := 0; i < 3; i++ {
		fmt.Fprintf(a, "line %d\n", i)
		want := fmt.Sprintf("line %d\n", i)
		waitFor(t, func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return bytes.HasSuffix(g.buf.Bytes(), []byte(want))
		})
	}
}

// zerologAccessLine is the access line as zerolog writes it with its own
// field encoders, the line accessLine must match byte for byte.
func zerologAccessLine(route, method string, status, size int, start, end time.Time) string {
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	e := log.Info()
	if route != "" {
		e.Str("route", route)
	}
	e.Str("method", method).Int("status", status).Int("bytes", size).
		Dur("dur", end.Sub(start)).Time(zerolog.TimestampFieldName, end).Msg("request")
	return buf.String()
}

// The access line is zerolog's, byte for byte: the stamp kept for a
// second is the one zerolog formats for every instant of that second, and
// the next second gets its own.
func TestAccessLine_SameAsZerolog(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	line := newAccessLine(&log)
	base := time.Date(2026, 11, 28, 17, 34, 12, 0, time.Local)
	for _, tc := range []struct {
		route, method string
		status, bytes int
		start, end    time.Time
	}{
		{"/api/v2/*path", "GET", 200, 266, base, base.Add(2033 * time.Nanosecond)},
		{"/api/v2/*path", "GET", 200, 266, base.Add(400 * time.Millisecond), base.Add(999_999_999 * time.Nanosecond)},
		{"", "POST", 404, 0, base.Add(time.Second), base.Add(time.Second + 1)},
		{"/api/experimental/test", "DELETE", 500, 1 << 20, base.Add(time.Hour), base.Add(time.Hour + 90*time.Second)},
		{`/odd"route\`, "M\u00e9", 418, 1, base, base},
		{"/clock/back", "GET", 200, 1, base.Add(time.Second), base},
	} {
		buf.Reset()
		line.write(tc.route, tc.method, tc.status, tc.bytes, tc.start, tc.end)
		want := zerologAccessLine(tc.route, tc.method, tc.status, tc.bytes, tc.start, tc.end)
		if buf.String() != want {
			t.Errorf("line\n%s want\n%s", buf.String(), want)
		}
	}
	var nop *accessLine // no access log
	nop.write("/x", "GET", 200, 1, base, base)
}

// appendMillis writes what zerolog's Dur writes, for every size of
// duration: whole, fractional, the 15-digit edge and beyond, negative.
func TestAppendMillis_SameAsZerolog(t *testing.T) {
	t.Parallel()
	durations := []time.Duration{0, 1, 9, 10, 999, 1000, 1001, 2033, 100_000, 999_999, 1_000_000, 1_000_001,
		1_500_000, 123_456_789, maxExactMillis - 1, maxExactMillis, maxExactMillis + 1, 1<<53 - 1, 1 << 62,
		-1, -1_000_000, -1_234_567, math.MaxInt64, math.MinInt64}
	rng := rand.New(rand.NewPCG(21, 1))
	for range 20000 {
		durations = append(durations, time.Duration(rng.Int64N(maxExactMillis)), time.Duration(rng.Int64N(10_000_000)))
	}
	for _, d := range durations {
		var buf bytes.Buffer
		log := zerolog.New(&buf)
		log.Log().Dur("d", d).Send()
		want := strings.TrimSuffix(strings.TrimPrefix(buf.String(), `{"d":`), "}\n")
		if got := string(appendMillis(nil, d)); got != want {
			t.Fatalf("appendMillis(%d) = %s, zerolog writes %s", int64(d), got, want)
		}
	}
}
