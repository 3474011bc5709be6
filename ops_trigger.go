package main

// Triggering a run: one operation behind the experimental trigger
// (Airflow's airflow/api/common/trigger_dag.py), /api/v1's post_dag_run
// (airflow/api_connexion/endpoints/dag_run_endpoint.py) and the status
// page's trigger form. The two APIs check different things in different
// orders (trigger_dag checks the DAG's start date and, in 1.10, never the
// run id's pattern; post_dag_run refuses the run ids reserved for other
// run types): the request says which checks apply, the operation applies
// them in one order, and each dialect phrases the faults.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Trigger faults.
const (
	faultDagNotFound   opFault = "dag_not_found"   // no DagModel row: dag_id
	faultDagNotLoaded  opFault = "dag_not_loaded"  // a row without a definition, or stale where that matters: dag_id
	faultBeforeStart   opFault = "before_start"    // date, start (ISO)
	faultRunIDTooLong  opFault = "run_id_too_long" // run_id
	faultRunExists     opFault = "run_exists"      // dag_id, run_id, date; by_id, by_date: the runs found
	faultRunIDReserved opFault = "run_id_reserved" // run_id, run_type
	faultRunIDInvalid  opFault = "run_id_invalid"  // run_id
	faultParamInvalid  opFault = "param_invalid"   // message: str() of the error
	// faultRunTypeNotAllowed: the DAG's allowed_run_types leave out the
	// run's type: dag_id, run_type.
	faultRunTypeNotAllowed opFault = "run_type_not_allowed"
	// faultDagImportErrors: the DAG's has_import_errors is set (dag_id).
	faultDagImportErrors opFault = "dag_import_errors"
)

// triggerChecks are the checks of Airflow's that a trigger applies, by
// the API it comes through.
type triggerChecks struct {
	// startDate refuses a date before default_args' start_date
	// (trigger_dag; post_dag_run has no such check).
	startDate bool
	// runIDLength refuses a run id longer than the run_id column before
	// the store is read (the experimental API's own limit).
	runIDLength bool
	// reservedRunIDs refuses the "{type}__" ids of other run types
	// (create_dagrun for a manual run, Airflow 2.10.3
	// airflow/models/dag.py:3152-3164).
	reservedRunIDs bool
	// runIDPattern refuses an id that matches neither run-id pattern, or
	// is longer than the column (airflow/models/dag.py:3175-3181).
	runIDPattern bool
	// importErrors refuses a DAG whose has_import_errors is set, once it
	// is found (2.10.3 post_dag_run, 3.2.1 trigger_dag_run; the
	// experimental trigger_dag and materialize_asset do not look).
	importErrors bool
}

// triggerRequest is a manual run as the caller asks for it, read and
// checked against its wire's rules.
type triggerRequest struct {
	dagID string
	runID string // "": manual__ and the logical date
	// date is the logical date; nil: now (or the fake clock's next
	// trigger date) cut to dateUnit.
	date     *time.Time
	dateUnit time.Duration
	// noDate asks for a run without a logical date (Airflow 3's
	// logical_date null, where the rules allow one): date is unused, the
	// run has no data interval, and its id has a random part.
	noDate bool
	// runAfter is the run_after asked for (Airflow 3's trigger body);
	// nil: now. A run with a logical date and no interval given runs
	// after its inferred interval's end (rules.manualInterval).
	runAfter *time.Time
	// triggeredBy, user and partitionKey are recorded with an Airflow 3
	// run (triggered_by, triggering_user_name, partition_key).
	triggeredBy  string
	user         *string
	partitionKey *string
	// runType is the run's type and its id's prefix; "": a manual run
	// (POST /assets/{id}/materialize asks for asset_materialization).
	runType  string
	conf     json.RawMessage // stored as it is
	note     *string
	interval *dataInterval
	event    *EventLog // stored in the run's write; nil: none
	checks   triggerChecks
	// badRunID and badConf are what the dialect found wrong with the run
	// id and the conf it was sent. trigger_dag reads the run id only once
	// the DAG is found and the date checked, and the conf only after the
	// duplicate check: the operation raises them at those points.
	badRunID, badConf error
}

// triggered is a trigger's outcome: the run, and the logical date as the
// request gave it (with its offset) or as the operation chose it.
type triggered struct {
	run  *DagRun
	date time.Time
	dag  *DagRow // the DAG as the trigger read it
}

// dagDefinition is a DAG that can run: its DagModel row, then its loaded
// definition (Airflow's check_and_get_dag).
func (o *operations) dagDefinition(dagID string) (*DagRow, error) {
	row, err := o.dagRow(dagID)
	if err != nil {
		return nil, err
	}
	if row.Def == nil {
		return nil, opErr(errNotFound, faultDagNotLoaded, "dag_id", dagID)
	}
	return row, nil
}

