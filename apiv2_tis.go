package main

// Airflow 3's task instances in /api/v2 (issue #21): airflow-core/src/
// airflow/api_fastapi/core_api/routes/public/task_instances.py, its models
// datamodels/task_instances.py and services/public/task_instances.py, as
// Airflow 3.2.1's document shapes them. The handlers read the request and
// call the operations (ops_tis.go, ops_cleartargets.go, ops_deps.go).
// A task instance is (dag_id, run_id, task_id, map_index): -1, or 0..n-1
// for a mapped task's expanded instances. airlite's have no executor or
// trigger (null).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Airflow 3.2.1's texts for the task-instance routes.
const (
	// task_instances.py get_task_instance, get_mapped_task_instance.
	v2TINotFound       = "The Task Instance with dag_id: `%s`, run_id: `%s` and task_id: `%s` was not found"
	v2MappedTINotFound = "The Mapped Task Instance with dag_id: `%s`, run_id: `%s`, task_id: `%s`, and map_index: `%d` was not found"
	// get_task_instance_tries, delete_task_instance, _patch_ti_validate_request.
	v2TIMapNotFound = "The Task Instance with dag_id: `%s`, run_id: `%s`, task_id: `%s` and map_index: `%s` was not found"
	// get_task_instance_try_details.
	v2TITryNotFound = "The Task Instance with dag_id: `%s`, run_id: `%s`, task_id: `%s`, try_number: `%d` and map_index: `%d` was not found"
	// get_task_instances (3.2.0).
	v2RunOfDagNotFound = "DagRun with dag_id: `%s` and run_id: `%s` was not found"
	v2RunNeedsDag      = "dag_id is required when dag_run_id is specified"
	// common/dagbag.py get_latest_version_of_dag and friends.
	v2DagNotFound = "The Dag with ID: `%s` was not found"
	// services/public/task_instances.py _patch_ti_validate_request and
	// _patch_task_instance_state. "in DAG", not "in Dag": line 63 of the
	// 3.2.0-era main (Phinhas214/airflow c57fba0e, 2026-03-20) and every
	// later stored version have it so, and v3-2-test's service was still
	// that file when 3.2.1 shipped (apache/airflow#65874, 2026-04-26).
	v2PatchTaskNotFound = "Task '%s' not found in DAG '%s'"
	v2PatchAlreadyIn    = "Task id %s is already in %s state"
	// get_mapped_task_instances.
	v2TaskIDNotFound = "Task id %s not found"
	v2TaskNotMapped  = "Task id %s is not mapped"
	// task_instances.py get_task_instance, for an expanded mapped task.
	v2TIIsMapped = "Task instance is mapped, add the map_index value to the URL"
	// post_clear_task_instances.
	v2ClearRunNotFound = "Dag Run id %s not found in dag %s"
	v2ClearNoLogical   = "Cannot use include_past or include_future with no logical_date(e.g. manually or asset-triggered)."
	// models/taskinstance.py clear_task_instances: the
	// AirflowClearRunningTaskException's str(), answered as a 409.
	v2ClearRunning = "AirflowClearRunningTaskException: Disable 'prevent_running_task' to proceed, or wait until the task is not running, queued, or scheduled state."
)

