package main

// The stable API's other views of one task instance: its tries, the
// {map_index} variants of its operations, listMapped and its extra links
// (Airflow 2.10.3 airflow/api_connexion/endpoints/task_instance_endpoint.py,
// extra_link_endpoint.py, schemas/task_instance_schema.py). A task
// instance is (dag_id, run_id, task_id, map_index): -1, or 0..n-1 for a
// mapped task's expanded instances. A task instance's earlier tries are
// the store's TaskInstanceHistory rows.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// v1TaskInstanceTry is TaskInstanceHistorySchema's dump of a try, an
// earlier one or the task instance's current one: TaskInstanceSchema's
// fields without the run's date, the note, the SLA miss, the rendered
// fields and the trigger.
func v1TaskInstanceTry(ti *TaskInstance, run *DagRun) map[string]any {
	out := v1TaskInstance(ti, run)
	for _, k := range []string{"execution_date", "note", "sla_miss", "rendered_map_index", "rendered_fields", "trigger", "triggerer_job"} {
		delete(out, k)
	}
	return out
}

// pathMapIndex is a {map_index} path parameter, checked as an integer.
func pathMapIndex(req *v1Request) int64 {
	n, _ := strconv.ParseInt(req.path["map_index"], 10, 64)
	return n
}

// V1GetTaskInstanceTries is GET …/taskInstances/{task_id}/tries (and its
// {map_index} variant): the earlier tries in try order, then the task
// instance, of that map index; an empty list when there are none, as
// Airflow answers (airflow/api_connexion/endpoints/
// task_instance_endpoint.py:824-848: history rows, then the task
// instance, no 404). limit, offset and order_by are ignored, as there.
func (s *server) V1GetTaskInstanceTries(dagID, runID, taskID string, mapIndex int64) (map[string]any, error) {
	tries := []any{}
	run, ti, earlier, err := s.v1Tries(dagID, runID, taskID, mapIndex)
	if err != nil {
		return nil, err
	}
	for _, t := range earlier {
		tries = append(tries, v1TaskInstanceTry(t, run))
	}
	if ti != nil {
		tries = append(tries, v1TaskInstanceTry(ti, run))
	}
	return map[string]any{"task_instances": tries, "total_entries": len(tries)}, nil
}

// V1GetTaskInstanceTry is GET …/tries/{task_try_number} (and its
// {map_index} variant): the try of that number, the task instance's own
// first, then its earlier ones (task_instance_endpoint.py:794), so that
// after a clear, which keeps the try number, the task instance answers.
func (s *server) V1GetTaskInstanceTry(dagID, runID, taskID string, mapIndex int64, try int64) (map[string]any, error) {
	run, ti, earlier, err := s.v1Tries(dagID, runID, taskID, mapIndex)
	if err != nil {
		return nil, err
	}
	if ti != nil && int64(ti.TryNumber) == try {
		return v1TaskInstanceTry(ti, run), nil
	}
	for _, t := range earlier {
		if int64(t.TryNumber) == try {
			return v1TaskInstanceTry(t, run), nil
		}
	}
	return nil, v1NotFound("Task instance not found", fmt.Sprintf(
		"Task Instance not found for dag_id=%s, run_id=%s, task_id=%s, map_index=%d, try_number=%d.", dagID, runID, taskID, mapIndex, try))
}

// v1Tries finds a task instance of a map index and its earlier tries; a
// task instance that does not exist is nil, not an error.
func (s *server) v1Tries(dagID, runID, taskID string, mapIndex int64) (*DagRun, *TaskInstance, []*TaskInstance, error) {
	run, ti, err := s.ops.taskInstanceAt(dagID, runID, taskID, mapIndex)
	switch {
	case errors.Is(err, errNotFound):
		return nil, nil, nil, nil
	case err != nil:
		return nil, nil, nil, err
	}
	earlier, _, err := s.opts.Store.EarlierTries(dagID, runID, taskID, ti.MapIndex)
	if err != nil {
		return nil, nil, nil, err
	}
	return run, ti, earlier, nil
}

// V1GetMappedTaskInstance is GET …/taskInstances/{task_id}/{map_index}:
// the task instance of that map index (2.10.3 task_instance_endpoint.py
// get_mapped_task_instance: one query on (dag_id, run_id, task_id,
// map_index)).
func (s *server) V1GetMappedTaskInstance(dagID, runID, taskID string, mapIndex int64) (map[string]any, error) {
	run, ti, err := s.ops.taskInstanceAt(dagID, runID, taskID, mapIndex)
	if errors.Is(err, errNotFound) {
		return nil, &problem{status: http.StatusNotFound, title: "Task instance not found"}
	}
	if err != nil {
		return nil, err
	}
	return v1TaskInstance(ti, run), nil
}

