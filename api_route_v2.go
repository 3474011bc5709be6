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
	// core_api/routes/public/version.py get_version: no auth dependency.
	t.add(http.MethodGet, "/version", d.answer(s, func(*apiRequest) (any, error) {
		return v2VersionInfo{Version: s.rules().version, GitVersion: s.rules().gitVersion}, nil
	}), openRoute)
	// core_api/routes/public/monitor.py get_health: no auth dependency.
	t.add(http.MethodGet, "/monitor/health", d.answer(s, func(*apiRequest) (any, error) {
		return v2Health(schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now())), nil
	}), openRoute)
	s.v2RunRoutes(t)
	return t
}

// v2RunRoutes is the DAG run block (core_api/routes/public/dag_run.py, in
// its order; apiv2_runs.go).
func (s *server) v2RunRoutes(t *routeTable) {
	d := s.dialV2
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, s.v2GetDagRun))
	t.add(http.MethodDelete, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.deleted(s, s.v2DeleteDagRun))
	t.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, s.v2PatchDagRun),
		withQuery(qV2Strs("update_mask")), v2Body(v2RunPatchBody))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/upstreamAssetEvents", d.answer(s, s.v2UpstreamAssetEvents))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns/{dag_run_id}/clear", d.answer(s, s.v2ClearDagRun), v2Body(v2RunClearBody))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns", d.answer(s, s.v2GetDagRuns), withQuery(v2RunListParams...))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns", d.answer(s, s.v2TriggerDagRun), v2Body(v2TriggerBody))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/wait", s.v2WaitDagRun,
		withQuery(v1Param{name: "interval", kind: paramNumber, required: true}, qV2Strs("result")))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns/list", d.answer(s, s.v2GetDagRunsBatch), v2Body(v2RunsBatchBody))
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
