package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// TestEditionRules_Table pins each edition's row of the rules table, one
// value per field; a func field is pinned by what it returns for fixed
// inputs. A field added to editionRules fails the test until it has a
// value here in every row.
// healthText is the /health body of h, or the rendering error.
func healthText(r *editionRules, h webserverHealth) string {
	b, err := r.healthBody(h)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// The /health bodies without a scheduler (TestServer_AirflowHealth has the rest).
const (
	healthBodyNoScheduler2 = `{"dag_processor": {"latest_dag_processor_heartbeat": null, "status": null}, "metadatabase": {"status": "healthy"}, ` +
		`"scheduler": {"latest_scheduler_heartbeat": null, "status": "unhealthy"}, "triggerer": {"latest_triggerer_heartbeat": null, "status": null}}`
	healthBodyNoScheduler110 = "{\n    \"metadatabase\": {\n        \"status\": \"healthy\"\n    },\n    \"scheduler\": {\n" +
		"        \"status\": \"unhealthy\",\n        \"latest_scheduler_heartbeat\": null\n    }\n}"
)

func TestEditionRules_Table(t *testing.T) {
	t.Parallel()
	date := time.Date(2024, 5, 1, 10, 0, 0, 123000, time.UTC)
	queued := date.Add(time.Minute)
	run := &DagRun{ID: 7, DagID: "d", RunID: "r", ExecutionDate: date, State: RunQueued, QueuedAt: &queued, ExternalTrigger: true}
	other := &DagRun{ID: 8, DagID: "d", RunID: "s", ExecutionDate: date}
	bash := &Task{TaskID: "t", Operator: "BashOperator", BashCommand: "echo hi"}
	errText := func(err error) string {
		if err == nil {
			return "accepted"
		}
		return fmt.Sprintf("%v: %v", errors.Unwrap(err), err)
	}
	// triggerRules: each name, as shown, and its outcome after two failed
	// upstream tasks.
	rulesAfterFailures := func(r *editionRules) []string {
		var out []string
		for _, name := range slices.Sorted(maps.Keys(r.triggerRules)) {
			nr := r.triggerRules[name]
			blocked, met := nr.decide(upstreamCounts{total: 2, failed: 2, done: 2})
			out = append(out, fmt.Sprintf("%s=%s %s %v", name, nr.shown, orNone(blocked), met))
		}
		return out
	}
	// pastDependsMet: a daily DAG with catchup, its first run at date, in
	// an empty store (2: no previous run; 1.10: none at the day before).
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	daily := "@daily"
	pastDAG := &DAG{DagID: "d", Schedule: &daily, Catchup: true}
	// One task ends on the 3rd, the other never: Airflow 2.10.3 reads only
	// the DAG's end, none (airflow/models/dag.py:1213-1219), 1.10.15 the
	// earliest (airflow/jobs/scheduler_job.py:742-747). Operators: 2.10.3
	// has EmptyOperator (airflow/operators/empty.py:27) and DummyOperator
	// as its alias (airflow/operators/__init__.py:56-63); 1.10.15 has
	// DummyOperator only (airflow/operators/dummy_operator.py:24) and no
	// decorators.
	taskEnd := time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)
	hourly := "1:00:00"
	hourlyDAG := &DAG{DagID: "h", Schedule: &hourly}
	endingDAG := &DAG{DagID: "e", Tasks: []*Task{{TaskID: "a", EndDate: &taskEnd}, {TaskID: "b"}}}
	observe := func(r *editionRules) map[string]any {
		added := map[string]any{}
		r.operatorFields(added, pastDAG, bash)
		pastMet, pastErr := r.pastDependsMet(storeView{store.read()}, pastDAG, bash, other)
		return map[string]any{
			"triggerRules":            rulesAfterFailures(r),
			"pastDependsMet":          fmt.Sprint(pastMet, pastErr),
			"deltaEpochAligned":       r.deltaEpochAligned,
			"scheduleEnd":             fmt.Sprint(r.scheduleEnd(endingDAG)),
			"capRunningRuns":          r.capRunningRuns,
			"backfills":               r.backfills,
			"scheduleCountsTriggered": r.scheduleCountsTriggered,
			"dagrunTimeout":           r.dagrunTimeout,
			"name":                    r.name,
			"version":                 r.version,
			"gitVersion":              r.gitVersion,
			"masker":                  r.masker.names,
			"storeRenderedFields":     observeRenderedFields(r),
			"masksTaskLog":            r.masksTaskLog,
			"apiV1":                   r.apiV1,
			"experimentalAPI":         r.experimentalAPI,
			"apiV2":                   r.apiV2,
			"bashPushesReturnValue":   r.bashPushesReturnValue,
			"examples":                r.examples,
			"bashSkipExitCode":        r.bashSkipExitCode,
			"healthBody":              healthText(r, webserverHealth{}),
			"operators": fmt.Sprintf("%v %v %v %q", r.operators().known["EmptyOperator"], r.operators().known["DummyOperator"],
				r.operators().known["_PythonDecoratedOperator"], r.operators().renamed["EmptyOperator"]),
			"python":                  r.python.scheduleArg + " " + r.python.dateCall(date) + " " + r.python.modules["BashOperator"],
			"json":                    r.json,
			"jsonNewline":             r.jsonNewline,
			"appHeaders":              r.appHeaders,
			"deprecationHeaders":      r.deprecationHeaders,
			"problemDocument":         r.problemDocument,
			"deleteDagRoute":          r.deleteDagRoute,
			"infoRoute":               r.infoRoute,
			"lineageRoute":            r.lineageRoute,
			"uiRunPath":               r.uiRunPath,
			"runURLDagInQuery":        r.runURLDagInQuery,
			"runURLByRunID":           r.runURLByRunID,
			"uiDagPath":               r.uiDagPath,
			"assetTimetable":          r.assetTimetable,
			"confObjectOnly":          r.confObjectOnly,
			"confString":              r.confString,
			"emptyConf":               r.emptyConf,
			"checkRunID":              r.checkRunID,
			"nullFlagFalse":           r.nullFlagFalse,
			"flagTrue":                r.flagTrue,
			"newRun":                  r.newRun,
			"runStateDates":           r.runStateDates,
			"checkStateFilter":        r.checkStateFilter,
			"ti2Fields":               r.ti2Fields,
			"poolIncludeDeferred":     r.poolIncludeDeferred,
			"pauseNeedsDefinition":    r.pauseNeedsDefinition,
			"pauseSubDAGs":            r.pauseSubDAGs,
			"deleteRefusesRunning":    r.deleteRefusesRunning,
			"deleteStopsTasks":        r.deleteStopsTasks,
			"ignoreMatchesFolderPath": r.ignoreMatchesFolderPath,
			"cronDays":                cronDaysObserved(r.cronDays),
			"cronDescriber":           r.cronDescriber.describe("0 0 1 * 1"),
			"pythonSurface":           r.pythonSurface,
			"mappedPush":              r.mappedPush,
			"catchupByDefault":        r.catchupByDefault,
			"staleDAGAfter":           r.staleDAGAfter,
			"staleOnImportError":      r.staleOnImportError,
			"staleKeepsDefinition":    r.staleKeepsDefinition,
			"allowedRunTypes":         r.allowedRunTypes,
			"operatorTriggerRoute":    r.operatorTriggerRoute,
			"orphans":                 r.orphans,
			"errorDate":               r.errorDate(date),
			"duplicate": []string{ // same run_id; same date; both, as two runs; neither
				errText(r.duplicate("d", "r", date, run, nil)),
				errText(r.duplicate("d", "r", date, nil, other)),
				errText(r.duplicate("d", "r", date, run, other)),
				errText(r.duplicate("d", "r", date, nil, nil)),
			},
			"triggerMessage": []string{ // without, then with a date from the client
				r.triggerMessage(run, date, false),
				r.triggerMessage(run, date, true),
			},
			"operatorFields": slices.Sorted(maps.Keys(added)), // of a BashOperator
			// The names of a task's Jinja context; strictness; str() of ti and dag_run.
			"templateVars":            slices.Sorted(maps.Keys(r.templateVars(templateContext{dag: &DAG{DagID: "d"}, task: bash, run: run, try: 1, rules: r}))),
			"templateStrictUndefined": r.templateStrictUndefined,
			"taskInstanceStr":         r.taskInstanceStr(templateContext{dag: &DAG{DagID: "d"}, task: bash, run: run, try: 1, rules: r}),
			"dagRunStr":               r.dagRunStr(run),
			"templateRunAttributes2":  r.templateRunAttributes2,
			"templateDateFilters":     r.templateDateFilters,
			"bashRendersCwd":          r.bashRendersCwd,
			"templateExecutionDate":   r.templateExecutionDate,
			"taskStates":              r.taskStates,
			"nullLogicalDate":         r.nullLogicalDate,
			"paramsMerged":            r.paramsMerged,
			"paramSchemas":            r.paramSchemas,
			"scheduleParams":          scheduleParamsOf(r),
			"assetsFollowFile":        r.assetsFollowFile,
			"werkzeugReasons":         r.werkzeugReasons,
			"depLogicalDate":          r.depLogicalDate,
			"runTypes":                r.runTypes,
			"triggerRunType":          r.triggerRunType,
			"tryAtSchedule":           r.tryAtSchedule,
			"setStateDuration":        r.setStateDuration,
			"teardownScope":           r.teardownScope,
			"scheduledRuns":           r.scheduledRuns,
			"lastRun":                 r.lastRun,
			"cronInZone":              r.cronInZone,
			// With a logical date, then without one (the random part masked).
			"runID": []string{r.runID("manual", &date, queued),
				regexp.MustCompile(`_[A-Za-z0-9]{8}$`).ReplaceAllString(r.runID("manual", nil, queued), "_<random>")},
			"triggerRunID": []string{r.triggerRunID("manual", &date, queued), r.triggerRunID("manual", nil, queued)},
			// A TriggerDagRunOperator's run id at date, without a date (now
			// is queued; the random part masked), and with the date as the
			// file wrote it.
			"operatorRunID": []string{r.operatorRunID(&date, "", queued),
				regexp.MustCompile(`_[A-Za-z0-9]{8}$`).ReplaceAllString(r.operatorRunID(nil, "", queued), "_<random>"),
				r.operatorRunID(&date, "2024-05-01", queued)},
			"operatorDateXCom": r.operatorDateXCom,
			// A daily DAG's and an hourly duration's interval at date.
			"manualInterval": []string{intervalText(r.manualInterval(pastDAG, date)), intervalText(r.manualInterval(hourlyDAG, date))},
			// A pull of two task ids, one with an entry: the shape of the
			// answer and whether the run is found by its date.
			"xcomPull": func() string {
				var byDate bool
				tc := templateContext{dag: &DAG{DagID: "d"}, task: bash, run: run, try: 1, rules: r,
					xcoms: func(q XComPullQuery) ([]*XComEntry, error) {
						byDate = q.ByDate
						if slices.Contains(q.TaskIDs, "a") {
							return []*XComEntry{{DagID: "d", RunID: "r", TaskID: "a", MapIndex: -1, Key: xcomReturnKey, Value: json.RawMessage(`"x"`)}}, nil
						}
						return nil, nil
					}}
				v, err := r.xcomPull(tc, &exec.VarArgs{Args: []*exec.Value{exec.AsValue([]any{"a", "missing"})}, KwArgs: map[string]*exec.Value{}})
				return fmt.Sprintf("%s %v byDate=%v", templateRepr(exec.AsValue(v)), err, byDate)
			}(),
		}
	}

	want2 := map[string]any{
		"name":       edition2,
		"version":    "2.10.3",
		"gitVersion": ".release:c99887ec11ce3e1a43f2794fcf36d27555140f00",
		// Airflow 2.10.3 airflow/utils/log/secrets_masker.py:57-72
		"masker": []string{"access_token", "api_key", "apikey", "authorization", "passphrase", "passwd",
			"password", "private_key", "secret", "token", "keyfile_dict", "service_account"},
		// models/renderedtifields.py:148-155 _redact, serialization/helpers.py:44-66
		"storeRenderedFields":   `map[password:***] echo *** "x'... "`,
		"masksTaskLog":          true, // utils/log/secrets_masker.py:199-214 filter
		"apiV1":                 true,
		"experimentalAPI":       true,
		"apiV2":                 false,
		"bashPushesReturnValue": true,
		"examples":              "fixtures/2.10.3", // each release's own example DAGs
		"bashSkipExitCode":      99,
		"healthBody":            healthBodyNoScheduler2,
		"operators":             `true true true ""`,
		"python":                `schedule pendulum.datetime(2024, 5, 1, 10, 0, 0, tz="UTC") airflow.operators.bash`,
		"json":                  spacedJSON,
		"jsonNewline":           false,
		"appHeaders":            true,
		"deprecationHeaders":    true,
		"problemDocument":       true,
		"deleteDagRoute":        true,
		"infoRoute":             true,
		"lineageRoute":          true,
		"uiRunPath":             "/dags/:dag_id/graph",
		"runURLDagInQuery":      false,
		"runURLByRunID":         false,
		"uiDagPath":             "",
		// 2.10.3 airflow/timetables/simple.py DatasetTriggeredTimetable
		"assetTimetable": Timetable{Summary: "Dataset", Description: "Triggered by datasets", Type: "airflow.timetables.simple.DatasetTriggeredTimetable"},
		"confObjectOnly": true,
		"confString":     false,
		"emptyConf":      json.RawMessage(`{}`),
		"checkRunID":     true,
		"nullFlagFalse":  true,
		"flagTrue":       []string{"t", "true", "y", "yes", "1", "on"},
		"triggerRules": []string{"all_done=all_done none true", "all_done_setup_success=all_done_setup_success none true",
			"all_failed=all_failed none true", "all_skipped=all_skipped skipped false", "all_success=all_success upstream_failed false",
			"always=always none true", "dummy=always none true", "none_failed=none_failed upstream_failed false",
			"none_failed_min_one_success=none_failed_min_one_success upstream_failed false",
			"none_failed_or_skipped=none_failed_min_one_success upstream_failed false", "none_skipped=none_skipped none true",
			"one_done=one_done none true", "one_failed=one_failed none true", "one_success=one_success upstream_failed false"},
		"pastDependsMet":          "true <nil>",
		"deltaEpochAligned":       true,
		"scheduleEnd":             "<nil>",
		"capRunningRuns":          false,
		"backfills":               false,
		"scheduleCountsTriggered": true,
		"dagrunTimeout":           dagrunTimeoutRule{scheduledOnly: false, skipUnfinished: true},
		"newRun": runStart{state: RunQueued, startDate: false, tiUpdatedAt: true,
			taskEndDate: true, backfillPrefix: "backfill__"},
		"runStateDates":        runStateDates{endOnlyFromUnfinished: true, restartFinished: true, tiSetState: true},
		"checkStateFilter":     true,
		"ti2Fields":            true,
		"poolIncludeDeferred":  true,
		"pauseNeedsDefinition": false,
		"pauseSubDAGs":         true,
		"deleteRefusesRunning": true,
		"deleteStopsTasks":     false,
		// Airflow 2.10.3 airflow/utils/file.py:77
		"ignoreMatchesFolderPath": false,
		// croniter 5.0.1 (constraints-2.10.3) src/croniter/croniter.py:1000-1008
		"cronDays": "2024-01-02",
		// cron-descriptor 1.4.5 (constraints-2.10.3)
		"cronDescriber": "At 00:00, on day 1 of the month, only on Monday",
		"pythonSurface": "2", "catchupByDefault": true,
		// 2.10.3 taskinstance.py _record_task_map_for_downstreams, after the push
		"mappedPush": mappedPushRule{checked: true},
		// 2.10.3 dag_processing/manager.py:509-549, stale_dag_threshold 50
		"staleDAGAfter":      50 * time.Second,
		"staleOnImportError": false,
		// 2.10.3 models/serialized_dag.py:251-281 remove_deleted_dags
		"staleKeepsDefinition": false,
		"allowedRunTypes":      false,
		"operatorTriggerRoute": false,
		"orphans":              orphanPolicy{states: []TaskState{TaskQueued, TaskRunning}, zombies: false},
		"errorDate":            "2024-05-01 10:00:00.000123+00:00",
		"duplicate": []string{
			"bad request: A DAG Run already exists for DAG d at 2024-05-01 10:00:00.000123+00:00 with run id r",
			"bad request: A DAG Run already exists for DAG d at 2024-05-01 10:00:00.000123+00:00 with run id r",
			"airflow crashes on this input: run id r and execution date 2024-05-01 10:00:00.000123+00:00 match two different runs of d",
			"accepted",
		},
		"triggerMessage": []string{
			"Created <DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, state:queued, queued_at: 2024-05-01 10:01:00.000123+00:00. externally triggered: True>",
			"Created <DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, state:queued, queued_at: 2024-05-01 10:01:00.000123+00:00. externally triggered: True>",
		},
		// Airflow 2.10.3 airflow/models/taskinstance.py:1109-1160, less conf and dataset events.
		"templateVars":            templateNames2,
		"templateStrictUndefined": true,
		"taskInstanceStr":         "<TaskInstance: d.t r [running]>",
		"dagRunStr":               "<DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, state:queued, queued_at: 2024-05-01 10:01:00.000123+00:00. externally triggered: True>",
		"templateRunAttributes2":  true,
		"templateDateFilters":     true,
		// Airflow 2.10.3 airflow/operators/bash.py:148
		"bashRendersCwd":        true,
		"templateExecutionDate": true,
		// Airflow 2.10.3 airflow/utils/state.py:35-64
		"taskStates": []string{"removed", "scheduled", "queued", "running", "success", "restarting", "failed",
			"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "deferred", "shutdown"},
		"nullLogicalDate": false,
		"paramsMerged":    false,
		// 2.10.3 models/param.py; models/dag.py:3724-3727 as dagbag.py:485 records it.
		"paramSchemas":   true,
		"scheduleParams": []string{"AirflowException", "DAG is not allowed to define a Schedule, if there are any required params without default values or default values are not valid."},
		// Airflow 2.10.3 airflow/models/dag.py bulk_write_to_db: datasets
		// are created when missing, never updated.
		"assetsFollowFile": false,
		// Werkzeug's _clean_status behind gunicorn: "404 NOT FOUND".
		"werkzeugReasons": true,
		"depLogicalDate":  false,
		// Airflow 2.10.3 airflow/utils/types.py:75-81
		"runTypes":         []string{"backfill", "scheduled", "manual", "dataset_triggered"},
		"triggerRunType":   "",
		"tryAtSchedule":    false,
		"setStateDuration": true,
		"teardownScope":    false,
		"scheduledRuns":    scheduledRunRule{triggerTimetable: false},
		// 2.10.3 airflow/models/dag.py:3523-3556 _get_latest_runs_stmt
		"lastRun": lastAutomated,
		// 2.10.3 airflow/timetables/_cron.py:106-148 in the DAG's zone
		"cronInZone": true,
		// 2.10.3 airflow/models/dagrun.py generate_run_id: the logical date
		"runID":        []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
		"triggerRunID": []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
		// 2.10.3 operators/trigger_dagrun.py:180-190: DagRun.generate_run_id
		// of the logical date (None is now)
		"operatorRunID": []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00",
			"manual__2024-05-01T10:00:00.000123+00:00"},
		// :224-225 trigger_execution_date_iso beside trigger_run_id
		"operatorDateXCom": true,
		"manualInterval":   []string{"none", "none"},
		// Airflow 2.10.3 airflow/models/taskinstance.py:644-661, airflow/models/xcom.py:556
		"xcomPull": "['x'] <nil> byDate=false",
		"operatorFields": []string{"allow_nested_operators", "bash_command", "cwd", "doc", "doc_json", "doc_md", "doc_rst", "doc_yaml",
			"downstream_task_ids", "env", "executor", "ignore_first_depends_on_past", "map_index_template", "max_active_tis_per_dag",
			"max_active_tis_per_dagrun", "multiple_outputs", "on_execute_callback", "on_skipped_callback", "operator_extra_links",
			"start_from_trigger", "start_trigger_args", "task_group", "template_ext", "template_fields", "template_fields_renderers",
			"ui_color", "ui_fgcolor", "upstream_task_ids", "wait_for_past_depends_before_skipping", "weight_rule"},
	}
	rows := []struct {
		edition edition
		want    map[string]any
	}{
		{edition2, want2},
		{edition3, want3(want2)},
		{edition110, map[string]any{
			"name":                    edition110,
			"version":                 "1.10.15",
			"gitVersion":              nil,
			"masker":                  []string(nil), // no secrets masker before 2.1
			"storeRenderedFields":     "as rendered", // models/renderedtifields.py:43-56
			"masksTaskLog":            false,         // no utils/log/secrets_masker.py
			"apiV1":                   false,
			"experimentalAPI":         true,
			"apiV2":                   false,
			"bashPushesReturnValue":   false,
			"examples":                "fixtures/1.10.15", // each release's own example DAGs
			"bashSkipExitCode":        0,
			"healthBody":              healthBodyNoScheduler110,
			"operators":               `false true false "DummyOperator"`,
			"python":                  "schedule_interval timezone.datetime(2024, 5, 1, 10, 0, 0) airflow.operators.bash_operator",
			"json":                    compactJSON,
			"jsonNewline":             true,
			"appHeaders":              false,
			"deprecationHeaders":      false,
			"problemDocument":         false,
			"deleteDagRoute":          true,
			"infoRoute":               false,
			"lineageRoute":            false,
			"uiRunPath":               "/admin/airflow/graph",
			"runURLDagInQuery":        true,
			"runURLByRunID":           false,
			"uiDagPath":               "",
			"assetTimetable":          Timetable{}, // no datasets
			"confObjectOnly":          false,
			"confString":              true,
			"emptyConf":               json.RawMessage(nil),
			"checkRunID":              false,
			"nullFlagFalse":           false,
			"flagTrue":                []string{"t", "true", "y", "yes", "1"},
			"triggerRules":            triggerRules110Observed,
			"pastDependsMet":          "false <nil>",
			"deltaEpochAligned":       false,
			"scheduleEnd":             "2024-01-03 00:00:00 +0000 UTC",
			"capRunningRuns":          true,
			"backfills":               false,
			"scheduleCountsTriggered": false,
			"dagrunTimeout":           dagrunTimeoutRule{scheduledOnly: true, skipUnfinished: false},
			"runStateDates":           runStateDates{endOnlyFromUnfinished: false, restartFinished: false},
			"newRun": runStart{state: RunRunning, startDate: true, tiUpdatedAt: false,
				taskEndDate: false, backfillPrefix: "backfill_"},
			"checkStateFilter":     false,
			"ti2Fields":            false,
			"poolIncludeDeferred":  false,
			"pauseNeedsDefinition": true,
			"pauseSubDAGs":         true,
			"deleteRefusesRunning": false,
			"deleteStopsTasks":     true,
			// Airflow 1.10.15 airflow/utils/dag_processing.py:338,355
			"ignoreMatchesFolderPath": true,
			// croniter 0.3.36 (constraints-1.10.15) src/croniter/croniter.py:618-619
			"cronDays": "2024-01-08",
			// 1.10.15 has no timetable_description
			"cronDescriber": "",
			"pythonSurface": "1.10", "catchupByDefault": true,
			// 1.10.15 has no task mapping
			"mappedPush": mappedPushRule{},
			// 1.10.15 jobs/scheduler_job.py:1491-1499: at the job's end only
			"staleDAGAfter":      staleDAGsKept,
			"staleOnImportError": false,
			// 1.10.15 models/serialized_dag.py:172 remove_deleted_dags
			"staleKeepsDefinition": false,
			"allowedRunTypes":      false,
			"operatorTriggerRoute": false,
			"orphans":              orphanPolicy{states: []TaskState{TaskQueued, TaskRunning, TaskScheduled}, zombies: true},
			"errorDate":            "2024-05-01T10:00:00.000123+00:00",
			"duplicate":            duplicates110,
			"triggerMessage":       triggerMessages110,
			// Airflow 1.10.15 airflow/models/taskinstance.py:1348-1389, less conf.
			"templateVars":            templateNames110,
			"templateStrictUndefined": false,
			"taskInstanceStr":         "<TaskInstance: d.t 2024-05-01 10:00:00.000123+00:00 [running]>",
			"dagRunStr":               "<DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, externally triggered: True>",
			"templateRunAttributes2":  false,
			"templateDateFilters":     false,
			// Airflow 1.10.15 airflow/operators/bash_operator.py:88
			"bashRendersCwd":        false,
			"templateExecutionDate": true,
			"taskStates":            taskStates110,
			"nullLogicalDate":       false,
			"paramsMerged":          false,
			// Airflow 1.10.15 has no Param.
			"paramSchemas":     false,
			"scheduleParams":   []string(nil),
			"assetsFollowFile": false,
			"werkzeugReasons":  true,
			"depLogicalDate":   false,
			"runTypes":         []string(nil),
			"triggerRunType":   "",
			"tryAtSchedule":    false,
			"setStateDuration": false,
			"teardownScope":    false,
			"scheduledRuns":    scheduledRunRule{triggerTimetable: false},
			// 1.10.15 airflow/jobs/scheduler_job.py:660-669
			"lastRun": lastScheduled,
			// airlite keeps UTC (1.10.15's following_schedule not reproduced)
			"cronInZone":   false,
			"runID":        []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
			"triggerRunID": []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
			// 1.10.15 operators/dagrun_operator.py:78-82: trig__ and the date
			// as written, or now's isoformat()
			"operatorRunID": []string{"trig__2024-05-01T10:01:00.000123+00:00", "trig__2024-05-01T10:01:00.000123+00:00",
				"trig__2024-05-01"},
			"operatorDateXCom": false,
			"manualInterval":   []string{"none", "none"},
			// Airflow 1.10.15 airflow/models/taskinstance.py:1561-1562, airflow/models/xcom.py:147
			"xcomPull":       "('x', None) <nil> byDate=true",
			"operatorFields": operatorFields110Bash,
		}},
		{edition110RBAC, map[string]any{
			"name":                    edition110RBAC,
			"version":                 "1.10.15",
			"gitVersion":              nil,
			"masker":                  []string(nil), // no secrets masker before 2.1
			"storeRenderedFields":     "as rendered", // models/renderedtifields.py:43-56
			"masksTaskLog":            false,         // no utils/log/secrets_masker.py
			"apiV1":                   false,
			"experimentalAPI":         true,
			"apiV2":                   false,
			"bashPushesReturnValue":   false,
			"examples":                "fixtures/1.10.15", // each release's own example DAGs
			"bashSkipExitCode":        0,
			"healthBody":              healthBodyNoScheduler110,
			"operators":               `false true false "DummyOperator"`,
			"python":                  "schedule_interval timezone.datetime(2024, 5, 1, 10, 0, 0) airflow.operators.bash_operator",
			"json":                    compactJSON,
			"jsonNewline":             true,
			"appHeaders":              false,
			"deprecationHeaders":      false,
			"problemDocument":         false,
			"deleteDagRoute":          false,
			"infoRoute":               false,
			"lineageRoute":            false,
			"uiRunPath":               "/graph",
			"runURLDagInQuery":        true,
			"runURLByRunID":           false,
			"uiDagPath":               "",
			"assetTimetable":          Timetable{}, // no datasets
			"confObjectOnly":          false,
			"confString":              true,
			"emptyConf":               json.RawMessage(nil),
			"checkRunID":              false,
			"nullFlagFalse":           false,
			"flagTrue":                []string{"t", "true", "y", "yes", "1"},
			"triggerRules":            triggerRules110Observed,
			"pastDependsMet":          "false <nil>",
			"deltaEpochAligned":       false,
			"scheduleEnd":             "2024-01-03 00:00:00 +0000 UTC",
			"capRunningRuns":          true,
			"backfills":               false,
			"scheduleCountsTriggered": false,
			"dagrunTimeout":           dagrunTimeoutRule{scheduledOnly: true, skipUnfinished: false},
			"runStateDates":           runStateDates{endOnlyFromUnfinished: false, restartFinished: false},
			"newRun": runStart{state: RunRunning, startDate: true, tiUpdatedAt: false,
				taskEndDate: false, backfillPrefix: "backfill_"},
			"checkStateFilter":     false,
			"ti2Fields":            false,
			"poolIncludeDeferred":  false,
			"pauseNeedsDefinition": false,
			"pauseSubDAGs":         false,
			"deleteRefusesRunning": false,
			"deleteStopsTasks":     true,
			// Airflow 1.10.15 airflow/utils/dag_processing.py:338,355
			"ignoreMatchesFolderPath": true,
			// croniter 0.3.36 (constraints-1.10.15) src/croniter/croniter.py:618-619
			"cronDays": "2024-01-08",
			// 1.10.15 has no timetable_description
			"cronDescriber": "",
			"pythonSurface": "1.10", "catchupByDefault": true,
			// 1.10.15 has no task mapping
			"mappedPush": mappedPushRule{},
			// 1.10.15 jobs/scheduler_job.py:1491-1499: at the job's end only
			"staleDAGAfter":      staleDAGsKept,
			"staleOnImportError": false,
			// 1.10.15 models/serialized_dag.py:172 remove_deleted_dags
			"staleKeepsDefinition": false,
			"allowedRunTypes":      false,
			"operatorTriggerRoute": false,
			"orphans":              orphanPolicy{states: []TaskState{TaskQueued, TaskRunning, TaskScheduled}, zombies: true},
			"errorDate":            "2024-05-01T10:00:00.000123+00:00",
			"duplicate":            duplicates110,
			"triggerMessage":       triggerMessages110,
			// Airflow 1.10.15 airflow/models/taskinstance.py:1348-1389, less conf.
			"templateVars":            templateNames110,
			"templateStrictUndefined": false,
			"taskInstanceStr":         "<TaskInstance: d.t 2024-05-01 10:00:00.000123+00:00 [running]>",
			"dagRunStr":               "<DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, externally triggered: True>",
			"templateRunAttributes2":  false,
			"templateDateFilters":     false,
			// Airflow 1.10.15 airflow/operators/bash_operator.py:88
			"bashRendersCwd":        false,
			"templateExecutionDate": true,
			"taskStates":            taskStates110,
			"nullLogicalDate":       false,
			"paramsMerged":          false,
			// Airflow 1.10.15 has no Param.
			"paramSchemas":     false,
			"scheduleParams":   []string(nil),
			"assetsFollowFile": false,
			"werkzeugReasons":  true,
			"depLogicalDate":   false,
			"runTypes":         []string(nil),
			"triggerRunType":   "",
			"tryAtSchedule":    false,
			"setStateDuration": false,
			"teardownScope":    false,
			"scheduledRuns":    scheduledRunRule{triggerTimetable: false},
			// 1.10.15 airflow/jobs/scheduler_job.py:660-669
			"lastRun": lastScheduled,
			// airlite keeps UTC (1.10.15's following_schedule not reproduced)
			"cronInZone":   false,
			"runID":        []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
			"triggerRunID": []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
			// 1.10.15 operators/dagrun_operator.py:78-82: trig__ and the date
			// as written, or now's isoformat()
			"operatorRunID": []string{"trig__2024-05-01T10:01:00.000123+00:00", "trig__2024-05-01T10:01:00.000123+00:00",
				"trig__2024-05-01"},
			"operatorDateXCom": false,
			"manualInterval":   []string{"none", "none"},
			// Airflow 1.10.15 airflow/models/taskinstance.py:1561-1562, airflow/models/xcom.py:147
			"xcomPull":       "('x', None) <nil> byDate=true",
			"operatorFields": operatorFields110Bash,
		}},
	}

	fields := reflect.TypeFor[editionRules]()
	for _, row := range rows {
		t.Run(string(row.edition), func(t *testing.T) {
			t.Parallel()
			r := row.edition.rules()
			if r == nil {
				t.Fatal("no rules")
			}
			got := observe(r)
			for _, name := range ruleNames(fields) {
				if _, ok := got[name]; !ok {
					t.Errorf("field %s is not observed by this test", name)
				}
				if _, ok := row.want[name]; !ok {
					t.Errorf("field %s has no wanted value", name)
				}
			}
			for name, want := range row.want {
				if !reflect.DeepEqual(got[name], want) {
					t.Errorf("%s = %#v, want %#v", name, got[name], want)
				}
			}
		})
	}
}

