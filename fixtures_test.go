package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The embedded examples are each release's example DAGs, field by field.
// The tables below are read off Airflow's files at the release's tag; each
// entry cites the file and lines it comes from.

// wantTask is a task of an Airflow example as Airflow builds it, with
// default_args applied.
type wantTask struct {
	id, operator  string
	bashCommand   string
	env           map[string]string
	downstream    []string // sorted
	owner         string
	retries       int
	retryDelay    time.Duration
	dependsOnPast bool
	email         any
	emailOnFail   bool
	emailOnRetry  bool
	params        map[string]any
	startDate     *time.Time
	triggerRule   string
	subdag        string
	docMD         string
	uiColor       string         // the class's own, for a class of the DAG file
	outcome       string         // a simulated task's, when not success
	pushes        map[string]any // what a simulated task pushes to XCom
}

// wantDAG is an Airflow example DAG's own fields and its tasks.
type wantDAG struct {
	dagID, description string
	docMD              string // in airlite's words where Airflow's file sets one
	schedule           *string
	startDate          *time.Time // the DAG's own start_date (None when only default_args set one)
	defaultArgsStart   *time.Time
	catchup            bool
	tags               []string
	dagrunTimeout      time.Duration
	params             map[string]any
	tasks              []wantTask
}

// airflowTask is a task with Airflow's BaseOperator defaults (owner
// "airflow", no retries, 5 minutes between them, emails on, all_success),
// changed by opts.
func airflowTask(id, operator string, start *time.Time, opts ...func(*wantTask)) wantTask {
	t := wantTask{id: id, operator: operator, owner: "airflow", retryDelay: 5 * time.Minute,
		emailOnFail: true, emailOnRetry: true, startDate: start, triggerRule: "all_success"}
	for _, o := range opts {
		o(&t)
	}
	return t
}

func bash(cmd string) func(*wantTask) { return func(t *wantTask) { t.bashCommand = cmd } }
func down(ids ...string) func(*wantTask) {
	return func(t *wantTask) { t.downstream = ids }
}
func owner(o string) func(*wantTask) { return func(t *wantTask) { t.owner = o } }
func retries(n int) func(*wantTask)  { return func(t *wantTask) { t.retries = n } }
func doc(md string) func(*wantTask)  { return func(t *wantTask) { t.docMD = md } }
func pushes(kv map[string]any) func(*wantTask) {
	return func(t *wantTask) { t.pushes = kv }
}
func rule(r string) func(*wantTask) { return func(t *wantTask) { t.triggerRule = r } }

func timePtr(t time.Time) *time.Time {
	return &t
}

// airflowExamples is every embedded example of a release, read at now.
func airflowExamples(version string, now time.Time) []wantDAG {
	switch version {
	case "1.10.15":
		return airflow11015Examples(now)
	case "3.2.1":
		return airflow321Examples()
	}
	return airflow2103Examples()
}

