package main

// A cron schedule's timetable_description, as Airflow words it: the
// Python library cron-descriptor's English text (ExpressionDescriptor with
// CasingTypeEnum.Sentence and use_24hour_time_format=True, which CronMixin
// asks for: 2.10.3 airflow/timetables/_cron.py:67-80, c57fba0e
// airflow-core/src/airflow/timetables/_cron.py:64-119). Airflow 2.10.3
// installs cron-descriptor 1.4.5 (constraints-2.10.3), Airflow 3.2 2.0.6
// (uv.lock of c57fba0e). The steps below follow the library's own
// (ExpressionParser.normalize_expression, ExpressionDescriptor's
// get_*_description and get_segment_description), on the five fields
// Airflow lets through, with Python's string semantics where they differ
// from Go's; testdata/cron_description_golden.jsonl holds the library's
// answers (scripts/cron_description_golden.py).

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cronDescriber is how a release describes a cron expression: the
// cron-descriptor release its Airflow installs and what CronMixin does
// around it. The zero value describes nothing (Airflow 1.10 has no
// timetable_description).
type cronDescriber struct {
	// release is the cron-descriptor release: "1.4.5" or "2.0.6". They
	// word every five-field expression alike but for two steps: 1.4.5
	// reads a step's number as a value of its field (so `*/7` in the day
	// of week, no weekday, or `*/13` in the month, no month, fail), and
	// 2.0.6 leaves a `*` day of month unsaid beside a day of week (which
	// 1.4.5's ", every day" and its removal come to as well).
	release string
	// croniter is the croniter release beside it, whose refusal leaves
	// the description "".
	croniter croniterRelease
	// eitherDay: with both day fields restricted (neither written `*`),
	// each is described alone, with the other `*`, and the two texts
	// joined by " (or) " (Airflow 3.1's _describe_with_dom_dow_fix,
	// apache/airflow#54644, c57fba0e _cron.py:84-119).
	eitherDay bool
}

var (
	// cronDescriber2 is Airflow 2.10.3's: cron-descriptor 1.4.5.
	cronDescriber2 = cronDescriber{release: "1.4.5"}
	// cronDescriber3 is Airflow 3.2.1's: cron-descriptor 2.0.6 and the
	// day fields' " (or) ".
	cronDescriber3 = cronDescriber{release: "2.0.6", croniter: croniter622, eitherDay: true}
)

// airflowCronPreset is the cron expression of one of the presets CronMixin
// turns into cron expressions before describing them: airlite's presets
// but @midnight and @annually (2.10.3 airflow/utils/dates.py:31-38,
// c57fba0e the same). croniter takes those two, cron-descriptor refuses
// one field, and Airflow describes them as "".
func airflowCronPreset(expr string) (string, bool) {
	if expr == "@midnight" || expr == "@annually" {
		return "", false
	}
	cron, ok := cronPresets[expr]
	return cron, ok
}

// describe is CronMixin.description for a cron expression or preset: ""
// when croniter refuses the expression, when it has other than five
// fields (fewer: croniter's aliases, which cron-descriptor refuses; more:
// CronMixin's rule, as croniter reads seconds and years otherwise than
// cron-descriptor), or when cron-descriptor fails on it.
func (d cronDescriber) describe(expr string) string {
	if d.release == "" {
		return ""
	}
	if preset, ok := airflowCronPreset(expr); ok {
		expr = preset
	}
	// The release's croniter's verdict (scheduler_croniter.go), the one
	// that takes or refuses a DAG's schedule.
	if _, err := croniterExpand(expr, d.croniter); err != nil {
		return ""
	}
	text, _ := d.text(expr)
	return text
}

// text is CronMixin's text for an expression croniter took, before the
// croniter check: "" and an error where Airflow answers "" (other than
// five fields, or cron-descriptor raising).
func (d cronDescriber) text(expr string) (string, error) {
	fields := pyFields(expr)
	if len(fields) != 5 {
		return "", errors.New("want five fields")
	}
	if !d.eitherDay || fields[2] == "*" || fields[4] == "*" {
		return d.fullDescription([5]string(fields))
	}
	monthDay, weekDay := [5]string(fields), [5]string(fields)
	monthDay[4], weekDay[2] = "*", "*"
	first, err := d.fullDescription(monthDay)
	if err != nil {
		return "", err
	}
	second, err := d.fullDescription(weekDay)
	if err != nil {
		return "", err
	}
	return first + " (or) " + second, nil
}

