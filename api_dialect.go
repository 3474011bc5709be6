package main

// The dialects: one value per API that says how it speaks. The framework
// (api_route.go) reads these fields and nothing else about an API, so a
// new API (Airflow 3's /api/v2: FastAPI's {"detail": ...} and 422 lists,
// bearer tokens) is a new dialect value and a new route table.

import (
	"net/http"
	"net/url"
)

// dialect is how one API speaks.
type dialect struct {
	name   string
	prefix string // where its paths start ("" for paths given in full)
	// werkzeug: paths match as Werkzeug matches connexion's rules
	// (literal segments first, integer and path converters) behind one
	// catch-all per method, and the request is checked before the caller
	// is asked (connexion validates before Airflow's security decorator).
	// Otherwise each row is its own httprouter route and the caller is
	// asked first (Flask's requires_authentication wraps the view).
	werkzeug bool
	// firstMatch: paths match as Starlette matches FastAPI's routes (the
	// first declared row that fits, api_route_starlette.go) behind one
	// catch-all per method; the caller is asked first, then the path,
	// query and body checks run together and gather their errors.
	firstMatch bool
	// checkPath checks a row's typed path parameters (firstMatch only).
	checkPath func(rt *apiRoute, params map[string]string) error
	// gather makes one answer of the path's, query's and body's check
	// errors, nil when all are nil (firstMatch only).
	gather func(errs ...error) error
	// miss answers a request no row takes: allow is the method of the
	// first row whose path fits, "" when none does (firstMatch only).
	miss func(w http.ResponseWriter, r *http.Request, allow string)
	// headOfGet: a GET row answers HEAD too (Flask's routes do; airlite's
	// admin endpoints do not).
	headOfGet bool
	// deprecated: the edition's deprecation headers go on every answer.
	deprecated bool
	// auth identifies callers and decides on them (its identifiers and
	// refuser, api_auth.go); nil for the server's backend (--auth-backend).
	auth *authenticator
	// refusal turns the backend's decision into this API's answer: nil
	// lets the request through.
	refusal func(rej rejection) error
	// query checks a row's declared query parameters and keeps them.
	query func(q url.Values, params []v1Param) (v1Values, error)
	// decode reads a body before a row's body check (connexion's JSON
	// reading, decodeV1Body); nil where no row checks a body.
	decode func(raw []byte, contentType string) (v1Body, error)
	// render writes a success in the API's form.
	render func(w http.ResponseWriter, r *http.Request, status int, v any)
	// noContent writes a success without a body (a deletion).
	noContent func(w http.ResponseWriter)
	// fail writes an error answer in the API's form; nil for answerError,
	// which picks the form of airlite's APIs by path (api_answer.go).
	fail func(w http.ResponseWriter, r *http.Request, err error)
	// phrases words the operations' faults that reach the framework
	// unworded (an endpoint with words of its own has phrased them).
	phrases phrasebook
	// page reads the API's pagination parameters and order checks the
	// API's order_by against a resource's attributes (nil where the API
	// has neither).
	page  func(q v1Values) (page, error)
	order func(q v1Values, def string, allowed []string) (string, bool, error)
}

// answerError writes err in the API's form.
func (d *dialect) answerError(s *server, w http.ResponseWriter, r *http.Request, err error) {
	if d.fail != nil {
		d.fail(w, r, err)
		return
	}
	s.answerError(w, r, err)
}

// identify is who sent r, as the dialect's auth backend finds out, or the
// API's refusal.
func (d *dialect) identify(s *server, r *http.Request) (caller, error) {
	auth := d.auth
	if auth == nil {
		auth = s.opts.Auth
	}
	rej := auth.check(r)
	if err := d.refusal(rej); err != nil {
		return caller{}, err
	}
	return rej.caller, nil
}

// checkQuery is the API's check of a row's query parameters.
func (d *dialect) checkQuery(r *http.Request, params []v1Param) (v1Values, error) {
	if r.URL.RawQuery == "" {
		return d.query(nil, params) // the checks only read: no map to parse into
	}
	return d.query(pyQuery(r.URL.RawQuery), params)
}

// answer is a row whose answer is fn's value in the API's form, or fn's
// error in its words.
func (d *dialect) answer(s *server, fn func(req *apiRequest) (any, error)) routeHandler {
	return func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		res, err := fn(req)
		d.respond(s, w, r, res, err)
	}
}

// respond writes v in the API's form, or err in its words.
func (d *dialect) respond(s *server, w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		d.answerError(s, w, r, d.phrases.phrase(err))
		return
	}
	d.render(w, r, http.StatusOK, v)
}

// deleted is a row that answers a deletion: no content, or fn's error.
func (d *dialect) deleted(s *server, fn func(req *apiRequest) error) routeHandler {
	return func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		if err := fn(req); err != nil {
			d.answerError(s, w, r, d.phrases.phrase(err))
			return
		}
		d.noContent(w)
	}
}

// refused is a row whose every answer is fn's error.
func (d *dialect) refused(s *server, fn func(req *apiRequest) error) routeHandler {
	return func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		d.answerError(s, w, r, d.phrases.phrase(fn(req)))
	}
}

// The three dialects airlite speaks.

// expDialect is Airflow's experimental API (/api/experimental, Flask
// views behind requires_authentication): {"error": ...} in the edition's
// JSON form, the auth backend's own refusals, no query checks (a view
// reads request.args as it likes), no pagination.
func (s *server) expDialect() *dialect {
	return &dialect{
		name: "experimental", prefix: apiPrefix, headOfGet: true, deprecated: true,
		refusal: func(rej rejection) error { return rej.asError() },
		query:   firstValues,
		render:  s.writeJSON,
		phrases: s.api.phrases,
	}
}

// v1Dialect is Airflow 2's stable API (/api/v1, connexion 2.14): problem
// documents, strict query checks, pagination and order_by as Airflow's
// parameters.py does them, and every refusal a 401 with the backend's
// challenge.
func (s *server) v1Dialect() *dialect {
	return &dialect{
		name: "v1", prefix: apiV1Prefix, werkzeug: true,
		refusal: func(rej rejection) error {
			if rej.status != 0 || rej.err != nil {
				// Airflow's check_authentication raises Unauthenticated
				// with the backend's headers whatever the backend answered.
				return &problem{status: http.StatusUnauthorized, title: "Unauthorized", wwwAuthenticate: rej.wwwAuthenticate}
			}
			return nil
		},
		query:     validateQuery,
		decode:    decodeV1Body,
		render:    s.writeV1JSON,
		noContent: s.writeV1NoContent,
		phrases:   apiv1ResourcePhrases,
		page:      v1Values.page,
		order:     v1Values.orderBy,
	}
}

// adminDialect is airlite's own endpoints (/_airlite/...): compact JSON,
// the same in every edition, the auth backend's refusals.
func (s *server) adminDialect() *dialect {
	return &dialect{
		name:    "admin",
		refusal: func(rej rejection) error { return rej.asError() },
		query:   firstValues,
		render:  func(w http.ResponseWriter, _ *http.Request, status int, v any) { writeAdminJSON(w, status, v) },
		phrases: adminPhrases,
	}
}

// firstValues keeps each declared parameter's first value, unchecked, as
// Flask's request.args.get reads it.
func firstValues(q url.Values, params []v1Param) (v1Values, error) {
	var out v1Values
	for _, p := range params {
		if vals := q[p.name]; len(vals) > 0 {
			if out == nil {
				out = make(v1Values, len(params))
			}
			out[p.name] = vals[:1]
		}
	}
	return out, nil
}
