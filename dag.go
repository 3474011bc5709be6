package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"github.com/adhocore/gronx"
	"io"
	"io/fs"
	"maps"
	"math/bits"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// embeddedFixtures are the example DAGs served when --dags is not given.
//
//go:embed fixtures/*.yaml
var embeddedFixtures embed.FS

// DAG is one parsed definition file. It is immutable once loaded: the store
// keeps a pointer to it and nothing writes to it afterwards.
type DAG struct {
	DagID                string
	Description          string
	Schedule             *string // nil: no schedule (Airflow's None)
	StartDate            *time.Time
	EndDate              *time.Time
	Catchup              bool
	IsPausedUponCreation bool
	MaxActiveRuns        int
	MaxActiveTasks       int
	DagrunTimeout        time.Duration
	Tags                 []string
	Params               map[string]any
	DefaultArgs          map[string]any
	// DefaultArgsStartDate is default_args' start_date, which Airflow checks
	// triggered dates against (the DAG-level start_date is not checked).
	DefaultArgsStartDate *time.Time
	Tasks                []*Task
	taskByID             map[string]*Task
	upstreamFirst        []*Task // every task after its upstream tasks (linkTasks)

	FilePath    string // where the definition came from ("fixtures/x.yaml" when embedded)
	SourceCode  string // a <file>.py beside the definition, when there is one
	ParentDagID string // set on sub-DAGs: the DAG whose SubDagOperator runs it
}

// Task is one operator of a DAG, with default_args already applied.
type Task struct {
	TaskID                  string
	Operator                string
	BashCommand             string
	Env                     map[string]string
	Cwd                     string
	ExecutionTimeout        time.Duration
	Upstream                []string // sorted
	Downstream              []string // sorted
	Retries                 int
	RetryDelay              time.Duration
	RetryExponentialBackoff bool
	MaxRetryDelay           time.Duration
	Pool                    string
	PoolSlots               int
	PriorityWeight          int // the task's own weight
	WeightRule              string
	TriggerRule             string
	Queue                   string
	Owner                   string
	Email                   any
	EmailOnFailure          bool
	EmailOnRetry            bool
	DependsOnPast           bool
	StartDate               *time.Time
	EndDate                 *time.Time
	Params                  map[string]any
	Subdag                  string
	Simulate                *Simulation
	Inlets                  []any
	Outlets                 []any
	DocMD                   string

	// TotalWeight is the priority weight under Airflow's "downstream" rule:
	// the task's own weight plus that of every task downstream of it.
	TotalWeight int

	// shellPlan is a BashOperator's bash_command compiled at load: how the
	// value of each {{ ... }} reaches bash (shellplan.go).
	shellPlan *shellPlan
}

// Simulation scripts what a task does instead of running an operator.
type Simulation struct {
	Duration  time.Duration
	Outcome   string // success, failed or skipped
	FailTimes int    // fail the first N tries, then take Outcome
}

// Task returns the task with the given id, or nil.
func (d *DAG) Task(taskID string) *Task { return d.taskByID[taskID] }

// UpstreamFirst lists the tasks so that each comes after its upstream
// tasks: one pass over it propagates skips and failures all the way down.
func (d *DAG) UpstreamFirst() []*Task { return d.upstreamFirst }

// SubDAGIDs lists the DAG ids run by this DAG's SubDagOperators.
func (d *DAG) SubDAGIDs() []string {
	var ids []string
	for _, t := range d.Tasks {
		if t.Subdag != "" {
			ids = append(ids, t.Subdag)
		}
	}
	return ids
}

// DAGSet is everything a definition folder holds.
type DAGSet struct {
	DAGs  []*DAG  // sorted by dag_id
	Pools []*Pool // fixture pools, without default_pool
}

