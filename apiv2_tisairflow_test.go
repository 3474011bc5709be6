package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Airflow 3.2's test_task_instances.py against the state its
// create_task_instances builds (c57fba0e airflow-core/tests/unit/
// api_fastapi/core_api/routes/public/test_task_instances.py:99-173): a
// run TEST_DAG_RUN_ID of a DAG, its task instances set as a case says.

// tiSpec is one task instance a case sets: its task, state and, for a
// mapped one, its map indexes.
type tiSpec struct {
	task    string
	state   TaskState
	indexes []int
}

// airflowTIFixture triggers TEST_DAG_RUN_ID of each DAG and sets the
// task instances the specs name (the others keep no state).
func airflowTIFixture(t *testing.T, dagIDs []string, specs ...tiSpec) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3, withExamplesOnly(dagIDs...))
	for _, dagID := range dagIDs {
		v2Trigger(t, ts, dagID, `{"dag_run_id": "TEST_DAG_RUN_ID", "logical_date": "2024-01-01T00:00:00+00:00"}`)
		err := ts.store.update(func(txn *memdb.Txn) error {
			row, err := runTasksTxn(txn, dagID, "TEST_DAG_RUN_ID")
			if err != nil {
				return err
			}
			var tis []*TaskInstance
			for _, s := range specs {
				for _, ti := range row.TIs {
					if ti.TaskID != s.task {
						continue
					}
					if s.indexes == nil {
						c := *ti
						c.State = s.state
						tis = append(tis, &c)
						continue
					}
					for _, i := range s.indexes {
						c := *ti
						c.State, c.MapIndex = s.state, i
						tis = append(tis, &c)
					}
				}
			}
			return putTaskInstancesTxn(txn, tis...)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

// TestAPIv2_AirflowBulkTaskInstances: TestBulkTaskInstances
// (test_task_instances.py:5414-6014), each case on a fresh fixture. The
// test compares only each action's keys (sorted() of a dict); the
// answers here are those of the service's code (c57fba0e
// services/public/task_instances.py:310-410): an update entity without
// dag_id and dag_run_id is looked up under (None, None, ...), so it
// updates nothing and reports no success, and an entity without
// map_index that finds no task instance is "No task instances found".
func TestAPIv2_AirflowBulkTaskInstances(t *testing.T) {
	t.Parallel()
	const (
		dag  = "example_python_operator"
		task = "print_the_context"
		bash = "example_bash_operator"
		url  = "/dags/" + dag + "/dagRuns/TEST_DAG_RUN_ID/taskInstances"
		wild = "/dags/~/dagRuns/~/taskInstances"
		ok   = `"example_python_operator.TEST_DAG_RUN_ID.print_the_context[-1]"`
		upd  = `"new_state": "failed", "note": "test", "include_upstream": true, "include_downstream": true, "include_future": true, "include_past": true`
	)
	py := []string{dag}
	for _, tc := range []struct {
		name string
		dags []string
		tis  []tiSpec
		path string
		body string
		want string
	}{
		{"delete-success", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": ["` + task + `"]}]}`,
			`{"delete":{"success":[` + ok + `],"errors":[]}}`},
		{"delete-with-entity-success", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": [{"task_id": "` + task + `", "map_index": -1}]}]}`,
			`{"delete":{"success":[` + ok + `],"errors":[]}}`},
		{"delete-skip", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": ["non_existent_task"], "action_on_non_existence": "skip"}]}`,
			`{"delete":{"success":[],"errors":[]}}`},
		{"delete-with-entity-skip", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": [{"task_id": "non_existent_task", "map_index": -1}], "action_on_non_existence": "skip"}]}`,
			`{"delete":{"success":[],"errors":[]}}`},
		{"delete-failure", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": ["non_existent_task"]}]}`,
			`{"delete":{"success":[],"errors":[{"error":"No task instances found for dag_id: example_python_operator, run_id: TEST_DAG_RUN_ID, task_id: non_existent_task","status_code":404}]}}`},
		{"delete-with-entity-failure", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": [{"task_id": "non_existent_task", "map_index": -1}]}]}`,
			`{"delete":{"success":[],"errors":[{"error":"The task instances with these identifiers: [{'dag_id': 'example_python_operator', 'dag_run_id': 'TEST_DAG_RUN_ID', 'task_id': 'non_existent_task', 'map_index': -1}] were not found","status_code":404}]}}`},
		{"delete-all-map-indexes", py, []tiSpec{{task, TaskSuccess, []int{0, 1, 2}}}, url, `{"actions": [{"action": "delete", "entities": [{"task_id": "` + task + `", "map_index": null}]}]}`,
			`{"delete":{"success":["example_python_operator.TEST_DAG_RUN_ID.print_the_context[0]","example_python_operator.TEST_DAG_RUN_ID.print_the_context[1]","example_python_operator.TEST_DAG_RUN_ID.print_the_context[2]"],"errors":[]}}`},
		{"mixed-string-and-object", py, []tiSpec{{task, TaskSuccess, nil}, {"log_sql_query", TaskSuccess, nil}}, url, `{"actions": [{"action": "delete", "entities": ["` + task + `", {"task_id": "log_sql_query", "map_index": -1}]}]}`,
			`{"delete":{"success":[` + ok + `,"example_python_operator.TEST_DAG_RUN_ID.log_sql_query[-1]"],"errors":[]}}`},
		{"update-success", py, []tiSpec{{task, TaskRunning, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "` + task + `", ` + upd + `}]}]}`,
			`{"update":{"success":[],"errors":[]}}`},
		{"update-skip", py, []tiSpec{{task, TaskRunning, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "non_existent_task", ` + upd + `}], "action_on_non_existence": "skip"}]}`,
			`{"update":{"success":[],"errors":[]}}`},
		{"update-success-mapped-task", py, []tiSpec{{task, TaskRunning, []int{100}}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "` + task + `", ` + upd + `, "map_index": 100}]}]}`,
			`{"update":{"success":[],"errors":[]}}`},
		{"update-failure", py, []tiSpec{{task, TaskRunning, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "non_existent_task", ` + upd + `}]}]}`,
			`{"update":{"success":[],"errors":[{"error":"No task instances found for dag_id: example_python_operator, run_id: TEST_DAG_RUN_ID, task_id: non_existent_task","status_code":404}]}}`},
		{"update-failure-mapped-task", py, []tiSpec{{task, TaskRunning, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "` + task + `", ` + upd + `, "map_index": -100}]}]}`,
			`{"update":{"success":[],"errors":[{"error":"The task instances with these identifiers: [{'dag_id': 'example_python_operator', 'dag_run_id': 'TEST_DAG_RUN_ID', 'task_id': 'print_the_context', 'map_index': -100}] were not found","status_code":404}]}}`},
		{"update-failure-mapped-task-with-skip", py, []tiSpec{{task, TaskRunning, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "` + task + `", ` + upd + `, "map_index": -100}], "action_on_non_existence": "skip"}]}`,
			`{"update":{"success":[],"errors":[]}}`},
		{"update-delete-success", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "update", "entities": [{"task_id": "non_existent_task", ` + upd + `}]},` +
			`{"action": "update", "entities": [{"task_id": "` + task + `", ` + upd + `}]}, {"action": "delete", "entities": ["` + task + `"]}, {"action": "delete", "entities": ["non_existent_task"]}]}`,
			`{"update":{"success":[],"errors":[{"error":"No task instances found for dag_id: example_python_operator, run_id: TEST_DAG_RUN_ID, task_id: non_existent_task","status_code":404}]},` +
				`"delete":{"success":[` + ok + `],"errors":[{"error":"No task instances found for dag_id: example_python_operator, run_id: TEST_DAG_RUN_ID, task_id: non_existent_task","status_code":404}]}}`},
		{"create-failure", py, []tiSpec{{task, TaskSuccess, nil}}, url, `{"actions": [{"action": "create", "entities": []}]}`,
			`{"create":{"success":[],"errors":[{"error":"Task instances bulk create is not supported","status_code":405}]}}`},
		{"wildcard-delete-across-dags", []string{bash, dag}, []tiSpec{{"also_run_this", TaskSuccess, nil}, {task, TaskSuccess, nil}}, wild,
			`{"actions": [{"action": "delete", "entities": [{"dag_id": "` + bash + `", "dag_run_id": "TEST_DAG_RUN_ID", "task_id": "also_run_this"}, {"dag_id": "` + dag + `", "dag_run_id": "TEST_DAG_RUN_ID", "task_id": "` + task + `"}]}]}`,
			`{"delete":{"success":["example_bash_operator.TEST_DAG_RUN_ID.also_run_this[-1]",` + ok + `],"errors":[]}}`},
		{"wildcard-update-across-dags", []string{bash, dag}, []tiSpec{{"also_run_this", TaskRunning, nil}, {task, TaskRunning, nil}}, wild,
			`{"actions": [{"action": "update", "entities": [{"dag_id": "` + bash + `", "dag_run_id": "TEST_DAG_RUN_ID", "task_id": "also_run_this", "new_state": "success"}, {"dag_id": "` + dag + `", "dag_run_id": "TEST_DAG_RUN_ID", "task_id": "` + task + `", "new_state": "success"}]}]}`,
			`{"update":{"success":["example_bash_operator.TEST_DAG_RUN_ID.also_run_this[-1]",` + ok + `],"errors":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := airflowTIFixture(t, tc.dags, tc.tis...)
			res := ts.do(t, http.MethodPatch, "/api/v2"+tc.path, tc.body)
			if want := bulkShape(t, tc.want); res.status != 200 || res.body != want {
				t.Errorf("bulk = %d %s\nwant 200 %s", res.status, res.body, want)
			}
		})
	}
	ts := airflowTIFixture(t, py)
	if res := ts.do(t, http.MethodPatch, "/api/v2"+url, `{}`); res.status != 422 {
		t.Errorf("bulk {} = %d %s, want 422", res.status, res.body)
	}
}

