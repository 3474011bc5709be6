package main

// Request bodies of the v2 dialect as FastAPI reads them and pydantic 2
// validates them against the route's model (Airflow's datamodels/*.py,
// StrictBaseModel: unknown fields refused). FastAPI reads a body as JSON
// when its Content-Type is JSON or absent (fastapi/routing.py
// get_request_handler: json.loads; a decode error is one json_invalid
// entry), any other body as its bytes, which no model accepts. Every
// field's error is one entry of the 422's list, in the model's field
// order, then the unknown fields in the body's order.

import (
	"encoding/json"
	"math"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// v2Kind is a pydantic annotation a body field has.
type v2Kind int

const (
	v2Any v2Kind = iota
	v2String
	v2Int
	v2Float
	v2Bool
	v2DateTime      // datetime: naive values read as UTC
	v2AwareDateTime // AwareDatetime: naive values refused
	v2Dict          // dict[str, Any]
	v2List          // list[elem]
	v2Object        // a nested model
	v2Enum          // a str Enum, or a Literal when literal is set
	v2Custom        // checked by check (a union with a discriminator)
)

// v2Type is a field's annotation.
type v2Type struct {
	kind    v2Kind
	elem    *v2Type  // v2List's items
	model   *v2Model // v2Object's model
	values  []string // v2Enum's values
	literal bool     // v2Enum: a Literal (literal_error) rather than an Enum
	ge      *int64   // Field(ge=...) on a number
	minLen  *int     // Field(min_length=...) on a string or list
	maxLen  *int     // Field(max_length=...) on a string
	// pattern is Field(pattern=...) on a string, compiled with Python's
	// meaning (\w is Unicode there); patternText is it as written, which
	// pydantic's string_pattern_mismatch names.
	pattern     *regexp.Regexp
	patternText string
	// check validates a v2Custom value at loc: the value kept and the
	// errors.
	check func(v any, loc []any) (any, []v2Issue)
	// asSent: v2Dict keeps the object as decoded (a pyDict, its keys in
	// the body's order) instead of a map, for a field whose handler reads
	// it from the body as sent (v2BodyField): the map was never read;
	// v2DateTime keeps a string's offset instead of reading it in UTC.
	asSent bool
}

// v2Field is one field of a model.
type v2Field struct {
	name     string
	typ      v2Type
	required bool // no default: absent is "missing"
	nullable bool // X | None: null is a value
	// alias is the field's other name (populate_by_name=True, Airflow's
	// BaseModel): name is the one pydantic's errors use (the field's
	// alias), alias the Python attribute's; a body may use either, and
	// the kept value is under name.
	alias string
}

// v2Model is a pydantic model a body (or a nested field) is validated
// against.
type v2Model struct {
	name   string // the class name (pydantic's model_type ctx)
	fields []v2Field
	// extraAllowed: unknown fields are kept (extra="allow") rather than
	// refused (StrictBaseModel's extra="forbid").
	extraAllowed bool
	// after is a model_validator(mode="after"): run when every field is
	// valid, on the kept fields; its errors as pydantic reports them.
	after func(out map[string]any, input any, loc []any) []v2Issue
}

// v2Body is the body check of a row whose body is model.
func v2Body(model *v2Model) func(*apiRoute) {
	return withBody(func(v any) (map[string]any, error) {
		out, issues := model.validate(v, []any{"body"})
		if issues != nil {
			return nil, v2Invalid(issues)
		}
		return out, nil
	})
}

// v2NoInput marks a body FastAPI found empty: the model's "missing" error
// names the whole body, with input null.
type v2NoInput struct{}

// decodeV2Body is FastAPI's reading of a body: empty is no body; JSON
// (by Content-Type, or without one) is json.loads of it; any other body
// stays its text (pydantic refuses it as an object).
func decodeV2Body(raw []byte, contentType string) (v1Body, error) {
	if len(raw) == 0 {
		return v1Body{plain: v2NoInput{}}, nil
	}
	// "application/json" as it stands needs no parse (ParseMediaType
	// makes a map of parameters for every call).
	if contentType != "" && contentType != "application/json" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil || !(mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
			return v1Body{plain: strings.ToValidUTF8(string(raw), "\uFFFD")}, nil
		}
	}
	ordered, err := decodePyJSON(raw)
	if err != nil || !utf8.Valid(raw) {
		return v1Body{}, v2Invalid([]v2Issue{{Type: "json_invalid", Loc: []any{"body", v2JSONErrorPos(raw, err)},
			Msg: "JSON decode error", Input: map[string]any{}, Ctx: map[string]any{"error": v2JSONErrorReason(raw, err)}}})
	}
	return v1Body{plain: ordered, ordered: ordered}, nil
}

