package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// v2PoolsServer is an edition-3 server with test_pools.py's pools:
// pool1 (3 slots, deferred included), pool2 (10) and pool3/with_slashes
// (5, described), made through POST /pools.
func v2PoolsServer(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3)
	for _, body := range []string{
		`{"name": "pool1", "slots": 3, "include_deferred": true}`,
		`{"name": "pool2", "slots": 10}`,
		`{"name": "pool3/with_slashes", "slots": 5, "description": "Some Description"}`,
	} {
		if res := ts.do(t, http.MethodPost, "/api/v2/pools", body); res.status != http.StatusCreated {
			t.Fatalf("POST /pools %s = %d %s", body, res.status, res.body)
		}
	}
	return ts
}

// v2Call is one request of an edition-3 test and what it must answer: a
// body exactly, or (wantRe) one matching the expression.
type v2Call struct {
	name       string
	method     string
	path       string
	body       string
	wantStatus int
	wantBody   string
	wantRe     string
}

// check sends the call and compares the answer.
func (c v2Call) check(t *testing.T, ts *testServer) {
	t.Helper()
	res := ts.do(t, c.method, c.path, c.body)
	if res.status != c.wantStatus {
		t.Fatalf("%s %s = %d %s, want %d", c.method, c.path, res.status, res.body, c.wantStatus)
	}
	switch {
	case c.wantRe != "":
		if !regexp.MustCompile(c.wantRe).MatchString(res.body) {
			t.Errorf("%s %s body %s, want match %s", c.method, c.path, res.body, c.wantRe)
		}
	case c.wantStatus == http.StatusNoContent:
		if res.body != "" {
			t.Errorf("%s %s body %q, want none", c.method, c.path, res.body)
		}
	case res.body != c.wantBody:
		t.Errorf("%s %s\n got %s\nwant %s", c.method, c.path, res.body, c.wantBody)
	}
}

const (
	v2Pool1 = `{"name":"pool1","slots":3,"description":null,"include_deferred":true,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":3,"deferred_slots":0,"team_name":null}`
	v2Pool3 = `{"name":"pool3/with_slashes","slots":5,"description":"Some Description","include_deferred":false,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":5,"deferred_slots":0,"team_name":null}`
)

