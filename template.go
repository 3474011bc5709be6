package main

// Templates are Jinja, as in Airflow: bash_command and env values are
// rendered with github.com/nikolalohinski/gonja/v2 against the context
// Airflow gives a task (templatecontext.go builds it per edition).
//
// Every {{ ... }} of a template is rewritten, before gonja parses it, to
// pass its value through one filter (printFilter) that turns it into text
// the way Python's str() does. The same filter keeps request values out of
// shell text: a print that may hold a value from a request (see
// isStaticPrint) becomes an unguessable marker instead of its value, and
// template_shellplan.go then decides where bash may take the value, as data only.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/builtins"
	gonjaconfig "github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/logging"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

func init() {
	// gonja logs through logrus's global logger when enabled; airlite
	// reports template errors itself.
	logging.SetEnabled(false)
}

// templateContext holds what a task's templates may name, as Airflow's
// Jinja context does: {{ ds }}, {{ dag_run.conf['x'] }}, {{ macros.ds_add(ds, 1) }}...
type templateContext struct {
	dag  *DAG
	task *Task
	run  *DagRun
	try  int
	// rules is the edition's; required.
	rules *editionRules
	// variables looks up Airflow Variables ({{ var.value.x }}); nil: none
	// exist.
	variables variableLookup
	// connections looks up Airflow Connections ({{ conn.x.host }}); nil:
	// none exist.
	connections connectionLookup
	// xcoms lists the XCom entries ti.xcom_pull reads; nil: none exist.
	xcoms xcomLookup
	// now is the server's clock (macros.datetime.now()); nil: time.Now.
	now func() time.Time
	// secrets learns the sensitive variables and the connections the
	// templates read, as mask_secret does (nil: nothing learnt).
	secrets *secretRegistry
}

// variableLookup returns the value of an Airflow Variable.
type variableLookup func(key string) (string, bool)

// connectionLookup returns an Airflow Connection by its conn_id.
type connectionLookup func(connID string) (*Connection, bool)

// templateExprRe finds the {{ ... }} of a bash_command for the load-time
// placement check (template_shellplan.go).
var templateExprRe = regexp.MustCompile(`(?s)\{\{(.*?)\}\}`)

// templateError is a rendering failure; the task fails with it.
type templateError struct{ msg string }

func (e *templateError) Error() string { return e.msg }

// printFilterName is the filter every print is rewritten through. It
// starts with reservedPrefix, which a template may not hold, so no template
// can call it.
const printFilterName = reservedPrefix + "_print"

// jinjaTemplate is a template checked and prepared for rendering.
type jinjaTemplate struct {
	source    string       // as written
	rewritten string       // every print passed through printFilterName
	prints    []jinjaPrint // in source order
	// tags are the spans of {% ... %} and {# ... #} in source.
	tags [][2]int
	// captures: the template has a tag of captureTags.
	captures bool
}

// jinjaPrint is one {{ ... }} of a template.
type jinjaPrint struct {
	text       string // "{{ ... }}" as written, for messages
	start, end int    // of text in the source
	inner      string // the text between the braces
	line       int
	static     bool // its value can hold nothing from a request (isStaticPrint)
}

// refusedTags are tags that read other template files; airlite has none.
var refusedTags = setOf("extends", "include", "import", "from")

// captureTags are tags whose body becomes a value instead of output (a
// {% set %} without "=" too); a request value printed in one cannot be
// followed to where it lands until the command is rendered.
var captureTags = setOf("macro", "call", "filter")

func tagHas(tag []*tokens.Token, typ tokens.Type) bool {
	for _, tok := range tag {
		if tok.Type == typ {
			return true
		}
	}
	return false
}

