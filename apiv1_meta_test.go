package main

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestServerV1_DagWarnings_NonexistentPools: Airflow 2.10.3's DAG file
// processor records a DAG whose tasks name pools that do not exist
// (dag_processing/processor.py update_dag_warnings: "Dag '{id}' references
// non-existent pools: [...]", sorted), and /dagWarnings lists the rows
// (api_connexion/endpoints/dag_warning_endpoint.py: dag_id and
// warning_type equal, one order_by key, timestamp by default).
func TestServerV1_DagWarnings_NonexistentPools(t *testing.T) {
	t.Parallel()
	const other = `
dag_id: warn_other
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: a, operator: DummyOperator, pool: beta}
`
	withWarnings := []testOption{withDAG(warnPoolsDAG), withDAG(other)}
	warning := func(dagID, pools string) string {
		return `{"dag_id": "` + dagID + `", "warning_type": "non-existent pool", "message": "Dag '` + dagID + `' references non-existent pools: ` + pools + `", "timestamp": "TS"}`
	}
	both := []string{warning("warn_other", "['beta']"), warning("warn_pools", "['alpha', 'zeta']")}
	list := func(total int, items ...string) string {
		return `{"dag_warnings": [` + strings.Join(items, ", ") + `], "total_entries": ` + strconv.Itoa(total) + `}`
	}
	cases := []struct{ name, path, want string }{
		{"all", "/dagWarnings?order_by=dag_id", list(2, both...)},
		{"desc", "/dagWarnings?order_by=-dag_id", list(2, both[1], both[0])},
		{"by dag", "/dagWarnings?dag_id=warn_pools", list(1, both[1])},
		{"other dag", "/dagWarnings?dag_id=tutorial", list(0)},
		{"by type", "/dagWarnings?warning_type=non-existent%20pool&order_by=message&limit=1", list(2, both[0])},
		{"other type", "/dagWarnings?warning_type=asset%20conflict", list(0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition2, withWarnings...)
			res := ts.v1(t, "GET", tc.path, "")
			got := decodeJSON[map[string]any](t, res.body)
			for _, w := range got["dag_warnings"].([]any) {
				m := w.(map[string]any)
				if ts, _ := m["timestamp"].(string); !strings.HasSuffix(ts, "+00:00") {
					t.Errorf("timestamp %v, want an ISO date with its offset", m["timestamp"])
				}
				m["timestamp"] = "TS"
			}
			want := decodeJSON[map[string]any](t, tc.want)
			if res.status != 200 || !reflect.DeepEqual(got, want) {
				t.Errorf("GET %s = %d %s\nwant %s", tc.path, res.status, res.body, tc.want)
			}
		})
	}
}
