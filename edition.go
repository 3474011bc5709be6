package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"
)

// edition names the Airflow release whose wire behaviour airlite
// reproduces. It is parsed from --edition and used as a name; what the
// release does differently is its row of editionRules.
type edition string

const (
	edition2       edition = "2"         // Airflow 2.10.3, deprecated experimental API
	edition110     edition = "1.10"      // Airflow 1.10.15, classic (Flask-Admin) UI
	edition110RBAC edition = "1.10-rbac" // Airflow 1.10.15 with the RBAC UI
	edition3       edition = "3"         // Airflow 3.2.1, /api/v2 only
)

func parseEdition(s string) (edition, error) {
	switch e := edition(s); e {
	case edition2, edition110, edition110RBAC, edition3:
		return e, nil
	}
	return "", fmt.Errorf("unknown edition %q: want 3, 2, 1.10 or 1.10-rbac", s)
}

// rules is the edition's row of the table, or nil for a name that
// parseEdition refuses.
func (e edition) rules() *editionRules {
	switch e {
	case edition2:
		return &rules2
	case edition110:
		return &rules110
	case edition110RBAC:
		return &rules110RBAC
	case edition3:
		return &rules3
	}
	return nil
}

// editionRules holds everything that differs between the Airflow releases
// airlite answers as, one value per edition (rules2, rules110,
// rules110RBAC below).
//
// The table exists so that a difference between releases is written down
// once, beside the same rule of the other releases, instead of as
// `if edition == …` branches across the handlers, the store, the
// scheduler, the UI and the restore, where finding what 1.10-rbac does
// meant reading all of them. Code looks up its edition's rules (edition
// stays the name, for flags and logs) and reads fields, the way net/http
// keeps HTTP/2's differences in http2 types rather than testing the
// protocol in every handler. Rules are plain data where they can be, and
// small funcs where the releases compute different things. The store
// knows no releases: callers give it the data it needs (a runStart, the
// flags of Store.SetPaused and Store.DeleteDag).
//
// The rules are grouped by the layer that reads them (the wire, the
// operations on runs and DAGs, the scheduler, DAG files, templates), each
// group a struct embedded here so that code reads r.apiV1 or
// r.triggerRules wherever the rule is grouped, and a new edition is one
// reviewable row with one block per layer.
type editionRules struct {
	name edition

	apiRules
	runRules
	schedulingRules
	dagFileRules
	templateRules
}

// apiRules are how the release answers on the wire: JSON forms, headers,
// which routes exist, how requests are read and answers written.
type apiRules struct {
	version string // the Airflow version answered as (/info, the UI)

	// gitVersion is the release's airflow/git_version file, which
	// /api/v1/version reports.
	gitVersion any

	// The JSON form of answers: Flask 1.1 writes compact JSON with a
	// trailing newline; Airflow 2's provider writes Python's default
	// separators and no newline.
	json        pyJSON
	jsonNewline bool

	// Headers. Airflow 2 sets X-Robots-Tag and Cache-Control on every
	// answer, and Deprecation and Link on experimental routes.
	appHeaders         bool
	deprecationHeaders bool

	// masker is the release's secrets masker (api_masker.go): the names
	// whose values the answers, the action log and merges of values sent
	// back masked hide.
	masker secretsMasker

	// problemDocument: an unknown path or a wrong method gets connexion's
	// problem+json document (Airflow 2); otherwise a JSON {"error": …}.
	problemDocument bool

	// Routes that only some releases have.
	experimentalAPI bool // the experimental API under /api/experimental (1.10, 2)
	apiV1           bool // the stable REST API under /api/v1 (Airflow 2)
	// apiV2: the public API under /api/v2 and Airflow 3's app around it
	// (core_api/app.py init_views): /api/v1/..., any other /api/... and
	// /health answer its 404s, and unknown routes answer as FastAPI does.
	apiV2          bool
	deleteDagRoute bool // DELETE /dags/<dag_id>: not with the RBAC UI
	// werkzeugReasons: status lines carry Werkzeug's reasons in capitals
	// ("404 NOT FOUND"), as Flask behind gunicorn sends them (Airflow 1.10
	// and 2; api_statusline.go). Airflow 3's uvicorn sends Python's
	// phrases, which are Go's.
	werkzeugReasons bool
	infoRoute       bool // GET /info
	lineageRoute    bool // GET /lineage/<dag_id>/<execution_date>

	// The run page and dag_run_url, the UI link in run listings. With
	// runURLDagInQuery the link is uiRunPath?dag_id=…&execution_date=…
	// (1.10's graph view); otherwise /dags/<dag_id>/graph?execution_date=…
	uiRunPath        string
	runURLDagInQuery bool
	// runURLByRunID: the status page links a run as Airflow 3's UI
	// addresses it, /dags/<dag_id>/runs/<run_id> (uiRunPath), and a DAG
	// at uiDagPath, /dags/<dag_id>.
	runURLByRunID bool
	uiDagPath     string

	// Triggering a run.
	confObjectOnly bool // a conf other than an object is a 400 (Airflow 2)
	confString     bool // a string conf holding JSON is decoded (1.10's documented form)

	// replace_microseconds: whether null means false (1.10 crashes on
	// None.lower()), and the lower-case words that mean true.
	nullFlagFalse bool
	flagTrue      []string

	// triggerMessage is the "message" of a trigger's answer.
	triggerMessage func(run *DagRun, date time.Time, dateGiven bool) string

	// Reading.
	checkStateFilter bool                   // dag_runs?state= must name a DagRunState (Airflow 2)
	errorDate        func(time.Time) string // a requested date inside not-found messages

	// ti2Fields: task-instance info has Airflow 2's key set (run_id,
	// map_index, try_number, updated_at, dag_run, …) instead of 1.10's
	// (execution_date).
	ti2Fields bool

	// operatorFields adds the release's own attributes to task info.
	operatorFields      func(info map[string]any, dag *DAG, t *Task)
	poolIncludeDeferred bool // pools carry include_deferred (Airflow 2)

	// healthBody is the body of the webserver's GET /health.
	healthBody func(webserverHealth) ([]byte, error)

	// taskStates are the release's task instance states, in the order of
	// its TaskInstanceState enum (State's constants in 1.10), without
	// None: what a state filter or a state in a body may name.
	taskStates []string
}

