package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// orderBlocks lists every block of the default orders: ti_order's rows,
// the blocks pending in the run counts and those of the groups.
func orderBlocks(tb testing.TB, txn *memdb.Txn) []*tiOrderRow {
	tb.Helper()
	var out []*tiOrderRow
	it, err := txn.Get(tableTIOrder, indexID)
	if err != nil {
		tb.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*tiOrderRow))
	}
	if it, err = txn.Get(tableRunCounts, indexID); err != nil {
		tb.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*runCount).Pending...)
	}
	if it, err = txn.Get(tableTIOrderGroups, indexID); err != nil {
		tb.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*tiOrderGroup).Blocks...)
	}
	return out
}

// triggerRunsV3 creates n runs of dag as a v2 trigger does (edition 3's
// start: the task instances' ids made in one go, so that each run's block
// pends in the DAG's run count), one a minute from base, named prefix_i.
func triggerRunsV3(tb testing.TB, store *Store, dag *DAG, base time.Time, prefix string, n int) {
	tb.Helper()
	for i := range n {
		date := base.Add(time.Duration(i) * time.Minute)
		nr := newRun{start: edition3.rules().newRun, dag: dag, runID: fmt.Sprintf("%s_%d", prefix, i), date: date,
			conf: json.RawMessage(`{}`), now: date, external: true, runType: "manual", triggeredBy: "rest_api"}
		if _, err := store.CreateRun(func(storeView) (*newRun, error) { return &nr, nil }); err != nil {
			tb.Fatal(err)
		}
	}
}

// checkOrderBlocks checks the blocks of the default orders, ti_order's,
// the pending and the grouped ones: each holds N task instances of its run
// (N > 0), a mapped one only one, blocks of one DAG and map_index do not overlap, a DAG's pending
// blocks and a group's are unmapped and by lo, a DAG's groups follow one
// another by key and none is empty, and the blocks hold as many task
// instances as the DAG's count of those with an id.
func checkOrderBlocks(t *testing.T, store *Store, step string) {
	t.Helper()
	txn := store.read()
	type span struct {
		dagID    string
		mapIndex int
	}
	blocks := map[span][]*tiOrderRow{}
	held := map[string]int{}
	for _, b := range orderBlocks(t, txn) {
		row, err := runTasksTxn(txn, b.DagID, b.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(blockMembers(row, b)); n != b.N || n == 0 {
			t.Fatalf("%s: block %+v holds %d task instances", step, *b, n)
		}
		if b.MapIndex >= 0 && b.Lo != b.Hi {
			t.Fatalf("%s: mapped block %+v holds more than one task instance", step, *b)
		}
		s := span{b.DagID, b.MapIndex}
		blocks[s] = append(blocks[s], b)
		held[b.DagID] += b.N
	}
	for s, bs := range blocks {
		slices.SortFunc(bs, func(a, b *tiOrderRow) int { return strings.Compare(a.Lo, b.Lo) })
		for i := 1; i < len(bs); i++ {
			if bs[i-1].Hi >= bs[i].Lo {
				t.Fatalf("%s: blocks of %v overlap: %+v and %+v", step, s, *bs[i-1], *bs[i])
			}
		}
	}
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		t.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runCount)
		if c.DagID != allDAGs && c.OrderedTIs != held[c.DagID] {
			t.Fatalf("%s: %s counts %d task instances with an id, its blocks hold %d", step, c.DagID, c.OrderedTIs, held[c.DagID])
		}
		if len(c.Pending) > tiPendingMax || !slices.IsSortedFunc(c.Pending, func(a, b *tiOrderRow) int { return strings.Compare(a.Lo, b.Lo) }) {
			t.Fatalf("%s: %s has %d blocks pending, not by lo or more than %d", step, c.DagID, len(c.Pending), tiPendingMax)
		}
		for _, b := range c.Pending {
			if b.DagID != c.DagID || b.MapIndex != -1 {
				t.Fatalf("%s: %s has block %+v pending", step, c.DagID, *b)
			}
		}
	}
	if it, err = txn.Get(tableTIOrderGroups, indexID); err != nil {
		t.Fatal(err)
	}
	var last *tiOrderGroup
	for raw := it.Next(); raw != nil; raw = it.Next() {
		g := raw.(*tiOrderGroup)
		byLo := func(a, b *tiOrderRow) int { return strings.Compare(a.Lo, b.Lo) }
		if len(g.Blocks) == 0 || g.Blocks[0].Lo < g.Key || !slices.IsSortedFunc(g.Blocks, byLo) {
			t.Fatalf("%s: group %s of %s: %d blocks, not by lo or before the key", step, g.Key, g.DagID, len(g.Blocks))
		}
		for _, b := range g.Blocks {
			if b.DagID != g.DagID || b.MapIndex != -1 {
				t.Fatalf("%s: group %s of %s has block %+v", step, g.Key, g.DagID, *b)
			}
		}
		if last != nil && last.DagID == g.DagID && last.Blocks[len(last.Blocks)-1].Hi >= g.Key {
			t.Fatalf("%s: groups %s and %s of %s overlap", step, last.Key, g.Key, g.DagID)
		}
		last = g
	}
}

