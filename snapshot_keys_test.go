package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// snapTwoOfEach writes a valid snapshot in which every table has at
// least two rows (the tables keyed by something other than a number from
// a counter too: lineage, captured output, earlier tries, XCom, DAG
// versions, favorites, the asset queue, consumed events, counters), and
// returns its bytes. FuzzRestoreSnapshot starts from it.
func snapTwoOfEach(t testing.TB) []byte {
	t.Helper()
	dags, err := fuzzDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	// One run's task instances have ids (Airflow 3's), the other's none.
	for i, e := range []edition{edition2, edition3} {
		date := fmt.Sprintf("2024-01-0%d", i+1)
		if _, err := fuzzAPI(store, e).TriggerDAG("example_bash_operator", []byte(`{"execution_date": "`+date+`T00:00:00+00:00"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.EnsureAssets([]assetRef{{Name: "a", URI: "s3://a"}, {Name: "b", URI: "s3://b"}}, snapNow); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := store.AddAssetEvent(AssetEvent{AssetID: 1, Extra: json.RawMessage(`{}`), SourceMapIndex: -1, Timestamp: snapNow}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.EnsureAssetAliases([]aliasRef{{Name: "x"}, {Name: "y"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		createDoneBackfill(t, store)
	}
	if _, err := store.UpsertPool("etl", 3, nil); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"v1", "v2"} {
		if _, err := store.SetVariable(key, `{"v": 1}`, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []Connection{{ConnID: "c1", ConnType: "http"}, {ConnID: "c2", ConnType: "postgres"}} {
		if _, err := store.CreateConnection(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, event := range []string{"trigger", "running"} {
		if err := store.AppendEventLog(EventLog{When: snapNow, Event: event, DagID: "example_bash_operator"}); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := store.RunsOfDag("example_bash_operator", "")
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v (%v), want two", runs, err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		tis, err := taskInstancesOfRunTxn(txn, runs[0].DagID, runs[0].RunID)
		if err != nil {
			return err
		}
		for _, ti := range tis[:2] {
			key := tiKey{ti.DagID, ti.RunID, ti.TaskID, ti.MapIndex}
			if err := txn.Insert(tableLineage, &LineageRecord{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID, MapIndex: ti.MapIndex,
				Inlets: json.RawMessage(`[]`)}); err != nil {
				return err
			}
			if err := appendTaskLogTxn(txn, key, TryLog{Try: 1, Output: "out\n"}); err != nil {
				return err
			}
			try := *ti
			try.State, try.TryNumber, try.EndDate = TaskFailed, 1, &snapNow
			if err := recordTryTxn(txn, &try, snapNow); err != nil {
				return err
			}
			if err := store.putXComTxn(txn, &XComEntry{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID, RunRowID: runs[0].ID,
				MapIndex: ti.MapIndex, Key: xcomReturnKey, Value: json.RawMessage(`1`), Timestamp: snapNow}); err != nil {
				return err
			}
		}
		for _, obj := range []struct {
			table string
			row   any
		}{
			{tableDagFavorites, &DagFavorite{DagID: "example_bash_operator", UserID: "u1"}},
			{tableDagFavorites, &DagFavorite{DagID: "example_bash_operator", UserID: "u2"}},
			{tableAssetQueue, &AssetQueueEntry{AssetID: 1, DagID: "example_bash_operator", CreatedAt: snapNow}},
			{tableAssetQueue, &AssetQueueEntry{AssetID: 2, DagID: "example_bash_operator", CreatedAt: snapNow}},
			{tableConsumedEvents, &ConsumedEvents{RunRowID: runs[0].ID, DagID: runs[0].DagID, EventIDs: []int64{1}}},
			{tableConsumedEvents, &ConsumedEvents{RunRowID: runs[1].ID, DagID: runs[1].DagID, EventIDs: []int64{2}}},
		} {
			if err := txn.Insert(obj.table, obj.row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(store, path, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// snapRestoreForged writes data to a file and restores it.
func snapRestoreForged(t *testing.T, data []byte) (*Store, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	return store, err
}

// A snapshot whose table holds one key twice is refused, naming the
// table, the row and the key: go-memdb puts a second row under a primary
// key in the first one's place (and one under another unique index hides
// the first from it), so the restore lost a row without a word. These
// are the tables keyed by names, task instances and runs; the tables
// numbered by counters are TestSnapshot_RestoreValidatesEveryRow's and
// TestSnapshot_RestoreRefusesAssetAndBackfillKeysTwice's.
func TestSnapshot_RestoreRefusesKeysTwice(t *testing.T) {
	t.Parallel()
	good := snapTwoOfEach(t)
	if _, err := snapRestoreForged(t, good); err != nil {
		t.Fatalf("the unforged snapshot does not restore: %v", err)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	// sameAs returns an edit of a table's second row that gives it the
	// first row's values of keys.
	sameAs := func(table string, keys ...string) func(map[string]any) {
		first, _ := snapRowLines(t, lines, table)
		row1 := snapDecodeRow(t, lines[first])
		return func(row map[string]any) {
			for _, k := range keys {
				row[k] = row1[k]
			}
			// An earlier try names its row's task instance.
			if tries, ok := row["tries"].([]any); ok && table == tableTryHistory {
				for _, try := range tries {
					for _, k := range keys {
						try.(map[string]any)[k] = row1[k]
					}
				}
			}
		}
	}
	row1 := func(table string) map[string]any {
		first, _ := snapRowLines(t, lines, table)
		return snapDecodeRow(t, lines[first])
	}
	tiKeyOf := func(table string) string {
		r := row1(table)
		mapIndex := any(-1)
		if n, ok := r["map_index"].(json.Number); ok {
			mapIndex = n
		}
		return fmt.Sprintf("task instance %s of run %s of DAG %s (map_index %v)", r["task_id"], r["run_id"], r["dag_id"], mapIndex)
	}
	tiKeys := []string{"dag_id", "run_id", "task_id", "map_index"}
	cases := []struct {
		name  string
		table string
		edit  func(map[string]any)
		want  string
	}{
		{"counter name twice", tableCounters, sameAs(tableCounters, "name"), fmt.Sprintf("counter %q appears twice", row1(tableCounters)["name"])},
		{"lineage of one task instance twice", tableLineage, sameAs(tableLineage, tiKeys...), tiKeyOf(tableLineage) + " appears twice"},
		{"captured output of one task instance twice", tableTaskLogs, sameAs(tableTaskLogs, tiKeys...), tiKeyOf(tableTaskLogs) + " appears twice"},
		{"earlier tries of one task instance twice", tableTryHistory, sameAs(tableTryHistory, tiKeys...), tiKeyOf(tableTryHistory) + " appears twice"},
		{"xcom key twice", tableXComs, sameAs(tableXComs, "dag_id", "run_id", "dag_run_id", "task_id", "map_index", "key"),
			fmt.Sprintf("key %q of %s appears twice", row1(tableXComs)["key"], tiKeyOf(tableXComs))},
		{"dag version number twice", tableDagVersions, sameAs(tableDagVersions, "dag_id", "version_number"),
			fmt.Sprintf("version %s of DAG %q appears twice", row1(tableDagVersions)["version_number"], row1(tableDagVersions)["dag_id"])},
		{"dag version id twice", tableDagVersions, sameAs(tableDagVersions, "id"), fmt.Sprintf("id %q appears twice", row1(tableDagVersions)["id"])},
		{"favorite twice", tableDagFavorites, sameAs(tableDagFavorites, "dag_id", "user_id"),
			fmt.Sprintf("DAG %q as a favorite of user %q appears twice", row1(tableDagFavorites)["dag_id"], row1(tableDagFavorites)["user_id"])},
		{"queued asset event twice", tableAssetQueue, sameAs(tableAssetQueue, "asset_id", "target_dag_id"),
			fmt.Sprintf("asset %s queued for DAG %q appears twice", row1(tableAssetQueue)["asset_id"], row1(tableAssetQueue)["target_dag_id"])},
		{"consumed events of one run twice", tableConsumedEvents, sameAs(tableConsumedEvents, "dag_run_id"),
			fmt.Sprintf("dag_run_id %s appears twice", row1(tableConsumedEvents)["dag_run_id"])},
	}
	second := func(n int, _ map[string]any) bool { return n == 2 }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, n := snapForge(t, good, tc.table, second, tc.edit)
			store, err := snapRestoreForged(t, forged)
			if !errors.Is(err, errSnapshotUnreadable) {
				rows := 0
				if store != nil {
					_ = store.Snapshot().Rows(tc.table, func(any) error { rows++; return nil })
				}
				t.Fatalf("restore = %v, want errSnapshotUnreadable (%d rows of %s restored)", err, rows, tc.table)
			}
			for _, want := range []string{fmt.Sprintf("invalid row %d of table %s", n, tc.table), tc.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// A task has either its one task instance (map_index -1) or the
// instances it expanded into (0 on), as Airflow's expand_mapped_task
// turns the one into index 0. A snapshot holding both is refused: the
// restore dropped the -1 row when an expanded one followed it, and kept
// both when the expanded one came first.
func TestSnapshot_RestoreRefusesUnmappedAndExpandedTaskInstances(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.trigger(t, "example_bash_operator", `{"run_id": "both", "execution_date": "2024-05-01T00:00:00+00:00"}`)
	_, good, row1 := snapFirstTaskRow(t, ts.store)
	lines := bytes.SplitAfter(good, []byte("\n"))
	first, _ := snapRowLines(t, lines, tableTasks)
	row2 := snapDecodeRow(t, lines[first+1])
	if row2["run_id"] != row1["run_id"] || row2["task_id"] == row1["task_id"] {
		t.Fatalf("the first two task rows %v and %v are not two tasks of one run", row1, row2)
	}
	expanded := func(taskID any) func(map[string]any) {
		return func(row map[string]any) { row["task_id"], row["map_index"] = taskID, 0 }
	}
	for _, tc := range []struct {
		name   string
		row    int // the row made an expanded instance of the other's task
		taskID any
	}{
		{"the unmapped one first", 2, row1["task_id"]},
		{"an expanded one first", 1, row2["task_id"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, _ := snapForge(t, good, tableTasks, func(n int, _ map[string]any) bool { return n == tc.row }, expanded(tc.taskID))
			store, err := snapRestoreForged(t, forged)
			if !errors.Is(err, errSnapshotUnreadable) {
				var tis []string
				if store != nil {
					all, _ := store.TaskInstancesOfRun("example_bash_operator", "both")
					for _, ti := range all {
						tis = append(tis, fmt.Sprintf("%s[%d]", ti.TaskID, ti.MapIndex))
					}
				}
				t.Fatalf("restore = %v, want errSnapshotUnreadable (task instances restored: %v)", err, tis)
			}
			want := fmt.Sprintf("task %s of run both of DAG example_bash_operator has a task instance of map_index -1 and expanded ones", tc.taskID)
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "of table "+tableTasks) {
				t.Errorf("error %q does not say %q", err, want)
			}
		})
	}
}

// A version 6 row's nested instances become task instances of their own
// (TestSnapshot_Version6MappedInstancesBecomeRows), so each is checked as
// one: a negative map_index, a state that is none, a negative try, or one
// map_index twice is refused, naming the instance.
func TestSnapshot_Version6MappedInstancesChecked(t *testing.T) {
	t.Parallel()
	v6 := func(mapped string) []byte {
		return sealSnapshot(3, 3,
			`{"format":"airlite-snapshot","version":6,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs","task_instances"]}`,
			`{"table":"dags","rows":1}`,
			`{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
			`{"table":"dag_runs","rows":1}`,
			`{"id":1,"dag_id":"d","run_id":"r","execution_date":"2024-01-02T00:00:00Z","state":"failed","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
			`{"table":"task_instances","rows":1}`,
			`{"dag_id":"d","run_id":"r","task_id":"m","execution_date":"2024-01-02T00:00:00Z","state":"failed","try_number":1,"max_tries":1,`+
				`"start_date":null,"end_date":null,"duration":null,"queued_dttm":null,"pool":"default_pool","pool_slots":1,"queue":"default",`+
				`"priority_weight":1,"operator":"PythonOperator","hostname":"h","unixname":"u","pid":null,"updated_at":null,"next_retry_at":null,`+
				`"mapped":[`+mapped+`]}`,
		)
	}
	instance := func(mapIndex int, state string, try int) string {
		return fmt.Sprintf(`{"map_index":%d,"state":%q,"try_number":%d,"start_date":null,"end_date":null,"duration":null,"rendered_map_index":null}`,
			mapIndex, state, try)
	}
	if _, err := snapRestoreForged(t, v6(instance(0, "success", 1)+","+instance(1, "failed", 2))); err != nil {
		t.Fatalf("a valid version 6 file: %v", err)
	}
	for _, tc := range []struct {
		name, mapped, want string
	}{
		{"map_index -1", instance(0, "success", 1) + "," + instance(-1, "success", 1), "invalid row 1 of table task_instances: mapped instance 2: map_index -1 is negative"},
		{"no state", instance(0, "exploded", 1), `invalid row 1 of table task_instances: mapped instance 1: state "exploded"`},
		{"negative try", instance(0, "success", -1), "mapped instance 1: try_number -1 is negative"},
		{"map_index twice", instance(0, "success", 1) + "," + instance(0, "failed", 1), "task instance m of run r of DAG d (map_index 0) appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := snapRestoreForged(t, v6(tc.mapped))
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore = %v, want errSnapshotUnreadable saying %q", err, tc.want)
			}
		})
	}
}

// A row that goes with its parent when the parent goes (a run's consumed
// asset events, as dagrun_asset_event cascades from dag_run; a backfill's
// run links, which deleteBackfillsOfTxn removes with it) names a parent
// the snapshot holds, as a task instance names a run of the file: the
// restore refuses one naming none, which no write leaves behind.
func TestSnapshot_RestoreRefusesRowsOfNoParent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		data  func(testing.TB) []byte
		table string
		edit  func(map[string]any)
		want  string
	}{
		{"consumed events of no run", snapTwoOfEach, tableConsumedEvents, set("dag_run_id", 999999),
			"invalid row 1 of table dagrun_asset_event: no run with id 999999 in table dag_runs before it"},
		{"run link of no backfill", snapAssetsAndBackfills, tableBackfillRuns, set("backfill_id", 99),
			"invalid row 1 of table backfill_dag_runs: no backfill with id 99 in table backfills before it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, _ := snapForge(t, tc.data(t), tc.table, nil, tc.edit)
			_, err := snapRestoreForged(t, forged)
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore = %v, want errSnapshotUnreadable saying %q", err, tc.want)
			}
		})
	}
}

