package main

import (
	"errors"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// The store's errors say what happened and name no status; the APIs
// answer each kind as they did when the store's errors carried the API's
// kinds: the same status and the same text (a row the store did not find
// or a key it found taken is phrased by the caller, which knows the
// request; reaching the answer bare, it is answered generically).
func TestStoreErrors_AnsweredByTheAPI(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, edition2).srv
	date := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	full := syscall.ENOSPC
	for _, tc := range []struct {
		name       string
		err        error
		kind       error // the store's kind it matches
		wantStatus int
		wantText   string
	}{
		{"missing row", errNotFound, errNotFound, 404, genericInternalError},
		{"missing run", &missingError{what: "run", dagID: "d", runID: "r"}, errNotFound, 404, genericInternalError},
		{"taken key", &existsError{what: "pool", id: "p"}, errExists, 409, genericInternalError},
		{"runs per DAG", &limitError{limit: limitRunsPerDag, dagID: "d", have: 3, finished: -1}, errLimitReached, 400,
			"DAG d has 3 runs, the limit of --max-runs-per-dag: remove runs (POST /_airlite/reset) or start airlite with --run-retention drop-oldest-finished"},
		{"a value's size", &limitError{limit: limitXComBytes, key: "k", adding: 9, max: 8}, errLimitReached, 400,
			"the value of XCom k has 9 bytes, over 8, the limit of --max-xcom-bytes: store less or start airlite with a higher --max-xcom-bytes"},
		{"sub-DAG run_id", &subDagRunExists{childID: "p.c", runID: "r"}, errSubDagRunExists, 500,
			"sub-DAG p.c already has a run with run id r"},
		{"sub-DAG date", &subDagRunExists{childID: "p.c", date: date}, errSubDagRunExists, 500,
			"sub-DAG p.c already has a run at 2024-05-01T00:00:00+00:00"},
		{"lease not extended yet", &leaseError{path: "/s.ids", what: "run", ceiling: 7}, errUnavailable, 503,
			"no new run: the id lease at /s.ids covers run ids up to 7 and is not extended yet; try again"},
		{"lease cannot be written", &leaseError{path: "/s.ids", problem: full, what: "pool", ceiling: 2}, errUnavailable, 503,
			"no new pool: the id lease at /s.ids cannot be written (no space left on device), and it covers pool ids up to 2 only: " +
				"an id past it could be handed out again after a crash; airlite tries again every --snapshot-interval"},
		{"lease state", &leaseError{path: "/s.ids", problem: full, run: 7, pool: 2}, errUnavailable, 503,
			"the id lease at /s.ids cannot be written (no space left on device): new run and pool ids stop at run id 7 and pool id 2, " +
				"the last it covers, so that a crash cannot hand out an id twice; airlite tries again every --snapshot-interval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.kind) {
				t.Errorf("%v does not match its kind %v", tc.err, tc.kind)
			}
			for _, apiKind := range []error{errBadRequest, errCrash, errConflict, errAirflow} {
				if errors.Is(tc.err, apiKind) {
					t.Errorf("%v matches the API's kind %v: the store names no answer", tc.err, apiKind)
				}
			}
			wrapped := errors.Join(errors.New("context"), tc.err)
			status, text := srv.errorAnswer(httptest.NewRequest("GET", "/api/v1/pools", nil), wrapped)
			if status != tc.wantStatus {
				t.Errorf("status %d, want %d", status, tc.wantStatus)
			}
			if text != tc.wantText {
				t.Errorf("text %q, want %q", text, tc.wantText)
			}
		})
	}
}
