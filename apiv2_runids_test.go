package main

import (
	"net/http"
	"regexp"
	"testing"
)

// TestAPIv2_TriggerRunIDs: Airflow 3.2.1 names a run triggered without a
// dag_run_id by its timetable (TriggerDAGRunPostBody.validate_context,
// datamodels/dag_run.py:118-145 of the 3.2.0-era main c57fba0e):
// Timetable.generate_run_id is the run type and run_after, with no random
// part whether the logical date is given or null (timetables/base.py:325-339;
// apache/airflow#56373), and run_after is the body's or now, never moved to
// the logical date (#59477). The materialize route takes the same body and
// its validate_context (#64211 in 3.2.1). Two runs named from the same
// instant would collide on (dag_id, run_id); airlite moves a defaulted
// run_after on by a microsecond instead, where Airflow's requests are
// milliseconds apart (testNow is frozen here).
func TestAPIv2_TriggerRunIDs(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withDAG(v2RunsDAG))
	const now = "2024-05-01T10:00:00.123456"
	for _, tc := range []struct {
		name, body              string
		wantID, wantRunAfter    string
		wantLogical, wantStatus any
	}{
		{"null logical date", `{"logical_date": null}`,
			"manual__" + now + "+00:00", now + "Z", nil, 200},
		{"same instant again: run_after a microsecond on", `{"logical_date": null}`,
			"manual__2024-05-01T10:00:00.123457+00:00", "2024-05-01T10:00:00.123457Z", nil, 200},
		{"a logical date in the past keeps run_after now", `{"logical_date": "2024-01-02T00:00:00Z"}`,
			"manual__2024-05-01T10:00:00.123458+00:00", "2024-05-01T10:00:00.123458Z", "2024-01-02T00:00:00Z", 200},
		{"run_after given names the run", `{"logical_date": null, "run_after": "2024-06-01T00:00:00Z"}`,
			"manual__2024-06-01T00:00:00+00:00", "2024-06-01T00:00:00Z", nil, 200},
	} {
		res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", tc.body)
		got := v2JSON(t, res)
		if res.status != tc.wantStatus || got["dag_run_id"] != tc.wantID || got["run_after"] != tc.wantRunAfter || got["logical_date"] != tc.wantLogical {
			t.Errorf("%s: %d %s\nwant dag_run_id %s, run_after %s, logical_date %v", tc.name, res.status, res.body, tc.wantID, tc.wantRunAfter, tc.wantLogical)
		}
	}
	// A given run_after is not moved: the same id again is the unique
	// constraint's 409, as in Airflow.
	res := ts.do(t, http.MethodPost, "/api/v2/dags/v2runs/dagRuns", `{"logical_date": null, "run_after": "2024-06-01T00:00:00Z"}`)
	if res.status != http.StatusConflict || !regexp.MustCompile(`"reason":"Unique constraint violation"`).MatchString(res.body) {
		t.Errorf("the same run_after again = %d %s, want the 409", res.status, res.body)
	}
}
