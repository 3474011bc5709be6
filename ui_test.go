package main

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
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
		}, 8},
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
			// In attributes and URLs the markup is escaped too.
			for _, bad := range []string{`id="dag-<`, `href="/dags/<`, `value="<`, `title="<`} {
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
	res := uiDo(t, ts, http.MethodPost, "/paused", url.Values{"dag_id": {"nope"}, "is_paused": {"true"}})
	if res.status != http.StatusInternalServerError || !strings.Contains(res.body, "Dag id nope not found in DagModel") {
		t.Errorf("unknown DAG: status %d, body %s", res.status, res.body)
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
