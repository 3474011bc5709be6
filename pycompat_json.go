package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyJSON renders values byte for byte as Python's json.dumps does with
// sort_keys=True and ensure_ascii=True, which is what Airflow's JSON responses
// are made of. Go's encoding/json cannot be configured to do that (it never
// escapes all non-ASCII, never sorts struct fields, always uses "," and ":").
type pyJSON struct {
	itemSep string // "," for Flask 1.1 (Airflow 1.10), ", " for Airflow 2
	keySep  string // ":" or ": "
}

var (
	compactJSON = pyJSON{itemSep: ",", keySep: ":"}
	spacedJSON  = pyJSON{itemSep: ", ", keySep: ": "}
)

// marshal renders v. Supported: nil, bool, string, integers, float64,
// json.Number, json.RawMessage, map[string]any, map[string]string, pyObject,
// []any, []string, []map[string]any, []pyObject.
func (p pyJSON) marshal(v any) ([]byte, error) {
	return p.append(make([]byte, 0, 128), v)
}

func (p pyJSON) append(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case prerendered:
		return append(b, x...), nil
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendPyString(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return appendPyFloat(b, x)
	case json.Number:
		return appendPyNumber(b, x)
	case json.RawMessage:
		if x == nil {
			return append(b, "null"...), nil
		}
		decoded, err := decodeJSONValue(x)
		if err != nil {
			return b, err
		}
		return p.append(b, decoded)
	case map[string]any:
		// Small maps (every response row) sort their keys on the stack.
		var stack [32]string
		keys := stack[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, p.itemSep...)
			}
			b = appendPyString(b, k)
			b = append(b, p.keySep...)
			var err error
			if b, err = p.append(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case pyObject:
		for i := 1; i < len(x); i++ {
			if x[i-1].key >= x[i].key {
				return b, fmt.Errorf("render json: key %q after %q: a pyObject's keys must be sorted", x[i].key, x[i-1].key)
			}
		}
		return p.appendFields(b, x)
	case pyDict:
		return p.appendFields(b, x)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = v
		}
		return p.append(b, m)
	case []any:
		return appendPyList(p, b, x)
	case []string:
		return appendPyList(p, b, x)
	case []map[string]any:
		return appendPyList(p, b, x)
	case []pyObject:
		return appendPyList(p, b, x)
	case pyList:
		b = append(b, '[')
		for i := 0; i < x.n; i++ {
			if i > 0 {
				b = append(b, p.itemSep...)
			}
			var err error
			if b, err = p.append(b, x.item(i)); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	default:
		return b, fmt.Errorf("render json: unsupported type %T", v)
	}
}

// appendFields renders an object's fields in the order given.
func (p pyJSON) appendFields(b []byte, fields []pyField) ([]byte, error) {
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, p.itemSep...)
		}
		b = appendPyString(b, f.key)
		b = append(b, p.keySep...)
		var err error
		if b, err = p.append(b, f.val); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendPyList renders a slice as a JSON array, item by item.
func appendPyList[T any](p pyJSON, b []byte, items []T) ([]byte, error) {
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, p.itemSep...)
		}
		start := len(b)
		var err error
		if b, err = p.append(b, item); err != nil {
			return b, err
		}
		if i == 0 && len(items) > 16 {
			// Long lists hold rows of one shape: size the buffer once
			// from the first instead of growing it a quarter at a time.
			b = slices.Grow(b, (len(b)-start+len(p.itemSep))*(len(items)-1)*9/8+1)
		}
	}
	return append(b, ']'), nil
}

// pyList is a JSON array whose items are built one at a time as they are
// rendered (item(i) builds item i), so that a long listing is never held
// as rows, and writeJSON can send it in chunks.
type pyList struct {
	n    int
	item func(i int) any
}

// pyObject is a JSON object built with its keys in sorted order, for the
// large ones (a task instance has 34 keys): no map to fill and no keys to
// sort per response. The encoder refuses keys out of order, so a mistake
// shows in every test of the endpoint.
type pyObject []pyField

type pyField struct {
	key string
	val any
}

// pyDict is a JSON object in the order its keys were given, as Python's
// json.loads keeps them (decodePyJSON) and json.dumps writes them without
// sort_keys.
type pyDict []pyField

// prerendered is JSON already in the encoder's form, written as it is:
// the answers that never change (/test, /info) are rendered once.
type prerendered []byte

// decodeJSONValue decodes raw JSON keeping numbers as json.Number, so that
// integers survive a round trip unchanged: the first value of raw,
// whatever follows it.
func decodeJSONValue(raw []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	return v, nil
}

