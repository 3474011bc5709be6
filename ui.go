package main

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
)

// The status pages: server-rendered HTML over the same store and the same
// operations (ops_*.go) as the APIs. html/template escapes every value; the
// only trusted content is the embedded stylesheet and refresh script.

//go:embed ui/*.html ui/ui.css ui/refresh.js
var uiFiles embed.FS

const (
	// uiRefreshSeconds is how often a page that can change reloads itself.
	uiRefreshSeconds = 3
	// uiRecentRuns is how many runs a DAG's row shows as squares.
	uiRecentRuns = 12
	// uiPageRows is how many rows a list on a page shows at once.
	uiPageRows = 200
)

var (
	uiPages = parseUIPages("dags", "run", "pools", "error")
	uiCSS   = mustReadUIFile("ui/ui.css")
	uiJS    = mustReadUIFile("ui/refresh.js")
	// uiCSP allows the embedded stylesheet and script by their hashes and
	// nothing else, so that markup that ever slipped through escaping
	// could still run no script.
	uiCSP = "default-src 'none'; style-src '" + cspHash(uiCSS) + "'; script-src '" + cspHash(uiJS) +
		"'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

// uiFuncs give the templates airlite's limits, so that pages state them.
var uiFuncs = template.FuncMap{
	"maxLogTries": func() int { return maxLogTries },
}

func parseUIPages(names ...string) map[string]*template.Template {
	pages := map[string]*template.Template{}
	for _, name := range names {
		pages[name] = template.Must(template.New(name).Funcs(uiFuncs).ParseFS(uiFiles, "ui/layout.html", "ui/"+name+".html"))
	}
	return pages
}

func mustReadUIFile(name string) string {
	b, err := uiFiles.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("read embedded %s: %v", name, err))
	}
	return string(b)
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// uiRoutes registers the status pages and their two forms. The run page
// sits where the edition's dag_run_url points.
func (s *server) uiRoutes(r *httprouter.Router) {
	s.page(r, http.MethodGet, "/", s.handleUIDags)
	s.page(r, http.MethodGet, "/pools", s.handleUIPools)
	s.page(r, http.MethodGet, s.rules().uiRunPath, s.handleUIRun)
	if p := s.rules().uiDagPath; p != "" {
		s.page(r, http.MethodGet, p, s.handleUIRun)
	}
	s.page(r, http.MethodPost, "/trigger", s.handleUITrigger)
	s.page(r, http.MethodPost, "/paused", s.handleUIPaused)
}

// page registers a status page or form: access log and auth backend (the
// browser policy of api_guard.go has refused forms from other sites before
// routing). GET pages answer HEAD too.
func (s *server) page(r *httprouter.Router, method, path string, h httprouter.Handle) {
	wrapped := routed(path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.setEditionHeaders(w, false)
		if s.rejected(w, req) {
			return
		}
		h(w, req, ps)
	})
	r.Handle(method, path, wrapped)
	if method == http.MethodGet {
		r.Handle(http.MethodHead, path, wrapped)
	}
}

// uiPage is what the layout renders around a page's content.
type uiPage struct {
	Title   string
	Nav     string // the current section: "dags" or "pools"
	Version string
	Edition edition
	Refresh int // seconds between reloads; 0 for none
	Now     string
	NowISO  string
	CSS     template.CSS // the embedded stylesheet, never user data
	JS      template.JS  // the embedded refresh script, never user data
	Body    any
	Pager   *uiPager // a list page's rows, rendered after Body; nil for none
}

// uiPager says which rows of a list a page shows and links to the rows
// before and after (?offset=), so that no page grows with the store.
type uiPager struct {
	Label            string // what the list holds, for the nav's label
	Summary          string // "201–400 of 1,234 DAGs", or "3 DAGs" on a lone page
	PrevURL, NextURL string // "" at either end
}

// uiOffset reads a list page's ?offset=, the index of its first row.
func uiOffset(r *http.Request) (int, error) {
	raw := r.URL.Query().Get("offset")
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, newAPIError(errBadRequest, "offset %q is not a row number: want 0 or more", raw)
	}
	return n, nil
}

