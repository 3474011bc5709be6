package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Timetable objects in Python DAG files (testdata/pydags/timetables3 and
// timetables2, a file per case), planned as Airflow's classes plan them.
// The server's clock is testNow, 2024-05-01T10:00:00.123456Z, a
// Wednesday. Expected dates were worked out by hand from the classes'
// next_dagrun_info (c57fba0e airflow-core/src/airflow/timetables/
// trigger.py:76-104, 216-237, 299-360; interval.py:80-160, 199-230;
// events.py:82-106; assets.py; 2.10.3 airflow/timetables/ the same but
// for run_immediately): a trigger run's data interval is the `interval`
// before its fire time, its logical date that interval's start, its
// run_after the fire time.

// TestServePython_TimetableObjects3: Airflow 3.2.1's DAG answers for each
// timetable object: the summary, description and type, and next_dagrun's
// logical date, data interval and run_after.
func TestServePython_TimetableObjects3(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/timetables3")
	const (
		apr29 = "2024-04-29T00:00:00Z"
		may1  = "2024-05-01T00:00:00Z"
	)
	type next struct{ logical, start, end, after string }
	at := func(s string) next { return next{s, s, s, s} }
	cases := []struct {
		dagID, summary, desc, typ string
		want                      next
	}{
		// 03:00 in Paris (summer time) is 01:00 UTC.
		{"tt_cron_paris", "0 3 * * *", "At 03:00", "CronTriggerTimetable", at("2024-05-01T01:00:00Z")},
		// Fires at 10:00 for the hour before.
		// cron-descriptor 2.0.6 leaves a minute 0 unsaid (since 1.2.29).
		{"tt_cron_interval", "0 * * * *", "Every hour", "CronTriggerTimetable",
			next{"2024-05-01T09:00:00Z", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"}},
		{"tt_cron_catchup", "0 0 * * *", "At 00:00", "CronTriggerTimetable", at(apr29)},
		// No start_date: _calc_first_run. True takes the tick before now;
		// False (a tenth of a day, 2.4 h) and not within 12 hours wait.
		{"tt_immediately", "0 0 * * *", "At 00:00", "CronTriggerTimetable", at(may1)},
		{"tt_wait", "0 0 * * *", "At 00:00", "CronTriggerTimetable", at("2024-05-02T00:00:00Z")},
		{"tt_within", "0 0 * * *", "At 00:00", "CronTriggerTimetable", at(may1)},
		{"tt_delta_trigger", "6:00:00", "", "DeltaTriggerTimetable",
			next{"2024-04-30T23:00:00Z", "2024-04-30T23:00:00Z", may1, may1}},
		{"tt_delta_months", "relativedelta(months=+1)", "", "DeltaTriggerTimetable", at("2024-01-31T00:00:00Z")},
		// Without catchup the latest fire time not after now of either.
		{"tt_multi", "0 6 * * *, 0 9 * * *", "At 06:00, At 09:00", "MultipleCronTriggerTimetable", at("2024-05-01T09:00:00Z")},
		{"tt_multi_catchup", "0 6 * * *, 0 9 * * *", "At 06:00, At 09:00", "MultipleCronTriggerTimetable", at("2024-05-01T06:00:00Z")},
		// The latest complete interval between Paris midnights.
		{"tt_cron_data", "0 0 * * *", "At 00:00", "CronDataIntervalTimetable",
			next{"2024-04-29T22:00:00Z", "2024-04-29T22:00:00Z", "2024-04-30T22:00:00Z", "2024-04-30T22:00:00Z"}},
		{"tt_delta_data", "6:00:00", "", "DeltaDataIntervalTimetable",
			next{may1, may1, "2024-05-01T06:00:00Z", "2024-05-01T06:00:00Z"}},
		{"tt_events", "3 events", "3 events between 2024-03-01T00:00:00+00:00 and 2024-06-01T00:00:00+00:00", "EventsTimetable",
			at("2024-05-03T00:00:00Z")},
		{"tt_events_named", "Race days", "Race days", "EventsTimetable", at("2024-03-01T00:00:00Z")},
		{"tt_asset_or_time", "Asset or 0 1 * * 3", "Triggered by assets or At 01:00, only on Wednesday", "AssetOrTimeSchedule",
			at("2024-05-01T01:00:00Z")},
		// A class of the file's own: its name, never planned.
		{"tt_custom", "Weekdays", "Every weekday at noon", "", next{"null", "null", "null", "null"}},
		{"tt_custom_or_time", "Asset or Weekdays", "Triggered by assets or Every weekday at noon", "AssetOrTimeSchedule",
			next{"null", "null", "null", "null"}},
		// Partitioned runs are not scheduled.
		{"tt_partition", "0 0 * * *", "At 00:00", "CronPartitionTimetable", next{"null", "null", "null", "null"}},
	}
	for _, tc := range cases {
		q := func(s string) string {
			if s == "null" {
				return s
			}
			return `"` + s + `"`
		}
		want := map[string]string{
			"timetable_summary": jsonString(tc.summary), "timetable_description": jsonString(tc.desc),
			"next_dagrun_logical_date": q(tc.want.logical), "next_dagrun_data_interval_start": q(tc.want.start),
			"next_dagrun_data_interval_end": q(tc.want.end), "next_dagrun_run_after": q(tc.want.after),
		}
		wantRaw(t, tc.dagID+" details", ts.v2JSON(t, "/dags/"+tc.dagID+"/details"), want)
		wantRaw(t, tc.dagID, ts.v2JSON(t, "/dags/"+tc.dagID), want)
		if tc.typ == "" {
			continue
		}
		res := ts.do(t, "GET", "/api/v2/dags?dag_id_pattern="+tc.dagID+"&timetable_type="+tc.typ, "")
		if ids, _ := v2DagIDs(t, res.body); !slices.Contains(ids, tc.dagID) {
			t.Errorf("timetable_type=%s: %v, want %s among them", tc.typ, ids, tc.dagID)
		}
	}
}

// TestScheduler_TimetableObjects: the runs the scheduler makes at testNow
// for each timetable object: Airflow 3 names a run after its run_after
// (Timetable.generate_run_id, c57fba0e timetables/base.py:325-340) and
// keeps its data interval; Airflow 2.10.3 names it after its logical date.
func TestScheduler_TimetableObjects(t *testing.T) {
	t.Parallel()
	type run struct{ id, logical, start, end string }
	trig := func(s string) run { return run{"scheduled__" + s, s, s, s} }
	cases := []struct {
		dir  string
		e    edition
		want map[string][]run
	}{
		{"testdata/pydags/timetables3", edition3, map[string][]run{
			"tt_cron_paris": {trig("2024-05-01T01:00:00+00:00")},
			"tt_cron_interval": {{"scheduled__2024-05-01T10:00:00+00:00", "2024-05-01T09:00:00+00:00",
				"2024-05-01T09:00:00+00:00", "2024-05-01T10:00:00+00:00"}},
			"tt_cron_catchup": {trig("2024-04-29T00:00:00+00:00"), trig("2024-04-30T00:00:00+00:00"), trig("2024-05-01T00:00:00+00:00")},
			"tt_immediately":  {trig("2024-05-01T00:00:00+00:00")},
			"tt_wait":         nil,
			"tt_delta_trigger": {
				{"scheduled__2024-05-01T00:00:00+00:00", "2024-04-30T23:00:00+00:00", "2024-04-30T23:00:00+00:00", "2024-05-01T00:00:00+00:00"},
				{"scheduled__2024-05-01T06:00:00+00:00", "2024-05-01T05:00:00+00:00", "2024-05-01T05:00:00+00:00", "2024-05-01T06:00:00+00:00"}},
			// A month after the 31st of January is the 29th of February,
			// and a month after that the 29th of March.
			"tt_delta_months": {trig("2024-01-31T00:00:00+00:00"), trig("2024-02-29T00:00:00+00:00"),
				trig("2024-03-29T00:00:00+00:00"), trig("2024-04-29T00:00:00+00:00")},
			"tt_multi":         {trig("2024-05-01T09:00:00+00:00")},
			"tt_multi_catchup": {trig("2024-05-01T06:00:00+00:00"), trig("2024-05-01T09:00:00+00:00")},
			"tt_cron_data": {{"scheduled__2024-04-30T22:00:00+00:00", "2024-04-29T22:00:00+00:00",
				"2024-04-29T22:00:00+00:00", "2024-04-30T22:00:00+00:00"}},
			"tt_delta_data": {{"scheduled__2024-05-01T06:00:00+00:00", "2024-05-01T00:00:00+00:00",
				"2024-05-01T00:00:00+00:00", "2024-05-01T06:00:00+00:00"}},
			"tt_events":         nil,
			"tt_events_named":   {trig("2024-03-01T00:00:00+00:00")},
			"tt_asset_or_time":  {trig("2024-05-01T01:00:00+00:00")},
			"tt_custom":         nil,
			"tt_custom_or_time": nil,
			"tt_partition":      nil,
		}},
		{"testdata/pydags/timetables2", edition2, map[string][]run{
			"tt2_cron_paris": {trig("2024-05-01T01:00:00+00:00")},
			"tt2_cron_interval": {{"scheduled__2024-05-01T09:00:00+00:00", "2024-05-01T09:00:00+00:00",
				"2024-05-01T09:00:00+00:00", "2024-05-01T10:00:00+00:00"}},
			"tt2_cron_data": {{"scheduled__2024-04-29T22:00:00+00:00", "2024-04-29T22:00:00+00:00",
				"2024-04-29T22:00:00+00:00", "2024-04-30T22:00:00+00:00"}},
			"tt2_delta_months": {
				{"scheduled__2024-01-31T00:00:00+00:00", "2024-01-31T00:00:00+00:00", "2024-01-31T00:00:00+00:00", "2024-02-29T00:00:00+00:00"},
				{"scheduled__2024-02-29T00:00:00+00:00", "2024-02-29T00:00:00+00:00", "2024-02-29T00:00:00+00:00", "2024-03-29T00:00:00+00:00"},
				{"scheduled__2024-03-29T00:00:00+00:00", "2024-03-29T00:00:00+00:00", "2024-03-29T00:00:00+00:00", "2024-04-29T00:00:00+00:00"}},
			"tt2_events":  nil,
			"tt2_or_time": {trig("2024-05-01T01:00:00+00:00")},
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.e), func(t *testing.T) {
			t.Parallel()
			set := readPyServeFolderAs(t, tc.dir, tc.e)
			if len(set.ImportErrors) > 0 {
				t.Fatalf("import errors: %+v", set.ImportErrors)
			}
			store := storeWith(t, set)
			sched := newScheduler(schedulerOptions{Store: store, Edition: tc.e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
				Now: func() time.Time { return testNow }, Parallelism: 16, Unixname: "tester"})
			if err := sched.createScheduledRuns(testNow); err != nil {
				t.Fatal(err)
			}
			byID := map[string]*DAG{}
			for _, d := range set.DAGs {
				byID[d.DagID] = d
			}
			for dagID, want := range tc.want {
				runs, err := store.RunsOfDag(dagID, "")
				if err != nil {
					t.Fatal(err)
				}
				var got []run
				for _, r := range runs {
					iv := inferDataInterval(byID[dagID], r.ExecutionDate, true)
					if r.DataIntervalStart != nil && r.DataIntervalEnd != nil {
						iv = dataInterval{*r.DataIntervalStart, *r.DataIntervalEnd}
					}
					got = append(got, run{r.RunID, isoFormat(r.ExecutionDate), isoFormat(iv.start), isoFormat(iv.end)})
				}
				slices.SortFunc(got, func(a, b run) int { return strings.Compare(a.id, b.id) })
				if !slices.Equal(got, want) {
					t.Errorf("%s: runs\n got %v\nwant %v", dagID, got, want)
				}
			}
		})
	}
}

// TestServePython_TimetableObjects2: Airflow 2.10.3's DAG answers for
// timetable objects: schedule_interval is the timetable's summary as a
// CronExpression, timetable_description its text, and the next_dagrun
// fields its next DagRunInfo (logical date, interval, run_after as
// next_dagrun_create_after). tt2_or_time's are the four field values the
// comparison with the real Airflow 2.10.3 found missing for
// example_datasets.py's DatasetOrTimeSchedule.
func TestServePython_TimetableObjects2(t *testing.T) {
	t.Parallel()
	doc := loadV1Schemas(t)
	set := readPyServeFolder(t, "testdata/pydags/timetables2")
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = set }))
	cron := func(s string) string { return `{"__type": "CronExpression", "value": ` + jsonString(s) + `}` }
	for id, want := range map[string]map[string]string{
		"tt2_cron_paris": {"schedule_interval": cron("0 3 * * *"), "timetable_description": `"At 03:00"`,
			"next_dagrun": `"2024-05-01T01:00:00+00:00"`, "next_dagrun_data_interval_start": `"2024-05-01T01:00:00+00:00"`,
			"next_dagrun_data_interval_end": `"2024-05-01T01:00:00+00:00"`, "next_dagrun_create_after": `"2024-05-01T01:00:00+00:00"`},
		"tt2_cron_interval": {"next_dagrun": `"2024-05-01T09:00:00+00:00"`, "next_dagrun_data_interval_start": `"2024-05-01T09:00:00+00:00"`,
			"next_dagrun_data_interval_end": `"2024-05-01T10:00:00+00:00"`, "next_dagrun_create_after": `"2024-05-01T10:00:00+00:00"`},
		"tt2_cron_data": {"schedule_interval": cron("0 0 * * *"), "timetable_description": `"At 00:00"`,
			"next_dagrun": `"2024-04-29T22:00:00+00:00"`, "next_dagrun_create_after": `"2024-04-30T22:00:00+00:00"`},
		// A month after the 29th of February is the 29th of March.
		"tt2_delta_months": {"schedule_interval": cron("relativedelta(months=+1)"), "timetable_description": `""`,
			"next_dagrun": `"2024-01-31T00:00:00+00:00"`, "next_dagrun_create_after": `"2024-02-29T00:00:00+00:00"`},
		// 2.10.3 events.py:62-65 writes str() of the dates.
		"tt2_events": {"schedule_interval": cron("3 events"),
			"timetable_description": `"3 events between 2024-03-01 00:00:00+00:00 and 2024-06-01 00:00:00+00:00"`,
			"next_dagrun":           `"2024-05-03T00:00:00+00:00"`, "next_dagrun_create_after": `"2024-05-03T00:00:00+00:00"`},
		"tt2_or_time": {"schedule_interval": cron("Dataset or 0 1 * * 3"),
			"timetable_description": `"Triggered by datasets or At 01:00, only on Wednesday"`,
			"next_dagrun":           `"2024-05-01T01:00:00+00:00"`, "next_dagrun_create_after": `"2024-05-01T01:00:00+00:00"`},
	} {
		wantFields(t, id, ts.v1JSON(t, doc, "/dags/"+id+"/details"), want)
	}
}

