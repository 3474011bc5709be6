//go:build unix && !linux

package main

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// assertGroupGone checks that no process of group pgid is left: without
// /proc, a signal 0 to the group tells (a zombie not yet reaped counts
// as left here, which Linux's check does not).
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the reader's group %d still has a process (signal 0: %v)", pgid, err)
	}
}

// readProcStat reads a process's state, parent and group from ps, where
// there is no /proc; startTicks stays 0.
func readProcStat(pid int) (procStat, bool) {
	out, err := exec.Command("ps", "-o", "stat=", "-o", "ppid=", "-o", "pgid=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return procStat{}, false
	}
	f := strings.Fields(string(out))
	if len(f) != 3 || f[0] == "" {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}