// want3 is edition 3's row: Airflow 2's rules with what Airflow 3.2.1
// changed.
func want3(want2 map[string]any) map[string]any {
	w := maps.Clone(want2)
	for k, v := range map[string]any{
		"name": edition3, "version": "3.2.1", "gitVersion": nil,
		// shared/secrets_masker DEFAULT_SENSITIVE_FIELDS: 2.10.3's, #61580, #61906
		"masker": []string{"access_token", "api_key", "apikey", "authorization", "passphrase", "passwd",
			"password", "private_key", "secret", "token", "keyfile_dict", "service_account",
			"access_key", "connection_string", "proxy", "proxy_password", "proxies"},
		// task-sdk execution_time/task_runner.py:957-1047; secrets of 5
		// characters at least; shared/template_rendering truncate_rendered_value
		"storeRenderedFields": `map[password:***] echo abcd "xxx..."`,
		"apiV1":               false, "experimentalAPI": false, "apiV2": true,
		"json": compactJSON, "appHeaders": false, "deprecationHeaders": false,
		// airflow-core/src/airflow/utils/state.py TaskInstanceState (spec/v2.yaml)
		"taskStates": []string{"removed", "scheduled", "queued", "running", "success", "restarting", "failed",
			"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "deferred"},
		"newRun": runStart{state: RunQueued, startDate: false, tiUpdatedAt: true,
			taskEndDate: true, backfillPrefix: "backfill__", tiIDs: true},
		"nullLogicalDate": true,
		"paramsMerged":    true,
		// task-sdk definitions/dag.py:597-600 of c57fba0e.
		"scheduleParams": []string{"ValueError", "Dag 'd' is not allowed to define a Schedule, as there are required params without default values, or the default values are not valid."},
		// dag_processing/collection.py sync_assets, sync_asset_aliases.
		"assetsFollowFile": true,
		// uvicorn: Python's http.HTTPStatus phrases, which are Go's.
		"werkzeugReasons": false,
		"depLogicalDate":  true,
		// Airflow 3.2.1's example DAGs; its UI addresses runs by id
		// (airflow-core/src/airflow/ui/src/router.tsx).
		"examples": "fixtures/3.2.1", "uiRunPath": "/dags/:dag_id/runs/:run_id", "uiDagPath": "/dags/:dag_id", "runURLByRunID": true,
		// Airflow 3's authoring surface (python/airflow, "3").
		"pythonSurface": "3",
		// task-sdk task_runner.py _push_xcom_if_needed, before the push
		"mappedPush": mappedPushRule{checked: true, beforePush: true},
		// the standard provider's modules, which 3.2.1's example DAGs import
		"python": `schedule pendulum.datetime(2024, 5, 1, 10, 0, 0, tz="UTC") airflow.providers.standard.operators.bash`,
		// airflow-core config.yml [scheduler] catchup_by_default
		"catchupByDefault": false,
		// cron-descriptor 2.0.6 (uv.lock of c57fba0e), c57fba0e
		// timetables/_cron.py:84-119 (apache/airflow#54644)
		"cronDescriber": "At 00:00, on day 1 of the month (or) At 00:00, only on Monday",
		// Airflow 3's dag_processing/collection.py _update_import_errors
		"staleOnImportError": true,
		// 3.2.1 models/dag.py DagModel.deactivate_deleted_dags: is_stale only
		"staleKeepsDefinition": true,
		// Airflow 3.2.0's DAG argument (migration 0105_3_2_0)
		"allowedRunTypes": true,
		// task-sdk task_runner.py _handle_trigger_dag_run: the execution
		// API's trigger route (execution_api/routes/dag_runs.py)
		"operatorTriggerRoute": true,
		// airflow-core/src/airflow/utils/types.py DagRunType
		"runTypes":         []string{"backfill", "scheduled", "manual", "asset_triggered", "asset_materialization"},
		"triggerRunType":   "manual",
		"tryAtSchedule":    true,
		"setStateDuration": true,
		// 3.2.0 trigger_rule_dep.py _evaluate_teardown_scope (apache/airflow#64181)
		"teardownScope": true,
		"scheduledRuns": scheduledRunRule{triggerTimetable: true},
		// airflow-core/src/airflow/models/dagrun.py generate_run_id: run_after, and a random part without a logical date
		"runID": []string{"manual__2024-05-01T10:01:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00_<random>"},
		// Timetable.generate_run_id (timetables/base.py:325-339 of c57fba0e):
		// run_after alone, no random part
		"triggerRunID": []string{"manual__2024-05-01T10:01:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00"},
		// the standard provider's trigger_dagrun.py:262-273:
		// DagRun.generate_run_id(logical_date, run_after=logical_date or now)
		"operatorRunID": []string{"manual__2024-05-01T10:00:00.000123+00:00", "manual__2024-05-01T10:01:00.000123+00:00_<random>",
			"manual__2024-05-01T10:00:00.000123+00:00"},
		// only trigger_run_id (task_runner.py:1461)
		"operatorDateXCom": false,
		// CronTriggerTimetable's and DeltaTriggerTimetable's instant
		// (_TriggerTimetable.infer_manual_data_interval with interval 0,
		// timetables/trigger.py:49-53 of c57fba0e)
		"manualInterval": []string{"2024-05-01T10:00:00.000123+00:00 2024-05-01T10:00:00.000123+00:00",
			"2024-05-01T10:00:00.000123+00:00 2024-05-01T10:00:00.000123+00:00"},
		// task-sdk/src/airflow/sdk/execution_time/task_runner.py get_template_context
		"templateVars": []string{"conn", "dag", "dag_run", "data_interval_end", "data_interval_start", "ds", "ds_nodash",
			"inlet_events", "inlets", "logical_date", "macros", "map_index_template", "outlet_events", "outlets", "params",
			"prev_data_interval_end_success", "prev_data_interval_start_success", "prev_end_date_success",
			"prev_start_date_success", "run_id", "task", "task_instance", "task_instance_key_str", "task_reschedule_count",
			"ti", "triggering_asset_events", "ts", "ts_nodash", "ts_nodash_with_tz", "var"},
		"dagRunStr":             "<DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, state:queued, queued_at: 2024-05-01 10:01:00.000123+00:00. run_type: >",
		"templateExecutionDate": false,
		"backfills":             true,
		// airflow-core/src/airflow/timetables/simple.py AssetTriggeredTimetable
		"assetTimetable": Timetable{Summary: "Asset", Description: "Triggered by assets", Type: "airflow.timetables.simple.AssetTriggeredTimetable"},
	} {
		w[k] = v
	}
	return w
}

// What the two 1.10 editions share, pinned once for both rows.
var (
	// Airflow 1.10.15 airflow/utils/state.py:33-50
	taskStates110 = []string{"removed", "scheduled", "queued", "running", "success", "shutdown", "failed",
		"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped"}
	triggerRules110Observed = []string{"all_done=all_done none true", "all_failed=all_failed none true",
		"all_success=all_success upstream_failed false", "dummy=dummy none true", "none_failed=none_failed upstream_failed false",
		"none_failed_or_skipped=none_failed_or_skipped upstream_failed false", "none_skipped=none_skipped none true",
		"one_failed=one_failed none true", "one_success=one_success skipped false"}
	duplicates110 = []string{
		"bad request: Run id r already exists for dag id d",
		"airflow crashes on this input: a run of d already exists at 2024-05-01T10:00:00.000123+00:00 (run id s): execution dates are unique per DAG",
		"bad request: Run id r already exists for dag id d",
		"accepted",
	}
	triggerMessages110 = []string{
		"Created <DagRun d @ 2024-05-01 10:00:00.000123+00:00: r, externally triggered: True>",
		"Created <DagRun d @ 2024-05-01T10:00:00.000123+00:00: r, externally triggered: True>",
	}
	templateNames2 = []string{"conn", "dag", "dag_run", "data_interval_end", "data_interval_start", "ds", "ds_nodash",
		"execution_date", "expanded_ti_count", "inlets", "logical_date", "macros", "map_index_template",
		"next_ds", "next_ds_nodash", "next_execution_date", "outlets", "params", "prev_data_interval_end_success",
		"prev_data_interval_start_success", "prev_ds", "prev_ds_nodash", "prev_end_date_success",
		"prev_execution_date", "prev_execution_date_success", "prev_start_date_success", "run_id", "task",
		"task_instance", "task_instance_key_str", "test_mode", "ti", "tomorrow_ds", "tomorrow_ds_nodash",
		"ts", "ts_nodash", "ts_nodash_with_tz", "var", "yesterday_ds", "yesterday_ds_nodash"}
	templateNames110 = []string{"END_DATE", "dag", "dag_run", "ds", "ds_nodash", "end_date", "execution_date",
		"inlets", "latest_date", "macros", "next_ds", "next_ds_nodash", "next_execution_date", "outlets",
		"params", "prev_ds", "prev_ds_nodash", "prev_execution_date", "prev_execution_date_success",
		"prev_start_date_success", "run_id", "tables", "task", "task_instance", "task_instance_key_str",
		"test_mode", "ti", "tomorrow_ds", "tomorrow_ds_nodash", "ts", "ts_nodash", "ts_nodash_with_tz",
		"var", "yesterday_ds", "yesterday_ds_nodash"}
	operatorFields110Bash = []string{"bash_command", "env", "lineage_data", "output_encoding", "sub_process",
		"subdag", "task_concurrency", "xcom_push_flag"}
)

// TestEditionRules_Names: every edition parseEdition takes has its row,
// named after it; other names have none.
func TestEditionRules_Names(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"3", "2", "1.10", "1.10-rbac"} {
		e, err := parseEdition(name)
		if err != nil {
			t.Fatalf("parseEdition(%q): %v", name, err)
		}
		if r := e.rules(); r == nil || r.name != e {
			t.Errorf("%q: rules() = %v", name, r)
		}
	}
	for _, name := range []edition{"", "1", "2.10.3", "1.10-RBAC", "3.2.1", "4"} {
		if r := name.rules(); r != nil {
			t.Errorf("%q: rules() = %s's, want none", name, r.name)
		}
	}
}

