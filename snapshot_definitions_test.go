package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
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
	defs, err := restored.definitions.readRestored()
	if err != nil || defs["beta"] == nil {
		t.Fatalf("restored definitions %v (%v), want beta's", defs, err)
	}
	if kept, err := defs["beta"].decoded(); err != nil || !strings.Contains(kept.Data, "task_id: second") {
		t.Errorf("restored beta keeps %+v (%v), want its second definition", kept, err)
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
			restored, _, err := restoreSnapshot(t.Context(), path)
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			if _, lost := restored.definitions.readRestored(); lost == nil || !strings.Contains(lost.Error(), tc.problem) {
				t.Fatalf("definitions read when needed: lost %v, want lost saying %q", lost, tc.problem)
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
	defs, _, err := readDefinitions(path, snapshotDigest(t, path))
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
		func(row map[string]any) {
			kept, err := defs["beta"].decoded()
			if err != nil {
				t.Fatal(err)
			}
			row["definition"] = kept.record()
		})
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

// respellDefinitions rewrites the definition of dagID in the definitions
// file of the snapshot at path with edit, names the file by its new
// digest and the snapshot's header after it, as a writer would have.
func respellDefinitions(t *testing.T, path, dagID string, edit func(def map[string]any)) {
	t.Helper()
	old := definitionsPath(path, snapshotDigest(t, path))
	data, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	found := false
	for i, line := range lines[1:] {
		var rec map[string]any
		if len(line) == 0 || json.Unmarshal(line, &rec) != nil || rec["dag_id"] != dagID {
			continue
		}
		edit(rec["definition"].(map[string]any))
		out, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines[i+1], found = append(out, '\n'), true
	}
	if !found {
		t.Fatalf("no definition of %s in %s", dagID, old)
	}
	data = bytes.Join(lines, nil)
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])[:definitionsDigestLen]
	if err := os.WriteFile(definitionsPath(path, digest), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.IndexByte(snap, '\n')
	var header map[string]any
	if err := json.Unmarshal(snap[:end], &header); err != nil {
		t.Fatal(err)
	}
	header["definitions"] = digest
	line, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fixSnapshotCRC(append(line, snap[end:]...)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A start decodes only the kept definitions of the DAGs its files no
// longer give (starting fast matters: client suites start airlite per
// test): one of a DAG whose file is there is never read, so that even
// one airlite could not read costs nothing, and the DAG whose file went
// comes back stale with its definition. One it cannot read of a DAG
// whose file went costs that DAG alone its definition.
func TestSnapshotDefinitions_StartDecodesOnlyTheMissing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		spoil     string // the DAG whose kept definition airlite cannot read
		betaFound int    // GET /dags/beta once beta's file went
	}{
		{"a present DAG's", "alpha", http.StatusOK},
		{"the missing DAG's", "beta", http.StatusNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
				t.Fatal(err)
			}
			respellDefinitions(t, path, tc.spoil, func(def map[string]any) { def["format"] = "not-a-format" })
			restored, _, err := restoreSnapshot(t.Context(), path)
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			if _, lost := restored.definitions.readRestored(); lost != nil {
				t.Fatalf("definitions read when needed: lost %v, want them", lost)
			}
			// Written before a start builds them, the definitions not
			// decoded are written back byte for byte: the same digest.
			again := filepath.Join(t.TempDir(), "again.json")
			if _, err := writeSnapshot(restored, again, testNow); err != nil {
				t.Fatal(err)
			}
			if got, want := snapshotDigest(t, again), snapshotDigest(t, path); got != want {
				t.Errorf("restored and written again: digest %s, want %s", got, want)
			}
			s.folder.remove(t, "beta.yaml")
			restarted := restartOver(t, edition3, s.folder.dir, path)
			restarted.v2(t, http.MethodGet, "/dags/alpha/tasks/first", "", http.StatusOK)
			body := restarted.v2(t, http.MethodGet, "/dags/beta", "", tc.betaFound)
			if tc.betaFound == http.StatusOK {
				if v := v2JSON(t, body); v["is_stale"] != true {
					t.Errorf("beta: is_stale = %v, want true", v["is_stale"])
				}
			}
		})
	}
}

