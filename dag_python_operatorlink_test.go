package main

import (
	"encoding/json"
	"testing"
)

// TestPythonDAG_BaseOperatorLinkPerEdition: a DAG file's link class
// deriving from BaseOperatorLink imports where each release has it
// (3.2.1: airflow.sdk and the deprecated airflow.models.baseoperatorlink;
// 2.10.3: airflow.models.baseoperatorlink and airflow.models; 1.10.15:
// airflow.models.baseoperator); the files assert the rest (abstractness,
// xcom_key only in 3, the modules a release lacks).
func TestPythonDAG_BaseOperatorLinkPerEdition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e     edition
		dir   string
		dagID string
	}{
		{edition3, "testdata/pydags/opslinks", "opslinks3"},
		{edition2, "testdata/pydags/opslinks2", "opslinks2"},
		{edition110, "testdata/pydags/opslinks110", "opslinks110"},
	} {
		t.Run(string(tc.e), func(t *testing.T) {
			t.Parallel()
			set := readPyServeFolderAs(t, tc.dir, tc.e)
			if len(set.ImportErrors) > 0 {
				t.Fatalf("import errors: %+v", set.ImportErrors)
			}
			if len(set.DAGs) != 1 || set.DAGs[0].DagID != tc.dagID {
				t.Fatalf("read %d DAGs, want %s alone", len(set.DAGs), tc.dagID)
			}
		})
	}
}

// TestAPIv2_ExtraLinksOfBaseOperatorLink: a BaseOperatorLink subclass's
// link is read from _link_<class name>, or from the xcom_key the class
// names (task-sdk bases/operatorlink.py xcom_key).
func TestAPIv2_ExtraLinksOfBaseOperatorLink(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ts := servePy3Folder(t, "testdata/pydags/opslinks")
	if _, err := ts.srv.ops.trigger(triggerRequest{dagID: "opslinks3", runID: "r1"}); err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]string{"_link_DocsLink": "https://docs", "keyed": "https://keyed"} {
		if _, err := ts.srv.ops.createXCom("opslinks3", "r1", "linked", key, -1, json.RawMessage(mustJSON(t, value))); err != nil {
			t.Fatal(err)
		}
	}
	(v2Call{name: "links", method: "GET", path: "/api/v2/dags/opslinks3/dagRuns/r1/taskInstances/linked/links", wantStatus: 200,
		wantBody: `{"extra_links":{"Docs":"https://docs","Keyed":"https://keyed"},"total_entries":2}`}).check(t, ts)
}
