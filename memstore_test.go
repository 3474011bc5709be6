package main

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// The run state index answers two questions: every run in a state (the
// scheduler's and the status page's) and one DAG's runs in a state
// (max_active_runs). DAG ids where one is a prefix of another must not
// leak into each other's counts, and finished runs are found by a scan.
func TestStore_RunStateQueries(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := []struct {
		dag   string
		state RunState
	}{
		{"ab", RunQueued}, {"a", RunRunning}, {"a", RunQueued}, {"b", RunSuccess},
		{"a", RunQueued}, {"ab", RunRunning}, {"b", RunFailed}, {"b", RunQueued},
	}
	err := store.update(func(txn *memdb.Txn) error {
		for i, r := range rows {
			date := base.Add(time.Duration(i) * time.Hour)
			run := &DagRun{ID: int64(i + 1), DagID: r.dag, RunID: "manual__" + isoFormat(date), ExecutionDate: date, State: r.state}
			if err := txn.Insert(tableDagRuns, run); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(runs []*DagRun) []int64 {
		var out []int64
		for _, r := range runs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		state RunState
		want  []int64
	}{
		{RunQueued, []int64{1, 3, 5, 8}},
		{RunRunning, []int64{2, 6}},
		{RunSuccess, []int64{4}},
		{RunFailed, []int64{7}},
	} {
		runs, err := store.RunsInState(tc.state)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(runs); !slices.Equal(got, tc.want) {
			t.Errorf("RunsInState(%s) = %v, want %v", tc.state, got, tc.want)
		}
	}
	txn := store.read()
	for _, tc := range []struct {
		dag   string
		state RunState
		want  int
	}{
		{"a", RunQueued, 2}, {"ab", RunQueued, 1}, {"b", RunQueued, 1},
		{"a", RunRunning, 1}, {"ab", RunRunning, 1}, {"b", RunRunning, 0}, {"c", RunQueued, 0},
	} {
		n, err := storeView{txn}.CountRuns(tc.dag, tc.state)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("CountRuns(%s, %s) = %d, want %d", tc.dag, tc.state, n, tc.want)
		}
	}
}

// A run's task instances live in one row: writes merge into it in task_id
// order, replace by task_id, never change a row a reader holds, and the
// state index finds each unfinished state exactly while it lasts.
func TestStore_TaskInstanceRows(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	ti := func(dag, run, task string, state TaskState) *TaskInstance {
		return &TaskInstance{DagID: dag, RunID: run, TaskID: task, MapIndex: -1, State: state}
	}
	keys := func(tis []*TaskInstance) []string {
		var out []string
		for _, ti := range tis {
			out = append(out, ti.DagID+"/"+ti.RunID+"/"+ti.TaskID+"="+string(ti.State))
		}
		return out
	}
	put := func(tis ...*TaskInstance) error {
		t.Helper()
		return store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, tis...) })
	}
	// Out of order, two runs interleaved, one key twice (the last wins).
	if err := put(ti("a", "r1", "c", TaskScheduled), ti("a", "r1", "a", TaskRunning), ti("b", "r1", "x", TaskQueued),
		ti("a", "r1", "b", ""), ti("a", "r1", "c", TaskQueued), ti("a", "r2", "a", TaskScheduled)); err != nil {
		t.Fatal(err)
	}
	held, err := store.TaskInstancesOfRun("a", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(held), []string{"a/r1/a=running", "a/r1/b=", "a/r1/c=queued"}; !slices.Equal(got, want) {
		t.Errorf("run a/r1 = %v, want %v", got, want)
	}
	inState := func(state TaskState) []string {
		t.Helper()
		tis, err := taskInstancesInStateTxn(store.read(), state)
		if err != nil {
			t.Fatal(err)
		}
		return keys(tis)
	}
	for state, want := range map[TaskState][]string{
		TaskQueued:    {"a/r1/c=queued", "b/r1/x=queued"},
		TaskScheduled: {"a/r2/a=scheduled"},
		TaskRunning:   {"a/r1/a=running"},
		TaskSuccess:   nil, // finished states are not indexed
	} {
		if got := inState(state); !slices.Equal(got, want) {
			t.Errorf("in %s: %v, want %v", state, got, want)
		}
	}
	// A replaced task instance leaves its old state's index entry, and the
	// slice a reader holds does not change.
	if err := put(ti("a", "r1", "a", TaskSuccess), ti("a", "r1", "d", TaskRunning)); err != nil {
		t.Fatal(err)
	}
	if got := keys(held); !slices.Equal(got, []string{"a/r1/a=running", "a/r1/b=", "a/r1/c=queued"}) {
		t.Errorf("a reader's task instances changed under it: %v", got)
	}
	if got := inState(TaskRunning); !slices.Equal(got, []string{"a/r1/d=running"}) {
		t.Errorf("running after the change: %v", got)
	}
	if got, err := store.TaskInstance("a", "r1", "a"); err != nil || got.State != TaskSuccess {
		t.Errorf("TaskInstance(a, r1, a) = %+v, %v", got, err)
	}
	if _, err := store.TaskInstance("a", "r1", "zz"); !errors.Is(err, errNotFound) {
		t.Errorf("a missing task: %v, want errNotFound", err)
	}
	if _, err := store.TaskInstance("a", "r9", "a"); !errors.Is(err, errNotFound) {
		t.Errorf("a missing run: %v, want errNotFound", err)
	}
	n, err := countTaskInstancesTxn(store.read(), "a", nil)
	if err != nil || n != 5 {
		t.Errorf("task instances of a: %d, %v; want 5", n, err)
	}
	// An empty task_id is refused and the transaction keeps nothing.
	if err := put(ti("c", "r1", "ok", TaskQueued), ti("c", "r1", "", TaskQueued)); err == nil {
		t.Error("an empty task_id was stored")
	}
	if tis, _ := store.TaskInstancesOfRun("c", "r1"); len(tis) != 0 {
		t.Errorf("a refused write kept %v", keys(tis))
	}
}

