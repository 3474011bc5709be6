package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// This file turns definition files (YAML, or JSON, which the YAML parser
// reads too) into the on-disk structs of dag_yaml.go, with errors a person can
// act on: every one names the line and says what was wrong in plain words,
// never in the decoder's (Go types, YAML tags).

// parseDefinitionNode parses a definition file into its top node.
// nothing names what an empty file lacks ("no DAG defined").
func parseDefinitionNode(data []byte, nothing string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("line 1: empty file: %s", nothing)
		}
		return nil, syntaxError(data, err)
	}
	root := resolveAlias(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = resolveAlias(root.Content[0])
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, fmt.Errorf("line %d: empty file: %s", root.Line, nothing)
	}
	if err := checkAliases(root); err != nil {
		return nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(data, err)
	case len(next.Content) > 0 && next.Content[0].Tag != "!!null":
		return nil, fmt.Errorf("line %d: a second YAML document (after ---): a file holds one definition", next.Content[0].Line)
	}
	return root, nil
}

// maxAliasGrowth bounds how many times aliases may multiply a file's
// values (with a floor for small files): each alias is decoded again
// where it is used, so nested aliases could make a small file cost
// without end, as YAML's "billion laughs" does.
const maxAliasGrowth = 10

// checkAliases refuses an alias (*name) used inside the value it names,
// which would send decoding round for ever, and aliases that expand the
// document more than maxAliasGrowth times.
func checkAliases(root *yaml.Node) error {
	if !hasAlias(root) {
		return nil
	}
	const onPath = -1
	expanded := map[*yaml.Node]int64{} // node -> its size with aliases expanded
	var size func(n *yaml.Node) (int64, error)
	size = func(n *yaml.Node) (int64, error) {
		switch got, seen := expanded[n]; {
		case seen && got == onPath:
			return 0, errAliasLoop
		case seen:
			return got, nil
		}
		expanded[n] = onPath
		total := int64(1)
		children := n.Content
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			children = []*yaml.Node{n.Alias}
		}
		for _, c := range children {
			sub, err := size(c)
			if errors.Is(err, errAliasLoop) && n.Kind == yaml.AliasNode {
				return 0, fmt.Errorf("line %d: *%s is used inside the value it names (&%s), which never ends", n.Line, n.Value, n.Value)
			}
			if err != nil {
				return 0, err
			}
			total = min(total+sub, math.MaxInt64/2)
		}
		expanded[n] = total
		return total, nil
	}
	total, err := size(root)
	if err != nil {
		return err
	}
	if limit := max(int64(len(expanded))*maxAliasGrowth, 100_000); total > limit {
		return fmt.Errorf("line %d: aliases (*name) expand this file to over %d times its values: write the values out", root.Line, maxAliasGrowth)
	}
	return nil
}

var errAliasLoop = errors.New("alias inside its own value")

