package main

// Mapped task instances as rows of their own (scheduler_mapping.go), with
// a fake task runner: no Python needed. The cases follow Airflow's
// (2.10.3 tests/models/test_mappedoperator.py and
// tests/api_connexion/endpoints/test_task_instance_endpoint.py's mapped
// cases; 3.2.1 airflow-core/tests/unit/api_fastapi/core_api/routes/public/
// test_task_instances.py TestGetMappedTaskInstances, TestGetTaskInstance's
// mapped case, TestPostClearTaskInstances with a [task_id, map_index]
// pair).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// mappedDAG is a DAG "mapped": up >> m >> total, m an operator mapped
// over a literal list of n elements (as expand(x=[0..n-1]) serializes),
// with retries, in pool p.
const mappedDAG = `
dag_id: mapped
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: up, operator: PythonOperator, downstream: [m]}
  - {task_id: m, operator: PythonOperator, pool: p, retries: %d, retry_delay: 0, downstream: [total]}
  - {task_id: total, operator: PythonOperator}
`

// mapTask makes a loaded task mapped over n literal elements, or over an
// upstream's return value when n < 0.
func mapTask(t *testing.T, dags *DAGSet, dagID, taskID string, n int) {
	t.Helper()
	for _, d := range dags.DAGs {
		if d.DagID != dagID {
			continue
		}
		task := d.Task(taskID)
		if n < 0 {
			task.Mapping = &taskMapping{Kind: "dict-of-lists", Args: []mappedArg{{Name: "x", Ref: xcomRef{TaskID: "up", Key: xcomReturnKey}}}}
			return
		}
		values := make([]any, n)
		for i := range values {
			values[i] = int64(i)
		}
		task.Mapping = &taskMapping{Kind: "dict-of-lists", Args: []mappedArg{{Name: "x", Literal: true, Length: n, Value: values}}}
		return
	}
	t.Fatalf("no DAG %s", dagID)
}

// mappedHarness is a scheduler harness over the mapped DAG, m mapped over
// n elements, pool p of slots.
func mappedHarness(t *testing.T, n, retries int, slots int, e edition) *schedHarness {
	t.Helper()
	fsys := fstest.MapFS{
		"m.yaml":     {Data: []byte(fmt.Sprintf(mappedDAG, retries))},
		"pools.yaml": {Data: []byte(fmt.Sprintf("- {name: p, slots: %d, description: mapped}\n", slots))},
	}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	mapTask(t, dags, "mapped", "m", n)
	store := storeWith(t, dags)
	clock := &testClock{t: schedEpoch}
	runner := &fakeRunner{outcomes: map[string][]TaskState{}, held: map[string]chan struct{}{}, starts: map[tiKey]int{}}
	sched := newScheduler(schedulerOptions{Store: store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: clock.Now, Parallelism: 32, RunTask: runner.run, Unixname: "tester"})
	t.Cleanup(sched.stop)
	api := newAirflowAPI(&operations{store: store, edition: e, now: clock.Now, unixname: "tester", kick: sched.Kick})
	return &schedHarness{t: t, store: store, sched: sched, clock: clock, runner: runner, api: api, dags: dags}
}

// rowStates are a task's task instances as "map_index=state".
func rowStates(t *testing.T, store *Store, dagID, runID, taskID string) []string {
	t.Helper()
	tis, err := store.TaskInstancesOfTask(dagID, runID, taskID)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(tis))
	for i, ti := range tis {
		out[i] = fmt.Sprintf("%d=%s", ti.MapIndex, ti.State)
	}
	return out
}

