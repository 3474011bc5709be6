package main

// Python callable tasks (PythonOperator, @task, BranchPythonOperator,
// @task.branch, ShortCircuitOperator, @task.short_circuit) of Python DAG
// files run for real, as Airflow's task runner runs them: each try is a
// python3 process of its own process group, registered like a bash try
// (scheduler_procs*.go: planned stop, crash, leftovers), on the embedded
// python/airlite_task.py. The request goes in on stdin as JSON, never as
// source; templates, XCom pulls and Variable.get come back to airlite over
// a channel of JSON lines on two extra pipes (fd 3 from airlite, fd 4 to
// it), the way Airflow 3's task runner talks to its supervisor
// (task_sdk/src/airflow/sdk/execution_time/comms.py); the last line is the
// try's result. stdout and stderr are the task's log.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// PythonCallable is set on a task of a Python DAG file whose operator calls
// a Python callable (pythonCallableOperator): airlite runs its callable
// (runPython) instead of simulating it. The DAG builder sets it.
type PythonCallable struct {
	File   string // the DAG file to import (the serialized DAG's fileloc), absolute
	Folder string // the DAG folder, on sys.path as under Airflow
	Python string // the interpreter (--python); "" is AIRLITE_PYTHON, else python3
}

// pythonCallableOperators are the operators whose callable airlite runs,
// by the serialized task's _task_module and _task_type (pyTask): the
// classes of python/airflow/_airlite/python.py and decorators/__init__.py
// as each edition names them. The virtualenv and external-python variants
// need an interpreter of their own: simulated.
var pythonCallableOperators = map[[2]string]bool{
	{"airflow.operators.python", "PythonOperator"}:                         true,
	{"airflow.operators.python", "BranchPythonOperator"}:                   true,
	{"airflow.operators.python", "ShortCircuitOperator"}:                   true,
	{"airflow.operators.python_operator", "PythonOperator"}:                true,
	{"airflow.operators.python_operator", "BranchPythonOperator"}:          true,
	{"airflow.operators.python_operator", "ShortCircuitOperator"}:          true,
	{"airflow.decorators.python", "_PythonDecoratedOperator"}:              true,
	{"airflow.decorators.branch_python", "_BranchPythonDecoratedOperator"}: true,
	{"airflow.decorators.short_circuit", "_ShortCircuitDecoratedOperator"}: true,
	// @task.bash: the callable makes the command, which runs as a
	// BashOperator's (runDecoratedBash).
	{"airflow.decorators.bash", "_BashDecoratedOperator"}: true,
	// Airflow 3.2.1's, in the standard provider.
	{"airflow.providers.standard.operators.python", "PythonOperator"}:                         true,
	{"airflow.providers.standard.operators.python", "BranchPythonOperator"}:                   true,
	{"airflow.providers.standard.operators.python", "ShortCircuitOperator"}:                   true,
	{"airflow.providers.standard.decorators.python", "_PythonDecoratedOperator"}:              true,
	{"airflow.providers.standard.decorators.branch_python", "_BranchPythonDecoratedOperator"}: true,
	{"airflow.providers.standard.decorators.short_circuit", "_ShortCircuitDecoratedOperator"}: true,
	{"airflow.providers.standard.decorators.bash", "_BashDecoratedOperator"}:                  true,
}

// pythonCallableOperator says whether airlite runs a serialized task's
// callable: one of pythonCallableOperators (a mapped one's instances
// each run it, scheduler_mapping.go).
func pythonCallableOperator(t *pyTask) bool {
	return pythonCallableOperators[[2]string{t.TaskModule, t.TaskType}]
}

const (
	// maxPythonChannelLine bounds one line the task process sends (a
	// result carries its XCom values, which the store bounds again).
	maxPythonChannelLine = 64 << 20
	// pythonChannelGrace is how long airlite waits for the channel to
	// close once the try's process group has ended: a process that left
	// the group may still hold the pipe.
	pythonChannelGrace = 2 * time.Second
)

