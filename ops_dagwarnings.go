package main

// DAG warnings (Airflow 3's dag_warning table): what the DAG processor
// records about a DAG when it parses its file. Of the kinds of
// models/dagwarning.py DagWarningType, airlite's DAGs can have one: tasks
// in pools that do not exist (dag_processing's _create_dag_warnings,
// against the pools known at the parse). airlite works them out when
// asked, from the DAGs and the pools as they are then: Airflow reaches
// the same rows once it has parsed the file again.

import (
	"fmt"
	"slices"
	"strings"
)

// dagWarningNonexistentPool is DagWarningType.NONEXISTENT_POOL.
const dagWarningNonexistentPool = "non-existent pool"

// dagWarning is one DagWarning row: the DAG it is about, its type and its
// message.
type dagWarning struct {
	row         *DagRow
	warningType string
	message     string
}

// dagWarnings are the warnings of the DAGs whose file defines them, by
// dag_id (a stale DAG's are purged: purge_inactive_dag_warnings).
func (o *operations) dagWarnings() ([]dagWarning, error) {
	rows, err := o.store.Dags()
	if err != nil {
		return nil, fmt.Errorf("dag warnings: %w", err)
	}
	pools, err := o.store.Pools()
	if err != nil {
		return nil, fmt.Errorf("dag warnings: %w", err)
	}
	known := make(map[string]bool, len(pools))
	for _, p := range pools {
		known[p.Name] = true
	}
	var out []dagWarning
	for _, row := range rows {
		// A stale DAG's warnings are purged (3.2.1 models/dagwarning.py
		// purge_inactive_dag_warnings: is_stale).
		if !row.Active() {
			continue
		}
		var missing []string
		for _, t := range row.Def.Tasks {
			if !known[t.Pool] && !slices.Contains(missing, t.Pool) {
				missing = append(missing, t.Pool)
			}
		}
		if len(missing) == 0 {
			continue
		}
		slices.Sort(missing)
		out = append(out, dagWarning{row: row, warningType: dagWarningNonexistentPool,
			message: fmt.Sprintf("Dag '%s' references non-existent pools: %s", row.DagID, pyRepr(missing))})
	}
	slices.SortStableFunc(out, func(a, b dagWarning) int { return strings.Compare(a.row.DagID, b.row.DagID) })
	return out, nil
}