// TestAPIv2_Pools follows test_pools.py: each call on a fresh server.
func TestAPIv2_Pools(t *testing.T) {
	t.Parallel()
	for _, c := range []v2Call{
		{name: "get", method: "GET", path: "/api/v2/pools/pool1", wantStatus: 200, wantBody: v2Pool1},
		{name: "get with slashes", method: "GET", path: "/api/v2/pools/pool3/with_slashes", wantStatus: 200, wantBody: v2Pool3},
		{name: "get missing", method: "GET", path: "/api/v2/pools/nope", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `nope` was not found\"}"},
		{name: "delete", method: "DELETE", path: "/api/v2/pools/pool1", wantStatus: 204},
		{name: "delete with slashes", method: "DELETE", path: "/api/v2/pools/pool3/with_slashes", wantStatus: 204},
		{name: "delete default", method: "DELETE", path: "/api/v2/pools/default_pool", wantStatus: 400, wantBody: `{"detail":"Default Pool can't be deleted"}`},
		{name: "delete missing", method: "DELETE", path: "/api/v2/pools/nope", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `nope` was not found\"}"},
		{name: "post", method: "POST", path: "/api/v2/pools", body: `{"name": "my_pool", "slots": 11, "include_deferred": true, "description": "Some description"}`, wantStatus: 201,
			wantBody: `{"name":"my_pool","slots":11,"description":"Some description","include_deferred":true,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":11,"deferred_slots":0,"team_name":null}`},
		{name: "post unlimited", method: "POST", path: "/api/v2/pools", body: `{"name": "big", "slots": -1}`, wantStatus: 201,
			wantBody: `{"name":"big","slots":-1,"description":null,"include_deferred":false,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":-1,"deferred_slots":0,"team_name":null}`},
		{name: "post taken", method: "POST", path: "/api/v2/pools", body: `{"name": "pool1", "slots": 11}`, wantStatus: 409,
			wantRe: `^\{"detail":\{"reason":"Unique constraint violation","statement":"hidden","orig_error":"hidden","message":"Serious error when handling your request\. Check logs for more details - you will find it in api server when you look for ID [A-Za-z0-9]{8}"\}\}$`},
		{name: "post extra field", method: "POST", path: "/api/v2/pools", body: `{"name": "p", "slots": 1, "open_slots": 3}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"extra_forbidden","loc":["body","open_slots"],"msg":"Extra inputs are not permitted","input":3}]}`},
		{name: "post slots below -1", method: "POST", path: "/api/v2/pools", body: `{"name": "p", "slots": -2}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than_equal","loc":["body","slots"],"msg":"Input should be greater than or equal to -1","input":-2,"ctx":{"ge":-1}}]}`},
		{name: "post missing", method: "POST", path: "/api/v2/pools", body: `{}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}},{"type":"missing","loc":["body","slots"],"msg":"Field required","input":{}}]}`},
		{name: "post name too long", method: "POST", path: "/api/v2/pools", body: `{"name": "` + strings.Repeat("a", 257) + `", "slots": 1}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"string_too_long","loc":["body","name"],"msg":"String should have at most 256 characters","input":"` + strings.Repeat("a", 257) + `","ctx":{"max_length":256}}]}`},
		// No team exists: the foreign key's IntegrityError, a plain 500
		// (TestAPIv2_TeamName).
		{name: "post team", method: "POST", path: "/api/v2/pools", body: `{"name": "p", "slots": 1, "team_name": "test"}`, wantStatus: 500,
			wantBody: `Internal Server Error`},
		{name: "post by field name", method: "POST", path: "/api/v2/pools", body: `{"pool": "by_name", "slots": 2}`, wantStatus: 201,
			wantBody: `{"name":"by_name","slots":2,"description":null,"include_deferred":false,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":2,"deferred_slots":0,"team_name":null}`},
		// TestPatchPool
		{name: "patch default without mask", method: "PATCH", path: "/api/v2/pools/default_pool", body: `{}`, wantStatus: 400,
			wantBody: `{"detail":"Only slots and included_deferred can be modified on Default Pool"}`},
		{name: "patch default description", method: "PATCH", path: "/api/v2/pools/default_pool?update_mask=description", body: `{"pool": "default_pool"}`, wantStatus: 400,
			wantBody: `{"detail":"Only slots and included_deferred can be modified on Default Pool"}`},
		{name: "patch missing", method: "PATCH", path: "/api/v2/pools/unknown_pool", body: `{"pool": "unknown_pool"}`, wantStatus: 404,
			wantBody: "{\"detail\":\"The Pool with name: `unknown_pool` was not found\"}"},
		{name: "patch rename", method: "PATCH", path: "/api/v2/pools/pool1", body: `{"pool": "pool1_updated"}`, wantStatus: 400,
			wantBody: `{"detail":"Invalid body, pool name from request body doesn't match uri parameter"}`},
		{name: "patch partial", method: "PATCH", path: "/api/v2/pools/pool1", body: `{"pool": "pool1"}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["slots"],"msg":"Field required","input":{"pool":"pool1"},"url":"https://errors.pydantic.dev/2.12/v/missing"},` +
				`{"type":"missing","loc":["include_deferred"],"msg":"Field required","input":{"pool":"pool1"},"url":"https://errors.pydantic.dev/2.12/v/missing"}]}`},
		{name: "patch default slots", method: "PATCH", path: "/api/v2/pools/default_pool?update_mask=slots", body: `{"slots": 150, "name": "default_pool", "include_deferred": true}`, wantStatus: 200,
			wantBody: `{"name":"default_pool","slots":150,"description":"Default pool","include_deferred":false,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":150,"deferred_slots":0,"team_name":null}`},
		{name: "patch default slots and deferred", method: "PATCH", path: "/api/v2/pools/default_pool?update_mask=slots&update_mask=include_deferred",
			body: `{"pool": "default_pool", "slots": 150, "include_deferred": true}`, wantStatus: 200,
			wantBody: `{"name":"default_pool","slots":150,"description":"Default pool","include_deferred":true,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":150,"deferred_slots":0,"team_name":null}`},
		{name: "patch full", method: "PATCH", path: "/api/v2/pools/pool1", body: `{"slots": 8, "description": "Description Updated", "name": "pool1", "include_deferred": false}`, wantStatus: 200,
			wantBody: `{"name":"pool1","slots":8,"description":"Description Updated","include_deferred":false,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":8,"deferred_slots":0,"team_name":null}`},
		{name: "patch with slashes", method: "PATCH", path: "/api/v2/pools/pool3/with_slashes", body: `{"slots": 10, "description": "Updated Description", "name": "pool3/with_slashes", "include_deferred": true}`, wantStatus: 200,
			wantBody: `{"name":"pool3/with_slashes","slots":10,"description":"Updated Description","include_deferred":true,"occupied_slots":0,"running_slots":0,"queued_slots":0,"scheduled_slots":0,"open_slots":10,"deferred_slots":0,"team_name":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t, v2PoolsServer(t))
		})
	}
}

// TestAPIv2_GetPools follows TestGetPools: filters, pages, orders.
func TestAPIv2_GetPools(t *testing.T) {
	t.Parallel()
	ts := v2PoolsServer(t)
	for _, tc := range []struct {
		query     string
		wantTotal int
		wantNames []string
	}{
		{"", 4, []string{"default_pool", "pool1", "pool2", "pool3/with_slashes"}},
		{"limit=1", 4, []string{"default_pool"}},
		{"limit=1&offset=1", 4, []string{"pool1"}},
		{"order_by=-id", 4, []string{"pool3/with_slashes", "pool2", "pool1", "default_pool"}},
		{"order_by=id", 4, []string{"default_pool", "pool1", "pool2", "pool3/with_slashes"}},
		{"order_by=name", 4, []string{"default_pool", "pool1", "pool2", "pool3/with_slashes"}},
		{"order_by=-name", 4, []string{"pool3/with_slashes", "pool2", "pool1", "default_pool"}},
		{"pool_name_pattern=~", 4, []string{"default_pool", "pool1", "pool2", "pool3/with_slashes"}},
		{"pool_name_pattern=default", 1, []string{"default_pool"}},
		{"pool_name_pattern=POOL_", 3, []string{"pool1", "pool2", "pool3/with_slashes"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, "/api/v2/pools?"+tc.query, "")
			if res.status != http.StatusOK {
				t.Fatalf("GET /pools?%s = %d %s", tc.query, res.status, res.body)
			}
			var body struct {
				Pools []struct {
					Name string `json:"name"`
				} `json:"pools"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(res.body), &body); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range body.Pools {
				names = append(names, p.Name)
			}
			if body.Total != tc.wantTotal || strings.Join(names, ",") != strings.Join(tc.wantNames, ",") {
				t.Errorf("GET /pools?%s = %d %v, want %d %v", tc.query, body.Total, names, tc.wantTotal, tc.wantNames)
			}
		})
	}
	for _, c := range []v2Call{
		{name: "bad order", method: "GET", path: "/api/v2/pools?order_by=slots", wantStatus: 400,
			wantBody: `{"detail":"Ordering with 'slots' is disallowed or the attribute does not exist on the model"}`},
		{name: "negative limit", method: "GET", path: "/api/v2/pools?limit=-1", wantStatus: 422,
			wantBody: `{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
}

// TestAPIv2_BulkPools follows TestBulkPools: each request on a fresh
// server, the whole BulkResponse compared.
func TestAPIv2_BulkPools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"create", `{"actions": [{"action": "create", "entities": [{"name": "pool4", "slots": 10, "description": "New Description"}, {"name": "pool5", "slots": 20}], "action_on_existence": "fail"}]}`,
			`{"create":{"success":["pool4","pool5"],"errors":[]},"update":null,"delete":null}`},
		{"create skip", `{"actions": [{"action": "create", "entities": [{"name": "pool4", "slots": 10}, {"name": "pool1", "slots": 20}], "action_on_existence": "skip"}]}`,
			`{"create":{"success":["pool4"],"errors":[]},"update":null,"delete":null}`},
		{"create overwrite", `{"actions": [{"action": "create", "entities": [{"name": "pool4", "slots": 10}, {"name": "pool2", "slots": 20}], "action_on_existence": "overwrite"}]}`,
			`{"create":{"success":["pool4","pool2"],"errors":[]},"update":null,"delete":null}`},
		{"create conflict", `{"actions": [{"action": "create", "entities": [{"name": "pool2", "slots": 20}], "action_on_existence": "fail"}]}`,
			`{"create":{"success":[],"errors":[{"error":"The pools with these pool names: {'pool2'} already exist.","status_code":409}]},"update":null,"delete":null}`},
		{"update", `{"actions": [{"action": "update", "entities": [{"name": "pool2", "slots": 10, "description": "New Description", "include_deferred": false}], "action_on_non_existence": "fail"}]}`,
			`{"create":null,"update":{"success":["pool2"],"errors":[]},"delete":null}`},
		{"update skip", `{"actions": [{"action": "update", "entities": [{"name": "pool4", "slots": 20, "include_deferred": false}], "action_on_non_existence": "skip"}]}`,
			`{"create":null,"update":{"success":[],"errors":[]},"delete":null}`},
		{"update missing", `{"actions": [{"action": "update", "entities": [{"name": "pool4", "slots": 10, "include_deferred": false}]}]}`,
			`{"create":null,"update":{"success":[],"errors":[{"error":"The pools with these pool names: {'pool4'} were not found.","status_code":404}]},"delete":null}`},
		{"delete", `{"actions": [{"action": "delete", "entities": ["pool1"], "action_on_non_existence": "skip"}]}`,
			`{"create":null,"update":null,"delete":{"success":["pool1"],"errors":[]}}`},
		{"delete skip", `{"actions": [{"action": "delete", "entities": ["pool4"], "action_on_non_existence": "skip"}]}`,
			`{"create":null,"update":null,"delete":{"success":[],"errors":[]}}`},
		{"delete missing", `{"actions": [{"action": "delete", "entities": ["pool4", "pool1", "pool9"]}]}`,
			`{"create":null,"update":null,"delete":{"success":[],"errors":[{"error":"The pools with these pool names: {'pool4', 'pool9'} were not found.","status_code":404}]}}`},
		{"repeated actions", `{"actions": [
			{"action": "create", "entities": [{"name": "pool1", "slots": 100}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"name": "pool1", "slots": 100, "include_deferred": false}], "action_on_non_existence": "fail"},
			{"action": "create", "entities": [{"name": "pool5", "slots": 100}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"name": "pool8", "slots": 100, "include_deferred": false}], "action_on_non_existence": "fail"},
			{"action": "delete", "entities": ["pool2"], "action_on_non_existence": "fail"},
			{"action": "create", "entities": [{"name": "pool6", "slots": 100}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"name": "pool9", "slots": 100, "include_deferred": false}], "action_on_non_existence": "fail"}]}`,
			`{"create":{"success":["pool5","pool6"],"errors":[{"error":"The pools with these pool names: {'pool1'} already exist.","status_code":409}]},` +
				`"update":{"success":["pool1"],"errors":[{"error":"The pools with these pool names: {'pool8'} were not found.","status_code":404},{"error":"The pools with these pool names: {'pool9'} were not found.","status_code":404}]},` +
				`"delete":{"success":["pool2"],"errors":[]}}`},
		{"dependent actions with mask", `{"actions": [
			{"action": "create", "entities": [{"name": "pool6", "slots": 5, "description": "Initial Description"}]},
			{"action": "update", "entities": [{"name": "pool6", "slots": 50, "description": "Masked", "include_deferred": false}], "update_mask": ["slots"]},
			{"action": "delete", "entities": ["pool6"]}]}`,
			`{"create":{"success":["pool6"],"errors":[]},"update":{"success":["pool6"],"errors":[]},"delete":{"success":["pool6"],"errors":[]}}`},
		{"default pool fields", `{"actions": [{"action": "update", "entities": [{"name": "default_pool", "slots": 5}]}]}`,
			`{"create":null,"update":{"success":[],"errors":[{"error":"Only slots and included_deferred can be modified on Default Pool","status_code":400}]},"delete":null}`},
		{"default pool kept", `{"actions": [{"action": "delete", "entities": ["default_pool"]}]}`,
			`{"create":null,"update":null,"delete":{"success":[],"errors":[{"error":"Default Pool can't be deleted","status_code":400}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := v2PoolsServer(t)
			res := ts.do(t, http.MethodPatch, "/api/v2/pools", tc.body)
			if res.status != http.StatusOK || res.body != tc.want {
				t.Errorf("PATCH /pools = %d\n got %s\nwant %s", res.status, res.body, tc.want)
			}
		})
	}
}

