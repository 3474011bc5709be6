package main

// Python's pprint.pformat(v, width=72, sort_dicts=False), which
// jsonschema's error text uses for the schema and the instance
// (jsonschema 4.23 exceptions.py _pretty). Values are decodePyJSON's
// kinds: pyDict, []any, json.Number, string, bool, nil.

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

const pformatWidth = 72

// pyPformat is pprint.pformat of v at width 72, dicts in their order.
func pyPformat(v any) string {
	var b strings.Builder
	pformatValue(&b, v, 0, 0, 1)
	return b.String()
}

// pformatValue is PrettyPrinter._format: the repr when it fits in the
// width left, else the container's or str's own layout.
func pformatValue(b *strings.Builder, v any, indent, allowance, level int) {
	rep := pyReprValue(v)
	if utf8.RuneCountInString(rep) <= pformatWidth-indent-allowance {
		b.WriteString(rep)
		return
	}
	switch x := v.(type) {
	case pyDict:
		if len(x) == 0 {
			b.WriteString(rep)
			return
		}
		// _pprint_dict and _format_dict_items (indent per level 1).
		b.WriteByte('{')
		indent++
		for i, f := range x {
			last := i == len(x)-1
			k := pyQuote(f.key)
			b.WriteString(k)
			b.WriteString(": ")
			a := 1
			if last {
				a = allowance + 1
			}
			pformatValue(b, f.val, indent+utf8.RuneCountInString(k)+2, a, level+1)
			if !last {
				b.WriteString(",\n")
				b.WriteString(strings.Repeat(" ", indent))
			}
		}
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString(rep)
			return
		}
		// _pprint_list and _format_items (not compact).
		b.WriteByte('[')
		indent++
		for i, item := range x {
			last := i == len(x)-1
			if i > 0 {
				b.WriteString(",\n")
				b.WriteString(strings.Repeat(" ", indent))
			}
			a := 1
			if last {
				a = allowance + 1
			}
			pformatValue(b, item, indent, a, level+1)
		}
		b.WriteByte(']')
	case string:
		pformatString(b, x, rep, indent, allowance, level)
	default:
		b.WriteString(rep)
	}
}

// pformatString is PrettyPrinter._pprint_str: the text cut into
// adjacent literals at line ends and after runs of spaces, one a line,
// in parentheses at the top level.
func pformatString(b *strings.Builder, s, rep string, indent, allowance, level int) {
	if s == "" {
		b.WriteString(rep)
		return
	}
	lines := splitLinesKeepEnds(s)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth1, maxWidth := pformatWidth-indent, pformatWidth-indent
	var chunks []string
	for i, line := range lines {
		r := pyQuote(line)
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if utf8.RuneCountInString(r) <= maxWidth1 {
			chunks = append(chunks, r)
			continue
		}
		parts := wordSpaceRe.FindAllString(line, -1)
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if utf8.RuneCountInString(pyQuote(candidate)) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, pyQuote(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, pyQuote(current))
		}
	}
	if len(chunks) == 1 {
		b.WriteString(rep)
		return
	}
	if level == 1 {
		b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(c)
	}
	if level == 1 {
		b.WriteByte(')')
	}
}

// wordSpaceRe is pprint's r'\S*\s*' without its final empty match.
var wordSpaceRe = regexp.MustCompile(`\S+\s*|\s+`)

// splitLinesKeepEnds is str.splitlines(True) for \n, \r\n and \r.
func splitLinesKeepEnds(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		end := i + 1
		if s[i] == '\r' && end < len(s) && s[end] == '\n' {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// patternCache keeps the schemas' patterns compiled (they come from DAG
// files, a bounded set).
var patternCache = struct {
	mu sync.Mutex
	m  map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}
