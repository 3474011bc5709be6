package main

// Dates that are not ISO 8601, read as python-dateutil reads them.
//
// Airflow's timezone.parse calls pendulum.parse non-strictly; for text that
// pendulum's own ISO 8601 and "common" parsers refuse, pendulum (1.4.4 in
// Airflow 1.10.15, 3.0 in Airflow 2.10.3) falls back to
// dateutil.parser.parse(text, dayfirst=False, yearfirst=True) with no
// default, so fields the text leaves out come from today's midnight, and a
// naive result is in Airflow's default_timezone, UTC. This file follows
// dateutil 2.8/2.9's parser step by step: its _timelex tokenizer, the
// parserinfo word lists, _parse and _parse_numeric_token, _ymd's
// resolution and the datetime construction, so that a text dateutil takes
// gives the same instant and a text it refuses is refused. The golden table
// testdata/dateutil_golden.jsonl (scripts/dateutil_golden.py) holds
// dateutil's answers.
//
// Where Python would raise OverflowError rather than ValueError (numbers too
// large for a C int), Airflow answers an HTML 500; airlite refuses the date
// (400). Digits are Unicode decimal digits; Python's isdigit also counts
// superscripts and the like, which make dateutil refuse the text anyway.

import (
	"math/big"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// dateutil's parserinfo word lists, lower case, with their values.
var (
	duJump = map[string]bool{" ": true, ".": true, ",": true, ";": true, "-": true, "/": true, "'": true,
		"at": true, "on": true, "and": true, "ad": true, "m": true, "t": true, "of": true,
		"st": true, "nd": true, "rd": true, "th": true}
	duWeekdays = map[string]int{"mon": 0, "monday": 0, "tue": 1, "tuesday": 1, "wed": 2, "wednesday": 2,
		"thu": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6}
	duMonths = map[string]int{"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3,
		"apr": 4, "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
		"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
		"dec": 12, "december": 12}
	duHMS  = map[string]int{"h": 0, "hour": 0, "hours": 0, "m": 1, "minute": 1, "minutes": 1, "s": 2, "second": 2, "seconds": 2}
	duAMPM = map[string]int{"am": 0, "a": 0, "pm": 1, "p": 1}
)

func duLookup(m map[string]int, tok string) (int, bool) {
	v, ok := m[strings.ToLower(tok)]
	return v, ok
}

func duIsJump(tok string) bool    { return duJump[strings.ToLower(tok)] }
func duIsPertain(tok string) bool { return strings.ToLower(tok) == "of" }
func duIsUTCZone(tok string) bool {
	switch strings.ToLower(tok) {
	case "utc", "gmt", "z":
		return true
	}
	return false
}

// Character classes of _timelex: Python's str.isalpha, isdigit, isspace.
func duIsWord(r rune) bool { return unicode.IsLetter(r) }
func duIsNum(r rune) bool  { return unicode.IsDigit(r) }
func duIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// States of _timelex: in a word, in a number, and in either after a dot
// (Python's 'a', '0', 'a.', '0.').
const (
	duInWord = iota + 1
	duInNumber
	duInWordDots
	duInNumberDots
)

// duTokens splits s as dateutil's _timelex does: runs of letters, runs of
// digits, one token per other character, a single " " per whitespace
// character; dots and commas join a number or a word and are split off
// again where they were separators. NUL characters are skipped.
func duTokens(s string) []string {
	rs := []rune(strings.ReplaceAll(s, "\x00", ""))
	var out []string
	for pos := 0; pos < len(rs); {
		tok, state, seenLetters, next := duScan(rs, pos)
		pos = next
		text := string(tok)
		dotted := state == duInWordDots || state == duInNumberDots
		if dotted && (seenLetters || strings.Count(text, ".") > 1 || strings.ContainsAny(text[len(text)-1:], ".,")) {
			// Split at every dot and comma, keeping them as tokens.
			start := 0
			for i := 0; i < len(text); i++ {
				if text[i] == '.' || text[i] == ',' {
					if i > start {
						out = append(out, text[start:i])
					}
					out = append(out, text[i:i+1])
					start = i + 1
				}
			}
			if start < len(text) {
				out = append(out, text[start:])
			}
			continue
		}
		if state == duInNumberDots && !strings.Contains(text, ".") {
			text = strings.ReplaceAll(text, ",", ".") // a decimal comma
		}
		out = append(out, text)
	}
	return out
}

// duScan reads one raw token from rs[pos:] (_timelex.get_token before its
// split): the token, the state it ended in, whether it held letters after
// its first character, and where the next token starts.
func duScan(rs []rune, pos int) (tok []rune, state int, seenLetters bool, next int) {
	c := rs[pos]
	pos++
	switch {
	case duIsWord(c):
		state = duInWord
	case duIsNum(c):
		state = duInNumber
	case duIsSpace(c):
		return []rune{' '}, 0, false, pos
	default:
		return []rune{c}, 0, false, pos
	}
	tok = []rune{c}
	for ; pos < len(rs); pos++ {
		c = rs[pos]
		last := tok[len(tok)-1]
		switch state {
		case duInWord:
			seenLetters = true
			switch {
			case duIsWord(c):
			case c == '.':
				state = duInWordDots
			default:
				return tok, state, seenLetters, pos
			}
		case duInNumber:
			switch {
			case duIsNum(c):
			case c == '.' || (c == ',' && len(tok) >= 2):
				state = duInNumberDots
			default:
				return tok, state, seenLetters, pos
			}
		case duInWordDots:
			seenLetters = true
			switch {
			case c == '.' || duIsWord(c):
			case duIsNum(c) && last == '.':
				state = duInNumberDots
			default:
				return tok, state, seenLetters, pos
			}
		case duInNumberDots:
			switch {
			case c == '.' || duIsNum(c):
			case duIsWord(c) && last == '.':
				state = duInWordDots
			default:
				return tok, state, seenLetters, pos
			}
		}
		tok = append(tok, c)
	}
	return tok, state, seenLetters, pos
}

// duBig is a number that no date field can hold: values are saturated to
// it so that Python's unbounded ints compare the same way.
const duBig = int64(1) << 40

// duDigitValue is the value of a Unicode decimal digit: Nd characters come
// in runs of ten from zero.
func duDigitValue(r rune) int64 {
	if r >= '0' && r <= '9' {
		return int64(r - '0')
	}
	first := r
	for first > 0 && unicode.IsDigit(first-1) {
		first--
	}
	return int64(r-first) % 10
}

// duInt is Python's int(s) for the texts dateutil gives it: digits only.
func duInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for _, r := range s {
		if !duIsNum(r) {
			return 0, false
		}
		if n < duBig {
			n = n*10 + duDigitValue(r)
		}
	}
	return min(n, duBig), true
}

