package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunsToMark follows Airflow 2.10.3 get_run_ids
// (airflow/api/common/mark_tasks.py:331-356) and the dates
// DAG.iter_dagrun_infos_between yields with align=False
// (airflow/models/dag.py:1222-1300), with the cases of
// tests/api_experimental/common/test_mark_tasks.py:321-389.
func TestRunsToMark(t *testing.T) {
	t.Parallel()
	day := func(d, h int) time.Time { return time.Date(2022, 1, d, h, 0, 0, 0, time.UTC) }
	cases := []struct {
		name         string
		schedule     *string
		dates        []time.Time // the DAG's runs, named by index
		from         int
		future, past bool
		want         []int
		cite         string
	}{
		{"cron, future", strPtr("0 0 * * *"), []time.Time{day(1, 0), day(2, 0)}, 0, true, false, []int{0, 1},
			"tests/api_experimental/common/test_mark_tasks.py:321-333"},
		{"cron, past", strPtr("0 0 * * *"), []time.Time{day(1, 0), day(2, 0)}, 1, false, true, []int{0, 1},
			"tests/api_experimental/common/test_mark_tasks.py:356-369"},
		{"no schedule, future: every run from this one", nil, []time.Time{day(1, 0), day(2, 0), day(3, 5)}, 1, true, false, []int{1, 2},
			"tests/api_experimental/common/test_mark_tasks.py:335-354; mark_tasks.py:345-349"},
		{"no schedule, past: every run up to this one", nil, []time.Time{day(1, 0), day(2, 7), day(3, 0)}, 1, false, true, []int{0, 1},
			"tests/api_experimental/common/test_mark_tasks.py:371-389; mark_tasks.py:345-349"},
		{"neither: this run alone", nil, []time.Time{day(1, 0), day(2, 0), day(3, 0)}, 1, false, false, []int{1},
			"mark_tasks.py:343-344 (start and end are this run's date)"},
		{"@once: this run alone", strPtr("@once"), []time.Time{day(1, 0), day(2, 0), day(3, 0)}, 1, true, true, []int{1},
			"mark_tasks.py:350-351 (not periodic)"},
		{"@continuous: this run alone", strPtr("@continuous"), []time.Time{day(1, 0), day(2, 0)}, 0, true, false, []int{0},
			"mark_tasks.py:350-351; airflow/timetables/simple.py:38,117"},
		{"cron, future: a run off the schedule is left out", strPtr("0 0 * * *"), []time.Time{day(1, 0), day(1, 12), day(2, 0)}, 0, true, false, []int{0, 2},
			"airflow/models/dag.py:1289-1291 (only the schedule's dates after the first)"},
		{"cron, past: the first run counts though off the schedule", strPtr("0 0 * * *"), []time.Time{day(1, 6), day(1, 12), day(2, 0)}, 2, false, true, []int{0, 2},
			"airflow/models/dag.py:1284-1287 (align=False invents a run at the range's start)"},
		{"duration: steps from the range's start", strPtr("1d"), []time.Time{day(1, 6), day(2, 0), day(2, 6), day(3, 6)}, 0, true, false, []int{0, 2, 3},
			"airflow/timetables/interval.py:226-236 (DeltaDataIntervalTimetable does not align)"},
		{"cron, past: this run counts though off the schedule (airlite)", strPtr("0 0 * * *"), []time.Time{day(1, 0), day(2, 0), day(2, 9)}, 2, false, true, []int{0, 1, 2},
			"airlite keeps the named run, docs/behaviour.md §5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dag := &DAG{DagID: "d", Schedule: tc.schedule}
			var runs []*DagRun
			for i, d := range tc.dates {
				runs = append(runs, &DagRun{DagID: "d", RunID: string(rune('a' + i)), ExecutionDate: d})
			}
			got, err := runsToMark(dag, runs, runs[tc.from], tc.future, tc.past)
			if err != nil {
				t.Fatal(err)
			}
			var gotIdx []int
			for _, r := range got {
				gotIdx = append(gotIdx, int(r.RunID[0]-'a'))
			}
			if !slices.Equal(gotIdx, tc.want) {
				t.Errorf("runs %v, want %v (Airflow 2.10.3 %s)", gotIdx, tc.want, tc.cite)
			}
		})
	}
}

