package main

import (
	"encoding/json"
	"slices"
	"time"
)

// DAG is one parsed definition file. It is immutable once loaded: the store
// keeps a pointer to it and nothing writes to it afterwards.
type DAG struct {
	DagID       string
	Description string
	Schedule    *string       // nil: no schedule (Airflow's None)
	cron        *cronSchedule // Schedule compiled, when a cron expression or preset (parseSchedule)
	// cronText is Schedule's timetable_description when it is a cron
	// expression or preset, worked out once by the builder in the
	// edition's words (cronDescriber.describe).
	cronText  string
	StartDate *time.Time
	EndDate   *time.Time
	// Timezone is the DAG's time zone (nil: UTC, Airflow's default), its
	// start_date's in a Python file; a cron schedule ticks there where
	// the edition says (editionRules.cronInZone).
	Timezone             *DagTimezone `json:",omitempty"`
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
	// DocMD is the DAG's doc_md: a Python file's dag.doc_md, a YAML
	// definition's doc_md key.
	DocMD string
	// Timetable: a schedule given as a timetable object (dagSpec.Timetable),
	// as Airflow shows it; Schedule is nil then, and timetable runs it
	// when airlite can (scheduler_pytimetable.go; nil: shown only).
	Timetable *Timetable
	timetable *dagTimetable
	// TimetableVar is the object's serialize() (nil: none), in the
	// definition's hash: an object whose summary stays the same may
	// change (an interval, a zone), which Airflow 3 counts as a new
	// version of the serialized DAG.
	TimetableVar json.RawMessage `json:",omitempty"`
	// AssetSchedule: the assets the DAG is scheduled on (then Timetable
	// shows it, and the scheduler runs it on their events); nil: none.
	AssetSchedule *assetCond
	// AllowedRunTypes are the run types the DAG allows, sorted, once
	// each (Airflow 3.2's DagModel.allowed_run_types, c57fba0e
	// dag_processing/collection.py:608-612); nil: every type. Only
	// edition 3 has any (dagFileRules.allowedRunTypes). Left out of the
	// definition's JSON when nil, so that a DAG without them hashes as
	// before.
	AllowedRunTypes []string `json:",omitempty"`
	// AssetExpression and DisplayName: dagSpec's.
	AssetExpression json.RawMessage // in the file's key order, as Airflow 3 answers it
	DisplayName     string
	// ParamDocs: Params' descriptions and schemas, when the file gave them.
	ParamDocs map[string]ParamDoc
	// params are ParamDocs' schemas compiled, which a trigger's conf is
	// checked against (dag_params.go); nil: no param has a schema.
	// paramNames are Params' names in the order the file gave them
	// (Airflow 3's params dump keeps it).
	params     *paramCheck
	paramNames []string
	// TaskGroup is the DAG's root task group as its file made it (a
	// Python file's; nil for YAML, whose groups are the prefixes of task
	// ids: TaskGroupOf).
	TaskGroup     *TaskGroup
	groups        *taskGroupIndex // TaskGroup's, for lookups
	taskByID      map[string]*Task
	upstreamFirst []*Task // every task after its upstream tasks (linkTasks)
	// stateLeaves are the tasks whose states decide the run's (linkTasks;
	// RunStateLeaves).
	stateLeaves []*Task
	// lines of the definition file, for errors found once every file is
	// read: the dag_id key's, and each task's.
	idLine    int
	taskLines map[string]int

	FilePath string // where the definition came from ("fixtures/2.10.3/x.yaml" when embedded)
	// RelativeFileloc is FilePath inside the DAG folder it was read from
	// (Airflow 3's relative_fileloc); "" when not read from a folder.
	RelativeFileloc string
	SourceCode      string // a <file>.py beside the definition, when there is one
	ParentDagID     string // set on sub-DAGs: the DAG whose SubDagOperator runs it
	// ParsedAt is when the DAG folder's reloader read the definition's
	// file (Airflow's DagModel.last_parsed_time); zero when read at
	// start. Left out of the definition's hash: a file read again
	// unchanged is the same version.
	ParsedAt time.Time `json:"-"`
	// ParseDuration is how long reading the definition's file took, in
	// seconds (DagModel.last_parse_duration, which Airflow's DAG processor
	// sets per file): the Python reader's time over a .py file, the read,
	// decode, build and checks of a YAML or JSON one, or of a body given
	// to POST /_airlite/dags. Left out of the hash.
	ParseDuration float64 `json:"-"`
	// origin is what the front end read, kept in the editions whose stale
	// DAGs keep their definition (dag_origin.go); nil otherwise.
	origin *dagOrigin
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
	// TriggerDagRun is a TriggerDagRunOperator's arguments (a Python
	// file's; nil otherwise): the run the operator triggers through the
	// operations layer's trigger (scheduler_triggerdagrun.go).
	TriggerDagRun *TriggerDagRunArgs `json:",omitempty"`
	Simulate      *Simulation
	DoXComPush    *bool // nil: the operator's default in the edition (editionRules.bashPushesReturnValue)
	Inlets        []any
	Outlets       []any
	DocMD         string
	// PythonCallable is set on a Python DAG's task whose callable airlite
	// runs (scheduler_python.go); nil: not one, the operator decides.
	PythonCallable *PythonCallable

	// What the serialized form of a Python file says of the operator's
	// class (taskSpec has the meaning of each); empty for YAML tasks.
	OperatorModule string
	OperatorName   string
	IsMapped       bool
	// Setup and teardown tasks (2.10.3 models/abstractoperator.py
	// is_setup, is_teardown, on_failure_fail_dagrun): a teardown's
	// all_done_setup_success counts its setups, and a run's state leaves
	// out teardowns unless they fail the run (runStateLeaves).
	IsSetup             bool
	IsTeardown          bool
	OnFailureFailDagrun bool
	setupUpstream       []string // the setups among Upstream (linkTasks)
	// teardownScope: a teardown's tasks between its setups and it, which
	// Airflow 3 waits for (linkTasks, scheduler_triggerrules.go
	// teardownScopeWaiting); nil for other tasks.
	teardownScope []string
	// Label is the task id without its group prefix (a Python file's
	// "label"; "" for YAML: TaskLabel derives it).
	Label string
	// Mapping is how a mapped task expands when it runs
	// (scheduler_mapping.go); nil for a task that is not mapped.
	Mapping *taskMapping
	// ConcurrencyLimited: max_active_tis_per_dag(run) is set; shown by
	// has_task_concurrency_limits, not enforced.
	ConcurrencyLimited bool
	TemplateFields     []string
	UIColor            string
	UIFgcolor          string
	ParamDocs          map[string]ParamDoc
	params             *paramCheck // ParamDocs' schemas compiled (DAG.params), for the value Airflow 3 shows
	paramNames         []string    // as DAG.paramNames
	DisplayName        string      // taskSpec's
	ExtraLinks         []extraLink // taskSpec's

	// TotalWeight is the priority weight under Airflow's "downstream" rule:
	// the task's own weight plus that of every task downstream of it.
	TotalWeight int

	// shellPlan is a BashOperator's bash_command compiled at load: how the
	// value of each {{ ... }} reaches bash (template_shellplan.go).
	shellPlan *shellPlan
}

