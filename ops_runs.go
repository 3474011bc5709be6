package main

// Runs: list, set a run's state or note, clear a run, delete a run, the
// latest runs, a run's lineage. The stable API's dag_run_endpoint.py, the
// experimental API's run listings, the admin endpoints and the status page
// call these.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Run faults.
const (
	faultRunNotFound opFault = "run_not_found" // dag_id, run_id
	faultNoRunAt     opFault = "no_run_at"     // dag_id, date (RFC 3339, as asked)
	// faultRunNotDeletable is a run whose state refuses a delete.
	faultRunNotDeletable opFault = "run_not_deletable" // dag_id, run_id, state
)

// runAt is a DAG's run at a logical date.
func (o *operations) runAt(dagID string, date time.Time) (*DagRun, error) {
	run, err := o.store.RunByDate(dagID, date)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultNoRunAt, "dag_id", dagID, "date", date.Format(time.RFC3339Nano))
	}
	return run, err
}

// runByID is a DAG's run by run_id.
func (o *operations) runByID(dagID, runID string) (*DagRun, error) {
	run, err := o.store.RunByRunID(dagID, runID)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultRunNotFound, "dag_id", dagID, "run_id", runID)
	}
	return run, err
}

// setRunState forces a run's state, its task instances following as
// Store.ForceRunState says (Airflow's set_dag_run_state_to_*); the tries
// that stop running stop with it. A missing run is faultRunNotFound.
func (o *operations) setRunState(dagID, runID string, state RunState) error {
	now, dates := o.clock(), o.rules().runStateDates
	err := o.stopWriteWake(func() ([]tiKey, error) {
		return o.store.ForceRunState(dagID, runID, state, now, dates)
	})
	return missingFault(err)
}

// missingFault is the store's missingError (a write that did not find its
// DAG, run or task) as the operations' fault for that row.
func missingFault(err error) error {
	var m *missingError
	if !errors.As(err, &m) {
		return err
	}
	switch m.what {
	case "dag":
		return opErr(errNotFound, faultDagNotFound, "dag_id", m.dagID)
	case "task":
		return opErr(errNotFound, faultTaskMissing, "dag_id", m.dagID, "task_id", m.taskID)
	}
	return opErr(errNotFound, faultRunNotFound, "dag_id", m.dagID, "run_id", m.runID)
}

// latestRuns is every DAG's latest run by logical date, by dag_id.
func (o *operations) latestRuns() ([]*DagRun, error) { return o.store.LatestRuns() }

// lineage is what a run's tries recorded of their inlets and outlets.
func (o *operations) lineage(run *DagRun) ([]*LineageRecord, error) {
	return o.store.Lineage(run.DagID, run.RunID)
}

// setRunNote sets or (nil) removes a run's note.
func (o *operations) setRunNote(dagID, runID string, note *string) (*DagRun, error) {
	run, err := o.store.SetRunNote(dagID, runID, note, o.clock())
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultRunNotFound, "dag_id", dagID, "run_id", runID)
	}
	return run, err
}

// clearRun clears every task instance of a run and its sub-DAG runs
// (DAG.clear from clear_dag_run). With dryRun nothing changes and the
// answer is the task instances that would be cleared, the run's and
// those of its sub-DAGs' runs at its logical date; otherwise nil.
func (o *operations) clearRun(run *DagRun, dryRun bool) ([]*TaskInstance, error) {
	if dryRun {
		tis := []*TaskInstance{}
		ids := []string{run.DagID}
		if row, err := o.store.DagByID(run.DagID); err == nil && row.Def != nil {
			ids = append(ids, row.Def.SubDAGIDs()...)
		}
		for _, id := range ids {
			r, err := o.store.RunByDate(id, run.ExecutionDate)
			if err != nil {
				continue
			}
			of, err := o.store.TaskInstancesOfRun(id, r.RunID)
			if err != nil {
				return nil, err
			}
			tis = append(tis, of...)
		}
		return tis, nil
	}
	now := o.clock()
	return nil, o.stopWriteWake(func() ([]tiKey, error) { return o.store.ClearRun(run.DagID, run.RunID, now) })
}

