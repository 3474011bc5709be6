package main

// Airflow 3's task routes (/api/v2/dags/{dag_id}/tasks): the answers of
// Airflow 3.2.1's core_api/routes/public/tasks.py in the models of
// datamodels/tasks.py.

import (
	"cmp"
	"fmt"
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
	TaskID                  string       `json:"task_id"`
	TaskDisplayName         string       `json:"task_display_name"`
	Owner                   string       `json:"owner"`
	StartDate               *v2When      `json:"start_date"`
	EndDate                 *v2When      `json:"end_date"`
	TriggerRule             string       `json:"trigger_rule"`
	DependsOnPast           bool         `json:"depends_on_past"`
	WaitForDownstream       bool         `json:"wait_for_downstream"`
	Retries                 v2PyFloat    `json:"retries"`
	Queue                   string       `json:"queue"`
	Pool                    string       `json:"pool"`
	PoolSlots               v2PyFloat    `json:"pool_slots"`
	ExecutionTimeout        *v2TimeDelta `json:"execution_timeout"`
	RetryDelay              *v2TimeDelta `json:"retry_delay"`
	RetryExponentialBackoff v2PyFloat    `json:"retry_exponential_backoff"`
	PriorityWeight          v2PyFloat    `json:"priority_weight"`
	WeightRule              string       `json:"weight_rule"`
	UIColor                 string       `json:"ui_color"`
	UIFgcolor               string       `json:"ui_fgcolor"`
	TemplateFields          []string     `json:"template_fields"`
	DownstreamTaskIDs       []string     `json:"downstream_task_ids"`
	DocMD                   *string      `json:"doc_md"`
	OperatorName            string       `json:"operator_name"`
	Params                  v2Ordered    `json:"params"`
	ClassRef                v2ClassRef   `json:"class_ref"`
	IsMapped                bool         `json:"is_mapped"`
	ExtraLinks              []string     `json:"extra_links"`
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

// v2OtherOperatorModule stands for the module of an operator
// v2OperatorModules does not name (a class of the DAG file's own).
const v2OtherOperatorModule = "airflow.providers.standard.operators.other"

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
		module = v2OtherOperatorModule
	}
	className := t.Operator
	operatorName := className
	if t.Operator == "_PythonDecoratedOperator" {
		operatorName = "@task" // custom_operator_name of @task
	}
	color, fgColor := taskUIColor(t), uiFgcolor(t.Operator)
	templateFields := slices.Clone(v2TemplateFields[t.Operator])
	if t.OperatorModule != "" {
		// A Python DAG's task: what its serialized form says.
		module, operatorName = t.OperatorModule, orDefault(t.OperatorName, t.Operator)
		fgColor = orDefault(t.UIFgcolor, fgColor)
		templateFields = slices.Clone(t.TemplateFields)
	}
	if templateFields == nil {
		templateFields = []string{}
	}
	params := v2Ordered{v2TaskParams(def, t)}
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

// V2GetTasks is get_tasks: dag.tasks sorted by one attribute of the
// serialized operators (order_by with its leading dashes stripped, a "-"
// first for descending; Python's sorted, stable, reverse=True for "-").
// An attribute tasks.py's _SORTABLE_TASK_FIELDS leaves out is SortParam's
// 400 text (apache/airflow#64384, in 3.2.1 through its backport #64587,
// as 3.2.1's release notes list it; the 3.2.0-era main, Phinhas214/airflow
// c57fba0e, and 3.2.0 still sorted with attrgetter and answered the
// AttributeError's text, "'<task_type>' object has no attribute 'x'", and
// a 500 for None values).
func (s *server) V2GetTasks(req *apiRequest) (any, error) {
	def, err := s.v2LoadedDag(req.param("dag_id"))
	if err != nil {
		return nil, err
	}
	order, ok := req.query.str("order_by")
	if !ok {
		order = "task_id"
	}
	attr := strings.TrimLeft(order, "-")
	compare, known := v2TaskOrders[attr]
	if !known {
		return nil, &v2Error{status: http.StatusBadRequest, detail: fmt.Sprintf(v2OrderingDisallowed, attr)}
	}
	out := v2TaskCollection{Tasks: make([]v2Task, 0, len(def.Tasks)), TotalEntries: len(def.Tasks)}
	for _, t := range def.Tasks {
		out.Tasks = append(out.Tasks, v2TaskOf(def, t))
	}
	// Python's sorted(reverse=True) keeps equal items in their order.
	if strings.HasPrefix(order, "-") {
		slices.SortStableFunc(out.Tasks, func(a, b v2Task) int { return compare(b, a) })
	} else {
		slices.SortStableFunc(out.Tasks, compare)
	}
	return out, nil
}