// v2TIStates are TaskInstanceState's values in their order
// (airflow/utils/state.py), which the state filter's 422 lists.
var v2TIStates = []string{"removed", "scheduled", "queued", "running", "success", "restarting", "failed",
	"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "deferred"}

// v2PyFloatOf is a nullable float field (v2PyFloat, apiv2_tasks.go).
func v2PyFloatOf(f *float64) *v2PyFloat {
	if f == nil {
		return nil
	}
	v := v2PyFloat(*f)
	return &v
}

// v2TaskInstance is datamodels/task_instances.py TaskInstanceResponse,
// fields in its order.
type v2TaskInstance struct {
	ID               string         `json:"id"`
	TaskID           string         `json:"task_id"`
	DagID            string         `json:"dag_id"`
	DagRunID         string         `json:"dag_run_id"`
	MapIndex         int            `json:"map_index"`
	LogicalDate      *v2When        `json:"logical_date"`
	RunAfter         v2When         `json:"run_after"`
	StartDate        *v2When        `json:"start_date"`
	EndDate          *v2When        `json:"end_date"`
	Duration         *v2PyFloat     `json:"duration"`
	State            *string        `json:"state"`
	TryNumber        int            `json:"try_number"`
	MaxTries         int            `json:"max_tries"`
	TaskDisplayName  string         `json:"task_display_name"`
	DagDisplayName   string         `json:"dag_display_name"`
	Hostname         string         `json:"hostname"`
	Unixname         string         `json:"unixname"`
	Pool             string         `json:"pool"`
	PoolSlots        int            `json:"pool_slots"`
	Queue            string         `json:"queue"`
	PriorityWeight   int            `json:"priority_weight"`
	Operator         *string        `json:"operator"`
	OperatorName     *string        `json:"operator_name"`
	QueuedWhen       *v2When        `json:"queued_when"`
	ScheduledWhen    *v2When        `json:"scheduled_when"`
	PID              *int           `json:"pid"`
	Executor         *string        `json:"executor"`
	ExecutorConfig   string         `json:"executor_config"`
	Note             *string        `json:"note"`
	RenderedMapIndex *string        `json:"rendered_map_index"`
	RenderedFields   map[string]any `json:"rendered_fields"`
	Trigger          any            `json:"trigger"`
	TriggererJob     any            `json:"triggerer_job"`
	DagVersion       any            `json:"dag_version"`
}

// v2TaskInstanceTry is datamodels/task_instance_history.py
// TaskInstanceHistoryResponse.
type v2TaskInstanceTry struct {
	TaskID          string     `json:"task_id"`
	DagID           string     `json:"dag_id"`
	DagRunID        string     `json:"dag_run_id"`
	MapIndex        int        `json:"map_index"`
	StartDate       *v2When    `json:"start_date"`
	EndDate         *v2When    `json:"end_date"`
	Duration        *v2PyFloat `json:"duration"`
	State           *string    `json:"state"`
	TryNumber       int        `json:"try_number"`
	MaxTries        int        `json:"max_tries"`
	TaskDisplayName string     `json:"task_display_name"`
	DagDisplayName  string     `json:"dag_display_name"`
	Hostname        string     `json:"hostname"`
	Unixname        string     `json:"unixname"`
	Pool            string     `json:"pool"`
	PoolSlots       int        `json:"pool_slots"`
	Queue           string     `json:"queue"`
	PriorityWeight  int        `json:"priority_weight"`
	Operator        *string    `json:"operator"`
	OperatorName    *string    `json:"operator_name"`
	QueuedWhen      *v2When    `json:"queued_when"`
	ScheduledWhen   *v2When    `json:"scheduled_when"`
	PID             *int       `json:"pid"`
	Executor        *string    `json:"executor"`
	ExecutorConfig  string     `json:"executor_config"`
	DagVersion      any        `json:"dag_version"`
}

type v2TICollection struct {
	TaskInstances []v2TaskInstance `json:"task_instances"`
	TotalEntries  int              `json:"total_entries"`
}

type v2TITryCollection struct {
	TaskInstances []v2TaskInstanceTry `json:"task_instances"`
	TotalEntries  int                 `json:"total_entries"`
}

type v2TIDependency struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type v2TIDependencies struct {
	Dependencies []v2TIDependency `json:"dependencies"`
}

func v2StateOf(s TaskState) *string {
	if s == TaskNone {
		return nil
	}
	v := string(s)
	return &v
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// v2OperatorName is operator_name: the name the task's class shows
// (custom_operator_name, "@task" for decorated ones), else its class.
func (s *server) v2OperatorName(dagID, taskID, operator string) *string {
	if t := s.ops.loadedTask(dagID, taskID); t != nil && t.OperatorName != "" {
		return &t.OperatorName
	}
	return nonEmpty(operator)
}

// v2TaskDisplayName is a task instance's task_display_name: its task's,
// as Airflow 3 stores it on the task instance (a Python file's
// task_display_name; the task id otherwise).
func (s *server) v2TaskDisplayName(ti *TaskInstance) string {
	if t := s.ops.loadedTask(ti.DagID, ti.TaskID); t != nil {
		return t.TaskDisplayName()
	}
	return ti.TaskID
}

// v2DagDisplayName is the dag_display_name of a DAG by id (its DagModel's).
func (s *server) v2DagDisplayName(dagID string) string {
	if row, err := s.ops.store.DagByID(dagID); err == nil {
		return dagDisplayName(row)
	}
	return dagID
}

// v2TI renders a run's task instance as TaskInstanceResponse.
func (s *server) v2TI(run *DagRun, ti *TaskInstance) v2TaskInstance {
	var logical *v2When
	if date, ok := run.LogicalDate(); ok {
		logical = v2At(&date)
	}
	rendered := ti.Rendered
	if rendered == nil {
		rendered = map[string]any{}
	}
	return v2TaskInstance{
		ID: ti.ID, TaskID: ti.TaskID, DagID: ti.DagID, DagRunID: ti.RunID, MapIndex: ti.MapIndex,
		LogicalDate: logical, RunAfter: v2When(run.After()),
		StartDate: v2At(ti.StartDate), EndDate: v2At(ti.EndDate), Duration: v2PyFloatOf(ti.Duration),
		State: v2StateOf(ti.State), TryNumber: ti.TryNumber, MaxTries: ti.MaxTries,
		TaskDisplayName: s.v2TaskDisplayName(ti), DagDisplayName: s.v2DagDisplayName(ti.DagID),
		Hostname: ti.Hostname, Unixname: ti.Unixname, Pool: ti.Pool, PoolSlots: ti.PoolSlots, Queue: ti.Queue,
		PriorityWeight: ti.PriorityWeight, Operator: nonEmpty(ti.Operator), OperatorName: s.v2OperatorName(ti.DagID, ti.TaskID, ti.Operator),
		QueuedWhen: v2At(ti.QueuedDttm), PID: ti.PID, ExecutorConfig: "{}", Note: ti.Note,
		RenderedFields: rendered, RenderedMapIndex: ti.RenderedMapIndex, DagVersion: s.v2TIVersion(ti),
	}
}

// v2TIVersion is a task instance's dag_version: the DAG version it ran
// with (DagVersionResponse), or null.
func (s *server) v2TIVersion(ti *TaskInstance) any {
	if v := s.ops.tiVersion(ti); v != nil {
		return s.v2DagVersion(v)
	}
	return nil
}

// v2TITry renders a try as TaskInstanceHistoryResponse.
func (s *server) v2TITry(ti *TaskInstance) v2TaskInstanceTry {
	return v2TaskInstanceTry{
		TaskID: ti.TaskID, DagID: ti.DagID, DagRunID: ti.RunID, MapIndex: ti.MapIndex,
		StartDate: v2At(ti.StartDate), EndDate: v2At(ti.EndDate), Duration: v2PyFloatOf(ti.Duration),
		State: v2StateOf(ti.State), TryNumber: ti.TryNumber, MaxTries: ti.MaxTries,
		TaskDisplayName: s.v2TaskDisplayName(ti), DagDisplayName: s.v2DagDisplayName(ti.DagID),
		Hostname: ti.Hostname, Unixname: ti.Unixname, Pool: ti.Pool, PoolSlots: ti.PoolSlots, Queue: ti.Queue,
		PriorityWeight: ti.PriorityWeight, Operator: nonEmpty(ti.Operator), OperatorName: s.v2OperatorName(ti.DagID, ti.TaskID, ti.Operator),
		QueuedWhen: v2At(ti.QueuedDttm), PID: ti.PID, ExecutorConfig: "{}", DagVersion: s.v2TIVersion(ti),
	}
}

// v2Detail404 is an HTTPException(404, text).
func v2Detail404(format string, args ...any) error {
	return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf(format, args...)}
}

// v2Detail404Tuple is a 404 whose detail Airflow builds as a one-element
// tuple (a trailing comma in the route's source), which FastAPI renders
// as a list of one string.
func v2Detail404Tuple(format string, args ...any) error {
	return &v2Error{status: http.StatusNotFound, detail: []string{fmt.Sprintf(format, args...)}}
}

// v2MapIndexParam is an optional map_index query parameter (default -1).
func v2MapIndexParam(req *apiRequest) int64 {
	return req.query.integer("map_index", -1)
}

// v2PathInt is a path parameter v2CheckPath checked as an integer.
func v2PathInt(req *apiRequest, name string) int64 {
	n, _, _ := v2ParseIntString(req.param(name), nil)
	return n
}

// isFault reports whether err is the operations' fault f.
func isFault(err error, f opFault) bool {
	var oe *opError
	return errors.As(err, &oe) && oe.fault == f
}

// --- queries ---

// v2TIListParams are get_task_instances' query parameters, in the
// document's order.
func v2TIListParams(perRun bool) []v1Param {
	var ps []v1Param
	if perRun {
		ps = append(ps, qV2Str("task_id"))
	}
	for _, f := range []string{"run_after", "logical_date", "start_date", "end_date", "updated_at"} {
		ps = append(ps, qV2DateRange(f)...)
	}
	for _, suffix := range []string{"_gte", "_gt", "_lte", "_lt"} {
		ps = append(ps, v1Param{name: "duration" + suffix, kind: paramNumber})
	}
	if perRun {
		ps = append(ps, qV2Str("task_display_name_pattern"), qV2Str("task_group_id"), qV2Str("dag_id_pattern"), qV2Str("run_id_pattern"))
	}
	ps = append(ps, qV2Strs("state"), qV2Strs("pool"), qV2Str("pool_name_pattern"), qV2Strs("queue"), qV2Str("queue_name_pattern"),
		qV2Strs("executor"), qV2Ints("version_number"), qV2Ints("try_number"), qV2Strs("operator"), qV2Str("operator_name_pattern"),
		qV2Ints("map_index"), qV2Limit, qV2Offset, qV2OrderBy)
	return ps
}

// v2TIOrderAttrs are the attributes get_task_instances sorts by.
var v2TIOrderAttrs = []string{"id", "state", "duration", "start_date", "end_date", "map_index", "try_number",
	"logical_date", "run_after", "data_interval_start", "data_interval_end", "rendered_map_index", "operator"}

// v2TIListTransforms runs the task instance lists' state transform
// (_transform_ti_states) as the dependency it is: it answers before the
// query's validation errors and before the endpoint looks anything up
// (see v2RunListTransforms).
func v2TIListTransforms(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	_, err := v2TIStatesOf(pyQuery(r.URL.RawQuery)["state"])
	return err
}

// v2TIStatesOf is _transform_ti_states: "no_status" and "none" are no
// state; another name that is no state is Airflow's 422.
func v2TIStatesOf(names []string) ([]TaskState, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]TaskState, 0, len(names))
	for _, n := range names {
		switch {
		case n == "no_status" || n == "none":
			out = append(out, TaskNone)
		case slices.Contains(v2TIStates, n):
			out = append(out, TaskState(n))
		default:
			return nil, &v2Error{status: http.StatusUnprocessableEntity,
				detail: "Invalid value for state. Valid values are " + strings.Join(v2TIStates, ", ")}
		}
	}
	return out, nil
}

