package main

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// gatedWriter blocks every write until released, to fill the queue.
type gatedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	gate chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func TestAsyncWriter_OrderDropsAndDrain(t *testing.T) {
	t.Parallel()
	g := &gatedWriter{gate: make(chan struct{})}
	a := newAsyncWriter(g, 4)
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
	if bytes.Contains([]byte(got), []byte("after close")) {
		t.Error("a line written after Close was written")
	}
}
