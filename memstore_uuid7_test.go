package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestUUID7Source_Ids: the ids parse as version 7 UUIDs of the RFC
// variant in the canonical form, carry the time they were made, and grow
// strictly across batches of every size, singles and the refills of the
// random bytes (more than 64 ids).
func TestUUID7Source_Ids(t *testing.T) {
	t.Parallel()
	var src uuid7Source
	before := time.Now().Add(-time.Millisecond)
	var all []string
	for _, n := range []int{1, 7, 16, 1, 64, 3, 200} {
		ids := make([]string, n)
		src.fill(ids)
		all = append(all, ids...)
	}
	after := time.Now().Add(time.Millisecond)
	seen := map[string]bool{}
	for i, id := range all {
		u, err := uuid.Parse(id)
		if err != nil || len(id) != 36 || u.String() != id {
			t.Fatalf("id %d %q: not a canonical UUID (%v)", i, id, err)
		}
		if u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("id %d %q: version %d, variant %v", i, id, u.Version(), u.Variant())
		}
		sec, nsec := u.Time().UnixTime()
		if at := time.Unix(sec, nsec); at.Before(before.Truncate(time.Millisecond)) || at.After(after) {
			t.Fatalf("id %d %q: time %v, not within %v..%v", i, id, at, before, after)
		}
		if i > 0 && id <= all[i-1] {
			t.Fatalf("id %d %q does not grow past %q", i, id, all[i-1])
		}
		if seen[id[19:]] {
			t.Fatalf("id %d %q: random part seen before", i, id)
		}
		seen[id[19:]] = true
	}
}

// TestTrigger_TaskInstanceIDsGrow: a v2 trigger's task instances get ids
// made in one go, growing in the DAG's task order and past the ids of the
// run before, so that each run's task instances are one block of ti_order.
func TestTrigger_TaskInstanceIDsGrow(t *testing.T) {
	t.Parallel()
	store, dags := benchStoreWith(t)
	h := benchHandlerOf(t, edition3, store, dags)
	var last string
	for i := range 3 {
		runID := fmt.Sprintf("run_%d", i)
		body := fmt.Sprintf(`{"logical_date": "2026-01-0%dT00:00:00+00:00", "dag_run_id": %q}`, i+1, runID)
		req := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", strings.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("trigger %s: %d %s", runID, rec.Code, rec.Body)
		}
		row, err := runTasksTxn(store.read(), "example_bash_operator", runID)
		if err != nil {
			t.Fatal(err)
		}
		byTask := map[string]string{}
		for _, ti := range row.TIs {
			byTask[ti.TaskID] = ti.ID
		}
		var def *DAG
		for _, d := range dags.DAGs {
			if d.DagID == "example_bash_operator" {
				def = d
			}
		}
		if len(byTask) != len(def.Tasks) {
			t.Fatalf("%s: %d task instances, want %d", runID, len(byTask), len(def.Tasks))
		}
		for _, task := range def.Tasks {
			id := byTask[task.TaskID]
			if _, err := uuid.Parse(id); err != nil || id <= last {
				t.Fatalf("%s: task %s id %q, want a UUID past %q", runID, task.TaskID, id, last)
			}
			last = id
		}
		if blocks := len(orderBlocks(t, store.read())); blocks != i+1 {
			t.Fatalf("%s: %d task-instance blocks, want one a run", runID, blocks)
		}
	}
}

// TestUUID7Source_RaisePast: the source moves past a stored uuid7 (even
// one whose clock ran ahead) and refuses what would push its ids' time
// more than a year on, or what is no UUID.
func TestUUID7Source_RaisePast(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ahead := func(d time.Duration) string {
		var src uuid7Source
		src.last = now.Add(d).UnixMilli() << 12
		id := make([]string, 1)
		src.fill(id)
		return id[0]
	}
	for _, tc := range []struct {
		name, id string
		ok       bool
	}{
		{"behind", ahead(-time.Hour), true},
		{"a minute ahead", ahead(time.Minute), true},
		{"a month ahead", ahead(30 * 24 * time.Hour), true},
		{"two years ahead", ahead(2 * 365 * 24 * time.Hour), false},
		{"a version 4 id", "ffffffff-ffff-4fff-bfff-ffffffffffff", false},
		{"no UUID", "not-a-uuid", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var src uuid7Source
			if ok := src.raisePast(tc.id, now); ok != tc.ok {
				t.Fatalf("raisePast(%q): %t, want %t", tc.id, ok, tc.ok)
			}
			id := make([]string, 1)
			src.fill(id)
			if tc.ok && id[0] <= tc.id {
				t.Fatalf("next id %q, not past %q", id[0], tc.id)
			}
		})
	}
}

// TestStoreRestore_TaskInstanceIDsAhead: a restore that brings a task
// instance id ahead of the clock moves the id source past it, so a new
// run's ids sort after it and its block is written without a look at the
// blocks stored; an id the source cannot move past marks the store, and a
// new run's block is checked against the stored ones (orderTIsTxn).
func TestStoreRestore_TaskInstanceIDsAhead(t *testing.T) {
	t.Parallel()
	var src uuid7Source
	src.last = time.Now().Add(2*time.Second).UnixMilli() << 12
	soon := make([]string, 1)
	src.fill(soon)
	for _, tc := range []struct {
		name, id  string
		wantAhead bool
	}{
		{"two seconds ahead", soon[0], false},
		{"a version 4 id", "ffffffff-ffff-4fff-bfff-ffffffffffff", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store, r := newRestore(t)
			date := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
			if err := r.Insert(tableDagRuns, &DagRun{ID: 1, DagID: "d", RunID: "r", ExecutionDate: date, State: RunSuccess}); err != nil {
				t.Fatal(err)
			}
			if err := r.InsertTaskInstances([]*TaskInstance{{ID: tc.id, DagID: "d", RunID: "r", TaskID: "a", MapIndex: -1, State: TaskSuccess}}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := store.aheadTIIDs.Load(); got != tc.wantAhead {
				t.Fatalf("aheadTIIDs %t, want %t", got, tc.wantAhead)
			}
			if !tc.wantAhead {
				if next := newTaskInstanceID(); next <= tc.id {
					t.Fatalf("next id %q, not past the restored %q", next, tc.id)
				}
			}
		})
	}
}
