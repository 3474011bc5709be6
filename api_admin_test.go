package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// decodeBody decodes a JSON answer into a map.
func decodeBody(t *testing.T, res response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(res.body), &m); err != nil {
		t.Fatalf("decode %q: %v", res.body, err)
	}
	return m
}

// expect checks a status and that the body holds every wanted fragment.
func expect(t *testing.T, res response, status int, fragments ...string) {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	for _, f := range fragments {
		if !strings.Contains(res.body, f) {
			t.Fatalf("body %s lacks %s", res.body, f)
		}
	}
}

func TestAdmin_ResetScopes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		query      string
		wantStatus int
		wantError  string
		check      func(t *testing.T, ts *testServer)
	}{
		{"runs of one DAG", "?scope=runs&dag_id=example_bash_operator", 200, "", func(t *testing.T, ts *testServer) {
			if runs, _ := ts.store.RunsOfDag("example_bash_operator", ""); len(runs) != 0 {
				t.Errorf("%d runs of the reset DAG left", len(runs))
			}
			if runs, _ := ts.store.RunsOfDag("tutorial", ""); len(runs) != 1 {
				t.Errorf("other DAG's runs: %d, want 1 kept", len(runs))
			}
			if p, _ := ts.store.PoolByName("extra"); p == nil {
				t.Error("pools changed by a runs reset")
			}
		}},
		{"runs of every DAG", "?scope=runs", 200, "", func(t *testing.T, ts *testServer) {
			if runs, _ := ts.store.RunsOfDag("tutorial", ""); len(runs) != 0 {
				t.Errorf("%d runs left", len(runs))
			}
			if row, _ := ts.store.DagByID("tutorial"); !row.IsPaused {
				t.Error("paused flag changed by a runs reset")
			}
		}},
		{"pools", "?scope=pools", 200, "", func(t *testing.T, ts *testServer) {
			pools, _ := ts.store.Pools()
			if len(pools) != 1 || pools[0].Name != defaultPoolName || pools[0].Slots != defaultPoolSlots {
				t.Errorf("pools after reset: %+v", pools)
			}
			if runs, _ := ts.store.RunsOfDag("tutorial", ""); len(runs) != 1 {
				t.Error("runs changed by a pools reset")
			}
		}},
		{"paused flags", "?scope=paused", 200, "", func(t *testing.T, ts *testServer) {
			if row, _ := ts.store.DagByID("tutorial"); row.IsPaused {
				t.Error("tutorial still paused")
			}
		}},
		{"everything", "", 200, "", func(t *testing.T, ts *testServer) {
			if runs, _ := ts.store.RunsOfDag("tutorial", ""); len(runs) != 0 {
				t.Error("runs left")
			}
			if p, _ := ts.store.PoolByName("extra"); p != nil {
				t.Error("pool left")
			}
			if _, ok := ts.store.Variable("v"); ok {
				t.Error("variable left")
			}
			if _, err := ts.store.ConnectionByID("c"); err == nil {
				t.Error("connection left")
			}
		}},
		{"variables", "?scope=variables", 200, "", func(t *testing.T, ts *testServer) {
			if _, ok := ts.store.Variable("v"); ok {
				t.Error("variable left")
			}
			if _, err := ts.store.ConnectionByID("c"); err != nil {
				t.Error("connection removed by a variables reset")
			}
			if runs, _ := ts.store.RunsOfDag("tutorial", ""); len(runs) != 1 {
				t.Error("runs changed by a variables reset")
			}
		}},
		{"connections", "?scope=connections", 200, "", func(t *testing.T, ts *testServer) {
			if _, err := ts.store.ConnectionByID("c"); err == nil {
				t.Error("connection left")
			}
			if _, ok := ts.store.Variable("v"); !ok {
				t.Error("variable removed by a connections reset")
			}
		}},
		{"unknown scope", "?scope=dags", 400, `unknown reset scope \"dags\"`, nil},
		{"unknown dag", "?scope=runs&dag_id=nope", 404, "dag nope does not exist", nil},
		{"dag_id needs scope runs", "?dag_id=tutorial", 400, "dag_id goes with scope=runs only", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			ts.trigger(t, "example_bash_operator", `{}`)
			ts.trigger(t, "tutorial", `{}`)
			expect(t, ts.do(t, "GET", apiPrefix+"/dags/tutorial/paused/true", ""), 200)
			expect(t, ts.do(t, "POST", apiPrefix+"/pools", `{"name": "extra", "slots": 3, "description": "x"}`), 200)
			if _, err := ts.store.SetVariable("v", "1", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.store.CreateConnection(Connection{ConnID: "c", ConnType: "http"}); err != nil {
				t.Fatal(err)
			}
			res := ts.do(t, "POST", "/_airlite/reset"+tc.query, "")
			expect(t, res, tc.wantStatus, tc.wantError)
			if tc.check != nil {
				tc.check(t, ts)
			}
		})
	}
}

