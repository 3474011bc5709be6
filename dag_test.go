package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// oneTask is a minimal valid task list.
const oneTask = "tasks:\n  - {task_id: a, operator: EmptyOperator}\n"

func TestLoadDAGs_Errors(t *testing.T) {
	t.Parallel()
	sub := func(parent, child string) fstest.MapFS {
		return fstest.MapFS{
			"parent.yaml": {Data: []byte("dag_id: p\ntasks:\n  - {task_id: s, operator: SubDagOperator, subdag: " + parent + "}\n")},
			"child.yaml":  {Data: []byte("dag_id: " + child + "\n" + oneTask)},
		}
	}
	one := func(text string) fstest.MapFS { return fstest.MapFS{"f.yaml": {Data: []byte(text)}} }
	tests := []struct {
		name string
		fsys fstest.MapFS
		want []string // every part must appear in the error
	}{
		{"yaml syntax", one("dag_id: x\ntasks: [\n"), []string{"dags/f.yaml", "line 2", "did not find expected node content"}},
		{"unknown field", one("dag_id: x\nschedul: '@daily'\n" + oneTask), []string{"dags/f.yaml", "line 2", "field schedul not found"}},
		{"unknown task field", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, bash_comand: x}\n"),
			[]string{"dags/f.yaml: task at line 3: field bash_comand not found"}},
		{"unknown default_args field", one("dag_id: x\ndefault_args: {ownr: me}\n" + oneTask),
			[]string{"dags/f.yaml: line 2: default_args: field ownr not found"}},
		{"bad task date", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, start_date: nope}\n"),
			[]string{`dags/f.yaml: task at line 3: "nope" is not a date`}},
		{"bad dag date", one("dag_id: x\nstart_date: nope\n" + oneTask), []string{"dags/f.yaml", `line 2: "nope" is not a date`}},
		{"bad duration", one("dag_id: x\ndagrun_timeout: soon\n" + oneTask), []string{"dags/f.yaml", `line 2: "soon" is not a duration`}},
		{"cycle", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, downstream: [b]}\n" +
			"  - {task_id: b, operator: EmptyOperator, downstream: [c]}\n  - {task_id: c, operator: EmptyOperator, downstream: [a]}\n"),
			[]string{"dags/f.yaml: line 3: tasks form a cycle: a >> b >> c >> a"}},
		{"self cycle", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, upstream: [a]}\n"),
			[]string{"dags/f.yaml", "cycle: a >> a"}},
		{"unknown downstream", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, downstream: [zz]}\n"),
			[]string{`dags/f.yaml: line 3: task "a": downstream task "zz" does not exist`}},
		{"unknown upstream", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n  - {task_id: b, operator: EmptyOperator, upstream: [zz]}\n"),
			[]string{`dags/f.yaml: line 4: task "b": upstream task "zz" does not exist`}},
		{"duplicate task_id", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n  - {task_id: a, operator: EmptyOperator}\n"),
			[]string{`dags/f.yaml: line 4: duplicate task_id "a" (first at line 3)`}},
		{"duplicate dag_id", fstest.MapFS{"a.yaml": {Data: []byte("dag_id: x\n" + oneTask)}, "b.yml": {Data: []byte("dag_id: x\n" + oneTask)}},
			[]string{`dags/b.yml: dag_id "x" is already defined in dags/a.yaml`}},
		{"subdag naming", sub("other", "other"), []string{`dags/parent.yaml: task "s": subdag must be named "p.s"`, `got "other"`}},
		{"subdag missing", sub("p.s", "q"), []string{`dags/parent.yaml: task "s": subdag "p.s" is not defined by any file`}},
		{"missing dag_id", one(oneTask), []string{"dags/f.yaml: dag_id is missing"}},
		{"bad dag_id", one("dag_id: 'a b'\n" + oneTask), []string{`dags/f.yaml: dag_id "a b" may hold only`}},
		{"dot in task_id", one("dag_id: x\ntasks:\n  - {task_id: a.b, operator: EmptyOperator}\n"), []string{`task_id "a.b" may hold only`}},
		{"no tasks", one("dag_id: x\n"), []string{`dags/f.yaml: dag "x" has no tasks`}},
		{"no operator", one("dag_id: x\ntasks:\n  - {task_id: a}\n"), []string{`task at line 3: task "a": operator is missing`}},
		{"bash without command", one("dag_id: x\ntasks:\n  - {task_id: a, operator: BashOperator}\n"), []string{"needs a bash_command"}},
		{"request value as a redirect target", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: BashOperator\n" +
			"    bash_command: 'echo hi > {{ dag_run.conf.x }}'\n"),
			[]string{`dags/f.yaml: line 5: task "a": bash_command: {{ dag_run.conf.x }} as a redirect target`}},
		{"request value in a literal block", one("dag_id: x\ntasks:\n  - task_id: a\n    operator: BashOperator\n" +
			"    bash_command: |\n      set -e\n      cat <<EOF\n      {{ dag_run.conf.x }}\n      EOF\n"),
			[]string{`dags/f.yaml: line 8: task "a": bash_command: {{ dag_run.conf.x }} inside a here-document`, `(env: {X: "{{ dag_run.conf.x }}"})`}},
		{"request value from default_args", one("dag_id: x\ndefault_args:\n  bash_command: eval {{ params.cmd }}\n" +
			"tasks:\n  - {task_id: a, operator: BashOperator}\n"),
			[]string{`dags/f.yaml: line 3: task "a": bash_command: {{ params.cmd }} as an argument of eval`}},
		{"trigger rule", one("dag_id: x\ntasks:\n  - {task_id: a, operator: EmptyOperator, trigger_rule: sometimes}\n"),
			[]string{`unknown trigger_rule "sometimes"`}},
		{"schedule preset", one("dag_id: x\nschedule_interval: '@fortnightly'\n" + oneTask), []string{"line 2", "unknown preset"}},
		{"schedule cron", one("dag_id: x\nschedule_interval: '* * *'\n" + oneTask), []string{"line 2", "five fields"}},
		// Airflow's croniter refuses these when the file is parsed.
		{"cron minute out of range", one("dag_id: x\nschedule_interval: '61 * * * *'\n" + oneTask),
			[]string{"line 2", `"61 * * * *"`, "not a valid cron expression", "out of bounds"}},
		{"cron words", one("dag_id: x\nschedule_interval: 'a b c d e'\n" + oneTask), []string{"line 2", "not a valid cron expression"}},
		{"cron step zero", one("dag_id: x\nschedule_interval: '*/0 * * * *'\n" + oneTask),
			[]string{"line 2", "not a valid cron expression", "step can't be 0"}},
		{"cron date that never comes", one("dag_id: x\nschedule_interval: '0 0 30 2 *'\n" + oneTask),
			[]string{"line 2", "it never fires"}},
		{"both schedules", one("dag_id: x\nschedule: '@daily'\nschedule_interval: '@daily'\n" + oneTask),
			[]string{"give schedule_interval or schedule, not both"}},
		{"pools syntax", fstest.MapFS{"pools.yaml": {Data: []byte("- {name: a, slots: 1\n")}}, []string{"dags/pools.yaml", "parse pools"}},
		{"pool without slots", fstest.MapFS{"pools.yaml": {Data: []byte("- {name: a}\n")}}, []string{`dags/pools.yaml: pool "a": slots is missing`}},
		{"duplicate pool", fstest.MapFS{"pools.yml": {Data: []byte("- {name: a, slots: 1}\n- {name: a, slots: 2}\n")}},
			[]string{`dags/pools.yml: pool 2: duplicate pool "a"`}},
		{"default_pool in file", fstest.MapFS{"pools.json": {Data: []byte(`[{"name": "default_pool", "slots": 3}]`)}},
			[]string{"dags/pools.json: pool 1: default_pool is built in"}},
		{"pool unknown field", fstest.MapFS{"pools.yaml": {Data: []byte("- {name: a, slots: 1, size: 3}\n")}}, []string{"field size not found"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := loadDAGs(tc.fsys, "dags")
			if err == nil {
				t.Fatalf("loadDAGs = %+v, want an error", set)
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
		})
	}
}

