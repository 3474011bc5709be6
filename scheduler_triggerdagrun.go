package main

// TriggerDagRunOperator's try: it triggers its target DAG's run through
// the operations layer's trigger (ops_trigger.go, which wakes the
// scheduler as any manual trigger does), and with wait_for_completion
// polls that run's state every poke_interval in its own goroutine, never
// in the scheduler's loop. Each release's way:
//   - 3.2.1: the operator raises DagRunTriggerException, the task runner
//     asks the execution API's trigger route (c57fba0e task-sdk
//     execution_time/task_runner.py:1418-1524 _handle_trigger_dag_run;
//     execution_api/routes/dag_runs.py:92-146; sdk/api/client.py:693-721),
//     whose 409 (a run of that id) resets the run, skips or fails the task.
//   - 2.10.3: the operator calls trigger_dag itself
//     (airflow/operators/trigger_dagrun.py:167-271): DagRunAlreadyExists
//     (a run of that id or date) resets, skips or fails.
//   - 1.10.15: trigger_dag with a trig__ run id (airflow/operators/
//     dagrun_operator.py:76-91).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// useOperations gives the scheduler the operations value whose trigger a
// TriggerDagRunOperator's try calls (main wires the server's, before
// start); without it the operator is simulated.
func (s *scheduler) useOperations(o *operations) { s.ops = o }

// triggerFailure is how a try that could not trigger ends.
func triggerFailure(log *strings.Builder, reason string) taskOutcome {
	return taskOutcome{state: TaskFailed, output: log.String(), reason: reason}
}

// operatorTrigger is the run a TriggerDagRunOperator's try asks for, its
// templates rendered.
type operatorTrigger struct {
	dagID, runID string
	logical      *time.Time // nil: no logical date (3.2.1's None)
	conf         json.RawMessage
	// rendered is the operator's template fields as the release keeps
	// them once rendered (TaskInstance.Rendered).
	rendered map[string]any
}

// planOperatorTrigger renders the operator's arguments into the run it
// asks for (the run id as the release generates it when none is given).
func (s *scheduler) planOperatorTrigger(tc templateContext, args *TriggerDagRunArgs) (operatorTrigger, error) {
	var plan operatorTrigger
	var err error
	if plan.dagID, err = tc.renderText(args.DagID); err != nil {
		return plan, fmt.Errorf("render trigger_dag_id: %w", err)
	}
	if plan.runID, err = tc.renderText(args.RunID); err != nil {
		return plan, fmt.Errorf("render trigger_run_id: %w", err)
	}
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	var dateText string
	if plan.logical, dateText, err = s.operatorLogicalDate(tc, args, now); err != nil {
		return plan, err
	}
	// conf is rendered once: the run gets what the rendered field shows.
	var confText json.RawMessage
	if args.Conf != nil {
		if confText, err = renderJSONStrings(tc, args.Conf); err != nil {
			return plan, fmt.Errorf("render conf: %w", err)
		}
	}
	if plan.conf, err = operatorConf(confText); err != nil {
		return plan, err
	}
	if plan.rendered, err = s.operatorRenderedFields(tc, args, plan, dateText, confText); err != nil {
		return plan, err
	}
	if plan.runID == "" {
		plan.runID = s.rules.operatorRunID(plan.logical, dateText, now)
	}
	return plan, nil
}

// runTriggerDagRun is a TriggerDagRunOperator's try.
func (s *scheduler) runTriggerDagRun(ctx context.Context, job taskJob) taskOutcome {
	tc := s.jobTemplates(job)
	var log strings.Builder
	plan, err := s.planOperatorTrigger(tc, job.task.TriggerDagRun)
	if err != nil {
		return triggerFailure(&log, err.Error())
	}
	out := s.fireOperatorTrigger(ctx, job, tc, plan, &log)
	out.rendered = plan.rendered
	return out
}

// argNotSetText is str() of 3.2.1's NOTSET, the logical_date an operator
// given none keeps, as serialize_template_field shows a value json.dumps
// refuses. The address is the Python process's own; airlite writes a
// fixed one.
const argNotSetText = "<airflow.serialization.definitions.notset.ArgNotSet object at 0x7f1e2d3c4b50>"