// dagFile is the on-disk shape of a definition. Field names are Airflow's.
type dagFile struct {
	DagID                string         `yaml:"dag_id"`
	Description          string         `yaml:"description"`
	ScheduleInterval     yaml.Node      `yaml:"schedule_interval"`
	Schedule             yaml.Node      `yaml:"schedule"`
	StartDate            *dateValue     `yaml:"start_date"`
	EndDate              *dateValue     `yaml:"end_date"`
	Catchup              *bool          `yaml:"catchup"`
	IsPausedUponCreation bool           `yaml:"is_paused_upon_creation"`
	MaxActiveRuns        *int           `yaml:"max_active_runs"`
	MaxActiveTasks       *int           `yaml:"max_active_tasks"`
	Concurrency          *int           `yaml:"concurrency"` // Airflow 1.10's name for max_active_tasks
	DagrunTimeout        *durationValue `yaml:"dagrun_timeout"`
	Tags                 []string       `yaml:"tags"`
	Params               map[string]any `yaml:"params"`
	DefaultArgs          yaml.Node      `yaml:"default_args"`
	Tasks                []taskEntry    `yaml:"tasks"`
}

// taskSpec is the on-disk shape of a task; default_args use the same shape.
type taskSpec struct {
	TaskID                  string            `yaml:"task_id"`
	Operator                string            `yaml:"operator"`
	BashCommand             string            `yaml:"bash_command"`
	Env                     map[string]string `yaml:"env"`
	Cwd                     string            `yaml:"cwd"`
	ExecutionTimeout        *durationValue    `yaml:"execution_timeout"`
	Upstream                []string          `yaml:"upstream"`
	Downstream              []string          `yaml:"downstream"`
	Retries                 *int              `yaml:"retries"`
	RetryDelay              *durationValue    `yaml:"retry_delay"`
	RetryExponentialBackoff bool              `yaml:"retry_exponential_backoff"`
	MaxRetryDelay           *durationValue    `yaml:"max_retry_delay"`
	Pool                    string            `yaml:"pool"`
	PoolSlots               *int              `yaml:"pool_slots"`
	PriorityWeight          *int              `yaml:"priority_weight"`
	WeightRule              string            `yaml:"weight_rule"`
	TriggerRule             string            `yaml:"trigger_rule"`
	Queue                   string            `yaml:"queue"`
	Owner                   string            `yaml:"owner"`
	Email                   any               `yaml:"email"`
	EmailOnFailure          *bool             `yaml:"email_on_failure"`
	EmailOnRetry            *bool             `yaml:"email_on_retry"`
	DependsOnPast           bool              `yaml:"depends_on_past"`
	StartDate               *dateValue        `yaml:"start_date"`
	EndDate                 *dateValue        `yaml:"end_date"`
	Params                  map[string]any    `yaml:"params"`
	Subdag                  string            `yaml:"subdag"`
	Simulate                *simulateSpec     `yaml:"simulate"`
	Inlets                  []any             `yaml:"inlets"`
	Outlets                 []any             `yaml:"outlets"`
	DocMD                   string            `yaml:"doc_md"`
}

type simulateSpec struct {
	Duration  *durationValue `yaml:"duration"`
	Outcome   string         `yaml:"outcome"`
	FailTimes int            `yaml:"fail_times"`
}

// taskEntry keeps a task's YAML node, so that default_args can be applied
// under it and errors can name its line.
type taskEntry struct{ node *yaml.Node }

func (e *taskEntry) UnmarshalYAML(n *yaml.Node) error {
	e.node = n
	return nil
}

type dateValue struct{ t time.Time }

func (d *dateValue) UnmarshalYAML(n *yaml.Node) error {
	t, err := parseAirflowDate(n.Value, time.Now())
	if err != nil {
		return fmt.Errorf("line %d: %q is not a date", n.Line, n.Value)
	}
	d.t = t.UTC()
	return nil
}

func (d *dateValue) ptr() *time.Time {
	if d == nil {
		return nil
	}
	t := d.t
	return &t
}

type durationValue struct{ d time.Duration }

func (v *durationValue) UnmarshalYAML(n *yaml.Node) error {
	d, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (use 5m, 1h30m, 1d or 0:05:00)", n.Line, n.Value)
	}
	v.d = d
	return nil
}

func (v *durationValue) or(def time.Duration) time.Duration {
	if v == nil {
		return def
	}
	return v.d
}

var validOperatorOutcomes = map[string]bool{"success": true, "failed": true, "skipped": true}