// v2TimeBounds reads a datetime range's four parameters.
func v2TimeBounds(q v1Values, field string) timeBounds {
	return timeBounds{gte: q.v2Time(field + "_gte"), gt: q.v2Time(field + "_gt"), lte: q.v2Time(field + "_lte"), lt: q.v2Time(field + "_lt")}
}

func v2NumBounds(q v1Values, field string) numBounds {
	num := func(name string) *float64 { return v2RangeBound(q.number(name)) }
	return numBounds{gte: num(field + "_gte"), gt: num(field + "_gt"), lte: num(field + "_lte"), lt: num(field + "_lt")}
}

// v2IntList reads a list[int] parameter; nil when absent (an empty
// FilterParam list filters nothing).
func v2IntList(q v1Values, name string) []int64 {
	vals := q.list(name)
	if len(vals) == 0 {
		return nil
	}
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i], _, _ = v2ParseIntString(v, nil)
	}
	return out
}

func v2StrList(q v1Values, name string) []string {
	vals := q.list(name)
	if len(vals) == 0 {
		return nil
	}
	return vals
}

// v2TISearch reads get_task_instances' filters and order; a task
// instance without a start or end date counts as now in their ranges
// (datetime_range_filter_factory's COALESCE(date, now())).
func v2TISearch(q v1Values, now time.Time) (*tiSearch, error) {
	states, err := v2TIStatesOf(q.list("state"))
	if err != nil {
		return nil, err
	}
	order, err := v2OrderBy(q, "map_index", v2TIOrderAttrs, nil)
	if err != nil {
		return nil, err
	}
	p := v2Page(q)
	ts := &tiSearch{
		runAfter: v2TimeBounds(q, "run_after"), logical: v2TimeBounds(q, "logical_date"), start: v2TimeBounds(q, "start_date"),
		end: v2TimeBounds(q, "end_date"), updated: v2TimeBounds(q, "updated_at"), duration: v2NumBounds(q, "duration"),
		states: states, pools: v2StrList(q, "pool"), queues: v2StrList(q, "queue"), executors: v2StrList(q, "executor"),
		operators: v2StrList(q, "operator"), tryNumbers: v2IntList(q, "try_number"), mapIndexes: v2IntList(q, "map_index"),
		versionNumbers: v2IntList(q, "version_number"),
		taskPattern:    q.v2Pattern("task_display_name_pattern"), dagPattern: q.v2Pattern("dag_id_pattern"),
		runPattern: q.v2Pattern("run_id_pattern"), poolPattern: q.v2Pattern("pool_name_pattern"),
		queuePattern: q.v2Pattern("queue_name_pattern"), operatorMatch: q.v2Pattern("operator_name_pattern"),
		offset: p.offset, limit: p.limit, openDatesAt: &now,
	}
	if id, ok := q.str("task_id"); ok {
		ts.taskIDs = []string{id}
	}
	for _, k := range order {
		ts.order = append(ts.order, sortKey{attr: k.attr, desc: k.desc})
	}
	return ts, nil
}

// --- handlers ---

// v2GetTaskInstance is get_task_instance.
func (s *server) v2GetTaskInstance(req *apiRequest) (any, error) {
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	var tis []*TaskInstance
	if err == nil {
		tis, err = s.opts.Store.TaskInstancesOfTask(dagID, runID, taskID)
	}
	switch {
	case errors.Is(err, errNotFound) || (err == nil && len(tis) == 0):
		return nil, v2Detail404(v2TINotFound, dagID, runID, taskID)
	case err != nil:
		return nil, err
	case tis[0].MapIndex != -1:
		// An expanded mapped task (task_instances.py get_task_instance:
		// the first row's map_index is not -1).
		return nil, v2Detail404(v2TIIsMapped)
	}
	return s.v2TI(run, tis[0]), nil
}

// v2GetMappedTaskInstance is get_mapped_task_instance: the task instance
// of (dag_id, run_id, task_id, map_index), -1 included.
func (s *server) v2GetMappedTaskInstance(req *apiRequest) (any, error) {
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	mapIndex := v2PathInt(req, "map_index")
	run, ti, err := s.ops.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, v2Detail404(v2MappedTINotFound, dagID, runID, taskID, mapIndex)
	}
	if err != nil {
		return nil, err
	}
	return s.v2TI(run, ti), nil
}

// v2GetMappedTaskInstances is get_mapped_task_instances: the expanded
// instances of a run's mapped task (map_index >= 0), filtered, ordered
// (by map_index unless asked) and paged as get_task_instances; with none
// at all, why: the DAG, the task, or the task not being mapped (a mapped
// task not expanded yet, or expanded into nothing, lists none).
func (s *server) v2GetMappedTaskInstances(req *apiRequest) (any, error) {
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	q, err := v2TISearch(req.query, s.ops.clock())
	if err != nil {
		return nil, err
	}
	_, mapped, err := s.opts.Store.MappedTaskInstancePage(dagID, runID, taskID, false, 0, 0)
	if err != nil {
		return nil, err
	}
	if mapped == 0 {
		_, task, err := s.ops.dagTask(dagID, taskID)
		switch {
		case isFault(err, faultTaskMissing):
			return nil, v2Detail404(v2TaskIDNotFound, taskID)
		case errors.Is(err, errNotFound):
			return nil, v2Detail404(v2DagNotFound, dagID)
		case err != nil:
			return nil, err
		case task.Mapping == nil:
			return nil, v2Detail404(v2TaskNotMapped, taskID)
		}
	}
	q.dagIDs, q.runIDs, q.taskIDs, q.mappedOnly = []string{dagID}, []string{runID}, []string{taskID}, true
	return s.v2TIPage(q)
}

// v2GetTaskInstances is get_task_instances: "~" for dag_id or dag_run_id
// reads every DAG or run. Since 3.2.0 a run is found by its DAG and run
// id, and a run_id without a dag_id is refused (a 400, which 3.2.0's
// document adds); a dag_id must name a DAG.
func (s *server) v2GetTaskInstances(req *apiRequest) (any, error) {
	dagID, runID := req.param("dag_id"), req.param("dag_run_id")
	q, err := v2TISearch(req.query, s.ops.clock())
	if err != nil {
		return nil, err
	}
	if runID != "~" {
		if dagID == "~" {
			return nil, &v2Error{status: http.StatusBadRequest, detail: v2RunNeedsDag}
		}
		if _, err := s.ops.runByID(dagID, runID); errors.Is(err, errNotFound) {
			return nil, v2Detail404(v2RunOfDagNotFound, dagID, runID)
		} else if err != nil {
			return nil, err
		}
		q.runIDs = []string{runID}
	}
	if dagID != "~" {
		if runID == "~" {
			if _, err := s.ops.dagDefinition(dagID); errors.Is(err, errNotFound) {
				return nil, v2Detail404(v2DagNotFound, dagID)
			} else if err != nil {
				return nil, err
			}
		}
		q.dagIDs = []string{dagID}
	}
	if group, ok := req.query.str("task_group_id"); ok {
		if err := s.v2TaskGroupFilter(q, dagID, group); err != nil {
			return nil, err
		}
	}
	return s.v2TIPage(q)
}

