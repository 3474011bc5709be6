package main

// Airflow 3's DAG routes (/api/v2/dags, /dagTags): the answers of Airflow
// 3.2.1's core_api/routes/public/dags.py and dag_tags.py, in the models of
// datamodels/dags.py and dag_tags.py, over the operations (ops_dags.go).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Airflow 3.2.1's texts of the DAG routes.
const (
	// common/dagbag.py get_latest_version_of_dag.
	v2DagNotFoundFmt = "The Dag with ID: `%s` was not found"
	// routes/public/dags.py patch_dag, delete_dag.
	v2DagWithIDNotFoundFmt = "Dag with id: %s was not found"
	// routes/public/dags.py favorite_dag, unfavorite_dag (lines 383, 399
	// of the 3.2.0-era main, Phinhas214/airflow c57fba0e, 2026-03-20):
	// "DAG", where main's later rename says "Dag"; 3.2.1's document still
	// has the same commit's docstrings ("Mark the DAG as favorite.").
	v2DagFavoriteNotFoundFmt = "DAG with id '%s' not found"
	// routes/public/dags.py unfavorite_dag (line 411, same source).
	v2DagNotFavorite = "DAG is not marked as favorite"
	// routes/public/dags.py delete_dag.
	v2DagStillRunningFmt = "Task instances of dag with id: '%s' are still running"
	// routes/public/dags.py patch_dag, patch_dags.
	v2OnlyIsPaused = "Only `is_paused` field can be updated through the REST API"
)

// v2NotFound is a 404 with a text.
func v2NotFound(format string, args ...any) error {
	return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf(format, args...)}
}

// v2DagFaults words the DAG faults as one route does: notFound is its
// text for a missing DAG.
func v2DagFaults(notFound string) phrasebook {
	return phrasebook{
		faultDagNotFound: func(e *opError) error { return v2NotFound(notFound, e.value("dag_id")) },
		faultDagRunning: func(e *opError) error {
			return &v2Error{status: http.StatusConflict, detail: fmt.Sprintf(v2DagStillRunningFmt, e.value("dag_id"))}
		},
		faultFavoriteExists: func(*opError) error { return v2UniqueViolation() },
		faultNotFavorite:    func(*opError) error { return &v2Error{status: http.StatusConflict, detail: v2DagNotFavorite} },
	}
}

var (
	v2DagGetPhrases      = v2DagFaults(v2DagNotFoundFmt)
	v2DagPatchPhrases    = v2DagFaults(v2DagWithIDNotFoundFmt)
	v2DagFavoritePhrases = v2DagFaults(v2DagFavoriteNotFoundFmt)
)

// v2DagTag is datamodels/dag_tags.py DagTagResponse.
type v2DagTag struct {
	Name           string `json:"name"`
	DagID          string `json:"dag_id"`
	DagDisplayName string `json:"dag_display_name"`
}

// v2DagBase is the fields of datamodels/dags.py DAGResponse in its order,
// without its computed file_token (pydantic writes computed fields after
// every field, the subclass's included).
type v2DagBase struct {
	DagID                       string     `json:"dag_id"`
	DagDisplayName              string     `json:"dag_display_name"`
	IsPaused                    bool       `json:"is_paused"`
	IsStale                     bool       `json:"is_stale"`
	LastParsedTime              *v2When    `json:"last_parsed_time"`
	LastParseDuration           *v2PyFloat `json:"last_parse_duration"`
	LastExpired                 *v2When    `json:"last_expired"`
	BundleName                  *string    `json:"bundle_name"`
	BundleVersion               *string    `json:"bundle_version"`
	RelativeFileloc             *string    `json:"relative_fileloc"`
	Fileloc                     string     `json:"fileloc"`
	Description                 *string    `json:"description"`
	TimetableSummary            *string    `json:"timetable_summary"`
	TimetableDescription        *string    `json:"timetable_description"`
	TimetablePartitioned        bool       `json:"timetable_partitioned"`
	Tags                        []v2DagTag `json:"tags"`
	MaxActiveTasks              int        `json:"max_active_tasks"`
	MaxActiveRuns               *int       `json:"max_active_runs"`
	MaxConsecutiveFailedDagRuns int        `json:"max_consecutive_failed_dag_runs"`
	HasTaskConcurrencyLimits    bool       `json:"has_task_concurrency_limits"`
	HasImportErrors             bool       `json:"has_import_errors"`
	NextDagrunLogicalDate       *v2When    `json:"next_dagrun_logical_date"`
	NextDagrunDataIntervalStart *v2When    `json:"next_dagrun_data_interval_start"`
	NextDagrunDataIntervalEnd   *v2When    `json:"next_dagrun_data_interval_end"`
	NextDagrunRunAfter          *v2When    `json:"next_dagrun_run_after"`
	AllowedRunTypes             []string   `json:"allowed_run_types"`
	Owners                      []string   `json:"owners"`
}