// deleteRun deletes a run and its task instances; its running tries
// stop with it.
func (o *operations) deleteRun(dagID, runID string) error {
	return o.deleteRunIn(dagID, runID, nil)
}

// deleteRunIn is deleteRun of a run whose state deletable accepts (nil:
// any); another state is faultRunNotDeletable and the run stays.
func (o *operations) deleteRunIn(dagID, runID string, deletable func(RunState) bool) error {
	err := o.stopping(func(k tiKey) bool { return k.dagID == dagID && k.runID == runID }, func() error {
		return o.store.DeleteRunIn(dagID, runID, deletable)
	})
	var se *runStateError
	switch {
	case errors.Is(err, errNotFound):
		return opErr(errNotFound, faultRunNotFound, "dag_id", dagID, "run_id", runID)
	case errors.As(err, &se):
		return opErr(errConflict, faultRunNotDeletable, "dag_id", dagID, "run_id", runID, "state", string(se.state))
	}
	return err
}

// runQuery is the neutral query of a run listing (_fetch_dag_runs'
// filters and page): each dialect reads its parameters into one.
type runQuery struct {
	dagIDs                     []string // nil: every DAG
	states                     []string
	executionGTE, executionLTE *time.Time
	startGTE, startLTE         *time.Time
	endGTE, endLTE             *time.Time
	updatedGTE, updatedLTE     *time.Time
	orderBy                    string
	desc                       bool
	offset, limit              int
	// more are Airflow 3's filters (get_dag_runs); nil: none.
	more *runFilters
	// order is Airflow 3's order_by, several keys (SortParam); nil: the
	// one orderBy and desc.
	order []runOrderKey
}

// runOrderKey is one key of a listing's order: a run attribute
// (compareRuns' names) and its direction.
type runOrderKey struct {
	attr string
	desc bool
}

// floatRange is timeRange for a number.
type floatRange struct{ gte, gt, lte, lt *float64 }

func (r floatRange) holds(f *float64) bool {
	if r.gte == nil && r.gt == nil && r.lte == nil && r.lt == nil {
		return true
	}
	if f == nil {
		return false
	}
	return (r.gte == nil || *f >= *r.gte) && (r.gt == nil || *f > *r.gt) && (r.lte == nil || *f <= *r.lte) && (r.lt == nil || *f < *r.lt)
}

// runFilters are Airflow 3's filters of a run listing
// (core_api/routes/public/dag_run.py get_dag_runs, common/parameters.py):
// date and duration ranges, run types, a text the conf holds, and
// case-insensitive LIKE patterns (nil: none).
type runFilters struct {
	runAfter, logical, start, end, updated timeRange
	duration                               floatRange
	runTypes                               []string
	confContains                           *string
	runID, user, dagID, partition          *regexp.Regexp
	// versions are DAG version numbers asked for: every run of airlite
	// ran under its DAG's one version, 1 (nil: any).
	versions []int64
	// bundleVersion asks for runs of a bundle version: airlite's runs
	// have none, so that none matches.
	bundleVersion *string
	// openDatesAt, when set, is the time a run without a start or end
	// date counts as in the start and end ranges (get_dag_runs' query
	// filters compare COALESCE(date, now())); unset, such a run is in
	// no range of that date.
	openDatesAt *time.Time
}

func (f *runFilters) match(run *DagRun) bool {
	var logical *time.Time
	if ld, ok := run.LogicalDate(); ok {
		logical = &ld
	}
	after := run.After()
	start, end := run.StartDate, run.EndDate
	if f.openDatesAt != nil {
		start, end = cmp.Or(start, f.openDatesAt), cmp.Or(end, f.openDatesAt)
	}
	if !f.runAfter.holds(&after) || !f.logical.holds(logical) || !f.start.holds(start) ||
		!f.end.holds(end) || !f.updated.holds(run.UpdatedAt) || !f.duration.holds(runDuration(run)) {
		return false
	}
	if len(f.runTypes) > 0 && !slices.Contains(f.runTypes, run.RunType) {
		return false
	}
	if f.confContains != nil && !strings.Contains(string(run.Conf), *f.confContains) {
		return false
	}
	like := func(re *regexp.Regexp, v *string) bool { return re == nil || (v != nil && re.MatchString(*v)) }
	if !like(f.runID, &run.RunID) || !like(f.dagID, &run.DagID) || !like(f.user, run.TriggeringUser) || !like(f.partition, run.PartitionKey) {
		return false
	}
	if f.versions != nil && !slices.Contains(f.versions, 1) {
		return false
	}
	return f.bundleVersion == nil
}

