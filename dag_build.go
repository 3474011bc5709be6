package main

// The builder: a dagSpec, from any front end, checked against the
// edition's rules and made into the runtime DAG (validation, the compiled
// schedule, shell plans, links, priority weights), and a poolsSpec into
// pools. Every message names the line the spec says its value was
// written on.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

var validOperatorOutcomes = map[string]bool{"success": true, "failed": true, "skipped": true}

var validTriggerRules = map[string]bool{
	"all_success": true, "all_failed": true, "all_done": true, "all_skipped": true,
	"one_success": true, "one_failed": true, "one_done": true, "none_failed": true,
	"none_failed_min_one_success": true, "none_skipped": true, "always": true,
	"dummy": true, "none_failed_or_skipped": true,
}

// buildDAG checks a DAG's spec and makes the DAG, with the operators the
// edition's release ships and its croniter's rule for cron day fields.
// The checks run in the order of the file (the DAG's keys, then each task
// in turn, then the links between tasks), so the problem reported is the
// first a reader meets.
func buildDAG(s *dagSpec, r *editionRules) (*DAG, error) {
	ops := r.operators()
	if s.DagID == "" {
		return nil, fmt.Errorf("line %d: dag_id is missing", s.DagIDPos.or(s.Pos).Line)
	}
	if err := checkID("dag_id", s.DagID, true); err != nil {
		return nil, fmt.Errorf("line %d: %w", s.DagIDPos.Line, err)
	}
	dag := &DAG{
		DagID:                s.DagID,
		Description:          s.Description,
		StartDate:            s.StartDate,
		EndDate:              s.EndDate,
		Timezone:             s.Timezone,
		Catchup:              r.catchupByDefault, // Airflow's [scheduler] catchup_by_default
		IsPausedUponCreation: s.IsPausedUponCreation,
		MaxActiveRuns:        16,
		MaxActiveTasks:       16,
		DagrunTimeout:        durationOr(s.DagrunTimeout, 0),
		Tags:                 s.Tags,
		Params:               s.Params,
		ParamDocs:            s.ParamDocs,
		DocMD:                s.DocMD,
		Timetable:            s.Timetable,
		TimetableVar:         s.TimetableVar,
		AssetSchedule:        s.AssetSchedule,
		AssetExpression:      s.AssetExpression,
		DisplayName:          s.DisplayName,
		TaskGroup:            s.TaskGroup,
		FilePath:             s.Fileloc,
		taskByID:             map[string]*Task{},
	}
	if err := checkParamDocs(s.ParamDocs, "params", r); err != nil {
		return nil, err
	}
	dag.params = compileParams(s.Params, s.ParamDocs)
	dag.paramNames = paramNames(s.Params, s.ParamDocs, s.ParamOrder)
	if s.Catchup != nil {
		dag.Catchup = *s.Catchup
	}
	if s.MaxActiveRuns != nil {
		dag.MaxActiveRuns = *s.MaxActiveRuns
	}
	limitKey, limitPos := "max_active_tasks", s.MaxActiveTasksPos
	switch {
	case s.MaxActiveTasks != nil:
		dag.MaxActiveTasks = *s.MaxActiveTasks
	case s.Concurrency != nil:
		dag.MaxActiveTasks, limitKey, limitPos = *s.Concurrency, "concurrency", s.ConcurrencyPos
	}
	if dag.MaxActiveRuns < 1 {
		return nil, fmt.Errorf("line %d: max_active_runs must be at least 1, not %d", s.MaxActiveRunsPos.Line, dag.MaxActiveRuns)
	}
	if dag.MaxActiveTasks < 1 {
		return nil, fmt.Errorf("line %d: %s must be at least 1, not %d", limitPos.Line, limitKey, dag.MaxActiveTasks)
	}
	runTypes, err := allowedRunTypes(s, r)
	if err != nil {
		return nil, err
	}
	dag.AllowedRunTypes = runTypes
	sched := s.Schedule
	orTime := s.Timetable != nil && strings.HasSuffix(s.Timetable.Type, "OrTimeSchedule")
	if s.AssetSchedule != nil && r.assetTimetable.Summary != "" && orTime {
		// Assets or a time (DatasetOrTimeSchedule, AssetOrTimeSchedule):
		// the file's timetable shows both, and its time part runs when
		// airlite runs its class (s.RunTimetable).
	} else if s.AssetSchedule != nil && r.assetTimetable.Summary != "" {
		// Scheduled on assets: no schedule that runs on the clock, the
		// edition's DatasetTriggeredTimetable/AssetTriggeredTimetable to show.
		sched = scheduleSpec{Given: true, Pos: sched.Pos}
		tt := r.assetTimetable
		dag.Timetable = &tt
	} else {
		dag.AssetSchedule = nil
	}
	schedule, cron, err := buildSchedule(s.ScheduleInterval, sched, r.cronDays)
	if err != nil {
		return nil, err
	}
	if cron != nil && r.cronInZone {
		cron = cron.inZone(s.Timezone.location())
	}
	dag.Schedule, dag.cron = schedule, cron
	if cron != nil {
		dag.cronText = r.cronDescriber.describe(*schedule)
	}
	if s.RunTimetable != nil {
		if dag.timetable, err = compileTimetable(s.RunTimetable, r.cronDays); err != nil {
			return nil, err
		}
	}
	if err := checkScheduleParams(dag, r); err != nil {
		return nil, err
	}
	if err := checkAllowedRunTypes(dag, s); err != nil {
		return nil, err
	}
	dag.DefaultArgs, dag.DefaultArgsStartDate = s.DefaultArgs, s.DefaultArgsStartDate

	if len(s.Tasks) == 0 && s.ReadErr == nil && !s.Serialized {
		return nil, fmt.Errorf("line %d: dag %q has no tasks", s.TasksPos.or(s.Pos).Line, s.DagID)
	}
	lines := make(map[string]int, len(s.Tasks))
	for i := range s.Tasks {
		ts := &s.Tasks[i]
		if err := checkParamDocs(ts.ParamDocs, fmt.Sprintf("task %q: params", ts.TaskID), r); err != nil {
			return nil, err
		}
		task, err := buildTask(ts, dag, ops, s.Serialized)
		if err != nil {
			return nil, err
		}
		if task.Operator == "BashOperator" && task.Mapping == nil { // a mapped one's instances are simulated
			if task.shellPlan, err = compileShellPlan(task.BashCommand); err != nil {
				return nil, fmt.Errorf("line %d: task %q: bash_command: %w", bashCommandLine(ts, err), task.TaskID, err)
			}
			for _, name := range slices.Sorted(maps.Keys(task.Env)) {
				if _, err := parseTemplate(task.Env[name]); err != nil {
					return nil, fmt.Errorf("line %d: task %q: env %s: %w", ts.EnvPos.or(ts.Pos).Line, task.TaskID, name, err)
				}
			}
		}
		if _, dup := dag.taskByID[task.TaskID]; dup {
			return nil, fmt.Errorf("line %d: duplicate task_id %q (first at line %d)", ts.Pos.Line, task.TaskID, lines[task.TaskID])
		}
		lines[task.TaskID] = ts.Pos.Line
		dag.taskByID[task.TaskID] = task
		dag.Tasks = append(dag.Tasks, task)
	}
	if s.ReadErr != nil {
		return nil, s.ReadErr
	}
	if err := linkTasks(dag, lines); err != nil {
		return nil, err
	}
	dag.idLine, dag.taskLines = s.DagIDPos.Line, lines
	if dag.TaskGroup != nil {
		dag.groups = newTaskGroupIndex(dag.TaskGroup)
	}
	return dag, nil
}

