package main

// Airflow 3.2.1's DAG run routes (/api/v2/dags/{dag_id}/dagRuns...):
// airflow-core/src/airflow/api_fastapi/core_api/routes/public/dag_run.py
// over datamodels/dag_run.py, as 3.2.1's document shapes them. The
// handlers read the checked request, call one operation and render.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// v2DagRun is datamodels/dag_run.py DAGRunResponse, fields in its order
// (partition_key, which 3.2 added, last).
type v2DagRun struct {
	DagRunID               string          `json:"dag_run_id"`
	DagID                  string          `json:"dag_id"`
	LogicalDate            *v2When         `json:"logical_date"`
	QueuedAt               *v2When         `json:"queued_at"`
	StartDate              *v2When         `json:"start_date"`
	EndDate                *v2When         `json:"end_date"`
	Duration               *v2PyFloat      `json:"duration"`
	DataIntervalStart      *v2When         `json:"data_interval_start"`
	DataIntervalEnd        *v2When         `json:"data_interval_end"`
	RunAfter               v2When          `json:"run_after"`
	LastSchedulingDecision *v2When         `json:"last_scheduling_decision"`
	RunType                string          `json:"run_type"`
	State                  string          `json:"state"`
	TriggeredBy            *string         `json:"triggered_by"`
	TriggeringUserName     *string         `json:"triggering_user_name"`
	Conf                   json.RawMessage `json:"conf"`
	Note                   *string         `json:"note"`
	DagVersions            []any           `json:"dag_versions"`
	BundleVersion          *string         `json:"bundle_version"`
	DagDisplayName         string          `json:"dag_display_name"`
	PartitionKey           *string         `json:"partition_key"`
}

// v2DagRunCollection is DAGRunCollectionResponse.
type v2DagRunCollection struct {
	DagRuns      []v2DagRun `json:"dag_runs"`
	TotalEntries int        `json:"total_entries"`
}

// v2Run renders a run as DAGRunResponse validates a DagRun. A run's
// conf is a dict (DagRun.__init__: conf or {}); its DAG versions are the
// one it was created with (its task instances ran under it).
func (s *server) v2Run(run *DagRun) v2DagRun {
	return s.v2RunNamed(run, s.v2DagDisplayName(run.DagID))
}

// v2RunNamed is v2Run with the DAG's display name already at hand (a
// trigger read the DAG; a page reads each DAG once).
func (s *server) v2RunNamed(run *DagRun, displayName string) v2DagRun {
	vals := new(v2RunValues)
	out := v2DagRun{
		DagRunID: run.RunID, DagID: run.DagID, QueuedAt: vals.at(run.QueuedAt), StartDate: vals.at(run.StartDate),
		EndDate: vals.at(run.EndDate), Duration: v2PyFloatOf(runDuration(run)), RunAfter: v2When(run.After()),
		RunType: run.RunType, State: string(run.State), TriggeringUserName: run.TriggeringUser,
		Conf: json.RawMessage(`{}`), Note: run.Note, DagVersions: []any{}, DagDisplayName: displayName,
		PartitionKey: run.PartitionKey,
	}
	if ld, ok := run.LogicalDate(); ok {
		out.LogicalDate = vals.at(&ld)
	}
	if run.DataIntervalStart != nil {
		out.DataIntervalStart, out.DataIntervalEnd = vals.at(run.DataIntervalStart), vals.at(run.DataIntervalEnd)
	}
	if run.DagVersionID != "" {
		if list, ok := s.v2RunVersionList(run.DagVersionID, displayName); ok {
			out.DagVersions = list
		}
	}
	if run.TriggeredBy != "" {
		vals.by = run.TriggeredBy
		out.TriggeredBy = &vals.by
	}
	if len(run.Conf) > 0 && string(run.Conf) != "null" {
		out.Conf = run.Conf
	}
	return out
}

// v2RunValues holds the values a run's answer points at, made in one
// allocation: each of them was one.
type v2RunValues struct {
	times [6]v2When // logical, queued, start, end and the interval's two
	n     int
	by    string
}

// at is v2At, the date kept in vals.
func (vals *v2RunValues) at(t *time.Time) *v2When {
	if t == nil || t.IsZero() {
		return nil
	}
	w := &vals.times[vals.n]
	vals.n++
	*w = v2When(*t)
	return w
}

