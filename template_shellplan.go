package main

// A BashOperator's bash_command names values through templates, and some of
// them come from a request: a trigger's conf, which also overrides params,
// and in 1.10 the run_id, which that edition takes as any string. Quoting a
// value for the spot where it lands needs a full bash parser (here-documents,
// $(...), ${v:-...}, backquotes, bash -c), so airlite never quotes one.
// Instead the command is parsed once, when the DAG loads, and a request
// value may only sit where bash takes a word as data (an argument, an
// assignment's value, a case word, a for list). There it is written as
// "${AIRLITE_VALUE_N}", and the value travels in that environment variable:
// bash expands it after parsing, so nothing in it is ever read as shell text.
// Any other spot fails the load with the advice Airflow gives since
// CVE-2020-11978: pass the value through env and write "$X".

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// placeholderPrefix stands for a request value while the command is
	// parsed: word characters only, so the parser keeps it inside whatever
	// literal text surrounds it.
	placeholderPrefix = "__airlite_value_"
	// staticPlaceholder stands for a static value. Its dot keeps X{{ ds }}=
	// from parsing as an assignment, as the real value (2024-01-01) would.
	staticPlaceholder = "__airlite.static__"
	// reservedPrefix is refused in a command that takes request values, so
	// that no placeholder collides with the author's own text.
	reservedPrefix = "__airlite"
	// valueVarPrefix names the environment variables that carry request
	// values to bash.
	valueVarPrefix = "AIRLITE_VALUE_"
)

// Commands that read an argument as code. A request value is never an
// argument of one. Programs are matched on their base name with a version
// suffix dropped (/usr/bin/python3.11), and also when they come later on
// the command line, after a wrapper that runs them (sudo sh -c, docker exec
// c python3 -c); builtins only as the command name, since later on the line
// "." or "time" is more likely a folder or a word than a builtin.
var (
	// builtinsThatRunArguments run their arguments or the command they
	// name, or take a variable name, whose subscript bash evaluates (read
	// 'a[$(id)]' runs id); compgen -W expands its word list.
	builtinsThatRunArguments = setOf(
		"eval", "exec", "source", ".", "command", "builtin", "trap",
		"read", "unset", "mapfile", "readarray", "wait", "getopts", "let",
		"declare", "typeset", "local", "export", "readonly",
		"alias", "bind", "compgen", "complete", "compopt", "enable", "fc", "hash",
	)
	// programsThatRunArguments are shells, runners of another command and
	// interpreters.
	programsThatRunArguments = setOf(
		// shells
		"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "busybox", "fish", "csh", "tcsh",
		// runners of a command
		"xargs", "ssh", "su", "sudo", "doas", "runuser", "pkexec", "sg", "env", "nohup", "nice", "ionice",
		"timeout", "setsid", "stdbuf", "time", "watch", "parallel", "flock", "chroot", "unshare", "nsenter",
		"script", "expect", "taskset", "chrt", "strace", "ltrace", "gdb", "systemd-run",
		// interpreters
		"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "php",
		"lua", "tclsh", "awk", "gawk", "mawk", "nawk", "sed", "m4", "make", "Rscript", "pwsh",
		"psql", "mysql", "sqlite3", "sqlplus",
	)
)

// operandsThatRunOrName are options of ordinary commands whose operand is a
// command to run or a variable name bash evaluates; the rest of those
// commands' arguments are data. attached: the operand may also be glued to
// the option (printf -vNAME).
var operandsThatRunOrName = map[string][]struct {
	option   string
	attached bool
}{
	"find":   {{"-exec", false}, {"-execdir", false}, {"-ok", false}, {"-okdir", false}},
	"printf": {{"-v", true}},
	"test":   {{"-v", false}},
	"[":      {{"-v", false}},
}

// specialVariables are variables that bash or the dynamic loader read as
// more than data: a request value assigned to one would change what runs
// (PATH, LD_PRELOAD), run as code (PROMPT_COMMAND, BASH_ENV, PS4 under
// xtrace) or be evaluated as arithmetic, subscripts and command
// substitutions included (RANDOM, OPTIND: tried on bash 5.2).
var (
	specialVariables = setOf(
		"PATH", "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "IFS",
		"SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "HISTFILE",
		"RANDOM", "SRANDOM", "OPTIND", "HISTCMD",
	)
	specialVariablePrefixes = []string{"BASH_", "LD_", "DYLD_"}
)

