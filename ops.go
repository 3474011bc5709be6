package main

// The operations layer: what a client can do to runs, task instances and
// DAGs, written once, called by every dialect (the experimental API,
// /api/v1, the admin endpoints, the status page). An operation takes typed
// Go values that its caller has already read off the wire and checked
// against that wire's rules, and answers typed values (rows, counts) or a
// domain error (ops_errors.go), never a wire form or an HTTP status: each
// dialect phrases the faults in its own words (apiexp_errors.go,
// apiv1_errors.go, api_admin.go).

import (
	"slices"
	"sync/atomic"
	"time"
)

// operations holds what the operations read and whom they tell: the
// store, the edition's rules, the clock, and the scheduler's two hooks.
type operations struct {
	store   *Store
	edition edition
	now     func() time.Time
	// triggerDate, when set, dates a trigger that names no date at the
	// given unit (the fake clock's TriggerDate); otherwise it is now.
	triggerDate func(unit time.Duration) time.Time
	unixname    string // the OS user, recorded on the task instances a run creates
	// kick tells the scheduler there is work to look at; nil when it is
	// off. Only wake calls it.
	kick func()
	// tasksStopped applies a change and stops the running tries that
	// match in one step of the scheduler's (scheduler.WithTasksStopped);
	// nil when the scheduler is off, and then no try runs.
	tasksStopped func(match func(tiKey) bool, change func() error) error
	// parseRequests are the DAG files asked to be read again, which the
	// folder's reloader takes (dag_reload.go); nil: asked of nobody.
	parseRequests *dagParseRequests
	// sortLists, when set (tests), sends every DAG, run and XCom listing to
	// the path that reads and sorts every row of its scope, which the
	// walks' answers are held to.
	sortLists atomic.Bool
}

// rules is the edition's row of the rules table.
func (o *operations) rules() *editionRules { return o.edition.rules() }

// clock is now as the store records it: UTC, to the microsecond (what
// Airflow's database keeps).
func (o *operations) clock() time.Time { return o.now().UTC().Truncate(time.Microsecond) }

// wake tells the scheduler that something changed that it may act on: a
// new run, a cleared or re-marked task instance, an unpaused DAG, more
// pool slots. The one way any caller wakes it.
func (o *operations) wake() {
	if o.kick != nil {
		o.kick()
	}
}

// stopping applies change and stops the running tries that match, so
// that none writes into what the change replaced or removed. It does not
// wake the scheduler: a delete leaves it nothing to do.
func (o *operations) stopping(match func(tiKey) bool, change func() error) error {
	if o.tasksStopped == nil {
		return change()
	}
	return o.tasksStopped(match, change)
}

// stopWriteWake is "stop the affected tries, write, wake the scheduler":
// write changes the store and returns the task instances whose running
// tries it took away (a forced state, a clear); those tries, and only
// those, are stopped in the same step of the scheduler's, then the
// scheduler is woken once.
func (o *operations) stopWriteWake(write func() (stopped []tiKey, err error)) error {
	var stopped []tiKey
	err := o.stopping(func(k tiKey) bool { return slices.Contains(stopped, k) }, func() (err error) {
		stopped, err = write()
		return err
	})
	if err != nil {
		return err
	}
	o.wake()
	return nil
}

// inList is the values of a filter Airflow reads as an IN list
// (column.in_(values)), each once and sorted: a value given twice picks
// its rows once. nil stays nil (no filter); the slice is sorted in place.
func inList(values []string) []string {
	if values == nil {
		return nil
	}
	slices.Sort(values)
	return slices.Compact(values)
}
