package main

// Airflow 3's bulk PATCH of pools, variables and connections (Airflow
// 3.2.1 core_api/datamodels/common.py BulkBody, BulkResponse;
// core_api/services/public/common.py BulkService.handle_request): the
// body's model, the one bulk operation (ops_resources.go runBulk), and
// the answer, each action's keys changed and its errors. This file also
// holds the phrasebook of the resources' faults in Airflow 3's words.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
)

// v2BulkTags are the discriminator's tags, in BulkBody's union order.
var v2BulkTags = []string{"create", "update", "delete"}

// v2BulkBody is BulkBody[entity]: {"actions": [...]}, each action a
// BulkCreateAction, BulkUpdateAction or BulkDeleteAction chosen by its
// "action" (a tagged union: errors inside an action name its tag).
func v2BulkBody(entity *v2Model) *v2Model {
	name := "BulkBody[" + entity.name + "]"
	create := &v2Model{name: "BulkCreateAction[" + entity.name + "]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("create"), required: true},
		{name: "entities", typ: v2TListOf(v2TModel(entity)), required: true},
		{name: "action_on_existence", typ: v2TEnum("fail", "skip", "overwrite")},
	}}
	update := &v2Model{name: "BulkUpdateAction[" + entity.name + "]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("update"), required: true},
		{name: "entities", typ: v2TListOf(v2TModel(entity)), required: true},
		{name: "update_mask", typ: v2TStrs, nullable: true},
		{name: "action_on_non_existence", typ: v2TEnum("fail", "skip")},
	}}
	del := &v2Model{name: "BulkDeleteAction[" + entity.name + "]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("delete"), required: true},
		{name: "entities", typ: v2TListOf(v2TStrOr(entity)), required: true},
		{name: "action_on_non_existence", typ: v2TEnum("fail", "skip")},
	}}
	byTag := map[string]*v2Model{"create": create, "update": update, "delete": del}
	action := v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
		dict, ok := v.(pyDict)
		if !ok {
			return nil, []v2Issue{{Type: "model_attributes_type", Loc: loc,
				Msg: "Input should be a valid dictionary or object to extract fields from", Input: v2Input(v)}}
		}
		var tag any
		for _, f := range dict {
			if f.key == "action" {
				tag = f.val
			}
		}
		s, _ := tag.(string)
		m := byTag[s]
		if m == nil {
			// _action_discriminator is BulkAction(action["action"]): a
			// value outside the enum is no tag of the union.
			quoted := "'create', 'update', 'delete'"
			return nil, []v2Issue{{Type: "union_tag_invalid", Loc: loc,
				Msg:   fmt.Sprintf("Input tag '%s' found using _action_discriminator() does not match any of the expected tags: %s", pyStrValue(tag), quoted),
				Input: v2Input(v), Ctx: v2TagCtx{"_action_discriminator()", pyStrValue(tag), quoted}}}
		}
		return m.validate(v, appendLoc(loc, s))
	}}
	return &v2Model{name: name, fields: []v2Field{{name: "actions", typ: v2TListOf(action), required: true}}}
}

// v2TStrOr is str | model, pydantic's smart union: a string kept as it
// is, an object the model validates kept as the model keeps it; a value
// neither takes gets each member's errors, under the member's name ("str",
// the model's class).
func v2TStrOr(m *v2Model) v2Type {
	return v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
		if s, ok := v.(string); ok {
			return s, nil
		}
		out, issues := m.validate(v, appendLoc(loc, m.name))
		if issues == nil {
			return out, nil
		}
		str := v2Issue{Type: "string_type", Loc: appendLoc(loc, "str"), Msg: "Input should be a valid string", Input: v2Input(v)}
		return nil, append([]v2Issue{str}, issues...)
	}}
}

// errV2BulkDeleteObject is a bulk delete given an entity object: Airflow
// 3.2.1's BulkPoolService, BulkVariableService and BulkConnectionService
// take set(action.entities), which raises on a pydantic model (unhashable),
// so the request ends in a 500 and its session, every action of it, is
// rolled back.
var errV2BulkDeleteObject = errors.New("bulk delete: an entity object where Airflow's services hash the entities")