// v2GroupNotFound is the detail QueryTaskInstanceTaskGroupFilter.to_orm
// raises (common/parameters.py), a dict in this key order.
type v2GroupNotFound struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// v2TaskGroupFilter narrows q to the tasks of a task group of dagID and
// its nested groups (QueryTaskInstanceTaskGroupFilter.to_orm). The filter
// reads the DAG the route set on it: for "~" the route sets none and
// to_orm raises ValueError, Starlette's 500.
func (s *server) v2TaskGroupFilter(q *tiSearch, dagID, group string) error {
	if dagID == "~" {
		return fmt.Errorf("filter task instances on task group %q: no DAG to read it from", group)
	}
	ids, ok, err := s.ops.tasksInGroup(dagID, group)
	if err != nil {
		return fmt.Errorf("filter task instances on task group %q: %v", group, err) // no DAG set: a 500
	}
	if !ok {
		return &v2Error{status: http.StatusNotFound, detail: v2GroupNotFound{Reason: "not_found", Message: "Task group " + group + " not found"}}
	}
	if q.taskIDs != nil {
		ids = slices.DeleteFunc(ids, func(id string) bool { return !slices.Contains(q.taskIDs, id) })
	}
	q.taskIDs = ids
	return nil
}

// v2TIPage lists q's task instances as TaskInstanceCollectionResponse.
func (s *server) v2TIPage(q *tiSearch) (any, error) {
	rows, total, err := s.ops.searchTaskInstances(q)
	if err != nil {
		return nil, err
	}
	out := v2TICollection{TaskInstances: make([]v2TaskInstance, len(rows)), TotalEntries: total}
	for i, r := range rows {
		out.TaskInstances[i] = s.v2TI(r.Run, r.TI)
	}
	return out, nil
}

// v2TIBatchModel is TaskInstancesBatchBody.
var v2TIBatchModel = func() *v2Model {
	nullableDates := func(field string) []v2Field {
		var fs []v2Field
		for _, suffix := range []string{"_gte", "_gt", "_lte", "_lt"} {
			fs = append(fs, v2Field{name: field + suffix, typ: v2TAware, nullable: true})
		}
		return fs
	}
	stateOrNull := v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
		if v == nil {
			return nil, nil
		}
		return v2TEnum(v2TIStates...).validate(v, loc)
	}}
	fields := []v2Field{
		{name: "dag_ids", typ: v2TStrs, nullable: true}, {name: "dag_run_ids", typ: v2TStrs, nullable: true},
		{name: "task_ids", typ: v2TStrs, nullable: true}, {name: "state", typ: v2TListOf(stateOrNull), nullable: true},
	}
	for _, f := range []string{"run_after", "logical_date", "start_date", "end_date"} {
		fields = append(fields, nullableDates(f)...)
	}
	for _, suffix := range []string{"_gte", "_gt", "_lte", "_lt"} {
		fields = append(fields, v2Field{name: "duration" + suffix, typ: v2TFloat, nullable: true})
	}
	fields = append(fields,
		v2Field{name: "pool", typ: v2TStrs, nullable: true}, v2Field{name: "queue", typ: v2TStrs, nullable: true},
		v2Field{name: "executor", typ: v2TStrs, nullable: true},
		v2Field{name: "page_offset", typ: v2Type{kind: v2Int, ge: minimum(0)}}, v2Field{name: "page_limit", typ: v2Type{kind: v2Int, ge: minimum(0)}},
		v2Field{name: "order_by", typ: v2TStr, nullable: true})
	return &v2Model{name: "TaskInstancesBatchBody", fields: fields}
}()

// bodyStrings is a list[str] | None field of a checked body; nil when
// absent or null.
func bodyStrings(body map[string]any, name string) []string {
	list, ok := body[name].([]any)
	if !ok {
		return nil
	}
	out := make([]string, len(list))
	for i, v := range list {
		out[i], _ = v.(string)
	}
	return out
}

// bodyStringSet is bodyStrings for a filter Airflow reads as an IN list
// (inList); nil when the field is absent or null.
func bodyStringSet(body map[string]any, name string) []string {
	return inList(bodyStrings(body, name))
}

func bodyTime(body map[string]any, name string) *time.Time {
	if t, ok := body[name].(time.Time); ok {
		return &t
	}
	return nil
}

func bodyFloat(body map[string]any, name string) *float64 {
	switch x := body[name].(type) {
	case float64:
		return &x
	case int64:
		f := float64(x)
		return &f
	}
	return nil
}

func bodyInt(body map[string]any, name string, def int64) int64 {
	if n, ok := body[name].(int64); ok {
		return n
	}
	return def
}

func bodyBool(body map[string]any, name string, def bool) bool {
	if b, ok := body[name].(bool); ok {
		return b
	}
	return def
}

// v2GetTaskInstancesBatch is get_task_instances_batch: dag_id and
// dag_run_id are "~" (Literal["~"], checked with the path); the filters
// come in the body; order_by is one attribute of six.
func (s *server) v2GetTaskInstancesBatch(req *apiRequest) (any, error) {
	b := req.body
	q := &tiSearch{
		dagIDs: bodyStringSet(b, "dag_ids"), runIDs: bodyStringSet(b, "dag_run_ids"), taskIDs: bodyStringSet(b, "task_ids"),
		pools: bodyStringSet(b, "pool"), queues: bodyStringSet(b, "queue"), executors: bodyStringSet(b, "executor"),
		offset: int(bodyInt(b, "page_offset", 0)), limit: int(bodyInt(b, "page_limit", 100)),
	}
	bounds := func(f string) timeBounds {
		return timeBounds{gte: bodyTime(b, f+"_gte"), gt: bodyTime(b, f+"_gt"), lte: bodyTime(b, f+"_lte"), lt: bodyTime(b, f+"_lt")}
	}
	q.runAfter, q.logical, q.start, q.end = bounds("run_after"), bounds("logical_date"), bounds("start_date"), bounds("end_date")
	num := func(name string) *float64 { return v2RangeBound(bodyFloat(b, name)) }
	q.duration = numBounds{gte: num("duration_gte"), gt: num("duration_gt"), lte: num("duration_lte"), lt: num("duration_lt")}
	if list, ok := b["state"].([]any); ok && len(list) > 0 {
		for _, v := range list {
			st, _ := v.(string)
			q.states = append(q.states, TaskState(st))
		}
	}
	// An empty list filters nothing (FilterParam skips falsy values).
	for _, l := range []*[]string{&q.dagIDs, &q.runIDs, &q.taskIDs, &q.pools, &q.queues, &q.executors} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if ob, ok := b["order_by"].(string); ok && ob != "" {
		keys, err := v2OrderBy(v1Values{"order_by": {ob}}, "", []string{"id", "state", "duration", "start_date", "end_date", "map_index"}, nil)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			q.order = append(q.order, sortKey{attr: k.attr, desc: k.desc})
		}
	}
	return s.v2TIPage(q)
}

// v2GetTaskInstanceDependencies is get_task_instance_dependencies (and
// its {map_index} route).
func (s *server) v2GetTaskInstanceDependencies(mapped bool) func(req *apiRequest) (any, error) {
	return func(req *apiRequest) (any, error) {
		dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
		mapIndex := v2MapIndexParam(req)
		if mapped {
			mapIndex = v2PathInt(req, "map_index")
		}
		deps, err := s.ops.taskInstanceDependencies(dagID, runID, taskID, mapIndex)
		if errors.Is(err, errNotFound) {
			return nil, v2Detail404Tuple(v2TIMapNotFound, dagID, runID, taskID, strconv.FormatInt(mapIndex, 10))
		}
		if err != nil {
			return nil, err
		}
		out := v2TIDependencies{Dependencies: make([]v2TIDependency, len(deps))}
		for i, d := range deps {
			out.Dependencies[i] = v2TIDependency{Name: d.name, Reason: d.reason}
		}
		return out, nil
	}
}

