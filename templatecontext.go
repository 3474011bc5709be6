package main

// The Jinja context of a task's templates, as Airflow's
// TaskInstance.get_template_context builds it, and Python's str() of the
// values a template prints. Which names exist is the edition's
// (editionRules.templateVars).

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// editionRules is the context's edition. Every context names one: a
// context without is a mistake of its maker, and no edition renders as
// another's in its place.
func (c templateContext) editionRules() *editionRules {
	if c.rules == nil {
		panic("templateContext without edition rules: every caller names its edition")
	}
	return c.rules
}

// jinjaVars is the context a template is rendered with: the edition's,
// plus dag_id, task_id and try_number, which airlite has always taken
// (Airflow has no such names).
func (c templateContext) jinjaVars() map[string]any {
	vars := c.editionRules().templateVars(c)
	vars["dag_id"], vars["task_id"], vars["try_number"] = c.dag.DagID, c.task.TaskID, c.try
	for k, v := range vars {
		if v == nil {
			vars[k] = pyNone
		}
	}
	return vars
}

// templateDates are the dates every edition's context derives from the
// run: its logical date, the previous and next ones, the data interval.
type templateDates struct {
	logical                    time.Time
	prev, next                 *time.Time // nil: None
	intervalStart, intervalEnd time.Time
}

func (c templateContext) dates() templateDates {
	ld := c.run.ExecutionDate.UTC()
	d := templateDates{logical: ld, intervalStart: ld, intervalEnd: ld}
	if c.run.ExternalTrigger {
		// Airflow 2.10.3 airflow/models/taskinstance.py:1031,1058 (get_next_execution_date,
		// get_prev_execution_date); 1.10.15 airflow/models/taskinstance.py:1261: a triggered
		// run's previous and next dates are its own.
		d.prev, d.next = &ld, &ld
		iv := inferDataInterval(c.dag, ld, false)
		d.intervalStart, d.intervalEnd = iv.start, iv.end
		return d
	}
	if c.dag != nil && c.dag.timetable != nil {
		// A timetable object's run: the interval it was scheduled with
		// (2.10.3 stores it with the run), and DAG.previous_schedule and
		// following_schedule, which only a data-interval timetable
		// answers (models/dag.py:1022-1050).
		tt := c.dag.timetable
		iv := tt.scheduledInterval(ld)
		d.intervalStart, d.intervalEnd = iv.start, iv.end
		if tt.kind == ttCronData || tt.kind == ttDeltaData {
			if p, err := tt.step(ld, -1); err == nil {
				d.prev = &p
			}
			d.next = &iv.end
		}
		return d
	}
	d.prev, d.next = scheduleNeighbours(c.dag, ld)
	if d.next != nil {
		d.intervalEnd = *d.next
	}
	return d
}

// scheduleNeighbours are the schedule's ticks before and after a date
// (Airflow's dag.previous_schedule and following_schedule); nil for a DAG
// without a regular schedule.
func scheduleNeighbours(dag *DAG, date time.Time) (prev, next *time.Time) {
	if dag == nil || dag.Schedule == nil || *dag.Schedule == "@once" {
		return nil, nil
	}
	sched := *dag.Schedule
	if isDurationSchedule(sched) {
		d, _ := parseDuration(sched)
		p, n := date.Add(-d), date.Add(d)
		return &p, &n
	}
	cron, err := cronOf(dag)
	if err != nil || cron == nil {
		return nil, nil
	}
	if p, err := cron.prev(date, false); err == nil {
		prev = &p
	}
	if n, err := cron.next(date, false); err == nil {
		next = &n
	}
	return prev, next
}