// uiWindow is the rows [start, end) a page at offset shows of total rows.
// An offset past the end shows the last page, so that a list that shrank
// under a reloading page never shows an empty one.
func uiWindow(offset, total int) (start, end int) {
	start = offset
	if start >= total {
		start = max(0, (total-1)/uiPageRows*uiPageRows)
	}
	return start, min(start+uiPageRows, total)
}

// newUIPager describes rows [start, end) of total, with links that keep
// the rest of u's query.
func newUIPager(u *url.URL, start, end, total int, noun, nouns string) *uiPager {
	p := &uiPager{Label: nouns}
	name := nouns
	if total == 1 {
		name = noun
	}
	if start == 0 && end == total {
		p.Summary = uiCount(total) + " " + name
	} else {
		p.Summary = fmt.Sprintf("%s–%s of %s %s", uiCount(start+1), uiCount(end), uiCount(total), name)
	}
	link := func(offset int) string {
		q := u.Query()
		q.Del("offset")
		if offset > 0 {
			q.Set("offset", strconv.Itoa(offset))
		}
		if len(q) == 0 {
			return u.EscapedPath()
		}
		return u.EscapedPath() + "?" + q.Encode()
	}
	if start > 0 {
		p.PrevURL = link(max(0, start-uiPageRows))
	}
	if end < total {
		p.NextURL = link(end)
	}
	return p
}

// uiCount writes n with thousands separators.
func uiCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (s *server) newPage(title, nav string, refresh int, body any) uiPage {
	now := s.opts.Now()
	rules := s.rules()
	return uiPage{
		Title: title, Nav: nav, Version: rules.version, Edition: rules.name, Refresh: refresh,
		Now: uiTime(now), NowISO: uiISO(now), CSS: template.CSS(uiCSS), JS: template.JS(uiJS), Body: body,
	}
}

// renderPage renders a whole page before writing, so that a template
// error becomes a clean 500.
func (s *server) renderPage(w http.ResponseWriter, r *http.Request, status int, name string, page uiPage) {
	var b bytes.Buffer
	if err := uiPages[name].ExecuteTemplate(&b, "layout", page); err != nil {
		s.opts.Logger.Error().Err(err).Str("path", r.URL.Path).Str("page", name).Msg("render page")
		http.Error(w, "internal error: see the airlite log", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		s.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("write page")
	}
}

// errorView is the error page's content.
type errorView struct {
	Title   string
	Message string
}

func (s *server) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	title := http.StatusText(status)
	s.renderPage(w, r, status, "error", s.newPage(title, "", 0, errorView{Title: title, Message: msg}))
}

// runSquare is one run as a coloured square or a link.
type runSquare struct {
	DagID   string
	RunID   string
	State   string
	Date    string
	URL     string
	Current bool
}

func newRunSquare(rules *editionRules, run *DagRun) runSquare {
	return runSquare{DagID: run.DagID, RunID: run.RunID, State: string(run.State),
		Date: uiTime(uiRunDate(run)), URL: rules.runLink(run.DagID, run.RunID, run.ExecutionDate)}
}

// uiRunDate is the date the pages show for a run: its logical date, or
// its run_after when it has none (an Airflow 3 run triggered with
// logical_date null, which Airflow 3's UI dates by run_after).
func uiRunDate(run *DagRun) time.Time {
	if date, ok := run.LogicalDate(); ok {
		return date
	}
	return run.After()
}

// dagListView is the content of /.
type dagListView struct {
	DAGs      []*dagItem
	Triggered *runSquare // the run a trigger just created
	Error     *formError // a refused trigger or pause
	// ImportErrors are the DAG files that did not load, as Airflow's DAGs
	// page lists them above its table (2.10.3 www/views.py Airflow.index:
	// "import_errors", flashed with their stack traces).
	ImportErrors []uiImportError
}

// uiImportError is one file that did not load.
type uiImportError struct {
	File string
	When string
	Text string
}

// dagItem is one DAG's row.
type dagItem struct {
	DagID       string
	Description string
	Tags        []string
	URL         string // the DAG's page: its latest run, or none yet
	Schedule    string
	Paused      bool
	Runs        []runSquare // the latest runs, oldest first
	LastRun     *runSquare
	FormOpen    bool   // the trigger form is shown open
	Conf        string // what the trigger form held
}

