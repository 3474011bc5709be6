package main

// Airflow 3's action log on /api/v2 (issue #21): the routes that list
// Depends(action_logging()) write one event-log row per request
// (airflow-core/src/airflow/api_fastapi/logging/decorators.py
// action_logging). The row is committed by the dependency, before the
// endpoint runs and before FastAPI validates the endpoint's own path,
// query and body parameters: a request refused with 422, 404 or 409 is
// logged too. A body that is not JSON is refused by FastAPI before any
// dependency runs (fastapi/routing.py get_request_handler), and a
// caller without a token by the dependency's own GetUserDep: neither is
// logged.

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// withV2Action declares that Airflow 3 wraps the route in action_logging;
// event is the endpoint function's name (request.scope["endpoint"].__name__).
func withV2Action(event string) func(*apiRoute) {
	return func(rt *apiRoute) { rt.v2Action = event }
}

// withV2ActionInWrite is withV2Action for a handler that stores the row
// in its own write (req.event), one transaction instead of two.
func withV2ActionInWrite(event string) func(*apiRoute) {
	return func(rt *apiRoute) { rt.v2Action, rt.v2ActionInWrite = event, true }
}

// flushV2Action stores an in-write action's row that the handler did not
// store (the request ended before its write, or the write failed):
// Airflow commits the row before the endpoint runs, whatever it comes to.
func (s *server) flushV2Action(req *apiRequest) {
	if req.event == nil {
		return
	}
	if err := s.ops.logEvent(*req.event); err != nil {
		s.opts.Logger.Warn().Err(err).Str("event", req.event.Event).Msg("log action")
	}
	req.event = nil
}

// v2ActionSkipped are the decorator's fields_skip_logging: values left out
// of extra, most because they have columns of their own (decorators.py).
var v2ActionSkipped = []string{"csrf_token", "_csrf_token", "is_paused", "dag_id", "task_id", "dag_run_id", "run_id", "logical_date"}

// v2ActionDryRunEvents are the events the decorator does not log when the
// body's dry_run is absent or true (skip_dry_run_events).
var v2ActionDryRunEvents = []string{"clear_dag_run", "post_clear_task_instances"}

// recordV2Action stores the row action_logging writes for one request.
func (s *server) recordV2Action(rt *apiRoute, r *http.Request, req *apiRequest) error {
	ev, err := v2ActionEvent(s.rules().masker, rt.v2Action, r, rt.pathFields(req.path), req.raw, req.ordered, req.caller.loggedIn(),
		s.opts.Now().UTC().Truncate(time.Microsecond))
	if err != nil || ev == nil {
		return err
	}
	if rt.v2ActionInWrite {
		req.event = ev
		return nil
	}
	if err := s.ops.logEvent(*ev); err != nil {
		return fmt.Errorf("log action %s: %w", rt.v2Action, err)
	}
	return nil
}

