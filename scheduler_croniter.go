package main

// Which cron expressions Airflow takes is croniter's call: Airflow asks
// croniter to read the expression when it parses the DAG file (2.10.3
// airflow/timetables/_cron.py:102-106 CronMixin.validate, c57fba0e
// airflow-core/src/airflow/timetables/_cron.py:140-144; 1.10.15
// airflow/models/dagbag.py:308-317) and refuses the DAG with croniter's
// message. croniter's reading differs from gronx's (wrap-around ranges
// such as 22-2 or FRI-MON, `*,99`, 5L, 2#6, W) and between the releases
// Airflow pins, so airlite re-states croniter's expansion of each field
// here, in the release's own order, and hands gronx what croniter
// expanded: lists of values, L, nW, n#k and nL, which gronx matches.

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// croniterRelease is the croniter an Airflow release installs (the zero
// value is Airflow 2.10.3's).
type croniterRelease int

const (
	croniter501  croniterRelease = iota // Airflow 2.10.3 (constraints-2.10.3)
	croniter0336                        // Airflow 1.10.15 (constraints-1.10.15)
	croniter622                         // Airflow 3.2 (uv.lock of c57fba0e)
)

// String is the release's version.
func (r croniterRelease) String() string {
	switch r {
	case croniter0336:
		return "0.3.36"
	case croniter622:
		return "6.2.2"
	}
	return "5.0.1"
}

// croniterRefusal is croniter refusing an expression: the exception's
// class and message, as Airflow records them.
type croniterRefusal struct {
	class, message string
}

func (e *croniterRefusal) Error() string { return e.class + ": " + e.message }

// croniterBadCron is croniter's CroniterBadCronError.
func croniterBadCron(format string, args ...any) error {
	return &croniterRefusal{class: "CroniterBadCronError", message: fmt.Sprintf(format, args...)}
}

// croniterRanges are each field's bounds (RANGES), croniterAll how many
// values mean the whole field (LEN_MEANS_ALL).
var (
	croniterRanges = [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}
	croniterAll    = [5]int{60, 24, 31, 12, 7}
	croniterNames  = [5]map[string]croniterValue{
		2: {"l": {last: true}},
		3: {"jan": {n: 1}, "feb": {n: 2}, "mar": {n: 3}, "apr": {n: 4}, "may": {n: 5}, "jun": {n: 6},
			"jul": {n: 7}, "aug": {n: 8}, "sep": {n: 9}, "oct": {n: 10}, "nov": {n: 11}, "dec": {n: 12}},
		4: {"sun": {n: 0}, "mon": {n: 1}, "tue": {n: 2}, "wed": {n: 3}, "thu": {n: 4}, "fri": {n: 5}, "sat": {n: 6}},
	}
)

var (
	croniterStepRE    = regexp.MustCompile(`^([^-]+)-([^-/]+)(/(\d+))?$`)
	croniterStep03RE  = regexp.MustCompile(`^([^-]+)-([^-/]+)(/(.*))?$`)
	croniterStarStep  = regexp.MustCompile(`^\*(/.+)$`)
	croniterStartStep = regexp.MustCompile(`^(.+)/(.+)$`)
	croniterStarOrInt = regexp.MustCompile(`^(\d+|\*)$`)
	croniterOnlyInt   = regexp.MustCompile(`^\d+$`)
	croniterHashRE    = regexp.MustCompile(`^(h|r)(\((\d+)-(\d+)\))?(/(\d+))?$`)
	croniterNearestRE = regexp.MustCompile(`^(?:(\d+)w|w(\d+))$`)
	croniterNthRE     = regexp.MustCompile(`^(?:((?:(?:sun|mon|tue|wed|thu|fri|sat)(?:-(?:sun|mon|tue|wed|thu|fri|sat))?` +
		`|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(?:-(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))?|\w+))#|l)(\d+)$`)
)

// croniterValue is one value of a field as croniter expands it: a
// number, `*`, or L (the last day of the month).
type croniterValue struct {
	n    int
	star bool
	last bool
}