// TestMapping_InstancesRunInParallelWithinSlots: before its upstream is
// done a mapped task has its one map_index -1 task instance; then it
// expands into task instances 0..n-1 that run side by side, each holding a
// slot of its pool (2.10.3 models/dagrun.py _get_ready_tis expands, the
// scheduler queues each task instance within the pool's open slots), each
// started once with its map_index.
func TestMapping_InstancesRunInParallelWithinSlots(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := mappedHarness(t, 5, 0, 2, edition2)
		h.runner.onStart = h.checkLimits
		upDone := h.runner.hold("up")
		release := h.runner.hold("m")
		runID := h.trigger("mapped", `{}`)
		h.settle()
		if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, []string{"-1="}) {
			t.Fatalf("m before its upstream is done = %v, want its one map_index -1 task instance", got)
		}
		close(upDone)
		h.settle()
		h.checkLimits()
		want := []string{"0=running", "1=running", "2=scheduled", "3=scheduled", "4=scheduled"}
		if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, want) {
			t.Fatalf("m within a pool of 2 slots = %v, want %v", got, want)
		}
		if _, err := h.store.UpsertPool("p", 10, nil); err != nil {
			t.Fatal(err)
		}
		h.settle()
		running := 0
		for _, s := range rowStates(t, h.store, "mapped", runID, "m") {
			if strings.HasSuffix(s, "=running") {
				running++
			}
		}
		if running != 5 {
			t.Fatalf("%d instances of m running with 10 slots, want all 5", running)
		}
		close(release)
		h.settle()
		if got := h.runState("mapped", runID); got != RunSuccess {
			t.Fatalf("run %q, want success", got)
		}
		for i := range 5 {
			if n := h.runner.startCount(tiKey{"mapped", runID, "m", i}); n != 1 {
				t.Errorf("m[%d] started %d times, want once", i, n)
			}
		}
		if n := h.runner.startCount(tiKey{"mapped", runID, "m", -1}); n != 0 {
			t.Errorf("m's map_index -1 task instance ran %d times, want never", n)
		}
	})
}

// TestMapping_FailedInstanceRetriesAlone: an instance that fails with
// retries left goes up_for_retry on its own and runs again, with its own
// try number and its own log per try; the others keep their one try; the
// downstream task waits for all of them.
func TestMapping_FailedInstanceRetriesAlone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := mappedHarness(t, 3, 1, 8, edition2)
		runID := "manual__2024-01-10T12:00:00+00:00"
		h.runner.mu.Lock()
		h.runner.keyed = map[tiKey][]TaskState{{"mapped", runID, "m", 1}: {TaskFailed}}
		h.runner.mu.Unlock()
		if got := h.trigger("mapped", `{}`); got != runID {
			t.Fatalf("run_id %s, want %s", got, runID)
		}
		h.settle()
		if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, []string{"0=success", "1=up_for_retry", "2=success"}) {
			t.Fatalf("m after its first tries = %v, want m[1] alone up_for_retry", got)
		}
		if got := rowStates(t, h.store, "mapped", runID, "total"); !slices.Equal(got, []string{"-1="}) {
			t.Fatalf("total while m[1] waits for its retry = %v, want no state", got)
		}
		h.clock.Advance(time.Second) // the retry is due once its time is past
		h.settle()
		if got := h.runState("mapped", runID); got != RunSuccess {
			t.Fatalf("run %q, want success after m[1]'s retry", got)
		}
		tis, err := h.store.TaskInstancesOfTask("mapped", runID, "m")
		if err != nil {
			t.Fatal(err)
		}
		var tries []int
		for _, ti := range tis {
			tries = append(tries, ti.TryNumber)
		}
		if !slices.Equal(tries, []int{1, 2, 1}) {
			t.Errorf("m's instances' tries = %v, want [1 2 1]", tries)
		}
		l, err := h.store.TaskLogOf(tiKey{"mapped", runID, "m", 1})
		if err != nil || l == nil || len(l.Tries) != 2 || l.Tries[1].Output != "try 2\n" {
			t.Errorf("m[1]'s log = %+v (%v), want its two tries", l, err)
		}
		if l, _ := h.store.TaskLogOf(tiKey{"mapped", runID, "m", 0}); l == nil || len(l.Tries) != 1 {
			t.Errorf("m[0]'s log = %+v, want its one try", l)
		}
		earlier, _, err := h.store.EarlierTries("mapped", runID, "m", 1)
		if err != nil || len(earlier) != 1 || earlier[0].State != TaskFailed || earlier[0].MapIndex != 1 {
			t.Errorf("m[1]'s earlier tries = %+v (%v), want its failed first try", earlier, err)
		}
		if got := rowStates(t, h.store, "mapped", runID, "total"); !slices.Equal(got, []string{"-1=success"}) {
			t.Errorf("total = %v, want success", got)
		}
	})
}