func TestLoadDAGs_Embedded(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			set, err := loadExampleDAGs(e.rules(), testNow)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range set.DAGs {
				ids = append(ids, d.DagID)
				if want := filepath.Join("fixtures", e.rules().version, d.DagID+".yaml"); d.FilePath != want {
					t.Errorf("%s: FilePath = %q, want %q", d.DagID, d.FilePath, want)
				}
			}
			want := []string{"example_bash_operator", "example_papermill_operator", "example_python_operator",
				"example_subdag_operator", "example_subdag_operator.section-1", "example_subdag_operator.section-2",
				"example_trigger_target_dag", "tutorial"}
			if !reflect.DeepEqual(ids, want) {
				t.Errorf("dag ids = %v, want %v", ids, want)
			}
			byID := map[string]*DAG{}
			for _, d := range set.DAGs {
				byID[d.DagID] = d
			}
			for _, id := range []string{"example_subdag_operator.section-1", "example_subdag_operator.section-2"} {
				if got := byID[id].ParentDagID; got != "example_subdag_operator" {
					t.Errorf("%s: ParentDagID = %q", id, got)
				}
			}
			if got := byID["example_subdag_operator"].SubDAGIDs(); !reflect.DeepEqual(got,
				[]string{"example_subdag_operator.section-1", "example_subdag_operator.section-2"}) {
				t.Errorf("SubDAGIDs = %v", got)
			}
			if len(set.Pools) != 0 {
				t.Errorf("embedded pools = %v, want none", set.Pools)
			}
		})
	}
}

