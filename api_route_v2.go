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
	t.add(http.MethodGet, "/dags", d.answer(s, s.V2GetDags), withQuery(v2DagListParams()...), withDependency(v2DagListTransforms))
	t.add(http.MethodGet, "/dags/{dag_id}", d.answer(s, s.V2GetDag))
	t.add(http.MethodGet, "/dags/{dag_id}/details", d.answer(s, s.V2GetDagDetails))
	t.add(http.MethodPatch, "/dags/{dag_id}", d.answer(s, s.V2PatchDag), withQuery(qV2Strs("update_mask")), v2Body(v2DagPatchBody), withV2Action("patch_dag"))
	t.add(http.MethodPatch, "/dags", d.answer(s, s.V2PatchDags), withQuery(v2DagPatchManyParams...), v2Body(v2DagPatchBody), withV2Action("patch_dags"))
	t.add(http.MethodPost, "/dags/{dag_id}/favorite", d.deleted(s, func(req *apiRequest) error { return s.V2FavoriteDag(req, true) }), withV2Action("favorite_dag"))
	t.add(http.MethodPost, "/dags/{dag_id}/unfavorite", d.deleted(s, func(req *apiRequest) error { return s.V2FavoriteDag(req, false) }), withV2Action("unfavorite_dag"))
	t.add(http.MethodDelete, "/dags/{dag_id}", d.deleted(s, s.V2DeleteDag), withV2Action("delete_dag"))
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
	health := &v2HealthRenders{}
	t.add(http.MethodGet, "/monitor/health", d.answer(s, func(*apiRequest) (any, error) {
		return health.answer(schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now()))
	}), openRoute)
	s.v2RunRoutes(t)
	s.v2BackfillRoutes(t)
	// Login and logout redirects: core_api/routes/public/auth.py (api_auth_v2.go).
	s.v2AuthRoutes(t)

	// Assets (core_api/routes/public/assets.py, in its order: the literal
	// /assets/aliases and /assets/events before /assets/{asset_id};
	// apiv2_assets.go). POST /assets/{asset_id}/materialize answers
	// the DAG run (apiv2_runs.go).
	qBefore := qV2Str("before") // the document declares a plain string
	t.add(http.MethodGet, "/assets", d.answer(s, s.V2GetAssets), withQuery(qV2Limit, qV2Offset, qV2Str("name_pattern"), qV2Str("uri_pattern"),
		qV2Strs("dag_ids"), qV2Bool("only_active"), qV2OrderBy))
	t.add(http.MethodGet, "/assets/aliases", d.answer(s, s.V2GetAssetAliases), withQuery(qV2Limit, qV2Offset, qV2Str("name_pattern"), qV2OrderBy))
	t.add(http.MethodGet, "/assets/aliases/{asset_alias_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V2GetAssetAlias(req.path["asset_alias_id"]) }),
		withPathInts("asset_alias_id"))
	t.add(http.MethodGet, "/assets/events", d.answer(s, s.V2GetAssetEvents), withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Int("asset_id"),
		qV2Str("source_dag_id"), qV2Str("source_task_id"), qV2Str("source_run_id"), qV2Int("source_map_index"), qV2Str("name_pattern"),
		qV2Date("timestamp_gte"), qV2Date("timestamp_gt"), qV2Date("timestamp_lte"), qV2Date("timestamp_lt")))
	t.add(http.MethodPost, "/assets/events", d.answer(s, func(req *apiRequest) (any, error) { return s.V2CreateAssetEvent(req.body) }),
		v2Body(v2CreateAssetEventsBody), withV2Action("create_asset_event"))
	t.add(http.MethodPost, "/assets/{asset_id}/materialize", d.answer(s, s.V2MaterializeAsset), withPathInts("asset_id"), v2OptionalBody(v2MaterializeBody),
		withV2Action("materialize_asset"))
	t.add(http.MethodGet, "/assets/{asset_id}/queuedEvents", d.answer(s, s.V2GetQueuedEvents),
		withPathInts("asset_id"), withQuery(qBefore))
	t.add(http.MethodGet, "/assets/{asset_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V2GetAsset(req.path["asset_id"]) }),
		withPathInts("asset_id"))
	t.add(http.MethodGet, "/dags/{dag_id}/assets/queuedEvents", d.answer(s, s.V2GetQueuedEvents),
		withQuery(qBefore))
	t.add(http.MethodGet, "/dags/{dag_id}/assets/{asset_id}/queuedEvents", d.answer(s, s.V2GetQueuedEvents), withPathInts("asset_id"), withQuery(qBefore))
	t.add(http.MethodDelete, "/assets/{asset_id}/queuedEvents", d.deleted(s, s.V2DeleteQueuedEvents),
		withPathInts("asset_id"), withQuery(qBefore), withV2Action("delete_asset_queued_events"))
	t.add(http.MethodDelete, "/dags/{dag_id}/assets/queuedEvents", d.deleted(s, s.V2DeleteQueuedEvents),
		withQuery(qBefore), withV2Action("delete_dag_asset_queued_events"))
	t.add(http.MethodDelete, "/dags/{dag_id}/assets/{asset_id}/queuedEvents", d.deleted(s, s.V2DeleteQueuedEvents), withPathInts("asset_id"), withQuery(qBefore),
		withV2Action("delete_dag_asset_queued_event"))

	// Connections (core_api/routes/public/connections.py, in its order; apiv2_connections.go).
	t.add(http.MethodDelete, "/connections/{connection_id}", d.deleted(s, func(req *apiRequest) error { return s.V2DeleteConnection(req.path["connection_id"]) }), withV2Action("delete_connection"))
	t.add(http.MethodGet, "/connections/{connection_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V2GetConnection(req.path["connection_id"]) }))
	t.add(http.MethodGet, "/connections", d.answer(s, s.V2GetConnections), withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("connection_id_pattern")))
	t.add(http.MethodPost, "/connections", v2Created(s, d, func(req *apiRequest) (any, error) { return s.V2PostConnection(req.body) }), v2Body(v2ConnectionBody), withV2Action("post_connection"))
	t.add(http.MethodPatch, "/connections", d.answer(s, func(req *apiRequest) (any, error) { return s.V2BulkConnections(req.body) }), v2Body(v2ConnectionBulkBody), withV2Action("bulk_connections"))
	t.add(http.MethodPatch, "/connections/{connection_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V2PatchConnection(req.path["connection_id"], req.body, v2Mask(req.query))
	}), withQuery(qV2Strs("update_mask")), v2Body(v2ConnectionBody), withV2Action("patch_connection"))
	// test_connection has no action_logging (c57fba0e
	// routes/public/connections.py:223): no event-log row.
	t.add(http.MethodPost, "/connections/test", d.answer(s, func(*apiRequest) (any, error) { return nil, v2ConnectionTestDisabled }), v2Body(v2ConnectionBody))
	// create_default_connections answers 204 (d.deleted writes no content).
	t.add(http.MethodPost, "/connections/defaults", d.deleted(s, func(*apiRequest) error { return s.ops.createDefaultConnections() }), withV2Action("create_default_connections"))

	// Pools (core_api/routes/public/pools.py, in its order; apiv2_pools.go).
	t.add(http.MethodDelete, "/pools/{pool_name:path}", d.deleted(s, func(req *apiRequest) error { return s.V2DeletePool(req.path["pool_name"]) }), withV2Action("delete_pool"))
	t.add(http.MethodGet, "/pools/{pool_name:path}", d.answer(s, func(req *apiRequest) (any, error) { return s.V2GetPool(req.path["pool_name"]) }))
	t.add(http.MethodGet, "/pools", d.answer(s, s.V2GetPools), withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("pool_name_pattern")))
	t.add(http.MethodPatch, "/pools/{pool_name:path}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V2PatchPool(req.path["pool_name"], req.body, v2Mask(req.query))
	}), withQuery(qV2Strs("update_mask")), v2Body(v2PoolPatchBody), withV2Action("patch_pool"))
	t.add(http.MethodPost, "/pools", v2Created(s, d, func(req *apiRequest) (any, error) { return s.V2PostPool(req.body) }), v2Body(v2PoolBody), withV2Action("post_pool"))
	t.add(http.MethodPatch, "/pools", d.answer(s, func(req *apiRequest) (any, error) { return s.V2BulkPools(req.body) }), v2Body(v2PoolBulkBody), withV2Action("bulk_pools"))

	// Variables (core_api/routes/public/variables.py, in its order; apiv2_variables.go).
	t.add(http.MethodDelete, "/variables/{variable_key:path}", d.deleted(s, func(req *apiRequest) error { return s.V2DeleteVariable(req.path["variable_key"]) }), withV2Action("delete_variable"))
	t.add(http.MethodGet, "/variables/{variable_key:path}", d.answer(s, func(req *apiRequest) (any, error) { return s.V2GetVariable(req.path["variable_key"]) }))
	t.add(http.MethodGet, "/variables", d.answer(s, s.V2GetVariables), withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("variable_key_pattern")))
	t.add(http.MethodPatch, "/variables/{variable_key:path}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V2PatchVariable(req.path["variable_key"], req.body, v2Mask(req.query))
	}), withQuery(qV2Strs("update_mask")), v2Body(v2VariableBody), withV2Action("patch_variable"))
	t.add(http.MethodPost, "/variables", v2Created(s, d, func(req *apiRequest) (any, error) { return s.V2PostVariable(req.body) }), v2Body(v2VariableBody), withV2Action("post_variable"))
	t.add(http.MethodPatch, "/variables", d.answer(s, func(req *apiRequest) (any, error) { return s.V2BulkVariables(req.body) }), v2Body(v2VariableBulkBody), withV2Action("bulk_variables"))
	// Config, plugins, providers, jobs and DAG warnings (apiv2_meta.go).
	s.v2MetaRoutes(t)

	// Import errors (apiv2_importerrors.go).
	s.v2ImportErrorRoutes(t)

	// Event logs (apiv2_eventlogs.go).
	s.v2EventLogRoutes(t)

	// DAG sources (apiv2_dagsources.go).
	s.v2DagSourceRoutes(t)

	// DAG statistics (apiv2_dagstats.go).
	s.v2DagStatsRoutes(t)

	// DAG parsing requests (apiv2_dagparsing.go).
	s.v2DagParsingRoutes(t)

	// Extra links, XCom, task instances and logs (apiv2_tis.go, apiv2_xcom.go,
	// apiv2_logs.go), in this order.
	s.v2ExtraLinkRows(t)
	s.v2XComRows(t)
	s.v2TaskInstanceRows(t)
	s.v2LogRows(t)

	// Human-in-the-loop details (apiv2_hitl.go).
	s.v2HITLRoutes(t)
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
// for .../{task_id}/{map_index}; the key takes the rest of the path,
// slashes included, xcom.py:64,308,357 of the 3.2.0-era main,
// Phinhas214/airflow c57fba0e, apache/airflow#58344) ---
func (s *server) v2XComRows(t *routeTable) {
	d := s.dialV2
	const xcoms = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries"
	mapIndex := v1Param{name: "map_index", kind: paramInteger, minimum: minimum(-1)}
	t.add(http.MethodGet, xcoms+"/{xcom_key:path}", d.answer(s, s.v2GetXComEntry),
		withQuery(mapIndex, qV2Bool("deserialize"), qV2Bool("stringify")))
	t.add(http.MethodGet, xcoms, d.answer(s, s.v2GetXComEntries), withQuery(v2XComListParams...))
	t.add(http.MethodPost, xcoms, s.v2CreateXComEntry, v2Body(v2XComCreateModel), withV2Action("create_xcom_entry"))
	t.add(http.MethodPatch, xcoms+"/{xcom_key:path}", d.answer(s, s.v2UpdateXComEntry), v2Body(v2XComUpdateModel), withV2Action("update_xcom_entry"))
	t.add(http.MethodDelete, xcoms+"/{xcom_key:path}", d.deleted(s, s.v2DeleteXComEntry), withQuery(mapIndex), withV2Action("delete_xcom_entry"))
}