// formError is a refused form, shown above the list.
type formError struct {
	Action  string
	DagID   string
	Message string
}

// listedDags are the DAGs the list shows, by dag_id: sub-DAGs and rows
// that are not active (their definition gone, or stale) are left out, as
// Airflow's DAG list does.
func listedDags(store *Store) ([]*DagRow, error) {
	rows, err := store.Dags()
	if err != nil {
		return nil, err
	}
	listed := rows[:0:0]
	for _, row := range rows {
		if row.Active() && row.RootDagID == "" {
			listed = append(listed, row)
		}
	}
	return listed, nil
}

// dagListOffset is the offset of the page of the list that shows dagID
// (0 when the list does not show it).
func dagListOffset(store *Store, dagID string) (int, error) {
	listed, err := listedDags(store)
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(listed, func(row *DagRow) bool { return row.DagID == dagID })
	return max(0, i) / uiPageRows * uiPageRows, nil
}

// buildDagList is the page of the DAG list at offset, with its pager.
func buildDagList(store *Store, rules *editionRules, offset int) (*dagListView, *uiPager, error) {
	listed, err := listedDags(store)
	if err != nil {
		return nil, nil, err
	}
	start, end := uiWindow(offset, len(listed))
	view := &dagListView{}
	for _, row := range listed[start:end] {
		runs, err := store.RecentRuns(row.DagID, uiRecentRuns)
		if err != nil {
			return nil, nil, err
		}
		item := &dagItem{DagID: row.DagID, Description: row.Def.Description, Tags: row.Def.Tags,
			URL: rules.dagPageURL(row.DagID), Schedule: "None", Paused: row.IsPaused}
		if row.Def.Schedule != nil {
			item.Schedule = *row.Def.Schedule
		} else if tt := row.Def.Timetable; tt != nil {
			item.Schedule = tt.Summary // a timetable object's, or an asset schedule's
		}
		for _, run := range runs {
			item.Runs = append(item.Runs, newRunSquare(rules, run))
		}
		if n := len(item.Runs); n > 0 {
			item.LastRun = &item.Runs[n-1]
		}
		view.DAGs = append(view.DAGs, item)
	}
	failed, err := store.ImportErrors()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range failed {
		view.ImportErrors = append(view.ImportErrors, uiImportError{File: e.Filename, When: uiTime(e.Timestamp), Text: e.StackTrace})
	}
	return view, newUIPager(&url.URL{Path: "/"}, start, end, len(listed), "DAG", "DAGs"), nil
}

func (v *dagListView) item(dagID string) *dagItem {
	for _, d := range v.DAGs {
		if d.DagID == dagID {
			return d
		}
	}
	return nil
}

func (s *server) handleUIDags(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	offset, err := uiOffset(r)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	view, pager, err := buildDagList(s.opts.Store, s.rules(), offset)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	q := r.URL.Query()
	if dagID, runID := q.Get("triggered"), q.Get("run_id"); dagID != "" && runID != "" {
		if run, err := s.opts.Store.RunByRunID(dagID, runID); err == nil {
			sq := newRunSquare(s.rules(), run)
			view.Triggered = &sq
		}
	}
	page := s.newPage("DAGs", "dags", uiRefreshSeconds, view)
	page.Pager = pager
	s.renderPage(w, r, http.StatusOK, "dags", page)
}

// parseUIForm reads a posted form as the API reads bodies (readBody:
// bounded in size and time) into r.PostForm.
func (s *server) parseUIForm(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return newAPIError(errBadRequest, "read form: %v", err)
	}
	r.PostForm = form
	return nil
}

// triggerBody is the API's trigger request for a conf typed in the form.
func triggerBody(conf string) ([]byte, error) {
	conf = strings.TrimSpace(conf)
	if conf == "" {
		return []byte(`{}`), nil
	}
	if !json.Valid([]byte(conf)) {
		return nil, newAPIError(errBadRequest, "the configuration is not valid JSON")
	}
	// Built as text: json.Marshal would rewrite <, > and & as \u escapes,
	// and the run must keep the conf as the user typed it.
	return []byte(`{"conf": ` + conf + `}`), nil
}

