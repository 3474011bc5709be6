package main

// How answers leave airlite. A success is written in its route family's
// form: writeJSON (the experimental API, in the edition's JSON form),
// writeAdminJSON (the admin endpoints) or renderPage (the status pages).
// Every error answer, on any route, goes through answerError, which reads
// the error's kind for the status and the route's family for the form.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// routeFamily is how a route answers.
type routeFamily int

const (
	familyAPI   routeFamily = iota // /api/...: {"error": ...} in the edition's JSON form, as Airflow
	familyV1                       // /api/v1/...: connexion's problem documents (Airflow 2's stable API)
	familyAdmin                    // /_airlite/...: compact JSON, the same in every edition
	familyPage                     // the status pages: the HTML error page
)

func familyOf(r *http.Request) routeFamily {
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, apiV1Prefix+"/"):
		return familyV1
	case strings.HasPrefix(p, "/api/"):
		return familyAPI
	case strings.HasPrefix(p, "/_airlite/"):
		return familyAdmin
	}
	return familyPage
}

// routeError is a request no route takes: Airflow answers every path with
// the same document, whatever family the path looks like.
type routeError struct {
	status        int
	title, detail string
}

func (e *routeError) Error() string { return e.detail }

// answerError writes every error answer. Two kinds keep Airflow's own
// bytes on every route: a request no route takes (routeError: connexion's
// problem document in Airflow 2, {"error": ...} in 1.10) and an auth
// backend's refusal (rejection: plain text). Any other error gets the
// status of its kind (errorStatus) and, in its route family's form, its
// message; an error that is not the API's own is logged and answered
// generically. An apiError's data adds fields to an admin answer.
func (s *server) answerError(w http.ResponseWriter, r *http.Request, err error) {
	var route *routeError
	if errors.As(err, &route) {
		s.writeProblem(w, r, route.status, route.title, route.detail)
		return
	}
	var prob *problem
	if errors.As(err, &prob) {
		s.writeV1Problem(w, r, prob)
		return
	}
	var refusal rejection
	if errors.As(err, &refusal) {
		if refusal.wwwAuthenticate != "" {
			w.Header().Set("WWW-Authenticate", refusal.wwwAuthenticate)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(refusal.status)
		_, _ = io.WriteString(w, refusal.body)
		return
	}
	status, msg := s.errorAnswer(r, err)
	switch familyOf(r) {
	case familyPage:
		s.renderError(w, r, status, msg)
	case familyAdmin:
		body := map[string]any{"error": msg}
		var apiErr *apiError
		if errors.As(err, &apiErr) {
			for k, v := range apiErr.data {
				body[k] = v
			}
		}
		writeAdminJSON(w, status, body)
	case familyV1:
		s.writeV1Problem(w, r, &problem{status: status, title: http.StatusText(status), detail: msg})
	default:
		s.writeJSON(w, r, status, map[string]any{"error": msg})
	}
}

// streamChunk is how much of a long listing writeJSON renders before it
// writes: a client that stops reading holds one chunk, not the listing.
const streamChunk = 32 << 10

// writeJSON writes v in the edition's JSON form; a long pyList goes out in
// chunks as it is rendered.
func (s *server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	if list, ok := v.(pyList); ok && list.n > 64 {
		s.writeJSONList(w, r, status, list)
		return
	}
	buf := jsonBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledJSON {
			jsonBuffers.Put(buf)
		}
	}()
	body, err := s.rules().appendJSON((*buf)[:0], v)
	*buf = body[:0]
	if err != nil {
		s.answerError(w, r, fmt.Errorf("render response: %w", err))
		return
	}
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(body); err != nil {
		s.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("write response")
	}
}

// writeJSONList writes a listing a chunk at a time. A row that fails to
// render after the status went out ends the answer short, with a log line;
// the rows of a listing are strings and numbers, which always render.
func (s *server) writeJSONList(w http.ResponseWriter, r *http.Request, status int, list pyList) {
	rules := s.rules()
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	buf := jsonBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledJSON {
			jsonBuffers.Put(buf)
		}
	}()
	b := append((*buf)[:0], '[')
	for i := 0; i < list.n; i++ {
		if i > 0 {
			b = append(b, rules.json.itemSep...)
		}
		var err error
		if b, err = rules.json.append(b, list.item(i)); err != nil {
			s.opts.Logger.Error().Err(err).Str("path", r.URL.Path).Int("row", i).Msg("render listing: answer cut short")
			*buf = b[:0]
			return
		}
		if len(b) >= streamChunk {
			if _, err := w.Write(b); err != nil {
				s.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("write response")
				*buf = b[:0]
				return
			}
			b = b[:0]
		}
	}
	b = append(b, ']')
	if rules.jsonNewline {
		b = append(b, '\n')
	}
	if _, err := w.Write(b); err != nil {
		s.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("write response")
	}
	*buf = b[:0]
}