// hasAlias says whether any node below n is an alias.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// yamlProblems says in plain words what the YAML parser's problems mean.
var yamlProblems = map[string]string{
	"did not find expected node content":                           "a value is missing here (an unclosed [ or {, or a stray character?)",
	"could not find expected ':'":                                  "a key without a colon after it (or a value over several lines that is not quoted)",
	"did not find expected key":                                    "the indentation does not line up with the keys above",
	"mapping values are not allowed in this context":               "a colon where none may be (quote a value that holds \": \")",
	"block sequence entries are not allowed in this context":       "a list item (-) where none may be (check the indentation)",
	"did not find expected ',' or ']'":                             "a list [ ... ] is not closed, or lacks a comma",
	"did not find expected ',' or '}'":                             "a mapping { ... } is not closed, or lacks a comma",
	"found unexpected end of stream":                               "the file ends inside a quoted value",
	"found character that cannot start any token":                  "a character that cannot start a value here (a tab used for indentation? quote the value)",
	"found a tab character that violates indentation":              "a tab used for indentation: YAML indents with spaces",
	"found a tab character where an indentation space is expected": "a tab used for indentation: YAML indents with spaces",
	"did not find expected '-' indicator":                          "a list item that does not start with - (check the indentation)",
	"found unknown escape character":                               "an unknown escape (\\x) inside a double-quoted value: use single quotes or \\\\",
	"control characters are not allowed":                           "a control character, which YAML does not allow (is this a text file?)",
	"invalid leading UTF-8 octet":                                  "bytes that are not UTF-8 text",
	"invalid trailing UTF-8 octet":                                 "bytes that are not UTF-8 text",
	"incomplete UTF-8 octet sequence":                              "bytes that are not UTF-8 text",
	"invalid Unicode character":                                    "bytes that are not UTF-8 text",
	"found undefined tag handle":                                   "an unknown tag (a word after !)",
}

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// syntaxError rewords an error of the YAML parser, with the line it names,
// or, for text that is not UTF-8 or holds control characters (the reader
// names no line), the line of the first such byte.
func syntaxError(data []byte, err error) error {
	m := yamlLineRe.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("line 1: not valid YAML or JSON: %v", err)
	}
	line, _ := strconv.Atoi(m[1])
	problem := m[2]
	// The parser (not the scanner) counts its lines from 0.
	if line != 0 && yamlParserProblems[problem] {
		line++
	}
	if name, ok := strings.CutPrefix(problem, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		problem = fmt.Sprintf("*%s names no anchor (&%s) defined above it", name, name)
		line = lineOf(data, "*"+name)
	}
	if plain, ok := yamlProblems[problem]; ok {
		problem = plain
	}
	if line == 0 {
		line = firstBadTextLine(data)
	}
	return fmt.Errorf("line %d: not valid YAML or JSON: %s", line, problem)
}

// yamlParserProblems are the problems the YAML parser reports with a line
// counted from 0 (the scanner's count from 1).
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// lineOf is the line of the first occurrence of s in data, or 0.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// firstBadTextLine is the line of the first byte that is not UTF-8 or is a
// control character YAML refuses; 1 when there is none.
func firstBadTextLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			return line
		case r == '\n':
			line++
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return line
		}
		data = data[size:]
	}
	return 1
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// keySet describes the keys of one level of a definition (the DAG, a task,
// simulate, a pool): the struct they fill and how to speak of them.
type keySet struct {
	what  string // "a task", "the DAG", ...
	keys  []string
	field map[string]int // key -> struct field index
	want  []valueKind    // by field index
	// elsewhere names keys of other levels, for a key written at the
	// wrong level: key -> where it belongs.
	elsewhere map[string]string
}

// valueKind says in words what a field takes.
type valueKind struct {
	want string // "a whole number"
	item string // for lists and mappings: what each item or value takes
	// nested: the field is a mapping of its own keys (simulate).
	nested *keySet
}

// keysOf builds the key set of a struct type from its yaml tags.
func keysOf(t reflect.Type, what string) *keySet {
	if t.NumField() > maxLevelKeys {
		panic(fmt.Sprintf("%v has %d fields: decodeMapping tracks at most %d", t, t.NumField(), maxLevelKeys))
	}
	ks := &keySet{what: what, field: map[string]int{}, want: make([]valueKind, t.NumField())}
	for i := 0; i < t.NumField(); i++ {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		ks.keys = append(ks.keys, key)
		ks.field[key] = i
		ks.want[i] = kindOf(t.Field(i).Type, key)
	}
	return ks
}

// definitionKeys are the key sets of every level of a definition file.
var definitionKeys = sync.OnceValue(func() (sets struct{ dag, task, defaultArgs, pool *keySet }) {
	sets.dag = keysOf(reflect.TypeFor[yamlDAG](), "the DAG")
	sets.task = keysOf(reflect.TypeFor[yamlTask](), "a task")
	sets.defaultArgs = keysOf(reflect.TypeFor[yamlTask](), "default_args")
	sets.pool = keysOf(reflect.TypeFor[yamlPool](), "a pool")
	sets.dag.elsewhere = map[string]string{}
	for _, key := range sets.task.keys {
		if _, ok := sets.dag.field[key]; !ok {
			sets.dag.elsewhere[key] = "it is a task key: set it on a task, or on every task in default_args"
		}
	}
	sets.task.elsewhere = map[string]string{}
	for _, key := range sets.dag.keys {
		if _, ok := sets.task.field[key]; !ok {
			sets.task.elsewhere[key] = "it is a DAG key: set it at the top of the file"
		}
	}
	sets.defaultArgs.elsewhere = sets.task.elsewhere
	return sets
})