// duDecimal is a numeric token as Python's Decimal holds it: digits, then
// optionally a dot and more digits.
type duDecimal struct {
	whole int64  // saturated at duBig
	frac  string // the digits after the dot, ASCII
}

func duToDecimal(s string) (duDecimal, bool) {
	whole, frac, dot := strings.Cut(s, ".")
	w, ok := duInt(whole)
	if !ok {
		return duDecimal{}, false
	}
	if !dot {
		return duDecimal{whole: w}, true
	}
	var b strings.Builder
	for _, r := range frac {
		if !duIsNum(r) {
			return duDecimal{}, false
		}
		b.WriteByte(byte('0' + duDigitValue(r)))
	}
	if b.Len() == 0 {
		return duDecimal{}, false
	}
	return duDecimal{whole: w, frac: b.String()}, true
}

// hasFraction is value % 1 != 0.
func (d duDecimal) hasFraction() bool { return strings.Trim(d.frac, "0") != "" }

// sixtieths is int(60 * (value % 1)).
func (d duDecimal) sixtieths() int64 {
	if !d.hasFraction() {
		return 0
	}
	num, _ := new(big.Int).SetString(d.frac, 10)
	num.Mul(num, big.NewInt(60))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(d.frac))), nil)
	return num.Quo(num, den).Int64()
}