// v2TagCtx is the ctx of union_tag_invalid, in pydantic's order.
type v2TagCtx struct {
	Discriminator string `json:"discriminator"`
	Tag           string `json:"tag"`
	ExpectedTags  string `json:"expected_tags"`
}

// v2BulkActions turns a checked bulk body into the operation's actions,
// each entity through entity; a delete given an entity object is
// errV2BulkDeleteObject, before any action runs.
func v2BulkActions[E any](body map[string]any, entity func(map[string]any) E) ([]bulkAction[E], error) {
	raw, _ := body["actions"].([]any)
	out := make([]bulkAction[E], 0, len(raw))
	for _, item := range raw {
		m, _ := item.(map[string]any)
		a := bulkAction[E]{verb: bulkVerb(m["action"].(string)), onExistence: "fail", onMissing: "fail"}
		if s, ok := m["action_on_existence"].(string); ok {
			a.onExistence = s
		}
		if s, ok := m["action_on_non_existence"].(string); ok {
			a.onMissing = s
		}
		if mask, ok := m["update_mask"].([]any); ok {
			a.mask = anyToStrings(mask)
		}
		entities, _ := m["entities"].([]any)
		for _, e := range entities {
			if a.verb == bulkDelete {
				key, ok := e.(string)
				if !ok {
					return nil, errV2BulkDeleteObject
				}
				a.keys = append(a.keys, key)
				continue
			}
			em, _ := e.(map[string]any)
			a.entities = append(a.entities, entity(em))
		}
		out = append(out, a)
	}
	return out, nil
}

// anyToStrings is a checked list of strings.
func anyToStrings(list []any) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// given is the fields a checked body gave, under the names pydantic's
// model_fields_set uses (rename maps a body's name to the model's).
func given(body map[string]any, rename map[string]string) fieldSet {
	out := make(fieldSet, len(body))
	for k := range body {
		if to, ok := rename[k]; ok {
			k = to
		}
		out[k] = true
	}
	return out
}

// v2BulkResponse is BulkResponse: each verb's outcome, null for a verb
// the request had no action of.
type v2BulkResponse struct {
	Create *v2BulkActionResponse `json:"create"`
	Update *v2BulkActionResponse `json:"update"`
	Delete *v2BulkActionResponse `json:"delete"`
}

// v2BulkActionResponse is BulkActionResponse.
type v2BulkActionResponse struct {
	Success []string         `json:"success"`
	Errors  []v2BulkActError `json:"errors"`
}

// v2BulkActError is one error of an action as the services record an
// HTTPException: its detail and its status.
type v2BulkActError struct {
	Error      string `json:"error"`
	StatusCode int    `json:"status_code"`
}

// v2Bulk answers a bulk request: the outcome of each verb, each fault
// in Airflow 3's words.
func v2Bulk(out map[bulkVerb]*bulkOutcome) (v2BulkResponse, error) {
	var res v2BulkResponse
	for _, verb := range bulkVerbs {
		o := out[verb]
		if o == nil {
			continue
		}
		r := &v2BulkActionResponse{Success: o.success, Errors: []v2BulkActError{}}
		for _, f := range o.faults {
			var e *v2Error
			phrased := apiv2ResourcePhrases.phrase(f)
			if !asV2Error(phrased, &e) {
				return v2BulkResponse{}, f
			}
			r.Errors = append(r.Errors, v2BulkActError{Error: fmt.Sprint(e.detail), StatusCode: e.status})
		}
		switch verb {
		case bulkCreate:
			res.Create = r
		case bulkUpdate:
			res.Update = r
		case bulkDelete:
			res.Delete = r
		}
	}
	return res, nil
}

// asV2Error is errors.As for a v2Error.
func asV2Error(err error, target **v2Error) bool {
	e, ok := err.(*v2Error)
	if ok {
		*target = e
	}
	return ok
}

