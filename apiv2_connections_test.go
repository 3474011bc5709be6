package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// v2ConnectionsServer is an edition-3 server with test_connections.py's
// connections: test_connection_id (host, login, port, description) and
// test_connection_id_2.
func v2ConnectionsServer(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3)
	for _, body := range []string{
		`{"connection_id": "test_connection_id", "conn_type": "test_type", "description": "some_description_a", "host": "some_host_a", "login": "some_login", "port": 8080}`,
		`{"connection_id": "test_connection_id_2", "conn_type": "test_type_2", "description": "some_description_b", "host": "some_host_b", "port": 8081, "extra": "{\"api_key\": \"k\", \"region\": \"eu\"}"}`,
	} {
		if res := ts.do(t, http.MethodPost, "/api/v2/connections", body); res.status != http.StatusCreated {
			t.Fatalf("POST /connections %s = %d %s", body, res.status, res.body)
		}
	}
	return ts
}

const v2Conn1 = `{"connection_id":"test_connection_id","conn_type":"test_type","description":"some_description_a","host":"some_host_a","login":"some_login","schema":null,"port":8080,"password":null,"extra":null,"team_name":null}`

// TestAPIv2_Connections follows test_connections.py: each call on a
// fresh server.
func TestAPIv2_Connections(t *testing.T) {
	t.Parallel()
	const notFound = "{\"detail\":\"The Connection with connection_id: `nope` was not found\"}"
	patternError := func(id string) string {
		return `{"detail":[{"type":"string_pattern_mismatch","loc":["body","connection_id"],"msg":"String should match pattern '^[\\w.-]+$'","input":` + jsonString(id) + `,"ctx":{"pattern":"^[\\w.-]+$"}}]}`
	}
	calls := []v2Call{
		{name: "get", method: "GET", path: "/api/v2/connections/test_connection_id", wantStatus: 200, wantBody: v2Conn1},
		{name: "get masked extra", method: "GET", path: "/api/v2/connections/test_connection_id_2", wantStatus: 200,
			wantBody: `{"connection_id":"test_connection_id_2","conn_type":"test_type_2","description":"some_description_b","host":"some_host_b","login":null,"schema":null,"port":8081,"password":null,"extra":"{\"api_key\": \"***\", \"region\": \"eu\"}","team_name":null}`},
		{name: "get missing", method: "GET", path: "/api/v2/connections/nope", wantStatus: 404, wantBody: notFound},
		{name: "delete", method: "DELETE", path: "/api/v2/connections/test_connection_id", wantStatus: 204},
		{name: "delete missing", method: "DELETE", path: "/api/v2/connections/nope", wantStatus: 404, wantBody: notFound},
		{name: "post masked", method: "POST", path: "/api/v2/connections",
			body: `{"connection_id": "new", "conn_type": "t", "password": "A!rF|0wi$aw3s0m3", "extra": "{\"password\": \"test-password\"}"}`, wantStatus: 201,
			wantBody: `{"connection_id":"new","conn_type":"t","description":null,"host":null,"login":null,"schema":null,"port":null,"password":"***","extra":"{\"password\": \"***\"}","team_name":null}`},
		{name: "post schema by field name", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "s", "conn_type": "t", "schema_": "db", "extra": ""}`, wantStatus: 201,
			wantBody: `{"connection_id":"s","conn_type":"t","description":null,"host":null,"login":null,"schema":"db","port":null,"password":null,"extra":"{}","team_name":null}`},
		{name: "post taken", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "test_connection_id", "conn_type": "t"}`, wantStatus: 409,
			wantRe: `^\{"detail":\{"reason":"Unique constraint violation","statement":"hidden","orig_error":"hidden","message":"[^"]+"\}\}$`},
		{name: "post bad id stars", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "****", "conn_type": "t"}`, wantStatus: 422, wantBody: patternError("****")},
		{name: "post bad id parens", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "test()", "conn_type": "t"}`, wantStatus: 422, wantBody: patternError("test()")},
		{name: "post bad id signs", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "iam_not@#$_connection_id", "conn_type": "t"}`, wantStatus: 422, wantBody: patternError("iam_not@#$_connection_id")},
		{name: "post extra not json", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "x", "conn_type": "t", "extra": "nope"}`, wantStatus: 422,
			wantBody: "{\"detail\":[{\"type\":\"value_error\",\"loc\":[\"body\",\"extra\"],\"msg\":\"Value error, The `extra` field must be a valid JSON object (e.g., {'key': 'value'}), but encountered non-JSON in `extra` field\",\"input\":\"nope\",\"ctx\":{\"error\":{}}}]}"},
		{name: "post extra a list", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "x", "conn_type": "t", "extra": "[1]"}`, wantStatus: 422,
			wantBody: "{\"detail\":[{\"type\":\"value_error\",\"loc\":[\"body\",\"extra\"],\"msg\":\"Value error, The `extra` field must be a valid JSON object (e.g., {'key': 'value'})\",\"input\":\"[1]\",\"ctx\":{\"error\":{}}}]}"},
		{name: "post unknown field", method: "POST", path: "/api/v2/connections", body: `{"connection_id": "x", "conn_type": "t", "conn_id": "x"}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"extra_forbidden","loc":["body","conn_id"],"msg":"Extra inputs are not permitted","input":"x"}]}`},
		// TestPatchConnection
		{name: "patch masked", method: "PATCH", path: "/api/v2/connections/test_connection_id", body: `{"connection_id": "test_connection_id", "conn_type": "test_type", "password": "test-password"}`, wantStatus: 200,
			wantBody: `{"connection_id":"test_connection_id","conn_type":"test_type","description":"some_description_a","host":"some_host_a","login":"some_login","schema":null,"port":8080,"password":"***","extra":null,"team_name":null}`},
		{name: "patch mask login port", method: "PATCH", path: "/api/v2/connections/test_connection_id?update_mask=login&update_mask=port",
			body: `{"connection_id": "test_connection_id", "conn_type": "test_type", "extra": "{\"key\": \"var\"}"}`, wantStatus: 200, wantBody: v2Conn1},
		{name: "patch mask host", method: "PATCH", path: "/api/v2/connections/test_connection_id?update_mask=host&update_mask=port",
			body: `{"connection_id": "test_connection_id", "conn_type": "test_type", "host": "test_host_patch", "port": 80}`, wantStatus: 200,
			wantBody: strings.Replace(strings.Replace(v2Conn1, `"some_host_a"`, `"test_host_patch"`, 1), `8080`, `80`, 1)},
		{name: "patch other id", method: "PATCH", path: "/api/v2/connections/test_connection_id", body: `{"connection_id": "i_am_not_a_connection", "conn_type": "test_type", "port": 80}`, wantStatus: 400,
			wantBody: `{"detail":"The connection_id in the request body does not match the URL parameter"}`},
		{name: "patch missing", method: "PATCH", path: "/api/v2/connections/nope", body: `{"connection_id": "nope", "conn_type": "test_type"}`, wantStatus: 404, wantBody: notFound},
		{name: "test disabled", method: "POST", path: "/api/v2/connections/test", body: `{"connection_id": "test_connection_id", "conn_type": "sqlite"}`, wantStatus: 403,
			wantBody: `{"detail":"Testing connections is disabled in Airflow configuration. Contact your deployment admin to enable it."}`},
		{name: "test bad body", method: "POST", path: "/api/v2/connections/test", body: `{"connection_id": "x"}`, wantStatus: 422,
			wantBody: `{"detail":[{"type":"missing","loc":["body","conn_type"],"msg":"Field required","input":{"connection_id":"x"}}]}`},
		{name: "test wrong method", method: "GET", path: "/api/v2/connections/test", wantStatus: 404,
			wantBody: "{\"detail\":\"The Connection with connection_id: `test` was not found\"}"},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t, v2ConnectionsServer(t))
		})
	}
}

// TestAPIv2_GetConnections follows TestGetConnections.
func TestAPIv2_GetConnections(t *testing.T) {
	t.Parallel()
	ts := v2ConnectionsServer(t)
	for _, tc := range []struct {
		query   string
		total   int
		wantIDs string
	}{
		{"", 2, "test_connection_id,test_connection_id_2"},
		{"limit=1", 2, "test_connection_id"},
		{"limit=1&offset=1", 2, "test_connection_id_2"},
		{"order_by=-connection_id", 2, "test_connection_id_2,test_connection_id"},
		{"order_by=-port", 2, "test_connection_id_2,test_connection_id"},
		{"order_by=conn_type", 2, "test_connection_id,test_connection_id_2"},
		{"connection_id_pattern=_2", 1, "test_connection_id_2"},
		// A tie (neither has a team) goes by the primary key in the first
		// key's direction (SortParam.to_orm).
		{"order_by=-team_name", 2, "test_connection_id_2,test_connection_id"},
		{"order_by=team_name", 2, "test_connection_id,test_connection_id_2"},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/connections?"+tc.query, "")
		var body struct {
			Connections []struct {
				ID string `json:"connection_id"`
			} `json:"connections"`
			Total int `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &body); err != nil || res.status != 200 {
			t.Fatalf("GET /connections?%s = %d %s", tc.query, res.status, res.body)
		}
		var ids []string
		for _, c := range body.Connections {
			ids = append(ids, c.ID)
		}
		if body.Total != tc.total || strings.Join(ids, ",") != tc.wantIDs {
			t.Errorf("GET /connections?%s = %d %v, want %d %s", tc.query, body.Total, ids, tc.total, tc.wantIDs)
		}
	}
}