// v2ActionEvent is the decorator's row for a request: nil when it skips
// the request (a clear that is a dry run).
// ordered is raw as the route's body check decoded it (nil when it did
// not), so that a body is read once.
func v2ActionEvent(m secretsMasker, event string, r *http.Request, path []pyField, raw []byte, ordered any, user string, now time.Time) (*EventLog, error) {
	// has_json_body: "application/json" anywhere in the Content-Type and
	// a body that is not empty; only an object is read (a list or a
	// scalar is left to the endpoint's 422), but for the variable and
	// connection events the decorator takes the items of whatever JSON it
	// is, and fails on any other (errV2ActionBodyNotObject).
	hasJSONBody := strings.Contains(r.Header.Get("Content-Type"), "application/json") && len(raw) > 0
	var body pyDict
	if hasJSONBody {
		decoded, err := ordered, error(nil)
		if decoded == nil {
			decoded, err = decodePyJSON(raw)
		}
		isObj := false
		body, isObj = decoded.(pyDict)
		if err == nil && !isObj && (strings.Contains(event, "variable") || strings.Contains(event, "connection")) {
			return nil, errV2ActionBodyNotObject
		}
		if slices.Contains(v2ActionDryRunEvents, event) && pyTruthy(body.get("dry_run", true)) {
			return nil, nil
		}
	}
	// masked is body until the masker hides something (a copy then): the
	// row is built from it, never written through.
	masked := body
	for i, f := range body {
		if v, changed := m.redactChanged(f.val, f.key, 0); changed {
			if &masked[0] == &body[0] {
				masked = slices.Clone(body)
			}
			masked[i].val = v
		}
	}
	query := orderedQuery(r.URL.RawQuery)
	// extra_fields: the query's values then the path's, each through the
	// masker, a repeated key keeping its first place and last value (a
	// dict built from Starlette's multi_items). Room for every key and
	// the two the decorator adds, made at once.
	extra := make(pyDict, 0, len(query)+len(path)+len(body)+2)
	set := func(d pyDict, key string, v any) pyDict {
		if i := slices.IndexFunc(d, func(f pyField) bool { return f.key == key }); i >= 0 {
			d[i].val = v
			return d
		}
		return append(d, pyField{key, v})
	}
	for _, kv := range query {
		if !slices.Contains(v2ActionSkipped, kv.key) {
			extra = set(extra, kv.key, m.redact(kv.val, kv.key, 0))
		}
	}
	for _, kv := range path {
		if !slices.Contains(v2ActionSkipped, kv.key) {
			extra = set(extra, kv.key, m.redact(kv.val, kv.key, 0))
		}
	}
	switch {
	case strings.Contains(event, "variable"):
		if hasJSONBody {
			extra = slices.Clone(body)
		}
		extra = m.maskVariableFields(extra)
	case strings.Contains(event, "connection"):
		if hasJSONBody {
			extra = slices.Clone(body)
		}
		var err error
		if extra, err = m.maskV2ConnectionFields(extra); err != nil {
			return nil, err
		}
	case hasJSONBody:
		for _, f := range masked {
			extra = set(extra, f.key, f.val)
		}
	}
	// params: the query's values (the last of a repeated one, as
	// Starlette's QueryParams mapping has it), the path's over them, the
	// masked body over both.
	params := map[string]any{}
	for _, kv := range query {
		params[kv.key] = kv.val
	}
	for _, kv := range path {
		params[kv.key] = kv.val
	}
	for _, f := range masked {
		params[f.key] = f.val
	}
	if v, ok := params["is_paused"]; ok {
		extra = set(extra, "is_paused", v)
	}
	extra = set(extra, "method", v2MethodValue(r.Method))
	dumped, err := pyDumps(extra)
	if err != nil {
		return nil, fmt.Errorf("log action %s: %w", event, err)
	}
	str := func(key string) string { v, _ := params[key].(string); return v }
	owner := "anonymous"
	if user != "" {
		owner = user
	}
	runID := str("run_id")
	if runID == "" {
		runID = str("dag_run_id")
	}
	// The row and its extra in one allocation (the store keeps the row
	// as it is handed over: appendEventLogTxn).
	block := &eventLogBlock{extra: dumped}
	ev := &block.row
	*ev = EventLog{When: now, Event: event, Owner: sharedNames.of(owner), Extra: &block.extra,
		DagID: sharedName(str("dag_id")), TaskID: sharedName(str("task_id")), RunID: runID}
	// logical_date: from the query only, as pendulum parses it; a value
	// that does not parse leaves the column NULL.
	for _, kv := range query {
		if kv.key == "logical_date" {
			ev.ExecutionDate = nil
			if t, ok := parseV2ActionDate(kv.val); ok {
				ev.ExecutionDate = &t
			}
		}
	}
	return ev, nil
}

// eventLogBlock is an event log row and the extra it points at, made
// together: one allocation, and one object for the collector to mark as
// long as the row lives, where the two were two each.
type eventLogBlock struct {
	row   EventLog
	extra string
}

