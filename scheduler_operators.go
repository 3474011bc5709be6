package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// runOperator runs one try of a task: a simulation when the task has one,
// else its operator (a Python callable: scheduler_python.go; a
// TriggerDagRunOperator: scheduler_triggerdagrun.go). Operators without an
// implementation here (providers', Papermill, …) succeed as simulated
// tasks.
func (s *scheduler) runOperator(ctx context.Context, job taskJob) taskOutcome {
	// execution_timeout bounds every operator's try, as BaseOperator's
	// does in Airflow, simulated ones included.
	if t := job.task.ExecutionTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t, fmt.Errorf("execution_timeout of %s reached", t))
		defer cancel()
	}
	if trig := job.task.TriggerDagRun; trig != nil && s.ops != nil && !trig.PythonCallable {
		return s.runTriggerDagRun(ctx, job)
	}
	if job.task.Simulate != nil {
		return simulate(ctx, job)
	}
	if job.task.PythonCallable != nil {
		return s.runPython(ctx, job)
	}
	switch job.task.Operator {
	case "BashOperator":
		return s.runBash(ctx, job)
	case "SubDagOperator":
		return s.runSubDag(ctx, job)
	}
	return simulate(ctx, job)
}

// simulate waits the scripted duration, then takes the scripted outcome;
// the first fail_times tries fail.
func simulate(ctx context.Context, job taskJob) taskOutcome {
	sim := job.task.Simulate
	if sim == nil {
		sim = &Simulation{Outcome: "success"}
	}
	if sim.Duration > 0 {
		timer := time.NewTimer(sim.Duration)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return taskOutcome{state: TaskFailed, reason: "stopped: " + context.Cause(ctx).Error()}
		case <-timer.C:
		}
	}
	if job.try <= sim.FailTimes {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("simulated failure %d of %d", job.try, sim.FailTimes)}
	}
	// A simulation pushes what its script declares and ends as scripted:
	// no push-time check for mapped tasks downstream (pushChecked).
	out := taskOutcome{state: TaskState(sim.Outcome), output: fmt.Sprintf("simulated %s: %s\n", job.task.Operator, sim.Outcome),
		pushChecked: true}
	if out.state == TaskFailed {
		out.reason = "simulated outcome: failed"
	}
	for _, key := range slices.Sorted(maps.Keys(sim.XCom)) {
		if out.state != TaskSuccess {
			break // a simulated task's declared values are what it pushes when it succeeds
		}
		out.pushed = append(out.pushed, xcomPush{Key: key, Value: sim.XCom[key]})
	}
	return out
}

// xcomPushes is what a successful try leaves in XCom: what the task
// pushed itself, then its return value under return_value when
// do_xcom_push is on (by default in the edition's rule for a
// BashOperator; Airflow's BaseOperator default True otherwise).
//
// The return value of an unmapped task with mapped downstream tasks
// carries the length Airflow's TaskMap row records for it
// (pushMapLength).
func (s *scheduler) xcomPushes(dag *DAG, task *Task, out taskOutcome) []xcomPush {
	pushes := out.pushed
	if s.doesXComPush(task) && out.returnValue != nil {
		pushes = append(slices.Clip(pushes), xcomPush{Key: xcomReturnKey, Value: out.returnValue})
	}
	if task.Mapping != nil || !hasMappedDependants(dag, task) {
		return pushes
	}
	for i, p := range pushes {
		if p.Key == xcomReturnKey {
			pushes = slices.Clone(pushes)
			// The length the task measured, else the value's own (decoding
			// it only then).
			if n := out.returnMapLength; n != nil && *n >= 0 && *n <= maxRecordedMapLength {
				pushes[i].MapLength = n
			} else {
				pushes[i].MapLength = pushMapLength(p.Value)
			}
		}
	}
	return pushes
}

// mappedPushRule is a release's check of a return value a mapped task
// downstream expands over: checked (1.10.15 has no mapping), and whether
// before the push (3.2.1: a refused value is not stored) or after it
// (2.10.3: it stays).
type mappedPushRule struct {
	checked, beforePush bool
}

// maxMapLength is [core] max_map_length's default, the longest value a
// mapped task may expand over (airlite has no setting for it).
const maxMapLength = 1024