// operatorRenderedFields are the operator's template_fields rendered, as
// the release serializes them for RenderedTaskInstanceFields (2.10.3
// serialization/helpers.py serialize_template_field; 3.2.1 task-sdk
// execution_time/task_runner.py:957-1034 _serialize_template_field, sent
// by _prepare before execute; 1.10.15's are trigger_dag_id and
// execution_date): values json.dumps takes as they are (None stays
// null), anything else as its str(). They are the values before
// execute: trigger_run_id stays None when not given, the generated id
// is not shown. dateText is logical_date rendered ("": not given),
// confText conf rendered (nil: not given).
func (s *scheduler) operatorRenderedFields(tc templateContext, args *TriggerDagRunArgs, plan operatorTrigger, dateText string, confText json.RawMessage) (map[string]any, error) {
	release110 := !s.rules.operatorTriggerRoute && !s.rules.operatorDateXCom
	var date any // None: not given (2.10.3, 1.10.15) or logical_date=None
	switch {
	case args.LogicalDateIsDatetime && plan.logical != nil && !release110:
		date = pyDateTime(*plan.logical, ' ') // str(datetime)
	case args.LogicalDate != nil:
		date = dateText
	case s.rules.nullLogicalDate && !args.LogicalDateNone:
		date = argNotSetText
	}
	if release110 {
		return map[string]any{"trigger_dag_id": plan.dagID, "execution_date": date}, nil
	}
	var runID, conf any
	if args.RunID != "" {
		runID = plan.runID
	}
	if confText != nil {
		dec := json.NewDecoder(bytes.NewReader(confText))
		dec.UseNumber()
		if err := dec.Decode(&conf); err != nil {
			return nil, fmt.Errorf("read the rendered conf: %w", err)
		}
	}
	return map[string]any{"trigger_dag_id": plan.dagID, "trigger_run_id": runID, "logical_date": date, "conf": conf,
		"wait_for_completion": renderedFlag(tc, args.WaitForCompletion), "skip_when_already_exists": renderedFlag(tc, args.SkipWhenAlreadyExists)}, nil
}

// renderedFlag is a boolean template field as rendered: the bool, or a
// template's rendered text.
func renderedFlag(tc templateContext, f templatedFlag) any {
	if f.Template == "" {
		return f.Value
	}
	text, err := tc.renderText(f.Template)
	if err != nil {
		return f.Template
	}
	return text
}

