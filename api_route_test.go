package main

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"
)

// detailError is the toy dialect's error: FastAPI's {"detail": ...}.
type detailError struct {
	status int
	detail any
}

func (e *detailError) Error() string { return "detail error" }

// bearerIdentifier and bearerRefusal are a toy bearer-token backend: the
// token "good" is the user "ann".
type bearerIdentifier struct{}

func (bearerIdentifier) identify(r *http.Request) (caller, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !ok:
		return caller{}, errNoCredentials
	case token != "good":
		return caller{}, errBadCredentials
	}
	return caller{user: "ann", via: "bearer"}, nil
}

type bearerRefusal struct{}

func (bearerRefusal) refuse(_ caller, failure error) rejection {
	if failure != nil {
		return rejection{status: http.StatusUnauthorized, body: "Not authenticated"}
	}
	return rejection{}
}

// TestDialect_NewAPIIsDataOnly builds an API the framework has never seen
// (FastAPI's error form, 422 query errors, bearer tokens: what Airflow 3's
// /api/v2 needs) from a dialect value and a route table alone, and checks
// that the framework serves it in that dialect: the caller from its own
// identifiers, its refusal, its query check, its phrasebook on an
// operation's fault, its rendering.
func TestDialect_NewAPIIsDataOnly(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	s := ts.srv
	writeDetail := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	d := &dialect{
		name: "toy", prefix: "/api/toy", headOfGet: true,
		auth: &authenticator{backend: "toy", identifiers: []identifier{bearerIdentifier{}}, refuser: bearerRefusal{}},
		refusal: func(rej rejection) error {
			if rej.status != 0 {
				return &detailError{status: rej.status, detail: rej.body}
			}
			return nil
		},
		query: func(q url.Values, params []v1Param) (v1Values, error) {
			for name := range q {
				if name != "fields" {
					return nil, &detailError{status: http.StatusUnprocessableEntity,
						detail: []map[string]any{{"type": "extra_forbidden", "loc": []string{"query", name}}}}
				}
			}
			return v1Values(q), nil
		},
		render: func(w http.ResponseWriter, _ *http.Request, status int, v any) { writeDetail(w, status, v) },
		fail: func(w http.ResponseWriter, _ *http.Request, err error) {
			var de *detailError
			if !errors.As(err, &de) {
				de = &detailError{status: http.StatusInternalServerError, detail: err.Error()}
			}
			writeDetail(w, de.status, map[string]any{"detail": de.detail})
		},
		phrases: phrasebook{
			faultDagNotLoaded: func(e *opError) error {
				return &detailError{status: http.StatusNotFound, detail: "The Dag with ID: `" + e.value("dag_id") + "` was not found"}
			},
			faultDagNotFound: func(e *opError) error {
				return &detailError{status: http.StatusNotFound, detail: "The Dag with ID: `" + e.value("dag_id") + "` was not found"}
			},
		},
	}
	table := &routeTable{dialect: d}
	table.add(http.MethodGet, "/version", d.answer(s, func(*apiRequest) (any, error) { return map[string]any{"version": "toy"}, nil }), openRoute)
	table.add(http.MethodGet, "/dags/:dag_id", d.answer(s, func(req *apiRequest) (any, error) {
		row, err := s.ops.dagDefinition(req.param("dag_id"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"dag_id": row.DagID, "asked_by": req.caller.user, "fields": req.query.list("fields")}, nil
	}), withQuery(v1Param{name: "fields"}))
	r := httprouter.New()
	s.mount(r, table)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name, path, token string
		wantStatus        int
		wantBody          string
	}{
		{"open row", "/api/toy/version", "", 200, `{"version":"toy"}`},
		{"no token", "/api/toy/dags/tutorial", "", 401, `{"detail":"Not authenticated"}`},
		{"bad token", "/api/toy/dags/tutorial", "bad", 401, `{"detail":"Not authenticated"}`},
		{"caller and query", "/api/toy/dags/tutorial?fields=dag_id", "good", 200, `{"asked_by":"ann","dag_id":"tutorial","fields":["dag_id"]}`},
		{"query refused in its form", "/api/toy/dags/tutorial?nope=1", "good", 422, `{"detail":[{"loc":["query","nope"],"type":"extra_forbidden"}]}`},
		{"fault in its words", "/api/toy/dags/nope", "good", 404, "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.wantStatus || strings.TrimSpace(string(body)) != tc.wantBody {
				t.Errorf("GET %s = %d %s, want %d %s", tc.path, res.StatusCode, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestRouteTables_ServerGoIsWiring checks that no endpoint handler lives in
// server.go: every API's endpoints are rows of its route table
// (api_route_*.go), and server.go keeps the wiring, the middleware and the
// router's own answers (no route, wrong method, OPTIONS, panics, the
// webserver's /health).
func TestRouteTables_ServerGoIsWiring(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"handleNotFound": true, "handleMethodNotAllowed": true, "handleOptions": true,
		"handlePanic": true, "handleHealthAirflow": true}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if strings.HasPrefix(fn.Name.Name, "handle") && !allowed[fn.Name.Name] {
			t.Errorf("server.go declares the handler %s: make it a route-table row", fn.Name.Name)
		}
		for _, p := range fn.Type.Params.List {
			if star, ok := p.Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && (id.Name == "apiRequest" || id.Name == "v1Request") {
					t.Errorf("server.go declares %s taking a route's request: make it a route-table row", fn.Name.Name)
				}
			}
		}
	}
}
