package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/rs/zerolog"
)

const (
	apiPrefix = "/api/experimental"
	// maxBodyBytes bounds request bodies; larger ones get a 413.
	maxBodyBytes = 1 << 20
	// defaultBodyTimeout bounds the time a client takes to send a body
	// (--body-timeout).
	defaultBodyTimeout = 30 * time.Second
)

// serverOptions is everything the HTTP layer needs.
type serverOptions struct {
	Edition edition // the server reads its rules (s.rules())
	Store   *Store
	DAGs    *DAGSet // what /_airlite/reset goes back to
	Auth    *authenticator
	Logger  zerolog.Logger
	// AccessLog, when set, gets one line per request, stamped with the
	// request's end time: it needs no timestamp hook of its own (main
	// gives it a writer that never blocks a request).
	AccessLog *zerolog.Logger
	Now       func() time.Time
	Unixname  string
	// Kick wakes the scheduler; nil when it is off.
	Kick func()
	// Clock is the fake clock of --clock fake; nil when the clock is real.
	Clock *fakeClock
	// Journal records requests for /_airlite/requests; nil when off.
	Journal *journal
	// WithTasksStopped applies a change to the store and stops the running
	// tasks that match, in one step of the scheduler's (see
	// scheduler.WithTasksStopped); nil when the scheduler is off.
	WithTasksStopped func(match func(tiKey) bool, change func() error) error
	// Browser says which browser requests are answered (api_guard.go).
	Browser browserPolicy
	// BodyTimeout bounds the time a client takes to send a request body;
	// 0 means defaultBodyTimeout.
	BodyTimeout time.Duration
	// SchedulerHeartbeat is the scheduler's last heartbeat and whether its
	// loop runs (scheduler.Heartbeat), for /health; nil when it is off.
	SchedulerHeartbeat func() (last time.Time, running bool)
}

// server answers Airflow's experimental API and airlite's admin endpoints.
type server struct {
	opts  serverOptions
	ops   *operations // what every API below calls
	api   *airflowAPI
	ready atomic.Bool
	// The answers of /test and /info, rendered once and kept as interface
	// values: converting a slice to one per request allocated.
	testBody, infoBody any
	// v1Secret signs the stable API's file tokens (apiv1_filetoken.go);
	// drawn at start, as Airflow draws a secret_key when none is set.
	v1Secret []byte
	// startedAt is when the DAG files were read: the stable API's
	// last_parsed_time.
	startedAt time.Time
}

func newServer(opts serverOptions) (*server, error) {
	switch {
	case opts.Store == nil:
		return nil, errors.New("new server: no store")
	case opts.DAGs == nil:
		return nil, errors.New("new server: no DAG set")
	case opts.Auth == nil:
		return nil, errors.New("new server: no auth backend")
	}
	if _, err := parseEdition(string(opts.Edition)); err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = defaultBodyTimeout
	}
	rules := opts.Edition.rules()
	testBody, err := rules.json.marshal(map[string]any{"status": "OK"})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	infoBody, err := rules.json.marshal(map[string]any{"version": rules.version})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("new server: draw secret key: %w", err)
	}
	ops := &operations{store: opts.Store, edition: opts.Edition, now: opts.Now, unixname: opts.Unixname,
		kick: opts.Kick, tasksStopped: opts.WithTasksStopped}
	if opts.Clock != nil {
		ops.triggerDate = opts.Clock.TriggerDate
	}
	api := &airflowAPI{store: opts.Store, edition: opts.Edition, now: opts.Now, unixname: opts.Unixname,
		kick: opts.Kick, shared: ops}
	return &server{
		opts: opts, ops: ops, api: api, v1Secret: secret, startedAt: opts.Now().UTC().Truncate(time.Microsecond),
		testBody: prerendered(testBody), infoBody: prerendered(infoBody),
	}, nil
}

// rules is the row of the rules table that the server reads.
func (s *server) rules() *editionRules { return s.opts.Edition.rules() }

// routes is the whole handler: the browser policy, then the router, inside
// the access log and the journal when they are on.
func (s *server) routes() http.Handler {
	guarded := s.guarded(s.router())
	if s.opts.AccessLog == nil && s.opts.Journal == nil {
		return guarded
	}
	return s.observed(guarded)
}

