package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// globTemps lists every file named like a temporary file of path.
func globTemps(t *testing.T, path string) []string {
	t.Helper()
	tmps, err := filepath.Glob(path + ".tmp*")
	if err != nil {
		t.Fatal(err)
	}
	return tmps
}

// A reader polling the target sees one whole version or the next, never a
// part, while versions are committed one after another in small writes.
func TestAtomicFile_CommitReplacesAtomically(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	const size = 256 << 10
	version := func(v byte) []byte { return bytes.Repeat([]byte{v}, size) }
	if err := os.WriteFile(path, version('a'), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads int
	var bad []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			reads++
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			if len(data) != size || bytes.Count(data, data[:1]) != size {
				bad = append(bad, "a partial or mixed file")
			}
		}
	}()
	for v := byte('b'); v <= 'k'; v++ {
		a, err := createAtomic(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		data := version(v)
		for i := 0; i < len(data); i += 1000 {
			if _, err := a.Write(data[i:min(i+1000, len(data))]); err != nil {
				t.Fatal(err)
			}
		}
		if a.Size() != size {
			t.Errorf("Size = %d, want %d", a.Size(), size)
		}
		if err := a.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := a.Abort(); err != nil { // deferred after a commit: nothing
			t.Errorf("Abort after Commit = %v", err)
		}
	}
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d of %d reads saw no whole version: %v", len(bad), reads, bad[0])
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, version('k')) {
		t.Error("the last committed version is not in place")
	}
	if tmps := globTemps(t, path); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

func TestAtomicFile_Modes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644} {
		path := filepath.Join(dir, perm.String())
		if err := os.WriteFile(path, []byte("old"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(path, []byte("new\n"), perm); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != perm {
			t.Errorf("mode %v, want %v", info.Mode().Perm(), perm)
		}
	}
}

func TestAtomicFile_AbortKeepsOldFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := createAtomic(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write(bytes.Repeat([]byte("new"), 100_000)); err != nil { // past the buffer: on disk
		t.Fatal(err)
	}
	if tmps := globTemps(t, path); len(tmps) != 1 || tmps[0] != a.TempName() {
		t.Fatalf("temporary files %v while writing, want %s", tmps, a.TempName())
	}
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("target after Abort = %q, want the old content", data)
	}
	if tmps := globTemps(t, path); len(tmps) != 0 {
		t.Errorf("temporary files left after Abort: %v", tmps)
	}
	if err := a.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if _, err := a.Write([]byte("x")); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("target after a late Commit = %q, want the old content", data)
	}
}

// A write that fails half way leaves the old file and no temporary file,
// whether the caller commits or aborts.
func TestAtomicFile_ErrorMidwayLeavesNoTemp(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"commit", "abort"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			a, err := createAtomic(path, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Write([]byte("first part\n")); err != nil {
				t.Fatal(err)
			}
			a.f.Close() // the disk goes away under the writer
			if _, err := a.Write(bytes.Repeat([]byte("x"), 1<<20)); err == nil {
				t.Fatal("a write to a closed file succeeded")
			}
			switch end {
			case "commit":
				if err := a.Commit(); err == nil {
					t.Fatal("Commit after a failed write succeeded")
				}
				_ = a.Abort() // the caller's defer
			case "abort":
				_ = a.Abort()
			}
			if data, _ := os.ReadFile(path); string(data) != "old\n" {
				t.Errorf("target = %q, want the old content", data)
			}
			if tmps := globTemps(t, path); len(tmps) != 0 {
				t.Errorf("temporary files left: %v", tmps)
			}
		})
	}
}

// Commit syncs the folder after the rename, and says so when that fails:
// the new content is in place, its durability in doubt.
func TestAtomicFile_SyncsFolderAfterRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	a, err := createAtomic(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var synced []string
	a.syncDir = func(d string) error {
		data, _ := os.ReadFile(path)
		synced = append(synced, d+" holding "+string(data))
		return syncDir(d)
	}
	if _, err := a.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if want := dir + " holding new"; len(synced) != 1 || synced[0] != want {
		t.Errorf("folder syncs %q, want one, of %q after the rename", synced, want)
	}

	b, err := createAtomic(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("fsync: input/output error")
	b.syncDir = func(string) error { return broken }
	if _, err := b.Write([]byte("newer")); err != nil {
		t.Fatal(err)
	}
	err = b.Commit()
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "sync folder") {
		t.Errorf("Commit = %v, want the folder sync's error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "newer" {
		t.Errorf("target = %q: the rename comes before the folder sync", data)
	}
}

// Two writers of one file never share a temporary file: each commits its
// own whole content, and the last rename wins.
func TestAtomicFile_UniqueTempNames(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	a, err := createAtomic(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	b, err := createAtomic(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if a.TempName() == b.TempName() {
		t.Fatalf("both writers use %s", a.TempName())
	}
	if filepath.Dir(a.TempName()) != filepath.Dir(path) || !strings.HasPrefix(filepath.Base(a.TempName()), "state.json.tmp") {
		t.Errorf("temporary file %s: want state.json.tmp* beside the target", a.TempName())
	}
	a.Write([]byte("from a"))
	b.Write([]byte("from b"))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "from b" {
		t.Errorf("target = %q, want the last commit's", data)
	}
}