// --- Task instances (core_api/routes/public/task_instances.py, in its
// order: literal rows such as .../{task_id}/tries before
// .../{task_id}/{map_index}) ---
func (s *server) v2TaskInstanceRows(t *routeTable) {
	d := s.dialV2
	const tis = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances"
	mapIndex := qV2Int("map_index")
	t.add(http.MethodGet, tis+"/{task_id}", d.answer(s, s.v2GetTaskInstance))
	t.add(http.MethodGet, tis+"/{task_id}/listMapped", d.answer(s, s.v2GetMappedTaskInstances), withQuery(v2TIListParams(false)...),
		withDependency(v2TIListTransforms))
	t.add(http.MethodGet, tis+"/{task_id}/dependencies", d.answer(s, s.v2GetTaskInstanceDependencies(false)), withQuery(mapIndex))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/dependencies", d.answer(s, s.v2GetTaskInstanceDependencies(true)), withPathInts("map_index"))
	t.add(http.MethodGet, tis+"/{task_id}/tries", d.answer(s, s.v2GetTaskInstanceTries(false)), withQuery(mapIndex))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/tries", d.answer(s, s.v2GetTaskInstanceTries(true)), withPathInts("map_index"))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}", d.answer(s, s.v2GetMappedTaskInstance), withPathInts("map_index"))
	t.add(http.MethodGet, tis, d.answer(s, s.v2GetTaskInstances), withQuery(v2TIListParams(true)...), withDependency(v2TIListTransforms))
	// get_task_instances_batch is a read that action_logging logs
	// (c57fba0e routes/public/task_instances.py:540-548).
	t.add(http.MethodPost, tis+"/list", d.answer(s, s.v2GetTaskInstancesBatch), v2Body(v2TIBatchModel), withPathTildes("dag_id", "dag_run_id"), withV2Action("get_task_instances_batch"))
	t.add(http.MethodGet, tis+"/{task_id}/tries/{task_try_number}", d.answer(s, s.v2GetTaskInstanceTry(false)),
		withQuery(mapIndex), withPathInts("task_try_number"))
	t.add(http.MethodGet, tis+"/{task_id}/{map_index}/tries/{task_try_number}", d.answer(s, s.v2GetTaskInstanceTry(true)),
		withPathInts("map_index", "task_try_number"))
	t.add(http.MethodPost, "/dags/{dag_id}/clearTaskInstances", d.answer(s, s.v2ClearTaskInstances), v2ClearBody(), withV2Action("post_clear_task_instances"))
	updateMask := qV2Strs("update_mask")
	t.add(http.MethodPatch, tis+"/{task_id}/dry_run", d.answer(s, s.v2PatchTaskInstance(false, true)),
		withQuery(mapIndex, updateMask), v2Body(v2PatchTIModel))
	t.add(http.MethodPatch, tis+"/{task_id}/{map_index}/dry_run", d.answer(s, s.v2PatchTaskInstance(true, true)),
		withQuery(updateMask), withPathInts("map_index"), v2Body(v2PatchTIModel))
	t.add(http.MethodPatch, tis, d.answer(s, s.v2BulkTaskInstances), v2Body(v2BulkTIModel))
	t.add(http.MethodPatch, tis+"/{task_id}", d.answer(s, s.v2PatchTaskInstance(false, false)),
		withQuery(mapIndex, updateMask), v2Body(v2PatchTIModel), withV2Action("patch_task_instance"))
	t.add(http.MethodPatch, tis+"/{task_id}/{map_index}", d.answer(s, s.v2PatchTaskInstance(true, false)),
		withQuery(updateMask), withPathInts("map_index"), v2Body(v2PatchTIModel), withV2Action("patch_task_instance"))
	t.add(http.MethodDelete, tis+"/{task_id}", d.answer(s, s.v2DeleteTaskInstance), withQuery(mapIndex))
}

