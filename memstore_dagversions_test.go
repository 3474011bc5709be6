package main

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// A DAG gets version 1 when first loaded, no new version when the same
// definition is loaded again (a restart, a reset), a new one when its
// definition changes, and loses them with the DAG; a snapshot keeps them.
func TestStore_DagVersionsFollowDefinitionChanges(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	store.SetClock(func() time.Time { return clock })
	set, err := loadExampleDAGs(edition3.rules(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	numbers := func(t *testing.T, s *Store, dagID string) []int64 {
		t.Helper()
		vs, err := s.DagVersions(dagID)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, v := range vs {
			out = append(out, v.Number)
		}
		return out
	}
	if err := store.LoadDAGs(set); err != nil {
		t.Fatal(err)
	}
	if err := store.LoadDAGs(set); err != nil {
		t.Fatal(err)
	}
	if got := numbers(t, store, "tutorial"); len(got) != 1 || got[0] != 1 {
		t.Fatalf("tutorial versions after loading twice: %v, want [1]", got)
	}
	v1, err := store.LatestDagVersion("tutorial")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(v1.ID) || !v1.CreatedAt.Equal(clock) {
		t.Errorf("version 1: id %q created %v, want a UUID7 made at %v", v1.ID, v1.CreatedAt, clock)
	}
	changed, err := parseDAGFor([]byte("dag_id: tutorial\nschedule: null\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo}\n"), testNow, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	if _, err := store.UpsertDAG(changed); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpsertDAG(changed); err != nil {
		t.Fatal(err)
	}
	if got := numbers(t, store, "tutorial"); len(got) != 2 || got[1] != 2 {
		t.Fatalf("tutorial versions after a change: %v, want [1 2]", got)
	}
	if v, err := store.DagVersionByNumber("tutorial", 2); err != nil || !v.CreatedAt.Equal(clock) {
		t.Errorf("version 2: %+v %v, want one made at %v", v, err, clock)
	}

	path := filepath.Join(t.TempDir(), "s.json")
	if _, err := writeSnapshot(store, path, snapNow); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	// The folder loaded on top of the restore: tutorial's definition is
	// the folder's again, a change from version 2.
	if err := restored.LoadDAGs(set); err != nil {
		t.Fatal(err)
	}
	if got := numbers(t, restored, "tutorial"); len(got) != 3 {
		t.Errorf("restored tutorial versions after the folder: %v, want [1 2 3]", got)
	}
	if got := numbers(t, restored, "example_bash_operator"); len(got) != 1 {
		t.Errorf("restored example_bash_operator versions: %v, want [1]", got)
	}

	if _, err := store.DeleteDag("tutorial", nil); err != nil {
		t.Fatal(err)
	}
	if got := numbers(t, store, "tutorial"); len(got) != 0 {
		t.Errorf("versions of a deleted DAG: %v, want none", got)
	}
	if got := numbers(t, store, "example_bash_operator"); len(got) != 1 {
		t.Errorf("versions of another DAG after the delete: %v, want [1]", got)
	}
}

// A run and its task instances record the DAG version they were created
// with; a run made after a change records the new version, and the older
// run keeps its own.
func TestStore_RunsRecordTheirDagVersion(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	versionOf := func(t *testing.T, runID string) (string, []string) {
		t.Helper()
		run, err := ts.store.RunByRunID("tutorial", runID)
		if err != nil {
			t.Fatal(err)
		}
		tis, err := ts.store.TaskInstancesOfRun("tutorial", runID)
		if err != nil {
			t.Fatal(err)
		}
		var tiVersions []string
		for _, ti := range tis {
			tiVersions = append(tiVersions, ti.DagVersionID)
		}
		return run.DagVersionID, tiVersions
	}
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial", runID: "first"}); err != nil {
		t.Fatal(err)
	}
	changed, err := parseDAGFor([]byte("dag_id: tutorial\nschedule: null\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo}\n"), testNow, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.UpsertDAG(changed); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial", runID: "second", date: ptr(testNow.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	v1, err := ts.store.DagVersionByNumber("tutorial", 1)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := ts.store.DagVersionByNumber("tutorial", 2)
	if err != nil {
		t.Fatal(err)
	}
	for runID, want := range map[string]string{"first": v1.ID, "second": v2.ID} {
		run, tis := versionOf(t, runID)
		if v, err := ts.store.DagVersionByID(run); err != nil || v.ID != want {
			t.Errorf("run %s: DagVersionByID(%q) = %+v %v", runID, run, v, err)
		}
		if run != want || len(tis) == 0 {
			t.Errorf("run %s: version %q, want %q", runID, run, want)
		}
		for _, v := range tis {
			if v != want {
				t.Errorf("run %s: a task instance has version %q, want %q", runID, v, want)
			}
		}
	}
}