// TestMapping_NothingToExpand: a length of 0 skips the map_index -1 task
// instance, and a missing upstream value marks it upstream_failed (2.10.3
// abstractoperator.py expand_mapped_task:628-642); its downstream task
// follows its trigger rule.
func TestMapping_NothingToExpand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		n         int
		want      string
		wantTotal string
	}{
		{"an empty list", 0, "-1=skipped", "-1=skipped"},
		{"an upstream value missing", -1, "-1=upstream_failed", "-1=upstream_failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := mappedHarness(t, c.n, 0, 8, edition2)
				runID := h.trigger("mapped", `{}`)
				h.settle()
				if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, []string{c.want}) {
					t.Errorf("m = %v, want [%s]", got, c.want)
				}
				if got := rowStates(t, h.store, "mapped", runID, "total"); !slices.Equal(got, []string{c.wantTotal}) {
					t.Errorf("total = %v, want [%s]", got, c.wantTotal)
				}
			})
		})
	}
}

// mappedServer is an edition's server over the mapped DAG (m over three
// elements, m[1] failing), one run "r1" run to its end by a scheduler with
// the fake runner.
func mappedServer(t *testing.T, e edition) *testServer {
	t.Helper()
	fsys := fstest.MapFS{
		"m.yaml":     {Data: []byte(fmt.Sprintf(mappedDAG, 0))},
		"pools.yaml": {Data: []byte("- {name: p, slots: 8, description: mapped}\n")},
	}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	mapTask(t, dags, "mapped", "m", 3)
	ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.DAGs = dags }))
	runner := &fakeRunner{outcomes: map[string][]TaskState{}, held: map[string]chan struct{}{}, starts: map[tiKey]int{},
		keyed: map[tiKey][]TaskState{{"mapped", "r1", "m", 1}: {TaskFailed}}}
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return time.Now()
	}
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: now, Parallelism: 16, RunTask: runner.run, Unixname: "tester"})
	t.Cleanup(sched.stop)
	if err := ts.store.SetPaused("mapped", false, false); err != nil {
		t.Fatal(err)
	}
	d := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "mapped", runID: "r1", date: &d}); err != nil {
		t.Fatal(err)
	}
	settleUntil(t, sched, now, func() bool {
		run, err := ts.store.RunByRunID("mapped", "r1")
		return err == nil && run.State.Finished()
	})
	return ts
}