// fireOperatorTrigger triggers plan's run through the operations' trigger
// and, as the operator asks, resets, skips or waits; log holds what the
// try wrote before.
func (s *scheduler) fireOperatorTrigger(ctx context.Context, job taskJob, tc templateContext, plan operatorTrigger, log *strings.Builder) (out taskOutcome) {
	args := job.task.TriggerDagRun
	dagID, runID, logical, conf := plan.dagID, plan.runID, plan.logical, plan.conf
	route := s.rules.operatorTriggerRoute
	crashed := false // the task process ended before finalize (triggerRouteRefusal)
	if route {
		defer func() {
			if !crashed {
				out.pushed = append(out.pushed, triggeredDagLinkPush(dagID, out.pushed))
			}
		}()
	}
	if route {
		fmt.Fprintf(log, "Triggering Dag Run. trigger_dag_id=%s\n", dagID)
	}
	req := triggerRequest{dagID: dagID, runID: runID, dateUnit: time.Microsecond, conf: conf, note: args.Note,
		// trigger_dag's checks: the DAG's default_args start_date, the run
		// id's pattern where create_dagrun checks it.
		checks: triggerChecks{startDate: true, runIDPattern: s.rules.checkRunID}}
	if route {
		req.triggeredBy = "operator" // DagRunTriggeredByType.OPERATOR
	}
	if logical == nil {
		req.noDate = true
	} else {
		req.date = logical
	}
	created, err := s.ops.trigger(req)
	run := (*DagRun)(nil)
	if created != nil {
		run = created.run
	}
	if err != nil {
		var existing *DagRun
		if existing, err = s.existingTriggeredRun(err, dagID, route); err != nil {
			if route {
				if refusal, refused := triggerRouteRefusal(log, dagID, err); refused {
					crashed = true
					return refusal
				}
			}
			return triggerFailure(log, fmt.Sprintf("trigger %s: %s", dagID, s.triggerFaultText(err)))
		}
		switch {
		case args.ResetDagRun:
			if job.key.dagID == existing.DagID && job.key.runID == existing.RunID {
				return triggerFailure(log, "reset_dag_run: the run to clear is this task's own run, which airlite does not clear under its running try")
			}
			if route {
				fmt.Fprintf(log, "Dag Run already exists; Resetting Dag Run. dag_id=%s run_id=%s\n", dagID, runID)
			} else {
				fmt.Fprintf(log, "Clearing %s on %s\n", dagID, pyDateTime(existing.ExecutionDate, ' '))
			}
			if _, err := s.ops.clearRunTasks(existing, false, false); err != nil {
				return triggerFailure(log, fmt.Sprintf("clear %s %s: %v", dagID, existing.RunID, err))
			}
			run = existing
		case flagValue(tc, args.SkipWhenAlreadyExists):
			if route {
				fmt.Fprintf(log, "Dag Run already exists, skipping task as skip_when_already_exists is set to True. dag_id=%s\n", dagID)
				return taskOutcome{state: TaskSkipped, output: log.String()}
			}
			log.WriteString("Task skipped: Skipping due to skip_when_already_exists is set to True and DagRunAlreadyExists\n")
			return taskOutcome{state: TaskSkipped, output: log.String()}
		case route:
			// A terminal state the task runner sends: no retry.
			fmt.Fprintf(log, "Dag Run already exists, marking task as failed. dag_id=%s\n", dagID)
			out := triggerFailure(log, fmt.Sprintf("a run %s of %s already exists", runID, dagID))
			out.noRetry = true
			return out
		default:
			return triggerFailure(log, s.runExistsText(existing, runID, logical))
		}
	}
	var pushed []xcomPush
	if s.rules.operatorDateXCom {
		pushed = append(pushed, xcomPush{Key: "trigger_execution_date_iso", Value: appendPyString(nil, isoFormat(run.ExecutionDate.UTC()))})
	}
	if s.rules.operatorTriggerRoute || s.rules.operatorDateXCom {
		pushed = append(pushed, xcomPush{Key: "trigger_run_id", Value: appendPyString(nil, run.RunID)})
	}
	if route {
		fmt.Fprintf(log, "Dag Run triggered successfully. trigger_dag_id=%s\n", dagID)
	} else {
		fmt.Fprintf(log, "Triggered %s run %s\n", dagID, run.RunID)
	}
	if !flagValue(tc, args.WaitForCompletion) {
		return taskOutcome{state: TaskSuccess, output: log.String(), pushed: pushed}
	}
	out = s.waitForTriggeredRun(ctx, args, run, log)
	out.pushed = pushed
	return out
}

// triggeredDagLinkPush is the XCom 3.2.1's task runner pushes at finalize
// for the operator's TriggerDagRunLink, whatever the try's end
// (task_runner.py:1760-1770, the key XComOperatorLink reads): the
// standard provider's get_link, build_airflow_dagrun_url of the rendered
// trigger_dag_id and the try's trigger_run_id XCom (utils/helpers.py
// build_airflow_dagrun_url: [api] base_url, which airlite leaves unset,
// "/", joined with dags/<dag_id>/runs/<run_id>, nothing quoted). A try
// that pushed no run id links to str(None).
func triggeredDagLinkPush(dagID string, pushed []xcomPush) xcomPush {
	runID := "None"
	for _, p := range pushed {
		var id string
		if p.Key == "trigger_run_id" && json.Unmarshal(p.Value, &id) == nil {
			runID = id
		}
	}
	return xcomPush{Key: "_link_TriggerDagRunLink", Value: appendPyString(nil, "/dags/"+dagID+"/runs/"+runID)}
}

