//go:build unix && !linux

package main

// Task processes on macOS and the BSDs: each try still runs in its
// own process group, killed whole on a stop, a timeout or a reset; but
// there is no parent-death signal (a task outlives an airlite that is
// killed outright), no child subreaper, and no /proc to recognise a
// crashed instance's process groups at the next start.

import (
	"errors"
	"syscall"
)

func taskProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func becomeSubreaper() error {
	return errors.New("become child subreaper: not supported on this system")
}

func processIdentity(int) string { return "" }

func killOrphanedGroup(int, string) int { return 0 }

func reapAdopted(*taskProcesses) int { return 0 }

func killAdopted(*taskProcesses) int { return 0 }

// seqpacketPair opens a connected pair of message sockets that no other
// child inherits: without SOCK_CLOEXEC (macOS has none), under the fork
// lock so that no exec starts between the pair's birth and its flags.
// Where the system has no SOCK_SEQPACKET for local sockets, the error
// makes the caller run each Python try in a process of its own.
func seqpacketPair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET, 0)
	if err != nil {
		return fds, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}