var (
	nodeType     = reflect.TypeFor[yaml.Node]()
	dateType     = reflect.TypeFor[*dateValue]()
	durationType = reflect.TypeFor[*durationValue]()
)

func kindOf(t reflect.Type, key string) valueKind {
	switch t {
	case nodeType:
		return valueKind{}
	case dateType:
		return valueKind{want: "a date"}
	case durationType:
		return valueKind{want: "a duration"}
	}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem() != nodeType {
		return valueKind{want: "a mapping", nested: keysOf(t.Elem(), key)}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return valueKind{want: "a string"}
	case reflect.Int, reflect.Int64:
		return valueKind{want: "a whole number"}
	case reflect.Bool:
		return valueKind{want: "true or false"}
	case reflect.Slice:
		item := kindOf(t.Elem(), key)
		if item.want == "" {
			return valueKind{want: "a list"}
		}
		return valueKind{want: "a list of " + plural(item.want), item: item.want}
	case reflect.Map:
		item := kindOf(t.Elem(), key)
		if item.want == "" {
			return valueKind{want: "a mapping"}
		}
		return valueKind{want: "a mapping of names to " + plural(item.want), item: item.want}
	}
	return valueKind{} // any value
}

func plural(want string) string {
	return strings.TrimPrefix(strings.TrimPrefix(want, "a "), "an ") + "s"
}

// maxLevelKeys bounds the keys of one level, so that decodeMapping can
// note the keys it has seen without allocating.
const maxLevelKeys = 64

// decodeMapping fills out (a pointer to a struct of keySet ks) from a
// mapping node: unknown and repeated keys are refused, with the closest
// known key suggested, and each value is decoded into its field with an
// error in words. YAML merge keys (<<: *defaults) apply first; the
// mapping's own keys win over them.
func decodeMapping(n *yaml.Node, out reflect.Value, ks *keySet) error {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping of keys to values, not %s", n.Line, ks.what, describeNode(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if key := n.Content[i]; key.Kind == yaml.ScalarNode && key.Value == "<<" && key.Tag == "!!merge" {
			if err := decodeMerge(n.Content[i+1], out, ks); err != nil {
				return err
			}
		}
	}
	var firstLine [maxLevelKeys]int // by field index: the line a key was first seen on
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: a key must be a word, not %s", key.Line, describeNode(key))
		}
		if key.Tag == "!!merge" {
			continue
		}
		idx, ok := ks.field[key.Value]
		if !ok {
			return unknownKeyError(key, ks)
		}
		if first := firstLine[idx]; first != 0 {
			return fmt.Errorf("line %d: key %q appears twice in %s (first at line %d)", key.Line, key.Value, ks.what, first)
		}
		firstLine[idx] = key.Line
		if err := decodeValue(key.Value, value, out.Field(idx), ks.want[idx]); err != nil {
			return err
		}
	}
	return nil
}

func decodeMerge(n *yaml.Node, out reflect.Value, ks *keySet) error {
	n = resolveAlias(n)
	if n.Kind == yaml.SequenceNode {
		// Earlier mappings of the list win: apply them last.
		for i := len(n.Content) - 1; i >= 0; i-- {
			if err := decodeMapping(n.Content[i], out, ks); err != nil {
				return err
			}
		}
		return nil
	}
	return decodeMapping(n, out, ks)
}

