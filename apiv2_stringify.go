package main

// Airflow's stringify (c57fba0e airflow-core serialization/stringify.py),
// which 3.2.1's public API applies to an XCom value it shows as text: the
// XCom route with deserialize=true (routes/public/xcom.py:104-126) and a
// task's extra link (serialization/definitions/operatorlink.py:47-92).

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// errStringifyAirflowClass is stringify.py's StringifyNotSupportedError:
// a serialized class of Airflow's own, which only a full deserialization
// would read.
var errStringifyAirflowClass = errors.New("cannot stringify an Airflow class")

// pyStringify is serialization/stringify.py stringify over a decoded
// value: primitives and plain containers as they are (their items
// stringified), a serialized object ("__classname__" and "__version__",
// or the old "__type" and "__var") as the text "<class>@version=<n>(...)",
// a builtin tuple, set or frozenset as "(a,b)". A serialized object that
// does not decode (a class name that is no string, a version that is no
// int, an empty class name) fails as stringify raises (a 500 in Airflow).
func pyStringify(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			s, err := pyStringify(item)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	case pyDict:
		return pyStringifyDict(x)
	}
	return v, nil // None, bool, number, string
}

// pyStringifyDict is stringify's dict branch: _convert, then a plain
// dict's values stringified, or a serialized object decoded into its text.
func pyStringifyDict(d pyDict) (any, error) {
	converted, isDict := pyConvertOldSerialized(d)
	if !isDict {
		// stringify tests `"__classname__" in o` and calls o.items() on
		// what _convert gave: anything but a dict raises.
		return nil, errors.New("stringify: the old form's __var of type dict is no dict")
	}
	classname, hasClass := converted.lookup("__classname__")
	version, hasVersion := converted.lookup("__version__")
	if !hasClass || !hasVersion {
		out := make(pyDict, len(converted))
		for i, f := range converted {
			s, err := pyStringify(f.val)
			if err != nil {
				return nil, err
			}
			out[i] = pyField{key: f.key, val: s}
		}
		return out, nil
	}
	name, ok := classname.(string)
	if !ok || !pyIsInt(version) {
		return nil, fmt.Errorf("stringify: cannot decode %s", pyReprValue(converted))
	}
	if name == "" {
		return nil, errors.New("stringify: classname cannot be empty")
	}
	if strings.HasPrefix(name, "airflow.") {
		return nil, errStringifyAirflowClass
	}
	data, _ := converted.lookup("__data__")
	items, isList := data.([]any)
	var b strings.Builder
	if isList && (name == "builtins.tuple" || name == "builtins.set" || name == "builtins.frozenset") {
		b.WriteString("(")
		if err := pyJoinStringified(&b, items); err != nil {
			return nil, err
		}
		b.WriteString(")")
		return b.String(), nil
	}
	b.WriteString(name + "@version=" + pyStrValue(version) + "(")
	switch x := data.(type) {
	case string, bool, json.Number:
		b.WriteString(pyStrValue(x))
	case []any:
		if err := pyJoinStringified(&b, x); err != nil {
			return nil, err
		}
	case pyDict:
		for i, f := range x {
			s, err := pyStringify(f.val)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(f.key + "=" + pyStrValue(s))
		}
	}
	b.WriteString(")")
	return b.String(), nil
}

// pyJoinStringified writes ",".join(str(stringify(v)) for v in items).
func pyJoinStringified(b *strings.Builder, items []any) error {
	for i, item := range items {
		s, err := pyStringify(item)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(pyStrValue(s))
	}
	return nil
}

// pyConvertOldSerialized is stringify.py _convert: the old form
// {"__type": t, "__var": v} is v itself for t "dict", else the new form
// of class t, version 0; any other dict is itself. isDict says whether
// the result is a dict.
func pyConvertOldSerialized(d pyDict) (pyDict, bool) {
	typ, hasType := d.lookup("__type")
	data, hasData := d.lookup("__var")
	if !hasType || !hasData {
		return d, true
	}
	if typ == "dict" {
		inner, ok := data.(pyDict)
		return inner, ok
	}
	return pyDict{{key: "__classname__", val: typ}, {key: "__version__", val: json.Number("0")}, {key: "__data__", val: data}}, true
}

// pyIsInt is isinstance(v, int) of a decoded value: an integer number or
// a bool (Python's bool is an int).
func pyIsInt(v any) bool {
	switch x := v.(type) {
	case bool:
		return true
	case json.Number:
		return !strings.ContainsAny(string(x), ".eE")
	}
	return false
}
