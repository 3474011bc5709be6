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

// TestAPIv2_BulkDelete_EntityObjects: BulkDeleteAction's entities are
// list[str | T] in Airflow 3.2.1 (datamodels/common.py; the document's
// anyOf string or the entity's model). A value that is neither is
// pydantic's union error, one entry per member; an entity object passes
// the model, and then the services' set(action.entities) raises on the
// unhashable model: Starlette's 500, and the request's session, the
// actions before it included, is rolled back.
func TestAPIv2_BulkDelete_EntityObjects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, body string
		wantStatus       int
		wantBody         string
	}{
		{"a number", "/api/v2/pools", `{"actions":[{"action":"delete","entities":[5]}]}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","actions",0,"delete","entities",0,"str"],"msg":"Input should be a valid string","input":5},` +
				`{"type":"model_attributes_type","loc":["body","actions",0,"delete","entities",0,"PoolBody"],"msg":"Input should be a valid dictionary or object to extract fields from","input":5}]}`},
		{"an object the model refuses", "/api/v2/variables", `{"actions":[{"action":"delete","entities":["v1",{"key":"v1"}]}]}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","actions",0,"delete","entities",1,"str"],"msg":"Input should be a valid string","input":{"key":"v1"}},` +
				`{"type":"missing","loc":["body","actions",0,"delete","entities",1,"VariableBody","value"],"msg":"Field required","input":{"key":"v1"}}]}`},
		{"a pool object", "/api/v2/pools",
			`{"actions":[{"action":"create","entities":[{"name":"made","slots":1}]},{"action":"delete","entities":[{"name":"pool1","slots":3}]}]}`,
			500, "Internal Server Error"},
		{"a connection object", "/api/v2/connections", `{"actions":[{"action":"delete","entities":[{"connection_id":"c1","conn_type":"x"}]}]}`,
			500, "Internal Server Error"},
		{"ids still delete", "/api/v2/pools", `{"actions":[{"action":"delete","entities":["pool1"]}]}`, 200,
			`{"create":null,"update":null,"delete":{"success":["pool1"],"errors":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition3)
			for _, setup := range [][2]string{
				{"/api/v2/pools", `{"name":"pool1","slots":3}`},
				{"/api/v2/variables", `{"key":"v1","value":"x"}`},
				{"/api/v2/connections", `{"connection_id":"c1","conn_type":"x"}`},
			} {
				if res := ts.do(t, http.MethodPost, setup[0], setup[1]); res.status != http.StatusCreated {
					t.Fatalf("POST %s = %d %s", setup[0], res.status, res.body)
				}
			}
			res := ts.do(t, http.MethodPatch, tc.path, tc.body)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("PATCH %s = %d %s, want %d %s", tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == http.StatusInternalServerError {
				// Rolled back: the create before the crash made nothing.
				if res := ts.do(t, http.MethodGet, "/api/v2/pools/made", ""); res.status != http.StatusNotFound {
					t.Errorf("pool made by the crashed request: %d %s", res.status, res.body)
				}
			}
		})
	}
}
