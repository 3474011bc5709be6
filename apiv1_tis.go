package main

// The stable API's task instances and their logs (Airflow 2.10.3
// airflow/api_connexion/endpoints/task_instance_endpoint.py,
// log_endpoint.py, schemas/task_instance_schema.py).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
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
		"map_index":          -1,
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
		"rendered_map_index": nil,
		"rendered_fields":    renderedFields(ti),
		"trigger":            nil,
		"triggerer_job":      nil,
	}
}

// tiQuery is the filters of the task-instance listings.
type tiQuery struct {
	dagIDs, runIDs, taskIDs    []string // nil: any
	executionGTE, executionLTE *time.Time
	startGTE, startLTE         *time.Time
	endGTE, endLTE             *time.Time
	updatedGTE, updatedLTE     *time.Time
	durationGTE, durationLTE   *float64
	states                     []TaskState // "" is Airflow's None
	statesGiven                bool
	pools, queues, executors   []string
	executorsGiven             bool
	offset, limit              int
}

func (q *tiQuery) match(ti *TaskInstance, run *DagRun) bool {
	if q.taskIDs != nil && !slices.Contains(q.taskIDs, ti.TaskID) {
		return false
	}
	if q.statesGiven && !slices.Contains(q.states, ti.State) {
		return false
	}
	if q.pools != nil && !slices.Contains(q.pools, ti.Pool) {
		return false
	}
	if q.queues != nil && !slices.Contains(q.queues, ti.Queue) {
		return false
	}
	if q.executorsGiven { // airlite's task instances have no executor (NULL)
		return false
	}
	if (q.durationGTE != nil || q.durationLTE != nil) &&
		(ti.Duration == nil || (q.durationGTE != nil && *ti.Duration < *q.durationGTE) || (q.durationLTE != nil && *ti.Duration > *q.durationLTE)) {
		return false
	}
	date := run.ExecutionDate
	return inRange(&date, q.executionGTE, q.executionLTE) && inRange(ti.StartDate, q.startGTE, q.startLTE) &&
		inRange(ti.EndDate, q.endGTE, q.endLTE) && inRange(ti.UpdatedAt, q.updatedGTE, q.updatedLTE)
}

// unfiltered reports whether q keeps every task instance of the runs it
// names.
func (q *tiQuery) unfiltered() bool {
	return q.taskIDs == nil && !q.statesGiven && q.pools == nil && q.queues == nil && !q.executorsGiven &&
		q.durationGTE == nil && q.durationLTE == nil && q.executionGTE == nil && q.executionLTE == nil &&
		q.startGTE == nil && q.startLTE == nil && q.endGTE == nil && q.endLTE == nil &&
		q.updatedGTE == nil && q.updatedLTE == nil
}

// parseTIStates is _convert_ti_states: "none" is no state; a name that is
// no task-instance state is refused (Airflow raises a ValueError, a 500).
func parseTIStates(names []string) ([]TaskState, error) {
	out := make([]TaskState, 0, len(names))
	for _, n := range names {
		if n == "none" {
			out = append(out, TaskNone)
			continue
		}
		switch s := TaskState(n); {
		case s.Known() && s != TaskNone, n == "deferred", n == "removed", n == "restarting", n == "up_for_reschedule":
			out = append(out, s)
		default:
			return nil, v1BadRequest(fmt.Sprintf("'%s' is not a valid TaskInstanceState", n))
		}
	}
	return out, nil
}