// jsonBuffers holds response buffers for writeJSON; those that grew past
// maxPooledJSON (long listings) go back to the garbage collector.
var jsonBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledJSON = 64 << 10

// errorStatus maps error kinds to statuses; anything else is a 500.
var errorStatus = []struct {
	kind   error
	status int
}{
	{errNotFound, http.StatusNotFound},
	{errBadRequest, http.StatusBadRequest},
	{errConflict, http.StatusConflict},
	{errTooLarge, http.StatusRequestEntityTooLarge},
	{errTimeout, http.StatusRequestTimeout},
	{errForbidden, http.StatusForbidden},
	{errUnavailable, http.StatusServiceUnavailable},
	{errAirflow, http.StatusInternalServerError},
	{errCrash, http.StatusInternalServerError},
}

var (
	errTooLarge  = errors.New("request body too large")
	errTimeout   = errors.New("timed out")
	errForbidden = errors.New("forbidden")
)

// genericInternalError answers an error that is not the API's own; its
// detail goes to the log.
const genericInternalError = "internal error: see the airlite log"

// storeKinds is how the APIs answer what the store says happened
// (memstore_errors.go): as the API kind beside it. Not found and
// unavailable are kinds the APIs share with the store.
var storeKinds = []struct{ store, api error }{
	{errExists, errConflict},         // Airflow's AlreadyExists
	{errLimitReached, errBadRequest}, // airlite's own limits, a 400 naming the flag
	{errSubDagRunExists, errCrash},   // Airflow crashes on the sub-DAG's unique keys
}

// errorAnswer is the status and the message for an error. Errors that are
// not the API's own are logged here with their detail and answered
// generically.
func (s *server) errorAnswer(r *http.Request, err error) (int, string) {
	kind := err
	for _, k := range storeKinds {
		if errors.Is(err, k.store) {
			kind = k.api
			break
		}
	}
	status := http.StatusInternalServerError
	for _, e := range errorStatus {
		if errors.Is(kind, e.kind) {
			status = e.status
			break
		}
	}
	if msg, ok := storeErrorText(err); ok {
		return status, msg
	}
	msg := err.Error()
	var apiErr *apiError
	if !errors.As(err, &apiErr) && !errors.Is(err, errTooLarge) {
		s.opts.Logger.Error().Err(err).Str("path", r.URL.Path).Msg("internal error")
		msg = genericInternalError
	}
	return status, msg
}

// freeingRoutes are the routes a limit's refusal names as the way to make
// room, in the API that answers it.
type freeingRoutes struct{ deleteDag, deletePool, deleteVariable, deleteConnection string }

var (
	// freeingRoutesV1 are the experimental API's and /api/v1's (editions
	// 1.10 and 2).
	freeingRoutesV1 = freeingRoutes{
		deleteDag: "DELETE /api/experimental/dags/{dag_id}", deletePool: "DELETE /api/experimental/pools/{name}",
		deleteVariable: "DELETE /api/v1/variables/{key}", deleteConnection: "DELETE /api/v1/connections/{connection_id}",
	}
	// freeingRoutesV2 are /api/v2's (edition 3 has no other API).
	freeingRoutesV2 = freeingRoutes{
		deleteDag: "DELETE /api/v2/dags/{dag_id}", deletePool: "DELETE /api/v2/pools/{pool_name}",
		deleteVariable: "DELETE /api/v2/variables/{variable_key}", deleteConnection: "DELETE /api/v2/connections/{connection_id}",
	}
)

// freeingRoutes are the routes of the edition's APIs that make room.
func (r *editionRules) freeingRoutes() freeingRoutes {
	if r.apiV2 {
		return freeingRoutesV2
	}
	return freeingRoutesV1
}

