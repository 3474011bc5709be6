package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
	"github.com/google/uuid"
)

// A snapshot file is JSON lines:
//
//	{"format":"airlite-snapshot","version":1,"index":…,"created_at":…,"airlite_version":…,"tables":[…]}
//	{"table":"dags","rows":2}
//	{…one row…}
//	{…one row…}
//	{"table":"dag_runs","rows":0}
//	…every table of the schema…
//	{"end":"airlite-snapshot","tables":7,"rows":…,"crc32c":"…"}
//
// The header comes first so that an unknown format or a newer version is
// refused before anything else is read. Every table announces its row
// count, and the end line carries the total and a CRC-32C of every byte
// before it, so that a truncated or damaged file is recognised as such and
// never half loaded.
const (
	snapshotFormat = "airlite-snapshot"
	// 2 added variables, connections and XCom entries; 3 the event log;
	// 4 the earlier tries of task instances; 5 a run's run_after, and runs
	// without a logical date (execution_date null); 6 assets and asset
	// events, DAG versions and favorites, backfills, task instance ids (Airflow 3's
	// UUIDs) and a run's triggered_by, triggering_user_name and
	// partition_key (Airflow 3); 7 a mapped task's expanded instances as
	// task instance rows of their own (map_index on task instances, their
	// tries, logs and lineage), where 6 nested them in the task's one; 8
	// asset aliases, and the aliases an asset event came through; 9 an
	// XCom entry the public API (/api/v2) created or changed is kept as
	// Airflow 3's column keeps it, json.dumps' text of the value as a
	// JSON string (apiv2_xcom.go v2XComStored), where 8 kept the value:
	// the rows do not change shape, but an older airlite would read
	// such an entry as a string. An 8 file's entries restore as they
	// were stored, which reads as a task's push does (nothing in the
	// file tells the public API's from a task's).
	snapshotVersion = 9
)

// airliteVersion is written into snapshot headers; release builds set it
// with -ldflags "-X main.airliteVersion=…".
var airliteVersion = "dev"

// errSnapshotUnreadable marks a snapshot (or id lease) file that exists but
// cannot be loaded: truncated, corrupt, an unknown format or a newer
// version, or unreadable on disk.
var errSnapshotUnreadable = errors.New("snapshot unreadable")

// errIsDirectory marks a snapshot or id lease path that names a folder: a
// mistake in the command line, not a damaged file, so that
// --snapshot-bad=move does not apply to it.
var errIsDirectory = errors.New("is a directory")

// snapshotError names an unreadable file and what is wrong with it.
type snapshotError struct {
	Path    string
	Problem string
	Err     error // the underlying error, if any
}

func (e *snapshotError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("read %s: %s: %v", e.Path, e.Problem, e.Err)
	}
	return fmt.Sprintf("read %s: %s", e.Path, e.Problem)
}

func (e *snapshotError) Unwrap() []error { return []error{errSnapshotUnreadable, e.Err} }

func badSnapshot(path string, err error, format string, args ...any) error {
	return &snapshotError{Path: path, Problem: fmt.Sprintf(format, args...), Err: err}
}

var crc32c = crc32.MakeTable(crc32.Castagnoli)

type snapshotHeader struct {
	Format         string    `json:"format"`
	Version        int       `json:"version"`
	Index          int64     `json:"index"`
	CreatedAt      time.Time `json:"created_at"`
	AirliteVersion string    `json:"airlite_version"`
	Tables         []string  `json:"tables"`
	// Definitions is the digest that names the definitions file beside
	// the snapshot, <snapshot>.definitions-<digest>
	// (snapshot_definitions.go); absent when no DAG has a definition to
	// keep. Older airlites leave it out, as a start without it did.
	Definitions string `json:"definitions,omitempty"`
}

type sectionHeader struct {
	Table string `json:"table"`
	Rows  int    `json:"rows"`
}

type snapshotFooter struct {
	End    string `json:"end"`
	Tables int    `json:"tables"`
	Rows   int    `json:"rows"`
	CRC32C string `json:"crc32c"`
}

// Row records: the on-disk shape of each table's rows. They are separate
// from the store's structs so that the file format changes only on
// purpose. Times are written in UTC with nanoseconds; raw JSON values
// (conf, inlets, outlets) are kept as strings so that their bytes survive
// exactly; a DAG's parsed definition is not written: it is re-attached
// from the DAG files at start. What its front end read is kept in the
// editions whose stale DAGs keep their definition, in a definitions file
// beside the snapshot (snapshot_definitions.go), to be built again at a
// start whose files no longer give it.

type snapDag struct {
	DagID     string `json:"dag_id"`
	IsPaused  bool   `json:"is_paused"`
	FileLoc   string `json:"fileloc"`
	RootDagID string `json:"root_dag_id,omitempty"`
	// Stale is DagRow.Stale, written only when set (edition 3), so that
	// older files, and older airlites reading this one, need no new
	// version.
	Stale bool `json:"stale,omitempty"`
	// ImportErrors is DagRow.ImportErrors, written only when set.
	ImportErrors bool `json:"import_errors,omitempty"`
	// Definition is what a stale row's definition was built from
	// (dag_origin.go), as airlites of format 8 wrote it before the
	// definitions went to a file of their own (snapshot_definitions.go);
	// read, no longer written.
	Definition *snapDefinition `json:"definition,omitempty"`
}

// snapDefinition is keptDefinition on disk.
type snapDefinition struct {
	// Format says what Data is: "yaml", a definition file's bytes (YAML
	// or JSON), or "serialized_dag", a Python file's DAG as airlite's
	// reader serialized it.
	Format          string     `json:"format"`
	Data            string     `json:"data"`
	ReadAt          *time.Time `json:"read_at,omitempty"` // when a definition file was read
	RelativeFileloc string     `json:"relative_fileloc,omitempty"`
	SourceCode      string     `json:"source_code,omitempty"`
	ParsedAt        *time.Time `json:"parsed_at,omitempty"`
	ParseDuration   float64    `json:"parse_duration,omitempty"`
}

const (
	snapDefinitionYAML       = "yaml"
	snapDefinitionSerialized = "serialized_dag"
)

// record is k on disk.
func (k *keptDefinition) record() *snapDefinition {
	def := &snapDefinition{Format: snapDefinitionYAML, Data: k.Data, RelativeFileloc: k.RelativeFileloc,
		SourceCode: k.SourceCode, ParseDuration: k.ParseDuration}
	if k.Python {
		def.Format = snapDefinitionSerialized
	}
	if !k.ReadAt.IsZero() {
		def.ReadAt = utcPtr(&k.ReadAt)
	}
	if !k.ParsedAt.IsZero() {
		def.ParsedAt = utcPtr(&k.ParsedAt)
	}
	return def
}