// TestAPIv2_BulkPools_MaskKeepsOtherFields is test_update_mask_preserves_
// other_fields, and the 422 of an update lacking BasePool's fields,
// which changes nothing.
func TestAPIv2_BulkPools_MaskKeepsOtherFields(t *testing.T) {
	t.Parallel()
	ts := v2PoolsServer(t)
	res := ts.do(t, http.MethodPatch, "/api/v2/pools", `{"actions": [{"action": "update", "entities": [{"name": "pool1", "slots": 50, "description": "Should not be updated", "include_deferred": false}], "update_mask": ["slots"]}]}`)
	if res.status != http.StatusOK {
		t.Fatalf("PATCH /pools = %d %s", res.status, res.body)
	}
	v2Call{method: "GET", path: "/api/v2/pools/pool1", wantStatus: 200,
		wantBody: strings.Replace(strings.Replace(v2Pool1, `"slots":3`, `"slots":50`, 1), `"open_slots":3`, `"open_slots":50`, 1)}.check(t, ts)

	v2Call{method: "PATCH", path: "/api/v2/pools", wantStatus: 422,
		body:     `{"actions": [{"action": "create", "entities": [{"name": "pool7", "slots": 1}]}, {"action": "update", "entities": [{"name": "pool2", "slots": 1}]}]}`,
		wantBody: `{"detail":[{"type":"missing","loc":["include_deferred"],"msg":"Field required","input":{"slots":1,"pool":"pool2"},"url":"https://errors.pydantic.dev/2.12/v/missing"}]}`}.check(t, ts)
	v2Call{method: "GET", path: "/api/v2/pools/pool7", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `pool7` was not found\"}"}.check(t, ts)

	for _, c := range []v2Call{
		{method: "PATCH", path: "/api/v2/pools", body: `{"actions": [{"action": "remove", "entities": []}]}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"union_tag_invalid","loc":["body","actions",0],"msg":"Input tag 'remove' found using _action_discriminator() does not match any of the expected tags: 'create', 'update', 'delete'","input":{"action":"remove","entities":[]},"ctx":{"discriminator":"_action_discriminator()","tag":"remove","expected_tags":"'create', 'update', 'delete'"}}]}`},
		{method: "PATCH", path: "/api/v2/pools", body: `{"actions": [{"action": "create", "entities": [{"name": "x"}], "action_on_existence": "replace"}]}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["body","actions",0,"create","entities",0,"slots"],"msg":"Field required","input":{"name":"x"}},` +
				`{"type":"enum","loc":["body","actions",0,"create","action_on_existence"],"msg":"Input should be 'fail', 'skip' or 'overwrite'","input":"replace","ctx":{"expected":"'fail', 'skip' or 'overwrite'"}}]}`},
		{method: "PATCH", path: "/api/v2/pools", body: `{"actions": [], "extra": 1}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"extra_forbidden","loc":["body","extra"],"msg":"Extra inputs are not permitted","input":1}]}`},
	} {
		c.check(t, ts)
	}
}

