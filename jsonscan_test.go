package main

import (
	"reflect"
	"strings"
	"testing"
)

// scanSamples are bodies the scanner must read as encoding/json does, or
// decline: well-formed documents of every kind, and the inputs where
// encoding/json's two readings part (trailing data, which Decode ignores
// and the token stream refuses), or where it alone knows the answer
// (escapes, invalid UTF-8, deep nesting).
var scanSamples = []string{
	`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00", "dag_run_id": "r"}`,
	`{}`, `[]`, `{"a": []}`, `{"a": {}}`, ` {"a":1} `, "\t\r\n{\"a\":1}\n",
	`{"b": 1, "a": 2, "b": 3}`, `{"a": {"x": 1, "x": {"y": [1, 2]}}}`,
	`[1, -0, 0.5, -1.5e10, 2E+3, 1e-2, 12345678901234567890123]`,
	`{"t": true, "f": false, "n": null}`, `"text"`, `42`, `null`, `true`,
	`{"s": "caf\u00e9 ☃ 𝄞"}`, `{"s": "tab\there \"q\" \\ \/ \ud83d\ude00"}`, `{"s": "\ud800"}`,
	`{"s\u0041": 1}`, `{"note": 1, "no\u0074e": 2}`, `{"conf\"": 1, "conf": {"conf": "conf"}}`, `{"a": "\x"}`, "{\"a\": \"line\nbreak\"}", "{\"a\": \"\xff\"}",
	`{"a":1} trailing`, `{"a":1}{"b":2}`, `{"a":1}}`, `123abc`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`,
	`truex`, `nul`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a: 1}`, `{"a":1`, `[1 2]`, `"open`, `"end\`,
	`{"a": [true, false, null, "x", {"b": [[]]}]}`, `  `, ``, "\u00a0{}", "{}\f",
	strings.Repeat("[", 300) + strings.Repeat("]", 300),
	strings.Repeat(`{"a":`, 150) + "1" + strings.Repeat("}", 150),
}

// TestScanPyJSON_ReadsAsEncodingJSON: what the scanner accepts, the token
// stream (decodePyJSONTokens) and Decode into an any (decodeJSONDecoder,
// on the trimmed body as decodeV1Body calls it) both accept and read the
// same, so that the one scan can stand for both of them.
func TestScanPyJSON_ReadsAsEncodingJSON(t *testing.T) {
	for _, raw := range scanSamples {
		t.Run(raw[:min(len(raw), 40)], func(t *testing.T) {
			checkScanAgrees(t, []byte(raw))
		})
	}
}

// TestScanPyJSON_Declines pins the inputs the scanner must leave to
// encoding/json: those where its two readings differ or where it reports
// the error.
func TestScanPyJSON_Declines(t *testing.T) {
	for _, raw := range []string{`{"a":1} trailing`, `{"a":1}{"b":2}`, `123abc`, `01`, `{"a":1,}`, `[1,]`,
		"{\"a\": \"\xff\"}", "{}\f", `{"a": "\x"}`, strings.Repeat("[", 300) + strings.Repeat("]", 300)} {
		if v, ok := scanPyJSON([]byte(raw)); ok {
			t.Errorf("scanPyJSON(%q) = %#v, want declined", raw, v)
		}
	}
	for _, raw := range scanSamples[:3] {
		if _, ok := scanPyJSON([]byte(raw)); !ok {
			t.Errorf("scanPyJSON(%q) declined a well-formed document", raw)
		}
	}
}

func FuzzScanPyJSON(f *testing.F) {
	for _, raw := range scanSamples {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkScanAgrees(t, raw) })
}

func checkScanAgrees(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := scanPyJSON(raw)
	if !ok {
		return
	}
	want, err := decodePyJSONTokens(raw)
	if err != nil {
		t.Fatalf("scanPyJSON(%q) accepted what the token stream refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanPyJSON(%q) = %#v, token stream %#v", raw, got, want)
	}
	plain, err := decodeJSONDecoder([]byte(strings.TrimSpace(string(raw))))
	if err != nil {
		t.Fatalf("scanPyJSON(%q) accepted what Decode refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(plainOf(got), plain) {
		t.Fatalf("plainOf(scanPyJSON(%q)) = %#v, Decode %#v", raw, plainOf(got), plain)
	}
}
