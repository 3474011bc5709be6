package main

// XCom values as a template pulls them in editions 2 and 3: Airflow
// stores what serde makes of a tuple, a set, a datetime ...
// (python/airlite_serde.py; 3.2.1's Task SDK for every value, 2.10.3's
// XComEncoder for what json cannot write) and ti.xcom_pull gives the
// object back (3.2.1 task-sdk bases/xcom.py deserialize_value, 2.10.3
// utils/json.py XComDecoder: serde deserialize), so Jinja prints str() of
// the object and not its encoded form.

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// templateSet is a set (or a frozenset) a template holds: its items in
// the stored order, which is the set's iteration order at the push.
type templateSet struct {
	items  []any
	frozen bool
}

func (s templateSet) pyStr() string {
	if len(s.items) == 0 {
		if s.frozen {
			return "frozenset()"
		}
		return "set()"
	}
	parts := make([]string, len(s.items))
	for i, item := range s.items {
		parts[i] = templateRepr(exec.AsValue(item))
	}
	body := "{" + strings.Join(parts, ", ") + "}"
	if s.frozen {
		return "frozenset(" + body + ")"
	}
	return body
}

// templateDecimal is a decimal.Decimal: str() its text, repr() Decimal('text').
type templateDecimal string

func (d templateDecimal) pyStr() string  { return string(d) }
func (d templateDecimal) pyRepr() string { return "Decimal(" + pyQuote(string(d)) + ")" }

// pyRepr is repr() of a uuid.UUID: UUID('text').
func (u templateUUID) pyRepr() string { return "UUID(" + pyQuote(u.pyStr()) + ")" }

// pyReprer is a template value whose repr() (inside a container) differs
// from its str().
type pyReprer interface{ pyRepr() string }

// pulledSerdeValue is a stored XCom value as Airflow 3.2.1's ti.xcom_pull
// gives it to a template.
func pulledSerdeValue(e *XComEntry) (any, error) {
	v, err := decodeJSONValue(e.Value)
	if err != nil {
		return nil, fmt.Errorf("read xcom %s of %s: %w", e.Key, e.TaskID, err)
	}
	out, err := serdeTemplateValue(v)
	if err != nil {
		return nil, fmt.Errorf("read xcom %s of %s: %w", e.Key, e.TaskID, err)
	}
	return out, nil
}

// serdeTemplateValue is serde.deserialize of a decoded value, into
// template values: plain JSON as json.loads gives it, the registered
// classes as their objects, any other class refused as 3.2.1's default
// allow list ([core] allowed_deserialization_classes = airflow.*) and
// airlite's lack of Airflow's classes refuse it.
func serdeTemplateValue(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			var err error
			if out[i], err = serdeTemplateValue(item); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		return serdeTemplateDict(x)
	}
	return templateJSON(v), nil
}