// airflow321Examples are Airflow 3.2.1's examples
// (airflow-core/src/airflow/example_dags/), with the standard provider's
// operators.
func airflow321Examples() []wantDAG {
	jan2021 := timePtr(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC))
	runme := `echo "{{ task_instance_key_str }}" && sleep 1`
	tutorialDefaults := func(t *wantTask) { t.retries = 1 } // tutorial.py:42-60: no email in Airflow 3
	sleeps := []string{"sleep_for_0", "sleep_for_1", "sleep_for_2", "sleep_for_3", "sleep_for_4"}
	pyTasks := []wantTask{
		airflowTask("print_the_context", "PythonOperator", jan2021, down("external_python", "log_sql_query")), // :61, :143
		airflowTask("log_sql_query", "PythonOperator", jan2021, down(sleeps...)),                              // :68-73, :85
		airflowTask("virtualenv_python", "PythonVirtualenvOperator", jan2021),                                 // :111-116
		airflowTask("external_python", "ExternalPythonOperator", jan2021, down("virtualenv_python")),          // :137-141, :143
	}
	for i, id := range sleeps { // :80-85; the last one is upstream of the virtualenv task (:119)
		t := airflowTask(id, "PythonOperator", jan2021)
		if i == len(sleeps)-1 {
			t.downstream = []string{"virtualenv_python"}
		}
		pyTasks = append(pyTasks, t)
	}
	return []wantDAG{
		{
			// Airflow 3.2.1 example_dags/example_bash_operator.py:30-38
			dagID: "example_bash_operator", schedule: strPtr("0 0 * * *"), startDate: jan2021, catchup: false,
			tags: []string{"example", "example2"}, dagrunTimeout: 60 * time.Minute,
			params: map[string]any{"example_key": "example_value"},
			tasks: []wantTask{
				airflowTask("run_this_last", "EmptyOperator", jan2021),                                                                          // :39-41
				airflowTask("run_after_loop", "BashOperator", jan2021, bash("echo https://airflow.apache.org/"), down("run_this_last")),         // :44-50
				airflowTask("runme_0", "BashOperator", jan2021, bash(runme), down("run_after_loop")),                                            // :52-57
				airflowTask("runme_1", "BashOperator", jan2021, bash(runme), down("run_after_loop")),                                            //
				airflowTask("runme_2", "BashOperator", jan2021, bash(runme), down("run_after_loop")),                                            //
				airflowTask("also_run_this", "BashOperator", jan2021, bash(`echo "ti_key={{ task_instance_key_str }}"`), down("run_this_last")), // :60-65
				airflowTask("this_will_skip", "BashOperator", jan2021, bash(`echo "hello world"; exit 99;`), down("run_this_last")),             // :68-74
			},
		},
		{
			// Airflow 3.2.1 example_dags/example_python_operator.py:46-143
			dagID: "example_python_operator", startDate: jan2021, catchup: false, tags: []string{"example"},
			tasks: pyTasks,
		},
		{
			// Airflow 3.2.1 example_dags/example_trigger_target_dag.py:44-57;
			// run_this is a @task.
			dagID: "example_trigger_target_dag", startDate: jan2021, catchup: false, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("run_this", "_PythonDecoratedOperator", jan2021),
				airflowTask("bash_task", "BashOperator", jan2021, bash(`echo "Here is the message: $message"`), func(t *wantTask) {
					t.env = map[string]string{"message": `{{ dag_run.conf.get("message") }}`}
				}),
			},
		},
		{
			// Airflow 3.2.1 example_dags/example_simplest_dag.py:24-33: @dag
			// with no arguments (no schedule, no start date; catchup off
			// by default in Airflow 3), one @task. The DAG Airflow's
			// Python client test (test_python_client.py) uses.
			dagID: "example_simplest_dag",
			tasks: []wantTask{airflowTask("my_task", "_PythonDecoratedOperator", nil)},
		},
		{
			// Airflow 3.2.1 example_dags/tutorial.py:41-128; dag.doc_md is set
			// twice (= __doc__, then a placeholder line, which stays).
			dagID: "tutorial", description: "A simple tutorial DAG", schedule: strPtr("1d"), startDate: jan2021,
			docMD: "A placeholder text, set anywhere in the file. (airlite's words: Airflow's\n" +
				"file has its own, which airlite does not copy.)\n",
			catchup: false, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("print_date", "BashOperator", jan2021, tutorialDefaults, bash("date"), down("sleep", "templated"), func(t *wantTask) {
					t.docMD = airliteDocMD
				}),
				airflowTask("sleep", "BashOperator", jan2021, tutorialDefaults, bash("sleep 5"), retries(3)),
				airflowTask("templated", "BashOperator", jan2021, tutorialDefaults, func(t *wantTask) {
					t.bashCommand = "\n{% for i in range(5) %}\n    echo \"{{ ds }}\"\n    echo \"{{ macros.ds_add(ds, 7)}}\"\n{% endfor %}\n"
				}),
			},
		},
		{
			// Airflow 3.2.1 example_dags/tutorial_taskflow_api.py:32-103: @dag,
			// three @task functions chained by their XComArgs; transform has
			// multiple_outputs=True, so it pushes its dict's keys and the
			// dict (task-sdk execution_time/task_runner.py
			// _push_xcom_if_needed); load returns None.
			dagID: "tutorial_taskflow_api", startDate: jan2021, tags: []string{"example"},
			docMD: "### TaskFlow API Tutorial Documentation\nA pipeline of three @task functions (extract, transform, load) that pass\n" +
				"their values through XCom. (airlite's words: Airflow documents this DAG with\nits own text, which airlite does not copy.)\n",
			tasks: []wantTask{
				airflowTask("extract", "_PythonDecoratedOperator", jan2021, down("transform"), doc(airliteTaskflowDocs["extract"]),
					pushes(map[string]any{"return_value": orders})),
				airflowTask("transform", "_PythonDecoratedOperator", jan2021, down("load"), doc(airliteTaskflowDocs["transform"]),
					pushes(map[string]any{"total_order_value": 1236.7, "return_value": map[string]any{"total_order_value": 1236.7}})),
				airflowTask("load", "_PythonDecoratedOperator", jan2021, doc(airliteTaskflowDocs["load"])),
			},
		},
		{
			// Airflow 3.2.1 example_dags/tutorial_dag.py:41-132:
			// default_args={"retries": 2}, three PythonOperators whose
			// callables push JSON strings with ti.xcom_push and return None.
			dagID: "tutorial_dag", description: "DAG tutorial", startDate: jan2021, tags: []string{"example"},
			docMD: "### Dag Tutorial Documentation\nAn extract, transform and load pipeline of three PythonOperators. (airlite's\n" +
				"words: Airflow documents this DAG with its own text, which airlite does not\ncopy.)\n",
			tasks: []wantTask{
				airflowTask("extract", "PythonOperator", jan2021, retries(2), down("transform"), doc(airliteTutorialDAGDocs["extract"]),
					pushes(map[string]any{"order_data": `{"1001": 301.27, "1002": 433.21, "1003": 502.22}`})),
				airflowTask("transform", "PythonOperator", jan2021, retries(2), down("load"), doc(airliteTutorialDAGDocs["transform"]),
					pushes(map[string]any{"total_order_value": `{"total_order_value": 1236.7}`})),
				airflowTask("load", "PythonOperator", jan2021, retries(2), doc(airliteTutorialDAGDocs["load"])),
			},
		},
		{
			// Airflow 3.2.1 example_dags/example_xcomargs.py, its first DAG
			// (dag_id="example_xcom_args"): print_value(generate_value()).
			dagID: "example_xcom_args", startDate: jan2021, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("generate_value", "_PythonDecoratedOperator", jan2021, down("print_value"), doc(airliteXComArgsDocs["generate_value"]),
					pushes(map[string]any{"return_value": "Bring me a shrubbery!"})),
				airflowTask("print_value", "_PythonDecoratedOperator", jan2021, doc(airliteXComArgsDocs["print_value"])),
			},
		},
		{
			// Airflow 3.2.1 example_dags/example_xcomargs.py, its second DAG: c >>
			// print_value >> print_value__1 (the second call's unique id,
			// task-sdk bases/decorator.py get_unique_task_id) >> d; both
			// BashOperators echo c.
			dagID: "example_xcom_args_with_operators", startDate: jan2021, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("c", "BashOperator", jan2021, bash("echo c"), down("print_value")),
				airflowTask("d", "BashOperator", jan2021, bash("echo c")),
				airflowTask("print_value", "_PythonDecoratedOperator", jan2021, down("print_value__1"), doc(airliteXComArgsDocs["print_value"])),
				airflowTask("print_value__1", "_PythonDecoratedOperator", jan2021, down("d"), doc(airliteXComArgsDocs["print_value"])),
			},
		},
		{
			// Airflow 3.2.1 example_dags/example_complex.py:30-221.
			dagID: "example_complex", startDate: jan2021, tags: []string{"example", "example2", "example3"},
			tasks: exampleComplexTasks(jan2021),
		},
		{
			// Airflow 3.2.1 example_dags/example_skip_dag.py: the file's
			// EmptySkipOperator raises AirflowSkipException (ui_color
			// "#e8b7e4"); create_test_pipeline names each join after its
			// trigger rule; schedule=timedelta(days=1).
			dagID: "example_skip_dag", schedule: strPtr("1d"), startDate: jan2021, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("skip_operator_1", "EmptySkipOperator", jan2021, down("all_success"), skipper),
				airflowTask("always_true_1", "EmptyOperator", jan2021, down("all_success")),
				airflowTask("all_success", "EmptyOperator", jan2021, down("final_1"), rule("all_success")),
				airflowTask("final_1", "EmptyOperator", jan2021),
				airflowTask("skip_operator_2", "EmptySkipOperator", jan2021, down("one_success"), skipper),
				airflowTask("always_true_2", "EmptyOperator", jan2021, down("one_success")),
				airflowTask("one_success", "EmptyOperator", jan2021, down("final_2"), rule("one_success")),
				airflowTask("final_2", "EmptyOperator", jan2021),
			},
		},
	}
}