// declarers are the builtins that give variables attributes.
var declarers = setOf("declare", "typeset", "local", "export", "readonly", "nameref")

func setOf(names ...string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// shellPlan is a bash_command compiled at load: the command as written and,
// for every {{ ... }} in it, how its value reaches bash.
type shellPlan struct {
	command string
	exprs   []shellExpr // in the order they appear
}

// shellExpr is one {{ ... }} of a bash_command.
type shellExpr struct {
	start, end int    // of "{{ ... }}" in the command
	inner      string // the text between the braces
	// valueVar is the environment variable that carries a request value;
	// empty for a static name, which is inlined.
	valueVar string
	// inDoubleQuotes: the author's own "..." surround the expression, so
	// the expansion needs no quotes of its own.
	inDoubleQuotes bool
}

// shellRefusal says why a bash_command cannot take a request value where
// it places one. line is the line of the command (from 1) that holds it.
type shellRefusal struct {
	expr    string // "{{ dag_run.conf.x }}" as written; empty when the command does not parse
	line    int
	where   string // the context in words: "inside a here-document"
	problem string
	advice  string
}

func (r *shellRefusal) Error() string {
	head := r.where
	if r.expr != "" {
		head = r.expr + " " + r.where
	}
	return head + ": " + r.problem + "; " + r.advice
}

// compileShellPlan checks a bash_command's template and decides, for
// every {{ ... }} in it, how its value reaches bash. A command that places
// no request value is not parsed as bash: it runs as rendered, static
// values inlined, as it always has. One with {% %} tags is checked on its
// text with the tags taken out, when that parses; the rendered command is
// checked again when the task runs (placeRenderedValues).
func compileShellPlan(command string) (*shellPlan, error) {
	t, err := parseTemplate(command)
	if err != nil {
		return nil, templateRefusal(command, err)
	}
	plan := &shellPlan{command: command}
	values := 0
	for _, p := range t.prints {
		e := shellExpr{start: p.start, end: p.end, inner: p.inner}
		if !p.static {
			values++
			e.valueVar = valueVarPrefix + strconv.Itoa(values)
		}
		plan.exprs = append(plan.exprs, e)
	}
	if values == 0 || t.captures {
		return plan, nil
	}
	check := plan
	if len(t.tags) > 0 {
		check = withoutTags(plan, t.tags)
	}
	c := &shellCompiler{plan: check}
	err = c.place()
	if err == nil {
		err = c.verify()
	}
	var refusal *shellRefusal
	if len(t.tags) > 0 && errors.As(err, &refusal) && refusal.expr == "" {
		// The text without its tags does not parse; the rendered command
		// will be checked when the task runs.
		return plan, nil
	}
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// templateRefusal is the load error for a template that does not parse.
func templateRefusal(command string, err error) *shellRefusal {
	line := 1
	if m := templateLineRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return &shellRefusal{
		line:    min(max(line, 1), 1+strings.Count(command, "\n")),
		where:   "is not a valid Jinja template",
		problem: err.Error(),
		advice:  "fix the template (Airflow renders bash_command with Jinja)",
	}
}

var templateLineRe = regexp.MustCompile(`line (\d+)`)

// withoutTags is the plan of a command with its {% %} tags and {# #}
// comments taken out, for the load-time check.
func withoutTags(plan *shellPlan, tags [][2]int) *shellPlan {
	out := &shellPlan{}
	var b strings.Builder
	last, ti := 0, 0
	for _, e := range plan.exprs {
		for ti < len(tags) && tags[ti][0] < e.start {
			b.WriteString(plan.command[last:tags[ti][0]])
			last = tags[ti][1]
			ti++
		}
		b.WriteString(plan.command[last:e.start])
		start := b.Len()
		b.WriteString(plan.command[e.start:e.end])
		moved := e
		moved.start, moved.end = start, b.Len()
		out.exprs = append(out.exprs, moved)
		last = e.end
	}
	for ; ti < len(tags); ti++ {
		b.WriteString(plan.command[last:tags[ti][0]])
		last = tags[ti][1]
	}
	b.WriteString(plan.command[last:])
	out.command = b.String()
	return out
}

// source is the template of a plan: its command with each expression as
// the plan holds it.
func (p *shellPlan) source() string {
	var b strings.Builder
	last := 0
	for _, e := range p.exprs {
		b.WriteString(p.command[last:e.start])
		b.WriteString(p.command[e.start : e.start+2]) // {{ or {{-
		if p.command[e.start+2] == '-' {
			b.WriteByte('-')
		}
		b.WriteString(e.inner)
		if strings.HasSuffix(p.command[:e.end], "-}}") {
			b.WriteByte('-')
		}
		b.WriteString("}}")
		last = e.end
	}
	b.WriteString(p.command[last:])
	return b.String()
}

// placeRenderedValues checks a rendered bash_command whose request values
// stand as markers (templateContext.render) and writes each as the
// expansion of its own environment variable. Every marker must stand
// exactly once, as it was written, where bash takes it as data; anything
// else fails the try: a value that a {% filter %}, a {% set %} block or a
// macro took in is not followed.
func placeRenderedValues(t *jinjaTemplate, text string, values []renderedPrint, nonce string) (string, []string, error) {
	if len(values) == 0 {
		return text, nil, nil
	}
	type hit struct{ at, value int }
	hits := make([]hit, 0, len(values))
	for i, v := range values {
		at := strings.Index(text, v.marker)
		if at < 0 || strings.Count(text, v.marker) != 1 || strings.Contains(v.value, nonce) {
			return "", nil, &templateError{msg: fmt.Sprintf("%s: a value from a request passed through a {%% filter %%}, a {%% set %%} block or a macro, where airlite cannot keep it out of shell text; print it with {{ ... }} where the command needs it", t.prints[v.print].text)}
		}
		hits = append(hits, hit{at, i})
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.at - b.at })
	plan := &shellPlan{}
	var b strings.Builder
	last := 0
	for n, h := range hits {
		v := values[h.value]
		b.WriteString(text[last:h.at])
		display := t.prints[v.print].text
		e := shellExpr{start: b.Len(), end: b.Len() + len(display), inner: v.value, valueVar: valueVarPrefix + strconv.Itoa(n+1)}
		b.WriteString(display)
		plan.exprs = append(plan.exprs, e)
		last = h.at + len(v.marker)
	}
	b.WriteString(text[last:])
	plan.command = b.String()
	if strings.Contains(strings.ToLower(plan.command), nonce) {
		return "", nil, &templateError{msg: "a value from a request was changed after it was printed ({% filter %} or a macro), where airlite cannot keep it out of shell text"}
	}
	c := &shellCompiler{plan: plan}
	if err := c.place(); err != nil {
		return "", nil, err
	}
	if err := c.verify(); err != nil {
		return "", nil, err
	}
	var out strings.Builder
	var env []string
	last = 0
	for _, e := range plan.exprs {
		if strings.IndexByte(e.inner, 0) >= 0 {
			return "", nil, &templateError{msg: fmt.Sprintf("the value of %s holds a NUL byte, which no environment variable can carry", plan.command[e.start:e.end])}
		}
		out.WriteString(plan.command[last:e.start])
		out.WriteString(e.expansion())
		env = append(env, e.valueVar+"="+e.inner)
		last = e.end
	}
	out.WriteString(plan.command[last:])
	return out.String(), env, nil
}

// shellCompiler places the request values of one plan.
type shellCompiler struct {
	plan *shellPlan
	text string // the command with placeholders
	// spans[i] is where plan.exprs[i] stands in text.
	spans [][2]int
	// sites[i] is what holds plan.exprs[i]'s placeholder in the syntax tree.
	sites []placeholderSite
	// evaluated are variables the command declares as integers (bash
	// evaluates what is assigned to one as arithmetic) or as references
	// (bash reads what is assigned as a variable name).
	evaluated map[string]bool
}

// placeholderSite is the node that holds a placeholder, with its ancestors
// (the file first).
type placeholderSite struct {
	node  syntax.Node // *syntax.Lit, *syntax.SglQuoted or *syntax.Comment
	chain []syntax.Node
}

func newBashParser() *syntax.Parser {
	return syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
}

// place parses the command with a placeholder for every expression and
// records where each request value may go, or refuses.
func (c *shellCompiler) place() error {
	plan := c.plan
	if at := max(strings.Index(plan.command, reservedPrefix), strings.Index(plan.command, valueVarPrefix)); at >= 0 {
		return &shellRefusal{
			line:    1 + strings.Count(plan.command[:at], "\n"),
			where:   "the command holds " + reservedPrefix + " or " + valueVarPrefix + ", which are reserved",
			problem: "airlite writes these names into a command that takes values from a request",
			advice:  "rename them in the command",
		}
	}
	var b strings.Builder
	last := 0
	for i, e := range plan.exprs {
		b.WriteString(plan.command[last:e.start])
		placeholder := staticPlaceholder
		if e.valueVar != "" {
			placeholder = placeholderPrefix + strconv.Itoa(i) + "__"
		}
		c.spans = append(c.spans, [2]int{b.Len(), b.Len() + len(placeholder)})
		b.WriteString(placeholder)
		last = e.end
	}
	b.WriteString(plan.command[last:])
	c.text = b.String()

	file, err := newBashParser().Parse(strings.NewReader(c.text), "")
	if err != nil {
		return c.parseRefusal(err)
	}
	c.sites = make([]placeholderSite, len(plan.exprs))
	c.evaluated = map[string]bool{}
	walkWithAncestors(file, func(n syntax.Node, chain []syntax.Node) {
		switch n := n.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
			for i, span := range c.spans {
				if n.Pos().Offset() <= uint(span[0]) && uint(span[1]) <= n.End().Offset() {
					c.sites[i] = placeholderSite{node: n, chain: append([]syntax.Node(nil), chain...)}
				}
			}
		case *syntax.DeclClause:
			c.noteDeclaredNames(n)
		case *syntax.CallExpr:
			c.noteDeclaringCall(n)
		}
	})
	for i := range plan.exprs {
		if plan.exprs[i].valueVar == "" {
			continue
		}
		if err := c.placeValue(i); err != nil {
			return err
		}
	}
	return nil
}

