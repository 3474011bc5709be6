package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// indexWrites lists the index entries that changes write, as
// "table.index" once per entry, sorted: go-memdb writes every index of a
// row it inserts (an update too, even where the key stays), and each
// (table, index) a transaction touches costs a copy of the radix-tree
// nodes on each key's path and an entry in the root tree at commit.
func indexWrites(tb testing.TB, changes memdb.Changes) []string {
	tb.Helper()
	tables := schema().Tables
	var out []string
	for _, c := range changes {
		if c.After == nil {
			continue
		}
		for name, idx := range tables[c.Table].Indexes {
			var n int
			switch x := idx.Indexer.(type) {
			case memdb.SingleIndexer:
				ok, _, err := x.FromObject(c.After)
				if err != nil {
					tb.Fatalf("index %s.%s: %v", c.Table, name, err)
				}
				if ok {
					n = 1
				}
			case memdb.MultiIndexer:
				ok, vals, err := x.FromObject(c.After)
				if err != nil {
					tb.Fatalf("index %s.%s: %v", c.Table, name, err)
				}
				if ok {
					n = len(vals)
				}
			default:
				tb.Fatalf("index %s.%s: indexer %T", c.Table, name, idx.Indexer)
			}
			for range n {
				out = append(out, c.Table+"."+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestTriggerIndexWrites pins the index entries one trigger writes, so
// that an index or row added to the trigger's write shows up here (the
// trigger is the store's hottest write; BENCHMARKS.md, "The trigger's
// index writes", says what query each entry serves).
func TestTriggerIndexWrites(t *testing.T) {
	tests := []struct {
		name, path, body string
		edition          edition
		want             []string
	}{
		{"experimental", apiPrefix + "/dags/example_bash_operator/dag_runs",
			`{"conf": {"key": "value"}, "execution_date": "2026-01-01T00:00:00+00:00"}`, edition2,
			[]string{
				"counters.id",        // the run's integer id (dag_run)
				"counters.id",        // the change index (change)
				"dag_runs.dag_after", // by date, in date order: listings, find by date
				"dag_runs.dag_row",   // in id order: the stable API's default page
				"dag_runs.id",        // by (dag_id, run_id)
				"dag_runs.state",     // unfinished runs: the scheduler
				"run_counts.id",      // the DAG's counts: page totals, the run limit
				"run_counts.id",      // every DAG's counts: the conf bytes limit
				"task_instances.id",  // the run's task instances, one row
			}},
		{"v1", apiV1Prefix + "/dags/example_bash_operator/dagRuns",
			`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00"}`, edition2,
			[]string{
				"counters.id", "counters.id",
				"counters.id", // the event log's last id (event_log)
				"dag_runs.dag_after", "dag_runs.dag_row", "dag_runs.id", "dag_runs.state",
				"event_logs.id", // the action log's row (api.post_dag_run)
				"run_counts.id", "run_counts.id", "task_instances.id",
			}},
		{"v2", apiV2Prefix + "/dags/example_bash_operator/dagRuns",
			`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00"}`, edition3,
			[]string{
				"counters.id", "counters.id", "counters.id",
				"dag_runs.dag_after",
				"dag_runs.dag_date", // by logical date: run_after is now, not the logical date (apache/airflow#59477)
				"dag_runs.dag_row", "dag_runs.id", "dag_runs.state",
				"event_logs.id", // the action log's row (trigger_dag_run)
				// The DAG's counts hold the task instances' block in the
				// default orders too, pending (tiPendingMax): no ti_order
				// entry but one trigger in tiPendingMax's
				// (TestTriggerIndexWrites_PendingBlocks).
				"run_counts.id", "run_counts.id", "task_instances.id",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, dags := benchStoreWith(t)
			var got []string
			store.committed = func(c memdb.Changes) { got = indexWrites(t, c) }
			h := benchHandlerOf(t, tc.edition, store, dags)
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			req.Host = "127.0.0.1"
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("POST %s: %d %s", tc.path, rec.Code, rec.Body)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("index entries written:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestTriggerIndexWrites_PendingBlocks: a v2 trigger's block of task
// instances waits in its DAG's run count; the trigger that finds
// tiPendingMax there writes them as one group (one entry of
// grouped_ti_order), and its own block waits. No trigger writes ti_order;
// every block stays listed (one a run).
func TestTriggerIndexWrites_PendingBlocks(t *testing.T) {
	store, dags := benchStoreWith(t)
	var got []string
	store.committed = func(c memdb.Changes) { got = indexWrites(t, c) }
	h := benchHandlerOf(t, edition3, store, dags)
	for i := range 2*tiPendingMax + 1 {
		body := fmt.Sprintf(`{"logical_date": "2026-01-01T00:%02d:00+00:00", "dag_run_id": "run_%d"}`, i, i)
		req := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", strings.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("trigger %d: %d %s", i, rec.Code, rec.Body)
		}
		var want []string
		if i > 0 && i%tiPendingMax == 0 {
			want = []string{"grouped_ti_order.id"}
		}
		var order []string
		for _, entry := range got {
			if strings.Contains(entry, "ti_order") { // and mapped_, grouped_
				order = append(order, entry)
			}
		}
		if !slices.Equal(order, want) {
			t.Fatalf("trigger %d: index entries %q, want %q of the order tables", i, got, want)
		}
		c := runCountTxn(store.read(), "example_bash_operator")
		if wantPending := i%tiPendingMax + 1; len(c.Pending) != wantPending {
			t.Fatalf("trigger %d: %d blocks pending, want %d", i, len(c.Pending), wantPending)
		}
		if blocks := len(orderBlocks(t, store.read())); blocks != i+1 {
			t.Fatalf("trigger %d: %d blocks, want %d", i, blocks, i+1)
		}
	}
}
