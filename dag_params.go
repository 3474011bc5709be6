package main

// A DAG's Param schemas, compiled once per definition, and the check a
// trigger's conf goes through: Airflow validates the DAG's params merged
// with the conf before it creates a run (2.10.3 airflow/models/dag.py
// create_dagrun:3183-3186; 3.2.1's SerializedDAG.create_dagrun, in the
// 3.2.0-era main Phinhas214/airflow c57fba0e
// serialization/definitions/dag.py:570-571), each param through
// jsonschema.validate with a FormatChecker (2.10.3 models/param.py
// Param.resolve:116-141; serialization/definitions/param.py
// SerializedParam.resolve).
//
// The answer is str() of jsonschema's best error (jsonschema 4.23.0 in
// Airflow 2.10.3's constraints; 4.23-4.26 word it alike), so the keywords
// a Param schema commonly uses are walked here in the schema's own key
// order, with jsonschema's messages and best_match's choice
// (exceptions.py relevance, best_match). A schema that also uses
// keywords this walk does not know (anyOf, $ref, if/then, ...) is
// compiled with santhosh-tekuri/jsonschema for those (draft 2020-12, as
// validator_for picks for a schema without $schema).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// paramCheck is a DAG's params as a trigger checks them: every param in
// the file's order, with its default and compiled schema.
type paramCheck struct {
	params []paramRule
	byName map[string]int
}

// paramRule is one param: its default (as json.loads would give it:
// pyDict, []any, json.Number, string, bool or nil), its schema in key
// order, and the compiled schema for the keywords the walk leaves out.
type paramRule struct {
	name    string
	value   any
	noValue bool // no default (NOTSET): the conf must give one
	schema  any  // pyDict, or a bool schema; nil: {} (anything)
	full    *jsonschema.Schema
}

// compileParams compiles a DAG's param schemas; nil when no param has
// one or lacks a default, so that a DAG with neither pays nothing at
// trigger time. A
// schema the library cannot compile (a pattern RE2 cannot read, say) is
// checked by the walk alone.
func compileParams(values map[string]any, docs map[string]ParamDoc) *paramCheck {
	withSchema := false
	order := make([]string, 0, len(docs))
	for name, d := range docs {
		if len(d.Schema) > 0 || d.NoDefault {
			withSchema = true
		}
		order = append(order, name)
	}
	if !withSchema {
		return nil
	}
	slices.SortFunc(order, func(a, b string) int { return docs[a].order - docs[b].order })
	pc := &paramCheck{byName: make(map[string]int, len(order))}
	for _, name := range order {
		doc := docs[name]
		rule := paramRule{name: name, value: pyPlainValue(values[name]), noValue: doc.NoDefault}
		if len(doc.Schema) > 0 {
			rule.schema = pyPlainValue(doc.Schema)
			if len(doc.rawSchema) > 0 {
				if v, err := decodePyJSON(doc.rawSchema); err == nil {
					rule.schema = pyUnwrapSerialized(v)
				}
			}
			if schemaNeedsFull(rule.schema) {
				if full, err := compileFullSchema(rule.schema); err == nil {
					rule.full = full
				}
			}
		}
		pc.byName[name] = len(pc.params)
		pc.params = append(pc.params, rule)
	}
	return pc
}

// validate is the error Airflow raises for conf (a JSON object's text;
// empty: none) merged into the params, "" when there is none. update
// says how the merge goes: Airflow 2.10.3's ParamsDict.update resolves
// each conf key of a param as it is set, in the conf's order
// (param.py __setitem__:221-229), then validate() resolves every param
// (param.py:261-270); Airflow 3's deep_merge only sets values and
// validate() goes through the params once.
func (pc *paramCheck) validate(conf json.RawMessage, airflow3 bool) string {
	values := make([]any, len(pc.params))
	unset := make([]bool, len(pc.params))
	for i, p := range pc.params {
		values[i], unset[i] = p.value, p.noValue
	}
	if len(bytes.TrimSpace(conf)) > 0 {
		v, err := decodePyJSON(conf)
		if err != nil {
			return ""
		}
		obj, _ := v.(pyDict)
		for _, f := range obj {
			i, ok := pc.byName[f.key]
			if !ok {
				continue // a new Param without a schema
			}
			if !airflow3 {
				if msg := pc.params[i].check(f.val); msg != "" {
					return "Invalid input for param " + f.key + ": " + msg
				}
			}
			values[i], unset[i] = f.val, false
		}
	}
	for i := range pc.params {
		if unset[i] {
			// Param.resolve without a value or default (2.10.3
			// models/param.py:125-128; 3.2's SerializedParam.resolve,
			// serialization/definitions/param.py:61-62 of c57fba0e).
			msg := "No value passed and Param has no default value"
			if airflow3 {
				msg = "No value passed"
			}
			return "Invalid input for param " + pc.params[i].name + ": " + msg
		}
		if msg := pc.params[i].check(values[i]); msg != "" {
			return "Invalid input for param " + pc.params[i].name + ": " + msg
		}
	}
	return ""
}

