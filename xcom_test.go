package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	memdb "github.com/hashicorp/go-memdb"
)

// Airflow 2.10.3 airflow/hooks/subprocess.py:104-113 reads the output
// line by line and returns the last line read, rstripped.
func TestLastOutputLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ output, want string }{
		{"", ""},
		{"one\n", "one"},
		{"one\ntwo\n", "two"},
		{"one\ntwo", "two"},
		{"one\ntwo  \t\r\n", "two"},
		{"one\n\n", ""}, // the last line read is the empty one
		{"  lead\n", "  lead"},
	} {
		if got := lastOutputLine(tc.output); got != tc.want {
			t.Errorf("lastOutputLine(%q) = %q, want %q", tc.output, got, tc.want)
		}
	}
}

// xcomDAG has a task of each kind that pushes, or not.
const xcomDAG = `
dag_id: x
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: bash, operator: BashOperator, bash_command: "echo hi"}
  - {task_id: bash_off, operator: BashOperator, bash_command: "echo hi", do_xcom_push: false}
  - {task_id: bash_on, operator: BashOperator, bash_command: "echo hi", do_xcom_push: true}
  - {task_id: bash_fails, operator: BashOperator, bash_command: "exit 1"}
  - {task_id: bash_skips, operator: BashOperator, bash_command: "exit 99"}
  - task_id: sim
    operator: PythonOperator
    simulate: {xcom: {b: {nested: [1, "é"]}, a: 7}}
  - task_id: sim_fails
    operator: PythonOperator
    simulate: {outcome: failed, xcom: {a: 1}}
  - {task_id: sim_skips, operator: PythonOperator, simulate: {outcome: skipped, xcom: {a: 1}}}
`

// xcomRunner runs simulated tasks as they are, and stands in for bash:
// the tasks named *_fails fail, *_skips skip, the rest succeed, and each
// returns the last line "hi" (returned whatever the outcome, as a bash
// try's output is read whatever its exit code).
func xcomRunner(ctx context.Context, job taskJob) taskOutcome {
	if job.task.Simulate != nil {
		return simulate(ctx, job)
	}
	out := taskOutcome{state: TaskSuccess, output: "hi\n", returnValue: json.RawMessage(`"hi"`)}
	switch {
	case strings.HasSuffix(job.task.TaskID, "_fails"):
		out.state = TaskFailed
	case strings.HasSuffix(job.task.TaskID, "_skips"):
		out.state = TaskSkipped
	}
	return out
}

// What a finished try leaves in XCom, per edition: Airflow 2's
// BashOperator pushes its last line as return_value unless do_xcom_push
// is off (Airflow 2.10.3 airflow/models/taskinstance.py:770-789,
// airflow/operators/bash.py:46-47); 1.10's only with xcom_push=True,
// default False (Airflow 1.10.15 airflow/operators/bash_operator.py:96,
// 167-168), spelled do_xcom_push: true here. A try that fails or skips
// returns nothing and pushes nothing; simulated tasks push what they
// declare when they succeed.
func TestScheduler_XComPushedWithTheOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		edition edition
		want    map[string]string // task_id/key -> value
	}{
		{edition2, map[string]string{
			"bash/return_value": `"hi"`, "bash_on/return_value": `"hi"`,
			"sim/a": `7`, "sim/b": `{"nested":[1,"é"]}`,
		}},
		{edition110, map[string]string{
			"bash_on/return_value": `"hi"`,
			"sim/a":                `7`, "sim/b": `{"nested":[1,"é"]}`,
		}},
	}
	for _, tc := range tests {
		t.Run(string(tc.edition), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"x.yaml": xcomDAG}, func(o *schedulerOptions) {
					o.Edition, o.RunTask = tc.edition, xcomRunner
				})
				runID := h.trigger("x", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				entries, err := h.store.XComEntries(XComFilter{DagID: "x", RunID: runID})
				if err != nil {
					t.Fatal(err)
				}
				run, _ := h.store.RunByRunID("x", runID)
				got := map[string]string{}
				for _, e := range entries {
					got[e.TaskID+"/"+e.Key] = string(e.Value)
					ti := h.ti("x", runID, e.TaskID)
					if e.RunRowID != run.ID || e.MapIndex != -1 || ti.EndDate == nil || !e.Timestamp.Equal(*ti.EndDate) {
						t.Errorf("entry %+v: want the run's id, map_index -1 and the try's end date %v", e, ti.EndDate)
					}
				}
				if len(got) != len(tc.want) {
					t.Errorf("xcom entries %v, want %v", got, tc.want)
				}
				for k, v := range tc.want {
					if got[k] != v {
						t.Errorf("xcom %s = %s, want %s", k, got[k], v)
					}
				}
			})
		})
	}
}