// Timetable is a schedule as Airflow renders it, for a timetable airlite
// does not run: Summary is DagModel.schedule_interval (the timetable's
// summary, 2.10.3 models/dag.py:676-688), Description its description
// (models/dag.py:3305).
type Timetable struct {
	Summary     string
	Description string
	// Type is the timetable's class (DagModel.timetable_type), e.g.
	// airflow.timetables.simple.AssetTriggeredTimetable. Left out of the
	// definition's hash: the summary already tells timetables apart.
	Type string `json:"-"`
}

// ParamDoc is what Param.dump() shows of a param besides its value
// (2.10.3 models/param.py:143-152): its class, description and schema.
type ParamDoc struct {
	Class       string
	Description any // nil: None
	Schema      map[string]any
	// NoDefault: the Param was given no default (its value NOTSET), so a
	// trigger must give it one; its value shows as null, as Param.dump
	// has it (2.10.3 models/param.py:150-151). Apart from Param(None)
	// in the hash, as in Airflow's serialized DAG.
	NoDefault bool `json:",omitempty"`
	// rawSchema is the schema as the file serialized it, in its key
	// order (jsonschema walks a schema in that order); order is the
	// param's place among the DAG's params; line is where a definition
	// file wrote it (0: a Python file's). None is in the hash.
	rawSchema json.RawMessage
	order     int
	line      int
}