// V1GetMappedTaskInstances is GET …/taskInstances/{task_id}/listMapped:
// the expanded instances of a run's mapped task, by map_index (2.10.3
// task_instance_endpoint.py get_mapped_task_instances, map_index >= 0),
// filtered by state, a page of them. None found is a 404 naming why, the
// text as the title and no detail: its DAG or the task is unknown, or the
// task is not mapped; a mapped task not (or not yet) expanded answers an
// empty list.
func (s *server) V1GetMappedTaskInstances(dagID, runID, taskID string, q v1Values) (map[string]any, error) {
	// The states are converted before any lookup (2.10.3
	// task_instance_endpoint.py:188): a name that is no state crashes first.
	states, err := parseTIStates(q.list("state"))
	if err != nil {
		return nil, v1TIStatePhrases.phrase(err)
	}
	pg, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("map_index", []string{"map_index", "state", "start_date", "end_date", "duration", "try_number"})
	if err != nil {
		return nil, err
	}
	var mapped []*TaskInstance
	run, err := s.opts.Store.RunByRunID(dagID, runID)
	byIndex := len(states) == 0 && attr == "map_index" // the run's row's order: the page alone is read
	n := 0
	if err == nil {
		if byIndex {
			if mapped, n, err = s.opts.Store.MappedTaskInstancePage(dagID, runID, taskID, desc, pg.offset, pg.limit); err != nil {
				return nil, err
			}
		} else {
			tis, err := s.opts.Store.TaskInstancesOfTask(dagID, runID, taskID)
			if err != nil {
				return nil, err
			}
			for _, ti := range tis {
				if ti.MapIndex >= 0 {
					mapped = append(mapped, ti)
				}
			}
			n = len(mapped)
		}
	}
	if n == 0 {
		row, err := s.opts.Store.DagByID(dagID)
		switch {
		case errors.Is(err, errNotFound) || (err == nil && row.Def == nil):
			return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("DAG %s not found", dagID)}
		case err != nil:
			return nil, err
		case row.Def.Task(taskID) == nil:
			return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Task id %s not found", taskID)}
		case row.Def.Task(taskID).Mapping == nil:
			return nil, &problem{status: http.StatusNotFound, title: fmt.Sprintf("Task id %s is not mapped", taskID)}
		}
		return map[string]any{"task_instances": []any{}, "total_entries": 0}, nil
	}
	if byIndex {
		rows := make([]any, 0, len(mapped))
		for _, ti := range mapped {
			rows = append(rows, v1TaskInstance(ti, run))
		}
		return map[string]any{"task_instances": rows, "total_entries": n}, nil
	}
	kept := make([]*TaskInstance, 0, len(mapped))
	for _, ti := range mapped {
		if len(states) == 0 || slices.Contains(states, ti.State) {
			kept = append(kept, ti)
		}
	}
	slices.SortStableFunc(kept, func(a, b *TaskInstance) int {
		c := cmp.Compare(a.MapIndex, b.MapIndex)
		switch attr {
		case "state":
			c = cmp.Or(strings.Compare(string(a.State), string(b.State)), c)
		case "try_number":
			c = cmp.Or(cmp.Compare(a.TryNumber, b.TryNumber), c)
		case "start_date", "end_date", "duration":
			c = cmp.Or(compareMappedBy(attr, a, b), c)
		}
		if desc {
			return -c
		}
		return c
	})
	rows := []any{}
	for i := pg.offset; i < len(kept) && i < pg.offset+pg.limit; i++ {
		rows = append(rows, v1TaskInstance(kept[i], run))
	}
	return map[string]any{"task_instances": rows, "total_entries": len(kept)}, nil
}

// compareMappedBy orders two instances by a date or their duration,
// nulls first.
func compareMappedBy(attr string, a, b *TaskInstance) int {
	if attr == "duration" {
		return cmp.Compare(derefOr(a.Duration, -1), derefOr(b.Duration, -1))
	}
	at, bt := a.StartDate, b.StartDate
	if attr == "end_date" {
		at, bt = a.EndDate, b.EndDate
	}
	switch {
	case at == nil && bt == nil:
		return 0
	case at == nil:
		return -1
	case bt == nil:
		return 1
	}
	return at.Compare(*bt)
}

func derefOr(f *float64, def float64) float64 {
	if f == nil {
		return def
	}
	return *f
}