// v2RunVersionList is a run answer's dag_versions for the version id, a
// list of one (nil, false when the version is gone), kept once made for
// the display name: a version's row never changes (dagVersionByID), and
// the answers only read the list, so every run of a version shares it
// rather than making the list and its version's model each time.
func (s *server) v2RunVersionList(id, displayName string) ([]any, bool) {
	type entry struct {
		name string
		list []any
	}
	if e, ok := s.v2RunVersions.Load(id); ok && e.(*entry).name == displayName {
		return e.(*entry).list, true
	}
	v, err := s.dagVersionByID(id)
	if err != nil {
		return nil, false
	}
	list := []any{s.v2DagVersionNamed(v, displayName)}
	s.v2RunVersions.Store(id, &entry{name: displayName, list: list})
	return list, true
}

// dagVersionByID is the store's DagVersionByID, kept once read: a
// version's row never changes (a changed definition is a new version,
// under a new uuid7; a reset or a deleted DAG drops versions, whose ids
// then come back no more), and every run's answer names its version.
func (s *server) dagVersionByID(id string) (*DagVersion, error) {
	if v, ok := s.dagVersions.Load(id); ok {
		return v.(*DagVersion), nil
	}
	v, err := s.opts.Store.DagVersionByID(id)
	if err != nil {
		return nil, err
	}
	s.dagVersions.Store(id, v)
	return v, nil
}

// v2RunNotFound is the routes' missing run (dag_run.py: get_dag_run,
// delete_dag_run, patch_dag_run, clear_dag_run, ...).
func v2RunNotFound(dagID, runID string) error {
	return &v2Error{status: http.StatusNotFound,
		detail: fmt.Sprintf("The DagRun with dag_id: `%s` and run_id: `%s` was not found", dagID, runID)}
}

// v2RunPhrases words the run operations' faults as dag_run.py does.
var v2RunPhrases = phrasebook{
	faultRunNotFound: func(e *opError) error { return v2RunNotFound(e.value("dag_id"), e.value("run_id")) },
	faultRunNotDeletable: func(e *opError) error {
		return &v2Error{status: http.StatusConflict, detail: fmt.Sprintf(
			"The DagRun with dag_id: `%s` and run_id: `%s` cannot be deleted in %s state", e.value("dag_id"), e.value("run_id"), e.value("state"))}
	},
}

// v2TriggerPhrases is trigger_dag_run's wording.
var v2TriggerPhrases = phrasebook{
	faultDagNotFound:  v2TriggerDagMissing,
	faultDagNotLoaded: v2TriggerDagMissing,
	// has_import_errors on a DAG that is not stale (dag_run.py:460-464);
	// the DAG folder never leaves a DAG so: a failing file makes it
	// stale too (dag_processing/collection.py _update_import_errors).
	faultDagImportErrors: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf(
			"DAG with dag_id: '%s' has import errors and cannot be triggered", e.value("dag_id"))}
	},
	faultRunExists: func(*opError) error { return v2UniqueViolation() },
	// validate's ValueError("Invalid input for param ...: ..."), which
	// trigger_dag_run answers with a 400 and its text (dag_run.py:501-502).
	faultParamInvalid: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: e.value("message")}
	},
	// DagRun.validate_run_id's ValueError, a 400 with its text
	// (airflow-core/src/airflow/models/dagrun.py RUN_ID_REGEX; [scheduler]
	// allowed_run_id_pattern's default).
	faultRunIDInvalid: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf(
			"The run_id provided '%s' does not match regex pattern '%s' or '%s'", e.value("run_id"), allowedRunIDPattern, v2RunIDRegex)}
	},
	// allowed_run_types without manual (c57fba0e routes/public/dag_run.py:466-470).
	faultRunTypeNotAllowed: func(e *opError) error {
		return &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf("Dag with dag_id: '%s' does not allow manual runs", e.value("dag_id"))}
	},
}

// v2RunIDRegex is Airflow 3's RUN_ID_REGEX (models/dagrun.py).
const v2RunIDRegex = `^(?:manual|scheduled|asset_triggered)__(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00)$`

func v2TriggerDagMissing(e *opError) error {
	return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("DAG with dag_id: '%s' not found", e.value("dag_id"))}
}