// dump is what Airflow 3's SerializedParam.dump takes from the param
// name beyond its description: its schema in the file's key order (nil:
// none) and whether its default resolves (SerializedParam.resolve: a
// value, valid against the schema); ok is false when pc does not hold
// the param (nil pc: no param has a schema or lacks a default).
func (pc *paramCheck) dump(name string) (schema any, resolves, ok bool) {
	if pc == nil {
		return nil, false, false
	}
	i, ok := pc.byName[name]
	if !ok {
		return nil, false, false
	}
	p := &pc.params[i]
	return p.schema, !p.noValue && p.check(p.value) == "", true
}

// resolveDefaults is ParamsDict.validate() of the params as the file
// gave them (no conf): the first param, in the DAG's order, that does not
// resolve, and the error's text; "" when all do. Its words are the
// authoring side's (2.10.3 models/param.py:125-128, 261-270; the Task
// SDK's definitions/param.py, the same text in 3.2).
func (pc *paramCheck) resolveDefaults() (name, msg string) {
	for i := range pc.params {
		p := &pc.params[i]
		if p.noValue {
			return p.name, "Invalid input for param " + p.name + ": No value passed and Param has no default value"
		}
		if m := p.check(p.value); m != "" {
			return p.name, "Invalid input for param " + p.name + ": " + m
		}
	}
	return "", ""
}

// check is str() of the ValidationError jsonschema.validate raises for
// v, "" when v is valid.
func (p *paramRule) check(v any) string {
	if p.schema == nil {
		return ""
	}
	var errs []*schemaErr
	walkSchema(v, p.schema, nil, nil, &errs)
	if best := bestSchemaErr(errs); best != nil {
		return best.String()
	}
	if p.full != nil {
		if msg := p.fullCheck(v); msg != "" {
			return msg
		}
	}
	return ""
}

// fullCheck runs the compiled schema and reports the first failure of
// a keyword the walk does not cover (the walk's own keywords follow
// Python's arithmetic, formats and messages, so the library's view of
// them is not asked): anyOf, oneOf and not in jsonschema's words, about
// the subschema and instance they failed on (best_match's descent into
// an anyOf's context is not reproduced); another keyword in the
// library's words.
func (p *paramRule) fullCheck(v any) string {
	err := p.full.Validate(toPlainJSON(v))
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return ""
	}
	var found *schemaErr
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		if found != nil {
			return
		}
		kw := ""
		if path := e.ErrorKind.KeywordPath(); len(path) > 0 {
			kw = path[len(path)-1]
		}
		switch e.ErrorKind.(type) {
		case *kind.Group:
			for _, c := range e.Causes {
				visit(c)
			}
			return
		case *kind.Not:
			kw = "not"
		}
		if kw == "" || walkedKeywords[kw] {
			for _, c := range e.Causes {
				visit(c)
			}
			return
		}
		schemaPath := schemaURLPath(e.SchemaURL)
		sub := schemaAt(p.schema, schemaPath)
		inst, path := instanceAt(v, e.InstanceLocation)
		subObj, _ := sub.(pyDict)
		var msg string
		switch k := e.ErrorKind.(type) {
		case *kind.AnyOf:
			msg = pyReprValue(inst) + " is not valid under any of the given schemas"
		case *kind.OneOf:
			msg = pyReprValue(inst) + " is not valid under any of the given schemas"
			if len(k.Subschemas) > 1 {
				list, _ := subObj.lookup("oneOf")
				items, _ := list.([]any)
				// _keywords.oneOf lists the later matches, then the first.
				order := append(slices.Clone(k.Subschemas[1:]), k.Subschemas[0])
				reprs := make([]string, 0, len(order))
				for _, i := range order {
					if i < len(items) {
						reprs = append(reprs, pyReprValue(items[i]))
					}
				}
				msg = pyReprValue(inst) + " is valid under each of " + strings.Join(reprs, ", ")
			}
		case *kind.Not:
			not, _ := subObj.lookup("not")
			msg = pyReprValue(inst) + " should not be valid under " + pyReprValue(not)
		default:
			msg = fmt.Sprintf("%s: %v", pyReprValue(inst), e.ErrorKind)
		}
		found = &schemaErr{msg: msg, keyword: kw, schema: sub, instance: inst, path: path,
			schemaPath: append(schemaPath, kw)}
	}
	visit(verr)
	if found == nil {
		return ""
	}
	return found.String()
}

