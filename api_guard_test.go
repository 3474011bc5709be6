package main

// Browser attacks on the handler chain: a page of another site, or one
// that reached airlite through DNS rebinding, gets a 403 on every route it
// could use and changes nothing; clients that are not browsers, and
// airlite's own pages, pass as before.

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// guardRoute is one request a hostile page would send.
type guardRoute struct {
	method, path, body string
}

// attackRoutes are the routes a page could use to change or read state:
// every state-changing route of the API, the admin endpoints and the
// status pages' forms, and reads that leak state.
func attackRoutes(e edition) []guardRoute {
	const dagYAML = "dag_id: evil\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n    bash_command: touch /tmp/airlite-guard-pwned\n"
	routes := []guardRoute{
		{"POST", apiPrefix + "/dags/example_bash_operator/dag_runs", `{"conf": {"x": 1}}`},
		{"GET", apiPrefix + "/dags/example_bash_operator/paused/true", ""},
		{"POST", apiPrefix + "/pools", `{"name": "evil", "slots": 1, "description": ""}`},
		{"DELETE", apiPrefix + "/pools/default_pool", ""},
		{"GET", apiPrefix + "/latest_runs", ""},
		{"GET", apiPrefix + "/dags/example_bash_operator/dag_runs", ""},
		{"POST", "/_airlite/reset", ""},
		{"POST", "/_airlite/dags", dagYAML},
		{"POST", "/_airlite/dags/example_bash_operator/dag_runs/seeded/state", `{"state": "failed"}`},
		{"POST", "/_airlite/dags/example_bash_operator/dag_runs/seeded/tasks/runme_0/state", `{"state": "failed"}`},
		{"POST", "/_airlite/clock", `{"advance": "1h"}`},
		{"GET", "/_airlite/requests", ""},
		{"DELETE", "/_airlite/requests", ""},
		{"POST", "/trigger", "dag_id=example_bash_operator&conf="},
		{"POST", "/paused", "dag_id=example_bash_operator&paused=true"},
	}
	if e != edition110RBAC {
		routes = append(routes, guardRoute{"DELETE", apiPrefix + "/dags/example_bash_operator", ""})
	}
	if e.rules().apiV1 {
		// The stable API's writes, and reads of what a page must not see.
		routes = append(routes,
			guardRoute{"POST", apiV1Prefix + "/dags/example_bash_operator/dagRuns", `{"conf": {"x": 1}}`},
			guardRoute{"PATCH", apiV1Prefix + "/dags/example_bash_operator", `{"is_paused": true}`},
			guardRoute{"POST", apiV1Prefix + "/dags/example_bash_operator/clearTaskInstances", `{"dry_run": false}`},
			guardRoute{"POST", apiV1Prefix + "/variables", `{"key": "k", "value": "$(touch /tmp/airlite-guard-pwned)"}`},
			guardRoute{"POST", apiV1Prefix + "/connections", `{"connection_id": "c", "conn_type": "http"}`},
			guardRoute{"POST", apiV1Prefix + "/pools", `{"name": "evil", "slots": 1}`},
			guardRoute{"DELETE", apiV1Prefix + "/dags/example_bash_operator", ""},
			guardRoute{"GET", apiV1Prefix + "/connections", ""},
			guardRoute{"GET", apiV1Prefix + "/eventLogs", ""},
		)
	}
	return routes
}

// guardState is what an attack must leave as it was.
type guardState struct {
	change  int64
	clock   time.Time
	entries int
}

func captureGuardState(ts *testServer) guardState {
	return guardState{
		change:  ts.store.ChangeIndex(),
		clock:   ts.srv.opts.Clock.Now(),
		entries: len(ts.srv.opts.Journal.list(journalFilter{})),
	}
}

// sendAs sends a request with a chosen Host and browser headers.
func sendAs(t *testing.T, ts *testServer, host string, rt guardRoute, header map[string]string) response {
	t.Helper()
	return sendTo(t, ts.Client(), ts.URL, host, rt, header)
}