// dagRow is a DAG's DagModel row, whether its definition loaded or not.
func (o *operations) dagRow(dagID string) (*DagRow, error) {
	row, err := o.store.DagByID(dagID)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	return row, err
}

// dagToTrigger is the DAG a trigger reads before anything else: a
// DagModel row with a definition, not stale (Airflow 3.2.1
// routes/public/dag_run.py trigger_dag_run looks the DAG up among the
// rows that are not stale), and, when checks say so, without import
// errors (2.10.3 dag_run_endpoint.py:307-314, 3.2.1 dag_run.py:456-464).
func (o *operations) dagToTrigger(dagID string, checks triggerChecks) (*DagRow, error) {
	row, err := o.dagDefinition(dagID)
	if err != nil {
		return nil, err
	}
	if row.Stale {
		return nil, opErr(errNotFound, faultDagNotLoaded, "dag_id", dagID)
	}
	if checks.importErrors && row.ImportErrors {
		return nil, opErr(errInvalid, faultDagImportErrors, "dag_id", dagID)
	}
	return row, nil
}

// trigger creates a manual run with its task instances and wakes the
// scheduler.
func (o *operations) trigger(req triggerRequest) (*triggered, error) {
	row, err := o.dagToTrigger(req.dagID, req.checks)
	if err != nil {
		return nil, err
	}
	rules := o.rules()
	runType := rules.triggerRunType
	if req.runType != "" {
		runType = req.runType
	}
	if !row.Def.allowsRunType(runType) {
		// After the 404 and the import-errors 400, before the body is used (c57fba0e
		// routes/public/dag_run.py:466-470; routes/public/assets.py:422-426
		// for a materialization, after the materializer is found).
		return nil, opErr(errInvalid, faultRunTypeNotAllowed, "dag_id", req.dagID, "run_type", runType)
	}
	if req.noDate && !rules.nullLogicalDate {
		return nil, fmt.Errorf("trigger %s: a run without a logical date in edition %s", req.dagID, rules.name)
	}
	now := o.now().UTC()
	var date time.Time
	switch {
	case req.noDate:
	case req.date != nil:
		date = *req.date
	default:
		date = now.Truncate(req.dateUnit)
		if o.triggerDate != nil {
			date = o.triggerDate(req.dateUnit)
		}
	}
	if start := row.Def.DefaultArgsStartDate; req.checks.startDate && !req.noDate && start != nil && date.Before(*start) {
		return nil, opErr(errInvalid, faultBeforeStart, "date", isoFormat(date), "start", isoFormat(*start))
	}
	if req.badRunID != nil {
		return nil, req.badRunID
	}
	// run_after: as asked, or now; the id is made from it before the
	// interval moves it (TriggerDAGRunPostBody.validate_dag_run_id runs
	// before validate_context).
	runAfter := now.Truncate(time.Microsecond)
	if req.runAfter != nil {
		runAfter = *req.runAfter
	}
	var logical *time.Time
	if !req.noDate {
		logical = &date
	}
	runID := req.runID
	// A run Airflow 3 names from the default run_after (now) may meet
	// another named from the same microsecond, where Airflow's requests
	// are milliseconds apart: the plan moves run_after on until the id is
	// free (movable). A run_after the body gives is not moved.
	// The id names a manual run whatever type the route creates: Airflow
	// 3's materialize route takes the trigger's body and its
	// validate_context (apache/airflow#64211).
	named := runID == ""
	if named {
		runID = rules.triggerRunID("manual", logical, runAfter)
	}
	movable := named && req.runAfter == nil && rules.nullLogicalDate
	interval := req.interval
	switch {
	case req.noDate:
		interval = nil // a run without a logical date has no interval
	case interval == nil:
		// Airflow 3 keeps run_after as asked or now (apache/airflow#59477,
		// datamodels/dag_run.py:118-130 of c57fba0e).
		interval = rules.manualInterval(row.Def, date.UTC())
	}
	if !rules.nullLogicalDate {
		runAfter = time.Time{} // the logical date (editions 1.10 and 2)
	}
	if req.checks.runIDLength && utf8.RuneCountInString(runID) > maxRunIDChars {
		return nil, opErr(errInvalid, faultRunIDTooLong, "run_id", runID)
	}
	// The params: Airflow 3 checks them in create_dagrun before the
	// insert meets a duplicate run; 2.10.3's APIs look for the duplicate
	// first, and create_dagrun checks the run id, then the params
	// (models/dag.py:3175-3186). A DAG without schemas has no check.
	params := ""
	if row.Def.params != nil && req.badConf == nil {
		params = row.Def.params.validate(req.conf, rules.paramsMerged)
	}
	if params != "" && rules.paramsMerged {
		if err := req.checks.runID(runID); err != nil {
			return nil, err
		}
		return nil, opErr(errInvalid, faultParamInvalid, "message", params)
	}
	// The plan only reads the view, so running it again in a batch is
	// harmless.
	created, err := o.store.TriggerRun(func(v storeView) (*newRun, error) {
		runID, runAfter := runID, runAfter // the plan may run again in a batch
		if movable {
			var err error
			if runID, runAfter, err = freeRunID(v, req.dagID, runID, runAfter, func(at time.Time) string {
				return rules.triggerRunID("manual", logical, at)
			}); err != nil {
				return nil, err
			}
		}
		if err := runExists(v, req.dagID, runID, logical); err != nil {
			return nil, err
		}
		if req.badConf != nil {
			return nil, req.badConf
		}
		if err := req.checks.runID(runID); err != nil {
			return nil, err
		}
		if params != "" {
			return nil, opErr(errInvalid, faultParamInvalid, "message", params)
		}
		return &newRun{start: rules.newRun, dag: row.Def, runID: runID, date: date.UTC(), noDate: req.noDate,
			runAfter: runAfter.UTC(), runType: runType, conf: req.conf,
			triggeredBy: req.triggeredBy, user: req.user, partitionKey: req.partitionKey,
			now: now.Truncate(time.Microsecond), unixname: o.unixname, external: true, note: req.note,
			interval: interval, event: req.event, dateChecked: true}, nil
	})
	if err != nil {
		return nil, err
	}
	o.wake()
	return &triggered{run: created, date: date, dag: row}, nil
}

