package main

import (
	"slices"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// The run state index answers two questions: every run in a state (the
// scheduler's and the status page's) and one DAG's runs in a state
// (max_active_runs). DAG ids where one is a prefix of another must not
// leak into each other's counts, and finished runs are found by a scan.
func TestStore_RunStateQueries(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := []struct {
		dag   string
		state RunState
	}{
		{"ab", RunQueued}, {"a", RunRunning}, {"a", RunQueued}, {"b", RunSuccess},
		{"a", RunQueued}, {"ab", RunRunning}, {"b", RunFailed}, {"b", RunQueued},
	}
	err := store.update(func(txn *memdb.Txn) error {
		for i, r := range rows {
			date := base.Add(time.Duration(i) * time.Hour)
			run := &DagRun{ID: int64(i + 1), DagID: r.dag, RunID: "manual__" + isoFormat(date), ExecutionDate: date, State: r.state}
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(runs []*DagRun) []int64 {
		var out []int64
		for _, r := range runs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		state RunState
		want  []int64
	}{
		{RunQueued, []int64{1, 3, 5, 8}},
		{RunRunning, []int64{2, 6}},
		{RunSuccess, []int64{4}},
		{RunFailed, []int64{7}},
	} {
		runs, err := store.RunsInState(tc.state)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(runs); !slices.Equal(got, tc.want) {
			t.Errorf("RunsInState(%s) = %v, want %v", tc.state, got, tc.want)
		}
	}
	txn := store.read()
	for _, tc := range []struct {
		dag   string
		state RunState
		want  int
	}{
		{"a", RunQueued, 2}, {"ab", RunQueued, 1}, {"b", RunQueued, 1},
		{"a", RunRunning, 1}, {"ab", RunRunning, 1}, {"b", RunRunning, 0}, {"c", RunQueued, 0},
	} {
		n, err := countRunsTxn(txn, tc.dag, tc.state)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("countRunsTxn(%s, %s) = %d, want %d", tc.dag, tc.state, n, tc.want)
		}
	}
}