// TestAPIv2_UniqueViolationLogged: the 409 of a unique constraint names a
// lookup id "in api server" logs (common/exceptions.py
// _UniqueConstraintErrorHandler logs the error with it): airlite's log
// has the line with that id, so the message leads somewhere.
func TestAPIv2_UniqueViolationLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Logger = zerolog.New(&logs) }))
	ts.v2(t, http.MethodPost, "/pools", `{"name": "twice", "slots": 1}`, http.StatusCreated, "Content-Type", "application/json")
	res := ts.v2(t, http.MethodPost, "/pools", `{"name": "twice", "slots": 1}`, http.StatusConflict, "Content-Type", "application/json")
	var body struct {
		Detail struct {
			Message string `json:"message"`
		} `json:"detail"`
	}
	if err := json.Unmarshal([]byte(res.body), &body); err != nil {
		t.Fatal(err)
	}
	id := body.Detail.Message[strings.LastIndex(body.Detail.Message, " ")+1:]
	if len(id) != 8 || !strings.Contains(logs.String(), `"error_id":"`+id+`"`) {
		t.Errorf("the answer names id %q; the log:\n%s", id, logs.String())
	}
}

// TestAPIv2_PathTailMayBeEmpty checks Starlette's path convertor (".*"):
// /pools/{pool_name:path} takes /pools/ with an empty name and /pools//
// with "/", so Airflow answers its own 404 for no such pool (pools.py
// get_pool, delete_pool; variables.py get_variable), not the catch-all's.
func TestAPIv2_PathTailMayBeEmpty(t *testing.T) {
	t.Parallel()
	for _, c := range []v2Call{
		{name: "get empty", method: "GET", path: "/api/v2/pools/", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `` was not found\"}"},
		{name: "get slash", method: "GET", path: "/api/v2/pools//", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `/` was not found\"}"},
		{name: "delete empty", method: "DELETE", path: "/api/v2/pools/", wantStatus: 404, wantBody: "{\"detail\":\"The Pool with name: `` was not found\"}"},
		{name: "variable empty", method: "GET", path: "/api/v2/variables/", wantStatus: 404, wantBody: "{\"detail\":\"The Variable with key: `` was not found\"}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t, newTestServer(t, edition3))
		})
	}
}