// sendTo sends a request to base with a chosen Host ("" keeps the
// dialled address) and headers, as a browser page would.
func sendTo(t *testing.T, client *http.Client, base, host string, rt guardRoute, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(rt.method, base+rt.path, strings.NewReader(rt.body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", rt.method, rt.path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

func newGuardServer(t *testing.T, e edition, policy browserPolicy) *testServer {
	t.Helper()
	ts := newTestServer(t, e, withOptions(func(o *serverOptions) {
		o.Browser = policy
		o.Clock = newFakeClock(testNow)
		o.Journal = newJournal(100)
	}))
	ts.trigger(t, "example_bash_operator", `{"run_id": "seeded", "execution_date": "2024-05-01T00:00:00+00:00"}`)
	return ts
}

func TestGuard_CrossSiteAndRebindingRefused(t *testing.T) {
	t.Parallel()
	probes := []struct {
		name   string
		host   func(ts *testServer) string // "" keeps the dialled address
		header map[string]string
		want   string // words of the error
	}{
		{"origin of another site, text/plain", nil,
			map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}, "https://evil.example"},
		{"fetch no-cors from another site", nil, map[string]string{"Origin": "https://evil.example",
			"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Content-Type": "text/plain"}, "https://evil.example"},
		{"another port of localhost", nil, map[string]string{"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}, "http://localhost:3000"},
		{"img or link without Origin", nil, map[string]string{"Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site: cross-site"},
		{"sandboxed frame", nil, map[string]string{"Origin": "null"}, "null"},
		{"old browser, origin of another port", nil, map[string]string{"Origin": "http://127.0.0.1:1"}, "http://127.0.0.1:1"},
		{"DNS rebinding", func(ts *testServer) string { return "rebind.evil.example:" + ts.port() },
			map[string]string{"Sec-Fetch-Site": "same-origin"}, "DNS rebinding"},
		{"DNS rebinding, no browser headers", func(*testServer) string { return "evil.example" }, nil, "--allowed-hosts"},
		// Over plain http to a name that is not loopback, Chromium 156
		// sends no Sec-Fetch-* and no Origin with an <img> or a <script>
		// (seen: a page of evil.example loading airlite.lan); the
		// Referer, in the default policy, names the page's origin.
		{"img over plain http, Referer only", nil,
			map[string]string{"Referer": "http://evil.example:8798/", "Accept": "image/avif,image/webp,*/*;q=0.8"}, "http://evil.example:8798"},
		{"Referer of another port", nil, map[string]string{"Referer": "http://127.0.0.1:1/page"}, "http://127.0.0.1:1"},
		{"Referer that names no page", nil, map[string]string{"Referer": "page.html"}, "page.html"},
	}
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newGuardServer(t, e, browserPolicy{HostCheck: true})
			for _, p := range probes {
				for _, rt := range attackRoutes(e) {
					before := captureGuardState(ts)
					host := ""
					if p.host != nil {
						host = p.host(ts)
					}
					res := sendAs(t, ts, host, rt, p.header)
					name := p.name + ": " + rt.method + " " + rt.path
					if res.status != http.StatusForbidden || !strings.Contains(res.body, p.want) {
						t.Errorf("%s: %d %.200s, want 403 naming %q", name, res.status, res.body, p.want)
					}
					if strings.HasPrefix(rt.path, "/api/") || strings.HasPrefix(rt.path, "/_airlite/") {
						checkJSONError(t, name, res)
					}
					after := captureGuardState(ts)
					if after.change != before.change || !after.clock.Equal(before.clock) || after.entries < before.entries {
						t.Errorf("%s changed state: %+v -> %+v", name, before, after)
					}
				}
			}
		})
	}
}

func (ts *testServer) port() string { return ts.URL[strings.LastIndexByte(ts.URL, ':')+1:] }

func TestGuard_ClientsAndOwnPagesPass(t *testing.T) {
	t.Parallel()
	trigger := guardRoute{"POST", apiPrefix + "/dags/example_bash_operator/dag_runs", `{"replace_microseconds": "false"}`}
	cases := []struct {
		name   string
		policy browserPolicy
		host   string
		route  guardRoute
		header map[string]string
		want   int
	}{
		{"curl, text/plain body", browserPolicy{HostCheck: true}, "", trigger, map[string]string{"Content-Type": "text/plain"}, 200},
		{"Host localhost", browserPolicy{HostCheck: true}, "localhost:8080", trigger, nil, 200},
		{"Host localhost.", browserPolicy{HostCheck: true}, "localhost.:8080", trigger, nil, 200},
		{"Host app.localhost", browserPolicy{HostCheck: true}, "app.localhost", trigger, nil, 200},
		{"Host [::1]", browserPolicy{HostCheck: true}, "[::1]:8080", trigger, nil, 200},
		{"Host 127.0.0.2", browserPolicy{HostCheck: true}, "127.0.0.2", trigger, nil, 200},
		{"Host allowed on purpose", browserPolicy{HostCheck: true, AllowedHosts: []string{"airlite.lan"}}, "AIRLITE.lan:80", trigger, nil, 200},
		{"any Host with *", browserPolicy{HostCheck: true, AllowedHosts: []string{"*"}}, "whatever.example", trigger, nil, 200},
		{"no Host check beyond loopback", browserPolicy{}, "box.example:8080", trigger, nil, 200},
		{"own page, same-origin fetch", browserPolicy{HostCheck: true}, "", trigger,
			map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "same"}, 200},
		{"typed in the address bar", browserPolicy{HostCheck: true}, "", guardRoute{"GET", apiPrefix + "/test", ""},
			map[string]string{"Sec-Fetch-Site": "none"}, 200},
		{"status page opened from a link elsewhere", browserPolicy{HostCheck: true}, "", guardRoute{"GET", "/", ""},
			map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 200},
		{"allowed origin", browserPolicy{HostCheck: true, AllowedOrigins: []string{"https://dash.example"}}, "", trigger,
			map[string]string{"Origin": "https://Dash.example", "Sec-Fetch-Site": "cross-site"}, 200},
		{"own page over plain http, Referer only", browserPolicy{HostCheck: true, AllowedHosts: []string{"airlite.lan"}}, "airlite.lan:8080",
			guardRoute{"GET", apiPrefix + "/test", ""}, map[string]string{"Referer": "http://AIRLITE.lan:8080/dags"}, 200},
		{"own page behind a TLS proxy, Referer only", browserPolicy{HostCheck: true, AllowedHosts: []string{"airlite.lan"}}, "airlite.lan",
			guardRoute{"GET", apiPrefix + "/test", ""}, map[string]string{"Referer": "https://airlite.lan/"}, 200},
		{"allowed origin's page, Referer only", browserPolicy{HostCheck: true, AllowedOrigins: []string{"http://dash.example"}}, "",
			guardRoute{"GET", apiPrefix + "/test", ""}, map[string]string{"Referer": "http://dash.example/board?x=1"}, 200},
		{"status page from a link elsewhere, Referer only", browserPolicy{HostCheck: true}, "", guardRoute{"GET", "/", ""},
			map[string]string{"Referer": "http://evil.example/"}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newGuardServer(t, edition2, tc.policy)
			header := tc.header
			if header["Origin"] == "same" {
				header = map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": ts.URL}
			}
			res := sendAs(t, ts, tc.host, tc.route, header)
			if res.status != tc.want {
				t.Fatalf("%d %.300s, want %d", res.status, res.body, tc.want)
			}
		})
	}
}

