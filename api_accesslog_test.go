package main

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
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
