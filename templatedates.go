package main

// The dates and durations of templates, as Python and pendulum give them:
// the context's dates (pendulum DateTime in Airflow 2.10.3, Pendulum in
// 1.10.15), naive datetimes (macros.datetime), dates (.date()) and
// timedeltas (macros.timedelta, a difference of dates), with the
// arithmetic templateoperators.go routes to them.

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// pyTemporal is a date or a duration in a template.
type pyTemporal interface {
	pyStringer
	pyTypeName() string
	// Int is what gonja's own arithmetic asks a value for (exec.Value's
	// Integer): where a template's operator is out of the rewrite's reach
	// it fails the render rather than compute with 0.
	Int() int
}

// errUnreachableOperator fails an operator on a date that
// templateoperators.go could not route (in {% set %}, {% with %}, {% filter %}).
var errUnreachableOperator = errors.New("airlite computes with dates and timedeltas in {{ }}, {% if %} and {% for %}, not inside {% set %}, {% with %} or {% filter %}: move the arithmetic out of that tag")

// pyDateInRange: Python's datetime takes years 1 to 9999.
func pyDateInRange(t time.Time) error {
	if y := t.Year(); y < 1 || y > 9999 {
		return errors.New("OverflowError: date value out of range")
	}
	return nil
}

// templateDate is a pendulum DateTime in a template: str() as pendulum
// gives it (sep between date and time), attributes as Python's.
type templateDate struct {
	t   time.Time
	sep byte
}

// pendulum3 is Airflow 2.10.3's date (pendulum 3: str() uses a space).
func pendulum3(t time.Time) any { return templateDate{t: t, sep: ' '} }

// pendulum1 is Airflow 1.10.15's date (pendulum 1.4: str() is isoformat).
func pendulum1(t time.Time) any { return templateDate{t: t, sep: 'T'} }

func (d templateDate) pyStr() string { return pyDateTime(d.t, d.sep) }

func (d templateDate) pyTypeName() string {
	if d.sep == 'T' {
		return "Pendulum"
	}
	return "DateTime"
}

func (d templateDate) Int() int { panic(errUnreachableOperator) }

func (d templateDate) GetAttribute(name string) (*exec.Value, bool) {
	if name == "add" || name == "subtract" {
		// pendulum's DateTime.add/subtract(years=0, months=0, weeks=0,
		// days=0, hours=0, minutes=0, seconds=0, microseconds=0): its
		// add_duration is dateutil's relativedelta arithmetic.
		return exec.AsValue(func(args *exec.VarArgs) (any, error) {
			shift, err := pendulumDuration(name, args)
			if err != nil {
				return nil, err
			}
			if name == "subtract" {
				shift = shift.negated()
			}
			t, err := shift.applyTo(d.t)
			if err != nil {
				return nil, err
			}
			return templateDate{t: t, sep: d.sep}, nil
		}), true
	}
	if v, ok := dateTimeAttribute(d.t, name, func(t time.Time) any { return templateDate{t: t, sep: d.sep} }, isoFormat); ok {
		return v, true
	}
	return exec.AsValue(fmt.Errorf("'%s' object has no attribute '%s'", d.pyTypeName(), name)), false
}

// dateTimeAttribute is an attribute a datetime (aware or naive) shares:
// same builds a value of the same kind, iso is its isoformat().
func dateTimeAttribute(t time.Time, name string, same func(time.Time) any, iso func(time.Time) string) (*exec.Value, bool) {
	switch name {
	case "hour":
		return exec.AsValue(t.Hour()), true
	case "minute":
		return exec.AsValue(t.Minute()), true
	case "second":
		return exec.AsValue(t.Second()), true
	case "microsecond":
		return exec.AsValue(t.Nanosecond() / 1000), true
	case "isoformat":
		// Python's datetime.isoformat(sep='T')
		return exec.AsValue(func(args *exec.VarArgs) (string, error) {
			bound, err := bindPyArgs("isoformat", args, []string{"sep"})
			if err != nil {
				return "", err
			}
			s := iso(t)
			if sep, ok := bound["sep"]; ok {
				if !sep.IsString() || len([]rune(sep.String())) != 1 {
					return "", errors.New("TypeError: isoformat() argument 1 must be a unicode character")
				}
				s = s[:10] + sep.String() + s[11:]
			}
			return s, nil
		}), true
	case "timestamp":
		return exec.AsValue(func() float64 { return float64(t.UnixMicro()) / 1e6 }), true
	case "date":
		return exec.AsValue(func() any { return templateDay{t: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)} }), true
	case "replace":
		return exec.AsValue(func(args *exec.VarArgs) (any, error) {
			r, err := replaceDateTime(t, args)
			if err != nil {
				return nil, err
			}
			return same(r), nil
		}), true
	}
	return dayAttribute(t, name)
}

