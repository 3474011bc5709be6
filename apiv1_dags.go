package main

// The stable API's DAG resources: /dags, /dags/{dag_id}, its details,
// tasks, sources and statistics (Airflow 2.10.3
// airflow/api_connexion/endpoints/dag_endpoint.py, task_endpoint.py,
// dag_source_endpoint.py, dag_stats_endpoint.py).

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// v1DagFields are the keys of DAGSchema, for ?fields=.
var v1DagFields = []string{"dag_id", "dag_display_name", "root_dag_id", "is_paused", "is_active", "is_subdag",
	"last_parsed_time", "last_pickled", "last_expired", "scheduler_lock", "pickle_id", "default_view", "fileloc",
	"file_token", "owners", "description", "schedule_interval", "timetable_description", "tags",
	"max_active_tasks", "max_active_runs", "max_consecutive_failed_dag_runs", "has_task_concurrency_limits",
	"has_import_errors", "next_dagrun", "next_dagrun_data_interval_start", "next_dagrun_data_interval_end",
	"next_dagrun_create_after"}

// v1DagDetailFields are the keys DAGDetailSchema adds.
var v1DagDetailFields = []string{"timezone", "catchup", "orientation", "concurrency", "dataset_expression",
	"start_date", "dag_run_timeout", "doc_md", "params", "is_paused_upon_creation", "end_date",
	"template_searchpath", "render_template_as_native_obj", "last_parsed"}

// v1Dag renders a DAG row as DAGSchema dumps a DagModel.
func (s *server) v1Dag(row *DagRow) (map[string]any, error) {
	d := map[string]any{
		"dag_id":                          row.DagID,
		"dag_display_name":                dagDisplayName(row),
		"root_dag_id":                     nil,
		"is_paused":                       row.IsPaused,
		"is_active":                       row.Def != nil,
		"is_subdag":                       row.RootDagID != "",
		"last_parsed_time":                nil,
		"last_pickled":                    nil,
		"last_expired":                    nil,
		"scheduler_lock":                  nil,
		"pickle_id":                       nil,
		"default_view":                    "grid",
		"fileloc":                         row.FileLoc,
		"file_token":                      signFileToken(s.v1Secret, row.FileLoc),
		"owners":                          []any{},
		"description":                     nil,
		"schedule_interval":               nil,
		"timetable_description":           nil,
		"tags":                            []any{},
		"max_active_tasks":                16,
		"max_active_runs":                 16,
		"max_consecutive_failed_dag_runs": 0,
		"has_task_concurrency_limits":     false,
		"has_import_errors":               row.ImportErrors,
		"next_dagrun":                     nil,
		"next_dagrun_data_interval_start": nil,
		"next_dagrun_data_interval_end":   nil,
		"next_dagrun_create_after":        nil,
	}
	if row.RootDagID != "" {
		d["root_dag_id"] = row.RootDagID
	}
	def := row.Def
	if def == nil {
		return d, nil
	}
	d["last_parsed_time"] = isoFormat(s.lastParsed(row))
	d["owners"] = v1Owners(def)
	if def.Description != "" {
		d["description"] = def.Description
	}
	d["schedule_interval"] = v1ScheduleInterval(def.Schedule)
	d["timetable_description"] = timetableDescription(def)
	if tt := def.Timetable; tt != nil { // a Python DAG's timetable airlite does not run
		d["schedule_interval"] = map[string]any{"__type": "CronExpression", "value": tt.Summary}
		d["timetable_description"] = tt.Description
	}
	tags := make([]any, len(def.Tags))
	for i, tag := range def.Tags {
		tags[i] = map[string]any{"name": tag}
	}
	d["tags"] = tags
	d["max_active_tasks"] = def.MaxActiveTasks
	d["max_active_runs"] = def.MaxActiveRuns
	// Any task with max_active_tis_per_dag(run) (2.10.3 models/dag.py:3296-3299);
	// only Python DAGs' tasks have them.
	d["has_task_concurrency_limits"] = slices.ContainsFunc(def.Tasks, func(t *Task) bool { return t.ConcurrencyLimited })
	last, err := s.opts.Store.LastRunDate(row.DagID, s.rules().lastRun)
	if err != nil {
		return nil, err
	}
	rules := s.rules()
	if p, ok, err := rules.plannedRun(def, last, s.opts.Now().UTC()); err == nil && ok {
		d["next_dagrun"] = isoFormat(p.logical)
		d["next_dagrun_data_interval_start"] = isoFormat(p.interval.start)
		d["next_dagrun_data_interval_end"] = isoFormat(p.interval.end)
		d["next_dagrun_create_after"] = isoFormat(p.runAfter)
		// Cleared while the DAG has max_active_runs runs queued or
		// running, of any type (2.10.3 models/dag.py:3315-3316, at each
		// parse; the scheduler's _should_update_dag_next_dagruns too).
		counts := s.opts.Store.RunStateCounts(row.DagID)
		if counts[RunQueued]+counts[RunRunning] >= def.MaxActiveRuns {
			d["next_dagrun_create_after"] = nil
		}
	}
	return d, nil
}

