package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	gojson "github.com/goccy/go-json"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
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
	snapshotFormat  = "airlite-snapshot"
	snapshotVersion = 1

	leaseFormat  = "airlite-id-lease"
	leaseVersion = 1
	// leaseBlock is how many ids the lease file reserves ahead; it is
	// extended when less than half of the block is left.
	leaseBlock = 1024

	// snapshotBadRefuse and snapshotBadMove are the values of
	// --snapshot-bad: what to do with a snapshot that cannot be read.
	snapshotBadRefuse = "refuse"
	snapshotBadMove   = "move"
)

// airliteVersion is written into snapshot headers; release builds set it
// with -ldflags "-X main.airliteVersion=…".
var airliteVersion = "dev"

// errSnapshotUnreadable marks a snapshot (or id lease) file that exists but
// cannot be loaded: truncated, corrupt, an unknown format or a newer
// version, or unreadable on disk.
var errSnapshotUnreadable = errors.New("snapshot unreadable")

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
// from the DAG files at start.

type snapDag struct {
	DagID     string `json:"dag_id"`
	IsPaused  bool   `json:"is_paused"`
	FileLoc   string `json:"fileloc"`
	RootDagID string `json:"root_dag_id,omitempty"`
}

type snapRun struct {
	ID              int64      `json:"id"`
	DagID           string     `json:"dag_id"`
	RunID           string     `json:"run_id"`
	ExecutionDate   time.Time  `json:"execution_date"`
	State           RunState   `json:"state"`
	Conf            *string    `json:"conf"`
	StartDate       *time.Time `json:"start_date"`
	EndDate         *time.Time `json:"end_date"`
	QueuedAt        *time.Time `json:"queued_at"`
	ExternalTrigger bool       `json:"external_trigger"`
	RunType         string     `json:"run_type"`
}

type snapTask struct {
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
}

type snapPool struct {
	ID              int64   `json:"id"`
	Name            string  `json:"pool"`
	Slots           int64   `json:"slots"`
	Description     *string `json:"description"`
	IncludeDeferred bool    `json:"include_deferred"`
}

type snapLineage struct {
	DagID   string  `json:"dag_id"`
	RunID   string  `json:"run_id"`
	TaskID  string  `json:"task_id"`
	Inlets  *string `json:"inlets"`
	Outlets *string `json:"outlets"`
}

type snapTaskLog struct {
	DagID  string    `json:"dag_id"`
	RunID  string    `json:"run_id"`
	TaskID string    `json:"task_id"`
	Tries  []snapTry `json:"tries"`
}

// snapTry keeps output that is not valid UTF-8 as base64, since a JSON
// string would replace the bad bytes.
type snapTry struct {
	Try       int    `json:"try"`
	Output    string `json:"output,omitempty"`
	OutputB64 []byte `json:"output_b64,omitempty"`
	Truncated bool   `json:"truncated"`
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
	// a time) instead of txn.Insert of each.
	insert func(txn *memdb.Txn, objs []any) error
}

// eachRecord calls fn with every object a stored row is written as.
func (c snapshotCodec) eachRecord(row any, fn func(obj any) error) error {
	if c.each == nil {
		return fn(row)
	}
	return c.each(row, fn)
}

