package main

// Airflow 3's event log (issue #21): core_api/routes/public/event_logs.py
// get_event_logs and get_event_log over airlite's event log
// (ops_eventlog.go).

import (
	"cmp"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// v2EventLog is datamodels/event_logs.py EventLogResponse as 3.2.1's
// document has it (no owner_display_name, no team_name).
type v2EventLog struct {
	ID              int64   `json:"event_log_id"`
	When            v2When  `json:"when"`
	DagID           *string `json:"dag_id"`
	TaskID          *string `json:"task_id"`
	RunID           *string `json:"run_id"`
	MapIndex        *int    `json:"map_index"`
	TryNumber       *int    `json:"try_number"`
	Event           string  `json:"event"`
	LogicalDate     *v2When `json:"logical_date"`
	Owner           *string `json:"owner"`
	Extra           *string `json:"extra"`
	DagDisplayName  *string `json:"dag_display_name"`
	TaskDisplayName *string `json:"task_display_name"`
}

// v2EventLogCollection is EventLogCollectionResponse.
type v2EventLogCollection struct {
	EventLogs    []v2EventLog `json:"event_logs"`
	TotalEntries int          `json:"total_entries"`
}

// v2EventLogOrders are get_event_logs' sort attributes; when is dttm and
// event_log_id is id.
var (
	v2EventLogOrders  = []string{"id", "dttm", "dag_id", "task_id", "run_id", "event", "logical_date", "owner", "extra"}
	v2EventLogRenames = map[string]string{"when": "dttm", "event_log_id": "id"}
)

// v2EventLogPhrases words the faults of these routes (event_logs.py
// get_event_log).
var v2EventLogPhrases = phrasebook{
	faultEventLogNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: "The Event Log with id: `" + e.value("id") + "` not found"}
	},
}

// nullable is a string column as Airflow reads it: "" is NULL in
// airlite's rows.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// v2EventLogFilter is get_event_logs' where clauses: each given filter
// narrows, as FilterParam, _SearchParam and their LESS_THAN, GREATER_THAN,
// IN and NOT_IN forms do; a NULL column matches no equality, no pattern
// and no IN. The filters given are read once, so a row costs no
// allocation.
type v2EventLogFilter struct {
	equal    []v2EventLogEq
	patterns []v2EventLogLike
	ints     []v2EventLogIntEq
	included []string // nil: no IN filter
	excluded []string
	before   *time.Time
	after    *time.Time
}

type v2EventLogEq struct{ col, want string }

type v2EventLogLike struct {
	col string
	re  *regexp.Regexp
}

type v2EventLogIntEq struct {
	col  string
	want int64
}

// v2EventLogStrCols are the string columns the filters read.
var v2EventLogStrCols = []string{"dag_id", "task_id", "run_id", "owner", "event"}

func newV2EventLogFilter(q v1Values) v2EventLogFilter {
	f := v2EventLogFilter{before: q.v2Time("before"), after: q.v2Time("after"),
		included: q["included_events"], excluded: q["excluded_events"]}
	for _, col := range v2EventLogStrCols {
		if want, given := q.str(col); given {
			f.equal = append(f.equal, v2EventLogEq{col, want})
		}
		if re := q.v2Pattern(col + "_pattern"); re != nil {
			f.patterns = append(f.patterns, v2EventLogLike{col, re})
		}
	}
	for _, col := range []string{"map_index", "try_number"} {
		if _, given := q.str(col); given {
			f.ints = append(f.ints, v2EventLogIntEq{col, q.v2Int(col, 0)})
		}
	}
	return f
}

// v2EventLogColumn is a string column of e; ok false for NULL.
func v2EventLogColumn(e *EventLog, col string) (string, bool) {
	switch col {
	case "dag_id":
		return e.DagID, e.DagID != ""
	case "task_id":
		return e.TaskID, e.TaskID != ""
	case "run_id":
		return e.RunID, e.RunID != ""
	case "owner":
		if e.Owner == nil {
			return "", false
		}
		return *e.Owner, true
	}
	return e.Event, true
}

// key names the filters, for the count of what they pick.
func (f v2EventLogFilter) key() string {
	var b strings.Builder
	for _, c := range f.equal {
		fmt.Fprintf(&b, "%s=%q ", c.col, c.want)
	}
	for _, c := range f.patterns {
		fmt.Fprintf(&b, "%s~%q ", c.col, c.re.String())
	}
	for _, c := range f.ints {
		fmt.Fprintf(&b, "%s=%d ", c.col, c.want)
	}
	fmt.Fprintf(&b, "in=%s out=%s before=%s after=%s", listKey(f.included), listKey(f.excluded), timeKey(f.before), timeKey(f.after))
	return "v2 " + b.String()
}

// none says that no filter was given: every event matches.
func (f v2EventLogFilter) none() bool {
	return len(f.equal) == 0 && len(f.patterns) == 0 && len(f.ints) == 0 && f.included == nil && f.excluded == nil &&
		f.before == nil && f.after == nil
}