// storeErrorText phrases the store's refusals, which carry figures, not
// sentences: a limit names the flag that sets it and what to do, with
// the experimental API's and /api/v1's routes.
func storeErrorText(err error) (string, bool) { return storeErrorTextWith(err, freeingRoutesV1) }

// storeErrorTextWith is storeErrorText naming routes' routes.
func storeErrorTextWith(err error, routes freeingRoutes) (string, bool) {
	var limit *limitError
	if errors.As(err, &limit) {
		switch limit.limit {
		case limitRunsPerDag:
			if limit.finished >= 0 {
				return fmt.Sprintf("DAG %s has %d runs, the limit of --max-runs-per-dag, "+
					"and only %d have finished: no room for another until more finish", limit.dagID, limit.have, limit.finished), true
			}
			return fmt.Sprintf("DAG %s has %d runs, the limit of --max-runs-per-dag: "+
				"remove runs (POST /_airlite/reset) or start airlite with --run-retention drop-oldest-finished", limit.dagID, limit.have), true
		case limitConfBytesTotal:
			return fmt.Sprintf("the runs airlite keeps hold %d bytes of conf, and this conf of %d bytes would pass %d, "+
				"the limit of --max-conf-bytes-total: remove runs (POST /_airlite/reset) or start airlite with a higher --max-conf-bytes-total",
				limit.have, limit.adding, limit.max), true
		case limitDags:
			return fmt.Sprintf("airlite has %d DAGs loaded through /_airlite/dags, the limit of --max-dags: "+
				"delete DAGs (%s), reset (POST /_airlite/reset) "+
				"or start airlite with a higher --max-dags", limit.have, routes.deleteDag), true
		case limitPools:
			return fmt.Sprintf("airlite has %d pools, the limit of --max-pools: "+
				"delete pools (%s) or start airlite with a higher --max-pools", limit.have, routes.deletePool), true
		case limitVariables:
			return fmt.Sprintf("airlite has %d variables, the limit of --max-variables: "+
				"delete variables (%s) or start airlite with a higher --max-variables", limit.have, routes.deleteVariable), true
		case limitConnections:
			return fmt.Sprintf("airlite has %d connections, the limit of --max-connections: "+
				"delete connections (%s) or start airlite with a higher --max-connections", limit.have, routes.deleteConnection), true
		case limitXComs:
			return fmt.Sprintf("airlite has %d XCom entries, the limit of --max-xcoms: "+
				"remove runs (POST /_airlite/reset) or start airlite with a higher --max-xcoms", limit.have), true
		case limitVariableBytes, limitConnBytes, limitXComBytes:
			flag := map[string]string{limitVariableBytes: "--max-variable-bytes", limitConnBytes: "--max-connection-bytes",
				limitXComBytes: "--max-xcom-bytes"}[limit.limit]
			what := map[string]string{limitVariableBytes: "the value of variable", limitConnBytes: "connection",
				limitXComBytes: "the value of XCom"}[limit.limit]
			return fmt.Sprintf("%s %s has %d bytes, over %d, the limit of %s: "+
				"store less or start airlite with a higher %s", what, limit.key, limit.adding, limit.max, flag, flag), true
		}
	}
	var lease *leaseError
	if errors.As(err, &lease) {
		return leaseText(lease), true
	}
	var exists *subDagRunExists
	if errors.As(err, &exists) {
		if exists.runID != "" {
			return fmt.Sprintf("sub-DAG %s already has a run with run id %s", exists.childID, exists.runID), true
		}
		return fmt.Sprintf("sub-DAG %s already has a run at %s", exists.childID, isoFormat(exists.date)), true
	}
	return "", false
}

// leaseText phrases a new id refused, or the id lease's state, as the
// health endpoint and the refused write say it.
func leaseText(e *leaseError) string {
	switch {
	case e.what == "":
		return fmt.Sprintf("the id lease at %s cannot be written (%v): new run and pool ids stop at "+
			"run id %d and pool id %d, the last it covers, so that a crash cannot hand out an id twice; "+
			"airlite tries again every --snapshot-interval", e.path, e.problem, e.run, e.pool)
	case e.problem != nil:
		return fmt.Sprintf("no new %s: the id lease at %s cannot be written (%v), and it covers "+
			"%s ids up to %d only: an id past it could be handed out again after a crash; "+
			"airlite tries again every --snapshot-interval", e.what, e.path, e.problem, e.what, e.ceiling)
	}
	return fmt.Sprintf("no new %s: the id lease at %s covers %s ids up to %d and is not "+
		"extended yet; try again", e.what, e.path, e.what, e.ceiling)
}