// runRules are what the release's operations do with runs and DAGs:
// new runs, duplicates, forced states, pausing and deleting.
type runRules struct {
	emptyConf  json.RawMessage // the conf of a run given none or a falsy one: {} or null; shared, never modified
	checkRunID bool            // run_id must match allowed_run_id_pattern or the built-in one; 1.10 takes any

	// duplicate is the rule for a run_id or execution date already used
	// by the DAG: byID and byDate are the runs found, nil when none.
	duplicate func(dagID, runID string, date time.Time, byID, byDate *DagRun) error

	// newRun is how a new run begins, triggered or scheduled.
	newRun runStart

	// runID is the id a run of runType gets when its caller names none
	// (DagRun.generate_run_id): logical is nil for a run without a
	// logical date, runAfter the run_after the caller asked for.
	runID func(runType string, logical *time.Time, runAfter time.Time) string

	// triggerRunID is the id of a run the APIs trigger without one: the
	// timetable's (Timetable.generate_run_id), which Airflow 3 names from
	// run_after alone, where Airflow 2 names it from the logical date.
	triggerRunID func(runType string, logical *time.Time, runAfter time.Time) string
	// operatorRunID is the id a TriggerDagRunOperator gives the run it
	// triggers without a trigger_run_id: logical is the logical date it
	// asks for (nil: none), dateText the date as the file gave it ("": not
	// given), now the try's clock.
	operatorRunID func(logical *time.Time, dateText string, now time.Time) string
	// operatorDateXCom: the operator pushes trigger_execution_date_iso
	// beside trigger_run_id (2.10.3; 3.2.1 pushes the run id only, 1.10.15
	// nothing).
	operatorDateXCom bool

	// nullLogicalDate: a run may have no logical date (Airflow 3's
	// trigger with logical_date null): it never collides with another's,
	// has no data interval, and runs at its run_after.
	nullLogicalDate bool
	// paramsMerged: a trigger's conf is merged into the DAG's params and
	// checked once, param by param, before the run's insert finds a
	// duplicate (Airflow 3's SerializedParamsDict.deep_merge and
	// validate, serialization/definitions/param.py); false: 2.10.3's
	// ParamsDict.update checks each conf key of a param as it sets it,
	// then validate() checks every param, after the duplicate check
	// (models/param.py:221-229,261-270; dag_run_endpoint.py:322-344).
	paramsMerged bool
	// assetsFollowFile: an asset or alias a DAG file names takes the
	// file's group and extra at every parse (Airflow 3's
	// dag_processing/collection.py sync_assets); Airflow 2.10.3 keeps
	// what the first parse stored (models/dag.py bulk_write_to_db).
	assetsFollowFile bool
	// depLogicalDate: the dependencies of a task instance speak of its
	// logical date (Airflow 3's ti_deps: the "Logical Date" dep and its
	// reasons) rather than its execution date.
	depLogicalDate bool

	// runTypes are the release's DagRunType values in its enum's order;
	// nil: the release has no run types (1.10.15 names runs by their
	// run_id's prefix alone).
	runTypes []string

	// triggerRunType is the run_type a triggered run is created with; "":
	// the one its run_id's prefix names (Airflow 1.10 and 2 infer it).
	triggerRunType string

	// manualInterval is the data interval stored with a triggered run
	// that has a logical date and was given none (the timetable's
	// infer_manual_data_interval; its end becomes the run's run_after);
	// nil: none is stored, readers infer it from the schedule (1.10, 2).
	manualInterval func(dag *DAG, date time.Time) *dataInterval

	// runStateDates is how a forced run state moves the run's dates.
	runStateDates runStateDates

	// Pausing and deleting.
	pauseNeedsDefinition bool // pausing a DAG whose definition is not loaded crashes (1.10's classic UI)
	pauseSubDAGs         bool // pausing a DAG pauses its sub-DAGs too; 1.10 with the RBAC UI updates the one row
	deleteRefusesRunning bool // DELETE refuses while a task instance of the DAG runs (Airflow 2)
	deleteStopsTasks     bool // DELETE deletes whatever runs and stops the DAG's tasks (1.10)
}

// schedulingRules are how the release's scheduler decides: trigger
// rules, schedules, timeouts, past dependencies, what a try does with
// its exit code and output, and what a restart does with orphans.
type schedulingRules struct {
	// storeRenderedFields is how a try's rendered template fields are
	// kept (scheduler_renderedfields.go: serialized, truncated and
	// masked); nil: as rendered (1.10.15).
	storeRenderedFields storeRenderedFields
	// masksTaskLog: a try's output is kept through the secrets masker,
	// with the secrets the try learnt (2.10.3 utils/log/secrets_masker.py
	// SecretsMasker, a filter of the task logger; 3.2.1 task-sdk log.py
	// mask_logs). 1.10.15 has no secrets masker.
	masksTaskLog bool

	// triggerRules are the trigger_rule names the release accepts and how
	// it decides each (scheduler_triggerrules.go).
	triggerRules map[string]namedRule

	// deltaEpochAligned: a duration schedule without catchup takes the
	// interval that ends at now rounded down to a multiple of the duration
	// since the epoch (Airflow 2's timetable), not the one ending at now.
	deltaEpochAligned bool

	// scheduleEnd is the last date a DAG's schedule creates a run for
	// (nil: none): the DAG's end_date, and the tasks' as the release
	// reads them (scheduler_timetable.go).
	scheduleEnd func(dag *DAG) *time.Time

	// scheduleCountsTriggered: triggered runs count toward the
	// max_active_runs that stops the schedule creating runs (Airflow 2);
	// 1.10 counts only the schedule's own running runs.
	scheduleCountsTriggered bool

	// capRunningRuns: the scheduler evaluates only a DAG's first
	// max_active_runs running runs by execution date, triggered ones
	// included; the others wait, their tasks in no state (1.10, where
	// every run is created running).
	capRunningRuns bool

	// backfills: Airflow 3's backfills (models/backfill.py): the
	// scheduler starts a backfill's queued runs under the backfill's
	// max_active_runs, not the DAG's (scheduler_backfills.go). Before 3 a
	// run named as a backfill's (newRun.backfillPrefix) belongs to the
	// backfill job, which airlite does not have, and the scheduler leaves
	// it alone.
	backfills bool

	// dagrunTimeout is which runs dagrun_timeout fails and what becomes
	// of their task instances.
	dagrunTimeout dagrunTimeoutRule

	// pastDependsMet decides depends_on_past: which run is the previous
	// one and what it must hold (scheduler_pastdeps.go).
	pastDependsMet pastDependency

	// bashSkipExitCode is the exit code with which a BashOperator skips
	// itself (Airflow 2's skip_on_exit_code default, 99); 0: none, every
	// non-zero exit fails the task (1.10).
	bashSkipExitCode int

	// orphans is what a restart does with tasks a snapshot caught queued
	// or running (resolveOrphans).
	orphans orphanPolicy

	// bashPushesReturnValue: a BashOperator without do_xcom_push pushes
	// its last line of output as return_value. Airflow 2's BaseOperator
	// do_xcom_push defaults to True; 1.10's BashOperator pushes only with
	// xcom_push=True, which defaults to False.
	bashPushesReturnValue bool

	// scheduledRuns is how the run a schedule creates is dated, named and
	// given its data interval (scheduler_timetable.go).
	scheduledRuns scheduledRunRule

	// lastRun is which runs the schedule plans its next run after: the
	// latest of the DAG's scheduled and backfill runs, its last automated
	// run, in Airflow 2.10.3 (models/dag.py:3523-3556 _get_latest_runs_stmt,
	// read at each parse, :3310-3318) and 3.2.1 (dag_processing/
	// collection.py:105-134, :617-619 of c57fba0e); the latest scheduled
	// run in 1.10.15, whose query takes non-external runs and those named
	// scheduled__ (jobs/scheduler_job.py:660-669), which in airlite, that
	// has no backfill job there, are the scheduled runs.
	lastRun lastRunKind

	// tryAtSchedule: a task instance's try_number counts up when the
	// scheduler schedules it (Airflow 3's DagRun.schedule_tis), so that a
	// scheduled or queued one already shows the try it is about to run;
	// otherwise it counts up when the try starts.
	tryAtSchedule bool

	// setStateDuration: the state a trigger rule gives a task instance is
	// set with TaskInstance.set_state, which writes the duration between
	// its start and end dates (2.10.3 airflow/models/taskinstance.py:
	// 2425-2428, 3.2.1 alike); 1.10.15's writes the two dates alone
	// (taskinstance.py:537-541).
	setStateDuration bool

	// teardownScope: a teardown whose trigger rule is met still waits
	// until every task between its setups and it has finished (3.2.0's
	// trigger_rule_dep.py _evaluate_teardown_scope, apache/airflow#64181);
	// 2.10.3 looks at its direct upstream tasks alone.
	teardownScope bool
}

