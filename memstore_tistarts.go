package main

// Airflow 3's task instances by start_date across runs: the order the
// Airflow 3 UI asks its task instance pages in (-start_date, then
// -run_after: ui/src/pages/TaskInstances/TaskInstances.tsx of c57fba0e),
// which get_task_instances' SortParam takes and ends with the primary
// key (routes/public/task_instances.py:441-466, common/parameters.py
// SortParam.to_orm). A task instance's start follows no order of its
// run's or of the ids (runs overlap, a cleared run starts again hours
// later), and an index entry of the task-instance rows (one row a run)
// cannot hold one, so the started task instances of each DAG's settled
// runs (success, failed) are kept sorted by (start_date, id) in chunks,
// rows of a derived table written when a run settles or goes (its
// task instances in one go), when it stops being settled (a clear, a
// forced state), and when a settled run's task instance changes its
// start or id; never by a trigger or a try's start or end in a running
// run (a chunk written at each try's start cost 87 allocations a try,
// 18 % more for BenchmarkSchedulerEmptyOperators3; at the run's end, 10 a
// try, 2 %). A page walks the
// chunks in the order and looks each task instance up in its run's row,
// and merges the started task instances of the DAG's unfinished runs,
// read and sorted once per version of its task instances and runs
// (tiPendingStarts). Task instances without a start are in neither:
// SortParam puts them below every start (sortParamCompare, SQLite's
// order), so after the started ones descending and before them
// ascending; the keyed order tiKeyUnstarted holds them
// (memstore_tistateorder.go), merged into the same walk.

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	memdb "github.com/hashicorp/go-memdb"
)

// tableTIStarts is derived from the task instances: chunks of each
// DAG's started task instances by (start_date, id). Its name shares its
// leading letters with no table a trigger writes.
const tableTIStarts = "started_task_instances"

func init() {
	derivedTables[tableTIStarts] = true
}

// tiStartChunkSize is how many entries a chunk holds after a split (a
// chunk splits past twice as many): a try's start copies one chunk.
const tiStartChunkSize = 32

// tiStartEntry is a started task instance in the order: its start to
// the nanosecond (time.Compare's order), its id (the tie-break), and
// where its row keeps it.
type tiStartEntry struct {
	Sec      int64
	Nsec     int32
	MapIndex int32
	ID       string
	RunID    string
	TaskID   string
}

// tiStartOf is a task instance's entry; false when it has no start or
// no id (an edition before 3: no place in the order).
func tiStartOf(ti *TaskInstance) (tiStartEntry, bool) {
	if ti.StartDate == nil || ti.ID == "" {
		return tiStartEntry{}, false
	}
	return tiStartEntry{Sec: ti.StartDate.Unix(), Nsec: int32(ti.StartDate.Nanosecond()), MapIndex: int32(ti.MapIndex),
		ID: ti.ID, RunID: ti.RunID, TaskID: ti.TaskID}, true
}

// compareTIStarts is the chunks' order: the start, then the id.
func compareTIStarts(a, b tiStartEntry) int {
	return cmp.Or(cmp.Compare(a.Sec, b.Sec), cmp.Compare(a.Nsec, b.Nsec), strings.Compare(a.ID, b.ID))
}

// sameStart reports whether two entries tie on the start.
func sameStart(a, b tiStartEntry) bool { return a.Sec == b.Sec && a.Nsec == b.Nsec }

// tiStartChunk is some of a DAG's started task instances in the order,
// at least one, keyed by the first.
type tiStartChunk struct {
	DagID   string
	Entries []tiStartEntry
}

// tiStartsTable holds the chunks by (dag_id, first entry).
func tiStartsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIStarts,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: tiStartChunkIndex{}},
		},
	}
}

// tiStartChunkIndex keys a chunk as dag_id NUL and its first entry,
// whose bytes sort as compareTIStarts (the ids are uuid7s of one length).
// FromArgs takes a dag_id and an entry (where LowerBound and
// ReverseLowerBound seek), or a dag_id alone (a DAG's chunks, also
// PrefixFromArgs).
type tiStartChunkIndex struct{}

func tiStartKey(dagID string, e *tiStartEntry) []byte {
	return appendTIStartKey(make([]byte, 0, len(dagID)+14+36), dagID, e)
}

// appendTIStartKey appends tiStartKey's bytes to k (the keyed chunks'
// after their order's byte).
func appendTIStartKey(k []byte, dagID string, e *tiStartEntry) []byte {
	k = append(append(k, dagID...), 0)
	if e == nil {
		return k
	}
	k = append(k, encodeInt64(e.Sec)...)
	k = binary.BigEndian.AppendUint32(k, uint32(e.Nsec))
	return append(k, e.ID...)
}