// uiTrigger is the trigger form's run: the conf read as trigger_dag
// reads a request's, then the operations' trigger, dated now to the
// second as a trigger without a date is.
func (s *server) uiTrigger(dagID, conf string) (*triggered, error) {
	body, err := triggerBody(conf)
	if err != nil {
		return nil, err
	}
	fields, err := decodeTriggerBody(body)
	if err != nil {
		return nil, err
	}
	rules := s.rules()
	raw, given := fields["conf"]
	req := triggerRequest{dagID: dagID, dateUnit: time.Second, checks: triggerDagChecks(rules)}
	if req.conf, req.badConf, err = triggerConfOf(rules, raw, given); err != nil {
		return nil, err
	}
	return s.ops.trigger(req)
}

// uiPhrase is err as the status page shows it: in the experimental API's
// words, which the page has always shown.
func (s *server) uiPhrase(err error) error { return s.api.phrase(err) }

// handleUITrigger is the trigger form: the operations' trigger, then
// back to the list.
func (s *server) handleUITrigger(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if err := s.parseUIForm(w, r); err != nil {
		s.answerError(w, r, err)
		return
	}
	dagID, conf := r.PostForm.Get("dag_id"), r.PostForm.Get("conf")
	done, err := s.uiTrigger(dagID, conf)
	if err != nil {
		s.formRefused(w, r, "trigger", dagID, conf, s.uiPhrase(err))
		return
	}
	runID := done.run.RunID
	http.Redirect(w, r, "/?"+dagListQuery(s.opts.Store, dagID)+"triggered="+url.QueryEscape(dagID)+"&run_id="+url.QueryEscape(runID), http.StatusSeeOther)
}

// handleUIPaused is the pause switch: the operations' pause (exactly
// "true" pauses, as the experimental API's does), then back.
func (s *server) handleUIPaused(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if err := s.parseUIForm(w, r); err != nil {
		s.answerError(w, r, err)
		return
	}
	dagID := r.PostForm.Get("dag_id")
	if err := s.ops.pauseDag(dagID, r.PostForm.Get("is_paused") == "true"); err != nil {
		// The edition's API words, as the trigger form's: the experimental
		// pause endpoint's own answer to an unknown DAG is a crash (a 500),
		// which the status page has no reason to copy.
		s.formRefused(w, r, "pause or unpause", dagID, "", s.uiPhrase(err))
		return
	}
	to := "/"
	if q := dagListQuery(s.opts.Store, dagID); q != "" {
		to += "?" + strings.TrimSuffix(q, "&")
	}
	http.Redirect(w, r, to+"#dag-"+url.PathEscape(dagID), http.StatusSeeOther)
}

// dagListQuery is "offset=N&" for the page of the DAG list that shows
// dagID, or "" for the first page.
func dagListQuery(store *Store, dagID string) string {
	offset, err := dagListOffset(store, dagID)
	if err != nil || offset == 0 {
		return ""
	}
	return "offset=" + strconv.Itoa(offset) + "&"
}

// formRefused shows the list again with the error and what the user
// typed, with the error's status and without reloading (which would post
// again).
func (s *server) formRefused(w http.ResponseWriter, r *http.Request, action, dagID, conf string, err error) {
	status, msg := s.errorAnswer(r, err)
	offset, lerr := dagListOffset(s.opts.Store, dagID)
	var view *dagListView
	var pager *uiPager
	if lerr == nil {
		view, pager, lerr = buildDagList(s.opts.Store, s.rules(), offset)
	}
	if lerr != nil {
		s.answerError(w, r, lerr)
		return
	}
	view.Error = &formError{Action: action, DagID: dagID, Message: msg}
	if item := view.item(dagID); item != nil && action == "trigger" {
		item.FormOpen, item.Conf = true, conf
	}
	page := s.newPage("DAGs", "dags", 0, view)
	page.Pager = pager
	s.renderPage(w, r, status, "dags", page)
}

// runView is the content of the run page.
type runView struct {
	DagID       string
	Description string
	ParentURL   string // a sub-DAG's parent run
	Runs        []runSquare
	Run         *runFacts  // nil when the DAG has no runs yet
	Tasks       []*taskRow // the page of the run's task list at the offset asked
	TaskPager   *uiPager
	HasOutput   bool
	Graph       *graphView // the DAG's tasks, coloured by Run's states
	Grid        *gridView  // Runs × the DAG's tasks
}