// kept is the definition def holds; a format airlite does not write is
// refused.
func (def *snapDefinition) kept() (*keptDefinition, error) {
	if def.Format != snapDefinitionYAML && def.Format != snapDefinitionSerialized {
		return nil, fmt.Errorf("definition format %q is not %q or %q", def.Format, snapDefinitionYAML, snapDefinitionSerialized)
	}
	k := &keptDefinition{Python: def.Format == snapDefinitionSerialized, Data: def.Data,
		RelativeFileloc: def.RelativeFileloc, SourceCode: def.SourceCode, ParseDuration: def.ParseDuration}
	if def.ReadAt != nil {
		k.ReadAt = *def.ReadAt
	}
	if def.ParsedAt != nil {
		k.ParsedAt = *def.ParsedAt
	}
	return k, nil
}

// check refuses a kept definition airlite could not have written.
// Whether it builds is for the start that builds it to say; one not
// decoded yet (raw) is checked when it is (keptDefinition.decoded).
func (k *keptDefinition) check() error {
	switch {
	case k.raw != nil:
		return nil
	case k.Data == "":
		return errors.New("definition data is missing or empty")
	case k.ParseDuration < 0:
		return fmt.Errorf("definition parse_duration %v is negative", k.ParseDuration)
	}
	return checkDates(namedDate{"definition read_at", &k.ReadAt}, namedDate{"definition parsed_at", &k.ParsedAt})
}

// encodeDagRow writes a DAG row; what its definition was built from goes
// to the definitions file (snapshot_definitions.go).
func encodeDagRow(obj any) any {
	d := obj.(*DagRow)
	return &snapDag{DagID: d.DagID, IsPaused: d.IsPaused, FileLoc: d.FileLoc, RootDagID: d.RootDagID, Stale: d.Stale, ImportErrors: d.ImportErrors}
}

// decodeDagRow reads a DAG row; a kept definition written in the row (an
// older file's) waits in DagRow.Kept for the start to build it, as one
// from the definitions file does.
func decodeDagRow(line []byte) (any, error) {
	var r snapDag
	if err := gojson.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	row := &DagRow{DagID: r.DagID, IsPaused: r.IsPaused, FileLoc: r.FileLoc, RootDagID: r.RootDagID, Stale: r.Stale, ImportErrors: r.ImportErrors}
	if r.Definition != nil {
		kept, err := r.Definition.kept()
		if err != nil {
			return nil, err
		}
		row.Kept = kept
	}
	return row, nil
}

// checkDagRow refuses a DAG row airlite could not have written.
func checkDagRow(obj any) error {
	row := obj.(*DagRow)
	if err := checkRowKeys("dag_id", row.DagID); err != nil {
		return err
	}
	if row.Kept == nil {
		return nil
	}
	return row.Kept.check()
}

type snapRun struct {
	ID    int64  `json:"id"`
	DagID string `json:"dag_id"`
	RunID string `json:"run_id"`
	// ExecutionDate is the logical date; null (from version 5) for a run
	// without one.
	ExecutionDate *time.Time `json:"execution_date"`
	// RunAfter is written (from version 5) when it is not the logical
	// date; absent, it is the logical date, as in every older file.
	RunAfter        *time.Time `json:"run_after,omitempty"`
	State           RunState   `json:"state"`
	Conf            *string    `json:"conf"`
	StartDate       *time.Time `json:"start_date"`
	EndDate         *time.Time `json:"end_date"`
	QueuedAt        *time.Time `json:"queued_at"`
	ExternalTrigger bool       `json:"external_trigger"`
	RunType         string     `json:"run_type"`
	// Added with the stable API; absent from older snapshots (nil).
	UpdatedAt         *time.Time `json:"updated_at,omitempty"`
	Note              *string    `json:"note,omitempty"`
	DataIntervalStart *time.Time `json:"data_interval_start,omitempty"`
	DataIntervalEnd   *time.Time `json:"data_interval_end,omitempty"`
	// DagVersionID is absent before version 6, and for a run made
	// without a DAG version.
	DagVersionID string `json:"dag_version_id,omitempty"`
	// Airflow 3's (from version 6); absent: none.
	TriggeredBy    string  `json:"triggered_by,omitempty"`
	TriggeringUser *string `json:"triggering_user_name,omitempty"`
	PartitionKey   *string `json:"partition_key,omitempty"`
}

type snapTask struct {
	// ID is written (from version 6) for a task instance that has one
	// (edition 3); absent, it has none, as in every older file.
	ID             string     `json:"id,omitempty"`
	DagID          string     `json:"dag_id"`
	RunID          string     `json:"run_id"`
	TaskID         string     `json:"task_id"`
	ExecutionDate  time.Time  `json:"execution_date"`
	State          TaskState  `json:"state"`
	TryNumber      int        `json:"try_number"`
	MaxTries       int        `json:"max_tries"`
	StartDate      *time.Time `json:"start_date"`
	EndDate        *time.Time `json:"end_date"`
	Duration       *float64   `json:"duration"`
	QueuedDttm     *time.Time `json:"queued_dttm"`
	Pool           string     `json:"pool"`
	PoolSlots      int        `json:"pool_slots"`
	Queue          string     `json:"queue"`
	PriorityWeight int        `json:"priority_weight"`
	Operator       string     `json:"operator"`
	Hostname       string     `json:"hostname"`
	Unixname       string     `json:"unixname"`
	PID            *int       `json:"pid"`
	UpdatedAt      *time.Time `json:"updated_at"`
	NextRetryAt    *time.Time `json:"next_retry_at"`
	ProcIdentity   string     `json:"proc_identity,omitempty"`
	Note           *string    `json:"note,omitempty"` // absent from files written before task-instance notes
	// Rendered is absent from files written before rendered fields, and
	// while a task instance has none.
	Rendered map[string]any `json:"rendered_fields,omitempty"`
	// MapIndex is written (from version 7) for an expanded instance of a
	// mapped task; absent, the task instance's map_index is -1.
	MapIndex *int `json:"map_index,omitempty"`
	// RenderedMapIndex is absent unless an expanded instance rendered one.
	RenderedMapIndex *string `json:"rendered_map_index,omitempty"`
	// Mapped is only in files of version 6 and older: a mapped task's
	// expanded instances nested in its task instance, which restore turns
	// into task instances of their own (legacyMappedTask).
	Mapped []MappedInstance `json:"mapped,omitempty"`
	// DagVersionID is absent before version 6.
	DagVersionID string `json:"dag_version_id,omitempty"`
}

// snapTryHistory is a task instance's earlier tries, each written as a
// task instance record.
type snapTryHistory struct {
	DagID    string     `json:"dag_id"`
	RunID    string     `json:"run_id"`
	TaskID   string     `json:"task_id"`
	MapIndex *int       `json:"map_index,omitempty"` // as snapTask's
	Tries    []snapTask `json:"tries"`
	Dropped  int        `json:"dropped_tries,omitempty"`
}

