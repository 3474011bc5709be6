package main

// Which of Airflow 3's task-instance orders the store walks by keys a
// task instance gets when it is made, or its run does
// (memstore_tifixedorder.go).

import (
	"fmt"
	"slices"
)

// fixedOrderPage is q's page when the store walks every run's task
// instances in q's order by such keys (ok false: it does not, and the
// caller goes on): led by id or map_index alone (TIOrderPage), or by the
// runs' logical_date or data interval (TIRunOrderPage), or by operator,
// rendered_map_index, or map_index with keys after it (TIGroupPage).
func (o *operations) fixedOrderPage(q *tiSearch) ([]RunTaskInstance, int, bool, error) {
	byID, desc, fixed := q.fixedOrder()
	if !fixed && q.runLead() == "" && !q.groupLead() {
		return nil, 0, false, nil
	}
	var keep func(RunTaskInstance) bool
	var keepKey string
	if !q.unfilteredSearch() {
		keep, keepKey = o.tiKeep(q), q.filterKey()
	}
	if fixed {
		return o.store.TIOrderPage(TIOrderQuery{DagIDs: q.dagIDs, ByID: byID, Desc: desc, Keep: keep, KeepKey: keepKey, Offset: q.offset, Limit: q.limit})
	}
	if q.runLead() != "" {
		return o.store.TIRunOrderPage(q.runOrderQuery(q.order, keep, keepKey, q.offset))
	}
	gq := o.groupQuery(q, q.order, keep, keepKey)
	gq.Offset, gq.Limit = q.offset, q.limit
	return o.store.TIGroupPage(gq)
}

// groupLead says whether TIGroupPage serves q: every run's task
// instances (no named runs) led by operator or rendered_map_index, or by
// map_index with keys after it (alone: TIOrderPage).
func (q *tiSearch) groupLead() bool {
	if q.runIDs != nil || len(q.order) == 0 {
		return false
	}
	switch q.order[0].attr {
	case "operator", "rendered_map_index":
		return true
	case "map_index":
		return len(q.order) > 1
	}
	return false
}

// groupQuery is the group page of q's task instances keep picks by keys
// (a tail of q's order led by operator, map_index, rendered_map_index,
// state or try_number; the id after them in the direction of q's first
// key), whose groups walk the keys after the lead (restWalk).
func (o *operations) groupQuery(q *tiSearch, keys []sortKey, keep func(RunTaskInstance) bool, keepKey string) TIGroupQuery {
	gq := TIGroupQuery{DagIDs: q.dagIDs, Lead: keys[0].attr, Desc: keys[0].desc, Compare: compareTISortParam(q.order),
		OrderName: sortKeysName(q.order), Keep: keep, KeepKey: keepKey}
	afterNext := len(keys) > 1 && q.leadGroupSearch(len(q.order)-len(keys)+2).walkedOrder()
	gq.Rest = func(g TIGroup) TIWalk {
		if afterNext && g.N > 0 && g.Nulls == g.N {
			// The next key NULL for every one (the unstarted by a
			// date): one tie, which the keys after it order, walked.
			return o.restWalk(q, keys[2:], g)
		}
		return o.restWalk(q, keys[1:], g)
	}
	if len(keys) > 1 {
		next := keys[1].attr
		gq.NextNull, gq.NextName, gq.NextDesc = func(r RunTaskInstance) bool { return tiAttrIsNull(next, r) }, next, keys[1].desc
		// The groups of a lead of values count their NULLs (TIGroup.Nulls).
		gq.SplitNulls = nullsSplit(next) && (gq.Lead == "operator" || gq.Lead == "state" || gq.Lead == "try_number")
	}
	return gq
}

// restWalk walks a group of a page led by operator, state, try_number,
// map_index or rendered_map_index (g: its task instances) in the order of keys, the
// keys of q's order after the group's, then the id in the direction of
// q's first key (SortParam's tie-break, c57fba0e
// api_fastapi/common/parameters.py:327-330): g's value picked along the
// store's walk of the next key, or, by another group's key, a group page
// again. No keys: the id walk.
func (o *operations) restWalk(q *tiSearch, keys []sortKey, g TIGroup) TIWalk {
	idWalk := TIOrderQuery{ByID: true, Desc: q.order[0].desc, Keep: g.Keep, KeepKey: g.KeepKey, WholeUnmapped: g.Unmapped, Offset: g.Offset}
	if len(keys) == 0 {
		return o.store.TIOrderWalk(idWalk)
	}
	switch k := keys[0]; k.attr {
	case "id": // unique: the keys after it never decide
		idWalk.Desc = k.desc
		return o.store.TIOrderWalk(idWalk)
	case "map_index":
		if len(keys) == 1 && k.desc == q.order[0].desc {
			idWalk.ByID, idWalk.Desc = false, k.desc // (map_index, id) either way
			return o.store.TIOrderWalk(idWalk)
		}
	case "start_date":
		sq := q.startQuery(keys, g.Keep, g.KeepKey, g.Offset)
		sq.NotNull = g.NotNull
		return o.store.TIStartWalk(sq)
	case "run_after":
		return o.store.TIRunAfterWalk(q.runAfterQuery(keys, g.Keep, g.KeepKey, g.Offset))
	case "logical_date", "data_interval_start", "data_interval_end":
		return o.store.TIRunOrderWalk(q.runOrderQuery(keys, g.Keep, g.KeepKey, g.Offset))
	}
	if order, keyed := tiKeyOrderOf(keys[0].attr); keyed && !q.valueLeadWalked(keys) {
		sq := q.startQuery(keys, g.Keep, g.KeepKey, g.Offset)
		sq.NotNull = g.NotNull
		return o.store.TIKeyWalk(order, sq)
	}
	// operator, rendered_map_index, map_index with keys after it or the
	// other way than the id, state or try_number with walked keys after
	// it (TIKeyWalk would read a value's ties whole).
	gq := o.groupQuery(q, keys, g.Keep, g.KeepKey)
	gq.Offset = g.Offset
	return o.store.TIGroupWalk(gq, g.N)
}