// TestAPIv2_BulkConnections follows TestBulkConnections: create, skip,
// overwrite, update without a mask (the fields given set, the password
// kept), delete.
func TestAPIv2_BulkConnections(t *testing.T) {
	t.Parallel()
	ts := v2ConnectionsServer(t)
	for _, tc := range []struct {
		body, want string
	}{
		{`{"actions": [{"action": "create", "entities": [{"connection_id": "test_connection_id", "conn_type": "x"}, {"connection_id": "new", "conn_type": "y"}]}]}`,
			`{"create":{"success":[],"errors":[{"error":"The connections with these connection_ids: {'test_connection_id'} already exist.","status_code":409}]},"update":null,"delete":null}`},
		{`{"actions": [{"action": "create", "entities": [{"connection_id": "test_connection_id", "conn_type": "x", "password": "p"}, {"connection_id": "new", "conn_type": "y"}], "action_on_existence": "overwrite"}]}`,
			`{"create":{"success":["test_connection_id","new"],"errors":[]},"update":null,"delete":null}`},
		{`{"actions": [{"action": "update", "entities": [{"connection_id": "test_connection_id", "conn_type": "z", "host": "h"}], "update_mask": ["host"]}]}`,
			`{"create":null,"update":{"success":["test_connection_id"],"errors":[]},"delete":null}`},
		{`{"actions": [{"action": "delete", "entities": ["new", "gone"], "action_on_non_existence": "fail"}]}`,
			`{"create":null,"update":null,"delete":{"success":[],"errors":[{"error":"The connections with these connection_ids: {'gone'} were not found.","status_code":404}]}}`},
		{`{"actions": [{"action": "delete", "entities": ["new", "gone"], "action_on_non_existence": "skip"}]}`,
			`{"create":null,"update":null,"delete":{"success":["new"],"errors":[]}}`},
	} {
		res := ts.do(t, http.MethodPatch, "/api/v2/connections", tc.body)
		if res.status != http.StatusOK || res.body != tc.want {
			t.Errorf("PATCH /connections %s = %d\n got %s\nwant %s", tc.body, res.status, res.body, tc.want)
		}
	}
	// The bulk update ignores its mask (3.2.1's BulkConnectionService
	// passes none to update_orm_from_pydantic): every field given is set;
	// the password, not given, is kept.
	v2Call{method: "GET", path: "/api/v2/connections/test_connection_id", wantStatus: 200,
		wantBody: `{"connection_id":"test_connection_id","conn_type":"z","description":null,"host":"h","login":null,"schema":null,"port":null,"password":"***","extra":null,"team_name":null}`}.check(t, ts)
}

