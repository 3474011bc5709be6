package main

// Python's operators on dates and timedeltas in templates. gonja computes
// + - < <= > >= == != itself, on numbers and strings only, and has no way
// for a Go value to take part. So after parsing, every such operator that
// gonja's exported nodes reach (prints, {% if %}, {% for %}, {% do %},
// {% call %}, macro defaults) is replaced by a call of operatorFuncName,
// which does Python's date arithmetic when a date or a timedelta is an
// operand and hands every other pair back to gonja's own operator. Where
// the rewrite cannot reach ({% set %}, {% with %} and {% filter %} keep
// their expressions in unexported fields), gonja's operator would turn a
// date into 0; the date types refuse that (pyTemporal.Int), so the render
// fails instead of printing a wrong number.
//
// The safety check (isStaticPrint) reads each print as written, before
// this rewrite: an operation on a request value is a request value.

import (
	"fmt"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// operatorFuncName and negateFuncName are the functions the rewrite
// calls; they start with reservedPrefix, which no template may hold.
const (
	operatorFuncName = reservedPrefix + "_operator"
	negateFuncName   = reservedPrefix + "_negate"
)

// rewrittenOperators are the binary operators Python lets dates and
// timedeltas overload, by gonja's token type.
var rewrittenOperators = map[tokens.Type]bool{
	tokens.Addition: true, tokens.Subtraction: true,
	tokens.LowerThan: true, tokens.LowerThanOrEqual: true, tokens.GreaterThan: true, tokens.GreaterThanOrEqual: true,
	tokens.Equals: true, tokens.Ne: true,
}

// operatorFunctions are the context entries the rewritten nodes call.
func operatorFunctions() *exec.Context {
	return exec.NewContext(map[string]any{
		operatorFuncName: templateOperate,
		negateFuncName:   templateNegate,
	})
}

// rewriteOperators replaces, in place, the operators of a parsed template
// that gonja's exported nodes reach.
func rewriteOperators(root *nodes.Template) {
	r := operatorRewriter{done: map[nodes.Node]nodes.Node{}}
	r.nodes(root.Nodes)
	for _, m := range root.Macros {
		r.macro(m)
	}
}

// operatorRewriter remembers the operators it replaced, so that one
// reached twice (a call's Parent is also its Func's Node) becomes the same
// node; every other node is changed in place, which a second visit leaves
// as it is.
type operatorRewriter struct{ done map[nodes.Node]nodes.Node }

func (r operatorRewriter) nodes(list []nodes.Node) {
	for _, n := range list {
		r.statement(n)
	}
}

func (r operatorRewriter) wrapper(w *nodes.Wrapper) {
	if w != nil {
		r.nodes(w.Nodes)
	}
}

func (r operatorRewriter) macro(m *nodes.Macro) {
	if m == nil {
		return
	}
	for _, p := range m.Kwargs {
		p.Value = r.expr(p.Value)
	}
	r.wrapper(m.Wrapper)
}

func (r operatorRewriter) statement(n nodes.Node) {
	switch s := n.(type) {
	case *nodes.Output:
		s.Expression, s.Condition, s.Alternative = r.expr(s.Expression), r.expr(s.Condition), r.expr(s.Alternative)
	case *nodes.Wrapper:
		r.wrapper(s)
	case *nodes.ControlStructureBlock:
		switch c := s.ControlStructure.(type) {
		case *controlStructures.IfControlStructure:
			for i := range c.Conditions {
				c.Conditions[i] = r.expr(c.Conditions[i])
			}
			for _, w := range c.Wrappers {
				r.wrapper(w)
			}
		case *controlStructures.ForControlStructure:
			c.ObjectEvaluator, c.IfCondition = r.expr(c.ObjectEvaluator), r.expr(c.IfCondition)
			r.wrapper(c.BodyWrapper)
			r.wrapper(c.EmptyWrapper)
		case *controlStructures.DoControlStructure:
			c.Expression = r.expr(c.Expression)
		case *controlStructures.CallControlStructure:
			if call, ok := r.expr(c.Call).(*nodes.Call); ok {
				c.Call = call
			}
			r.wrapper(c.Body)
		case *controlStructures.MacroControlStructure:
			r.macro(c.Macro)
		case *controlStructures.AutoescapeControlStructure:
			r.wrapper(c.Wrapper)
		}
	}
}

// node rewrites a child held as a nodes.Node.
func (r operatorRewriter) node(n nodes.Node) nodes.Node {
	if e, ok := n.(nodes.Expression); ok && e != nil {
		return r.expr(e)
	}
	return n
}

func (r operatorRewriter) exprs(list []nodes.Expression) {
	for i := range list {
		list[i] = r.expr(list[i])
	}
}

func (r operatorRewriter) kwargs(m map[string]nodes.Expression) {
	for k, v := range m {
		m[k] = r.expr(v)
	}
}

func (r operatorRewriter) expr(e nodes.Expression) nodes.Expression {
	if e == nil {
		return nil
	}
	switch e.(type) {
	case *nodes.BinaryExpression, *nodes.UnaryExpression:
		if done, ok := r.done[e]; ok {
			return done.(nodes.Expression)
		}
	}
	out := e
	switch x := e.(type) {
	case *nodes.BinaryExpression:
		x.Left, x.Right = r.expr(x.Left), r.expr(x.Right)
		if x.Operator != nil && x.Operator.Token != nil && rewrittenOperators[x.Operator.Token.Type] {
			tok := x.Operator.Token
			out = &nodes.Call{Location: tok, Func: &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: operatorFuncName, Pos: tok.Pos, Line: tok.Line, Col: tok.Col}},
				Args: []nodes.Expression{x.Left, x.Right, &nodes.String{Location: tok, Val: tok.Val}}, Kwargs: map[string]nodes.Expression{}}
		}
	case *nodes.UnaryExpression:
		x.Term = r.expr(x.Term)
		if x.Negative {
			out = &nodes.Call{Location: x.Operator, Func: &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: negateFuncName}},
				Args: []nodes.Expression{x.Term}, Kwargs: map[string]nodes.Expression{}}
		}
	case *nodes.Negation:
		x.Term = r.expr(x.Term)
	case *nodes.Call:
		x.Func, x.Parent = r.node(x.Func), r.node(x.Parent)
		r.exprs(x.Args)
		r.kwargs(x.Kwargs)
	case *nodes.GetAttribute:
		x.Node = r.node(x.Node)
	case *nodes.GetItem:
		x.Node, x.Arg = r.node(x.Node), r.node(x.Arg)
	case *nodes.GetSlice:
		x.Node, x.Start, x.End, x.Step = r.node(x.Node), r.node(x.Start), r.node(x.End), r.node(x.Step)
	case *nodes.FilteredExpression:
		x.Expression = r.expr(x.Expression)
		for _, f := range x.Filters {
			r.exprs(f.Args)
			r.kwargs(f.Kwargs)
		}
	case *nodes.TestExpression:
		x.Expression = r.expr(x.Expression)
		if x.Test != nil {
			r.exprs(x.Test.Args)
			r.kwargs(x.Test.Kwargs)
		}
	case *nodes.List:
		r.exprs(x.Val)
	case *nodes.Tuple:
		r.exprs(x.Val)
	case *nodes.Dict:
		for _, p := range x.Pairs {
			p.Key, p.Value = r.expr(p.Key), r.expr(p.Value)
		}
	case *nodes.Pair:
		x.Key, x.Value = r.expr(x.Key), r.expr(x.Value)
	}
	switch e.(type) {
	case *nodes.BinaryExpression, *nodes.UnaryExpression:
		r.done[e] = out
	}
	return out
}