// dayAttribute is an attribute a date and a datetime share.
func dayAttribute(t time.Time, name string) (*exec.Value, bool) {
	switch name {
	case "year":
		return exec.AsValue(t.Year()), true
	case "month":
		return exec.AsValue(int(t.Month())), true
	case "day":
		return exec.AsValue(t.Day()), true
	case "strftime":
		return exec.AsValue(func(format string) string { return strftime(t, format) }), true
	case "weekday":
		return exec.AsValue(func() int { return (int(t.Weekday()) + 6) % 7 }), true
	case "isoweekday":
		return exec.AsValue(func() int { return (int(t.Weekday())+6)%7 + 1 }), true
	}
	return nil, false
}

// replaceDateTime is Python's datetime.replace with its keyword or
// positional fields (tzinfo and fold are not taken).
func replaceDateTime(t time.Time, args *exec.VarArgs) (time.Time, error) {
	names := []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}
	bound, err := bindPyArgs("replace", args, names)
	if err != nil {
		return time.Time{}, err
	}
	fields := []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000}
	for i, name := range names {
		v, ok := bound[name]
		if !ok {
			continue
		}
		if !v.IsInteger() {
			return time.Time{}, fmt.Errorf("TypeError: 'replace' argument %s must be an integer, not %s", name, pyTypeName(v))
		}
		fields[i] = v.Integer()
	}
	limits := [][2]int{{1, 9999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 59}, {0, 999999}}
	for i, lim := range limits {
		if fields[i] < lim[0] || fields[i] > lim[1] {
			if i == 0 {
				return time.Time{}, fmt.Errorf("ValueError: year %d is out of range", fields[0])
			}
			if i == 2 {
				return time.Time{}, errors.New("ValueError: day is out of range for month")
			}
			return time.Time{}, fmt.Errorf("ValueError: %s must be in %d..%d", names[i], lim[0], lim[1])
		}
	}
	r := time.Date(fields[0], time.Month(fields[1]), fields[2], fields[3], fields[4], fields[5], fields[6]*1000, t.Location())
	if r.Day() != fields[2] {
		return time.Time{}, errors.New("ValueError: day is out of range for month")
	}
	return r, nil
}

// naiveDateTime is a Python datetime without a time zone.
type naiveDateTime struct{ t time.Time }

func (d naiveDateTime) pyStr() string { return naiveISO(d.t, ' ') }

func (d naiveDateTime) pyTypeName() string { return "datetime.datetime" }

func (d naiveDateTime) Int() int { panic(errUnreachableOperator) }

func naiveISO(t time.Time, sep byte) string {
	return strings.TrimSuffix(pyDateTime(t, sep), "+00:00")
}

func (d naiveDateTime) GetAttribute(name string) (*exec.Value, bool) {
	iso := func(t time.Time) string { return naiveISO(t, 'T') }
	if v, ok := dateTimeAttribute(d.t, name, func(t time.Time) any { return naiveDateTime{t} }, iso); ok {
		return v, true
	}
	return exec.AsValue(fmt.Errorf("'datetime.datetime' object has no attribute '%s'", name)), false
}

// templateDay is a Python date (a datetime's .date()).
type templateDay struct{ t time.Time }

func (d templateDay) pyStr() string { return d.t.Format("2006-01-02") }

func (d templateDay) pyTypeName() string { return "datetime.date" }

func (d templateDay) Int() int { panic(errUnreachableOperator) }

func (d templateDay) GetAttribute(name string) (*exec.Value, bool) {
	if name == "isoformat" {
		return exec.AsValue(func() string { return d.pyStr() }), true
	}
	if v, ok := dayAttribute(d.t, name); ok {
		return v, true
	}
	return exec.AsValue(fmt.Errorf("'datetime.date' object has no attribute '%s'", name)), false
}

// templateTimedelta is Python's datetime.timedelta, in microseconds.
// Python takes up to 999999999 days; airlite up to what 64 bits of
// microseconds hold (about 106 million days).
type templateTimedelta struct{ us int64 }

