package main

import "testing"

// TestServerV1_RolesUsersPermissions: airlite keeps no FAB user database,
// so it answers as Airflow 2.10.3 does when the auth manager is not
// FabAuthManager (tests/api_connexion/endpoints/test_forward_to_fab_endpoint.py:132,
// airflow/api_connexion/endpoints/forward_to_fab_endpoint.py:32-49):
// 400 before any permission check, after connexion's checks.
func TestServerV1_RolesUsersPermissions(t *testing.T) {
	t.Parallel()
	fabOnly := &wantProblem{title: "Bad Request", detail: fabOnlyDetail}
	bad := func(detail string) *wantProblem { return &wantProblem{title: "Bad Request", detail: detail} }
	denyAll := []testOption{withAuth(authDenyAll, "")}
	runV1Cases(t, []v1Case{
		{name: "roles", path: "/roles?limit=1&offset=0&order_by=name", wantStatus: 400, wantProblem: fabOnly},
		{name: "role", path: "/roles/Admin", wantStatus: 400, wantProblem: fabOnly},
		{name: "post role", method: "POST", path: "/roles", body: `{"name": "r", "actions": []}`, wantStatus: 400, wantProblem: fabOnly},
		{name: "patch role", method: "PATCH", path: "/roles/r?update_mask=name", body: `{"name": "r2"}`, wantStatus: 400, wantProblem: fabOnly},
		{name: "delete role", method: "DELETE", path: "/roles/r", wantStatus: 400, wantProblem: fabOnly},
		{name: "permissions", path: "/permissions?limit=5", wantStatus: 400, wantProblem: fabOnly},
		{name: "users", path: "/users?order_by=username", wantStatus: 400, wantProblem: fabOnly},
		{name: "user", path: "/users/admin", wantStatus: 400, wantProblem: fabOnly},
		{name: "post user", method: "POST", path: "/users", body: `{"username": "u", "email": "e", "first_name": "f", "last_name": "l", "roles": [{"name": "Admin"}], "password": "p"}`,
			wantStatus: 400, wantProblem: fabOnly},
		{name: "patch user", method: "PATCH", path: "/users/u", body: `{"first_name": "g"}`, wantStatus: 400, wantProblem: fabOnly},
		{name: "delete user", method: "DELETE", path: "/users/u", wantStatus: 400, wantProblem: fabOnly},
		// _require_fab answers before the endpoint's permission check
		{name: "before authentication", path: "/users", options: denyAll, wantStatus: 400, wantProblem: fabOnly},
		// connexion's checks come first
		{name: "unknown query parameter", path: "/permissions?order_by=x", wantStatus: 400,
			wantProblem: &wantProblem{title: nil, detail: "Extra query parameter(s) order_by not in spec"}},
		{name: "role name empty", method: "POST", path: "/roles", body: `{"name": ""}`, wantStatus: 400,
			wantProblem: bad("'' should be non-empty - 'name'")},
		{name: "user read-only field", method: "PATCH", path: "/users/u", body: `{"login_count": 3}`, wantStatus: 400,
			wantProblem: bad("Property is read-only - 'login_count'")},
		{name: "user roles not an array", method: "POST", path: "/users", body: `{"roles": "Admin"}`, wantStatus: 400,
			wantProblem: bad("'Admin' is not of type 'array' - 'roles'")},
	})
}
