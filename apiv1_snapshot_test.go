package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshot_RunFieldsOfTheStableAPI: a run's note, updated_at and data
// interval survive a snapshot; a snapshot written before they existed
// restores them as absent; values airlite never writes are refused.
func TestSnapshot_RunFieldsOfTheStableAPI(t *testing.T) {
	t.Parallel()
	good := snapRich(t)
	restore := func(t *testing.T, data []byte) (*Store, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "snapshot.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		store, _, err := restoreSnapshot(t.Context(), path)
		return store, err
	}
	t.Run("older snapshot", func(t *testing.T) {
		t.Parallel()
		var dagID, runID string
		old, _ := snapForge(t, good, tableDagRuns, nil, func(row map[string]any) {
			dagID, runID = row["dag_id"].(string), row["run_id"].(string)
			for _, k := range []string{"updated_at", "note", "data_interval_start", "data_interval_end"} {
				delete(row, k)
			}
		})
		store, err := restore(t, old)
		if err != nil {
			t.Fatal(err)
		}
		run, err := store.RunByRunID(dagID, runID)
		if err != nil {
			t.Fatal(err)
		}
		if run.UpdatedAt != nil || run.Note != nil || run.DataIntervalStart != nil || run.DataIntervalEnd != nil {
			t.Errorf("restored %+v: want the new fields absent", run)
		}
	})
	t.Run("written and read back", func(t *testing.T) {
		t.Parallel()
		withNote, _ := snapForge(t, good, tableDagRuns, nil, func(row map[string]any) {
			row["note"] = "checked <&> é"
			row["data_interval_start"] = "2024-01-01T00:00:00Z"
			row["data_interval_end"] = "2024-01-02T00:00:00Z"
		})
		if _, err := restore(t, withNote); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		name, want string
		edit       func(map[string]any)
	}{
		{"one end of an interval", "go together", set("data_interval_start", "2024-01-01T00:00:00Z")},
		{"note too long", "longer than 1000", set("note", strings.Repeat("n", 1001))},
		{"updated_at past year 9999", "year 10000", set("updated_at", "9999-12-31T23:00:00-05:00")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged, _ := snapForge(t, good, tableDagRuns, nil, tc.edit)
			_, err := restore(t, forged)
			if !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore = %v, want unreadable saying %q", err, tc.want)
			}
		})
	}
}
