//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What the tests ask of the system about processes, on Unix (the
// Windows twin is scheduler_procs_windows_test.go).

// processExists: pid names a process, a zombie included (signal 0).
func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }

// killPID kills one process (a test's cleanup of what outlived a check).
func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// mkfifo makes a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// childCPU is the user and system time of the ended child processes.
func childCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// maxRSSMB is this process's peak resident set (Linux counts ru_maxrss
// in KiB).
func maxRSSMB() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Maxrss) / 1024, true
}

// A recorded process group is never airlite's own, whatever the record
// (a snapshot from another host, or a forged one) says. The check runs in
// a child process that leads a group of its own, so that a broken guard
// kills that child only.
func TestKillOrphanedGroup_NeverOwnGroup(t *testing.T) {
	t.Parallel()
	if processIdentity(os.Getpid()) == "" {
		t.Skip("no /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillOrphanedGroup_Helper$")
	cmd.Env = append(os.Environ(), "AIRLITE_TEST_OWN_GROUP=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "killed 0") {
		t.Fatalf("the child asked to end its own group: %v\n%s", err, out)
	}
}

// TestKillOrphanedGroup_Helper is the child of NeverOwnGroup.
func TestKillOrphanedGroup_Helper(t *testing.T) {
	if os.Getenv("AIRLITE_TEST_OWN_GROUP") != "1" {
		t.Skip("only runs as a child process")
	}
	// An identity from this boot's first tick matches every process of
	// the group; the guard must still refuse.
	boot, _, _ := strings.Cut(processIdentity(os.Getpid()), "/")
	fmt.Printf("killed %d\n", killOrphanedGroup(syscall.Getpgrp(), boot+"/0"))
}