// v2JSONErrorPos is the position json.loads' JSONDecodeError names: the
// offset of the byte where the document went wrong.
func v2JSONErrorPos(raw []byte, err error) int {
	var syn *json.SyntaxError
	if e, ok := err.(*json.SyntaxError); ok {
		syn = e
	}
	if syn == nil {
		return len(raw)
	}
	pos := int(syn.Offset) - 1
	if pos < 0 {
		pos = 0
	}
	return pos
}

// v2JSONErrorReason is json.loads' message for the usual mistakes: a
// body that is not a value, text after the value, a truncated document.
func v2JSONErrorReason(raw []byte, err error) string {
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case trimmed == "":
		return "Expecting value"
	case err != nil && strings.Contains(err.Error(), "after top-level value"):
		return "Extra data"
	case err != nil && strings.Contains(err.Error(), "looking for beginning of object key string"):
		return "Expecting property name enclosed in double quotes"
	case err != nil && strings.Contains(err.Error(), "after object key"):
		return "Expecting ':' delimiter"
	case err != nil && (strings.Contains(err.Error(), "after object key:value pair") || strings.Contains(err.Error(), "after array element")):
		return "Expecting ',' delimiter"
	}
	return "Expecting value"
}

// validate checks v against the model at loc: the fields given, each as
// its type keeps it, or the errors. FastAPI validates a body with
// from_attributes, so a non-object is model_attributes_type, in nested
// models too.
func (m *v2Model) validate(v any, loc []any) (map[string]any, []v2Issue) {
	if _, none := v.(v2NoInput); none {
		return nil, []v2Issue{{Type: "missing", Loc: loc, Msg: "Field required", Input: nil}}
	}
	dict, ok := v.(pyDict)
	if !ok {
		return nil, []v2Issue{{Type: "model_attributes_type", Loc: loc,
			Msg: "Input should be a valid dictionary or object to extract fields from", Input: v2Input(v)}}
	}
	out := make(map[string]any, len(m.fields))
	var issues []v2Issue
	given := dictIndex(dict)
	for _, f := range m.fields {
		val, ok := given.get(f.name)
		if !ok && f.alias != "" {
			val, ok = given.get(f.alias)
		}
		if !ok {
			if f.required {
				issues = append(issues, v2Issue{Type: "missing", Loc: appendLoc(loc, f.name), Msg: "Field required", Input: v2Input(dict)})
			}
			continue
		}
		if val == nil && f.nullable {
			out[f.name] = nil
			continue
		}
		kept, errs := f.typ.validate(val, m.fieldLoc(loc, f.name))
		issues = append(issues, errs...)
		out[f.name] = kept
	}
	for i, f := range dict {
		if given.before(f.key, i) || m.has(f.key) {
			continue
		}
		val, _ := given.get(f.key)
		if m.extraAllowed {
			out[f.key] = plainOf(val)
			continue
		}
		issues = append(issues, v2Issue{Type: "extra_forbidden", Loc: appendLoc(loc, f.key), Msg: "Extra inputs are not permitted", Input: v2Input(val)})
	}
	if issues == nil && m.after != nil {
		issues = m.after(out, dict, loc)
	}
	return out, issues
}

// pyDictIndex looks a dict's keys up: a key's last value (as a dict
// built from the fields in order keeps it), and whether a key came
// before a place. A dict of up to pyDictIndexed fields is read in place
// (a body's usually has a few: the trigger's three), where two maps were
// made for every body checked (a v2 trigger's body read and checked:
// 17,878 → 16,556 instructions); a longer one is indexed.
type pyDictIndex struct {
	dict  pyDict
	last  map[string]any
	first map[string]int // a key's first place
}

