package main

// The stable API's DAG runs (Airflow 2.10.3
// airflow/api_connexion/endpoints/dag_run_endpoint.py and
// schemas/dag_run_schema.py). Runs are the store's rows, shared with the
// experimental API: a run triggered through either is the same row.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// v1RunFields are the keys of DAGRunSchema's dump, for ?fields=.
var v1RunFields = []string{"conf", "dag_id", "dag_run_id", "data_interval_end", "data_interval_start", "end_date",
	"execution_date", "external_trigger", "last_scheduling_decision", "logical_date", "note", "run_type",
	"start_date", "state"}

// v1Run renders a run as DAGRunSchema dumps it.
func (s *server) v1Run(run *DagRun) pyObject {
	return v1RunOf(s.dagDefOf(run.DagID), run)
}

// dagDefOf is a DAG's definition; nil when the DAG is gone or has none.
func (s *server) dagDefOf(dagID string) *DAG {
	if row, err := s.opts.Store.DagByID(dagID); err == nil {
		return row.Def
	}
	return nil
}

// v1RunOf is v1Run for a caller that holds the run's DAG definition
// (def, nil when it has none): the data interval of a run created
// without one is inferred from it.
func v1RunOf(def *DAG, run *DagRun) pyObject {
	var conf any = map[string]any{}
	if len(run.Conf) > 0 && !isFalsy(run.Conf) {
		conf = run.Conf
	}
	start, end := runDataInterval(def, run)
	var note any
	if run.Note != nil {
		note = *run.Note
	}
	var logicalDate any = isoFormat(run.ExecutionDate) // one string for both keys
	// Keys in sorted order, as the answer writes them (pyObject).
	return pyObject{
		{"conf", conf},
		{"dag_id", run.DagID},
		{"dag_run_id", run.RunID},
		{"data_interval_end", v1Date(end)},
		{"data_interval_start", v1Date(start)},
		{"end_date", v1Date(run.EndDate)},
		{"execution_date", logicalDate},
		{"external_trigger", run.ExternalTrigger},
		{"last_scheduling_decision", nil},
		{"logical_date", logicalDate},
		{"note", note},
		{"run_type", run.RunType},
		{"start_date", v1Date(run.StartDate)},
		{"state", string(run.State)},
	}
}

// runDataInterval is a run's data interval: the one it was created with,
// or what the DAG's timetable gives its logical date: the interval it
// starts for a scheduled run, infer_manual_data_interval for any other
// (the last complete interval before it; an instant without a schedule
// or with @once).
func runDataInterval(def *DAG, run *DagRun) (*time.Time, *time.Time) {
	if run.DataIntervalStart != nil {
		return run.DataIntervalStart, run.DataIntervalEnd
	}
	if def == nil {
		return nil, nil
	}
	iv := inferDataInterval(def, run.ExecutionDate.UTC(), run.RunType == "scheduled")
	return &iv.start, &iv.end
}

// v1RunNotFound is get_dag_run's 404.
func v1RunNotFound(dagID, runID string) error {
	return v1NotFound("DAGRun not found", fmt.Sprintf("DAGRun with DAG ID: '%s' and DagRun ID: '%s' not found", dagID, runID))
}

// runFields applies DAGRunSchema's fields context: a field it does not
// dump is a ValueError Airflow answers 400 with title.
func runFields(d pyObject, fields []string, title string) (pyObject, error) {
	if len(fields) == 0 {
		return d, nil
	}
	for _, f := range fields {
		if !slices.ContainsFunc(d, func(g pyField) bool { return g.key == f }) {
			return nil, &problem{status: http.StatusBadRequest, title: title, detail: f + " not in DAGRunSchema"}
		}
	}
	out := make(pyObject, 0, len(fields))
	for _, g := range d { // in d's order, so still sorted; a field asked twice once
		if slices.Contains(fields, g.key) {
			out = append(out, g)
		}
	}
	return out, nil
}