// --- Task instance logs (core_api/routes/public/log.py,
// task_instances_log_router: included after task_instances_router) ---
func (s *server) v2LogRows(t *routeTable) {
	const tis = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances"
	// get_log's try_number is a NonNegativeInt (3.1 on), get_external_log_url's a PositiveInt.
	t.add(http.MethodGet, tis+"/{task_id}/logs/{try_number}", s.v2GetLog, withQuery(v2LogParams...), withPathInts("try_number"),
		withPathIntBound("try_number", 0, false), withDependency(v2LogAcceptCheck))
	t.add(http.MethodGet, tis+"/{task_id}/externalLogUrl/{try_number}", s.dialV2.answer(s, s.v2GetExternalLogURL),
		withQuery(qV2Int("map_index")), withPathInts("try_number"), withPathIntBound("try_number", 0, true))
}

// v2BackfillRoutes is the backfill block (core_api/routes/public/
// backfills.py, in its order; apiv2_backfills.go): pause, unpause, cancel
// and create are wrapped in action_logging, the dry run is not. Airflow declares POST
// /backfills/dry_run last: no {backfill_id} route takes a POST, so the
// literal path still reaches it, and another method on it is the 405 of
// the first route its path fits, GET /backfills/{backfill_id}, as there.
func (s *server) v2BackfillRoutes(t *routeTable) {
	d := s.dialV2
	id := withPathInts("backfill_id")
	t.add(http.MethodGet, "/backfills", d.answer(s, s.V2ListBackfills),
		withQuery(v1Param{name: "dag_id", kind: paramString, required: true}, qV2Limit, qV2Offset, qV2OrderBy))
	t.add(http.MethodGet, "/backfills/{backfill_id}", d.answer(s, s.V2GetBackfill), id)
	t.add(http.MethodPut, "/backfills/{backfill_id}/pause", d.answer(s, s.v2BackfillChange(func(id int64) (*Backfill, error) {
		return s.ops.pauseBackfill(id, true)
	})), id, withV2Action("pause_backfill"))
	t.add(http.MethodPut, "/backfills/{backfill_id}/unpause", d.answer(s, s.v2BackfillChange(func(id int64) (*Backfill, error) {
		return s.ops.pauseBackfill(id, false)
	})), id, withV2Action("unpause_backfill"))
	t.add(http.MethodPut, "/backfills/{backfill_id}/cancel", d.answer(s, s.v2BackfillChange(s.ops.cancelBackfill)), id,
		withV2Action("cancel_backfill"))
	t.add(http.MethodPost, "/backfills", d.answer(s, s.V2CreateBackfill), v2Body(v2BackfillPostBody), withV2Action("create_backfill"))
	t.add(http.MethodPost, "/backfills/dry_run", d.answer(s, s.V2CreateBackfillDryRun), v2Body(v2BackfillPostBody))
}

