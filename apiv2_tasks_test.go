package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestAPIv2_GetTask checks TaskResponse field by field for a BashOperator
// of Airflow 3.2.1's standard provider (test_tasks.py TestGetTask's
// expected body, on example_bash_operator).
func TestAPIv2_GetTask(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	want := `{"task_id":"runme_0","task_display_name":"runme_0","owner":"airflow","start_date":"2021-01-01T00:00:00Z","end_date":null,` +
		`"trigger_rule":"all_success","depends_on_past":false,"wait_for_downstream":false,"retries":0.0,"queue":"default","pool":"default_pool",` +
		`"pool_slots":1.0,"execution_timeout":null,"retry_delay":{"__type":"TimeDelta","days":0,"seconds":300,"microseconds":0},` +
		`"retry_exponential_backoff":0.0,"priority_weight":1.0,"weight_rule":"downstream","ui_color":"#f0ede4","ui_fgcolor":"#000",` +
		`"template_fields":["bash_command","env","cwd"],"downstream_task_ids":["run_after_loop"],"doc_md":null,"operator_name":"BashOperator",` +
		`"params":{"example_key":{"value":"example_value","schema":{},"description":null,"source":"dag"}},` +
		`"class_ref":{"module_path":"airflow.providers.standard.operators.bash","class_name":"BashOperator"},"is_mapped":false,"extra_links":[]}`
	if res := ts.do(t, http.MethodGet, "/api/v2/dags/example_bash_operator/tasks/runme_0", ""); res.status != 200 || res.body != want {
		t.Errorf("task = %d\n%s\nwant\n%s", res.status, res.body, want)
	}
	for _, tc := range []struct {
		path, module, class, operatorName string
	}{
		{"/api/v2/dags/example_bash_operator/tasks/run_this_last", "airflow.providers.standard.operators.empty", "EmptyOperator", "EmptyOperator"},
		{"/api/v2/dags/example_python_operator/tasks/print_the_context", "airflow.providers.standard.operators.python", "PythonOperator", "PythonOperator"},
		{"/api/v2/dags/example_python_operator/tasks/virtualenv_python", "airflow.providers.standard.operators.python", "PythonVirtualenvOperator", "PythonVirtualenvOperator"},
		{"/api/v2/dags/example_trigger_target_dag/tasks/run_this", "airflow.providers.standard.decorators.python", "_PythonDecoratedOperator", "@task"},
	} {
		res := ts.do(t, http.MethodGet, tc.path, "")
		var got struct {
			ClassRef     v2ClassRef `json:"class_ref"`
			OperatorName string     `json:"operator_name"`
		}
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != 200 {
			t.Fatalf("%s = %d %s", tc.path, res.status, res.body)
		}
		if got.ClassRef != (v2ClassRef{tc.module, tc.class}) || got.OperatorName != tc.operatorName {
			t.Errorf("%s: class_ref %+v operator_name %q, want %s.%s %q", tc.path, got.ClassRef, got.OperatorName, tc.module, tc.class, tc.operatorName)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/api/v2/dags/nope/tasks/x", "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
		{"/api/v2/dags/tutorial/tasks/nope", `{"detail":"Task with id nope was not found"}`},
		{"/api/v2/dags/nope/tasks", "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
	} {
		if res := ts.do(t, http.MethodGet, tc.path, ""); res.status != 404 || res.body != tc.want {
			t.Errorf("%s = %d %s, want 404 %s", tc.path, res.status, res.body, tc.want)
		}
	}
}

// TestAPIv2_GetTasks reproduces test_tasks.py TestGetTasks: ordered by
// task_id, by another attribute or descending; an attribute operators
// lack is a 400 with the AttributeError's text.
func TestAPIv2_GetTasks(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	ids := func(t *testing.T, body string) ([]string, int) {
		t.Helper()
		var c struct {
			Tasks []struct {
				TaskID string `json:"task_id"`
			} `json:"tasks"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		var out []string
		for _, task := range c.Tasks {
			out = append(out, task.TaskID)
		}
		return out, c.Total
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"print_date", "sleep", "templated"}},
		{"?order_by=-task_id", []string{"templated", "sleep", "print_date"}},
		// Equal retries keep the DAG's order, descending too (sorted's
		// reverse is stable).
		{"?order_by=retries", []string{"print_date", "templated", "sleep"}},
		{"?order_by=-retries", []string{"sleep", "print_date", "templated"}},
		// order_by.lstrip("-") drops every leading dash; one descends.
		{"?order_by=--task_id", []string{"templated", "sleep", "print_date"}},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/dags/tutorial/tasks"+tc.query, "")
		got, total := ids(t, res.body)
		if res.status != 200 || !slices.Equal(got, tc.want) || total != 3 {
			t.Errorf("tasks%s = %d %v %d, want %v 3", tc.query, res.status, got, total, tc.want)
		}
	}
	// tasks.py's whitelist (apache/airflow#64384) answers SortParam's text.
	for query, attr := range map[string]string{"nope": "nope", "-nope": "nope", "": "", "weight_rule": "weight_rule"} {
		want := fmt.Sprintf(`{"detail":"Ordering with '%s' is disallowed or the attribute does not exist on the model"}`, attr)
		if res := ts.do(t, http.MethodGet, "/api/v2/dags/tutorial/tasks?order_by="+query, ""); res.status != 400 || res.body != want {
			t.Errorf("order_by=%s = %d %s, want 400 %s", query, res.status, res.body, want)
		}
	}
}

// Airflow's own Python client test (test_python_client.py at the client's
// 3.2.1 tag) lists the DAGs, reads the tasks of example_simplest_dag,
// triggers it with a run id and logical_date null, and reads the config,
// whose 403 it takes as the expected answer. The example is embedded in
// edition 3, so that test passes against airlite; the run it starts ends
// in success, as @task's callable does nothing.
func TestAPIv2_PythonClientFlow(t *testing.T) {
	t.Parallel()
	// The other examples' schedules stay still.
	ts := newTestServer(t, edition3, withExamplesPaused())
	expect(t, ts.do(t, "PATCH", "/api/v2/dags/example_simplest_dag", `{"is_paused": false}`), 200)
	expect(t, ts.do(t, "GET", "/api/v2/dags", ""), 200, `"dag_id":"example_simplest_dag"`)
	expect(t, ts.do(t, "GET", "/api/v2/dags/example_simplest_dag/tasks", ""), 200,
		`"task_id":"my_task"`, `"operator_name":"@task"`, `"total_entries":1`)
	expect(t, ts.do(t, "POST", "/api/v2/dags/example_simplest_dag/dagRuns", `{"dag_run_id": "some_test_run_1", "logical_date": null}`), 200,
		`"dag_run_id":"some_test_run_1"`, `"logical_date":null`, `"state":"queued"`)
	expect(t, ts.do(t, "GET", "/api/v2/config", ""), 403, `Your Airflow administrator chose not to expose the configuration`)
	// Airflow's docker-compose quick-start test (docker-tests
	// test_docker_compose_quick_start.py) triggers the same DAG, which
	// has no start date, at a logical date of 2020.
	expect(t, ts.do(t, "POST", "/api/v2/dags/example_simplest_dag/dagRuns",
		`{"dag_run_id": "test_dag_run_id", "logical_date": "2020-06-11T18:00:00+00:00"}`), 200,
		`"logical_date":"2020-06-11T18:00:00Z"`, `"state":"queued"`)

	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 4, Unixname: testUnixname, Hostname: "test"})
	t.Cleanup(sched.stop)
	settleUntil(t, sched, time.Now, func() bool {
		for _, id := range []string{"some_test_run_1", "test_dag_run_id"} {
			if run, err := ts.store.RunByRunID("example_simplest_dag", id); err != nil || !run.State.Finished() {
				return false
			}
		}
		return true
	})
	for _, id := range []string{"some_test_run_1", "test_dag_run_id"} {
		expect(t, ts.do(t, "GET", "/api/v2/dags/example_simplest_dag/dagRuns/"+id, ""), 200, `"state":"success"`)
		expect(t, ts.do(t, "GET", "/api/v2/dags/example_simplest_dag/dagRuns/"+id+"/taskInstances/my_task", ""), 200,
			`"state":"success"`, `"try_number":1`)
	}
}

// TestAPIv2_GetTasksOrderedByAttributes follows test_tasks.py's
// test_should_respond_200_ascending_order_by_start_date and its
// descending twin: get_tasks sorts dag.tasks by any attribute the
// serialized operators have (attrgetter), start_date among them, not only
// the few airlite knew; a value of None goes last ascending and first
// descending (sorted's key (value is None, value), reversed).
func TestAPIv2_GetTasksOrderedByAttributes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(`
dag_id: test_dag
schedule_interval: null
start_date: 2020-06-15
tasks:
  - {task_id: op1, operator: EmptyOperator, execution_timeout: 60, depends_on_past: true}
  - {task_id: op2, operator: EmptyOperator, start_date: 2020-06-16, upstream: [op1], end_date: 2020-07-01}
  - {task_id: op0, operator: BashOperator, bash_command: "true", start_date: 2020-06-17, execution_timeout: 30}
`))
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?order_by=start_date", []string{"op1", "op2", "op0"}},
		{"?order_by=-start_date", []string{"op0", "op2", "op1"}},
		{"?order_by=end_date", []string{"op2", "op1", "op0"}},
		{"?order_by=-end_date", []string{"op1", "op0", "op2"}},
		{"?order_by=execution_timeout", []string{"op0", "op1", "op2"}},
		{"?order_by=-depends_on_past", []string{"op1", "op2", "op0"}},
		{"?order_by=operator_name", []string{"op0", "op1", "op2"}},
		{"?order_by=-task_display_name", []string{"op2", "op1", "op0"}},
		{"?order_by=retry_delay", []string{"op1", "op2", "op0"}},
		{"?order_by=ui_color", []string{"op1", "op2", "op0"}}, // #e8f7e4 before #f0ede4
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/dags/test_dag/tasks"+tc.query, "")
		var c struct {
			Tasks []struct {
				TaskID string `json:"task_id"`
			} `json:"tasks"`
		}
		if err := json.Unmarshal([]byte(res.body), &c); err != nil || res.status != http.StatusOK {
			t.Errorf("tasks%s = %d %s", tc.query, res.status, res.body)
			continue
		}
		var got []string
		for _, task := range c.Tasks {
			got = append(got, task.TaskID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("tasks%s = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestTasks_UIColorOfAFilesOwnOperator: a YAML task of an operator class
// the DAG file defines itself (simulated) may say the class's ui_color,
// as Airflow 3.2.1's example_skip_dag.py gives its EmptySkipOperator
// "#e8b7e4"; every API shows it where it shows the operator's, and a task
// without one keeps its operator's.
func TestTasks_UIColorOfAFilesOwnOperator(t *testing.T) {
	t.Parallel()
	const dag = `
dag_id: own_class
schedule: null
start_date: 2024-01-01
tasks:
  - {task_id: skipper, operator: EmptySkipOperator, ui_color: "#e8b7e4", simulate: {outcome: skipped}}
  - {task_id: plain, operator: EmptyOperator}
`
	for _, tc := range []struct {
		e          edition
		path, want string
	}{
		{edition3, "/api/v2/dags/own_class/tasks/skipper", `"ui_color":"#e8b7e4"`},
		{edition3, "/api/v2/dags/own_class/tasks/plain", `"ui_color":"#e8f7e4"`},
		{edition2, "/api/v1/dags/own_class/tasks/skipper", `"ui_color": "#e8b7e4"`},
		{edition2, apiPrefix + "/dags/own_class/tasks/skipper", `"ui_color": "#e8b7e4"`},
		{edition2, apiPrefix + "/dags/own_class/tasks/plain", `"ui_color": "#e8f7e4"`},
	} {
		ts := newTestServer(t, tc.e, withDAG(dag))
		expect(t, ts.do(t, http.MethodGet, tc.path, ""), 200, tc.want)
	}
}
