package main

import (
	"io"
	"sync"
	"time"
)

// flushDelay is how long the access log holds a line so that the lines of
// a burst go out in one write.
const flushDelay = 20 * time.Millisecond

// asyncWriter hands log lines to one goroutine that writes them, so that a
// request never waits for a write to stderr. Waking the goroutine for
// every line would cost a goroutine switch and a write per request, so
// once a line arrives the goroutine waits flushDelay for more and writes
// them all at once. When the buffer is full a line is dropped and counted
// rather than slowing requests down.
type asyncWriter struct {
	mu      sync.Mutex
	pending []byte // whole lines, in order, not yet handed to w
	limit   int    // bytes pending at most
	closed  bool
	dropped int64

	wake chan struct{} // capacity 1: pending has lines
	stop chan struct{}
	done chan struct{}
}

// newAsyncWriter starts the goroutine that writes to w, holding at most
// limit bytes of lines; Close stops it.
func newAsyncWriter(w io.Writer, limit int) *asyncWriter {
	a := &asyncWriter{limit: limit, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go a.run(w)
	return a
}

// Write queues a copy of p (the logger reuses its buffer) and never blocks
// on w.
func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	if a.closed || len(a.pending)+len(p) > a.limit {
		a.dropped++
		a.mu.Unlock()
		return len(p), nil
	}
	a.pending = append(a.pending, p...)
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default: // already woken: the goroutine will find this line too
	}
	return len(p), nil
}

func (a *asyncWriter) run(w io.Writer) {
	defer close(a.done)
	var spare []byte // the buffer written last time, reused
	flush := func() {
		a.mu.Lock()
		lines := a.pending
		a.pending = spare[:0]
		a.mu.Unlock()
		if len(lines) > 0 {
			_, _ = w.Write(lines) // nowhere to report a failed log write
		}
		spare = lines
	}
	hold := time.NewTimer(flushDelay)
	defer hold.Stop()
	for {
		select {
		case <-a.wake:
		case <-a.stop:
			flush()
			return
		}
		hold.Reset(flushDelay)
		select {
		case <-hold.C:
		case <-a.stop:
			flush()
			return
		}
		flush()
	}
}

// Close writes what is queued, stops the goroutine and returns how many
// lines were dropped. Lines written after Close are dropped too. Call it
// once.
func (a *asyncWriter) Close() int64 {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	close(a.stop)
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dropped
}
