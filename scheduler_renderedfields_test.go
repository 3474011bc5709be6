package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// renderedSecrets stores the variables and the connection the rendered
// fields tests' templates read: db_password's value is a secret (a
// sensitive name), short_token's too but under 3.2.1's five characters,
// colour's is not (its name hides nothing).
func renderedSecrets(t *testing.T, store *Store) {
	t.Helper()
	for key, val := range map[string]string{"db_password": "s3cr3t-pw", "short_token": "abc", "colour": "blue-sky"} {
		if _, err := store.SetVariable(key, val, nil); err != nil {
			t.Fatalf("set %s: %v", key, err)
		}
	}
	password, host := "wh-pass-9", "wh.example"
	if _, err := store.CreateConnection(Connection{ConnID: "warehouse", ConnType: "postgres", Host: &host, Password: &password}); err != nil {
		t.Fatalf("create connection: %v", err)
	}
}

// TestScheduler_RenderedFieldsMaskedYAML: a YAML DAG's rendered fields
// are stored through the release's secrets masker (2.10.3
// models/renderedtifields.py:148-155 _redact; 3.2.1 task-sdk
// execution_time/task_runner.py:1036-1047): a value under a sensitive
// key (env's PASSWORD) is "***", and so is every occurrence of a secret
// the templates read (a variable with a sensitive name, a connection's
// password); a conf value is no secret. 3.2.1 learns no secret shorter
// than five characters; 1.10.15 stores the fields as rendered.
func TestScheduler_RenderedFieldsMaskedYAML(t *testing.T) {
	t.Parallel()
	const dag = `
dag_id: masked
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: say
    operator: BashOperator
    bash_command: echo {{ var.value.db_password }} {{ dag_run.conf.password }} {{ conn.warehouse.password }} {{ var.value.short_token }} {{ var.value.colour }}
    env: {PASSWORD: "{{ dag_run.conf.password }}", COPY: "x{{ var.value.db_password }}x", PLAIN: "{{ var.value.colour }}"}
`
	for _, tc := range []struct {
		name    string
		edition edition
		want    string
	}{
		{"2", edition2, `{"bash_command": "echo *** hunter2 *** *** blue-sky", "cwd": null,
			"env": {"PASSWORD": "***", "COPY": "x***x", "PLAIN": "blue-sky"}}`},
		{"3", edition3, `{"bash_command": "echo *** hunter2 *** abc blue-sky", "cwd": null,
			"env": {"PASSWORD": "***", "COPY": "x***x", "PLAIN": "blue-sky"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, sched := newSchedServer(t, tc.edition, tickDriven, withDAG(dag))
			renderedSecrets(t, ts.store)
			postEditionRun(t, ts, "masked", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00", "conf": {"password": "hunter2"}}`)
			settleTicks(t, sched, time.Now)
			if run := finishedRun(t, ts.store, "masked", "r1"); run.State != RunSuccess {
				t.Fatalf("run ended %s", run.State)
			}
			res := getEdition(t, ts, "/dags/masked/dagRuns/r1/taskInstances/say")
			checkRenderedFields(t, "say", res.body, tc.want)
		})
	}
}

