package main

// Dynamic task mapping: a mapped task (partial/expand, expand_kwargs)
// has one task instance of map_index -1 until its upstream tasks let it
// be scheduled; then the scheduler expands it, as Airflow's
// (2.10.3 models/dagrun.py _get_ready_tis → models/abstractoperator.py
// expand_mapped_task; the lengths and the element of each index:
// models/expandinput.py): that task instance becomes map_index 0 and
// task instances 1..n-1 join it, each a task instance of its own (own
// state, tries, retries, log, pool slot), scheduled, launched and
// finished as any other. Trigger rules of downstream tasks count them
// one by one, as Airflow counts task instances.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// taskMapping is how a mapped task expands: its serialized expand_input
// (2.10.3 serialization/serialized_objects.py _ExpandInputRef).
type taskMapping struct {
	// Kind is "dict-of-lists" (expand) or "list-of-dicts" (expand_kwargs).
	Kind string
	// Args are expand's arguments in the order written (the order fixes
	// which index takes which element: expandinput.py
	// _find_index_for_this_field); expand_kwargs has one, named "".
	Args []mappedArg
}

// mappedArg is one expanded argument: a literal list or dict (its length
// known at parse time), or a reference to an upstream task's XCom.
type mappedArg struct {
	Name    string
	Length  int     // a literal's
	Literal bool    // false: Ref
	Ref     xcomRef // an XComArg
	Value   any     // the literal, decoded
}

// xcomRef is a serialized XComArg ({"__type": "xcomref", "__var":
// {"task_id", "key"}}).
type xcomRef struct {
	TaskID string `json:"task_id"`
	Key    string `json:"key"`
}

// parseTaskMapping reads a serialized expand_input: {"type", "value"},
// the value's keys in the order they were written.
func parseTaskMapping(raw json.RawMessage) (*taskMapping, error) {
	var in struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("read expand_input: %w", err)
	}
	m := &taskMapping{Kind: in.Type}
	switch in.Type {
	case "list-of-dicts":
		arg, err := readMappedArg("", in.Value)
		if err != nil {
			return nil, err
		}
		m.Args = []mappedArg{arg}
	case "dict-of-lists":
		names, values, err := orderedObject(in.Value)
		if err != nil {
			return nil, fmt.Errorf("read expand_input: %w", err)
		}
		for i, name := range names {
			arg, err := readMappedArg(name, values[i])
			if err != nil {
				return nil, err
			}
			m.Args = append(m.Args, arg)
		}
	default:
		return nil, fmt.Errorf("read expand_input: unknown type %q", in.Type)
	}
	return m, nil
}

// readMappedArg reads one serialized expanded argument.
func readMappedArg(name string, raw json.RawMessage) (mappedArg, error) {
	var ref struct {
		Type string  `json:"__type"`
		Var  xcomRef `json:"__var"`
	}
	if json.Unmarshal(raw, &ref) == nil && ref.Type == "xcomref" {
		return mappedArg{Name: name, Ref: ref.Var}, nil
	}
	v := pyDecode(raw)
	n, ok := mappableLength(v)
	if !ok {
		return mappedArg{}, fmt.Errorf("expand %s: can't map over value of type %s", name, pyValueTypeName(v))
	}
	return mappedArg{Name: name, Literal: true, Length: n, Value: v}, nil
}

// mappableLength is the length of a value a task may map over: a list (a
// tuple or a set airlite stored as one), a dict, or a tuple in serde's
// form (builtins.tuple, as Airflow 3's Task SDK and 2.10.3's XComEncoder
// store one). Another serde object (a set, a date) is no sequence
// (is_mappable_value).
func mappableLength(v any) (int, bool) {
	switch x := v.(type) {
	case []any:
		return len(x), true
	case map[string]any:
		if class, ok := serdeClassOf(x); ok {
			items, isList := x["__data__"].([]any)
			if class == "builtins.tuple" && isList {
				return len(items), true
			}
			return 0, false
		}
		return len(x), true
	}
	return 0, false
}

// serdeClassOf is the class of a value in serde's encoded form (a dict
// with a str __classname__ and a __version__), which no value a task
// pushes holds otherwise (serde refuses the key in a dict).
func serdeClassOf(d map[string]any) (string, bool) {
	class, ok := d["__classname__"].(string)
	if _, versioned := d["__version__"]; !ok || !versioned {
		return "", false
	}
	return class, true
}

func pyValueTypeName(v any) string {
	if d, ok := v.(map[string]any); ok {
		if class, ok := serdeClassOf(d); ok {
			return class[strings.LastIndexByte(class, '.')+1:]
		}
		return "dict"
	}
	switch v.(type) {
	case nil:
		return "None"
	case string:
		return "str"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// orderedObject reads a JSON object's keys and values in the order
// written (a Go map would lose it).
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("want an object, not %v", tok)
	}
	var names []string
	var values []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		names, values = append(names, tok.(string)), append(values, v)
	}
	return names, values, nil
}

