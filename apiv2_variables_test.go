package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// v2VariablesServer is an edition-3 server with test_variables.py's
// variables, made through POST /variables in its order.
func v2VariablesServer(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3)
	for _, body := range []string{
		`{"key": "test_variable_key", "value": "test_variable_value", "description": "Some description for the variable"}`,
		`{"key": "password", "value": "some_password", "description": "Some description for the password"}`,
		`{"key": "dictionary_password", "value": "{\"password\": \"some_password\"}", "description": "Some description for the variable"}`,
		`{"key": "test_variable_key/with_slashes", "value": "test_variable_value", "description": "Some description for the variable"}`,
		`{"key": "test_variable_search_key", "value": "random search value", "description": "Some description for the variable"}`,
	} {
		if res := ts.do(t, http.MethodPost, "/api/v2/variables", body); res.status != http.StatusCreated {
			t.Fatalf("POST /variables %s = %d %s", body, res.status, res.body)
		}
	}
	return ts
}

// v2Var is a VariableResponse airlite answers: no Fernet key, so never
// encrypted (Airflow's tests run with one and see true).
func v2Var(key, value, description string) string {
	return `{"key":` + jsonString(key) + `,"value":` + jsonString(value) + `,"description":` + jsonString(description) + `,"is_encrypted":false,"team_name":null}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestAPIv2_Variables follows test_variables.py: each call on a fresh
// server.
func TestAPIv2_Variables(t *testing.T) {
	t.Parallel()
	const notFound = "{\"detail\":\"The Variable with key: `test_variable_key` was not found\"}"
	for _, c := range []v2Call{
		{name: "get", method: "GET", path: "/api/v2/variables/test_variable_key", wantStatus: 200,
			wantBody: v2Var("test_variable_key", "test_variable_value", "Some description for the variable")},
		{name: "get masked", method: "GET", path: "/api/v2/variables/password", wantStatus: 200,
			wantBody: v2Var("password", "***", "Some description for the password")},
		{name: "get masked in json", method: "GET", path: "/api/v2/variables/dictionary_password", wantStatus: 200,
			wantBody: v2Var("dictionary_password", `{"password": "***"}`, "Some description for the variable")},
		{name: "get with slashes", method: "GET", path: "/api/v2/variables/test_variable_key/with_slashes", wantStatus: 200,
			wantBody: v2Var("test_variable_key/with_slashes", "test_variable_value", "Some description for the variable")},
		{name: "delete", method: "DELETE", path: "/api/v2/variables/test_variable_key/with_slashes", wantStatus: 204},
		{name: "post", method: "POST", path: "/api/v2/variables", body: `{"key": "new variable key", "value": "new variable value", "description": "new variable description"}`,
			wantStatus: 201, wantBody: v2Var("new variable key", "new variable value", "new variable description")},
		{name: "post masked", method: "POST", path: "/api/v2/variables", body: `{"key": "another_password", "value": "password_value", "description": "another password"}`,
			wantStatus: 201, wantBody: v2Var("another_password", "***", "another password")},
		{name: "post json masked", method: "POST", path: "/api/v2/variables", body: `{"key": "another value with sensitive information", "value": "{\"password\": \"new_password\"}", "description": "some description"}`,
			wantStatus: 201, wantBody: v2Var("another value with sensitive information", `{"password": "***"}`, "some description")},
		{name: "post empty", method: "POST", path: "/api/v2/variables", body: `{"key": "empty value variable", "value": "", "description": "some description"}`,
			wantStatus: 201, wantBody: v2Var("empty value variable", "", "some description")},
		{name: "post object stored as str()", method: "POST", path: "/api/v2/variables", body: `{"key": "obj", "value": {"b": 1, "a": [true, null]}}`,
			wantStatus: 201, wantBody: `{"key":"obj","value":"{'b': 1, 'a': [True, None]}","description":null,"is_encrypted":false,"team_name":null}`},
		{name: "post taken", method: "POST", path: "/api/v2/variables", body: `{"key": "test_variable_key", "value": "duplicate value"}`,
			wantStatus: 409, wantBody: "{\"detail\":\"The Variable with key: `test_variable_key` already exists\"}"},
		{name: "post key too large", method: "POST", path: "/api/v2/variables", body: `{"key": "` + strings.Repeat("a", 251) + `", "value": "some_value", "description": "key too large"}`,
			wantStatus: 422, wantBody: `{"detail":[{"type":"string_too_long","loc":["body","key"],"msg":"String should have at most 250 characters","input":"` + strings.Repeat("a", 251) + `","ctx":{"max_length":250}}]}`},
		{name: "post without value", method: "POST", path: "/api/v2/variables", body: `{"key": "k", "val": "v"}`,
			wantStatus: 422, wantBody: `{"detail":[{"type":"missing","loc":["body","value"],"msg":"Field required","input":{"key":"k","val":"v"}},{"type":"extra_forbidden","loc":["body","val"],"msg":"Extra inputs are not permitted","input":"v"}]}`},
		// TestPatchVariable
		{name: "patch", method: "PATCH", path: "/api/v2/variables/test_variable_key", body: `{"key": "test_variable_key", "value": "The new value", "description": "The new description"}`,
			wantStatus: 200, wantBody: v2Var("test_variable_key", "The new value", "The new description")},
		{name: "patch value only", method: "PATCH", path: "/api/v2/variables/test_variable_key?update_mask=value", body: `{"key": "test_variable_key", "value": "The new value", "description": "The new description", "team_name": null}`,
			wantStatus: 200, wantBody: v2Var("test_variable_key", "The new value", "Some description for the variable")},
		{name: "patch masked", method: "PATCH", path: "/api/v2/variables/password", body: `{"key": "password", "value": "some_other_value", "description": "Some description for the password"}`,
			wantStatus: 200, wantBody: v2Var("password", "***", "Some description for the password")},
		{name: "patch json", method: "PATCH", path: "/api/v2/variables/dictionary_password?update_mask=value&update_mask=description", body: `{"key": "dictionary_password", "value": "{\"password\": \"new_password\"}", "description": "new description"}`,
			wantStatus: 200, wantBody: v2Var("dictionary_password", `{"password": "***"}`, "new description")},
		{name: "patch other key", method: "PATCH", path: "/api/v2/variables/test_variable_key", body: `{"key": "different_key", "value": "some_value", "description": null}`,
			wantStatus: 400, wantBody: `{"detail":"Invalid body, key from request body doesn't match uri parameter"}`},
		{name: "patch key in mask", method: "PATCH", path: "/api/v2/variables/test_variable_key?update_mask=key", body: `{"key": "test_variable_key", "value": "v"}`,
			wantStatus: 400, wantBody: `{"detail":"Update not allowed: the following fields are immutable and cannot be modified: {'key'}"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t, v2VariablesServer(t))
		})
	}
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition3)
		for _, c := range []v2Call{
			{method: "GET", path: "/api/v2/variables/test_variable_key", wantStatus: 404, wantBody: notFound},
			{method: "DELETE", path: "/api/v2/variables/test_variable_key", wantStatus: 404, wantBody: notFound},
			{method: "PATCH", path: "/api/v2/variables/test_variable_key", body: `{"key": "test_variable_key", "value": "some_value", "description": null}`, wantStatus: 404, wantBody: notFound},
		} {
			c.check(t, ts)
		}
	})
}