// v2GetTaskInstanceTries is get_task_instance_tries (and its {map_index}
// route).
func (s *server) v2GetTaskInstanceTries(mapped bool) func(req *apiRequest) (any, error) {
	return func(req *apiRequest) (any, error) {
		dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
		mapIndex := v2MapIndexParam(req)
		if mapped {
			mapIndex = v2PathInt(req, "map_index")
		}
		_, tries, err := s.ops.tiTries(dagID, runID, taskID, mapIndex)
		if err != nil {
			return nil, err
		}
		if len(tries) == 0 {
			return nil, v2Detail404(v2TIMapNotFound, dagID, runID, taskID, strconv.FormatInt(mapIndex, 10))
		}
		out := v2TITryCollection{TaskInstances: make([]v2TaskInstanceTry, len(tries)), TotalEntries: len(tries)}
		for i, t := range tries {
			out.TaskInstances[i] = s.v2TITry(t)
		}
		return out, nil
	}
}

// v2GetTaskInstanceTry is get_task_instance_try_details (and its
// {map_index} route).
func (s *server) v2GetTaskInstanceTry(mapped bool) func(req *apiRequest) (any, error) {
	return func(req *apiRequest) (any, error) {
		dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
		mapIndex := v2MapIndexParam(req)
		if mapped {
			mapIndex = v2PathInt(req, "map_index")
		}
		try := v2PathInt(req, "task_try_number")
		_, ti, err := s.ops.tiTry(dagID, runID, taskID, mapIndex, try)
		if err != nil {
			return nil, err
		}
		if ti == nil {
			return nil, v2Detail404(v2TITryNotFound, dagID, runID, taskID, try, mapIndex)
		}
		return s.v2TITry(ti), nil
	}
}

// v2DeleteTaskInstance is delete_task_instance: 200 and null.
func (s *server) v2DeleteTaskInstance(req *apiRequest) (any, error) {
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	mapIndex := v2MapIndexParam(req)
	err := s.ops.deleteTaskInstance(dagID, runID, taskID, mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, v2Detail404(v2TIMapNotFound, dagID, runID, taskID, strconv.FormatInt(mapIndex, 10))
	}
	return nil, err
}

// v2PatchStates are the states PatchTaskInstanceBody's new_state takes.
var v2PatchStates = []string{"success", "failed", "skipped"}

// v2NewStateType is new_state's annotation with its before-validator
// (validate_new_state): null is refused, the name lowercased and one of
// three.
var v2NewStateType = v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
	valueError := func(msg string) []v2Issue {
		return []v2Issue{{Type: "value_error", Loc: loc, Msg: "Value error, " + msg, Input: v2Input(v), Ctx: map[string]any{"error": map[string]any{}}}}
	}
	if v == nil {
		return nil, valueError("'new_state' should not be empty")
	}
	str, ok := v.(string)
	if !ok {
		// ns.lower() on a non-string raises AttributeError, which pydantic
		// does not turn into a validation error: FastAPI answers 500.
		return nil, []v2Issue{{Type: "string_type", Loc: loc, Msg: "Input should be a valid string", Input: v2Input(v)}}
	}
	ns := strings.ToLower(str)
	if !slices.Contains(v2PatchStates, ns) {
		return nil, valueError(fmt.Sprintf("'%s' is not one of ['success', 'failed', 'skipped']", ns))
	}
	return ns, nil
}}

// v2PatchTIFields are PatchTaskInstanceBody's fields.
func v2PatchTIFields() []v2Field {
	return []v2Field{
		{name: "new_state", typ: v2NewStateType, nullable: false},
		{name: "note", typ: v2Type{kind: v2String, maxLen: intPtr(1000)}, nullable: true},
		{name: "include_upstream", typ: v2TBool}, {name: "include_downstream", typ: v2TBool},
		{name: "include_future", typ: v2TBool}, {name: "include_past", typ: v2TBool},
	}
}

func intPtr(n int) *int { return &n }

var v2PatchTIModel = &v2Model{name: "PatchTaskInstanceBody", fields: v2PatchTIFields()}

// v2PatchTaskInstance is patch_task_instance and
// patch_task_instance_dry_run (and their {map_index} routes).
func (s *server) v2PatchTaskInstance(mapped, dryRun bool) func(req *apiRequest) (any, error) {
	return func(req *apiRequest) (any, error) {
		dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
		var mapIndex *int64
		if mapped {
			n := v2PathInt(req, "map_index")
			mapIndex = &n
		} else if _, given := req.query.str("map_index"); given {
			n := req.query.integer("map_index", -1)
			mapIndex = &n
		}
		mapText := "None"
		if mapIndex != nil {
			mapText = strconv.FormatInt(*mapIndex, 10)
		}
		// _patch_ti_validate_request: the DAG, its task, the task instance.
		_, _, err := s.ops.dagTask(dagID, taskID)
		switch {
		case isFault(err, faultTaskMissing):
			return nil, v2Detail404(v2PatchTaskNotFound, taskID, dagID)
		case errors.Is(err, errNotFound):
			return nil, v2Detail404(v2DagNotFound, dagID)
		case err != nil:
			return nil, err
		}
		// _patch_ti_validate_request: the task instance of map_index, or
		// with none given, the task's task instances.
		run, err := s.opts.Store.RunByRunID(dagID, runID)
		var tis []*TaskInstance
		if err == nil {
			tis, err = s.opts.Store.TaskInstancesOfTask(dagID, runID, taskID)
		}
		if mapIndex != nil {
			tis = slices.DeleteFunc(tis, func(ti *TaskInstance) bool { return int64(ti.MapIndex) != *mapIndex })
		}
		if errors.Is(err, errNotFound) || (err == nil && len(tis) == 0) {
			return nil, v2Detail404Tuple(v2TIMapNotFound, dagID, runID, taskID, mapText)
		}
		if err != nil {
			return nil, err
		}
		fields := v2MaskedFields(req.body, req.query.list("update_mask"))
		names := make([]tiName, len(tis))
		for i, ti := range tis {
			names[i] = tiName{dagID, runID, taskID, run.ExecutionDate, ti.MapIndex}
		}
		if newState, ok := fields["new_state"].(string); ok {
			marked, err := s.ops.markTaskInstances(markRequest{
				dagID: dagID, taskID: taskID, runID: runID, state: TaskState(newState),
				upstream: bodyBool(req.body, "include_upstream", false), downstream: bodyBool(req.body, "include_downstream", false),
				future: bodyBool(req.body, "include_future", false), past: bodyBool(req.body, "include_past", false), dryRun: dryRun,
				resumeDownstream: true, mapIndex: mapIndex,
			})
			if err != nil {
				return nil, err
			}
			if dryRun {
				names = marked
			} else if len(marked) == 0 {
				return nil, &v2Error{status: http.StatusConflict, detail: fmt.Sprintf(v2PatchAlreadyIn, taskID, newState)}
			}
		}
		if note, ok := fields["note"]; ok && !dryRun && (len(req.query.list("update_mask")) > 0 || note != nil) {
			var text *string
			if n, ok := note.(string); ok {
				text = &n
			}
			for _, n := range names {
				if _, _, err := s.ops.setTaskInstanceNote(dagID, runID, taskID, int64(n.mapIndex), text); err != nil {
					return nil, err
				}
			}
		}
		out := v2TICollection{TaskInstances: []v2TaskInstance{}}
		for _, n := range names {
			run, ti, err := s.ops.taskInstanceAt(n.dagID, n.runID, n.taskID, int64(n.mapIndex))
			if err != nil {
				continue
			}
			out.TaskInstances = append(out.TaskInstances, s.v2TI(run, ti))
		}
		out.TotalEntries = len(out.TaskInstances)
		return out, nil
	}
}

// v2MaskedFields is the body's fields set, limited by update_mask when
// one is given (model_fields_set ∩ update_mask).
func v2MaskedFields(body map[string]any, mask []string) map[string]any {
	if len(mask) == 0 {
		return body
	}
	out := map[string]any{}
	for _, m := range mask {
		if v, ok := body[m]; ok {
			out[m] = v
		}
	}
	return out
}