// exampleComplexTasks are Airflow 3.2.1 example_complex.py's 37
// BashOperators, each echoing its task id (:38-150; :82-84 has
// create_tag_template_field_result2 echo create_tag_template_field_result),
// downstream of one another as the file's >> and chain() calls make them
// (:87-221; chain(create_tasks, search_catalog, delete_tasks) at :214
// puts search_catalog after every create task and before every delete
// task).
func exampleComplexTasks(start *time.Time) []wantTask {
	downstream := map[string][]string{
		"create_entry_group": {"create_entry_gcs", "create_entry_group_result", "create_entry_group_result2", "delete_entry_group", "get_entry_group", "search_catalog"},
		"create_entry_gcs": {"create_entry_gcs_result", "create_entry_gcs_result2", "create_tag_template", "delete_entry", "get_entry",
			"lookup_entry", "search_catalog", "update_entry"},
		"create_tag_template": {"create_tag_template_field", "create_tag_template_result", "create_tag_template_result2", "delete_tag_template_field",
			"get_tag_template", "search_catalog", "update_tag_template"},
		"create_tag_template_field": {"create_tag", "create_tag_template_field_result", "create_tag_template_field_result2", "delete_tag_template_field",
			"rename_tag_template_field", "search_catalog", "update_tag_template_field"},
		"create_tag":                {"create_tag_result", "create_tag_result2", "delete_tag", "list_tags", "search_catalog", "update_tag"},
		"delete_tag":                {"delete_tag_template_field"},
		"delete_tag_template_field": {"delete_tag_template"},
		"delete_tag_template":       {"delete_entry_group"},
		"delete_entry_group":        {"delete_entry"},
		"get_tag_template":          {"delete_tag_template", "get_tag_template_result"},
		"get_entry":                 {"delete_entry", "get_entry_result"},
		"get_entry_group":           {"delete_entry_group", "get_entry_group_result"},
		"list_tags":                 {"delete_tag", "list_tags_result"},
		"lookup_entry":              {"delete_entry", "lookup_entry_result"},
		"rename_tag_template_field": {"delete_tag_template_field"},
		"search_catalog":            {"delete_entry", "delete_entry_group", "delete_tag", "delete_tag_template", "delete_tag_template_field", "search_catalog_result"},
		"update_entry":              {"delete_entry"},
		"update_tag":                {"delete_tag"},
		"update_tag_template":       {"delete_tag_template"},
		"update_tag_template_field": {"rename_tag_template_field"},
	}
	ids := []string{"create_entry_group", "create_entry_group_result", "create_entry_group_result2", "create_entry_gcs",
		"create_entry_gcs_result", "create_entry_gcs_result2", "create_tag", "create_tag_result", "create_tag_result2",
		"create_tag_template", "create_tag_template_result", "create_tag_template_result2", "create_tag_template_field",
		"create_tag_template_field_result", "create_tag_template_field_result2", "delete_entry", "delete_entry_group",
		"delete_tag", "delete_tag_template_field", "delete_tag_template", "get_entry_group", "get_entry_group_result",
		"get_entry", "get_entry_result", "get_tag_template", "get_tag_template_result", "list_tags", "list_tags_result",
		"lookup_entry", "lookup_entry_result", "rename_tag_template_field", "search_catalog", "search_catalog_result",
		"update_entry", "update_tag", "update_tag_template", "update_tag_template_field"}
	var tasks []wantTask
	for _, id := range ids {
		cmd := "echo " + id
		if id == "create_tag_template_field_result2" {
			cmd = "echo create_tag_template_field_result"
		}
		tasks = append(tasks, airflowTask(id, "BashOperator", start, bash(cmd), down(downstream[id]...)))
	}
	return tasks
}

