package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// snapNow is the fixed clock of the snapshot tests.
var snapNow = time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC)

func TestSnapshot_CodecsCoverSchema(t *testing.T) {
	t.Parallel()
	var got []string
	for _, c := range snapshotCodecs() {
		got = append(got, c.table)
	}
	var want []string
	for name := range schema().Tables {
		if !derivedTables[name] {
			want = append(want, name)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot tables %v, schema tables %v: every table must be written", got, want)
	}
}

// snapFill sets every field of the struct v points to, recursively, to a
// value that is not zero and depends on seed, so that a field the
// snapshot forgets shows up as a difference. Def (a DAG definition) is
// left nil: definitions are not part of snapshots.
func snapFill(t *testing.T, v reflect.Value, seed int, name string) {
	t.Helper()
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2021, 2, 3, 4, 5, 6, 123456789+seed, time.UTC)))
		return
	case json.RawMessage:
		// Spaced, as Airflow 1.10 and lineage keep it: must survive as bytes.
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"k": [%d, "<&>"], "u": "\u00e9"}`, seed))))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Name == "Def" || !f.IsExported() {
				// Unexported: in memory only (keptDefinition.raw, the
				// JSON of a definition read and not decoded yet).
				continue
			}
			snapFill(t, v.Field(i), seed+i, f.Name)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		snapFill(t, v.Elem(), seed, name)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < 2; i++ {
			snapFill(t, v.Index(i), seed+100*i, name)
		}
	case reflect.String:
		s := fmt.Sprintf("%s-%d <&> é", name, seed)
		if name == "Output" && seed%2 == 0 {
			s += "\xff\xfe not UTF-8"
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(seed + 1))
	case reflect.Float64:
		v.SetFloat(float64(seed) + 0.1 + 1e-9)
	case reflect.Map: // rendered template fields: JSON values
		v.Set(reflect.ValueOf(map[string]any{"bash_command": fmt.Sprintf("%s-%d <&> é", name, seed),
			"env": map[string]any{"K": "v"}, "cwd": nil}))
	default:
		t.Fatalf("snapFill: field %s of kind %s: teach the test (and the snapshot) about it", name, v.Kind())
	}
}

// snapTableRows lists every row of every table.
func snapTableRows(t *testing.T, store *Store) map[string][]any {
	t.Helper()
	txn := store.read()
	out := map[string][]any{}
	for name := range schema().Tables {
		it, err := txn.Get(name, indexID)
		if err != nil {
			t.Fatal(err)
		}
		for obj := it.Next(); obj != nil; obj = it.Next() {
			out[name] = append(out[name], obj)
		}
	}
	return out
}

func TestSnapshot_RoundTrip_EveryTableEveryField(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]any{
		tableDags: {&DagRow{}, &DagRow{}}, tableDagRuns: {&DagRun{}, &DagRun{}},
		tableTasks: {&TaskInstance{}, &TaskInstance{}}, tablePools: {&Pool{}, &Pool{}},
		tableLineage: {&LineageRecord{}, &LineageRecord{}}, tableTaskLogs: {&TaskLog{}, &TaskLog{}},
		tableVariables: {&Variable{}, &Variable{}}, tableConns: {&Connection{}, &Connection{}},
		tableXComs: {&XComEntry{}, &XComEntry{}}, tableEventLogs: {&EventLog{}, &EventLog{}},
		tableTryHistory: {&TaskInstanceHistory{}, &TaskInstanceHistory{}},
		tableAssets:     {&Asset{}, &Asset{}}, tableAssetEvents: {&AssetEvent{}, &AssetEvent{}},
		tableAssetAliases: {&AssetAlias{}, &AssetAlias{}},
		tableDagVersions:  {&DagVersion{}, &DagVersion{}}, tableDagFavorites: {&DagFavorite{}, &DagFavorite{}},
		tableBackfills: {&Backfill{}, &Backfill{}}, tableBackfillRuns: {&BackfillDagRun{}, &BackfillDagRun{}},
		tableAssetQueue: {&AssetQueueEntry{}, &AssetQueueEntry{}}, tableConsumedEvents: {&ConsumedEvents{}, &ConsumedEvents{}},
	}
	for _, objs := range rows {
		for i, obj := range objs {
			snapFill(t, reflect.ValueOf(obj).Elem(), 10*i, "")
		}
	}
	// Restore takes only what airlite could have written: known states,
	// and rows of a run that the snapshot holds.
	for i := range 2 {
		run := rows[tableDagRuns][i].(*DagRun)
		run.State = []RunState{RunRunning, RunSuccess}[i]
		run.TriggeredBy = []string{"rest_api", ""}[i]
		// The first run has a logical date and a run_after of its own; the
		// second no logical date, so no data interval either.
		if run.NoLogicalDate = i == 1; run.NoLogicalDate {
			run.ExecutionDate, run.DataIntervalStart, run.DataIntervalEnd = time.Time{}, nil, nil
		}
		ti := rows[tableTasks][i].(*TaskInstance)
		ti.State = []TaskState{TaskRunning, TaskUpForRetry}[i]
		ti.DagID, ti.RunID = run.DagID, run.RunID
		// Task instance ids are UUIDs (edition 3); the second has none.
		ti.ID = []string{"0195f3a2-7c1e-7d3a-9b1e-2f4c6a8b0d1e", ""}[i]
		lineage := rows[tableLineage][i].(*LineageRecord)
		lineage.DagID, lineage.RunID = run.DagID, run.RunID
		log := rows[tableTaskLogs][i].(*TaskLog)
		log.DagID, log.RunID = run.DagID, run.RunID
		// Earlier tries: ended, of their row's task instance, numbered
		// upwards, without what only a current try holds.
		hist := rows[tableTryHistory][i].(*TaskInstanceHistory)
		hist.DagID, hist.RunID = run.DagID, run.RunID
		for j, try := range hist.Tries {
			try.DagID, try.RunID, try.TaskID, try.MapIndex = hist.DagID, hist.RunID, hist.TaskID, hist.MapIndex
			try.State = []TaskState{TaskFailed, TaskSuccess}[j]
			try.TryNumber += j * 1000
			try.ProcIdentity, try.NextRetryAt, try.Note = "", nil, nil
			try.ID = "0195f3a2-7c1e-7d3a-9b1e-2f4c6a8b0d2" + string(rune('a'+j))
		}
		x := rows[tableXComs][i].(*XComEntry)
		x.DagID, x.RunID, x.RunRowID, x.MapIndex = run.DagID, run.RunID, run.ID, -1
		rows[tableVariables][i].(*Variable).IsEncrypted = false
		mapIndex := -1
		rows[tableEventLogs][i].(*EventLog).MapIndex = &mapIndex
		rows[tableAssets][i].(*Asset).Extra = json.RawMessage(fmt.Sprintf(`{"k":%d}`, i))
		for j := range rows[tableAssets][i].(*Asset).References {
			rows[tableAssets][i].(*Asset).References[j].Kind = []AssetRefKind{AssetScheduled, AssetProducing, AssetConsuming}[(i+j)%3]
		}
		rows[tableAssetEvents][i].(*AssetEvent).Extra = json.RawMessage(fmt.Sprintf(`{"e":%d}`, i))
		rows[tableDagVersions][i].(*DagVersion).Number = int64(i + 1)
		rows[tableBackfills][i].(*Backfill).ReprocessBehavior = reprocessBehaviors[i]
		// Run links of a backfill, consumed events of a run of the file.
		rows[tableBackfillRuns][i].(*BackfillDagRun).BackfillID = rows[tableBackfills][i].(*Backfill).ID
		rows[tableConsumedEvents][i].(*ConsumedEvents).RunRowID = run.ID
	}
	err = store.update(func(txn *memdb.Txn) error {
		for table, objs := range rows {
			for _, obj := range objs {
				if ti, ok := obj.(*TaskInstance); ok {
					if err := putTaskInstancesTxn(txn, ti); err != nil {
						return err
					}
					continue
				}
				if err := txn.Insert(table, obj); err != nil {
					return err
				}
			}
		}
		// Nil and empty values round-trip as themselves.
		nilRun := &DagRun{ID: 99, DagID: "nil_dag", RunID: "nil_run", State: RunQueued}
		emptyConf := &DagRun{ID: 98, DagID: "nil_dag", RunID: "empty_conf", Conf: json.RawMessage{}, ExecutionDate: time.Unix(5, 0).UTC(), State: RunFailed}
		nilLog := &TaskLog{DagID: "nil_dag", RunID: "nil_run", TaskID: "t"}
		for table, obj := range map[string]any{tableDagRuns: nilRun, tableTaskLogs: nilLog} {
			if err := txn.Insert(table, obj); err != nil {
				return err
			}
		}
		if err := txn.Insert(tableDagRuns, emptyConf); err != nil {
			return err
		}
		// Counters at least the ids of the rows above, as airlite's
		// writes keep them (a restore raises one that is behind).
		for _, c := range []*counter{{counterRunID, 1000}, {counterPoolID, 2000}, {counterVariableID, 3000}, {counterConnectionID, 4000},
			{counterEventLogID, 5000}, {counterAssetID, 6000}, {counterAssetEventID, 7000}, {counterAssetAliasID, 8000},
			{counterBackfillID, 9000}, {counterBackfillRunID, 10000}} {
			if err := txn.Insert(tableCounters, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	written, err := writeSnapshot(store, path, snapNow)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("snapshot file mode = %v (%v), want 0600", info.Mode().Perm(), err)
	}
	if tmps, _ := filepath.Glob(path + ".tmp*"); len(tmps) != 0 {
		t.Errorf("temporary files left behind: %v", tmps)
	}
	restored, stats, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Index != written.Index || stats.Index != store.ChangeIndex() {
		t.Errorf("restored change index %d, written %d, store %d", stats.Index, written.Index, store.ChangeIndex())
	}
	want, got := snapTableRows(t, store), snapTableRows(t, restored)
	// A restored kept definition waits in the definitions file, unread,
	// and then undecoded, until a start builds it: compared as it
	// decodes.
	kept, err := restored.definitions.readRestored()
	if err != nil {
		t.Fatalf("read the definitions file: %v", err)
	}
	for i, obj := range got[tableDags] {
		row := *obj.(*DagRow)
		if row.Kept == nil {
			row.Kept = kept[row.DagID]
		}
		if row.Kept != nil {
			if row.Kept, err = row.Kept.decoded(); err != nil {
				t.Fatalf("decode the kept definition of %s: %v", row.DagID, err)
			}
		}
		got[tableDags][i] = &row
	}
	for table := range schema().Tables {
		if derivedTables[table] {
			continue // rebuilt at restore: TestStore_RunCountsFollowEveryWrite
		}
		if len(want[table]) == 0 {
			t.Errorf("table %s has no rows in the test: fill it", table)
		}
		if !reflect.DeepEqual(got[table], want[table]) {
			for i := range want[table] {
				if i >= len(got[table]) || !reflect.DeepEqual(got[table][i], want[table][i]) {
					t.Errorf("table %s row %d:\n got %+v\nwant %+v", table, i, snapAt(got[table], i), want[table][i])
				}
			}
			if len(got[table]) != len(want[table]) {
				t.Errorf("table %s: %d rows restored, want %d", table, len(got[table]), len(want[table]))
			}
		}
	}
	// A snapshot of the restored store is byte-identical but for created_at.
	again := filepath.Join(t.TempDir(), "again.json")
	if _, err := writeSnapshot(restored, again, snapNow); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("snapshot of the restored store differs from the original")
	}
}

func snapAt(rows []any, i int) any {
	if i < len(rows) {
		return rows[i]
	}
	return nil
}

// snapAPI is an in-process API server over a store, with a fixed clock.
func snapAPI(t *testing.T, store *Store, dags *DAGSet, e edition) *httptest.Server {
	t.Helper()
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(serverOptions{Edition: e, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.New(zerolog.NewTestWriter(t)), Now: func() time.Time { return snapNow }, Unixname: "airflow"})
	if err != nil {
		t.Fatal(err)
	}
	srv.ready.Store(true)
	ts := httptest.NewServer(srv.routes())
	t.Cleanup(ts.Close)
	return ts
}

func snapDo(t *testing.T, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// snapPopulate gives a store runs in every run state, task instances in
// every task state with every optional field set, pools, lineage and
// logs, through the API where it can and the store where only the
// scheduler could.
func snapPopulate(t *testing.T, base string, store *Store, dags *DAGSet, e edition) {
	t.Helper()
	for i, dagID := range []string{"example_bash_operator", "tutorial", "example_subdag_operator", "example_python_operator"} {
		for j := 0; j < 3; j++ {
			date := time.Date(2024, 1, 1+j, 0, 0, i, 654321000, time.UTC)
			body := fmt.Sprintf(`{"execution_date": %q, "replace_microseconds": "false", "conf": {"n": %d, "s": "a b"}}`, isoFormat(date), j)
			if j == 2 {
				body = fmt.Sprintf(`{"execution_date": %q, "run_id": "custom_%d", "replace_microseconds": "false"}`, isoFormat(date), i)
			}
			if status, resp := snapDo(t, http.MethodPost, base+apiPrefix+"/dags/"+dagID+"/dag_runs", body); status != http.StatusOK {
				t.Fatalf("trigger %s: %d %s", dagID, status, resp)
			}
		}
	}
	if status, resp := snapDo(t, http.MethodGet, base+apiPrefix+"/dags/tutorial/paused/true", ""); status != http.StatusOK {
		t.Fatalf("pause: %d %s", status, resp)
	}
	desc := "made by the test"
	if _, err := store.UpsertPool("snap_pool", 7, &desc); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpsertPool("snap_pool_nodesc", -1, nil); err != nil {
		t.Fatal(err)
	}
	for i, key := range []string{"snap_var", "snap_var_nodesc"} {
		d := &desc
		if i == 1 {
			d = nil
		}
		if _, err := store.SetVariable(key, `{"v": [1, "é"]}`, d); err != nil {
			t.Fatal(err)
		}
	}
	port, pass := 5432, "secret"
	for _, c := range []Connection{{ConnID: "snap_conn", ConnType: "postgres", Host: &desc, Port: &port, Password: &pass}, {ConnID: "snap_conn_bare", ConnType: "http"}} {
		if _, err := store.CreateConnection(c); err != nil {
			t.Fatal(err)
		}
	}
	// Event log rows as the API and a try write them (their ids 1 and 2).
	owner, extra, mapIndex, try := "anonymous", `{"note": "x"}`, -1, 2
	for _, e := range []EventLog{
		{When: snapNow, Event: "api.set_dag_run_note", DagID: "tutorial", RunID: "r", Owner: &owner, Extra: &extra},
		{When: snapNow, Event: "running", DagID: "tutorial", TaskID: "t", RunID: "r", MapIndex: &mapIndex, TryNumber: &try,
			ExecutionDate: &snapNow, Owner: &owner},
	} {
		if err := store.AppendEventLog(e); err != nil {
			t.Fatal(err)
		}
	}
	runStates := []RunState{RunQueued, RunRunning, RunSuccess, RunFailed}
	taskStates := []TaskState{TaskNone, TaskScheduled, TaskQueued, TaskRunning, TaskSuccess, TaskFailed,
		TaskSkipped, TaskUpForRetry, TaskUpstreamFailed}
	err := store.update(func(txn *memdb.Txn) error {
		it, err := txn.Get(tableDagRuns, indexID)
		if err != nil {
			return err
		}
		var runs []*DagRun
		for obj := it.Next(); obj != nil; obj = it.Next() {
			runs = append(runs, obj.(*DagRun))
		}
		k := 0
		for i, r := range runs {
			run := *r
			run.State = runStates[i%len(runStates)]
			start := snapNow.Add(time.Duration(i) * time.Second)
			run.StartDate = &start
			if run.State.Finished() {
				end := start.Add(time.Minute + 1234*time.Microsecond)
				run.EndDate = &end
			}
			if err := txn.Insert(tableDagRuns, &run); err != nil {
				return err
			}
			tis, err := taskInstancesOfRunTxn(txn, run.DagID, run.RunID)
			if err != nil {
				return err
			}
			for _, old := range tis {
				ti := *old
				ti.State = taskStates[k%len(taskStates)]
				k++
				if ti.State != TaskNone {
					ti.TryNumber = 1 + k%3
					s := start.Add(time.Duration(k) * time.Millisecond)
					ti.StartDate, ti.QueuedDttm, ti.UpdatedAt = &s, &s, &s
					ti.Hostname = "host.example"
					pid := 4000 + k
					ti.PID = &pid
				}
				if ti.State.Finished() || ti.State == TaskUpForRetry {
					e := ti.StartDate.Add(1500 * time.Millisecond)
					d := 1.5
					ti.EndDate, ti.Duration = &e, &d
				}
				if ti.State == TaskUpForRetry {
					n := ti.EndDate.Add(5 * time.Minute)
					ti.NextRetryAt = &n
				}
				if err := putTaskInstancesTxn(txn, &ti); err != nil {
					return err
				}
				// A try followed by a retry is kept, as FinishTry keeps it.
				if ti.State == TaskUpForRetry {
					if err := recordTryTxn(txn, &ti, *ti.EndDate); err != nil {
						return err
					}
				}
				key := tiKey{ti.DagID, ti.RunID, ti.TaskID, -1}
				if ti.State == TaskSuccess {
					x := &XComEntry{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID, RunRowID: run.ID, MapIndex: -1,
						Key: xcomReturnKey, Value: json.RawMessage(`"out"`), Timestamp: *ti.EndDate}
					if err := store.putXComTxn(txn, x); err != nil {
						return err
					}
				}
				if ti.State.Finished() {
					if err := appendTaskLogTxn(txn, key, taskOutcome{state: ti.State, output: "out\n", reason: "why"}.tryLog(ti.TryNumber)); err != nil {
						return err
					}
					in := json.RawMessage(`[{"table": "in", "n": 1}]`)
					if err := txn.Insert(tableLineage, &LineageRecord{DagID: ti.DagID, RunID: ti.RunID, TaskID: ti.TaskID, Inlets: in}); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapURLs lists every GET the API answers from the state.
func snapURLs(t *testing.T, store *Store, dags *DAGSet) []string {
	t.Helper()
	urls := []string{"/latest_runs", "/pools", "/pools/snap_pool", "/pools/snap_pool_nodesc", "/pools/default_pool", "/test", "/info"}
	for _, d := range dags.DAGs {
		urls = append(urls, "/dags/"+d.DagID+"/dag_runs", "/dags/"+d.DagID+"/paused")
		for _, state := range []string{"queued", "running", "success", "failed"} {
			urls = append(urls, "/dags/"+d.DagID+"/dag_runs?state="+state)
		}
		runs, err := store.RunsOfDag(d.DagID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			date := url.PathEscape(isoFormat(r.ExecutionDate))
			urls = append(urls, "/dags/"+d.DagID+"/dag_runs/"+date, "/lineage/"+d.DagID+"/"+date)
			for _, task := range d.Tasks {
				urls = append(urls, "/dags/"+d.DagID+"/dag_runs/"+date+"/tasks/"+task.TaskID)
			}
		}
	}
	return urls
}

func snapAnswers(t *testing.T, base string, urls []string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(urls))
	for _, u := range urls {
		status, body := snapDo(t, http.MethodGet, base+apiPrefix+u, "")
		out[u] = fmt.Sprintf("%d %s", status, body)
	}
	return out
}

func TestSnapshot_RoundTrip_APIAnswersByteIdentical(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dags, err := loadEmbeddedDAGs()
			if err != nil {
				t.Fatal(err)
			}
			store := storeWith(t, dags)
			before := snapAPI(t, store, dags, e)
			snapPopulate(t, before.URL, store, dags, e)
			urls := snapURLs(t, store, dags)
			want := snapAnswers(t, before.URL, urls)

			path := filepath.Join(t.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(store, path, snapNow); err != nil {
				t.Fatal(err)
			}
			restored, _, err := restoreSnapshot(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			if err := restored.LoadDAGs(dags); err != nil {
				t.Fatal(err)
			}
			after := snapAPI(t, restored, dags, e)
			got := snapAnswers(t, after.URL, urls)
			states := map[string]bool{}
			for _, u := range urls {
				if got[u] != want[u] {
					t.Errorf("GET %s after restore:\n got %s\nwant %s", u, got[u], want[u])
				}
				for _, s := range []string{"queued", "running", "success", "failed", "scheduled", "skipped", "up_for_retry", "upstream_failed"} {
					if strings.Contains(want[u], `"state": "`+s+`"`) || strings.Contains(want[u], `"state":"`+s+`"`) {
						states[s] = true
					}
				}
			}
			if len(states) < 8 {
				t.Errorf("the answers compared show only the states %v: populate every state", states)
			}
			// The next run id continues after the highest restored one.
			if got, want := counterValue(restored.read(), counterRunID), counterValue(store.read(), counterRunID); got != want {
				t.Errorf("run id counter %d after restore, want %d", got, want)
			}
		})
	}
}

func TestSnapshot_DagWithoutFileKeepsRuns(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := snapConfig(dir, edition2)
	store, sn, err := openStore(t.Context(), c, dags, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	api := snapAPI(t, store, dags, edition2)
	if status, body := snapDo(t, http.MethodPost, api.URL+apiPrefix+"/dags/tutorial/dag_runs", `{}`); status != http.StatusOK {
		t.Fatalf("trigger: %d %s", status, body)
	}
	if err := sn.stop(); err != nil {
		t.Fatal(err)
	}
	fewer := &DAGSet{Pools: dags.Pools}
	for _, d := range dags.DAGs {
		if d.DagID != "tutorial" {
			fewer.DAGs = append(fewer.DAGs, d)
		}
	}
	var logs bytes.Buffer
	restored, _, err := openStore(t.Context(), c, fewer, zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	row, err := restored.DagByID("tutorial")
	if err != nil || row.Def != nil {
		t.Fatalf("tutorial row = %+v, %v; want kept without a definition", row, err)
	}
	runs, err := restored.RunsOfDag("tutorial", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("tutorial runs = %d, %v; want the 1 run kept", len(runs), err)
	}
	if !strings.Contains(logs.String(), "dag has no file any more") || !strings.Contains(logs.String(), runs[0].RunID) {
		t.Errorf("log does not list the kept runs:\n%s", logs.String())
	}
}

func snapConfig(dir string, e edition) config {
	return config{Home: dir, Snapshot: filepath.Join(dir, "snapshot.json"), SnapshotInterval: time.Hour,
		SnapshotBad: snapshotBadRefuse, Edition: e}
}

func TestSnapshot_Orphans(t *testing.T) {
	t.Parallel()
	// tutorial: print_date has retries 1 (max_tries 1), sleep has 3.
	type tiSetup struct {
		task       string
		state      TaskState
		try        int
		want2      TaskState
		want110    TaskState
		wantLogged bool
	}
	cases := []tiSetup{
		{"print_date", TaskRunning, 1, TaskNone, TaskUpForRetry, true}, // a retry left
		{"sleep", TaskRunning, 4, TaskNone, TaskFailed, true},          // retries used up
		{"templated", TaskQueued, 1, TaskNone, TaskNone, false},
	}
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			dags, err := loadEmbeddedDAGs()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			c := snapConfig(dir, e)
			store, sn, err := openStore(t.Context(), c, dags, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			api := snapAPI(t, store, dags, e)
			if status, body := snapDo(t, http.MethodPost, api.URL+apiPrefix+"/dags/tutorial/dag_runs", `{"run_id": "orphans"}`); status != http.StatusOK {
				t.Fatalf("trigger: %d %s", status, body)
			}
			start := snapNow.Add(-time.Minute)
			for _, tc := range cases {
				ti, err := store.TaskInstance("tutorial", "orphans", tc.task)
				if err != nil {
					t.Fatal(err)
				}
				up := *ti
				up.State, up.TryNumber, up.StartDate = tc.state, tc.try, &start
				if err := store.UpsertTaskInstance(&up); err != nil {
					t.Fatal(err)
				}
			}
			if err := sn.stop(); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			restored, _, err := openStore(t.Context(), c, dags, zerolog.New(&logs))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range cases {
				ti, err := restored.TaskInstance("tutorial", "orphans", tc.task)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want2
				if e.isAirflow1() {
					want = tc.want110
				}
				if ti.State != want {
					t.Errorf("%s (was %s, try %d) = %q after restart, want %q", tc.task, tc.state, tc.try, ti.State, want)
				}
				if ti.TryNumber != tc.try {
					t.Errorf("%s try number %d, want %d kept", tc.task, ti.TryNumber, tc.try)
				}
				if want == TaskUpForRetry && (ti.NextRetryAt == nil || ti.EndDate == nil || ti.Duration == nil) {
					t.Errorf("%s up_for_retry without end date, duration or next retry: %+v", tc.task, ti)
				}
				if !strings.Contains(logs.String(), "tutorial/orphans/"+tc.task) {
					t.Errorf("orphan %s not logged:\n%s", tc.task, logs.String())
				}
				tl, _ := restored.read().First(tableTaskLogs, indexID, "tutorial", "orphans", tc.task, "-1")
				if (tl != nil) != tc.wantLogged {
					t.Errorf("%s task log present = %v, want %v", tc.task, tl != nil, tc.wantLogged)
				}
			}
			for _, state := range []TaskState{TaskRunning, TaskQueued} {
				tis, _ := taskInstancesInStateTxn(restored.read(), state)
				if len(tis) > 0 {
					t.Errorf("a task instance is still %s after restart: %+v", state, tis[0])
				}
			}
		})
	}
}

// snapGoodFile writes a valid snapshot with some runs and returns its path
// and bytes.
func snapGoodFile(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	api := snapAPI(t, store, dags, edition2)
	for i := 0; i < 3; i++ {
		if status, body := snapDo(t, http.MethodPost, api.URL+apiPrefix+"/dags/example_bash_operator/dag_runs",
			fmt.Sprintf(`{"run_id": "r%d", "execution_date": "2024-01-0%dT00:00:00+00:00"}`, i, i+1)); status != http.StatusOK {
			t.Fatalf("trigger: %d %s", status, body)
		}
	}
	path := filepath.Join(dir, "snapshot.json")
	if _, err := writeSnapshot(store, path, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestSnapshot_Unreadable(t *testing.T) {
	t.Parallel()
	_, good := snapGoodFile(t, t.TempDir())
	lines := bytes.SplitAfter(good, []byte("\n"))
	header := lines[0]
	cases := []struct {
		name    string
		content func() []byte
		problem string
	}{
		{"empty", func() []byte { return nil }, "empty file"},
		{"truncated in the header", func() []byte { return good[:20] }, "no complete header line"},
		{"truncated mid-row", func() []byte { return good[:len(good)/2] }, "truncated or corrupt"},
		{"truncated at a line end", func() []byte { return bytes.Join(lines[:len(lines)/2], nil) }, "truncated or corrupt"},
		{"end line missing", func() []byte { return bytes.Join(lines[:len(lines)-2], nil) }, "truncated or corrupt"},
		{"a byte changed", func() []byte {
			c := bytes.Clone(good)
			i := bytes.Index(c, []byte(`"r1"`))
			c[i+2] = '7'
			return c
		}, "corrupt: checksum"},
		{"newer version", func() []byte {
			this := fmt.Sprintf(`"version":%d`, snapshotVersion)
			next := fmt.Sprintf(`"version":%d`, snapshotVersion+1)
			return append(bytes.Replace(header, []byte(this), []byte(next), 1), good[len(header):]...)
		}, "newer airlite"},
		{"unknown format", func() []byte {
			return append(bytes.Replace(header, []byte(snapshotFormat), []byte("sqlite"), 1), good[len(header):]...)
		}, "unknown format"},
		{"not JSON", func() []byte { return []byte("hello\nworld\n") }, "corrupt header"},
		// The totals of the end line agree: -1 and 1 rows make 0.
		{"a table of -1 rows", func() []byte {
			return sealSnapshot(2, 0, string(bytes.TrimSuffix(header, []byte("\n"))), `{"table":"dags","rows":-1}`, `{"table":"pools","rows":1}`,
				`{"id":1,"pool":"p","slots":1,"description":null,"include_deferred":false}`)
		}, "corrupt table header: table dags has -1 rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := snapConfig(dir, edition2)
			bad := tc.content()
			if err := os.WriteFile(c.Snapshot, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := restoreSnapshot(t.Context(), c.Snapshot); !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.problem) {
				t.Fatalf("restore = %v, want errSnapshotUnreadable saying %q", err, tc.problem)
			}
			dags, err := loadEmbeddedDAGs()
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = openStore(t.Context(), c, dags, zerolog.Nop())
			if err == nil {
				t.Fatal("openStore started with an unreadable snapshot")
			}
			for _, want := range []string{c.Snapshot, tc.problem, "--snapshot-bad=move"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if now, _ := os.ReadFile(c.Snapshot); !bytes.Equal(now, bad) {
				t.Errorf("the unreadable snapshot was changed")
			}

			c.SnapshotBad = snapshotBadMove
			var logs bytes.Buffer
			store, _, err := openStore(t.Context(), c, dags, zerolog.New(&logs))
			if err != nil {
				t.Fatalf("openStore with --snapshot-bad=move: %v", err)
			}
			if runs, _ := store.RunsInState(RunQueued); len(runs) != 0 {
				t.Errorf("started with %d runs, want an empty state", len(runs))
			}
			moved, _ := filepath.Glob(c.Snapshot + ".bad-*")
			if len(moved) != 1 {
				t.Fatalf("moved files %v, want one", moved)
			}
			if data, _ := os.ReadFile(moved[0]); !bytes.Equal(data, bad) {
				t.Errorf("the moved file does not hold the bad snapshot's bytes")
			}
			if !strings.Contains(logs.String(), moved[0]) {
				t.Errorf("the log does not name where the file went:\n%s", logs.String())
			}
		})
	}
}

func TestRun_RefusesUnreadableSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "snapshot.json")
	if err := os.WriteFile(path, []byte(`{"format":"airlite-snapshot","version":1}`+"\n{"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--home", dir, "--addr", "127.0.0.1:0", "--log-format", "json", "--scheduler", "off"},
		func(string) string { return "" }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--snapshot-bad=move") {
		t.Fatalf("run = %v, want a refusal naming %s and --snapshot-bad=move", err, path)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q: it must not listen", stdout.String())
	}
}

func TestSnapshot_WriteFailureKeepsPreviousAndLogsOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "snaps")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path, good := snapGoodFile(t, dir)
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	sn := newSnapshotter(store, path, time.Hour, zerolog.New(&logs))
	sn.now = func() time.Time { return snapNow }
	if err := sn.write(); err != nil { // the first write always happens
		t.Fatal(err)
	}
	// A file where the snapshot folder was makes every write fail (tests
	// run as root too, which no permission stops). The folder, with the
	// snapshot, waits beside it.
	aside := dir + ".aside"
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := store.UpsertPool(fmt.Sprintf("p%d", i), 1, nil); err != nil {
			t.Fatal(err)
		}
		if err := sn.write(); err == nil {
			t.Fatal("write succeeded into a blocked path")
		}
	}
	if n := strings.Count(logs.String(), "snapshot not written"); n != 1 {
		t.Errorf("failure logged %d times, want once per episode:\n%s", n, logs.String())
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, good) {
		t.Errorf("the previous snapshot changed after failed writes")
	}
	if err := sn.write(); err != nil {
		t.Fatalf("write after the cause went: %v", err)
	}
	if !strings.Contains(logs.String(), "snapshot written again") {
		t.Errorf("recovery not logged:\n%s", logs.String())
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restored.PoolByName("p2"); err != nil {
		t.Errorf("pool written after recovery missing: %v", err)
	}

	// The folder gone: the write fails, nothing panics, serving goes on.
	gone := filepath.Join(t.TempDir(), "gone", "snapshot.json")
	sn2 := newSnapshotter(store, gone, time.Hour, zerolog.Nop())
	if err := sn2.write(); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

func TestSnapshot_SkipsWhenUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, _ := snapGoodFile(t, dir)
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	sn := newSnapshotter(store, path, time.Hour, zerolog.Nop())
	if err := sn.write(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if err := sn.write(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Error("an unchanged state was written again")
	}
	if _, err := store.UpsertPool("changed", 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := sn.write(); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(path); os.SameFile(after, again) {
		t.Error("a changed state was not written")
	}
}

func TestSnapshot_RunIDsNeverReused(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := snapConfig(dir, edition2)
	day := 0
	trigger := func(store *Store, runID string) int64 {
		t.Helper()
		day++
		api := snapAPI(t, store, dags, edition2)
		if status, body := snapDo(t, http.MethodPost, api.URL+apiPrefix+"/dags/example_bash_operator/dag_runs",
			fmt.Sprintf(`{"run_id": %q, "execution_date": "2024-01-%02dT00:00:00+00:00"}`, runID, day)); status != http.StatusOK {
			t.Fatalf("trigger: %d %s", status, body)
		}
		run, err := store.RunByRunID("example_bash_operator", runID)
		if err != nil {
			t.Fatal(err)
		}
		return run.ID
	}
	store, sn, err := openStore(t.Context(), c, dags, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	first := trigger(store, "a")
	if err := sn.stop(); err != nil {
		t.Fatal(err)
	}
	// A clean restart continues right after the highest id.
	store, sn, err = openStore(t.Context(), c, dags, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if got := trigger(store, "b"); got != first+1 {
		t.Errorf("id after a clean restart = %d, want %d", got, first+1)
	}
	if err := sn.write(); err != nil {
		t.Fatal(err)
	}
	// Runs created after the last snapshot are lost in a crash; their ids
	// must not come back.
	lost := trigger(store, "c")
	sn.cancel()
	store, _, err = openStore(t.Context(), c, dags, zerolog.Nop()) // no stop: a crash
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RunByRunID("example_bash_operator", "c"); !errors.Is(err, errNotFound) {
		t.Fatalf("run c survived the crash (%v); the test means to lose it", err)
	}
	if got := trigger(store, "d"); got <= lost {
		t.Errorf("id after a crash = %d, reuses an id up to %d", got, lost)
	}
}

func TestParseConfig_SnapshotBad(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return map[string]string{"HOME": "/h", "AIRLITE_SNAPSHOT_BAD": "move"}[k] }
	c, err := parseConfig(nil, env, io.Discard)
	if err != nil || c.SnapshotBad != snapshotBadMove {
		t.Fatalf("AIRLITE_SNAPSHOT_BAD=move: %q, %v", c.SnapshotBad, err)
	}
	c, err = parseConfig(nil, func(k string) string { return "" }, io.Discard)
	if err != nil || c.SnapshotBad != snapshotBadRefuse {
		t.Fatalf("default: %q, %v; want refuse", c.SnapshotBad, err)
	}
	if _, err := parseConfig([]string{"--snapshot-bad", "delete"}, env, io.Discard); err == nil || !strings.Contains(err.Error(), "snapshot-bad") {
		t.Fatalf("--snapshot-bad delete: %v, want refused", err)
	}
}

// A run's task instances are one row in the store and one record each in
// the file; a run with more task instances than a restore batch holds
// comes back whole, in task_id order.
func TestSnapshot_RunRowSpanningBatches(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	const big = 700 // more than one restore batch (512)
	err = store.update(func(txn *memdb.Txn) error {
		var tis []*TaskInstance
		for i := big - 1; i >= 0; i-- {
			tis = append(tis, &TaskInstance{DagID: "d", RunID: "big", TaskID: fmt.Sprintf("t%04d", i), State: TaskSuccess,
				TryNumber: i, Pool: defaultPoolName, PoolSlots: 1})
		}
		tis = append(tis, &TaskInstance{DagID: "d", RunID: "small", TaskID: "only", State: TaskQueued, Pool: defaultPoolName, PoolSlots: 1})
		for i, runID := range []string{"big", "small"} {
			run := &DagRun{ID: int64(i + 1), DagID: "d", RunID: runID, State: RunRunning, ExecutionDate: snapNow.Add(time.Duration(i) * time.Hour)}
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
		}
		return putTaskInstancesTxn(txn, tis...)
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	written, err := writeSnapshot(store, path, snapNow)
	if err != nil {
		t.Fatal(err)
	}
	restored, stats, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Rows != written.Rows {
		t.Errorf("restored %d records, wrote %d", stats.Rows, written.Rows)
	}
	for _, run := range []string{"big", "small"} {
		want, _ := store.TaskInstancesOfRun("d", run)
		got, _ := restored.TaskInstancesOfRun("d", run)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("run %s: %d task instances restored, want %d as stored", run, len(got), len(want))
		}
	}
	if got, _ := restored.TaskInstancesOfRun("d", "big"); len(got) != big || got[0].TaskID != "t0000" {
		t.Errorf("run big: %d task instances, first %v", len(got), got)
	}
	if queued, _ := taskInstancesInStateTxn(restored.read(), TaskQueued); len(queued) != 1 {
		t.Errorf("queued after restore: %d, want 1", len(queued))
	}
}
