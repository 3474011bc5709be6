package main

// The stable API's task instances and their logs (Airflow 2.10.3
// airflow/api_connexion/endpoints/task_instance_endpoint.py,
// log_endpoint.py, schemas/task_instance_schema.py).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// v1TaskInstance renders a task instance as TaskInstanceSchema dumps it.
func v1TaskInstance(ti *TaskInstance, run *DagRun) map[string]any {
	var state, duration, pid, note any
	if ti.State != TaskNone {
		state = string(ti.State)
	}
	if ti.Duration != nil {
		duration = *ti.Duration
	}
	if ti.PID != nil {
		pid = *ti.PID
	}
	if ti.Note != nil {
		note = *ti.Note
	}
	return map[string]any{
		"task_id":            ti.TaskID,
		"task_display_name":  ti.TaskID,
		"dag_id":             ti.DagID,
		"dag_run_id":         ti.RunID,
		"map_index":          ti.MapIndex,
		"execution_date":     isoFormat(run.ExecutionDate),
		"start_date":         v1Date(ti.StartDate),
		"end_date":           v1Date(ti.EndDate),
		"duration":           duration,
		"state":              state,
		"try_number":         ti.TryNumber,
		"max_tries":          ti.MaxTries,
		"hostname":           ti.Hostname,
		"unixname":           ti.Unixname,
		"pool":               ti.Pool,
		"pool_slots":         ti.PoolSlots,
		"queue":              ti.Queue,
		"priority_weight":    ti.PriorityWeight,
		"operator":           ti.Operator,
		"queued_when":        v1Date(ti.QueuedDttm),
		"pid":                pid,
		"executor":           nil,
		"executor_config":    "{}",
		"note":               note,
		"sla_miss":           nil,
		"rendered_map_index": strOrNil(ti.RenderedMapIndex),
		"rendered_fields":    renderedFields(ti),
		"trigger":            nil,
		"triggerer_job":      nil,
	}
}

// fetchTaskInstances is the operations' listing, rendered.
func (s *server) fetchTaskInstances(q *tiQuery) ([]any, int, error) {
	page, total, err := s.ops.listTaskInstances(q)
	if err != nil {
		return nil, 0, err
	}
	out := make([]any, len(page))
	for i, p := range page {
		out[i] = v1TaskInstance(p.TI, p.Run)
	}
	return out, total, nil
}

// V1GetTaskInstances is GET /dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances;
// either id may be "~", any.
func (s *server) V1GetTaskInstances(dagID, runID string, qv v1Values) (map[string]any, error) {
	p, err := qv.page()
	if err != nil {
		return nil, err
	}
	states, err := parseTIStates(qv.list("state"))
	if err != nil {
		return nil, v1TIStatePhrases.phrase(err)
	}
	q := &tiQuery{offset: p.offset, limit: p.limit, states: states, statesGiven: len(states) > 0,
		executionGTE: qv.dateTime("execution_date_gte"), executionLTE: qv.dateTime("execution_date_lte"),
		startGTE: qv.dateTime("start_date_gte"), startLTE: qv.dateTime("start_date_lte"),
		endGTE: qv.dateTime("end_date_gte"), endLTE: qv.dateTime("end_date_lte"),
		updatedGTE: qv.dateTime("updated_at_gte"), updatedLTE: qv.dateTime("updated_at_lte"),
		durationGTE: qv.number("duration_gte"), durationLTE: qv.number("duration_lte"),
		pools: nilIfEmpty(qv.list("pool")), queues: nilIfEmpty(qv.list("queue")), executorsGiven: len(qv.list("executor")) > 0}
	if dagID != "~" {
		q.dagIDs = []string{dagID}
	}
	if runID != "~" {
		q.runIDs = []string{runID}
	}
	tis, total, err := s.fetchTaskInstances(q)
	if err != nil {
		return nil, err
	}
	return map[string]any{"task_instances": tis, "total_entries": total}, nil
}

func nilIfEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

