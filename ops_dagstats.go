package main

// Run counts per DAG and state, for the APIs' DAG statistics.

import (
	"errors"
	"slices"
)

// runStateOrder is DagRunState's order (airflow/utils/state.py), in which
// the statistics list the states.
var runStateOrder = []RunState{RunQueued, RunRunning, RunSuccess, RunFailed}

// dagRunCounts is one DAG's run count per state.
type dagRunCounts struct {
	dagID  string
	counts map[RunState]int
}

// runCountsByDag counts the runs of the DAGs with at least one run, by
// dag_id; dagIDs narrows them when not nil. Only DAGs airlite knows (a
// DagModel row) count, as Airflow joins the runs to their DAG. The counts
// are the ones the writes keep per DAG and state: a row a DAG, not its
// runs.
func (o *operations) runCountsByDag(dagIDs []string) ([]dagRunCounts, error) {
	ids, err := o.store.DagIDsWithRuns() // by dag_id
	if err != nil {
		return nil, err
	}
	var out []dagRunCounts
	for _, id := range ids {
		if dagIDs != nil && !slices.Contains(dagIDs, id) {
			continue
		}
		if _, err := o.store.DagByID(id); errors.Is(err, errNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, dagRunCounts{dagID: id, counts: o.store.RunStateCounts(id)})
	}
	return out, nil
}
