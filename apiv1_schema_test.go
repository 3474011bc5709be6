package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The stable API's answers against Airflow 2.10.3's OpenAPI document
// (airflow/api_connexion/openapi/v1.yaml): testdata/apiv1_schemas.json is
// its response schemas, extracted by scripts/extract_v1_schemas.py. The
// checker below fails on a field a schema does not declare, a required
// field missing, a wrong type, a value outside an enum, a date-time that
// is not RFC 3339, and a success status the operation does not declare.

type v1SchemaDoc struct {
	Operations map[string]map[string]map[string]any `json:"operations"`
	Schemas    map[string]map[string]any            `json:"schemas"`
}

func loadV1Schemas(t *testing.T) *v1SchemaDoc {
	t.Helper()
	data, err := os.ReadFile("testdata/apiv1_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc v1SchemaDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// undeclaredByAirflow are fields Airflow 2.10.3 itself answers that its
// document does not declare (its marshmallow schemas and its OpenAPI
// document disagree); airlite answers them as Airflow does.
var undeclaredByAirflow = map[string][]string{
	"Task":           {"operator_name", "params"}, // schemas/task_schema.py TaskSchema
	"TaskCollection": {"total_entries"},           // schemas/task_schema.py TaskCollectionSchema
	"DAGDetail":      {"template_searchpath"},     // schemas/dag_schema.py; the document says template_search_path
	// schemas/variable_schema.py:34-38: the collection nests VariableSchema,
	// value included; the document's VariableCollectionItem has no value.
	"VariableCollectionItem": {"value"},
}

// resolve follows a $ref; name is the component's name, or "".
func (doc *v1SchemaDoc) resolve(s map[string]any) (map[string]any, string) {
	name := ""
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s, name
		}
		name = ref[strings.LastIndexByte(ref, '/')+1:]
		next := doc.Schemas[name]
		if nullable, ok := s["nullable"].(bool); ok && nullable {
			merged := map[string]any{"nullable": true}
			for k, v := range next {
				merged[k] = v
			}
			next = merged
		}
		s = next
	}
}

// properties flattens allOf and $ref: the declared properties, the
// required names, and whether other keys are allowed.
func (doc *v1SchemaDoc) properties(s map[string]any, component string) (map[string]map[string]any, []string, bool) {
	s, name := doc.resolve(s)
	if name == "" {
		name = component
	}
	props := map[string]map[string]any{}
	var required []string
	open := false
	if p, ok := s["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v.(map[string]any)
		}
	}
	for _, r := range asList(s["required"]) {
		required = append(required, r.(string))
	}
	if ap, ok := s["additionalProperties"]; ok && ap != false {
		open = true
	}
	for _, part := range asList(s["allOf"]) {
		p, r, o := doc.properties(part.(map[string]any), "")
		for k, v := range p {
			props[k] = v
		}
		required = append(required, r...)
		open = open || o
	}
	for _, extra := range undeclaredByAirflow[name] {
		props[extra] = map[string]any{}
	}
	return props, required, open
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// check lists the ways v breaks schema s, each naming its path.
func (doc *v1SchemaDoc) check(path string, v any, s map[string]any) []string {
	s, name := doc.resolve(s)
	if v == nil {
		if n, _ := s["nullable"].(bool); n || len(s) == 0 {
			return nil
		}
		return []string{path + ": null where the schema does not allow it"}
	}
	if alts := append(asList(s["anyOf"]), asList(s["oneOf"])...); len(alts) > 0 {
		var all []string
		for _, alt := range alts {
			errs := doc.check(path, v, alt.(map[string]any))
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		return []string{fmt.Sprintf("%s: matches none of the alternatives: %v", path, all)}
	}
	var errs []string
	typ, _ := s["type"].(string)
	if typ == "" && (s["properties"] != nil || s["allOf"] != nil) {
		typ = "object"
	}
	switch typ {
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not a string", path, v)}
		}
		if s["format"] == "date-time" {
			if _, err := parseRFC3339(str); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not an RFC 3339 date-time", path, str))
			}
		}
		if enum := asList(s["enum"]); len(enum) > 0 && !slices.Contains(enum, any(str)) {
			errs = append(errs, fmt.Sprintf("%s: %q is not one of %v", path, str, enum))
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			return []string{fmt.Sprintf("%s: %v is not an integer", path, v)}
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return []string{fmt.Sprintf("%s: %v is not a number", path, v)}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: %v is not a boolean", path, v)}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an array", path, v)}
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, item := range list {
				errs = append(errs, doc.check(fmt.Sprintf("%s[%d]", path, i), item, items)...)
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an object", path, v)}
		}
		props, required, open := doc.properties(s, name)
		for _, r := range required {
			if _, ok := obj[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required field %q missing", path, r))
			}
		}
		if len(props) == 0 {
			return errs // a free-form object (conf, params)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, declared := props[k]
			if !declared {
				if !open {
					errs = append(errs, fmt.Sprintf("%s: field %q is not declared", path, k))
				}
				continue
			}
			errs = append(errs, doc.check(path+"."+k, obj[k], ps)...)
		}
	}
	return errs
}

