//go:build !linux

package main

// Task processes on systems other than Linux: each try still runs in its
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