// decodeInto returns a decode function for record type R. Rows are
// decoded with goccy/go-json, which reads these records four times faster
// than encoding/json: decoding was most of the time of a restore.
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
		}, decode: decodeInto(func(r *snapCounter) any { return &counter{Name: r.Name, Value: r.Value} })},
		{table: tableDags, encode: func(obj any) any {
			d := obj.(*DagRow)
			return &snapDag{DagID: d.DagID, IsPaused: d.IsPaused, FileLoc: d.FileLoc, RootDagID: d.RootDagID}
		}, decode: decodeInto(func(r *snapDag) any {
			return &DagRow{DagID: r.DagID, IsPaused: r.IsPaused, FileLoc: r.FileLoc, RootDagID: r.RootDagID}
		})},
		{table: tablePools, encode: func(obj any) any {
			p := obj.(*Pool)
			return &snapPool{ID: p.ID, Name: p.Name, Slots: p.Slots, Description: p.Description, IncludeDeferred: p.IncludeDeferred}
		}, decode: decodeInto(func(r *snapPool) any {
			return &Pool{ID: r.ID, Name: r.Name, Slots: r.Slots, Description: r.Description, IncludeDeferred: r.IncludeDeferred}
		})},
		{table: tableDagRuns, encode: func(obj any) any {
			r := obj.(*DagRun)
			return &snapRun{
				ID: r.ID, DagID: r.DagID, RunID: r.RunID, ExecutionDate: r.ExecutionDate.UTC(), State: r.State,
				Conf: rawToString(r.Conf), StartDate: utcPtr(r.StartDate), EndDate: utcPtr(r.EndDate),
				QueuedAt: utcPtr(r.QueuedAt), ExternalTrigger: r.ExternalTrigger, RunType: r.RunType,
			}
		}, decode: decodeInto(func(r *snapRun) any {
			return &DagRun{
				ID: r.ID, DagID: r.DagID, RunID: r.RunID, ExecutionDate: r.ExecutionDate, State: r.State,
				Conf: stringToRaw(r.Conf), StartDate: r.StartDate, EndDate: r.EndDate, QueuedAt: r.QueuedAt,
				ExternalTrigger: r.ExternalTrigger, RunType: r.RunType,
			}
		})},
		// A run's task instances are one row in the store and one record
		// each in the file, as the file has always held them.
		{table: tableTasks, each: func(row any, fn func(obj any) error) error {
			for _, ti := range row.(*runTasks).TIs {
				if err := fn(ti); err != nil {
					return err
				}
			}
			return nil
		}, insert: insertTaskRecords, encode: func(obj any) any {
			t := obj.(*TaskInstance)
			return &snapTask{
				DagID: t.DagID, RunID: t.RunID, TaskID: t.TaskID, ExecutionDate: t.ExecutionDate.UTC(), State: t.State,
				TryNumber: t.TryNumber, MaxTries: t.MaxTries, StartDate: utcPtr(t.StartDate), EndDate: utcPtr(t.EndDate),
				Duration: t.Duration, QueuedDttm: utcPtr(t.QueuedDttm), Pool: t.Pool, PoolSlots: t.PoolSlots,
				Queue: t.Queue, PriorityWeight: t.PriorityWeight, Operator: t.Operator, Hostname: t.Hostname,
				Unixname: t.Unixname, PID: t.PID, UpdatedAt: utcPtr(t.UpdatedAt), NextRetryAt: utcPtr(t.NextRetryAt),
			}
		}, decode: decodeInto(func(r *snapTask) any {
			return &TaskInstance{
				DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID, ExecutionDate: r.ExecutionDate, State: r.State,
				TryNumber: r.TryNumber, MaxTries: r.MaxTries, StartDate: r.StartDate, EndDate: r.EndDate,
				Duration: r.Duration, QueuedDttm: r.QueuedDttm, Pool: r.Pool, PoolSlots: r.PoolSlots,
				Queue: r.Queue, PriorityWeight: r.PriorityWeight, Operator: r.Operator, Hostname: r.Hostname,
				Unixname: r.Unixname, PID: r.PID, UpdatedAt: r.UpdatedAt, NextRetryAt: r.NextRetryAt,
			}
		})},
		{table: tableLineage, encode: func(obj any) any {
			l := obj.(*LineageRecord)
			return &snapLineage{DagID: l.DagID, RunID: l.RunID, TaskID: l.TaskID,
				Inlets: rawToString(l.Inlets), Outlets: rawToString(l.Outlets)}
		}, decode: decodeInto(func(r *snapLineage) any {
			return &LineageRecord{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID,
				Inlets: stringToRaw(r.Inlets), Outlets: stringToRaw(r.Outlets)}
		})},
		{table: tableTaskLogs, encode: func(obj any) any {
			l := obj.(*TaskLog)
			rec := &snapTaskLog{DagID: l.DagID, RunID: l.RunID, TaskID: l.TaskID}
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
			l := &TaskLog{DagID: r.DagID, RunID: r.RunID, TaskID: r.TaskID}
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
		})},
	}
}

// hashWriter feeds everything written through it to a hash.
type hashWriter struct {
	w io.Writer
	h hash.Hash32
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	return n, err
}

// snapshotStats describes a written or restored snapshot.
type snapshotStats struct {
	Index int64 // the change index it holds
	Rows  int
	Bytes int64
}