// balanced tells whether brackets close in order and never close more than
// they opened.
func balanced(toks []*tokens.Token) bool {
	var open []tokens.Type
	closing := map[tokens.Type]tokens.Type{
		tokens.RightParenthesis: tokens.LeftParenthesis,
		tokens.RightBracket:     tokens.LeftBracket,
		tokens.RightBrace:       tokens.LeftBrace,
	}
	for _, tok := range toks {
		switch tok.Type {
		case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
			open = append(open, tok.Type)
		case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
			if len(open) == 0 || open[len(open)-1] != closing[tok.Type] {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0
}

// wrapPrint is the rewritten expression of a print: its value passed
// through the print filter. gonja takes "x if c else y" only as a whole
// print, so each branch is wrapped.
func wrapPrint(source string, start, end int, toks []*tokens.Token, i int) string {
	wrap := func(expr string) string { return fmt.Sprintf("(%s)|%s(%d)", expr, printFilterName, i) }
	depth, ifAt, elseAt := 0, -1, -1
	for _, tok := range toks {
		switch tok.Type {
		case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
			depth++
		case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
			depth--
		case tokens.Name:
			switch {
			case depth == 0 && ifAt < 0 && tok.Val == "if":
				ifAt = tok.Pos
			case depth == 0 && ifAt >= 0 && elseAt < 0 && tok.Val == "else":
				elseAt = tok.Pos
			}
		}
	}
	switch {
	case ifAt < 0:
		return " " + wrap(source[start:end]) + " "
	case elseAt < 0:
		return " " + wrap(source[start:ifAt]) + " " + source[ifAt:end]
	}
	return " " + wrap(source[start:ifAt]) + " " + source[ifAt:elseAt+len("else")] + " " + wrap(source[elseAt+len("else"):end]) + " "
}

// bindingTags are tags that give names values; a static name they mention
// counts as a request value everywhere in the template (isStaticPrint).
var bindingTags = setOf("set", "for", "with", "macro", "call")

// templateConfig is Jinja's default syntax; strict: an undefined name
// fails the render, as jinja2.StrictUndefined does.
func templateConfig(strict bool) *gonjaconfig.Config {
	cfg := gonjaconfig.New()
	cfg.StrictUndefined = strict
	return cfg
}

// parseTemplate checks a template's syntax and finds its prints. The error
// names the line of the template.
func parseTemplate(source string) (*jinjaTemplate, error) {
	if at := strings.Index(source, reservedPrefix); at >= 0 {
		return nil, &templateError{msg: fmt.Sprintf("line %d of the template holds %s, which is reserved", 1+strings.Count(source[:at], "\n"), reservedPrefix)}
	}
	if !utf8.ValidString(source) || strings.ContainsRune(source, utf8.RuneError) {
		// gonja's lexer loops forever on some text with U+FFFD before a
		// number ("{%\uFFFD0.\u3789"); DAG files are UTF-8, so only a
		// replacement character written on purpose is refused.
		return nil, &templateError{msg: "the template holds invalid UTF-8 or U+FFFD, which airlite's template engine cannot read"}
	}
	if isPlainText(source) {
		// What gonja would find: one text node, no prints, no tags.
		return &jinjaTemplate{source: source, rewritten: source}, nil
	}
	return parseJinja(source)
}

// isPlainText tells whether a text holds no delimiter of Jinja's default
// syntax ({{, {%, {#; no line statements are configured), so that it is
// one text node as it is (many bash_commands and env values are).
func isPlainText(source string) bool {
	return !strings.Contains(source, "{{") && !strings.Contains(source, "{%") && !strings.Contains(source, "{#")
}

// parseJinja is parseTemplate for a text with Jinja syntax in it.
func parseJinja(source string) (*jinjaTemplate, error) {
	t, printed, rebound, err := scanJinja(source)
	if err != nil {
		return nil, err
	}
	if _, err := t.compile(templateEnvironment(nil), true); err != nil {
		return nil, err
	}
	for i := range t.prints {
		t.prints[i].static = isStaticTokens(printed[i], rebound)
	}
	return t, nil
}

// scanJinja lexes a template: its prints (and the tokens of each), its
// tags, the names its tags bind, and the rewritten text.
func scanJinja(source string) (_ *jinjaTemplate, printed [][]*tokens.Token, rebound map[string]bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &templateError{msg: fmt.Sprintf("template syntax error: %v", r)}
		}
	}()
	t := &jinjaTemplate{source: source}
	stream := tokens.LexAll(source, templateConfig(true))
	var b strings.Builder
	last := 0
	rebound = map[string]bool{}
	var printStart *tokens.Token
	var printTokens []*tokens.Token // of the print being read
	exprStart := 0
	var tag []*tokens.Token // the tokens of the block tag being read
	inTag := false
	tagStart := 0
	for ; ; stream.Next() {
		tok := stream.Current()
		if stream.IsError() {
			line := tok.Line
			if line < 1 { // gonja's lexer gives some errors no position
				line = 1 + strings.Count(source[:min(max(tok.Pos, last), len(source))], "\n")
			}
			return nil, nil, nil, &templateError{msg: fmt.Sprintf("template syntax error at line %d: %s", line, tok.Val)}
		}
		if stream.EOF() {
			break
		}
		switch tok.Type {
		case tokens.VariableBegin:
			printStart, printTokens = tok, nil
			exprStart = tok.Pos + len(tok.Val)
		case tokens.VariableEnd:
			if printStart == nil {
				continue
			}
			inner := source[exprStart:tok.Pos]
			if !balanced(printTokens) {
				// The rewrite wraps the expression in parentheses; one that
				// closes more than it opens would take part of itself out of
				// them, and out of the print filter.
				return nil, nil, nil, &templateError{msg: fmt.Sprintf("template syntax error at line %d: unbalanced brackets in %s", printStart.Line, source[printStart.Pos:tok.Pos+len(tok.Val)])}
			}
			t.prints = append(t.prints, jinjaPrint{
				text:  source[printStart.Pos : tok.Pos+len(tok.Val)],
				start: printStart.Pos, end: tok.Pos + len(tok.Val),
				inner: inner,
				line:  printStart.Line,
			})
			b.WriteString(source[last:exprStart])
			whole := make([]*tokens.Token, 0, len(printTokens)+2)
			printed = append(printed, append(append(append(whole, printStart), printTokens...), tok))
			b.WriteString(wrapPrint(source, exprStart, tok.Pos, printTokens, len(t.prints)-1))
			last = tok.Pos
			printStart = nil
		case tokens.CommentBegin:
			tagStart = tok.Pos
		case tokens.CommentEnd:
			t.tags = append(t.tags, [2]int{tagStart, tok.Pos + len(tok.Val)})
		case tokens.BlockBegin:
			inTag, tag, tagStart = true, nil, tok.Pos
		case tokens.BlockEnd:
			inTag = false
			t.tags = append(t.tags, [2]int{tagStart, tok.Pos + len(tok.Val)})
			if len(tag) > 0 && tag[0].Type == tokens.Name {
				keyword := tag[0].Val
				if refusedTags[keyword] {
					return nil, nil, nil, &templateError{msg: fmt.Sprintf("line %d of the template: {%% %s %%} reads another template file, which airlite does not have", tag[0].Line, keyword)}
				}
				if captureTags[keyword] || (keyword == "set" && !tagHas(tag, tokens.Assign)) {
					t.captures = true
				}
				if bindingTags[keyword] {
					for _, name := range tag[1:] {
						if name.Type == tokens.Name {
							rebound[name.Val] = true
						}
					}
				}
			}
		default:
			switch {
			case inTag:
				tag = append(tag, tok)
			case printStart != nil:
				printTokens = append(printTokens, tok)
			}
		}
	}
	b.WriteString(source[last:])
	t.rewritten = b.String()
	return t, printed, rebound, nil
}

// isStaticTokens is isStaticPrint of a print lexed with its template:
// gonja's parser reads its tokens as it would read those of the print's
// text lexed alone, which are the same (the lexer reads a print from its
// {{ in one state, wherever it is), so the print is not lexed again.
func isStaticTokens(print []*tokens.Token, rebound map[string]bool) (static bool) {
	defer func() {
		if recover() != nil {
			static = false
		}
	}()
	p := parser.NewParser(templateRoot, tokens.NewStream(print), templateConfig(true), onlyRootLoader{}, templateEnvironment(nil).ControlStructures)
	root, err := p.Parse()
	if err != nil || len(root.Nodes) != 1 {
		return false
	}
	out, ok := root.Nodes[0].(*nodes.Output)
	return ok && isStaticOutput(out, rebound)
}

// compile parses the rewritten template in an environment.
func (t *jinjaTemplate) compile(env *exec.Environment, strict bool) (tpl *exec.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			tpl, err = nil, &templateError{msg: fmt.Sprintf("template syntax error: %v", r)}
		}
	}()
	tpl, err = exec.NewTemplate(templateRoot, templateConfig(strict), onlyRootLoader{source: t.rewritten}, env)
	if err != nil {
		return nil, &templateError{msg: "template syntax error: " + t.untangle(err.Error())}
	}
	rewriteOperators(tpl.Root())
	return tpl, nil
}

