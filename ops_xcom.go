package main

// XCom entries: listing a task instance's (or many, by wildcard) and one
// entry with its value (Airflow 2.10.3 airflow/models/xcom.py,
// api_connexion/endpoints/xcom_endpoint.py). An entry has its task
// instance's map_index: -1, or a mapped task's expanded instance's.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// faultXComNotFound is an entry that is not there.
const faultXComNotFound opFault = "xcom_not_found" // dag_id, run_id, task_id, key

// xcomQuery picks XCom entries: an empty dag_id, run_id or task_id
// matches any; key, when given (even empty), must match; mapIndex, when
// given, must match.
type xcomQuery struct {
	dagID, runID, taskID string
	key                  *string
	mapIndex             *int64
}

// xcomRead is an entry with its run's logical date, read now (XCom's
// association proxy to the run); nil when the run is gone or replaced.
type xcomRead struct {
	*XComEntry
	ExecutionDate *time.Time
	// Run is the entry's run, read now; nil when it is gone or replaced.
	Run *DagRun
}

// xcomEntries lists the entries f picks, in Airflow's order (dag_id,
// task_id, run_id, map_index, key), q's window of them: the store's page
// where it pages f (XComPage), else every entry of f's scope.
func (o *operations) xcomEntries(f xcomQuery, q listQuery) (listed[xcomRead], error) {
	if f.key != nil && *f.key == "" {
		// None, as the stable API answered before: only /api/v2's
		// create (edition 3) stores the key "".
		return listed[xcomRead]{rows: []xcomRead{}}, nil
	}
	limit := q.limit
	if limit <= 0 {
		limit = math.MaxInt
	}
	pq := XComPageQuery{DagID: f.dagID, RunID: f.runID, TaskID: f.taskID, Key: f.key, Offset: max(q.offset, 0), Limit: limit}
	if f.mapIndex != nil {
		if *f.mapIndex < math.MinInt32 || *f.mapIndex > math.MaxInt32 {
			return listed[xcomRead]{rows: []xcomRead{}}, nil
		}
		mi := int(*f.mapIndex)
		pq.MapIndex = &mi
	}
	// Across runs, the key and map_index pick along the walk of the
	// scope (an entry is listed whether its run is there or not).
	pq.FilterKey = fmt.Sprintf("key=%s map=%s", strPtrKey(f.key), int64PtrKey(f.mapIndex))
	var entries []*XComEntry
	var total int
	var paged bool
	var err error
	if !o.sortLists.Load() {
		entries, total, paged, err = o.store.XComPage(pq)
	}
	if err != nil {
		return listed[xcomRead]{}, err
	}
	if paged {
		items := make([]xcomRead, len(entries))
		for i, e := range entries {
			items[i] = o.readXCom(e)
		}
		return listed[xcomRead]{rows: items, total: total}, nil
	}
	entries, err = o.store.XComEntries(XComFilter{DagID: f.dagID, RunID: f.runID, TaskID: f.taskID, Key: f.key})
	if err != nil {
		return listed[xcomRead]{}, err
	}
	kept := entries
	if f.mapIndex != nil {
		kept = nil
		for _, e := range entries {
			if int64(e.MapIndex) == *f.mapIndex {
				kept = append(kept, e)
			}
		}
	}
	rows := window(kept, q)
	items := make([]xcomRead, len(rows))
	for i, e := range rows {
		items[i] = o.readXCom(e)
	}
	return listed[xcomRead]{rows: items, total: len(kept)}, nil
}

// strPtrKey and int64PtrKey are optional filter values in a filter's
// name: nil is None.
func strPtrKey(s *string) string {
	if s == nil {
		return "None"
	}
	return strconv.Quote(*s)
}

func int64PtrKey(n *int64) string {
	if n == nil {
		return "None"
	}
	return strconv.FormatInt(*n, 10)
}

func (o *operations) readXCom(e *XComEntry) xcomRead {
	item := xcomRead{XComEntry: e}
	if run, err := o.store.RunByRunID(e.DagID, e.RunID); err == nil && run.ID == e.RunRowID {
		date := run.ExecutionDate
		item.ExecutionDate = &date
		item.Run = run
	}
	return item
}

// xcomEntry is one entry with its value, of a map index (-1 unless the
// task is mapped).
func (o *operations) xcomEntry(dagID, runID, taskID, key string, mapIndex int64) (xcomRead, error) {
	notFound := opErr(errNotFound, faultXComNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID, "key", key)
	if mapIndex < -1 || mapIndex > math.MaxInt32 {
		return xcomRead{}, notFound
	}
	e, err := o.store.XCom(dagID, runID, taskID, key, int(mapIndex))
	if errors.Is(err, errNotFound) {
		return xcomRead{}, notFound
	}
	if err != nil {
		return xcomRead{}, err
	}
	return o.readXCom(e), nil
}

