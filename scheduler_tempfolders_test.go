package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A sweep removes only the folders of ended instances: named by
// makeTempFolder, this user's, real folders, and unlocked. A live
// instance's (this process's included), an old release's lockless ones,
// another user's, a symlink and a file of such a name stay, and what a
// symlink points to is untouched.
func TestTempFolders_Sweep(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	outside := t.TempDir()
	precious := filepath.Join(outside, "precious")
	if err := os.WriteFile(precious, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}

	ended := func(kind string) string { // an instance that died: its lock is gone
		t.Helper()
		f, err := makeTempFolderIn(parent, kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(f.path, "pycache", "deep"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.path, "pycache", "deep", "x.pyc"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		f.lock.Close()
		return filepath.Base(f.path)
	}
	live := func(kind string) string {
		t.Helper()
		f, err := makeTempFolderIn(parent, kind)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.remove() })
		return filepath.Base(f.path)
	}
	made := func(name string, make func(path string) error) string {
		t.Helper()
		if err := make(filepath.Join(parent, name)); err != nil {
			t.Fatal(err)
		}
		return name
	}
	mkdir := func(path string) error { return os.Mkdir(path, 0o700) }

	wantGone := []string{ended(tempFolderProgram), ended(tempFolderTry), ended(tempFolderParse)}
	wantKept := []string{
		live(tempFolderProgram),
		live(tempFolderTry),
		ended("bin"), // a kind the sweep was not asked for
		made("airlite-python-task-1003935152", mkdir), // an old release's: no lock, maybe in use
		made("airlite-task-12-34-5", mkdir),
		made("airlite-task-12-x", mkdir),
		made("airlite-taskx-12-34", mkdir),
		made("other-task-12-34", mkdir),
		made("airlite-task-56-78", func(path string) error { return os.Symlink(outside, path) }),
		made("airlite-python-90-12", func(path string) error { return os.WriteFile(path, nil, 0o600) }),
	}
	if os.Getuid() == 0 { // only root can give a folder to another user
		wantKept = append(wantKept, made("airlite-task-34-56", func(path string) error {
			if err := os.Mkdir(path, 0o700); err != nil {
				return err
			}
			return os.Chown(path, 4242, 4242)
		}))
	}

	removed, err := sweepTempFolders(parent, tempFolderKinds)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	slices.Sort(wantGone)
	if !slices.Equal(removed, wantGone) {
		t.Errorf("removed %v, want %v", removed, wantGone)
	}
	left := folderNames(t, parent)
	slices.Sort(wantKept)
	if !slices.Equal(left, wantKept) {
		t.Errorf("left %v, want %v", left, wantKept)
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "keep" {
		t.Errorf("the symlink's target: %q, %v", b, err)
	}
}

// makeTempFolder's folder: named with the kind and the pid, this user's
// alone (0700), locked until remove, and gone after it.
func TestTempFolders_MakeAndRemove(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	f, err := makeTempFolderIn(parent, tempFolderTry)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(f.path)
	if prefix := fmt.Sprintf("airlite-task-%d-", os.Getpid()); !strings.HasPrefix(name, prefix) || !isTempFolderName(name, tempFolderKinds) {
		t.Errorf("name %q, want %s and digits", name, prefix)
	}
	info, err := os.Lstat(f.path)
	if err != nil {
		t.Fatal(err)
	}
	if !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want a folder with 0700", info.Mode())
	}
	if f.lock == nil {
		t.Fatal("no lock on the folder")
	}
	if _, err := lockFolder(f.path, true); err == nil {
		t.Error("a second lock (a sweep's) took the live folder")
	}
	if err := f.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.path); !os.IsNotExist(err) {
		t.Errorf("after remove: %v, want the folder gone", err)
	}
}