// templateOperate is "left op right": Python's date arithmetic when an
// operand is a date or a timedelta, gonja's operator otherwise.
func templateOperate(e *exec.Evaluator, args *exec.VarArgs) *exec.Value {
	if len(args.Args) != 3 {
		return exec.AsValue(fmt.Errorf("operator called with %d arguments", len(args.Args)))
	}
	left, right, op := args.Args[0], args.Args[1], args.Args[2].String()
	l, lok := left.Interface().(pyTemporal)
	r, rok := right.Interface().(pyTemporal)
	if !lok && !rok {
		return gonjaOperate(e, left, right, op)
	}
	v, err := temporalOperate(l, r, op, left, right)
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(v)
}

// gonjaOperate evaluates "left op right" with gonja's own operator, on
// values already evaluated.
func gonjaOperate(e *exec.Evaluator, left, right *exec.Value, op string) *exec.Value {
	typ, ok := map[string]tokens.Type{
		"+": tokens.Addition, "-": tokens.Subtraction, "<": tokens.LowerThan, "<=": tokens.LowerThanOrEqual,
		">": tokens.GreaterThan, ">=": tokens.GreaterThanOrEqual, "==": tokens.Equals, "!=": tokens.Ne,
	}[op]
	if !ok {
		return exec.AsValue(fmt.Errorf("unknown operator %q", op))
	}
	const l, r = reservedPrefix + "_left", reservedPrefix + "_right"
	env := *e.Environment
	env.Context = exec.NewContext(map[string]any{l: left, r: right})
	sub := &exec.Evaluator{Config: e.Config, Environment: &env, Loader: e.Loader}
	return sub.Eval(&nodes.BinaryExpression{
		Left:     &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: l}},
		Right:    &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: r}},
		Operator: &nodes.BinOperator{Token: &tokens.Token{Type: typ, Val: op}},
	})
}

// templateNegate is "-x": a negated timedelta, gonja's minus otherwise.
func templateNegate(e *exec.Evaluator, args *exec.VarArgs) *exec.Value {
	if len(args.Args) != 1 {
		return exec.AsValue(fmt.Errorf("negation called with %d arguments", len(args.Args)))
	}
	in := args.Args[0]
	switch x := in.Interface().(type) {
	case templateTimedelta:
		d, err := newTimedelta(-x.us)
		if err != nil {
			return exec.AsValue(err)
		}
		return exec.AsValue(d)
	case templateRelativedelta:
		return exec.AsValue(x.negated())
	case pyTemporal:
		return exec.AsValue(fmt.Errorf("TypeError: bad operand type for unary -: %s", pyQuote(x.pyTypeName())))
	}
	const v = reservedPrefix + "_term"
	env := *e.Environment
	env.Context = exec.NewContext(map[string]any{v: in})
	sub := &exec.Evaluator{Config: e.Config, Environment: &env, Loader: e.Loader}
	return sub.Eval(&nodes.UnaryExpression{Negative: true, Term: &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: v}},
		Operator: &tokens.Token{Type: tokens.Subtraction, Val: "-"}})
}
