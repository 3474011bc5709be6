package main

// Pages of runs and task instances in the orders the indexes keep.

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// RunPageQuery is a page of runs in an order the store's indexes keep.
type RunPageQuery struct {
	DagID         string     // "" is every DAG (by id only)
	States        []RunState // any of these (each one of runStates); nil is any
	ByDate        bool       // by logical date (one DAG only), else by id
	Desc          bool
	Offset, Limit int
	// Keep, when set, picks the runs (of one DAG, by id: no States, not
	// ByDate); KeepKey names it, for the count of what it picks.
	Keep    func(*DagRun) bool
	KeepKey string
}

// RunPage reads a page of runs and how many runs match in all. It walks
// an index in the page's order and stops at the page's end: the cost is
// offset plus limit rows (with States, also the rows in other states
// among them; for every DAG also a seek per DAG); unfinished States that
// hold under a quarter of the runs are read from the state index, all of
// them, without the rows in between. The total comes
// from the counts the writes keep (one row per DAG), not from the runs.
// Every DAG's runs leave out those of a DAG id the store has no DAG row
// for, as the listing of every DAG's ids does.
func (s *Store) RunPage(q RunPageQuery) ([]*DagRun, int, error) {
	txn := s.read()
	if q.Keep != nil {
		return s.filteredRunPage(txn, q)
	}
	total, all, dagIDs, err := runPageTotal(txn, q)
	if err != nil {
		return nil, 0, err
	}
	if !q.ByDate && q.States != nil && total*4 < all && !slices.ContainsFunc(q.States, RunState.Finished) {
		// Few runs in unfinished states among many: take them from the
		// state index rather than walk past the rest.
		runs, read, err := unfinishedRunPage(txn, q, dagIDs)
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
		return runs, total, err
	}
	it, err := runPageIterator(txn, q, dagIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("list runs of %q: %w", q.DagID, err)
	}
	read := 0
	defer func() {
		if m, ok := it.(*runMerge); ok {
			read = m.pulled // the rows of every DAG's walk
		}
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	offset := q.Offset
	runs := []*DagRun{}
	for len(runs) < q.Limit {
		raw := it.Next()
		if raw == nil {
			break
		}
		read++
		run := raw.(*DagRun)
		if q.DagID != "" && run.DagID != q.DagID {
			break // past the DAG's end of a reverse walk
		}
		if q.States != nil && !slices.Contains(q.States, run.State) {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		runs = append(runs, run)
	}
	return runs, total, nil
}

// filteredRunPage is RunPage for a filter the run counts do not keep
// apart (q.Keep, one DAG, by id): the DAG's runs walked by id to the
// page's end, the filter picking as it goes; the total is counted by a
// walk of the DAG's runs once per version of the run table and filter
// (treeCounts under q.KeepKey), then remembered.
func (s *Store) filteredRunPage(txn *memdb.Txn, q RunPageQuery) ([]*DagRun, int, error) {
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	root, err := txn.Get(tableDagRuns, indexID)
	if err != nil {
		return nil, 0, fmt.Errorf("count runs of %s: %w", q.DagID, err)
	}
	// walk reads the DAG's runs by id, those keep picks, until take
	// says no more.
	walk := func(desc bool, take func(*DagRun) bool) error {
		it, err := dagRunsByID(txn, q.DagID, desc)
		if err != nil {
			return fmt.Errorf("list runs of %s: %w", q.DagID, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			run := raw.(*DagRun)
			if run.DagID != q.DagID {
				break // past the DAG's end of a reverse walk
			}
			if q.Keep(run) && !take(run) {
				break
			}
		}
		return nil
	}
	total, err := s.counts.count(root.WatchCh(), "runs of "+q.DagID+" "+q.KeepKey, func() (int, error) {
		n := 0
		err := walk(false, func(*DagRun) bool { n++; return true })
		return n, err
	})
	if err != nil {
		return nil, 0, err
	}
	runs := []*DagRun{}
	if q.Offset >= total || q.Limit <= 0 {
		return runs, total, nil
	}
	offset, limit := q.Offset, min(q.Limit, total-q.Offset)
	err = walk(q.Desc, func(run *DagRun) bool {
		if offset > 0 {
			offset--
			return true
		}
		runs = append(runs, run)
		return len(runs) < limit
	})
	return runs, total, err
}

func runPageIterator(txn *memdb.Txn, q RunPageQuery, dagIDs []string) (memdb.ResultIterator, error) {
	switch {
	case q.ByDate && q.Desc:
		return runsDownTxn(txn, q.DagID, endOfTime)
	case q.ByDate:
		return runsUpTxn(txn, q.DagID)
	case q.DagID != "":
		return dagRunsByID(txn, q.DagID, q.Desc)
	}
	m := &runMerge{desc: q.Desc}
	for _, id := range dagIDs {
		it, err := dagRunsByID(txn, id, q.Desc)
		if err != nil {
			return nil, err
		}
		m.add(it)
	}
	heap.Init(m)
	return m, nil
}

// dagRunsByID walks one DAG's runs in id order, or from the highest id
// down; a reverse walk runs on past the DAG's runs, so readers stop at
// the first run of another DAG.
func dagRunsByID(txn *memdb.Txn, dagID string, desc bool) (memdb.ResultIterator, error) {
	if desc {
		return txn.ReverseLowerBound(tableDagRuns, indexDagRow, dagID, int64(1<<63-1))
	}
	return txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, nil)
}

// runMerge yields the runs of several DAGs in id order (descending when
// desc), from one walk of each DAG's (dag_id, id) index: a page of every
// DAG's runs costs a seek per DAG and its own rows.
type runMerge struct {
	desc   bool
	heads  []runHead
	pulled int // rows read from the walks
}

// runHead is the next run of one DAG's walk.
type runHead struct {
	run *DagRun
	it  memdb.ResultIterator
}

// add starts a DAG's walk; a walk with no run of its DAG is left out.
func (m *runMerge) add(it memdb.ResultIterator) {
	m.pulled++
	if raw := it.Next(); raw != nil {
		m.heads = append(m.heads, runHead{run: raw.(*DagRun), it: it})
	}
}

func (m *runMerge) Len() int { return len(m.heads) }
func (m *runMerge) Less(i, j int) bool {
	if m.desc {
		return m.heads[i].run.ID > m.heads[j].run.ID
	}
	return m.heads[i].run.ID < m.heads[j].run.ID
}
func (m *runMerge) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *runMerge) Push(x any)    { m.heads = append(m.heads, x.(runHead)) }
func (m *runMerge) Pop() any {
	last := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return last
}

// Next is memdb.ResultIterator's: the next run of the merged order.
func (m *runMerge) Next() any {
	if len(m.heads) == 0 {
		return nil
	}
	top := &m.heads[0]
	run := top.run
	m.pulled++
	if raw := top.it.Next(); raw != nil && raw.(*DagRun).DagID == run.DagID {
		top.run = raw.(*DagRun)
		heap.Fix(m, 0)
	} else {
		heap.Pop(m)
	}
	return run
}

// WatchCh is memdb.ResultIterator's; a page is read once, never watched.
func (m *runMerge) WatchCh() <-chan struct{} { return nil }

// unfinishedRunPage is RunPage for unfinished states, from the (state,
// dag_id) index: it reads every run in those states (of the DAG, or of
// dagIDs) and sorts them by id.
func unfinishedRunPage(txn *memdb.Txn, q RunPageQuery, dagIDs []string) ([]*DagRun, int, error) {
	var runs []*DagRun
	read := 0
	for i, state := range q.States {
		if slices.Contains(q.States[:i], state) {
			continue
		}
		index, args := indexState, []any{string(state), q.DagID}
		if q.DagID == "" {
			index, args = indexState+"_prefix", []any{string(state), ""}
		}
		it, err := txn.Get(tableDagRuns, index, args...)
		if err != nil {
			return nil, read, fmt.Errorf("list %s runs: %w", state, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			run := raw.(*DagRun)
			if q.DagID != "" || slices.Contains(dagIDs, run.DagID) {
				runs = append(runs, run)
			}
		}
	}
	slices.SortFunc(runs, func(a, b *DagRun) int {
		if q.Desc {
			return cmp.Compare(b.ID, a.ID)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	runs = runs[min(q.Offset, len(runs)):]
	return runs[:min(q.Limit, len(runs))], read, nil
}

// runPageTotal is how many runs match q and how many runs there are (of
// the DAG, or of every DAG), from the run counts; for every DAG also the
// DAG ids that have runs and a DAG row (nil for one DAG).
func runPageTotal(txn *memdb.Txn, q RunPageQuery) (matched, all int, dagIDs []string, err error) {
	of := func(c runCount) int {
		if q.States == nil {
			return c.N
		}
		n := 0
		for i, state := range q.States {
			if !slices.Contains(q.States[:i], state) {
				n += c.States[runStateSlot(state)]
			}
		}
		return n
	}
	if q.DagID != "" {
		c := runCountTxn(txn, q.DagID)
		return of(c), c.N, nil, nil
	}
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("count runs: %w", err)
	}
	dagIDs = []string{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runCount)
		if c.DagID == allDAGs {
			continue
		}
		if _, err := dagRowTxn(txn, c.DagID); err == nil {
			dagIDs = append(dagIDs, c.DagID)
			matched += of(*c)
			all += c.N
		} else if !errors.Is(err, errNotFound) {
			return 0, 0, nil, err
		}
	}
	return matched, all, dagIDs, nil
}

// RunTaskInstance is a task instance with its run.
type RunTaskInstance struct {
	Run *DagRun
	TI  *TaskInstance
}

// TaskInstancePage is the task instances of every run of dagIDs (taken in
// the order given), by DAG, logical date and task_id, skipping offset and
// reading at most limit, and how many there are in all. The total comes
// from the DAGs' counts; a DAG the page skips whole costs its count row,
// a run the page skips whole its task-instance row, so the cost is the
// page and the runs before it, not the DAGs' task instances.
func (s *Store) TaskInstancePage(dagIDs []string, offset, limit int) ([]RunTaskInstance, int, error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	page := []RunTaskInstance{}
	total := 0
	for _, dagID := range dagIDs {
		n := runCountTxn(txn, dagID).TaskInstances
		total += n
		if len(page) == limit || offset >= n {
			offset -= min(offset, n)
			continue
		}
		it, err := runsUpTxn(txn, dagID)
		if err != nil {
			return nil, 0, fmt.Errorf("list runs of %s: %w", dagID, err)
		}
		for raw := it.Next(); raw != nil && len(page) < limit; raw = it.Next() {
			run := raw.(*DagRun)
			row, err := runTasksTxn(txn, dagID, run.RunID)
			if err != nil {
				return nil, 0, err
			}
			read += 2 // the run and its task-instance row
			if row == nil {
				continue
			}
			if offset >= len(row.TIs) {
				offset -= len(row.TIs)
				continue
			}
			for _, ti := range row.TIs[offset:min(len(row.TIs), offset+limit-len(page))] {
				page = append(page, RunTaskInstance{Run: run, TI: ti})
			}
			offset = 0
		}
	}
	return page, total, nil
}

// DagReads names what a DAG page's filter reads besides the DAG rows,
// so that its count is remembered per version of that too.
type DagReads int

const (
	ReadsFavorites DagReads = iota // the users' favorites
)

// DagPage is a page of the DAG rows keep picks, in dag_id order
// (descending when desc), and how many rows it picks in all (tablePage),
// the count remembered also per version of what keep reads besides
// (reads).
func (s *Store) DagPage(desc bool, offset, limit int, keep func(*DagRow) bool, countKey string, reads ...DagReads) ([]*DagRow, int, error) {
	walk := func(txn *memdb.Txn) (memdb.ResultIterator, error) {
		if desc {
			return txn.GetReverse(tableDags, indexID)
		}
		return txn.Get(tableDags, indexID)
	}
	also := make([]string, len(reads))
	for i, r := range reads {
		also[i] = [...]string{ReadsFavorites: tableDagFavorites}[r]
	}
	return tablePageWalk(s, tableDags, indexID, nil, walk, offset, limit, keep, nil, countKey, also...)
}

// PoolKeyedPage, VariableKeyedPage and ConnectionKeyedPage are pages of those tables by
// name (byName) or by integer id, the rows whose name keep picks (nil:
// all), and how many it picks in all (tablePage; countKey names keep,
// "all" when keep is nil).
func (s *Store) PoolKeyedPage(byName, desc bool, offset, limit int, keep func(string) bool, countKey string) ([]*Pool, int, error) {
	return keyedTablePage(s, tablePools, indexRowID, indexID, byName, desc, offset, limit, keep, countKey, func(p *Pool) string { return p.Name })
}

func (s *Store) VariableKeyedPage(byKey, desc bool, offset, limit int, keep func(string) bool, countKey string) ([]*Variable, int, error) {
	return keyedTablePage(s, tableVariables, indexRowID, indexID, byKey, desc, offset, limit, keep, countKey, func(v *Variable) string { return v.Key })
}

func (s *Store) ConnectionKeyedPage(byID, desc bool, offset, limit int, keep func(string) bool, countKey string) ([]*Connection, int, error) {
	return keyedTablePage(s, tableConns, indexRowID, indexID, byID, desc, offset, limit, keep, countKey, func(c *Connection) string { return c.ConnID })
}

// AliasKeyedPage is the same of the asset aliases, by name or id.
func (s *Store) AliasKeyedPage(byName, desc bool, offset, limit int, keep func(string) bool, countKey string) ([]*AssetAlias, int, error) {
	return keyedTablePage(s, tableAssetAliases, indexID, "name", byName, desc, offset, limit, keep, countKey, func(a *AssetAlias) string { return a.Name })
}

// keyedTablePage is a page of table by its integer id (idIndex) or its
// name (nameIndex), of the rows whose name keep picks (nil: every row);
// countKey names keep (tablePage's: "" counts by a walk of every row at
// each page).
func keyedTablePage[T any](s *Store, table, idIndex, nameIndex string, byName, desc bool, offset, limit int, keep func(string) bool, countKey string, name func(*T) string) ([]*T, int, error) {
	index := idIndex
	if byName {
		index = nameIndex
	}
	if keep == nil {
		return tablePage(s, table, index, desc, offset, limit, func(*T) bool { return true }, "all")
	}
	return tablePage(s, table, index, desc, offset, limit, func(row *T) bool { return keep(name(row)) }, countKey)
}

// ImportErrorPage is a page of import errors by id, filename or
// timestamp (ties by id, the walk's way, or ascending when tiesUp: /api/v1
// sorts stably from the rows by id), those whose filename keep picks
// (nil: all), and how many it picks in all (tablePageOf; countKey names
// keep's filter).
func (s *Store) ImportErrorPage(order string, desc, tiesUp bool, offset, limit int, keep func(string) bool, countKey string) ([]*ImportError, int, error) {
	index := indexID
	switch order {
	case "filename":
		index = indexFilename
	case "timestamp":
		index = indexTimestamp
	}
	pick := func(*ImportError) bool { return true }
	if keep != nil {
		pick = func(e *ImportError) bool { return keep(e.Filename) }
	}
	if order == "timestamp" && desc && tiesUp {
		walk := func(txn *memdb.Txn) (memdb.ResultIterator, error) {
			return &importErrorTimesDown{txn: txn, at: endOfTime, id: 1<<63 - 1}, nil
		}
		return tablePageWalk(s, tableImportErrors, index, nil, walk, offset, limit, pick, nil, countKey)
	}
	return tablePageOf(s, tableImportErrors, index, nil, desc, offset, limit, pick, nil, countKey)
}

// importErrorTimesDown walks the import errors by timestamp from the
// latest down, each time's rows by id ascending: a seek down to the next
// earlier time, then its rows forward in the (timestamp, id) index.
type importErrorTimesDown struct {
	txn   *memdb.Txn
	at    time.Time // the walk is below (at, id)
	id    int64
	group memdb.ResultIterator // the rows of one time, forward
	time  time.Time
	err   error
}

func (x *importErrorTimesDown) Next() any {
	for x.err == nil {
		if x.group != nil {
			if raw := x.group.Next(); raw != nil && raw.(*ImportError).Timestamp.Equal(x.time) {
				return raw
			}
			x.group = nil
		}
		var it memdb.ResultIterator
		if it, x.err = x.txn.ReverseLowerBound(tableImportErrors, indexTimestamp, x.at, x.id); x.err != nil {
			break
		}
		raw := it.Next()
		if raw == nil {
			return nil
		}
		x.time = raw.(*ImportError).Timestamp
		x.at, x.id = x.time, -1<<63 // below every row of this time
		x.group, x.err = x.txn.LowerBound(tableImportErrors, indexTimestamp, x.time, int64(-1<<63))
	}
	return nil
}

// Err is the walk's error, once Next has answered nil.
func (x *importErrorTimesDown) Err() error { return x.err }

// WatchCh is memdb.ResultIterator's; a page is read once, never watched.
func (x *importErrorTimesDown) WatchCh() <-chan struct{} { return nil }

// BackfillPage is a page of a DAG's backfills ("": every DAG's) by id,
// descending when desc, and how many there are (tablePageOf; a DAG's
// count remembered per change of its backfills).
func (s *Store) BackfillPage(dagID string, desc bool, offset, limit int) ([]*Backfill, int, error) {
	all := func(*Backfill) bool { return true }
	if dagID == "" {
		return tablePage(s, tableBackfills, indexID, desc, offset, limit, all, "all")
	}
	return tablePageOf(s, tableBackfills, indexBackfillDag, []any{dagID}, desc, offset, limit, all, nil, "dag "+dagID)
}

// DagVersionPage is a page of every DAG's versions by id (uuid7),
// descending when desc, and how many there are (tablePage).
func (s *Store) DagVersionPage(desc bool, offset, limit int) ([]*DagVersion, int, error) {
	return tablePage(s, tableDagVersions, indexVersionUUID, desc, offset, limit, func(*DagVersion) bool { return true }, "all")
}

// DagVersionPageOf is a page of one DAG's versions by version_number
// (byNumber) or by id, descending when desc, and how many there are
// (tablePageOf: the DAG's part of an index, its count remembered per
// change of the DAG's versions).
func (s *Store) DagVersionPageOf(dagID string, byNumber, desc bool, offset, limit int) ([]*DagVersion, int, error) {
	all := func(*DagVersion) bool { return true }
	if byNumber {
		return tablePageOf(s, tableDagVersions, indexID+"_prefix", []any{dagID, nil}, desc, offset, limit, all, nil, "dag "+dagID)
	}
	return tablePageOf(s, tableDagVersions, indexDagVersionIDs+"_prefix", []any{dagID, ""}, desc, offset, limit, all, nil, "dag "+dagID)
}

// walkPage reads it to the page's end: the rows after the first offset,
// at most limit of them (none when limit is 0 or less), and how many rows
// it read.
func walkPage[T any](it memdb.ResultIterator, offset, limit int) ([]*T, int) {
	rows, _, read := pickPage[T](it, offset, limit, nil, nil, false)
	return rows, read
}

// pickPage reads it to the page's end: the rows keep picks (nil: every
// row) after the first offset of them, at most limit (none when limit is
// 0 or less); with count it reads on to the end to count every row keep
// picks. tied (nil: none) says two rows share the order's key: a run of
// such rows is taken in the reverse of the walk's order, for a walk down
// an index whose ties go up (listKeyed's last key, id ascending), and the
// page reads to the end of its last run. It says how many rows it picked
// and how many it read.
func pickPage[T any](it memdb.ResultIterator, offset, limit int, keep func(*T) bool, tied func(a, b *T) bool, count bool) (rows []*T, picked, read int) {
	rows = make([]*T, 0, min(max(limit, 0), 1024)) // a page, not a limit of "all"
	take := func(row *T) {
		if picked >= offset && len(rows) < limit {
			rows = append(rows, row)
		}
		picked++
	}
	var held []*T // a run of tied rows, in the walk's order
	flush := func() {
		for i := len(held) - 1; i >= 0; i-- {
			take(held[i])
		}
		held = held[:0]
	}
	for count || len(rows) < limit {
		raw := it.Next()
		if raw == nil {
			break
		}
		read++
		row := raw.(*T)
		switch {
		case keep != nil && !keep(row):
		case tied == nil:
			take(row)
		default:
			if len(held) > 0 && !tied(held[0], row) {
				flush()
			}
			held = append(held, row)
		}
	}
	flush()
	return rows, picked, read
}

// tablePage is a page of the rows of table that keep picks, in index's
// order (descending when desc), and how many rows it picks in all.
// countKey names what keep picks (one name for one filter): its count is
// remembered for the table as it stands (treeCounts), so that a page
// walks the index only to the page's end, and the whole table once per
// change of it; with countKey "" each page walks every row.
func tablePage[T any](s *Store, table, index string, desc bool, offset, limit int, keep func(*T) bool, countKey string) ([]*T, int, error) {
	return tablePageOf(s, table, index, nil, desc, offset, limit, keep, nil, countKey)
}

// tablePageOf is tablePage over the rows of index that args pick (nil:
// every row); with args, the count walks those rows and is remembered
// for them as they stand (the watch channel of their part of the index,
// which any change among them replaces). tied is pickPage's (nil: the
// index's order is the page's).
func tablePageOf[T any](s *Store, table, index string, args []any, desc bool, offset, limit int, keep func(*T) bool, tied func(a, b *T) bool, countKey string) ([]*T, int, error) {
	walk := func(txn *memdb.Txn) (memdb.ResultIterator, error) {
		if desc {
			return txn.GetReverse(table, index, args...)
		}
		return txn.Get(table, index, args...)
	}
	return tablePageWalk(s, table, index, args, walk, offset, limit, keep, tied, countKey)
}

// tablePageWalk is tablePageOf with the walk of the page's order given
// (a walk no single index walk makes).
func tablePageWalk[T any](s *Store, table, index string, args []any, walk func(*memdb.Txn) (memdb.ResultIterator, error), offset, limit int, keep func(*T) bool, tied func(a, b *T) bool, countKey string, also ...string) ([]*T, int, error) {
	txn := s.read()
	it, err := walk(txn)
	if err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", table, err)
	}
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	total := -1
	if countKey != "" {
		// Any index's root changes with every change of its table; the
		// primary index (id) counts every row.
		all, err := txn.Get(table, indexID)
		if args != nil {
			all, err = txn.Get(table, index, args...)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("count %s: %w", table, err)
		}
		var roots [2]<-chan struct{}
		for i, t := range also {
			it, err := txn.Get(t, indexID)
			if err != nil {
				return nil, 0, fmt.Errorf("count %s: %w", table, err)
			}
			roots[i] = it.WatchCh()
		}
		total, err = s.counts.count(all.WatchCh(), table+" "+countKey, func() (int, error) {
			n := 0
			for raw := all.Next(); raw != nil; raw = all.Next() {
				read++
				if keep == nil || keep(raw.(*T)) {
					n++
				}
			}
			return n, nil
		}, roots[0], roots[1])
		if err != nil {
			return nil, 0, err
		}
	}
	if total >= 0 {
		// The page ends at the last row the filter picks: the walk need
		// not go on to the index's end to find that there is no more.
		if offset >= total {
			return []*T{}, total, nil
		}
		limit = min(limit, total-offset)
	}
	rows, picked, n := pickPage(it, offset, limit, keep, tied, total < 0)
	read += n
	if failing, ok := it.(interface{ Err() error }); ok && failing.Err() != nil {
		return nil, 0, fmt.Errorf("list %s: %w", table, failing.Err())
	}
	if total < 0 {
		total = picked
	}
	return rows, total, nil
}