// --snapshot-bad=move moves the snapshot's definitions file with it, to
// <moved>.definitions-<digest>, so that the moved snapshot stays
// restorable as a pair (by the newer airlite that wrote it, or once
// repaired) and the next snapshot, which removes the definitions files
// beside its own path but its own, leaves it alone.
func TestSnapshotDefinitions_MovedWithABadSnapshot(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
	s.folder.remove(t, "beta.yaml")
	s.pass(t, time.Second, true)
	dir := t.TempDir()
	path := filepath.Join(dir, "snapshot.json")
	if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	digest := snapshotDigest(t, path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	this, next := fmt.Sprintf(`"version":%d`, snapshotVersion), fmt.Sprintf(`"version":%d`, snapshotVersion+1)
	if err := os.WriteFile(path, bytes.Replace(good, []byte(this), []byte(next), 1), 0o600); err != nil {
		t.Fatal(err)
	}

	logger := zerolog.New(zerolog.NewTestWriter(t))
	set, err := loadDAGSet(t.Context(), s.folder.dir, edition3, logger)
	if err != nil {
		t.Fatal(err)
	}
	c := config{DagsDir: s.folder.dir, Edition: edition3, Python: "python3", Home: dir, Snapshot: path,
		SnapshotInterval: time.Hour, SnapshotBad: snapshotBadMove}
	store, _, err := openStore(t.Context(), c, set, logger)
	if err != nil {
		t.Fatalf("openStore with --snapshot-bad=move: %v", err)
	}
	// The new state's first snapshot sweeps the definitions files beside
	// its path.
	if _, err := writeSnapshot(store, path, testNow); err != nil {
		t.Fatal(err)
	}
	moved, _ := filepath.Glob(path + ".bad-*[0-9]Z")
	if len(moved) != 1 {
		t.Fatalf("moved snapshots %v, want one", moved)
	}
	if files := definitionsFiles(t, moved[0]); len(files) != 1 || files[0] != definitionsPath(moved[0], digest) {
		t.Fatalf("definitions files beside the moved snapshot %v, want %s", files, definitionsPath(moved[0], digest))
	}
	// Read by an airlite of its version, the pair gives beta's definition.
	if err := os.WriteFile(moved[0], good, 0o600); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), moved[0])
	if err != nil {
		t.Fatalf("restore the moved snapshot: %v", err)
	}
	if defs, err := restored.definitions.readRestored(); err != nil || defs["beta"] == nil {
		t.Errorf("the moved snapshot's definitions %v (%v), want beta's", defs, err)
	}
}

// A definitions file's line is cut as the writer lays it out, and
// decoded whole when laid out otherwise: the same id and definition.
func TestSnapshotDefinitions_SplitLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, line, wantID, wantDef string
		fails                       bool
	}{
		{"as written", `{"dag_id":"alpha","definition":{"format":"yaml","data":"}"}}`, "alpha", `{"format":"yaml","data":"}"}`, false},
		{"escaped id", `{"dag_id":"a\"b","definition":{"format":"yaml"}}`, `a"b`, `{"format":"yaml"}`, false},
		{"other order", `{"definition":{"format":"yaml"},"dag_id":"beta"}`, "beta", `{"format":"yaml"}`, false},
		{"spaces", `{ "dag_id": "gamma", "definition": {"format":"yaml"} }`, "gamma", `{"format":"yaml"}`, false},
		{"not JSON", `{"dag_id":"alpha",`, "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, def, err := splitDefinitionLine([]byte(tc.line))
			if tc.fails {
				if err == nil {
					t.Fatalf("split %s = %q, %s; want an error", tc.line, id, def)
				}
				return
			}
			if err != nil || id != tc.wantID || string(def) != tc.wantDef {
				t.Errorf("split %s = %q, %s, %v; want %q, %s", tc.line, id, def, err, tc.wantID, tc.wantDef)
			}
		})
	}
}

