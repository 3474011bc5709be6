package main

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// TestScheduler_TriggerDagRunOperatorRenderedFields: a
// TriggerDagRunOperator's try keeps its template_fields rendered, as the
// release serializes them for the API's rendered_fields (2.10.3
// airflow/operators/trigger_dagrun.py template_fields through
// serialization/helpers.py serialize_template_field; 3.2.1's standard
// provider's through task_runner.py _serialize_template_field, dicts
// sorted): None stays null, trigger_run_id is the one given (the
// generated id is execute's), a datetime logical_date is its str(), and
// 3.2.1's NOTSET (no logical_date) is its str().
func TestScheduler_TriggerDagRunOperatorRenderedFields(t *testing.T) {
	t.Parallel()
	templated := `{"trigger_dag_id": "fields_target", "trigger_run_id": "t_c", "logical_date": "2024-05-01",
		"conf": {"a": [1, "2024-02-01"], "b": "from c"}, "wait_for_completion": false, "skip_when_already_exists": "yes"}`
	dated := `{"trigger_dag_id": "fields_target", "trigger_run_id": "d", "logical_date": "2024-06-01 00:00:00+00:00",
		"conf": null, "wait_for_completion": false, "skip_when_already_exists": false}`
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
		want    map[string]string
	}{
		{"2", edition2, "testdata/pydags/triggerop_fields2", map[string]string{
			"plain": `{"trigger_dag_id": "fields_target", "trigger_run_id": null, "logical_date": null, "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`,
			"templated": templated, "dated": dated}},
		{"3", edition3, "testdata/pydags/triggerop_fields3", map[string]string{
			"plain": `{"trigger_dag_id": "fields_target", "trigger_run_id": null, "logical_date": "` + argNotSetText + `", "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`,
			"templated": templated, "dated": dated,
			"dateless": `{"trigger_dag_id": "fields_target", "trigger_run_id": "n", "logical_date": null, "conf": null,
				"wait_for_completion": false, "skip_when_already_exists": false}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			triggeringScheduler(t, ts)
			taskIDs := make([]string, 0, len(tc.want))
			for id := range tc.want {
				taskIDs = append(taskIDs, id)
			}
			body := `{"dag_run_id": "c", "logical_date": "2024-02-01T00:00:00+00:00"}`
			if tc.edition == edition3 {
				ts.v2(t, http.MethodPost, "/dags/fields_controller/dagRuns", body, http.StatusOK)
			} else {
				ts.postRun(t, "fields_controller", body)
			}
			awaitTriesEnded(t, ts.store, "fields_controller", "c", taskIDs...)
			for task, want := range tc.want {
				path := "/dags/fields_controller/dagRuns/c/taskInstances/" + task
				var res response
				if tc.edition == edition3 {
					res = ts.v2(t, http.MethodGet, path, "", http.StatusOK)
				} else {
					res = ts.v1(t, http.MethodGet, path, "")
				}
				checkRenderedFields(t, task, res.body, want)
			}
		})
	}
}

// checkRenderedFields checks a task instance answer's rendered_fields.
func checkRenderedFields(t *testing.T, task, body, want string) {
	t.Helper()
	var ti struct {
		Rendered any `json:"rendered_fields"`
	}
	var wantV any
	if err := json.Unmarshal([]byte(body), &ti); err != nil {
		t.Fatalf("%s: %v: %s", task, err, body)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatalf("%s: want: %v", task, err)
	}
	if !reflect.DeepEqual(ti.Rendered, wantV) {
		t.Errorf("%s rendered_fields = %v, want %v", task, ti.Rendered, wantV)
	}
}
