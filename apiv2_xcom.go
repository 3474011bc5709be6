package main

// XCom entries in /api/v2 (issue #21): airflow-core/src/airflow/
// api_fastapi/core_api/routes/public/xcom.py and datamodels/xcom.py.
// Airflow 3 keeps a value in a JSON column in one of two forms, by where
// it came from: a task's push is the value itself (the Task SDK's serde
// leaves JSON values as they are, and the execution API's set_xcom stores
// them with serialize=False, c57fba0e execution_api/routes/xcoms.py:
// 391-399), while the public API's create and update store json.dumps'
// text of the value, a JSON string (routes/public/xcom.py:273, :351).
// Edition 3's entries are kept in the same two forms (v2XComStored), so
// that every read gives the column as Airflow does: the native answer,
// wait's results, a task's pull and a template's. deserialize=true
// json.loads a stored string, stringify=true str() of the answer.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Airflow 3.2.1's texts for the XCom routes (routes/public/xcom.py).
const (
	v2XComNotFound    = "XCom entry with key: `%s` not found"
	v2XComTaskMissing = "Task with ID: `%s` not found in dag: `%s`"
	v2XComRunMissing  = "Dag Run with ID: `%s` not found for dag: `%s`"
	v2XComExists      = "The XCom with key: `%s` with mentioned task instance already exists."
	v2XComNotThere    = "The XCom with key: `%s` with mentioned task instance doesn't exist."
)

// v2XComItem is XComResponse, fields in its order.
type v2XComItem struct {
	Key             string  `json:"key"`
	Timestamp       v2When  `json:"timestamp"`
	LogicalDate     *v2When `json:"logical_date"`
	MapIndex        int     `json:"map_index"`
	TaskID          string  `json:"task_id"`
	DagID           string  `json:"dag_id"`
	RunID           string  `json:"run_id"`
	DagDisplayName  string  `json:"dag_display_name"`
	TaskDisplayName string  `json:"task_display_name"`
	RunAfter        v2When  `json:"run_after"` // added last (3.2's XComResponse)
}

// v2XComValued is XComResponseNative (Value any) or XComResponseString
// (Value a string or null).
type v2XComValued struct {
	v2XComItem
	Value any `json:"value"`
}

type v2XComCollection struct {
	XComEntries  []v2XComItem `json:"xcom_entries"`
	TotalEntries int          `json:"total_entries"`
}

func v2XCom(x xcomRead) v2XComItem {
	item := v2XComItem{Key: x.Key, Timestamp: v2When(x.Timestamp), MapIndex: x.MapIndex, TaskID: x.TaskID,
		DagID: x.DagID, RunID: x.RunID, DagDisplayName: x.DagID, TaskDisplayName: x.TaskID}
	if x.Run != nil {
		if date, ok := x.Run.LogicalDate(); ok {
			item.LogicalDate = v2At(&date)
		}
		item.RunAfter = v2When(x.Run.After())
	}
	return item
}

// v2XComStored is what Airflow 3's column holds for a value the public
// API creates or changes: json.dumps' text of it (keys in their order),
// as a JSON string.
func v2XComStored(v any) (json.RawMessage, error) {
	text, err := spacedJSON.marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store xcom value: %w", err)
	}
	return compactJSON.marshal(string(text))
}

// v2XComColumn is an entry's value as Airflow's column gives it: a
// task's value, or the public API's text of one.
func v2XComColumn(raw json.RawMessage) (any, error) {
	v, err := decodePyJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("read xcom value: %w", err)
	}
	return v, nil
}

// v2XComNative renders an entry with its value as the column holds it
// (get_xcom_entry without deserialize, xcom.py:127-130, and what create
// and update answer): a string as itself, which is the text of the
// value for the public API's entries, anything else in its keys' order.
func v2XComNative(x xcomRead) (v2XComValued, error) {
	v, err := v2XComColumn(x.Value)
	if err != nil {
		return v2XComValued{}, err
	}
	out := v2XComValued{v2XComItem: v2XCom(x), Value: v}
	if _, ok := v.(string); !ok {
		out.Value, err = v2PlainJSON(v)
	}
	return out, err
}

// v2XComListParams are get_xcom_entries' query parameters.
var v2XComListParams = append([]v1Param{qV2Str("xcom_key"), {name: "map_index", kind: paramInteger, minimum: minimum(-1)},
	qV2Limit, qV2Offset, qV2Str("xcom_key_pattern"), qV2Str("dag_display_name_pattern"), qV2Str("run_id_pattern"),
	qV2Str("task_id_pattern"), qV2Int("map_index_filter")}, append(qV2DateRange("logical_date"), qV2DateRange("run_after")...)...)