var validTriggerRules = map[string]bool{
	"all_success": true, "all_failed": true, "all_done": true, "all_skipped": true,
	"one_success": true, "one_failed": true, "one_done": true, "none_failed": true,
	"none_failed_min_one_success": true, "none_skipped": true, "always": true,
	"dummy": true, "none_failed_or_skipped": true,
}

// loadEmbeddedDAGs parses the definitions built into the binary.
func loadEmbeddedDAGs() (*DAGSet, error) {
	sub, err := fs.Sub(embeddedFixtures, "fixtures")
	if err != nil {
		return nil, fmt.Errorf("open embedded fixtures: %w", err)
	}
	return loadDAGs(sub, "fixtures")
}

// maxDefinitionBytes bounds a definition file: a 15,000-task DAG is about
// 1 MiB of YAML; a larger file is a mistake, or a device that never ends.
const maxDefinitionBytes = 16 << 20

// dagLoader reads definition folders.
type dagLoader struct {
	// ctx ends the reading early (a signal during start-up); nil: never.
	ctx context.Context
	// warn hears of the entries passed over; nil: silently.
	warn func(file, problem string)
}

// loadDAGDir parses every definition in a folder.
func loadDAGDir(dir string) (*DAGSet, error) { return dagLoader{}.loadDir(dir) }

// loadDAGs parses every definition of fsys; see dagLoader.load.
func loadDAGs(fsys fs.FS, label string) (*DAGSet, error) { return dagLoader{}.load(fsys, label) }

// loadDir parses every definition in a folder on disk.
func (l dagLoader) loadDir(dir string) (*DAGSet, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("open dags folder: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("open dags folder: %s is not a folder", dir)
	}
	folder, err := openDAGFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("open dags folder: %w", err)
	}
	defer folder.Close()
	return l.load(folder, dir)
}