// v2TriggerBody is TriggerDAGRunPostBody (3.2.1's document): logical_date
// has no default, so it is required, but may be null.
var v2TriggerBody = &v2Model{name: "TriggerDAGRunPostBody", fields: []v2Field{
	{name: "dag_run_id", typ: v2TStr, nullable: true},
	{name: "data_interval_start", typ: v2TAware, nullable: true},
	{name: "data_interval_end", typ: v2TAware, nullable: true},
	{name: "logical_date", typ: v2TAware, nullable: true, required: true},
	{name: "run_after", typ: v2TTime, nullable: true},
	{name: "conf", typ: v2TDictAsSent, nullable: true}, // read by v2CreateRun with v2BodyField
	{name: "note", typ: v2TStr, nullable: true},
	{name: "partition_key", typ: v2TStr, nullable: true},
}}

// v2TriggerIntervalsMsg is check_data_intervals' ValueError.
const v2TriggerIntervalsMsg = "Value error, Either both data_interval_start and data_interval_end must be provided or both must be None"

// v2TriggerDagRun is trigger_dag_run: the body as TriggerDAGRunPostBody
// checks it, then DAG.create_dagrun of a manual run, queued, triggered by
// the UI when the request has a Referer header, else by the REST API
// (routes/public/dag_run.py:472-476 of the 3.2.0-era main,
// Phinhas214/airflow c57fba0e; apache/airflow#54650).
func (s *server) v2TriggerDagRun(req *apiRequest) (any, error) {
	by := "rest_api"
	if req.referer != "" {
		by = "ui"
	}
	return s.v2CreateRun(req, req.param("dag_id"), "", by, v2TriggerPhrases)
}

// v2CreateRun creates a run of dagID of runType ("": manual), triggered
// by triggeredBy, from a TriggerDAGRunPostBody or a MaterializeAssetBody;
// phrases words the faults as the route does.
func (s *server) v2CreateRun(req *apiRequest, dagID, runType, triggeredBy string, phrases phrasebook) (any, error) {
	b := req.body
	start, hasStart := b["data_interval_start"].(time.Time)
	end, hasEnd := b["data_interval_end"].(time.Time)
	if hasStart != hasEnd {
		return nil, v2Invalid([]v2Issue{{Type: "value_error", Loc: []any{"body"}, Msg: v2TriggerIntervalsMsg,
			Input: v2Input(req.ordered), Ctx: map[string]any{"error": map[string]any{}}}})
	}
	tr := triggerRequest{dagID: dagID, runType: runType, dateUnit: time.Microsecond, triggeredBy: triggeredBy,
		checks: triggerChecks{runIDPattern: true, importErrors: true}}
	// Each value whose address the request keeps is copied inside its
	// branch: a variable of an if statement's header whose address is
	// taken is allocated whenever the header runs, present or not.
	if v, ok := b["logical_date"].(time.Time); ok {
		date := v
		tr.date = &date
	} else {
		tr.noDate = true
	}
	if v, ok := b["run_after"].(time.Time); ok {
		after := v
		tr.runAfter = &after
	}
	if hasStart {
		tr.interval = &dataInterval{start, end}
	}
	if id, ok := b["dag_run_id"].(string); ok && id != "" {
		tr.runID = id
	}
	if v, ok := b["note"].(string); ok && v != "" {
		note := v
		tr.note = &note
	}
	if v, ok := b["partition_key"].(string); ok {
		key := v
		tr.partitionKey = &key
	}
	if req.caller.user != "" {
		tr.user = sharedNames.of(req.caller.user)
	}
	tr.conf = json.RawMessage(`{}`)
	if conf, err := v2BodyField(req, "conf"); err != nil {
		return nil, err
	} else if conf != nil && string(conf) != "null" {
		tr.conf = conf
	}
	tr.event = req.event // trigger_dag_run's action row, in the run's write
	got, err := s.ops.trigger(tr)
	if err != nil {
		return nil, phrases.phrase(err)
	}
	req.event = nil // stored with the run
	out := s.v2RunNamed(got.run, dagDisplayName(got.dag))
	if r, err := renderV2Run(&out); err == nil {
		return r, nil
	}
	return out, nil // writeV2JSON answers what encoding/json makes of it
}

// v2BodyField is a field of the body as the client wrote it, in its
// keys' order (Python keeps a dict's order): compact JSON; nil when the
// body does not have it.
func v2BodyField(req *apiRequest, name string) (json.RawMessage, error) {
	dict, ok := req.ordered.(pyDict)
	if !ok {
		return nil, nil
	}
	for i := len(dict) - 1; i >= 0; i-- { // json.loads keeps a repeated key's last value
		if dict[i].key == name {
			b, err := appendV2InputJSON(nil, dict[i].val)
			if err != nil {
				return nil, fmt.Errorf("encode %s: %w", name, err)
			}
			return b, nil
		}
	}
	return nil, nil
}

