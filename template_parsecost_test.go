package main

// parseTemplate's short cuts (a text without Jinja syntax is not given to
// gonja; the prints of a template are classified from one parse) must
// find what the long way finds, for every text.

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// parseCostCorpus are templates of every kind the tests and the example
// DAGs use: plain text, prints of each kind, tags, whitespace control,
// prints that do not parse alone.
var parseCostCorpus = []string{
	``,
	`echo https://airflow.apache.org/`,
	"echo \"hello world\"; exit 99;\n",
	"a\r\nb\n",
	`echo ${HOME} } { }} %} #}`,
	`echo {{ ds }}`,
	`echo "{{ task_instance_key_str }}" && sleep 1`,
	`echo "{{ ds }} {{ dag_run.conf['x'] }} {{ params.p }}"`,
	`{{ ds }}{{ ts }}{{- run_id -}}  {{ macros.ds_add(ds, 7) }}`,
	`{{ ds if dag_run.conf else ts }} {{ 'a' if true }} {{ (1, 2) }} {{ 1, 2 }}`,
	`{% for i in range(3) %}echo {{ i }} {{ ds_nodash }};{% endfor %}`,
	`{% set ds = dag_run.conf.x %}echo {{ ds }} {{ ts }}`,
	`{# a comment #}echo {{ ti.try_number }} {{ task.task_id }} {{ var.value.x }}`,
	`{% raw %}{{ not a print }}{% endraw %} {{ ds }} {{ ts }}`,
	`{% macro m(x) %}{{ x }}{% endmacro %}{{ m(ds) }} {{ m(run_id) }}`,
	`{{ ds | upper }} {{ ds is none }} {{ [ds, ts] }} {{ {'a': ds} }} {{ ds[0:4] }} {{ not ds }} {{ -1 }}`,
	`{{ ds }} {{ ) }}`,
	`{{ ds }} {{ }}`,
	`{{ ds }}{{ x.y.z(a=ds)|join(',') }}`,
}

// TestParseTemplate_PlainTextAsGonjaReadsIt: a text without {{, {% or {#
// parses, through the short cut, to what gonja makes of it.
func TestParseTemplate_PlainTextAsGonjaReadsIt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("{}%#-+ \n\r\tab'\"$\\()éx0")
	texts := []string{"", "}", "{", "#}", "%}", "}}", "{ {", "{}", "a\nb\n", "line\r\n"}
	for range 3000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		if !isPlainText(text) {
			continue
		}
		got, gotErr := parseTemplate(text)
		want, wantErr := parseJinja(text)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("%q: short cut %+v, %v; gonja %+v, %v", text, got, gotErr, want, wantErr)
		}
	}
	if isPlainText("a {{ b") || isPlainText("{% x") || isPlainText("{# c") {
		t.Fatal("a text with a delimiter counts as plain")
	}
}

// TestMarkStaticPrints_AsEachAlone: the prints classified from one parse
// are classified as each alone is, whatever the rebound names.
func TestMarkStaticPrints_AsEachAlone(t *testing.T) {
	for _, text := range parseCostCorpus {
		tpl, err := parseTemplate(text)
		if err != nil {
			continue
		}
		for _, rebound := range []map[string]bool{nil, {"ds": true}, {"i": true, "ts": true}} {
			prints := append([]jinjaPrint(nil), tpl.prints...)
			markStaticPrints(prints, rebound)
			for _, p := range prints {
				if want := isStaticPrint(p.text, rebound); p.static != want {
					t.Errorf("%q, rebound %v: print %s static %v, alone %v", text, rebound, p.text, p.static, want)
				}
			}
		}
	}
	// Side by side they parse into one output each, or not at all.
	prints := []jinjaPrint{{text: "{{ ds }}"}, {text: "{{ run_id }}"}, {text: "{{ ts }}"}}
	if outs := printOutputs(prints); len(outs) != 3 {
		t.Fatalf("%d outputs of three prints", len(outs))
	}
	if outs := printOutputs(append(prints, jinjaPrint{text: "{{ ) }}"})); outs != nil {
		t.Fatal("prints that do not parse gave outputs")
	}
}

// TestParseTemplate_Static: which prints count as request values, from
// the classifier's one parse, for templates the corpus names.
func TestParseTemplate_Static(t *testing.T) {
	for _, c := range []struct {
		text string
		want []bool
	}{
		{`echo "{{ ds }} {{ dag_run.conf['x'] }} {{ params.p }}"`, []bool{true, false, false}},
		{`{% set ds = dag_run.conf.x %}echo {{ ds }} {{ ts }}`, []bool{false, true}},
		{`{{ ds if dag_run.conf else ts }} {{ macros.ds_add(ds, 7) }}`, []bool{false, true}},
		{`{{ ds }} {{ ti.try_number }} {{ ti.xcom_pull('a') }}`, []bool{true, true, false}},
	} {
		tpl, err := parseTemplate(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		var got []bool
		for _, p := range tpl.prints {
			got = append(got, p.static)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: static %v, want %v", c.text, got, c.want)
		}
	}
}