// load parses every *.yaml, *.yml and *.json file at the top of fsys
// (pools.yaml / pools.json hold pools), then checks the set as a whole.
// label prefixes file names in errors. Entries that are not regular files
// (a FIFO, a device, a socket, also behind a symlink) are passed over with
// a warning: reading one may never end. A file over maxDefinitionBytes is
// refused.
func (l dagLoader) load(fsys fs.FS, label string) (*DAGSet, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", label, err)
	}
	set := &DAGSet{}
	seen := map[string]string{} // dag_id -> file
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(path.Ext(name))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		file := filepath.Join(label, name)
		if l.ctx != nil && l.ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", label, context.Cause(l.ctx))
		}
		info, err := fs.Stat(fsys, name) // follows a symlink
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if !info.Mode().IsRegular() {
			if l.warn != nil {
				l.warn(file, fmt.Sprintf("not a regular file (%v): passed over", info.Mode().Type()))
			}
			continue
		}
		if info.Size() > maxDefinitionBytes {
			return nil, fmt.Errorf("read %s: %d bytes, over the limit of %d for a definition file", file, info.Size(), maxDefinitionBytes)
		}
		data, err := readAtMost(fsys, name, maxDefinitionBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		base := strings.TrimSuffix(name, path.Ext(name))
		if base == "pools" {
			pools, err := parsePools(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			set.Pools = append(set.Pools, pools...)
			continue
		}
		dag, err := parseDAG(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if other, dup := seen[dag.DagID]; dup {
			return nil, fmt.Errorf("%s: dag_id %q is already defined in %s", file, dag.DagID, other)
		}
		seen[dag.DagID] = file
		dag.FilePath = file
		// Any file that cannot be served (none, or not one to serve) means
		// /code answers with the rendering.
		if src, err := readDAGSource(fsys, base+".py"); err == nil {
			dag.SourceCode = string(src)
		}
		set.DAGs = append(set.DAGs, dag)
	}
	sort.Slice(set.DAGs, func(i, j int) bool { return set.DAGs[i].DagID < set.DAGs[j].DagID })
	if err := linkSubDAGs(set.DAGs, seen); err != nil {
		return nil, err
	}
	return set, nil
}

// linkSubDAGs checks every SubDagOperator's target and marks the child DAGs.
// Airflow requires a sub-DAG's id to be "<parent>.<task_id>".
func linkSubDAGs(dags []*DAG, files map[string]string) error {
	byID := make(map[string]*DAG, len(dags))
	for _, d := range dags {
		byID[d.DagID] = d
	}
	for _, d := range dags {
		for _, t := range d.Tasks {
			if t.Operator != "SubDagOperator" {
				continue
			}
			want := d.DagID + "." + t.TaskID
			if t.Subdag == "" {
				t.Subdag = want
			}
			if t.Subdag != want {
				return fmt.Errorf("%s: task %q: subdag must be named %q (Airflow names a sub-DAG <parent>.<task_id>), got %q",
					files[d.DagID], t.TaskID, want, t.Subdag)
			}
			child, ok := byID[t.Subdag]
			if !ok {
				return fmt.Errorf("%s: task %q: subdag %q is not defined by any file", files[d.DagID], t.TaskID, t.Subdag)
			}
			if child.ParentDagID != "" && child.ParentDagID != d.DagID {
				return fmt.Errorf("%s: subdag %q is already run by %q", files[d.DagID], t.Subdag, child.ParentDagID)
			}
			child.ParentDagID = d.DagID
		}
	}
	return nil
}

// parseDAG reads and validates one definition file.
func parseDAG(data []byte) (*DAG, error) {
	var f dagFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if f.DagID == "" {
		return nil, errors.New("dag_id is missing")
	}
	if err := checkID("dag_id", f.DagID, true); err != nil {
		return nil, err
	}
	dag := &DAG{
		DagID:                f.DagID,
		Description:          f.Description,
		StartDate:            f.StartDate.ptr(),
		EndDate:              f.EndDate.ptr(),
		Catchup:              true, // Airflow's [scheduler] catchup_by_default
		IsPausedUponCreation: f.IsPausedUponCreation,
		MaxActiveRuns:        16,
		MaxActiveTasks:       16,
		DagrunTimeout:        f.DagrunTimeout.or(0),
		Tags:                 f.Tags,
		Params:               f.Params,
		taskByID:             map[string]*Task{},
	}
	if f.Catchup != nil {
		dag.Catchup = *f.Catchup
	}
	if f.MaxActiveRuns != nil {
		dag.MaxActiveRuns = *f.MaxActiveRuns
	}
	switch {
	case f.MaxActiveTasks != nil:
		dag.MaxActiveTasks = *f.MaxActiveTasks
	case f.Concurrency != nil:
		dag.MaxActiveTasks = *f.Concurrency
	}
	if dag.MaxActiveRuns < 1 || dag.MaxActiveTasks < 1 {
		return nil, errors.New("max_active_runs and max_active_tasks must be at least 1")
	}
	schedule, err := parseSchedule(&f.ScheduleInterval, &f.Schedule)
	if err != nil {
		return nil, err
	}
	dag.Schedule = schedule

	var defaults taskSpec
	if f.DefaultArgs.Kind != 0 {
		if err := decodeStrict(&f.DefaultArgs, &defaults); err != nil {
			return nil, fmt.Errorf("line %d: default_args: %w", f.DefaultArgs.Line, err)
		}
		if err := f.DefaultArgs.Decode(&dag.DefaultArgs); err != nil {
			return nil, fmt.Errorf("default_args: %w", err)
		}
		dag.DefaultArgsStartDate = defaults.StartDate.ptr()
		if defaults.TaskID != "" || len(defaults.Upstream) > 0 || len(defaults.Downstream) > 0 {
			return nil, fmt.Errorf("line %d: default_args cannot set task_id, upstream or downstream", f.DefaultArgs.Line)
		}
	}
	if len(f.Tasks) == 0 {
		return nil, fmt.Errorf("dag %q has no tasks", f.DagID)
	}
	lines := map[string]int{}
	for _, entry := range f.Tasks {
		spec := defaults // default_args first, the task's own keys over them
		// The decoder fills maps in place: give each task its own copies.
		spec.Env = copyMap(defaults.Env)
		spec.Params = copyMap(defaults.Params)
		if err := decodeStrict(entry.node, &spec); err != nil {
			return nil, fmt.Errorf("task at line %d: %w", entry.node.Line, err)
		}
		task, err := buildTask(spec, dag)
		if err != nil {
			return nil, fmt.Errorf("task at line %d: %w", entry.node.Line, err)
		}
		if task.Operator == "BashOperator" {
			if task.shellPlan, err = compileShellPlan(task.BashCommand); err != nil {
				return nil, fmt.Errorf("line %d: task %q: bash_command: %w",
					bashCommandLine(entry.node, &f.DefaultArgs, err), task.TaskID, err)
			}
			for _, name := range slices.Sorted(maps.Keys(task.Env)) {
				if _, err := parseTemplate(task.Env[name]); err != nil {
					return nil, fmt.Errorf("line %d: task %q: env %s: %w", entry.node.Line, task.TaskID, name, err)
				}
			}
		}
		if _, dup := dag.taskByID[task.TaskID]; dup {
			return nil, fmt.Errorf("line %d: duplicate task_id %q (first at line %d)", entry.node.Line, task.TaskID, lines[task.TaskID])
		}
		lines[task.TaskID] = entry.node.Line
		dag.taskByID[task.TaskID] = task
		dag.Tasks = append(dag.Tasks, task)
	}
	if err := linkTasks(dag, lines); err != nil {
		return nil, err
	}
	return dag, nil
}

// bashCommandLine is the file line at which a refused bash_command is
// reported: the line of its value, from the task or else from default_args;
// in a literal block (|), whose lines are the file's, the line of the
// refused expression.
func bashCommandLine(task, defaults *yaml.Node, err error) int {
	value := mappingValue(task, "bash_command")
	if value == nil {
		value = mappingValue(defaults, "bash_command")
	}
	if value == nil {
		return task.Line
	}
	var refusal *shellRefusal
	if value.Style&yaml.LiteralStyle != 0 && errors.As(err, &refusal) {
		return value.Line + refusal.line // the block starts on the line after the |
	}
	return value.Line
}

// mappingValue is the value of key in a mapping node (aliases followed),
// or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			value := n.Content[i+1]
			for value.Kind == yaml.AliasNode {
				value = value.Alias
			}
			return value
		}
	}
	return nil
}