// TestServerV1_SetTaskInstancesStateFutureAndPast: include_future and
// include_past reach the task in other runs, passed by the endpoint as
// Airflow 2.10.3 does (airflow/api_connexion/endpoints/task_instance_endpoint.py:572-583,
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:1855-1897)
// and picked by get_run_ids (airflow/api/common/mark_tasks.py:331).
// tutorial's schedule is 1d; its runs are r2 2024-01-01, r3 01-02, r1 01-03.
func TestServerV1_SetTaskInstancesStateFutureAndPast(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       []string
	}{
		{"future, dry run",
			`{"task_id": "sleep", "dag_run_id": "r3", "include_upstream": false, "include_downstream": false, "include_future": true, "include_past": false, "new_state": "failed"}`,
			[]string{"r1/sleep", "r3/sleep"}},
		{"past, committed",
			`{"task_id": "sleep", "dag_run_id": "r3", "include_upstream": false, "include_downstream": false, "include_future": false, "include_past": true, "new_state": "failed", "dry_run": false}`,
			[]string{"r2/sleep", "r3/sleep"}},
		{"past, committed, one already in the state (mark_tasks.py:204-206)",
			`{"task_id": "templated", "dag_run_id": "r3", "include_upstream": false, "include_downstream": false, "include_future": false, "include_past": true, "new_state": "failed", "dry_run": false}`,
			[]string{"r3/templated"}},
		{"both, by date, with upstream, committed",
			`{"task_id": "sleep", "execution_date": "2024-01-02T00:00:00+00:00", "include_upstream": true, "include_downstream": false, "include_future": true, "include_past": true, "new_state": "failed", "dry_run": false}`,
			[]string{"r1/print_date", "r1/sleep", "r2/print_date", "r2/sleep", "r3/print_date", "r3/sleep"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			threeRuns(t, ts)
			ts.setTaskState(t, "tutorial", "r2", "templated", TaskFailed)
			res := ts.v1(t, "POST", "/dags/tutorial/updateTaskInstancesState", tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			got := tiRefsOf(t, res.body)
			if !slices.Equal(got, tc.want) {
				t.Errorf("answered %v, want %v", got, tc.want)
			}
			committed := strings.Contains(tc.body, `"dry_run": false`)
			for _, run := range []string{"r1", "r2", "r3"} {
				want := TaskNone
				if committed && slices.Contains(tc.want, run+"/sleep") {
					want = TaskFailed
				}
				if st := ts.tiState(t, "tutorial", run, "sleep"); st != want {
					t.Errorf("%s/sleep = %q, want %q", run, orNone(st), orNone(want))
				}
			}
		})
	}
}

// TestStore_ForceTaskStatesInRuns: the runs are marked in one write, so a
// run that is gone leaves every run as it was.
func TestStore_ForceTaskStatesInRuns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		runIDs   []string
		wantErr  bool
		wantR1   TaskState
		wantMark []tiKey
	}{
		{"every run", []string{"r2", "r1"}, false, TaskSkipped,
			[]tiKey{{"tutorial", "r2", "sleep", -1}, {"tutorial", "r1", "sleep", -1}}},
		{"a run gone: none", []string{"r1", "gone", "r3"}, true, TaskNone, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			threeRuns(t, ts)
			marked, _, err := ts.store.ForceTaskStatesInRuns("tutorial", tc.runIDs, []string{"sleep"}, nil, TaskSkipped, testNow)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if !slices.Equal(marked, tc.wantMark) {
				t.Errorf("marked %v, want %v", marked, tc.wantMark)
			}
			if got := ts.tiState(t, "tutorial", "r1", "sleep"); got != tc.wantR1 {
				t.Errorf("r1/sleep = %q, want %q", orNone(got), orNone(tc.wantR1))
			}
		})
	}
}

// TestStore_ForceTaskStates_Dates: marking sets the dates as Airflow's
// TaskInstance.set_state (models/taskinstance.py, the same in 1.10.15,
// 2.10.3 and 3.2.1): start_date if it had none, and for a finished state
// end_date if it had none and the duration between them; a second mark
// keeps both dates.
func TestStore_ForceTaskStates_Dates(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	threeRuns(t, ts)
	first, second := testNow, testNow.Add(time.Minute)
	read := func(t *testing.T) *TaskInstance {
		t.Helper()
		tis, err := ts.store.TaskInstancesOfTask("tutorial", "r1", "sleep")
		if err != nil || len(tis) != 1 {
			t.Fatalf("r1/sleep: %v, %v", tis, err)
		}
		return tis[0]
	}
	if ti := read(t); ti.StartDate != nil || ti.EndDate != nil || ti.Duration != nil {
		t.Fatalf("before: start %v, end %v, duration %v", ti.StartDate, ti.EndDate, ti.Duration)
	}
	for _, step := range []struct {
		state TaskState
		now   time.Time
	}{{TaskSuccess, first}, {TaskFailed, second}} {
		if _, _, err := ts.store.ForceTaskStatesInRuns("tutorial", []string{"r1"}, []string{"sleep"}, nil, step.state, step.now); err != nil {
			t.Fatal(err)
		}
		ti := read(t)
		if ti.State != step.state || ti.StartDate == nil || !ti.StartDate.Equal(first) || ti.EndDate == nil || !ti.EndDate.Equal(first) ||
			ti.Duration == nil || *ti.Duration != 0 {
			t.Errorf("after %s at %v: start %v, end %v, duration %v, want %v, %v, 0", step.state, step.now, ti.StartDate, ti.EndDate, ti.Duration, first, first)
		}
	}
}
