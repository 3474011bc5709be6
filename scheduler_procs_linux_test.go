package main

import "testing"

// assertGroupGone checks that no process of group pgid runs (zombies
// waiting for a parent that does not reap them count as ended).
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	eachProcess(func(pid int, st procStat) {
		if st.pgrp == pgid && st.state != 'Z' {
			t.Errorf("process %d of the reader's group %d still runs", pid, pgid)
		}
	})
}