// runFacts is the run's header.
type runFacts struct {
	RunID         string
	State         string
	Finished      bool
	ExecutionDate string
	ExecutionISO  string
	RunType       string
	External      bool
	QueuedAt      string
	StartDate     string
	EndDate       string
	Duration      string
	Conf          string
}

// taskRow is one task instance of the run.
type taskRow struct {
	TaskID    string
	Operator  string
	State     string
	Try       string
	Start     string
	StartISO  string
	StartTime string
	Duration  string
	SubdagURL string
	Tries     []TryLog
	Dropped   int // earlier tries the log no longer keeps
}

func (s *server) handleUIRun(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	q := r.URL.Query()
	dagID := ps.ByName("dag_id")
	if dagID == "" {
		dagID = q.Get("dag_id")
	}
	if dagID == "" {
		s.renderError(w, r, http.StatusBadRequest, "Which DAG? The link has no dag_id.")
		return
	}
	offset, err := uiOffset(r)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	// The graph's ?run_id= chooses a run, also from Airflow 3's
	// /dags/<dag_id>/runs/<run_id>.
	runID := q.Get("run_id")
	if runID == "" {
		runID = ps.ByName("run_id")
	}
	view, err := s.buildRunView(dagID, q.Get("execution_date"), runID, offset, r.URL)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	refresh := uiRefreshSeconds
	if view.Run != nil && view.Run.Finished {
		refresh = 0 // nothing changes any more
	}
	s.renderPage(w, r, http.StatusOK, "run", s.newPage(dagID, "dags", refresh, view))
}

// buildRunView gathers a run with the experimental API's look-ups, through
// the operations: the DAG as check_and_get_dag finds it, the date as
// Airflow parses it, the run at that date; without a date, the DAG's
// latest run; a run_id (the graph's ?run_id=) chooses the run by its id
// instead. Its task list is the page at offset; the pager's links keep
// u's query.
func (s *server) buildRunView(dagID, rawDate, runID string, offset int, u *url.URL) (*runView, error) {
	row, err := s.ops.dagDefinition(dagID)
	if err != nil {
		return nil, s.uiPhrase(err)
	}
	store, rules := s.opts.Store, s.rules()
	runs, err := store.RecentRuns(dagID, uiRecentRuns)
	if err != nil {
		return nil, err
	}
	var run *DagRun
	if runID != "" {
		if run, err = store.RunByRunID(dagID, runID); errors.Is(err, errNotFound) {
			return nil, newAPIError(errNotFound, "DAG %s has no run %s.", dagID, runID)
		} else if err != nil {
			return nil, err
		}
	} else if rawDate != "" {
		date, err := parseAirflowDate(rawDate, s.ops.now())
		if err != nil {
			return nil, badDateError(rawDate)
		}
		if run, err = s.ops.runAt(dagID, date); err != nil {
			return nil, s.uiPhrase(err)
		}
	} else if len(runs) > 0 {
		run = runs[len(runs)-1]
	}
	view := &runView{DagID: dagID, Description: row.Def.Description}
	for _, other := range runs {
		sq := newRunSquare(rules, other)
		sq.Current = run != nil && other.ID == run.ID
		view.Runs = append(view.Runs, sq)
	}
	var tis []*TaskInstance
	byID := map[string]*TaskInstance{}
	logs := map[string]*TaskLog{}
	if run != nil {
		view.Run = s.runFacts(run)
		if parent := row.Def.ParentDagID; parent != "" {
			view.ParentURL = rules.dagRunURL(parent, run.ExecutionDate)
		}
		if tis, err = store.TaskInstancesOfRun(dagID, run.RunID); err != nil {
			return nil, err
		}
		byID = summaryByTask(tis)
		if logs, err = store.TaskLogsOfRun(dagID, run.RunID); err != nil {
			return nil, err
		}
	}
	// Tasks in the order of the definition file, then any instance whose
	// task the definition no longer has.
	seen := map[string]bool{}
	add := func(taskID, operator string, ti *TaskInstance) {
		seen[taskID] = true
		view.Tasks = append(view.Tasks, newTaskRow(taskID, operator, ti))
	}
	for _, t := range row.Def.Tasks {
		add(t.TaskID, t.Operator, byID[t.TaskID])
		if t.Subdag != "" && run != nil {
			view.Tasks[len(view.Tasks)-1].SubdagURL = rules.dagRunURL(t.Subdag, run.ExecutionDate)
		}
	}
	for _, ti := range tis {
		if !seen[ti.TaskID] {
			add(ti.TaskID, ti.Operator, byID[ti.TaskID])
		}
	}
	logged := map[string]bool{}
	for taskID := range logs {
		logged[taskID] = true
	}
	states := map[string]string{}
	for id, ti := range byID {
		states[id] = string(ti.State)
	}
	view.Graph = buildGraph(row.Def, states, logged)
	gridTIs := make([]map[string]*TaskInstance, len(runs))
	for i, other := range runs {
		gridTIs[i] = map[string]*TaskInstance{}
		if run != nil && other.ID == run.ID {
			gridTIs[i] = byID
			continue
		}
		others, err := store.TaskInstancesOfRun(dagID, other.RunID)
		if err != nil {
			return nil, err
		}
		gridTIs[i] = summaryByTask(others)
	}
	start, end := uiWindow(offset, len(view.Tasks))
	// The grid's rows are the task list's page, so that neither grows
	// with the DAG.
	view.Grid = buildGrid(view.Tasks[start:end], view.Runs, gridTIs)
	view.TaskPager = newUIPager(u, start, end, len(view.Tasks), "task", "tasks")
	view.Tasks = view.Tasks[start:end]
	// Output only for the tasks shown.
	for _, tr := range view.Tasks {
		if l := logs[tr.TaskID]; l != nil {
			tr.Tries, tr.Dropped = l.Tries, l.Dropped
			view.HasOutput = true
		}
	}
	return view, nil
}

