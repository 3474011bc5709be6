package main

// The v2 dialect's request checks as FastAPI makes them with pydantic 2:
// each query parameter and path parameter is validated against its
// annotation, and every failure is one entry of the 422's list
// (fastapi/exception_handlers.py request_validation_exception_handler:
// {"detail": errors}, each error pydantic's type, loc, msg, input and,
// when the error has one, ctx; FastAPI drops pydantic's url). Then
// Airflow's own checks: pagination (common/parameters.py LimitFilter,
// OffsetFilter) and order_by (SortParam).

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// v2Issue is one of pydantic's validation errors, as FastAPI renders it.
type v2Issue struct {
	Type  string `json:"type"`
	Loc   []any  `json:"loc"`
	Msg   string `json:"msg"`
	Input any    `json:"input"`
	Ctx   any    `json:"ctx,omitempty"`
	// URL is pydantic's link to the error's documentation, which FastAPI
	// drops from its own validation errors but keeps in errors a route
	// re-raises as RequestValidationError(e.errors()).
	URL string `json:"url,omitempty"`
}

// v2Invalid is FastAPI's RequestValidationError answer: 422 and the list.
func v2Invalid(issues []v2Issue) error {
	return &v2Error{status: http.StatusUnprocessableEntity, detail: issues}
}

// v2Gather is FastAPI's one 422 for a request: the errors of the path,
// the query and the body in that order (fastapi/dependencies/utils.py
// solve_dependencies). An error that is not a 422 (a body too large, an
// unreadable body) answers alone.
func v2Gather(errs ...error) error {
	var issues []v2Issue
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *v2Error
		if !errors.As(err, &e) || e.status != http.StatusUnprocessableEntity {
			return err
		}
		list, ok := e.detail.([]v2Issue)
		if !ok {
			return err
		}
		issues = append(issues, list...)
	}
	if issues == nil {
		return nil
	}
	return v2Invalid(issues)
}

// v2Literal is a parameter whose annotation is a Literal (pydantic's
// literal_error) rather than an Enum (its enum error); both list the
// allowed values.
const paramLiteral = "literal"

// v2Query checks a row's declared query parameters as FastAPI does:
// parameters the route does not declare are ignored; a scalar one reads
// the last of its values (Starlette's QueryParams), a list every value;
// each value is validated against its type. The values are kept as given
// (the handlers read them with v1Values' readers, which parse what this
// check accepted).
func v2Query(q url.Values, params []v1Param) (v1Values, error) {
	var out v1Values
	var issues []v2Issue
	for _, p := range params {
		vals, given := q[p.name]
		if !given || len(vals) == 0 {
			if p.required {
				issues = append(issues, v2Issue{Type: "missing", Loc: []any{"query", p.name}, Msg: "Field required", Input: nil})
			}
			continue
		}
		if p.kind == paramStringArray || p.kind == paramIntegerArray {
			for i, v := range vals {
				if issue, ok := v2CheckScalar(p, v, []any{"query", p.name, i}); !ok {
					issues = append(issues, issue)
				}
			}
		} else {
			vals = vals[len(vals)-1:]
			if issue, ok := v2CheckScalar(p, vals[0], []any{"query", p.name}); !ok {
				issues = append(issues, issue)
			}
		}
		if out == nil {
			out = make(v1Values, len(params))
		}
		out[p.name] = vals
	}
	if issues != nil {
		return nil, v2Invalid(issues)
	}
	return out, nil
}

// v2CheckPath checks the path parameters a row types as integers
// (withPathInts): pydantic's int parsing of the matched segment.
func v2CheckPath(rt *apiRoute, params map[string]string) error {
	var issues []v2Issue
	for _, name := range rt.pathInts {
		loc := []any{"path", name}
		if issue, ok := v2CheckScalar(v1Param{name: name, kind: paramInteger}, params[name], loc); !ok {
			issues = append(issues, issue)
		} else if b, bounded := rt.pathIntBounds[name]; bounded {
			if issue, ok := v2CheckIntBound(params[name], b, loc); !ok {
				issues = append(issues, issue)
			}
		}
	}
	for _, name := range rt.pathTildes {
		if v := params[name]; v != "~" {
			issues = append(issues, v2EnumIssue([]string{"~"}, true, v, []any{"path", name}))
		}
	}
	if issues != nil {
		return v2Invalid(issues)
	}
	return nil
}

