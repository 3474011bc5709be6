package main

// Request bodies of the stable API, checked as connexion checks them
// against the OpenAPI document (jsonschema Draft 4 with connexion's
// request rules: nullable, and readOnly properties refused), before
// Airflow's marshmallow schemas see them. The first failing check, in the
// document's order of properties and keywords, is the 400's detail:
// jsonschema's message, then " - 'path'".

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// bodyProp is one property of a body schema.
type bodyProp struct {
	name string
	// checks are the property's validating keywords in the document's
	// order: "type", "readOnly", "enum", "format", "minimum", "items",
	// "minLength", "minItems".
	checks   []string
	typ      string // type: string, boolean, integer, number, object, array
	nullable bool
	enum     []string
	minimum  *int64
	itemType string // items' type, for arrays
	// itemNullable: an item may be null; with enum, the items' values
	// (null among them, printed None first, as TaskState lists it)
	itemNullable bool
	minLen       int // minLength, for strings; minItems, for arrays
}

// bodySchema is an object schema: its properties in the document's order.
type bodySchema []bodyProp

func ro(name, typ string, nullable bool, checks ...string) bodyProp {
	if len(checks) == 0 {
		checks = []string{"type", "readOnly"}
	}
	return bodyProp{name: name, typ: typ, nullable: nullable, checks: checks}
}

func rw(name, typ string, nullable bool, checks ...string) bodyProp {
	if len(checks) == 0 {
		checks = []string{"type"}
	}
	return bodyProp{name: name, typ: typ, nullable: nullable, checks: checks}
}

// dagBodySchema is components/schemas/DAG as a request body.
var dagBodySchema = bodySchema{
	ro("dag_id", "string", false), ro("dag_display_name", "string", false), ro("root_dag_id", "string", true),
	rw("is_paused", "boolean", true), ro("is_active", "boolean", true, "readOnly", "type"), ro("is_subdag", "boolean", false),
	ro("last_parsed_time", "string", true, "type", "format", "readOnly"),
	ro("last_pickled", "string", true, "type", "format", "readOnly"),
	ro("last_expired", "string", true, "type", "format", "readOnly"),
	ro("scheduler_lock", "boolean", true), ro("pickle_id", "string", true), ro("default_view", "string", true),
	ro("fileloc", "string", false), ro("file_token", "string", false),
	{name: "owners", typ: "array", itemType: "string", checks: []string{"type", "items", "readOnly"}},
	ro("description", "string", true),
	{name: "schedule_interval", checks: []string{"readOnly"}}, // ScheduleInterval is readOnly
	ro("timetable_description", "string", true),
	{name: "tags", typ: "array", nullable: true, checks: []string{"type", "readOnly"}},
	ro("max_active_tasks", "integer", true), ro("max_active_runs", "integer", true),
	ro("has_task_concurrency_limits", "boolean", true), ro("has_import_errors", "boolean", true),
	ro("next_dagrun", "string", true, "type", "format", "readOnly"),
	ro("next_dagrun_data_interval_start", "string", true, "type", "format", "readOnly"),
	ro("next_dagrun_data_interval_end", "string", true, "type", "format", "readOnly"),
	ro("next_dagrun_create_after", "string", true, "type", "format", "readOnly"),
	ro("max_consecutive_failed_dag_runs", "integer", true),
}

// checkBodySchema checks a decoded body against an object schema and
// returns it as an object.
func checkBodySchema(v any, schema bodySchema) (map[string]any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, v1BadRequest(fmt.Sprintf("%s is not of type 'object'", pyRepr(v)))
	}
	for _, p := range schema {
		val, present := obj[p.name]
		if !present {
			continue
		}
		if msg := p.check(val); msg != "" {
			return nil, v1BadRequest(msg)
		}
	}
	return obj, nil
}

// check is one property's keywords in order; "" when it passes.
func (p bodyProp) check(val any) string {
	at := func(msg string, path ...string) string {
		return msg + " - '" + strings.Join(append([]string{p.name}, path...), ".") + "'"
	}
	for _, c := range p.checks {
		switch c {
		case "readOnly":
			return at("Property is read-only")
		case "type":
			if val == nil && p.nullable {
				continue
			}
			if !jsonTypeIs(val, p.typ) {
				return at(fmt.Sprintf("%s is not of type '%s'", pyRepr(val), p.typ))
			}
		case "enum":
			s, ok := val.(string)
			if val == nil && p.nullable {
				continue
			}
			if !ok || !slices.Contains(p.enum, s) {
				return at(fmt.Sprintf("%s is not one of [%s]", pyRepr(val), pyQuoteAll(p.enum)))
			}
		case "format": // date-time; other types pass
			if s, ok := val.(string); ok {
				if _, err := parseRFC3339(s); err != nil {
					return at(fmt.Sprintf("%s is not a 'date-time'", pyQuote(s)))
				}
			}
		case "minimum":
			if n, ok := val.(json.Number); ok && p.minimum != nil {
				if f, err := n.Float64(); err == nil && f < float64(*p.minimum) {
					return at(fmt.Sprintf("%s is less than the minimum of %d", pyRepr(n), *p.minimum))
				}
			}
		case "minLength": // jsonschema 4.21+'s wording
			if str, ok := val.(string); ok && len([]rune(str)) < p.minLen {
				if p.minLen == 1 {
					return at(pyRepr(str) + " should be non-empty")
				}
				return at(pyRepr(str) + " is too short")
			}
		case "minItems": // jsonschema 4.21+'s wording
			if list, ok := val.([]any); ok && len(list) < p.minLen {
				if p.minLen == 1 {
					return at(pyRepr(val) + " should be non-empty")
				}
				return at(pyRepr(val) + " is too short")
			}
		case "items":
			if list, ok := val.([]any); ok {
				for i, item := range list {
					if item == nil && p.itemNullable {
						continue
					}
					if !jsonTypeIs(item, p.itemType) {
						return at(fmt.Sprintf("%s is not of type '%s'", pyRepr(item), p.itemType), fmt.Sprint(i))
					}
					if s, _ := item.(string); p.enum != nil && !slices.Contains(p.enum, s) {
						return at(fmt.Sprintf("%s is not one of [None, %s]", pyRepr(item), pyQuoteAll(p.enum)), fmt.Sprint(i))
					}
				}
			}
		}
	}
	return ""
}

