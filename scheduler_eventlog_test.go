package main

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A try leaves Airflow 2.10.3's task runner rows in the event log
// (airflow/models/taskinstance.py): "running" when it starts (:2869),
// "success" or "skipped" when it ends (:361, via _add_log), "failed" from
// handle_failure whether a retry follows or not (:3326); each with the
// task instance's ids, its try, map_index -1, its logical date and its
// task's owner, and no extra. An EmptyOperator is ended by the scheduler
// without running, unlogged.
func TestScheduler_TriesAreLoggedAsAirflowsTaskRunnerLogsThem(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, map[string]string{"d.yaml": `
dag_id: d
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: flaky, operator: PythonOperator, owner: ann, retries: 1, retry_delay: 1m}
  - {task_id: skip, operator: PythonOperator}
  - {task_id: doomed, operator: PythonOperator}
  - {task_id: empty, operator: EmptyOperator}
`}, nil)
		h.store.SetLimits(Limits{EventLogs: 100})
		h.runner.outcomes["flaky"] = []TaskState{TaskFailed, TaskSuccess}
		h.runner.outcomes["skip"] = []TaskState{TaskSkipped}
		h.runner.outcomes["doomed"] = []TaskState{TaskFailed}
		date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		runID := h.trigger("d", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
		h.settle()
		h.clock.Advance(2 * time.Minute)
		h.settle()
		if got := h.ti("d", runID, "flaky"); got.State != TaskSuccess || got.TryNumber != 2 {
			t.Fatalf("flaky: %s try %d, want success 2", got.State, got.TryNumber)
		}
		events, err := h.store.EventLogs()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, e := range events {
			owner := "airflow"
			if e.TaskID == "flaky" {
				owner = "ann"
			}
			if e.DagID != "d" || e.RunID != runID || e.MapIndex == nil || *e.MapIndex != -1 || e.TryNumber == nil ||
				e.ExecutionDate == nil || !e.ExecutionDate.Equal(date) || e.Owner == nil || *e.Owner != owner || e.Extra != nil {
				t.Errorf("event %+v: want d/%s, map_index -1, a try, execution_date %s, owner %s, no extra", *e, runID, date, owner)
				continue
			}
			got[e.TaskID] = append(got[e.TaskID], e.Event+"@"+string(rune('0'+*e.TryNumber)))
		}
		want := map[string]string{
			"flaky":  "running@1 failed@1 running@2 success@2",
			"skip":   "running@1 skipped@1",
			"doomed": "running@1 failed@1",
			"empty":  "",
		}
		for task, w := range want {
			if g := strings.Join(got[task], " "); g != w {
				t.Errorf("%s: events %q, want %q", task, g, w)
			}
		}
		// The second try's rows carry the times it started and ended.
		for _, e := range events {
			if e.TaskID == "flaky" && *e.TryNumber == 2 && !e.When.Equal(schedEpoch.Add(2*time.Minute)) {
				t.Errorf("%s of try 2 at %s, want %s", e.Event, e.When, schedEpoch.Add(2*time.Minute))
			}
		}
	})
}