// v2TIRows decodes a TaskInstanceCollectionResponse into (task_id,
// map_index, state) rows.
func v2TIRows(t *testing.T, body string) (rows []string, total int) {
	t.Helper()
	var out struct {
		TaskInstances []struct {
			TaskID   string  `json:"task_id"`
			MapIndex int     `json:"map_index"`
			State    *string `json:"state"`
		} `json:"task_instances"`
		TotalEntries int `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	for _, ti := range out.TaskInstances {
		state := "null"
		if ti.State != nil {
			state = *ti.State
		}
		rows = append(rows, fmt.Sprintf("%s[%d]=%s", ti.TaskID, ti.MapIndex, state))
	}
	return rows, out.TotalEntries
}

// TestServerV2_MappedTaskInstanceRows: Airflow 3's task-instance routes
// over a mapped task's rows: the run's list shows each instance, listMapped
// pages them by map_index, one is found by its map_index, the task without
// one is "mapped", each has its own tries and log, and a clear of one
// [task_id, map_index] pair clears that instance alone.
func TestServerV2_MappedTaskInstanceRows(t *testing.T) {
	t.Parallel()
	ts := mappedServer(t, edition3)
	tis := "/dags/mapped/dagRuns/r1/taskInstances"
	rows, total := v2TIRows(t, ts.v2(t, http.MethodGet, tis, "", http.StatusOK).body)
	want := []string{"m[0]=success", "m[1]=failed", "m[2]=success", "total[-1]=upstream_failed", "up[-1]=success"}
	slices.Sort(rows)
	if !slices.Equal(rows, want) || total != 5 {
		t.Errorf("the run's task instances = %v (%d), want %v (5)", rows, total, want)
	}
	rows, total = v2TIRows(t, ts.v2(t, http.MethodGet, tis+"/m/listMapped?limit=2&offset=1", "", http.StatusOK).body)
	if !slices.Equal(rows, []string{"m[1]=failed", "m[2]=success"}) || total != 3 {
		t.Errorf("listMapped?limit=2&offset=1 = %v (%d), want m[1], m[2] of 3", rows, total)
	}
	rows, total = v2TIRows(t, ts.v2(t, http.MethodGet, tis+"/m/listMapped?state=failed", "", http.StatusOK).body)
	if !slices.Equal(rows, []string{"m[1]=failed"}) || total != 1 {
		t.Errorf("listMapped?state=failed = %v (%d), want m[1]", rows, total)
	}
	rows, _ = v2TIRows(t, ts.v2(t, http.MethodGet, tis+"/m/listMapped?order_by=-map_index", "", http.StatusOK).body)
	if !slices.Equal(rows, []string{"m[2]=success", "m[1]=failed", "m[0]=success"}) {
		t.Errorf("listMapped?order_by=-map_index = %v", rows)
	}
	one := ts.v2(t, http.MethodGet, tis+"/m/2", "", http.StatusOK).body
	if !strings.Contains(one, `"map_index":2,`) || !strings.Contains(one, `"state":"success"`) {
		t.Errorf("GET …/m/2 = %s, want map_index 2, success", one)
	}
	cases := []struct{ path, want string }{
		{tis + "/m", `{"detail":"Task instance is mapped, add the map_index value to the URL"}`},
		{tis + "/m/3", "{\"detail\":\"The Mapped Task Instance with dag_id: `mapped`, run_id: `r1`, task_id: `m`, and map_index: `3` was not found\"}"},
		{tis + "/m/-1", "{\"detail\":\"The Mapped Task Instance with dag_id: `mapped`, run_id: `r1`, task_id: `m`, and map_index: `-1` was not found\"}"},
	}
	for _, c := range cases {
		if res := ts.v2(t, http.MethodGet, c.path, "", http.StatusNotFound); res.body != c.want {
			t.Errorf("GET %s = %s, want %s", c.path, res.body, c.want)
		}
	}
	tries := ts.v2(t, http.MethodGet, tis+"/m/1/tries", "", http.StatusOK).body
	if !strings.Contains(tries, `"map_index":1,`) || !strings.Contains(tries, `"total_entries":1`) {
		t.Errorf("GET …/m/1/tries = %s, want m[1]'s one try", tries)
	}
	// Each instance's log is its own (log.py: the task instance of
	// map_index, its try).
	for i := range 3 {
		res := ts.v2(t, http.MethodGet, fmt.Sprintf("%s/m/logs/1?map_index=%d", tis, i), "", http.StatusOK)
		if !strings.Contains(res.body, "try 1") {
			t.Errorf("m[%d]'s log = %s, want its try's output", i, res.body)
		}
	}
	ts.v2(t, http.MethodGet, tis+"/m/logs/1", "", http.StatusNotFound)

	// A clear of [m, 1]: that instance alone (and no downstream: only
	// what the pair names), back to no state.
	res := ts.v2(t, http.MethodPost, "/dags/mapped/clearTaskInstances",
		`{"dry_run": false, "dag_run_id": "r1", "only_failed": false, "task_ids": [["m", 1]]}`, http.StatusOK)
	rows, total = v2TIRows(t, res.body)
	if !slices.Equal(rows, []string{"m[1]=null"}) || total != 1 {
		t.Errorf("clear of [m, 1] = %v (%d), want m[1], cleared", rows, total)
	}
	if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=success", "1=", "2=success"}) {
		t.Errorf("m after the clear of [m, 1] = %v, want m[1] alone cleared", got)
	}
	// Clearing the task clears every instance.
	ts.v2(t, http.MethodPost, "/dags/mapped/clearTaskInstances",
		`{"dry_run": false, "dag_run_id": "r1", "only_failed": false, "task_ids": ["m"]}`, http.StatusOK)
	if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=", "1=", "2="}) {
		t.Errorf("m after the clear of m = %v, want every instance cleared", got)
	}
	// Deleting one map_index removes that row.
	ts.v2(t, http.MethodDelete, tis+"/m?map_index=2", "", http.StatusOK)
	if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=", "1="}) {
		t.Errorf("m after deleting map_index 2 = %v", got)
	}
}

// TestServerV1_MappedTaskInstanceRowsInLists: the stable API's lists show
// each instance as its own row (2.10.3 get_task_instances: rows of
// task_instance), with its map_index.
func TestServerV1_MappedTaskInstanceRowsInLists(t *testing.T) {
	t.Parallel()
	ts := mappedServer(t, edition2)
	res := ts.v1(t, http.MethodGet, "/dags/mapped/dagRuns/r1/taskInstances", "")
	var out struct {
		TaskInstances []struct {
			TaskID   string `json:"task_id"`
			MapIndex int    `json:"map_index"`
			State    string `json:"state"`
		} `json:"task_instances"`
		TotalEntries int `json:"total_entries"`
	}
	if err := json.Unmarshal([]byte(res.body), &out); err != nil {
		t.Fatalf("decode %s: %v", res.body, err)
	}
	var rows []string
	for _, ti := range out.TaskInstances {
		rows = append(rows, fmt.Sprintf("%s[%d]=%s", ti.TaskID, ti.MapIndex, ti.State))
	}
	want := []string{"m[0]=success", "m[1]=failed", "m[2]=success", "total[-1]=upstream_failed", "up[-1]=success"}
	slices.Sort(rows)
	if !slices.Equal(rows, want) || out.TotalEntries != 5 {
		t.Errorf("v1 task instances = %v (%d), want %v (5)", rows, out.TotalEntries, want)
	}
	log := ts.v1(t, http.MethodGet, "/dags/mapped/dagRuns/r1/taskInstances/m/logs/1?map_index=1", "", "Accept", "text/plain")
	if log.status != http.StatusOK || !strings.Contains(log.body, "try 1") {
		t.Errorf("m[1]'s log = %d %s, want its try's output", log.status, log.body)
	}
	if log := ts.v1(t, http.MethodGet, "/dags/mapped/dagRuns/r1/taskInstances/m/logs/1", ""); log.status != http.StatusNotFound {
		t.Errorf("m's log without map_index = %d %s, want 404 (no map_index -1 task instance)", log.status, log.body)
	}
}

// TestSnapshot_Version6MappedInstancesBecomeRows: a file of version 6
// kept a mapped task's expanded instances nested in its one task instance
// ("mapped"); restored, each is a task instance of its own, map_index
// 0..n-1 with its own state, try and dates, in the task's place (as
// Airflow's expand_mapped_task leaves them); written again, the file is of
// the current version, the rows carry their map_index and nothing is
// nested.
func TestSnapshot_Version6MappedInstancesBecomeRows(t *testing.T) {
	t.Parallel()
	ti := func(task, state, extra string) string {
		return `{"dag_id":"d","run_id":"r","task_id":"` + task + `","execution_date":"2024-01-02T00:00:00Z","state":"` + state +
			`","try_number":1,"max_tries":1,"start_date":"2024-01-02T00:00:01Z","end_date":"2024-01-02T00:00:09Z","duration":8,` +
			`"queued_dttm":null,"pool":"default_pool","pool_slots":1,"queue":"default","priority_weight":1,"operator":"PythonOperator",` +
			`"hostname":"h","unixname":"u","pid":null,"updated_at":null,"next_retry_at":null` + extra + `}`
	}
	mapped := `,"mapped":[` +
		`{"map_index":0,"state":"success","try_number":1,"start_date":"2024-01-02T00:00:01Z","end_date":"2024-01-02T00:00:02Z","duration":1,"rendered_map_index":null},` +
		`{"map_index":1,"state":"failed","try_number":2,"start_date":"2024-01-02T00:00:03Z","end_date":"2024-01-02T00:00:04Z","duration":1,"rendered_map_index":"one"},` +
		`{"map_index":2,"state":"success","try_number":1,"start_date":"2024-01-02T00:00:05Z","end_date":"2024-01-02T00:00:06Z","duration":1,"rendered_map_index":null}]`
	v6 := sealSnapshot(3, 4,
		`{"format":"airlite-snapshot","version":6,"index":7,"created_at":"2024-05-01T10:00:00Z","airlite_version":"old","tables":["dags","dag_runs","task_instances"]}`,
		`{"table":"dags","rows":1}`,
		`{"dag_id":"d","is_paused":false,"fileloc":"d.yaml"}`,
		`{"table":"dag_runs","rows":1}`,
		`{"id":1,"dag_id":"d","run_id":"r","execution_date":"2024-01-02T00:00:00Z","state":"failed","conf":null,"start_date":null,"end_date":null,"queued_at":null,"external_trigger":true,"run_type":"manual"}`,
		`{"table":"task_instances","rows":2}`,
		ti("m", "failed", mapped),
		ti("up", "success", ""),
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "v6.json")
	if err := os.WriteFile(path, v6, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, store *Store) {
		t.Helper()
		tis, err := store.TaskInstancesOfRun("d", "r")
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, ti := range tis {
			rendered := "-"
			if ti.RenderedMapIndex != nil {
				rendered = *ti.RenderedMapIndex
			}
			rows = append(rows, fmt.Sprintf("%s[%d]=%s try %d %s %s", ti.TaskID, ti.MapIndex, ti.State, ti.TryNumber,
				ti.StartDate.Format("05"), rendered))
		}
		want := []string{"m[0]=success try 1 01 -", "m[1]=failed try 2 03 one", "m[2]=success try 1 05 -", "up[-1]=success try 1 01 -"}
		if !slices.Equal(rows, want) {
			t.Errorf("restored task instances = %v, want %v", rows, want)
		}
	}
	store, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatalf("restore version 6: %v", err)
	}
	check(t, store)
	again := filepath.Join(dir, "v7.json")
	if _, err := writeSnapshot(store, again, snapNow); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, fmt.Appendf(nil, `"version":%d`, snapshotVersion)) || bytes.Contains(data, []byte(`"mapped"`)) ||
		!bytes.Contains(data, []byte(`"map_index":1`)) || bytes.Contains(data, []byte(`"map_index":-1`)) {
		t.Errorf("written again: want the current version, rows with their map_index (none written for -1), nothing nested:\n%s", data)
	}
	restored, _, err := restoreSnapshot(t.Context(), again)
	if err != nil {
		t.Fatal(err)
	}
	check(t, restored)
}