// TestStore_TaskInstanceOrder_PendingBlocks applies random writes to the
// task instances of two DAGs whose runs a v2 trigger made, some of their
// blocks pending in the run counts and some in groups: new runs (the
// pending blocks going to a group every tiPendingMax), new tries, mapped
// tasks expanded, task instances and runs deleted, ids that fall inside
// another run's block (a restore of ids another clock made: the block
// splits, pending or not) and a snapshot's restore (which orders every
// block in ti_order); after each, the blocks hold what the counts say and
// pages in both orders equal the task instances stored, sorted.
func TestStore_TaskInstanceOrder_PendingBlocks(t *testing.T) {
	t.Parallel()
	store, _ := benchStoreWith(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dags := []*DAG{benchDAG(t, "pend_a", 3), benchDAG(t, "pend_b", 2)}
	for i, dag := range dags {
		if _, err := store.UpsertDAG(dag); err != nil {
			t.Fatal(err)
		}
		triggerRunsV3(t, store, dag, base, "first", []int{2*tiPendingMax + 3, tiPendingMax - 1}[i])
	}
	rng := rand.New(rand.NewPCG(21, 3))
	check := func(step string) {
		t.Helper()
		checkOrderBlocks(t, store, step)
		checkOrderPages(t, store, dags, [][]string{nil, {"pend_a"}, {"pend_b", "pend_a"}}, rng, step)
	}
	check("triggered")
	if c := runCountTxn(store.read(), "pend_a"); len(c.Pending) != 3 {
		t.Fatalf("pend_a: %d blocks pending, want 3", len(c.Pending))
	}
	triggered, restored := 0, false
	crafted := map[string]bool{} // ids made past others: each once
	for step := range 400 {
		dag := dags[rng.IntN(len(dags))]
		runs, err := store.RunsOfDag(dag.DagID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 0 {
			triggerRunsV3(t, store, dag, base.Add(time.Duration(1000+triggered)*time.Hour), "more", 1)
			continue
		}
		run := runs[rng.IntN(len(runs))]
		tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		task := dag.Tasks[rng.IntN(len(dag.Tasks))].TaskID
		i := slices.IndexFunc(tis, func(ti *TaskInstance) bool { return ti.TaskID == task })
		var what string
		switch op := rng.IntN(20); {
		case op < 5: // a new run
			what = "trigger"
			triggered++
			triggerRunsV3(t, store, dag, base.Add(time.Duration(triggered)*time.Hour), fmt.Sprintf("more%d", triggered), 1)
		case op < 8 && i >= 0: // a new try
			what = "retry " + task
			next := *tis[i]
			nextTryID(&next)
			err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &next) })
		case op < 10 && i >= 0 && tis[i].MapIndex == -1: // expanded, index 0 keeping the id
			what = "expand " + task
			var mapped []*TaskInstance
			for mi := range 2 + rng.IntN(4) {
				m := *tis[i]
				m.MapIndex = mi
				if mi > 0 {
					nextTryID(&m)
				}
				mapped = append(mapped, &m)
			}
			err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mapped...) })
		case op < 12 && i >= 0:
			what = "delete " + task
			_, err = store.DeleteTaskInstance(dag.DagID, run.RunID, task, tis[i].MapIndex)
		case op < 14:
			what = "delete the run"
			err = store.update(func(txn *memdb.Txn) error { return deleteRunTxn(txn, run) })
		case op < 19:
			// An id just past another task instance's, inside its
			// block unless it is the block's last: a new try's, or
			// a task instance made again.
			other := runs[rng.IntN(len(runs))]
			otis, err := store.TaskInstancesOfRun(dag.DagID, other.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if len(otis) == 0 {
				continue
			}
			x := otis[rng.IntN(len(otis))].ID
			if x[35] == 'f' || x[35] == '9' {
				continue
			}
			id := x[:35] + string(x[35]+1)
			if crafted[id] {
				continue
			}
			crafted[id] = true
			what = "an id past " + x + " in " + other.RunID
			ti := &TaskInstance{ID: id, DagID: dag.DagID, RunID: run.RunID, TaskID: task, MapIndex: -1,
				ExecutionDate: run.ExecutionDate, State: TaskNone, Pool: "default_pool", PoolSlots: 1, Queue: "default"}
			if i >= 0 {
				next := *tis[i]
				next.ID = id
				ti = &next
			}
			err = store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, ti) })
		default:
			if restored {
				continue
			}
			what, restored = "restored", true
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(store, path, base); err != nil {
				t.Fatal(err)
			}
			if store, _, err = restoreSnapshot(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			for _, dag := range dags {
				if c := runCountTxn(store.read(), dag.DagID); len(c.Pending) != 0 {
					t.Fatalf("restored: %s has %d blocks pending", dag.DagID, len(c.Pending))
				}
			}
		}
		if err != nil {
			t.Fatalf("step %d, %s of %s: %v", step, what, run.RunID, err)
		}
		check(fmt.Sprintf("step %d, %s of %s/%s", step, what, dag.DagID, run.RunID))
	}
	if !restored {
		t.Error("no restore among the steps")
	}
}

