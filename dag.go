package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/bits"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// embeddedFixtures are the example DAGs served when --dags is not given,
// one folder per Airflow release (editionRules.examples says which).
//
//go:embed fixtures/2.10.3/*.yaml fixtures/1.10.15/*.yaml
var embeddedFixtures embed.FS

// DAG is one parsed definition file. It is immutable once loaded: the store
// keeps a pointer to it and nothing writes to it afterwards.
type DAG struct {
	DagID                string
	Description          string
	Schedule             *string       // nil: no schedule (Airflow's None)
	cron                 *cronSchedule // Schedule compiled, when a cron expression or preset (parseSchedule)
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
	// lines of the definition file, for errors found once every file is
	// read: the dag_id key's, and each task's.
	idLine    int
	taskLines map[string]int

	FilePath    string // where the definition came from ("fixtures/2.10.3/x.yaml" when embedded)
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
	DoXComPush              *bool // nil: the operator's default in the edition (editionRules.bashPushesReturnValue)
	Inlets                  []any
	Outlets                 []any
	DocMD                   string

	// TotalWeight is the priority weight under Airflow's "downstream" rule:
	// the task's own weight plus that of every task downstream of it.
	TotalWeight int

	// shellPlan is a BashOperator's bash_command compiled at load: how the
	// value of each {{ ... }} reaches bash (template_shellplan.go).
	shellPlan *shellPlan
}

// Simulation scripts what a task does instead of running an operator.
type Simulation struct {
	Duration  time.Duration
	Outcome   string // success, failed or skipped
	FailTimes int    // fail the first N tries, then take Outcome

	XCom map[string]json.RawMessage // pushed when the try succeeds, as JSON
}

// Task returns the task with the given id, or nil.
// scheduleStart is the date a schedule counts from: the DAG's start_date,
// else the earliest of its tasks' (Airflow 1.10.15 airflow/models/dag.py:483
// keeps a DAG's start_date None when only default_args name one; Airflow
// 2.10.3 airflow/models/dag.py:620-624 copies default_args' onto the DAG,
// which every task then has as well).
func (d *DAG) scheduleStart() *time.Time {
	if d.StartDate != nil {
		return d.StartDate
	}
	var earliest *time.Time
	for _, t := range d.Tasks {
		if t.StartDate != nil && (earliest == nil || t.StartDate.Before(*earliest)) {
			earliest = t.StartDate
		}
	}
	return earliest
}

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
	Tasks                yaml.Node      `yaml:"tasks"`
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
	DoXComPush              *bool             `yaml:"do_xcom_push"`
	Inlets                  []any             `yaml:"inlets"`
	Outlets                 []any             `yaml:"outlets"`
	DocMD                   string            `yaml:"doc_md"`
}

// clone is a copy of s that shares nothing with it. The decoder writes a
// task's own value through a pointer or into a map it finds set, which
// would otherwise change default_args for every task after it.
func (s taskSpec) clone() taskSpec {
	s.ExecutionTimeout = clonePtr(s.ExecutionTimeout)
	s.Retries = clonePtr(s.Retries)
	s.RetryDelay = clonePtr(s.RetryDelay)
	s.MaxRetryDelay = clonePtr(s.MaxRetryDelay)
	s.PoolSlots = clonePtr(s.PoolSlots)
	s.PriorityWeight = clonePtr(s.PriorityWeight)
	s.EmailOnFailure = clonePtr(s.EmailOnFailure)
	s.EmailOnRetry = clonePtr(s.EmailOnRetry)
	s.StartDate = clonePtr(s.StartDate)
	s.EndDate = clonePtr(s.EndDate)
	s.DoXComPush = clonePtr(s.DoXComPush)
	if s.Simulate != nil {
		sim := *s.Simulate
		sim.Duration = clonePtr(sim.Duration)
		sim.XCom = copyMap(sim.XCom)
		s.Simulate = &sim
	}
	s.Env = copyMap(s.Env)
	s.Params = copyMap(s.Params)
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

type simulateSpec struct {
	Duration  *durationValue `yaml:"duration"`
	Outcome   string         `yaml:"outcome"`
	FailTimes int            `yaml:"fail_times"`
	XCom      map[string]any `yaml:"xcom"`
}

// dateValue is a date of a definition: a date as §2.3 reads it, or
// days_ago(n), which counts from the time the file is read.
type dateValue struct {
	t        time.Time // the date, unless relative
	relative bool      // days_ago(daysAgo), resolved by at
	daysAgo  int
}

func (d *dateValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &wantError{want: "a date", got: describeNode(n)}
	}
	if m := daysAgoRe.FindStringSubmatch(n.Value); m != nil {
		d.daysAgo, _ = strconv.Atoi(m[1])
		d.relative = true
		return nil
	}
	t, err := parseAirflowDate(n.Value, time.Now())
	if err != nil {
		return &wantError{want: "a date (2021-01-01 or 2021-01-01T00:00:00+00:00)", got: strconv.Quote(n.Value)}
	}
	d.t = t.UTC()
	return nil
}

