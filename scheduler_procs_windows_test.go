//go:build windows

package main

import (
	"os"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// What the tests ask of the system about processes, on Windows (the Unix
// twin is scheduler_procs_unix_test.go). Windows has no process groups
// and no zombies: a "group" is the Job Object airlite made for its first
// process (scheduler_procs_windows.go).

// stillActive is the exit code GetExitCodeProcess gives a running process.
const stillActive = 259

// processExists: pid names a process that has not exited.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// killPID kills one process (a test's cleanup of what outlived a check).
func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// mkfifo: Windows has no named pipes in the file system.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skip("Windows has no FIFOs in its file system")
}

// childCPU: Windows keeps no total of the ended children's time (no
// RUSAGE_CHILDREN), so the benchmark reports none.
func childCPU() (time.Duration, bool) { return 0, false }

// maxRSSMB: not measured on Windows (no getrusage).
func maxRSSMB() (float64, bool) { return 0, false }

// readProcStat reads what Windows knows of a running process: its parent
// (a Toolhelp snapshot); state 'R' while it runs; no group (0).
func readProcStat(pid int) (procStat, bool) {
	if !processExists(pid) {
		return procStat{}, false
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return procStat{}, false
	}
	defer windows.CloseHandle(snap)
	entry := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &entry); err == nil; err = windows.Process32Next(snap, &entry) {
		if entry.ProcessID == uint32(pid) {
			return procStat{state: 'R', ppid: int(entry.ParentProcessID)}, true
		}
	}
	return procStat{}, false
}

// assertGroupGone checks that the job airlite made for pgid has been
// ended and let go of (its processes die with it: kill on close), and
// that pgid itself no longer runs.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	jobs.Lock()
	_, held := jobs.m[pgid]
	jobs.Unlock()
	if held {
		t.Errorf("the job of process %d is still held", pgid)
	}
	if processExists(pgid) {
		t.Errorf("process %d still runs", pgid)
	}
}
