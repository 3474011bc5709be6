package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_Runs_OwnConfsReadThePage lists pages of two DAGs' 1,500 runs,
// each with a conf of its own in no order (addOwnConfRuns: past
// fixedMarksMax, so no marks are kept), by conf, of one DAG, every DAG
// and the batch's dag_ids, with filters, and checks through the store's
// rowsRead hook that a page (asked a second time: the DAG's runs sorted
// are remembered per version of its runs) reads about its rows, not every
// run; and that the first page after a trigger, and after a run's delete,
// reads the new run and the page. Before, each read every run of its
// DAGs and sorted them. Each answer is held to the sorting path's.
func TestAPIv2_Runs_OwnConfsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addOwnConfRuns(t, ts.store, "example_bash_operator", base, 1500)
	addOwnConfRuns(t, ts.store, "tutorial", base.Add(time.Second), 1500)
	if m, err := fixedMarksTxn(ts.store.read(), "tutorial", "conf"); err != nil || !m.Unkept {
		t.Fatalf("conf marks of tutorial kept (%v): the fixture wants them past fixedMarksMax", err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const one = "/dags/example_bash_operator/dagRuns"
	for _, tc := range []struct {
		name, path, order, filters string
		maxRead                    int
	}{
		{"conf", one, "conf", "limit=20", 25},
		{"-conf", one, "-conf", "limit=20", 25},
		{"-conf, offset", one, "-conf", "limit=20&offset=100", 125},
		{"every DAG, conf", "/dags/~/dagRuns", "conf", "limit=20", 30},
		{"every DAG, -conf, a state", "/dags/~/dagRuns", "-conf", "limit=20&state=failed", 250},
		{"conf, run_type", one, "conf", "limit=20&run_type=manual", 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path + "?order_by=" + url.QueryEscape(tc.order) + "&" + tc.filters
			checkPageReadSorted(t, ts, &read, http.MethodGet, path, "", tc.maxRead)
		})
	}
	t.Run("batch, -conf", func(t *testing.T) {
		body := `{"dag_ids": ["tutorial", "example_bash_operator"], "page_limit": 20, "page_offset": 10, "order_by": "-conf"}`
		checkPageReadSorted(t, ts, &read, http.MethodPost, "/dags/~/dagRuns/list", body, 50)
	})
	// The first page after a write: a trigger reads its run again, a
	// delete nothing more (the walk passes the run gone).
	path := one + "?order_by=conf&limit=20"
	for i, write := range []func(){
		func() {
			got := ts.do(t, http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", `{"logical_date": null, "conf": {"k": 0.5}}`,
				"Content-Type", "application/json")
			if got.status != 200 {
				t.Fatalf("trigger: %d %.300s", got.status, got.body)
			}
		},
		func() {
			first := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
			var page struct {
				DagRuns []struct {
					RunID string `json:"dag_run_id"`
				} `json:"dag_runs"`
			}
			if err := json.Unmarshal([]byte(first.body), &page); err != nil || len(page.DagRuns) < 3 {
				t.Fatalf("page: %v %.300s", err, first.body)
			}
			got := ts.do(t, http.MethodDelete, apiV2Prefix+"/dags/example_bash_operator/dagRuns/"+url.PathEscape(page.DagRuns[2].RunID), "")
			if got.status != 204 {
				t.Fatalf("delete: %d %.300s", got.status, got.body)
			}
		},
	} {
		write()
		ts.srv.ops.sortLists.Store(true)
		want := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
		ts.srv.ops.sortLists.Store(false)
		read = 0
		got := ts.do(t, http.MethodGet, apiV2Prefix+path, "")
		if got.body != want.body {
			t.Errorf("write %d: answer differs from the sorted one:\n got %.600s\nwant %.600s", i, got.body, want.body)
		}
		if read == 0 || read > 25 {
			t.Errorf("write %d: the first page after it read %d rows, want 1 to 25", i, read)
		}
	}
}

