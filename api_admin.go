package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file holds airlite's own endpoints for test suites (/_airlite/…):
// scoped resets, forced states, the fake clock, waiting for a run, the
// request journal and DAGs loaded at runtime. Airflow has none of them.

// maxWait bounds GET …/wait.
const maxWait = 10 * time.Minute

// resetScope is what POST /_airlite/reset?scope=… puts back.
func (s *server) resetScope(scope, dagID string) (map[string]any, error) {
	switch scope {
	case "", "all":
		if dagID != "" {
			return nil, newAPIError(errBadRequest, "dag_id goes with scope=runs only")
		}
		all := func(tiKey) bool { return true }
		reset := func() error { return s.opts.Folder.with(s.opts.Store.Reset) }
		if err := s.ops.stopping(all, reset); err != nil {
			return nil, err
		}
	case "runs":
		if dagID != "" {
			if _, err := s.opts.Store.DagByID(dagID); err != nil {
				if errors.Is(err, errNotFound) {
					return nil, newAPIError(errNotFound, "dag %s does not exist", dagID)
				}
				return nil, err
			}
		}
		ofDag := func(k tiKey) bool { return dagID == "" || k.dagID == dagID }
		if err := s.ops.stopping(ofDag, func() error { return s.opts.Store.DeleteRuns(dagID) }); err != nil {
			return nil, err
		}
	case "pools":
		resetPools := func(set *DAGSet) error { return s.opts.Store.ResetPools(set.Pools) }
		if err := s.opts.Folder.with(resetPools); err != nil {
			return nil, err
		}
	case "paused":
		if err := s.opts.Store.ResetPaused(); err != nil {
			return nil, err
		}
	case "variables":
		if err := s.opts.Store.ResetVariables(); err != nil {
			return nil, err
		}
	case "connections":
		if err := s.opts.Store.ResetConnections(); err != nil {
			return nil, err
		}
	default:
		return nil, newAPIError(errBadRequest, "unknown reset scope %q: want all, runs, pools, paused, variables or connections", scope)
	}
	s.ops.wake()
	res := map[string]any{"status": "reset", "scope": orDefault(scope, "all")}
	if dagID != "" {
		res["dag_id"] = dagID
	}
	return res, nil
}

// forcedRunStates are the states a run can be forced to, as Airflow's
// mark_tasks functions set them.
var forcedRunStates = map[RunState]bool{RunSuccess: true, RunFailed: true, RunRunning: true, RunQueued: true}

// forceRunState is the operations' setRunState with the admin endpoints'
// check and answer.
func (s *server) forceRunState(dagID, runID string, state RunState) (map[string]any, error) {
	if !forcedRunStates[state] {
		return nil, newAPIError(errBadRequest, "state %q is not a run state: want success, failed, running or queued", state)
	}
	if err := s.ops.setRunState(dagID, runID, state); err != nil {
		return nil, adminPhrases.phrase(err)
	}
	return map[string]any{"dag_id": dagID, "run_id": runID, "state": string(state)}, nil
}

// forcedTaskStates are the states a task instance can be marked with, as
// Airflow's UI offers them.
var forcedTaskStates = map[TaskState]bool{TaskSuccess: true, TaskFailed: true, TaskSkipped: true}

// forceTaskState is the operations' forceTaskState with the admin
// endpoints' check and answer.
func (s *server) forceTaskState(dagID, runID, taskID string, state TaskState, upstream, downstream bool) (map[string]any, error) {
	if !forcedTaskStates[state] {
		return nil, newAPIError(errBadRequest, "state %q cannot be forced on a task: want success, failed or skipped", state)
	}
	marked, err := s.ops.forceTaskState(dagID, runID, taskID, state, upstream, downstream)
	if err != nil {
		return nil, adminPhrases.phrase(err)
	}
	return map[string]any{"dag_id": dagID, "run_id": runID, "state": string(state), "task_ids": marked}, nil
}

// adminPhrases is the admin endpoints' wording of the operations'
// faults: airlite's own, the same in every edition.
var adminPhrases = phrasebook{
	faultDagNotFound: func(e *opError) error { return newAPIError(errNotFound, "dag %s does not exist", e.value("dag_id")) },
	faultTaskMissing: func(e *opError) error {
		return newAPIError(errNotFound, "dag %s has no task %s", e.value("dag_id"), e.value("task_id"))
	},
	faultRunNotFound: func(e *opError) error {
		return newAPIError(errNotFound, "dag %s has no run %s", e.value("dag_id"), e.value("run_id"))
	},
}

// errJournalOff answers the journal's endpoints while it is off.
var errJournalOff = newAPIError(errBadRequest, "the request journal is off: start airlite with --journal-size N")

// stateBody is the body of the force-state endpoints.
type stateBody struct {
	State      string `json:"state"`
	Upstream   bool   `json:"upstream"`
	Downstream bool   `json:"downstream"`
}

// decodeAdminBody reads an admin endpoint's JSON body into into, refusing
// fields it does not know.
func decodeAdminBody(body []byte, into any) error {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return newAPIError(errBadRequest, "bad request body: %v", err)
	}
	return nil
}

// clockBody moves the fake clock: set to a date, or advance by a duration.
type clockBody struct {
	Set     string `json:"set"`
	Advance string `json:"advance"`
}

func (s *server) clockState() map[string]any {
	return map[string]any{"now": isoFormat(s.opts.Now().UTC().Truncate(time.Microsecond)), "fake": s.opts.Clock != nil}
}