// A try that starts clears what the task instance's earlier tries pushed
// (Airflow 2.10.3 airflow/models/taskinstance.py:3099-3101, clear_xcom_data
// at 2373-2395), so a task run again leaves only its new values.
func TestScheduler_XComClearedWhenTheTryStarts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		pushes := map[int][]xcomPush{
			1: {{Key: "old", Value: json.RawMessage(`1`)}, {Key: "kept", Value: json.RawMessage(`1`)}},
			2: {{Key: "kept", Value: json.RawMessage(`2`)}},
		}
		h := newSchedHarness(t, map[string]string{"x.yaml": `
dag_id: x
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: t, operator: PythonOperator}]
`}, nil)
		release := make(chan struct{})
		h.sched.opts.RunTask = func(ctx context.Context, job taskJob) taskOutcome {
			if job.try == 2 {
				<-release
			}
			return taskOutcome{state: TaskSuccess, pushed: pushes[job.try]}
		}
		runID := h.trigger("x", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
		h.settle()
		if n := len(h.xcomKeys("x", runID, "t")); n != 2 {
			t.Fatalf("try 1 left %d entries, want 2", n)
		}
		// Run the task again, as a clear does: back to scheduled in a
		// running run.
		ti := *h.ti("x", runID, "t")
		ti.State, ti.EndDate = TaskScheduled, nil
		run, _ := h.store.RunByRunID("x", runID)
		reopened := *run
		reopened.State, reopened.EndDate = RunRunning, nil
		if err := h.store.UpsertDagRun(&reopened); err != nil {
			t.Fatal(err)
		}
		if err := h.store.UpsertTaskInstance(&ti); err != nil {
			t.Fatal(err)
		}
		h.step()
		if keys := h.xcomKeys("x", runID, "t"); len(keys) != 0 {
			t.Errorf("while try 2 runs, entries %v remain, want none", keys)
		}
		close(release)
		synctest.Wait()
		h.settle()
		if keys := h.xcomKeys("x", runID, "t"); strings.Join(keys, " ") != "kept=2" {
			t.Errorf("after try 2, entries %v, want [kept=2]", keys)
		}
	})
}

// xcomKeys lists a task instance's XCom entries as key=value.
func (h *schedHarness) xcomKeys(dagID, runID, taskID string) []string {
	h.t.Helper()
	entries, err := h.store.XComEntries(XComFilter{DagID: dagID, RunID: runID, TaskID: taskID})
	if err != nil {
		h.t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key+"="+string(e.Value))
	}
	return keys
}

