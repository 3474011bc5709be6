package main

// Values the stable API shows as Python sees them: JSON decoded into
// Python objects (dict order kept, as json.loads keeps it), then str() of
// the result (an XCom value with stringify) or json.dumps of it (a
// connection's extra, after the secrets masker). And marshmallow's load
// of a body, with its error dictionary.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decodePyJSON decodes JSON as Python's json.loads: objects keep their
// key order (a repeated key keeps its first place and its last value),
// numbers stay json.Number.
// Like json.loads, it refuses anything after the value.
func decodePyJSON(raw []byte) (any, error) {
	// Valid JSON (json.Valid allocates nothing) is read by a scanner over
	// the bytes; json.Decoder's Token costs an interface and a copy per
	// token, about fifty allocations for a trigger's body. Anything else
	// goes through the decoder, so its errors stay what they were.
	// A document checkedDocument reads whole is one json.Valid accepts:
	// read once, where json.Valid's pass cost about as much as the read.
	// Any doubt leaves it to json.Valid and the reads below.
	checked := pyScanner{raw: raw}
	if v, ok := checked.checkedDocument(); ok {
		return v, nil
	}
	if json.Valid(raw) {
		sc := pyScanner{raw: raw}
		return sc.value(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodePyValue(dec)
	if err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decode json: data after the value")
	}
	return v, nil
}

// pyDictBuilder collects an object's fields as json.loads does: a
// repeated key keeps its first place and takes its last value. Small
// objects look a key up in the fields; from pyDictIndexed fields on, an
// index does, so that a body of many distinct keys (a 1 MiB body holds
// about 100,000) costs a map insert a key, not a scan of every key before.
type pyDictBuilder struct {
	fields pyDict
	index  map[string]int
}

const pyDictIndexed = 16

func (b *pyDictBuilder) set(key string, v any) {
	if b.index == nil && len(b.fields) >= pyDictIndexed {
		b.index = make(map[string]int, 2*len(b.fields))
		for i, f := range b.fields {
			if _, seen := b.index[f.key]; !seen {
				b.index[f.key] = i
			}
		}
	}
	i := -1
	if b.index != nil {
		if at, ok := b.index[key]; ok {
			i = at
		}
	} else {
		i = slices.IndexFunc(b.fields, func(f pyField) bool { return f.key == key })
	}
	if i >= 0 {
		b.fields[i].val = v
		return
	}
	if b.index != nil {
		b.index[key] = len(b.fields)
	}
	if b.fields == nil {
		// Room for four fields at once: a body's object usually has a
		// few, and growing from one field made three slices for three.
		b.fields = make(pyDict, 0, 4)
	}
	b.fields = append(b.fields, pyField{key, v})
}

// dict is the object read, never nil.
func (b *pyDictBuilder) dict() pyDict {
	if b.fields == nil {
		return pyDict{}
	}
	return b.fields
}

// pyScanner reads a document json.Valid accepted into decodePyValue's
// values: pyDict (a repeated key keeps its first place and its last
// value), []any (never nil), string, json.Number, bool and nil.
type pyScanner struct {
	raw []byte
	at  int
}

func (sc *pyScanner) space() {
	for sc.at < len(sc.raw) {
		switch sc.raw[sc.at] {
		case ' ', '\t', '\n', '\r':
			sc.at++
		default:
			return
		}
	}
}

func (sc *pyScanner) value() any {
	sc.space()
	switch c := sc.raw[sc.at]; c {
	case '{':
		sc.at++
		var d pyDictBuilder
		for {
			sc.space()
			if sc.raw[sc.at] == '}' {
				sc.at++
				return d.dict()
			}
			if sc.raw[sc.at] == ',' {
				sc.at++
				sc.space()
			}
			key := sc.str()
			sc.space()
			sc.at++ // :
			d.set(key, sc.value())
		}
	case '[':
		sc.at++
		list := []any{}
		for {
			sc.space()
			if sc.raw[sc.at] == ']' {
				sc.at++
				return list
			}
			if sc.raw[sc.at] == ',' {
				sc.at++
			}
			list = append(list, sc.value())
		}
	case '"':
		return sc.str()
	case 't':
		sc.at += len("true")
		return true
	case 'f':
		sc.at += len("false")
		return false
	case 'n':
		sc.at += len("null")
		return nil
	default: // a number
		start := sc.at
		for sc.at < len(sc.raw) && strings.IndexByte("+-.0123456789eE", sc.raw[sc.at]) >= 0 {
			sc.at++
		}
		return json.Number(sc.raw[start:sc.at])
	}
}

// str reads a string at the scanner's place: plain ASCII as it stands,
// anything with an escape or a byte above 0x7f through encoding/json, so
// that escapes and invalid UTF-8 (U+FFFD) read as the decoder reads them.
func (sc *pyScanner) str() string {
	start := sc.at
	plain := true
	sc.at++
	for {
		c := sc.raw[sc.at]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			sc.at++
		} else if c >= 0x80 {
			plain = false
		}
		sc.at++
	}
	sc.at++
	if plain {
		return string(sc.raw[start+1 : sc.at-1])
	}
	var s string
	_ = json.Unmarshal(sc.raw[start:sc.at], &s) // valid: json.Valid read it
	return s
}