// waitForTriggeredRun polls the triggered run's state every
// poke_interval, after a first sleep, until it is in allowed_states
// (success) or failed_states (failed: in 3.2.1 a terminal state without
// retries, in 2.10.3 an AirflowException, retried). A stop ends the wait.
func (s *scheduler) waitForTriggeredRun(ctx context.Context, args *TriggerDagRunArgs, run *DagRun, log *strings.Builder) taskOutcome {
	route := s.rules.operatorTriggerRoute
	for {
		if route {
			fmt.Fprintf(log, "Waiting for dag run to complete execution in allowed state. dag_id=%s run_id=%s allowed_state=%s\n",
				run.DagID, run.RunID, dagRunStatesRepr(args.AllowedStates))
		} else {
			fmt.Fprintf(log, "Waiting for %s on %s to become allowed state %s ...\n", run.DagID, pyDateTime(run.ExecutionDate, ' '), dagRunStatesRepr(args.AllowedStates))
		}
		if err := s.sleepPokeInterval(ctx, args.PokeInterval); err != nil {
			return triggerFailure(log, "stopped: "+err.Error())
		}
		now, err := s.opts.Store.RunByRunID(run.DagID, run.RunID)
		if err != nil {
			return triggerFailure(log, fmt.Sprintf("read the state of %s %s: %v", run.DagID, run.RunID, err))
		}
		state := string(now.State)
		if slices.Contains(args.FailedStates, state) {
			if route {
				fmt.Fprintf(log, "DagRun finished with failed state. dag_id=%s state=%s\n", run.DagID, state)
				out := triggerFailure(log, fmt.Sprintf("the triggered run %s of %s ended %s", run.RunID, run.DagID, state))
				out.noRetry = true
				return out
			}
			return triggerFailure(log, fmt.Sprintf("AirflowException: %s failed with failed states %s", run.DagID, state))
		}
		if slices.Contains(args.AllowedStates, state) {
			if route {
				fmt.Fprintf(log, "DagRun finished with allowed state. dag_id=%s state=%s\n", run.DagID, state)
			} else {
				fmt.Fprintf(log, "%s finished with allowed state %s\n", run.DagID, state)
			}
			return taskOutcome{state: TaskSuccess, output: log.String()}
		}
	}
}

// sleepPokeInterval is the operator's time.sleep(poke_interval) on the
// scheduler's clock: it ends once that long has passed on the clock, as
// a retry's delay does (a fake clock moved forward ends it at the next
// look, one scheduler interval later), or in real time, whichever comes
// first, so that a clock standing still does not hold the try forever.
// Under the real clock both are the same. A stop ends it with the
// stop's cause.
func (s *scheduler) sleepPokeInterval(ctx context.Context, d time.Duration) error {
	deadline := s.opts.Now().Add(d)
	elapsed := time.NewTimer(d)
	defer elapsed.Stop()
	var look <-chan time.Time
	if s.opts.Interval > 0 {
		ticker := time.NewTicker(s.opts.Interval)
		defer ticker.Stop()
		look = ticker.C
	}
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-elapsed.C:
			return nil
		case <-look:
			if !s.opts.Now().Before(deadline) {
				return nil
			}
		}
	}
}