// V1GetDagRun is GET /dags/{dag_id}/dagRuns/{dag_run_id}.
func (s *server) V1GetDagRun(dagID, runID string, fields []string) (pyObject, error) {
	run, err := s.ops.runByID(dagID, runID)
	if err != nil {
		return nil, v1RunPhrases.phrase(err)
	}
	return runFields(s.v1Run(run), fields, "DAGRunSchema error")
}

// v1RunOrder is apply_sorting's allowed attributes for runs.
var v1RunOrder = []string{"id", "state", "dag_id", "execution_date", "dag_run_id", "start_date", "end_date",
	"updated_at", "external_trigger", "conf"}

// V1GetDagRuns is GET /dags/{dag_id}/dagRuns; dag_id "~" is every DAG.
func (s *server) V1GetDagRuns(dagID string, qv v1Values) (map[string]any, error) {
	p, err := qv.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := qv.orderBy("id", v1RunOrder)
	if err != nil {
		return nil, err
	}
	q := &runQuery{states: qv.list("state"), orderBy: attr, desc: desc, offset: p.offset, limit: p.limit,
		executionGTE: qv.dateTime("execution_date_gte"), executionLTE: qv.dateTime("execution_date_lte"),
		startGTE: qv.dateTime("start_date_gte"), startLTE: qv.dateTime("start_date_lte"),
		endGTE: qv.dateTime("end_date_gte"), endLTE: qv.dateTime("end_date_lte"),
		updatedGTE: qv.dateTime("updated_at_gte"), updatedLTE: qv.dateTime("updated_at_lte")}
	if dagID != "~" {
		q.dagIDs = []string{dagID}
	}
	runs, total, err := s.ops.listRuns(q)
	if err != nil {
		return nil, err
	}
	return s.runCollection(runs, total, qv.list("fields"))
}

