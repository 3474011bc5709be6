package main

import (
	"net/http"
	"testing"
)

// The resource routes ask for the caller first (test_*.py's
// test_should_respond_401): without a token a body the model refuses is
// still a 401, and with one the route answers.
func TestAPIv2_Resources_NeedAToken(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withAuth(authSimple, "ann:secret\n"))
	const notAuth = `{"detail":"Not authenticated"}`
	for _, c := range []struct {
		method, path, body string
		withToken          int
	}{
		{"GET", "/api/v2/pools", "", 200},
		{"POST", "/api/v2/pools", `{}`, 422},
		{"PATCH", "/api/v2/pools", `{}`, 422},
		{"DELETE", "/api/v2/pools/pool1", "", 404},
		{"GET", "/api/v2/variables/x", "", 404},
		{"PATCH", "/api/v2/variables", `{"actions": []}`, 200},
		{"POST", "/api/v2/connections", `{}`, 422},
		{"POST", "/api/v2/connections/test", `{"connection_id": "c", "conn_type": "t"}`, 403},
		{"GET", "/api/v2/assets", "", 200},
		{"POST", "/api/v2/assets/events", `{"asset_id": 1}`, 404},
	} {
		if res := ts.do(t, c.method, c.path, c.body); res.status != http.StatusUnauthorized || res.body != notAuth {
			t.Errorf("%s %s without a token = %d %s, want 401 %s", c.method, c.path, res.status, res.body, notAuth)
		}
		if res := ts.do(t, c.method, c.path, c.body, ts.bearer(t, "ann")...); res.status != c.withToken {
			t.Errorf("%s %s with a token = %d %s, want %d", c.method, c.path, res.status, res.body, c.withToken)
		}
	}
}
