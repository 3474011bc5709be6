package main

// Pages of XCom entries in get_xcom_entries' order (dag_id, task_id,
// run_id, map_index, key; Airflow 3.2.1 routes/public/xcom.py, 2.10.3
// api_connexion/endpoints/xcom_endpoint.py) for the scopes a listing
// names: every entry, a DAG's, a task's across runs, a run's, a run's
// task's. A derived table keeps how many entries each scope holds, so
// that a page walks the order index to its end and skips what comes
// before it by those counts, instead of reading and sorting the scope.

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// tableXComCounts is derived: how many XCom entries each scope holds.
const tableXComCounts = "xcom_counts"

func init() {
	derivedTables[tableXComCounts] = true
}

// The scopes an xcomCount row counts, and what its A and B hold. A
// run's count is the sum of its tasks', which a page of the run reads
// anyway.
const (
	xcomScopeDag     = iota // a DAG's entries; A, B ""
	xcomScopeDagTask        // a task's, across the DAG's runs; A task_id
	xcomScopeRunTask        // a run's task's; A run_id, B task_id
)

// xcomCount is how many XCom entries one scope holds (N > 0: a scope
// with none has no row).
type xcomCount struct {
	Scope int
	DagID string
	A, B  string
	N     int
}

// xcomCountsTable keys the counts by (scope, dag_id, A, B): a DAG's
// tasks, and a run's tasks, are prefixes in task_id order, the order a
// listing takes them in; every DAG's rows of xcomScopeDag are in dag_id
// order.
func xcomCountsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableXComCounts,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: xcomCountIndex{}},
		},
	}
}

// xcomCountIndex keys a count as its scope's byte, then dag_id, A and B,
// those its scope uses, each NUL-terminated as stringField writes them:
// one allocation a key (a push writes three counts; a compound index
// makes one a part and one to join them). FromArgs takes (scope, dag_id,
// A, B) and keeps the parts the scope uses; PrefixFromArgs takes (scope,
// dag_id [, A [, B]]), a last "" matching any.
type xcomCountIndex struct{}

// xcomScopeParts is how many of dag_id, A and B a scope's key holds.
func xcomScopeParts(scope int) int { return min(scope+1, 3) }

func (xcomCountIndex) FromObject(obj any) (bool, []byte, error) {
	c, ok := obj.(*xcomCount)
	if !ok {
		return false, nil, fmt.Errorf("xcom count index: want *xcomCount, got %T", obj)
	}
	parts := [3]string{c.DagID, c.A, c.B}
	return true, xcomCountKey(c.Scope, false, parts[:xcomScopeParts(c.Scope)]...), nil
}

func (xcomCountIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("xcom count index: want (scope, dag_id, a, b), got %d args", len(args))
	}
	return xcomCountArgs(false, args)
}

func (xcomCountIndex) PrefixFromArgs(args ...any) ([]byte, error) { return xcomCountArgs(true, args) }

func xcomCountArgs(prefix bool, args []any) ([]byte, error) {
	if len(args) < 2 || len(args) > 4 {
		return nil, fmt.Errorf("xcom count index: want (scope, dag_id [, a [, b]]), got %d args", len(args))
	}
	scope, ok := args[0].(int)
	if !ok || scope < xcomScopeDag || scope > xcomScopeRunTask {
		return nil, fmt.Errorf("xcom count index: want a scope first: %#v", args[0])
	}
	var parts [3]string
	for i, arg := range args[1:] {
		if parts[i], ok = arg.(string); !ok {
			return nil, fmt.Errorf("xcom count index: want strings after the scope: %#v", arg)
		}
	}
	return xcomCountKey(scope, prefix, parts[:min(len(args)-1, xcomScopeParts(scope))]...), nil
}

// xcomCountKey is scope's byte and the parts, each NUL-terminated; for a
// prefix, a last part "" is left out (any).
func xcomCountKey(scope int, prefix bool, parts ...string) []byte {
	if prefix && len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	n := 1
	for _, p := range parts {
		n += len(p) + 1
	}
	k := make([]byte, 1, n)
	k[0] = byte(scope)
	for _, p := range parts {
		k = append(append(k, p...), 0)
	}
	return k
}