// schemaURLPath is the schema path of a library error's location
// (".../param.json#/properties/a"), indices as ints.
func schemaURLPath(u string) []any {
	_, frag, _ := strings.Cut(u, "#")
	var out []any
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if n, err := strconv.Atoi(tok); err == nil {
			out = append(out, n)
			continue
		}
		out = append(out, tok)
	}
	return out
}

// schemaAt is the subschema at path.
func schemaAt(s any, path []any) any {
	for _, p := range path {
		switch x := s.(type) {
		case pyDict:
			key, _ := p.(string)
			if n, ok := p.(int); ok {
				key = strconv.Itoa(n)
			}
			s, _ = x.lookup(key)
		case []any:
			n, _ := p.(int)
			if n >= len(x) {
				return nil
			}
			s = x[n]
		}
	}
	return s
}

// instanceAt is the value at a library instance location, and its path
// as jsonschema shows it (array indices as ints).
func instanceAt(v any, loc []string) (any, []any) {
	path := make([]any, 0, len(loc))
	for _, tok := range loc {
		switch x := v.(type) {
		case pyDict:
			v, _ = x.lookup(tok)
			path = append(path, tok)
		case []any:
			n, _ := strconv.Atoi(tok)
			if n < len(x) {
				v = x[n]
			}
			path = append(path, n)
		}
	}
	return v, path
}

// walkedKeywords are the keywords walkSchema checks; annotations are
// there too, since they never fail.
var walkedKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
	"required": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"additionalProperties": true, "properties": true, "items": true,
	"minProperties": true, "maxProperties": true, "dependentRequired": true,
	"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "$schema": true, "readOnly": true, "writeOnly": true, "deprecated": true,
}

// schemaNeedsFull says whether a schema (or one under it) has a key that
// draft 2020-12 validates with and the walk does not know.
func schemaNeedsFull(s any) bool {
	obj, ok := s.(pyDict)
	if !ok {
		return false
	}
	for _, f := range obj {
		switch f.key {
		case "properties":
			if props, ok := f.val.(pyDict); ok {
				for _, p := range props {
					if schemaNeedsFull(p.val) {
						return true
					}
				}
			}
		case "items", "additionalProperties":
			if schemaNeedsFull(f.val) {
				return true
			}
		default:
			if !walkedKeywords[f.key] && draft2020Keywords[f.key] {
				return true
			}
		}
	}
	return false
}

// draft2020Keywords are the applicator and validation keywords of draft
// 2020-12 beyond the walk's: a schema with one is compiled.
var draft2020Keywords = map[string]bool{
	"$ref": true, "$dynamicRef": true, "$defs": true, "allOf": true, "anyOf": true, "oneOf": true,
	"not": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"prefixItems": true, "contains": true, "minContains": true, "maxContains": true,
	"patternProperties": true, "propertyNames": true, "unevaluatedItems": true,
	"unevaluatedProperties": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
	"contentEncoding": true, "contentMediaType": true, "contentSchema": true,
}

// compileFullSchema compiles a schema under draft 2020-12 with formats
// left unasserted (the walk checks them as Python's FormatChecker does).
func compileFullSchema(s any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("param.json", toPlainJSON(s)); err != nil {
		return nil, err
	}
	return c.Compile("param.json")
}

// toPlainJSON turns pyDict objects into maps for the library.
func toPlainJSON(v any) any {
	switch x := v.(type) {
	case pyDict:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.key] = toPlainJSON(f.val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toPlainJSON(e)
		}
		return out
	}
	return v
}