const (
	microsPerSecond = 1_000_000
	microsPerDay    = 86_400 * microsPerSecond
)

func newTimedelta(us int64) (templateTimedelta, error) {
	if us == math.MinInt64 {
		return templateTimedelta{}, errTimedeltaRange
	}
	return templateTimedelta{us: us}, nil
}

var errTimedeltaRange = errors.New("OverflowError: the timedelta is larger than airlite takes (about 106 million days)")

func (d templateTimedelta) pyTypeName() string { return "datetime.timedelta" }

func (d templateTimedelta) Int() int { panic(errUnreachableOperator) }

// parts are Python's normalised days, seconds (0..86399) and
// microseconds (0..999999).
func (d templateTimedelta) parts() (days, seconds, micros int64) {
	days = d.us / microsPerDay
	rest := d.us % microsPerDay
	if rest < 0 {
		days--
		rest += microsPerDay
	}
	return days, rest / microsPerSecond, rest % microsPerSecond
}

// pyStr is str(timedelta).
func (d templateTimedelta) pyStr() string { return pyTimedeltaMicros(d.us) }

func (d templateTimedelta) GetAttribute(name string) (*exec.Value, bool) {
	days, seconds, micros := d.parts()
	switch name {
	case "days":
		return exec.AsValue(int(days)), true
	case "seconds":
		return exec.AsValue(int(seconds)), true
	case "microseconds":
		return exec.AsValue(int(micros)), true
	case "total_seconds":
		return exec.AsValue(func() float64 { return float64(d.us) / microsPerSecond }), true
	}
	return exec.AsValue(fmt.Errorf("'datetime.timedelta' object has no attribute '%s'", name)), false
}

// timedeltaUnits are timedelta's parameters in Python's positional order,
// with their length in microseconds.
var timedeltaUnits = []struct {
	name   string
	micros int64
}{
	{"days", microsPerDay}, {"seconds", microsPerSecond}, {"microseconds", 1}, {"milliseconds", 1000},
	{"minutes", 60 * microsPerSecond}, {"hours", 3600 * microsPerSecond}, {"weeks", 7 * microsPerDay},
}

// makeTimedelta is Python's timedelta(days=0, seconds=0, microseconds=0,
// milliseconds=0, minutes=0, hours=0, weeks=0): ints or floats, summed
// exactly and rounded half to even to a microsecond.
func makeTimedelta(args *exec.VarArgs) (any, error) {
	names := make([]string, len(timedeltaUnits))
	for i, u := range timedeltaUnits {
		names[i] = u.name
	}
	bound, err := bindPyArgs("timedelta", args, names)
	if err != nil {
		return nil, err
	}
	total := new(big.Rat)
	for _, u := range timedeltaUnits {
		v, ok := bound[u.name]
		if !ok {
			continue
		}
		var n *big.Rat
		switch {
		case v.IsBool():
			n = new(big.Rat)
			if v.Bool() {
				n.SetInt64(1)
			}
		case v.IsInteger():
			n = new(big.Rat).SetInt64(int64(v.Integer()))
		case v.IsFloat():
			f := v.Float()
			if math.IsNaN(f) {
				return nil, errors.New("ValueError: cannot convert float NaN to integer")
			}
			if math.IsInf(f, 0) {
				return nil, errors.New("OverflowError: cannot convert float infinity to integer")
			}
			n = new(big.Rat).SetFloat64(f)
		default:
			return nil, fmt.Errorf("TypeError: unsupported type for timedelta %s component: %s", u.name, pyTypeName(v))
		}
		total.Add(total, n.Mul(n, new(big.Rat).SetInt64(u.micros)))
	}
	us, ok := roundHalfEven(total)
	if !ok {
		return nil, errTimedeltaRange
	}
	return newTimedelta(us)
}

