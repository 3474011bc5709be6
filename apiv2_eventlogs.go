package main

// Airflow 3's event log (issue #21): core_api/routes/public/event_logs.py
// get_event_logs and get_event_log over airlite's event log
// (ops_eventlog.go).

import (
	"cmp"
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
// and no IN.
type v2EventLogFilter struct {
	q v1Values
	// patterns are the *_pattern filters by the column they search.
	patterns map[string]*regexp.Regexp
	before   *time.Time
	after    *time.Time
}

func newV2EventLogFilter(q v1Values) v2EventLogFilter {
	f := v2EventLogFilter{q: q, before: q.v2Time("before"), after: q.v2Time("after"), patterns: map[string]*regexp.Regexp{}}
	for _, col := range []string{"dag_id", "task_id", "run_id", "owner", "event"} {
		if re := q.v2Pattern(col + "_pattern"); re != nil {
			f.patterns[col] = re
		}
	}
	return f
}

func (f v2EventLogFilter) match(e *EventLog) bool {
	cols := map[string]*string{"dag_id": nullable(e.DagID), "task_id": nullable(e.TaskID), "run_id": nullable(e.RunID),
		"owner": e.Owner, "event": &e.Event}
	for col, val := range cols {
		if want, given := f.q.str(col); given && (val == nil || *val != want) {
			return false
		}
		if re := f.patterns[col]; re != nil && (val == nil || !re.MatchString(*val)) {
			return false
		}
	}
	for col, val := range map[string]*int{"map_index": e.MapIndex, "try_number": e.TryNumber} {
		if _, given := f.q.str(col); given && (val == nil || int64(*val) != f.q.v2Int(col, 0)) {
			return false
		}
	}
	if in, given := f.q["included_events"]; given && !slices.Contains(in, e.Event) {
		return false
	}
	if out, given := f.q["excluded_events"]; given && slices.Contains(out, e.Event) {
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
// from the rows Airflow joins: the DAG's (its dag_id: airlite's DAGs have
// no display name of their own) when the DAG is known, the task's when
// the event's task instance exists.
func (s *server) newV2EventLog(e *EventLog) v2EventLog {
	out := v2EventLog{ID: e.ID, When: v2When(e.When), DagID: nullable(e.DagID), TaskID: nullable(e.TaskID), RunID: nullable(e.RunID),
		MapIndex: e.MapIndex, TryNumber: e.TryNumber, Event: e.Event, LogicalDate: v2At(e.ExecutionDate), Owner: e.Owner, Extra: e.Extra}
	if e.DagID == "" {
		return out
	}
	if _, err := s.ops.dagRow(e.DagID); err == nil {
		out.DagDisplayName = nullable(e.DagID)
	}
	if e.TaskID != "" && e.RunID != "" && e.MapIndex != nil && *e.MapIndex == -1 {
		if _, _, err := s.ops.taskInstance(e.DagID, e.RunID, e.TaskID); err == nil {
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
	picked, err := s.ops.eventLogsWhere(newV2EventLogFilter(req.query).match)
	if err != nil {
		return nil, err
	}
	v2OrderRows(picked, keys, compareV2EventLogs, func(a, b *EventLog) int { return cmp.Compare(a.ID, b.ID) })
	out := v2EventLogCollection{EventLogs: []v2EventLog{}, TotalEntries: len(picked)}
	for _, e := range v2Window(picked, v2Page(req.query)) {
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