// errCronDescription is cron-descriptor raising while it describes
// (get_full_description turns every exception into FormatException).
var errCronDescription = errors.New("cron-descriptor cannot describe the expression")

// cronParts are a five-field expression's parts in cron-descriptor's
// seven positions: seconds and year stay empty.
type cronParts [7]string

const (
	cronPartMinute   = 1
	cronPartHour     = 2
	cronPartMonthDay = 3
	cronPartMonth    = 4
	cronPartWeekDay  = 5
)

// cronWeekDayDigit is what normalize_expression rewrites in the day of
// week (day_of_week_start_index_zero): a leading digit, or a digit after
// any character but '#', '/' and space.
var cronWeekDayDigit = regexp.MustCompile(`(^\d)|([^#/\s]\d)`)

// cronDayNames and cronMonthNames are the names normalize_expression
// turns into numbers, in its order; cronWeekDays are calendar.day_name's
// under Python's C time locale, by cron number.
var (
	cronDayNames   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
	cronMonthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	cronWeekDays   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	cronMonths     = []string{"January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
)

// normalize is ExpressionParser.normalize_expression on five fields.
func normalizeCronParts(fields [5]string) cronParts {
	var p cronParts
	copy(p[1:6], fields[:])
	p[cronPartMonthDay] = strings.ReplaceAll(p[cronPartMonthDay], "?", "*")
	p[cronPartWeekDay] = strings.ReplaceAll(p[cronPartWeekDay], "?", "*")
	for _, i := range []int{cronPartMinute, cronPartHour} {
		if strings.HasPrefix(p[i], "0/") {
			p[i] = strings.ReplaceAll(p[i], "0/", "*/")
		}
	}
	for _, i := range []int{cronPartMonthDay, cronPartMonth, cronPartWeekDay} {
		if strings.HasPrefix(p[i], "1/") {
			p[i] = strings.ReplaceAll(p[i], "1/", "*/")
		}
	}
	// Sunday written 7 is 0; the match's digits are compared whole, so
	// only a lone 7 changes.
	p[cronPartWeekDay] = cronWeekDayDigit.ReplaceAllStringFunc(p[cronPartWeekDay], func(match string) string {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, match)
		if digits == "7" {
			return strings.ReplaceAll(match, "7", "0")
		}
		return match
	})
	for n, name := range cronDayNames {
		p[cronPartWeekDay] = strings.ReplaceAll(strings.ToUpper(p[cronPartWeekDay]), name, strconv.Itoa(n))
	}
	for n, name := range cronMonthNames {
		p[cronPartMonth] = strings.ReplaceAll(strings.ToUpper(p[cronPartMonth]), name, strconv.Itoa(n+1))
	}
	// A single hour beside a minute step or `*` becomes the range of that
	// hour, so that it reads "between 09:00 and 09:59".
	if !strings.ContainsAny(p[cronPartHour], "*-,/") && strings.ContainsAny(p[cronPartMinute], "*/") {
		p[cronPartHour] += "-" + p[cronPartHour]
	}
	for i := range p {
		if p[i] == "*/1" {
			p[i] = "*"
		}
		// A month or weekday step from a start runs to the field's end.
		if strings.Contains(p[i], "/") && !strings.ContainsAny(p[i], "*-,") {
			through := map[int]string{cronPartMonth: "12", cronPartWeekDay: "6"}[i]
			if through != "" {
				parts := strings.Split(p[i], "/")
				p[i] = parts[0] + "-" + through + "/" + parts[1]
			}
		}
	}
	return p
}

// fullDescription is ExpressionDescriptor.get_full_description with
// Airflow's options, on five fields.
func (d cronDescriber) fullDescription(fields [5]string) (string, error) {
	p := normalizeCronParts(fields)
	timeOfDay, err := d.timeOfDay(p)
	if err != nil {
		return "", err
	}
	monthDay, err := d.monthDay(p)
	if err != nil {
		return "", err
	}
	month, err := d.month(p)
	if err != nil {
		return "", err
	}
	weekDay, err := d.weekDay(p)
	if err != nil {
		return "", err
	}
	text := timeOfDay + monthDay + weekDay + month
	// transform_verbosity (verbose=False), then Sentence casing.
	for _, said := range []string{", every minute", ", every hour", ", every day"} {
		text = strings.ReplaceAll(text, said, "")
	}
	text = pyTrimTrailingComma(text)
	first, size := utf8.DecodeRuneInString(text)
	if size == 0 {
		return "", errCronDescription
	}
	return strings.ToUpper(string(first)) + text[size:], nil
}