// listTIsFormSchema is components/schemas/ListTaskInstanceForm.
var listTIsFormSchema = bodySchema{
	{name: "page_offset", typ: "integer", minimum: minimum(0), checks: []string{"type", "minimum"}},
	{name: "page_limit", typ: "integer", minimum: minimum(1), checks: []string{"type", "minimum"}},
	{name: "dag_ids", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	{name: "dag_run_ids", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	{name: "task_ids", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	rw("execution_date_gte", "string", false, "type", "format"), rw("execution_date_lte", "string", false, "type", "format"),
	rw("start_date_gte", "string", false, "type", "format"), rw("start_date_lte", "string", false, "type", "format"),
	rw("end_date_gte", "string", false, "type", "format"), rw("end_date_lte", "string", false, "type", "format"),
	rw("duration_gte", "number", false), rw("duration_lte", "number", false),
	// items: TaskState, a nullable string enum with null among its values
	{name: "state", typ: "array", checks: []string{"type", "items"}, itemType: "string", itemNullable: true, enum: tiStateEnum},
	{name: "pool", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	{name: "queue", typ: "array", itemType: "string", checks: []string{"type", "items"}},
	{name: "executor", typ: "array", itemType: "string", checks: []string{"type", "items"}},
}

func checkListTIsForm(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, listTIsFormSchema)
	if err != nil {
		return nil, err
	}
	known := make([]string, len(listTIsFormSchema))
	for i, p := range listTIsFormSchema {
		known[i] = p.name
	}
	return body, unknownFields(body, known)
}

// V1GetTaskInstancesBatch is POST /dags/~/dagRuns/~/taskInstances/list.
func (s *server) V1GetTaskInstancesBatch(body map[string]any) (map[string]any, error) {
	strs := func(key string) []string {
		list, ok := body[key].([]any)
		if !ok {
			return nil
		}
		out := make([]string, 0, len(list))
		for _, item := range list {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		// Each list is _apply_array_filter's column.in_(values).
		return inList(out)
	}
	date := func(key string) *time.Time {
		t, err := parseRFC3339(fmt.Sprint(body[key]))
		if err != nil {
			return nil
		}
		return &t
	}
	num := func(key string) *float64 {
		n, ok := body[key].(json.Number)
		if !ok {
			return nil
		}
		f, err := n.Float64()
		if err != nil {
			return nil
		}
		return &f
	}
	q := &tiQuery{offset: 0, limit: 100, dagIDs: strs("dag_ids"), runIDs: strs("dag_run_ids"), taskIDs: strs("task_ids"),
		executionGTE: date("execution_date_gte"), executionLTE: date("execution_date_lte"),
		startGTE: date("start_date_gte"), startLTE: date("start_date_lte"), endGTE: date("end_date_gte"), endLTE: date("end_date_lte"),
		durationGTE: num("duration_gte"), durationLTE: num("duration_lte"), pools: strs("pool"), queues: strs("queue"),
		executorsGiven: body["executor"] != nil}
	if n, ok := body["page_offset"].(json.Number); ok {
		i, _ := n.Int64()
		q.offset = int(i)
	}
	if n, ok := body["page_limit"].(json.Number); ok {
		i, _ := n.Int64()
		q.limit = int(i)
	}
	if list, ok := body["state"].([]any); ok {
		var names []string
		for _, item := range list {
			if item == nil {
				names = append(names, "none")
			} else {
				names = append(names, fmt.Sprint(item))
			}
		}
		states, err := parseTIStates(names)
		if err != nil {
			return nil, v1TIStatePhrases.phrase(err)
		}
		q.states, q.statesGiven = states, true
	}
	if len(q.dagIDs) == 0 {
		q.dagIDs = nil
	}
	tis, total, err := s.fetchTaskInstances(q)
	if err != nil {
		return nil, err
	}
	return map[string]any{"task_instances": tis, "total_entries": total}, nil
}

// V1GetTaskInstance is GET …/taskInstances/{task_id}.
func (s *server) V1GetTaskInstance(dagID, runID, taskID string) (map[string]any, error) {
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	var tis []*TaskInstance
	if err == nil {
		tis, err = s.opts.Store.TaskInstancesOfTask(dagID, runID, taskID)
	}
	switch {
	case errors.Is(err, errNotFound) || (err == nil && len(tis) == 0):
		return nil, &problem{status: http.StatusNotFound, title: "Task instance not found"}
	case err != nil:
		return nil, err
	case len(tis) > 1 || tis[0].MapIndex != -1:
		// An expanded mapped task has rows of its instances only (2.10.3
		// task_instance_endpoint.py get_task_instance: more than one row,
		// or one whose map_index is not -1).
		return nil, v1NotFound("Task instance not found", "Task instance is mapped, add the map_index value to the URL")
	}
	return v1TaskInstance(tis[0], run), nil
}

// strOrNil is a nullable string as the answers render it.
func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// v1TaskInstanceRow finds a run's task instance, or NotFound with title.
func (s *server) v1TaskInstanceRow(dagID, runID, taskID, title string) (*DagRun, *TaskInstance, error) {
	run, ti, err := s.ops.taskInstance(dagID, runID, taskID)
	if errors.Is(err, errNotFound) {
		return nil, nil, &problem{status: http.StatusNotFound, title: title}
	}
	return run, ti, err
}

// logMetadata is what get_log reads from a continuation token.
type logMetadata struct {
	DownloadLogs bool `json:"download_logs"`
	EndOfLog     bool `json:"end_of_log"`
	LogPos       int  `json:"log_pos"`
}

// logPosition is the metadata a log read hands back in its token.
type logPosition struct {
	EndOfLog bool `json:"end_of_log"`
	LogPos   int  `json:"log_pos"`
}

// v1Log is one read of a try's log: its text from the token's position,
// and the token for the next read.
type v1Log struct {
	host, text, token string
}

// V1GetLog is GET …/taskInstances/{task_id}/logs/{task_try_number}: the
// output airlite captured of that try. A token continues from where the
// last read ended; full_content (or a token made with it) reads all.
func (s *server) V1GetLog(dagID, runID, taskID string, try int, qv v1Values) (*v1Log, error) {
	meta := logMetadata{}
	if token, ok := qv.str("token"); ok && token != "" {
		raw, err := loadSignedJSON(s.v1Secret, token)
		if err == nil {
			err = json.Unmarshal(raw, &meta)
		}
		if err != nil {
			return nil, &problem{status: http.StatusBadRequest, title: "Bad Signature. Please use only the tokens provided by the API."}
		}
	}
	full, _ := qv.boolean("full_content")
	meta.DownloadLogs = meta.DownloadLogs || full
	// The task instance of map_index (2.10.3 log_endpoint.py:88-98).
	_, ti, err := s.ops.taskInstanceAt(dagID, runID, taskID, qv.integer("map_index", -1))
	if errors.Is(err, errNotFound) {
		return nil, &problem{status: http.StatusNotFound, title: "TaskInstance not found"}
	}
	if err != nil {
		return nil, err
	}
	l, err := s.opts.Store.TaskLogOf(ti.key())
	if err != nil {
		return nil, err
	}
	text := ""
	if l != nil {
		for _, t := range l.Tries {
			if t.Try == try {
				text = t.Output
			}
		}
	}
	from := meta.LogPos
	if meta.DownloadLogs || from > len(text) {
		from = 0
	}
	out := text[from:]
	// The next token is the file task handler's metadata alone:
	// read_log_chunks replaces get_log's, so download_logs is not carried
	// (2.10.3 api_connexion/endpoints/log_endpoint.py:73-76,
	// utils/log/file_task_handler.py:428).
	token, err := signJSON(s.v1Secret, logPosition{
		EndOfLog: !(ti.State == TaskRunning && ti.TryNumber == try),
		LogPos:   len(text),
	})
	if err != nil {
		return nil, err
	}
	return &v1Log{host: ti.Hostname, text: out, token: token}, nil
}

// writeV1Log answers a log read: JSON (the default, and for
// application/json) with the content as Airflow's log reader gives it,
// str() of a list of (host, text) pairs; text/plain as the host, the text
// and a newline.
func (s *server) writeV1Log(w http.ResponseWriter, r *http.Request, l *v1Log) {
	if bestMatch(r.Header.Get("Accept"), "text/plain", "application/json") == "text/plain" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(l.host + "\n" + l.text + "\n"))
		}
		return
	}
	content := "[" + pyRepr(pyTuple{l.host, l.text}) + "]"
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"content": content, "continuation_token": l.token})
}

