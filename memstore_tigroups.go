package main

// Every run's task instances in an order led by a key whose values part
// them into few groups (any keys after it, either way): operator, a
// TaskInstance column, the task's type (c57fba0e
// models/taskinstance.py:532, 874; SortParam looks the name up on the
// model, api_fastapi/common/parameters.py:315, so the column, not
// custom_operator_name), map_index, and rendered_map_index (a
// TaskInstance column in get_task_instances' SortParam,
// routes/public/task_instances.py:457; the batch's SortParam does not
// take it, :613), and state and try_number with keys after them
// (ops_tileadgroups.go says when: alone, the keyed walk). NULL is the lowest value (SQLite's order;
// sortParamCompare) and the id breaks the last ties in the first key's
// direction (parameters.py:327-330).
//
// A page passes whole groups for its offset by their counts and walks
// the groups it takes in the order of the keys after the lead (TIGroup,
// the caller's TIWalk: the id walk, a start or keyed walk, a run
// order's walk, or another group's page), the group's value picked
// along that walk. The groups:
//   - operator, state, try_number: a DAG has few values; each one's
//     task instances are counted, with how many of them have a NULL next
//     key, once per version of each DAG's task-instance rows (remembered,
//     tiValueCountsTxn); a group whose next key is NULL for all is walked
//     by the keys after it (ops_tifixedorder.go groupQuery);
//   - map_index and rendered_map_index: the unmapped task instances (and,
//     by rendered_map_index, the mapped ones not rendered: a try's
//     map_index_template renders a mapped one alone, python/airlite_task.py
//     render_map_index), most of them, are one group, whose count is the
//     scope's less the other part's; the other part, the mapped ones
//     (with a value), is read from each DAG's mapped blocks of ti_order
//     once per version of that DAG's task-instance rows, and the DAGs'
//     sorted in the listing's order once per version of the task-instance
//     rows (both remembered).
//
// No write of its own.

import (
	"cmp"
	"container/heap"
	"fmt"
	"maps"
	"math"
	"slices"

	memdb "github.com/hashicorp/go-memdb"
)

// TIGroupQuery is a page of task instances in Compare's order, whose
// first key is Lead, either way.
type TIGroupQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// Lead is operator, state, try_number, map_index or
	// rendered_map_index; Desc its direction.
	Lead string
	Desc bool
	// Compare is the listing's whole order (Lead first, then its other
	// keys and the id), OrderName names it (the mapped part sorted in it
	// is remembered).
	Compare   func(a, b RunTaskInstance) int
	OrderName string
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it.
	Keep    func(RunTaskInstance) bool
	KeepKey string
	// NextNull, when keys follow Lead, says whether a task instance's
	// next key is NULL (NextName names that key): the groups of a lead of
	// values count those (TIGroup.Nulls).
	NextNull func(RunTaskInstance) bool
	NextName string
	// NextDesc is the next key's direction: its NULLs (the lowest) come
	// first ascending, last descending.
	NextDesc bool
	// SplitNulls says a group whose next key is NULL for some of its task
	// instances is taken as two parts in the next key's order: those (the
	// scope's task instances with a NULL next key, sorted in Compare's
	// order once per version: nullPartTxn, a slice of them taken; a group
	// all NULL is that slice alone) and the others, walked by Rest with
	// TIGroup.NotNull (the next key's walk starts past its NULLs, as a
	// group's with none does), so that neither reads the next key's
	// NULLs, one tie of its walk.
	SplitNulls bool
	// Rest is the walk of a group's task instances in Compare's order
	// (the keys after Lead, then the id; after the next key when it is
	// NULL for every one of them: TIGroup.Nulls == N).
	Rest          func(g TIGroup) TIWalk
	Offset, Limit int
}