// v1Owners is DagModel.owners split at commas: the distinct owners of the
// DAG's tasks joined with ", " (in sorted order; Airflow joins a set).
func v1Owners(def *DAG) []any {
	var owners []string
	for _, t := range def.Tasks {
		if !slices.Contains(owners, t.Owner) {
			owners = append(owners, t.Owner)
		}
	}
	sort.Strings(owners)
	out := []any{}
	for _, o := range strings.Split(strings.Join(owners, ", "), ",") {
		if o != "" {
			out = append(out, o)
		}
	}
	return out
}

// v1ScheduleInterval is ScheduleIntervalSchema: a string schedule is a
// CronExpression (presets included), a duration a TimeDelta.
func v1ScheduleInterval(schedule *string) any {
	if schedule == nil {
		return nil
	}
	if isDurationSchedule(*schedule) {
		d, _ := parseDuration(*schedule)
		return v1TimeDelta(d)
	}
	return map[string]any{"__type": "CronExpression", "value": *schedule}
}

// v1TimeDelta is TimeDeltaSchema: Python's timedelta normal form.
func v1TimeDelta(d time.Duration) map[string]any {
	days := int64(d / (24 * time.Hour))
	rest := d - time.Duration(days)*24*time.Hour
	if rest < 0 {
		days--
		rest += 24 * time.Hour
	}
	return map[string]any{"__type": "TimeDelta", "days": days, "seconds": int64(rest / time.Second),
		"microseconds": int64(rest%time.Second) / 1000}
}

// v1OptTimeDelta is a nullable TimeDelta: zero is None.
func v1OptTimeDelta(d time.Duration) any {
	if d == 0 {
		return nil
	}
	return v1TimeDelta(d)
}

// timetableDescription is the timetable's description: cron-descriptor's
// text for a cron schedule or preset, as the edition's Airflow words it
// (worked out when the DAG was built, DAG.cronText), fixed texts for
// None, @once and @continuous, and nothing for a duration.
func timetableDescription(def *DAG) any {
	if def.Schedule == nil {
		return "Never, external triggers only"
	}
	switch s := *def.Schedule; {
	case s == "@once":
		return "Once, as soon as possible"
	case s == "@continuous":
		return "As frequently as possible, but only one run at a time."
	case isDurationSchedule(s):
		return ""
	}
	return def.cronText
}

// v1DagDetail adds DAGDetailSchema's fields to a DAG.
func (s *server) v1DagDetail(row *DagRow) (map[string]any, error) {
	d, err := s.v1Dag(row)
	if err != nil {
		return nil, err
	}
	def := row.Def
	params := v1Params(def.Params, def.ParamDocs)
	var pausedUponCreation any
	if def.IsPausedUponCreation {
		pausedUponCreation = true
	}
	d["timezone"] = def.Timezone.String()
	d["catchup"] = def.Catchup
	d["orientation"] = "LR"
	d["concurrency"] = def.MaxActiveTasks
	d["dataset_expression"] = nil
	if def.AssetExpression != nil {
		var expr any
		if err := json.Unmarshal(def.AssetExpression, &expr); err != nil {
			return nil, fmt.Errorf("read dataset_expression of %s: %w", row.DagID, err)
		}
		d["dataset_expression"] = expr
	}
	d["start_date"] = v1Date(def.StartDate)
	// DAGDetailSchema.get_owners reads the DAG's "owner", an attribute a
	// DAG lacks: always [] (2.10.3 api_connexion/schemas/dag_schema.py:132-136).
	d["owners"] = []any{}
	d["dag_run_timeout"] = v1OptTimeDelta(def.DagrunTimeout)
	d["doc_md"] = nil
	if def.DocMD != "" {
		d["doc_md"] = def.DocMD
	}
	d["params"] = params
	d["is_paused_upon_creation"] = pausedUponCreation
	d["end_date"] = v1Date(def.EndDate)
	d["template_searchpath"] = nil
	d["render_template_as_native_obj"] = false
	d["last_parsed"] = isoFormat(s.lastParsed(row))
	return d, nil
}