func dictIndex(dict pyDict) pyDictIndex {
	x := pyDictIndex{dict: dict}
	if len(dict) > pyDictIndexed {
		x.last, x.first = make(map[string]any, len(dict)), make(map[string]int, len(dict))
		for i, f := range dict {
			x.last[f.key] = f.val
			if _, ok := x.first[f.key]; !ok {
				x.first[f.key] = i
			}
		}
	}
	return x
}

// get is key's last value.
func (x pyDictIndex) get(key string) (any, bool) {
	if x.last != nil {
		v, ok := x.last[key]
		return v, ok
	}
	for i := len(x.dict) - 1; i >= 0; i-- {
		if x.dict[i].key == key {
			return x.dict[i].val, true
		}
	}
	return nil, false
}

// before reports whether key is at a place before i.
func (x pyDictIndex) before(key string, i int) bool {
	if x.first != nil {
		return x.first[key] < i
	}
	for _, f := range x.dict[:i] {
		if f.key == key {
			return true
		}
	}
	return false
}

// has reports whether the model declares a field.
func (m *v2Model) has(name string) bool {
	for _, f := range m.fields {
		if f.name == name || (f.alias != "" && f.alias == name) {
			return true
		}
	}
	return false
}

// v2BodyLocs holds, for each model checked at the body's top, its fields'
// locs there (["body", name], by name and alias), made at the model's
// first check: every field checked needs its loc, for the issues it may
// have, and a loc made each time was two allocations a field (the slice
// and the boxed name) for issues a valid body never has. Locs are only
// read (an issue's Loc is rendered, never appended to in place).
var v2BodyLocs sync.Map // *v2Model → map[string][]any

// fieldLoc is loc and the field name: the model's cached loc when loc is
// the body's top, else a new slice.
func (m *v2Model) fieldLoc(loc []any, name string) []any {
	if len(loc) != 1 || loc[0] != "body" {
		return appendLoc(loc, name)
	}
	if locs, ok := v2BodyLocs.Load(m); ok {
		if l, ok := locs.(map[string][]any)[name]; ok {
			return l
		}
	}
	locs := make(map[string][]any, 2*len(m.fields))
	for _, f := range m.fields {
		for _, n := range []string{f.name, f.alias} {
			if n != "" {
				locs[n] = []any{"body", n}
			}
		}
	}
	v2BodyLocs.Store(m, locs)
	if l, ok := locs[name]; ok {
		return l
	}
	return appendLoc(loc, name)
}

// appendLoc is loc and one more step, in a new slice.
func appendLoc(loc []any, step any) []any {
	out := make([]any, len(loc), len(loc)+1)
	copy(out, loc)
	return append(out, step)
}

// v2Input is a decoded value as pydantic echoes it in an error's input:
// the JSON it came from, objects in their order.
func v2Input(v any) any {
	switch x := v.(type) {
	case pyDict:
		return v2Ordered{x}
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = v2Input(item)
		}
		return out
	case v2NoInput:
		return nil
	}
	return v
}

// v2Ordered renders a decoded object in its keys' order.
type v2Ordered struct{ dict pyDict }

