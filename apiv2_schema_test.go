package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Airflow 3's /api/v2 against Airflow 3.2.1's OpenAPI document (spec/v2.yaml
// at tag 3.2.1 of apache/airflow-client-python, a normalised copy of
// Airflow's core_api/openapi/v2-rest-api-generated.yaml):
// testdata/apiv2_schemas.json is its operations (parameters, request
// bodies, responses per status and content type) and the component schemas
// they use, extracted by scripts/extract_v2_schemas.py. The route table is
// checked against the operations, and every answer of a walk over the
// mounted routes against the operation's response schema: the checker
// fails on a field a schema does not declare, a required field missing, a
// wrong type, a null where the schema has none, a value outside an enum or
// const, and a date-time or duration not in pydantic's form.

type v2SchemaDoc struct {
	Operations map[string]*v2DocOperation `json:"operations"`
	Schemas    map[string]map[string]any  `json:"schemas"`
}

// v2DocOperation is one operation of the document.
type v2DocOperation struct {
	OperationID string       `json:"operationId"`
	Parameters  []v2DocParam `json:"parameters"`
	RequestBody *struct {
		Required bool                      `json:"required"`
		Content  map[string]map[string]any `json:"content"`
	} `json:"requestBody"`
	// Responses is the schema per status and content type; a status
	// without content (204) has none.
	Responses map[string]map[string]map[string]any `json:"responses"`
}

// v2DocParam is one parameter of an operation.
type v2DocParam struct {
	Name     string         `json:"name"`
	In       string         `json:"in"`
	Required bool           `json:"required"`
	Schema   map[string]any `json:"schema"`
}

// queryNames are the operation's query parameters, sorted.
func (op *v2DocOperation) queryNames() []string {
	var names []string
	for _, p := range op.Parameters {
		if p.In == "query" {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}

func loadV2Schemas(t *testing.T) *v2SchemaDoc {
	t.Helper()
	data, err := os.ReadFile("testdata/apiv2_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc v2SchemaDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// v2UndeclaredByAirflow are fields Airflow 3.2.1 itself answers that its
// document does not declare, by component; airlite answers them as Airflow
// does. Each needs the Airflow source that writes the field.
var v2UndeclaredByAirflow = map[string][]string{
	// A route that validates a model itself and re-raises pydantic's
	// errors as they came (core_api/services/public/pools.py
	// update_orm_from_pydantic, behind patch_pool; apiv2_pools.go) keeps
	// pydantic's url in each; FastAPI's own validation drops it.
	"ValidationError": {"url"},
}

// v2DocPath is a row's pattern as the document writes the operation's path:
// under /api/v2, each parameter {name}, whatever the router's syntax
// (httprouter's :name and *name, Werkzeug's {name:path}).
func v2DocPath(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, seg := range segs {
		switch {
		case strings.HasPrefix(seg, ":"), strings.HasPrefix(seg, "*"):
			segs[i] = "{" + seg[1:] + "}"
		case strings.HasPrefix(seg, "{"):
			if name, _, ok := strings.Cut(strings.Trim(seg, "{}"), ":"); ok {
				segs[i] = "{" + name + "}"
			}
		}
	}
	return apiV2Prefix + strings.Join(segs, "/")
}

// v2Op is a row's operation key, "GET /api/v2/dags/{dag_id}".
func v2Op(rt *apiRoute) string { return rt.method + " " + v2DocPath(rt.pattern) }

// v2PathParams are the names of a pattern's parameters, in order.
func v2PathParams(pattern string) []string {
	var names []string
	for seg := range strings.SplitSeq(strings.TrimPrefix(v2DocPath(pattern), apiV2Prefix), "/") {
		if strings.HasPrefix(seg, "{") {
			names = append(names, strings.Trim(seg, "{}"))
		}
	}
	return names
}

// resolve follows $refs; name is the last component's name, or "". A
// nullable $ref (the normalised document writes Optional[Model] so) keeps
// its nullability.
func (doc *v2SchemaDoc) resolve(s map[string]any) (map[string]any, string) {
	name := ""
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s, name
		}
		name = ref[strings.LastIndexByte(ref, '/')+1:]
		next, found := doc.Schemas[name]
		if !found {
			return map[string]any{"x-missing": name}, name
		}
		if nullable, _ := s["nullable"].(bool); nullable {
			next = maps.Clone(next)
			next["nullable"] = true
		}
		s = next
	}
}

// Pydantic's JSON forms: a datetime as speedate writes it, UTC as Z and
// microseconds only when there are some (Airflow keeps every date in UTC);
// a timedelta as an ISO 8601 duration of days and seconds ("P1DT3600S");
// a UUID in its canonical lowercase form.
var (
	v2DateTimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$`)
	v2DurationRe = regexp.MustCompile(`^-?P(\d+D)?(T\d+(\.\d{1,6})?S)?$`)
	v2UUIDRe     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// typeOf is a schema's type, "object" for a schema with properties and
// none, "" for a schema that takes anything.
func typeOf(s map[string]any) string {
	if typ, ok := s["type"].(string); ok {
		return typ
	}
	if s["properties"] != nil {
		return "object"
	}
	return ""
}

// allowsNull says whether a schema takes null: nullable, of type null,
// or free ({}).
func allowsNull(s map[string]any) bool {
	if n, _ := s["nullable"].(bool); n {
		return true
	}
	return s["type"] == "null" || (typeOf(s) == "" && s["anyOf"] == nil && s["oneOf"] == nil && s["const"] == nil && s["enum"] == nil)
}

// check lists the ways v breaks schema s, each naming its path.
func (doc *v2SchemaDoc) check(path string, v any, s map[string]any) []string {
	s, name := doc.resolve(s)
	if missing, ok := s["x-missing"]; ok {
		return []string{fmt.Sprintf("%s: the document has no schema %v", path, missing)}
	}
	if v == nil && allowsNull(s) {
		return nil
	}
	if alts := append(asList(s["anyOf"]), asList(s["oneOf"])...); len(alts) > 0 {
		var all []string
		for _, alt := range alts {
			errs := doc.check(path, v, alt.(map[string]any))
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		return []string{fmt.Sprintf("%s: matches none of the alternatives: %v", path, all)}
	}
	if v == nil {
		return []string{path + ": null where the schema does not allow it"}
	}
	var errs []string
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		errs = append(errs, fmt.Sprintf("%s: %v is not the constant %v", path, v, c))
	}
	if enum := asList(s["enum"]); len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
	}
	switch typeOf(s) {
	case "null":
		return []string{fmt.Sprintf("%s: %v is not null", path, v)}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not a string", path, v)}
		}
		errs = append(errs, checkFormat(path, str, s)...)
	case "integer":
		n, ok := v.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			return []string{fmt.Sprintf("%s: %v is not an integer", path, v)}
		}
		errs = append(errs, checkMinimum(path, n, s)...)
	case "number":
		n, ok := v.(json.Number)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not a number", path, v)}
		}
		errs = append(errs, checkMinimum(path, n, s)...)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: %v is not a boolean", path, v)}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an array", path, v)}
		}
		errs = append(errs, doc.checkArray(path, list, s)...)
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an object", path, v)}
		}
		errs = append(errs, doc.checkObject(path, obj, s, name)...)
	}
	return errs
}

// checkFormat checks a string's format and length.
func checkFormat(path, str string, s map[string]any) []string {
	var errs []string
	switch s["format"] {
	case "date-time":
		if !v2DateTimeRe.MatchString(str) {
			errs = append(errs, fmt.Sprintf("%s: %q is not a date-time in pydantic's form (2024-01-01T00:00:00Z)", path, str))
		}
	case "duration":
		if !v2DurationRe.MatchString(str) || str == "P" || str == "-P" {
			errs = append(errs, fmt.Sprintf("%s: %q is not a duration in pydantic's form (P1DT3600S)", path, str))
		}
	case "uuid":
		if !v2UUIDRe.MatchString(str) {
			errs = append(errs, fmt.Sprintf("%s: %q is not a UUID", path, str))
		}
	}
	if max, ok := s["maxLength"].(float64); ok && utf8.RuneCountInString(str) > int(max) {
		errs = append(errs, fmt.Sprintf("%s: %q is longer than %v", path, str, max))
	}
	return errs
}

// checkMinimum checks a number against the schema's minimum.
func checkMinimum(path string, n json.Number, s map[string]any) []string {
	min, ok := s["minimum"].(float64)
	if f, err := n.Float64(); ok && err == nil && f < min {
		return []string{fmt.Sprintf("%s: %s is below the minimum %v", path, n, min)}
	}
	return nil
}

// checkArray checks items, a tuple's prefixItems and the length bounds.
func (doc *v2SchemaDoc) checkArray(path string, list []any, s map[string]any) []string {
	var errs []string
	if n, ok := s["minItems"].(float64); ok && len(list) < int(n) {
		errs = append(errs, fmt.Sprintf("%s: %d items, fewer than %v", path, len(list), n))
	}
	if n, ok := s["maxItems"].(float64); ok && len(list) > int(n) {
		errs = append(errs, fmt.Sprintf("%s: %d items, more than %v", path, len(list), n))
	}
	prefix := asList(s["prefixItems"])
	items, _ := s["items"].(map[string]any)
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case i < len(prefix):
			errs = append(errs, doc.check(p, item, prefix[i].(map[string]any))...)
		case items != nil:
			errs = append(errs, doc.check(p, item, items)...)
		}
	}
	return errs
}

// checkObject checks an object's fields: every required one present, no
// field the schema does not declare unless additionalProperties allows
// it. An object schema without properties is free-form (conf, extra).
func (doc *v2SchemaDoc) checkObject(path string, obj map[string]any, s map[string]any, name string) []string {
	var errs []string
	for _, r := range asList(s["required"]) {
		if _, ok := obj[r.(string)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: required field %q missing", path, r))
		}
	}
	props, _ := s["properties"].(map[string]any)
	extra, _ := s["additionalProperties"].(map[string]any)
	open, _ := s["additionalProperties"].(bool)
	if len(props) == 0 && extra == nil {
		return errs
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		ps, declared := props[k].(map[string]any)
		switch {
		case declared:
			errs = append(errs, doc.check(path+"."+k, obj[k], ps)...)
		case extra != nil:
			errs = append(errs, doc.check(path+"."+k, obj[k], extra)...)
		case !open && !slices.Contains(v2UndeclaredByAirflow[name], k):
			errs = append(errs, fmt.Sprintf("%s: field %q is not declared", path, k))
		}
	}
	return errs
}

// decodeNumbers reads a JSON text keeping numbers as written.
func decodeNumbers(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// v2Departure is an answer Airflow 3.2.1 gives against its own document,
// which airlite reproduces; the walk takes it on the operations named.
type v2Departure int

const (
	// v2TupleDetail: the route raises HTTPException with a one-element
	// tuple (a trailing comma in task_instances.py), which FastAPI renders
	// as a list of one string; the document says a string or an object.
	v2TupleDetail v2Departure = iota
	// v2Crash: Airflow's code fails on the request (extra_links.py:
	// get_dag_for_run of a run that is not there) and Starlette answers
	// its plain-text 500.
	v2Crash
	// v2Redirect: auth.py's RedirectResponse, a 307 with a Location and no
	// body, where the document declares an HTTPExceptionResponse.
	v2Redirect
	// v2Untyped: the route returns a StreamingResponse without a
	// media_type (dag_run.py wait_dag_run_until_finished), so no
	// Content-Type is sent; its lines are the document's NDJSON.
	v2Untyped
)

// v2AirflowDepartures lists the departures by "METHOD path status".
var v2AirflowDepartures = map[string]v2Departure{
	"GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/dependencies 404":             v2TupleDetail,
	"GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/{map_index}/dependencies 404": v2TupleDetail,
	"PATCH /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id} 404":                        v2TupleDetail,
	"PATCH /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/{map_index} 404":            v2TupleDetail,
	"PATCH /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/dry_run 404":                v2TupleDetail,
	"PATCH /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/{map_index}/dry_run 404":    v2TupleDetail,
	"GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/links 500":                    v2Crash,
	"GET /api/v2/auth/login 307":                              v2Redirect,
	"GET /api/v2/auth/logout 307":                             v2Redirect,
	"GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/wait 200": v2Untyped,
}

// check is the departure's own form; doc and op serve v2Untyped, whose
// body is still the document's.
func (d v2Departure) check(doc *v2SchemaDoc, op string, res response) []string {
	switch d {
	case v2Untyped:
		if ctype := res.header.Get("Content-Type"); ctype != "" {
			return []string{fmt.Sprintf("%d: Content-Type %q, want none (a StreamingResponse without media_type)", res.status, ctype)}
		}
		typed := response{res.status, http.Header{"Content-Type": {"application/x-ndjson"}}, res.body}
		return doc.answerChecks(op, typed)
	case v2TupleDetail:
		var body struct {
			Detail []string `json:"detail"`
		}
		if err := json.Unmarshal([]byte(res.body), &body); err != nil || len(body.Detail) != 1 {
			return []string{fmt.Sprintf("%d: body %s, want {\"detail\": [one string]} as Airflow's tuple renders", res.status, res.body)}
		}
	case v2Crash:
		if res.body != "Internal Server Error" || !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") {
			return []string{fmt.Sprintf("%d: %q, want Starlette's plain-text 500", res.status, res.body)}
		}
	case v2Redirect:
		if res.body != "" || res.header.Get("Location") == "" {
			return []string{fmt.Sprintf("%d: %q, Location %q, want a redirect with no body", res.status, res.body, res.header.Get("Location"))}
		}
	}
	return nil
}

// answerErrors checks one answer against the operation's document: a 2xx
// status the operation declares, with a content type it declares and a
// body its schema takes; an error's body as FastAPI's error models
// (HTTPExceptionResponse, and HTTPValidationError for a 422), whether
// the operation lists the status or not (FastAPI answers statuses no
// route declares, a 405 or a 401 of the auth dependency).
func (doc *v2SchemaDoc) answerErrors(op string, res response) []string {
	o := doc.Operations[op]
	if o == nil {
		return []string{op + ": not an operation of the document"}
	}
	if kind, ok := v2AirflowDepartures[op+" "+fmt.Sprint(res.status)]; ok {
		return kind.check(doc, op, res)
	}
	return doc.answerChecks(op, res)
}

// answerChecks is answerErrors without the departures.
func (doc *v2SchemaDoc) answerChecks(op string, res response) []string {
	o := doc.Operations[op]
	status := fmt.Sprint(res.status)
	declared, ok := o.Responses[status]
	media, _, _ := strings.Cut(res.header.Get("Content-Type"), ";")
	var schema map[string]any
	switch {
	case res.status >= 400:
		schema = map[string]any{"$ref": "#/components/schemas/HTTPExceptionResponse"}
		if res.status == http.StatusUnprocessableEntity {
			schema = map[string]any{"$ref": "#/components/schemas/HTTPValidationError"}
		}
		if s, ok := declared["application/json"]; ok && s != nil {
			schema = s
		}
		if media != "application/json" {
			return []string{fmt.Sprintf("%d: Content-Type %q, want application/json", res.status, media)}
		}
	case !ok:
		return []string{fmt.Sprintf("%d, which %s does not declare", res.status, op)}
	case len(declared) == 0:
		if res.body != "" {
			return []string{fmt.Sprintf("%d: body %q where the document declares none", res.status, res.body)}
		}
		return nil
	default:
		s, ok := declared[media]
		if !ok {
			return []string{fmt.Sprintf("%d: Content-Type %q, which %s does not declare (%v)", res.status, media, op, slices.Sorted(maps.Keys(declared)))}
		}
		schema = s
	}
	var bodies []string
	switch media {
	case "application/json":
		bodies = []string{res.body}
	case "application/x-ndjson":
		bodies = strings.Split(strings.TrimSuffix(res.body, "\n"), "\n")
		schema = declared["application/json"] // each line is the JSON answer
	default:
		return nil // text/plain: a string, whatever it holds
	}
	var errs []string
	for _, body := range bodies {
		v, err := decodeNumbers(body)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%d: body %q: %v", res.status, body, err))
			continue
		}
		for _, e := range doc.check("body", v, schema) {
			errs = append(errs, fmt.Sprintf("%d: %s", res.status, e))
		}
	}
	return errs
}

// v2ParamKind is the paramKind a query parameter of the document's schema
// needs (v2Query validates by kind), and its enum when it has one.
func (doc *v2SchemaDoc) v2ParamKind(schema map[string]any) (paramKind, []string) {
	s, _ := doc.resolve(schema)
	var enum []string
	for _, e := range asList(s["enum"]) {
		enum = append(enum, fmt.Sprint(e))
	}
	switch typeOf(s) {
	case "integer":
		return paramInteger, enum
	case "number":
		return paramNumber, enum
	case "boolean":
		return paramBoolean, enum
	case "array":
		if items, _ := s["items"].(map[string]any); items != nil && typeOf(items) == "integer" {
			return paramIntegerArray, enum
		}
		return paramStringArray, enum
	}
	if s["format"] == "date-time" {
		return paramDateTime, enum
	}
	return paramString, enum
}

// v2RowErrors lists the ways a row differs from the document: not one of
// its operations, other query parameters, a parameter of another type
// (which v2Query would check otherwise), an integer path parameter not
// declared withPathInts (or one declared that the document types
// otherwise).
func (doc *v2SchemaDoc) v2RowErrors(rt *apiRoute) []string {
	op := v2Op(rt)
	o, ok := doc.Operations[op]
	if !ok {
		return []string{op + ": not an operation of Airflow 3.2.1's document"}
	}
	var errs []string
	var names []string
	declared := map[string]v1Param{}
	for _, p := range rt.query {
		names = append(names, p.name)
		declared[p.name] = p
	}
	slices.Sort(names)
	if want := o.queryNames(); !slices.Equal(names, want) {
		errs = append(errs, fmt.Sprintf("%s (%s): query parameters %v, want the document's %v", op, o.OperationID, names, want))
	}
	for _, dp := range o.Parameters {
		kind, enum := doc.v2ParamKind(dp.Schema)
		switch dp.In {
		case "query":
			p, ok := declared[dp.Name]
			if !ok {
				continue
			}
			if p.kind != kind {
				errs = append(errs, fmt.Sprintf("%s: query parameter %s is of kind %d, the document's is %d", op, dp.Name, p.kind, kind))
			}
			if !slices.Equal(p.enum, enum) {
				errs = append(errs, fmt.Sprintf("%s: query parameter %s takes %v, the document's %v", op, dp.Name, p.enum, enum))
			}
			if p.required != dp.Required {
				errs = append(errs, fmt.Sprintf("%s: query parameter %s required %v, the document's %v", op, dp.Name, p.required, dp.Required))
			}
		case "path":
			if isInt := slices.Contains(rt.pathInts, dp.Name); isInt != (kind == paramInteger) {
				errs = append(errs, fmt.Sprintf("%s: path parameter %s declared an integer: %v; the document's type is an integer: %v",
					op, dp.Name, isInt, kind == paramInteger))
			}
		}
	}
	return errs
}

// TestAPIv2_RoutesAreOperations checks edition 3's route table against the
// document: every row is an operation of the document with the same
// method and path, declaring exactly the operation's query parameters
// with their types, and its integer path parameters; and every operation
// of the document has a row, but those v2Unmounted lists.
func TestAPIv2_RoutesAreOperations(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	ts := newTestServer(t, edition3)
	mounted := map[string]bool{}
	for _, rt := range ts.srv.v2Routes().routes {
		op := v2Op(rt)
		if mounted[op] {
			t.Errorf("%s: two rows", op)
		}
		mounted[op] = true
		for _, e := range doc.v2RowErrors(rt) {
			t.Error(e)
		}
	}
	for _, op := range slices.Sorted(maps.Keys(doc.Operations)) {
		switch {
		case !mounted[op] && !v2Unmounted[op]:
			t.Errorf("%s (%s): an operation of the document no row serves", op, doc.Operations[op].OperationID)
		case mounted[op] && v2Unmounted[op]:
			t.Errorf("%s: served, and listed in v2Unmounted", op)
		}
	}
	for op := range v2Unmounted {
		if doc.Operations[op] == nil {
			t.Errorf("%s: listed in v2Unmounted, not an operation of the document", op)
		}
	}
}

// v2Unmounted are the operations of the 3.2.1 document edition 3 does not
// serve, each with the reason ("METHOD /api/v2/path"). Empty: every
// operation is served.
var v2Unmounted = map[string]bool{}

// TestV2RowChecker makes sure the route table's check refuses what it
// must.
func TestV2RowChecker(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	row := func(method, pattern string, opts ...func(*apiRoute)) *apiRoute {
		tbl := &routeTable{}
		tbl.add(method, pattern, nil, opts...)
		return tbl.routes[0]
	}
	page := withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("filename_pattern"))
	for _, tc := range []struct {
		name    string
		rt      *apiRoute
		wantErr string
	}{
		{"valid", row("GET", "/importErrors", page), ""},
		{"valid path int", row("GET", "/importErrors/{import_error_id}", withPathInts("import_error_id")), ""},
		{"not an operation", row("GET", "/importErrors/{import_error_id}/more"), "not an operation"},
		{"wrong method", row("DELETE", "/importErrors"), "not an operation"},
		{"missing parameter", row("GET", "/importErrors", withQuery(qV2Limit, qV2Offset, qV2OrderBy)), "query parameters"},
		{"extra parameter", row("GET", "/importErrors", withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("filename_pattern"), qV2Str("x"))), "query parameters"},
		{"wrong kind", row("GET", "/importErrors", withQuery(qV2Str("limit"), qV2Offset, qV2OrderBy, qV2Str("filename_pattern"))), "of kind"},
		{"enum missing", row("GET", "/dagWarnings", withQuery(qV2Str("dag_id"), qV2Str("warning_type"), qV2Limit, qV2Offset, qV2OrderBy)), "takes"},
		{"path int undeclared", row("GET", "/importErrors/{import_error_id}"), "path parameter import_error_id"},
		{"path int wrongly declared", row("GET", "/dagSources/{dag_id}", withPathInts("dag_id"), withQuery(qV2Int("version_number"))), "path parameter dag_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := doc.v2RowErrors(tc.rt)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), tc.wantErr):
				t.Errorf("errors %v, want one saying %q", errs, tc.wantErr)
			}
		})
	}
}

// v2WalkRun is the run the walk's path values name.
const v2WalkRun = "v2_walk_run"

// v2WalkFixtures stores what the walk's paths name besides the example
// DAGs: a run of tutorial with one task tried once, a variable, a
// connection, a pool, an event log row and an import error.
func v2WalkFixtures(t *testing.T, ts *testServer) {
	t.Helper()
	date := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "tutorial", runID: v2WalkRun, date: &date}); err != nil {
		t.Fatal(err)
	}
	ti, err := ts.store.TaskInstance("tutorial", v2WalkRun, "print_date")
	if err != nil {
		t.Fatal(err)
	}
	tried := *ti
	tried.TryNumber = 1
	tried.State = TaskSuccess
	if err := ts.store.UpsertTaskInstance(&tried); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.SetVariable("v2_walk_variable", "1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.CreateConnection(Connection{ConnID: "v2_walk_connection", ConnType: "http"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.UpsertPool("v2_walk_pool", 2, nil); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.AppendEventLog(tiEvent("running", eventTime1)); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.RecordParse([]string{"dags/broken.py"}, map[string]string{"dags/broken.py": "Traceback: boom"}, eventTime1); err != nil {
		t.Fatal(err)
	}
}

// v2WalkValues are the path values of the walk: the fixtures' names, and
// for resources other routes create (assets, backfills, DAG versions) the
// first id their list answers, when that route is mounted.
func v2WalkValues(t *testing.T, ts *testServer, mounted map[string]bool) map[string]string {
	t.Helper()
	vals := map[string]string{
		"dag_id": "tutorial", "dag_run_id": v2WalkRun, "task_id": "print_date", "map_index": "-1",
		"try_number": "1", "task_try_number": "1", "xcom_key": "return_value", "pool_name": "v2_walk_pool",
		"variable_key": "v2_walk_variable", "connection_id": "v2_walk_connection",
		"section": "core", "option": "dags_folder", "version_number": "1",
		"event_log_id": "1", "import_error_id": "1",
		"asset_id": "1", "asset_alias_id": "1", "backfill_id": "1", "file_token": "none",
	}
	first := func(op, list, field, param string) {
		if !mounted["GET "+apiV2Prefix+op] {
			return
		}
		res := ts.do(t, http.MethodGet, apiV2Prefix+op, "")
		rows, _ := decodeJSON[map[string]any](t, res.body)[list].([]any)
		if len(rows) == 0 {
			return
		}
		if row, ok := rows[0].(map[string]any); ok && row[field] != nil {
			vals[param] = fmt.Sprint(row[field])
		}
	}
	first("/assets", "assets", "id", "asset_id")
	first("/assets/aliases", "asset_aliases", "id", "asset_alias_id")
	first("/backfills?dag_id=tutorial", "backfills", "id", "backfill_id")
	first("/eventLogs", "event_logs", "event_log_id", "event_log_id")
	first("/importErrors", "import_errors", "import_error_id", "import_error_id")
	if mounted["GET "+apiV2Prefix+"/dags/{dag_id}"] {
		if tok, ok := decodeJSON[map[string]any](t, ts.do(t, http.MethodGet, apiV2Prefix+"/dags/tutorial", "").body)["file_token"].(string); ok {
			vals["file_token"] = tok
		}
	}
	return vals
}

// v2WalkPath is a row's path with the walk's values.
func v2WalkPath(t *testing.T, rt *apiRoute, vals map[string]string) string {
	t.Helper()
	path := strings.TrimPrefix(v2DocPath(rt.pattern), apiV2Prefix)
	for _, name := range v2PathParams(rt.pattern) {
		v, ok := vals[name]
		if !ok {
			t.Errorf("%s: no walk value for path parameter %q", v2Op(rt), name)
		}
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(v), 1)
	}
	return apiV2Prefix + path
}

// example is a value schema s takes, built from its required fields only:
// a request body for the walk. Nullable required fields are null (a
// trigger's logical_date), the rest the simplest value of their type.
func (doc *v2SchemaDoc) example(s map[string]any, field string) any {
	s, _ = doc.resolve(s)
	if c, ok := s["const"]; ok {
		return c
	}
	if enum := asList(s["enum"]); len(enum) > 0 {
		return enum[0]
	}
	if n, _ := s["nullable"].(bool); n {
		return nil
	}
	if alts := append(asList(s["anyOf"]), asList(s["oneOf"])...); len(alts) > 0 {
		return doc.example(alts[0].(map[string]any), field)
	}
	switch typeOf(s) {
	case "string":
		switch s["format"] {
		case "date-time":
			return "2024-01-01T00:00:00Z"
		case "duration":
			return "PT60S"
		}
		return "v2_walk_" + field
	case "integer", "number":
		if min, ok := s["minimum"].(float64); ok && min > 1 {
			return min
		}
		return 1
	case "boolean":
		return false
	case "array":
		if n, _ := s["minItems"].(float64); n > 0 {
			if items, ok := s["items"].(map[string]any); ok {
				return []any{doc.example(items, field)}
			}
		}
		return []any{}
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if ps, ok := props[r.(string)].(map[string]any); ok {
				out[r.(string)] = doc.example(ps, r.(string))
			}
		}
		return out
	}
	return nil
}

// TestAPIv2_AnswersMatchTheDocument walks every mounted route of edition 3:
// a GET of each with the fixtures' path values (and a text/plain GET where
// the operation answers text), then a POST, PATCH or PUT of each with a
// body built from the operation's schema, and checks every answer against
// the document. It logs the rows whose answer was not a success (their
// path values or bodies name nothing the fixtures hold), which the walk
// then checks only as errors.
func TestAPIv2_AnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	ts := newTestServer(t, edition3, withOptions(func(o *serverOptions) { o.Kick = func() {} }))
	v2WalkFixtures(t, ts)
	routes := ts.srv.v2Routes().routes
	mounted := map[string]bool{}
	for _, rt := range routes {
		mounted[v2Op(rt)] = true
	}
	vals := v2WalkValues(t, ts, mounted)
	var unanswered []string
	walkWith := func(vals map[string]string, rt *apiRoute, query, body string, header ...string) response {
		t.Helper()
		op := v2Op(rt)
		if doc.Operations[op] == nil {
			return response{} // TestAPIv2_RoutesAreOperations says so
		}
		path := v2WalkPath(t, rt, vals) + query
		res := ts.doNoRedirect(t, rt.method, path, body, header...)
		req := rt.method + " " + path + " " + body
		for _, e := range doc.answerErrors(op, res) {
			t.Errorf("%s: %s", req, e)
		}
		return res
	}
	walk := func(rt *apiRoute, query, body string, header ...string) response {
		t.Helper()
		res := walkWith(vals, rt, query, body, header...)
		if res.status >= 300 && query == "" {
			unanswered = append(unanswered, fmt.Sprintf("%s %s: %d %s", rt.method, v2WalkPath(t, rt, vals), res.status, res.body))
		}
		return res
	}
	// Path values that name nothing: the answers (404s, mostly) are
	// checked too.
	missing := map[string]string{}
	for name := range vals {
		missing[name] = "v2_walk_missing"
	}
	for _, rt := range routes {
		if rt.method != http.MethodGet {
			continue
		}
		walk(rt, "", "", "Accept", "application/json")
		o := doc.Operations[v2Op(rt)]
		if o == nil {
			continue
		}
		if _, text := o.Responses["200"]["text/plain"]; text {
			walk(rt, "", "", "Accept", "text/plain")
		}
		if len(v2PathParams(rt.pattern)) > 0 {
			nothing := maps.Clone(missing)
			for _, name := range rt.pathInts {
				nothing[name] = "999999"
			}
			walkWith(nothing, rt, "", "", "Accept", "application/json")
		}
		// A page parameter out of its range is pydantic's 422, which the
		// walk checks against HTTPValidationError.
		if slices.Contains(o.queryNames(), "limit") {
			if res := walk(rt, "?limit=-1", ""); res.status != http.StatusUnprocessableEntity {
				t.Errorf("GET %s?limit=-1: %d, want 422", v2Op(rt), res.status)
			}
		}
	}
	for _, rt := range routes {
		o := doc.Operations[v2Op(rt)]
		if o == nil || o.RequestBody == nil || (rt.method != http.MethodPost && rt.method != http.MethodPatch && rt.method != http.MethodPut) {
			continue
		}
		schema, ok := o.RequestBody.Content["application/json"]
		if !ok {
			continue
		}
		example := doc.example(schema, "")
		// A body that names the resource the path names says the same
		// name (Airflow refuses a mismatch).
		if obj, ok := example.(map[string]any); ok {
			for field, param := range map[string]string{"connection_id": "connection_id", "key": "variable_key", "name": "pool_name"} {
				if _, named := obj[field]; named && strings.Contains(rt.pattern, "{"+param) {
					obj[field] = vals[param]
				}
			}
		}
		body, err := json.Marshal(example)
		if err != nil {
			t.Fatal(err)
		}
		walk(rt, "", string(body), "Content-Type", "application/json", "Accept", "application/json")
	}
	t.Logf("%d answers of the walk were not successes:\n%s", len(unanswered), strings.Join(unanswered, "\n"))
}

// TestV2SchemaChecker makes sure the checker refuses what it must.
func TestV2SchemaChecker(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	run := `{"dag_run_id": "r", "dag_id": "d", "run_after": "2024-01-01T00:00:00Z", "run_type": "manual", "state": "queued",
		"dag_versions": [], "dag_display_name": "d"`
	for _, tc := range []struct {
		name, body, schema string
		wantErr            string
	}{
		{"valid", `{"version": "3.2.1", "git_version": null}`, "VersionInfo", ""},
		{"undeclared field", `{"version": "3.2.1", "git_version": null, "extra": 1}`, "VersionInfo", `field "extra" is not declared`},
		{"wrong type", `{"version": 3, "git_version": null}`, "VersionInfo", "is not a string"},
		{"required missing", `{"git_version": null}`, "VersionInfo", `required field "version" missing`},
		{"run valid", run + `}`, "DAGRunResponse", ""},
		{"run nullable", run + `, "logical_date": null, "triggered_by": null, "conf": null}`, "DAGRunResponse", ""},
		{"null where not nullable", run + `, "run_after": null}`, "DAGRunResponse", "null where"},
		{"enum", strings.Replace(run, `"queued"`, `"exploded"`, 1) + `}`, "DAGRunResponse", "is not one of"},
		{"nullable enum", run + `, "triggered_by": "nobody"}`, "DAGRunResponse", "is not one of"},
		{"date-time with offset", run + `, "start_date": "2024-01-01T00:00:00+00:00"}`, "DAGRunResponse", "pydantic's form"},
		{"date-time with milliseconds", run + `, "start_date": "2024-01-01T00:00:00.123Z"}`, "DAGRunResponse", "pydantic's form"},
		{"date-time with microseconds", run + `, "start_date": "2024-01-01T00:00:00.123456Z"}`, "DAGRunResponse", ""},
		{"integer", run + `, "duration": 1.5}`, "DAGRunResponse", ""},
		{"nested undeclared", `{"dag_runs": [` + run + `, "x": 1}], "total_entries": 1}`, "DAGRunCollectionResponse", `field "x" is not declared`},
		{"free-form conf", run + `, "conf": {"anything": [1]}}`, "DAGRunResponse", ""},
		{"open model", `{"name": "n", "href": "h", "more": true}`, "AppBuilderMenuItemResponse", ""},
		{"const", `{"action": "update", "entities": []}`, "BulkCreateAction_PoolBody_", "is not the constant"},
		{"tuple", `{"key": "k", "value": ["a", 1]}`, "ConfigOption", "matches none"},
		{"tuple valid", `{"key": "k", "value": ["a", "b"]}`, "ConfigOption", ""},
		{"exception detail", `{"detail": "Not Found"}`, "HTTPExceptionResponse", ""},
		{"exception detail list", `{"detail": [1]}`, "HTTPExceptionResponse", "matches none"},
		{"validation error", `{"detail": [{"type": "missing", "loc": ["query", 0], "msg": "Field required", "input": null}]}`, "HTTPValidationError", ""},
		{"validation error loc", `{"detail": [{"type": "missing", "loc": [true], "msg": "m"}]}`, "HTTPValidationError", "matches none"},
		{"uuid", `{"id": "X", "version_number": 1, "dag_id": "d", "bundle_name": null, "bundle_version": null,
			"created_at": "2024-01-01T00:00:00Z", "dag_display_name": "d"}`, "DagVersionResponse", "is not a UUID"},
		{"duration", `{"dag_run_timeout": "1:00:00"}`, "DAGDetailsResponse", "duration in pydantic's form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := decodeNumbers(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			errs := doc.check("body", v, ref(tc.schema))
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), tc.wantErr):
				t.Errorf("errors %v, want one saying %q", errs, tc.wantErr)
			}
		})
	}
}

// TestV2AnswerChecker makes sure answers are held to their operation's
// statuses and content types, and errors to FastAPI's models.
func TestV2AnswerChecker(t *testing.T) {
	t.Parallel()
	doc := loadV2Schemas(t)
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name, op string
		res      response
		wantErr  string
	}{
		{"valid", "GET /api/v2/version", response{200, jsonType, `{"version":"3.2.1","git_version":null}`}, ""},
		{"undeclared status", "GET /api/v2/version", response{201, jsonType, `{}`}, "does not declare"},
		{"undeclared content type", "GET /api/v2/version", response{200, http.Header{"Content-Type": {"text/plain"}}, `3.2.1`}, "Content-Type"},
		{"text where declared", "GET /api/v2/dagSources/{dag_id}", response{200, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, `x = 1`}, ""},
		{"body of 204", "DELETE /api/v2/pools/{pool_name}", response{204, http.Header{}, `{}`}, "declares none"},
		{"error", "GET /api/v2/dags/{dag_id}", response{404, jsonType, `{"detail":"The Dag with ID: x was not found"}`}, ""},
		{"error not FastAPI's", "GET /api/v2/dags/{dag_id}", response{404, jsonType, `{"title":"Not Found"}`}, `required field "detail" missing`},
		{"error undeclared status", "GET /api/v2/version", response{405, jsonType, `{"detail":"Method Not Allowed"}`}, ""},
		{"validation error", "GET /api/v2/dags", response{422, jsonType, `{"detail":[{"type":"int_parsing","loc":["query","limit"],` +
			`"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`}, ""},
		{"validation error as text", "GET /api/v2/dags", response{422, jsonType, `{"detail":"bad limit"}`}, "is not an array"},
		{"error in plain text", "GET /api/v2/dags", response{500, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, `Internal Server Error`}, "want application/json"},
		{"untyped ndjson lines", "GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/wait",
			response{200, http.Header{}, "{\"state\":\"queued\"}\n{\"state\":\"success\"}\n"}, ""},
		{"untyped lines not JSON", "GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/wait",
			response{200, http.Header{}, "{\"state\":\"queued\"}\nsuccess\n"}, "invalid character"},
		{"wait typed", "GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/wait",
			response{200, http.Header{"Content-Type": {"application/x-ndjson"}}, "{\"state\":\"success\"}\n"}, "want none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := doc.answerErrors(tc.op, tc.res)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), tc.wantErr):
				t.Errorf("errors %v, want one saying %q", errs, tc.wantErr)
			}
		})
	}
}