// number is a parameter checked as a number by validateQuery.
func (v v1Values) number(name string) *float64 {
	s, ok := v.str(name)
	if !ok {
		return nil
	}
	var f float64
	if _, err := fmt.Sscan(strings.TrimSpace(s), &f); err != nil {
		return nil
	}
	return &f
}

// tiRef is TaskInstanceReferenceSchema.
func tiRef(n tiName) map[string]any {
	return map[string]any{"dag_id": n.dagID, "dag_run_id": n.runID, "execution_date": isoFormat(n.date), "task_id": n.taskID}
}

// tiRefs is a list of TaskInstanceReferenceSchema.
func tiRefs(names []tiName) []any {
	refs := make([]any, len(names))
	for i, n := range names {
		refs[i] = tiRef(n)
	}
	return refs
}

// newStateSchema is UpdateTaskState as a property.
var newStateProp = bodyProp{name: "new_state", typ: "string", enum: []string{"success", "failed", "skipped"}, checks: []string{"type", "enum"}}

var patchTISchema = bodySchema{rw("dry_run", "boolean", false), newStateProp}

func checkPatchTIBody(v any) (map[string]any, error) {
	return checkBodySchema(v, patchTISchema)
}

// V1PatchTaskInstance is PATCH …/taskInstances/{task_id}: new_state, not
// applied with dry_run (the default); the task instance's reference
// (and its {map_index} variant, patch_mapped_task_instance: that task
// instance alone).
func (s *server) V1PatchTaskInstance(dagID, runID, taskID string, mapIndex int64, body map[string]any) (map[string]any, error) {
	// SetSingleTaskInstanceStateFormSchema (task_instance_schema.py:228).
	if err := v1FormErrors(body, []string{"dry_run", "new_state"}, []string{"new_state"}, nil); err != nil {
		return nil, err
	}
	dryRun := true
	if v, ok := body["dry_run"].(bool); ok {
		dryRun = v
	}
	name, err := s.ops.patchTaskInstance(dagID, runID, taskID, mapIndex, TaskState(body["new_state"].(string)), dryRun)
	if err != nil {
		return nil, v1PatchTIPhrases.phrase(err)
	}
	return tiRef(name), nil
}