// runDuration is DagRun.duration: end minus start in seconds, when both
// are set.
func runDuration(run *DagRun) *float64 {
	if run.StartDate == nil || run.EndDate == nil {
		return nil
	}
	d := run.EndDate.Sub(*run.StartDate).Seconds()
	return &d
}

func inRange(t *time.Time, gte, lte *time.Time) bool {
	if gte == nil && lte == nil {
		return true
	}
	if t == nil {
		return false // SQL: NULL compares as unknown
	}
	return (gte == nil || !t.Before(*gte)) && (lte == nil || !t.After(*lte))
}

func (q *runQuery) match(run *DagRun) bool {
	if len(q.states) > 0 && !slices.Contains(q.states, string(run.State)) {
		return false
	}
	if q.more != nil && !q.more.match(run) {
		return false
	}
	date := run.ExecutionDate
	return inRange(&date, q.executionGTE, q.executionLTE) && inRange(run.StartDate, q.startGTE, q.startLTE) &&
		inRange(run.EndDate, q.endGTE, q.endLTE) && inRange(run.UpdatedAt, q.updatedGTE, q.updatedLTE)
}

// compareRuns orders runs by an attribute (NULLs first, as SQLite sorts
// them), then by id so that pages never overlap.
func compareRuns(attr string) func(a, b *DagRun) int {
	key := compareRunAttr(attr)
	return func(a, b *DagRun) int {
		if c := key(a, b); c != 0 {
			return c
		}
		return compareInt64(a.ID, b.ID)
	}
}

// compareRunAttr orders runs by an attribute alone, NULLs first.
func compareRunAttr(attr string) func(a, b *DagRun) int {
	times := func(a, b *time.Time) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		case b == nil:
			return 1
		}
		return a.Compare(*b)
	}
	key := func(a, b *DagRun) int {
		switch attr {
		case "state":
			return strings.Compare(string(a.State), string(b.State))
		case "dag_id":
			return strings.Compare(a.DagID, b.DagID)
		case "execution_date":
			return a.ExecutionDate.Compare(b.ExecutionDate)
		case "dag_run_id":
			return strings.Compare(a.RunID, b.RunID)
		case "start_date":
			return times(a.StartDate, b.StartDate)
		case "end_date":
			return times(a.EndDate, b.EndDate)
		case "updated_at":
			return times(a.UpdatedAt, b.UpdatedAt)
		case "data_interval_start": // (task instances' orders: TIRunOrderPage)
			return times(a.DataIntervalStart, b.DataIntervalStart)
		case "data_interval_end":
			return times(a.DataIntervalEnd, b.DataIntervalEnd)
		case "external_trigger":
			return boolCompare(a.ExternalTrigger, b.ExternalTrigger)
		case "conf":
			return bytes.Compare(a.Conf, b.Conf)
		case "id":
			return compareInt64(a.ID, b.ID)
		case "run_id":
			return strings.Compare(a.RunID, b.RunID)
		case "logical_date":
			var x, y *time.Time
			if ld, ok := a.LogicalDate(); ok {
				x = &ld
			}
			if ld, ok := b.LogicalDate(); ok {
				y = &ld
			}
			return times(x, y)
		case "run_after":
			return a.After().Compare(b.After())
		case "duration":
			x, y := runDuration(a), runDuration(b)
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil:
				return -1
			case y == nil:
				return 1
			case *x < *y:
				return -1
			case *x > *y:
				return 1
			}
			return 0
		}
		return 0
	}
	return key
}

