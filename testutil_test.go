package main

import "testing"

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