// pySetRepr is Python's repr of a set of strings, as Airflow's bulk
// services put one in their texts ({'a', 'b'}); a set has no order in
// Python, airlite lists the keys in the request's order.
func pySetRepr(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = pyQuote(k)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// v2ResourceNames are how the bulk services name each resource's keys.
var v2ResourceNames = map[string]string{
	"pools":       "pools with these pool names",
	"variables":   "variables with these keys",
	"connections": "connections with these connection_ids",
}

// apiv2ResourcePhrases words the faults of pools, variables and
// connections as Airflow 3.2.1's routes and services do.
var apiv2ResourcePhrases = phrasebook{
	// routes/public/pools.py get_pool, delete_pool; services/public/pools.py
	faultPoolNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Pool with name: `%s` was not found", e.value("name"))}
	},
	faultPoolExists: func(*opError) error { return v2UniqueViolation() },
	faultDefaultPoolDelete: func(*opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: "Default Pool can't be deleted"}
	},
	faultDefaultPoolFields: func(*opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: "Only slots and included_deferred can be modified on Default Pool"}
	},
	// routes/public/variables.py, services/public/variables.py
	faultVariableNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Variable with key: `%s` was not found", e.value("key"))}
	},
	faultVariableToDeleteMissing: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Variable with key: `%s` was not found", e.value("key"))}
	},
	faultVariableExists: func(e *opError) error {
		return &v2Error{status: http.StatusConflict, detail: fmt.Sprintf("The Variable with key: `%s` already exists", e.value("key"))}
	},
	faultVariableKeyMismatch: func(*opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: "Invalid body, key from request body doesn't match uri parameter"}
	},
	// services/public/common.py apply_patch_with_update_mask
	faultFieldsImmutable: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: "Update not allowed: the following fields are immutable and cannot be modified: " +
			pySetRepr(strings.Split(e.value("fields"), ","))}
	},
	// routes/public/connections.py
	faultConnectionNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The Connection with connection_id: `%s` was not found", e.value("conn_id"))}
	},
	faultConnectionExists: func(*opError) error { return v2UniqueViolation() },
	faultConnectionIDMismatch: func(*opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: "The connection_id in the request body does not match the URL parameter"}
	},
	// services/public/{pools,variables,connections}.py handle_bulk_*
	faultBulkExist: func(e *opError) error {
		return &v2Error{status: http.StatusConflict, detail: fmt.Sprintf("The %s: %s already exist.",
			v2ResourceNames[e.value("resource")], pySetRepr(strings.Split(e.value("keys"), bulkKeySep)))}
	},
	faultBulkMissing: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("The %s: %s were not found.",
			v2ResourceNames[e.value("resource")], pySetRepr(strings.Split(e.value("keys"), bulkKeySep)))}
	},
}

// randomString is airflow/utils/strings.py get_random_string: n ASCII
// letters and digits.
func randomString(n int) string {
	const choices = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = choices[rand.IntN(len(choices))]
	}
	return string(b)
}

// v2PydanticDocs is where pydantic's errors link to, per its minor
// version (pydantic 2.12 in Airflow 3.2.1's constraints).
const v2PydanticDocs = "https://errors.pydantic.dev/2.12/v/"

// v2ErrorURL is the url of a pydantic error type's documentation.
func v2ErrorURL(typ string) string { return v2PydanticDocs + typ }

// v2Created is a row whose answer is fn's value with 201 Created (a
// route declared status_code=201), or fn's error.
func v2Created(s *server, d *dialect, fn func(req *apiRequest) (any, error)) routeHandler {
	return func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		res, err := fn(req)
		if err != nil {
			d.answerError(s, w, r, d.phrases.phrase(err))
			return
		}
		d.render(w, r, http.StatusCreated, res)
	}
}

// v2Keys is order_by checked (v2OrderBy) as the operations' sort keys.
func v2Keys(q v1Values, def string, allowed []string, replace map[string]string) ([]sortKey, error) {
	keys, err := v2OrderBy(q, def, allowed, replace)
	if err != nil {
		return nil, err
	}
	out := make([]sortKey, len(keys))
	for i, k := range keys {
		out[i] = sortKey{attr: k.attr, desc: k.desc, nullsLow: true}
	}
	return out, nil
}

// v2Mask is the update_mask query parameter (nil when absent).
func v2Mask(q v1Values) []string { return q.list("update_mask") }
