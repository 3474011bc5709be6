package main

// The experimental API's route table (the experimental dialect,
// api_dialect.go): Airflow's airflow/www/api/experimental/endpoints.py,
// one row per view with its path under /api/experimental; the edition's
// rules say which views exist.

import (
	"io"
	"net/http"
)

// expRoutes is the experimental API, one row per view.
func (s *server) expRoutes() *routeTable {
	d, api, rules := s.dialExp, s.api, s.rules()
	t := &routeTable{dialect: d}
	t.add(http.MethodPost, "/dags/:dag_id/dag_runs", d.answer(s, func(req *apiRequest) (any, error) {
		return api.TriggerDAG(req.param("dag_id"), req.raw)
	}), withRawBody)
	t.add(http.MethodGet, "/dags/:dag_id/dag_runs", d.answer(s, func(req *apiRequest) (any, error) {
		state, _ := req.query.str("state")
		return api.DagRuns(req.param("dag_id"), state)
	}), withQuery(v1Param{name: "state"}))
	t.add(http.MethodGet, "/dags/:dag_id/dag_runs/:execution_date", d.answer(s, func(req *apiRequest) (any, error) {
		return api.DagRunState(req.param("dag_id"), req.param("execution_date"))
	}))
	t.add(http.MethodGet, "/dags/:dag_id/dag_runs/:execution_date/tasks/:task_id", d.answer(s, func(req *apiRequest) (any, error) {
		return api.TaskInstanceInfo(req.param("dag_id"), req.param("execution_date"), req.param("task_id"))
	}))
	t.add(http.MethodGet, "/dags/:dag_id/tasks/:task_id", d.answer(s, func(req *apiRequest) (any, error) {
		return api.TaskInfo(req.param("dag_id"), req.param("task_id"))
	}))
	t.add(http.MethodGet, "/dags/:dag_id/code", s.handleGetDagCode)
	t.add(http.MethodGet, "/dags/:dag_id/paused/:paused", d.answer(s, func(req *apiRequest) (any, error) {
		return api.SetPaused(req.param("dag_id"), req.param("paused"))
	}))
	t.add(http.MethodGet, "/dags/:dag_id/paused", d.answer(s, func(req *apiRequest) (any, error) { return api.IsPaused(req.param("dag_id")) }))
	if rules.deleteDagRoute {
		t.add(http.MethodDelete, "/dags/:dag_id", d.answer(s, func(req *apiRequest) (any, error) { return api.DeleteDag(req.param("dag_id")) }))
	}
	t.add(http.MethodGet, "/latest_runs", d.answer(s, func(*apiRequest) (any, error) { return api.LatestRuns() }))
	t.add(http.MethodGet, "/pools", d.answer(s, func(*apiRequest) (any, error) { return api.Pools() }))
	t.add(http.MethodPost, "/pools", d.answer(s, func(req *apiRequest) (any, error) { return api.CreatePool(req.raw) }), withRawBody)
	t.add(http.MethodGet, "/pools/:name", d.answer(s, func(req *apiRequest) (any, error) { return api.Pool(req.param("name")) }))
	t.add(http.MethodDelete, "/pools/:name", d.answer(s, func(req *apiRequest) (any, error) { return api.DeletePool(req.param("name")) }))
	t.add(http.MethodGet, "/test", d.answer(s, func(*apiRequest) (any, error) { return s.testBody, nil }))
	if rules.infoRoute {
		t.add(http.MethodGet, "/info", d.answer(s, func(*apiRequest) (any, error) { return s.infoBody, nil }))
	}
	if rules.lineageRoute {
		t.add(http.MethodGet, "/lineage/:dag_id/:execution_date", d.answer(s, func(req *apiRequest) (any, error) {
			return api.Lineage(req.param("dag_id"), req.param("execution_date"))
		}))
	}
	return t
}

// handleGetDagCode answers the source as text/html, as Flask does for a
// view that returns a string. Source text labelled HTML, on the status
// pages' origin, would run as a page in a browser: every answer here says
// not to sniff it and to sandbox it (headers Airflow lacks and clients
// ignore).
func (s *server) handleGetDagCode(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	h := w.Header()
	h["X-Content-Type-Options"] = headerNoSniff
	h["Content-Security-Policy"] = headerSandbox
	code, err := s.api.DagCode(req.param("dag_id"))
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