// onlyFields is marshmallow's Schema(only=fields): the named keys, or a
// ValueError naming the unknown ones, which Airflow answers as a 400. The
// unknown names are an OrderedSet (marshmallow 3.23.0 schema.py:960-978):
// the request's order, each once, printed as its repr.
func onlyFields(d map[string]any, fields []string, schema, title string) (map[string]any, error) {
	if len(fields) == 0 {
		return d, nil
	}
	var unknown []string
	seen := make(map[string]bool)
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := d[f]
		if !ok {
			if !seen[f] {
				seen[f] = true
				unknown = append(unknown, pyQuote(f))
			}
			continue
		}
		out[f] = v
	}
	if len(unknown) > 0 {
		return nil, &problem{status: http.StatusBadRequest, title: title,
			detail: fmt.Sprintf("Invalid fields for <%s(many=False)>: OrderedSet([%s]).", schema, strings.Join(unknown, ", "))}
	}
	return out, nil
}

// v1DagNotFound is get_dag's 404.
func v1DagNotFound(dagID string) error {
	return v1NotFound("DAG not found", fmt.Sprintf("The DAG with dag_id: %s was not found", dagID))
}

// GetDag is GET /dags/{dag_id}.
func (s *server) V1GetDag(dagID string, fields []string) (map[string]any, error) {
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) {
		return nil, v1DagNotFound(dagID)
	}
	if err != nil {
		return nil, err
	}
	d, err := s.v1Dag(row)
	if err != nil {
		return nil, err
	}
	return onlyFields(d, fields, "DAGSchema", "DAGSchema init error")
}

// V1GetDagDetails is GET /dags/{dag_id}/details: it needs the loaded
// definition (Airflow's DagBag).
func (s *server) V1GetDagDetails(dagID string, fields []string) (map[string]any, error) {
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, v1DagNotFound(dagID)
	}
	if err != nil {
		return nil, err
	}
	d, err := s.v1DagDetail(row)
	if err != nil {
		return nil, err
	}
	return onlyFields(d, fields, "DAGDetailSchema", "DAGDetailSchema init error")
}

// dagFilter is the WHERE of get_dags and patch_dags.
type dagFilter struct {
	onlyActive bool
	paused     *bool
	pattern    string // SQL ILIKE %pattern%; "" matches all
	tags       []string
}

func (f dagFilter) match(row *DagRow, like *regexp.Regexp) bool {
	if row.RootDagID != "" { // sub-DAGs are never listed
		return false
	}
	if f.onlyActive && row.Def == nil {
		return false
	}
	if f.paused != nil && row.IsPaused != *f.paused {
		return false
	}
	if like != nil && !like.MatchString(row.DagID) {
		return false
	}
	if len(f.tags) > 0 {
		if row.Def == nil || !slices.ContainsFunc(row.Def.Tags, func(t string) bool { return slices.Contains(f.tags, t) }) {
			return false
		}
	}
	return true
}