// TestStore_BlockFrom_Groups: the seek for the last block starting at an
// id or before it finds it among groups and pending blocks, also when the
// group whose key comes before the id lost its blocks before the id (the
// block is then the group before's last); a group whose every block goes
// is dropped.
func TestStore_BlockFrom_Groups(t *testing.T) {
	t.Parallel()
	store, _ := benchStoreWith(t)
	dag := benchDAG(t, "grouped", 2)
	if _, err := store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	// Groups of runs 0-15 and 16-31, run 32 pending.
	triggerRunsV3(t, store, dag, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "run", 2*tiPendingMax+1)
	groups := func() int {
		t.Helper()
		it, err := store.read().Get(tableTIOrderGroups, indexID+"_prefix", "grouped")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for raw := it.Next(); raw != nil; raw = it.Next() {
			n++
		}
		return n
	}
	if n, pending := groups(), len(runCountTxn(store.read(), "grouped").Pending); n != 2 || pending != 1 {
		t.Fatalf("%d groups and %d blocks pending, want 2 and 1", n, pending)
	}
	firstID := func(runID string) string {
		t.Helper()
		tis, err := store.TaskInstancesOfRun("grouped", runID)
		if err != nil || len(tis) != 2 {
			t.Fatalf("task instances of %s: %d, %v", runID, len(tis), err)
		}
		return min(tis[0].ID, tis[1].ID)
	}
	run := func(i int) string { return fmt.Sprintf("run_%d", i) }
	seek := func(id, wantRun string) {
		t.Helper()
		b, err := blockFromTxn(store.read(), "grouped", -1, id)
		if err != nil {
			t.Fatal(err)
		}
		got := "" // no block
		if b != nil {
			got = b.RunID
		}
		if got != wantRun {
			t.Errorf("block from %s: run %q's, want run %q's", id, got, wantRun)
		}
	}
	id16 := firstID(run(16))
	seek(firstID(run(0)), run(0))
	seek(id16, run(16))
	seek(firstID(run(17)), run(17))
	seek(firstID(run(32)), run(32))
	seek("0", "")

	deleteRun := func(i int) {
		t.Helper()
		r, err := store.RunByRunID("grouped", run(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := store.update(func(txn *memdb.Txn) error { return deleteRunTxn(txn, r) }); err != nil {
			t.Fatal(err)
		}
	}
	deleteRun(16)
	seek(id16, run(15)) // the second group's key is run 16's id: the first group's last
	seek(firstID(run(17)), run(17))
	checkOrderBlocks(t, store, "run 16 deleted")
	for i := 17; i < 2*tiPendingMax; i++ {
		deleteRun(i)
	}
	if n := groups(); n != 1 {
		t.Errorf("%d groups once the second's runs are gone, want 1", n)
	}
	seek(firstID(run(32)), run(32))
	checkOrderBlocks(t, store, "runs 16-31 deleted")
	checkOrderPages(t, store, []*DAG{dag}, [][]string{nil, {"grouped"}}, rand.New(rand.NewPCG(1, 2)), "runs 16-31 deleted")
}