// TestAPIv1_Runs_OwnConfsReadThePage is TestAPIv2_Runs_OwnConfsReadThePage
// for /api/v1 (edition 2): by conf and external_trigger (each run's in
// turn true and false), each page asked a second time.
func TestAPIv1_Runs_OwnConfsReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addOwnConfRuns(t, ts.store, "example_bash_operator", base, 1500)
	addOwnConfRuns(t, ts.store, "tutorial", base.Add(time.Second), 1500)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	one := []string{"example_bash_operator"}
	for _, tc := range []struct {
		name  string
		dagID string
		query v1Values
		want  runQuery
		max   int
	}{
		{"conf", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"conf"}}, runQuery{dagIDs: one, orderBy: "conf"}, 25},
		{"-conf, offset", "example_bash_operator", v1Values{"limit": {"20"}, "offset": {"100"}, "order_by": {"-conf"}},
			runQuery{dagIDs: one, orderBy: "conf", desc: true, offset: 100}, 125},
		{"-external_trigger", "example_bash_operator", v1Values{"limit": {"20"}, "order_by": {"-external_trigger"}},
			runQuery{dagIDs: one, orderBy: "external_trigger", desc: true}, 25},
		{"every DAG, external_trigger, offset", "~", v1Values{"limit": {"20"}, "offset": {"30"}, "order_by": {"external_trigger"}},
			runQuery{orderBy: "external_trigger", offset: 30}, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			want.limit = 20
			runs, total, err := ts.srv.ops.sortedRuns(&want)
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for _, r := range runs {
				wantIDs = append(wantIDs, r.DagID+"/"+r.RunID)
			}
			var got map[string]any
			for range 2 {
				read = 0
				if got, err = ts.srv.V1GetDagRuns(tc.dagID, tc.query); err != nil {
					t.Fatal(err)
				}
			}
			if read == 0 || read > tc.max {
				t.Errorf("the page read %d rows, want 1 to %d", read, tc.max)
			}
			ids, gotTotal := pageRunIDs(t, got)
			if !slices.Equal(ids, wantIDs) || gotTotal != total || total == 0 {
				t.Errorf("page %v of %d, want %v of %d", ids, gotTotal, wantIDs, total)
			}
		})
	}
}

