package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The builder reads a spec, not a file: a spec filled by hand, as a Python
// front end will fill one, gives the DAG a YAML file gives, and its errors
// name the lines the spec carries.
func TestBuildDAG_FromASpec(t *testing.T) {
	t.Parallel()
	daily, retries, zero := "@daily", 2, 0
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := &dagSpec{
		Pos: specPos{Line: 1}, DagID: "etl", Fileloc: "dags/etl.py",
		Schedule:  scheduleSpec{Given: true, Expr: &daily},
		StartDate: &start,
		Tasks: []taskSpec{
			{Pos: specPos{Line: 10}, TaskID: "extract", Operator: "BashOperator", BashCommand: "echo {{ ds }}", Retries: &retries},
			{Pos: specPos{Line: 20}, TaskID: "load", Operator: "EmptyOperator", Upstream: []string{"extract"}},
		},
	}
	built, err := buildDAG(spec, edition2.rules())
	if err != nil {
		t.Fatalf("buildDAG: %v", err)
	}
	read, err := parseDAGAt([]byte(`dag_id: etl
schedule: '@daily'
start_date: 2024-01-01
tasks:
  - {task_id: extract, operator: BashOperator, bash_command: 'echo {{ ds }}', retries: 2}
  - {task_id: load, operator: EmptyOperator, upstream: [extract]}
`), start)
	if err != nil {
		t.Fatalf("parseDAGAt: %v", err)
	}
	read.FilePath = "dags/etl.py"
	built.idLine, built.taskLines, read.idLine, read.taskLines = 0, nil, 0, nil
	if !reflect.DeepEqual(built, read) {
		t.Errorf("built from a spec:\n%+v\nread from YAML:\n%+v", built, read)
	}
	if got := built.Task("extract").TotalWeight; got != 2 {
		t.Errorf("extract's downstream weight = %d, want 2", got)
	}

	spec.Tasks[1].PoolSlots, spec.Tasks[1].PoolSlotsPos = &zero, specPos{Line: 23}
	if _, err := buildDAG(spec, edition2.rules()); err == nil || err.Error() != `line 23: task "load": pool_slots must be at least 1, not 0` {
		t.Errorf("buildDAG = %v, want the spec's line", err)
	}
	spec.Tasks[1].PoolSlotsPos = specPos{} // not written: the task's line
	if _, err := buildDAG(spec, edition2.rules()); err == nil || err.Error() != `line 20: task "load": pool_slots must be at least 1, not 0` {
		t.Errorf("buildDAG = %v, want the task's line", err)
	}
}

