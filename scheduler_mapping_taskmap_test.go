package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestMapping_PatchedUpstreamKeepsPushedLength: a mapped task expands by
// the length Airflow 3.2.1's TaskMap row recorded when its upstream
// pushed (c57fba0e serialization/definitions/xcom_arg.py:176-183), which
// a PATCH of the XCom (routes/public/xcom.py:349-351, json.dumps' text)
// leaves; each instance then pulls the entry as it is now, the text, and
// the task SDK indexes it by its own len() (task-sdk definitions/
// _internal/expandinput.py:187-203): characters of the text.
func TestMapping_PatchedUpstreamKeepsPushedLength(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ts := servePy3Folder(t, "testdata/pydags/mapping_patched")
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 8, Unixname: testUnixname, Hostname: "test"})
	t.Cleanup(sched.stop)
	ts.v2(t, http.MethodPost, "/dags/map_patched/dagRuns", `{"dag_run_id": "r", "logical_date": null}`, http.StatusOK)
	pushed := func() bool {
		for _, id := range []string{"letters", "numbers"} {
			if ti, err := ts.store.TaskInstance("map_patched", "r", id); err != nil || ti.State != TaskSuccess {
				return false
			}
		}
		return true
	}
	settleUntil(t, sched, time.Now, pushed)
	if !pushed() {
		t.Fatal("the upstream tasks did not succeed")
	}
	const entries = "/api/v2/dags/map_patched/dagRuns/r/taskInstances/%s/xcomEntries/return_value"
	ts.v2(t, http.MethodPatch, "/dags/map_patched/dagRuns/r/taskInstances/letters/xcomEntries/return_value", `{"value": ["p", "q"]}`, http.StatusOK)
	ts.v2(t, http.MethodPatch, "/dags/map_patched/dagRuns/r/taskInstances/numbers/xcomEntries/return_value", `{"value": 7}`, http.StatusOK)
	settleUntil(t, sched, time.Now, func() bool {
		run, err := ts.store.RunByRunID("map_patched", "r")
		return err == nil && run.State.Finished()
	})
	finishedRun(t, ts.store, "map_patched", "r")
	byID := rowsByTask(t, ts.store, "map_patched", "r")
	for task, want := range map[string][]string{
		"show_letters": {`"["`, `"\""`, `"p"`}, // '["p", "q"]'[0:3]
		"show_numbers": {`"7"`, `"7"`},         // '7'[i % 1]
	} {
		rows := byID[task]
		if len(rows) != len(want) {
			t.Errorf("%s: %d task instances, want %d (the pushed length)", task, len(rows), len(want))
			continue
		}
		for i, w := range want {
			if rows[i].State != TaskSuccess {
				t.Errorf("%s[%d] = %s, want success", task, i, rows[i].State)
			}
			if got := mappedXCom(t, ts.store, "map_patched", "r", task, i); got != w {
				t.Errorf("%s[%d] pushed %s, want %s", task, i, got, w)
			}
		}
	}
}