func (s *server) runCollection(runs []*DagRun, total int, fields []string) (map[string]any, error) {
	out := make([]any, 0, len(runs))
	defs := map[string]*DAG{} // a page holds the runs of a few DAGs: look each up once
	for _, run := range runs {
		def, seen := defs[run.DagID]
		if !seen {
			def = s.dagDefOf(run.DagID)
			defs[run.DagID] = def
		}
		d, err := runFields(v1RunOf(def, run), fields, "DAGRunCollectionSchema error")
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return map[string]any{"dag_runs": out, "total_entries": total}, nil
}

// listRunsFormSchema is components/schemas/ListDagRunsForm.
var listRunsFormSchema = bodySchema{
	rw("order_by", "string", false),
	{name: "page_offset", typ: "integer", minimum: minimum(0), checks: []string{"type", "minimum"}},
	{name: "page_limit", typ: "integer", minimum: minimum(1), checks: []string{"type", "minimum"}},
	{name: "dag_ids", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	{name: "states", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	rw("execution_date_gte", "string", false, "type", "format"), rw("execution_date_lte", "string", false, "type", "format"),
	rw("start_date_gte", "string", false, "type", "format"), rw("start_date_lte", "string", false, "type", "format"),
	rw("end_date_gte", "string", false, "type", "format"), rw("end_date_lte", "string", false, "type", "format"),
}

// listRunsFormFields are DagRunsBatchFormSchema's fields (updated_at_*
// are read and, as in Airflow, not applied).
var listRunsFormFields = []string{"order_by", "page_offset", "page_limit", "dag_ids", "states", "execution_date_gte",
	"execution_date_lte", "start_date_gte", "start_date_lte", "end_date_gte", "end_date_lte", "updated_at_gte", "updated_at_lte"}

func checkListRunsForm(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, listRunsFormSchema)
	if err != nil {
		return nil, err
	}
	return body, unknownFields(body, listRunsFormFields)
}

// V1GetDagRunsBatch is POST /dags/~/dagRuns/list.
func (s *server) V1GetDagRunsBatch(body map[string]any) (map[string]any, error) {
	q := &runQuery{orderBy: "id", offset: 0, limit: 100}
	if v, ok := body["order_by"].(string); ok {
		attr := strings.TrimLeft(v, "-")
		if !slices.Contains(v1RunOrder, attr) {
			return nil, v1BadRequest(fmt.Sprintf("Ordering with '%s' is disallowed or the attribute does not exist on the model", attr))
		}
		q.orderBy, q.desc = attr, strings.HasPrefix(v, "-")
	}
	if n, ok := body["page_offset"].(json.Number); ok {
		i, _ := n.Int64()
		q.offset = int(i)
	}
	if n, ok := body["page_limit"].(json.Number); ok {
		i, _ := n.Int64()
		q.limit = int(i)
	}
	strs := func(key string) []string {
		list, _ := body[key].([]any)
		out := make([]string, 0, len(list))
		for _, item := range list {
			out = append(out, item.(string)) // checked by the schema
		}
		return out
	}
	date := func(key string) *time.Time {
		s, _ := body[key].(string)
		t, err := parseRFC3339(s)
		if err != nil {
			return nil
		}
		return &t
	}
	q.states = strs("states")
	q.executionGTE, q.executionLTE = date("execution_date_gte"), date("execution_date_lte")
	q.startGTE, q.startLTE = date("start_date_gte"), date("start_date_lte")
	q.endGTE, q.endLTE = date("end_date_gte"), date("end_date_lte")
	if ids := strs("dag_ids"); len(ids) > 0 {
		q.dagIDs = inList(ids)
	}
	runs, total, err := s.ops.listRuns(q)
	if err != nil {
		return nil, err
	}
	return s.runCollection(runs, total, nil)
}

// postRunSchema is components/schemas/DAGRun as a request body.
var postRunSchema = bodySchema{
	rw("dag_run_id", "string", true), ro("dag_id", "string", false),
	rw("logical_date", "string", true, "type", "format"), rw("execution_date", "string", true, "type", "format"),
	ro("start_date", "string", true, "type", "format", "readOnly"), ro("end_date", "string", true, "type", "format", "readOnly"),
	rw("data_interval_start", "string", true, "type", "format"), rw("data_interval_end", "string", true, "type", "format"),
	ro("last_scheduling_decision", "string", true, "type", "format", "readOnly"),
	{name: "run_type", typ: "string", checks: []string{"type", "readOnly"}},
	{name: "state", typ: "string", checks: []string{"type", "readOnly"}},
	ro("external_trigger", "boolean", false),
	rw("conf", "object", false), rw("note", "string", true),
}

// postRunFields are the keys DAGRunSchema loads.
var postRunFields = []string{"dag_run_id", "logical_date", "execution_date", "conf", "data_interval_start",
	"data_interval_end", "note"}

func checkPostRunBody(v any) (map[string]any, error) { return checkBodySchema(v, postRunSchema) }

// V1PostDagRun is POST /dags/{dag_id}/dagRuns: a manual run, queued, as
// the experimental trigger creates it in edition 2. event, when not nil,
// is stored in the same write as the run.
func (s *server) V1PostDagRun(dagID string, body map[string]any, event *EventLog) (pyObject, error) {
	// post_dag_run finds the DAG, and refuses one with import errors,
	// before it loads the body.
	row, err := s.ops.dagToTrigger(dagID, v1TriggerChecks)
	if err != nil {
		return nil, v1TriggerPhrases.phrase(err)
	}
	req, err := s.v1TriggerRequest(dagID, body)
	if err != nil {
		return nil, err
	}
	req.event = event
	done, err := s.ops.trigger(req)
	if err != nil {
		return nil, v1TriggerPhrases.phrase(err)
	}
	return v1RunOf(row.Def, done.run), nil
}

// v1TriggerChecks are post_dag_run's checks of a trigger.
var v1TriggerChecks = triggerChecks{reservedRunIDs: true, runIDPattern: true, importErrors: true}

// v1TriggerRequest reads DAGRunSchema's load of a POST body.
func (s *server) v1TriggerRequest(dagID string, body map[string]any) (triggerRequest, error) {
	req := triggerRequest{dagID: dagID, checks: v1TriggerChecks}
	if err := unknownFields(body, postRunFields); err != nil {
		return req, err
	}
	now := s.ops.clock()
	// pre_load: logical_date, else execution_date, else now; both must agree.
	logical, hasLogical := body["logical_date"]
	execution, hasExecution := body["execution_date"]
	switch {
	case !hasLogical && !hasExecution:
		logical = strFormat(now)
	case !hasLogical:
		logical = execution
	case hasExecution && !jsonEqual(logical, execution):
		return req, &problem{status: http.StatusBadRequest, title: "logical_date conflicts with execution_date",
			detail: fmt.Sprintf("%s != %s", pyRepr(logical), pyRepr(execution))}
	}
	if logical == nil {
		// DAGRunSchema's execution_date column is not nullable
		// (2.10.3 api_connexion/schemas/dag_run_schema.py:66,86-91).
		return req, v1BadRequest("{'logical_date': ['Field may not be null.']}")
	}
	dateText, _ := logical.(string)
	date, err := parseLogicalDate(dateText)
	if err != nil {
		return req, &problem{status: http.StatusBadRequest, title: "Incorrect datetime argument", detail: "Unable to parse " + pyRepr(logical)}
	}
	req.date = &date
	req.runID = "manual__" + isoFormat(date)
	if raw, ok := body["dag_run_id"]; ok {
		s, isString := raw.(string)
		if !isString {
			return req, v1BadRequest("{'dag_run_id': ['Field may not be null.']}")
		}
		req.runID = s
	}
	start, startGiven := body["data_interval_start"].(string)
	end, endGiven := body["data_interval_end"].(string)
	if startGiven != endGiven {
		return req, v1BadRequest(`{'_schema': ["Both 'data_interval_start' and 'data_interval_end' must be specified together"]}`)
	}
	if startGiven {
		a, _ := parseRFC3339(start)
		b, _ := parseRFC3339(end)
		req.interval = &dataInterval{a, b}
	}
	req.conf = json.RawMessage(`{}`)
	if c, ok := body["conf"].(map[string]any); ok && len(c) > 0 {
		raw, err := json.Marshal(c)
		if err != nil {
			return req, fmt.Errorf("encode conf: %w", err)
		}
		if req.conf, err = compactConf(raw); err != nil {
			return req, v1BadRequest(err.Error())
		}
	}
	if n, ok := body["note"].(string); ok && n != "" {
		req.note = &n
	}
	return req, nil
}

// jsonEqual compares two decoded JSON values as Python's != does for
// the strings and nulls a date field holds.
func jsonEqual(a, b any) bool { return pyRepr(a) == pyRepr(b) }

// parseLogicalDate reads the logical date as marshmallow's DateTime does
// after connexion's RFC 3339 check, or the str() of now that pre_load
// puts in when none was given.
func parseLogicalDate(s string) (time.Time, error) {
	if t, err := parseRFC3339(s); err == nil {
		return t, nil
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999-07:00", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse logical date %q: %w", s, err)
	}
	return t.UTC(), nil
}

// v1RunByID is the run lookup of the PATCH, clear and note endpoints:
// NotFound with Airflow's title and no detail.
func (s *server) v1RunByID(dagID, runID, message string) (*DagRun, error) {
	run, err := s.ops.runByID(dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, &problem{status: http.StatusNotFound, title: message}
	}
	return run, err
}

// updateRunStateSchema is components/schemas/UpdateDagRunState.
var updateRunStateSchema = bodySchema{
	{name: "state", typ: "string", enum: []string{"success", "failed", "queued"}, checks: []string{"type", "enum"}},
}

func checkUpdateRunStateBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, updateRunStateSchema)
	if err != nil {
		return nil, err
	}
	return body, unknownFields(body, []string{"state"})
}