// faultXComExists is an entry created under a key its task instance
// already has.
const faultXComExists opFault = "xcom_exists" // dag_id, run_id, task_id, key

// xcomSearch is the neutral query of Airflow 3's XCom listing
// (get_xcom_entries): "" for an id matches any; a nil filter is not
// given.
type xcomSearch struct {
	dagID, runID, taskID                            string
	key                                             *string
	mapIndex, mapIndexFilter                        *int64
	keyPattern, dagPattern, runPattern, taskPattern *regexp.Regexp
	logical, runAfter                               timeBounds
	offset, limit                                   int
}

// pageQuery is q as the store's page of entries (XComPage): the run
// is joined (an entry whose run is gone is left out) and the filters
// fixed by a DAG, a run or a task are checked once for it; across runs,
// the key, map_index, key pattern and run filters pick along the walk of
// the scope, named for their count; none when the two map_index filters
// differ. A key pattern within a run is not paged (ok false).
func (q xcomSearch) pageQuery() (pq XComPageQuery, none, ok bool) {
	if q.keyPattern != nil && q.runID != "" {
		return XComPageQuery{}, false, false
	}
	pq = XComPageQuery{DagID: q.dagID, RunID: q.runID, TaskID: q.taskID, Key: q.key, Offset: q.offset, Limit: q.limit}
	if re := q.keyPattern; re != nil {
		pq.KeepKey = func(key string) bool { return re.MatchString(key) }
	}
	for _, mi := range []*int64{q.mapIndex, q.mapIndexFilter} {
		switch {
		case mi == nil:
		case *mi < math.MinInt32 || *mi > math.MaxInt32 || (pq.MapIndex != nil && int64(*pq.MapIndex) != *mi):
			return XComPageQuery{}, true, true
		default:
			n := int(*mi)
			pq.MapIndex = &n
		}
	}
	if re := q.dagPattern; re != nil {
		pq.KeepDag = func(dagID string) bool { return re.MatchString(dagID) }
	}
	if re := q.taskPattern; re != nil {
		pq.KeepTask = func(taskID string) bool { return re.MatchString(taskID) }
	}
	if q.runID != "" {
		pq.KeepRun = func(run *DagRun) bool { return run != nil && q.admitsRun(run) }
	} else if q.runPattern != nil || q.logical != (timeBounds{}) || q.runAfter != (timeBounds{}) {
		pq.KeepRun = q.admitsRun
		pq.RunsAfter, pq.RunsUpTo = q.runAfter.span()
	}
	if pq.filteredAcrossRuns() {
		pq.JoinRun = true
		pq.FilterKey = q.filterKey()
	}
	return pq, false, true
}

// span is the narrowest closed range [from, upTo] holding every time b
// admits (nil: unbounded that side).
func (b timeBounds) span() (from, upTo *time.Time) {
	for _, t := range []*time.Time{b.gte, b.gt} {
		if t != nil && (from == nil || t.After(*from)) {
			from = t
		}
	}
	for _, t := range []*time.Time{b.lte, b.lt} {
		if t != nil && (upTo == nil || t.Before(*upTo)) {
			upTo = t
		}
	}
	return from, upTo
}

// filterKey names q's filters across runs, for the count of what they
// pick.
func (q xcomSearch) filterKey() string {
	bounds := func(b timeBounds) string {
		return strings.Join([]string{timeKey(b.gte), timeKey(b.gt), timeKey(b.lte), timeKey(b.lt)}, ",")
	}
	return fmt.Sprintf("joined key=%s map=%s,%s patterns=%s,%s,%s,%s logical=%s after=%s", strPtrKey(q.key),
		int64PtrKey(q.mapIndex), int64PtrKey(q.mapIndexFilter), patternKey(q.keyPattern), patternKey(q.dagPattern),
		patternKey(q.runPattern), patternKey(q.taskPattern), bounds(q.logical), bounds(q.runAfter))
}

// admitsRun says whether q's run filters take an entry of run.
func (q xcomSearch) admitsRun(run *DagRun) bool {
	if q.runPattern != nil && !q.runPattern.MatchString(run.RunID) {
		return false
	}
	var logical *time.Time
	if date, ok := run.LogicalDate(); ok {
		logical = &date
	}
	after := run.After()
	return q.logical.admits(logical) && q.runAfter.admits(&after)
}