// TestEditionRules_DagRunURL: the run link each edition builds from
// uiRunPath and runURLDagInQuery, with characters each form escapes.
func TestEditionRules_DagRunURL(t *testing.T) {
	t.Parallel()
	date := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for e, want := range map[edition]string{
		edition2:       "/dags/a+b%20c/graph?execution_date=2024-05-01+10%3A00%3A00%2B00%3A00",
		edition110:     "/admin/airflow/graph?dag_id=a%2Bb+c&execution_date=2024-05-01+10%3A00%3A00%2B00%3A00",
		edition110RBAC: "/graph?dag_id=a%2Bb+c&execution_date=2024-05-01+10%3A00%3A00%2B00%3A00",
	} {
		if got := e.rules().dagRunURL("a+b c", date); got != want {
			t.Errorf("%s: dagRunURL = %q, want %q", e, got, want)
		}
	}
}

// Shorthands for tests that name an edition and want one of its rules:
// the code itself reads the rules table.

func (e edition) isAirflow1() bool                        { return e != edition2 }
func (e edition) marshal(v any) ([]byte, error)           { return e.rules().appendJSON(nil, v) }
func (e edition) taskInfo(d *DAG, t *Task) map[string]any { return e.rules().taskInfo(d, t) }
func (e edition) dagRunURL(dagID string, date time.Time) string {
	return e.rules().dagRunURL(dagID, date)
}