// v2GetDagRun is get_dag_run.
func (s *server) v2GetDagRun(req *apiRequest) (any, error) {
	run, err := s.ops.runByID(req.param("dag_id"), req.param("dag_run_id"))
	if err != nil {
		return nil, v2RunPhrases.phrase(err)
	}
	return s.v2Run(run), nil
}

// v2DeleteDagRun is delete_dag_run: only a run in a state a PATCH can
// set (DAGRunPatchStates: queued, success, failed) goes; a running one is
// a 409 (routes/public/dag_run.py:136-152 of the 3.2.0-era main,
// Phinhas214/airflow c57fba0e; apache/airflow#60195, before 3.2's branch).
func (s *server) v2DeleteDagRun(req *apiRequest) error {
	deletable := func(st RunState) bool { return st == RunQueued || st == RunSuccess || st == RunFailed }
	return v2RunPhrases.phrase(s.ops.deleteRunIn(req.param("dag_id"), req.param("dag_run_id"), deletable))
}

// v2RunListParams are get_dag_runs' query parameters (3.2.1's document).
var v2RunListParams = func() []v1Param {
	ps := []v1Param{qV2Limit, qV2Offset}
	for _, f := range []string{"run_after", "logical_date", "start_date", "end_date"} {
		ps = append(ps, qV2DateRange(f)...)
	}
	ps = append(ps, v2NumRange("duration")...)
	ps = append(ps, qV2DateRange("updated_at")...)
	return append(ps, qV2Str("conf_contains"), qV2Strs("run_type"), qV2Strs("state"), qV2Ints("dag_version"),
		qV2Str("bundle_version"), qV2OrderBy, qV2Str("run_id_pattern"), qV2Str("triggering_user_name_pattern"),
		qV2Str("dag_id_pattern"), qV2Str("partition_key_pattern"))
}()

// v2NumRange is a number's four range parameters.
func v2NumRange(field string) []v1Param {
	out := make([]v1Param, 0, 4)
	for _, op := range []string{"_gte", "_gt", "_lte", "_lt"} {
		out = append(out, v1Param{name: field + op, kind: paramNumber})
	}
	return out
}

// v2RunOrder is get_dag_runs' SortParam: its attributes, dag_run_id
// standing for run_id.
var v2RunOrder = []string{"id", "state", "dag_id", "run_id", "logical_date", "run_after", "start_date", "end_date",
	"updated_at", "conf", "duration"}

// v2RunBatchOrder is get_list_dag_runs_batch's SortParam: get_dag_runs'
// attributes but duration (routes/public/dag_run.py of the 3.2.0-era
// main, Phinhas214/airflow c57fba0e).
var v2RunBatchOrder = []string{"id", "state", "dag_id", "run_after", "logical_date", "run_id", "start_date", "end_date",
	"updated_at", "conf"}

// v2GetDagRuns is get_dag_runs; dag_id "~" is every DAG.
func (s *server) v2GetDagRuns(req *apiRequest) (any, error) {
	q := req.query
	dagID := req.param("dag_id")
	asked := q.list("state")
	known, err := v2RunStates(asked)
	if err != nil {
		return nil, err
	}
	var states []string
	for _, st := range known {
		states = append(states, string(st))
	}
	if len(asked) > 0 && len(states) == 0 {
		states = []string{"none"} // NULL: no run has no state
	}
	types, err := v2RunTypes(s.rules(), q.list("run_type"))
	if err != nil {
		return nil, err
	}
	keys, err := v2OrderBy(q, "id", v2RunOrder, map[string]string{"dag_run_id": "run_id"})
	if err != nil {
		return nil, err
	}
	rq := &runQuery{states: states, more: v2RunFiltersOf(q), order: v2RunOrderKeys(keys)}
	rq.more.runTypes = types
	// datetime_range_filter_factory compares start_date and end_date as
	// COALESCE(date, now()) (common/parameters.py; 3.2.1 still did).
	now := s.ops.clock()
	rq.more.openDatesAt = &now
	p := v2Page(q)
	rq.offset, rq.limit = p.offset, p.limit
	if rq.more.empty() {
		rq.more = nil
	}
	if dagID != "~" {
		if _, err := s.ops.dagDefinition(dagID); err != nil {
			if errors.Is(err, errNotFound) {
				return nil, v2Detail404(v2DagNotFound, dagID) // get_latest_version_of_dag
			}
			return nil, err
		}
		rq.dagIDs = []string{dagID}
	}
	return s.v2RunPage(rq)
}