// Ids counted by a counter end at 2^53 in every table (maxRowID): the
// restore raises the counter to the highest id restored, and a counter
// past 2^53 makes the next snapshot unreadable, so that airlite would
// refuse its own file at the next start. FuzzRestoreSnapshotEdits found
// backfills and their run links taking any id from 1.
func TestSnapshot_RestoreRefusesIDsPast2To53(t *testing.T) {
	t.Parallel()
	good := snapAssetsAndBackfills(t)
	past := json.Number("9007199254740993")
	for _, tc := range []struct {
		table, field string
	}{
		{tableAssets, "id"}, {tableAssetEvents, "id"}, {tableAssetAliases, "id"}, {tableBackfills, "id"},
		{tableBackfillRuns, "id"}, {tableBackfillRuns, "backfill_id"},
	} {
		t.Run(tc.table+" "+tc.field, func(t *testing.T) {
			t.Parallel()
			forged, n := snapForge(t, good, tc.table, nil, set(tc.field, past))
			if tc.table == tableBackfills {
				// Its run link follows it, so that the backfill is the row to blame.
				forged, _ = snapForge(t, forged, tableBackfillRuns, nil, set("backfill_id", past))
			}
			_, err := snapRestoreForged(t, forged)
			want := fmt.Sprintf("invalid row %d of table %s: %s %s is outside 1 to 9007199254740992", n, tc.table, tc.field, past)
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), want) {
				t.Errorf("restore = %v, want errSnapshotUnreadable saying %q", err, want)
			}
		})
	}
}