func TestAdmin_ForceRunState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		state      string
		wantStatus int
		wantTasks  TaskState // state of every task after forcing
	}{
		{"success", 200, TaskSuccess},
		{"failed", 200, TaskSkipped}, // none were running: not finished → skipped
		{"running", 200, TaskNone},
		{"queued", 200, TaskNone},
		{"bogus", 400, TaskNone},
	}
	for _, tc := range cases {
		t.Run(tc.state, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			runID := ts.trigger(t, "example_bash_operator", `{}`)["run_id"].(string)
			res := ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", fmt.Sprintf(`{"state": %q}`, tc.state))
			expect(t, res, tc.wantStatus)
			if tc.wantStatus != 200 {
				expect(t, res, 400, "is not a run state")
				return
			}
			run, _ := ts.store.RunByRunID("example_bash_operator", runID)
			if string(run.State) != tc.state {
				t.Errorf("run state %q, want %q", run.State, tc.state)
			}
			tis, _ := ts.store.TaskInstancesOfRun("example_bash_operator", runID)
			for _, ti := range tis {
				if ti.State != tc.wantTasks {
					t.Errorf("%s = %q, want %q", ti.TaskID, ti.State, tc.wantTasks)
				}
			}
		})
	}
	t.Run("running task fails, unknown run 404, bad body 400", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2)
		runID := ts.trigger(t, "example_bash_operator", `{}`)["run_id"].(string)
		ti, _ := ts.store.TaskInstance("example_bash_operator", runID, "runme_0")
		running := *ti
		running.State = TaskRunning
		if err := ts.store.UpsertTaskInstance(&running); err != nil {
			t.Fatal(err)
		}
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", `{"state": "failed"}`), 200)
		if got, _ := ts.store.TaskInstance("example_bash_operator", runID, "runme_0"); got.State != TaskFailed {
			t.Errorf("running task became %q, want failed", got.State)
		}
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/nope/state", `{"state": "failed"}`), 404, "has no run nope")
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", `{"state": 1}`), 400, "bad request body")
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", `{"stat": "failed"}`), 400, "unknown field")
	})
}

