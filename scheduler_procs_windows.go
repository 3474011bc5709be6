//go:build windows

package main

// Task processes on Windows: there are no process groups to signal, so
// each try's process (bash, a Python try, a DAG parse) starts suspended,
// joins a Job Object of its own, and only then runs: everything it
// starts is born inside the job, and cannot leave it (no breakaway is
// allowed). Ending the try terminates the job, the whole tree at once,
// as SIGKILL to the process group does on Unix. The job is marked
// kill-on-close, and airlite holds its only handle: when airlite ends,
// however it ends (a crash, taskkill /F), Windows closes the handle and
// kills the job's processes, which is what the parent-death signal and
// the next start's leftover sweep give on Linux. So nothing is left for
// a subreaper or a sweep to find here.
//
// The warm Python worker (scheduler_pyworker.go) forks its tries and
// hands them descriptors over a SOCK_SEQPACKET socket (SCM_RIGHTS):
// Windows has neither fork nor descriptor passing, so there is no worker
// (as on macOS) and each Python try runs in a process of its own, whose
// channel is two anonymous pipes (passTaskChannel).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobs holds every running group, by the pid of the process it was made
// for. It is process-wide, as the handles are: a caller holds only the
// pid (as syscall.Kill(-pid) takes on Unix), and its lock is held while a
// handle is used so that endGroup cannot close one under a killGroup.
var jobs = struct {
	sync.Mutex
	m map[int]jobGroup
}{m: map[int]jobGroup{}}

// jobGroup is a group: its Job Object, and a handle on its first process,
// held until endGroup so that Windows cannot hand that pid to another
// process (which a later start would file under the same key) between
// os/exec's wait, which lets go of its own handle, and endGroup.
type jobGroup struct {
	job, proc windows.Handle
}

// taskProcAttr starts the process suspended (startGroup resumes it once
// it is in its job) and in a new console process group, so that Ctrl-C
// in airlite's console reaches airlite alone, which decides when its
// tries end (--shutdown-grace), as a process group of its own does on
// Unix.
func taskProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// startGroup starts cmd suspended, puts it in a new kill-on-close Job
// Object and lets it run. Nothing of cmd runs outside the job: on any
// error the process is killed before it ran an instruction. memory > 0
// bounds the memory each process of the job commits: the bound a Python
// program sets itself on Unix (RLIMIT_AS), which Windows has no call for
// (python/airlite_task.py, airlite_parse.py); an allocation past it fails
// (a MemoryError in Python), as one past RLIMIT_AS does.
func startGroup(cmd *exec.Cmd, memory int64) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = taskProcAttr()
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	job, err := newTaskJob(memory)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return err
	}
	pid := cmd.Process.Pid
	proc, err := joinJob(job, pid)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		windows.CloseHandle(job)
		return fmt.Errorf("start task process: %w", err)
	}
	jobs.Lock()
	jobs.m[pid] = jobGroup{job: job, proc: proc}
	jobs.Unlock()
	if err := resumeProcess(pid); err != nil {
		endGroup(pid)
		_ = cmd.Wait()
		return fmt.Errorf("start task process: %w", err)
	}
	return nil
}

// newTaskJob makes a Job Object whose processes die when its last handle
// closes (airlite's, at endGroup or when airlite ends), each bounded to
// memory bytes when memory > 0.
func newTaskJob(memory int64) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if memory > 0 && uint64(memory) <= uint64(^uintptr(0)) { // past a 32-bit address space, nothing to bound
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(memory)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set job object limits: %w", err)
	}
	return job, nil
}

// joinJob puts the (suspended) process pid in job, and returns a handle
// on the process (see jobGroup). os/exec's own handle keeps pid this
// process's while it runs.
func joinJob(job windows.Handle, pid int) (windows.Handle, error) {
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("open process %d: %w", pid, err)
	}
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(proc)
		return 0, fmt.Errorf("assign process %d to its job object: %w", pid, err)
	}
	return proc, nil
}

// resumeProcess resumes the threads of pid, started suspended: one, its
// main thread (os/exec keeps no handle to it, so it is found by a
// snapshot of the system's threads).
func resumeProcess(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list threads: %w", err)
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread found", pid)
	}
	return nil
}

// killGroup terminates every process of pid's job. os.ErrProcessDone when
// the job has ended (os/exec's Cancel then reports nothing).
func killGroup(pid int) error {
	jobs.Lock()
	defer jobs.Unlock()
	tj, ok := jobs.m[pid]
	if !ok {
		return os.ErrProcessDone
	}
	if err := windows.TerminateJobObject(tj.job, 1); err != nil {
		return fmt.Errorf("terminate job of process %d: %w", pid, err)
	}
	return nil
}

// endGroup terminates what is left of pid's job once its first process
// has been waited for, and lets go of the job.
func endGroup(pid int) {
	jobs.Lock()
	defer jobs.Unlock()
	tj, ok := jobs.m[pid]
	if !ok {
		return
	}
	delete(jobs.m, pid)
	_ = windows.TerminateJobObject(tj.job, 1)
	windows.CloseHandle(tj.job)
	windows.CloseHandle(tj.proc)
}

// becomeSubreaper has nothing to do: a try's processes stay in its job,
// which ends with the try, or with airlite.
func becomeSubreaper() error { return nil }

// processIdentity: "" (no sweep at the next start needs it, see the top
// of this file).
func processIdentity(int) string { return "" }

// killOrphanedGroup finds nothing: a crashed airlite's jobs were killed
// when Windows closed their handles.
func killOrphanedGroup(int, string) int { return 0 }

// reapAdopted and killAdopted find nothing: no process a try starts is
// ever adopted by airlite (they stay in the try's job).
func reapAdopted(*taskProcesses) int { return 0 }

func killAdopted(*taskProcesses) int { return 0 }

// seqpacketPair: Windows has no SOCK_SEQPACKET local sockets nor
// descriptor passing; the caller runs each Python try in a process of
// its own.
func seqpacketPair() ([2]int, error) {
	return [2]int{-1, -1}, fmt.Errorf("socket pair for the python worker: %w", errors.ErrUnsupported)
}

// passFiles: no descriptor passing on Windows (never reached: no worker
// starts, see seqpacketPair).
func passFiles([]*os.File) ([]byte, error) {
	return nil, fmt.Errorf("pass files to the python worker: %w", errors.ErrUnsupported)
}

// passTaskChannel gives a Python try its channel: Windows has no fds 3
// and 4 to hand a child (os/exec's ExtraFiles is Unix only), so the two
// pipe ends are inherited as handles, only by this child (os/exec lists
// the handles a child inherits), and their values go in
// AIRLITE_TASK_CHANNEL, which python/airlite_task.py turns back into
// file descriptors (msvcrt.open_osfhandle).
func passTaskChannel(cmd *exec.Cmd, answers, requests *os.File) error {
	handles := []syscall.Handle{syscall.Handle(answers.Fd()), syscall.Handle(requests.Fd())}
	for _, h := range handles {
		// os/exec's handle list takes only inheritable handles.
		if err := windows.SetHandleInformation(windows.Handle(h), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
			return fmt.Errorf("pass task channel: %w", err)
		}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, handles...)
	cmd.Env = append(cmd.Env, fmt.Sprintf("AIRLITE_TASK_CHANNEL=%d %d", handles[0], handles[1]))
	return nil
}