// v2TaskIDsItem is ClearTaskInstancesBody.task_ids' item: a task_id, or a
// [task_id, map_index] pair (tuple[str, int]).
var v2TaskIDsItem = v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	list, ok := v.([]any)
	if ok && len(list) == 2 {
		id, idOK := list[0].(string)
		kept, issues := v2TInt.validate(list[1], appendLoc(appendLoc(loc, "tuple[str, int]"), 1))
		if idOK && issues == nil {
			return []any{id, kept}, nil
		}
	}
	return nil, []v2Issue{
		{Type: "string_type", Loc: appendLoc(loc, "str"), Msg: "Input should be a valid string", Input: v2Input(v)},
		{Type: "tuple_type", Loc: appendLoc(loc, "tuple[str, int]"), Msg: "Input should be a valid tuple", Input: v2Input(v)},
	}
}}

// v2ClearModel is ClearTaskInstancesBody.
var v2ClearModel = &v2Model{name: "ClearTaskInstancesBody", fields: []v2Field{
	{name: "dry_run", typ: v2TBool}, {name: "start_date", typ: v2TAware, nullable: true},
	{name: "end_date", typ: v2TAware, nullable: true}, {name: "only_failed", typ: v2TBool},
	{name: "only_running", typ: v2TBool}, {name: "reset_dag_runs", typ: v2TBool},
	{name: "task_ids", typ: v2TListOf(v2TaskIDsItem), nullable: true}, {name: "dag_run_id", typ: v2TStr, nullable: true},
	{name: "include_upstream", typ: v2TBool}, {name: "include_downstream", typ: v2TBool},
	{name: "include_future", typ: v2TBool}, {name: "include_past", typ: v2TBool},
	{name: "run_on_latest_version", typ: v2TBool}, {name: "prevent_running_task", typ: v2TBool},
}}

// v2ClearBody is ClearTaskInstancesBody's check: first its
// validate_model, a before-validator that reads the body as sent and
// whose ValidationError(...) call itself fails (pydantic's ValidationError
// takes no message): a TypeError pydantic does not catch, which FastAPI
// answers with a 500 before any field is checked; then the fields.
func v2ClearBody() func(*apiRoute) {
	return withBody(func(v any) (map[string]any, error) {
		if dict, ok := v.(pyDict); ok && v2ClearValidatorRaises(dict) {
			return nil, errors.New("clear task instances: ClearTaskInstancesBody.validate_model raised")
		}
		out, issues := v2ClearModel.validate(v, []any{"body"})
		if issues != nil {
			return nil, v2Invalid(issues)
		}
		return out, nil
	})
}

// v2ClearValidatorRaises reports whether validate_model raises on the
// body as sent: Python's truth of each value, start_date > end_date as
// the raw values compare (strings by their characters; other pairs that
// Python cannot order raise too).
func v2ClearValidatorRaises(body pyDict) bool {
	get := func(name string) any {
		for _, f := range body {
			if f.key == name {
				return f.val
			}
		}
		return nil
	}
	start, end, runID := get("start_date"), get("end_date"), get("dag_run_id")
	switch {
	case pyTruthy(get("only_failed")) && pyTruthy(get("only_running")):
		return true
	case pyTruthy(start) && pyTruthy(end):
		a, aStr := start.(string)
		b, bStr := end.(string)
		if !aStr || !bStr || a > b {
			return true
		}
	}
	if (pyTruthy(start) || pyTruthy(end)) && pyTruthy(runID) {
		return true
	}
	list, isList := get("task_ids").([]any)
	return isList && len(list) == 0
}

// pyTruthy is Python's truth of a decoded JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	case pyDict:
		return len(x) > 0
	}
	return true
}

// v2ClearTaskInstances is post_clear_task_instances.
func (s *server) v2ClearTaskInstances(req *apiRequest) (any, error) {
	dagID, b := req.param("dag_id"), req.body
	if _, err := s.ops.dagDefinition(dagID); errors.Is(err, errNotFound) {
		return nil, v2Detail404(v2DagNotFound, dagID)
	} else if err != nil {
		return nil, err
	}
	cr := clearRequest{
		dagID: dagID, start: bodyTime(b, "start_date"), end: bodyTime(b, "end_date"),
		upstream: bodyBool(b, "include_upstream", false), downstream: bodyBool(b, "include_downstream", false),
		future: bodyBool(b, "include_future", false), past: bodyBool(b, "include_past", false),
		onlyFailed: bodyBool(b, "only_failed", true), onlyRunning: bodyBool(b, "only_running", false),
		resetRuns: bodyBool(b, "reset_dag_runs", true), dryRun: bodyBool(b, "dry_run", true),
		runOnly: true, noEndCap: true, preventRunning: bodyBool(b, "prevent_running_task", false),
	}
	if runID, ok := b["dag_run_id"].(string); ok {
		cr.runID = runID
	}
	if list, ok := b["task_ids"].([]any); ok {
		cr.taskIDs = []string{}
		for _, item := range list {
			switch x := item.(type) {
			case string:
				cr.taskIDs = append(cr.taskIDs, x)
			case []any:
				id, _ := x[0].(string)
				if n, _ := x[1].(int64); n == -1 {
					cr.taskIDs = append(cr.taskIDs, id)
				} else {
					cr.mapped = append(cr.mapped, tiKey{dagID, "", id, int(n)})
				}
			}
		}
	}
	names, err := s.ops.clearTaskInstances(cr)
	switch {
	case isFault(err, faultRunNotFound):
		return nil, v2Detail404(v2ClearRunNotFound, cr.runID, dagID)
	case isFault(err, faultClearNoLogicalDate):
		return nil, &v2Error{status: http.StatusBadRequest, detail: v2ClearNoLogical}
	case isFault(err, faultClearRunning):
		return nil, &v2Error{status: http.StatusConflict, detail: v2ClearRunning}
	case err != nil:
		return nil, err
	}
	out := v2TICollection{TaskInstances: make([]v2TaskInstance, 0, len(names))}
	for _, n := range names {
		if run, ti, err := s.ops.taskInstanceAt(n.dagID, n.runID, n.taskID, int64(n.mapIndex)); err == nil {
			out.TaskInstances = append(out.TaskInstances, s.v2TI(run, ti))
		}
	}
	out.TotalEntries = len(out.TaskInstances)
	return out, nil
}

// v2BulkTIEntityModel is BulkTaskInstanceBody: PatchTaskInstanceBody's
// fields, then the task instance it names.
var v2BulkTIEntityModel = &v2Model{name: "BulkTaskInstanceBody", fields: append(v2PatchTIFields(),
	v2Field{name: "task_id", typ: v2TStr, required: true}, v2Field{name: "map_index", typ: v2TInt, nullable: true},
	v2Field{name: "dag_id", typ: v2TStr, nullable: true}, v2Field{name: "dag_run_id", typ: v2TStr, nullable: true})}

