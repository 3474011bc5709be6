package main

// The stable API's event log: /eventLogs and /eventLogs/{event_log_id}
// (Airflow 2.10.3 airflow/api_connexion/endpoints/event_log_endpoint.py,
// schemas/event_log_schema.py), and the rows it lists: what Airflow's
// action_logging decorator (airflow/www/decorators.py) writes for the
// operations it wraps. The task runner's rows (running, success, skipped,
// failed) are written by the store with the try (memstore.go).

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// v1Action is an operation that Airflow wraps in action_logging.
type v1Action struct {
	// event is the decorator's event: the function's name, or the
	// resource's prefix and permission ("variable.create"); the request
	// adds "api." (or "ui.", see actionEventName).
	event string
	// inWrite: the handler stores the event in its own write (req.event)
	// and on its own when that write does not happen.
	inWrite bool
	// limitFirst: format_parameters' limit check sits outside the
	// decorator, so a bad limit is refused unlogged (patch_dags).
	limitFirst bool
}

// withAction declares that Airflow logs the operation under event.
func withAction(event string) func(*v1Route) {
	return func(rt *v1Route) { rt.action = &v1Action{event: event} }
}

// withActionInWrite is withAction for a handler that stores the event
// with the change it makes.
func withActionInWrite(event string) func(*v1Route) {
	return func(rt *v1Route) { rt.action = &v1Action{event: event, inWrite: true} }
}

// withActionAfterLimit is withAction behind format_parameters' limit check.
func withActionAfterLimit(event string) func(*v1Route) {
	return func(rt *v1Route) { rt.action = &v1Action{event: event, limitFirst: true} }
}

// actionSkippedFields are the request values the decorator leaves out of
// extra (fields_skip_logging), most because they have columns of their own.
var actionSkippedFields = []string{"csrf_token", "_csrf_token", "is_paused", "dag_id", "task_id", "dag_run_id", "run_id", "execution_date"}

// actionRequest is what the decorator reads of a request.
type actionRequest struct {
	r    *http.Request
	path []pyField // view_args: the path's parameters, in the path's order
	body []byte    // nil when the operation takes none
	// ordered is body as decodePyJSON reads it, when the request already
	// decoded it so (v1Request.ordered); nil to decode body here.
	ordered any
	user    string // who is logged in; "" for nobody
	now     time.Time
	action  *v1Action
	masker  secretsMasker // the release's secrets masker
}

// actionEvent is the row action_logging writes: event, owner (the user,
// or "anonymous"), the ids from the request's values and path, and extra,
// json.dumps of the request's values and path (ids left out) and of its
// JSON body, through the secrets masker.
func actionEvent(ar actionRequest) (*EventLog, error) {
	query := orderedQuery(ar.r.URL.RawQuery)
	// hasJsonBody: the header exactly application/json, and a body that
	// is a non-empty object.
	var body pyDict
	if ar.body != nil && ar.r.Header.Get("Content-Type") == "application/json" {
		if ar.ordered != nil {
			body, _ = ar.ordered.(pyDict)
		} else if v, err := decodePyJSON(ar.body); err == nil {
			body, _ = v.(pyDict)
		}
	}
	fields := make(pyDict, 0, len(query)+len(ar.path)+len(body))
	set := func(key string, v any) {
		if slices.Contains(actionSkippedFields, key) {
			return
		}
		if i := slices.IndexFunc(fields, func(f pyField) bool { return f.key == key }); i >= 0 {
			fields[i].val = v // a repeated key keeps its first place and its last value
			return
		}
		fields = append(fields, pyField{key, v})
	}
	for _, kv := range query {
		set(kv.key, ar.masker.redact(kv.val, kv.key, 0))
	}
	for _, kv := range ar.path {
		set(kv.key, ar.masker.redact(kv.val, kv.key, 0))
	}
	switch {
	case strings.HasPrefix(ar.action.event, "variable."):
		if len(body) > 0 {
			fields = body
		}
		fields = ar.masker.maskVariableFields(fields)
	case strings.HasPrefix(ar.action.event, "connection."):
		if len(body) > 0 {
			fields = body
		}
		fields = ar.masker.maskConnectionFields(fields)
	default:
		for _, f := range body {
			i := slices.IndexFunc(fields, func(g pyField) bool { return g.key == f.key })
			if i >= 0 {
				fields[i].val = ar.masker.redact(f.val, f.key, 0)
			} else {
				fields = append(fields, pyField{f.key, ar.masker.redact(f.val, f.key, 0)})
			}
		}
	}
	if fields == nil {
		fields = pyDict{}
	}
	extra, err := pyDumps(fields)
	if err != nil {
		return nil, fmt.Errorf("log action %s: %w", ar.action.event, err)
	}
	owner := ar.user
	if owner == "" {
		owner = "anonymous"
	}
	// params: the request's values (of a repeated one the first, as
	// dict(**MultiDict) takes it), then the path's over them.
	params := map[string]string{}
	for _, kv := range query {
		if _, seen := params[kv.key]; !seen {
			params[kv.key] = kv.val
		}
	}
	for _, kv := range ar.path {
		params[kv.key], _ = kv.val.(string)
	}
	runID := params["run_id"]
	if runID == "" {
		runID = params["dag_run_id"]
	}
	return &EventLog{When: ar.now, Event: actionEventName(ar.r, ar.action.event), Owner: &owner, Extra: &extra,
		DagID: params["dag_id"], TaskID: params["task_id"], RunID: runID}, nil
}