// relativeLineRe matches the "line N: " prefixes of errors from a
// re-encoded node, whose line numbers mean nothing in the file.
var relativeLineRe = regexp.MustCompile(`(?m)^(\s*)line \d+: `)

// decodeStrict decodes a node rejecting unknown keys, as the file decoder does.
func decodeStrict(n *yaml.Node, out any) error {
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(out); err != nil {
		// Line numbers in this error are relative to the node; drop them in
		// favour of the caller's absolute line.
		msg := strings.ReplaceAll(err.Error(), "yaml: unmarshal errors:\n  ", "")
		return errors.New(relativeLineRe.ReplaceAllString(msg, "$1"))
	}
	return nil
}

func parseSchedule(interval, schedule *yaml.Node) (*string, error) {
	n := interval
	if schedule.Kind != 0 {
		if interval.Kind != 0 {
			return nil, fmt.Errorf("line %d: give schedule_interval or schedule, not both", schedule.Line)
		}
		n = schedule
	}
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("line %d: schedule_interval must be a cron expression, a preset, a duration or null", n.Line)
	}
	s := strings.TrimSpace(n.Value)
	if err := validateSchedule(s); err != nil {
		return nil, fmt.Errorf("line %d: schedule_interval %q: %w", n.Line, s, err)
	}
	return &s, nil
}

// validateSchedule accepts Airflow's presets, durations and five-field cron
// expressions. The scheduler interprets them.
func validateSchedule(s string) error {
	switch s {
	case "@once", "@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly", "@annually", "@midnight":
		return nil
	}
	if strings.HasPrefix(s, "@") {
		return errors.New("unknown preset")
	}
	if _, err := parseDuration(s); err == nil {
		return nil
	}
	if len(strings.Fields(s)) != 5 {
		return errors.New("want a cron expression with five fields, a preset (@daily) or a duration (1d, 6h)")
	}
	// Airflow refuses a bad cron expression when it parses the file
	// (croniter raises); airlite does too, instead of failing every pass.
	// From a leap year's start, any expression that can fire does so
	// within the search.
	if _, err := gronx.NextTickAfter(s, cronCheckFrom, false); err != nil {
		if strings.Contains(err.Error(), "tried so hard") {
			return errors.New("not a valid cron expression: it never fires (no such date)")
		}
		return fmt.Errorf("not a valid cron expression: %v", err)
	}
	return nil
}

