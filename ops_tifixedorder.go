package main

// Which of Airflow 3's task-instance orders the store walks by the keys a
// task instance gets when it is made (memstore_tifixedorder.go).

// fixedOrder says whether TIOrderPage serves q: every run's task
// instances (no named runs) with any filter, led by id either way (the
// keys after it never decide: ids are unique), or by -map_index alone
// ((map_index, id) down, SortParam's tie-break in the first key's
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

// tiOrderQuery is q as TIOrderPage reads it: without a filter the page
// passes its offset by counting, else the filters pick along the walk.
func (o *operations) tiOrderQuery(q *tiSearch, byID, desc bool) TIOrderQuery {
	tq := TIOrderQuery{DagIDs: q.dagIDs, ByID: byID, Desc: desc, Offset: q.offset, Limit: q.limit}
	if !q.unfilteredSearch() {
		tq.Keep, tq.KeepKey = o.tiKeep(q), q.filterKey()
	}
	return tq
}