// Airflow's downstream weight rule (spec A.2).
func TestParseDAG_PriorityWeights(t *testing.T) {
	t.Parallel()
	set, err := loadEmbeddedDAGs()
	if err != nil {
		t.Fatal(err)
	}
	var dag *DAG
	for _, d := range set.DAGs {
		if d.DagID == "example_bash_operator" {
			dag = d
		}
	}
	want := map[string]int{"runme_0": 3, "runme_1": 3, "runme_2": 3, "run_after_loop": 2, "also_run_this": 2,
		"this_will_skip": 2, "run_this_last": 1}
	for id, w := range want {
		if got := dag.Task(id).TotalWeight; got != w {
			t.Errorf("%s weight = %d, want %d", id, got, w)
		}
	}
	if got := dag.Task("run_this_last").Upstream; !reflect.DeepEqual(got, []string{"also_run_this", "run_after_loop", "this_will_skip"}) {
		t.Errorf("run_this_last upstream = %v", got)
	}
	if got := dag.Task("run_after_loop").Upstream; !reflect.DeepEqual(got, []string{"runme_0", "runme_1", "runme_2"}) {
		t.Errorf("run_after_loop upstream = %v", got)
	}
}

func TestParseDAG_WeightRules(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: w
tasks:
  - {task_id: a, operator: EmptyOperator, downstream: [b, c], priority_weight: 2}
  - {task_id: b, operator: EmptyOperator, downstream: [d], weight_rule: upstream, priority_weight: 5}
  - {task_id: c, operator: EmptyOperator, downstream: [d], weight_rule: absolute, priority_weight: 7}
  - {task_id: d, operator: EmptyOperator, upstream: [b]}
`))
	if err != nil {
		t.Fatal(err)
	}
	// a: 2 + b 5 + c 7 + d 1 (d counted once); b upstream: 5 + a 2; c absolute 7.
	for id, w := range map[string]int{"a": 15, "b": 7, "c": 7, "d": 1} {
		if got := dag.Task(id).TotalWeight; got != w {
			t.Errorf("%s weight = %d, want %d", id, got, w)
		}
	}
	if got := dag.Task("d").Upstream; !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Errorf("d upstream = %v, want [b c] (upstream and downstream mirrored, no duplicates)", got)
	}
}

func TestParseDAG_DefaultArgs(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: defaults
start_date: 2021-01-01T00:00:00+00:00
schedule_interval: "@daily"
default_args:
  owner: someone
  retries: 2
  retry_delay: 1m
  email: [a@example.com]
  email_on_failure: false
  env: {A: "1"}
  params: {p: 1}
  start_date: 2022-02-02
  pool: shared
tasks:
  - task_id: inherits
    operator: BashOperator
    bash_command: echo
  - task_id: overrides
    operator: BashOperator
    bash_command: echo
    owner: me
    retries: 0
    retry_delay: 0:00:30
    email_on_failure: true
    env: {B: "2"}
    start_date: 2023-03-03T03:03:03Z
    pool: own
`))
	if err != nil {
		t.Fatal(err)
	}
	in, over := dag.Task("inherits"), dag.Task("overrides")
	if in.Owner != "someone" || in.Retries != 2 || in.RetryDelay != time.Minute || in.EmailOnFailure || !in.EmailOnRetry ||
		in.Pool != "shared" || !reflect.DeepEqual(in.Env, map[string]string{"A": "1"}) ||
		!reflect.DeepEqual(in.Email, []any{"a@example.com"}) {
		t.Errorf("inherits = %+v", in)
	}
	if want := time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC); in.StartDate == nil || !in.StartDate.Equal(want) {
		t.Errorf("inherits start_date = %v, want %v", in.StartDate, want)
	}
	if over.Owner != "me" || over.Retries != 0 || over.RetryDelay != 30*time.Second || !over.EmailOnFailure || over.Pool != "own" {
		t.Errorf("overrides = %+v", over)
	}
	// Maps merge key by key, and each task has its own copy.
	if !reflect.DeepEqual(over.Env, map[string]string{"A": "1", "B": "2"}) {
		t.Errorf("overrides env = %v", over.Env)
	}
	if !reflect.DeepEqual(in.Env, map[string]string{"A": "1"}) {
		t.Errorf("inherits env changed by another task: %v", in.Env)
	}
	if want := time.Date(2023, 3, 3, 3, 3, 3, 0, time.UTC); !over.StartDate.Equal(want) {
		t.Errorf("overrides start_date = %v, want %v", over.StartDate, want)
	}
	if want := time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC); dag.DefaultArgsStartDate == nil || !dag.DefaultArgsStartDate.Equal(want) {
		t.Errorf("DefaultArgsStartDate = %v, want %v", dag.DefaultArgsStartDate, want)
	}
	if dag.DefaultArgs["owner"] != "someone" {
		t.Errorf("DefaultArgs = %v", dag.DefaultArgs)
	}
}