// templateVars2 is Airflow 2.10.3's context (airflow/models/taskinstance.py
// _get_template_context, lines 1109-1160), less what needs a database
// airlite does not keep (the *_success dates are None) or an object it does
// not have (conf, dataset events).
func templateVars2(c templateContext) map[string]any {
	d := c.dates()
	ds := d.logical.Format("2006-01-02")
	ts := isoFormat(d.logical)
	vars := map[string]any{
		"dag":                              templateDAG{c.dag},
		"dag_run":                          templateDagRun{c: c},
		"data_interval_start":              pendulum3(d.intervalStart),
		"data_interval_end":                pendulum3(d.intervalEnd),
		"ds":                               ds,
		"ds_nodash":                        strings.ReplaceAll(ds, "-", ""),
		"execution_date":                   pendulum3(d.logical),
		"logical_date":                     pendulum3(d.logical),
		"expanded_ti_count":                nil,
		"map_index_template":               nil,
		"inlets":                           listOrEmpty(c.task.Inlets),
		"outlets":                          listOrEmpty(c.task.Outlets),
		"macros":                           c.macros(withJSON),
		"params":                           c.params(),
		"prev_data_interval_start_success": nil,
		"prev_data_interval_end_success":   nil,
		"prev_execution_date_success":      nil,
		"prev_start_date_success":          nil,
		"prev_end_date_success":            nil,
		"run_id":                           c.run.RunID,
		"task":                             templateTask{c.task, c.dag},
		"task_instance":                    templateTI{c: c},
		"ti":                               templateTI{c: c},
		"task_instance_key_str":            c.dag.DagID + "__" + c.task.TaskID + "__" + strings.ReplaceAll(ds, "-", ""),
		"test_mode":                        false,
		"ts":                               ts,
		"ts_nodash":                        d.logical.Format("20060102T150405"),
		"ts_nodash_with_tz":                strings.NewReplacer("-", "", ":", "").Replace(ts),
		"var":                              map[string]any{"value": templateVariables{lookup: c.variables, secrets: c.secrets}, "json": templateVariables{lookup: c.variables, json: true, secrets: c.secrets}},
		"conn":                             templateConnections{lookup: c.connections, secrets: c.secrets},
	}
	addNeighbourDates(vars, d, pendulum3)
	return vars
}

// templateVars3 is Airflow 3's context
// (task-sdk/src/airflow/sdk/execution_time/task_runner.py
// RuntimeTaskInstance.get_template_context): 3.0 removed execution_date,
// conf, the prev_/next_/yesterday_/tomorrow_ names and test_mode; the
// names that follow from the logical date (ds, ts, logical_date, the data
// interval, ...) exist only for a run that has one, so that a template
// naming them in a run without one fails as an undefined name, as in
// Airflow 3. The *_success dates need a database airlite does not keep
// (None); asset events are empty.
func templateVars3(c templateContext) map[string]any {
	vars := map[string]any{
		"dag":                     templateDAG{c.dag},
		"dag_run":                 templateDagRun{c: c},
		"inlets":                  listOrEmpty(c.task.Inlets),
		"outlets":                 listOrEmpty(c.task.Outlets),
		"map_index_template":      nil,
		"macros":                  c.macros(withJSON),
		"params":                  c.params(),
		"run_id":                  c.run.RunID,
		"task":                    templateTask{c.task, c.dag},
		"task_instance":           templateTI{c: c},
		"ti":                      templateTI{c: c},
		"task_instance_key_str":   c.dag.DagID + "__" + c.task.TaskID + "__" + c.run.RunID,
		"task_reschedule_count":   0,
		"prev_start_date_success": nil,
		"prev_end_date_success":   nil,
		"outlet_events":           map[string]any{},
		"inlet_events":            map[string]any{},
		"triggering_asset_events": map[string]any{},
		"var":                     map[string]any{"value": templateVariables{lookup: c.variables, secrets: c.secrets}, "json": templateVariables{lookup: c.variables, json: true, secrets: c.secrets}},
		"conn":                    templateConnections{lookup: c.connections, secrets: c.secrets},
	}
	logical, ok := c.run.LogicalDate()
	if !ok {
		return vars
	}
	logical = logical.UTC()
	start, end := c.dataInterval()
	ds := logical.Format("2006-01-02")
	ts := isoFormat(logical)
	vars["logical_date"] = pendulum3(logical)
	vars["ds"], vars["ds_nodash"] = ds, strings.ReplaceAll(ds, "-", "")
	vars["task_instance_key_str"] = c.dag.DagID + "__" + c.task.TaskID + "__" + strings.ReplaceAll(ds, "-", "")
	vars["ts"], vars["ts_nodash"] = ts, logical.Format("20060102T150405")
	vars["ts_nodash_with_tz"] = strings.NewReplacer("-", "", ":", "").Replace(ts)
	vars["data_interval_start"], vars["data_interval_end"] = pendulum3(start), pendulum3(end)
	vars["prev_data_interval_start_success"], vars["prev_data_interval_end_success"] = nil, nil
	return vars
}