// pythonTaskProgram is the embedded program, extracted once per airlite
// process (again when a cleaner removed it) into a folder of its own,
// locked while the process lives (scheduler_tempfolders.go).
var pythonTaskProgram struct {
	mu     sync.Mutex
	folder *tempFolder
}

// removeTaskProgram removes the extracted program, once nothing runs it:
// at the process's end (main, TestMain), after its schedulers have
// stopped their tries and warm workers, so that a stop leaves nothing in
// the temp folder. Not at one scheduler's stop: another of the process's
// may be running a try from it.
func removeTaskProgram() error {
	p := &pythonTaskProgram
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.folder == nil {
		return nil
	}
	f := p.folder
	p.folder = nil
	if err := f.remove(); err != nil {
		return fmt.Errorf("remove python task runner: %w", err)
	}
	return nil
}

// taskProgramDir returns a folder holding the embedded python/ program.
func taskProgramDir() (string, error) {
	p := &pythonTaskProgram
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.folder != nil {
		if _, err := os.Stat(filepath.Join(p.folder.path, "airlite_task.py")); err == nil {
			return p.folder.path, nil
		}
		// A cleaner emptied it: what is left goes, and its lock.
		_ = p.folder.remove()
		p.folder = nil
	}
	f, err := makeTempFolder(tempFolderProgram)
	if err != nil {
		return "", fmt.Errorf("extract python task runner: %w", err)
	}
	if err := extractPythonProgram(f.path); err != nil {
		_ = f.remove()
		return "", err
	}
	p.folder = f
	return f.path, nil
}

// pythonTaskEnv is airlite's environment for a task process, with its
// bytecode kept under the program's folder (PYTHONPYCACHEPREFIX): never
// beside the DAG files, and compiled once per airlite process instead of
// at every try, which a PYTHONDONTWRITEBYTECODE in the environment would
// cost (the DAG file and the authoring surface compile again each time).
func pythonTaskEnv(prog string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PYTHONDONTWRITEBYTECODE=") || strings.HasPrefix(kv, "PYTHONPYCACHEPREFIX=")
	})
	return append(env, "PYTHONPYCACHEPREFIX="+filepath.Join(prog, "pycache"))
}

// pythonInterpreter finds the interpreter a task's callable runs with.
func pythonInterpreter(pc *PythonCallable) (string, error) {
	python := pc.Python
	if python == "" {
		python = os.Getenv("AIRLITE_PYTHON")
	}
	if python == "" {
		python = "python3"
	}
	return exec.LookPath(python)
}

// pythonTaskRequest is what airlite_task.py reads on stdin.
type pythonTaskRequest struct {
	Edition     string            `json:"edition"`
	DagFolder   string            `json:"dag_folder"`
	File        string            `json:"file"`
	DagID       string            `json:"dag_id"`
	TaskID      string            `json:"task_id"`
	MapIndex    int               `json:"map_index"` // -1 unless an instance of a mapped task
	MemoryBytes int64             `json:"memory_bytes"`
	Context     pythonTaskContext `json:"context"`
	// TriggerRunID is set for a 1.10 TriggerDagRunOperator whose
	// python_callable runs: the run id its DagRunOrder starts with.
	TriggerRunID *string `json:"trigger_run_id,omitempty"`
	// MappedDependants: a mapped task downstream expands over this task's
	// XCom (hasMappedDependants), so the return value is checked and
	// measured as the release does at its push.
	MappedDependants bool `json:"mapped_dependants"`
}

// pythonTaskContext is the try's Airflow context as data: what the
// program turns into the context a callable asks for (dates as ISO text
// it parses into pendulum dates, the run's fields, params, conf).
type pythonTaskContext struct {
	DagID     string             `json:"dag_id"`
	TaskID    string             `json:"task_id"`
	RunID     string             `json:"run_id"`
	TryNumber int                `json:"try_number"`
	MaxTries  int                `json:"max_tries"`
	Hostname  string             `json:"hostname"`
	Values    map[string]any     `json:"values"` // ds, ts, prev_ds ...: text, or null
	Dates     map[string]*string `json:"dates"`  // execution_date, logical_date ...: ISO text, or null
	DagRun    map[string]any     `json:"dag_run"`
	Params    map[string]any     `json:"params"`
	Conf      json.RawMessage    `json:"conf"`
}

