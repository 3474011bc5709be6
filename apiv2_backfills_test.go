package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Backfill test DAGs: a daily schedule, one whose task depends on the
// past, one without a schedule (test_backfills.py's dag_maker DAGs).
const (
	bfDailyDAG = `
dag_id: bf_daily
schedule_interval: "0 0 * * *"
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: mytask, operator: EmptyOperator}
`
	bfPastDAG = `
dag_id: bf_past
schedule_interval: "0 * * * *"
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: mytask, operator: EmptyOperator, depends_on_past: true}
`
	bfNoScheduleDAG = `
dag_id: bf_none
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: mytask, operator: EmptyOperator}
`
	// Two DAGs whose allowed_run_types leave out backfill.
	bfNoBackfillDAG = `
dag_id: bf_noback
schedule_interval: "0 0 * * *"
start_date: 2024-01-01T00:00:00+00:00
allowed_run_types: [scheduled, manual]
tasks:
  - {task_id: mytask, operator: EmptyOperator}
`
	bfManualOnlyDAG = `
dag_id: bf_manual
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
allowed_run_types: [manual]
tasks:
  - {task_id: mytask, operator: EmptyOperator}
`
)

// bfBody is a BackfillPostBody from 2024-01-01 to the given day of
// January 2024, with test_backfills.py's max_active_runs and conf; more
// is appended to the object.
func bfBody(dagID string, toDay int, more string) string {
	return fmt.Sprintf(`{"dag_id": %q, "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-%02dT00:00:00Z", "max_active_runs": 5, `+
		`"run_backwards": false, "dag_run_conf": {"param1": "val1", "param2": true}%s}`, dagID, toDay, more)
}

func newBackfillServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServer(t, edition3, withExamplesPaused(), withDAG(bfDailyDAG), withDAG(bfPastDAG), withDAG(bfNoScheduleDAG),
		withOwnDAG(bfNoBackfillDAG), withOwnDAG(bfManualOnlyDAG))
}

// TestAPIv2_CreateBackfill is test_create_backfill: the answer for each
// reprocess_behavior (absent: none), exact, in BackfillResponse's order;
// its runs are queued backfill runs named after their dates.
func TestAPIv2_CreateBackfill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ given, want string }{
		{"", "none"}, {"none", "none"}, {"failed", "failed"}, {"completed", "completed"},
	} {
		t.Run(tc.want+tc.given, func(t *testing.T) {
			t.Parallel()
			ts := newBackfillServer(t)
			more := ""
			if tc.given != "" {
				more = fmt.Sprintf(`, "reprocess_behavior": %q`, tc.given)
			}
			res := ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody("bf_daily", 3, more))
			want := `{"id":1,"dag_id":"bf_daily","from_date":"2024-01-01T00:00:00Z","to_date":"2024-01-03T00:00:00Z",` +
				`"dag_run_conf":{"param1":"val1","param2":true},"is_paused":false,"reprocess_behavior":"` + tc.want + `","max_active_runs":5,` +
				`"created_at":"2024-05-01T10:00:00.123456Z","completed_at":null,"updated_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"bf_daily"}`
			if res.status != 200 || res.body != want {
				t.Fatalf("create = %d %s\nwant %s", res.status, res.body, want)
			}
			runs := ts.do(t, http.MethodGet, "/api/v2/dags/bf_daily/dagRuns?order_by=logical_date", "")
			var c struct {
				DagRuns []map[string]any `json:"dag_runs"`
			}
			if err := json.Unmarshal([]byte(runs.body), &c); err != nil || len(c.DagRuns) != 3 {
				t.Fatalf("runs = %d %s (%v)", runs.status, runs.body, err)
			}
			for i, r := range c.DagRuns {
				day := fmt.Sprintf("2024-01-%02dT00:00:00", i+1)
				conf, _ := json.Marshal(r["conf"])
				if r["dag_run_id"] != "backfill__"+day+"+00:00" || r["logical_date"] != day+"Z" || r["run_type"] != "backfill" ||
					r["triggered_by"] != "backfill" || r["state"] != "queued" || string(conf) != `{"param1":"val1","param2":true}` {
					t.Errorf("run %d = %v", i, r)
				}
			}
		})
	}
}