// TestServer_PatchOneMapIndex: PATCH of …/{task_id}/{map_index} sets the
// state of that task instance alone (2.10.3 patch_mapped_task_instance,
// 3.2.1 patch_task_instance_by_map_index: set_task_instance_state with
// map_indexes=[map_index]), and a note goes to that one.
func TestServer_PatchOneMapIndex(t *testing.T) {
	t.Parallel()
	t.Run("v1", func(t *testing.T) {
		t.Parallel()
		ts := mappedServer(t, edition2)
		res := ts.v1(t, http.MethodPatch, "/dags/mapped/dagRuns/r1/taskInstances/m/1", `{"dry_run": false, "new_state": "success"}`)
		if res.status != http.StatusOK || !strings.Contains(res.body, `"task_id": "m"`) {
			t.Fatalf("PATCH …/m/1 = %d %s", res.status, res.body)
		}
		if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=success", "1=success", "2=success"}) {
			t.Errorf("m after PATCH …/m/1 = %v, want m[1] success", got)
		}
		if res := ts.v1(t, http.MethodPatch, "/dags/mapped/dagRuns/r1/taskInstances/m/7", `{"dry_run": false, "new_state": "success"}`); res.status != http.StatusNotFound {
			t.Errorf("PATCH …/m/7 = %d %s, want 404", res.status, res.body)
		}
	})
	t.Run("v2", func(t *testing.T) {
		t.Parallel()
		ts := mappedServer(t, edition3)
		tis := "/dags/mapped/dagRuns/r1/taskInstances"
		res := ts.v2(t, http.MethodPatch, tis+"/m/0", `{"new_state": "failed", "note": "zero"}`, http.StatusOK)
		if rows, total := v2TIRows(t, res.body); !slices.Equal(rows, []string{"m[0]=failed"}) || total != 1 {
			t.Errorf("PATCH …/m/0 = %v (%d), want m[0] failed", rows, total)
		}
		if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=failed", "1=failed", "2=success"}) {
			t.Errorf("m after PATCH …/m/0 = %v, want m[0] alone changed", got)
		}
		for i, want := range []string{`"note":"zero"`, `"note":null`} {
			if one := ts.v2(t, http.MethodGet, fmt.Sprintf("%s/m/%d", tis, i), "", http.StatusOK).body; !strings.Contains(one, want) {
				t.Errorf("m[%d] = %s, want %s", i, one, want)
			}
		}
		ts.v2(t, http.MethodPatch, tis+"/m/5", `{"new_state": "failed"}`, http.StatusNotFound)
	})
}