// v2CheckIntBound is pydantic's ge (or, strict, gt) on an integer that
// parsed.
func v2CheckIntBound(v string, b pathIntBound, loc []any) (v2Issue, bool) {
	n, _, _ := v2ParseIntString(v, loc)
	switch {
	case b.strict && n <= b.min:
		return v2Issue{Type: "greater_than", Loc: loc, Msg: fmt.Sprintf("Input should be greater than %d", b.min),
			Input: v, Ctx: map[string]any{"gt": b.min}}, false
	case !b.strict && n < b.min:
		return v2Issue{Type: "greater_than_equal", Loc: loc, Msg: fmt.Sprintf("Input should be greater than or equal to %d", b.min),
			Input: v, Ctx: map[string]any{"ge": b.min}}, false
	}
	return v2Issue{}, true
}

// v2CheckScalar validates one string value against p's type as pydantic
// does in lax mode for a string input.
func v2CheckScalar(p v1Param, v string, loc []any) (v2Issue, bool) {
	switch p.kind {
	case paramInteger, paramIntegerArray:
		n, issue, ok := v2ParseIntString(v, loc)
		if !ok {
			return issue, false
		}
		if p.minimum != nil && n < *p.minimum {
			return v2Issue{Type: "greater_than_equal", Loc: loc, Msg: fmt.Sprintf("Input should be greater than or equal to %d", *p.minimum),
				Input: v, Ctx: map[string]any{"ge": *p.minimum}}, false
		}
	case paramNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return v2Issue{Type: "float_parsing", Loc: loc, Msg: "Input should be a valid number, unable to parse string as a number", Input: v}, false
		}
	case paramBoolean:
		if _, ok := v2ParseBool(v); !ok {
			return v2Issue{Type: "bool_parsing", Loc: loc, Msg: "Input should be a valid boolean, unable to interpret input", Input: v}, false
		}
	case paramDateTime:
		if _, reason := v2ParseDateTime(v); reason != "" {
			return v2Issue{Type: "datetime_from_date_parsing", Loc: loc, Msg: "Input should be a valid datetime or date, " + reason,
				Input: v, Ctx: map[string]any{"error": reason}}, false
		}
	}
	if len(p.enum) > 0 && !slices.Contains(p.enum, v) {
		return v2EnumIssue(p.enum, p.schema == paramLiteral, v, loc), false
	}
	return v2Issue{}, true
}

// v2EnumIssue is pydantic's error for a value outside an Enum or a
// Literal: "Input should be 'a', 'b' or 'c'".
func v2EnumIssue(allowed []string, literal bool, input any, loc []any) v2Issue {
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	expected := quoted[0]
	if n := len(quoted); n > 1 {
		expected = strings.Join(quoted[:n-1], ", ") + " or " + quoted[n-1]
	}
	typ := "enum"
	if literal {
		typ = "literal_error"
	}
	return v2Issue{Type: typ, Loc: loc, Msg: "Input should be " + expected, Input: input, Ctx: map[string]any{"expected": expected}}
}

// v2ParseIntString is pydantic's int from a string: surrounding
// whitespace and underscores between digits allowed, a whole float
// ("3.0") accepted, a fractional one its own error.
func v2ParseIntString(v string, loc []any) (int64, v2Issue, bool) {
	s := strings.TrimSpace(v)
	if n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64); err == nil && !strings.HasPrefix(s, "_") && !strings.HasSuffix(s, "_") && !strings.Contains(s, "__") {
		return n, v2Issue{}, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f), v2Issue{}, true
		}
		return 0, v2Issue{Type: "int_from_float", Loc: loc, Msg: "Input should be a valid integer, got a number with a fractional part", Input: v}, false
	}
	return 0, v2Issue{Type: "int_parsing", Loc: loc, Msg: "Input should be a valid integer, unable to parse string as an integer", Input: v}, false
}

// v2ParseBool is pydantic's bool from a string.
func v2ParseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "off", "f", "false", "n", "no":
		return false, true
	case "1", "on", "t", "true", "y", "yes":
		return true, true
	}
	return false, false
}

