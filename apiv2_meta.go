package main

// Airflow 3's routes about the deployment itself (issue #21): config,
// plugins, providers, jobs and DAG warnings. airlite has no plugins and no
// providers, and keeps its configuration to itself, so these answer as an
// Airflow 3.2.1 without any does; its jobs are the scheduler, when it
// runs; its DAG warnings are those of ops_dagwarnings.go.

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Airflow 3.2.1's texts for these routes.
const (
	// core_api/services/public/config.py _check_expose_config: [api]
	// expose_config is False by default.
	v2ConfigNotExposed = "Your Airflow administrator chose not to expose the configuration, most likely for security reasons."
	// common/headers.py header_accept_json_or_text_depends.
	v2OnlyJSONOrText = "Only application/json or text/plain is supported"
)

// v2Mimetype is what a route answers for an Accept header it reads
// (common/types.py Mimetype).
type v2Mimetype int

const (
	v2AcceptAny v2Mimetype = iota
	v2AcceptJSON
	v2AcceptText
)

// v2AcceptJSONOrText is common/headers.py header_accept_json_or_text_depends:
// the header's start decides (no q-values, no lists), an absent header is
// */*, and anything else is a 406. FastAPI resolves it before it checks
// the query, so its 406 comes before a 422.
func v2AcceptJSONOrText(r *http.Request) (v2Mimetype, error) {
	accept := "*/*"
	if vals := r.Header.Values("Accept"); len(vals) > 0 {
		accept = vals[0]
	}
	switch {
	case strings.HasPrefix(accept, "*/*"):
		return v2AcceptAny, nil
	case strings.HasPrefix(accept, "application/json"):
		return v2AcceptJSON, nil
	case strings.HasPrefix(accept, "text/plain"):
		return v2AcceptText, nil
	}
	return 0, &v2Error{status: http.StatusNotAcceptable, detail: v2OnlyJSONOrText}
}

// v2ConfigRefused is core_api/routes/public/config.py get_config and
// get_config_value with expose_config off: whatever section or option is
// asked, the configuration is refused (after the Accept header's check,
// a dependency: withDependency(v2AcceptCheck)).
func v2ConfigRefused(*apiRequest) error {
	return &v2Error{status: http.StatusForbidden, detail: v2ConfigNotExposed}
}

// v2AcceptCheck is v2AcceptJSONOrText as a row's dependency.
func v2AcceptCheck(r *http.Request) error {
	_, err := v2AcceptJSONOrText(r)
	return err
}

// v2PluginCollection is datamodels/plugins.py PluginCollectionResponse
// with no plugin: airlite loads none.
type v2PluginCollection struct {
	Plugins      []struct{} `json:"plugins"`
	TotalEntries int        `json:"total_entries"`
}

// v2PluginImportErrors is datamodels/plugins.py
// PluginImportErrorCollectionResponse with no error.
type v2PluginImportErrors struct {
	ImportErrors []struct{} `json:"import_errors"`
	TotalEntries int        `json:"total_entries"`
}

// v2ProviderCollection is datamodels/providers.py
// ProviderCollectionResponse: airlite installs no provider package.
type v2ProviderCollection struct {
	Providers    []struct{} `json:"providers"`
	TotalEntries int        `json:"total_entries"`
}

// v2DagWarning is datamodels/dag_warning.py DAGWarningResponse as 3.2.1's
// document has it (no context), fields in the model's order.
type v2DagWarning struct {
	DagID          string `json:"dag_id"`
	WarningType    string `json:"warning_type"`
	Message        string `json:"message"`
	Timestamp      v2When `json:"timestamp"`
	DagDisplayName string `json:"dag_display_name"`
}

// v2DagWarningCollection is DAGWarningCollectionResponse.
type v2DagWarningCollection struct {
	DagWarnings  []v2DagWarning `json:"dag_warnings"`
	TotalEntries int            `json:"total_entries"`
}

// v2DagWarningTypes are models/dagwarning.py DagWarningType's values,
// which the warning_type filter takes.
var v2DagWarningTypes = []string{"asset conflict", "non-existent pool", "runtime varying value"}

// v2DagWarningOrders are dag_warning.py list_dag_warnings' sort attributes.
var v2DagWarningOrders = []string{"dag_id", "warning_type", "message", "timestamp"}

// schedulerJobInfo is the scheduler as Airflow 3 keeps it in its job
// table (jobs/job.py Job with a SchedulerJobRunner): when it started and
// on which host. The zero value: no scheduler.
type schedulerJobInfo struct {
	Start    time.Time
	Hostname string
}

// v2Job is datamodels/job.py JobResponse.
type v2Job struct {
	ID              int64   `json:"id"`
	DagID           *string `json:"dag_id"`
	State           *string `json:"state"`
	JobType         *string `json:"job_type"`
	StartDate       *v2When `json:"start_date"`
	EndDate         *v2When `json:"end_date"`
	LatestHeartbeat *v2When `json:"latest_heartbeat"`
	ExecutorClass   *string `json:"executor_class"`
	Hostname        *string `json:"hostname"`
	Unixname        *string `json:"unixname"`
	DagDisplayName  *string `json:"dag_display_name"`
	// alive is jobs/job.py Job.is_alive; start and end the dates for the
	// filters and the order.
	alive      bool
	start, end *time.Time
}