// xcomCountTxn is the count of one scope: 0 when it has no row.
func xcomCountTxn(txn *memdb.Txn, scope int, dagID, a, b string) (int, error) {
	raw, err := txn.First(tableXComCounts, indexID, scope, dagID, a, b)
	if err != nil {
		return 0, fmt.Errorf("look up xcom count of %s %s %s: %w", dagID, a, b, err)
	}
	if raw == nil {
		return 0, nil
	}
	return raw.(*xcomCount).N, nil
}

// countXComsTxn adds delta entries of a run's task to the counts of the
// three scopes that hold them.
func countXComsTxn(txn *memdb.Txn, dagID, runID, taskID string, delta int) error {
	if delta == 0 {
		return nil
	}
	for _, k := range [3]xcomCount{{xcomScopeDag, dagID, "", "", 0}, {xcomScopeDagTask, dagID, taskID, "", 0},
		{xcomScopeRunTask, dagID, runID, taskID, 0}} {
		raw, err := txn.First(tableXComCounts, indexID, k.Scope, k.DagID, k.A, k.B)
		if err != nil {
			return fmt.Errorf("look up xcom count of %s/%s/%s: %w", dagID, runID, taskID, err)
		}
		if raw != nil {
			k.N = raw.(*xcomCount).N
		}
		k.N += delta
		switch {
		case k.N > 0:
			err = txn.Insert(tableXComCounts, &k)
		case raw != nil:
			err = txn.Delete(tableXComCounts, raw)
		}
		if err != nil {
			return fmt.Errorf("count xcom entries of %s/%s/%s: %w", dagID, runID, taskID, err)
		}
	}
	return nil
}

// xcomTask is a run's task, the unit the counts follow.
type xcomTask struct{ dagID, runID, taskID string }

// uncountXComsTxn takes the entries from their scopes' counts, one
// change per run's task.
func uncountXComsTxn(txn *memdb.Txn, entries []*XComEntry) error {
	gone := map[xcomTask]int{}
	for _, e := range entries {
		gone[xcomTask{e.DagID, e.RunID, e.TaskID}]++
	}
	for k, n := range gone {
		if err := countXComsTxn(txn, k.dagID, k.runID, k.taskID, -n); err != nil {
			return err
		}
	}
	return nil
}

// XComPageQuery is a page of XCom entries in a listing's order. "" for
// an id is any; nil Key or MapIndex is any. KeepDag, KeepRun and
// KeepTask (nil: keep all) pick the DAGs, the named run and the tasks
// whose entries the page takes: KeepRun sees the run (nil when there is
// none), which RunID must name.
type XComPageQuery struct {
	DagID, RunID, TaskID string
	Key                  *string
	MapIndex             *int
	KeepDag              func(dagID string) bool
	KeepRun              func(run *DagRun) bool
	KeepTask             func(taskID string) bool
	// KeepKey (nil: every key) picks the entries by key, across runs
	// only (a key pattern).
	KeepKey func(key string) bool
	// JoinRun leaves out, across runs, the entries whose run is gone
	// (Airflow 3 joins the run); KeepRun implies it there.
	JoinRun bool
	// RunsAfter and RunsUpTo (nil: unbounded) bound the run_after of
	// every run KeepRun takes across runs: the runs a page walks for the
	// entries of those KeepRun takes (xcomAdmittedRunsWalk).
	RunsAfter, RunsUpTo *time.Time
	// FilterKey names the filters across runs (Key, MapIndex, KeepRun,
	// KeepKey, JoinRun) for the count of what they pick: with it the
	// store pages them by a walk of the scope's blocks to the page's end,
	// the filters picking; without it it does not page them (paged).
	FilterKey     string
	Offset, Limit int
}

// paged says whether the store can page q: a run's entries may be
// filtered by key, map_index and the run itself; across runs, whole
// DAGs and tasks are picked, and other filters when named (FilterKey).
func (q XComPageQuery) paged() bool {
	return q.RunID != "" || !q.filteredAcrossRuns() || q.FilterKey != ""
}

// filteredAcrossRuns says whether q filters entries across runs by more
// than their DAG and task.
func (q XComPageQuery) filteredAcrossRuns() bool {
	return q.RunID == "" && (q.Key != nil || q.MapIndex != nil || q.KeepRun != nil || q.KeepKey != nil || q.JoinRun)
}

