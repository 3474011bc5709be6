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
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// runOnce calls run with args (plus --addr 127.0.0.1:0, --scheduler off and
// --log-format json) in a temporary HOME and expects it to refuse to
// start: it returns what it logged and its error. A run that starts
// serving instead fails the test.
func runOnce(t *testing.T, args ...string) (logs string, err error) {
	t.Helper()
	args = append(args, "--addr", "127.0.0.1:0", "--scheduler", "off", "--log-format", "json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	env := mapEnv(map[string]string{"HOME": t.TempDir()})
	go func() { done <- run(ctx, args, env, stdout, stderr) }()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if stdout.String() != "" {
				t.Errorf("stdout = %q: a refused start must not listen", stdout.String())
			}
			return stderr.String(), err
		case <-tick.C:
			if stdout.String() != "" {
				cancel()
				<-done
				t.Fatalf("run started serving (%q); want a refusal. Log:\n%s", stdout.String(), stderr.String())
			}
		case <-deadline.C:
			t.Fatal("run neither refused nor served within 10s")
		}
	}
}

// A folder given as --snapshot is a mistake in the command line, not a
// damaged snapshot: it gets its own message, and --snapshot-bad=move
// leaves it where it is.
func TestRun_SnapshotIsADirectory(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{snapshotBadRefuse, snapshotBadMove} {
		t.Run(bad, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			dir := filepath.Join(home, "snaps")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			logs, err := runOnce(t, "--home", home, "--snapshot", dir, "--snapshot-bad", bad)
			if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "is a directory") {
				t.Fatalf("run = %v, want an error naming %s and saying it is a directory", err, dir)
			}
			for _, wrong := range []string{"corrupt", "truncated", "--snapshot-bad"} {
				if strings.Contains(err.Error(), wrong) {
					t.Errorf("run = %v: a folder is not a damaged snapshot (says %q)", err, wrong)
				}
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				t.Errorf("the folder was moved or removed: %v; log:\n%s", err, logs)
			}
		})
	}
}

// The id lease beside the snapshot, when a folder, gets the same message.
func TestRun_LeaseIsADirectory(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	lease := leasePath(filepath.Join(home, "snapshot.json"))
	if err := os.Mkdir(lease, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := runOnce(t, "--home", home, "--snapshot-bad", snapshotBadMove)
	if err == nil || !strings.Contains(err.Error(), lease) || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("run = %v, want an error naming %s and saying it is a directory", err, lease)
	}
	if info, err := os.Stat(lease); err != nil || !info.IsDir() {
		t.Errorf("the folder was moved or removed: %v", err)
	}
}

// A home or snapshot folder that cannot be created or written stops the
// start with one error naming it, instead of serving without persistence.
func TestRun_UnwritableSnapshotPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args func(dir string) (args []string, blocked string)
	}{
		{"home under a file", func(dir string) ([]string, string) {
			home := filepath.Join(dir, "file", "home")
			return []string{"--home", home}, home
		}},
		{"home under a file, snapshot elsewhere", func(dir string) ([]string, string) {
			home := filepath.Join(dir, "file", "home")
			return []string{"--home", home, "--snapshot", filepath.Join(dir, "snapshot.json")}, home
		}},
		{"snapshot folder under a file", func(dir string) ([]string, string) {
			snaps := filepath.Join(dir, "file", "snaps")
			return []string{"--home", filepath.Join(dir, "home"), "--snapshot", filepath.Join(snaps, "snapshot.json")}, snaps
		}},
		{"read-only snapshot folder", func(dir string) ([]string, string) {
			snaps := filepath.Join(dir, "ro")
			if err := os.Mkdir(snaps, 0o500); err != nil {
				t.Fatal(err)
			}
			return []string{"--home", snaps}, snaps
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(tc.name, "read-only") && os.Geteuid() == 0 {
				t.Skip("root writes into read-only folders")
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			args, blocked := tc.args(dir)
			logs, err := runOnce(t, args...)
			if err == nil || !strings.Contains(err.Error(), blocked) {
				t.Fatalf("run = %v, want an error naming %s", err, blocked)
			}
			if strings.Contains(err.Error(), "--snapshot-bad") {
				t.Errorf("run = %v: nothing is damaged, nothing to move aside", err)
			}
			if logs != "" {
				t.Errorf("a refused start logs nothing (run returns the error); log:\n%s", logs)
			}
		})
	}
}