// v2RunPage lists the page of runs rq asks for.
func (s *server) v2RunPage(rq *runQuery) (any, error) {
	runs, total, err := s.ops.listRuns(rq)
	if err != nil {
		return nil, err
	}
	out := v2DagRunCollection{DagRuns: make([]v2DagRun, 0, len(runs)), TotalEntries: total}
	names := map[string]string{}
	for _, run := range runs {
		name, ok := names[run.DagID]
		if !ok {
			name = s.v2DagDisplayName(run.DagID)
			names[run.DagID] = name
		}
		out.DagRuns = append(out.DagRuns, s.v2RunNamed(run, name))
	}
	return out, nil
}

// v2RunOrderKeys is SortParam's keys as the operations order runs.
func v2RunOrderKeys(keys []v2SortKey) []runOrderKey {
	out := make([]runOrderKey, len(keys))
	for i, k := range keys {
		out[i] = runOrderKey{attr: k.attr, desc: k.desc}
	}
	return out
}

// v2RunListTransforms runs get_dag_runs' run_type and state transforms
// (common/parameters.py _transform_dag_run_types, _transform_dag_run_states)
// as the dependencies they are: FastAPI calls each dependency whose own
// parameters validated, in the signature's order (run_type before state),
// and the first HTTPException answers before the query's validation
// errors are reported (fastapi/dependencies/utils.py solve_dependencies).
// So limit= with state= is the state's 422, not limit's int_parsing.
func (s *server) v2RunListTransforms(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q := pyQuery(r.URL.RawQuery)
	if _, err := v2RunTypes(s.rules(), q["run_type"]); err != nil {
		return err
	}
	_, err := v2RunStates(q["state"])
	return err
}

// v2RunTypes is _transform_dag_run_types.
func v2RunTypes(rules *editionRules, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	for _, n := range names {
		if n != "none" && !slices.Contains(rules.runTypes, n) {
			return nil, &v2Error{status: http.StatusUnprocessableEntity,
				detail: "Invalid value for run type. Valid values are " + strings.Join(rules.runTypes, ", ")}
		}
	}
	return names, nil
}

// v2RunFiltersOf reads get_dag_runs' filters.
func v2RunFiltersOf(q v1Values) *runFilters {
	rangeOf := func(field string) timeRange {
		return timeRange{gte: q.v2Time(field + "_gte"), gt: q.v2Time(field + "_gt"), lte: q.v2Time(field + "_lte"), lt: q.v2Time(field + "_lt")}
	}
	num := func(name string) *float64 { return v2RangeBound(q.number(name)) }
	f := &runFilters{
		runAfter: rangeOf("run_after"), logical: rangeOf("logical_date"), start: rangeOf("start_date"),
		end: rangeOf("end_date"), updated: rangeOf("updated_at"),
		duration: floatRange{gte: num("duration_gte"), gt: num("duration_gt"), lte: num("duration_lte"), lt: num("duration_lt")},
		runID:    q.v2Pattern("run_id_pattern"), user: q.v2Pattern("triggering_user_name_pattern"),
		dagID: q.v2Pattern("dag_id_pattern"), partition: q.v2Pattern("partition_key_pattern"),
	}
	if c, ok := q.str("conf_contains"); ok {
		f.confContains = &c
	}
	if v, ok := q.str("bundle_version"); ok {
		f.bundleVersion = &v
	}
	if vals := q.list("dag_version"); len(vals) > 0 {
		f.versions = []int64{}
		for _, v := range vals {
			n, _, _ := v2ParseIntString(v, nil)
			f.versions = append(f.versions, n)
		}
	}
	return f
}

// empty reports whether f filters nothing.
func (f *runFilters) empty() bool {
	return !f.runAfter.active() && !f.logical.active() && !f.start.active() && !f.end.active() && !f.updated.active() &&
		f.duration == (floatRange{}) && f.runTypes == nil && f.confContains == nil && f.runID == nil &&
		f.user == nil && f.dagID == nil && f.partition == nil && f.versions == nil && f.bundleVersion == nil
}