// TestAPIv2_CreateBackfill_Refused: the errors of create_backfill and
// create_backfill_dry_run, as test_backfills.py has them (3.2.1's texts).
func TestAPIv2_CreateBackfill_Refused(t *testing.T) {
	t.Parallel()
	reverse := `{"detail":"Backfill cannot be run in reverse when the Dag has tasks where depends_on_past=True."}`
	reprocess := `{"detail":"Dag has tasks for which depends_on_past=True. You must set reprocess behavior to reprocess completed or reprocess failed."}`
	future := `{"dag_id": "bf_daily", "from_date": "2024-05-02T10:00:00Z", "to_date": "2024-05-02T10:00:00Z"}`
	// The dry run's answers where they differ: _do_dry_run does not look
	// at allowed_run_types.
	dryRunAnswers := map[string]struct {
		status int
		want   string
	}{
		"backfill not allowed": {200, `{"backfills":[{"logical_date":"2024-01-01T00:00:00Z","partition_key":null,"partition_date":null},` +
			`{"logical_date":"2024-01-02T00:00:00Z","partition_key":null,"partition_date":null}],"total_entries":2}`},
		"backfill not allowed, no schedule": {422, `{"detail":"bf_manual has no schedule"}`},
	}
	for _, route := range []string{"/api/v2/backfills", "/api/v2/backfills/dry_run"} {
		for _, tc := range []struct {
			name, body string
			status     int
			want       string
		}{
			{"dag not exist", bfBody("DAG_NOT_EXIST", 31, `, "reprocess_behavior": "none"`), 404, `{"detail":"Could not find dag DAG_NOT_EXIST"}`},
			{"no schedule", bfBody("bf_none", 31, ""), 422, `{"detail":"bf_none has no schedule"}`},
			{"depends on past, none", bfBody("bf_past", 2, `, "reprocess_behavior": "none"`), 422, reprocess},
			{"depends on past, completed", bfBody("bf_past", 2, `, "reprocess_behavior": "completed"`), 200, ""},
			{"depends on past, completed, backwards", strings.Replace(bfBody("bf_past", 2, `, "reprocess_behavior": "completed"`),
				`"run_backwards": false`, `"run_backwards": true`, 1), 422, reverse},
			{"future dates", future, 422, `{"detail":"Backfill cannot be executed for future dates."}`},
			// _create_backfill's DagRunTypeNotAllowed, a 400 (c57fba0e
			// models/backfill.py:569-573, routes/public/backfills.py:257-261),
			// before the schedule check; _do_dry_run does not look.
			{"backfill not allowed", bfBody("bf_noback", 2, ""), 400, `{"detail":"Dag with dag_id: 'bf_noback' does not allow backfill runs"}`},
			{"backfill not allowed, no schedule", bfBody("bf_manual", 2, ""), 400, `{"detail":"Dag with dag_id: 'bf_manual' does not allow backfill runs"}`},
			{"bad reprocess", bfBody("bf_daily", 2, `, "reprocess_behavior": "all"`), 422,
				`{"detail":[{"type":"enum","loc":["body","reprocess_behavior"],"msg":"Input should be 'failed', 'completed' or 'none'","input":"all","ctx":{"expected":"'failed', 'completed' or 'none'"}}]}`},
			{"extra field", bfBody("bf_daily", 2, `, "task_id_pattern": "x"`), 422,
				`{"detail":[{"type":"extra_forbidden","loc":["body","task_id_pattern"],"msg":"Extra inputs are not permitted","input":"x"}]}`},
			{"missing dates", `{"dag_id": "bf_daily"}`, 422,
				`{"detail":[{"type":"missing","loc":["body","from_date"],"msg":"Field required","input":{"dag_id":"bf_daily"}},` +
					`{"type":"missing","loc":["body","to_date"],"msg":"Field required","input":{"dag_id":"bf_daily"}}]}`},
		} {
			t.Run(route+" "+tc.name, func(t *testing.T) {
				t.Parallel()
				ts := newBackfillServer(t)
				res := ts.do(t, http.MethodPost, route, tc.body)
				status, want := tc.status, tc.want
				if d, ok := dryRunAnswers[tc.name]; ok && strings.HasSuffix(route, "dry_run") {
					status, want = d.status, d.want
				}
				if res.status != status || (want != "" && res.body != want) {
					t.Errorf("= %d %s\nwant %d %s", res.status, res.body, status, want)
				}
			})
		}
	}
}

// TestAPIv2_CreateBackfill_Conflict: one running backfill per DAG (409);
// once cancelled (completed), another may start.
func TestAPIv2_CreateBackfill_Conflict(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody("bf_daily", 2, "")); res.status != 200 {
		t.Fatalf("first = %d %s", res.status, res.body)
	}
	res := ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody("bf_daily", 4, ""))
	if want := `{"detail":"There is already a running backfill for dag bf_daily"}`; res.status != 409 || res.body != want {
		t.Errorf("second = %d %s, want 409 %s", res.status, res.body, want)
	}
	if res := ts.do(t, http.MethodPut, "/api/v2/backfills/1/cancel", ""); res.status != 200 {
		t.Fatalf("cancel = %d %s", res.status, res.body)
	}
	// The cancelled backfill failed its queued runs: with reprocess
	// failed, the new one takes them over and makes the rest.
	res = ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody("bf_daily", 4, `, "reprocess_behavior": "failed"`))
	if res.status != 200 || v2JSON(t, res)["id"] != 2.0 {
		t.Fatalf("after cancel = %d %s", res.status, res.body)
	}
	links, err := ts.store.BackfillRuns(2)
	if err != nil || len(links) != 4 {
		t.Fatalf("links = %v %v", links, err)
	}
	for i, l := range links {
		if want := fmt.Sprintf("backfill__2024-01-%02dT00:00:00+00:00", i+1); l.RunID != want || l.ExceptionReason != "" || l.SortOrdinal != i+1 {
			t.Errorf("link %d = %+v, want run %s", i, l, want)
		}
		run, _ := ts.store.RunByRunID("bf_daily", l.RunID)
		if run == nil || run.State != RunQueued {
			t.Errorf("run %s = %+v, want queued", l.RunID, run)
		}
	}
}

