package main

// Airflow 3's routes about the deployment itself (issue #21): config,
// plugins, providers, jobs and DAG warnings. airlite has no plugins, no
// providers and no DAG warnings, and keeps its configuration to itself,
// so these answer as an Airflow 3.2.1 without any does; its jobs are the
// scheduler, when it runs.

import (
	"net/http"
	"strings"
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

// v2GetConfig is core_api/routes/public/config.py get_config and
// get_config_value with expose_config off: the Accept header is read
// (a 406 for a type it does not serve), then the configuration is
// refused, whatever section or option is asked.
func (s *server) v2GetConfig(*apiRequest, *http.Request) (any, error) {
	return nil, &v2Error{status: http.StatusForbidden, detail: v2ConfigNotExposed}
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

// v2DagWarningCollection is datamodels/dag_warning.py
// DAGWarningCollectionResponse: airlite's DAG files raise no warning
// (no pools they name are missing from a check Airflow runs, no assets).
type v2DagWarningCollection struct {
	DagWarnings  []struct{} `json:"dag_warnings"`
	TotalEntries int        `json:"total_entries"`
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
	ID              int64      `json:"id"`
	DagID           *string    `json:"dag_id"`
	State           *string    `json:"state"`
	JobType         *string    `json:"job_type"`
	StartDate       v2TimePtr  `json:"start_date"`
	EndDate         v2TimePtr  `json:"end_date"`
	LatestHeartbeat v2TimePtr  `json:"latest_heartbeat"`
	ExecutorClass   *string    `json:"executor_class"`
	Hostname        *string    `json:"hostname"`
	Unixname        *string    `json:"unixname"`
	DagDisplayName  *string    `json:"dag_display_name"`
	alive           bool       // jobs/job.py Job.is_alive
	start, beat     *time.Time // for the filters and the order
}

// v2JobCollection is datamodels/job.py JobCollectionResponse.
type v2JobCollection struct {
	Jobs         []v2Job `json:"jobs"`
	TotalEntries int     `json:"total_entries"`
}

// v2JobOrders are job.py get_jobs' sort attributes.
var v2JobOrders = []string{"id", "dag_id", "state", "job_type", "start_date", "end_date", "latest_heartbeat", "executor_class", "hostname", "unixname"}

// v2SchedulerJob is airlite's scheduler as Airflow lists its SchedulerJob:
// id 1, running while its loop runs (success once stopped, as Airflow's
// job ends), its last pass as the latest heartbeat, and alive as
// /monitor/health says it is. No job when the scheduler is off.
func (s *server) v2SchedulerJob() (v2Job, bool) {
	if s.opts.SchedulerHeartbeat == nil || s.opts.SchedulerJob.Start.IsZero() {
		return v2Job{}, false
	}
	last, running := s.opts.SchedulerHeartbeat()
	start := s.opts.SchedulerJob.Start.UTC()
	if last.IsZero() {
		last = start // Job.__init__ sets latest_heartbeat to its start
	}
	state, jobType := "running", "SchedulerJob"
	if !running {
		state = "success"
	}
	host, unixname := s.opts.SchedulerJob.Hostname, s.opts.Unixname
	j := v2Job{ID: 1, State: &state, JobType: &jobType, StartDate: v2TimePtr{&start}, LatestHeartbeat: v2TimePtr{&last},
		Hostname: &host, Unixname: &unixname, start: &start, beat: &last}
	j.alive = schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now()).schedulerAlive
	return j, true
}
