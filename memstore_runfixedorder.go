package main

// A DAG's runs sorted in a fixed order (conf, /api/v1's external_trigger)
// when its fixed marks are not kept (memstore_runfixed.go: more than
// fixedMarksMax descents, as when each run is triggered with a conf of its
// own, in no order), remembered per version of the DAG's runs: a page
// walks the sorted list, looking up each run it yields, where it read
// every run and sorted them. Nothing is written at a trigger (its cost is
// held within 1.15 × the experimental one's, issue #21): the list is read
// once, and a new version reads only the runs above the newest it holds. A
// run's values in these orders never change once stored (the writes that
// change a stored run set its state, dates or note, never its conf or
// external_trigger, as Airflow's PATCH and clear do: c57fba0e
// api_fastapi/core_api/routes/public/dag_run.py:201-224 sets state and
// note alone), and run ids are never reused (Store.Reset), so a run the
// list holds that is gone is known by its lookup finding nothing. The
// order is compareRunAttr's, the sorting path's, unchanged here: conf by
// its stored compact JSON's bytes (Airflow's conf is a JSON column, JSONB
// on PostgreSQL: c57fba0e models/dagrun.py:176-178).

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// fixedRecentMax bounds the runs a sorted list holds apart from its base
// (fixedOrder.recent): past it they are merged into the base, a copy of
// the DAG's entries every fixedRecentMax new runs, where merging each new
// version's runs into the base would copy them at every page after a
// trigger.
const fixedRecentMax = 1024

// fixedGoneMax bounds the runs a sorted list holds that are gone (deleted
// since it was read): past it the list is read again, so that a walk
// passes at most that many lookups that find nothing.
const fixedGoneMax = 256

// fixedOrdersMaxEntries bounds the entries remembered over every DAG and
// order (56 bytes each: a run's conf, external_trigger and data interval, and its id): past it the memory starts again empty.
const fixedOrdersMaxEntries = 1 << 21

// fixedOrdersMemo remembers the sorted lists per (dag_id, attr).
type fixedOrdersMemo struct {
	mu      sync.Mutex
	of      map[[2]string]*fixedOrder
	entries int
}

// fixedEntry is a run's value in a fixed order and its id.
type fixedEntry struct {
	value fixedValues
	id    int64
}

// fixedOrder is a DAG's runs sorted in a fixed order at one version of
// its runs (watch: the DAG's part of the (dag_id, id) index, which every
// write of one of its runs copies). base and recent are each sorted by
// value then id, ascending, and never changed once stored; the runs are
// both merged. newest is the highest id they hold, runs how many runs the
// DAG has at the version: the entries beyond are runs gone.
type fixedOrder struct {
	watch        <-chan struct{}
	base, recent []fixedEntry
	newest       int64
	runs         int
	// everyBlock is the nodes of the DAG's runs down to every block of
	// 256 ids, as of the list's last read of them all or resync
	// (pendingRuns.everyBlock's, changedBlocksTxn): a version next cannot
	// make is made from the blocks changed since (resync). Shared by the
	// versions next makes, never changed; nil for a DAG of fewer than
	// pendingBlocksMin runs, read again whole.
	everyBlock runBlocks
}

func (o *fixedOrder) entries() int { return len(o.base) + len(o.recent) }

// compareFixedEntries orders entries in an attribute's fixed order, ties
// by id (the order of compareRuns and of Airflow 3's SortParam, whose
// primary key takes the first key's direction).
func compareFixedEntries(attr string) func(a, b fixedEntry) int {
	return func(a, b fixedEntry) int {
		return cmp.Or(compareFixed(attr, a.value, b.value), cmp.Compare(a.id, b.id))
	}
}

