package main

import (
	"bufio"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"time"

	gojson "github.com/goccy/go-json"
)

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

// writeSnapshot writes the store's state as of one read transaction to
// path, atomically: a temporary file in the same folder, flushed, synced,
// renamed over the previous snapshot, and the folder synced. Writers are
// never blocked. On any error the previous snapshot is untouched and the
// temporary file removed.
func writeSnapshot(store *Store, path string, now time.Time) (stats snapshotStats, err error) {
	snap := store.Snapshot() // a point-in-time view for the whole file
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

	// The definitions first: the snapshot names their file, which must
	// be there once the snapshot is.
	refs, err := definitionRefs(snap, &store.definitions)
	if err != nil {
		return stats, fmt.Errorf("list definitions: %w", err)
	}
	defs, err := store.definitions.write(path, refs)
	if err != nil {
		return stats, err
	}

	codecs := snapshotCodecs()
	header := snapshotHeader{
		Format: snapshotFormat, Version: snapshotVersion, Index: snap.ChangeIndex(),
		CreatedAt: now.UTC(), AirliteVersion: airliteVersion, Definitions: defs,
	}
	for _, c := range codecs {
		header.Tables = append(header.Tables, c.table)
	}
	if err := enc.Encode(&header); err != nil {
		return stats, fmt.Errorf("write snapshot header: %w", err)
	}
	stats.Index = header.Index
	for _, c := range codecs {
		n, err := countRecords(snap, c)
		if err != nil {
			return stats, err
		}
		if err := enc.Encode(&sectionHeader{Table: c.table, Rows: n}); err != nil {
			return stats, fmt.Errorf("write table %s: %w", c.table, err)
		}
		written := 0
		writeRecord := func(obj any) error {
			if err := enc.Encode(c.encode(obj)); err != nil {
				return fmt.Errorf("write table %s: %w", c.table, err)
			}
			written++
			return nil
		}
		if err := snap.Rows(c.table, func(row any) error { return c.eachRecord(row, writeRecord) }); err != nil {
			return stats, err
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
	// The snapshot is written: an earlier definitions file left behind is
	// only space, removed at a later write.
	_ = store.definitions.committed(path, defs)
	return stats, nil
}

// countRecords counts the records a table is written as.
func countRecords(snap storeSnapshot, c snapshotCodec) (int, error) {
	n := 0
	count := func(any) error { n++; return nil }
	if err := snap.Rows(c.table, func(row any) error { return c.eachRecord(row, count) }); err != nil {
		return 0, fmt.Errorf("count %s: %w", c.table, err)
	}
	return n, nil
}

// definitionRefs are the DAG rows of snap that have a definition to keep,
// by dag_id. Before the start has built the restored DAGs, those of the
// definitions file the restore left unread (w.readRestored) are kept
// too, byte for byte: a snapshot then loses none of them. Only a store
// written between its restore and its start reads the file here.
func definitionRefs(snap storeSnapshot, w *definitionsWritten) ([]definitionRef, error) {
	// A file that cannot be read costs its definitions, as at a start.
	restored, _ := w.readRestored()
	var refs []definitionRef
	err := snap.Rows(tableDags, func(row any) error {
		d := row.(*DagRow)
		switch {
		case d.Def != nil && d.Def.origin != nil:
			refs = append(refs, definitionRef{dagID: d.DagID, def: d.Def})
		case d.Def == nil && d.Kept != nil:
			refs = append(refs, definitionRef{dagID: d.DagID, kept: d.Kept})
		case d.Def == nil && restored[d.DagID] != nil:
			refs = append(refs, definitionRef{dagID: d.DagID, kept: restored[d.DagID]})
		}
		return nil
	})
	return refs, err
}