// TestAPI_TriggeredRunOfTimetableObject: a triggered run's data interval
// is its timetable's infer_manual_data_interval at its logical date: the
// interval before it for a CronTriggerTimetable, the latest event not
// after it for an EventsTimetable restricted to its events (c57fba0e
// trigger.py:48-52, events.py:108-122; 2.10.3 the same).
func TestAPI_TriggeredRunOfTimetableObject(t *testing.T) {
	t.Parallel()
	t.Run("3", func(t *testing.T) {
		t.Parallel()
		ts := servePy3Folder(t, "testdata/pydags/timetables3")
		for id, want := range map[string][2]string{
			"tt_cron_interval": {"2024-05-01T09:30:00Z", "2024-05-01T10:30:00Z"},
			"tt_events":        {"2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z"},
			"tt_cron_data":     {"2024-04-29T22:00:00Z", "2024-04-30T22:00:00Z"},
		} {
			res := ts.do(t, "POST", "/api/v2/dags/"+id+"/dagRuns", `{"logical_date": "2024-05-01T10:30:00Z"}`)
			if res.status != 200 {
				t.Fatalf("trigger %s = %d %s", id, res.status, res.body)
			}
			var run map[string]any
			if err := json.Unmarshal([]byte(res.body), &run); err != nil {
				t.Fatal(err)
			}
			if got := [2]any{run["data_interval_start"], run["data_interval_end"]}; got != [2]any{want[0], want[1]} {
				t.Errorf("%s: triggered run's data interval %v, want %v", id, got, want)
			}
		}
	})
	t.Run("2", func(t *testing.T) {
		t.Parallel()
		ts := servePyFolder(t, "testdata/pydags/timetables2")
		for id, want := range map[string][2]string{
			"tt2_cron_interval": {"2024-05-01T09:30:00+00:00", "2024-05-01T10:30:00+00:00"},
			"tt2_events":        {"2024-03-01T00:00:00+00:00", "2024-03-01T00:00:00+00:00"},
		} {
			res := ts.v1(t, "POST", "/dags/"+id+"/dagRuns", `{"execution_date": "2024-05-01T10:30:00+00:00"}`)
			if res.status != 200 {
				t.Fatalf("trigger %s = %d %s", id, res.status, res.body)
			}
			var run map[string]any
			if err := json.Unmarshal([]byte(res.body), &run); err != nil {
				t.Fatal(err)
			}
			if got := [2]any{run["data_interval_start"], run["data_interval_end"]}; got != [2]any{want[0], want[1]} {
				t.Errorf("%s: triggered run's data interval %v, want %v", id, got, want)
			}
		}
	})
}