// writeSnapshot writes the store's state as of one read transaction to
// path, atomically: a temporary file in the same folder, flushed, synced,
// renamed over the previous snapshot, and the folder synced. Writers are
// never blocked. On any error the previous snapshot is untouched and the
// temporary file removed.
func writeSnapshot(store *Store, path string, now time.Time) (stats snapshotStats, err error) {
	txn := store.read() // a point-in-time view for the whole file
	file, err := createAtomic(path, 0o600)
	if err != nil {
		return stats, fmt.Errorf("create snapshot: %w", err)
	}
	defer file.Abort() // removes the temporary file unless committed
	crc := crc32.New(crc32c)
	bw := bufio.NewWriterSize(&hashWriter{w: file, h: crc}, 1<<20)
	// goccy/go-json encodes rows with far fewer allocations than
	// encoding/json, which keeps the collector off the request path while
	// a snapshot of a large state is written.
	enc := gojson.NewEncoder(bw)
	enc.SetEscapeHTML(false)

	codecs := snapshotCodecs()
	header := snapshotHeader{
		Format: snapshotFormat, Version: snapshotVersion, Index: counterValue(txn, counterChange),
		CreatedAt: now.UTC(), AirliteVersion: airliteVersion,
	}
	for _, c := range codecs {
		header.Tables = append(header.Tables, c.table)
	}
	if err := enc.Encode(&header); err != nil {
		return stats, fmt.Errorf("write snapshot header: %w", err)
	}
	stats.Index = header.Index
	for _, c := range codecs {
		n, err := countRecords(txn, c)
		if err != nil {
			return stats, err
		}
		if err := enc.Encode(&sectionHeader{Table: c.table, Rows: n}); err != nil {
			return stats, fmt.Errorf("write table %s: %w", c.table, err)
		}
		it, err := txn.Get(c.table, indexID)
		if err != nil {
			return stats, fmt.Errorf("list %s: %w", c.table, err)
		}
		written := 0
		writeRecord := func(obj any) error {
			if err := enc.Encode(c.encode(obj)); err != nil {
				return fmt.Errorf("write table %s: %w", c.table, err)
			}
			written++
			return nil
		}
		for row := it.Next(); row != nil; row = it.Next() {
			if err := c.eachRecord(row, writeRecord); err != nil {
				return stats, err
			}
		}
		if written != n {
			return stats, fmt.Errorf("write table %s: counted %d rows, listed %d", c.table, n, written)
		}
		stats.Rows += n
	}
	if err := bw.Flush(); err != nil {
		return stats, fmt.Errorf("write snapshot: %w", err)
	}
	footer := snapshotFooter{End: snapshotFormat, Tables: len(codecs), Rows: stats.Rows, CRC32C: fmt.Sprintf("%08x", crc.Sum32())}
	if err := enc.Encode(&footer); err != nil {
		return stats, fmt.Errorf("write snapshot end: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return stats, fmt.Errorf("write snapshot: %w", err)
	}
	stats.Bytes = file.Size()
	if err := file.Commit(); err != nil {
		return stats, fmt.Errorf("commit snapshot: %w", err)
	}
	return stats, nil
}

// countRecords counts the records a table is written as.
func countRecords(txn *memdb.Txn, c snapshotCodec) (int, error) {
	it, err := txn.Get(c.table, indexID)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", c.table, err)
	}
	n := 0
	count := func(any) error { n++; return nil }
	for row := it.Next(); row != nil; row = it.Next() {
		_ = c.eachRecord(row, count) // count never fails
	}
	return n, nil
}

// insertTaskRecords stores restored task instances: those of one run, one
// after another in the file, go into the store as one row.
func insertTaskRecords(txn *memdb.Txn, objs []any) error {
	tis := make([]*TaskInstance, len(objs))
	for i, obj := range objs {
		tis[i] = obj.(*TaskInstance)
	}
	return putTaskInstancesTxn(txn, tis...)
}

// maxHeaderLine bounds the first and last lines of a snapshot, which are
// read before the rest.
const maxHeaderLine = 64 << 10

