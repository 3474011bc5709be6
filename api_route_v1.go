package main

// The stable API's route table (the v1 dialect, api_dialect.go): one row
// per operation of Airflow 2.10.3's OpenAPI document, with Airflow's path
// under /api/v1, its query parameters, its body check and its action log;
// then the few rows whose answer is not a JSON document.

import (
	"net/http"
	"strconv"
	"strings"
)

// v1Routes is the stable REST API, one line per operation with Airflow's
// path under /api/v1 and its query parameters (mount puts them behind the v1 dialect).
func (s *server) v1Routes() *routeTable {
	d, rules := s.dialV1, s.rules()
	vr := &routeTable{dialect: d}
	vr.add(http.MethodGet, "/health", d.answer(s, func(*apiRequest) (any, error) { return s.V1Health(), nil }), openRoute)
	vr.add(http.MethodGet, "/version", d.answer(s, func(*apiRequest) (any, error) {
		return map[string]any{"version": rules.version, "git_version": rules.gitVersion}, nil
	}), openRoute)
	vr.add(http.MethodGet, "/config", s.handleV1Config, withQuery(v1Param{name: "section", schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/config/section/{section}/option/{option}", s.handleV1Config) // get_value: the same refusal
	vr.add(http.MethodGet, "/providers", d.answer(s, func(*apiRequest) (any, error) { return map[string]any{"providers": []any{}, "total_entries": 0}, nil }))
	vr.add(http.MethodGet, "/plugins", d.answer(s, func(req *apiRequest) (any, error) {
		if _, err := d.page(req.query); err != nil {
			return nil, err
		}
		return map[string]any{"plugins": []any{}, "total_entries": 0}, nil
	}), withQuery(qLimit, qOffset))
	vr.add(http.MethodGet, "/importErrors", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetImportErrors(req.query) }), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, "/importErrors/{import_error_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetImportError(req.path["import_error_id"]) }), withPathInts("import_error_id"))
	vr.add(http.MethodGet, "/dagWarnings", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDagWarnings(req.query) }), withQuery(
		v1Param{name: "dag_id", schema: "{'type': 'string'}"}, v1Param{name: "warning_type", schema: "{'type': 'string'}"},
		qLimit, qOffset, qOrderBy))

	vr.add(http.MethodGet, "/dags", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDags(req.query) }), withQuery(qLimit, qOffset, qOrderBy, qTags, qOnlyActive, qPaused, qFields, qDagIDPattern))
	vr.add(http.MethodPatch, "/dags", d.answer(s, func(req *apiRequest) (any, error) { return s.V1PatchDags(req.query, req.body) }), withBody(checkDagBody), withActionAfterLimit("patch_dags"),
		withQuery(qLimit, qOffset, qTags, qUpdateMask, qOnlyActive, v1Param{name: "dag_id_pattern", required: true, schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/dags/{dag_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDag(req.path["dag_id"], req.query.list("fields")) }), withQuery(qFields))
	vr.add(http.MethodPatch, "/dags/{dag_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchDag(req.path["dag_id"], req.body, req.query.list("update_mask"))
	}), withBody(checkDagBody), withQuery(qUpdateMask), withAction("patch_dag"))
	vr.add(http.MethodDelete, "/dags/{dag_id}", d.deleted(s, func(req *apiRequest) error { return s.V1DeleteDag(req.path["dag_id"]) }), withAction("delete_dag"))
	vr.add(http.MethodGet, "/dags/{dag_id}/details", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetDagDetails(req.path["dag_id"], req.query.list("fields"))
	}), withQuery(qFields))
	vr.add(http.MethodGet, "/dags/{dag_id}/tasks", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetTasks(req.path["dag_id"], req.query) }), withQuery(qOrderBy))
	vr.add(http.MethodGet, "/dags/{dag_id}/tasks/{task_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetTask(req.path["dag_id"], req.path["task_id"]) }))
	vr.add(http.MethodGet, "/dagSources/{file_token}", s.handleV1GetDagSource)
	vr.add(http.MethodGet, "/dagStats", d.answer(s, func(req *apiRequest) (any, error) {
		ids, _ := req.query.str("dag_ids")
		return s.V1GetDagStats(ids)
	}), withQuery(v1Param{name: "dag_ids", required: true, schema: "{'type': 'string'}"}))

	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDagRuns(req.path["dag_id"], req.query) }), withQuery(qLimit, qOffset,
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "state", kind: paramStringArray}, qOrderBy, qFields))
	vr.add(http.MethodPost, "/dags/{dag_id}/dagRuns", s.handleV1PostDagRun, withBody(checkPostRunBody), withActionInWrite("post_dag_run"))
	vr.add(http.MethodPost, "/dags/~/dagRuns/list", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDagRunsBatch(req.body) }), withBody(checkListRunsForm))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetDagRun(req.path["dag_id"], req.path["dag_run_id"], req.query.list("fields"))
	}), withQuery(qFields))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1UpdateDagRunState(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkUpdateRunStateBody), withAction("update_dag_run_state"))
	vr.add(http.MethodDelete, "/dags/{dag_id}/dagRuns/{dag_run_id}", d.deleted(s, func(req *apiRequest) error { return s.V1DeleteDagRun(req.path["dag_id"], req.path["dag_run_id"]) }), withAction("delete_dag_run"))
	vr.add(http.MethodPost, "/dags/{dag_id}/dagRuns/{dag_run_id}/clear", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1ClearDagRun(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkClearRunBody), withAction("clear_dag_run"))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}/setNote", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1SetDagRunNote(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkSetRunNoteBody), withAction("set_dag_run_note"))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/upstreamDatasetEvents", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1UpstreamDatasetEvents(req.path["dag_id"], req.path["dag_run_id"])
	}))

	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstances(req.path["dag_id"], req.path["dag_run_id"], req.query)
	}), withQuery(
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "duration_gte", kind: paramNumber}, v1Param{name: "duration_lte", kind: paramNumber},
		v1Param{name: "state", kind: paramStringArray}, v1Param{name: "pool", kind: paramStringArray},
		v1Param{name: "queue", kind: paramStringArray}, v1Param{name: "executor", kind: paramStringArray}, qLimit, qOffset))
	vr.add(http.MethodPost, "/dags/~/dagRuns/~/taskInstances/list", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetTaskInstancesBatch(req.body) }), withBody(checkListTIsForm))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"])
	}))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, req.body)
	}), withBody(checkPatchTIBody), withAction("patch_task_instance"))
	vr.add(http.MethodPost, "/dags/{dag_id}/clearTaskInstances", d.answer(s, func(req *apiRequest) (any, error) { return s.V1ClearTaskInstances(req.path["dag_id"], req.body) }), withBody(checkClearTIsBody), withAction("post_clear_task_instances"))
	vr.add(http.MethodPost, "/dags/{dag_id}/updateTaskInstancesState", d.answer(s, func(req *apiRequest) (any, error) { return s.V1SetTaskInstancesState(req.path["dag_id"], req.body) }), withBody(checkSetTIsStateBody), withAction("post_set_task_instances_state"))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/logs/{task_try_number}", s.handleV1GetLog,
		withPathInts("task_try_number"), withQuery(v1Param{name: "full_content", kind: paramBoolean},
			v1Param{name: "map_index", kind: paramInteger}, v1Param{name: "token", schema: "{'type': 'string'}"}))

	const ti = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}"
	vr.add(http.MethodGet, ti+"/tries", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstanceTries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1)
	}), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, ti+"/tries/{task_try_number}", d.answer(s, func(req *apiRequest) (any, error) {
		try, _ := strconv.ParseInt(req.path["task_try_number"], 10, 64)
		return s.V1GetTaskInstanceTry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, try)
	}), withPathInts("task_try_number"))
	vr.add(http.MethodGet, ti+"/{map_index}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetMappedTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"))
	vr.add(http.MethodPatch, ti+"/{map_index}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), req.body)
	}), withPathInts("map_index"), withBody(checkPatchTIBody), withAction("patch_mapped_task_instance"))
	vr.add(http.MethodGet, ti+"/{map_index}/tries", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstanceTries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, ti+"/{map_index}/tries/{task_try_number}", d.answer(s, func(req *apiRequest) (any, error) {
		try, _ := strconv.ParseInt(req.path["task_try_number"], 10, 64)
		return s.V1GetTaskInstanceTry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), try)
	}), withPathInts("map_index", "task_try_number"))
	vr.add(http.MethodGet, ti+"/listMapped", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetMappedTaskInstances(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], req.query)
	}), withQuery(qLimit, qOffset,
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "duration_gte", kind: paramNumber}, v1Param{name: "duration_lte", kind: paramNumber},
		v1Param{name: "state", kind: paramStringArray}, v1Param{name: "pool", kind: paramStringArray},
		v1Param{name: "queue", kind: paramStringArray}, v1Param{name: "executor", kind: paramStringArray}, qOrderBy))
	vr.add(http.MethodGet, ti+"/links", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetExtraLinks(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"])
	}))
	vr.add(http.MethodGet, ti+"/dependencies", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstanceDependencies(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1)
	}))
	vr.add(http.MethodGet, ti+"/{map_index}/dependencies", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetTaskInstanceDependencies(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"))
	vr.add(http.MethodPatch, ti+"/setNote", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1SetTaskInstanceNote(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, req.body)
	}), withBody(checkSetTINoteBody), withAction("set_task_instance_note"))
	vr.add(http.MethodPatch, ti+"/{map_index}/setNote", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1SetTaskInstanceNote(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), req.body)
	}), withPathInts("map_index"), withBody(checkSetTINoteBody), withAction("set_task_instance_note"))

	vr.add(http.MethodGet, "/datasets", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDatasets(req.query) }), withQuery(qLimit, qOffset, qOrderBy,
		v1Param{name: "uri_pattern", schema: "{'type': 'string'}"}, v1Param{name: "dag_ids", schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/datasets/events", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDatasetEvents(req.query) }), withQuery(qLimit, qOffset, qOrderBy,
		v1Param{name: "dataset_id", kind: paramInteger, schema: "{'type': 'integer'}"}, v1Param{name: "source_dag_id", schema: "{'type': 'string'}"},
		v1Param{name: "source_task_id", schema: "{'type': 'string'}"}, v1Param{name: "source_run_id", schema: "{'type': 'string'}"},
		v1Param{name: "source_map_index", kind: paramInteger, schema: "{'type': 'integer'}"}))
	vr.add(http.MethodPost, "/datasets/events", d.answer(s, func(req *apiRequest) (any, error) { return s.V1CreateDatasetEvent(req.body) }), withBody(checkCreateDatasetEventBody))
	vr.add(http.MethodGet, "/datasets/{uri:path}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetDataset(req.path["uri"]) }))
	queued := func(dag, uri string) func(req *apiRequest) (any, error) {
		return func(req *apiRequest) (any, error) {
			return s.V1GetQueuedEvents(req.path[dag], req.path[uri], req.query)
		}
	}
	unqueue := func(dag, uri string) func(req *apiRequest) error {
		return func(req *apiRequest) error { return s.V1DeleteQueuedEvents(req.path[dag], req.path[uri], req.query) }
	}
	vr.add(http.MethodGet, "/datasets/queuedEvent/{uri:path}", d.answer(s, queued("", "uri")), withQuery(qBefore))
	vr.add(http.MethodDelete, "/datasets/queuedEvent/{uri:path}", d.deleted(s, unqueue("", "uri")), withQuery(qBefore))
	vr.add(http.MethodGet, "/dags/{dag_id}/datasets/queuedEvent", d.answer(s, queued("dag_id", "")), withQuery(qBefore))
	vr.add(http.MethodDelete, "/dags/{dag_id}/datasets/queuedEvent", d.deleted(s, unqueue("dag_id", "")), withQuery(qBefore))
	vr.add(http.MethodGet, "/dags/{dag_id}/datasets/queuedEvent/{uri:path}", d.answer(s, queued("dag_id", "uri")), withQuery(qBefore))
	vr.add(http.MethodDelete, "/dags/{dag_id}/datasets/queuedEvent/{uri:path}", d.deleted(s, unqueue("dag_id", "uri")), withQuery(qBefore))
	vr.add(http.MethodPut, "/parseDagFile/{file_token}", s.handleV1ReparseDagFile)

	// FAB's roles, users and permissions: no FAB user database (apiv1_fab.go)
	fabOnly := d.refused(s, func(*apiRequest) error { return v1BadRequest(fabOnlyDetail) })
	vr.add(http.MethodGet, "/roles", fabOnly, openRoute, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/roles", fabOnly, openRoute, withBody(checkRoleBody))
	vr.add(http.MethodGet, "/roles/{role_name}", fabOnly, openRoute)
	vr.add(http.MethodPatch, "/roles/{role_name}", fabOnly, openRoute, withBody(checkRoleBody), withQuery(qUpdateMask))
	vr.add(http.MethodDelete, "/roles/{role_name}", fabOnly, openRoute)
	vr.add(http.MethodGet, "/permissions", fabOnly, openRoute, withQuery(qLimit, qOffset))
	vr.add(http.MethodGet, "/users", fabOnly, openRoute, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/users", fabOnly, openRoute, withBody(checkUserBody))
	vr.add(http.MethodGet, "/users/{username}", fabOnly, openRoute)
	vr.add(http.MethodPatch, "/users/{username}", fabOnly, openRoute, withBody(checkUserBody), withQuery(qUpdateMask))
	vr.add(http.MethodDelete, "/users/{username}", fabOnly, openRoute)

	vr.add(http.MethodGet, "/pools", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetPools(req.query) }), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/pools", d.answer(s, func(req *apiRequest) (any, error) { return s.V1PostPool(req.body) }), withBody(checkPoolBody), withAction("post_pool"))
	vr.add(http.MethodGet, "/pools/{pool_name}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetPool(req.path["pool_name"]) }))
	vr.add(http.MethodPatch, "/pools/{pool_name}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchPool(req.path["pool_name"], req.body, updateMaskFields(req.query))
	}), withBody(checkPoolBody), withQuery(qUpdateMask), withAction("patch_pool"))
	// pool and variable deletions return Flask's Response(status=204)
	// (respondV1DeletedResponse), not connexion's NoContent
	vr.add(http.MethodDelete, "/pools/{pool_name}", func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		s.respondV1DeletedResponse(w, r, s.V1DeletePool(req.path["pool_name"]))
	}, withAction("delete_pool"))

	vr.add(http.MethodGet, "/variables", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetVariables(req.query) }), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/variables", d.answer(s, func(req *apiRequest) (any, error) { return s.V1PostVariable(req.body) }), withBody(checkVariableBody), withAction("variable.create"))
	vr.add(http.MethodGet, "/variables/{variable_key:path}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetVariable(req.path["variable_key"]) }))
	vr.add(http.MethodPatch, "/variables/{variable_key:path}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchVariable(req.path["variable_key"], req.body, updateMaskFields(req.query))
	}), withBody(checkVariableBody), withQuery(qUpdateMask), withAction("variable.edit"))
	vr.add(http.MethodDelete, "/variables/{variable_key:path}", func(w http.ResponseWriter, r *http.Request, req *apiRequest) {
		s.respondV1DeletedResponse(w, r, s.V1DeleteVariable(req.path["variable_key"]))
	}, withAction("variable.delete"))
	vr.add(http.MethodGet, "/connections", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetConnections(req.query) }), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/connections", d.answer(s, func(req *apiRequest) (any, error) { return s.V1PostConnection(req.body) }), withBody(checkConnectionBody), withAction("connection.create"))
	vr.add(http.MethodGet, "/connections/{connection_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetConnection(req.path["connection_id"]) }))
	vr.add(http.MethodPatch, "/connections/{connection_id}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1PatchConnection(req.path["connection_id"], req.body, updateMaskFields(req.query))
	}), withBody(checkConnectionBody), withQuery(qUpdateMask), withAction("connection.edit"))
	vr.add(http.MethodDelete, "/connections/{connection_id}", d.deleted(s, func(req *apiRequest) error { return s.V1DeleteConnection(req.path["connection_id"]) }), withAction("connection.delete"))
	vr.add(http.MethodPost, "/connections/test", s.handleV1TestConnection, withBody(checkConnectionBody))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetXComEntries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], req.query)
	}),
		withQuery(qMapIndex, qXComKey, qLimit, qOffset))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries/{xcom_key}", d.answer(s, func(req *apiRequest) (any, error) {
		return s.V1GetXComEntry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], req.path["xcom_key"], req.query)
	}),
		withQuery(qMapIndex, qDeserialize, qStringify))
	vr.add(http.MethodGet, "/eventLogs", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetEventLogs(req.query) }), withQuery(eventLogQuery...))
	vr.add(http.MethodGet, "/eventLogs/{event_log_id}", d.answer(s, func(req *apiRequest) (any, error) { return s.V1GetEventLog(req.path["event_log_id"]) }), withPathInts("event_log_id"))
	return vr
}

