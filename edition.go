package main

import (
	"fmt"
	"strings"
	"time"
)

// edition is the Airflow release whose wire behaviour airlite reproduces.
type edition string

const (
	edition2       edition = "2"         // Airflow 2.10.3, deprecated experimental API
	edition110     edition = "1.10"      // Airflow 1.10.15, classic (Flask-Admin) UI
	edition110RBAC edition = "1.10-rbac" // Airflow 1.10.15 with the RBAC UI
)

func parseEdition(s string) (edition, error) {
	switch e := edition(s); e {
	case edition2, edition110, edition110RBAC:
		return e, nil
	}
	return "", fmt.Errorf("unknown edition %q: want 2, 1.10 or 1.10-rbac", s)
}

func (e edition) isAirflow1() bool { return e != edition2 }

// version is the Airflow version this edition answers as.
func (e edition) version() string {
	if e.isAirflow1() {
		return "1.10.15"
	}
	return "2.10.3"
}

// encoder is the edition's JSON form: Flask 1.1 writes compact JSON with a
// trailing newline; Airflow 2's provider writes Python's default separators
// and no newline.
func (e edition) encoder() pyJSON {
	if e.isAirflow1() {
		return compactJSON
	}
	return spacedJSON
}

func (e edition) marshal(v any) ([]byte, error) {
	return e.appendJSON(make([]byte, 0, 128), v)
}

// appendJSON appends v in the edition's JSON form to b.
func (e edition) appendJSON(b []byte, v any) ([]byte, error) {
	b, err := e.encoder().append(b, v)
	if err != nil {
		return nil, err
	}
	if e.isAirflow1() {
		b = append(b, '\n')
	}
	return b, nil
}

// runStart is how a new run begins: queued in Airflow 2, running (and
// started) in 1.10, whose task instances have no updated_at.
func (e edition) runStart() runStart {
	if e.isAirflow1() {
		return runStart{state: RunRunning, startDate: true}
	}
	return runStart{state: RunQueued, tiUpdatedAt: true}
}

// errorDate renders a requested date inside Airflow's not-found messages:
// 1.10 prints pendulum 1 objects with a "T", Airflow 2 with a space.
func (e edition) errorDate(t time.Time) string {
	if e.isAirflow1() {
		return isoFormat(t)
	}
	return strFormat(t)
}

// dagRunURL is the UI link Airflow puts in run listings.
func (e edition) dagRunURL(dagID string, date time.Time) string {
	var buf [160]byte
	var d [40]byte
	day := appendPyDateTime(d[:0], date.UTC(), ' ')
	b := buf[:0]
	switch e {
	case edition110, edition110RBAC:
		if e == edition110 {
			b = append(b, "/admin/airflow"...)
		}
		b = append(b, "/graph?dag_id="...)
		b = appendEscaped(b, dagID, "", true)
		b = append(b, "&execution_date="...)
		b = appendEscaped(b, day, "", true)
	default:
		b = append(b, "/dags/"...)
		b = appendEscaped(b, dagID, pathSafe, false)
		b = append(b, "/graph?execution_date="...)
		b = appendEscaped(b, day, "$!'()*,;", true)
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

// triggerMessage is the "message" of a trigger response. Airflow 1.10
// prints the date with a space when the client sent none (a datetime) and
// with a "T" when it sent one (a pendulum 1 object).
func (e edition) triggerMessage(run *DagRun, date time.Time, dateGiven bool) string {
	if !e.isAirflow1() {
		return "Created " + dagRunRepr(run, date)
	}
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

// taskInfo is the task endpoint's answer: str() of every public attribute
// of the operator object, with the key set of the edition (spec §3.5).
func (e edition) taskInfo(dag *DAG, t *Task) map[string]any {
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
	var env any
	if t.Env != nil {
		env = t.Env
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
		"trigger_rule":              t.TriggerRule,
		"wait_for_downstream":       "False",
		"weight_rule":               t.WeightRule,
	}
	bash := t.Operator == "BashOperator"
	if e.isAirflow1() {
		info["lineage_data"] = "None"
		info["task_concurrency"] = "None"
		info["subdag"] = "None"
		if t.Subdag != "" {
			info["subdag"] = "<DAG: " + t.Subdag + ">"
		}
		if bash {
			info["bash_command"] = t.BashCommand
			info["env"] = pyRepr(env)
			info["output_encoding"] = "utf-8"
			info["sub_process"] = "None"
			info["xcom_push_flag"] = "False"
		}
		return info
	}
	for _, k := range []string{"doc", "doc_json", "doc_rst", "doc_yaml", "executor", "map_index_template",
		"max_active_tis_per_dag", "max_active_tis_per_dagrun", "on_execute_callback", "on_skipped_callback", "start_trigger_args"} {
		info[k] = "None"
	}
	info["doc_md"] = "None"
	if t.DocMD != "" {
		info["doc_md"] = t.DocMD
	}
	info["allow_nested_operators"] = "True"
	info["downstream_task_ids"] = pyRepr(pySet(t.Downstream))
	info["upstream_task_ids"] = pyRepr(pySet(t.Upstream))
	info["ignore_first_depends_on_past"] = "True"
	info["multiple_outputs"] = "False"
	info["operator_extra_links"] = "()"
	info["start_from_trigger"] = "False"
	info["wait_for_past_depends_before_skipping"] = "False"
	info["ui_fgcolor"] = "#000"
	info["ui_color"] = uiColor(t.Operator)
	info["template_ext"] = "[]"
	info["template_fields"] = "[]"
	info["template_fields_renderers"] = "{}"
	if bash {
		info["bash_command"] = t.BashCommand
		info["cwd"] = orDefault(t.Cwd, "None")
		info["env"] = pyRepr(env)
		info["template_ext"] = "['.sh', '.bash']"
		info["template_fields"] = "['bash_command', 'env', 'cwd']"
		info["template_fields_renderers"] = "{'bash_command': 'bash', 'env': 'json'}"
	}
	return info
}

// uiColor is the operator's ui_color in Airflow 2.
func uiColor(operator string) string {
	switch operator {
	case "BashOperator":
		return "#f0ede4"
	case "EmptyOperator", "DummyOperator":
		return "#e8f7e4"
	case "PythonOperator":
		return "#ffefeb"
	case "SubDagOperator":
		return "#555"
	}
	return "#fff"
}

// taskInstanceInfo is the task-instance endpoint's answer: str() of every
// public attribute of the row, with the key set of the edition (spec §3.4).
func (e edition) taskInstanceInfo(ti *TaskInstance, run *DagRun) pyObject {
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
	a2 := !e.isAirflow1()
	info := make(pyObject, 0, 34)
	add := func(key string, val any) { info = append(info, pyField{key, val}) }
	none2 := func(key string) { // an Airflow 2 field airlite does not model
		if a2 {
			add(key, "None")
		}
	}
	none2("custom_operator_name")
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

// poolJSON is a pool as Airflow's Pool.to_json renders it.
func (e edition) poolJSON(p *Pool) map[string]any {
	var desc any
	if p.Description != nil {
		desc = *p.Description
	}
	m := map[string]any{"description": desc, "id": p.ID, "pool": p.Name, "slots": p.Slots}
	if !e.isAirflow1() {
		m["include_deferred"] = p.IncludeDeferred
	}
	return m
}
