package main

// What a DAG was built from, so that a stale DAG's definition outlives
// its file across a restart. Airflow 3 keeps a stale DAG's serialized DAG
// in its database (3.2.1 models/dag.py DagModel.deactivate_deleted_dags
// sets is_stale only), so an API server started again answers it as
// before. airlite's snapshots hold no definitions: the DAG files give
// them at each start. A stale DAG's file gives none, so the snapshot
// keeps what its front end read (keptDefinition), and the start builds
// it again with the same builder, as it was built the first time.
//
// Only a stale DAG's is written (snapshot.go snapDefinition): an active
// DAG's file gives it again, and the snapshot stays small.

import (
	"fmt"
	"time"

	gojson "github.com/goccy/go-json"
)

// dagOrigin is what a DAG's front end read, enough for the builder to
// make the same DAG again without its file: a definition file's bytes
// (YAML or JSON) and when they were read, since days_ago counts from it;
// or a Python file's serialized DAG, its dates already resolved by
// Python (the form Airflow keeps in serialized_dag). The loaders set it
// on every DAG of an edition whose stale DAGs keep their definition
// (editionRules.staleKeepsDefinition); nil in the others, and on DAGs
// loaded through POST /_airlite/dags, which the folder never makes stale.
type dagOrigin struct {
	python bool      // data is a serialized DAG; else a definition file's bytes
	data   string    // the file's bytes, or the serialized DAG's JSON
	readAt time.Time // when a definition file was read; zero for a serialized DAG
}

// keptDefinition is a stale DAG's definition as a snapshot keeps it: its
// origin, and what the loaders set beside the built DAG (its place in the
// folder, the source /dagSources serves, its parse time and duration).
type keptDefinition struct {
	Python          bool
	Data            string
	ReadAt          time.Time
	RelativeFileloc string
	SourceCode      string
	ParsedAt        time.Time
	ParseDuration   float64
	// raw, when set, is the definition's JSON (a snapDefinition) as the
	// definitions file holds it, not decoded yet, and the fields above
	// are empty: decoded says what it holds.
	raw []byte
}

// keepDefinition is what a snapshot keeps of d; nil when d has no origin.
func keepDefinition(d *DAG) *keptDefinition {
	if d == nil || d.origin == nil {
		return nil
	}
	return &keptDefinition{Python: d.origin.python, Data: d.origin.data, ReadAt: d.origin.readAt,
		RelativeFileloc: d.RelativeFileloc, SourceCode: d.SourceCode, ParsedAt: d.ParsedAt, ParseDuration: d.ParseDuration}
}

// build makes the DAG again from what was kept, for the edition whose
// rules r are, as the loaders built it: fileloc is its file (the DAG
// row's), and a Python DAG's callables run from folder with python, as
// buildPyOutcome sets them.
func (k *keptDefinition) build(r *editionRules, fileloc, folder, python string) (*DAG, error) {
	k, err := k.decoded()
	if err != nil {
		return nil, fmt.Errorf("read the kept definition of %s: %w", fileloc, err)
	}
	var dag *DAG
	if k.Python {
		var d pySerializedDAG
		if err = strictUnmarshal([]byte(k.Data), &d); err == nil {
			dag, err = builtPyDAG(&d, r, folder, python)
		}
	} else {
		if dag, err = buildDefinitionFile([]byte(k.Data), fileloc, k.ReadAt, r); err == nil {
			err = r.checkDAG(dag)
		}
	}
	if err != nil {
		// An airlite whose checks changed since the snapshot was written
		// may refuse what an older one built.
		return nil, fmt.Errorf("build the kept definition of %s: %w", fileloc, err)
	}
	dag.RelativeFileloc, dag.SourceCode = k.RelativeFileloc, k.SourceCode
	dag.ParsedAt, dag.ParseDuration = k.ParsedAt, k.ParseDuration
	return dag, nil
}

// decoded is k with its fields read from its raw JSON; k itself when it
// has none. A kept definition is shared by the rows that hold it, so k
// is left as it is.
func (k *keptDefinition) decoded() (*keptDefinition, error) {
	if k.raw == nil {
		return k, nil
	}
	var def snapDefinition
	if err := gojson.Unmarshal(k.raw, &def); err != nil {
		return nil, err
	}
	d, err := def.kept()
	if err == nil {
		err = d.check()
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}
