package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// earlierTries reads a task instance's history from the store, failing
// the test on an error.
func earlierTries(t *testing.T, store *Store, dagID, runID, taskID string) ([]*TaskInstance, int) {
	t.Helper()
	tries, dropped, err := store.EarlierTries(dagID, runID, taskID, -1)
	if err != nil {
		t.Fatal(err)
	}
	return tries, dropped
}

// tryNumbers lists the try numbers and states of tries.
func tryNumbers(tries []*TaskInstance) string {
	out := ""
	for _, t := range tries {
		out += fmt.Sprintf("%d:%s ", t.TryNumber, t.State)
	}
	return out
}

// TestStore_ClearRecordsEarlierTry follows Airflow 2.10.3
// airflow/models/taskinstance.py:457 (clear_task_instances records every
// cleared task instance first) and airflow/models/taskinstancehistory.py:
// 135-154 (record_ti: one row per try number; a try not finished is kept
// as failed, ended now, with its duration).
func TestStore_ClearRecordsEarlierTry(t *testing.T) {
	t.Parallel()
	start := testNow.Add(-90 * time.Second)
	end := testNow.Add(-30 * time.Second)
	cases := []struct {
		name   string
		state  TaskState
		try    int
		clears int
		want   string // try numbers and states kept
		check  func(t *testing.T, kept *TaskInstance)
	}{
		{name: "a finished try keeps its state and dates", state: TaskSuccess, try: 1, clears: 1, want: "1:success ",
			check: func(t *testing.T, kept *TaskInstance) {
				if !kept.EndDate.Equal(end) || *kept.Duration != 60 {
					t.Errorf("kept end %v duration %v, want %v and 60", kept.EndDate, *kept.Duration, end)
				}
			}},
		{name: "a running try is kept failed, ended now", state: TaskRunning, try: 2, clears: 1, want: "2:failed ",
			check: func(t *testing.T, kept *TaskInstance) {
				if !kept.EndDate.Equal(testNow) || *kept.Duration != 90 {
					t.Errorf("kept end %v duration %v, want %v and 90", kept.EndDate, *kept.Duration, testNow)
				}
				if kept.ProcIdentity != "" || kept.Note != nil {
					t.Errorf("kept try holds a process or a note: %+v", kept)
				}
			}},
		// taskinstancehistory.py:146: a try number is recorded once.
		{name: "clearing twice keeps one row", state: TaskFailed, try: 1, clears: 2, want: "1:failed "},
		// Airflow records a failed try 0 here (docs/behaviour.md §5).
		{name: "a task instance that never ran leaves none", state: TaskNone, try: 0, clears: 1, want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			ts.postRun(t, "tutorial", `{"dag_run_id": "r", "logical_date": "2024-01-03T00:00:00+00:00"}`)
			ti, err := ts.store.TaskInstance("tutorial", "r", "print_date")
			if err != nil {
				t.Fatal(err)
			}
			changed := *ti
			changed.State, changed.TryNumber, changed.StartDate = tc.state, tc.try, &start
			note, pid := "kept on the task instance", 100
			changed.Note, changed.PID, changed.ProcIdentity = &note, &pid, "proc"
			if tc.state.Finished() {
				d := 60.0
				changed.EndDate, changed.Duration = &end, &d
			}
			if err := ts.store.UpsertTaskInstance(&changed); err != nil {
				t.Fatal(err)
			}
			for range tc.clears {
				if _, err := ts.store.ClearTaskInstances("tutorial", "r", tasksNamed([]string{"print_date"}), false, testNow); err != nil {
					t.Fatal(err)
				}
			}
			tries, _ := earlierTries(t, ts.store, "tutorial", "r", "print_date")
			if got := tryNumbers(tries); got != tc.want {
				t.Fatalf("earlier tries %q, want %q", got, tc.want)
			}
			if tc.check != nil {
				tc.check(t, tries[0])
			}
		})
	}
}