// XComPage reads a page of the entries q picks and how many it picks in
// all; ok is false when q is one it cannot page (paged), which the
// caller answers by reading the scope. The entries come in blocks (every
// entry, a DAG's, a task's, a run's task's) whose counts the writes keep:
// a block before the page is skipped by its count, so the cost is the
// page, the rows its offset skips within a block, and a count row a
// block. A block filtered by key or map_index is counted by a walk of
// what it picks (a seek to those entries), not of the run.
func (s *Store) XComPage(q XComPageQuery) (page []*XComEntry, total int, ok bool, err error) {
	if !q.paged() {
		return nil, 0, false, nil
	}
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	if q.filteredAcrossRuns() {
		return s.xcomFilteredPage(txn, q, &read)
	}
	page = []*XComEntry{}
	offset, limit := max(q.Offset, 0), max(q.Limit, 0)
	for b, err := range xcomBlocks(txn, q, &read) {
		if err != nil {
			return nil, 0, false, err
		}
		if b.n >= 0 && (len(page) == limit || offset >= b.n) {
			offset -= min(offset, b.n)
			total += b.n
			continue
		}
		it, err := b.walk()
		if err != nil {
			return nil, 0, false, fmt.Errorf("list xcom entries: %w", err)
		}
		n := 0
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			n++
			switch {
			case offset > 0:
				offset--
			case len(page) < limit:
				page = append(page, raw.(*XComEntry))
			}
			if len(page) == limit && b.n >= 0 {
				break
			}
		}
		if b.n >= 0 {
			n = b.n
		}
		total += n
	}
	return page, total, true, nil
}

// xcomFilteredPage is XComPage across runs with filters on the entries
// and their runs: the scope's blocks walked in the listing's order to the
// page's end, the filters picking (a run looked up once for its entries),
// and the total counted by a walk of every block once per version of the
// entries, the runs when a filter reads them, and the filters
// (treeCounts under q.FilterKey).
func (s *Store) xcomFilteredPage(txn *memdb.Txn, q XComPageQuery, read *int) ([]*XComEntry, int, bool, error) {
	runs := map[[2]string]*DagRun{} // (dag_id, run_id): the run, nil when gone
	withRuns := q.JoinRun || q.KeepRun != nil
	var lookupErr error
	keep := func(e *XComEntry) bool {
		switch {
		case q.Key != nil && e.Key != *q.Key, q.MapIndex != nil && e.MapIndex != *q.MapIndex, q.KeepKey != nil && !q.KeepKey(e.Key):
			return false
		case !withRuns:
			return true
		}
		k := [2]string{e.DagID, e.RunID}
		run, seen := runs[k]
		if !seen {
			r, err := runByRunIDTxn(txn, e.DagID, e.RunID)
			switch {
			case err == nil:
				*read++
				run = r
			case !errors.Is(err, errNotFound):
				lookupErr = cmp.Or(lookupErr, err)
			}
			runs[k] = run
		}
		return run != nil && run.ID == e.RunRowID && (q.KeepRun == nil || q.KeepRun(run))
	}
	// walk reads the scope's entries in order, those keep picks, until
	// take says no more.
	walk := func(take func(*XComEntry) bool) error {
		if q.Key != nil {
			return xcomKeyWalk(txn, q, func(e *XComEntry) bool { return !keep(e) || take(e) }, read, &lookupErr)
		}
		if q.KeepRun != nil {
			return s.xcomAdmittedRunsWalk(txn, q, runs, func(e *XComEntry) bool { return !keep(e) || take(e) }, read, &lookupErr)
		}
		for b, err := range xcomBlocks(txn, q, read) {
			if err != nil {
				return err
			}
			if !xcomWalkBlock(txn, q, b, func(e *XComEntry) bool { return !keep(e) || take(e) }, read, &lookupErr) {
				return lookupErr
			}
		}
		return lookupErr
	}
	root, err := txn.Get(tableXComs, indexXComOrder)
	if err != nil {
		return nil, 0, false, fmt.Errorf("count xcom entries: %w", err)
	}
	var also []<-chan struct{}
	if withRuns {
		r, err := txn.Get(tableDagRuns, indexID)
		if err != nil {
			return nil, 0, false, fmt.Errorf("count xcom entries: %w", err)
		}
		also = append(also, r.WatchCh())
	}
	scope := fmt.Sprintf("xcom %q %q %q ", q.DagID, q.TaskID, q.RunID)
	total, err := s.counts.count(root.WatchCh(), scope+q.FilterKey, func() (int, error) {
		n := 0
		err := walk(func(*XComEntry) bool { n++; return true })
		return n, err
	}, also...)
	if err != nil {
		return nil, 0, false, err
	}
	page := []*XComEntry{}
	offset, limit := max(q.Offset, 0), min(max(q.Limit, 0), max(total-max(q.Offset, 0), 0))
	if limit == 0 {
		return page, total, true, nil
	}
	err = walk(func(e *XComEntry) bool {
		if offset > 0 {
			offset--
			return true
		}
		page = append(page, e)
		return len(page) < limit
	})
	return page, total, true, err
}