// jsonPlainLen is the length of s's longest prefix of printable ASCII
// but '"' and '\\': bytes JSON strings hold as they are, for Python's
// encoder and Go's alike. Eight bytes at a time: a test of the word for
// a byte under 0x20, over 0x7e, or equal to '"' or '\\' (the word tests of
// Sean Anderson's Bit Twiddling Hacks, exact about whether such a byte
// exists), where a byte loop made four comparisons a byte (every string
// of a v2 trigger's answer and of its action row's extra).
func jsonPlainLen(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		q, bs := x^'"'*ones, x^'\\'*ones // a zero byte where x has '"', '\\'
		under := (x - 0x20*ones) &^ x    // a high bit where a byte is under 0x20 (and above it)
		over := (x + ones) | x           // a high bit where a byte is over 0x7e (and above it)
		if (under|over|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// appendPyString escapes as Python's ensure_ascii encoder: the two-character
// escapes for " \ \n \r \t \b \f, \u00XX for every other byte outside
// printable ASCII (0x7f included), surrogate pairs above U+FFFF. "/", "<",
// ">" and "&" stay as they are. Invalid UTF-8 becomes U+FFFD.
func appendPyString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	plain := 0 // s[plain:i] is printable ASCII not yet appended: one copy per run
	for i := 0; i < len(s); {
		if n := jsonPlainLen(s[i:]); n > 0 {
			i += n
			continue
		}
		c := s[i]
		b = append(b, s[plain:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		}
		switch c {
		case '"', '\\', '\n', '\r', '\t', '\b', '\f':
			i++
			plain = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		plain = i
		if r > 0xffff {
			r -= 0x10000
			hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
			b = append(b, '\\', 'u', hex[hi>>12&0xf], hex[hi>>8&0xf], hex[hi>>4&0xf], hex[hi&0xf])
			b = append(b, '\\', 'u', hex[lo>>12&0xf], hex[lo>>8&0xf], hex[lo>>4&0xf], hex[lo&0xf])
			continue
		}
		b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	b = append(b, s[plain:]...)
	return append(b, '"')
}

// appendPyNumber renders a JSON number as Python would after json.loads:
// integers keep their digits, anything with a fraction or exponent is a float.
func appendPyNumber(b []byte, n json.Number) ([]byte, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return append(b, '0'), nil
		}
		return append(b, s...), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return b, fmt.Errorf("render json: bad number %q: %w", s, err)
	}
	return appendPyFloat(b, f)
}

// appendPyFloat renders a float as Python's repr: shortest round-trip
// digits, ".0" on integral values, exponent form below 1e-4 and from 1e16.
func appendPyFloat(b []byte, f float64) ([]byte, error) {
	switch {
	case math.IsInf(f, 1):
		return append(b, "Infinity"...), nil
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...), nil
	case math.IsNaN(f):
		return append(b, "NaN"...), nil
	}
	return append(b, pyFloatRepr(f)...), nil
}

func pyFloatRepr(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // e.g. 1.5e-07
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// pyRepr renders a value as Python's str()/repr() of the equivalent Python
// object, which is what Airflow's task and task-instance info endpoints emit.
// pySet marks a value rendered as a Python set (sorted, "set()" when empty).
type pySet []string

// pyTuple marks a value rendered as a Python tuple.
type pyTuple []any

// pyRaw is text that is already in its final form (e.g. "0:05:00").
type pyRaw string

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case pyRaw:
		return string(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return pyQuote(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloatRepr(x)
	case json.Number:
		out, err := appendPyNumber(nil, x)
		if err != nil {
			return string(x)
		}
		return string(out)
	case pySet:
		if len(x) == 0 {
			return "set()"
		}
		items := append([]string(nil), x...)
		sort.Strings(items)
		parts := make([]string, len(items))
		for i, s := range items {
			parts[i] = pyQuote(s)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case pyTuple:
		parts := make([]string, len(x))
		for i, item := range x {
			parts[i] = pyRepr(item)
		}
		if len(parts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = pyQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			parts[i] = pyRepr(item)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		// Python dicts keep insertion order; definitions carry no order, so
		// keys are sorted to keep the output stable.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyQuote(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = v
		}
		return pyRepr(m)
	default:
		return fmt.Sprint(v)
	}
}

// pyQuote is Python's repr of a str: single quotes unless the text holds a
// single quote and no double quote.
func pyQuote(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// appendIndented re-renders compact JSON (compactJSON's output) as
// Python's json.dumps(..., indent=2) writes it: one item per line, two
// spaces per level, ": " between key and value, and empty containers
// kept as [] and {}. connexion writes every stable-API answer this way.
func appendIndented(dst, compact []byte) []byte {
	depth := 0
	newline := func(b []byte) []byte {
		b = append(b, '\n')
		for i := 0; i < depth; i++ {
			b = append(b, ' ', ' ')
		}
		return b
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			// Strings hold no raw quote: appendPyString escapes it, and
			// the only backslash sequences are escapes of one character
			// or \uXXXX.
			j := i + 1
			for j < len(compact) && compact[j] != '"' {
				if compact[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, compact[i:j+1]...)
			i = j
		case '{', '[':
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				dst = append(dst, c, compact[i+1])
				i++
				continue
			}
			dst = append(dst, c)
			depth++
			dst = newline(dst)
		case '}', ']':
			depth--
			dst = newline(dst)
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			dst = newline(dst)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