// Two airlites on one snapshot would write over each other's state: the
// second refuses to start, naming the lock and the first one's pid, and
// once the first has stopped the home is free again.
func TestRun_SecondInstanceOnOneSnapshotRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	snapshot := filepath.Join(home, "snapshot.json")
	first := startRun(t, "--home", home, "--snapshot", snapshot)

	_, err := runOnce(t, "--home", home, "--snapshot", snapshot)
	lock := snapshot + ".lock"
	pid := strconv.Itoa(os.Getpid())
	if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "pid "+pid) {
		t.Fatalf("second run = %v, want a refusal naming %s and pid %s", err, lock, pid)
	}
	if data, err := os.ReadFile(lock); err != nil || strings.TrimSpace(string(data)) != pid {
		t.Errorf("lock file holds %q (%v), want the running airlite's pid %s", data, err, pid)
	}

	if err := first.stop(t); err != nil {
		t.Fatalf("first run: %v", err)
	}
	again := startRun(t, "--home", home, "--snapshot", snapshot)
	if err := again.stop(t); err != nil {
		t.Fatalf("run after the first stopped: %v", err)
	}
}

// Temporary files a crash left half-written beside the snapshot and the
// id lease are removed at start, each with a log line; other files stay.
func TestRun_StaleTempFilesRemoved(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	snapshot := filepath.Join(home, "snapshot.json")
	stale := []string{snapshot + ".tmp", snapshot + ".tmp123456", leasePath(snapshot) + ".tmp42"}
	kept := []string{snapshot + ".tmpl", filepath.Join(home, "other.tmp1")}
	for _, p := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(p, []byte(`{"format":"airlite-snap`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := startRun(t, "--home", home, "--snapshot", snapshot)
	for _, p := range stale {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stale %s still there (%v)", p, err)
		}
		if !strings.Contains(s.stderr.String(), p) {
			t.Errorf("removing %s not logged:\n%s", p, s.stderr.String())
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is not airlite's temporary file, but: %v", p, err)
		}
	}
}

// cancelAfter is a context whose Err reports Canceled from its n-th
// call on: a signal that arrives while a restore is under way.
type cancelAfter struct {
	context.Context
	n atomic.Int32
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A signal during start-up stops the restore between batches: the error
// says so, and the snapshot, which is not damaged, stays where it is
// even with --snapshot-bad=move.
func TestStartup_SignalStopsRestore(t *testing.T) {
	t.Parallel()
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, good := snapGoodFile(t, dir)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := restoreSnapshot(cancelled, path); !errors.Is(err, context.Canceled) ||
		errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), "restore stopped") {
		t.Errorf("restore with a cancelled context = %v, want a stop saying so", err)
	}

	// Many batches; the signal comes after the restore has begun.
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if _, err := store.UpsertPool(fmt.Sprintf("p%04d", i), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if _, err := writeSnapshot(store, big, snapNow); err != nil {
		t.Fatal(err)
	}
	midway := &cancelAfter{Context: t.Context()}
	midway.n.Store(5)
	if _, _, err := restoreSnapshot(midway, big); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "restore stopped") {
		t.Errorf("restore cancelled midway = %v, want a stop saying so", err)
	}

	c := snapConfig(dir, edition2)
	c.SnapshotBad = snapshotBadMove
	if _, _, err := openStore(cancelled, c, dags, zerolog.Nop()); !errors.Is(err, context.Canceled) {
		t.Errorf("openStore with a cancelled context = %v, want it stopped", err)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, good) {
		t.Errorf("the snapshot was changed or moved (%v)", err)
	}
	if moved, _ := filepath.Glob(path + ".bad-*"); len(moved) != 0 {
		t.Errorf("a good snapshot was moved aside: %v", moved)
	}
	if _, err := os.Stat(leasePath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an id lease was taken by a start that stopped (%v)", err)
	}
}