// pyQuoteAll is a list's items as Python's repr shows them, comma-separated.
func pyQuoteAll(items []string) string {
	quoted := make([]string, len(items))
	for i, e := range items {
		quoted[i] = pyQuote(e)
	}
	return strings.Join(quoted, ", ")
}

// tiStateEnum is v1.yaml's TaskState enum after its null (2.10.3
// airflow/api_connexion/openapi/v1.yaml:5373-5387).
var tiStateEnum = []string{"success", "running", "failed", "upstream_failed", "skipped", "up_for_retry",
	"up_for_reschedule", "queued", "none", "scheduled", "deferred", "removed", "restarting"}

// jsonTypeIs is Draft 4's type check: booleans are not numbers, and an
// integer has no fraction or exponent in its text.
func jsonTypeIs(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && !strings.ContainsAny(string(n), ".eE")
	}
	return true
}

// unknownFields is marshmallow's load refusing keys its schema lacks:
// "{'key': ['Unknown field.']}" in key order.
func unknownFields(body map[string]any, known []string) error {
	var unknown []string
	for k := range body {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	parts := make([]string, len(unknown))
	for i, k := range unknown {
		parts[i] = pyQuote(k) + ": ['Unknown field.']"
	}
	return v1BadRequest("{" + strings.Join(parts, ", ") + "}")
}

// maxRunNoteChars is SetDagRunNoteFormSchema's Length(max=1000).
const maxRunNoteChars = 1000

// v1ClearDates is ClearTaskInstanceFormSchema's field checks
// (task_instance_schema.py:172): start_date and end_date are marshmallow
// DateTimes whose validate_istimezone raises BadRequest at once for a
// naive date (api_connexion/parameters.py:38); task_ids' Length(min=1)
// never fails here, as the document's minItems refused it first. Field errors come in the schema's order, before its
// validates_schema, which marshmallow skips when a field failed.
func v1ClearDates(body map[string]any) (start, end *time.Time, err error) {
	var errs []string
	date := func(k string) (*time.Time, error) {
		s, ok := body[k].(string)
		if !ok {
			return nil, nil
		}
		t, naive, ok := mmDateTime(s)
		switch {
		case !ok:
			errs = append(errs, pyQuote(k)+": ['Not a valid datetime.']")
			return nil, nil
		case naive:
			return nil, &problem{status: http.StatusBadRequest, title: "Invalid datetime format", detail: "Naive datetime is disallowed"}
		}
		return &t, nil
	}
	if start, err = date("start_date"); err != nil {
		return nil, nil, err
	}
	if end, err = date("end_date"); err != nil {
		return nil, nil, err
	}
	if len(errs) > 0 {
		return nil, nil, v1BadRequest("{" + strings.Join(errs, ", ") + "}")
	}
	return start, end, nil
}

// v1FormErrors is the load of a body by one of Airflow's marshmallow form
// schemas, for what connexion leaves to it: field by field in the
// schema's order, a required one missing, a DateTime (format "datetime"
// in the document, which connexion does not check) that is not ISO 8601;
// then every key the schema does not know. The error map is
// ValidationError.messages whole, as the endpoints write it. A naive
// DateTime raises validate_istimezone's BadRequest at once
// (api_connexion/parameters.py:38).
func v1FormErrors(body map[string]any, fields, required, dates []string) error {
	var errs []string
	for _, f := range fields {
		v, ok := body[f]
		switch {
		case !ok:
			if slices.Contains(required, f) {
				errs = append(errs, pyQuote(f)+": ['Missing data for required field.']")
			}
		case slices.Contains(dates, f):
			s, isStr := v.(string)
			if !isStr {
				continue // the document's type check refused it already
			}
			if _, naive, valid := mmDateTime(s); !valid {
				errs = append(errs, pyQuote(f)+": ['Not a valid datetime.']")
			} else if naive {
				return &problem{status: http.StatusBadRequest, title: "Invalid datetime format", detail: "Naive datetime is disallowed"}
			}
		}
	}
	var unknown []string
	for k := range body {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown) // Python walks a set: any order; sorted here, stable
	for _, k := range unknown {
		errs = append(errs, pyQuote(k)+": ['Unknown field.']")
	}
	if len(errs) > 0 {
		return v1BadRequest("{" + strings.Join(errs, ", ") + "}")
	}
	return nil
}