// router registers every endpoint, one line per route with Airflow's path;
// the rules say which of the API's routes exist.
func (s *server) router() *httprouter.Router {
	rules := s.rules()
	r := httprouter.New()
	// Werkzeug answers /pools/ with a 404 and never fixes a path's case.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(s.handleNotFound)
	r.MethodNotAllowed = http.HandlerFunc(s.handleMethodNotAllowed)
	r.GlobalOPTIONS = http.HandlerFunc(s.handleOptions)
	r.PanicHandler = s.handlePanic

	s.api2(r, http.MethodPost, "/dags/:dag_id/dag_runs", s.handleTriggerDAG)
	s.api2(r, http.MethodGet, "/dags/:dag_id/dag_runs", s.handleDagRuns)
	s.api2(r, http.MethodGet, "/dags/:dag_id/dag_runs/:execution_date", s.handleDagRunStatus)
	s.api2(r, http.MethodGet, "/dags/:dag_id/dag_runs/:execution_date/tasks/:task_id", s.handleTaskInstanceInfo)
	s.api2(r, http.MethodGet, "/dags/:dag_id/tasks/:task_id", s.handleTaskInfo)
	s.api2(r, http.MethodGet, "/dags/:dag_id/code", s.handleGetDagCode)
	s.api2(r, http.MethodGet, "/dags/:dag_id/paused/:paused", s.handleDagPaused)
	s.api2(r, http.MethodGet, "/dags/:dag_id/paused", s.handleDagIsPaused)
	if rules.deleteDagRoute {
		s.api2(r, http.MethodDelete, "/dags/:dag_id", s.handleDeleteDag)
	}
	s.api2(r, http.MethodGet, "/latest_runs", s.handleLatestDagRuns)
	s.api2(r, http.MethodGet, "/pools", s.handleGetPools)
	s.api2(r, http.MethodPost, "/pools", s.handleCreatePool)
	s.api2(r, http.MethodGet, "/pools/:name", s.handleGetPool)
	s.api2(r, http.MethodDelete, "/pools/:name", s.handleDeletePool)
	s.api2(r, http.MethodGet, "/test", s.handleTest)
	if rules.infoRoute {
		s.api2(r, http.MethodGet, "/info", s.handleInfo)
	}
	if rules.lineageRoute {
		s.api2(r, http.MethodGet, "/lineage/:dag_id/:execution_date", s.handleGetLineage)
	}

	if rules.apiV1 {
		s.registerV1(r, s.v1Routes())
	}

	s.uiRoutes(r)                                                 // the status pages: /, /pools, the run page of dag_run_url, /trigger, /paused
	s.public(r, http.MethodGet, "/health", s.handleHealthAirflow) // the webserver's, for health checks written for Airflow
	s.admin(r, http.MethodGet, "/_airlite/health", s.handleHealth, false)
	s.admin(r, http.MethodGet, "/_airlite/ready", s.handleReady, false)
	s.admin(r, http.MethodPost, "/_airlite/reset", s.handleReset, true)
	s.admin(r, http.MethodPost, "/_airlite/dags", s.handleLoadDAG, true)
	s.admin(r, http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/state", s.handleForceRunState, true)
	s.admin(r, http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/tasks/:task_id/state", s.handleForceTaskState, true)
	s.admin(r, http.MethodGet, "/_airlite/dags/:dag_id/dag_runs/:run_id/wait", s.handleWaitRun, true)
	s.admin(r, http.MethodGet, "/_airlite/clock", s.handleGetClock, true)
	s.admin(r, http.MethodPost, "/_airlite/clock", s.handleMoveClock, true)
	s.admin(r, http.MethodGet, "/_airlite/requests", s.handleListRequests, true)
	s.admin(r, http.MethodDelete, "/_airlite/requests", s.handleClearRequests, true)
	return r
}

// v1Routes is the stable REST API, one line per operation with Airflow's
// path under /api/v1 and its query parameters (registerV1 mounts them).
func (s *server) v1Routes() *v1Router {
	vr := &v1Router{}
	vr.add(http.MethodGet, "/health", s.handleV1Health, openRoute)
	vr.add(http.MethodGet, "/version", s.handleV1Version, openRoute)
	vr.add(http.MethodGet, "/config", s.handleV1Config, withQuery(v1Param{name: "section", schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/config/section/{section}/option/{option}", s.handleV1Config) // get_value: the same refusal
	vr.add(http.MethodGet, "/providers", s.handleV1Providers)
	vr.add(http.MethodGet, "/plugins", s.handleV1Plugins, withQuery(qLimit, qOffset))
	vr.add(http.MethodGet, "/importErrors", s.handleV1ImportErrors, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, "/importErrors/{import_error_id}", s.handleV1GetImportError, withPathInts("import_error_id"))
	vr.add(http.MethodGet, "/dagWarnings", s.handleV1DagWarnings, withQuery(
		v1Param{name: "dag_id", schema: "{'type': 'string'}"}, v1Param{name: "warning_type", schema: "{'type': 'string'}"},
		qLimit, qOffset, qOrderBy))

	vr.add(http.MethodGet, "/dags", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetDags(req.query) }), withQuery(qLimit, qOffset, qOrderBy, qTags, qOnlyActive, qPaused, qFields, qDagIDPattern))
	vr.add(http.MethodPatch, "/dags", s.v1Answer(func(req *v1Request) (any, error) { return s.V1PatchDags(req.query, req.body) }), withBody(checkDagBody), withActionAfterLimit("patch_dags"),
		withQuery(qLimit, qOffset, qTags, qUpdateMask, qOnlyActive, v1Param{name: "dag_id_pattern", required: true, schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/dags/{dag_id}", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetDag(req.path["dag_id"], req.query.list("fields")) }), withQuery(qFields))
	vr.add(http.MethodPatch, "/dags/{dag_id}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1PatchDag(req.path["dag_id"], req.body, req.query.list("update_mask"))
	}), withBody(checkDagBody), withQuery(qUpdateMask), withAction("patch_dag"))
	vr.add(http.MethodDelete, "/dags/{dag_id}", s.v1Deleted(func(req *v1Request) error { return s.V1DeleteDag(req.path["dag_id"]) }), withAction("delete_dag"))
	vr.add(http.MethodGet, "/dags/{dag_id}/details", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetDagDetails(req.path["dag_id"], req.query.list("fields"))
	}), withQuery(qFields))
	vr.add(http.MethodGet, "/dags/{dag_id}/tasks", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetTasks(req.path["dag_id"], req.query) }), withQuery(qOrderBy))
	vr.add(http.MethodGet, "/dags/{dag_id}/tasks/{task_id}", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetTask(req.path["dag_id"], req.path["task_id"]) }))
	vr.add(http.MethodGet, "/dagSources/{file_token}", s.handleV1GetDagSource)
	vr.add(http.MethodGet, "/dagStats", s.handleV1GetDagStats, withQuery(v1Param{name: "dag_ids", required: true, schema: "{'type': 'string'}"}))

	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetDagRuns(req.path["dag_id"], req.query) }), withQuery(qLimit, qOffset,
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "state", kind: paramStringArray}, qOrderBy, qFields))
	vr.add(http.MethodPost, "/dags/{dag_id}/dagRuns", s.handleV1PostDagRun, withBody(checkPostRunBody), withActionInWrite("post_dag_run"))
	vr.add(http.MethodPost, "/dags/~/dagRuns/list", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetDagRunsBatch(req.body) }), withBody(checkListRunsForm))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetDagRun(req.path["dag_id"], req.path["dag_run_id"], req.query.list("fields"))
	}), withQuery(qFields))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1UpdateDagRunState(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkUpdateRunStateBody), withAction("update_dag_run_state"))
	vr.add(http.MethodDelete, "/dags/{dag_id}/dagRuns/{dag_run_id}", s.v1Deleted(func(req *v1Request) error { return s.V1DeleteDagRun(req.path["dag_id"], req.path["dag_run_id"]) }), withAction("delete_dag_run"))
	vr.add(http.MethodPost, "/dags/{dag_id}/dagRuns/{dag_run_id}/clear", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1ClearDagRun(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkClearRunBody), withAction("clear_dag_run"))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}/setNote", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1SetDagRunNote(req.path["dag_id"], req.path["dag_run_id"], req.body)
	}), withBody(checkSetRunNoteBody), withAction("set_dag_run_note"))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/upstreamDatasetEvents", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1UpstreamDatasetEvents(req.path["dag_id"], req.path["dag_run_id"])
	}))

	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstances(req.path["dag_id"], req.path["dag_run_id"], req.query)
	}), withQuery(
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "duration_gte", kind: paramNumber}, v1Param{name: "duration_lte", kind: paramNumber},
		v1Param{name: "state", kind: paramStringArray}, v1Param{name: "pool", kind: paramStringArray},
		v1Param{name: "queue", kind: paramStringArray}, v1Param{name: "executor", kind: paramStringArray}, qLimit, qOffset))
	vr.add(http.MethodPost, "/dags/~/dagRuns/~/taskInstances/list", s.v1Answer(func(req *v1Request) (any, error) { return s.V1GetTaskInstancesBatch(req.body) }), withBody(checkListTIsForm))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"])
	}))
	vr.add(http.MethodPatch, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1PatchTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, req.body)
	}), withBody(checkPatchTIBody), withAction("patch_task_instance"))
	vr.add(http.MethodPost, "/dags/{dag_id}/clearTaskInstances", s.v1Answer(func(req *v1Request) (any, error) { return s.V1ClearTaskInstances(req.path["dag_id"], req.body) }), withBody(checkClearTIsBody), withAction("post_clear_task_instances"))
	vr.add(http.MethodPost, "/dags/{dag_id}/updateTaskInstancesState", s.v1Answer(func(req *v1Request) (any, error) { return s.V1SetTaskInstancesState(req.path["dag_id"], req.body) }), withBody(checkSetTIsStateBody), withAction("post_set_task_instances_state"))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/logs/{task_try_number}", s.handleV1GetLog,
		withPathInts("task_try_number"), withQuery(v1Param{name: "full_content", kind: paramBoolean},
			v1Param{name: "map_index", kind: paramInteger}, v1Param{name: "token", schema: "{'type': 'string'}"}))

	const ti = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}"
	vr.add(http.MethodGet, ti+"/tries", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstanceTries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1)
	}), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, ti+"/tries/{task_try_number}", s.handleV1GetTaskInstanceTry, withPathInts("task_try_number"))
	vr.add(http.MethodGet, ti+"/{map_index}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetMappedTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"))
	vr.add(http.MethodPatch, ti+"/{map_index}", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1PatchTaskInstance(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), req.body)
	}), withPathInts("map_index"), withBody(checkPatchTIBody), withAction("patch_mapped_task_instance"))
	vr.add(http.MethodGet, ti+"/{map_index}/tries", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstanceTries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"), withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodGet, ti+"/{map_index}/tries/{task_try_number}", s.handleV1GetMappedTaskInstanceTry, withPathInts("map_index", "task_try_number"))
	vr.add(http.MethodGet, ti+"/listMapped", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetMappedTaskInstances(req.path["dag_id"], req.path["task_id"])
	}), withQuery(qLimit, qOffset,
		qDate("execution_date_gte"), qDate("execution_date_lte"), qDate("start_date_gte"), qDate("start_date_lte"),
		qDate("end_date_gte"), qDate("end_date_lte"), qDate("updated_at_gte"), qDate("updated_at_lte"),
		v1Param{name: "duration_gte", kind: paramNumber}, v1Param{name: "duration_lte", kind: paramNumber},
		v1Param{name: "state", kind: paramStringArray}, v1Param{name: "pool", kind: paramStringArray},
		v1Param{name: "queue", kind: paramStringArray}, v1Param{name: "executor", kind: paramStringArray}, qOrderBy))
	vr.add(http.MethodGet, ti+"/links", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetExtraLinks(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"])
	}))
	vr.add(http.MethodGet, ti+"/dependencies", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstanceDependencies(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1)
	}))
	vr.add(http.MethodGet, ti+"/{map_index}/dependencies", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1GetTaskInstanceDependencies(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req))
	}), withPathInts("map_index"))
	vr.add(http.MethodPatch, ti+"/setNote", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1SetTaskInstanceNote(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, req.body)
	}), withBody(checkSetTINoteBody), withAction("set_task_instance_note"))
	vr.add(http.MethodPatch, ti+"/{map_index}/setNote", s.v1Answer(func(req *v1Request) (any, error) {
		return s.V1SetTaskInstanceNote(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), req.body)
	}), withPathInts("map_index"), withBody(checkSetTINoteBody), withAction("set_task_instance_note"))

	vr.add(http.MethodGet, "/datasets", s.handleV1GetDatasets, withQuery(qLimit, qOffset, qOrderBy,
		v1Param{name: "uri_pattern", schema: "{'type': 'string'}"}, v1Param{name: "dag_ids", schema: "{'type': 'string'}"}))
	vr.add(http.MethodGet, "/datasets/events", s.handleV1GetDatasetEvents, withQuery(qLimit, qOffset, qOrderBy,
		v1Param{name: "dataset_id", kind: paramInteger, schema: "{'type': 'integer'}"}, v1Param{name: "source_dag_id", schema: "{'type': 'string'}"},
		v1Param{name: "source_task_id", schema: "{'type': 'string'}"}, v1Param{name: "source_run_id", schema: "{'type': 'string'}"},
		v1Param{name: "source_map_index", kind: paramInteger, schema: "{'type': 'integer'}"}))
	vr.add(http.MethodPost, "/datasets/events", s.handleV1CreateDatasetEvent, withBody(checkCreateDatasetEventBody))
	vr.add(http.MethodGet, "/datasets/{uri:path}", s.handleV1GetDataset)
	vr.add(http.MethodGet, "/datasets/queuedEvent/{uri:path}", s.handleV1DatasetQueuedEvents, withQuery(qBefore))
	vr.add(http.MethodDelete, "/datasets/queuedEvent/{uri:path}", s.handleV1DatasetQueuedEvents, withQuery(qBefore))
	vr.add(http.MethodGet, "/dags/{dag_id}/datasets/queuedEvent", s.handleV1DagQueuedEvents, withQuery(qBefore))
	vr.add(http.MethodDelete, "/dags/{dag_id}/datasets/queuedEvent", s.handleV1DagQueuedEvents, withQuery(qBefore))
	vr.add(http.MethodGet, "/dags/{dag_id}/datasets/queuedEvent/{uri:path}", s.handleV1DagQueuedEvent, withQuery(qBefore))
	vr.add(http.MethodDelete, "/dags/{dag_id}/datasets/queuedEvent/{uri:path}", s.handleV1DagQueuedEvent, withQuery(qBefore))
	vr.add(http.MethodPut, "/parseDagFile/{file_token}", s.handleV1ReparseDagFile)

	// FAB's roles, users and permissions: no FAB user database (apiv1_fab.go)
	vr.add(http.MethodGet, "/roles", s.handleV1FabOnly, openRoute, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/roles", s.handleV1FabOnly, openRoute, withBody(checkRoleBody))
	vr.add(http.MethodGet, "/roles/{role_name}", s.handleV1FabOnly, openRoute)
	vr.add(http.MethodPatch, "/roles/{role_name}", s.handleV1FabOnly, openRoute, withBody(checkRoleBody), withQuery(qUpdateMask))
	vr.add(http.MethodDelete, "/roles/{role_name}", s.handleV1FabOnly, openRoute)
	vr.add(http.MethodGet, "/permissions", s.handleV1FabOnly, openRoute, withQuery(qLimit, qOffset))
	vr.add(http.MethodGet, "/users", s.handleV1FabOnly, openRoute, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/users", s.handleV1FabOnly, openRoute, withBody(checkUserBody))
	vr.add(http.MethodGet, "/users/{username}", s.handleV1FabOnly, openRoute)
	vr.add(http.MethodPatch, "/users/{username}", s.handleV1FabOnly, openRoute, withBody(checkUserBody), withQuery(qUpdateMask))
	vr.add(http.MethodDelete, "/users/{username}", s.handleV1FabOnly, openRoute)

	vr.add(http.MethodGet, "/pools", s.handleV1GetPools, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/pools", s.handleV1PostPool, withBody(checkPoolBody), withAction("post_pool"))
	vr.add(http.MethodGet, "/pools/{pool_name}", s.handleV1GetPool)
	vr.add(http.MethodPatch, "/pools/{pool_name}", s.handleV1PatchPool, withBody(checkPoolBody), withQuery(qUpdateMask), withAction("patch_pool"))
	vr.add(http.MethodDelete, "/pools/{pool_name}", s.handleV1DeletePool, withAction("delete_pool"))

	vr.add(http.MethodGet, "/variables", s.handleV1GetVariables, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/variables", s.handleV1PostVariables, withBody(checkVariableBody), withAction("variable.create"))
	vr.add(http.MethodGet, "/variables/{variable_key:path}", s.handleV1GetVariable)
	vr.add(http.MethodPatch, "/variables/{variable_key:path}", s.handleV1PatchVariable, withBody(checkVariableBody), withQuery(qUpdateMask), withAction("variable.edit"))
	vr.add(http.MethodDelete, "/variables/{variable_key:path}", s.handleV1DeleteVariable, withAction("variable.delete"))
	vr.add(http.MethodGet, "/connections", s.handleV1GetConnections, withQuery(qLimit, qOffset, qOrderBy))
	vr.add(http.MethodPost, "/connections", s.handleV1PostConnection, withBody(checkConnectionBody), withAction("connection.create"))
	vr.add(http.MethodGet, "/connections/{connection_id}", s.handleV1GetConnection)
	vr.add(http.MethodPatch, "/connections/{connection_id}", s.handleV1PatchConnection, withBody(checkConnectionBody), withQuery(qUpdateMask), withAction("connection.edit"))
	vr.add(http.MethodDelete, "/connections/{connection_id}", s.handleV1DeleteConnection, withAction("connection.delete"))
	vr.add(http.MethodPost, "/connections/test", s.handleV1TestConnection, withBody(checkConnectionBody))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries", s.handleV1GetXComEntries,
		withQuery(qMapIndex, qXComKey, qLimit, qOffset))
	vr.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries/{xcom_key}", s.handleV1GetXComEntry,
		withQuery(qMapIndex, qDeserialize, qStringify))
	vr.add(http.MethodGet, "/eventLogs", s.handleV1GetEventLogs, withQuery(eventLogQuery...))
	vr.add(http.MethodGet, "/eventLogs/{event_log_id}", s.handleV1GetEventLog, withPathInts("event_log_id"))
	return vr
}

// v1Answer is a route whose answer is fn's value as JSON, or its error:
// a route-table row instead of a four-line handler.
func (s *server) v1Answer(fn func(req *v1Request) (any, error)) v1Handler {
	return func(w http.ResponseWriter, r *http.Request, req *v1Request) {
		res, err := fn(req)
		s.respondV1(w, r, res, err)
	}
}

// v1Deleted is a route that answers a deletion: 204, or fn's error.
func (s *server) v1Deleted(fn func(req *v1Request) error) v1Handler {
	return func(w http.ResponseWriter, r *http.Request, req *v1Request) {
		s.respondV1Deleted(w, r, fn(req))
	}
}

// respondV1 writes a stable-API result or error.
func (s *server) respondV1(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, v)
}

