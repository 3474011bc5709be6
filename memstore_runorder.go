package main

// Pages of runs in the orders of a listing's order_by, of one DAG, some
// or every DAG, with filters: a walk per DAG in the order (an index's, or
// the stretches between a marked order's marks), the walks merged, the
// filters picking as the page fills.

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// RunOrderQuery is a page of runs in one attribute's order (runOrderWalks
// names those the store can walk).
type RunOrderQuery struct {
	// DagIDs are the DAGs whose runs are listed, each once; nil is every
	// DAG with a DAG row, as the listing of every DAG's ids has.
	DagIDs []string
	// Attr is the order's attribute (compareRunAttr's names), Desc its
	// direction.
	Attr string
	Desc bool
	// Compare is the listing's whole order: Attr in its direction, nulls
	// where the API puts them, ties by id. The page is in this order.
	Compare func(a, b *DagRun) int
	// Lead, when Compare has keys after Attr (Airflow 3's several
	// order_by), is Attr's order alone: its direction, nulls where the
	// API puts them, no tie-break. The walks then read the runs that tie
	// on Attr together and put them in Compare's order. nil: Attr is
	// Compare's only key.
	Lead func(a, b *DagRun) int
	// NullsLast says that Compare is Airflow 3's SortParam order, which
	// puts NULL below every value (SQLite's order): last descending,
	// first ascending. The order by duration is walked only so.
	NullsLast bool
	// CompareName names Compare among the orders pages ask for, so that
	// a DAG's unfinished runs sorted in it are remembered ("": sorted at
	// each page).
	CompareName string
	// Then, when Attr is dag_id or state and Compare has keys after it
	// (Airflow 3's several order_by), orders the runs that tie on Attr:
	// the page takes each DAG (by dag_id) or state in turn, its runs in
	// Then's order (the next key's, with its own Lead or Then; the id
	// alone after the last key), Then.Compare this query's Compare.
	Then *RunOrderQuery
	// Ties, when Attr is a fixed order's (conf) and Lead is set (keys
	// after it, or a direction other than the primary key's), is the
	// walk of the keys after it (the id alone after the last key): a
	// page of one DAG takes each value's runs in turn (fixedGroupsPage),
	// a value's few runs read and sorted, its many walked in Ties' order
	// picking those of the value.
	Ties *RunOrderQuery
	// Keep, when set, picks the runs (every filter of the listing);
	// KeepKey names it, for the count of what it picks.
	Keep    func(*DagRun) bool
	KeepKey string
	// States are the states Keep keeps when it keeps no more than that
	// (nil: Keep is more, or there is no filter): the total is then the
	// run counts'.
	States        []RunState
	Offset, Limit int
}

// runOrderWalks are the orders RunOrderPage walks: the attributes an
// index of the run table keeps within a DAG (id; the DAG's, its runs by
// id; run_id; run_after, and execution_date where it is the run_after),
// markedRunAttrs, duration's chunks and fixedRunAttrs.
var runOrderWalks = []string{"id", "dag_id", "run_id", "dag_run_id", "run_after", "execution_date",
	"start_date", "end_date", "updated_at", "state", "logical_date", "duration", "conf", "external_trigger",
	"data_interval_start", "data_interval_end"}

// runLeadWalks are the orders of runOrderWalks RunOrderPage walks as the
// first of several keys: those whose walks yield the runs that tie on the
// attribute together (an index's unique keys, run_after's runs of one
// microsecond, a marked time order's stretches, which ascend). A DAG's
// runs all tie on dag_id, and a state's are many: those take their
// sections in turn (RunOrderQuery.Then). The fixed orders' values most
// runs share (a conf of {}): the runs that tie on one would be read
// together, so several keys led by one sort.
var runLeadWalks = []string{"id", "run_id", "dag_run_id", "run_after", "execution_date",
	"start_date", "end_date", "updated_at", "logical_date", "duration"}

// errOrderNotWalked stops a walk that met a run out of its order (a
// logical date that is not the run's run_after, a run that comes before
// the one the walk yielded last): RunOrderPage then answers that it
// cannot, and the caller sorts.
var errOrderNotWalked = errors.New("runs not in the walked order")

