package main

import (
	"fmt"
	"net/http"
	"testing"
)

const tiPath = "/dags/tutorial/dagRuns/r3/taskInstances/print_date"

var routerNotFound = &wantProblem{title: "Not Found", typ: "about:blank",
	detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."}

// wantTryOfTI checks that a try is the task instance's current one:
// TaskInstanceHistorySchema's fields, none of TaskInstanceSchema's others.
func wantTryOfTI(t *testing.T, ts *testServer, try map[string]any) {
	t.Helper()
	ti := decodeJSON[map[string]any](t, ts.v1(t, "GET", tiPath, "").body)
	for _, k := range []string{"execution_date", "note", "sla_miss", "rendered_map_index", "rendered_fields", "trigger", "triggerer_job"} {
		if _, ok := try[k]; ok {
			t.Errorf("try has %s, which TaskInstanceHistorySchema lacks", k)
		}
		delete(ti, k)
	}
	if fmt.Sprint(try) != fmt.Sprint(ti) {
		t.Errorf("try %v\nwant %v", try, ti)
	}
	if try["map_index"] != -1.0 || try["dag_run_id"] != "r3" || try["task_id"] != "print_date" {
		t.Errorf("try %v: want map_index -1 of r3/print_date", try)
	}
}

// TestServerV1_TaskInstanceTries follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:2739-3080
// (TestGetTaskInstanceTry, TestGetTaskInstanceTries) for a task instance
// without history rows: airlite keeps the current try only.
func TestServerV1_TaskInstanceTries(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, ts *testServer) { threeRuns(t, ts) }
	currentTry := func(t *testing.T, ts *testServer) int {
		t.Helper()
		return int(decodeJSON[map[string]any](t, ts.v1(t, "GET", tiPath, "").body)["try_number"].(float64))
	}
	runV1Cases(t, []v1Case{
		// test_task_instance_endpoint.py:3004 (test_should_respond_200): the history rows and the task instance
		{name: "tries", path: tiPath + "/tries?limit=5&offset=0&order_by=x", setup: setup, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, res response) {
				c := decodeJSON[struct {
					TaskInstances []map[string]any `json:"task_instances"`
					TotalEntries  int              `json:"total_entries"`
				}](t, res.body)
				if c.TotalEntries != 1 || len(c.TaskInstances) != 1 {
					t.Fatalf("tries %s: want the one current try", res.body)
				}
				wantTryOfTI(t, ts, c.TaskInstances[0])
			}},
		// get_task_instance_tries raises no 404: an unknown task instance has no tries.
		{name: "tries: unknown task instance", path: "/dags/tutorial/dagRuns/r3/taskInstances/nope/tries", setup: setup,
			wantStatus: 200, wantJSON: `{"task_instances": [], "total_entries": 0}`},
		{name: "tries: map index 0", path: tiPath + "/0/tries", setup: setup,
			wantStatus: 200, wantJSON: `{"task_instances": [], "total_entries": 0}`},
		// test_task_instance_endpoint.py:2748 (TestGetTaskInstanceTry.test_should_respond_200)
		{name: "try: the current one", setup: setup, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, _ response) {
				res := ts.v1(t, "GET", fmt.Sprintf("%s/tries/%d", tiPath, currentTry(t, ts)), "")
				if res.status != http.StatusOK {
					t.Fatalf("try: %d %s", res.status, res.body)
				}
				wantTryOfTI(t, ts, decodeJSON[map[string]any](t, res.body))
			}, path: tiPath + "/tries"},
		// test_task_instance_endpoint.py:2985 (test_raises_404_for_nonexistent_task_instance)
		{name: "try: unknown task instance", path: "/dags/tutorial/dagRuns/r3/taskInstances/nope/tries/0", setup: setup,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found",
				detail: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=nope, map_index=-1, try_number=0."}},
		{name: "try: a number it never had", path: tiPath + "/tries/7", setup: setup,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found",
				detail: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date, map_index=-1, try_number=7."}},
		{name: "try: map index 2", path: tiPath + "/2/tries/0", setup: setup,
			wantStatus: 404, wantProblem: &wantProblem{title: "Task instance not found",
				detail: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date, map_index=2, try_number=0."}},
		{name: "try: not a number", path: tiPath + "/tries/first", setup: setup, wantStatus: 404, wantProblem: routerNotFound},
	})
}

// TestServerV1_MappedTaskInstances follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:510-537
// and tests/api_connexion/endpoints/test_extra_link_endpoint.py: airlite's
// tasks are all unmapped.
func TestServerV1_MappedTaskInstances(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, ts *testServer) { threeRuns(t, ts) }
	runV1Cases(t, []v1Case{
		// test_task_instance_endpoint.py:510 (test_unmapped_map_index_should_return_404):
		// -1 fails Werkzeug's int converter
		{name: "get: map index -1", path: tiPath + "/-1", setup: setup, wantStatus: 404, wantProblem: routerNotFound},
		// test_task_instance_endpoint.py:518 (test_should_return_404_for_mapped_endpoint)
		{name: "get: map index 0", path: tiPath + "/0", setup: setup, wantStatus: 404,
			wantProblem: &wantProblem{title: "Task instance not found", detail: nil}},
		// test_task_instance_endpoint.py:528 (test_should_return_404_for_list_mapped_endpoint);
		// the titles: task_instance_endpoint.py:221-232
		{name: "listMapped: not mapped", path: tiPath + "/listMapped?limit=1&state=running", setup: setup, wantStatus: 404,
			wantProblem: &wantProblem{title: "Task id print_date is not mapped", detail: nil}},
		{name: "listMapped: unknown task", path: "/dags/tutorial/dagRuns/r3/taskInstances/nope/listMapped", wantStatus: 404,
			wantProblem: &wantProblem{title: "Task id nope not found", detail: nil}},
		{name: "listMapped: unknown DAG", path: "/dags/nope/dagRuns/r3/taskInstances/nope/listMapped", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAG nope not found", detail: nil}},
		// airflow/api_connexion/endpoints/task_instance_endpoint.py:597-646: patch_mapped_task_instance finds no row for index 1
		{name: "patch: map index 1", method: "PATCH", path: tiPath + "/1", body: `{"new_state": "success", "dry_run": false}`,
			setup: setup, wantStatus: 404, wantProblem: &wantProblem{title: "Not Found",
				detail: "Task instance not found for task 'print_date' on DAG run with ID 'r3'"},
			check: func(t *testing.T, ts *testServer, _ response) {
				if ti, _ := ts.store.TaskInstance("tutorial", "r3", "print_date"); ti.State == TaskSuccess {
					t.Error("the unmapped task instance changed")
				}
			}},
		{name: "patch: map index on an unknown task", method: "PATCH", path: "/dags/tutorial/dagRuns/r3/taskInstances/nope/1",
			body: `{"new_state": "success"}`, setup: setup, wantStatus: 404,
			wantProblem: &wantProblem{title: "Task not found", detail: "Task 'nope' not found in DAG 'tutorial'"}},
		// test_extra_link_endpoint.py:147 (test_should_respond_200), for operators without extra links
		{name: "links", path: tiPath + "/links", setup: setup, wantStatus: 200, wantRaw: strPtr("{}\n")},
		// test_extra_link_endpoint.py:105-128 (test_should_respond_404)
		{name: "links: unknown DAG", path: "/dags/nope/dagRuns/r3/taskInstances/print_date/links", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAG not found", detail: `DAG with ID = "nope" not found`}},
		{name: "links: unknown task", path: "/dags/tutorial/dagRuns/r3/taskInstances/nope/links", wantStatus: 404,
			wantProblem: &wantProblem{title: "Task not found", detail: `Task with ID = "nope" not found`}},
		{name: "links: unknown run", path: "/dags/tutorial/dagRuns/nope/taskInstances/print_date/links", wantStatus: 404,
			wantProblem: &wantProblem{title: "DAG Run not found", detail: `DAG Run with ID = "nope" not found`}},
	})
}
