package main

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const evil = `<script>alert(1)</script>`

// uiResponse is a page as a browser would get it, without following
// redirects.
func uiDo(t *testing.T, ts *testServer, method, path string, form url.Values, header ...string) response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// checkEscaped fails when the page holds the evil markup as markup: it
// must appear escaped, and the only script element is the refresh script.
func checkEscaped(t *testing.T, page string, wantShown int) {
	t.Helper()
	if strings.Contains(page, evil) {
		t.Errorf("page holds %s unescaped:\n%s", evil, page)
	}
	if n := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < wantShown {
		t.Errorf("page shows the escaped text %d times, want at least %d:\n%s", n, wantShown, page)
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n > 1 {
		t.Errorf("page has %d script elements, want at most the refresh script", n)
	}
}

// TestUI_Templates_Escape renders every page with user data that holds
// markup: a DAG id, a description, tags, a run id, a conf, task output, a
// pool and an error message are all shown as text.
func TestUI_Templates_Escape(t *testing.T) {
	t.Parallel()
	srv := &server{opts: serverOptions{Edition: edition2, Now: func() time.Time { return testNow }}}
	sq := runSquare{DagID: evil, RunID: evil, State: "success", Date: "2024-05-01 10:00:00",
		URL: edition2.dagRunURL(evil, testNow)}
	pages := []struct {
		name  string
		body  any
		shown int
	}{
		{"dags", &dagListView{
			DAGs: []*dagItem{{DagID: evil, Description: evil, Tags: []string{evil}, Schedule: evil,
				Runs: []runSquare{sq}, LastRun: &sq, FormOpen: true, Conf: evil}},
			Triggered:    &sq,
			Error:        &formError{Action: "trigger", DagID: evil, Message: evil},
			ImportErrors: []uiImportError{{File: evil, When: "2024-05-01 10:00:00", Text: evil}},
		}, 10},
		{"run", &runView{DagID: evil, Description: evil, Runs: []runSquare{sq},
			Run:       &runFacts{RunID: evil, State: "running", Conf: `{"x": "` + evil + `"}`, RunType: evil},
			Tasks:     []*taskRow{{TaskID: evil, Operator: evil, State: "running", Tries: []TryLog{{Try: 1, Output: evil}}}},
			HasOutput: true,
			// A task id in a group named with markup, an edge to it, a
			// state that is not one: all in attributes and text.
			Graph: buildGraph(&DAG{Tasks: []*Task{
				{TaskID: evil, Downstream: []string{evil + ".t"}},
				{TaskID: evil + ".t", Upstream: []string{evil}},
			}}, map[string]string{evil: evil}, map[string]bool{evil: true}),
			Grid: buildGrid([]*taskRow{{TaskID: evil}}, []runSquare{sq},
				[]map[string]*TaskInstance{{evil: {TaskID: evil, State: TaskState(evil), TryNumber: 1}}}),
		}, 30},
		{"pools", []poolRow{{Name: evil, Slots: "1", Open: "1", Description: evil}}, 2},
		{"error", errorView{Title: evil, Message: evil}, 2},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			var b bytes.Buffer
			page := srv.newPage(evil, "dags", uiRefreshSeconds, p.body)
			if err := uiPages[p.name].ExecuteTemplate(&b, "layout", page); err != nil {
				t.Fatal(err)
			}
			checkEscaped(t, b.String(), p.shown)
			if p.name == "run" {
				// The graph and grid show the ids as escaped text.
				esc := "&lt;script&gt;alert(1)&lt;/script&gt;"
				for _, want := range []string{`data-group-id="` + esc + `"`, `<g class="node" data-task-id="` + esc + `.t"`,
					`data-from="` + esc + `" data-to="` + esc + `.t"`, `<tr data-grid-task="` + esc + `"><th scope="row">` + esc + `</th>`} {
					if !strings.Contains(b.String(), want) {
						t.Errorf("run page lacks %s", want)
					}
				}
			}
			// In attributes and URLs the markup is escaped too.
			for _, bad := range []string{`id="dag-<`, `href="/dags/<`, `value="<`, `title="<`, `data-task-id="<`,
				`data-group-id="<`, `data-from="<`, `data-to="<`, `data-state="<`, `data-run-id="<`, `data-grid-task="<`, `href="#log-<`, `state-<`} {
				if strings.Contains(b.String(), bad) {
					t.Errorf("page holds %s", bad)
				}
			}
		})
	}
}