// v2ParseDateTime is pydantic's datetime from a string (speedate): an
// RFC 3339 date-time ('T', 't', '_' or ' ' between date and time,
// seconds and fraction optional, 'Z' or an offset or nothing), a date
// alone (midnight), or a Unix time in seconds or milliseconds. reason is
// speedate's wording of the first problem, "" when the value parses. A
// value without an offset is naive; the caller decides what that means
// (it is UTC here).
func v2ParseDateTime(v string) (time.Time, string) {
	// The separators first: a date fails ParseFloat with an error, and
	// the error is two allocations (a NumError and a copy of v).
	if !strings.ContainsAny(strings.TrimPrefix(v, "-"), "-:") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			if math.Abs(f) > 2e10 {
				f /= 1000 // speedate reads large numbers as milliseconds
			}
			sec, frac := math.Modf(f)
			return time.Unix(int64(sec), int64(frac*1e9)).UTC(), ""
		}
	}
	if len(v) < 10 {
		return time.Time{}, "input is too short"
	}
	for i := range 4 {
		if v[i] < '0' || v[i] > '9' {
			return time.Time{}, "invalid character in year"
		}
	}
	if v[4] != '-' || v[7] != '-' {
		return time.Time{}, "invalid date separator, expected `-`"
	}
	for _, i := range []int{5, 6} {
		if v[i] < '0' || v[i] > '9' {
			return time.Time{}, "invalid character in month"
		}
	}
	for _, i := range []int{8, 9} {
		if v[i] < '0' || v[i] > '9' {
			return time.Time{}, "invalid character in day"
		}
	}
	year, _ := strconv.Atoi(v[:4])
	month, _ := strconv.Atoi(v[5:7])
	day, _ := strconv.Atoi(v[8:10])
	if month < 1 || month > 12 {
		return time.Time{}, "month value is outside expected range of 1-12"
	}
	if day < 1 || day > daysIn(time.Month(month), year) {
		return time.Time{}, "day value is outside expected range"
	}
	if len(v) == 10 {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), ""
	}
	switch v[10] {
	case 'T', 't', ' ', '_':
	default:
		return time.Time{}, "unexpected extra characters at the end of the input"
	}
	rest := v[11:]
	clock, zone := rest, ""
	if i := strings.IndexAny(rest, "Zz+-"); i >= 0 {
		clock, zone = rest[:i], rest[i:]
	}
	// strings.SplitN(clock, ":", 3) without its slice.
	var parts [3]string
	n := 1
	parts[0] = clock
	if h, rest, ok := strings.Cut(clock, ":"); ok {
		parts[0], parts[1], n = h, rest, 2
		if m, sec, ok := strings.Cut(rest, ":"); ok {
			parts[1], parts[2], n = m, sec, 3
		}
	}
	if n < 2 || len(parts[0]) != 2 || len(parts[1]) != 2 {
		return time.Time{}, "invalid character in hour"
	}
	hour, err1 := strconv.Atoi(parts[0])
	minute, err2 := strconv.Atoi(parts[1])
	if err1 != nil || hour > 23 {
		return time.Time{}, "hour value is outside expected range of 0-23"
	}
	if err2 != nil || minute > 59 {
		return time.Time{}, "minute value is outside expected range of 0-59"
	}
	second, nanos := 0, 0
	if n == 3 {
		sec, frac, _ := strings.Cut(parts[2], ".")
		n, err := strconv.Atoi(sec)
		if err != nil || len(sec) != 2 || n > 59 {
			return time.Time{}, "second value is outside expected range of 0-59"
		}
		second = n
		if frac != "" {
			if len(frac) > 9 {
				frac = frac[:9]
			}
			f, err := strconv.Atoi(frac)
			if err != nil {
				return time.Time{}, "invalid character in second fraction"
			}
			nanos = f * int(math.Pow10(9-len(frac)))
		}
	}
	loc := time.UTC
	if zone != "" && zone != "Z" && zone != "z" {
		sign := 1
		if zone[0] == '-' {
			sign = -1
		}
		hh, mm, _ := strings.Cut(zone[1:], ":")
		if len(hh) == 4 && mm == "" {
			hh, mm = hh[:2], hh[2:]
		}
		h, err1 := strconv.Atoi(hh)
		m, err2 := strconv.Atoi(mm)
		if err1 != nil || err2 != nil || len(hh) != 2 || len(mm) != 2 || h > 23 || m > 59 {
			return time.Time{}, "invalid timezone sign"
		}
		loc = time.FixedZone("", sign*(h*3600+m*60))
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, nanos, loc), ""
}

// daysIn is the number of days of a month.
func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// v2DefaultLimit is LimitFilter's default, [api] fallback_page_limit
// (3.2.1's document: default 50, minimum 0).
const v2DefaultLimit = 50

