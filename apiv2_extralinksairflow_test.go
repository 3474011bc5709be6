package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Airflow 3.2's test_extra_links.py against the state its setup builds
// (c57fba0e airflow-core/tests/unit/api_fastapi/core_api/routes/public/
// test_extra_links.py:62-116): TEST_DAG_ID with three tasks of the tests'
// CustomOperator (tests_common/test_utils/mock_operators.py): one with a
// single bash_command, whose link is CustomOpLink ("Google Custom", read
// from XCom _link_CustomOpLink once serialized); one with two, whose links
// are CustomBaseIndexOpLink's "BigQuery Console #1" and "#2", whose
// xcom_key property makes them read bigquery_1 and bigquery_2; and one
// mapped over two commands, with CustomOpLink. A run TEST_DAG_RUN_ID. The tests' XCom.set stores
// serialize_value's text of the value, as POST .../xcomEntries does, so
// the rows here set their XComs through that route.

const airflowLinksDAG = `
dag_id: TEST_DAG_ID
schedule_interval: null
start_date: 2020-01-01T00:00:00+00:00
tasks:
  - {task_id: TEST_SINGLE_LINK, operator: EmptyOperator}
  - {task_id: TEST_MULTIPLE_LINKS, operator: EmptyOperator}
  - {task_id: TEST_MAPPED_TASK, operator: EmptyOperator}
`

// airflowLinksFixture is test_extra_links.py's setup on a server built
// with options (an auth backend for the 401).
func airflowLinksFixture(t *testing.T, options ...testOption) *testServer {
	t.Helper()
	dag, err := parseDAGFor([]byte(airflowLinksDAG), testExamplesReadAt, edition3.rules())
	if err != nil {
		t.Fatal(err)
	}
	dag.FilePath = "testdata/TEST_DAG_ID.yaml"
	custom := extraLink{Module: "tests_common.test_utils.mock_operators", Class: "CustomOpLink", Name: "Google Custom"}
	dag.Task("TEST_SINGLE_LINK").ExtraLinks = []extraLink{custom}
	dag.Task("TEST_MAPPED_TASK").ExtraLinks = []extraLink{custom}
	for i, name := range []string{"BigQuery Console #1", "BigQuery Console #2"} {
		dag.Task("TEST_MULTIPLE_LINKS").ExtraLinks = append(dag.Task("TEST_MULTIPLE_LINKS").ExtraLinks, extraLink{
			Module: "tests_common.test_utils.mock_operators", Class: "CustomBaseIndexOpLink", Name: name, XComKey: "bigquery_" + itoa(i+1)})
	}
	add := func(t *testing.T, s *testSetup) {
		t.Helper()
		s.opts.DAGs.DAGs = append(s.opts.DAGs.DAGs, dag)
	}
	ts := newTestServer(t, edition3, append([]testOption{withExamplesOnly(), add}, options...)...)
	// The run's state and dates do not show in these answers.
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "TEST_DAG_ID", runID: "TEST_DAG_RUN_ID"}); err != nil {
		t.Fatal(err)
	}
	expandLastTask(t, ts.store, dag, 2)
	return ts
}

// setAirflowXCom is the tests' XCom.set through POST .../xcomEntries.
func setAirflowXCom(t *testing.T, ts *testServer, task, key string, value any, mapIndex int) {
	t.Helper()
	body := mustJSON(t, map[string]any{"key": key, "value": value, "map_index": mapIndex})
	path := "/api/v2/dags/TEST_DAG_ID/dagRuns/TEST_DAG_RUN_ID/taskInstances/" + task + "/xcomEntries"
	if res := ts.do(t, http.MethodPost, path, body); res.status != http.StatusCreated {
		t.Fatalf("set xcom %s of %s: %d %s", key, task, res.status, res.body)
	}
}