// bfExistingRuns makes test_backfills.py's existing runs of bf_daily: a
// successful one on 2024-01-02 and a failed one on 2024-01-03.
func bfExistingRuns(t *testing.T, ts *testServer) {
	t.Helper()
	for _, r := range []struct{ day, state string }{{"02", "success"}, {"03", "failed"}} {
		date := "2024-01-" + r.day + "T00:00:00+00:00"
		runID := v2Trigger(t, ts, "bf_daily", `{"dag_run_id": "manual__`+date+`", "logical_date": "`+date+`"}`)
		res := ts.do(t, http.MethodPatch, "/api/v2/dags/bf_daily/dagRuns/"+runID, `{"state": "`+r.state+`"}`)
		if res.status != 200 {
			t.Fatalf("mark %s %s = %d %s", runID, r.state, res.status, res.body)
		}
	}
}

// TestAPIv2_Backfill_ExistingRuns is test_create_backfill_dry_run and
// test_create_backfill_with_existing_runs: which dates a backfill makes
// or reprocesses a run at, by reprocess_behavior; the runs it does not
// touch are linked with "already exists".
func TestAPIv2_Backfill_ExistingRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reprocess string
		days      []int
	}{
		{"none", []int{1, 4, 5}},
		{"failed", []int{1, 3, 4, 5}},
		{"completed", []int{1, 2, 3, 4, 5}},
	} {
		t.Run(tc.reprocess, func(t *testing.T) {
			t.Parallel()
			ts := newBackfillServer(t)
			bfExistingRuns(t, ts)
			body := bfBody("bf_daily", 5, `, "reprocess_behavior": "`+tc.reprocess+`"`)
			var want []string
			for _, d := range tc.days {
				want = append(want, fmt.Sprintf(`{"logical_date":"2024-01-%02dT00:00:00Z","partition_key":null,"partition_date":null}`, d))
			}
			wantBody := `{"backfills":[` + strings.Join(want, ",") + `],"total_entries":` + fmt.Sprint(len(want)) + `}`
			if res := ts.do(t, http.MethodPost, "/api/v2/backfills/dry_run", body); res.status != 200 || res.body != wantBody {
				t.Errorf("dry run = %d %s\nwant %s", res.status, res.body, wantBody)
			}
			if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body); res.status != 200 {
				t.Fatalf("create = %d %s", res.status, res.body)
			}
			links, err := ts.store.BackfillRuns(1)
			if err != nil || len(links) != 5 {
				t.Fatalf("links = %v %v", links, err)
			}
			for i, l := range links {
				day := i + 1
				taken := strings.Contains(fmt.Sprint(tc.days), fmt.Sprint(day))
				if !taken {
					if l.RunID != "" || l.ExceptionReason != "already exists" {
						t.Errorf("day %d: link %+v, want already exists", day, l)
					}
					continue
				}
				run, err := ts.store.RunByRunID("bf_daily", l.RunID)
				if err != nil || l.ExceptionReason != "" || run.RunType != "backfill" || run.TriggeredBy != "backfill" || run.State != RunQueued {
					t.Errorf("day %d: link %+v, run %+v %v", day, l, run, err)
				}
			}
		})
	}
}

// TestAPIv2_Backfill_PastAndFuture is test_create_backfill_past_future_dates:
// dates whose interval has not ended get no run.
func TestAPIv2_Backfill_PastAndFuture(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	body := `{"dag_id": "bf_daily", "from_date": "2024-04-29T10:00:00Z", "to_date": "2024-05-02T10:00:00Z", "max_active_runs": 1}`
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body); res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	links, err := ts.store.BackfillRuns(1)
	var got []string
	for _, l := range links {
		got = append(got, l.RunID)
	}
	if want := "[backfill__2024-04-30T00:00:00+00:00 backfill__2024-05-01T00:00:00+00:00]"; err != nil || fmt.Sprint(got) != want {
		t.Errorf("runs %v %v, want %s", got, err, want)
	}
}