// TestAPIv2_GetVariables follows TestGetVariables.
func TestAPIv2_GetVariables(t *testing.T) {
	t.Parallel()
	ts := v2VariablesServer(t)
	const k1, k2, k3, k4, k5 = "test_variable_key", "password", "dictionary_password", "test_variable_key/with_slashes", "test_variable_search_key"
	for _, tc := range []struct {
		query     string
		wantTotal int
		wantKeys  []string
	}{
		{"", 5, []string{k1, k2, k3, k4, k5}},
		{"limit=1", 5, []string{k1}},
		{"limit=1&offset=1", 5, []string{k2}},
		{"order_by=id", 5, []string{k1, k2, k3, k4, k5}},
		{"order_by=-id", 5, []string{k5, k4, k3, k2, k1}},
		{"order_by=key", 5, []string{k3, k2, k1, k4, k5}},
		{"order_by=-key", 5, []string{k5, k4, k1, k2, k3}},
		{"variable_key_pattern=~", 5, []string{k1, k2, k3, k4, k5}},
		{"variable_key_pattern=search", 1, []string{k5}},
		{"order_by=description&order_by=-key", 5, []string{k2, k5, k4, k1, k3}},
		// Ties go by the primary key in the first key's direction
		// (SortParam.to_orm's final discriminator).
		{"order_by=description", 5, []string{k2, k1, k3, k4, k5}},
		{"order_by=-description", 5, []string{k5, k4, k3, k1, k2}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := ts.do(t, http.MethodGet, "/api/v2/variables?"+tc.query, "")
			var body struct {
				Variables []struct {
					Key string `json:"key"`
				} `json:"variables"`
				Total int `json:"total_entries"`
			}
			if err := json.Unmarshal([]byte(res.body), &body); err != nil || res.status != http.StatusOK {
				t.Fatalf("GET /variables?%s = %d %s", tc.query, res.status, res.body)
			}
			var keys []string
			for _, v := range body.Variables {
				keys = append(keys, v.Key)
			}
			if body.Total != tc.wantTotal || strings.Join(keys, ",") != strings.Join(tc.wantKeys, ",") {
				t.Errorf("GET /variables?%s = %d %v, want %d %v", tc.query, body.Total, keys, tc.wantTotal, tc.wantKeys)
			}
		})
	}
}