// V1UpdateDagRunState is PATCH /dags/{dag_id}/dagRuns/{dag_run_id}:
// set_dag_run_state_to_success, _failed or _queued, through the store's
// forced state; tries that stop running stop with it.
func (s *server) V1UpdateDagRunState(dagID, runID string, body map[string]any) (pyObject, error) {
	if _, err := s.v1RunByID(dagID, runID, fmt.Sprintf("Dag Run id %s not found in dag %s", runID, dagID)); err != nil {
		return nil, err
	}
	state, ok := body["state"].(string)
	if !ok {
		// Airflow reads post_body["state"] and fails (KeyError, a 500).
		return nil, v1BadRequest("{'state': ['Missing data for required field.']}")
	}
	if err := s.ops.setRunState(dagID, runID, RunState(state)); err != nil {
		return nil, err
	}
	return s.V1GetDagRun(dagID, runID, nil)
}

// clearRunSchema is components/schemas/ClearDagRun.
var clearRunSchema = bodySchema{rw("dry_run", "boolean", false)}

func checkClearRunBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, clearRunSchema)
	if err != nil {
		return nil, err
	}
	return body, unknownFields(body, []string{"dry_run"})
}

// V1ClearDagRun is POST /dags/{dag_id}/dagRuns/{dag_run_id}/clear: with
// dry_run (the default) the task instances that would be cleared, the
// run's and its sub-DAG runs'; otherwise the run after clearing them.
func (s *server) V1ClearDagRun(dagID, runID string, body map[string]any) (any, error) {
	// Airflow's message has three spaces before the dag_id.
	run, err := s.v1RunByID(dagID, runID, fmt.Sprintf("Dag Run id %s not found in dag   %s", runID, dagID))
	if err != nil {
		return nil, err
	}
	dryRun := true
	if v, ok := body["dry_run"].(bool); ok {
		dryRun = v
	}
	tis, err := s.ops.clearRun(run, dryRun)
	if err != nil {
		return nil, err
	}
	if dryRun {
		refs := make([]any, 0, len(tis))
		for _, ti := range tis {
			refs = append(refs, map[string]any{"dag_id": ti.DagID, "dag_run_id": ti.RunID,
				"execution_date": isoFormat(ti.ExecutionDate), "task_id": ti.TaskID})
		}
		return map[string]any{"task_instances": refs}, nil
	}
	return s.V1GetDagRun(dagID, runID, nil)
}

