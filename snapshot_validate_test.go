package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// snapRich writes a valid snapshot in which every table has rows (runs
// in every state, task instances, pools, lineage, task logs, counters)
// and returns its bytes.
func snapRich(t *testing.T) []byte {
	t.Helper()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	api := snapAPI(t, store, dags, edition2)
	snapPopulate(t, api.URL, store, dags, edition2)
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

// snapRowLines finds the lines of table's rows in a snapshot: the index
// of its first row line in lines and its row count.
func snapRowLines(t *testing.T, lines [][]byte, table string) (first, rows int) {
	t.Helper()
	for i := 1; i < len(lines)-1; {
		var sec sectionHeader
		if err := json.Unmarshal(lines[i], &sec); err != nil || sec.Table == "" {
			t.Fatalf("line %d is not a table header: %s", i+1, lines[i])
		}
		if sec.Table == table {
			return i + 1, sec.Rows
		}
		i += 1 + sec.Rows
	}
	t.Fatalf("no table %s in the snapshot", table)
	return 0, 0
}

// snapForge returns a copy of a snapshot whose first row of table that
// match accepts is changed by edit, with the checksum fixed so that only
// the row's content is wrong, and the row's number in its table (from 1).
// Numbers are decoded as json.Number, so that edits keep them exact.
func snapForge(t *testing.T, data []byte, table string, match func(n int, row map[string]any) bool, edit func(row map[string]any)) ([]byte, int) {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	first, rows := snapRowLines(t, lines, table)
	for n := 1; n <= rows; n++ {
		row := snapDecodeRow(t, lines[first+n-1])
		if match != nil && !match(n, row) {
			continue
		}
		edit(row)
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]byte, len(lines))
		copy(out, lines)
		out[first+n-1] = append(line, '\n')
		return fixSnapshotCRC(bytes.Join(out, nil)), n
	}
	t.Fatalf("no row of table %s matches", table)
	return nil, 0
}

func snapDecodeRow(t *testing.T, line []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var row map[string]any
	if err := dec.Decode(&row); err != nil {
		t.Fatal(err)
	}
	return row
}

// rowNamed matches a counters row by name.
func rowNamed(name string) func(int, map[string]any) bool {
	return func(_ int, row map[string]any) bool { return row["name"] == name }
}

// rowWith matches a row whose key holds a value that is not null.
func rowWith(key string) func(int, map[string]any) bool {
	return func(_ int, row map[string]any) bool { return row[key] != nil }
}

// set returns an edit that sets key to v.
func set(key string, v any) func(map[string]any) {
	return func(row map[string]any) { row[key] = v }
}

// editFirstTry returns an edit that sets key of the first earlier try of a
// task_instance_history row to v.
func editFirstTry(key string, v any) func(map[string]any) {
	return func(row map[string]any) { row["tries"].([]any)[0].(map[string]any)[key] = v }
}

// TestSnapshot_RestoreValidatesEveryRow: a row with a valid checksum but
// a value airlite could never have written is refused, naming the table
// and the row, through the path of any unreadable snapshot.
// staleWith makes a DAG row stale with the kept definition def.
func staleWith(def map[string]any) func(row map[string]any) {
	return func(row map[string]any) { row["stale"], row["definition"] = true, def }
}