// cronCheckFrom is where validateSchedule looks for a cron expression's
// first tick: a leap year, so that February 29 is found.
var cronCheckFrom = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func buildTask(s taskSpec, dag *DAG) (*Task, error) {
	if s.TaskID == "" {
		return nil, errors.New("task_id is missing")
	}
	if err := checkID("task_id", s.TaskID, false); err != nil {
		return nil, err
	}
	if s.Operator == "" {
		return nil, fmt.Errorf("task %q: operator is missing", s.TaskID)
	}
	t := &Task{
		TaskID:                  s.TaskID,
		Operator:                s.Operator,
		BashCommand:             s.BashCommand,
		Env:                     s.Env,
		Cwd:                     s.Cwd,
		ExecutionTimeout:        s.ExecutionTimeout.or(0),
		Upstream:                s.Upstream,
		Downstream:              s.Downstream,
		RetryDelay:              s.RetryDelay.or(5 * time.Minute),
		RetryExponentialBackoff: s.RetryExponentialBackoff,
		MaxRetryDelay:           s.MaxRetryDelay.or(0),
		Pool:                    orDefault(s.Pool, defaultPoolName),
		PoolSlots:               1,
		PriorityWeight:          1,
		WeightRule:              orDefault(s.WeightRule, "downstream"),
		TriggerRule:             orDefault(s.TriggerRule, "all_success"),
		Queue:                   orDefault(s.Queue, "default"),
		Owner:                   orDefault(s.Owner, "airflow"),
		Email:                   s.Email,
		EmailOnFailure:          true,
		EmailOnRetry:            true,
		DependsOnPast:           s.DependsOnPast,
		StartDate:               s.StartDate.ptr(),
		EndDate:                 s.EndDate.ptr(),
		Params:                  s.Params,
		Subdag:                  s.Subdag,
		Inlets:                  s.Inlets,
		Outlets:                 s.Outlets,
		DocMD:                   s.DocMD,
	}
	if s.Retries != nil {
		t.Retries = *s.Retries
	}
	if s.PoolSlots != nil {
		t.PoolSlots = *s.PoolSlots
	}
	if s.PriorityWeight != nil {
		t.PriorityWeight = *s.PriorityWeight
	}
	if s.EmailOnFailure != nil {
		t.EmailOnFailure = *s.EmailOnFailure
	}
	if s.EmailOnRetry != nil {
		t.EmailOnRetry = *s.EmailOnRetry
	}
	if t.StartDate == nil {
		t.StartDate = dag.StartDate
	}
	if t.EndDate == nil {
		t.EndDate = dag.EndDate
	}
	switch {
	case t.Retries < 0:
		return nil, fmt.Errorf("task %q: retries must not be negative", t.TaskID)
	case t.PoolSlots < 1:
		return nil, fmt.Errorf("task %q: pool_slots must be at least 1", t.TaskID)
	case !validTriggerRules[t.TriggerRule]:
		return nil, fmt.Errorf("task %q: unknown trigger_rule %q", t.TaskID, t.TriggerRule)
	case t.WeightRule != "downstream" && t.WeightRule != "upstream" && t.WeightRule != "absolute":
		return nil, fmt.Errorf("task %q: unknown weight_rule %q (downstream, upstream or absolute)", t.TaskID, t.WeightRule)
	case t.Operator == "BashOperator" && strings.TrimSpace(t.BashCommand) == "":
		return nil, fmt.Errorf("task %q: a BashOperator needs a bash_command", t.TaskID)
	case t.Operator != "SubDagOperator" && t.Subdag != "":
		return nil, fmt.Errorf("task %q: subdag is only for SubDagOperator", t.TaskID)
	}
	if sim := s.Simulate; sim != nil {
		outcome := orDefault(sim.Outcome, "success")
		if !validOperatorOutcomes[outcome] {
			return nil, fmt.Errorf("task %q: simulate outcome %q: want success, failed or skipped", t.TaskID, sim.Outcome)
		}
		if sim.FailTimes < 0 {
			return nil, fmt.Errorf("task %q: simulate fail_times must not be negative", t.TaskID)
		}
		t.Simulate = &Simulation{Duration: sim.Duration.or(0), Outcome: outcome, FailTimes: sim.FailTimes}
	}
	return t, nil
}