// intervalText is a data interval's two ends, or "none".
func intervalText(iv *dataInterval) string {
	if iv == nil {
		return "none"
	}
	return isoFormat(iv.start) + " " + isoFormat(iv.end)
}

// cronDaysObserved is the first tick of `0 0 1-31 * 1` after New Year's
// Day 2024 (a Monday) under a day rule: the 2nd when a day of month that
// lists every day stays a list beside the Monday, the 8th when it counts
// as `*`.
func cronDaysObserved(days cronDayRule) string {
	c, err := compileCron("0 0 1-31 * 1", days)
	if err != nil {
		return err.Error()
	}
	next, err := c.next(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), false)
	if err != nil {
		return err.Error()
	}
	return next.Format(time.DateOnly)
}

// ruleNames are the rules' field names, the fields of the sub-tables
// (apiRules, runRules, ...) in place of the sub-tables themselves: a rule
// is one field, wherever it is grouped.
func ruleNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, ruleNames(f.Type)...)
			continue
		}
		names = append(names, f.Name)
	}
	return names
}

// scheduleParamsOf is the exception an edition records for a DAG "d"
// whose params do not resolve, or nil.
func scheduleParamsOf(r *editionRules) []string {
	if r.scheduleParams == nil {
		return nil
	}
	kind, text := r.scheduleParams("d")
	return []string{kind, text}
}

// observeRenderedFields is what the release stores of rendered fields
// given a conf with a password key, a command holding a four-character
// secret the templates read, and a value past 4096 characters (its
// last characters).
func observeRenderedFields(r *editionRules) string {
	if r.storeRenderedFields == nil {
		return "as rendered"
	}
	reg := newSecretRegistry(r.masker)
	reg.addVariable("api_key", "abcd", false)
	out := r.storeRenderedFields(reg.masker(), map[string]any{"conf": map[string]any{"password": "p"},
		"cmd": "echo abcd", "long": strings.Repeat("x", 5000)})
	long, _ := out["long"].(string)
	return fmt.Sprintf("%v %v %q", out["conf"], out["cmd"], long[max(0, len(long)-6):])
}
