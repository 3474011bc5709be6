package main

// Task groups as the DAG file made them (2.10.3 utils/task_group.py
// TaskGroup; serialized by serialization/serialized_objects.py
// TaskGroupSerialization): kept on the DAG rather than guessed from the
// dots of task ids, since a group with prefix_group_id=False gives its
// tasks no prefix and a task id may hold dots of its own.

import (
	"slices"
	"strings"
)

// TaskGroup is one task group: the root group (GroupID "") holds the
// DAG's tasks and groups outside any other.
type TaskGroup struct {
	GroupID       string // the full id, with its parents' prefixes when they prefix; "" for the root
	Label         string // the id as the file wrote it (TaskGroup.label)
	Tooltip       string
	PrefixGroupID bool
	UIColor       string
	UIFgcolor     string
	TaskIDs       []string     // the tasks directly in the group, sorted
	Groups        []*TaskGroup // the groups directly in it, by group id
}

// taskGroupIndex finds a task's group and a group's parent.
type taskGroupIndex struct {
	root     *TaskGroup
	ofTask   map[string]*TaskGroup
	parentOf map[string]*TaskGroup // by group id
	byID     map[string]*TaskGroup
}

func newTaskGroupIndex(root *TaskGroup) *taskGroupIndex {
	x := &taskGroupIndex{root: root, ofTask: map[string]*TaskGroup{}, parentOf: map[string]*TaskGroup{}, byID: map[string]*TaskGroup{}}
	var walk func(g *TaskGroup)
	walk = func(g *TaskGroup) {
		x.byID[g.GroupID] = g
		for _, id := range g.TaskIDs {
			x.ofTask[id] = g
		}
		for _, child := range g.Groups {
			x.parentOf[child.GroupID] = g
			walk(child)
		}
	}
	walk(root)
	return x
}

// TaskGroupOf is the id of the group a task is directly in ("" for the
// root): the kept groups when the DAG has them (a Python file), else the
// prefix of the task id before its last dot, which is how the examples
// written in YAML name their groups (TaskGroup.child_id).
func (d *DAG) TaskGroupOf(taskID string) string {
	if d.groups != nil {
		if g := d.groups.ofTask[taskID]; g != nil {
			return g.GroupID
		}
		return ""
	}
	return taskGroupOf(taskID)
}

// ParentGroupOf is the id of the group that holds a group ("" for one in
// the root group).
func (d *DAG) ParentGroupOf(groupID string) string {
	if d.groups != nil {
		if p := d.groups.parentOf[groupID]; p != nil {
			return p.GroupID
		}
		return ""
	}
	return taskGroupOf(groupID)
}

// TaskGroupByID is a kept group (nil for a DAG without kept groups, or an
// unknown id).
func (d *DAG) TaskGroupByID(groupID string) *TaskGroup {
	if d.groups == nil {
		return nil
	}
	return d.groups.byID[groupID]
}

// TasksInGroup is the ids of every task in a group and in the groups
// nested in it (TaskGroup.iter_tasks), found by the group's full id as
// get_task_group_dict keys it; ok is false for an id no group has (the
// root group's id is None there, so "" is none). A DAG without kept
// groups has the groups its task ids name (taskGroupOf).
func (d *DAG) TasksInGroup(groupID string) (ids []string, ok bool) {
	if groupID == "" {
		return nil, false
	}
	if d.groups == nil {
		ids = []string{}
		for _, t := range d.Tasks {
			if strings.HasPrefix(t.TaskID, groupID+".") {
				ids = append(ids, t.TaskID)
			}
		}
		return ids, len(ids) > 0
	}
	g := d.groups.byID[groupID]
	if g == nil {
		return nil, false
	}
	ids = []string{}
	var walk func(g *TaskGroup)
	walk = func(g *TaskGroup) {
		ids = append(ids, g.TaskIDs...)
		for _, child := range g.Groups {
			walk(child)
		}
	}
	walk(g)
	return ids, true
}

// taskGroupOf is the task group a task id names: Airflow prefixes a task
// in a group with the group ids ("section_1.task_1", 2.10.3
// utils/task_group.py:TaskGroup.child_id), so the prefix before the last
// dot is its group, "" for the root group. YAML DAGs have no groups, and
// their ids no dots.
func taskGroupOf(taskID string) string {
	if i := strings.LastIndexByte(taskID, '.'); i > 0 {
		return taskID[:i]
	}
	return ""
}

// pyTaskGroupTree makes the kept form of a serialized root group. A
// group's label is its id without the prefix its parent gave it
// (TaskGroup.label); the serialized children are keyed by full id.
func pyTaskGroupTree(g *pyTaskGroup) *TaskGroup {
	out := &TaskGroup{GroupID: deref(g.GroupID), Tooltip: g.Tooltip, PrefixGroupID: g.PrefixGroupID,
		UIColor: g.UIColor, UIFgcolor: g.UIFgcolor, TaskIDs: []string{}}
	out.Label = out.GroupID
	for _, child := range g.Children {
		switch {
		case child.Group != nil:
			sub := pyTaskGroupTree(child.Group)
			if out.PrefixGroupID && out.GroupID != "" {
				sub.Label = strings.TrimPrefix(sub.GroupID, out.GroupID+".")
			}
			out.Groups = append(out.Groups, sub)
		case child.TaskID != "":
			out.TaskIDs = append(out.TaskIDs, child.TaskID)
		}
	}
	slices.Sort(out.TaskIDs)
	slices.SortFunc(out.Groups, func(a, b *TaskGroup) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out
}