// POST /connections/defaults creates Airflow's default connections that
// are missing and keeps those that exist (merge_conn).
func TestAPIv2_DefaultConnections(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	if res := ts.do(t, http.MethodPost, "/api/v2/connections", `{"connection_id": "http_default", "conn_type": "mine"}`); res.status != http.StatusCreated {
		t.Fatalf("POST /connections = %d %s", res.status, res.body)
	}
	for range 2 {
		v2Call{method: "POST", path: "/api/v2/connections/defaults", wantStatus: 204}.check(t, ts)
	}
	res := ts.do(t, http.MethodGet, "/api/v2/connections?limit=1", "")
	if !strings.HasSuffix(res.body, `"total_entries":62}`) {
		t.Errorf("GET /connections after defaults: %s, want 62 connections", res.body)
	}
	for _, c := range []v2Call{
		{method: "GET", path: "/api/v2/connections/http_default", wantStatus: 200,
			wantBody: `{"connection_id":"http_default","conn_type":"mine","description":null,"host":null,"login":null,"schema":null,"port":null,"password":null,"extra":null,"team_name":null}`},
		{method: "GET", path: "/api/v2/connections/airflow_db", wantStatus: 200,
			wantBody: `{"connection_id":"airflow_db","conn_type":"mysql","description":null,"host":"mysql","login":"root","schema":"airflow","port":null,"password":"***","extra":null,"team_name":null}`},
		{method: "GET", path: "/api/v2/connections/facebook_default", wantStatus: 200,
			wantBody: `{"connection_id":"facebook_default","conn_type":"facebook_social","description":null,"host":null,"login":null,"schema":null,"port":null,"password":null,` +
				`"extra":"{\"account_id\": \"<AD_ACCOUNT_ID>\", \"app_id\": \"<FACEBOOK_APP_ID>\", \"app_secret\": \"***\", \"access_token\": \"***\"}","team_name":null}`},
	} {
		c.check(t, ts)
	}
}

