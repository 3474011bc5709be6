package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// leaseDAG is the DAG the lease tests trigger: two tasks per run.
const leaseDAG = "example_trigger_target_dag"

// fullDisk makes sn's lease writes fail as on a full disk while it holds
// true.
func fullDisk(sn *snapshotter) *atomic.Bool {
	var full atomic.Bool
	sn.writeLease = func(path string, run, pool int64) error {
		if full.Load() {
			return fmt.Errorf("write id lease: %w", &fs.PathError{Op: "write", Path: path + ".tmp", Err: syscall.ENOSPC})
		}
		return writeLease(path, run, pool)
	}
	return &full
}

// leaseTrigger triggers run number n of leaseDAG through the API and
// returns the run's id, or the API's error.
func leaseTrigger(t *testing.T, store *Store, n int) (int64, error) {
	t.Helper()
	runID := fmt.Sprintf("lease_%d", n)
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	body := fmt.Sprintf(`{"run_id": %q, "execution_date": %q}`, runID, date.Format(time.RFC3339))
	if _, err := fuzzAPI(store, edition2).TriggerDAG(leaseDAG, []byte(body)); err != nil {
		return 0, err
	}
	run, err := store.RunByRunID(leaseDAG, runID)
	if err != nil {
		t.Fatalf("run %s: %v", runID, err)
	}
	return run.ID, nil
}

// leaseOnDisk is the run id the lease file covers.
func leaseOnDisk(t *testing.T, path string) int64 {
	t.Helper()
	l, err := readLease(leasePath(path))
	if err != nil {
		t.Fatal(err)
	}
	return l.DagRun
}

// TestLease_FullDiskStopsIDsAtTheLease: while the id lease cannot be
// written, runs are created up to the ids it covers, then refused with a
// 503 that says why, and health says so too; once it can be written,
// runs are created again, their ids following on without a gap.
func TestLease_FullDiskStopsIDsAtTheLease(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	c := snapConfig(t.TempDir(), edition2)
	c.SnapshotInterval = 20 * time.Millisecond // how often a failed lease write is tried again
	store, sn, err := openStoreForTest(t, c, dags)
	if err != nil {
		t.Fatal(err)
	}
	full := fullDisk(sn)
	full.Store(true)
	sn.start()
	t.Cleanup(func() { sn.cancel(); sn.wg.Wait() })
	ts := snapAPI(t, store, dags, edition2)

	last := int64(0)
	n := 0
	for ; ; n++ {
		id, err := leaseTrigger(t, store, n)
		if err != nil {
			if !errors.Is(err, errUnavailable) {
				t.Fatalf("trigger %d: %v, want errUnavailable", n, err)
			}
			break
		}
		if id != last+1 {
			t.Fatalf("trigger %d: id %d after %d", n, id, last)
		}
		last = id
		if ceiling := leaseOnDisk(t, c.Snapshot); id > ceiling {
			t.Fatalf("trigger %d: run id %d handed out, the lease on disk covers up to %d", n, id, ceiling)
		}
	}
	if last != leaseOnDisk(t, c.Snapshot) {
		t.Errorf("refused after id %d, the lease on disk covers %d", last, leaseOnDisk(t, c.Snapshot))
	}

	status, body := snapDo(t, http.MethodPost, ts.URL+apiPrefix+"/dags/"+leaseDAG+"/dag_runs", `{"run_id": "over"}`)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("trigger past the lease: %d %s, want 503", status, body)
	}
	for _, want := range []string{"id lease", leasePath(c.Snapshot), "no space left on device"} {
		if !strings.Contains(body, want) {
			t.Errorf("refusal %s does not say %q", body, want)
		}
	}
	t.Logf("refusal: %s", body)
	status, body = snapDo(t, http.MethodGet, ts.URL+"/_airlite/health", "")
	t.Logf("health: %s", body)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "id lease") || !strings.Contains(body, "no space left on device") {
		t.Errorf("health while the lease is stuck: %d %s, want 503 saying why", status, body)
	}
	if _, err := store.UpsertPool("over", 1, nil); err != nil {
		t.Errorf("a pool within its own lease was refused: %v", err)
	}

	full.Store(false) // the disk recovers; the lease loop retries
	waitFor(t, func() bool {
		status, _ := snapDo(t, http.MethodGet, ts.URL+"/_airlite/health", "")
		return status == http.StatusOK
	})
	if status, body := snapDo(t, http.MethodGet, ts.URL+"/_airlite/health", ""); body != "{\"status\":\"ok\"}\n" {
		t.Errorf("health after recovery: %d %q", status, body)
	}
	id, err := leaseTrigger(t, store, n+1)
	if err != nil {
		t.Fatalf("trigger after the disk recovered: %v", err)
	}
	if id != last+1 {
		t.Errorf("id after recovery = %d, want %d (no gap, no reuse)", id, last+1)
	}
}

