//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// lockFileNow takes an exclusive flock on f without waiting;
// errLockHeld when another open file holds it. The kernel lets go of it
// when the file closes, however the process ends.
func lockFileNow(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}