// RunOrderPage is a page of the runs q picks, in q.Compare's order, and
// how many it picks in all; ok is false when the store cannot walk it
// (the caller sorts). Each DAG's runs are walked in the order and the
// walks merged, so the page reads the runs of each walk up to the page's
// last, and for a marked order also the DAG's marks and its runs that
// are not settled (queued, running: pendingRunsTxn); a fixed order's
// marks cover every run. With q.Then, each DAG's or state's runs come in
// turn (sectionPage). The total is the run counts' without a filter or
// with states alone, else counted once per version of the run table and
// filter.
func (s *Store) RunOrderPage(q RunOrderQuery) (runs []*DagRun, total int, ok bool, err error) {
	if !q.Walked() {
		return nil, 0, false, nil
	}
	w := &runOrderWalk{s: s, txn: s.read(), q: q}
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(w.read)
		}
	}()
	dagIDs, ok, err := w.scope()
	if !ok || err != nil {
		return nil, 0, ok, err
	}
	if total, err = w.total(s, dagIDs); err != nil {
		return nil, 0, false, err
	}
	runs = []*DagRun{}
	if q.Offset >= total || q.Limit <= 0 {
		return runs, total, true, nil
	}
	limit := min(q.Limit, total-q.Offset)
	switch {
	case q.Then != nil:
		runs, err = w.sectionPage(dagIDs, q.Offset, limit)
	case q.Ties != nil:
		runs, err = w.fixedGroupsPage(dagIDs, q.Offset, limit)
	default:
		runs, err = w.walkPage(dagIDs, q.Offset, limit)
	}
	if err != nil {
		return nil, 0, false, notWalked(err)
	}
	return runs, total, true, nil
}

// Walked reports whether RunOrderPage walks q's order (else the caller
// sorts).
func (q *RunOrderQuery) Walked() bool {
	if q.Then != nil {
		return (q.Attr == "dag_id" || q.Attr == "state") && q.Then.Walked()
	}
	if q.Ties != nil {
		// The DAGs' values in turn: a value's count is its runs in the
		// sorted lists, or with a filter what it picks of them
		// (fixedValueCounts).
		return slices.Contains(fixedRunAttrs[:], q.Attr) && q.Ties.Then == nil && q.Ties.Walked()
	}
	return slices.Contains(runOrderWalks, q.Attr) && (q.Lead == nil || slices.Contains(runLeadWalks, q.Attr))
}

// walkPage is the page from offset, of at most limit runs, of the query's
// walks of dagIDs merged.
func (w *runOrderWalk) walkPage(dagIDs []string, offset, limit int) ([]*DagRun, error) {
	m := &runOrderMerge{compare: w.q.Compare, w: w}
	for _, dagID := range dagIDs {
		if err := w.addWalks(m, dagID); err != nil {
			return nil, err
		}
	}
	heap.Init(m)
	m.sortPending()
	return w.drain(m, offset, limit)
}

