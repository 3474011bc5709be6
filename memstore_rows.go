package main

// The rows airlite stores and the states they move through, with
// Airflow's names. memstore.go indexes and writes them; no other file
// changes a row that came out of the store.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// RunState is a DAG run's state, with Airflow's names.
type RunState string

const (
	RunQueued  RunState = "queued"
	RunRunning RunState = "running"
	RunSuccess RunState = "success"
	RunFailed  RunState = "failed"
)

// Finished reports whether the run has ended.
func (s RunState) Finished() bool { return s == RunSuccess || s == RunFailed }

// Known reports whether s is one of the run states above.
func (s RunState) Known() bool {
	switch s {
	case RunQueued, RunRunning, RunSuccess, RunFailed:
		return true
	}
	return false
}

// TaskState is a task instance's state, with Airflow's names; "" is
// Airflow's None (created, not yet considered by the scheduler).
type TaskState string

const (
	TaskNone           TaskState = ""
	TaskScheduled      TaskState = "scheduled"
	TaskQueued         TaskState = "queued"
	TaskRunning        TaskState = "running"
	TaskSuccess        TaskState = "success"
	TaskFailed         TaskState = "failed"
	TaskSkipped        TaskState = "skipped"
	TaskUpForRetry     TaskState = "up_for_retry"
	TaskUpstreamFailed TaskState = "upstream_failed"
	// TaskRemoved: the task left the DAG after the run was created
	// (verifyIntegrity); it goes back to no state if the task returns.
	TaskRemoved TaskState = "removed"
)

// Finished reports whether the task instance will not run again. A
// removed one is finished, so that the run's decisions pass over it as
// both releases do (Airflow 2.10.3 airflow/utils/state.py:162-170 counts
// it finished; 1.10.15 leaves it out of the run's task instances,
// airflow/models/dagrun.py:262-264).
func (s TaskState) Finished() bool {
	switch s {
	case TaskSuccess, TaskFailed, TaskSkipped, TaskUpstreamFailed, TaskRemoved:
		return true
	}
	return false
}

// Known reports whether s is one of the task states above.
func (s TaskState) Known() bool {
	switch s {
	case TaskNone, TaskScheduled, TaskQueued, TaskRunning, TaskSuccess, TaskFailed, TaskSkipped,
		TaskUpForRetry, TaskUpstreamFailed, TaskRemoved:
		return true
	}
	return false
}

// Active reports whether the task instance holds a slot (pool,
// parallelism, max_active_tasks), as Airflow counts queued and running.
func (s TaskState) Active() bool { return s == TaskQueued || s == TaskRunning }

// tiKey names one task instance: Airflow's TaskInstanceKey without the
// try, (dag_id, run_id, task_id, map_index); mapIndex is -1 but for an
// expanded mapped task's instances.
type tiKey struct {
	dagID, runID, taskID string
	mapIndex             int
}

func (k tiKey) String() string {
	if k.mapIndex >= 0 {
		return fmt.Sprintf("%s/%s/%s[%d]", k.dagID, k.runID, k.taskID, k.mapIndex)
	}
	return k.dagID + "/" + k.runID + "/" + k.taskID
}

// key names the task instance.
func (ti *TaskInstance) key() tiKey { return tiKey{ti.DagID, ti.RunID, ti.TaskID, ti.MapIndex} }