var setTIsStateSchema = bodySchema{
	rw("dry_run", "boolean", false), rw("task_id", "string", false), rw("execution_date", "string", false),
	rw("dag_run_id", "string", false), rw("include_upstream", "boolean", false), rw("include_downstream", "boolean", false),
	rw("include_future", "boolean", false), rw("include_past", "boolean", false), newStateProp,
}

func checkSetTIsStateBody(v any) (map[string]any, error) {
	return checkBodySchema(v, setTIsStateSchema)
}

// V1SetTaskInstancesState is POST /dags/{dag_id}/updateTaskInstancesState:
// a task of one run (by dag_run_id or execution_date) and, as asked, its
// upstream and downstream tasks, in that run and, with include_future
// and include_past, in the runs runsToMark picks.
func (s *server) V1SetTaskInstancesState(dagID string, body map[string]any) (map[string]any, error) {
	// SetTaskInstanceStateFormSchema (task_instance_schema.py:206).
	known := make([]string, len(setTIsStateSchema))
	for i, p := range setTIsStateSchema {
		known[i] = p.name
	}
	if err := v1FormErrors(body, known, []string{"task_id", "include_upstream", "include_downstream", "include_future",
		"include_past", "new_state"}, []string{"execution_date"}); err != nil {
		return nil, err
	}
	_, hasDate := body["execution_date"]
	_, hasRun := body["dag_run_id"]
	if hasDate == hasRun {
		return nil, v1BadRequest("{'_schema': ['Exactly one of execution_date or dag_run_id must be provided']}")
	}
	req := markRequest{dagID: dagID, taskID: body["task_id"].(string), state: TaskState(body["new_state"].(string)), dryRun: true}
	if hasDate {
		req.date, _, _ = mmDateTime(body["execution_date"].(string)) // v1FormErrors read it
	} else {
		req.runID = body["dag_run_id"].(string)
	}
	req.upstream, _ = body["include_upstream"].(bool)
	req.downstream, _ = body["include_downstream"].(bool)
	if v, ok := body["dry_run"].(bool); ok {
		req.dryRun = v
	}
	req.future, _ = body["include_future"].(bool)
	req.past, _ = body["include_past"].(bool)
	names, err := s.ops.markTaskInstances(req)
	if err != nil {
		return nil, v1MarkTIsPhrases.phrase(err)
	}
	return map[string]any{"task_instances": tiRefs(names)}, nil
}

