package main

import (
	"encoding/json"
	"os"
	"testing"
)

// TestParamRule_MessagesAsJSONSchema checks each schema and instance of
// testdata/param_schema_cases.json against str() of the error
// jsonschema.validate(instance, schema, format_checker=FormatChecker())
// raised (python-jsonschema 4.26.0, whose messages are 4.23.0's), ""
// where it raised none.
func TestParamRule_MessagesAsJSONSchema(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/param_schema_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Schema, Instance, Want string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Schema+" "+c.Instance, func(t *testing.T) {
			t.Parallel()
			schema, err := decodePyJSON([]byte(c.Schema))
			if err != nil {
				t.Fatal(err)
			}
			inst, err := decodePyJSON([]byte(c.Instance))
			if err != nil {
				t.Fatal(err)
			}
			rule := paramRule{name: "p", schema: schema}
			if schemaNeedsFull(schema) {
				if rule.full, err = compileFullSchema(schema); err != nil {
					t.Fatal(err)
				}
			}
			if got := rule.check(inst); got != c.Want {
				t.Errorf("check =\n%s\nwant\n%s", got, c.Want)
			}
		})
	}
}