func (s *server) runFacts(run *DagRun) *runFacts {
	f := &runFacts{
		RunID: run.RunID, State: string(run.State), Finished: run.State.Finished(),
		ExecutionDate: uiTime(uiRunDate(run)), ExecutionISO: uiISO(uiRunDate(run)),
		RunType: run.RunType, External: run.ExternalTrigger,
		QueuedAt: uiOptTime(run.QueuedAt), StartDate: uiOptTime(run.StartDate), EndDate: uiOptTime(run.EndDate),
		Duration: "–", Conf: "None",
	}
	switch {
	case run.StartDate != nil && run.EndDate != nil:
		f.Duration = uiDuration(run.EndDate.Sub(*run.StartDate).Seconds())
	case run.StartDate != nil && !f.Finished:
		f.Duration = uiDuration(s.opts.Now().Sub(*run.StartDate).Seconds()) + " so far"
	}
	if run.Conf != nil {
		var b bytes.Buffer
		if err := json.Indent(&b, run.Conf, "", "  "); err == nil {
			f.Conf = b.String()
		} else {
			f.Conf = string(run.Conf)
		}
	}
	return f
}

// summaryByTask is a run's task instances by task_id, a mapped task's
// instances summed up as Airflow's grid sums them (2.10.3
// www/utils.py get_mapped_summary): the first state of its priority list
// that one of them is in, the earliest start and the latest end.
func summaryByTask(tis []*TaskInstance) map[string]*TaskInstance {
	out := make(map[string]*TaskInstance, len(tis))
	for i := 0; i < len(tis); {
		j := i + 1
		for j < len(tis) && tis[j].TaskID == tis[i].TaskID {
			j++
		}
		if j-i == 1 {
			out[tis[i].TaskID] = tis[i]
			i = j
			continue
		}
		sum := *tis[i]
		sum.StartDate, sum.EndDate, sum.Duration = nil, nil, nil
		rank := len(mappedSummaryPriority)
		for _, ti := range tis[i:j] {
			if r := slices.Index(mappedSummaryPriority, ti.State); r >= 0 && r < rank {
				rank, sum.State = r, ti.State
			}
			if ti.StartDate != nil && (sum.StartDate == nil || ti.StartDate.Before(*sum.StartDate)) {
				sum.StartDate = ti.StartDate
			}
			if ti.EndDate != nil && (sum.EndDate == nil || ti.EndDate.After(*sum.EndDate)) {
				sum.EndDate = ti.EndDate
			}
		}
		if sum.StartDate != nil && sum.EndDate != nil {
			d := sum.EndDate.Sub(*sum.StartDate).Seconds()
			sum.Duration = &d
		}
		out[sum.TaskID] = &sum
		i = j
	}
	return out
}

