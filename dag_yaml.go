package main

// The YAML front end: a definition file (YAML, or JSON, which the YAML
// parser reads too) becomes a dagSpec, and a pools file a poolsSpec, and
// nothing else: every check of what the values mean is the builder's
// (dag_build.go). The decoding itself, with errors in plain words, is in
// dag_decode.go.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// yamlDAG is the on-disk shape of a definition. Field names are Airflow's.
type yamlDAG struct {
	DagID                string         `yaml:"dag_id"`
	Description          string         `yaml:"description"`
	ScheduleInterval     yaml.Node      `yaml:"schedule_interval"`
	Schedule             yaml.Node      `yaml:"schedule"`
	StartDate            *dateValue     `yaml:"start_date"`
	EndDate              *dateValue     `yaml:"end_date"`
	Catchup              *bool          `yaml:"catchup"`
	IsPausedUponCreation bool           `yaml:"is_paused_upon_creation"`
	MaxActiveRuns        *int           `yaml:"max_active_runs"`
	MaxActiveTasks       *int           `yaml:"max_active_tasks"`
	Concurrency          *int           `yaml:"concurrency"` // Airflow 1.10's name for max_active_tasks
	DagrunTimeout        *durationValue `yaml:"dagrun_timeout"`
	Tags                 []string       `yaml:"tags"`
	AllowedRunTypes      []string       `yaml:"allowed_run_types"` // Airflow 3.2's; editions 3 only
	Params               yamlParams     `yaml:"params"`
	DocMD                string         `yaml:"doc_md"`
	// Timezone is the DAG's time zone (Airflow's DAG.timezone, the
	// serialized DAG's "timezone"): an IANA name; unset: UTC.
	Timezone    *string   `yaml:"timezone"`
	DefaultArgs yaml.Node `yaml:"default_args"`
	Tasks       yaml.Node `yaml:"tasks"`
}

// yamlTask is the on-disk shape of a task; default_args use the same shape.
type yamlTask struct {
	TaskID                  string            `yaml:"task_id"`
	Operator                string            `yaml:"operator"`
	BashCommand             string            `yaml:"bash_command"`
	Env                     map[string]string `yaml:"env"`
	Cwd                     string            `yaml:"cwd"`
	ExecutionTimeout        *durationValue    `yaml:"execution_timeout"`
	Upstream                []string          `yaml:"upstream"`
	Downstream              []string          `yaml:"downstream"`
	Retries                 *int              `yaml:"retries"`
	RetryDelay              *durationValue    `yaml:"retry_delay"`
	RetryExponentialBackoff bool              `yaml:"retry_exponential_backoff"`
	MaxRetryDelay           *durationValue    `yaml:"max_retry_delay"`
	Pool                    string            `yaml:"pool"`
	PoolSlots               *int              `yaml:"pool_slots"`
	PriorityWeight          *int              `yaml:"priority_weight"`
	WeightRule              string            `yaml:"weight_rule"`
	TriggerRule             string            `yaml:"trigger_rule"`
	Queue                   string            `yaml:"queue"`
	Owner                   string            `yaml:"owner"`
	Email                   any               `yaml:"email"`
	EmailOnFailure          *bool             `yaml:"email_on_failure"`
	EmailOnRetry            *bool             `yaml:"email_on_retry"`
	DependsOnPast           bool              `yaml:"depends_on_past"`
	StartDate               *dateValue        `yaml:"start_date"`
	EndDate                 *dateValue        `yaml:"end_date"`
	Params                  yamlParams        `yaml:"params"`
	Subdag                  string            `yaml:"subdag"`
	Simulate                *yamlSimulate     `yaml:"simulate"`
	DoXComPush              *bool             `yaml:"do_xcom_push"`
	Inlets                  []any             `yaml:"inlets"`
	Outlets                 []any             `yaml:"outlets"`
	DocMD                   string            `yaml:"doc_md"`
	UIColor                 string            `yaml:"ui_color"`
}