// fixedOrderTxn is the DAG's runs sorted in attr's fixed order as txn
// sees them; read counts the rows read when they are not remembered.
// exact reads them all again when some the list holds are gone (a
// value's count is then its entries).
func (s *Store) fixedOrderTxn(txn *memdb.Txn, dagID, attr string, exact bool, read *int) (*fixedOrder, error) {
	it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, nil)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	watch := it.WatchCh()
	key := [2]string{dagID, attr}
	s.fixedOrders.mu.Lock()
	old := s.fixedOrders.of[key]
	s.fixedOrders.mu.Unlock()
	if old != nil && old.watch == watch && watch != nil && (!exact || old.entries() == old.runs) {
		return old, nil
	}
	runs := runCountTxn(txn, dagID).N
	var next *fixedOrder
	if old != nil && (old.watch != watch || watch == nil) {
		if next, err = old.next(txn, dagID, attr, watch, runs, read); err != nil {
			return nil, err
		}
		if next != nil && exact && next.entries() != next.runs {
			next = nil
		}
	}
	if next == nil && old != nil && old.everyBlock != nil {
		if next, err = old.resync(txn, dagID, attr, watch, runs, read); err != nil {
			return nil, err
		}
	}
	if next == nil {
		if next, err = readFixedOrder(txn, dagID, attr, watch, runs, read); err != nil {
			return nil, err
		}
	}
	s.fixedOrders.mu.Lock()
	defer s.fixedOrders.mu.Unlock()
	if s.fixedOrders.of == nil || s.fixedOrders.entries+next.entries() > fixedOrdersMaxEntries {
		s.fixedOrders.of, s.fixedOrders.entries = map[[2]string]*fixedOrder{}, 0
	}
	if prev := s.fixedOrders.of[key]; prev != nil {
		s.fixedOrders.entries -= prev.entries()
	}
	s.fixedOrders.of[key] = next
	s.fixedOrders.entries += next.entries()
	return next, nil
}

// readFixedOrder reads every run of the DAG and sorts them.
func readFixedOrder(txn *memdb.Txn, dagID, attr string, watch <-chan struct{}, runs int, read *int) (*fixedOrder, error) {
	it, err := dagRunsByID(txn, dagID, false)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	o := &fixedOrder{watch: watch, base: make([]fixedEntry, 0, runs), runs: runs}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		*read++
		o.base = append(o.base, fixedEntry{value: fixedValuesOf(r), id: r.ID})
		o.newest = max(o.newest, r.ID)
	}
	slices.SortFunc(o.base, compareFixedEntries(attr))
	if runs >= pendingBlocksMin {
		if o.everyBlock, _, err = changedBlocksTxn(txn, dagID, nil, read); err != nil {
			return nil, fmt.Errorf("list the blocks of runs of %s: %w", dagID, err)
		}
	}
	return o, nil
}

// resync is o at the version of the DAG's runs txn sees where next cannot
// make it (more than fixedGoneMax runs gone, the newest gone, o of a
// later version, a run gone where counts need none): the blocks of 256
// ids whose node changed since o.everyBlock found (changedBlocksTxn: the
// prefixes of the ids' digits that changed walked down, about 16 lookups
// a level of each), the entries of the others kept (the blocks hold the
// same runs), the changed ones' dropped and their runs read and put in. nil when the entries are not the run count's, for the
// caller to read every run.
func (o *fixedOrder) resync(txn *memdb.Txn, dagID, attr string, watch <-chan struct{}, runs int, read *int) (*fixedOrder, error) {
	every, changed, err := changedBlocksTxn(txn, dagID, o.everyBlock, read)
	if err != nil {
		return nil, err
	}
	const shift = 4 * pendingBlockDigits // a hex digit a nibble
	// unchanged[b-first] says that block b is (its runs are o's).
	first, last := int64(1<<63-1), int64(-1)
	var kept []int64
	var parseErr error
	isChanged := make(map[string]bool, len(changed))
	for _, prefix := range changed {
		isChanged[prefix] = true
	}
	every.blocks(func(prefix string, _ <-chan struct{}) {
		if isChanged[prefix] {
			return
		}
		b, err := strconv.ParseInt(prefix, 16, 64)
		parseErr = cmp.Or(parseErr, err)
		kept, first, last = append(kept, b), min(first, b), max(last, b)
	})
	if parseErr != nil {
		return nil, fmt.Errorf("blocks of %s: %w", dagID, parseErr)
	}
	unchanged := make([]bool, max(0, last-first+1))
	for _, b := range kept {
		unchanged[b-first] = true
	}
	var came []fixedEntry
	for _, prefix := range changed {
		it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
		if err != nil {
			return nil, fmt.Errorf("list runs of %s: %w", dagID, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			r := raw.(*DagRun)
			came = append(came, fixedEntry{value: fixedValuesOf(r), id: r.ID})
		}
	}
	n := &fixedOrder{watch: watch, runs: runs, everyBlock: every}
	keep := func(list []fixedEntry) []fixedEntry {
		out := make([]fixedEntry, 0, len(list))
		for _, e := range list {
			if b := e.id>>shift - first; b >= 0 && b < int64(len(unchanged)) && unchanged[b] {
				out = append(out, e)
				n.newest = max(n.newest, e.id)
			}
		}
		return out
	}
	compare := compareFixedEntries(attr)
	slices.SortFunc(came, compare)
	for _, e := range came {
		n.newest = max(n.newest, e.id)
	}
	n.base = mergeFixedEntries(keep(o.base), mergeFixedEntries(keep(o.recent), came, compare), compare)
	if len(n.base) != runs {
		return nil, nil
	}
	return n, nil
}

// next is o at the version of the DAG's runs txn sees: the runs above o's
// newest read and put in (a new run is the DAG's highest id); nil when
// the DAG's run count says that runs came below o's newest, more than
// fixedGoneMax of the entries are gone, or o holds runs above the
// version's newest (o is of a later version, which may lack runs this
// one has, or the newest run was deleted), for the caller to read them
// all.
func (o *fixedOrder) next(txn *memdb.Txn, dagID, attr string, watch <-chan struct{}, runs int, read *int) (*fixedOrder, error) {
	it, err := dagRunsByID(txn, dagID, true)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", dagID, err)
	}
	var came []fixedEntry
	newest, below := o.newest, int64(0)
	for raw := it.Next(); raw != nil; raw = it.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		*read++
		if r.ID <= o.newest {
			below = r.ID
			break
		}
		came = append(came, fixedEntry{value: fixedValuesOf(r), id: r.ID})
		newest = max(newest, r.ID)
	}
	if len(came) == 0 && below < o.newest {
		return nil, nil
	}
	gone := o.entries() + len(came) - runs
	if gone < 0 || gone > fixedGoneMax {
		return nil, nil
	}
	n := &fixedOrder{watch: watch, base: o.base, recent: o.recent, newest: newest, runs: runs, everyBlock: o.everyBlock}
	if len(came) == 0 {
		return n, nil
	}
	compare := compareFixedEntries(attr)
	slices.SortFunc(came, compare)
	n.recent = mergeFixedEntries(o.recent, came, compare)
	if len(n.recent) > fixedRecentMax {
		n.base, n.recent = mergeFixedEntries(o.base, n.recent, compare), nil
	}
	return n, nil
}

