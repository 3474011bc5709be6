package main

// Params in a definition file. A param is a value alone (`plain: x`, a
// Param without a schema, as Airflow boxes a plain value), or a Param
// written as a call of Airflow's constructor under the local tag !Param:
//
//	rows: !Param {default: 5, type: integer, minimum: 3, description: Rows to load}
//
// is Param(5, type="integer", minimum=3, description="Rows to load").
// The mapping's keys are Param's keyword arguments (2.10.3
// airflow/models/param.py Param.__init__:59-64; the Task SDK's
// definitions/param.py:54-66 of c57fba0e): default (absent: no default,
// which a trigger must then give), description, and every other key a
// JSON Schema keyword of the param's schema, unless schema gives the
// schema whole (then the other keys are dropped, as Param pops schema and
// ignores them). `!Param 7` (a value, not a mapping) is Param(7); `!Param`
// with nothing after it is Param(), no default; `!Param null` is
// Param(None). JSON definitions cannot carry YAML tags: their params are
// plain values.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// paramTag marks a param written as a Param.
const paramTag = "!Param"

// paramClass is the class a definition's Param serializes as (2.10.3
// serialized_objects.py _serialize_param), whatever the edition: the
// APIs name edition 3's own (v2Params).
const paramClass = "airflow.models.param.Param"

// yamlParams is a params mapping as read: each param's value (a Param's
// default), and what Param.dump shows besides for those written with
// !Param (docs is nil when none is).
type yamlParams struct {
	values map[string]any
	docs   map[string]ParamDoc
	order  []string // the names in the order written
	next   int      // the place the next Param takes among the docs
}

// clone is a copy of p that shares no map with it, so that a task's
// params decoded over default_args' leave default_args as they were.
func (p yamlParams) clone() yamlParams {
	return yamlParams{values: copyMap(p.values), docs: copyMap(p.docs), order: slices.Clone(p.order), next: p.next}
}

// over sets q's params over p's, as dict.update does: a name p has keeps
// its place, a new one comes after.
func (p *yamlParams) over(q yamlParams) {
	if p.values == nil {
		p.values = make(map[string]any, len(q.values))
	}
	for _, name := range q.order {
		if _, seen := p.values[name]; !seen {
			p.order = append(p.order, name)
		}
		p.values[name] = q.values[name]
		doc, ok := q.docs[name]
		if !ok {
			delete(p.docs, name)
			continue
		}
		if p.docs == nil {
			p.docs = map[string]ParamDoc{}
		}
		if old, had := p.docs[name]; had {
			doc.order = old.order
		} else {
			doc.order = p.next
			p.next++
		}
		p.docs[name] = doc
	}
}

// paramError is a problem with one param, at the line of its value.
type paramError struct {
	line int
	msg  string
}

func (e *paramError) Error() string { return e.msg }

// UnmarshalYAML reads params over what p holds already (default_args'
// params, for a task), as the decoder fills a map it finds set: a task's
// param replaces default_args' of the same name, a null clears them all.
func (p *yamlParams) UnmarshalYAML(n *yaml.Node) error {
	n = resolveAlias(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*p = yamlParams{}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &wantError{want: "a mapping", got: describeNode(n)}
	}
	if n.Tag == paramTag {
		return &paramError{line: n.Line, msg: "!Param marks one param's value (params: {rows: !Param {default: 5, type: integer}}), not the params"}
	}
	// The decoder reads the values (merge keys, a key given twice, its
	// own errors); the walk below finds the Params and the order.
	var plain map[string]any
	if err := n.Decode(&plain); err != nil {
		return err
	}
	if p.values == nil {
		p.values = make(map[string]any, len(plain))
	}
	return p.readEntries(n, plain)
}

// readEntries walks a params mapping's entries in order, after the
// mappings its merge keys (<<) name, whose entries its own replace, as
// the decoder applies them.
func (p *yamlParams) readEntries(n *yaml.Node, plain map[string]any) error {
	for _, src := range mergeSources(n) {
		if err := p.readEntries(src, plain); err != nil {
			return err
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolveAlias(n.Content[i+1])
		if key.Kind == yaml.ScalarNode && key.Tag == "!!merge" {
			continue
		}
		if key.Kind != yaml.ScalarNode {
			return &paramError{line: key.Line, msg: "a param's name must be a word, not " + describeNode(key)}
		}
		name := key.Value
		if _, seen := p.values[name]; !seen {
			p.order = append(p.order, name)
		}
		if value.Tag != paramTag {
			if isLocalTag(value.Tag) {
				msg := fmt.Sprintf("%s: unknown tag %s", name, value.Tag)
				if near := closestName(value.Tag, []string{paramTag}); near != "" {
					msg += " (did you mean " + near + "?)"
				}
				return &paramError{line: value.Line, msg: msg}
			}
			p.values[name] = plain[name]
			delete(p.docs, name) // a plain value replaces a Param
			continue
		}
		val, doc, err := readParam(name, value)
		if err != nil {
			return err
		}
		if p.docs == nil {
			p.docs = map[string]ParamDoc{}
		}
		doc.order = p.next
		if old, ok := p.docs[name]; ok {
			doc.order = old.order
		} else {
			p.next++
		}
		p.values[name], p.docs[name] = val, doc
	}
	return nil
}

// mergeSources are the mappings n's merge keys (<<: *defaults, or a
// list of them) name, in the order they apply: a list's later mappings
// first, since its earlier ones win.
func mergeSources(n *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolveAlias(n.Content[i+1])
		if key.Kind != yaml.ScalarNode || key.Tag != "!!merge" {
			continue
		}
		sources := []*yaml.Node{value}
		if value.Kind == yaml.SequenceNode {
			sources = value.Content
		}
		for j := len(sources) - 1; j >= 0; j-- {
			if src := resolveAlias(sources[j]); src.Kind == yaml.MappingNode {
				out = append(out, src)
			}
		}
	}
	return out
}