// v2GetXComEntries is get_xcom_entries: "~" for dag_id, dag_run_id or
// task_id reads every one.
func (s *server) v2GetXComEntries(req *apiRequest) (any, error) {
	q, p := req.query, v2Page(req.query)
	xs := xcomSearch{
		keyPattern: q.v2Pattern("xcom_key_pattern"), dagPattern: q.v2Pattern("dag_display_name_pattern"),
		runPattern: q.v2Pattern("run_id_pattern"), taskPattern: q.v2Pattern("task_id_pattern"),
		logical: v2TimeBounds(q, "logical_date"), runAfter: v2TimeBounds(q, "run_after"),
		offset: p.offset, limit: p.limit,
	}
	for name, to := range map[string]*string{"dag_id": &xs.dagID, "dag_run_id": &xs.runID, "task_id": &xs.taskID} {
		if v := req.param(name); v != "~" {
			*to = v
		}
	}
	if key, ok := q.str("xcom_key"); ok {
		xs.key = &key
	}
	if _, ok := q.str("map_index"); ok {
		n := q.integer("map_index", -1)
		xs.mapIndex = &n
	}
	if _, ok := q.str("map_index_filter"); ok {
		n := q.integer("map_index_filter", -1)
		xs.mapIndexFilter = &n
	}
	rows, total, err := s.ops.searchXComs(xs)
	if err != nil {
		return nil, err
	}
	out := v2XComCollection{XComEntries: make([]v2XComItem, len(rows)), TotalEntries: total}
	for i, x := range rows {
		out.XComEntries[i] = v2XCom(x)
	}
	return out, nil
}

// v2GetXComEntry is get_xcom_entry.
func (s *server) v2GetXComEntry(req *apiRequest) (any, error) {
	key := req.param("xcom_key")
	x, err := s.ops.xcomEntry(req.param("dag_id"), req.param("dag_run_id"), req.param("task_id"), key, v2MapIndexParam(req))
	if errors.Is(err, errNotFound) {
		return nil, v2Detail404(v2XComNotFound, key)
	}
	if err != nil {
		return nil, err
	}
	deserialize, _ := req.query.v2Bool("deserialize")
	stringify, _ := req.query.v2Bool("stringify")
	if !deserialize && !stringify {
		return v2XComNative(x)
	}
	v, err := v2XComColumn(x.Value)
	if err != nil {
		return nil, err
	}
	if deserialize {
		if v, err = v2DeserializedXCom(v); err != nil {
			return nil, err
		}
	}
	out := v2XComValued{v2XComItem: v2XCom(x)}
	if stringify {
		out.Value = v2PyStr(v)
	} else if out.Value, err = v2PlainJSON(v); err != nil {
		return nil, err
	}
	return out, nil
}

// v2DeserializedXCom is what get_xcom_entry shows with deserialize=true
// (c57fba0e routes/public/xcom.py:104-126): json.loads of a stored string
// (the public API's text gives its value back; a task's string that is no
// JSON, "hello", stays itself, one that is, "42", is read as JSON), then
// stringify. A value holding an Airflow class is XComModel.deserialize_value
// there, into objects airlite does not have: it is shown as json.loads gave
// it.
func v2DeserializedXCom(col any) (any, error) {
	parsed := col
	if text, ok := col.(string); ok {
		if loaded, err := decodePyJSON([]byte(text)); err == nil {
			parsed = loaded
		}
	}
	v, err := pyStringify(parsed)
	if errors.Is(err, errStringifyAirflowClass) {
		return parsed, nil
	}
	return v, err
}

// v2PyStr is str() of a decoded value: null stays null
// (XComResponseString.value_to_string).
func v2PyStr(v any) any {
	if v == nil {
		return nil
	}
	return pyStrValue(v)
}

// v2PlainJSON is a decoded value rendered in its keys' order.
func v2PlainJSON(v any) (json.RawMessage, error) {
	b, err := compactJSON.marshal(v)
	if err != nil {
		return nil, fmt.Errorf("render xcom value: %w", err)
	}
	return b, nil
}

// v2XComValue is a body's value as the public API stores it
// (v2XComStored), keys in the body's order.
func v2XComValue(req *apiRequest) (json.RawMessage, error) {
	v := req.body["value"]
	if dict, ok := req.ordered.(pyDict); ok {
		for _, f := range dict {
			if f.key == "value" {
				v = f.val
			}
		}
	}
	return v2XComStored(v)
}

var (
	// XComCreateBody's value refuses serde's keys (3.2.1 datamodels/
	// xcom.py, the field validator apache/airflow#64148 added, in 3.2.0);
	// XComUpdateBody has no such validator until 3.2.2 (#65915), so a
	// PATCH stores them.
	v2XComCreateModel = &v2Model{name: "XComCreateBody", fields: []v2Field{
		{name: "key", typ: v2TStr, required: true}, {name: "value", typ: v2XComCreateValue, required: true, nullable: true},
		{name: "map_index", typ: v2TInt}}}
	v2XComUpdateModel = &v2Model{name: "XComUpdateBody", fields: []v2Field{
		{name: "value", typ: v2TAnyVal, required: true, nullable: true}, {name: "map_index", typ: v2TInt}}}
)

