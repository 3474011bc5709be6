package main

// The route, request and answer framework every API is served through.
// An API is a dialect (api_dialect.go: how its paths match, who the
// caller is and when that is asked, how its query is checked, how it
// answers and words faults) and a route table (its rows: method, Airflow's
// path, the request's checks, the handler). A handler decodes what the
// checks left, calls one operation (ops_*.go) and renders: most rows are
// the dialect's answer(fn) or deleted(fn). The framework does the rest in
// the dialect's order: match, headers, caller, body, query, action log.
//
// The tables: expRoutes (apiexp.go), v1Routes (apiv1.go), v2Routes
// (api_route_v2.go) and authRoutes (api_auth_v2.go), matched as Starlette
// matches (api_route_starlette.go), and adminRoutes (api_admin.go).

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/julienschmidt/httprouter"
)

// apiRequest is what a row's handler gets: the path's parameters, the
// checked query and, for rows with a body, the body.
type apiRequest struct {
	// path holds the parameters a Werkzeug-style match found; ps those
	// of an httprouter match. param reads either.
	path map[string]string
	ps   httprouter.Params
	// query is the query as the dialect's check left it: the row's
	// declared parameters only.
	query v1Values
	body  map[string]any // the checked body; nil when the row takes none
	raw   []byte         // the body as sent; nil when the row takes none
	// ordered is the body in json.loads' order when decodeV1Body could
	// read it so (v1Body); nil otherwise.
	ordered any
	// event is the operation's event log row for a handler that stores
	// it with its own write (v1Action.inWrite); nil otherwise.
	event *EventLog
	// caller is who sent the request, as the dialect's identifiers found
	// out (anonymous on open rows).
	caller caller
	// referer is the request's Referer header ("" without one), which
	// Airflow 3's trigger reads (Starlette rows only).
	referer string
}

// param is a path parameter ("" when absent).
func (req *apiRequest) param(name string) string {
	if req.path != nil {
		return req.path[name]
	}
	return req.ps.ByName(name)
}

// routeHandler is a row's handler: decode, one operation, render.
type routeHandler func(w http.ResponseWriter, r *http.Request, req *apiRequest)

// apiRoute is one row of a route table.
type apiRoute struct {
	method  string
	pattern string   // Airflow's path, in the dialect's syntax ({name} or :name)
	segs    []string // pattern split at "/"
	query   []v1Param
	// body checks and decodes the request body as the dialect's framework
	// does against the operation's schema (connexion's); nil when the row
	// takes no checked body.
	body func(v any) (map[string]any, error)
	// rawBody: the handler reads the body itself from req.raw (the
	// experimental API reads JSON as Flask's get_json does).
	rawBody bool
	// pathInts are the path parameters the document types as integers:
	// connexion gives them Werkzeug's int converter, which matches
	// unsigned digits only, so another segment is not this route.
	pathInts []string
	// pathTildes are the path parameters typed Literal["~"] (Airflow 3's
	// batch routes): another value is a literal_error among the path's
	// errors, which FastAPI reports before the query's and the body's.
	pathTildes []string
	// pathIntBounds are the lower bounds of pathInts that pydantic checks
	// with the path's other errors (NonNegativeInt, PositiveInt).
	pathIntBounds map[string]pathIntBound
	// open: Airflow asks nobody who the caller is on this row (health,
	// version, airlite's readiness).
	open bool
	// action: Airflow's action_logging wraps the endpoint; nil when not.
	action *v1Action
	// v2Action: Airflow 3's action_logging dependency wraps the endpoint
	// under this event (apiv2_actions.go); "" when not.
	v2Action string
	// v2ActionInWrite: the handler stores the action's row in its own
	// write (req.event), as the stable API's trigger does; a request
	// that ends before that write has it stored on its own.
	v2ActionInWrite bool
	// dependency is a FastAPI dependency of the endpoint that raises
	// before the request's parameters are validated (the Accept header's
	// check, common/headers.py); nil when none (firstMatch only).
	dependency func(r *http.Request) error
	handle     routeHandler
}

// routeTable is one API's rows, under its dialect.
type routeTable struct {
	dialect *dialect
	routes  []*apiRoute
	// index lists the rows by shape for first-match dialects
	// (api_route_starlette.go), built on first use.
	indexOnce sync.Once
	index     *shapeIndex
}

// add puts a row in the table.
func (t *routeTable) add(method, pattern string, h routeHandler, opts ...func(*apiRoute)) {
	rt := &apiRoute{method: method, pattern: pattern, segs: strings.Split(strings.TrimPrefix(pattern, "/"), "/"), handle: h}
	for _, o := range opts {
		o(rt)
	}
	t.routes = append(t.routes, rt)
}

// openRoute marks a row Airflow answers without asking who the caller is.
func openRoute(rt *apiRoute) { rt.open = true }