// isLocalTag says whether tag is one a file wrote (!Name), not one of
// YAML's own (!!str) or none.
func isLocalTag(tag string) bool {
	return len(tag) > 1 && tag[0] == '!' && tag[1] != '!'
}

// readParam reads one !Param value: its default (nil when none) and the
// rest of what Param.dump shows.
func readParam(name string, n *yaml.Node) (any, ParamDoc, error) {
	doc := ParamDoc{Class: paramClass, Schema: map[string]any{}, line: n.Line}
	fail := func(line int, format string, args ...any) (any, ParamDoc, error) {
		return nil, ParamDoc{}, &paramError{line: line, msg: name + ": " + fmt.Sprintf(format, args...)}
	}
	if n.Kind != yaml.MappingNode {
		// Param(value): a value alone; nothing at all is Param().
		if n.Kind == yaml.ScalarNode && n.Value == "" && n.Style&^yaml.TaggedStyle == 0 {
			doc.NoDefault, doc.rawSchema = true, []byte("{}")
			return nil, doc, nil
		}
		v, err := yamlParamValue(n)
		if err != nil {
			return nil, ParamDoc{}, &paramError{line: n.Line, msg: name + ": " + err.Error()}
		}
		doc.rawSchema = []byte("{}")
		return pyPlainMap(v), doc, nil
	}
	var value any
	hasDefault := false
	var schema, kwargs pyDict
	var schemaNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, valNode := n.Content[i], resolveAlias(n.Content[i+1])
		if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
			return fail(key.Line, "a Param's keys are its keyword arguments (default, description, type, ...), not %s", describeNode(key))
		}
		v, err := yamlParamValue(valNode)
		if err != nil {
			return fail(valNode.Line, "%s: %v", key.Value, err)
		}
		switch key.Value {
		case "default":
			value, hasDefault = v, true
		case "description":
			doc.Description = pyPlainMap(v)
		case "schema":
			d, ok := v.(pyDict)
			if !ok {
				return fail(valNode.Line, "schema must be a mapping of JSON Schema keywords, not %s", describeNode(valNode))
			}
			schema, schemaNode = d, valNode
		default:
			kwargs = append(kwargs, pyField{key: key.Value, val: v})
		}
	}
	if schemaNode == nil {
		schema = kwargs
	}
	if schema == nil {
		schema = pyDict{}
	}
	raw, err := compactJSON.marshal(schema)
	if err != nil {
		return fail(n.Line, "schema: %v", err)
	}
	doc.rawSchema = raw
	doc.Schema = pyPlainMap(schema).(map[string]any)
	doc.NoDefault = !hasDefault
	return pyPlainMap(value), doc, nil
}

// yamlParamValue is a YAML value as JSON holds it, objects in their key
// order (pyDict), numbers as int64 or float64 (json.Number past int64), a
// date as the text written; a value JSON cannot hold (an infinity, NaN,
// a key that is not a word) is refused. Tags of the file's own below a
// param are read as if absent.
func yamlParamValue(n *yaml.Node) (any, error) {
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlParamValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		var out pyDict
		if err := appendYAMLFields(&out, n); err != nil {
			return nil, err
		}
		if out == nil {
			out = pyDict{}
		}
		return out, nil
	}
	scalar := *n
	if isLocalTag(scalar.Tag) {
		scalar.Tag = ""
	}
	var v any
	if err := scalar.Decode(&v); err != nil {
		return nil, fmt.Errorf("read %s: %w", describeNode(n), err)
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%s is not a JSON value", n.Value)
		}
		return x, nil
	case time.Time:
		return n.Value, nil
	}
	return v, nil
}

// appendYAMLFields adds a mapping's entries to out in order, its merge
// keys' mappings first and its own keys over them.
func appendYAMLFields(out *pyDict, n *yaml.Node) error {
	for _, src := range mergeSources(n) {
		if err := appendYAMLFields(out, src); err != nil {
			return err
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := resolveAlias(n.Content[i]), resolveAlias(n.Content[i+1])
		if key.Kind == yaml.ScalarNode && key.Tag == "!!merge" {
			continue
		}
		if key.Kind != yaml.ScalarNode {
			return fmt.Errorf("a key must be a word, not %s", describeNode(key))
		}
		v, err := yamlParamValue(value)
		if err != nil {
			return err
		}
		if i := slices.IndexFunc(*out, func(f pyField) bool { return f.key == key.Value }); i >= 0 {
			(*out)[i].val = v
			continue
		}
		*out = append(*out, pyField{key: key.Value, val: v})
	}
	return nil
}

// pyPlainMap is an ordered value as the rest of airlite holds a DAG's
// values: objects as map[string]any.
func pyPlainMap(v any) any {
	switch x := v.(type) {
	case pyDict:
		out := make(map[string]any, len(x))
		for _, f := range x {
			out[f.key] = pyPlainMap(f.val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyPlainMap(e)
		}
		return out
	}
	return v
}
