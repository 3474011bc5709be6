package main

// Task processes on Linux: each BashOperator try runs in its own process
// group, killed whole when airlite dies (parent-death signal on the
// leader) or stops it; airlite is a child subreaper, so that processes a
// task leaves behind come to it, not to init; and the group of a try
// that was running when airlite crashed is found again at the next start
// by its recorded identity and ended before anything runs.

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// taskProcAttr starts bash as the leader of a new process group that
// receives SIGKILL when airlite's thread that started it dies.
func taskProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// becomeSubreaper makes airlite the parent of the processes its tasks
// orphan (PR_SET_CHILD_SUBREAPER), so that they are reaped by the task
// reaper instead of living on under init.
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become child subreaper: %w", err)
	}
	return nil
}

var (
	bootIDOnce sync.Once
	bootID     string
)

// processIdentity names a process beyond its pid, which the kernel reuses:
// the boot it runs in and its start time in clock ticks since that boot.
// "" when /proc cannot tell.
func processIdentity(pid int) string {
	bootIDOnce.Do(func() {
		b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
		if err == nil {
			bootID = strings.TrimSpace(string(b))
		}
	})
	st, ok := readProcStat(pid)
	if !ok || bootID == "" {
		return ""
	}
	return bootID + "/" + strconv.FormatUint(st.startTicks, 10)
}

func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses,
	// so the fields start after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || len(f[0]) != 1 {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp, startTicks: start}, true
}

// eachProcess calls fn with every process /proc lists.
func eachProcess(fn func(pid int, st procStat)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok {
			fn(pid, st)
		}
	}
}

// killOrphanedGroup ends what is left of a task's process group, recorded
// as its leader's pid and identity: every process of that group started,
// in the same boot, no earlier than the leader. The leader itself is
// usually gone (the parent-death signal), its background children not. A
// group id is a pid, and the kernel hands a pid out again only once no
// process and no group uses it, so members that started after the
// recorded leader in this boot belong to that group. It returns how many
// processes it killed.
func killOrphanedGroup(pgid int, identity string) int {
	boot, ticks, ok := strings.Cut(identity, "/")
	leaderStart, err := strconv.ParseUint(ticks, 10, 64)
	processIdentity(pgid) // reads the boot id
	if !ok || err != nil || pgid <= 1 || boot != bootID {
		return 0 // another boot: every process of that one is gone
	}
	if pgid == syscall.Getpgrp() || pgid == os.Getpid() {
		return 0 // never airlite's own group, whatever a record says
	}
	killed := 0
	eachProcess(func(pid int, st procStat) {
		if st.pgrp == pgid && st.startTicks >= leaderStart && st.state != 'Z' {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	})
	return killed
}

// eachAdopted calls fn with every child of airlite that is not a try's
// own bash (which os/exec waits for, see taskProcesses): the processes it
// adopted as a child subreaper. Only a process whose every child is a
// try's bash or an adopted orphan may call it: the real binary, never a
// test process that starts other programs.
func eachAdopted(procs *taskProcesses, fn func(pid int, st procStat)) {
	self := os.Getpid()
	procs.mu.Lock()
	defer procs.mu.Unlock()
	eachProcess(func(pid int, st procStat) {
		if st.ppid == self && !procs.leaders[pid] {
			fn(pid, st)
		}
	})
}

// reapAdopted reaps the adopted processes that have exited.
func reapAdopted(procs *taskProcesses) int {
	reaped := 0
	eachAdopted(procs, func(pid int, st procStat) {
		var ws syscall.WaitStatus
		if st.state == 'Z' {
			if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
				reaped++
			}
		}
	})
	return reaped
}

// killAdopted ends every adopted process that still runs (at shutdown,
// once the tries have ended).
func killAdopted(procs *taskProcesses) int {
	killed := 0
	eachAdopted(procs, func(pid int, st procStat) {
		if st.state != 'Z' && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	})
	return killed
}

// seqpacketPair opens a connected pair of message sockets that no other
// child inherits.
func seqpacketPair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
}