// TIGroup is a group of task instances of one value of a page's lead
// (or of the part of map_index's and rendered_map_index's walked), as a
// walk of the keys after the lead takes it: Keep picks its task
// instances (the listing's filter and the value), N of them, and the
// walk starts after the first Offset.
type TIGroup struct {
	Keep    func(RunTaskInstance) bool
	KeepKey string
	Offset  int
	N       int
	// Nulls is how many of the N have a NULL next key (TIGroupQuery's
	// NextNull; counted for leads of values).
	Nulls int
	// Unmapped says Keep picks every unmapped task instance (the
	// unmapped part without a filter).
	Unmapped bool
	// NotNull says Keep picks none whose next key is NULL (a group's
	// part split from its NULLs: TIGroupQuery.SplitNulls).
	NotNull bool
}

// maxTIMappedParts bounds the mapped parts remembered
// (Store.tiMappedParts; the operators' counts and each DAG's mapped task
// instances: maxTIValueCounts); past it the memory starts again empty.
const maxTIMappedParts = 16

// tiGroupPart is a group of a page: walked by the query's Rest (rows
// nil), or read whole, its task instances in the listing's order, or a
// slice of the scope's NULL part (nulls).
type tiGroupPart struct {
	TIGroup
	rows []RunTaskInstance
	// nulls says the group is a part of one split from its NULLs
	// (splitNulls), taken from nullsAt in the scope's NULL part.
	nulls   bool
	nullsAt int
}

// TIGroupPage is a page of the task instances q picks in q.Compare's
// order and how many it picks; ok is false when the store cannot walk
// it (a task instance without an id, a walk of a group that cannot: the
// caller sorts). The total is the groups'; a group's value is picked
// along its walk, so a rare one (an operator of few tasks) reads the
// walk to its page's last.
func (s *Store) TIGroupPage(q TIGroupQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	var groups []tiGroupPart
	count := func(txn *memdb.Txn, ids []string, all int, read *int) (int, error) {
		var err error
		groups, err = s.tiGroupsTxn(txn, ids, q, func() (int, error) {
			if q.Keep == nil {
				return all, nil
			}
			return s.filteredTITotal(txn, ids, q.Keep, q.KeepKey, read)
		}, read)
		total := 0
		for _, g := range groups {
			total += g.N
		}
		return total, err
	}
	return s.countedTIPage(q.DagIDs, q.Offset, q.Limit, count, func(txn *memdb.Txn, ids []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		return s.takeTIGroups(txn, ids, groups, q, limit, read)
	})
}

// TIGroups are the groups of q's page led by operator, state or
// try_number, in its order, counted in a read of their own (the counts
// TIGroupPage takes, remembered): for the caller to weigh a page's walks
// against another way. ok is false when a DAG has task instances without
// ids (an edition before 3, which ti_order does not hold).
func (s *Store) TIGroups(q TIGroupQuery) (groups []TIGroup, ok bool, err error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	_, ids, ok, err := tiOrderTotal(txn, q.DagIDs)
	if err != nil || !ok {
		return nil, ok, err
	}
	parts, err := s.tiGroupsTxn(txn, ids, q, nil, &read)
	if err != nil {
		return nil, false, err
	}
	for _, p := range parts {
		groups = append(groups, p.TIGroup)
	}
	return groups, true, nil
}

// TIGroupWalk is TIGroupPage's walk over a group of n task instances q
// picks (q.Keep: a group of a page led by another key).
func (s *Store) TIGroupWalk(q TIGroupQuery, n int) TIWalk {
	return func(txn *memdb.Txn, ids []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		groups, err := s.tiGroupsTxn(txn, ids, q, func() (int, error) { return n, nil }, read)
		if err != nil {
			return nil, false, err
		}
		return s.takeTIGroups(txn, ids, groups, q, limit, read)
	}
}