// pythonTaskResult is the program's last line.
type pythonTaskResult struct {
	Op          string    `json:"op"`
	State       TaskState `json:"state"`
	ReturnValue *string   `json:"return_value"` // JSON text
	// MapLength is the return value's length, sent when a mapped task
	// downstream expands over it (the stored form of a tuple is a dict).
	MapLength *int        `json:"map_length"`
	Pushes    [][2]string `json:"pushes"` // [key, JSON text]
	Skip      []string    `json:"skip"`
	NoRetry   bool        `json:"no_retry"`
	Reason    string      `json:"reason"`
	// Rendered is the try's rendered template fields (op_args, op_kwargs,
	// templates_dict), for TaskInstance.Rendered.
	Rendered json.RawMessage `json:"rendered"`
	// RenderedMapIndex is a mapped instance's map_index_template rendered.
	RenderedMapIndex *string `json:"rendered_map_index"`
	// BashCommand is what a @task.bash callable returned: the command
	// airlite renders and runs next, in the same try (runDecoratedBash).
	BashCommand *string `json:"bash_command"`
	// Trigger is the DagRunOrder a 1.10 TriggerDagRunOperator's callable
	// returned ({"run_id", "conf": JSON text}), null when it returned
	// none; absent for other tasks (runCallableTrigger).
	Trigger json.RawMessage `json:"trigger"`
	// AliasEvents are the events the callable added through aliases
	// (outlet_events[AssetAlias(name)].add(asset, extra=...)).
	AliasEvents []pyAliasEvent `json:"alias_events"`
	// OutletExtras are the extras the callable set on its outlet assets'
	// events (outlet_events[asset].extra).
	OutletExtras []pyOutletExtra `json:"outlet_extras"`
}

// pyAliasEvent is one event added through an alias, as the task program
// reports it.
type pyAliasEvent struct {
	Alias aliasRef        `json:"alias"`
	Asset pyAssetKey      `json:"asset"`
	Extra json.RawMessage `json:"extra"`
}

// pyAssetKey is an asset as the task program names it.
type pyAssetKey struct {
	Name  string `json:"name"`
	URI   string `json:"uri"`
	Group string `json:"group"`
}

// pyOutletExtra is an outlet asset's event extra.
type pyOutletExtra struct {
	Asset pyAssetKey      `json:"asset"`
	Extra json.RawMessage `json:"extra"`
}

// pythonChannelRequest is one request of the task process.
type pythonChannelRequest struct {
	Op                string   `json:"op"`
	Template          string   `json:"template"`
	Key               string   `json:"key"`
	TaskIDs           []string `json:"task_ids"`
	DagIDs            []string `json:"dag_ids"`
	IncludePriorDates bool     `json:"include_prior_dates"`
	// Variable.set's value and description.
	Value       string  `json:"value"`
	Description *string `json:"description"`
	// JSON: Variable.get decoded the value it masks (variable_mask).
	JSON bool `json:"json"`
}

// pythonXComEntry is a pulled entry, its value as JSON text.
type pythonXComEntry struct {
	TaskID   string `json:"task_id"`
	Key      string `json:"key"`
	RunID    string `json:"run_id"`
	MapIndex int    `json:"map_index"`
	Value    string `json:"value"`
}