// refuseUnmappablePush fails a successful try whose return value a mapped
// task downstream cannot expand over, as the release fails the task that
// pushed it (mappedPushRule): None, a value that is no sequence or dict,
// or one longer than maxMapLength. A Python callable's try is checked in
// its process (python/airlite_task.py push_return_value), a simulated
// try not at all (it ends as scripted); this checks a bash command's
// (its last line is a str).
func (s *scheduler) refuseUnmappablePush(job taskJob, out taskOutcome) taskOutcome {
	rule := s.rules.mappedPush
	if out.state != TaskSuccess || out.pushChecked || !rule.checked || job.task.Mapping != nil || !hasMappedDependants(job.dag, job.task) {
		return out
	}
	value := out.returnValue
	if !s.doesXComPush(job.task) {
		value = nil
	}
	var reason string
	n, mappable := mappableLength(pyDecode(value))
	switch {
	case value == nil:
		reason = "XComForMappingNotPushed: did not push XCom for task mapping"
	case !mappable:
		reason = "UnmappableXComTypePushed: unmappable return type " + pyQuote(pyValueTypeName(pyDecode(value)))
	case n <= maxMapLength:
		return out
	case rule.beforePush:
		reason = "AirflowRuntimeError: API_SERVER_ERROR: {'status_code': 400, 'message': 'Server returned error', " +
			"'detail': {'detail': {'reason': 'unmappable_return_value_length', 'message': \"pushed value is too large to map as a downstream's dependency\"}}}"
	default:
		reason = fmt.Sprintf("UnmappableXComLengthPushed: unmappable return value length: %d > %d", n, maxMapLength)
	}
	failed := out
	failed.state, failed.reason = TaskFailed, reason
	failed.output += reason + "\n"
	if !rule.beforePush && value != nil {
		failed.pushed = append(slices.Clip(out.pushed), xcomPush{Key: xcomReturnKey, Value: value})
	}
	return failed
}

// doesXComPush is whether the task pushes its return value: its
// do_xcom_push, by default on (a BashOperator's by the edition's rule).
func (s *scheduler) doesXComPush(task *Task) bool {
	if task.DoXComPush != nil {
		return *task.DoXComPush
	}
	return task.Operator != "BashOperator" || s.rules.bashPushesReturnValue
}

// hasMappedDependants says whether a task of dag expands over task's
// XCom (the task SDK's iter_mapped_dependants: a mapped task that
// references it is downstream of it).
func hasMappedDependants(dag *DAG, task *Task) bool {
	if dag == nil {
		return false
	}
	for _, id := range task.Downstream {
		down := dag.Task(id)
		if down == nil || down.Mapping == nil {
			continue
		}
		for _, arg := range down.Mapping.Args {
			if !arg.Literal && arg.Ref.TaskID == task.TaskID {
				return true
			}
		}
	}
	return false
}

// pushMapLength is the length the task runner sends with a return value
// a mapped task depends on (c57fba0e task_runner.py:1715-1722
// _push_xcom_if_needed: len() of a mappable value), which the execution
// API writes into TaskMap (execution_api/routes/xcoms.py:353-372); nil
// for a value that cannot be mapped over, which Airflow refuses with
// UnmappableXComTypePushed and airlite finds when the mapped task
// expands (scheduler_mapping.go refLength).
//
// A length past maxRecordedMapLength is not recorded (the expansion reads
// the value's), so that a snapshot, which refuses one, never holds it.
func pushMapLength(value json.RawMessage) *int {
	if n, ok := mappableLength(pyDecode(value)); ok && n <= maxRecordedMapLength {
		return &n
	}
	return nil
}

// maxRecordedMapLength bounds XComEntry.MapLength: a crafted snapshot
// cannot ask an expansion for more task instances than this (Airflow's
// own bound, [core] max_map_length, is 1024 by default; airlite applies
// none to the values it maps over).
const maxRecordedMapLength = 1 << 20

