package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// definitionsFiles are the definitions files beside the snapshot at path.
func definitionsFiles(t *testing.T, path string) []string {
	t.Helper()
	files, err := filepath.Glob(path + definitionsInfix + "*")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// snapshotDigest is the definitions digest the header of the snapshot at
// path holds.
func snapshotDigest(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var header snapshotHeader
	if err := json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &header); err != nil {
		t.Fatal(err)
	}
	return header.Definitions
}

// The definitions file is written when the DAGs' definitions change, not
// at every snapshot: a snapshot after a trigger names the same file,
// which is not written again; a file read again with a change makes a
// new one and the old one goes once a snapshot names the new one.
// Edition 2 keeps no definitions: no file, no digest.
func TestSnapshotDefinitions_WrittenOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
	path := filepath.Join(t.TempDir(), "snapshot.json")
	write := func() (string, os.FileInfo) {
		t.Helper()
		if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
			t.Fatal(err)
		}
		digest := snapshotDigest(t, path)
		files := definitionsFiles(t, path)
		if len(files) != 1 || files[0] != definitionsPath(path, digest) {
			t.Fatalf("definitions files %v, want the one of digest %q alone", files, digest)
		}
		info, err := os.Stat(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return digest, info
	}
	first, firstFile := write()
	s.ts.v2(t, http.MethodPost, "/dags/alpha/dagRuns", `{"logical_date": null}`, http.StatusOK)
	s.ts.v2(t, http.MethodPatch, "/dags/beta", `{"is_paused": true}`, http.StatusOK)
	second, secondFile := write()
	if second != first || !os.SameFile(firstFile, secondFile) {
		t.Errorf("after a trigger and a pause: digest %s (was %s), same file %v; want the same file, not written again",
			second, first, os.SameFile(firstFile, secondFile))
	}

	s.folder.write(t, "beta.yaml", reloadDAG("beta", "second"))
	s.pass(t, time.Second, true)
	third, _ := write()
	if third == first {
		t.Errorf("beta changed: digest still %s", third)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if row, err := restored.DagByID("beta"); err != nil || row.Kept == nil || !strings.Contains(row.Kept.Data, "task_id: second") {
		t.Errorf("restored beta keeps %+v (%v), want its second definition", row, err)
	}

	// Edition 2: nothing kept, nothing beside the snapshot.
	two := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	path2 := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(two.ts.store, path2, testNow); err != nil {
		t.Fatal(err)
	}
	if digest, files := snapshotDigest(t, path2), definitionsFiles(t, path2); digest != "" || len(files) != 0 {
		t.Errorf("edition 2: digest %q, files %v; want none", digest, files)
	}
}

// A definitions file gone or damaged costs only the definitions: the
// snapshot restores, says why the definitions are lost, and a DAG whose
// file went answers 404, as before airlite kept definitions; the DAGs
// whose files are there are read from them.
func TestSnapshotDefinitions_LostFileRestoresWithout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		spoil   func(t *testing.T, file string)
		problem string
	}{
		{"gone", func(t *testing.T, file string) {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
		}, "no such file"},
		{"damaged", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("echo first"), []byte("echo FIRST"), 1)
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "SHA-256"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, definitionsPath(path, snapshotDigest(t, path)))
			_, stats, err := restoreSnapshot(t.Context(), path)
			if err != nil || stats.DefinitionsLost == nil || !strings.Contains(stats.DefinitionsLost.Error(), tc.problem) {
				t.Fatalf("restore = %v, definitions lost: %v; want restored, lost saying %q", err, stats.DefinitionsLost, tc.problem)
			}
			s.folder.remove(t, "beta.yaml")
			restarted := restartOver(t, edition3, s.folder.dir, path)
			restarted.v2(t, http.MethodGet, "/dags/beta", "", http.StatusNotFound)
			restarted.v2(t, http.MethodGet, "/dags/alpha", "", http.StatusOK)
		})
	}
}

// A snapshot of format 8 written before the definitions file, with a
// stale DAG's definition in its row, still restores it: the DAG answers
// stale with its definition.
func TestSnapshotDefinitions_InlineDefinitionRestores(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": taggedDAG("beta", "kept_tag", "null")})
	s.folder.remove(t, "beta.yaml")
	s.pass(t, time.Second, true)
	dir := t.TempDir()
	path := filepath.Join(dir, "snapshot.json")
	if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	defs, err := readDefinitions(path, snapshotDigest(t, path))
	if err != nil {
		t.Fatal(err)
	}
	// The older shape: beta's definition in its row, no digest, no file.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var header map[string]any
	end := bytes.IndexByte(data, '\n')
	if err := json.Unmarshal(data[:end], &header); err != nil {
		t.Fatal(err)
	}
	delete(header, "definitions")
	line, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	data = append(line, data[end:]...)
	old, _ := snapForge(t, data, tableDags, func(_ int, row map[string]any) bool { return row["dag_id"] == "beta" },
		func(row map[string]any) { row["definition"] = defs["beta"].record() })
	for _, f := range definitionsFiles(t, path) {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	restarted := restartOver(t, edition3, s.folder.dir, path)
	if v := v2JSON(t, restarted.v2(t, http.MethodGet, "/dags/beta", "", http.StatusOK)); v["is_stale"] != true {
		t.Errorf("beta restored from the older shape: is_stale = %v, want true", v["is_stale"])
	}
	restarted.v2(t, http.MethodGet, "/dags/beta/tasks/first", "", http.StatusOK)
	// Written again, its definition goes to the definitions file.
	again := filepath.Join(dir, "again.json")
	if _, err := writeSnapshot(restarted.store, again, testNow); err != nil {
		t.Fatal(err)
	}
	if got := keptDagIDs(t, again); got != "alpha,beta" {
		t.Errorf("written again: definitions of %s, want alpha,beta", got)
	}
}
