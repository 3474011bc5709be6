package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/rs/zerolog"
)

const (
	apiPrefix = "/api/experimental"
	// maxBodyBytes bounds request bodies; larger ones get a 413.
	maxBodyBytes = 1 << 20
	// defaultBodyTimeout bounds the time a client takes to send a body
	// (--body-timeout).
	defaultBodyTimeout = 30 * time.Second
)

// serverOptions is everything the HTTP layer needs.
type serverOptions struct {
	Edition edition // the server reads its rules (s.rules())
	Store   *Store
	DAGs    *DAGSet // what /_airlite/reset goes back to, unless Folder is set
	// Folder holds the DAG folder's set as the reloader last applied it
	// (dag_reload.go); a reset goes back to it. nil: a holder of DAGs.
	Folder *dagSetHolder
	Auth   *authenticator
	Logger zerolog.Logger
	// AccessLog, when set, gets one line per request, stamped with the
	// request's end time: it needs no timestamp hook of its own (main
	// gives it a writer that never blocks a request).
	AccessLog *zerolog.Logger
	Now       func() time.Time
	Unixname  string
	// Kick wakes the scheduler; nil when it is off.
	Kick func()
	// ParseRequests are the DAG files asked to be read again, which the
	// folder's reloader takes; nil: the server keeps its own (no reloader
	// takes them, and a second request for a file is a duplicate).
	ParseRequests *dagParseRequests
	// Clock is the fake clock of --clock fake; nil when the clock is real.
	Clock *fakeClock
	// Journal records requests for /_airlite/requests; nil when off.
	Journal *journal
	// WithTasksStopped applies a change to the store and stops the running
	// tasks that match, in one step of the scheduler's (see
	// scheduler.WithTasksStopped); nil when the scheduler is off.
	WithTasksStopped func(match func(tiKey) bool, change func() error) error
	// Browser says which browser requests are answered (api_guard.go).
	Browser browserPolicy
	// BodyTimeout bounds the time a client takes to send a request body;
	// 0 means defaultBodyTimeout.
	BodyTimeout time.Duration
	// SchedulerHeartbeat is the scheduler's last heartbeat and whether its
	// loop runs (scheduler.Heartbeat), for /health; nil when it is off.
	SchedulerHeartbeat func() (last time.Time, running bool)
	// SchedulerJob is when and where the scheduler started, for Airflow
	// 3's job list (GET /api/v2/jobs); zero when it is off.
	SchedulerJob schedulerJobInfo
	// DagsFolder is the DAG folder's absolute path (--dags); empty for the
	// embedded examples. Airflow 3 names a file by its path inside its
	// bundle, so /api/v2's import errors answer the path inside it.
	DagsFolder string
}

// server answers Airflow's APIs, airlite's admin endpoints and the status
// pages: wiring and middleware; each API is a dialect and a route table.
type server struct {
	opts serverOptions
	ops  *operations // what every API below calls
	api  *airflowAPI
	// The dialects the route tables are served in (api_dialect.go).
	dialExp, dialV1, dialV2, dialAdmin *dialect
	ready                              atomic.Bool
	// The answers of /test and /info, rendered once and kept as interface
	// values: converting a slice to one per request allocated.
	testBody, infoBody any
	// v1Secret signs the stable API's file tokens (apiv1_filetoken.go);
	// drawn at start, as Airflow draws a secret_key when none is set.
	v1Secret []byte
	// startedAt is when the DAG files were read: the stable API's
	// last_parsed_time.
	startedAt time.Time
	// dagVersions caches the store's DAG versions by id
	// (server.dagVersionByID).
	dagVersions sync.Map
	// v2RunVersions caches a run answer's dag_versions by version id
	// (server.v2RunVersionList).
	v2RunVersions sync.Map
}

func newServer(opts serverOptions) (*server, error) {
	switch {
	case opts.Store == nil:
		return nil, errors.New("new server: no store")
	case opts.DAGs == nil && opts.Folder == nil:
		return nil, errors.New("new server: no DAG set")
	case opts.Auth == nil:
		return nil, errors.New("new server: no auth backend")
	}
	if _, err := parseEdition(string(opts.Edition)); err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Folder == nil {
		opts.Folder = newDAGSetHolder(opts.DAGs)
	}
	if opts.ParseRequests == nil {
		opts.ParseRequests = newDAGParseRequests()
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = defaultBodyTimeout
	}
	rules := opts.Edition.rules()
	testBody, err := rules.json.marshal(map[string]any{"status": "OK"})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	infoBody, err := rules.json.marshal(map[string]any{"version": rules.version})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("new server: draw secret key: %w", err)
	}
	ops := &operations{store: opts.Store, edition: opts.Edition, now: opts.Now, unixname: opts.Unixname,
		kick: opts.Kick, tasksStopped: opts.WithTasksStopped, parseRequests: opts.ParseRequests}
	if opts.Clock != nil {
		ops.triggerDate = opts.Clock.TriggerDate
	}
	s := &server{
		opts: opts, ops: ops, api: newAirflowAPI(ops), v1Secret: secret, startedAt: opts.Now().UTC().Truncate(time.Microsecond),
		testBody: prerendered(testBody), infoBody: prerendered(infoBody),
	}
	s.dialExp, s.dialV1, s.dialV2, s.dialAdmin = s.expDialect(), s.v1Dialect(), s.v2Dialect(), s.adminDialect()
	return s, nil
}

