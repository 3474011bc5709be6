package main

// Airflow 3's variables (Airflow 3.2.1 core_api/routes/public/
// variables.py, core_api/datamodels/variables.py,
// core_api/services/public/variables.py): their bodies, their answers
// (values under sensitive keys masked) and the handlers of their rows
// (api_route_v2.go), over the operations (ops_variables.go).

// v2JSONValue is pydantic's JsonValue: any JSON value, kept as decoded
// (objects in their order) for Python's str() of it.
var v2JSONValue = v2Type{kind: v2Custom, check: func(v any, _ []any) (any, []v2Issue) { return v, nil }}

// v2VariableBody is VariableBody.
var v2VariableBody = &v2Model{name: "VariableBody", fields: []v2Field{
	{name: "key", typ: v2Type{kind: v2String, maxLen: v2MaxLen(maxVariableKeyChars)}, required: true},
	{name: "value", typ: v2JSONValue, required: true, nullable: true},
	{name: "description", typ: v2TStr, nullable: true},
	v2TeamName,
}}

// v2VariableBulkBody is BulkBody[VariableBody].
var v2VariableBulkBody = v2BulkBody(v2VariableBody)

// v2VariableResponse is VariableResponse.
type v2VariableResponse struct {
	Key         string  `json:"key"`
	Value       string  `json:"value"`
	Description *string `json:"description"`
	IsEncrypted bool    `json:"is_encrypted"`
	TeamName    *string `json:"team_name"`
}

// v2VariableCollection is VariableCollectionResponse.
type v2VariableCollection struct {
	Variables    []v2VariableResponse `json:"variables"`
	TotalEntries int                  `json:"total_entries"`
}

// v2Variable is a variable as VariableResponse shows it: a value that is
// JSON is read, masked under its key by the secrets masker and written
// again by json.dumps; any other value is masked whole when its key is
// sensitive (redact_val).
func v2Variable(m secretsMasker, v *Variable) v2VariableResponse {
	out := v2VariableResponse{Key: v.Key, Value: v.Val, Description: v.Description, IsEncrypted: v.IsEncrypted}
	if decoded, err := decodePyJSON([]byte(v.Val)); err == nil {
		if dumped, err := pyDumps(m.redact(decoded, v.Key, 0)); err == nil {
			out.Value = dumped
		}
	} else if m.hides(v.Key) {
		out.Value = "***"
	}
	return out
}

// variableChangeOf is a checked VariableBody as the operations take it,
// its value as store renders it.
func variableChangeOf(body map[string]any, store func(any) string) variableChange3 {
	v := variableChange3{given: given(body, nil), Description: optString(body["description"]), Team: optString(body["team_name"])}
	v.Key, _ = body["key"].(string)
	v.Value = store(body["value"])
	_, isStr := body["value"].(string)
	v.ValueNull = body["value"] == nil
	v.ValueNotStr = !isStr && !v.ValueNull
	return v
}

// pyStrStored is Variable.set's str() of a value without serialize_json
// (POST /variables, a PATCH's setattr).
func pyStrStored(v any) string { return pyStrValue(v) }

// pyBulkStored is BulkVariableService's: a dict or a list as
// json.dumps(value, indent=2), any other value as str().
func pyBulkStored(v any) string {
	switch v.(type) {
	case pyDict, []any:
		compact, err := compactJSON.marshal(v)
		if err != nil {
			return pyStrValue(v)
		}
		return string(appendIndented(nil, compact))
	}
	return pyStrValue(v)
}

// V2GetVariables is GET /variables.
func (s *server) V2GetVariables(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "id", []string{"key", "id", "_val", "description", "is_encrypted", "team_name"}, nil)
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	res, err := s.ops.variablesKeyed(keyedQuery{match: req.query.v2Pattern("variable_key_pattern"), keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit})
	if err != nil {
		return nil, err
	}
	out := v2VariableCollection{Variables: make([]v2VariableResponse, len(res.rows)), TotalEntries: res.total}
	for i, v := range res.rows {
		out.Variables[i] = v2Variable(s.rules().masker, v)
	}
	return out, nil
}

// V2GetVariable is GET /variables/{variable_key}.
func (s *server) V2GetVariable(key string) (any, error) {
	v, err := s.ops.variable(key)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Variable(s.rules().masker, &v), nil
}

// V2PostVariable is POST /variables (answered 201).
func (s *server) V2PostVariable(body map[string]any) (any, error) {
	v, err := s.ops.createVariable(variableChangeOf(body, pyStrStored))
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Variable(s.rules().masker, v), nil
}

// V2PatchVariable is PATCH /variables/{variable_key}.
func (s *server) V2PatchVariable(key string, body map[string]any, mask []string) (any, error) {
	v, err := s.ops.patchVariable(key, variableChangeOf(body, pyStrStored), mask)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Variable(s.rules().masker, v), nil
}

// V2DeleteVariable is DELETE /variables/{variable_key}.
func (s *server) V2DeleteVariable(key string) error {
	return apiv2ResourcePhrases.phrase(s.ops.deleteVariable(key))
}

// V2BulkVariables is PATCH /variables.
func (s *server) V2BulkVariables(body map[string]any) (any, error) {
	actions, err := v2BulkActions(body, func(m map[string]any) variableChange3 { return variableChangeOf(m, pyBulkStored) })
	if err != nil {
		return nil, err
	}
	// An update sets the value as given (setattr), a create as
	// BulkVariableService serializes it.
	for i, a := range actions {
		if a.verb != bulkUpdate {
			continue
		}
		raw := v2ActionEntities(body, i)
		for j := range a.entities {
			a.entities[j].Value = pyStrStored(raw[j]["value"])
		}
	}
	out, err := runBulk(s.ops.variableBulk(), actions)
	if err != nil {
		return nil, err
	}
	return v2Bulk(out)
}

// v2ActionEntities are the checked entities of the i-th action of a bulk
// body.
func v2ActionEntities(body map[string]any, i int) []map[string]any {
	raw, _ := body["actions"].([]any)
	a, _ := raw[i].(map[string]any)
	entities, _ := a["entities"].([]any)
	out := make([]map[string]any, len(entities))
	for j, e := range entities {
		out[j], _ = e.(map[string]any)
	}
	return out
}