// TestUI_MappedTaskSummary: the status page shows a mapped task as
// Airflow's grid does, one cell summing up its instances: the first state
// of www/utils.py's priority list that one is in.
func TestUI_MappedTaskSummary(t *testing.T) {
	t.Parallel()
	at := func(s int) *time.Time { v := time.Date(2024, 1, 1, 0, 0, s, 0, time.UTC); return &v }
	row := func(task string, i int, state TaskState, start, end int) *TaskInstance {
		return &TaskInstance{TaskID: task, MapIndex: i, State: state, StartDate: at(start), EndDate: at(end)}
	}
	got := summaryByTask([]*TaskInstance{row("a", -1, TaskSuccess, 0, 1),
		row("m", 0, TaskSuccess, 2, 3), row("m", 1, TaskRunning, 1, 9), row("m", 2, TaskUpForRetry, 4, 5),
		row("n", 0, TaskSuccess, 1, 2), row("n", 1, TaskSkipped, 3, 4)})
	cases := []struct {
		task  string
		state TaskState
		start int
		end   int
	}{{"a", TaskSuccess, 0, 1}, {"m", TaskUpForRetry, 1, 9}, {"n", TaskSuccess, 1, 4}}
	for _, c := range cases {
		s := got[c.task]
		if s == nil || s.State != c.state || !s.StartDate.Equal(*at(c.start)) || !s.EndDate.Equal(*at(c.end)) {
			t.Errorf("%s = %+v, want %s from %d to %d", c.task, s, c.state, c.start, c.end)
		}
	}
}