// TestAPIv2_Backfills_ListGetPauseCancel: list (dag_id required, order_by
// id, pagination), get, pause, unpause and cancel, with their errors.
func TestAPIv2_Backfills_ListGetPauseCancel(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	for _, b := range []string{bfBody("bf_daily", 2, ""), bfBody("bf_past", 1, `, "reprocess_behavior": "failed"`)} {
		if res := ts.do(t, http.MethodPost, "/api/v2/backfills", b); res.status != 200 {
			t.Fatalf("create = %d %s", res.status, res.body)
		}
	}
	one := func(id int, dag string, paused bool, completed string, maxRuns int, reprocess, to string) string {
		return fmt.Sprintf(`{"id":%d,"dag_id":%q,"from_date":"2024-01-01T00:00:00Z","to_date":"%sT00:00:00Z",`+
			`"dag_run_conf":{"param1":"val1","param2":true},"is_paused":%t,"reprocess_behavior":%q,"max_active_runs":%d,`+
			`"created_at":"2024-05-01T10:00:00.123456Z","completed_at":%s,"updated_at":"2024-05-01T10:00:00.123456Z","dag_display_name":%q}`,
			id, dag, to, paused, reprocess, maxRuns, completed, dag)
	}
	daily := one(1, "bf_daily", false, "null", 5, "none", "2024-01-02")
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/api/v2/backfills?dag_id=bf_daily", 200, `{"backfills":[` + daily + `],"total_entries":1}`},
		{"GET", "/api/v2/backfills?dag_id=nope", 200, `{"backfills":[],"total_entries":0}`},
		{"GET", "/api/v2/backfills?dag_id=bf_daily&offset=1", 200, `{"backfills":[],"total_entries":1}`},
		{"GET", "/api/v2/backfills?dag_id=bf_daily&limit=0", 200, `{"backfills":[],"total_entries":1}`},
		{"GET", "/api/v2/backfills?dag_id=bf_daily&order_by=-id", 200, `{"backfills":[` + daily + `],"total_entries":1}`},
		{"GET", "/api/v2/backfills?dag_id=bf_daily&order_by=dag_id", 400,
			"{\"detail\":\"Ordering with 'dag_id' is disallowed or the attribute does not exist on the model\"}"},
		{"GET", "/api/v2/backfills", 422,
			`{"detail":[{"type":"missing","loc":["query","dag_id"],"msg":"Field required","input":null}]}`},
		{"GET", "/api/v2/backfills/1", 200, daily},
		{"GET", "/api/v2/backfills/231984098", 404, `{"detail":"Backfill not found"}`},
		{"GET", "/api/v2/backfills/invalid_id", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","backfill_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"invalid_id"}]}`},
		{"GET", "/api/v2/backfills/-1", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["path","backfill_id"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"PUT", "/api/v2/backfills/invalid_id/pause", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","backfill_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"invalid_id"}]}`},
		{"PUT", "/api/v2/backfills/7/pause", 404, `{"detail":"Could not find backfill with id 7"}`},
		{"PUT", "/api/v2/backfills/1/pause", 200, strings.Replace(daily, `"is_paused":false`, `"is_paused":true`, 1)},
		{"PUT", "/api/v2/backfills/1/pause", 200, strings.Replace(daily, `"is_paused":false`, `"is_paused":true`, 1)},
		{"PUT", "/api/v2/backfills/1/unpause", 200, daily},
		{"PUT", "/api/v2/backfills/7/unpause", 404, `{"detail":"Could not find backfill with id 7"}`},
		{"PUT", "/api/v2/backfills/1/cancel", 200, one(1, "bf_daily", true, `"2024-05-01T10:00:00.123456Z"`, 5, "none", "2024-01-02")},
		{"PUT", "/api/v2/backfills/1/cancel", 409, `{"detail":"Backfill is already completed."}`},
		{"PUT", "/api/v2/backfills/1/pause", 409, `{"detail":"Backfill is already completed."}`},
		{"PUT", "/api/v2/backfills/1/unpause", 409, `{"detail":"Backfill is already completed."}`},
		{"PUT", "/api/v2/backfills/7/cancel", 404, `{"detail":"Could not find backfill with id 7"}`},
		{"GET", "/api/v2/backfills?dag_id=bf_past", 200,
			`{"backfills":[` + one(2, "bf_past", false, "null", 5, "failed", "2024-01-01") + `],"total_entries":1}`},
		{"DELETE", "/api/v2/backfills/1", 405, `{"detail":"Method Not Allowed"}`},
	} {
		res := ts.do(t, tc.method, tc.path, "")
		if res.status != tc.status || res.body != tc.want {
			t.Errorf("%s %s = %d %s\nwant %d %s", tc.method, tc.path, res.status, res.body, tc.status, tc.want)
		}
	}
	// Cancel failed the queued runs and left no run queued or running.
	for day := 1; day <= 2; day++ {
		run, err := ts.store.RunByRunID("bf_daily", fmt.Sprintf("backfill__2024-01-%02dT00:00:00+00:00", day))
		if err != nil || run.State != RunFailed {
			t.Errorf("run of day %d after cancel: %+v %v, want failed", day, run, err)
		}
	}
}

// TestAPIv2_Backfill_RunsOneAtATime: a backfill of three dates with
// max_active_runs 1 runs them through the scheduler one at a time, in
// order, to success; while it is paused none starts; then it completes.
func TestAPIv2_Backfill_RunsOneAtATime(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(`
dag_id: bf_bash
schedule_interval: "@daily"
start_date: 2024-01-01T00:00:00+00:00
max_active_runs: 16
catchup: false
tasks:
  - {task_id: hello, operator: BashOperator, bash_command: "echo {{ run_id }}"}
`))
	res := ts.do(t, http.MethodPost, "/api/v2/backfills",
		`{"dag_id": "bf_bash", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-03T00:00:00Z", "max_active_runs": 1}`)
	if res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPut, "/api/v2/backfills/1/pause", ""); res.status != 200 {
		t.Fatalf("pause = %d %s", res.status, res.body)
	}
	settleTicks(t, sched, time.Now)
	if n, _ := ts.store.RunsInState(RunQueued); len(n) != 3 {
		t.Fatalf("paused backfill: %d runs queued, want all 3", len(n))
	}
	if res := ts.do(t, http.MethodPut, "/api/v2/backfills/1/unpause", ""); res.status != 200 {
		t.Fatalf("unpause = %d %s", res.status, res.body)
	}
	var order []string
	for range 50 {
		if err := sched.tick(time.Now()); err != nil {
			t.Fatal(err)
		}
		running, _ := ts.store.RunsInState(RunRunning)
		if len(running) > 1 {
			t.Fatalf("%d backfill runs running at once, want at most 1", len(running))
		}
		for _, r := range running {
			if len(order) == 0 || order[len(order)-1] != r.RunID {
				order = append(order, r.RunID)
			}
		}
		awaitTries(t, sched)
		if b, _ := ts.store.BackfillByID(1); b.CompletedAt != nil {
			break
		}
	}
	want := "[backfill__2024-01-01T00:00:00+00:00 backfill__2024-01-02T00:00:00+00:00 backfill__2024-01-03T00:00:00+00:00]"
	if fmt.Sprint(order) != want {
		t.Errorf("runs ran in order %v, want %s", order, want)
	}
	for _, id := range []string{"2024-01-01", "2024-01-02", "2024-01-03"} {
		run, err := ts.store.RunByRunID("bf_bash", "backfill__"+id+"T00:00:00+00:00")
		if err != nil || run.State != RunSuccess {
			t.Errorf("run of %s: %+v %v, want success", id, run, err)
		}
	}
	got := v2JSON(t, ts.do(t, http.MethodGet, "/api/v2/backfills/1", ""))
	if got["completed_at"] == nil || got["is_paused"] != false {
		t.Errorf("backfill after its runs = %v, want completed", got)
	}
}