// at is the date when the file is read at now.
func (d *dateValue) at(now time.Time) *time.Time {
	if d == nil {
		return nil
	}
	t := d.t
	if d.relative {
		t = daysAgo(d.daysAgo, now)
	}
	return &t
}

type durationValue struct{ d time.Duration }

func (v *durationValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &wantError{want: "a duration", got: describeNode(n)}
	}
	d, err := parseDuration(n.Value)
	if err != nil {
		return &wantError{want: "a duration (5m, 1h30m, 1d, 0:05:00 or a number of seconds)", got: strconv.Quote(n.Value)}
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

// loadExampleDAGs parses the example DAGs built into the binary for the
// edition's Airflow release, as read at now (days_ago counts from it).
func loadExampleDAGs(r *editionRules, now time.Time) (*DAGSet, error) {
	sub, err := fs.Sub(embeddedFixtures, r.examples)
	if err != nil {
		return nil, fmt.Errorf("open embedded fixtures: %w", err)
	}
	return dagLoader{now: now, rules: r}.load(sub, r.examples)
}

// loadEmbeddedDAGs parses the default edition's examples (Airflow 2.10.3's).
func loadEmbeddedDAGs() (*DAGSet, error) { return loadExampleDAGs(&rules2, time.Now()) }

// maxDefinitionBytes bounds a definition file: a 15,000-task DAG is about
// 1 MiB of YAML; a larger file is a mistake, or a device that never ends.
const maxDefinitionBytes = 16 << 20

// dagLoader reads definition folders.
type dagLoader struct {
	// ctx ends the reading early (a signal during start-up); nil: never.
	ctx context.Context
	// warn hears of the entries passed over; nil: silently.
	warn func(file, problem string)
	// now is when the files are read, for relative dates; zero: the
	// current time.
	now time.Time
	// rules are the edition's; they say how .airflowignore patterns match,
	// which operators a task may name and how cron day fields combine.
	// nil: Airflow 2's.
	rules *editionRules
}

// operators are the operators of the loader's edition.
func (l dagLoader) operators() *operatorSet {
	if l.rules == nil {
		return operators2()
	}
	return l.rules.operators()
}

// cronDays is how the loader's edition combines cron day fields.
func (l dagLoader) cronDays() cronDayRule {
	if l.rules == nil {
		return cronDayRule{}
	}
	return l.rules.cronDays
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

// load parses every *.yaml, *.yml and *.json file of fsys, in every
// folder that no .airflowignore pattern rules out (walkDefinitions), then
// checks the set as a whole. pools.yaml / pools.json at the top hold
// pools; further down they are refused. label prefixes file names in
// errors. Entries that are not regular files (a FIFO, a device, a socket,
// also behind a symlink) are passed over with a warning: reading one may
// never end. A file over maxDefinitionBytes is refused.
func (l dagLoader) load(fsys fs.FS, label string) (*DAGSet, error) {
	files, err := l.walkDefinitions(fsys, label)
	if err != nil {
		return nil, err
	}
	set := &DAGSet{}
	seen := map[string]string{} // dag_id -> file
	for _, rel := range files {
		file := filepath.Join(label, filepath.FromSlash(rel))
		if l.ctx != nil && l.ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", label, context.Cause(l.ctx))
		}
		info, err := fs.Stat(fsys, rel) // follows a symlink
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
		base := strings.TrimSuffix(rel, path.Ext(rel))
		if path.Base(base) == "pools" && path.Dir(rel) != "." {
			return nil, fmt.Errorf("%s: pools are read from %s at the top of the DAG folder only: move it there, or list it in %s",
				file, path.Base(rel), airflowignoreName)
		}
		data, err := readAtMost(fsys, rel, maxDefinitionBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if base == "pools" {
			pools, err := parsePools(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			set.Pools = append(set.Pools, pools...)
			continue
		}
		now := l.now
		if now.IsZero() {
			now = time.Now()
		}
		dag, err := parseDAGFor(data, now, l.operators(), l.cronDays())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if other, dup := seen[dag.DagID]; dup {
			return nil, fmt.Errorf("%s: line %d: dag_id %q is already defined in %s", file, dag.idLine, dag.DagID, other)
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
				return fmt.Errorf("%s: line %d: task %q: subdag must be named %q (Airflow names a sub-DAG <parent>.<task_id>), not %q",
					files[d.DagID], d.taskLines[t.TaskID], t.TaskID, want, t.Subdag)
			}
			child, ok := byID[t.Subdag]
			if !ok {
				return fmt.Errorf("%s: line %d: task %q: subdag %q is not defined by any file", files[d.DagID], d.taskLines[t.TaskID], t.TaskID, t.Subdag)
			}
			if child.ParentDagID != "" && child.ParentDagID != d.DagID {
				return fmt.Errorf("%s: line %d: task %q: subdag %q is already run by %s", files[d.DagID], d.taskLines[t.TaskID], t.TaskID, t.Subdag, child.ParentDagID)
			}
			child.ParentDagID = d.DagID
		}
	}
	return nil
}

// parseDAG reads and validates one definition file now.
func parseDAG(data []byte) (*DAG, error) { return parseDAGAt(data, time.Now()) }

// parseDAGAt reads and validates one definition file as read at now, from
// which relative dates count, with Airflow 2.10.3's operators. Every error
// names the line it is about.
func parseDAGAt(data []byte, now time.Time) (*DAG, error) {
	return parseDAGFor(data, now, operators2(), cronDayRule{})
}

// parseDAGFor is parseDAGAt for an edition whose release ships ops and
// whose croniter combines a cron expression's day fields by days.
func parseDAGFor(data []byte, now time.Time, ops *operatorSet, days cronDayRule) (*DAG, error) {
	root, err := parseDefinitionNode(data, "no DAG defined")
	if err != nil {
		return nil, err
	}
	keys := definitionKeys()
	var f dagFile
	if err := decodeMapping(root, reflect.ValueOf(&f).Elem(), keys.dag); err != nil {
		return nil, err
	}
	if f.DagID == "" {
		line := keyLine(root, "dag_id")
		if line == 0 {
			line = root.Line
		}
		return nil, fmt.Errorf("line %d: dag_id is missing", line)
	}
	if err := checkID("dag_id", f.DagID, true); err != nil {
		return nil, fmt.Errorf("line %d: %w", keyLine(root, "dag_id"), err)
	}
	dag := &DAG{
		DagID:                f.DagID,
		Description:          f.Description,
		StartDate:            f.StartDate.at(now),
		EndDate:              f.EndDate.at(now),
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
	limitKey := "max_active_tasks"
	switch {
	case f.MaxActiveTasks != nil:
		dag.MaxActiveTasks = *f.MaxActiveTasks
	case f.Concurrency != nil:
		dag.MaxActiveTasks, limitKey = *f.Concurrency, "concurrency"
	}
	if dag.MaxActiveRuns < 1 {
		return nil, fmt.Errorf("line %d: max_active_runs must be at least 1, not %d", keyLine(root, "max_active_runs"), dag.MaxActiveRuns)
	}
	if dag.MaxActiveTasks < 1 {
		return nil, fmt.Errorf("line %d: %s must be at least 1, not %d", keyLine(root, limitKey), limitKey, dag.MaxActiveTasks)
	}
	schedule, cron, err := parseSchedule(&f.ScheduleInterval, &f.Schedule, days)
	if err != nil {
		return nil, err
	}
	dag.Schedule, dag.cron = schedule, cron

	var defaults taskSpec
	if f.DefaultArgs.Kind != 0 && f.DefaultArgs.Tag != "!!null" {
		if err := decodeMapping(&f.DefaultArgs, reflect.ValueOf(&defaults).Elem(), keys.defaultArgs); err != nil {
			return nil, err
		}
		if err := f.DefaultArgs.Decode(&dag.DefaultArgs); err != nil {
			return nil, fmt.Errorf("line %d: default_args: %w", f.DefaultArgs.Line, err)
		}
		dag.DefaultArgsStartDate = defaults.StartDate.at(now)
		for _, key := range []string{"task_id", "upstream", "downstream"} {
			if line := keyLine(&f.DefaultArgs, key); line != 0 {
				return nil, fmt.Errorf("line %d: default_args cannot set %s: it belongs to each task", line, key)
			}
		}
	}
	tasks := resolveAlias(&f.Tasks)
	switch {
	case tasks.Kind == 0 || tasks.Tag == "!!null" || (tasks.Kind == yaml.SequenceNode && len(tasks.Content) == 0):
		line := keyLine(root, "tasks")
		if line == 0 {
			line = root.Line
		}
		return nil, fmt.Errorf("line %d: dag %q has no tasks", line, f.DagID)
	case tasks.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("line %d: tasks must be a list of tasks (each a mapping: - task_id: ...), not %s", tasks.Line, describeNode(tasks))
	}
	lines := map[string]int{}
	for _, node := range tasks.Content {
		node = resolveAlias(node)
		// default_args first, the task's own keys over them; the decoder
		// writes through pointers and fills maps in place, so each task
		// gets copies that share nothing.
		spec := defaults.clone()
		if node.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: each task must be a mapping of keys (task_id, operator, ...), not %s", node.Line, describeNode(node))
		}
		if err := decodeMapping(node, reflect.ValueOf(&spec).Elem(), keys.task); err != nil {
			return nil, err
		}
		task, err := buildTask(spec, dag, node, &f.DefaultArgs, now, ops)
		if err != nil {
			return nil, err
		}
		if task.Operator == "BashOperator" {
			if task.shellPlan, err = compileShellPlan(task.BashCommand); err != nil {
				return nil, fmt.Errorf("line %d: task %q: bash_command: %w",
					bashCommandLine(node, &f.DefaultArgs, err), task.TaskID, err)
			}
			for _, name := range slices.Sorted(maps.Keys(task.Env)) {
				if _, err := parseTemplate(task.Env[name]); err != nil {
					return nil, fmt.Errorf("line %d: task %q: env %s: %w", taskValueLine(node, &f.DefaultArgs, "env"), task.TaskID, name, err)
				}
			}
		}
		if _, dup := dag.taskByID[task.TaskID]; dup {
			return nil, fmt.Errorf("line %d: duplicate task_id %q (first at line %d)", node.Line, task.TaskID, lines[task.TaskID])
		}
		lines[task.TaskID] = node.Line
		dag.taskByID[task.TaskID] = task
		dag.Tasks = append(dag.Tasks, task)
	}
	if err := linkTasks(dag, lines); err != nil {
		return nil, err
	}
	dag.idLine, dag.taskLines = keyLine(root, "dag_id"), lines
	return dag, nil
}

// keyLine is the line of key in a mapping node, or 0 when it is absent.
func keyLine(n *yaml.Node, key string) int {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return 0
}

// taskValueLine is the line of key's value in a task, else in default_args,
// else the task's own line.
func taskValueLine(task, defaults *yaml.Node, key string) int {
	if v := mappingValue(task, key); v != nil {
		return v.Line
	}
	if v := mappingValue(defaults, key); v != nil {
		return v.Line
	}
	return task.Line
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

// parseSchedule reads schedule_interval or schedule (one of them): nil for
// None, and the compiled form of a cron expression or preset.
func parseSchedule(interval, schedule *yaml.Node, days cronDayRule) (*string, *cronSchedule, error) {
	n, key := interval, "schedule_interval"
	if schedule.Kind != 0 {
		if interval.Kind != 0 {
			return nil, nil, fmt.Errorf("line %d: give schedule_interval or schedule, not both", schedule.Line)
		}
		n, key = schedule, "schedule"
	}
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, nil, fmt.Errorf("line %d: %s must be a cron expression, a preset, a duration or null, not %s", n.Line, key, describeNode(n))
	}
	s := strings.TrimSpace(n.Value)
	cron, err := validateSchedule(s, days)
	if err != nil {
		return nil, nil, fmt.Errorf("line %d: %s %q: %w", n.Line, key, s, err)
	}
	return &s, cron, nil
}

// validateSchedule accepts Airflow's presets, durations and five-field cron
// expressions, and returns a cron expression or preset compiled with the
// edition's day rule.
func validateSchedule(s string, days cronDayRule) (*cronSchedule, error) {
	if s == "@once" {
		return nil, nil
	}
	if _, preset := cronPresets[s]; strings.HasPrefix(s, "@") && !preset {
		return nil, errors.New("unknown preset" + suggestion(s, []string{"@once", "@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly"}))
	}
	if _, err := parseDuration(s); err == nil {
		return nil, nil
	}
	if !strings.HasPrefix(s, "@") && len(strings.Fields(s)) != 5 {
		return nil, errors.New("want a cron expression with five fields, a preset (@daily) or a duration (1d, 6h)")
	}
	// Airflow refuses a bad cron expression when it parses the file
	// (croniter raises); airlite does too, instead of failing every pass.
	// From a leap year's start, any expression that can fire does so
	// within the search.
	c, err := compileCron(s, days)
	if err != nil {
		return nil, fmt.Errorf("not a valid cron expression: %w", err)
	}
	if _, err := c.next(cronCheckFrom, false); err != nil {
		return nil, errors.New("not a valid cron expression: it never fires (no such date)")
	}
	return c, nil
}

// cronCheckFrom is where validateSchedule looks for a cron expression's
// first tick: a leap year, so that February 29 is found.
var cronCheckFrom = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// buildTask makes a task of its spec (default_args applied) as read at
// now; node and defaults, the task's and default_args' mappings, give
// errors their line.
func buildTask(s taskSpec, dag *DAG, node, defaults *yaml.Node, now time.Time, ops *operatorSet) (*Task, error) {
	if s.TaskID == "" {
		return nil, fmt.Errorf("line %d: a task without task_id", node.Line)
	}
	if err := checkID("task_id", s.TaskID, false); err != nil {
		return nil, fmt.Errorf("line %d: %w", taskValueLine(node, defaults, "task_id"), err)
	}
	if s.Operator == "" {
		return nil, fmt.Errorf("line %d: task %q: operator is missing", node.Line, s.TaskID)
	}
	if err := checkOperator(s, node, ops); err != nil {
		return nil, err
	}
	if s.Operator != "BashOperator" {
		// Airflow hands an operator only the default_args its constructor
		// takes: a bash_command there is for the BashOperators.
		s.BashCommand = ""
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
		StartDate:               s.StartDate.at(now),
		EndDate:                 s.EndDate.at(now),
		Params:                  s.Params,
		Subdag:                  s.Subdag,
		DoXComPush:              s.DoXComPush,
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
	// fail says what is wrong with the value of key, at its line.
	fail := func(key, format string, args ...any) error {
		return fmt.Errorf("line %d: task %q: %s", taskValueLine(node, defaults, key), t.TaskID, fmt.Sprintf(format, args...))
	}
	switch {
	case t.Retries < 0:
		return nil, fail("retries", "retries must be 0 or more, not %d", t.Retries)
	case t.PoolSlots < 1:
		return nil, fail("pool_slots", "pool_slots must be at least 1, not %d", t.PoolSlots)
	case !validTriggerRules[t.TriggerRule]:
		return nil, fail("trigger_rule", "unknown trigger_rule %q%s", t.TriggerRule, suggestion(t.TriggerRule, sortedKeys(validTriggerRules)))
	case t.WeightRule != "downstream" && t.WeightRule != "upstream" && t.WeightRule != "absolute":
		return nil, fail("weight_rule", "unknown weight_rule %q (downstream, upstream or absolute)", t.WeightRule)
	case t.Operator == "BashOperator" && strings.TrimSpace(t.BashCommand) == "":
		return nil, fail("bash_command", "a BashOperator needs a bash_command")
	case t.Operator != "SubDagOperator" && t.Subdag != "":
		return nil, fail("subdag", "subdag is only for SubDagOperator, not %s", t.Operator)
	}
	if sim := s.Simulate; sim != nil {
		outcome := orDefault(sim.Outcome, "success")
		if !validOperatorOutcomes[outcome] {
			return nil, fail("simulate", "simulate outcome %q: want success, failed or skipped", sim.Outcome)
		}
		if sim.FailTimes < 0 {
			return nil, fail("simulate", "simulate fail_times must be 0 or more, not %d", sim.FailTimes)
		}
		t.Simulate = &Simulation{Duration: sim.Duration.or(0), Outcome: outcome, FailTimes: sim.FailTimes}
		for key, v := range sim.XCom {
			raw, err := json.Marshal(v)
			if key == "" || err != nil {
				return nil, fmt.Errorf("task %q: simulate xcom %q: want a non-empty key and a JSON value", t.TaskID, key)
			}
			if t.Simulate.XCom == nil {
				t.Simulate.XCom = map[string]json.RawMessage{}
			}
			t.Simulate.XCom[key] = raw
		}
	}
	return t, nil
}

// operatorSet is the operators one Airflow release ships: the names a
// task of its edition may name without simulate:.
type operatorSet struct {
	names []string // sorted: closestName breaks ties by order
	known map[string]bool
	// renamed maps a class name the release does not have to the name it
	// has for the same operator: 1.10.15's DummyOperator for 2.10.3's
	// EmptyOperator, from 2.10.3's deprecated aliases.
	renamed map[string]string
}

// newOperatorSet makes the set of names (one a line) with aliases ("alias
// class" pairs, one a line): an alias the set knows for a class it does
// not is that class's name in this release.
func newOperatorSet(names, aliases string) *operatorSet {
	set := &operatorSet{names: strings.Fields(names), renamed: map[string]string{}}
	set.known = make(map[string]bool, len(set.names))
	for _, name := range set.names {
		set.known[name] = true
	}
	for _, line := range strings.Split(aliases, "\n") {
		pair := strings.Fields(line)
		if len(pair) != 2 {
			continue
		}
		alias, class := pair[0], pair[1]
		if _, taken := set.renamed[class]; set.known[alias] && !set.known[class] && !taken {
			set.renamed[class] = alias // aliases are sorted: the first alias wins
		}
	}
	return set
}

// The operators of each release, built on first use (editionRules.operators).
var (
	operators110 = sync.OnceValue(func() *operatorSet {
		return newOperatorSet(airflow110OperatorNames, airflow2OperatorAliases)
	})
	operators2 = sync.OnceValue(func() *operatorSet {
		return newOperatorSet(airflow2OperatorNames, airflow2OperatorAliases)
	})
)

// checkOperator refuses an operator that is no operator of the release
// (a typo, most likely, or another release's name) unless the task
// declares itself simulated, and a task's own bash_command on an operator
// that airlite does not run it for.
func checkOperator(s taskSpec, node *yaml.Node, ops *operatorSet) error {
	line := taskValueLine(node, nil, "operator")
	if !ops.known[s.Operator] && s.Simulate == nil {
		near := ops.renamed[s.Operator]
		if near == "" {
			near = closestName(s.Operator, ops.names)
		}
		if near != "" {
			return fmt.Errorf("line %d: task %q: unknown operator %q (did you mean %s?)", line, s.TaskID, s.Operator, near)
		}
		return fmt.Errorf("line %d: task %q: unknown operator %q: no Airflow operator or sensor has that name; "+
			"give the task a simulate: block to run it as a simulated task", line, s.TaskID, s.Operator)
	}
	if value := mappingValue(node, "bash_command"); value != nil && s.Operator != "BashOperator" {
		if s.Operator == "BashSensor" {
			return fmt.Errorf("line %d: task %q: airlite runs bash_command for BashOperator only: a BashSensor is simulated, "+
				"so its command would never run (use BashOperator, or drop bash_command)", value.Line, s.TaskID)
		}
		return fmt.Errorf("line %d: task %q: bash_command is taken by BashOperator, not by %s", value.Line, s.TaskID, s.Operator)
	}
	return nil
}

// suggestion is " (did you mean X?)" for the candidate nearest to word,
// or " (one of a, b, ...)" when none is near.
func suggestion(word string, candidates []string) string {
	if near := closestName(word, candidates); near != "" {
		return fmt.Sprintf(" (did you mean %s?)", near)
	}
	return " (one of " + strings.Join(candidates, ", ") + ")"
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

// parsePools reads a pools file: a list of {name, slots, description}.
func parsePools(data []byte) ([]*Pool, error) {
	root, err := parseDefinitionNode(data, "no pools defined (write [] for none)")
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: a pools file holds a list of pools (- {name: etl, slots: 4}), not %s", root.Line, describeNode(root))
	}
	keys := definitionKeys().pool
	seen := map[string]int{} // name -> line
	pools := make([]*Pool, 0, len(root.Content))
	for _, node := range root.Content {
		node = resolveAlias(node)
		var s poolSpec
		if err := decodeMapping(node, reflect.ValueOf(&s).Elem(), keys); err != nil {
			return nil, err
		}
		switch {
		case strings.TrimSpace(s.Name) == "":
			return nil, fmt.Errorf("line %d: a pool without a name", node.Line)
		case s.Name == defaultPoolName:
			return nil, fmt.Errorf("line %d: %s is built in; change its slots through the API", node.Line, defaultPoolName)
		case seen[s.Name] != 0:
			return nil, fmt.Errorf("line %d: duplicate pool %q (first at line %d)", node.Line, s.Name, seen[s.Name])
		case s.Slots == nil:
			return nil, fmt.Errorf("line %d: pool %q: slots is missing", node.Line, s.Name)
		}
		seen[s.Name] = node.Line
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
