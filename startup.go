package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// snapshotBadRefuse and snapshotBadMove are the values of
// --snapshot-bad: what to do with a snapshot that cannot be read.
const (
	snapshotBadRefuse = "refuse"
	snapshotBadMove   = "move"
)

// moveAside renames a bad file to <name>.bad-<UTC time>; it never deletes.
func moveAside(path string, now time.Time) (string, error) {
	dest := path + ".bad-" + now.UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(path, dest); err != nil {
		return "", fmt.Errorf("move %s aside: %w", path, err)
	}
	return dest, nil
}

// makeSnapshotFolders creates the home and the snapshot's folder, owner
// only, when missing.
func makeSnapshotFolders(c config) error {
	for _, dir := range []string{c.Home, filepath.Dir(c.Snapshot)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create folder %s: %w", dir, err)
		}
	}
	return nil
}

// openStore builds the store airlite starts with: restored from the
// snapshot when there is one, then the DAG files loaded over it, orphaned
// task instances resolved, and the id lease taken. It returns the
// snapshotter to start once serving, or nil with --snapshot off. A
// snapshot that cannot be read stops the start, unless
// --snapshot-bad=move, which moves it aside and starts empty; so does a
// home or snapshot folder that cannot be created or written.
func openStore(c config, dags *DAGSet, logger zerolog.Logger) (*Store, *snapshotter, error) {
	if c.Snapshot == "off" {
		store, err := newStore()
		if err != nil {
			return nil, nil, err
		}
		if err := store.LoadDAGs(dags); err != nil {
			return nil, nil, fmt.Errorf("load dags: %w", err)
		}
		return store, nil, nil
	}
	log := logger.With().Str("component", "snapshot").Logger()
	if err := makeSnapshotFolders(c); err != nil {
		return nil, nil, err
	}
	now := time.Now()
	store, stats, err := restoreSnapshot(c.Snapshot)
	lease, leaseErr := readLease(leasePath(c.Snapshot))
	for _, bad := range []struct {
		path string
		err  error
	}{{c.Snapshot, err}, {leasePath(c.Snapshot), leaseErr}} {
		if bad.err == nil || errors.Is(bad.err, fs.ErrNotExist) {
			continue
		}
		if errors.Is(bad.err, errIsDirectory) {
			return nil, nil, fmt.Errorf("refuse to start: %w; --snapshot names a file, and its id lease goes beside it as <file>.ids", bad.err)
		}
		if c.SnapshotBad != snapshotBadMove {
			return nil, nil, fmt.Errorf("refuse to start: %w; the file is left as it is: "+
				"to start anyway, run with --snapshot-bad=move, which moves it to %s.bad-<time> and starts without it",
				bad.err, bad.path)
		}
		dest, merr := moveAside(bad.path, now)
		if merr != nil {
			return nil, nil, merr
		}
		log.Warn().AnErr("problem", bad.err).Str("moved_to", dest).Msg("unreadable file moved aside (--snapshot-bad=move)")
	}
	restored := err == nil
	if !restored {
		if store, err = newStore(); err != nil {
			return nil, nil, err
		}
	}
	if leaseErr == nil {
		if err := store.RaiseIDCounters(lease.DagRun, lease.Pool); err != nil {
			return nil, nil, err
		}
	}
	if err := store.LoadDAGs(dags); err != nil {
		return nil, nil, fmt.Errorf("load dags: %w", err)
	}
	if restored {
		runs, _ := store.IDCounters(nil)
		log.Info().Str("path", c.Snapshot).Int64("index", stats.Index).Int("rows", stats.Rows).
			Int64("bytes", stats.Bytes).Int64("last_run_id", runs).Msg("snapshot restored")
		if err := reportDagsWithoutFile(store, log); err != nil {
			return nil, nil, err
		}
		if _, err := resolveOrphans(store, c.Edition, now, log); err != nil {
			return nil, nil, err
		}
	}
	sn := newSnapshotter(store, c.Snapshot, c.SnapshotInterval, log)
	// Before the first request, and a test that the snapshot's folder
	// takes files: airlite does not serve without persistence.
	if err := sn.renewLease(nil); err != nil {
		return nil, nil, fmt.Errorf("take the id lease: %w", err)
	}
	return store, sn, nil
}

// reportDagsWithoutFile logs every DAG whose file is gone but whose rows
// were restored: its runs are kept, as Airflow keeps them.
func reportDagsWithoutFile(store *Store, log zerolog.Logger) error {
	rows, err := store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.Def != nil {
			continue
		}
		runs, err := store.RunsOfDag(row.DagID, "")
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(runs))
		for _, r := range runs {
			ids = append(ids, r.RunID)
		}
		log.Warn().Str("dag_id", row.DagID).Str("fileloc", row.FileLoc).Int("runs", len(runs)).
			Str("run_ids", strings.Join(ids, ",")).Msg("dag has no file any more; its runs are kept")
	}
	return nil
}