func TestSnapshot_RestoreValidatesEveryRow(t *testing.T) {
	t.Parallel()
	good := snapRich(t)
	dir := t.TempDir()
	goodPath := filepath.Join(dir, "good.json")
	if err := os.WriteFile(goodPath, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := restoreSnapshot(t.Context(), goodPath); err != nil {
		t.Fatalf("the unforged snapshot does not restore: %v", err)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	runsFrom, _ := snapRowLines(t, lines, tableDagRuns)
	firstRunID := snapDecodeRow(t, lines[runsFrom])["id"]
	varsFrom, _ := snapRowLines(t, lines, tableVariables)
	firstVariableID := snapDecodeRow(t, lines[varsFrom])["id"]
	connsFrom, _ := snapRowLines(t, lines, tableConns)
	firstConnID := snapDecodeRow(t, lines[connsFrom])["id"]
	poolsFrom, _ := snapRowLines(t, lines, tablePools)
	firstPool := snapDecodeRow(t, lines[poolsFrom])
	firstPoolID := firstPool["id"]
	firstRun := snapDecodeRow(t, lines[runsFrom])
	firstVariable := snapDecodeRow(t, lines[varsFrom])
	firstConn := snapDecodeRow(t, lines[connsFrom])
	dagsFrom, _ := snapRowLines(t, lines, tableDags)
	firstDag := snapDecodeRow(t, lines[dagsFrom])
	second := func(n int, _ map[string]any) bool { return n == 2 }

	cases := []struct {
		name  string
		table string
		match func(n int, row map[string]any) bool
		edit  func(row map[string]any)
		want  string
	}{
		{"run id 2^63-1", tableDagRuns, nil, set("id", json.Number("9223372036854775807")), "id 9223372036854775807"},
		{"run id 0", tableDagRuns, nil, set("id", 0), "id 0"},
		{"run id negative", tableDagRuns, nil, set("id", -5), "id -5"},
		{"run id twice", tableDagRuns, func(n int, _ map[string]any) bool { return n == 2 }, set("id", firstRunID), "twice"},
		{"pool id past 2^53", tablePools, nil, set("id", json.Number("9007199254740993")), "id 9007199254740993"},
		{"pool id twice", tablePools, func(n int, _ map[string]any) bool { return n == 2 }, set("id", firstPoolID), "twice"},
		// A second row under a primary key would replace the first.
		{"pool name twice", tablePools, second, set("pool", firstPool["pool"]), "twice"},
		{"dag_id twice", tableDags, second, set("dag_id", firstDag["dag_id"]), "twice"},
		{"run_id twice in a DAG", tableDagRuns, second, func(row map[string]any) {
			row["dag_id"], row["run_id"] = firstRun["dag_id"], firstRun["run_id"]
		}, "twice"},
		{"variable key twice", tableVariables, second, set("key", firstVariable["key"]), "twice"},
		{"connection conn_id twice", tableConns, second, set("conn_id", firstConn["conn_id"]), "twice"},
		{"run counter past 2^53", tableCounters, rowNamed(counterRunID), set("value", json.Number("9223372036854775807")), "9223372036854775807"},
		{"pool counter 0", tableCounters, rowNamed(counterPoolID), set("value", 0), "value 0"},
		{"change counter negative", tableCounters, rowNamed(counterChange), set("value", -1), "value -1"},
		{"counter without a name", tableCounters, nil, set("name", ""), "name"},
		{"unknown run state", tableDagRuns, nil, set("state", "exploded"), `state "exploded"`},
		{"unknown task state", tableTasks, nil, set("state", "exploded"), `state "exploded"`},
		{"run date past year 9999", tableDagRuns, rowWith("start_date"), set("start_date", "9999-12-31T23:00:00-05:00"), "year 10000"},
		{"run execution date before year 1", tableDagRuns, nil, set("execution_date", "0000-12-31T00:00:00Z"), "year 0"},
		{"task date before year 1", tableTasks, rowWith("start_date"), set("start_date", "0001-01-01T00:30:00+01:00"), "year 0"},
		{"task retry date past year 9999", tableTasks, rowWith("next_retry_at"), set("next_retry_at", "9999-12-31T23:59:59-00:01"), "year 10000"},
		{"dag without dag_id", tableDags, nil, set("dag_id", ""), "dag_id"},
		// A DAG's kept definition (edition 3, stale or not) is in one of
		// two formats.
		{"definition in an unknown format on a DAG not stale", tableDags, nil, set("definition", map[string]any{"format": "pickle", "data": "x"}), `format "pickle"`},
		{"definition in an unknown format", tableDags, nil, staleWith(map[string]any{"format": "pickle", "data": "x"}), `format "pickle"`},
		{"definition without data", tableDags, nil, staleWith(map[string]any{"format": "serialized_dag", "data": ""}), "data"},
		{"definition read past year 9999", tableDags, nil,
			staleWith(map[string]any{"format": "yaml", "data": "dag_id: x", "read_at": "9999-12-31T23:00:00-05:00"}), "year 10000"},
		{"definition parsed for a negative time", tableDags, nil,
			staleWith(map[string]any{"format": "yaml", "data": "dag_id: x", "parse_duration": -1}), "parse_duration -1"},
		{"run without dag_id", tableDagRuns, nil, set("dag_id", ""), "dag_id"},
		{"run without run_id", tableDagRuns, nil, set("run_id", ""), "run_id"},
		{"run_id missing", tableDagRuns, nil, func(row map[string]any) { delete(row, "run_id") }, "run_id"},
		{"task without task_id", tableTasks, nil, set("task_id", ""), "task_id"},
		{"task of no run", tableTasks, nil, set("run_id", "nope"), "no run"},
		{"lineage of no run", tableLineage, nil, set("dag_id", "nope"), "no run"},
		{"lineage without task_id", tableLineage, nil, set("task_id", ""), "task_id"},
		{"task log of no run", tableTaskLogs, nil, set("run_id", "nope"), "no run"},
		{"pool without a name", tablePools, nil, set("pool", "  "), "name"},
		{"task in no pool", tableTasks, nil, set("pool", ""), "pool"},
		{"task taking no pool slot", tableTasks, nil, set("pool_slots", 0), "pool_slots 0"},
		{"negative try number", tableTasks, nil, set("try_number", -1), "try_number -1"},
		{"run triggered by no known way", tableDagRuns, nil, set("triggered_by", "magic"), `triggered_by "magic"`},
		{"task instance id not a UUID", tableTasks, nil, set("id", "not-a-uuid"), `id "not-a-uuid" is not a UUID`},
		{"negative max_tries", tableTasks, nil, set("max_tries", -1), "max_tries -1"},
		{"negative try in a task log", tableTaskLogs, rowWith("tries"), func(row map[string]any) {
			row["tries"].([]any)[0].(map[string]any)["try"] = -1
		}, "try -1"},
		{"earlier tries of no run", tableTryHistory, nil, func(row map[string]any) {
			row["run_id"] = "nope"
			editFirstTry("run_id", "nope")(row)
		}, "no run"},
		{"earlier tries without task_id", tableTryHistory, nil, set("task_id", ""), "task_id"},
		{"no earlier try", tableTryHistory, nil, set("tries", []any{}), "holds 0 tries"},
		{"more earlier tries than the log keeps", tableTryHistory, nil, func(row map[string]any) {
			try := row["tries"].([]any)[0].(map[string]any)
			var tries []any
			for n := range maxLogTries + 1 {
				c := map[string]any{}
				for k, v := range try {
					c[k] = v
				}
				c["try_number"] = n + 1
				tries = append(tries, c)
			}
			row["tries"] = tries
		}, "holds 21 tries"},
		{"negative dropped tries", tableTryHistory, nil, set("dropped_tries", -1), "dropped_tries -1"},
		{"task map_index under -1", tableTasks, nil, set("map_index", -2), "map_index -2"},
		{"lineage map_index under -1", tableLineage, nil, set("map_index", -2), "map_index -2"},
		{"task log map_index under -1", tableTaskLogs, nil, set("map_index", -2), "map_index -2"},
		{"earlier tries map_index under -1", tableTryHistory, nil, func(row map[string]any) {
			row["map_index"] = -2
			editFirstTry("map_index", -2)(row)
		}, "map_index -2"},
		{"earlier try of another map index", tableTryHistory, nil, editFirstTry("map_index", 3), "not its row's task instance"},
		{"earlier try of another task", tableTryHistory, nil, editFirstTry("task_id", "other"), "not its row's task instance"},
		{"earlier try still running", tableTryHistory, nil, editFirstTry("state", "running"), `state "running" is not the state of an ended try`},
		{"earlier try number 0", tableTryHistory, nil, editFirstTry("try_number", 0), "try_number 0 does not follow 0"},
		{"earlier tries not rising", tableTryHistory, nil, func(row map[string]any) {
			try := row["tries"].([]any)[0]
			row["tries"] = []any{try, try}
		}, "does not follow"},
		{"earlier try with a process", tableTryHistory, nil, editFirstTry("proc_identity", "x"), "holds a process"},
		{"earlier try in no pool", tableTryHistory, nil, editFirstTry("pool", ""), "pool"},
		{"earlier try date past year 9999", tableTryHistory, nil, editFirstTry("end_date", "9999-12-31T23:59:59-00:01"), "year 10000"},
		{"variable without a key", tableVariables, nil, set("key", ""), "key"},
		{"variable id 0", tableVariables, nil, set("id", 0), "id 0"},
		{"variable id twice", tableVariables, func(n int, _ map[string]any) bool { return n == 2 }, set("id", firstVariableID), "twice"},
		{"variable encrypted", tableVariables, nil, set("is_encrypted", true), "is_encrypted"},
		{"connection without conn_id", tableConns, nil, set("conn_id", ""), "conn_id"},
		{"connection id past 2^53", tableConns, nil, set("id", json.Number("9007199254740993")), "id 9007199254740993"},
		{"connection id twice", tableConns, func(n int, _ map[string]any) bool { return n == 2 }, set("id", firstConnID), "twice"},
		{"xcom of no run", tableXComs, nil, set("run_id", "nope"), "no run"},
		{"xcom naming another run's id", tableXComs, nil, set("dag_run_id", json.Number("9007199254740992")), "dag_run_id 9007199254740992"},
		{"xcom without a key", tableXComs, nil, set("key", ""), "key"},
		{"xcom without task_id", tableXComs, nil, set("task_id", ""), "task_id"},
		{"xcom map_index under -1", tableXComs, nil, set("map_index", -2), "map_index -2"},
		{"xcom value not JSON", tableXComs, nil, set("value", "{nope"), "not JSON"},
		{"xcom map_length under 0", tableXComs, nil, set("map_length", -1), "map_length -1"},
		{"xcom map_length past the bound", tableXComs, nil, set("map_length", maxRecordedMapLength+1), "map_length 1048577"},
		{"xcom map_length of a mapped instance", tableXComs, nil, func(row map[string]any) { row["map_index"], row["map_length"] = 0, 2 }, "map_index 0"},
		{"xcom timestamp past year 9999", tableXComs, nil, set("timestamp", "9999-12-31T23:59:59-01:00"), "year 10000"},
		{"event log without an event", tableEventLogs, nil, set("event", ""), "event"},
		{"event log event over 60 characters", tableEventLogs, nil, set("event", strings.Repeat("e", 61)), "61 characters"},
		{"event log id 0", tableEventLogs, nil, set("id", 0), "id 0"},
		{"event log id twice", tableEventLogs, func(n int, _ map[string]any) bool { return n == 2 }, set("id", 1), "twice"},
		{"event log map_index under -1", tableEventLogs, rowWith("map_index"), set("map_index", -2), "map_index -2"},
		{"event log negative try", tableEventLogs, rowWith("try_number"), set("try_number", -1), "try_number -1"},
		{"event log dttm past year 9999", tableEventLogs, nil, set("dttm", "9999-12-31T23:59:59-01:00"), "year 10000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, n := snapForge(t, good, tc.table, tc.match, tc.edit)
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if err := os.WriteFile(path, forged, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := restoreSnapshot(t.Context(), path)
			if !errors.Is(err, errSnapshotUnreadable) {
				t.Fatalf("restore = %v, want errSnapshotUnreadable", err)
			}
			t.Log(err)
			msg, ok := strings.CutPrefix(err.Error(), "read "+path+": ")
			if !ok {
				t.Fatalf("error %q does not name the file first", err)
			}
			for _, want := range []string{fmt.Sprintf("row %d of table %s", n, tc.table), tc.want} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}

	// Through start-up: refused, or moved aside with --snapshot-bad=move.
	forged, _ := snapForge(t, good, tableDagRuns, nil, set("state", "exploded"))
	c := snapConfig(t.TempDir(), edition2)
	if err := os.WriteFile(c.Snapshot, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := openStore(t.Context(), c, dags, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "--snapshot-bad=move") {
		t.Fatalf("openStore = %v, want a refusal pointing at --snapshot-bad=move", err)
	}
	c.SnapshotBad = snapshotBadMove
	if _, _, err := openStore(t.Context(), c, dags, zerolog.Nop()); err != nil {
		t.Fatalf("openStore with --snapshot-bad=move: %v", err)
	}
	if moved, _ := filepath.Glob(c.Snapshot + ".bad-*"); len(moved) != 1 {
		t.Errorf("moved files %v, want one", moved)
	}
}

// TestLease_OutOfRangeRefused: the id lease raises the counters at start,
// so it is held to the same bounds as the snapshot's ids.
func TestLease_OutOfRangeRefused(t *testing.T) {
	t.Parallel()
	for _, lease := range []string{
		`{"format":"airlite-id-lease","version":1,"dag_run":9223372036854775807,"pool":5}`,
		`{"format":"airlite-id-lease","version":1,"dag_run":5,"pool":-1}`,
	} {
		c := snapConfig(t.TempDir(), edition2)
		if err := os.WriteFile(leasePath(c.Snapshot), []byte(lease+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		dags, err := loadEmbeddedDAGs()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = openStore(t.Context(), c, dags, zerolog.Nop())
		if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), "outside 0 to") ||
			!strings.Contains(err.Error(), "--snapshot-bad=move") {
			t.Errorf("lease %s: openStore = %v, want a refusal of the id lease", lease, err)
		}
	}
}

// snapWithout returns a copy of a snapshot without the given tables'
// sections, written as the given format version, with the end line's
// counts and checksum fixed: what an older airlite wrote.
func snapWithout(t *testing.T, data []byte, version int, tables ...string) []byte {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // SplitAfter leaves an empty tail
	drop := map[string]bool{}
	for _, table := range tables {
		drop[table] = true
	}
	var header snapshotHeader
	if err := json.Unmarshal(lines[0], &header); err != nil {
		t.Fatal(err)
	}
	header.Version, header.Tables = version, nil
	var body [][]byte
	kept, rows := 0, 0
	for i := 1; i < len(lines)-1; {
		var sec sectionHeader
		if err := json.Unmarshal(lines[i], &sec); err != nil || sec.Table == "" {
			t.Fatalf("line %d is not a table header: %s", i+1, lines[i])
		}
		if !drop[sec.Table] {
			header.Tables = append(header.Tables, sec.Table)
			body = append(body, lines[i:i+1+sec.Rows]...)
			kept++
			rows += sec.Rows
		}
		i += 1 + sec.Rows
	}
	first, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	footer, err := json.Marshal(snapshotFooter{End: snapshotFormat, Tables: kept, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte(nil), first...), '\n')
	out = append(append(out, bytes.Join(body, nil)...), append(footer, '\n')...)
	return fixSnapshotCRC(out)
}

// A snapshot written before variables, connections and XCom existed
// (format version 1) restores with none of them, and everything else.
func TestSnapshot_VersionOneRestoresWithoutTheNewTables(t *testing.T) {
	t.Parallel()
	good := snapRich(t)
	old := snapWithout(t, good, 1, tableVariables, tableConns, tableXComs, tableEventLogs)
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatalf("a version 1 snapshot does not restore: %v", err)
	}
	rows := snapTableRows(t, store)
	for _, table := range []string{tableVariables, tableConns, tableXComs} {
		if n := len(rows[table]); n != 0 {
			t.Errorf("table %s has %d rows, want none", table, n)
		}
	}
	if len(rows[tableDagRuns]) == 0 || len(rows[tableTasks]) == 0 {
		t.Errorf("the runs and task instances of the old snapshot are gone")
	}
	// The store works on: a variable, a connection.
	if _, err := store.SetVariable("after", "x", nil); err != nil {
		t.Fatal(err)
	}
	if v, ok := store.Variable("after"); !ok || v.Val != "x" {
		t.Errorf("variable after the restore = %+v, %v; want x", v, ok)
	}
}

// Restored variables and connections keep their ids, and new ones are
// numbered after the highest restored (they order the listings), whatever
// the counters in the file say.
func TestSnapshot_RestoredIDsKeepCounting(t *testing.T) {
	t.Parallel()
	forged, _ := snapForge(t, snapRich(t), tableCounters, rowNamed(counterVariableID), set("value", 1))
	forged, _ = snapForge(t, forged, tableConns, nil, set("id", 77))
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(path, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := store.Variables()
	if err != nil || len(vars) != 2 {
		t.Fatalf("restored variables %v, %v", vars, err)
	}
	v, err := store.SetVariable("new", "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != vars[1].ID+1 {
		t.Errorf("new variable id %d, want %d (after the highest restored)", v.ID, vars[1].ID+1)
	}
	c, err := store.CreateConnection(Connection{ConnID: "new", ConnType: "http"})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != 78 {
		t.Errorf("new connection id %d, want 78", c.ID)
	}
}

// A version 2 snapshot (before the event log) restores with an empty
// event log; restored events keep their ids, new ones are numbered after
// the highest restored (or the highest a reset emptied), and a store restored
// with more events than --max-event-logs keeps the newest at the next.
func TestSnapshot_EventLogRestore(t *testing.T) {
	t.Parallel()
	good := snapRich(t)
	restore := func(t *testing.T, data []byte) *Store {
		t.Helper()
		path := filepath.Join(t.TempDir(), "snapshot.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		store, _, err := restoreSnapshot(t.Context(), path)
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		return store
	}
	eventIDs := func(t *testing.T, store *Store) []int64 {
		t.Helper()
		events, err := store.EventLogs()
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, e := range events {
			ids = append(ids, e.ID)
		}
		return ids
	}
	t.Run("version 2", func(t *testing.T) {
		store := restore(t, snapWithout(t, good, 2, tableEventLogs))
		if ids := eventIDs(t, store); len(ids) != 0 {
			t.Errorf("event ids %v, want none", ids)
		}
	})
	t.Run("ids keep counting", func(t *testing.T) {
		forged, _ := snapForge(t, good, tableEventLogs, func(n int, _ map[string]any) bool { return n == 2 }, set("id", 40))
		store := restore(t, forged)
		if err := store.AppendEventLog(EventLog{When: snapNow, Event: "after"}); err != nil {
			t.Fatal(err)
		}
		if ids := eventIDs(t, store); !slices.Equal(ids, []int64{1, 40, 41}) {
			t.Errorf("event ids %v, want [1 40 41]", ids)
		}
	})
	t.Run("ids go on after a reset emptied the log", func(t *testing.T) {
		store := restore(t, good)
		if err := store.update(clearEventLogsTxn); err != nil {
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
		again := restore(t, data)
		if err := again.AppendEventLog(EventLog{When: snapNow, Event: "after"}); err != nil {
			t.Fatal(err)
		}
		if ids := eventIDs(t, again); !slices.Equal(ids, []int64{3}) {
			t.Errorf("event ids %v, want [3]", ids)
		}
	})
	t.Run("a lower cap keeps the newest", func(t *testing.T) {
		store := restore(t, good)
		store.SetLimits(Limits{EventLogs: 1})
		if err := store.AppendEventLog(EventLog{When: snapNow, Event: "after"}); err != nil {
			t.Fatal(err)
		}
		if ids := eventIDs(t, store); !slices.Equal(ids, []int64{3}) {
			t.Errorf("event ids %v, want [3]", ids)
		}
	})
}

// snapAssetsAndBackfills writes a snapshot holding two assets, two
// events of the first, two aliases and two backfills of one date each
// (so two run links), every id 1 and 2, and returns its bytes.
func snapAssetsAndBackfills(t testing.TB) []byte {
	t.Helper()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
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

// createDoneBackfill stores a completed backfill of example_bash_operator
// with one date, whose run already exists (a link with no run).
func createDoneBackfill(t testing.TB, store *Store) *Backfill {
	t.Helper()
	b := Backfill{DagID: "example_bash_operator", FromDate: snapNow, ToDate: snapNow, ReprocessBehavior: "none",
		MaxActiveRuns: 10, CreatedAt: snapNow, UpdatedAt: snapNow, CompletedAt: &snapNow}
	nb, err := store.CreateBackfill(func(storeView) (*backfillPlan, error) {
		return &backfillPlan{backfill: b, dates: []backfillDate{{logical: snapNow, exception: "already exists"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// Restored assets, asset events, aliases, backfills and their run links
// keep their ids, and new ones are numbered after the highest restored
// whatever the counters in the file say: a new row numbered by a counter
// behind the rows would take a restored row's id, and memdb would put it
// in that row's place.
func TestSnapshot_RestoredAssetAndBackfillIDsKeepCounting(t *testing.T) {
	t.Parallel()
	data := snapAssetsAndBackfills(t)
	for _, name := range []string{counterAssetID, counterAssetEventID, counterAssetAliasID, counterBackfillID, counterBackfillRunID} {
		data, _ = snapForge(t, data, tableCounters, rowNamed(name), set("value", 1))
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}

	if err := restored.EnsureAssets([]assetRef{{Name: "c", URI: "s3://c"}}, snapNow); err != nil {
		t.Fatal(err)
	}
	assets, err := restored.Assets()
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, a := range assets {
		uris = append(uris, fmt.Sprintf("%d:%s", a.ID, a.URI))
	}
	if got, want := strings.Join(uris, " "), "1:s3://a 2:s3://b 3:s3://c"; got != want {
		t.Errorf("assets after a new one: %s, want %s", got, want)
	}
	if e, err := restored.AddAssetEvent(AssetEvent{AssetID: 2, Extra: json.RawMessage(`{}`), SourceMapIndex: -1, Timestamp: snapNow}); err != nil || e.ID != 3 {
		t.Errorf("new asset event %+v (%v), want id 3", e, err)
	}
	events, err := restored.AssetEvents()
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	for _, e := range events {
		evs = append(evs, fmt.Sprintf("%d:%d", e.ID, e.AssetID))
	}
	if got, want := strings.Join(evs, " "), "1:1 2:1 3:2"; got != want {
		t.Errorf("asset events (id:asset) after a new one: %s, want %s", got, want)
	}
	if err := restored.EnsureAssetAliases([]aliasRef{{Name: "z"}}); err != nil {
		t.Fatal(err)
	}
	aliases, err := restored.AssetAliases()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range aliases {
		names = append(names, fmt.Sprintf("%d:%s", a.ID, a.Name))
	}
	if got, want := strings.Join(names, " "), "1:x 2:y 3:z"; got != want {
		t.Errorf("aliases after a new one: %s, want %s", got, want)
	}
	nb := createDoneBackfill(t, restored)
	if nb.ID != 3 {
		t.Errorf("new backfill id %d, want 3", nb.ID)
	}
	if all, err := restored.Backfills("example_bash_operator"); err != nil || len(all) != 3 {
		t.Errorf("backfills %d (%v), want the two restored and the new one", len(all), err)
	}
	// Each backfill keeps its own run link: the new link is id 3, not a
	// restored link's id taken over.
	for id, want := range map[int64]int64{1: 1, 2: 2, 3: 3} {
		links, err := restored.BackfillRuns(id)
		if err != nil || len(links) != 1 || links[0].ID != want || links[0].BackfillID != id {
			t.Errorf("run links of backfill %d: %+v (%v), want one, id %d", id, links, err, want)
		}
	}
}

// A snapshot whose table holds one id twice (or one asset's name and uri,
// or one alias's name) is refused: go-memdb would put the second row in
// the first one's place, and the restore would lose a row without a word,
// as it refuses a run, variable, connection or event log id twice.
func TestSnapshot_RestoreRefusesAssetAndBackfillKeysTwice(t *testing.T) {
	t.Parallel()
	good := snapAssetsAndBackfills(t)
	second := func(n int, _ map[string]any) bool { return n == 2 }
	cases := []struct {
		name  string
		table string
		edit  func(row map[string]any)
		want  string
	}{
		{"asset id twice", tableAssets, set("id", 1), "id 1 appears twice"},
		{"asset name and uri twice", tableAssets, func(row map[string]any) { row["name"], row["uri"] = "a", "s3://a" }, `name "a" with uri "s3://a" appears twice`},
		{"asset event id twice", tableAssetEvents, set("id", 1), "id 1 appears twice"},
		{"alias id twice", tableAssetAliases, set("id", 1), "id 1 appears twice"},
		{"alias name twice", tableAssetAliases, set("name", "x"), `name "x" appears twice`},
		{"backfill id twice", tableBackfills, set("id", 1), "id 1 appears twice"},
		{"backfill run link id twice", tableBackfillRuns, set("id", 1), "id 1 appears twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, n := snapForge(t, good, tc.table, second, tc.edit)
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if err := os.WriteFile(path, forged, 0o600); err != nil {
				t.Fatal(err)
			}
			store, _, err := restoreSnapshot(t.Context(), path)
			if !errors.Is(err, errSnapshotUnreadable) {
				rows := map[string]int{}
				if store != nil {
					for _, table := range []string{tableAssets, tableAssetEvents, tableAssetAliases, tableBackfills, tableBackfillRuns} {
						_ = store.Snapshot().Rows(table, func(any) error { rows[table]++; return nil })
					}
				}
				t.Fatalf("restore = %v, want errSnapshotUnreadable (rows restored: %v, two of each written)", err, rows)
			}
			for _, want := range []string{fmt.Sprintf("row %d of table %s", n, tc.table), tc.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// A snapshot holding one task instance id twice is refused, as Airflow's
// primary key refuses it: the order of task instances (ti_order) keys a
// DAG's task instances by id, and the second would take the first's
// place there, so that pages lost it and deleting its run failed ("no
// block holds it").
func TestSnapshot_RestoreRefusesTaskInstanceIDTwice(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for range 2 {
		v2Trigger(t, ts, "example_bash_operator", `{"logical_date": null}`)
	}
	path, good, row1 := snapFirstTaskRow(t, ts.store)
	forged, n := snapForge(t, good, tableTasks, func(_ int, row map[string]any) bool {
		return row["run_id"] != row1["run_id"] && row["task_id"] == row1["task_id"]
	}, set("id", row1["id"]))
	if err := os.WriteFile(path, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := restoreSnapshot(t.Context(), path)
	if !errors.Is(err, errSnapshotUnreadable) {
		t.Fatalf("restore = %v, want errSnapshotUnreadable", err)
	}
	for _, want := range []string{fmt.Sprintf("row %d of table %s", n, tableTasks), fmt.Sprintf("id %q appears twice", row1["id"])} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A task instance (dag_id, run_id, task_id, map_index) twice in a
// snapshot: the second took the first's place in its run's row, and the
// run lost a task instance without a word. The restore refuses it.
func TestSnapshot_RestoreRefusesTaskInstanceKeyTwice(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.trigger(t, "example_bash_operator", `{"run_id": "twice", "execution_date": "2024-05-01T00:00:00+00:00"}`)
	path, good, row1 := snapFirstTaskRow(t, ts.store)
	forged, n := snapForge(t, good, tableTasks, func(_ int, row map[string]any) bool {
		return row["run_id"] == row1["run_id"] && row["task_id"] != row1["task_id"]
	}, set("task_id", row1["task_id"]))
	if err := os.WriteFile(path, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := restoreSnapshot(t.Context(), path)
	if !errors.Is(err, errSnapshotUnreadable) {
		t.Fatalf("restore = %v, want errSnapshotUnreadable", err)
	}
	want := fmt.Sprintf("task instance %s of run %s of DAG %s (map_index -1) appears twice", row1["task_id"], row1["run_id"], row1["dag_id"])
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "of table "+tableTasks) {
		t.Errorf("error %q does not say %q (row %d)", err, want, n)
	}
}

// snapFirstTaskRow writes store's snapshot and returns its path, its
// bytes and its first task-instance row, decoded.
func snapFirstTaskRow(t *testing.T, store *Store) (string, []byte, map[string]any) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(store, path, snapNow); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	first, _ := snapRowLines(t, lines, tableTasks)
	return path, good, snapDecodeRow(t, lines[first])
}
