package main

import (
	"reflect"
	"testing"
)

// TestRedactValue hides what sits under a sensitive key, wherever in a
// dict or list it comes, and leaves the value it was given as it was
// (redactValue copies only what it changes).
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
			got, err := pyDumps(redactValue(in, "", 0))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("redactValue(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(in, before) {
				t.Errorf("redactValue changed its input: %#v, was %#v", in, before)
			}
		})
	}
}