// clone is a copy of s that shares nothing with it. The decoder writes a
// task's own value through a pointer or into a map it finds set, which
// would otherwise change default_args for every task after it.
func (s yamlTask) clone() yamlTask {
	s.ExecutionTimeout = clonePtr(s.ExecutionTimeout)
	s.Retries = clonePtr(s.Retries)
	s.RetryDelay = clonePtr(s.RetryDelay)
	s.MaxRetryDelay = clonePtr(s.MaxRetryDelay)
	s.PoolSlots = clonePtr(s.PoolSlots)
	s.PriorityWeight = clonePtr(s.PriorityWeight)
	s.EmailOnFailure = clonePtr(s.EmailOnFailure)
	s.EmailOnRetry = clonePtr(s.EmailOnRetry)
	s.StartDate = clonePtr(s.StartDate)
	s.EndDate = clonePtr(s.EndDate)
	s.DoXComPush = clonePtr(s.DoXComPush)
	if s.Simulate != nil {
		sim := *s.Simulate
		sim.Duration = clonePtr(sim.Duration)
		sim.XCom = copyMap(sim.XCom)
		s.Simulate = &sim
	}
	s.Env = copyMap(s.Env)
	s.Params = s.Params.clone()
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

type yamlSimulate struct {
	Duration  *durationValue `yaml:"duration"`
	Outcome   string         `yaml:"outcome"`
	FailTimes int            `yaml:"fail_times"`
	XCom      map[string]any `yaml:"xcom"`
}

// dateValue is a date of a definition: a date as §2.3 reads it, or
// days_ago(n), which counts from the time the file is read.
type dateValue struct {
	t        time.Time // the date, unless relative
	relative bool      // days_ago(daysAgo), resolved by at
	daysAgo  int
}

func (d *dateValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &wantError{want: "a date", got: describeNode(n)}
	}
	if m := daysAgoRe.FindStringSubmatch(n.Value); m != nil {
		d.daysAgo, _ = strconv.Atoi(m[1])
		d.relative = true
		return nil
	}
	t, err := parseAirflowDate(n.Value, time.Now())
	if err != nil {
		return &wantError{want: "a date (2021-01-01 or 2021-01-01T00:00:00+00:00)", got: strconv.Quote(n.Value)}
	}
	d.t = t.UTC()
	return nil
}

// at is the date when the file is read at now.
func (d *dateValue) at(now time.Time) *time.Time {
	if d == nil {
		return nil
	}
	t := d.t
	if d.relative {
		t = daysAgo(d.daysAgo, now)
	}
	return &t
}

type durationValue struct{ d time.Duration }

func (v *durationValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &wantError{want: "a duration", got: describeNode(n)}
	}
	d, err := parseDuration(n.Value)
	if err != nil {
		return &wantError{want: "a duration (5m, 1h30m, 1d, 0:05:00 or a number of seconds)", got: strconv.Quote(n.Value)}
	}
	v.d = d
	return nil
}

// duration is the value, or nil when none was written.
func (v *durationValue) duration() *time.Duration {
	if v == nil {
		return nil
	}
	d := v.d
	return &d
}

