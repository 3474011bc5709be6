package main

import (
	"net/url"
	"reflect"
	"testing"
)

// Python's parse_qsl (Starlette, keep_blank_values) and Werkzeug's
// url_decode keep a '%' that starts no escape, where Go's url.ParseQuery
// drops the whole pair. The answers below are Python 3.11's parse_qsl.
func TestPyQuery_AsPythonParses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want url.Values
	}{
		{"a=tut%", url.Values{"a": {"tut%"}}},
		{"a=%zz", url.Values{"a": {"%zz"}}},
		{"a=%4", url.Values{"a": {"%4"}}},
		{"a=%41%42", url.Values{"a": {"AB"}}},
		{"a=x+y", url.Values{"a": {"x y"}}},
		{"a", url.Values{"a": {""}}},
		{"a=&b=2", url.Values{"a": {""}, "b": {"2"}}},
		{"=v", url.Values{"": {"v"}}},
		{"a=%C3%A9", url.Values{"a": {"é"}}},
		{"a=%C3", url.Values{"a": {"\uFFFD"}}},
		{"a=%E2%82", url.Values{"a": {"\uFFFD"}}},
		{"a=%25", url.Values{"a": {"%"}}},
		{"a=1&a=2", url.Values{"a": {"1", "2"}}},
		{"&&a=1", url.Values{"a": {"1"}}},
		{"a=%%41", url.Values{"a": {"%A"}}},
		{"a%3Db=c", url.Values{"a=b": {"c"}}},
	} {
		if got := pyQuery(tc.raw); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pyQuery(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

// A pattern that ends in '%' or holds one that starts no escape filters
// as Airflow filters it (ILIKE with the '%' kept), instead of being
// dropped and matching every DAG.
func TestAPI_QueryKeepsABarePercent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    edition
		path string
		want []string
	}{
		// Edition 3's examples hold three tutorials: tutorial, tutorial_dag
		// and tutorial_taskflow_api.
		{edition3, "/api/v2/dags?dag_id_pattern=tut%", []string{`"dag_id":"tutorial"`, `"dag_id":"tutorial_taskflow_api"`, `"total_entries":3`}},
		{edition3, "/api/v2/dags?dag_id_pattern=%zz", []string{`"total_entries":0`}},
		{edition2, "/api/v1/dags?dag_id_pattern=tut%", []string{`"dag_id": "tutorial"`, `"total_entries": 1`}},
		{edition2, "/api/v1/dags?dag_id_pattern=%zz", []string{`"total_entries": 0`}},
	} {
		ts := newTestServer(t, tc.e)
		expect(t, ts.do(t, "GET", tc.path, ""), 200, tc.want...)
	}
}
