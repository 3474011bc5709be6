package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAPIv2_DagSources follows test_dag_sources.py: the source as text or
// JSON by the Accept header, by version_number, and the errors.
func TestAPIv2_DagSources(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	code, err := ts.srv.api.DagCode("example_bash_operator")
	if err != nil || code == "" {
		t.Fatalf("DagCode: %q, %v", code, err)
	}
	var content bytes.Buffer
	enc := json.NewEncoder(&content)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(code); err != nil {
		t.Fatal(err)
	}
	asJSON := `{"content":` + string(bytes.TrimSpace(content.Bytes())) + `,"dag_id":"example_bash_operator","version_number":1,"dag_display_name":"example_bash_operator"}`
	const notFound = `{"detail":"The source code of the DAG `
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "text", path: "/dagSources/example_bash_operator", header: []string{"Accept", "text/plain"},
			wantStatus: 200, wantBody: code, wantType: "text/plain; charset=utf-8"},
		{name: "json", path: "/dagSources/example_bash_operator", header: []string{"Accept", "application/json"}, wantStatus: 200, wantBody: asJSON},
		{name: "json utf8", path: "/dagSources/example_bash_operator", header: []string{"Accept", "application/json; charset=utf-8"}, wantStatus: 200, wantBody: asJSON},
		{name: "no accept", path: "/dagSources/example_bash_operator", wantStatus: 200, wantBody: asJSON},
		{name: "version 1", path: "/dagSources/example_bash_operator?version_number=1", wantStatus: 200, wantBody: asJSON},
		{name: "version 1 text", path: "/dagSources/example_bash_operator?version_number=1", header: []string{"Accept", "text/plain"},
			wantStatus: 200, wantBody: code, wantType: "text/plain; charset=utf-8"},
		{name: "version 2", path: "/dagSources/example_bash_operator?version_number=2", wantStatus: 404,
			wantBody: notFound + `example_bash_operator, version_number 2 was not found"}`},
		// DagVersion.get_version filters by the number only when it is
		// truthy: 0 is the latest version.
		{name: "version 0", path: "/dagSources/example_bash_operator?version_number=0", wantStatus: 200, wantBody: asJSON},
		{name: "version 0, unknown dag", path: "/dagSources/abcd1234?version_number=0", wantStatus: 404,
			wantBody: notFound + `abcd1234, version_number 0 was not found"}`},
		{name: "version -1", path: "/dagSources/example_bash_operator?version_number=-1", wantStatus: 404,
			wantBody: notFound + `example_bash_operator, version_number -1 was not found"}`},
		{name: "unknown dag", path: "/dagSources/abcd1234", header: []string{"Accept", "application/json"}, wantStatus: 404,
			wantBody: notFound + `abcd1234, version_number None was not found"}`},
		{name: "unsupported type", path: "/dagSources/example_bash_operator", header: []string{"Accept", "text/html"}, wantStatus: 406,
			wantBody: `{"detail":"Only application/json or text/plain is supported"}`},
		// The Accept header is a dependency, checked before the query.
		{name: "unsupported type, bad version", path: "/dagSources/example_bash_operator?version_number=x", header: []string{"Accept", "text/html"},
			wantStatus: 406, wantBody: `{"detail":"Only application/json or text/plain is supported"}`},
		{name: "bad version", path: "/dagSources/example_bash_operator?version_number=x", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["query","version_number"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
	})
}

// TestAPIv2_DagSources_Versions follows test_should_respond_200_version: a
// changed definition is version 2, whose source is the latest; version 1
// is still a version, whose code airlite did not keep: the route's 404
// for a version without its DagCode row (dag_sources.py, "Code not
// found", apache/airflow#48803), in JSON whatever the Accept header.
func TestAPIv2_DagSources_Versions(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	const text = "dag_id: tutorial\nschedule: null\ntasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo}\n"
	changed, err := parseDAGFor([]byte(text), testNow, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.UpsertDAG(changed); err != nil {
		t.Fatal(err)
	}
	code, err := ts.srv.api.DagCode("tutorial")
	if err != nil {
		t.Fatal(err)
	}
	content, err := json.Marshal(code)
	if err != nil {
		t.Fatal(err)
	}
	latest := `{"content":` + string(content) + `,"dag_id":"tutorial","version_number":2,"dag_display_name":"tutorial"}`
	runV2GroupCases(t, ts, []v2GroupCase{
		{name: "latest", path: "/dagSources/tutorial", wantStatus: 200, wantBody: latest},
		{name: "latest text", path: "/dagSources/tutorial", header: []string{"Accept", "text/plain"}, wantStatus: 200, wantBody: code,
			wantType: "text/plain; charset=utf-8"},
		{name: "version 2", path: "/dagSources/tutorial?version_number=2", wantStatus: 200, wantBody: latest},
		{name: "version 0", path: "/dagSources/tutorial?version_number=0", wantStatus: 200, wantBody: latest},
		{name: "version 1", path: "/dagSources/tutorial?version_number=1", wantStatus: 404,
			wantBody: `{"detail":"Code not found. dag_id='tutorial' version_number='1'"}`},
		{name: "version 1 text", path: "/dagSources/tutorial?version_number=1", header: []string{"Accept", "text/plain"}, wantStatus: 404,
			wantBody: `{"detail":"Code not found. dag_id='tutorial' version_number='1'"}`, wantType: "application/json"},
		{name: "version 3", path: "/dagSources/tutorial?version_number=3", wantStatus: 404,
			wantBody: `{"detail":"The source code of the DAG tutorial, version_number 3 was not found"}`},
	})
}