// dataInterval is the run's data interval: in Airflow 3, where every run
// with a logical date is created with one, the one stored with it;
// otherwise the one its schedule gives its logical date (templateDates),
// as airlite has always shown Airflow 2's.
func (c templateContext) dataInterval() (start, end time.Time) {
	if c.editionRules().nullLogicalDate && c.run.DataIntervalStart != nil && c.run.DataIntervalEnd != nil {
		return c.run.DataIntervalStart.UTC(), c.run.DataIntervalEnd.UTC()
	}
	d := c.dates()
	return d.intervalStart, d.intervalEnd
}

// templateVars110 is Airflow 1.10.15's context (airflow/models/taskinstance.py
// get_template_context, lines 1348-1389): no logical_date or data
// interval, yesterday/tomorrow and END_DATE/latest_date, pendulum 1 dates.
func templateVars110(c templateContext) map[string]any {
	d := c.dates()
	ds := d.logical.Format("2006-01-02")
	ts := isoFormat(d.logical)
	var tables any
	if t, ok := c.task.Params["tables"]; ok {
		tables = t
	}
	vars := map[string]any{
		"dag":                         templateDAG{c.dag},
		"ds":                          ds,
		"ds_nodash":                   strings.ReplaceAll(ds, "-", ""),
		"ts":                          ts,
		"ts_nodash":                   d.logical.Format("20060102T150405"),
		"ts_nodash_with_tz":           strings.NewReplacer("-", "", ":", "").Replace(ts),
		"END_DATE":                    ds,
		"end_date":                    ds,
		"latest_date":                 ds,
		"dag_run":                     templateDagRun{c: c},
		"run_id":                      c.run.RunID,
		"execution_date":              pendulum1(d.logical),
		"macros":                      c.macros(withoutJSON),
		"params":                      c.params(),
		"tables":                      tables,
		"task":                        templateTask{c.task, c.dag},
		"task_instance":               templateTI{c: c},
		"ti":                          templateTI{c: c},
		"task_instance_key_str":       c.dag.DagID + "__" + c.task.TaskID + "__" + strings.ReplaceAll(ds, "-", ""),
		"test_mode":                   false,
		"var":                         map[string]any{"value": templateVariables{lookup: c.variables, secrets: c.secrets}, "json": templateVariables{lookup: c.variables, json: true, secrets: c.secrets}},
		"inlets":                      listOrEmpty(c.task.Inlets),
		"outlets":                     listOrEmpty(c.task.Outlets),
		"prev_execution_date_success": nil,
		"prev_start_date_success":     nil,
	}
	addNeighbourDates(vars, d, pendulum1)
	return vars
}

// addNeighbourDates adds prev_/next_/yesterday_/tomorrow_ names.
func addNeighbourDates(vars map[string]any, d templateDates, dateValue func(time.Time) any) {
	day := func(t time.Time) string { return t.Format("2006-01-02") }
	nodash := func(s string) string { return strings.ReplaceAll(s, "-", "") }
	vars["prev_execution_date"], vars["prev_ds"], vars["prev_ds_nodash"] = nil, nil, nil
	if d.prev != nil {
		vars["prev_execution_date"], vars["prev_ds"], vars["prev_ds_nodash"] = dateValue(*d.prev), day(*d.prev), nodash(day(*d.prev))
	}
	vars["next_execution_date"], vars["next_ds"], vars["next_ds_nodash"] = nil, nil, nil
	if d.next != nil {
		vars["next_execution_date"], vars["next_ds"], vars["next_ds_nodash"] = dateValue(*d.next), day(*d.next), nodash(day(*d.next))
	}
	y, t := day(d.logical.AddDate(0, 0, -1)), day(d.logical.AddDate(0, 0, 1))
	vars["yesterday_ds"], vars["yesterday_ds_nodash"] = y, nodash(y)
	vars["tomorrow_ds"], vars["tomorrow_ds_nodash"] = t, nodash(t)
}

