package main

// Airflow 2's stable REST API, /api/v1 (docs/behaviour.md §7): the
// framework every resource file (apiv1_*.go) builds on. Airflow serves the
// API through connexion 2.14 with strict_validation and its OpenAPI
// document; what that does to a request before an endpoint sees it
// (routing, the body and query checks, then authentication inside the
// endpoint) is reproduced here, in connexion's order, so that the
// endpoints hold only Airflow's own logic.

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	apiV1Prefix = "/api/v1"
	// v1DefaultLimit and v1MaxLimit are Airflow's [api] fallback_page_limit
	// and maximum_page_limit defaults.
	v1DefaultLimit = 100
	v1MaxLimit     = 100
	// v1ErrorsDoc is where Airflow's problem types point
	// (airflow/api_connexion/exceptions.py EXCEPTIONS_LINK_MAP).
	v1ErrorsDoc = "https://airflow.apache.org/docs/apache-airflow/2.10.3/stable-rest-api-ref.html#section/Errors/"
)

// v1ProblemTypes is EXCEPTIONS_LINK_MAP: connexion's error handler puts
// the link of the status into every ProblemException it answers.
var v1ProblemTypes = map[int]string{
	http.StatusBadRequest:          v1ErrorsDoc + "BadRequest",
	http.StatusNotFound:            v1ErrorsDoc + "NotFound",
	http.StatusMethodNotAllowed:    v1ErrorsDoc + "MethodNotAllowed",
	http.StatusUnauthorized:        v1ErrorsDoc + "Unauthenticated",
	http.StatusConflict:            v1ErrorsDoc + "AlreadyExists",
	http.StatusForbidden:           v1ErrorsDoc + "PermissionDenied",
	http.StatusInternalServerError: v1ErrorsDoc + "Unknown",
}

// problem is an error answer of the stable API: connexion's problem
// document. title and detail are nil where Airflow leaves them None
// (they are written as null).
type problem struct {
	status          int
	title           any // string or nil
	detail          any // string or nil
	wwwAuthenticate string
}

func (p *problem) Error() string {
	if d, ok := p.detail.(string); ok {
		return d
	}
	if t, ok := p.title.(string); ok {
		return t
	}
	return http.StatusText(p.status)
}

// The problems Airflow raises (exceptions.py), each with its default title.
func v1BadRequest(detail string) *problem {
	return &problem{status: http.StatusBadRequest, title: "Bad Request", detail: detail}
}

func v1NotFound(title, detail string) *problem {
	return &problem{status: http.StatusNotFound, title: title, detail: detail}
}

func v1Conflict(title, detail string) *problem {
	return &problem{status: http.StatusConflict, title: title, detail: detail}
}

func v1Forbidden(detail string) *problem {
	return &problem{status: http.StatusForbidden, title: "Forbidden", detail: detail}
}

// paramKind is a query parameter's schema type, as connexion coerces it.
type paramKind int

const (
	paramString paramKind = iota
	paramInteger
	paramNumber
	paramBoolean
	paramDateTime    // a string with format date-time (RFC 3339)
	paramStringArray // form style, exploded: ?tags=a&tags=b, or ?tags=a,b
	// paramIntegerArray is a list[int] query parameter of FastAPI's
	// (?try_number=1&try_number=2); /api/v1 has none.
	paramIntegerArray
)

// v1Param is one query parameter of an operation, as the OpenAPI
// document declares it.
type v1Param struct {
	name     string
	kind     paramKind
	required bool
	minimum  *int64
	enum     []string
	// unexploded: an array of style form with explode false (update_mask),
	// which connexion reads as its last value, split by its reader.
	unexploded bool
	// schema is the parameter's schema as Python prints it (pprint, keys
	// in the document's order), which jsonschema quotes in its messages.
	schema string
}

func minimum(n int64) *int64 { return &n }

// qDate is a date-time query parameter.
func qDate(name string) v1Param {
	return v1Param{name: name, kind: paramDateTime, schema: "{'type': 'string', 'format': 'date-time'}"}
}

// The shared parameters (components/parameters in the document).
var (
	qLimit        = v1Param{name: "limit", kind: paramInteger, schema: "{'type': 'integer', 'default': 100}"}
	qOffset       = v1Param{name: "offset", kind: paramInteger, minimum: minimum(0), schema: "{'type': 'integer', 'minimum': 0}"}
	qOrderBy      = v1Param{name: "order_by", kind: paramString, schema: "{'type': 'string'}"}
	qTags         = v1Param{name: "tags", kind: paramStringArray}
	qFields       = v1Param{name: "fields", kind: paramStringArray}
	qUpdateMask   = v1Param{name: "update_mask", kind: paramStringArray, unexploded: true}
	qOnlyActive   = v1Param{name: "only_active", kind: paramBoolean}
	qPaused       = v1Param{name: "paused", kind: paramBoolean}
	qDagIDPattern = v1Param{name: "dag_id_pattern", kind: paramString, schema: "{'type': 'string'}"}
)

// v1Values is a request's query after connexion's checks: each declared
// parameter present, by name.
type v1Values map[string][]string