func (v croniterValue) String() string {
	switch {
	case v.star:
		return "*"
	case v.last:
		return "l"
	}
	return strconv.Itoa(v.n)
}

// croniterItem is an entry of a field's work list: a part of the text
// (text) or a number a range expanded to (isInt).
type croniterItem struct {
	text  string
	n     int
	isInt bool
}

func (it croniterItem) String() string {
	if it.isInt {
		return strconv.Itoa(it.n)
	}
	return it.text
}

// croniterField is one field as croniter expanded it.
type croniterField struct {
	values  []croniterValue
	nearest map[int]bool            // day of month: nW (croniter 6)
	nth     map[int]map[string]bool // day of week: its nth weekdays, "1".."5" or "l"
	nthDays []int                   // nth's keys in the order croniter met them
}

// addNth records that day d of the week fires on its nth weekday k.
func (f *croniterField) addNth(d int, k string) {
	if f.nth[d] == nil {
		f.nth[d] = map[string]bool{}
		f.nthDays = append(f.nthDays, d)
	}
	f.nth[d][k] = true
}

// croniterInt is Python's int() of a field's digits, saturated: a value
// past any field's bounds stays past them.
func croniterInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<20 {
		return 1 << 20
	}
	return n
}

// croniterExpansion is an expression as croniter expanded it, each field
// as gronx reads it, and croniter 6's nW, which gronx does not read as
// croniter does (nearestWeekday).
type croniterExpansion struct {
	segments [5]string
	nearest  int // the n of nW in the day of month; 0: none
}

// croniterExpand reads a five-field expression as release r of croniter
// does (croniter.expand). A *croniterRefusal is croniter's own refusal;
// another error is a form croniter takes that airlite does not schedule.
func croniterExpand(expr string, r croniterRelease) (croniterExpansion, error) {
	var out croniterExpansion
	fields, err := r.expandFields(expr)
	if err != nil {
		return out, err
	}
	for i := range fields {
		out.segments[i] = fields[i].gronx(i, r)
	}
	for day := range fields[2].nearest {
		// croniter 6 takes a W only alone in its field: one day.
		out.nearest, out.segments[2] = day, "*"
	}
	return out, nil
}

// expandFields is croniter's expansion of every field.
func (r croniterRelease) expandFields(expr string) ([5]croniterField, error) {
	var out [5]croniterField
	text := expr
	if r != croniter0336 {
		// Names, L and W are matched in lower case; the messages keep
		// the expression as written (5.0.1 croniter.py:810-832).
		text = strings.ToLower(expr)
		if alias, ok := map[string]string{"@midnight": "0 0 * * *", "@hourly": "0 * * * *", "@daily": "0 0 * * *",
			"@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}[text]; ok {
			text = alias
		}
	}
	fields := pyFields(text)
	switch {
	case r == croniter0336 && len(fields) != 5 && len(fields) != 6:
		return out, croniterBadCron("Exactly 5 or 6 columns has to be specified for iteratorexpression.")
	case len(fields) < 5 || len(fields) > 7:
		return out, croniterBadCron("Exactly 5, 6 or 7 columns has to be specified for iterator expression.")
	case len(fields) != 5:
		// Seconds and years: croniter takes them, airlite schedules
		// minutes (validateSchedule refuses them first).
		return out, errors.New("want five fields: minute, hour, day of month, month, day of week")
	}
	for i := range 5 {
		var err error
		if r == croniter0336 {
			out[i], err = expandField0336(expr, fields, i)
		} else {
			out[i], err = r.expandField(expr, fields, i)
		}
		if err != nil {
			return out, err
		}
	}
	if r != croniter0336 {
		if err := checkNthMix(expr, &out[4]); err != nil {
			return out, err
		}
	}
	return out, nil
}

