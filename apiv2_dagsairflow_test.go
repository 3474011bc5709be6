package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Airflow 3.2's test_dags.py, against the state its setup fixture builds
// (c57fba0e airflow-core/tests/unit/api_fastapi/core_api/routes/public/
// test_dags.py:71-239): test_dag1 (display1, tags example and tag_2, a
// failed run started on its start date), test_dag2 (tag tag_1) and
// test_dag3, stale and paused, owned by test_owner,another_test_owner, on
// a cron schedule, tag tag_1, with a failed run started 2018-01-01 12:00
// and a successful one started 2019-01-01 12:00. A finished run ends when
// it is made (DagRun.set_state, c57fba0e models/dagrun.py:471-540).

const airflowDagsDAG1 = `
dag_id: test_dag1
schedule_interval: null
start_date: 2018-06-15T00:00:00+00:00
doc_md: details
params: {foo: 1}
tags: [example, tag_2]
tasks:
  - {task_id: op1, operator: EmptyOperator}
`

const airflowDagsDAG2 = `
dag_id: test_dag2
schedule_interval: null
start_date: 2021-06-15T00:00:00+00:00
doc_md: details
max_active_tasks: 16
max_active_runs: 16
params: {foo: 1}
tags: [tag_1]
tasks:
  - {task_id: op1, operator: EmptyOperator}
`

const airflowDagsDAG3 = `
dag_id: test_dag3
schedule: "2 2 * * *"
start_date: 2018-01-01T00:00:00+00:00
tags: [tag_1]
tasks:
  - {task_id: op1, operator: EmptyOperator, owner: "test_owner,another_test_owner"}
`

