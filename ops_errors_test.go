package main

import (
	"errors"
	"testing"
)

func TestPhrasebook_PhrasesKnownFaultsOnly(t *testing.T) {
	t.Parallel()
	book := phrasebook{"dag_not_found": func(e *opError) error {
		return newAPIError(errNotFound, "Dag id %s not found in DagModel", e.value("dag_id"))
	}}
	tests := []struct {
		name     string
		err      error
		wantMsg  string
		wantKind error
	}{
		{"known fault", opErr(errNotFound, "dag_not_found", "dag_id", "d1"), "Dag id d1 not found in DagModel", errNotFound},
		{"unknown fault keeps its kind", opErr(errInvalid, "bad_thing", "x", "1").withDetail("x is bad"), `bad_thing x="1": x is bad`, errInvalid},
		{"other errors pass", errConflict, "already exists", errConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := book.phrase(tc.err)
			if got.Error() != tc.wantMsg || !errors.Is(got, tc.wantKind) {
				t.Errorf("phrase(%v) = %q (kind ok: %v), want %q of kind %v", tc.err, got, errors.Is(got, tc.wantKind), tc.wantMsg, tc.wantKind)
			}
		})
	}
}
