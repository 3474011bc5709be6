package main

// Airflow 3's error answers as FastAPI writes them (issue #21): an
// HTTPException is {"detail": ...} (fastapi/exception_handlers.py
// http_exception_handler), and Airflow 3's app answers the paths no route
// of its API takes with its own catch-alls (core_api/app.py init_views).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Airflow 3.2.1's catch-all answers (airflow-core/src/airflow/api_fastapi/
// core_api/app.py, init_views: old_health, old_api, api_not_found).
const (
	v2HealthMoved   = "Moved in Airflow 3. Please change config to check `/api/v2/monitor/health`"
	v2APIv1Removed  = "/api/v1 has been removed in Airflow 3, please use its upgraded version /api/v2 instead."
	v2RouteNotFound = "API route not found"
)

// v2Error is an HTTPException as FastAPI answers it: the status and
// {"detail": detail}, detail a string or pydantic's list of errors.
type v2Error struct {
	status int
	detail any
	// allow is the Allow header of a 405 (Starlette's Route.handle).
	allow string
}

func (e *v2Error) Error() string { return fmt.Sprintf("%d %v", e.status, e.detail) }

// v2NoRoute answers a request no route of edition 3 takes, as Airflow 3's
// app does. Its catch-alls are GET routes (/health, /api/v1/{_:path},
// /api/{_:path} and the web app's /{rest_of_path:path}), so any path takes
// a GET, and another method is Starlette's 405 for a route that matched the
// path only. A GET outside /api is the web app's index.html in Airflow;
// airlite has no such app and answers FastAPI's 404 there.
func v2NoRoute(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeV2Error(w, r, &v2Error{status: http.StatusMethodNotAllowed, detail: "Method Not Allowed", allow: http.MethodGet})
		return
	}
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/api/v1/"):
		writeV2JSON(w, r, http.StatusNotFound, v2Catchall{Error: v2APIv1Removed})
	case strings.HasPrefix(p, "/api/"):
		writeV2JSON(w, r, http.StatusNotFound, v2Catchall{Error: v2RouteNotFound})
	default:
		writeV2Error(w, r, &v2Error{status: http.StatusNotFound, detail: "Not Found"})
	}
}

// v2MethodNotAllowed answers a method no route of a path takes: Starlette's
// 405 (routing.py Route.handle), whose Allow header names the methods of
// the first route that matched the path. FastAPI makes one route per
// method and answers no OPTIONS, so that is the first of the path's
// methods httprouter found, without its OPTIONS.
func v2MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := http.MethodGet
	for m := range strings.SplitSeq(w.Header().Get("Allow"), ", ") {
		if m != "" && m != http.MethodOptions {
			allow = m
			break
		}
	}
	writeV2Error(w, r, &v2Error{status: http.StatusMethodNotAllowed, detail: "Method Not Allowed", allow: allow})
}

// v2Catchall is the body of Airflow 3's catch-all routes, which return
// {"error": ...} rather than FastAPI's {"detail": ...}.
type v2Catchall struct {
	Error string `json:"error"`
}

// v2Detail is FastAPI's error body.
type v2Detail struct {
	Detail any `json:"detail"`
}

// writeV2Error writes err as FastAPI answers it: a v2Error as it is; a
// write refused at one of airlite's own limits, which Airflow has not, as
// an HTTPException 400 naming the flag (the other APIs answer it with a
// 400 in their forms, api_answer.go storeKinds); any other error (a fault
// no phrase took, a crash) as the 500 Starlette's ServerErrorMiddleware
// writes, "Internal Server Error" in plain text.
func writeV2Error(w http.ResponseWriter, r *http.Request, err error) {
	var e *v2Error
	if text, ok := storeErrorTextWith(err, freeingRoutesV2); ok && !errors.As(err, &e) {
		e = &v2Error{status: http.StatusBadRequest, detail: text}
	}
	if e == nil && !errors.As(err, &e) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("Internal Server Error"))
		return
	}
	if e.allow != "" {
		w.Header().Set("Allow", e.allow)
	}
	writeV2JSON(w, r, e.status, v2Detail{Detail: e.detail})
}

// writeV2JSON writes v as Starlette's JSONResponse renders it: compact
// separators, non-ASCII as UTF-8 (ensure_ascii=False), no newline, fields
// in the model's order (Go structs declare them in pydantic's order).
func writeV2JSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	var body []byte
	if pre, ok := v.(*v2Rendered); ok {
		body = pre.body
		if pre.pooled != nil {
			defer releaseV2Buffer(pre.pooled)
		}
	} else {
		buf := v2Buffers.Get().(*bytes.Buffer)
		defer releaseV2Buffer(buf)
		if err := encodeV2JSON(buf, v); err != nil {
			writeV2Error(w, r, err)
			return
		}
		body = buf.Bytes()
	}
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// v2Buffers holds writeV2JSON's buffers, as jsonBuffers does
// writeJSON's: a buffer that grew past maxPooledJSON is let go.
var v2Buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// releaseV2Buffer gives buf back to v2Buffers once its answer is written.
func releaseV2Buffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledJSON {
		buf.Reset()
		v2Buffers.Put(buf)
	}
}

// renderV2JSON is v in writeV2JSON's form.
func renderV2JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeV2JSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeV2JSON appends v to b as FastAPI's JSONResponse writes it: no
// HTML escaping, no trailing newline.
func encodeV2JSON(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("render response: %w", err)
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// v2Rendered is an answer rendered before (renderV2JSON), which
// writeV2JSON writes as it is; pooled, when set, is body's buffer, which
// writeV2JSON gives back to v2Buffers once it has written it.
type v2Rendered struct {
	body   []byte
	pooled *bytes.Buffer
}

// v2UniqueViolation is the answer of Airflow 3's handler of a unique
// constraint's IntegrityError (common/exceptions.py
// _UniqueConstraintErrorHandler, [api] expose_stacktrace off): a POST of
// a pool or a connection whose name is taken.
func v2UniqueViolation() error {
	id := randomString(8)
	return &v2Error{status: http.StatusConflict, detail: v2DBErrorDetail{
		Reason: "Unique constraint violation", Statement: "hidden", OrigError: "hidden",
		Message: "Serious error when handling your request. Check logs for more details - you will find it in api server when you look for ID " + id,
		id:      id,
	}}
}

// v2DBErrorDetail is the detail of Airflow 3's database error answers.
type v2DBErrorDetail struct {
	Reason    string `json:"reason"`
	Statement string `json:"statement"`
	OrigError string `json:"orig_error"`
	Message   string `json:"message"`
	// id is the lookup id Message names, which the server logs
	// (failV2), as Airflow's handler logs the error with it.
	id string
}