func TestGuard_AllowedOriginGetsCORS(t *testing.T) {
	t.Parallel()
	ts := newGuardServer(t, edition2, browserPolicy{HostCheck: true, AllowedOrigins: []string{"https://dash.example"}})
	pre := sendAs(t, ts, "", guardRoute{"OPTIONS", apiPrefix + "/dags/example_bash_operator/dag_runs", ""},
		map[string]string{"Origin": "https://dash.example", "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "content-type", "Sec-Fetch-Site": "cross-site"})
	if pre.status != http.StatusOK || pre.header.Get("Access-Control-Allow-Origin") != "https://dash.example" ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight: %d %v", pre.status, pre.header)
	}
	res := sendAs(t, ts, "", guardRoute{"GET", apiPrefix + "/test", ""},
		map[string]string{"Origin": "https://dash.example", "Sec-Fetch-Site": "cross-site"})
	if res.header.Get("Access-Control-Allow-Origin") != "https://dash.example" || res.header.Get("Vary") != "Origin" {
		t.Errorf("answer to an allowed origin lacks CORS headers: %v", res.header)
	}
	other := sendAs(t, ts, "", guardRoute{"GET", apiPrefix + "/test", ""}, map[string]string{"Origin": "https://evil.example"})
	if other.status != http.StatusForbidden || other.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin: %d %v", other.status, other.header)
	}
	plain := sendAs(t, ts, "", guardRoute{"GET", apiPrefix + "/test", ""}, nil)
	if plain.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a request without Origin got CORS headers: %v", plain.header)
	}
}