// v2MaxPageLimit is [api] maximum_page_limit's default: LimitFilter.depends
// answers min(limit, maximum_page_limit) rows (common/parameters.py:106-108
// of the 3.2.0-era main, Phinhas214/airflow c57fba0e; apache/airflow#60989
// of 2026-01-26, before 3.2's branch). The batch bodies' page_limit is no
// query limit and keeps no maximum.
const v2MaxPageLimit = 100

// v2Page is the checked limit and offset (NonNegativeInt both, checked
// by v2Query through qV2Limit and qV2Offset), the limit capped.
func v2Page(q v1Values) page {
	return page{offset: int(q.v2Int("offset", 0)), limit: int(min(q.v2Int("limit", v2DefaultLimit), v2MaxPageLimit))}
}

// v2SortKey is one order_by value: the attribute and its direction.
type v2SortKey struct {
	attr string
	desc bool
}

// v2MaxSortParams is SortParam.MAX_SORT_PARAMS.
const v2MaxSortParams = 10

// v2OrderingDisallowed is SortParam's 400 for an attribute it does not
// sort by (common/parameters.py), which tasks.py's whitelist repeats.
const v2OrderingDisallowed = "Ordering with '%s' is disallowed or the attribute does not exist on the model"

// v2OrderBy is SortParam.to_orm's check of order_by: at most ten values,
// each (without its "-") an attribute the route allows or one it renames
// (to_replace maps an API name to the attribute compared). Absent, it is
// the route's default. Airflow adds the primary key as the last key; the
// caller does (it knows its resource's key).
func v2OrderBy(q v1Values, def string, allowed []string, replace map[string]string) ([]v2SortKey, error) {
	vals := q.list("order_by")
	if len(vals) == 0 {
		vals = []string{def}
	}
	if len(vals) > v2MaxSortParams {
		return nil, &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf(
			"Ordering with more than %d parameters is not allowed. Provided: %s", v2MaxSortParams, pyReprValue(anyStrings(vals)))}
	}
	keys := make([]v2SortKey, 0, len(vals))
	for _, v := range vals {
		attr := strings.TrimLeft(v, "-")
		if to, ok := replace[attr]; ok {
			attr = to
		} else if len(allowed) > 0 && !slices.Contains(allowed, attr) {
			return nil, &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf(v2OrderingDisallowed, attr)}
		}
		keys = append(keys, v2SortKey{attr: attr, desc: strings.HasPrefix(v, "-")})
	}
	return keys, nil
}

// v2WithPK is keys with SortParam's last discriminator: the primary key,
// in the direction of the first key (SortParam.to_orm).
func v2WithPK(keys []sortKey) []sortKey {
	return append(slices.Clone(keys), sortKey{attr: "id", desc: len(keys) > 0 && keys[0].desc, nullsLow: true})
}