// valueLeadWalked says whether keys (a tail of q's order) are led by
// state or try_number with keys after it that a walk takes: a group page
// of their values, as leadGroupPage's (leadGroupsWalked) for a whole
// order.
func (q *tiSearch) valueLeadWalked(keys []sortKey) bool {
	if a := keys[0].attr; len(keys) < 2 || a != "state" && a != "try_number" {
		return false
	}
	return q.leadGroupSearch(len(q.order) - len(keys) + 1).walkedOrder()
}

// startQuery is the start or keyed walk of q's task instances keep picks
// by keys (a tail of q's order led by start_date, state, end_date,
// duration or try_number), put in q's whole order: each key's ties (one
// instant) sorted, or the walk's own order when keys is the key alone
// and the id goes its way.
func (q *tiSearch) startQuery(keys []sortKey, keep func(RunTaskInstance) bool, keepKey string, offset int) TIStartQuery {
	return TIStartQuery{DagIDs: q.dagIDs, Desc: keys[0].desc, Compare: compareTISortParam(q.order), Keep: keep, KeepKey: keepKey,
		Named: q.named, KeyOnly: len(keys) == 1 && keys[0].desc == q.order[0].desc, Offset: offset, Limit: q.limit}
}

// runAfterQuery is the run_after walk of q's task instances keep picks
// by keys (a tail of q's order led by run_after), put in q's whole order.
func (q *tiSearch) runAfterQuery(keys []sortKey, keep func(RunTaskInstance) bool, keepKey string, offset int) TIRunAfterQuery {
	return TIRunAfterQuery{DagIDs: q.dagIDs, Desc: keys[0].desc, Compare: compareTISortParam(q.order), Keep: keep, KeepKey: keepKey,
		TaskIDs: inList(slices.Clone(q.taskIDs)), Offset: offset, Limit: q.limit}
}

// runOrderQuery is the walk of q's task instances keep picks by keys (a
// tail of q's order led by logical_date or the data interval: runLead's)
// in their runs' order, put in q's whole order.
func (q *tiSearch) runOrderQuery(keys []sortKey, keep func(RunTaskInstance) bool, keepKey string, offset int) TIRunOrderQuery {
	lead := runOrderKey{attr: keys[0].attr, desc: keys[0].desc}
	rq := TIRunOrderQuery{DagIDs: q.dagIDs, Attr: lead.attr, Desc: lead.desc, RunCompare: sortParamOrder([]runOrderKey{lead}),
		RunCompareName: fmt.Sprintf("task instances by %v", lead), RunTie: sortParamLead(lead), Compare: compareTISortParam(q.order),
		Keep: keep, KeepKey: keepKey, Offset: offset, Limit: q.limit}
	if keep != nil {
		rq.TaskIDs = inList(slices.Clone(q.taskIDs))
	}
	return rq
}

// fixedOrder says whether TIOrderPage serves q: every run's task
// instances (no named runs) with any filter, led by id either way (the
// keys after it never decide: ids are unique), or by map_index alone
// ((map_index, id) either way, SortParam's tie-break in the first key's
// direction); byID and desc say which walk.
func (q *tiSearch) fixedOrder() (byID, desc, ok bool) {
	if q.runIDs != nil || len(q.order) == 0 {
		return false, false, false
	}
	switch k := q.order[0]; {
	case k.attr == "id":
		return true, k.desc, true
	case k.attr == "map_index" && len(q.order) == 1:
		return false, k.desc, true
	}
	return false, false, false
}

// runLead is the first key of q's order when it is an attribute of the
// runs (the to_replace of get_task_instances' SortParam, c57fba0e
// routes/public/task_instances.py:461-466) that RunOrderPage walks and
// run_after's walk does not take: logical_date (its marks), the data
// interval (its fixed marks); "" otherwise (named runs, other orders).
func (q *tiSearch) runLead() string {
	if q.runIDs != nil || len(q.order) == 0 {
		return ""
	}
	switch a := q.order[0].attr; a {
	case "logical_date", "data_interval_start", "data_interval_end":
		return a
	}
	return ""
}

// nullsSplit says whether a group page takes a group's task instances
// whose next key (attr) is NULL apart from its others
// (TIGroupQuery.SplitNulls): the next keys whose walks start past their
// NULLs (TIStartQuery.NotNull: the start walk leaves the unstarted out,
// the keyed walk seeks past its NULL key).
func nullsSplit(attr string) bool {
	switch attr {
	case "start_date", "end_date", "duration":
		return true
	}
	return false
}