// DagRow is a DAG as the store knows it: Airflow's DagModel row plus the
// parsed definition. Def is nil when the definition is gone (Airflow's "not
// found" for a row whose file no longer loads): Airflow 2 deletes the
// serialized DAG of a DAG whose file is gone, and a restart forgets a
// definition no file gives (snapshots hold only stale DAGs' definitions).
//
// Stale marks a row whose file no longer gives it but whose definition is
// kept, as Airflow 3 keeps the serialized DAG and sets DagModel.is_stale
// (editionRules.staleKeepsDefinition; never set in other editions). So
// "has a definition" (Def != nil: the DagBag serves it) and "is active"
// (Active: the scheduler runs it, a trigger takes it) are two questions.
type DagRow struct {
	DagID     string
	IsPaused  bool
	FileLoc   string
	RootDagID string // "" unless a sub-DAG
	Def       *DAG
	Stale     bool
	// ImportErrors is DagModel.has_import_errors: set when a read of its
	// file fails, cleared when a read gives the DAG again (a new row),
	// and left as it is by anything else, its file's removal too (3.2's
	// _update_import_errors and update_dags, 2.10.3's
	// update_import_errors and bulk_write_to_db).
	ImportErrors bool
	// Kept is a stale row's definition as a snapshot kept it, restored
	// and not built yet (Def nil): the start builds it (main_startup.go
	// buildKeptDefinitions), and a snapshot written before that writes
	// it back as it was. nil on every row the store made itself.
	Kept *keptDefinition
}

// Active says whether the DAG's file gives it now: it has a definition
// that is not stale (Airflow 2's is_active, Airflow 3's not is_stale).
func (r *DagRow) Active() bool { return r.Def != nil && !r.Stale }

// loadedDAGFileLoc is the FileLoc of a DAG loaded through
// POST /_airlite/dags. Its row keeps it across a restart (without a
// definition) until a reset or a delete, and --max-dags counts such rows.
const loadedDAGFileLoc = "<loaded through /_airlite/dags>"

// DagRun is one run of a DAG.
type DagRun struct {
	ID    int64
	DagID string
	RunID string
	// ExecutionDate is the run's logical date (execution_date before
	// Airflow 3), UTC, microsecond precision, unique among a DAG's runs;
	// zero when NoLogicalDate.
	ExecutionDate time.Time
	// NoLogicalDate marks a run without a logical date, as Airflow 3's
	// runs may be (airflow-core/src/airflow/models/dagrun.py: logical_date
	// nullable; dag_run_dag_id_logical_date_key lets nulls repeat). No
	// edition before 3 creates one.
	NoLogicalDate bool
	// RunAfter is Airflow 3's run_after, the earliest time the run may
	// start, when it is not the logical date; zero: the logical date (every
	// run of editions 1.10 and 2). A run without a logical date has one.
	// A DAG's runs go in the order of After.
	RunAfter        time.Time
	State           RunState
	Conf            json.RawMessage // nil: no conf (null)
	StartDate       *time.Time
	EndDate         *time.Time
	QueuedAt        *time.Time
	ExternalTrigger bool
	RunType         string
	// UpdatedAt is when the run row last changed (Airflow's updated_at).
	UpdatedAt *time.Time
	// Note is the run's note (the stable API's setNote); nil: none.
	Note *string
	// DagVersionID is the id of the DAG version the run was created with
	// (Airflow 3's created_dag_version_id); "" when the DAG had none.
	DagVersionID string
	// DataIntervalStart and DataIntervalEnd are a data interval given
	// when the run was created (the stable API's POST); nil: the
	// interval follows from the DAG's schedule (apiv1_runs.go).
	DataIntervalStart *time.Time
	DataIntervalEnd   *time.Time
	// TriggeredBy is Airflow 3's triggered_by (DagRunTriggeredByType:
	// rest_api, ui, timetable, backfill, asset, ...); "": none recorded
	// (editions 1.10 and 2, or a run from an older snapshot).
	TriggeredBy string
	// TriggeringUser is Airflow 3's triggering_user_name: the user whose
	// request created the run; nil: none (the scheduler's runs).
	TriggeringUser *string
	// PartitionKey is Airflow 3.2's partition_key; nil: none.
	PartitionKey *string
}

// LogicalDate is the run's logical date; false when it has none.
func (r *DagRun) LogicalDate() (time.Time, bool) { return r.ExecutionDate, !r.NoLogicalDate }

// After is the run's run_after: RunAfter, or the logical date.
func (r *DagRun) After() time.Time {
	if r.RunAfter.IsZero() {
		return r.ExecutionDate
	}
	return r.RunAfter
}