// runPython runs one try of a Python callable task (see the top of this
// file). Without an interpreter the task is simulated, and its log says why.
func (s *scheduler) runPython(ctx context.Context, job taskJob) taskOutcome {
	pc := job.task.PythonCallable
	interp, err := pythonInterpreter(pc)
	if err != nil {
		out := simulate(ctx, job)
		out.output = fmt.Sprintf("[airlite] no Python to run this task's callable (%v): simulated\n", err) + out.output
		return out
	}
	prog, err := taskProgramDir()
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	tc := s.jobTemplates(job)
	req := pythonTaskRequest{Edition: tc.rules.pythonSurface, DagFolder: pc.Folder, File: pc.File,
		DagID: job.dag.DagID, TaskID: job.task.TaskID, MapIndex: -1, MemoryBytes: defaultPythonMemory, Context: s.pythonContext(tc),
		MappedDependants: job.task.Mapping == nil && hasMappedDependants(job.dag, job.task)}
	if job.mapIndex != nil {
		req.MapIndex = *job.mapIndex
	}
	var trigger operatorTrigger
	if args := job.task.TriggerDagRun; args != nil {
		if trigger, err = s.planOperatorTrigger(tc, args); err != nil {
			return taskOutcome{state: TaskFailed, reason: err.Error()}
		}
		req.TriggerRunID = &trigger.runID
	}
	body, err := json.Marshal(req)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("encode python task request: %v", err)}
	}
	folder, err := makeTempFolder(tempFolderTry)
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("create task folder: %v", err)}
	}
	defer folder.remove()
	dir := folder.path

	env := map[string]string{"AIRFLOW_CTX_DAG_ID": job.dag.DagID, "AIRFLOW_CTX_TASK_ID": job.task.TaskID,
		"AIRFLOW_CTX_DAG_RUN_ID": job.run.RunID, "AIRFLOW_CTX_TRY_NUMBER": fmt.Sprint(job.try),
		"AIRFLOW_CTX_EXECUTION_DATE": isoFormat(job.run.ExecutionDate), "AIRFLOW_CTX_DAG_OWNER": job.task.Owner}
	if !s.noPythonWorker && runtime.GOOS == "linux" {
		key := pyWorkerKey{interp: interp, edition: req.Edition, folder: pc.Folder}
		if out, ok := s.runPythonForked(ctx, job, tc, key, prog, dir, env, body); ok {
			return out
		}
	}

	// fd 3: airlite's answers; fd 4: the process's requests and result
	// (on Windows two inherited handles, see passTaskChannel).
	answersR, answersW, err := os.Pipe()
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("open task channel: %v", err)}
	}
	defer answersW.Close()
	requestsR, requestsW, err := os.Pipe()
	if err != nil {
		answersR.Close()
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("open task channel: %v", err)}
	}
	defer requestsR.Close()

	out := &tailBuffer{limit: maxTaskOutput}
	cmd := exec.CommandContext(ctx, interp, filepath.Join(prog, "airlite_task.py"))
	cmd.Dir = dir
	cmd.Env = pythonTaskEnv(prog)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = taskProcAttr()
	if err := passTaskChannel(cmd, answersR, requestsW); err != nil {
		answersR.Close()
		requestsW.Close()
		return taskOutcome{state: TaskFailed, reason: err.Error()}
	}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = 2 * time.Second
	err = s.procs.start(cmd, req.MemoryBytes)
	// The child has its ends; airlite keeps only its own.
	answersR.Close()
	requestsW.Close()
	if err != nil {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("run python: %v", err)}
	}
	pid := cmd.Process.Pid
	if rerr := s.opts.Store.RecordTaskProcess(job.key, job.run.ID, job.try, pid, processIdentity(pid)); rerr != nil {
		s.opts.Logger.Error().Err(rerr).Str("task", job.key.String()).Msg("record task process")
	}
	served := s.servePythonTry(tc, pid, requestsR, answersW)
	err = cmd.Wait()
	s.procs.ended(pid)
	got := awaitServed(served, requestsR)
	text, cut := out.result()
	return s.pythonOutcome(ctx, job, got, err, text, cut)
}

// servePythonTry serves a try's channel in the background; a channel that
// ends without a result ends the try's group (pid's): nothing it waits
// for will come.
func (s *scheduler) servePythonTry(tc templateContext, pid int, requests io.Reader, answers io.Writer) <-chan pythonServed {
	served := make(chan pythonServed, 1)
	go func() {
		got := s.servePythonChannel(tc, requests, answers)
		if got.result == nil {
			_ = killGroup(pid)
		}
		served <- got
	}()
	return served
}