// likePattern is SQL's ILIKE '%pattern%': % any run, _ any one character,
// case-insensitive.
func likePattern(pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("(?is)")
	for _, r := range pattern {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile(b.String())
}

// matchingDags is the filtered DAG rows by dag_id, descending when asked,
// and the page of them.
func (s *server) matchingDags(f dagFilter, desc bool, p page) (pageRows []*DagRow, total int, err error) {
	like := likePattern(f.pattern)
	// Every filter reads the DAG row alone: its count is remembered per
	// version of the DAG table, under the filter's description.
	countKey := fmt.Sprintf("v1 active=%t paused=%s pattern=%q tags=%q", f.onlyActive, pyBoolOrNone(f.paused), f.pattern, f.tags)
	// The dag_id index's order is the byte order the listing sorts by.
	return s.opts.Store.DagPage(desc, p.offset, p.limit, func(row *DagRow) bool { return f.match(row, like) }, countKey)
}

// V1GetDags is GET /dags.
func (s *server) V1GetDags(q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	f := dagFilter{onlyActive: true, tags: q.list("tags")}
	if v, ok := q.boolean("only_active"); ok {
		f.onlyActive = v
	}
	if v, ok := q.boolean("paused"); ok {
		f.paused = &v
	}
	f.pattern, _ = q.str("dag_id_pattern")
	_, desc, err := q.orderBy("dag_id", []string{"dag_id"})
	if err != nil {
		return nil, err
	}
	rows, total, err := s.matchingDags(f, desc, p)
	if err != nil {
		return nil, err
	}
	dags := make([]any, 0, len(rows))
	for _, row := range rows {
		d, err := s.v1Dag(row)
		if err != nil {
			return nil, err
		}
		if d, err = onlyFields(d, q.list("fields"), "DAGSchema", "DAGCollectionSchema error"); err != nil {
			return nil, err
		}
		dags = append(dags, d)
	}
	return map[string]any{"dags": dags, "total_entries": total}, nil
}

// checkDagBody is connexion's check of a DAG body (components/schemas/DAG):
// an object whose read-only fields are absent, is_paused a boolean or
// null; then marshmallow's load refuses a key DAGSchema does not know.
func checkDagBody(v any) (map[string]any, error) {
	body, err := checkBodySchema(v, dagBodySchema)
	if err != nil {
		return nil, err
	}
	if err := unknownFields(body, v1DagFields); err != nil {
		return nil, err
	}
	return body, nil
}

// dagPatch is what a DAG PATCH sets: is_paused, after update_mask.
func dagPatch(body map[string]any, mask []string) (bool, error) {
	if len(mask) > 0 && !slices.Equal(mask, []string{"is_paused"}) {
		return false, v1BadRequest("Only `is_paused` field can be updated through the REST API")
	}
	paused, ok := body["is_paused"].(bool)
	if !ok {
		// Airflow reads patch_body["is_paused"] and fails on a body
		// without it: a KeyError, a crash 500, as the real Airflow 2.10.3
		// answered; airlite's says what is missing.
		return false, newAPIError(errCrash, "is_paused: a boolean is required")
	}
	return paused, nil
}

// V1PatchDag is PATCH /dags/{dag_id}: the one DagModel row, sub-DAGs not
// included (unlike the experimental pause).
func (s *server) V1PatchDag(dagID string, body map[string]any, mask []string) (map[string]any, error) {
	paused, err := dagPatch(body, mask)
	if err != nil {
		return nil, err
	}
	if err := s.ops.setPaused(dagID, paused, false); err != nil {
		return nil, v1DagPhrases.phrase(err)
	}
	row, err := s.opts.Store.DagByID(dagID)
	if err != nil {
		return nil, err
	}
	return s.v1Dag(row)
}

// V1PatchDags is PATCH /dags: every DAG of the page the filters select
// (dag_id_pattern "~" is all), answered with the change (Airflow's
// update synchronizes the rows it read).
func (s *server) V1PatchDags(q v1Values, body map[string]any) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	paused, err := dagPatch(body, q.list("update_mask"))
	if err != nil {
		return nil, err
	}
	f := dagFilter{onlyActive: true, tags: q.list("tags")}
	if v, ok := q.boolean("only_active"); ok {
		f.onlyActive = v
	}
	f.pattern, _ = q.str("dag_id_pattern")
	if f.pattern == "~" {
		f.pattern = "%"
	}
	rows, total, err := s.matchingDags(f, false, p)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.DagID
	}
	if err := s.ops.setPausedAll(ids, paused); err != nil {
		return nil, err
	}
	dags := make([]any, 0, len(rows))
	for _, row := range rows {
		changed := *row
		changed.IsPaused = paused
		d, err := s.v1Dag(&changed)
		if err != nil {
			return nil, err
		}
		dags = append(dags, d)
	}
	return map[string]any{"dags": dags, "total_entries": total}, nil
}

// V1DeleteDag is DELETE /dags/{dag_id}: the operations' delete, as the
// experimental API's, with the stable API's answers.
func (s *server) V1DeleteDag(dagID string) error {
	_, err := s.ops.deleteDag(dagID)
	return v1DagPhrases.phrase(err)
}