// setRunNoteSchema is components/schemas/SetDagRunNote.
var setRunNoteSchema = bodySchema{rw("note", "string", false)}

func checkSetRunNoteBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, setRunNoteSchema)
	if err != nil {
		return nil, err
	}
	return body, unknownFields(body, []string{"note"})
}

// V1SetDagRunNote is PATCH /dags/{dag_id}/dagRuns/{dag_run_id}/setNote.
func (s *server) V1SetDagRunNote(dagID, runID string, body map[string]any) (pyObject, error) {
	if _, err := s.v1RunByID(dagID, runID, fmt.Sprintf("Dag Run id %s not found in dag %s", runID, dagID)); err != nil {
		return nil, err
	}
	raw, ok := body["note"]
	if !ok {
		return nil, v1BadRequest("{'note': ['Missing data for required field.']}")
	}
	var note *string
	if n, isString := raw.(string); isString {
		if utf8.RuneCountInString(n) > maxRunNoteChars {
			return nil, v1BadRequest("{'note': ['Longer than maximum length 1000.']}")
		}
		note = &n
	}
	run, err := s.ops.setRunNote(dagID, runID, note)
	if err != nil {
		return nil, v1RunPhrases.phrase(err)
	}
	return s.v1Run(run), nil
}

// V1DeleteDagRun is DELETE /dags/{dag_id}/dagRuns/{dag_run_id}; tries of
// the run that are running stop with it.
func (s *server) V1DeleteDagRun(dagID, runID string) error {
	return v1DeleteRunPhrases.phrase(s.ops.deleteRun(dagID, runID))
}

// V1UpstreamDatasetEvents is GET …/upstreamDatasetEvents: the dataset
// events the run consumed (DagRun.consumed_dataset_events), in
// DatasetEventSchema's shape.
func (s *server) V1UpstreamDatasetEvents(dagID, runID string) (map[string]any, error) {
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, v1RunNotFound(dagID, runID)
	} else if err != nil {
		return nil, err
	}
	events, err := s.ops.consumedAssetEvents(run)
	if err != nil {
		return nil, err
	}
	created, err := s.ops.eventRuns(events)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(events))
	for i, e := range events {
		out[i] = s.v1DatasetEvent(e, created[e.ID])
	}
	return map[string]any{"dataset_events": out, "total_entries": len(out)}, nil
}