// v2JobCollection is datamodels/job.py JobCollectionResponse.
type v2JobCollection struct {
	Jobs         []v2Job `json:"jobs"`
	TotalEntries int     `json:"total_entries"`
}

// v2JobOrders are job.py get_jobs' sort attributes.
var v2JobOrders = []string{"id", "dag_id", "state", "job_type", "start_date", "end_date", "latest_heartbeat", "executor_class", "hostname", "unixname"}

// v2SchedulerJob is airlite's scheduler as Airflow lists its SchedulerJob:
// id 1, running while its loop runs (success once it stopped, as a job
// that ended), its last pass as the latest heartbeat, alive as
// /monitor/health says, and no DAG or executor class (jobs/job.py Job).
// No job while the scheduler is off or before its first pass, when
// /monitor/health has no heartbeat either (schedulerHealth).
func (s *server) v2SchedulerJob() (v2Job, bool) {
	if s.opts.SchedulerHeartbeat == nil || s.opts.SchedulerJob.Start.IsZero() {
		return v2Job{}, false
	}
	last, running := s.opts.SchedulerHeartbeat()
	if last.IsZero() {
		return v2Job{}, false
	}
	start := s.opts.SchedulerJob.Start.UTC()
	state, jobType := "running", "SchedulerJob"
	if !running {
		state = "success"
	}
	host, unixname := s.opts.SchedulerJob.Hostname, s.opts.Unixname
	return v2Job{ID: 1, State: &state, JobType: &jobType, StartDate: v2At(&start), LatestHeartbeat: v2At(&last),
		Hostname: &host, Unixname: &unixname, start: &start,
		alive: running && schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now()).schedulerAlive}, true
}

// v2GetJobs is core_api/routes/public/job.py get_jobs over airlite's one
// job: the filters (equality on job_state, job_type, hostname and
// executor_class, the start and end date ranges, a date not set counting
// as now), the order and the page,
// then is_alive, which Airflow applies to the page after counting: given
// true or false, it keeps the alive jobs of the page and leaves
// total_entries as counted.
func (s *server) v2GetJobs(req *apiRequest) (any, error) {
	q := req.query
	keys, err := v2OrderBy(q, "id", v2JobOrders, nil)
	if err != nil {
		return nil, err
	}
	var jobs []v2Job
	if j, ok := s.v2SchedulerJob(); ok {
		jobs = append(jobs, j)
	}
	starts, ends := v2RangeOf(q, "start_date"), v2RangeOf(q, "end_date")
	// 3.2.1's datetime_range_filter_factory compares start_date and
	// end_date as COALESCE(date, now()) (c57fba0e common/parameters.py:
	// 651-653): a job that has not ended ends now in the range.
	now := s.opts.Now()
	eq := func(name string, col *string) bool {
		want, given := q.str(name)
		return !given || (col != nil && *col == want)
	}
	picked := []v2Job{}
	for _, j := range jobs {
		if starts.match(cmp.Or(j.start, &now)) && ends.match(cmp.Or(j.end, &now)) && eq("job_state", j.State) && eq("job_type", j.JobType) &&
			eq("hostname", j.Hostname) && eq("executor_class", j.ExecutorClass) {
			picked = append(picked, j)
		}
	}
	v2OrderRows(picked, keys, compareV2Jobs, func(a, b v2Job) int { return cmp.Compare(a.ID, b.ID) })
	page := v2Window(picked, v2Page(q))
	if _, given := q.v2Bool("is_alive"); given {
		page = slices.DeleteFunc(page, func(j v2Job) bool { return !j.alive })
	}
	return v2JobCollection{Jobs: page, TotalEntries: len(picked)}, nil
}

// compareV2Jobs orders jobs by one of get_jobs' sort attributes.
func compareV2Jobs(a, b v2Job, attr string) int {
	str := func(x, y *string) int { return compareNullable(x, y, strings.Compare) }
	when := func(x, y *time.Time) int { return compareNullable(x, y, time.Time.Compare) }
	switch attr {
	case "dag_id":
		return str(a.DagID, b.DagID)
	case "state":
		return str(a.State, b.State)
	case "job_type":
		return str(a.JobType, b.JobType)
	case "start_date":
		return when(a.start, b.start)
	case "end_date":
		return when(a.end, b.end)
	case "latest_heartbeat":
		return compareNullable(a.LatestHeartbeat, b.LatestHeartbeat, func(x, y v2When) int { return time.Time(x).Compare(time.Time(y)) })
	case "executor_class":
		return str(a.ExecutorClass, b.ExecutorClass)
	case "hostname":
		return str(a.Hostname, b.Hostname)
	case "unixname":
		return str(a.Unixname, b.Unixname)
	}
	return cmp.Compare(a.ID, b.ID)
}