// dagRunStatesRepr is a list of DagRunState members as Python's repr()
// shows it (the operator keeps allowed_states as DagRunState(s)).
func dagRunStatesRepr(states []string) string {
	parts := make([]string, len(states))
	for i, state := range states {
		parts[i] = "<DagRunState." + strings.ToUpper(state) + ": " + pyQuote(state) + ">"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// operatorLogicalDate is the logical date the operator asks for (nil:
// none, 3.2.1's logical_date=None) and the date as the file gave it,
// rendered ("": not given). Not given, or None before 3.2.1, it is now.
func (s *scheduler) operatorLogicalDate(tc templateContext, args *TriggerDagRunArgs, now time.Time) (*time.Time, string, error) {
	if args.LogicalDate == nil {
		if args.LogicalDateNone && s.rules.nullLogicalDate {
			return nil, "", nil
		}
		return &now, "", nil
	}
	text, err := tc.renderText(*args.LogicalDate)
	if err != nil {
		return nil, "", fmt.Errorf("render logical_date: %w", err)
	}
	date, err := parseAirflowDate(text, now)
	if err != nil {
		return nil, "", fmt.Errorf("logical_date: %w", err)
	}
	return &date, text, nil
}

// flagValue is a boolean template field's value once rendered (a
// template that fails to render reads false).
func flagValue(tc templateContext, f templatedFlag) bool {
	if f.Template == "" {
		return f.Value
	}
	text, err := tc.renderText(f.Template)
	return err == nil && text != ""
}

// operatorConf is the conf a run gets from the operator's conf, rendered
// (renderJSONStrings: every string, not its keys, with its key order
// kept); a string conf is JSON text, read as json.loads reads it. nil or
// an empty dict is no conf (trigger_dag's "if conf"). A conf that is not
// a JSON object fails the try, as the operator's check and the trigger's
// model refuse it.
func operatorConf(rendered json.RawMessage) (json.RawMessage, error) {
	if rendered == nil {
		return nil, nil
	}
	var text string
	if json.Unmarshal(rendered, &text) == nil {
		rendered = json.RawMessage(text)
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(rendered, &object); err != nil {
		return nil, fmt.Errorf("conf parameter should be JSON Serializable: %s", rendered)
	}
	if len(object) == 0 {
		return nil, nil
	}
	// Stored as the API triggers store a conf: compact, within
	// maxConfBytes (a template must not store a larger conf than any
	// trigger may).
	return compactConf(rendered)
}

// renderJSONStrings is raw with each string value rendered as a template,
// objects' keys kept as they are and in their order.
func renderJSONStrings(tc templateContext, raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	if err := renderJSONValue(tc, dec, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func renderJSONValue(tc templateContext, dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		closing := byte(']')
		if v == '{' {
			closing = '}'
		}
		out.WriteByte(byte(v))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ := json.Marshal(key)
				out.Write(name)
				out.WriteByte(':')
			}
			if err := renderJSONValue(tc, dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(closing)
	case string:
		text, err := tc.renderText(v)
		if err != nil {
			return err
		}
		encoded, _ := json.Marshal(text)
		out.Write(encoded)
	default:
		encoded, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out.Write(encoded)
	}
	return nil
}

// existingTriggeredRun is the run a trigger's duplicate fault names, for
// the operator's reset or skip: in 3.2.1 only a run of the same id (the
// trigger route's 409; a run at the same logical date under another id
// breaks the table's unique key, a 500), in 2.10.3 and 1.10.15 the run of
// that id or at that date (DagRun.find_duplicate). Any other error comes
// back as it is.
func (s *scheduler) existingTriggeredRun(err error, dagID string, route bool) (*DagRun, error) {
	var fault *opError
	if !errors.As(err, &fault) || fault.fault != faultRunExists {
		return nil, err
	}
	runID := fault.values["by_id"]
	if runID == "" && !route {
		runID = fault.values["by_date"]
	}
	if runID == "" {
		return nil, fmt.Errorf("(sqlite3.IntegrityError) UNIQUE constraint failed: dag_run.dag_id, dag_run.logical_date (dag_run_dag_id_logical_date_key): %w", err)
	}
	run, rerr := s.opts.Store.RunByRunID(dagID, runID)
	if rerr != nil {
		return nil, fmt.Errorf("read run %s of %s: %w", runID, dagID, rerr)
	}
	return run, nil
}

// runExistsText is DagRunAlreadyExists' message: 2.10.3's names the DAG,
// the date asked for and the run id (exceptions.py:234-240), 1.10.15's the
// run id (api/common/experimental/trigger_dag.py:74-77).
func (s *scheduler) runExistsText(existing *DagRun, runID string, logical *time.Time) string {
	if s.rules.operatorDateXCom && logical != nil {
		return fmt.Sprintf("DagRunAlreadyExists: A DAG Run already exists for DAG %s at %s with run id %s",
			existing.DagID, pyDateTime(*logical, ' '), runID)
	}
	return fmt.Sprintf("DagRunAlreadyExists: Run id %s already exists for dag id %s", runID, existing.DagID)
}

// triggerFaultText says why trigger_dag refused, in the release's words
// where airlite has them.
func (s *scheduler) triggerFaultText(err error) string {
	var fault *opError
	if !errors.As(err, &fault) {
		return err.Error()
	}
	switch fault.fault {
	case faultDagNotFound, faultDagNotLoaded:
		return fmt.Sprintf("DagNotFound: Dag id %s not found in DagModel", fault.values["dag_id"])
	case faultBeforeStart:
		return fmt.Sprintf("ValueError: The execution_date [%s] should be >= start_date [%s] from DAG's default_args",
			fault.values["date"], fault.values["start"])
	case faultParamInvalid:
		return "ParamValidationError: " + fault.values["message"]
	}
	return err.Error()
}

// triggerRouteRefusal is the end of a try whose trigger Airflow 3.2.1's
// execution API refuses with a 404 (a DAG not there, or stale) or a 400
// (allowed_run_types without manual). The client re-raises any answer
// but 409 (sdk/api/client.py:706-718), so the supervisor sends the task
// API_SERVER_ERROR (supervisor.py:645-666) and the task's comms raise
// AirflowRuntimeError inside run()'s except clause, where no sibling
// clause catches it; run()'s finally then reads a state never set
// (task_runner.py:1233, 1350-1356), an UnboundLocalError that ends the
// process with exit code 1 ("Top level error", :1880-1882; fixed after
// 3.2.1 by apache/airflow#67955). The supervisor makes that failed, or
// up_for_retry when retries are left (supervisor.py:1225-1248). The log
// holds the task's messages and the exceptions as Python chains them.
func triggerRouteRefusal(log *strings.Builder, dagID string, err error) (taskOutcome, bool) {
	var fault *opError
	if !errors.As(err, &fault) {
		return taskOutcome{}, false
	}
	var status int
	var reason, message string
	switch fault.fault {
	case faultDagNotFound, faultDagNotLoaded:
		status, reason, message = 404, "not_found", fmt.Sprintf("Dag with dag_id: '%s' not found", dagID)
	case faultRunTypeNotAllowed:
		status, reason, message = 400, "denied_run_type", fmt.Sprintf("Dag with dag_id '%s' does not allow manual runs", dagID)
	default:
		return taskOutcome{}, false
	}
	// ErrorResponse.detail as AirflowRuntimeError's text shows it: the
	// route's detail is a dict, which _ErrorBody does not take, so the
	// error's message is "Server returned error" (client.py:1061-1079).
	detail := fmt.Sprintf("{'status_code': %d, 'message': 'Server returned error', 'detail': {'detail': {'reason': %s, 'message': %s}}}",
		status, pyQuote(reason), pyQuote(message))
	log.WriteString("Top level error\n" +
		"airflow.sdk.exceptions.DagRunTriggerException\n\n" +
		"During handling of the above exception, another exception occurred:\n\n" +
		"airflow.sdk.exceptions.AirflowRuntimeError: API_SERVER_ERROR: " + detail + "\n\n" +
		"During handling of the above exception, another exception occurred:\n\n" +
		"UnboundLocalError: cannot access local variable 'state' where it is not associated with a value\n" +
		"Process exited abnormally exit_code=1\n")
	return triggerFailure(log, fmt.Sprintf("the execution API refused the trigger of %s: %d %s", dagID, status, message)), true
}

// runCallableTrigger triggers the DagRunOrder a 1.10.15
// TriggerDagRunOperator's python_callable returned (order: {"run_id",
// "conf"}, or null: "Criteria not met", nothing triggered), the
// callable's try so far in called: trigger_dag with the order's run id
// and json.dumps of its payload, the execution date as the operator reads
// it (operators/dagrun_operator.py:83-91).
func (s *scheduler) runCallableTrigger(ctx context.Context, job taskJob, order json.RawMessage, called taskOutcome) taskOutcome {
	if string(order) == "null" {
		return called
	}
	var log strings.Builder
	log.WriteString(called.output)
	var filled struct {
		RunID string `json:"run_id"`
		Conf  string `json:"conf"`
	}
	if err := json.Unmarshal(order, &filled); err != nil {
		return triggerFailure(&log, fmt.Sprintf("read the callable's DagRunOrder: %v", err))
	}
	if s.ops == nil {
		called.output += "[airlite] no trigger here: the DagRunOrder is not triggered\n"
		return called
	}
	tc := s.jobTemplates(job)
	plan, err := s.planOperatorTrigger(tc, job.task.TriggerDagRun)
	if err != nil {
		return triggerFailure(&log, err.Error())
	}
	plan.runID = filled.RunID
	// trigger_dag reads a conf text with json.loads: null is no conf.
	plan.conf = nil
	if conf := json.RawMessage(filled.Conf); string(conf) != "null" {
		var object map[string]json.RawMessage
		if json.Unmarshal(conf, &object) != nil {
			return triggerFailure(&log, fmt.Sprintf("the DagRunOrder's payload is not a dict: %s", conf))
		}
		if len(object) > 0 {
			plan.conf = conf
		}
	}
	out := s.fireOperatorTrigger(ctx, job, tc, plan, &log)
	out.pushed = append(called.pushed, out.pushed...)
	out.rendered = plan.rendered
	return out
}