// respondV1Deleted writes a stable-API deletion: 204, or its error.
func (s *server) respondV1Deleted(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1NoContent(w)
}

// handleV1GetDagSource answers text or JSON as the Accept header asks.
func (s *server) handleV1GetDagSource(w http.ResponseWriter, r *http.Request, req *v1Request) {
	code, err := s.V1GetDagSource(req.path["file_token"])
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1Text(w, r, code)
}

func (s *server) handleV1GetDagStats(w http.ResponseWriter, r *http.Request, req *v1Request) {
	ids, _ := req.query.str("dag_ids")
	res, err := s.V1GetDagStats(ids)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PostDagRun(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PostDagRun(req.path["dag_id"], req.body, req.event)
	if err != nil && req.event != nil {
		// No run, so the event was not stored with it: Airflow logs
		// the request before it runs, whatever it comes to.
		if logErr := s.opts.Store.AppendEventLog(*req.event); logErr != nil {
			err = logErr
		}
	}
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetLog(w http.ResponseWriter, r *http.Request, req *v1Request) {
	try, _ := strconv.Atoi(strings.TrimSpace(req.path["task_try_number"]))
	res, err := s.V1GetLog(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], try, req.query)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1Log(w, r, res)
}

// api2 registers an experimental-API route: access log, edition headers,
// auth, then the handler; GET routes answer HEAD too, as Flask's do.
func (s *server) api2(r *httprouter.Router, method, path string, h httprouter.Handle) {
	pattern := apiPrefix + path
	wrapped := routed(pattern, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.setEditionHeaders(w, true)
		if s.rejected(w, req) {
			return
		}
		h(w, req, ps)
	})
	r.Handle(method, pattern, wrapped)
	if method == http.MethodGet {
		r.Handle(http.MethodHead, pattern, wrapped)
	}
}

