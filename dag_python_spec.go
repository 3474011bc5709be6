package main

// The Python front end: a DAG in Airflow's serialized form, as the
// embedded reader (dag_python.go) hands it back, made into a dagSpec for
// the one builder (dag_build.go). The reader has run Airflow's own parse
// checks already; what the builder adds is airlite's (a schedule it can
// run, a bash_command it can render).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// pyRunnableOperators are the operators airlite runs for a Python DAG as
// it runs them for a YAML one; every other task is simulated (its log
// says so) until Python tasks run.
var pyRunnableOperators = map[string]bool{"BashOperator": true, "EmptyOperator": true, "DummyOperator": true, "SubDagOperator": true}

// pyDAGSpec makes the spec of one serialized DAG; triggerSchedules says
// the edition makes trigger timetables of schedule strings (Airflow 3),
// cron how it describes cron expressions.
func pyDAGSpec(d *pySerializedDAG, triggerSchedules bool, cron cronDescriber) (*dagSpec, error) {
	s := &dagSpec{
		Serialized:           true,
		Fileloc:              d.Fileloc,
		DagID:                d.DagID,
		Description:          deref(d.Description),
		DocMD:                deref(d.DocMD),
		StartDate:            pyTime(d.StartDate),
		EndDate:              pyTime(d.EndDate),
		Catchup:              &d.Catchup,
		IsPausedUponCreation: d.IsPausedUponCreation != nil && *d.IsPausedUponCreation,
		MaxActiveRuns:        &d.MaxActiveRuns,
		MaxActiveTasks:       &d.MaxActiveTasks,
		DagrunTimeout:        pyDuration(d.DagrunTimeout),
		Tags:                 d.Tags,
		AllowedRunTypes:      d.AllowedRunTypes,
		DisplayName:          deref(d.DagDisplayName),
	}
	zone, err := parseDagZone(d.Timezone)
	if err != nil {
		return nil, err
	}
	s.Timezone = zone
	if len(d.DatasetExpression) > 0 && !bytes.Equal(d.DatasetExpression, []byte("null")) {
		s.AssetExpression = d.DatasetExpression
	}
	if d.TaskGroup != nil {
		s.TaskGroup = pyTaskGroupTree(d.TaskGroup)
	}
	if err := pySchedule(d, s, triggerSchedules, cron); err != nil {
		return nil, err
	}
	if s.Params, s.ParamDocs, err = pyParams(d.Params); err != nil {
		return nil, err
	}
	if len(d.DefaultArgs) > 0 {
		if args, ok := pyDecode(d.DefaultArgs).(map[string]any); ok {
			s.DefaultArgs = args
			if secs, ok := args["start_date"].(float64); ok {
				s.DefaultArgsStartDate = pyTime(&secs)
			}
		}
	}
	runs := pyCallablesThatRun(d)
	for i := range d.Tasks {
		ts, err := pyTaskSpec(&d.Tasks[i], runs[d.Tasks[i].TaskID])
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", d.Tasks[i].TaskID, err)
		}
		s.Tasks = append(s.Tasks, ts)
	}
	return s, nil
}