// TaskInstance is one task of one run.
type TaskInstance struct {
	// ID is Airflow 3's task instance id, a UUID (version 7) given when
	// the task instance is created and anew for each next try, as Airflow
	// 3's TaskInstance.prepare_db_for_next_try does
	// (airflow-core/src/airflow/models/taskinstance.py); the try kept in
	// the history keeps the old one. "": the release has no such id
	// (editions 1.10 and 2).
	ID     string
	DagID  string
	RunID  string
	TaskID string
	// MapIndex is Airflow's map_index: -1, but 0..n-1 for the task
	// instances a mapped task expanded into (scheduler_mapping.go), each
	// a task instance of its own.
	MapIndex       int
	ExecutionDate  time.Time // the run's, kept here as Airflow 1.10 keeps it
	State          TaskState // "" is Airflow's None
	TryNumber      int
	MaxTries       int
	StartDate      *time.Time
	EndDate        *time.Time
	Duration       *float64 // seconds
	QueuedDttm     *time.Time
	Pool           string
	PoolSlots      int
	Queue          string
	PriorityWeight int
	Operator       string
	Hostname       string
	Unixname       string
	PID            *int
	// ProcIdentity names the running try's bash process beyond its pid
	// (processIdentity), so that a restart after a crash can end the
	// try's process group; "" once the try has ended.
	ProcIdentity string
	UpdatedAt    *time.Time
	NextRetryAt  *time.Time // up_for_retry: not before this time
	// Note is the task instance's note (the stable API's setNote); nil:
	// none. It stays through retries and clears, as Airflow's
	// task_instance_note row does.
	Note *string
	// Rendered is the last try's rendered template fields, as Airflow's
	// RenderedTaskInstanceFields row keeps them (a BashOperator's
	// bash_command, env and cwd; nil values are None); nil until a try
	// rendered them.
	Rendered map[string]any
	// RenderedMapIndex is an expanded instance's map_index_template
	// rendered by its last try (nil: none).
	RenderedMapIndex *string
	// DagVersionID is the id of the DAG version the task instance was
	// created with (Airflow 3's dag_version_id); "" when none.
	DagVersionID string
}

// MappedInstance is how snapshots before version 7 kept a mapped task's
// expanded instances: nested in the task's one task instance. Restore
// turns each into a task instance row of its own (snapshot.go).
type MappedInstance struct {
	MapIndex  int        `json:"map_index"`
	State     TaskState  `json:"state"`
	TryNumber int        `json:"try_number"`
	StartDate *time.Time `json:"start_date"`
	EndDate   *time.Time `json:"end_date"`
	Duration  *float64   `json:"duration"`
	// RenderedMapIndex is map_index_template rendered (nil: none).
	RenderedMapIndex *string        `json:"rendered_map_index"`
	Rendered         map[string]any `json:"rendered_fields,omitempty"`
	// Pushed is what its last try pushed to XCom (the XCom table holds it
	// too; restore ignores it).
	Pushed []mappedPush `json:"pushed,omitempty"`
}

// mappedPush is one XCom value a mapped instance pushed, its value as
// JSON text.
type mappedPush struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// runTasks is the row that holds one run's task instances, in task_id
// order. Every row costs go-memdb a radix-tree insert per index, and a
// trigger creates all of a run's task instances: one row per run keeps
// that to one insert. A stored row and its slice are never changed;
// writers store a new row (putTaskInstancesTxn).
type runTasks struct {
	DagID string
	RunID string
	TIs   []*TaskInstance
}

// find returns where the task instance (taskID, mapIndex) is, or would
// go, in TIs: by task_id, then map_index.
func (r *runTasks) find(taskID string, mapIndex int) (int, bool) {
	return slices.BinarySearchFunc(r.TIs, taskID, func(ti *TaskInstance, id string) int {
		return cmp.Or(strings.Compare(ti.TaskID, id), cmp.Compare(ti.MapIndex, mapIndex))
	})
}

