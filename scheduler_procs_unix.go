//go:build unix

package main

// Task process groups on Linux, macOS and the BSDs: a try's bash, a
// Python try or a DAG parse leads a process group of its own
// (taskProcAttr), and ending the try sends SIGKILL to the whole group.

import (
	"os"
	"os/exec"
	"syscall"
)

// startGroup starts cmd, whose SysProcAttr (taskProcAttr) makes it the
// leader of a new process group. A Python program bounds its own memory
// here (RLIMIT_AS, with the memory_bytes of its request), so memory goes
// unused.
func startGroup(cmd *exec.Cmd, memory int64) error { return cmd.Start() }

// killGroup kills every process of the group pid leads.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// endGroup ends what is left of pid's group once its leader has been
// waited for.
func endGroup(pid int) { _ = killGroup(pid) }

// passTaskChannel gives a Python try its channel as fds 3 (answers) and
// 4 (requests), where python/airlite_task.py reads them.
func passTaskChannel(cmd *exec.Cmd, answers, requests *os.File) error {
	cmd.ExtraFiles = []*os.File{answers, requests}
	return nil
}

// passFiles is the control message that hands files to the Python
// worker over its socket (SCM_RIGHTS).
func passFiles(files []*os.File) ([]byte, error) {
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	return syscall.UnixRights(fds...), nil
}