// orders is what tutorial_taskflow_api's extract returns (the file's JSON
// string, parsed).
var orders = map[string]any{"1001": 301.27, "1002": 433.21, "1003": 502.22}

// skipper is example_skip_dag's EmptySkipOperator: a task that skips, in
// its class's colour.
func skipper(t *wantTask) { t.uiColor, t.outcome = "#e8b7e4", "skipped" }

// The docstrings @task and the files make the tasks' doc_md, in airlite's
// words (docs/behaviour.md §5), as the fixtures carry them.
var (
	airliteTaskflowDocs = map[string]string{
		"extract": "#### Extract task\nReturns the three orders of a fixed JSON string. (airlite's words:\n" +
			"Airflow documents this task with its own text, which airlite does not copy.)\n",
		"transform": "#### Transform task\nAdds up the orders' values. (airlite's words: Airflow documents this\n" +
			"task with its own text, which airlite does not copy.)\n",
		"load": "#### Load task\nPrints the total it is given. (airlite's words: Airflow documents this\n" +
			"task with its own text, which airlite does not copy.)\n",
	}
	airliteTutorialDAGDocs = map[string]string{
		"extract": "#### Extract task\nPushes a fixed JSON string of orders to XCom. (airlite's words: Airflow\n" +
			"documents this task with its own text, which airlite does not copy.)\n",
		"transform": "#### Transform task\nPulls the orders, adds up their values and pushes the total as JSON.\n" +
			"(airlite's words: Airflow documents this task with its own text, which\nairlite does not copy.)\n",
		"load": "#### Load task\nPulls the total and prints it. (airlite's words: Airflow documents this\n" +
			"task with its own text, which airlite does not copy.)\n",
	}
	airliteXComArgsDocs = map[string]string{
		"generate_value": "A @task that returns a fixed string. (airlite's words for Airflow's docstring.)",
		"print_value":    "A @task that logs the value it is given. (airlite's words for Airflow's docstring.)",
	}
)

