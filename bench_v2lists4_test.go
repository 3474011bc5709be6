package main

// Benchmarks of the run listings lists3 left reading their scope (issue
// #21): runs by conf and external_trigger, several keys led by dag_id or
// state, and a marked order's first page after a write. BENCHMARKS.md has
// the figures and the commands.

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// addMixedRuns stores n runs of dagID as addSchedulerRuns does, but one
// in ten is a manual run triggered through the API (external_trigger)
// with a conf of its own ({"n": i%7}), the others scheduled with {}: each
// manual run breaks the order by conf (its conf sorts before {}) and the
// scheduled run after it the order by external_trigger.
func addMixedRuns(tb testing.TB, store *Store, dagID string, base time.Time, n int) {
	tb.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			date := base.Add(time.Duration(i) * time.Minute)
			start := date.Add(2 * time.Second)
			end := start.Add(time.Duration(10+i%7) * time.Second)
			state := RunSuccess
			if i%10 == 9 {
				state = RunFailed
			}
			r := &DagRun{ID: id, DagID: dagID, RunID: "scheduled__" + isoFormat(date), ExecutionDate: date, State: state,
				Conf: json.RawMessage(`{}`), RunType: "scheduled", StartDate: &start, EndDate: &end, UpdatedAt: &end}
			if i%10 == 4 {
				r.RunID, r.RunType, r.ExternalTrigger = "manual__"+isoFormat(date), "manual", true
				r.Conf = json.RawMessage(fmt.Sprintf(`{"n":%d}`, i%7))
			}
			if i >= n-2 {
				r.State, r.StartDate, r.EndDate, r.UpdatedAt = RunQueued, nil, nil, &date
			}
			if err := txn.Insert(tableDagRuns, r); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		tb.Fatal(err)
	}
}
