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
// nil or 0) and that version's number (dag_version.py
// DagVersion.get_version, which filters by the number only when it is
// truthy, then the version's dag_code). airlite keeps the code of the
// definition loaded, which is the latest version's; an earlier version's
// code is not kept, and is nil: a version without its DagCode row, which
// the route refuses.
func (o *operations) dagSource(dagID string, version *int64) (code *string, number int64, err error) {
	asked := ""
	if version != nil {
		asked = strconv.FormatInt(*version, 10)
	}
	missing := opErr(errNotFound, faultDagSourceNotFound, "dag_id", dagID, "version", asked)
	latest, err := o.store.LatestDagVersion(dagID)
	if errors.Is(err, errNotFound) {
		return nil, 0, missing
	}
	if err != nil {
		return nil, 0, err
	}
	v := latest
	if version != nil && *version != 0 && *version != latest.Number {
		if v, err = o.store.DagVersionByNumber(dagID, *version); errors.Is(err, errNotFound) {
			return nil, 0, missing
		} else if err != nil {
			return nil, 0, err
		}
		return nil, v.Number, nil
	}
	row, err := o.dagDefinition(dagID)
	if errors.Is(err, errNotFound) {
		return nil, v.Number, nil // the file is gone: no code kept
	}
	if err != nil {
		return nil, 0, err
	}
	text := row.Def.SourceCode
	if text == "" {
		text = renderPython(row.Def, o.rules().python)
	}
	return &text, v.Number, nil
}
