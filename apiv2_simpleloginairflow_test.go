package main

import (
	"net/http"
	"testing"
)

// TestAuthV2_AirflowSimpleLoginService: Airflow 3.2's
// auth/managers/simple/services/test_login.py (c57fba0e airflow-core/tests/
// unit/api_fastapi/auth/managers/simple/services/test_login.py:80-125)
// through POST /auth/token, which calls SimpleAuthManagerLogin.create_token:
// an empty username or password is 400 Username and password must be
// provided with users; in all-admins mode every body gets a token. Its
// test_create_token (a token's claims per role and team) needs roles and
// teams, which airlite's users do not have; the claims are checkIssued's.
func TestAuthV2_AirflowSimpleLoginService(t *testing.T) {
	t.Parallel()
	simple := newV2AuthServer(t, authSimple, "test:test\n")
	admins := newV2AuthServer(t, authDefault, "")
	const refused = `{"detail":"Username and password must be provided"}`
	for _, body := range []string{`{"username": "test", "password": ""}`, `{"username": "", "password": "test"}`, `{"username": "", "password": ""}`} {
		if res := simple.do(t, http.MethodPost, "/auth/token", body, "Content-Type", "application/json"); res.status != http.StatusBadRequest || res.body != refused {
			t.Errorf("users, %s = %d %s, want 400 %s", body, res.status, res.body, refused)
		}
	}
	for _, body := range []string{`{"username": "test", "password": ""}`, `{"username": "", "password": "test"}`, `{"username": "", "password": ""}`, `{"username": "test", "password": "test"}`} {
		checkIssued(t, tokenOf(t, admins.do(t, http.MethodPost, "/auth/token", body, "Content-Type", "application/json")), "Anonymous", "ADMIN", jwtExpiration)
	}
	// test_create_token_all_admins and _config_disabled.
	checkIssued(t, tokenOf(t, admins.do(t, http.MethodGet, "/auth/token", "")), "Anonymous", "ADMIN", jwtExpiration)
	if res := simple.do(t, http.MethodGet, "/auth/token", ""); res.status != http.StatusForbidden {
		t.Errorf("GET /auth/token with users = %d %s, want 403", res.status, res.body)
	}
}
