package main

// The stable API's variables: /variables and /variables/{variable_key}
// (Airflow 2.10.3 airflow/api_connexion/endpoints/variable_endpoint.py,
// schemas/variable_schema.py).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

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

// maxVariableKeyChars is the variable table's key column, String(250):
// Airflow's database refuses a longer key (a 500); airlite answers 400.
const maxVariableKeyChars = 250

func checkVariableBody(v any) (map[string]any, error) { return checkBodySchema(v, variableBodySchema) }

// loadVariable is VariableSchema.load with Airflow's title for its errors.
func loadVariable(body map[string]any) (map[string]any, error) {
	data, msg := marshmallowLoad(body, variableFields, false)
	if msg != "" {
		return nil, &problem{status: 400, title: "Invalid Variable schema", detail: msg}
	}
	if key := data["key"].(string); len([]rune(key)) > maxVariableKeyChars {
		return nil, &problem{status: 400, title: "Invalid Variable schema",
			detail: fmt.Sprintf("key: at most %d characters (Airflow's column), got %d", maxVariableKeyChars, len([]rune(key)))}
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

func v1VariableNotFound() error {
	return v1NotFound("Variable not found", "Variable does not exist")
}

// V1GetVariable is GET /variables/{variable_key}.
func (s *server) V1GetVariable(key string) (map[string]any, error) {
	v, ok := s.opts.Store.Variable(key)
	if !ok {
		return nil, v1VariableNotFound()
	}
	return v1Variable(&v), nil
}

// V1GetVariables is GET /variables: ordered by id (default), key or
// value, a page of them, and the count of all.
func (s *server) V1GetVariables(q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("id", []string{"value", "key", "id"})
	if err != nil {
		return nil, err
	}
	vars, err := s.opts.Store.Variables() // by id
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(vars, func(a, b *Variable) int {
		var c int
		switch attr {
		case "key":
			c = strings.Compare(a.Key, b.Key)
		case "value":
			c = strings.Compare(a.Val, b.Val)
		default:
			c = cmp.Compare(a.ID, b.ID)
		}
		if desc {
			c = -c
		}
		return c
	})
	items := []any{}
	for _, v := range pageOf(vars, p) {
		items = append(items, v1Variable(v))
	}
	return map[string]any{"variables": items, "total_entries": len(vars)}, nil
}

// pageOf is the rows of a page: offset, then at most limit.
func pageOf[T any](rows []T, p page) []T {
	if p.offset >= len(rows) {
		return nil
	}
	return rows[p.offset:min(len(rows), p.offset+p.limit)]
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
	if _, err := s.opts.Store.SetVariable(data["key"].(string), data["val"].(string), desc); err != nil {
		return nil, err
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
	if _, ok := s.opts.Store.Variable(key); !ok {
		return nil, v1VariableNotFound()
	}
	if len(mask) > 0 {
		if data, err = extractUpdateMask(mask, []string{"key"}, data); err != nil {
			return nil, err
		}
	}
	v, err := s.opts.Store.UpdateVariable(key, func(v Variable) Variable {
		if val, ok := data["val"].(string); ok {
			v.Val = val
		}
		if d, ok := data["description"].(string); ok {
			v.Description = &d
		}
		return v
	})
	if errors.Is(err, errNotFound) {
		return nil, v1VariableNotFound()
	}
	if err != nil {
		return nil, err
	}
	return v1Variable(v), nil
}

// V1DeleteVariable is DELETE /variables/{variable_key}.
func (s *server) V1DeleteVariable(key string) error {
	if err := s.opts.Store.DeleteVariable(key); errors.Is(err, errNotFound) {
		return &problem{status: 404, title: "Variable not found"}
	} else if err != nil {
		return err
	}
	return nil
}
