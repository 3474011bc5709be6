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
// caller goes on): led by id or map_index (TIOrderPage), or by the
// runs' logical_date or data interval (TIRunOrderPage), or by
// rendered_map_index or operator alone (TIRenderedPage, TIOperatorPage).
func (o *operations) fixedOrderPage(q *tiSearch) ([]RunTaskInstance, int, bool, error) {
	if byID, desc, ok := q.fixedOrder(); ok {
		tq := TIOrderQuery{DagIDs: q.dagIDs, ByID: byID, Desc: desc, Offset: q.offset, Limit: q.limit}
		if !q.unfilteredSearch() {
			tq.Keep, tq.KeepKey = o.tiKeep(q), q.filterKey()
		}
		return o.store.TIOrderPage(tq)
	}
	if attr := q.runLead(); attr != "" {
		lead := runOrderKey{attr: attr, desc: q.order[0].desc}
		rq := TIRunOrderQuery{DagIDs: q.dagIDs, Attr: attr, Desc: lead.desc, RunCompare: sortParamOrder([]runOrderKey{lead}),
			RunCompareName: fmt.Sprintf("task instances by %v", lead), RunTie: sortParamLead(lead), Compare: compareTISortParam(q.order),
			Offset: q.offset, Limit: q.limit}
		if !q.unfilteredSearch() {
			rq.Keep, rq.KeepKey, rq.TaskIDs = o.tiKeep(q), q.filterKey(), inList(slices.Clone(q.taskIDs))
		}
		return o.store.TIRunOrderPage(rq)
	}
	if desc, ok := q.renderedOrder(); ok {
		rq := TIRenderedQuery{DagIDs: q.dagIDs, Desc: desc, Offset: q.offset, Limit: q.limit}
		if !q.unfilteredSearch() {
			rq.Keep, rq.KeepKey = o.tiKeep(q), q.filterKey()
		}
		return o.store.TIRenderedPage(rq)
	}
	if q.runIDs == nil && len(q.order) == 1 && q.order[0].attr == "operator" {
		oq := TIOperatorQuery{DagIDs: q.dagIDs, Desc: q.order[0].desc, Offset: q.offset, Limit: q.limit}
		if !q.unfilteredSearch() {
			oq.Keep, oq.KeepKey = o.tiKeep(q), q.filterKey()
		}
		return o.store.TIOperatorPage(oq)
	}
	return nil, 0, false, nil
}

// renderedOrder says whether TIRenderedPage serves q: every run's task
// instances (no named runs) by rendered_map_index alone, either way
// (with keys after it, the NULL part's ties would need them: sorted).
func (q *tiSearch) renderedOrder() (desc, ok bool) {
	if q.runIDs != nil || len(q.order) != 1 || q.order[0].attr != "rendered_map_index" {
		return false, false
	}
	return q.order[0].desc, true
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