// pyPlainValue turns a value pyDecode made (maps, int64, float64) into
// decodePyJSON's kinds (pyDict with sorted keys, json.Number).
func pyPlainValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := make(pyDict, len(keys))
		for i, k := range keys {
			d[i] = pyField{key: k, val: pyPlainValue(x[k])}
		}
		return d
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyPlainValue(e)
		}
		return out
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case int:
		return json.Number(strconv.Itoa(x))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return x
		}
		return json.Number(pyFloatRepr(x))
	}
	return v
}

// pyUnwrapSerialized undoes Airflow's encoding of a dict or tuple
// ({"__type": "dict", "__var": ...}) in a decodePyJSON value.
func pyUnwrapSerialized(v any) any {
	switch x := v.(type) {
	case pyDict:
		if len(x) == 2 {
			var kind string
			var inner any
			hasVar := false
			for _, f := range x {
				switch f.key {
				case "__type":
					kind, _ = f.val.(string)
				case "__var":
					inner, hasVar = f.val, true
				}
			}
			if kind != "" && hasVar {
				return pyUnwrapSerialized(inner)
			}
		}
		out := make(pyDict, len(x))
		for i, f := range x {
			out[i] = pyField{key: f.key, val: pyUnwrapSerialized(f.val)}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyUnwrapSerialized(e)
		}
		return out
	}
	return v
}

// schemaErr is a jsonschema ValidationError: its message, keyword and
// value, the instance and (sub)schema it failed on, and the paths
// str() shows.
type schemaErr struct {
	msg        string
	keyword    string
	schema     any
	instance   any
	path       []any // instance path: string keys, int indices
	schemaPath []any // relative schema path, the keyword last
}

// String is jsonschema 4's _Error.__str__ (exceptions.py:97-121).
func (e *schemaErr) String() string {
	var b strings.Builder
	b.WriteString(e.msg)
	b.WriteString("\n\nFailed validating ")
	b.WriteString(pyQuote(e.keyword))
	b.WriteString(" in ")
	b.WriteString(pyIndexPath("schema", e.schemaPath[:len(e.schemaPath)-1]))
	b.WriteString(":\n    ")
	b.WriteString(strings.ReplaceAll(pyPformat(e.schema), "\n", "\n    "))
	b.WriteString("\n\nOn ")
	b.WriteString(pyIndexPath("instance", e.path))
	b.WriteString(":\n    ")
	b.WriteString(strings.ReplaceAll(pyPformat(e.instance), "\n", "\n    "))
	return b.String()
}

// pyIndexPath is _utils.format_as_index.
func pyIndexPath(word string, path []any) string {
	if len(path) == 0 {
		return word
	}
	var b strings.Builder
	b.WriteString(word)
	for _, p := range path {
		b.WriteByte('[')
		b.WriteString(pyReprValue(p))
		b.WriteByte(']')
	}
	return b.String()
}

// bestSchemaErr is best_match with the default relevance: max of
// (-len(path), path, not weak, strong, not matches type), the first
// found among equals (errors carry no context here: the walk has no
// anyOf/oneOf).
func bestSchemaErr(errs []*schemaErr) *schemaErr {
	var best *schemaErr
	for _, e := range errs {
		if best == nil || relevanceLess(best, e) {
			best = e
		}
	}
	return best
}

// relevanceLess says a's relevance key is below b's.
func relevanceLess(a, b *schemaErr) bool {
	if len(a.path) != len(b.path) {
		return len(a.path) > len(b.path)
	}
	for i := range a.path {
		if c := comparePathElem(a.path[i], b.path[i]); c != 0 {
			return c < 0
		}
	}
	am, bm := schemaMatchesType(a), schemaMatchesType(b)
	return !am && bm // not matches: larger
}

func comparePathElem(a, b any) int {
	switch x := a.(type) {
	case int:
		if y, ok := b.(int); ok {
			return x - y
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y) // Python compares code points, as UTF-8 bytes order them
		}
	}
	return 0
}

// schemaMatchesType is _Error._matches_type.
func schemaMatchesType(e *schemaErr) bool {
	obj, ok := e.schema.(pyDict)
	if !ok {
		return false
	}
	t, ok := obj.lookup("type")
	if !ok {
		return false
	}
	for _, name := range typeNames(t) {
		if isJSONType(e.instance, name) {
			return true
		}
	}
	return false
}