// v2DAG is DAGResponse.
type v2DAG struct {
	v2DagBase
	FileToken string `json:"file_token"`
}

// v2DAGCollection is DAGCollectionResponse.
type v2DAGCollection struct {
	Dags         []v2DAG `json:"dags"`
	TotalEntries int     `json:"total_entries"`
}

// v2DAGDetails is DAGDetailsResponse: DAGResponse's fields, its own, then
// the computed file_token, concurrency and latest_dag_version.
type v2DAGDetails struct {
	v2DagBase
	Catchup                   bool              `json:"catchup"`
	DagRunTimeout             *string           `json:"dag_run_timeout"`
	AssetExpression           json.RawMessage   `json:"asset_expression"`
	DocMD                     *string           `json:"doc_md"`
	StartDate                 *v2When           `json:"start_date"`
	EndDate                   *v2When           `json:"end_date"`
	IsPausedUponCreation      *bool             `json:"is_paused_upon_creation"`
	Params                    v2Ordered         `json:"params"`
	RenderTemplateAsNativeObj bool              `json:"render_template_as_native_obj"`
	TemplateSearchPath        []string          `json:"template_search_path"`
	Timezone                  *string           `json:"timezone"`
	LastParsed                *v2When           `json:"last_parsed"`
	DefaultArgs               map[string]any    `json:"default_args"`
	OwnerLinks                map[string]string `json:"owner_links"`
	IsFavorite                bool              `json:"is_favorite"`
	ActiveRunsCount           int               `json:"active_runs_count"`
	FileToken                 string            `json:"file_token"`
	Concurrency               int               `json:"concurrency"`
	LatestDagVersion          *v2DagVersion     `json:"latest_dag_version"`
}

// v2DagTagCollection is DAGTagCollectionResponse.
type v2DagTagCollection struct {
	Tags         []string `json:"tags"`
	TotalEntries int      `json:"total_entries"`
}

func ptr[T any](v T) *T { return &v }

// v2DagBaseOf renders a DAG as DAGResponse validates a DagModel.
func (s *server) v2DagBaseOf(d dagInfo) v2DagBase {
	row := d.Row
	rel := relativeFileloc(row)
	out := v2DagBase{
		DagID: row.DagID, DagDisplayName: dagDisplayName(row), IsPaused: row.IsPaused, IsStale: d.Stale,
		BundleName: ptr(bundleName), RelativeFileloc: &rel, Fileloc: row.FileLoc,
		Tags: []v2DagTag{}, MaxActiveTasks: 16, HasImportErrors: d.ImportErrors, Owners: d.Owners,
	}
	if d.Version != nil {
		parsed := s.lastParsed(row)
		out.LastParsedTime = v2At(&parsed)
	}
	if row.Def != nil && row.Def.ParseDuration > 0 {
		took := v2PyFloat(row.Def.ParseDuration)
		out.LastParseDuration = &took
	}
	if d.Next != nil {
		out.NextDagrunLogicalDate = v2At(&d.Next.LogicalDate)
		out.NextDagrunDataIntervalStart = v2At(&d.Next.IntervalStart)
		out.NextDagrunDataIntervalEnd = v2At(&d.Next.IntervalEnd)
		out.NextDagrunRunAfter = v2At(&d.Next.RunAfter)
	}
	def := row.Def
	if def == nil {
		return out
	}
	if def.Description != "" {
		out.Description = ptr(def.Description)
	}
	out.TimetableSummary = timetableSummary(def)
	if desc, ok := timetableDescription(def).(string); ok {
		out.TimetableDescription = &desc
	}
	if def.Timetable != nil {
		out.TimetableDescription = ptr(def.Timetable.Description)
	}
	// DAGResponse's serialize_tags sorts the tags by name for every
	// answer built on it (c57fba0e airflow-core/src/airflow/api_fastapi/
	// core_api/datamodels/dags.py:105-108, apache/airflow#58883): the
	// list, one DAG, its details and PATCH's answers.
	for _, tag := range slices.Sorted(slices.Values(def.Tags)) {
		out.Tags = append(out.Tags, v2DagTag{Name: tag, DagID: row.DagID, DagDisplayName: dagDisplayName(row)})
	}
	out.MaxActiveTasks = def.MaxActiveTasks
	out.MaxActiveRuns = ptr(def.MaxActiveRuns)
	out.AllowedRunTypes = def.AllowedRunTypes // null: every type
	out.HasTaskConcurrencyLimits = slices.ContainsFunc(def.Tasks, func(t *Task) bool { return t.ConcurrencyLimited })
	return out
}

