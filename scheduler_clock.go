package main

import (
	"errors"
	"sync"
	"time"
)

// fakeClock is the time source of --clock fake: it stands still until told
// to move, so that a test suite can run schedules, retry delays and
// timeouts without waiting for them.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
	// moved is called after every change (the scheduler's kick).
	moved func()
	// lastTrigger is the date TriggerDate last handed out.
	lastTrigger time.Time
}

var errClockBackwards = errors.New("the fake clock only moves forward")

func newFakeClock(start time.Time) *fakeClock {
	return &fakeClock{t: start.UTC().Truncate(time.Microsecond)}
}

// Now is the clock's current time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t, which must not be earlier than now.
func (c *fakeClock) Set(t time.Time) (time.Time, error) {
	c.mu.Lock()
	t = t.UTC().Truncate(time.Microsecond)
	if t.Before(c.t) {
		c.mu.Unlock()
		return time.Time{}, errClockBackwards
	}
	c.t = t
	moved := c.moved
	c.mu.Unlock()
	if moved != nil {
		moved()
	}
	return t, nil
}

// Advance moves the clock forward by d.
func (c *fakeClock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errClockBackwards
	}
	return c.Set(c.Now().Add(d))
}

// TriggerDate is the execution date of a trigger that sends none: the
// clock's time cut to unit (a second when microseconds are replaced, else
// a microsecond), or one unit after the date it last handed out when
// that one is not earlier. A clock that stands still would otherwise give
// two dateless triggers in a row the same date, which Airflow refuses as
// a duplicate; under a real clock time moves between them. The clock
// itself does not move, so schedules stay where the test put them.
func (c *fakeClock) TriggerDate(unit time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.t.Truncate(unit)
	if !c.lastTrigger.IsZero() && !d.After(c.lastTrigger) {
		d = c.lastTrigger.Truncate(unit).Add(unit)
	}
	c.lastTrigger = d
	return d
}