// TestStore_MappedTaskInstanceRows: a task instance is (dag_id, run_id,
// task_id, map_index), Airflow's key: an expanded instance takes the
// place of its task's map_index -1 one (expand_mapped_task turns it into
// index 0), the run lists them by task_id then map_index, and each is
// found, changed and deleted on its own.
func TestStore_MappedTaskInstanceRows(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	row := func(task string, mapIndex int, state TaskState) *TaskInstance {
		return &TaskInstance{DagID: "d", RunID: "r", TaskID: task, MapIndex: mapIndex, State: state}
	}
	put := func(tis ...*TaskInstance) {
		t.Helper()
		if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, tis...) }); err != nil {
			t.Fatal(err)
		}
	}
	listed := func() []string {
		t.Helper()
		tis, err := store.TaskInstancesOfRun("d", "r")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ti := range tis {
			out = append(out, fmt.Sprintf("%s[%d]=%s", ti.TaskID, ti.MapIndex, ti.State))
		}
		return out
	}
	put(row("m", -1, TaskNone), row("a", -1, TaskSuccess), row("z", -1, TaskNone))
	if got, want := listed(), []string{"a[-1]=success", "m[-1]=", "z[-1]="}; !slices.Equal(got, want) {
		t.Fatalf("before the expansion: %v, want %v", got, want)
	}
	put(row("m", 2, TaskScheduled), row("m", 0, TaskScheduled), row("m", 1, TaskScheduled))
	if got, want := listed(), []string{"a[-1]=success", "m[0]=scheduled", "m[1]=scheduled", "m[2]=scheduled", "z[-1]="}; !slices.Equal(got, want) {
		t.Errorf("after the expansion: %v, want %v", got, want)
	}
	if _, err := store.TaskInstance("d", "r", "m"); !errors.Is(err, errNotFound) {
		t.Errorf("map_index -1 of an expanded task: %v, want errNotFound", err)
	}
	put(row("m", 1, TaskFailed))
	if ti, err := store.TaskInstanceAt("d", "r", "m", 1); err != nil || ti.State != TaskFailed {
		t.Errorf("m[1] = %+v, %v; want failed", ti, err)
	}
	if tis, _ := store.TaskInstancesOfTask("d", "r", "m"); len(tis) != 3 || tis[0].MapIndex != 0 || tis[2].State != TaskScheduled {
		t.Errorf("m's task instances = %v", tis)
	}
	if _, err := store.DeleteTaskInstance("d", "r", "m", 0); err != nil {
		t.Fatal(err)
	}
	if got, want := listed(), []string{"a[-1]=success", "m[1]=failed", "m[2]=scheduled", "z[-1]="}; !slices.Equal(got, want) {
		t.Errorf("after deleting m[0]: %v, want %v", got, want)
	}
	if _, err := store.DeleteTaskInstance("d", "r", "m", -1); !errors.Is(err, errNotFound) {
		t.Errorf("deleting m[-1]: %v, want errNotFound", err)
	}
}