// rules is the row of the rules table that the server reads.
func (s *server) rules() *editionRules { return s.opts.Edition.rules() }

// routes is the whole handler: the browser policy, then the router, inside
// the access log and the journal when they are on.
func (s *server) routes() http.Handler {
	var h http.Handler = s.router()
	if s.rules().apiV2 {
		h = s.withTokenCookie(h) // Airflow 3's JWTRefreshMiddleware (api_auth_v2.go)
	}
	guarded := s.guarded(h)
	if s.opts.AccessLog == nil && s.opts.Journal == nil {
		return guarded
	}
	return s.observed(guarded)
}

// router mounts every API's route table under its dialect (api_route.go,
// api_dialect.go: expRoutes, v1Routes, adminRoutes), the status pages and
// the webserver's /health.
func (s *server) router() *httprouter.Router {
	rules := s.rules()
	r := httprouter.New()
	// Werkzeug answers /pools/ with a 404 and never fixes a path's case.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(s.handleNotFound)
	r.MethodNotAllowed = http.HandlerFunc(s.handleMethodNotAllowed)
	r.GlobalOPTIONS = http.HandlerFunc(s.handleOptions)
	r.PanicHandler = s.handlePanic

	if rules.experimentalAPI {
		s.mount(r, s.expRoutes())
	}
	if rules.apiV1 {
		s.mount(r, s.v1Routes())
	}
	if rules.apiV2 {
		s.mountV2(r)
	}
	s.uiRoutes(r) // the status pages: /, /pools, the run page of dag_run_url, /trigger, /paused
	if !rules.apiV2 {
		s.public(r, http.MethodGet, "/health", s.handleHealthAirflow) // the webserver's, for health checks written for Airflow
	}
	s.mount(r, s.adminRoutes())
	return r
}

// public registers a route of Airflow's webserver that Airflow serves
// without authentication: the edition's headers, no auth backend. GET
// routes answer HEAD too.
func (s *server) public(r *httprouter.Router, method, path string, h httprouter.Handle) {
	wrapped := routed(path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.setEditionHeaders(w, false)
		h(w, req, ps)
	})
	r.Handle(method, path, wrapped)
	if method == http.MethodGet {
		r.Handle(http.MethodHead, path, wrapped)
	}
}

// setEditionHeaders adds the app-wide headers and, on experimental routes,
// the deprecation headers, where the rules send them (Airflow 2).
func (s *server) setEditionHeaders(w http.ResponseWriter, deprecated bool) {
	rules := s.rules()
	if rules.appHeaders {
		h := w.Header()
		h["X-Robots-Tag"] = headerNoIndex
		h["Cache-Control"] = headerNoStore
	}
	if deprecated && rules.deprecationHeaders {
		h := w.Header()
		h["Deprecation"] = headerTrue
		h["Link"] = headerLink2
	}
}

// Header values set on every response, built once. Each slice is full to
// its capacity, so an Add elsewhere copies it rather than writing into it.
var (
	headerNoIndex = []string{"noindex, nofollow"}
	headerNoStore = []string{"no-store"}
	headerTrue    = []string{"true"}
	headerLink2   = []string{`<https://airflow.apache.org/docs/apache-airflow/` + rules2.version +
		`/upgrading-to-2.html#migration-guide-from-experimental-api-to-stable-api-v1>; rel="deprecation"; type="text/html"`}
	headerJSON    = []string{"application/json"}
	headerNoSniff = []string{"nosniff"}
	headerSandbox = []string{"sandbox"}
)

// rejected applies the auth backend and answers for it when it refuses.
func (s *server) rejected(w http.ResponseWriter, r *http.Request) bool {
	if err := s.opts.Auth.check(r).asError(); err != nil {
		s.answerError(w, r, err)
		return true
	}
	return false
}

// readBody reads a request body of at most maxBodyBytes.
// A slow client cannot hold a handler: the body must arrive within
// BodyTimeout (the server has no ReadTimeout, which would also end the
// long-poll wait; see main.go). A body that fails to arrive is answered
// once and its connection closed: the deadline stays in force, so that
// net/http's own drain of the unread rest fails at once instead of waiting
// for bytes with no deadline, and "Connection: close" says the rest is
// never read as a next request.
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		w.Header().Set("Connection", "close")
	} else if deadline {
		// Read in full: lift the deadline, or net/http's watch for the
		// client going away would cancel a long handler's context.
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("%w: the limit is %d bytes", errTooLarge, maxBodyBytes)
	}
	if err != nil {
		return nil, newAPIError(errBadRequest, "read request body: %v", err)
	}
	return body, nil
}

