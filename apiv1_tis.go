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
	var state, duration, pid any
	if ti.State != TaskNone {
		state = string(ti.State)
	}
	if ti.Duration != nil {
		duration = *ti.Duration
	}
	if ti.PID != nil {
		pid = *ti.PID
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
		"note":               nil,
		"sla_miss":           nil,
		"rendered_map_index": nil,
		"rendered_fields":    map[string]any{},
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
// and task_id, then the page.
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
	var out []any
	total := 0
	for _, dagID := range slices.Compact(dagIDs) {
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