// takeTIGroups takes limit task instances from groups after q.Offset:
// a group before the offset passed by its count, a read group's slice
// taken, a walked group walked from its offset to what the page needs of
// it; with q.SplitNulls a group whose next key is NULL for some of it
// taken as two parts (splitNulls), the NULL one a slice of the scope's
// NULL part (nullPartTxn, read when a page first needs it). ok is false
// when that part is not as the groups' counts say (the caller sorts).
func (s *Store) takeTIGroups(txn *memdb.Txn, ids []string, groups []tiGroupPart, q TIGroupQuery, limit int, read *int) ([]RunTaskInstance, bool, error) {
	page := []RunTaskInstance{}
	offset := q.Offset
	var nulls []RunTaskInstance
	nullsBefore := 0 // the groups' before g: where its NULLs start in nulls
	for _, whole := range groups {
		parts := []tiGroupPart{whole}
		switch {
		case !q.SplitNulls || whole.rows != nil:
		case whole.Nulls == 0:
			parts[0].NotNull = true // its walk starts past the next key's NULLs
		case whole.Nulls < whole.N:
			parts = splitNulls(whole, q, nullsBefore)
		default: // its next key NULL for every one: all of it a slice
			parts[0].nulls, parts[0].nullsAt = true, nullsBefore
		}
		nullsBefore += whole.Nulls
		for _, g := range parts {
			if len(page) >= limit {
				return page, true, nil
			}
			if offset >= g.N {
				offset -= g.N
				continue
			}
			n := min(limit-len(page), g.N-offset)
			switch {
			case g.rows != nil:
				page = append(page, g.rows[offset:offset+n]...)
				*read += n
			case g.nulls:
				if nulls == nil {
					var err error
					if nulls, err = s.nullPartTxn(txn, ids, q, read); err != nil {
						return nil, false, err
					}
				}
				from := g.nullsAt + offset
				if from+n > len(nulls) {
					return nil, false, nil
				}
				for _, r := range nulls[from : from+n] {
					if !g.Keep(r) {
						return nil, false, nil // not the group's: the rows changed under the counts
					}
					page = append(page, r)
				}
				*read += n
			default:
				g.Offset = offset
				got, ok, err := q.Rest(g.TIGroup)(txn, ids, n, read)
				if err != nil || !ok {
					return nil, ok, err
				}
				page = append(page, got...)
			}
			offset = 0
		}
	}
	return page, true, nil
}

// splitNulls is group g of q (a value's, its next key NULL for some of
// it, not all) as its two parts in the next key's order (NULL, the
// lowest, first ascending): its task instances with a NULL next key,
// from nullsAt in the scope's NULL part (nullPartTxn, in q's order,
// where the groups before g have theirs), and the others, walked past
// the next key's NULLs (TIGroup.NotNull).
func splitNulls(g tiGroupPart, q TIGroupQuery, nullsAt int) []tiGroupPart {
	keep, null := g.Keep, q.NextNull
	nullPart := tiGroupPart{TIGroup: TIGroup{N: g.Nulls, Nulls: g.Nulls, KeepKey: g.KeepKey + " " + q.NextName + " NULL",
		Keep: func(r RunTaskInstance) bool { return null(r) && keep(r) }}, nulls: true, nullsAt: nullsAt}
	valuePart := tiGroupPart{TIGroup: TIGroup{N: g.N - g.Nulls, NotNull: true, KeepKey: g.KeepKey + " " + q.NextName + " not NULL",
		Keep: func(r RunTaskInstance) bool { return !null(r) && keep(r) }}}
	if q.NextDesc {
		return []tiGroupPart{valuePart, nullPart}
	}
	return []tiGroupPart{nullPart, valuePart}
}

// nullPartTxn is the task instances of ids q.Keep picks whose next key is
// NULL (q.NextNull), in q.Compare's order: each DAG's gathered by a walk
// of its part of ti_order once per version of its task-instance rows
// (ofDAGTxn, Store.tiNullsOfDAG; one DAG's gathered for the sort alone),
// put together and sorted once per version of the scope's rows (the
// DAG's when it is one, else every DAG's; Store.tiNullParts), then
// remembered: a page reads a slice of it.
func (s *Store) nullPartTxn(txn *memdb.Txn, ids []string, q TIGroupQuery, read *int) ([]RunTaskInstance, error) {
	gather := func(dagID string) ([]RunTaskInstance, error) {
		of := []RunTaskInstance{}
		_, err := walkTIsOfDAG(txn, dagID, func(r RunTaskInstance) bool {
			if q.NextNull(r) && (q.Keep == nil || q.Keep(r)) {
				of = append(of, r)
			}
			return false
		}, read)
		return of, err
	}
	part := func(dagID string) ([]RunTaskInstance, error) {
		if len(ids) == 1 {
			return gather(dagID)
		}
		return ofDAGTxn(txn, &s.tiNullsOfDAG, dagID, q.NextName+"\x00"+q.KeepKey, func() ([]RunTaskInstance, error) { return gather(dagID) })
	}
	key := tiCountKey(ids, q.KeepKey) + " NULL " + q.NextName + " by " + q.OrderName
	return sortedOfDAGsTxn(txn, &s.tiNullParts, ids, key, part, q.Compare)
}

