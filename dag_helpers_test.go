package main

// Loaders for tests: edition 2's rules, named here rather than assumed by
// production code (which always passes its edition's rules).

import (
	"io/fs"
	"time"
)

// loadEmbeddedDAGs parses edition 2's examples (Airflow 2.10.3's).
func loadEmbeddedDAGs() (*DAGSet, error) { return loadExampleDAGs(edition2.rules(), time.Now()) }

// loadDAGDir parses every definition in a folder, as edition 2.
func loadDAGDir(dir string) (*DAGSet, error) { return dagLoader{rules: edition2.rules()}.loadDir(dir) }

// loadDAGs parses every definition of fsys as edition 2; see dagLoader.load.
func loadDAGs(fsys fs.FS, label string) (*DAGSet, error) {
	return dagLoader{rules: edition2.rules()}.load(fsys, label)
}

// parseDAG reads and validates one definition file now, as edition 2.
func parseDAG(data []byte) (*DAG, error) { return parseDAGAt(data, time.Now()) }

// parseDAGAt reads and validates one definition file as read at now, from
// which relative dates count, as edition 2.
func parseDAGAt(data []byte, now time.Time) (*DAG, error) {
	return parseDAGFor(data, now, edition2.rules())
}
