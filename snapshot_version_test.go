package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sealSnapshot ends lines (a header, then sections) with the end line the
// reader checks: the counts and the CRC-32C of every byte before it.
func sealSnapshot(tables, rows int, lines ...string) []byte {
	body := []byte(strings.Join(lines, "\n") + "\n")
	footer := fmt.Sprintf(`{"end":%q,"tables":%d,"rows":%d,"crc32c":"%08x"}`+"\n",
		snapshotFormat, tables, rows, crc32.Checksum(body, crc32c))
	return append(body, footer...)
}

// A file of format version 4, before runs had a run_after or could lack a
// logical date, restores with every run's run_after its logical date;
// written again, it is a version 5 file that restores the same runs.
func TestSnapshot_Version4RestoresRunAfterAsTheLogicalDate(t *testing.T) {
	t.Parallel()
	v4 := sealSnapshot(2, 3,
		`{"format":"airlite-snapshot","version":4,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs"]}`,
		`{"table":"dags","rows":1}`,
		`{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
		`{"table":"dag_runs","rows":2}`,
		`{"id":2,"dag_id":"d","run_id":"b","execution_date":"2024-01-02T00:00:00Z","state":"success","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
		`{"id":1,"dag_id":"d","run_id":"a","execution_date":"2024-01-03T00:00:00Z","state":"queued","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "v4.json")
	if err := os.WriteFile(path, v4, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, store *Store) {
		t.Helper()
		runs, err := store.RunsOfDag("d", "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.RunID)
			date, ok := r.LogicalDate()
			if !ok || !r.RunAfter.IsZero() || !r.After().Equal(date) {
				t.Errorf("run %s: logical date %v (%v), RunAfter %v: want a logical date that is its run_after", r.RunID, date, ok, r.RunAfter)
			}
			if found, err := store.RunByDate("d", date); err != nil || found.RunID != r.RunID {
				t.Errorf("run at %s: %v %v, want %s", isoFormat(date), found, err, r.RunID)
			}
		}
		if want := []string{"b", "a"}; !slices.Equal(ids, want) {
			t.Errorf("runs in order %v, want %v", ids, want)
		}
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatalf("restore version 4: %v", err)
	}
	check(t, store)

	again := filepath.Join(dir, "v5.json")
	if _, err := writeSnapshot(store, again, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, fmt.Appendf(nil, `"version":%d`, snapshotVersion)) || bytes.Contains(data, []byte(`"run_after"`)) {
		t.Errorf("written again: want the current version and no run_after where it is the logical date:\n%s", data)
	}
	restored, _, err := restoreSnapshot(t.Context(), again)
	if err != nil {
		t.Fatalf("restore version 5: %v", err)
	}
	check(t, restored)
}

// Version 5 writes a run without a logical date as execution_date null
// with its run_after; the reader refuses such a run without a run_after,
// or with a data interval, and two runs at one logical date.
func TestSnapshot_Version5RunsWithoutALogicalDate(t *testing.T) {
	t.Parallel()
	header := `{"format":"airlite-snapshot","version":5,"index":3,"created_at":"2024-05-01T10:00:00Z","airlite_version":"x","tables":["dag_runs"]}`
	run := func(id int, runID, extra string) string {
		return fmt.Sprintf(`{"id":%d,"dag_id":"d","run_id":%q,%s,"state":"queued","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
			id, runID, extra)
	}
	for _, tc := range []struct {
		name    string
		runs    []string
		problem string // "" restores
	}{
		{"two without a logical date at one run_after", []string{
			run(1, "a", `"execution_date":null,"run_after":"2024-01-01T00:00:00Z"`),
			run(2, "b", `"execution_date":null,"run_after":"2024-01-01T00:00:00Z"`)}, ""},
		{"no logical date, no run_after", []string{run(1, "a", `"execution_date":null`)}, "run_after is missing"},
		{"no logical date, a data interval", []string{run(1, "a",
			`"execution_date":null,"run_after":"2024-01-01T00:00:00Z","data_interval_start":"2024-01-01T00:00:00Z","data_interval_end":"2024-01-02T00:00:00Z"`)},
			"no data interval"},
		{"two at one logical date", []string{
			run(1, "a", `"execution_date":"2024-01-01T00:00:00Z"`),
			run(2, "b", `"execution_date":"2024-01-01T00:00:00Z","run_after":"2024-01-05T00:00:00Z"`)}, "another run has its logical date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines := append([]string{header, fmt.Sprintf(`{"table":"dag_runs","rows":%d}`, len(tc.runs))}, tc.runs...)
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, sealSnapshot(1, len(tc.runs), lines...), 0o600); err != nil {
				t.Fatal(err)
			}
			store, _, err := restoreSnapshot(t.Context(), path)
			if tc.problem != "" {
				if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("restore: %v, want errSnapshotUnreadable saying %q", err, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			runs, err := store.RunsOfDag("d", "")
			if err != nil || len(runs) != len(tc.runs) {
				t.Fatalf("runs %d (%v), want %d", len(runs), err, len(tc.runs))
			}
			for _, r := range runs {
				if _, ok := r.LogicalDate(); ok || !r.After().Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("run %s: want no logical date and run_after 2024-01-01, got %+v", r.RunID, r)
				}
			}
		})
	}
}

