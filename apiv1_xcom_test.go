package main

import (
	"encoding/json"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// UpsertXCom stores an XCom entry as a finished try would (tests only).
func (s *Store) UpsertXCom(e *XComEntry) error {
	return s.update(func(txn *memdb.Txn) error { return s.putXComTxn(txn, e) })
}

// withXComs triggers runs of example_bash_operator on the given days and
// stores entries of them: day, task_id, key, value (JSON).
func withXComs(rows ...[4]string) func(t *testing.T, ts *testServer) {
	return func(t *testing.T, ts *testServer) {
		t.Helper()
		for _, row := range rows {
			date := "2024-01-" + row[0] + "T00:00:00+00:00"
			runID := "manual__" + date
			run, err := ts.store.RunByRunID("example_bash_operator", runID)
			if err != nil {
				ts.trigger(t, "example_bash_operator", `{"execution_date": "`+date+`"}`)
				if run, err = ts.store.RunByRunID("example_bash_operator", runID); err != nil {
					t.Fatal(err)
				}
			}
			e := &XComEntry{DagID: run.DagID, RunID: run.RunID, TaskID: row[1], RunRowID: run.ID, MapIndex: -1,
				Key: row[2], Value: json.RawMessage(row[3]), Timestamp: time.Date(2024, 2, 3, 4, 5, 6, 7000, time.UTC)}
			if err := ts.store.UpsertXCom(e); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestServerV1_XComEntries follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_xcom_endpoint.py.
func TestServerV1_XComEntries(t *testing.T) {
	t.Parallel()
	const run2 = "/dags/example_bash_operator/dagRuns/manual__2024-01-02T00:00:00+00:00/taskInstances"
	dict := withXComs([4]string{"02", "runme_0", "k", `{"key": "value", "a": [1, 2.50, true, null, "s"]}`})
	const meta = `"timestamp": "2024-02-03T04:05:06.000007+00:00", "execution_date": "2024-01-02T00:00:00+00:00",
		"map_index": -1, "task_id": "runme_0", "dag_id": "example_bash_operator"`
	several := withXComs([4]string{"02", "runme_1", "b", `1`}, [4]string{"02", "runme_0", "z", `2`},
		[4]string{"03", "runme_0", "a", `3`}, [4]string{"02", "runme_0", "a", `4`})
	runV1Cases(t, []v1Case{
		// test_xcom_endpoint.py:125 (test_should_respond_200_stringify): str() of the dict, in its order
		{name: "get: stringified", path: run2 + "/runme_0/xcomEntries/k", setup: dict, wantStatus: 200,
			wantJSON: `{"key": "k", ` + meta + `, "value": "{'key': 'value', 'a': [1, 2.5, True, None, 's']}"}`},
		// test_xcom_endpoint.py:151 (test_should_respond_200_native)
		{name: "get: native", path: run2 + "/runme_0/xcomEntries/k?stringify=false", setup: dict, wantStatus: 200,
			wantJSON: `{"key": "k", ` + meta + `, "value": {"key": "value", "a": [1, 2.5, true, null, "s"]}}`},
		{name: "get: a string value as it is", path: run2 + "/runme_0/xcomEntries/return_value",
			setup: withXComs([4]string{"02", "runme_0", "return_value", `"hi there"`}), wantStatus: 200,
			check: func(t *testing.T, _ *testServer, res response) {
				if got := decodeBody(t, res)["value"]; got != "hi there" {
					t.Errorf("value %v", got)
				}
			}},
		// test_xcom_endpoint.py:207 (test_should_raise_404_for_non_existent_xcom)
		{name: "get: unknown", path: "/dags/nonexistentdagid/dagRuns/r/taskInstances/t/xcomEntries/k", wantStatus: 404,
			wantProblem: &wantProblem{title: "XCom entry not found", detail: nil}},
		{name: "get: another map_index", path: run2 + "/runme_0/xcomEntries/k?map_index=0", setup: dict, wantStatus: 404,
			wantProblem: &wantProblem{title: "XCom entry not found", detail: nil}},
		// xcom_endpoint.py:100-102: deserialize needs [api] enable_xcom_deserialize_support, off by default
		{name: "get: deserialize refused", path: run2 + "/runme_0/xcomEntries/k?deserialize=true", setup: dict, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "XCom deserialization is disabled in configuration."}},
		// test_xcom_endpoint.py:333 (list of one task instance)
		{name: "list", path: run2 + "/runme_0/xcomEntries", setup: several, wantStatus: 200,
			wantJSON: `{"xcom_entries": [` + xcomItem("a", "02", "runme_0") + `, ` + xcomItem("z", "02", "runme_0") + `], "total_entries": 2}`},
		// test_xcom_endpoint.py:375 (~ everywhere): by dag_id, task_id, run_id, map_index, key
		{name: "list: ~", path: "/dags/~/dagRuns/~/taskInstances/~/xcomEntries", setup: several, wantStatus: 200,
			wantJSON: `{"xcom_entries": [` + xcomItem("a", "02", "runme_0") + `, ` + xcomItem("z", "02", "runme_0") + `, ` +
				xcomItem("a", "03", "runme_0") + `, ` + xcomItem("b", "02", "runme_1") + `], "total_entries": 4}`},
		// test_xcom_endpoint.py:529 (xcom_key filter), 485 (map_index filter)
		{name: "list: xcom_key", path: "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?xcom_key=a&limit=1&offset=1", setup: several, wantStatus: 200,
			wantJSON: `{"xcom_entries": [` + xcomItem("a", "03", "runme_0") + `], "total_entries": 2}`},
		{name: "list: map_index 0", path: "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?map_index=0", setup: several, wantStatus: 200,
			wantJSON: `{"xcom_entries": [], "total_entries": 0}`},
		{name: "list: map_index not an integer", path: "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?map_index=x", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Wrong type, expected 'integer' for query parameter 'map_index'"}},
		{name: "list: unknown DAG is empty", path: "/dags/nope/dagRuns/~/taskInstances/~/xcomEntries", setup: several, wantStatus: 200,
			wantJSON: `{"xcom_entries": [], "total_entries": 0}`},
	})
}

// xcomItem is an entry of a collection as withXComs stores it.
func xcomItem(key, day, taskID string) string {
	return `{"key": "` + key + `", "timestamp": "2024-02-03T04:05:06.000007+00:00", "execution_date": "2024-01-` + day +
		`T00:00:00+00:00", "map_index": -1, "task_id": "` + taskID + `", "dag_id": "example_bash_operator"}`
}

// A BashOperator's pushed line reaches the API, end to end.
func TestServerV1_XComOfABashTask(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition2, tickDriven, withDAG(`
dag_id: pusher
schedule_interval: null
tasks:
  - {task_id: say, operator: BashOperator, bash_command: "echo first; echo '{\"n\": 1}'"}
`))
	runID := ts.trigger(t, "pusher", `{}`)["run_id"].(string)
	if done := ts.tickRun(t, sched, "pusher", runID); done["state"] != "success" {
		t.Fatalf("run ended %v", done)
	}
	res := ts.v1(t, "", "/dags/pusher/dagRuns/"+runID+"/taskInstances/say/xcomEntries/return_value", "")
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	// The line is a string: str() of it is itself, not a dict.
	if got := decodeBody(t, res)["value"]; got != `{"n": 1}` {
		t.Errorf("value %v, want the last line", got)
	}
}