// TestAPIv2_PatchConnection_UpdateORM follows Airflow 3.2.1's
// update_orm_from_pydantic (services/public/connections.py): a mask names
// the schema "schema" (test_patch_should_respond_200_with_update_mask);
// without a mask only the fields the body gives are set, the password and
// the extra included; a password or an extra value left "***" keeps the
// stored one (secrets_masker.merge, apache/airflow#53943); a merged extra
// is written again by json.dumps. Each call on a fresh server whose
// test_connection_id has a password and an extra; the stored row is read
// from the store, as the answer masks it.
func TestAPIv2_PatchConnection_UpdateORM(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name, query, body string
		password, extra   *string
		schema            *string
		wantAnswer        string
	}{
		{name: "mask names the schema", query: "?update_mask=schema&update_mask=extra",
			body:     `{"connection_id": "c", "conn_type": "t", "extra": "{\"new_extra_key\": \"new_extra_value\"}", "schema": "new_schema", "port": 80}`,
			password: str("secret"), extra: str(`{"new_extra_key": "new_extra_value"}`), schema: str("new_schema")},
		{name: "mask by field name sets nothing", query: "?update_mask=schema_", body: `{"connection_id": "c", "conn_type": "t", "schema": "s2"}`,
			password: str("secret"), extra: str(`{"token": "tk", "region": "eu"}`)},
		{name: "absent password and extra kept", body: `{"connection_id": "c", "conn_type": "t2", "host": "h"}`,
			password: str("secret"), extra: str(`{"token": "tk", "region": "eu"}`)},
		{name: "masked values restored", body: `{"connection_id": "c", "conn_type": "t", "password": "***", "extra": "{\"token\":\"***\",\"region\":\"us\",\"new\":[1,\"***\"]}"}`,
			password: str("secret"), extra: str(`{"token": "tk", "region": "us", "new": [1, "***"]}`)},
		{name: "new values set", body: `{"connection_id": "c", "conn_type": "t", "password": "p2", "extra": "{\"token\": \"t2\"}"}`,
			password: str("p2"), extra: str(`{"token": "t2"}`)},
		{name: "null clears", body: `{"connection_id": "c", "conn_type": "t", "password": null, "extra": null}`},
		{name: "mask without the field in the body clears", query: "?update_mask=password&update_mask=extra", body: `{"connection_id": "c", "conn_type": "t"}`},
		{name: "mask leaves the password", query: "?update_mask=host", body: `{"connection_id": "c", "conn_type": "t", "password": "***", "host": "h2"}`,
			password: str("secret"), extra: str(`{"token": "tk", "region": "eu"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition3)
			if res := ts.do(t, http.MethodPost, "/api/v2/connections",
				`{"connection_id": "c", "conn_type": "t", "password": "secret", "extra": "{\"token\": \"tk\", \"region\": \"eu\"}"}`); res.status != http.StatusCreated {
				t.Fatalf("POST /connections = %d %s", res.status, res.body)
			}
			if res := ts.do(t, http.MethodPatch, "/api/v2/connections/c"+tc.query, tc.body); res.status != http.StatusOK {
				t.Fatalf("PATCH = %d %s", res.status, res.body)
			}
			c, err := ts.store.ConnectionByID("c")
			if err != nil {
				t.Fatal(err)
			}
			show := func(p *string) string {
				if p == nil {
					return "<nil>"
				}
				return *p
			}
			if show(c.Password) != show(tc.password) || show(c.Extra) != show(tc.extra) || show(c.Schema) != show(tc.schema) {
				t.Errorf("stored password %s, extra %s, schema %s; want %s, %s, %s",
					show(c.Password), show(c.Extra), show(c.Schema), show(tc.password), show(tc.extra), show(tc.schema))
			}
		})
	}
}

// TestAPIv2_MaskerNames: edition 3 hides the values of the names 3.2.1's
// secrets masker adds to 2.10.3's DEFAULT_SENSITIVE_FIELDS: access_key and
// connection_string (apache/airflow#61580, backported to 3.1.x), proxy,
// proxy_password and proxies (#61906); not those added after 3.2.1
// (#66673: dsn, bearer, webhook_url, auth_header, service_key). Edition
// 2's /api/v1 keeps 2.10.3's names.
func TestAPIv2_MaskerNames(t *testing.T) {
	t.Parallel()
	extra := `{\"access_key\": \"a\", \"connection_string\": \"c\", \"proxy\": \"p\", \"proxies\": {\"https\": \"q\"}, \"dsn\": \"d\", \"webhook_url\": \"w\"}`
	ts := newTestServer(t, edition3)
	if res := ts.do(t, http.MethodPost, "/api/v2/connections", `{"connection_id": "c", "conn_type": "t", "extra": "`+extra+`"}`); res.status != http.StatusCreated {
		t.Fatalf("POST /connections = %d %s", res.status, res.body)
	}
	v2Call{method: "GET", path: "/api/v2/connections/c", wantStatus: 200,
		wantBody: `{"connection_id":"c","conn_type":"t","description":null,"host":null,"login":null,"schema":null,"port":null,"password":null,` +
			`"extra":"{\"access_key\": \"***\", \"connection_string\": \"***\", \"proxy\": \"***\", \"proxies\": {\"https\": \"***\"}, \"dsn\": \"d\", \"webhook_url\": \"w\"}","team_name":null}`}.check(t, ts)
	for key, want := range map[string]string{"my_access_key": "***", "proxy_url": "***", "db_dsn": "v"} {
		if res := ts.do(t, http.MethodPost, "/api/v2/variables", `{"key": "`+key+`", "value": "v"}`); res.status != http.StatusCreated {
			t.Fatalf("POST /variables = %d %s", res.status, res.body)
		}
		v2Call{method: "GET", path: "/api/v2/variables/" + key, wantStatus: 200,
			wantBody: `{"key":"` + key + `","value":"` + want + `","description":null,"is_encrypted":false,"team_name":null}`}.check(t, ts)
	}

	ts2 := newTestServer(t, edition2)
	if res := ts2.do(t, http.MethodPost, "/api/v1/connections", `{"connection_id": "c", "conn_type": "t", "extra": "{\"access_key\": \"a\", \"api_key\": \"k\"}"}`,
		"Content-Type", "application/json"); res.status != http.StatusOK {
		t.Fatalf("POST /api/v1/connections = %d %s", res.status, res.body)
	}
	res := ts2.do(t, http.MethodGet, "/api/v1/connections/c", "")
	if !strings.Contains(res.body, `"extra": "{\"access_key\": \"a\", \"api_key\": \"***\"}"`) {
		t.Errorf("GET /api/v1/connections/c = %d %s, want access_key shown (2.10.3's names)", res.status, res.body)
	}
}