func (tiStartChunkIndex) FromObject(obj any) (bool, []byte, error) {
	c, ok := obj.(*tiStartChunk)
	if !ok {
		return false, nil, fmt.Errorf("task instance start index: want *tiStartChunk, got %T", obj)
	}
	if c.DagID == "" || len(c.Entries) == 0 {
		return false, nil, fmt.Errorf("task instance start index: chunk of %q with %d entries", c.DagID, len(c.Entries))
	}
	return true, tiStartKey(c.DagID, &c.Entries[0]), nil
}

func (tiStartChunkIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("task instance start index: want (dag_id[, entry]), got %d arguments", len(args))
	}
	dagID, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("task instance start index: dag_id must be a string: %#v", args[0])
	}
	if len(args) == 1 {
		return tiStartKey(dagID, nil), nil
	}
	e, ok := args[1].(tiStartEntry)
	if !ok {
		return nil, fmt.Errorf("task instance start index: want a tiStartEntry: %#v", args[1])
	}
	return tiStartKey(dagID, &e), nil
}

func (x tiStartChunkIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// tiStartChunkTxn is the chunk of the DAG that holds e, or would: the
// last that starts at e or before it, else the DAG's first; nil when the
// DAG has none.
func tiStartChunkTxn(txn *memdb.Txn, dagID string, e tiStartEntry) (*tiStartChunk, error) {
	it, err := txn.ReverseLowerBound(tableTIStarts, indexID, dagID, e)
	if err != nil {
		return nil, fmt.Errorf("find the start chunk of task %s of %s/%s: %w", e.TaskID, dagID, e.RunID, err)
	}
	if raw := it.Next(); raw != nil && raw.(*tiStartChunk).DagID == dagID {
		return raw.(*tiStartChunk), nil
	}
	raw, err := txn.First(tableTIStarts, indexID+"_prefix", dagID)
	if err != nil {
		return nil, fmt.Errorf("find the start chunks of %s: %w", dagID, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*tiStartChunk), nil
}

// nextTIStartChunkTxn is the first entry of the DAG's chunk after c;
// false when c is its last.
func nextTIStartChunkTxn(txn *memdb.Txn, c *tiStartChunk) (tiStartEntry, bool, error) {
	it, err := txn.LowerBound(tableTIStarts, indexID, c.DagID, c.Entries[0])
	if err != nil {
		return tiStartEntry{}, false, fmt.Errorf("find the start chunks of %s: %w", c.DagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n := raw.(*tiStartChunk)
		if n.DagID != c.DagID {
			break
		}
		if n.Entries[0] != c.Entries[0] {
			return n.Entries[0], true, nil
		}
	}
	return tiStartEntry{}, false, nil
}

// restartTIsTxn keeps the chunks after a run's task instances changed
// from old to new (either nil; both sorted as runTasks keeps them) when
// the run is settled: an entry leaves with a task instance whose start
// or id changed, or that went, and comes with its new one. Task
// instances the write did not change are the same pointers and cost a
// comparison; the run (nil: not known) is looked up only when a start
// or id changed.
func restartTIsTxn(txn *memdb.Txn, dagID, runID string, run *DagRun, old, new []*TaskInstance) error {
	var drops, adds []tiStartEntry
	keyed := false // a keyed order's key or an id changed (memstore_tistateorder.go)
	drop := func(ti *TaskInstance) {
		keyed = keyed || ti.ID != ""
		if e, ok := tiStartOf(ti); ok {
			drops = append(drops, e)
		}
	}
	add := func(ti *TaskInstance) {
		keyed = keyed || ti.ID != ""
		if e, ok := tiStartOf(ti); ok {
			adds = append(adds, e)
		}
	}
	diffTIRows(old, new, drop, add, func(a, b *TaskInstance) {
		ea, oka := tiStartOf(a)
		eb, okb := tiStartOf(b)
		if oka != okb || ea != eb {
			drop(a)
			add(b)
		} else if !keyed && b.ID != "" && tiKeysDiffer(a, b) {
			keyed = true
		}
	})
	if len(drops) == 0 && len(adds) == 0 && !keyed {
		return nil
	}
	if run == nil {
		var err error
		run, err = runByRunIDTxn(txn, dagID, runID)
		if errors.Is(err, errNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	if !runSettled(run) {
		return nil
	}
	if keyed {
		if err := rekeyTIsTxn(txn, dagID, runID, old, new); err != nil {
			return err
		}
	}
	return changeTIStartsTxn(txn, dagID, drops, adds)
}

// settleTIStartsTxn keeps the chunks after a run changed from old to
// next (either nil; markRunTxn's arguments): its started task instances
// come in when it settles and leave when it stops being settled or goes
// (its row of task instances as the transaction has it then).
func settleTIStartsTxn(txn *memdb.Txn, old, next *DagRun) error {
	if runSettled(old) == runSettled(next) {
		return nil
	}
	run := next
	if run == nil {
		run = old
	}
	row, err := runTasksTxn(txn, run.DagID, run.RunID)
	if err != nil {
		return err
	}
	if row == nil {
		// A tail's run leaves it even without task instances.
		return settleKeyedTIsTxn(txn, run.DagID, run.RunID, nil, runSettled(next))
	}
	entries := make([]tiStartEntry, 0, len(row.TIs))
	for _, ti := range row.TIs {
		if e, ok := tiStartOf(ti); ok {
			entries = append(entries, e)
		}
	}
	if err := settleKeyedTIsTxn(txn, run.DagID, run.RunID, row.TIs, runSettled(next)); err != nil {
		return err
	}
	if runSettled(next) {
		return changeTIStartsTxn(txn, run.DagID, nil, entries)
	}
	return changeTIStartsTxn(txn, run.DagID, entries, nil)
}

// changeTIStartsTxn takes drops from the DAG's start chunks and puts
// adds in (changeTIChunksTxn).
func changeTIStartsTxn(txn *memdb.Txn, dagID string, drops, adds []tiStartEntry) error {
	return changeTIChunksTxn[*tiStartChunk, tiStartEntry](txn, startChunks{}, dagID, drops, adds)
}

// startChunks is tiChunkTable for the start chunks.
type startChunks struct{}

func (startChunks) chunkAt(txn *memdb.Txn, dagID string, e tiStartEntry) (*tiStartChunk, []tiStartEntry, error) {
	c, err := tiStartChunkTxn(txn, dagID, e)
	if err != nil || c == nil {
		return nil, nil, err
	}
	return c, c.Entries, nil
}

func (startChunks) nextFirst(txn *memdb.Txn, c *tiStartChunk) (tiStartEntry, bool, error) {
	return nextTIStartChunkTxn(txn, c)
}

func (startChunks) replace(txn *memdb.Txn, old *tiStartChunk, dagID string, entries []tiStartEntry) error {
	return replaceTIStartChunkTxn(txn, old, dagID, entries)
}

func (startChunks) compare(a, b tiStartEntry) int { return compareTIStarts(a, b) }
func (startChunks) same(a, b tiStartEntry) bool   { return a == b }
func (startChunks) where(e tiStartEntry) (taskID, runID string) {
	return e.TaskID, e.RunID
}

// countWhile is how many of the first entries pass ok.
func countWhile[E any](entries []E, ok func(E) bool) int {
	n := 0
	for n < len(entries) && ok(entries[n]) {
		n++
	}
	return n
}

// mergeTIChunk is entries without drops and with adds (all three sorted
// as t compares), in a new slice; a drop not there or an add already
// there is an error (the chunks no longer follow the task instances).
// Drops go first: an expansion's map_index 0 keeps the id and start its
// map_index -1 had. Each drop and add finds its place by a binary search
// and the entries between are copied at once: a keyed chunk's compare
// computes both entries (1.3 s of the 8.4 s BenchmarkMemoryTaskInstances3
// took at 20,000 runs in merges compared entry by entry).
func mergeTIChunk[C, E any](t tiChunkTable[C, E], entries, drops, adds []E) ([]E, error) {
	out := make([]E, 0, len(entries)-len(drops)+len(adds))
	for len(drops) > 0 || len(adds) > 0 {
		if len(drops) > 0 && (len(adds) == 0 || t.compare(drops[0], adds[0]) <= 0) {
			i, found := slices.BinarySearchFunc(entries, drops[0], t.compare)
			if !found || !t.same(entries[i], drops[0]) {
				task, run := t.where(drops[0])
				return nil, fmt.Errorf("task %s of %s is not there", task, run)
			}
			out = append(out, entries[:i]...)
			entries, drops = entries[i+1:], drops[1:]
			continue
		}
		i, found := slices.BinarySearchFunc(entries, adds[0], t.compare)
		if found {
			task, run := t.where(adds[0])
			return nil, fmt.Errorf("task %s of %s is there already", task, run)
		}
		out = append(append(out, entries[:i]...), adds[0])
		entries, adds = entries[i:], adds[1:]
	}
	return append(out, entries...), nil
}

// replaceTIStartChunkTxn stores entries in old's place (old nil: a new
// chunk; entries empty: none), in chunks of tiStartChunkSize when they
// are more than twice as many.
func replaceTIStartChunkTxn(txn *memdb.Txn, old *tiStartChunk, dagID string, entries []tiStartEntry) error {
	if old != nil && (len(entries) == 0 || entries[0] != old.Entries[0]) {
		if err := txn.Delete(tableTIStarts, old); err != nil {
			return fmt.Errorf("replace a start chunk of %s: %w", dagID, err)
		}
	}
	for len(entries) > 0 {
		n := len(entries)
		if n > 2*tiStartChunkSize {
			n = tiStartChunkSize
		}
		if err := txn.Insert(tableTIStarts, &tiStartChunk{DagID: dagID, Entries: entries[:n:n]}); err != nil {
			return fmt.Errorf("store a start chunk of %s: %w", dagID, err)
		}
		entries = entries[n:]
	}
	return nil
}

// deleteTIStartsTxn removes a DAG's chunks ("": every DAG's).
func deleteTIStartsTxn(txn *memdb.Txn, dagID string) error {
	var err error
	if dagID == "" {
		_, err = txn.DeleteAll(tableTIStarts, indexID)
	} else {
		_, err = txn.DeleteAll(tableTIStarts, indexID+"_prefix", dagID)
	}
	if err != nil {
		return fmt.Errorf("delete the start chunks of %q: %w", dagID, err)
	}
	return deleteKeyedTIsTxn(txn, dagID)
}

// restartAllTIsTxn sets every start chunk and keyed chunk anew from the
// settled runs' task instances (a restore, a recount): one walk of the
// rows, which come by DAG, each run looked up once for both.
func restartAllTIsTxn(txn *memdb.Txn) error {
	if err := deleteTIStartsTxn(txn, ""); err != nil { // the keyed chunks too
		return err
	}
	it, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return fmt.Errorf("order task instances by start and key: %w", err)
	}
	dagID := ""
	var starts []tiStartEntry
	var keyed tiKeyedEntries
	flush := func() error {
		slices.SortFunc(starts, compareTIStarts)
		for len(starts) > 0 {
			n := min(len(starts), tiStartChunkSize)
			if err := txn.Insert(tableTIStarts, &tiStartChunk{DagID: dagID, Entries: starts[:n:n]}); err != nil {
				return fmt.Errorf("store a start chunk of %s: %w", dagID, err)
			}
			starts = starts[n:]
		}
		starts = nil
		return keyed.storeTxn(txn, dagID)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		row := raw.(*runTasks)
		if row.DagID != dagID {
			if err := flush(); err != nil {
				return err
			}
			dagID = row.DagID
		}
		run, err := runByRunIDTxn(txn, row.DagID, row.RunID)
		if errors.Is(err, errNotFound) || (err == nil && !runSettled(run)) {
			continue
		}
		if err != nil {
			return err
		}
		for _, ti := range row.TIs {
			if e, ok := tiStartOf(ti); ok {
				starts = append(starts, e)
			}
		}
		keyed.take(row)
	}
	return flush()
}

// TIStartQuery is a page of task instances whose order's first key is
// start_date.
type TIStartQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// Desc is start_date's direction.
	Desc bool
	// Compare is the listing's whole order (start_date first, nulls
	// last as it descends, then its other keys and the id); the task instances that
	// start together are put in it.
	Compare func(a, b RunTaskInstance) int
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it, for the count of what it picks.
	Keep    func(RunTaskInstance) bool
	KeepKey string
	// Named, when set with Keep, says whether a task instance of a task
	// and map_index can pass Keep (its task_id and map_index filters):
	// the entries hold both, and those it refuses are not looked up.
	Named func(taskID string, mapIndex int) bool
	// KeyOnly says the order is its first key alone (then the id, as
	// SortParam adds it): the walk's own order, no tie to sort.
	KeyOnly bool
	// NotNull says Keep picks none whose key is NULL (a group's part
	// with a value of the next key, TIGroup.NotNull): the walks start
	// past the NULL key's entries (the first ascending) rather than read
	// them to drop them.
	NotNull       bool
	Offset, Limit int
}

// errNotStarted stops a walk that met an entry its task instance no
// longer has: the caller sorts.
var errNotStarted = errors.New("page past the started task instances")

// TIStartPage is a page of the task instances q picks in q.Compare's
// order, led by start_date, and how many it picks; ok is false when the
// store cannot walk it (walkTIPage): the caller sorts. Each DAG's chunks
// are walked in the order and the walks merged with the DAG's unfinished
// runs' started task instances (pendingStartsTxn) and with the task
// instances without a start (tiKeyUnstarted); the task instances that
// start at one instant are looked up together and put in q.Compare's
// order, so a page reads the chunks up to its end and the task instances
// of its instants (without a filter, the offset passes the others
// unread).
// The total is the run counts' without a filter, else counted once per
// version of the task-instance rows and filter.
func (s *Store) TIStartPage(q TIStartQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	return s.walkedTIPage(q.DagIDs, q.Keep, q.KeepKey, q.Offset, q.Limit, s.TIStartWalk(q))
}

// TIStartWalk is TIStartPage's walk (q's DagIDs and Limit aside): a
// group's of a page led by another key (TIGroupPage).
func (s *Store) TIStartWalk(q TIStartQuery) TIWalk {
	return s.walkTIPage(q, tiStartOrUnstarted, func(m *tiStartMerge, dagID string) error {
		if err := m.add(dagID); err != nil {
			return err
		}
		pending, err := s.pendingStartsTxn(m.txn, dagID, m.read)
		if err != nil {
			return err
		}
		if len(pending) > 0 {
			m.walks = append(m.walks, &tiStartWalk{dagID: dagID, pending: pending})
		}
		// The task instances without a start (the NULL key, below
		// every start: sortParamCompare) are the keyed chunks' and
		// pending entries' of tiKeyUnstarted.
		if m.notNull {
			return nil
		}
		return m.addKeyed(s, tiKeyUnstarted, dagID)
	})
}

// walkTIPage is the walk of q's page from a merge of the walks addDAG
// starts for each DAG, in the order entryOf gives the task instances
// (TIStartWalk, TIKeyWalk); it is not ok when the store cannot walk
// it: task instances without ids, runs in a state neither settled nor
// unfinished (in no walk), an entry its task instance no longer has.
func (s *Store) walkTIPage(q TIStartQuery, entryOf func(*TaskInstance) (tiStartEntry, bool), addDAG func(m *tiStartMerge, dagID string) error) TIWalk {
	return func(txn *memdb.Txn, dagIDs []string, limit int, read *int) ([]RunTaskInstance, bool, error) {
		m := &tiStartMerge{txn: txn, desc: q.Desc, notNull: q.NotNull, read: read, entryOf: entryOf}
		for _, dagID := range dagIDs {
			if runCountTxn(txn, dagID).States[len(runStates)] > 0 {
				return nil, false, nil // runs in a state neither settled nor queued or running
			}
			if err := addDAG(m, dagID); err != nil {
				return nil, false, err
			}
		}
		heap.Init(m)
		return m.walkPage(q, limit)
	}
}

// TIWalk walks a page of task instances of dagIDs (its query's order,
// filter and offset), at most limit of them, in the read txn, counting
// the rows it reads in read; not ok when the store cannot walk it (the
// caller sorts). A page function calls it after its total (walkedTIPage),
// or a group's page for the group's part (TIGroupPage).
type TIWalk func(txn *memdb.Txn, dagIDs []string, limit int, read *int) ([]RunTaskInstance, bool, error)

// walkedTIPage is a walked page of task instances of dagIDs: in one read
// of the store, the total (the run counts' without keep, else what keep
// picks, counted once per version of the rows: filteredTITotal), and
// walk's page of at most limit (what the offset leaves of the total)
// when the offset is before the total; the rows both read are reported
// once. ok is false when tiOrderTotal or walk cannot walk it (the caller
// sorts).
func (s *Store) walkedTIPage(dagIDs []string, keep func(RunTaskInstance) bool, keepKey string, offset, limit int, walk TIWalk) (page []RunTaskInstance, total int, ok bool, err error) {
	return s.countedTIPage(dagIDs, offset, limit, func(txn *memdb.Txn, ids []string, all int, read *int) (int, error) {
		if keep == nil {
			return all, nil
		}
		return s.filteredTITotal(txn, ids, keep, keepKey, read)
	}, walk)
}

// countedTIPage is walkedTIPage with the total count gives from the
// scope's DAGs (tiOrderTotal's, sorted) and how many task instances they
// have (all).
func (s *Store) countedTIPage(dagIDs []string, offset, limit int, count func(txn *memdb.Txn, ids []string, all int, read *int) (int, error),
	walk TIWalk) (page []RunTaskInstance, total int, ok bool, err error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	all, ids, ok, err := tiOrderTotal(txn, dagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if total, err = count(txn, ids, all, &read); err != nil {
		return nil, 0, false, err
	}
	if offset >= total || limit <= 0 {
		return []RunTaskInstance{}, total, true, nil
	}
	page, ok, err = walk(txn, ids, min(limit, total-offset), &read)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if page == nil {
		page = []RunTaskInstance{} // an empty page answers [], not null
	}
	return page, total, true, nil
}

// walkPage is the page of q the merge's walks give, limit long: the
// entries of one key (all of one instant) looked up together and put in
// q.Compare's order (each alone when q.KeyOnly), the offset passing the
// others unread when q has no filter; ok is false when an entry is not
// as its task instance says (the caller sorts).
func (m *tiStartMerge) walkPage(q TIStartQuery, limit int) (page []RunTaskInstance, ok bool, err error) {
	page = []RunTaskInstance{}
	offset := q.Offset
	for len(page) < limit {
		group := m.nextGroup(q.KeyOnly)
		if len(group) == 0 {
			return nil, false, nil // fewer than the total: the rows changed under the count
		}
		if q.Keep == nil && offset >= len(group) {
			offset -= len(group) // passed without a look
			continue
		}
		if q.Keep != nil && q.Named != nil {
			group = slices.DeleteFunc(group, func(ref tiStartRef) bool { return !q.Named(ref.e.TaskID, int(ref.e.MapIndex)) })
		}
		rows, err := m.resolve(group)
		if errors.Is(err, errNotStarted) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if q.Keep != nil {
			rows = slices.DeleteFunc(rows, func(r RunTaskInstance) bool { return !q.Keep(r) })
		}
		if len(rows) > 1 {
			slices.SortFunc(rows, q.Compare)
		}
		for _, r := range rows {
			switch {
			case offset > 0:
				offset--
			case len(page) < limit:
				page = append(page, r)
			}
		}
	}
	return page, true, nil
}

// filteredTITotal is how many task instances of dagIDs keep picks
// (countKey names keep), whatever the order: the sum of each DAG's count,
// made by a walk of its part of ti_order once per version of its
// task-instance rows and remembered (Store.tiFilteredOfDAG), so that the
// first page after a write of one DAG's task instances counts that DAG's
// again, not every DAG's; the sum is remembered per version of the
// task-instance rows (one lookup while no DAG's changed).
func (s *Store) filteredTITotal(txn *memdb.Txn, dagIDs []string, keep func(RunTaskInstance) bool, countKey string, read *int) (int, error) {
	root, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return 0, fmt.Errorf("count task instances: %w", err)
	}
	return s.counts.count(root.WatchCh(), tiCountKey(dagIDs, countKey), func() (int, error) {
		total := 0
		for _, dagID := range dagIDs {
			n, err := ofDAGTxn(txn, &s.tiFilteredOfDAG, dagID, countKey, func() (int, error) {
				return walkTIsOfDAG(txn, dagID, keep, read)
			})
			if err != nil {
				return 0, err
			}
			total += n
		}
		return total, nil
	})
}

// tiStartMerge merges the DAGs' walks of their chunks and of their
// unfinished runs' started task instances: a heap of the walks by their
// next entry.
type tiStartMerge struct {
	txn  *memdb.Txn
	desc bool
	// notNull says the walks leave out the entries of the NULL key
	// (TIStartQuery.NotNull).
	notNull bool
	walks   []*tiStartWalk
	read    *int
	// entryOf is a task instance's entry in the walks' order, which
	// resolve checks the walks' entries by.
	entryOf func(*TaskInstance) (tiStartEntry, bool)
	// runs are the runs looked up so far and their task instances (a
	// page's task instances come a few runs at a time, interleaved).
	runs map[[2]string]tiStartRun
}

type tiStartRun struct {
	run *DagRun
	row *runTasks
}

// tiStartWalk is one DAG's chunks in the order, the chunk it is at and
// the next entry in it; or the started task instances of its unfinished
// runs (pending), in the order, and the next one.
type tiStartWalk struct {
	dagID   string
	it      memdb.ResultIterator
	entries []tiStartEntry
	pending []tiPendingStart
	at      int
	// tis are a keyed chunk's task instances (it walks an order's chunks,
	// keyedChunkIter), whose entries are their keys in order.
	tis   []*TaskInstance
	order tiKeyOrder
	// head is the entry of tis[headAt] when headSet: the heap compares a
	// walk's head a few times before it moves.
	head    tiStartEntry
	headAt  int
	headSet bool
}

// add starts a walk of a DAG's chunks (none: no walk).
func (m *tiStartMerge) add(dagID string) error {
	var it memdb.ResultIterator
	var err error
	if m.desc {
		top := tiStartEntry{Sec: 1<<63 - 1, Nsec: 1<<31 - 1, ID: "\xff"}
		it, err = m.txn.ReverseLowerBound(tableTIStarts, indexID, dagID, top)
	} else {
		it, err = m.txn.Get(tableTIStarts, indexID+"_prefix", dagID)
	}
	if err != nil {
		return fmt.Errorf("list task instances of %s by start: %w", dagID, err)
	}
	w := &tiStartWalk{dagID: dagID, it: it}
	if m.fill(w) {
		m.walks = append(m.walks, w)
	}
	return nil
}

// fill moves w to its next chunk when it has passed its entries; false
// at its end.
func (m *tiStartMerge) fill(w *tiStartWalk) bool {
	if w.pending != nil {
		return w.at < len(w.pending)
	}
	if w.at < len(w.entries) || w.at < len(w.tis) {
		return true
	}
	w.entries, w.tis = nil, nil
	switch c := w.it.Next().(type) {
	case *tiStartChunk:
		if c.DagID != w.dagID {
			return false
		}
		w.entries = c.Entries
	case *tiKeyChunk:
		if c.DagID != w.dagID {
			return false
		}
		w.tis, w.headSet = c.TIs, false
	default:
		return false
	}
	*m.read++
	w.at = 0
	return true
}

// head is w's next entry, and its task instance when w has it already.
func (m *tiStartMerge) head(w *tiStartWalk) (tiStartEntry, *RunTaskInstance) {
	if w.pending != nil {
		i := w.at
		if m.desc {
			i = len(w.pending) - 1 - w.at
		}
		return w.pending[i].e, &w.pending[i].r
	}
	if w.tis != nil {
		i := w.at
		if m.desc {
			i = len(w.tis) - 1 - w.at
		}
		if !w.headSet || w.headAt != i {
			w.head, _ = tiKeyOf(w.order, w.tis[i])
			w.headAt, w.headSet = i, true
		}
		return w.head, nil
	}
	if m.desc {
		return w.entries[len(w.entries)-1-w.at], nil
	}
	return w.entries[w.at], nil
}

// tiStartRef is an entry of a DAG's chunks, or one of its unfinished
// runs' started task instances (r).
type tiStartRef struct {
	dagID string
	e     tiStartEntry
	r     *RunTaskInstance
}

// nextGroup takes the entries of every walk that start at the merge's
// next instant (the next entry alone when one is asked; none at the end
// of the walks).
func (m *tiStartMerge) nextGroup(one bool) []tiStartRef {
	if len(m.walks) == 0 {
		return nil
	}
	first, _ := m.head(m.walks[0])
	var group []tiStartRef
	for len(m.walks) > 0 {
		w := m.walks[0]
		e, r := m.head(w)
		if !sameStart(e, first) {
			break
		}
		group = append(group, tiStartRef{w.dagID, e, r})
		w.at++
		if m.fill(w) {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
		if one {
			break
		}
	}
	return group
}

// resolve looks the group's task instances up in their runs' rows;
// errNotStarted when one is not as its entry says.
func (m *tiStartMerge) resolve(group []tiStartRef) ([]RunTaskInstance, error) {
	rows := make([]RunTaskInstance, 0, len(group))
	for _, ref := range group {
		if ref.r != nil {
			*m.read++
			rows = append(rows, *ref.r)
			continue
		}
		dagID, e := ref.dagID, ref.e
		r, seen := m.runs[[2]string{dagID, e.RunID}]
		if !seen {
			run, err := runByRunIDTxn(m.txn, dagID, e.RunID)
			if errors.Is(err, errNotFound) {
				return nil, errNotStarted
			}
			if err != nil {
				return nil, err
			}
			row, err := runTasksTxn(m.txn, dagID, e.RunID)
			if err != nil {
				return nil, err
			}
			if row == nil {
				return nil, errNotStarted
			}
			r = tiStartRun{run, row}
			if m.runs == nil {
				m.runs = map[[2]string]tiStartRun{}
			}
			m.runs[[2]string{dagID, e.RunID}] = r
		}
		i, found := r.row.find(e.TaskID, int(e.MapIndex))
		if !found {
			return nil, errNotStarted
		}
		ti := r.row.TIs[i]
		if got, ok := m.entryOf(ti); !ok || got != e {
			return nil, errNotStarted
		}
		*m.read++
		rows = append(rows, RunTaskInstance{Run: r.run, TI: ti})
	}
	return rows, nil
}

func (m *tiStartMerge) Len() int { return len(m.walks) }
func (m *tiStartMerge) Less(i, j int) bool {
	a, _ := m.head(m.walks[i])
	b, _ := m.head(m.walks[j])
	c := compareTIStarts(a, b)
	if m.desc {
		return c > 0
	}
	return c < 0
}
func (m *tiStartMerge) Swap(i, j int) { m.walks[i], m.walks[j] = m.walks[j], m.walks[i] }
func (m *tiStartMerge) Push(x any)    { m.walks = append(m.walks, x.(*tiStartWalk)) }
func (m *tiStartMerge) Pop() any {
	last := m.walks[len(m.walks)-1]
	m.walks = m.walks[:len(m.walks)-1]
	return last
}

// maxPendingStartDAGs bounds the DAGs whose unfinished runs' started task
// instances are remembered: past it the memory starts again empty.
const maxPendingStartDAGs = 1024

// tiPendingMemo remembers each DAG's unfinished runs' started task
// instances, sorted, for the versions of its runs and task instances
// they were read from.
type tiPendingMemo struct {
	mu sync.Mutex
	of map[string]*tiPendingStarts
}

// tiPendingStarts is a DAG's unfinished runs' started task instances by
// (start_date, id), read under the watch channels of the DAG's runs
// (pendingRunsTxn's) and of its part of the task-instance rows, which a
// write of any of them replaces.
type tiPendingStarts struct {
	runs, tasks <-chan struct{}
	starts      []tiPendingStart
}

// tiPendingStart is a started task instance of an unfinished run, with
// its entry in the order.
type tiPendingStart struct {
	e tiStartEntry
	r RunTaskInstance
}

// pendingStartsTxn is the started task instances of the DAG's unfinished
// runs (queued, running), sorted by (start_date, id): no chunk holds
// them, as their starts change while the runs run. They are read from
// the runs' rows once per version of the DAG's runs and task instances
// (a running DAG's next page after a try's start reads them again: its
// unfinished runs' rows, not its settled ones); read counts the rows.
func (s *Store) pendingStartsTxn(txn *memdb.Txn, dagID string, read *int) ([]tiPendingStart, error) {
	return s.pendingEntriesTxn(txn, &s.tiPending, dagID, dagID, tiStartOf, nil, read)
}

// pendingEntriesTxn is the entries entryOf gives the task instances of
// the DAG's unfinished runs and of the settled runs named (a keyed
// order's tail), sorted, remembered in memo under key per version of the
// DAG's runs and task instances (pendingStartsTxn's).
func (s *Store) pendingEntriesTxn(txn *memdb.Txn, memo *tiPendingMemo, dagID, key string, entryOf func(*TaskInstance) (tiStartEntry, bool), settled []string, read *int) ([]tiPendingStart, error) {
	it, err := txn.Get(tableTasks, indexID+"_prefix", dagID, "")
	if err != nil {
		return nil, fmt.Errorf("list task instances of %s: %w", dagID, err)
	}
	tasks := it.WatchCh()
	p, err := s.pendingRunsTxn(txn, dagID, read)
	if err != nil {
		return nil, fmt.Errorf("list the unfinished runs of %s: %w", dagID, err)
	}
	memo.mu.Lock()
	got := memo.of[key]
	memo.mu.Unlock()
	if got != nil && got.runs == p.watch && got.tasks == tasks && tasks != nil && p.watch != nil {
		return got.starts, nil
	}
	var starts []tiPendingStart
	runs := p.byID()
	for _, runID := range settled {
		run, err := runByRunIDTxn(txn, dagID, runID)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		*read++
		runs = append(slices.Clip(runs), run)
	}
	for _, run := range runs {
		row, err := runTasksTxn(txn, dagID, run.RunID)
		if err != nil {
			return nil, err
		}
		if row == nil {
			continue
		}
		*read++
		for _, ti := range row.TIs {
			if e, ok := entryOf(ti); ok {
				starts = append(starts, tiPendingStart{e: e, r: RunTaskInstance{Run: run, TI: ti}})
			}
		}
	}
	slices.SortFunc(starts, func(a, b tiPendingStart) int { return compareTIStarts(a.e, b.e) })
	memo.mu.Lock()
	if memo.of == nil || len(memo.of) >= maxPendingStartDAGs {
		memo.of = map[string]*tiPendingStarts{}
	}
	memo.of[key] = &tiPendingStarts{runs: p.watch, tasks: tasks, starts: starts}
	memo.mu.Unlock()
	return starts, nil
}
