package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Airflow 3.2's test_dag_run.py, against the state its setup fixture
// builds (c57fba0e airflow-core/tests/unit/api_fastapi/core_api/routes/
// public/test_dag_run.py:125-223): test_dag1 (task_1, task_2) with
// dag_run_1 (success, manual, ui, alice_admin, both tasks success) and
// dag_run_2 (failed, scheduled, asset, bob_service, task_2 failed);
// test_dag2 (task_2, a validated_number param 1..10) with dag_run_3
// (success, backfill, cli, service_account) and dag_run_4 (success,
// asset_triggered, rest_api, no user). Each run starts on its DAG's
// start_date and ends the given seconds later.

const airflowRunsDAG1 = `
dag_id: test_dag1
schedule_interval: null
start_date: 2024-01-15T00:00:00+00:00
tasks:
  - {task_id: task_1, operator: EmptyOperator}
  - {task_id: task_2, operator: EmptyOperator}
`

const airflowRunsDAG2 = `
dag_id: test_dag2
schedule_interval: null
start_date: 2024-04-15T00:00:00+00:00
params:
  validated_number: !Param {default: 1, minimum: 1, maximum: 10}
tasks:
  - {task_id: task_2, operator: EmptyOperator}
`

// airflowRunsFixture is the server of test_dag_run.py's setup.
func airflowRunsFixture(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3, withExamplesOnly(), withDAG(airflowRunsDAG1), withDAG(airflowRunsDAG2))
	type spec struct {
		dag, run, date, state, runType, by, user, conf string
		start                                          time.Time
		seconds                                        int
		tis                                            map[string]TaskState
	}
	start1 := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	start2 := time.Date(2024, 4, 15, 0, 0, 0, 0, time.UTC)
	specs := []spec{
		{"test_dag1", "dag_run_1", "2024-02-16T00:00:00+00:00", "success", "manual", "ui", "alice_admin",
			`{"env": "development", "version": "1.0"}`, start1, 101, map[string]TaskState{"task_1": TaskSuccess, "task_2": TaskSuccess}},
		{"test_dag1", "dag_run_2", "2024-02-20T00:00:00+00:00", "failed", "scheduled", "asset", "bob_service",
			`{"env": "production", "debug": true}`, start1, 201, map[string]TaskState{"task_1": TaskSuccess, "task_2": TaskFailed}},
		{"test_dag2", "dag_run_3", "2024-05-16T00:00:00+00:00", "success", "backfill", "cli", "service_account",
			`{"env": "staging", "test_mode": true}`, start2, 51, nil},
		{"test_dag2", "dag_run_4", "2024-05-25T00:00:00+00:00", "success", "asset_triggered", "rest_api", "",
			`{"env": "testing", "mode": "ci"}`, start2, 150, nil},
	}
	for i, s := range specs {
		v2Trigger(t, ts, s.dag, `{"dag_run_id": "`+s.run+`", "logical_date": "`+s.date+`", "run_after": "`+s.date+`"}`)
		err := ts.store.update(func(txn *memdb.Txn) error {
			raw, err := txn.First(tableDagRuns, indexID, s.dag, s.run)
			if err != nil || raw == nil {
				t.Fatalf("look up %s: %v", s.run, err)
			}
			old := raw.(*DagRun)
			next := *old
			start, end := s.start, s.start.Add(time.Duration(s.seconds)*time.Second)
			updated := testNow.Add(time.Duration(i) * time.Second)
			next.State, next.RunType, next.TriggeredBy = RunState(s.state), s.runType, s.by
			next.StartDate, next.EndDate, next.UpdatedAt = &start, &end, &updated
			next.Conf = json.RawMessage(s.conf)
			next.TriggeringUser = nil
			if s.user != "" {
				next.TriggeringUser = &s.user
			}
			if i == 0 {
				note := "test_note"
				next.Note = &note
			}
			if err := putRunTxn(txn, old, &next); err != nil {
				return err
			}
			row, err := runTasksTxn(txn, s.dag, s.run)
			if err != nil {
				return err
			}
			var tis []*TaskInstance
			for _, ti := range row.TIs {
				if st, ok := s.tis[ti.TaskID]; ok {
					c := *ti
					c.State = st
					tis = append(tis, &c)
				}
			}
			if len(tis) == 0 {
				return nil
			}
			return putRunTaskInstancesTxn(txn, &next, tis...)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	run, err := ts.store.RunByRunID("test_dag1", "dag_run_1")
	if err != nil {
		t.Fatal(err)
	}
	for i, task := range []string{"task_1", "task_2"} {
		e := &XComEntry{DagID: run.DagID, RunID: run.RunID, TaskID: task, RunRowID: run.ID, MapIndex: -1,
			Key: "return_value", Value: json.RawMessage(`"result_` + itoa(i+1) + `"`), Timestamp: testNow}
		if err := ts.store.UpsertXCom(e); err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

// airflowCase is one request of Airflow's tests and what 3.2.1 answers:
// the body exactly, or, with ids, the run ids and total of a list.
type airflowCase struct {
	method, path, body string
	status             int
	want               string
}

func runAirflowCases(t *testing.T, ts *testServer, cases []airflowCase) {
	t.Helper()
	for _, tc := range cases {
		res := ts.do(t, tc.method, "/api/v2"+tc.path, tc.body)
		got := res.body
		if strings.HasPrefix(tc.want, "ids:") {
			got = "ids:" + strings.Join(v2RunIDs(t, res), " ")
		}
		if res.status != tc.status || got != tc.want {
			t.Errorf("%s %s %s\n got %d %s\nwant %d %s", tc.method, tc.path, tc.body, res.status, got, tc.status, tc.want)
		}
	}
}

// TestAPIv2_AirflowGetDagRuns: TestGetDagRuns and TestListDagRunsBatch
// (test_dag_run.py:331-1190).
func TestAPIv2_AirflowGetDagRuns(t *testing.T) {
	t.Parallel()
	ts := airflowRunsFixture(t)
	const all = "ids:dag_run_1 dag_run_2 dag_run_3 dag_run_4"
	cases := []airflowCase{
		{"GET", "/dags/test_dag1/dagRuns", "", 200, "ids:dag_run_1 dag_run_2 total=2"},
		{"GET", "/dags/test_dag2/dagRuns", "", 200, "ids:dag_run_3 dag_run_4 total=2"},
		{"GET", "/dags/~/dagRuns", "", 200, all + " total=4"},
	}
	for _, o := range []struct{ key, asc string }{
		{"id", "dag_run_1 dag_run_2"}, {"state", "dag_run_2 dag_run_1"}, {"dag_id", "dag_run_1 dag_run_2"},
		{"logical_date", "dag_run_1 dag_run_2"}, {"dag_run_id", "dag_run_1 dag_run_2"}, {"start_date", "dag_run_1 dag_run_2"},
		{"end_date", "dag_run_1 dag_run_2"}, {"updated_at", "dag_run_1 dag_run_2"}, {"conf", "dag_run_1 dag_run_2"},
		{"duration", "dag_run_1 dag_run_2"},
	} {
		f := strings.Fields(o.asc)
		cases = append(cases,
			airflowCase{"GET", "/dags/test_dag1/dagRuns?order_by=" + o.key, "", 200, "ids:" + o.asc + " total=2"},
			airflowCase{"GET", "/dags/test_dag1/dagRuns?order_by=-" + o.key, "", 200, "ids:" + f[1] + " " + f[0] + " total=2"})
	}
	for _, q := range []struct{ dag, query, want string }{
		{"test_dag1", "logical_date_gte=2024-02-16T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag2", "logical_date_lte=2024-05-16T00:00:00%2B00:00", "dag_run_3"},
		{"~", "start_date_gte=2024-01-15T00:00:00%2B00:00&start_date_lte=2024-04-14T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"~", "start_date_gt=2024-01-15T00:00:00%2B00:00&start_date_lt=2024-04-14T00:00:00%2B00:00", ""},
		{"~", "start_date_gt=2024-01-14T23:00:00%2B00:00&start_date_lt=2024-04-14T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag1", "end_date_gte=2024-04-15T00:00:00%2B00:00&end_date_lte=2024-05-02T00:00:00%2B00:00", ""},
		{"test_dag1", "end_date_gt=2024-04-15T00:00:00%2B00:00&end_date_lt=2024-05-02T00:00:00%2B00:00", ""},
		{"test_dag1", "end_date_gt=2024-01-15T00:00:50%2B00:00&end_date_lt=2024-05-02T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag1", "logical_date_gte=2024-02-16T00:00:00%2B00:00&logical_date_lte=2024-02-20T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag1", "logical_date_gt=2024-02-16T00:00:00%2B00:00&logical_date_lt=2024-02-20T00:00:00%2B00:00", ""},
		{"test_dag1", "logical_date_gt=2024-02-15T23:00:00%2B00:00&logical_date_lt=2024-02-20T00:00:00%2B00:00", "dag_run_1"},
		{"test_dag1", "run_after_gte=2024-02-16T00:00:00%2B00:00&run_after_lte=2024-02-20T00:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag1", "run_after_gt=2024-02-16T00:00:00%2B00:00&run_after_lt=2024-02-20T00:00:00%2B00:00", ""},
		{"test_dag1", "run_after_gt=2024-02-15T23:00:00%2B00:00&run_after_lt=2024-02-20T01:00:00%2B00:00", "dag_run_1 dag_run_2"},
		{"test_dag2", "start_date_gte=2024-04-15T00:00:00%2B00:00&end_date_lte=2024-05-02T00:00:00%2B00:00", "dag_run_3 dag_run_4"},
		{"test_dag2", "start_date_gt=2024-04-15T00:00:00%2B00:00&end_date_lt=2024-05-02T00:00:00%2B00:00", ""},
		{"test_dag2", "start_date_gt=2024-04-14T23:00:00%2B00:00&end_date_lt=2024-05-02T00:00:00%2B00:00", "dag_run_3 dag_run_4"},
		{"test_dag1", "state=success", "dag_run_1"},
		{"test_dag2", "state=failed", ""},
		{"test_dag1", "state=success&logical_date_gte=2024-02-16T00:00:00%2B00:00", "dag_run_1"},
		{"test_dag1", "state=failed&start_date_gte=2024-01-15T00:00:00%2B00:00", "dag_run_2"},
		{"test_dag1", "run_id_pattern=dag_run_1", "dag_run_1"},
		{"test_dag2", "run_id_pattern=dag_run_3", "dag_run_3"},
		{"~", "run_id_pattern=dag_run_1", "dag_run_1"},
		{"~", "run_id_pattern=non_existent_run_id", ""},
		{"test_dag1", "run_id_pattern=run_1", "dag_run_1"},
		{"test_dag1", "run_id_pattern=dag_%25_1", "dag_run_1"},
		{"~", "run_id_pattern=dag_run_", "dag_run_1 dag_run_2 dag_run_3 dag_run_4"},
		{"test_dag1", "run_id_pattern=dag_run_1&state=success", "dag_run_1"},
		{"test_dag1", "triggering_user_name_pattern=alice_admin", "dag_run_1"},
		{"test_dag1", "triggering_user_name_pattern=bob_service", "dag_run_2"},
		{"test_dag2", "triggering_user_name_pattern=service_account", "dag_run_3"},
		{"~", "triggering_user_name_pattern=alice%25", "dag_run_1"},
		{"~", "triggering_user_name_pattern=%25service%25", "dag_run_2 dag_run_3"},
		{"~", "triggering_user_name_pattern=nonexistent", ""},
		{"test_dag1", "triggering_user_name_pattern=alice%25&state=success", "dag_run_1"},
		{"~", "dag_id_pattern=test_dag1", "dag_run_1 dag_run_2"},
		{"~", "dag_id_pattern=test_dag2", "dag_run_3 dag_run_4"},
		{"~", "dag_id_pattern=test_%25", "dag_run_1 dag_run_2 dag_run_3 dag_run_4"},
		{"~", "dag_id_pattern=%25_dag1", "dag_run_1 dag_run_2"},
		{"~", "dag_id_pattern=%25_dag2", "dag_run_3 dag_run_4"},
		{"~", "dag_id_pattern=test_dag_", "dag_run_1 dag_run_2 dag_run_3 dag_run_4"},
		{"~", "dag_id_pattern=nonexistent", ""},
		{"~", "dag_id_pattern=test_dag1&state=success", "dag_run_1"},
		{"test_dag1", "dag_version=1", "dag_run_1 dag_run_2"},
		{"test_dag2", "dag_version=1", "dag_run_3 dag_run_4"},
		{"~", "dag_version=1", "dag_run_1 dag_run_2 dag_run_3 dag_run_4"},
		{"~", "dag_version=999", ""},
		{"test_dag1", "dag_version=1&dag_version=999", "dag_run_1 dag_run_2"},
		{"~", "duration_gte=200", "dag_run_2"},
		{"~", "duration_lt=100", "dag_run_3"},
		{"~", "duration_gte=100&duration_lte=150", "dag_run_1 dag_run_4"},
		{"~", "conf_contains=development", "dag_run_1"},
		{"~", "conf_contains=debug", "dag_run_2"},
		{"~", "conf_contains=version", "dag_run_1"},
		{"~", "conf_contains=nonexistent_key", ""},
	} {
		n := len(strings.Fields(q.want))
		cases = append(cases, airflowCase{"GET", "/dags/" + q.dag + "/dagRuns?" + q.query, "", 200,
			strings.Replace("ids:"+q.want+" total=", "ids: ", "ids:", 1) + itoa(n)})
	}
	runAirflowCases(t, ts, cases)
}

// TestAPIv2_AirflowDagRunErrors: the error answers of TestGetDagRuns,
// TestListDagRunsBatch and TestGetDagRun (test_dag_run.py:313-1190).
func TestAPIv2_AirflowDagRunErrors(t *testing.T) {
	t.Parallel()
	ts := airflowRunsFixture(t)
	ge := func(loc string, input string) string {
		return `{"type":"greater_than_equal","loc":[` + loc + `],"msg":"Input should be greater than or equal to 0","input":` + input + `,"ctx":{"ge":0}}`
	}
	dt := func(where, name string) string {
		return `{"type":"datetime_from_date_parsing","loc":["` + where + `","` + name + `"],"msg":"Input should be a valid datetime or date, input is too short","input":"invalid","ctx":{"error":"input is too short"}}`
	}
	var badQuery, badBody []string
	for _, n := range []string{"run_after_gte", "run_after_lte", "logical_date_gte", "logical_date_lte", "start_date_gte", "start_date_lte", "end_date_gte", "end_date_lte"} {
		badQuery = append(badQuery, dt("query", n))
	}
	for _, n := range []string{"logical_date_gte", "logical_date_lte", "start_date_gte", "start_date_lte", "end_date_gte", "end_date_lte"} {
		badBody = append(badBody, dt("body", n))
	}
	runAirflowCases(t, ts, []airflowCase{
		{"GET", "/dags/test_dag1/dagRuns/invalid", "", 404, `{"detail":"The DagRun with dag_id: ` + "`test_dag1`" + ` and run_id: ` + "`invalid`" + ` was not found"}`},
		{"GET", "/dags/invalid/dagRuns", "", 404, `{"detail":"The Dag with ID: ` + "`invalid`" + ` was not found"}`},
		{"GET", "/dags/test_dag1/dagRuns?order_by=invalid", "", 400, `{"detail":"Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}`},
		{"GET", "/dags/test_dag1/dagRuns?limit=1&offset=-1", "", 422, `{"detail":[` + ge(`"query","offset"`, `"-1"`) + `]}`},
		{"GET", "/dags/test_dag1/dagRuns?limit=-1&offset=1", "", 422, `{"detail":[` + ge(`"query","limit"`, `"-1"`) + `]}`},
		{"GET", "/dags/test_dag1/dagRuns?limit=-1&offset=-1", "", 422, `{"detail":[` + ge(`"query","limit"`, `"-1"`) + `,` + ge(`"query","offset"`, `"-1"`) + `]}`},
		{"GET", "/dags/test_dag1/dagRuns?logical_date_gte=invalid&start_date_gte=invalid&end_date_gte=invalid&run_after_gte=invalid&logical_date_lte=invalid&start_date_lte=invalid&end_date_lte=invalid&run_after_lte=invalid", "", 422,
			`{"detail":[` + strings.Join(badQuery, ",") + `]}`},
		{"GET", "/dags/test_dag1/dagRuns?state=invalid", "", 422, `{"detail":"Invalid value for state. Valid values are queued, running, success, failed"}`},
		{"GET", "/dags/test_dag1/dagRuns?dag_version=invalid", "", 422, `{"detail":[{"type":"int_parsing","loc":["query","dag_version",0],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"invalid"}]}`},
		{"POST", "/dags/invalid/dagRuns/list", `{}`, 422, `{"detail":[{"type":"literal_error","loc":["path","dag_id"],"msg":"Input should be '~'","input":"invalid","ctx":{"expected":"'~'"}}]}`},
		{"POST", "/dags/~/dagRuns/list", `{"order_by": "invalid"}`, 400, `{"detail":"Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}`},
		{"POST", "/dags/~/dagRuns/list", `{"page_limit": 1, "page_offset": -1}`, 422, `{"detail":[` + ge(`"body","page_offset"`, `-1`) + `]}`},
		{"POST", "/dags/~/dagRuns/list", `{"page_limit": -1, "page_offset": 1}`, 422, `{"detail":[` + ge(`"body","page_limit"`, `-1`) + `]}`},
		{"POST", "/dags/~/dagRuns/list", `{"page_limit": -1, "page_offset": -1}`, 422, `{"detail":[` + ge(`"body","page_offset"`, `-1`) + `,` + ge(`"body","page_limit"`, `-1`) + `]}`},
		{"POST", "/dags/~/dagRuns/list", `{"logical_date_gte": "invalid", "start_date_gte": "invalid", "end_date_gte": "invalid", "logical_date_lte": "invalid", "start_date_lte": "invalid", "end_date_lte": "invalid", "dag_ids": "invalid"}`, 422,
			`{"detail":[{"type":"list_type","loc":["body","dag_ids"],"msg":"Input should be a valid list","input":"invalid"},` + strings.Join(badBody, ",") + `]}`},
		{"POST", "/dags/~/dagRuns/list", `{"states": ["invalid"]}`, 422, `{"detail":[{"type":"enum","loc":["body","states",0],"msg":"Input should be 'queued', 'running', 'success' or 'failed'","input":"invalid","ctx":{"expected":"'queued', 'running', 'success' or 'failed'"}}]}`},
		{"POST", "/dags/~/dagRuns/list", `{"states": "invalid"}`, 422, `{"detail":[{"type":"list_type","loc":["body","states"],"msg":"Input should be a valid list","input":"invalid"}]}`},
	})
}

// TestAPIv2_AirflowListDagRunsBatch: TestListDagRunsBatch's lists
// (test_dag_run.py:862-1070).
func TestAPIv2_AirflowListDagRunsBatch(t *testing.T) {
	t.Parallel()
	ts := airflowRunsFixture(t)
	const all = "dag_run_1 dag_run_2 dag_run_3 dag_run_4"
	var cases []airflowCase
	add := func(body, want string) {
		n := len(strings.Fields(want))
		cases = append(cases, airflowCase{"POST", "/dags/~/dagRuns/list", body, 200,
			strings.Replace("ids:"+want+" total=", "ids: ", "ids:", 1) + itoa(n)})
	}
	addTotal := func(body, want string, total int) {
		cases = append(cases, airflowCase{"POST", "/dags/~/dagRuns/list", body, 200,
			strings.Replace("ids:"+want+" total=", "ids: ", "ids:", 1) + itoa(total)})
	}
	add(`{}`, all)
	add(`{"dag_ids": []}`, all)
	add(`{"dag_ids": ["test_dag1"]}`, "dag_run_1 dag_run_2")
	add(`{"dag_ids": ["invalid"]}`, "")
	for _, o := range []struct{ key, asc string }{
		{"id", all}, {"state", "dag_run_2 dag_run_1 dag_run_3 dag_run_4"}, {"dag_id", all}, {"run_after", all},
		{"logical_date", all}, {"dag_run_id", all}, {"start_date", all}, {"end_date", all}, {"updated_at", all}, {"conf", all},
	} {
		f := strings.Fields(o.asc)
		addTotal(`{"order_by": "`+o.key+`"}`, o.asc, 4)
		addTotal(`{"order_by": "-`+o.key+`"}`, f[3]+" "+f[2]+" "+f[1]+" "+f[0], 4)
	}
	addTotal(`{"page_limit": 1}`, "dag_run_1", 4)
	addTotal(`{"page_limit": 3}`, "dag_run_1 dag_run_2 dag_run_3", 4)
	addTotal(`{"page_offset": 1}`, "dag_run_2 dag_run_3 dag_run_4", 4)
	addTotal(`{"page_offset": 5}`, "", 4)
	addTotal(`{"page_limit": 1, "page_offset": 1}`, "dag_run_2", 4)
	addTotal(`{"page_limit": 1, "page_offset": 2}`, "dag_run_3", 4)
	add(`{"logical_date_gte": "2024-02-16T00:00:00+00:00"}`, all)
	add(`{"logical_date_lte": "2024-05-16T00:00:00+00:00"}`, "dag_run_1 dag_run_2 dag_run_3")
	add(`{"start_date_gte": "2024-01-15T00:00:00+00:00", "start_date_lte": "2024-04-14T00:00:00+00:00"}`, "dag_run_1 dag_run_2")
	add(`{"end_date_gte": "2024-04-15T00:00:00+00:00", "end_date_lte": "2024-05-02T00:00:00+00:00"}`, "dag_run_3 dag_run_4")
	add(`{"logical_date_gte": "2024-02-16T00:00:00+00:00", "logical_date_lte": "2024-02-20T00:00:00+00:00"}`, "dag_run_1 dag_run_2")
	add(`{"start_date_gte": "2024-04-15T00:00:00+00:00", "end_date_lte": "2024-05-02T00:00:00+00:00"}`, "dag_run_3 dag_run_4")
	add(`{"states": ["success"]}`, "dag_run_1 dag_run_3 dag_run_4")
	add(`{"states": ["failed"]}`, "dag_run_2")
	add(`{"states": ["success"], "logical_date_gte": "2024-02-20T00:00:00+00:00"}`, "dag_run_3 dag_run_4")
	add(`{"states": ["failed"], "start_date_gte": "2024-01-15T00:00:00+00:00"}`, "dag_run_2")
	runAirflowCases(t, ts, cases)
}

// TestAPIv2_AirflowPatchDagRun: TestPatchDagRun (test_dag_run.py:1193-1370),
// each case on a fresh fixture; want holds the fields the test reads.
func TestAPIv2_AirflowPatchDagRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, body  string
		state, note any
	}{
		{"test_dag1/dagRuns/dag_run_1", `{"state": "failed", "note": "new_note2"}`, "failed", "new_note2"},
		{"test_dag1/dagRuns/dag_run_2", `{"state": "success"}`, "success", nil},
		{"test_dag2/dagRuns/dag_run_3", `{"state": "queued"}`, "queued", nil},
		{"test_dag1/dagRuns/dag_run_1", `{"note": "updated note"}`, "success", "updated note"},
		{"test_dag1/dagRuns/dag_run_2", `{"note": "new note", "state": "failed"}`, "failed", "new note"},
		{"test_dag1/dagRuns/dag_run_2", `{"note": null}`, "failed", nil},
		{"test_dag1/dagRuns/dag_run_1?update_mask=state", `{"state": "success"}`, "success", "test_note"},
		{"test_dag1/dagRuns/dag_run_1?update_mask=note", `{"state": "failed", "note": "new_note1"}`, "success", "new_note1"},
		{"test_dag1/dagRuns/dag_run_1", `{"state": "failed", "note": "new_note2"}`, "failed", "new_note2"},
		{"test_dag1/dagRuns/dag_run_1?update_mask=note", `{}`, "success", "test_note"},
		{"test_dag1/dagRuns/dag_run_1?update_mask=note", `{"note": null}`, "success", nil},
		{"test_dag1/dagRuns/dag_run_1?update_mask=random", `{"state": "failed"}`, "success", "test_note"},
		{"test_dag1/dagRuns/dag_run_1", `{"state": "queued"}`, "queued", "test_note"},
	} {
		ts := airflowRunsFixture(t)
		res := ts.do(t, http.MethodPatch, "/api/v2/dags/"+tc.path, tc.body)
		got := v2JSON(t, res)
		if res.status != 200 || got["state"] != tc.state || got["note"] != tc.note {
			t.Errorf("PATCH %s %s = %d %s, want state %v note %v", tc.path, tc.body, res.status, res.body, tc.state, tc.note)
		}
	}
	ts := airflowRunsFixture(t)
	// A mapped task's return values, one per map index, in dag_run_2.
	run, err := ts.store.RunByRunID("test_dag1", "dag_run_2")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{`{"a": [1, 2.50]}`, `"m0"`} {
		e := &XComEntry{DagID: run.DagID, RunID: run.RunID, TaskID: "task_1", RunRowID: run.ID, MapIndex: 1 - i,
			Key: "return_value", Value: json.RawMessage(v), Timestamp: testNow}
		if err := ts.store.UpsertXCom(e); err != nil {
			t.Fatal(err)
		}
	}
	runAirflowCases(t, ts, []airflowCase{
		{"PATCH", "/dags/test_dag1/dagRuns/invalid", `{"state": "success"}`, 404, `{"detail":"The DagRun with dag_id: ` + "`test_dag1`" + ` and run_id: ` + "`invalid`" + ` was not found"}`},
		{"PATCH", "/dags/test_dag1/dagRuns/dag_run_1", `{"state": "running"}`, 422, `{"detail":[{"type":"enum","loc":["body","state"],"msg":"Input should be 'queued', 'success' or 'failed'","input":"running","ctx":{"expected":"'queued', 'success' or 'failed'"}}]}`},
		{"DELETE", "/dags/test_dag1/dagRuns/invalid", ``, 404, `{"detail":"The DagRun with dag_id: ` + "`test_dag1`" + ` and run_id: ` + "`invalid`" + ` was not found"}`},
		{"GET", "/dags/invalid-id/dagRuns/invalid-run-id/upstreamAssetEvents", ``, 404, `{"detail":"The DagRun with dag_id: ` + "`invalid-id`" + ` and run_id: ` + "`invalid-run-id`" + ` was not found"}`},
		{"POST", "/dags/test_dag1/dagRuns/invalid/clear", `{"dry_run": false}`, 404, `{"detail":"The DagRun with dag_id: ` + "`test_dag1`" + ` and run_id: ` + "`invalid`" + ` was not found"}`},
		{"POST", "/dags/test_dag1/dagRuns/dag_run_1/clear", ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"GET", "/dags/test_dag1/dagRuns/does-not-exist/wait?interval=1", ``, 404, `{"detail":"The DagRun with dag_id: ` + "`test_dag1`" + ` and run_id: ` + "`does-not-exist`" + ` was not found"}`},
		{"GET", "/dags/test_dag1/dagRuns/dag_run_1/wait", ``, 422, `{"detail":[{"type":"missing","loc":["query","interval"],"msg":"Field required","input":null}]}`},
		{"GET", "/dags/test_dag1/dagRuns/dag_run_1/wait?interval=100", ``, 200, `{"state": "success"}` + "\n"},
		{"GET", "/dags/test_dag1/dagRuns/dag_run_2/wait?interval=100", ``, 200, `{"state": "failed"}` + "\n"},
		{"GET", "/dags/test_dag1/dagRuns/dag_run_1/wait?interval=1&result=task_1", ``, 200, `{"state": "success", "results": {"task_1": "\"result_1\""}}` + "\n"},
		{"GET", "/dags/test_dag1/dagRuns/dag_run_2/wait?interval=1&result=task_1&result=task_2", ``, 200, `{"state": "failed", "results": {"task_1": ["\"m0\"", "{\"a\": [1, 2.5]}"]}}` + "\n"},
		{"DELETE", "/dags/test_dag1/dagRuns/dag_run_1", ``, 204, ``},
	})
}

// TestAPIv2_AirflowClearDagRun: TestClearDagRun's dry runs
// (test_dag_run.py:1470-1530): the task instances listed, by task_id.
func TestAPIv2_AirflowClearDagRun(t *testing.T) {
	t.Parallel()
	ts := airflowRunsFixture(t)
	for _, tc := range []struct{ run, body, want string }{
		{"dag_run_1", `{"dry_run": true}`, "success success"},
		{"dag_run_1", `{}`, "success success"},
		{"dag_run_2", `{}`, "success failed"},
		{"dag_run_2", `{"only_failed": true}`, "failed"},
	} {
		res := ts.do(t, http.MethodPost, "/api/v2/dags/test_dag1/dagRuns/"+tc.run+"/clear", tc.body)
		var c struct {
			TIs []struct {
				TaskID string `json:"task_id"`
				State  string `json:"state"`
			} `json:"task_instances"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &c); err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, ti := range c.TIs {
			states = append(states, ti.State)
		}
		if res.status != 200 || strings.Join(states, " ") != tc.want || c.Total != len(states) {
			t.Errorf("clear %s %s = %d %s, want %s", tc.run, tc.body, res.status, res.body, tc.want)
		}
	}
	res := ts.do(t, http.MethodPost, "/api/v2/dags/test_dag1/dagRuns/dag_run_1/clear", `{"dry_run": false}`)
	if got := v2JSON(t, res); res.status != 200 || got["state"] != "queued" || got["dag_run_id"] != "dag_run_1" {
		t.Errorf("clear = %d %s", res.status, res.body)
	}
}

// TestAPIv2_AirflowTriggerDagRunErrors: TestTriggerDagRun's refusals
// (test_dag_run.py:1700-1900).
func TestAPIv2_AirflowTriggerDagRunErrors(t *testing.T) {
	t.Parallel()
	ts := airflowRunsFixture(t)
	const now = `"logical_date": "2024-05-01T10:00:00.123456+00:00"`
	one := func(typ, loc, msg, input string) string {
		return `{"detail":[{"type":"` + typ + `","loc":["body"` + loc + `],"msg":"` + msg + `","input":` + input + `}]}`
	}
	runAirflowCases(t, ts, []airflowCase{
		{"POST", "/dags/test_dag1/dagRuns", `{"executiondate": "2020-11-10T08:25:56Z", ` + now + `}`, 422, one("extra_forbidden", `,"executiondate"`, "Extra inputs are not permitted", `"2020-11-10T08:25:56Z"`)},
		{"POST", "/dags/test_dag1/dagRuns", `{"data_interval_start": "2020-11-10T08:25:56", ` + now + `}`, 422, one("timezone_aware", `,"data_interval_start"`, "Input should have timezone info", `"2020-11-10T08:25:56"`)},
		{"POST", "/dags/test_dag1/dagRuns", `{"data_interval_end": "2020-11-10T08:25:56", ` + now + `}`, 422, one("timezone_aware", `,"data_interval_end"`, "Input should have timezone info", `"2020-11-10T08:25:56"`)},
		{"POST", "/dags/test_dag1/dagRuns", `{"dag_run_id": 20, ` + now + `}`, 422, one("string_type", `,"dag_run_id"`, "Input should be a valid string", `20`)},
		{"POST", "/dags/test_dag1/dagRuns", `{"note": 20, ` + now + `}`, 422, one("string_type", `,"note"`, "Input should be a valid string", `20`)},
		{"POST", "/dags/test_dag1/dagRuns", `{"conf": 20, ` + now + `}`, 422, one("dict_type", `,"conf"`, "Input should be a valid dictionary", `20`)},
		{"POST", "/dags/test_dag1/dagRuns", `[]`, 422, one("model_attributes_type", ``, "Input should be a valid dictionary or object to extract fields from", `[]`)},
		{"POST", "/dags/test_dag1/dagRuns", ``, 422, one("missing", ``, "Field required", `null`)},
		{"POST", "/dags/randoms/dagRuns", `{` + now + `}`, 404, `{"detail":"DAG with dag_id: 'randoms' not found"}`},
		{"POST", "/dags/test_dag1/dagRuns", `{"data_interval_start": "2024-02-16T00:00:00+00:00", "data_interval_end": null, ` + now + `}`, 422,
			`{"detail":[{"type":"value_error","loc":["body"],"msg":"Value error, Either both data_interval_start and data_interval_end must be provided or both must be None","input":{"data_interval_start":"2024-02-16T00:00:00+00:00","data_interval_end":null,"logical_date":"2024-05-01T10:00:00.123456+00:00"},"ctx":{"error":{}}}]}`},
		{"POST", "/dags/test_dag1/dagRuns", `{"data_interval_start": null, "data_interval_end": "2024-02-16T00:00:00+00:00", ` + now + `}`, 422,
			`{"detail":[{"type":"value_error","loc":["body"],"msg":"Value error, Either both data_interval_start and data_interval_end must be provided or both must be None","input":{"data_interval_start":null,"data_interval_end":"2024-02-16T00:00:00+00:00","logical_date":"2024-05-01T10:00:00.123456+00:00"},"ctx":{"error":{}}}]}`},
	})
	for _, tc := range []struct {
		path, body string
		status     int
		has        string
	}{
		{"test_dag2", `{"conf": {"validated_number": 5000}, ` + now + `}`, 400, `Invalid input for param validated_number`},
		{"test_dag1", `{"dag_run_id": "dag_run_1", ` + now + `}`, 409, `{"detail":{"reason":"Unique constraint violation","statement":`},
	} {
		res := ts.do(t, http.MethodPost, "/api/v2/dags/"+tc.path+"/dagRuns", tc.body)
		if res.status != tc.status || !strings.Contains(res.body, tc.has) {
			t.Errorf("trigger %s %s = %d %s, want %d with %s", tc.path, tc.body, res.status, res.body, tc.status, tc.has)
		}
	}
	// The 409's detail holds reason, statement, orig_error and message,
	// in that order.
	res := ts.do(t, http.MethodPost, "/api/v2/dags/test_dag1/dagRuns", `{"dag_run_id": "dag_run_1", `+now+`}`)
	var conflict struct {
		Detail map[string]json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal([]byte(res.body), &conflict); err != nil {
		t.Fatal(err)
	}
	at := -1
	for _, k := range []string{"reason", "statement", "orig_error", "message"} {
		i := strings.Index(res.body, `"`+k+`":`)
		if i <= at {
			t.Errorf("409 detail %s: %q out of order", res.body, k)
		}
		at = i
	}
	if len(conflict.Detail) != 4 {
		t.Errorf("409 detail = %s, want 4 keys", res.body)
	}
	// A second run at a logical date taken: 409.
	v2Trigger(t, ts, "test_dag1", `{"dag_run_id": "random_1", "note": "n", "logical_date": "2024-05-01T10:00:00Z"}`)
	if res := ts.do(t, http.MethodPost, "/api/v2/dags/test_dag1/dagRuns", `{"dag_run_id": "random_2", "note": "n", "logical_date": "2024-05-01T10:00:00Z"}`); res.status != 409 {
		t.Errorf("duplicate logical date = %d %s", res.status, res.body)
	}
}
