package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestRedactValue hides what sits under a sensitive key, wherever in a
// dict or list it comes, and leaves the value it was given as it was
// (redact copies only what it changes).
// Airflow 2.10.3 airflow/utils/log/secrets_masker.py:236 (_redact)
func TestRedactValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"nothing to hide", `{"a": {"b": [1, "x"]}, "c": "d"}`, `{"a": {"b": [1, "x"]}, "c": "d"}`},
		{"after a plain field", `{"a": 1, "b": {"n": 2, "password": "p", "m": 3}}`, `{"a": 1, "b": {"n": 2, "password": "***", "m": 3}}`},
		{"in a list, after a plain item", `[1, {"token": "t"}, "x", {"k": 1}]`, `[1, {"token": "***"}, "x", {"k": 1}]`},
		{"a sensitive list", `{"x": 1, "secret": ["a", 2, {"b": "c"}]}`, `{"x": 1, "secret": ["***", 2, {"b": "***"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := decodePyJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			before, _ := decodePyJSON([]byte(tc.in))
			got, err := pyDumps(edition2.rules().masker.redact(in, "", 0))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("redact(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(in, before) {
				t.Errorf("redact changed its input: %#v, was %#v", in, before)
			}
		})
	}
}

// TestDecodePyJSON_ScannerMatchesDecoder pins decodePyJSON's scanner of
// valid documents to the json.Decoder reading it replaced: the same
// values, types and key order for each document.
func TestDecodePyJSON_ScannerMatchesDecoder(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{}`, `[]`, ` { } `, `null`, `true`, `false`, `0`, `-1.5e+3`, `12345678901234567890`, `""`,
		`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00", "dag_run_id": "r"}`,
		`{"a": 1, "b": [1, 2.0, "x", null, true, false, {}, []], "a": 2}`,
		"{\n\t\"k\" :\r\n [ 1 , { \"z\" : { } } ] }",
		`{"esc": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "utf": "h\u00e9llo", "raw": "héllo ☃"}`,
		"{\"bad\": \"\xff\xfe\"}",
		`[[[[]]], {"": ""}]`,
		`{"n": -0, "e": 1E5, "f": 0.5e-2}`,
	} {
		got, err := decodePyJSON([]byte(doc))
		if err != nil {
			t.Fatalf("decodePyJSON(%q): %v", doc, err)
		}
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		want, err := decodePyValue(dec)
		if err != nil {
			t.Fatalf("decodePyValue(%q): %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodePyJSON(%q) = %#v, want %#v", doc, got, want)
		}
	}
}

// FuzzPyJSONScanner: on every document json.Valid accepts, the scanner
// reads what the token decoder reads (the decoder is the reference; the
// scanner only saves its allocations).
func FuzzPyJSONScanner(f *testing.F) {
	for _, seed := range []string{`{"conf": {"a": [1, 2.5, "x"]}, "a": null}`, `{"a": 1, "a": 2}`,
		`"\u00e9\ud83d\ude00"`, "[\"\xff\"]", `[-0, 1E5, 0.5e-2, true, false]`, ` { "k" : { } } `} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		got, err := decodePyJSON(doc)
		if err != nil {
			t.Fatalf("decodePyJSON(%q): %v", doc, err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		want, err := decodePyValue(dec)
		if err != nil {
			t.Fatalf("decodePyValue(%q): %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodePyJSON(%q) = %#v, want %#v", doc, got, want)
		}
	})
}

// A repeated key keeps its first place and takes its last value, as
// json.loads builds a dict, also past the size where the builder indexes
// its keys; both readers (the scanner and the token decoder) agree.
func TestDecodePyJSON_RepeatedKeysManyFields(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, pyDictIndexed - 1, pyDictIndexed, pyDictIndexed + 1, 100} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d": %d, `, i, i)
		}
		fmt.Fprintf(&b, `"k0": "last0", "k%d": "lastN", "new": true}`, n-1)
		doc := b.String()
		want := pyDict{}
		for i := range n {
			want = append(want, pyField{fmt.Sprintf("k%d", i), json.Number(strconv.Itoa(i))})
		}
		want[0].val, want[n-1].val = "last0", "lastN"
		want = append(want, pyField{"new", true})
		got, err := decodePyJSON([]byte(doc))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("n=%d: scanner read %#v, %v; want %#v", n, got, err, want)
		}
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		if got, err := decodePyValue(dec); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("n=%d: decoder read %#v, %v; want %#v", n, got, err, want)
		}
	}
}

// BenchmarkDecodePyJSON_ManyKeys reads a body of 20,000 distinct keys:
// linear in the keys (it was quadratic: every key scanned every key
// before it).
func BenchmarkDecodePyJSON_ManyKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"conf": {`)
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, `"key_%d": %d`, i, i)
	}
	sb.WriteString("}}")
	doc := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePyJSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}
