package main

// Airflow 3's public API, /api/v2 (issue #21): the v2 dialect. FastAPI
// answers its errors as {"detail": ...} (apiv2_errors.go), checks query
// parameters and bodies with pydantic (422 and its list of errors), and
// matches paths with Starlette's router, which asks for the caller in
// each route's dependencies, after the path matched.

import (
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// apiV2Prefix is where Airflow 3's public router is mounted
// (core_api/routes/public/__init__.py: prefix="/api/v2").
const apiV2Prefix = "/api/v2"

// v2Dialect is Airflow 3.2.1's /api/v2. The caller is found as Airflow
// 3's simple auth manager finds it (api_auth_v2.go: a bearer token or the
// _token cookie; no credentials at all in all-admins mode, which
// --auth-backend default is), and refused in core_api/security.py's words.
func (s *server) v2Dialect() *dialect {
	return &dialect{
		name: "v2", prefix: apiV2Prefix, firstMatch: true,
		auth: s.opts.Auth.v2(),
		refusal: func(rej rejection) error {
			switch {
			case rej.err != nil:
				return rej.err
			case rej.status != 0:
				return &v2Error{status: rej.status, detail: rej.body}
			}
			return nil
		},
		query:     v2Query,
		checkPath: v2CheckPath,
		gather:    v2Gather,
		miss:      v2Miss,
		decode:    decodeV2Body,
		render:    func(w http.ResponseWriter, r *http.Request, status int, v any) { writeV2JSON(w, r, status, v) },
		noContent: func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) },
		fail:      s.failV2,
		phrases:   apiv2Phrases,
	}
}

// failV2 writes err as FastAPI answers it (writeV2Error), and logs the
// errors that become Starlette's bare 500, whose body says nothing, and
// the database errors whose answer names a lookup id in the log.
func (s *server) failV2(w http.ResponseWriter, r *http.Request, err error) {
	var e *v2Error
	_, limit := storeErrorText(err)
	switch {
	case !limit && !errors.As(err, &e):
		s.opts.Logger.Error().Err(err).Str("path", r.URL.Path).Msg("internal error")
	case e != nil:
		if d, ok := e.detail.(v2DBErrorDetail); ok {
			s.opts.Logger.Warn().Str("error_id", d.id).Str("reason", d.Reason).Str("method", r.Method).Str("path", r.URL.Path).
				Msg("database error answered as Airflow answers it")
		}
	}
	writeV2Error(w, r, err)
}

// mountV2 puts Airflow 3's routes on the router: the public API, the
// simple auth manager's login routes (/auth) and the app's old /health, a
// 404 that says where health moved.
func (s *server) mountV2(r *httprouter.Router) {
	s.mount(r, s.v2Routes())
	s.mount(r, s.authRoutes())
	r.Handle(http.MethodGet, "/health", routed("/health", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		writeV2JSON(w, req, http.StatusNotFound, v2Catchall{Error: v2HealthMoved})
	}))
}

// v2Miss answers a request under /api/v2 that no route takes: Starlette's
// 405 when a route's path fits with another method (its Allow header that
// route's method), else Airflow 3's catch-alls (v2NoRoute).
func v2Miss(w http.ResponseWriter, r *http.Request, allow string) {
	if allow != "" {
		writeV2Error(w, r, &v2Error{status: http.StatusMethodNotAllowed, detail: "Method Not Allowed", allow: allow})
		return
	}
	v2NoRoute(w, r)
}

// apiv2Phrases words the operations' faults in Airflow 3's texts.
var apiv2Phrases = phrasebook{}