// Every date a snapshot holds is in years 1 to 9999 (Python's datetime),
// counted in UTC: the writer encodes dates in UTC and refuses a year past
// 9999, so a restored date past it made every later snapshot fail to
// write. FuzzRestoreSnapshotEdits found a backfill's from_date at
// 9999-12-31T23:59:59-01:00.
func TestSnapshot_RestoreRefusesDatesOutOfRange(t *testing.T) {
	t.Parallel()
	good := snapTwoOfEach(t)
	const past = "9999-12-31T23:59:59-01:00"
	for _, tc := range []struct {
		table, field, value, want string
	}{
		{tableBackfills, "from_date", past, "from_date 9999-12-31T23:59:59-01:00 is in year 10000, outside 1 to 9999"},
		{tableBackfills, "to_date", past, "to_date 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableBackfills, "created_at", past, "created_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableBackfills, "updated_at", past, "updated_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableBackfills, "completed_at", past, "completed_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableBackfillRuns, "logical_date", past, "logical_date 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableAssetEvents, "timestamp", past, "timestamp 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableAssetQueue, "created_at", past, "created_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableDagVersions, "created_at", past, "created_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableAssets, "created_at", past, "created_at 9999-12-31T23:59:59-01:00 is in year 10000"},
		{tableAssets, "updated_at", past, "updated_at 9999-12-31T23:59:59-01:00 is in year 10000"},
	} {
		t.Run(tc.table+" "+tc.field, func(t *testing.T) {
			t.Parallel()
			forged, n := snapForge(t, good, tc.table, nil, set(tc.field, tc.value))
			_, err := snapRestoreForged(t, forged)
			want := fmt.Sprintf("invalid row %d of table %s: %s", n, tc.table, tc.want)
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), want) {
				t.Errorf("restore = %v, want errSnapshotUnreadable saying %q", err, want)
			}
		})
	}
}

