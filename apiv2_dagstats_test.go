package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAPIv2_DagStats follows test_dag_stats.py: tutorial with a running
// and a failed run, example_bash_operator with a queued one,
// example_python_operator with a successful one; the other DAGs have no
// run and are not listed.
func TestAPIv2_DagStats(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Kick = func() {} }))
	day := time.Date(2020, 6, 11, 18, 0, 0, 0, time.UTC)
	for i, r := range []struct {
		dagID, runID string
		state        RunState
	}{
		{"tutorial", "test_dag_run_id_1", RunRunning}, {"tutorial", "test_dag_run_id_2", RunFailed},
		{"example_bash_operator", "test_dag_2_run_id_1", RunQueued}, {"example_python_operator", "test_dag_3_run_id_1", RunSuccess},
	} {
		date := day.AddDate(0, 0, i)
		if _, err := ts.srv.ops.trigger(triggerRequest{dagID: r.dagID, runID: r.runID, date: &date}); err != nil {
			t.Fatal(err)
		}
		ts.setRunState(t, r.dagID, r.runID, r.state)
	}
	stats := func(dagID string, queued, running, success, failed int) string {
		return fmt.Sprintf(`{"dag_id":%q,"dag_display_name":%q,"stats":[{"state":"queued","count":%d},{"state":"running","count":%d},`+
			`{"state":"success","count":%d},{"state":"failed","count":%d}]}`, dagID, dagID, queued, running, success, failed)
	}
	bash, python, tutorial := stats("example_bash_operator", 1, 0, 0, 0), stats("example_python_operator", 0, 0, 1, 0), stats("tutorial", 0, 1, 0, 1)
	list := func(dags ...string) string {
		return fmt.Sprintf(`{"dags":[%s],"total_entries":%d}`, strings.Join(dags, ","), len(dags))
	}
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "two dags", path: "/dagStats?dag_ids=tutorial&dag_ids=example_bash_operator", wantStatus: 200, wantBody: list(bash, tutorial)},
		{name: "all dags", path: "/dagStats", wantStatus: 200, wantBody: list(bash, python, tutorial)},
		{name: "three in any order", path: "/dagStats?dag_ids=tutorial&dag_ids=example_python_operator&dag_ids=example_bash_operator",
			wantStatus: 200, wantBody: list(bash, python, tutorial)},
		{name: "one", path: "/dagStats?dag_ids=tutorial", wantStatus: 200, wantBody: list(tutorial)},
		{name: "a dag without runs", path: "/dagStats?dag_ids=example_trigger_target_dag", wantStatus: 200, wantBody: list()},
		{name: "unknown", path: "/dagStats?dag_ids=nope", wantStatus: 200, wantBody: list()},
		{name: "commas are one id", path: "/dagStats?dag_ids=tutorial,example_bash_operator", wantStatus: 200, wantBody: list()},
	})
}
