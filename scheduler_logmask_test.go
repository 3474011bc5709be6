package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestScheduler_TaskLogMasked: a try's output is kept through the
// release's secrets masker with the secrets the try learnt (2.10.3
// utils/log/secrets_masker.py:199-214, SecretsMasker a filter of the
// task logger; 3.2.1 task-sdk log.py mask_logs, the structlog processor
// of the task process): a sensitive variable's value and a connection's
// password its template read, echoed by the task, are "***" in the log
// route's content; a value under a name that hides nothing stays, and
// so does 3.2.1's secret under five characters. 1.10.15 has no secrets
// masker (no utils/log/secrets_masker.py): its log keeps the values.
func TestScheduler_TaskLogMasked(t *testing.T) {
	t.Parallel()
	const dag = `
dag_id: logged
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: say
    operator: BashOperator
    bash_command: echo "pw={{ var.value.db_password }} %sshort={{ var.value.short_token }} plain={{ var.value.colour }}"
`
	// 1.10.15's template context has no conn.
	const connPassword = "conn={{ conn.warehouse.password }} "
	for _, tc := range []struct {
		name    string
		edition edition
		conn    string
		route   bool // the edition's stable API serves the log
		want    string
	}{
		{"2", edition2, connPassword, true, "pw=*** conn=*** short=*** plain=blue-sky"},
		{"3", edition3, connPassword, true, "pw=*** conn=*** short=abc plain=blue-sky"},
		{"1.10", edition110, "", false, "pw=s3cr3t-pw short=abc plain=blue-sky"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, sched := newSchedServer(t, tc.edition, tickDriven, withDAG(fmt.Sprintf(dag, tc.conn)))
			renderedSecrets(t, ts.store)
			if tc.edition == edition110 {
				res := ts.do(t, http.MethodPost, "/api/experimental/dags/logged/dag_runs",
					`{"run_id": "r1", "execution_date": "2024-02-01T00:00:00+00:00"}`, "Content-Type", "application/json")
				if res.status != http.StatusOK {
					t.Fatalf("trigger: %d %s", res.status, res.body)
				}
			} else {
				postEditionRun(t, ts, "logged", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00"}`)
			}
			settleTicks(t, sched, time.Now)
			if run := finishedRun(t, ts.store, "logged", "r1"); run.State != RunSuccess {
				t.Fatalf("run ended %s", run.State)
			}
			if got := firstTryOutput(t, ts.store, tiKey{dagID: "logged", runID: "r1", taskID: "say", mapIndex: -1}); !strings.Contains(got, tc.want+"\n") {
				t.Errorf("stored output %q, want it to hold %q", got, tc.want)
			}
			if !tc.route {
				return
			}
			res := getEdition(t, ts, "/dags/logged/dagRuns/r1/taskInstances/say/logs/1?full_content=true")
			if !strings.Contains(res.body, tc.want) || strings.Contains(res.body, "s3cr3t-pw") || strings.Contains(res.body, "wh-pass-9") {
				t.Errorf("log route %s, want it to hold %q and no secret", res.body, tc.want)
			}
		})
	}
}

// TestScheduler_TaskLogMaskedPython: a Python callable's Variable.get
// teaches the try's masker as the release's does (2.10.3
// models/variable.py:148-153 mask_secret(var_val, key); 3.2.1 task-sdk
// execution_time/context.py:241 a string only), so what the callable
// prints of a sensitive variable is "***" in its log; a name that hides
// nothing teaches nothing, nor, in 3.2.1, a value under five characters
// or a decoded dict (2.10.3 learns its values under their own keys).
func TestScheduler_TaskLogMaskedPython(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
		want    string
	}{
		{"2", edition2, "testdata/pydags/logmask2", "pw=*** short=*** plain=blue-sky\njson=***\n"},
		{"3", edition3, "testdata/pydags/logmask3", "pw=*** short=abc plain=blue-sky\njson=dict-secret-1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			renderedSecrets(t, ts.store)
			if _, err := ts.store.SetVariable("creds", `{"password": "dict-secret-1"}`, nil); err != nil {
				t.Fatal(err)
			}
			triggeringScheduler(t, ts)
			postEditionRun(t, ts, "logged_py", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00"}`)
			awaitTriesEnded(t, ts.store, "logged_py", "r1", "tell")
			if got := firstTryOutput(t, ts.store, tiKey{dagID: "logged_py", runID: "r1", taskID: "tell", mapIndex: -1}); !strings.Contains(got, "before=blue-sky\n"+tc.want) {
				t.Errorf("stored output %q, want it to hold %q", got, tc.want)
			}
		})
	}
}

// firstTryOutput is the output the store kept of a task instance's one
// try.
func firstTryOutput(t *testing.T, store *Store, key tiKey) string {
	t.Helper()
	log, err := store.TaskLogOf(key)
	if err != nil || len(log.Tries) != 1 {
		t.Fatalf("task log of %s: %+v, %v", key, log, err)
	}
	return log.Tries[0].Output
}
