package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
)

// TestAPIv2_MaterializeAssetValueErrors: 3.2.1's materialize_asset
// (apache/airflow#64211, its body a MaterializeAssetBody) calls
// validate_context and DAG.create_dagrun with no except around them, where
// trigger_dag_run turns their ValueError into a 400: a conf the DAG's
// Param schemas refuse, a Param left without a value (no body gives conf
// {}) and a dag_run_id that RUN_ID_REGEX and the allowed pattern refuse
// are Starlette's 500 there, and no run is made. The action-log row is
// written all the same (committed before the endpoint runs). A valid body
// still makes the run, with its conf; a duplicate dag_run_id is the
// IntegrityError handler's 409, as for a trigger.
func TestAPIv2_MaterializeAssetValueErrors(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/materialize", edition3)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.DAGs = set }))
	var assets struct {
		Assets []struct {
			ID  int64  `json:"id"`
			URI string `json:"uri"`
		} `json:"assets"`
	}
	if err := json.Unmarshal([]byte(ts.v2(t, "GET", "/assets", "", http.StatusOK).body), &assets); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, a := range assets.Assets {
		ids[a.URI] = a.ID
	}
	typed, required := ids["s3://materialize/typed"], ids["s3://materialize/required"]
	if typed == 0 || required == 0 {
		t.Fatalf("assets %+v, want both DAGs' outlets", assets.Assets)
	}
	path := func(id int64) string { return "/assets/" + strconv.FormatInt(id, 10) + "/materialize" }
	for _, tc := range []struct {
		name, path, body string
		status           int
		body500          bool
	}{
		{"conf the schema refuses", path(typed), `{"conf": {"rows": 1}}`, http.StatusInternalServerError, true},
		{"no value for a required param", path(required), ``, http.StatusInternalServerError, true},
		{"null body, required param", path(required), `null`, http.StatusInternalServerError, true},
		{"run id the pattern refuses", path(typed), `{"dag_run_id": "bad id!"}`, http.StatusInternalServerError, true},
		{"valid conf", path(typed), `{"dag_run_id": "mine", "conf": {"rows": 7}}`, http.StatusOK, false},
		{"required param given", path(required), `{"conf": {"rows": 3}}`, http.StatusOK, false},
		{"duplicate run id", path(typed), `{"dag_run_id": "mine"}`, http.StatusConflict, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, before := lastV2EventLog(t, ts)
			res := ts.do(t, http.MethodPost, apiV2Prefix+tc.path, tc.body, "Content-Type", "application/json")
			if res.status != tc.status || (tc.body500 && res.body != "Internal Server Error") {
				t.Fatalf("POST %s %s = %d %s, want %d", tc.path, tc.body, res.status, res.body, tc.status)
			}
			if _, after := lastV2EventLog(t, ts); after != before+1 {
				t.Errorf("event log rows %d -> %d, want one more (materialize_asset)", before, after)
			}
		})
	}
	var runs struct {
		TotalEntries int `json:"total_entries"`
	}
	for dag, want := range map[string]int{"materialize_typed": 1, "materialize_required": 1} {
		if err := json.Unmarshal([]byte(ts.v2(t, "GET", "/dags/"+dag+"/dagRuns", "", http.StatusOK).body), &runs); err != nil {
			t.Fatal(err)
		}
		if runs.TotalEntries != want {
			t.Errorf("%s has %d runs, want %d (the refused ones make none)", dag, runs.TotalEntries, want)
		}
	}
}
