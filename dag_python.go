package main

// Python DAG files, read without Airflow: airlite runs the machine's
// Python 3 (--python, AIRLITE_PYTHON) on an embedded program (python/)
// that provides the authoring surface DAG files import and reads a whole
// folder in one process, the way Airflow's DagBag does. What comes back is
// each file's DAGs in a serialized form modelled on Airflow's serialized
// DAG (airflow/serialization/serialized_objects.py, schema.json), or the
// file's import error in Airflow's words.
//
// The reader runs in its own process group (as task processes do,
// scheduler_procs*.go), with an address-space bound set in the child and
// a time bound per file: Python's own alarm gives Airflow's
// dagbag_import_timeout message; a file that does not answer even then
// has its group killed here, and the files after it are read by a new
// process.

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

//go:embed python/*.py python/airflow/*.py python/airflow/*/*.py python/airflow/providers/standard/*.py python/airflow/providers/standard/*/*.py python/airlite_compat/pendulum/*.py
var pythonProgram embed.FS

const (
	// defaultPythonImportTimeout is Airflow's dagbag_import_timeout
	// (2.10.3 config_templates/config.yml core.dagbag_import_timeout: 30.0).
	defaultPythonImportTimeout = 30 * time.Second
	// defaultPythonMemory bounds the reader's address space (RLIMIT_AS):
	// generous, since libraries DAG files import (pyarrow, numpy) reserve
	// far more address space than they use.
	defaultPythonMemory = 8 << 30
	// maxPythonAnswerLine bounds one file's answer (its serialized DAGs).
	maxPythonAnswerLine = 64 << 20
	// maxPythonStderr is how much of what DAG files print airlite keeps.
	maxPythonStderr = 64 << 10
	// pythonWatchdogGrace is how long past the per-file bound airlite
	// waits for Python's own alarm before it kills the reader.
	pythonWatchdogGrace = 2 * time.Second
)

// isPythonName says whether a DAG folder file is a Python file.
func isPythonName(name string) bool { return strings.EqualFold(path.Ext(name), ".py") }

// pythonReader reads Python DAG files with one Python process per folder.
type pythonReader struct {
	Python    string            // interpreter: a path or a name on PATH
	Edition   string            // "1.10" or "2": the authoring surface's release
	Timeout   time.Duration     // per file; 0 is defaultPythonImportTimeout
	Memory    int64             // address-space bound in bytes; 0 is defaultPythonMemory, <0 none
	Variables map[string]string // what Variable.get finds
	Logger    zerolog.Logger
	// started, when set, hears each reader process's group id (tests).
	started func(pgid int)
	// each, when set, hears each file's answer as it arrives, so that the
	// caller can build its DAGs while the reader goes on; the results
	// ReadFolder returns then leave the DAGs out.
	each func(res pyFileResult)
}

// pyFileResult is what the reader says about one file.
type pyFileResult struct {
	File        string            `json:"file"`
	DAGs        []pySerializedDAG `json:"dags"`
	ImportError *string           `json:"import_error"`
	Skipped     bool              `json:"skipped"` // safe mode: no "airflow" and "dag" in it
	// Duration is how long the reader took over the file, in seconds,
	// from its start line to its answer (measured here, not by the reader).
	Duration float64 `json:"-"`
}