// TestStore_EarlierTriesBounded: the history keeps the last maxLogTries
// tries, the bound of the task log (docs/behaviour.md §4.1), and counts
// the ones it drops.
func TestStore_EarlierTriesBounded(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.postRun(t, "tutorial", `{"dag_run_id": "r", "logical_date": "2024-01-03T00:00:00+00:00"}`)
	const clears = maxLogTries + 5
	for n := 1; n <= clears; n++ {
		ti, err := ts.store.TaskInstance("tutorial", "r", "print_date")
		if err != nil {
			t.Fatal(err)
		}
		changed := *ti
		changed.State, changed.TryNumber = TaskFailed, n
		if err := ts.store.UpsertTaskInstance(&changed); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.store.ClearTaskInstances("tutorial", "r", nil, false, testNow); err != nil {
			t.Fatal(err)
		}
	}
	tries, dropped := earlierTries(t, ts.store, "tutorial", "r", "print_date")
	if len(tries) != maxLogTries || dropped != clears-maxLogTries || tries[0].TryNumber != clears-maxLogTries+1 {
		t.Fatalf("kept %q, dropped %d; want the %d tries from %d, dropped %d",
			tryNumbers(tries), dropped, maxLogTries, clears-maxLogTries+1, clears-maxLogTries)
	}
}