// lastOutputLine is the line a BashOperator returns: the last line its
// command wrote (stdout and stderr together), without trailing white
// space, "" when it wrote nothing, as Airflow's SubprocessHook reads it
// line by line and keeps the last.
func lastOutputLine(output string) string {
	output = strings.TrimSuffix(output, "\n")
	if i := strings.LastIndexByte(output, '\n'); i >= 0 {
		output = output[i+1:]
	}
	return strings.TrimRightFunc(output, unicode.IsSpace)
}

// jobTemplates is the template context of a job's try: the store's
// variables, connections and XCom entries, on the scheduler's clock.
func (s *scheduler) jobTemplates(job taskJob) templateContext {
	return templateContext{dag: job.dag, task: job.task, run: &job.run, try: job.try, rules: s.rules, secrets: job.secrets,
		variables: s.opts.Store.VariableValue, connections: s.opts.Store.connectionFound, xcoms: s.opts.Store.XComsToPull, now: s.opts.Now}
}

// runBash runs a BashOperator's command with bash -c in its own process
// group, so that a timeout or a stop kills every process it started.
func (s *scheduler) runBash(ctx context.Context, job taskJob) taskOutcome {
	// var.value.x and conn.x read the store's Variables and Connections; a
	// template's use of them is a request value (set through /api/v1),
	// never shell text.
	// ti.xcom_pull reads the store's XCom entries, which earlier tries'
	// output (so a request) may have filled: request values too.
	tc := s.jobTemplates(job)
	plan := job.task.shellPlan
	if plan == nil { // a task not built by parseDAG: compile it as the loader would
		var err error
		if plan, err = compileShellPlan(job.task.BashCommand); err != nil {
			return taskOutcome{state: TaskFailed, reason: "bash_command: " + err.Error()}
		}
	}
	command, valueEnv, err := tc.renderShell(plan)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	env, err := bashEnv(tc)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	// Last, so that they win over a task env of the same name.
	env = append(env, valueEnv...)
	dir, err := tc.renderCwd(job.task.Cwd)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: "cwd: " + err.Error()}
	}
	rendered, err := renderedBashFields(tc, dir)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	if dir != "" {
		// Airflow 2.10.3 airflow/operators/bash.py:237-241 checks the
		// folder before it runs anything, naming it.
		if info, err := os.Stat(dir); err != nil {
			return taskOutcome{state: TaskFailed, reason: "cwd: can not find the cwd: " + dir}
		} else if !info.IsDir() {
			return taskOutcome{state: TaskFailed, reason: "cwd: the cwd " + dir + " must be a directory"}
		}
	}
	if dir == "" {
		tmp, err := makeTempFolder(tempFolderTry)
		if err != nil {
			return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("create task folder: %v", err)}
		}
		defer tmp.remove()
		dir = tmp.path
	}
	out := &tailBuffer{limit: maxTaskOutput}
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = taskProcAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = 2 * time.Second // pipes held by killed grandchildren
	if err = s.procs.start(cmd, 0); err == nil {
		pid := cmd.Process.Pid
		if rerr := s.opts.Store.RecordTaskProcess(job.key, job.run.ID, job.try, pid, processIdentity(pid)); rerr != nil {
			s.opts.Logger.Error().Err(rerr).Str("task", job.key.String()).Msg("record task process")
		}
		err = cmd.Wait()
		s.procs.ended(pid)
	}
	text, cut := out.result()
	res := taskOutcome{state: TaskSuccess, output: text, cut: cut, rendered: rendered}
	// Stored as Airflow's XCom serializer writes it (json.dumps, ASCII).
	res.returnValue = appendPyString(nil, lastOutputLine(text))
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.state, res.reason = TaskFailed, "killed: "+context.Cause(ctx).Error()
	case err == nil:
	case errors.As(err, &exitErr) && s.rules.bashSkipExitCode != 0 && exitErr.ExitCode() == s.rules.bashSkipExitCode:
		res.state = TaskSkipped
	case errors.As(err, &exitErr):
		res.state, res.reason = TaskFailed, fmt.Sprintf("bash exited with code %d", exitErr.ExitCode())
	case errors.Is(err, exec.ErrNotFound):
		// Airflow's try fails the same way, with a FileNotFoundError
		// (2.10.3 airflow/operators/bash.py:236, hooks/subprocess.py:90).
		res.state, res.reason = TaskFailed, fmt.Sprintf("bash not found (%v): BashOperator runs its command "+
			"with bash -c, as Airflow does; put bash on PATH (on Windows, Git for Windows' bash)", err)
	default:
		res.state, res.reason = TaskFailed, fmt.Sprintf("run bash: %v", err)
	}
	return res
}