// checkAnswer checks one answer of an operation.
// checkAnswer checks one answer against its operation's schema and
// returns the operation ("GET /api/v1/dags/{dag_id}"), "" when none.
func (doc *v1SchemaDoc) checkAnswer(t *testing.T, vr *v1Router, method, path string, res response) (op string) {
	t.Helper()
	route, _ := vr.match(method, strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], apiV1Prefix))
	if route == nil {
		t.Errorf("%s %s: no operation", method, path)
		return ""
	}
	op = method + " " + apiV1Prefix + strings.ReplaceAll(route.pattern, ":path}", "}") // the document has no converters
	responses, ok := doc.Operations[op]
	if !ok {
		t.Errorf("%s: not in the document", op)
		return ""
	}
	status := fmt.Sprint(res.status)
	schema, declared := responses[status]
	switch {
	case res.status >= 400:
		// connexion answers statuses an operation does not list (400 of
		// the query checks) with the same problem document.
		schema = map[string]any{"$ref": "#/components/schemas/Error"}
	case !declared:
		t.Errorf("%s answered %d, which the document does not declare", op, res.status)
		return op
	}
	if res.status == http.StatusNoContent || schema == nil || !strings.Contains(res.header.Get("Content-Type"), "json") {
		return op
	}
	dec := json.NewDecoder(strings.NewReader(res.body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("%s %s: body %q: %v", method, path, res.body, err)
		return op
	}
	if p, ok := v.(map[string]any); ok && res.status >= 400 {
		// Airflow writes a null title or detail where it raises a
		// problem without one; the document says string.
		for _, k := range []string{"title", "detail"} {
			if p[k] == nil {
				p[k] = ""
			}
		}
	}
	for _, e := range doc.check("body", v, schema) {
		t.Errorf("%s %s (%d): %s", method, path, res.status, e)
	}
	return op
}