// croniterAlpha turns a name of field i into its value, or refuses it with
// the fields joined (croniter's _alphaconv).
func croniterAlpha(i int, key string, fields []string, lower bool) (croniterValue, error) {
	if lower {
		key = strings.ToLower(key)
	}
	if v, ok := croniterNames[i][key]; ok {
		return v, nil
	}
	return croniterValue{}, &croniterRefusal{class: "CroniterNotAlphaError",
		message: fmt.Sprintf("[%s] is not acceptable", strings.Join(fields, " "))}
}

// expandField is croniter 5.0.1's and 6.2.2's reading of field i
// (5.0.1 croniter.py:838-1010; 6.2.2 adds nW, croniter.py:82-102 of
// its _expand).
func (r croniterRelease) expandField(expr string, fields []string, i int) (croniterField, error) {
	f := croniterField{nearest: map[int]bool{}, nth: map[int]map[string]bool{}}
	lo, hi := croniterRanges[i][0], croniterRanges[i][1]
	text := fields[i]
	if m := croniterHashRE.FindStringSubmatch(text); m != nil {
		if m[1] == "h" {
			return f, croniterBadCron("Hashed definitions must include hash_id")
		}
		return f, errors.New("R (a random value) is not scheduled by airlite")
	}
	if strings.Contains(text, "?") {
		space := "  "
		if r == croniter622 {
			space = " "
		}
		if text != "?" {
			return f, croniterBadCron("[%s] is not acceptable.%sQuestion mark can not used with other characters", expr, space)
		}
		if i != 2 && i != 4 {
			return f, croniterBadCron("[%s] is not acceptable.%sQuestion mark can only used in day_of_month or day_of_week", expr, space)
		}
		text = "*"
	}
	var work []croniterItem
	for _, p := range strings.Split(text, ",") {
		work = append(work, croniterItem{text: p})
	}
	var res []croniterValue
	for len(work) > 0 {
		e := work[len(work)-1].String()
		work = work[:len(work)-1]
		nth := ""
		if i == 4 {
			if m := croniterNthRE.FindStringSubmatch(e); m != nil {
				if m[1] != "" {
					e = m[1]
					if n := croniterInt(m[2]); n < 1 || n > 5 {
						return f, croniterBadCron("[%s] is not acceptable. Invalid day_of_week value: '%d'", expr, n)
					}
					nth = strconv.Itoa(croniterInt(m[2]))
				} else {
					e, nth = m[2], "l"
				}
			}
		}
		if i == 2 && r == croniter622 {
			if m := croniterNearestRE.FindStringSubmatch(e); m != nil {
				day := croniterInt(m[1] + m[2])
				if day < 1 || day > 31 {
					return f, croniterBadCron("[%s] is not acceptable, nearest weekday day value '%d' out of range", expr, day)
				}
				if len(work) > 0 || len(res) > 0 {
					return f, croniterBadCron("[%s] is not acceptable. 'W' can only be used with a single day value, not in a list or range", expr)
				}
				f.nearest[day] = true
				res = append(res, croniterValue{n: day})
				continue
			}
		}
		t, m := croniterAsRange(e, i, croniterStepRE)
		if m != nil {
			items, err := r.expandRange(expr, fields, i, m, nth)
			if err != nil {
				return f, err
			}
			for _, it := range items {
				if !slices.Contains(work, it) {
					work = append(work, it)
				}
			}
			continue
		}
		if strings.HasPrefix(t, "-") {
			sep := ","
			if r == croniter622 {
				sep = ", "
			}
			return f, croniterBadCron("[%s] is not acceptable%snegative numbers not allowed", expr, sep)
		}
		v, err := croniterSingle(i, t, fields, false)
		if err != nil {
			return f, err
		}
		if i == 4 && !v.star {
			v.n = sundayAsZero(v.n) // value_alias
		}
		if !v.star && !v.last && (v.n < lo || v.n > hi) {
			return f, croniterBadCron("[%s] is not acceptable, out of range", expr)
		}
		res = append(res, v)
		if i == 4 && nth != "" {
			f.addNth(v.n, nth)
		}
	}
	f.values = croniterSet(res)
	if len(f.values) == croniterAll[i] && ((i != 2 && i != 4) || strings.Contains(fields[6-i], "*")) {
		// A full field is `*`, a full day field only beside a `*`.
		f.values = []croniterValue{{star: true}}
	}
	return f, nil
}