// searchXComs lists the entries q picks whose run is there (Airflow
// joins the run), in Airflow's order (dag_id, task_id, run_id,
// map_index, key), q's window of them, and how many match: the store's
// page where it pages q, else every entry of q's scope, filtered.
func (o *operations) searchXComs(q xcomSearch) ([]xcomRead, int, error) {
	if pq, none, ok := q.pageQuery(); none {
		return []xcomRead{}, 0, nil
	} else if ok && !o.sortLists.Load() {
		entries, total, paged, err := o.store.XComPage(pq)
		if err != nil {
			return nil, 0, err
		}
		// An entry's run is there (a run's entries go with it), so the
		// page is the store's; an entry without its run (one of an
		// older run under its run_id) sends the listing the long way,
		// which leaves it out.
		items := make([]xcomRead, len(entries))
		whole := paged
		for i, e := range entries {
			if items[i] = o.readXCom(e); items[i].Run == nil {
				whole = false
				break
			}
		}
		if whole {
			return items, total, nil
		}
	}
	entries, err := o.store.XComEntries(XComFilter{DagID: q.dagID, RunID: q.runID, TaskID: q.taskID, Key: q.key})
	if err != nil {
		return nil, 0, err
	}
	var kept []xcomRead
	for _, e := range entries {
		switch {
		case q.mapIndex != nil && int64(e.MapIndex) != *q.mapIndex,
			q.mapIndexFilter != nil && int64(e.MapIndex) != *q.mapIndexFilter,
			q.keyPattern != nil && !q.keyPattern.MatchString(e.Key),
			q.dagPattern != nil && !q.dagPattern.MatchString(e.DagID),
			q.runPattern != nil && !q.runPattern.MatchString(e.RunID),
			q.taskPattern != nil && !q.taskPattern.MatchString(e.TaskID):
			continue
		}
		item := o.readXCom(e)
		if item.Run == nil || !q.admitsRun(item.Run) {
			continue
		}
		kept = append(kept, item)
	}
	total := len(kept)
	if q.offset >= len(kept) {
		return []xcomRead{}, total, nil
	}
	kept = kept[q.offset:]
	if q.limit < len(kept) {
		kept = kept[:q.limit]
	}
	return kept, total, nil
}

// createXCom adds an entry to a run's task instance (create_xcom_entry):
// the DAG (faultDagNotFound), its task (faultTaskMissing) and the run
// (faultRunNotFound) must be there, in that order, and the key free
// (faultXComExists).
func (o *operations) createXCom(dagID, runID, taskID, key string, mapIndex int64, value json.RawMessage) (xcomRead, error) {
	run, err := o.store.RunByRunID(dagID, runID)
	if err != nil && !errors.Is(err, errNotFound) {
		return xcomRead{}, err
	}
	row, err := o.store.DagByID(dagID)
	switch {
	case errors.Is(err, errNotFound) || (err == nil && row.Def == nil):
		return xcomRead{}, opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	case err != nil:
		return xcomRead{}, err
	case row.Def.Task(taskID) == nil:
		return xcomRead{}, opErr(errNotFound, faultTaskMissing, "dag_id", dagID, "task_id", taskID)
	case run == nil:
		return xcomRead{}, opErr(errNotFound, faultRunNotFound, "dag_id", dagID, "run_id", runID)
	}
	e := &XComEntry{DagID: dagID, RunID: runID, TaskID: taskID, RunRowID: run.ID, MapIndex: int(mapIndex),
		Key: key, Value: value, Timestamp: o.clock()}
	err = o.store.CreateXCom(e)
	if errors.Is(err, errConflict) {
		return xcomRead{}, opErr(errConflict, faultXComExists, "dag_id", dagID, "run_id", runID, "task_id", taskID, "key", key)
	}
	if err != nil {
		return xcomRead{}, err
	}
	return o.readXCom(e), nil
}

// setXComValue replaces an entry's value (update_xcom_entry); an entry
// that is not there under that map index is faultXComNotFound.
func (o *operations) setXComValue(dagID, runID, taskID, key string, mapIndex int64, value json.RawMessage) (xcomRead, error) {
	if _, err := o.xcomEntry(dagID, runID, taskID, key, mapIndex); err != nil {
		return xcomRead{}, err
	}
	e, err := o.store.SetXComValue(dagID, runID, taskID, key, int(mapIndex), value)
	if errors.Is(err, errNotFound) {
		return xcomRead{}, opErr(errNotFound, faultXComNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID, "key", key)
	}
	if err != nil {
		return xcomRead{}, err
	}
	return o.readXCom(e), nil
}

// deleteXCom removes an entry (delete_xcom_entry); one that is not there
// under that map index is faultXComNotFound.
func (o *operations) deleteXCom(dagID, runID, taskID, key string, mapIndex int64) error {
	if _, err := o.xcomEntry(dagID, runID, taskID, key, mapIndex); err != nil {
		return err
	}
	err := o.store.DeleteXCom(dagID, runID, taskID, key, int(mapIndex))
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultXComNotFound, "dag_id", dagID, "run_id", runID, "task_id", taskID, "key", key)
	}
	return err
}
