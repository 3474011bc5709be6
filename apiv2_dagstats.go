package main

// Airflow 3's DAG statistics (issue #21): core_api/routes/public/
// dag_stats.py get_dag_stats.

import (
	"net/http"
)

// v2DagStatsState is datamodels/dag_stats.py DagStatsStateResponse.
type v2DagStatsState struct {
	State RunState `json:"state"`
	Count int      `json:"count"`
}

// v2DagStats is DagStatsResponse as 3.2.1's document has it.
type v2DagStats struct {
	DagID          string            `json:"dag_id"`
	DagDisplayName string            `json:"dag_display_name"`
	Stats          []v2DagStatsState `json:"stats"`
}

// v2DagStatsCollection is DagStatsCollectionResponse.
type v2DagStatsCollection struct {
	Dags         []v2DagStats `json:"dags"`
	TotalEntries int          `json:"total_entries"`
}

// v2GetDagStats is get_dag_stats: the DAGs that have runs (those dag_ids
// names, when given), by dag_id, each with its count of runs in every
// state of DagRunState, in that enum's order.
func (s *server) v2GetDagStats(req *apiRequest) (any, error) {
	var dagIDs []string
	if ids, given := req.query["dag_ids"]; given {
		dagIDs = ids
	}
	counts, err := s.ops.runCountsByDag(dagIDs)
	if err != nil {
		return nil, err
	}
	out := v2DagStatsCollection{Dags: make([]v2DagStats, 0, len(counts)), TotalEntries: len(counts)}
	for _, c := range counts {
		stats := make([]v2DagStatsState, 0, len(runStateOrder))
		for _, state := range runStateOrder {
			stats = append(stats, v2DagStatsState{State: state, Count: c.counts[state]})
		}
		out.Dags = append(out.Dags, v2DagStats{DagID: c.dagID, DagDisplayName: s.v2DagDisplayName(c.dagID), Stats: stats})
	}
	return out, nil
}

// v2DagStatsRoutes are dag_stats.py's rows.
func (s *server) v2DagStatsRoutes(t *routeTable) {
	t.add(http.MethodGet, "/dagStats", t.dialect.answer(s, s.v2GetDagStats), withQuery(qV2Strs("dag_ids")))
}
