package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// runModelDAG is a DAG of one task, for the run model's tests.
const runModelDAG = `
dag_id: model
schedule_interval: null
tasks:
  - task_id: only
    operator: BashOperator
    bash_command: "true"
`

// createModelRun creates a run of runModelDAG through the store's intent
// write, as Airflow 3 will: nr's runID, date, noDate and runAfter.
func createModelRun(t *testing.T, store *Store, nr newRun) error {
	t.Helper()
	row, err := store.DagByID("model")
	if err != nil {
		t.Fatal(err)
	}
	nr.start, nr.dag, nr.conf, nr.now = edition2.rules().newRun, row.Def, json.RawMessage(`{}`), nr.runAfter
	if nr.now.IsZero() {
		nr.now = nr.date
	}
	_, err = store.CreateRun(func(storeView) (*newRun, error) { return &nr, nil })
	return err
}

func modelStore(t *testing.T) *Store {
	t.Helper()
	d, err := parseDAG([]byte(runModelDAG))
	if err != nil {
		t.Fatal(err)
	}
	return storeWith(t, &DAGSet{DAGs: []*DAG{d}})
}

func modelRunIDs(runs []*DagRun) []string {
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	return ids
}

// A run is identified by (dag_id, run_id) and ordered by run_after; its
// logical date may be absent. Runs without one never collide, even at the
// same run_after; a present one stays unique per DAG (Airflow 3's
// dag_run_dag_id_logical_date_key: nulls repeat).
func TestStore_RunModel_LogicalDateMayBeAbsent(t *testing.T) {
	t.Parallel()
	store := modelStore(t)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, nr := range []newRun{
		{runID: "dated_2", date: day(2)},                      // run_after is its logical date
		{runID: "nodate_a", noDate: true, runAfter: day(3)},   // no logical date
		{runID: "nodate_b", noDate: true, runAfter: day(3)},   // the same run_after: no collision
		{runID: "late_1", date: day(1), runAfter: day(4)},     // a logical date before its run_after
		{runID: "same_after", date: day(5), runAfter: day(5)}, // a run_after equal to the logical date
		{runID: "nodate_c", noDate: true, runAfter: day(2)},   // before the runs above, by run_after
	} {
		if err := createModelRun(t, store, nr); err != nil {
			t.Fatalf("create %s: %v", nr.runID, err)
		}
	}

	runs, err := store.RunsOfDag("model", "")
	if err != nil {
		t.Fatal(err)
	}
	// By run_after; equal run_afters in creation (id) order.
	if got, want := modelRunIDs(runs), []string{"dated_2", "nodate_c", "nodate_a", "nodate_b", "late_1", "same_after"}; !slices.Equal(got, want) {
		t.Errorf("runs in order %v, want %v", got, want)
	}
	for _, r := range runs {
		date, ok := r.LogicalDate()
		switch r.RunID {
		case "nodate_a", "nodate_b", "nodate_c":
			if ok || !date.IsZero() {
				t.Errorf("%s: logical date %v (%v), want none", r.RunID, date, ok)
			}
		case "late_1":
			if !ok || !date.Equal(day(1)) || !r.After().Equal(day(4)) {
				t.Errorf("%s: logical date %v, run_after %v, want %v and %v", r.RunID, date, r.After(), day(1), day(4))
			}
		case "same_after":
			if !r.RunAfter.IsZero() || !r.After().Equal(day(5)) {
				t.Errorf("%s: RunAfter %v kept, want zero (the logical date)", r.RunID, r.RunAfter)
			}
		}
	}

	// Found by logical date, whether or not it is the run_after; a
	// run_after alone is no logical date.
	for date, want := range map[time.Time]string{day(1): "late_1", day(2): "dated_2", day(5): "same_after", day(3): "", day(4): ""} {
		run, err := store.RunByDate("model", date)
		switch {
		case want == "" && !errors.Is(err, errNotFound):
			t.Errorf("run at %s: %v %v, want errNotFound", isoFormat(date), run, err)
		case want != "" && (err != nil || run.RunID != want):
			t.Errorf("run at %s: %v %v, want %s", isoFormat(date), run, err, want)
		}
	}

	// A logical date taken, as the run_after of another run or on its own,
	// is refused.
	for _, nr := range []newRun{{runID: "again_1", date: day(1)}, {runID: "again_2", date: day(2), runAfter: day(9)}} {
		if err := createModelRun(t, store, nr); !errors.Is(err, errExists) {
			t.Errorf("create %s at a taken logical date: %v, want errExists", nr.runID, err)
		}
	}
	if err := createModelRun(t, store, newRun{runID: "nothing", noDate: true}); err == nil {
		t.Error("a run with neither a logical date nor a run_after was created")
	}

	// Pages by date and the latest run follow run_after too.
	page, total, err := store.RunPage(RunPageQuery{DagID: "model", ByDate: true, Desc: true, Limit: 3})
	if err != nil || total != 6 {
		t.Fatalf("page: %d runs, %v", total, err)
	}
	if got, want := modelRunIDs(page), []string{"same_after", "late_1", "nodate_b"}; !slices.Equal(got, want) {
		t.Errorf("latest page %v, want %v", got, want)
	}
	if latest, err := store.LatestRuns(); err != nil || len(latest) != 1 || latest[0].RunID != "same_after" {
		t.Errorf("latest runs %v %v, want same_after", latest, err)
	}

	// Deleting the DAG's runs takes those without a logical date too.
	if err := store.DeleteRuns("model"); err != nil {
		t.Fatal(err)
	}
	if runs, err := store.RunsOfDag("model", ""); err != nil || len(runs) != 0 {
		t.Errorf("runs after DeleteRuns: %v %v", modelRunIDs(runs), err)
	}
	for date := range map[time.Time]bool{day(1): true, day(2): true} {
		if _, err := store.RunByDate("model", date); !errors.Is(err, errNotFound) {
			t.Errorf("run at %s after DeleteRuns: %v", isoFormat(date), err)
		}
	}
}