// A file with several problems reports the first a reader meets, whether
// the front end (a key it cannot read) or the builder (a value it refuses)
// finds it.
func TestBuildDAG_FirstProblemInReadingOrder(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, yaml, want string }{
		{"bad schedule before an unknown default_args key",
			"dag_id: x\nschedule: 'not a schedule'\ndefault_args: {ownr: me}\n" + oneTask,
			`line 2: schedule "not a schedule": want a cron expression with five fields, a preset (@daily) or a duration (1d, 6h)`},
		{"a refused task before an unreadable one",
			"dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, retries: -1}\n  - {task_id: b, operatr: EmptyOperator}\n",
			`line 3: task "a": retries must be 0 or more, not -1`},
		{"an unreadable task before a refused one",
			"dag_id: x\ntasks:\n  - {task_id: a, operatr: EmptyOperator}\n  - {task_id: b, operator: EmptyOperator, retries: -1}\n",
			`line 3: unknown key "operatr" (did you mean operator?)`},
		{"a refused task before tasks that are not mappings",
			"dag_id: x\ntasks:\n  - {task_id: a, operator: Nope}\n  - just a word\n",
			`line 3: task "a": unknown operator "Nope": no Airflow operator or sensor has that name; give the task a simulate: block to run it as a simulated task`},
		{"an unreadable task before an unknown upstream",
			"dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, upstream: [zz]}\n  - {task_id: b, operator: EmptyOperator, colour: red}\n",
			`line 4: unknown key "colour" in a task (it takes task_id, operator, bash_command, env, cwd, execution_timeout, upstream, downstream, retries, retry_delay, retry_exponential_backoff, max_retry_delay, pool, pool_slots, priority_weight, weight_rule, trigger_rule, queue, owner, email, email_on_failure, email_on_retry, depends_on_past, start_date, end_date, params, subdag, simulate, do_xcom_push, inlets, outlets, doc_md, ui_color)`},
		{"an unreadable default_args with no tasks",
			"dag_id: x\ndefault_args: {ownr: me}\n",
			`line 2: unknown key "ownr" (did you mean owner?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseDAG([]byte(tc.yaml)); err == nil || err.Error() != tc.want {
				t.Errorf("parseDAG = %v\nwant %s", err, tc.want)
			}
		})
	}
	pools := "- {name: a, slots: 1}\n- {name: a, slots: 2}\n- {name: b, slotz: 3}\n"
	if _, err := readPools([]byte(pools)); err == nil || err.Error() != `line 2: duplicate pool "a" (first at line 1)` {
		t.Errorf("readPools = %v, want the duplicate before the unknown key", err)
	}
}

// No edition stands in for another: a loader or a template context
// without its edition's rules is refused loudly, not served as edition 2.
func TestNoEditionFallback(t *testing.T) {
	t.Parallel()
	refused := func(t *testing.T, what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s without an edition's rules went ahead", what)
			}
		}()
		f()
	}
	refused(t, "dagLoader.load", func() { _, _ = dagLoader{}.load(nil, "dags") })
	refused(t, "buildDAG", func() { _, _ = buildDAG(&dagSpec{DagID: "d"}, nil) })
	dag, err := parseDAG([]byte("dag_id: d\ntasks:\n  - {task_id: t, operator: BashOperator, bash_command: 'echo {{ ds }}'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	task := dag.Task("t")
	run := &DagRun{DagID: "d", RunID: "r", ExecutionDate: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	refused(t, "templateContext", func() { _, _, _ = templateContext{dag: dag, task: task, run: run, try: 1}.renderShell(task.shellPlan) })
}

// Only the edition table picks an edition's rules: no DAG or template
// file names one edition's rules or operators, which is how a silent
// fallback would come back.
func TestNoEditionFallback_Source(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{"rules2": true, "rules110": true, "rules110RBAC": true, "operators2": true, "operators110": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || !(strings.HasPrefix(name, "dag") || strings.HasPrefix(name, "template")) {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		defined := map[*ast.Ident]bool{} // a declaration names them too
		ast.Inspect(file, func(n ast.Node) bool {
			if spec, ok := n.(*ast.ValueSpec); ok {
				for _, id := range spec.Names {
					defined[id] = true
				}
			}
			if id, ok := n.(*ast.Ident); ok && forbidden[id.Name] && !defined[id] {
				t.Errorf("%s: %s names %s: take the edition's rules from the caller", fset.Position(id.Pos()), name, id.Name)
			}
			return true
		})
	}
}

// TestBuildDAG_CatchupByDefault: a DAG file that names no catchup
// catches up as the release's [scheduler] catchup_by_default says: True
// before Airflow 3, False in 3.0+ (airflow-core config.yml
// catchup_by_default); a file that names it keeps it.
func TestBuildDAG_CatchupByDefault(t *testing.T) {
	t.Parallel()
	const unnamed = "dag_id: d\nschedule_interval: '@daily'\nstart_date: 2024-01-01\ntasks:\n  - {task_id: t, operator: BashOperator, bash_command: 'true'}\n"
	const named = "dag_id: d\nschedule_interval: '@daily'\nstart_date: 2024-01-01\ncatchup: true\ntasks:\n  - {task_id: t, operator: BashOperator, bash_command: 'true'}\n"
	for _, tc := range []struct {
		e          edition
		text       string
		wantCaught bool
	}{
		{edition110, unnamed, true},
		{edition2, unnamed, true},
		{edition3, unnamed, false},
		{edition3, named, true},
	} {
		d, err := parseDAGFor([]byte(tc.text), time.Now(), tc.e.rules())
		if err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		if d.Catchup != tc.wantCaught {
			t.Errorf("edition %s, catchup named %t: Catchup = %t, want %t", tc.e, tc.text == named, d.Catchup, tc.wantCaught)
		}
	}
}