// withRawBody marks a row whose handler reads the body as sent.
func withRawBody(rt *apiRoute) { rt.rawBody = true }

// withDependency gives a row a dependency that answers before its
// parameters are checked.
func withDependency(fn func(r *http.Request) error) func(*apiRoute) {
	return func(rt *apiRoute) { rt.dependency = fn }
}

// mount puts a table's rows on the router as its dialect matches paths.
func (s *server) mount(r *httprouter.Router, t *routeTable) {
	d := t.dialect
	if d.werkzeug || d.firstMatch {
		serve := s.serveWerkzeug
		if d.firstMatch {
			serve = s.serveStarlette
		}
		h := routed(d.prefix+"/*path", func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
			serve(w, req, t, ps.ByName("path"))
		})
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch,
			http.MethodPut, http.MethodDelete, http.MethodOptions} {
			r.Handle(m, d.prefix+"/*path", h)
		}
		return
	}
	for _, rt := range t.routes {
		pattern := d.prefix + rt.pattern
		h := routed(pattern, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
			s.serveRow(w, req, d, rt, ps)
		})
		r.Handle(rt.method, pattern, h)
		if rt.method == http.MethodGet && d.headOfGet {
			r.Handle(http.MethodHead, pattern, h)
		}
	}
}

// identifyCaller sets req's caller for a row that is not open, answering
// the dialect's refusal when the caller cannot be identified; it says
// whether to go on.
func (s *server) identifyCaller(w http.ResponseWriter, r *http.Request, d *dialect, rt *apiRoute, req *apiRequest) bool {
	if rt.open {
		return true
	}
	c, err := d.identify(s, r)
	if err != nil {
		d.answerError(s, w, r, err)
		return false
	}
	req.caller = c
	return true
}

// rowRequests reuses the apiRequest of every row (serveRow, and
// serveStarlette for first-match dialects): no handler keeps it past its
// return, and the shortest routes would otherwise allocate one per
// request.
var rowRequests = sync.Pool{New: func() any { return new(apiRequest) }}

// serveRow answers a request httprouter matched to rt, in Flask's order
// for a view behind requires_authentication: the headers, the caller,
// then the view (its body and query).
func (s *server) serveRow(w http.ResponseWriter, r *http.Request, d *dialect, rt *apiRoute, ps httprouter.Params) {
	s.setEditionHeaders(w, d.deprecated)
	req := rowRequests.Get().(*apiRequest)
	defer func() {
		*req = apiRequest{}
		rowRequests.Put(req)
	}()
	req.ps = ps
	if !s.identifyCaller(w, r, d, rt, req) {
		return
	}
	switch {
	case rt.body != nil:
		if err := s.readCheckedBody(w, r, d, rt, req); err != nil {
			d.answerError(s, w, r, err)
			return
		}
	case rt.rawBody:
		raw, err := s.readBody(w, r)
		if err != nil {
			d.answerError(s, w, r, err)
			return
		}
		req.raw = raw
	}
	if rt.query != nil {
		q, err := d.checkQuery(r, rt.query)
		if err != nil {
			d.answerError(s, w, r, err)
			return
		}
		req.query = q
	}
	rt.handle(w, r, req)
}

// serveWerkzeug answers one request of a Werkzeug-matched dialect, in
// connexion's order: the route, the body, the query, then the caller
// (Airflow checks it in the endpoint's decorator, after connexion's
// validation), the action log, then the endpoint.
func (s *server) serveWerkzeug(w http.ResponseWriter, r *http.Request, t *routeTable, path string) {
	d := t.dialect
	s.setEditionHeaders(w, d.deprecated)
	rt, params := t.match(r.Method, path)
	var allowed []string // only an OPTIONS request or a miss needs them
	if r.Method == http.MethodOptions || rt == nil {
		allowed = t.allowedMethods(path)
		if r.Method == http.MethodOptions && len(allowed) > 0 {
			answerOptions(w, allowed)
			return
		}
	}
	if rt == nil {
		if len(allowed) > 0 {
			s.handleMethodNotAllowed(w, r)
			return
		}
		s.handleNotFound(w, r)
		return
	}
	req := &apiRequest{path: params}
	if rt.body != nil {
		if err := s.readCheckedBody(w, r, d, rt, req); err != nil {
			d.answerError(s, w, r, err)
			return
		}
	}
	q, err := d.checkQuery(r, rt.query)
	if err != nil {
		d.answerError(s, w, r, err)
		return
	}
	req.query = q
	if !s.identifyCaller(w, r, d, rt, req) {
		return
	}
	if rt.action != nil {
		if err := s.recordAction(rt, r, req, req.caller.loggedIn()); err != nil {
			d.answerError(s, w, r, err)
			return
		}
	}
	rt.handle(w, r, req)
}