var clearTIsSchema = bodySchema{
	// start_date and end_date have format "datetime", which connexion
	// does not know: the schema checks them (v1ClearDates).
	rw("dry_run", "boolean", false), {name: "task_ids", typ: "array", itemType: "string", minLen: 1, checks: []string{"type", "items", "minItems"}}, rw("start_date", "string", false, "type"),
	rw("end_date", "string", false, "type"), rw("only_failed", "boolean", false), rw("only_running", "boolean", false),
	rw("include_subdags", "boolean", false), rw("include_parentdag", "boolean", false), rw("reset_dag_runs", "boolean", false),
	rw("dag_run_id", "string", true), rw("include_upstream", "boolean", false), rw("include_downstream", "boolean", false),
	rw("include_future", "boolean", false), rw("include_past", "boolean", false),
}

func checkClearTIsBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, clearTIsSchema)
	if err != nil {
		return nil, err
	}
	known := make([]string, len(clearTIsSchema))
	for i, p := range clearTIsSchema {
		known[i] = p.name
	}
	return body, unknownFields(body, known)
}

// V1ClearTaskInstances is POST /dags/{dag_id}/clearTaskInstances: the
// task instances of the runs in range (one run by dag_run_id, or logical
// dates between start_date and end_date), of the tasks named and, as
// asked, their relatives, with include_subdags the sub-DAGs' and with
// include_parentdag the parent's (addClearTargets), by default only
// failed ones; dry_run (the default) lists them, otherwise they are
// cleared.
func (s *server) V1ClearTaskInstances(dagID string, body map[string]any) (map[string]any, error) {
	flag := func(k string, def bool) bool {
		if v, ok := body[k].(bool); ok {
			return v
		}
		return def
	}
	start, end, err := v1ClearDates(body)
	if err != nil {
		return nil, err
	}
	onlyFailed, onlyRunning := flag("only_failed", true), flag("only_running", false)
	runID, _ := body["dag_run_id"].(string)
	schemaErr := func(msg string) error { return v1BadRequest("{'_schema': ['" + msg + "']}") }
	switch {
	case onlyFailed && onlyRunning:
		return nil, schemaErr("only_failed and only_running both are set to True")
	case start != nil && end != nil && start.After(*end):
		return nil, schemaErr("end_date is sooner than start_date")
	case start != nil && end != nil && runID != "":
		return nil, schemaErr("Exactly one of dag_run_id or (start_date and end_date) must be provided")
	case start != nil && runID != "":
		return nil, schemaErr("Exactly one of dag_run_id or start_date must be provided")
	case end != nil && runID != "":
		return nil, schemaErr("Exactly one of dag_run_id or end_date must be provided")
	}
	req := clearRequest{dagID: dagID, runID: runID, start: start, end: end,
		upstream: flag("include_upstream", false), downstream: flag("include_downstream", false),
		future: flag("include_future", false), past: flag("include_past", false),
		subdags: flag("include_subdags", false), parentdag: flag("include_parentdag", false),
		onlyFailed: onlyFailed, onlyRunning: onlyRunning,
		resetRuns: flag("reset_dag_runs", false), dryRun: flag("dry_run", true)}
	if list, ok := body["task_ids"].([]any); ok {
		req.taskIDs = make([]string, 0, len(list))
		for _, item := range list {
			id, _ := item.(string)
			req.taskIDs = append(req.taskIDs, id)
		}
	}
	names, err := s.ops.clearTaskInstances(req)
	if err != nil {
		return nil, v1ClearTIsPhrases.phrase(err)
	}
	return map[string]any{"task_instances": tiRefs(names)}, nil
}

// renderedFields is TaskInstanceSchema's rendered_fields: the last try's
// rendered template fields, {} before any try rendered them.
func renderedFields(ti *TaskInstance) map[string]any {
	if ti.Rendered == nil {
		return map[string]any{}
	}
	return ti.Rendered
}
