//go:build windows

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockedByteHigh places the locked byte at offset 0x7fffffff<<32, far
// past the pid the file holds: a Windows byte-range lock is mandatory,
// and a lock on the pid would keep the next airlite from reading whose
// the lock is.
const lockedByteHigh = 0x7fffffff

// lockFileNow takes an exclusive lock on f without waiting (LockFileEx
// on one byte); errLockHeld when another open file holds it. Windows
// lets go of it when the handle closes, however the process ends.
func lockFileNow(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockedByteHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLockHeld
	}
	return err
}