// public registers a route of Airflow's webserver that Airflow serves
// without authentication: the edition's headers, no auth backend. GET
// routes answer HEAD too.
func (s *server) public(r *httprouter.Router, method, path string, h httprouter.Handle) {
	wrapped := routed(path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.setEditionHeaders(w, false)
		h(w, req, ps)
	})
	r.Handle(method, path, wrapped)
	if method == http.MethodGet {
		r.Handle(http.MethodHead, path, wrapped)
	}
}

// admin registers an airlite endpoint; withAuth applies the API's backend.
func (s *server) admin(r *httprouter.Router, method, path string, h httprouter.Handle, withAuth bool) {
	r.Handle(method, path, routed(path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.setEditionHeaders(w, false)
		if withAuth && s.rejected(w, req) {
			return
		}
		h(w, req, ps)
	}))
}

// setEditionHeaders adds the app-wide headers and, on experimental routes,
// the deprecation headers, where the rules send them (Airflow 2).
func (s *server) setEditionHeaders(w http.ResponseWriter, deprecated bool) {
	rules := s.rules()
	if rules.appHeaders {
		h := w.Header()
		h["X-Robots-Tag"] = headerNoIndex
		h["Cache-Control"] = headerNoStore
	}
	if deprecated && rules.deprecationHeaders {
		h := w.Header()
		h["Deprecation"] = headerTrue
		h["Link"] = headerLink2
	}
}