// mergeFixedEntries is a and b, each sorted, merged into a new slice:
// each entry of the shorter found in the longer by a binary search and
// the entries between copied at once, where comparing entry by entry
// compared each of the longer's (a DAG's every run).
func mergeFixedEntries(a, b []fixedEntry, compare func(a, b fixedEntry) int) []fixedEntry {
	if len(b) > len(a) {
		a, b = b, a
	}
	out := make([]fixedEntry, 0, len(a)+len(b))
	for _, e := range b {
		i, _ := slices.BinarySearchFunc(a, e, compare)
		out = append(append(out, a[:i]...), e)
		a = a[i:]
	}
	return append(out, a...)
}

// fixedOrderWalk yields a DAG's runs in a fixed order from its sorted
// list (base and recent merged, from the end when desc), each looked up
// as it comes; a run gone is passed.
type fixedOrderWalk struct {
	w            *runOrderWalk
	dagID        string
	desc         bool
	base, recent []fixedEntry
	compare      func(a, b fixedEntry) int
	last         *DagRun
}

// take is the walk's next entry, false at the end.
func (x *fixedOrderWalk) take() (fixedEntry, bool) {
	fromBase := func() bool {
		switch {
		case len(x.recent) == 0:
			return true
		case len(x.base) == 0:
			return false
		case x.desc:
			return x.compare(x.base[len(x.base)-1], x.recent[len(x.recent)-1]) > 0
		}
		return x.compare(x.base[0], x.recent[0]) < 0
	}
	list := &x.recent
	if fromBase() {
		list = &x.base
	}
	if len(*list) == 0 {
		return fixedEntry{}, false
	}
	var e fixedEntry
	if x.desc {
		e, *list = (*list)[len(*list)-1], (*list)[:len(*list)-1]
	} else {
		e, *list = (*list)[0], (*list)[1:]
	}
	return e, true
}

func (x *fixedOrderWalk) next() (*DagRun, error) {
	for {
		e, ok := x.take()
		if !ok {
			return nil, nil
		}
		raw, err := x.w.txn.First(tableDagRuns, indexDagRow, x.dagID, e.id)
		if err != nil {
			return nil, fmt.Errorf("look up run %d of %s: %w", e.id, x.dagID, err)
		}
		x.w.read++
		if raw == nil {
			continue // gone since the list was read
		}
		r := raw.(*DagRun)
		if x.last != nil && x.w.q.Compare(x.last, r) >= 0 {
			return nil, errOrderNotWalked
		}
		x.last = r
		return r, nil
	}
}

