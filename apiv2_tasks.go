package main

// Airflow 3's task routes (/api/v2/dags/{dag_id}/tasks): the answers of
// Airflow 3.2.1's core_api/routes/public/tasks.py in the models of
// datamodels/tasks.py.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// routes/public/tasks.py get_task.
const v2TaskNotFoundFmt = "Task with id %s was not found"

// v2PyFloat is a float field: pydantic writes it as Python's repr does
// (1.0, not 1).
type v2PyFloat float64

// MarshalJSON writes the float as Python's json does.
func (f v2PyFloat) MarshalJSON() ([]byte, error) { return []byte(pyFloatRepr(float64(f))), nil }

// v2TimeDelta is datamodels/common TimeDelta (TimeDeltaWithValidation).
type v2TimeDelta struct {
	Type         string `json:"__type"`
	Days         int64  `json:"days"`
	Seconds      int64  `json:"seconds"`
	Microseconds int64  `json:"microseconds"`
}

// v2TimeDeltaOf is d in Python's timedelta normal form.
func v2TimeDeltaOf(d time.Duration) *v2TimeDelta {
	us := d.Microseconds()
	days := us / 86_400_000_000
	rest := us % 86_400_000_000
	if rest < 0 {
		days--
		rest += 86_400_000_000
	}
	return &v2TimeDelta{Type: "TimeDelta", Days: days, Seconds: rest / 1_000_000, Microseconds: rest % 1_000_000}
}

// v2ClassRef is TaskResponse.class_ref.
type v2ClassRef struct {
	ModulePath string `json:"module_path"`
	ClassName  string `json:"class_name"`
}

// v2Task is TaskResponse in its field order, the computed extra_links
// last.
type v2Task struct {
	TaskID                  string         `json:"task_id"`
	TaskDisplayName         string         `json:"task_display_name"`
	Owner                   string         `json:"owner"`
	StartDate               *v2When        `json:"start_date"`
	EndDate                 *v2When        `json:"end_date"`
	TriggerRule             string         `json:"trigger_rule"`
	DependsOnPast           bool           `json:"depends_on_past"`
	WaitForDownstream       bool           `json:"wait_for_downstream"`
	Retries                 v2PyFloat      `json:"retries"`
	Queue                   string         `json:"queue"`
	Pool                    string         `json:"pool"`
	PoolSlots               v2PyFloat      `json:"pool_slots"`
	ExecutionTimeout        *v2TimeDelta   `json:"execution_timeout"`
	RetryDelay              *v2TimeDelta   `json:"retry_delay"`
	RetryExponentialBackoff v2PyFloat      `json:"retry_exponential_backoff"`
	PriorityWeight          v2PyFloat      `json:"priority_weight"`
	WeightRule              string         `json:"weight_rule"`
	UIColor                 string         `json:"ui_color"`
	UIFgcolor               string         `json:"ui_fgcolor"`
	TemplateFields          []string       `json:"template_fields"`
	DownstreamTaskIDs       []string       `json:"downstream_task_ids"`
	DocMD                   *string        `json:"doc_md"`
	OperatorName            string         `json:"operator_name"`
	Params                  map[string]any `json:"params"`
	ClassRef                v2ClassRef     `json:"class_ref"`
	IsMapped                bool           `json:"is_mapped"`
	ExtraLinks              []string       `json:"extra_links"`
}

// v2TaskCollection is TaskCollectionResponse.
type v2TaskCollection struct {
	Tasks        []v2Task `json:"tasks"`
	TotalEntries int      `json:"total_entries"`
}

// v2OperatorModules are the modules of the operators airlite's DAG files
// name, as Airflow 3.2.1 ships them: the standard provider
// (providers/standard/src/airflow/providers/standard/...) and the Task
// SDK's @task.
var v2OperatorModules = map[string]string{
	"BashOperator":             "airflow.providers.standard.operators.bash",
	"EmptyOperator":            "airflow.providers.standard.operators.empty",
	"PythonOperator":           "airflow.providers.standard.operators.python",
	"BranchPythonOperator":     "airflow.providers.standard.operators.python",
	"PythonVirtualenvOperator": "airflow.providers.standard.operators.python",
	"ExternalPythonOperator":   "airflow.providers.standard.operators.python",
	"ShortCircuitOperator":     "airflow.providers.standard.operators.python",
	"TriggerDagRunOperator":    "airflow.providers.standard.operators.trigger_dagrun",
	"LatestOnlyOperator":       "airflow.providers.standard.operators.latest_only",
	"BashSensor":               "airflow.providers.standard.sensors.bash",
	"PythonSensor":             "airflow.providers.standard.sensors.python",
	"TimeDeltaSensor":          "airflow.providers.standard.sensors.time_delta",
	"ExternalTaskSensor":       "airflow.providers.standard.sensors.external_task",
	"_PythonDecoratedOperator": "airflow.providers.standard.decorators.python",
}

// v2TemplateFields are the operators' template_fields in 3.2.1's
// standard provider.
var v2TemplateFields = map[string][]string{
	"BashOperator":             {"bash_command", "env", "cwd"},
	"PythonOperator":           {"templates_dict", "op_args", "op_kwargs"},
	"BranchPythonOperator":     {"templates_dict", "op_args", "op_kwargs"},
	"ShortCircuitOperator":     {"templates_dict", "op_args", "op_kwargs"},
	"_PythonDecoratedOperator": {"templates_dict", "op_args", "op_kwargs"},
	"PythonVirtualenvOperator": {"templates_dict", "op_args", "op_kwargs", "requirements", "index_urls", "venv_cache_path"},
	"ExternalPythonOperator":   {"templates_dict", "op_args", "op_kwargs", "python"},
	"TriggerDagRunOperator":    {"trigger_dag_id", "trigger_run_id", "logical_date", "conf", "wait_for_completion", "skip_when_already_exists"},
}

