package main

import (
	"strings"
	"testing"
)

// A trigger body of every JSON kind, in every edition. Airflow's
// trigger_dag tests `"run_id" in data`, `"conf" in data`,
// `"execution_date" in data` and `"replace_microseconds" in data` on
// whatever request.get_json(force=True) returned, then reads data[key]
// for each key found:
//
//	Airflow 2.10.3 airflow/www/api/experimental/endpoints.py:89-125
//	Airflow 1.10.15 airflow/www/api/experimental/endpoints.py:55-83
//
// On a str `in` is a substring test and on a list an element test; a key
// found there makes data[key] raise TypeError (500). A str or list holding
// none of the keys triggers a run with every default (200). On an int,
// float, bool or None, `in` itself raises TypeError (500).
func TestServer_TriggerDAG_BodyKinds(t *testing.T) {
	t.Parallel()
	const path = "/dags/example_bash_operator/dag_runs"
	// A run with every default: the generated run_id at the clock's
	// second (testNow, microseconds replaced).
	defaults := func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		run, err := ts.store.RunByRunID("example_bash_operator", "manual__2024-05-01T10:00:00+00:00")
		if err != nil {
			t.Fatalf("default run not stored: %v", err)
		}
		if !run.ExternalTrigger {
			t.Errorf("run %+v, want externally triggered", run)
		}
	}
	noRuns := func(t *testing.T, ts *testServer, res response) {
		t.Helper()
		runs, err := ts.store.RunsOfDag("example_bash_operator", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 0 {
			t.Errorf("%d runs created, want none", len(runs))
		}
	}
	// crashOn checks that the crash message names what was wrong.
	crashOn := func(words ...string) func(t *testing.T, ts *testServer, res response) {
		return func(t *testing.T, ts *testServer, res response) {
			t.Helper()
			noRuns(t, ts, res)
			for _, w := range words {
				if !strings.Contains(res.body, w) {
					t.Errorf("crash body %q does not say %q", res.body, w)
				}
			}
		}
	}
	cases := []httpCase{
		// Objects: field lookups (the other trigger tests cover them).
		{name: "object", body: `{}`, wantStatus: 200, check: defaults},
		// Strings: `key in data` is a substring test.
		{name: "empty string", body: `""`, wantStatus: 200, check: defaults},
		{name: "string without keys", body: `"hello"`, wantStatus: 200, check: defaults},
		{name: "string near a key", body: `"Conf run-id execution date"`, wantStatus: 200, check: defaults},
		{name: "string is a key", body: `"conf"`, wantCrash: true, check: crashOn("a string", `\"conf\"`)},
		{name: "string contains a key", body: `"xx_run_id_xx"`, wantCrash: true, check: crashOn("a string", `\"run_id\"`)},
		{name: "string escapes to a key", body: `"\u0063onf"`, wantCrash: true, check: crashOn(`\"conf\"`)},
		{name: "string contains the last key", body: `"replace_microseconds"`, wantCrash: true,
			check: crashOn(`\"replace_microseconds\"`)},
		{name: "string JSON of an object", body: `"{\"execution_date\": \"2024-01-01\"}"`, wantCrash: true,
			check: crashOn(`\"execution_date\"`)},
		// Arrays: `key in data` is an element test.
		{name: "empty array", body: `[]`, wantStatus: 200, check: defaults},
		{name: "array without keys", body: `[1, "x", null, true, {"conf": {}}]`, wantStatus: 200, check: defaults},
		{name: "array of substrings", body: `["run_id_", "confs", ["conf"]]`, wantStatus: 200, check: defaults},
		{name: "array holding a key", body: `["conf"]`, wantCrash: true, check: crashOn("an array", `\"conf\"`)},
		{name: "array holding keys names the first tested", body: `["replace_microseconds", 1, "run_id"]`,
			wantCrash: true, check: crashOn(`\"run_id\"`)},
		{name: "array holding an escaped key", body: `["execution\u005fdate"]`, wantCrash: true,
			check: crashOn(`\"execution_date\"`)},
		// Scalars: `in` raises TypeError.
		{name: "integer", body: `5`, wantCrash: true, check: crashOn("a number")},
		{name: "zero", body: `0`, wantCrash: true, check: crashOn("a number")},
		{name: "float", body: `-1.5e3`, wantCrash: true, check: crashOn("a number")},
		{name: "true", body: `true`, wantCrash: true, check: crashOn("a boolean")},
		{name: "false", body: `false`, wantCrash: true, check: crashOn("a boolean")},
		{name: "null", body: `null`, wantCrash: true, check: crashOn("null")},
		// Not JSON at all: Flask's 400, as before.
		{name: "empty body", body: ``, wantStatus: 400, check: noRuns},
		{name: "broken JSON", body: `["conf"`, wantStatus: 400, check: noRuns},
	}
	for i := range cases {
		cases[i].method, cases[i].path = "POST", path
	}
	runCases(t, cases)
}