// restoreSnapshot reads a snapshot into a fresh store, in one write
// transaction committed only when every row is in: the result is the whole
// snapshot or an error, never a part. A missing file is fs.ErrNotExist;
// a file that cannot be loaded is errSnapshotUnreadable.
func restoreSnapshot(path string) (*Store, snapshotStats, error) {
	var stats snapshotStats
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, stats, err
	}
	if err != nil {
		return nil, stats, badSnapshot(path, err, "cannot open")
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, stats, badSnapshot(path, err, "cannot stat")
	}
	size := info.Size()

	// 1. The header: format and version before anything else.
	first, err := bufio.NewReaderSize(io.LimitReader(f, maxHeaderLine), maxHeaderLine).ReadBytes('\n')
	if err != nil {
		if size == 0 {
			return nil, stats, badSnapshot(path, nil, "empty file")
		}
		return nil, stats, badSnapshot(path, nil, "truncated or corrupt: no complete header line")
	}
	var header snapshotHeader
	if err := json.Unmarshal(first, &header); err != nil {
		return nil, stats, badSnapshot(path, err, "corrupt header")
	}
	if header.Format != snapshotFormat {
		return nil, stats, badSnapshot(path, nil, "unknown format %q (want %q)", header.Format, snapshotFormat)
	}
	if header.Version > snapshotVersion {
		return nil, stats, badSnapshot(path, nil,
			"written by a newer airlite (%s) in snapshot format version %d; this airlite (%s) reads up to version %d",
			header.AirliteVersion, header.Version, airliteVersion, snapshotVersion)
	}
	if header.Version < 1 {
		return nil, stats, badSnapshot(path, nil, "unknown snapshot format version %d", header.Version)
	}
	headerEnd := int64(len(first))

	// 2. The end line and the checksum of everything before it.
	footerStart, footer, err := readFooter(f, size, headerEnd)
	if err != nil {
		return nil, stats, badSnapshot(path, err, "truncated or corrupt")
	}
	crc := crc32.New(crc32c)
	if _, err := io.Copy(crc, io.NewSectionReader(f, 0, footerStart)); err != nil {
		return nil, stats, badSnapshot(path, err, "cannot read")
	}
	if got := fmt.Sprintf("%08x", crc.Sum32()); got != footer.CRC32C {
		return nil, stats, badSnapshot(path, nil, "corrupt: checksum %s, the end line says %s", got, footer.CRC32C)
	}

	// 3. The rows, into a fresh store in one transaction.
	store, err := newStore()
	if err != nil {
		return nil, stats, err
	}
	txn := store.db.Txn(true)
	defer txn.Abort()
	codecs := map[string]snapshotCodec{}
	for _, c := range snapshotCodecs() {
		codecs[c.table] = c
	}
	body := io.NewSectionReader(f, headerEnd, footerStart-headerEnd)
	// Decoding and inserting overlap: one goroutine decodes rows into
	// batches, this one inserts them. The decoder owns the file reader,
	// this goroutine the transaction.
	batches := make(chan rowBatch, 8)
	quit := make(chan struct{})
	decoded := make(chan decodeResult, 1)
	go func() { decoded <- decodeSections(path, body, codecs, batches, quit) }()
	var maxRunID, maxPoolID int64
	var insertErr error
	for batch := range batches {
		if insertErr != nil {
			continue // drain until the decoder sees quit
		}
		if insert := codecs[batch.table].insert; insert != nil {
			if err := insert(txn, batch.rows); err != nil {
				insertErr = badSnapshot(path, err, "rows %d to %d of table %s do not fit",
					batch.first+1, batch.first+len(batch.rows), batch.table)
				close(quit)
			}
			continue
		}
		for i, obj := range batch.rows {
			switch o := obj.(type) {
			case *DagRun:
				maxRunID = max(maxRunID, o.ID)
			case *Pool:
				maxPoolID = max(maxPoolID, o.ID)
			}
			if err := txn.Insert(batch.table, obj); err != nil {
				insertErr = badSnapshot(path, err, "row %d of table %s does not fit", batch.first+i+1, batch.table)
				close(quit)
				break
			}
		}
	}
	res := <-decoded
	if insertErr != nil {
		return nil, stats, insertErr
	}
	if res.err != nil {
		return nil, stats, res.err
	}
	stats.Rows = res.rows
	seen := res.tables
	if stats.Rows != footer.Rows || len(seen) != footer.Tables {
		return nil, stats, badSnapshot(path, nil, "holds %d rows in %d tables, the end line says %d in %d",
			stats.Rows, len(seen), footer.Rows, footer.Tables)
	}
	if err := recountRunsTxn(txn); err != nil {
		return nil, stats, err
	}
	// Ids keep counting from the highest id restored, whatever the
	// counters say.
	for _, c := range []struct {
		name string
		max  int64
	}{{counterRunID, maxRunID}, {counterPoolID, maxPoolID}} {
		if counterValue(txn, c.name) < c.max {
			if err := txn.Insert(tableCounters, &counter{Name: c.name, Value: c.max}); err != nil {
				return nil, stats, fmt.Errorf("restore counter %s: %w", c.name, err)
			}
		}
	}
	txn.Commit()
	stats.Index = counterValue(store.read(), counterChange)
	stats.Bytes = size
	return store, stats, nil
}

// rowBatch is a run of decoded rows of one table.
type rowBatch struct {
	table string
	first int // index of rows[0] in its table
	rows  []any
}