// untangle turns gonja's words about the rewritten template back into the
// author's: it drops the print filter, which the author never wrote.
func (t *jinjaTemplate) untangle(msg string) string {
	msg = strings.ReplaceAll(msg, t.rewritten, t.source)
	return printFilterRe.ReplaceAllString(msg, "")
}

var printFilterRe = regexp.MustCompile(`\|` + printFilterName + `\(\d+\)`)

// templateRoot names the one template a render reads.
const templateRoot = "bash_command"

// onlyRootLoader serves the template being rendered and nothing else, so
// that no template reads a file of the machine.
type onlyRootLoader struct{ source string }

func (l onlyRootLoader) Read(path string) (io.Reader, error) {
	if path != templateRoot {
		return nil, fmt.Errorf("template %q not found: airlite reads no template files", path)
	}
	return strings.NewReader(l.source), nil
}

func (l onlyRootLoader) Resolve(path string) (string, error) { return path, nil }

func (l onlyRootLoader) Inherit(string) (loaders.Loader, error) { return l, nil }

// templateEnvironment is the gonja environment of the edition whose rules
// these are (nil: parsing, which takes every filter): gonja's standard
// one, the print filter, and Airflow 2's date filters where the edition has
// them. It is built once per kind and shared by every parse and render
// (gonja's own DefaultEnvironment is shared the same way): a render puts
// its own state in its context (renderStateName), never in the
// environment.
func templateEnvironment(rules *editionRules) *exec.Environment {
	if rules == nil || rules.templateDateFilters {
		return templateEnvWithDates()
	}
	return templateEnvPlain()
}

