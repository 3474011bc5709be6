package main

// One pass over a JSON document into Python's ordered form (pyDict), for
// the bodies the stable API reads twice: connexion's checks and the
// handler read the body as a generic value, the action log's extra as
// json.loads orders it. encoding/json's token stream, which decodePyJSON
// uses for anything unusual, costs an allocation per token; this scanner
// takes the common case, a well-formed document and nothing after it,
// and says when it cannot vouch for its input, so that the callers keep
// encoding/json's answers (its errors, its reading of trailing data) for
// everything else.

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// maxScanDepth bounds the scanner's recursion; deeper documents go to
// encoding/json, whose own limit and errors then apply.
const maxScanDepth = 200

// scanPyJSON reads raw as exactly one JSON value between JSON
// whitespace, in decodePyJSON's form: objects as pyDict (a repeated key
// keeps its first place and its last value), numbers as json.Number. ok is
// false when raw is anything else (a syntax error, trailing data, invalid
// UTF-8, or nesting deeper than maxScanDepth): the caller then decodes
// with encoding/json, which has the last word on such input.
func scanPyJSON(raw []byte) (v any, ok bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	s := jsonScanner{src: raw}
	s.skipSpace()
	v, ok = s.value(0)
	if !ok {
		return nil, false
	}
	s.skipSpace()
	return v, s.pos == len(raw)
}

// plainOf is the generic form of a scanned value, as encoding/json's
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

type jsonScanner struct {
	src []byte
	pos int
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) value(depth int) (any, bool) {
	if s.pos >= len(s.src) || depth > maxScanDepth {
		return nil, false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		str, ok := s.str()
		return str, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	}
	return nil, false
}

func (s *jsonScanner) object(depth int) (any, bool) {
	s.pos++ // {
	// Room for a request body's few keys, so that it is not regrown.
	d := make(pyDict, 0, 4)
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return d, true
	}
	for {
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return nil, false
		}
		key, ok := s.key()
		if !ok {
			return nil, false
		}
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, false
		}
		s.pos++
		s.skipSpace()
		v, ok := s.value(depth + 1)
		if !ok {
			return nil, false
		}
		if i := slices.IndexFunc(d, func(f pyField) bool { return f.key == key }); i >= 0 {
			d[i].val = v
		} else {
			d = append(d, pyField{key, v})
		}
		s.skipSpace()
		if s.pos >= len(s.src) {
			return nil, false
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case '}':
			s.pos++
			return d, true
		default:
			return nil, false
		}
	}
}

func (s *jsonScanner) array(depth int) (any, bool) {
	s.pos++ // [
	list := []any{}
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return list, true
	}
	for {
		v, ok := s.value(depth + 1)
		if !ok {
			return nil, false
		}
		list = append(list, v)
		s.skipSpace()
		if s.pos >= len(s.src) {
			return nil, false
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case ']':
			s.pos++
			return list, true
		default:
			return nil, false
		}
	}
}

// str reads a string. Without escapes its bytes are the value (the input
// is valid UTF-8); with escapes encoding/json unquotes it, so that its
// reading of \u escapes and surrogates is the one that counts.
func (s *jsonScanner) str() (string, bool) {
	start := s.pos
	s.pos++ // "
	escaped := false
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == '"':
			s.pos++
			if !escaped {
				return string(s.src[start+1 : s.pos-1]), true
			}
			var out string
			if err := json.Unmarshal(s.src[start:s.pos], &out); err != nil {
				return "", false
			}
			return out, true
		case c == '\\':
			escaped = true
			s.pos += 2 // the escaped byte is never the closing quote
		case c < 0x20:
			return "", false
		default:
			s.pos++
		}
	}
	return "", false
}

// key reads an object's key: one of the stable API's body fields is
// that field's name, shared rather than allocated for every request.
func (s *jsonScanner) key() (string, bool) {
	start := s.pos
	if end := bytes.IndexByte(s.src[start+1:], '"'); end >= 0 {
		if name, known := bodyFieldNames[string(s.src[start+1:start+1+end])]; known {
			s.pos = start + end + 2
			return name, true
		}
	}
	return s.str()
}

// bodyFieldNames are the properties of the stable API's request bodies,
// each mapped to itself. A name holds no quote, backslash or control
// character, so the text up to the next quote is the whole key.
var bodyFieldNames = func() map[string]string {
	names := map[string]string{}
	for _, schema := range []bodySchema{dagBodySchema, connectionBodySchema, createDatasetEventSchema,
		roleBodySchema, userBodySchema, poolBodySchema, listRunsFormSchema, postRunSchema, updateRunStateSchema,
		clearRunSchema, setRunNoteSchema, setTINoteSchema, listTIsFormSchema, patchTISchema, setTIsStateSchema,
		clearTIsSchema, variableBodySchema} {
		for _, p := range schema {
			names[p.name] = p.name
		}
	}
	return names
}()

// number reads a number by JSON's grammar, which must end at a delimiter.
func (s *jsonScanner) number() (any, bool) {
	start := s.pos
	if s.src[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.src) && s.src[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return nil, false
	}
	if s.pos < len(s.src) && s.src[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return nil, false
		}
	}
	if s.pos < len(s.src) && (s.src[s.pos] == 'e' || s.src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.src) && (s.src[s.pos] == '+' || s.src[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	if !s.atDelimiter() {
		return nil, false
	}
	return json.Number(s.src[start:s.pos]), true
}

func (s *jsonScanner) digits() int {
	n := 0
	for s.pos < len(s.src) && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

func (s *jsonScanner) literal(word string) bool {
	if len(s.src)-s.pos < len(word) || string(s.src[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return s.atDelimiter()
}

// atDelimiter: a scalar ends at whitespace, a separator or the end.
func (s *jsonScanner) atDelimiter() bool {
	if s.pos == len(s.src) {
		return true
	}
	switch s.src[s.pos] {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}