// handleHealthAirflow is the webserver's GET /health: 200 with the
// metadatabase's and the scheduler's health whatever they are, as Airflow
// answers it (docs/behaviour.md §1.6).
func (s *server) handleHealthAirflow(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	body, err := s.rules().healthBody(schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now()))
	if err != nil {
		s.answerError(w, r, fmt.Errorf("render health: %w", err))
		return
	}
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// schedulerHealthThreshold is [scheduler] scheduler_health_check_threshold,
// 30 s in both releases (1.10.15 default_airflow.cfg:661, 2.10.3
// config.yml:2402): a scheduler is alive while it runs and its latest
// heartbeat is less than this old.
const schedulerHealthThreshold = 30 * time.Second

// schedulerHealth is what /health says of the scheduler at now: no
// heartbeat while it is off or has not finished a pass (Airflow has no
// scheduler job then), and alive as Airflow's SchedulerJob.is_alive decides
// (1.10.15 airflow/jobs/scheduler_job.py:443-447, 2.10.3 airflow/jobs/job.py:313-316).
func schedulerHealth(heartbeat func() (time.Time, bool), now time.Time) webserverHealth {
	if heartbeat == nil {
		return webserverHealth{}
	}
	last, running := heartbeat()
	if last.IsZero() {
		return webserverHealth{}
	}
	return webserverHealth{schedulerBeat: &last, schedulerAlive: running && now.Sub(last) < schedulerHealthThreshold}
}

// handleNotFound answers a path no route matches, as Airflow does for any
// path (see routeError).
func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	if s.rules().apiV2 {
		v2NoRoute(w, r)
		return
	}
	s.answerError(w, r, &routeError{status: http.StatusNotFound, title: "Not Found",
		detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."})
}

func (s *server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	if s.rules().apiV2 {
		v2MethodNotAllowed(w, r)
		return
	}
	s.answerError(w, r, &routeError{status: http.StatusMethodNotAllowed, title: "Method Not Allowed",
		detail: "The method is not allowed for the requested URL."})
}

// handleOptions completes httprouter's automatic OPTIONS answer (status
// 200, Allow header): Airflow 2 adds its headers, and no auth applies.
func (s *server) handleOptions(w http.ResponseWriter, r *http.Request) {
	s.setEditionHeaders(w, len(r.URL.Path) >= len(apiPrefix) && r.URL.Path[:len(apiPrefix)] == apiPrefix)
	w.Header().Set("Content-Type", flaskOptionsType)
	w.WriteHeader(http.StatusOK)
}

// handlePanic answers a panicking handler with a JSON 500 and logs the
// stack; the server goes on serving.
func (s *server) handlePanic(w http.ResponseWriter, r *http.Request, v any) {
	s.opts.Logger.Error().Str("path", r.URL.Path).Interface("panic", v).Bytes("stack", debug.Stack()).Msg("handler panicked")
	s.answerError(w, r, newAPIError(errCrash, "%s", genericInternalError))
}

// statusRecorder captures what a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	route  string // the matched route's pattern, set by routed
}

func (rec *statusRecorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *statusRecorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += n
	return n, err
}

func (rec *statusRecorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// routed wraps a route's handler so that the access log names the route
// pattern it matched.
func routed(route string, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if rec, ok := w.(*statusRecorder); ok {
			rec.route = route
		}
		h(w, r, ps)
	}
}

// observed wraps the whole router with the access log and the request
// journal. The clock is read once as a request starts and once as its
// answer is written, for both layers and the log line: on the shortest
// routes reading it per layer would be a visible share of the handler.
// The access logger has no timestamp hook; each line gets the end time.
func (s *server) observed(next http.Handler) http.Handler {
	access, journal := newAccessLine(s.opts.AccessLog), s.opts.Journal
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body := journal.tee(r)
		rec := statusRecorders.Get().(*statusRecorder)
		rec.ResponseWriter = w
		next.ServeHTTP(rec, r)
		end := time.Now()
		status, bytes, route := rec.status, rec.bytes, rec.route
		*rec = statusRecorder{}
		statusRecorders.Put(rec)
		if status == 0 {
			status = http.StatusOK
		}
		access.write(route, r.Method, status, bytes, start, end)
		if body != nil {
			journal.addRequest(r, body, status, start, end)
		}
	})
}

// statusRecorders reuses observed's recorders: no handler keeps its
// ResponseWriter past its return, and every request would otherwise
// allocate one.
var statusRecorders = sync.Pool{New: func() any { return new(statusRecorder) }}