func (o v2Ordered) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range o.dict {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(v2Input(f.val))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// validate checks one value against the annotation, as pydantic's lax
// mode does for JSON input: the value kept (int64, float64, bool,
// string, time.Time, map[string]any, []any, or a nested model's map) and
// the errors.
func (t v2Type) validate(v any, loc []any) (any, []v2Issue) {
	bad := func(typ, msg string) (any, []v2Issue) {
		return nil, []v2Issue{{Type: typ, Loc: loc, Msg: msg, Input: v2Input(v)}}
	}
	switch t.kind {
	case v2Any:
		return plainOf(v), nil
	case v2String, v2Enum:
		s, ok := v.(string)
		if !ok {
			if t.kind == v2Enum {
				issue := v2EnumIssue(t.values, t.literal, v2Input(v), loc)
				return nil, []v2Issue{issue}
			}
			return bad("string_type", "Input should be a valid string")
		}
		if t.kind == v2Enum && !slices.Contains(t.values, s) {
			return nil, []v2Issue{v2EnumIssue(t.values, t.literal, s, loc)}
		}
		if t.minLen != nil && utf8.RuneCountInString(s) < *t.minLen {
			return nil, []v2Issue{{Type: "string_too_short", Loc: loc, Msg: "String should have at least " + v2Count(*t.minLen, "character"),
				Input: s, Ctx: map[string]any{"min_length": *t.minLen}}}
		}
		if t.maxLen != nil && utf8.RuneCountInString(s) > *t.maxLen {
			return nil, []v2Issue{{Type: "string_too_long", Loc: loc, Msg: "String should have at most " + v2Count(*t.maxLen, "character"),
				Input: s, Ctx: map[string]any{"max_length": *t.maxLen}}}
		}
		if t.pattern != nil && !t.pattern.MatchString(s) {
			expr := t.patternText
			return nil, []v2Issue{{Type: "string_pattern_mismatch", Loc: loc, Msg: "String should match pattern '" + expr + "'",
				Input: s, Ctx: map[string]any{"pattern": expr}}}
		}
		return v, nil // the string as it came, boxed already
	case v2Int:
		var n int64
		switch x := v.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				n = i
			} else if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
				n = int64(f)
			} else if err == nil {
				return bad("int_from_float", "Input should be a valid integer, got a number with a fractional part")
			} else {
				return bad("int_parsing", "Input should be a valid integer, unable to parse string as an integer")
			}
		case string:
			i, issue, ok := v2ParseIntString(x, loc)
			if !ok {
				return nil, []v2Issue{issue}
			}
			n = i
		case bool:
			if x {
				n = 1
			}
		default:
			return bad("int_type", "Input should be a valid integer")
		}
		if t.ge != nil && n < *t.ge {
			return nil, []v2Issue{{Type: "greater_than_equal", Loc: loc, Msg: "Input should be greater than or equal to " + strconv.FormatInt(*t.ge, 10),
				Input: v2Input(v), Ctx: map[string]any{"ge": *t.ge}}}
		}
		return n, nil
	case v2Float:
		var f float64
		switch x := v.(type) {
		case json.Number:
			f, _ = x.Float64()
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return bad("float_parsing", "Input should be a valid number, unable to parse string as a number")
			}
			f = p
		case bool:
			if x {
				f = 1
			}
		default:
			return bad("float_type", "Input should be a valid number")
		}
		if t.ge != nil && f < float64(*t.ge) {
			return nil, []v2Issue{{Type: "greater_than_equal", Loc: loc, Msg: "Input should be greater than or equal to " + strconv.FormatInt(*t.ge, 10),
				Input: v2Input(v), Ctx: map[string]any{"ge": *t.ge}}}
		}
		return f, nil
	case v2Bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, ok := v2ParseBool(x); ok {
				return b, nil
			}
			return bad("bool_parsing", "Input should be a valid boolean, unable to interpret input")
		case json.Number:
			switch string(x) {
			case "0":
				return false, nil
			case "1":
				return true, nil
			}
			return bad("bool_parsing", "Input should be a valid boolean, unable to interpret input")
		}
		return bad("bool_type", "Input should be a valid boolean")
	case v2DateTime, v2AwareDateTime:
		var when time.Time
		switch x := v.(type) {
		case string:
			parsed, reason := v2ParseDateTime(x)
			if reason != "" {
				return nil, []v2Issue{{Type: "datetime_from_date_parsing", Loc: loc, Msg: "Input should be a valid datetime or date, " + reason,
					Input: x, Ctx: map[string]any{"error": reason}}}
			}
			if t.kind == v2AwareDateTime && !v2HasOffset(x) {
				return bad("timezone_aware", "Input should have timezone info")
			}
			when = parsed
			if t.asSent {
				return when, nil // its offset kept, as pydantic keeps the tzinfo
			}
		case json.Number:
			// A Unix time is UTC to pydantic, hence aware.
			when, _ = v2ParseDateTime(string(x))
		default:
			return bad("datetime_type", "Input should be a valid datetime")
		}
		return when.UTC(), nil
	case v2Dict:
		d, ok := v.(pyDict)
		if !ok {
			return bad("dict_type", "Input should be a valid dictionary")
		}
		if t.asSent {
			return v, nil
		}
		return plainOf(d), nil
	case v2List:
		list, ok := v.([]any)
		if !ok {
			return bad("list_type", "Input should be a valid list")
		}
		if t.minLen != nil && len(list) < *t.minLen {
			return nil, []v2Issue{{Type: "too_short", Loc: loc, Msg: "List should have at least " + v2Count(*t.minLen, "item") + " after validation, not " + strconv.Itoa(len(list)),
				Input: v2Input(v), Ctx: v2TooShortCtx{FieldType: "List", MinLength: *t.minLen, ActualLength: len(list)}}}
		}
		out := make([]any, len(list))
		var issues []v2Issue
		for i, item := range list {
			elem := v2Type{kind: v2Any}
			if t.elem != nil {
				elem = *t.elem
			}
			kept, errs := elem.validate(item, appendLoc(loc, i))
			issues = append(issues, errs...)
			out[i] = kept
		}
		return out, issues
	case v2Object:
		out, issues := t.model.validate(v, loc)
		return out, issues
	case v2Custom:
		return t.check(v, loc)
	}
	return plainOf(v), nil
}