// sortedOfDAGsTxn is the task instances part gives of each of ids (part's
// slices left as they are), put together and sorted by compare once per
// version of the scope's task-instance rows (the DAG's when it is one:
// ofDAGTxn, else every DAG's) and remembered in memo under key.
func sortedOfDAGsTxn(txn *memdb.Txn, memo *versionMemo[[]RunTaskInstance], ids []string, key string,
	part func(dagID string) ([]RunTaskInstance, error), compare func(a, b RunTaskInstance) int) ([]RunTaskInstance, error) {
	sorted := func() ([]RunTaskInstance, error) {
		all := []RunTaskInstance{}
		for _, dagID := range ids {
			p, err := part(dagID)
			if err != nil {
				return nil, err
			}
			all = append(all, p...)
		}
		slices.SortFunc(all, compare)
		return all, nil
	}
	if len(ids) == 1 {
		return ofDAGTxn(txn, memo, ids[0], key, sorted)
	}
	root, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return nil, fmt.Errorf("list task instances: %w", err)
	}
	return memo.get(root.WatchCh(), key, sorted)
}

// tiGroupsTxn are q's groups of the task instances of ids q.Keep picks,
// in q's order (empty ones left out); all is how many it picks (asked
// by map_index's and rendered_map_index's only).
func (s *Store) tiGroupsTxn(txn *memdb.Txn, ids []string, q TIGroupQuery, all func() (int, error), read *int) ([]tiGroupPart, error) {
	with := func(pick func(RunTaskInstance) bool) func(RunTaskInstance) bool {
		if q.Keep == nil {
			return pick
		}
		return func(r RunTaskInstance) bool { return pick(r) && q.Keep(r) }
	}
	switch q.Lead {
	case "operator":
		return tiValueGroupsTxn(txn, &s.tiOperators, ids, q, with, func(r RunTaskInstance) string { return r.TI.Operator }, read)
	case "state":
		return tiValueGroupsTxn(txn, &s.tiStateCounts, ids, q, with, func(r RunTaskInstance) TaskState { return r.TI.State }, read)
	case "try_number":
		return tiValueGroupsTxn(txn, &s.tiTryCounts, ids, q, with, func(r RunTaskInstance) int { return r.TI.TryNumber }, read)
	}
	// map_index or rendered_map_index: the mapped task instances (with a
	// value), read and sorted, and the others, walked.
	inPart := func(r RunTaskInstance) bool { return r.TI.MapIndex >= 0 }
	if q.Lead == "rendered_map_index" {
		inPart = func(r RunTaskInstance) bool { return r.TI.RenderedMapIndex != nil }
	}
	part, err := s.mappedPartTxn(txn, ids, with(inPart), q.Lead+"\x00"+q.KeepKey, q.Compare, tiCountKey(ids, q.KeepKey)+" "+q.Lead+" by "+q.OrderName, read)
	if err != nil {
		return nil, err
	}
	n, err := all()
	if err != nil {
		return nil, err
	}
	rest := tiGroupPart{TIGroup: TIGroup{N: n - len(part), KeepKey: q.KeepKey + " " + q.Lead + " NULL", Unmapped: q.Keep == nil,
		Keep: with(func(r RunTaskInstance) bool { return !inPart(r) })}}
	groups := []tiGroupPart{rest, {TIGroup: TIGroup{N: len(part)}, rows: part}}
	if q.Desc {
		slices.Reverse(groups)
	}
	return slices.DeleteFunc(groups, func(g tiGroupPart) bool { return g.N == 0 }), nil
}

