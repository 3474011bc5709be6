package main

// The stable API's DAG runs (Airflow 2.10.3
// airflow/api_connexion/endpoints/dag_run_endpoint.py and
// schemas/dag_run_schema.py). Runs are the store's rows, shared with the
// experimental API: a run triggered through either is the same row.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
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
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, v1RunNotFound(dagID, runID)
	}
	if err != nil {
		return nil, err
	}
	return runFields(s.v1Run(run), fields, "DAGRunSchema error")
}

// runQuery is _fetch_dag_runs' filters and page.
type runQuery struct {
	dagIDs                     []string // nil: every DAG
	states                     []string
	executionGTE, executionLTE *time.Time
	startGTE, startLTE         *time.Time
	endGTE, endLTE             *time.Time
	updatedGTE, updatedLTE     *time.Time
	orderBy                    string
	desc                       bool
	offset, limit              int
}

// v1RunOrder is apply_sorting's allowed attributes for runs.
var v1RunOrder = []string{"id", "state", "dag_id", "execution_date", "dag_run_id", "start_date", "end_date",
	"updated_at", "external_trigger", "conf"}

func inRange(t *time.Time, gte, lte *time.Time) bool {
	if gte == nil && lte == nil {
		return true
	}
	if t == nil {
		return false // SQL: NULL compares as unknown
	}
	return (gte == nil || !t.Before(*gte)) && (lte == nil || !t.After(*lte))
}

func (q *runQuery) match(run *DagRun) bool {
	if len(q.states) > 0 && !slices.Contains(q.states, string(run.State)) {
		return false
	}
	date := run.ExecutionDate
	return inRange(&date, q.executionGTE, q.executionLTE) && inRange(run.StartDate, q.startGTE, q.startLTE) &&
		inRange(run.EndDate, q.endGTE, q.endLTE) && inRange(run.UpdatedAt, q.updatedGTE, q.updatedLTE)
}

// compareRuns orders runs by an attribute (NULLs first, as SQLite sorts
// them), then by id so that pages never overlap.
func compareRuns(attr string) func(a, b *DagRun) int {
	times := func(a, b *time.Time) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		case b == nil:
			return 1
		}
		return a.Compare(*b)
	}
	key := func(a, b *DagRun) int {
		switch attr {
		case "state":
			return strings.Compare(string(a.State), string(b.State))
		case "dag_id":
			return strings.Compare(a.DagID, b.DagID)
		case "execution_date":
			return a.ExecutionDate.Compare(b.ExecutionDate)
		case "dag_run_id":
			return strings.Compare(a.RunID, b.RunID)
		case "start_date":
			return times(a.StartDate, b.StartDate)
		case "end_date":
			return times(a.EndDate, b.EndDate)
		case "updated_at":
			return times(a.UpdatedAt, b.UpdatedAt)
		case "external_trigger":
			return boolCompare(a.ExternalTrigger, b.ExternalTrigger)
		case "conf":
			return bytes.Compare(a.Conf, b.Conf)
		}
		return 0
	}
	return func(a, b *DagRun) int {
		if c := key(a, b); c != 0 {
			return c
		}
		return compareInt64(a.ID, b.ID)
	}
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fetchRuns is _fetch_dag_runs: the page of matching runs and how many
// match. The orders and filters the store's indexes and run counts serve
// (pageQuery) read the page alone; other listings read the DAGs' runs
// (each DAG holds at most --max-runs-per-dag of them) and sort them.
func (s *server) fetchRuns(q *runQuery) ([]*DagRun, int, error) {
	store := s.opts.Store
	if pq, ok := q.pageQuery(); ok {
		return store.RunPage(pq)
	}
	ids := q.dagIDs
	if ids == nil {
		rows, err := store.Dags()
		if err != nil {
			return nil, 0, err
		}
		for _, row := range rows {
			ids = append(ids, row.DagID)
		}
	}
	var matched []*DagRun
	for _, id := range ids {
		runs, err := store.RunsOfDag(id, "")
		if err != nil {
			return nil, 0, err
		}
		for _, run := range runs {
			if q.match(run) {
				matched = append(matched, run)
			}
		}
	}
	cmp := compareRuns(q.orderBy)
	if q.desc {
		slices.SortFunc(matched, func(a, b *DagRun) int { return cmp(b, a) })
	} else {
		slices.SortFunc(matched, cmp)
	}
	total := len(matched)
	if q.offset >= len(matched) {
		return nil, total, nil
	}
	matched = matched[q.offset:]
	if len(matched) > q.limit {
		matched = matched[:q.limit]
	}
	return matched, total, nil
}