// V1GetExtraLinks is GET …/taskInstances/{task_id}/links: a Python
// file's TriggerDagRunOperator answers its "Triggered DAG" link
// (v1TriggeredDagLink); the other operators airlite runs have no extra
// links in Airflow 2.10.3 (BashOperator, EmptyOperator, PythonOperator,
// SubDagOperator, ...), so the answer is {} for their task instances.
func (s *server) V1GetExtraLinks(dagID, runID, taskID string) (map[string]any, error) {
	row, err := s.opts.Store.DagByID(dagID)
	switch {
	case errors.Is(err, errNotFound) || (err == nil && row.Def == nil):
		return nil, v1NotFound("DAG not found", fmt.Sprintf(`DAG with ID = "%s" not found`, dagID))
	case err != nil:
		return nil, err
	case row.Def.Task(taskID) == nil:
		return nil, v1NotFound("Task not found", fmt.Sprintf(`Task with ID = "%s" not found`, taskID))
	}
	if _, err := s.opts.Store.TaskInstance(dagID, runID, taskID); errors.Is(err, errNotFound) {
		return nil, v1NotFound("DAG Run not found", fmt.Sprintf(`DAG Run with ID = "%s" not found`, runID))
	} else if err != nil {
		return nil, err
	}
	links := map[string]any{}
	if trigger := row.Def.Task(taskID).TriggerDagRun; trigger != nil {
		link, err := s.v1TriggeredDagLink(dagID, runID, taskID, trigger)
		if err != nil {
			return nil, err
		}
		links["Triggered DAG"] = link
	}
	return links, nil
}

// v1TriggeredDagLink is 2.10.3's TriggerDagRunLink.get_link
// (airflow/operators/trigger_dagrun.py:72-80, utils/helpers.py
// build_airflow_url_with_query): Flask's url_for of the webserver's
// default view, grid ([webserver] dag_default_view), for the operator's
// trigger_dag_id as the file wrote it (the serialized operator keeps its
// templates unrendered) and, as the query, the run id the try pushed as
// trigger_run_id; werkzeug 2.2 leaves out a None value (no XCom).
func (s *server) v1TriggeredDagLink(dagID, runID, taskID string, trigger *TriggerDagRunArgs) (string, error) {
	link := "/dags/" + werkzeugQuote(trigger.DagID, "/:", "") + "/grid"
	e, err := s.ops.xcomEntry(dagID, runID, taskID, "trigger_run_id", -1)
	if errors.Is(err, errNotFound) {
		return link, nil
	}
	if err != nil {
		return "", err
	}
	var triggered any
	if err := json.Unmarshal(e.Value, &triggered); err != nil {
		return "", fmt.Errorf("read trigger_run_id of %s.%s: %w", dagID, taskID, err)
	}
	if triggered == nil {
		return link, nil
	}
	return link + "?dag_run_id=" + werkzeugQuotePlus(pyStrValue(triggered)), nil
}

// werkzeugQuote is werkzeug 2.2's _make_fast_url_quote (urls.py): UTF-8
// bytes, each one outside the always-safe set (letters, digits, -._~ and
// $!'()*+,;) and safe, or in unsafe, %XX-escaped.
func werkzeugQuote(text, safe, unsafe string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		kept := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~$!'()*+,;", c) >= 0 || strings.IndexByte(safe, c) >= 0
		if kept && strings.IndexByte(unsafe, c) < 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// werkzeugQuotePlus is werkzeug 2.2's _fast_url_quote_plus, a query
// value's quoting: "+" escaped, a space written "+".
func werkzeugQuotePlus(text string) string {
	return strings.ReplaceAll(werkzeugQuote(text, " ", "+"), " ", "+")
}

// maxTaskInstanceNoteChars is SetTaskInstanceNoteFormSchema's
// Length(max=1000) on note.
const maxTaskInstanceNoteChars = 1000

// setTINoteSchema is components/schemas/SetTaskInstanceNote: note is
// required, a string.
var setTINoteSchema = bodySchema{rw("note", "string", false)}

// checkSetTINoteBody is connexion's check (a required property is
// jsonschema's "'note' is a required property"), then
// SetTaskInstanceNoteFormSchema's load: note (nullable there, at most
// 1000 characters) and map_index (an integer, read and ignored).
func checkSetTINoteBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, setTINoteSchema)
	if err != nil {
		return nil, err
	}
	if _, ok := body["note"]; !ok {
		return nil, v1BadRequest("'note' is a required property")
	}
	_, msg := marshmallowLoad(body, []mmField{
		{name: "map_index", kind: "integer"},
		{name: "note", allowNone: true, maxLen: maxTaskInstanceNoteChars},
	}, false)
	if msg != "" {
		return nil, v1BadRequest(msg)
	}
	return body, nil
}

// V1SetTaskInstanceNote is PATCH …/taskInstances/{task_id}/setNote and
// its {map_index} variant: the task instance with its new note.
func (s *server) V1SetTaskInstanceNote(dagID, runID, taskID string, mapIndex int64, body map[string]any) (map[string]any, error) {
	notFound := &problem{status: http.StatusNotFound,
		title: fmt.Sprintf("Task Instance not found for dag_id=%s, run_id=%s, task_id=%s", dagID, runID, taskID)}
	var note *string
	if n, ok := body["note"].(string); ok {
		note = &n
	}
	run, ti, err := s.ops.setTaskInstanceNote(dagID, runID, taskID, mapIndex, note)
	if errors.Is(err, errNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return v1TaskInstance(ti, run), nil
}