func serdeTemplateDict(d map[string]any) (any, error) {
	// serde _convert: the old {"__type", "__var"} form.
	if typ, ok := d["__type"]; ok {
		if data, ok := d["__var"]; ok {
			if typ == "dict" {
				return serdeTemplateValue(data)
			}
			d = map[string]any{"__classname__": typ, "__version__": json.Number("0"), "__data__": data}
		}
	}
	classname, hasClass := d["__classname__"]
	version, hasVersion := d["__version__"]
	if !hasClass || !hasVersion {
		out := make(map[string]any, len(d))
		for k, item := range d {
			var err error
			if out[k], err = serdeTemplateValue(item); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	name, ok := classname.(string)
	n, isInt := version.(json.Number)
	if !ok || !isInt || !pyIsInt(n) {
		return nil, fmt.Errorf("ValueError: cannot decode %s", pyReprValue(d))
	}
	if name == "" {
		return nil, errors.New("TypeError: classname cannot be empty")
	}
	data, err := serdeTemplateValue(d["__data__"])
	if err != nil {
		return nil, err
	}
	return serdeObject(name, n, data)
}

// serdeObject is a registered deserializer's object (serializers/
// builtin.py, datetime.py, bignum.py, uuid.py), data already read.
func serdeObject(name string, version json.Number, data any) (any, error) {
	v, _ := version.Int64()
	switch name {
	case "builtins.tuple", "builtins.set", "builtins.frozenset":
		items, ok := data.([]any)
		if !ok || v > 1 {
			return nil, fmt.Errorf("TypeError: cannot deserialize %s from %s", name, pyReprValue(data))
		}
		switch name {
		case "builtins.tuple":
			return pyTuple(items), nil
		case "builtins.set":
			return templateSet{items: items}, nil
		}
		return templateSet{items: items, frozen: true}, nil
	case "datetime.datetime", "pendulum.datetime.DateTime":
		return serdeDateTime(name, v, data)
	case "datetime.date", "pendulum.date.Date":
		text, ok := data.(string)
		if !ok {
			return nil, fmt.Errorf("TypeError: unknown date/time format %s", name)
		}
		day, err := time.Parse(time.DateOnly, text)
		if err != nil {
			return nil, fmt.Errorf("ValueError: Invalid isoformat string: %s", pyQuote(text))
		}
		return templateDay{t: day}, nil
	case "datetime.timedelta":
		seconds, ok := serdeSeconds(data)
		if !ok {
			return nil, fmt.Errorf("TypeError: unknown date/time format %s", name)
		}
		us := math.RoundToEven(seconds * 1e6)
		if math.Abs(us) > 9.2e18 {
			return nil, errTimedeltaRange
		}
		return newTimedelta(int64(us))
	case "decimal.Decimal":
		text, ok := serdeNumberText(data)
		if !ok || v > 1 {
			return nil, fmt.Errorf("TypeError: cannot deserialize decimal.Decimal from %s", pyReprValue(data))
		}
		return templateDecimal(pyDecimalStr(text)), nil
	case "uuid.UUID":
		text, ok := data.(string)
		raw, err := hex.DecodeString(strings.ReplaceAll(text, "-", ""))
		if !ok || err != nil || len(raw) != 16 {
			return nil, fmt.Errorf("TypeError: cannot deserialize uuid.UUID from %s", pyReprValue(data))
		}
		return templateUUID(raw), nil
	}
	return nil, fmt.Errorf("ImportError: %s was not found in allow list for deserialization imports. "+
		"To allow it, add it to allowed_deserialization_classes in the configuration", name)
}

// serdeDateTime is serializers/datetime.py deserialize of a datetime:
// fromtimestamp in the zone its tz names (version 2: a (name or offset,
// class, version, True) tuple; version 1: the name), naive in the local
// zone without one.
func serdeDateTime(name string, version int64, data any) (any, error) {
	fields, ok := data.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("TypeError: unknown date/time format %s", name)
	}
	seconds, ok := serdeSeconds(fields["timestamp"])
	if !ok {
		return nil, fmt.Errorf("TypeError: unknown date/time format %s", name)
	}
	whole, frac := math.Modf(seconds)
	t := time.Unix(int64(whole), int64(math.RoundToEven(frac*1e6))*1000)
	zone := fields["tz"]
	if version >= 2 {
		if tuple, ok := zone.(pyTuple); ok && len(tuple) >= 1 {
			zone = tuple[0]
		}
	}
	switch z := zone.(type) {
	case nil, pythonNone:
		return naiveDateTime{t: t.In(time.Local)}, nil
	case int:
		return templateDate{t: t.In(time.FixedZone("", z)), sep: ' '}, nil
	case string:
		loc, err := time.LoadLocation(z)
		if err != nil {
			return nil, fmt.Errorf("InvalidTimezone: %s", pyQuote(z))
		}
		return templateDate{t: t.In(loc), sep: ' '}, nil
	}
	return nil, fmt.Errorf("TypeError: %s is not of type int or str", pyReprValue(zone))
}

// serdeSeconds is float() of a decoded number (or numeric string).
func serdeSeconds(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// serdeNumberText is str() of a decoded number, as Python writes it.
func serdeNumberText(v any) (string, bool) {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), true
	case float64:
		return pyFloatRepr(x), true
	case string:
		return x, true
	}
	return "", false
}

// pyDecimalStr is str(Decimal(text)) of a number's text: its digits and
// exponent in Decimal's to-sci-string form (plain unless the exponent is
// positive or the number is below 1e-6).
func pyDecimalStr(text string) string {
	sign := ""
	if strings.HasPrefix(text, "-") {
		sign, text = "-", text[1:]
	}
	mantissa, expText, _ := strings.Cut(strings.ToLower(text), "e")
	exp := 0
	if expText != "" {
		n, err := strconv.Atoi(expText)
		if err != nil {
			return sign + text
		}
		exp = n
	}
	intPart, fracPart, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(intPart+fracPart, "0")
	exp -= len(fracPart)
	if digits == "" {
		digits = "0"
	}
	left := exp + len(digits)
	dot := 1
	if exp <= 0 && left > -6 {
		dot = left
	}
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case dot <= 0:
		b.WriteString("0." + strings.Repeat("0", -dot) + digits)
	case dot >= len(digits):
		b.WriteString(digits + strings.Repeat("0", dot-len(digits)))
	default:
		b.WriteString(digits[:dot] + "." + digits[dot:])
	}
	if left != dot {
		fmt.Fprintf(&b, "E%+d", left-dot)
	}
	return b.String()
}