// timetableSummary is DagModel.timetable_summary in Airflow 3: a cron
// schedule's expression (presets resolved, as CronMixin keeps them), a
// duration as str(timedelta), @once and @continuous as themselves, None
// as null.
func timetableSummary(def *DAG) *string {
	if def.Timetable != nil {
		return ptr(def.Timetable.Summary)
	}
	if def.Schedule == nil {
		return nil
	}
	sched := *def.Schedule
	switch {
	case sched == "@once" || sched == "@continuous":
		return &sched
	case isDurationSchedule(sched):
		d, _ := parseDuration(sched)
		return ptr(pyTimedelta(d))
	}
	// CronMixin keeps its expression with Airflow's presets resolved;
	// croniter's @midnight and @annually are not among them.
	if preset, ok := airflowCronPreset(sched); ok {
		return &preset
	}
	return &sched
}

// relativeFileloc is the DAG file's path inside its bundle: the path the
// loader read it at under the DAG folder.
func relativeFileloc(row *DagRow) string {
	if row.Def != nil && row.Def.RelativeFileloc != "" {
		return row.Def.RelativeFileloc
	}
	if row.FileLoc == loadedDAGFileLoc {
		return row.FileLoc
	}
	return baseName(row.FileLoc)
}

// baseName is the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// v2FileToken is DAGResponse.file_token: URLSafeSerializer(secret).dumps
// of {"bundle_name", "relative_fileloc"}.
func (s *server) v2FileToken(bundle *string, rel *string) string {
	b := []byte(`{"bundle_name":`)
	b = appendJSONStrOrNull(b, bundle)
	b = append(b, `,"relative_fileloc":`...)
	b = appendJSONStrOrNull(b, rel)
	b = append(b, '}')
	return signPayload(s.v1Secret, b)
}

func appendJSONStrOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendPyString(b, *s)
}

// v2DagOf is DAGResponse.
func (s *server) v2DagOf(d dagInfo) v2DAG {
	base := s.v2DagBaseOf(d)
	return v2DAG{v2DagBase: base, FileToken: s.v2FileToken(base.BundleName, base.RelativeFileloc)}
}

