package main

// Airflow 3's /api/v2 route table (the v2 dialect, apiv2.go): one row per
// operation of Airflow 3.2.1's OpenAPI document, in the order of
// core_api/routes/public/__init__.py.

import (
	"net/http"
)

// v2Routes is /api/v2, one row per operation.
func (s *server) v2Routes() *routeTable {
	d := s.dialV2
	t := &routeTable{dialect: d}
	// DAGs: core_api/routes/public/dags.py, in its order (v2dags).
	t.add(http.MethodGet, "/dags", d.answer(s, s.V2GetDags), withQuery(v2DagListParams()...))
	t.add(http.MethodGet, "/dags/{dag_id}", d.answer(s, s.V2GetDag))
	t.add(http.MethodGet, "/dags/{dag_id}/details", d.answer(s, s.V2GetDagDetails))
	t.add(http.MethodPatch, "/dags/{dag_id}", d.answer(s, s.V2PatchDag), withQuery(qV2Strs("update_mask")), v2Body(v2DagPatchBody))
	t.add(http.MethodPatch, "/dags", d.answer(s, s.V2PatchDags), withQuery(v2DagPatchManyParams...), v2Body(v2DagPatchBody))
	t.add(http.MethodPost, "/dags/{dag_id}/favorite", d.deleted(s, func(req *apiRequest) error { return s.V2FavoriteDag(req, true) }))
	t.add(http.MethodPost, "/dags/{dag_id}/unfavorite", d.deleted(s, func(req *apiRequest) error { return s.V2FavoriteDag(req, false) }))
	t.add(http.MethodDelete, "/dags/{dag_id}", d.deleted(s, s.V2DeleteDag))
	// Tasks: core_api/routes/public/tasks.py (v2dags).
	t.add(http.MethodGet, "/dags/{dag_id}/tasks", d.answer(s, s.V2GetTasks), withQuery(qV2Str("order_by")))
	t.add(http.MethodGet, "/dags/{dag_id}/tasks/{task_id}", d.answer(s, s.V2GetTask))
	// DAG tags: core_api/routes/public/dag_tags.py (v2dags).
	t.add(http.MethodGet, "/dagTags", d.answer(s, s.V2GetDagTags), withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("tag_name_pattern")))
	// DAG versions: core_api/routes/public/dag_versions.py (v2dags).
	t.add(http.MethodGet, "/dags/{dag_id}/dagVersions/{version_number}", d.answer(s, s.V2GetDagVersion), withPathInts("version_number"))
	t.add(http.MethodGet, "/dags/{dag_id}/dagVersions", d.answer(s, s.V2GetDagVersions),
		withQuery(qV2Limit, qV2Offset, qV2Int("version_number"), qV2Str("bundle_name"), qV2Str("bundle_version"), qV2OrderBy))
	// core_api/routes/public/version.py get_version: no auth dependency.
	t.add(http.MethodGet, "/version", d.answer(s, func(*apiRequest) (any, error) {
		return v2VersionInfo{Version: s.rules().version, GitVersion: s.rules().gitVersion}, nil
	}), openRoute)
	// core_api/routes/public/monitor.py get_health: no auth dependency.
	t.add(http.MethodGet, "/monitor/health", d.answer(s, func(*apiRequest) (any, error) {
		return v2Health(schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now())), nil
	}), openRoute)
	return t
}

// v2VersionInfo is datamodels/version.py VersionInfo.
type v2VersionInfo struct {
	Version    string `json:"version"`
	GitVersion any    `json:"git_version"`
}

// v2HealthInfo is datamodels/monitor.py HealthInfoResponse as 3.2.1's
// document has it (metadatabase, scheduler, triggerer, dag_processor).
type v2HealthInfo struct {
	Metadatabase v2BaseInfo `json:"metadatabase"`
	Scheduler    struct {
		Status    *string `json:"status"`
		Heartbeat *string `json:"latest_scheduler_heartbeat"`
	} `json:"scheduler"`
	Triggerer struct {
		Status    *string `json:"status"`
		Heartbeat *string `json:"latest_triggerer_heartbeat"`
	} `json:"triggerer"`
	DagProcessor struct {
		Status    *string `json:"status"`
		Heartbeat *string `json:"latest_dag_processor_heartbeat"`
	} `json:"dag_processor"`
}

type v2BaseInfo struct {
	Status *string `json:"status"`
}

// v2Health is airflow/api/common/airflow_health.py get_airflow_health: the
// metadatabase healthy, the scheduler unhealthy unless alive, and the
// triggerer and DAG processor, which airlite does not run, null as Airflow
// reports components without a running job.
func v2Health(h webserverHealth) v2HealthInfo {
	var out v2HealthInfo
	healthy := "healthy"
	out.Metadatabase.Status = &healthy
	status := healthStatus(h.schedulerAlive)
	out.Scheduler.Status = &status
	if h.schedulerBeat != nil {
		beat := isoFormat(*h.schedulerBeat)
		out.Scheduler.Heartbeat = &beat
	}
	return out
}