// pySchedule sets the schedule of a serialized DAG: a schedule string
// (a cron expression or preset, a timedelta, @once, None) where the
// timetable is what the edition makes of one, else the timetable object
// as Airflow shows it (DagModel.schedule_interval is the timetable's
// summary, 2.10.3 models/dag.py:676-688, timetable_description its
// description, models/dag.py:3305) and, for the classes airlite runs
// (scheduler_pytimetable.go), the object to run. triggerSchedules: the
// edition makes trigger timetables of strings (Airflow 3); cron describes
// cron expressions.
func pySchedule(d *pySerializedDAG, s *dagSpec, triggerSchedules bool, cron cronDescriber) error {
	kind := ""
	if d.Timetable != nil {
		kind = d.Timetable.Type[strings.LastIndexByte(d.Timetable.Type, '.')+1:]
	}
	s.Schedule.Given = true
	if d.Timetable == nil {
		// Airflow 1.10.15 has no timetables: schedule_interval alone, a
		// string, a timedelta or None (1.10.15 serialization/schema.json).
		switch v := pyDecode(d.ScheduleInterval).(type) {
		case string:
			s.Schedule.Expr = &v
		case float64, int64:
			secs, _ := v.(float64)
			if n, ok := v.(int64); ok {
				secs = float64(n)
			}
			expr := (time.Duration(secs * float64(time.Second))).String()
			s.Schedule.Expr = &expr
		}
		return nil
	}
	switch kind {
	case "NullTimetable":
		return nil
	case "OnceTimetable":
		once := "@once"
		s.Schedule.Expr = &once
		return nil
	}
	if expr, ok := pyScheduleString(d, kind, triggerSchedules); ok {
		s.Schedule.Expr = &expr
		return nil
	}
	summary := deref(d.TimetableSummary)
	desc := deref(d.TimetableDescription)
	var inner pyTimetable
	switch kind {
	case "CronTriggerTimetable", "CronDataIntervalTimetable", "MultipleCronTriggerTimetable", "CronPartitionTimetable":
		// The reader has no cron_descriptor: airlite's wording of it
		// stands in, each expression's joined as
		// MultipleCronTriggerTimetable joins its timetables' (c57fba0e
		// trigger.py:264).
		desc = pyCronDescription(summary, cron)
		inner = *d.Timetable
	case "DatasetOrTimeSchedule", "AssetOrTimeSchedule":
		desc = pyOrTimeDescription(d.Timetable.Var, desc, cron)
		var v struct {
			Timetable pyTimetable `json:"timetable"`
		}
		if err := json.Unmarshal(d.Timetable.Var, &v); err != nil {
			return fmt.Errorf("read %s: %w", kind, err)
		}
		inner = v.Timetable
		cond, err := pyAssetCondition(d.Timetable.Var)
		if err != nil {
			return fmt.Errorf("read %s: %w", kind, err)
		}
		s.AssetSchedule = cond
	default:
		inner = *d.Timetable
	}
	s.Timetable = &Timetable{Summary: summary, Description: desc, Type: d.Timetable.Type}
	s.TimetableVar = d.Timetable.Var
	innerKind := inner.Type[strings.LastIndexByte(inner.Type, '.')+1:]
	if _, runs := timetableKinds[innerKind]; runs && pyAirflowTimetable(inner.Type) {
		s.RunTimetable = &timetableSpec{Kind: innerKind, Var: inner.Var}
	}
	if kind == "DatasetTriggeredTimetable" || kind == "AssetTriggeredTimetable" {
		cond, err := pyAssetCondition(d.Timetable.Var)
		if err != nil {
			return fmt.Errorf("read %s: %w", kind, err)
		}
		s.AssetSchedule = cond
	}
	return nil
}

// pyAirflowTimetable reports whether a timetable's class is Airflow's own
// (a user's class of the same name is not run).
func pyAirflowTimetable(typ string) bool {
	return strings.HasPrefix(typ, "airflow.timetables.") || strings.HasPrefix(typ, "airflow.sdk.definitions.timetables.")
}

// pyCronDescription is a cron summary's text: each expression's, joined
// with ", " as MultipleCronTriggerTimetable's summary joins them.
func pyCronDescription(summary string, cron cronDescriber) string {
	parts := strings.Split(summary, ", ")
	for i, p := range parts {
		parts[i] = cron.describe(p)
	}
	return strings.Join(parts, ", ")
}

// pyScheduleString is the schedule string a timetable stands for, when it
// is what the edition makes of that string in the DAG's zone: a cron
// expression's CronDataIntervalTimetable and a timedelta's
// DeltaDataIntervalTimetable (Airflow 2), their trigger timetables with no
// interval and no run_immediately (Airflow 3). ok is false for another
// timetable, which pySchedule keeps as an object.
func pyScheduleString(d *pySerializedDAG, kind string, triggerSchedules bool) (string, bool) {
	if !pyAirflowTimetable(d.Timetable.Type) {
		return "", false
	}
	var v timetableVar
	if err := json.Unmarshal(d.Timetable.Var, &v); err != nil {
		return "", false
	}
	plainInterval := len(v.Interval) == 0 || string(v.Interval) == "0.0" || string(v.Interval) == "0"
	plainStart := len(v.RunImmediately) == 0 || string(v.RunImmediately) == "false"
	switch kind {
	case "CronDataIntervalTimetable", "CronTriggerTimetable":
		if (kind == "CronTriggerTimetable") != triggerSchedules || !plainInterval || !plainStart {
			return "", false
		}
		tz, err1 := parseDagZone(v.Timezone)
		dagTZ, err2 := parseDagZone(d.Timezone)
		if err1 != nil || err2 != nil || tz.String() != dagTZ.String() {
			return "", false
		}
		if given, ok := pyDecode(d.ScheduleInterval).(string); ok && cronPresets[given] == v.Expression {
			return given, true // the preset as the file gave it
		}
		return v.Expression, true
	case "DeltaDataIntervalTimetable", "DeltaTriggerTimetable":
		if (kind == "DeltaTriggerTimetable") != triggerSchedules || !plainInterval {
			return "", false
		}
		var secs float64
		if err := json.Unmarshal(v.Delta, &secs); err != nil {
			return "", false // a relativedelta
		}
		return (time.Duration(secs * float64(time.Second))).String(), true
	}
	return "", false
}