// checkID applies Airflow's key rule: letters, digits, dashes, dots and
// underscores, at most 250 characters (dots only in dag ids of sub-DAGs).
func checkID(field, id string, allowDot bool) error {
	if len(id) > 250 {
		return fmt.Errorf("%s %q is longer than 250 characters", field, id)
	}
	for _, r := range id {
		ok := r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok || (r == '.' && !allowDot) {
			return fmt.Errorf("%s %q may hold only letters, digits, dashes, dots and underscores", field, id)
		}
	}
	return nil
}

// linkTasks makes upstream and downstream lists mirror each other, refuses
// unknown task ids and cycles, and computes downstream priority weights.
func linkTasks(dag *DAG, lines map[string]int) error {
	up := map[string]map[string]bool{}
	down := map[string]map[string]bool{}
	for _, t := range dag.Tasks {
		up[t.TaskID], down[t.TaskID] = map[string]bool{}, map[string]bool{}
	}
	for _, t := range dag.Tasks {
		for _, id := range t.Downstream {
			if dag.taskByID[id] == nil {
				return fmt.Errorf("line %d: task %q: downstream task %q does not exist", lines[t.TaskID], t.TaskID, id)
			}
			down[t.TaskID][id], up[id][t.TaskID] = true, true
		}
		for _, id := range t.Upstream {
			if dag.taskByID[id] == nil {
				return fmt.Errorf("line %d: task %q: upstream task %q does not exist", lines[t.TaskID], t.TaskID, id)
			}
			up[t.TaskID][id], down[id][t.TaskID] = true, true
		}
	}
	for _, t := range dag.Tasks {
		t.Upstream, t.Downstream = sortedKeys(up[t.TaskID]), sortedKeys(down[t.TaskID])
	}
	if cycle := findCycle(dag); cycle != nil {
		return fmt.Errorf("line %d: tasks form a cycle: %s", lines[cycle[0]], strings.Join(cycle, " >> "))
	}
	setPriorityWeights(dag)
	dag.upstreamFirst = upstreamFirst(dag)
	return nil
}