// decodeValue decodes one value into its field.
func decodeValue(key string, value *yaml.Node, field reflect.Value, kind valueKind) error {
	if field.Type() == nodeType {
		field.Set(reflect.ValueOf(*resolveAlias(value)))
		return nil
	}
	if kind.nested != nil {
		if resolveAlias(value).Tag == "!!null" {
			return nil
		}
		if field.IsNil() {
			field.Set(reflect.New(field.Type().Elem()))
		}
		return decodeMapping(value, field.Elem(), kind.nested)
	}
	// The decoder would cut 1.5 down to 1.
	if target := resolveAlias(value); kind.want == "a whole number" && target.Tag == "!!float" {
		return fmt.Errorf("line %d: %s must be %s, not %s", target.Line, key, kind.want, describeNode(target))
	}
	err := value.Decode(field.Addr().Interface())
	if err == nil {
		return nil
	}
	var pe *paramError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %s: %s", pe.line, key, pe.msg)
	}
	var want *wantError
	if errors.As(err, &want) {
		return fmt.Errorf("line %d: %s must be %s, not %s", resolveAlias(value).Line, key, want.want, want.got)
	}
	var typeErr *yaml.TypeError
	if !errors.As(err, &typeErr) || len(typeErr.Errors) == 0 {
		// A date or a duration that does not read, or the decoder's own
		// limits (excessive aliasing): its message is ours or plain.
		return fmt.Errorf("line %d: %s: %s", resolveAlias(value).Line, key, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if d := repeatedKeyRe.FindStringSubmatch(typeErr.Errors[0]); d != nil {
		return fmt.Errorf("line %s: key %q appears twice in %s (first at line %s)", d[1], d[2], key, d[3])
	}
	m := unmarshalErrorRe.FindStringSubmatch(typeErr.Errors[0])
	if m == nil {
		return fmt.Errorf("line %d: %s must be %s", value.Line, key, kind.want)
	}
	line, _ := strconv.Atoi(m[1])
	target := resolveAlias(value)
	if line == target.Line && (target.Kind == yaml.ScalarNode || target.Tag == "!!"+m[2]) {
		return fmt.Errorf("line %d: %s must be %s, not %s", line, key, kind.want, describeNode(target))
	}
	// An item of a list or a value of a mapping.
	return fmt.Errorf("line %d: each item of %s must be %s, not %s", line, key, kind.item, describeTag(m[2], m[3]))
}

// wantError is a value of the wrong form, from a field's own decoder
// (dates, durations).
type wantError struct{ want, got string }

func (e *wantError) Error() string { return "must be " + e.want + ", not " + e.got }

// repeatedKeyRe matches the decoder's error for a key given twice inside
// a value (env, params): "line 4: mapping key "A" already defined at line 3".
var repeatedKeyRe = regexp.MustCompile(`^line (\d+): mapping key "(.*)" already defined at line (\d+)$`)

// unmarshalErrorRe matches one of the decoder's type errors:
// "line 6: cannot unmarshal !!str `abc` into int".
var unmarshalErrorRe = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into ")

// describeNode names a value for a message: "a list", "a mapping", or the
// value itself.
func describeNode(n *yaml.Node) string {
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return describeTag(strings.TrimPrefix(n.Tag, "!!"), n.Value)
}

func describeTag(tag, value string) string {
	switch tag {
	case "map":
		return "a mapping"
	case "seq":
		return "a list"
	case "null":
		return "null (an empty value)"
	case "int", "float":
		return "the number " + value
	case "bool":
		return value
	case "timestamp":
		return "the date " + value
	case "binary":
		return "binary data"
	}
	if len(value) > 60 {
		value = value[:57] + "..."
	}
	return strconv.Quote(value)
}

// unknownKeyError refuses a key: it suggests the closest key of the level,
// or says at which level the key belongs.
func unknownKeyError(key *yaml.Node, ks *keySet) error {
	if near := closestName(key.Value, ks.keys); near != "" {
		return fmt.Errorf("line %d: unknown key %q (did you mean %s?)", key.Line, key.Value, near)
	}
	if where, ok := ks.elsewhere[key.Value]; ok {
		return fmt.Errorf("line %d: unknown key %q in %s: %s", key.Line, key.Value, ks.what, where)
	}
	return fmt.Errorf("line %d: unknown key %q in %s (it takes %s)", key.Line, key.Value, ks.what, strings.Join(ks.keys, ", "))
}

// closestName is the candidate nearest to word by edit distance (letter
// case ignored) when it is near enough to be a likely typo, else "".
func closestName(word string, candidates []string) string {
	lower := strings.ToLower(word)
	limit := max(2, len(word)/4)
	if len(word) <= 3 {
		limit = 1
	}
	best, bestDist := "", limit
	for _, c := range candidates {
		// Distances up to bestDist are exact; a farther one is cut short.
		d := editDistance(lower, strings.ToLower(c), bestDist+1)
		if d < bestDist || (d == bestDist && (best == "" || c < best)) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or any value of at
// least limit once it is known to reach limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
