package main

// parseTemplate's short cuts (a text without Jinja syntax is not given to
// gonja; a print is classified from the tokens lexed with its template)
// must find what the long way finds, for every text.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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

// TestStaticTokens_AsEachAlone: a print classified from the tokens it
// was lexed with in its template is classified as its text lexed alone,
// whatever the rebound names.
func TestStaticTokens_AsEachAlone(t *testing.T) {
	texts := append([]string(nil), parseCostCorpus...)
	for _, f := range []string{"testdata", "fixtures"} {
		texts = append(texts, bashCommandsUnder(t, f)...)
	}
	texts = append(texts, templatesInTests(t)...)
	prints := 0
	for _, text := range texts {
		tpl, printed, _, err := scanJinja(text)
		if err != nil {
			continue
		}
		for _, rebound := range []map[string]bool{nil, {"ds": true}, {"i": true, "ts": true}} {
			for i, p := range tpl.prints {
				prints++
				got, want := isStaticTokens(printed[i], rebound), isStaticPrint(p.text, rebound)
				if got != want {
					t.Errorf("%q, rebound %v: print %s static %v from its tokens, %v alone", text, rebound, p.text, got, want)
				}
			}
		}
	}
	t.Logf("%d templates, %d prints compared", len(texts), prints)
	if prints < 1000 {
		t.Fatalf("only %d prints compared", prints)
	}
}

// bashCommandsUnder are the bash_command values of the YAML files under a
// folder, as written (one line each: enough to compare classifiers).
func bashCommandsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(data)) {
			if _, cmd, ok := strings.Cut(line, "bash_command:"); ok {
				out = append(out, strings.Trim(strings.TrimSpace(cmd), `'"`))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return out
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

// templatesInTests are the string literals with {{ in the package's test
// files: the templates every other test renders.
func templatesInTests(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, "{{") {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}