// TestUI_Escape_EndToEnd triggers a run with markup in its conf (through
// the form) and in its run id (through the 1.10 API, which allows any),
// stores markup as task output, and reads the pages.
func TestUI_Escape_EndToEnd(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition110)
	res := uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {"example_bash_operator"}, "conf": {`{"x": "` + evil + `"}`}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("trigger: status %d, body %s", res.status, res.body)
	}
	ts.trigger(t, "example_bash_operator", `{"run_id": "`+evil+`", "execution_date": "2024-01-01T00:00:00+00:00"}`)
	run, err := ts.store.RunByRunID("example_bash_operator", evil)
	if err != nil {
		t.Fatal(err)
	}
	err = ts.store.update(func(txn *memdb.Txn) error {
		return txn.Insert(tableTaskLogs, &TaskLog{DagID: run.DagID, RunID: run.RunID, TaskID: "runme_0",
			Tries: []TryLog{{Try: 1, Output: evil + "\n"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	checkEscaped(t, uiDo(t, ts, http.MethodGet, "/", nil).body, 1)
	runPage := uiDo(t, ts, http.MethodGet, edition110.dagRunURL(run.DagID, run.ExecutionDate), nil)
	if runPage.status != http.StatusOK {
		t.Fatalf("run page: status %d, body %s", runPage.status, runPage.body)
	}
	checkEscaped(t, runPage.body, 2) // run id and output
	latest := uiDo(t, ts, http.MethodGet, "/", nil).body
	href := regexp.MustCompile(`href="(/admin/airflow/graph\?[^"]*execution_date=20[^"]*)"`).FindStringSubmatch(latest)
	if href == nil {
		t.Fatalf("no run link on /:\n%s", latest)
	}
	confPage := uiDo(t, ts, http.MethodGet, strings.ReplaceAll(href[1], "&amp;", "&"), nil).body
	checkEscaped(t, confPage, 1)
}

// TestUI_Routes: the run page is where the edition's dag_run_url points,
// every page is HTML with a CSP that matches its inline style and script,
// and the API and admin routes still answer.
func TestUI_Routes(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-05-01T10:00:00+00:00"}`)
			for _, path := range []string{"/", "/pools", e.dagRunURL("example_bash_operator", testNow.Truncate(1e9))} {
				res := uiDo(t, ts, http.MethodGet, path, nil)
				if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
					t.Errorf("GET %s: status %d, type %s, body %s", path, res.status, res.header.Get("Content-Type"), res.body)
					continue
				}
				checkCSP(t, path, res)
				if head := uiDo(t, ts, http.MethodHead, path, nil); head.status != http.StatusOK || head.body != "" {
					t.Errorf("HEAD %s: status %d, body %q", path, head.status, head.body)
				}
			}
			for _, path := range []string{apiPrefix + "/test", apiPrefix + "/pools", "/_airlite/health"} {
				if res := uiDo(t, ts, http.MethodGet, path, nil); res.status != http.StatusOK {
					t.Errorf("GET %s: status %d", path, res.status)
				}
			}
			// Another edition's run path is not a page here.
			for _, other := range allEditions {
				if other == e {
					continue
				}
				path := other.dagRunURL("example_bash_operator", testNow)
				if res := uiDo(t, ts, http.MethodGet, path, nil); res.status != http.StatusNotFound {
					t.Errorf("GET %s: status %d, want 404", path, res.status)
				}
			}
		})
	}
}

// checkCSP checks that the page's inline style and script are the ones
// whose hashes the Content-Security-Policy allows.
func checkCSP(t *testing.T, path string, res response) {
	t.Helper()
	csp := res.header.Get("Content-Security-Policy")
	for _, m := range regexp.MustCompile(`(?s)<(style|script)>(.*?)</(?:style|script)>`).FindAllStringSubmatch(res.body, -1) {
		if !strings.Contains(csp, "'"+cspHash(m[2])+"'") {
			t.Errorf("GET %s: the inline %s's hash is not in the CSP %q", path, m[1], csp)
		}
	}
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("GET %s: CSP %q", path, csp)
	}
}

// TestUI_Trigger posts the trigger form: the run is created by the API's
// TriggerDAG with the conf as typed, and the list shows it; refused
// triggers answer the API's status and message, with the form kept.
func TestUI_Trigger(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	res := uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {"example_bash_operator"}, "conf": {` {"greeting": "<b>hi</b>"} `}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("status %d, body %s", res.status, res.body)
	}
	loc := res.header.Get("Location")
	runs, err := ts.store.RunsOfDag("example_bash_operator", "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v: want one", runs, err)
	}
	if got := string(runs[0].Conf); got != `{"greeting":"<b>hi</b>"}` {
		t.Errorf("stored conf %s", got)
	}
	if want := "/?triggered=example_bash_operator&run_id=" + url.QueryEscape(runs[0].RunID); loc != want {
		t.Errorf("Location %q, want %q", loc, want)
	}
	list := uiDo(t, ts, http.MethodGet, loc, nil)
	wantLink := `id="triggered-run" href="` + strings.ReplaceAll(edition2.dagRunURL("example_bash_operator", runs[0].ExecutionDate), "+", "&#43;") + `"`
	if !strings.Contains(list.body, wantLink) {
		t.Errorf("list has no %s:\n%s", wantLink, list.body)
	}

	for _, tc := range []struct {
		name, dagID, conf string
		wantStatus        int
		wantMsg           string
	}{
		{"not an object", "example_bash_operator", `[1]`, 400, "Dag Run conf must be a dictionary object, other types are not supported"},
		{"not JSON", "example_bash_operator", `{"a":`, 400, "the configuration is not valid JSON"},
		{"unknown DAG", "nope", ``, 404, "Dag id nope not found in DagModel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {tc.dagID}, "conf": {tc.conf}})
			if res.status != tc.wantStatus || !strings.Contains(res.body, tc.wantMsg) {
				t.Errorf("status %d, want %d with %q:\n%s", res.status, tc.wantStatus, tc.wantMsg, res.body)
			}
			if strings.Contains(res.body, "data-refresh") {
				t.Error("a refused post reloads itself (and would post again)")
			}
			if tc.conf != "" && !strings.Contains(res.body, `>`+htmlText(tc.conf)+`</textarea>`) {
				t.Errorf("the form lost the conf %s", tc.conf)
			}
		})
	}
}