// v2HasOffset reports whether a datetime string names its offset (a Unix
// time is UTC).
func v2HasOffset(s string) bool {
	if len(s) <= 10 {
		return !strings.Contains(s, "-") || strings.HasPrefix(s, "-")
	}
	rest := s[10:]
	return strings.ContainsAny(rest, "Zz+") || strings.Contains(rest[1:], "-")
}

// v2ValueError is the error a model or field validator's ValueError
// makes: "Value error, " and its text; FastAPI renders the exception in
// ctx as {} (jsonable_encoder of an exception).
func v2ValueError(loc []any, input any, text string) v2Issue {
	return v2Issue{Type: "value_error", Loc: loc, Msg: "Value error, " + text, Input: v2Input(input), Ctx: map[string]any{"error": map[string]any{}}}
}

// v2MaxLen is Field(max_length=n).
func v2MaxLen(n int) *int { return &n }

// v2Count is pydantic's "1 character" / "2 characters".
func v2Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Field annotations the models share.
var (
	v2TStr   = v2Type{kind: v2String}
	v2TInt   = v2Type{kind: v2Int}
	v2TFloat = v2Type{kind: v2Float}
	v2TBool  = v2Type{kind: v2Bool}
	v2TTime  = v2Type{kind: v2DateTime}
	v2TAware = v2Type{kind: v2AwareDateTime}
	v2TDict  = v2Type{kind: v2Dict}
	// v2TDictAsSent is a dict the handler reads with v2BodyField (a
	// trigger's conf): checked, kept as decoded.
	v2TDictAsSent = v2Type{kind: v2Dict, asSent: true}
	// v2TTimeAsSent is a datetime the handler answers as given (a
	// backfill's from_date): its offset kept, a naive one UTC.
	v2TTimeAsSent = v2Type{kind: v2DateTime, asSent: true}
	v2TAnyVal     = v2Type{kind: v2Any}
	v2TStrs       = v2Type{kind: v2List, elem: &v2Type{kind: v2String}}
)

// v2TEnum is a str Enum's annotation; v2TLiteral a Literal's.
func v2TEnum(values ...string) v2Type    { return v2Type{kind: v2Enum, values: values} }
func v2TLiteral(values ...string) v2Type { return v2Type{kind: v2Enum, values: values, literal: true} }

// v2TModel is a nested model's annotation; v2TListOf a list's.
func v2TModel(m *v2Model) v2Type   { return v2Type{kind: v2Object, model: m} }
func v2TListOf(elem v2Type) v2Type { return v2Type{kind: v2List, elem: &elem} }

// v2TooShortCtx is the ctx of pydantic's too_short error, its keys in
// pydantic-core's order (ErrorType::TooShort).
type v2TooShortCtx struct {
	FieldType    string `json:"field_type"`
	MinLength    int    `json:"min_length"`
	ActualLength int    `json:"actual_length"`
}
