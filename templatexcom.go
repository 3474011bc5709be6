package main

// ti.xcom_pull in templates: the XCom entries of the store (what tries
// pushed, the table /api/v1 serves), read with the release's signature,
// defaults and return shapes. A pulled value can carry text a request put
// into an earlier task's output, so a print of it is a request value like
// the conf (template.go: ti is not a static name), never shell text.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// xcomLookup lists the XCom entries a pull reads (Store.XComsToPull).
type xcomLookup func(q XComPullQuery) ([]*XComEntry, error)

// xcomPullFunc is the edition's ti.xcom_pull (editionRules.xcomPull).
type xcomPullFunc func(c templateContext, args *exec.VarArgs) (any, error)

// pyArgs binds a call's arguments to a Python signature: positional
// names, then keyword-only ones. A missing argument is absent from the map.
func pyArgs(fn string, args *exec.VarArgs, positional, keywordOnly []string) (map[string]*exec.Value, error) {
	if len(args.Args) > len(positional) {
		// Python counts self.
		return nil, fmt.Errorf("TypeError: %s() takes from 1 to %d positional arguments but %d were given", fn, len(positional)+1, len(args.Args)+1)
	}
	bound := map[string]*exec.Value{}
	for i, v := range args.Args {
		bound[positional[i]] = v
	}
	for _, name := range slices.Sorted(maps.Keys(args.KwArgs)) {
		if !slices.Contains(positional, name) && !slices.Contains(keywordOnly, name) {
			return nil, fmt.Errorf("TypeError: %s() got an unexpected keyword argument '%s'", fn, name)
		}
		if _, ok := bound[name]; ok {
			return nil, fmt.Errorf("TypeError: %s() got multiple values for argument '%s'", fn, name)
		}
		bound[name] = args.KwArgs[name]
	}
	return bound, nil
}

// isNoneArg: an argument absent, None, or undefined.
func isNoneArg(v *exec.Value) bool { return v == nil || v.IsNil() || isPyNone(v) }

// stringsArg reads a str-or-iterable argument (Airflow's is_container: any
// iterable but a str): many reports a list.
func stringsArg(name string, v *exec.Value) (values []string, many bool, err error) {
	switch {
	case v.IsString():
		return []string{v.String()}, false, nil
	case v.IsList():
		values = []string{}
		for i := 0; i < v.Len(); i++ {
			item := v.Index(i)
			if !item.IsString() {
				return nil, false, fmt.Errorf("TypeError: xcom_pull: %s must hold strings, not %s", name, templateRepr(item))
			}
			values = append(values, item.String())
		}
		return values, true, nil
	}
	return nil, false, fmt.Errorf("TypeError: xcom_pull: %s must be a str or a list of str, not %s", name, templateRepr(v))
}

// pulledValue is a stored XCom value as Airflow's deserializer gives it:
// decoded JSON.
func pulledValue(e *XComEntry) (any, error) {
	v, err := decodeJSONValue(e.Value)
	if err != nil {
		return nil, fmt.Errorf("read xcom %s of %s: %w", e.Key, e.TaskID, err)
	}
	return templateJSON(v), nil
}

func (c templateContext) pull(q XComPullQuery) ([]*XComEntry, error) {
	if c.xcoms == nil {
		return nil, nil
	}
	return c.xcoms(q)
}

// xcomPull2 is Airflow 2.10.3's TaskInstance.xcom_pull
// (airflow/models/taskinstance.py:3650, _xcom_pull at 565-661, and
// XCom.get_many in airflow/models/xcom.py:495-561): task_ids, dag_id (the
// task's DAG when None), key ('return_value'; None or ” for any),
// include_prior_dates, session, and keyword-only map_indexes and default.
// One task (task_ids a str or None, map_indexes not a list): the newest
// matching value, or default. Many: a list of every match, in the order of
// task_ids, then map_index. Values are read back through serde
// (pulledSerdeValue), as 2.10.3's XComDecoder and 3.2.1's Task SDK read
// them; edition 3 shares this function.
func xcomPull2(c templateContext, args *exec.VarArgs) (any, error) {
	a, err := pyArgs("xcom_pull", args, []string{"task_ids", "dag_id", "key", "include_prior_dates", "session"}, []string{"map_indexes", "default"})
	if err != nil {
		return nil, err
	}
	q := XComPullQuery{RunID: c.run.RunID, Date: c.run.ExecutionDate, Key: xcomReturnKey}
	var taskOrder []string
	manyTasks, manyIndexes := false, false
	if v := a["task_ids"]; !isNoneArg(v) {
		if q.TaskIDs, manyTasks, err = stringsArg("task_ids", v); err != nil {
			return nil, err
		}
		taskOrder = q.TaskIDs
	}
	q.DagIDs = []string{c.dag.DagID}
	if v := a["dag_id"]; !isNoneArg(v) {
		if q.DagIDs, _, err = stringsArg("dag_id", v); err != nil {
			return nil, err
		}
	}
	if err := keyAndPriorDates(a, &q); err != nil {
		return nil, err
	}
	var indexOrder []int
	if v := a["map_indexes"]; !isNoneArg(v) {
		switch {
		case v.IsInteger():
			q.MapIndexes = []int{v.Integer()}
		case v.IsList():
			manyIndexes = true
			q.MapIndexes = []int{}
			for i := 0; i < v.Len(); i++ {
				if !v.Index(i).IsInteger() {
					return nil, fmt.Errorf("TypeError: xcom_pull: map_indexes must hold ints, not %s", templateRepr(v.Index(i)))
				}
				q.MapIndexes = append(q.MapIndexes, v.Index(i).Integer())
			}
			indexOrder = q.MapIndexes
		default:
			return nil, fmt.Errorf("TypeError: xcom_pull: map_indexes must be an int or a list of int, not %s", templateRepr(v))
		}
	}
	entries, err := c.pull(q)
	if err != nil {
		return nil, err
	}
	if !manyTasks && !manyIndexes {
		if len(entries) == 0 {
			if v := a["default"]; v != nil {
				return v.Interface(), nil
			}
			return pyNone, nil
		}
		// Every entry of airlite has map_index -1: an unmapped task's value.
		return pulledSerdeValue(entries[0])
	}
	slices.SortStableFunc(entries, func(x, y *XComEntry) int {
		byTask := strings.Compare(x.TaskID, y.TaskID)
		if manyTasks {
			byTask = lastIndex(taskOrder, x.TaskID) - lastIndex(taskOrder, y.TaskID)
		}
		byIndex := x.MapIndex - y.MapIndex
		if manyIndexes {
			byIndex = lastIndex(indexOrder, x.MapIndex) - lastIndex(indexOrder, y.MapIndex)
		}
		return cmp.Or(byTask, byIndex)
	})
	values := make([]any, 0, len(entries))
	for _, e := range entries {
		v, err := pulledSerdeValue(e)
		if err != nil {
			return nil, err
		}
		values = append(values, v)
	}
	return values, nil
}