// A change of definitions streams them to the temporary file, hashing
// them on the way, where it held the whole file in memory (43.6 MB
// allocated for 17.4 MB of 1,000 Python DAGs' definitions): writing 8 MB
// of definitions allocates far less than the file. Not parallel: it
// reads the process's allocation counter.
func TestSnapshotDefinitions_WriteStreams(t *testing.T) {
	files := map[string]string{}
	comment := "# " + strings.Repeat("x", 1<<10) + "\n"
	for i := range 16 {
		id := fmt.Sprintf("big_%02d", i)
		files[id+".yaml"] = reloadDAG(id) + strings.Repeat(comment, 256) // 256 KB a file, twice in its definition
	}
	s := newReloadSetup(t, edition3, files)
	refs, err := definitionRefs(s.ts.store.Snapshot(), &s.ts.store.definitions)
	if err != nil {
		t.Fatal(err)
	}
	// The counter is the process's: the setup's server and scheduler
	// allocate beside the write now and then, never less. The least of
	// three writes (each a new writer into a new folder) is the write's.
	var path, digest string
	allocated := ^uint64(0)
	for range 3 {
		path = filepath.Join(t.TempDir(), "snapshot.json")
		var w definitionsWritten
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		digest, err = w.write(path, refs)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
	}
	info, err := os.Stat(definitionsPath(path, digest))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("writing %d bytes of definitions allocated %d bytes", info.Size(), allocated)
	// The race detector's instrumentation allocates what escape analysis
	// would keep on the stack (5.5 MB for this 4.2 MB file where a plain
	// build allocates under 1 MB): the bound holds in plain builds only.
	// A plain build allocates about 0.23 of the file (a definition's line
	// buffer, 512 KB here, grown by doubling); holding the file allocated
	// twice its size: half the file tells the two apart with room.
	if !raceBuild && allocated > uint64(info.Size())/2 {
		t.Errorf("writing %d bytes of definitions allocated %d bytes, want under half the file", info.Size(), allocated)
	}
	// The name is the digest of the bytes, as before: they read back.
	defs, _, err := readDefinitions(path, digest)
	if err != nil || len(defs) != len(files) {
		t.Fatalf("read back %d definitions (%v), want %d", len(defs), err, len(files))
	}
	if temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// A definitions file damaged on disk (or gone) under the name the next
// snapshot gives it is written again, not taken for the right one
// because of its name: so that a later start over a folder without one
// of the DAGs builds it from what was kept, stale, instead of losing its
// definition (404). Same writer: the snapshot after the damage, the
// definitions unchanged, notices the file is not the one it wrote (its
// size, modification time or inode); new writer: one that did not write
// the file (a new process's) and encodes the same bytes does not take a
// file it has not checked for its own.
func TestSnapshotDefinitions_DamagedFileWrittenAgain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		spoil func(t *testing.T, file string)
	}{
		{"bit flip", func(t *testing.T, file string) {
			info, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("echo first"), []byte("echo FIRST"), 1)
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
			// Written later than the file: the same size, in place; a
			// filesystem's clock ticks coarser than this test runs.
			later := info.ModTime().Add(time.Second)
			if err := os.Chtimes(file, later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// Another file renamed over it, as an editor saves: the same
			// size and, within a clock tick, the same time.
			other := file + ".edit"
			if err := os.WriteFile(other, bytes.Replace(data, []byte("echo first"), []byte("echo FIRST"), 1), 0o600); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(other, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, file); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, file string) {
			info, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(file, info.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"gone", func(t *testing.T, file string) {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		for _, fresh := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, map[bool]string{false: "same writer", true: "new writer"}[fresh]), func(t *testing.T) {
				t.Parallel()
				s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
				path := filepath.Join(t.TempDir(), "snapshot.json")
				if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
					t.Fatal(err)
				}
				digest := snapshotDigest(t, path)
				tc.spoil(t, definitionsPath(path, digest))
				if fresh {
					s.ts.store.definitions = definitionsWritten{}
				}
				if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
					t.Fatal(err)
				}
				if got := snapshotDigest(t, path); got != digest {
					t.Fatalf("written again: digest %s, want %s (the same definitions)", got, digest)
				}
				if _, _, err := readDefinitions(path, digest); err != nil {
					t.Errorf("the definitions file after the next snapshot: %v; want it whole", err)
				}

				s.folder.remove(t, "beta.yaml")
				again := restartOver(t, edition3, s.folder.dir, path)
				body := again.v2(t, http.MethodGet, "/dags/beta", "", http.StatusOK)
				if v := v2JSON(t, body); v["is_stale"] != true {
					t.Errorf("beta: is_stale = %v, want true", v["is_stale"])
				}
			})
		}
	}
}