// renderedBashFields are a BashOperator's template fields as Airflow's
// RenderedTaskInstanceFields keeps them for the API (2.10.3
// models/renderedtifields.py: each of template_fields rendered, None
// kept): bash_command with each request value written as it was rendered
// (what the command reads through its environment, shown inline), env
// as a dict or None, cwd or None.
func renderedBashFields(tc templateContext, cwd string) (map[string]any, error) {
	command, err := tc.renderText(tc.task.BashCommand)
	if err != nil {
		return nil, fmt.Errorf("bash_command: %w", err)
	}
	fields := map[string]any{"bash_command": command, "env": nil, "cwd": nil}
	if tc.task.Env != nil {
		env := make(map[string]any, len(tc.task.Env))
		for k, v := range tc.task.Env {
			if env[k], err = tc.renderText(v); err != nil {
				return nil, fmt.Errorf("env %s: %w", k, err)
			}
		}
		fields["env"] = env
	}
	if cwd != "" {
		fields["cwd"] = cwd
	}
	return fields, nil
}

// bashEnv is the process environment plus Airflow's context variables, the
// run's conf as JSON and the task's own env (rendered). Values are never
// shell text, so they need no quoting.
func bashEnv(tc templateContext) ([]string, error) {
	conf := "{}"
	if tc.run.Conf != nil {
		conf = string(tc.run.Conf)
	}
	// Airflow 3 names the date LOGICAL_DATE and sets it only for a run
	// that has one (airflow-core/src/airflow/utils/operator_helpers.py
	// AIRFLOW_VAR_NAME_FORMAT_MAPPING, context_to_airflow_vars).
	date := "AIRFLOW_CTX_EXECUTION_DATE=" + isoFormat(tc.run.ExecutionDate)
	if !tc.editionRules().templateExecutionDate {
		date = ""
		if ld, ok := tc.run.LogicalDate(); ok {
			date = "AIRFLOW_CTX_LOGICAL_DATE=" + isoFormat(ld)
		}
	}
	env := append(os.Environ(),
		"AIRFLOW_CTX_DAG_ID="+tc.dag.DagID,
		"AIRFLOW_CTX_TASK_ID="+tc.task.TaskID,
		"AIRFLOW_CTX_DAG_RUN_ID="+tc.run.RunID)
	if date != "" {
		env = append(env, date)
	}
	env = append(env,
		"AIRFLOW_CTX_TRY_NUMBER="+fmt.Sprint(tc.try),
		"AIRFLOW_CTX_DAG_OWNER="+tc.task.Owner,
		"AIRLITE_CONF="+conf,
	)
	for k, v := range tc.task.Env {
		rendered, err := tc.renderText(v)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		env = append(env, k+"="+rendered)
	}
	return env, nil
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) result() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.ToValidUTF8(string(b.buf), "\uFFFD"), b.cut
}

// runSubDag lets the child DAG's run (created with the parent's run) go:
// the scheduler moves a sub-DAG run only while its SubDagOperator task
// runs. The task ends with the child run's outcome.
func (s *scheduler) runSubDag(ctx context.Context, job taskJob) taskOutcome {
	s.Kick()
	for {
		child, ch, err := s.opts.Store.WatchRun(job.task.Subdag, job.run.RunID)
		if errors.Is(err, errNotFound) {
			return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("sub-DAG %s has no run %s", job.task.Subdag, job.run.RunID)}
		}
		if err != nil {
			return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("look up sub-DAG run: %v", err)}
		}
		switch child.State {
		case RunSuccess:
			return taskOutcome{state: TaskSuccess, output: fmt.Sprintf("sub-DAG run %s of %s succeeded\n", child.RunID, child.DagID)}
		case RunFailed:
			return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("sub-DAG run %s of %s failed", child.RunID, child.DagID)}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return taskOutcome{state: TaskFailed, reason: "stopped: " + context.Cause(ctx).Error()}
		}
	}
}
