package main

// The stable API's variables: /variables and /variables/{variable_key}
// (Airflow 2.10.3 airflow/api_connexion/endpoints/variable_endpoint.py,
// schemas/variable_schema.py).

// variableBodySchema is components/schemas/Variable as connexion checks
// a body: VariableCollectionItem's properties, then value.
var variableBodySchema = bodySchema{rw("key", "string", false), rw("description", "string", true), rw("value", "string", false)}

// variableFields is VariableSchema for marshmallow's load: value loads
// into val; description is not nullable there (connexion lets null by).
var variableFields = []mmField{
	{name: "key", required: true},
	{name: "value", attr: "val", required: true},
	{name: "description"},
}

func checkVariableBody(v any) (map[string]any, error) { return checkBodySchema(v, variableBodySchema) }

// loadVariable is VariableSchema.load with Airflow's title for its errors,
// then the key column's length.
func loadVariable(body map[string]any) (map[string]any, error) {
	data, msg := marshmallowLoad(body, variableFields, false)
	if msg != "" {
		return nil, &problem{status: 400, title: "Invalid Variable schema", detail: msg}
	}
	if err := checkVariableKey(data["key"].(string)); err != nil {
		return nil, v1ResourceError(err)
	}
	return data, nil
}

// v1Variable is VariableSchema's dump of a stored variable.
func v1Variable(v *Variable) map[string]any {
	out := map[string]any{"key": v.Key, "value": v.Val, "description": nil}
	if v.Description != nil {
		out["description"] = *v.Description
	}
	return out
}

// V1GetVariable is GET /variables/{variable_key}.
func (s *server) V1GetVariable(key string) (map[string]any, error) {
	v, err := s.ops.variable(key)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Variable(&v), nil
}

// V1GetVariables is GET /variables: ordered by id (default), key or
// value, a page of them, and the count of all.
func (s *server) V1GetVariables(q v1Values) (map[string]any, error) {
	lq, err := v1ResourceQuery(q, "id", variableOrders)
	if err != nil {
		return nil, err
	}
	vars, err := s.ops.variables(lq)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(vars.rows))
	for i, v := range vars.rows {
		items[i] = v1Variable(v)
	}
	return map[string]any{"variables": items, "total_entries": vars.total}, nil
}

// pageOf is the rows of a page: offset, then at most limit.
func pageOf[T any](rows []T, p page) []T {
	if p.offset >= len(rows) {
		return nil
	}
	return rows[p.offset:min(len(rows), p.offset+p.limit)]
}

// v1ResourceQuery is a listing's query parameters as a neutral query, in
// Airflow's order: the page (check_limit), then order_by among orders
// (apply_sorting), def when none is given.
func v1ResourceQuery(q v1Values, def string, orders []string) (listQuery, error) {
	p, err := q.page()
	if err != nil {
		return listQuery{}, err
	}
	attr, desc, err := q.orderBy(def, orders)
	if err != nil {
		return listQuery{}, err
	}
	return listQuery{orderBy: attr, desc: desc, offset: p.offset, limit: p.limit}, nil
}

// V1PostVariable is POST /variables: Variable.set, which replaces a
// variable under the same key. The answer is the loaded body, dumped:
// description only when the body had one.
func (s *server) V1PostVariable(body map[string]any) (map[string]any, error) {
	data, err := loadVariable(body)
	if err != nil {
		return nil, err
	}
	var desc *string
	if d, ok := data["description"].(string); ok {
		desc = &d
	}
	if _, err := s.ops.setVariable(data["key"].(string), data["val"].(string), desc); err != nil {
		return nil, v1ResourceError(err)
	}
	out := map[string]any{"key": data["key"], "value": data["val"]}
	if desc != nil {
		out["description"] = *desc
	}
	return out, nil
}

// V1PatchVariable is PATCH /variables/{variable_key}: the body must name
// the same key; update_mask picks what changes (by the loaded names: val,
// description; key never).
func (s *server) V1PatchVariable(key string, body map[string]any, mask []string) (map[string]any, error) {
	data, err := loadVariable(body)
	if err != nil {
		return nil, err
	}
	if data["key"] != key {
		return nil, &problem{status: 400, title: "Invalid post body", detail: "key from request body doesn't match uri parameter"}
	}
	ops := s.ops
	if _, err := ops.variable(key); err != nil {
		return nil, v1ResourceError(err)
	}
	if len(mask) > 0 {
		if data, err = extractUpdateMask(mask, []string{"key"}, data); err != nil {
			return nil, err
		}
	}
	var change variableChange
	if val, ok := data["val"].(string); ok {
		change.val = &val
	}
	if d, ok := data["description"].(string); ok {
		change.description = &d
	}
	v, err := ops.updateVariable(key, change)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Variable(v), nil
}

// V1DeleteVariable is DELETE /variables/{variable_key}.
func (s *server) V1DeleteVariable(key string) error {
	return v1ResourceError(s.ops.deleteVariable(key))
}