// Simulation scripts what a task does instead of running an operator.
type Simulation struct {
	Duration  time.Duration
	Outcome   string // success, failed or skipped
	FailTimes int    // fail the first N tries, then take Outcome

	XCom map[string]json.RawMessage // pushed when the try succeeds, as JSON
}

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

// onSchedule reports whether the scheduler plans runs of d on the clock:
// a schedule string, or a timetable object airlite runs.
func (d *DAG) onSchedule() bool { return d.Schedule != nil || d.timetable != nil }

// allowsRunType says whether the DAG allows runs of the type: every type
// when it names none (the checks of c57fba0e routes/public/dag_run.py:466,
// routes/public/assets.py:422, models/backfill.py:570 and
// jobs/scheduler_job_runner.py:1948 are all "allowed_run_types is not
// None and the type not in it").
func (d *DAG) allowsRunType(runType string) bool {
	return d.AllowedRunTypes == nil || slices.Contains(d.AllowedRunTypes, runType)
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

	// Files are the definition files read (absolute paths), those that
	// failed included; ImportErrors the ones that failed, in reading
	// order, when the loader is tolerant (dagLoader.tolerant).
	Files        []string
	ImportErrors []FileImportError

	// folder is what reading a folder on disk learnt beyond the set (its
	// listing, each Python file's outcome), kept so that the .py files
	// are listed once at start and a reload re-reads only what changed
	// (dag_reload.go); nil for the embedded examples and sets made in
	// code.
	folder *folderRead
}

// FileImportError is a definition file that did not load and Airflow's
// text for why.
type FileImportError struct {
	File string
	Text string
}

// extraLink is an operator extra link's class and name (2.10.3
// models/baseoperatorlink.py; v1 shows its class, v2 its name), and the
// XCom key its link is read from when the link class names one (Airflow
// 3's BaseOperatorLink.xcom_key, which the serialized DAG keeps per link
// name: c57fba0e serialization/serialized_objects.py:1502-1510).
type extraLink struct {
	Module, Class, Name string
	XComKey             string `json:",omitempty"`
}

// xcomKey is the XCom key edition 3 reads the link's URL from: the link
// class's own, or BaseOperatorLink's default "_link_<class name>"
// (task-sdk bases/operatorlink.py xcom_key).
func (l extraLink) xcomKey() string {
	if l.XComKey != "" {
		return l.XComKey
	}
	return "_link_" + l.Class
}

// dagDisplayName is dag_display_name: the one the file gave, or the
// dag_id (2.10.3 models/dag.py:4030 DagModel.dag_display_name).
func dagDisplayName(row *DagRow) string {
	if row.Def != nil && row.Def.DisplayName != "" {
		return row.Def.DisplayName
	}
	return row.DagID
}

// TaskDisplayName is task_display_name: the one the file gave, or the
// task id (2.10.3 models/baseoperator.py:1284 task_display_name).
func (t *Task) TaskDisplayName() string {
	return orDefault(t.DisplayName, t.TaskID)
}
