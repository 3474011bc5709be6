package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// rowsOfRun counts, table by table, the rows that still belong to a run:
// its task instances and their order block, lineage, output, earlier
// tries, XCom entries and their counts, its consumed asset events (by
// its row id), and backfill links that name it.
func rowsOfRun(t *testing.T, store *Store, run *DagRun) map[string]int {
	t.Helper()
	txn := store.read()
	out := map[string]int{}
	count := func(table string, it memdb.ResultIterator, err error, keep func(any) bool) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if keep == nil || keep(raw) {
				out[table]++
			}
		}
	}
	for _, table := range append([]string{tableXComs}, taskInstanceTables...) {
		it, err := txn.Get(table, indexID+"_prefix", run.DagID, run.RunID, "")
		count(table, it, err, nil)
	}
	it, err := txn.Get(tableTasks, indexID, run.DagID, run.RunID)
	count(tableTasks, it, err, nil)
	for _, b := range orderBlocks(t, txn) { // ti_order's and the pending ones
		if b.DagID == run.DagID && b.RunID == run.RunID {
			out[tableTIOrder]++
		}
	}
	it, err = txn.Get(tableXComCounts, indexID+"_prefix", xcomScopeRunTask, run.DagID, run.RunID, "")
	count(tableXComCounts, it, err, nil)
	it, err = txn.Get(tableConsumedEvents, indexID, run.ID)
	count(tableConsumedEvents, it, err, nil)
	it, err = txn.Get(tableBackfillRuns, indexBackfillRun, run.DagID+"\x00"+run.RunID)
	count(tableBackfillRuns, it, err, nil)
	return out
}

// A run that goes (dropped at --max-runs-per-dag, deleted, a reset of
// runs, its DAG deleted) leaves no row that belongs to it: Airflow's
// task instances, their history, XCom and dagrun_asset_event rows
// cascade from the run's (dagrun_asset_event_dag_run_id_fkey ON DELETE
// CASCADE), and a backfill_dag_run row keeps its backfill's record but
// names no run (bdr_dag_run_fkey ON DELETE SET NULL, models/backfill.py).
// The write reads what belongs to the runs it removes, not every row.
func TestStore_RemovedRunsLeaveNoRows(t *testing.T) {
	t.Parallel()
	const dagID, oldest = "bf_daily", "backfill__2024-01-01T00:00:00+00:00"
	tests := []struct {
		name   string
		remove func(t *testing.T, ts *testServer)
		links  int // backfill links kept (naming no run)
	}{
		{"dropped at the run limit", func(t *testing.T, ts *testServer) {
			ts.store.SetRunLimit(RunLimit{Max: 3, DropOldestFinished: true})
			ts.v2(t, http.MethodPost, "/dags/"+dagID+"/dagRuns", `{"dag_run_id": "newer", "logical_date": "2024-02-01T00:00:00Z"}`, 200)
			if _, err := ts.store.RunByRunID(dagID, "newer"); err != nil {
				t.Fatal(err)
			}
		}, 3},
		{"deleted", func(t *testing.T, ts *testServer) {
			if err := ts.store.DeleteRun(dagID, oldest); err != nil {
				t.Fatal(err)
			}
		}, 3},
		{"a reset of the DAG's runs", func(t *testing.T, ts *testServer) {
			if err := ts.store.DeleteRuns(dagID); err != nil {
				t.Fatal(err)
			}
		}, 3},
		{"a reset of every run", func(t *testing.T, ts *testServer) {
			if err := ts.store.DeleteRuns(""); err != nil {
				t.Fatal(err)
			}
		}, 3},
		// The backfill goes with its DAG (delete_dag deletes every
		// model with a dag_id), its links with it (bdr_backfill_fkey ON
		// DELETE CASCADE).
		// So do the asset events queued for it (adrq_dag_fkey ON DELETE
		// CASCADE).
		{"its DAG deleted", func(t *testing.T, ts *testServer) {
			err := ts.store.update(func(txn *memdb.Txn) error {
				return txn.Insert(tableAssetQueue, &AssetQueueEntry{AssetID: 7, DagID: dagID, CreatedAt: testNow})
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ts.store.DeleteDag(dagID, nil); err != nil {
				t.Fatal(err)
			}
			if q, err := ts.store.QueuedAssetEvents(dagID, 7); err != nil || len(q) != 0 {
				t.Errorf("asset events queued for the deleted DAG: %d (%v)", len(q), err)
			}
			if b, err := ts.store.BackfillByID(1); !errors.Is(err, errNotFound) {
				t.Errorf("the backfill of the deleted DAG is still there: %+v (%v)", b, err)
			}
			if bs, err := ts.store.Backfills(dagID); err != nil || len(bs) != 0 {
				t.Errorf("backfills of the deleted DAG: %d (%v)", len(bs), err)
			}
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newBackfillServer(t)
			if res := ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody(dagID, 3, "")); res.status != 200 {
				t.Fatalf("backfill: %d %s", res.status, res.body)
			}
			for _, day := range []string{"01", "02", "03"} {
				ts.setRunState(t, dagID, "backfill__2024-01-"+day+"T00:00:00+00:00", RunSuccess)
			}
			run, err := ts.store.RunByRunID(dagID, oldest)
			if err != nil {
				t.Fatal(err)
			}
			err = ts.store.update(func(txn *memdb.Txn) error {
				if err := putConsumedEventsTxn(txn, run, []int64{1}); err != nil {
					return err
				}
				if err := txn.Insert(tableLineage, &LineageRecord{DagID: dagID, RunID: oldest, TaskID: "mytask", MapIndex: -1,
					Inlets: json.RawMessage(`[1]`)}); err != nil {
					return err
				}
				return ts.store.putXComTxn(txn, &XComEntry{DagID: dagID, RunID: oldest, TaskID: "mytask", RunRowID: run.ID, MapIndex: -1,
					Key: "return_value", Value: json.RawMessage(`1`), Timestamp: testNow})
			})
			if err != nil {
				t.Fatal(err)
			}
			before := rowsOfRun(t, ts.store, run)
			for _, table := range []string{tableTasks, tableTIOrder, tableLineage, tableXComs, tableXComCounts, tableConsumedEvents, tableBackfillRuns} {
				if before[table] == 0 {
					t.Fatalf("before: no %s row of the run to remove (%v)", table, before)
				}
			}
			tc.remove(t, ts)
			if _, err := ts.store.RunByRunID(dagID, oldest); !errors.Is(err, errNotFound) {
				t.Fatalf("the run is still there (%v)", err)
			}
			if left := rowsOfRun(t, ts.store, run); len(left) != 0 {
				t.Errorf("rows left of the removed run: %v", left)
			}
			links, err := ts.store.BackfillRuns(1)
			if err != nil || len(links) != tc.links {
				t.Fatalf("backfill links %d (%v), want %d", len(links), err, tc.links)
			}
			if tc.links > 0 && (links[0].LogicalDate.Day() != 1 || links[0].RunID != "") {
				t.Errorf("the first link %+v, want the 1st of January naming no run", *links[0])
			}
		})
	}
}