func htmlText(s string) string {
	return strings.NewReplacer(`"`, "&#34;", "<", "&lt;", ">", "&gt;", "+", "&#43;", "'", "&#39;").Replace(s)
}

// TestUI_Paused posts the pause switch: the API's SetPaused, then back.
func TestUI_Paused(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	for _, paused := range []bool{true, false} {
		value := map[bool]string{true: "true", false: "false"}[paused]
		res := uiDo(t, ts, http.MethodPost, "/paused", url.Values{"dag_id": {"tutorial"}, "is_paused": {value}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != "/#dag-tutorial" {
			t.Fatalf("pause %s: status %d, Location %q", value, res.status, res.header.Get("Location"))
		}
		row, err := ts.store.DagByID("tutorial")
		if err != nil || row.IsPaused != paused {
			t.Errorf("after is_paused=%s: paused %v, %v", value, row.IsPaused, err)
		}
		list := uiDo(t, ts, http.MethodGet, "/", nil).body
		if want := `value="` + map[bool]string{true: "false", false: "true"}[paused] + `"`; !strings.Contains(list, `name="is_paused" `+want) {
			t.Errorf("the switch does not offer %s", want)
		}
	}
	// An unknown DAG is the trigger form's 404, not the experimental pause
	// endpoint's crash (a 500 that Airflow's own UI never shows).
	for _, edition := range []edition{edition110, edition2, edition3} {
		ts := newTestServer(t, edition)
		res := uiDo(t, ts, http.MethodPost, "/paused", url.Values{"dag_id": {"nope"}, "is_paused": {"true"}})
		if res.status != http.StatusNotFound || !strings.Contains(res.body, "nope not found") {
			t.Errorf("edition %s, unknown DAG: status %d, body %s", edition, res.status, res.body)
		}
	}
}

// TestUI_Auth: every page and form goes through the auth backend.
func TestUI_Auth(t *testing.T) {
	t.Parallel()
	form := url.Values{"dag_id": {"example_bash_operator"}}
	t.Run("basic_auth", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withAuth(authBasic, "alice:secret\n"))
		creds := "Basic " + base64Std("alice:secret")
		for _, path := range []string{"/", "/pools", "/dags/example_bash_operator/graph"} {
			if res := uiDo(t, ts, http.MethodGet, path, nil); res.status != http.StatusUnauthorized || res.header.Get("WWW-Authenticate") != "Basic" {
				t.Errorf("GET %s without credentials: status %d", path, res.status)
			}
			if res := uiDo(t, ts, http.MethodGet, path, nil, "Authorization", creds); res.status != http.StatusOK {
				t.Errorf("GET %s with credentials: status %d, body %s", path, res.status, res.body)
			}
		}
		for _, path := range []string{"/trigger", "/paused"} {
			if res := uiDo(t, ts, http.MethodPost, path, form); res.status != http.StatusUnauthorized {
				t.Errorf("POST %s without credentials: status %d", path, res.status)
			}
		}
		if runs, _ := ts.store.RunsOfDag("example_bash_operator", ""); len(runs) != 0 {
			t.Errorf("a refused trigger created %d runs", len(runs))
		}
		if res := uiDo(t, ts, http.MethodPost, "/trigger", form, "Authorization", creds); res.status != http.StatusSeeOther {
			t.Errorf("POST /trigger with credentials: status %d", res.status)
		}
	})
	t.Run("deny_all", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withAuth(authDenyAll, ""))
		for _, path := range []string{"/", "/pools", "/dags/example_bash_operator/graph"} {
			if res := uiDo(t, ts, http.MethodGet, path, nil); res.status != http.StatusForbidden {
				t.Errorf("GET %s: status %d", path, res.status)
			}
		}
		if res := uiDo(t, ts, http.MethodPost, "/trigger", form); res.status != http.StatusForbidden {
			t.Errorf("POST /trigger: status %d", res.status)
		}
	})
}

// TestUI_CrossOrigin: a form posted from another site is refused.
func TestUI_CrossOrigin(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	form := url.Values{"dag_id": {"example_bash_operator"}}
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "http://evil.example"}} {
		if res := uiDo(t, ts, http.MethodPost, "/trigger", form, h...); res.status != http.StatusForbidden {
			t.Errorf("POST /trigger with %s: status %d", h, res.status)
		}
	}
	if runs, _ := ts.store.RunsOfDag("example_bash_operator", ""); len(runs) != 0 {
		t.Errorf("cross-origin posts created %d runs", len(runs))
	}
	if res := uiDo(t, ts, http.MethodPost, "/trigger", form, "Sec-Fetch-Site", "same-origin"); res.status != http.StatusSeeOther {
		t.Errorf("same-origin POST /trigger: status %d, body %s", res.status, res.body)
	}
}