// xcomWalkBlock walks a block's entries across runs (those of
// q.MapIndex, sought, when named) until take says no more (false), or
// a lookup fails (*lookupErr; false).
func xcomWalkBlock(txn *memdb.Txn, q XComPageQuery, b xcomBlock, take func(*XComEntry) bool, read *int, lookupErr *error) bool {
	entries := xcomBlockEntries(b, read)
	if q.MapIndex != nil {
		entries = xcomMapIndexEntries(txn, b, *q.MapIndex, read)
	}
	for e, err := range entries {
		if err != nil {
			*lookupErr = cmp.Or(*lookupErr, err)
			return false
		}
		if !take(e) {
			return false
		}
	}
	return true
}

// xcomAdmittedRunsWalk walks the entries across runs of the runs
// q.KeepRun takes (a date range, a run_id pattern), in a listing's
// order, until take says no more, then is *lookupErr. For each DAG of
// the scope it takes the runs KeepRun takes (xcomAdmittedRuns; into
// runs, which the entries' filter looks up), and, when fewer run's tasks than the DAG's entries,
// walks each task's entries of those runs (a seek to each run's task, in
// run_id order, of q.MapIndex when named); else the DAG's blocks whole.
// A page reads the picked runs' entries to its end (and, after a write of
// a DAG's runs, its runs again), where the walk of the scope read every
// run's entries to its last match.
func (s *Store) xcomAdmittedRunsWalk(txn *memdb.Txn, q XComPageQuery, runs map[[2]string]*DagRun, take func(*XComEntry) bool, read *int, lookupErr *error) error {
	for dagID, err := range xcomDags(txn, q, read) {
		if err != nil {
			return err
		}
		if q.KeepDag != nil && !q.KeepDag(dagID) {
			continue
		}
		taken, err := s.xcomAdmittedRuns(txn, q, dagID, runs, read)
		if err != nil {
			return err
		}
		tasks, entries, err := xcomDagTasks(txn, q, dagID, read)
		if err != nil {
			return err
		}
		if taken.whole || len(taken.runs)*len(tasks) >= entries {
			// As many seeks as entries: the DAG's blocks walked whole.
			dq := q
			dq.DagID = dagID
			for b, err := range xcomDagBlocks(txn, dq, dagID, read) {
				if err != nil {
					return err
				}
				if !xcomWalkBlock(txn, q, b, take, read, lookupErr) {
					return *lookupErr
				}
			}
			continue
		}
		for _, taskID := range tasks {
			for _, run := range taken.runs {
				args := []any{dagID, taskID, run.RunID, nil}
				if q.MapIndex != nil {
					args[3] = *q.MapIndex
				}
				it, err := txn.Get(tableXComs, indexXComOrder+"_prefix", args...)
				if err != nil {
					return fmt.Errorf("list xcom entries of %s/%s/%s: %w", dagID, taskID, run.RunID, err)
				}
				for raw := it.Next(); raw != nil; raw = it.Next() {
					*read++
					if !take(raw.(*XComEntry)) {
						return *lookupErr
					}
				}
			}
		}
	}
	return *lookupErr
}

// maxXComRunsOfDAG bounds Store.xcomRunsOfDAG: a DAG's runs under a
// run filter each.
const maxXComRunsOfDAG = 4096

// xcomRunsTaken is the runs of a DAG an XCom listing's run filters take,
// in run_id order; whole when a run_id holds a NUL, which the order index
// would sort with the run_id it extends (the DAG's blocks are walked
// whole then).
type xcomRunsTaken struct {
	runs  []*DagRun
	whole bool
}