func listOrEmpty(items []any) []any {
	if items == nil {
		return []any{}
	}
	return items
}

// params are the DAG's params, then the task's, then the run's conf, which
// overrides them (dag_run_conf_overrides_params).
func (c templateContext) params() map[string]any {
	params := map[string]any{}
	for k, v := range c.dag.Params {
		params[k] = v
	}
	for k, v := range c.task.Params {
		params[k] = v
	}
	if conf, ok := c.conf().(map[string]any); ok {
		for k, v := range conf {
			params[k] = v
		}
	}
	return params
}

// conf is the run's conf as template values: None for none.
func (c templateContext) conf() any {
	if c.run.Conf == nil {
		return pyNone
	}
	decoded, err := decodeJSONValue(c.run.Conf)
	if err != nil {
		return pyNone
	}
	return templateJSON(decoded)
}

// templateJSON turns decoded JSON into the values Python's json.loads
// makes: numbers become ints or floats.
func templateJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = templateJSON(item)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = templateJSON(item)
		}
		return out
	case nil:
		return pyNone
	}
	return v
}

// pythonNone is Python's None in a template. gonja has no None of its
// own (nil is also what an undefined name gives), so None is a value of
// its own type: empty, so false in an if; "None" when printed, where an
// undefined name prints as nothing (1.10's lenient jinja2.Undefined); an
// item or attribute of it is undefined, as Jinja makes it.
type pythonNone [0]struct{}

var pyNone = pythonNone{}

var pyNoneType = reflect.TypeOf(pyNone)

func isPyNone(v *exec.Value) bool { return v.Val.IsValid() && v.Val.Type() == pyNoneType }

func (pythonNone) GetItem(any) (*exec.Value, bool) { return exec.AsValue(nil), false }

func (pythonNone) GetAttribute(string) (*exec.Value, bool) { return exec.AsValue(nil), false }

// testNone is Jinja's "is none", which holds for None and for nothing.
func testNone(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsNil() || isPyNone(in), nil
}

// pyStringer is a context object with Python's str().
type pyStringer interface{ pyStr() string }

// templateStr is Python's str() of a value a template prints. An undefined
// name prints as nothing where Jinja's lenient Undefined is used (1.10).
func templateStr(v *exec.Value, rules *editionRules) string {
	switch {
	case isPyNone(v):
		return "None"
	case v.IsNil() && rules.templateStrictUndefined:
		return "None"
	case v.IsNil():
		return ""
	}
	if v.IsString() {
		return v.String()
	}
	if s, ok := v.Interface().(pyStringer); ok {
		return s.pyStr()
	}
	return templateRepr(v)
}