func airflow2103Examples() []wantDAG {
	jan2021 := timePtr(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC))
	jan2022 := timePtr(time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC))
	runme := `echo "{{ task_instance_key_str }}" && sleep 1`
	subdag := func(n string) wantDAG {
		// airflow/example_dags/subdags/subdag.py:38-51, with the parent's
		// default_args {"retries": 2} (example_subdag_operator.py:42,53,62).
		d := wantDAG{dagID: "example_subdag_operator." + n, schedule: strPtr("@daily"), startDate: jan2021, catchup: false}
		for i := 1; i <= 5; i++ {
			d.tasks = append(d.tasks, airflowTask(n+"-task-"+string(rune('0'+i)), "EmptyOperator", jan2021, retries(2)))
		}
		return d
	}
	tutorialDefaults := func(t *wantTask) { // tutorial.py:46-66
		t.email, t.emailOnFail, t.emailOnRetry, t.retries = []any{"airflow@example.com"}, false, false, 1
	}
	return []wantDAG{
		{
			// Airflow 2.10.3 airflow/example_dags/example_bash_operator.py:30-38
			dagID: "example_bash_operator", schedule: strPtr("0 0 * * *"), startDate: jan2021, catchup: false,
			tags: []string{"example", "example2"}, dagrunTimeout: 60 * time.Minute,
			params: map[string]any{"example_key": "example_value"},
			tasks: []wantTask{
				airflowTask("runme_0", "BashOperator", jan2021, bash(runme), down("run_after_loop")), // :52-57
				airflowTask("runme_1", "BashOperator", jan2021, bash(runme), down("run_after_loop")),
				airflowTask("runme_2", "BashOperator", jan2021, bash(runme), down("run_after_loop")),
				airflowTask("run_after_loop", "BashOperator", jan2021, bash("echo https://airflow.apache.org/"), down("run_this_last")),         // :44-50
				airflowTask("also_run_this", "BashOperator", jan2021, bash(`echo "ti_key={{ task_instance_key_str }}"`), down("run_this_last")), // :60-65
				airflowTask("this_will_skip", "BashOperator", jan2021, bash(`echo "hello world"; exit 99;`), down("run_this_last")),             // :68-74
				airflowTask("run_this_last", "EmptyOperator", jan2021),                                                                          // :39-41
			},
		},
		{
			// Airflow 2.10.3 tests/system/providers/papermill/example_papermill.py:32-52
			dagID: "example_papermill_operator", schedule: strPtr("0 0 * * *"), startDate: jan2021, catchup: false,
			tags: []string{"example"}, dagrunTimeout: 60 * time.Minute,
			tasks: []wantTask{airflowTask("run_example_notebook", "PapermillOperator", jan2021)},
		},
		{
			// Airflow 2.10.3 airflow/example_dags/example_python_operator.py:45-89;
			// the virtualenv tasks (:92-151) exist only with virtualenv installed.
			dagID: "example_python_operator", startDate: jan2021, catchup: false, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("print_the_context", "PythonOperator", jan2021, down("log_sql_query")),                                                       // :63
				airflowTask("log_sql_query", "PythonOperator", jan2021, down("sleep_for_0", "sleep_for_1", "sleep_for_2", "sleep_for_3", "sleep_for_4")), // :70-75, :89
				airflowTask("sleep_for_0", "PythonOperator", jan2021),                                                                                    // :84-87
				airflowTask("sleep_for_1", "PythonOperator", jan2021),
				airflowTask("sleep_for_2", "PythonOperator", jan2021),
				airflowTask("sleep_for_3", "PythonOperator", jan2021),
				airflowTask("sleep_for_4", "PythonOperator", jan2021),
			},
		},
		{
			// Airflow 2.10.3 airflow/example_dags/example_subdag_operator.py:40-69;
			// catchup is [scheduler] catchup_by_default, True.
			dagID: "example_subdag_operator", schedule: strPtr("@once"), startDate: jan2022, catchup: true, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("start", "EmptyOperator", jan2022, retries(2), down("section-1")),
				airflowTask("section-1", "SubDagOperator", jan2022, retries(2), down("some-other-task"), func(t *wantTask) { t.subdag = "example_subdag_operator.section-1" }),
				airflowTask("some-other-task", "EmptyOperator", jan2022, retries(2), down("section-2")),
				airflowTask("section-2", "SubDagOperator", jan2022, retries(2), down("end"), func(t *wantTask) { t.subdag = "example_subdag_operator.section-2" }),
				airflowTask("end", "EmptyOperator", jan2022, retries(2)),
			},
		},
		subdag("section-1"),
		subdag("section-2"),
		{
			// Airflow 2.10.3 airflow/example_dags/example_trigger_target_dag.py:33-56;
			// run_this is a @task, whose operator is _PythonDecoratedOperator.
			dagID: "example_trigger_target_dag", startDate: jan2021, catchup: false, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("run_this", "_PythonDecoratedOperator", jan2021),
				airflowTask("bash_task", "BashOperator", jan2021, bash(`echo "Here is the message: $message"`), func(t *wantTask) {
					t.env = map[string]string{"message": `{{ dag_run.conf.get("message") }}`}
				}),
			},
		},
		{
			// Airflow 2.10.3 airflow/example_dags/tutorial.py:41-73
			dagID: "tutorial", description: "A simple tutorial DAG", schedule: strPtr("1d"), startDate: jan2021,
			catchup: false, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("print_date", "BashOperator", jan2021, tutorialDefaults, bash("date"), down("sleep", "templated"), func(t *wantTask) { // :78-81, :126
					// :92-101 sets doc_md in Airflow's own words; airlite carries its own text (docs/behaviour.md §5)
					t.docMD = airliteDocMD
				}),
				airflowTask("sleep", "BashOperator", jan2021, tutorialDefaults, bash("sleep 5"), retries(3)), // :83-88
				airflowTask("templated", "BashOperator", jan2021, tutorialDefaults, func(t *wantTask) { // :110-123
					t.bashCommand = "\n{% for i in range(5) %}\n    echo \"{{ ds }}\"\n    echo \"{{ macros.ds_add(ds, 7)}}\"\n{% endfor %}\n"
				}),
			},
		},
	}
}