// xcomAdmittedRuns is the runs of a DAG q.KeepRun takes, read from the
// DAG's runs by run_after (within q.RunsAfter and q.RunsUpTo) once per
// version of the DAG's runs and filter (Store.xcomRunsOfDAG), each also
// put in runs.
func (s *Store) xcomAdmittedRuns(txn *memdb.Txn, q XComPageQuery, dagID string, runs map[[2]string]*DagRun, read *int) (xcomRunsTaken, error) {
	all, err := runsUpTxn(txn, dagID)
	if err != nil {
		return xcomRunsTaken{}, fmt.Errorf("list the runs of %s: %w", dagID, err)
	}
	take := func() (xcomRunsTaken, error) {
		it := all
		if q.RunsAfter != nil {
			if it, err = txn.LowerBound(tableDagRuns, indexDagAfter, dagID, *q.RunsAfter); err != nil {
				return xcomRunsTaken{}, fmt.Errorf("list the runs of %s: %w", dagID, err)
			}
		}
		var taken xcomRunsTaken
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			run := raw.(*DagRun)
			if run.DagID != dagID || (q.RunsUpTo != nil && run.After().After(*q.RunsUpTo)) {
				break
			}
			if q.RunsAfter != nil && run.After().Before(*q.RunsAfter) {
				continue
			}
			if strings.IndexByte(run.RunID, 0) >= 0 {
				return xcomRunsTaken{whole: true}, nil
			}
			if q.KeepRun(run) {
				taken.runs = append(taken.runs, run)
			}
		}
		slices.SortFunc(taken.runs, func(a, b *DagRun) int { return strings.Compare(a.RunID, b.RunID) })
		return taken, nil
	}
	var taken xcomRunsTaken
	if root := all.WatchCh(); root != nil {
		taken, err = s.xcomRunsOfDAG.get(root, q.FilterKey+"\x00"+dagID, take)
	} else {
		taken, err = take()
	}
	for _, run := range taken.runs {
		runs[[2]string{dagID, run.RunID}] = run
	}
	return taken, err
}