// bulkShape is a BulkResponse with the actions the want names: every
// field of the model, null when no action of its kind came.
func bulkShape(t *testing.T, want string) string {
	t.Helper()
	var parts map[string]json.RawMessage
	if err := json.Unmarshal([]byte(want), &parts); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	out := []string{}
	for _, k := range []string{"create", "update", "delete"} {
		v, ok := parts[k]
		if !ok {
			v = json.RawMessage("null")
		}
		out = append(out, `"`+k+`":`+string(v))
	}
	return "{" + strings.Join(out, ",") + "}"
}

// TestAPIv2_AirflowPatchTaskInstanceDryRun: TestPatchTaskInstance's and
// TestPatchTaskInstanceDryRun's answers that need no mock
// (test_task_instances.py:4274-4370, 4920-5275).
func TestAPIv2_AirflowPatchTaskInstanceDryRun(t *testing.T) {
	t.Parallel()
	const (
		dag  = "example_python_operator"
		url  = "/dags/" + dag + "/dagRuns/TEST_DAG_RUN_ID/taskInstances/print_the_context"
		none = "The Task Instance with dag_id: `example_python_operator`, run_id: `TEST_DAG_RUN_ID`, task_id: `print_the_context` and map_index: `%s` was not found"
	)
	notFound := func(mapIndex string) string {
		return `{"detail":["` + strings.Replace(none, "%s", mapIndex, 1) + `"]}`
	}
	invalid := func(state string) string {
		return `{"detail":[{"type":"value_error","loc":["body","new_state"],"msg":"Value error, '` + state + `' is not one of ['success', 'failed', 'skipped']","input":"` + state + `","ctx":{"error":{}}}]}`
	}
	// No run at all: the 404 names the map_index asked (None without one).
	bare := newTestServer(t, edition3, withExamplesOnly(dag))
	runAirflowCases(t, bare, []airflowCase{
		{"PATCH", url, `{"new_state": "failed"}`, 404, notFound("None")},
		{"PATCH", url + "/dry_run?map_index=-1", `{"new_state": "failed"}`, 404, notFound("-1")},
		{"PATCH", url + "/dry_run", `{"new_state": "failed"}`, 404, notFound("None")},
		{"PATCH", "/dags/non-existent-dag/dagRuns/TEST_DAG_RUN_ID/taskInstances/print_the_context", `{"new_state": "failed"}`, 404, "{\"detail\":\"The Dag with ID: `non-existent-dag` was not found\"}"},
		{"PATCH", "/dags/" + dag + "/dagRuns/TEST_DAG_RUN_ID/taskInstances/non_existent_task", `{"new_state": "failed"}`, 404, `{"detail":"Task 'non_existent_task' not found in DAG 'example_python_operator'"}`},
		{"PATCH", "/dags/" + dag + "/dagRuns/TEST_DAG_RUN_ID/taskInstances/non_existent_task/dry_run", `{"new_state": "failed"}`, 404, `{"detail":"Task 'non_existent_task' not found in DAG 'example_python_operator'"}`},
	})
	ts := airflowTIFixture(t, []string{dag}, tiSpec{"print_the_context", TaskRunning, nil})
	runAirflowCases(t, ts, []airflowCase{
		{"PATCH", url, `{"new_state": "failede"}`, 422, invalid("failede")},
		{"PATCH", url, `{"new_state": "queued"}`, 422, invalid("queued")},
		{"PATCH", url + "/dry_run", `{"new_state": "failede"}`, 422, invalid("failede")},
		{"PATCH", url + "/dry_run", `{"new_state": "queued"}`, 422, invalid("queued")},
		{"PATCH", url + "/dry_run?update_mask=new_state", `{"new_state": null}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","new_state"],"msg":"Value error, 'new_state' should not be empty","input":null,"ctx":{"error":{}}}]}`},
	})
	before := ts.do(t, http.MethodGet, "/api/v2"+url, "").body
	for _, body := range []string{`{"new_state": "success"}`, `{"note": "something"}`, `{"new_state": "success", "note": "something"}`, `{"new_state": "failed"}`} {
		res := ts.do(t, http.MethodPatch, "/api/v2"+url+"/dry_run", body)
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
		if res.status != 200 || c.Total != 1 || len(c.TIs) != 1 || c.TIs[0].TaskID != "print_the_context" || c.TIs[0].State != "running" {
			t.Errorf("dry run %s = %d %s", body, res.status, res.body)
		}
	}
	if after := ts.do(t, http.MethodGet, "/api/v2"+url, "").body; after != before {
		t.Errorf("dry runs changed the task instance:\n%s\n%s", before, after)
	}
	// Mapped: a summary dry run lists each index; one index by its path.
	mapped := airflowTIFixture(t, []string{dag}, tiSpec{"print_the_context", TaskRunning, []int{1, 2, 3}})
	res := mapped.do(t, http.MethodPatch, "/api/v2"+url+"/dry_run", `{"new_state": "failed"}`)
	if got := v2JSON(t, res); res.status != 200 || got["total_entries"] != 3.0 {
		t.Errorf("mapped summary dry run = %d %s", res.status, res.body)
	}
	res = mapped.do(t, http.MethodPatch, "/api/v2"+url+"/1/dry_run", `{"new_state": "failed"}`)
	if got := v2JSON(t, res); res.status != 200 || got["total_entries"] != 1.0 {
		t.Errorf("mapped dry run of index 1 = %d %s", res.status, res.body)
	}
	// Same state: set_task_instance_state changes nothing, the list is empty.
	same := airflowTIFixture(t, []string{dag}, tiSpec{"print_the_context", TaskSuccess, nil})
	if res := same.do(t, http.MethodPatch, "/api/v2"+url+"/dry_run", `{"new_state": "success"}`); res.status != 200 || res.body != `{"task_instances":[],"total_entries":0}` {
		t.Errorf("dry run to the same state = %d %s", res.status, res.body)
	}
}