// xcomPull110 is Airflow 1.10.15's TaskInstance.xcom_pull
// (airflow/models/taskinstance.py:1515-1564, XCom.get_one in
// airflow/models/xcom.py:124-167): task_ids, dag_id (the task's DAG when
// None), key ('return_value'), include_prior_dates; no map_indexes and no
// default. Entries are those at the run's execution_date (not its run_id);
// an empty task_ids, dag_id or key filters nothing (get_one's `if task_id:`).
// A str or None: the newest match or None. A list: a tuple of one value
// per task id, None where nothing matched.
func xcomPull110(c templateContext, args *exec.VarArgs) (any, error) {
	a, err := pyArgs("xcom_pull", args, []string{"task_ids", "dag_id", "key", "include_prior_dates"}, nil)
	if err != nil {
		return nil, err
	}
	q := XComPullQuery{RunID: c.run.RunID, Date: c.run.ExecutionDate, ByDate: true, Key: xcomReturnKey}
	q.DagIDs = []string{c.dag.DagID}
	if v := a["dag_id"]; !isNoneArg(v) {
		if !v.IsString() {
			return nil, fmt.Errorf("TypeError: xcom_pull: dag_id must be a str, not %s", templateRepr(v))
		}
		q.DagIDs = []string{v.String()}
		if v.String() == "" { // get_one's `if dag_id:`
			q.DagIDs = nil
		}
	}
	if err := keyAndPriorDates(a, &q); err != nil {
		return nil, err
	}
	one := func(taskID string) (any, error) {
		q := q
		if taskID != "" {
			q.TaskIDs = []string{taskID}
		}
		entries, err := c.pull(q)
		if err != nil || len(entries) == 0 {
			return pyNone, err
		}
		return pulledValue(entries[0])
	}
	v := a["task_ids"]
	if isNoneArg(v) {
		return one("")
	}
	taskIDs, many, err := stringsArg("task_ids", v)
	if err != nil {
		return nil, err
	}
	if !many {
		return one(taskIDs[0])
	}
	values := pyTuple{}
	for _, taskID := range taskIDs {
		value, err := one(taskID)
		if err != nil {
			return nil, err
		}
		values = append(values, value)
	}
	return values, nil
}

// pyStr prints a tuple a template holds (a list to Jinja) as Python does,
// its items as the template's values.
func (t pyTuple) pyStr() string {
	parts := make([]string, len(t))
	for i, item := range t {
		parts[i] = templateRepr(exec.AsValue(item))
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// lastIndex is the position of v in a list, the last one for a repeated
// item, as the dict that orders a many-task pull keeps it
// (taskinstance.py:644-645).
func lastIndex[T comparable](list []T, v T) int {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == v {
			return i
		}
	}
	return len(list)
}

// keyAndPriorDates reads the key and include_prior_dates arguments, alike
// in both releases: a key filters only when it is a non-empty str
// (2.10.3 airflow/models/xcom.py:525, 1.10.15 airflow/models/xcom.py:139, get_one).
func keyAndPriorDates(a map[string]*exec.Value, q *XComPullQuery) error {
	if v, ok := a["key"]; ok {
		switch {
		case isNoneArg(v) || (v.IsString() && v.String() == ""):
			q.Key = ""
		case v.IsString():
			q.Key = v.String()
		default:
			return fmt.Errorf("TypeError: xcom_pull: key must be a str, not %s", templateRepr(v))
		}
	}
	if v := a["include_prior_dates"]; v != nil {
		q.IncludePriorDates = v.IsTrue()
	}
	return nil
}
