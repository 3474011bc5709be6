package main

// Airflow's macros module in templates: {{ macros.ds_add(ds, 7) }},
// {{ macros.timedelta(days=1) }}, {{ macros.datetime.now() }}... What the
// module holds is the release's (Airflow 2.10.3 airflow/macros/__init__.py:20-30,
// 1.10.15 airflow/macros/__init__.py:20-26); the clock is airlite's, so
// --clock fake moves macros.datetime.now() and macros.time.time() too.
//
// Every function here is a plain function of its arguments (or of the
// server's clock and randomness): a call on a request value is a request
// value by isStaticPrint's rule, so it reaches bash as data only.

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	mathrand "math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// templateMacros is the macros module of a render.
type templateMacros struct {
	// now is the server's clock.
	now func() time.Time
	// json: the release's module imports json (Airflow 2 only).
	json bool
}

// Whether the release's macros module imports json: Airflow 2.10.3
// airflow/macros/__init__.py:20 does (templateVars2), 1.10.15's lines
// 20-26 do not (templateVars110).
const (
	withJSON    = true
	withoutJSON = false
)

// macros is the context's macros module.
func (c templateContext) macros(json bool) templateMacros {
	now := c.now
	if now == nil {
		now = time.Now
	}
	return templateMacros{now: now, json: json}
}

func (m templateMacros) pyStr() string { return "<module 'airflow.macros'>" }

func (m templateMacros) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "ds_add":
		// Airflow 2.10.3 airflow/macros/__init__.py:47 ds_add(ds, days)
		return exec.AsValue(func(ds string, days int) (string, error) {
			t, err := time.Parse("2006-01-02", ds)
			if err != nil {
				return "", fmt.Errorf("ValueError: time data %s does not match format '%%Y-%%m-%%d'", pyQuote(ds))
			}
			return t.AddDate(0, 0, days).Format("2006-01-02"), nil
		}), true
	case "ds_format":
		// Airflow 2.10.3 airflow/macros/__init__.py:65 ds_format(ds, input_format, output_format)
		return exec.AsValue(func(ds, input, output string) (string, error) {
			t, err := strptime(ds, input)
			if err != nil {
				return "", err
			}
			return strftime(t, output), nil
		}), true
	case "datetime":
		return exec.AsValue(templateDatetimeClass{now: m.now}), true
	case "timedelta":
		return exec.AsValue(makeTimedelta), true
	case "time":
		return exec.AsValue(templateTimeModule{now: m.now}), true
	case "dateutil":
		return exec.AsValue(templateDateutilModule{}), true
	case "uuid":
		return exec.AsValue(templateUUIDModule{}), true
	case "random":
		// from random import random: the function itself.
		return exec.AsValue(func() float64 { return mathrand.Float64() }), true
	case "json":
		if m.json {
			return exec.AsValue(templateJSONModule{}), true
		}
		// Found as an error, so that using it fails naming it, in 1.10's
		// lenient templates too.
		return exec.AsValue(fmt.Errorf("AttributeError: module 'airflow.macros' has no attribute 'json'")), true
	}
	return exec.AsValue(fmt.Errorf("module 'airflow.macros' has no attribute '%s'", name)), false
}

// templateDatetimeClass is Python's datetime class as macros.datetime.
type templateDatetimeClass struct{ now func() time.Time }

func (d templateDatetimeClass) pyStr() string { return "<class 'datetime.datetime'>" }

func (d templateDatetimeClass) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "now", "utcnow":
		// A naive datetime, as Python's, in UTC (airlite's time zone).
		return exec.AsValue(func() any { return naiveDateTime{d.now().UTC().Truncate(time.Microsecond)} }), true
	case "strptime":
		return exec.AsValue(func(value, format string) (any, error) {
			t, err := strptime(value, format)
			if err != nil {
				return nil, err
			}
			return naiveDateTime{t}, nil
		}), true
	}
	return exec.AsValue(fmt.Errorf("type object 'datetime.datetime' has no attribute '%s'", name)), false
}

// templateTimeModule is Python's time module: time() only.
type templateTimeModule struct{ now func() time.Time }

func (m templateTimeModule) pyStr() string { return "<module 'time' (built-in)>" }

func (m templateTimeModule) GetAttribute(name string) (*exec.Value, bool) {
	if name == "time" {
		return exec.AsValue(func() float64 { return float64(m.now().UnixMicro()) / 1e6 }), true
	}
	return exec.AsValue(fmt.Errorf("module 'time' has no attribute '%s' in airlite", name)), false
}

// templateDateutilModule is the dateutil package: relativedelta only
// (macros.dateutil.relativedelta.relativedelta(months=1)).
type templateDateutilModule struct{}

func (templateDateutilModule) pyStr() string { return "<module 'dateutil'>" }

func (templateDateutilModule) GetAttribute(name string) (*exec.Value, bool) {
	if name == "relativedelta" {
		return exec.AsValue(templateRelativedeltaModule{}), true
	}
	return exec.AsValue(fmt.Errorf("module 'dateutil' has no attribute '%s' in airlite", name)), false
}

// templateRelativedeltaModule is dateutil.relativedelta.
type templateRelativedeltaModule struct{}

func (templateRelativedeltaModule) pyStr() string { return "<module 'dateutil.relativedelta'>" }

func (templateRelativedeltaModule) GetAttribute(name string) (*exec.Value, bool) {
	if name == "relativedelta" {
		return exec.AsValue(makeRelativedelta), true
	}
	return exec.AsValue(fmt.Errorf("module 'dateutil.relativedelta' has no attribute '%s' in airlite", name)), false
}