// A version 7 file (before asset aliases) restores its assets and events:
// no alias, no event through one; written again, it is a file of the
// current version with its aliases table, empty.
func TestSnapshot_Version7AssetsWithoutAliases(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"format":"airlite-snapshot","version":7,"index":4,"created_at":"2024-05-01T10:00:00Z","airlite_version":"x","tables":["assets","asset_events"]}`,
		`{"table":"assets","rows":1}`,
		`{"id":1,"name":"a","uri":"s3://a","group":"asset","extra":"{}","created_at":"2024-05-01T10:00:00Z","updated_at":"2024-05-01T10:00:00Z"}`,
		`{"table":"asset_events","rows":1}`,
		`{"id":1,"asset_id":1,"extra":"{\"k\":1}","source_dag_id":null,"source_task_id":null,"source_run_id":null,"source_map_index":-1,"partition_key":null,"timestamp":"2024-05-01T10:00:00Z"}`,
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, sealSnapshot(2, 2, lines...), 0o600); err != nil {
		t.Fatal(err)
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	events, err := store.AssetEvents()
	if err != nil || len(events) != 1 || string(events[0].Extra) != `{"k":1}` || events[0].SourceAliasIDs != nil {
		t.Fatalf("events %+v (%v)", events, err)
	}
	if aliases, err := store.AssetAliases(); err != nil || len(aliases) != 0 {
		t.Fatalf("aliases %+v (%v), want none", aliases, err)
	}
	again := filepath.Join(t.TempDir(), "again.json")
	if _, err := writeSnapshot(store, again, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, fmt.Appendf(nil, `"version":%d`, snapshotVersion)) || !bytes.Contains(data, []byte(`{"table":"asset_aliases","rows":0}`)) {
		t.Errorf("written again:\n%s", data)
	}
}

// A file of format version 8 or older kept every XCom entry as its value,
// the public API's too, with nothing to tell them apart: its entries
// restore as they were stored, and read as a task's push reads (the
// value itself, not json.dumps' text of it). Written again, the file is
// of the current version, with the same values; an entry in the public
// API's form (a JSON string of the text) keeps that form through it.
func TestSnapshot_Version8XComsRestoreAsStored(t *testing.T) {
	t.Parallel()
	apiText, err := v2XComStored(pyDict{{"k", "v"}})
	if err != nil {
		t.Fatal(err)
	}
	xcom := func(key, value string) string {
		return fmt.Sprintf(`{"dag_id":"d","run_id":"a","task_id":"t","dag_run_id":1,"map_index":-1,"key":%q,"value":%q,"timestamp":"2024-01-03T00:00:00Z"}`, key, value)
	}
	v8 := sealSnapshot(3, 5,
		`{"format":"airlite-snapshot","version":8,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs","xcom"]}`,
		`{"table":"dags","rows":1}`,
		`{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
		`{"table":"dag_runs","rows":1}`,
		`{"id":1,"dag_id":"d","run_id":"a","execution_date":"2024-01-03T00:00:00Z","state":"success","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
		`{"table":"xcom","rows":3}`,
		xcom("s", `"hello"`), xcom("o", `{"b": [1, 2.50], "a": null}`), xcom("api", string(apiText)),
	)
	want := map[string]struct{ stored, native string }{
		"s":   {`"hello"`, `"hello"`},
		"o":   {`{"b": [1, 2.50], "a": null}`, `{"b":[1,2.5],"a":null}`},
		"api": {string(apiText), `"{\"k\": \"v\"}"`},
	}
	check := func(t *testing.T, store *Store) {
		t.Helper()
		for key, w := range want {
			e, err := store.XCom("d", "a", "t", key, -1)
			if err != nil {
				t.Fatalf("xcom %s: %v", key, err)
			}
			native, err := v2XComNative(xcomRead{XComEntry: e})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(native.Value)
			if err != nil {
				t.Fatal(err)
			}
			if string(e.Value) != w.stored || string(got) != w.native {
				t.Errorf("xcom %s: stored %s, reads %s; want %s, %s", key, e.Value, got, w.stored, w.native)
			}
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "v8.json")
	if err := os.WriteFile(path, v8, 0o600); err != nil {
		t.Fatal(err)
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatalf("restore version 8: %v", err)
	}
	check(t, store)
	again := filepath.Join(dir, "now.json")
	if _, err := writeSnapshot(store, again, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, fmt.Appendf(nil, `"version":%d`, snapshotVersion)) || snapshotVersion < 9 {
		t.Errorf("written again: want version %d (9 or later):\n%s", snapshotVersion, data)
	}
	restored, _, err := restoreSnapshot(t.Context(), again)
	if err != nil {
		t.Fatalf("restore version %d: %v", snapshotVersion, err)
	}
	check(t, restored)
}