// TestScheduler_AssetOrTimeScheduleRunsBoth: an AssetOrTimeSchedule runs
// on its timetable and on its assets (c57fba0e timetables/assets.py
// next_dagrun_info is the timetable's; the DAG is also among the asset's
// consumers): at testNow the scheduler makes the 01:00 run and, after an
// event of the asset, an asset_triggered one.
func TestScheduler_AssetOrTimeScheduleRunsBoth(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/timetables3")
	sched := newSucceedingScheduler3(t, ts)
	var assets struct {
		Assets []struct {
			ID  int    `json:"id"`
			URI string `json:"uri"`
		} `json:"assets"`
	}
	res := ts.do(t, "GET", "/api/v2/assets?uri_pattern=s3://tt/a", "")
	if err := json.Unmarshal([]byte(res.body), &assets); err != nil || len(assets.Assets) != 1 {
		t.Fatalf("assets = %d %s", res.status, res.body)
	}
	if res := ts.do(t, "POST", "/api/v2/assets/events", fmt.Sprintf(`{"asset_id": %d}`, assets.Assets[0].ID)); res.status != 200 {
		t.Fatalf("POST /assets/events = %d %s", res.status, res.body)
	}
	if err := sched.tick(testNow); err != nil {
		t.Fatal(err)
	}
	runs, err := ts.store.RunsOfDag("tt_asset_or_time", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		id, _, _ := strings.Cut(r.RunID, "T10:00:00.123456+00:00_") // the asset run's run_after and random part
		got = append(got, r.RunType+" "+id)
	}
	slices.Sort(got)
	want := []string{"asset_triggered asset_triggered__2024-05-01", "scheduled scheduled__2024-05-01T01:00:00+00:00"}
	if !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
}