// walkWithAncestors calls fn for every node with its ancestors, the file
// first (syntax.Walk calls back with nil when it leaves a node). chain is
// reused: fn copies what it keeps.
func walkWithAncestors(root syntax.Node, fn func(n syntax.Node, chain []syntax.Node)) {
	var stack []syntax.Node
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		fn(n, stack[:len(stack):len(stack)])
		stack = append(stack, n)
		return true
	})
}

// placeValue decides where the request value of plan.exprs[i] may go.
func (c *shellCompiler) placeValue(i int) error {
	site := c.sites[i]
	switch n := site.node.(type) {
	case nil:
		return c.refusal(i, "in a part of the command that is not a word", "", "")
	case *syntax.Comment:
		return c.refusal(i, "inside a # comment", "", "")
	case *syntax.SglQuoted:
		if n.Dollar {
			return c.refusal(i, "inside $'...' quotes", "", "")
		}
		return c.refusal(i, "inside single quotes", "", "")
	}
	lit := site.node.(*syntax.Lit)
	chain := append(site.chain, lit)
	for j := 0; j+1 < len(chain); j++ {
		if where := enclosingContext(chain[j], chain[j+1]); where != "" {
			return c.refusal(i, where, "", "")
		}
	}
	// An odd run of backslashes would escape the quote written before the
	// expansion.
	before := c.text[lit.Pos().Offset():c.spans[i][0]]
	if (len(before)-len(strings.TrimRight(before, `\`)))%2 == 1 {
		return c.refusal(i, "after a backslash", "", "remove the backslash, or pass it through env "+c.envAdvice(i))
	}

	// The literal must be a part of a word, or of "..." that is.
	k := len(chain) - 2
	if dq, ok := chain[k].(*syntax.DblQuoted); ok && !dq.Dollar {
		c.plan.exprs[i].inDoubleQuotes = true
		k--
	}
	word, ok := chain[k].(*syntax.Word)
	if !ok {
		switch p := chain[k].(type) {
		case *syntax.Assign:
			if p.Naked {
				return c.refusal(i, "as a declare argument that is not NAME=value", "", "")
			}
			return c.refusal(i, "as a variable name", "", "")
		case *syntax.WordIter:
			return c.refusal(i, "as a loop variable name", "", "")
		case *syntax.FuncDecl:
			return c.refusal(i, "as a function name", "", "")
		}
		return c.refusal(i, "as a name bash reads", "", "")
	}
	switch p := chain[k-1].(type) {
	case *syntax.CallExpr:
		return c.checkArgument(i, p, word)
	case *syntax.Assign:
		return c.checkAssignment(i, p, chain[k-2])
	case *syntax.CaseClause: // case {{ x }} in
		return nil
	case *syntax.WordIter: // for v in {{ x }}; select lists are refused by enclosingContext
		return nil
	}
	return c.refusal(i, "in this position", "", "")
}

// enclosingContext names what a node makes of a child in it when that is
// no place for a request value, or returns "".
func enclosingContext(parent, child syntax.Node) string {
	switch p := parent.(type) {
	case *syntax.CmdSubst:
		if p.Backquotes {
			return "inside a `...` command substitution"
		}
		return "inside a $(...) command substitution"
	case *syntax.ProcSubst:
		return "inside a <(...) process substitution"
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop,
		*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		return "inside arithmetic"
	case *syntax.ParamExp:
		return "inside a ${...} parameter expansion"
	case *syntax.TestClause:
		return "inside a [[ ... ]] test"
	case *syntax.ExtGlob:
		return "inside an extended glob"
	case *syntax.DblQuoted:
		if p.Dollar {
			return `inside $"..." quotes`
		}
	case *syntax.Assign:
		switch {
		case p.Index != nil && child == syntax.Node(p.Index):
			return "in an array index"
		case p.Array != nil && child == syntax.Node(p.Array):
			return "in an array literal"
		}
	case *syntax.Redirect:
		switch {
		case p.Hdoc != nil && child == syntax.Node(p.Hdoc):
			return "inside a here-document"
		case p.N != nil && child == syntax.Node(p.N):
			return "as a redirect's file descriptor"
		case p.Op == syntax.Hdoc || p.Op == syntax.DashHdoc:
			return "as a here-document delimiter"
		case p.Op == syntax.WordHdoc:
			return whereHereString
		}
		return whereRedirectTarget
	case *syntax.CaseItem:
		if _, ok := child.(*syntax.Word); ok {
			return "as a case pattern"
		}
	case *syntax.ForClause:
		if p.Select && child == p.Loop {
			return "in a select list"
		}
	case *syntax.CoprocClause:
		if p.Name != nil && child == syntax.Node(p.Name) {
			return "as a coprocess name"
		}
	}
	return ""
}

// checkArgument allows a request value in an argument of a command written
// out literally that does not run its arguments as code.
func (c *shellCompiler) checkArgument(i int, call *syntax.CallExpr, word *syntax.Word) error {
	index := slices.Index(call.Args, word)
	switch index {
	case -1:
		return c.refusal(i, "in this position", "", "")
	case 0:
		return c.refusal(i, "as the command name", "a value from a request would choose the program to run",
			"name the program in the DAG file")
	}
	name, ok := wordLiteral(call.Args[0])
	if !ok {
		return c.refusal(i, "as an argument of a command whose name is not plain text",
			"airlite cannot tell whether that command runs its arguments as code", c.programAdvice(i))
	}
	if builtinsThatRunArguments[name] {
		return c.refusal(i, "as an argument of "+name+", which reads its arguments as code",
			"a value from a request would be read as code", c.programAdvice(i))
	}
	for _, arg := range call.Args[:index] {
		if lit, ok := wordLiteral(arg); ok && runsArguments(lit) {
			return c.refusal(i, "as an argument of "+lit+", which reads its arguments as code",
				"a value from a request would be read as code", c.programAdvice(i))
		}
	}
	prev, _ := wordLiteral(call.Args[index-1])
	before := unquoted.Replace(c.text[word.Pos().Offset():c.spans[i][0]]) // the word up to the value
	for _, op := range operandsThatRunOrName[path.Base(name)] {
		if prev == op.option || (op.attached && strings.HasPrefix(before, op.option)) {
			return c.refusal(i, "after "+name+" "+op.option+", whose operand is a command or a variable name",
				"a value from a request would be read as code", c.programAdvice(i))
		}
	}
	return nil
}

// unquoted drops quotes and backslashes, enough to see an option glued to
// a value ("-v"{{ x }}).
var unquoted = strings.NewReplacer(`"`, "", `'`, "", `\`, "")

// runsArguments tells whether a program is in programsThatRunArguments, by
// base name and with a version suffix dropped.
func runsArguments(name string) bool {
	base := path.Base(name)
	stem := strings.TrimRight(base, "0123456789.")
	return programsThatRunArguments[base] || (stem != "" && programsThatRunArguments[stem])
}

// checkAssignment allows a request value as the value of NAME=value, alone,
// before a command, or in a declare, export, local, readonly or typeset
// without options, when bash reads NAME's value as data.
func (c *shellCompiler) checkAssignment(i int, a *syntax.Assign, holder syntax.Node) error {
	if a.Naked || a.Name == nil {
		return c.refusal(i, "as a declare argument that is not NAME=value", "", "")
	}
	name := a.Name.Value
	if isSpecialVariable(name) {
		return c.refusal(i, "assigned to "+name+", which bash or the loader treats specially",
			"a value from a request would change what runs", "assign it to another variable")
	}
	if decl, ok := holder.(*syntax.DeclClause); ok {
		variant := decl.Variant.Value
		if variant == "nameref" {
			return c.refusal(i, "in a nameref", "", "")
		}
		for _, arg := range decl.Args {
			if isOptionArg(arg) {
				return c.refusal(i, "in a "+variant+" with options", "", "")
			}
		}
	}
	if c.evaluated[name] {
		return c.refusal(i, "assigned to "+name+", which the command declares with -i or -n",
			"bash evaluates what is assigned to an integer and follows a reference",
			"assign it to a variable declared without these options")
	}
	return nil
}

func isSpecialVariable(name string) bool {
	if specialVariables[name] {
		return true
	}
	for _, prefix := range specialVariablePrefixes {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// isOptionArg tells whether an argument of declare and its kin is an
// option such as -i or +x (the parser keeps it as a naked assignment).
func isOptionArg(a *syntax.Assign) bool {
	if !a.Naked || a.Value == nil {
		return false
	}
	lit, ok := wordLiteral(a.Value)
	return !ok || strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+")
}

// evaluatingOptions tells whether options given to declare and its kin
// make bash evaluate what is later assigned: -i (integer) or -n (nameref).
// An option that is not plain text counts as one.
func evaluatingOptions(option string, literal bool) bool {
	return !literal || ((strings.HasPrefix(option, "-") || strings.HasPrefix(option, "+")) &&
		strings.ContainsAny(option[1:], "in"))
}

// noteDeclaredNames records the names a declare -i or -n declares.
func (c *shellCompiler) noteDeclaredNames(decl *syntax.DeclClause) {
	evaluating := decl.Variant.Value == "nameref"
	for _, arg := range decl.Args {
		if isOptionArg(arg) {
			lit, ok := wordLiteral(arg.Value)
			evaluating = evaluating || evaluatingOptions(lit, ok)
		}
	}
	if !evaluating {
		return
	}
	for _, arg := range decl.Args {
		if arg.Name != nil {
			c.evaluated[arg.Name.Value] = true
		}
	}
}

// noteDeclaringCall does the same for a declare the parser sees as a plain
// command (builtin declare -i n, command local -n r).
func (c *shellCompiler) noteDeclaringCall(call *syntax.CallExpr) {
	declaring, evaluating := false, false
	var names []string
	for _, arg := range call.Args {
		lit, ok := wordLiteral(arg)
		switch {
		case !declaring:
			declaring = ok && declarers[lit]
		case !ok || strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+"):
			evaluating = evaluating || evaluatingOptions(lit, ok)
		default:
			name, _, _ := strings.Cut(lit, "=")
			names = append(names, name)
		}
	}
	if evaluating {
		for _, name := range names {
			c.evaluated[name] = true
		}
	}
}

// wordLiteral is a word's text after quote removal when it has no
// expansion in it.
func wordLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes bash's backslashes from literal text: before any
// character outside quotes (escapable == ""), before the listed ones
// inside double quotes. A backslash-newline joins lines.
func unescape(s, escapable string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (escapable == "" || strings.IndexByte(escapable, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// verify parses the command as it will run, each request value written as
// its expansion, and checks that every expansion is a plain ${NAME} inside
// double quotes that nothing around it re-reads: a second opinion on place,
// against a splice that would change how bash reads the text around it.
func (c *shellCompiler) verify() error {
	plan := c.plan
	var b strings.Builder
	last := 0
	for _, e := range plan.exprs {
		b.WriteString(plan.command[last:e.start])
		if e.valueVar == "" {
			b.WriteString(staticPlaceholder)
		} else {
			b.WriteString(e.expansion())
		}
		last = e.end
	}
	b.WriteString(plan.command[last:])
	file, err := newBashParser().Parse(strings.NewReader(b.String()), "")
	if err != nil {
		return c.parseRefusal(err)
	}
	quoted := map[string]int{} // expansions seen as "${NAME}"
	other := map[string]bool{} // expansions seen any other way
	walkWithAncestors(file, func(n syntax.Node, chain []syntax.Node) {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || !strings.HasPrefix(pe.Param.Value, valueVarPrefix) {
			return
		}
		plain := !pe.Short && !pe.Excl && !pe.Length && !pe.Width && pe.Index == nil && pe.Slice == nil &&
			pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
		k := len(chain)
		dq, inQuotes := chain[k-1].(*syntax.DblQuoted)
		_, inWord := chain[k-2].(*syntax.Word)
		for j := 0; j+1 < k; j++ {
			plain = plain && enclosingContext(chain[j], chain[j+1]) == ""
		}
		if plain && inQuotes && !dq.Dollar && inWord {
			quoted[pe.Param.Value]++
		} else {
			other[pe.Param.Value] = true
		}
	})
	for i, e := range plan.exprs {
		if e.valueVar != "" && (quoted[e.valueVar] != 1 || other[e.valueVar]) {
			return c.refusal(i, "where airlite cannot write it as a quoted expansion", "", "")
		}
	}
	return nil
}

// expansion is how a request value is written into the command.
func (e shellExpr) expansion() string {
	if e.inDoubleQuotes {
		return "${" + e.valueVar + "}"
	}
	return `"${` + e.valueVar + `}"`
}

// Two contexts where bash would not read a request value as shell text,
// refused for what the value would do there instead.
const (
	whereRedirectTarget = "as a redirect target"
	whereHereString     = "in a here-string"
)

// refusal builds the error for plan.exprs[i]; an empty problem or advice
// takes the one for the context.
func (c *shellCompiler) refusal(i int, where, problem, advice string) *shellRefusal {
	e := c.plan.exprs[i]
	switch {
	case problem != "":
	case where == whereRedirectTarget:
		problem, advice = "a value from a request would choose the file bash opens", "name the file in the DAG file"
	case where == whereHereString:
		problem = "airlite keeps values from a request out of redirections"
		advice = "pass it through env instead " + c.envAdvice(i) + ` and write <<< "$X"`
	default:
		problem = "a value from a request would be read as shell text"
	}
	if advice == "" {
		advice = "pass it through env instead " + c.envAdvice(i) + ` and write "$X"`
	}
	return &shellRefusal{
		expr:    c.plan.command[e.start:e.end],
		line:    1 + strings.Count(c.plan.command[:e.start], "\n"),
		where:   where,
		problem: problem,
		advice:  advice,
	}
}

// envAdvice is the env entry that would carry plan.exprs[i] instead.
func (c *shellCompiler) envAdvice(i int) string {
	e := c.plan.exprs[i]
	return fmt.Sprintf(`(env: {X: "%s"})`, c.plan.command[e.start:e.end])
}

// programAdvice is the advice for a value that would reach a program as
// code: the program reads it from its environment instead.
func (c *shellCompiler) programAdvice(i int) string {
	return "pass it through env instead " + c.envAdvice(i) + ` and let the program read X from its environment ("$X" in bash -c '...')`
}

// parseRefusal is the error for a command that takes a request value and
// does not parse: airlite cannot tell where the value would land.
func (c *shellCompiler) parseRefusal(err error) *shellRefusal {
	detail, line := err.Error(), 1
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		// Placeholders keep lines but not columns: name the line only.
		detail, line = pe.Text, int(pe.Pos.Line())
	}
	for i, span := range c.spans { // the author's text, not the placeholders
		if c.plan.exprs[i].valueVar == "" {
			continue // one placeholder stands for every static name
		}
		detail = strings.ReplaceAll(detail, c.text[span[0]:span[1]], c.plan.command[c.plan.exprs[i].start:c.plan.exprs[i].end])
	}
	return &shellRefusal{
		line:    line,
		where:   fmt.Sprintf("does not parse as bash (line %d of the command: %s)", line, detail),
		problem: "airlite parses a command that takes a value from a request, to place the value as data",
		advice:  `fix the command, or pass the value through env (env: {X: "{{ dag_run.conf.x }}"}) and write "$X"`,
	}
}