// pyCheckedDepth is how deep checkedValue reads: a deeper document is
// left to json.Valid (whose limit is 10,000).
const pyCheckedDepth = 100

// checkedDocument reads a whole document as value does, checking it as
// RFC 8259 (json.Valid's grammar: no check of UTF-8) has it; false when
// it is not, or deeper than pyCheckedDepth.
func (sc *pyScanner) checkedDocument() (any, bool) {
	v, ok := sc.checkedValue(0)
	if !ok {
		return nil, false
	}
	sc.space()
	return v, sc.at == len(sc.raw)
}

// checkedValue is value for bytes not checked before: false where they
// do not continue a JSON value.
func (sc *pyScanner) checkedValue(depth int) (any, bool) {
	sc.space()
	if sc.at >= len(sc.raw) || depth > pyCheckedDepth {
		return nil, false
	}
	switch c := sc.raw[sc.at]; c {
	case '{':
		sc.at++
		var b pyDictBuilder
		for first := true; ; first = false {
			sc.space()
			if sc.at >= len(sc.raw) {
				return nil, false
			}
			if sc.raw[sc.at] == '}' { // at the start or after a value; after a ',' a key is read below
				sc.at++
				return b.dict(), true
			}
			if !first {
				if sc.raw[sc.at] != ',' {
					return nil, false
				}
				sc.at++
				sc.space()
			}
			if sc.at >= len(sc.raw) || sc.raw[sc.at] != '"' {
				return nil, false
			}
			key, ok := sc.checkedStr()
			if !ok {
				return nil, false
			}
			sc.space()
			if sc.at >= len(sc.raw) || sc.raw[sc.at] != ':' {
				return nil, false
			}
			sc.at++
			v, ok := sc.checkedValue(depth + 1)
			if !ok {
				return nil, false
			}
			b.set(key, v)
		}
	case '[':
		sc.at++
		list := []any{}
		for first := true; ; first = false {
			sc.space()
			if sc.at >= len(sc.raw) {
				return nil, false
			}
			if sc.raw[sc.at] == ']' { // at the start or after a value; after a ',' a value is read below
				sc.at++
				return list, true
			}
			if !first {
				if sc.raw[sc.at] != ',' {
					return nil, false
				}
				sc.at++
			}
			v, ok := sc.checkedValue(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
		}
	case '"':
		return sc.checkedStr()
	case 't':
		return true, sc.literal("true")
	case 'f':
		return false, sc.literal("false")
	case 'n':
		return nil, sc.literal("null")
	default:
		return sc.checkedNumber()
	}
}

// literal reads word at the scanner's place.
func (sc *pyScanner) literal(word string) bool {
	if len(sc.raw)-sc.at < len(word) || string(sc.raw[sc.at:sc.at+len(word)]) != word {
		return false
	}
	sc.at += len(word)
	return true
}

// checkedNumber reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (sc *pyScanner) checkedNumber() (any, bool) {
	start := sc.at
	digits := func() int {
		n := 0
		for sc.at < len(sc.raw) && sc.raw[sc.at] >= '0' && sc.raw[sc.at] <= '9' {
			sc.at++
			n++
		}
		return n
	}
	if sc.at < len(sc.raw) && sc.raw[sc.at] == '-' {
		sc.at++
	}
	if sc.at < len(sc.raw) && sc.raw[sc.at] == '0' {
		sc.at++
	} else if digits() == 0 {
		return nil, false
	}
	if sc.at < len(sc.raw) && sc.raw[sc.at] == '.' {
		sc.at++
		if digits() == 0 {
			return nil, false
		}
	}
	if sc.at < len(sc.raw) && (sc.raw[sc.at] == 'e' || sc.raw[sc.at] == 'E') {
		sc.at++
		if sc.at < len(sc.raw) && (sc.raw[sc.at] == '+' || sc.raw[sc.at] == '-') {
			sc.at++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return json.Number(sc.raw[start:sc.at]), true
}

// checkedStr is str for bytes not checked before: false for a string
// that does not end, or holds a control character or an escape JSON
// does not have.
func (sc *pyScanner) checkedStr() (string, bool) {
	start := sc.at
	plain := true
	sc.at++
	for {
		if sc.at >= len(sc.raw) {
			return "", false
		}
		c := sc.raw[sc.at]
		switch {
		case c == '"':
			sc.at++
			if plain {
				return pyName(sc.raw[start+1 : sc.at-1]), true
			}
			var s string
			_ = json.Unmarshal(sc.raw[start:sc.at], &s) // checked: the decoder reads it
			return s, true
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		case c == '\\':
			plain = false
			sc.at++
			if sc.at >= len(sc.raw) {
				return "", false
			}
			switch sc.raw[sc.at] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if sc.at+4 >= len(sc.raw) {
					return "", false
				}
				for _, h := range sc.raw[sc.at+1 : sc.at+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return "", false
					}
				}
				sc.at += 4
			default:
				return "", false
			}
		}
		sc.at++
	}
}