// roundHalfEven rounds to an int64, false when it does not fit.
func roundHalfEven(r *big.Rat) (int64, bool) {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int)) // truncated toward zero
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if c := twice.Cmp(r.Denom()); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// bindPyArgs binds a call's positional and keyword arguments to a
// callable's parameters, all optional, refusing what Python refuses, in
// the words of datetime's C-implemented callables (timedelta, replace);
// the other macros take them too. pyArgs (templatexcom.go) binds a method
// written in Python (xcom_pull: self counted, keyword-only parameters),
// whose TypeErrors Python words differently.
func bindPyArgs(fn string, args *exec.VarArgs, names []string) (map[string]*exec.Value, error) {
	if len(args.Args) > len(names) {
		return nil, fmt.Errorf("TypeError: %s() takes at most %d arguments (%d given)", fn, len(names), len(args.Args))
	}
	bound := map[string]*exec.Value{}
	for i, v := range args.Args {
		bound[names[i]] = v
	}
	for k, v := range args.KwArgs {
		i := -1
		for j, name := range names {
			if name == k {
				i = j
			}
		}
		switch {
		case i < 0:
			return nil, fmt.Errorf("TypeError: %s is an invalid keyword argument for %s()", pyQuote(k), fn)
		case i < len(args.Args):
			return nil, fmt.Errorf("TypeError: argument for %s() given by name (%s) and position (%d)", fn, pyQuote(k), i+1)
		}
		bound[k] = v
	}
	return bound, nil
}

// pyTypeName is Python's type(v).__name__ of a template value.
func pyTypeName(v *exec.Value) string {
	if t, ok := v.Interface().(pyTemporal); ok {
		return t.pyTypeName()
	}
	switch {
	case v.IsNil() || isPyNone(v):
		return "NoneType"
	case v.IsBool():
		return "bool"
	case v.IsInteger():
		return "int"
	case v.IsFloat():
		return "float"
	case v.IsString():
		return "str"
	case v.IsList():
		return "list"
	case v.IsDict():
		return "dict"
	}
	return fmt.Sprintf("%T", v.Interface())
}