func (f v2EventLogFilter) match(e *EventLog) bool {
	for _, c := range f.equal {
		if v, ok := v2EventLogColumn(e, c.col); !ok || v != c.want {
			return false
		}
	}
	for _, c := range f.patterns {
		if v, ok := v2EventLogColumn(e, c.col); !ok || !c.re.MatchString(v) {
			return false
		}
	}
	for _, c := range f.ints {
		v := e.MapIndex
		if c.col == "try_number" {
			v = e.TryNumber
		}
		if v == nil || int64(*v) != c.want {
			return false
		}
	}
	if f.included != nil && !slices.Contains(f.included, e.Event) {
		return false
	}
	if f.excluded != nil && slices.Contains(f.excluded, e.Event) {
		return false
	}
	return (f.before == nil || e.When.Before(*f.before)) && (f.after == nil || e.When.After(*f.after))
}

// compareV2EventLogs orders events by one of get_event_logs' sort
// attributes, NULL after every value.
func compareV2EventLogs(a, b *EventLog, attr string) int {
	str := func(x, y *string) int { return compareNullable(x, y, strings.Compare) }
	switch attr {
	case "dttm":
		return a.When.Compare(b.When)
	case "dag_id":
		return str(nullable(a.DagID), nullable(b.DagID))
	case "task_id":
		return str(nullable(a.TaskID), nullable(b.TaskID))
	case "run_id":
		return str(nullable(a.RunID), nullable(b.RunID))
	case "event":
		return strings.Compare(a.Event, b.Event)
	case "logical_date":
		return compareNullable(a.ExecutionDate, b.ExecutionDate, time.Time.Compare)
	case "owner":
		return str(a.Owner, b.Owner)
	case "extra":
		return str(a.Extra, b.Extra)
	}
	return cmp.Compare(a.ID, b.ID)
}

// newV2EventLog is an event in Airflow 3's form. The display names come
// from the rows Airflow joins: the DAG model's when the DAG is known, the
// task's when the event's task instance exists.
func (s *server) newV2EventLog(e *EventLog) v2EventLog {
	out := v2EventLog{ID: e.ID, When: v2When(e.When), DagID: nullable(e.DagID), TaskID: nullable(e.TaskID), RunID: nullable(e.RunID),
		MapIndex: e.MapIndex, TryNumber: e.TryNumber, Event: e.Event, LogicalDate: v2At(e.ExecutionDate), Owner: e.Owner, Extra: e.Extra}
	if e.DagID == "" {
		return out
	}
	if row, err := s.ops.dagRow(e.DagID); err == nil {
		out.DagDisplayName = nullable(dagDisplayName(row))
	}
	if e.TaskID != "" && e.RunID != "" && e.MapIndex != nil {
		if _, _, err := s.ops.taskInstanceAt(e.DagID, e.RunID, e.TaskID, int64(*e.MapIndex)); err == nil {
			out.TaskDisplayName = nullable(e.TaskID)
		}
	}
	return out
}

// v2GetEventLogs is get_event_logs: the filters, the order (id by
// default) and the page.
func (s *server) v2GetEventLogs(req *apiRequest) (any, error) {
	keys, err := v2OrderBy(req.query, "id", v2EventLogOrders, v2EventLogRenames)
	if err != nil {
		return nil, err
	}
	filter := newV2EventLogFilter(req.query)
	var window []*EventLog
	out := v2EventLogCollection{EventLogs: []v2EventLog{}}
	switch {
	case keys[0].attr == "id" && filter.none():
		// The id is unique: the keys after it never decide.
		p := v2Page(req.query)
		window, out.TotalEntries, err = s.opts.Store.EventLogPage(keys[0].desc, p.offset, p.limit)
	case keys[0].attr == "id":
		// The filters pick as the id index is walked to the page's end.
		p := v2Page(req.query)
		window, out.TotalEntries, err = s.opts.Store.EventLogFilteredPage(keys[0].desc, p.offset, p.limit, filter.match, filter.key())
	default:
		var picked []*EventLog
		picked, err = s.ops.eventLogsWhere(filter.match)
		v2OrderRows(picked, keys, compareV2EventLogs, func(a, b *EventLog) int { return cmp.Compare(a.ID, b.ID) })
		window, out.TotalEntries = v2Window(picked, v2Page(req.query)), len(picked)
	}
	if err != nil {
		return nil, err
	}
	for _, e := range window {
		out.EventLogs = append(out.EventLogs, s.newV2EventLog(e))
	}
	return out, nil
}

// v2GetEventLog is get_event_log.
func (s *server) v2GetEventLog(req *apiRequest) (any, error) {
	e, err := s.ops.eventLog(req.v2PathInt("event_log_id"))
	if err != nil {
		return nil, v2EventLogPhrases.phrase(err)
	}
	return s.newV2EventLog(e), nil
}

// v2EventLogRoutes are event_logs.py's rows.
func (s *server) v2EventLogRoutes(t *routeTable) {
	d := t.dialect
	t.add(http.MethodGet, "/eventLogs/{event_log_id}", d.answer(s, s.v2GetEventLog), withPathInts("event_log_id"))
	t.add(http.MethodGet, "/eventLogs", d.answer(s, s.v2GetEventLogs), withQuery(qV2Limit, qV2Offset, qV2OrderBy,
		qV2Str("dag_id"), qV2Str("task_id"), qV2Str("run_id"), qV2Int("map_index"), qV2Int("try_number"),
		qV2Str("owner"), qV2Str("event"), qV2Strs("excluded_events"), qV2Strs("included_events"),
		qV2Date("before"), qV2Date("after"), qV2Str("dag_id_pattern"), qV2Str("task_id_pattern"),
		qV2Str("run_id_pattern"), qV2Str("owner_pattern"), qV2Str("event_pattern")))
}