// greater is value > n, lessEq value <= n.
func (d duDecimal) greater(n int64) bool { return d.whole > n || (d.whole == n && d.hasFraction()) }
func (d duDecimal) lessEq(n int64) bool  { return !d.greater(n) }

// duNumeric reports whether Python's float() takes the token; "nan",
// "inf" and "infinity" (any case) are numbers that Decimal then refuses.
func duNumeric(tok string) (d duDecimal, ok bool, refuse bool) {
	switch strings.ToLower(tok) {
	case "nan", "inf", "infinity":
		return duDecimal{}, false, true
	}
	d, ok = duToDecimal(tok)
	return d, ok, false
}

// duUnset marks a field the text did not give (Python's None).
const duUnset = int64(-1)

// duResult is dateutil's _result.
type duResult struct {
	year, month, day, weekday, hour, minute, second, micro, ampm int64
	tzname                                                       string
	hasTZName                                                    bool
	tzoffset                                                     int64
	hasTZOffset                                                  bool
	centurySpecified                                             bool
}

// duYMD is dateutil's _ymd: the numbers that may be year, month or day.
type duYMD struct {
	vals                      []int64
	centurySpecified          bool
	yearIdx, monthIdx, dayIdx int // -1 when unknown
}

func newDuYMD() *duYMD { return &duYMD{yearIdx: -1, monthIdx: -1, dayIdx: -1} }

// appendStr is _ymd.append of a string token.
func (y *duYMD) appendStr(s string, label byte) bool {
	if duAllDigits(s) && utf8.RuneCountInString(s) > 2 {
		y.centurySpecified = true
		if label != 0 && label != 'Y' {
			return false
		}
		label = 'Y'
	}
	n, ok := duInt(s)
	if !ok {
		return false
	}
	return y.push(n, label)
}

// appendNum is _ymd.append of a number (an int or a Decimal).
func (y *duYMD) appendNum(d duDecimal, label byte) bool {
	if d.greater(100) {
		y.centurySpecified = true
		if label != 0 && label != 'Y' {
			return false
		}
		label = 'Y'
	}
	return y.push(d.whole, label)
}

func (y *duYMD) push(n int64, label byte) bool {
	y.vals = append(y.vals, n)
	idx := len(y.vals) - 1
	switch label {
	case 'M':
		if y.monthIdx >= 0 {
			return false
		}
		y.monthIdx = idx
	case 'D':
		if y.dayIdx >= 0 {
			return false
		}
		y.dayIdx = idx
	case 'Y':
		if y.yearIdx >= 0 {
			return false
		}
		y.yearIdx = idx
	}
	return true
}

func duAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !duIsNum(r) {
			return false
		}
	}
	return true
}