// TestAPIv2_AirflowExtraLinks: TestGetExtraLinks (test_extra_links.py:
// 118-340), each case on a fresh fixture. Not replayed:
// test_should_respond_200_support_plugins (airlite loads no plugins, so no
// global or plugin operator links) and test_should_respond_403_unauthorized
// (airlite's users are all admins).
func TestAPIv2_AirflowExtraLinks(t *testing.T) {
	t.Parallel()
	const (
		links  = "/api/v2/dags/TEST_DAG_ID/dagRuns/TEST_DAG_RUN_ID/taskInstances/"
		google = "http://google.com/custom_base_link?search=TEST_LINK_VALUE"
		bq1    = "https://console.cloud.google.com/bigquery?j=TEST_LINK_VALUE_1"
		bq2    = "https://console.cloud.google.com/bigquery?j=TEST_LINK_VALUE_2"
		// json.dumps of test_should_not_deserialize_ill_formatted_links'
		// payload: a string, given back as it is, never deserialized.
		illFormatted = `{"__classname__": "airflow.ti_deps.dep_context.DepContext", "__version__": 0, "__data__": {"deps": null, "flag_upstream_failed": true}}`
	)
	type xcom struct {
		task, key string
		value     any
		mapIndex  int
	}
	for _, tc := range []struct {
		name       string
		xcoms      []xcom
		path       string
		wantStatus int
		wantBody   string
	}{
		{name: "missing_dag", path: "/api/v2/dags/INVALID/dagRuns/TEST_DAG_RUN_ID/taskInstances/TEST_SINGLE_LINK/links",
			wantStatus: 404, wantBody: "{\"detail\":\"The Dag with ID: `INVALID` was not found\"}"},
		{name: "missing_task", path: links + "INVALID/links", wantStatus: 404, wantBody: `{"detail":"Task with ID = INVALID not found"}`},
		{name: "test_should_respond_200", xcoms: []xcom{{"TEST_SINGLE_LINK", "search_query", "TEST_LINK_VALUE", -1},
			{"TEST_SINGLE_LINK", "_link_CustomOpLink", google, -1}},
			path: links + "TEST_SINGLE_LINK/links", wantStatus: 200, wantBody: `{"extra_links":{"Google Custom":"` + google + `"},"total_entries":1}`},
		{name: "test_should_respond_200_missing_xcom", path: links + "TEST_SINGLE_LINK/links", wantStatus: 200,
			wantBody: `{"extra_links":{"Google Custom":null},"total_entries":1}`},
		{name: "test_should_respond_200_multiple_links", xcoms: []xcom{
			{"TEST_MULTIPLE_LINKS", "search_query", []string{"TEST_LINK_VALUE_1", "TEST_LINK_VALUE_2"}, -1},
			{"TEST_MULTIPLE_LINKS", "bigquery_1", bq1, -1}, {"TEST_MULTIPLE_LINKS", "bigquery_2", bq2, -1}},
			path: links + "TEST_MULTIPLE_LINKS/links", wantStatus: 200,
			wantBody: `{"extra_links":{"BigQuery Console #1":"` + bq1 + `","BigQuery Console #2":"` + bq2 + `"},"total_entries":2}`},
		{name: "test_should_respond_200_multiple_links_missing_xcom", path: links + "TEST_MULTIPLE_LINKS/links", wantStatus: 200,
			wantBody: `{"extra_links":{"BigQuery Console #1":null,"BigQuery Console #2":null},"total_entries":2}`},
		{name: "test_should_respond_200_mapped_task_instance 0", xcoms: []xcom{
			{"TEST_MAPPED_TASK", "search_query", "TEST_LINK_VALUE_1", 0}, {"TEST_MAPPED_TASK", "_link_CustomOpLink", google + "_1", 0},
			{"TEST_MAPPED_TASK", "search_query", "TEST_LINK_VALUE_2", 1}, {"TEST_MAPPED_TASK", "_link_CustomOpLink", google + "_2", 1}},
			path: links + "TEST_MAPPED_TASK/links?map_index=0", wantStatus: 200, wantBody: `{"extra_links":{"Google Custom":"` + google + `_1"},"total_entries":1}`},
		{name: "test_should_respond_200_mapped_task_instance 1", xcoms: []xcom{
			{"TEST_MAPPED_TASK", "search_query", "TEST_LINK_VALUE_1", 0}, {"TEST_MAPPED_TASK", "_link_CustomOpLink", google + "_1", 0},
			{"TEST_MAPPED_TASK", "search_query", "TEST_LINK_VALUE_2", 1}, {"TEST_MAPPED_TASK", "_link_CustomOpLink", google + "_2", 1}},
			path: links + "TEST_MAPPED_TASK/links?map_index=1", wantStatus: 200, wantBody: `{"extra_links":{"Google Custom":"` + google + `_2"},"total_entries":1}`},
		{name: "test_should_respond_404_invalid_map_index", path: links + "TEST_MAPPED_TASK/links?map_index=4", wantStatus: 404,
			wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "test_should_not_deserialize_ill_formatted_links", xcoms: []xcom{{"TEST_SINGLE_LINK", "_link_CustomOpLink", illFormatted, -1}},
			path: links + "TEST_SINGLE_LINK/links", wantStatus: 200, wantBody: `{"extra_links":{"Google Custom":` + mustJSON(t, illFormatted) + `},"total_entries":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := airflowLinksFixture(t)
			for _, x := range tc.xcoms {
				setAirflowXCom(t, ts, x.task, x.key, x.value, x.mapIndex)
			}
			if res := ts.do(t, http.MethodGet, tc.path, ""); res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("GET %s = %d %s\nwant %d %s", tc.path, res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	t.Run("test_should_respond_401_unauthenticated", func(t *testing.T) {
		t.Parallel()
		ts := airflowLinksFixture(t, withAuth(authSimple, "ann:secret\n"))
		if res := ts.do(t, http.MethodGet, links+"TEST_SINGLE_LINK/links", ""); res.status != http.StatusUnauthorized || res.body != `{"detail":"Not authenticated"}` {
			t.Errorf("GET without a token = %d %s, want 401 Not authenticated", res.status, res.body)
		}
	})
}

// TestV2LinkText: XComOperatorLink.get_link's text of an XCom column, each
// row's want what c57fba0e's operatorlink.py and stringify.py make of the
// same column (checked by running them): a column that is a string is
// json.loads'd first, anything else is stringified as it is.
func TestV2LinkText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ column, want, wantErr string }{
		{column: `"\"http://x\""`, want: "http://x"}, // the public API's text of a string
		{column: `"http://x"`, want: "http://x"},     // a task's string
		{column: `"not json"`, want: "not json"},
		{column: `"42"`, want: "42"},
		{column: `"{\"a\": true}"`, want: "{'a': True}"},
		{column: `""`, want: ""},
		{column: `{"a": 1, "b": [1, 2.5, null]}`, want: "{'a': 1, 'b': [1, 2.5, None]}"},
		{column: `null`, want: "None"},
		{column: `false`, want: "False"},
		{column: `0`, want: "0"},
		{column: `[]`, want: "[]"},
		{column: `{}`, want: "{}"},
		{column: `{"__classname__": "airflow.x.Y", "__version__": 0, "__data__": {"a": null}}`,
			want: "{'__classname__': 'airflow.x.Y', '__version__': 0, '__data__': {'a': None}}"},
		{column: `[{"x": {"__classname__": "airflow.A", "__version__": 0}}]`, want: "[{'x': {'__classname__': 'airflow.A', '__version__': 0}}]"},
		{column: `{"__classname__": "my.Cls", "__version__": 2, "__data__": {"a": null, "b": [1, "x"]}}`, want: "my.Cls@version=2(a=None,b=[1, 'x'])"},
		{column: `{"__classname__": "my.Cls", "__version__": 1, "__data__": "abc"}`, want: "my.Cls@version=1(abc)"},
		{column: `{"__classname__": "my.Cls", "__version__": true, "__data__": 1.5}`, want: "my.Cls@version=True(1.5)"},
		{column: `{"__classname__": "my.Cls", "__version__": 0}`, want: "my.Cls@version=0()"},
		{column: `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, "a", null]}`, want: "(1,a,None)"},
		{column: `{"__type": "dict", "__var": {"k": {"__type": "builtins.set", "__var": [1]}}}`, want: "{'k': '(1)'}"},
		{column: `{"__type": "my.T", "__var": [1, 2]}`, want: "my.T@version=0(1,2)"},
		{column: `{"__classname__": 1, "__version__": 0}`, wantErr: "cannot decode"},
		{column: `{"__classname__": "a", "__version__": 1.5}`, wantErr: "cannot decode"},
		{column: `{"__classname__": "", "__version__": 0}`, wantErr: "classname cannot be empty"},
		{column: `{"__type": "dict", "__var": [1]}`, wantErr: "no dict"},
	} {
		col, err := v2XComColumn(json.RawMessage(tc.column))
		if err != nil {
			t.Fatal(err)
		}
		got, err := v2LinkText(col)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: got %q, %v; want an error with %q", tc.column, got, err, tc.wantErr)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: got %q, %v; want %q", tc.column, got, err, tc.want)
		}
	}
}

// TestAPIv2_ExtraLinksOwnXComKeys: a Python DAG's link that names its
// XCom key (xcom_key) is read from that key, one that does not from
// "_link_<class name>" (Airflow 3's serialized _operator_extra_links keeps
// each link's key).
func TestAPIv2_ExtraLinksOwnXComKeys(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ts := servePy3Folder(t, "testdata/pydags/links3")
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "links3", runID: "r1"}); err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]string{"bigquery_2": "https://two", "_link_PlainLink": "https://plain", "_link_IndexLink": "https://not-read"} {
		if _, err := ts.srv.ops.createXCom("links3", "r1", "linked", key, -1, json.RawMessage(mustJSON(t, value))); err != nil {
			t.Fatal(err)
		}
	}
	(v2Call{name: "keys", method: "GET", path: "/api/v2/dags/links3/dagRuns/r1/taskInstances/linked/links", wantStatus: 200,
		wantBody: `{"extra_links":{"BigQuery Console #1":null,"BigQuery Console #2":"https://two","Plain":"https://plain"},"total_entries":3}`}).check(t, ts)
}
