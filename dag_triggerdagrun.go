package main

// A TriggerDagRunOperator's arguments, read from a Python file's
// serialized task: the template fields as the file wrote them (Airflow's
// serialized template values) and the other arguments from the generic
// operator's kwargs (python/airlite_serialize.py serialize_task). The
// scheduler renders the templates and triggers the run at try time
// (scheduler_triggerdagrun.go).

import (
	"encoding/json"
	"time"
)

// TriggerDagRunArgs are a TriggerDagRunOperator's arguments, with each
// release's defaults filled in (2.10.3 airflow/operators/trigger_dagrun.py
// __init__; 3.2.1's standard provider operators/trigger_dagrun.py; 1.10.15
// airflow/operators/dagrun_operator.py has trigger_dag_id, execution_date
// and python_callable only).
type TriggerDagRunArgs struct {
	DagID string // trigger_dag_id, a template
	RunID string // trigger_run_id, a template; "": generated as the release generates it
	// Conf is conf as the file wrote it, its key order kept, every string
	// in it a template; nil: None. A string conf is JSON text (json.loads).
	Conf json.RawMessage `json:",omitempty"`
	// LogicalDate is logical_date (execution_date in 1.10.15, and 2.10.3's
	// deprecated name for it) as a template, a datetime as its isoformat();
	// nil: not given (or None).
	LogicalDate *string `json:",omitempty"`
	// LogicalDateIsDatetime: logical_date was a datetime, not a template
	// (its rendered field is the datetime's str()).
	LogicalDateIsDatetime bool `json:",omitempty"`
	// LogicalDateNone: logical_date=None was given, which 3.2.1 keeps as a
	// run without a logical date (NOTSET is now); 2.10.3 reads None as now.
	LogicalDateNone       bool
	ResetDagRun           bool
	WaitForCompletion     templatedFlag
	SkipWhenAlreadyExists templatedFlag
	PokeInterval          time.Duration // poke_interval (60 s)
	AllowedStates         []string      // [success] when empty
	FailedStates          []string      // [failed] when None; an empty list stays empty
	Note                  *string       `json:",omitempty"` // 3.2.1's note
	// PythonCallable: 1.10.15's python_callable was given: the try runs
	// it in the task program and triggers the DagRunOrder it returns
	// (scheduler_triggerdagrun.go runCallableTrigger).
	PythonCallable bool `json:",omitempty"`
}

// templatedFlag is a boolean template field (wait_for_completion,
// skip_when_already_exists): a bool, or a template whose rendered text is
// read as Python reads a str in an if (true unless empty).
type templatedFlag struct {
	Value    bool
	Template string `json:",omitempty"`
}

// pyTriggerDagRunArgs reads a serialized TriggerDagRunOperator.
func pyTriggerDagRunArgs(t *pyTask) *TriggerDagRunArgs {
	kw := func(name string) any { return pyDecode(t.Kwargs[name]) }
	args := &TriggerDagRunArgs{PokeInterval: 60 * time.Second, AllowedStates: []string{string(RunSuccess)},
		FailedStates: []string{string(RunFailed)}}
	args.DagID, _ = pyDecode(t.TemplateValues["trigger_dag_id"]).(string)
	args.RunID, _ = pyDecode(t.TemplateValues["trigger_run_id"]).(string)
	if raw, ok := t.TemplateValues["conf"]; ok && string(raw) != "null" {
		args.Conf = raw
	}
	for _, name := range []string{"logical_date", "execution_date"} {
		raw, given := t.Kwargs[name]
		if !given {
			continue
		}
		switch v := kw(name).(type) {
		case nil:
			args.LogicalDateNone = string(raw) == "null"
		case string:
			args.LogicalDate = &v
		case float64: // a datetime, as its timestamp
			text := isoFormat(time.UnixMicro(int64(v * 1e6)).UTC())
			args.LogicalDate, args.LogicalDateIsDatetime = &text, true
		case int64:
			text := isoFormat(time.Unix(v, 0).UTC())
			args.LogicalDate, args.LogicalDateIsDatetime = &text, true
		}
		if args.LogicalDate != nil {
			args.LogicalDateNone = false
			break
		}
	}
	args.ResetDagRun, _ = kw("reset_dag_run").(bool)
	args.WaitForCompletion = pyTemplatedFlag(kw("wait_for_completion"))
	args.SkipWhenAlreadyExists = pyTemplatedFlag(kw("skip_when_already_exists"))
	switch v := kw("poke_interval").(type) {
	case int64:
		args.PokeInterval = time.Duration(v) * time.Second
	case float64:
		args.PokeInterval = time.Duration(v * float64(time.Second))
	}
	if states := pyStrings(kw("allowed_states")); len(states) > 0 {
		args.AllowedStates = states
	}
	if _, given := t.Kwargs["failed_states"]; given && kw("failed_states") != nil {
		args.FailedStates = pyStrings(kw("failed_states"))
	}
	if note, ok := kw("note").(string); ok {
		args.Note = &note
	}
	args.PythonCallable = kw("python_callable") != nil
	return args
}

// pyTemplatedFlag reads a boolean template field's value.
func pyTemplatedFlag(v any) templatedFlag {
	switch v := v.(type) {
	case bool:
		return templatedFlag{Value: v}
	case string:
		return templatedFlag{Template: v, Value: v != ""}
	}
	return templatedFlag{}
}

// pyStrings is a list of strings (a DagRunState's value is its string).
func pyStrings(v any) []string {
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, item := range items {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