// v2DagDetailsOf is DAGDetailsResponse.
func (s *server) v2DagDetailsOf(d dagInfo, activeRuns int) v2DAGDetails {
	base := s.v2DagBaseOf(d)
	out := v2DAGDetails{v2DagBase: base, Timezone: ptr("UTC"), OwnerLinks: map[string]string{}, IsFavorite: d.Favorite,
		ActiveRunsCount: activeRuns, FileToken: s.v2FileToken(base.BundleName, base.RelativeFileloc), Concurrency: base.MaxActiveTasks,
		LastParsed: base.LastParsedTime}
	if d.Version != nil {
		out.LatestDagVersion = ptr(s.v2DagVersion(d.Version))
	}
	def := d.Row.Def
	if def == nil {
		return out
	}
	out.Catchup = def.Catchup
	out.Timezone = ptr(def.Timezone.String())
	if bytes.HasPrefix(def.AssetExpression, []byte("{")) {
		out.AssetExpression = def.AssetExpression
	}
	if def.DagrunTimeout != 0 {
		out.DagRunTimeout = ptr(isoDuration(def.DagrunTimeout))
	}
	if def.DocMD != "" {
		out.DocMD = ptr(pyCleandoc(def.DocMD))
	}
	out.StartDate = v2At(def.StartDate)
	out.EndDate = v2At(def.EndDate)
	if def.IsPausedUponCreation {
		out.IsPausedUponCreation = ptr(true)
	}
	out.Params = v2Ordered{v2Params(def.Params, def.ParamDocs, def.paramNames, def.params, nil)}
	if len(def.DefaultArgs) > 0 {
		out.DefaultArgs = v2DefaultArgs(def.DefaultArgs)
	}
	return out
}

// v2DefaultArgs is a DAG's default_args as pydantic writes the dict:
// timedeltas in ISO 8601 (the definition's durations), datetimes in its
// datetime form.
func v2DefaultArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		switch x := v.(type) {
		case string:
			switch k {
			case "retry_delay", "max_retry_delay", "execution_timeout", "sla":
				if d, err := parseDuration(x); err == nil {
					v = isoDuration(d)
				}
			case "start_date", "end_date":
				if t, reason := v2ParseDateTime(x); reason == "" {
					v = v2When(t)
				}
			}
		case time.Time:
			v = v2When(x)
		case time.Duration:
			v = isoDuration(x)
		}
		out[k] = v
	}
	return out
}

// v2Params is Airflow 3's params dump, as the DAG details and the task
// answers show it ({k: v.dump()}, datamodels/dags.py:207-213 and
// tasks.py:105-111 of c57fba0e): for each param, in the order the file
// gave them, SerializedParam.dump (serialization/definitions/param.py:
// 70-77): resolve()'s value (null for a param without a default or
// whose default its schema refuses), the schema in its key order, the
// description, and the source. A DAG's params have no source
// (_serialize_param keeps a Param's, which only a task sets).
func v2Params(values map[string]any, docs map[string]ParamDoc, names []string, pc *paramCheck, source any) pyDict {
	out := make(pyDict, 0, len(names))
	for _, name := range names {
		out = append(out, pyField{key: name, val: v2Param(name, values[name], docs, pc, source)})
	}
	return out
}

// v2Param is one param's SerializedParam.dump.
func v2Param(name string, value any, docs map[string]ParamDoc, pc *paramCheck, source any) v2Ordered {
	var schema, description any = map[string]any{}, nil
	if doc, ok := docs[name]; ok {
		schema, description = doc.Schema, doc.Description
		if doc.NoDefault {
			value = nil
		}
	}
	if ordered, resolves, ok := pc.dump(name); ok {
		if ordered != nil {
			schema = ordered
		}
		if !resolves {
			value = nil
		}
	}
	return v2Ordered{pyDict{{key: "value", val: value}, {key: "schema", val: schema},
		{key: "description", val: description}, {key: "source", val: source}}}
}

