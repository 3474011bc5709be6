package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Airflow 3.2's core_api/test_security.py (c57fba0e airflow-core/tests/
// unit/api_fastapi/core_api/test_security.py:375-433): is_safe_url's cases
// as GET /api/v2/auth/login?next= sees them, 307 for a safe URL and 400
// Invalid or unsafe next URL for another. airlite has no [api] base_url and
// serves at /, so the request's base URL is http://{its host}/ and
// requesting_server_base_url.com is that host; each row's want is what
// is_safe_url answers for that base (computed with c57fba0e's function):
// the rows test_is_safe_url refuses only for escaping its /prefix folder
// are safe at /. The rest of test_security.py tests the auth manager's
// permission checks, which airlite's users (all admins) never fail.

// TestAPIv2_AirflowIsSafeURL: test_is_safe_url and
// test_is_safe_url_with_base_url_unset.
func TestAPIv2_AirflowIsSafeURL(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		next string
		safe bool
	}{
		{"https://server_base_url.com/prefix/some_page?with_param=3", false},
		{"https://server_base_url.com/prefix/", false},
		{"https://server_base_url.com/prefix", false},
		{"/prefix/some_other", true},
		{"prefix/some_other", true},
		{"https://requesting_server_base_url.com/prefix2", true},
		{"some_other", true},
		{"./some_other", true},
		{"javascript://server_base_url.com/prefix/some_page?with_param=3", false},
		{"javascript://requesting_server_base_url.com/prefix2", false},
		{"https://some_netlock.com/prefix/some_page?with_param=3", false},
		{"/some_other_page/", true},
		{"/../../../../some_page?with_param=3", true},
		{"https%3A%2F%2Frequesting_server_base_url.com%2Fprefix2", true},
		{"https%3A%2F%2Fserver_base_url.com%2Fprefix", false},
		{"https%3A%2F%2Fsome_netlock.com%2Fprefix%2Fsome_page%3Fwith_param%3D3", false},
		{"https%3A%2F%2Frequesting_server_base_url.com%2Fprefix2%2Fsub_path", true},
		{"%2F..%2F..%2F..%2F..%2Fsome_page%3Fwith_param%3D3", true},
	} {
		next := strings.ReplaceAll(tc.next, "requesting_server_base_url.com", host)
		res := ts.doNoRedirect(t, http.MethodGet, "/api/v2/auth/login?next="+url.QueryEscape(next), "")
		wantLocation := "/auth/token/login?" + url.Values{"next": {next}}.Encode()
		switch {
		case tc.safe && (res.status != http.StatusTemporaryRedirect || res.header.Get("Location") != wantLocation):
			t.Errorf("next %s = %d %s, Location %q; want 307 to %s", next, res.status, res.body, res.header.Get("Location"), wantLocation)
		case !tc.safe && (res.status != http.StatusBadRequest || res.body != `{"detail":"Invalid or unsafe next URL"}`):
			t.Errorf("next %s = %d %s, want 400 Invalid or unsafe next URL", next, res.status, res.body)
		}
	}
}