// readCheckedBody reads a row's body, decodes it as the dialect reads
// bodies and checks it against the row's schema, into req.
func (s *server) readCheckedBody(w http.ResponseWriter, r *http.Request, d *dialect, rt *apiRoute, req *apiRequest) error {
	raw, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	req.raw = raw
	v, err := d.decode(raw, r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	req.ordered = v.ordered
	req.body, err = rt.body(v.plain)
	return err
}

// flaskOptionsType is the Content-Type of Flask's automatic OPTIONS
// answer: an empty Response (flask/app.py make_default_options_response),
// whose default mimetype is text/html.
const flaskOptionsType = "text/html; charset=utf-8"

// answerOptions is Flask's automatic OPTIONS answer for a rule.
func answerOptions(w http.ResponseWriter, allowed []string) {
	methods := map[string]bool{http.MethodOptions: true}
	for _, m := range allowed {
		methods[m] = true
		if m == http.MethodGet {
			methods[http.MethodHead] = true
		}
	}
	list := make([]string, 0, len(methods))
	for m := range methods {
		list = append(list, m)
	}
	sort.Strings(list)
	w.Header().Set("Allow", strings.Join(list, ", "))
	w.Header().Set("Content-Type", flaskOptionsType)
	w.WriteHeader(http.StatusOK)
}

// match returns the row for a path and method (HEAD is GET's) and the
// path's parameters, as Werkzeug matches connexion's rules; nil when no
// row of the method fits. Of the rows that fit, the one with the most
// literal segments wins, the first added on a tie: a literal segment
// before a parameter, so that /dags/~/dagRuns/list (POST) wins over
// /dags/{dag_id}/dagRuns/{dag_run_id} (GET). httprouter cannot hold both
// (a literal and a parameter at one position), so such a dialect has one
// catch-all route per method and the table behind it.
func (t *routeTable) match(method, path string) (*apiRoute, map[string]string) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if method == http.MethodHead {
		method = http.MethodGet
	}
	var best *apiRoute
	bestScore := -1
	for _, rt := range t.routes {
		if rt.method != method {
			continue
		}
		if score, ok := rt.fits(segs); ok && score > bestScore {
			best, bestScore = rt, score
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, best.params(segs)
}

// allowedMethods are the methods of the rows that fit a path, in the
// order they were added (for 405 and OPTIONS).
func (t *routeTable) allowedMethods(path string) []string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var allowed []string
	for _, rt := range t.routes {
		if _, ok := rt.fits(segs); ok && !slices.Contains(allowed, rt.method) {
			allowed = append(allowed, rt.method)
		}
	}
	return allowed
}

// fits reports whether segs fit the row; score counts the literal
// segments, so that the most literal rule wins. A last segment
// {name:path} takes the rest of the path, slashes included, as
// Werkzeug's path converter does for a parameter of format path; the
// rest must hold more than slashes.
func (rt *apiRoute) fits(segs []string) (int, bool) {
	if len(rt.segs) == 0 {
		return 0, len(segs) == 0
	}
	n := len(rt.segs)
	if _, ok := rt.pathParam(); ok {
		if len(segs) < n || !slices.ContainsFunc(segs[n-1:], func(seg string) bool { return seg != "" }) {
			return 0, false
		}
		return rt.fitsSegments(rt.segs[:n-1], segs[:n-1])
	}
	if len(segs) != n {
		return 0, false
	}
	return rt.fitsSegments(rt.segs, segs)
}

// fitsSegments matches pattern segments one to one.
func (rt *apiRoute) fitsSegments(pattern, segs []string) (int, bool) {
	score := 0
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" || (slices.Contains(rt.pathInts, p[1:len(p)-1]) && !unsignedDigitsRe.MatchString(segs[i])) {
				return 0, false
			}
			continue
		}
		if p != segs[i] {
			return 0, false
		}
		score++
	}
	return score, true
}

// pathParam is the name of a last {name:path} segment.
func (rt *apiRoute) pathParam() (string, bool) {
	if len(rt.segs) == 0 {
		return "", false
	}
	rest, ok := strings.CutSuffix(rt.segs[len(rt.segs)-1], ":path}")
	if !ok {
		return "", false
	}
	return rest[1:], true
}

// params are the path's parameters for segs, which fit the row; nil when
// the row has none.
func (rt *apiRoute) params(segs []string) map[string]string {
	var params map[string]string
	pattern := rt.segs
	name, isPath := rt.pathParam()
	if isPath {
		pattern = rt.segs[:len(rt.segs)-1]
		params = map[string]string{name: strings.Join(segs[len(rt.segs)-1:], "/")}
	}
	for i, p := range pattern {
		if !strings.HasPrefix(p, "{") {
			continue
		}
		if params == nil {
			params = make(map[string]string, 4)
		}
		params[p[1:len(p)-1]] = segs[i]
	}
	return params
}