// upstreamFirst orders an acyclic DAG's tasks by Kahn's algorithm, roots
// in file order first.
func upstreamFirst(dag *DAG) []*Task {
	waiting := make(map[string]int, len(dag.Tasks))
	order := make([]*Task, 0, len(dag.Tasks))
	for _, t := range dag.Tasks {
		waiting[t.TaskID] = len(t.Upstream)
		if len(t.Upstream) == 0 {
			order = append(order, t)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, id := range order[k].Downstream {
			if waiting[id]--; waiting[id] == 0 {
				order = append(order, dag.taskByID[id])
			}
		}
	}
	return order
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// findCycle returns one cycle as a task path (first task repeated at the
// end), or nil.
func findCycle(dag *DAG) []string {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(id string) []string
	visit = func(id string) []string {
		state[id] = visiting
		stack = append(stack, id)
		for _, next := range dag.taskByID[id].Downstream {
			switch state[next] {
			case visiting:
				for i, s := range stack {
					if s == next {
						return append(append([]string(nil), stack[i:]...), next)
					}
				}
			case unvisited:
				if c := visit(next); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
		return nil
	}
	for _, t := range dag.Tasks {
		if state[t.TaskID] == unvisited {
			if c := visit(t.TaskID); c != nil {
				return c
			}
		}
	}
	return nil
}

// setPriorityWeights applies each task's weight rule, as Airflow's
// priority_weight_total does: downstream sums the task and every distinct
// task below it, upstream every distinct task above it, absolute its own.
func setPriorityWeights(dag *DAG) {
	index := make(map[string]int, len(dag.Tasks))
	for i, t := range dag.Tasks {
		index[t.TaskID] = i
	}
	var below, above []int
	for _, t := range dag.Tasks {
		switch t.WeightRule {
		case "absolute":
			t.TotalWeight = t.PriorityWeight
			continue
		case "upstream":
			if above == nil {
				above = reachableWeights(dag.Tasks, index, func(t *Task) []string { return t.Upstream }, reachBlock)
			}
			t.TotalWeight = t.PriorityWeight + above[index[t.TaskID]]
		default:
			if below == nil {
				below = reachableWeights(dag.Tasks, index, func(t *Task) []string { return t.Downstream }, reachBlock)
			}
			t.TotalWeight = t.PriorityWeight + below[index[t.TaskID]]
		}
	}
}

// reachBlock is how many tasks one pass of reachableWeights tracks: a
// bitset of reachBlock bits per task bounds its memory to 512 bytes a task.
const reachBlock = 4096

// reachableWeights returns, for each task, the summed priority_weight of
// the distinct tasks reachable from it through next (itself excluded);
// block is a multiple of 64.
// Summing the children's totals would count a task reached along two
// paths twice, and a walk per task is quadratic with maps in its loop;
// instead each pass takes block target tasks and carries a bitset of the
// targets each task reaches, children before parents: O((tasks + edges) x
// tasks / 64) word operations. A DAG's tasks are acyclic here.
func reachableWeights(tasks []*Task, index map[string]int, next func(*Task) []string, block int) []int {
	n := len(tasks)
	children := make([][]int, n)
	parents := make([]int, n) // how many tasks point at each task
	for i, t := range tasks {
		for _, id := range next(t) {
			children[i] = append(children[i], index[id])
			parents[index[id]]++
		}
	}
	// Kahn's order from the roots; it is walked backwards, children first.
	order := make([]int, 0, n)
	for i := range tasks {
		if parents[i] == 0 {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, c := range children[order[k]] {
			if parents[c]--; parents[c] == 0 {
				order = append(order, c)
			}
		}
	}
	uniform := true
	for _, t := range tasks {
		uniform = uniform && t.PriorityWeight == tasks[0].PriorityWeight
	}
	sums := make([]int, n)
	words := block / 64
	reach := make([]uint64, n*words)
	for start := 0; start < n; start += block {
		clear(reach)
		for k := len(order) - 1; k >= 0; k-- {
			v := order[k]
			row := reach[v*words : (v+1)*words]
			for _, c := range children[v] {
				for i, word := range reach[c*words : (c+1)*words] {
					row[i] |= word
				}
				if c >= start && c < start+block {
					row[(c-start)/64] |= 1 << ((c - start) % 64)
				}
			}
			for i, word := range row {
				if uniform {
					sums[v] += bits.OnesCount64(word) * tasks[0].PriorityWeight
					continue
				}
				for word != 0 {
					sums[v] += tasks[start+i*64+bits.TrailingZeros64(word)].PriorityWeight
					word &= word - 1
				}
			}
		}
	}
	return sums
}

// readAtMost reads a file of at most limit bytes (it may have grown since
// it was looked at).
func readAtMost(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over the limit of %d bytes for a definition file", limit)
	}
	return data, nil
}

// poolSpec is one entry of pools.yaml.
type poolSpec struct {
	Name        string  `yaml:"name"`
	Slots       *int64  `yaml:"slots"`
	Description *string `yaml:"description"`
}

func parsePools(data []byte) ([]*Pool, error) {
	var specs []poolSpec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("parse pools: %w", err)
	}
	seen := map[string]bool{}
	pools := make([]*Pool, 0, len(specs))
	for i, s := range specs {
		switch {
		case strings.TrimSpace(s.Name) == "":
			return nil, fmt.Errorf("pool %d: name is missing", i+1)
		case s.Name == defaultPoolName:
			return nil, fmt.Errorf("pool %d: %s is built in; change its slots through the API", i+1, defaultPoolName)
		case seen[s.Name]:
			return nil, fmt.Errorf("pool %d: duplicate pool %q", i+1, s.Name)
		case s.Slots == nil:
			return nil, fmt.Errorf("pool %q: slots is missing", s.Name)
		}
		seen[s.Name] = true
		pools = append(pools, &Pool{Name: s.Name, Slots: *s.Slots, Description: s.Description})
	}
	return pools, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func copyMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