// v2BulkActionModels are BulkCreateAction, BulkUpdateAction and
// BulkDeleteAction of BulkTaskInstanceBody, by their action tag.
var v2BulkActionModels = map[string]*v2Model{
	"create": {name: "BulkCreateAction[BulkTaskInstanceBody]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("create"), required: true},
		{name: "entities", typ: v2TListOf(v2TModel(v2BulkTIEntityModel)), required: true},
		{name: "action_on_existence", typ: v2TEnum("fail", "skip", "overwrite")}}},
	"update": {name: "BulkUpdateAction[BulkTaskInstanceBody]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("update"), required: true},
		{name: "entities", typ: v2TListOf(v2TModel(v2BulkTIEntityModel)), required: true},
		{name: "update_mask", typ: v2TStrs, nullable: true},
		{name: "action_on_non_existence", typ: v2TEnum("fail", "skip")}}},
	"delete": {name: "BulkDeleteAction[BulkTaskInstanceBody]", fields: []v2Field{
		{name: "action", typ: v2TLiteral("delete"), required: true},
		{name: "entities", typ: v2TListOf(v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
			if s, ok := v.(string); ok {
				return s, nil
			}
			if _, ok := v.(pyDict); ok {
				return v2BulkTIEntityModel.validate(v, appendLoc(loc, "BulkTaskInstanceBody"))
			}
			return nil, []v2Issue{{Type: "string_type", Loc: appendLoc(loc, "str"), Msg: "Input should be a valid string", Input: v2Input(v)},
				{Type: "model_attributes_type", Loc: appendLoc(loc, "BulkTaskInstanceBody"), Msg: "Input should be a valid dictionary or object to extract fields from", Input: v2Input(v)}}
		}}), required: true},
		{name: "action_on_non_existence", typ: v2TEnum("fail", "skip")}}},
}

// v2BulkAction is one item of BulkBody.actions, a union discriminated by
// its action.
var v2BulkAction = v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
	dict, ok := v.(pyDict)
	if !ok {
		return nil, []v2Issue{{Type: "model_attributes_type", Loc: loc, Msg: "Input should be a valid dictionary or object to extract fields from", Input: v2Input(v)}}
	}
	var tag any
	for _, f := range dict {
		if f.key == "action" {
			tag = f.val
		}
	}
	name, _ := tag.(string)
	m, ok := v2BulkActionModels[name]
	if !ok {
		if tag == nil {
			return nil, []v2Issue{{Type: "union_tag_not_found", Loc: loc, Msg: "Unable to extract tag using discriminator _action_discriminator()",
				Input: v2Input(v), Ctx: map[string]any{"discriminator": "_action_discriminator()"}}}
		}
		return nil, []v2Issue{{Type: "union_tag_invalid", Loc: loc,
			Msg:   fmt.Sprintf("Input tag '%v' found using _action_discriminator() does not match any of the expected tags: 'create', 'update', 'delete'", tag),
			Input: v2Input(v), Ctx: map[string]any{"discriminator": "_action_discriminator()", "tag": fmt.Sprint(tag), "expected_tags": "'create', 'update', 'delete'"}}}
	}
	out, issues := m.validate(v, appendLoc(loc, name))
	return out, issues
}}

// v2BulkTIModel is BulkBody[BulkTaskInstanceBody].
var v2BulkTIModel = &v2Model{name: "BulkBody[BulkTaskInstanceBody]", fields: []v2Field{
	{name: "actions", typ: v2TListOf(v2BulkAction), required: true}}}

// v2BulkActionResult is BulkActionResponse.
type v2BulkActionResult struct {
	Success []string         `json:"success"`
	Errors  []map[string]any `json:"errors"`
}

// v2BulkResult is BulkResponse: one result per kind of action asked.
type v2BulkResult struct {
	Create *v2BulkActionResult `json:"create"`
	Update *v2BulkActionResult `json:"update"`
	Delete *v2BulkActionResult `json:"delete"`
}

// v2BulkKey is a task instance a bulk entity names.
type v2BulkKey struct {
	dagID, runID, taskID string
	mapIndex             *int64
	entity               map[string]any // nil for a task_id given as a string
}