var (
	templateEnvWithDates = sync.OnceValue(func() *exec.Environment { return newTemplateEnvironment(true) })
	templateEnvPlain     = sync.OnceValue(func() *exec.Environment { return newTemplateEnvironment(false) })
)

// newTemplateEnvironment builds an environment; templateEnvironment keeps
// the two there are.
func newTemplateEnvironment(withDateFilters bool) *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	_ = filters.Register(printFilterName, printFilter)
	if withDateFilters {
		for name, filter := range dateFilters {
			_ = filters.Register(name, filter)
		}
	}
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	_ = tests.Replace("none", testNone)
	return &exec.Environment{
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(operatorFunctions()),
		Filters:           filters,
		Tests:             tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}
}

// renderStateName names a render's state in its context. It starts with
// reservedPrefix, which no template may hold, so no template can read or
// set it.
const renderStateName = reservedPrefix + "_render"

// renderState is what the print filter of one render needs and gathers.
type renderState struct {
	t          *jinjaTemplate
	rules      *editionRules
	markValues bool
	nonce      string
	values     []renderedPrint
}

// printFilter turns a print's value into text as Python's str() does, or,
// in a render that marks values, a request value into its marker (see
// render). Outside a render (no state in the context) it fails: a print
// is never written unmarked by mistake.
func printFilter(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	state, _ := e.Environment.Context.Get(renderStateName)
	st, ok := state.(*renderState)
	if !ok {
		return exec.AsValue(errors.New("print outside a render"))
	}
	i := -1
	if len(params.Args) == 1 && params.Args[0].IsInteger() {
		i = params.Args[0].Integer()
	}
	if i < 0 || i >= len(st.t.prints) {
		return exec.AsValue(errors.New("print of an unknown expression"))
	}
	value := templateStr(in, st.rules)
	if !st.markValues || st.t.prints[i].static {
		return exec.AsSafeValue(value)
	}
	marker := valueMarkerPrefix + st.nonce + "_" + strconv.Itoa(len(st.values)) + "__"
	st.values = append(st.values, renderedPrint{print: i, marker: marker, value: value})
	return exec.AsSafeValue(marker)
}

// staticRoots are the context names whose values come from the DAG file or
// the server, never from a request, and that a template cannot change:
// dates and strings, and functions of their arguments. A print made only
// of these, literals and operators on them is inlined into shell text.
// Every other name counts as a request value: dag_run, params, run_id,
// var, conn, ti and task_instance as a whole, loop and set variables,
// unknown names.
var staticRoots = setOf(
	"ds", "ds_nodash", "ts", "ts_nodash", "ts_nodash_with_tz", "logical_date", "execution_date",
	"data_interval_start", "data_interval_end", "prev_ds", "prev_ds_nodash", "next_ds", "next_ds_nodash",
	"prev_execution_date", "next_execution_date", "yesterday_ds", "yesterday_ds_nodash",
	"tomorrow_ds", "tomorrow_ds_nodash", "latest_date", "END_DATE", "end_date",
	"task_instance_key_str", "test_mode", "macros", "dag_id", "task_id", "try_number",
	"range", "true", "false", "none", "True", "False", "None",
)

