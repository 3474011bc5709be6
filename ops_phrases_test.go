package main

import (
	"errors"
	"testing"
	"time"
)

// TestPhrasebooks_RunExists: one fault, run_exists, reads as each API
// and edition answers a duplicate today: the experimental API by the
// edition's duplicate rule (the run id first in 1.10, one message in
// Airflow 2, a crash when id and date name two runs), /api/v1 with a 409
// naming the logical date first.
func TestPhrasebooks_RunExists(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.FixedZone("", 2*3600))
	fault := func(values ...string) error {
		e := opErr(errConflict, faultRunExists, "dag_id", "d", "run_id", "r", "date", at.Format(time.RFC3339Nano),
			"by_date_at", at.UTC().Format(time.RFC3339Nano))
		for i := 0; i+1 < len(values); i += 2 {
			e.values[values[i]] = values[i+1]
		}
		return e
	}
	exp := func(e edition) phrasebook { return expPhrases(e.rules()) }
	cases := []struct {
		name     string
		book     phrasebook
		err      error
		wantKind error
		wantText string
	}{
		{"2: by id", exp(edition2), fault("by_id", "r"), errBadRequest,
			"A DAG Run already exists for DAG d at 2024-05-01 09:00:00+02:00 with run id r"},
		{"2: by date", exp(edition2), fault("by_date", "other"), errBadRequest,
			"A DAG Run already exists for DAG d at 2024-05-01 09:00:00+02:00 with run id r"},
		{"2: two runs", exp(edition2), fault("by_id", "r", "by_date", "other"), errCrash,
			"run id r and execution date 2024-05-01 09:00:00+02:00 match two different runs of d"},
		{"2: one run by both", exp(edition2), fault("by_id", "r", "by_date", "r", "same", "true"), errBadRequest,
			"A DAG Run already exists for DAG d at 2024-05-01 09:00:00+02:00 with run id r"},
		{"1.10: by id", exp(edition110), fault("by_id", "r", "by_date", "r", "same", "true"), errBadRequest,
			"Run id r already exists for dag id d"},
		{"1.10: by date", exp(edition110), fault("by_date", "other"), errCrash,
			"a run of d already exists at 2024-05-01T07:00:00+00:00 (run id other): execution dates are unique per DAG"},
		{"v1: by date first", v1TriggerPhrases, fault("by_id", "r", "by_date", "other"), nil,
			"DAGRun with DAG ID: 'd' and DAGRun logical date: '2024-05-01 07:00:00+00:00' already exists"},
		{"v1: by id", v1TriggerPhrases, fault("by_id", "r"), nil,
			"DAGRun with DAG ID: 'd' and DAGRun ID: 'r' already exists"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.book.phrase(tc.err)
			if got.Error() != tc.wantText {
				t.Errorf("text %q, want %q", got.Error(), tc.wantText)
			}
			if tc.wantKind != nil && !errors.Is(got, tc.wantKind) {
				t.Errorf("%v is not %v", got, tc.wantKind)
			}
			var p *problem
			if tc.wantKind == nil && (!errors.As(got, &p) || p.status != 409) {
				t.Errorf("%#v, want a 409 problem", got)
			}
		})
	}
}