// templateRepr is Python's repr() of a value, which str() of a list or a
// dict applies to the items.
func templateRepr(v *exec.Value) string {
	if v.IsNil() || isPyNone(v) {
		return "None"
	}
	if r, ok := v.Interface().(pyReprer); ok {
		return r.pyRepr()
	}
	if s, ok := v.Interface().(pyStringer); ok {
		return s.pyStr()
	}
	switch {
	case v.IsBool():
		return pyRepr(v.Bool())
	case v.IsInteger():
		return strconv.Itoa(v.Integer())
	case v.IsFloat():
		return pyFloatRepr(v.Float())
	case v.IsString():
		return pyQuote(v.String())
	case v.IsList():
		parts := []string{}
		v.Iterate(func(_, _ int, item, _ *exec.Value) bool {
			parts = append(parts, templateRepr(item))
			return true
		}, func() {})
		return "[" + strings.Join(parts, ", ") + "]"
	case v.IsDict():
		parts := []string{}
		v.Iterate(func(_, _ int, key, item *exec.Value) bool {
			parts = append(parts, templateRepr(key)+": "+templateRepr(item))
			return true
		}, func() {})
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.String()
}

// templateVariables is var.value or var.json: Airflow Variables by key.
type templateVariables struct {
	lookup  variableLookup
	json    bool
	secrets *secretRegistry // learns what Variable.get masks
}

func (v templateVariables) pyStr() string { return "None" }

// errVariableMissing is Airflow's KeyError for a missing Variable.
func errVariableMissing(key string) error {
	// Airflow 2.10.3 airflow/models/variable.py:145; 1.10.15 airflow/models/variable.py:117
	return fmt.Errorf("KeyError: %s", pyQuote("Variable "+key+" does not exist"))
}

func (v templateVariables) get(key string) (any, bool, error) {
	if v.lookup == nil {
		return nil, false, nil
	}
	value, ok := v.lookup(key)
	if !ok {
		return nil, false, nil
	}
	if !v.json {
		v.secrets.addVariable(key, value, false)
		return value, true, nil
	}
	decoded, err := decodeJSONValue([]byte(value))
	if err != nil {
		return nil, false, fmt.Errorf("JSONDecodeError: Variable %s does not hold JSON: %w", key, err)
	}
	v.secrets.addVariable(key, decoded, true)
	return templateJSON(decoded), true, nil
}

func (v templateVariables) GetAttribute(name string) (*exec.Value, bool) {
	if name == "get" {
		return exec.AsValue(func(key string, fallback ...any) (any, error) {
			value, ok, err := v.get(key)
			switch {
			case err != nil:
				return nil, err
			case ok:
				return value, nil
			case len(fallback) > 0:
				return fallback[0], nil
			}
			return nil, errVariableMissing(key)
		}), true
	}
	value, ok, err := v.get(name)
	if err != nil {
		return exec.AsValue(err), true
	}
	if !ok {
		return exec.AsValue(errVariableMissing(name)), true
	}
	return exec.AsValue(value), true
}

// templateConnections is conn: the stored Connections by conn_id, as
// Airflow 2.10.3's ConnectionAccessor (airflow/utils/context.py:140-162):
// conn.x fails for a missing one, conn.get('x', default) gives the default.
type templateConnections struct {
	lookup  connectionLookup
	secrets *secretRegistry // learns what loading a connection masks
}

func (t templateConnections) find(connID string) (*Connection, bool) {
	if t.lookup == nil {
		return nil, false
	}
	c, ok := t.lookup(connID)
	if ok {
		t.secrets.addConnection(c)
	}
	return c, ok
}

// errConnectionMissing is Airflow's error for a conn_id no store holds
// (Airflow 2.10.3 airflow/models/connection.py:537).
func errConnectionMissing(connID string) error {
	return fmt.Errorf("AirflowNotFoundException: The conn_id `%s` isn't defined", connID)
}

func (t templateConnections) GetAttribute(name string) (*exec.Value, bool) {
	if name == "get" {
		return exec.AsValue(func(connID string, fallback ...any) any {
			if c, ok := t.find(connID); ok {
				return templateConnection{c}
			}
			if len(fallback) > 0 {
				return fallback[0]
			}
			return nil
		}), true
	}
	if c, ok := t.find(name); ok {
		return exec.AsValue(templateConnection{c}), true
	}
	return exec.AsValue(errConnectionMissing(name)), true
}

// templateConnection is a Connection as a template sees it: its fields,
// extra_dejson, and its conn_id as its str() (connection.py:421-422).
type templateConnection struct{ c *Connection }

func (t templateConnection) pyStr() string { return t.c.ConnID }

func (t templateConnection) GetAttribute(name string) (*exec.Value, bool) {
	optional := func(s *string) *exec.Value {
		if s == nil {
			return exec.AsValue(pyNone)
		}
		return exec.AsValue(*s)
	}
	switch name {
	case "conn_id":
		return exec.AsValue(t.c.ConnID), true
	case "conn_type":
		return exec.AsValue(t.c.ConnType), true
	case "description":
		return optional(t.c.Description), true
	case "host":
		return optional(t.c.Host), true
	case "schema":
		return optional(t.c.Schema), true
	case "login":
		return optional(t.c.Login), true
	case "password":
		return optional(t.c.Password), true
	case "extra":
		return optional(t.c.Extra), true
	case "port":
		if t.c.Port == nil {
			return exec.AsValue(pyNone), true
		}
		return exec.AsValue(*t.c.Port), true
	case "extra_dejson":
		// connection.py:503-505 and get_extra_dejson: {} when there is
		// no extra or it is not JSON.
		if t.c.Extra != nil {
			if v, err := decodeJSONValue([]byte(*t.c.Extra)); err == nil {
				return exec.AsValue(templateJSON(v)), true
			}
		}
		return exec.AsValue(map[string]any{}), true
	}
	return nil, false
}

// templateDAG is the DAG object.
type templateDAG struct{ dag *DAG }

func (d templateDAG) pyStr() string { return "<DAG: " + d.dag.DagID + ">" }

func (d templateDAG) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "dag_id":
		return exec.AsValue(d.dag.DagID), true
	case "description":
		if d.dag.Description == "" {
			return exec.AsValue(nil), true
		}
		return exec.AsValue(d.dag.Description), true
	case "params":
		return exec.AsValue(d.dag.Params), true
	case "tags":
		return exec.AsValue(d.dag.Tags), true
	case "catchup":
		return exec.AsValue(d.dag.Catchup), true
	case "schedule_interval":
		if d.dag.Schedule == nil {
			return exec.AsValue(nil), true
		}
		return exec.AsValue(*d.dag.Schedule), true
	case "max_active_runs":
		return exec.AsValue(d.dag.MaxActiveRuns), true
	}
	return exec.AsValue(fmt.Errorf("'DAG' object has no attribute '%s'", name)), false
}