// pySerializedDAG is one DAG as the reader serializes it: Airflow's
// serialized DAG keys and value encodings (2.10.3 schema.json
// definitions.dag), every field present, the timetable's summary and
// description beside it.
type pySerializedDAG struct {
	DagID                       string                           `json:"_dag_id"`
	Fileloc                     string                           `json:"fileloc"`
	ProcessorDagsFolder         string                           `json:"_processor_dags_folder"`
	Description                 *string                          `json:"_description"`
	ScheduleInterval            json.RawMessage                  `json:"schedule_interval"`
	Timetable                   *pyTimetable                     `json:"timetable"`
	TimetableSummary            *string                          `json:"timetable_summary"`
	TimetableDescription        *string                          `json:"timetable_description"`
	Timezone                    json.RawMessage                  `json:"timezone"` // a name, or seconds east of UTC
	StartDate                   *float64                         `json:"start_date"`
	EndDate                     *float64                         `json:"end_date"`
	Catchup                     bool                             `json:"catchup"`
	MaxActiveRuns               int                              `json:"max_active_runs"`
	MaxActiveTasks              int                              `json:"_max_active_tasks"`
	MaxConsecutiveFailedDagRuns int                              `json:"max_consecutive_failed_dag_runs"`
	DagrunTimeout               *float64                         `json:"dagrun_timeout"`
	DefaultArgs                 json.RawMessage                  `json:"default_args"`
	Params                      []pyParam                        `json:"params"`
	Tags                        []string                         `json:"tags"`
	Owner                       string                           `json:"owner"`
	OwnerLinks                  map[string]string                `json:"owner_links"`
	DocMD                       *string                          `json:"doc_md"`
	DefaultView                 string                           `json:"_default_view"`
	Orientation                 string                           `json:"orientation"`
	IsPausedUponCreation        *bool                            `json:"is_paused_upon_creation"`
	RenderTemplateAsNativeObj   bool                             `json:"render_template_as_native_obj"`
	HasOnSuccessCallback        bool                             `json:"has_on_success_callback"`
	HasOnFailureCallback        bool                             `json:"has_on_failure_callback"`
	IsSubdag                    bool                             `json:"is_subdag"`
	ParentDag                   *string                          `json:"parent_dag"`
	EdgeInfo                    map[string]map[string]pyEdgeInfo `json:"edge_info"`
	TaskGroup                   *pyTaskGroup                     `json:"_task_group"` // none in 1.10.15
	Tasks                       []pyTask                         `json:"tasks"`
	// airlite's additions: the dag_display_name the file gave (null: the
	// dag_id) and the schedule's asset condition as DagModel keeps it for
	// display (airlite_serialize.py asset_expression).
	DagDisplayName    *string         `json:"dag_display_name"`
	DatasetExpression json.RawMessage `json:"dataset_expression"`
	// AllowedRunTypes is Airflow 3.2's serialized allowed_run_types: the
	// sorted values, absent or null for every type (c57fba0e
	// serialization/serialized_objects.py:1716-1721). The reader writes
	// the key only when the DAG names some, so an older definition file,
	// and a DAG without them, reads the same.
	AllowedRunTypes []string `json:"allowed_run_types,omitempty"`

	// raw is the DAG as the reader wrote it, which a stale DAG's
	// definition keeps (dag_origin.go).
	raw string
}

// UnmarshalJSON decodes a serialized DAG strictly, as the answer it is
// part of, and keeps its bytes.
func (d *pySerializedDAG) UnmarshalJSON(data []byte) error {
	type plain pySerializedDAG
	var body plain
	if err := strictUnmarshal(data, &body); err != nil {
		return err
	}
	*d = pySerializedDAG(body)
	d.raw = string(data)
	return nil
}

// pyTimetable is Airflow's encoded timetable: its class path and its own
// serialized form (2.10.3 serialized_objects.py encode_timetable).
type pyTimetable struct {
	Type string          `json:"__type"`
	Var  json.RawMessage `json:"__var"`
}

// pyEdgeInfo is an edge's metadata (schema.json definitions.edge_info).
type pyEdgeInfo struct {
	Label string `json:"label"`
}

