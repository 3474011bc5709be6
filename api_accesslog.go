package main

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
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

// accessLine writes the access log's line of a request through its
// zerolog logger: route (when one matched), method, status, bytes, dur (in
// milliseconds) and time (the request's end). Two of its fields are
// formatted here rather than by zerolog, in the same bytes, because they
// were most of the line's cost on the shortest routes: the time changes
// once a second and is formatted once a second, and the duration is
// written from its integer nanoseconds (appendMillis) instead of through
// the shortest float formatting.
type accessLine struct {
	log    *zerolog.Logger
	stamps atomic.Pointer[accessStamp]
}

// accessStamp is the time field of the lines ending in one second, as
// JSON: RFC 3339 needs no escape, so it is the quoted text.
type accessStamp struct {
	unix int64
	json []byte
}

// newAccessLine is the line writer of log; nil when log is (no access
// log), whose write does nothing.
func newAccessLine(log *zerolog.Logger) *accessLine {
	if log == nil {
		return nil
	}
	return &accessLine{log: log}
}

// write logs one request at info.
func (a *accessLine) write(route, method string, status, bytes int, start, end time.Time) {
	if a == nil {
		return
	}
	e := a.log.Info()
	if e == nil { // below the logger's level
		return
	}
	if route != "" {
		e.Str("route", route)
	}
	var dur [24]byte
	e.Str("method", method).Int("status", status).Int("bytes", bytes).
		RawJSON("dur", appendMillis(dur[:0], end.Sub(start))).
		RawJSON(zerolog.TimestampFieldName, a.stamp(end)).Msg("request")
}

// stamp is what zerolog's Time writes for t in zerolog.TimeFieldFormat
// (RFC 3339 in whole seconds: airlite never changes it), kept for t's
// second.
func (a *accessLine) stamp(t time.Time) []byte {
	unix := t.Unix()
	if s := a.stamps.Load(); s != nil && s.unix == unix {
		return s.json
	}
	s := &accessStamp{unix: unix, json: append(t.AppendFormat([]byte{'"'}, zerolog.TimeFieldFormat), '"')}
	a.stamps.Store(s)
	return s.json
}

// maxExactMillis bounds the durations appendMillis writes itself: below
// 10^15 ns the milliseconds have at most 15 significant digits, so the
// float64 nearest to them prints, at its shortest, as exactly those
// digits (15 decimal digits survive a round trip through a float64).
const maxExactMillis = 1_000_000_000_000_000

// appendMillis appends d in milliseconds as zerolog's Dur writes it with
// its defaults (float64(d)/1e6, strconv's shortest 'f' form): the exact
// decimal of d/1e6, trailing zeros and a bare point dropped.
func appendMillis(dst []byte, d time.Duration) []byte {
	if d < 0 || d >= maxExactMillis {
		return strconv.AppendFloat(dst, float64(d)/float64(time.Millisecond), 'f', -1, 64)
	}
	dst = strconv.AppendInt(dst, int64(d/time.Millisecond), 10)
	frac := int64(d % time.Millisecond)
	if frac == 0 {
		return dst
	}
	var digits [6]byte
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := len(digits)
	for digits[n-1] == '0' {
		n--
	}
	return append(append(dst, '.'), digits[:n]...)
}