// moveClock applies a clock body to the fake clock.
func (s *server) moveClock(body clockBody) (map[string]any, error) {
	if s.opts.Clock == nil {
		return nil, newAPIError(errBadRequest, "the clock is real: start airlite with --clock fake to move it")
	}
	var err error
	switch {
	case body.Set != "" && body.Advance != "":
		return nil, newAPIError(errBadRequest, "give set or advance, not both")
	case body.Set != "":
		var t time.Time
		if t, err = parseAirflowDate(body.Set, s.opts.Clock.Now()); err != nil {
			return nil, newAPIError(errBadRequest, "set: %q is not a date", body.Set)
		}
		_, err = s.opts.Clock.Set(t)
	case body.Advance != "":
		var d time.Duration
		if d, err = parseDuration(body.Advance); err != nil {
			return nil, newAPIError(errBadRequest, "advance: %q is not a duration (use 90s, 5m, 1h30m, 1d)", body.Advance)
		}
		_, err = s.opts.Clock.Advance(d)
	default:
		return nil, newAPIError(errBadRequest, `give {"set": "<date>"} or {"advance": "<duration>"}`)
	}
	if errors.Is(err, errClockBackwards) {
		return nil, newAPIError(errBadRequest, "%v: it is %s", err, isoFormat(s.opts.Clock.Now()))
	}
	if err != nil {
		return nil, err
	}
	return s.clockState(), nil
}

// waitRun blocks until a run has finished or timeout passes, watching the
// run's row, and returns its state and its tasks' states.
func (s *server) waitRun(ctx context.Context, dagID, runID string, timeout time.Duration) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		run, ch, err := s.opts.Store.WatchRun(dagID, runID)
		if errors.Is(err, errNotFound) {
			return nil, newAPIError(errNotFound, "dag %s has no run %s", dagID, runID)
		}
		if err != nil {
			return nil, err
		}
		if run.State.Finished() || ctx.Err() != nil {
			tis, err := s.opts.Store.TaskInstancesOfRun(dagID, runID)
			if err != nil {
				return nil, err
			}
			tasks := map[string]any{}
			for _, ti := range tis {
				var st any
				if ti.State != TaskNone {
					st = string(ti.State)
				}
				tasks[ti.TaskID] = st
			}
			res := map[string]any{"dag_id": dagID, "run_id": runID, "state": string(run.State), "tasks": tasks}
			if !run.State.Finished() {
				return nil, &apiError{kind: errTimeout, msg: fmt.Sprintf("run %s of %s is still %s after %s", runID, dagID, run.State, timeout), data: res}
			}
			return res, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
}

func (s *server) handleWaitRun(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	timeout := 30 * time.Second
	if text := r.URL.Query().Get("timeout"); text != "" {
		d, err := parseDuration(text)
		if err != nil || d <= 0 || d > maxWait {
			s.answerError(w, r, newAPIError(errBadRequest, "timeout %q: want a duration between 1ms and %s, such as 30s", text, maxWait))
			return
		}
		timeout = d
	}
	// The one long answer: its write deadline is the wait plus the
	// ordinary answer's time (the server's WriteTimeout is short).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout + answerWriteTimeout))
	res, err := s.waitRun(r.Context(), req.param("dag_id"), req.param("run_id"), timeout)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	writeAdminJSON(w, http.StatusOK, res)
}

func (s *server) handleListRequests(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	if s.opts.Journal == nil {
		s.answerError(w, r, errJournalOff)
		return
	}
	q := r.URL.Query()
	f := journalFilter{Method: q.Get("method"), PathPrefix: q.Get("path")}
	for name, dst := range map[string]*int{"status": &f.Status, "limit": &f.Limit} {
		if text := q.Get(name); text != "" {
			n, err := strconv.Atoi(text)
			if err != nil || n < 0 {
				s.answerError(w, r, newAPIError(errBadRequest, "%s %q: want a non-negative integer", name, text))
				return
			}
			*dst = n
		}
	}
	writeAdminJSON(w, http.StatusOK, map[string]any{"requests": s.opts.Journal.list(f)})
}

// loadDAG adds or replaces one DAG from a definition (YAML or JSON), with
// the checks of definition files. Its paused flag and runs stay when it
// replaces a DAG. A reset forgets it.
func (s *server) loadDAG(body []byte) (map[string]any, error) {
	began := time.Now()
	dag, err := parseDAGFor(body, s.opts.Now(), s.rules())
	if err != nil {
		return nil, newAPIError(errBadRequest, "%v", err)
	}
	if err := s.rules().checkDAG(dag); err != nil {
		return nil, newAPIError(errBadRequest, "%v", err)
	}
	dag.ParseDuration = parseSeconds(time.Since(began))
	if len(dag.SubDAGIDs()) > 0 || hasOperator(dag, "SubDagOperator") {
		return nil, newAPIError(errBadRequest, "dag %s: a SubDagOperator needs its sub-DAG in the same folder: load both with --dags", dag.DagID)
	}
	if row, err := s.opts.Store.DagByID(dag.DagID); err == nil && row.RootDagID != "" {
		return nil, newAPIError(errBadRequest, "dag %s is a sub-DAG of %s: replace it with --dags", dag.DagID, row.RootDagID)
	}
	dag.FilePath = loadedDAGFileLoc
	replaced, err := s.opts.Store.UpsertDAG(dag)
	if err != nil {
		return nil, err
	}
	s.ops.wake()
	return map[string]any{"dag_id": dag.DagID, "tasks": len(dag.Tasks), "replaced": replaced}, nil
}

func hasOperator(dag *DAG, op string) bool {
	for _, t := range dag.Tasks {
		if t.Operator == op {
			return true
		}
	}
	return false
}