// readYAMLDAG reads one definition file as read at now, from which
// relative dates count. A problem in the DAG's own keys is returned as
// the error; one met further down (default_args, the tasks) stops the
// reading and is handed over in the spec's ReadErr, after the tasks read
// before it.
func readYAMLDAG(data []byte, now time.Time) (*dagSpec, error) {
	root, err := parseDefinitionNode(data, "no DAG defined")
	if err != nil {
		return nil, err
	}
	var f yamlDAG
	if err := decodeMapping(root, reflect.ValueOf(&f).Elem(), definitionKeys().dag); err != nil {
		return nil, err
	}
	s := &dagSpec{
		Pos:                  specPos{Line: root.Line},
		DagID:                f.DagID,
		DagIDPos:             keyPos(root, "dag_id"),
		Description:          f.Description,
		DocMD:                f.DocMD,
		ScheduleInterval:     yamlSchedule(&f.ScheduleInterval),
		Schedule:             yamlSchedule(&f.Schedule),
		AssetSchedule:        yamlAssetCond(&f.Schedule),
		StartDate:            f.StartDate.at(now),
		EndDate:              f.EndDate.at(now),
		Catchup:              f.Catchup,
		IsPausedUponCreation: f.IsPausedUponCreation,
		MaxActiveRuns:        f.MaxActiveRuns,
		MaxActiveRunsPos:     keyPos(root, "max_active_runs"),
		MaxActiveTasks:       f.MaxActiveTasks,
		MaxActiveTasksPos:    keyPos(root, "max_active_tasks"),
		Concurrency:          f.Concurrency,
		ConcurrencyPos:       keyPos(root, "concurrency"),
		DagrunTimeout:        f.DagrunTimeout.duration(),
		Tags:                 f.Tags,
		AllowedRunTypes:      f.AllowedRunTypes,
		AllowedRunTypesPos:   keyPos(root, "allowed_run_types"),
		Params:               f.Params.values,
		ParamDocs:            f.Params.docs,
		ParamOrder:           f.Params.order,
		TasksPos:             keyPos(root, "tasks"),
	}
	if f.Timezone != nil {
		raw, _ := json.Marshal(*f.Timezone)
		zone, err := parseDagZone(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", keyPos(root, "timezone").Line, err)
		}
		s.Timezone = zone
	}
	s.ReadErr = s.readYAMLTasks(&f, now)
	return s, nil
}

// yamlSchedule is schedule_interval's or schedule's node as a schedule.
func yamlSchedule(n *yaml.Node) scheduleSpec {
	switch {
	case n.Kind == 0:
		return scheduleSpec{}
	case n.Tag == "!!null":
		return scheduleSpec{Given: true, Pos: specPos{Line: n.Line}}
	case n.Kind != yaml.ScalarNode:
		return scheduleSpec{Given: true, NotText: describeNode(n), Pos: specPos{Line: n.Line}}
	}
	expr := n.Value
	return scheduleSpec{Given: true, Expr: &expr, Pos: specPos{Line: n.Line}}
}

// yamlAssetCond reads schedule as assets, when it is a list of them (a
// uri, a mapping with a uri and/or a name, or {alias: name}: their
// DatasetAll) or a
// mapping with one key, all or any, holding such a list (& and | in a
// Python file); nil when it is not.
func yamlAssetCond(n *yaml.Node) *assetCond {
	switch n.Kind {
	case yaml.SequenceNode:
		c := &assetCond{Op: assetCondAll}
		for _, item := range n.Content {
			sub := yamlAssetItem(item)
			if sub == nil {
				return nil
			}
			c.Of = append(c.Of, sub)
		}
		if len(c.Of) == 0 {
			return nil
		}
		return c
	case yaml.MappingNode:
		if len(n.Content) == 2 && (n.Content[0].Value == assetCondAll || n.Content[0].Value == assetCondAny) {
			c := yamlAssetCond(n.Content[1])
			if c == nil || n.Content[1].Kind != yaml.SequenceNode {
				return nil
			}
			c.Op = n.Content[0].Value
			return c
		}
	}
	return nil
}

// yamlAssetItem is one element of an asset list: an asset or a nested
// condition.
func yamlAssetItem(n *yaml.Node) *assetCond {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!str" || n.Value == "" {
			return nil
		}
		return &assetCond{Ref: assetRef{Name: n.Value, URI: n.Value}}
	case yaml.MappingNode:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return nil
		}
		if _, nested := m[assetCondAll]; nested {
			return yamlAssetCond(n)
		}
		if _, nested := m[assetCondAny]; nested {
			return yamlAssetCond(n)
		}
		if alias, ok := aliasOf(m); ok {
			return &assetCond{Op: assetCondAlias, Ref: assetRef{Name: alias.Name, Group: alias.Group}}
		}
		ref, ok := assetOf(m)
		if !ok {
			return nil
		}
		return &assetCond{Ref: ref}
	}
	return nil
}

