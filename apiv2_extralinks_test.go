package main

import (
	"encoding/json"
	"testing"
)

// TestAPIv2_ExtraLinksOfMappedInstances follows test_extra_links.py's
// test_should_respond_200_mapped_task_instance and
// test_should_respond_404_invalid_map_index: get_extra_links looks the
// task instance up by its map_index, so an expanded instance has its
// answer and an index with no instance is the 404.
func TestAPIv2_ExtraLinksOfMappedInstances(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	dag := benchDAG(t, "wide", 2)
	if _, err := ts.store.UpsertDAG(dag); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "wide", runID: "r1"}); err != nil {
		t.Fatal(err)
	}
	expandLastTask(t, ts.store, dag, 2)
	const links = "/api/v2/dags/wide/dagRuns/r1/taskInstances/"
	for _, c := range []v2Call{
		{name: "index 0", method: "GET", path: links + "t1/links?map_index=0", wantStatus: 200, wantBody: `{"extra_links":{},"total_entries":0}`},
		{name: "index 1", method: "GET", path: links + "t1/links?map_index=1", wantStatus: 200, wantBody: `{"extra_links":{},"total_entries":0}`},
		{name: "index 4", method: "GET", path: links + "t1/links?map_index=4", wantStatus: 404, wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "no -1 left", method: "GET", path: links + "t1/links", wantStatus: 404, wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "unmapped", method: "GET", path: links + "t0/links", wantStatus: 200, wantBody: `{"extra_links":{},"total_entries":0}`},
		{name: "unmapped index 0", method: "GET", path: links + "t0/links?map_index=0", wantStatus: 404, wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "missing task", method: "GET", path: links + "INVALID/links", wantStatus: 404, wantBody: `{"detail":"Task with ID = INVALID not found"}`},
		// get_dag_for_run_or_latest_version: no run is the DAG's latest
		// version, so the task is checked and the instance is not there;
		// no DAG either is common/dagbag.py's 404.
		{name: "missing run", method: "GET", path: "/api/v2/dags/wide/dagRuns/nope/taskInstances/t0/links", wantStatus: 404,
			wantBody: `{"detail":"TaskInstance not found"}`},
		{name: "missing run and task", method: "GET", path: "/api/v2/dags/wide/dagRuns/nope/taskInstances/INVALID/links", wantStatus: 404,
			wantBody: `{"detail":"Task with ID = INVALID not found"}`},
		{name: "missing dag", method: "GET", path: "/api/v2/dags/nope/dagRuns/r1/taskInstances/t0/links", wantStatus: 404,
			wantBody: "{\"detail\":\"The Dag with ID: `nope` was not found\"}"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts) })
	}
}

// TestAPIv2_ExtraLinksOfTheOperator: a task whose operator has extra
// links (ExternalTaskSensor's "External DAG") lists each by name, its
// URL the XCom the link is read from (XComOperatorLink: key
// "_link_<link class>") or null without one (test_extra_links.py's
// test_should_respond_200_missing_xcom and test_should_respond_200).
func TestAPIv2_ExtraLinksOfTheOperator(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ts := servePy3Folder(t, "testdata/pydags/conform3")
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "conform3_flow", runID: "r1"}); err != nil {
		t.Fatal(err)
	}
	const links = "/api/v2/dags/conform3_flow/dagRuns/r1/taskInstances/"
	(v2Call{name: "no xcom", method: "GET", path: links + "wait/links", wantStatus: 200,
		wantBody: `{"extra_links":{"External DAG":null},"total_entries":1}`}).check(t, ts)
	(v2Call{name: "no links", method: "GET", path: links + "make/links", wantStatus: 200,
		wantBody: `{"extra_links":{},"total_entries":0}`}).check(t, ts)
	if _, err := ts.srv.ops.createXCom("conform3_flow", "r1", "wait", "_link_ExternalDagLink", -1, json.RawMessage(`"http://airlite/dags/x"`)); err != nil {
		t.Fatal(err)
	}
	(v2Call{name: "xcom", method: "GET", path: links + "wait/links", wantStatus: 200,
		wantBody: `{"extra_links":{"External DAG":"http://airlite/dags/x"},"total_entries":1}`}).check(t, ts)
}