// dagFileRules are how the release reads DAG files: its example DAGs,
// operator names, Python idiom, cron day rule and .airflowignore.
type dagFileRules struct {
	// examples is the embedded folder of the release's example DAGs,
	// served when --dags is not given.
	examples string

	// operators are the operator names the release ships, which a DAG
	// file's task may name without simulate: (dag_operators.go).
	operators func() *operatorSet

	// python is the idiom of the release's DAG files, in which /code
	// writes a definition that has no .py beside it.
	python pythonDialect

	// paramSchemas: a definition file may write a Param (!Param), as
	// Airflow has them from 2.2 (models/param.py); 1.10.15 has none.
	paramSchemas bool
	// scheduleParams is the exception that refuses a DAG that can be
	// scheduled while a param of it does not resolve, as DagBag records
	// it ("{type}: {message}", 2.10.3 dagbag.py:485): its class and
	// message (2.10.3 models/dag.py:3724-3727; task-sdk
	// definitions/dag.py:597-600 of c57fba0e). nil: no such check.
	scheduleParams func(dagID string) (kind, text string)

	// cronDays is how the release's croniter combines a cron expression's
	// day-of-month and day-of-week fields (scheduler_cron.go).
	cronDays cronDayRule

	// cronDescriber is how the release words a cron schedule's
	// timetable_description (dag_crondescription.go); zero: it has none.
	cronDescriber cronDescriber

	// cronInZone: a cron schedule ticks in the DAG's time zone, as the
	// release's CronMixin steps it (scheduler_cronzone.go; 2.10.3
	// timetables/_cron.py:106-148, c57fba0e timetables/_cron.py:149-193).
	// The 1.10 editions keep UTC, where 1.10.15's following_schedule works
	// in the zone by rules of its own (models/dag.py is_fixed_time_schedule).
	cronInZone bool

	// catchupByDefault is a DAG's catchup when its file names none
	// ([scheduler] catchup_by_default: True before Airflow 3, False since
	// 3.0, airflow-core/src/airflow/config_templates/config.yml).
	catchupByDefault bool

	// pythonSurface is the authoring surface a Python DAG file of the
	// release imports (python/airflow: "1.10" for 1.10.15's module paths,
	// "2" for 2.10.3's, "3" for 3.2.1's airflow.sdk), for the DAG reader and
	// the task runner.
	pythonSurface string

	// mappedPush is how the release checks a return value a mapped task
	// downstream expands over (scheduler_operators.go refuseUnmappablePush).
	mappedPush mappedPushRule

	// DAG folder. ignoreMatchesFolderPath: a .airflowignore pattern is
	// searched for in the DAG folder's path as given joined with the path
	// inside it (1.10.15 airflow/utils/dag_processing.py:338,355); else in
	// the path relative to the DAG folder (2.10.3 airflow/utils/file.py:77).
	ignoreMatchesFolderPath bool

	// A reload of the DAG folder (dag_reload.go): how long a DAG that a
	// file read again no longer gives (the file fails, or defines it no
	// more) keeps its last definition, counted from the last read that
	// gave it. Airflow 2.10.3 deactivates it once its last parse is
	// stale_dag_threshold (50 s) older than its file's
	// (dag_processing/manager.py:509-549 deactivate_stale_dags); 1.10.15
	// only when the scheduler job ends (jobs/scheduler_job.py:1491-1499):
	// staleDAGsKept (negative), until a restart. staleOnImportError: a
	// file that fails makes its DAGs stale at once (Airflow 3's
	// dag_processing/collection.py _update_import_errors sets is_stale).
	staleDAGAfter      time.Duration
	staleOnImportError bool
	// staleKeepsDefinition: a DAG the folder no longer gives (its file
	// gone, broken, or defining it no more, once staleDAGAfter allows)
	// keeps its definition, marked stale (DagRow.Stale), as Airflow 3
	// keeps the serialized DAG and only sets DagModel.is_stale (3.2.1
	// models/dag.py DagModel.deactivate_deleted_dags,
	// dag_processing/collection.py _update_import_errors); the routes that
	// read the DagBag answer it. Airflow 2.10.3 deletes the serialized
	// DAG (models/serialized_dag.py:251-281 remove_deleted_dags) and sets
	// is_active false: the definition goes.
	staleKeepsDefinition bool

	// allowedRunTypes: a DAG may name the run types it allows (Airflow
	// 3.2.0's DAG argument allowed_run_types, migration 0105_3_2_0);
	// earlier releases have no such argument.
	allowedRunTypes bool
	// operatorTriggerRoute: a TriggerDagRunOperator's trigger goes through
	// the execution API's trigger route, whose refusals (a DAG not there,
	// one not allowing manual runs) fail the try (Airflow 3's Task SDK,
	// scheduler_operators.go triggerOperatorRefusal); airlite simulates
	// the operator in the earlier editions.
	operatorTriggerRoute bool

	// assetTimetable is how a DAG scheduled on assets shows its schedule
	// (summary and description of DatasetTriggeredTimetable, Airflow 2;
	// AssetTriggeredTimetable, Airflow 3); zero: no such schedules (1.10).
	assetTimetable Timetable
}

// staleDAGsKept is a staleDAGAfter that never comes.
const staleDAGsKept time.Duration = -1

// templateRules are the release's Jinja templates: the context, how
// undefined names and printed objects behave, ti.xcom_pull.
type templateRules struct {
	// Templates (template.go, templatecontext.go): the names a task's
	// Jinja context holds; whether an undefined name fails the render
	// (jinja2.StrictUndefined, Airflow 2's default) or prints as nothing
	// (jinja2.Undefined, 1.10.15's); str() of ti and dag_run; whether
	// dag_run has run_type, logical_date and the data interval.
	templateVars            func(templateContext) map[string]any
	templateStrictUndefined bool
	taskInstanceStr         func(templateContext) string
	dagRunStr               func(*DagRun) string
	templateRunAttributes2  bool
	templateDateFilters     bool // ds, ts, ... as filters (airflow/templates.py, 2.x)

	// xcomPull is ti.xcom_pull (templatexcom.go): the release's signature,
	// which entries it reads and what it returns.
	xcomPull xcomPullFunc

	// bashRendersCwd: a BashOperator's cwd is a template field (Airflow
	// 2.10.3 airflow/operators/bash.py:148); 1.10.15's template_fields are
	// bash_command and env only (airflow/operators/bash_operator.py:88).
	bashRendersCwd bool

	// templateExecutionDate: ti and dag_run have execution_date (Airflow
	// 1.10 and 2; Airflow 3 removed it with the context's other
	// execution_date names).
	templateExecutionDate bool
}

// dagrunTimeoutRule is what dagrun_timeout does to a run running longer
// than it (counted from the run's start_date), which fails.
//
// Airflow 2 times out every run and skips its unfinished task instances,
// whose tries stop (scheduler_job_runner.py:1643-1658 at 2.10.3). Airflow
// 1.10 times out only runs its schedule created, of DAGs with a schedule,
// and changes no task instance itself (scheduler_job.py:636-655 at
// 1.10.15); its next loop puts scheduled ones of a run that is no longer
// running back to no state and fails those up for retry
// (scheduler_job.py:1531-1541), while running tries run to their end.
type dagrunTimeoutRule struct {
	scheduledOnly  bool
	skipUnfinished bool
}

// taskAfter is the state of a task instance in state when its run times
// out, and whether its running try stops.
func (r dagrunTimeoutRule) taskAfter(state TaskState) (next TaskState, stop bool) {
	switch {
	case state.Finished():
		return state, false
	case r.skipUnfinished:
		return TaskSkipped, state == TaskRunning
	case state == TaskScheduled || state == TaskQueued:
		return TaskNone, false
	case state == TaskUpForRetry:
		return TaskFailed, false
	}
	return state, false
}