// TestUI_RunPage_Errors: the run page answers the API's look-up errors.
func TestUI_RunPage_Errors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts1 := newTestServer(t, edition110)
	for _, tc := range []struct {
		ts         *testServer
		path       string
		wantStatus int
		wantText   string
	}{
		{ts, "/dags/nope/graph", 404, "Dag id nope not found in DagModel"},
		{ts, "/dags/tutorial/graph?execution_date=yesterday", 400, "could not be identified as a date"},
		{ts, "/dags/tutorial/graph?execution_date=2024-01-01+00%3A00%3A00%2B00%3A00", 404, "Dag Run for date 2024-01-01 00:00:00+00:00 not found in dag tutorial"},
		{ts, "/dags/tutorial/graph", 200, "This DAG has no runs yet."},
		{ts1, "/admin/airflow/graph", 400, "The link has no dag_id."},
	} {
		res := uiDo(t, tc.ts, http.MethodGet, tc.path, nil)
		if res.status != tc.wantStatus || !strings.Contains(res.body, htmlText(tc.wantText)) {
			t.Errorf("GET %s: status %d, want %d with %q:\n%s", tc.path, res.status, tc.wantStatus, tc.wantText, res.body)
		}
	}
}

// TestUI_SubDAGs: the list leaves sub-DAGs out, and a run page links a
// SubDagOperator to the sub-DAG's run and back.
func TestUI_SubDAGs(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.trigger(t, "example_subdag_operator", `{"execution_date": "2024-05-01T10:00:00+00:00"}`)
	date := testNow.Truncate(1e9)
	if list := uiDo(t, ts, http.MethodGet, "/", nil).body; strings.Contains(list, `data-dag-id="example_subdag_operator.section-1"`) {
		t.Error("the list shows a sub-DAG")
	}
	parent := uiDo(t, ts, http.MethodGet, edition2.dagRunURL("example_subdag_operator", date), nil).body
	child := edition2.dagRunURL("example_subdag_operator.section-1", date)
	if !strings.Contains(parent, `href="`+strings.ReplaceAll(child, "+", "&#43;")+`"`) {
		t.Errorf("the parent run does not link to %s:\n%s", child, parent)
	}
	page := uiDo(t, ts, http.MethodGet, child, nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "parent run") {
		t.Errorf("sub-DAG run page: status %d:\n%s", page.status, page.body)
	}
}

// TestUI_Pools counts the slots that running and queued task instances
// hold.
func TestUI_Pools(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.trigger(t, "example_bash_operator", `{}`)
	runs, _ := ts.store.RunsOfDag("example_bash_operator", "")
	runID := runs[0].RunID
	ts.setTaskState(t, "example_bash_operator", runID, "runme_0", TaskRunning)
	ts.setTaskState(t, "example_bash_operator", runID, "runme_1", TaskRunning)
	ts.setTaskState(t, "example_bash_operator", runID, "runme_2", TaskQueued)
	ts.setTaskState(t, "example_bash_operator", runID, "also_run_this", TaskSuccess)
	if _, err := ts.store.UpsertPool("unbounded", -1, nil); err != nil {
		t.Fatal(err)
	}
	rows, _, err := buildPools(ts.srv.ops, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []poolRow{
		{Name: "default_pool", Slots: "128", Used: 2, Queued: 1, Open: "125", Description: "Default pool"},
		{Name: "unbounded", Slots: "unlimited", Open: "unlimited"},
	}
	if len(rows) != len(want) || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("pools %+v, want %+v", rows, want)
	}
	page := uiDo(t, ts, http.MethodGet, "/pools", nil).body
	if !strings.Contains(page, `<td class="num">125</td>`) {
		t.Errorf("pools page:\n%s", page)
	}
}

func TestUIDuration(t *testing.T) {
	t.Parallel()
	for secs, want := range map[float64]string{0: "0.00 s", 1.015: "1.01 s", 61: "1 min 1 s", 3725: "1 h 2 min", -1: "–"} {
		if got := uiDuration(secs); got != want {
			t.Errorf("uiDuration(%v) = %q, want %q", secs, got, want)
		}
	}
}

