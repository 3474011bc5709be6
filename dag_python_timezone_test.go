package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// pyZoneDAGs are Python DAGs whose start_date is in a time zone: a named
// zone through pendulum, a fixed offset through datetime, and a named
// zone given in default_args only.
const pyZoneDAGs = `import datetime

import pendulum

from %[1]s import DAG
from %[2]s import EmptyOperator

with DAG("tz_named", schedule="0 0 * * *", catchup=False, start_date=pendulum.datetime(2024, 1, 1, tz="Europe/Amsterdam")):
    EmptyOperator(task_id="t")

with DAG("tz_fixed", schedule="0 0 * * *", catchup=False,
         start_date=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))):
    EmptyOperator(task_id="t")

with DAG("tz_default_args", schedule="30 6 * * *", catchup=False,
         default_args={"start_date": pendulum.datetime(2024, 1, 1, tz="America/New_York")}):
    EmptyOperator(task_id="t")

with DAG("tz_utc", schedule="0 0 * * *", catchup=False, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
`

// TestServePython_CronInDagTimezone: a cron schedule ticks in the DAG's
// time zone, the start_date's (else default_args' start_date's; UTC
// without one), as Airflow 2.10.3 and 3.2.1 make the DAG's timetable
// (2.10.3 models/dag.py:616-628,695; c57fba0e task-sdk/src/airflow/sdk/
// definitions/dag.py:664-679 and :130-152; timetables/_cron.py CronMixin):
// "0 0 * * *" from Europe/Amsterdam fires at local midnight (22:00 UTC in
// summer). The APIs' timezone is str() of the DAG's pendulum zone (2.10.3
// TimezoneField; 3.2.1 DAGDetailsResponse.get_timezone). The server's
// clock is 2024-05-01T10:00:00.123456Z. Expected dates were worked out with
// croniter 6.2.4 and pendulum 3.2.0 (scripts/cron_tz_golden.py's steps):
// edition 3 (CronTriggerTimetable, no catchup) plans now's last tick;
// edition 2 (CronDataIntervalTimetable) the interval before it.
func TestServePython_CronInDagTimezone(t *testing.T) {
	t.Parallel()
	requirePython(t)
	cases := []struct {
		dagID, tz      string
		next3          string // edition 3: logical date = run_after = both interval ends
		next2, create2 string // edition 2: next_dagrun, next_dagrun_create_after
	}{
		{"tz_named", "Europe/Amsterdam", "2024-04-30T22:00:00Z", "2024-04-29T22:00:00+00:00", "2024-04-30T22:00:00+00:00"},
		{"tz_fixed", `FixedTimezone(7200, name="+02:00")`, "2024-04-30T22:00:00Z", "2024-04-29T22:00:00+00:00", "2024-04-30T22:00:00+00:00"},
		{"tz_default_args", "America/New_York", "2024-04-30T10:30:00Z", "2024-04-29T10:30:00+00:00", "2024-04-30T10:30:00+00:00"},
		{"tz_utc", "UTC", "2024-05-01T00:00:00Z", "2024-04-30T00:00:00+00:00", "2024-05-01T00:00:00+00:00"},
	}
	t.Run("3", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		src := []byte(fmt.Sprintf(pyZoneDAGs, "airflow.sdk", "airflow.providers.standard.operators.empty"))
		if err := os.WriteFile(filepath.Join(dir, "tz.py"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		ts := servePy3Folder(t, dir)
		for _, tc := range cases {
			q := `"` + tc.next3 + `"`
			wantRaw(t, tc.dagID+" details", ts.v2JSON(t, "/dags/"+tc.dagID+"/details"), map[string]string{
				"timezone": jsonString(tc.tz), "next_dagrun_logical_date": q, "next_dagrun_data_interval_start": q,
				"next_dagrun_data_interval_end": q, "next_dagrun_run_after": q,
			})
		}
	})
	t.Run("2", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		src := []byte(fmt.Sprintf(pyZoneDAGs, "airflow", "airflow.operators.empty"))
		if err := os.WriteFile(filepath.Join(dir, "tz.py"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		ts := servePyFolder(t, dir)
		doc := loadV1Schemas(t)
		for _, tc := range cases {
			v := ts.v1JSON(t, doc, "/dags/"+tc.dagID+"/details")
			got := [3]any{v["timezone"], v["next_dagrun"], v["next_dagrun_create_after"]}
			if want := [3]any{tc.tz, tc.next2, tc.create2}; got != want {
				t.Errorf("%s: timezone, next_dagrun, next_dagrun_create_after %q, want %q", tc.dagID, got, want)
			}
		}
	})
}