func duDaysIn(year, month int64) int64 {
	switch month {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// couldBeDay is _ymd.could_be_day.
func (y *duYMD) couldBeDay(d duDecimal) bool {
	if y.dayIdx >= 0 {
		return false
	}
	if y.monthIdx < 0 {
		return d.whole >= 1 && d.lessEq(31)
	}
	month := y.vals[y.monthIdx]
	year := int64(2000) // be permissive: a leap year
	if y.yearIdx >= 0 {
		year = y.vals[y.yearIdx]
	}
	return d.whole >= 1 && d.lessEq(duDaysIn(year, month))
}

// resolve is _ymd.resolve_ymd with yearfirst=True, dayfirst=False.
func (y *duYMD) resolve() (year, month, day int64, ok bool) {
	year, month, day = duUnset, duUnset, duUnset
	v := y.vals
	n := len(v)
	known := 0
	for _, idx := range []int{y.yearIdx, y.monthIdx, y.dayIdx} {
		if idx >= 0 {
			known++
		}
	}
	if (n == known && known > 0) || (n == 3 && known == 2) {
		idx := [3]int{y.yearIdx, y.monthIdx, y.dayIdx}
		if n == 3 && known == 2 {
			used := map[int]bool{}
			for _, i := range idx {
				if i >= 0 {
					used[i] = true
				}
			}
			for k := range idx {
				if idx[k] < 0 {
					for i := 0; i < 3; i++ {
						if !used[i] {
							idx[k] = i
						}
					}
				}
			}
		}
		get := func(i int) int64 {
			if i < 0 {
				return duUnset
			}
			return v[i]
		}
		return get(idx[0]), get(idx[1]), get(idx[2]), true
	}
	const dayfirst, yearfirst = false, true
	mi := y.monthIdx
	switch {
	case n > 3:
		return 0, 0, 0, false
	case n == 1 || (mi >= 0 && n == 2):
		var other int64
		if mi >= 0 {
			month = v[mi]
			other = v[(mi-1+n)%n] // Python's v[mi-1]
		} else {
			other = v[0]
		}
		if n > 1 || mi < 0 {
			if other > 31 {
				year = other
			} else {
				day = other
			}
		}
	case n == 2:
		switch {
		case v[0] > 31:
			year, month = v[0], v[1]
		case v[1] > 31:
			month, year = v[0], v[1]
		case dayfirst && v[1] <= 12:
			day, month = v[0], v[1]
		default:
			month, day = v[0], v[1]
		}
	case n == 3:
		switch mi {
		case 0:
			if v[1] > 31 {
				month, year, day = v[0], v[1], v[2]
			} else {
				month, day, year = v[0], v[1], v[2]
			}
		case 1:
			if v[0] > 31 || (yearfirst && v[2] <= 31) {
				year, month, day = v[0], v[1], v[2]
			} else {
				day, month, year = v[0], v[1], v[2]
			}
		case 2:
			if v[1] > 31 {
				day, year, month = v[0], v[1], v[2]
			} else {
				year, day, month = v[0], v[1], v[2]
			}
		default:
			switch {
			case v[0] > 31 || y.yearIdx == 0 || (yearfirst && v[1] <= 12 && v[2] <= 31):
				if dayfirst && v[2] <= 12 {
					year, day, month = v[0], v[1], v[2]
				} else {
					year, month, day = v[0], v[1], v[2]
				}
			case v[0] > 12 || (dayfirst && v[1] <= 12):
				day, month, year = v[0], v[1], v[2]
			default:
				month, day, year = v[0], v[1], v[2]
			}
		}
	}
	return year, month, day, true
}

// duParser is one run of dateutil's parser._parse.
type duParser struct {
	toks []string
	res  duResult
	ymd  *duYMD
	now  time.Time
}

// parseDateutil reads s as dateutil.parser.parse(s, dayfirst=False,
// yearfirst=True) does, with today (the date of now, in UTC) for the fields
// s leaves out, and a naive result in UTC. ok is false where dateutil
// raises.
func parseDateutil(s string, now time.Time) (time.Time, bool) {
	p := &duParser{toks: duTokens(s), ymd: newDuYMD(), now: now.UTC()}
	p.res = duResult{year: duUnset, month: duUnset, day: duUnset, weekday: duUnset, hour: duUnset,
		minute: duUnset, second: duUnset, micro: duUnset, ampm: duUnset}
	if !p.parse() || !p.validate() {
		return time.Time{}, false
	}
	return p.build()
}

func (p *duParser) parse() bool {
	l := p.toks
	n := len(l)
	res := &p.res
	for i := 0; i < n; i++ {
		d, numeric, refuse := duNumeric(l[i])
		if refuse {
			return false
		}
		if numeric {
			next, ok := p.numericToken(i, d)
			if !ok {
				return false
			}
			i = next
			continue
		}
		if wd, ok := duLookup(duWeekdays, l[i]); ok {
			res.weekday = int64(wd)
			continue
		}
		if m, ok := duLookup(duMonths, l[i]); ok {
			if !p.ymd.push(int64(m), 'M') {
				return false // "Month is already set"
			}
			if i+1 < n {
				if l[i+1] == "-" || l[i+1] == "/" {
					// Jan-01[-99]
					sep := l[i+1]
					if i+2 >= n || !p.ymd.appendStr(l[i+2], 0) {
						return false
					}
					if i+3 < n && l[i+3] == sep {
						if i+4 >= n || !p.ymd.appendStr(l[i+4], 0) {
							return false
						}
						i += 2
					}
					i += 2
				} else if i+4 < n && l[i+1] == " " && l[i+3] == " " && duIsPertain(l[i+2]) {
					// Jan of 01: 01 is the year
					if duAllDigits(l[i+4]) {
						v, _ := duInt(l[i+4])
						if !p.ymd.appendStr(duItoa(duConvertYear(v, false, p.now.Year())), 'Y') {
							return false
						}
					}
					i += 4
				}
			}
			continue
		}
		if ap, ok := duLookup(duAMPM, l[i]); ok {
			// Not fuzzy: an am/pm without an hour, or after an hour past
			// 12, is an error.
			if res.hour == duUnset || res.hour > 12 {
				return false
			}
			res.hour = duAdjustAMPM(res.hour, int64(ap))
			res.ampm = int64(ap)
			continue
		}
		if p.couldBeTZName(l[i], res.hasTZName, res.hasTZOffset) {
			res.tzname, res.hasTZName = l[i], true
			res.tzoffset, res.hasTZOffset = 0, l[i] == "z" // parserinfo.tzoffset: only "z" is in its lower-case table
			// GMT+3 means "my time +3 is GMT": the sign is turned round.
			if i+1 < n && (l[i+1] == "+" || l[i+1] == "-") {
				if l[i+1] == "+" {
					l[i+1] = "-"
				} else {
					l[i+1] = "+"
				}
				res.hasTZOffset = false
				if duIsUTCZone(res.tzname) {
					res.tzname, res.hasTZName = "", false
				}
			}
			continue
		}
		if res.hour != duUnset && (l[i] == "+" || l[i] == "-") {
			sign := int64(1)
			if l[i] == "-" {
				sign = -1
			}
			if i+1 >= n {
				return false
			}
			next := []rune(l[i+1])
			var h, m int64
			var ok1, ok2 bool
			switch {
			case len(next) == 4: // -0300
				h, ok1 = duInt(string(next[:2]))
				m, ok2 = duInt(string(next[2:]))
			case i+2 < n && l[i+2] == ":": // -03:00
				h, ok1 = duInt(l[i+1])
				if i+3 >= n {
					return false
				}
				m, ok2 = duInt(l[i+3])
				i += 2
			case len(next) <= 2: // -[0]3
				h, ok1 = duInt(string(next[:min(2, len(next))]))
				ok2 = true
			default:
				return false
			}
			if !ok1 || !ok2 {
				return false
			}
			res.tzoffset, res.hasTZOffset = sign*(h*3600+m*60), true
			// -0300 (BRST): a zone name in parentheses.
			if i+5 < n && duIsJump(l[i+2]) && l[i+3] == "(" && l[i+5] == ")" &&
				utf8.RuneCountInString(l[i+4]) >= 3 && p.couldBeTZName(l[i+4], res.hasTZName, false) {
				res.tzname, res.hasTZName = l[i+4], true
				i += 4
			}
			i++
			continue
		}
		if !duIsJump(l[i]) {
			return false
		}
	}
	year, month, day, ok := p.ymd.resolve()
	if !ok {
		return false
	}
	res.centurySpecified = p.ymd.centurySpecified
	res.year, res.month, res.day = year, month, day
	return true
}

// numericToken is _parse_numeric_token: it returns the index of the last
// token it used.
func (p *duParser) numericToken(idx int, value duDecimal) (int, bool) {
	l, res, ymd := p.toks, &p.res, p.ymd
	n := len(l)
	s := []rune(l[idx])
	lenLi := len(s)
	intOf := func(rs []rune) (int64, bool) { return duInt(string(rs)) }
	switch {
	case len(ymd.vals) == 3 && (lenLi == 2 || lenLi == 4) && res.hour == duUnset &&
		(idx+1 >= n || (l[idx+1] != ":" && !duHasHMS(l[idx+1]))):
		// 19990101T23[59]
		h, ok := intOf(s[:2])
		if !ok {
			return 0, false
		}
		res.hour = h
		if lenLi == 4 {
			if res.minute, ok = intOf(s[2:]); !ok {
				return 0, false
			}
		}
	case lenLi == 6 || (lenLi > 6 && duRuneIndex(s, '.') == 6):
		// YYMMDD or HHMMSS[.ss]
		if len(ymd.vals) == 0 && !strings.Contains(l[idx], ".") {
			if !ymd.appendStr(string(s[:2]), 0) || !ymd.appendStr(string(s[2:4]), 0) || !ymd.appendStr(string(s[4:]), 0) {
				return 0, false
			}
		} else {
			h, ok1 := intOf(s[:2])
			m, ok2 := intOf(s[2:4])
			sec, us, ok3 := duParseMS(string(s[4:]))
			if !ok1 || !ok2 || !ok3 {
				return 0, false
			}
			res.hour, res.minute, res.second, res.micro = h, m, sec, us
		}
	case lenLi == 8 || lenLi == 12 || lenLi == 14:
		// YYYYMMDD[hhmm[ss]]
		if !ymd.appendStr(string(s[:4]), 'Y') || !ymd.appendStr(string(s[4:6]), 0) || !ymd.appendStr(string(s[6:8]), 0) {
			return 0, false
		}
		if lenLi > 8 {
			h, ok1 := intOf(s[8:10])
			m, ok2 := intOf(s[10:12])
			if !ok1 || !ok2 {
				return 0, false
			}
			res.hour, res.minute = h, m
			if lenLi > 12 {
				sec, ok := intOf(s[12:])
				if !ok {
					return 0, false
				}
				res.second = sec
			}
		}
	case p.hmsIndex(idx) >= 0:
		// HH[ ]h or MM[ ]m or SS[.ss][ ]s
		hmsIdx := p.hmsIndex(idx)
		var hms int
		if hmsIdx > idx {
			hms, _ = duLookup(duHMS, l[hmsIdx])
			idx = hmsIdx
		} else {
			// Looking backwards: the unit after the one before.
			hms, _ = duLookup(duHMS, l[hmsIdx])
			hms++
		}
		switch hms {
		case 0:
			res.hour = value.whole
			if value.hasFraction() {
				res.minute = value.sixtieths()
			}
		case 1:
			res.minute, res.second = duMinSec(value)
		case 2:
			sec, us, ok := duParseMS(string(s))
			if !ok {
				return 0, false
			}
			res.second, res.micro = sec, us
		}
	case idx+2 < n && l[idx+1] == ":":
		// HH:MM[:SS[.ss]]
		res.hour = value.whole
		m, ok := duToDecimal(l[idx+2])
		if !ok {
			return 0, false
		}
		res.minute, res.second = duMinSec(m)
		if idx+4 < n && l[idx+3] == ":" {
			sec, us, ok := duParseMS(l[idx+4])
			if !ok {
				return 0, false
			}
			res.second, res.micro = sec, us
			idx += 2
		}
		idx += 2
	case idx+1 < n && (l[idx+1] == "-" || l[idx+1] == "/" || l[idx+1] == "."):
		sep := l[idx+1]
		if !ymd.appendStr(l[idx], 0) {
			return 0, false
		}
		if idx+2 < n && !duIsJump(l[idx+2]) {
			if duAllDigits(l[idx+2]) {
				// 01-01[-01]
				if !ymd.appendStr(l[idx+2], 0) {
					return 0, false
				}
			} else {
				// 01-Jan[-01]
				m, ok := duLookup(duMonths, l[idx+2])
				if !ok || !ymd.push(int64(m), 'M') {
					return 0, false
				}
			}
			if idx+3 < n && l[idx+3] == sep {
				// three members
				if idx+4 >= n {
					return 0, false
				}
				if m, ok := duLookup(duMonths, l[idx+4]); ok {
					if !ymd.push(int64(m), 'M') {
						return 0, false
					}
				} else if !ymd.appendStr(l[idx+4], 0) {
					return 0, false
				}
				idx += 2
			}
			idx++
		}
		idx++
	case idx+1 >= n || duIsJump(l[idx+1]):
		if idx+2 < n {
			if ap, ok := duLookup(duAMPM, l[idx+2]); ok {
				// 12 am
				res.hour = duAdjustAMPM(value.whole, int64(ap))
				idx += 2
				break
			}
		}
		// year, month or day
		if !ymd.appendNum(value, 0) {
			return 0, false
		}
		idx++
	case duIsAMPMToken(l[idx+1]) && value.whole < 24:
		// 12am
		ap, _ := duLookup(duAMPM, l[idx+1])
		res.hour = duAdjustAMPM(value.whole, int64(ap))
		idx++
	case ymd.couldBeDay(value):
		if !ymd.appendNum(value, 0) {
			return 0, false
		}
	default:
		return 0, false
	}
	return idx, true
}

func duIsAMPMToken(tok string) bool { _, ok := duLookup(duAMPM, tok); return ok }
func duHasHMS(tok string) bool      { _, ok := duLookup(duHMS, tok); return ok }

func duRuneIndex(rs []rune, r rune) int {
	for i, c := range rs {
		if c == r {
			return i
		}
	}
	return -1
}

// hmsIndex is _find_hms_idx with allow_jump: the index of the h/m/s unit
// that labels the number at idx, or -1.
func (p *duParser) hmsIndex(idx int) int {
	l := p.toks
	n := len(l)
	switch {
	case idx+1 < n && duHasHMS(l[idx+1]):
		return idx + 1 // 12h
	case idx+2 < n && l[idx+1] == " " && duHasHMS(l[idx+2]):
		return idx + 2 // 12 h
	case idx > 0 && duHasHMS(l[idx-1]):
		return idx - 1 // the 04 of 12h04
	case 1 < idx && idx == n-1 && l[idx-1] == " " && duHasHMS(l[idx-2]):
		return idx - 2 // the final token, after a space
	}
	return -1
}

// duMinSec is _parse_min_sec.
func duMinSec(d duDecimal) (minute, second int64) {
	second = duUnset
	if d.hasFraction() {
		second = d.sixtieths()
	}
	return d.whole, second
}

// duParseMS is _parsems: seconds and microseconds of "S[.F]".
func duParseMS(s string) (sec, micro int64, ok bool) {
	whole, frac, dot := strings.Cut(s, ".")
	if !dot {
		sec, ok = duInt(s)
		return sec, 0, ok
	}
	if strings.Contains(frac, ".") {
		return 0, 0, false // Python cannot unpack three pieces
	}
	if sec, ok = duInt(whole); !ok {
		return 0, 0, false
	}
	fr := []rune(frac)
	for len(fr) < 6 {
		fr = append(fr, '0')
	}
	micro, ok = duInt(string(fr[:6]))
	return sec, micro, ok
}

func duAdjustAMPM(hour, ampm int64) int64 {
	if hour < 12 && ampm == 1 {
		return hour + 12
	}
	if hour == 12 && ampm == 0 {
		return 0
	}
	return hour
}

// couldBeTZName is _could_be_tzname: after an hour, a token of up to five
// ASCII capitals, or one of UTC, GMT, Z, z.
func (p *duParser) couldBeTZName(tok string, hasName, hasOffset bool) bool {
	if p.res.hour == duUnset || hasName || hasOffset || utf8.RuneCountInString(tok) > 5 {
		return false
	}
	switch tok {
	case "UTC", "GMT", "Z", "z":
		return true
	}
	for _, r := range tok {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// duConvertYear is parserinfo.convertyear: a two-digit year is the one
// within 50 years of the current year.
func duConvertYear(year int64, centurySpecified bool, current int) int64 {
	if year < 100 && !centurySpecified {
		cur := int64(current)
		year += cur / 100 * 100
		if year >= cur+50 {
			year -= 100
		} else if year < cur-50 {
			year += 100
		}
	}
	return year
}

func duItoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// validate is parserinfo.validate: the year's century, and UTC spelled out.
func (p *duParser) validate() bool {
	res := &p.res
	if res.year != duUnset {
		res.year = duConvertYear(res.year, res.centurySpecified, p.now.Year())
	}
	switch {
	case (res.hasTZOffset && res.tzoffset == 0 && res.tzname == "") || res.tzname == "Z" || res.tzname == "z":
		res.tzname, res.hasTZName = "UTC", true
		res.tzoffset, res.hasTZOffset = 0, true
	case !(res.hasTZOffset && res.tzoffset == 0) && res.tzname != "" && duIsUTCZone(res.tzname):
		res.tzoffset, res.hasTZOffset = 0, true
	}
	return true
}

// build is parser.parse after _parse: nothing found is an error; the
// fields go onto today's midnight (the day cut to the month's length when
// the text gives none), a weekday without a day moves forward to that
// weekday, and the zone: UTC or an offset, anything else (an unknown name)
// naive, which Airflow reads as UTC.
func (p *duParser) build() (time.Time, bool) {
	res := &p.res
	fields := []int64{res.year, res.month, res.day, res.weekday, res.hour, res.minute, res.second, res.micro, res.ampm}
	found := res.hasTZName || res.hasTZOffset
	for _, f := range fields {
		if f != duUnset {
			found = true
		}
	}
	if !found {
		return time.Time{}, false // "String does not contain a date"
	}
	y, m, d := p.now.Date()
	year, month, day := int64(y), int64(m), int64(d)
	hour, minute, second, micro := int64(0), int64(0), int64(0), int64(0)
	set := func(dst *int64, v int64) {
		if v != duUnset {
			*dst = v
		}
	}
	set(&year, res.year)
	set(&month, res.month)
	if res.day == duUnset {
		if month >= 1 && month <= 12 && day > duDaysIn(year, month) {
			day = duDaysIn(year, month)
		}
	}
	set(&day, res.day)
	set(&hour, res.hour)
	set(&minute, res.minute)
	set(&second, res.second)
	set(&micro, res.micro)
	if year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > duDaysIn(year, month) ||
		hour > 23 || minute > 59 || second > 59 || micro > 999999 {
		return time.Time{}, false
	}
	loc := time.UTC
	if res.hasTZOffset && res.tzoffset != 0 && res.tzname != "UTC" {
		if res.tzoffset <= -86400 || res.tzoffset >= 86400 {
			return time.Time{}, false // Python's utcoffset must be under a day
		}
		loc = time.FixedZone("", int(res.tzoffset))
	}
	t := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(second), int(micro)*1000, loc)
	if res.weekday != duUnset && res.day == duUnset {
		have := (int64(t.Weekday()) + 6) % 7 // Monday is 0
		t = t.AddDate(0, 0, int((res.weekday-have+7)%7))
		if t.Year() > 9999 {
			return time.Time{}, false
		}
	}
	return t, true
}
