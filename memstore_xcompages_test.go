package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// checkXComCounts compares the XCom counts the writes keep (a DAG's, a
// task's, a run's, a run's task's, and every entry's) with a count of
// the entries.
func checkXComCounts(t *testing.T, step string, store *Store) {
	t.Helper()
	txn := store.read()
	want := map[xcomCount]int{}
	it, err := txn.Get(tableXComs, indexID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		e := raw.(*XComEntry)
		n++
		for _, k := range []xcomCount{{xcomScopeDag, e.DagID, "", "", 0}, {xcomScopeDagTask, e.DagID, e.TaskID, "", 0},
			{xcomScopeRunTask, e.DagID, e.RunID, e.TaskID, 0}} {
			want[k]++
		}
	}
	got := map[xcomCount]int{}
	cit, err := txn.Get(tableXComCounts, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := cit.Next(); raw != nil; raw = cit.Next() {
		c := *raw.(*xcomCount)
		got[xcomCount{c.Scope, c.DagID, c.A, c.B, 0}] = c.N
	}
	if !maps.Equal(got, want) {
		t.Fatalf("%s: xcom counts %v, entries make %v", step, got, want)
	}
	if total := totalTxn(txn, totalXComs); total != int64(n) {
		t.Fatalf("%s: xcom total %d, %d entries", step, total, n)
	}
}

// The XCom counts a page skips by follow every write that adds or
// removes entries: pushes, the API's create, update and delete, a try's
// start (which clears its task instance's entries), a task instance's
// delete, a run's delete and its drop at the run limit, a reset of a
// DAG's runs, a DAG's delete, a restore and a reset of everything.
func TestStore_XComCountsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withRunLimit(RunLimit{Max: 3, DropOldestFinished: true}))
	s := ts.store
	runs := map[string]*DagRun{}
	push := func(dagID string, day int, taskID string, mapIndex int, key string) {
		t.Helper()
		date := fmt.Sprintf("2024-01-%02dT00:00:00+00:00", day)
		run, err := s.RunByRunID(dagID, "manual__"+date)
		if err != nil {
			ts.trigger(t, dagID, `{"execution_date": "`+date+`"}`)
			if run, err = s.RunByRunID(dagID, "manual__"+date); err != nil {
				t.Fatal(err)
			}
		}
		runs[dagID+date] = run
		e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: taskID, RunRowID: run.ID, MapIndex: mapIndex, Key: key,
			Value: json.RawMessage(`1`), Timestamp: testNow}
		if err := s.UpsertXCom(e); err != nil {
			t.Fatal(err)
		}
	}
	for day := 1; day <= 3; day++ {
		for _, task := range []string{"runme_0", "runme_1"} {
			for mi := -1; mi <= 1; mi++ {
				push("example_bash_operator", day, task, mi, "return_value")
				push("example_bash_operator", day, task, mi, "k")
			}
		}
		push("tutorial", day, "print_date", -1, "return_value")
	}
	push("example_bash_operator", 1, "runme_0", -1, "k") // the same key again: no new entry
	checkXComCounts(t, "pushes", s)

	bash1 := runs["example_bash_operator2024-01-01T00:00:00+00:00"]
	if _, err := ts.srv.ops.createXCom(bash1.DagID, bash1.RunID, "also_run_this", "made", -1, json.RawMessage(`2`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetXComValue(bash1.DagID, bash1.RunID, "runme_0", "k", -1, json.RawMessage(`3`)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteXCom(bash1.DagID, bash1.RunID, "runme_1", "k", 0); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "create, update and delete", s)
	if _, err := s.DeleteTaskInstance(bash1.DagID, bash1.RunID, "runme_0", -1); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "a task instance deleted", s)
	if err := s.update(func(txn *memdb.Txn) error {
		return deleteXComsOfTxn(txn, tiKey{bash1.DagID, bash1.RunID, "runme_1", 1})
	}); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "a try's start", s)

	for _, day := range []string{"01", "02"} {
		if res := ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/manual__2024-01-"+day+"T00:00:00+00:00/state", `{"state": "success"}`); res.status != 200 {
			t.Fatalf("force: %d %s", res.status, res.body)
		}
	}
	push("example_bash_operator", 4, "runme_2", -1, "return_value") // drops the oldest finished run
	if _, err := s.RunByRunID("example_bash_operator", bash1.RunID); err == nil {
		t.Fatal("the oldest run is still there at the run limit")
	}
	checkXComCounts(t, "drop at the run limit", s)
	if err := s.DeleteRun("example_bash_operator", "manual__2024-01-02T00:00:00+00:00"); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "a run deleted", s)
	if err := s.DeleteRuns("tutorial"); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "a DAG's runs reset", s)
	push("tutorial", 5, "print_date", -1, "return_value")
	if _, err := s.DeleteDag("tutorial", nil); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "a DAG deleted", s)

	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(s, path, testNow.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "restore", restored)
	if n, _ := xcomCountTxn(restored.read(), xcomScopeDag, "example_bash_operator", "", ""); n == 0 {
		t.Fatal("the restore kept no entries: the check above compared nothing")
	}
	if err := s.Reset(ts.dags); err != nil {
		t.Fatal(err)
	}
	checkXComCounts(t, "reset", s)
}

// BenchmarkStoreXComPush stores one new XCom entry a write, as a try's
// finish pushes one, spread over 100 runs: what the kept counts add to a
// push (BENCHMARKS.md).
func BenchmarkStoreXComPush(b *testing.B) {
	dag := benchDAG(b, "bench_xcoms", 2)
	store, _ := benchStoreWith(b, dag)
	addRuns(b, store, dag, benchDate, 100, false)
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		run := runs[i%len(runs)]
		err := store.update(func(txn *memdb.Txn) error {
			return store.putXComTxn(txn, &XComEntry{DagID: dag.DagID, RunID: run.RunID, TaskID: dag.Tasks[i%2].TaskID, RunRowID: run.ID,
				MapIndex: i, Key: "return_value", Value: json.RawMessage(`1`), Timestamp: benchDate})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
