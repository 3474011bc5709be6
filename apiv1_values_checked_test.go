package main

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestPyScanner_CheckedAsValid holds checkedDocument, which reads a body
// and checks it in one pass, to json.Valid and the scanner it reads
// before: every document it reads json.Valid accepts and the scanner
// reads the same, and every document json.Valid accepts (not deeper than
// pyCheckedDepth) it reads. Table rows at the grammar's edges, and
// random edits of them with the bytes JSON gives a meaning to.
func TestPyScanner_CheckedAsValid(t *testing.T) {
	t.Parallel()
	seeds := []string{
		`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00", "dag_run_id": "bench_1"}`,
		`{"conf": {"key": "value"}, "logical_date": null}`, `{}`, `[]`, `[1, -2.5e+3, 0, -0, 1E5, 0.5]`,
		`{"a": [true, false, null, {"b": "\u00e9\n\"\\\/\b\f\r\t"}], "a": 2}`, `"x"`, `12`, ` {"k" : 1 } `,
		"{\"é\": \"\xff\"}", `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a" 1}`, `{"a":}`, `01`, `1.`, `.5`, `-`, `+1`,
		`1e`, `1e+`, `tru`, `nul`, `[true1]`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"", `"abc`, ``, ` `,
		`{"a":1}}`, `[[[]]]`, `{"a":{"b":{"c":[1,{"d":null}]}}}`, strings.Repeat("[", 101) + strings.Repeat("]", 101),
		strings.Repeat("[", 100) + strings.Repeat("]", 100), "\ufeff{}", `{"a":1}x`, "[1\v]",
	}
	rng := rand.New(rand.NewPCG(21, 4))
	alphabet := []byte(`{}[],:"\ 0123-+.eEtruefalsnl` + "\t\n\r\x00\x1f\xc3\xa9u")
	docs := append([]string(nil), seeds...)
	for range 300000 {
		b := []byte(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			at := 0
			if len(b) > 0 {
				at = rng.IntN(len(b) + 1)
			}
			c := alphabet[rng.IntN(len(alphabet))]
			switch op := rng.IntN(3); {
			case op == 0 || len(b) == 0 || at == len(b):
				b = append(b[:at], append([]byte{c}, b[at:]...)...)
			case op == 1:
				b = append(b[:at], b[at+1:]...)
			default:
				b[at] = c
			}
		}
		docs = append(docs, string(b))
	}
	read, valid := 0, 0
	for _, doc := range docs {
		raw := []byte(doc)
		sc := pyScanner{raw: raw}
		got, ok := sc.checkedDocument()
		isValid := json.Valid(raw)
		if isValid {
			valid++
		}
		if ok {
			read++
			if !isValid {
				t.Fatalf("checkedDocument read %q, which json.Valid refuses", doc)
			}
			old := pyScanner{raw: raw}
			if want := old.value(); !reflect.DeepEqual(got, want) {
				t.Fatalf("checkedDocument(%q) = %#v, the scanner read %#v", doc, got, want)
			}
		} else if isValid && !strings.Contains(doc, strings.Repeat("[", pyCheckedDepth+1)) {
			t.Errorf("checkedDocument refused %q, which json.Valid accepts", doc)
		}
	}
	if read < 10000 || valid-read > 10 || len(docs)-valid < 10000 {
		t.Errorf("%d documents, %d valid, %d read: the edits test one side only", len(docs), valid, read)
	}
}

// TestPyName_AsString holds pyName, which returns the trigger bodies'
// field names without a copy, to string(b): the same text for every
// name it knows and for others, and no allocation for a name it knows
// (not parallel: AllocsPerRun).
func TestPyName_AsString(t *testing.T) {
	names := []string{"conf", "logical_date", "dag_run_id", "run_after", "note", "data_interval_start",
		"data_interval_end", "partition_key", "execution_date", "", "con", "confs", "Conf", "run_id", "key", "é"}
	for _, n := range names {
		if got := pyName([]byte(n)); got != n {
			t.Errorf("pyName(%q) = %q", n, got)
		}
	}
	if raceBuild {
		return // the race detector's instrumentation allocates
	}
	raw := []byte("partition_key")
	if allocs := testing.AllocsPerRun(100, func() { _ = pyName(raw) }); allocs != 0 {
		t.Errorf("pyName(%q): %.0f allocations, want none", raw, allocs)
	}
}