// TestLease_CrashWhileLeaseFailsReusesNoID: ids handed out while the
// lease could not be written are not handed out again after a crash.
func TestLease_CrashWhileLeaseFailsReusesNoID(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	c := snapConfig(t.TempDir(), edition2)
	store, sn, err := openStoreForTest(t, c, dags)
	if err != nil {
		t.Fatal(err)
	}
	full := fullDisk(sn)
	seen := map[int64]bool{}
	n := 0
	for ; n < 10; n++ {
		id, err := leaseTrigger(t, store, n)
		if err != nil {
			t.Fatal(err)
		}
		seen[id] = true
	}
	if err := sn.write(); err != nil { // the last snapshot before the crash
		t.Fatal(err)
	}
	full.Store(true)
	for ; n < 2*leaseBlock; n++ {
		_ = sn.renewLease(nil) // the lease loop's work; it fails once the counters near the lease
		id, err := leaseTrigger(t, store, n)
		if errors.Is(err, errUnavailable) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[id] = true
	}
	// The crash: no final snapshot, no exact lease; start again from disk.
	store, _, err = openStoreForTest(t, c, dags)
	if err != nil {
		t.Fatal(err)
	}
	id, err := leaseTrigger(t, store, n+1)
	if err != nil {
		t.Fatal(err)
	}
	if seen[id] {
		t.Errorf("run id %d handed out before the crash is handed out again", id)
	}
}

// TestStore_IDCeiling: with a lease ceiling set, run and pool ids stop at
// it; without one (--snapshot off) they do not stop. While the lease
// fails, a refusal is immediate; while it is only being extended, the
// write waits for it.
func TestStore_IDCeiling(t *testing.T) {
	t.Parallel()
	// In a bubble: synctest.Wait says when the trigger below is blocked
	// waiting for the lease, where a poll could only give up after a while.
	synctest.Test(t, func(t *testing.T) {
		dags, err := loadEmbeddedDAGs()
		if err != nil {
			t.Fatal(err)
		}
		store := storeWith(t, dags)
		for i := 0; i < 3; i++ {
			if _, err := store.UpsertPool(fmt.Sprintf("free%d", i), 1, nil); err != nil {
				t.Fatalf("no ceiling: %v", err)
			}
		}
		const path = "/data/snapshot.json.ids"
		_, pool := store.IDCounters(nil)
		store.LeaseWritten(path, 2, pool+1)
		store.LeaseFailed(path, syscall.ENOSPC)
		if _, err := store.UpsertPool("one", 1, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := store.UpsertPool("two", 1, nil); !errors.Is(err, errUnavailable) {
			t.Errorf("pool past the ceiling: %v, want errUnavailable", err)
		}
		if _, err := store.UpsertPool("one", 5, nil); err != nil {
			t.Errorf("changing a pool takes no id: %v", err)
		}
		for n := 0; n < 2; n++ {
			if _, err := leaseTrigger(t, store, n); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := leaseTrigger(t, store, 3); !errors.Is(err, errUnavailable) {
			t.Errorf("run past the ceiling: %v, want errUnavailable", err)
		}
		if run, _ := store.IDCounters(nil); run != 2 {
			t.Errorf("run counter %d after a refusal, want 2", run)
		}

		// The lease written, but not yet extended past the counters: a
		// trigger waits for the next write instead of failing.
		store.LeaseWritten(path, 2, pool+1)
		done := make(chan error, 1)
		go func() {
			_, err := fuzzAPI(store, edition2).TriggerDAG(leaseDAG, []byte(`{"run_id": "waits"}`))
			done <- err
		}()
		synctest.Wait() // the trigger has answered or is blocked for good
		if len(done) > 0 {
			t.Fatalf("trigger answered %v before the lease was extended", <-done)
		}
		store.LeaseWritten(path, 3, pool+1)
		if err := <-done; err != nil {
			t.Errorf("trigger once the lease was extended: %v", err)
		}
	})
}

// openStoreForTest opens the store of c as airlite's start does.
func openStoreForTest(t *testing.T, c config, dags *DAGSet) (*Store, *snapshotter, error) {
	t.Helper()
	return openStore(t.Context(), c, dags, zerolog.New(zerolog.NewTestWriter(t)))
}