// Header values set on every response, built once. Each slice is full to
// its capacity, so an Add elsewhere copies it rather than writing into it.
var (
	headerNoIndex = []string{"noindex, nofollow"}
	headerNoStore = []string{"no-store"}
	headerTrue    = []string{"true"}
	headerLink2   = []string{`<https://airflow.apache.org/docs/apache-airflow/` + rules2.version +
		`/upgrading-to-2.html#migration-guide-from-experimental-api-to-stable-api-v1>; rel="deprecation"; type="text/html"`}
	headerJSON    = []string{"application/json"}
	headerNoSniff = []string{"nosniff"}
	headerSandbox = []string{"sandbox"}
)

// rejected applies the auth backend and answers for it when it refuses.
func (s *server) rejected(w http.ResponseWriter, r *http.Request) bool {
	if err := s.opts.Auth.check(r).asError(); err != nil {
		s.answerError(w, r, err)
		return true
	}
	return false
}

// readBody reads a request body of at most maxBodyBytes.
// A slow client cannot hold a handler: the body must arrive within
// BodyTimeout (the server has no ReadTimeout, which would also end the
// long-poll wait; see main.go). A body that fails to arrive is answered
// once and its connection closed: the deadline stays in force, so that
// net/http's own drain of the unread rest fails at once instead of waiting
// for bytes with no deadline, and "Connection: close" says the rest is
// never read as a next request.
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		w.Header().Set("Connection", "close")
	} else if deadline {
		// Read in full: lift the deadline, or net/http's watch for the
		// client going away would cancel a long handler's context.
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("%w: the limit is %d bytes", errTooLarge, maxBodyBytes)
	}
	if err != nil {
		return nil, newAPIError(errBadRequest, "read request body: %v", err)
	}
	return body, nil
}