// readYAMLTasks reads default_args and the tasks into s, up to the first
// problem, which it returns. A missing or empty task list is no problem
// here: the builder refuses a DAG without tasks.
func (s *dagSpec) readYAMLTasks(f *yamlDAG, now time.Time) error {
	keys := definitionKeys()
	var defaults yamlTask
	if f.DefaultArgs.Kind != 0 && f.DefaultArgs.Tag != "!!null" {
		if err := decodeMapping(&f.DefaultArgs, reflect.ValueOf(&defaults).Elem(), keys.defaultArgs); err != nil {
			return err
		}
		if err := f.DefaultArgs.Decode(&s.DefaultArgs); err != nil {
			return fmt.Errorf("line %d: default_args: %w", f.DefaultArgs.Line, err)
		}
		s.DefaultArgsStartDate = defaults.StartDate.at(now)
		if _, ok := s.DefaultArgs["params"]; ok {
			// default_args' params are the DAG's, over its own, and leave
			// default_args (2.10.3 models/dag.py:576-584; 1.10.15
			// models/dag.py:253-256; task-sdk definitions/dag.py
			// _convert_params:168-184 of c57fba0e). Each task still gets
			// them, as a task gets the DAG's.
			f.Params.over(defaults.Params)
			s.Params, s.ParamDocs, s.ParamOrder = f.Params.values, f.Params.docs, f.Params.order
			delete(s.DefaultArgs, "params")
		}
		for _, key := range []string{"task_id", "upstream", "downstream"} {
			if line := keyPos(&f.DefaultArgs, key).Line; line != 0 {
				return fmt.Errorf("line %d: default_args cannot set %s: it belongs to each task", line, key)
			}
		}
	}
	tasks := resolveAlias(&f.Tasks)
	switch {
	case tasks.Kind == 0 || tasks.Tag == "!!null" || (tasks.Kind == yaml.SequenceNode && len(tasks.Content) == 0):
		return nil
	case tasks.Kind != yaml.SequenceNode:
		return fmt.Errorf("line %d: tasks must be a list of tasks (each a mapping: - task_id: ...), not %s", tasks.Line, describeNode(tasks))
	}
	s.Tasks = make([]taskSpec, 0, len(tasks.Content))
	for _, node := range tasks.Content {
		node = resolveAlias(node)
		// default_args first, the task's own keys over them; the decoder
		// writes through pointers and fills maps in place, so each task
		// gets copies that share nothing.
		t := defaults.clone()
		if node.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: each task must be a mapping of keys (task_id, operator, ...), not %s", node.Line, describeNode(node))
		}
		if err := decodeMapping(node, reflect.ValueOf(&t).Elem(), keys.task); err != nil {
			return err
		}
		s.Tasks = append(s.Tasks, t.spec(node, &f.DefaultArgs, now))
	}
	return nil
}

