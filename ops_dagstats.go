package main

// Run counts per DAG and state, for the APIs' DAG statistics.

import (
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
// DagModel row) count, as Airflow joins the runs to their DAG.
func (o *operations) runCountsByDag(dagIDs []string) ([]dagRunCounts, error) {
	rows, err := o.store.Dags() // by dag_id
	if err != nil {
		return nil, err
	}
	var out []dagRunCounts
	for _, row := range rows {
		if dagIDs != nil && !slices.Contains(dagIDs, row.DagID) {
			continue
		}
		runs, err := o.store.RunsOfDag(row.DagID, "")
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		c := dagRunCounts{dagID: row.DagID, counts: map[RunState]int{}}
		for _, run := range runs {
			c.counts[run.State]++
		}
		out = append(out, c)
	}
	return out, nil
}