// respond writes a result or an error: the common tail of every handler.
func (s *server) respond(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, v)
}

func (s *server) handleTriggerDAG(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	body, err := s.readBody(w, r)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	res, err := s.api.TriggerDAG(ps.ByName("dag_id"), body)
	s.respond(w, r, res, err)
}

func (s *server) handleDagRuns(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.DagRuns(ps.ByName("dag_id"), r.URL.Query().Get("state"))
	s.respond(w, r, res, err)
}

func (s *server) handleDagRunStatus(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.DagRunState(ps.ByName("dag_id"), ps.ByName("execution_date"))
	s.respond(w, r, res, err)
}

func (s *server) handleTaskInstanceInfo(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.TaskInstanceInfo(ps.ByName("dag_id"), ps.ByName("execution_date"), ps.ByName("task_id"))
	s.respond(w, r, res, err)
}

func (s *server) handleTaskInfo(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.TaskInfo(ps.ByName("dag_id"), ps.ByName("task_id"))
	s.respond(w, r, res, err)
}

// handleGetDagCode answers the source as text/html, as Flask does for a
// view that returns a string. Source text labelled HTML, on the status
// pages' origin, would run as a page in a browser: every answer here says
// not to sniff it and to sandbox it (headers Airflow lacks and clients
// ignore).
func (s *server) handleGetDagCode(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	h := w.Header()
	h["X-Content-Type-Options"] = headerNoSniff
	h["Content-Security-Policy"] = headerSandbox
	code, err := s.api.DagCode(ps.ByName("dag_id"))
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, code)
	}
}

func (s *server) handleDagPaused(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.SetPaused(ps.ByName("dag_id"), ps.ByName("paused"))
	s.respond(w, r, res, err)
}

func (s *server) handleDagIsPaused(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.IsPaused(ps.ByName("dag_id"))
	s.respond(w, r, res, err)
}

func (s *server) handleDeleteDag(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.DeleteDag(ps.ByName("dag_id"))
	s.respond(w, r, res, err)
}

func (s *server) handleLatestDagRuns(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	res, err := s.api.LatestRuns()
	s.respond(w, r, res, err)
}

func (s *server) handleGetPools(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	res, err := s.api.Pools()
	s.respond(w, r, res, err)
}

func (s *server) handleGetPool(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.Pool(ps.ByName("name"))
	s.respond(w, r, res, err)
}

func (s *server) handleCreatePool(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	body, err := s.readBody(w, r)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	res, err := s.api.CreatePool(body)
	s.respond(w, r, res, err)
}

func (s *server) handleDeletePool(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.DeletePool(ps.ByName("name"))
	s.respond(w, r, res, err)
}