// temporalOperate is Python's "left op right" where one operand (at
// least) is a date or a timedelta; l or r is nil for the other kind.
func temporalOperate(l, r pyTemporal, op string, left, right *exec.Value) (any, error) {
	unsupported := func() error {
		if op == "+" || op == "-" {
			return fmt.Errorf("TypeError: unsupported operand type(s) for %s: %s and %s", op, pyQuote(pyTypeName(left)), pyQuote(pyTypeName(right)))
		}
		return fmt.Errorf("TypeError: %s not supported between instances of %s and %s", pyQuote(op), pyQuote(pyTypeName(left)), pyQuote(pyTypeName(right)))
	}
	lt, lok := temporalKey(l)
	rt, rok := temporalKey(r)
	switch op {
	case "==", "!=":
		equal := lok && rok && lt.kind == rt.kind && lt.value == rt.value
		return equal == (op == "=="), nil
	case "<", "<=", ">", ">=":
		if !lok || !rok || lt.kind != rt.kind {
			if lok && rok && (lt.kind == "aware" || lt.kind == "naive") && (rt.kind == "aware" || rt.kind == "naive") {
				return nil, errors.New("TypeError: can't compare offset-naive and offset-aware datetimes")
			}
			return nil, unsupported()
		}
		c := lt.value - rt.value
		return map[string]bool{"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op], nil
	}
	lRel, lIsRel := l.(templateRelativedelta)
	rRel, rIsRel := r.(templateRelativedelta)
	switch {
	case rIsRel && l != nil && !lIsRel && op == "+":
		return applyRelativedelta(l, rRel)
	case rIsRel && l != nil && !lIsRel && op == "-":
		return applyRelativedelta(l, rRel.negated())
	case lIsRel && r != nil && !rIsRel && op == "+":
		return applyRelativedelta(r, lRel)
	case lIsRel || rIsRel:
		return nil, unsupported()
	}
	ld, lIsDelta := l.(templateTimedelta)
	rd, rIsDelta := r.(templateTimedelta)
	switch {
	case lIsDelta && rIsDelta:
		if op == "+" {
			return addMicros(ld.us, rd.us)
		}
		return addMicros(ld.us, -rd.us)
	case rIsDelta && l != nil:
		if op == "-" {
			return shiftDate(l, -rd.us)
		}
		return shiftDate(l, rd.us)
	case lIsDelta && r != nil && op == "+":
		return shiftDate(r, ld.us)
	case op == "-" && lok && rok && l != nil && r != nil && !lIsDelta && !rIsDelta:
		if lt.kind != rt.kind {
			if lt.kind == "day" || rt.kind == "day" {
				return nil, unsupported()
			}
			return nil, errors.New("TypeError: can't subtract offset-naive and offset-aware datetimes")
		}
		return addMicros(lt.value, -rt.value)
	}
	return nil, unsupported()
}

// temporalOrder is what compares two temporals: their kind (dates of a
// kind compare with each other only) and their microseconds.
type temporalOrder struct {
	kind  string
	value int64
}

func temporalKey(v pyTemporal) (temporalOrder, bool) {
	switch x := v.(type) {
	case templateDate:
		return temporalOrder{"aware", x.t.UnixMicro()}, true
	case naiveDateTime:
		return temporalOrder{"naive", x.t.UnixMicro()}, true
	case templateDay:
		return temporalOrder{"day", x.t.UnixMicro()}, true
	case templateTimedelta:
		return temporalOrder{"delta", x.us}, true
	}
	return temporalOrder{}, false
}

// addMicros is a timedelta of a+b microseconds, refusing an overflow.
func addMicros(a, b int64) (any, error) {
	sum := a + b
	if (b > 0 && sum < a) || (b < 0 && sum > a) {
		return nil, errTimedeltaRange
	}
	return newTimedelta(sum)
}

// shiftDate is a date plus us microseconds, of the same kind; a date
// (without time) moves by whole days, as Python's date + timedelta does.
func shiftDate(v pyTemporal, us int64) (any, error) {
	add := func(t time.Time) (time.Time, error) {
		// time.Time's Add takes nanoseconds: past ±292 years, step by days.
		days, rest := us/microsPerDay, us%microsPerDay
		if days > 4_000_000 || days < -4_000_000 {
			return time.Time{}, errors.New("OverflowError: date value out of range")
		}
		r := t.AddDate(0, 0, int(days)).Add(time.Duration(rest) * time.Microsecond)
		return r, pyDateInRange(r)
	}
	switch x := v.(type) {
	case templateDate:
		t, err := add(x.t)
		return templateDate{t: t, sep: x.sep}, err
	case naiveDateTime:
		t, err := add(x.t)
		return naiveDateTime{t}, err
	case templateDay:
		days := us / microsPerDay
		if us < 0 && us%microsPerDay != 0 {
			days-- // Python's timedelta.days is floored
		}
		if days > 4_000_000 || days < -4_000_000 {
			return nil, errors.New("OverflowError: date value out of range")
		}
		t := x.t.AddDate(0, 0, int(days))
		return templateDay{t}, pyDateInRange(t)
	}
	return nil, fmt.Errorf("TypeError: unsupported operand type(s) for +: %s and 'datetime.timedelta'", pyQuote(v.pyTypeName()))
}

// strftimeLayouts map Python's strftime directives to Go's layouts.
var strftimeLayouts = map[byte]string{
	'Y': "2006", 'y': "06", 'm': "01", 'd': "02", 'H': "15", 'I': "03", 'M': "04", 'S': "05",
	'f': "000000", 'z': "-0700", 'Z': "MST", 'j': "002", 'a': "Mon", 'A': "Monday",
	'b': "Jan", 'B': "January", 'p': "PM",
}

// strftime formats a time as Python's strftime does for the common
// directives; others are written as they are.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		if format[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if layout, ok := strftimeLayouts[format[i]]; ok {
			if format[i] == 'f' {
				fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
				continue
			}
			b.WriteString(t.Format(layout))
			continue
		}
		b.WriteByte('%')
		b.WriteByte(format[i])
	}
	return b.String()
}

// strptime parses as Python's strptime does for the directives of strftime.
func strptime(value, format string) (time.Time, error) {
	var layout strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) {
			i++
			if l, ok := strftimeLayouts[format[i]]; ok && format[i] != 'f' {
				layout.WriteString(l)
				continue
			}
			if format[i] == '%' {
				layout.WriteByte('%')
				continue
			}
			return time.Time{}, fmt.Errorf("ValueError: strptime directive %%%c is not supported by airlite", format[i])
		}
		layout.WriteByte(format[i])
	}
	t, err := time.Parse(layout.String(), value)
	if err != nil {
		return time.Time{}, fmt.Errorf("ValueError: time data %s does not match format %s", pyQuote(value), pyQuote(format))
	}
	return t, nil
}

// templateRelativedelta is dateutil's relativedelta
// (macros.dateutil.relativedelta.relativedelta): relative years, months,
// days, hours, minutes, seconds and microseconds, normalised as dateutil's
// _fix does, and absolute fields that replace a date's own. airlite takes
// ints only, and no weekday, yearday, nlyearday, leapdays or dt1/dt2.
type templateRelativedelta struct {
	years, months, days, hours, minutes, seconds, micros int64
	// absolute year, month, day, hour, minute, second, microsecond; nil: not set
	abs [7]*int64
}