// pyTrimTrailingComma is re.sub(r", ?$", "", s): one ", " or "," at the
// end, or before a final newline.
func pyTrimTrailingComma(s string) string {
	body, newline := s, ""
	if strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, ",") && !strings.HasSuffix(s, ", ") {
		body, newline = s[:len(s)-1], "\n"
	}
	switch {
	case strings.HasSuffix(body, ", "):
		return body[:len(body)-2] + newline
	case strings.HasSuffix(body, ","):
		return body[:len(body)-1] + newline
	}
	return s
}

// timeOfDay is get_time_of_day_description (seconds empty).
func (d cronDescriber) timeOfDay(p cronParts) (string, error) {
	minute, hour := p[cronPartMinute], p[cronPartHour]
	special := func(s string) bool { return strings.ContainsAny(s, "/-,*") }
	switch {
	case !special(minute) && !special(hour):
		at, err := formatCronTime(hour, minute)
		return "At " + at, err
	case strings.Contains(minute, "-") && !strings.Contains(minute, ",") && !special(hour):
		bounds := strings.Split(minute, "-")
		from, err := formatCronTime(hour, bounds[0])
		if err != nil {
			return "", err
		}
		to, err := formatCronTime(hour, bounds[1])
		if err != nil {
			return "", err
		}
		return pyFormat("Every minute between {0} and {1}", from, to)
	case strings.Contains(hour, ",") && !strings.Contains(hour, "-") && !special(minute):
		hours := strings.Split(hour, ",")
		var b strings.Builder
		b.WriteString("At")
		for i, h := range hours {
			at, err := formatCronTime(h, minute)
			if err != nil {
				return "", err
			}
			b.WriteString(" ")
			b.WriteString(at)
			if i < len(hours)-2 {
				b.WriteString(",")
			}
			if i == len(hours)-2 {
				b.WriteString(" and")
			}
		}
		return b.String(), nil
	}
	minutes, err := d.minutes(p)
	if err != nil {
		return "", err
	}
	hours, err := d.hours(p)
	if err != nil {
		return "", err
	}
	// StringBuilder keeps only non-empty parts; a ", " goes between
	// two that are there.
	out := minutes
	if out != "" && hours != "" {
		out += ", "
	}
	return out + hours, nil
}

// cronSegment is what get_segment_description is given for one field:
// the text of `*`, of one value, of a step, of a range, the format of the
// field's text, and that of a range inside a list.
type cronSegment struct {
	all      string
	single   func(string) (string, error)
	interval func(string) (string, error)
	between  string
	format   func(string) string
	inList   string
}

// minutes is get_minutes_description (seconds empty).
func (d cronDescriber) minutes(p cronParts) (string, error) {
	return d.segment(p[cronPartMinute], cronSegment{
		all:      "every minute",
		single:   pyIdentity,
		interval: func(s string) (string, error) { return pyFormat("every {0} minutes", s) },
		between:  "minutes {0} through {1} past the hour",
		format: func(s string) string {
			if s == "0" {
				return ""
			}
			return "at {0} minutes past the hour"
		},
		inList: ", {0} through {1}",
	})
}

// hours is get_hours_description.
func (d cronDescriber) hours(p cronParts) (string, error) {
	return d.segment(p[cronPartHour], cronSegment{
		all:      "every hour",
		single:   func(s string) (string, error) { return formatCronTime(s, "0") },
		interval: func(s string) (string, error) { return pyFormat("every {0} hours", s) },
		between:  "between {0} and {1}",
		format:   func(string) string { return "at {0}" },
		inList:   ", {0} through {1}",
	})
}

// weekDay is get_day_of_week_description.
func (d cronDescriber) weekDay(p cronParts) (string, error) {
	expr := p[cronPartWeekDay]
	if expr == "*" {
		return "", nil
	}
	return d.segment(expr, cronSegment{
		all:      ", every day",
		single:   cronWeekDayName,
		interval: func(s string) (string, error) { return pyFormat(", every {0} days of the week", s) },
		between:  ", {0} through {1}",
		format:   cronWeekDayFormat,
		inList:   ", {0} through {1}",
	})
}