type snapPool struct {
	ID              int64   `json:"id"`
	Name            string  `json:"pool"`
	Slots           int64   `json:"slots"`
	Description     *string `json:"description"`
	IncludeDeferred bool    `json:"include_deferred"`
}

type snapLineage struct {
	DagID    string  `json:"dag_id"`
	RunID    string  `json:"run_id"`
	TaskID   string  `json:"task_id"`
	MapIndex *int    `json:"map_index,omitempty"` // as snapTask's
	Inlets   *string `json:"inlets"`
	Outlets  *string `json:"outlets"`
}

type snapTaskLog struct {
	DagID    string    `json:"dag_id"`
	RunID    string    `json:"run_id"`
	TaskID   string    `json:"task_id"`
	MapIndex *int      `json:"map_index,omitempty"` // as snapTask's
	Tries    []snapTry `json:"tries"`
	Dropped  int       `json:"dropped_tries,omitempty"` // absent from files written before the log kept maxLogTries
}

// snapTry keeps output that is not valid UTF-8 as base64, since a JSON
// string would replace the bad bytes.
type snapTry struct {
	Try       int    `json:"try"`
	Output    string `json:"output,omitempty"`
	OutputB64 []byte `json:"output_b64,omitempty"`
	Truncated bool   `json:"truncated"`
}

type snapVariable struct {
	ID          int64   `json:"id"`
	Key         string  `json:"key"`
	Val         string  `json:"val"`
	Description *string `json:"description"`
	IsEncrypted bool    `json:"is_encrypted"`
}