type decodeResult struct {
	rows   int
	tables map[string]bool
	err    error
}

// decodeSections decodes every table section of body, a section header
// line then one line per row, and sends the rows in batches; it closes
// batches when done and stops early when quit is closed.
func decodeSections(path string, body io.Reader, codecs map[string]snapshotCodec, batches chan<- rowBatch, quit <-chan struct{}) (res decodeResult) {
	defer close(batches)
	defer func() {
		// A decoder bug must not take the process down with a bad file.
		if v := recover(); v != nil {
			res.err = badSnapshot(path, fmt.Errorf("decoder panicked: %v", v), "corrupt")
		}
	}()
	const batchSize = 512
	res.tables = map[string]bool{}
	r := bufio.NewReaderSize(body, 1<<20)
	for {
		line, err := readLine(r)
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.err = badSnapshot(path, err, "cannot read")
			return res
		}
		var sec sectionHeader
		if err := json.Unmarshal(line, &sec); err != nil {
			res.err = badSnapshot(path, err, "corrupt table header")
			return res
		}
		c, ok := codecs[sec.Table]
		if !ok {
			res.err = badSnapshot(path, nil, "unknown table %q", sec.Table)
			return res
		}
		if res.tables[sec.Table] {
			res.err = badSnapshot(path, nil, "table %s appears twice", sec.Table)
			return res
		}
		res.tables[sec.Table] = true
		batch := rowBatch{table: sec.Table}
		for i := 0; i < sec.Rows; i++ {
			line, err := readLine(r)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				res.err = badSnapshot(path, err, "corrupt row %d of table %s", i+1, sec.Table)
				return res
			}
			obj, err := c.decode(line)
			if err != nil {
				res.err = badSnapshot(path, err, "corrupt row %d of table %s", i+1, sec.Table)
				return res
			}
			batch.rows = append(batch.rows, obj)
			if len(batch.rows) == batchSize || i == sec.Rows-1 {
				select {
				case batches <- batch:
				case <-quit:
					return res
				}
				batch = rowBatch{table: sec.Table, first: i + 1, rows: make([]any, 0, batchSize)}
			}
		}
		res.rows += sec.Rows
	}
}

// readLine returns the next line without its newline. The slice is valid
// until the next read; records are decoded before that.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A line longer than the buffer (a task log of many tries): gather it.
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err == io.EOF && len(line) > 0 {
		return nil, io.ErrUnexpectedEOF // the body always ends with a newline
	}
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// readFooter finds and decodes the last line of a snapshot and returns
// where it starts.
func readFooter(f *os.File, size, headerEnd int64) (int64, snapshotFooter, error) {
	var footer snapshotFooter
	tailLen := min(size-headerEnd, maxHeaderLine)
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, size-tailLen); err != nil {
		return 0, footer, fmt.Errorf("read end line: %w", err)
	}
	if len(tail) == 0 || tail[len(tail)-1] != '\n' {
		return 0, footer, errors.New("no end line")
	}
	start := bytes.LastIndexByte(tail[:len(tail)-1], '\n') + 1
	if start == 0 && tailLen == maxHeaderLine {
		return 0, footer, errors.New("no end line")
	}
	line := tail[start:]
	if err := json.Unmarshal(line, &footer); err != nil || footer.End != snapshotFormat {
		return 0, footer, errors.New("no end line")
	}
	return size - tailLen + int64(start), footer, nil
}

// idLease is the id lease file: ids up to these values may have been
// handed out. The snapshot is written only every interval, so a crash
// loses the runs created since; the lease makes sure that their ids are
// not handed out again after the restart (spec §4: never reused, also
// across restarts). It is written before the counters reach it, a block
// ahead, and set back to the exact counters after a clean shutdown.
type idLease struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	DagRun  int64  `json:"dag_run"`
	Pool    int64  `json:"pool"`
}

func leasePath(snapshotPath string) string { return snapshotPath + ".ids" }

func readLease(path string) (idLease, error) {
	var l idLease
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, err
	}
	if err != nil {
		return l, badSnapshot(path, err, "cannot read id lease")
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, badSnapshot(path, err, "corrupt id lease")
	}
	if l.Format != leaseFormat {
		return l, badSnapshot(path, nil, "unknown id lease format %q", l.Format)
	}
	if l.Version > leaseVersion || l.Version < 1 {
		return l, badSnapshot(path, nil, "id lease version %d; this airlite reads up to %d", l.Version, leaseVersion)
	}
	return l, nil
}