// mappedSummaryPriority is 2.10.3 www/utils.py priority.
var mappedSummaryPriority = []TaskState{TaskFailed, TaskUpstreamFailed, TaskUpForRetry, "up_for_reschedule", TaskQueued,
	TaskScheduled, "deferred", TaskRunning, "restarting", TaskNone, TaskSuccess, TaskSkipped, TaskRemoved}

func newTaskRow(taskID, operator string, ti *TaskInstance) *taskRow {
	tr := &taskRow{TaskID: taskID, Operator: operator, State: "none", Try: "–", Duration: "–"}
	if ti == nil {
		return tr
	}
	if ti.State != TaskNone {
		tr.State = string(ti.State)
	}
	if ti.TryNumber > 0 {
		tr.Try = fmt.Sprint(ti.TryNumber)
		if ti.MaxTries > 0 {
			tr.Try += fmt.Sprintf(" of %d", ti.MaxTries+1)
		}
	}
	if ti.StartDate != nil {
		tr.Start, tr.StartISO = uiTime(*ti.StartDate), uiISO(*ti.StartDate)
		tr.StartTime = ti.StartDate.UTC().Format(time.TimeOnly)
	}
	if ti.Duration != nil {
		tr.Duration = uiDuration(*ti.Duration)
	}
	return tr
}

// poolRow is one pool with what its task instances hold.
type poolRow struct {
	Name        string
	Slots       string
	Used        int64 // slots of running task instances
	Queued      int64 // slots of queued task instances
	Open        string
	Description string
}

// buildPools lists the page of pools at offset, by name, with their
// used, queued and open slots, counted as Airflow counts them (pool_slots
// of running and queued task instances; a negative size is unlimited),
// and the pager.
func buildPools(ops *operations, offset int) ([]poolRow, *uiPager, error) {
	pools, err := ops.pools(listQuery{offset: offset, limit: uiPageRows})
	if err != nil {
		return nil, nil, err
	}
	start, end := uiWindow(offset, pools.total)
	if start != offset { // past the end: the last page
		if pools, err = ops.pools(listQuery{offset: start, limit: uiPageRows}); err != nil {
			return nil, nil, err
		}
		start, end = uiWindow(start, pools.total)
	}
	rows := make([]poolRow, len(pools.rows))
	for i, p := range pools.rows {
		row := poolRow{Name: p.Name, Slots: fmt.Sprint(p.Slots), Used: p.Used.Running, Queued: p.Used.Queued,
			Open: fmt.Sprint(p.Slots - p.Used.Running - p.Used.Queued)}
		if p.Slots < 0 {
			row.Slots, row.Open = "unlimited", "unlimited"
		}
		if p.Description != nil {
			row.Description = *p.Description
		}
		rows[i] = row
	}
	return rows, newUIPager(&url.URL{Path: "/pools"}, start, end, pools.total, "pool", "pools"), nil
}

func (s *server) handleUIPools(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	offset, err := uiOffset(r)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	rows, pager, err := buildPools(s.ops, offset)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	page := s.newPage("Pools", "pools", uiRefreshSeconds, rows)
	page.Pager = pager
	s.renderPage(w, r, http.StatusOK, "pools", page)
}

// uiTime shows an instant in UTC to the second.
func uiTime(t time.Time) string { return t.UTC().Format(time.DateTime) }

// uiISO is an instant as an HTML datetime attribute.
func uiISO(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func uiOptTime(t *time.Time) string {
	if t == nil {
		return "–"
	}
	return uiTime(*t)
}

// uiDuration shows seconds the way a person reads them.
func uiDuration(secs float64) string {
	switch {
	case secs < 0:
		return "–"
	case secs < 60:
		return fmt.Sprintf("%.2f s", secs)
	case secs < 3600:
		return fmt.Sprintf("%d min %d s", int(secs)/60, int(secs)%60)
	}
	return fmt.Sprintf("%d h %d min", int(secs)/3600, int(secs)%3600/60)
}