// TestStoreRenderedFields: each release's serialization and masking of
// rendered fields, given what the masker learnt: a sensitive field name
// or key hides every string below it (numbers stay), a secret is hidden
// wherever it occurs, and a value whose str() passes 4096 characters is
// replaced by the fixed message and its masked start (2.10.3
// serialization/helpers.py:44-66: the repr of 4017 characters and
// "... "; 3.2.1 shared/template_rendering truncate_rendered_value: 4015
// characters and "..."), str() of a dict showing a sensitive key's value
// as Airflow's does, only secrets hidden there.
func TestStoreRenderedFields(t *testing.T) {
	long := strings.Repeat("a", 4000) + "s3cr3t-pw" + strings.Repeat("b", 200)
	longConf := map[string]any{"password": strings.Repeat("x", 5000)}
	fields := map[string]any{
		"api_key":      "plain",
		"op_kwargs":    map[string]any{"password": "p", "nested": map[string]any{"token": json.Number("5"), "x": "s3cr3t-pw!"}},
		"op_args":      []any{"s3cr3t-pw", json.Number("0")},
		"count":        json.Number("0"),
		"empty":        "",
		"bash_command": long,
		"conf":         longConf,
	}
	common := map[string]any{
		"api_key":   "***",
		"op_kwargs": map[string]any{"password": "***", "nested": map[string]any{"token": json.Number("5"), "x": "***!"}},
		"op_args":   []any{"***", json.Number("0")},
		"count":     json.Number("0"),
		"empty":     "",
	}
	for _, tc := range []struct {
		name   string
		rules  *editionRules
		bash   string
		conf   string
		secret string
	}{
		{"2.10.3", &rules2, truncatedFieldPrefix + "'" + strings.Repeat("a", 4000) + "***" + strings.Repeat("b", 14) + "'... ",
			truncatedFieldPrefix + `"{'password': '` + strings.Repeat("x", 4017-14) + `"... `, "s3cr3t-pw"},
		{"3.2.1", &rules3, truncatedFieldPrefix + strings.Repeat("a", 4000) + "***" + strings.Repeat("b", 12) + "...",
			truncatedFieldPrefix + "{'password': '" + strings.Repeat("x", 4015-14) + "...", "s3cr3t-pw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newSecretRegistry(tc.rules.masker)
			reg.addVariable("db_password", tc.secret, false)
			got := tc.rules.storeRenderedFields(reg.masker(), fields)
			want := map[string]any{"bash_command": tc.bash, "conf": tc.conf}
			for k, v := range common {
				want[k] = v
			}
			for k := range want {
				if g, w := pyReprValue(pyPlainValue(got[k])), pyReprValue(pyPlainValue(want[k])); g != w {
					t.Errorf("%s = %.200s, want %.200s", k, g, w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("got %d fields, want %d", len(got), len(want))
			}
			if fields["op_args"].([]any)[0] != "s3cr3t-pw" || longConf["password"] == "***" {
				t.Error("the rendered fields given were changed")
			}
		})
	}
	if rules110.storeRenderedFields != nil || rules110RBAC.storeRenderedFields != nil {
		t.Error("1.10.15 stores rendered fields as rendered (models/renderedtifields.py:43-56)")
	}
}

// TestSecretRegistry: what mask_secret learns in each release's task
// process: a variable's value under a sensitive key (2.10.3's var.json
// dict key by key, 3.2.1's only a decoded string), a connection's
// password (2.10.3 with its quote() form, 3.2.1 with the extra text),
// 3.2.1 nothing under five characters nor "airflow".
func TestSecretRegistry(t *testing.T) {
	password, extra := "p@ss w/rd", `{"k": "v"}`
	conn := &Connection{ConnID: "c", Password: &password, Extra: &extra}
	learn := func(reg *secretRegistry) {
		reg.addVariable("colour", "blue-sky", false)                                          // not sensitive
		reg.addVariable("api_key", "key-12345", false)                                        // sensitive
		reg.addVariable("cfg", map[string]any{"token": "tok-67890", "user": "someone"}, true) // var.json dict
		reg.addVariable("my_secret", "abc", false)                                            // short
		reg.addVariable("the_secret", "AirFlow", false)                                       // the skipped word
		reg.addConnection(conn)
	}
	text := "blue-sky key-12345 tok-67890 someone abc AirFlow p@ss w/rd p%40ss%20w/rd " + extra
	for _, tc := range []struct {
		name string
		m    secretsMasker
		want string
	}{
		{"2.10.3", rules2.masker, "blue-sky *** *** someone *** *** *** *** " + extra},
		{"3.2.1", rules3.masker, "blue-sky *** tok-67890 someone abc AirFlow *** p%40ss%20w/rd ***"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newSecretRegistry(tc.m)
			learn(reg)
			if got := reg.masker().redact(text, "text", 0); got != tc.want {
				t.Errorf("masked %q\nwant   %q", got, tc.want)
			}
		})
	}
	var none *secretRegistry
	none.addVariable("api_key", "key-12345", false) // a nil registry learns nothing, without a panic
	if got := newSecretRegistry(rules2.masker).masker().redact(text, "text", 0); got != text {
		t.Errorf("nothing learnt, yet %q", got)
	}
}

// TestScheduler_RenderedFieldsMaskedPython: a Python DAG's PythonOperator
// and TriggerDagRunOperator keep their rendered fields masked as the
// release stores them: op_kwargs' and conf's password keys hide their
// values, a sensitive variable's value and a connection's password are
// hidden wherever a template put them, other values stay; 3.2.1 keeps a
// secret under five characters.
func TestScheduler_RenderedFieldsMaskedPython(t *testing.T) {
	t.Parallel()
	call := `{"templates_dict": null, "op_args": ["***-suffix", "blue-sky"],
		"op_kwargs": {"password": "***", "who": "blue-sky", "dsn": "postgres://u:***@wh.example"}}`
	for _, tc := range []struct {
		name    string
		edition edition
		dir     string
		want    map[string]string
	}{
		{"2", edition2, "testdata/pydags/renderedmask2", map[string]string{"call": call,
			"trigger": `{"trigger_dag_id": "masked_target", "trigger_run_id": "t1", "logical_date": null,
				"conf": {"password": "***", "copy": "***", "short": "***"}, "wait_for_completion": false, "skip_when_already_exists": false}`}},
		{"3", edition3, "testdata/pydags/renderedmask3", map[string]string{"call": call,
			"trigger": `{"trigger_dag_id": "masked_target", "trigger_run_id": "t1", "logical_date": "` + argNotSetText + `",
				"conf": {"password": "***", "copy": "***", "short": "abc"}, "wait_for_completion": false, "skip_when_already_exists": false}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servePyFolderAs(t, tc.dir, tc.edition)
			renderedSecrets(t, ts.store)
			triggeringScheduler(t, ts)
			postEditionRun(t, ts, "masked_py", `{"dag_run_id": "r1", "logical_date": "2024-02-01T00:00:00+00:00", "conf": {"password": "hunter2"}}`)
			awaitTriesEnded(t, ts.store, "masked_py", "r1", "call", "trigger")
			for task, want := range tc.want {
				res := getEdition(t, ts, "/dags/masked_py/dagRuns/r1/taskInstances/"+task)
				checkRenderedFields(t, task, res.body, want)
			}
		})
	}
}
