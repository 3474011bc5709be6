package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestServerV1_ClearTaskInstancesParentDag: include_parentdag (false by
// default, Airflow 2.10.3 airflow/api_connexion/schemas/task_instance_schema.py:181)
// on a sub-DAG also reaches the parent's SubDagOperator that runs it and
// that task's downstream tasks, in the parent's runs in the same range,
// with the same task_ids, state and include_subdags filters, one level
// up (airflow/models/dag.py:2012-2035). The first case is
// tests/api_connexion/endpoints/test_task_instance_endpoint.py:1272-1297
// ("include parent dag": one failed task instance per parent run, 4 of
// them the SubDagOperator or downstream of it).
func TestServerV1_ClearTaskInstancesParentDag(t *testing.T) {
	t.Parallel()
	const parent, sub = "example_subdag_operator", "example_subdag_operator.section-1"
	// p1..p5 on 2024-01-01..05, at pN the parent's N-th task failed; the
	// sub-DAG's runs share the parent's run ids.
	parentTasks := []string{"start", "section-1", "some-other-task", "section-2", "end"}
	setup := func(t *testing.T, ts *testServer) {
		t.Helper()
		for i, task := range parentTasks {
			n := string(rune('1' + i))
			ts.postRun(t, parent, `{"dag_run_id": "p`+n+`", "logical_date": "2024-01-0`+n+`T00:00:00+00:00"}`)
			ts.setTaskState(t, parent, "p"+n, task, TaskFailed)
		}
		ts.setTaskState(t, sub, "p2", "section-1-task-3", TaskFailed)
	}
	cases := []struct {
		name, body string
		want       []string // dag_id/run/task
	}{
		{"include parent dag (Airflow's case)", `{"dry_run": true, "include_parentdag": true}`,
			[]string{parent + "/p2/section-1", parent + "/p3/some-other-task", parent + "/p4/section-2", parent + "/p5/end", sub + "/p2/section-1-task-3"}},
		{"the sub-DAG alone by default", `{}`,
			[]string{sub + "/p2/section-1-task-3"}},
		{"one run: the parent's run at its date", `{"include_parentdag": true, "dag_run_id": "p2"}`,
			[]string{parent + "/p2/section-1", sub + "/p2/section-1-task-3"}},
		{"task_ids filter the parent's tasks too", `{"include_parentdag": true, "task_ids": ["section-1-task-3"]}`,
			[]string{sub + "/p2/section-1-task-3"}},
		{"with include_subdags: the parent's other sub-DAG too", `{"include_parentdag": true, "include_subdags": true, "only_failed": false, "dag_run_id": "p5"}`,
			append(append(refsOf(parent, "p5", parentTasks[1:]...), refsOf(sub, "p5", sectionTasks("section-1")...)...),
				refsOf("example_subdag_operator.section-2", "p5", sectionTasks("section-2")...)...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2)
			setup(t, ts)
			res := ts.v1(t, "POST", "/dags/"+sub+"/clearTaskInstances", tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			want := slices.Sorted(slices.Values(tc.want))
			if got := dagTIRefsOf(t, res.body); !slices.Equal(got, want) {
				t.Errorf("answered %v,\nwant %v", got, want)
			}
			if got := ts.tiState(t, parent, "p2", "section-1"); got != TaskFailed {
				t.Errorf("a dry run changed %s/p2/section-1 to %q", parent, orNone(got))
			}
		})
	}
	t.Run("cleared, runs reset", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2)
		setup(t, ts)
		res := ts.v1(t, "POST", "/dags/"+sub+"/clearTaskInstances", `{"dry_run": false, "include_parentdag": true, "dag_run_id": "p4", "reset_dag_runs": true}`)
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		if got := ts.tiState(t, parent, "p4", "section-2"); got != TaskNone {
			t.Errorf("%s/p4/section-2 = %q, want none", parent, orNone(got))
		}
		if got := ts.tiState(t, parent, "p2", "section-1"); got != TaskFailed {
			t.Errorf("%s/p2/section-1 (out of range) = %q, want failed", parent, orNone(got))
		}
	})
}

func refsOf(dagID, runID string, tasks ...string) []string {
	var refs []string
	for _, task := range tasks {
		refs = append(refs, dagID+"/"+runID+"/"+task)
	}
	return refs
}

func sectionTasks(section string) []string {
	var ids []string
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		ids = append(ids, section+"-task-"+n)
	}
	return ids
}

// dagTIRefsOf reads a task instance reference collection as sorted
// "dag/run/task" triples.
func dagTIRefsOf(t *testing.T, body string) []string {
	t.Helper()
	var c struct {
		TaskInstances []struct {
			DagID  string `json:"dag_id"`
			RunID  string `json:"dag_run_id"`
			TaskID string `json:"task_id"`
		} `json:"task_instances"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("collection %q: %v", body, err)
	}
	refs := []string{}
	for _, ti := range c.TaskInstances {
		refs = append(refs, strings.Join([]string{ti.DagID, ti.RunID, ti.TaskID}, "/"))
	}
	slices.Sort(refs)
	return refs
}

// TestServerV1_ClearTaskInstancesNestedParentDag: on a sub-DAG of a
// sub-DAG, include_parentdag reaches the SubDagOperator that runs it, in
// its parent (one level, as Airflow 2.10.3 airflow/models/dag.py:2029
// passes include_parentdag=False upward), where Airflow looks the task up
// by the second part of the dag_id (:2016-2017) and finds none
// (docs/behaviour.md §5).
func TestServerV1_ClearTaskInstancesNestedParentDag(t *testing.T) {
	t.Parallel()
	var nested []*DAG
	for _, text := range []string{`
dag_id: outer
schedule: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: mid, operator: SubDagOperator, subdag: outer.mid, downstream: [after]}
  - {task_id: after, operator: EmptyOperator}
`, `
dag_id: outer.mid
schedule: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: inner, operator: SubDagOperator, subdag: outer.mid.inner}
`, `
dag_id: outer.mid.inner
schedule: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: work, operator: EmptyOperator}
`} {
		d, err := parseDAG([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		nested = append(nested, d)
	}
	// As loading a folder links them (withDAG reads one file alone).
	if err := linkSubDAGs(nested, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = &DAGSet{DAGs: nested} }))
	ts.postRun(t, "outer", `{"dag_run_id": "o1", "logical_date": "2024-01-02T00:00:00+00:00"}`)
	res := ts.v1(t, "POST", "/dags/outer.mid.inner/clearTaskInstances", `{"only_failed": false, "include_parentdag": true}`)
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	want := []string{"outer.mid.inner/o1/work", "outer.mid/o1/inner"}
	if got := dagTIRefsOf(t, res.body); !slices.Equal(got, want) {
		t.Errorf("answered %v, want %v", got, want)
	}
}
