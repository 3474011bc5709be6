package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

const (
	leaseFormat  = "airlite-id-lease"
	leaseVersion = 1
	// leaseBlock is how many ids the lease file reserves ahead; it is
	// extended when less than half of the block is left.
	leaseBlock = 1024
	// leaseWait bounds how long a write that needs an id waits for the
	// lease to be extended when the lease writer is not failing (a burst
	// of triggers outran it); a failing lease refuses at once.
	leaseWait = 5 * time.Second
)

// idLease is the id lease file: ids up to these values may have been
// handed out. The snapshot is written only every interval, so a crash
// loses the runs created since; the lease makes sure that their ids are
// not handed out again after the restart (docs/behaviour.md §4.1: never
// reused, also across restarts; §4.3 for the lease). It is written before
// the counters reach it, a block ahead, and set back to the exact
// counters after a clean shutdown.
type idLease struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	DagRun  int64  `json:"dag_run"`
	Pool    int64  `json:"pool"`
}

func leasePath(snapshotPath string) string { return snapshotPath + ".ids" }

func readLease(path string) (idLease, error) {
	var l idLease
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, err
	}
	if errors.Is(err, syscall.EISDIR) {
		return l, fmt.Errorf("read id lease %s: %w", path, errIsDirectory)
	}
	if err != nil {
		return l, badSnapshot(path, err, "cannot read id lease")
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, badSnapshot(path, err, "corrupt id lease")
	}
	if l.Format != leaseFormat {
		return l, badSnapshot(path, nil, "unknown id lease format %q", l.Format)
	}
	if l.Version > leaseVersion || l.Version < 1 {
		return l, badSnapshot(path, nil, "id lease version %d; this airlite reads up to %d", l.Version, leaseVersion)
	}
	// The counters are raised to the lease: it is held to the snapshot's
	// bounds on ids (maxRowID); 0 is a lease taken before any id.
	for _, v := range []struct {
		key string
		id  int64
	}{{"dag_run", l.DagRun}, {"pool", l.Pool}} {
		if v.id < 0 || v.id > maxRowID {
			return l, badSnapshot(path, nil, "id lease %s %d is outside 0 to %d", v.key, v.id, int64(maxRowID))
		}
	}
	return l, nil
}

func writeLease(path string, runID, poolID int64) error {
	data, err := json.Marshal(idLease{Format: leaseFormat, Version: leaseVersion, DagRun: runID, Pool: poolID})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write id lease: %w", err)
	}
	return nil
}

// idCeiling is what the store knows of the id lease on disk: the highest
// run and pool ids it covers, and why its last write failed. The store
// hands out no id beyond the ceiling, so that no id that a crash would
// hand out again reaches a client. It is off (no ceiling) until the
// snapshotter first writes the lease, and stays off with --snapshot off.
type idCeiling struct {
	mu        sync.Mutex
	on        bool
	run, pool int64
	path      string
	problem   error         // why the last lease write failed; nil after a success
	changed   chan struct{} // closed, and replaced, at every outcome of a lease write
}

// set records a lease written at path that covers ids up to run and pool.
func (c *idCeiling) set(path string, run, pool int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.path, c.run, c.pool, c.problem = true, path, run, pool, nil
	c.notify()
}

// fail records that the lease at path could not be written.
func (c *idCeiling) fail(path string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.path, c.problem = path, err
	c.notify()
}

func (c *idCeiling) notify() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// watch returns a channel closed at the next outcome of a lease write.
func (c *idCeiling) watch() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// stuck is why the lease cannot be written (a *leaseError), or nil.
func (c *idCeiling) stuck() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem == nil {
		return nil
	}
	return &leaseError{path: c.path, problem: c.problem, run: c.run, pool: c.pool}
}

// admit refuses id, the next value of the counter name (counterRunID or
// counterPoolID), with a *leaseError when the lease does not cover it.
func (c *idCeiling) admit(name string, id int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	what, ceiling := "run", c.run
	if name == counterPoolID {
		what, ceiling = "pool", c.pool
	}
	if !c.on || id <= ceiling {
		return nil
	}
	return &leaseError{path: c.path, problem: c.problem, what: what, ceiling: ceiling}
}