func TestAdmin_ForceTaskState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		task, body string
		wantStatus int
		want       map[string]TaskState // tasks whose state must be this; others stay None
	}{
		{"one task", "runme_0", `{"state": "success"}`, 200, map[string]TaskState{"runme_0": TaskSuccess}},
		{"downstream", "run_after_loop", `{"state": "failed", "downstream": true}`, 200,
			map[string]TaskState{"run_after_loop": TaskFailed, "run_this_last": TaskFailed}},
		{"upstream", "run_after_loop", `{"state": "skipped", "upstream": true}`, 200,
			map[string]TaskState{"run_after_loop": TaskSkipped, "runme_0": TaskSkipped, "runme_1": TaskSkipped, "runme_2": TaskSkipped}},
		{"bad state", "runme_0", `{"state": "running"}`, 400, nil},
		{"unknown task", "nope", `{"state": "success"}`, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			runID := ts.trigger(t, "example_bash_operator", `{}`)["run_id"].(string)
			res := ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/tasks/"+tc.task+"/state", tc.body)
			expect(t, res, tc.wantStatus)
			tis, _ := ts.store.TaskInstancesOfRun("example_bash_operator", runID)
			for _, ti := range tis {
				if want := tc.want[ti.TaskID]; ti.State != want {
					t.Errorf("%s = %q, want %q", ti.TaskID, ti.State, want)
				}
			}
		})
	}
	t.Run("a finished run reopens", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2)
		runID := ts.trigger(t, "example_bash_operator", `{}`)["run_id"].(string)
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/state", `{"state": "failed"}`), 200)
		expect(t, ts.do(t, "POST", "/_airlite/dags/example_bash_operator/dag_runs/"+runID+"/tasks/runme_0/state", `{"state": "success"}`), 200)
		if run, _ := ts.store.RunByRunID("example_bash_operator", runID); run.State != RunRunning {
			t.Errorf("run %q after marking a task, want running (the scheduler decides again)", run.State)
		}
	})
}

func TestAdmin_Clock(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		fake       bool
		body       string
		wantStatus int
		want       string
	}{
		{"real clock refuses", false, `{"advance": "1h"}`, 400, "the clock is real"},
		{"advance", true, `{"advance": "1d"}`, 200, `"now":"2024-01-02T00:00:00+00:00"`},
		{"advance timedelta text", true, `{"advance": "0:05:00"}`, 200, `"now":"2024-01-01T00:05:00+00:00"`},
		{"set", true, `{"set": "2024-03-01T12:00:00+02:00"}`, 200, `"now":"2024-03-01T10:00:00+00:00"`},
		{"backwards", true, `{"set": "2023-01-01"}`, 400, "only moves forward"},
		{"bad duration", true, `{"advance": "soon"}`, 400, `advance: \"soon\" is not a duration`},
		{"bad date", true, `{"set": "someday"}`, 400, `set: \"someday\" is not a date`},
		{"both", true, `{"set": "2025-01-01", "advance": "1h"}`, 400, "not both"},
		{"neither", true, `{}`, 400, "give"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(start)
			ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) {
				if tc.fake {
					o.Clock, o.Now = clock, clock.Now
				}
			}))
			expect(t, ts.do(t, "POST", "/_airlite/clock", tc.body), tc.wantStatus, tc.want)
			if tc.fake {
				got := decodeBody(t, ts.do(t, "GET", "/_airlite/clock", ""))
				if got["fake"] != true || got["now"] != isoFormat(clock.Now()) {
					t.Errorf("GET clock = %v, want fake at %s", got, isoFormat(clock.Now()))
				}
			}
		})
	}
	t.Run("triggers use the fake clock", func(t *testing.T) {
		t.Parallel()
		clock := newFakeClock(start)
		ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Clock, o.Now = clock, clock.Now }))
		expect(t, ts.do(t, "POST", "/_airlite/clock", `{"advance": "36h"}`), 200)
		if got := ts.trigger(t, "tutorial", `{}`)["run_id"]; got != "manual__2024-01-02T12:00:00+00:00" {
			t.Errorf("run_id %v, want the fake clock's time", got)
		}
	})
}

func TestAdmin_WaitRun(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	runID := ts.trigger(t, "example_bash_operator", `{}`)["run_id"].(string)
	base := "/_airlite/dags/example_bash_operator/dag_runs/" + runID
	res := ts.do(t, "GET", base+"/wait?timeout=20ms", "")
	expect(t, res, http.StatusRequestTimeout, `"state":"queued"`, "still queued after 20ms", `"runme_0":null`)
	done := make(chan response, 1)
	go func() { done <- ts.do(t, "GET", base+"/wait?timeout=30s", "") }()
	expect(t, ts.do(t, "POST", base+"/state", `{"state": "success"}`), 200)
	res = <-done
	expect(t, res, 200, `"state":"success"`, `"runme_0":"success"`)
	expect(t, ts.do(t, "GET", "/_airlite/dags/example_bash_operator/dag_runs/nope/wait", ""), 404, "has no run nope")
	for _, bad := range []string{"soon", "0s", "11m", "-1s"} {
		expect(t, ts.do(t, "GET", base+"/wait?timeout="+bad, ""), 400, "timeout")
	}
}