// templateUUIDModule is Python's uuid module: uuid4() only.
type templateUUIDModule struct{}

func (templateUUIDModule) pyStr() string { return "<module 'uuid'>" }

func (templateUUIDModule) GetAttribute(name string) (*exec.Value, bool) {
	if name == "uuid4" {
		return exec.AsValue(func() (any, error) {
			var u templateUUID
			if _, err := rand.Read(u[:]); err != nil {
				return nil, fmt.Errorf("read random: %w", err)
			}
			u[6] = u[6]&0x0f | 0x40 // version 4
			u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
			return u, nil
		}), true
	}
	return exec.AsValue(fmt.Errorf("module 'uuid' has no attribute '%s' in airlite", name)), false
}

// templateUUID is a uuid.UUID: str() with hyphens, .hex without.
type templateUUID [16]byte

func (u templateUUID) pyStr() string {
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (u templateUUID) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "hex":
		return exec.AsValue(hex.EncodeToString(u[:])), true
	case "version":
		return exec.AsValue(int(u[6] >> 4)), true
	}
	return exec.AsValue(fmt.Errorf("'UUID' object has no attribute '%s'", name)), false
}

// templateJSONModule is Python's json module: dumps and loads.
type templateJSONModule struct{}

func (templateJSONModule) pyStr() string { return "<module 'json'>" }

func (templateJSONModule) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "dumps":
		return exec.AsValue(pyJSONDumps), true
	case "loads":
		return exec.AsValue(func(text string) (any, error) {
			v, err := decodeJSONValue([]byte(text))
			if err != nil {
				return nil, fmt.Errorf("JSONDecodeError: %w", err)
			}
			return templateJSON(v), nil
		}), true
	}
	return exec.AsValue(fmt.Errorf("module 'json' has no attribute '%s' in airlite", name)), false
}

// pyJSONDumps is json.dumps(obj, indent=None, sort_keys=False) with
// Python's defaults otherwise (ensure_ascii, ", " and ": "). airlite's
// dicts do not keep the order of their keys: they come out sorted.
func pyJSONDumps(args *exec.VarArgs) (string, error) {
	bound, err := bindPyArgs("dumps", args, []string{"obj", "indent", "sort_keys"})
	if err != nil {
		return "", err
	}
	obj, ok := bound["obj"]
	if !ok {
		return "", fmt.Errorf("TypeError: dumps() missing 1 required positional argument: 'obj'")
	}
	indent := -1
	if v, ok := bound["indent"]; ok && !v.IsNil() && !isPyNone(v) {
		switch {
		case v.IsInteger():
			indent = max(v.Integer(), 0)
		case v.IsString():
			return "", fmt.Errorf("TypeError: json.dumps indent as a string is not supported by airlite")
		default:
			return "", fmt.Errorf("TypeError: indent must be an int, not %s", pyTypeName(v))
		}
	}
	var b strings.Builder
	if err := appendPyJSONValue(&b, obj, indent, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

// appendPyJSONValue writes a template value as Python's json.dumps does.
// It is not pyJSON (pycompat_json.go), which renders airlite's answers: it walks
// gonja's values, takes indent, and writes NaN and Infinity as Python's
// allow_nan default does.
func appendPyJSONValue(b *strings.Builder, v *exec.Value, indent, depth int) error {
	if depth > 100 {
		return fmt.Errorf("RecursionError: the value nests too deeply for json.dumps")
	}
	newline := func(level int) {
		if indent >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*level))
		}
	}
	itemSep := ", "
	if indent >= 0 {
		itemSep = ","
	}
	if _, ok := v.Interface().(pyStringer); ok && !isPyNone(v) {
		return fmt.Errorf("TypeError: Object of type %s is not JSON serializable", pyTypeName(v))
	}
	switch {
	case v.IsNil() || isPyNone(v):
		b.WriteString("null")
	case v.IsBool():
		b.WriteString(strconv.FormatBool(v.Bool()))
	case v.IsInteger():
		b.WriteString(strconv.Itoa(v.Integer()))
	case v.IsFloat():
		f := v.Float()
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyFloatRepr(f))
		}
	case v.IsString():
		b.Write(appendPyString(nil, v.String()))
	case v.IsList():
		var items []*exec.Value
		v.Iterate(func(_, _ int, item, _ *exec.Value) bool { items = append(items, item); return true }, func() {})
		if len(items) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, item := range items {
			if i > 0 {
				b.WriteString(itemSep)
			}
			newline(depth + 1)
			if err := appendPyJSONValue(b, item, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
	case v.IsDict():
		type pair struct{ key, item *exec.Value }
		var pairs []pair
		v.Iterate(func(_, _ int, key, item *exec.Value) bool { pairs = append(pairs, pair{key, item}); return true }, func() {})
		if len(pairs) == 0 {
			b.WriteString("{}")
			return nil
		}
		sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].key.String() < pairs[j].key.String() })
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteString(itemSep)
			}
			newline(depth + 1)
			if !p.key.IsString() {
				return fmt.Errorf("TypeError: json.dumps of a dict with %s keys is not supported by airlite", pyTypeName(p.key))
			}
			b.Write(appendPyString(nil, p.key.String()))
			b.WriteString(": ")
			if err := appendPyJSONValue(b, p.item, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	default:
		return fmt.Errorf("TypeError: Object of type %s is not JSON serializable", pyTypeName(v))
	}
	return nil
}