// Keys of two strings are indexed as each string and a NUL, so that
// (dag_id "d\x00r", run_id "s") is (dag_id "d", run_id "r\x00s") to
// go-memdb: the second run took the first one's place, and a task
// instance of the one went into the other's row. A DAG id holds
// letters, digits, dashes, dots and underscores only (checkID), so a
// restore refuses a NUL in a run's dag_id (a run_id may hold one: the
// 1.10 editions take any run_id), and a row of a run whose run the
// lookup finds under another key.
func TestSnapshot_RestoreRefusesNULInDagIDs(t *testing.T) {
	t.Parallel()
	str := func(s string) string { return string(must(json.Marshal(s))) } // "\u0000", where %q writes "\x00"
	run := func(id int, dagID, runID, date string) string {
		return fmt.Sprintf(`{"id":%d,"dag_id":%s,"run_id":%s,"execution_date":%q,"state":"success","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
			id, str(dagID), str(runID), date)
	}
	ti := fmt.Sprintf(`{"dag_id":%s,"run_id":"s","task_id":"t","execution_date":"2024-01-02T00:00:00Z","state":"success","try_number":1,"max_tries":1,`+
		`"start_date":null,"end_date":null,"duration":null,"queued_dttm":null,"pool":"default_pool","pool_slots":1,"queue":"default",`+
		`"priority_weight":1,"operator":"BashOperator","hostname":"h","unixname":"u","pid":null,"updated_at":null,"next_retry_at":null}`, str("d\x00r"))
	header := `{"format":"airlite-snapshot","version":8,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs","task_instances"]}`
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"two runs under one key", sealSnapshot(2, 3, header, `{"table":"dags","rows":1}`, `{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
			`{"table":"dag_runs","rows":2}`, run(1, "d", "r\x00s", "2024-01-01T00:00:00Z"), run(2, "d\x00r", "s", "2024-01-02T00:00:00Z")),
			`invalid row 2 of table dag_runs: dag_id "d\x00r" holds a NUL`},
		{"a task instance in another run's row", sealSnapshot(3, 3, header, `{"table":"dags","rows":1}`, `{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
			`{"table":"dag_runs","rows":1}`, run(1, "d", "r\x00s", "2024-01-01T00:00:00Z"), `{"table":"task_instances","rows":1}`, ti),
			"invalid row 1 of table task_instances: no run s of DAG d\x00r in table dag_runs before it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store, err := snapRestoreForged(t, tc.file)
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.want) {
				var kept []string
				if store != nil {
					_ = store.Snapshot().Rows(tableDagRuns, func(obj any) error {
						kept = append(kept, fmt.Sprintf("%q/%q", obj.(*DagRun).DagID, obj.(*DagRun).RunID))
						return nil
					})
					tis, _ := store.TaskInstancesOfRun("d", "r\x00s")
					for _, ti := range tis {
						kept = append(kept, fmt.Sprintf("TI %q of %q/%q", ti.TaskID, ti.DagID, ti.RunID))
					}
				}
				t.Errorf("restore = %v (kept %v), want errSnapshotUnreadable saying %q", err, kept, tc.want)
			}
		})
	}
}

