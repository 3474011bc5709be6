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
	s.v2ExtraLinkRows(t)
	s.v2XComRows(t)
	s.v2TaskInstanceRows(t)
	s.v2LogRows(t)
	return t
}

// --- Extra links (core_api/routes/public/extra_links.py, included
// before xcom_router and task_instances_router) ---
func (s *server) v2ExtraLinkRows(t *routeTable) {
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/links", s.dialV2.answer(s, s.v2GetExtraLinks),
		withQuery(qV2Int("map_index")))
}

// --- XCom (core_api/routes/public/xcom.py, xcom_router: included before
// task_instances_router, so that .../{task_id}/xcomEntries is not taken
// for .../{task_id}/{map_index}) ---
func (s *server) v2XComRows(t *routeTable) {
	d := s.dialV2
	const xcoms = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries"
	mapIndex := v1Param{name: "map_index", kind: paramInteger, minimum: minimum(-1)}
	t.add(http.MethodGet, xcoms+"/{xcom_key}", d.answer(s, s.v2GetXComEntry),
		withQuery(mapIndex, qV2Bool("deserialize"), qV2Bool("stringify")))
	t.add(http.MethodGet, xcoms, d.answer(s, s.v2GetXComEntries), withQuery(v2XComListParams...))
	t.add(http.MethodPost, xcoms, s.v2CreateXComEntry, v2Body(v2XComCreateModel))
	t.add(http.MethodPatch, xcoms+"/{xcom_key}", d.answer(s, s.v2UpdateXComEntry), v2Body(v2XComUpdateModel))
	t.add(http.MethodDelete, xcoms+"/{xcom_key}", d.deleted(s, s.v2DeleteXComEntry), withQuery(mapIndex))
}

// --- Task instances (core_api/routes/public/task_instances.py, in its
// order: literal rows such as .../{task_id}/tries before
// .../{task_id}/{map_index}) ---
func (s *server) v2TaskInstanceRows(t *routeTable) {
	d := s.dialV2
	const tis = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances"
	mapIndex := qV2Int("map_index")
	t.add(http.MethodGet, tis+"/{task_id}", d.answer(s, s.v2GetTaskInstance))
	t.add(http.MethodGet, tis+"/{task_id}/listMapped", d.answer(s, s.v2GetMappedTaskInstances), withQuery(v2TIListParams(false)...))
	t.add(http.MethodGet, tis+"/{task_id}/dependencies", d.answer(s, s.v2GetTaskInstanceDependencies(false)), withQuery(mapIndex))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/dependencies", d.answer(s, s.v2GetTaskInstanceDependencies(true)), withPathInts("map_index"))
	t.add(http.MethodGet, tis+"/{task_id}/tries", d.answer(s, s.v2GetTaskInstanceTries(false)), withQuery(mapIndex))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/tries", d.answer(s, s.v2GetTaskInstanceTries(true)), withPathInts("map_index"))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}", d.answer(s, s.v2GetMappedTaskInstance), withPathInts("map_index"))
	t.add(http.MethodGet, tis, d.answer(s, s.v2GetTaskInstances), withQuery(v2TIListParams(true)...))
	t.add(http.MethodPost, tis+"/list", d.answer(s, s.v2GetTaskInstancesBatch), v2Body(v2TIBatchModel))
	t.add(http.MethodGet, tis+"/{task_id}/tries/{task_try_number}", d.answer(s, s.v2GetTaskInstanceTry(false)),
		withQuery(mapIndex), withPathInts("task_try_number"))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/tries/{task_try_number}", d.answer(s, s.v2GetTaskInstanceTry(true)),
		withPathInts("map_index", "task_try_number"))
	t.add(http.MethodPost, "/dags/{dag_id}/clearTaskInstances", d.answer(s, s.v2ClearTaskInstances), v2ClearBody())
	updateMask := qV2Strs("update_mask")
	t.add(http.MethodPatch, tis+"/{task_id}/dry_run", d.answer(s, s.v2PatchTaskInstance(false, true)),
		withQuery(mapIndex, updateMask), v2Body(v2PatchTIModel))
	t.add(http.MethodPatch, tis+"/{task_id}/{map_index}/dry_run", d.answer(s, s.v2PatchTaskInstance(true, true)),
		withQuery(updateMask), withPathInts("map_index"), v2Body(v2PatchTIModel))
	t.add(http.MethodPatch, tis, d.answer(s, s.v2BulkTaskInstances), v2Body(v2BulkTIModel))
	t.add(http.MethodPatch, tis+"/{task_id}", d.answer(s, s.v2PatchTaskInstance(false, false)),
		withQuery(mapIndex, updateMask), v2Body(v2PatchTIModel))
	t.add(http.MethodPatch, tis+"/{task_id}/{map_index}", d.answer(s, s.v2PatchTaskInstance(true, false)),
		withQuery(updateMask), withPathInts("map_index"), v2Body(v2PatchTIModel))
	t.add(http.MethodDelete, tis+"/{task_id}", d.answer(s, s.v2DeleteTaskInstance), withQuery(mapIndex))
}

// --- Task instance logs (core_api/routes/public/log.py,
// task_instances_log_router: included after task_instances_router) ---
func (s *server) v2LogRows(t *routeTable) {
	const tis = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances"
	t.add(http.MethodGet, tis+"/{task_id}/logs/{try_number}", s.v2GetLog, withQuery(v2LogParams...), withPathInts("try_number"))
	t.add(http.MethodGet, tis+"/{task_id}/externalLogUrl/{try_number}", s.dialV2.answer(s, s.v2GetExternalLogURL),
		withQuery(qV2Int("map_index")), withPathInts("try_number"))
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
