package main

import (
	"strings"
	"testing"
)

// TestYAML_Timezone: a YAML DAG's `timezone` key is the DAG's time zone,
// as a Python file's start_date zone is (Airflow keeps it as the DAG's
// timezone, serialized DAG field "timezone"): its cron schedule ticks at
// that zone's wall clock and the APIs show it. "0 3 * * *" in Paris is
// 01:00 UTC in summer; at testNow (2024-05-01T10:00:00.123456Z) edition 3
// plans now's last tick, edition 2 the interval before it. A zone Go
// does not know is refused at the key's line.
func TestYAML_Timezone(t *testing.T) {
	t.Parallel()
	const def = "dag_id: paris\nschedule: '0 3 * * *'\nstart_date: 2024-01-01\ncatchup: false\ntimezone: Europe/Paris\n" +
		"tasks:\n  - {task_id: t, operator: EmptyOperator}\n"
	t.Run("3", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition3, withDAG(def))
		wantRaw(t, "paris", ts.v2JSON(t, "/dags/paris/details"), map[string]string{
			"timezone": `"Europe/Paris"`, "next_dagrun_logical_date": `"2024-05-01T01:00:00Z"`,
			"next_dagrun_run_after": `"2024-05-01T01:00:00Z"`,
		})
	})
	t.Run("2", func(t *testing.T) {
		t.Parallel()
		ts := newTestServer(t, edition2, withDAG(def))
		wantFields(t, "paris", ts.v1JSON(t, loadV1Schemas(t), "/dags/paris/details"), map[string]string{
			"timezone": `"Europe/Paris"`, "next_dagrun": `"2024-04-30T01:00:00+00:00"`,
			"next_dagrun_create_after": `"2024-05-01T01:00:00+00:00"`,
		})
	})
	t.Run("unknown zone", func(t *testing.T) {
		t.Parallel()
		_, err := parseDAG([]byte(strings.Replace(def, "Europe/Paris", "Mars/Olympus", 1)))
		if err == nil || !strings.Contains(err.Error(), "line 5") || !strings.Contains(err.Error(), "Mars/Olympus") {
			t.Errorf("err = %v, want the timezone line refused", err)
		}
	})
}
