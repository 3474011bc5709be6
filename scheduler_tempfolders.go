package main

// airlite's folders in $TMPDIR: the Python task program (one a process),
// a try's working folder (one a try) and a DAG parse's copy of the
// program (one a parse). Each is removed when its user ends; an airlite
// killed outright (SIGKILL, the OOM killer) cannot, so the next start
// removes what a dead instance left.
//
// Telling a dead instance's folder from a live one's: the instance holds
// a flock on each of its folders for as long as it uses it, and the
// kernel lets go of the lock when the process ends, however it ends. A
// pid in the name would not do: pids are reused, and an airlite that is
// a container's first process is pid 1 at every start. The name carries
// the pid anyway, for the operator who looks, and marks a folder made
// with a lock: folders of airlite releases that took no lock
// ("airlite-task-123") are never removed, since an old instance may be
// using one.
//
// systemd-tmpfiles' ageing also skips a folder it cannot flock
// (tmpfiles.d(5)), so a long-running instance's program is not aged away
// under it either.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
)

// Kinds of temp folder (the name is airlite-KIND-PID-RANDOM).
const (
	tempFolderProgram = "python-task" // the Python task program, a process's
	tempFolderTry     = "task"        // a try's working folder
	tempFolderParse   = "python"      // a DAG parse's copy of the program
)

// tempFolderKinds are the kinds a start may remove.
var tempFolderKinds = []string{tempFolderProgram, tempFolderTry, tempFolderParse}

var (
	// errTempFolderTaken: another instance's sweep locked the folder in
	// the instant after it was made (and removes it).
	errTempFolderTaken = errors.New("temp folder taken by a sweep")
	// errFolderLockUnsupported: the filesystem (or the system: Windows)
	// has no lock on a folder.
	errFolderLockUnsupported = errors.New("no folder lock here")
)

// tempFolder is a folder airlite made in $TMPDIR and uses until remove.
type tempFolder struct {
	path string
	// lock is the folder itself, open and flocked (shared) until remove;
	// nil where the filesystem has no flock (such a folder is never swept).
	lock *os.File
}

// makeTempFolder makes a folder of kind in $TMPDIR (mode 0700, a new
// name: never a folder that was there, which anyone could have made) and
// locks it.
func makeTempFolder(kind string) (*tempFolder, error) {
	return makeTempFolderIn(os.TempDir(), kind)
}

func makeTempFolderIn(parent, kind string) (*tempFolder, error) {
	pattern := fmt.Sprintf("airlite-%s-%d-", kind, os.Getpid())
	var err error
	for range 3 {
		var path string
		path, err = os.MkdirTemp(parent, pattern)
		if err != nil {
			return nil, err
		}
		var lock *os.File
		lock, err = lockFolder(path, false)
		switch {
		case err == nil:
			return &tempFolder{path: path, lock: lock}, nil
		case errors.Is(err, errTempFolderTaken):
			// A sweep in another instance found it unlocked in its first
			// instant: it is theirs to remove; take another name.
			continue
		case errors.Is(err, errFolderLockUnsupported):
			// No flock on this filesystem: the folder still goes at the
			// stop; only a crash leaves it, as it did before locks.
			return &tempFolder{path: path}, nil
		default:
			os.RemoveAll(path)
			return nil, err
		}
	}
	return nil, err
}

// remove removes the folder, then lets go of its lock.
func (f *tempFolder) remove() error {
	err := os.RemoveAll(f.path)
	if f.lock != nil {
		f.lock.Close()
	}
	if err != nil {
		return fmt.Errorf("remove temp folder: %w", err)
	}
	return nil
}

// sweepTempFolders removes from parent the folders of the given kinds
// that an airlite left when it died: named as makeTempFolder names them,
// a folder (no symlink), this user's, and unlocked. A live instance's
// folders are locked, this process's too (a flock belongs to the open
// file, not the process). It returns the names removed.
func sweepTempFolders(parent string, kinds []string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("sweep temp folders: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !isTempFolderName(e.Name(), kinds) {
			continue // ReadDir's type is the entry's own: a symlink is no dir
		}
		path := filepath.Join(parent, e.Name())
		lock, err := lockFolder(path, true)
		if err != nil {
			continue // in use, gone, or not lockable here: left alone
		}
		if info, err := lock.Stat(); err != nil || !ownedByMe(info) {
			lock.Close()
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, e.Name())
		}
		lock.Close()
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("sweep temp folders: %w", errors.Join(errs...))
	}
	return removed, nil
}

// isTempFolderName: airlite-KIND-PID-RANDOM, KIND one of kinds.
func isTempFolderName(name string, kinds []string) bool {
	rest, ok := strings.CutPrefix(name, "airlite-")
	if !ok {
		return false
	}
	for _, kind := range kinds {
		tail, ok := strings.CutPrefix(rest, kind+"-")
		if !ok {
			continue
		}
		pid, random, ok := strings.Cut(tail, "-")
		if ok && isDigits(pid) && isDigits(random) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// sweepStaleTempFolders is the start's sweep of $TMPDIR, logged.
func sweepStaleTempFolders(logger zerolog.Logger) {
	removed, err := sweepTempFolders(os.TempDir(), tempFolderKinds)
	if len(removed) > 0 {
		logger.Info().Strs("folders", removed).Str("in", os.TempDir()).
			Msg("removed the temp folders of airlite instances that ended without a stop")
	}
	if err != nil {
		logger.Warn().Err(err).Msg("temp folders of ended instances left in place")
	}
}