func TestAdmin_Journal(t *testing.T) {
	t.Parallel()
	t.Run("records, filters, bounds and clears", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Journal = newJournal(3) }))
		ts.do(t, "GET", apiPrefix+"/test", "")
		ts.do(t, "GET", apiPrefix+"/pools/nope", "")
		ts.trigger(t, "tutorial", `{"conf": {"k": "v"}}`)
		ts.do(t, "GET", apiPrefix+"/test", "")
		ts.do(t, "GET", "/", "") // a status page: not journaled
		all := decodeBody(t, ts.do(t, "GET", "/_airlite/requests", ""))["requests"].([]any)
		if len(all) != 3 {
			t.Fatalf("%d entries, want the journal's size 3", len(all))
		}
		first := all[0].(map[string]any)
		if first["path"] != apiPrefix+"/pools/nope" || first["status"] != float64(404) {
			t.Errorf("oldest kept entry %v, want the 404 on /pools/nope", first)
		}
		posts := decodeBody(t, ts.do(t, "GET", "/_airlite/requests?method=post", ""))["requests"].([]any)
		if len(posts) != 1 || posts[0].(map[string]any)["body"] != `{"conf": {"k": "v"}}` {
			t.Errorf("POST entries %v, want the trigger with its body", posts)
		}
		byStatus := decodeBody(t, ts.do(t, "GET", "/_airlite/requests?status=404", ""))["requests"].([]any)
		if len(byStatus) != 1 {
			t.Errorf("status filter: %v", byStatus)
		}
		byPath := decodeBody(t, ts.do(t, "GET", "/_airlite/requests?path="+apiPrefix+"/test&limit=1", ""))["requests"].([]any)
		if len(byPath) != 1 || byPath[0].(map[string]any)["seq"] != float64(4) {
			t.Errorf("path+limit filter: %v, want the newest /test", byPath)
		}
		expect(t, ts.do(t, "GET", "/_airlite/requests?limit=x", ""), 400, `limit \"x\"`)
		expect(t, ts.do(t, "DELETE", "/_airlite/requests", ""), 200, `"cleared":3`)
		if got := decodeBody(t, ts.do(t, "GET", "/_airlite/requests", ""))["requests"].([]any); len(got) != 0 {
			t.Errorf("%d entries after clearing", len(got))
		}
	})
	t.Run("bodies are bounded", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Journal = newJournal(10) }))
		big := `{"conf": {"k": "` + strings.Repeat("x", 40<<10) + `"}}`
		ts.do(t, "POST", apiPrefix+"/dags/tutorial/dag_runs", big)
		got := decodeBody(t, ts.do(t, "GET", "/_airlite/requests", ""))["requests"].([]any)[0].(map[string]any)
		if len(got["body"].(string)) != journalBodyLimit || got["body_truncated"] != true {
			t.Errorf("kept %d bytes (truncated %v), want %d and true", len(got["body"].(string)), got["body_truncated"], journalBodyLimit)
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2)
		expect(t, ts.do(t, "GET", "/_airlite/requests", ""), 400, "journal is off")
		expect(t, ts.do(t, "DELETE", "/_airlite/requests", ""), 400, "journal is off")
	})
}