// pyAssetCondition reads a DatasetTriggeredTimetable's serialized form:
// its dataset_condition (asset_condition in Airflow 3), as 2.10.3
// serialization/serialized_objects.py encode_dataset_condition writes it.
// An alias in the condition holds through the assets attached to it.
func pyAssetCondition(raw json.RawMessage) (*assetCond, error) {
	var tt map[string]any
	if err := json.Unmarshal(raw, &tt); err != nil {
		return nil, fmt.Errorf("decode timetable: %w", err)
	}
	v, ok := tt["dataset_condition"]
	if !ok {
		v = tt["asset_condition"]
	}
	return assetCondOf(v)
}

// assetCondOf reads one encoded condition: {"__type": "dataset", "uri"}
// (or "asset"), or "dataset_all"/"dataset_any" (asset_all, asset_any)
// with "objects".
func assetCondOf(v any) (*assetCond, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("asset condition %v: want an object", v)
	}
	typ, _ := m["__type"].(string)
	switch typ {
	case "dataset", "asset":
		ref, ok := assetOf(m)
		if !ok {
			return nil, fmt.Errorf("asset condition: an asset without a uri or a name")
		}
		return &assetCond{Ref: ref}, nil
	case "dataset_all", "asset_all", "dataset_any", "asset_any":
		op := assetCondAll
		if strings.HasSuffix(typ, "_any") {
			op = assetCondAny
		}
		objs, _ := m["objects"].([]any)
		c := &assetCond{Op: op}
		for _, o := range objs {
			sub, err := assetCondOf(o)
			if err != nil {
				return nil, err
			}
			c.Of = append(c.Of, sub)
		}
		return c, nil
	case "dataset_alias", "asset_alias":
		alias, ok := aliasOf(m)
		if !ok {
			return nil, fmt.Errorf("asset condition: an alias without a name")
		}
		return &assetCond{Op: assetCondAlias, Ref: assetRef{Name: alias.Name, Group: alias.Group}}, nil
	}
	return nil, fmt.Errorf("asset condition of type %q", typ)
}

// pyCallablesThatRun are the tasks of d whose Python callable airlite
// runs (scheduler_python.go): PythonOperator, @task, branch and short
// circuit, mapped ones included (each of their instances runs,
// scheduler_mapping.go).
func pyCallablesThatRun(d *pySerializedDAG) map[string]bool {
	runs := map[string]bool{}
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if pythonCallableOperator(t) || callableTriggerOperator(t) {
			runs[t.TaskID] = true
		}
	}
	return runs
}

// callableTriggerOperator says whether t is 1.10.15's TriggerDagRunOperator
// with a python_callable, which airlite calls for the order it triggers
// (scheduler_triggerdagrun.go runCallableTrigger).
func callableTriggerOperator(t *pyTask) bool {
	return t.TaskModule == "airflow.operators.dagrun_operator" && t.TaskType == "TriggerDagRunOperator" &&
		!t.IsMapped && pyDecode(t.Kwargs["python_callable"]) != nil
}

