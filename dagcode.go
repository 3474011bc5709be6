package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// operatorImports maps operators to the Airflow 2 module that defines them,
// for the Python rendering of a definition.
var operatorImports = map[string]string{
	"BashOperator":         "airflow.operators.bash",
	"EmptyOperator":        "airflow.operators.empty",
	"DummyOperator":        "airflow.operators.dummy",
	"PythonOperator":       "airflow.operators.python",
	"SubDagOperator":       "airflow.operators.subdag",
	"BranchPythonOperator": "airflow.operators.python",
}

// renderPython writes a definition as the Airflow DAG file a user would have
// written, for GET /dags/<dag_id>/code when no .py file sits beside it.
func renderPython(d *DAG) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"DAG %s, rendered by airlite from %s.\"\"\"\n\n", d.DagID, d.FilePath)
	b.WriteString("import datetime\n\nimport pendulum\n\nfrom airflow import DAG\n")
	modules := map[string][]string{}
	for _, t := range d.Tasks {
		mod, ok := operatorImports[t.Operator]
		if !ok {
			mod = "airflow.operators.other"
		}
		if !containsString(modules[mod], t.Operator) {
			modules[mod] = append(modules[mod], t.Operator)
		}
	}
	mods := make([]string, 0, len(modules))
	for m := range modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		sort.Strings(modules[m])
		fmt.Fprintf(&b, "from %s import %s\n", m, strings.Join(modules[m], ", "))
	}
	b.WriteString("\nwith DAG(\n")
	fmt.Fprintf(&b, "    dag_id=%s,\n", pyQuote(d.DagID))
	if d.Description != "" {
		fmt.Fprintf(&b, "    description=%s,\n", pyQuote(d.Description))
	}
	if d.Schedule == nil {
		b.WriteString("    schedule=None,\n")
	} else {
		fmt.Fprintf(&b, "    schedule=%s,\n", pyQuote(*d.Schedule))
	}
	if d.StartDate != nil {
		fmt.Fprintf(&b, "    start_date=%s,\n", pyPendulum(*d.StartDate))
	}
	if d.EndDate != nil {
		fmt.Fprintf(&b, "    end_date=%s,\n", pyPendulum(*d.EndDate))
	}
	fmt.Fprintf(&b, "    catchup=%s,\n", pyRepr(d.Catchup))
	if d.DagrunTimeout != 0 {
		fmt.Fprintf(&b, "    dagrun_timeout=%s,\n", pyTimedeltaCall(d.DagrunTimeout))
	}
	if len(d.Tags) > 0 {
		fmt.Fprintf(&b, "    tags=%s,\n", pyRepr(d.Tags))
	}
	if len(d.Params) > 0 {
		fmt.Fprintf(&b, "    params=%s,\n", pyRepr(d.Params))
	}
	if len(d.DefaultArgs) > 0 {
		fmt.Fprintf(&b, "    default_args=%s,\n", pyRepr(d.DefaultArgs))
	}
	b.WriteString(") as dag:\n")
	for _, t := range d.Tasks {
		fmt.Fprintf(&b, "    %s = %s(\n        task_id=%s,\n", pyIdent(t.TaskID), t.Operator, pyQuote(t.TaskID))
		if t.BashCommand != "" {
			fmt.Fprintf(&b, "        bash_command=%s,\n", pyQuote(t.BashCommand))
		}
		if t.Subdag != "" {
			fmt.Fprintf(&b, "        subdag=%s,  # defined in its own file\n", pyQuote(t.Subdag))
		}
		if t.Retries != 0 {
			fmt.Fprintf(&b, "        retries=%d,\n", t.Retries)
		}
		if t.Pool != defaultPoolName {
			fmt.Fprintf(&b, "        pool=%s,\n", pyQuote(t.Pool))
		}
		if t.TriggerRule != "all_success" {
			fmt.Fprintf(&b, "        trigger_rule=%s,\n", pyQuote(t.TriggerRule))
		}
		b.WriteString("    )\n")
	}
	var edges []string
	for _, t := range d.Tasks {
		for _, down := range t.Downstream {
			edges = append(edges, fmt.Sprintf("    %s >> %s\n", pyIdent(t.TaskID), pyIdent(down)))
		}
	}
	if len(edges) > 0 {
		b.WriteString("\n")
		b.WriteString(strings.Join(edges, ""))
	}
	return b.String()
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pyIdent turns a task id into a Python variable name.
func pyIdent(id string) string {
	s := strings.NewReplacer("-", "_", ".", "_").Replace(id)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "task_" + s
	}
	return s
}

func pyPendulum(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return fmt.Sprintf("pendulum.datetime(%d, %d, %d, tz=\"UTC\")", t.Year(), t.Month(), t.Day())
	}
	return fmt.Sprintf("pendulum.datetime(%d, %d, %d, %d, %d, %d, tz=\"UTC\")",
		t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
}

func pyTimedeltaCall(d time.Duration) string {
	return fmt.Sprintf("datetime.timedelta(seconds=%s)", pyFloatRepr(d.Seconds()))
}
