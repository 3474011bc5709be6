package main

import (
	"maps"
	"net/http"
	"slices"
	"testing"
)

// TestV1Router_Match pins how the stable API's router picks an
// operation, as Werkzeug's rules do for connexion's routes: a literal
// segment beats a parameter, an integer parameter takes unsigned digits
// only, a {name:path} parameter takes the rest of the path (more than
// slashes), HEAD is GET, and a path that fits other methods lists them.
func TestV1Router_Match(t *testing.T) {
	ts := newTestServer(t, "2")
	vr := ts.srv.v1Routes()
	for _, tc := range []struct {
		name, method, path string
		wantPattern        string // "" for no route
		wantParams         map[string]string
		wantAllowed        []string
	}{
		{"literal beats parameter", http.MethodPost, "/dags/~/dagRuns/list", "/dags/~/dagRuns/list", nil,
			[]string{http.MethodPost, http.MethodGet, http.MethodPatch, http.MethodDelete}},
		{"parameters", http.MethodGet, "/dags/d1/dagRuns/r1", "/dags/{dag_id}/dagRuns/{dag_run_id}",
			map[string]string{"dag_id": "d1", "dag_run_id": "r1"}, []string{http.MethodGet, http.MethodPatch, http.MethodDelete}},
		{"head is get", http.MethodHead, "/dags/d1/dagRuns/r1", "/dags/{dag_id}/dagRuns/{dag_run_id}",
			map[string]string{"dag_id": "d1", "dag_run_id": "r1"}, []string{http.MethodGet, http.MethodPatch, http.MethodDelete}},
		{"no parameters", http.MethodGet, "/version", "/version", nil, []string{http.MethodGet}},
		{"wrong method", http.MethodDelete, "/version", "", nil, []string{http.MethodGet}},
		{"empty parameter", http.MethodGet, "/dags//dagRuns/r1", "", nil, nil},
		{"integer parameter", http.MethodGet, "/importErrors/12", "/importErrors/{import_error_id}",
			map[string]string{"import_error_id": "12"}, []string{http.MethodGet}},
		{"integer parameter, not digits", http.MethodGet, "/importErrors/-1", "", nil, nil},
		{"path parameter", http.MethodGet, "/variables/a/b//c", "/variables/{variable_key:path}",
			map[string]string{"variable_key": "a/b//c"}, []string{http.MethodGet, http.MethodPatch, http.MethodDelete}},
		{"path parameter after literals", http.MethodGet, "/datasets/queuedEvent/s3/x", "/datasets/queuedEvent/{uri:path}",
			map[string]string{"uri": "s3/x"}, []string{http.MethodGet, http.MethodDelete}},
		{"path parameter of slashes only", http.MethodGet, "/variables//", "", nil, nil},
		{"too long", http.MethodGet, "/version/x", "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, params := vr.match(tc.method, tc.path)
			gotPattern := ""
			if rt != nil {
				gotPattern = rt.pattern
			}
			if gotPattern != tc.wantPattern || !maps.Equal(params, tc.wantParams) {
				t.Errorf("match(%s %s) = %q %v, want %q %v", tc.method, tc.path, gotPattern, params, tc.wantPattern, tc.wantParams)
			}
			if got := vr.allowedMethods(tc.path); !slices.Equal(got, tc.wantAllowed) {
				t.Errorf("allowedMethods(%s) = %v, want %v", tc.path, got, tc.wantAllowed)
			}
		})
	}
}
