package main

// A DAG's source: the file it was defined in, or its definition rendered
// as Airflow-style Python (dag_code.go), by DAG version for Airflow 3.

import (
	"errors"
	"strconv"
)

// faultDagSourceNotFound is a DAG, or a version of it, with no source.
const faultDagSourceNotFound opFault = "dag_source_not_found" // dag_id, version ("" when none was asked)

// dagSource is the source of a DAG's version (its latest when version is
// nil) and that version's number. airlite keeps one version of each
// loaded DAG, number 1: the definition loaded.
func (o *operations) dagSource(dagID string, version *int64) (code string, number int64, err error) {
	asked := ""
	if version != nil {
		asked = strconv.FormatInt(*version, 10)
	}
	row, err := o.dagDefinition(dagID)
	if errors.Is(err, errNotFound) || (err == nil && version != nil && *version != 1) {
		return "", 0, opErr(errNotFound, faultDagSourceNotFound, "dag_id", dagID, "version", asked)
	}
	if err != nil {
		return "", 0, err
	}
	if row.Def.SourceCode != "" {
		return row.Def.SourceCode, 1, nil
	}
	return renderPython(row.Def, o.rules().python), 1, nil
}
