package main

// The builder's cost for a folder of many DAG files, without the Python
// reader: issue #22 asks for 500 generated DAG files read in under 10 s
// by one process, and the Go side of that is buildDAG (schedules, task
// checks and, above all, the templates of BashOperators). BENCHMARKS.md
// has the figures and the commands.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchDAGFileSpecs reads the specs of files generated files, each of
// three DAGs of thirteen tasks as in BENCHMARKS.md's 500-file folder:
// BashOperators whose commands print dates, ids, params and the conf (a
// request value, so a shell plan is placed), env values with templates,
// Python and empty operators.
func benchDAGFileSpecs(tb testing.TB, files int) []*dagSpec {
	tb.Helper()
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var specs []*dagSpec
	for f := range files {
		for d := range 3 {
			text := benchDAGFileText(fmt.Sprintf("gen_%04d_%d", f, d))
			spec, err := readYAMLDAG([]byte(text), now)
			if err != nil {
				tb.Fatalf("read generated DAG: %v\n%s", err, text)
			}
			specs = append(specs, spec)
		}
	}
	return specs
}

// benchDAGFileText is one generated DAG of thirteen tasks.
func benchDAGFileText(dagID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dag_id: %s\nschedule: \"0 0 * * *\"\nstart_date: 2021-01-01T00:00:00+00:00\ncatchup: false\n", dagID)
	b.WriteString("params: {example_key: example_value}\ntasks:\n")
	bash := []string{
		`echo "{{ task_instance_key_str }}" && sleep 1`,
		`echo "ds={{ ds }} next={{ macros.ds_add(ds, 7) }}"`,
		`echo "run {{ run_id }} of {{ dag.dag_id }}"`,
		`echo "{{ params.example_key }}"`,
		`echo "conf={{ dag_run.conf.get('x', 1) }}" > /dev/null`,
		`{% for i in range(3) %}echo {{ i }} {{ ds_nodash }};{% endfor %}`,
		`echo https://airflow.apache.org/`,
		`echo "{{ ti.try_number }}"; exit 0`,
	}
	for i, cmd := range bash {
		fmt.Fprintf(&b, "  - task_id: bash_%d\n    operator: BashOperator\n    bash_command: '%s'\n", i, strings.ReplaceAll(cmd, "'", "''"))
		if i%3 == 0 {
			b.WriteString("    env: {DAY: '{{ ds }}', KEY: '{{ params.example_key }}'}\n")
		}
		b.WriteString("    downstream: [last]\n")
	}
	for i := range 3 {
		fmt.Fprintf(&b, "  - task_id: py_%d\n    operator: PythonOperator\n    downstream: [last]\n", i)
	}
	b.WriteString("  - task_id: first\n    operator: EmptyOperator\n    downstream: [bash_0]\n")
	b.WriteString("  - task_id: last\n    operator: EmptyOperator\n")
	return b.String()
}

// BenchmarkBuildDAGs500 builds the DAGs of 500 generated files (1,500
// DAGs, 19,500 tasks, 12,000 templates) for edition 2 and edition 3.
func BenchmarkBuildDAGs500(b *testing.B) {
	specs := benchDAGFileSpecs(b, benchSize(500, 20))
	for _, e := range []edition{edition2, edition3} {
		b.Run(string(e), func(b *testing.B) {
			rules := e.rules()
			for b.Loop() {
				for _, s := range specs {
					if _, err := buildDAG(s, rules); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestBenchDAGFiles checks that the generated files build in every
// edition, with the templates the benchmark means to measure.
func TestBenchDAGFiles(t *testing.T) {
	for _, e := range []edition{edition2, edition3} {
		for _, s := range benchDAGFileSpecs(t, 1) {
			dag, err := buildDAG(s, e.rules())
			if err != nil {
				t.Fatalf("edition %s: %v", e, err)
			}
			if len(dag.Tasks) != 13 {
				t.Fatalf("edition %s: %d tasks, want 13", e, len(dag.Tasks))
			}
			if values := dag.taskByID["bash_4"].shellPlan.exprs[0].valueVar; values == "" {
				t.Fatalf("edition %s: the conf print is not a request value", e)
			}
		}
	}
}