// v2TaskOrders are the attributes get_tasks sorts by: the attributes of
// 3.2.1's SerializedBaseOperator (serialization/definitions/
// baseoperator.py) that TaskResponse shows, compared as Python compares
// them (False before True), read from the rendered answer, which holds
// each one's value. A None sorts last ascending, first descending, as
// the key (value is None, value) of tasks.py's fix for apache/airflow
// #63927 orders it (#64384; before it two None values or a None and a
// date were a TypeError, a 500). weight_rule is left out: its value is a
// PriorityWeightStrategy, which Python cannot order (a 500 there where
// two tasks are compared; airlite answers the 400 instead).
var v2TaskOrders = map[string]func(a, b v2Task) int{
	"task_id":             func(a, b v2Task) int { return strings.Compare(a.TaskID, b.TaskID) },
	"task_display_name":   func(a, b v2Task) int { return strings.Compare(a.TaskDisplayName, b.TaskDisplayName) },
	"owner":               func(a, b v2Task) int { return strings.Compare(a.Owner, b.Owner) },
	"start_date":          func(a, b v2Task) int { return compareNoneLast(a.StartDate, b.StartDate, compareV2When) },
	"end_date":            func(a, b v2Task) int { return compareNoneLast(a.EndDate, b.EndDate, compareV2When) },
	"trigger_rule":        func(a, b v2Task) int { return strings.Compare(a.TriggerRule, b.TriggerRule) },
	"depends_on_past":     func(a, b v2Task) int { return boolCompare(a.DependsOnPast, b.DependsOnPast) },
	"wait_for_downstream": func(a, b v2Task) int { return boolCompare(a.WaitForDownstream, b.WaitForDownstream) },
	"retries":             func(a, b v2Task) int { return cmp.Compare(a.Retries, b.Retries) },
	"queue":               func(a, b v2Task) int { return strings.Compare(a.Queue, b.Queue) },
	"pool":                func(a, b v2Task) int { return strings.Compare(a.Pool, b.Pool) },
	"pool_slots":          func(a, b v2Task) int { return cmp.Compare(a.PoolSlots, b.PoolSlots) },
	"execution_timeout": func(a, b v2Task) int {
		return compareNoneLast(a.ExecutionTimeout, b.ExecutionTimeout, compareV2TimeDelta)
	},
	"retry_delay":               func(a, b v2Task) int { return compareNoneLast(a.RetryDelay, b.RetryDelay, compareV2TimeDelta) },
	"retry_exponential_backoff": func(a, b v2Task) int { return cmp.Compare(a.RetryExponentialBackoff, b.RetryExponentialBackoff) },
	"priority_weight":           func(a, b v2Task) int { return cmp.Compare(a.PriorityWeight, b.PriorityWeight) },
	"ui_color":                  func(a, b v2Task) int { return strings.Compare(a.UIColor, b.UIColor) },
	"ui_fgcolor":                func(a, b v2Task) int { return strings.Compare(a.UIFgcolor, b.UIFgcolor) },
	"operator_name":             func(a, b v2Task) int { return strings.Compare(a.OperatorName, b.OperatorName) },
}

// compareNoneLast orders two values that may be None: None after every
// value, two Nones equal.
func compareNoneLast[T any](a, b *T, compare func(a, b T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return compare(*a, *b)
}

func compareV2When(a, b v2When) int { return time.Time(a).Compare(time.Time(b)) }

// compareV2TimeDelta orders timedeltas (their fields are in normal form).
func compareV2TimeDelta(a, b v2TimeDelta) int {
	return cmp.Or(cmp.Compare(a.Days, b.Days), cmp.Compare(a.Seconds, b.Seconds), cmp.Compare(a.Microseconds, b.Microseconds))
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
