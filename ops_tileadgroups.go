package main

// Airflow 3's task instances across runs in an order led by state or
// try_number with other keys after it (the UI's state column, then its
// start: order_by=state,-start_date; get_task_instances' SortParam,
// routes/public/task_instances.py:441-466 of c57fba0e, ends with the id
// in the first key's direction, api_fastapi/common/parameters.py:327-330).
// A state or a try number is shared by most task instances, so the keyed
// walk (TIKeyPage) read a whole group to sort it by the keys after: here
// a page passes the groups before it by their counts and lists each group
// it reaches as the listing with the group's value as a filter, in the
// keys after the lead, along their walk.

import (
	"cmp"
	"maps"
	"slices"
)

// tiLeadGroup is the task instances of one value of a listing's lead:
// how many its filters pick, how many of them have a NULL next key, and
// the filter that picks them.
type tiLeadGroup struct {
	n, nulls int
	narrow   func(q *tiSearch)
}

// leadGroups are the groups of counts' values in ascending order (NULL,
// TaskNone, lowest: sortParamCompare's order of compareTIAttr's), each
// picked by narrow's filter.
func leadGroups[V cmp.Ordered](counts map[TILeadValue[V]]int, narrow func(v V) func(q *tiSearch)) []tiLeadGroup {
	of := map[V]*tiLeadGroup{}
	for k, n := range counts {
		g := of[k.Value]
		if g == nil {
			g = &tiLeadGroup{narrow: narrow(k.Value)}
			of[k.Value] = g
		}
		g.n += n
		if k.NextNull {
			g.nulls += n
		}
	}
	groups := make([]tiLeadGroup, 0, len(of))
	for _, v := range slices.Sorted(maps.Keys(of)) {
		groups = append(groups, *of[v])
	}
	return groups
}

// leadGroupPage is q's page when its order is led by state or try_number
// and the keys after it are walked (leadGroupsWalked); ok false
// otherwise, when the groups the page reaches are read for fewer rows by
// the keyed walk (TIKeyPage: a group's ties read together), or when the
// rows changed between the counts and a group's page (the caller goes
// on). The groups' counts are the store's, made once per version of each
// DAG's task-instance rows; a group's page picks its value along the walk
// of the next key, about n/its count rows a row (a rare value reads the
// walk up to its page's last), the next key's NULLs (one tie there) read
// together.
func (o *operations) leadGroupPage(q *tiSearch) ([]RunTaskInstance, int, bool, error) {
	if !q.leadGroupsWalked() {
		return nil, 0, false, nil
	}
	lead, next := q.order[0], q.order[1]
	cq := TILeadQuery{DagIDs: q.dagIDs, Null: func(r RunTaskInstance) bool { return tiAttrIsNull(next.attr, r) }, NullName: next.attr}
	if !q.unfilteredSearch() {
		cq.Keep, cq.KeepKey = o.tiKeep(q), q.filterKey()
	}
	var groups []tiLeadGroup
	var at TICountsAt
	if lead.attr == "state" {
		counts, c, ok, err := o.store.TIStateCounts(cq)
		if err != nil || !ok {
			return nil, 0, false, err
		}
		groups, at = leadGroups(counts, func(v TaskState) func(q *tiSearch) { return func(q *tiSearch) { q.states = []TaskState{v} } }), c
	} else {
		counts, c, ok, err := o.store.TITryCounts(cq)
		if err != nil || !ok {
			return nil, 0, false, err
		}
		groups, at = leadGroups(counts, func(v int) func(q *tiSearch) { return func(q *tiSearch) { q.tryNumbers = []int64{int64(v)} } }), c
	}
	if lead.desc {
		slices.Reverse(groups)
	}
	total, nulls := 0, 0
	for _, g := range groups {
		total, nulls = total+g.n, nulls+g.nulls
	}
	page := []RunTaskInstance{}
	if q.offset >= total || q.limit <= 0 {
		return page, total, true, nil
	}
	// The groups the page reaches, where in each and how many; the rows
	// either way reads, about: the keyed walk reads the groups, the next
	// key's walk its NULLs (one tie group: first ascending, last
	// descending) and its values, a group's spread evenly among them.
	type part struct {
		g             tiLeadGroup
		offset, limit int
		sub           *tiSearch
	}
	var parts []part
	walked, read := 0, 0
	for left, offset := min(q.limit, total-q.offset), q.offset; left > 0; groups = groups[1:] {
		g := groups[0]
		if offset >= g.n {
			offset -= g.n
			continue
		}
		n := min(left, g.n-offset)
		p := part{g, offset, n, q.leadGroupSearch(1)}
		if sub := q.leadGroupSearch(2); g.nulls == g.n && sub.walkedOrder() {
			// The next key NULL for every one (the unstarted by a
			// date): the keys after it order the group, picked along
			// their walk (the id's alone).
			p.sub = sub
			walked += (offset + n) * total / g.n
		} else {
			walked += nextWalkReads(offset+n, g, total, nulls, next.desc)
		}
		parts = append(parts, p)
		read += g.n
		left, offset = left-n, 0
	}
	if cq.Keep == nil && read <= walked {
		return nil, 0, false, nil
	}
	for _, p := range parts {
		sub := p.sub
		p.g.narrow(sub)
		sub.offset, sub.limit = p.offset, p.limit
		o.store.RememberTITotal(at, sub.filterKey(), p.g.n)
		rows, n, err := o.searchTaskInstances(sub)
		if err != nil {
			return nil, 0, false, err
		}
		if n != p.g.n {
			return nil, 0, false, nil // written since the counts
		}
		page = append(page, rows...)
	}
	if !o.store.TICountsStand(at) {
		return nil, 0, false, nil // written while the groups were read
	}
	return page, total, true, nil
}

// nextWalkReads is about how many entries the next key's walk reads to
// the end-th task instance of group g (of total, nulls of them with a
// NULL next key), picking them: ascending its NULLs first, all of them
// (one tie), then g's values spread evenly among the others; descending
// the values first, then the NULLs.
func nextWalkReads(end int, g tiLeadGroup, total, nulls int, desc bool) int {
	values, gValues := total-nulls, g.n-g.nulls
	if !desc {
		if end <= g.nulls || gValues == 0 {
			return nulls
		}
		return nulls + (end-g.nulls)*values/gValues
	}
	if end <= gValues {
		return end * values / gValues
	}
	return values + nulls
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