// TestServerV1_AnswersMatchTheDocument sends a request of every kind the
// stable API answers, successes and errors, and checks each answer
// against the document's schema for its operation and status.
func TestServerV1_AnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Kick = func() {} }))
	threeRuns(t, ts)
	// sleep has had a try, so that the clear below keeps it as an earlier
	// try, which the tries requests then answer.
	sleep, err := ts.store.TaskInstance("tutorial", "r3", "sleep")
	if err != nil {
		t.Fatal(err)
	}
	tried := *sleep
	tried.TryNumber = 1
	if err := ts.store.UpsertTaskInstance(&tried); err != nil {
		t.Fatal(err)
	}
	vr := ts.srv.v1Routes()
	token := decodeJSON[map[string]any](t, ts.v1(t, "GET", "/dags/example_bash_operator?fields=file_token", "").body)["file_token"].(string)
	requests := []struct{ method, path, body string }{
		{"GET", "/health", ""}, {"GET", "/version", ""}, {"GET", "/config", ""}, {"GET", "/providers", ""},
		{"GET", "/plugins", ""}, {"GET", "/importErrors", ""}, {"GET", "/importErrors/007", ""},
		{"GET", "/config/section/core/option/dags_folder", ""}, {"GET", "/dagWarnings", ""}, {"GET", "/plugins?limit=-1", ""},
		{"GET", "/dags", ""}, {"GET", "/dags?only_active=false&paused=false", ""}, {"GET", "/dags?bogus=1", ""},
		{"GET", "/dags/example_bash_operator", ""}, {"GET", "/dags/tutorial", ""}, {"GET", "/dags/example_subdag_operator", ""},
		{"GET", "/dags/example_subdag_operator.section-1", ""}, {"GET", "/dags/nope", ""},
		{"GET", "/dags/example_bash_operator/details", ""}, {"GET", "/dags/tutorial/details", ""},
		{"GET", "/dags/example_trigger_target_dag/details", ""}, {"GET", "/dags/example_subdag_operator/details", ""},
		{"GET", "/dags/example_bash_operator/tasks", ""}, {"GET", "/dags/example_subdag_operator/tasks", ""},
		{"GET", "/dags/example_python_operator/tasks", ""}, {"GET", "/dags/example_papermill_operator/tasks", ""},
		{"GET", "/dags/example_bash_operator/tasks/runme_0", ""}, {"GET", "/dags/example_bash_operator/tasks/nope", ""},
		{"GET", "/dagSources/" + token, ""}, {"GET", "/dagSources/nope", ""}, {"GET", "/dagStats?dag_ids=tutorial,example_bash_operator", ""},
		{"PATCH", "/dags/tutorial", `{"is_paused": false}`}, {"PATCH", "/dags?dag_id_pattern=example", `{"is_paused": false}`},
		{"PATCH", "/dags/tutorial", `{"dag_id": "x"}`},
		{"GET", "/dags/tutorial/dagRuns", ""}, {"GET", "/dags/~/dagRuns?order_by=-execution_date", ""},
		{"GET", "/dags/tutorial/dagRuns?order_by=execution_date&limit=1", ""},
		{"POST", "/dags/~/dagRuns/list", `{"dag_ids": ["tutorial"]}`}, {"POST", "/dags/~/dagRuns/list", `{"page_limit": 0}`},
		{"GET", "/dags/tutorial/dagRuns/r1", ""}, {"GET", "/dags/tutorial/dagRuns/r3", ""}, {"GET", "/dags/tutorial/dagRuns/nope", ""},
		{"POST", "/dags/example_bash_operator/dagRuns", `{"conf": {"k": [1, "two"]}, "note": "n"}`},
		{"POST", "/dags/tutorial/dagRuns", `{"dag_run_id": "r1"}`}, {"POST", "/dags/tutorial/dagRuns", `{"state": "failed"}`},
		{"PATCH", "/dags/tutorial/dagRuns/r1", `{"state": "failed"}`}, {"PATCH", "/dags/tutorial/dagRuns/r1/setNote", `{"note": "x"}`},
		{"POST", "/dags/tutorial/dagRuns/r1/clear", `{"dry_run": true}`}, {"POST", "/dags/tutorial/dagRuns/r1/clear", `{"dry_run": false}`},
		{"GET", "/dags/tutorial/dagRuns/r1/upstreamDatasetEvents", ""}, {"DELETE", "/dags/tutorial/dagRuns/r2", ""},
		{"PATCH", "/dags/tutorial/dagRuns/r3/taskInstances/print_date", `{"new_state": "success"}`},
		{"POST", "/dags/tutorial/updateTaskInstancesState", `{"task_id": "print_date", "dag_run_id": "r3", "include_upstream": false,
			"include_downstream": true, "include_future": false, "include_past": false, "new_state": "failed"}`},
		{"POST", "/dags/tutorial/clearTaskInstances", `{"only_failed": false}`},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/print_date", ""},
		{"POST", "/dags/~/dagRuns/~/taskInstances/list", `{"dag_ids": ["tutorial"]}`},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/print_date/logs/1", ""},
		{"DELETE", "/dags/tutorial/dagRuns/r2", ""}, {"DELETE", "/dags/tutorial/dagRuns/r2", ""}, {"DELETE", "/dags/example_trigger_target_dag", ""},
		{"POST", "/dags/tutorial/clearTaskInstances", `{"dry_run": false, "dag_run_id": "r3", "task_ids": ["sleep"], "only_failed": false}`},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/tries", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/0/tries", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/tries/1", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/tries/0", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/tries/9", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/1/tries/0", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/0", ""},
		{"PATCH", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/0", `{"new_state": "success"}`},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/listMapped", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/links", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/nope/links", ""},
		{"PATCH", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/setNote", `{"note": "n"}`},
		{"PATCH", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/0/setNote", `{"note": "n"}`},
		{"PATCH", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/setNote", `{}`},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/dependencies", ""}, {"GET", "/dags/tutorial/dagRuns/r3/taskInstances/sleep/0/dependencies", ""},
		{"GET", "/datasets", ""}, {"GET", "/datasets?order_by=x", ""}, {"GET", "/datasets/s3%3A%2F%2Fb", ""}, {"GET", "/datasets/events", ""},
		{"POST", "/datasets/events", `{"dataset_uri": "u"}`}, {"GET", "/datasets/queuedEvent/u", ""}, {"DELETE", "/datasets/queuedEvent/u", ""},
		{"GET", "/dags/tutorial/datasets/queuedEvent", ""}, {"DELETE", "/dags/tutorial/datasets/queuedEvent", ""},
		{"GET", "/dags/tutorial/datasets/queuedEvent/u", ""}, {"DELETE", "/dags/tutorial/datasets/queuedEvent/u", ""},
		{"PUT", "/parseDagFile/" + token, ""}, {"PUT", "/parseDagFile/nope", ""},
		{"GET", "/roles", ""}, {"GET", "/roles/Admin", ""}, {"POST", "/roles", `{"name": "r"}`}, {"PATCH", "/roles/r", `{"name": "r"}`},
		{"DELETE", "/roles/r", ""}, {"GET", "/permissions", ""}, {"GET", "/users", ""}, {"GET", "/users/u", ""},
		{"POST", "/users", `{"username": "u"}`}, {"PATCH", "/users/u", `{"email": ""}`}, {"DELETE", "/users/u", ""},
		{"GET", "/pools", ""}, {"GET", "/pools/default_pool", ""}, {"GET", "/pools/nope", ""},
		{"POST", "/pools", `{"name": "p", "slots": 2, "description": "d"}`}, {"POST", "/pools", `{"name": "p", "slots": 2}`},
		{"PATCH", "/pools/p?update_mask=slots", `{"slots": 3}`}, {"PATCH", "/pools/default_pool", `{"name": "x", "slots": 1}`},
		{"DELETE", "/pools/p", ""}, {"DELETE", "/pools/default_pool", ""},
		{"GET", "/eventLogs", ""}, {"GET", "/eventLogs?order_by=-when&limit=2", ""}, {"GET", "/eventLogs/1", ""},
		{"GET", "/eventLogs?event=running", ""}, {"GET", "/eventLogs/999999", ""}, {"GET", "/eventLogs?order_by=nope", ""},
		{"POST", "/variables", `{"key": "v", "value": "1"}`}, {"GET", "/variables", ""}, {"GET", "/variables/v", ""},
		{"PATCH", "/variables/v", `{"key": "v", "value": "2"}`}, {"DELETE", "/variables/v", ""}, {"GET", "/variables/v", ""},
		{"POST", "/connections", `{"connection_id": "c", "conn_type": "http"}`}, {"GET", "/connections", ""},
		{"GET", "/connections/c", ""}, {"PATCH", "/connections/c", `{"connection_id": "c", "conn_type": "ftp"}`},
		{"POST", "/connections/test", `{"connection_id": "c", "conn_type": "http"}`}, {"DELETE", "/connections/c", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/print_date/xcomEntries", ""},
		{"GET", "/dags/tutorial/dagRuns/r3/taskInstances/print_date/xcomEntries/return_value", ""},
	}
	// The API's requests above log themselves; a try's row besides.
	if err := ts.store.AppendEventLog(tiEvent("running", eventTime1)); err != nil {
		t.Fatal(err)
	}
	walked := map[string]bool{}
	for _, rq := range requests {
		res := ts.v1(t, rq.method, rq.path, rq.body, "Accept", "application/json")
		walked[doc.checkAnswer(t, vr, rq.method, rq.path, res)] = true
	}
	// The tries answers above held an earlier try.
	if tries, _, err := ts.store.EarlierTries("tutorial", "r3", "sleep", -1); err != nil || len(tries) != 1 {
		t.Errorf("earlier tries of sleep: %d, %v; want the one the clear kept", len(tries), err)
	}
	// Every operation of the document is walked at least once.
	for _, op := range slices.Sorted(maps.Keys(doc.Operations)) {
		if !walked[op] {
			t.Errorf("%s: no request above walks it", op)
		}
	}
}

// TestV1SchemaChecker makes sure the checker refuses what it must.
func TestV1SchemaChecker(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	for _, tc := range []struct {
		name, body, schema string
		wantErr            string
	}{
		{"valid", `{"version": "2.10.3", "git_version": null}`, "VersionInfo", ""},
		{"undeclared field", `{"version": "2.10.3", "extra": 1}`, "VersionInfo", `field "extra" is not declared`},
		{"wrong type", `{"version": 2}`, "VersionInfo", "is not a string"},
		{"required missing", `{"title": "x", "status": 400}`, "Error", `required field "type" missing`},
		{"allOf fields", `{"dag_runs": [], "total_entries": 1}`, "DAGRunCollection", ""},
		{"allOf undeclared", `{"dag_runs": [], "total_entries": 1, "x": 2}`, "DAGRunCollection", `field "x" is not declared`},
		{"enum", `{"dag_runs": [{"state": "exploded"}]}`, "DAGRunCollection", "is not one of"},
		{"date-time", `{"dag_runs": [{"start_date": "2024-01-01 00:00:00"}]}`, "DAGRunCollection", "RFC 3339"},
		{"null where not nullable", `{"dag_runs": [{"dag_id": null}]}`, "DAGRunCollection", "null where"},
		{"anyOf", `{"schedule_interval": {"__type": "CronExpression"}}`, "DAG", "matches none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.body))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			errs := doc.check("body", v, ref(tc.schema))
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), tc.wantErr):
				t.Errorf("errors %v, want one saying %q", errs, tc.wantErr)
			}
		})
	}
}