// cronWeekDayName is the day a weekday item names: its number before a
// '#' (exactly one), or with its 'L's taken out; Python's negative
// indexes count from Saturday.
func cronWeekDayName(s string) (string, error) {
	exp := s
	if strings.Contains(s, "#") {
		parts := strings.Split(s, "#")
		if len(parts) != 2 {
			return "", errCronDescription
		}
		exp = parts[0]
	} else if strings.Contains(s, "L") {
		exp = strings.ReplaceAll(exp, "L", "")
	}
	n, err := pyInt(exp)
	if err != nil {
		return "", err
	}
	if n < 0 {
		n += len(cronWeekDays)
	}
	if n < 0 || n >= len(cronWeekDays) {
		return "", errCronDescription
	}
	return cronWeekDays[n], nil
}

// cronWeekDayFormat is the format of a day-of-week text: the nth weekday
// of the month, the last one, or the days themselves. en_US.mo has no
// "fourth", and cron-descriptor's gettext fallback answers "" for it.
func cronWeekDayFormat(s string) string {
	switch {
	case strings.Contains(s, "#"):
		nth := ""
		if n, err := pyInt(s[strings.Index(s, "#")+1:]); err == nil {
			nth = map[int]string{1: "first", 2: "second", 3: "third", 5: "fifth"}[n]
		}
		return ", on the " + nth + " {0} of the month"
	case strings.Contains(s, "L"):
		return ", on the last {0} of the month"
	}
	return ", only on {0}"
}

// month is get_month_description: months by their English names (%B
// in Python's C time locale).
func (d cronDescriber) month(p cronParts) (string, error) {
	return d.segment(p[cronPartMonth], cronSegment{
		all: "",
		single: func(s string) (string, error) {
			n, err := pyInt(s)
			if err != nil || n < 1 || n > 12 {
				return "", errCronDescription
			}
			return cronMonths[n-1], nil
		},
		interval: func(s string) (string, error) { return pyFormat(", every {0} months", s) },
		between:  ", {0} through {1}",
		format:   func(string) string { return ", only in {0}" },
		inList:   ", {0} through {1}",
	})
}

var (
	cronNearestWeekday = regexp.MustCompile(`^(?:(\d{1,2}W)|(W\d{1,2}))`)
	cronBeforeLastDay  = regexp.MustCompile(`^L-(\d{1,2})`)
)

// monthDay is get_day_of_month_description.
func (d cronDescriber) monthDay(p cronParts) (string, error) {
	expr := p[cronPartMonthDay]
	switch {
	case expr == "L":
		return ", on the last day of the month", nil
	case expr == "LW" || expr == "WL":
		return ", on the last weekday of the month", nil
	}
	if m := cronNearestWeekday.FindString(expr); m != "" {
		n, err := pyInt(strings.ReplaceAll(m, "W", ""))
		if err != nil {
			return "", err
		}
		day := "first weekday"
		if n != 1 {
			day = "weekday nearest day " + strconv.Itoa(n)
		}
		return ", on the " + day + " of the month", nil
	}
	if d.release != "1.4.5" && expr == "*" && p[cronPartWeekDay] != "*" {
		return "", nil
	}
	if m := cronBeforeLastDay.FindStringSubmatch(expr); m != nil {
		return ", " + m[1] + " days before the last day of the month", nil
	}
	return d.segment(expr, cronSegment{
		all:    ", every day",
		single: pyIdentity,
		interval: func(s string) (string, error) {
			if s == "1" {
				return ", every day", nil
			}
			return ", every {0} days", nil
		},
		between: ", between day {0} and {1} of the month",
		format:  func(string) string { return ", on day {0} of the month" },
		inList:  ", {0} through {1}",
	})
}