// xcomDagTasks gives the tasks of a DAG whose entries q's scope takes
// (the task q names, or those KeepTask picks), in task_id order, and how
// many entries they hold.
func xcomDagTasks(txn *memdb.Txn, q XComPageQuery, dagID string, read *int) (tasks []string, entries int, err error) {
	if q.TaskID != "" {
		if q.KeepTask != nil && !q.KeepTask(q.TaskID) {
			return nil, 0, nil
		}
		*read++
		n, err := xcomCountTxn(txn, xcomScopeDagTask, dagID, q.TaskID, "")
		if err != nil || n == 0 {
			return nil, 0, err
		}
		return []string{q.TaskID}, n, nil
	}
	it, err := txn.Get(tableXComCounts, indexID+"_prefix", xcomScopeDagTask, dagID, "")
	if err != nil {
		return nil, 0, fmt.Errorf("list the tasks of %s's xcom entries: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		*read++
		if c := raw.(*xcomCount); c.N > 0 && (q.KeepTask == nil || q.KeepTask(c.A)) {
			tasks = append(tasks, c.A)
			entries += c.N
		}
	}
	return tasks, entries, nil
}

// xcomKeyWalk walks the entries of q's key (q.Key, across runs) in the
// scope q names, in a listing's order (the key's part of
// indexXComKeyOrder: the scope's DAG and task a prefix of it when named,
// KeepDag, a task named across DAGs and KeepTask picking), until take
// says no more, then is *lookupErr: a page reads the key's entries to
// its end, not the scope's of every key.
func xcomKeyWalk(txn *memdb.Txn, q XComPageQuery, take func(*XComEntry) bool, read *int, lookupErr *error) error {
	args := []any{*q.Key}
	if q.DagID != "" {
		args = append(args, q.DagID)
		if q.TaskID != "" {
			args = append(args, q.TaskID)
		}
	}
	it, err := txn.Get(tableXComs, indexXComKeyOrder+"_prefix", append(args, "")...)
	if err != nil {
		return fmt.Errorf("list xcom entries of key %q: %w", *q.Key, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		*read++
		e := raw.(*XComEntry)
		switch {
		case q.DagID != "" && e.DagID != q.DagID, q.TaskID != "" && e.TaskID != q.TaskID,
			q.KeepDag != nil && !q.KeepDag(e.DagID), q.KeepTask != nil && !q.KeepTask(e.TaskID):
			continue
		}
		if !take(e) {
			break
		}
	}
	return *lookupErr
}

// xcomBlock is a run of entries in a listing's order: how many (-1: as
// many as the walk finds) and the walk. Across runs, dagID and taskID
// name the prefix the walk covers ("": every DAG; every task of the DAG).
type xcomBlock struct {
	n      int
	walk   func() (memdb.ResultIterator, error)
	dagID  string
	taskID string
}

// xcomBlockEntries yields every entry of a block, counting them in read.
func xcomBlockEntries(b xcomBlock, read *int) iter.Seq2[*XComEntry, error] {
	return func(yield func(*XComEntry, error) bool) {
		it, err := b.walk()
		if err != nil {
			yield(nil, fmt.Errorf("list xcom entries: %w", err))
			return
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			if !yield(raw.(*XComEntry), nil) {
				return
			}
		}
	}
}

// xcomMapIndexEntries yields the entries of a block across runs whose
// map_index is mapIndex, in the listing's order: at each run's task, a
// seek to mapIndex, and past it a seek beyond the run's task's entries, so
// that a run's task costs the entries of mapIndex and one or two others
// (the first of the next run's task), where a walk read each of a mapped
// task's entries (Airflow's schema has no index for map_index across runs
// either; this is the order index's prefix, sought).
func xcomMapIndexEntries(txn *memdb.Txn, b xcomBlock, mapIndex int, read *int) iter.Seq2[*XComEntry, error] {
	return func(yield func(*XComEntry, error) bool) {
		it, err := b.walk()
		for err == nil {
			raw := it.Next()
			if raw == nil {
				return
			}
			*read++
			e := raw.(*XComEntry)
			if (b.dagID != "" && e.DagID != b.dagID) || (b.taskID != "" && e.TaskID != b.taskID) {
				return // past the block (a seek's walk has no end of its own)
			}
			switch {
			case e.MapIndex == mapIndex:
				if !yield(e, nil) {
					return
				}
			case e.MapIndex < mapIndex:
				it, err = txn.LowerBound(tableXComs, indexXComOrder+"_prefix", e.DagID, e.TaskID, e.RunID, mapIndex)
			case e.MapIndex < math.MaxInt:
				it, err = txn.LowerBound(tableXComs, indexXComOrder+"_prefix", e.DagID, e.TaskID, e.RunID, math.MaxInt)
			}
		}
		yield(nil, fmt.Errorf("list xcom entries: %w", err))
	}
}

// xcomBlocks yields q's blocks in a listing's order, adding the count
// rows (and runs) it reads to read.
func xcomBlocks(txn *memdb.Txn, q XComPageQuery, read *int) iter.Seq2[xcomBlock, error] {
	return func(yield func(xcomBlock, error) bool) {
		if q.DagID == "" && q.RunID == "" && q.TaskID == "" && q.KeepDag == nil && q.KeepTask == nil {
			// Every entry: one block, its count the total (a lookup
			// the page's reads leave out, as every table's total).
			yield(xcomBlock{n: int(totalTxn(txn, totalXComs)), walk: func() (memdb.ResultIterator, error) {
				return txn.Get(tableXComs, indexXComOrder)
			}}, nil)
			return
		}
		for dagID, err := range xcomDags(txn, q, read) {
			if err != nil {
				yield(xcomBlock{}, err)
				return
			}
			if q.KeepDag != nil && !q.KeepDag(dagID) {
				continue
			}
			var blocks iter.Seq2[xcomBlock, error]
			if q.RunID == "" {
				blocks = xcomDagBlocks(txn, q, dagID, read)
			} else {
				blocks = xcomRunBlocks(txn, q, dagID, read)
			}
			for b, err := range blocks {
				if !yield(b, err) || err != nil {
					return
				}
			}
		}
	}
}

// xcomDags yields the DAG q names, or every DAG that has entries, in
// dag_id order.
func xcomDags(txn *memdb.Txn, q XComPageQuery, read *int) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if q.DagID != "" {
			yield(q.DagID, nil)
			return
		}
		it, err := txn.Get(tableXComCounts, indexID+"_prefix", xcomScopeDag, "")
		if err != nil {
			yield("", fmt.Errorf("list the dags of xcom entries: %w", err))
			return
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			if !yield(raw.(*xcomCount).DagID, nil) {
				return
			}
		}
	}
}

