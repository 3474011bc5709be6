package main

// A DAG definition as its front end read it, before any check: plain Go
// values, in no file format's terms. The YAML front end (dag_yaml.go)
// fills it from a definition file; a Python front end will fill it from
// Airflow's serialized DAG. One builder (dag_build.go) checks it and makes
// the runtime DAG, so every front end gets the same validation, schedules,
// shell plans, weights and pools. Field names are Airflow's.
//
// A value an error can name carries where it was written (a specPos), so
// that the builder's messages point at the line as the file's reader
// would. The file itself is the loader's: it prefixes every message with
// it, whichever side found the problem.

import (
	"encoding/json"
	"time"
)

// specPos is where a value of a definition was written.
type specPos struct {
	// Line is the value's line in the file (the key's, for the DAG's
	// limits and ids, as their messages have always said); 0: not
	// written, or a front end without lines.
	Line int
	// Defaults: written in default_args rather than on the task, which
	// Airflow passes to an operator only when its constructor takes it.
	Defaults bool
	// Block: the value is a literal block (|) whose lines are the file's,
	// from the line after Line; a refused expression inside it is reported
	// at its own line.
	Block bool
}

// or is p, or fallback when p was not written.
func (p specPos) or(fallback specPos) specPos {
	if p.Line == 0 {
		return fallback
	}
	return p
}

// dagSpec is one DAG as a front end read it.
type dagSpec struct {
	Pos     specPos // the definition itself (its first line)
	Fileloc string  // the file it was read from; the loader sets it

	DagID    string
	DagIDPos specPos
	// Description and DocMD are the DAG's texts.
	Description string
	DocMD       string

	// ScheduleInterval and Schedule are Airflow's two ways of saying when
	// runs are due; a definition gives at most one.
	ScheduleInterval scheduleSpec
	Schedule         scheduleSpec

	StartDate            *time.Time // days_ago(n) already resolved by the front end
	EndDate              *time.Time
	Timezone             *DagTimezone // the start_date's zone (nil: UTC); a Python file's only
	Catchup              *bool        // nil: [scheduler] catchup_by_default
	IsPausedUponCreation bool

	MaxActiveRuns     *int // nil: Airflow's default
	MaxActiveRunsPos  specPos
	MaxActiveTasks    *int
	MaxActiveTasksPos specPos
	Concurrency       *int // Airflow 1.10's name for max_active_tasks
	ConcurrencyPos    specPos
	DagrunTimeout     *time.Duration

	Tags []string
	// AllowedRunTypes are the run types the file names (nil: the key
	// absent), as written; AllowedRunTypesPos is the key's line.
	AllowedRunTypes    []string
	AllowedRunTypesPos specPos
	Params             map[string]any
	// DefaultArgs is default_args as written, for the API to show; each
	// task below has them applied already. DefaultArgsStartDate is its
	// start_date as a date, which triggered dates are checked against.
	DefaultArgs          map[string]any
	DefaultArgsStartDate *time.Time

	Tasks    []taskSpec // in the file's order
	TasksPos specPos    // the tasks key

	// Serialized: the spec comes from Airflow's serialized form (a Python
	// file), whose own checks have run: task ids may hold the dots of
	// task group prefixes, and a DAG may have no tasks (2.10.3
	// utils/helpers.py:43 KEY_REGEX; models/dag.py validate() requires no
	// task). Its values carry no lines.
	Serialized bool
	// Timetable is a schedule that airlite shows but does not run (a
	// dataset-triggered DAG, a CronTriggerTimetable, a custom timetable):
	// nil for the schedules above.
	Timetable *Timetable
	// RunTimetable is Timetable's object to run (nil: shown only);
	// TimetableVar the object's serialized form (DAG.TimetableVar).
	RunTimetable *timetableSpec
	TimetableVar json.RawMessage
	// AssetSchedule is a schedule on assets (a list of them, or their &/|
	// condition): Timetable says how Airflow shows it.
	AssetSchedule *assetCond
	// AssetExpression is the schedule's asset condition as Airflow shows
	// it (dataset_expression, asset_expression); nil: none or not known
	// (YAML). DisplayName is dag_display_name; "": the dag_id.
	AssetExpression json.RawMessage
	DisplayName     string
	// ParamDocs are each param's description and schema, by name, when the
	// front end has them (Python's Param); Params holds the values.
	// ParamOrder is the params' names in the order written, when the
	// front end keeps it apart from ParamDocs' (YAML); nil: ParamDocs'
	// order, then by name.
	ParamDocs  map[string]ParamDoc
	ParamOrder []string
	// TaskGroup is the DAG's root task group, when the front end keeps
	// groups (Python); nil: groups are named by task id prefixes.
	TaskGroup *TaskGroup

	// ReadErr is the problem that stopped the front end after the values
	// above: the builder checks those first and then reports ReadErr, so
	// that the problem a file reports is the first one in reading order,
	// whichever of the two finds it (as io.Reader hands over the bytes it
	// read with the error that stopped it).
	ReadErr error
}