// spec is the task t (default_args applied) decoded from node, with the
// positions of its values: the task's own, else default_args'.
func (t *yamlTask) spec(node, defaults *yaml.Node, now time.Time) taskSpec {
	s := taskSpec{
		Pos:                     specPos{Line: node.Line},
		TaskID:                  t.TaskID,
		TaskIDPos:               taskPos(node, defaults, "task_id"),
		Operator:                t.Operator,
		OperatorPos:             taskPos(node, defaults, "operator"),
		BashCommand:             t.BashCommand,
		BashCommandPos:          taskPos(node, defaults, "bash_command"),
		Env:                     t.Env,
		EnvPos:                  taskPos(node, defaults, "env"),
		Cwd:                     t.Cwd,
		ExecutionTimeout:        t.ExecutionTimeout.duration(),
		Upstream:                t.Upstream,
		Downstream:              t.Downstream,
		Retries:                 t.Retries,
		RetriesPos:              taskPos(node, defaults, "retries"),
		RetryDelay:              t.RetryDelay.duration(),
		RetryExponentialBackoff: t.RetryExponentialBackoff,
		MaxRetryDelay:           t.MaxRetryDelay.duration(),
		Pool:                    t.Pool,
		PoolSlots:               t.PoolSlots,
		PoolSlotsPos:            taskPos(node, defaults, "pool_slots"),
		PriorityWeight:          t.PriorityWeight,
		WeightRule:              t.WeightRule,
		WeightRulePos:           taskPos(node, defaults, "weight_rule"),
		TriggerRule:             t.TriggerRule,
		TriggerRulePos:          taskPos(node, defaults, "trigger_rule"),
		Queue:                   t.Queue,
		Owner:                   t.Owner,
		Email:                   t.Email,
		EmailOnFailure:          t.EmailOnFailure,
		EmailOnRetry:            t.EmailOnRetry,
		DependsOnPast:           t.DependsOnPast,
		StartDate:               t.StartDate.at(now),
		EndDate:                 t.EndDate.at(now),
		Params:                  t.Params.values,
		ParamDocs:               t.Params.docs,
		ParamOrder:              t.Params.order,
		Subdag:                  t.Subdag,
		SubdagPos:               taskPos(node, defaults, "subdag"),
		SimulatePos:             taskPos(node, defaults, "simulate"),
		DoXComPush:              t.DoXComPush,
		Inlets:                  t.Inlets,
		Outlets:                 t.Outlets,
		DocMD:                   t.DocMD,
		UIColor:                 t.UIColor,
	}
	if sim := t.Simulate; sim != nil {
		s.Simulate = &simulateSpec{Duration: sim.Duration.duration(), Outcome: sim.Outcome, FailTimes: sim.FailTimes, XCom: sim.XCom}
	}
	return s
}

// keyPos is the line of key in a mapping node; zero when it is absent.
func keyPos(n *yaml.Node, key string) specPos {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return specPos{}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return specPos{Line: n.Content[i].Line}
		}
	}
	return specPos{}
}

// taskPos is where key's value is written: in the task, else in
// default_args (a merge key's values are not looked into); zero when in
// neither.
func taskPos(task, defaults *yaml.Node, key string) specPos {
	value, inDefaults := mappingValue(task, key), false
	if value == nil {
		value, inDefaults = mappingValue(defaults, key), true
	}
	if value == nil {
		return specPos{}
	}
	return specPos{Line: value.Line, Defaults: inDefaults, Block: value.Style&yaml.LiteralStyle != 0}
}

// mappingValue is the value of key in a mapping node (aliases followed),
// or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			value := n.Content[i+1]
			for value.Kind == yaml.AliasNode {
				value = value.Alias
			}
			return value
		}
	}
	return nil
}

// yamlPool is the on-disk shape of one entry of pools.yaml.
type yamlPool struct {
	Name        string  `yaml:"name"`
	Slots       *int64  `yaml:"slots"`
	Description *string `yaml:"description"`
}

// readYAMLPools reads a pools file: a list of {name, slots, description}.
// A problem in one entry stops the reading and is handed over in ReadErr,
// after the entries read before it.
func readYAMLPools(data []byte) (*poolsSpec, error) {
	root, err := parseDefinitionNode(data, "no pools defined (write [] for none)")
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: a pools file holds a list of pools (- {name: etl, slots: 4}), not %s", root.Line, describeNode(root))
	}
	keys := definitionKeys().pool
	spec := &poolsSpec{Pools: make([]poolSpec, 0, len(root.Content))}
	for _, node := range root.Content {
		node = resolveAlias(node)
		var p yamlPool
		if err := decodeMapping(node, reflect.ValueOf(&p).Elem(), keys); err != nil {
			spec.ReadErr = err
			break
		}
		spec.Pools = append(spec.Pools, poolSpec{Pos: specPos{Line: node.Line}, Name: p.Name, Slots: p.Slots, Description: p.Description})
	}
	return spec, nil
}