// v2TaskOf renders a task as TaskResponse validates a serialized operator.
func v2TaskOf(def *DAG, t *Task) v2Task {
	module, ok := v2OperatorModules[t.Operator]
	if !ok {
		module = "airflow.providers.standard.operators.other"
	}
	className := t.Operator
	operatorName := className
	if t.Operator == "_PythonDecoratedOperator" {
		operatorName = "@task" // custom_operator_name of @task
	}
	color, fgColor := uiColor(t.Operator), uiFgcolor(t.Operator)
	templateFields := slices.Clone(v2TemplateFields[t.Operator])
	if t.OperatorModule != "" {
		// A Python DAG's task: what its serialized form says.
		module, operatorName = t.OperatorModule, orDefault(t.OperatorName, t.Operator)
		color, fgColor = orDefault(t.UIColor, color), orDefault(t.UIFgcolor, fgColor)
		templateFields = slices.Clone(t.TemplateFields)
	}
	if templateFields == nil {
		templateFields = []string{}
	}
	params := v2Params(def.Params, def.ParamDocs)
	maps.Copy(params, v2Params(t.Params, t.ParamDocs))
	out := v2Task{
		TaskID: t.TaskID, TaskDisplayName: t.TaskDisplayName(), Owner: t.Owner, StartDate: v2At(t.StartDate), EndDate: v2At(t.EndDate),
		TriggerRule: t.TriggerRule, DependsOnPast: t.DependsOnPast, Retries: v2PyFloat(t.Retries), Queue: t.Queue, Pool: t.Pool,
		PoolSlots: v2PyFloat(t.PoolSlots), RetryDelay: v2TimeDeltaOf(t.RetryDelay), PriorityWeight: v2PyFloat(t.PriorityWeight),
		WeightRule: t.WeightRule, UIColor: color, UIFgcolor: fgColor, TemplateFields: templateFields,
		DownstreamTaskIDs: append([]string{}, t.Downstream...), OperatorName: operatorName, Params: params,
		ClassRef: v2ClassRef{ModulePath: module, ClassName: className}, IsMapped: t.IsMapped, ExtraLinks: v2ExtraLinkNames(t.ExtraLinks),
	}
	if t.RetryExponentialBackoff {
		out.RetryExponentialBackoff = 1
	}
	if t.ExecutionTimeout != 0 {
		out.ExecutionTimeout = v2TimeDeltaOf(t.ExecutionTimeout)
	}
	if t.DocMD != "" {
		out.DocMD = ptr(t.DocMD)
	}
	return out
}

// v2LoadedDag is the DAG the DagBag serves: its loaded definition, or
// get_latest_version_of_dag's 404.
func (s *server) v2LoadedDag(dagID string) (*DAG, error) {
	row, err := s.opts.Store.DagByID(dagID)
	if err == errNotFound || err == nil && row.Def == nil {
		return nil, v2NotFound(v2DagNotFoundFmt, dagID)
	}
	if err != nil {
		return nil, err
	}
	return row.Def, nil
}

// V2GetTask is get_task.
func (s *server) V2GetTask(req *apiRequest) (any, error) {
	def, err := s.v2LoadedDag(req.param("dag_id"))
	if err != nil {
		return nil, err
	}
	taskID := req.param("task_id")
	t := def.Task(taskID)
	if t == nil {
		return nil, v2NotFound(v2TaskNotFoundFmt, taskID)
	}
	return v2TaskOf(def, t), nil
}

// V2GetTasks is get_tasks: sorted by one attribute of the operators
// (order_by, "-" for descending); an attribute they lack is the
// AttributeError's 400.
func (s *server) V2GetTasks(req *apiRequest) (any, error) {
	def, err := s.v2LoadedDag(req.param("dag_id"))
	if err != nil {
		return nil, err
	}
	order, ok := req.query.str("order_by")
	if !ok {
		order = "task_id"
	}
	attr := strings.TrimPrefix(order, "-")
	cmp, known := v1TaskOrder[attr]
	if !known {
		return nil, &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf("'SerializedBaseOperator' object has no attribute '%s'", attr)}
	}
	tasks := slices.Clone(def.Tasks)
	// Python's sorted(reverse=True) keeps equal items in their order.
	if strings.HasPrefix(order, "-") {
		slices.SortStableFunc(tasks, func(a, b *Task) int { return cmp(b, a) })
	} else {
		slices.SortStableFunc(tasks, cmp)
	}
	out := v2TaskCollection{Tasks: make([]v2Task, 0, len(tasks)), TotalEntries: len(tasks)}
	for _, t := range tasks {
		out.Tasks = append(out.Tasks, v2TaskOf(def, t))
	}
	return out, nil
}

// v2ExtraLinkNames is TaskResponse's extra_links: the links' names
// (3.2.1 api_fastapi/core_api/datamodels/tasks.py).
func v2ExtraLinkNames(links []extraLink) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.Name
	}
	return out
}