// The snapshot on disk names, at every moment, a definitions file that is
// there whole, which is what a crash (SIGKILL) can leave: the writer
// commits the definitions file (synced, renamed, its folder synced)
// before the snapshot that names it, and removes the earlier ones only
// once that snapshot is committed (synced, renamed, folder synced). A
// reader beside the writer looks at every state between: a header read
// whose file is missing or not whole while the snapshot still names it
// would be a snapshot that a crash there leaves without its definitions.
// The syncs' own order (file before rename, folder after) is
// TestAtomicFile_SyncsFolderAfterRename's.
func TestSnapshotDefinitions_NamedFileAlwaysWhole(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	checked := make(chan int)
	go func() {
		n := 0
		defer func() { checked <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			digest := snapshotDigestOrEmpty(path)
			_, _, err := readDefinitions(path, digest)
			if err != nil && snapshotDigestOrEmpty(path) == digest {
				t.Errorf("the snapshot names definitions file %s, which is not there whole: %v", digest, err)
				return
			}
			n++
		}
	}()
	digests := map[string]bool{snapshotDigest(t, path): true}
	for i := range 40 {
		extra := []string{}
		if i%2 == 0 {
			extra = append(extra, "second")
		}
		s.folder.write(t, "beta.yaml", reloadDAG("beta", extra...))
		s.pass(t, time.Second, true)
		if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
			t.Fatal(err)
		}
		digests[snapshotDigest(t, path)] = true
	}
	close(done)
	if n := <-checked; n == 0 {
		t.Error("the reader checked no state")
	}
	if len(digests) != 41 {
		t.Errorf("%d definitions files named in 41 snapshots, want a new one at each change", len(digests))
	}
	if files := definitionsFiles(t, path); len(files) != 1 {
		t.Errorf("definitions files left %v, want the last one alone", files)
	}
}

// snapshotDigestOrEmpty is snapshotDigest for a reader beside a writer:
// "" when the snapshot cannot be read.
func snapshotDigestOrEmpty(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var header snapshotHeader
	if i := bytes.IndexByte(data, '\n'); i < 0 || json.Unmarshal(data[:i], &header) != nil {
		return ""
	}
	return header.Definitions
}

// A start reads the definitions file only when a restored DAG is one its
// files no longer give: then it needs that DAG's definition, and finds a
// damaged file, says so, and goes on without (404 for the DAG). When the
// files give every DAG, none is needed and the file is not read: a
// damaged one is not even noticed, and costs nothing, since the start's
// first snapshot writes its own (TestSnapshotDefinitions_DamagedFileWrittenAgain).
func TestSnapshotDefinitions_StartReadsTheFileOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		remove   string // a DAG file gone before the start
		wantLost bool   // the start says it went on without the definitions
	}{
		{"every file there", "", false},
		{"a file gone", "beta.yaml", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(s.ts.store, path, testNow); err != nil {
				t.Fatal(err)
			}
			file := definitionsPath(path, snapshotDigest(t, path))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data[:len(data)/2], 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.remove != "" {
				s.folder.remove(t, tc.remove)
			}
			var logs bytes.Buffer
			logger := zerolog.New(io.MultiWriter(&logs, zerolog.NewTestWriter(t)))
			set, err := loadDAGSet(t.Context(), s.folder.dir, edition3, logger)
			if err != nil {
				t.Fatal(err)
			}
			c := config{DagsDir: s.folder.dir, Edition: edition3, Python: "python3", Home: filepath.Dir(path), Snapshot: path,
				SnapshotInterval: time.Hour, SnapshotBad: snapshotBadRefuse}
			store, _, err := openStore(t.Context(), c, set, logger)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			if lost := strings.Contains(logs.String(), "damaged"); lost != tc.wantLost {
				t.Errorf("the start said the definitions file is damaged: %v, want %v; logs:\n%s", lost, tc.wantLost, logs.String())
			}
			if tc.remove != "" {
				if row, err := store.DagByID("beta"); err != nil || row.Def != nil || row.Stale {
					t.Errorf("beta = %+v (%v), want its row without a definition, not stale", row, err)
				}
			}
		})
	}
}