// xcomDagBlocks yields a DAG's blocks across its runs: the DAG's whole,
// the task q names, or each of its tasks KeepTask picks.
func xcomDagBlocks(txn *memdb.Txn, q XComPageQuery, dagID string, read *int) iter.Seq2[xcomBlock, error] {
	taskBlock := func(taskID string, n int) xcomBlock {
		return xcomBlock{n: n, dagID: dagID, taskID: taskID, walk: func() (memdb.ResultIterator, error) {
			return txn.Get(tableXComs, indexXComOrder+"_prefix", dagID, taskID, "")
		}}
	}
	return func(yield func(xcomBlock, error) bool) {
		switch {
		case q.TaskID != "":
			if q.KeepTask != nil && !q.KeepTask(q.TaskID) {
				return
			}
			*read++
			n, err := xcomCountTxn(txn, xcomScopeDagTask, dagID, q.TaskID, "")
			if err != nil || n > 0 {
				yield(taskBlock(q.TaskID, n), err)
			}
		case q.KeepTask == nil:
			*read++
			n, err := xcomCountTxn(txn, xcomScopeDag, dagID, "", "")
			if err != nil || n > 0 {
				yield(xcomBlock{n: n, dagID: dagID, walk: func() (memdb.ResultIterator, error) {
					return txn.Get(tableXComs, indexXComOrder+"_prefix", dagID, "")
				}}, err)
			}
		default:
			it, err := txn.Get(tableXComCounts, indexID+"_prefix", xcomScopeDagTask, dagID, "")
			if err != nil {
				yield(xcomBlock{}, fmt.Errorf("list the tasks of %s's xcom entries: %w", dagID, err))
				return
			}
			for raw := it.Next(); raw != nil; raw = it.Next() {
				*read++
				if c := raw.(*xcomCount); q.KeepTask(c.A) && !yield(taskBlock(c.A, c.N), nil) {
					return
				}
			}
		}
	}
}

// xcomRunBlocks yields the blocks of the run q names in a DAG, when
// KeepRun takes it: one a task, in task_id order, each its entries in
// (map_index, key) order, those of a key or map_index when q names one.
func xcomRunBlocks(txn *memdb.Txn, q XComPageQuery, dagID string, read *int) iter.Seq2[xcomBlock, error] {
	block := func(taskID string, n int) xcomBlock {
		var walk func() (memdb.ResultIterator, error)
		switch {
		case q.Key != nil && q.MapIndex != nil:
			walk = func() (memdb.ResultIterator, error) {
				return txn.Get(tableXComs, indexID, dagID, q.RunID, taskID, *q.Key, *q.MapIndex)
			}
		case q.Key != nil: // the key's entries of each map index, in order
			walk = func() (memdb.ResultIterator, error) {
				return txn.Get(tableXComs, indexID+"_prefix", dagID, q.RunID, taskID, *q.Key, nil)
			}
		case q.MapIndex != nil:
			walk = func() (memdb.ResultIterator, error) {
				return txn.Get(tableXComs, indexXComOrder+"_prefix", dagID, taskID, q.RunID, *q.MapIndex)
			}
		default:
			walk = func() (memdb.ResultIterator, error) {
				return txn.Get(tableXComs, indexXComOrder+"_prefix", dagID, taskID, q.RunID, nil)
			}
		}
		if q.Key != nil || q.MapIndex != nil {
			n = -1 // counted by the walk of what the filter picks
		}
		return xcomBlock{n: n, walk: walk}
	}
	return func(yield func(xcomBlock, error) bool) {
		if q.KeepRun != nil {
			run, err := runByRunIDTxn(txn, dagID, q.RunID)
			if err == nil {
				*read++
			} else if run = nil; !errors.Is(err, errNotFound) {
				yield(xcomBlock{}, err)
				return
			}
			if !q.KeepRun(run) {
				return
			}
		}
		if q.TaskID != "" {
			if q.KeepTask != nil && !q.KeepTask(q.TaskID) {
				return
			}
			*read++
			n, err := xcomCountTxn(txn, xcomScopeRunTask, dagID, q.RunID, q.TaskID)
			if err != nil || n > 0 {
				yield(block(q.TaskID, n), err)
			}
			return
		}
		it, err := txn.Get(tableXComCounts, indexID+"_prefix", xcomScopeRunTask, dagID, q.RunID, "")
		if err != nil {
			yield(xcomBlock{}, fmt.Errorf("list the tasks of %s/%s's xcom entries: %w", dagID, q.RunID, err))
			return
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			c := raw.(*xcomCount)
			if (q.KeepTask == nil || q.KeepTask(c.B)) && !yield(block(c.B, c.N), nil) {
				return
			}
		}
	}
}