// v2RunsBatchBody is DAGRunsBatchBody (3.2.1's document).
var v2RunsBatchBody = func() *v2Model {
	zero := int64(0)
	nn := v2Type{kind: v2Int, ge: &zero}
	fields := []v2Field{
		{name: "order_by", typ: v2TStr, nullable: true},
		{name: "page_offset", typ: nn},
		{name: "page_limit", typ: nn},
		{name: "dag_ids", typ: v2TStrs, nullable: true},
		{name: "states", typ: v2TListOf(v2Type{kind: v2Custom, check: v2NullableRunState}), nullable: true},
	}
	for _, f := range []string{"run_after", "logical_date", "start_date", "end_date"} {
		for _, op := range []string{"_gte", "_gt", "_lte", "_lt"} {
			fields = append(fields, v2Field{name: f + op, typ: v2TAware, nullable: true})
		}
	}
	for _, op := range []string{"_gte", "_gt", "_lte", "_lt"} {
		fields = append(fields, v2Field{name: "duration" + op, typ: v2TFloat, nullable: true})
	}
	fields = append(fields, v2Field{name: "conf_contains", typ: v2TStr, nullable: true})
	return &v2Model{name: "DAGRunsBatchBody", fields: fields}
}()

// v2NullableRunState is a DagRunState | None item of states.
func v2NullableRunState(v any, loc []any) (any, []v2Issue) {
	if v == nil {
		return nil, nil
	}
	return v2TEnum("queued", "running", "success", "failed").validate(v, loc)
}

// v2GetDagRunsBatch is get_list_dag_runs_batch: the body's filters over
// every DAG (dag_ids: some), ordered by order_by (one attribute); dag_id
// is "~" (Literal["~"], checked with the path).
func (s *server) v2GetDagRunsBatch(req *apiRequest) (any, error) {
	b := req.body
	at := func(name string) *time.Time {
		if t, ok := b[name].(time.Time); ok {
			return &t
		}
		return nil
	}
	num := func(name string) *float64 { return v2RangeBound(bodyFloat(b, name)) }
	rangeOf := func(field string) timeRange {
		return timeRange{gte: at(field + "_gte"), gt: at(field + "_gt"), lte: at(field + "_lte"), lt: at(field + "_lt")}
	}
	more := &runFilters{runAfter: rangeOf("run_after"), logical: rangeOf("logical_date"), start: rangeOf("start_date"),
		end: rangeOf("end_date"), duration: floatRange{gte: num("duration_gte"), gt: num("duration_gt"), lte: num("duration_lte"), lt: num("duration_lt")}}
	if c, ok := b["conf_contains"].(string); ok {
		more.confContains = &c
	}
	rq := &runQuery{offset: 0, limit: 100, more: more}
	if n, ok := b["page_offset"].(int64); ok {
		rq.offset = int(n)
	}
	if n, ok := b["page_limit"].(int64); ok {
		rq.limit = int(n)
	}
	// An empty list filters nothing: FilterParam.to_orm skips an empty
	// list or string (c57fba0e common/parameters.py:396-397), so
	// {"dag_ids": []} lists every DAG's runs (test_dag_run.py:826-838).
	if ids, ok := b["dag_ids"].([]any); ok && len(ids) > 0 {
		rq.dagIDs = []string{}
		for _, id := range ids {
			rq.dagIDs = append(rq.dagIDs, id.(string))
		}
		rq.dagIDs = inList(rq.dagIDs) // dag_id IN (...)
	}
	if states, ok := b["states"].([]any); ok && len(states) > 0 {
		for _, st := range states {
			if name, ok := st.(string); ok {
				rq.states = append(rq.states, name)
			} else {
				rq.states = append(rq.states, "none")
			}
		}
	}
	order := url1(b["order_by"])
	keys, err := v2OrderBy(v1Values{"order_by": order}, "id", v2RunBatchOrder, map[string]string{"dag_run_id": "run_id"})
	if err != nil {
		return nil, err
	}
	rq.order = v2RunOrderKeys(keys)
	if more.empty() {
		rq.more = nil
	}
	return s.v2RunPage(rq)
}

// url1 is an optional string body field as a one-value query list.
func url1(v any) []string {
	if s, ok := v.(string); ok && s != "" {
		return []string{s}
	}
	return nil
}

