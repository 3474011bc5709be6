package main

// The event log: what happened, listed by filters and in an order, one
// event, and writing one (Airflow 2.10.3 airflow/models/log.py,
// api_connexion/endpoints/event_log_endpoint.py). The task runner's rows
// are written by the store with the try; the APIs' action rows through
// logEvent.

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// faultEventLogNotFound is an event id no row has.
const faultEventLogNotFound opFault = "event_log_not_found" // id

// eventLogOrders are the attributes events are listed by
// (allowed_sort_attrs).
var eventLogOrders = []string{"event_log_id", "when", "dag_id", "task_id", "run_id", "event", "execution_date", "owner", "extra"}

// eventLogFilter is get_event_logs' where clauses. As in Airflow, an
// empty filter and a map_index or try_number of 0 filter nothing.
type eventLogFilter struct {
	dagID, taskID, runID, event, owner string
	mapIndex, tryNumber                int64
	included, excluded                 []string
	before, after                      *time.Time
}

// none says that the filter picks every event.
func (f eventLogFilter) none() bool {
	return f.dagID == "" && f.taskID == "" && f.runID == "" && f.event == "" && f.owner == "" && f.mapIndex == 0 &&
		f.tryNumber == 0 && f.included == nil && f.excluded == nil && f.before == nil && f.after == nil
}

// key names the filter, for the count of what it picks.
func (f eventLogFilter) key() string {
	return fmt.Sprintf("v1 dag=%q task=%q run=%q event=%q owner=%q map=%d try=%d in=%s out=%s before=%s after=%s",
		f.dagID, f.taskID, f.runID, f.event, f.owner, f.mapIndex, f.tryNumber, listKey(f.included), listKey(f.excluded), timeKey(f.before), timeKey(f.after))
}

// listKey is a list filter in a filter's name: nil (no filter) is not
// the empty list (which picks nothing).
func listKey(list []string) string {
	if list == nil {
		return "None"
	}
	return fmt.Sprintf("%q", list)
}

// timeKey is a time bound in a filter's name: nil is none.
func timeKey(t *time.Time) string {
	if t == nil {
		return "None"
	}
	return t.Format(time.RFC3339Nano)
}

// floatKey is a number bound in a filter's name: nil is none.
func floatKey(v *float64) string {
	if v == nil {
		return "None"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// patternKey is a compiled pattern in a filter's name: nil is none.
func patternKey(r *regexp.Regexp) string {
	if r == nil {
		return "None"
	}
	return strconv.Quote(r.String())
}

func (f eventLogFilter) match(e *EventLog) bool {
	eqInt := func(want int64, got *int) bool { return want == 0 || (got != nil && int64(*got) == want) }
	switch {
	case f.dagID != "" && e.DagID != f.dagID,
		f.taskID != "" && e.TaskID != f.taskID,
		f.runID != "" && e.RunID != f.runID,
		!eqInt(f.mapIndex, e.MapIndex), !eqInt(f.tryNumber, e.TryNumber),
		f.owner != "" && (e.Owner == nil || *e.Owner != f.owner),
		f.event != "" && e.Event != f.event,
		f.included != nil && !slices.Contains(f.included, e.Event),
		f.excluded != nil && slices.Contains(f.excluded, e.Event),
		f.before != nil && !e.When.Before(*f.before),
		f.after != nil && !e.When.After(*f.after):
		return false
	}
	return true
}

// compareEventLogs orders two events by attr as PostgreSQL does: NULL
// after every value.
func compareEventLogs(a, b *EventLog, attr string) int {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	switch attr {
	case "when":
		return a.When.Compare(b.When)
	case "dag_id":
		return compareNullable(str(a.DagID), str(b.DagID), strings.Compare)
	case "task_id":
		return compareNullable(str(a.TaskID), str(b.TaskID), strings.Compare)
	case "run_id":
		return compareNullable(str(a.RunID), str(b.RunID), strings.Compare)
	case "event":
		return strings.Compare(a.Event, b.Event)
	case "execution_date":
		return compareNullable(a.ExecutionDate, b.ExecutionDate, func(x, y time.Time) int { return x.Compare(y) })
	case "owner":
		return compareNullable(a.Owner, b.Owner, strings.Compare)
	case "extra":
		return compareNullable(a.Extra, b.Extra, strings.Compare)
	}
	return cmp.Compare(a.ID, b.ID)
}

// compareNullable puts nil after every value (NULLS LAST ascending; a
// descending key turns it; a nullsLow key puts NULL first ascending and
// last descending, SQLite's order), answering ±nullRank when one side is
// nil.
func compareNullable[T any](a, b *T, c func(T, T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return nullRank
	case b == nil:
		return -nullRank
	}
	return c(*a, *b)
}

// eventLogs lists the events f picks in q's order (by id when q names
// none; ties in id order).
func (o *operations) eventLogs(f eventLogFilter, q listQuery) (listed[*EventLog], error) {
	if f.none() && (q.orderBy == "" || q.orderBy == "event_log_id") {
		// The id order is the index's: the page alone is read.
		limit := q.limit
		if limit <= 0 {
			limit = int(^uint(0) >> 1) // window's "all"
		}
		rows, total, err := o.store.EventLogPage(q.orderBy != "" && q.desc, max(q.offset, 0), limit)
		if err != nil {
			return listed[*EventLog]{}, err
		}
		if len(rows) == 0 {
			rows = nil // window's empty page
		}
		return listed[*EventLog]{rows: rows, total: total}, nil
	}
	if q.orderBy == "" || q.orderBy == "event_log_id" {
		// The id order is the index's: the walk filters to the page's end.
		limit := q.limit
		if limit <= 0 {
			limit = int(^uint(0) >> 1) // window's "all"
		}
		rows, total, err := o.store.EventLogFilteredPage(q.orderBy != "" && q.desc, max(q.offset, 0), limit, f.match, f.key())
		if len(rows) == 0 {
			rows = nil // window's empty page
		}
		return listed[*EventLog]{rows: rows, total: total}, err
	}
	all, err := o.store.EventLogs() // by id
	if err != nil {
		return listed[*EventLog]{}, err
	}
	picked := make([]*EventLog, 0, len(all))
	for _, e := range all {
		if f.match(e) {
			picked = append(picked, e)
		}
	}
	return orderAndPage(picked, q, eventLogOrders, compareEventLogs)
}

// eventLogsWhere are the events match picks, by id (for an API whose
// filters and order are its own).
func (o *operations) eventLogsWhere(match func(*EventLog) bool) ([]*EventLog, error) {
	all, err := o.store.EventLogs() // by id
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(e *EventLog) bool { return !match(e) }), nil
}

// eventLog is the event with id; ids are positive, so a negative one
// names none.
func (o *operations) eventLog(id int64) (*EventLog, error) {
	var e *EventLog
	err := errNotFound
	if id >= 0 {
		e, err = o.store.EventLogByID(id)
	}
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultEventLogNotFound, "id", strconv.FormatInt(id, 10))
	}
	return e, err
}

// logEvent appends an event (an API's action, as Airflow's
// action_logging writes it).
func (o *operations) logEvent(e EventLog) error { return o.store.AppendEventLog(e) }