// tiValueGroupsTxn are the groups of a lead of values (operator, state,
// try_number: valueOf), one a value in q's order (NULL, TaskNone,
// lowest: sortParamCompare's), each counted with how many of it have a
// NULL next key: each DAG's counts made once per version of its
// task-instance rows and filter, then remembered (tiValueCountsTxn), so
// that a write of one DAG's task instances has the next page count that
// DAG's again.
func tiValueGroupsTxn[V cmp.Ordered](txn *memdb.Txn, memo *versionMemo[map[TILeadValue[V]]int], ids []string, q TIGroupQuery,
	with func(func(RunTaskInstance) bool) func(RunTaskInstance) bool, valueOf func(RunTaskInstance) V, read *int) ([]tiGroupPart, error) {
	null := q.NextNull
	if null == nil {
		null = func(RunTaskInstance) bool { return false }
	}
	counts, err := tiValueCountsTxn(txn, memo, q.Lead+"\x00"+q.NextName, ids, func(r RunTaskInstance) TILeadValue[V] {
		return TILeadValue[V]{valueOf(r), null(r)}
	}, q.Keep, q.KeepKey, read)
	if err != nil {
		return nil, err
	}
	of := map[V]*TIGroup{}
	for k, n := range counts {
		g := of[k.Value]
		if g == nil {
			v := k.Value
			g = &TIGroup{KeepKey: fmt.Sprintf("%s %s=%q", q.KeepKey, q.Lead, fmt.Sprint(v)),
				Keep: with(func(r RunTaskInstance) bool { return valueOf(r) == v })}
			of[v] = g
		}
		g.N += n
		if k.NextNull {
			g.Nulls += n
		}
	}
	values := slices.Sorted(maps.Keys(of))
	if q.Desc {
		slices.Reverse(values)
	}
	groups := make([]tiGroupPart, 0, len(values))
	for _, v := range values {
		groups = append(groups, tiGroupPart{TIGroup: *of[v]})
	}
	return groups, nil
}

// mappedPartTxn is the mapped task instances of dagIDs pick picks (the
// mapped blocks of ti_order: map_index 0 and up; pending and grouped
// blocks are unmapped), in compare's order: each DAG's (mappedOfDAGTxn,
// under pickKey: the filter and lead) put together and sorted once per
// version of the scope's task-instance rows and key (the scope, filter
// and order), then remembered (sortedOfDAGsTxn).
func (s *Store) mappedPartTxn(txn *memdb.Txn, dagIDs []string, pick func(RunTaskInstance) bool, pickKey string,
	compare func(a, b RunTaskInstance) int, key string, read *int) ([]RunTaskInstance, error) {
	return sortedOfDAGsTxn(txn, &s.tiMappedParts, dagIDs, key, func(dagID string) ([]RunTaskInstance, error) {
		return s.mappedOfDAGTxn(txn, dagID, pick, pickKey, read)
	}, compare)
}

// mappedOfDAGTxn is mappedPartTxn's part of one DAG, in ti_order's
// order: read from its mapped blocks once per version of its
// task-instance rows (the watch channel of its prefix of them) and
// pickKey, then remembered (Store.tiMappedOfDAG), so that a write of one
// DAG's task instances has the next page read that DAG's mapped blocks
// again, not every DAG's.
func (s *Store) mappedOfDAGTxn(txn *memdb.Txn, dagID string, pick func(RunTaskInstance) bool, pickKey string, read *int) ([]RunTaskInstance, error) {
	return ofDAGTxn(txn, &s.tiMappedOfDAG, dagID, pickKey, func() ([]RunTaskInstance, error) {
		m := &tiOrderMerge{txn: txn}
		defer func() { *read += m.read }()
		it, err := txn.LowerBound(tableTIOrder, indexID, dagID, 0)
		if err != nil {
			return nil, fmt.Errorf("list task instances: %w", err)
		}
		w := &tiOrderWalk{it: it, bound: func(b *tiOrderRow) bool { return b.DagID == dagID && b.MapIndex >= 0 }}
		if m.nextBlock(w) {
			m.walks = append(m.walks, w)
		}
		heap.Init(m)
		part, _, err := m.page(0, math.MaxInt, pick, false)
		return part, err
	})
}