// allowedRunTypes reads the run types a DAG file allows as the task SDK's
// converter does (c57fba0e task-sdk definitions/dag.py:211-221): each a
// DagRunType value (the edition's runTypes, task-sdk
// api/datamodels/_generated.py:138-147), kept once each, sorted as the serialized DAG and
// DagModel keep them (serialization/serialized_objects.py:1716-1721,
// dag_processing/collection.py:608-612); none (an empty list) is every
// type, null. An edition whose Airflow has no such argument refuses the
// key, as an edition without Param refuses !Param (checkParamDocs); a
// Python file of such an edition fails on the argument itself.
func allowedRunTypes(s *dagSpec, r *editionRules) ([]string, error) {
	line := s.AllowedRunTypesPos.Line
	if !r.allowedRunTypes {
		if line != 0 || len(s.AllowedRunTypes) > 0 {
			return nil, fmt.Errorf("line %d: allowed_run_types: Airflow %s has no allowed_run_types (it came with Airflow 3.2)", line, r.version)
		}
		return nil, nil
	}
	if len(s.AllowedRunTypes) == 0 {
		return nil, nil
	}
	var out []string
	for _, v := range s.AllowedRunTypes {
		if !slices.Contains(r.runTypes, v) {
			// Python's ValueError for a value no member has.
			return nil, fmt.Errorf("line %d: allowed_run_types: '%s' is not a valid DagRunType", line, v)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, nil
}

// checkAllowedRunTypes is the task SDK's validator of allowed_run_types
// (c57fba0e task-sdk definitions/dag.py:613-633): a DAG on assets must
// allow asset_triggered runs, one with a schedule scheduled runs, one
// without manual runs. A Python file's DAG was checked by the reader.
func checkAllowedRunTypes(dag *DAG, s *dagSpec) error {
	if dag.AllowedRunTypes == nil || s.Serialized {
		return nil
	}
	var need, text string
	switch {
	case dag.AssetSchedule != nil:
		need, text = "asset_triggered", "ASSET_TRIGGERED when the Dag is scheduled by assets"
	case dag.Schedule != nil || dag.Timetable != nil:
		need, text = "scheduled", "SCHEDULED when the Dag has a schedule defined"
	default:
		need, text = "manual", "MANUAL when the Dag has no schedule defined (schedule=None)"
	}
	if !dag.allowsRunType(need) {
		return fmt.Errorf("line %d: allowed_run_types must include %s", s.AllowedRunTypesPos.Line, text)
	}
	return nil
}

// paramNames are a DAG's or task's params' names in the order the file
// wrote them: order when the front end kept it, else the docs' order
// (a Python file's params all have one), the rest by name.
func paramNames(values map[string]any, docs map[string]ParamDoc, order []string) []string {
	if len(values) == 0 {
		return nil
	}
	if len(order) == len(values) {
		return order
	}
	names := slices.Collect(maps.Keys(values))
	slices.SortFunc(names, func(a, b string) int {
		da, okA := docs[a]
		db, okB := docs[b]
		switch {
		case okA && okB && da.order != db.order:
			return da.order - db.order
		case okA != okB:
			if okA {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// checkParamDocs refuses a definition file's Params in an edition whose
// release has none (Airflow 1.10.15: Param came with 2.2); a Python
// file's params (no lines) are its surface's to refuse.
func checkParamDocs(docs map[string]ParamDoc, what string, r *editionRules) error {
	if r.paramSchemas || len(docs) == 0 {
		return nil
	}
	first := ""
	for name, d := range docs {
		if d.line != 0 && (first == "" || d.order < docs[first].order) {
			first = name
		}
	}
	if first == "" {
		return nil
	}
	return fmt.Errorf("line %d: %s: %s: Airflow %s has no Param (it came with Airflow 2.2): write the param's value alone",
		docs[first].line, what, first, r.version)
}

// scheduleParamsError refuses a DAG that can be scheduled while a param
// of it does not resolve: one without a default, or whose default its
// schema refuses (2.10.3 models/dag.py validate_schedule_and_params:
// 3712-3727, called from DAG.__init__:776 and DAG.validate:844; Airflow
// 3's params validator, task-sdk definitions/dag.py:584-600 of
// c57fba0e). kind and text are the exception as DagBag names it; cause
// is ParamsDict.validate's error, which the exception came from.
type scheduleParamsError struct {
	line             int
	kind, text       string
	cause, paramName string
}

func (e *scheduleParamsError) Error() string {
	return fmt.Sprintf("line %d: params: %s: %s (%s)", e.line, e.paramName, e.text, e.cause)
}

// checkScheduleParams is validate_schedule_and_params: a DAG whose
// timetable can be scheduled (any schedule but None) must resolve every
// param without a conf, as its scheduled runs have none. The Python
// surface refuses a param without a default as the DAG is made (the
// traceback Airflow records); this check is the one for a definition
// file, and for a default a Python file's schema refuses (the reader
// checks no schema).
func checkScheduleParams(dag *DAG, r *editionRules) error {
	if r.scheduleParams == nil || dag.params == nil || (dag.Schedule == nil && dag.Timetable == nil) {
		return nil
	}
	name, cause := dag.params.resolveDefaults()
	if cause == "" {
		return nil
	}
	kind, text := r.scheduleParams(dag.DagID)
	return &scheduleParamsError{line: dag.ParamDocs[name].line, kind: kind, text: text, cause: cause, paramName: name}
}

// bashCommandLine is the line at which a refused bash_command is
// reported: its value's, or the task's when it has none; in a literal
// block (|), whose lines are the file's, the line of the refused
// expression.
func bashCommandLine(s *taskSpec, err error) int {
	pos := s.BashCommandPos.or(s.Pos)
	var refusal *shellRefusal
	if pos.Block && errors.As(err, &refusal) {
		return pos.Line + refusal.line // the block starts on the line after the |
	}
	return pos.Line
}

// buildSchedule checks schedule_interval or schedule (one of them): nil
// for None, and the compiled form of a cron expression or preset.
func buildSchedule(interval, schedule scheduleSpec, days cronDayRule) (*string, *cronSchedule, error) {
	sp, key := interval, "schedule_interval"
	if schedule.Given {
		if interval.Given {
			return nil, nil, fmt.Errorf("line %d: give schedule_interval or schedule, not both", schedule.Pos.Line)
		}
		sp, key = schedule, "schedule"
	}
	switch {
	case sp.NotText != "":
		return nil, nil, fmt.Errorf("line %d: %s must be a cron expression, a preset, a duration or null, not %s", sp.Pos.Line, key, sp.NotText)
	case sp.Expr == nil:
		return nil, nil, nil
	}
	s := strings.TrimSpace(*sp.Expr)
	cron, err := validateSchedule(s, days)
	if err != nil {
		return nil, nil, fmt.Errorf("line %d: %s %q: %w", sp.Pos.Line, key, s, err)
	}
	return &s, cron, nil
}

// validateSchedule accepts Airflow's presets, durations and five-field cron
// expressions, and returns a cron expression or preset compiled with the
// edition's day rule.
func validateSchedule(s string, days cronDayRule) (*cronSchedule, error) {
	if s == "@once" {
		return nil, nil
	}
	if _, preset := cronPresets[s]; strings.HasPrefix(s, "@") && !preset {
		return nil, errors.New("unknown preset" + suggestion(s, []string{"@once", "@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly"}))
	}
	if _, err := parseDuration(s); err == nil {
		return nil, nil
	}
	if !strings.HasPrefix(s, "@") && len(strings.Fields(s)) != 5 {
		return nil, errors.New("want a cron expression with five fields, a preset (@daily) or a duration (1d, 6h)")
	}
	// Airflow refuses a bad cron expression when it parses the file
	// (croniter raises); airlite does too, instead of failing every pass.
	// From a leap year's start, any expression that can fire does so
	// within the search.
	c, err := compileCron(s, days)
	var refused *croniterRefusal
	switch {
	case errors.As(err, &refused):
		return nil, errors.New(days.refusal(refused))
	case err != nil:
		return nil, fmt.Errorf("not a valid cron expression: %w", err)
	}
	if _, err := c.next(cronCheckFrom, false); err != nil {
		return nil, errors.New("not a valid cron expression: it never fires (no such date)")
	}
	return c, nil
}

// cronCheckFrom is where validateSchedule looks for a cron expression's
// first tick: a leap year, so that February 29 is found.
var cronCheckFrom = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// buildTask makes a task of its spec (default_args applied).
// A serialized spec's task ids may hold the dots of group prefixes.
func buildTask(s *taskSpec, dag *DAG, ops *operatorSet, serialized bool) (*Task, error) {
	if s.TaskID == "" {
		return nil, fmt.Errorf("line %d: a task without task_id", s.Pos.Line)
	}
	if err := checkID("task_id", s.TaskID, serialized); err != nil {
		return nil, fmt.Errorf("line %d: %w", s.TaskIDPos.or(s.Pos).Line, err)
	}
	if s.Operator == "" {
		return nil, fmt.Errorf("line %d: task %q: operator is missing", s.Pos.Line, s.TaskID)
	}
	if err := checkOperator(s, ops); err != nil {
		return nil, err
	}
	bashCommand := s.BashCommand
	if s.Operator != "BashOperator" {
		// Airflow hands an operator only the default_args its constructor
		// takes: a bash_command there is for the BashOperators.
		bashCommand = ""
	}
	t := &Task{
		TaskID:                  s.TaskID,
		Operator:                s.Operator,
		BashCommand:             bashCommand,
		Env:                     s.Env,
		Cwd:                     s.Cwd,
		ExecutionTimeout:        durationOr(s.ExecutionTimeout, 0),
		Upstream:                s.Upstream,
		Downstream:              s.Downstream,
		RetryDelay:              durationOr(s.RetryDelay, 5*time.Minute),
		RetryExponentialBackoff: s.RetryExponentialBackoff,
		MaxRetryDelay:           durationOr(s.MaxRetryDelay, 0),
		Pool:                    orDefault(s.Pool, defaultPoolName),
		PoolSlots:               1,
		PriorityWeight:          1,
		WeightRule:              orDefault(s.WeightRule, "downstream"),
		TriggerRule:             orDefault(s.TriggerRule, "all_success"),
		Queue:                   orDefault(s.Queue, "default"),
		Owner:                   orDefault(s.Owner, "airflow"),
		Email:                   s.Email,
		EmailOnFailure:          true,
		EmailOnRetry:            true,
		DependsOnPast:           s.DependsOnPast,
		StartDate:               s.StartDate,
		EndDate:                 s.EndDate,
		Params:                  s.Params,
		Subdag:                  s.Subdag,
		TriggerDagRun:           s.TriggerDagRun,
		DoXComPush:              s.DoXComPush,
		Inlets:                  s.Inlets,
		Outlets:                 s.Outlets,
		DocMD:                   s.DocMD,
		OperatorModule:          s.OperatorModule,
		OperatorName:            s.OperatorName,
		IsMapped:                s.IsMapped,
		Mapping:                 s.Mapping,
		Label:                   s.Label,
		IsSetup:                 s.IsSetup,
		IsTeardown:              s.IsTeardown,
		OnFailureFailDagrun:     s.OnFailureFailDagrun,
		ConcurrencyLimited:      s.ConcurrencyLimited,
		TemplateFields:          s.TemplateFields,
		UIColor:                 s.UIColor,
		UIFgcolor:               s.UIFgcolor,
		ParamDocs:               s.ParamDocs,
		params:                  compileParams(s.Params, s.ParamDocs),
		paramNames:              paramNames(s.Params, s.ParamDocs, s.ParamOrder),
		DisplayName:             s.DisplayName,
		ExtraLinks:              s.ExtraLinks,
	}
	if s.Retries != nil {
		t.Retries = *s.Retries
	}
	if s.PoolSlots != nil {
		t.PoolSlots = *s.PoolSlots
	}
	if s.PriorityWeight != nil {
		t.PriorityWeight = *s.PriorityWeight
	}
	if s.EmailOnFailure != nil {
		t.EmailOnFailure = *s.EmailOnFailure
	}
	if s.EmailOnRetry != nil {
		t.EmailOnRetry = *s.EmailOnRetry
	}
	if t.StartDate == nil {
		t.StartDate = dag.StartDate
	}
	if t.EndDate == nil {
		t.EndDate = dag.EndDate
	}
	// fail says what is wrong with the value at pos (the task's line when
	// the value was not written).
	fail := func(pos specPos, format string, args ...any) error {
		return fmt.Errorf("line %d: task %q: %s", pos.or(s.Pos).Line, t.TaskID, fmt.Sprintf(format, args...))
	}
	switch {
	case t.Retries < 0:
		return nil, fail(s.RetriesPos, "retries must be 0 or more, not %d", t.Retries)
	case t.PoolSlots < 1:
		return nil, fail(s.PoolSlotsPos, "pool_slots must be at least 1, not %d", t.PoolSlots)
	case !validTriggerRules[t.TriggerRule] && !serialized: // a serialized one meets the edition's list (checkDAG)
		return nil, fail(s.TriggerRulePos, "unknown trigger_rule %q%s", t.TriggerRule, suggestion(t.TriggerRule, sortedKeys(validTriggerRules)))
	case t.WeightRule != "downstream" && t.WeightRule != "upstream" && t.WeightRule != "absolute":
		return nil, fail(s.WeightRulePos, "unknown weight_rule %q (downstream, upstream or absolute)", t.WeightRule)
	case t.Operator == "BashOperator" && strings.TrimSpace(t.BashCommand) == "" && t.Mapping == nil:
		return nil, fail(s.BashCommandPos, "a BashOperator needs a bash_command")
	case t.Operator != "SubDagOperator" && t.Subdag != "":
		return nil, fail(s.SubdagPos, "subdag is only for SubDagOperator, not %s", t.Operator)
	}
	if sim := s.Simulate; sim != nil {
		outcome := orDefault(sim.Outcome, "success")
		if !validOperatorOutcomes[outcome] {
			return nil, fail(s.SimulatePos, "simulate outcome %q: want success, failed or skipped", sim.Outcome)
		}
		if sim.FailTimes < 0 {
			return nil, fail(s.SimulatePos, "simulate fail_times must be 0 or more, not %d", sim.FailTimes)
		}
		t.Simulate = &Simulation{Duration: durationOr(sim.Duration, 0), Outcome: outcome, FailTimes: sim.FailTimes}
		for key, v := range sim.XCom {
			raw, err := json.Marshal(v)
			if key == "" || err != nil {
				return nil, fmt.Errorf("task %q: simulate xcom %q: want a non-empty key and a JSON value", t.TaskID, key)
			}
			if t.Simulate.XCom == nil {
				t.Simulate.XCom = map[string]json.RawMessage{}
			}
			t.Simulate.XCom[key] = raw
		}
	}
	return t, nil
}

// operatorSet is the operators one Airflow release ships: the names a
// task of its edition may name without simulate:.
type operatorSet struct {
	names []string // sorted: closestName breaks ties by order
	known map[string]bool
	// renamed maps a class name the release does not have to the name it
	// has for the same operator: 1.10.15's DummyOperator for 2.10.3's
	// EmptyOperator, from 2.10.3's deprecated aliases.
	renamed map[string]string
}

// newOperatorSet makes the set of names (one a line) with aliases ("alias
// class" pairs, one a line): an alias the set knows for a class it does
// not is that class's name in this release.
func newOperatorSet(names, aliases string) *operatorSet {
	set := &operatorSet{names: strings.Fields(names), renamed: map[string]string{}}
	set.known = make(map[string]bool, len(set.names))
	for _, name := range set.names {
		set.known[name] = true
	}
	for _, line := range strings.Split(aliases, "\n") {
		pair := strings.Fields(line)
		if len(pair) != 2 {
			continue
		}
		alias, class := pair[0], pair[1]
		if _, taken := set.renamed[class]; set.known[alias] && !set.known[class] && !taken {
			set.renamed[class] = alias // aliases are sorted: the first alias wins
		}
	}
	return set
}

// The operators of each release, built on first use (editionRules.operators).
var (
	operators110 = sync.OnceValue(func() *operatorSet {
		return newOperatorSet(airflow110OperatorNames, airflow2OperatorAliases)
	})
	operators2 = sync.OnceValue(func() *operatorSet {
		return newOperatorSet(airflow2OperatorNames, airflow2OperatorAliases)
	})
)

// checkOperator refuses an operator that is no operator of the release
// (a typo, most likely, or another release's name) unless the task
// declares itself simulated, and a task's own bash_command on an operator
// that airlite does not run it for.
func checkOperator(s *taskSpec, ops *operatorSet) error {
	// An operator named in default_args is reported at the task.
	line := s.Pos.Line
	if !s.OperatorPos.Defaults {
		line = s.OperatorPos.or(s.Pos).Line
	}
	if !ops.known[s.Operator] && s.Simulate == nil {
		near := ops.renamed[s.Operator]
		if near == "" {
			near = closestName(s.Operator, ops.names)
		}
		if near != "" {
			return fmt.Errorf("line %d: task %q: unknown operator %q (did you mean %s?)", line, s.TaskID, s.Operator, near)
		}
		return fmt.Errorf("line %d: task %q: unknown operator %q: no Airflow operator or sensor has that name; "+
			"give the task a simulate: block to run it as a simulated task", line, s.TaskID, s.Operator)
	}
	// A bash_command of default_args is dropped (buildTask); the task's own
	// is refused.
	if pos := s.BashCommandPos; pos.Line != 0 && !pos.Defaults && s.Operator != "BashOperator" {
		if s.Operator == "BashSensor" {
			return fmt.Errorf("line %d: task %q: airlite runs bash_command for BashOperator only: a BashSensor is simulated, "+
				"so its command would never run (use BashOperator, or drop bash_command)", pos.Line, s.TaskID)
		}
		return fmt.Errorf("line %d: task %q: bash_command is taken by BashOperator, not by %s", pos.Line, s.TaskID, s.Operator)
	}
	return nil
}

// suggestion is " (did you mean X?)" for the candidate nearest to word,
// or " (one of a, b, ...)" when none is near.
func suggestion(word string, candidates []string) string {
	if near := closestName(word, candidates); near != "" {
		return fmt.Sprintf(" (did you mean %s?)", near)
	}
	return " (one of " + strings.Join(candidates, ", ") + ")"
}

// checkID applies Airflow's key rule: letters, digits, dashes, dots and
// underscores, at most 250 characters (dots only in dag ids of sub-DAGs).
func checkID(field, id string, allowDot bool) error {
	if len(id) > 250 {
		return fmt.Errorf("%s %q is longer than 250 characters", field, id)
	}
	for _, r := range id {
		ok := r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok || (r == '.' && !allowDot) {
			return fmt.Errorf("%s %q may hold only letters, digits, dashes, dots and underscores", field, id)
		}
	}
	return nil
}

// linkTasks makes upstream and downstream lists mirror each other, refuses
// unknown task ids and cycles, and computes downstream priority weights.
func linkTasks(dag *DAG, lines map[string]int) error {
	up := map[string]map[string]bool{}
	down := map[string]map[string]bool{}
	for _, t := range dag.Tasks {
		up[t.TaskID], down[t.TaskID] = map[string]bool{}, map[string]bool{}
	}
	for _, t := range dag.Tasks {
		for _, id := range t.Downstream {
			if dag.taskByID[id] == nil {
				return fmt.Errorf("line %d: task %q: downstream task %q does not exist", lines[t.TaskID], t.TaskID, id)
			}
			down[t.TaskID][id], up[id][t.TaskID] = true, true
		}
		for _, id := range t.Upstream {
			if dag.taskByID[id] == nil {
				return fmt.Errorf("line %d: task %q: upstream task %q does not exist", lines[t.TaskID], t.TaskID, id)
			}
			up[t.TaskID][id], down[id][t.TaskID] = true, true
		}
	}
	for _, t := range dag.Tasks {
		t.Upstream, t.Downstream = sortedKeys(up[t.TaskID]), sortedKeys(down[t.TaskID])
		t.setupUpstream = nil
		for _, id := range t.Upstream {
			if dag.taskByID[id].IsSetup {
				t.setupUpstream = append(t.setupUpstream, id)
			}
		}
	}
	dag.stateLeaves = runStateLeaves(dag)
	if cycle := findCycle(dag); cycle != nil {
		return fmt.Errorf("line %d: tasks form a cycle: %s", lines[cycle[0]], strings.Join(cycle, " >> "))
	}
	for _, t := range dag.Tasks {
		t.teardownScope = nil
		if t.IsTeardown {
			t.teardownScope = teardownScope(dag, t)
		}
	}
	setPriorityWeights(dag)
	dag.upstreamFirst = upstreamFirst(dag)
	return nil
}

// teardownScope are the tasks between a teardown's direct setups and it,
// sorted: its upstream tasks, direct ones left out, that are downstream
// of one of the setups among its direct upstream tasks (3.2.0's
// trigger_rule_dep.py _evaluate_teardown_scope, apache/airflow#64181:
// get_flat_relative_ids both ways).
func teardownScope(dag *DAG, td *Task) []string {
	relatives := func(from []string, next func(*Task) []string) map[string]bool {
		seen := map[string]bool{}
		stack := slices.Clone(from)
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[id] {
				continue
			}
			seen[id] = true
			stack = append(stack, next(dag.taskByID[id])...)
		}
		return seen
	}
	up := func(t *Task) []string { return t.Upstream }
	down := func(t *Task) []string { return t.Downstream }
	ancestors := relatives(td.Upstream, up)
	for _, id := range td.Upstream {
		delete(ancestors, id)
	}
	var scope []string
	below := relatives(td.setupUpstream, down)
	for id := range ancestors {
		if below[id] {
			scope = append(scope, id)
		}
	}
	slices.Sort(scope)
	return scope
}

// runStateLeaves are the tasks whose states decide a run's end (2.10.3
// models/dagrun.py _tis_for_dagrun_state): the tasks with no downstream
// task but teardowns that do not fail the run, themselves not such a
// teardown; when that leaves none (a DAG of teardowns only), the tasks
// with no downstream task.
func runStateLeaves(dag *DAG) []*Task {
	ignorable := func(t *Task) bool { return t.IsTeardown && !t.OnFailureFailDagrun }
	var leaves, plain []*Task
	for _, t := range dag.Tasks {
		if len(t.Downstream) == 0 {
			plain = append(plain, t)
		}
		effective := !ignorable(t)
		for _, id := range t.Downstream {
			effective = effective && ignorable(dag.taskByID[id])
		}
		if effective {
			leaves = append(leaves, t)
		}
	}
	if len(leaves) == 0 {
		return plain
	}
	return leaves
}

// RunStateLeaves are the tasks whose states decide a run's end
// (runStateLeaves); for a DAG not built by buildDAG, its tasks without
// downstream tasks.
func (d *DAG) RunStateLeaves() []*Task {
	if d.stateLeaves != nil || len(d.Tasks) == 0 {
		return d.stateLeaves
	}
	var leaves []*Task
	for _, t := range d.Tasks {
		if len(t.Downstream) == 0 {
			leaves = append(leaves, t)
		}
	}
	return leaves
}

// upstreamFirst orders an acyclic DAG's tasks by Kahn's algorithm, roots
// in file order first.
func upstreamFirst(dag *DAG) []*Task {
	waiting := make(map[string]int, len(dag.Tasks))
	order := make([]*Task, 0, len(dag.Tasks))
	for _, t := range dag.Tasks {
		waiting[t.TaskID] = len(t.Upstream)
		if len(t.Upstream) == 0 {
			order = append(order, t)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, id := range order[k].Downstream {
			if waiting[id]--; waiting[id] == 0 {
				order = append(order, dag.taskByID[id])
			}
		}
	}
	return order
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// findCycle returns one cycle as a task path (first task repeated at the
// end), or nil.
func findCycle(dag *DAG) []string {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(id string) []string
	visit = func(id string) []string {
		state[id] = visiting
		stack = append(stack, id)
		for _, next := range dag.taskByID[id].Downstream {
			switch state[next] {
			case visiting:
				for i, s := range stack {
					if s == next {
						return append(append([]string(nil), stack[i:]...), next)
					}
				}
			case unvisited:
				if c := visit(next); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
		return nil
	}
	for _, t := range dag.Tasks {
		if state[t.TaskID] == unvisited {
			if c := visit(t.TaskID); c != nil {
				return c
			}
		}
	}
	return nil
}

// setPriorityWeights applies each task's weight rule, as Airflow's
// priority_weight_total does: downstream sums the task and every distinct
// task below it, upstream every distinct task above it, absolute its own.
func setPriorityWeights(dag *DAG) {
	index := make(map[string]int, len(dag.Tasks))
	for i, t := range dag.Tasks {
		index[t.TaskID] = i
	}
	var below, above []int
	for _, t := range dag.Tasks {
		switch t.WeightRule {
		case "absolute":
			t.TotalWeight = t.PriorityWeight
			continue
		case "upstream":
			if above == nil {
				above = reachableWeights(dag.Tasks, index, func(t *Task) []string { return t.Upstream }, reachBlock)
			}
			t.TotalWeight = t.PriorityWeight + above[index[t.TaskID]]
		default:
			if below == nil {
				below = reachableWeights(dag.Tasks, index, func(t *Task) []string { return t.Downstream }, reachBlock)
			}
			t.TotalWeight = t.PriorityWeight + below[index[t.TaskID]]
		}
	}
}

// reachBlock is how many tasks one pass of reachableWeights tracks: a
// bitset of reachBlock bits per task bounds its memory to 512 bytes a task.
const reachBlock = 4096

// reachableWeights returns, for each task, the summed priority_weight of
// the distinct tasks reachable from it through next (itself excluded);
// block is a multiple of 64.
// Summing the children's totals would count a task reached along two
// paths twice, and a walk per task is quadratic with maps in its loop;
// instead each pass takes block target tasks and carries a bitset of the
// targets each task reaches, children before parents: O((tasks + edges) x
// tasks / 64) word operations. A DAG's tasks are acyclic here.
func reachableWeights(tasks []*Task, index map[string]int, next func(*Task) []string, block int) []int {
	n := len(tasks)
	children := make([][]int, n)
	parents := make([]int, n) // how many tasks point at each task
	for i, t := range tasks {
		for _, id := range next(t) {
			children[i] = append(children[i], index[id])
			parents[index[id]]++
		}
	}
	// Kahn's order from the roots; it is walked backwards, children first.
	order := make([]int, 0, n)
	for i := range tasks {
		if parents[i] == 0 {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, c := range children[order[k]] {
			if parents[c]--; parents[c] == 0 {
				order = append(order, c)
			}
		}
	}
	uniform := true
	for _, t := range tasks {
		uniform = uniform && t.PriorityWeight == tasks[0].PriorityWeight
	}
	sums := make([]int, n)
	words := block / 64
	reach := make([]uint64, n*words)
	for start := 0; start < n; start += block {
		clear(reach)
		for k := len(order) - 1; k >= 0; k-- {
			v := order[k]
			row := reach[v*words : (v+1)*words]
			for _, c := range children[v] {
				for i, word := range reach[c*words : (c+1)*words] {
					row[i] |= word
				}
				if c >= start && c < start+block {
					row[(c-start)/64] |= 1 << ((c - start) % 64)
				}
			}
			for i, word := range row {
				if uniform {
					sums[v] += bits.OnesCount64(word) * tasks[0].PriorityWeight
					continue
				}
				for word != 0 {
					sums[v] += tasks[start+i*64+bits.TrailingZeros64(word)].PriorityWeight
					word &= word - 1
				}
			}
		}
	}
	return sums
}

// buildPoolSpecs checks a pools file's pools and makes them.
func buildPoolSpecs(s *poolsSpec) ([]*Pool, error) {
	seen := map[string]int{} // name -> line
	pools := make([]*Pool, 0, len(s.Pools))
	for _, p := range s.Pools {
		line := p.Pos.Line
		switch {
		case strings.TrimSpace(p.Name) == "":
			return nil, fmt.Errorf("line %d: a pool without a name", line)
		case p.Name == defaultPoolName:
			return nil, fmt.Errorf("line %d: %s is built in; change its slots through the API", line, defaultPoolName)
		case seen[p.Name] != 0:
			return nil, fmt.Errorf("line %d: duplicate pool %q (first at line %d)", line, p.Name, seen[p.Name])
		case p.Slots == nil:
			return nil, fmt.Errorf("line %d: pool %q: slots is missing", line, p.Name)
		}
		seen[p.Name] = line
		pools = append(pools, &Pool{Name: p.Name, Slots: *p.Slots, Description: p.Description})
	}
	if s.ReadErr != nil {
		return nil, s.ReadErr
	}
	return pools, nil
}

func durationOr(d *time.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return *d
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func copyMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