// uiRowIDs lists the values of attr on a page's rows, in order.
func uiRowIDs(page, attr string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<tr [^>]*`+attr+`="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestUI_Pagination: the DAG list, the pools page and a run's task list
// show at most uiPageRows rows, say how many there are in all, and link
// to the previous and next rows with ?offset=; every row is on exactly
// one page.
func TestUI_Pagination(t *testing.T) {
	t.Parallel()
	const extra = uiPageRows + 30
	tasks := make([]string, extra)
	for i := range tasks {
		tasks[i] = fmt.Sprintf(`{"task_id": "t%03d", "operator": "EmptyOperator"}`, i)
	}
	ts := newTestServer(t, edition110, withDAG(`{"dag_id": "wide", "start_date": "2024-01-01", "tasks": [`+strings.Join(tasks, ", ")+`]}`))
	for i := 0; i < extra; i++ {
		d, err := parseDAG([]byte(fmt.Sprintf(`{"dag_id": "page_%03d", "tasks": [{"task_id": "t", "operator": "EmptyOperator"}]}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ts.store.UpsertDAG(d); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.store.UpsertPool(fmt.Sprintf("pool_%03d", i), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := ts.store.Dags()
	if err != nil {
		t.Fatal(err)
	}
	var dagIDs []string
	for _, row := range rows {
		if row.Def != nil && row.RootDagID == "" {
			dagIDs = append(dagIDs, row.DagID)
		}
	}
	pools, err := ts.store.Pools()
	if err != nil {
		t.Fatal(err)
	}
	var poolNames []string
	for _, p := range pools {
		poolNames = append(poolNames, p.Name)
	}
	ts.trigger(t, "wide", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
	runPage := edition110.dagRunURL("wide", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	var taskIDs []string
	for _, task := range tasks {
		taskIDs = append(taskIDs, task[len(`{"task_id": "`):len(`{"task_id": "t000`)])
	}

	for _, tc := range []struct {
		name, path, attr, nouns string
		want                    []string
	}{
		{"DAG list", "/", "data-dag-id", "DAGs", dagIDs},
		{"pools", "/pools", "data-pool", "pools", poolNames},
		{"run's tasks", runPage, "data-task-id", "tasks", taskIDs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := len(tc.want)
			first := uiDo(t, ts, http.MethodGet, tc.path, nil)
			if first.status != 200 {
				t.Fatalf("%s: %d", tc.path, first.status)
			}
			if got := uiRowIDs(first.body, tc.attr); !slices.Equal(got, tc.want[:uiPageRows]) {
				t.Errorf("first page shows %d rows %v…, want the first %d", len(got), got[:min(3, len(got))], uiPageRows)
			}
			if want := fmt.Sprintf("1–%d of %d %s", uiPageRows, total, tc.nouns); !strings.Contains(first.body, want) {
				t.Errorf("first page does not say %q", want)
			}
			if strings.Contains(first.body, `rel="prev"`) {
				t.Error("first page links to a previous page")
			}
			next := regexp.MustCompile(`<a rel="next" href="([^"]*)"`).FindStringSubmatch(first.body)
			if next == nil {
				t.Fatalf("first page has no next link")
			}
			nextURL := html.UnescapeString(next[1])
			if !strings.Contains(nextURL, fmt.Sprintf("offset=%d", uiPageRows)) {
				t.Errorf("next link %q", nextURL)
			}
			second := uiDo(t, ts, http.MethodGet, nextURL, nil)
			if got := uiRowIDs(second.body, tc.attr); !slices.Equal(got, tc.want[uiPageRows:]) {
				t.Errorf("second page shows %v, want %v", got, tc.want[uiPageRows:])
			}
			if want := fmt.Sprintf("%d–%d of %d %s", uiPageRows+1, total, total, tc.nouns); !strings.Contains(second.body, want) {
				t.Errorf("second page does not say %q", want)
			}
			if strings.Contains(second.body, `rel="next"`) {
				t.Error("last page links to a next page")
			}
			prev := regexp.MustCompile(`<a rel="prev" href="([^"]*)"`).FindStringSubmatch(second.body)
			if prev == nil {
				t.Fatalf("second page has no previous link")
			}
			if back := uiDo(t, ts, http.MethodGet, html.UnescapeString(prev[1]), nil); !slices.Equal(uiRowIDs(back.body, tc.attr), tc.want[:uiPageRows]) {
				t.Errorf("previous link %q does not lead to the first page", prev[1])
			}
			// Past the end: the last page. Not a row number: a 400.
			sep := "?"
			if strings.Contains(tc.path, "?") {
				sep = "&"
			}
			if past := uiDo(t, ts, http.MethodGet, tc.path+sep+"offset=100000", nil); !slices.Equal(uiRowIDs(past.body, tc.attr), tc.want[uiPageRows:]) {
				t.Errorf("offset past the end: %d %v", past.status, uiRowIDs(past.body, tc.attr))
			}
			for _, bad := range []string{"-1", "x", "1e3"} {
				if res := uiDo(t, ts, http.MethodGet, tc.path+sep+"offset="+bad, nil); res.status != 400 || !strings.Contains(res.body, "offset") {
					t.Errorf("offset=%s: %d, want 400 naming offset", bad, res.status)
				}
			}
		})
	}

	// The forms come back to the page that shows their DAG.
	last := dagIDs[len(dagIDs)-1]
	res := uiDo(t, ts, http.MethodPost, "/paused", url.Values{"dag_id": {last}, "is_paused": {"true"}})
	if want := fmt.Sprintf("/?offset=%d#dag-%s", uiPageRows, last); res.header.Get("Location") != want {
		t.Errorf("pause %s: Location %q, want %q", last, res.header.Get("Location"), want)
	}
	res = uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {last}, "conf": {`{"a":`}})
	if res.status != 400 || !slices.Contains(uiRowIDs(res.body, "data-dag-id"), last) || !strings.Contains(res.body, `id="trigger-`+last+`" open`) {
		t.Errorf("a refused trigger of %s does not show its row with the form open: %d", last, res.status)
	}
	res = uiDo(t, ts, http.MethodPost, "/trigger", url.Values{"dag_id": {last}, "conf": {""}})
	if loc := res.header.Get("Location"); !strings.HasPrefix(loc, fmt.Sprintf("/?offset=%d&triggered=%s&", uiPageRows, last)) {
		t.Errorf("trigger %s: Location %q", last, loc)
	}
}

// With fewer rows than a page, a list says how many there are and links
// nowhere.
func TestUI_Pagination_OnePage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	page := uiDo(t, ts, http.MethodGet, "/pools", nil).body
	if !strings.Contains(page, ">1 pool<") || strings.Contains(page, `rel="next"`) || strings.Contains(page, `rel="prev"`) {
		t.Errorf("pools page of one pool:\n%s", page)
	}
}

