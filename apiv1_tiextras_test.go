package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
// without history rows (its first try); tryhistory_test.go has the cases
// with earlier tries.
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
		// get_mapped_task_instances converts the states first
		// (task_instance_endpoint.py:188): a name that is no state is its
		// crash 500 before any 404, as the real Airflow 2.10.3 answered.
		{name: "listMapped: unknown state", path: tiPath + "/listMapped?state=nope", setup: setup, wantStatus: 500,
			wantProblem: &wantProblem{title: "Internal Server Error", detail: "'nope' is not a valid TaskInstanceState"}},
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

// TestServerV1_SetTaskInstanceNote follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:2452-2620
// (TestSetTaskInstanceNote).
func TestServerV1_SetTaskInstanceNote(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, ts *testServer) { threeRuns(t, ts) }
	wantNote := func(note any) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			if got := decodeJSON[map[string]any](t, res.body)["note"]; got != note {
				t.Errorf("answered note %v, want %v", got, note)
			}
			// the note is stored: the task instance's GET shows it
			if got := decodeJSON[map[string]any](t, ts.v1(t, "GET", tiPath, "").body)["note"]; got != note {
				t.Errorf("GET note %v, want %v", got, note)
			}
		}
	}
	notFound := &wantProblem{title: "Task Instance not found for dag_id=tutorial, run_id=r3, task_id=print_date", detail: nil}
	runV1Cases(t, []v1Case{
		// test_task_instance_endpoint.py:2460 (test_should_respond_200)
		{name: "set", method: "PATCH", path: tiPath + "/setNote", body: `{"note": "My super cool TaskInstance note."}`,
			setup: setup, wantStatus: 200, check: wantNote("My super cool TaskInstance note.")},
		// test_task_instance_endpoint.py:2562 (test_should_respond_200_when_note_is_empty), then replaced
		{name: "replace", method: "PATCH", path: tiPath + "/setNote", body: `{"note": "second"}`,
			setup: func(t *testing.T, ts *testServer) {
				setup(t, ts)
				ts.v1(t, "PATCH", tiPath+"/setNote", `{"note": "first"}`)
			}, wantStatus: 200, check: wantNote("second")},
		{name: "map_index in the body is read and ignored", method: "PATCH", path: tiPath + "/setNote",
			body: `{"note": "n", "map_index": 3}`, setup: setup, wantStatus: 200, check: wantNote("n")},
		// test_task_instance_endpoint.py:2578 (test_should_raise_400_for_unknown_fields)
		{name: "unknown field", method: "PATCH", path: tiPath + "/setNote", body: `{"note": "a valid field", "not": "an unknown field"}`,
			setup: setup, wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'not': ['Unknown field.']}"}},
		{name: "note missing", method: "PATCH", path: tiPath + "/setNote", body: `{"map_index": 1}`,
			setup: setup, wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "'note' is a required property"}},
		{name: "note null", method: "PATCH", path: tiPath + "/setNote", body: `{"note": null}`,
			setup: setup, wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "None is not of type 'string' - 'note'"}},
		{name: "note too long", method: "PATCH", path: tiPath + "/setNote", body: fmt.Sprintf(`{"note": "%01001d"}`, 0),
			setup: setup, wantStatus: 400, wantProblem: &wantProblem{title: "Bad Request", detail: "{'note': ['Longer than maximum length 1000.']}"}},
		// task_instance_endpoint.py:650-700: no row, or (airlite) a map index other than -1
		{name: "unknown task instance", method: "PATCH", path: tiPath + "/setNote", body: `{"note": "n"}`,
			wantStatus: 404, wantProblem: notFound},
		{name: "map index 1", method: "PATCH", path: tiPath + "/1/setNote", body: `{"note": "n"}`,
			setup: setup, wantStatus: 404, wantProblem: notFound},
	})
}

// TestSnapshot_TaskInstanceNote: a task instance's note survives a
// snapshot; an older snapshot restores it absent; an over-long one is
// refused.
func TestSnapshot_TaskInstanceNote(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	threeRuns(t, ts)
	if res := ts.v1(t, "PATCH", tiPath+"/setNote", `{"note": "kept <&> é"}`); res.status != http.StatusOK {
		t.Fatalf("setNote: %d %s", res.status, res.body)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	restoreNote := func(t *testing.T, data []byte) (*string, error) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "snapshot.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		store, _, err := restoreSnapshot(t.Context(), p)
		if err != nil {
			return nil, err
		}
		ti, err := store.TaskInstance("tutorial", "r3", "print_date")
		if err != nil {
			t.Fatal(err)
		}
		return ti.Note, nil
	}
	isPrintDate := func(_ int, row map[string]any) bool { return row["run_id"] == "r3" && row["task_id"] == "print_date" }
	t.Run("written and read back", func(t *testing.T) {
		note, err := restoreNote(t, good)
		if err != nil || note == nil || *note != "kept <&> é" {
			t.Errorf("restored note %v (%v), want the one set", note, err)
		}
	})
	t.Run("older snapshot", func(t *testing.T) {
		old, _ := snapForge(t, good, tableTasks, isPrintDate, func(row map[string]any) { delete(row, "note") })
		note, err := restoreNote(t, old)
		if err != nil || note != nil {
			t.Errorf("restored note %v (%v), want none", note, err)
		}
	})
	t.Run("note too long", func(t *testing.T) {
		forged, _ := snapForge(t, good, tableTasks, isPrintDate, set("note", strings.Repeat("n", 1001)))
		if _, err := restoreNote(t, forged); !errors.Is(err, errSnapshotUnreadable) || !strings.Contains(err.Error(), "longer than 1000") {
			t.Errorf("restore = %v, want unreadable saying longer than 1000", err)
		}
	})
}