// awaitServed waits for the channel's end once the try's process has
// ended: a process that left the group may still hold the pipe, which is
// then closed.
func awaitServed(served <-chan pythonServed, requests *os.File) pythonServed {
	select {
	case got := <-served:
		return got
	case <-time.After(pythonChannelGrace):
		requests.Close()
		return <-served
	}
}

// runPythonForked runs the try as a child of the warm worker for key
// (scheduler_pyworker.go). ok is false when the worker could not start
// it: nothing ran, and the caller runs the try in a process of its own.
func (s *scheduler) runPythonForked(ctx context.Context, job taskJob, tc templateContext, key pyWorkerKey, prog, dir string,
	env map[string]string, body []byte) (taskOutcome, bool) {
	w, err := s.pyworkers.get(s.procs, key, prog)
	if err != nil {
		s.opts.Logger.Warn().Err(err).Msg("python worker: running the try in a process of its own")
		return taskOutcome{}, false
	}
	var pipes [8]*os.File // stdin, log, answers, requests: read end, write end
	for i := 0; i < 8; i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			for _, f := range pipes[:i] {
				f.Close()
			}
			return taskOutcome{state: TaskFailed, reason: fmt.Sprintf("open task pipes: %v", err)}, true
		}
	}
	stdinR, stdinW, logR, logW := pipes[0], pipes[1], pipes[2], pipes[3]
	answersR, answersW, requestsR, requestsW := pipes[4], pipes[5], pipes[6], pipes[7]
	pid, exit, err := w.start(ctx, dir, env, stdinR, logW, answersR, requestsW)
	// The child has its ends; airlite keeps only its own.
	stdinR.Close()
	logW.Close()
	answersR.Close()
	requestsW.Close()
	if err != nil {
		stdinW.Close()
		logR.Close()
		answersW.Close()
		requestsR.Close()
		if ctx.Err() != nil {
			return taskOutcome{state: TaskFailed, reason: "killed: " + context.Cause(ctx).Error()}, true
		}
		s.opts.Logger.Warn().Err(err).Msg("python worker: running the try in a process of its own")
		return taskOutcome{}, false
	}
	defer answersW.Close()
	defer requestsR.Close()
	go func() {
		_, _ = stdinW.Write(body)
		stdinW.Close()
	}()
	if rerr := s.opts.Store.RecordTaskProcess(job.key, job.run.ID, job.try, pid, processIdentity(pid)); rerr != nil {
		s.opts.Logger.Error().Err(rerr).Str("task", job.key.String()).Msg("record task process")
	}
	out := &tailBuffer{limit: maxTaskOutput}
	logged := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, logR)
		close(logged)
	}()
	served := s.servePythonTry(tc, pid, requestsR, answersW)
	var (
		status int
		known  bool
	)
	select {
	case status, known = <-exit:
	case <-ctx.Done():
		_ = killGroup(pid)
		status, known = <-exit
	}
	// What is left of the group ends with the try, before the worker may
	// reap the child and free its pid.
	_ = killGroup(pid)
	if known {
		w.reap(pid)
	}
	select {
	case <-logged:
	case <-time.After(pythonChannelGrace):
		logR.Close() // a process outside the group holds the log
		<-logged
	}
	logR.Close()
	got := awaitServed(served, requestsR)
	var waitErr error
	switch {
	case !known:
		waitErr = errWorkerGone
	case status < 0:
		waitErr = fmt.Errorf("signal: %v", syscall.Signal(-status))
	case status > 0:
		waitErr = fmt.Errorf("exit status %d", status)
	}
	text, cut := out.result()
	return s.pythonOutcome(ctx, job, got, waitErr, text, cut), true
}

// pythonServed is how the channel ended: the result, if one came.
type pythonServed struct {
	result *pythonTaskResult
	err    error
}