func TestAdmin_LoadDAG(t *testing.T) {
	t.Parallel()
	const def = "dag_id: loaded\nschedule_interval: null\nstart_date: 2024-01-01\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo hi}\n"
	cases := []struct {
		name       string
		body       string
		wantStatus int
		want       string
	}{
		{"yaml", def, 200, `"dag_id":"loaded","replaced":false,"tasks":1`},
		{"json", `{"dag_id": "j", "tasks": [{"task_id": "a", "operator": "EmptyOperator"}]}`, 200, `"dag_id":"j"`},
		{"replace an example", "dag_id: tutorial\ntasks: [{task_id: only, operator: EmptyOperator}]\n", 200, `"replaced":true`},
		{"syntax error", "dag_id: x\ntasks: [\n", 400, `{"error":"line 3: not valid YAML or JSON: a value is missing here`},
		{"unknown key", "dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, trigger_rul: all_done}\n", 400,
			`{"error":"line 3: unknown key \"trigger_rul\" (did you mean trigger_rule?)"}`},
		{"operator typo", "dag_id: x\ntasks:\n  - {task_id: a, operator: BashOpertor, bash_command: echo}\n", 400,
			`{"error":"line 3: task \"a\": unknown operator \"BashOpertor\" (did you mean BashOperator?)"}`},
		{"bash_command on another operator", "dag_id: x\ntasks:\n  - {task_id: a, operator: PythonOperator, bash_command: echo}\n", 400,
			`{"error":"line 3: task \"a\": bash_command is taken by BashOperator, not by PythonOperator"}`},
		{"empty body", "# nothing\n", 400, `{"error":"line 1: empty file: no DAG defined"}`},
		{"unknown upstream", "dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, upstream: [ghost]}\n", 400, `upstream task \"ghost\" does not exist`},
		{"cycle", "dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, downstream: [b]}\n  - {task_id: b, operator: EmptyOperator, downstream: [a]}\n", 400, "cycle"},
		{"sub-DAG operator", "dag_id: x\ntasks:\n  - {task_id: s, operator: SubDagOperator}\n", 400, "same folder"},
		{"replace a sub-DAG", "dag_id: example_subdag_operator.section-1\ntasks: [{task_id: a, operator: EmptyOperator}]\n", 400, "is a sub-DAG of example_subdag_operator"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			expect(t, ts.do(t, "POST", "/_airlite/dags", tc.body), tc.wantStatus, tc.want)
		})
	}
	t.Run("served, keeps paused flag, forgotten by reset", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2)
		expect(t, ts.do(t, "POST", "/_airlite/dags", def), 200)
		expect(t, ts.do(t, "GET", apiPrefix+"/dags/loaded/tasks/a", ""), 200, `"bash_command": "echo hi"`)
		expect(t, ts.do(t, "GET", apiPrefix+"/dags/loaded/paused/true", ""), 200)
		expect(t, ts.do(t, "POST", "/_airlite/dags", strings.Replace(def, "echo hi", "echo again", 1)), 200, `"replaced":true`)
		expect(t, ts.do(t, "GET", apiPrefix+"/dags/loaded/paused", ""), 200, `{"is_paused": true}`)
		expect(t, ts.do(t, "GET", apiPrefix+"/dags/loaded/tasks/a", ""), 200, `"bash_command": "echo again"`)
		expect(t, ts.do(t, "POST", "/_airlite/reset", ""), 200)
		expect(t, ts.do(t, "GET", apiPrefix+"/dags/loaded/tasks/a", ""), 404, "not found in DagModel")
	})
}

// A definition loaded at runtime is read on airlite's clock: days_ago(1)
// counts from the server's now (testNow, 2024-05-01), as the embedded
// examples' days_ago(2) counts from when they were read; a trigger before
// it is refused as Airflow 1.10.15 refuses it
// (airflow/api/common/experimental/trigger_dag.py:63-69).
func TestAdmin_LoadDAG_DaysAgoOnServerClock(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition110)
	expect(t, ts.do(t, "POST", "/_airlite/dags", "dag_id: rel\ndefault_args: {start_date: days_ago(1)}\ntasks:\n  - {task_id: a, operator: DummyOperator}\n"), 200)
	expect(t, ts.do(t, "POST", apiPrefix+"/dags/rel/dag_runs", `{"execution_date": "2024-04-29T23:59:59Z"}`), 500,
		"should be >= start_date [2024-04-30T00:00:00+00:00]")
	expect(t, ts.do(t, "POST", apiPrefix+"/dags/rel/dag_runs", `{"execution_date": "2024-04-30T00:00:00Z"}`), 200)
}