// On /, each DAG id links to the DAG's page, also for a DAG with no runs
// (issue #15): the page says it has none yet.
func TestUI_DagIDsLinkToTheirPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    edition
		href string
	}{
		{edition2, `href="/dags/example_bash_operator/graph"`},
		{edition110, `href="/admin/airflow/graph?dag_id=example_bash_operator"`},
		{edition110RBAC, `href="/graph?dag_id=example_bash_operator"`},
	} {
		ts := newTestServer(t, tc.e)
		list := ts.do(t, "GET", "/", "")
		if list.status != 200 || !strings.Contains(list.body, `<a class="dag-id" `+tc.href+`>example_bash_operator</a>`) {
			t.Errorf("edition %s: / has no link %s to the DAG's page", tc.e, tc.href)
			continue
		}
		path := strings.TrimSuffix(strings.TrimPrefix(tc.href, `href="`), `"`)
		page := ts.do(t, "GET", strings.ReplaceAll(path, "&amp;", "&"), "")
		if page.status != 200 || !strings.Contains(page.body, "This DAG has no runs yet.") {
			t.Errorf("edition %s: the DAG's page %s: %d, want 200 saying it has no runs yet", tc.e, path, page.status)
		}
	}
}

// TestUI_ImportErrors: the DAGs page lists the files that did not load,
// each with its time and text, and has no such section when every file
// loaded.
func TestUI_ImportErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	if page := uiDo(t, ts, http.MethodGet, "/", nil).body; strings.Contains(page, "import-errors") {
		t.Errorf("DAGs page lists import errors when there are none:\n%s", page)
	}
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	err := ts.store.RecordParse([]string{"/dags/b.py", "/dags/a.yaml"}, map[string]string{
		"/dags/b.py":   "Traceback (most recent call last):\nRuntimeError: settings.ini is missing\n",
		"/dags/a.yaml": "/dags/a.yaml: line 5: task \"t\": unknown operator \"BashOprator\" (did you mean BashOperator?)",
	}, at)
	if err != nil {
		t.Fatal(err)
	}
	res := uiDo(t, ts, http.MethodGet, "/", nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET / = %d", res.status)
	}
	for _, want := range []string{
		`<h2 id="import-errors-title">Import errors (2)</h2>`,
		"<summary><code>/dags/b.py</code> <span class=\"muted\">2024-05-01 10:00:00</span></summary>\n<pre>Traceback (most recent call last):\nRuntimeError: settings.ini is missing\n</pre>",
		"<code>/dags/a.yaml</code>",
		"unknown operator &#34;BashOprator&#34; (did you mean BashOperator?)",
		`id="dag-example_bash_operator"`, // the DAGs are listed beside them
	} {
		if !strings.Contains(res.body, want) {
			t.Errorf("DAGs page lacks %q:\n%s", want, res.body)
		}
	}
}

// graphDAG is a Python DAG file with nested task groups: start >> grp
// (a >> inner.c, b) >> end, whose task ids carry the groups' prefixes.
const graphDAG = `from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.utils.task_group import TaskGroup
import pendulum

with DAG("grouped", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as dag:
    start = EmptyOperator(task_id="start")
    with TaskGroup("grp"):
        a = EmptyOperator(task_id="a")
        b = EmptyOperator(task_id="b")
        with TaskGroup("inner"):
            c = EmptyOperator(task_id="c")
        a >> c
    end = EmptyOperator(task_id="end")
    start >> [a, b]
    b >> end
    c >> end
`

// serveGraphDAG serves graphDAG with two runs, first and second.
func serveGraphDAG(t *testing.T) *testServer {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "grouped.py"), []byte(graphDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := servePyFolder(t, dir)
	ts.trigger(t, "grouped", `{"run_id": "first", "execution_date": "2024-02-01T00:00:00+00:00"}`)
	ts.trigger(t, "grouped", `{"run_id": "second", "execution_date": "2024-02-02T00:00:00+00:00"}`)
	return ts
}