// servePythonChannel answers the task process's requests until its result
// (or the end of the pipe).
func (s *scheduler) servePythonChannel(tc templateContext, requests io.Reader, answers io.Writer) pythonServed {
	lines := bufio.NewReaderSize(requests, 64<<10)
	enc := json.NewEncoder(answers)
	for {
		line, err := readBoundedLine(lines, maxPythonChannelLine)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return pythonServed{err: err}
		}
		var req pythonChannelRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return pythonServed{err: fmt.Errorf("decode task request: %w", err)}
		}
		if req.Op == "result" {
			var res pythonTaskResult
			if err := json.Unmarshal(line, &res); err != nil {
				return pythonServed{err: fmt.Errorf("decode task result: %w", err)}
			}
			return pythonServed{result: &res}
		}
		if err := enc.Encode(s.answerPython(tc, req)); err != nil {
			return pythonServed{err: fmt.Errorf("answer task request: %w", err)}
		}
	}
}

// answerPython answers one request: a template rendered with the
// edition's Jinja, a variable, the XCom entries a pull reads. The answer
// is data the program decodes, never source it runs.
func (s *scheduler) answerPython(tc templateContext, req pythonChannelRequest) map[string]any {
	switch req.Op {
	case "render":
		text, err := tc.renderText(req.Template)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return map[string]any{"text": text}
	case "variable":
		v, ok := s.opts.Store.VariableValue(req.Key)
		return map[string]any{"found": ok, "value": v}
	case "variable_mask":
		// Variable.get in the callable teaches the try's masker what the
		// release's does (2.10.3 models/variable.py:148-153; 3.2.1
		// task-sdk execution_time/context.py:241, a string only).
		if !req.JSON {
			tc.secrets.addVariable(req.Key, req.Value, false)
			return map[string]any{"ok": true}
		}
		decoded, err := decodeJSONValue([]byte(req.Value))
		if err != nil {
			return map[string]any{"error": fmt.Sprintf("Variable.get: variable %s does not hold JSON: %v", req.Key, err)}
		}
		tc.secrets.addVariable(req.Key, decoded, true)
		return map[string]any{"ok": true}
	case "variable_set":
		// Variable.set inside a callable writes the store at once, as
		// Airflow's writes its database (2.10.3 models/variable.py _set).
		if _, err := s.opts.Store.SetVariable(req.Key, req.Value, req.Description); err != nil {
			text, _ := storeErrorTextWith(err, tc.rules.freeingRoutes())
			return map[string]any{"error": fmt.Sprintf("Variable.set: %s", orDefault(text, err.Error()))}
		}
		return map[string]any{"ok": true}
	case "variable_delete":
		err := s.opts.Store.DeleteVariable(req.Key)
		switch {
		case errors.Is(err, errNotFound):
			return map[string]any{"deleted": 0}
		case err != nil:
			return map[string]any{"error": fmt.Sprintf("Variable.delete: %v", err)}
		}
		return map[string]any{"deleted": 1}
	case "xcom_pull":
		q := XComPullQuery{DagIDs: req.DagIDs, TaskIDs: req.TaskIDs, Key: req.Key, RunID: tc.run.RunID,
			Date: tc.run.ExecutionDate, ByDate: tc.rules.pythonSurface == "1.10", IncludePriorDates: req.IncludePriorDates}
		entries, err := s.opts.Store.XComsToPull(q)
		if err != nil {
			return map[string]any{"error": fmt.Sprintf("xcom_pull: %v", err)}
		}
		found := make([]pythonXComEntry, len(entries))
		for i, e := range entries {
			found[i] = pythonXComEntry{TaskID: e.TaskID, Key: e.Key, RunID: e.RunID, MapIndex: e.MapIndex, Value: string(e.Value)}
		}
		return map[string]any{"entries": found}
	}
	return map[string]any{"error": fmt.Sprintf("unknown request %q", req.Op)}
}

