package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

// snapshotLock is an exclusive lock (flock; LockFileEx on Windows) on
// <snapshot>.lock, held from start to exit: two airlites on one snapshot
// would write over each other's state and hand out the same run ids. The
// file holds the pid of the airlite holding it. It is never removed:
// another airlite may have it open, and a lock taken on a removed file
// would not keep out a third. The lock file is the one file airlite
// writes in place, not through an atomicFile: a rename would put another
// file, unlocked, at its path.
type snapshotLock struct{ f *os.File }

// errLockHeld: another open file holds the lock (lockFileNow, in
// main_startup_lock_unix.go and main_startup_lock_windows.go).
var errLockHeld = errors.New("lock held elsewhere")

func lockPath(snapshotPath string) string { return snapshotPath + ".lock" }

// lockSnapshot creates the snapshot's folders and takes its lock, or
// says which airlite holds it.
func lockSnapshot(c config) (*snapshotLock, error) {
	if err := makeSnapshotFolders(c); err != nil {
		return nil, err
	}
	path := lockPath(c.Snapshot)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := lockFileNow(f); err != nil {
		defer f.Close()
		if !errors.Is(err, errLockHeld) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		pid := "unknown"
		buf := make([]byte, 32)
		if n, _ := f.ReadAt(buf, 0); len(bytes.TrimSpace(buf[:n])) > 0 {
			pid = string(bytes.TrimSpace(buf[:n]))
		}
		return nil, fmt.Errorf("refuse to start: another airlite (pid %s) uses %s: it holds %s; "+
			"stop it, or give this one another --home or --snapshot", pid, c.Snapshot, path)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write lock %s: %w", path, err)
	}
	return &snapshotLock{f: f}, nil
}

// release empties the lock file of its pid and lets the lock go.
func (l *snapshotLock) release() {
	_ = l.f.Truncate(0)
	_ = l.f.Close()
}