// handleV1GetDagSource answers text or JSON as the Accept header asks.
func (s *server) handleV1GetDagSource(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	code, err := s.V1GetDagSource(req.path["file_token"])
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1Text(w, r, code)
}

func (s *server) handleV1PostDagRun(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	res, err := s.V1PostDagRun(req.path["dag_id"], req.body, req.event)
	if err != nil && req.event != nil {
		// No run, so the event was not stored with it: Airflow logs
		// the request before it runs, whatever it comes to.
		if logErr := s.opts.Store.AppendEventLog(*req.event); logErr != nil {
			err = logErr
		}
	}
	s.dialV1.respond(s, w, r, res, err)
}

func (s *server) handleV1GetLog(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	try, _ := strconv.Atoi(strings.TrimSpace(req.path["task_try_number"]))
	res, err := s.V1GetLog(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], try, req.query)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1Log(w, r, res)
}

// handleV1TestConnection answers POST /connections/test as Airflow does
// with testing disabled, after connexion has checked the body.
func (s *server) handleV1TestConnection(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(testConnectionDisabled))
	}
}

func (s *server) handleV1ReparseDagFile(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	duplicate, err := s.V1ReparseDagFile(req.path["file_token"])
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8") // Flask's Response(status=201)
	w.WriteHeader(http.StatusCreated)
	if duplicate && r.Method != http.MethodHead {
		_, _ = w.Write([]byte("Duplicate request"))
	}
}

// handleV1Config is GET /config with Airflow's default expose_config =
// False: the Accept header is read first (406 when it names neither text
// nor JSON, as Werkzeug's best_match finds nothing in an absent header),
// then the refusal.
func (s *server) handleV1Config(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	if bestMatch(r.Header.Get("Accept"), "text/plain", "application/json") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	s.answerError(w, r, v1Forbidden("Your Airflow administrator chose not to expose the configuration, most likely for security reasons."))
}
