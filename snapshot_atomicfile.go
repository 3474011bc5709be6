package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// atomicFile is how airlite writes every file it keeps (the snapshot, the
// id lease, the ready file): readers see the old content or the new, never
// a part, and after a crash the old file is still there. It follows raft's
// FileSnapshotSink: the bytes go to a temporary file with a unique name in
// the target's folder; Commit flushes, syncs and closes it, renames it
// over the target and syncs the folder, so that the rename survives a
// power cut; Abort closes and removes it.
//
// Callers defer Abort right after createAtomic: after a Commit it does
// nothing, and on any early return it leaves no temporary file behind.
type atomicFile struct {
	path string // the file Commit replaces
	f    *os.File
	w    *bufio.Writer
	n    int64 // bytes written
	done bool  // committed or aborted

	// syncDir makes the rename durable; tests replace it to see it called
	// or to make it fail.
	syncDir func(dir string) error
}

// atomicTempPattern is the name of a temporary file of path, for
// os.CreateTemp: "snapshot.json.tmp" followed by random digits.
func atomicTempPattern(path string) string { return filepath.Base(path) + ".tmp*" }

// atomicTemps lists the temporary files of path that are in its folder:
// "<name>.tmp" followed by digits, or nothing (the name airlite used
// before temporary names were unique). Only a crash leaves them.
func atomicTemps(path string) ([]string, error) {
	matches, err := filepath.Glob(path + ".tmp*")
	if err != nil {
		return nil, err
	}
	var temps []string
	for _, m := range matches {
		digits := strings.TrimPrefix(filepath.Base(m), filepath.Base(path)+".tmp")
		if strings.Trim(digits, "0123456789") == "" {
			temps = append(temps, m)
		}
	}
	return temps, nil
}

// createAtomic starts writing path: a new temporary file beside it with
// mode perm (set as given, whatever the umask).
func createAtomic(path string, perm os.FileMode) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), atomicTempPattern(path))
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &atomicFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10), syncDir: syncDir}, nil
}

// Write buffers p for the temporary file.
func (a *atomicFile) Write(p []byte) (int, error) {
	if a.done {
		return 0, os.ErrClosed
	}
	n, err := a.w.Write(p)
	a.n += int64(n)
	return n, err
}

// Size is the number of bytes written so far.
func (a *atomicFile) Size() int64 { return a.n }

// TempName is the temporary file's path.
func (a *atomicFile) TempName() string { return a.f.Name() }

// Commit puts what was written in place of the target: flush, sync,
// close, rename over the target, sync the folder. On an error before the
// rename the target is untouched and the temporary file removed; an
// error syncing the folder comes after the rename, when only its
// durability is in doubt.
func (a *atomicFile) Commit() error {
	if a.done {
		return os.ErrClosed
	}
	a.done = true
	err := a.w.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return err
	}
	if err := a.syncDir(filepath.Dir(a.path)); err != nil {
		return fmt.Errorf("sync folder of %s: %w", a.path, err)
	}
	return nil
}

// CommitAs is Commit to target in place of the path the file was
// created for: for a file named after its content (a definitions file,
// by its digest), known only once it is written. target must be in the
// same folder, for the rename to be atomic.
func (a *atomicFile) CommitAs(target string) error {
	if filepath.Dir(target) != filepath.Dir(a.path) {
		return fmt.Errorf("commit %s as %s: not in the same folder", a.path, target)
	}
	a.path = target
	return a.Commit()
}

// Abort closes and removes the temporary file and leaves the target as it
// was. After a Commit it does nothing.
func (a *atomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.f.Close()
	return os.Remove(a.f.Name())
}

// writeFileAtomic writes data to path through an atomicFile.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	a, err := createAtomic(path, perm)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write(data); err != nil {
		return err
	}
	return a.Commit()
}