// pyTaskSpec makes the spec of one serialized operator; runsCallable says
// airlite runs its Python callable instead of simulating it.
func pyTaskSpec(t *pyTask, runsCallable bool) (taskSpec, error) {
	s := taskSpec{
		TaskID:                  t.TaskID,
		Operator:                t.TaskType,
		OperatorModule:          t.TaskModule,
		OperatorName:            t.OperatorName,
		IsMapped:                t.IsMapped,
		Label:                   t.Label,
		IsSetup:                 t.IsSetup,
		IsTeardown:              t.IsTeardown,
		OnFailureFailDagrun:     t.OnFailureFailDagrun,
		ConcurrencyLimited:      t.MaxActiveTIsPerDag != nil || t.MaxActiveTIsPerDagrun != nil,
		TemplateFields:          t.TemplateFields,
		UIColor:                 t.UIColor,
		UIFgcolor:               t.UIFgcolor,
		ExecutionTimeout:        pyDuration(t.ExecutionTimeout),
		Downstream:              slicesSorted(t.DownstreamTaskIDs),
		RetryDelay:              pyDuration(t.RetryDelay),
		RetryExponentialBackoff: t.RetryExponentialBackoff,
		MaxRetryDelay:           pyDuration(t.MaxRetryDelay),
		Pool:                    t.Pool,
		WeightRule:              t.WeightRule,
		TriggerRule:             t.TriggerRule,
		Queue:                   t.Queue,
		Owner:                   t.Owner,
		DependsOnPast:           t.DependsOnPast,
		StartDate:               pyTime(t.StartDate),
		EndDate:                 pyTime(t.EndDate),
		DoXComPush:              &t.DoXComPush,
		DocMD:                   deref(t.DocMD),
		DisplayName:             deref(t.TaskDisplayName),
	}
	for _, l := range t.OperatorExtraLinks {
		s.ExtraLinks = append(s.ExtraLinks, extraLink{Module: l[0], Class: l[1], Name: l[2], XComKey: l[3]})
	}
	if len(t.Inlets) > 0 {
		s.Inlets = t.Inlets
	}
	if len(t.Outlets) > 0 {
		s.Outlets = t.Outlets
	}
	if s.TemplateFields == nil {
		s.TemplateFields = []string{}
	}
	if len(t.Email) > 0 {
		s.Email = pyDecode(t.Email)
	}
	for _, n := range []struct {
		num json.Number
		to  **int
	}{{t.Retries, &s.Retries}, {t.PoolSlots, &s.PoolSlots}, {t.PriorityWeight, &s.PriorityWeight}} {
		if n.num == "" {
			continue
		}
		v, err := n.num.Int64()
		if err != nil {
			return s, fmt.Errorf("read number %s: %w", n.num, err)
		}
		i := int(v)
		*n.to = &i
	}
	var err error
	if s.Params, s.ParamDocs, err = pyParams(t.Params); err != nil {
		return s, err
	}
	if t.IsMapped && len(t.ExpandInput) > 0 {
		if s.Mapping, err = parseTaskMapping(t.ExpandInput); err != nil {
			return s, err
		}
	}
	if t.Subdag != nil {
		s.Subdag = *t.Subdag
	}
	if t.TaskType == "TriggerDagRunOperator" && !t.IsMapped {
		// A mapped one's arguments are its elements, which only Python
		// holds: simulated.
		s.TriggerDagRun = pyTriggerDagRunArgs(t)
	}
	// @task.bash keeps BashOperator's env and cwd; its command comes from
	// its callable at run time (runDecoratedBash).
	if t.TaskType == "BashOperator" || t.TaskType == "_BashDecoratedOperator" {
		if cmd, ok := pyDecode(t.TemplateValues["bash_command"]).(string); ok {
			s.BashCommand = cmd
		}
		if env, ok := pyDecode(t.TemplateValues["env"]).(map[string]any); ok {
			s.Env = map[string]string{}
			for k, v := range env {
				s.Env[k] = fmt.Sprint(v)
			}
		}
		if cwd, ok := pyDecode(t.TemplateValues["cwd"]).(string); ok {
			s.Cwd = cwd
		}
	}
	if (!pyRunnableOperators[t.TaskType] || t.IsMapped) && !runsCallable {
		// A mapped operator's instances other than a Python callable's are
		// simulated one by one (their arguments are the elements, which
		// only Python holds).
		// YAML's simulate: with its defaults: success at once, and a log
		// line that says the operator was simulated.
		s.Simulate = &simulateSpec{}
	}
	return s, nil
}

