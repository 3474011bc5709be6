package main

// airlite's own endpoints' route table (the admin dialect,
// api_dialect.go): /_airlite/..., the same in every edition. Health and
// readiness answer anyone; the rest go through the auth backend.

import (
	"errors"
	"net/http"
)

// adminRoutes is airlite's endpoints, one row each.
func (s *server) adminRoutes() *routeTable {
	d := s.dialAdmin
	t := &routeTable{dialect: d}
	t.add(http.MethodGet, "/_airlite/health", s.handleHealth, openRoute)
	t.add(http.MethodGet, "/_airlite/ready", s.handleReady, openRoute)
	// a reset puts state back to the fixtures; running tasks are stopped
	// first so that none writes into the fresh state
	t.add(http.MethodPost, "/_airlite/reset", d.answer(s, func(req *apiRequest) (any, error) {
		scope, _ := req.query.str("scope")
		dagID, _ := req.query.str("dag_id")
		return s.resetScope(scope, dagID)
	}), withQuery(v1Param{name: "scope"}, v1Param{name: "dag_id"}))
	t.add(http.MethodPost, "/_airlite/dags", d.answer(s, func(req *apiRequest) (any, error) { return s.loadDAG(req.raw) }), withRawBody)
	t.add(http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/state", d.answer(s, func(req *apiRequest) (any, error) {
		var body stateBody
		if err := decodeAdminBody(req.raw, &body); err != nil {
			return nil, err
		}
		return s.forceRunState(req.param("dag_id"), req.param("run_id"), RunState(body.State))
	}), withRawBody)
	t.add(http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/tasks/:task_id/state", d.answer(s, func(req *apiRequest) (any, error) {
		var body stateBody
		if err := decodeAdminBody(req.raw, &body); err != nil {
			return nil, err
		}
		return s.forceTaskState(req.param("dag_id"), req.param("run_id"), req.param("task_id"),
			TaskState(body.State), body.Upstream, body.Downstream)
	}), withRawBody)
	t.add(http.MethodGet, "/_airlite/dags/:dag_id/dag_runs/:run_id/wait", s.handleWaitRun)
	t.add(http.MethodGet, "/_airlite/clock", d.answer(s, func(*apiRequest) (any, error) { return s.clockState(), nil }))
	t.add(http.MethodPost, "/_airlite/clock", d.answer(s, func(req *apiRequest) (any, error) {
		var body clockBody
		if err := decodeAdminBody(req.raw, &body); err != nil {
			return nil, err
		}
		return s.moveClock(body)
	}), withRawBody)
	t.add(http.MethodGet, "/_airlite/requests", s.handleListRequests)
	t.add(http.MethodDelete, "/_airlite/requests", d.answer(s, func(*apiRequest) (any, error) {
		if s.opts.Journal == nil {
			return nil, errJournalOff
		}
		return map[string]any{"cleared": s.opts.Journal.clear()}, nil
	}))
	return t
}

// handleHealth answers 200 while airlite serves, and 503 saying why while
// the id lease cannot be written (new runs and pools are refused once
// their ids pass it).
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	var lease *leaseError
	if errors.As(s.opts.Store.LeaseProblem(), &lease) {
		s.answerError(w, r, &apiError{kind: errUnavailable, msg: leaseText(lease), data: map[string]any{"status": "unavailable"}})
		return
	}
	writeAdminJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

func (s *server) handleReady(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	if !s.ready.Load() {
		writeAdminJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "starting"})
		return
	}
	writeAdminJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}