// pyParam is one entry of a serialized params list: [name, {__class,
// default, description, schema}] (2.10.3 serialized_objects.py
// _serialize_params_dict).
type pyParam struct {
	Name        string
	Class       string          `json:"__class"`
	Default     json.RawMessage `json:"default"`
	Description json.RawMessage `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

func (p *pyParam) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil {
		return fmt.Errorf("decode param: %w", err)
	}
	if len(pair) != 2 {
		return fmt.Errorf("decode param: %d elements, want [name, param]", len(pair))
	}
	if err := json.Unmarshal(pair[0], &p.Name); err != nil {
		return fmt.Errorf("decode param name: %w", err)
	}
	type plain pyParam
	var body plain
	if err := strictUnmarshal(pair[1], &body); err != nil {
		return fmt.Errorf("decode param %s: %w", p.Name, err)
	}
	body.Name = p.Name
	*p = pyParam(body)
	return nil
}

// pyTask is one operator, with Airflow's serialized operator keys
// (schema.json definitions.operator).
type pyTask struct {
	TaskID                   string                     `json:"task_id"`
	Label                    string                     `json:"label"`
	TaskType                 string                     `json:"_task_type"`
	TaskModule               string                     `json:"_task_module"`
	OperatorName             string                     `json:"_operator_name"`
	IsEmpty                  bool                       `json:"_is_empty"`
	Owner                    string                     `json:"owner"`
	Email                    json.RawMessage            `json:"email"`
	TriggerRule              string                     `json:"trigger_rule"`
	DependsOnPast            bool                       `json:"depends_on_past"`
	IgnoreFirstDependsOnPast bool                       `json:"ignore_first_depends_on_past"`
	WaitForDownstream        bool                       `json:"wait_for_downstream"`
	Retries                  json.Number                `json:"retries"`
	RetryDelay               *float64                   `json:"retry_delay"`
	RetryExponentialBackoff  bool                       `json:"retry_exponential_backoff"`
	MaxRetryDelay            *float64                   `json:"max_retry_delay"`
	ExecutionTimeout         *float64                   `json:"execution_timeout"`
	Queue                    string                     `json:"queue"`
	Pool                     string                     `json:"pool"`
	PoolSlots                json.Number                `json:"pool_slots"`
	PriorityWeight           json.Number                `json:"priority_weight"`
	WeightRule               string                     `json:"weight_rule"`
	StartDate                *float64                   `json:"start_date"`
	EndDate                  *float64                   `json:"end_date"`
	DoXComPush               bool                       `json:"do_xcom_push"`
	MultipleOutputs          bool                       `json:"multiple_outputs"`
	MaxActiveTIsPerDag       *int                       `json:"max_active_tis_per_dag"`
	MaxActiveTIsPerDagrun    *int                       `json:"max_active_tis_per_dagrun"`
	ExecutorConfig           json.RawMessage            `json:"executor_config"`
	UIColor                  string                     `json:"ui_color"`
	UIFgcolor                string                     `json:"ui_fgcolor"`
	TemplateExt              []string                   `json:"template_ext"`
	TemplateFields           []string                   `json:"template_fields"`
	TemplateFieldsRenderers  map[string]string          `json:"template_fields_renderers"`
	TemplateValues           map[string]json.RawMessage `json:"template_values"` // Airflow keeps them at the top level
	DownstreamTaskIDs        []string                   `json:"downstream_task_ids"`
	Params                   []pyParam                  `json:"params"`
	DocMD                    *string                    `json:"doc_md"`
	IsSetup                  bool                       `json:"_is_setup"`
	IsTeardown               bool                       `json:"_is_teardown"`
	// Inlets and Outlets are the task's, each an asset, a dataset or an
	// alias in its encoded form ({"__type": "asset", ...}), else its str().
	Inlets              []any                      `json:"inlets"`
	Outlets             []any                      `json:"outlets"`
	OnFailureFailDagrun bool                       `json:"_on_failure_fail_dagrun"`
	IsMapped            bool                       `json:"_is_mapped"`
	ExpandInput         json.RawMessage            `json:"expand_input,omitempty"`
	PartialKwargs       json.RawMessage            `json:"partial_kwargs,omitempty"`
	Generic             bool                       `json:"_airlite_generic,omitempty"` // a class airlite does not know
	Kwargs              map[string]json.RawMessage `json:"kwargs,omitempty"`           // a generic operator's arguments
	Subdag              *string                    `json:"subdag,omitempty"`           // a SubDagOperator's DAG id
	TaskDisplayName     *string                    `json:"task_display_name"`
	// OperatorExtraLinks are the class's operator_extra_links: module,
	// class name, the link's name (schema.json _operator_extra_links) and
	// the XCom key the link names, "" for none (Airflow 3's xcom_key).
	OperatorExtraLinks [][4]string `json:"_operator_extra_links"`
}

// pyTaskGroup is a task group (schema.json definitions.task_group).
type pyTaskGroup struct {
	GroupID            *string                    `json:"_group_id"` // null for the root group
	PrefixGroupID      bool                       `json:"prefix_group_id"`
	Tooltip            string                     `json:"tooltip"`
	UIColor            string                     `json:"ui_color"`
	UIFgcolor          string                     `json:"ui_fgcolor"`
	Children           map[string]pyTaskGroupItem `json:"children"`
	UpstreamGroupIDs   []string                   `json:"upstream_group_ids"`
	DownstreamGroupIDs []string                   `json:"downstream_group_ids"`
	UpstreamTaskIDs    []string                   `json:"upstream_task_ids"`
	DownstreamTaskIDs  []string                   `json:"downstream_task_ids"`
}

// pyTaskGroupItem is a group's child: ["operator", task_id] or
// ["taskgroup", {...}] (2.10.3 TaskGroupSerialization).
type pyTaskGroupItem struct {
	TaskID string       // set for an operator
	Group  *pyTaskGroup // set for a group
}

func (c *pyTaskGroupItem) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("decode task group child: want [kind, value]: %s", data)
	}
	var kind string
	if err := json.Unmarshal(pair[0], &kind); err != nil {
		return fmt.Errorf("decode task group child kind: %w", err)
	}
	switch kind {
	case "operator":
		return json.Unmarshal(pair[1], &c.TaskID)
	case "taskgroup":
		c.Group = &pyTaskGroup{}
		return strictUnmarshal(pair[1], c.Group)
	}
	return fmt.Errorf("decode task group child: unknown kind %q", kind)
}

// strictUnmarshal decodes one JSON value, refusing fields the Go side does
// not know: the program and these types change together.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	return dec.Decode(v)
}

// pythonRequest is what the program reads on stdin.
type pythonRequest struct {
	Edition     string            `json:"edition"`
	DagFolder   string            `json:"dag_folder"`
	Files       []string          `json:"files"`
	Timeout     float64           `json:"timeout"`
	MemoryBytes int64             `json:"memory_bytes"`
	Variables   map[string]string `json:"variables"`
}

// pythonMissingError is the import error of every .py file when no
// interpreter can be found.
func pythonMissingError(python string, err error) string {
	return fmt.Sprintf("airlite reads Python DAG files with Python 3, and cannot run %q (%v). "+
		"Install Python 3 (e.g. apt-get install python3), or name an interpreter with --python PATH "+
		"or AIRLITE_PYTHON=PATH (a project's virtualenv, so that the DAG files' own imports work).", python, err)
}

// listPythonFiles lists the .py files of dir as Airflow's DagBag lists
// them, under .airflowignore (dag_walk.go), as absolute paths.
func listPythonFiles(ctx context.Context, dir string, rules *editionRules, warn func(file, problem string)) ([]string, error) {
	read, err := scanDAGFolder(ctx, dir, rules, warn)
	if err != nil {
		return nil, err
	}
	return read.py, nil
}

// scanDAGFolder walks a DAG folder on disk once, listing its definition
// and .py files with their stamps.
func scanDAGFolder(ctx context.Context, dir string, rules *editionRules, warn func(file, problem string)) (*folderRead, error) {
	folder, err := openDAGFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("open dag folder %s: %w", dir, err)
	}
	defer folder.Close()
	return dagLoader{ctx: ctx, rules: rules, warn: warn}.listFolder(folder, dir)
}

// ReadFolder reads the Python DAG files files (absolute paths inside
// folder) and returns one result per file, in order. An error means the
// reader itself could not run (no temporary folder, ctx ended); a file
// that fails, or an interpreter that cannot be found, is an import error
// in its result.
func (r pythonReader) ReadFolder(ctx context.Context, folder string, files []string) ([]pyFileResult, error) {
	results := make([]pyFileResult, 0, len(files))
	if len(files) == 0 {
		return results, nil
	}
	python := r.Python
	if python == "" {
		python = "python3"
	}
	interp, err := exec.LookPath(python)
	if err != nil {
		msg := pythonMissingError(python, err)
		for _, f := range files {
			res := pyFileResult{File: f, ImportError: &msg}
			if !mightContainDAG(f, r.Edition) {
				res = pyFileResult{File: f, Skipped: true}
			}
			results = append(results, res)
		}
		return results, nil
	}
	tmp, err := makeTempFolder(tempFolderParse)
	if err != nil {
		return nil, fmt.Errorf("read python dags: %w", err)
	}
	defer tmp.remove()
	dir := tmp.path
	if err := extractPythonProgram(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, fmt.Errorf("read python dags: %w", err)
	}
	rest := files
	for len(rest) > 0 {
		got, err := r.runOnce(ctx, interp, dir, abs, rest)
		results = append(results, got...)
		if err != nil {
			return results, err
		}
		rest = rest[len(got):]
	}
	return results, nil
}

// mightContainDAG is safe mode's test, as the program makes it (2.10.3
// utils/file.py:348-365: "dag" and "airflow" in any case; 1.10.15
// utils/dag_processing.py:360-365: "DAG" and "airflow" as written), for
// when there is no Python to make it. A file that cannot be read might.
func mightContainDAG(file, surface string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		return true
	}
	if surface == "1.10" {
		return bytes.Contains(data, []byte("DAG")) && bytes.Contains(data, []byte("airflow"))
	}
	data = bytes.ToLower(data)
	return bytes.Contains(data, []byte("dag")) && bytes.Contains(data, []byte("airflow"))
}

// extractPythonProgram writes the embedded program into dir.
func extractPythonProgram(dir string) error {
	return fs.WalkDir(pythonProgram, "python", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "python")))
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		data, err := pythonProgram.ReadFile(p)
		if err != nil {
			return fmt.Errorf("extract python program: %w", err)
		}
		if err := os.WriteFile(target, data, 0o600); err != nil {
			return fmt.Errorf("extract python program: %w", err)
		}
		return nil
	})
}

func (r pythonReader) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return defaultPythonImportTimeout
}

// timeoutMessage is Airflow's import error for a file that passed the
// bound (2.10.3 models/dagbag.py:406-411; 1.10.15 utils/timeout.py:39,
// which adds the parsing process's pid).
func (r pythonReader) timeoutMessage(file string, pid int) string {
	if r.Edition == "1.10" {
		return fmt.Sprintf("Timeout, PID: %d", pid)
	}
	docs := "https://airflow.apache.org/docs/apache-airflow/2.10.3/"
	return fmt.Sprintf("DagBag import timeout for %s after %ss.\n"+
		"Please take a look at these docs to improve your DAG import time:\n"+
		"* %sbest-practices.html#top-level-python-code\n"+
		"* %sbest-practices.html#reducing-dag-complexity", file, pyFloatSeconds(r.timeout()), docs, docs)
}

// pyFloatSeconds is a duration as Python prints a float of seconds.
func pyFloatSeconds(d time.Duration) string {
	s := fmt.Sprintf("%g", d.Seconds())
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// runOnce runs one reader process on files and returns the results it
// gave, in order: all of them, or those before the file it stopped on,
// plus that file's import error.
func (r pythonReader) runOnce(ctx context.Context, interp, progDir, folder string, files []string) ([]pyFileResult, error) {
	memory := r.Memory
	if memory == 0 {
		memory = defaultPythonMemory
	}
	if memory < 0 {
		memory = 0
	}
	req, err := json.Marshal(pythonRequest{Edition: r.Edition, DagFolder: folder, Files: files,
		Timeout: r.timeout().Seconds(), MemoryBytes: memory, Variables: r.Variables})
	if err != nil {
		return nil, fmt.Errorf("encode python request: %w", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// -B: no bytecode files in the DAG folder. PYTHONPATH and the
	// interpreter's site-packages stay, as under Airflow: DAG files import
	// what the project installed.
	cmd := exec.CommandContext(runCtx, interp, "-B", filepath.Join(progDir, "airlite_parse.py"))
	cmd.Dir = folder
	cmd.Stdin = bytes.NewReader(req)
	cmd.SysProcAttr = taskProcAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = time.Second
	stderr := &tailBuffer{limit: maxPythonStderr}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start python reader: %w", err)
	}
	if err := startGroup(cmd, memory); err != nil {
		msg := pythonMissingError(interp, err)
		out := make([]pyFileResult, len(files))
		for i, f := range files {
			out[i] = pyFileResult{File: f, ImportError: &msg}
		}
		return out, nil
	}
	pid := cmd.Process.Pid
	if r.started != nil {
		r.started(pid)
	}
	// The group ends with the reader, whatever it left running.
	defer endGroup(pid)

	var (
		mu       sync.Mutex
		current  string
		timedOut bool
	)
	watchdog := time.AfterFunc(time.Hour, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cancel()
	})
	defer watchdog.Stop()
	watchdog.Stop()

	var results []pyFileResult
	var fileStarted time.Time
	lines := bufio.NewReaderSize(stdout, 64<<10)
	var readErr error
	for {
		line, err := readBoundedLine(lines, maxPythonAnswerLine)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		var head struct {
			Start *string `json:"start"`
			Done  bool    `json:"done"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			readErr = fmt.Errorf("decode python answer: %w", err)
			break
		}
		if head.Done {
			break
		}
		if head.Start != nil {
			fileStarted = time.Now()
			mu.Lock()
			current = *head.Start
			mu.Unlock()
			watchdog.Reset(r.timeout() + pythonWatchdogGrace)
			continue
		}
		watchdog.Stop()
		var res pyFileResult
		if err := strictUnmarshal(line, &res); err != nil {
			readErr = fmt.Errorf("decode python answer for %s: %w", current, err)
			break
		}
		if !fileStarted.IsZero() { // the reader names each file before its answer
			res.Duration = time.Since(fileStarted).Seconds()
			fileStarted = time.Time{}
		}
		if r.each != nil {
			// The caller has the DAGs; the results keep the rest, so that
			// the serialized form of a whole folder is not held at once.
			r.each(res)
			res.DAGs = nil
		}
		results = append(results, res)
		mu.Lock()
		current = ""
		mu.Unlock()
	}
	if readErr != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	watchdog.Stop()
	printed, _ := stderr.result()
	if s := printed; s != "" {
		r.Logger.Debug().Str("output", s).Msg("python dag files printed")
	}
	if ctx.Err() != nil {
		return results, fmt.Errorf("read python dags: %w", context.Cause(ctx))
	}
	if len(results) == len(files) {
		return results, nil
	}
	// The reader stopped before the end: the file it was on gets the
	// reason, the rest go to a new process.
	mu.Lock()
	file, killed := current, timedOut
	mu.Unlock()
	if file == "" {
		file = files[len(results)]
	}
	var msg string
	switch {
	case killed:
		msg = r.timeoutMessage(file, pid)
	case readErr != nil:
		msg = fmt.Sprintf("airlite could not read what its Python reader said about this file: %v", readErr)
	default:
		msg = fmt.Sprintf("airlite's Python reader ended while reading this file (%v)", waitErr)
		if tail := lastLines(printed, 20); tail != "" {
			msg += ":\n" + tail
		}
	}
	results = append(results, pyFileResult{File: file, ImportError: &msg})
	return results, nil
}

// readBoundedLine reads one line of at most max bytes.
func readBoundedLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("read python answer: a line longer than %d bytes", max)
		}
		if err == nil {
			return line, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 && errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read python answer: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
