package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// putCounter is a write that stores counter name, and fails after writing
// it when fail is set: what it wrote must then not be kept.
func putCounter(name string, fail bool, runs *int) func(*memdb.Txn) error {
	return func(txn *memdb.Txn) error {
		*runs++
		if err := txn.Insert(tableCounters, &counter{Name: name, Value: 1}); err != nil {
			return err
		}
		if fail {
			return errors.New("refused " + name)
		}
		return nil
	}
}

func counterExists(s *Store, name string) bool {
	raw, err := s.read().First(tableCounters, indexID, name)
	return err == nil && raw != nil
}

func TestApplyBatch_FailedWritesLeaveNothingAndOthersLand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fail map[int]bool
	}{
		{"none fail", nil},
		{"first fails", map[int]bool{0: true}},
		{"last fails", map[int]bool{9: true}},
		{"two in the middle", map[int]bool{3: true, 7: true}},
		{"all fail", map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storeWith(t, &DAGSet{})
			runs := make([]int, 10)
			batch := make([]*batchedWrite, 10)
			for i := range batch {
				batch[i] = &batchedWrite{fn: putCounter(fmt.Sprintf("k%d", i), tc.fail[i], &runs[i])}
			}
			before := store.ChangeIndex()
			store.applyBatch(batch)
			for i, w := range batch {
				name := fmt.Sprintf("k%d", i)
				if tc.fail[i] {
					if w.err == nil || w.err.Error() != "refused "+name {
						t.Errorf("%s: err %v, want its own refusal", name, w.err)
					}
					if counterExists(store, name) {
						t.Errorf("%s failed but its row was kept", name)
					}
					continue
				}
				if w.err != nil {
					t.Errorf("%s: err %v, want none", name, w.err)
				}
				if !counterExists(store, name) {
					t.Errorf("%s succeeded but its row is missing", name)
				}
			}
			if len(tc.fail) == 0 {
				if got := store.ChangeIndex() - before; got != 1 {
					t.Errorf("a batch without failures committed %d transactions, want 1", got)
				}
				for i, n := range runs {
					if n != 1 {
						t.Errorf("k%d ran %d times, want once", i, n)
					}
				}
			}
		})
	}
}

// Writers that queue behind a busy leader share one transaction, and each
// gets its own answer.
func TestUpdateBatched_QueuedWritersShareOneTransaction(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	var wg sync.WaitGroup
	release := holdQueue(t, store, &wg)
	const followers = 20
	errs := make([]error, followers)
	runs := make([]int, followers)
	for i := 0; i < followers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = store.updateBatched(putCounter(fmt.Sprintf("f%d", i), i%4 == 1, &runs[i]))
		}()
	}
	waitQueued(t, store, followers)
	before := store.ChangeIndex()
	release()
	wg.Wait()
	for i, err := range errs {
		name := fmt.Sprintf("f%d", i)
		if fail := i%4 == 1; fail != (err != nil) || fail == counterExists(store, name) {
			t.Errorf("%s: err %v, row kept %v", name, err, counterExists(store, name))
		}
	}
	// The leader's transaction, then one per stretch between failures and
	// one per failure: 1 + (5 failures: 6 stretches) = 7, far fewer than
	// the 16 successful followers alone would take.
	if got := store.ChangeIndex() - before; got < 1 || got > 7 {
		t.Errorf("%d transactions committed, want at most 7", got)
	}
	store.writes.mu.Lock()
	defer store.writes.mu.Unlock()
	if store.writes.busy || len(store.writes.pending) != 0 {
		t.Errorf("queue left busy=%v with %d pending", store.writes.busy, len(store.writes.pending))
	}
}

// Many concurrent writers, some failing: every answer is the writer's own
// and the store holds exactly the successful writes (run with -race).
func TestUpdateBatched_ConcurrentWriters(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				name := fmt.Sprintf("g%d-%d", g, i)
				fail := i%7 == 3
				var runs int
				err := store.updateBatched(putCounter(name, fail, &runs))
				if fail != (err != nil) {
					t.Errorf("%s: err %v, want failure %v", name, err, fail)
				}
			}
		}()
	}
	wg.Wait()
	for g := 0; g < writers; g++ {
		for i := 0; i < each; i++ {
			name := fmt.Sprintf("g%d-%d", g, i)
			if want := i%7 != 3; counterExists(store, name) != want {
				t.Errorf("%s: row kept %v, want %v", name, !want, want)
			}
		}
	}
}

// holdQueue starts a leader whose write waits until release is called, so
// that writers started meanwhile queue behind it; wg waits for the leader
// too.
func holdQueue(t *testing.T, store *Store, wg *sync.WaitGroup) (release func()) {
	t.Helper()
	hold := make(chan struct{})
	leaderIn := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := store.updateBatched(func(txn *memdb.Txn) error {
			close(leaderIn)
			<-hold
			return txn.Insert(tableCounters, &counter{Name: "leader", Value: 1})
		})
		if err != nil {
			t.Errorf("leader: %v", err)
		}
	}()
	<-leaderIn
	return func() { close(hold) }
}

// waitQueued waits until n writers wait in the queue.
func waitQueued(t *testing.T, store *Store, n int) {
	t.Helper()
	waitFor(t, func() bool {
		store.writes.mu.Lock()
		defer store.writes.mu.Unlock()
		return len(store.writes.pending) == n
	})
}

// A write that panics fails its own caller with a panic, as it would
// unbatched; the writers batched with it get their answers and the queue
// goes on serving.
func TestUpdateBatched_PanicStaysWithItsCaller(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	var wg sync.WaitGroup
	release := holdQueue(t, store, &wg)
	const followers = 5
	errs := make([]error, followers)
	panics := make([]any, followers)
	for i := 0; i < followers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[i] = recover() }()
			var runs int
			fn := putCounter(fmt.Sprintf("p%d", i), false, &runs)
			if i == 2 {
				fn = func(*memdb.Txn) error { panic("boom in a write") }
			}
			errs[i] = store.updateBatched(fn)
		}()
	}
	waitQueued(t, store, followers)
	release()
	wg.Wait()
	for i := 0; i < followers; i++ {
		name := fmt.Sprintf("p%d", i)
		if i == 2 {
			msg, _ := panics[i].(string)
			if !strings.Contains(msg, "boom in a write") || !strings.Contains(msg, "first raised at") {
				t.Errorf("the panicking caller got %v, want its panic again", panics[i])
			}
			continue
		}
		if panics[i] != nil || errs[i] != nil || !counterExists(store, name) {
			t.Errorf("%s: panic %v, err %v, stored %v", name, panics[i], errs[i], counterExists(store, name))
		}
	}
	var runs int
	if err := store.updateBatched(putCounter("after", false, &runs)); err != nil || !counterExists(store, "after") {
		t.Errorf("the queue after a panic: %v", err)
	}
}
