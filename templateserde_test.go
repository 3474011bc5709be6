package main

import (
	"strings"
	"testing"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// TestPyDecimalStr: str(Decimal(text)) of the numbers bignum.py stores
// (an int, or a float as json.dumps writes it), as Python prints them.
func TestPyDecimalStr(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"1.5": "1.5", "7": "7", "1e-07": "1E-7", "1e-05": "0.00001", "1.5e+16": "1.5E+16", "100.0": "100.0",
		"-0.25": "-0.25", "0.0001": "0.0001", "1e+16": "1E+16", "123456789012345678": "123456789012345678", "0": "0",
	} {
		if got := pyDecimalStr(text); got != want {
			t.Errorf("pyDecimalStr(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestSerdeTemplateValue: what Jinja prints of a value Airflow 3.2.1's
// ti.xcom_pull deserialized from serde's stored forms (str() at the top,
// repr() inside a container), and the classes it refuses.
func TestSerdeTemplateValue(t *testing.T) {
	t.Parallel()
	const tupleTZ = `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [%s, "pendulum.tz.timezone.Timezone", 1, true]}`
	zone := func(name string) string { return strings.Replace(tupleTZ, "%s", name, 1) }
	for _, tc := range []struct{ name, stored, want, wantErr string }{
		{"tuple", `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, "a"]}`, `(1, 'a')`, ""},
		{"one-tuple", `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1]}`, `(1,)`, ""},
		{"set", `{"__classname__": "builtins.set", "__version__": 1, "__data__": [3, 1]}`, `{3, 1}`, ""},
		{"empty set", `{"__classname__": "builtins.set", "__version__": 1, "__data__": []}`, `set()`, ""},
		{"frozenset", `{"__classname__": "builtins.frozenset", "__version__": 1, "__data__": ["f"]}`, `frozenset({'f'})`, ""},
		{"datetime utc", `{"__classname__": "datetime.datetime", "__version__": 2, "__data__": {"timestamp": 1704164645.0, "tz": ` + zone(`"UTC"`) + `}}`,
			`2024-01-02 03:04:05+00:00`, ""},
		{"datetime offset", `{"__classname__": "datetime.datetime", "__version__": 2, "__data__": {"timestamp": 1704164645.5, "tz": ` + zone(`3600`) + `}}`,
			`2024-01-02 04:04:05.500000+01:00`, ""},
		{"pendulum in a zone", `{"__classname__": "pendulum.datetime.DateTime", "__version__": 2, "__data__": {"timestamp": 1704164645.0, "tz": ` + zone(`"Europe/Paris"`) + `}}`,
			`2024-01-02 04:04:05+01:00`, ""},
		{"version 1 zone", `{"__classname__": "datetime.datetime", "__version__": 1, "__data__": {"timestamp": 1704164645.0, "tz": "UTC"}}`,
			`2024-01-02 03:04:05+00:00`, ""},
		{"date", `{"__classname__": "datetime.date", "__version__": 2, "__data__": "2024-01-02"}`, `2024-01-02`, ""},
		{"timedelta", `{"__classname__": "datetime.timedelta", "__version__": 2, "__data__": -1.5}`, `-1 day, 23:59:58.500000`, ""},
		{"decimal in a list", `[{"__classname__": "decimal.Decimal", "__version__": 1, "__data__": 1e-07}]`, `[Decimal('1E-7')]`, ""},
		{"uuid", `{"__classname__": "uuid.UUID", "__version__": 1, "__data__": "12345678-1234-5678-1234-567812345678"}`,
			`12345678-1234-5678-1234-567812345678`, ""},
		{"old dict form", `{"__type": "dict", "__var": {"k": [1]}}`, `{'k': [1]}`, ""},
		{"old form of another class", `{"__type": "tuple", "__var": [1]}`, "", "ImportError: tuple was not found in allow list"},
		{"plain dict", `{"a": [1, 2.5, null]}`, `{'a': [1, 2.5, None]}`, ""},
		{"a class not allowed", `{"__classname__": "mydag.Point", "__version__": 0, "__data__": {"x": 1}}`, "",
			"ImportError: mydag.Point was not found in allow list"},
		{"a version no int", `{"__classname__": "builtins.tuple", "__version__": "1", "__data__": []}`, "", "ValueError: cannot decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pulledSerdeValue(&XComEntry{TaskID: "t", Key: "k", Value: []byte(tc.stored)})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := templateStr(exec.AsValue(got), edition3.rules()); s != tc.want {
				t.Errorf("prints %q, want %q", s, tc.want)
			}
		})
	}
}

// TestMappableLength_SerdeForms: a tuple stored in serde's form maps by
// its items, another serde object (a set, a date) is no sequence.
func TestMappableLength_SerdeForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stored   string
		want     int
		mappable bool
		typeName string
	}{
		{`{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, 2]}`, 2, true, ""},
		{`{"__classname__": "builtins.set", "__version__": 1, "__data__": [1, 2]}`, 0, false, "set"},
		{`{"__classname__": "datetime.date", "__version__": 2, "__data__": "2024-01-02"}`, 0, false, "date"},
		{`{"a": 1, "b": 2, "c": 3}`, 3, true, ""},
		{`[1, 2, 3, 4]`, 4, true, ""},
		{`"abc"`, 0, false, "str"},
	} {
		v := pyDecode([]byte(tc.stored))
		n, ok := mappableLength(v)
		if n != tc.want || ok != tc.mappable {
			t.Errorf("mappableLength(%s) = %d, %v; want %d, %v", tc.stored, n, ok, tc.want, tc.mappable)
		}
		if !ok && pyValueTypeName(v) != tc.typeName {
			t.Errorf("pyValueTypeName(%s) = %q, want %q", tc.stored, pyValueTypeName(v), tc.typeName)
		}
	}
}