// croniterAsRange is part e of field i read as a range: `*/s` is the
// whole field's, `a/s` runs to the field's end. m is nil when e is no
// range; t is then the text croniter reads as one value.
func croniterAsRange(e string, i int, rangeRE *regexp.Regexp) (t string, m []string) {
	lo, hi := croniterRanges[i][0], croniterRanges[i][1]
	t = croniterStarStep.ReplaceAllString(e, fmt.Sprintf("%d-%d$1", lo, hi))
	if m = rangeRE.FindStringSubmatch(t); m == nil {
		t = croniterStartStep.ReplaceAllString(e, fmt.Sprintf("${1}-%d/${2}", hi))
		m = rangeRE.FindStringSubmatch(t)
	}
	return t, m
}

// croniterSingle is a lone value: digits, `*` or a name.
func croniterSingle(i int, t string, fields []string, lower bool) (croniterValue, error) {
	switch {
	case t == "*":
		return croniterValue{star: true}, nil
	case croniterStarOrInt.MatchString(t):
		return croniterValue{n: croniterInt(t)}, nil
	}
	return croniterAlpha(i, t, fields, lower)
}

// expandRange is a range low-high/step (m: croniterStepRE's groups) of
// field i, croniter 5.0.1's and 6.2.2's way: a range whose start is past
// its end wraps around the field, a range from a value to itself is the
// whole field, and the values go back on the work list.
func (r croniterRelease) expandRange(expr string, fields []string, i int, m []string, nth string) ([]croniterItem, error) {
	lo, hi := croniterRanges[i][0], croniterRanges[i][1]
	lowText, highText := m[1], m[2]
	if i == 2 && highText == "l" {
		highText = "31"
	}
	band := func(s string) (string, error) {
		if croniterOnlyInt.MatchString(s) {
			return s, nil
		}
		v, err := croniterAlpha(i, s, fields, false)
		return v.String(), err
	}
	lowText, err := band(lowText)
	if err != nil {
		return nil, err
	}
	if highText, err = band(highText); err != nil {
		return nil, err
	}
	if !croniterOnlyInt.MatchString(lowText) || !croniterOnlyInt.MatchString(highText) {
		return nil, croniterBadCron("[%s] bands '%s-%s' in field %d are not acceptable", expr, lowText, highText, i)
	}
	step := 1
	if m[4] != "" {
		step = croniterInt(m[4])
	}
	low, high := croniterInt(lowText), croniterInt(highText)
	if i == 4 {
		// value_alias: a 7 in the day of week is Sunday, 0.
		low, high = sundayAsZero(low), sundayAsZero(high)
	}
	if max(low, high) > hi {
		return nil, croniterBadCron("%s is out of bands", expr)
	}
	if step == 0 && low < high {
		return nil, croniterBadCron("invalid range: range() arg 3 must not be zero")
	}
	if step == 0 {
		// Past the wrap range() raises outside croniter's guard: 6.2.2
		// lets the ValueError through; 5.0.1 wraps it with its
		// traceback (croniter.expand), which is not restated.
		return nil, &croniterRefusal{class: "ValueError", message: "range() arg 3 must not be zero"}
	}
	var values []int
	switch {
	case low > high:
		for v := low; v <= hi; v += step {
			values = append(values, v)
		}
		skip := 0
		if len(values) > 0 {
			last := values[len(values)-1]
			fromEnd, pos, width := hi-last, last-lo, hi-lo+1
			if pos+step > width && fromEnd < step {
				skip = step - fromEnd
			}
		}
		for v := lo + skip; v <= high; v += step {
			values = append(values, v)
		}
	case low == high:
		for v := lo; v <= hi; v += step {
			values = append(values, v)
		}
	default:
		for v := low; v <= high; v += step {
			values = append(values, v)
		}
	}
	items := make([]croniterItem, len(values))
	for k, v := range values {
		items[k] = croniterItem{n: v, isInt: true}
		if i == 4 && nth != "" && nth != "l" {
			items[k] = croniterItem{text: fmt.Sprintf("%d#%s", v, nth)}
		}
	}
	return items, nil
}