func writeLease(path string, runID, poolID int64) error {
	data, err := json.Marshal(idLease{Format: leaseFormat, Version: leaseVersion, DagRun: runID, Pool: poolID})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write id lease: %w", err)
	}
	return nil
}

// raiseCounters makes the id counters at least the given values.
func raiseCounters(store *Store, runID, poolID int64) error {
	return store.update(func(txn *memdb.Txn) error {
		for _, c := range []struct {
			name string
			v    int64
		}{{counterRunID, runID}, {counterPoolID, poolID}} {
			if counterValue(txn, c.name) < c.v {
				if err := txn.Insert(tableCounters, &counter{Name: c.name, Value: c.v}); err != nil {
					return fmt.Errorf("raise counter %s: %w", c.name, err)
				}
			}
		}
		return nil
	})
}

// moveAside renames a bad file to <name>.bad-<UTC time>; it never deletes.
func moveAside(path string, now time.Time) (string, error) {
	dest := path + ".bad-" + now.UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(path, dest); err != nil {
		return "", fmt.Errorf("move %s aside: %w", path, err)
	}
	return dest, nil
}

// openStore builds the store airlite starts with: restored from the
// snapshot when there is one, then the DAG files loaded over it, orphaned
// task instances resolved, and the id lease taken. It returns the
// snapshotter to start once serving, or nil with --snapshot off. A
// snapshot that cannot be read stops the start, unless
// --snapshot-bad=move, which moves it aside and starts empty.
func openStore(c config, dags *DAGSet, logger zerolog.Logger) (*Store, *snapshotter, error) {
	if c.Snapshot == "off" {
		store, err := newStore()
		if err != nil {
			return nil, nil, err
		}
		if err := store.LoadDAGs(dags); err != nil {
			return nil, nil, fmt.Errorf("load dags: %w", err)
		}
		return store, nil, nil
	}
	log := logger.With().Str("component", "snapshot").Logger()
	for _, dir := range []string{c.Home, filepath.Dir(c.Snapshot)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			log.Error().Err(err).Str("dir", dir).Msg("create snapshot folder; serving anyway, snapshots will be retried")
		}
	}
	now := time.Now()
	store, stats, err := restoreSnapshot(c.Snapshot)
	lease, leaseErr := readLease(leasePath(c.Snapshot))
	for _, bad := range []struct {
		path string
		err  error
	}{{c.Snapshot, err}, {leasePath(c.Snapshot), leaseErr}} {
		if bad.err == nil || errors.Is(bad.err, fs.ErrNotExist) {
			continue
		}
		if c.SnapshotBad != snapshotBadMove {
			return nil, nil, fmt.Errorf("refuse to start: %w; the file is left as it is: "+
				"to start anyway, run with --snapshot-bad=move, which moves it to %s.bad-<time> and starts without it",
				bad.err, bad.path)
		}
		dest, merr := moveAside(bad.path, now)
		if merr != nil {
			return nil, nil, merr
		}
		log.Warn().AnErr("problem", bad.err).Str("moved_to", dest).Msg("unreadable file moved aside (--snapshot-bad=move)")
	}
	restored := err == nil
	if !restored {
		if store, err = newStore(); err != nil {
			return nil, nil, err
		}
	}
	if leaseErr == nil {
		if err := raiseCounters(store, lease.DagRun, lease.Pool); err != nil {
			return nil, nil, err
		}
	}
	if err := store.LoadDAGs(dags); err != nil {
		return nil, nil, fmt.Errorf("load dags: %w", err)
	}
	if restored {
		runs := counterValue(store.read(), counterRunID)
		log.Info().Str("path", c.Snapshot).Int64("index", stats.Index).Int("rows", stats.Rows).
			Int64("bytes", stats.Bytes).Int64("last_run_id", runs).Msg("snapshot restored")
		if err := reportDagsWithoutFile(store, log); err != nil {
			return nil, nil, err
		}
		if _, err := resolveOrphans(store, c.Edition, now, log); err != nil {
			return nil, nil, err
		}
	}
	sn := newSnapshotter(store, c.Snapshot, c.SnapshotInterval, log)
	sn.renewLease() // before the first request; on failure it is retried
	return store, sn, nil
}

// reportDagsWithoutFile logs every DAG whose file is gone but whose rows
// were restored: its runs are kept, as Airflow keeps them.
func reportDagsWithoutFile(store *Store, log zerolog.Logger) error {
	rows, err := store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.Def != nil {
			continue
		}
		runs, err := store.RunsOfDag(row.DagID, "")
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(runs))
		for _, r := range runs {
			ids = append(ids, r.RunID)
		}
		log.Warn().Str("dag_id", row.DagID).Str("fileloc", row.FileLoc).Int("runs", len(runs)).
			Str("run_ids", strings.Join(ids, ",")).Msg("dag has no file any more; its runs are kept")
	}
	return nil
}