// orphanPolicy is what becomes of the task instances that were in one of
// states when the snapshot was taken. Airflow 2 resets them all to no
// state; 1.10 also resets scheduled ones and fails running ones as zombies
// (up_for_retry when retries are left). See resolveOrphans.
type orphanPolicy struct {
	states  []TaskState
	zombies bool // running ones fail as zombies instead of being reset
}

// The table, one value per edition.
var (
	rules2 = editionRules{
		name: edition2,

		apiRules: apiRules{
			version:             "2.10.3",
			gitVersion:          ".release:c99887ec11ce3e1a43f2794fcf36d27555140f00",
			masker:              masker2103(),
			json:                spacedJSON,
			jsonNewline:         false,
			appHeaders:          true,
			deprecationHeaders:  true,
			problemDocument:     true,
			experimentalAPI:     true,
			werkzeugReasons:     true,
			apiV1:               true,
			deleteDagRoute:      true,
			infoRoute:           true,
			lineageRoute:        true,
			uiRunPath:           "/dags/:dag_id/graph",
			runURLDagInQuery:    false,
			confObjectOnly:      true,
			confString:          false,
			nullFlagFalse:       true,
			flagTrue:            []string{"t", "true", "y", "yes", "1", "on"},
			triggerMessage:      triggerMessage2,
			checkStateFilter:    true,
			errorDate:           strFormat,
			ti2Fields:           true,
			operatorFields:      operatorFields2,
			poolIncludeDeferred: true,
			healthBody:          healthBody2,
			// Airflow 2.10.3 airflow/utils/state.py:35-64
			taskStates: []string{"removed", "scheduled", "queued", "running", "success", "restarting", "failed",
				"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "deferred", "shutdown"},
		},

		runRules: runRules{
			emptyConf:  json.RawMessage(`{}`),
			checkRunID: true,
			duplicate:  duplicate2,
			newRun: runStart{state: RunQueued, startDate: false, tiUpdatedAt: true,
				taskEndDate: true, backfillPrefix: "backfill__"},
			runID:        runIDFromDate,
			triggerRunID: runIDFromDate,
			// 2.10.3 airflow/operators/trigger_dagrun.py:180-190, 224-225
			operatorRunID:    operatorRunID2,
			operatorDateXCom: true,
			nullLogicalDate:  false,
			// Airflow 2.10.3 airflow/utils/types.py:75-81
			runTypes:             []string{"backfill", "scheduled", "manual", "dataset_triggered"},
			triggerRunType:       "",
			manualInterval:       noStoredInterval,
			runStateDates:        runStateDates{endOnlyFromUnfinished: true, restartFinished: true, tiSetState: true},
			pauseNeedsDefinition: false,
			pauseSubDAGs:         true,
			deleteRefusesRunning: true,
			deleteStopsTasks:     false,
		},

		schedulingRules: schedulingRules{
			storeRenderedFields:     storeRenderedFields2103,
			masksTaskLog:            true,
			triggerRules:            triggerRules2,
			pastDependsMet:          pastDependsMet2,
			deltaEpochAligned:       true,
			scheduleEnd:             scheduleEnd2,
			capRunningRuns:          false,
			scheduleCountsTriggered: true,
			dagrunTimeout:           dagrunTimeoutRule{scheduledOnly: false, skipUnfinished: true},
			bashSkipExitCode:        99,
			orphans:                 orphanPolicy{states: []TaskState{TaskQueued, TaskRunning}, zombies: false},
			bashPushesReturnValue:   true,
			scheduledRuns:           scheduledRunRule{triggerTimetable: false},
			lastRun:                 lastAutomated,
			tryAtSchedule:           false,
			setStateDuration:        true,
		},

		dagFileRules: dagFileRules{
			examples:  "fixtures/2.10.3",
			operators: operators2,
			python:    python2,
			// croniter 5.0.1 (constraints-2.10.3): a full day field is `*` only
			// beside a `*` (src/croniter/croniter.py:1000-1008).
			cronDays:      cronDayRule{fullFieldIsStar: false},
			cronDescriber: cronDescriber2,
			cronInZone:    true,
			pythonSurface: "2",
			// 2.10.3 models/taskinstance.py _execute_task, then
			// _record_task_map_for_downstreams.
			mappedPush:              mappedPushRule{checked: true},
			catchupByDefault:        true,
			ignoreMatchesFolderPath: false,
			// 2.10.3 config_templates/config.yml scheduler.stale_dag_threshold
			staleDAGAfter:        50 * time.Second,
			staleKeepsDefinition: false,
			// 2.10.3 airflow/timetables/simple.py DatasetTriggeredTimetable
			assetTimetable: Timetable{Summary: "Dataset", Description: "Triggered by datasets", Type: "airflow.timetables.simple.DatasetTriggeredTimetable"},
			paramSchemas:   true,
			scheduleParams: func(string) (string, string) {
				return "AirflowException", "DAG is not allowed to define a Schedule, " +
					"if there are any required params without default values or default values are not valid."
			},
		},

		templateRules: templateRules{
			// Airflow 2.10.3 airflow/models/dag.py:536 template_undefined=jinja2.StrictUndefined
			templateVars:            templateVars2,
			templateStrictUndefined: true,
			taskInstanceStr:         taskInstanceStr2,
			dagRunStr:               dagRunStr2,
			templateRunAttributes2:  true,
			templateDateFilters:     true,
			xcomPull:                xcomPull2,
			bashRendersCwd:          true,
			templateExecutionDate:   true,
		},
	}

	rules110 = editionRules{
		name: edition110,

		apiRules: apiRules{
			version:             "1.10.15",
			json:                compactJSON,
			jsonNewline:         true,
			appHeaders:          false,
			deprecationHeaders:  false,
			problemDocument:     false,
			experimentalAPI:     true,
			werkzeugReasons:     true,
			deleteDagRoute:      true,
			infoRoute:           false,
			lineageRoute:        false,
			uiRunPath:           "/admin/airflow/graph",
			runURLDagInQuery:    true,
			confObjectOnly:      false,
			confString:          true,
			nullFlagFalse:       false,
			flagTrue:            []string{"t", "true", "y", "yes", "1"},
			triggerMessage:      triggerMessage110,
			checkStateFilter:    false,
			errorDate:           isoFormat,
			ti2Fields:           false,
			operatorFields:      operatorFields110,
			poolIncludeDeferred: false,
			healthBody:          healthBody110,
			// Airflow 1.10.15 airflow/utils/state.py:33-50
			taskStates: []string{"removed", "scheduled", "queued", "running", "success", "shutdown", "failed",
				"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped"},
		},

		runRules: runRules{
			emptyConf:  nil,
			checkRunID: false,
			duplicate:  duplicate110,
			newRun: runStart{state: RunRunning, startDate: true, tiUpdatedAt: false,
				taskEndDate: false, backfillPrefix: "backfill_"},
			runID:        runIDFromDate,
			triggerRunID: runIDFromDate,
			// 1.10.15 airflow/operators/dagrun_operator.py:78-82
			operatorRunID:        operatorRunID110,
			nullLogicalDate:      false,
			runTypes:             nil,
			triggerRunType:       "",
			manualInterval:       noStoredInterval,
			runStateDates:        runStateDates{endOnlyFromUnfinished: false, restartFinished: false},
			pauseNeedsDefinition: true,
			pauseSubDAGs:         true,
			deleteRefusesRunning: false,
			deleteStopsTasks:     true,
		},

		schedulingRules: schedulingRules{
			triggerRules:            triggerRules110,
			pastDependsMet:          pastDependsMet110,
			deltaEpochAligned:       false,
			scheduleEnd:             scheduleEnd110,
			capRunningRuns:          true,
			scheduleCountsTriggered: false,
			dagrunTimeout:           dagrunTimeoutRule{scheduledOnly: true, skipUnfinished: false},
			bashSkipExitCode:        0,
			orphans:                 orphanPolicy{states: []TaskState{TaskQueued, TaskRunning, TaskScheduled}, zombies: true},
			bashPushesReturnValue:   false,
			scheduledRuns:           scheduledRunRule{triggerTimetable: false},
			lastRun:                 lastScheduled,
			tryAtSchedule:           false,
			setStateDuration:        false,
		},

		dagFileRules: dagFileRules{
			examples:  "fixtures/1.10.15",
			operators: operators110,
			python:    python110,
			// croniter 0.3.36 (constraints-1.10.15): a full day field is always
			// `*` (src/croniter/croniter.py:618-619).
			cronDays:                cronDayRule{fullFieldIsStar: true, croniter: croniter0336},
			cronInZone:              false,
			pythonSurface:           "1.10",
			catchupByDefault:        true,
			ignoreMatchesFolderPath: true,
			staleDAGAfter:           staleDAGsKept,
			staleKeepsDefinition:    false,
		},

		templateRules: templateRules{
			// Airflow 1.10.15 airflow/models/dag.py:810 'undefined': self.template_undefined or jinja2.Undefined
			templateVars:            templateVars110,
			templateStrictUndefined: false,
			taskInstanceStr:         taskInstanceStr110,
			dagRunStr:               dagRunStr110,
			templateRunAttributes2:  false,
			templateDateFilters:     false,
			xcomPull:                xcomPull110,
			bashRendersCwd:          false,
			templateExecutionDate:   true,
		},
	}

	// rules110RBAC is 1.10.15 with rbac = True: the FAB UI's run page, no
	// DELETE route, and pausing as www_rbac does it; every other rule is
	// the release's, so it is rules110 with those changed.
	rules110RBAC = func() editionRules {
		r := rules110
		r.name = edition110RBAC
		r.deleteDagRoute = false
		r.uiRunPath = "/graph"
		r.pauseNeedsDefinition = false
		r.pauseSubDAGs = false
		return r
	}()

	// rules3 is Airflow 3.2.1: /api/v2 behind Airflow 3's app, neither the
	// experimental API nor /api/v1, with Airflow 3's runs, task instances,
	// template context, example DAGs and UI addresses. Every other rule is
	// Airflow 2's for now, so it is rules2 with those changed.
	rules3 = func() editionRules {
		r := rules2
		r.name = edition3
		r.version = "3.2.1"
		// The release's git_version is not known here: the version route
		// answers null, as Airflow does without the file. Its form would
		// be ".release:" and the full hash of the commit the packages were
		// built from; the release pages name only the abbreviated hashes
		// of the candidates (3.2.1rc1 b457a30, rc2 01bbe93, rc3 e5968b8,
		// the last presumably 3.2.1's), and no copy of a 3.2.1 package or
		// of the tag's commit could be read, so the full hash is unknown.
		r.gitVersion = nil
		r.masker = masker321()
		r.storeRenderedFields = storeRenderedFields321
		r.experimentalAPI = false
		r.werkzeugReasons = false
		r.apiV1 = false
		r.apiV2 = true
		r.deprecationHeaders = false
		// FastAPI sets neither X-Robots-Tag nor Cache-Control.
		r.appHeaders = false
		r.json = compactJSON
		// airflow-core/src/airflow/utils/state.py TaskInstanceState at
		// 3.2.1 (spec/v2.yaml TaskInstanceState): 3.0 removed shutdown.
		r.taskStates = []string{"removed", "scheduled", "queued", "running", "success", "restarting", "failed",
			"up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "deferred"}

		// Runs (airflow-core/src/airflow/models/dagrun.py,
		// api_fastapi/core_api/datamodels/dag_run.py).
		r.newRun.tiIDs = true
		// croniter 6.2.2 (uv.lock of c57fba0e): 5.0.1's day rule, and
		// it takes nW and Wn (scheduler_croniter.go).
		r.cronDays.croniter = croniter622
		r.runID = runID3
		r.triggerRunID = timetableRunID3
		// the standard provider's operators/trigger_dagrun.py:262-273
		r.operatorRunID = operatorRunID3
		r.operatorDateXCom = false
		r.nullLogicalDate = true
		r.paramsMerged = true
		r.scheduleParams = func(dagID string) (string, string) {
			return "ValueError", "Dag " + pyQuote(dagID) + " is not allowed to define a Schedule, " +
				"as there are required params without default values, or the default values are not valid."
		}
		r.assetsFollowFile = true
		// airflow-core/src/airflow/ti_deps/deps/runnable_exec_date_dep.py,
		// exec_date_after_start_date_dep.py: NAME = "Logical Date".
		r.depLogicalDate = true
		// airflow-core/src/airflow/utils/types.py DagRunType (spec/v2.yaml
		// at 3.2.1 adds asset_materialization)
		r.runTypes = []string{"backfill", "scheduled", "manual", "asset_triggered", "asset_materialization"}
		r.triggerRunType = "manual"
		r.manualInterval = manualInterval3

		// DagRun.schedule_tis counts the try when it schedules it.
		r.tryAtSchedule = true
		r.scheduledRuns = scheduledRunRule{triggerTimetable: true}
		r.teardownScope = true

		// task-sdk/src/airflow/sdk/execution_time/task_runner.py
		// RuntimeTaskInstance.get_template_context.
		r.templateVars = templateVars3
		r.dagRunStr = dagRunStr3
		r.templateExecutionDate = false

		// Airflow 3's authoring surface: airflow.sdk, the standard
		// provider's operators, without what Airflow 3 removed
		// (python/airflow, "3").
		r.pythonSurface = "3"
		// task-sdk task_runner.py _push_xcom_if_needed; the execution API's
		// max_map_length (execution_api/routes/xcoms.py set_xcom).
		r.mappedPush = mappedPushRule{checked: true, beforePush: true}
		r.python = python3
		r.catchupByDefault = false
		// cron-descriptor 2.0.6 and the day fields' " (or) "
		// (dag_crondescription.go).
		r.cronDescriber = cronDescriber3
		r.staleOnImportError = true
		r.staleKeepsDefinition = true
		r.allowedRunTypes = true
		r.operatorTriggerRoute = true
		// airflow-core/src/airflow/timetables/simple.py AssetTriggeredTimetable
		r.assetTimetable = Timetable{Summary: "Asset", Description: "Triggered by assets", Type: "airflow.timetables.simple.AssetTriggeredTimetable"}
		// Airflow 3.2.1's example DAGs (airflow-core/src/airflow/example_dags).
		r.examples = "fixtures/3.2.1"
		// Airflow 3's UI addresses a run by its id
		// (airflow-core/src/airflow/ui/src/router.tsx: dags/:dagId/runs/:runId).
		r.uiRunPath = "/dags/:dag_id/runs/:run_id"
		r.uiDagPath = "/dags/:dag_id"
		r.runURLByRunID = true
		r.backfills = true
		return r
	}()
)

// appendJSON appends v in the edition's JSON form to b.
func (r *editionRules) appendJSON(b []byte, v any) ([]byte, error) {
	b, err := r.json.append(b, v)
	if err != nil {
		return nil, err
	}
	if r.jsonNewline {
		b = append(b, '\n')
	}
	return b, nil
}

// dagRunURL is the UI link Airflow puts in run listings.
func (r *editionRules) dagRunURL(dagID string, date time.Time) string {
	var buf [160]byte
	var d [40]byte
	day := appendPyDateTime(d[:0], date.UTC(), ' ')
	b := buf[:0]
	if r.runURLDagInQuery {
		b = append(b, r.uiRunPath...)
		b = append(b, "?dag_id="...)
		b = appendEscaped(b, dagID, "", true)
		b = append(b, "&execution_date="...)
		b = appendEscaped(b, day, "", true)
	} else {
		b = append(b, "/dags/"...)
		b = appendEscaped(b, dagID, pathSafe, false)
		b = append(b, "/graph?execution_date="...)
		b = appendEscaped(b, day, "$!'()*,;", true)
	}
	return string(b)
}

// runLink is the status page's link to a run: by its id where the
// edition's UI addresses runs so (Airflow 3), else dagRunURL.
func (r *editionRules) runLink(dagID, runID string, date time.Time) string {
	if !r.runURLByRunID {
		return r.dagRunURL(dagID, date)
	}
	b := append([]byte("/dags/"), appendEscaped(nil, dagID, "", false)...)
	b = append(b, "/runs/"...)
	return string(appendEscaped(b, runID, "", false))
}

// dagPageURL is the run page of a DAG without a date: it shows the DAG's
// latest run, or says it has none yet.
func (r *editionRules) dagPageURL(dagID string) string {
	var buf [120]byte
	b := buf[:0]
	if r.runURLByRunID {
		b = append(b, "/dags/"...)
		return string(appendEscaped(b, dagID, "", false))
	}
	if r.runURLDagInQuery {
		b = append(b, r.uiRunPath...)
		b = append(b, "?dag_id="...)
		b = appendEscaped(b, dagID, "", true)
	} else {
		b = append(b, "/dags/"...)
		b = appendEscaped(b, dagID, pathSafe, false)
		b = append(b, "/graph"...)
	}
	return string(b)
}

// pathSafe is what Werkzeug's path encoding for URL rules keeps besides
// the unreserved characters.
const pathSafe = ":/$!'()*+,;"

// appendEscaped %XX-encodes every byte of s that is neither unreserved nor
// in safe; with plusSpace a space becomes "+".
func appendEscaped[S ~string | ~[]byte](b []byte, s S, safe string, plusSpace bool) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isUnreserved(c) || strings.IndexByte(safe, c) >= 0:
			b = append(b, c)
		case c == ' ' && plusSpace:
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&0xf])
		}
	}
	return b
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// runIDFromDate is Airflow 1.10's and 2's run id: the run type and the
// logical date (2.10.3 airflow/models/dagrun.py DagRun.generate_run_id).
// Their runs always have one; without, the run_after stands in.
func runIDFromDate(runType string, logical *time.Time, runAfter time.Time) string {
	if logical == nil {
		logical = &runAfter
	}
	return runType + "__" + isoFormat(*logical)
}