// airflowMappedFixture is TestGetMappedTaskInstances' DAG mapped_tis
// (test_task_instances.py:660-735): op1 and task_2 mapped, run
// run_mapped_tis at 2020-01-01 with task_2's instances map_index 0 on,
// success, failed, then running, as many as given, each started at
// 2020-01-01 and given ids in map_index order (Airflow's UUID7 ids).
func airflowMappedFixture(t *testing.T, success, failed, running int) *testServer {
	t.Helper()
	fsys := fstest.MapFS{"m.yaml": {Data: []byte(`
dag_id: mapped_tis
schedule_interval: null
start_date: 2020-01-01T00:00:00+00:00
tasks:
  - {task_id: op1, operator: PythonOperator, downstream: [task_2]}
  - {task_id: task_2, operator: PythonOperator}
`)}}
	dags, err := loadDAGs(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	mapTask(t, dags, "mapped_tis", "task_2", -1)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = dags }))
	v2Trigger(t, ts, "mapped_tis", `{"dag_run_id": "run_mapped_tis", "logical_date": "2020-01-01T00:00:00+00:00"}`)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	err = ts.store.update(func(txn *memdb.Txn) error {
		row, err := runTasksTxn(txn, "mapped_tis", "run_mapped_tis")
		if err != nil {
			return err
		}
		var base *TaskInstance
		for _, ti := range row.TIs {
			if ti.TaskID == "task_2" {
				base = ti
			}
		}
		n := success + failed + running
		ids := make([]string, n)
		taskInstanceIDs.fill(ids)
		var tis []*TaskInstance
		for i := range n {
			c := *base
			c.MapIndex, c.ID, c.StartDate = i, ids[i], &start
			switch {
			case i < success:
				c.State = TaskSuccess
			case i < success+failed:
				c.State = TaskFailed
			default:
				c.State = TaskRunning
			}
			tis = append(tis, &c)
		}
		return putTaskInstancesTxn(txn, tis...)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestAPIv2_AirflowListMapped: TestGetMappedTaskInstances
// (test_task_instances.py:804-985).
func TestAPIv2_AirflowListMapped(t *testing.T) {
	t.Parallel()
	const list = "/dags/mapped_tis/dagRuns/run_mapped_tis/taskInstances/task_2/listMapped"
	indexes := func(t *testing.T, body string) ([]int, int) {
		t.Helper()
		var c struct {
			TIs []struct {
				MapIndex int `json:"map_index"`
			} `json:"task_instances"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatal(err)
		}
		out := []int{}
		for _, ti := range c.TIs {
			out = append(out, ti.MapIndex)
		}
		return out, c.Total
	}
	span := func(from, to, step int) []int {
		var out []int
		for i := from; i != to; i += step {
			out = append(out, i)
		}
		return out
	}
	bare := newTestServer(t, edition3, withExamplesOnly())
	if res := bare.do(t, http.MethodGet, "/api/v2"+list, ""); res.status != 404 || res.body != "{\"detail\":\"The Dag with ID: `mapped_tis` was not found\"}" {
		t.Errorf("listMapped of no DAG = %d %s", res.status, res.body)
	}
	many := airflowMappedFixture(t, 5, 20, 85)
	for _, tc := range []struct {
		query string
		want  []int
	}{
		{"", span(0, 50, 1)},
		{"?offset=4&limit=10", span(4, 14, 1)},
		{"?order_by=map_index&limit=100", span(0, 100, 1)},
		{"?order_by=-map_index&limit=100", span(109, 9, -1)},
		{"?order_by=state&limit=108", span(5, 105, 1)},
		{"?order_by=-state&limit=100", append(append(span(4, -1, -1), span(109, 24, -1)...), span(24, 14, -1)...)},
		{"?order_by=logical_date&limit=100", span(0, 100, 1)},
		{"?order_by=-logical_date&limit=100", span(109, 9, -1)},
		{"?order_by=data_interval_start&limit=100", span(0, 100, 1)},
		{"?order_by=-data_interval_start&limit=100", span(109, 9, -1)},
	} {
		res := many.do(t, http.MethodGet, "/api/v2"+list+tc.query, "")
		got, total := indexes(t, res.body)
		if res.status != 200 || total != 110 || !slices.Equal(got, tc.want) {
			t.Errorf("listMapped%s = %d, %d of %d\nwant %v of 110", tc.query, res.status, len(got), total, tc.want)
		}
	}
	three := airflowMappedFixture(t, 3, 0, 0)
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"?start_date_gte=2020-01-01T00:00:00%2B00:00", 3}, {"?start_date_gte=2020-01-02T00:00:00%2B00:00", 0},
		{"?logical_date_gte=2020-01-01T00:00:00%2B00:00", 3}, {"?logical_date_gte=2020-01-02T00:00:00%2B00:00", 0},
		{"?state=success", 3}, {"?state=running", 0}, {"?pool=default_pool", 3}, {"?pool=test_pool", 0},
		{"?queue=default", 3}, {"?queue=test_queue", 0}, {"?map_index=0&map_index=1", 2}, {"?map_index=5", 0},
	} {
		res := three.do(t, http.MethodGet, "/api/v2"+list+tc.query, "")
		got, total := indexes(t, res.body)
		if res.status != 200 || total != tc.want || len(got) != tc.want {
			t.Errorf("listMapped%s = %d %s, want %d", tc.query, res.status, res.body, tc.want)
		}
	}
	if res := three.do(t, http.MethodGet, "/api/v2/dags/mapped_tis/dagRuns/run_mapped_tis/taskInstances/nonexistent_task/listMapped", ""); res.status != 404 || res.body != `{"detail":"Task id nonexistent_task not found"}` {
		t.Errorf("listMapped of no task = %d %s", res.status, res.body)
	}
}

// TestAPIv2_AirflowTaskDependencies: TestGetTaskDependencies
// (test_task_instances.py:1757-1841): print_the_context of a running run
// dated 2020-01-01, before the task's and the DAG's start date
// (2021-01-01), in state scheduled or none; a running one has none.
func TestAPIv2_AirflowTaskDependencies(t *testing.T) {
	t.Parallel()
	const (
		dag   = "example_python_operator"
		deps  = "/api/v2/dags/" + dag + "/dagRuns/TEST_DAG_RUN_ID/taskInstances/print_the_context/dependencies"
		dates = `{"name":"Logical Date","reason":"The logical date is 2020-01-01T00:00:00+00:00 but this is before the task's start date 2021-01-01T00:00:00+00:00."},` +
			`{"name":"Logical Date","reason":"The logical date is 2020-01-01T00:00:00+00:00 but this is before the task's DAG's start date 2021-01-01T00:00:00+00:00."}`
	)
	for _, tc := range []struct {
		state TaskState
		want  string
	}{
		{TaskRunning, `{"dependencies":[]}`},
		{TaskScheduled, `{"dependencies":[` + dates + `]}`},
		{TaskNone, `{"dependencies":[` + dates + `,{"name":"Task Instance State","reason":"Task is in the 'None' state."}]}`},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			ts := newTestServer(t, edition3, withExamplesOnly(dag))
			v2Trigger(t, ts, dag, `{"dag_run_id": "TEST_DAG_RUN_ID", "logical_date": "2020-01-01T00:00:00+00:00"}`)
			// The run has no task instance (the task starts later, as
			// Airflow's verify_integrity leaves it); the test makes one.
			model, err := ts.store.TaskInstancesOfRun(dag, "TEST_DAG_RUN_ID")
			if err != nil || len(model) != 0 {
				t.Fatalf("task instances of the run: %d %v", len(model), err)
			}
			err = ts.store.update(func(txn *memdb.Txn) error {
				raw, err := txn.First(tableDagRuns, indexID, dag, "TEST_DAG_RUN_ID")
				if err != nil {
					return err
				}
				old := raw.(*DagRun)
				next := *old
				next.State = RunRunning
				if err := putRunTxn(txn, old, &next); err != nil {
					return err
				}
				ids := make([]string, 1)
				taskInstanceIDs.fill(ids)
				ti := &TaskInstance{ID: ids[0], DagID: dag, RunID: "TEST_DAG_RUN_ID", TaskID: "print_the_context", MapIndex: -1,
					ExecutionDate: old.ExecutionDate, State: tc.state, Pool: "default_pool", PoolSlots: 1, Queue: "default",
					Operator: "PythonOperator", DagVersionID: old.DagVersionID}
				return putTaskInstancesTxn(txn, ti)
			})
			if err != nil {
				t.Fatal(err)
			}
			if res := ts.do(t, http.MethodGet, deps, ""); res.status != 200 || res.body != tc.want {
				t.Errorf("dependencies = %d %s\nwant 200 %s", res.status, res.body, tc.want)
			}
		})
	}
}