func (v v1Values) str(name string) (string, bool) {
	vals, ok := v[name]
	if !ok || len(vals) == 0 {
		return "", false
	}
	return vals[len(vals)-1], true // connexion keeps the last of duplicates
}

func (v v1Values) list(name string) []string { return v[name] }

func (v v1Values) boolean(name string) (value, given bool) {
	s, ok := v.str(name)
	if !ok {
		return false, false
	}
	return strings.EqualFold(s, "true"), true
}

// integer is a parameter checked as an integer by validateQuery.
func (v v1Values) integer(name string, def int64) int64 {
	s, ok := v.str(name)
	if !ok {
		return def
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}

// dateTime is a parameter checked as RFC 3339 by validateQuery.
func (v v1Values) dateTime(name string) *time.Time {
	s, ok := v.str(name)
	if !ok {
		return nil
	}
	t, err := parseRFC3339(s)
	if err != nil {
		return nil
	}
	return &t
}

// page is Airflow's check_limit and the offset: a limit of 0 is the
// fallback, one above the maximum the maximum, a negative one refused.
type page struct{ offset, limit int }

func (v v1Values) page() (page, error) {
	limit := v.integer("limit", v1DefaultLimit)
	switch {
	case limit > v1MaxLimit:
		limit = v1MaxLimit
	case limit == 0:
		limit = v1DefaultLimit
	case limit < 0:
		return page{}, &problem{status: http.StatusBadRequest, title: "Page limit must be a positive integer", detail: nil}
	}
	return page{offset: int(v.integer("offset", 0)), limit: int(limit)}, nil
}

// orderBy is Airflow's apply_sorting check: the attribute, without its
// "-", must be one the endpoint allows. It returns the attribute and
// whether the order is descending.
func (v v1Values) orderBy(def string, allowed []string) (string, bool, error) {
	order, ok := v.str("order_by")
	if !ok {
		order = def
	}
	attr := strings.TrimLeft(order, "-")
	if !slices.Contains(allowed, attr) {
		return "", false, v1BadRequest(fmt.Sprintf("Ordering with '%s' is disallowed or the attribute does not exist on the model", attr))
	}
	return attr, strings.HasPrefix(order, "-"), nil
}

// The stable API's names for the framework's types (api_route.go), as
// its resource files know them.
type (
	v1Request = apiRequest
	v1Handler = routeHandler
	v1Route   = apiRoute
	v1Router  = routeTable
)

// withQuery declares an operation's query parameters, in the document's
// order (connexion checks them in that order).
func withQuery(params ...v1Param) func(*apiRoute) {
	return func(rt *apiRoute) { rt.query = params }
}

// withBody declares an operation's body check.
func withBody(check func(v any) (map[string]any, error)) func(*apiRoute) {
	return func(rt *apiRoute) { rt.body = check }
}

// withPathInts declares path parameters of type integer.
func withPathInts(names ...string) func(*apiRoute) {
	return func(rt *apiRoute) { rt.pathInts = names }
}

// pathIntBound is an integer path parameter's lower bound: at least min,
// or above it when strict (pydantic's ge and gt).
type pathIntBound struct {
	min    int64
	strict bool
}

// withPathIntBound declares the lower bound of a path parameter typed
// integer (withPathInts), checked with the path's other errors.
func withPathIntBound(name string, min int64, strict bool) func(*apiRoute) {
	return func(rt *apiRoute) {
		if rt.pathIntBounds == nil {
			rt.pathIntBounds = map[string]pathIntBound{}
		}
		rt.pathIntBounds[name] = pathIntBound{min: min, strict: strict}
	}
}

// withPathTildes declares path parameters typed Literal["~"].
func withPathTildes(names ...string) func(*apiRoute) {
	return func(rt *apiRoute) { rt.pathTildes = names }
}

// validateQuery is connexion's ParameterValidator with strict_validation:
// a parameter the operation does not declare is refused, then each
// declared one is coerced and checked against its schema, in order.
func validateQuery(q url.Values, params []v1Param) (v1Values, error) {
	var extra []string
	for name := range q {
		if !slices.ContainsFunc(params, func(p v1Param) bool { return p.name == name }) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra) // Python joins a set: any order; sorted here, stable
		return nil, &problem{status: http.StatusBadRequest, title: nil,
			detail: "Extra query parameter(s) " + strings.Join(extra, ", ") + " not in spec"}
	}
	var out v1Values // nil for a request without a query: nothing to hold
	if len(q) > 0 {
		out = make(v1Values, len(q))
	}
	for _, p := range params {
		vals, ok := q[p.name]
		if !ok {
			if p.required {
				return nil, v1BadRequest(fmt.Sprintf("Missing query parameter '%s'", p.name))
			}
			continue
		}
		if msg := p.check(vals); msg != "" {
			return nil, v1BadRequest(msg)
		}
		if p.kind == paramStringArray && !p.unexploded {
			// connexion's OpenAPIURIParser joins an exploded form array's
			// values with its delimiter, then splits at it
			// (connexion 2.14 decorators/uri_parsing.py:243-267): a value
			// with commas is several values.
			vals = strings.Split(strings.Join(vals, ","), ",")
		}
		out[p.name] = vals
	}
	return out, nil
}