// v2MethodValue is a request's method as an interface value: the usual
// methods' constants, which need no allocation to box.
func v2MethodValue(method string) any {
	switch method {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodPost:
		return http.MethodPost
	case http.MethodPatch:
		return http.MethodPatch
	case http.MethodPut:
		return http.MethodPut
	case http.MethodDelete:
		return http.MethodDelete
	}
	return method
}

// sharedNames hands out one pointer per name for the rows that keep a
// name by pointer: an action row's owner, an Airflow 3 run's triggering
// user. A row is never written once stored, so rows may share the
// string; a name a row keeps by its own pointer was an allocation a
// request and one more object that every collection marks for as long
// as the row lives. At most sharedNamesMax names are kept; past that a
// name gets a pointer of its own.
var sharedNames = &namePointers{m: map[string]*string{}}

const sharedNamesMax = 1024

// namePointers is sharedNames' kind: a bounded map of name pointers.
type namePointers struct {
	mu sync.Mutex
	m  map[string]*string
}

// of is a pointer to name, shared with every caller that asks for it.
// The name is copied when first kept: a name cut from a request (a path
// parameter is a piece of the request line) would keep the whole line
// alive with the row.
func (c *namePointers) of(name string) *string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[name]; ok {
		return p
	}
	p := new(string) // not &name, which would move name to the heap at every call
	*p = strings.Clone(name)
	if len(c.m) < sharedNamesMax {
		c.m[*p] = p
	}
	return p
}

// sharedName is name as sharedNames keeps it: a row's DAG or task id
// read from a request's path shares one copy instead of keeping the
// request line it was cut from (a row each logged request).
func sharedName(name string) string {
	if name == "" {
		return ""
	}
	return *sharedNames.of(name)
}

// errV2ActionBodyNotObject is the AttributeError 3.2.1's action_logging
// raises for a variable or connection event whose JSON body is no object
// (request_body.items(), c57fba0e api_fastapi/logging/decorators.py:
// 122-128): the dependency fails before the body is validated, and
// Starlette answers its 500 (apache/airflow#72683 came after 3.2.1).
var errV2ActionBodyNotObject = errors.New("log action: a variable or connection body that is not a JSON object")

// errV2ConnectionExtraType is the TypeError json.loads raises in 3.2.1's
// _mask_connection_fields for an extra that is not a string: the
// dependency fails, and Starlette answers its 500.
var errV2ConnectionExtraType = errors.New("log action: connection extra is not a string")

// maskV2ConnectionFields is Airflow 3.2.1's _mask_connection_fields
// (api_fastapi/logging/decorators.py): as 2.10.3's (maskConnectionFields),
// but an extra that is JSON and not an object is noted as such (apache/
// airflow#54034), and a true extra that is not a string fails the request
// (json.loads raises TypeError, which the decorator does not catch before
// apache/airflow#70890).
func (m secretsMasker) maskV2ConnectionFields(in pyDict) (pyDict, error) {
	for _, f := range in {
		if f.key != "extra" || !pyTruthy(f.val) {
			continue
		}
		s, ok := f.val.(string)
		if !ok {
			return nil, errV2ConnectionExtraType
		}
		if d, err := decodePyJSON([]byte(s)); err == nil {
			if _, isObj := d.(pyDict); !isObj {
				out := m.maskConnectionFields(in)
				for i := range out {
					if out[i].key == "extra" {
						out[i].val = "Expected JSON object in `extra` field, got non-dict JSON"
					}
				}
				return out, nil
			}
		}
	}
	return m.maskConnectionFields(in), nil
}

// parseV2ActionDate reads a logical_date as pendulum.parse does for the
// forms clients send: RFC 3339 with or without an offset (naive is UTC),
// or a bare date.
func parseV2ActionDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// get is dict.get: the value under key, or def when absent.
func (d pyDict) get(key string, def any) any {
	for _, f := range d {
		if f.key == key {
			return f.val
		}
	}
	return def
}
