package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// templateContext holds what a task's templates may name, as Airflow's
// Jinja context does: {{ ds }}, {{ run_id }}, {{ params.x }},
// {{ dag_run.conf.x }} and friends.
type templateContext struct {
	dag  *DAG
	task *Task
	run  *DagRun
	try  int
}

var (
	templateExprRe  = regexp.MustCompile(`\{\{(.*?)\}\}`)
	templateBlockRe = regexp.MustCompile(`\{%.*?%\}`)
	dottedNameRe    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`)
)

// errTemplate is wrapped by every rendering failure; the task fails with it.
type templateError struct{ msg string }

func (e *templateError) Error() string { return e.msg }

// lookup resolves one dotted name. Unknown names fail, as Airflow's
// StrictUndefined does.
func (c templateContext) lookup(name string) (string, error) {
	ds := c.run.ExecutionDate.UTC().Format("2006-01-02")
	dsNodash := strings.ReplaceAll(ds, "-", "")
	switch name {
	case "ds":
		return ds, nil
	case "ds_nodash":
		return dsNodash, nil
	case "ts", "execution_date", "logical_date":
		return isoFormat(c.run.ExecutionDate.UTC()), nil
	case "ts_nodash":
		return c.run.ExecutionDate.UTC().Format("20060102T150405"), nil
	case "run_id", "dag_run.run_id":
		return c.run.RunID, nil
	case "dag_run":
		return dagRunRepr(c.run, c.run.ExecutionDate), nil
	case "dag_run.conf":
		if c.run.Conf == nil {
			return "None", nil
		}
		return string(c.run.Conf), nil
	case "task_instance_key_str":
		return c.dag.DagID + "__" + c.task.TaskID + "__" + dsNodash, nil
	case "dag.dag_id", "dag_id":
		return c.dag.DagID, nil
	case "task.task_id", "task_id":
		return c.task.TaskID, nil
	case "try_number", "ti.try_number", "task_instance.try_number":
		return fmt.Sprint(c.try), nil
	}
	if key, ok := strings.CutPrefix(name, "dag_run.conf."); ok {
		return c.confValue(key, name)
	}
	if key, ok := strings.CutPrefix(name, "params."); ok {
		// A run's conf overrides params, as Airflow 2 does by default.
		if v, err := c.confValue(key, name); err == nil {
			return v, nil
		}
		if v, ok := c.task.Params[key]; ok {
			return pyStr(v), nil
		}
		if v, ok := c.dag.Params[key]; ok {
			return pyStr(v), nil
		}
	}
	return "", &templateError{msg: fmt.Sprintf("template variable %q is undefined", name)}
}

func (c templateContext) confValue(key, name string) (string, error) {
	var conf map[string]any
	if c.run.Conf != nil {
		decoded, err := decodeJSONValue(c.run.Conf)
		if err == nil {
			conf, _ = decoded.(map[string]any)
		}
	}
	v, ok := conf[key]
	if !ok {
		return "", &templateError{msg: fmt.Sprintf("template variable %q is undefined: the run's conf has no key %q", name, key)}
	}
	switch v.(type) {
	case map[string]any, []any:
		b, _ := json.Marshal(v)
		return string(b), nil
	}
	return pyStr(v), nil
}

// checkNoBlocks refuses {% ... %}: only {{ name }} substitutions are
// rendered.
func checkNoBlocks(text string) error {
	if loc := templateBlockRe.FindStringIndex(text); loc != nil {
		return &templateError{msg: fmt.Sprintf("template block %q is not supported: only {{ name }} substitutions are", text[loc[0]:loc[1]])}
	}
	return nil
}

// value resolves the text between {{ and }}.
func (c templateContext) value(inner string) (string, error) {
	name := strings.TrimSpace(inner)
	if !dottedNameRe.MatchString(name) {
		return "", &templateError{msg: fmt.Sprintf("template expression %q is not supported: only dotted names such as dag_run.conf.key are", name)}
	}
	return c.lookup(name)
}

// renderText renders a value that is not shell text (env values), every
// value inserted as it is.
func (c templateContext) renderText(text string) (string, error) {
	if err := checkNoBlocks(text); err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, m := range templateExprRe.FindAllStringSubmatchIndex(text, -1) {
		value, err := c.value(text[m[2]:m[3]])
		if err != nil {
			return "", err
		}
		b.WriteString(text[last:m[0]])
		b.WriteString(value)
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// renderShell renders a compiled bash_command (see shellplan.go). Static
// values are inlined; each request value is written as the expansion of an
// environment variable, returned as NAME=value for the task's environment,
// so that bash only ever sees it after parsing the command.
func (c templateContext) renderShell(plan *shellPlan) (command string, valueEnv []string, err error) {
	if err := checkNoBlocks(plan.command); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	last := 0
	for _, e := range plan.exprs {
		value, err := c.value(e.inner)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(plan.command[last:e.start])
		last = e.end
		if e.valueVar == "" {
			if !staticValueRe.MatchString(value) {
				return "", nil, &templateError{msg: fmt.Sprintf("the value of %s holds characters a shell reads: %q", plan.command[e.start:e.end], value)}
			}
			b.WriteString(value)
			continue
		}
		if strings.IndexByte(value, 0) >= 0 {
			return "", nil, &templateError{msg: fmt.Sprintf("the value of %s holds a NUL byte, which no environment variable can carry", plan.command[e.start:e.end])}
		}
		valueEnv = append(valueEnv, e.valueVar+"="+value)
		b.WriteString(e.expansion())
	}
	b.WriteString(plan.command[last:])
	return b.String(), valueEnv, nil
}