// staticPaths are attributes of other names that are static too.
var staticPaths = setOf(
	"dag.dag_id", "task.task_id", "task.dag_id",
	"ti.try_number", "ti.task_id", "ti.dag_id", "ti.max_tries",
	"task_instance.try_number", "task_instance.task_id", "task_instance.dag_id", "task_instance.max_tries",
)

// isStaticPrint tells whether a print's value can hold nothing from a
// request. It fails closed: anything it does not know is a request value.
func isStaticPrint(text string, rebound map[string]bool) (static bool) {
	defer func() {
		if recover() != nil {
			static = false
		}
	}()
	tpl, err := exec.NewTemplate(templateRoot, templateConfig(true), onlyRootLoader{source: text}, templateEnvironment(nil))
	if err != nil || len(tpl.Root().Nodes) != 1 {
		return false
	}
	out, ok := tpl.Root().Nodes[0].(*nodes.Output)
	return ok && isStaticOutput(out, rebound)
}

// isStaticOutput is isStaticPrint of a parsed print.
func isStaticOutput(out *nodes.Output, rebound map[string]bool) (static bool) {
	defer func() {
		if recover() != nil {
			static = false
		}
	}()
	for _, e := range []nodes.Expression{out.Expression, out.Condition, out.Alternative} {
		if e != nil && !isStaticExpr(e, rebound) {
			return false
		}
	}
	return true
}

func isStaticExpr(n nodes.Node, rebound map[string]bool) bool {
	static := func(children ...nodes.Node) bool {
		for _, c := range children {
			if c != nil && !isStaticExpr(c, rebound) {
				return false
			}
		}
		return true
	}
	switch e := n.(type) {
	case *nodes.String, *nodes.Integer, *nodes.Float, *nodes.Bool, *nodes.None:
		return true
	case *nodes.Name:
		return staticRoots[e.Name.Val] && !rebound[e.Name.Val]
	case *nodes.GetAttribute:
		if path, root, ok := dottedPath(e); ok && staticPaths[path] && !rebound[root] {
			return true
		}
		return static(e.Node)
	case *nodes.GetItem:
		return static(e.Node, e.Arg)
	case *nodes.GetSlice:
		return static(e.Node, e.Start, e.End, e.Step)
	case *nodes.Call:
		if !static(e.Func) {
			return false
		}
		for _, a := range e.Args {
			if !static(a) {
				return false
			}
		}
		for _, a := range e.Kwargs {
			if !static(a) {
				return false
			}
		}
		return true
	case *nodes.FilteredExpression:
		if !static(e.Expression) {
			return false
		}
		for _, f := range e.Filters {
			for _, a := range f.Args {
				if !static(a) {
					return false
				}
			}
			for _, a := range f.Kwargs {
				if !static(a) {
					return false
				}
			}
		}
		return true
	case *nodes.TestExpression:
		if !static(e.Expression) {
			return false
		}
		for _, a := range e.Test.Args {
			if !static(a) {
				return false
			}
		}
		for _, a := range e.Test.Kwargs {
			if !static(a) {
				return false
			}
		}
		return true
	case *nodes.BinaryExpression:
		return static(e.Left, e.Right)
	case *nodes.UnaryExpression:
		return static(e.Term)
	case *nodes.Negation:
		return static(e.Term)
	case *nodes.List:
		for _, v := range e.Val {
			if !static(v) {
				return false
			}
		}
		return true
	case *nodes.Tuple:
		for _, v := range e.Val {
			if !static(v) {
				return false
			}
		}
		return true
	}
	return false
}

// dottedPath is "ti.try_number" for the attribute chain of a name.
func dottedPath(n nodes.Node) (path, root string, ok bool) {
	switch e := n.(type) {
	case *nodes.Name:
		return e.Name.Val, e.Name.Val, true
	case *nodes.GetAttribute:
		if e.Attribute == "" {
			return "", "", false
		}
		p, r, ok := dottedPath(e.Node)
		return p + "." + e.Attribute, r, ok
	}
	return "", "", false
}