// resolveOrphans decides what becomes of task instances that were queued
// or running when the snapshot was taken: their process is gone, so they
// cannot still be running. airlite does what Airflow does with such
// orphans:
//
//   - Airflow 2.10.3 (SchedulerJobRunner.adopt_or_reset_orphaned_tasks,
//     run once at scheduler start): task instances in an adoptable state
//     (queued, running, restarting) whose scheduler job is no longer
//     running, in running non-backfill runs, are offered to the executor;
//     the Local and Sequential executors adopt none (BaseExecutor.
//     try_adopt_task_instances returns them all), so every one is reset
//     to state None. The scheduler schedules it again, as a new try.
//   - Airflow 1.10.15 (BaseJob.reset_state_for_orphaned_tasks at scheduler
//     start): scheduled and queued task instances are reset to None;
//     running ones are zombies (their LocalTaskJob stopped heartbeating)
//     and go through handle_failure: up_for_retry when the task has
//     retries and try_number <= max_tries, else failed.
//
// Airflow only looks at running runs; airlite applies the same rule to a
// task instance of any run, since none can still be running. Each one is
// logged. It returns how many were changed.
func resolveOrphans(store *Store, ed edition, now time.Time, log zerolog.Logger) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	states := []TaskState{TaskQueued, TaskRunning}
	if ed.isAirflow1() {
		states = append(states, TaskScheduled)
	}
	changed := 0
	err := store.update(func(txn *memdb.Txn) error {
		changed = 0
		var orphans []*TaskInstance
		for _, state := range states {
			tis, err := taskInstancesInStateTxn(txn, state)
			if err != nil {
				return err
			}
			orphans = append(orphans, tis...)
		}
		for _, old := range orphans {
			ti := *old
			key := tiKey{ti.DagID, ti.RunID, ti.TaskID}
			ti.UpdatedAt = &now
			zombie := ed.isAirflow1() && old.State == TaskRunning
			if zombie {
				ti.EndDate = &now
				if ti.StartDate != nil {
					d := now.Sub(*ti.StartDate).Seconds()
					ti.Duration = &d
				}
				ti.State = TaskFailed
				if ti.MaxTries > 0 && ti.TryNumber <= ti.MaxTries {
					ti.State = TaskUpForRetry
					next := now
					if row, err := dagRowTxn(txn, ti.DagID); err == nil && row.Def != nil {
						if task := row.Def.Task(ti.TaskID); task != nil {
							next = now.Add(retryDelay(task, &ti))
						}
					}
					ti.NextRetryAt = &next
				}
			} else {
				ti.State, ti.NextRetryAt = TaskNone, nil
			}
			if err := putTaskInstancesTxn(txn, &ti); err != nil {
				return fmt.Errorf("reset orphaned task %s: %w", key, err)
			}
			if old.State == TaskRunning {
				reason := "airlite stopped while this try was running; the task instance was reset at restart"
				if zombie {
					reason = "airlite stopped while this try was running; the try is failed at restart (a zombie)"
				}
				if err := appendTaskLogTxn(txn, key, taskOutcome{state: TaskFailed, reason: reason}.tryLog(old.TryNumber)); err != nil {
					return fmt.Errorf("log orphaned task %s: %w", key, err)
				}
			}
			state := string(ti.State)
			if state == "" {
				state = "None"
			}
			log.Warn().Str("task", key.String()).Int("try", old.TryNumber).Str("was", string(old.State)).
				Str("now", state).Msg("orphaned task instance resolved at restart")
			changed++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("resolve orphaned tasks: %w", err)
	}
	return changed, nil
}

// snapshotter writes the store to its snapshot file every interval when
// the state changed, keeps the id lease ahead of the id counters, and
// writes a last snapshot at stop. Its loops own lastIndex, failing and
// lease; stop waits for them before the final write.
type snapshotter struct {
	store    *Store
	path     string
	interval time.Duration
	log      zerolog.Logger
	now      func() time.Time

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	lastIndex    int64 // change index of the last snapshot written
	written      bool  // a snapshot was written by this process
	failing      bool  // the last write failed (logged once per episode)
	lease        idLease
	leaseFailing bool
}

func newSnapshotter(store *Store, path string, interval time.Duration, log zerolog.Logger) *snapshotter {
	ctx, cancel := context.WithCancel(context.Background())
	return &snapshotter{store: store, path: path, interval: interval, log: log, now: time.Now, ctx: ctx, cancel: cancel}
}

// start launches the snapshot loop and the lease loop.
func (sn *snapshotter) start() {
	sn.wg.Add(2)
	go func() {
		defer sn.wg.Done()
		sn.loop()
	}()
	go func() {
		defer sn.wg.Done()
		sn.leaseLoop()
	}()
}

// stop ends the loops, writes a final snapshot and, when it is written,
// sets the id lease back to the exact counters so that ids continue from
// the highest one after a clean restart. Call it once nothing writes to
// the store any more (HTTP server shut down, scheduler stopped).
func (sn *snapshotter) stop() error {
	sn.cancel()
	sn.wg.Wait()
	if err := sn.write(); err != nil {
		return fmt.Errorf("write final snapshot: %w", err)
	}
	txn := sn.store.read()
	if err := writeLease(leasePath(sn.path), counterValue(txn, counterRunID), counterValue(txn, counterPoolID)); err != nil {
		return err
	}
	return nil
}

func (sn *snapshotter) loop() {
	ticker := time.NewTicker(sn.interval)
	defer ticker.Stop()
	for {
		select {
		case <-sn.ctx.Done():
			return
		case <-ticker.C:
		}
		_ = sn.write() // logged there; retried at the next tick
	}
}

// write writes a snapshot when the change index moved since the last one.
// A failure is logged once per episode; the previous snapshot stays.
func (sn *snapshotter) write() error {
	if sn.written && sn.store.ChangeIndex() == sn.lastIndex {
		return nil
	}
	start := time.Now()
	stats, err := writeSnapshot(sn.store, sn.path, sn.now())
	if err != nil {
		if !sn.failing {
			sn.log.Error().Err(err).Str("path", sn.path).
				Msg("snapshot not written; the previous one is kept, serving on and retrying every interval")
		}
		sn.failing = true
		return err
	}
	if sn.failing {
		sn.log.Info().Str("path", sn.path).Msg("snapshot written again")
	}
	sn.failing, sn.written, sn.lastIndex = false, true, stats.Index
	sn.log.Debug().Int64("index", stats.Index).Int("rows", stats.Rows).Int64("bytes", stats.Bytes).
		Dur("took", time.Since(start)).Msg("snapshot written")
	return nil
}

// leaseLoop extends the id lease whenever a counter comes within half a
// block of it; it wakes on every change of the counters.
func (sn *snapshotter) leaseLoop() {
	for {
		ws := memdb.NewWatchSet()
		sn.renewLeaseWatch(ws)
		ctx := sn.ctx
		var cancel context.CancelFunc = func() {}
		if sn.leaseFailing {
			ctx, cancel = context.WithTimeout(sn.ctx, sn.interval)
		}
		err := ws.WatchCtx(ctx)
		cancel()
		if err != nil && sn.ctx.Err() != nil {
			return
		}
	}
}

// renewLease extends the lease file when needed.
func (sn *snapshotter) renewLease() { sn.renewLeaseWatch(nil) }

func (sn *snapshotter) renewLeaseWatch(ws memdb.WatchSet) {
	txn := sn.store.read()
	runCh, runObj, _ := txn.FirstWatch(tableCounters, indexID, counterRunID)
	poolCh, poolObj, _ := txn.FirstWatch(tableCounters, indexID, counterPoolID)
	if ws != nil {
		ws.Add(runCh)
		ws.Add(poolCh)
	}
	var run, pool int64
	if runObj != nil {
		run = runObj.(*counter).Value
	}
	if poolObj != nil {
		pool = poolObj.(*counter).Value
	}
	if sn.lease.Format != "" && run <= sn.lease.DagRun-leaseBlock/2 && pool <= sn.lease.Pool-leaseBlock/2 {
		return
	}
	next := idLease{Format: leaseFormat, Version: leaseVersion, DagRun: run + leaseBlock, Pool: pool + leaseBlock}
	if err := writeLease(leasePath(sn.path), next.DagRun, next.Pool); err != nil {
		if !sn.leaseFailing {
			sn.log.Error().Err(err).Msg("id lease not written; retrying (after a crash, run ids handed out since may be reused)")
		}
		sn.leaseFailing = true
		return
	}
	if sn.leaseFailing {
		sn.log.Info().Msg("id lease written again")
	}
	sn.leaseFailing, sn.lease = false, next
}