// v2XComReservedKeys are the keys Airflow's serialization gives meaning
// to in a stored value (shared/serialization's FORBIDDEN_XCOM_KEYS: serde's
// and the older form's), sorted as Python's sorted() orders them.
var v2XComReservedKeys = []string{"__cache__", "__classname__", "__data__", "__id__", "__source", "__type", "__var", "__version__"}

// v2XComCreateValue is XComCreateBody's value: any JSON, refused when a
// dict in it, at any depth, holds one of v2XComReservedKeys. The walk is
// the validator's: a dict's own keys before its values, in their order,
// lists by index; the first dict that holds any is named by its path
// ("value", "value.a", "value[0]") with every reserved key it holds. A
// string is not looked into (3.3.1's #69378 decodes JSON strings).
var v2XComCreateValue = v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
	if path, keys := v2XComReservedIn(v, "value"); keys != nil {
		return nil, []v2Issue{v2ValueError(loc, v, fmt.Sprintf(
			"XCom %s contains reserved serialization keys: %s. These keys are reserved for internal use.", path, strings.Join(keys, ", ")))}
	}
	return plainOf(v), nil
}}

// v2XComReservedIn is the path of the first dict in v that holds reserved
// keys, and those keys sorted; nil keys when none does.
func v2XComReservedIn(v any, path string) (string, []string) {
	switch x := v.(type) {
	case pyDict:
		var found []string
		for _, k := range v2XComReservedKeys {
			if slices.ContainsFunc(x, func(f pyField) bool { return f.key == k }) {
				found = append(found, k)
			}
		}
		if found != nil {
			return path, found
		}
		for _, f := range x {
			if p, keys := v2XComReservedIn(f.val, path+"."+f.key); keys != nil {
				return p, keys
			}
		}
	case []any:
		for i, item := range x {
			if p, keys := v2XComReservedIn(item, path+"["+strconv.Itoa(i)+"]"); keys != nil {
				return p, keys
			}
		}
	}
	return "", nil
}

// v2CreateXComEntry is create_xcom_entry: 201 and the entry.
func (s *server) v2CreateXComEntry(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	d := s.dialV2
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	key, _ := req.body["key"].(string)
	value, err := v2XComValue(req)
	if err == nil {
		var x xcomRead
		x, err = s.ops.createXCom(dagID, runID, taskID, key, bodyInt(req.body, "map_index", -1), value)
		switch {
		case isFault(err, faultTaskMissing):
			err = v2Detail404(v2XComTaskMissing, taskID, dagID)
		case isFault(err, faultRunNotFound):
			err = v2Detail404(v2XComRunMissing, runID, dagID)
		case errors.Is(err, errNotFound):
			err = v2Detail404(v2DagNotFound, dagID)
		case errors.Is(err, errConflict):
			err = &v2Error{status: http.StatusConflict, detail: fmt.Sprintf(v2XComExists, key)}
		case err == nil:
			var out v2XComValued
			if out, err = v2XComNative(x); err == nil {
				writeV2JSON(w, r, http.StatusCreated, out)
				return
			}
		}
	}
	d.answerError(s, w, r, err)
}

// v2UpdateXComEntry is update_xcom_entry. 3.2.1 stores json.dumps of
// the value once, as create_xcom_entry does (c57fba0e
// routes/public/xcom.py:351; apache/airflow#58921 took out the second
// dumps that #59032 reported): the entry is kept as POST keeps it, so
// the answer and a native read are json.dumps' text of the value
// (test_xcom.py:815-816) and a deserialized read the value, whichever
// form the entry had before (a task's return value patched reads as
// text from then on).
func (s *server) v2UpdateXComEntry(req *apiRequest) (any, error) {
	key := req.param("xcom_key")
	value, err := v2XComValue(req)
	if err != nil {
		return nil, err
	}
	x, err := s.ops.setXComValue(req.param("dag_id"), req.param("dag_run_id"), req.param("task_id"), key, bodyInt(req.body, "map_index", -1), value)
	if errors.Is(err, errNotFound) {
		return nil, v2Detail404(v2XComNotThere, key)
	}
	if err != nil {
		return nil, err
	}
	return v2XComNative(x)
}

// v2DeleteXComEntry is delete_xcom_entry: 204.
func (s *server) v2DeleteXComEntry(req *apiRequest) error {
	key := req.param("xcom_key")
	err := s.ops.deleteXCom(req.param("dag_id"), req.param("dag_run_id"), req.param("task_id"), key, v2MapIndexParam(req))
	if errors.Is(err, errNotFound) {
		return v2Detail404(v2XComNotThere, key)
	}
	return err
}