// v2ListDagWarnings is dag_warning.py list_dag_warnings: the warnings of
// ops_dagwarnings.go, filtered by dag_id and warning_type, ordered (dag_id
// by default; a DAG has one warning of a type, (dag_id, warning_type)
// being the table's key) and paged. A warning's timestamp is when its DAG
// was parsed.
func (s *server) v2ListDagWarnings(req *apiRequest) (any, error) {
	keys, err := v2OrderBy(req.query, "dag_id", v2DagWarningOrders, nil)
	if err != nil {
		return nil, err
	}
	all, err := s.ops.dagWarnings()
	if err != nil {
		return nil, err
	}
	dagID, byDag := req.query.str("dag_id")
	kind, byKind := req.query.str("warning_type")
	rows := make([]v2DagWarning, 0, len(all))
	for _, w := range all {
		if (byDag && w.row.DagID != dagID) || (byKind && w.warningType != kind) {
			continue
		}
		rows = append(rows, v2DagWarning{DagID: w.row.DagID, WarningType: w.warningType, Message: w.message,
			Timestamp: v2When(s.lastParsed(w.row)), DagDisplayName: dagDisplayName(w.row)})
	}
	v2OrderRows(rows, keys, compareV2DagWarnings, func(a, b v2DagWarning) int {
		return cmp.Or(strings.Compare(a.DagID, b.DagID), strings.Compare(a.WarningType, b.WarningType))
	})
	return v2DagWarningCollection{DagWarnings: v2Window(rows, v2Page(req.query)), TotalEntries: len(rows)}, nil
}

// compareV2DagWarnings orders warnings by a sort attribute.
func compareV2DagWarnings(a, b v2DagWarning, attr string) int {
	switch attr {
	case "warning_type":
		return strings.Compare(a.WarningType, b.WarningType)
	case "message":
		return strings.Compare(a.Message, b.Message)
	case "timestamp":
		return time.Time(a.Timestamp).Compare(time.Time(b.Timestamp))
	}
	return strings.Compare(a.DagID, b.DagID)
}

// v2MetaRoutes are the rows of config, plugins, providers, jobs and DAG
// warnings (core_api/routes/public/config.py, plugins.py, providers.py,
// job.py, dag_warning.py), in __init__.py's order of their routers.
func (s *server) v2MetaRoutes(t *routeTable) {
	d := t.dialect
	empty := func(v any) routeHandler { return d.answer(s, func(*apiRequest) (any, error) { return v, nil }) }
	t.add(http.MethodGet, "/config", d.refused(s, v2ConfigRefused), withDependency(v2AcceptCheck), withQuery(qV2Str("section")))
	t.add(http.MethodGet, "/config/section/{section}/option/{option}", d.refused(s, v2ConfigRefused), withDependency(v2AcceptCheck))
	t.add(http.MethodGet, "/plugins", empty(v2PluginCollection{Plugins: []struct{}{}}), withQuery(qV2Limit, qV2Offset))
	t.add(http.MethodGet, "/plugins/importErrors", empty(v2PluginImportErrors{ImportErrors: []struct{}{}}))
	t.add(http.MethodGet, "/providers", empty(v2ProviderCollection{Providers: []struct{}{}}), withQuery(qV2Limit, qV2Offset))
	// FastAPI validates the parameters of an endpoint's dependencies
	// before its own (is_alive, the one plain parameter of get_jobs), so a
	// 422 lists them in this order, not the document's.
	t.add(http.MethodGet, "/jobs", d.answer(s, s.v2GetJobs), withQuery(append(append(qV2DateRange("start_date"), qV2DateRange("end_date")...),
		qV2Limit, qV2Offset, qV2OrderBy, qV2Str("job_state"), qV2Str("job_type"), qV2Str("hostname"), qV2Str("executor_class"),
		qV2Bool("is_alive"))...))
	t.add(http.MethodGet, "/dagWarnings", d.answer(s, s.v2ListDagWarnings), withQuery(qV2Str("dag_id"),
		v1Param{name: "warning_type", kind: paramString, enum: v2DagWarningTypes}, qV2Limit, qV2Offset, qV2OrderBy))
}

// v2HealthRenders keeps /monitor/health's answer rendered for the last
// heartbeat seen: the answer changes with the heartbeat and the
// scheduler's liveness only, and rendering it is most of the route's work.
type v2HealthRenders struct {
	last atomic.Pointer[v2HealthRender]
}

// v2HealthRender is the answer rendered for one heartbeat and liveness.
type v2HealthRender struct {
	beat  time.Time // zero: none
	alive bool
	body  v2Rendered
}

// answer is v2Health(h), rendered once per heartbeat and liveness.
func (c *v2HealthRenders) answer(h webserverHealth) (*v2Rendered, error) {
	var beat time.Time
	if h.schedulerBeat != nil {
		beat = *h.schedulerBeat
	}
	// == rather than Equal: the same instant in another location renders
	// other bytes.
	if last := c.last.Load(); last != nil && last.beat == beat && last.alive == h.schedulerAlive {
		return &last.body, nil
	}
	body, err := renderV2JSON(v2Health(h))
	if err != nil {
		return nil, err
	}
	next := &v2HealthRender{beat: beat, alive: h.schedulerAlive, body: v2Rendered{body: body}}
	c.last.Store(next)
	return &next.body, nil
}