// mapLength is how many task instances the task expands into in this
// run: the product of its arguments' lengths (expandinput.py
// get_total_map_length), an upstream's by the value it pushed: a list's
// or a dict's length, or for a mapped upstream the number of its
// instances that pushed. ok is false when an upstream value is missing
// (Airflow's NotFullyPopulated).
func (s *scheduler) mapLength(dag *DAG, task *Task, run *DagRun) (n int, ok bool, err error) {
	n = 1
	for _, arg := range task.Mapping.Args {
		length := arg.Length
		if !arg.Literal {
			var found bool
			if length, found, err = s.refLength(dag, run, arg); err != nil || !found {
				return 0, false, err
			}
		}
		n *= length
	}
	return n, true, nil
}

// refLength is the length of the XCom an argument refers to.
func (s *scheduler) refLength(dag *DAG, run *DagRun, arg mappedArg) (int, bool, error) {
	entries, err := s.opts.Store.XComsToPull(XComPullQuery{DagIDs: []string{dag.DagID},
		TaskIDs: []string{arg.Ref.TaskID}, Key: arg.Ref.Key, RunID: run.RunID})
	if err != nil {
		return 0, false, fmt.Errorf("pull %s of %s: %w", arg.Ref.Key, arg.Ref.TaskID, err)
	}
	if up := dag.Task(arg.Ref.TaskID); up != nil && up.Mapping != nil {
		n := 0
		for _, e := range entries {
			if e.MapIndex >= 0 {
				n++
			}
		}
		return n, true, nil
	}
	for _, e := range entries {
		if e.MapIndex != -1 {
			continue
		}
		if e.MapLength != nil {
			// TaskMap's length, recorded at the push: what the value
			// became since (a PATCH) does not count.
			return *e.MapLength, true, nil
		}
		n, ok := mappableLength(pyDecode(e.Value))
		if !ok {
			// 2.10.3 models/taskinstance.py _record_task_map_for_downstreams:
			// UnmappableXComTypePushed.
			return 0, false, fmt.Errorf("unmappable return type %s pushed by %s: the task's expand needs a list or a dict",
				pyValueTypeName(pyDecode(e.Value)), arg.Ref.TaskID)
		}
		return n, true, nil
	}
	return 0, false, nil
}

// revise brings an expanded task's instances in line with its length as
// it is now, when one of them is to be scheduled again (a clear), as
// 2.10.3 dagrun.py _revise_map_indexes_if_mapped does once per task and
// pass: indexes beyond the length are removed, missing ones are made
// (from tis[0], in no state, then scheduled with the others). It returns
// the length (the instances' count when it cannot be read: nothing
// changes) and the task instances it changed or made.
func (s *scheduler) revise(dag *DAG, task *Task, run *DagRun, tis []*TaskInstance, now time.Time) (int, []*TaskInstance) {
	n, ok, err := s.mapLength(dag, task, run)
	if err != nil || !ok {
		return len(tis), nil
	}
	var changed []*TaskInstance
	have := map[int]bool{}
	for _, ti := range tis {
		have[ti.MapIndex] = true
		if ti.MapIndex >= n && ti.State != TaskRemoved {
			changed = append(changed, s.decided(ti, TaskRemoved, now))
		}
	}
	for i := range n {
		if have[i] {
			continue
		}
		one := *tis[0]
		one.MapIndex, one.State, one.TryNumber = i, TaskNone, 0
		one.StartDate, one.EndDate, one.Duration, one.QueuedDttm, one.NextRetryAt = nil, nil, nil, nil, nil
		one.Note, one.Rendered, one.RenderedMapIndex, one.PID, one.ProcIdentity, one.Hostname = nil, nil, nil, nil, "", ""
		nextTryID(&one)
		changed = append(changed, s.decided(&one, TaskScheduled, now))
	}
	return n, changed
}

// expand is what a mapped task's map_index -1 task instance becomes once
// its upstream tasks let it be scheduled (2.10.3 abstractoperator.py
// expand_mapped_task:605-680): with a length n > 0, task instances
// 0..n-1, the -1 one turned into index 0 (its id and note kept), the
// others new, all scheduled at now (Airflow creates them and schedules
// them in the same pass); with a length of 0 the -1 task instance
// skipped; with an upstream value missing, upstream_failed. A length that
// cannot be read (an upstream pushed what cannot be mapped over) fails
// it.
func (s *scheduler) expand(dag *DAG, task *Task, run *DagRun, ti *TaskInstance, now time.Time) []*TaskInstance {
	n, ok, err := s.mapLength(dag, task, run)
	if err != nil || !ok || n == 0 {
		state := TaskSkipped
		switch {
		case err != nil:
			state = TaskFailed
			s.opts.Logger.Warn().Err(err).Str("task", ti.key().String()).Msg("mapped task fails: it cannot expand")
		case !ok:
			state = TaskUpstreamFailed
		}
		if state == TaskFailed {
			// airlite's own outcome (Airflow fails the upstream task that
			// pushed it): dated as a failed try would be.
			return []*TaskInstance{s.decidedByRule(ti, state, now)}
		}
		return []*TaskInstance{s.decided(ti, state, now)}
	}
	out := make([]*TaskInstance, n)
	for i := range n {
		one := s.decided(ti, TaskScheduled, now)
		one.MapIndex = i
		if i > 0 {
			nextTryID(one)
			one.Note, one.Rendered, one.RenderedMapIndex = nil, nil, nil
		}
		out[i] = one
	}
	return out
}