func TestParseDAG_Defaults(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte("dag_id: plain\nstart_date: 2021-01-01\n" + oneTask))
	if err != nil {
		t.Fatal(err)
	}
	if dag.Schedule != nil || !dag.Catchup || dag.MaxActiveRuns != 16 || dag.MaxActiveTasks != 16 ||
		dag.IsPausedUponCreation || dag.DefaultArgsStartDate != nil {
		t.Errorf("dag = %+v", dag)
	}
	a := dag.Task("a")
	want := Task{TaskID: "a", Operator: "EmptyOperator", RetryDelay: 5 * time.Minute, Pool: defaultPoolName, PoolSlots: 1,
		PriorityWeight: 1, WeightRule: "downstream", TriggerRule: "all_success", Queue: "default", Owner: "airflow",
		EmailOnFailure: true, EmailOnRetry: true, StartDate: dag.StartDate, Upstream: []string{}, Downstream: []string{},
		TotalWeight: 1}
	if !reflect.DeepEqual(*a, want) {
		t.Errorf("task =\n%+v\nwant\n%+v", *a, want)
	}
	if dag.Task("nope") != nil {
		t.Error("Task(nope) is not nil")
	}
}

func TestParseDAG_Schedules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want string // "" for none
	}{
		{"schedule_interval: null", ""},
		{"schedule_interval: '@once'", "@once"},
		{"schedule: '0 0 * * *'", "0 0 * * *"},
		{"schedule_interval: 1d", "1d"},
		{"schedule_interval: ' @daily '", "@daily"},
	} {
		dag, err := parseDAG([]byte("dag_id: s\n" + tc.yaml + "\n" + oneTask))
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		got := ""
		if dag.Schedule != nil {
			got = *dag.Schedule
		}
		if got != tc.want {
			t.Errorf("%s: schedule = %q, want %q", tc.yaml, got, tc.want)
		}
	}
}

func TestLoadDAGs_PoolsAndSources(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"pools.yaml":  {Data: []byte("- {name: small, slots: 2, description: two}\n- {name: open, slots: -1}\n")},
		"a.yaml":      {Data: []byte("dag_id: a\n" + oneTask)},
		"a.py":        {Data: []byte("# the source\n")},
		"b.json":      {Data: []byte(`{"dag_id": "b", "tasks": [{"task_id": "t", "operator": "EmptyOperator"}]}`)},
		"notes.txt":   {Data: []byte("not a dag")},
		"sub/c.yaml":  {Data: []byte("broken: [")},
		"README.md":   {Data: []byte("# hi")},
		"c.YML":       {Data: []byte("dag_id: c\n" + oneTask)},
		"ignored.pyc": {Data: []byte{0}},
	}
	set, err := loadDAGs(fsys, "dags")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range set.DAGs {
		ids = append(ids, d.DagID)
	}
	if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) {
		t.Errorf("dag ids = %v", ids)
	}
	if set.DAGs[0].SourceCode != "# the source\n" || set.DAGs[1].SourceCode != "" {
		t.Errorf("source code: %q, %q", set.DAGs[0].SourceCode, set.DAGs[1].SourceCode)
	}
	if len(set.Pools) != 2 || set.Pools[0].Name != "small" || set.Pools[0].Slots != 2 || *set.Pools[0].Description != "two" ||
		set.Pools[1].Slots != -1 || set.Pools[1].Description != nil {
		t.Errorf("pools = %+v", set.Pools)
	}
}

func TestLoadDAGDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.yaml"), []byte("dag_id: x\n"+oneTask), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := loadDAGDir(dir)
	if err != nil || len(set.DAGs) != 1 || set.DAGs[0].FilePath != filepath.Join(dir, "x.yaml") {
		t.Fatalf("loadDAGDir = %+v, %v", set, err)
	}
	if _, err := loadDAGDir(filepath.Join(dir, "absent")); err == nil || !strings.Contains(err.Error(), "open dags folder") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := loadDAGDir(filepath.Join(dir, "x.yaml")); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("file as folder: %v", err)
	}
}

// The code endpoint's Python rendering of a definition.
func TestRenderPython(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: rendered
schedule_interval: "@daily"
start_date: 2021-01-01T00:00:00+00:00
tasks:
  - {task_id: first-step, operator: BashOperator, bash_command: "echo 'hi'", downstream: [last]}
  - {task_id: last, operator: EmptyOperator, retries: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := renderPython(dag, python2)
	for _, want := range []string{
		"from airflow.operators.bash import BashOperator\n",
		"from airflow.operators.empty import EmptyOperator\n",
		"    dag_id='rendered',\n",
		"    schedule='@daily',\n",
		"    start_date=pendulum.datetime(2021, 1, 1, tz=\"UTC\"),\n",
		"    first_step = BashOperator(\n        task_id='first-step',\n        bash_command=\"echo 'hi'\",\n",
		"        retries=2,\n",
		"    first_step >> last\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering does not contain %q:\n%s", want, got)
		}
	}
}

// naiveWeight is Airflow's priority_weight_total read literally: the task's
// weight plus that of every distinct task reachable through next.
func naiveWeight(dag *DAG, t *Task, next func(*Task) []string) int {
	seen := map[string]bool{t.TaskID: true}
	sum, queue := t.PriorityWeight, []*Task{t}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, id := range next(cur) {
			if !seen[id] {
				seen[id] = true
				sum += dag.Task(id).PriorityWeight
				queue = append(queue, dag.Task(id))
			}
		}
	}
	return sum
}

// Priority weights on random DAGs (diamonds, shared descendants, mixed
// rules and weights) match the literal reading of Airflow's rule, also
// when the tasks span several bitset blocks.
func TestDAG_PriorityWeightsMatchAirflowsRule(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 40, 300} {
		for round := 0; round < 3; round++ {
			var b strings.Builder
			b.WriteString("dag_id: weights\nschedule_interval: null\ntasks:\n")
			uniform := round == 0
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "  - task_id: t%d\n    operator: EmptyOperator\n", i)
				if !uniform {
					fmt.Fprintf(&b, "    priority_weight: %d\n", rng.IntN(5)+1)
					fmt.Fprintf(&b, "    weight_rule: %s\n", []string{"downstream", "upstream", "absolute"}[rng.IntN(3)])
				}
				var down []string
				for k := 0; k < 3 && i+1 < n; k++ { // edges only forward: acyclic
					down = append(down, fmt.Sprintf("t%d", i+1+rng.IntN(min(n-i-1, 50))))
				}
				if len(down) > 0 {
					fmt.Fprintf(&b, "    downstream: [%s]\n", strings.Join(down, ", "))
				}
			}
			dag, err := parseDAG([]byte(b.String()))
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			down := func(t *Task) []string { return t.Downstream }
			for _, task := range dag.Tasks {
				want := task.PriorityWeight
				switch task.WeightRule {
				case "downstream":
					want = naiveWeight(dag, task, down)
				case "upstream":
					want = naiveWeight(dag, task, func(t *Task) []string { return t.Upstream })
				}
				if task.TotalWeight != want {
					t.Fatalf("n=%d round %d: task %s (%s) weight %d, want %d", n, round, task.TaskID, task.WeightRule, task.TotalWeight, want)
				}
			}
			index := map[string]int{}
			for i, task := range dag.Tasks {
				index[task.TaskID] = i
			}
			for i, sum := range reachableWeights(dag.Tasks, index, down, 64) {
				if want := naiveWeight(dag, dag.Tasks[i], down) - dag.Tasks[i].PriorityWeight; sum != want {
					t.Fatalf("n=%d round %d, blocks of 64: task %s reaches weight %d, want %d", n, round, dag.Tasks[i].TaskID, sum, want)
				}
			}
		}
	}
}

