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
	t := &routeTable{dialect: s.dialAdmin}
	t.add(http.MethodGet, "/_airlite/health", s.handleHealth, openRoute)
	t.add(http.MethodGet, "/_airlite/ready", s.handleReady, openRoute)
	t.add(http.MethodPost, "/_airlite/reset", s.handleReset)
	t.add(http.MethodPost, "/_airlite/dags", s.handleLoadDAG)
	t.add(http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/state", s.handleForceRunState)
	t.add(http.MethodPost, "/_airlite/dags/:dag_id/dag_runs/:run_id/tasks/:task_id/state", s.handleForceTaskState)
	t.add(http.MethodGet, "/_airlite/dags/:dag_id/dag_runs/:run_id/wait", s.handleWaitRun)
	t.add(http.MethodGet, "/_airlite/clock", s.handleGetClock)
	t.add(http.MethodPost, "/_airlite/clock", s.handleMoveClock)
	t.add(http.MethodGet, "/_airlite/requests", s.handleListRequests)
	t.add(http.MethodDelete, "/_airlite/requests", s.handleClearRequests)
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