// TestAPIv2_Backfill_Backwards: run_backwards lists (and sorts) the dates
// latest first.
func TestAPIv2_Backfill_Backwards(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	body := strings.Replace(bfBody("bf_daily", 3, ""), `"run_backwards": false`, `"run_backwards": true`, 1)
	res := ts.do(t, http.MethodPost, "/api/v2/backfills/dry_run", body)
	want := `{"backfills":[{"logical_date":"2024-01-03T00:00:00Z","partition_key":null,"partition_date":null},` +
		`{"logical_date":"2024-01-02T00:00:00Z","partition_key":null,"partition_date":null},` +
		`{"logical_date":"2024-01-01T00:00:00Z","partition_key":null,"partition_date":null}],"total_entries":3}`
	if res.status != 200 || res.body != want {
		t.Errorf("dry run = %d %s\nwant %s", res.status, res.body, want)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body); res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	links, _ := ts.store.BackfillRuns(1)
	if len(links) != 3 || links[0].RunID != "backfill__2024-01-03T00:00:00+00:00" || links[0].SortOrdinal != 1 {
		t.Errorf("links = %+v, want 2024-01-03 first", links)
	}
}

// TestAPIv2_Backfill_NoRuns: a range with no date of the schedule is
// _create_backfill's RuntimeError after the backfill was stored: a 500,
// and the backfill stays, completed by the scheduler's next pass.
func TestAPIv2_Backfill_NoRuns(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	body := `{"dag_id": "bf_daily", "from_date": "2024-01-01T01:00:00Z", "to_date": "2024-01-01T02:00:00Z"}`
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills/dry_run", body); res.status != 200 || res.body != `{"backfills":[],"total_entries":0}` {
		t.Errorf("dry run = %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body); res.status != 500 || res.body != "Internal Server Error" {
		t.Errorf("create = %d %s, want Starlette's 500", res.status, res.body)
	}
	if b, err := ts.store.BackfillByID(1); err != nil || b.CompletedAt != nil {
		t.Fatalf("backfill = %+v %v, want stored, not completed", b, err)
	}
	if err := ts.store.CompleteBackfills(testNow); err != nil {
		t.Fatal(err)
	}
	if b, _ := ts.store.BackfillByID(1); b.CompletedAt == nil || !b.CompletedAt.Equal(testNow) {
		t.Errorf("backfill after a pass = %+v, want completed at %s", b, testNow)
	}
}

// TestAPIv2_Backfill_FromAfterTo: 3.2.1 does not compare from_date with
// to_date (models/backfill.py _validate_backfill_params of the 3.2.0-era
// main, Phinhas214/airflow c57fba0e; InvalidBackfillDateRange came with
// apache/airflow#66874, backported for 3.2.2 by #67250): the dry run has
// no date, the create stores the backfill and fails with the RuntimeError's
// 500, and that backfill, not completed, refuses the next create with 409.
func TestAPIv2_Backfill_FromAfterTo(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	body := `{"dag_id": "bf_daily", "from_date": "2024-01-05T00:00:00Z", "to_date": "2024-01-01T00:00:00Z"}`
	for _, c := range []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/api/v2/backfills/dry_run", 200, `{"backfills":[],"total_entries":0}`},
		{"/api/v2/backfills", 500, "Internal Server Error"},
		{"/api/v2/backfills", 409, `{"detail":"There is already a running backfill for dag bf_daily"}`},
	} {
		if res := ts.do(t, http.MethodPost, c.path, body); res.status != c.wantStatus || res.body != c.wantBody {
			t.Errorf("POST %s = %d %s, want %d %s", c.path, res.status, res.body, c.wantStatus, c.wantBody)
		}
	}
}

// TestAPIv2_Backfills_MatchTheDocument: the backfill answers with rows in
// them hold the fields 3.2.1's document declares, and no others.
func TestAPIv2_Backfills_MatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	ts := newBackfillServer(t)
	for _, c := range []struct{ method, op, path, body string }{
		{"POST", "/backfills/dry_run", "/backfills/dry_run", bfBody("bf_daily", 2, "")},
		{"POST", "/backfills", "/backfills", bfBody("bf_daily", 2, "")},
		{"GET", "/backfills", "/backfills?dag_id=bf_daily", ""},
		{"GET", "/backfills/{backfill_id}", "/backfills/1", ""},
		{"PUT", "/backfills/{backfill_id}/pause", "/backfills/1/pause", ""},
		{"PUT", "/backfills/{backfill_id}/unpause", "/backfills/1/unpause", ""},
		{"PUT", "/backfills/{backfill_id}/cancel", "/backfills/1/cancel", ""},
	} {
		res := ts.do(t, c.method, apiV2Prefix+c.path, c.body)
		if res.status != 200 {
			t.Errorf("%s %s = %d %s", c.method, c.path, res.status, res.body)
		}
		for _, e := range doc.answerErrors(c.method+" "+apiV2Prefix+c.op, res) {
			t.Errorf("%s %s: %s", c.method, c.path, e)
		}
	}
}

