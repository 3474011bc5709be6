//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFolder opens the folder at path (never through a symlink) and
// flocks it without waiting. errTempFolderTaken: held elsewhere, gone, or
// no longer the folder that was opened.
func lockFolder(path string, exclusive bool) (*os.File, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
			return nil, errTempFolderTaken
		}
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errTempFolderTaken
		}
		if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL) {
			err = fmt.Errorf("%w: %w", errFolderLockUnsupported, err)
		}
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	// The name may have been removed (and made again) between the open
	// and the lock: the lock must be on what the name is now.
	held, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, errTempFolderTaken
	}
	return f, nil
}

// ownedByMe: the file's owner is this process's user.
func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