// pyName is b as a string, without a copy for the field names of the
// run triggers' bodies (TriggerDAGRunPostBody, /api/v1's DAGRun): three
// of a v2 trigger's 18 allocations to read its body were its keys.
func pyName(b []byte) string {
	switch string(b) { // compared, not copied
	case "conf":
		return "conf"
	case "logical_date":
		return "logical_date"
	case "dag_run_id":
		return "dag_run_id"
	case "run_after":
		return "run_after"
	case "note":
		return "note"
	case "data_interval_start":
		return "data_interval_start"
	case "data_interval_end":
		return "data_interval_end"
	case "partition_key":
		return "partition_key"
	case "execution_date":
		return "execution_date"
	}
	return string(b)
}

// plainOf is the generic form of a decodePyJSON value, as encoding/json's
// Decode into an any makes it: objects as map[string]any (a repeated key's
// last value), arrays as []any, both never nil.
func plainOf(v any) any {
	switch x := v.(type) {
	case pyDict:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.key] = plainOf(f.val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = plainOf(item)
		}
		return out
	}
	return v
}

func decodePyValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var d pyDictBuilder
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodePyValue(dec)
				if err != nil {
					return nil, err
				}
				d.set(key, v)
			}
			_, err := dec.Token() // }
			return d.dict(), err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodePyValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ]
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil // nil, bool, string, json.Number
	}
}

// pyStrValue is Python's str() of a decoded value.
func pyStrValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyReprValue(v)
}

// pyReprValue is Python's repr() of a decoded value: dicts in their
// order, a JSON number as the int or float json.loads makes of it.
func pyReprValue(v any) string {
	switch x := v.(type) {
	case pyDict:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = pyQuote(f.key) + ": " + pyReprValue(f.val)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			parts[i] = pyReprValue(item)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case json.Number:
		return pyNumberRepr(x)
	default:
		return pyRepr(v)
	}
}

// pyNumberRepr is the repr of the int or float json.loads reads.
func pyNumberRepr(n json.Number) string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, ok := new(big.Int).SetString(s, 10); ok {
			return i.String() // "-0" is 0
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // out of range: Python reads inf
		if strings.HasPrefix(s, "-") {
			return "-inf"
		}
		return "inf"
	}
	return pyFloatRepr(f)
}

// pyDumps is json.dumps of a value decodePyJSON made (or one secretsMasker.redact
// made of it) with Python's defaults: ", " and ": ", ASCII only, dict
// order kept. Such values always render; one that does not is a bug,
// answered as an error.
func pyDumps(v any) (string, error) {
	// Written into a pooled buffer: the string is the one copy kept (an
	// action log row's extra is dumped at every logged request).
	buf := v2Buffers.Get().(*bytes.Buffer)
	defer releaseV2Buffer(buf)
	out, err := spacedJSON.append(buf.AvailableBuffer(), v)
	if err != nil {
		return "", fmt.Errorf("dump decoded json: %w", err)
	}
	if cap(out) > buf.Cap() {
		buf.Write(out) // the buffer keeps the room this dump took
	}
	return string(out), nil
}

// mmField is one field of a marshmallow schema, for loading a body.
type mmField struct {
	name      string // the key in the body
	attr      string // the attribute it loads into; name when empty
	kind      string // "string" (when empty), "integer" or "boolean"
	required  bool
	allowNone bool
	maxLen    int // a Length(max=…) validator; 0 for none
}