// TestFixedOrder_VersionsAsTheSort writes a DAG's runs with confs of
// their own (new runs by the hundred, deletes anywhere) and after each
// write holds the DAG's remembered conf order (fixedOrderTxn) to its runs
// sorted anew: the runs it holds that are gone aside, the same ids in the
// same order; a version reads the new runs and the one below them, and
// when more than fixedGoneMax of its entries are gone or the newest it
// held is, every block of 256 ids of the DAG's runs looked up and those
// that changed since the list's last look at them read (resync: the
// deletes anywhere leave few unchanged here; a rows-read test has the
// bound). One write in ten deletes 300 of the oldest runs.
func TestFixedOrder_VersionsAsTheSort(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 31)
	dagID := f.dagIDs[0]
	addOwnConfRuns(t, f.ts.store, dagID, f.base.Add(-5000*time.Hour), 1100)
	s := f.ts.store
	read := 0
	if _, err := s.fixedOrderTxn(s.read(), dagID, "conf", false, &read); err != nil {
		t.Fatal(err)
	}
	merged, resynced := 0, 0
	newest := runCountTxn(s.read(), dagID).NewestID
	for round := range 40 {
		err := s.update(func(txn *memdb.Txn) error {
			if f.rng.IntN(3) > 0 {
				for range 1 + f.rng.IntN(300) {
					id, err := nextCounter(txn, counterRunID)
					if err != nil {
						return err
					}
					r := &DagRun{ID: id, DagID: dagID, RunID: fmt.Sprintf("own_%d", id), ExecutionDate: f.base.Add(time.Duration(id) * time.Hour),
						State: RunSuccess, Conf: json.RawMessage(fmt.Sprintf(`{"k":%d}`, f.rng.IntN(5000))), RunType: "manual"}
					if err := txn.Insert(tableDagRuns, r); err != nil {
						return err
					}
					if err := markRunTxn(txn, nil, r); err != nil {
						return err
					}
					if err := countRunTxn(txn, r, 1, 0, 0); err != nil {
						return err
					}
				}
			}
			runs, err := dagRunsOfTxn(txn, dagID)
			if err != nil {
				return err
			}
			gone := f.rng.Perm(len(runs))[:f.rng.IntN(60)]
			if round%10 == 5 {
				gone = f.rng.Perm(300)
			}
			for _, i := range gone {
				if err := deleteRunTxn(txn, runs[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		txn := s.read()
		read = 0
		o, err := s.fixedOrderTxn(txn, dagID, "conf", false, &read)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := s.RunsOfDag(dagID, "")
		if err != nil {
			t.Fatal(err)
		}
		came := 0 // the runs above the newest before
		for _, r := range runs {
			if r.ID > newest {
				came++
			}
		}
		newest = max(newest, runCountTxn(txn, dagID).NewestID)
		blocks := map[int64]bool{}
		for _, r := range runs {
			blocks[r.ID>>(4*pendingBlockDigits)] = true
		}
		// The new runs and the one below them (the one o held newest, or
		// another when that one is gone: the blocks looked up down the
		// prefixes that changed, a row each, those that changed read
		// again, at most every run).
		switch {
		case read == came+1:
			if o.recent == nil && came > 0 {
				merged++
			}
		case read <= came+1+2*len(blocks)+16+len(runs): // the blocks and the prefixes above them
			resynced++
		default:
			t.Errorf("round %d: read %d rows, want the %d new and one, and at most %d blocks, the prefixes above them and every run's %d after them",
				round, read, came, len(blocks), len(runs))
		}
		compare := compareFixedEntries("conf")
		want := make([]fixedEntry, 0, len(runs))
		live := map[int64]bool{}
		for _, r := range runs {
			want = append(want, fixedEntry{value: fixedValuesOf(r), id: r.ID})
			live[r.ID] = true
		}
		slices.SortFunc(want, compare)
		var got []int64
		for _, e := range mergeFixedEntries(o.base, o.recent, compare) {
			if live[e.id] {
				got = append(got, e.id)
			}
		}
		var wantIDs []int64
		for _, e := range want {
			wantIDs = append(wantIDs, e.id)
		}
		if !slices.Equal(got, wantIDs) || o.runs != len(runs) || o.entries()-o.runs > fixedGoneMax {
			t.Fatalf("round %d: %d ids of %d entries (%d runs), want %d; equal %t", round, len(got), o.entries(), o.runs, len(wantIDs), slices.Equal(got, wantIDs))
		}
	}
	if merged == 0 || resynced < 4 {
		t.Errorf("recent merged into the base %d times, blocks read again %d times: want both (four)", merged, resynced)
	}
}

// TestAPIv2_Runs_LedByConfReadThePage lists pages of runs by several keys
// led by conf (Airflow 3's order_by=conf&order_by=…) of a DAG whose runs
// share a few confs (addMixedRuns, a manual run in three: seven confs of
// about 70 runs and {} for 1,000), of one whose runs each have their own
// (addOwnConfRuns), and of both (`~`), with filters (a state, a run
// type). Each conf's runs come in turn from the DAGs' sorted lists: a
// conf's few runs read and sorted, its many ({}) walked in the order of
// the next key picking its own, a conf before the page skipped by its
// count (with a filter, what it picks, counted once per version of the
// run table as the filter's total is): the page reads about its rows
// (asked a second time), where it read and sorted every run of its DAGs.
// Each answer is held to the sorting path's.
func TestAPIv2_Runs_LedByConfReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addMixedRuns(t, ts.store, "example_bash_operator", base, 1500, 3)
	addOwnConfRuns(t, ts.store, "tutorial", base.Add(time.Second), 1500)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	const mixed, own, every = "/dags/example_bash_operator/dagRuns", "/dags/tutorial/dagRuns", "/dags/~/dagRuns"
	for _, tc := range []struct {
		name, path, order, filters string
		maxRead                    int
	}{
		{"a few confs' runs sorted", mixed, "conf,-start_date", "limit=20", 85},
		{"{}'s walked by start_date", mixed, "-conf,-start_date", "limit=20", 45},
		{"{} skipped by its count", mixed, "-conf,run_id", "limit=20&offset=1000", 85},
		{"into {}, walked by run_id", mixed, "-conf,-run_id", "limit=20&offset=30", 90},
		{"the primary key the other way", mixed, "-conf,id", "limit=20", 45},
		{"own confs", own, "conf,-start_date", "limit=20", 25},
		{"own confs, offset", own, "-conf,end_date", "limit=20&offset=100", 125},
		{"every DAG, own confs first", every, "conf,-start_date", "limit=20", 25},
		{"every DAG, {}'s walked by start_date", every, "-conf,-start_date", "limit=20", 45},
		{"every DAG, {} skipped by its count", every, "-conf,run_id", "limit=20&offset=1000", 85},
		// {}'s failed runs, a tenth of the DAG's {} and 100 of its 1,500
		// runs: walked by end_date, about 20·1,500/100 rows.
		{"every DAG, a state", every, "-conf,end_date", "limit=20&state=failed", 320},
		{"a state, {}'s walked by run_id", mixed, "-conf,-run_id", "limit=20&state=success", 45},
		{"a run type, a conf skipped by its count", mixed, "conf,-start_date", "limit=20&offset=100&run_type=manual", 170},
		{"every DAG, a run type, offset", every, "-conf,id", "limit=20&offset=40&run_type=manual", 170},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q []string
			for _, k := range strings.Split(tc.order, ",") {
				q = append(q, "order_by="+url.QueryEscape(k))
			}
			path := tc.path + "?" + strings.Join(q, "&") + "&" + tc.filters
			checkPageReadSorted(t, ts, &read, http.MethodGet, path, "", tc.maxRead)
		})
	}
}

// TestStore_ResetForgetsFixedMarks: a reset deletes every run, and with
// them the fixed marks their confs left (a DAG whose confs descended past
// fixedMarksMax kept Unkept, its marks not kept again, after the reset).
func TestStore_ResetForgetsFixedMarks(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addMixedRuns(t, ts.store, "example_bash_operator", base, 60, 10)
	addOwnConfRuns(t, ts.store, "tutorial", base.Add(time.Second), 1100)
	count := func() int {
		t.Helper()
		it, err := ts.store.read().Get(tableFixedMarks, indexID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for raw := it.Next(); raw != nil; raw = it.Next() {
			n++
		}
		return n
	}
	if n := count(); n < 3 {
		t.Fatalf("%d rows of fixed marks before the reset, want 3 or more", n)
	}
	if err := ts.store.Reset(ts.dags); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d rows of fixed marks after the reset, want none (their runs are gone)", n)
	}
}

// TestAPIv2_Runs_OwnConfsAfterDeletesReadThePage lists a DAG's 3,000 runs
// each with a conf of its own (addOwnConfRuns: about 12 blocks of 256
// ids) by conf, and by conf then -start_date (whose counts need no run
// gone in the sorted list), at the first page after writes that left the
// remembered sorted list with more than fixedGoneMax runs gone (300 of
// the oldest deleted), its newest run gone, or a run gone at all (the
// several keys): the page looks up every block of the DAG's runs and
// reads those that changed, where it read and sorted every run again.
// Each answer is held to the sorting path's.
func TestAPIv2_Runs_OwnConfsAfterDeletesReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	const dagID = "example_bash_operator"
	addOwnConfRuns(t, ts.store, dagID, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 3000)
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	// deleteRuns deletes the DAG's runs pick chooses (by id, ascending).
	deleteRuns := func(pick func(ids []*DagRun) []*DagRun) {
		t.Helper()
		err := ts.store.update(func(txn *memdb.Txn) error {
			runs, err := dagRunsOfTxn(txn, dagID)
			if err != nil {
				return err
			}
			for _, r := range pick(runs) {
				if err := deleteRunTxn(txn, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	const one = "/dags/" + dagID + "/dagRuns?limit=20&order_by=conf"
	for _, tc := range []struct {
		name, path string
		pick       func([]*DagRun) []*DagRun
		maxRead    int
	}{
		// 12 blocks looked up, the two of the 300 read (212 runs left).
		{"300 of the oldest", one, func(runs []*DagRun) []*DagRun { return runs[:300] }, 260},
		{"the newest", one, func(runs []*DagRun) []*DagRun { return runs[len(runs)-1:] }, 300},
		{"several keys, one in the middle", one + "&order_by=-start_date", func(runs []*DagRun) []*DagRun { return runs[1000:1001] }, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "") // the list remembered
			deleteRuns(tc.pick)
			ts.srv.ops.sortLists.Store(true)
			want := ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
			ts.srv.ops.sortLists.Store(false)
			read = 0
			got := ts.do(t, http.MethodGet, apiV2Prefix+tc.path, "")
			if got.status != 200 || got.body != want.body {
				t.Errorf("answer differs from the sorted one:\n got %.600s\nwant %.600s", got.body, want.body)
			}
			if read == 0 || read > tc.maxRead {
				t.Errorf("the first page after the deletes read %d rows, want 1 to %d", read, tc.maxRead)
			}
			t.Logf("the first page after the deletes read %d rows", read)
		})
	}
}

// dagRunsOfTxn is the DAG's runs as txn sees them, by id.
func dagRunsOfTxn(txn *memdb.Txn, dagID string) ([]*DagRun, error) {
	it, err := dagRunsByID(txn, dagID, false)
	if err != nil {
		return nil, err
	}
	var runs []*DagRun
	for raw := it.Next(); raw != nil && raw.(*DagRun).DagID == dagID; raw = it.Next() {
		runs = append(runs, raw.(*DagRun))
	}
	return runs, nil
}