func airflow11015Examples(now time.Time) []wantDAG {
	// days_ago(2), airflow/utils/dates.py:233-243: midnight UTC, two days back.
	twoDaysAgo := timePtr(time.Date(now.Year(), now.Month(), now.Day()-2, 0, 0, 0, 0, time.UTC))
	// args = {'owner': 'Airflow', 'start_date': days_ago(2)}, in most examples.
	exampleArgs := owner("Airflow")
	runme := `echo "{{ task_instance_key_str }}" && sleep 1`
	subdag := func(n string) wantDAG {
		// airflow/example_dags/subdags/subdag.py:26-37: the parent's args
		// (example_subdag_operator.py:31-34,50,61), catchup by default.
		d := wantDAG{dagID: "example_subdag_operator." + n, schedule: strPtr("@daily"), defaultArgsStart: twoDaysAgo, catchup: true}
		for i := 1; i <= 5; i++ {
			d.tasks = append(d.tasks, airflowTask(n+"-task-"+string(rune('0'+i)), "DummyOperator", twoDaysAgo, exampleArgs))
		}
		return d
	}
	tutorialDefaults := func(t *wantTask) { // tutorial.py:40-62
		t.email, t.emailOnFail, t.emailOnRetry, t.retries = []any{"airflow@example.com"}, false, false, 1
	}
	return []wantDAG{
		{
			// Airflow 1.10.15 airflow/example_dags/example_bash_operator.py:28-39;
			// catchup is [scheduler] catchup_by_default, True.
			dagID: "example_bash_operator", schedule: strPtr("0 0 * * *"), defaultArgsStart: twoDaysAgo, catchup: true,
			tags: []string{"example"}, dagrunTimeout: 60 * time.Minute,
			tasks: []wantTask{
				airflowTask("runme_0", "BashOperator", twoDaysAgo, exampleArgs, bash(runme), down("run_after_loop")), // :56-62
				airflowTask("runme_1", "BashOperator", twoDaysAgo, exampleArgs, bash(runme), down("run_after_loop")),
				airflowTask("runme_2", "BashOperator", twoDaysAgo, exampleArgs, bash(runme), down("run_after_loop")),
				airflowTask("run_after_loop", "BashOperator", twoDaysAgo, exampleArgs, bash("echo 1"), down("run_this_last")),                                            // :47-54
				airflowTask("also_run_this", "BashOperator", twoDaysAgo, exampleArgs, bash(`echo "run_id={{ run_id }} | dag_run={{ dag_run }}"`), down("run_this_last")), // :65-71
				airflowTask("run_this_last", "DummyOperator", twoDaysAgo, exampleArgs),                                                                                   // :41-44
			},
		},
		{
			// Airflow 1.10.15 airflow/contrib/example_dags/example_papermill_operator.py:32-49
			dagID: "example_papermill_operator", schedule: strPtr("0 0 * * *"), defaultArgsStart: twoDaysAgo, catchup: true,
			dagrunTimeout: 60 * time.Minute,
			tasks:         []wantTask{airflowTask("run_example_notebook", "PapermillOperator", twoDaysAgo, exampleArgs)},
		},
		{
			// Airflow 1.10.15 airflow/example_dags/example_python_operator.py:31-75
			dagID: "example_python_operator", defaultArgsStart: twoDaysAgo, catchup: true, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("print_the_context", "PythonOperator", twoDaysAgo, exampleArgs, down("sleep_for_0", "sleep_for_1", "sleep_for_2", "sleep_for_3", "sleep_for_4")), // :51-56, :75
				airflowTask("sleep_for_0", "PythonOperator", twoDaysAgo, exampleArgs),                                                                                        // :67-73
				airflowTask("sleep_for_1", "PythonOperator", twoDaysAgo, exampleArgs),
				airflowTask("sleep_for_2", "PythonOperator", twoDaysAgo, exampleArgs),
				airflowTask("sleep_for_3", "PythonOperator", twoDaysAgo, exampleArgs),
				airflowTask("sleep_for_4", "PythonOperator", twoDaysAgo, exampleArgs),
			},
		},
		{
			// Airflow 1.10.15 airflow/example_dags/example_subdag_operator.py:31-70
			dagID: "example_subdag_operator", schedule: strPtr("@once"), defaultArgsStart: twoDaysAgo, catchup: true, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("start", "DummyOperator", twoDaysAgo, exampleArgs, down("section-1")),
				airflowTask("section-1", "SubDagOperator", twoDaysAgo, exampleArgs, down("some-other-task"), func(t *wantTask) { t.subdag = "example_subdag_operator.section-1" }),
				airflowTask("some-other-task", "DummyOperator", twoDaysAgo, exampleArgs, down("section-2")),
				airflowTask("section-2", "SubDagOperator", twoDaysAgo, exampleArgs, down("end"), func(t *wantTask) { t.subdag = "example_subdag_operator.section-2" }),
				airflowTask("end", "DummyOperator", twoDaysAgo, exampleArgs),
			},
		},
		subdag("section-1"),
		subdag("section-2"),
		{
			// Airflow 1.10.15 airflow/example_dags/example_trigger_target_dag.py:46-72
			dagID: "example_trigger_target_dag", defaultArgsStart: twoDaysAgo, catchup: true, tags: []string{"example"},
			tasks: []wantTask{
				airflowTask("run_this", "PythonOperator", twoDaysAgo, exampleArgs),
				airflowTask("bash_task", "BashOperator", twoDaysAgo, exampleArgs, bash(`echo "Here is the message: $message"`), func(t *wantTask) {
					t.env = map[string]string{"message": `{{ dag_run.conf["message"] if dag_run else "" }}`}
				}),
			},
		},
		{
			// Airflow 1.10.15 airflow/example_dags/tutorial.py:40-71 (no tags)
			dagID: "tutorial", description: "A simple tutorial DAG", schedule: strPtr("1d"), defaultArgsStart: twoDaysAgo, catchup: true,
			tasks: []wantTask{
				airflowTask("print_date", "BashOperator", twoDaysAgo, tutorialDefaults, bash("date"), down("sleep", "templated"), func(t *wantTask) { // :76-80, :121
					t.docMD = airliteDocMD // :94-100 sets doc_md in Airflow's own words (docs/behaviour.md §5)
				}),
				airflowTask("sleep", "BashOperator", twoDaysAgo, tutorialDefaults, bash("sleep 5"), retries(3)), // :82-88
				airflowTask("templated", "BashOperator", twoDaysAgo, tutorialDefaults, func(t *wantTask) { // :104-118
					t.bashCommand = "\n{% for i in range(5) %}\n    echo \"{{ ds }}\"\n    echo \"{{ macros.ds_add(ds, 7)}}\"\n    echo \"{{ params.my_param }}\"\n{% endfor %}\n"
					t.params = map[string]any{"my_param": "Parameter I passed in"}
				}),
			},
		},
	}
}

