package main

// Import errors: the DAG files that did not load, one row per file, as
// Airflow's import_error table keeps them (2.10.3 models/errors.py
// ParseImportError; dag_processing/processor.py update_import_errors).
// They describe the files on disk, not the run state: a snapshot leaves
// them out and every start reads the folder again.

import (
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableImportErrors = "import_errors"
	indexFilename     = "filename"
)

func init() {
	// Not written to snapshots: a start reads the DAG folder again.
	derivedTables[tableImportErrors] = true
}

// ImportError is a DAG file that failed to load: its path, when the
// failure was last seen, and Airflow's text for it (a stack trace, or
// "{exception}: {message}" for a check made after import).
type ImportError struct {
	ID         int64
	Filename   string
	Timestamp  time.Time
	StackTrace string
}

// importErrorsTable holds import errors by id, by file, and by time
// (ties by id: the files of one read of the folder share its time).
func importErrorsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableImportErrors,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:       {Name: indexID, Unique: true, Indexer: intField[ImportError]{func(e *ImportError) int64 { return e.ID }}},
			indexFilename: {Name: indexFilename, Unique: true, Indexer: stringField[ImportError]{func(e *ImportError) string { return e.Filename }}},
			indexTimestamp: {Name: indexTimestamp, Unique: true, Indexer: timeIDIndex[ImportError]{
				func(e *ImportError) time.Time { return e.Timestamp }, func(e *ImportError) int64 { return e.ID }}},
		},
	}
}

// ImportErrors lists the import errors by id (and tells rowsRead).
func (s *Store) ImportErrors() ([]*ImportError, error) {
	rows, err := allRows[ImportError](s.read(), tableImportErrors, "import errors")
	if s.rowsRead != nil {
		s.rowsRead(len(rows))
	}
	return rows, err
}

// ImportErrorByID is one import error, or errNotFound.
func (s *Store) ImportErrorByID(id int64) (*ImportError, error) {
	raw, err := s.read().First(tableImportErrors, indexID, id)
	if err != nil {
		return nil, fmt.Errorf("get import error %d: %w", id, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("get import error %d: %w", id, errNotFound)
	}
	return raw.(*ImportError), nil
}

// RecordParse records what a read of the DAG folder found, as Airflow's
// processor does after each file: a file read without error loses its
// import error; a failing file keeps its row (and id) with the new time
// and text, or gets a new row. Files not in read are left as they are.
func (s *Store) RecordParse(read []string, failed map[string]string, now time.Time) error {
	return s.update(func(txn *memdb.Txn) error { return recordParseTxn(txn, read, failed, now) })
}

// forgetImportErrorsTxn removes the import errors of files that are no
// longer in the DAG folder (2.10.3 dag_processing/manager.py:882-900
// clear_nonexistent_import_errors).
func forgetImportErrorsTxn(txn *memdb.Txn, files []string) error {
	for _, file := range files {
		if _, err := txn.DeleteAll(tableImportErrors, indexFilename, file); err != nil {
			return fmt.Errorf("clear import error of %s: %w", file, err)
		}
	}
	return nil
}

func recordParseTxn(txn *memdb.Txn, read []string, failed map[string]string, now time.Time) error {
	if err := markImportErrorsTxn(txn, failed); err != nil {
		return err
	}
	{
		next, err := nextImportErrorIDTxn(txn)
		if err != nil {
			return err
		}
		for _, file := range read {
			raw, err := txn.First(tableImportErrors, indexFilename, file)
			if err != nil {
				return fmt.Errorf("record import error of %s: %w", file, err)
			}
			text, fails := failed[file]
			if !fails {
				if raw != nil {
					if err := txn.Delete(tableImportErrors, raw); err != nil {
						return fmt.Errorf("clear import error of %s: %w", file, err)
					}
				}
				continue
			}
			row := &ImportError{ID: next, Filename: file, Timestamp: now.UTC(), StackTrace: text}
			if raw != nil {
				row.ID = raw.(*ImportError).ID
			} else {
				next++
			}
			if err := txn.Insert(tableImportErrors, row); err != nil {
				return fmt.Errorf("record import error of %s: %w", file, err)
			}
		}
		return nil
	}
}

// markImportErrorsTxn sets has_import_errors on the DAG rows of the
// files that failed (a DAG loaded through /_airlite/dags has no file),
// as the DAG processor updates the DagModel rows of the file it recorded
// an import error for.
func markImportErrorsTxn(txn *memdb.Txn, failed map[string]string) error {
	if len(failed) == 0 {
		return nil
	}
	rows, err := allDagRowsTxn(txn)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.ImportErrors || row.FileLoc == loadedDAGFileLoc {
			continue
		}
		if _, fails := failed[absPath(row.FileLoc)]; !fails {
			continue
		}
		marked := *row
		marked.ImportErrors = true
		if err := txn.Insert(tableDags, &marked); err != nil {
			return fmt.Errorf("mark the import errors of dag %s: %w", row.DagID, err)
		}
	}
	return nil
}

// nextImportErrorIDTxn is one more than the highest id held. Unlike
// Airflow's autoincrement, an id freed at the top may be handed out again.
func nextImportErrorIDTxn(txn *memdb.Txn) (int64, error) {
	raw, err := txn.Last(tableImportErrors, indexID)
	if err != nil {
		return 0, fmt.Errorf("next import error id: %w", err)
	}
	if raw == nil {
		return 1, nil
	}
	return raw.(*ImportError).ID + 1, nil
}