// TestScheduler_RetriesKeepEarlierTries follows Airflow 2.10.3
// airflow/models/taskinstance.py:3369-3377 (handle_failure records the
// try before up_for_retry) and airflow/api_connexion/endpoints/
// task_instance_endpoint.py:794 and 843 (a try's details: the task
// instance first, then the history; the list: history, then the task
// instance). Each try's log stays readable by its number
// (log_endpoint.py).
func TestScheduler_RetriesKeepEarlierTries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: PythonOperator, retries: 2, retry_delay: 1m}
`}, nil)
		h.runner.outcomes["t"] = []TaskState{TaskFailed, TaskFailed, TaskSuccess}
		runID := h.trigger("d", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
		h.settle()
		for range 2 {
			h.clock.Advance(time.Minute + time.Microsecond)
			h.settle()
		}
		if ti := h.ti("d", runID, "t"); ti.State != TaskSuccess || ti.TryNumber != 3 {
			t.Fatalf("task instance %s try %d, want success 3", ti.State, ti.TryNumber)
		}
		tries, _ := earlierTries(t, h.store, "d", runID, "t")
		if got := tryNumbers(tries); got != "1:failed 2:failed " {
			t.Fatalf("earlier tries %q, want tries 1 and 2 failed", got)
		}
		for _, try := range tries {
			if try.EndDate == nil || try.Duration == nil || try.NextRetryAt != nil {
				t.Errorf("try %d: end %v duration %v next retry %v; want ended, without a retry time",
					try.TryNumber, try.EndDate, try.Duration, try.NextRetryAt)
			}
		}
		auth, err := newAuthenticator(authDefault, "")
		if err != nil {
			t.Fatal(err)
		}
		srv, err := newServer(serverOptions{Edition: edition2, Store: h.store, DAGs: h.dags, Auth: auth,
			Logger: zerolog.New(zerolog.NewTestWriter(t)), Now: h.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		list, err := srv.V1GetTaskInstanceTries("d", runID, "t", -1)
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, row := range list["task_instances"].([]any) {
			r := row.(map[string]any)
			states = append(states, fmt.Sprintf("%v:%v", r["try_number"], r["state"]))
		}
		if fmt.Sprint(states) != "[1:failed 2:failed 3:success]" || list["total_entries"] != 3 {
			t.Fatalf("tries %v (total %v), want 1 and 2 failed, then 3 success", states, list["total_entries"])
		}
		for try, want := range map[int64]string{1: "failed", 2: "failed", 3: "success"} {
			got, err := srv.V1GetTaskInstanceTry("d", runID, "t", -1, try)
			if err != nil || got["state"] != want || got["try_number"] != int(try) {
				t.Errorf("try %d: %v %v, want %s", try, got, err, want)
			}
			log, err := srv.V1GetLog("d", runID, "t", int(try), v1Values{})
			if err != nil || log.text != fmt.Sprintf("try %d\n", try) {
				t.Errorf("log of try %d: %+v %v", try, log, err)
			}
		}
		// A clear keeps the last try too; the next one is number 4.
		if _, err := h.store.ClearRun("d", runID, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		h.settle()
		tries, _ = earlierTries(t, h.store, "d", runID, "t")
		if got := tryNumbers(tries); got != "1:failed 2:failed 3:success " {
			t.Fatalf("earlier tries after the clear %q", got)
		}
		if ti := h.ti("d", runID, "t"); ti.State != TaskSuccess || ti.TryNumber != 4 {
			t.Fatalf("task instance after the clear %s try %d, want success 4", ti.State, ti.TryNumber)
		}
	})
}

// TestResolveOrphans_KeepsTheLostTry: a try that a crash left running
// is kept as failed when the task instance goes on to another try, in
// both editions' orphan policies (scheduler_orphans.go). Airflow 2.10.3 keeps no
// row there (adopt_or_reset_orphaned_tasks does not call record_ti), so
// its try numbers would skip one: docs/behaviour.md §5.
func TestResolveOrphans_KeepsTheLostTry(t *testing.T) {
	t.Parallel()
	for _, e := range []edition{edition2, edition110} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			ts.trigger(t, "tutorial", `{"run_id": "r", "execution_date": "2024-01-03T00:00:00+00:00"}`)
			ti, err := ts.store.TaskInstance("tutorial", "r", "print_date")
			if err != nil {
				t.Fatal(err)
			}
			start := testNow.Add(-time.Minute)
			running := *ti
			running.State, running.TryNumber, running.MaxTries, running.StartDate = TaskRunning, 1, 1, &start
			if err := ts.store.UpsertTaskInstance(&running); err != nil {
				t.Fatal(err)
			}
			if _, err := resolveOrphans(ts.store, e.rules().orphans, testNow, zerolog.Nop()); err != nil {
				t.Fatal(err)
			}
			tries, _ := earlierTries(t, ts.store, "tutorial", "r", "print_date")
			if got := tryNumbers(tries); got != "1:failed " || !tries[0].EndDate.Equal(testNow) {
				t.Fatalf("earlier tries %q, want try 1 failed at %v", got, testNow)
			}
		})
	}
}

// TestStore_EarlierTriesGoWithTheirRun: every write that removes task
// instances removes their earlier tries in the same transaction, so that
// a run re-created under the same run_id starts without history.
func TestStore_EarlierTriesGoWithTheirRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		remove func(t *testing.T, ts *testServer)
	}{
		{"DELETE the run", func(t *testing.T, ts *testServer) {
			if res := ts.v1(t, "DELETE", "/dags/tutorial/dagRuns/r", ""); res.status != http.StatusNoContent {
				t.Fatalf("delete run: %d %s", res.status, res.body)
			}
		}},
		{"DELETE the DAG", func(t *testing.T, ts *testServer) {
			if res := ts.v1(t, "DELETE", "/dags/tutorial", ""); res.status != http.StatusNoContent {
				t.Fatalf("delete dag: %d %s", res.status, res.body)
			}
		}},
		{"reset scope runs of the DAG", func(t *testing.T, ts *testServer) {
			if res := ts.do(t, "POST", "/_airlite/reset?scope=runs&dag_id=tutorial", ""); res.status != http.StatusOK {
				t.Fatalf("reset: %d %s", res.status, res.body)
			}
		}},
		{"reset scope runs", func(t *testing.T, ts *testServer) {
			if res := ts.do(t, "POST", "/_airlite/reset?scope=runs", ""); res.status != http.StatusOK {
				t.Fatalf("reset: %d %s", res.status, res.body)
			}
		}},
		{"reset all", func(t *testing.T, ts *testServer) {
			if res := ts.do(t, "POST", "/_airlite/reset", ""); res.status != http.StatusOK {
				t.Fatalf("reset: %d %s", res.status, res.body)
			}
		}},
		{"--run-retention drop-oldest-finished", func(t *testing.T, ts *testServer) {
			ts.store.SetRunLimit(RunLimit{Max: 1, DropOldestFinished: true})
			ts.setRunState(t, "tutorial", "r", RunSuccess)
			ts.postRun(t, "tutorial", `{"dag_run_id": "newer", "logical_date": "2024-01-04T00:00:00+00:00"}`)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			ts.postRun(t, "tutorial", `{"dag_run_id": "r", "logical_date": "2024-01-03T00:00:00+00:00"}`)
			ts.setTaskState(t, "tutorial", "r", "print_date", TaskSuccess)
			ti, err := ts.store.TaskInstance("tutorial", "r", "print_date")
			if err != nil {
				t.Fatal(err)
			}
			tried := *ti
			tried.TryNumber = 1
			if err := ts.store.UpsertTaskInstance(&tried); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.store.ClearRun("tutorial", "r", testNow); err != nil {
				t.Fatal(err)
			}
			if tries, _ := earlierTries(t, ts.store, "tutorial", "r", "print_date"); len(tries) != 1 {
				t.Fatalf("before: %d earlier tries, want 1", len(tries))
			}
			tc.remove(t, ts)
			if tries, _ := earlierTries(t, ts.store, "tutorial", "r", "print_date"); len(tries) != 0 {
				t.Fatalf("after: earlier tries %q remain", tryNumbers(tries))
			}
		})
	}
}

// TestServerV1_TaskInstanceTries_History follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:200-212
// (with_ti_history: a successful try 1, dag.clear(), then try 2) and the
// cases of TestGetTaskInstanceTry (2739-2995) and TestGetTaskInstanceTries
// (2997-3080), through the real clear of POST /clearTaskInstances.
func TestServerV1_TaskInstanceTries_History(t *testing.T) {
	t.Parallel()
	// The task instance before the clear, as the tries endpoint shows it,
	// per case: the cases run in parallel, each with its own server.
	var mu sync.Mutex
	befores := map[*testServer]map[string]any{}
	beforeOf := func(ts *testServer) map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return befores[ts]
	}
	setup := func(t *testing.T, ts *testServer) {
		threeRuns(t, ts)
		ti, err := ts.store.TaskInstance("tutorial", "r3", "print_date")
		if err != nil {
			t.Fatal(err)
		}
		start, end := time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2020, 1, 3, 0, 0, 0, 0, time.UTC)
		done := *ti
		d, pid := 10000.0, 100
		done.State, done.TryNumber, done.StartDate, done.EndDate, done.Duration, done.PID = TaskSuccess, 1, &start, &end, &d, &pid
		if err := ts.store.UpsertTaskInstance(&done); err != nil {
			t.Fatal(err)
		}
		before := decodeJSON[map[string]any](t, ts.v1(t, "GET", tiPath+"/tries/1", "").body)
		mu.Lock()
		befores[ts] = before
		mu.Unlock()
		res := ts.v1(t, "POST", "/dags/tutorial/clearTaskInstances",
			`{"dry_run": false, "dag_run_id": "r3", "task_ids": ["print_date"], "only_failed": false}`)
		if res.status != http.StatusOK {
			t.Fatalf("clear: %d %s", res.status, res.body)
		}
		// The next try begins, as the fixture sets try_number 2.
		ti, err = ts.store.TaskInstance("tutorial", "r3", "print_date")
		if err != nil {
			t.Fatal(err)
		}
		next := *ti
		next.TryNumber = 2
		if err := ts.store.UpsertTaskInstance(&next); err != nil {
			t.Fatal(err)
		}
	}
	wantTry1 := func(t *testing.T, ts *testServer, got map[string]any) {
		t.Helper()
		if before := beforeOf(ts); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("try 1 %v\nwant the task instance as it was before the clear %v", got, before)
		}
		if got["state"] != "success" || got["end_date"] != "2020-01-03T00:00:00+00:00" || got["duration"] != 10000.0 || got["pid"] != 100.0 {
			t.Errorf("try 1 %v: want success, ended 2020-01-03, 10000 s, pid 100", got)
		}
	}
	runV1Cases(t, []v1Case{
		// test_task_instance_endpoint.py:3004: the history row and the task instance.
		{name: "tries", path: tiPath + "/tries", setup: setup, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				c := decodeJSON[struct {
					TaskInstances []map[string]any `json:"task_instances"`
					TotalEntries  int              `json:"total_entries"`
				}](t, res.body)
				if c.TotalEntries != 2 || len(c.TaskInstances) != 2 {
					t.Fatalf("tries %s: want 2", res.body)
				}
				wantTry1(t, ts, c.TaskInstances[0])
				wantTryOfTI(t, ts, c.TaskInstances[1])
			}},
		// test_task_instance_endpoint.py:2781-2814: try 1 from the history, try 2 the task instance.
		{name: "try 1", path: tiPath + "/tries/1", setup: setup, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				wantTry1(t, ts, decodeJSON[map[string]any](t, res.body))
			}},
		{name: "try 2", path: tiPath + "/tries/2", setup: setup, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				got := decodeJSON[map[string]any](t, res.body)
				wantTryOfTI(t, ts, got)
				// clear_task_instances gives room for the retries again.
				if got["state"] != nil || got["max_tries"] != beforeOf(ts)["max_tries"].(float64)+1 {
					t.Errorf("try 2 %v: want no state, max_tries one more than try 1's", got)
				}
			}},
		{name: "try 3: none", path: tiPath + "/tries/3", setup: setup,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found",
				detail: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date, map_index=-1, try_number=3."}},
		{name: "map index 0: none", path: tiPath + "/0/tries", setup: setup,
			wantStatus: 200, wantJSON: `{"task_instances": [], "total_entries": 0}`},
		{name: "map index 0, try 1: none", path: tiPath + "/0/tries/1", setup: setup,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found",
				detail: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date, map_index=0, try_number=1."}},
	})
}

// TestSnapshot_EarlierTries: earlier tries survive a snapshot, and a
// version 3 file (written before they were kept) restores without any.
func TestSnapshot_EarlierTries(t *testing.T) {
	t.Parallel()
	good := snapRich(t)
	cases := []struct {
		name string
		data []byte
		want bool // earlier tries restored
	}{
		{"this version", good, true},
		{"version 3", snapWithout(t, good, 3, tableTryHistory), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "snapshot.json")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			store, _, err := restoreSnapshot(t.Context(), path)
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			rows := snapTableRows(t, store)
			if got := len(rows[tableTryHistory]) > 0; got != tc.want {
				t.Fatalf("earlier tries restored: %v, want %v", got, tc.want)
			}
			if len(rows[tableTasks]) == 0 {
				t.Fatal("the task instances are gone")
			}
			// Every up_for_retry task instance's try is kept.
			for _, raw := range rows[tableTasks] {
				for _, ti := range raw.(*runTasks).TIs {
					if ti.State != TaskUpForRetry {
						continue
					}
					tries, _ := earlierTries(t, store, ti.DagID, ti.RunID, ti.TaskID)
					if kept := len(tries) == 1 && tries[0].TryNumber == ti.TryNumber; kept != tc.want {
						t.Errorf("%s/%s/%s: earlier tries %q", ti.DagID, ti.RunID, ti.TaskID, tryNumbers(tries))
					}
				}
			}
		})
	}
}

// A cleared task instance keeps its end date and duration until its next
// try starts: clear_task_instances sets the state alone (2.10.3
// models/taskinstance.py, seen on the real 2.10.3; 3.2.1 likewise after
// prepare_db_for_next_try), and the API answers them.
func TestClear_KeepsEndDateAndDuration(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.postRun(t, "tutorial", `{"dag_run_id": "r", "logical_date": "2024-01-03T00:00:00+00:00"}`)
	ti, err := ts.store.TaskInstance("tutorial", "r", "print_date")
	if err != nil {
		t.Fatal(err)
	}
	start, end, took := testNow.Add(-time.Minute), testNow.Add(-30*time.Second), 30.0
	done := *ti
	done.State, done.TryNumber, done.StartDate, done.EndDate, done.Duration = TaskFailed, 1, &start, &end, &took
	if err := ts.store.UpsertTaskInstance(&done); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.ClearTaskInstances("tutorial", "r", tasksNamed([]string{"print_date"}), false, testNow); err != nil {
		t.Fatal(err)
	}
	cleared, err := ts.store.TaskInstance("tutorial", "r", "print_date")
	if err != nil {
		t.Fatal(err)
	}
	if cleared.State != TaskNone || cleared.EndDate == nil || !cleared.EndDate.Equal(end) || cleared.Duration == nil || *cleared.Duration != took {
		t.Fatalf("cleared: state %q, end %v, duration %v; want no state, the end and duration kept", cleared.State, cleared.EndDate, cleared.Duration)
	}
	res := ts.v1(t, http.MethodGet, "/dags/tutorial/dagRuns/r/taskInstances/print_date", "")
	v := decodeJSON[map[string]any](t, res.body)
	if v["state"] != nil || v["end_date"] != isoFormat(end) || v["duration"] != took {
		t.Errorf("GET the cleared task instance: state %v, end_date %v, duration %v", v["state"], v["end_date"], v["duration"])
	}
}