// anyStrings is vals as a decoded JSON list, for pyReprValue.
func anyStrings(vals []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// The query parameters most v2 routes share (3.2.1's document).
var (
	qV2Limit   = v1Param{name: "limit", kind: paramInteger, minimum: minimum(0)}
	qV2Offset  = v1Param{name: "offset", kind: paramInteger, minimum: minimum(0)}
	qV2OrderBy = v1Param{name: "order_by", kind: paramStringArray}
)

// qV2Bool, qV2Str, qV2Strs, qV2Ints and qV2Date declare a query parameter
// of one of pydantic's types.
func qV2Bool(name string) v1Param { return v1Param{name: name, kind: paramBoolean} }
func qV2Str(name string) v1Param  { return v1Param{name: name, kind: paramString} }
func qV2Strs(name string) v1Param { return v1Param{name: name, kind: paramStringArray} }
func qV2Ints(name string) v1Param { return v1Param{name: name, kind: paramIntegerArray} }
func qV2Int(name string) v1Param  { return v1Param{name: name, kind: paramInteger} }
func qV2Date(name string) v1Param { return v1Param{name: name, kind: paramDateTime} }

// qV2DateRange is datetime_range_filter_factory's four parameters for a
// field: _gte, _gt, _lte, _lt.
func qV2DateRange(field string) []v1Param {
	return []v1Param{qV2Date(field + "_gte"), qV2Date(field + "_gt"), qV2Date(field + "_lte"), qV2Date(field + "_lt")}
}

// qV2Literal declares a parameter annotated Literal[...].
func qV2Literal(name string, values ...string) v1Param {
	return v1Param{name: name, kind: paramString, enum: values, schema: paramLiteral}
}

// v2Time reads a parameter v2Query checked as a datetime (nil when
// absent); a value without an offset is UTC, as Airflow's timezone
// handling reads naive datetimes.
func (v v1Values) v2Time(name string) *time.Time {
	s, ok := v.str(name)
	if !ok {
		return nil
	}
	t, reason := v2ParseDateTime(s)
	if reason != "" {
		return nil
	}
	t = t.UTC()
	return &t
}

// v2Bool reads a parameter v2Query checked as a boolean: the value and
// whether it was given.
func (v v1Values) v2Bool(name string) (value, given bool) {
	s, ok := v.str(name)
	if !ok {
		return false, false
	}
	b, _ := v2ParseBool(s)
	return b, true
}

// v2Pattern is a _SearchParam's value as a case-insensitive LIKE
// '%value%' (likePattern), "~" every value (transform_aliases); nil when
// the parameter is absent.
func (v v1Values) v2Pattern(name string) *regexp.Regexp {
	s, ok := v.str(name)
	if !ok {
		return nil
	}
	if s == "~" {
		s = "%"
	}
	if s == "" {
		return regexp.MustCompile("")
	}
	// A "|" between two or more terms is an OR of their patterns
	// (_SearchParam.to_orm, as 3.2.1's document describes the parameters).
	var terms []string
	for term := range strings.SplitSeq(s, "|") {
		if term = strings.TrimSpace(term); term != "" {
			terms = append(terms, strings.TrimPrefix(likePattern(term).String(), "(?is)"))
		}
	}
	if len(terms) > 1 {
		return regexp.MustCompile("(?is)(?:" + strings.Join(terms, "|") + ")")
	}
	return likePattern(s)
}

// v2OrderRows sorts rows as SortParam.to_orm orders a select: by each key
// in turn (compare knows the resource's attributes), then by the primary
// key (pk) in the first key's direction, Airflow's final discriminator.
// compare puts NULL after every value (compareNullable, ±nullRank); the
// key (nullsLow) puts it below every value, as SQLite does.
func v2OrderRows[T any](rows []T, keys []v2SortKey, compare func(a, b T, attr string) int, pk func(a, b T) int) {
	pkDesc := len(keys) > 0 && keys[0].desc
	slices.SortStableFunc(rows, func(a, b T) int {
		for _, k := range keys {
			key := sortKey{attr: k.attr, desc: k.desc, nullsLow: true}
			if c := key.directed(compare(a, b, k.attr)); c != 0 {
				return c
			}
		}
		if pkDesc {
			return pk(b, a)
		}
		return pk(a, b)
	})
}

// v2TimeRange is a RangeFilter of datetime_range_filter_factory: the
// bounds of field_gte, _gt, _lte and _lt as given (nil when absent).
type v2TimeRange struct{ gte, gt, lte, lt *time.Time }

// v2RangeOf reads the four bounds of field (declared by qV2DateRange).
func v2RangeOf(q v1Values, field string) v2TimeRange {
	return v2TimeRange{gte: q.v2Time(field + "_gte"), gt: q.v2Time(field + "_gt"), lte: q.v2Time(field + "_lte"), lt: q.v2Time(field + "_lt")}
}

// match is the range's where clause on a column: a NULL column matches no
// bound (SQL's comparison with NULL), and no bound matches everything.
func (r v2TimeRange) match(t *time.Time) bool {
	if r.gte == nil && r.gt == nil && r.lte == nil && r.lt == nil {
		return true
	}
	return t != nil && (r.gte == nil || !t.Before(*r.gte)) && (r.gt == nil || t.After(*r.gt)) &&
		(r.lte == nil || !t.After(*r.lte)) && (r.lt == nil || t.Before(*r.lt))
}

// v2PathInt reads a path parameter v2CheckPath checked as an integer, as
// pydantic made it an int ("007" is 7).
func (req *apiRequest) v2PathInt(name string) int64 {
	n, _, _ := v2ParseIntString(req.param(name), nil)
	return n
}

// v2Int reads a parameter v2Query checked as an integer, as pydantic made
// it an int ("5.0", " 5", "1_0" are 5, 5 and 10); def when absent.
func (v v1Values) v2Int(name string, def int64) int64 {
	s, ok := v.str(name)
	if !ok {
		return def
	}
	n, _, _ := v2ParseIntString(s, nil)
	return n
}

// v2RangeBound is a number bound as RangeFilter.to_orm applies it
// (common/parameters.py): only when it is truthy, so 0 bounds nothing.
func v2RangeBound(f *float64) *float64 {
	if f != nil && *f == 0 {
		return nil
	}
	return f
}