// runID3 is Airflow 3's DagRun.generate_run_id
// (airflow-core/src/airflow/models/dagrun.py): the run type and the
// run_after asked for, with eight random letters and digits after it when
// there is no logical date (airflow/utils/strings.py get_random_string),
// so that runs without one never share an id.
func runID3(runType string, logical *time.Time, runAfter time.Time) string {
	id := runType + "__" + isoFormat(runAfter)
	if logical != nil {
		return id
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 0, len(id)+9)
	b = append(append(b, id...), '_')
	for range 8 {
		b = append(b, letters[rand.IntN(len(letters))])
	}
	return string(b)
}

// timetableRunID3 is Airflow 3's Timetable.generate_run_id for the
// timetables airlite runs: the run type and run_after, with no random
// part even without a logical date (timetables/base.py:325-339 of the
// 3.2.0-era main c57fba0e; the trigger route calls it since
// apache/airflow#56373).
func timetableRunID3(runType string, _ *time.Time, runAfter time.Time) string {
	return runType + "__" + isoFormat(runAfter)
}

// operatorRunID2 is 2.10.3's DagRun.generate_run_id of a manual run at
// the operator's logical date (always set: None is now).
func operatorRunID2(logical *time.Time, _ string, now time.Time) string {
	return runIDFromDate("manual", logical, now)
}