// The per-DAG run counts and conf sizes that the run limit and the conf
// limit read, the counts by state and of task instances that the stable
// API's totals read, and the total of conf sizes, follow every write that
// adds or removes runs or changes a run's state, and a restore counts them
// again, and so does each DAG's newest run (its id and fixed values):
// each step compares them with a recount from the runs and task-instance
// tables.
func TestStore_RunCountsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withRunLimit(RunLimit{Max: 3, DropOldestFinished: true}))
	check := func(step string, store *Store) {
		t.Helper()
		txn := store.read()
		it, err := txn.Get(tableDagRuns, indexID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]runCount{}
		var wantTotal int64
		for raw := it.Next(); raw != nil; raw = it.Next() {
			run := raw.(*DagRun)
			c := want[run.DagID]
			c.DagID, c.N, c.ConfBytes = run.DagID, c.N+1, c.ConfBytes+int64(len(run.Conf))
			c.States[runStateSlot(run.State)]++
			for kind := range lastRunKinds {
				if kind.counts(run) && (c.Last[kind] == nil || run.ExecutionDate.After(*c.Last[kind])) {
					date := run.ExecutionDate
					c.Last[kind] = &date
				}
			}
			if run.ID > c.NewestID {
				c.NewestID, c.Newest = run.ID, fixedValuesOf(run)
			}
			want[run.DagID] = c
			all := want[allDAGs]
			all.N, all.ConfBytes = all.N+1, all.ConfBytes+int64(len(run.Conf))
			all.States[runStateSlot(run.State)]++
			want[allDAGs] = all
			wantTotal += int64(len(run.Conf))
		}
		tit, err := txn.Get(tableTasks, indexID)
		if err != nil {
			t.Fatal(err)
		}
		for raw := tit.Next(); raw != nil; raw = tit.Next() {
			row := raw.(*runTasks)
			c := want[row.DagID]
			c.DagID, c.TaskInstances = row.DagID, c.TaskInstances+len(row.TIs)
			want[row.DagID] = c
		}
		got := map[string]runCount{}
		cit, err := txn.Get(tableRunCounts, indexID)
		if err != nil {
			t.Fatal(err)
		}
		for raw := cit.Next(); raw != nil; raw = cit.Next() {
			c := raw.(*runCount)
			got[c.DagID] = *c
		}
		// Edition 2's runs have no task-instance ids: no block pending
		// (want has none).
		sameCount := func(a, b runCount) bool {
			la, lb := a.Last, b.Last
			pa, pb := a.Pending, b.Pending
			a.Last, b.Last, a.Pending, b.Pending = [lastRunKinds]*time.Time{}, [lastRunKinds]*time.Time{}, nil, nil
			// The runs that went back from finished are a log of
			// writes, not of rows.
			a.Unsettled, b.Unsettled, a.UnsettledN, b.UnsettledN = nil, nil, 0, 0
			return reflect.DeepEqual(a, b) && slices.Equal(pa, pb) && slices.EqualFunc(la[:], lb[:], func(x, y *time.Time) bool {
				return (x == nil) == (y == nil) && (x == nil || x.Equal(*y))
			})
		}
		if !maps.EqualFunc(got, want, sameCount) {
			t.Fatalf("%s: run counts %v, runs %v", step, got, want)
		}
		if total := confBytesTxn(txn); total != wantTotal {
			t.Fatalf("%s: conf bytes total %d, runs hold %d", step, total, wantTotal)
		}
	}
	trigger := func(dagID string, day int) {
		t.Helper()
		// Confs of different sizes, so that a wrong run's size shows.
		ts.trigger(t, dagID, fmt.Sprintf(`{"execution_date": "2024-01-%02dT00:00:00+00:00", "conf": {"day": "%s"}}`,
			day, strings.Repeat("d", day*10)))
	}
	trigger("example_bash_operator", 1)
	trigger("example_subdag_operator", 1) // and one run of each sub-DAG
	trigger("tutorial", 1)
	check("triggers", ts.store)
	for day := 2; day <= 3; day++ {
		trigger("example_bash_operator", day)
	}
	check("at the limit", ts.store)
	for _, runID := range []string{"manual__2024-01-01T00:00:00+00:00", "manual__2024-01-02T00:00:00+00:00"} {
		if res := ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", `{"state": "success"}`); res.status != 200 {
			t.Fatalf("force: %d %s", res.status, res.body)
		}
	}
	trigger("example_bash_operator", 4) // drops the oldest finished run
	check("drop oldest finished", ts.store)
	if res := ts.do(t, "POST", "/_airlite/reset?scope=runs&dag_id=tutorial", ""); res.status != 200 {
		t.Fatalf("reset: %d %s", res.status, res.body)
	}
	check("reset one DAG's runs", ts.store)
	if res := ts.do(t, "DELETE", apiPrefix+"/dags/example_subdag_operator", ""); res.status != 200 {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	check("delete a DAG with sub-DAGs", ts.store)
	// Every change of a run's state moves it between the state counts.
	day4 := "manual__2024-01-04T00:00:00+00:00"
	admit := func(storeView, *DagRun) (bool, error) { return true, nil }
	if err := ts.store.StartRun("example_bash_operator", day4, testNow, admit); err != nil {
		t.Fatal(err)
	}
	check("a run started", ts.store)
	if _, err := ts.store.ForceRunState("example_bash_operator", day4, RunFailed, testNow, ts.edition.rules().runStateDates); err != nil {
		t.Fatal(err)
	}
	check("a run failed", ts.store)
	if _, err := ts.store.ClearRun("example_bash_operator", day4, testNow); err != nil {
		t.Fatal(err)
	}
	check("a finished run cleared", ts.store)
	if _, err := ts.store.ForceRunState("example_bash_operator", day4, RunSuccess, testNow, ts.edition.rules().runStateDates); err != nil {
		t.Fatal(err)
	}
	pickFirst := func(d *DAG) ([]string, error) { return []string{d.Tasks[0].TaskID}, nil }
	if _, _, err := ts.store.ForceTaskStates("example_bash_operator", day4, TaskSuccess, testNow, pickFirst); err != nil {
		t.Fatal(err)
	}
	check("a finished run reopened", ts.store)
	if run, err := ts.store.RunByRunID("example_bash_operator", day4); err != nil || run.State != RunRunning {
		t.Fatalf("the reopened run: %+v, %v; want it running", run, err)
	}
	if err := ts.store.DeleteRun("example_bash_operator", day4); err != nil {
		t.Fatal(err)
	}
	check("a run deleted", ts.store)

	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	check("restore", restored)
	if res := ts.do(t, "POST", "/_airlite/reset?scope=runs", ""); res.status != 200 {
		t.Fatalf("reset: %d %s", res.status, res.body)
	}
	check("reset every DAG's runs", ts.store)
	trigger("tutorial", 5)
	trigger("example_bash_operator", 5)
	check("triggers after a reset", ts.store)
	if err := ts.store.Reset(ts.dags); err != nil {
		t.Fatal(err)
	}
	check("reset", ts.store)
}