// A push the store refuses at a limit fails the try, saying why in its
// log; nothing it pushed is kept.
func TestScheduler_XComLimitsFailTheTry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
		flag   string
	}{
		{"count", Limits{XComs: 1}, "--max-xcoms"},
		{"size", Limits{XComBytes: 3}, "--max-xcom-bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"x.yaml": `
dag_id: x
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: t, operator: PythonOperator, simulate: {xcom: {a: 1, b: "long"}}}]
`}, func(o *schedulerOptions) { o.RunTask = xcomRunner })
				h.store.SetLimits(tc.limits)
				runID := h.trigger("x", `{"execution_date": "2024-01-02T00:00:00+00:00"}`)
				h.settle()
				if got := h.ti("x", runID, "t").State; got != TaskFailed {
					t.Errorf("task state %q, want failed", got)
				}
				if keys := h.xcomKeys("x", runID, "t"); len(keys) != 0 {
					t.Errorf("entries %v kept, want none", keys)
				}
				logs, err := h.store.TaskLogsOfRun("x", runID)
				if err != nil {
					t.Fatal(err)
				}
				if tries := logs["t"].Tries; len(tries) != 1 || !strings.Contains(tries[0].Output, tc.flag) {
					t.Errorf("task log %+v does not name %s", tries, tc.flag)
				}
			})
		})
	}
}

// XCom entries go with their run: dropped at --max-runs-per-dag, with
// the runs of a reset, with a deleted run and with a deleted DAG; the
// count the limit reads follows.
func TestStore_XComsGoWithTheirRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		remove func(t *testing.T, h *schedHarness, runIDs []string)
		left   int // entries left of the three runs' three
	}{
		{"reset of one DAG's runs", func(t *testing.T, h *schedHarness, _ []string) {
			if err := h.store.DeleteRuns("x"); err != nil {
				t.Fatal(err)
			}
		}, 0},
		{"reset of every run", func(t *testing.T, h *schedHarness, _ []string) {
			if err := h.store.DeleteRuns(""); err != nil {
				t.Fatal(err)
			}
		}, 0},
		{"reset all", func(t *testing.T, h *schedHarness, _ []string) {
			if err := h.store.Reset(h.dags); err != nil {
				t.Fatal(err)
			}
		}, 0},
		{"delete the DAG", func(t *testing.T, h *schedHarness, _ []string) {
			if _, err := h.store.DeleteDag("x", nil); err != nil {
				t.Fatal(err)
			}
		}, 0},
		// Airflow's xcom rows go with their task instance's and its run's
		// (ON DELETE CASCADE): delete_dag_run takes them.
		{"delete one run", func(t *testing.T, h *schedHarness, runIDs []string) {
			if err := h.store.DeleteRun("x", runIDs[1]); err != nil {
				t.Fatal(err)
			}
		}, 2},
		{"oldest run dropped at the run limit", func(t *testing.T, h *schedHarness, _ []string) {
			h.store.SetRunLimit(RunLimit{Max: 3, DropOldestFinished: true})
			h.trigger("x", `{"execution_date": "2024-01-09T00:00:00+00:00"}`)
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newSchedHarness(t, map[string]string{"x.yaml": `
dag_id: x
schedule_interval: null
start_date: 2024-01-01
tasks: [{task_id: t, operator: PythonOperator, simulate: {xcom: {a: 1}}}]
`}, func(o *schedulerOptions) { o.RunTask = xcomRunner })
				var runIDs []string
				for _, day := range []string{"02", "03", "04"} {
					runIDs = append(runIDs, h.trigger("x", `{"execution_date": "2024-01-`+day+`T00:00:00+00:00"}`))
				}
				h.settle()
				if all, err := h.store.XComEntries(XComFilter{}); err != nil || len(all) != 3 {
					t.Fatalf("the runs pushed %d entries (%v), want 3", len(all), err)
				}
				tc.remove(t, h, runIDs)
				entries, err := h.store.XComEntries(XComFilter{})
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != tc.left {
					t.Errorf("%d entries left, want %d", len(entries), tc.left)
				}
				// The kept count is the table's: at a limit of one more
				// than what is left, one more push fits and a second not.
				h.store.SetLimits(Limits{XComs: tc.left + 1})
				var refused error
				for _, key := range []string{"fits", "over"} {
					err := h.store.update(func(txn *memdb.Txn) error {
						return h.store.putXComTxn(txn, &XComEntry{DagID: "y", RunID: "r", TaskID: "t", MapIndex: -1, Key: key, Value: json.RawMessage(`1`)})
					})
					if key == "fits" && err != nil {
						t.Fatalf("push at %d of %d: %v", tc.left, tc.left+1, err)
					}
					refused = err
				}
				var limit *limitError
				if !errors.As(refused, &limit) || limit.limit != limitXComs {
					t.Errorf("push past the limit: %v, want a refusal", refused)
				}
			})
		})
	}
}

// A real bash try returns its last line of output, stdout and stderr
// together (Airflow 2.10.3 airflow/hooks/subprocess.py:90-94 merges
// them), whatever its exit code; only a success pushes it.
func TestBash_ReturnsTheLastLine(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: d
start_date: 2024-01-01
tasks:
  - {task_id: out, operator: BashOperator, bash_command: "echo first; echo 'last  '"}
  - {task_id: err, operator: BashOperator, bash_command: "echo first; echo to-stderr >&2"}
  - {task_id: silent, operator: BashOperator, bash_command: "true"}
  - {task_id: accent, operator: BashOperator, bash_command: "echo 'café <&>'"}
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := bashRunner(t)
	for _, tc := range []struct{ taskID, want string }{
		{"out", `"last"`}, {"err", `"to-stderr"`}, {"silent", `""`},
		{"accent", `"caf\u00e9 <&>"`}, // as json.dumps writes it (Airflow 2.10.3 airflow/models/xcom.py:688)
	} {
		run := DagRun{DagID: "d", RunID: "r"}
		out := runner.runBash(context.Background(), taskJob{key: tiKey{"d", "r", tc.taskID, -1}, try: 1, dag: dag, task: dag.Task(tc.taskID), run: run})
		if out.state != TaskSuccess || string(out.returnValue) != tc.want {
			t.Errorf("%s: %s, return value %s; want success, %s", tc.taskID, out.state, out.returnValue, tc.want)
		}
	}
}

// simulate.xcom takes JSON values under non-empty keys.
func TestParseDAG_SimulateXCom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ xcom, want, wantErr string }{
		{`{a: [1, {b: null}], c: "s"}`, `a=[1,{"b":null}] c="s"`, ""},
		{`{"": 1}`, "", `simulate xcom ""`},
	} {
		dag, err := parseDAG([]byte(`
dag_id: d
start_date: 2024-01-01
tasks: [{task_id: t, operator: PythonOperator, simulate: {xcom: ` + tc.xcom + `}}]
`))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("xcom %s: error %v, want one saying %s", tc.xcom, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range simulate(context.Background(), taskJob{try: 1, task: dag.Task("t")}).pushed {
			got = append(got, p.Key+"="+string(p.Value))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("xcom %s pushes %v, want %s", tc.xcom, got, tc.want)
		}
	}
}
