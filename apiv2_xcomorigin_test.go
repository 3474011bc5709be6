package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Airflow 3.2.1 keeps an XCom value in a JSON column two ways, and its
// routes answer the column as it is: a task's push (Task SDK serde, then
// the execution API's set_xcom with serialize=False, c57fba0e
// execution_api/routes/xcoms.py:391-399) is the value itself; an entry
// created or changed through the public API is json.dumps' text of the
// value (routes/public/xcom.py:273, :351). So a task's "hello" reads
// "hello" natively and in wait's results, an API entry's "hi" reads
// "\"hi\"" there and in a task that pulls it, and deserialize=true gives
// both as values (xcom.py:117-121: json.loads of a string, else as is).
func TestAPIv2_XComValueAsItsOriginStoredIt(t *testing.T) {
	t.Parallel()
	dag := `
dag_id: v2origin
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: hello
    operator: BashOperator
    bash_command: echo hello
    downstream: [puller]
  - task_id: obj
    operator: PythonOperator
    simulate: {duration: 0s, xcom: {return_value: {a: 1, b: [true, null, 2.5]}, num: 42, numtext: "42"}}
    downstream: [puller]
  - task_id: puller
    operator: BashOperator
    bash_command: echo "pulled:$PULLED"
    env: {PULLED: "{{ ti.xcom_pull(task_ids='hello', key='added') }}"}
`
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(dag))
	runID := v2Trigger(t, ts, "v2origin", `{"logical_date": null}`)
	run := "/api/v2/dags/v2origin/dagRuns/" + runID
	hello := run + "/taskInstances/hello/xcomEntries"
	settleTicks(t, sched, time.Now)
	// A try's start clears its task instance's entries: the API's go in
	// after hello ran, and puller runs again to pull them.
	res := ts.do(t, http.MethodPost, hello, `{"key": "added", "value": "hi"}`)
	if !strings.Contains(res.body, `"value":"\"hi\""`) || res.status != http.StatusCreated {
		t.Fatalf("create = %d %s, want 201 with the value's text", res.status, res.body)
	}
	res = ts.do(t, http.MethodPost, hello, `{"key": "dict", "value": {"z": 1, "a": [1.50, "x"]}}`)
	if !strings.Contains(res.body, `"value":"{\"z\": 1, \"a\": [1.5, \"x\"]}"`) || res.status != http.StatusCreated {
		t.Fatalf("create dict = %d %s, want 201 with the value's text", res.status, res.body)
	}
	res = ts.do(t, http.MethodPost, "/api/v2/dags/v2origin/clearTaskInstances",
		`{"dry_run": false, "task_ids": ["puller"], "dag_run_id": "`+runID+`", "only_failed": false}`)
	if res.status != 200 {
		t.Fatalf("clear puller = %d %s", res.status, res.body)
	}
	settleTicks(t, sched, time.Now)
	if got := v2JSON(t, ts.do(t, http.MethodGet, run, "")); got["state"] != "success" {
		t.Fatalf("run: %v, want success", got)
	}

	for _, tc := range []struct {
		name, path, want string
	}{
		{"task's string", "hello/xcomEntries/return_value", `"hello"`},
		{"task's string, stringify", "hello/xcomEntries/return_value?stringify=true", `"hello"`},
		{"task's string, deserialize", "hello/xcomEntries/return_value?deserialize=true", `"hello"`},
		{"task's dict", "obj/xcomEntries/return_value", `{"a":1,"b":[true,null,2.5]}`},
		{"task's dict, stringify: str() of it", "obj/xcomEntries/return_value?stringify=true", `"{'a': 1, 'b': [True, None, 2.5]}"`},
		{"task's dict, deserialize", "obj/xcomEntries/return_value?deserialize=true", `{"a":1,"b":[true,null,2.5]}`},
		{"task's number", "obj/xcomEntries/num", `42`},
		// json.loads of a string that is JSON: the text "42" reads as 42.
		{"task's numeric text, deserialize", "obj/xcomEntries/numtext?deserialize=true", `42`},
		{"task's numeric text", "obj/xcomEntries/numtext", `"42"`},
		{"API's string", "hello/xcomEntries/added", `"\"hi\""`},
		{"API's string, stringify", "hello/xcomEntries/added?stringify=true", `"\"hi\""`},
		{"API's string, deserialize", "hello/xcomEntries/added?deserialize=true", `"hi"`},
		{"API's dict", "hello/xcomEntries/dict", `"{\"z\": 1, \"a\": [1.5, \"x\"]}"`},
		{"API's dict, deserialize", "hello/xcomEntries/dict?deserialize=true", `{"z":1,"a":[1.5,"x"]}`},
		{"API's dict, deserialize and stringify", "hello/xcomEntries/dict?deserialize=true&stringify=true", `"{'z': 1, 'a': [1.5, 'x']}"`},
		// A task that pulls the API's entry gets its text, which it echoes.
		{"puller's return value", "puller/xcomEntries/return_value", `"pulled:\"hi\""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, run+"/taskInstances/"+tc.path, "")
			if want := `"value":` + tc.want + `}`; res.status != 200 || !strings.Contains(res.body, want) {
				t.Errorf("GET %s = %d %s\nwant a body with %s", tc.path, res.status, res.body, want)
			}
		})
	}

	res = ts.do(t, http.MethodPatch, hello+"/return_value", `{"value": "patched"}`)
	if !strings.Contains(res.body, `"value":"\"patched\""`) || res.status != 200 {
		t.Fatalf("patch = %d %s, want the value's text", res.status, res.body)
	}
	res = ts.do(t, http.MethodGet, run+"/wait?interval=1&result=hello&result=obj&result=puller", "")
	want := `{"state": "success", "results": {"hello": "\"patched\"", "obj": {"a": 1, "b": [true, null, 2.5]}, "puller": "pulled:\"hi\""}}` + "\n"
	if res.status != 200 || res.body != want {
		t.Errorf("wait = %d %s\nwant %s", res.status, res.body, want)
	}
}