// must is v, or a panic when err is set (test data that cannot fail).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// An asset is indexed by its name, a NUL and its uri ("name_uri"), so
// that the name "a\x00b" with the uri "c" is the name "a" with the uri
// "b\x00c" there: the second hid the first from the index, which every
// lookup of an asset by reference reads. The restore refuses it as one
// key twice.
func TestSnapshot_RestoreRefusesAssetKeysThatMeet(t *testing.T) {
	t.Parallel()
	good := snapAssetsAndBackfills(t)
	forged, _ := snapForge(t, good, tableAssets, func(n int, _ map[string]any) bool { return n == 1 }, func(row map[string]any) {
		row["name"], row["uri"] = "a\x00b", "c"
	})
	forged, n := snapForge(t, forged, tableAssets, func(n int, _ map[string]any) bool { return n == 2 }, func(row map[string]any) {
		row["name"], row["uri"] = "a", "b\x00c"
	})
	store, err := snapRestoreForged(t, forged)
	want := fmt.Sprintf("invalid row %d of table assets: name %q with uri %q appears twice", n, "a", "b\x00c")
	if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), want) {
		var found string
		if store != nil {
			_ = store.View(func(v storeView) error {
				a, err := v.AssetByRef(assetRef{Name: "a\x00b", URI: "c"})
				found = fmt.Sprintf("%+v (%v)", a, err)
				return nil
			})
		}
		t.Errorf("restore = %v (asset a\\x00b, c by reference: %s), want errSnapshotUnreadable saying %q", err, found, want)
	}
}

