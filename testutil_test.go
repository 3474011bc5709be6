package main

import (
	"testing"
	"time"
)

// storeWith is a fresh store with the given definitions loaded.
func storeWith(tb testing.TB, dags *DAGSet) *Store {
	tb.Helper()
	store, err := newStore()
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.LoadDAGs(dags); err != nil {
		tb.Fatalf("load dags: %v", err)
	}
	return store
}

// pollUntil checks cond every few milliseconds until it holds (true) or
// limit has passed (false).
func pollUntil(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// waitFor fails the test unless cond holds within ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !pollUntil(10*time.Second, cond) {
		t.Fatal("condition not met in 10 s")
	}
}