// pyParams reads a serialized params list: each param's value (its
// default) and what else Param.dump() shows.
func pyParams(params []pyParam) (map[string]any, map[string]ParamDoc, error) {
	if len(params) == 0 {
		return nil, nil, nil
	}
	values := make(map[string]any, len(params))
	docs := make(map[string]ParamDoc, len(params))
	for i, p := range params {
		values[p.Name] = pyDecode(p.Default)
		doc := ParamDoc{Class: p.Class, Description: pyDecode(p.Description), Schema: map[string]any{},
			NoDefault: pyArgNotSet(p.Default), rawSchema: p.Schema, order: i}
		if schema, ok := pyDecode(p.Schema).(map[string]any); ok {
			doc.Schema = schema
		}
		docs[p.Name] = doc
	}
	return values, docs, nil
}

// pyArgNotSet says whether raw is NOTSET in Airflow's encoding,
// {"__type": "arg_not_set", "__var": null} (2.10.3
// serialized_objects.py:782-783), as a Param without a default is
// serialized; a user's value never encodes to it (a dict is wrapped as
// "dict"). pyDecode reads it as nil, Param.dump's None.
func pyArgNotSet(raw json.RawMessage) bool {
	var enc struct {
		Type string `json:"__type"`
	}
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) && json.Unmarshal(raw, &enc) == nil && enc.Type == "arg_not_set"
}

// pyDecode reads a value in Airflow's serialized encoding (2.10.3
// serialization/serialized_objects.py BaseSerialization.serialize): JSON
// as it is, or {"__type": kind, "__var": value} for a dict, a tuple or a
// set (their values encoded in turn), a timedelta or a datetime (float
// seconds); other kinds keep their value. Invalid JSON is nil.
func pyDecode(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return pyDecodeValue(v)
}

func pyDecodeValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = pyDecodeValue(e)
		}
		return out
	case map[string]any:
		kind, typed := v["__type"].(string)
		inner, hasVar := v["__var"]
		if !typed || !hasVar {
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = pyDecodeValue(e)
			}
			return out
		}
		switch kind {
		case "timedelta", "datetime":
			if n, ok := inner.(json.Number); ok {
				f, _ := n.Float64()
				return f
			}
		case "dict":
			if m, ok := inner.(map[string]any); ok {
				out := make(map[string]any, len(m))
				for k, e := range m {
					out[k] = pyDecodeValue(e)
				}
				return out
			}
		}
		return pyDecodeValue(inner)
	}
	return v
}

// pyTime is a serialized datetime (float seconds since the epoch) in UTC.
func pyTime(secs *float64) *time.Time {
	if secs == nil {
		return nil
	}
	t := time.Unix(0, int64(*secs*1e9)).UTC().Round(time.Microsecond)
	return &t
}

