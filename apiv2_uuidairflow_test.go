package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
)

// TestAPIv2_AirflowUUIDsDashed: Airflow 3.2's common/test_uuid_serialization.py
// (c57fba0e airflow-core/tests/unit/api_fastapi/common/
// test_uuid_serialization.py): TaskInstanceResponse's and DagVersionResponse's
// id is a UUID written as the dashed 36-character string, as clients expect.
func TestAPIv2_AirflowUUIDsDashed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withExamplesOnly("tutorial"))
	runID := v2Trigger(t, ts, "tutorial", `{"logical_date": null}`)
	dashed := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, path := range []string{
		"/api/v2/dags/tutorial/dagRuns/" + runID + "/taskInstances/print_date",
		"/api/v2/dags/tutorial/dagVersions/1",
	} {
		res := ts.do(t, http.MethodGet, path, "")
		var v struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(res.body), &v); err != nil || res.status != http.StatusOK || !dashed.MatchString(v.ID) {
			t.Errorf("GET %s = %d %.200s: want an id in the dashed form", path, res.status, res.body)
		}
	}
}
