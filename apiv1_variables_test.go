package main

import (
	"fmt"
	"strings"
	"testing"
)

// withVariables sets variables, in order, before the request.
func withVariables(kvd ...string) func(t *testing.T, ts *testServer) {
	return func(t *testing.T, ts *testServer) {
		t.Helper()
		for i := 0; i+2 < len(kvd)+1; i += 3 {
			var desc *string
			if kvd[i+2] != "-" {
				desc = &kvd[i+2]
			}
			if _, err := ts.store.SetVariable(kvd[i], kvd[i+1], desc); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// wantVariable checks the stored variable after the request.
func wantVariable(key, val string, desc *string) func(t *testing.T, ts *testServer, _ response) {
	return func(t *testing.T, ts *testServer, _ response) {
		t.Helper()
		v, ok := ts.store.Variable(key)
		if !ok || v.Val != val || !equalPtr(v.Description, desc) {
			t.Errorf("stored %+v (%v), want %s=%q description %v", v, ok, key, val, desc)
		}
	}
}

// TestServerV1_Variables follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_variable_endpoint.py.
func TestServerV1_Variables(t *testing.T) {
	t.Parallel()
	three := withVariables("var1", "1", "I am a variable", "var2", "foo", "Another variable", "var3", "[100, 101]", "-")
	runV1Cases(t, []v1Case{
		// test_variable_endpoint.py:87 (test_should_delete_variable)
		{name: "delete", method: "DELETE", path: "/variables/delete_var1", setup: withVariables("delete_var1", "1", "-"), wantStatus: 204,
			check: func(t *testing.T, ts *testServer, _ response) {
				if _, ok := ts.store.Variable("delete_var1"); ok {
					t.Error("variable still stored")
				}
			}},
		// test_variable_endpoint.py:103 (test_should_respond_404_if_key_does_not_exist)
		{name: "delete: unknown key", method: "DELETE", path: "/variables/NONEXIST_VARIABLE_KEY", wantStatus: 404,
			wantProblem: &wantProblem{title: "Variable not found", detail: nil}},
		// test_variable_endpoint.py:139 (test_read_variable)
		{name: "get", path: "/variables/TEST_VARIABLE_KEY", setup: withVariables("TEST_VARIABLE_KEY", `{"foo": 1}`, "-"), wantStatus: 200,
			wantJSON: `{"key": "TEST_VARIABLE_KEY", "value": "{\"foo\": 1}", "description": null}`},
		// test_variable_endpoint.py:149 (test_should_respond_404_if_not_found)
		{name: "get: unknown key", path: "/variables/NONEXIST_VARIABLE_KEY", wantStatus: 404,
			wantProblem: &wantProblem{title: "Variable not found", detail: "Variable does not exist"}},
		// test_variable_endpoint.py:162 (test_should_handle_slashes_in_keys)
		{name: "get: a key with slashes", path: "/variables/foo%2Fbar", setup: withVariables("foo/bar", "x", "-"), wantStatus: 200,
			wantJSON: `{"key": "foo/bar", "value": "x", "description": null}`},
		// test_variable_endpoint.py:176-207 (test_should_get_list_variables)
		{name: "list: limit and offset", path: "/variables?limit=2&offset=1", setup: three, wantStatus: 200,
			wantJSON: `{"variables": [{"key": "var2", "value": "foo", "description": "Another variable"},
				{"key": "var3", "value": "[100, 101]", "description": null}], "total_entries": 3}`},
		{name: "list: in the order set, a replaced key last", path: "/variables",
			setup: withVariables("b", "1", "-", "a", "2", "-", "b", "3", "-"), wantStatus: 200,
			wantJSON: `{"variables": [{"key": "a", "value": "2", "description": null},
				{"key": "b", "value": "3", "description": null}], "total_entries": 2}`},
		{name: "list: order_by -key", path: "/variables?order_by=-key&limit=1", setup: three, wantStatus: 200,
			wantJSON: `{"variables": [{"key": "var3", "value": "[100, 101]", "description": null}], "total_entries": 3}`},
		{name: "list: order_by value", path: "/variables?order_by=value&limit=1", setup: three, wantStatus: 200,
			wantJSON: `{"variables": [{"key": "var1", "value": "1", "description": "I am a variable"}], "total_entries": 3}`},
		// test_variable_endpoint.py:224 (test_should_raise_400_for_invalid_order_by)
		{name: "list: order_by not allowed", path: "/variables?order_by=invalid", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "Ordering with 'invalid' is disallowed or the attribute does not exist on the model"}},
		// test_variable_endpoint.py:251 (test_should_update_variable)
		{name: "patch", method: "PATCH", path: "/variables/var1", body: `{"key": "var1", "value": "updated"}`,
			setup: withVariables("var1", "foo", "-"), wantStatus: 200,
			wantJSON: `{"key": "var1", "value": "updated", "description": null}`, check: wantVariable("var1", "updated", nil)},
		// test_variable_endpoint.py:268 (test_should_update_variable_with_mask)
		{name: "patch: update_mask", method: "PATCH", path: "/variables/var1?update_mask=description",
			body:  `{"key": "var1", "value": "updated", "description": "after_update"}`,
			setup: withVariables("var1", "foo", "before update"), wantStatus: 200,
			wantJSON: `{"key": "var1", "value": "foo", "description": "after_update"}`, check: wantVariable("var1", "foo", strPtr("after_update"))},
		// The loaded attribute is val: a mask naming value is refused.
		{name: "patch: update_mask names value", method: "PATCH", path: "/variables/var1?update_mask=value",
			body: `{"key": "var1", "value": "updated"}`, setup: withVariables("var1", "foo", "-"), wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'value' is unknown or cannot be updated."}},
		{name: "patch: update_mask val, comma-separated", method: "PATCH", path: "/variables/var1?update_mask=val,%20description",
			body: `{"key": "var1", "value": "updated", "description": "d"}`, setup: withVariables("var1", "foo", "-"), wantStatus: 200,
			check: wantVariable("var1", "updated", strPtr("d"))},
		// test_variable_endpoint.py:279-324 (test_should_reject_invalid_update)
		{name: "patch: unknown key", method: "PATCH", path: "/variables/var1", body: `{"key": "var1", "value": "foo"}`, wantStatus: 404,
			wantProblem: &wantProblem{title: "Variable not found", detail: "Variable does not exist"}},
		{name: "patch: key differs", method: "PATCH", path: "/variables/var1", body: `{"key": "var2", "value": "updated"}`,
			setup: withVariables("var1", "foo", "-"), wantStatus: 400,
			wantProblem: &wantProblem{title: "Invalid post body", detail: "key from request body doesn't match uri parameter"}},
		{name: "patch: value missing", method: "PATCH", path: "/variables/var1", body: `{"key": "var2"}`,
			setup: withVariables("var1", "foo", "-"), wantStatus: 400,
			wantProblem: &wantProblem{title: "Invalid Variable schema", detail: "{'value': ['Missing data for required field.']}"}},
		// test_variable_endpoint.py:349 (test_should_create_variable), with and without description
		{name: "post", method: "POST", path: "/variables", body: `{"key": "var_create", "value": "{}"}`, wantStatus: 200,
			wantJSON: `{"key": "var_create", "value": "{}"}`, check: wantVariable("var_create", "{}", nil)},
		{name: "post: empty description", method: "POST", path: "/variables", body: `{"key": "var_create", "value": "{}", "description": ""}`,
			wantStatus: 200, wantJSON: `{"key": "var_create", "value": "{}", "description": ""}`, check: wantVariable("var_create", "{}", strPtr(""))},
		{name: "post: replaces", method: "POST", path: "/variables", body: `{"key": "v", "value": "new"}`,
			setup: withVariables("v", "old", "kept?"), wantStatus: 200, check: wantVariable("v", "new", nil)},
		// test_variable_endpoint.py:392 (test_should_reject_invalid_request)
		{name: "post: unknown field", method: "POST", path: "/variables", body: `{"key": "var_create", "v": "{}"}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Invalid Variable schema", detail: "{'value': ['Missing data for required field.'], 'v': ['Unknown field.']}"}},
		// connexion checks types first; marshmallow refuses a null description.
		{name: "post: value not a string", method: "POST", path: "/variables", body: `{"key": "k", "value": 1}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "1 is not of type 'string' - 'value'"}},
		{name: "post: null description", method: "POST", path: "/variables", body: `{"key": "k", "value": "v", "description": null}`, wantStatus: 400,
			wantProblem: &wantProblem{title: "Invalid Variable schema", detail: "{'description': ['Field may not be null.']}"}},
		{name: "post: key too long", method: "POST", path: "/variables", body: fmt.Sprintf(`{"key": %q, "value": "v"}`, strings.Repeat("k", 251)),
			wantStatus: 400, wantProblem: &wantProblem{title: "Invalid Variable schema", detail: "key: at most 250 characters (Airflow's column), got 251"}},
		{name: "post: over --max-variables", method: "POST", path: "/variables", body: `{"key": "b", "value": "v"}`,
			options: []testOption{withLimits(Limits{Variables: 1})}, setup: withVariables("a", "1", "-"), wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "airlite has 1 variables, the limit of --max-variables: " +
				"delete variables (DELETE /api/v1/variables/{key}) or start airlite with a higher --max-variables"}},
		{name: "post: unauthenticated", method: "POST", path: "/variables", body: `{"key": "k", "value": "v"}`,
			options: []testOption{withAuth(authDenyAll, "")}, wantStatus: 401,
			wantProblem: &wantProblem{title: "Unauthorized", detail: nil}},
	})
}