// v2RunPatchBody is DAGRunPatchBody.
var v2RunPatchBody = func() *v2Model {
	return &v2Model{name: "DAGRunPatchBody", fields: []v2Field{
		{name: "state", typ: v2TEnum("queued", "success", "failed"), nullable: true},
		{name: "note", typ: v2Type{kind: v2Custom, check: v2NoteCheck}, nullable: true},
	}}
}()

// v2NoteCheck is note: str | None = Field(None, max_length=1000).
func v2NoteCheck(v any, loc []any) (any, []v2Issue) {
	kept, issues := v2TStr.validate(v, loc)
	if issues != nil {
		return nil, issues
	}
	if s := kept.(string); len([]rune(s)) > 1000 {
		return nil, []v2Issue{{Type: "string_too_long", Loc: loc, Msg: "String should have at most 1000 characters",
			Input: s, Ctx: map[string]any{"max_length": 1000}}}
	}
	return kept, nil
}

// v2PatchDagRun is patch_dag_run: the fields the body sets (those of
// update_mask among them, when it is given), state through
// set_dag_run_state_to_* and the note.
func (s *server) v2PatchDagRun(req *apiRequest) (any, error) {
	dagID, runID := req.param("dag_id"), req.param("dag_run_id")
	if _, err := s.ops.runByID(dagID, runID); err != nil {
		return nil, v2RunPhrases.phrase(err)
	}
	if _, err := s.ops.dagDefinition(dagID); err != nil {
		if errors.Is(err, errNotFound) { // get_dag_for_run (common/dagbag.py:63-67)
			return nil, v2Detail404(v2DagNotFound, dagID)
		}
		return nil, err
	}
	mask := req.query.list("update_mask")
	for _, field := range []string{"state", "note"} {
		val, set := req.body[field]
		if !set || (len(mask) > 0 && !slices.Contains(mask, field)) {
			continue
		}
		switch field {
		case "state":
			if state, ok := val.(string); ok {
				if err := s.ops.setRunState(dagID, runID, RunState(state)); err != nil {
					return nil, v2RunPhrases.phrase(err)
				}
			}
		case "note":
			var note *string
			if text, ok := val.(string); ok {
				note = &text
			}
			if _, err := s.ops.setRunNote(dagID, runID, note); err != nil {
				return nil, v2RunPhrases.phrase(err)
			}
		}
	}
	return s.v2GetDagRun(req)
}

// v2RunClearBody is DAGRunClearBody.
var v2RunClearBody = &v2Model{name: "DAGRunClearBody", fields: []v2Field{
	{name: "dry_run", typ: v2TBool},
	{name: "only_failed", typ: v2TBool},
	{name: "run_on_latest_version", typ: v2TBool},
}}

// v2ClearDagRun is clear_dag_run: with dry_run (the default) the task
// instances DAG.clear would clear, else the run as clearing left it.
func (s *server) v2ClearDagRun(req *apiRequest) (any, error) {
	dagID, runID := req.param("dag_id"), req.param("dag_run_id")
	run, err := s.ops.runByID(dagID, runID)
	if err != nil {
		return nil, v2RunPhrases.phrase(err)
	}
	dryRun := true
	if v, ok := req.body["dry_run"].(bool); ok {
		dryRun = v
	}
	onlyFailed, _ := req.body["only_failed"].(bool)
	// A DAG the bag does not have is the route's own 404, dry run or not
	// (routes/public/dag_run.py:294-313 of the 3.2.0-era main,
	// Phinhas214/airflow c57fba0e).
	if _, err := s.ops.dagDefinition(dagID); err != nil {
		if errors.Is(err, errNotFound) {
			return nil, &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("Dag with id %s was not found", dagID)}
		}
		return nil, err
	}
	tis, err := s.ops.clearRunTasks(run, onlyFailed, dryRun)
	if err != nil {
		return nil, v2RunPhrases.phrase(err)
	}
	if dryRun {
		return s.v2ClearedTIs(run, tis), nil
	}
	return s.v2GetDagRun(req)
}

// v2ClearedTIs renders the task instances a clear would clear, as the
// task-instance routes render them (TaskInstanceCollectionResponse).
func (s *server) v2ClearedTIs(run *DagRun, tis []*TaskInstance) v2TICollection {
	out := v2TICollection{TaskInstances: make([]v2TaskInstance, 0, len(tis)), TotalEntries: len(tis)}
	for _, ti := range tis {
		out.TaskInstances = append(out.TaskInstances, s.v2TI(run, ti))
	}
	return out
}