// v1Task is TaskSchema's dump of an operator. Its sub_dag field reads an
// attribute no operator has (SubDagOperator's is subdag), and marshmallow
// leaves out what it cannot read: the key never appears.
func v1Task(def *DAG, t *Task, py pythonDialect) map[string]any {
	module, ok := py.modules[t.Operator]
	if !ok {
		module = py.otherModule
	}
	className := t.Operator
	if className == "DummyOperator" { // an alias of EmptyOperator in Airflow 2
		module, className = py.modules["EmptyOperator"], "EmptyOperator"
	}
	// An operator's params are its DAG's with its own over them
	// (2.10.3 models/baseoperator.py: dag.params copied, then updated).
	params := v1Params(def.Params, def.ParamDocs)
	maps.Copy(params, v1Params(t.Params, t.ParamDocs))
	templateFields := []any{}
	switch {
	case t.Operator == "BashOperator":
		templateFields = []any{"bash_command", "env", "cwd"}
	case isPythonOperator(t.Operator):
		templateFields = []any{"templates_dict", "op_args", "op_kwargs"}
	}
	operatorName, color, fgColor := className, taskUIColor(t), uiFgcolor(t.Operator)
	// operator_name is custom_operator_name or task_type: "@task" for a
	// decorated task (2.10.3 models/baseoperator.py operator_name).
	if custom := customOperatorName(t.Operator); custom != "None" {
		operatorName = custom
	}
	if t.OperatorModule != "" {
		// A Python DAG's task: what its serialized form says
		// (ClassReferenceSchema reads _task_module and _task_type, 2.10.3
		// api_connexion/schemas/common_schema.py:161-168; operator_name is
		// _operator_name, serialization/serialized_objects.py:1120-1123).
		module, className, operatorName = t.OperatorModule, t.Operator, orDefault(t.OperatorName, t.Operator)
		fgColor = orDefault(t.UIFgcolor, fgColor)
		templateFields = make([]any, len(t.TemplateFields))
		for i, f := range t.TemplateFields {
			templateFields[i] = f
		}
	}
	downstream := make([]any, len(t.Downstream))
	for i, id := range t.Downstream {
		downstream[i] = id
	}
	var docMD any
	if t.DocMD != "" {
		docMD = t.DocMD
	}
	return map[string]any{
		"class_ref":           map[string]any{"module_path": module, "class_name": className},
		"operator_name":       operatorName,
		"task_id":             t.TaskID,
		"task_display_name":   t.TaskDisplayName(),
		"owner":               t.Owner,
		"start_date":          v1Date(t.StartDate),
		"end_date":            v1Date(t.EndDate),
		"trigger_rule":        t.TriggerRule,
		"extra_links":         v1ExtraLinks(t.ExtraLinks),
		"depends_on_past":     t.DependsOnPast,
		"wait_for_downstream": false,
		// fields.Number dumps a float (task_schema.py:52-59): 1.0.
		"retries":                   float64(t.Retries),
		"queue":                     t.Queue,
		"pool":                      t.Pool,
		"pool_slots":                float64(t.PoolSlots),
		"execution_timeout":         v1OptTimeDelta(t.ExecutionTimeout),
		"retry_delay":               v1TimeDelta(t.RetryDelay),
		"retry_exponential_backoff": t.RetryExponentialBackoff,
		"priority_weight":           float64(t.PriorityWeight),
		"weight_rule":               t.WeightRule,
		"ui_color":                  color,
		"ui_fgcolor":                fgColor,
		"template_fields":           templateFields,
		"downstream_task_ids":       downstream,
		"params":                    params,
		"is_mapped":                 t.IsMapped,
		"doc_md":                    docMD,
	}
}

// v1Params is Params' dump(): each Param.dump() (2.10.3
// models/param.py:143-152), the description and schema the file gave
// when it gave them (Python DAGs).
func v1Params(values map[string]any, docs map[string]ParamDoc) map[string]any {
	params := map[string]any{}
	for k, v := range values {
		p := map[string]any{"__class": "airflow.models.param.Param", "description": nil, "schema": map[string]any{}, "value": v}
		if doc, ok := docs[k]; ok {
			p["__class"], p["description"], p["schema"] = orDefault(doc.Class, "airflow.models.param.Param"), doc.Description, doc.Schema
		}
		params[k] = p
	}
	return params
}

// loadedDag is the DagBag's DAG for the task endpoints: NotFound("DAG not
// found") without a detail when there is none.
func (s *server) loadedDag(dagID string) (*DAG, error) {
	row, err := s.opts.Store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, &problem{status: http.StatusNotFound, title: "DAG not found"}
	}
	if err != nil {
		return nil, err
	}
	return row.Def, nil
}

// V1GetTask is GET /dags/{dag_id}/tasks/{task_id}.
func (s *server) V1GetTask(dagID, taskID string) (map[string]any, error) {
	def, err := s.loadedDag(dagID)
	if err != nil {
		return nil, err
	}
	t := def.Task(taskID)
	if t == nil {
		return nil, &problem{status: http.StatusNotFound, title: "Task not found"}
	}
	return v1Task(def, t, s.rules().python), nil
}