// fetchTaskInstances is the listing: the runs the query names (every run
// of a DAG, or of every DAG), their task instances by DAG, logical date
// and task_id, then the page. Every run's task instances, unfiltered,
// are the store's TaskInstancePage, which reads the page and the runs
// before it; otherwise every run named is read.
func (s *server) fetchTaskInstances(q *tiQuery) ([]any, int, error) {
	store := s.opts.Store
	dagIDs := q.dagIDs
	if dagIDs == nil {
		rows, err := store.Dags()
		if err != nil {
			return nil, 0, err
		}
		for _, row := range rows {
			dagIDs = append(dagIDs, row.DagID)
		}
	}
	sort.Strings(dagIDs)
	dagIDs = slices.Compact(dagIDs)
	if q.runIDs == nil && q.unfiltered() {
		page, total, err := store.TaskInstancePage(dagIDs, q.offset, q.limit)
		if err != nil {
			return nil, 0, err
		}
		out := make([]any, len(page))
		for i, p := range page {
			out[i] = v1TaskInstance(p.TI, p.Run)
		}
		return out, total, nil
	}
	var out []any
	total := 0
	for _, dagID := range dagIDs {
		var runs []*DagRun
		if q.runIDs != nil {
			for _, runID := range q.runIDs {
				if run, err := store.RunByRunID(dagID, runID); err == nil {
					runs = append(runs, run)
				}
			}
			slices.SortFunc(runs, func(a, b *DagRun) int { return a.ExecutionDate.Compare(b.ExecutionDate) })
		} else {
			var err error
			if runs, err = store.RunsOfDag(dagID, ""); err != nil {
				return nil, 0, err
			}
		}
		for _, run := range runs {
			tis, err := store.TaskInstancesOfRun(dagID, run.RunID)
			if err != nil {
				return nil, 0, err
			}
			for _, ti := range tis {
				if !q.match(ti, run) {
					continue
				}
				if total >= q.offset && len(out) < q.limit {
					out = append(out, v1TaskInstance(ti, run))
				}
				total++
			}
		}
	}
	if out == nil {
		out = []any{}
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
		return nil, err
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
	{name: "state", typ: "array", checks: []string{"type"}},
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
		return out
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
			return nil, err
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
	run, ti, err := s.v1TaskInstanceRow(dagID, runID, taskID, "Task instance not found")
	if err != nil {
		return nil, err
	}
	return v1TaskInstance(ti, run), nil
}

// v1TaskInstanceRow finds a run's task instance, or NotFound with title.
func (s *server) v1TaskInstanceRow(dagID, runID, taskID, title string) (*DagRun, *TaskInstance, error) {
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	if err == nil {
		var ti *TaskInstance
		if ti, err = s.opts.Store.TaskInstance(dagID, runID, taskID); err == nil {
			return run, ti, nil
		}
	}
	if errors.Is(err, errNotFound) {
		return nil, nil, &problem{status: http.StatusNotFound, title: title}
	}
	return nil, nil, err
}

// logMetadata is what a log's continuation token carries, as Airflow's
// file task handler keeps it.
type logMetadata struct {
	DownloadLogs bool `json:"download_logs"`
	EndOfLog     bool `json:"end_of_log"`
	LogPos       int  `json:"log_pos"`
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
	_, ti, err := s.v1TaskInstanceRow(dagID, runID, taskID, "TaskInstance not found")
	if err != nil {
		return nil, err
	}
	logs, err := s.opts.Store.TaskLogsOfRun(dagID, runID)
	if err != nil {
		return nil, err
	}
	text := ""
	if l := logs[taskID]; l != nil {
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
	meta.LogPos = len(text)
	meta.EndOfLog = !(ti.State == TaskRunning && ti.TryNumber == try)
	token, err := signJSON(s.v1Secret, meta)
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
func tiRef(dagID, runID, taskID string, date time.Time) map[string]any {
	return map[string]any{"dag_id": dagID, "dag_run_id": runID, "execution_date": isoFormat(date), "task_id": taskID}
}

// newStateSchema is UpdateTaskState as a property.
var newStateProp = bodyProp{name: "new_state", typ: "string", enum: []string{"success", "failed", "skipped"}, checks: []string{"type", "enum"}}

var patchTISchema = bodySchema{rw("dry_run", "boolean", false), newStateProp}

func checkPatchTIBody(v any) (map[string]any, error) {
	return checkBodySchema(v, patchTISchema)
}

// setTaskStates marks the task instances of taskIDs in runs, all in one
// write, through the store's forced task state (set_task_instance_state);
// tries that stop running stop with it. With dryRun it only lists the
// task instances that would change.
func (s *server) setTaskStates(dagID string, runs []*DagRun, taskIDs []string, state TaskState, dryRun bool) ([]any, error) {
	refs := []any{}
	if dryRun {
		for _, run := range runs {
			for _, id := range taskIDs {
				ti, err := s.opts.Store.TaskInstance(dagID, run.RunID, id)
				if err == nil && ti.State != state {
					refs = append(refs, tiRef(dagID, run.RunID, id, run.ExecutionDate))
				}
			}
		}
		return refs, nil
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	runIDs := make([]string, len(runs))
	dates := make(map[string]time.Time, len(runs))
	for i, run := range runs {
		runIDs[i], dates[run.RunID] = run.RunID, run.ExecutionDate
	}
	var marked, stopped []tiKey
	err := s.withTasksStopped(func(k tiKey) bool { return slices.Contains(stopped, k) }, func() (err error) {
		marked, stopped, err = s.opts.Store.ForceTaskStatesInRuns(dagID, runIDs, taskIDs, state, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.kick()
	for _, k := range marked {
		refs = append(refs, tiRef(dagID, k.runID, k.taskID, dates[k.runID]))
	}
	return refs, nil
}

// V1PatchTaskInstance is PATCH …/taskInstances/{task_id}: new_state, not
// applied with dry_run (the default); the task instance's reference.
// A map_index other than -1 names no task instance: airlite has no
// mapped tasks.
func (s *server) V1PatchTaskInstance(dagID, runID, taskID string, mapIndex int64, body map[string]any) (map[string]any, error) {
	// SetSingleTaskInstanceStateFormSchema (task_instance_schema.py:228).
	if err := v1FormErrors(body, []string{"dry_run", "new_state"}, []string{"new_state"}, nil); err != nil {
		return nil, err
	}
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, v1NotFound("DAG not found", fmt.Sprintf("DAG %s not found", pyQuote(dagID)))
	}
	if err != nil {
		return nil, err
	}
	if row.Def.Task(taskID) == nil {
		return nil, v1NotFound("Task not found", fmt.Sprintf("Task %s not found in DAG %s", pyQuote(taskID), pyQuote(dagID)))
	}
	run, _, err := s.v1TaskInstanceRow(dagID, runID, taskID, "")
	if err == nil && mapIndex != -1 {
		err = &problem{status: http.StatusNotFound} // airlite's task instances are all unmapped
	}
	if err != nil {
		var p *problem
		if errors.As(err, &p) {
			return nil, v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on DAG run with ID %s", pyQuote(taskID), pyQuote(runID)))
		}
		return nil, err
	}
	dryRun := true
	if v, ok := body["dry_run"].(bool); ok {
		dryRun = v
	}
	if !dryRun {
		if _, err := s.setTaskStates(dagID, []*DagRun{run}, []string{taskID}, TaskState(body["new_state"].(string)), false); err != nil {
			return nil, err
		}
	}
	return tiRef(dagID, runID, taskID, run.ExecutionDate), nil
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
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag ID %s not found", dagID)}
	}
	if err != nil {
		return nil, err
	}
	taskID := body["task_id"].(string)
	task := row.Def.Task(taskID)
	if task == nil {
		return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Task ID %s not found", taskID)}
	}
	var run *DagRun
	if hasDate {
		date, _, _ := mmDateTime(body["execution_date"].(string)) // v1FormErrors read it
		run, err = s.opts.Store.RunByDate(dagID, date)
		if errors.Is(err, errNotFound) {
			return nil, v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on execution_date %s", pyQuote(taskID), strFormat(date)))
		}
	} else {
		runID := body["dag_run_id"].(string)
		run, err = s.opts.Store.RunByRunID(dagID, runID)
		if errors.Is(err, errNotFound) {
			return nil, v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on DAG run with ID %s", pyQuote(taskID), pyQuote(runID)))
		}
	}
	if err != nil {
		return nil, err
	}
	upstream, _ := body["include_upstream"].(bool)
	downstream, _ := body["include_downstream"].(bool)
	dryRun := true
	if v, ok := body["dry_run"].(bool); ok {
		dryRun = v
	}
	future, _ := body["include_future"].(bool)
	past, _ := body["include_past"].(bool)
	all, err := s.opts.Store.RunsOfDag(dagID, "")
	if err != nil {
		return nil, err
	}
	runs, err := runsToMark(row.Def, all, run, future, past)
	if err != nil {
		return nil, err
	}
	refs, err := s.setTaskStates(dagID, runs, relatives(row.Def, task, upstream, downstream), TaskState(body["new_state"].(string)), dryRun)
	if err != nil {
		return nil, err
	}
	return map[string]any{"task_instances": refs}, nil
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
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag id %s not found", dagID)}
	}
	if err != nil {
		return nil, err
	}
	if runID != "" {
		run, err := s.opts.Store.RunByRunID(dagID, runID)
		if errors.Is(err, errNotFound) {
			return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag Run id %s not found in dag %s", runID, dagID)}
		}
		if err != nil {
			return nil, err
		}
		start, end = &run.ExecutionDate, &run.ExecutionDate
	}
	if flag("include_past", false) {
		start = nil
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	if flag("include_future", false) || end == nil {
		// DAG.clear never reaches a run dated after now:
		// [scheduler] allow_trigger_in_future is false by default.
		end = &now
	}
	var taskIDs []string
	if list, ok := body["task_ids"].([]any); ok {
		seen := map[string]bool{}
		for _, item := range list {
			id, _ := item.(string)
			if task := row.Def.Task(id); task != nil {
				for _, rel := range relatives(row.Def, task, flag("include_upstream", false), flag("include_downstream", false)) {
					seen[rel] = true
				}
			}
		}
		taskIDs = sortedKeys(seen)
	}
	sel := clearSelection{start: start, end: end, subdags: flag("include_subdags", false)}
	if err := s.addClearTargets(&sel, row.Def, nil, taskIDs); err != nil {
		return nil, err
	}
	if flag("include_parentdag", false) && row.Def.ParentDagID != "" {
		// The parent's SubDagOperator that runs this DAG and its
		// downstream tasks, filtered by the same task_ids, in the parent's
		// runs in range; one level up (Airflow 2.10.3
		// airflow/models/dag.py:2012-2035).
		parent, err := s.opts.Store.DagByID(row.Def.ParentDagID)
		if err != nil && !errors.Is(err, errNotFound) {
			return nil, err
		}
		if err == nil && parent.Def != nil {
			if op := subDagOperatorOf(parent.Def, dagID); op != nil {
				if err := s.addClearTargets(&sel, parent.Def, relatives(parent.Def, op, false, true), taskIDs); err != nil {
					return nil, err
				}
			}
		}
	}
	dryRun, reset := flag("dry_run", true), flag("reset_dag_runs", false)
	refs := []any{}
	for _, tg := range sel.targets {
		dagID, run := tg.dagID, tg.run
		tis, err := s.opts.Store.TaskInstancesOfRun(dagID, run.RunID)
		if err != nil {
			return nil, err
		}
		var picked []string
		for _, ti := range tis {
			switch {
			case tg.tasks != nil && !slices.Contains(tg.tasks, ti.TaskID),
				onlyFailed && ti.State != TaskFailed && ti.State != TaskUpstreamFailed,
				onlyRunning && ti.State != TaskRunning:
				continue
			}
			picked = append(picked, ti.TaskID)
			refs = append(refs, tiRef(dagID, run.RunID, ti.TaskID, run.ExecutionDate))
		}
		if dryRun || len(picked) == 0 {
			continue
		}
		var stopped []tiKey
		err = s.withTasksStopped(func(k tiKey) bool { return slices.Contains(stopped, k) }, func() (err error) {
			stopped, err = s.opts.Store.ClearTaskInstances(dagID, run.RunID, picked, reset, now)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if !dryRun {
		s.kick()
	}
	return map[string]any{"task_instances": refs}, nil
}

// renderedFields is TaskInstanceSchema's rendered_fields: the last try's
// rendered template fields, {} before any try rendered them.
func renderedFields(ti *TaskInstance) map[string]any {
	if ti.Rendered == nil {
		return map[string]any{}
	}
	return ti.Rendered
}