// removeStaleTemps removes the temporary files of the snapshot and the id
// lease that a crash left half-written, logging each. Call it holding the
// snapshot's lock: another airlite's are never stale.
func removeStaleTemps(snapshot string, log zerolog.Logger) error {
	for _, target := range []string{snapshot, leasePath(snapshot)} {
		temps, err := atomicTemps(target)
		if err != nil {
			return err
		}
		for _, tmp := range temps {
			if info, err := os.Lstat(tmp); err != nil || !info.Mode().IsRegular() {
				continue
			}
			if err := os.Remove(tmp); err != nil {
				return fmt.Errorf("remove stale temporary file: %w", err)
			}
			log.Warn().Str("path", tmp).Msg("stale temporary file removed (left by a crash while writing)")
		}
	}
	return nil
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
// home or snapshot folder that cannot be created or written. When ctx
// ends during the restore (SIGINT, SIGTERM), it stops there, touching
// no file.
func openStore(ctx context.Context, c config, dags *DAGSet, logger zerolog.Logger) (*Store, *snapshotter, error) {
	if c.Snapshot == "off" {
		store, err := newStore()
		if err != nil {
			return nil, nil, err
		}
		if err := loadDAGFolder(ctx, c, store, dags, logger); err != nil {
			return nil, nil, err
		}
		return store, nil, nil
	}
	log := logger.With().Str("component", "snapshot").Logger()
	if err := makeSnapshotFolders(c); err != nil {
		return nil, nil, err
	}
	now := time.Now()
	store, stats, err := restoreSnapshot(ctx, c.Snapshot)
	if ctx.Err() != nil {
		// A signal: stop here, and blame no file.
		if err == nil {
			err = restoreStopped(ctx, c.Snapshot)
		}
		return nil, nil, fmt.Errorf("start stopped: %w", err)
	}
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
		if bad.path == c.Snapshot {
			// Its definitions file goes with it, which the next snapshot
			// would remove: the moved snapshot stays whole.
			files, err := moveDefinitionsAside(c.Snapshot, dest)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range files {
				log.Warn().Str("moved_to", f).Msg("definitions file moved aside with its snapshot (--snapshot-bad=move)")
			}
		}
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
	if err := loadDAGFolder(ctx, c, store, dags, logger); err != nil {
		return nil, nil, err
	}
	if restored {
		runs, _ := store.IDCounters(nil)
		log.Info().Str("path", c.Snapshot).Int64("index", stats.Index).Int("rows", stats.Rows).
			Int64("bytes", stats.Bytes).Int64("last_run_id", runs).Msg("snapshot restored")
		if err := reportDagsWithoutFile(store, log); err != nil {
			return nil, nil, err
		}
		if _, err := resolveOrphans(store, c.Edition.rules().orphans, now, log); err != nil {
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

// loadDAGFolder adds the DAG folder's Python DAGs to dags (read after the
// restore: Variable.get finds the restored variables), refuses to go on
// with --fail-on-import-errors when any file did not load, builds the
// restored DAGs the files no longer give from what the snapshot kept,
// then loads the DAGs into the store and records the import errors.
func loadDAGFolder(ctx context.Context, c config, store *Store, dags *DAGSet, logger zerolog.Logger) error {
	if err := readPythonDAGs(ctx, c, store, dags, logger); err != nil {
		return err
	}
	if c.FailOnImportErrors {
		if err := importErrorsFatal(dags); err != nil {
			return err
		}
	}
	// Before LoadDAGs, which keeps a stale row's definition.
	if err := buildKeptDefinitions(store, c, dags, logger.With().Str("component", "snapshot").Logger()); err != nil {
		return err
	}
	if err := store.LoadDAGs(dags); err != nil {
		return fmt.Errorf("load dags: %w", err)
	}
	return recordImportErrors(store, dags, time.Now())
}

// buildKeptDefinitions builds, with the edition's builder as their files
// built them, the definitions a snapshot kept (DagRow.Kept) of the DAGs
// that the folder's files, dags, no longer give: their file went, fails,
// or defines them no more, before this start or while airlite ran. They
// are stale from now on and answer as before the restart, as Airflow 3
// keeps a DAG's serialized DAG and only marks it stale when its file is
// gone at the DAG processor's first bundle refresh (c57fba0e
// dag_processing/manager.py:693,713-753, models/dag.py:588-622
// DagModel.deactivate_deleted_dags) or fails (collection.py
// _update_import_errors). A DAG the files give is built from them, not
// from what was kept. One that no longer builds is logged and left
// without a definition; in an edition whose stale DAGs keep none, none
// is built.
func buildKeptDefinitions(store *Store, c config, dags *DAGSet, log zerolog.Logger) error {
	rows, err := store.Dags()
	if err != nil {
		return err
	}
	given := make(map[string]bool, len(dags.DAGs))
	for _, d := range dags.DAGs {
		given[d.DagID] = true
	}
	rules := c.Edition.rules()
	// The definitions file the restored snapshot names is read only when
	// a DAG needs a definition from it: a start whose files give every
	// restored DAG reads none of its bytes (17 MB for 1,000 Python DAGs).
	// A damaged one is then not noticed, and costs nothing: the start's
	// first snapshot writes the file of its own definitions.
	var fromFile map[string]*keptDefinition
	for _, row := range rows {
		if rules.staleKeepsDefinition && !given[row.DagID] && row.Def == nil && row.Kept == nil {
			var lost error
			if fromFile, lost = store.definitions.readRestored(); lost != nil {
				log.Warn().Err(lost).Msg("snapshot restored without its definitions file: a DAG whose file is gone answers 404, not stale")
			}
			break
		}
	}
	store.definitions.dropRestored()
	folder := absPath(c.DagsDir)
	built := map[string]*DAG{}
	for _, row := range rows {
		if given[row.DagID] {
			continue
		}
		kept := row.Kept
		if kept == nil {
			kept = fromFile[row.DagID]
		}
		if kept == nil {
			continue
		}
		built[row.DagID] = nil
		if !rules.staleKeepsDefinition {
			continue
		}
		dag, err := kept.build(rules, row.FileLoc, folder, c.Python)
		if err != nil {
			log.Warn().Str("dag_id", row.DagID).Err(err).Msg("kept definition of a dag its files no longer give does not build: it has none from now on")
			continue
		}
		dag.ParentDagID = row.RootDagID
		built[row.DagID] = dag
	}
	return store.AttachKeptDefinitions(built)
}

// reportDagsWithoutFile logs every DAG whose file is gone but whose rows
// were restored: its runs are kept, as Airflow keeps them, and a stale
// one its definition.
func reportDagsWithoutFile(store *Store, log zerolog.Logger) error {
	rows, err := store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.Active() {
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
			Str("run_ids", strings.Join(ids, ",")).Bool("definition_kept", row.Def != nil).
			Msg("dag has no file any more; its runs are kept")
	}
	return nil
}