// scheduleSpec is schedule_interval or schedule as written.
type scheduleSpec struct {
	Given bool    // the key is there (null included)
	Expr  *string // a cron expression, a preset or a duration; nil: None
	// NotText says what the value is when it is neither text nor None
	// ("a list"), for the message that refuses it.
	NotText string
	Pos     specPos
}

// taskSpec is one task as a front end read it, default_args applied. A
// nil pointer or an empty string is Airflow's default.
type taskSpec struct {
	Pos specPos // the task itself

	TaskID    string
	TaskIDPos specPos
	// Operator is the operator's class name; OperatorModule its module
	// (Airflow's _task_module; class_ref), which only a Python file gives
	// and nothing reads yet.
	Operator       string
	OperatorPos    specPos
	OperatorModule string
	// OperatorName is Airflow's operator_name (a decorator's "@task",
	// "@task.bash"); "": the class name. The fields below it are what the
	// serialized form says of the class, for the API to show; YAML leaves
	// them empty (but ui_color, for a class of the file's own) and the API
	// derives them from Operator.
	OperatorName string
	IsMapped     bool
	Mapping      *taskMapping // a Python file's mapped task's expand_input
	Label        string       // the task id without its group prefix (Python)
	// Setup and teardown (Python files; Task has their meaning).
	IsSetup, IsTeardown, OnFailureFailDagrun bool
	// ConcurrencyLimited: max_active_tis_per_dag or _per_dagrun is set
	// (shown, not enforced).
	ConcurrencyLimited bool
	TemplateFields     []string // nil: the operator's, as airlite knows them
	UIColor            string
	UIFgcolor          string
	ParamDocs          map[string]ParamDoc
	ParamOrder         []string    // as dagSpec's
	DisplayName        string      // task_display_name; "": the task id
	ExtraLinks         []extraLink // the class's operator_extra_links (Python)

	// The BashOperator's template fields.
	BashCommand    string
	BashCommandPos specPos
	Env            map[string]string
	EnvPos         specPos
	Cwd            string

	ExecutionTimeout        *time.Duration
	Upstream                []string
	Downstream              []string
	Retries                 *int
	RetriesPos              specPos
	RetryDelay              *time.Duration
	RetryExponentialBackoff bool
	MaxRetryDelay           *time.Duration
	Pool                    string
	PoolSlots               *int
	PoolSlotsPos            specPos
	PriorityWeight          *int
	WeightRule              string
	WeightRulePos           specPos
	TriggerRule             string
	TriggerRulePos          specPos
	Queue                   string
	Owner                   string
	Email                   any
	EmailOnFailure          *bool
	EmailOnRetry            *bool
	DependsOnPast           bool
	StartDate               *time.Time
	EndDate                 *time.Time
	Params                  map[string]any
	Subdag                  string // the sub-DAG's dag_id (SubDagOperator)
	SubdagPos               specPos
	// TriggerDagRun is a TriggerDagRunOperator's arguments as the file
	// wrote them (a Python file's only).
	TriggerDagRun *TriggerDagRunArgs
	Simulate      *simulateSpec
	SimulatePos   specPos
	DoXComPush    *bool
	Inlets        []any
	Outlets       []any
	DocMD         string
}

// simulateSpec scripts what a simulated task does.
type simulateSpec struct {
	Duration  *time.Duration
	Outcome   string // "": success
	FailTimes int
	XCom      map[string]any // pushed on success
}

// poolsSpec is a pools file as a front end read it.
type poolsSpec struct {
	Pools   []poolSpec
	ReadErr error // as dagSpec.ReadErr
}

// poolSpec is one pool of a pools file.
type poolSpec struct {
	Pos         specPos
	Name        string
	Slots       *int64
	Description *string
}