// operatorRunID110 is 1.10.15's: trig__ and the execution date as the
// file wrote it (rendered), or now's isoformat().
func operatorRunID110(_ *time.Time, dateText string, now time.Time) string {
	if dateText != "" {
		return "trig__" + dateText
	}
	return "trig__" + isoFormat(now)
}

// operatorRunID3 is 3.2.1's DagRun.generate_run_id(MANUAL, logical_date,
// run_after=logical_date or now): the date, with a random part when the
// run has no logical date.
func operatorRunID3(logical *time.Time, _ string, now time.Time) string {
	after := now
	if logical != nil {
		after = *logical
	}
	return runID3("manual", logical, after)
}

// noStoredInterval stores no data interval with a triggered run: Airflow
// 1.10 has none, and airlite infers Airflow 2's when it answers.
func noStoredInterval(*DAG, time.Time) *dataInterval { return nil }

// manualInterval3 is the data interval of Airflow 3's timetables for a run
// triggered at date (infer_manual_data_interval): a timetable object's
// own (dagTimetable.manualInterval), else the instant. A cron expression or preset is a
// CronTriggerTimetable and a duration a DeltaTriggerTimetable
// ([scheduler] create_cron_data_intervals and create_delta_data_intervals
// are False: config_templates/config.yml:2561-2597 of the 3.2.0-era main
// Phinhas214/airflow c57fba0e), whose interval is date less their
// interval, timedelta(0) (timetables/trigger.py:49-53,125,188); no
// schedule and @once are the instant too.
func manualInterval3(dag *DAG, date time.Time) *dataInterval {
	if dag != nil && dag.timetable != nil {
		iv := dag.timetable.manualInterval(date)
		return &iv
	}
	return &dataInterval{date, date}
}

// duplicate2 is Airflow 2's duplicate rule: a run_id or an execution date
// already used by the DAG is refused.
func duplicate2(dagID, runID string, date time.Time, byID, byDate *DagRun) error {
	if byID != nil && byDate != nil && byID.ID != byDate.ID {
		return newAPIError(errCrash, "run id %s and execution date %s match two different runs of %s",
			runID, strFormat(date), dagID)
	}
	if byID != nil || byDate != nil {
		return newAPIError(errBadRequest, "A DAG Run already exists for DAG %s at %s with run id %s", dagID, strFormat(date), runID)
	}
	return nil
}

// duplicate110 is 1.10's duplicate rule: it checks the run_id and crashes
// on the database's unique date.
func duplicate110(dagID, runID string, date time.Time, byID, byDate *DagRun) error {
	if byID != nil {
		return newAPIError(errBadRequest, "Run id %s already exists for dag id %s", runID, dagID)
	}
	if byDate != nil {
		return newAPIError(errCrash, "a run of %s already exists at %s (run id %s): execution dates are unique per DAG",
			dagID, isoFormat(date.UTC()), byDate.RunID)
	}
	return nil
}

// dagRunRepr is Airflow 2's repr of a DagRun, which appears in trigger
// messages and in task-instance info. date is passed separately because the
// trigger message keeps the offset the client sent.
func dagRunRepr(run *DagRun, date time.Time) string {
	queuedAt := "None"
	if run.QueuedAt != nil {
		queuedAt = strFormat(*run.QueuedAt)
	}
	return fmt.Sprintf("<DagRun %s @ %s: %s, state:%s, queued_at: %s. externally triggered: %s>",
		run.DagID, strFormat(date), run.RunID, run.State, queuedAt, pyRepr(run.ExternalTrigger))
}