func sundayAsZero(n int) int {
	if n == 7 {
		return 0
	}
	return n
}

// croniterSet is a field's values once each, in croniter's order.
func croniterSet(res []croniterValue) []croniterValue {
	var out []croniterValue
	for _, v := range res {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b croniterValue) int {
		rank := func(v croniterValue) int {
			switch {
			case v.star:
				return -2
			case v.last:
				return 1000
			}
			return v.n
		}
		return rank(a) - rank(b)
	})
	return out
}

// checkNthMix refuses a day of week that mixes plain days with nth
// weekdays (5.0.1 croniter.py:1012-1022), unless it lists the whole week.
func checkNthMix(expr string, f *croniterField) error {
	if len(f.nth) == 0 || len(f.values) == croniterAll[4] {
		return nil
	}
	var plain []string
	for _, v := range f.values {
		if _, ok := f.nth[v.n]; !ok && !v.star {
			plain = append(plain, v.String())
		}
	}
	if len(plain) == 0 {
		return nil
	}
	// Python's reprs: a dict in the order croniter filled it, a set of
	// small numbers in their order ('l' quoted).
	var nth []string
	for _, d := range f.nthDays {
		var ks []string
		for _, k := range slices.Sorted(maps.Keys(f.nth[d])) {
			if k == "l" {
				k = "'l'"
			}
			ks = append(ks, k)
		}
		nth = append(nth, fmt.Sprintf("%d: {%s}", d, strings.Join(ks, ", ")))
	}
	return &croniterRefusal{class: "CroniterUnsupportedSyntaxError", message: fmt.Sprintf(
		"day-of-week field does not support mixing literal values and nth day of week syntax.  Cron: '%s'    dow={%s} vs nth={%s}",
		expr, strings.Join(plain, ", "), strings.Join(nth, ", "))}
}