// pythonOutcome turns the try's end into its outcome: the program's
// result, or the reason there is none.
func (s *scheduler) pythonOutcome(ctx context.Context, job taskJob, got pythonServed, waitErr error, text string, cut bool) taskOutcome {
	res := taskOutcome{state: TaskFailed, output: text, cut: cut}
	r := got.result
	switch {
	case ctx.Err() != nil:
		res.reason = "killed: " + context.Cause(ctx).Error()
		return res
	case r == nil && got.err != nil:
		res.reason = fmt.Sprintf("python task channel: %v", got.err)
		return res
	case r == nil:
		res.reason = fmt.Sprintf("python task process ended without a result (%v)", waitErr)
		return res
	}
	for _, p := range r.Pushes {
		res.pushed = append(res.pushed, xcomPush{Key: p[0], Value: json.RawMessage(p[1])})
	}
	res.renderedMapIndex = r.RenderedMapIndex
	// The events a task adds through an alias are kept only for an alias
	// the task declares among its outlets (as the task program already
	// does), and every extra is a JSON object within the conf's size
	// limit (compactConf), so that a callable adds no unbounded state.
	declared := map[string]bool{}
	for _, o := range job.task.Outlets {
		if a, ok := aliasOf(o); ok {
			declared[a.Name] = true
		}
	}
	extraOf := func(raw json.RawMessage) (json.RawMessage, bool) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return nil, false // not an object (null included)
		}
		extra, err := compactConf(raw)
		return extra, err == nil
	}
	for _, e := range r.AliasEvents {
		extra, ok := extraOf(e.Extra)
		if !ok || !declared[e.Alias.Name] || (e.Asset.Name == "" && e.Asset.URI == "") {
			continue // the program sends none such; a broken line names no asset
		}
		res.aliasEvents = append(res.aliasEvents, aliasEvent{Alias: e.Alias,
			Asset: assetRef{Name: cmp.Or(e.Asset.Name, e.Asset.URI), URI: cmp.Or(e.Asset.URI, e.Asset.Name), Group: e.Asset.Group}, Extra: extra})
	}
	for _, e := range r.OutletExtras {
		if extra, ok := extraOf(e.Extra); ok {
			if res.outletExtras == nil {
				res.outletExtras = map[string]json.RawMessage{}
			}
			res.outletExtras[cmp.Or(e.Asset.Name, e.Asset.URI)+"\x00"+cmp.Or(e.Asset.URI, e.Asset.Name)] = extra
		}
	}
	switch r.State {
	case TaskSuccess:
		if len(r.Rendered) > 0 && string(r.Rendered) != "null" {
			dec := json.NewDecoder(bytes.NewReader(r.Rendered))
			dec.UseNumber()
			if err := dec.Decode(&res.rendered); err != nil {
				res.reason = fmt.Sprintf("decode rendered fields: %v", err)
				return res
			}
		}
		if r.ReturnValue != nil {
			res.returnValue = json.RawMessage(*r.ReturnValue)
			res.returnMapLength = r.MapLength
		}
		if err := s.skipDownstream(job, r.Skip); err != nil {
			res.reason = err.Error()
			return res
		}
		res.state = TaskSuccess
		// The task program checked its return value for mapped tasks
		// downstream; a @task.bash's command has yet to give one.
		res.pushChecked = r.BashCommand == nil
		if r.BashCommand != nil {
			return s.runDecoratedBash(ctx, job, *r.BashCommand, res)
		}
		if r.Trigger != nil {
			return s.runCallableTrigger(ctx, job, r.Trigger, res)
		}
	case TaskSkipped:
		res.state = TaskSkipped
	default:
		res.reason, res.noRetry = r.Reason, r.NoRetry
		if res.reason == "" {
			res.reason = "python callable failed"
		}
	}
	return res
}

