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
		var blocks int
		it, err := store.read().Get(tableTIOrder, indexID)
		if err != nil {
			t.Fatal(err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			blocks++
		}
		if blocks != i+1 {
			t.Fatalf("%s: %d task-instance blocks, want one a run", runID, blocks)
		}
	}
}
