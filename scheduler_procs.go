package main

import (
	"fmt"
	"os/exec"
	"sync"

	"github.com/rs/zerolog"
)

// endLeftoverTaskProcesses ends the process groups of the tries that were
// running when a previous instance stopped without seeing them end (a
// crash, SIGKILL): their bash died with it, their background children
// may not have.
func endLeftoverTaskProcesses(store *Store, logger zerolog.Logger) error {
	recs, err := store.TakeTaskProcesses()
	if err != nil {
		return fmt.Errorf("end leftover task processes: %w", err)
	}
	for _, rec := range recs {
		if n := killOrphanedGroup(rec.PID, rec.Identity); n > 0 {
			logger.Warn().Str("task", rec.Key.String()).Int("pgid", rec.PID).Int("processes", n).
				Msg("ended processes a crashed instance's task left running")
		}
	}
	return nil
}

// taskProcesses knows the bash process of every running try. Starting
// one and recording it happen under mu, and so does reaping adopted
// orphans (scheduler_procs_linux.go): the reaper must never reap a try's own bash,
// whose exit status os/exec waits for.
type taskProcesses struct {
	mu      sync.Mutex
	leaders map[int]bool // pids of running tries' bash, each leading its own process group
}

func newTaskProcesses() *taskProcesses { return &taskProcesses{leaders: map[int]bool{}} }

// start starts cmd and records it as a try's leader; memory bounds each
// process of a Python try (see startGroup).
func (p *taskProcesses) start(cmd *exec.Cmd, memory int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := startGroup(cmd, memory); err != nil {
		return err
	}
	p.leaders[cmd.Process.Pid] = true
	return nil
}

// ended forgets a leader once os/exec has waited for it, and ends what is
// left of its process group: no process outlives its task.
func (p *taskProcesses) ended(pid int) {
	endGroup(pid)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.leaders, pid)
}

// procStat is what airlite reads of a process: on Linux from
// /proc/<pid>/stat (startTicks tells a reused pid apart).
type procStat struct {
	state      byte
	ppid, pgrp int
	startTicks uint64
}