// TestUI_Graph: the DAG's page draws its tasks as an SVG: one node per
// task in the column of its upstream depth, coloured by the chosen run's
// state (the latest run, or ?run_id=), one path per edge from the right
// side of the upstream node to the left side of the downstream one, and a
// box per task group around its tasks.
func TestUI_Graph(t *testing.T) {
	t.Parallel()
	ts := serveGraphDAG(t)
	mark := func(runID string, state TaskState, ids ...string) {
		t.Helper()
		if _, _, err := ts.store.ForceTaskStates("grouped", runID, state, testNow, func(*DAG) ([]string, error) { return ids, nil }); err != nil {
			t.Fatal(err)
		}
	}
	mark("first", TaskSuccess, "start", "grp.a")
	mark("first", TaskFailed, "grp.inner.c")
	mark("second", TaskRunning, "start")

	page := func(query string) string {
		t.Helper()
		res := uiDo(t, ts, http.MethodGet, "/dags/grouped/graph"+query, nil)
		if res.status != http.StatusOK {
			t.Fatalf("graph page %s: %d %s", query, res.status, res.body)
		}
		return res.body
	}
	nodeRE := regexp.MustCompile(`<g class="node" data-task-id="([^"]*)" data-state="([^"]*)">(?:<a href="[^"]*">)?<title>[^<]*</title><rect x="(\d+)" y="(\d+)" width="168" height="30" rx="4" fill="([^"]*)"`)
	type node struct {
		state, fill string
		x, y        int
	}
	nodes := func(body string) map[string]node {
		got := map[string]node{}
		for _, m := range nodeRE.FindAllStringSubmatch(body, -1) {
			x, _ := strconv.Atoi(m[3])
			y, _ := strconv.Atoi(m[4])
			got[m[1]] = node{m[2], m[5], x, y}
		}
		return got
	}
	first := nodes(page("?run_id=first"))
	col := func(c int) int { return graphPad + c*(graphNodeW+graphGapX) }
	for id, want := range map[string]node{
		"start":       {"success", "green", col(0), 0},
		"grp.a":       {"success", "green", col(1), 0},
		"grp.b":       {"none", "#fff", col(1), 0},
		"grp.inner.c": {"failed", "red", col(2), 0},
		"end":         {"none", "#fff", col(3), 0},
	} {
		got, ok := first[id]
		if !ok {
			t.Errorf("run first: no node %s in %v", id, first)
			continue
		}
		if got.state != want.state || got.fill != want.fill || got.x != want.x {
			t.Errorf("run first: node %s = %+v, want state %s fill %s x %d", id, got, want.state, want.fill, want.x)
		}
	}
	if len(first) != 5 {
		t.Errorf("run first: %d nodes, want 5", len(first))
	}
	if a, b := first["grp.a"], first["grp.b"]; a.y == b.y {
		t.Errorf("grp.a and grp.b share a row: %+v %+v", a, b)
	}
	// Without run_id: the latest run.
	if latest := nodes(page("")); latest["start"].state != "running" || latest["start"].fill != "lime" || latest["grp.a"].state != "none" {
		t.Errorf("latest run: start %+v, grp.a %+v; want running (lime) and none", latest["start"], latest["grp.a"])
	}

	body := page("?run_id=first")
	edgeRE := regexp.MustCompile(`<path class="edge" data-from="([^"]*)" data-to="([^"]*)" d="M(\d+) (\d+)C[^"]* (\d+) (\d+)"`)
	var edges []string
	for _, m := range edgeRE.FindAllStringSubmatch(body, -1) {
		edges = append(edges, m[1]+">"+m[2])
		from, to := first[m[1]], first[m[2]]
		if x1, _ := strconv.Atoi(m[3]); x1 != from.x+graphNodeW {
			t.Errorf("edge %s>%s starts at x %d, want the right side of %s at %d", m[1], m[2], x1, m[1], from.x+graphNodeW)
		}
		if x2, _ := strconv.Atoi(m[5]); x2 != to.x {
			t.Errorf("edge %s>%s ends at x %d, want the left side of %s at %d", m[1], m[2], x2, m[2], to.x)
		}
		if y2, _ := strconv.Atoi(m[6]); y2 != to.y+graphNodeH/2 {
			t.Errorf("edge %s>%s ends at y %d, want the middle of %s at %d", m[1], m[2], y2, m[2], to.y+graphNodeH/2)
		}
	}
	slices.Sort(edges)
	if want := []string{"grp.a>grp.inner.c", "grp.b>end", "grp.inner.c>end", "start>grp.a", "start>grp.b"}; !slices.Equal(edges, want) {
		t.Errorf("edges %v, want %v", edges, want)
	}

	groupRE := regexp.MustCompile(`<g class="group" data-group-id="([^"]*)"><rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"`)
	groups := map[string][4]int{}
	var order []string
	for _, m := range groupRE.FindAllStringSubmatch(body, -1) {
		var r [4]int
		for i := range r {
			r[i], _ = strconv.Atoi(m[i+2])
		}
		groups[m[1]] = r
		order = append(order, m[1])
	}
	if !slices.Equal(order, []string{"grp", "grp.inner"}) {
		t.Fatalf("groups %v, want grp then grp.inner (outer first, drawn under)", order)
	}
	inside := func(g [4]int, n node) bool {
		return n.x > g[0] && n.y > g[1] && n.x+graphNodeW < g[0]+g[2] && n.y+graphNodeH < g[1]+g[3]
	}
	for _, c := range []struct {
		group string
		task  string
		in    bool
	}{
		{"grp", "grp.a", true}, {"grp", "grp.b", true}, {"grp", "grp.inner.c", true},
		{"grp.inner", "grp.inner.c", true}, {"grp", "start", false}, {"grp", "end", false}, {"grp.inner", "grp.a", false},
	} {
		if got := inside(groups[c.group], first[c.task]); got != c.in {
			t.Errorf("group %s %v holds %s: %v, want %v", c.group, groups[c.group], c.task, got, c.in)
		}
	}
	// The SVG scales to the page: a viewBox and its size to scale from.
	if !regexp.MustCompile(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 (\d+) (\d+)" width="(\d+)" height="(\d+)"`).MatchString(body) {
		t.Errorf("no scalable SVG on the page:\n%s", body)
	}
	// A run the DAG does not have.
	if res := uiDo(t, ts, http.MethodGet, "/dags/grouped/graph?run_id=nope", nil); res.status != http.StatusNotFound || !strings.Contains(res.body, "DAG grouped has no run nope.") {
		t.Errorf("unknown run_id: %d %s", res.status, res.body)
	}
	// A YAML DAG without dots has no group boxes.
	plain := newTestServer(t, edition2)
	plain.trigger(t, "example_bash_operator", `{"run_id": "r1"}`)
	if b := uiDo(t, plain, http.MethodGet, "/dags/example_bash_operator/graph", nil).body; strings.Contains(b, `class="group"`) || strings.Count(b, `<g class="node"`) != 7 || strings.Count(b, `<path class="edge"`) != 6 {
		t.Errorf("example_bash_operator: want 7 nodes, 6 edges, no groups:\n%s", b)
	}
}

