package main

// Airflow 3's task instances across runs in an order led by state or
// try_number with other keys after it (the UI's state column, then its
// start: order_by=state,-start_date; get_task_instances' SortParam,
// routes/public/task_instances.py:441-466 of c57fba0e, ends with the id
// in the first key's direction, api_fastapi/common/parameters.py:327-330).
// A state or a try number is shared by most task instances, so the keyed
// walk (TIKeyPage) read a whole group to sort it by the keys after: here
// they are leads of the group page (TIGroupPage, memstore_tigroups.go,
// as operator is), which passes the groups before a page by their counts
// and picks each group it reaches along the walk of the keys after the
// lead; this file says when that reads fewer rows than the keyed walk.

import "slices"

// leadGroupPage is q's page when its order is led by state or try_number
// and the keys after it are walked (leadGroupsWalked): the group page of
// those values (TIGroupPage, as for operator), whose groups are counted
// once per version of each DAG's task-instance rows, passed by their
// counts, and picked along the walk of the next key (restWalk; a group
// whose next key is NULL for all along the keys after it). ok false
// otherwise, or when the groups the page reaches are read for fewer rows
// by the keyed walk (TIKeyPage: a group's ties read together; the
// caller goes on). A group's value is picked along the next key's walk,
// about n/its count rows a row (a rare value reads the walk up to its
// page's last), the next key's NULLs (one tie there) read together.
func (o *operations) leadGroupPage(q *tiSearch) ([]RunTaskInstance, int, bool, error) {
	if !q.leadGroupsWalked() {
		return nil, 0, false, nil
	}
	var keep func(RunTaskInstance) bool
	var keepKey string
	if !q.unfilteredSearch() {
		keep, keepKey = o.tiKeep(q), q.filterKey()
	}
	gq := o.groupQuery(q, q.order, keep, keepKey)
	gq.Offset, gq.Limit = q.offset, q.limit
	if keep == nil {
		groups, ok, err := o.store.TIGroups(gq)
		if err != nil || !ok {
			return nil, 0, false, err
		}
		if !q.groupsWalkCheaper(groups) {
			return nil, 0, false, nil
		}
	}
	return o.store.TIGroupPage(gq)
}

// groupsWalkCheaper says whether the walks of the groups q's page reaches
// (in q's order) read fewer rows than the keyed walk, about: the keyed
// walk reads the groups, the next key's walk its NULLs (one tie group:
// first ascending, last descending) and its values, a group's spread
// evenly among them.
func (q *tiSearch) groupsWalkCheaper(groups []TIGroup) bool {
	total, nulls := 0, 0
	for _, g := range groups {
		total, nulls = total+g.N, nulls+g.Nulls
	}
	if q.offset >= total || q.limit <= 0 {
		return true
	}
	walked, read := 0, 0
	for left, offset := min(q.limit, total-q.offset), q.offset; left > 0; groups = groups[1:] {
		g := groups[0]
		if offset >= g.N {
			offset -= g.N
			continue
		}
		n := min(left, g.N-offset)
		switch {
		case nullsSplit(q.order[1].attr):
			walked += splitGroupReads(offset, offset+n, g, total-nulls, q.order[1].desc)
		case g.Nulls == g.N && q.leadGroupSearch(2).walkedOrder():
			// Along the walk of the keys after the next (the id's alone).
			walked += (offset + n) * total / g.N
		default:
			walked += nextWalkReads(offset+n, g, total, nulls, q.order[1].desc)
		}
		read += g.N
		left, offset = left-n, 0
	}
	return read > walked
}

// nextWalkReads is about how many entries the next key's walk reads to
// the end-th task instance of group g (of total, nulls of them with a
// NULL next key), picking them: ascending its NULLs first, all of them
// (one tie), then g's values spread evenly among the others; descending
// the values first, then the NULLs.
func nextWalkReads(end int, g TIGroup, total, nulls int, desc bool) int {
	values, gValues := total-nulls, g.N-g.Nulls
	if !desc {
		if end <= g.Nulls || gValues == 0 {
			return nulls
		}
		return nulls + (end-g.Nulls)*values/gValues
	}
	if end <= gValues {
		return end * values / gValues
	}
	return values + nulls
}

// splitGroupReads is about how many rows the group page reads for the
// task instances from offset to end of group g when it takes g's NULLs
// apart from its values (TIGroupQuery.SplitNulls): those of its NULLs a
// slice of the scope's NULL part, its values picked along the next key's
// walk past the NULLs (values entries of it), from the first to end.
// Ascending the NULLs come first, descending last.
func splitGroupReads(offset, end int, g TIGroup, values int, desc bool) int {
	gValues := g.N - g.Nulls
	nullsAt, valuesAt := 0, g.Nulls
	if desc {
		nullsAt, valuesAt = gValues, 0
	}
	reads := max(min(end, nullsAt+g.Nulls)-max(offset, nullsAt), 0)
	if gValues > 0 && offset < valuesAt+gValues && end > valuesAt {
		reads += (min(end, valuesAt+gValues) - valuesAt) * values / gValues
	}
	return reads
}

// leadGroupSearch is q without its first skip keys, for one of its
// lead's groups (the caller adds the group's filter; the keys skipped
// after the lead are constant in it): its keys after them, then the id
// in the lead's direction (SortParam's tie-break of q, which a listing
// led by the next key would put in that key's direction); the next key
// alone when it has the lead's direction and is the last.
func (q *tiSearch) leadGroupSearch(skip int) *tiSearch {
	sub := *q
	lead, rest := q.order[0], q.order[skip:]
	if len(rest) == 1 && rest[0].desc == lead.desc {
		sub.order = slices.Clone(rest)
	} else {
		sub.order = append(slices.Clone(rest), sortKey{attr: "id", desc: lead.desc})
	}
	return &sub
}

// leadGroupsWalked says whether leadGroupPage serves q: every run's task
// instances (no named runs) led by state or try_number with keys after
// it whose group listings a walk serves (walkedOrder).
func (q *tiSearch) leadGroupsWalked() bool {
	if q.runIDs != nil || len(q.order) < 2 {
		return false
	}
	if a := q.order[0].attr; a != "state" && a != "try_number" {
		return false
	}
	return q.leadGroupSearch(1).walkedOrder()
}

// walkedOrder says whether searchTaskInstances walks q's order (every
// run's task instances) rather than reading and sorting them: the orders
// fixedOrderPage (TIOrderPage, TIRunOrderPage, TIGroupPage), walkedLead
// and leadGroupPage take, a keyed lead's keys after it read by its ties
// (state and try_number) counted as not.
func (q *tiSearch) walkedOrder() bool {
	if q.runIDs != nil || len(q.order) == 0 {
		return false
	}
	if _, _, ok := q.fixedOrder(); ok {
		return true
	}
	if q.groupLead() || q.runLead() != "" {
		return true
	}
	switch a := q.order[0].attr; {
	case a == "state" || a == "try_number":
		return len(q.order) == 1 || q.leadGroupsWalked()
	}
	return q.walkedLead() != ""
}
