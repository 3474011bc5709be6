package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestAPIv2_TeamName: a team_name in a pool, connection or variable body
// is a field of 3.2.1's bodies (PoolBody, PoolPatchBody, ConnectionBody,
// VariableBody: a string of at most 50 characters, or null), with no
// validator about multi_team (apache/airflow#63994 came after 3.2.1). The
// route stores it, and the team table's foreign key refuses a team that
// does not exist, which is every team with multi_team off: the
// IntegrityError is no unique constraint's, the handler answers nothing
// and the request is Starlette's plain 500, its session rolled back
// (POST /variables fails earlier, Variable.set's ValueError, with the same
// answer). Where the route leaves the field out, the request is answered
// as without it. After each request, afterPath must answer afterStatus.
func TestAPIv2_TeamName(t *testing.T) {
	t.Parallel()
	const crash = "Internal Server Error"
	for _, tc := range []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string // "" checks the status alone
		afterPath                string
		afterStatus              int
		afterHolds               string // a text the answer at afterPath holds
	}{
		{name: "post pool", method: "POST", path: "/pools", body: `{"name": "q", "slots": 1, "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/q", afterStatus: 404},
		{name: "post pool empty team", method: "POST", path: "/pools", body: `{"name": "q", "slots": 1, "team_name": ""}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/q", afterStatus: 404},
		{name: "post pool null team", method: "POST", path: "/pools", body: `{"name": "q", "slots": 1, "team_name": null}`,
			wantStatus: 201, afterPath: "/pools/q", afterStatus: 200},
		// The pool's unique constraint fails before the team's foreign key.
		{name: "post pool taken", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "team_name": "test"}`,
			wantStatus: 409, afterPath: "/pools/p", afterStatus: 200},
		{name: "post pool team too long", method: "POST", path: "/pools", body: `{"name": "q", "slots": 1, "team_name": "` + strings.Repeat("t", 51) + `"}`,
			wantStatus: 422, afterPath: "/pools/q", afterStatus: 404},
		{name: "patch pool", method: "PATCH", path: "/pools/p", body: `{"pool": "p", "slots": 7, "include_deferred": false, "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/p", afterStatus: 200, afterHolds: `"slots":1,`},
		{name: "patch pool masked", method: "PATCH", path: "/pools/p?update_mask=slots", body: `{"pool": "p", "slots": 7, "include_deferred": false, "team_name": "test"}`,
			wantStatus: 200, afterPath: "/pools/p", afterStatus: 200, afterHolds: `"slots":7,`},
		{name: "patch default pool", method: "PATCH", path: "/pools/default_pool?update_mask=slots", body: `{"slots": 7, "team_name": "test"}`,
			wantStatus: 200, afterPath: "/pools/default_pool", afterStatus: 200, afterHolds: `"slots":7,`},
		{name: "bulk pools, an update with a team", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "create", "entities": [{"name": "q", "slots": 1}]}, {"action": "update", "entities": [{"name": "p", "slots": 7, "include_deferred": false, "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/q", afterStatus: 404},
		{name: "bulk pools, a create with a team", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "create", "entities": [{"name": "q", "slots": 1, "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/q", afterStatus: 404},
		{name: "bulk pools, an overwrite with a team", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "create", "action_on_existence": "overwrite", "entities": [{"name": "p", "slots": 7, "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/p", afterStatus: 200, afterHolds: `"slots":1,`},
		{name: "bulk pools, a skipped create", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "create", "action_on_existence": "skip", "entities": [{"name": "p", "slots": 7, "team_name": "test"}]}]}`,
			wantStatus: 200, afterPath: "/pools/p", afterStatus: 200, afterHolds: `"slots":1,`},
		{name: "bulk pools, a masked update", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "update", "update_mask": ["slots"], "entities": [{"name": "p", "slots": 7, "include_deferred": false, "team_name": "test"}]}]}`,
			wantStatus: 200, afterPath: "/pools/p", afterStatus: 200, afterHolds: `"slots":7,`},
		// A create before the update that deletes nothing later.
		{name: "bulk pools, created then updated", method: "PATCH", path: "/pools",
			body:       `{"actions": [{"action": "create", "entities": [{"name": "q", "slots": 1}]}, {"action": "update", "entities": [{"name": "q", "slots": 2, "include_deferred": false, "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/pools/q", afterStatus: 404},

		{name: "post variable", method: "POST", path: "/variables", body: `{"key": "w", "value": "1", "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/variables/w", afterStatus: 404},
		{name: "post variable empty team", method: "POST", path: "/variables", body: `{"key": "w", "value": "1", "team_name": ""}`,
			wantStatus: 500, wantBody: crash, afterPath: "/variables/w", afterStatus: 404},
		{name: "post variable taken", method: "POST", path: "/variables", body: `{"key": "v", "value": "2", "team_name": "test"}`,
			wantStatus: 409, afterPath: "/variables/v", afterStatus: 200, afterHolds: `"value":"1"`},
		{name: "patch variable", method: "PATCH", path: "/variables/v", body: `{"key": "v", "value": "2", "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/variables/v", afterStatus: 200, afterHolds: `"value":"1"`},
		{name: "patch variable masked", method: "PATCH", path: "/variables/v?update_mask=value", body: `{"key": "v", "value": "2", "team_name": "test"}`,
			wantStatus: 200, afterPath: "/variables/v", afterStatus: 200, afterHolds: `"value":"2"`},
		// BulkVariableService's create calls Variable.set without the team.
		{name: "bulk variables, a create with a team", method: "PATCH", path: "/variables",
			body:       `{"actions": [{"action": "create", "entities": [{"key": "w", "value": "1", "team_name": "test"}]}]}`,
			wantStatus: 200, afterPath: "/variables/w", afterStatus: 200, afterHolds: `"team_name":null`},
		{name: "bulk variables, an update with a team", method: "PATCH", path: "/variables",
			body:       `{"actions": [{"action": "create", "entities": [{"key": "w", "value": "1"}]}, {"action": "update", "entities": [{"key": "v", "value": "2", "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/variables/w", afterStatus: 404},

		{name: "post connection", method: "POST", path: "/connections", body: `{"connection_id": "d", "conn_type": "t", "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/connections/d", afterStatus: 404},
		{name: "post connection taken", method: "POST", path: "/connections", body: `{"connection_id": "c", "conn_type": "u", "team_name": "test"}`,
			wantStatus: 409, afterPath: "/connections/c", afterStatus: 200, afterHolds: `"conn_type":"t"`},
		{name: "patch connection", method: "PATCH", path: "/connections/c", body: `{"connection_id": "c", "conn_type": "u", "team_name": "test"}`,
			wantStatus: 500, wantBody: crash, afterPath: "/connections/c", afterStatus: 200, afterHolds: `"conn_type":"t"`},
		{name: "patch connection masked", method: "PATCH", path: "/connections/c?update_mask=conn_type", body: `{"connection_id": "c", "conn_type": "u", "team_name": "test"}`,
			wantStatus: 200, afterPath: "/connections/c", afterStatus: 200, afterHolds: `"conn_type":"u"`},
		// test_connection stores nothing, and is disabled.
		{name: "test connection", method: "POST", path: "/connections/test", body: `{"connection_id": "c", "conn_type": "t", "team_name": "test"}`,
			wantStatus: 403, afterPath: "/connections/c", afterStatus: 200, afterHolds: `"conn_type":"t"`},
		{name: "bulk connections, a create with a team", method: "PATCH", path: "/connections",
			body:       `{"actions": [{"action": "create", "entities": [{"connection_id": "d", "conn_type": "t", "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/connections/d", afterStatus: 404},
		// BulkConnectionService's update passes no update_mask on.
		{name: "bulk connections, a masked update", method: "PATCH", path: "/connections",
			body:       `{"actions": [{"action": "update", "update_mask": ["conn_type"], "entities": [{"connection_id": "c", "conn_type": "u", "team_name": "test"}]}]}`,
			wantStatus: 500, wantBody: crash, afterPath: "/connections/c", afterStatus: 200, afterHolds: `"conn_type":"t"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition3)
			for _, seed := range []struct{ path, body string }{
				{"/pools", `{"name": "p", "slots": 1}`},
				{"/variables", `{"key": "v", "value": "1"}`},
				{"/connections", `{"connection_id": "c", "conn_type": "t"}`},
			} {
				if res := ts.do(t, http.MethodPost, apiV2Prefix+seed.path, seed.body); res.status != http.StatusCreated {
					t.Fatalf("POST %s %s = %d %s", seed.path, seed.body, res.status, res.body)
				}
			}
			res := ts.do(t, tc.method, apiV2Prefix+tc.path, tc.body)
			if res.status != tc.wantStatus || (tc.wantBody != "" && res.body != tc.wantBody) {
				t.Errorf("%s %s = %d %s, want %d %s", tc.method, tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
			after := ts.do(t, http.MethodGet, apiV2Prefix+tc.afterPath, "")
			if after.status != tc.afterStatus || !strings.Contains(after.body, tc.afterHolds) {
				t.Errorf("then GET %s = %d %s, want %d holding %s", tc.afterPath, after.status, after.body, tc.afterStatus, tc.afterHolds)
			}
		})
	}
}

// TestAPIv2_TeamName_Logged: action_logging commits its row before the
// route runs (logging/decorators.py), so a request the team fails is in
// the event log.
func TestAPIv2_TeamName_Logged(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	if res := ts.do(t, http.MethodPost, apiV2Prefix+"/pools", `{"name": "q", "slots": 1, "team_name": "test"}`); res.status != http.StatusInternalServerError {
		t.Fatalf("POST /pools with a team = %d %s", res.status, res.body)
	}
	res := ts.do(t, http.MethodGet, apiV2Prefix+"/eventLogs?event_pattern=post_pool", "")
	if res.status != http.StatusOK || !strings.Contains(res.body, `"total_entries":1`) {
		t.Errorf("event log = %d %s, want the post_pool row", res.status, res.body)
	}
}