// TestAPIv2_Backfill_CatchupPassesItsDates: a catchup DAG goes on after
// a backfill's last run, which is its last automated run (3.2.1
// dag_processing/collection.py:105-134, :617-619 of c57fba0e: the
// latest scheduled or backfill run, read at each parse): the date before
// the backfill's first (2024-01-04) is not scheduled, nor are the
// backfill's own. And a backfill's runs are created with a start_date,
// as queued_at (3.2.1 models/backfill.py _create_backfill_dag_run:
// start_date=utcnow()).
func TestAPIv2_Backfill_CatchupPassesItsDates(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(`
dag_id: bf_catchup
schedule_interval: "@daily"
start_date: 2024-01-01T00:00:00+00:00
max_active_runs: 16
catchup: true
tasks:
  - {task_id: hello, operator: EmptyOperator}
`))
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	if err := sched.tick(day(3).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	res := ts.do(t, http.MethodPost, "/api/v2/backfills",
		`{"dag_id": "bf_catchup", "from_date": "2024-01-05T00:00:00Z", "to_date": "2024-01-06T00:00:00Z", "max_active_runs": 1}`)
	if res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	run := v2JSON(t, ts.do(t, http.MethodGet, "/api/v2/dags/bf_catchup/dagRuns/backfill__2024-01-05T00:00:00+00:00", ""))
	if run["start_date"] == nil || run["start_date"] != run["queued_at"] {
		t.Errorf("backfill run at creation: start_date %v, queued_at %v; want both the creation time", run["start_date"], run["queued_at"])
	}
	for _, now := range []time.Time{day(7).Add(time.Hour), day(8).Add(time.Hour)} {
		if err := sched.tick(now); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := ts.store.RunsOfDag("bf_catchup", "")
	if err != nil {
		t.Fatal(err)
	}
	byDate := map[string]string{}
	for _, r := range runs {
		if !r.ExecutionDate.Before(day(4)) {
			byDate[r.ExecutionDate.Format(time.DateOnly)] = r.RunType
		}
	}
	want := map[string]string{"2024-01-05": "backfill", "2024-01-06": "backfill",
		"2024-01-07": "scheduled", "2024-01-08": "scheduled"}
	if fmt.Sprint(byDate) != fmt.Sprint(want) {
		t.Errorf("runs by logical date = %v, want %v", byDate, want)
	}
}

// TestAPIv2_Backfill_DeltaTrigger: a duration schedule's backfill dates
// are its DeltaTriggerTimetable's (3.2.1 models/backfill.py
// _get_info_list: DAG.iter_dagrun_infos_between with catchup from
// from_date, serialization/definitions/dag.py:433-470): from_date
// itself, then a duration apart up to to_date, each run dated at its
// date, run after it, named after it, the instant as its interval
// (timetables/trigger.py:76-104 of the 3.2.0-era main Phinhas214/airflow
// c57fba0e).
func TestAPIv2_Backfill_DeltaTrigger(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(`
dag_id: bf_delta
schedule_interval: 12h
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: hello, operator: EmptyOperator}
`))
	res := ts.do(t, http.MethodPost, "/api/v2/backfills",
		`{"dag_id": "bf_delta", "from_date": "2024-01-01T06:00:00Z", "to_date": "2024-01-02T06:00:00Z", "max_active_runs": 1}`)
	if res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	var c struct {
		DagRuns []map[string]any `json:"dag_runs"`
	}
	runs := ts.do(t, http.MethodGet, "/api/v2/dags/bf_delta/dagRuns?order_by=logical_date", "")
	if err := json.Unmarshal([]byte(runs.body), &c); err != nil {
		t.Fatalf("runs = %d %s (%v)", runs.status, runs.body, err)
	}
	var got []string
	for _, r := range c.DagRuns {
		got = append(got, fmt.Sprintf("%v %v %v %v %v", r["dag_run_id"], r["logical_date"], r["run_after"], r["data_interval_start"], r["data_interval_end"]))
	}
	var want []string
	for _, at := range []string{"2024-01-01T06:00:00", "2024-01-01T18:00:00", "2024-01-02T06:00:00"} {
		want = append(want, fmt.Sprintf("backfill__%s+00:00 %[1]sZ %[1]sZ %[1]sZ %[1]sZ", at))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("backfill runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAPIv2_Backfill_ParamsConf: 3.2.1 checks a backfill's dag_run_conf
// against the DAG's params only where it creates a run, in
// create_dagrun (serialization/definitions/dag.py:570-571 of c57fba0e);
// the ValueError goes up through _create_backfill unhandled
// (routes/public/backfills.py:232-268): Starlette's 500, the backfill
// stored before the runs (models/backfill.py:594-605) and its runs rolled
// back with the session. The dry run does not read dag_run_conf. Checking
// the conf first (InvalidBackfillConf, apache/airflow#64939) came after
// 3.2.1: its document's dag_run_conf is still an object, not nullable.
func TestAPIv2_Backfill_ParamsConf(t *testing.T) {
	t.Parallel()
	const dag = `
dag_id: bf_params
schedule_interval: "0 0 * * *"
start_date: 2024-01-01T00:00:00+00:00
params:
  rows: !Param {default: 5, type: integer, minimum: 3}
tasks:
  - {task_id: mytask, operator: EmptyOperator}
`
	ts := newTestServer(t, edition3, withExamplesPaused(), withDAG(dag))
	body := func(conf string) string {
		return `{"dag_id": "bf_params", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-03T00:00:00Z", "dag_run_conf": ` + conf + `}`
	}
	dry := ts.do(t, http.MethodPost, "/api/v2/backfills/dry_run", body(`{"rows": 1}`))
	if !strings.Contains(dry.body, `"total_entries":3`) || dry.status != http.StatusOK {
		t.Errorf("dry run with a bad conf = %d %s, want the three dates", dry.status, dry.body)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body(`{"rows": 1}`)); res.status != 500 || res.body != "Internal Server Error" {
		t.Errorf("create with a bad conf = %d %s, want Starlette's 500", res.status, res.body)
	}
	if b, err := ts.store.BackfillByID(1); err != nil || b.CompletedAt != nil || string(b.DagRunConf) != `{"rows":1}` {
		t.Fatalf("backfill = %+v %v, want stored, not completed", b, err)
	}
	if links, _ := ts.store.BackfillRuns(1); len(links) != 0 {
		t.Errorf("links = %+v, want none: the runs are rolled back", links)
	}
	if runs := ts.do(t, http.MethodGet, "/api/v2/dags/bf_params/dagRuns", ""); !strings.Contains(runs.body, `"total_entries":0`) {
		t.Errorf("runs = %s, want none", runs.body)
	}
	if err := ts.store.CompleteBackfills(testNow); err != nil {
		t.Fatal(err)
	}
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", body(`{"rows": 4}`)); res.status != http.StatusOK {
		t.Fatalf("create with a good conf = %d %s", res.status, res.body)
	}
	if links, _ := ts.store.BackfillRuns(2); len(links) != 3 {
		t.Errorf("links = %+v, want a run at each date", links)
	}
}

// TestAPIv2_Backfill_CheckOrder: which refusal wins when several apply.
// _create_backfill looks for the DAG, its allowed run types, its schedule,
// a running backfill, then depends_on_past and the dates; _do_dry_run
// checks depends_on_past and the dates before the schedule, and never the
// running backfill (c57fba0e models/backfill.py:246-291, :547-592).
func TestAPIv2_Backfill_CheckOrder(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	future := func(dag, more string) string {
		return `{"dag_id": "` + dag + `", "from_date": "2099-01-01T00:00:00Z", "to_date": "2099-01-02T00:00:00Z"` + more + `}`
	}
	const reprocess = `{"detail":"Dag has tasks for which depends_on_past=True. You must set reprocess behavior to reprocess completed or reprocess failed."}`
	runAirflowCases(t, ts, []airflowCase{
		{"POST", "/backfills/dry_run", future("bf_none", ""), 422, `{"detail":"Backfill cannot be executed for future dates."}`},
		{"POST", "/backfills", future("bf_none", ""), 422, `{"detail":"bf_none has no schedule"}`},
		{"POST", "/backfills/dry_run", future("bf_past", ""), 422, reprocess},
		{"POST", "/backfills/dry_run", future("bf_past", `, "run_backwards": true`), 422,
			`{"detail":"Backfill cannot be run in reverse when the Dag has tasks where depends_on_past=True."}`},
		{"POST", "/backfills", bfBody("bf_daily", 2, ""), 200,
			`{"id":1,"dag_id":"bf_daily","from_date":"2024-01-01T00:00:00Z","to_date":"2024-01-02T00:00:00Z","dag_run_conf":{"param1":"val1","param2":true},"is_paused":false,` +
				`"reprocess_behavior":"none","max_active_runs":5,"created_at":"2024-05-01T10:00:00.123456Z","completed_at":null,"updated_at":"2024-05-01T10:00:00.123456Z","dag_display_name":"bf_daily"}`},
		{"POST", "/backfills", future("bf_daily", ""), 409, `{"detail":"There is already a running backfill for dag bf_daily"}`},
		{"POST", "/backfills/dry_run", bfBody("bf_daily", 2, ""), 200, `{"backfills":[],"total_entries":0}`},
		{"POST", "/backfills/dry_run", `{"dag_id": "bf_daily", "from_date": "2024-01-01", "to_date": "2024-01-02", "dag_run_conf": null}`, 422,
			`{"detail":[{"type":"dict_type","loc":["body","dag_run_conf"],"msg":"Input should be a valid dictionary","input":null}]}`},
		{"POST", "/backfills/dry_run", `{"dag_id": "bf_daily", "from_date": "2024-01-01", "to_date": "2024-01-02", "max_active_runs": "x", "run_on_latest_version": "y", "run_backwards": 3}`, 422,
			`{"detail":[{"type":"bool_parsing","loc":["body","run_backwards"],"msg":"Input should be a valid boolean, unable to interpret input","input":3},` +
				`{"type":"int_parsing","loc":["body","max_active_runs"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		{"GET", "/backfills/dry_run", "", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","backfill_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"dry_run"}]}`},
	})
}

// TestAPIv2_Backfill_CancelEndStates is test_cancel_backfill_end_states:
// cancel fails the backfill's queued runs and leaves a running one
// (c57fba0e routes/public/backfills.py cancel_backfill).
func TestAPIv2_Backfill_CancelEndStates(t *testing.T) {
	t.Parallel()
	ts := newBackfillServer(t)
	if res := ts.do(t, http.MethodPost, "/api/v2/backfills", bfBody("bf_daily", 5, `, "max_active_runs": 2`)); res.status != 200 {
		t.Fatalf("create = %d %s", res.status, res.body)
	}
	runID := func(day int) string { return fmt.Sprintf("backfill__2024-01-%02dT00:00:00+00:00", day) }
	err := ts.store.update(func(txn *memdb.Txn) error {
		raw, err := txn.First(tableDagRuns, indexID, "bf_daily", runID(1))
		if err != nil || raw == nil {
			return fmt.Errorf("look up day 1: %v", err)
		}
		old := raw.(*DagRun)
		next := *old
		next.State = RunRunning
		return putRunTxn(txn, old, &next)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := ts.do(t, http.MethodPut, "/api/v2/backfills/1/cancel", ""); res.status != 200 {
		t.Fatalf("cancel = %d %s", res.status, res.body)
	}
	for day, want := range []RunState{RunRunning, RunFailed, RunFailed, RunFailed, RunFailed} {
		if run, err := ts.store.RunByRunID("bf_daily", runID(day+1)); err != nil || run.State != want {
			t.Errorf("day %d after cancel: %+v %v, want %s", day+1, run, err, want)
		}
	}
}

// TestAPIv2_Backfill_DatesAsGiven: create_backfill answers the ORM object
// it made, not a row read back (c57fba0e routes/public/backfills.py
// create_backfill: BackfillResponse.model_validate of _create_backfill's
// Backfill; settings.py's sessions do not expire on commit), so its
// from_date and to_date are the body's, offsets kept
// (timezone.coerce_datetime keeps an aware datetime's tzinfo); read back
// through UtcDateTime, GET answers them in UTC. The timetable starts at
// from_date itself when it falls on the schedule (_cron.py _align_to_next
// returns current; _delta.py always does), so the first date of the dry
// run and the first run's id (generate_run_id: run_after.isoformat()) keep
// the offset too; the rest come from _get_next, in UTC.
func TestAPIv2_Backfill_DatesAsGiven(t *testing.T) {
	t.Parallel()
	const body = `{"dag_id": "bf_daily", "from_date": "2024-01-01T02:00:00+02:00", "to_date": "2024-01-03T05:30:00.5+05:30"}`
	t.Run("dry run", func(t *testing.T) {
		t.Parallel()
		ts := newBackfillServer(t)
		want := `{"backfills":[{"logical_date":"2024-01-01T02:00:00+02:00","partition_key":null,"partition_date":null},` +
			`{"logical_date":"2024-01-02T00:00:00Z","partition_key":null,"partition_date":null},` +
			`{"logical_date":"2024-01-03T00:00:00Z","partition_key":null,"partition_date":null}],"total_entries":3}`
		if res := ts.do(t, http.MethodPost, "/api/v2/backfills/dry_run", body); res.status != 200 || res.body != want {
			t.Errorf("dry run = %d %s\nwant %s", res.status, res.body, want)
		}
	})
	t.Run("create", func(t *testing.T) {
		t.Parallel()
		ts := newBackfillServer(t)
		res := ts.do(t, http.MethodPost, "/api/v2/backfills", body)
		var got map[string]any
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != 200 {
			t.Fatalf("create = %d %s (%v)", res.status, res.body, err)
		}
		if got["from_date"] != "2024-01-01T02:00:00+02:00" || got["to_date"] != "2024-01-03T05:30:00.500000+05:30" {
			t.Errorf("create answers from_date %v, to_date %v; want them as given", got["from_date"], got["to_date"])
		}
		again := v2JSON(t, ts.do(t, http.MethodGet, "/api/v2/backfills/1", ""))
		if again["from_date"] != "2024-01-01T00:00:00Z" || again["to_date"] != "2024-01-03T00:00:00.500000Z" {
			t.Errorf("GET answers from_date %v, to_date %v; want them in UTC", again["from_date"], again["to_date"])
		}
		runs := ts.do(t, http.MethodGet, "/api/v2/dags/bf_daily/dagRuns?order_by=logical_date", "")
		var c struct {
			DagRuns []map[string]any `json:"dag_runs"`
		}
		if err := json.Unmarshal([]byte(runs.body), &c); err != nil {
			t.Fatalf("runs = %d %s (%v)", runs.status, runs.body, err)
		}
		var ids []string
		for _, r := range c.DagRuns {
			ids = append(ids, fmt.Sprint(r["dag_run_id"], " ", r["logical_date"]))
		}
		want := "backfill__2024-01-01T02:00:00+02:00 2024-01-01T00:00:00Z\n" +
			"backfill__2024-01-02T00:00:00+00:00 2024-01-02T00:00:00Z\nbackfill__2024-01-03T00:00:00+00:00 2024-01-03T00:00:00Z"
		if strings.Join(ids, "\n") != want {
			t.Errorf("runs\n%s\nwant\n%s", strings.Join(ids, "\n"), want)
		}
	})
}