// TestMapping_ClearedTaskTakesItsNewLength: a mapped task over an
// upstream's value, cleared with it, keeps its task instances; when one
// is to run again its length is read again (2.10.3 dagrun.py
// _revise_map_indexes_if_mapped): indexes beyond a shorter length are
// removed, a longer one adds task instances; the downstream task counts
// what is left.
func TestMapping_ClearedTaskTakesItsNewLength(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := mappedHarness(t, -1, 0, 8, edition2)
		h.runner.returns = map[string]string{"up": "[1, 2, 3]"}
		runID := h.trigger("mapped", `{}`)
		h.settle()
		if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, []string{"0=success", "1=success", "2=success"}) {
			t.Fatalf("m over up's three values = %v", got)
		}
		for _, c := range []struct {
			value string
			want  []string
		}{
			{"[1, 2]", []string{"0=success", "1=success", "2=removed"}},
			{"[1, 2, 3, 4]", []string{"0=success", "1=success", "2=success", "3=success"}},
		} {
			h.runner.mu.Lock()
			h.runner.returns["up"] = c.value
			h.runner.mu.Unlock()
			if _, err := h.store.ClearRun("mapped", runID, h.clock.Now()); err != nil {
				t.Fatal(err)
			}
			h.settle()
			if got := rowStates(t, h.store, "mapped", runID, "m"); !slices.Equal(got, c.want) {
				t.Errorf("m after up returned %s = %v, want %v", c.value, got, c.want)
			}
			if got := rowStates(t, h.store, "mapped", runID, "total"); !slices.Equal(got, []string{"-1=success"}) {
				t.Errorf("total after up returned %s = %v, want success", c.value, got)
			}
			if got := h.runState("mapped", runID); got != RunSuccess {
				t.Errorf("run after up returned %s: %q, want success", c.value, got)
			}
		}
	})
}