// v2UpstreamAssetEvents is get_upstream_asset_events: the asset events a
// run consumed (scheduler_assets.go), none for a run no asset triggered.
func (s *server) v2UpstreamAssetEvents(req *apiRequest) (any, error) {
	run, err := s.ops.runByID(req.param("dag_id"), req.param("dag_run_id"))
	if err != nil {
		return nil, v2RunPhrases.phrase(err)
	}
	events, err := s.ops.consumedAssetEvents(run)
	if err != nil {
		return nil, err
	}
	rows, err := s.v2AssetEvents(events)
	if err != nil {
		return nil, err
	}
	return v2AssetEventCollection{AssetEvents: rows, TotalEntries: len(events)}, nil
}

// v2WaitDagRun is wait_dag_run_until_finished (DagRunWaiter in
// services/public/dag_run.py): a line with the run's state at once, then
// one every interval seconds until the run has finished; the last line
// carries the return values of the tasks named by result, when some
// are. Each line is json.dumps of {"state": ..., "results": ...}.
func (s *server) v2WaitDagRun(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	d := s.dialV2
	interval := req.query.number("interval")
	if interval != nil && *interval <= 0 {
		raw, _ := req.query.str("interval")
		d.answerError(s, w, r, v2Invalid([]v2Issue{{Type: "greater_than", Loc: []any{"query", "interval"},
			Msg: "Input should be greater than 0", Input: raw, Ctx: json.RawMessage(`{"gt":0.0}`)}}))
		return
	}
	dagID, runID := req.param("dag_id"), req.param("dag_run_id")
	run, err := s.ops.runByID(dagID, runID)
	if err != nil {
		d.answerError(s, w, r, v2RunPhrases.phrase(err))
		return
	}
	results := req.query.list("result")
	// One JSON document per line (the document's application/x-ndjson),
	// sent untyped: dag_run.py's StreamingResponse has no media_type, so
	// Starlette writes no Content-Type; a nil entry keeps net/http from
	// sniffing one.
	w.Header()["Content-Type"] = nil
	w.WriteHeader(http.StatusOK)
	// Flushed through the wrappers (the access log's status recorder is
	// no http.Flusher, and unwraps to the connection's writer).
	flusher := http.NewResponseController(w)
	every := time.Duration(*interval * float64(time.Second))
	for {
		line, err := s.v2WaitLine(run, results)
		if err != nil {
			s.opts.Logger.Error().Err(err).Str("run", dagID+"/"+runID).Msg("wait for run")
			return
		}
		if _, err := w.Write(line); err != nil {
			return
		}
		_ = flusher.Flush() // a writer that cannot flush sends the line with the rest
		if run.State.Finished() {
			return
		}
		timer := time.NewTimer(every)
		select {
		case <-r.Context().Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		if run, err = s.ops.runByID(dagID, runID); err != nil {
			return // deleted while waited for: Airflow's stream ends with an error
		}
	}
}

// v2WaitLine is one line of the wait stream.
func (s *server) v2WaitLine(run *DagRun, results []string) ([]byte, error) {
	doc := pyDict{{"state", string(run.State)}}
	if run.State.Finished() && len(results) > 0 {
		vals, err := s.ops.runResults(run, results)
		if err != nil {
			return nil, err
		}
		fields := make(pyDict, 0, len(vals))
		// Each value is the entry's value as Airflow's column holds it
		// (entry.value, c57fba0e services/public/dag_run.py:66-70), as
		// the native XCom answer gives it (v2XComNative): a task's
		// return value itself, the public API's json.dumps text of one
		// (test_dag_run.py:2075-2081 sets "result_1" with XComModel.set,
		// which stores that text, and reads "\"result_1\""). A mapped
		// task's values are a list by map_index, an unmapped one's is
		// alone.
		for _, v := range vals {
			values := make([]any, len(v.values))
			for i, e := range v.values {
				value, err := v2XComColumn(e.Value)
				if err != nil {
					return nil, fmt.Errorf("return value of %s: %w", v.taskID, err)
				}
				values[i] = value
			}
			if len(values) == 1 && v.values[0].MapIndex < 0 {
				fields = append(fields, pyField{v.taskID, values[0]})
			} else {
				fields = append(fields, pyField{v.taskID, values})
			}
		}
		doc = append(doc, pyField{"results", fields})
	}
	b, err := spacedJSON.marshal(doc)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