// snapAsset and snapAssetEvent are Airflow 3's assets and their events
// (memstore_assets.go); their extras are JSON objects kept as text.
type snapAsset struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	URI       string    `json:"uri"`
	Group     string    `json:"group"`
	Extra     string    `json:"extra"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// References are the asset's reference rows with their dates; files
	// written before them have none, and the first read of the assets
	// after the start records them then.
	References []snapAssetReference `json:"references,omitempty"`
}

type snapAssetReference struct {
	Kind   AssetRefKind `json:"kind"`
	DagID  string       `json:"dag_id"`
	TaskID string       `json:"task_id,omitempty"`
	Since  time.Time    `json:"since"`
}

type snapAssetEvent struct {
	ID             int64     `json:"id"`
	AssetID        int64     `json:"asset_id"`
	Extra          string    `json:"extra"`
	SourceDagID    *string   `json:"source_dag_id"`
	SourceTaskID   *string   `json:"source_task_id"`
	SourceRunID    *string   `json:"source_run_id"`
	SourceMapIndex int       `json:"source_map_index"`
	SourceAliasIDs []int64   `json:"source_alias_ids,omitempty"` // version 8 on
	PartitionKey   *string   `json:"partition_key"`
	Timestamp      time.Time `json:"timestamp"`
}

type snapAssetAlias struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	Group    string  `json:"group"`
	AssetIDs []int64 `json:"asset_ids,omitempty"`
}

type snapEventLog struct {
	ID            int64      `json:"id"`
	When          time.Time  `json:"dttm"`
	Event         string     `json:"event"`
	DagID         string     `json:"dag_id,omitempty"`
	TaskID        string     `json:"task_id,omitempty"`
	RunID         string     `json:"run_id,omitempty"`
	MapIndex      *int       `json:"map_index"`
	TryNumber     *int       `json:"try_number"`
	ExecutionDate *time.Time `json:"execution_date"`
	Owner         *string    `json:"owner"`
	Extra         *string    `json:"extra"`
}

type snapConnection struct {
	ID          int64   `json:"id"`
	ConnID      string  `json:"conn_id"`
	ConnType    string  `json:"conn_type"`
	Description *string `json:"description"`
	Host        *string `json:"host"`
	Login       *string `json:"login"`
	Schema      *string `json:"schema"`
	Port        *int    `json:"port"`
	Password    *string `json:"password"`
	Extra       *string `json:"extra"`
}

// snapXCom keeps the value as a string, like a conf, so that its bytes
// survive exactly.
type snapXCom struct {
	DagID     string    `json:"dag_id"`
	RunID     string    `json:"run_id"`
	TaskID    string    `json:"task_id"`
	RunRowID  int64     `json:"dag_run_id"`
	MapIndex  int       `json:"map_index"`
	Key       string    `json:"key"`
	Value     *string   `json:"value"`
	Timestamp time.Time `json:"timestamp"`
	// MapLength is XComEntry's; absent (older files, and most entries):
	// none recorded, the expansion reads the value's length.
	MapLength *int `json:"map_length,omitempty"`
}

// snapDagVersion is one version of a DAG (from version 6).
type snapDagVersion struct {
	ID        string    `json:"id"`
	DagID     string    `json:"dag_id"`
	Number    int64     `json:"version_number"`
	CreatedAt time.Time `json:"created_at"`
	Hash      string    `json:"hash"`
}

// snapDagFavorite is one user's favorite DAG (from version 6).
type snapDagFavorite struct {
	DagID  string `json:"dag_id"`
	UserID string `json:"user_id"`
}

type snapAssetQueueEntry struct {
	AssetID   int64     `json:"asset_id"`
	DagID     string    `json:"target_dag_id"`
	CreatedAt time.Time `json:"created_at"`
}

type snapConsumedEvents struct {
	RunRowID int64   `json:"dag_run_id"`
	EventIDs []int64 `json:"asset_event_ids"`
}

type snapCounter struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// utcPtr returns t in UTC; a time already in UTC is returned as it is
// (records are only read), which saves an allocation per field.
func utcPtr(t *time.Time) *time.Time {
	if t == nil || t.Location() == time.UTC {
		return t
	}
	u := t.UTC()
	return &u
}

func rawToString(raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	s := string(raw)
	return &s
}

func stringToRaw(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// snapshotCodec converts one table's rows to records and back.
type snapshotCodec struct {
	table string
	// each, when set, calls fn with every object a stored row is written
	// as, one record each; otherwise a row is one record.
	each   func(row any, fn func(obj any) error) error
	encode func(obj any) any
	// decode reads one record (one line) and returns the object to store.
	decode func(line []byte) (any, error)
	// insert, when set, stores decoded objects (in file order, a batch at
	// a time) instead of the restore's Insert of each.
	insert func(r *storeRestore, objs []any) error
	// check says what is wrong with a decoded object on its own, or nil:
	// a row airlite could not have written is refused, checksum or not.
	check func(obj any) error
	// runOf, when set, names the run an object belongs to, which the
	// snapshot must hold, in an earlier table.
	runOf func(obj any) (dagID, runID string)
}

// eachRecord calls fn with every object a stored row is written as.
func (c snapshotCodec) eachRecord(row any, fn func(obj any) error) error {
	if c.each == nil {
		return fn(row)
	}
	return c.each(row, fn)
}

// decodeInto returns a decode function for record type R. Rows are
// decoded with goccy/go-json, much faster than encoding/json at these
// records; decoding is most of a restore's time.
func decodeInto[R any](conv func(*R) any) func(line []byte) (any, error) {
	return func(line []byte) (any, error) {
		var rec R
		if err := gojson.Unmarshal(line, &rec); err != nil {
			return nil, err
		}
		return conv(&rec), nil
	}
}

// snapshotCodecs lists every table in the order they are written and
// restored. A test checks that it covers the schema.
func snapshotCodecs() []snapshotCodec {
	return []snapshotCodec{
		{table: tableCounters, encode: func(obj any) any {
			c := obj.(*counter)
			return &snapCounter{Name: c.Name, Value: c.Value}
		}, decode: decodeInto(func(r *snapCounter) any { return &counter{Name: r.Name, Value: r.Value} }),
			check: checkCounter},
		{table: tableDags, encode: encodeDagRow, decode: decodeDagRow, check: checkDagRow},
		{table: tablePools, encode: func(obj any) any {
			p := obj.(*Pool)
			return &snapPool{ID: p.ID, Name: p.Name, Slots: p.Slots, Description: p.Description, IncludeDeferred: p.IncludeDeferred}
		}, decode: decodeInto(func(r *snapPool) any {
			return &Pool{ID: r.ID, Name: r.Name, Slots: r.Slots, Description: r.Description, IncludeDeferred: r.IncludeDeferred}
		}), check: checkPool},
		{table: tableDagRuns, encode: func(obj any) any {
			r := obj.(*DagRun)
			rec := &snapRun{
				ID: r.ID, DagID: r.DagID, RunID: r.RunID, State: r.State,
				Conf: rawToString(r.Conf), StartDate: utcPtr(r.StartDate), EndDate: utcPtr(r.EndDate),
				QueuedAt: utcPtr(r.QueuedAt), ExternalTrigger: r.ExternalTrigger, RunType: r.RunType,
				UpdatedAt: utcPtr(r.UpdatedAt), Note: r.Note,
				DataIntervalStart: utcPtr(r.DataIntervalStart), DataIntervalEnd: utcPtr(r.DataIntervalEnd),
				TriggeredBy: r.TriggeredBy, TriggeringUser: r.TriggeringUser, PartitionKey: r.PartitionKey,
				DagVersionID: r.DagVersionID,
			}
			if !r.NoLogicalDate {
				rec.ExecutionDate = utcPtr(&r.ExecutionDate)
			}
			if !r.RunAfter.IsZero() {
				rec.RunAfter = utcPtr(&r.RunAfter)
			}
			return rec
		}, decode: decodeInto(func(r *snapRun) any {
			run := &DagRun{
				ID: r.ID, DagID: r.DagID, RunID: r.RunID, NoLogicalDate: r.ExecutionDate == nil, State: r.State,
				Conf: stringToRaw(r.Conf), StartDate: r.StartDate, EndDate: r.EndDate, QueuedAt: r.QueuedAt,
				ExternalTrigger: r.ExternalTrigger, RunType: r.RunType,
				UpdatedAt: r.UpdatedAt, Note: r.Note, DataIntervalStart: r.DataIntervalStart, DataIntervalEnd: r.DataIntervalEnd,
				TriggeredBy: r.TriggeredBy, TriggeringUser: r.TriggeringUser, PartitionKey: r.PartitionKey,
				DagVersionID: r.DagVersionID,
			}
			if r.ExecutionDate != nil {
				run.ExecutionDate = *r.ExecutionDate
			}
			// The store keeps run_after only where it is not the logical date.
			if r.RunAfter != nil && (run.NoLogicalDate || !r.RunAfter.Equal(run.ExecutionDate)) {
				run.RunAfter = *r.RunAfter
			}
			return run
		}), check: checkRun},
		// A run's task instances are one row in the store and one record
		// each in the file, as the file has always held them.
		{table: tableTasks, each: func(row any, fn func(obj any) error) error {
			for _, ti := range row.(*runTasks).TIs {
				if err := fn(ti); err != nil {
					return err
				}
			}
			return nil
		}, insert: insertTaskRecords, encode: func(obj any) any { return taskRecord(obj.(*TaskInstance)) },
			decode: decodeInto(func(r *snapTask) any {
				if len(r.Mapped) > 0 {
					return &legacyMappedTask{ti: r.taskInstance(), mapped: r.Mapped}
				}
				return r.taskInstance()
			}),
			check: func(obj any) error {
				if l, ok := obj.(*legacyMappedTask); ok {
					return checkLegacyMapped(l)
				}
				return checkTask(obj.(*TaskInstance))
			}, runOf: func(obj any) (string, string) {
				t := restoredTask(obj)
				return t.DagID, t.RunID
			}},
		{table: tableLineage, encode: func(obj any) any {
			l := obj.(*LineageRecord)
			return &snapLineage{DagID: l.DagID, RunID: l.RunID, TaskID: l.TaskID, MapIndex: snapMapIndex(l.MapIndex),
				Inlets: rawToString(l.Inlets), Outlets: rawToString(l.Outlets)}
		}, decode: decodeInto(func(r *snapLineage) any {
			return &LineageRecord{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, MapIndex: restoredMapIndex(r.MapIndex),
				Inlets: stringToRaw(r.Inlets), Outlets: stringToRaw(r.Outlets)}
		}), check: func(obj any) error {
			l := obj.(*LineageRecord)
			if err := checkRowKeys("dag_id", l.DagID, "run_id", l.RunID, "task_id", l.TaskID); err != nil {
				return err
			}
			return checkMapIndex(l.MapIndex)
		}, runOf: func(obj any) (string, string) {
			l := obj.(*LineageRecord)
			return l.DagID, l.RunID
		}},
		{table: tableTaskLogs, encode: func(obj any) any {
			l := obj.(*TaskLog)
			rec := &snapTaskLog{DagID: l.DagID, RunID: l.RunID, TaskID: l.TaskID, MapIndex: snapMapIndex(l.MapIndex), Dropped: l.Dropped}
			if l.Tries != nil {
				rec.Tries = make([]snapTry, len(l.Tries))
			}
			for i, t := range l.Tries {
				rec.Tries[i] = snapTry{Try: t.Try, Truncated: t.Truncated}
				if utf8.ValidString(t.Output) {
					rec.Tries[i].Output = t.Output
				} else {
					rec.Tries[i].OutputB64 = []byte(t.Output)
				}
			}
			return rec
		}, decode: decodeInto(func(r *snapTaskLog) any {
			l := &TaskLog{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, MapIndex: restoredMapIndex(r.MapIndex), Dropped: r.Dropped}
			if r.Tries != nil {
				l.Tries = make([]TryLog, len(r.Tries))
			}
			for i, t := range r.Tries {
				l.Tries[i] = TryLog{Try: t.Try, Output: t.Output, Truncated: t.Truncated}
				if t.OutputB64 != nil {
					l.Tries[i].Output = string(t.OutputB64)
				}
			}
			return l
		}), check: checkTaskLog, runOf: func(obj any) (string, string) {
			l := obj.(*TaskLog)
			return l.DagID, l.RunID
		}},
		// Added in version 4; older files have no earlier tries.
		{table: tableTryHistory, encode: func(obj any) any {
			h := obj.(*TaskInstanceHistory)
			rec := &snapTryHistory{DagID: h.DagID, RunID: h.RunID, TaskID: h.TaskID, MapIndex: snapMapIndex(h.MapIndex), Dropped: h.Dropped,
				Tries: make([]snapTask, len(h.Tries))}
			for i, t := range h.Tries {
				rec.Tries[i] = *taskRecord(t)
			}
			return rec
		}, decode: decodeInto(func(r *snapTryHistory) any {
			h := &TaskInstanceHistory{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, MapIndex: restoredMapIndex(r.MapIndex), Dropped: r.Dropped,
				Tries: make([]*TaskInstance, len(r.Tries))}
			for i := range r.Tries {
				h.Tries[i] = r.Tries[i].taskInstance()
			}
			return h
		}), check: checkTryHistory, runOf: func(obj any) (string, string) {
			h := obj.(*TaskInstanceHistory)
			return h.DagID, h.RunID
		}},
		// Tables added in version 2; a version 1 file has none of them.
		{table: tableVariables, encode: func(obj any) any {
			v := obj.(*Variable)
			return &snapVariable{ID: v.ID, Key: v.Key, Val: v.Val, Description: v.Description, IsEncrypted: v.IsEncrypted}
		}, decode: decodeInto(func(r *snapVariable) any {
			return &Variable{ID: r.ID, Key: r.Key, Val: r.Val, Description: r.Description, IsEncrypted: r.IsEncrypted}
		}), check: checkVariable},
		{table: tableConns, encode: func(obj any) any {
			c := obj.(*Connection)
			return &snapConnection{ID: c.ID, ConnID: c.ConnID, ConnType: c.ConnType, Description: c.Description,
				Host: c.Host, Login: c.Login, Schema: c.Schema, Port: c.Port, Password: c.Password, Extra: c.Extra}
		}, decode: decodeInto(func(r *snapConnection) any {
			return &Connection{ID: r.ID, ConnID: r.ConnID, ConnType: r.ConnType, Description: r.Description,
				Host: r.Host, Login: r.Login, Schema: r.Schema, Port: r.Port, Password: r.Password, Extra: r.Extra}
		}), check: checkConnection},
		{table: tableXComs, encode: func(obj any) any {
			x := obj.(*XComEntry)
			return &snapXCom{DagID: x.DagID, RunID: x.RunID, TaskID: x.TaskID, RunRowID: x.RunRowID, MapIndex: x.MapIndex,
				Key: x.Key, Value: rawToString(x.Value), Timestamp: x.Timestamp.UTC(), MapLength: x.MapLength}
		}, decode: decodeInto(func(r *snapXCom) any {
			return &XComEntry{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, RunRowID: r.RunRowID, MapIndex: r.MapIndex,
				Key: r.Key, Value: stringToRaw(r.Value), Timestamp: r.Timestamp, MapLength: r.MapLength}
		}), check: checkXCom, runOf: func(obj any) (string, string) {
			x := obj.(*XComEntry)
			return x.DagID, x.RunID
		}},
		// Added in version 3; older files have no event log. Events name
		// runs and tasks that may be gone: no runOf.
		{table: tableEventLogs, encode: func(obj any) any {
			e := obj.(*EventLog)
			return &snapEventLog{ID: e.ID, When: e.When.UTC(), Event: e.Event, DagID: e.DagID, TaskID: e.TaskID, RunID: e.RunID,
				MapIndex: e.MapIndex, TryNumber: e.TryNumber, ExecutionDate: utcPtr(e.ExecutionDate), Owner: e.Owner, Extra: e.Extra}
		}, decode: decodeInto(func(r *snapEventLog) any {
			return &EventLog{ID: r.ID, When: r.When, Event: r.Event, DagID: r.DagID, TaskID: r.TaskID, RunID: r.RunID,
				MapIndex: r.MapIndex, TryNumber: r.TryNumber, ExecutionDate: r.ExecutionDate, Owner: r.Owner, Extra: r.Extra}
		}), check: checkEventLog},
		// Added in version 6; older files have no assets. Events name
		// runs that may be gone: no runOf.
		{table: tableAssets, encode: func(obj any) any {
			a := obj.(*Asset)
			out := &snapAsset{ID: a.ID, Name: a.Name, URI: a.URI, Group: a.Group, Extra: string(a.Extra), CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
			for _, r := range a.References {
				out.References = append(out.References, snapAssetReference{Kind: r.Kind, DagID: r.DagID, TaskID: r.TaskID, Since: r.Since.UTC()})
			}
			return out
		}, decode: decodeInto(func(r *snapAsset) any {
			a := &Asset{ID: r.ID, Name: r.Name, URI: r.URI, Group: r.Group, Extra: json.RawMessage(r.Extra), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
			for _, ref := range r.References {
				a.References = append(a.References, AssetReference{Kind: ref.Kind, DagID: ref.DagID, TaskID: ref.TaskID, Since: ref.Since})
			}
			return a
		}), check: checkAsset},
		{table: tableAssetEvents, encode: func(obj any) any {
			e := obj.(*AssetEvent)
			return &snapAssetEvent{ID: e.ID, AssetID: e.AssetID, Extra: string(e.Extra), SourceDagID: e.SourceDagID, SourceTaskID: e.SourceTaskID,
				SourceRunID: e.SourceRunID, SourceMapIndex: e.SourceMapIndex, SourceAliasIDs: e.SourceAliasIDs, PartitionKey: e.PartitionKey,
				Timestamp: e.Timestamp.UTC()}
		}, decode: decodeInto(func(r *snapAssetEvent) any {
			return &AssetEvent{ID: r.ID, AssetID: r.AssetID, Extra: json.RawMessage(r.Extra), SourceDagID: r.SourceDagID, SourceTaskID: r.SourceTaskID,
				SourceRunID: r.SourceRunID, SourceMapIndex: r.SourceMapIndex, SourceAliasIDs: r.SourceAliasIDs, PartitionKey: r.PartitionKey,
				Timestamp: r.Timestamp}
		}), check: checkAssetEvent},
		// Added in version 8; older files have no aliases.
		{table: tableAssetAliases, encode: func(obj any) any {
			a := obj.(*AssetAlias)
			return &snapAssetAlias{ID: a.ID, Name: a.Name, Group: a.Group, AssetIDs: a.AssetIDs}
		}, decode: decodeInto(func(r *snapAssetAlias) any {
			return &AssetAlias{ID: r.ID, Name: r.Name, Group: r.Group, AssetIDs: r.AssetIDs}
		}), check: checkAssetAlias},
		// Added in version 6; older files have no DAG versions: the DAG
		// files loaded on top of the restore make each DAG's first.
		{table: tableDagVersions, encode: func(obj any) any {
			v := obj.(*DagVersion)
			return &snapDagVersion{ID: v.ID, DagID: v.DagID, Number: v.Number, CreatedAt: v.CreatedAt.UTC(), Hash: v.Hash}
		}, decode: decodeInto(func(r *snapDagVersion) any {
			return &DagVersion{ID: r.ID, DagID: r.DagID, Number: r.Number, CreatedAt: r.CreatedAt, Hash: r.Hash}
		}), check: checkDagVersion},
		// Added in version 6 too.
		{table: tableDagFavorites, encode: func(obj any) any {
			f := obj.(*DagFavorite)
			return &snapDagFavorite{DagID: f.DagID, UserID: f.UserID}
		}, decode: decodeInto(func(r *snapDagFavorite) any {
			return &DagFavorite{DagID: r.DagID, UserID: r.UserID}
		}), check: func(obj any) error {
			f := obj.(*DagFavorite)
			return checkRowKeys("dag_id", f.DagID, "user_id", f.UserID)
		}},
		// Added in version 6 too: backfills and their run links
		// (snapshot_backfills.go). Links name runs that may be gone (a
		// deleted run leaves its link naming none): no runOf.
		{table: tableBackfills, encode: encodeBackfill, decode: decodeBackfill, check: checkBackfill},
		{table: tableBackfillRuns, encode: encodeBackfillRun, decode: decodeBackfillRun, check: checkBackfillDagRun},
		// Added in version 6 too: the asset events queued for DAGs
		// scheduled on assets, and what asset-triggered runs consumed.
		{table: tableAssetQueue, encode: func(obj any) any {
			e := obj.(*AssetQueueEntry)
			return &snapAssetQueueEntry{AssetID: e.AssetID, DagID: e.DagID, CreatedAt: e.CreatedAt.UTC()}
		}, decode: decodeInto(func(r *snapAssetQueueEntry) any {
			return &AssetQueueEntry{AssetID: r.AssetID, DagID: r.DagID, CreatedAt: r.CreatedAt}
		}), check: checkAssetQueueEntry},
		{table: tableConsumedEvents, encode: func(obj any) any {
			c := obj.(*ConsumedEvents)
			return &snapConsumedEvents{RunRowID: c.RunRowID, EventIDs: c.EventIDs}
		}, decode: decodeInto(func(r *snapConsumedEvents) any {
			return &ConsumedEvents{RunRowID: r.RunRowID, EventIDs: r.EventIDs}
		}), check: checkConsumedEvents},
	}
}

// checkDagVersion refuses a version airlite could not have written.
func checkDagVersion(obj any) error {
	v := obj.(*DagVersion)
	if err := checkRowKeys("dag_id", v.DagID, "id", v.ID); err != nil {
		return err
	}
	if v.Number < 1 {
		return fmt.Errorf("version_number %d is not positive", v.Number)
	}
	return checkDates(namedDate{"created_at", &v.CreatedAt})
}

// taskRecord is a task instance as the file holds it.
func taskRecord(t *TaskInstance) *snapTask {
	return &snapTask{
		ID: t.ID, DagID: t.DagID, RunID: t.RunID, TaskID: t.TaskID, ExecutionDate: t.ExecutionDate.UTC(), State: t.State,
		TryNumber: t.TryNumber, MaxTries: t.MaxTries, StartDate: utcPtr(t.StartDate), EndDate: utcPtr(t.EndDate),
		Duration: t.Duration, QueuedDttm: utcPtr(t.QueuedDttm), Pool: t.Pool, PoolSlots: t.PoolSlots,
		Queue: t.Queue, PriorityWeight: t.PriorityWeight, Operator: t.Operator, Hostname: t.Hostname,
		Unixname: t.Unixname, PID: t.PID, UpdatedAt: utcPtr(t.UpdatedAt), NextRetryAt: utcPtr(t.NextRetryAt),
		ProcIdentity: t.ProcIdentity, Note: t.Note, Rendered: t.Rendered, DagVersionID: t.DagVersionID,
		MapIndex: snapMapIndex(t.MapIndex), RenderedMapIndex: t.RenderedMapIndex,
	}
}

// snapMapIndex is a map_index as the file holds it: absent for -1, so
// that the rows of tasks that are not mapped read as before version 7.
func snapMapIndex(mapIndex int) *int {
	if mapIndex == -1 {
		return nil
	}
	return &mapIndex
}

// restoredMapIndex is the map_index a file's row holds.
func restoredMapIndex(mapIndex *int) int {
	if mapIndex == nil {
		return -1
	}
	return *mapIndex
}

// legacyMappedTask is a task instance from a file of version 6 or older
// whose mapped task had expanded: its instances nested in it. Restore
// stores them as task instances of their own, map_index 0..n-1, in its
// place, as Airflow's expand_mapped_task leaves them: index 0 keeps the
// task instance's id, the others get new ones (edition 3).
type legacyMappedTask struct {
	ti     *TaskInstance
	mapped []MappedInstance
}

// rows are the task instances the legacy row becomes.
func (l *legacyMappedTask) rows() []*TaskInstance {
	out := make([]*TaskInstance, len(l.mapped))
	for i, mi := range l.mapped {
		row := *l.ti
		row.MapIndex, row.State, row.TryNumber = mi.MapIndex, mi.State, mi.TryNumber
		row.StartDate, row.EndDate, row.Duration = mi.StartDate, mi.EndDate, mi.Duration
		row.Rendered, row.RenderedMapIndex = mi.Rendered, mi.RenderedMapIndex
		row.PID, row.ProcIdentity, row.NextRetryAt = nil, "", nil
		if mi.State == TaskUpForRetry {
			row.NextRetryAt = l.ti.NextRetryAt
		}
		if i > 0 {
			nextTryID(&row)
			row.Note = nil
		}
		out[i] = &row
	}
	return out
}

// restoredTask is the task instance a decoded task row holds (a legacy
// mapped one: its own, as the file has it, for the checks).
func restoredTask(obj any) *TaskInstance {
	if l, ok := obj.(*legacyMappedTask); ok {
		return l.ti
	}
	return obj.(*TaskInstance)
}

// taskInstance is the task instance a record holds.
func (r *snapTask) taskInstance() *TaskInstance {
	return &TaskInstance{
		ID: r.ID, DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, ExecutionDate: r.ExecutionDate, State: r.State,
		TryNumber: r.TryNumber, MaxTries: r.MaxTries, StartDate: r.StartDate, EndDate: r.EndDate,
		Duration: r.Duration, QueuedDttm: r.QueuedDttm, Pool: r.Pool, PoolSlots: r.PoolSlots,
		Queue: r.Queue, PriorityWeight: r.PriorityWeight, Operator: r.Operator, Hostname: r.Hostname,
		Unixname: r.Unixname, PID: r.PID, UpdatedAt: r.UpdatedAt, NextRetryAt: r.NextRetryAt,
		ProcIdentity: r.ProcIdentity, Note: r.Note, Rendered: r.Rendered, DagVersionID: r.DagVersionID,
		MapIndex: restoredMapIndex(r.MapIndex), RenderedMapIndex: r.RenderedMapIndex,
	}
}

// snapshotStats describes a written or restored snapshot.
type snapshotStats struct {
	Index int64 // the change index it holds
	Rows  int
	Bytes int64
}

// insertTaskRecords stores restored task instances: those of one run, one
// after another in the file, go into the store as one row.
func insertTaskRecords(r *storeRestore, objs []any) error {
	tis := make([]*TaskInstance, 0, len(objs))
	for _, obj := range objs {
		if l, ok := obj.(*legacyMappedTask); ok {
			tis = append(tis, l.rows()...)
			continue
		}
		tis = append(tis, obj.(*TaskInstance))
	}
	return r.InsertTaskInstances(tis)
}

// Row checks: what restore refuses in a row that decodes. Each returns
// the first problem it finds, or nil.

// maxRowID bounds run and pool ids and the counters in a snapshot: 2^53,
// the last integer that clients reading JSON numbers as doubles (Python's
// json with floats, JavaScript) hold exactly. Counting from 1 never
// reaches it; a larger value is a damaged or forged file, and near 2^63
// the next id would overflow.
const maxRowID = 1 << 53

// The dates a snapshot may hold: years 1 to 9999, Python datetime's range.
var (
	minRowDate = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxRowDate = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // excluded
)

func checkRowID(name string, id int64) error {
	if id < 1 || id > maxRowID {
		return fmt.Errorf("%s %d is outside 1 to %d", name, id, int64(maxRowID))
	}
	return nil
}

// checkRowKeys takes pairs of a key and its value, which must not be empty.
func checkRowKeys(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("%s is missing or empty", pairs[i])
		}
	}
	return nil
}

// namedDate is a date of a row and its key, for checkDates.
type namedDate struct {
	name string
	t    *time.Time // nil: none
}

func checkDates(dates ...namedDate) error {
	for _, d := range dates {
		if d.t != nil && (d.t.Before(minRowDate) || !d.t.Before(maxRowDate)) {
			return fmt.Errorf("%s %s is in year %d, outside 1 to 9999", d.name, d.t.Format(time.RFC3339Nano), d.t.UTC().Year())
		}
	}
	return nil
}

func checkNotNegative(name string, n int) error {
	if n < 0 {
		return fmt.Errorf("%s %d is negative", name, n)
	}
	return nil
}

func checkCounter(obj any) error {
	c := obj.(*counter)
	if c.Name == "" {
		return errors.New("name is missing or empty")
	}
	if err := checkRowID("value", c.Value); err != nil {
		return fmt.Errorf("counter %s: %w", c.Name, err)
	}
	return nil
}

func checkPool(obj any) error {
	p := obj.(*Pool)
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("pool name is missing or blank")
	}
	return checkRowID("id", p.ID)
}

func checkRun(obj any) error {
	r := obj.(*DagRun)
	if err := checkRowID("id", r.ID); err != nil {
		return err
	}
	if err := checkRowKeys("dag_id", r.DagID, "run_id", r.RunID); err != nil {
		return err
	}
	// Runs are keyed by each id and a NUL (stringPairIndex): a NUL in
	// the dag_id would make another run's key. DAG ids hold none (checkID).
	if strings.IndexByte(r.DagID, 0) >= 0 {
		return fmt.Errorf("dag_id %q holds a NUL", r.DagID)
	}
	if !r.State.Known() {
		return fmt.Errorf("state %q is not a run state", r.State)
	}
	if (r.DataIntervalStart == nil) != (r.DataIntervalEnd == nil) {
		return errors.New("data_interval_start and data_interval_end go together")
	}
	// Airflow 3's DagRun refuses a data interval without a logical date,
	// and its run_after is never null (airflow-core/src/airflow/models/dagrun.py).
	if r.NoLogicalDate && r.RunAfter.IsZero() {
		return errors.New("run_after is missing: a run without a logical date has one")
	}
	if r.NoLogicalDate && r.DataIntervalStart != nil {
		return errors.New("a run without a logical date has no data interval")
	}
	switch r.TriggeredBy {
	case "", "cli", "operator", "rest_api", "ui", "test", "timetable", "asset", "backfill":
	default: // airflow-core/src/airflow/utils/types.py DagRunTriggeredByType
		return fmt.Errorf("triggered_by %q is not a DagRunTriggeredByType", r.TriggeredBy)
	}
	if r.Note != nil && utf8.RuneCountInString(*r.Note) > maxRunNoteChars {
		return fmt.Errorf("note of %d characters is longer than %d", utf8.RuneCountInString(*r.Note), maxRunNoteChars)
	}
	return checkDates(namedDate{"execution_date", &r.ExecutionDate}, namedDate{"run_after", &r.RunAfter}, namedDate{"start_date", r.StartDate},
		namedDate{"end_date", r.EndDate}, namedDate{"queued_at", r.QueuedAt}, namedDate{"updated_at", r.UpdatedAt},
		namedDate{"data_interval_start", r.DataIntervalStart}, namedDate{"data_interval_end", r.DataIntervalEnd})
}

func checkTask(obj any) error {
	t := obj.(*TaskInstance)
	if err := checkRowKeys("dag_id", t.DagID, "run_id", t.RunID, "task_id", t.TaskID, "pool", t.Pool); err != nil {
		return err
	}
	if !t.State.Known() {
		return fmt.Errorf("state %q is not a task instance state", t.State)
	}
	if t.ID != "" {
		if _, err := uuid.Parse(t.ID); err != nil || len(t.ID) != 36 {
			return fmt.Errorf("id %q is not a UUID", t.ID)
		}
	}
	if t.PoolSlots < 1 {
		return fmt.Errorf("pool_slots %d is below 1", t.PoolSlots)
	}
	if err := checkMapIndex(t.MapIndex); err != nil {
		return err
	}
	if t.Note != nil && utf8.RuneCountInString(*t.Note) > maxTaskInstanceNoteChars {
		return fmt.Errorf("note of %d characters is longer than %d", utf8.RuneCountInString(*t.Note), maxTaskInstanceNoteChars)
	}
	if err := checkNotNegative("try_number", t.TryNumber); err != nil {
		return err
	}
	if err := checkNotNegative("max_tries", t.MaxTries); err != nil {
		return err
	}
	return checkDates(namedDate{"execution_date", &t.ExecutionDate}, namedDate{"start_date", t.StartDate},
		namedDate{"end_date", t.EndDate}, namedDate{"queued_dttm", t.QueuedDttm},
		namedDate{"updated_at", t.UpdatedAt}, namedDate{"next_retry_at", t.NextRetryAt})
}

// checkMapIndex refuses a map_index under -1: -1 is a task that is not
// mapped, 0 on its expanded instances.
func checkMapIndex(mapIndex int) error {
	if mapIndex < -1 {
		return fmt.Errorf("map_index %d is under -1", mapIndex)
	}
	return nil
}

// checkLegacyMapped checks a version 6 row's task instance, and each
// instance nested in it as the task instance it becomes (legacyMappedTask.rows).
func checkLegacyMapped(l *legacyMappedTask) error {
	if err := checkTask(l.ti); err != nil {
		return err
	}
	for i, mi := range l.mapped {
		if mi.MapIndex < 0 {
			return fmt.Errorf("mapped instance %d: map_index %d is negative", i+1, mi.MapIndex)
		}
		row := *l.ti
		row.MapIndex, row.State, row.TryNumber, row.StartDate, row.EndDate = mi.MapIndex, mi.State, mi.TryNumber, mi.StartDate, mi.EndDate
		if err := checkTask(&row); err != nil {
			return fmt.Errorf("mapped instance %d: %w", i+1, err)
		}
	}
	return nil
}

func checkTaskLog(obj any) error {
	l := obj.(*TaskLog)
	if err := checkRowKeys("dag_id", l.DagID, "run_id", l.RunID, "task_id", l.TaskID); err != nil {
		return err
	}
	if err := checkMapIndex(l.MapIndex); err != nil {
		return err
	}
	for _, t := range l.Tries {
		if err := checkNotNegative("try", t.Try); err != nil {
			return err
		}
	}
	return nil
}

// checkTryHistory refuses earlier tries airlite could not have kept:
// none, or more than maxLogTries; a try of another task instance; a try
// that had not ended, or still holds what only a current try has (a
// process, a retry time, a note); try numbers that do not rise from 1.
func checkTryHistory(obj any) error {
	h := obj.(*TaskInstanceHistory)
	if err := checkRowKeys("dag_id", h.DagID, "run_id", h.RunID, "task_id", h.TaskID); err != nil {
		return err
	}
	if err := checkNotNegative("dropped_tries", h.Dropped); err != nil {
		return err
	}
	if err := checkMapIndex(h.MapIndex); err != nil {
		return err
	}
	if n := len(h.Tries); n < 1 || n > maxLogTries {
		return fmt.Errorf("holds %d tries, not 1 to %d", n, maxLogTries)
	}
	last := 0
	for i, t := range h.Tries {
		if err := checkEarlierTry(h, t, last); err != nil {
			return fmt.Errorf("try %d of %d: %w", i+1, len(h.Tries), err)
		}
		last = t.TryNumber
	}
	return nil
}

// checkEarlierTry checks one try of h, whose previous try was number last.
func checkEarlierTry(h *TaskInstanceHistory, t *TaskInstance, last int) error {
	if t.DagID != h.DagID || t.RunID != h.RunID || t.TaskID != h.TaskID || t.MapIndex != h.MapIndex {
		return fmt.Errorf("names %s/%s/%s (map_index %d), not its row's task instance", t.DagID, t.RunID, t.TaskID, t.MapIndex)
	}
	if err := checkTask(t); err != nil {
		return err
	}
	switch {
	case !t.State.Finished():
		return fmt.Errorf("state %q is not the state of an ended try", t.State)
	case t.TryNumber <= last:
		return fmt.Errorf("try_number %d does not follow %d", t.TryNumber, last)
	case t.ProcIdentity != "" || t.NextRetryAt != nil || t.Note != nil:
		return errors.New("holds a process, a retry time or a note, which an ended try does not keep")
	}
	return nil
}

func checkVariable(obj any) error {
	v := obj.(*Variable)
	if err := checkRowKeys("key", v.Key); err != nil {
		return err
	}
	if v.IsEncrypted {
		return errors.New("is_encrypted is true: airlite keeps no encryption key")
	}
	return checkRowID("id", v.ID)
}

// maxEventChars is the log table's event column, String(60).
const maxEventChars = 60

func checkEventLog(obj any) error {
	e := obj.(*EventLog)
	if err := checkRowKeys("event", e.Event); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(e.Event); n > maxEventChars {
		return fmt.Errorf("event has %d characters, over %d", n, maxEventChars)
	}
	if e.TryNumber != nil {
		if err := checkNotNegative("try_number", *e.TryNumber); err != nil {
			return err
		}
	}
	if e.MapIndex != nil && *e.MapIndex < -1 {
		return fmt.Errorf("map_index %d is under -1", *e.MapIndex)
	}
	if err := checkDates(namedDate{"dttm", &e.When}, namedDate{"execution_date", e.ExecutionDate}); err != nil {
		return err
	}
	return checkRowID("id", e.ID)
}

func checkConnection(obj any) error {
	c := obj.(*Connection)
	if err := checkRowKeys("conn_id", c.ConnID); err != nil {
		return err
	}
	return checkRowID("id", c.ID)
}

func checkXCom(obj any) error {
	x := obj.(*XComEntry)
	if err := checkRowKeys("dag_id", x.DagID, "run_id", x.RunID, "task_id", x.TaskID, "key", x.Key); err != nil {
		return err
	}
	if err := checkRowID("dag_run_id", x.RunRowID); err != nil {
		return err
	}
	// The listing's order (indexXComOrder) keys the task_id and run_id
	// each with a NUL: a NUL in the task_id would make another entry's
	// key there. Task ids hold none (checkID).
	if strings.IndexByte(x.TaskID, 0) >= 0 {
		return fmt.Errorf("task_id %q holds a NUL", x.TaskID)
	}
	if x.MapIndex < -1 {
		return fmt.Errorf("map_index %d is under -1", x.MapIndex)
	}
	if x.Value != nil && !json.Valid(x.Value) {
		return errors.New("value is not JSON")
	}
	if n := x.MapLength; n != nil && (*n < 0 || *n > maxRecordedMapLength || x.MapIndex != -1) {
		return fmt.Errorf("map_length %d is not one a push of map_index %d records (0 to %d, map_index -1)", *n, x.MapIndex, maxRecordedMapLength)
	}
	return checkDates(namedDate{"timestamp", &x.Timestamp})
}