// airflowDagsFixture is the server of test_dags.py's setup; extra adds
// DAGs (the asset-scheduled ones of _create_asset_test_data).
func airflowDagsFixture(t *testing.T, extra ...string) *testServer {
	t.Helper()
	add := func(t *testing.T, s *testSetup) {
		t.Helper()
		for _, y := range append([]string{airflowDagsDAG1, airflowDagsDAG2, airflowDagsDAG3}, extra...) {
			d, err := parseDAGFor([]byte(y), testExamplesReadAt, edition3.rules())
			if err != nil {
				t.Fatal(err)
			}
			d.FilePath = "testdata/" + d.DagID + ".yaml"
			if d.DagID == "test_dag1" {
				d.DisplayName = "display1" // dag_display_name, which only Python files give
			}
			s.opts.DAGs.DAGs = append(s.opts.DAGs.DAGs, d)
		}
	}
	ts := newTestServer(t, edition3, withExamplesOnly(), add)
	at := func(y int, m time.Month, d, h int) *time.Time {
		v := time.Date(y, m, d, h, 0, 0, 0, time.UTC)
		return &v
	}
	now := ts.store.clock()
	for _, r := range []*DagRun{
		{ID: 1, DagID: "test_dag1", RunID: "manual__2018-06-15T00:00:00+00:00", ExecutionDate: *at(2018, 6, 15, 0), State: RunFailed,
			RunType: "manual", StartDate: at(2018, 6, 15, 0), EndDate: &now},
		{ID: 2, DagID: "test_dag3", RunID: "run1", ExecutionDate: *at(2018, 1, 1, 12), State: RunFailed,
			RunType: "scheduled", StartDate: at(2018, 1, 1, 12), EndDate: &now},
		{ID: 3, DagID: "test_dag3", RunID: "run2", ExecutionDate: *at(2019, 1, 1, 12), State: RunSuccess,
			RunType: "manual", StartDate: at(2019, 1, 1, 12), EndDate: &now},
	} {
		if err := ts.store.UpsertDagRun(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.store.SetPaused("test_dag3", true, false); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.ReloadDAGs(DAGFolderChange{Drop: []string{"test_dag3"}, KeepStale: true, Now: now}); err != nil {
		t.Fatal(err)
	}
	return ts
}

// runAirflowDagCases runs rows whose want is "ids:" and the DAG ids and
// total of a DAG collection, or a body exactly.
func runAirflowDagCases(t *testing.T, ts *testServer, cases []airflowCase) {
	t.Helper()
	for _, tc := range cases {
		res := ts.do(t, tc.method, "/api/v2"+tc.path, tc.body)
		got := res.body
		if strings.HasPrefix(tc.want, "ids:") && res.status == http.StatusOK {
			ids, total := v2DagIDs(t, res.body)
			got = "ids:" + strings.Join(append(slices.Clone(ids), "total="+itoa(total)), " ")
		}
		if res.status != tc.status || got != tc.want {
			t.Errorf("%s %s %s\n got %d %s\nwant %d %s", tc.method, tc.path, tc.body, res.status, got, tc.status, tc.want)
		}
	}
}

// TestAPIv2_AirflowGetDags: TestGetDags.test_get_dags and
// test_get_dags_with_nullable_fields (test_dags.py:242-485).
func TestAPIv2_AirflowGetDags(t *testing.T) {
	t.Parallel()
	ts := airflowDagsFixture(t)
	const (
		d1s = "2018-06-15T00:00:00%2B00:00"
		d2s = "2021-06-15T00:00:00%2B00:00"
		d31 = "2018-01-01T12:00:00%2B00:00"
		d32 = "2019-01-01T12:00:00%2B00:00"
	)
	tomorrow := strings.ReplaceAll(ts.store.clock().Add(24*time.Hour).Format(time.RFC3339), "+", "%2B")
	cases := []airflowCase{}
	for _, q := range []struct{ query, want string }{
		{"", "test_dag1 test_dag2 total=2"},
		{"limit=1", "test_dag1 total=2"},
		{"offset=1", "test_dag2 total=2"},
		{"tags=example", "test_dag1 total=1"},
		{"exclude_stale=false", "test_dag1 test_dag2 test_dag3 total=3"},
		{"paused=true&exclude_stale=false", "test_dag3 total=1"},
		{"paused=false", "test_dag1 test_dag2 total=2"},
		{"owners=airflow", "test_dag1 test_dag2 total=2"},
		{"owners=test_owner&exclude_stale=false", "test_dag3 total=1"},
		{"last_dag_run_state=success&exclude_stale=false", "test_dag3 total=1"},
		{"last_dag_run_state=failed&exclude_stale=false", "test_dag1 total=1"},
		{"dag_run_state=failed", "test_dag1 total=1"},
		{"dag_run_state=failed&exclude_stale=false", "test_dag1 total=1"},
		{"dag_run_start_date_gte=" + d32 + "&exclude_stale=false", "test_dag3 total=1"},
		{"dag_run_start_date_gt=" + d31 + "&exclude_stale=false", "test_dag1 test_dag3 total=2"},
		{"dag_run_start_date_gte=" + d1s + "&dag_run_start_date_lte=" + d2s, "test_dag1 total=1"},
		{"dag_run_start_date_gt=" + d1s + "&dag_run_start_date_lt=" + d2s, "total=0"},
		{"dag_run_start_date_gte=2018-06-14T00:00:00%2B00:00&dag_run_start_date_gt=2018-06-14T00:00:00%2B00:00", "test_dag1 total=1"},
		{"dag_run_start_date_gt=" + d1s + "&dag_run_start_date_lte=" + d2s, "total=0"},
		{"dag_run_start_date_lt=" + d2s, "test_dag1 total=1"},
		{"dag_run_start_date_lt=" + d2s + "&dag_run_start_date_lte=" + d32, "test_dag1 total=1"},
		{"dag_run_end_date_lte=" + tomorrow + "&exclude_stale=false", "test_dag1 test_dag3 total=2"},
		{"dag_run_end_date_gte=" + d32 + "&dag_run_end_date_lte=" + tomorrow + "&exclude_stale=false&last_dag_run_state=success", "test_dag3 total=1"},
		{"dag_run_start_date_gte=" + d2s + "&dag_run_end_date_lte=" + tomorrow, "total=0"},
		{"dag_run_start_date_gte=2017-12-31T12:00:00%2B00:00&dag_run_start_date_lte=2018-01-02T12:00:00%2B00:00" +
			"&last_dag_run_state=success&dag_run_state=failed&exclude_stale=false", "total=0"},
		{"order_by=-dag_id", "test_dag2 test_dag1 total=2"},
		{"order_by=-dag_display_name", "test_dag2 test_dag1 total=2"},
		{"order_by=dag_display_name", "test_dag1 test_dag2 total=2"},
		{"dag_id_pattern=1", "test_dag1 total=1"},
		{"dag_id_pattern=1|2", "test_dag1 test_dag2 total=2"},
		{"dag_display_name_pattern=test_dag2", "test_dag2 total=1"},
		{"bundle_name=dags-folder", "test_dag1 test_dag2 total=2"},
		{"bundle_name=wrong_bundle", "total=0"},
		{"bundle_version=1.0.0", "total=0"},
		{"timetable_type=CronTriggerTimetable&exclude_stale=false", "test_dag3 total=1"},
		{"timetable_type=NullTimetable&exclude_stale=false", "test_dag1 test_dag2 total=2"},
		// SQLite's NULL order (test_dags.py:440-485).
		{"order_by=next_dagrun&exclude_stale=false", "test_dag1 test_dag2 test_dag3 total=3"},
		{"order_by=last_run_state&exclude_stale=false", "test_dag2 test_dag1 test_dag3 total=3"},
		{"order_by=-last_run_state&exclude_stale=false", "test_dag3 test_dag1 test_dag2 total=3"},
		{"order_by=last_run_start_date&exclude_stale=false", "test_dag2 test_dag1 test_dag3 total=3"},
		{"order_by=-last_run_start_date&exclude_stale=false", "test_dag3 test_dag1 test_dag2 total=3"},
		{"order_by=next_dagrun&order_by=-dag_display_name&exclude_stale=false", "test_dag2 test_dag1 test_dag3 total=3"},
	} {
		cases = append(cases, airflowCase{"GET", "/dags?" + strings.ReplaceAll(q.query, "|", "%7C"), "", 200, "ids:" + q.want})
	}
	runAirflowDagCases(t, ts, cases)
}

// The asset-scheduled DAGs of _create_asset_test_data (test_dags.py:
// 119-198), each on one named asset.
func airflowAssetDAG(dagID, name, uri string) string {
	return "dag_id: " + dagID + "\nschedule: [{name: " + name + ", uri: \"" + uri + "\"}]\nstart_date: 2024-01-01\n" +
		"tasks:\n  - {task_id: t, operator: EmptyOperator}\n"
}

// TestAPIv2_AirflowGetDagsAssets: test_get_dags's asset filter rows
// (test_dags.py:412-422), with the asset DAGs added.
func TestAPIv2_AirflowGetDagsAssets(t *testing.T) {
	t.Parallel()
	ts := airflowDagsFixture(t, airflowAssetDAG("test_asset_scheduled_dag", "scheduled_asset", "test://scheduled_asset"),
		airflowAssetDAG("test_asset_dep_dag", "test_asset_1", "test://asset1"),
		airflowAssetDAG("test_asset_dep_dag2", "dataset_asset", "s3://bucket/dataset"))
	cases := []airflowCase{}
	for _, q := range []struct{ query, want string }{
		{"has_asset_schedule=true", "test_asset_dep_dag test_asset_dep_dag2 test_asset_scheduled_dag total=3"},
		{"has_asset_schedule=false", "test_dag1 test_dag2 total=2"},
		{"asset_dependency=test_asset", "test_asset_dep_dag total=1"},
		{"asset_dependency=dataset", "test_asset_dep_dag2 total=1"},
		{"asset_dependency=bucket", "test_asset_dep_dag2 total=1"},
		{"asset_dependency=s3://", "test_asset_dep_dag2 total=1"},
		{"asset_dependency=nonexistent", "total=0"},
		{"has_asset_schedule=true&asset_dependency=test_asset", "test_asset_dep_dag total=1"},
		{"has_asset_schedule=false&asset_dependency=test_asset", "total=0"},
	} {
		cases = append(cases, airflowCase{"GET", "/dags?" + q.query, "", 200, "ids:" + q.want})
	}
	runAirflowDagCases(t, ts, cases)
}

// TestAPIv2_AirflowPatchAndFavoriteDags: TestPatchDag, TestPatchDags,
// TestFavoriteDag, TestUnfavoriteDag and the favorite filters of
// TestGetDags (test_dags.py:500-925), in order on one server.
func TestAPIv2_AirflowPatchAndFavoriteDags(t *testing.T) {
	t.Parallel()
	ts := airflowDagsFixture(t)
	const onlyPaused = `{"detail":"Only ` + "`is_paused`" + ` field can be updated through the REST API"}`
	runAirflowDagCases(t, ts, []airflowCase{
		{"PATCH", "/dags/fake_dag_id", `{"is_paused": true}`, 404, `{"detail":"Dag with id: fake_dag_id was not found"}`},
		{"PATCH", "/dags/test_dag1?update_mask=field_1&update_mask=is_paused", `{"is_paused": true}`, 400, onlyPaused},
		{"PATCH", "/dags?update_mask=field_1&update_mask=is_paused", `{"is_paused": true}`, 400, onlyPaused},
		{"PATCH", "/dags?exclude_stale=false", `{"is_paused": true}`, 200, "ids:total=0"},
		{"PATCH", "/dags?exclude_stale=false&dag_id_pattern=~", `{"is_paused": true}`, 200, "ids:test_dag1 test_dag2 test_dag3 total=3"},
		{"GET", "/dags?paused=true&exclude_stale=false", "", 200, "ids:test_dag1 test_dag2 test_dag3 total=3"},
		{"PATCH", "/dags?exclude_stale=false&dag_id_pattern=~", `{"is_paused": false}`, 200, "ids:test_dag1 test_dag2 test_dag3 total=3"},
		{"GET", "/dags?paused=true&exclude_stale=false", "", 200, "ids:total=0"},
		{"PATCH", "/dags?dag_id_pattern=~", `{"is_paused": true}`, 200, "ids:test_dag1 test_dag2 total=2"},
		{"PATCH", "/dags?dag_id_pattern=dag1", `{"is_paused": false}`, 200, "ids:test_dag1 total=1"},
		{"GET", "/dags?paused=true", "", 200, "ids:test_dag2 total=1"},
		{"POST", "/dags/fake_dag_id/favorite", "", 404, `{"detail":"DAG with id 'fake_dag_id' not found"}`},
		{"POST", "/dags/fake_dag_id/unfavorite", "", 404, `{"detail":"DAG with id 'fake_dag_id' not found"}`},
		{"GET", "/dags?is_favorite=true", "", 200, "ids:total=0"},
		{"POST", "/dags/test_dag1/unfavorite", "", 409, `{"detail":"DAG is not marked as favorite"}`},
		{"POST", "/dags/test_dag1/favorite", "", 204, ""},
		{"GET", "/dags?is_favorite=true", "", 200, "ids:test_dag1 total=1"},
		{"GET", "/dags?is_favorite=false", "", 200, "ids:test_dag2 total=1"},
		{"POST", "/dags/test_dag2/favorite", "", 204, ""},
		{"GET", "/dags?is_favorite=true", "", 200, "ids:test_dag1 test_dag2 total=2"},
		{"POST", "/dags/test_dag2/unfavorite", "", 204, ""},
		{"GET", "/dags?is_favorite=true", "", 200, "ids:test_dag1 total=1"},
	})
}

// TestAPIv2_AirflowGetAndDeleteDag: TestGetDag, TestDagDetails'
// is_favorite and active_runs_count, TestDeleteDAG (test_dags.py:
// 925-1370): test_dag4 has no run, test_dag5 a running task.
func TestAPIv2_AirflowGetAndDeleteDag(t *testing.T) {
	t.Parallel()
	dag := func(id string) string {
		return "dag_id: " + id + "\nstart_date: 2024-10-10T00:00:00+00:00\ntags: [zebra, alpha, mike, bravo]\n" +
			"tasks:\n  - {task_id: dummy, operator: EmptyOperator}\n"
	}
	ts := airflowDagsFixture(t, dag("test_dag4"), dag("test_dag5"))
	if err := ts.store.SetPaused("test_dag5", false, false); err != nil {
		t.Fatal(err)
	}
	runID := v2Trigger(t, ts, "test_dag5", `{"logical_date": null}`)
	err := ts.store.update(func(txn *memdb.Txn) error {
		run, err := runByRunIDTxn(txn, "test_dag5", runID)
		if err != nil {
			return err
		}
		tis := []*TaskInstance{{DagID: run.DagID, RunID: run.RunID, TaskID: "dummy", MapIndex: -1,
			ExecutionDate: run.ExecutionDate, State: TaskRunning}}
		return putRunTaskInstancesTxn(txn, run, tis...)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, key, want string }{
		{"/dags/test_dag4", "tags", `[{"name":"alpha","dag_id":"test_dag4","dag_display_name":"test_dag4"},` +
			`{"name":"bravo","dag_id":"test_dag4","dag_display_name":"test_dag4"},{"name":"mike","dag_id":"test_dag4","dag_display_name":"test_dag4"},` +
			`{"name":"zebra","dag_id":"test_dag4","dag_display_name":"test_dag4"}]`},
		{"/dags/test_dag1", "tags", `[{"name":"example","dag_id":"test_dag1","dag_display_name":"display1"},` +
			`{"name":"tag_2","dag_id":"test_dag1","dag_display_name":"display1"}]`},
		{"/dags/test_dag5/details", "active_runs_count", "1"},
		{"/dags/test_dag1/details", "active_runs_count", "0"},
		{"/dags/test_dag1/details", "is_favorite", "false"},
		{"/dags/test_dag2/details", "timetable_description", `"Never, external triggers only"`},
		{"/dags/test_dag2/details", "owners", `["airflow"]`},
	} {
		if got := string(ts.v2JSON(t, tc.path)[tc.key]); got != tc.want {
			t.Errorf("%s %s = %s, want %s", tc.path, tc.key, got, tc.want)
		}
	}
	runAirflowDagCases(t, ts, []airflowCase{
		{"GET", "/dags/fake_dag_id", "", 404, "{\"detail\":\"The Dag with ID: `fake_dag_id` was not found\"}"},
		{"GET", "/dags/fake_dag_id/details", "", 404, "{\"detail\":\"The Dag with ID: `fake_dag_id` was not found\"}"},
		{"POST", "/dags/test_dag2/favorite", "", 204, ""},
		{"DELETE", "/dags/test_nonexistent_dag_id", "", 404, `{"detail":"Dag with id: test_nonexistent_dag_id was not found"}`},
		{"DELETE", "/dags/test_dag4", "", 204, ""},
		{"GET", "/dags/test_dag4/details", "", 404, "{\"detail\":\"The Dag with ID: `test_dag4` was not found\"}"},
		{"DELETE", "/dags/test_dag5", "", 409, `{"detail":"Task instances of dag with id: 'test_dag5' are still running"}`},
	})
	if got := string(ts.v2JSON(t, "/dags/test_dag2/details")["is_favorite"]); got != "true" {
		t.Errorf("test_dag2's is_favorite = %s, want true", got)
	}
	if res := ts.do(t, "GET", "/api/v2/dags/test_dag5/details", ""); res.status != 200 {
		t.Errorf("test_dag5's details after a refused delete = %d %s", res.status, res.body)
	}
}

// TestAPIv2_AirflowGetDagsOrderWithoutColumn: get_dags' SortParam allows
// "state" and "start_date", which DagModel has not: getattr's
// AttributeError is a 500 (c57fba0e routes/public/dags.py:120-127,
// common/parameters.py:308-315), after an unknown key's 400 when that
// comes first.
func TestAPIv2_AirflowGetDagsOrderWithoutColumn(t *testing.T) {
	t.Parallel()
	ts := airflowDagsFixture(t)
	const disallowed = `{"detail":"Ordering with 'foo' is disallowed or the attribute does not exist on the model"}`
	runAirflowDagCases(t, ts, []airflowCase{
		{"GET", "/dags?order_by=state", "", 500, "Internal Server Error"},
		{"GET", "/dags?order_by=-start_date", "", 500, "Internal Server Error"},
		{"GET", "/dags?order_by=dag_id&order_by=state&order_by=foo", "", 500, "Internal Server Error"},
		{"GET", "/dags?order_by=foo&order_by=state", "", 400, disallowed},
		{"GET", "/dags?order_by=last_run_state&order_by=-dag_id", "", 200, "ids:test_dag2 test_dag1 total=2"},
	})
}