// templateTask is the operator.
type templateTask struct {
	task *Task
	dag  *DAG
}

func (t templateTask) pyStr() string {
	return "<Task(" + t.task.Operator + "): " + t.task.TaskID + ">"
}

func (t templateTask) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "task_id":
		return exec.AsValue(t.task.TaskID), true
	case "dag_id":
		return exec.AsValue(t.dag.DagID), true
	case "owner":
		return exec.AsValue(t.task.Owner), true
	case "params":
		return exec.AsValue(t.task.Params), true
	case "bash_command":
		return exec.AsValue(t.task.BashCommand), true
	case "dag":
		return exec.AsValue(templateDAG{t.dag}), true
	}
	return exec.AsValue(fmt.Errorf("'%s' object has no attribute '%s'", t.task.Operator, name)), false
}

// templateTI is the task instance of the try being rendered.
type templateTI struct{ c templateContext }

func (ti templateTI) pyStr() string {
	return ti.c.editionRules().taskInstanceStr(ti.c)
}

// taskInstanceStr2 is Airflow 2.10.3's TaskInstance.__repr__
// (airflow/models/taskinstance.py:2636).
func taskInstanceStr2(c templateContext) string {
	return fmt.Sprintf("<TaskInstance: %s.%s %s [running]>", c.dag.DagID, c.task.TaskID, c.run.RunID)
}

// taskInstanceStr110 is Airflow 1.10.15's (airflow/models/taskinstance.py:693).
func taskInstanceStr110(c templateContext) string {
	return fmt.Sprintf("<TaskInstance: %s.%s %s [running]>", c.dag.DagID, c.task.TaskID, strFormat(c.run.ExecutionDate.UTC()))
}

func (ti templateTI) GetAttribute(name string) (*exec.Value, bool) {
	c := ti.c
	switch name {
	case "task_id":
		return exec.AsValue(c.task.TaskID), true
	case "dag_id":
		return exec.AsValue(c.dag.DagID), true
	case "run_id":
		return exec.AsValue(c.run.RunID), true
	case "try_number":
		return exec.AsValue(c.try), true
	case "max_tries":
		return exec.AsValue(c.task.Retries), true
	case "state":
		return exec.AsValue("running"), true
	case "map_index":
		return exec.AsValue(-1), true
	case "execution_date":
		if !c.editionRules().templateExecutionDate {
			break
		}
		return exec.AsValue(templateDate{t: c.run.ExecutionDate.UTC(), sep: ' '}), true
	case "task":
		return exec.AsValue(templateTask{c.task, c.dag}), true
	case "dag_run":
		return exec.AsValue(templateDagRun{c: c}), true
	case "xcom_pull":
		return exec.AsValue(func(args *exec.VarArgs) (any, error) { return c.editionRules().xcomPull(c, args) }), true
	case "xcom_push":
		return exec.AsValue(errors.New("xcom_push in a template is not supported by airlite")), true
	}
	return exec.AsValue(fmt.Errorf("'TaskInstance' object has no attribute '%s'", name)), false
}

