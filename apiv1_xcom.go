package main

// The stable API's XCom entries:
// /dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries
// and …/xcomEntries/{xcom_key} (Airflow 2.10.3
// airflow/api_connexion/endpoints/xcom_endpoint.py, schemas/xcom_schema.py).

import (
	"errors"
)

var (
	qMapIndex    = v1Param{name: "map_index", kind: paramInteger, schema: "{'type': 'integer'}"}
	qXComKey     = v1Param{name: "xcom_key", kind: paramString, schema: "{'type': 'string'}"}
	qDeserialize = v1Param{name: "deserialize", kind: paramBoolean}
	qStringify   = v1Param{name: "stringify", kind: paramBoolean}
)

// v1XComItem is XComCollectionItemSchema's dump; execution_date is the
// run's (XCom's association proxy), read at the time of the answer.
func (s *server) v1XComItem(e *XComEntry) map[string]any {
	out := map[string]any{
		"key": e.Key, "timestamp": v1Date(&e.Timestamp), "execution_date": nil,
		"map_index": e.MapIndex, "task_id": e.TaskID, "dag_id": e.DagID,
	}
	if run, err := s.opts.Store.RunByRunID(e.DagID, e.RunID); err == nil && run.ID == e.RunRowID {
		out["execution_date"] = v1Date(&run.ExecutionDate)
	}
	return out
}

// V1GetXComEntries lists the entries of a task instance; "~" for the
// dag_id, dag_run_id or task_id matches any. Entries of a map_index other
// than -1 do not exist in airlite.
func (s *server) V1GetXComEntries(dagID, runID, taskID string, q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	f := XComFilter{DagID: dagID, RunID: runID, TaskID: taskID}
	for _, id := range []*string{&f.DagID, &f.RunID, &f.TaskID} {
		if *id == "~" {
			*id = ""
		}
	}
	f.Key, _ = q.str("xcom_key")
	entries, err := s.opts.Store.XComEntries(f)
	if err != nil {
		return nil, err
	}
	if k, given := q.str("xcom_key"); given && k == "" {
		entries = nil // no entry has an empty key
	}
	kept := entries
	if _, byIndex := q.str("map_index"); byIndex {
		kept = nil
		for _, e := range entries {
			if int64(e.MapIndex) == q.integer("map_index", 0) {
				kept = append(kept, e)
			}
		}
	}
	items := []any{}
	for _, e := range pageOf(kept, p) {
		items = append(items, s.v1XComItem(e))
	}
	return map[string]any{"xcom_entries": items, "total_entries": len(kept)}, nil
}

// V1GetXComEntry is one entry with its value: with stringify (the
// default) Python's str() of the value, else the value as JSON.
// deserialize is refused: [api] enable_xcom_deserialize_support is off by
// default.
func (s *server) V1GetXComEntry(dagID, runID, taskID, key string, q v1Values) (map[string]any, error) {
	if d, _ := q.boolean("deserialize"); d {
		return nil, v1BadRequest("XCom deserialization is disabled in configuration.")
	}
	notFound := &problem{status: 404, title: "XCom entry not found"}
	if q.integer("map_index", -1) != -1 {
		return nil, notFound
	}
	e, err := s.opts.Store.XCom(dagID, runID, taskID, key)
	if errors.Is(err, errNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	out := s.v1XComItem(e)
	out["value"] = nil
	if e.Value == nil {
		return out, nil
	}
	stringify := true
	if v, given := q.boolean("stringify"); given {
		stringify = v
	}
	if !stringify {
		out["value"] = e.Value // rendered as JSON, keys sorted as every answer
		return out, nil
	}
	v, err := decodePyJSON(e.Value)
	if err != nil {
		return nil, err
	}
	if v != nil { // marshmallow's String dumps None as null
		out["value"] = pyStrValue(v)
	}
	return out, nil
}