// runAttrIsNull reports whether a run's attribute is NULL in Airflow's
// dag_run table (the attributes Airflow 3's SortParam may order by).
func runAttrIsNull(attr string, run *DagRun) bool {
	switch attr {
	case "logical_date":
		_, ok := run.LogicalDate()
		return !ok
	case "start_date":
		return run.StartDate == nil
	case "end_date":
		return run.EndDate == nil
	case "updated_at":
		return run.UpdatedAt == nil
	case "duration":
		return runDuration(run) == nil
	case "data_interval_start":
		return run.DataIntervalStart == nil
	case "data_interval_end":
		return run.DataIntervalEnd == nil
	}
	return false
}

// boolCompare orders booleans as Python and SQL do: false before true.
func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// listRuns is _fetch_dag_runs: the page of matching runs and how many
// match. The orders and filters the store's indexes and run counts serve
// (pageQuery) read the page alone; an order of runs the store walks
// (orderQuery: an index's order, a marked one, duration, a fixed one
// (conf, external_trigger), of any DAGs, with any filter; more keys after
// one of those but dag_id, state and the fixed ones; several keys led by
// dag_id or state, a DAG's or state's runs in turn) reads the walks to
// the page's end; other listings (several keys led by conf) read the
// DAGs' runs (each DAG holds at most
// --max-runs-per-dag of them) and sort them (sortedRuns), as
// operations.sortLists sends every one (tests).
func (o *operations) listRuns(q *runQuery) ([]*DagRun, int, error) {
	store := o.store
	if o.sortLists.Load() {
		return o.sortedRuns(q)
	}
	if pq, ok := q.pageQuery(); ok {
		return store.RunPage(pq)
	}
	if pq, ok := q.filteredPageQuery(); ok {
		return store.RunPage(pq)
	}
	if oq, ok := q.orderQuery(); ok {
		runs, total, ok, err := store.RunOrderPage(oq)
		if ok || err != nil {
			return runs, total, err
		}
	}
	return o.sortedRuns(q)
}

// sortedRuns is listRuns by reading every run of the DAGs q names and
// sorting those it picks.
func (o *operations) sortedRuns(q *runQuery) ([]*DagRun, int, error) {
	store := o.store
	ids := q.dagIDs
	if ids == nil {
		rows, err := store.Dags()
		if err != nil {
			return nil, 0, err
		}
		for _, row := range rows {
			ids = append(ids, row.DagID)
		}
	}
	var matched []*DagRun
	for _, id := range ids {
		runs, err := store.RunsOfDag(id, "")
		if err != nil {
			return nil, 0, err
		}
		for _, run := range runs {
			if q.match(run) {
				matched = append(matched, run)
			}
		}
	}
	slices.SortFunc(matched, q.compare())
	total := len(matched)
	if q.offset >= len(matched) {
		return nil, total, nil
	}
	matched = matched[q.offset:]
	if len(matched) > q.limit {
		matched = matched[:q.limit]
	}
	return matched, total, nil
}

// compare is q's order: its keys in turn (Airflow 3's several), then the
// run's id, so that pages never overlap.
func (q *runQuery) compare() func(a, b *DagRun) int {
	if q.order != nil {
		return sortParamOrder(q.order)
	}
	keys := []runOrderKey{{q.orderBy, q.desc}}
	cmps := make([]func(a, b *DagRun) int, len(keys))
	for i, k := range keys {
		cmps[i] = compareRuns(k.attr)
	}
	return func(a, b *DagRun) int {
		for i, k := range keys {
			c := cmps[i](a, b)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
}

// sortParamOrder is Airflow 3's SortParam order over runs
// (sortParamCompare), the id their primary key.
func sortParamOrder(keys []runOrderKey) func(a, b *DagRun) int {
	return sortParamOrderPK(keys, len(keys) > 0 && keys[0].desc)
}

// sortParamOrderPK is sortParamOrder with the primary key's direction
// given (the keys after others: the first key's direction is the one
// before them).
func sortParamOrderPK(keys []runOrderKey, pkDesc bool) func(a, b *DagRun) int {
	sk := make([]sortKey, len(keys))
	cmps := make(map[string]func(a, b *DagRun) int, len(keys))
	for i, k := range keys {
		sk[i] = sortKey{attr: k.attr, desc: k.desc}
		cmps[k.attr] = compareRunAttr(k.attr)
	}
	compare := func(attr string, a, b *DagRun) int { return cmps[attr](a, b) }
	// sortParamCompare puts the primary key in the first key's direction.
	pk := func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) }
	if pkDesc != (len(keys) > 0 && keys[0].desc) {
		pk = func(a, b *DagRun) int { return compareInt64(b.ID, a.ID) }
	}
	return sortParamCompare(sk, runAttrIsNull, compare, pk)
}