func TestExampleDAGs_MatchAirflow(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC)
	for _, e := range append(slices.Clone(allEditions), edition3) {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			set, err := loadExampleDAGs(e.rules(), now)
			if err != nil {
				t.Fatalf("loadExampleDAGs: %v", err)
			}
			want := airflowExamples(e.rules().version, now)
			var gotIDs, wantIDs []string
			for _, d := range set.DAGs {
				gotIDs = append(gotIDs, d.DagID)
			}
			for _, w := range want {
				wantIDs = append(wantIDs, w.dagID)
			}
			slices.Sort(wantIDs)
			if !slices.Equal(gotIDs, wantIDs) {
				t.Fatalf("examples %v, want %v", gotIDs, wantIDs)
			}
			byID := map[string]*DAG{}
			for _, d := range set.DAGs {
				byID[d.DagID] = d
			}
			for _, w := range want {
				checkExampleDAG(t, byID[w.dagID], w)
			}
		})
	}
}

func checkExampleDAG(t *testing.T, d *DAG, w wantDAG) {
	t.Helper()
	field := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s = %#v, want %#v", w.dagID, name, got, want)
		}
	}
	field("description", d.Description, w.description)
	field("doc_md", d.DocMD, w.docMD)
	field("schedule", d.Schedule, w.schedule)
	field("start_date", d.StartDate, w.startDate)
	field("default_args start_date", d.DefaultArgsStartDate, w.defaultArgsStart)
	field("catchup", d.Catchup, w.catchup)
	field("tags", d.Tags, w.tags)
	field("dagrun_timeout", d.DagrunTimeout, w.dagrunTimeout)
	field("params", d.Params, w.params)
	var gotTasks, wantTasks []string
	for _, task := range d.Tasks {
		gotTasks = append(gotTasks, task.TaskID)
	}
	for _, wt := range w.tasks {
		wantTasks = append(wantTasks, wt.id)
	}
	slices.Sort(gotTasks)
	slices.Sort(wantTasks)
	field("task ids", gotTasks, wantTasks)
	for _, wt := range w.tasks {
		task := d.Task(wt.id)
		if task == nil {
			continue
		}
		tf := func(name string, got, want any) {
			t.Helper()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s.%s: %s = %#v, want %#v", w.dagID, wt.id, name, got, want)
			}
		}
		tf("operator", task.Operator, wt.operator)
		tf("bash_command", task.BashCommand, wt.bashCommand)
		tf("env", task.Env, wt.env)
		tf("downstream", task.Downstream, orEmpty(wt.downstream))
		tf("owner", task.Owner, wt.owner)
		tf("retries", task.Retries, wt.retries)
		tf("retry_delay", task.RetryDelay, wt.retryDelay)
		tf("depends_on_past", task.DependsOnPast, wt.dependsOnPast)
		tf("email", task.Email, wt.email)
		tf("email_on_failure", task.EmailOnFailure, wt.emailOnFail)
		tf("email_on_retry", task.EmailOnRetry, wt.emailOnRetry)
		tf("params", task.Params, wt.params)
		tf("start_date", task.StartDate, wt.startDate)
		tf("trigger_rule", task.TriggerRule, wt.triggerRule)
		tf("subdag", task.Subdag, wt.subdag)
		tf("doc_md", task.DocMD, wt.docMD)
		tf("ui_color", task.UIColor, wt.uiColor)
		var outcome string
		var pushed map[string]any
		if sim := task.Simulate; sim != nil {
			if sim.Outcome != "success" {
				outcome = sim.Outcome
			}
			for key, raw := range sim.XCom {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatalf("%s.%s: xcom %s: %v", w.dagID, wt.id, key, err)
				}
				if pushed == nil {
					pushed = map[string]any{}
				}
				pushed[key] = v
			}
		}
		tf("simulated outcome", outcome, wt.outcome)
		tf("simulated xcom", pushed, wt.pushes)
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// airliteDocMD is the tutorial's print_date doc_md in airlite's words: the
// field is set where Airflow sets it, its prose is not copied.
const airliteDocMD = "#### print_date\n" +
	"Prints the date the task runs. (airlite's words: the tutorial in Airflow\n" +
	"documents this task with its own text, which airlite does not copy.)\n"

