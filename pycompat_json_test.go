package main

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAppendPyString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x7f", `"\u007f"`},
		{"é", `"\u00e9"`},
		{"€", `"\u20ac"`},
		{"\u2028", `"\u2028"`},
		{"😀", `"\ud83d\ude00"`},
		{"𝄞x", `"\ud834\udd1ex"`},
		{"a/b<c>&d'e", `"a/b<c>&d'e"`},
		{"\xff", `"\ufffd"`},
		{"", `""`},
		// Plain runs around escapes are copied whole: start, middle, end.
		{"ab\ncd\u00e9ef\xffgh", `"ab\ncd\u00e9ef\ufffdgh"`},
		{"\"x", `"\"x"`},
		{"x\"", `"x\""`},
		{"😀😀z", `"\ud83d\ude00\ud83d\ude00z"`},
	}
	for _, tc := range tests {
		if got := string(appendPyString(nil, tc.in)); got != tc.want {
			t.Errorf("appendPyString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPyFloatRepr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    float64
		want string
	}{
		{1, "1.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.1, "0.1"},
		{-2.5, "-2.5"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{9999999999999998, "9999999999999998.0"},
		{1e22, "1e+22"},
		{1e-05, "1e-05"},
		{0.0001, "0.0001"},
		{1.5e-7, "1.5e-07"},
		{123456789, "123456789.0"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
	}
	for _, tc := range tests {
		if got := pyFloatRepr(tc.f); got != tc.want {
			t.Errorf("pyFloatRepr(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestPyJSON_Marshal(t *testing.T) {
	t.Parallel()
	value := map[string]any{
		"é": "ü", "B": true, "_": nil, "a": []any{1, int64(-2), 1.0, json.Number("3"), json.Number("1.0"),
			json.Number("1e16"), json.Number("0.00001"), json.Number("-0"), json.Number("123456789012345678901234567890")},
		"m": map[string]any{"z": "", "y": map[string]string{"k": "v"}},
		"s": []string{"x", "y"},
		"l": []map[string]any{{"b": 1, "a": 2}},
		"r": json.RawMessage(`{"b": [1.0, null], "a": "\u00e9"}`),
		"n": json.RawMessage(nil),
		"f": math.Inf(1), "g": math.Inf(-1), "h": math.NaN(),
		"o": pyObject{{"A", 1}, {"a", []any{pyObject{}}}, {"é", "x"}},
	}
	tests := []struct {
		enc  pyJSON
		want string
	}{
		{compactJSON, `{"B":true,"_":null,"a":[1,-2,1.0,3,1.0,1e+16,1e-05,0,123456789012345678901234567890],` +
			`"f":Infinity,"g":-Infinity,"h":NaN,"l":[{"a":2,"b":1}],"m":{"y":{"k":"v"},"z":""},"n":null,` +
			`"o":{"A":1,"a":[{}],"\u00e9":"x"},"r":{"a":"\u00e9","b":[1.0,null]},"s":["x","y"],"\u00e9":"\u00fc"}`},
		{spacedJSON, `{"B": true, "_": null, "a": [1, -2, 1.0, 3, 1.0, 1e+16, 1e-05, 0, 123456789012345678901234567890], ` +
			`"f": Infinity, "g": -Infinity, "h": NaN, "l": [{"a": 2, "b": 1}], "m": {"y": {"k": "v"}, "z": ""}, "n": null, ` +
			`"o": {"A": 1, "a": [{}], "\u00e9": "x"}, "r": {"a": "\u00e9", "b": [1.0, null]}, "s": ["x", "y"], "\u00e9": "\u00fc"}`},
	}
	for _, tc := range tests {
		got, err := tc.enc.marshal(value)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("marshal =\n%s\nwant\n%s", got, tc.want)
		}
	}
	for _, v := range []any{[]any{}, map[string]any{}} {
		got, _ := spacedJSON.marshal(v)
		if s := string(got); s != "[]" && s != "{}" {
			t.Errorf("marshal(%v) = %s", v, s)
		}
	}
}

func TestPyJSON_MarshalErrors(t *testing.T) {
	t.Parallel()
	for _, v := range []any{struct{}{}, []any{uint8(1)}, map[string]any{"x": float32(1)}, json.RawMessage(`{`),
		pyObject{{"b", 1}, {"a", 2}}, pyObject{{"a", 1}, {"a", 2}}, pyObject{{"a", float32(1)}}} {
		if got, err := compactJSON.marshal(v); err == nil {
			t.Errorf("marshal(%#v) = %s, want an error", v, got)
		}
	}
}

// Edition marshalling: 1.10 appends a newline, 2 does not.
func TestEditionMarshal(t *testing.T) {
	t.Parallel()
	v := map[string]any{"status": "OK", "list": []any{1, 2}}
	for e, want := range map[edition]string{
		edition2:       `{"list": [1, 2], "status": "OK"}`,
		edition110:     "{\"list\":[1,2],\"status\":\"OK\"}\n",
		edition110RBAC: "{\"list\":[1,2],\"status\":\"OK\"}\n",
	} {
		got, err := e.marshal(v)
		if err != nil || string(got) != want {
			t.Errorf("%s: marshal = %q, %v; want %q", e, got, err, want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		want string
	}{
		{nil, "None"},
		{true, "True"},
		{false, "False"},
		{"text", "'text'"},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`it's "x"`, `'it\'s "x"'`},
		{`a\b`, `'a\\b'`},
		{"a\nb\tc\rd", `'a\nb\tc\rd'`},
		{"\x01\x7f", `'\x01\x7f'`},
		{"é", "'é'"},
		{3, "3"},
		{int64(-4), "-4"},
		{1.0, "1.0"},
		{json.Number("5"), "5"},
		{json.Number("5.0"), "5.0"},
		{pyRaw("0:05:00"), "0:05:00"},
		{pySet(nil), "set()"},
		{pySet{"run_after_loop"}, "{'run_after_loop'}"},
		{pySet{"b", "a", "c"}, "{'a', 'b', 'c'}"},
		{pyTuple{}, "()"},
		{pyTuple{"a"}, "('a',)"},
		{pyTuple{1, "b", nil}, "(1, 'b', None)"},
		{[]string{}, "[]"},
		{[]string{"bash_command", "env"}, "['bash_command', 'env']"},
		{[]any{1, "a", nil, true, []any{}}, "[1, 'a', None, True, []]"},
		{map[string]any{}, "{}"},
		{map[string]any{"b": "x", "a": 1, "c": map[string]any{"d": []any{"e"}}}, "{'a': 1, 'b': 'x', 'c': {'d': ['e']}}"},
		{map[string]string{"env": "json", "bash_command": "bash"}, "{'bash_command': 'bash', 'env': 'json'}"},
	}
	for _, tc := range tests {
		if got := pyRepr(tc.v); got != tc.want {
			t.Errorf("pyRepr(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
	if got := pyStr("plain"); got != "plain" {
		t.Errorf("pyStr(plain) = %s", got)
	}
	if got := pyStr([]any{"a"}); got != "['a']" {
		t.Errorf("pyStr(list) = %s", got)
	}
}