// TestStore_ForceRunStateMovesDatesAsSetState: a forced state moves the
// run's dates as each release's DagRun.set_state does (Airflow 2.10.3
// airflow/models/dagrun.py:326-346; 1.10.15 airflow/models/dagrun.py:82-85),
// and only on a change of state.
func TestStore_ForceRunStateMovesDatesAsSetState(t *testing.T) {
	t.Parallel()
	at := func(h int) *time.Time { d := testNow.Add(time.Duration(h) * time.Hour); return &d }
	cases := []struct {
		ed                   edition
		name                 string
		states               []RunState // forced at testNow+1h, +2h, ...
		start, end, queuedAt *time.Time
	}{
		{edition2, "queued to running", []RunState{RunRunning}, at(1), nil, nil},
		{edition2, "running twice keeps the start", []RunState{RunRunning, RunRunning}, at(1), nil, nil},
		{edition2, "running to success", []RunState{RunRunning, RunSuccess}, at(1), at(2), nil},
		{edition2, "finished to running starts again", []RunState{RunRunning, RunSuccess, RunRunning}, at(3), nil, nil},
		{edition2, "finished to finished keeps the end", []RunState{RunRunning, RunSuccess, RunFailed}, at(1), at(2), nil},
		{edition2, "finished twice keeps the end", []RunState{RunRunning, RunSuccess, RunSuccess}, at(1), at(2), nil},
		{edition2, "finished to queued clears the dates", []RunState{RunRunning, RunSuccess, RunQueued}, nil, nil, at(3)},
		{edition2, "queued again moves queued_at only", []RunState{RunQueued, RunQueued}, nil, nil, at(2)},
		// 1.10's runs begin running, started when triggered (testNow).
		{edition110, "running to success", []RunState{RunSuccess}, &testNow, at(1), nil},
		{edition110, "finished to finished ends now", []RunState{RunSuccess, RunFailed}, &testNow, at(2), nil},
		{edition110, "finished twice keeps the end", []RunState{RunSuccess, RunSuccess}, &testNow, at(1), nil},
		{edition110, "finished to running keeps the start", []RunState{RunSuccess, RunRunning}, &testNow, nil, nil},
	}
	for _, tc := range cases {
		t.Run(string(tc.ed)+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, tc.ed)
			runID := ts.trigger(t, "tutorial", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)["run_id"].(string)
			for i, state := range tc.states {
				if _, err := ts.store.ForceRunState("tutorial", runID, state, *at(i + 1), tc.ed.rules().runStateDates); err != nil {
					t.Fatal(err)
				}
			}
			run, err := ts.store.RunByRunID("tutorial", runID)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []struct {
				what      string
				got, want *time.Time
			}{{"start_date", run.StartDate, tc.start}, {"end_date", run.EndDate, tc.end}, {"queued_at", run.QueuedAt, tc.queuedAt}} {
				if d.what == "queued_at" && d.want == nil {
					continue // set at trigger time; not what this row is about
				}
				if (d.got == nil) != (d.want == nil) || (d.got != nil && !d.got.Equal(*d.want)) {
					t.Errorf("%s = %v, want %v", d.what, d.got, d.want)
				}
			}
		})
	}
}