// writeAdminJSON writes an admin endpoint's answer: compact JSON, the same
// in every edition.
func writeAdminJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		fmt.Fprintf(&b, "{\"error\":%q}\n", "render response: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// writeProblem is Airflow's answer to a request no route takes (see
// answerError).
func (s *server) writeProblem(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
	s.setEditionHeaders(w, false)
	if !s.rules().problemDocument {
		s.writeJSON(w, r, status, map[string]any{"error": detail})
		return
	}
	// connexion pretty-prints with two spaces and sorted keys.
	body := fmt.Sprintf("{\n  \"detail\": %s,\n  \"status\": %d,\n  \"title\": %s,\n  \"type\": \"about:blank\"\n}\n",
		appendPyString(nil, detail), status, appendPyString(nil, title))
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, body)
	}
}

// writeV1JSON writes a stable-API answer as connexion does: Airflow's JSON
// provider (sorted keys, ASCII) indented by two, and a final newline.
func (s *server) writeV1JSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	// Both forms are built in pooled buffers, as writeJSON's are.
	compactBuf, indentBuf := jsonBuffers.Get().(*[]byte), jsonBuffers.Get().(*[]byte)
	defer func() {
		for _, buf := range []*[]byte{compactBuf, indentBuf} {
			if cap(*buf) <= maxPooledJSON {
				jsonBuffers.Put(buf)
			}
		}
	}()
	compact, err := compactJSON.append((*compactBuf)[:0], v)
	*compactBuf = compact[:0]
	if err != nil {
		s.answerError(w, r, fmt.Errorf("render response: %w", err))
		return
	}
	body := append(appendIndented(slices.Grow((*indentBuf)[:0], len(compact)*2), compact), '\n')
	*indentBuf = body[:0]
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(body); err != nil {
		s.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("write response")
	}
}

// writeV1Problem writes a stable-API error: connexion's problem document,
// its type the link Airflow gives the status (about:blank for others).
func (s *server) writeV1Problem(w http.ResponseWriter, r *http.Request, p *problem) {
	typ, ok := v1ProblemTypes[p.status]
	if !ok {
		typ = "about:blank"
	}
	if p.wwwAuthenticate != "" {
		w.Header().Set("WWW-Authenticate", p.wwwAuthenticate)
	}
	compact, err := compactJSON.marshal(pyObject{{"detail", p.detail}, {"status", p.status}, {"title", p.title}, {"type", typ}})
	if err != nil { // strings and an int always render
		s.opts.Logger.Error().Err(err).Msg("render problem")
	}
	body := append(appendIndented(nil, compact), '\n')
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// writeV1NoContent is connexion's NoContent, 204: an empty body labelled
// JSON.
func (s *server) writeV1NoContent(w http.ResponseWriter) {
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(http.StatusNoContent)
}

// respondV1DeletedResponse writes a deletion whose endpoint returns a
// Flask Response(status=204) rather than connexion's NoContent (Airflow
// 2.10.3 pool_endpoint.py:53, variable_endpoint.py:57): Flask labels it
// with its default mimetype.
func (s *server) respondV1DeletedResponse(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header()["Content-Type"] = headerFlaskHTML
	w.WriteHeader(http.StatusNoContent)
}

var headerFlaskHTML = []string{"text/html; charset=utf-8"}

// writeV1Text writes a text resource (a DAG's source) as the Accept header
// asks, as Airflow's endpoints do: text/plain as it is, application/json
// as {"content": ...} (marshmallow's dumps: Python's default separators,
// keys unsorted), anything else 406.
func (s *server) writeV1Text(w http.ResponseWriter, r *http.Request, text string) {
	var body []byte
	switch bestMatch(r.Header.Get("Accept"), "text/plain", "application/json") {
	case "text/plain":
		w.Header().Set("Content-Type", "text/plain")
		body = []byte(text)
	case "application/json":
		w.Header()["Content-Type"] = headerJSON
		body = append(appendPyString([]byte(`{"content": `), text), '}')
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotAcceptable)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, "Not Allowed Accept Header")
		}
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