// addFixedOrderWalk adds a DAG's walk of its sorted list in the query's
// fixed order to m.
func (w *runOrderWalk) addFixedOrderWalk(m *runOrderMerge, dagID string) error {
	o, err := w.s.fixedOrderTxn(w.txn, dagID, w.q.Attr, false, &w.read)
	if err != nil {
		return err
	}
	m.add(&fixedOrderWalk{w: w, dagID: dagID, desc: w.q.Desc, base: o.base, recent: o.recent,
		compare: compareFixedEntries(w.q.Attr)})
	return nil
}

// fixedGroupSorted says whether a value's g runs, k of them picked by
// the filters (k = g without a filter), of DAGs of n, are read and sorted
// (true) or walked in the order of the keys after it, picking the value's
// (about want·n/k rows for want of them): the cheaper of the two, at most
// the square root of want·n rows without a filter.
func fixedGroupSorted(g, k, want, n int) bool { return g*k <= want*n }

// maxFixedCounts bounds the filtered value counts remembered
// (Store.fixedCounts); past it the memory starts again empty.
const maxFixedCounts = 16

// fixedGroupsPage is the page from offset, of at most limit runs, of the
// runs of dagIDs by several keys led by a fixed order's
// (RunOrderQuery.Ties): each value's runs in turn, in the value's order
// (the DAGs' sorted lists, a value's entries found in each), a value's
// few runs looked up and sorted, its many walked in Ties' order picking
// the value's; a value before offset is skipped by its count: its
// entries without a filter (the lists then hold no run gone), else what
// the filters pick of it (fixedValueCounts).
func (w *runOrderWalk) fixedGroupsPage(dagIDs []string, offset, limit int) ([]*DagRun, error) {
	attr := w.q.Attr
	filtered := w.q.Keep != nil || w.q.States != nil
	g := &fixedGroups{attr: attr, desc: w.q.Desc}
	n := 0
	for _, dagID := range dagIDs {
		o, err := w.s.fixedOrderTxn(w.txn, dagID, attr, !filtered, &w.read)
		if err != nil {
			return nil, err
		}
		g.lists = append(g.lists, o.base, o.recent)
		g.dagIDs = append(g.dagIDs, dagID, dagID)
		n += o.runs
	}
	var counts map[string]int
	if filtered {
		var err error
		if counts, err = w.fixedValueCounts(dagIDs); err != nil {
			return nil, err
		}
	}
	runs := []*DagRun{}
	for len(runs) < limit {
		v, parts, size := g.next()
		if size == 0 {
			break
		}
		k := size
		if filtered {
			k = counts[fixedValueKey(attr, v)]
		}
		if offset >= k {
			offset -= k
			continue
		}
		want := min(limit-len(runs), k-offset)
		var part []*DagRun
		var err error
		if fixedGroupSorted(size, k, offset+want, n) {
			part, err = w.fixedGroupSorted(g.dagIDs, parts, offset, want)
		} else {
			part, err = w.fixedGroupWalked(g.dagIDs, parts, v, offset, want)
		}
		if err != nil {
			return nil, err
		}
		runs, offset = append(runs, part...), 0
	}
	return runs, nil
}

// fixedGroupSorted is a value's runs the query keeps (the entries of
// parts, parts[i] of dagIDs[i]), looked up and put in the query's order,
// from offset, at most want; a run gone is passed.
func (w *runOrderWalk) fixedGroupSorted(dagIDs []string, parts [][]fixedEntry, offset, want int) ([]*DagRun, error) {
	var group []*DagRun
	for i, part := range parts {
		for _, e := range part {
			raw, err := w.txn.First(tableDagRuns, indexDagRow, dagIDs[i], e.id)
			if err != nil {
				return nil, fmt.Errorf("look up run %d of %s: %w", e.id, dagIDs[i], err)
			}
			w.read++
			if raw != nil && w.keeps(raw.(*DagRun)) {
				group = append(group, raw.(*DagRun))
			}
		}
	}
	if len(group) < offset+want {
		return nil, errOrderNotWalked // the sorted lists and the counts disagree
	}
	slices.SortFunc(group, w.q.Compare)
	return group[offset : offset+want], nil
}