// ofTask returns the span of TIs that are taskID's: its one task
// instance, or the instances it expanded into by map_index.
func (r *runTasks) ofTask(taskID string) (from, to int) {
	from, _ = r.find(taskID, math.MinInt)
	to = from
	for to < len(r.TIs) && r.TIs[to].TaskID == taskID {
		to++
	}
	return from, to
}

// LineageRecord holds what a finished task declared as inlets and outlets.
type LineageRecord struct {
	DagID    string
	RunID    string
	TaskID   string
	MapIndex int             // the task instance's
	Inlets   json.RawMessage // nil when the task declared none
	Outlets  json.RawMessage
}

// TaskLog is the captured output of a task instance's tries: the last
// maxLogTries of them.
type TaskLog struct {
	DagID    string
	RunID    string
	TaskID   string
	MapIndex int      // the task instance's
	Tries    []TryLog // in try order
	Dropped  int      // earlier tries no longer kept
}

// maxLogTries bounds the tries a task instance's log keeps, so that with
// maxTaskOutput per try a task retried forever holds at most 1.25 MiB.
const maxLogTries = 20

// TryLog is the output of one try, bounded to its last maxTaskOutput bytes.
type TryLog struct {
	Try       int
	Output    string
	Truncated bool
}

// TaskInstanceHistory is a task instance's earlier tries, Airflow's
// task_instance_history rows: each try as its task instance stood when a
// retry followed it or a clear ended it, in try order, one try number
// once. It keeps the last maxLogTries of them, the bound of the task
// log, and counts the ones it drops.
type TaskInstanceHistory struct {
	DagID    string
	RunID    string
	TaskID   string
	MapIndex int             // the task instance's
	Tries    []*TaskInstance // never changed once stored; try numbers rising
	Dropped  int             // earlier tries no longer kept
}

// runCount is how many runs a DAG has and the bytes of their confs, kept
// by every write that adds or removes runs, so that the run limit costs a
// trigger one lookup instead of a walk over the DAG's runs, and removing
// a DAG's runs knows the conf bytes they held. It is derived state:
// snapshots leave it out and restore counts it again.
type runCount struct {
	DagID     string
	N         int
	ConfBytes int64
	// States counts the runs in each state, so that a listing filtered
	// by state knows its total without reading the runs.
	States runStateCounts
	// TaskInstances counts the task instances of the DAG's runs, the
	// total of a task-instance listing across them.
	TaskInstances int
	// OrderedTIs counts those of them that have an id (edition 3), each
	// in a block of the default orders (ti_order, a group, or Pending): a
	// page in Airflow 3's default orders is read from there when it
	// counts every task instance.
	OrderedTIs int
	// Last is the latest logical date of the DAG's runs of each
	// lastRunKind (nil: none), which next_dagrun and the scheduler count
	// from: a lookup, where a walk down the runs passed every manual
	// (and backfill) run after it.
	Last [lastRunKinds]*time.Time
	// Pending are blocks of the DAG's task instances in the default
	// orders (tiOrderRow, map_index -1), by lo, in no table: a new run's
	// block waits here, in the row its write keeps anyway, and goes with
	// tiPendingMax others to tableTIOrderGroups in one write
	// (memstore_tiorder.go). The slice is never changed once stored.
	Pending []*tiOrderRow
	// NewestID and Newest are the DAG's run of the highest id and its
	// values in the fixed orders (conf, external_trigger), which a new
	// run, above it, is compared with for the fixed marks
	// (memstore_runfixed.go) without a read. Every DAG's row keeps none.
	NewestID int64
	Newest   fixedValues
	// Unsettled are the ids of the DAG's last runs that went from
	// finished back to unfinished (a clear; at most unsettledMax, the
	// latest last), UnsettledN how many ever did: a DAG's unfinished
	// runs remembered per version (pendingRunsTxn) find those here, not
	// among every run. The slice is never changed once stored.
	Unsettled  []int64
	UnsettledN int64
}

// runStateCounts has one count per state in runStates' order, and a last
// one for any other state.
type runStateCounts [len(runStates) + 1]int

// runStates are the run states runStateCounts counts one by one.
var runStates = [...]RunState{RunQueued, RunRunning, RunSuccess, RunFailed}