// TestUI_Grid: the DAG's page shows its recent runs (oldest first) ×
// its tasks, each cell coloured by the task instance's state and, once it
// has a try, linking to that run's page at the task's log.
func TestUI_Grid(t *testing.T) {
	t.Parallel()
	ts := serveGraphDAG(t)
	for _, c := range []struct {
		run, task string
		state     TaskState
	}{{"first", "start", TaskSuccess}, {"first", "grp.a", TaskFailed}, {"second", "start", TaskRunning}} {
		ti, err := ts.store.TaskInstance("grouped", c.run, c.task)
		if err != nil {
			t.Fatal(err)
		}
		tried := *ti
		tried.State, tried.TryNumber = c.state, 1
		if err := ts.store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, &tried) }); err != nil {
			t.Fatal(err)
		}
	}
	body := uiDo(t, ts, http.MethodGet, "/dags/grouped/graph", nil).body
	rowRE := regexp.MustCompile(`<tr data-grid-task="([^"]*)"><th scope="row">[^<]*</th>(.*)</tr>`)
	cellRE := regexp.MustCompile(`<(a|span) class="cell state-([a-z_]+)"(?: href="([^"]*)")? title="[^"]*" data-run-id="([^"]*)"`)
	got := map[string][]string{}
	var rows []string
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		rows = append(rows, m[1])
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			got[m[1]] = append(got[m[1]], c[4]+":"+c[2]+":"+c[3])
		}
	}
	if want := []string{"start", "grp.a", "grp.b", "grp.inner.c", "end"}; !slices.Equal(rows, want) {
		t.Errorf("grid rows %v, want %v", rows, want)
	}
	firstURL := "/dags/grouped/graph?execution_date=2024-02-01&#43;00%3A00%3A00%2B00%3A00"
	secondURL := "/dags/grouped/graph?execution_date=2024-02-02&#43;00%3A00%3A00%2B00%3A00"
	for task, want := range map[string][]string{
		"start": {"first:success:" + firstURL + "#log-start", "second:running:" + secondURL + "#log-start"},
		"grp.a": {"first:failed:" + firstURL + "#log-grp.a", "second:none:"},
		"end":   {"first:none:", "second:none:"},
	} {
		if !slices.Equal(got[task], want) {
			t.Errorf("grid row %s: %v, want %v", task, got[task], want)
		}
	}
	// A cell's link opens that run's page, whose log section it names.
	href := strings.ReplaceAll(firstURL, "&#43;", "+")
	if res := uiDo(t, ts, http.MethodGet, href, nil); res.status != http.StatusOK || !strings.Contains(res.body, `<span class="run-id">first</span>`) {
		t.Errorf("cell link %s: %d, want the run first", href, res.status)
	}
}

// TestUI_Edition3RunLinks: edition 3's status page links runs where
// Airflow 3's UI has them, /dags/<dag_id>/runs/<run_id>, and serves the
// run there; a DAG's page is /dags/<dag_id>.
func TestUI_Edition3RunLinks(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	got, err := ts.srv.ops.trigger(triggerRequest{dagID: "example_bash_operator", runID: "my run:1"})
	if err != nil {
		t.Fatal(err)
	}
	link := "/dags/example_bash_operator/runs/my%20run%3A1"
	if l := edition3.rules().runLink("example_bash_operator", got.run.RunID, got.run.ExecutionDate); l != link {
		t.Fatalf("runLink = %s, want %s", l, link)
	}
	list := uiDo(t, ts, http.MethodGet, "/", nil)
	if list.status != http.StatusOK || !strings.Contains(list.body, `href="`+link+`"`) || !strings.Contains(list.body, `href="/dags/example_bash_operator"`) {
		t.Errorf("GET / = %d, no link to %s or to the DAG:\n%s", list.status, link, list.body)
	}
	for _, path := range []string{link, "/dags/example_bash_operator"} {
		res := uiDo(t, ts, http.MethodGet, path, nil)
		if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") || !strings.Contains(res.body, "my run:1") {
			t.Errorf("GET %s = %d %s", path, res.status, res.body)
		}
		checkCSP(t, path, res)
	}
	if res := uiDo(t, ts, http.MethodGet, "/dags/example_bash_operator/runs/nope", nil); res.status != http.StatusNotFound {
		t.Errorf("a run that does not exist: %d", res.status)
	}
}

// TestUI_RunWithoutLogicalDateShowsRunAfter: an Airflow 3 run triggered
// with logical_date null has no logical date; the status page dates it by
// its run_after (as Airflow 3's UI does), never by Go's zero time.
func TestUI_RunWithoutLogicalDateShowsRunAfter(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	res := ts.do(t, http.MethodPost, "/api/v2/dags/example_bash_operator/dagRuns", `{"dag_run_id": "dateless", "logical_date": null}`)
	if res.status != http.StatusOK {
		t.Fatalf("trigger = %d %s", res.status, res.body)
	}
	for _, path := range []string{"/", "/dags/example_bash_operator/runs/dateless"} {
		page := uiDo(t, ts, http.MethodGet, path, nil)
		if page.status != http.StatusOK || strings.Contains(page.body, "0001-01-01") || !strings.Contains(page.body, "dateless") {
			t.Errorf("GET %s = %d, shows the zero time or not the run:\n%s", path, page.status, page.body)
		}
	}
}