// The DAG's last scheduled and last automated (scheduled or backfill)
// logical dates (what next_dagrun and the scheduler count from, by
// edition) are kept with the DAG's run counts: manual runs after them do
// not hide them, a run's state changes keep them, a deleted one gives way
// to the one before, a run made a backfill's (a backfill reprocessing it)
// leaves the scheduled ones and stays automated, and a restore finds them
// again.
func TestStore_LastScheduledDate(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	dag := dags.DAGs[0]
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	add := func(runType string, d int) *DagRun {
		t.Helper()
		run := &DagRun{DagID: dag.DagID, RunID: fmt.Sprintf("%s__%d", runType, d), ExecutionDate: day(d), RunAfter: day(d),
			State: RunSuccess, RunType: runType, Conf: json.RawMessage(`{}`)}
		err := store.update(func(txn *memdb.Txn) error {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			run.ID = id
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
			// A finished run's orders (marks, durations) follow it, as the
			// store's writes keep them.
			if err := markRunTxn(txn, nil, run); err != nil {
				return err
			}
			return countRunTxn(txn, run, 1, 0, 0)
		})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	put := func(old *DagRun, change func(*DagRun)) {
		t.Helper()
		run := *old
		change(&run)
		if err := store.update(func(txn *memdb.Txn) error { return putRunTxn(txn, old, &run) }); err != nil {
			t.Fatal(err)
		}
	}
	// want checks the last scheduled and last automated days (0: none).
	want := func(label string, s *Store, scheduled, automated int) {
		t.Helper()
		for kind, d := range map[lastRunKind]int{lastScheduled: scheduled, lastAutomated: automated} {
			got, err := s.LastRunDate(dag.DagID, kind)
			switch {
			case err != nil:
				t.Fatalf("%s: %v", label, err)
			case d == 0 && got != nil:
				t.Errorf("%s: last of kind %d %v, want none", label, kind, got)
			case d != 0 && (got == nil || !got.Equal(day(d))):
				t.Errorf("%s: last of kind %d %v, want %s", label, kind, got, day(d))
			}
		}
	}
	want("no runs", store, 0, 0)
	add("scheduled", 2)
	third := add("scheduled", 3)
	for d := 4; d < 20; d++ {
		add("manual", d)
	}
	backfill := add("backfill", 25)
	want("manual and backfill runs after", store, 3, 25)
	put(third, func(r *DagRun) { r.State = RunRunning })
	want("its state changed", store, 3, 25)
	if err := store.DeleteRun(dag.DagID, third.RunID); err != nil {
		t.Fatal(err)
	}
	want("deleted", store, 2, 25)
	if err := store.DeleteRun(dag.DagID, backfill.RunID); err != nil {
		t.Fatal(err)
	}
	want("the backfill deleted", store, 2, 2)
	later := add("scheduled", 21)
	want("a later one", store, 21, 21)
	put(later, func(r *DagRun) { r.RunType = "backfill" })
	want("a backfill's now", store, 2, 21)

	want("restored", snapshotRoundTrip(t, store), 2, 21)
}