// sortParamLead is SortParam's order of runs by one key alone: nulls below
// every value (first ascending, last descending), the key's direction, no
// primary key (sortParamOrder's first key).
func sortParamLead(k runOrderKey) func(a, b *DagRun) int {
	c := compareRunAttr(k.attr)
	return sortParamCompare([]sortKey{{attr: k.attr, desc: k.desc}}, runAttrIsNull,
		func(_ string, a, b *DagRun) int { return c(a, b) }, func(a, b *DagRun) int { return 0 })
}

// pageQuery is q as the store's RunPage reads it, when it can: by id (of
// one DAG or every DAG) or by logical date (of one DAG), filtered by
// nothing but known run states.
func (q *runQuery) pageQuery() (RunPageQuery, bool) {
	switch {
	case q.more != nil || len(q.order) > 1 || (len(q.order) == 1 && q.order[0].attr != "id"):
		return RunPageQuery{}, false
	case len(q.order) == 1: // Airflow 3's order_by=id or -id
		c := *q
		c.orderBy, c.desc, c.order = "id", q.order[0].desc, nil
		q = &c
	}
	pq := RunPageQuery{Desc: q.desc, Offset: q.offset, Limit: q.limit, ByDate: q.orderBy == "execution_date"}
	switch {
	case q.dateFiltered():
		return pq, false
	case len(q.dagIDs) == 1 && q.dagIDs[0] != "":
		// (The page's "" is every DAG; dag_ids [""] names none, which
		// the filtering path answers.)
		pq.DagID = q.dagIDs[0]
	case q.dagIDs != nil || pq.ByDate:
		return pq, false
	}
	if !pq.ByDate && q.orderBy != "id" {
		return pq, false
	}
	for _, name := range q.states {
		state := RunState(name)
		if runStateSlot(state) == len(runStates) {
			return pq, false // not a state the counts keep apart
		}
		pq.States = append(pq.States, state)
	}
	return pq, true
}

// orderQuery is q as RunOrderPage reads it: one order key (Airflow 3's
// SortParam adds the id after it, as compare does), whatever the DAGs and
// filters; the store says whether it walks that order.
func (q *runQuery) orderQuery() (RunOrderQuery, bool) {
	attr, desc := q.orderBy, q.desc
	name := fmt.Sprintf("%s desc=%t", attr, desc)
	oq := RunOrderQuery{DagIDs: q.dagIDs, Attr: attr, Desc: desc, Compare: q.compare(), NullsLast: q.order != nil,
		Offset: q.offset, Limit: q.limit, CompareName: name}
	if q.order != nil {
		if len(q.order) == 0 {
			return RunOrderQuery{}, false
		}
		oq.CompareName = fmt.Sprintf("sortparam %v", q.order)
		oq.Attr, oq.Desc, oq.Lead, oq.Then = sortParamWalk(q.order, q.order[0].desc, false)
		if oq.Lead != nil {
			oq.Ties = sortParamTies(q.order, q.order[0].desc)
		}
	}
	if q.more == nil && !q.dateFiltered() && len(q.states) == 0 {
		return oq, true
	}
	if q.more == nil && !q.dateFiltered() {
		for _, name := range q.states {
			if runStateSlot(RunState(name)) == len(runStates) {
				oq.States = nil
				break
			}
			oq.States = append(oq.States, RunState(name))
		}
		if oq.States != nil {
			return oq, true // the run counts' total
		}
	}
	oq.Keep, oq.KeepKey = q.match, q.filterKey()
	return oq, true
}