// The form of the status page is refused with the error page, not JSON.
func TestGuard_FormRefusalIsAPage(t *testing.T) {
	t.Parallel()
	ts := newGuardServer(t, edition2, browserPolicy{HostCheck: true})
	res := sendAs(t, ts, "", guardRoute{"POST", "/trigger", "dag_id=example_bash_operator&conf="},
		map[string]string{"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"})
	if res.status != http.StatusForbidden || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(res.body, "cross-site request refused") {
		t.Errorf("%d %s %.300s", res.status, res.header.Get("Content-Type"), res.body)
	}
	if json.Valid([]byte(res.body)) {
		t.Error("the form's refusal is JSON, want the error page")
	}
}

func TestParseAllowedLists(t *testing.T) {
	t.Parallel()
	origins, err := parseAllowedOrigins(" https://Dash.example , http://localhost:3000")
	if err != nil || len(origins) != 2 || origins[0] != "https://dash.example" {
		t.Errorf("origins = %q, %v", origins, err)
	}
	for _, bad := range []string{"dash.example", "https://dash.example/", "ftp://x", "https://u@x", "*"} {
		if _, err := parseAllowedOrigins(bad); err == nil || !strings.Contains(err.Error(), "--allowed-origins") {
			t.Errorf("parseAllowedOrigins(%q) = %v, want an error naming the flag", bad, err)
		}
	}
	hosts, err := parseAllowedHosts("Airlite.LAN,*")
	if err != nil || len(hosts) != 2 || hosts[0] != "airlite.lan" {
		t.Errorf("hosts = %q, %v", hosts, err)
	}
	for _, bad := range []string{"airlite.lan:8080", "http://x", ".lan"} {
		if _, err := parseAllowedHosts(bad); err == nil || !strings.Contains(err.Error(), "--allowed-hosts") {
			t.Errorf("parseAllowedHosts(%q) = %v, want an error naming the flag", bad, err)
		}
	}
}