// pyDuration is a serialized timedelta (float seconds).
func pyDuration(secs *float64) *time.Duration {
	if secs == nil {
		return nil
	}
	d := time.Duration(*secs * float64(time.Second)).Round(time.Microsecond)
	return &d
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func slicesSorted(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

// buildPythonDAG builds one serialized DAG for the edition. The builder's
// messages name lines; a serialized DAG has none, so they are left out.
func buildPythonDAG(d *pySerializedDAG, r *editionRules) (*DAG, error) {
	spec, err := pyDAGSpec(d, r.scheduledRuns.triggerTimetable, r.cronDescriber)
	if err == nil {
		var dag *DAG
		if dag, err = buildDAG(spec, r); err == nil {
			if err = r.checkDAG(dag); err == nil {
				return dag, nil
			}
		}
	}
	var refused *scheduleParamsError
	if errors.As(err, &refused) {
		return nil, err // addPythonDAGs words it as DagBag does
	}
	return nil, errors.New(strings.ReplaceAll(err.Error(), "line 0: ", ""))
}

// builtPyDAG builds one serialized DAG for the edition, its tasks whose
// callables run to run them from folder with python; it keeps the
// serialized DAG as its origin when the edition's stale DAGs keep their
// definition (dag_origin.go).
func builtPyDAG(d *pySerializedDAG, r *editionRules, folder, python string) (*DAG, error) {
	dag, err := buildPythonDAG(d, r)
	if err != nil {
		return nil, err
	}
	for taskID := range pyCallablesThatRun(d) {
		if task := dag.Task(taskID); task != nil {
			task.PythonCallable = &PythonCallable{File: d.Fileloc, Folder: folder, Python: python}
		}
	}
	if r.staleKeepsDefinition {
		dag.origin = &dagOrigin{python: true, data: d.raw}
	}
	return dag, nil
}

// pyOutcome is what one .py file came to: passed over by safe mode, or
// its DAGs, each built or refused, and its import error. It is kept per
// file so that a reload builds again only the files it read again.
type pyOutcome struct {
	skipped bool
	problem string // the reader's import error, "" when none
	dags    []pyBuilt
}

// pyBuilt is one serialized DAG of a file, built for the edition, or why
// it could not be.
type pyBuilt struct {
	id, fileloc string
	dag         *DAG
	err         error
}

// buildPyOutcome builds the DAGs of one file's result, with the source
// /code serves and, for the tasks whose callables run, where they live.
func buildPyOutcome(res *pyFileResult, c config, rules *editionRules) *pyOutcome {
	if res.Skipped {
		return &pyOutcome{skipped: true}
	}
	out := &pyOutcome{problem: deref(res.ImportError)}
	var src []byte
	if len(res.DAGs) > 0 {
		src, _ = os.ReadFile(res.File)
	}
	folder := absPath(c.DagsDir)
	for i := range res.DAGs {
		d := &res.DAGs[i]
		b := pyBuilt{id: d.DagID, fileloc: d.Fileloc}
		b.dag, b.err = builtPyDAG(d, rules, folder, c.Python)
		if b.err == nil {
			b.dag.SourceCode = string(src)
			b.dag.ParseDuration = res.Duration
		}
		out.dags = append(out.dags, b)
	}
	return out
}

// readPythonDAGs reads the .py files of the DAG folder, builds their DAGs
// and adds them to set beside the YAML ones; a file that fails is an
// import error of the set, as is a DAG whose id another file has
// (2.10.3 models/dagbag.py:485 and exceptions.py:198-199: "Ignoring DAG
// {id} from {incoming} - also found in {existing}", the YAML file being
// read first). Variable.get finds the store's variables. The files are
// those the YAML loader listed in its walk of the folder (one walk at
// start), or listed here for a set made otherwise.
func readPythonDAGs(ctx context.Context, c config, store *Store, set *DAGSet, logger zerolog.Logger) error {
	if c.DagsDir == "" {
		return nil // the embedded examples have no .py files
	}
	rules := c.Edition.rules()
	log := logger.With().Str("component", "python").Logger()
	if set.folder == nil {
		read, err := scanDAGFolder(ctx, c.DagsDir, rules, func(file, problem string) {
			log.Warn().Str("file", file).Msg(problem)
		})
		if err != nil {
			return fmt.Errorf("list python dag files: %w", err)
		}
		read.defs = nil // read by the YAML loader already, or not to be
		set.folder = read
	}
	files := set.folder.py
	if len(files) == 0 {
		return nil
	}
	if err := readPythonOutcomes(ctx, c, store, files, set.folder.pyOut, log); err != nil {
		return err
	}
	loaded := addPythonDAGs(set, files, set.folder.pyOut, log)
	log.Info().Int("files", len(files)).Int("dags", loaded).Msg("python DAG files read")
	return nil
}

// readPythonOutcomes reads files in one reader process and puts each
// one's outcome in out. Each file's DAGs are built as its answer arrives,
// while the reader goes on with the next files.
func readPythonOutcomes(ctx context.Context, c config, store *Store, files []string, out map[string]*pyOutcome, log zerolog.Logger) error {
	rules := c.Edition.rules()
	vars, err := store.Variables()
	if err != nil {
		return err
	}
	values := make(map[string]string, len(vars))
	for _, v := range vars {
		values[v.Key] = v.Val
	}
	answers := make(chan pyFileResult, 64)
	built := make(map[string]*pyOutcome, len(files))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for res := range answers {
			built[res.File] = buildPyOutcome(&res, c, rules)
		}
	}()
	r := pythonReader{Python: c.Python, Edition: rules.pythonSurface, Variables: values, Logger: log,
		each: func(res pyFileResult) { answers <- res }}
	results, err := r.ReadFolder(ctx, c.DagsDir, files)
	close(answers)
	<-done
	if err != nil {
		return err
	}
	for i := range results {
		res := &results[i]
		if b, ok := built[res.File]; ok {
			out[res.File] = b
			continue
		}
		out[res.File] = buildPyOutcome(res, c, rules) // a timeout, a reader that ended
	}
	return nil
}

// addPythonDAGs adds the DAGs of the Python files files, in order, from
// their outcomes, to set, refusing a DAG id already taken; it answers how
// many DAGs it added.
func addPythonDAGs(set *DAGSet, files []string, outcomes map[string]*pyOutcome, log zerolog.Logger) int {
	known := make(map[string]string, len(set.DAGs)) // dag_id -> fileloc
	for _, d := range set.DAGs {
		known[d.DagID] = absPath(d.FilePath)
	}
	loaded := 0
	for _, file := range files {
		res, ok := outcomes[file]
		if !ok || res.skipped {
			continue
		}
		set.Files = append(set.Files, file)
		problem := res.problem
		var dags []*DAG
		for _, b := range res.dags {
			if other, dup := known[b.id]; dup {
				problem = fmt.Sprintf("AirflowDagDuplicatedIdException: Ignoring DAG %s from %s - also found in %s", b.id, b.fileloc, other)
				break
			}
			var refused *scheduleParamsError
			if errors.As(b.err, &refused) {
				// DagBag's record of the exception (2.10.3 dagbag.py:485):
				// the reader refuses a param without a default itself, with
				// the traceback; a default its schema refuses is found here.
				problem = refused.kind + ": " + refused.text
				log.Warn().Str("file", file).Str("dag_id", b.id).Str("cause", refused.cause).Msg("a scheduled DAG's params do not resolve")
				break
			}
			if b.err != nil {
				problem = fmt.Sprintf("%s: dag %s: %v", file, b.id, b.err)
				break
			}
			dags = append(dags, b.dag)
		}
		if problem != "" {
			set.ImportErrors = append(set.ImportErrors, FileImportError{File: file, Text: problem})
			log.Warn().Str("file", file).Str("import_error", problem).Msg("DAG file did not load")
			continue
		}
		for _, dag := range dags {
			known[dag.DagID] = file
			set.DAGs = append(set.DAGs, dag)
			loaded++
		}
	}
	sort.Slice(set.DAGs, func(i, j int) bool { return set.DAGs[i].DagID < set.DAGs[j].DagID })
	linkPythonSubDAGs(set.DAGs)
	return loaded
}

// linkPythonSubDAGs marks the sub-DAGs of Python files' SubDagOperators;
// the reader has made Airflow's checks of them already.
func linkPythonSubDAGs(dags []*DAG) {
	byID := make(map[string]*DAG, len(dags))
	for _, d := range dags {
		byID[d.DagID] = d
	}
	for _, d := range dags {
		for _, t := range d.Tasks {
			if t.Subdag == "" || !strings.HasSuffix(d.FilePath, ".py") {
				continue
			}
			if child, ok := byID[t.Subdag]; ok && child.ParentDagID == "" {
				child.ParentDagID = d.DagID
			}
		}
	}
}

// recordImportErrors stores what a read of the DAG folder found, logged
// by the loaders already.
func recordImportErrors(store *Store, set *DAGSet, now time.Time) error {
	failed := make(map[string]string, len(set.ImportErrors))
	for _, e := range set.ImportErrors {
		failed[e.File] = e.Text
	}
	return store.RecordParse(set.Files, failed, now)
}

// importErrorsFatal is --fail-on-import-errors' refusal: every file that
// did not load, with its text.
func importErrorsFatal(set *DAGSet) error {
	if len(set.ImportErrors) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "refuse to start (--fail-on-import-errors): %d DAG file(s) did not load", len(set.ImportErrors))
	for _, e := range set.ImportErrors {
		fmt.Fprintf(&b, "\n%s:\n%s", e.File, e.Text)
	}
	return errors.New(b.String())
}

// pyOrTimeDescription is a DatasetOrTimeSchedule's description: "Triggered
// by datasets or " and its timetable's (2.10.3 timetables/datasets.py:52),
// which for a cron timetable the reader leaves to airlite's wording of
// cron-descriptor.
func pyOrTimeDescription(raw json.RawMessage, desc string, cron cronDescriber) string {
	var tt struct {
		Timetable struct {
			Var struct {
				Expression string `json:"expression"`
			} `json:"__var"`
		} `json:"timetable"`
	}
	if err := json.Unmarshal(raw, &tt); err != nil || tt.Timetable.Var.Expression == "" || !strings.HasSuffix(desc, " or ") {
		return desc
	}
	return desc + cron.describe(tt.Timetable.Var.Expression)
}