// v2BulkTaskInstances is bulk_task_instances (BulkTaskInstanceService).
func (s *server) v2BulkTaskInstances(req *apiRequest) (any, error) {
	pathDag, pathRun := req.param("dag_id"), req.param("dag_run_id")
	var out v2BulkResult
	actions, _ := req.body["actions"].([]any)
	for _, a := range actions {
		action, _ := a.(map[string]any)
		kind, _ := action["action"].(string)
		res := &out.Create
		switch kind {
		case "update":
			res = &out.Update
		case "delete":
			res = &out.Delete
		}
		if *res == nil {
			*res = &v2BulkActionResult{Success: []string{}, Errors: []map[string]any{}}
		}
		r := *res
		failMissing := action["action_on_non_existence"] != "skip"
		entities, _ := action["entities"].([]any)
		keys := v2BulkKeys(entities, pathDag, pathRun, r)
		var err error
		switch kind {
		case "create":
			r.Errors = append(r.Errors, map[string]any{"error": "Task instances bulk create is not supported", "status_code": http.StatusMethodNotAllowed})
		case "update":
			mask := bodyStrings(action, "update_mask")
			err = s.v2BulkUpdate(keys, failMissing, mask, r)
		case "delete":
			err = s.v2BulkDelete(keys, failMissing, r)
		}
		var ve *v2Error
		switch {
		case errors.As(err, &ve):
			detail := fmt.Sprint(ve.detail)
			if list, ok := ve.detail.([]string); ok && len(list) == 1 {
				detail = "(" + pyQuote(list[0]) + ",)" // a one-element tuple's str()
			}
			r.Errors = append(r.Errors, map[string]any{"error": detail, "status_code": ve.status})
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

// v2BulkKeys is _categorize_entities: each entity's task instance, the
// path's ids where the entity gives none; a "~" left is an error.
func v2BulkKeys(entities []any, pathDag, pathRun string, r *v2BulkActionResult) []v2BulkKey {
	var keys []v2BulkKey
	for _, e := range entities {
		k := v2BulkKey{dagID: pathDag, runID: pathRun}
		switch x := e.(type) {
		case string:
			k.taskID = x
		case map[string]any:
			k.entity = x
			k.taskID, _ = x["task_id"].(string)
			if d, _ := x["dag_id"].(string); d != "" {
				k.dagID = d
			}
			if rid, _ := x["dag_run_id"].(string); rid != "" {
				k.runID = rid
			}
			if n, ok := x["map_index"].(int64); ok {
				k.mapIndex = &n
			}
		}
		if k.dagID == "~" || k.runID == "~" {
			msg := "When using wildcard in path, dag_id and dag_run_id must be specified in request body for task_id: " + k.taskID
			if k.entity == nil {
				msg = "When using wildcard in path, dag_id and dag_run_id must be specified in BulkTaskInstanceBody object, not as string for task_id: " + k.taskID
			}
			r.Errors = append(r.Errors, map[string]any{"error": msg, "status_code": http.StatusBadRequest})
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// v2BulkMissing is the 404 for task instances named by a map index that
// are not there (airlite's are all -1).
func v2BulkMissing(keys []v2BulkKey) error {
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("{'dag_id': %s, 'dag_run_id': %s, 'task_id': %s, 'map_index': %d}",
			pyQuote(k.dagID), pyQuote(k.runID), pyQuote(k.taskID), *k.mapIndex))
	}
	return &v2Error{status: http.StatusNotFound, detail: "The task instances with these identifiers: [" + strings.Join(parts, ", ") + "] were not found"}
}

// v2BulkMapIndexes are the map indexes of a key's task instances: the
// one it names when it names one and that instance is there, else every
// instance of its task, by map_index (_categorize_task_instances, and the
// "all map indexes" paths of handle_bulk_update and handle_bulk_delete).
func (s *server) v2BulkMapIndexes(k v2BulkKey) ([]int64, error) {
	tis, err := s.opts.Store.TaskInstancesOfTask(k.dagID, k.runID, k.taskID)
	if errors.Is(err, errNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, ti := range tis {
		if k.mapIndex == nil || int64(ti.MapIndex) == *k.mapIndex {
			out = append(out, int64(ti.MapIndex))
		}
	}
	return out, nil
}

// v2BulkName is a task instance as the bulk answers name it.
func v2BulkName(k v2BulkKey, mapIndex int64) string {
	return fmt.Sprintf("%s.%s.%s[%d]", k.dagID, k.runID, k.taskID, mapIndex)
}

// v2BulkMissingOf are the keys naming a map index whose task instance is
// not there.
func (s *server) v2BulkMissingOf(keys []v2BulkKey) ([]v2BulkKey, error) {
	var missing []v2BulkKey
	for _, k := range keys {
		if k.mapIndex == nil {
			continue
		}
		found, err := s.v2BulkMapIndexes(k)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			missing = append(missing, k)
		}
	}
	return missing, nil
}

// v2BulkUpdate is handle_bulk_update: the entities naming a map index
// first (all refused when one is missing), then those naming none, each
// refused when its task has no task instance, else applied to every one
// of them. As Airflow matches an entity to its task instance by the ids
// the entity itself gives, an entity without dag_id and dag_run_id
// updates nothing.
//
// Each update is checked and applied at map_index -1, whatever instance
// it is for: 3.2.1's _perform_update calls _patch_ti_validate_request
// without the map_index (services/public/task_instances.py, the 3.2.0-era
// main, Phinhas214/airflow c57fba0e, 2026-03-20, line 271), so an expanded
// instance of a mapped task is that function's 404, its detail a one-
// element tuple naming map_index -1, and the action stops there. v3-2-test
// still had this when 3.2.1 shipped; apache/airflow#65874 (2026-04-26,
// for 3.2.2) passes the map_index.
func (s *server) v2BulkUpdate(keys []v2BulkKey, failMissing bool, mask []string, r *v2BulkActionResult) error {
	update := func(k v2BulkKey, mapIndex int64) error {
		if k.entity == nil || k.entity["dag_id"] != k.dagID || k.entity["dag_run_id"] != k.runID {
			return nil
		}
		req := &apiRequest{path: map[string]string{"dag_id": k.dagID, "dag_run_id": k.runID, "task_id": k.taskID}, body: k.entity,
			query: v1Values{"update_mask": mask, "map_index": {"-1"}}}
		if _, err := s.v2PatchTaskInstance(false, false)(req); err != nil {
			return err
		}
		r.Success = append(r.Success, v2BulkName(k, mapIndex))
		return nil
	}
	missing, err := s.v2BulkMissingOf(keys)
	if err != nil {
		return err
	}
	if failMissing && missing != nil {
		return v2BulkMissing(missing)
	}
	// The keys naming a map index, then the others.
	for _, specific := range []bool{true, false} {
		for _, k := range keys {
			if (k.mapIndex != nil) != specific {
				continue
			}
			found, err := s.v2BulkMapIndexes(k)
			if err != nil {
				return err
			}
			if len(found) == 0 && !specific && failMissing {
				return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("No task instances found for dag_id: %s, run_id: %s, task_id: %s", k.dagID, k.runID, k.taskID)}
			}
			for _, i := range found {
				if err := update(k, i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// v2BulkDelete is handle_bulk_delete.
func (s *server) v2BulkDelete(keys []v2BulkKey, failMissing bool, r *v2BulkActionResult) error {
	missing, err := s.v2BulkMissingOf(keys)
	if err != nil {
		return err
	}
	if failMissing && missing != nil {
		return v2BulkMissing(missing)
	}
	for _, k := range keys {
		found, err := s.v2BulkMapIndexes(k)
		if err != nil {
			return err
		}
		if len(found) == 0 && k.mapIndex == nil && failMissing {
			return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf("No task instances found for dag_id: %s, run_id: %s, task_id: %s", k.dagID, k.runID, k.taskID)}
		}
		for _, i := range found {
			if err := s.ops.deleteTaskInstance(k.dagID, k.runID, k.taskID, i); err != nil {
				return err
			}
			r.Success = append(r.Success, v2BulkName(k, i))
		}
	}
	return nil
}

// v2ExtraLinks is datamodels/extra_links.py ExtraLinkCollectionResponse.
type v2ExtraLinks struct {
	ExtraLinks   map[string]*string `json:"extra_links"`
	TotalEntries int                `json:"total_entries"`
}

// v2GetExtraLinks is routes/public/extra_links.py get_extra_links: the
// task instance of the asked map_index, and each of its operator's extra
// links by name, sorted, with the URL its XComOperatorLink reads (3.2.1
// serialization/definitions/operatorlink.py: the XCom "_link_<link
// class>" of that task instance, deserialized), null when there is none
// or it is empty ("link_url or None"). airlite's operators push no such
// XCom themselves. A run that is not there is no 500: 3.2.1 reads the
// DAG with get_dag_for_run_or_latest_version (common/dagbag.py), which
// takes the DAG's latest version when there is no run, so the task is
// checked and then the instance is not found; no DAG is dagbag.py's 404
// (extra_links.py lines 54-61 of the 3.2.0-era main, Phinhas214/airflow
// c57fba0e, 2026-03-20, unchanged since apache/airflow#53975 in 3.1).
func (s *server) v2GetExtraLinks(req *apiRequest) (any, error) {
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	run, err := s.ops.runByID(dagID, runID)
	if errors.Is(err, errNotFound) {
		run = nil
	} else if err != nil {
		return nil, err
	}
	_, task, err := s.ops.dagTask(dagID, taskID)
	switch {
	case isFault(err, faultTaskMissing):
		return nil, v2Detail404("Task with ID = %s not found", taskID)
	case errors.Is(err, errNotFound):
		return nil, v2Detail404(v2DagNotFound, dagID)
	case err != nil:
		return nil, err
	}
	if run == nil {
		return nil, v2Detail404("TaskInstance not found")
	}
	mapIndex := v2MapIndexParam(req)
	if _, _, err := s.ops.taskInstanceAt(dagID, run.RunID, taskID, mapIndex); err != nil {
		if errors.Is(err, errNotFound) {
			return nil, v2Detail404("TaskInstance not found")
		}
		return nil, err
	}
	out := v2ExtraLinks{ExtraLinks: map[string]*string{}}
	for _, link := range task.ExtraLinks {
		url, err := s.v2ExtraLinkURL(dagID, run.RunID, taskID, mapIndex, link)
		if err != nil {
			return nil, err
		}
		out.ExtraLinks[link.Name] = url
	}
	out.TotalEntries = len(out.ExtraLinks)
	return out, nil
}

// v2ExtraLinkURL is XComOperatorLink.get_link's value for one task
// instance, as the route answers it: null for no XCom under the link's
// key, else v2LinkText of the XCom's column, null when that is empty
// ("link_url or None").
func (s *server) v2ExtraLinkURL(dagID, runID, taskID string, mapIndex int64, link extraLink) (*string, error) {
	e, err := s.ops.xcomEntry(dagID, runID, taskID, link.xcomKey(), mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	col, err := v2XComColumn(e.Value)
	if err != nil {
		return nil, err
	}
	text, err := v2LinkText(col)
	if err != nil {
		return nil, fmt.Errorf("extra link %s of %s.%s: %w", link.Name, dagID, taskID, err)
	}
	if text == "" {
		return nil, nil
	}
	return &text, nil
}

// v2LinkText is XComOperatorLink.get_link's text of an XCom column
// (c57fba0e serialization/definitions/operatorlink.py:47-92, since
// apache/airflow#61641, before 3.2.0): json.loads of a string column (the
// public API's and XCom.set's text of the value; a task's string that is
// no JSON stays itself), a column of any other type as it is, then str()
// of serialization/stringify.py's stringify. A serialized Airflow class
// (a "__classname__" starting "airflow.") is never rebuilt: the text is
// str() of the whole value. So a dict is its Python repr, null is "None".
func v2LinkText(col any) (string, error) {
	v, err := v2DeserializedXCom(col)
	if err != nil {
		return "", err
	}
	return pyStrValue(v), nil
}