// renderedPrint is one print executed by a render that keeps request
// values out of the text: its marker stands in the text for value.
type renderedPrint struct {
	print  int // index in jinjaTemplate.prints
	marker string
	value  string
}

// render renders a template. With markValues, every print that is not
// static writes a marker into the text and its value is returned beside;
// without, every value is written as it is.
func (c templateContext) render(t *jinjaTemplate, markValues bool) (text string, values []renderedPrint, nonce string, err error) {
	if markValues {
		var random [16]byte
		if _, err := rand.Read(random[:]); err != nil {
			return "", nil, "", fmt.Errorf("make marker: %w", err)
		}
		nonce = hex.EncodeToString(random[:])
	}
	st := &renderState{t: t, rules: c.editionRules(), markValues: markValues, nonce: nonce}
	strict := c.editionRules().templateStrictUndefined
	tpl, err := t.compile(templateEnvironment(c.editionRules()), strict)
	if err != nil {
		return "", nil, "", err
	}
	vars := c.jinjaVars()
	vars[renderStateName] = st
	text, err = executeTemplate(tpl, vars)
	if err != nil {
		return "", nil, "", &templateError{msg: t.untangle(err.Error())}
	}
	return text, st.values, nonce, nil
}

// valueMarkerPrefix starts the marker of a request value in rendered text:
// word characters only, so that bash reads it as part of a word.
const valueMarkerPrefix = reservedPrefix + "_marker_"

// maxRenderedBytes bounds what one render may write.
const maxRenderedBytes = 4 << 20

// executeTemplate runs a template, turning a panic of the engine into an
// error and stopping a render that writes too much.
func executeTemplate(tpl *exec.Template, vars map[string]any) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("render template: %v", r)
		}
	}()
	var out limitedBuilder
	if err := tpl.Execute(&out, exec.NewContext(vars)); err != nil {
		return "", err
	}
	return out.String(), nil
}

// limitedBuilder is a strings.Builder that refuses to grow past
// maxRenderedBytes.
type limitedBuilder struct{ strings.Builder }

func (b *limitedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxRenderedBytes {
		return 0, fmt.Errorf("the rendered template exceeds %d bytes", maxRenderedBytes)
	}
	return b.Builder.Write(p)
}

func (b *limitedBuilder) WriteString(s string) (int, error) { return b.Write([]byte(s)) }

// renderText renders a value that is not shell text (env values), every
// value inserted as it is.
func (c templateContext) renderText(text string) (string, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	out, _, _, err := c.render(t, false)
	return out, err
}

// renderCwd renders a BashOperator's cwd (a template field in the editions
// whose release has it, editionRules.bashRendersCwd; else the text as it
// is). A cwd is not shell text, but it decides which files the author's
// command reads and writes (a relative path, a clean-up), so it may hold
// static values only: a print that may hold a request value (the conf,
// params, var, conn, ti.xcom_pull, ...) fails the try. Fail closed.
func (c templateContext) renderCwd(cwd string) (string, error) {
	if !c.editionRules().bashRendersCwd {
		return cwd, nil
	}
	t, err := parseTemplate(cwd)
	if err != nil {
		return "", err
	}
	for _, p := range t.prints {
		if !p.static {
			return "", &templateError{msg: fmt.Sprintf("%s may hold a value from a request, and a cwd may hold only values from the DAG file or the server (dates, ids); choose the folder in bash_command instead (cd \"$DIR\" with DIR in env)", p.text)}
		}
	}
	text, values, _, err := c.render(t, true)
	if err != nil {
		return "", err
	}
	if len(values) > 0 { // a static print never marks one; fail closed all the same
		return "", &templateError{msg: "the cwd holds a value from a request, which a cwd may not hold"}
	}
	return text, nil
}

// renderShell renders a compiled bash_command (see template_shellplan.go). Static
// values are inlined; each request value is written as the expansion of an
// environment variable, returned as NAME=value for the task's environment,
// so that bash only ever sees it after parsing the command.
func (c templateContext) renderShell(plan *shellPlan) (command string, valueEnv []string, err error) {
	t, err := parseTemplate(plan.source())
	if err != nil {
		return "", nil, err
	}
	text, values, nonce, err := c.render(t, true)
	if err != nil {
		return "", nil, err
	}
	return placeRenderedValues(t, text, values, nonce)
}
