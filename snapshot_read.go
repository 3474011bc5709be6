package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
)

// maxHeaderLine bounds the first and last lines of a snapshot, which are
// read before the rest.
const maxHeaderLine = 64 << 10

// restoreSnapshot reads a snapshot into a fresh store through a restore
// (storeRestore) committed only when every row is in: the result is the
// whole snapshot or an error, never a part. Every row is checked (its codec's
// check and runOf), so that nothing is loaded that airlite could not have
// written. A missing file is fs.ErrNotExist, a folder errIsDirectory; a
// file that cannot be loaded, or holds an invalid row, is
// errSnapshotUnreadable. When ctx ends (a signal during start-up), the
// restore stops between batches of rows with an error that says so and
// wraps ctx's cause; the file is not to blame.
func restoreSnapshot(ctx context.Context, path string) (*Store, snapshotStats, error) {
	var stats snapshotStats
	if err := ctx.Err(); err != nil {
		return nil, stats, restoreStopped(ctx, path)
	}
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
	if info.IsDir() {
		return nil, stats, fmt.Errorf("read snapshot %s: %w", path, errIsDirectory)
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
	if _, err := io.CopyBuffer(crc, ctxReader{ctx, io.NewSectionReader(f, 0, footerStart)}, make([]byte, 1<<20)); err != nil {
		if ctx.Err() != nil {
			return nil, stats, restoreStopped(ctx, path)
		}
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
	restore, err := store.Restore()
	if err != nil {
		return nil, stats, err
	}
	defer restore.Abort()
	codecs := map[string]snapshotCodec{}
	for _, c := range snapshotCodecs() {
		codecs[c.table] = c
	}
	// The definitions file the header names is left unread: the start
	// reads it only when it needs a definition from it (a DAG its files
	// no longer give), and a snapshot written before the start names what
	// it holds (definitionRefs).
	if header.Definitions != "" {
		store.definitions.leaveRestored(path, header.Definitions)
	}
	body := io.NewSectionReader(f, headerEnd, footerStart-headerEnd)
	// Decoding and inserting overlap: one goroutine decodes rows into
	// batches, this one inserts them. The decoder owns the file reader,
	// this goroutine the restore.
	batches := make(chan rowBatch, 8)
	quit := make(chan struct{})
	decoded := make(chan decodeResult, 1)
	go func() { decoded <- decodeSections(path, body, codecs, batches, quit) }()
	var insertErr error
	fail := func(err error) {
		insertErr = err
		close(quit)
	}
	// Per table, each id and each name a row must hold alone -> its row.
	// go-memdb refuses no duplicate: a second row under a primary key
	// replaces the first, and one under another unique index hides the
	// first from it, so a file holding one twice would lose a row
	// without a word.
	rowIDs := map[string]map[int64]int{tableDagRuns: {}, tablePools: {}, tableVariables: {}, tableConns: {}, tableEventLogs: {},
		tableAssets: {}, tableAssetEvents: {}, tableAssetAliases: {}, tableBackfills: {}, tableBackfillRuns: {}}
	refuseDuplicate := func(table string, id int64, row int) bool {
		if other, ok := rowIDs[table][id]; ok {
			fail(badSnapshot(path, nil, "invalid row %d of table %s: id %d appears twice, in row %d too", row, table, id, other))
			return true
		}
		rowIDs[table][id] = row
		return false
	}
	// refuseNoParent refuses a row that goes with the parent it names by
	// id when the parent goes, where the file holds no such parent in an
	// earlier table, as runOf refuses a row of no run.
	refuseNoParent := func(table, parents, what string, id int64, row int) bool {
		if _, ok := rowIDs[parents][id]; !ok {
			fail(badSnapshot(path, nil, "invalid row %d of table %s: no %s with id %d in table %s before it", row, table, what, id, parents))
			return true
		}
		return false
	}
	rowKeys := map[string]map[[2]string]int{tableDags: {}, tableDagRuns: {}, tablePools: {}, tableVariables: {}, tableConns: {},
		tableAssets: {}, tableAssetAliases: {}}
	// refuseKeyTwice is refuseDuplicate for a row's natural key (one or
	// two strings); what says it, with explicit argument indexes.
	refuseKeyTwice := func(table string, key [2]string, what string, row int) bool {
		if other, ok := rowKeys[table][key]; ok {
			fail(badSnapshot(path, nil, "invalid row %d of table %s: %s appears twice, in row %d too",
				row, table, fmt.Sprintf(what, key[0], key[1]), other))
			return true
		}
		rowKeys[table][key] = row
		return false
	}
	// Task instance ids (Airflow 3's primary key), each -> its row: the
	// order of task instances (ti_order) keys a DAG's task instances by
	// id, where a second would take the first's place.
	tiIDs := map[string]int{}
	var lastDag, lastRun string // the run the last row referred to, found
	for batch := range batches {
		if insertErr != nil {
			continue // drain until the decoder sees quit
		}
		if ctx.Err() != nil {
			fail(restoreStopped(ctx, path))
			continue
		}
		// Rows that belong to a run come after the runs (the order
		// snapshotCodecs writes), so that the run is already restored.
		if runOf := codecs[batch.table].runOf; runOf != nil {
			for i, obj := range batch.rows {
				dagID, runID := runOf(obj)
				if dagID == lastDag && runID == lastRun {
					continue
				}
				run, err := restore.Run(dagID, runID)
				if err == nil && (run.DagID != dagID || run.RunID != runID) {
					err = errNotFound // another run's key (a NUL in an id)
				}
				if err != nil {
					if errors.Is(err, errNotFound) {
						err = nil
					}
					fail(badSnapshot(path, err, "invalid row %d of table %s: no run %s of DAG %s in table %s before it",
						batch.first+i+1, batch.table, runID, dagID, tableDagRuns))
					break
				}
				lastDag, lastRun = dagID, runID
			}
			if insertErr != nil {
				continue
			}
		}
		if batch.table == tableTasks {
			for i, obj := range batch.rows {
				id := restoredTask(obj).ID
				if id == "" {
					continue
				}
				if other, ok := tiIDs[id]; ok {
					fail(badSnapshot(path, nil, "invalid row %d of table %s: id %q appears twice, in row %d too",
						batch.first+i+1, batch.table, id, other))
					break
				}
				tiIDs[id] = batch.first + i + 1
			}
			if insertErr != nil {
				continue
			}
		}
		if insert := codecs[batch.table].insert; insert != nil {
			if err := insert(restore, batch.rows); err != nil {
				fail(badSnapshot(path, err, "rows %d to %d of table %s do not fit",
					batch.first+1, batch.first+len(batch.rows), batch.table))
			}
			continue
		}
		for i, obj := range batch.rows {
			row := batch.first + i + 1
			switch o := obj.(type) {
			case *DagRow:
				refuseKeyTwice(batch.table, [2]string{o.DagID}, "dag_id %[1]q", row)
			case *DagRun:
				_ = refuseDuplicate(batch.table, o.ID, row) ||
					refuseKeyTwice(batch.table, [2]string{o.DagID, o.RunID}, "run_id %[2]q of DAG %[1]q", row)
			case *Pool:
				_ = refuseDuplicate(batch.table, o.ID, row) || refuseKeyTwice(batch.table, [2]string{o.Name}, "pool %[1]q", row)
			case *Variable:
				_ = refuseDuplicate(batch.table, o.ID, row) || refuseKeyTwice(batch.table, [2]string{o.Key}, "key %[1]q", row)
			case *Connection:
				_ = refuseDuplicate(batch.table, o.ID, row) || refuseKeyTwice(batch.table, [2]string{o.ConnID}, "conn_id %[1]q", row)
			case *EventLog:
				refuseDuplicate(batch.table, o.ID, row)
			case *Asset:
				_ = refuseDuplicate(batch.table, o.ID, row) ||
					refuseKeyTwice(batch.table, [2]string{o.Name, o.URI}, "name %[1]q with uri %[2]q", row)
			case *AssetEvent:
				refuseDuplicate(batch.table, o.ID, row)
			case *AssetAlias:
				_ = refuseDuplicate(batch.table, o.ID, row) || refuseKeyTwice(batch.table, [2]string{o.Name}, "name %[1]q", row)
			case *Backfill:
				refuseDuplicate(batch.table, o.ID, row)
			case *BackfillDagRun:
				_ = refuseDuplicate(batch.table, o.ID, row) || refuseNoParent(batch.table, tableBackfills, "backfill", o.BackfillID, row)
			case *ConsumedEvents:
				refuseNoParent(batch.table, tableDagRuns, "run", o.RunRowID, row)
			case *XComEntry:
				// runOf found the run; the entry must name its id too.
				run, err := restore.Run(o.DagID, o.RunID)
				if err != nil || run.ID != o.RunRowID {
					if errors.Is(err, errNotFound) {
						err = nil
					}
					fail(badSnapshot(path, err, "invalid row %d of table %s: dag_run_id %d is not the id of run %s of DAG %s",
						row, batch.table, o.RunRowID, o.RunID, o.DagID))
				}
			}
			if insertErr != nil {
				break
			}
			if err := restore.Insert(batch.table, obj); err != nil {
				if twice := (*keyTwiceError)(nil); errors.As(err, &twice) {
					fail(badSnapshot(path, nil, "invalid row %d of table %s: %v", row, batch.table, twice))
					break
				}
				fail(badSnapshot(path, err, "row %d of table %s does not fit", row, batch.table))
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
	if stats.Index, err = restore.Commit(); err != nil {
		return nil, stats, err
	}
	stats.Bytes = size
	return store, stats, nil
}

// restoreStopped is the error of a restore that ctx ended.
func restoreStopped(ctx context.Context, path string) error {
	return fmt.Errorf("read %s: restore stopped before the end: %w", path, context.Cause(ctx))
}

// ctxReader reads from r until ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
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
		if sec.Rows < 0 {
			// A negative count reads no row and takes from the total
			// that the end line checks, so that rows of another table
			// could make up for it.
			res.err = badSnapshot(path, nil, "corrupt table header: table %s has %d rows", sec.Table, sec.Rows)
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
			if c.check != nil {
				if err := c.check(obj); err != nil {
					res.err = badSnapshot(path, err, "invalid row %d of table %s", i+1, sec.Table)
					return res
				}
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
