package main

import (
	"slices"
	"strings"
	"testing"
)

// TestTaskGroups_KeptFromPythonFile: a Python DAG's groups are the ones
// its file made, not the prefixes of task ids: a group without
// prefix_group_id holds tasks whose ids name no group (one with a dot of
// its own), nesting and tooltips are kept, and the status page's graph
// draws them so.
func TestTaskGroups_KeptFromPythonFile(t *testing.T) {
	t.Parallel()
	set := readPyServeFolder(t, "testdata/pydags/groups")
	var dag *DAG
	for _, d := range set.DAGs {
		if d.DagID == "py_groups" {
			dag = d
		}
	}
	if dag == nil {
		t.Fatalf("py_groups not loaded: %+v", set.ImportErrors)
	}
	for task, want := range map[string]string{"top": "", "outer.a": "outer", "outer.inner.b": "outer.inner", "c": "flat", "d.e": "flat"} {
		if got := dag.TaskGroupOf(task); got != want {
			t.Errorf("TaskGroupOf(%s) = %q, want %q", task, got, want)
		}
	}
	for group, want := range map[string]string{"outer": "", "outer.inner": "outer", "flat": ""} {
		if got := dag.ParentGroupOf(group); got != want {
			t.Errorf("ParentGroupOf(%s) = %q, want %q", group, got, want)
		}
	}
	flat := dag.TaskGroupByID("flat")
	if flat == nil || flat.PrefixGroupID || flat.Tooltip != "no prefix" || flat.Label != "flat" || !slices.Equal(flat.TaskIDs, []string{"c", "d.e"}) {
		t.Errorf("group flat = %+v, want no prefix, its tooltip, tasks c and d.e", flat)
	}
	if inner := dag.TaskGroupByID("outer.inner"); inner == nil || inner.Label != "inner" || !inner.PrefixGroupID {
		t.Errorf("group outer.inner = %+v, want label inner, prefixed", inner)
	}
	g := buildGraph(dag, nil, nil)
	var groups []string
	tooltips := map[string]string{}
	for _, gr := range g.Groups {
		groups = append(groups, gr.GroupID)
		tooltips[gr.GroupID] = gr.Tooltip
	}
	// Outer groups first; no group "d" from the task id d.e.
	if !slices.Equal(groups, []string{"flat", "outer", "outer.inner"}) {
		t.Errorf("graph groups = %v, want flat, outer, outer.inner", groups)
	}
	if tooltips["outer"] != "the outer group" {
		t.Errorf("outer's tooltip = %q", tooltips["outer"])
	}
	for _, n := range g.Nodes {
		want := map[string]string{"top": "top", "outer.a": "a", "outer.inner.b": "b", "c": "c", "d.e": "d.e"}[n.TaskID]
		if n.Label != want {
			t.Errorf("node %s labelled %q, want %q", n.TaskID, n.Label, want)
		}
	}
	box := map[string]graphGroup{}
	for _, gr := range g.Groups {
		box[gr.GroupID] = gr
	}
	if in, out := box["outer.inner"], box["outer"]; in.X < out.X || in.X+in.W > out.X+out.W {
		t.Errorf("outer.inner's box %+v is not inside outer's %+v", in, out)
	}
}

// TestServePython_GroupTooltipOnPage: the run page's graph gives a
// group's box its tooltip as the box's title.
func TestServePython_GroupTooltipOnPage(t *testing.T) {
	t.Parallel()
	ts := servePyFolder(t, "testdata/pydags/groups")
	res := ts.do(t, "GET", "/dags/py_groups/graph", "")
	if res.status != 200 {
		t.Fatalf("GET /dags/py_groups/graph: %d", res.status)
	}
	if !strings.Contains(res.body, `<g class="group" data-group-id="flat"><title>no prefix</title>`) {
		t.Errorf("the page lacks group flat with its tooltip:\n%s", res.body)
	}
}

// TestTasksInGroupByTaskIDs: a DAG without kept groups (the examples
// written in Go) has the groups its dotted task ids name, nested ones
// included; "" (the root) and a bare prefix of an id are none.
func TestTasksInGroupByTaskIDs(t *testing.T) {
	t.Parallel()
	d := &DAG{Tasks: []*Task{{TaskID: "g.a"}, {TaskID: "g.h.b"}, {TaskID: "gx"}, {TaskID: "top"}}}
	for _, tc := range []struct {
		group  string
		want   []string
		wantOK bool
	}{
		{"g", []string{"g.a", "g.h.b"}, true},
		{"g.h", []string{"g.h.b"}, true},
		{"", nil, false},
		{"top", []string{}, false},
		{"gx.", []string{}, false},
	} {
		ids, ok := d.TasksInGroup(tc.group)
		if ok != tc.wantOK || !slices.Equal(ids, tc.want) {
			t.Errorf("TasksInGroup(%q) = %v %v, want %v %v", tc.group, ids, ok, tc.want, tc.wantOK)
		}
	}
}