// check is one parameter's coercion and schema check; "" when it passes.
// Messages are connexion's and jsonschema's (str of a ValidationError).
func (p v1Param) check(vals []string) string {
	if p.kind == paramStringArray {
		return ""
	}
	v := vals[len(vals)-1]
	switch p.kind {
	case paramInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(v, "_", "")), 10, 64)
		if err != nil || !pyIntRe.MatchString(v) {
			return fmt.Sprintf("Wrong type, expected 'integer' for query parameter '%s'", p.name)
		}
		if p.minimum != nil && n < *p.minimum {
			return jsonschemaMessage(fmt.Sprintf("%d is less than the minimum of %d", n, *p.minimum), "minimum", p.schema, strconv.FormatInt(n, 10))
		}
	case paramNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return fmt.Sprintf("Wrong type, expected 'number' for query parameter '%s'", p.name)
		}
	case paramBoolean:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return fmt.Sprintf("Wrong type, expected 'boolean' for query parameter '%s'", p.name)
		}
	case paramDateTime:
		if _, err := parseRFC3339(v); err != nil {
			return jsonschemaMessage(fmt.Sprintf("%s is not a 'date-time'", pyQuote(v)), "format", p.schema, pyQuote(v))
		}
	case paramString:
		if len(p.enum) > 0 && !slices.Contains(p.enum, v) {
			quoted := make([]string, len(p.enum))
			for i, e := range p.enum {
				quoted[i] = pyQuote(e)
			}
			return jsonschemaMessage(fmt.Sprintf("%s is not one of [%s]", pyQuote(v), strings.Join(quoted, ", ")), "enum", p.schema, pyQuote(v))
		}
	}
	return ""
}

// jsonschemaMessage is str() of a jsonschema 4 ValidationError on a
// parameter's value, the text connexion puts in the detail.
func jsonschemaMessage(msg, validator, schema, instance string) string {
	return msg + "\n\nFailed validating '" + validator + "' in schema:\n    " + schema + "\n\nOn instance:\n    " + instance
}

// unsignedDigitsRe is what Werkzeug's IntegerConverter matches.
var unsignedDigitsRe = regexp.MustCompile(`^\d+$`)

// rfc3339Re is the date-time format jsonschema checks (rfc3339-validator):
// a full date, "T", a full time with an optional fraction, and "Z" or an
// offset, letters in either case.
var rfc3339Re = regexp.MustCompile(`^(?i)(\d{4})-(\d{2})-(\d{2})t(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-]\d{2}:\d{2})$`)

// parseRFC3339 reads a date-time as the format check accepts it; Airflow
// then parses it with pendulum, which reads the same instant.
func parseRFC3339(s string) (time.Time, error) {
	m := rfc3339Re.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("parse date-time %q: not RFC 3339", s)
	}
	norm := strings.ToUpper(s)
	t, err := time.Parse(time.RFC3339Nano, norm)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse date-time %q: %w", s, err)
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// v1Date is a date as Airflow's schemas write it (marshmallow's DateTime
// of a pendulum date: ISO form with the offset), or nil.
func v1Date(t *time.Time) any {
	if t == nil {
		return nil
	}
	return isoFormat(t.UTC())
}

// v1Body is a request body decoded once for its two readers: ordered is
// json.loads' reading of it (decodePyJSON's), for the action log's extra;
// plain, derived from it, the generic value connexion's checks and the
// endpoint read.
type v1Body struct {
	plain   any
	ordered any
}

// decodeV1Body is connexion's first step on a JSON body (its
// RequestBodyValidator): nothing is "Request body must not be empty"
// (Airflow's own validator), a body that is not labelled JSON a 415, a
// JSON label on what does not parse "Request body is not valid JSON". The
// operation's schema checks come after, on the decoded value.
func decodeV1Body(raw []byte, contentType string) (v1Body, error) {
	if isBlank(raw) {
		return v1Body{}, v1BadRequest("Request body must not be empty")
	}
	if !isJSONMediaType(contentType) {
		return v1Body{}, &problem{status: http.StatusUnsupportedMediaType, title: "Unsupported Media Type",
			detail: fmt.Sprintf("Invalid Content-type (%s), expected JSON data", contentType)}
	}
	// Flask's get_json is json.loads of the whole body: text after the
	// value, invalid UTF-8 and null are "not valid JSON" to connexion.
	ordered, err := decodePyJSON(raw)
	if err != nil || ordered == nil || !utf8.Valid(raw) {
		return v1Body{}, v1BadRequest("Request body is not valid JSON")
	}
	return v1Body{plain: plainOf(ordered), ordered: ordered}, nil
}

// isBlank is strings.TrimSpace(string(raw)) == "" without the copy.
func isBlank(raw []byte) bool {
	return len(bytes.TrimSpace(raw)) == 0
}

// isJSONMediaType is Flask's is_json: application/json or
// application/*+json, parameters ignored.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