// pageQuery is q as the store's RunPage reads it, when it can: by id (of
// one DAG or every DAG) or by logical date (of one DAG), filtered by
// nothing but known run states.
func (q *runQuery) pageQuery() (RunPageQuery, bool) {
	pq := RunPageQuery{Desc: q.desc, Offset: q.offset, Limit: q.limit, ByDate: q.orderBy == "execution_date"}
	switch {
	case q.dateFiltered():
		return pq, false
	case len(q.dagIDs) == 1:
		pq.DagID = q.dagIDs[0]
	case q.dagIDs != nil || pq.ByDate:
		return pq, false
	}
	if !pq.ByDate && q.orderBy != "id" {
		return pq, false
	}
	for _, name := range q.states {
		state := RunState(name)
		if runStateSlot(state) == len(runStates) {
			return pq, false // not a state the counts keep apart
		}
		pq.States = append(pq.States, state)
	}
	return pq, true
}

// dateFiltered reports whether q has a date filter.
func (q *runQuery) dateFiltered() bool {
	return q.executionGTE != nil || q.executionLTE != nil || q.startGTE != nil || q.startLTE != nil ||
		q.endGTE != nil || q.endLTE != nil || q.updatedGTE != nil || q.updatedLTE != nil
}

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
	runs, total, err := s.fetchRuns(q)
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
		sort.Strings(ids)
		q.dagIDs = slices.Compact(ids)
	}
	runs, total, err := s.fetchRuns(q)
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
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, v1NotFound("DAG not found", fmt.Sprintf("DAG with dag_id: '%s' not found", dagID))
	}
	if err != nil {
		return nil, err
	}
	if err := unknownFields(body, postRunFields); err != nil {
		return nil, err
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	// pre_load: logical_date, else execution_date, else now; both must agree.
	logical, hasLogical := body["logical_date"]
	execution, hasExecution := body["execution_date"]
	switch {
	case !hasLogical && !hasExecution:
		logical = strFormat(now)
	case !hasLogical:
		logical = execution
	case hasExecution && !jsonEqual(logical, execution):
		return nil, &problem{status: http.StatusBadRequest, title: "logical_date conflicts with execution_date",
			detail: fmt.Sprintf("%s != %s", pyRepr(logical), pyRepr(execution))}
	}
	dateText, _ := logical.(string)
	date, err := parseLogicalDate(dateText)
	if err != nil {
		return nil, &problem{status: http.StatusBadRequest, title: "Incorrect datetime argument", detail: "Unable to parse " + pyRepr(logical)}
	}
	runID := "manual__" + isoFormat(date)
	if raw, ok := body["dag_run_id"]; ok {
		s, isString := raw.(string)
		if !isString {
			return nil, v1BadRequest("{'dag_run_id': ['Field may not be null.']}")
		}
		runID = s
	}
	start, startGiven := body["data_interval_start"].(string)
	end, endGiven := body["data_interval_end"].(string)
	if startGiven != endGiven {
		return nil, v1BadRequest(`{'_schema': ["Both 'data_interval_start' and 'data_interval_end' must be specified together"]}`)
	}
	var interval *dataInterval
	if startGiven {
		a, _ := parseRFC3339(start)
		b, _ := parseRFC3339(end)
		interval = &dataInterval{a, b}
	}
	var conf json.RawMessage = json.RawMessage(`{}`)
	if c, ok := body["conf"].(map[string]any); ok && len(c) > 0 {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("encode conf: %w", err)
		}
		if conf, err = compactConf(raw); err != nil {
			return nil, v1BadRequest(err.Error())
		}
	}
	var note *string
	if n, ok := body["note"].(string); ok && n != "" {
		note = &n
	}
	created, err := s.opts.Store.TriggerRun(func(v storeView) (*newRun, error) {
		if byDate, err := v.RunAt(dagID, date); err == nil {
			return nil, v1Conflict("Conflict", fmt.Sprintf("DAGRun with DAG ID: '%s' and DAGRun logical date: '%s' already exists",
				dagID, strFormat(byDate.ExecutionDate)))
		} else if !errors.Is(err, errNotFound) {
			return nil, err
		}
		if _, err := v.Run(dagID, runID); err == nil {
			return nil, v1Conflict("Conflict", fmt.Sprintf("DAGRun with DAG ID: '%s' and DAGRun ID: '%s' already exists", dagID, runID))
		} else if !errors.Is(err, errNotFound) {
			return nil, err
		}
		if err := checkManualRunID(runID); err != nil {
			return nil, err
		}
		return &newRun{start: s.rules().newRun, dag: row.Def, runID: runID, date: date, conf: conf, now: now,
			unixname: s.opts.Unixname, external: true, note: note, interval: interval, event: event}, nil
	})
	if err != nil {
		return nil, err
	}
	if s.opts.Kick != nil {
		s.opts.Kick()
	}
	return v1RunOf(row.Def, created), nil
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
	run, err := s.opts.Store.RunByRunID(dagID, runID)
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
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	var stopped []tiKey
	err := s.withTasksStopped(func(k tiKey) bool { return slices.Contains(stopped, k) }, func() (err error) {
		stopped, err = s.opts.Store.ForceRunState(dagID, runID, RunState(state), now, s.rules().runStateDates)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.kick()
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
	if dryRun {
		refs := []any{}
		ids := []string{dagID}
		if row, err := s.opts.Store.DagByID(dagID); err == nil && row.Def != nil {
			ids = append(ids, row.Def.SubDAGIDs()...)
		}
		for _, id := range ids {
			r, err := s.opts.Store.RunByDate(id, run.ExecutionDate)
			if err != nil {
				continue
			}
			tis, err := s.opts.Store.TaskInstancesOfRun(id, r.RunID)
			if err != nil {
				return nil, err
			}
			for _, ti := range tis {
				refs = append(refs, map[string]any{"dag_id": ti.DagID, "dag_run_id": ti.RunID,
					"execution_date": isoFormat(ti.ExecutionDate), "task_id": ti.TaskID})
			}
		}
		return map[string]any{"task_instances": refs}, nil
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	var stopped []tiKey
	err = s.withTasksStopped(func(k tiKey) bool { return slices.Contains(stopped, k) }, func() (err error) {
		stopped, err = s.opts.Store.ClearRun(dagID, runID, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.kick()
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
	run, err := s.opts.Store.SetRunNote(dagID, runID, note, s.opts.Now().UTC().Truncate(time.Microsecond))
	if errors.Is(err, errNotFound) {
		return nil, v1RunNotFound(dagID, runID)
	}
	if err != nil {
		return nil, err
	}
	return s.v1Run(run), nil
}

// V1DeleteDagRun is DELETE /dags/{dag_id}/dagRuns/{dag_run_id}; tries of
// the run that are running stop with it.
func (s *server) V1DeleteDagRun(dagID, runID string) error {
	err := s.withTasksStopped(func(k tiKey) bool { return k.dagID == dagID && k.runID == runID }, func() error {
		return s.opts.Store.DeleteRun(dagID, runID)
	})
	if errors.Is(err, errNotFound) {
		return &problem{status: http.StatusNotFound, title: "Not Found",
			detail: fmt.Sprintf("DAGRun with DAG ID: '%s' and DagRun ID: '%s' not found", dagID, runID)}
	}
	return err
}

// V1UpstreamDatasetEvents is GET …/upstreamDatasetEvents: airlite has no
// datasets, so a run consumed none.
func (s *server) V1UpstreamDatasetEvents(dagID, runID string) (map[string]any, error) {
	if _, err := s.opts.Store.RunByRunID(dagID, runID); errors.Is(err, errNotFound) {
		return nil, v1RunNotFound(dagID, runID)
	} else if err != nil {
		return nil, err
	}
	return map[string]any{"dataset_events": []any{}, "total_entries": 0}, nil
}

// reservedRunTypes are the run types whose "{type}__" run ids a manual run
// may not take (Airflow 2.10.3 airflow/utils/types.py:78-95).
var reservedRunTypes = []string{"backfill", "scheduled", "dataset_triggered"}

// checkManualRunID refuses what create_dagrun refuses of a manual run's id,
// once the duplicates are ruled out: an id reserved for another run type
// (airflow/models/dag.py:3152-3164), then one matching neither run id
// pattern. The first is a ValueError the endpoint answers 400
// (airflow/api_connexion/endpoints/dag_run_endpoint.py:360-361); the
// second an AirflowException (airflow/models/dag.py:3175-3181) it does
// not catch: a crash 500.
func checkManualRunID(runID string) error {
	for _, runType := range reservedRunTypes {
		if strings.HasPrefix(runID, runType+"__") {
			return v1BadRequest(fmt.Sprintf("A manual DAG run cannot use ID %s since it is reserved for %s runs", pyRepr(runID), runType))
		}
	}
	if utf8.RuneCountInString(runID) > maxRunIDChars || (!allowedRunIDRe.MatchString(runID) && !builtinRunIDRe.MatchString(runID)) {
		return newAPIError(errCrash,
			"The provided run ID '%s' is invalid. It does not match either the configured pattern: '%s' or the built-in pattern: '%s'",
			runID, allowedRunIDPattern, builtinRunIDPattern)
	}
	return nil
}