// freeRunID is runID, or when the DAG has a run of that id the id that
// name gives the first later microsecond whose id is free, with that
// run_after.
func freeRunID(v storeView, dagID, runID string, runAfter time.Time, name func(time.Time) string) (string, time.Time, error) {
	for {
		_, err := v.Run(dagID, runID)
		if errors.Is(err, errNotFound) {
			return runID, runAfter, nil
		}
		if err != nil {
			return "", time.Time{}, err
		}
		runAfter = runAfter.Add(time.Microsecond)
		runID = name(runAfter)
	}
}

// runExists is faultRunExists when the DAG has a run with runID or at
// date (nil: the run has no logical date, which never collides); by_id
// and by_date name the runs found, and same says they are one run, so
// that each dialect applies its API's duplicate rule.
func runExists(v storeView, dagID, runID string, date *time.Time) error {
	byID, err := v.Run(dagID, runID)
	if err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	var byDate *DagRun
	shown := ""
	if date != nil {
		shown = date.Format(time.RFC3339Nano)
		byDate, err = v.RunAt(dagID, *date)
		if err != nil && !errors.Is(err, errNotFound) {
			return err
		}
	}
	if byID == nil && byDate == nil {
		return nil
	}
	e := opErr(errConflict, faultRunExists, "dag_id", dagID, "run_id", runID, "date", shown)
	if byID != nil {
		e.values["by_id"] = byID.RunID
	}
	if byDate != nil {
		e.values["by_date"] = byDate.RunID
		e.values["by_date_at"] = byDate.ExecutionDate.Format(time.RFC3339Nano)
	}
	if byID != nil && byDate != nil && byID.ID == byDate.ID {
		e.values["same"] = "true"
	}
	return e
}

// runID applies the run-id checks of create_dagrun that c asks for.
func (c triggerChecks) runID(runID string) error {
	if c.reservedRunIDs {
		for _, runType := range reservedRunTypes {
			if strings.HasPrefix(runID, runType+"__") {
				return opErr(errInvalid, faultRunIDReserved, "run_id", runID, "run_type", runType)
			}
		}
	}
	if c.runIDPattern && (utf8.RuneCountInString(runID) > maxRunIDChars ||
		(!allowedRunIDRe.MatchString(runID) && !builtinRunIDRe.MatchString(runID))) {
		return opErr(errInvalid, faultRunIDInvalid, "run_id", runID)
	}
	return nil
}

// reservedRunTypes are the run types whose "{type}__" run ids a manual run
// may not take (Airflow 2.10.3 airflow/utils/types.py:78-95).
var reservedRunTypes = []string{"backfill", "scheduled", "dataset_triggered"}

// triggerDagChecks are the checks of Airflow's trigger_dag
// (airflow/api/common/trigger_dag.py), which the experimental API and
// the status page's trigger form apply: the DAG's start date, the run
// id's length, and its pattern where the rules check it.
func triggerDagChecks(rules *editionRules) triggerChecks {
	return triggerChecks{startDate: true, runIDLength: true, runIDPattern: rules.checkRunID}
}