var relativedeltaAbsolute = []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}

// makeRelativedelta is relativedelta(**kwargs) with airlite's subset.
func makeRelativedelta(args *exec.VarArgs) (any, error) {
	if len(args.Args) > 0 {
		return nil, errors.New("TypeError: relativedelta(dt1, dt2) is not supported by airlite; give keyword arguments")
	}
	relative := []string{"years", "months", "weeks", "days", "hours", "minutes", "seconds", "microseconds"}
	bound, err := bindPyArgs("relativedelta", &exec.VarArgs{KwArgs: args.KwArgs}, append(append([]string{}, relative...), relativedeltaAbsolute...))
	if err != nil {
		return nil, err
	}
	ints := map[string]int64{}
	for name, v := range bound {
		if !v.IsInteger() || v.IsBool() {
			return nil, fmt.Errorf("TypeError: relativedelta %s must be an int in airlite, not %s", name, pyTypeName(v))
		}
		ints[name] = int64(v.Integer())
		if n := ints[name]; n > 1e12 || n < -1e12 {
			return nil, errors.New("OverflowError: relativedelta argument too large")
		}
	}
	d := templateRelativedelta{years: ints["years"], months: ints["months"], days: ints["days"] + 7*ints["weeks"],
		hours: ints["hours"], minutes: ints["minutes"], seconds: ints["seconds"], micros: ints["microseconds"]}
	for i, name := range relativedeltaAbsolute {
		if _, ok := bound[name]; ok {
			v := ints[name]
			d.abs[i] = &v
		}
	}
	d.fix()
	return d, nil
}

// fix carries each relative field into the next larger one past its
// range, keeping its sign, as dateutil's _fix does.
func (d *templateRelativedelta) fix() {
	carry := func(small, large *int64, limit int64) {
		if *small > limit-1 || *small < -(limit-1) {
			s := int64(1)
			if *small < 0 {
				s = -1
			}
			div, mod := (*small*s)/limit, (*small*s)%limit
			*small = mod * s
			*large += div * s
		}
	}
	carry(&d.micros, &d.seconds, 1_000_000)
	carry(&d.seconds, &d.minutes, 60)
	carry(&d.minutes, &d.hours, 60)
	carry(&d.hours, &d.days, 24)
	carry(&d.months, &d.years, 12)
}

func (d templateRelativedelta) pyTypeName() string { return "relativedelta" }

func (d templateRelativedelta) Int() int { panic(errUnreachableOperator) }

// pyStr is dateutil's repr: relative fields with a sign ("{:+g}"), then
// absolute ones.
func (d templateRelativedelta) pyStr() string {
	var parts []string
	for _, f := range []struct {
		name  string
		value int64
	}{{"years", d.years}, {"months", d.months}, {"days", d.days}, {"hours", d.hours}, {"minutes", d.minutes}, {"seconds", d.seconds}, {"microseconds", d.micros}} {
		if f.value != 0 {
			g := strconv.FormatFloat(float64(f.value), 'g', 6, 64)
			if f.value > 0 {
				g = "+" + g
			}
			parts = append(parts, f.name+"="+g)
		}
	}
	for i, name := range relativedeltaAbsolute {
		if d.abs[i] != nil {
			parts = append(parts, name+"="+strconv.FormatInt(*d.abs[i], 10))
		}
	}
	return "relativedelta(" + strings.Join(parts, ", ") + ")"
}

func (d templateRelativedelta) GetAttribute(name string) (*exec.Value, bool) {
	for _, f := range []struct {
		name  string
		value int64
	}{{"years", d.years}, {"months", d.months}, {"days", d.days}, {"hours", d.hours}, {"minutes", d.minutes}, {"seconds", d.seconds}, {"microseconds", d.micros}} {
		if f.name == name {
			return exec.AsValue(int(f.value)), true
		}
	}
	for i, abs := range relativedeltaAbsolute {
		if abs == name {
			if d.abs[i] == nil {
				return exec.AsValue(pyNone), true
			}
			return exec.AsValue(int(*d.abs[i])), true
		}
	}
	return exec.AsValue(fmt.Errorf("'relativedelta' object has no attribute '%s'", name)), false
}

func (d templateRelativedelta) negated() templateRelativedelta {
	n := d
	n.years, n.months, n.days, n.hours, n.minutes, n.seconds, n.micros = -d.years, -d.months, -d.days, -d.hours, -d.minutes, -d.seconds, -d.micros
	return n
}