// XCom's listing order (indexXComOrder) keys an entry by dag_id, task_id,
// run_id, map_index and key, so that the task "t\x00x" of the run "r" is
// the task "t" of the run "x\x00r" there: the second entry hid the
// first from every listing. A task id holds no NUL (checkID), so the
// restore refuses one in an entry's task_id.
func TestSnapshot_RestoreRefusesXComsThatMeetInTheListingOrder(t *testing.T) {
	t.Parallel()
	str := func(s string) string { return string(must(json.Marshal(s))) }
	run := func(id int, runID, date string) string {
		return fmt.Sprintf(`{"id":%d,"dag_id":"d","run_id":%s,"execution_date":%q,"state":"success","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
			id, str(runID), date)
	}
	xcom := func(runRowID int, runID, taskID string) string {
		return fmt.Sprintf(`{"dag_id":"d","run_id":%s,"task_id":%s,"dag_run_id":%d,"map_index":-1,"key":"k","value":"1","timestamp":"2024-01-01T00:00:00Z"}`,
			str(runID), str(taskID), runRowID)
	}
	file := sealSnapshot(3, 5,
		`{"format":"airlite-snapshot","version":8,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs","xcom"]}`,
		`{"table":"dags","rows":1}`, `{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
		`{"table":"dag_runs","rows":2}`, run(1, "r", "2024-01-01T00:00:00Z"), run(2, "x\x00r", "2024-01-02T00:00:00Z"),
		`{"table":"xcom","rows":2}`, xcom(1, "r", "t\x00x"), xcom(2, "x\x00r", "t"))
	store, err := snapRestoreForged(t, file)
	want := `invalid row 1 of table xcom: task_id "t\x00x" holds a NUL`
	if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), want) {
		listed := -1
		if store != nil {
			page, _, _, err := store.XComPage(XComPageQuery{DagID: "d", Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			listed = len(page)
		}
		t.Errorf("restore = %v (%d of 2 entries listed), want errSnapshotUnreadable saying %q", err, listed, want)
	}
}