// chainDAG is a DAG of n tasks in one line.
func chainDAG(n int) []byte {
	var b strings.Builder
	b.WriteString("dag_id: chain\nschedule_interval: null\ntasks:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - task_id: t%d\n    operator: EmptyOperator\n", i)
		if i+1 < n {
			fmt.Fprintf(&b, "    downstream: [t%d]\n", i+1)
		}
	}
	return []byte(b.String())
}

// BenchmarkParseDAG_Chain15000 loads a 15,000-task chain (it took 28 s
// when weights were computed by a walk per task).
func BenchmarkParseDAG_Chain15000(b *testing.B) {
	text := chainDAG(15000)
	b.ResetTimer()
	for b.Loop() {
		dag, err := parseDAG(text)
		if err != nil {
			b.Fatal(err)
		}
		if dag.Tasks[0].TotalWeight != 15000 {
			b.Fatalf("first task weight %d", dag.Tasks[0].TotalWeight)
		}
	}
}

// A DAG folder that holds a FIFO and a symlink to a device named like
// definitions loads the real definitions and passes over the rest with a
// warning (reading either would never end); a file over the size limit is
// refused; a cancelled start stops the reading.
func TestLoadDAGDir_OnlyRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), []byte("dag_id: good\n"+oneTask), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	var warned []string
	loader := dagLoader{warn: func(file, problem string) { warned = append(warned, filepath.Base(file)+": "+problem) }}
	set, err := loader.loadDir(dir)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(set.DAGs) != 1 || set.DAGs[0].DagID != "good" {
		t.Fatalf("loaded %d DAGs, want good only", len(set.DAGs))
	}
	if len(warned) != 2 || !strings.Contains(strings.Join(warned, "\n"), "fifo.yaml: not a regular file") ||
		!strings.Contains(strings.Join(warned, "\n"), "zero.yaml: not a regular file") {
		t.Errorf("warnings %q, want one each for fifo.yaml and zero.yaml", warned)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxDefinitionBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.loadDir(dir); err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("an oversized file: %v, want an error naming it and the limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (dagLoader{ctx: ctx}).loadDir(dir); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled load: %v, want context.Canceled", err)
	}
}

// A task's own value must not change default_args for the tasks after it:
// Airflow copies default_args into each operator (airflow/models/baseoperator.py).
func TestParseDAG_TaskValueStaysWithItsTask(t *testing.T) {
	t.Parallel()
	dag, err := parseDAG([]byte(`
dag_id: defaults
default_args: {retries: 1, retry_delay: 1m, start_date: 2022-02-02, email_on_failure: false, simulate: {duration: 1s}}
tasks:
  - {task_id: first, operator: EmptyOperator}
  - {task_id: own, operator: EmptyOperator, retries: 3, retry_delay: 2m, start_date: 2023-03-03, email_on_failure: true, simulate: {duration: 5s}}
  - {task_id: after, operator: EmptyOperator}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"first", "after"} {
		task := dag.Task(id)
		if task.Retries != 1 || task.RetryDelay != time.Minute || task.EmailOnFailure ||
			!task.StartDate.Equal(time.Date(2022, 2, 2, 0, 0, 0, 0, time.UTC)) || task.Simulate.Duration != time.Second {
			t.Errorf("%s took another task's values: retries %d, retry_delay %v, start_date %v, email_on_failure %v, simulate %v",
				id, task.Retries, task.RetryDelay, task.StartDate, task.EmailOnFailure, task.Simulate.Duration)
		}
	}
	if own := dag.Task("own"); own.Retries != 3 || own.Simulate.Duration != 5*time.Second {
		t.Errorf("own: retries %d, simulate %v", own.Retries, own.Simulate.Duration)
	}
}