// drain is the runs of m the query keeps, from offset, at most limit.
func (w *runOrderWalk) drain(m *runOrderMerge, offset, limit int) ([]*DagRun, error) {
	runs := []*DagRun{}
	for len(runs) < limit {
		run, err := m.next()
		if err != nil {
			return nil, err
		}
		if run == nil {
			break
		}
		if !w.keeps(run) {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// runSection is a part of a sectioned order (RunOrderQuery.Then): one
// DAG's runs or one state's, in the order of q (the section's Then, its
// filters with the section's), of dagIDs; an unfinished state's runs are
// the DAGs' unfinished runs of that state.
type runSection struct {
	q          RunOrderQuery
	dagIDs     []string
	unfinished RunState
}

// sections are the parts of the query's order, a DAG's or a state's, in
// the order.
func (w *runOrderWalk) sections(dagIDs []string) []runSection {
	q := w.q
	var out []runSection
	if q.Attr == "dag_id" {
		ids := slices.Clone(dagIDs)
		slices.Sort(ids)
		if q.Desc {
			slices.Reverse(ids)
		}
		for _, id := range ids {
			sub := *q.Then
			sub.DagIDs, sub.Keep, sub.KeepKey, sub.States = []string{id}, q.Keep, q.KeepKey, q.States
			out = append(out, runSection{q: sub, dagIDs: []string{id}})
		}
		return out
	}
	states := slices.Clone(runStates[:])
	slices.Sort(states)
	if q.Desc {
		slices.Reverse(states)
	}
	for _, state := range states {
		if q.Keep == nil && q.States != nil && !slices.Contains(q.States, state) {
			continue
		}
		sub := *q.Then
		sub.DagIDs = q.DagIDs
		if keep := q.Keep; keep != nil {
			sub.Keep = func(r *DagRun) bool { return r.State == state && keep(r) }
			sub.KeepKey = q.KeepKey + " state=" + string(state)
		} else {
			sub.States = []RunState{state}
		}
		sec := runSection{q: sub, dagIDs: dagIDs}
		if !state.Finished() {
			sec.unfinished = state
		}
		out = append(out, sec)
	}
	return out
}

// sectionPage is the page from offset, of at most limit runs, of a
// sectioned order: the sections in turn, each counted (the run counts,
// or a filter's count), skipped whole before offset. A finished state's
// runs come from Then's walks, which its filter picks; an unfinished
// state's from the DAGs' unfinished runs (pendingRunsTxn), of that state,
// in the order. Its caller knows the runs are there.
func (w *runOrderWalk) sectionPage(dagIDs []string, offset, limit int) ([]*DagRun, error) {
	runs := []*DagRun{}
	for _, sec := range w.sections(dagIDs) {
		sw := &runOrderWalk{s: w.s, txn: w.txn, q: sec.q}
		n, err := sw.total(w.s, sec.dagIDs)
		if err != nil {
			return nil, err
		}
		if offset >= n {
			w.read += sw.read
			offset -= n
			continue
		}
		var part []*DagRun
		want := min(limit-len(runs), n-offset)
		switch {
		case sec.unfinished != "":
			part, err = sw.unfinishedPage(sec.dagIDs, sec.unfinished, offset, want)
		case sec.q.Then != nil:
			part, err = sw.sectionPage(sec.dagIDs, offset, want)
		default:
			part, err = sw.walkPage(sec.dagIDs, offset, want)
		}
		w.read += sw.read
		if err != nil {
			return nil, err
		}
		runs, offset = append(runs, part...), 0
		if len(runs) >= limit {
			break
		}
	}
	return runs, nil
}

// unfinishedPage is the page from offset, of at most limit runs, of the
// DAGs' unfinished runs in state, in the query's order (each DAG's
// remembered per version of its runs, pendingRunsTxn), merged.
func (w *runOrderWalk) unfinishedPage(dagIDs []string, state RunState, offset, limit int) ([]*DagRun, error) {
	m := &runOrderMerge{compare: w.q.Compare, w: w}
	for _, dagID := range dagIDs {
		pending, err := w.s.pendingRunsTxn(w.txn, dagID, &w.read)
		if err != nil {
			return nil, fmt.Errorf("list the unfinished runs of %s: %w", dagID, err)
		}
		m.add(&runSliceWalk{runs: pending.inStateOrder(w.q.CompareName, w.q.Compare, state)})
	}
	heap.Init(m)
	return w.drain(m, offset, limit)
}

// notWalked is errOrderNotWalked as no error (the caller sorts instead).
func notWalked(err error) error {
	if errors.Is(err, errOrderNotWalked) {
		return nil
	}
	return err
}

// runOrderWalk is one RunOrderPage: its transaction, query and the rows
// it read.
type runOrderWalk struct {
	s    *Store
	txn  *memdb.Txn
	q    RunOrderQuery
	read int
}

// keeps reports whether the query's filters pick a run.
func (w *runOrderWalk) keeps(r *DagRun) bool {
	if w.q.Keep != nil {
		return w.q.Keep(r)
	}
	return w.q.States == nil || slices.Contains(w.q.States, r.State)
}

// scope is the DAGs the page lists; ok is false for a list the walks do
// not take (a DAG named twice or with no name, which the sorting path
// answers as it does). A marked order needs every run of those DAGs in a
// known state (the others are read from the state index by state).
func (w *runOrderWalk) scope() (dagIDs []string, ok bool, err error) {
	dagIDs = w.q.DagIDs
	if dagIDs == nil {
		it, err := w.txn.Get(tableRunCounts, indexID)
		if err != nil {
			return nil, false, fmt.Errorf("list the DAGs with runs: %w", err)
		}
		dagIDs = []string{}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			c := raw.(*runCount)
			if c.DagID == allDAGs {
				continue
			}
			if _, err := dagRowTxn(w.txn, c.DagID); err == nil {
				dagIDs = append(dagIDs, c.DagID)
			} else if !errors.Is(err, errNotFound) {
				return nil, false, err
			}
		}
	} else {
		sorted := slices.Clone(dagIDs)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(dagIDs) || slices.Contains(dagIDs, "") {
			return nil, false, nil
		}
	}
	if w.q.readsStates() {
		for _, id := range dagIDs {
			if runCountTxn(w.txn, id).States[len(runStates)] > 0 {
				return nil, false, nil
			}
		}
	}
	return dagIDs, true, nil
}

// readsStates reports whether q's walks read runs by state (a marked
// order's or duration's unfinished runs, a state's section): they need
// every run in one of runStates.
func (q *RunOrderQuery) readsStates() bool {
	if q.Then != nil {
		return q.Attr == "state" || q.Then.readsStates()
	}
	if q.Ties != nil && q.Ties.readsStates() {
		return true
	}
	return slices.Contains(markedRunAttrs[:], q.Attr) || q.Attr == "duration"
}

// total is how many runs of dagIDs the query picks.
func (w *runOrderWalk) total(s *Store, dagIDs []string) (int, error) {
	if w.q.Keep == nil {
		n := 0
		for _, id := range dagIDs {
			c := runCountTxn(w.txn, id)
			if w.q.States == nil {
				n += c.N
				continue
			}
			for i, state := range w.q.States {
				if !slices.Contains(w.q.States[:i], state) {
					n += c.States[runStateSlot(state)]
				}
			}
		}
		return n, nil
	}
	if w.q.Ties != nil {
		counts, err := w.fixedValueCounts(dagIDs)
		n := 0
		for _, c := range counts {
			n += c
		}
		return n, err
	}
	root, err := w.txn.Get(tableDagRuns, indexID)
	if err != nil {
		return 0, fmt.Errorf("count runs: %w", err)
	}
	return s.counts.count(root.WatchCh(), "ordered runs of "+w.scopeKey()+" "+w.q.KeepKey, func() (int, error) {
		n := 0
		err := w.eachRun(dagIDs, func(r *DagRun) {
			if w.q.Keep(r) {
				n++
			}
		})
		return n, err
	})
}

// scopeKey names the DAGs the query lists, for the counts of its filters.
func (w *runOrderWalk) scopeKey() string {
	if w.q.DagIDs == nil {
		return "~"
	}
	return strings.Join(w.q.DagIDs, "\x00")
}

// eachRun reads every run of dagIDs (counted in read) and passes it to f.
func (w *runOrderWalk) eachRun(dagIDs []string, f func(*DagRun)) error {
	for _, id := range dagIDs {
		it, err := dagRunsByID(w.txn, id, false)
		if err != nil {
			return fmt.Errorf("count runs of %s: %w", id, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			w.read++
			f(raw.(*DagRun))
		}
	}
	return nil
}

// addWalks adds a DAG's walks in the query's order to m.
func (w *runOrderWalk) addWalks(m *runOrderMerge, dagID string) error {
	q := w.q
	var it memdb.ResultIterator
	var err error
	var tie func(*DagRun) int64 // runs the index orders as equals
	check := func(*DagRun) error { return nil }
	switch q.Attr {
	case "id", "dag_id":
		it, err = dagRunsByID(w.txn, dagID, q.Desc)
	case "run_id", "dag_run_id":
		if q.Desc {
			it, err = w.txn.GetReverse(tableDagRuns, indexID+"_prefix", dagID, "")
		} else {
			it, err = w.txn.Get(tableDagRuns, indexID+"_prefix", dagID, "")
		}
	case "run_after", "execution_date":
		if q.Desc {
			it, err = runsDownTxn(w.txn, dagID, endOfTime)
		} else {
			it, err = runsUpTxn(w.txn, dagID)
		}
		// The index keeps run_after in microseconds, a run whose logical
		// date is its run_after before the others of that time: runs of
		// one microsecond come together and are put in the order.
		tie = func(r *DagRun) int64 { return r.After().UnixMicro() }
		if q.Attr == "execution_date" {
			check = func(r *DagRun) error {
				if r.NoLogicalDate || !r.RunAfter.IsZero() {
					return errOrderNotWalked
				}
				return nil
			}
		}
	case "duration":
		if !q.NullsLast {
			return errOrderNotWalked
		}
		return w.addDurationWalks(m, dagID)
	case "conf", "external_trigger", "data_interval_start", "data_interval_end":
		return w.addFixedWalks(m, dagID)
	default:
		return w.addMarkedWalks(m, dagID)
	}
	if err != nil {
		return fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	m.add(&runIndexWalk{w: w, it: it, dagID: dagID, hi: 1<<63 - 1, tie: tie, check: check, compare: q.Compare})
	return nil
}

// addMarkedWalks adds a DAG's walks in a marked order to m: one per
// stretch between its marks, and its runs that are not settled or whose
// value is null, read and sorted.
func (w *runOrderWalk) addMarkedWalks(m *runOrderMerge, dagID string) error {
	q := w.q
	marks, err := runMarksTxn(w.txn, dagID, q.Attr)
	if err != nil {
		return err
	}
	w.read++
	if len(marks.Nulls) > 0 {
		// Null values come together, by id either way (in both APIs);
		// with keys after the order's, in their order: read and sorted.
		nulls := &runIDsWalk{w: w, dagID: dagID, ids: marks.Nulls, desc: q.Desc}
		if q.Lead == nil {
			m.add(nulls)
		} else {
			var runs []*DagRun
			for {
				r, err := nulls.next()
				if err != nil {
					return err
				}
				if r == nil {
					break
				}
				runs = append(runs, r)
			}
			slices.SortFunc(runs, q.Compare)
			m.add(&runSliceWalk{runs: runs})
		}
	}
	pending, err := w.s.pendingRunsTxn(w.txn, dagID, &w.read)
	if err != nil {
		return fmt.Errorf("list the unfinished runs of %s: %w", dagID, err)
	}
	others := pending.inOrder(q.CompareName, q.Compare)
	// Stretch i is [bound(i), bound(i+1)); the last ends below the
	// DAG's newest runs that are all unfinished (pending.tail), which a
	// walk of settled runs would pass one by one.
	bound := func(i int) int64 {
		switch i {
		case 0:
			return 0
		case len(marks.Breaks) + 1:
			return pending.tail
		}
		return marks.Breaks[i-1].ID
	}
	if q.Attr == "state" {
		bounds := make([]int64, len(marks.Breaks)+2)
		for i := range bounds {
			bounds[i] = bound(i)
		}
		x := &runStateWalk{w: w, dagID: dagID, desc: q.Desc, bounds: bounds, others: others, compare: q.Compare,
			sections: [2]RunState{RunFailed, RunSuccess}}
		if q.Desc {
			x.sections = [2]RunState{RunSuccess, RunFailed}
		}
		x.seg = x.firstStretch()
		m.add(x)
		return nil
	}
	if len(others) > 0 {
		m.add(&runSliceWalk{runs: others})
	}
	return w.addStretches(m, dagID, len(marks.Breaks), bound, func(i int, s *runStretch) {
		if q.Desc {
			b := marks.Breaks[i] // the break after the stretch
			s.value, s.id = b.PrevValue, b.PrevID
		} else {
			b := marks.Breaks[i-1] // the stretch's own break
			s.value, s.id = b.Value, b.ID
		}
	})
}

// addFixedWalks adds a DAG's walks in a fixed order (conf,
// external_trigger) to m: one per stretch between its marks, over every
// run of the DAG, unfinished ones too (their values never change). A DAG
// whose marks are not kept (fixedMarksMax) walks its runs sorted in the
// order, remembered per version of its runs (fixedOrderTxn).
func (w *runOrderWalk) addFixedWalks(m *runOrderMerge, dagID string) error {
	marks, err := fixedMarksTxn(w.txn, dagID, w.q.Attr)
	if err != nil {
		return err
	}
	w.read++
	if marks.Unkept {
		return w.addFixedOrderWalk(m, dagID)
	}
	bound := func(i int) int64 {
		switch i {
		case 0:
			return 0
		case len(marks.Breaks) + 1:
			return 1<<63 - 1
		}
		return marks.Breaks[i-1].ID
	}
	return w.addStretches(m, dagID, len(marks.Breaks), bound, func(i int, s *runStretch) {
		if w.q.Desc {
			b := marks.Breaks[i]
			s.fixed, s.id = b.PrevValue, b.PrevID
		} else {
			b := marks.Breaks[i-1]
			s.fixed, s.id = b.Value, b.ID
		}
	})
}

// addStretches adds a DAG's breaks+1 stretches [bound(i), bound(i+1)),
// each in the order, to m. A stretch's first run in the walk's direction
// is known from the marks (a break's run, or the run before a break),
// which first sets on it: the stretch waits until the merge reaches it.
// The first stretch (the last, descending) starts at once.
func (w *runOrderWalk) addStretches(m *runOrderMerge, dagID string, breaks int, bound func(int) int64, first func(i int, s *runStretch)) error {
	start := 0
	if w.q.Desc {
		start = breaks
	}
	for i := range breaks + 1 {
		s := runStretch{dagID: dagID, lo: bound(i), hi: bound(i + 1)}
		if i == start {
			walk, err := w.stretchWalk(s)
			if err != nil {
				return err
			}
			m.add(walk)
			continue
		}
		first(i, &s)
		m.pending = append(m.pending, s)
	}
	return nil
}

// runStretch is a DAG's settled runs with a value and an id in [lo, hi)
// (a fixed order's: its runs), in the order: a walk of their ids, which a
// merge starts when it reaches the stretch's first run in the walk's
// direction, of id and value (value in a time order, fixed in a fixed
// one).
type runStretch struct {
	dagID  string
	lo, hi int64
	value  time.Time
	fixed  fixedValues
	id     int64
}

// stretchWalk starts the walk of a stretch in the query's order.
func (w *runOrderWalk) stretchWalk(s runStretch) (*runIndexWalk, error) {
	var it memdb.ResultIterator
	var err error
	if w.q.Desc {
		it, err = w.txn.ReverseLowerBound(tableDagRuns, indexDagRow, s.dagID, s.hi-1)
	} else {
		it, err = w.txn.LowerBound(tableDagRuns, indexDagRow, s.dagID, s.lo)
	}
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", s.dagID, err)
	}
	attr := w.q.Attr
	in := func(r *DagRun) bool { return runSettled(r) && !runAttrNullable(attr, r) }
	if slices.Contains(fixedRunAttrs[:], attr) {
		in = nil
	}
	var tie func(*DagRun) int64
	if w.q.Lead != nil {
		// A stretch ascends in the value: the runs of one value come
		// together, to be put in the order of the keys after it. (Two
		// values that met in UnixNano would only be sorted together.)
		tie = func(r *DagRun) int64 { return markedValue(attr, r).UnixNano() }
	}
	return &runIndexWalk{w: w, it: it, dagID: s.dagID, lo: s.lo, hi: s.hi, in: in, tie: tie, check: func(*DagRun) error { return nil }, compare: w.q.Compare}, nil
}

// runWalk yields runs in a listing's order; nil at its end.
type runWalk interface {
	next() (*DagRun, error)
}

// runIndexWalk yields a DAG's runs from an index walk: those with an id
// in [lo, hi) that in picks (nil: every one), stopping at the DAG's end.
// Runs that tie gives one value (nil: none do) are read together and
// put in the listing's order; check refuses a run the index does not
// order as the listing (errOrderNotWalked), and so does a run that comes
// before the one yielded last.
type runIndexWalk struct {
	w       *runOrderWalk
	it      memdb.ResultIterator
	dagID   string
	lo, hi  int64
	in      func(*DagRun) bool
	tie     func(*DagRun) int64
	check   func(*DagRun) error
	compare func(a, b *DagRun) int
	held    []*DagRun // a tie's runs, in the order, not yet yielded
	peeked  *DagRun   // the run after the tie, read
	last    *DagRun
	done    bool
}

// pull is the walk's next run of the DAG in [lo, hi) that in picks.
func (x *runIndexWalk) pull() *DagRun {
	if x.peeked != nil {
		r := x.peeked
		x.peeked = nil
		return r
	}
	for !x.done {
		raw := x.it.Next()
		if raw == nil {
			x.done = true
			break
		}
		x.w.read++
		r := raw.(*DagRun)
		if r.DagID != x.dagID || r.ID < x.lo || r.ID >= x.hi {
			x.done = true
			break
		}
		if x.in == nil || x.in(r) {
			return r
		}
	}
	return nil
}

func (x *runIndexWalk) next() (*DagRun, error) {
	if len(x.held) == 0 {
		r := x.pull()
		if r == nil {
			return nil, nil
		}
		x.held = append(x.held, r)
		if x.tie != nil {
			for {
				n := x.pull()
				if n == nil {
					break
				}
				if x.tie(n) != x.tie(r) {
					x.peeked = n
					break
				}
				x.held = append(x.held, n)
			}
			if len(x.held) > 1 {
				slices.SortFunc(x.held, x.compare)
			}
		}
	}
	r := x.held[0]
	x.held = x.held[1:]
	if err := x.check(r); err != nil {
		return nil, err
	}
	if x.last != nil && x.compare(x.last, r) >= 0 {
		return nil, errOrderNotWalked
	}
	x.last = r
	return r, nil
}

// runStateWalk yields a DAG's runs by state, as Compare orders them: the
// settled runs of the first state (failed; success descending) stretch by
// stretch in id order (its marks break the settled runs where the state
// changes), then the runs that are not settled (sorted), then the settled
// runs of the other state. A stretch of the other state costs the read
// of its first settled run, so a page reads about its runs, whatever the
// number of stretches.
type runStateWalk struct {
	w        *runOrderWalk
	dagID    string
	desc     bool
	bounds   []int64 // the stretches: [bounds[i], bounds[i+1])
	others   []*DagRun
	compare  func(a, b *DagRun) int
	sections [2]RunState // the settled states, in the order's
	phase    int         // 0: sections[0]; 1: others; 2: sections[1]; 3: done
	seg      int         // the stretch to look at next
	cur      *runIndexWalk
	pending  *DagRun // the first run of cur, read
}

// firstStretch is the stretch a section starts at.
func (x *runStateWalk) firstStretch() int {
	if x.desc {
		return len(x.bounds) - 2
	}
	return 0
}

func (x *runStateWalk) next() (*DagRun, error) {
	for x.phase < 3 {
		if x.phase == 1 {
			if len(x.others) > 0 {
				r := x.others[0]
				x.others = x.others[1:]
				return r, nil
			}
			x.phase, x.seg = 2, x.firstStretch()
			continue
		}
		if r := x.pending; r != nil {
			x.pending = nil
			return r, nil
		}
		if x.cur != nil {
			r, err := x.cur.next()
			if err != nil || r != nil {
				return r, err
			}
			x.cur = nil
		}
		ok, err := x.open(x.sections[x.phase/2])
		if err != nil {
			return nil, err
		}
		if !ok {
			x.phase++
		}
	}
	return nil, nil
}

// open starts the next stretch of state: false when there is none.
func (x *runStateWalk) open(state RunState) (bool, error) {
	for x.seg >= 0 && x.seg < len(x.bounds)-1 {
		lo, hi := x.bounds[x.seg], x.bounds[x.seg+1]
		if x.desc {
			x.seg--
		} else {
			x.seg++
		}
		var it memdb.ResultIterator
		var err error
		if x.desc {
			it, err = x.w.txn.ReverseLowerBound(tableDagRuns, indexDagRow, x.dagID, hi-1)
		} else {
			it, err = x.w.txn.LowerBound(tableDagRuns, indexDagRow, x.dagID, lo)
		}
		if err != nil {
			return false, fmt.Errorf("list runs of %s: %w", x.dagID, err)
		}
		walk := &runIndexWalk{w: x.w, it: it, dagID: x.dagID, lo: lo, hi: hi, in: runSettled,
			check: func(*DagRun) error { return nil }, compare: x.compare}
		r, err := walk.next()
		if err != nil {
			return false, err
		}
		if r != nil && r.State == state {
			x.cur, x.pending = walk, r
			return true, nil
		}
	}
	return false, nil
}

// runIDsWalk yields a DAG's runs of ids (ascending), from the last when
// desc, each looked up as it comes.
type runIDsWalk struct {
	w     *runOrderWalk
	dagID string
	ids   []int64
	desc  bool
}

func (x *runIDsWalk) next() (*DagRun, error) {
	for len(x.ids) > 0 {
		var id int64
		if x.desc {
			id, x.ids = x.ids[len(x.ids)-1], x.ids[:len(x.ids)-1]
		} else {
			id, x.ids = x.ids[0], x.ids[1:]
		}
		raw, err := x.w.txn.First(tableDagRuns, indexDagRow, x.dagID, id)
		if err != nil {
			return nil, fmt.Errorf("look up run %d of %s: %w", id, x.dagID, err)
		}
		if raw != nil {
			x.w.read++
			return raw.(*DagRun), nil
		}
	}
	return nil, nil
}

// runSliceWalk yields runs already in the order.
type runSliceWalk struct{ runs []*DagRun }

func (x *runSliceWalk) next() (*DagRun, error) {
	if len(x.runs) == 0 {
		return nil, nil
	}
	r := x.runs[0]
	x.runs = x.runs[1:]
	return r, nil
}

// runOrderMerge merges walks in compare's order: a heap of each walk's
// next run, and the stretches of a marked time order that wait until the
// merge reaches their first run (pending, in the order of those runs):
// a page starts the stretches its runs come from, not all of them.
type runOrderMerge struct {
	compare func(a, b *DagRun) int
	heads   []runOrderHead
	err     error
	w       *runOrderWalk
	pending []runStretch
	probe   DagRun // a pending stretch's first run as compare sees it
	at      time.Time
}

// sortPending puts the pending stretches in the order of their first
// runs, values with no null among them: by value then id, either way.
func (m *runOrderMerge) sortPending() {
	attr := m.w.q.Attr
	fixed := slices.Contains(fixedRunAttrs[:], attr)
	slices.SortFunc(m.pending, func(a, b runStretch) int {
		c := a.value.Compare(b.value)
		if fixed {
			c = compareFixed(attr, a.fixed, b.fixed)
		}
		c = cmp.Or(c, cmp.Compare(a.id, b.id))
		if m.w.q.Desc {
			return -c
		}
		return c
	})
}

// probeOf is a pending stretch's first run as compare orders it: its id
// and its value in the order's attribute (m.probe, reused).
func (m *runOrderMerge) probeOf(s runStretch) *DagRun {
	m.probe, m.at = DagRun{ID: s.id}, s.value
	switch m.w.q.Attr {
	case "start_date":
		m.probe.StartDate = &m.at
	case "end_date":
		m.probe.EndDate = &m.at
	case "updated_at":
		m.probe.UpdatedAt = &m.at
	case "logical_date":
		m.probe.ExecutionDate = m.at
	case "conf":
		m.probe.Conf = s.fixed.Conf
	case "external_trigger":
		m.probe.ExternalTrigger = s.fixed.External
	case "data_interval_start":
		m.probe.DataIntervalStart = s.fixed.IntervalStart
	case "data_interval_end":
		m.probe.DataIntervalEnd = s.fixed.IntervalEnd
	}
	return &m.probe
}

// startReached starts the pending stretches whose first run comes before
// the merge's next run (with keys after the order's, whose first value
// comes no later than the next run's: the runs of that value may come in
// any order of the other keys); a stretch whose walk starts at another
// run than its marks say stops the page (errOrderNotWalked).
func (m *runOrderMerge) startReached() error {
	lead := m.w.q.Lead
	reached := func() bool {
		if len(m.heads) == 0 {
			return true
		}
		if lead != nil {
			return lead(m.probeOf(m.pending[0]), m.heads[0].run) <= 0
		}
		return m.compare(m.probeOf(m.pending[0]), m.heads[0].run) < 0
	}
	for len(m.pending) > 0 && reached() {
		s := m.pending[0]
		m.pending = m.pending[1:]
		walk, err := m.w.stretchWalk(s)
		if err != nil {
			return err
		}
		r, err := walk.next()
		if err != nil {
			return err
		}
		switch {
		case r == nil:
			return errOrderNotWalked
		case lead != nil && lead(r, m.probeOf(s)) != 0, lead == nil && m.compare(r, m.probeOf(s)) != 0:
			return errOrderNotWalked
		}
		heap.Push(m, runOrderHead{run: r, walk: walk})
	}
	return nil
}

type runOrderHead struct {
	run  *DagRun
	walk runWalk
}

// add starts a walk; a walk with no run is left out.
func (m *runOrderMerge) add(w runWalk) {
	r, err := w.next()
	if err != nil {
		m.err = cmp.Or(m.err, err)
		return
	}
	if r != nil {
		m.heads = append(m.heads, runOrderHead{run: r, walk: w})
	}
}

func (m *runOrderMerge) Len() int           { return len(m.heads) }
func (m *runOrderMerge) Less(i, j int) bool { return m.compare(m.heads[i].run, m.heads[j].run) < 0 }
func (m *runOrderMerge) Swap(i, j int)      { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *runOrderMerge) Push(x any)         { m.heads = append(m.heads, x.(runOrderHead)) }
func (m *runOrderMerge) Pop() any {
	last := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return last
}

// next is the next run of the merged order; nil at the end.
func (m *runOrderMerge) next() (*DagRun, error) {
	if m.err != nil {
		return nil, m.err
	}
	if err := m.startReached(); err != nil {
		return nil, err
	}
	if len(m.heads) == 0 {
		return nil, nil
	}
	top := &m.heads[0]
	run := top.run
	n, err := top.walk.next()
	if err != nil {
		return nil, err
	}
	if n != nil {
		top.run = n
		heap.Fix(m, 0)
	} else {
		heap.Pop(m)
	}
	return run, nil
}
