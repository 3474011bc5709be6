package main

import (
	"net/http"
	"testing"
)

// TestAPIv2_AirflowAllAdminsWithoutAuthHeader: Airflow 3.2's
// auth/managers/simple/test_middleware.py test_all_endpoints_without_auth_header
// (c57fba0e airflow-core/tests/unit/api_fastapi/auth/managers/simple/
// test_middleware.py:42-62): with simple_auth_manager_all_admins, a request
// without an Authorization header is never refused (no 401, no 403).
// airlite's all-admins mode is --auth-backend default, its tests' server.
// GET /api/v2/config is left out: the test exposes the configuration
// ([webserver] expose_config, which [api] expose_config reads), and
// airlite never does, so its answer there is the 403 of expose_config off.
func TestAPIv2_AirflowAllAdminsWithoutAuthHeader(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v2/assets"},
		{http.MethodPost, "/api/v2/backfills"},
		{http.MethodGet, "/api/v2/dags"},
		{http.MethodPost, "/api/v2/dags/{dag_id}/clearTaskInstances"},
		{http.MethodGet, "/api/v2/dags/{dag_id}/dagRuns"},
		{http.MethodGet, "/api/v2/eventLogs"},
		{http.MethodGet, "/api/v2/jobs"},
		{http.MethodGet, "/api/v2/variables"},
		{http.MethodGet, "/api/v2/version"},
	} {
		if res := ts.do(t, c.method, c.path, ""); res.status == http.StatusUnauthorized || res.status == http.StatusForbidden {
			t.Errorf("%s %s without a header = %d %s, want neither 401 nor 403", c.method, c.path, res.status, res.body)
		}
	}
}
