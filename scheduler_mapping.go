package main

// Dynamic task mapping: a mapped task (partial/expand, expand_kwargs)
// expands when it runs into one task instance per element, map_index
// 0..n-1, as Airflow's scheduler expands it (2.10.3
// models/abstractoperator.py expand_mapped_task; the lengths and the
// element of each index: models/expandinput.py). airlite keeps the task's
// one task instance (Airflow's map_index -1 row) and the expanded ones in
// it (TaskInstance.Mapped): the task takes one try of the scheduler, which
// runs each instance not yet successful in turn, each in a process of its
// own, and ends as its instances do. Trigger rules count the expanded
// instances one by one, as Airflow counts task instances.

import (
	"bytes"
	"context"
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
// tuple or a set decode to one) or a dict.
func mappableLength(v any) (int, bool) {
	switch x := v.(type) {
	case []any:
		return len(x), true
	case map[string]any:
		return len(x), true
	}
	return 0, false
}

func pyValueTypeName(v any) string {
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
// (Airflow's NotFullyPopulated), which skips the task as a length of 0
// does.
func (s *scheduler) mapLength(job taskJob) (n int, ok bool, err error) {
	n = 1
	for _, arg := range job.task.Mapping.Args {
		length := arg.Length
		if !arg.Literal {
			var found bool
			if length, found, err = s.refLength(job, arg); err != nil || !found {
				return 0, false, err
			}
		}
		n *= length
	}
	return n, true, nil
}

// refLength is the length of the XCom an argument refers to.
func (s *scheduler) refLength(job taskJob, arg mappedArg) (int, bool, error) {
	entries, err := s.opts.Store.XComsToPull(XComPullQuery{DagIDs: []string{job.dag.DagID},
		TaskIDs: []string{arg.Ref.TaskID}, Key: arg.Ref.Key, RunID: job.run.RunID})
	if err != nil {
		return 0, false, fmt.Errorf("pull %s of %s: %w", arg.Ref.Key, arg.Ref.TaskID, err)
	}
	if up := job.dag.Task(arg.Ref.TaskID); up != nil && up.Mapping != nil {
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

// runMapped runs one try of a mapped task: it expands, then runs each
// instance that has not succeeded yet (a retry runs only those, as each
// of Airflow's mapped task instances retries on its own), one after
// another, through the scheduler's task runner with its map index; the
// task instance ends failed if one failed, skipped if all skipped (or
// none were made), else success.
func (s *scheduler) runMapped(ctx context.Context, job taskJob) taskOutcome {
	n, ok, err := s.mapLength(job)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	if !ok || n == 0 {
		// 2.10.3 abstractoperator.py expand_mapped_task: no instance to
		// make, so the unmapped task instance is skipped.
		why := "it expands into no task instance (an empty list)"
		if !ok {
			why = "an upstream value it expands over is missing"
		}
		return taskOutcome{state: TaskSkipped, mapped: []MappedInstance{},
			output: fmt.Sprintf("[airlite] mapped task skipped: %s\n", why)}
	}
	var earlier []MappedInstance
	if ti, err := s.opts.Store.TaskInstance(job.key.dagID, job.key.runID, job.key.taskID); err == nil && len(ti.Mapped) == n {
		earlier = ti.Mapped
	}
	out := taskOutcome{state: TaskSkipped, mapped: make([]MappedInstance, n)}
	var log strings.Builder
	for i := range n {
		mi := MappedInstance{MapIndex: i}
		if earlier != nil {
			mi = earlier[i]
			if mi.State == TaskSuccess || mi.State == TaskSkipped {
				// Kept from an earlier try, with what it pushed.
				out.mapped[i] = mi
				out.pushed = append(out.pushed, mi.pushes()...)
				continue
			}
		}
		if ctx.Err() != nil {
			mi.State = TaskNone
			out.mapped[i] = mi
			continue
		}
		start := s.opts.Now().UTC().Truncate(time.Microsecond)
		mi.TryNumber++
		one := job
		index := i
		one.mapIndex = &index
		got := s.runGuarded(ctx, one)
		end := s.opts.Now().UTC().Truncate(time.Microsecond)
		d := end.Sub(start).Seconds()
		mi.State, mi.StartDate, mi.EndDate, mi.Duration = got.state, &start, &end, &d
		mi.Rendered, mi.RenderedMapIndex = got.rendered, got.renderedMapIndex
		if mi.State == "" {
			mi.State = TaskFailed
		}
		pushes := s.xcomPushes(job.task, got)
		if got.state != TaskSuccess {
			pushes = got.pushed
		}
		mi.Pushed = nil
		for _, p := range pushes {
			p.MapIndex = &index
			mi.Pushed = append(mi.Pushed, mappedPush{Key: p.Key, Value: string(p.Value)})
			out.pushed = append(out.pushed, p)
		}
		out.mapped[i] = mi
		fmt.Fprintf(&log, "[airlite] map_index %d, try %d: %s\n", i, mi.TryNumber, mi.State)
		log.WriteString(got.output)
		if got.reason != "" && got.state != TaskSuccess {
			fmt.Fprintf(&log, "[airlite] map_index %d: %s\n", i, got.reason)
		}
		out.cut = out.cut || got.cut
	}
	failed, stopped := 0, 0
	for _, mi := range out.mapped {
		switch mi.State {
		case TaskSuccess:
			if out.state == TaskSkipped {
				out.state = TaskSuccess
			}
		case TaskSkipped:
		case TaskNone:
			stopped++
		default:
			failed++
		}
	}
	if failed > 0 || stopped > 0 {
		out.state = TaskFailed
		out.reason = fmt.Sprintf("%d of %d mapped task instances failed", failed, n)
		if stopped > 0 {
			out.reason = "stopped: " + context.Cause(ctx).Error()
		}
	}
	out.output = log.String()
	return out
}

// pushes are what an instance kept from an earlier try pushed.
func (mi MappedInstance) pushes() []xcomPush {
	index := mi.MapIndex
	out := make([]xcomPush, len(mi.Pushed))
	for i, p := range mi.Pushed {
		out[i] = xcomPush{Key: p.Key, Value: json.RawMessage(p.Value), MapIndex: &index}
	}
	return out
}

// mappedStates are the states a task instance counts with as an upstream
// task: each expanded instance's, or its own before it expands (and when
// it expanded into none, its own: skipped), as Airflow's
// trigger_rule_dep.py counts the task instances of the upstream tasks
// (2.10.3 :362-373).
func mappedStates(ti *TaskInstance) []TaskState {
	if len(ti.Mapped) == 0 {
		return []TaskState{ti.State}
	}
	states := make([]TaskState, len(ti.Mapped))
	for i, mi := range ti.Mapped {
		states[i] = mi.State
	}
	return states
}

// forcedMapped is a mapped task's instances when its task instance is
// forced to a state: all of them take it, as marking a mapped task marks
// each of its task instances in Airflow.
func forcedMapped(mapped []MappedInstance, state TaskState, now time.Time) []MappedInstance {
	if mapped == nil {
		return nil
	}
	out := make([]MappedInstance, len(mapped))
	for i, mi := range mapped {
		mi.State, mi.EndDate = state, &now
		out[i] = mi
	}
	return out
}

// retryMapped shows a mapped task's failed instances as up_for_retry
// while the task instance waits for its retry.
func retryMapped(ti *TaskInstance) {
	if ti.State != TaskUpForRetry {
		return
	}
	for i := range ti.Mapped {
		if ti.Mapped[i].State == TaskFailed {
			ti.Mapped[i].State = TaskUpForRetry
		}
	}
}