// templateDagRun is the run.
type templateDagRun struct{ c templateContext }

func (r templateDagRun) pyStr() string {
	return r.c.editionRules().dagRunStr(r.c.run)
}

// dagRunStr2 is Airflow 2.10.3's DagRun.__repr__.
func dagRunStr2(run *DagRun) string { return dagRunRepr(run, run.ExecutionDate) }

// dagRunStr110 is Airflow 1.10.15's (airflow/models/dagrun.py:70).
func dagRunStr110(run *DagRun) string {
	return fmt.Sprintf("<DagRun %s @ %s: %s, externally triggered: %s>",
		run.DagID, strFormat(run.ExecutionDate.UTC()), run.RunID, pyRepr(run.ExternalTrigger))
}

func (r templateDagRun) GetAttribute(name string) (*exec.Value, bool) {
	run := r.c.run
	rules := r.c.editionRules()
	switch name {
	case "conf":
		return exec.AsValue(r.c.conf()), true
	case "run_id":
		return exec.AsValue(run.RunID), true
	case "dag_id":
		return exec.AsValue(run.DagID), true
	case "external_trigger":
		return exec.AsValue(run.ExternalTrigger), true
	case "state":
		return exec.AsValue(string(run.State)), true
	case "execution_date":
		if rules.templateExecutionDate {
			return exec.AsValue(templateDate{t: run.ExecutionDate.UTC(), sep: ' '}), true
		}
	}
	if rules.templateRunAttributes2 {
		switch name {
		case "run_type":
			return exec.AsValue(run.RunType), true
		case "run_after":
			if rules.nullLogicalDate { // Airflow 3's DagRun has run_after
				return exec.AsValue(templateDate{t: run.After().UTC(), sep: ' '}), true
			}
		case "logical_date", "data_interval_start", "data_interval_end":
			if _, ok := run.LogicalDate(); !ok {
				return exec.AsValue(pyNone), true // no date, no interval
			}
			start, end := r.c.dataInterval()
			at := map[string]time.Time{"logical_date": run.ExecutionDate.UTC(), "data_interval_start": start, "data_interval_end": end}[name]
			return exec.AsValue(templateDate{t: at, sep: ' '}), true
		}
	}
	return exec.AsValue(fmt.Errorf("'DagRun' object has no attribute '%s'", name)), false
}

// dateFilters are the filters Airflow 2 adds to Jinja (Airflow 2.10.3
// airflow/templates.py:53-95): {{ data_interval_end | ds }}.
var dateFilters = map[string]exec.FilterFunction{
	"ds":                dateFilter(func(t time.Time) string { return t.Format("2006-01-02") }),
	"ds_nodash":         dateFilter(func(t time.Time) string { return t.Format("20060102") }),
	"ts":                dateFilter(isoFormat),
	"ts_nodash":         dateFilter(func(t time.Time) string { return t.Format("20060102T150405") }),
	"ts_nodash_with_tz": dateFilter(func(t time.Time) string { return strings.NewReplacer("-", "", ":", "").Replace(isoFormat(t)) }),
}

// dateFilter applies format to a date; None stays None.
func dateFilter(format func(time.Time) string) exec.FilterFunction {
	return func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
		switch d := in.Interface().(type) {
		case templateDate:
			return exec.AsValue(format(d.t))
		case naiveDateTime:
			return exec.AsValue(strings.TrimSuffix(format(d.t), "+00:00"))
		}
		if in.IsNil() {
			return in
		}
		return exec.AsValue(fmt.Errorf("AttributeError: %s has no strftime", templateRepr(in)))
	}
}
