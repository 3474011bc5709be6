package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Airflow 3.2's core_api/routes/test_routes.py (c57fba0e airflow-core/
// tests/unit/api_fastapi/core_api/routes/test_routes.py): which public
// routes answer without asking who the caller is, and the catch-all's 404.

// airflowNoAuthPaths is test_routes.py NO_AUTH_PATHS: the public routes
// outside authenticated_router.
var airflowNoAuthPaths = []string{"/api/v2/auth/login", "/api/v2/auth/logout", "/api/v2/monitor/health", "/api/v2/version"}

// TestAPIv2_AirflowNoAuthRoutes: test_no_auth_routes, on the route table
// and on the wire. Edition 3's open rows are exactly NO_AUTH_PATHS; with
// the simple auth manager and no token, every other row is 401 Not
// authenticated (the auth dependency runs before the path, query and
// body checks) and these four are not. test_routes_with_responses checks
// the OpenAPI document's declared 401 and 403, which TestAPIv2_RoutesAre
// Operations ties airlite's rows to.
func TestAPIv2_AirflowNoAuthRoutes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withAuth(authSimple, "ann:secret\n"))
	var open []string
	for _, rt := range ts.srv.v2Routes().routes {
		path := v2DocPath(rt.pattern)
		if rt.open {
			open = append(open, path)
		}
		for _, name := range v2PathParams(rt.pattern) {
			value := "1"
			if slices.Contains(rt.pathTildes, name) {
				value = "~"
			}
			path = strings.Replace(path, "{"+name+"}", value, 1)
		}
		res := ts.doNoRedirect(t, rt.method, path, "")
		unauthenticated := res.status == http.StatusUnauthorized && res.body == `{"detail":"Not authenticated"}`
		if unauthenticated == rt.open {
			t.Errorf("%s %s without a token = %d %s; open %v", rt.method, path, res.status, res.body, rt.open)
		}
	}
	if n := len(ts.srv.v2Routes().routes); n < 100 {
		t.Fatalf("%d rows walked, want edition 3's whole table", n)
	}
	slices.Sort(open)
	if !slices.Equal(open, airflowNoAuthPaths) {
		t.Errorf("open rows %v, want NO_AUTH_PATHS %v", open, airflowNoAuthPaths)
	}
}

// TestAPIv2_AirflowInvalidRoutes: test_invalid_routes_return_404.
func TestAPIv2_AirflowInvalidRoutes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, path := range []string{"/api/v2/nonexistent", "/api/nonexistent"} {
		if res := ts.do(t, http.MethodGet, path, ""); res.status != http.StatusNotFound || res.body != `{"error":"API route not found"}` {
			t.Errorf("GET %s = %d %s, want 404 API route not found", path, res.status, res.body)
		}
	}
}