func (d pyDict) lookup(key string) (any, bool) {
	for _, f := range d {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

func typeNames(t any) []string {
	switch x := t.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// isJSONType is draft 2020-12's type checker in jsonschema (_types.py):
// booleans are not numbers, an integer is an int or an integral float.
func isJSONType(v any, name string) bool {
	switch name {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(pyDict)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		if !strings.ContainsAny(string(n), ".eE") {
			return true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && !math.IsInf(f, 0) && f == math.Trunc(f)
	}
	return false // an unknown type: jsonschema raises UnknownType
}

// walkSchema is iter_errors over one schema: each key in the schema's
// order, its errors in the keyword's order (_keywords.py).
func walkSchema(v any, schema any, path, schemaPath []any, errs *[]*schemaErr) {
	obj, ok := schema.(pyDict)
	if !ok {
		if b, isBool := schema.(bool); isBool && !b {
			*errs = append(*errs, &schemaErr{msg: fmt.Sprintf("False schema does not allow %s", pyReprValue(v)),
				keyword: "False", schema: false, instance: v, path: path, schemaPath: append(slices.Clip(schemaPath), nil)})
		}
		return
	}
	add := func(kw string, msg string) {
		*errs = append(*errs, &schemaErr{msg: msg, keyword: kw, schema: obj, instance: v,
			path: path, schemaPath: append(slices.Clip(schemaPath), kw)})
	}
	for _, f := range obj {
		kw, val := f.key, f.val
		switch kw {
		case "type":
			names := typeNames(val)
			matched := false
			for _, n := range names {
				if isJSONType(v, n) {
					matched = true
				}
			}
			if !matched {
				quoted := make([]string, len(names))
				for i, n := range names {
					quoted[i] = pyQuote(n)
				}
				add(kw, fmt.Sprintf("%s is not of type %s", pyReprValue(v), strings.Join(quoted, ", ")))
			}
		case "enum":
			list, _ := val.([]any)
			found := false
			for _, e := range list {
				if pyEqual(e, v) {
					found = true
				}
			}
			if !found {
				add(kw, fmt.Sprintf("%s is not one of %s", pyReprValue(v), pyReprValue(val)))
			}
		case "const":
			if !pyEqual(v, val) {
				add(kw, pyReprValue(val)+" was expected")
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			n, ok := v.(json.Number)
			bound, bok := val.(json.Number)
			if !ok || !bok {
				continue
			}
			c := compareNumbers(n, bound)
			in, by := pyReprValue(n), pyReprValue(bound)
			switch {
			case kw == "minimum" && c < 0:
				add(kw, in+" is less than the minimum of "+by)
			case kw == "maximum" && c > 0:
				add(kw, in+" is greater than the maximum of "+by)
			case kw == "exclusiveMinimum" && c <= 0:
				add(kw, in+" is less than or equal to the minimum of "+by)
			case kw == "exclusiveMaximum" && c >= 0:
				add(kw, in+" is greater than or equal to the maximum of "+by)
			}
		case "multipleOf":
			n, ok := v.(json.Number)
			dB, dok := val.(json.Number)
			if ok && dok && !pyMultipleOf(n, dB) {
				add(kw, pyReprValue(n)+" is not a multiple of "+pyReprValue(dB))
			}
		case "minLength", "maxLength":
			s, ok := v.(string)
			limit, lok := intKeyword(val)
			if !ok || !lok {
				continue
			}
			n := utf8.RuneCountInString(s)
			if kw == "minLength" && n < limit {
				add(kw, pyReprValue(s)+" "+cmpWord(limit == 1, "should be non-empty", "is too short"))
			}
			if kw == "maxLength" && n > limit {
				add(kw, pyReprValue(s)+" "+cmpWord(limit == 0, "is expected to be empty", "is too long"))
			}
		case "minItems", "maxItems":
			list, ok := v.([]any)
			limit, lok := intKeyword(val)
			if !ok || !lok {
				continue
			}
			if kw == "minItems" && len(list) < limit {
				add(kw, pyReprValue(v)+" "+cmpWord(limit == 1, "should be non-empty", "is too short"))
			}
			if kw == "maxItems" && len(list) > limit {
				add(kw, pyReprValue(v)+" "+cmpWord(limit == 0, "is expected to be empty", "is too long"))
			}
		case "minProperties", "maxProperties":
			d, ok := v.(pyDict)
			limit, lok := intKeyword(val)
			if !ok || !lok {
				continue
			}
			if kw == "minProperties" && len(d) < limit {
				add(kw, pyReprValue(v)+" "+cmpWord(limit == 1, "should be non-empty", "does not have enough properties"))
			}
			if kw == "maxProperties" && len(d) > limit {
				add(kw, pyReprValue(v)+" "+cmpWord(limit == 0, "is expected to be empty", "has too many properties"))
			}
		case "uniqueItems":
			list, ok := v.([]any)
			if on, _ := val.(bool); on && ok && !pyUniq(list) {
				add(kw, pyReprValue(v)+" has non-unique elements")
			}
		case "pattern":
			s, ok := v.(string)
			re, _ := compiledPattern(val)
			if ok && re != nil && !re.MatchString(s) {
				add(kw, pyReprValue(s)+" does not match "+pyReprValue(val))
			}
		case "format":
			if name, ok := val.(string); ok && !pyFormatOK(name, v) {
				add(kw, pyReprValue(v)+" is not a "+pyQuote(name))
			}
		case "required":
			d, ok := v.(pyDict)
			list, _ := val.([]any)
			if !ok {
				continue
			}
			for _, r := range list {
				if name, ok := r.(string); ok {
					if _, has := d.lookup(name); !has {
						add(kw, pyQuote(name)+" is a required property")
					}
				}
			}
		case "dependentRequired":
			d, ok := v.(pyDict)
			deps, _ := val.(pyDict)
			if !ok {
				continue
			}
			for _, dep := range deps {
				if _, has := d.lookup(dep.key); !has {
					continue
				}
				list, _ := dep.val.([]any)
				for _, r := range list {
					if name, ok := r.(string); ok {
						if _, has := d.lookup(name); !has {
							add(kw, pyQuote(name)+" is a dependency of "+pyQuote(dep.key))
						}
					}
				}
			}
		case "properties":
			d, ok := v.(pyDict)
			props, _ := val.(pyDict)
			if !ok {
				continue
			}
			for _, p := range props {
				if iv, has := d.lookup(p.key); has {
					walkSchema(iv, p.val, append(slices.Clip(path), p.key), append(slices.Clip(schemaPath), kw, p.key), errs)
				}
			}
		case "additionalProperties":
			d, ok := v.(pyDict)
			if !ok {
				continue
			}
			if _, hasPatterns := obj.lookup("patternProperties"); hasPatterns {
				continue // left to the compiled schema
			}
			props, _ := obj.lookup("properties")
			known, _ := props.(pyDict)
			var extras []string
			for _, f := range d {
				if _, has := known.lookup(f.key); !has {
					extras = append(extras, f.key)
				}
			}
			if sub, isObj := val.(pyDict); isObj {
				for _, k := range extras {
					iv, _ := d.lookup(k)
					walkSchema(iv, sub, append(slices.Clip(path), k), append(slices.Clip(schemaPath), kw), errs)
				}
			} else if allowed, _ := val.(bool); !allowed && len(extras) > 0 {
				slices.Sort(extras)
				quoted := make([]string, len(extras))
				for i, k := range extras {
					quoted[i] = pyQuote(k)
				}
				add(kw, fmt.Sprintf("Additional properties are not allowed (%s %s unexpected)",
					strings.Join(quoted, ", "), cmpWord(len(extras) == 1, "was", "were")))
			}
		case "items":
			list, ok := v.([]any)
			if !ok {
				continue
			}
			if _, hasPrefix := obj.lookup("prefixItems"); hasPrefix {
				continue // left to the compiled schema
			}
			if b, isBool := val.(bool); isBool && !b {
				if len(list) > 0 {
					var rest any = list
					if len(list) == 1 {
						rest = list[0]
					}
					add(kw, fmt.Sprintf("Expected at most 0 items but found %d extra: %s", len(list), pyReprValue(rest)))
				}
				continue
			}
			for i, item := range list {
				walkSchema(item, val, append(slices.Clip(path), i), append(slices.Clip(schemaPath), kw), errs)
			}
		}
	}
}

func cmpWord(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// intKeyword reads a length keyword's value.
func intKeyword(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, false
	}
	return int(math.Ceil(f)), true
}

// pyNumberRat is a JSON number as the exact value of Python's int or
// float: Python compares int and float exactly.
func pyNumberRat(n json.Number) *big.Rat {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		r, _ := new(big.Rat).SetString(s)
		return r
	}
	f, _ := strconv.ParseFloat(s, 64)
	if math.IsInf(f, 0) {
		return nil
	}
	return new(big.Rat).SetFloat64(f)
}

func compareNumbers(a, b json.Number) int {
	ra, rb := pyNumberRat(a), pyNumberRat(b)
	if ra == nil || rb == nil {
		fa, _ := strconv.ParseFloat(string(a), 64)
		fb, _ := strconv.ParseFloat(string(b), 64)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return ra.Cmp(rb)
}

// pyMultipleOf is _keywords.multipleOf: with a float divisor, the float
// quotient must be integral (exact fractions when it overflows); with an
// int divisor, instance % dB must be zero (a float instance's % is a
// float's).
func pyMultipleOf(n, dB json.Number) bool {
	dIsFloat := strings.ContainsAny(string(dB), ".eE")
	nIsFloat := strings.ContainsAny(string(n), ".eE")
	if dIsFloat {
		fn, _ := strconv.ParseFloat(string(n), 64)
		fd, _ := strconv.ParseFloat(string(dB), 64)
		q := fn / fd
		if math.IsInf(q, 0) || math.IsNaN(q) {
			rn, rd := pyNumberRat(n), pyNumberRat(dB)
			if rn == nil || rd == nil || rd.Sign() == 0 {
				return false
			}
			return new(big.Rat).Quo(rn, rd).IsInt()
		}
		return q == math.Trunc(q)
	}
	if nIsFloat {
		fn, _ := strconv.ParseFloat(string(n), 64)
		fd, _ := strconv.ParseFloat(string(dB), 64)
		return math.Mod(fn, fd) == 0
	}
	in, _ := new(big.Int).SetString(string(n), 10)
	id, _ := new(big.Int).SetString(string(dB), 10)
	if in == nil || id == nil || id.Sign() == 0 {
		return true
	}
	return new(big.Int).Rem(in, id).Sign() == 0
}

// pyEqual is jsonschema's _utils.equal: booleans are not numbers,
// numbers compare by value, containers item by item.
func pyEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && compareNumbers(x, y) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case pyDict:
		y, ok := b.(pyDict)
		if !ok || len(x) != len(y) {
			return false
		}
		for _, f := range x {
			g, has := y.lookup(f.key)
			if !has || !pyEqual(f.val, g) {
				return false
			}
		}
		return true
	}
	return false
}

func pyUniq(list []any) bool {
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if pyEqual(list[i], list[j]) {
				return false
			}
		}
	}
	return true
}

// compiledPattern is a pattern as Go's regexp reads it, unanchored like
// re.search; nil when RE2 cannot read it (then airlite does not check
// it: a Python-only construct such as a lookahead).
func compiledPattern(v any) (*regexp.Regexp, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	patternCache.mu.Lock()
	defer patternCache.mu.Unlock()
	if re, ok := patternCache.m[s]; ok {
		return re, true
	}
	re, err := regexp.Compile(s)
	if err != nil {
		re = nil
	}
	if len(patternCache.m) < 1024 {
		patternCache.m[s] = re
	}
	return re, true
}

// pyFormatOK is FormatChecker().check with the checkers an Airflow
// install has (jsonschema 4.23 _format.py with rfc3339-validator, idna
// and jsonpointer, Airflow 2.10.3's constraints): date-time, date, time
// (the draft 3 checker, registered last under that name: %H:%M:%S),
// email, ipv4, ipv6 and uuid here; a format airlite does not check
// (hostname needs fqdn, uri needs rfc3987, neither installed; the rest
// are rare) passes. Values that are not strings pass.
func pyFormatOK(name string, v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	switch name {
	case "date-time":
		_, err := parseRFC3339(s)
		return err == nil
	case "date":
		if len(s) != 10 || !isASCIIDigits(s[0:4]) || s[4] != '-' || !isASCIIDigits(s[5:7]) || s[7] != '-' || !isASCIIDigits(s[8:10]) {
			return false
		}
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "time":
		_, err := time.Parse("15:04:05", s)
		return err == nil && len(s) <= 8
	case "email", "idn-email":
		return strings.Contains(s, "@")
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	case "uuid":
		if _, err := uuid.Parse(s); err != nil {
			return false
		}
		return len(s) > 23 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
	}
	return true
}

func isASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