// fixedGroupWalked is a value's runs the query keeps from offset, at most
// want, walked in the order of the keys after the fixed one (Ties) over
// the DAGs that have the value (parts[i], of dagIDs[i]), picking the
// value's.
func (w *runOrderWalk) fixedGroupWalked(dagIDs []string, parts [][]fixedEntry, v fixedValues, offset, want int) ([]*DagRun, error) {
	attr := w.q.Attr
	sub := *w.q.Ties
	sub.DagIDs = nil
	for i, part := range parts {
		if len(part) > 0 && !slices.Contains(sub.DagIDs, dagIDs[i]) {
			sub.DagIDs = append(sub.DagIDs, dagIDs[i])
		}
	}
	sub.Keep = func(r *DagRun) bool { return compareFixed(attr, fixedValuesOf(r), v) == 0 && w.keeps(r) }
	sw := &runOrderWalk{s: w.s, txn: w.txn, q: sub}
	part, err := sw.walkPage(sub.DagIDs, offset, want)
	w.read += sw.read
	if err != nil {
		return nil, err
	}
	if len(part) != want {
		return nil, errOrderNotWalked // the sorted lists and the runs disagree
	}
	return part, nil
}

// fixedValueCounts is how many runs of dagIDs the query's filters pick of
// each value of its fixed order (by fixedValueKey), counted in one read
// of their runs per version of the run table and filters, as the
// filters' total is (runOrderWalk.total, which sums these).
func (w *runOrderWalk) fixedValueCounts(dagIDs []string) (map[string]int, error) {
	root, err := w.txn.Get(tableDagRuns, indexID)
	if err != nil {
		return nil, fmt.Errorf("count runs: %w", err)
	}
	key := fmt.Sprintf("%s %s %v %s", w.q.Attr, w.scopeKey(), w.q.States, w.q.KeepKey)
	return w.s.fixedCounts.get(root.WatchCh(), key, func() (map[string]int, error) {
		counts := map[string]int{}
		err := w.eachRun(dagIDs, func(r *DagRun) {
			if w.keeps(r) {
				counts[fixedValueKey(w.q.Attr, fixedValuesOf(r))]++
			}
		})
		return counts, err
	})
}

// fixedValueKey names a run's value in a fixed order: two values have the
// same name when compareFixed finds them equal.
func fixedValueKey(attr string, v fixedValues) string {
	at := func(t *time.Time) string {
		if t == nil {
			return "null"
		}
		return strconv.FormatInt(t.UnixNano(), 10)
	}
	switch attr {
	case "conf":
		return string(v.Conf)
	case "data_interval_start":
		return at(v.IntervalStart)
	case "data_interval_end":
		return at(v.IntervalEnd)
	}
	return strconv.FormatBool(v.External)
}

// fixedGroups yields sorted lists' values in turn (from the end when
// desc), each with its entries in every list and their count; the ends
// of a value's entries are found by binary search, not passed one by
// one.
type fixedGroups struct {
	attr   string
	desc   bool
	lists  [][]fixedEntry // what is left of each DAG's base and recent
	dagIDs []string       // the DAG of each list
	parts  [][]fixedEntry // the last value's entries in each list
}

func (g *fixedGroups) next() (v fixedValues, parts [][]fixedEntry, n int) {
	have := false
	for _, l := range g.lists {
		if len(l) == 0 {
			continue
		}
		e := l[0]
		if g.desc {
			e = l[len(l)-1]
		}
		c := compareFixed(g.attr, e.value, v)
		if !have || (g.desc && c > 0) || (!g.desc && c < 0) {
			v, have = e.value, true
		}
	}
	if !have {
		return v, nil, 0
	}
	if g.parts == nil {
		g.parts = make([][]fixedEntry, len(g.lists))
	}
	for i, l := range g.lists {
		if g.desc {
			lo, _ := slices.BinarySearchFunc(l, v, func(e fixedEntry, v fixedValues) int { return compareFixed(g.attr, e.value, v) })
			g.parts[i], g.lists[i] = l[lo:], l[:lo]
		} else {
			hi, _ := slices.BinarySearchFunc(l, v, func(e fixedEntry, v fixedValues) int {
				if compareFixed(g.attr, e.value, v) <= 0 {
					return -1
				}
				return 1
			})
			g.parts[i], g.lists[i] = l[:hi], l[hi:]
		}
		n += len(g.parts[i])
	}
	return v, g.parts, n
}