// sortParamWalk is how RunOrderPage walks Airflow 3's order keys (whose
// primary key comes last in pkDesc, the first key's direction; nested:
// keys come after another): the first key's attribute and direction;
// with keys after it, or a direction other than the primary key's, its
// order alone (lead: the walks read the runs that tie on it together and
// put them in the whole order); for dag_id and state with keys before or
// after them, whose ties are a DAG's or a state's every run, the order of
// the keys after them within each DAG or state (then: the id alone after
// the last key), in which every run of the DAG or state ties on the keys
// up to it.
func sortParamWalk(keys []runOrderKey, pkDesc, nested bool) (attr string, desc bool, lead func(a, b *DagRun) int, then *RunOrderQuery) {
	attr, desc = keys[0].attr, keys[0].desc
	rest := keys[1:]
	switch {
	case (attr == "dag_id" || attr == "state") && (nested || len(rest) > 0):
		next := RunOrderQuery{Attr: "id", Desc: pkDesc, NullsLast: true, Compare: sortParamOrderPK(rest, pkDesc),
			CompareName: fmt.Sprintf("sortparam %v pk desc=%t", rest, pkDesc)}
		if len(rest) > 0 {
			next.Attr, next.Desc, next.Lead, next.Then = sortParamWalk(rest, pkDesc, true)
		}
		then = &next
	case len(rest) > 0 || desc != pkDesc:
		lead = sortParamLead(keys[0])
	}
	return attr, desc, lead, then
}

// sortParamTies is, for Airflow 3's order keys led by a fixed order's
// (conf) with keys after it or a direction other than the primary key's
// (sortParamWalk's lead), the walk of the keys after it within one of its
// values (RunOrderQuery.Ties): in their order, the id last in pkDesc;
// nil for another first key.
func sortParamTies(keys []runOrderKey, pkDesc bool) *RunOrderQuery {
	if !slices.Contains(fixedRunAttrs[:], keys[0].attr) {
		return nil
	}
	rest := keys[1:]
	ties := RunOrderQuery{Attr: "id", Desc: pkDesc, NullsLast: true, Compare: sortParamOrderPK(rest, pkDesc),
		CompareName: fmt.Sprintf("sortparam %v pk desc=%t", rest, pkDesc)}
	if len(rest) > 0 {
		ties.Attr, ties.Desc, ties.Lead, ties.Then = sortParamWalk(rest, pkDesc, true)
		if ties.Lead != nil {
			ties.Ties = sortParamTies(rest, pkDesc)
		}
	}
	return &ties
}

// filteredPageQuery is q as RunPage reads it with a filter it walks
// through (RunPageQuery.Keep): one DAG's runs by id, either way, with any
// filter.
func (q *runQuery) filteredPageQuery() (RunPageQuery, bool) {
	if len(q.dagIDs) != 1 || q.dagIDs[0] == "" {
		return RunPageQuery{}, false
	}
	desc := q.desc
	switch {
	case q.order == nil && q.orderBy == "id":
	case len(q.order) == 1 && q.order[0].attr == "id":
		desc = q.order[0].desc
	default:
		return RunPageQuery{}, false
	}
	return RunPageQuery{DagID: q.dagIDs[0], Desc: desc, Offset: q.offset, Limit: q.limit, Keep: q.match, KeepKey: q.filterKey()}, true
}