// segment is get_segment_description.
func (d cronDescriber) segment(expr string, seg cronSegment) (string, error) {
	switch {
	case expr == "":
		return "", nil
	case expr == "*":
		return seg.all, nil
	case !strings.ContainsAny(expr, "/-,"):
		one, err := seg.single(expr)
		if err != nil {
			return "", err
		}
		return pyFormat(seg.format(expr), one)
	case strings.Contains(expr, "/"):
		parts := strings.Split(expr, "/")
		text, err := seg.interval(parts[1])
		if err != nil {
			return "", err
		}
		// 1.4.5 fills the step's text with the step read as a value of
		// the field; 2.0.6 with the step as written.
		step := parts[1]
		if d.release == "1.4.5" {
			if step, err = seg.single(parts[1]); err != nil {
				return "", err
			}
		}
		if text, err = pyFormat(text, step); err != nil {
			return "", err
		}
		if strings.Contains(parts[0], "-") {
			between, err := cronBetween(parts[0], seg.between, seg.single)
			if err != nil {
				return "", err
			}
			if !strings.HasPrefix(between, ", ") {
				text += ", "
			}
			return text + between, nil
		}
		if !strings.ContainsAny(parts[0], "*,") {
			one, err := seg.single(parts[0])
			if err != nil {
				return "", err
			}
			start, err := pyFormat(seg.format(parts[0]), one)
			if err != nil {
				return "", err
			}
			starting, err := pyFormat(", starting {0}", strings.ReplaceAll(start, ", ", ""))
			if err != nil {
				return "", err
			}
			text += starting
		}
		return text, nil
	case strings.Contains(expr, ","):
		items := strings.Split(expr, ",")
		var b strings.Builder
		for i, item := range items {
			if i > 0 && len(items) > 2 {
				b.WriteString(",")
				if i < len(items)-1 {
					b.WriteString(" ")
				}
			}
			if i > 0 && (i == len(items)-1 || len(items) == 2) {
				b.WriteString(" and ")
			}
			if strings.Contains(item, "-") {
				between, err := cronBetween(item, seg.inList, seg.single)
				if err != nil {
					return "", err
				}
				b.WriteString(strings.ReplaceAll(between, ", ", ""))
				continue
			}
			one, err := seg.single(item)
			if err != nil {
				return "", err
			}
			b.WriteString(one)
		}
		return pyFormat(seg.format(expr), b.String())
	}
	return cronBetween(expr, seg.between, seg.single)
}

// cronBetween is generate_between_segment_description: the range's first
// two bounds, the second's ":00" read as ":59" (to the hour's end).
func cronBetween(expr, format string, single func(string) (string, error)) (string, error) {
	bounds := strings.Split(expr, "-")
	from, err := single(bounds[0])
	if err != nil {
		return "", err
	}
	to, err := single(bounds[1])
	if err != nil {
		return "", err
	}
	return pyFormat(format, from, strings.ReplaceAll(to, ":00", ":59"))
}

// formatCronTime is format_time on the 24-hour clock: the hour and the
// minute as numbers, each at least two digits.
func formatCronTime(hour, minute string) (string, error) {
	h, err := pyInt(hour)
	if err != nil {
		return "", err
	}
	m, err := pyInt(minute)
	if err != nil {
		return "", err
	}
	return pyZfill(strconv.Itoa(h), 2) + ":" + pyZfill(strconv.Itoa(m), 2), nil
}

func pyIdentity(s string) (string, error) { return s, nil }

// pyFormat is str.format with positional fields {0} and {1}: "{{" and
// "}}" are braces, any other field or a lone brace an error.
func pyFormat(template string, args ...string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch {
		case c == '{' && i+1 < len(template) && template[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(template) && template[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(template[i:], '}')
			if end < 0 {
				return "", errCronDescription
			}
			field := template[i+1 : i+end]
			n, err := strconv.Atoi(field)
			if err != nil || strings.TrimLeft(field, "0123456789") != "" || n >= len(args) {
				return "", errCronDescription
			}
			b.WriteString(args[n])
			i += end
		case c == '}':
			return "", errCronDescription
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// pyInt is Python's int() of a string, for ASCII digits: spaces around,
// a sign, and single underscores between digits.
func pyInt(s string) (int, error) {
	s = strings.TrimFunc(s, pyIsSpace)
	negative := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		negative, s = s[0] == '-', s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, errCronDescription
	}
	digits := strings.ReplaceAll(s, "_", "")
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, errCronDescription
		}
	}
	// Past a few digits no field means anything; bound them rather than
	// overflow.
	if digits = strings.TrimLeft(digits, "0"); len(digits) > 9 {
		return 0, errCronDescription
	}
	n := 0
	if digits != "" {
		n, _ = strconv.Atoi(digits)
	}
	if negative {
		n = -n
	}
	return n, nil
}

// pyZfill is str.zfill: zeros after the sign up to width.
func pyZfill(s string, width int) string {
	if len(s) >= width {
		return s
	}
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		sign, s = s[:1], s[1:]
	}
	return sign + strings.Repeat("0", width-len(s)-len(sign)) + s
}

// pyIsSpace is str.isspace for one character: Go's white space and the
// four separators \x1c-\x1f.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyFields is str.split() with no argument.
func pyFields(s string) []string {
	return strings.FieldsFunc(s, pyIsSpace)
}