// actionEventName prefixes the event with "ui." when the request comes
// from the server's own pages (its Origin is the server's root URL), else
// with "api.".
func actionEventName(r *http.Request, event string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin+"/" == scheme+"://"+r.Host+"/" {
		return "ui." + event
	}
	return "api." + event
}

// queryPair is one key=value of a query string.
type queryPair struct{ key, val string }

// orderedQuery reads a query string as Werkzeug does, in its order: pairs
// split at "&", a pair without "=" an empty value, "+" a space.
func orderedQuery(raw string) []queryPair {
	if raw == "" {
		return nil
	}
	var out []queryPair
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		out = append(out, queryPair{pyUnquotePlus(k), pyUnquotePlus(v)})
	}
	return out
}

// pathFields are a route's path parameters in the path's order, as
// Flask's view_args holds them.
func (rt *v1Route) pathFields(params map[string]string) []pyField {
	var out []pyField
	for _, seg := range rt.segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		name, _, _ := strings.Cut(strings.Trim(seg, "{}"), ":")
		out = append(out, pyField{name, params[name]})
	}
	return out
}

// recordAction stores the operation's event before it runs, as the
// decorator commits its row first: a refused or failed action is logged
// too. An inWrite operation gets the event to store with its change.
func (s *server) recordAction(rt *v1Route, r *http.Request, req *v1Request, user string) error {
	if rt.action.limitFirst {
		if _, err := req.query.page(); err != nil {
			return err
		}
	}
	ev, err := actionEvent(actionRequest{r: r, path: rt.pathFields(req.path), body: req.raw, ordered: req.ordered, user: user, masker: s.rules().masker,
		now: s.opts.Now().UTC().Truncate(time.Microsecond), action: rt.action})
	if err != nil {
		return err
	}
	if rt.action.inWrite {
		req.event = ev
		return nil
	}
	return s.ops.logEvent(*ev)
}

// Event log filters, in the document's order (components/parameters).
var eventLogQuery = []v1Param{qLimit, qOffset, qOrderBy,
	{name: "dag_id", schema: "{'type': 'string'}"}, {name: "task_id", schema: "{'type': 'string'}"},
	{name: "run_id", schema: "{'type': 'string'}"},
	{name: "map_index", kind: paramInteger, schema: "{'type': 'integer'}"},
	{name: "try_number", kind: paramInteger, schema: "{'type': 'integer'}"},
	{name: "event", schema: "{'type': 'string'}"}, {name: "owner", schema: "{'type': 'string'}"},
	qDate("before"), qDate("after"),
	{name: "included_events", schema: "{'type': 'string'}"}, {name: "excluded_events", schema: "{'type': 'string'}"},
}

// v1EventLog is EventLogSchema's dump.
func v1EventLog(e *EventLog) map[string]any {
	return map[string]any{
		"event_log_id": e.ID, "when": v1Date(&e.When), "event": e.Event,
		"dag_id": nullIfEmpty(e.DagID), "task_id": nullIfEmpty(e.TaskID), "run_id": nullIfEmpty(e.RunID),
		"map_index": intOrNull(e.MapIndex), "try_number": intOrNull(e.TryNumber),
		"execution_date": v1Date(e.ExecutionDate), "owner": strOrNull(e.Owner), "extra": strOrNull(e.Extra),
	}
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func intOrNull(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

func strOrNull(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func eventLogFilterOf(q v1Values) eventLogFilter {
	str := func(name string) string { v, _ := q.str(name); return v }
	f := eventLogFilter{dagID: str("dag_id"), taskID: str("task_id"), runID: str("run_id"), event: str("event"),
		owner: str("owner"), mapIndex: q.integer("map_index", 0), tryNumber: q.integer("try_number", 0),
		before: q.dateTime("before"), after: q.dateTime("after")}
	if s := str("included_events"); s != "" {
		f.included = strings.Split(s, ",")
	}
	if s := str("excluded_events"); s != "" {
		f.excluded = strings.Split(s, ",")
	}
	return f
}

// V1GetEventLogs is GET /eventLogs: the events the filters pick, by
// order_by (default event_log_id; ties in id order), a page of them and
// the count of all.
func (s *server) V1GetEventLogs(q v1Values) (map[string]any, error) {
	lq, err := v1ResourceQuery(q, "event_log_id", eventLogOrders)
	if err != nil {
		return nil, err
	}
	events, err := s.ops.eventLogs(eventLogFilterOf(q), lq)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(events.rows))
	for i, e := range events.rows {
		items[i] = v1EventLog(e)
	}
	return map[string]any{"event_logs": items, "total_entries": events.total}, nil
}

// V1GetEventLog is GET /eventLogs/{event_log_id}.
func (s *server) V1GetEventLog(idText string) (map[string]any, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(idText, "_", "")), 10, 64)
	if err != nil {
		id = -1 // beyond any id: no row has it
	}
	e, err := s.ops.eventLog(id)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1EventLog(e), nil
}