// expandField0336 is croniter 0.3.36's reading of field i (its
// croniter.py:519-605): no `?`, no W, no wrap-around ranges (but -SUN),
// `#` with any text after a first digit 1-5, and the case kept.
func expandField0336(expr string, fields []string, i int) (croniterField, error) {
	f := croniterField{nth: map[int]map[string]bool{}}
	lo, hi := croniterRanges[i][0], croniterRanges[i][1]
	var work []croniterItem
	for _, p := range strings.Split(fields[i], ",") {
		work = append(work, croniterItem{text: p})
	}
	notAcceptable := croniterBadCron("[%s] is not acceptable", expr)
	var res []croniterValue
	for len(work) > 0 {
		e := work[len(work)-1].String()
		work = work[:len(work)-1]
		nth := ""
		if i == 4 {
			var found bool
			if e, nth, found = strings.Cut(e, "#"); found && nth != "" && (nth[0] < '1' || nth[0] > '5') {
				return f, notAcceptable
			}
		}
		t, m := croniterAsRange(e, i, croniterStep03RE)
		if m != nil {
			low, high, step := m[1], m[2], m[4]
			if step == "" {
				step = "1"
			}
			if i == 2 && high == "l" {
				high = "31"
			}
			for _, s := range []*string{&low, &high} {
				if *s == "" || (*s)[0] < '0' || (*s)[0] > '9' {
					v, err := croniterAlpha(i, *s, fields, true)
					if err != nil {
						return f, err
					}
					*s = v.String()
				}
			}
			lowN, err := pyIntOf(low)
			if err != nil {
				return f, err
			}
			highN, err := pyIntOf(high)
			if err != nil {
				return f, err
			}
			if lowN > highN || !croniterOnlyInt.MatchString(step) {
				if i != 4 || high != "0" {
					return f, notAcceptable
				}
				highN = 7
			}
			stepN, err := pyIntOf(step)
			if err != nil {
				return f, err
			}
			if stepN == 0 {
				return f, croniterBadCron("invalid range: range() arg 3 must not be zero")
			}
			if (highN-lowN)/stepN > 100 {
				// The last value is popped first and is past every field.
				return f, croniterBadCron("[%s] is not acceptable, out of range", expr)
			}
			for v := lowN; v <= highN; v += stepN {
				if i == 4 && nth != "" {
					work = append(work, croniterItem{text: fmt.Sprintf("%d#%s", v, nth)})
				} else {
					work = append(work, croniterItem{n: v, isInt: true})
				}
			}
			continue
		}
		if strings.HasPrefix(t, "-") {
			return f, croniterBadCron("[%s] is not acceptable,negative numbers not allowed", expr)
		}
		v, err := croniterSingle(i, t, fields, true)
		if err != nil {
			return f, err
		}
		if !v.star && !v.last && ((i == 2 || i == 3) && v.n == 0 || i == 4 && v.n == 7) {
			v.n = map[int]int{2: 1, 3: 1, 4: 0}[i] // LOWMAP
		}
		if !v.star && !v.last && (v.n < lo || v.n > hi) {
			return f, croniterBadCron("[%s] is not acceptable, out of range", expr)
		}
		res = append(res, v)
		if i == 4 && nth != "" {
			k, err := pyIntOf(nth)
			if err != nil {
				return f, err
			}
			f.addNth(v.n, strconv.Itoa(k))
		}
	}
	f.values = croniterSet(res)
	if len(f.values) == croniterAll[i] {
		f.values = []croniterValue{{star: true}}
	}
	return f, nil
}

// pyIntOf is Python's int() of a range's bound, with its ValueError.
func pyIntOf(s string) (int, error) {
	if !croniterOnlyInt.MatchString(s) {
		return 0, &croniterRefusal{class: "ValueError", message: fmt.Sprintf("invalid literal for int() with base 10: '%s'", s)}
	}
	return croniterInt(s), nil
}

// gronx is field i as gronx reads it: `*`, or the values croniter
// expanded, L, n#k and nL among them. croniter 5 and 6 sort a `*` of a
// list first, where _get_next takes it for the whole field; 0.3.36's
// natsort puts it after any number, where it is no value at all. A day
// of week with nth weekdays is those alone: _get_next asks only for them
// (5.0.1 croniter.py:675-681, 0.3.36 croniter.py:441-447; 5.0.1 refuses
// other days beside them unless they make the whole week).
func (f *croniterField) gronx(i int, r croniterRelease) string {
	values := f.values
	if i == 4 && len(f.nth) > 0 {
		values = nil
		for _, d := range slices.Sorted(maps.Keys(f.nth)) {
			values = append(values, croniterValue{n: d})
		}
	}
	numbers := slices.ContainsFunc(values, func(v croniterValue) bool { return !v.star && !v.last })
	if r == croniter0336 && numbers {
		values = slices.DeleteFunc(slices.Clone(values), func(v croniterValue) bool { return v.star })
	}
	if len(values) == 0 || values[0].star {
		return "*"
	}
	var parts []string
	for _, v := range values {
		switch {
		case v.last:
			parts = append(parts, "L")
		case i == 2 && f.nearest[v.n]:
			parts = append(parts, fmt.Sprintf("%dW", v.n))
		case i == 4 && f.nth[v.n] != nil:
			for _, k := range slices.Sorted(maps.Keys(f.nth[v.n])) {
				if k == "l" {
					parts = append(parts, fmt.Sprintf("%dL", v.n))
				} else {
					parts = append(parts, fmt.Sprintf("%d#%s", v.n, k))
				}
			}
		default:
			parts = append(parts, strconv.Itoa(v.n))
		}
	}
	return strings.Join(parts, ",")
}