// TestFakeClock_CatchupAndRetryDelay drives a @daily schedule with catchup
// over 10 days and a 5-minute retry delay through the fake clock: no wait
// for either. The clock moves through the admin endpoint; each move wakes
// the scheduler (counted here), and the test runs the passes that wake-up
// asks for itself, so every check sees the state all due passes leave.
func TestFakeClock_CatchupAndRetryDelay(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(time.Date(2024, 1, 11, 0, 30, 0, 0, time.UTC))
	dags, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(t, dags)
	for _, d := range dags.DAGs {
		if err := store.SetPaused(d.DagID, true, true); err != nil {
			t.Fatal(err)
		}
	}
	logger := zerolog.New(zerolog.NewTestWriter(t))
	sched := newScheduler(schedulerOptions{Store: store, Edition: edition2, Logger: logger, Now: clock.Now,
		Parallelism: 32}) // no loop: settleTicks runs the passes
	t.Cleanup(sched.stop)
	var wakes atomic.Int64
	clock.moved = func() { wakes.Add(1); sched.Kick() }
	auth, _ := newAuthenticator(authDefault, "")
	srv, err := newServer(serverOptions{Edition: edition2, Store: store, DAGs: dags, Auth: auth, Logger: logger,
		Now: clock.Now, Clock: clock, Kick: sched.Kick, WithTasksStopped: sched.WithTasksStopped})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.routes())
	t.Cleanup(hs.Close)
	ts := &testServer{Server: hs, srv: srv, store: store, dags: dags, edition: edition2}
	advance := func(by string) {
		t.Helper()
		before := wakes.Load()
		expect(t, ts.do(t, "POST", "/_airlite/clock", `{"advance": "`+by+`"}`), 200)
		if wakes.Load() != before+1 {
			t.Fatalf("moving the clock by %s did not wake the scheduler", by)
		}
		settleTicks(t, sched, clock.Now)
	}

	expect(t, ts.do(t, "POST", "/_airlite/dags", `
dag_id: daily
schedule_interval: '@daily'
start_date: 2024-01-01
catchup: true
tasks:
  - {task_id: flaky, operator: PythonOperator, retries: 1, retry_delay: 5m, simulate: {fail_times: 1}}
`), 200)
	settleTicks(t, sched, clock.Now)
	var runIDs []string
	for d := 1; d <= 10; d++ {
		runIDs = append(runIDs, fmt.Sprintf("scheduled__2024-01-%02dT00:00:00+00:00", d))
	}
	// Each run's only try fails; the retry waits for the clock.
	checkTries := func(when string, want TaskState, wantTry int) {
		t.Helper()
		for _, runID := range runIDs {
			ti, err := store.TaskInstance("daily", runID, "flaky")
			if err != nil || ti.State != want || ti.TryNumber != wantTry {
				t.Fatalf("%s: %s is %+v (%v), want %q try %d", when, runID, ti, err, want, wantTry)
			}
		}
	}
	checkTries("before any move", TaskUpForRetry, 1)
	advance("4m")
	checkTries("4 minutes into a 5-minute delay", TaskUpForRetry, 1)
	// At exactly the delay it still waits, as Airflow's ready_for_retry
	// (Airflow 2.10.3 airflow/models/taskinstance.py:2688, a strict <).
	advance("1m")
	checkTries("at exactly the delay", TaskUpForRetry, 1)
	advance("1s")
	for _, runID := range runIDs {
		res := ts.do(t, "GET", "/_airlite/dags/daily/dag_runs/"+runID+"/wait?timeout=1ms", "")
		expect(t, res, 200, `"state":"success"`, `"flaky":"success"`)
	}
	checkTries("past the delay", TaskSuccess, 2)
	if runs, _ := store.RunsOfDag("daily", ""); len(runs) != 10 {
		t.Errorf("%d runs, want the 10 intervals from Jan 1 to Jan 10", len(runs))
	}
}