// v2RunRoutes is the DAG run block (core_api/routes/public/dag_run.py, in
// its order; apiv2_runs.go).
func (s *server) v2RunRoutes(t *routeTable) {
	d := s.dialV2
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, s.v2GetDagRun))
	t.add(http.MethodDelete, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.deleted(s, s.v2DeleteDagRun), withV2Action("delete_dag_run"))
	t.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, s.v2PatchDagRun),
		withQuery(qV2Strs("update_mask")), v2Body(v2RunPatchBody), withV2Action("patch_dag_run"))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/upstreamAssetEvents", d.answer(s, s.v2UpstreamAssetEvents))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns/{dag_run_id}/clear", d.answer(s, s.v2ClearDagRun), v2Body(v2RunClearBody), withV2Action("clear_dag_run"))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns", d.answer(s, s.v2GetDagRuns), withQuery(v2RunListParams...), withDependency(s.v2RunListTransforms))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns", d.answer(s, s.v2TriggerDagRun), v2Body(v2TriggerBody), withV2ActionInWrite("trigger_dag_run"))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/wait", s.v2WaitDagRun,
		withQuery(v1Param{name: "interval", kind: paramNumber, required: true}, qV2Strs("result")))
	t.add(http.MethodPost, "/dags/{dag_id}/dagRuns/list", d.answer(s, s.v2GetDagRunsBatch), v2Body(v2RunsBatchBody), withPathTildes("dag_id"))
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