// marshmallowLoad is Schema.load of a body: each field in the schema's
// order (missing, null, type, length), then the keys the schema does not
// know, sorted. It returns the loaded attributes, or the error
// dictionary as Python prints it.
func marshmallowLoad(body map[string]any, fields []mmField, partial bool) (map[string]any, string) {
	data := map[string]any{}
	var errs []string
	fail := func(name, msg string) { errs = append(errs, pyQuote(name)+": ["+pyQuote(msg)+"]") }
	for _, f := range fields {
		attr := f.attr
		if attr == "" {
			attr = f.name
		}
		v, ok := body[f.name]
		switch {
		case !ok:
			if f.required && !partial {
				fail(f.name, "Missing data for required field.")
			}
			continue
		case v == nil:
			if !f.allowNone {
				fail(f.name, "Field may not be null.")
				continue
			}
			data[attr] = nil
			continue
		}
		switch f.kind {
		case "boolean":
			b, isBool := v.(bool)
			if !isBool {
				fail(f.name, "Not a valid boolean.")
				continue
			}
			data[attr] = b
		case "integer":
			n, isNum := v.(json.Number)
			i, err := n.Int64()
			if !isNum || err != nil {
				fail(f.name, "Not a valid integer.")
				continue
			}
			data[attr] = i
		default:
			s, isStr := v.(string)
			if !isStr {
				fail(f.name, "Not a valid string.")
				continue
			}
			if f.maxLen > 0 && len([]rune(s)) > f.maxLen {
				fail(f.name, fmt.Sprintf("Longer than maximum length %d.", f.maxLen))
				continue
			}
			data[attr] = s
		}
	}
	var unknown []string
	for k := range body {
		if !slices.ContainsFunc(fields, func(f mmField) bool { return f.name == k }) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		fail(k, "Unknown field.")
	}
	if len(errs) > 0 {
		return nil, "{" + strings.Join(errs, ", ") + "}"
	}
	return data, ""
}

// updateMaskFields is the update_mask parameter as connexion reads it
// (style form, explode false): the last value, split at commas.
func updateMaskFields(q v1Values) []string {
	s, ok := q.str("update_mask")
	if !ok || s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// extractUpdateMask is Airflow's extract_update_mask_data: each field of
// the mask, stripped, must be loaded and updatable.
func extractUpdateMask(mask, nonUpdate []string, data map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, field := range mask {
		field = strings.TrimSpace(field)
		if _, ok := data[field]; !ok || slices.Contains(nonUpdate, field) {
			return nil, v1BadRequest(fmt.Sprintf("'%s' is unknown or cannot be updated.", field))
		}
		out[field] = data[field]
	}
	return out, nil
}

// mmDateTimeRe is the ISO 8601 form marshmallow 3.23's fields.DateTime
// reads by default (utils.py:121 _iso8601_datetime_re): a space may stand
// for the "T", seconds and offset are optional, an offset may lack its
// colon. Python's "$" also matches before a final newline.
var mmDateTimeRe = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d{0,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?\n?$`)

// mmDateTime is marshmallow's DateTime load of a string (utils.py:146
// from_iso_datetime, then datetime()'s range checks): ok false is "Not a
// valid datetime."; naive reports a value without an offset.
func mmDateTime(s string) (t time.Time, naive, ok bool) {
	m := mmDateTimeRe.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false, false
	}
	num := func(i int) int {
		n, _ := strconv.Atoi(m[i])
		return n
	}
	year, month, day, hour, minute, second := num(1), num(2), num(3), num(4), num(5), num(6)
	micro := 0
	if m[7] != "" {
		micro, _ = strconv.Atoi((m[7] + "00000")[:6])
	}
	if year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, false, false
	}
	if day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return time.Time{}, false, false
	}
	loc := time.UTC
	switch tz := m[8]; {
	case tz == "":
		naive = true
	case tz != "Z":
		offset := 60 * (int(tz[1]-'0')*10 + int(tz[2]-'0'))
		if len(tz) > 3 {
			offset += int(tz[len(tz)-2]-'0')*10 + int(tz[len(tz)-1]-'0')
		}
		if offset >= 24*60 { // datetime.timezone refuses a day or more
			return time.Time{}, false, false
		}
		if tz[0] == '-' {
			offset = -offset
		}
		loc = time.FixedZone("", offset*60)
	}
	t = time.Date(year, time.Month(month), day, hour, minute, second, micro*1000, loc).UTC()
	return t, naive, true
}