// TestServerV2_BulkMappedTaskInstances: the bulk task-instance route over
// a mapped task's rows (services/public/task_instances.py
// BulkTaskInstanceService): an entity with a map_index deletes that
// instance, one without deletes every instance of the task, each named
// with its map_index in the answer; a map_index no instance has is the
// "not found" error. An update of an expanded instance fails as 3.2.1's
// does: _perform_update checks the request at map_index -1 (it does not
// pass the entity's), finds no instance there and stops the action with
// that 404's one-element tuple (fixed for 3.2.2 by apache/airflow#65874).
func TestServerV2_BulkMappedTaskInstances(t *testing.T) {
	t.Parallel()
	ts := mappedServer(t, edition3)
	tis := "/dags/mapped/dagRuns/r1/taskInstances"
	res := ts.v2(t, http.MethodPatch, tis, `{"actions":[
		{"action":"update","entities":[{"task_id":"m","map_index":1,"dag_id":"mapped","dag_run_id":"r1","new_state":"success"}]},
		{"action":"update","entities":[{"task_id":"m","map_index":7,"dag_id":"mapped","dag_run_id":"r1","note":"x"}]}]}`, http.StatusOK)
	notAtMinusOne := "{\"error\":\"('The Task Instance with dag_id: `mapped`, run_id: `r1`, task_id: `m` and map_index: `-1` was not found',)\",\"status_code\":404}"
	want := `{"create":null,"update":{"success":[],"errors":[` + notAtMinusOne +
		`,{"error":"The task instances with these identifiers: [{'dag_id': 'mapped', 'dag_run_id': 'r1', 'task_id': 'm', 'map_index': 7}] were not found","status_code":404}]},"delete":null}`
	if res.body != want {
		t.Errorf("bulk update of [m, 1]:\n got %s\nwant %s", res.body, want)
	}
	if got := rowStates(t, ts.store, "mapped", "r1", "m"); !slices.Equal(got, []string{"0=success", "1=failed", "2=success"}) {
		t.Errorf("m after the refused update of [m, 1] = %v, want it unchanged", got)
	}
	res = ts.v2(t, http.MethodPatch, tis, `{"actions":[
		{"action":"update","entities":[{"task_id":"m","dag_id":"mapped","dag_run_id":"r1","note":"every one"}]}]}`, http.StatusOK)
	if want := `{"create":null,"update":{"success":[],"errors":[` + notAtMinusOne + `]},"delete":null}`; res.body != want {
		t.Errorf("bulk update of m:\n got %s\nwant %s", res.body, want)
	}
	for i := range 3 {
		if one := ts.v2(t, http.MethodGet, fmt.Sprintf("%s/m/%d", tis, i), "", http.StatusOK).body; strings.Contains(one, `"note":"every one"`) {
			t.Errorf("m[%d] after the refused update of m: %s", i, one)
		}
	}
	res = ts.v2(t, http.MethodPatch, tis, `{"actions":[{"action":"delete","entities":[{"task_id":"m","map_index":2,"dag_id":"mapped","dag_run_id":"r1"}]}]}`, http.StatusOK)
	if want := `{"create":null,"update":null,"delete":{"success":["mapped.r1.m[2]"],"errors":[]}}`; res.body != want {
		t.Errorf("bulk delete of [m, 2]:\n got %s\nwant %s", res.body, want)
	}
	res = ts.v2(t, http.MethodPatch, tis, `{"actions":[{"action":"delete","entities":["m"]}]}`, http.StatusOK)
	if want := `{"create":null,"update":null,"delete":{"success":["mapped.r1.m[0]","mapped.r1.m[1]"],"errors":[]}}`; res.body != want {
		t.Errorf("bulk delete of m:\n got %s\nwant %s", res.body, want)
	}
	if got := rowStates(t, ts.store, "mapped", "r1", "m"); len(got) != 0 {
		t.Errorf("m after the deletes = %v, want no instance", got)
	}
}