// v1TaskOrder are the task attributes get_tasks sorts by (attrgetter on
// the operator); others are an AttributeError, a 400.
var v1TaskOrder = map[string]func(a, b *Task) int{
	"task_id":         func(a, b *Task) int { return strings.Compare(a.TaskID, b.TaskID) },
	"owner":           func(a, b *Task) int { return strings.Compare(a.Owner, b.Owner) },
	"pool":            func(a, b *Task) int { return strings.Compare(a.Pool, b.Pool) },
	"queue":           func(a, b *Task) int { return strings.Compare(a.Queue, b.Queue) },
	"trigger_rule":    func(a, b *Task) int { return strings.Compare(a.TriggerRule, b.TriggerRule) },
	"retries":         func(a, b *Task) int { return a.Retries - b.Retries },
	"priority_weight": func(a, b *Task) int { return a.PriorityWeight - b.PriorityWeight },
	"pool_slots":      func(a, b *Task) int { return a.PoolSlots - b.PoolSlots },
}

// V1GetTasks is GET /dags/{dag_id}/tasks, ordered by a task attribute.
func (s *server) V1GetTasks(dagID string, q v1Values) (map[string]any, error) {
	def, err := s.loadedDag(dagID)
	if err != nil {
		return nil, err
	}
	order, ok := q.str("order_by")
	if !ok {
		order = "task_id"
	}
	attr := strings.TrimPrefix(order, "-")
	cmp, known := v1TaskOrder[attr]
	if !known {
		return nil, v1BadRequest(fmt.Sprintf("'%s' object has no attribute '%s'", "SerializedBaseOperator", attr))
	}
	tasks := slices.Clone(def.Tasks)
	if strings.HasPrefix(order, "-") {
		// Python's sorted(reverse=True) keeps equal tasks in the DAG's
		// order (task_endpoint.py:57 of 2.10.3): compare the other way
		// round rather than reverse a sorted list.
		asc := cmp
		cmp = func(a, b *Task) int { return asc(b, a) }
	}
	slices.SortStableFunc(tasks, cmp)
	out := make([]any, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, v1Task(def, t, s.rules().python))
	}
	return map[string]any{"tasks": out, "total_entries": len(out)}, nil
}

// V1GetDagSource is GET /dagSources/{file_token}: the source of the DAG
// file the token names, as GET /dags/{dag_id}/code gives it.
func (s *server) V1GetDagSource(token string) (string, error) {
	path, err := loadFileToken(s.v1Secret, token)
	if err != nil {
		return "", &problem{status: http.StatusNotFound, title: "Dag source not found"}
	}
	rows, err := s.opts.Store.Dags()
	if err != nil {
		return "", err
	}
	for _, row := range rows {
		if row.FileLoc == path && row.Def != nil {
			return s.api.DagCode(row.DagID)
		}
	}
	return "", &problem{status: http.StatusNotFound, title: "Dag source not found"}
}

// V1GetDagStats is GET /dagStats?dag_ids=a,b: the runs of each known DAG
// per state, in DagRunState's order.
func (s *server) V1GetDagStats(dagIDs string) (map[string]any, error) {
	seen := map[string]bool{}
	var ids []string
	for _, id := range strings.Split(dagIDs, ",") {
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := s.opts.Store.DagByID(id); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids) // Airflow walks a set: any order
	dags := make([]any, 0, len(ids))
	for _, id := range ids {
		counts := s.opts.Store.RunStateCounts(id) // kept by the writes: a row, not the runs
		stats := make([]any, 0, 4)
		for _, state := range []RunState{RunQueued, RunRunning, RunSuccess, RunFailed} {
			stats = append(stats, map[string]any{"state": string(state), "count": counts[state]})
		}
		dags = append(dags, map[string]any{"dag_id": id, "stats": stats})
	}
	return map[string]any{"dags": dags, "total_entries": len(dags)}, nil
}

// lastParsed is when the DAG's file was last read: by the DAG folder's
// reloader (DAG.ParsedAt), or at start.
func (s *server) lastParsed(row *DagRow) time.Time {
	if row.Def != nil && !row.Def.ParsedAt.IsZero() {
		return row.Def.ParsedAt
	}
	return s.startedAt
}

// v1ExtraLinks is TaskSchema's extra_links: each link's class reference
// (2.10.3 api_connexion/schemas/task_schema.py:47-49).
func v1ExtraLinks(links []extraLink) []any {
	out := make([]any, len(links))
	for i, l := range links {
		out[i] = map[string]any{"class_name": l.Class, "module_path": l.Module}
	}
	return out
}