// v2TaskParams are a task's params as Airflow 3 shows them: the DAG's,
// source "dag", with the task's own over them (in their places, new ones
// after), source "task" (task-sdk bases/operator.py get_merged_defaults:
// 136-172 of c57fba0e). A task param that is the DAG's own, unchanged
// (airlite's Python surface hands every task the DAG's params), keeps
// source "dag".
func v2TaskParams(def *DAG, t *Task) pyDict {
	out := v2Params(def.Params, def.ParamDocs, def.paramNames, def.params, "dag")
	for _, name := range t.paramNames {
		i := slices.IndexFunc(out, func(f pyField) bool { return f.key == name })
		if i >= 0 && sameParam(def, t, name) {
			continue
		}
		p := pyField{key: name, val: v2Param(name, t.Params[name], t.ParamDocs, t.params, "task")}
		if i >= 0 {
			out[i] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// sameParam says whether the task's param name is the DAG's, unchanged.
func sameParam(def *DAG, t *Task, name string) bool {
	dv, ok := def.Params[name]
	if !ok || !reflect.DeepEqual(dv, t.Params[name]) {
		return false
	}
	dd, dok := def.ParamDocs[name]
	td, tok := t.ParamDocs[name]
	if dok != tok {
		return false
	}
	return !dok || (dd.NoDefault == td.NoDefault && reflect.DeepEqual(dd.Schema, td.Schema) && reflect.DeepEqual(dd.Description, td.Description))
}

// isoDuration is a timedelta as pydantic writes it in JSON: ISO 8601,
// "P1D", "PT1H", "PT5M", "PT1M30.5S", zero "PT0S".
func isoDuration(d time.Duration) string {
	us := d.Microseconds()
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	days := us / 86_400_000_000
	rest := us % 86_400_000_000
	h, m := rest/3_600_000_000, rest%3_600_000_000/60_000_000
	sec := rest % 60_000_000
	var b strings.Builder
	b.WriteString(sign + "P")
	if days > 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	if rest == 0 {
		if days == 0 {
			b.WriteString("T0S")
		}
		return b.String()
	}
	b.WriteByte('T')
	if h > 0 {
		fmt.Fprintf(&b, "%dH", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if sec > 0 {
		if sec%1_000_000 == 0 {
			fmt.Fprintf(&b, "%dS", sec/1_000_000)
		} else {
			fmt.Fprintf(&b, "%s%sS", fmt.Sprint(sec/1_000_000), strings.TrimRight(fmt.Sprintf(".%06d", sec%1_000_000), "0"))
		}
	}
	return b.String()
}

// pyCleandoc is inspect.cleandoc: leading and trailing blank lines gone,
// the common indentation of the lines after the first removed.
func pyCleandoc(doc string) string {
	lines := strings.Split(strings.ReplaceAll(doc, "\t", "        "), "\n")
	margin := -1
	for _, l := range lines[1:] {
		if trimmed := strings.TrimLeft(l, " "); trimmed != "" {
			if n := len(l) - len(trimmed); margin < 0 || n < margin {
				margin = n
			}
		}
	}
	lines[0] = strings.TrimLeft(lines[0], " ")
	if margin > 0 {
		for i := 1; i < len(lines); i++ {
			if len(lines[i]) >= margin {
				lines[i] = lines[i][margin:]
			} else {
				lines[i] = strings.TrimLeft(lines[i], " ")
			}
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// v2Likes is a _SearchParam's value (3.2.1: SQL LIKE terms joined by "|",
// any of which may match; "~" matches all): nil when the parameter is
// absent.
func v2Likes(q v1Values, name string) []*regexp.Regexp {
	s, ok := q.str(name)
	if !ok {
		return nil
	}
	var out []*regexp.Regexp
	for term := range strings.SplitSeq(s, "|") {
		term = strings.TrimSpace(term)
		if term == "~" || term == "" {
			term = "%"
		}
		out = append(out, likePattern(term))
	}
	return out
}

// v2ILike is a column's ILIKE '%term%' (the term's % and _ its
// wildcards).
func v2ILike(term string) *regexp.Regexp {
	if term == "" {
		term = "%"
	}
	return likePattern(term)
}

// v2OwnerLikes is _OwnersFilter: ILIKE '%owner%' on DagModel.owners for
// each owner asked, any of which may match.
func v2OwnerLikes(owners []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, o := range owners {
		out = append(out, v2ILike(o))
	}
	return out
}

// v2DagListTransforms runs get_dags' dag_run_state transform
// (_transform_dag_run_states) as the dependency it is: it answers before
// the query's validation errors (see v2RunListTransforms).
func v2DagListTransforms(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	_, err := v2RunStates(pyQuery(r.URL.RawQuery)["dag_run_state"])
	return err
}

// v2RunStates is _transform_dag_run_states: each value a DagRunState, or
// Airflow's 422.
func v2RunStates(vals []string) ([]RunState, error) {
	var out []RunState
	for _, v := range vals {
		switch st := RunState(v); st {
		case RunQueued, RunRunning, RunSuccess, RunFailed:
			out = append(out, st)
		case "none":
		default:
			return nil, &v2Error{status: http.StatusUnprocessableEntity, detail: "Invalid value for state. Valid values are queued, running, success, failed"}
		}
	}
	return out, nil
}

// v2RunStateEnum is DagRunState as a query parameter's enum.
var v2RunStateEnum = []string{"queued", "running", "success", "failed"}

// v2DagListParams are get_dags' query parameters (3.2.1's document).
func v2DagListParams() []v1Param {
	ps := []v1Param{qV2Limit, qV2Offset, qV2Strs("tags"), qV2Literal("tags_match_mode", "any", "all"), qV2Strs("owners"),
		qV2Str("dag_id_pattern"), qV2Str("dag_display_name_pattern"), qV2Bool("exclude_stale"), qV2Bool("paused"),
		qV2Bool("has_import_errors"), {name: "last_dag_run_state", kind: paramString, enum: v2RunStateEnum},
		qV2Str("bundle_name"), qV2Str("bundle_version"), qV2Bool("has_asset_schedule"), qV2Str("asset_dependency")}
	ps = append(ps, qV2DateRange("dag_run_start_date")...)
	ps = append(ps, qV2DateRange("dag_run_end_date")...)
	return append(ps, qV2Strs("dag_run_state"), qV2OrderBy, qV2Bool("is_favorite"), qV2Strs("timetable_type"))
}

// v2DagPatchManyParams are patch_dags' query parameters.
var v2DagPatchManyParams = []v1Param{qV2Strs("update_mask"), qV2Limit, qV2Offset, qV2Strs("tags"),
	qV2Literal("tags_match_mode", "any", "all"), qV2Strs("owners"), qV2Str("dag_id_pattern"), qV2Bool("exclude_stale"), qV2Bool("paused")}

// v2DagPatchBody is datamodels/dags.py DAGPatchBody.
var v2DagPatchBody = &v2Model{name: "DAGPatchBody", fields: []v2Field{{name: "is_paused", typ: v2TBool, required: true}}}

// v2DagFilters reads the filters get_dags and patch_dags share.
func v2DagFilters(q v1Values) dagQuery {
	dq := dagQuery{includeStale: false, page: v2Page(q), tags: q.list("tags"), ownerLikes: v2OwnerLikes(q.list("owners")),
		idLike: v2Likes(q, "dag_id_pattern")}
	if v, ok := q.v2Bool("exclude_stale"); ok {
		dq.includeStale = !v
	}
	if v, ok := q.v2Bool("paused"); ok {
		dq.paused = &v
	}
	if m, _ := q.str("tags_match_mode"); m == "all" {
		dq.tagsAll = true
	}
	return dq
}

// v2DateRange reads datetime_range_filter_factory's four bounds.
func v2DateRange(q v1Values, field string) timeRange {
	return timeRange{gte: q.v2Time(field + "_gte"), gt: q.v2Time(field + "_gt"), lte: q.v2Time(field + "_lte"), lt: q.v2Time(field + "_lt")}
}

// v2User is the caller's user id as Airflow 3's auth manager gives it
// (user.get_id()): all-admins mode's user is its anonymous admin.
func v2User(req *apiRequest) string {
	if req.caller.user != "" {
		return req.caller.user
	}
	return anonymousAdmin
}

// V2GetDags is get_dags.
func (s *server) V2GetDags(req *apiRequest) (any, error) {
	q := req.query
	dq := v2DagFilters(q)
	dq.displayLike = v2Likes(q, "dag_display_name_pattern")
	if v, ok := q.v2Bool("has_import_errors"); ok {
		dq.hasImportErrors = &v
	}
	// FilterParam skips an empty string as it skips None
	// (common/parameters.py FilterParam.to_orm).
	if v, ok := q.str("bundle_name"); ok && v != "" {
		dq.bundleName = &v
	}
	if v, ok := q.str("bundle_version"); ok && v != "" {
		dq.bundleVersion = &v
	}
	if v, ok := q.v2Bool("has_asset_schedule"); ok {
		dq.hasAssetSchedule = &v
	}
	if v, ok := q.str("asset_dependency"); ok {
		dq.assetDependency = v2ILike(v)
	}
	if v, ok := q.v2Bool("is_favorite"); ok {
		user := v2User(req)
		dq.favoriteOf, dq.favorite = &user, &v
	}
	dq.timetableTypes = q.list("timetable_type")
	states, err := v2RunStates(q.list("dag_run_state"))
	if err != nil {
		return nil, err
	}
	dq.runStates = states
	if last, ok := q.str("last_dag_run_state"); ok {
		dq.lastRunState = ptr(RunState(last))
	}
	dq.runStart, dq.runEnd = v2DateRange(q, "dag_run_start_date"), v2DateRange(q, "dag_run_end_date")
	dq.lastRunFiltersEnabled = len(states) > 0 || dq.lastRunState != nil || dq.runStart.active() || dq.runEnd.active()
	if err := v2DagOrderWithoutColumn(q.list("order_by")); err != nil {
		return nil, err
	}
	keys, err := v2OrderBy(q, "dag_id", []string{"dag_id", "dag_display_name", "next_dagrun"},
		map[string]string{"last_run_state": "last_run_state", "last_run_start_date": "last_run_start_date"})
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		dq.order = append(dq.order, dagSortKey{attr: k.attr, desc: k.desc})
	}
	dags, total, err := s.ops.listDags(dq)
	if err != nil {
		return nil, err
	}
	out := v2DAGCollection{Dags: make([]v2DAG, 0, len(dags)), TotalEntries: total}
	for _, d := range dags {
		out.Dags = append(out.Dags, s.v2DagOf(d))
	}
	return out, nil
}

// v2DagOrderWithoutColumn is get_dags' SortParam meeting "state" or
// "start_date": its allowed list names them (c57fba0e airflow-core/src/
// airflow/api_fastapi/core_api/routes/public/dags.py:120-127, and 3.2.1's
// document lists them), but DagModel has no such attribute, so to_orm's
// getattr raises AttributeError, a 500 (common/parameters.py:308-315).
// Keys are read in the request's order, as to_orm reads them: an
// unknown key before it is the 400 v2OrderBy answers; more than ten keys
// are its 400 first.
func v2DagOrderWithoutColumn(vals []string) error {
	if len(vals) > v2MaxSortParams {
		return nil
	}
	allowed := []string{"dag_id", "dag_display_name", "next_dagrun", "last_run_state", "last_run_start_date"}
	for _, v := range vals {
		switch attr := strings.TrimLeft(v, "-"); {
		case attr == "state" || attr == "start_date":
			return fmt.Errorf("order_by %s: DagModel has no attribute %q", v, attr)
		case !slices.Contains(allowed, attr):
			return nil
		}
	}
	return nil
}

// V2GetDag is get_dag.
func (s *server) V2GetDag(req *apiRequest) (any, error) {
	d, err := s.ops.dagByID(req.param("dag_id"), "")
	if err != nil {
		return nil, v2DagGetPhrases.phrase(err)
	}
	if d.Row.Def == nil {
		// The DagBag has no serialized DAG for it; a stale DAG's is
		// kept (common/dagbag.py get_latest_version_of_dag reads
		// SerializedDagModel whatever DagModel.is_stale says).
		return nil, v2NotFound(v2DagNotFoundFmt, d.Row.DagID)
	}
	return s.v2DagOf(d), nil
}

// V2GetDagDetails is get_dag_details.
func (s *server) V2GetDagDetails(req *apiRequest) (any, error) {
	dagID := req.param("dag_id")
	d, err := s.ops.dagByID(dagID, v2User(req))
	if err != nil {
		return nil, v2DagGetPhrases.phrase(err)
	}
	if d.Row.Def == nil {
		return nil, v2NotFound(v2DagNotFoundFmt, dagID)
	}
	active := 0
	for _, st := range []RunState{RunRunning, RunQueued} {
		runs, err := s.opts.Store.RunsOfDag(dagID, st)
		if err != nil {
			return nil, err
		}
		active += len(runs)
	}
	return s.v2DagDetailsOf(d, active), nil
}

// v2CheckMask is update_mask's check: only is_paused.
func v2CheckMask(q v1Values) error {
	if mask := q.list("update_mask"); len(mask) > 0 && !slices.Equal(mask, []string{"is_paused"}) {
		return &v2Error{status: http.StatusBadRequest, detail: v2OnlyIsPaused}
	}
	return nil
}

// V2PatchDag is patch_dag: the one DAG's paused flag.
func (s *server) V2PatchDag(req *apiRequest) (any, error) {
	dagID := req.param("dag_id")
	if _, err := s.opts.Store.DagByID(dagID); err != nil {
		return nil, v2DagPatchPhrases.phrase(v2Missing(err, dagID))
	}
	if err := v2CheckMask(req.query); err != nil {
		return nil, err
	}
	paused, _ := req.body["is_paused"].(bool)
	if err := s.ops.setPaused(dagID, paused, false); err != nil {
		return nil, v2DagPatchPhrases.phrase(err)
	}
	d, err := s.ops.dagByID(dagID, "")
	if err != nil {
		return nil, v2DagPatchPhrases.phrase(err)
	}
	return s.v2DagOf(d), nil
}

// v2Missing is a store's errNotFound for a DAG as the operations' fault.
func v2Missing(err error, dagID string) error {
	if err == errNotFound {
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	return err
}

// V2PatchDags is patch_dags: the page of the DAGs the filters select (no
// dag_id_pattern selects the ids holding "none"; "~" all) is paused or
// unpaused and answered, with the count of every DAG selected. 3.2.1
// updates the page's DAGs alone (c57fba0e dags.py:343-365, the update's
// ids are the paginated select's); paging through every DAG selected is
// apache/airflow#65309, first released in 3.2.2. Its select has no
// ORDER BY, so the database's order makes the page; airlite's is dag_id's.
func (s *server) V2PatchDags(req *apiRequest) (any, error) {
	if err := v2CheckMask(req.query); err != nil {
		return nil, err
	}
	q := req.query
	dq := v2DagFilters(q)
	if dq.idLike == nil {
		// QueryDagIdPatternSearchWithNone skips no None: _SearchParam
		// then filters on ILIKE '%None%' (common/parameters.py).
		dq.idLike = []*regexp.Regexp{v2ILike("None")}
	}
	pageOf, total, err := s.ops.listDags(dq)
	if err != nil {
		return nil, err
	}
	paused, _ := req.body["is_paused"].(bool)
	ids := make([]string, len(pageOf))
	for i, d := range pageOf {
		ids[i] = d.Row.DagID
	}
	if err := s.ops.setPausedAll(ids, paused); err != nil {
		return nil, err
	}
	out := v2DAGCollection{Dags: []v2DAG{}, TotalEntries: total}
	for _, d := range pageOf {
		changed := *d.Row
		changed.IsPaused = paused
		d.Row = &changed
		out.Dags = append(out.Dags, s.v2DagOf(d))
	}
	return out, nil
}

// V2DeleteDag is delete_dag.
func (s *server) V2DeleteDag(req *apiRequest) error {
	_, err := s.ops.deleteDag(req.param("dag_id"))
	return v2DagPatchPhrases.phrase(err)
}

// V2FavoriteDag is favorite_dag (on) and unfavorite_dag: the caller's
// mark on the DAG.
func (s *server) V2FavoriteDag(req *apiRequest, on bool) error {
	return v2DagFavoritePhrases.phrase(s.ops.setFavorite(req.param("dag_id"), v2User(req), on))
}

// V2GetDagTags is get_dag_tags.
func (s *server) V2GetDagTags(req *apiRequest) (any, error) {
	keys, err := v2OrderBy(req.query, "name", []string{"name"}, nil)
	if err != nil {
		return nil, err
	}
	tags, err := s.ops.dagTags(v2Likes(req.query, "tag_name_pattern"), len(keys) > 0 && keys[0].desc)
	if err != nil {
		return nil, err
	}
	return v2DagTagCollection{Tags: v2Window(tags, v2Page(req.query)), TotalEntries: len(tags)}, nil
}
