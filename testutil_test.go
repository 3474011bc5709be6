package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// storeWith is a fresh store with the given definitions loaded.
func storeWith(tb testing.TB, dags *DAGSet) *Store {
	tb.Helper()
	store, err := newStore()
	if err != nil {
		tb.Fatal(err)
	}
	// DAG versions are dated by the tests' clock.
	store.SetClock(func() time.Time { return testNow })
	if err := store.LoadDAGs(dags); err != nil {
		tb.Fatalf("load dags: %v", err)
	}
	return store
}

// pollUntil checks cond every few milliseconds until it holds (true) or
// limit has passed (false).
func pollUntil(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// waitFor fails the test unless cond holds within ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !pollUntil(10*time.Second, cond) {
		t.Fatal("condition not met in 10 s")
	}
}

// Writes that only tests make, to set up states directly. They are
// store methods (memstore.go's helpers), kept here so that the program
// has intent-level writes only.

// UpsertTaskInstance stores a changed copy of a task instance.
func (s *Store) UpsertTaskInstance(ti *TaskInstance) error {
	return s.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, ti) })
}

// RemoveTaskInstance drops one task instance from its run's row.
func (s *Store) RemoveTaskInstance(dagID, runID, taskID string) error {
	return s.update(func(txn *memdb.Txn) error {
		row, err := runTasksTxn(txn, dagID, runID)
		if err != nil || row == nil {
			return err
		}
		kept := &runTasks{DagID: dagID, RunID: runID}
		for _, ti := range row.TIs {
			if ti.TaskID != taskID {
				kept.TIs = append(kept.TIs, ti)
			}
		}
		return txn.Insert(tableTasks, kept)
	})
}

// UpsertDagRun stores a changed copy of a run, or a new run. A stored
// run's conf never changes in airlite (no route writes it after the
// trigger), and the conf orders' remembered sorts rely on that, so a copy
// with another conf is refused rather than stored behind their back.
func (s *Store) UpsertDagRun(run *DagRun) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := runByRunIDTxn(txn, run.DagID, run.RunID)
		switch {
		case errors.Is(err, errNotFound):
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
			return countRunTxn(txn, run, 1, 0, 0)
		case err != nil:
			return err
		}
		if !bytes.Equal(old.Conf, run.Conf) {
			return fmt.Errorf("upsert run %s/%s: conf %s changed to %s, which no route does", run.DagID, run.RunID, old.Conf, run.Conf)
		}
		return putRunTxn(txn, old, run)
	})
}

// UpsertLineage stores what a task declared as inlets and outlets.
func (s *Store) UpsertLineage(rec *LineageRecord) error {
	return s.update(func(txn *memdb.Txn) error {
		if err := txn.Insert(tableLineage, rec); err != nil {
			return fmt.Errorf("store lineage of %s/%s/%s: %w", rec.DagID, rec.RunID, rec.TaskID, err)
		}
		return nil
	})
}

// tickDriven tunes a scheduler to run no loop: the test drives it with
// settleTicks, so no state depends on how fast a loop comes round.
func tickDriven(o *schedulerOptions) { o.Interval = 0 }

// triesGuard bounds awaitTries. Fake tries end at once; real ones (bash)
// take what their commands take. It only turns a hung try into a clear
// failure: no result depends on it.
const triesGuard = 2 * time.Minute

// settleTicks runs sched's passes at now() until the store stops
// changing, waiting after each pass for every try the pass started: what
// the synctest harness's settle does, for tests that cannot run in a
// bubble (a real HTTP listener, real processes).
func settleTicks(t *testing.T, sched *scheduler, now func() time.Time) {
	t.Helper()
	settleUntil(t, sched, now, func() bool { return false })
}

// settleUntil is settleTicks that also stops once done holds after a
// pass: for a schedule that keeps catching up behind the run a test
// checks.
func settleUntil(t *testing.T, sched *scheduler, now func() time.Time, done func() bool) {
	t.Helper()
	for range 200 {
		before := sched.opts.Store.ChangeIndex()
		if err := sched.tick(now()); err != nil {
			t.Fatalf("tick: %v", err)
		}
		awaitTries(t, sched)
		if sched.opts.Store.ChangeIndex() == before || done() {
			return
		}
	}
	t.Fatal("scheduler did not settle in 200 passes")
}

// awaitTries waits until every try sched is running has ended: a real
// wait when a try is a real process, which nothing can fake.
func awaitTries(t *testing.T, sched *scheduler) {
	t.Helper()
	guard := time.NewTimer(triesGuard)
	defer guard.Stop()
	for _, rt := range sched.running() {
		select {
		case <-rt.done:
		case <-guard.C:
			sched.mu.Lock()
			var left []string
			for a := range sched.tasks {
				left = append(left, a.tiKey.String())
			}
			sched.mu.Unlock()
			t.Fatalf("tries still running after %s (a hung task?): %v", triesGuard, left)
		}
	}
}

// tickRun settles sched on the real clock and answers the admin wait for
// a run that must have finished by then, failing with its task states if
// it has not.
func (ts *testServer) tickRun(t *testing.T, sched *scheduler, dagID, runID string) map[string]any {
	t.Helper()
	settleTicks(t, sched, time.Now)
	finishedRun(t, ts.store, dagID, runID)
	// Finished: the wait answers at once, with the same body as ever.
	return ts.waitRun(t, dagID, runID)
}

// newSucceedingScheduler3 is an edition-3 scheduler over ts's store at
// testNow whose every try succeeds at once, stopped at the test's end:
// for tests of which runs the scheduler makes, not of what tasks do.
func newSucceedingScheduler3(t *testing.T, ts *testServer) *scheduler {
	t.Helper()
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: func() time.Time { return testNow }, Parallelism: 8, Unixname: testUnixname, Hostname: "test",
		RunTask: func(ctx context.Context, job taskJob) taskOutcome { return taskOutcome{state: TaskSuccess} }})
	t.Cleanup(sched.stop)
	return sched
}