// dagRunStr3 is Airflow 3's DagRun.__repr__
// (airflow-core/src/airflow/models/dagrun.py): the logical date as
// str() shows it, None for none, and the run type instead of whether it
// was triggered.
func dagRunStr3(run *DagRun) string {
	date := "None"
	if ld, ok := run.LogicalDate(); ok {
		date = strFormat(ld)
	}
	return fmt.Sprintf("<DagRun %s @ %s: %s, state:%s, queued_at: %s. run_type: %s>",
		run.DagID, date, run.RunID, run.State, pyOptTime(run.QueuedAt), run.RunType)
}

// triggerMessage2 is Airflow 2's trigger message: the run's repr.
func triggerMessage2(run *DagRun, date time.Time, _ bool) string {
	return "Created " + dagRunRepr(run, date)
}

// triggerMessage110 is Airflow 1.10's trigger message, which prints the
// date with a space when the client sent none (a datetime) and with a "T"
// when it sent one (a pendulum 1 object).
func triggerMessage110(run *DagRun, date time.Time, dateGiven bool) string {
	shown := strFormat(date)
	if dateGiven {
		shown = isoFormat(date)
	}
	return fmt.Sprintf("Created <DagRun %s @ %s: %s, externally triggered: %s>", run.DagID, shown, run.RunID, pyRepr(run.ExternalTrigger))
}

// pyOptTime is str() of an optional datetime.
func pyOptTime(t *time.Time) string {
	if t == nil {
		return "None"
	}
	return strFormat(*t)
}

func pyOptDuration(d time.Duration) string {
	if d == 0 {
		return "None"
	}
	return pyTimedelta(d)
}

// pyStr is Python's str() of an attribute value: text as it is, everything
// else as its repr.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// taskEnv is a task's env as an attribute value: None when it has none.
func taskEnv(t *Task) any {
	if t.Env == nil {
		return nil
	}
	return t.Env
}

// taskInfo is the task endpoint's answer: str() of every public attribute
// of the operator object, with the key set of the edition (docs/behaviour.md §3.5).
func (r *editionRules) taskInfo(dag *DAG, t *Task) map[string]any {
	params := map[string]any{}
	for k, v := range dag.Params {
		params[k] = v
	}
	for k, v := range t.Params {
		params[k] = v
	}
	inlets, outlets := t.Inlets, t.Outlets
	if inlets == nil {
		inlets = []any{}
	}
	if outlets == nil {
		outlets = []any{}
	}
	info := map[string]any{
		"depends_on_past":           pyRepr(t.DependsOnPast),
		"do_xcom_push":              "True",
		"email":                     pyStr(t.Email),
		"email_on_failure":          pyRepr(t.EmailOnFailure),
		"email_on_retry":            pyRepr(t.EmailOnRetry),
		"end_date":                  pyOptTime(t.EndDate),
		"execution_timeout":         pyOptDuration(t.ExecutionTimeout),
		"executor_config":           "{}",
		"inlets":                    pyRepr(inlets),
		"max_retry_delay":           pyOptDuration(t.MaxRetryDelay),
		"on_failure_callback":       "None",
		"on_retry_callback":         "None",
		"on_success_callback":       "None",
		"outlets":                   pyRepr(outlets),
		"owner":                     t.Owner,
		"params":                    pyRepr(params),
		"pool":                      t.Pool,
		"pool_slots":                pyRepr(t.PoolSlots),
		"priority_weight":           pyRepr(t.PriorityWeight),
		"queue":                     t.Queue,
		"resources":                 "None",
		"retries":                   pyRepr(t.Retries),
		"retry_delay":               pyTimedelta(t.RetryDelay),
		"retry_exponential_backoff": pyRepr(t.RetryExponentialBackoff),
		"run_as_user":               "None",
		"sla":                       "None",
		"start_date":                pyOptTime(t.StartDate),
		"task_id":                   t.TaskID,
		"trigger_rule":              r.shownTriggerRule(t.TriggerRule),
		"wait_for_downstream":       "False",
		"weight_rule":               t.WeightRule,
	}
	r.operatorFields(info, dag, t)
	return info
}

// operatorFields110 adds the attributes of a 1.10 operator. 1.10.15 lists
// instance attributes, so doc_md only where the file sets it.
func operatorFields110(info map[string]any, _ *DAG, t *Task) {
	if t.DocMD != "" {
		info["doc_md"] = t.DocMD
	}
	info["lineage_data"] = "None"
	info["task_concurrency"] = "None"
	info["subdag"] = "None"
	if t.Subdag != "" {
		info["subdag"] = "<DAG: " + t.Subdag + ">"
	}
	if t.Operator == "BashOperator" {
		info["bash_command"] = t.BashCommand
		info["env"] = pyRepr(taskEnv(t))
		info["output_encoding"] = "utf-8"
		info["sub_process"] = "None"
		info["xcom_push_flag"] = "False"
	}
}

// operatorFields2 adds the attributes of an Airflow 2 operator.
func operatorFields2(info map[string]any, dag *DAG, t *Task) {
	for _, k := range []string{"doc", "doc_json", "doc_rst", "doc_yaml", "executor", "map_index_template",
		"max_active_tis_per_dag", "max_active_tis_per_dagrun", "on_execute_callback", "on_skipped_callback", "start_trigger_args"} {
		info[k] = "None"
	}
	info["doc_md"] = "None"
	if t.DocMD != "" {
		info["doc_md"] = t.DocMD
	}
	info["allow_nested_operators"] = "True"
	// The DAG's root TaskGroup and the task's PriorityWeightStrategy have
	// no __str__: Python shows class and address. The address is airlite's,
	// steady for the DAG and for the task.
	info["task_group"] = pyObjectStr("airflow.utils.task_group.TaskGroup", dag.DagID)
	info["weight_rule"] = pyObjectStr("airflow.task.priority_strategy."+weightStrategyClass[t.WeightRule], dag.DagID+"\x00"+t.TaskID)
	info["downstream_task_ids"] = pyRepr(pySet(t.Downstream))
	info["upstream_task_ids"] = pyRepr(pySet(t.Upstream))
	info["ignore_first_depends_on_past"] = "True"
	info["multiple_outputs"] = "False"
	info["operator_extra_links"] = "()"
	info["start_from_trigger"] = "False"
	info["wait_for_past_depends_before_skipping"] = "False"
	info["ui_fgcolor"] = uiFgcolor(t.Operator)
	info["ui_color"] = taskUIColor(t)
	info["template_ext"] = "[]"
	info["template_fields"] = "[]"
	info["template_fields_renderers"] = "{}"
	if t.Operator == "SubDagOperator" && t.Subdag != "" {
		// A SubDagOperator is a sensor: its deps add ReadyToRescheduleDep
		// (2.10.3 sensors/base.py:167); a set, printed sorted (§5).
		info["subdag"] = "<DAG: " + t.Subdag + ">"
		info["reschedule"] = "False"
		info["deps"] = "{<TIDep(Mapped dependencies have succeeded)>, <TIDep(Not In Retry Period)>, <TIDep(Not Previously Skipped)>, " +
			"<TIDep(Previous Dagrun State)>, <TIDep(Ready To Reschedule)>, <TIDep(Trigger Rule)>}"
	}
	if isPythonOperator(t.Operator) {
		info["template_fields"] = "['templates_dict', 'op_args', 'op_kwargs']"
		info["template_fields_renderers"] = "{'templates_dict': 'json', 'op_args': 'py', 'op_kwargs': 'py'}"
	}
	if t.Operator == "BashOperator" {
		info["bash_command"] = t.BashCommand
		info["cwd"] = orDefault(t.Cwd, "None")
		info["env"] = pyRepr(taskEnv(t))
		info["template_ext"] = "['.sh', '.bash']"
		info["template_fields"] = "['bash_command', 'env', 'cwd']"
		info["template_fields_renderers"] = "{'bash_command': 'bash', 'env': 'json'}"
	}
}