// applyTo is date + relativedelta as dateutil's __add__ computes it: the
// absolute fields and the years and months first (the day clipped to the
// month's length), then the days and time as a timedelta.
func (d templateRelativedelta) applyTo(t time.Time) (time.Time, error) {
	pick := func(i int, own int64) int64 {
		if d.abs[i] != nil {
			return *d.abs[i]
		}
		return own
	}
	year := pick(0, int64(t.Year())) + d.years
	month := pick(1, int64(t.Month()))
	if d.months != 0 {
		month += d.months
		if month > 12 {
			year, month = year+1, month-12
		} else if month < 1 {
			year, month = year-1, month+12
		}
	}
	if year < 1 || year > 9999 {
		return time.Time{}, fmt.Errorf("ValueError: year %d is out of range", year)
	}
	if month < 1 || month > 12 {
		return time.Time{}, errors.New("ValueError: month must be in 1..12")
	}
	lastDay := int64(time.Date(int(year), time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day())
	day := min(lastDay, pick(2, int64(t.Day())))
	hour, minute, second, micro := pick(3, int64(t.Hour())), pick(4, int64(t.Minute())), pick(5, int64(t.Second())), pick(6, int64(t.Nanosecond()/1000))
	switch {
	case day < 1:
		return time.Time{}, errors.New("ValueError: day is out of range for month")
	case hour < 0 || hour > 23:
		return time.Time{}, errors.New("ValueError: hour must be in 0..23")
	case minute < 0 || minute > 59:
		return time.Time{}, errors.New("ValueError: minute must be in 0..59")
	case second < 0 || second > 59:
		return time.Time{}, errors.New("ValueError: second must be in 0..59")
	case micro < 0 || micro > 999999:
		return time.Time{}, errors.New("ValueError: microsecond must be in 0..999999")
	}
	r := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(second), int(micro)*1000, t.Location())
	span := new(big.Int).SetInt64(d.days)
	span.Mul(span, big.NewInt(24)).Add(span, big.NewInt(d.hours))
	span.Mul(span, big.NewInt(60)).Add(span, big.NewInt(d.minutes))
	span.Mul(span, big.NewInt(60)).Add(span, big.NewInt(d.seconds))
	span.Mul(span, big.NewInt(microsPerSecond)).Add(span, big.NewInt(d.micros))
	if !span.IsInt64() {
		return time.Time{}, errors.New("OverflowError: date value out of range")
	}
	shifted, err := shiftDate(naiveDateTime{r}, span.Int64())
	if err != nil {
		return time.Time{}, err
	}
	return shifted.(naiveDateTime).t, nil
}

// pendulumDuration is the duration of a pendulum add or subtract call
// (int arguments only).
func pendulumDuration(fn string, args *exec.VarArgs) (templateRelativedelta, error) {
	names := []string{"years", "months", "weeks", "days", "hours", "minutes", "seconds", "microseconds"}
	bound, err := bindPyArgs(fn, args, names)
	if err != nil {
		return templateRelativedelta{}, err
	}
	n := map[string]int64{}
	for name, v := range bound {
		if !v.IsInteger() || v.IsBool() {
			return templateRelativedelta{}, fmt.Errorf("TypeError: %s() %s must be an int in airlite, not %s", fn, name, pyTypeName(v))
		}
		if n[name] = int64(v.Integer()); n[name] > 1e12 || n[name] < -1e12 {
			return templateRelativedelta{}, errors.New("OverflowError: date value out of range")
		}
	}
	d := templateRelativedelta{years: n["years"], months: n["months"], days: n["days"] + 7*n["weeks"],
		hours: n["hours"], minutes: n["minutes"], seconds: n["seconds"], micros: n["microseconds"]}
	d.fix()
	return d, nil
}

// applyRelativedelta is date ± relativedelta, a date of the same kind.
func applyRelativedelta(v pyTemporal, d templateRelativedelta) (any, error) {
	switch x := v.(type) {
	case templateDate:
		t, err := d.applyTo(x.t)
		return templateDate{t: t, sep: x.sep}, err
	case naiveDateTime:
		t, err := d.applyTo(x.t)
		return naiveDateTime{t}, err
	}
	return nil, fmt.Errorf("TypeError: unsupported operand type(s) for +: %s and 'relativedelta'", pyQuote(v.pyTypeName()))
}
