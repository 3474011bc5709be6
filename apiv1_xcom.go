package main

// The stable API's XCom entries:
// /dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries
// and …/xcomEntries/{xcom_key} (Airflow 2.10.3
// airflow/api_connexion/endpoints/xcom_endpoint.py, schemas/xcom_schema.py).

var (
	qMapIndex    = v1Param{name: "map_index", kind: paramInteger, schema: "{'type': 'integer'}"}
	qXComKey     = v1Param{name: "xcom_key", kind: paramString, schema: "{'type': 'string'}"}
	qDeserialize = v1Param{name: "deserialize", kind: paramBoolean}
	qStringify   = v1Param{name: "stringify", kind: paramBoolean}
)

// v1XComItem is XComCollectionItemSchema's dump.
func v1XComItem(e xcomRead) map[string]any {
	return map[string]any{
		"key": e.Key, "timestamp": v1Date(&e.Timestamp), "execution_date": v1Date(e.ExecutionDate),
		"map_index": e.MapIndex, "task_id": e.TaskID, "dag_id": e.DagID,
	}
}

// V1GetXComEntries lists the entries of a task instance; "~" for the
// dag_id, dag_run_id or task_id matches any.
func (s *server) V1GetXComEntries(dagID, runID, taskID string, q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	f := xcomQuery{dagID: dagID, runID: runID, taskID: taskID}
	for _, id := range []*string{&f.dagID, &f.runID, &f.taskID} {
		if *id == "~" {
			*id = ""
		}
	}
	if k, given := q.str("xcom_key"); given {
		f.key = &k
	}
	if _, given := q.str("map_index"); given {
		n := q.integer("map_index", 0)
		f.mapIndex = &n
	}
	entries, err := s.ops.xcomEntries(f, listQuery{offset: p.offset, limit: p.limit})
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(entries.rows))
	for i, e := range entries.rows {
		items[i] = v1XComItem(e)
	}
	return map[string]any{"xcom_entries": items, "total_entries": entries.total}, nil
}

// V1GetXComEntry is one entry with its value: with stringify (the
// default) Python's str() of the value, else the value as JSON.
// deserialize is refused: [api] enable_xcom_deserialize_support is off by
// default.
func (s *server) V1GetXComEntry(dagID, runID, taskID, key string, q v1Values) (map[string]any, error) {
	if d, _ := q.boolean("deserialize"); d {
		return nil, v1BadRequest("XCom deserialization is disabled in configuration.")
	}
	e, err := s.ops.xcomEntry(dagID, runID, taskID, key, q.integer("map_index", -1))
	if err != nil {
		return nil, v1ResourceError(err)
	}
	out := v1XComItem(e)
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