func (s *server) handleTest(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.writeJSON(w, r, http.StatusOK, s.testBody)
}

func (s *server) handleInfo(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.writeJSON(w, r, http.StatusOK, s.infoBody)
}

func (s *server) handleGetLineage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := s.api.Lineage(ps.ByName("dag_id"), ps.ByName("execution_date"))
	s.respond(w, r, res, err)
}

// handleHealth answers 200 while airlite serves, and 503 saying why while
// the id lease cannot be written (new runs and pools are refused once
// their ids pass it).
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var lease *leaseError
	if errors.As(s.opts.Store.LeaseProblem(), &lease) {
		s.answerError(w, r, &apiError{kind: errUnavailable, msg: leaseText(lease), data: map[string]any{"status": "unavailable"}})
		return
	}
	writeAdminJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// handleHealthAirflow is the webserver's GET /health: 200 with the
// metadatabase's and the scheduler's health whatever they are, as Airflow
// answers it (docs/behaviour.md §1.6).
func (s *server) handleHealthAirflow(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	body, err := s.rules().healthBody(schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now()))
	if err != nil {
		s.answerError(w, r, fmt.Errorf("render health: %w", err))
		return
	}
	w.Header()["Content-Type"] = headerJSON
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// schedulerHealthThreshold is [scheduler] scheduler_health_check_threshold,
// 30 s in both releases (1.10.15 default_airflow.cfg:661, 2.10.3
// config.yml:2402): a scheduler is alive while it runs and its latest
// heartbeat is less than this old.
const schedulerHealthThreshold = 30 * time.Second

// schedulerHealth is what /health says of the scheduler at now: no
// heartbeat while it is off or has not finished a pass (Airflow has no
// scheduler job then), and alive as Airflow's SchedulerJob.is_alive decides
// (1.10.15 airflow/jobs/scheduler_job.py:443-447, 2.10.3 airflow/jobs/job.py:313-316).
func schedulerHealth(heartbeat func() (time.Time, bool), now time.Time) webserverHealth {
	if heartbeat == nil {
		return webserverHealth{}
	}
	last, running := heartbeat()
	if last.IsZero() {
		return webserverHealth{}
	}
	return webserverHealth{schedulerBeat: &last, schedulerAlive: running && now.Sub(last) < schedulerHealthThreshold}
}

func (s *server) handleReady(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !s.ready.Load() {
		writeAdminJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "starting"})
		return
	}
	writeAdminJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}

// handleNotFound answers a path no route matches, as Airflow does for any
// path (see routeError).
func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.answerError(w, r, &routeError{status: http.StatusNotFound, title: "Not Found",
		detail: "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."})
}

func (s *server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	s.answerError(w, r, &routeError{status: http.StatusMethodNotAllowed, title: "Method Not Allowed",
		detail: "The method is not allowed for the requested URL."})
}

// handleOptions completes httprouter's automatic OPTIONS answer (status
// 200, Allow header): Airflow 2 adds its headers, and no auth applies.
func (s *server) handleOptions(w http.ResponseWriter, r *http.Request) {
	s.setEditionHeaders(w, len(r.URL.Path) >= len(apiPrefix) && r.URL.Path[:len(apiPrefix)] == apiPrefix)
	w.WriteHeader(http.StatusOK)
}

// handlePanic answers a panicking handler with a JSON 500 and logs the
// stack; the server goes on serving.
func (s *server) handlePanic(w http.ResponseWriter, r *http.Request, v any) {
	s.opts.Logger.Error().Str("path", r.URL.Path).Interface("panic", v).Bytes("stack", debug.Stack()).Msg("handler panicked")
	s.answerError(w, r, newAPIError(errCrash, "%s", genericInternalError))
}

// statusRecorder captures what a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	route  string // the matched route's pattern, set by routed
}

func (rec *statusRecorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *statusRecorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += n
	return n, err
}

func (rec *statusRecorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// routed wraps a route's handler so that the access log names the route
// pattern it matched.
func routed(route string, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if rec, ok := w.(*statusRecorder); ok {
			rec.route = route
		}
		h(w, r, ps)
	}
}

// observed wraps the whole router with the access log and the request
// journal. The clock is read once as a request starts and once as its
// answer is written, for both layers and the log line: on the shortest
// routes reading it per layer would be a visible share of the handler.
// The access logger has no timestamp hook; each line gets the end time.
func (s *server) observed(next http.Handler) http.Handler {
	access, journal := s.opts.AccessLog, s.opts.Journal
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body := journal.tee(r)
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		end := time.Now()
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		if access != nil {
			if e := access.Info(); e != nil {
				if rec.route != "" {
					e.Str("route", rec.route)
				}
				e.Str("method", r.Method).Int("status", status).Int("bytes", rec.bytes).
					Dur("dur", end.Sub(start)).Time(zerolog.TimestampFieldName, end).Msg("request")
			}
		}
		if body != nil {
			journal.addRequest(r, body, status, start, end)
		}
	})
}

// handleV1TestConnection answers POST /connections/test as Airflow does
// with testing disabled, after connexion has checked the body.
func (s *server) handleV1TestConnection(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(testConnectionDisabled))
	}
}

