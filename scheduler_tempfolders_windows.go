//go:build windows

package main

// Windows has no flock on a folder (LockFileEx locks bytes of a file's
// data, which a folder has none of): airlite's temp folders there are
// made without a lock, as on a filesystem without flock. Each is removed
// at its user's end, as everywhere; a folder an airlite killed outright
// left in %TEMP% stays there, since no later start can tell it from a
// live instance's (Windows' own Storage Sense or Disk Cleanup ages such
// folders out).

import (
	"fmt"
	"os"
)

// lockFolder: errFolderLockUnsupported, always.
func lockFolder(path string, exclusive bool) (*os.File, error) {
	return nil, &os.PathError{Op: "lock", Path: path, Err: fmt.Errorf("%w: windows", errFolderLockUnsupported)}
}

// ownedByMe: never asked (no folder is swept without a lock).
func ownedByMe(os.FileInfo) bool { return false }