// TestAPIv2_BulkVariables follows TestBulkVariables.
func TestAPIv2_BulkVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"create", `{"actions": [{"action": "create", "entities": [{"key": "new_var1", "value": "new_value1", "description": "New variable 1"}, {"key": "new_var2", "value": "new_value2"}], "action_on_existence": "fail"}]}`,
			`{"create":{"success":["new_var1","new_var2"],"errors":[]},"update":null,"delete":null}`},
		{"create skip", `{"actions": [{"action": "create", "entities": [{"key": "test_variable_key", "value": "new_value1"}, {"key": "new_var2", "value": "new_value2"}], "action_on_existence": "skip"}]}`,
			`{"create":{"success":["new_var2"],"errors":[]},"update":null,"delete":null}`},
		{"create overwrite", `{"actions": [{"action": "create", "entities": [{"key": "test_variable_key", "value": "new_value1"}, {"key": "new_var2", "value": "new_value2"}], "action_on_existence": "overwrite"}]}`,
			`{"create":{"success":["test_variable_key","new_var2"],"errors":[]},"update":null,"delete":null}`},
		{"create conflict", `{"actions": [{"action": "create", "entities": [{"key": "test_variable_key", "value": "new_value"}], "action_on_existence": "fail"}]}`,
			`{"create":{"success":[],"errors":[{"error":"The variables with these keys: {'test_variable_key'} already exist.","status_code":409}]},"update":null,"delete":null}`},
		{"update", `{"actions": [{"action": "update", "entities": [{"key": "test_variable_key", "value": "updated_value", "description": "Updated variable 1"}], "action_on_non_existence": "fail"}]}`,
			`{"create":null,"update":{"success":["test_variable_key"],"errors":[]},"delete":null}`},
		{"update missing", `{"actions": [{"action": "update", "entities": [{"key": "nonexistent_var", "value": "updated_value"}], "action_on_non_existence": "fail"}]}`,
			`{"create":null,"update":{"success":[],"errors":[{"error":"The variables with these keys: {'nonexistent_var'} were not found.","status_code":404}]},"delete":null}`},
		{"update key in mask", `{"actions": [{"action": "update", "entities": [{"key": "test_variable_key", "value": "new_value"}], "update_mask": ["key", "value"]}]}`,
			`{"create":null,"update":{"success":[],"errors":[{"error":"Update not allowed: the following fields are immutable and cannot be modified: {'key'}","status_code":400}]},"delete":null}`},
		{"delete missing", `{"actions": [{"action": "delete", "entities": ["nonexistent_var"], "action_on_non_existence": "fail"}]}`,
			`{"create":null,"update":null,"delete":{"success":[],"errors":[{"error":"The variables with these keys: {'nonexistent_var'} were not found.","status_code":404}]}}`},
		{"combined", `{"actions": [{"action": "create", "entities": [{"key": "new_var1", "value": "new_value1"}, {"key": "new_var2", "value": ["new_value1"]}, {"key": "new_var3", "value": 1}, {"key": "new_var4", "value": null}, {"key": "new_var5", "value": {"foo": "bar"}}], "action_on_existence": "skip"},
			{"action": "update", "entities": [{"key": "test_variable_key", "value": "updated_value", "description": "Updated variable 1"}]},
			{"action": "delete", "entities": ["dictionary_password"], "action_on_non_existence": "skip"}]}`,
			`{"create":{"success":["new_var1","new_var2","new_var3","new_var4","new_var5"],"errors":[]},"update":{"success":["test_variable_key"],"errors":[]},"delete":{"success":["dictionary_password"],"errors":[]}}`},
		{"repeated actions", `{"actions": [
			{"action": "create", "entities": [{"key": "test_variable_key", "value": "new_value1"}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"key": "test_variable_key", "value": "updated_value"}], "action_on_non_existence": "fail"},
			{"action": "create", "entities": [{"key": "new_key", "value": "new_value1"}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"key": "nonexistent_var", "value": "updated_value"}], "action_on_non_existence": "fail"},
			{"action": "delete", "entities": ["dictionary_password"], "action_on_non_existence": "fail"},
			{"action": "create", "entities": [{"key": "new_variable_key_1", "value": "new_value1"}], "action_on_existence": "fail"},
			{"action": "update", "entities": [{"key": "new_variable_key", "value": "updated_value"}], "action_on_non_existence": "fail"}]}`,
			`{"create":{"success":["new_key","new_variable_key_1"],"errors":[{"error":"The variables with these keys: {'test_variable_key'} already exist.","status_code":409}]},` +
				`"update":{"success":["test_variable_key"],"errors":[{"error":"The variables with these keys: {'nonexistent_var'} were not found.","status_code":404},{"error":"The variables with these keys: {'new_variable_key'} were not found.","status_code":404}]},` +
				`"delete":{"success":["dictionary_password"],"errors":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := v2VariablesServer(t)
			res := ts.do(t, http.MethodPatch, "/api/v2/variables", tc.body)
			if res.status != http.StatusOK || res.body != tc.want {
				t.Errorf("PATCH /variables = %d\n got %s\nwant %s", res.status, res.body, tc.want)
			}
		})
	}
}

// TestAPIv2_BulkVariables_Serialization is test_bulk_create_entity_
// serialization: a bulk create stores a dict or a list as json.dumps(v,
// indent=2), anything else as str(v); the masker reads the JSON back.
func TestAPIv2_BulkVariables_Serialization(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	res := ts.do(t, http.MethodPatch, "/api/v2/variables", `{"actions": [{"action": "create", "entities": [
		{"key": "my_dict_var_param", "value": {"name": "Test Dict Param", "id": 123, "active": true}},
		{"key": "my_list_var_param", "value": ["alpha", 42, false, {"nested": "item param"}]},
		{"key": "my_string_var_param", "value": "plain string param"}]}]}`)
	if res.status != http.StatusOK {
		t.Fatalf("PATCH /variables = %d %s", res.status, res.body)
	}
	for key, want := range map[string]string{
		"my_dict_var_param":   "{\n  \"name\": \"Test Dict Param\",\n  \"id\": 123,\n  \"active\": true\n}",
		"my_list_var_param":   "[\n  \"alpha\",\n  42,\n  false,\n  {\n    \"nested\": \"item param\"\n  }\n]",
		"my_string_var_param": "plain string param",
	} {
		if v, ok := ts.store.Variable(key); !ok || v.Val != want {
			t.Errorf("variable %s = %q, want %q", key, v.Val, want)
		}
	}
	v2Call{method: "GET", path: "/api/v2/variables/my_dict_var_param", wantStatus: 200,
		wantBody: `{"key":"my_dict_var_param","value":"{\"name\": \"Test Dict Param\", \"id\": 123, \"active\": true}","description":null,"is_encrypted":false,"team_name":null}`}.check(t, ts)
}

// TestAPIv2_PageLimitCapped: a list's limit is at most [api]
// maximum_page_limit (100): LimitFilter.depends answers min(limit, 100)
// rows, total_entries counting all; 0 is no row (parameters.py:106-108
// of the 3.2.0-era main, Phinhas214/airflow c57fba0e; apache/airflow#60989
// of 2026-01-26, before 3.2's branch).
func TestAPIv2_PageLimitCapped(t *testing.T) {
	t.Parallel()
	var kvd []string
	for i := range 120 {
		kvd = append(kvd, fmt.Sprintf("v%03d", i), "x", "-")
	}
	ts := newTestServer(t, edition3)
	withVariables(kvd...)(t, ts)
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 50},
		{"?limit=100", 100},
		{"?limit=101", 100},
		{"?limit=1000", 100},
		{"?limit=1000&offset=100", 20},
		{"?limit=0", 0},
	} {
		res := ts.do(t, http.MethodGet, "/api/v2/variables"+tc.query, "")
		var got struct {
			Variables    []json.RawMessage `json:"variables"`
			TotalEntries int               `json:"total_entries"`
		}
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != 200 {
			t.Fatalf("GET variables%s = %d %s", tc.query, res.status, res.body)
		}
		if len(got.Variables) != tc.want || got.TotalEntries != 120 {
			t.Errorf("GET variables%s: %d rows of %d, want %d of 120", tc.query, len(got.Variables), got.TotalEntries, tc.want)
		}
	}
}

// TestAPIv2_PatchVariableValueNotAString: 3.2.1's PATCH sets the value
// by setattr of the body's JsonValue on Variable.val (c57fba0e
// services/public/common.py:116-120, through update_orm_from_pydantic,
// services/public/variables.py:89-96), whose setter encodes it with
// bytes(value, "utf-8") and skips None (models/variable.py:99-104): a
// number, a bool, a list or an object raises TypeError, Starlette's
// plain 500 with the session rolled back (apache/airflow#71010, reported
// on 3.2.1, fixed by #71018 for 3.3); null changes no value. A bulk
// update goes the same way, the whole request undone.
func TestAPIv2_PatchVariableValueNotAString(t *testing.T) {
	t.Parallel()
	const path = "/api/v2/variables/test_variable_key"
	unchanged := v2Var("test_variable_key", "test_variable_value", "Some description for the variable")
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		want, after              string
	}{
		{"object", "PATCH", path, `{"key": "test_variable_key", "value": {"a": 1}, "description": "d"}`, 500, "Internal Server Error", unchanged},
		{"list", "PATCH", path, `{"key": "test_variable_key", "value": [1]}`, 500, "Internal Server Error", unchanged},
		{"number", "PATCH", path, `{"key": "test_variable_key", "value": 1}`, 500, "Internal Server Error", unchanged},
		{"bool", "PATCH", path, `{"key": "test_variable_key", "value": true}`, 500, "Internal Server Error", unchanged},
		{"null keeps the value", "PATCH", path, `{"key": "test_variable_key", "value": null, "description": "nv"}`, 200,
			v2Var("test_variable_key", "test_variable_value", "nv"), v2Var("test_variable_key", "test_variable_value", "nv")},
		{"object outside the mask", "PATCH", path + "?update_mask=description", `{"key": "test_variable_key", "value": {"a": 1}, "description": "nv"}`, 200,
			v2Var("test_variable_key", "test_variable_value", "nv"), v2Var("test_variable_key", "test_variable_value", "nv")},
		{"bulk update undoes the request", "PATCH", "/api/v2/variables", `{"actions": [
			{"action": "delete", "entities": ["password"]},
			{"action": "update", "entities": [{"key": "test_variable_key", "value": {"a": 1}}]}]}`, 500, "Internal Server Error", unchanged},
		{"bulk update null", "PATCH", "/api/v2/variables", `{"actions": [{"action": "update", "entities": [{"key": "test_variable_key", "value": null, "description": "nv"}]}]}`, 200,
			`{"create":null,"update":{"success":["test_variable_key"],"errors":[]},"delete":null}`, v2Var("test_variable_key", "test_variable_value", "nv")},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ts := v2VariablesServer(t)
			if res := ts.do(t, c.method, c.path, c.body); res.status != c.status || res.body != c.want {
				t.Errorf("%s %s %s\n got %d %s\nwant %d %s", c.method, c.path, c.body, res.status, res.body, c.status, c.want)
			}
			v2Call{method: "GET", path: path, wantStatus: 200, wantBody: c.after}.check(t, ts)
			v2Call{method: "GET", path: "/api/v2/variables/password", wantStatus: 200,
				wantBody: v2Var("password", "***", "Some description for the password")}.check(t, ts)
		})
	}
}