// runStateSlot is the index of state in runStateCounts.
func runStateSlot(state RunState) int {
	for i, s := range runStates {
		if s == state {
			return i
		}
	}
	return len(runStates)
}

// storeTotal is a sum over a whole table, derived like runCount: the XCom
// limit reads the rows of the XCom table as one lookup.
type storeTotal struct {
	Name  string
	Value int64
}

// counter is a named integer kept in the store so that it is part of every
// transaction and every snapshot.
type counter struct {
	Name  string
	Value int64
}

// Pool is a slot pool as Airflow stores it.
type Pool struct {
	ID              int64
	Name            string
	Slots           int64
	Description     *string
	IncludeDeferred bool
}

const (
	defaultPoolName  = "default_pool"
	defaultPoolSlots = 128
)

// Variable is an Airflow Variable: a value under a key, which templates
// read as var.value.{key}. ID orders the variables as Airflow's integer
// primary key does: setting a key anew gives it a new id, as
// Variable.set deletes and inserts.
type Variable struct {
	ID          int64
	Key         string
	Val         string
	Description *string
	// IsEncrypted is Airflow's flag for a value under its Fernet key;
	// airlite keeps no key, so it is always false.
	IsEncrypted bool
}

// Connection is an Airflow Connection. ID orders connections as
// Airflow's integer primary key does. Password is never answered.
type Connection struct {
	ID          int64
	ConnID      string
	ConnType    string
	Description *string
	Host        *string
	Login       *string
	Schema      *string
	Port        *int
	Password    *string
	Extra       *string
}

// Bytes is the size of the connection's text, which --max-connection-bytes
// bounds.
func (c *Connection) Bytes() int {
	n := len(c.ConnID) + len(c.ConnType)
	for _, s := range []*string{c.Description, c.Host, c.Login, c.Schema, c.Password, c.Extra} {
		if s != nil {
			n += len(*s)
		}
	}
	return n
}

// XComEntry is one XCom value a task instance pushed. RunRowID is the
// never-reused id of its run (Airflow's dag_run_id). MapIndex is the
// pushing task instance's: -1, or an expanded instance's index.
type XComEntry struct {
	DagID     string
	RunID     string
	TaskID    string
	RunRowID  int64
	MapIndex  int
	Key       string
	Value     json.RawMessage // JSON, as Airflow's JSON serializer stores it
	Timestamp time.Time
	// MapLength is what Airflow's TaskMap row records when an unmapped
	// task with mapped downstream tasks pushes its return value: the
	// value's length (a list's, a dict's) at the push, which a mapped
	// task's expansion reads (c57fba0e serialization/definitions/
	// xcom_arg.py:149-189), whatever the value became since (a PATCH
	// through /api/v2 leaves it). nil: none recorded (another key, a
	// value that cannot be mapped over, an entry the API created, or one
	// restored from a snapshot written before airlite kept it).
	MapLength *int
}

// xcomReturnKey is the key under which a task's return value is pushed
// (Airflow's XCOM_RETURN_KEY).
const xcomReturnKey = "return_value"

// xcomPush is a value a finished try pushes.
type xcomPush struct {
	Key   string
	Value json.RawMessage
	// MapIndex is the mapped task instance that pushed it (scheduler_mapping.go);
	// nil: the task is not mapped (-1).
	MapIndex *int
	// MapLength is XComEntry's, for a return value (xcomPushes).
	MapLength *int
}

// EventLog is one row of Airflow's log table (airflow/models/log.py): an
// action a user took through the stable API, or a task instance's try
// starting or ending. ID is the integer primary key, handed out in order
// and never reused. An empty DagID, TaskID or RunID is Airflow's NULL (no
// id of airlite's is empty), as are nil fields.
type EventLog struct {
	ID            int64
	When          time.Time // Airflow's dttm
	Event         string
	DagID         string
	TaskID        string
	RunID         string
	MapIndex      *int
	TryNumber     *int
	ExecutionDate *time.Time
	Owner         *string
	Extra         *string
}