// runDecoratedBash runs the command a @task.bash callable returned (its
// try so far in called) as a BashOperator's: rendered with the edition's
// templates, each value a request could have set reaching bash through
// its environment (renderShell), in a process group of its own; the
// output follows the callable's, the rendered fields add the callable's
// arguments to the command's (2.10.3 decorators/bash.py
// _BashDecoratedOperator.execute, then BashOperator.execute).
func (s *scheduler) runDecoratedBash(ctx context.Context, job taskJob, command string, called taskOutcome) taskOutcome {
	plan, err := compileShellPlan(command)
	if err != nil {
		called.state, called.reason = TaskFailed, "bash_command: "+err.Error()
		return called
	}
	task := *job.task
	task.BashCommand, task.shellPlan = command, plan
	job.task = &task
	ran := s.runBash(ctx, job)
	ran.output, ran.cut = called.output+ran.output, called.cut || ran.cut
	ran.pushed = append(called.pushed, ran.pushed...)
	for k, v := range called.rendered {
		if ran.rendered == nil {
			ran.rendered = map[string]any{}
		}
		ran.rendered[k] = v
	}
	return ran
}

// skipDownstream marks the tasks a branch or a short circuit skips, before
// the try that skips them ends, as Airflow's SkipMixin writes them from
// inside execute (2.10.3 models/skipmixin.py _set_state_to_skipped).
func (s *scheduler) skipDownstream(job taskJob, ids []string) error {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return job.dag.Task(id) == nil })
	if len(ids) == 0 {
		return nil
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	_, _, err := s.opts.Store.ForceTaskStates(job.dag.DagID, job.run.RunID, TaskSkipped, now,
		func(*DAG) ([]string, error) { return ids, nil })
	if err != nil {
		return fmt.Errorf("skip downstream tasks: %w", err)
	}
	return nil
}

// pythonContext is the try's context as data (templateVars2/110 give the
// names and values).
func (s *scheduler) pythonContext(tc templateContext) pythonTaskContext {
	c := pythonTaskContext{DagID: tc.dag.DagID, TaskID: tc.task.TaskID, RunID: tc.run.RunID, TryNumber: tc.try,
		MaxTries: tc.task.Retries, Hostname: s.opts.Hostname, Values: map[string]any{}, Dates: map[string]*string{},
		Params: map[string]any{}, Conf: tc.run.Conf}
	for k, v := range tc.rules.templateVars(tc) {
		switch x := v.(type) {
		case nil:
			c.Values[k] = nil
		case string, bool:
			c.Values[k] = x
		case templateDate:
			iso := isoFormat(x.t)
			c.Dates[k] = &iso
		}
	}
	for _, k := range []string{"prev_execution_date", "next_execution_date"} {
		if v, ok := c.Values[k]; ok && v == nil {
			delete(c.Values, k)
			c.Dates[k] = nil
		}
	}
	maps := []map[string]any{tc.dag.Params, tc.task.Params}
	var conf map[string]any
	if tc.run.Conf != nil && json.Unmarshal(tc.run.Conf, &conf) == nil {
		maps = append(maps, conf) // dag_run_conf_overrides_params
	}
	for _, m := range maps {
		for k, v := range m {
			c.Params[k] = v
		}
	}
	if tc.run.Conf == nil {
		c.Conf = json.RawMessage("null")
	}
	iso := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return isoFormat(*t)
	}
	c.DagRun = map[string]any{"dag_id": tc.dag.DagID, "run_id": tc.run.RunID, "run_type": tc.run.RunType,
		"external_trigger": tc.run.ExternalTrigger, "execution_date": isoFormat(tc.run.ExecutionDate),
		"start_date": iso(tc.run.StartDate), "queued_at": iso(tc.run.QueuedAt), "state": "running"}
	if tc.rules.pythonSurface != "1.10" {
		// A run without a logical date (Airflow 3) has no interval either.
		c.DagRun["logical_date"], c.DagRun["data_interval_start"], c.DagRun["data_interval_end"] = nil, nil, nil
		if _, ok := tc.run.LogicalDate(); ok {
			start, end := tc.dataInterval()
			c.DagRun["logical_date"] = isoFormat(tc.run.ExecutionDate)
			c.DagRun["data_interval_start"], c.DagRun["data_interval_end"] = isoFormat(start), isoFormat(end)
		}
	}
	return c
}