// TestGuard_RealBinary attacks the built binary as a web page would: it
// loads a DAG whose task creates a marker file and triggers it, across
// sites and through DNS rebinding. Every step is refused and the marker
// never appears; then a client that is not a browser does the same and
// the marker appears, which proves the attack would have worked.
func TestGuard_RealBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	base := startAirlite(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	dagYAML := "dag_id: evil\nschedule_interval: null\ntasks:\n  - task_id: t\n    operator: BashOperator\n    bash_command: touch " + marker + "\n"
	trigger := `{"run_id": "r1"}`
	port := base[strings.LastIndexByte(base, ':')+1:]
	send := func(method, path, host, body string, header map[string]string) (int, string) {
		t.Helper()
		res := sendTo(t, http.DefaultClient, base, host, guardRoute{method, path, body}, header)
		return res.status, res.body
	}
	crossSite := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site",
		"Sec-Fetch-Mode": "no-cors", "Content-Type": "text/plain;charset=UTF-8"}
	rebound := map[string]string{"Origin": "http://evil.example:" + port, "Sec-Fetch-Site": "same-origin",
		"Content-Type": "text/plain;charset=UTF-8"}
	for _, attack := range []struct {
		name, host string
		header     map[string]string
	}{
		{"cross-site", "", crossSite},
		{"DNS rebinding", "evil.example:" + port, rebound},
	} {
		for _, step := range []guardRoute{
			{"POST", "/_airlite/dags", dagYAML},
			{"POST", apiPrefix + "/dags/evil/dag_runs", trigger},
			{"POST", apiPrefix + "/dags/example_bash_operator/dag_runs", trigger},
			{"GET", "/_airlite/requests", ""},
		} {
			if status, body := send(step.method, step.path, attack.host, step.body, attack.header); status != http.StatusForbidden {
				t.Errorf("%s %s %s: %d %.200s, want 403", attack.name, step.method, step.path, status, body)
			}
		}
	}
	if status, body := send("GET", apiPrefix+"/dags/evil/tasks/t", "", "", nil); status != http.StatusNotFound {
		t.Fatalf("the refused DAG was loaded: %d %s", status, body)
	}
	if status, body := send("GET", apiPrefix+"/dags/example_bash_operator/dag_runs", "", "", nil); status != http.StatusOK || strings.Contains(body, `"r1"`) {
		t.Fatalf("a refused trigger created a run: %d %s", status, body)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker exists after refused attacks: %v", err)
	}
	// The same requests from a client that is not a browser go through.
	if status, body := send("POST", "/_airlite/dags", "", dagYAML, map[string]string{"Content-Type": "text/plain"}); status != http.StatusOK && status != http.StatusCreated {
		t.Fatalf("load as a client: %d %s", status, body)
	}
	if status, body := send("POST", apiPrefix+"/dags/evil/dag_runs", "", trigger, nil); status != http.StatusOK {
		t.Fatalf("trigger as a client: %d %s", status, body)
	}
	if status, body := send("GET", "/_airlite/dags/evil/dag_runs/r1/wait?timeout=60s", "", "", nil); status != http.StatusOK ||
		!strings.Contains(body, `"success"`) {
		t.Fatalf("wait: %d %s", status, body)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the positive control did not create its marker: %v", err)
	}
}

// In edition 3 a preflight from an allowed origin is answered as
// Starlette's CORSMiddleware answers it (Airflow 3 adds it when CORS is
// configured): 200 "OK" with the CORS headers, before any route, which
// would answer OPTIONS with a 405 a browser takes for a refusal.
func TestGuard_AllowedOriginPreflightV2(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) {
		o.Browser = browserPolicy{HostCheck: true, AllowedOrigins: []string{"https://dash.example"}}
	}))
	for _, path := range []string{apiV2Prefix + "/pools", "/auth/token"} {
		pre := sendAs(t, ts, "", guardRoute{"OPTIONS", path, ""},
			map[string]string{"Origin": "https://dash.example", "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "authorization", "Sec-Fetch-Site": "cross-site"})
		if pre.status != http.StatusOK || pre.body != "OK" || pre.header.Get("Access-Control-Allow-Origin") != "https://dash.example" ||
			!strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Errorf("preflight of %s: %d %q %v", path, pre.status, pre.body, pre.header)
		}
	}
	// An OPTIONS that is no preflight still reaches the routes.
	if res := sendAs(t, ts, "", guardRoute{"OPTIONS", apiV2Prefix + "/pools", ""}, nil); res.status != http.StatusMethodNotAllowed {
		t.Errorf("OPTIONS without a preflight: %d %s", res.status, res.body)
	}
}