// TestPythonDAG_TimetableArgumentsInHash: a timetable object's arguments
// are part of the definition's hash, so a changed interval (its summary
// the same) is a new DAG version, as Airflow 3 writes a new serialized
// DAG when the timetable's serialized form changes.
func TestPythonDAG_TimetableArgumentsInHash(t *testing.T) {
	t.Parallel()
	hashOf := func(hours int) string {
		dir := t.TempDir()
		src := fmt.Sprintf(`import datetime
import pendulum
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronTriggerTimetable
with DAG("h", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         schedule=CronTriggerTimetable("0 * * * *", timezone="UTC", interval=datetime.timedelta(hours=%d))):
    EmptyOperator(task_id="t")
`, hours)
		if err := os.WriteFile(filepath.Join(dir, "h.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		set := readPyServeFolderAs(t, dir, edition3)
		if len(set.DAGs) != 1 {
			t.Fatalf("dags %d, import errors %+v", len(set.DAGs), set.ImportErrors)
		}
		return dagHash(set.DAGs[0])
	}
	if one, two := hashOf(1), hashOf(2); one == two {
		t.Errorf("hash %s for intervals of one and two hours, want two hashes", one)
	}
}

// TestAPIv2_BackfillOfTimetableObject: a backfill walks the DAG's
// timetable with catchup from from_date to to_date
// (DAG.iter_dagrun_infos_between, c57fba0e serialization/definitions/
// dag.py:434-470): a CronTriggerTimetable with a one-hour interval fires
// at 00:00 ... 02:00, each run dated an hour before; a
// CronDataIntervalTimetable in Paris starts its intervals at Paris
// midnights (22:00 UTC in summer) from from_date on, up to to_date.
func TestAPIv2_BackfillOfTimetableObject(t *testing.T) {
	t.Parallel()
	ts := servePy3Folder(t, "testdata/pydags/timetables3")
	for id, want := range map[string][]string{
		"tt_cron_interval": {"2024-04-29T23:00:00Z", "2024-04-30T00:00:00Z", "2024-04-30T01:00:00Z"},
		"tt_cron_data":     {"2024-04-26T22:00:00Z", "2024-04-27T22:00:00Z"},
	} {
		body := fmt.Sprintf(`{"dag_id": %q, "from_date": "2024-04-26T12:00:00Z", "to_date": "2024-04-30T02:00:00Z", "max_active_runs": 5, "run_backwards": false}`, id)
		if id == "tt_cron_interval" {
			body = strings.Replace(body, "2024-04-26T12:00:00Z", "2024-04-30T00:00:00Z", 1)
		}
		if id == "tt_cron_data" {
			body = strings.Replace(body, "2024-04-30T02:00:00Z", "2024-04-28T00:00:00Z", 1)
		}
		var parts []string
		for _, w := range want {
			parts = append(parts, `{"logical_date":"`+w+`","partition_key":null,"partition_date":null}`)
		}
		wantBody := `{"backfills":[` + strings.Join(parts, ",") + `],"total_entries":` + fmt.Sprint(len(want)) + `}`
		if res := ts.do(t, "POST", "/api/v2/backfills/dry_run", body); res.status != 200 || res.body != wantBody {
			t.Errorf("%s: dry run = %d %s\nwant %s", id, res.status, res.body, wantBody)
		}
	}
}

// TestUI_TimetableObjectSchedule: the status page's DAG list shows a
// timetable object's summary as the DAG's schedule, as Airflow's DAG list
// shows timetable_summary, where it showed None.
func TestUI_TimetableObjectSchedule(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/timetables3", edition3)
	view, _, err := buildDagList(storeWith(t, set), edition3.rules(), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range view.DAGs {
		got[d.DagID] = d.Schedule
	}
	for id, want := range map[string]string{"tt_cron_paris": "0 3 * * *", "tt_events": "3 events", "tt_cron_catchup": "0 0 * * *"} {
		if got[id] != want {
			t.Errorf("%s's schedule on the status page = %q, want %q", id, got[id], want)
		}
	}
}

// TestTemplateDates_TimetableObject: an edition 2 scheduled run of a
// timetable object renders the data interval the timetable gave it
// (2.10.3 stores it with the run: get_run_data_interval), and the
// previous and next schedule of a data-interval timetable
// (DAG.previous_schedule is its _get_prev, models/dag.py:1040-1050;
// following_schedule the next interval's start), None for a trigger
// timetable's previous one.
func TestTemplateDates_TimetableObject(t *testing.T) {
	t.Parallel()
	set := readPyServeFolderAs(t, "testdata/pydags/timetables2", edition2)
	byID := map[string]*DAG{}
	for _, d := range set.DAGs {
		byID[d.DagID] = d
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		dagID, logical, start, end, prev string
	}{
		{"tt2_cron_interval", "2024-05-01T09:00:00Z", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", ""},
		{"tt2_cron_data", "2024-04-29T22:00:00Z", "2024-04-29T22:00:00Z", "2024-04-30T22:00:00Z", "2024-04-28T22:00:00Z"},
		{"tt2_delta_months", "2024-01-31T00:00:00Z", "2024-01-31T00:00:00Z", "2024-02-29T00:00:00Z", "2023-12-31T00:00:00Z"},
	} {
		run := &DagRun{DagID: tc.dagID, RunID: "scheduled__x", ExecutionDate: at(tc.logical), RunType: "scheduled"}
		c := templateContext{dag: byID[tc.dagID], task: byID[tc.dagID].Tasks[0], run: run, try: 1, rules: edition2.rules()}
		start, end := c.dataInterval()
		d := c.dates()
		prev := ""
		if d.prev != nil {
			prev = d.prev.Format(time.RFC3339)
		}
		got := [3]string{start.Format(time.RFC3339), end.Format(time.RFC3339), prev}
		if want := [3]string{tc.start, tc.end, tc.prev}; got != want {
			t.Errorf("%s: data interval and previous schedule %v, want %v", tc.dagID, got, want)
		}
	}
}