func (s *server) handleV1GetConnections(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetConnections(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PostConnection(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PostConnection(req.body)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetConnection(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetConnection(req.path["connection_id"])
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PatchConnection(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PatchConnection(req.path["connection_id"], req.body, updateMaskFields(req.query))
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1DeleteConnection(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.respondV1Deleted(w, r, s.V1DeleteConnection(req.path["connection_id"]))
}

func (s *server) handleV1GetDatasets(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetDatasets(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetDatasetEvents(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetDatasetEvents(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetDataset(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.answerError(w, r, s.V1GetDataset(req.path["uri"]))
}

func (s *server) handleV1CreateDatasetEvent(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.answerError(w, r, s.V1CreateDatasetEvent(req.body))
}

func (s *server) handleV1DagQueuedEvent(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.answerError(w, r, dagQueuedEventNotFound(req.path["dag_id"], req.path["uri"]))
}

func (s *server) handleV1DagQueuedEvents(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.answerError(w, r, dagQueuedEventsNotFound(req.path["dag_id"]))
}

func (s *server) handleV1DatasetQueuedEvents(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.answerError(w, r, datasetQueuedEventsNotFound(req.path["uri"]))
}

func (s *server) handleV1ReparseDagFile(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if err := s.V1ReparseDagFile(req.path["file_token"]); err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8") // Flask's Response(status=201)
	w.WriteHeader(http.StatusCreated)
}

func (s *server) handleV1GetEventLogs(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetEventLogs(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetEventLog(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetEventLog(req.path["event_log_id"])
	s.respondV1(w, r, res, err)
}

// handleV1FabOnly answers every roles, users and permissions operation.
func (s *server) handleV1FabOnly(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	s.answerError(w, r, v1BadRequest(fabOnlyDetail))
}

func (s *server) handleV1Health(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	s.writeV1JSON(w, r, http.StatusOK, s.V1Health())
}

// handleV1Version is GET /version: the release and its git_version file.
func (s *server) handleV1Version(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	rules := s.rules()
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"version": rules.version, "git_version": rules.gitVersion})
}

// handleV1Config is GET /config with Airflow's default expose_config =
// False: the Accept header is read first (406 when it names neither text
// nor JSON, as Werkzeug's best_match finds nothing in an absent header),
// then the refusal.
func (s *server) handleV1Config(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	if bestMatch(r.Header.Get("Accept"), "text/plain", "application/json") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	s.answerError(w, r, v1Forbidden("Your Airflow administrator chose not to expose the configuration, most likely for security reasons."))
}

// handleV1Providers is GET /providers: airlite runs no providers.
func (s *server) handleV1Providers(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"providers": []any{}, "total_entries": 0})
}

// handleV1Plugins is GET /plugins: airlite loads no plugins.
func (s *server) handleV1Plugins(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if _, err := req.query.page(); err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"plugins": []any{}, "total_entries": 0})
}

func (s *server) handleV1ImportErrors(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetImportErrors(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetImportError(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetImportError(req.path["import_error_id"])
	s.respondV1(w, r, res, err)
}

// handleV1DagWarnings is GET /dagWarnings: airlite raises no warnings.
func (s *server) handleV1DagWarnings(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if _, err := req.query.page(); err != nil {
		s.answerError(w, r, err)
		return
	}
	if _, _, err := req.query.orderBy("timestamp", []string{"dag_id", "warning_type", "message", "timestamp"}); err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"dag_warnings": []any{}, "total_entries": 0})
}

func (s *server) handleV1GetPools(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetPools(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PostPool(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PostPool(req.body)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetPool(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetPool(req.path["pool_name"])
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PatchPool(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PatchPool(req.path["pool_name"], req.body, updateMaskFields(req.query))
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1DeletePool(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.respondV1DeletedResponse(w, r, s.V1DeletePool(req.path["pool_name"]))
}

func (s *server) handleV1GetTaskInstanceTry(w http.ResponseWriter, r *http.Request, req *v1Request) {
	try, _ := strconv.ParseInt(req.path["task_try_number"], 10, 64)
	res, err := s.V1GetTaskInstanceTry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], -1, try)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetMappedTaskInstanceTry(w http.ResponseWriter, r *http.Request, req *v1Request) {
	try, _ := strconv.ParseInt(req.path["task_try_number"], 10, 64)
	res, err := s.V1GetTaskInstanceTry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], pathMapIndex(req), try)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetVariables(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetVariables(req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PostVariables(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PostVariable(req.body)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetVariable(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetVariable(req.path["variable_key"])
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1PatchVariable(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1PatchVariable(req.path["variable_key"], req.body, updateMaskFields(req.query))
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1DeleteVariable(w http.ResponseWriter, r *http.Request, req *v1Request) {
	s.respondV1DeletedResponse(w, r, s.V1DeleteVariable(req.path["variable_key"]))
}

func (s *server) handleV1GetXComEntries(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetXComEntries(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], req.query)
	s.respondV1(w, r, res, err)
}

func (s *server) handleV1GetXComEntry(w http.ResponseWriter, r *http.Request, req *v1Request) {
	res, err := s.V1GetXComEntry(req.path["dag_id"], req.path["dag_run_id"], req.path["task_id"], req.path["xcom_key"], req.query)
	s.respondV1(w, r, res, err)
}
