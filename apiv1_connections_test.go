package main

import (
	"net/http"
	"strings"
	"testing"
)

// withConnections creates connections before the request.
func withConnections(conns ...Connection) func(t *testing.T, ts *testServer) {
	return func(t *testing.T, ts *testServer) {
		t.Helper()
		for _, c := range conns {
			if _, err := ts.store.CreateConnection(c); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// wantStoredConnection checks a stored connection's password and extra,
// which the answers never show as stored.
func wantStoredConnection(id string, password, extra *string) func(t *testing.T, ts *testServer, _ response) {
	return func(t *testing.T, ts *testServer, _ response) {
		t.Helper()
		c, err := ts.store.ConnectionByID(id)
		if err != nil || !equalPtr(c.Password, password) || !equalPtr(c.Extra, extra) {
			t.Errorf("stored %+v (%v), want password %v and extra %v", c, err, password, extra)
		}
	}
}

// TestServerV1_Connections follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_connection_endpoint.py.
func TestServerV1_Connections(t *testing.T) {
	t.Parallel()
	port := 80
	full := Connection{ConnID: "test-connection-id", ConnType: "mysql", Description: strPtr("test description"),
		Host: strPtr("mysql"), Login: strPtr("login"), Schema: strPtr("testschema"), Port: &port,
		Password: strPtr("pw"), Extra: strPtr(`{"param":"value"}`)}
	two := withConnections(Connection{ConnID: "test-connection-id-1", ConnType: "test_type"},
		Connection{ConnID: "test-connection-id-2", ConnType: "test_type", Host: strPtr("h")})
	const item = `"conn_type": "test_type", "description": null, "login": null, "schema": null, "port": null`
	base := withConnections(Connection{ConnID: "test-connection-id", ConnType: "test_type"})
	runV1Cases(t, []v1Case{
		// test_connection_endpoint.py:77, 92 (delete 204, 404)
		{name: "delete", method: "DELETE", path: "/connections/test-connection-id", setup: base, wantStatus: 204,
			check: func(t *testing.T, ts *testServer, _ response) {
				if _, err := ts.store.ConnectionByID("test-connection-id"); err == nil {
					t.Error("connection still stored")
				}
			}},
		{name: "delete: unknown", method: "DELETE", path: "/connections/test-connection", wantStatus: 404,
			wantProblem: &wantProblem{title: "Connection not found", detail: "The Connection with connection_id: `test-connection` was not found"}},
		// test_connection_endpoint.py:133 (get: no password; extra re-serialized by json.dumps)
		{name: "get", path: "/connections/test-connection-id", setup: withConnections(full), wantStatus: 200,
			wantRaw: strPtr("{\n  \"conn_type\": \"mysql\",\n  \"connection_id\": \"test-connection-id\",\n  \"description\": \"test description\",\n" +
				"  \"extra\": \"{\\\"param\\\": \\\"value\\\"}\",\n  \"host\": \"mysql\",\n  \"login\": \"login\",\n  \"port\": 80,\n  \"schema\": \"testschema\"\n}\n")},
		// test_connection_endpoint.py:164 (test_should_mask_sensitive_values_in_extra); numbers stay, nested strings go
		{name: "get: extra masked", path: "/connections/c", wantStatus: 200,
			setup: withConnections(Connection{ConnID: "c", ConnType: "http",
				Extra: strPtr(`{"nonsensitive": "just_a_value", "api_token": "secretvalue", "Password": 5, "x": {"my_secret": ["a", {"b": "c"}]}}`)}),
			check: func(t *testing.T, _ *testServer, res response) {
				t.Helper()
				want := `{"nonsensitive": "just_a_value", "api_token": "***", "Password": 5, "x": {"my_secret": ["***", {"b": "***"}]}}`
				if got := decodeBody(t, res)["extra"]; got != want {
					t.Errorf("extra %v, want %s", got, want)
				}
			}},
		{name: "get: extra not JSON, as stored", path: "/connections/c", wantStatus: 200,
			setup: withConnections(Connection{ConnID: "c", ConnType: "http", Extra: strPtr("{'key': 'var'}")}),
			check: func(t *testing.T, _ *testServer, res response) {
				if got := decodeBody(t, res)["extra"]; got != "{'key': 'var'}" {
					t.Errorf("extra %v", got)
				}
			}},
		// test_connection_endpoint.py:180 (test_should_respond_404)
		{name: "get: unknown", path: "/connections/invalid-connection", wantStatus: 404,
			wantProblem: &wantProblem{title: "Connection not found", detail: "The Connection with connection_id: `invalid-connection` was not found"}},
		// test_connection_endpoint.py:224, 258 (list; order_by)
		{name: "list", path: "/connections", setup: two, wantStatus: 200,
			wantJSON: `{"connections": [{"connection_id": "test-connection-id-1", "host": null, ` + item + `},
				{"connection_id": "test-connection-id-2", "host": "h", ` + item + `}], "total_entries": 2}`},
		{name: "list: order_by -connection_id", path: "/connections?order_by=-connection_id&limit=1", setup: two, wantStatus: 200,
			wantJSON: `{"connections": [{"connection_id": "test-connection-id-2", "host": "h", ` + item + `}], "total_entries": 2}`},
		{name: "list: order_by host, none last", path: "/connections?order_by=host&limit=1", setup: two, wantStatus: 200,
			wantJSON: `{"connections": [{"connection_id": "test-connection-id-2", "host": "h", ` + item + `}], "total_entries": 2}`},
		{name: "list: offset", path: "/connections?offset=1", setup: two, wantStatus: 200,
			wantJSON: `{"connections": [{"connection_id": "test-connection-id-2", "host": "h", ` + item + `}], "total_entries": 2}`},
		// test_connection_endpoint.py:372 (test_invalid_order_by_raises_400)
		{name: "list: order_by not allowed", path: "/connections?order_by=invalid", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}},
		// test_connection_endpoint.py:423 (test_patch_should_respond_200)
		{name: "patch", method: "PATCH", path: "/connections/test-connection-id", body: `{"extra": "{\"key\": \"var\"}", "password": "new"}`,
			setup: base, wantStatus: 200, check: wantStoredConnection("test-connection-id", strPtr("new"), strPtr(`{"key": "var"}`))},
		// test_connection_endpoint.py:432 (test_patch_should_respond_200_with_update_mask)
		{name: "patch: update_mask", method: "PATCH", path: "/connections/test-connection-id?update_mask=port,login",
			body:  `{"connection_id": "test-connection-id", "conn_type": "test_type_2", "extra": "{'key': 'var'}", "login": "login", "port": 80}`,
			setup: base, wantStatus: 200,
			wantJSON: `{"connection_id": "test-connection-id", "conn_type": "test_type", "description": null, "extra": null,
				"login": "login", "port": 80, "schema": null, "host": null}`},
		// test_connection_endpoint.py:462-519 (invalid update masks)
		{name: "patch: mask names an unknown field", method: "PATCH", path: "/connections/test-connection-id?update_mask=ports,%20login",
			body: `{"connection_id": "test-connection-id", "login": "login", "port": 80}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'ports' is unknown or cannot be updated."}},
		{name: "patch: mask names conn_id", method: "PATCH", path: "/connections/test-connection-id?update_mask=port,%20login,%20conn_id",
			body: `{"connection_id": "test-connection-id", "login": "login", "port": 80}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'conn_id' is unknown or cannot be updated."}},
		{name: "patch: mask names connection_id", method: "PATCH", path: "/connections/test-connection-id?update_mask=port,%20login,%20connection_id",
			body: `{"connection_id": "test-connection-id", "login": "login", "port": 80}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'connection_id' is unknown or cannot be updated."}},
		{name: "patch: connection_id changes", method: "PATCH", path: "/connections/test-connection-id",
			body: `{"connection_id": "test-connection", "conn_type": "test-type", "login": "login"}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "The connection_id cannot be updated."}},
		// test_connection_endpoint.py:521-558 (invalid updates)
		{name: "patch: extra not a string", method: "PATCH", path: "/connections/test-connection-id",
			body: `{"connection_id": "test-connection-id", "conn_type": "test-type", "extra": 0}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "0 is not of type 'string' - 'extra'"}},
		{name: "patch: unknown fields", method: "PATCH", path: "/connections/test-connection-id",
			body: `{"connection_id": "test-connection-id", "conn_type": "test-type", "invalid_field": "x", "_password": "{}"}`, setup: base, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "{'_password': ['Unknown field.'], 'invalid_field': ['Unknown field.']}"}},
		// test_connection_endpoint.py:560 (test_patch_should_respond_404_not_found)
		{name: "patch: unknown", method: "PATCH", path: "/connections/test-connection-id", body: `{"connection_id": "test-connection-id", "conn_type": "t"}`,
			wantStatus: 404, wantProblem: &wantProblem{title: "Connection not found", detail: "The Connection with connection_id: `test-connection-id` was not found"}},
		// test_connection_endpoint.py:600, 613 (post; extra null)
		{name: "post", method: "POST", path: "/connections", body: `{"connection_id": "test-connection-id", "conn_type": "test_type", "password": "pw", "extra": null}`,
			wantStatus: 200, wantJSON: `{"connection_id": "test-connection-id", "conn_type": "test_type", "description": null, "extra": null,
				"host": null, "login": null, "port": null, "schema": null}`, check: wantStoredConnection("test-connection-id", strPtr("pw"), nil)},
		// test_connection_endpoint.py:625 (conn_type missing)
		{name: "post: conn_type missing", method: "POST", path: "/connections", body: `{"connection_id": "test-connection-id"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "{'conn_type': ['Missing data for required field.']}"}},
		// test_connection_endpoint.py:640 (test_post_should_respond_400_for_invalid_conn_id)
		{name: "post: invalid connection_id", method: "POST", path: "/connections", body: `{"connection_id": "****", "conn_type": "test_type"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "The key '****' has to be made of alphanumeric characters, dashes, dots and underscores exclusively"}},
		// auto_field's Length(max=500) of the String(500) column
		{name: "post: host too long", method: "POST", path: "/connections",
			body: `{"connection_id": "c", "conn_type": "t", "host": "` + strings.Repeat("x", 501) + `"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "{'host': ['Longer than maximum length 500.']}"}},
		// test_connection_endpoint.py:654 (test_post_should_respond_409_already_exist)
		{name: "post: taken", method: "POST", path: "/connections", body: `{"connection_id": "test-connection-id", "conn_type": "test_type"}`,
			setup: base, wantStatus: 409,
			wantProblem: &wantProblem{title: "Conflict", detail: "Connection already exist. ID: test-connection-id"}},
		{name: "post: over --max-connection-bytes", method: "POST", path: "/connections", body: `{"connection_id": "c", "conn_type": "t", "extra": "0123456789"}`,
			options: []testOption{withLimits(Limits{ConnectionBytes: 5})}, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "connection c has 12 bytes, over 5, the limit of --max-connection-bytes: " +
				"store less or start airlite with a higher --max-connection-bytes"}},
		// test_connection_endpoint.py:734 (test_should_respond_403_by_default): a plain text 403
		{name: "test: disabled", method: "POST", path: "/connections/test", body: `{"connection_id": "test-connection-id", "conn_type": "sqlite"}`,
			wantStatus: 403, wantRaw: strPtr("Testing connections is disabled in Airflow configuration. Contact your deployment admin to enable it."),
			check: func(t *testing.T, _ *testServer, res response) {
				if ct := res.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
			}},
		{name: "test: the body is checked first", method: "POST", path: "/connections/test", body: `{"connection_id": 1}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "1 is not of type 'string' - 'connection_id'"}},
		{name: "get of the id test", path: "/connections/test", setup: withConnections(Connection{ConnID: "test", ConnType: "t"}), wantStatus: 200},
		{name: "unauthenticated", method: http.MethodGet, path: "/connections", options: []testOption{withAuth(authDenyAll, "")}, wantStatus: 401,
			wantProblem: &wantProblem{title: "Unauthorized", detail: nil}},
	})
}
