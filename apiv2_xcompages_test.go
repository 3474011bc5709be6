package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestAPIv2_XComs_ScopedPagesReadThePage lists pages of a DAG's, a
// task's, a run's and a run's task's XCom entries (addXComGrid), with the
// filters a scope fixes: each answer is the long way's byte for byte
// (forced by a key pattern that drops nothing), and a page reads its own
// entries, those its offset skips within a block, and a count row a
// block (and the run it names), not the scope.
func TestAPIv2_XComs_ScopedPagesReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addXComGrid(t, ts.store)
	var read int
	ts.store.rowsRead = func(r int) { read += r }
	run := "/dagRuns/" + url.PathEscape("scheduled__2025-01-01T00:02:00+00:00")
	const long = "&xcom_key_pattern=~"
	for _, tc := range []struct {
		name, path string
		maxRead    int
	}{
		// 40 entries a DAG: 15 read and its count.
		{"a DAG's", "/dags/tutorial/dagRuns/~/taskInstances/~/xcomEntries?limit=5&offset=10", 16},
		{"a DAG's task's", "/dags/tutorial/dagRuns/~/taskInstances/a/xcomEntries?limit=4&offset=3", 8},
		{"a DAG's tasks by pattern", "/dags/tutorial/dagRuns/~/taskInstances/~/xcomEntries?limit=4&offset=11&task_id_pattern=b", 17},
		// 8 entries a run, 4 a task: the run, its tasks' two counts.
		{"a run's", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=3&offset=2", 8},
		{"a run's, past its first task", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=2&offset=5", 6},
		{"a run's task's", "/dags/tutorial" + run + "/taskInstances/b/xcomEntries?limit=2&offset=1", 5},
		{"a run's by map_index", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=2&map_index=1", 7},
		{"a run's by map_index_filter", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=2&map_index_filter=-1", 7},
		{"a run's by key", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=3&xcom_key=k", 7},
		{"a run's task's by key and map_index", "/dags/tutorial" + run + "/taskInstances/a/xcomEntries?xcom_key=k&map_index=-1", 3},
		{"a run's by its dates", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=3&run_after_gte=2000-01-01T00:00:00Z&logical_date_lte=2030-01-01T00:00:00Z", 6},
		{"a run's by its run_id pattern", "/dags/tutorial" + run + "/taskInstances/~/xcomEntries?limit=3&run_id_pattern=00:02", 6},
		// Every DAG's run: 3 DAG counts, and each DAG's run and its 2
		// task counts; 7 entries (the first DAG's task a skipped).
		{"every DAG's run", "/dags/~" + run + "/taskInstances/~/xcomEntries?limit=5&offset=6", 19},
		// Every DAG's task b: 20 a DAG, the first skipped by its count.
		{"every DAG's task", "/dags/~/dagRuns/~/taskInstances/b/xcomEntries?limit=5&offset=25", 16},
		{"every DAG's by name pattern", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=5&offset=2&dag_display_name_pattern=example_%25", 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkPageRead(t, ts, &read, http.MethodGet, tc.path, "", tc.path+long, "", tc.maxRead)
			if strings.Contains(got.body, `"xcom_entries":[]`) {
				t.Errorf("no entries: %s", got.body)
			}
		})
	}
	// A run its dates leave out, and one that is not there: no entry,
	// read for the run alone.
	for _, path := range []string{
		"/dags/tutorial" + run + "/taskInstances/~/xcomEntries?run_after_lt=2000-01-01T00:00:00Z",
		"/dags/tutorial/dagRuns/nope/taskInstances/~/xcomEntries",
	} {
		read = 0
		if got := ts.v2(t, http.MethodGet, path, "", http.StatusOK).body; got != `{"xcom_entries":[],"total_entries":0}` {
			t.Errorf("%s: %s", path, got)
		}
		if read > 1 {
			t.Errorf("%s: read %d rows", path, read)
		}
	}
}

// TestAPIv2_XComs_RunPageSkipsByCounts: a page deep in a run's entries
// (three tasks of 50 mapped entries each) skips the tasks before it by
// their counts: it reads the entries its offset skips in its own task,
// not the run's.
func TestAPIv2_XComs_RunPageSkipsByCounts(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	row, err := ts.store.DagByID("tutorial")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addRuns(t, ts.store, row.Def, base, 1, false)
	r, err := ts.store.RunByDate("tutorial", base)
	if err != nil {
		t.Fatal(err)
	}
	err = ts.store.update(func(txn *memdb.Txn) error {
		for _, task := range []string{"c", "a", "b"} {
			for mi := range 50 {
				e := &XComEntry{DagID: "tutorial", RunID: r.RunID, TaskID: task, RunRowID: r.ID, MapIndex: mi, Key: "return_value",
					Value: json.RawMessage(`1`), Timestamp: base}
				if err := ts.store.putXComTxn(txn, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(n int) { read += n }
	path := "/dags/tutorial/dagRuns/" + url.PathEscape(r.RunID) + "/taskInstances/~/xcomEntries?limit=5&offset=120"
	// Tasks a and b skipped by count, 20 of c's skipped and 5 read; the
	// three counts and the run.
	got := checkPageRead(t, ts, &read, http.MethodGet, path, "", path+"&xcom_key_pattern=~", "", 29)
	var page struct {
		Entries []struct {
			TaskID   string `json:"task_id"`
			MapIndex int    `json:"map_index"`
		} `json:"xcom_entries"`
		Total int `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(got.body), &page); err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, e := range page.Entries {
		at = append(at, fmt.Sprintf("%s[%d]", e.TaskID, e.MapIndex))
	}
	if want := []string{"c[20]", "c[21]", "c[22]", "c[23]", "c[24]"}; !slices.Equal(at, want) || page.Total != 150 {
		t.Errorf("page %v of %d, want %v of 150", at, page.Total, want)
	}
}

// TestAPIv1_XComs_ScopedPagesReadThePage: 2.10.3's listing shares the
// store's scoped pages: a DAG's, a task's, a run's and a run's task's
// entries, by key and map_index in a run, are the long way's window (the
// entries XComEntries sorts, filtered) and read the page, not the scope.
func TestAPIv1_XComs_ScopedPagesReadThePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	addXComGrid(t, ts.store)
	sorted, err := ts.store.XComEntries(XComFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var read int
	ts.store.rowsRead = func(r int) { read += r }
	runID := "scheduled__2025-01-01T00:03:00+00:00"
	run := "/dagRuns/" + url.PathEscape(runID)
	for _, c := range []struct {
		name, path string
		pick       func(e *XComEntry) bool
		maxRead    int
	}{
		{"a DAG's", "/dags/tutorial/dagRuns/~/taskInstances/~/xcomEntries?limit=5&offset=12",
			func(e *XComEntry) bool { return e.DagID == "tutorial" }, 18},
		{"a DAG's task's", "/dags/tutorial/dagRuns/~/taskInstances/b/xcomEntries?limit=5&offset=2",
			func(e *XComEntry) bool { return e.DagID == "tutorial" && e.TaskID == "b" }, 8},
		{"a run's", "/dags/example_bash_operator" + run + "/taskInstances/~/xcomEntries?limit=3&offset=5",
			func(e *XComEntry) bool { return e.DagID == "example_bash_operator" && e.RunID == runID }, 6},
		{"a run's task's by map_index", "/dags/example_bash_operator" + run + "/taskInstances/a/xcomEntries?map_index=1",
			func(e *XComEntry) bool {
				return e.DagID == "example_bash_operator" && e.RunID == runID && e.TaskID == "a" && e.MapIndex == 1
			}, 3},
		{"every DAG's run by key", "/dags/~" + run + "/taskInstances/~/xcomEntries?xcom_key=return_value&limit=4&offset=3",
			func(e *XComEntry) bool { return e.RunID == runID && e.Key == "return_value" }, 21},
	} {
		t.Run(c.name, func(t *testing.T) {
			read = 0
			res := ts.v1(t, http.MethodGet, c.path, "")
			var got struct {
				Entries []struct {
					DagID    string `json:"dag_id"`
					TaskID   string `json:"task_id"`
					MapIndex int    `json:"map_index"`
					Key      string `json:"key"`
				} `json:"xcom_entries"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != http.StatusOK {
				t.Fatalf("%d %s (%v)", res.status, res.body, err)
			}
			var all []*XComEntry
			for _, e := range sorted {
				if c.pick(e) {
					all = append(all, e)
				}
			}
			u, _ := url.Parse(c.path)
			offset, limit := 0, 100
			fmt.Sscan(u.Query().Get("offset"), &offset)
			fmt.Sscan(u.Query().Get("limit"), &limit)
			want := all[min(offset, len(all)):min(offset+limit, len(all))]
			if got.Total != len(all) || len(got.Entries) != len(want) || len(want) == 0 {
				t.Fatalf("%d entries of %d, want %d of %d", len(got.Entries), got.Total, len(want), len(all))
			}
			for i, e := range got.Entries {
				if w := want[i]; e.DagID != w.DagID || e.TaskID != w.TaskID || e.MapIndex != w.MapIndex || e.Key != w.Key {
					t.Errorf("entry %d: %+v, want %s/%s/%d/%s", i, e, w.DagID, w.TaskID, w.MapIndex, w.Key)
				}
			}
			if read == 0 || read > c.maxRead {
				t.Errorf("read %d rows, want 1 to %d", read, c.maxRead)
			}
		})
	}
}

// addXComsAcrossRuns gives a DAG runs runs of two tasks, each task
// instance two keys at map indexes -1 and 0, and deletes every tenth run
// with its entries; it answers the DAG's id.
func addXComsAcrossRuns(t *testing.T, store *Store, runs int) string {
	t.Helper()
	const dagID = "example_trigger_target_dag"
	all := addRunsWithXComs(t, store, dagID, runs, []int{0, -1}, func(i int, _ string) []string {
		return []string{"return_value", fmt.Sprintf("k%d", i%3)}
	})
	for i, run := range all {
		if i%10 == 9 {
			if err := store.DeleteRun(run.DagID, run.RunID); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dagID
}

// addRunsWithXComs makes runs runs of a DAG and stores, for the i-th
// (RunsOfDag's order) and each of tasks b and a, an entry at each of
// mapIndexes under each key keysOf gives; it is the DAG's runs.
func addRunsWithXComs(t *testing.T, store *Store, dagID string, runs int, mapIndexes []int, keysOf func(i int, task string) []string) []*DagRun {
	t.Helper()
	row, err := store.DagByID(dagID)
	if err != nil {
		t.Fatal(err)
	}
	addRuns(t, store, row.Def, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), runs, false)
	all, err := store.RunsOfDag(dagID, "")
	if err != nil {
		t.Fatal(err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		for i, run := range all {
			for _, task := range []string{"b", "a"} {
				for _, mi := range mapIndexes {
					for _, key := range keysOf(i, task) {
						e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: task, RunRowID: run.ID, MapIndex: mi, Key: key,
							Value: json.RawMessage(`1`), Timestamp: run.ExecutionDate}
						if err := store.putXComTxn(txn, e); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestXComs_FilteredAcrossRunsReadThePage lists a DAG's XCom entries
// across 150 runs (1,200 entries) with filters across runs (xcom_key,
// map_index, a key pattern, a run_id pattern, dates; /api/v1's xcom_key
// and map_index) and checks through the rowsRead hook that, once the
// filter's total is counted, a page reads the scope's entries of its
// order up to its last and the runs they name, not the scope (which the
// long way read and sorted), each answer the long way's
// (operations.sortLists).
func TestXComs_FilteredAcrossRunsReadThePage(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			dagID := addXComsAcrossRuns(t, ts.store, 150)
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			prefix := apiV2Prefix
			cases := []struct {
				query   string
				maxRead int
			}{
				// Entries go by task, run_id, map_index, key: task a's
				// first; k1 is one key in six of a run's task's entries.
				{"xcom_key=k1&limit=10", 2 * 6 * 10},
				{"map_index=0&limit=10&offset=20", 2 * 30 * 2},
				{"xcom_key_pattern=return&limit=10&offset=5", 2 * 15 * 2},
				{"run_id_pattern=T00%3A1&limit=10", 4 * 5 * 10},
				// A date picks the runs from the 120th: the walk passes
				// task a's entries of the runs before (and reads them).
				{"logical_date_gte=2025-01-01T02:00:00Z&limit=10", 4*120 + 120 + 2*10*2},
			}
			if e == edition2 {
				prefix = apiV1Prefix
				cases = cases[:2]
			}
			for _, tc := range cases {
				t.Run(tc.query, func(t *testing.T) {
					checkXComPageRead(t, ts, &read, prefix+"/dags/"+dagID+"/dagRuns/~/taskInstances/~/xcomEntries?"+tc.query, tc.maxRead)
				})
			}
		})
	}
}

// TestXComs_FilteredAcrossRunsAsTheScan asks 300 random listings of XCom
// entries across runs (every DAG's or one DAG's, a task or every task,
// with keys, map indexes, patterns and run dates), each twice, between
// writes, and holds each to the long way's (operations.sortLists).
func TestXComs_FilteredAcrossRunsAsTheScan(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	addXComsAcrossRuns(t, ts.store, 60)
	addXComGrid(t, ts.store)
	o := ts.srv.ops
	rng := rand.New(rand.NewPCG(4, 21))
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	ptrTo := func(s string) *string { return &s }
	for i := range 300 {
		if i%50 == 49 {
			if err := ts.store.DeleteRun("example_trigger_target_dag", fmt.Sprintf("scheduled__2025-01-01T00:%02d:00+00:00", rng.IntN(60))); err != nil && !errors.Is(err, errNotFound) {
				t.Fatal(err)
			}
		}
		q := xcomSearch{dagID: pick("", "example_trigger_target_dag", "example_bash_operator"), taskID: pick("", "", "a", "b"), offset: rng.IntN(30), limit: 1 + rng.IntN(20)}
		switch rng.IntN(7) {
		case 0:
			q.key = ptrTo(pick("return_value", "k", "k1", "nope"))
		case 1:
			mi := int64(rng.IntN(3) - 1)
			q.mapIndex = &mi
		case 2:
			q.keyPattern = likePattern(pick("k", "return", "1"))
		case 3:
			q.runPattern = likePattern(pick("T00:0", "00:1", "zz"))
		case 4:
			at := time.Date(2025, 1, 1, 0, rng.IntN(60), 0, 0, time.UTC)
			q.logical = timeBounds{gte: &at}
		case 5:
			q.taskPattern, q.dagPattern = likePattern(pick("a", "b")), likePattern(pick("tut", "example_", "target"))
		}
		checkXComSearchAsScan(t, o, i, q)
	}
}

// TestXComs_SparseMapIndexSeeks lists XCom entries across runs by a
// map_index that one entry in 40 of each run's task has (30 runs, two
// tasks mapped into 40 instances), through both APIs, and checks through
// the store's rowsRead hook that the walk seeks each run's task's entries
// of that map_index and passes the others (a few rows a run's task), where
// it read each of them; each answer the long way's
// (operations.sortLists).
func TestXComs_SparseMapIndexSeeks(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition3, edition2} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			const dagID = "example_trigger_target_dag"
			row, err := ts.store.DagByID(dagID)
			if err != nil {
				t.Fatal(err)
			}
			addRuns(t, ts.store, row.Def, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 30, false)
			runs, err := ts.store.RunsOfDag(dagID, "")
			if err != nil {
				t.Fatal(err)
			}
			err = ts.store.update(func(txn *memdb.Txn) error {
				for _, run := range runs {
					for _, task := range []string{"b", "a"} {
						for mi := range 40 {
							e := &XComEntry{DagID: dagID, RunID: run.RunID, TaskID: task, RunRowID: run.ID, MapIndex: mi, Key: "return_value",
								Value: json.RawMessage(`1`), Timestamp: run.ExecutionDate}
							if err := ts.store.putXComTxn(txn, e); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var read int
			ts.store.rowsRead = func(n int) { read += n }
			prefix := apiV2Prefix
			if e == edition2 {
				prefix = apiV1Prefix
			}
			for _, tc := range []struct {
				path    string
				maxRead int
			}{
				// 15 runs' tasks to the page's end (a run looked up for each in v2).
				{"/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?map_index=7&limit=10&offset=5", 4*15 + 5},
				{"/dags/~/dagRuns/~/taskInstances/~/xcomEntries?map_index=39&limit=20&offset=30", 4*50 + 5},
				{"/dags/" + dagID + "/dagRuns/~/taskInstances/a/xcomEntries?map_index=0&limit=10", 4*10 + 5},
			} {
				t.Run(tc.path, func(t *testing.T) {
					checkXComPageRead(t, ts, &read, prefix+tc.path, tc.maxRead)
				})
			}
		})
	}
}