// weightStrategyClass is the PriorityWeightStrategy class of each weight
// rule (2.10.3 airflow/task/priority_strategy.py:115-119).
var weightStrategyClass = map[string]string{
	"absolute":   "_AbsolutePriorityWeightStrategy",
	"downstream": "_DownstreamPriorityWeightStrategy",
	"upstream":   "_UpstreamPriorityWeightStrategy",
}

// pyObjectStr is object.__str__ of an object without one:
// "<module.Class object at 0x7f…>". The address is a hash of key, shaped
// as CPython's heap addresses on 64-bit Linux (16-byte aligned).
func pyObjectStr(class, key string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return fmt.Sprintf("<%s object at 0x7f%09x0>", class, h.Sum64()&0xfffffffff)
}

// uiColor is the operator's ui_color in Airflow 2.
func uiColor(operator string) string {
	switch operator {
	case "BashOperator":
		return "#f0ede4"
	case "EmptyOperator", "DummyOperator":
		return "#e8f7e4"
	case "PythonOperator", "_PythonDecoratedOperator": // @task inherits PythonOperator's
		return "#ffefeb"
	case "SubDagOperator":
		return "#555"
	}
	return "#fff"
}

// taskUIColor is a task's ui_color: the one its definition gives (a
// Python file's serialized class attribute, or YAML's ui_color for an
// operator airlite does not know, such as a DAG file's own class), else
// its operator's.
func taskUIColor(t *Task) string {
	return orDefault(t.UIColor, uiColor(t.Operator))
}

// uiFgcolor is an operator's ui_fgcolor in Airflow 2: BaseOperator's
// black, SubDagOperator's white (2.10.3 airflow/operators/subdag.py:79).
func uiFgcolor(operator string) string {
	if operator == "SubDagOperator" {
		return "#fff"
	}
	return "#000"
}

// isPythonOperator says whether an operator is PythonOperator or the
// @task operator that inherits its template fields (2.10.3
// airflow/operators/python.py:192-193).
func isPythonOperator(operator string) bool {
	return operator == "PythonOperator" || operator == "_PythonDecoratedOperator"
}

// customOperatorName is an Airflow 2 task instance's custom_operator_name:
// the decorator's name for a @task, None for classic operators.
func customOperatorName(operator string) string {
	if operator == "_PythonDecoratedOperator" {
		return "@task"
	}
	return "None"
}

// taskInstanceInfo is the task-instance endpoint's answer: str() of every
// public attribute of the row, with the key set of the edition (docs/behaviour.md §3.4).
func (r *editionRules) taskInstanceInfo(ti *TaskInstance, run *DagRun) pyObject {
	duration := "None"
	if ti.Duration != nil {
		duration = pyFloatRepr(*ti.Duration)
	}
	pid := "None"
	if ti.PID != nil {
		pid = pyRepr(*ti.PID)
	}
	state := "None"
	if ti.State != TaskNone {
		state = string(ti.State)
	}
	// Keys in sorted order, with the fields Airflow 2 added, or 1.10 alone
	// has, in their places.
	a2 := r.ti2Fields
	info := make(pyObject, 0, 34)
	add := func(key string, val any) { info = append(info, pyField{key, val}) }
	none2 := func(key string) { // an Airflow 2 field airlite does not model
		if a2 {
			add(key, "None")
		}
	}
	if a2 {
		add("custom_operator_name", customOperatorName(ti.Operator))
	}
	add("dag_id", ti.DagID)
	if a2 {
		add("dag_run", dagRunRepr(run, run.ExecutionDate))
	}
	add("duration", duration)
	add("end_date", pyOptTime(ti.EndDate))
	if !a2 {
		add("execution_date", strFormat(ti.ExecutionDate))
	}
	none2("executor")
	add("executor_config", "{}")
	none2("external_executor_id")
	add("hostname", ti.Hostname)
	add("job_id", "None")
	if a2 {
		add("map_index", "-1")
	}
	add("max_tries", pyRepr(ti.MaxTries))
	none2("next_kwargs")
	none2("next_method")
	add("operator", ti.Operator)
	add("pid", pid)
	add("pool", ti.Pool)
	add("pool_slots", pyRepr(ti.PoolSlots))
	add("priority_weight", pyRepr(ti.PriorityWeight))
	add("queue", ti.Queue)
	none2("queued_by_job_id")
	add("queued_dttm", pyOptTime(ti.QueuedDttm))
	none2("rendered_map_index")
	none2("rendered_task_instance_fields")
	if a2 {
		add("run_id", ti.RunID)
	}
	add("start_date", pyOptTime(ti.StartDate))
	add("state", state)
	add("task_id", ti.TaskID)
	add("test_mode", "False")
	none2("trigger_id")
	none2("trigger_timeout")
	if a2 {
		add("try_number", pyRepr(ti.TryNumber))
	}
	add("unixname", ti.Unixname)
	if a2 {
		add("updated_at", pyOptTime(ti.UpdatedAt))
	}
	return info
}

// webserverHealth is what the webserver's /health reports: the scheduler's
// latest heartbeat (nil when it has none: it never beat, or is off) and
// whether it is alive. The metadatabase is always healthy: it is the store.
type webserverHealth struct {
	schedulerBeat  *time.Time
	schedulerAlive bool
}

func healthStatus(ok bool) string {
	if ok {
		return "healthy"
	}
	return "unhealthy"
}

// healthBody2 is Airflow 2.10.3's /health (airflow/api/common/airflow_health.py):
// the metadatabase, the scheduler, and the triggerer and dag processor,
// which airlite does not have, so that their status is null, as Airflow
// reports components that never ran. Flask's jsonify with Airflow's
// provider: sorted keys, Python's default separators.
func healthBody2(h webserverHealth) ([]byte, error) {
	var beat any
	if h.schedulerBeat != nil {
		beat = isoFormat(*h.schedulerBeat)
	}
	return spacedJSON.marshal(map[string]any{
		"metadatabase":  map[string]any{"status": "healthy"},
		"scheduler":     map[string]any{"status": healthStatus(h.schedulerAlive), "latest_scheduler_heartbeat": beat},
		"triggerer":     map[string]any{"status": nil, "latest_triggerer_heartbeat": nil},
		"dag_processor": map[string]any{"status": nil, "latest_dag_processor_heartbeat": nil},
	})
}

// healthBody110 is Airflow 1.10.15's /health (airflow/www/blueprints.py:35-61,
// airflow/www_rbac/views.py:224-250): json.dumps with indent=4, keys in the
// order the view sets them, no final newline.
func healthBody110(h webserverHealth) ([]byte, error) {
	beat := "null"
	if h.schedulerBeat != nil {
		beat = `"` + isoFormat(*h.schedulerBeat) + `"`
	}
	return []byte("{\n" +
		"    \"metadatabase\": {\n" +
		"        \"status\": \"healthy\"\n" +
		"    },\n" +
		"    \"scheduler\": {\n" +
		"        \"status\": \"" + healthStatus(h.schedulerAlive) + "\",\n" +
		"        \"latest_scheduler_heartbeat\": " + beat + "\n" +
		"    }\n" +
		"}"), nil
}

// poolJSON is a pool as Airflow's Pool.to_json renders it.
func (r *editionRules) poolJSON(p *Pool) map[string]any {
	var desc any
	if p.Description != nil {
		desc = *p.Description
	}
	m := map[string]any{"description": desc, "id": p.ID, "pool": p.Name, "slots": p.Slots}
	if r.poolIncludeDeferred {
		m["include_deferred"] = p.IncludeDeferred
	}
	return m
}