// TestExamples3_RunAsInAirflow triggers each example added to edition 3
// beyond the first five through /api/v2, as a client would, and lets the
// scheduler run it: every DAG is listed, each run ends as Airflow's does
// (example_skip_dag's skip operators skip, which skips the all_success
// join and what follows it, while the one_success join runs), and the
// simulated callables leave the XComs Airflow's task runner pushes.
func TestExamples3_RunAsInAirflow(t *testing.T) {
	t.Parallel()
	success := func(ids ...string) map[string]string {
		m := map[string]string{}
		for _, id := range ids {
			m[id] = "success"
		}
		return m
	}
	var complexIDs []string
	for _, task := range exampleComplexTasks(nil) {
		complexIDs = append(complexIDs, task.id)
	}
	for _, tc := range []struct {
		dagID string
		tasks map[string]string // task id -> state
		xcoms map[string]string // "task/key" -> the entry's value as /api/v2 shows it: what the task pushed
	}{
		{"tutorial_taskflow_api", success("extract", "transform", "load"), map[string]string{
			"extract/return_value":        `{"1001":301.27,"1002":433.21,"1003":502.22}`,
			"transform/total_order_value": `1236.7`,
			"transform/return_value":      `{"total_order_value":1236.7}`,
		}},
		{"tutorial_dag", success("extract", "transform", "load"), map[string]string{
			"extract/order_data":          `"{\"1001\": 301.27, \"1002\": 433.21, \"1003\": 502.22}"`,
			"transform/total_order_value": `"{\"total_order_value\": 1236.7}"`,
		}},
		{"example_xcom_args", success("generate_value", "print_value"), map[string]string{
			"generate_value/return_value": `"Bring me a shrubbery!"`,
		}},
		{"example_xcom_args_with_operators", success("c", "print_value", "print_value__1", "d"), map[string]string{
			"c/return_value": `"c"`,
			"d/return_value": `"c"`,
		}},
		{"example_complex", success(complexIDs...), nil},
		{"example_skip_dag", map[string]string{
			"skip_operator_1": "skipped", "always_true_1": "success", "all_success": "skipped", "final_1": "skipped",
			"skip_operator_2": "skipped", "always_true_2": "success", "one_success": "success", "final_2": "success",
		}, nil},
	} {
		t.Run(tc.dagID, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, edition3, withExamplesPaused())
			expect(t, ts.do(t, "GET", "/api/v2/dags?limit=100", ""), 200, `"dag_id":"`+tc.dagID+`"`)
			expect(t, ts.do(t, "PATCH", "/api/v2/dags/"+tc.dagID, `{"is_paused": false}`), 200)
			expect(t, ts.do(t, "POST", "/api/v2/dags/"+tc.dagID+"/dagRuns", `{"dag_run_id": "check", "logical_date": null}`), 200)
			sched := newScheduler(schedulerOptions{Store: ts.store, Edition: edition3, Logger: zerolog.New(zerolog.NewTestWriter(t)),
				Now: time.Now, Parallelism: 16, Unixname: testUnixname, Hostname: "test"})
			t.Cleanup(sched.stop)
			settleUntil(t, sched, time.Now, func() bool {
				run, err := ts.store.RunByRunID(tc.dagID, "check")
				return err == nil && run.State.Finished()
			})
			run := "/api/v2/dags/" + tc.dagID + "/dagRuns/check"
			expect(t, ts.do(t, "GET", run, ""), 200, `"state":"success"`)
			res := ts.do(t, "GET", run+"/taskInstances?limit=100", "")
			var tis struct {
				TaskInstances []struct {
					TaskID string `json:"task_id"`
					State  string `json:"state"`
				} `json:"task_instances"`
			}
			if err := json.Unmarshal([]byte(res.body), &tis); err != nil || res.status != 200 {
				t.Fatalf("task instances = %d %s", res.status, res.body)
			}
			got := map[string]string{}
			for _, ti := range tis.TaskInstances {
				got[ti.TaskID] = ti.State
			}
			if !reflect.DeepEqual(got, tc.tasks) {
				t.Errorf("task states %v, want %v", got, tc.tasks)
			}
			for taskKey, value := range tc.xcoms {
				task, key, _ := strings.Cut(taskKey, "/")
				expect(t, ts.do(t, "GET", run+"/taskInstances/"+task+"/xcomEntries/"+key, ""), 200, `"value":`+value+`}`)
			}
		})
	}
}
