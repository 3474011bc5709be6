package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

const (
	leaseFormat  = "airlite-id-lease"
	leaseVersion = 1
	// leaseBlock is how many ids the lease file reserves ahead; it is
	// extended when less than half of the block is left.
	leaseBlock = 1024
)

// idLease is the id lease file: ids up to these values may have been
// handed out. The snapshot is written only every interval, so a crash
// loses the runs created since; the lease makes sure that their ids are
// not handed out again after the restart (spec §4: never reused, also
// across restarts). It is written before the counters reach it, a block
// ahead, and set back to the exact counters after a clean shutdown.
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
