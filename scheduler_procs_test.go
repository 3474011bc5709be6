package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A group is a try's first process and everything it starts, on every
// system (a process group on Unix, a Job Object on Windows): killGroup
// while the first process runs, and endGroup once it has ended, leave
// none of them running. The processes are this test binary
// (TestStartGroup_Helper): a first process that starts a second one and
// either stays or leaves.
func TestStartGroup_EndsTheWholeTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mode string // the first process: "stay" runs on, "leave" exits once the second runs
	}{
		{name: "killGroup while the first process runs", mode: "stay"},
		{name: "endGroup after the first process left a child behind", mode: "leave"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "second.pid")
			cmd := exec.Command(os.Args[0], "-test.run=^TestStartGroup_Helper$")
			cmd.Env = append(os.Environ(), "AIRLITE_TEST_TREE="+tc.mode, "AIRLITE_TEST_TREE_PID="+pidFile)
			cmd.SysProcAttr = taskProcAttr()
			if err := startGroup(cmd, 0); err != nil {
				t.Fatal(err)
			}
			first := cmd.Process.Pid
			t.Cleanup(func() { endGroup(first) })
			second := readPID(t, pidFile)
			if tc.mode == "stay" {
				if err := killGroup(first); err != nil {
					t.Fatalf("killGroup: %v", err)
				}
			}
			err := cmd.Wait()
			if tc.mode == "leave" && err != nil {
				t.Fatalf("the first process: %v", err)
			}
			if tc.mode == "stay" && err == nil {
				t.Fatal("the first process ended well after killGroup, want killed")
			}
			endGroup(first)
			if !pollUntil(10*time.Second, func() bool {
				st, ok := readProcStat(second)
				return !ok || st.state == 'Z'
			}) {
				_ = killPID(second)
				t.Errorf("process %d, started by the group's first process, outlived the group", second)
			}
		})
	}
}

// TestStartGroup_Helper is the processes of EndsTheWholeTree. They wait
// with time.Sleep: they are ended from outside, and the sleep only bounds
// a process whose group was not.
func TestStartGroup_Helper(t *testing.T) {
	mode := os.Getenv("AIRLITE_TEST_TREE")
	if mode == "" {
		t.Skip("only runs as a child process")
	}
	if mode == "second" {
		time.Sleep(time.Minute)
		return
	}
	second := exec.Command(os.Args[0], "-test.run=^TestStartGroup_Helper$")
	second.Env = append(os.Environ(), "AIRLITE_TEST_TREE=second") // the last value wins
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("AIRLITE_TEST_TREE_PID")
	if err := os.WriteFile(path+".tmp", []byte(strconv.Itoa(second.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	if mode == "stay" {
		time.Sleep(time.Minute)
	}
}