// filterKey names every filter of q (match's), for the count of the runs
// they pick.
func (q *runQuery) filterKey() string {
	bounds := func(ts ...*time.Time) string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = timeKey(t)
		}
		return strings.Join(out, ",")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "states=%s execution=%s start=%s end=%s updated=%s", listKey(q.states), bounds(q.executionGTE, q.executionLTE),
		bounds(q.startGTE, q.startLTE), bounds(q.endGTE, q.endLTE), bounds(q.updatedGTE, q.updatedLTE))
	f := q.more
	if f == nil {
		return b.String()
	}
	rng := func(r timeRange) string { return bounds(r.gte, r.gt, r.lte, r.lt) }
	num, re := floatKey, patternKey
	str := func(s *string) string {
		if s == nil {
			return "None"
		}
		return strconv.Quote(*s)
	}
	versions := "None"
	if f.versions != nil {
		versions = fmt.Sprint(f.versions)
	}
	// The time open dates count as matters to the start and end ranges
	// alone: without them the count holds whenever it is asked for.
	open := "None"
	if f.start != (timeRange{}) || f.end != (timeRange{}) {
		open = timeKey(f.openDatesAt)
	}
	fmt.Fprintf(&b, " after=%s logical=%s start=%s end=%s updated=%s duration=%s,%s,%s,%s types=%s conf=%s run=%s user=%s dag=%s partition=%s versions=%s bundle=%s open=%s",
		rng(f.runAfter), rng(f.logical), rng(f.start), rng(f.end), rng(f.updated),
		num(f.duration.gte), num(f.duration.gt), num(f.duration.lte), num(f.duration.lt), listKey(f.runTypes), str(f.confContains),
		re(f.runID), re(f.user), re(f.dagID), re(f.partition), versions, str(f.bundleVersion), open)
	return b.String()
}

// dateFiltered reports whether q has a date filter.
func (q *runQuery) dateFiltered() bool {
	return q.executionGTE != nil || q.executionLTE != nil || q.startGTE != nil || q.startLTE != nil ||
		q.endGTE != nil || q.endLTE != nil || q.updatedGTE != nil || q.updatedLTE != nil
}

// clearRunTasks is DAG.clear of one run (clear_dag_run): its task
// instances, or with onlyFailed its failed and upstream_failed ones. With
// dryRun nothing changes and the answer is those task instances;
// otherwise they are cleared, and the run, when it had finished, queued
// again (clear_task_instances' dag_run_state), their running tries
// stopping.
func (o *operations) clearRunTasks(run *DagRun, onlyFailed, dryRun bool) ([]*TaskInstance, error) {
	tis, err := o.store.TaskInstancesOfRun(run.DagID, run.RunID)
	if err != nil {
		return nil, err
	}
	selected := make([]*TaskInstance, 0, len(tis))
	picked := map[tiKey]bool{}
	for _, ti := range tis {
		if onlyFailed && ti.State != TaskFailed && ti.State != TaskUpstreamFailed {
			continue
		}
		selected = append(selected, ti)
		picked[ti.key()] = true
	}
	if dryRun || len(selected) == 0 {
		return selected, nil
	}
	now := o.clock()
	return nil, o.stopWriteWake(func() ([]tiKey, error) {
		stopped, err := o.store.ClearTaskInstances(run.DagID, run.RunID, func(ti *TaskInstance) bool { return picked[ti.key()] }, true, now)
		if errors.Is(err, errNotFound) {
			return nil, opErr(errNotFound, faultRunNotFound, "dag_id", run.DagID, "run_id", run.RunID)
		}
		return stopped, err
	})
}

// taskResult is a task's return values in a run: one entry for an
// unmapped task, one per map index for a mapped one.
type taskResult struct {
	taskID string
	values []*XComEntry
}

// runResults are the return values (XCom return_value) the tasks taskIDs
// pushed in run, by task_id and map_index, the tasks that pushed none
// left out (DagRunWaiter._serialize_xcoms, c57fba0e
// services/public/dag_run.py:55-75).
func (o *operations) runResults(run *DagRun, taskIDs []string) ([]taskResult, error) {
	ids := slices.Clone(taskIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	key := xcomReturnKey
	var out []taskResult
	for _, id := range ids {
		es, err := o.store.XComEntries(XComFilter{DagID: run.DagID, RunID: run.RunID, TaskID: id, Key: &key})
		if err != nil {
			return nil, err
		}
		if len(es) > 0 {
			out = append(out, taskResult{taskID: id, values: es})
		}
	}
	return out, nil
}
