package main

// The orders Airflow 3 lists task instances in by default: get_task_instances
// by (map_index, id), get_task_instances_batch by id (the primary key;
// routes/public/task_instances.py, SortParam in common/parameters.py). A
// derived table holds one small row per task instance that has an id (edition
// 3), kept by every write of the task-instance rows, so that a page walks an
// index to the page's end instead of every run's task instances. The
// blocks of the runs a trigger made wait in their DAG's run count, then go
// to a table of groups of them (tiPendingMax), and the page walks those
// too.

import (
	"cmp"
	"container/heap"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	memdb "github.com/hashicorp/go-memdb"
)

// tableTIOrder is derived: blocks of task instances by (dag_id,
// map_index, lo).
const tableTIOrder = "ti_order"

// tiOrderRow is a block of task instances in the default orders: those
// of one run with one map_index whose ids lie in [Lo, Hi], N of them, and
// no task instance of another run of the DAG with that map_index has an
// id in between. A run's task instances get their ids in one go when the run is
// made (uuid7s, which grow), so the run's unmapped ones are one block and
// a trigger makes one row, not one per task instance (pending in the
// DAG's run count first: tiPendingMax); a new try's id,
// a mapped instance, or ids that would straddle another run's block make
// blocks of one. The range does not shrink when a member leaves (N does).
type tiOrderRow struct {
	MapIndex     int
	Lo, Hi       string
	N            int
	DagID, RunID string
}

// tiOrderTable holds the blocks by (dag_id, map_index, lo), one index
// only: each index a trigger writes costs its radix tree's transaction
// (go-memdb opens every index of a table a row goes in, keyed or not),
// so every DAG's list merges the DAGs' walks (a seek per DAG, as every
// DAG's runs do) rather than keep an index of its own. A block changes
// only when a task instance comes or goes or its id changes (a new try, a
// clear): a try's start and end leave it alone. Edition 3 only: before
// it, task instances have no id and no block.
func tiOrderTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIOrder,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: tiOrderIndex{byDag: true}},
		},
	}
}

// tableTIOrderMapped is derived too: the blocks of ti_order of mapped
// task instances (map_index 0 and up), the same rows, by (dag_id, lo,
// map_index). A page by id merges a DAG's mapped blocks with its unmapped
// ones as their ids come, where it walked every map_index apart (a seek
// and a block each, however many the page needs). A table of its own,
// not an index of ti_order: a trigger, whose task instances are unmapped
// (a mapped task expands when it is due), writes nothing here (an index
// of ti_order cost each v2 trigger 14 allocations, BenchmarkV2TriggerAlone).
// Its name shares no prefix with a table a trigger writes: go-memdb keeps
// the tables' trees in one radix tree by name, and a name beginning
// "ti_order" would put one more node on ti_order's path, which a
// trigger's commit copies when it writes ti_order (6 allocations).
const tableTIOrderMapped = "mapped_ti_order"

func init() {
	derivedTables[tableTIOrderMapped] = true
}

// tableTIOrderGroups is derived too: blocks of ti_order's kind that were
// pending together in a DAG's run count (tiPendingMax of them, new runs'
// blocks), one row a group, by (dag_id, the first block's lo when the
// group was made). A row of ti_order each would cost the write that moves
// them tiPendingMax inserts, and the heap a tree leaf a run; a group costs
// one. A DAG's groups hold blocks made one after another, so they follow
// one another in the order of their keys and never overlap; other blocks
// (a new try's, a split's) may lie between two blocks of a group. Its
// name shares no prefix with another table's (mapped_ti_order's reason).
const tableTIOrderGroups = "grouped_ti_order"

func init() {
	derivedTables[tableTIOrderGroups] = true
}

// tiOrderGroup is a group of blocks (tableTIOrderGroups): unmapped ones
// of one DAG, by lo, none empty. Key stays the first block's lo when the
// group was made, whichever of them leave it. Never changed once stored.
type tiOrderGroup struct {
	DagID  string
	Key    string
	Blocks []*tiOrderRow
}

func tiOrderGroupsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIOrderGroups,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: tiGroupIndex{}},
		},
	}
}

// tiGroupIndex keys a group as dag_id NUL key NUL. FromArgs takes
// (dag_id[, id]), which LowerBound and ReverseLowerBound seek to;
// PrefixFromArgs (dag_id) for a DAG's groups.
type tiGroupIndex struct{}

func (tiGroupIndex) FromObject(obj any) (bool, []byte, error) {
	g, ok := obj.(*tiOrderGroup)
	if !ok {
		return false, nil, fmt.Errorf("task-instance group index: want *tiOrderGroup, got %T", obj)
	}
	if g.DagID == "" || g.Key == "" {
		return false, nil, fmt.Errorf("task-instance group index: group %q of %q has no key", g.Key, g.DagID)
	}
	k := make([]byte, 0, len(g.DagID)+len(g.Key)+2)
	return true, append(append(append(append(k, g.DagID...), 0), g.Key...), 0), nil
}

func (tiGroupIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("task-instance group index: want (dag_id[, id]), got %d arguments", len(args))
	}
	var k []byte
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return nil, fmt.Errorf("task-instance group index: want strings, got %T", a)
		}
		k = append(append(k, s...), 0)
	}
	return k, nil
}

func (x tiGroupIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// groupFromTxn is the group of a DAG whose key is the last at id or
// before it, or nil: the only group that may hold a block starting at id.
func groupFromTxn(txn *memdb.Txn, dagID, id string) (*tiOrderGroup, error) {
	it, err := txn.ReverseLowerBound(tableTIOrderGroups, indexID, dagID, id)
	if err != nil {
		return nil, fmt.Errorf("find task-instance group: %w", err)
	}
	if raw := it.Next(); raw != nil {
		if g := raw.(*tiOrderGroup); g.DagID == dagID {
			return g, nil
		}
	}
	return nil, nil
}

// groupedBlockFromTxn is the last block of a DAG's groups that starts at
// id or before it, or nil. The group found by its key may have lost the
// blocks before id: then it is the one before's last.
func groupedBlockFromTxn(txn *memdb.Txn, dagID, id string) (*tiOrderRow, error) {
	it, err := txn.ReverseLowerBound(tableTIOrderGroups, indexID, dagID, id)
	if err != nil {
		return nil, fmt.Errorf("find task-instance group: %w", err)
	}
	for range 2 {
		raw := it.Next()
		if raw == nil || raw.(*tiOrderGroup).DagID != dagID {
			break
		}
		blocks := raw.(*tiOrderGroup).Blocks
		i, found := blockIndex(blocks, id)
		if found {
			i++
		}
		if i > 0 {
			return blocks[i-1], nil
		}
	}
	return nil, nil
}

// regroupTxn puts next (nil: nothing) in the place of b in its group,
// and says whether b was in one.
func regroupTxn(txn *memdb.Txn, b, next *tiOrderRow) (bool, error) {
	g, err := groupFromTxn(txn, b.DagID, b.Lo)
	if g == nil || err != nil {
		return false, err
	}
	i, found := blockIndex(g.Blocks, b.Lo)
	if !found || g.Blocks[i].RunID != b.RunID {
		return false, nil
	}
	ng := *g
	ng.Blocks = slices.Clone(g.Blocks)
	if next != nil {
		ng.Blocks[i] = next
	} else if ng.Blocks = slices.Delete(ng.Blocks, i, i+1); len(ng.Blocks) == 0 {
		if err := txn.Delete(tableTIOrderGroups, g); err != nil {
			return false, fmt.Errorf("unorder task instances of %s/%s: %w", b.DagID, b.RunID, err)
		}
		return true, nil
	}
	if err := txn.Insert(tableTIOrderGroups, &ng); err != nil {
		return false, fmt.Errorf("order task instances of %s/%s: %w", b.DagID, b.RunID, err)
	}
	return true, nil
}

func tiOrderMappedTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableTIOrderMapped,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: tiMappedIndex{}},
		},
	}
}

// tiMappedIndex keys a block as dag_id NUL lo NUL encodeInt64(map_index).
// FromArgs takes a dag_id, where its keys start (PrefixFromArgs the
// same, for a DAG's blocks).
type tiMappedIndex struct{}

func (tiMappedIndex) FromObject(obj any) (bool, []byte, error) {
	r, ok := obj.(*tiOrderRow)
	if !ok {
		return false, nil, fmt.Errorf("mapped task-instance order index: want *tiOrderRow, got %T", obj)
	}
	if r.MapIndex < 0 || r.Lo == "" || r.DagID == "" {
		return false, nil, fmt.Errorf("mapped task-instance order index: block %s/%d/%s is not a mapped one", r.DagID, r.MapIndex, r.Lo)
	}
	k := make([]byte, 0, len(r.DagID)+len(r.Lo)+10)
	k = append(append(append(append(k, r.DagID...), 0), r.Lo...), 0)
	return true, append(k, encodeInt64(int64(r.MapIndex))...), nil
}

func (tiMappedIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("mapped task-instance order index: want a dag_id, got %d arguments", len(args))
	}
	dagID, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("mapped task-instance order index: want a string dag_id, got %T", args[0])
	}
	return append([]byte(dagID), 0), nil
}

func (x tiMappedIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// tiOrderIndex keys a block as [dag_id NUL] encodeInt64(map_index) lo NUL
// (byDag; every key ti_order has). FromArgs takes a leading part of
// ([dag_id,] map_index, id), which LowerBound and ReverseLowerBound seek
// to; PrefixFromArgs likewise, (dag_id) for a DAG's blocks.
type tiOrderIndex struct{ byDag bool }

func (x tiOrderIndex) FromObject(obj any) (bool, []byte, error) {
	r, ok := obj.(*tiOrderRow)
	if !ok {
		return false, nil, fmt.Errorf("task-instance order index: want *tiOrderRow, got %T", obj)
	}
	if r.Lo == "" || (x.byDag && r.DagID == "") {
		return false, nil, nil
	}
	k := make([]byte, 0, len(r.DagID)+len(r.Lo)+10)
	if x.byDag {
		k = append(append(k, r.DagID...), 0)
	}
	k = append(k, encodeInt64(int64(r.MapIndex))...)
	return true, append(append(k, r.Lo...), 0), nil
}

func (x tiOrderIndex) FromArgs(args ...any) ([]byte, error) {
	k := make([]byte, 0, 64) // dag_id, map_index and a uuid fit most
	if x.byDag {
		if len(args) == 0 {
			return nil, fmt.Errorf("task-instance order index: want dag_id first")
		}
		dagID, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: dag_id must be a string: %#v", args[0])
		}
		k = append(append(k, dagID...), 0)
		args = args[1:]
	}
	if len(args) > 2 {
		return nil, fmt.Errorf("task-instance order index: want ([dag_id,] map_index, id), got more")
	}
	if len(args) > 0 {
		mapIndex, ok := args[0].(int)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: map_index must be an int: %#v", args[0])
		}
		k = append(k, encodeInt64(int64(mapIndex))...)
	}
	if len(args) > 1 {
		id, ok := args[1].(string)
		if !ok {
			return nil, fmt.Errorf("task-instance order index: id must be a string: %#v", args[1])
		}
		k = append(append(k, id...), 0)
	}
	return k, nil
}

func (x tiOrderIndex) PrefixFromArgs(args ...any) ([]byte, error) { return x.FromArgs(args...) }

// blockAtTxn is the block whose range holds id among a DAG's blocks of
// map_index (of any run), or nil.
func blockAtTxn(txn *memdb.Txn, dagID string, mapIndex int, id string) (*tiOrderRow, error) {
	b, err := blockFromTxn(txn, dagID, mapIndex, id)
	if b == nil || b.Hi < id {
		return nil, err
	}
	return b, nil
}

// blockFromTxn is the last of a DAG's blocks of map_index that starts at
// id or before it, or nil: in ti_order, among the DAG's pending blocks or
// in its groups.
func blockFromTxn(txn *memdb.Txn, dagID string, mapIndex int, id string) (*tiOrderRow, error) {
	it, err := txn.ReverseLowerBound(tableTIOrder, indexID, dagID, mapIndex, id)
	if err != nil {
		return nil, fmt.Errorf("find task-instance block: %w", err)
	}
	var b *tiOrderRow
	if raw := it.Next(); raw != nil {
		if r := raw.(*tiOrderRow); r.DagID == dagID && r.MapIndex == mapIndex {
			b = r
		}
	}
	if mapIndex == -1 {
		pending := runCountTxn(txn, dagID).Pending
		i, found := blockIndex(pending, id)
		if found {
			i++
		}
		if i > 0 && (b == nil || pending[i-1].Lo > b.Lo) {
			b = pending[i-1]
		}
		g, err := groupedBlockFromTxn(txn, dagID, id)
		if err != nil {
			return nil, err
		}
		if g != nil && (b == nil || g.Lo > b.Lo) {
			b = g
		}
	}
	return b, nil
}

// tiPendingMax is how many blocks a DAG's run count holds pending
// (runCount.Pending) before they go to tableTIOrderGroups, as one group in
// one write. A new run's task instances, their ids made in one go past
// every id stored, are one block (insertRunTreeTxn); a trigger that wrote
// it to ti_order paid for one more table in its write (go-memdb's
// transaction of the table's radix tree, the commit's copy of the root's
// path to it, and their garbage: about 40,000 instructions, 6 % of a v2
// trigger, BENCHMARKS.md), where the run count is a row its write keeps
// anyway. Pending and grouped blocks are blocks like those of ti_order to
// every reader (blockFromTxn, the merge's walks, insertBlockTxn and
// deleteBlockTxn); each trigger copies the slice (8 bytes a block), and
// one in tiPendingMax writes a group.
const tiPendingMax = 16

// blockIndex is where a block starting at lo is or would go among
// blocks by lo (pending ones, a group's), and whether one starts there.
func blockIndex(blocks []*tiOrderRow, lo string) (int, bool) {
	return slices.BinarySearchFunc(blocks, lo, func(b *tiOrderRow, lo string) int { return strings.Compare(b.Lo, lo) })
}

// pendBlockTxn adds a new run's block b to the pending blocks of c, its
// DAG's run count, which the caller stores: b's ids were made in one go
// past every id stored (insertRunTreeTxn), so no block reaches into b's
// range and b comes after every pending block. When c holds tiPendingMax
// already, they go to tableTIOrderGroups first, as one group.
func pendBlockTxn(txn *memdb.Txn, c *runCount, b *tiOrderRow) error {
	pending := c.Pending
	if len(pending) >= tiPendingMax {
		if err := groupBlocksTxn(txn, pending); err != nil {
			return err
		}
		pending = nil
	}
	c.Pending = append(slices.Clip(pending), b)
	return nil
}

// groupBlocksTxn stores pending blocks of a DAG (by lo, none empty) as
// one group.
func groupBlocksTxn(txn *memdb.Txn, pending []*tiOrderRow) error {
	g := &tiOrderGroup{DagID: pending[0].DagID, Key: pending[0].Lo, Blocks: pending}
	if err := txn.Insert(tableTIOrderGroups, g); err != nil {
		return fmt.Errorf("order task instances of %s: %w", g.DagID, err)
	}
	return nil
}

// replacePendingTxn puts next (nil: nothing) in the place of b among its DAG's
// pending blocks, and says whether b was one of them.
func replacePendingTxn(txn *memdb.Txn, b, next *tiOrderRow) (bool, error) {
	c := runCountTxn(txn, b.DagID)
	i, found := blockIndex(c.Pending, b.Lo)
	if !found || c.Pending[i].RunID != b.RunID {
		return false, nil
	}
	pending := slices.Clone(c.Pending)
	if next != nil {
		pending[i] = next
	} else if pending = slices.Delete(pending, i, i+1); len(pending) == 0 {
		pending = nil
	}
	c.Pending = pending
	return true, storeRunCountTxn(txn, &c)
}

// blockMembers are the task instances of a run's row that b holds, by id.
// The row is in (task_id, map_index) order: each task's instances of b's
// map_index are found by binary searches, so a block costs a few steps per
// task rather than a look at each of the run's task instances (a mapped
// task's thousands, for a page that opens a block of one each).
func blockMembers(row *runTasks, b *tiOrderRow) []*TaskInstance {
	var out []*TaskInstance
	if row != nil {
		for tis := row.TIs; len(tis) > 0; {
			task := tis[0].TaskID
			end, _ := slices.BinarySearchFunc(tis, task, func(ti *TaskInstance, t string) int {
				if ti.TaskID > t {
					return 1
				}
				return -1 // the task's own come before the end
			})
			i, _ := slices.BinarySearchFunc(tis[:end], b.MapIndex, func(ti *TaskInstance, m int) int { return cmp.Compare(ti.MapIndex, m) })
			for ; i < end && tis[i].MapIndex == b.MapIndex; i++ {
				if ti := tis[i]; ti.ID != "" && ti.ID >= b.Lo && ti.ID <= b.Hi {
					out = append(out, ti)
				}
			}
			tis = tis[end:]
		}
	}
	slices.SortFunc(out, func(a, b *TaskInstance) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// reorderTIsTxn brings ti_order from a run's task instances old to new
// (either nil; both sorted as runTasks keeps them) and returns how many
// more task instances with an id the run has. Task instances the write
// did not change are the same pointers and cost a comparison; the new
// row must be stored already (a split reads it).
func reorderTIsTxn(txn *memdb.Txn, old, new []*TaskInstance) (int, error) {
	var dropped []*TaskInstance
	added := make([]*TaskInstance, 0, max(len(new)-len(old), 1))
	diffTIRows(old, new, func(ti *TaskInstance) { dropped = append(dropped, ti) }, func(ti *TaskInstance) { added = append(added, ti) },
		func(a, b *TaskInstance) {
			if a.ID != b.ID {
				dropped, added = append(dropped, a), append(added, b)
			}
		})
	hasNoID := func(ti *TaskInstance) bool { return ti.ID == "" }
	dropped, added = slices.DeleteFunc(dropped, hasNoID), slices.DeleteFunc(added, hasNoID)
	delta := len(added) - len(dropped)
	for _, ti := range dropped {
		if err := unorderTITxn(txn, ti); err != nil {
			return 0, err
		}
	}
	slices.SortFunc(added, func(a, b *TaskInstance) int {
		return cmp.Or(cmp.Compare(a.MapIndex, b.MapIndex), strings.Compare(a.ID, b.ID))
	})
	for len(added) > 0 {
		n := 1
		for n < len(added) && added[n].MapIndex == added[0].MapIndex {
			n++
		}
		if err := orderTIsTxn(txn, added[:n]); err != nil {
			return 0, err
		}
		added = added[n:]
	}
	return delta, nil
}

// unorderTITxn takes a task instance from its block.
func unorderTITxn(txn *memdb.Txn, ti *TaskInstance) error {
	b, err := blockAtTxn(txn, ti.DagID, ti.MapIndex, ti.ID)
	if err != nil {
		return err
	}
	if b == nil || b.DagID != ti.DagID || b.RunID != ti.RunID {
		return fmt.Errorf("unorder task %s of %s/%s: no block holds it", ti.TaskID, ti.DagID, ti.RunID)
	}
	if b.N <= 1 {
		err = deleteBlockTxn(txn, b)
	} else {
		nb := *b
		nb.N--
		err = insertBlockTxn(txn, &nb)
	}
	if err != nil {
		return fmt.Errorf("unorder task %s of %s/%s: %w", ti.TaskID, ti.DagID, ti.RunID, err)
	}
	return nil
}

// orderTIsTxn places task instances of one run and one map_index, by id:
// unmapped ones as one block when no block lies across their range, else
// one by one. Mapped ones are blocks of one each, so that a DAG's mapped
// blocks, which no map_index keeps apart, never overlap: the walk down
// by id takes them by lo as they come (memstore_tifixedorder.go). (A new
// run's, their ids made in one go, skip it: insertRunTreeTxn.)
func orderTIsTxn(txn *memdb.Txn, tis []*TaskInstance) error {
	first, last := tis[0], tis[len(tis)-1]
	if len(tis) > 1 && first.MapIndex < 0 {
		// Blocks do not overlap: the last one starting within the range
		// or before it is the only one that could reach into it.
		b, err := blockFromTxn(txn, first.DagID, first.MapIndex, last.ID)
		if err != nil {
			return err
		}
		if b == nil || b.Hi < first.ID {
			return insertBlockTxn(txn, &tiOrderRow{MapIndex: first.MapIndex, Lo: first.ID, Hi: last.ID, N: len(tis),
				DagID: first.DagID, RunID: first.RunID})
		}
	}
	for _, ti := range tis {
		if err := orderTITxn(txn, ti); err != nil {
			return err
		}
	}
	return nil
}

// orderTITxn places one task instance: in its run's block when that
// block's range holds its id, else in a block of its own, splitting
// another run's block that its id falls inside.
func orderTITxn(txn *memdb.Txn, ti *TaskInstance) error {
	b, err := blockAtTxn(txn, ti.DagID, ti.MapIndex, ti.ID)
	if err != nil {
		return err
	}
	switch {
	case b == nil:
	case b.DagID == ti.DagID && b.RunID == ti.RunID:
		nb := *b
		nb.N++
		return insertBlockTxn(txn, &nb)
	default:
		// Ids out of the order they were made in (a restore of
		// another machine's rows, a clock set back): the other run's
		// block becomes blocks of one.
		row, err := runTasksTxn(txn, b.DagID, b.RunID)
		if err != nil {
			return err
		}
		members := blockMembers(row, b)
		if len(members) != b.N {
			return fmt.Errorf("order task %s of %s/%s: block of %s/%s holds %d, not %d", ti.TaskID, ti.DagID, ti.RunID,
				b.DagID, b.RunID, len(members), b.N)
		}
		if err := deleteBlockTxn(txn, b); err != nil {
			return fmt.Errorf("split task-instance block of %s/%s: %w", b.DagID, b.RunID, err)
		}
		for _, m := range members {
			if err := insertBlockTxn(txn, &tiOrderRow{MapIndex: m.MapIndex, Lo: m.ID, Hi: m.ID, N: 1, DagID: m.DagID, RunID: m.RunID}); err != nil {
				return err
			}
		}
	}
	return insertBlockTxn(txn, &tiOrderRow{MapIndex: ti.MapIndex, Lo: ti.ID, Hi: ti.ID, N: 1, DagID: ti.DagID, RunID: ti.RunID})
}

// insertBlockTxn stores a block (or its new count), a mapped one in
// mapped_ti_order too; a pending or grouped block's new count stays where
// the block is.
func insertBlockTxn(txn *memdb.Txn, b *tiOrderRow) error {
	if b.MapIndex == -1 {
		if pending, err := replacePendingTxn(txn, b, b); pending || err != nil {
			return err
		}
		if grouped, err := regroupTxn(txn, b, b); grouped || err != nil {
			return err
		}
	}
	if err := txn.Insert(tableTIOrder, b); err != nil {
		return fmt.Errorf("order task instances of %s/%s: %w", b.DagID, b.RunID, err)
	}
	if b.MapIndex >= 0 {
		if err := txn.Insert(tableTIOrderMapped, b); err != nil {
			return fmt.Errorf("order mapped task instances of %s/%s: %w", b.DagID, b.RunID, err)
		}
	}
	return nil
}

// deleteBlockTxn removes a block, a mapped one from mapped_ti_order too,
// a pending one from its DAG's pending blocks, a grouped one from its
// group.
func deleteBlockTxn(txn *memdb.Txn, b *tiOrderRow) error {
	if b.MapIndex == -1 {
		if pending, err := replacePendingTxn(txn, b, nil); pending || err != nil {
			return err
		}
		if grouped, err := regroupTxn(txn, b, nil); grouped || err != nil {
			return err
		}
	}
	if err := txn.Delete(tableTIOrder, b); err != nil {
		return err
	}
	if b.MapIndex >= 0 {
		return txn.Delete(tableTIOrderMapped, b)
	}
	return nil
}

// deleteTIOrderTxn drops the rows of a DAG's task instances ("": every
// DAG's), pending and grouped ones too, for writes that delete them all at
// once.
func deleteTIOrderTxn(txn *memdb.Txn, dagID string) error {
	var counts []runCount
	if dagID == "" {
		it, err := txn.Get(tableRunCounts, indexID)
		if err != nil {
			return fmt.Errorf("unorder task instances: %w", err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if c := raw.(*runCount); len(c.Pending) > 0 {
				counts = append(counts, *c)
			}
		}
	} else if c := runCountTxn(txn, dagID); len(c.Pending) > 0 {
		counts = append(counts, c)
	}
	for _, c := range counts {
		c.Pending = nil
		if err := storeRunCountTxn(txn, &c); err != nil {
			return err
		}
	}
	if err := deleteTIStartsTxn(txn, dagID); err != nil {
		return err
	}
	for _, table := range []string{tableTIOrder, tableTIOrderMapped, tableTIOrderGroups} {
		var err error
		if dagID == "" {
			_, err = txn.DeleteAll(table, indexID)
		} else {
			_, err = txn.DeleteAll(table, indexID+"_prefix", dagID)
		}
		if err != nil {
			return fmt.Errorf("unorder task instances of %q: %w", dagID, err)
		}
	}
	return nil
}

// TaskInstanceOrderPage is a page of the task instances of dagIDs (nil:
// of every DAG the store has a row for), ordered by (map_index, id), or
// by id alone when byID, and how many there are. The total comes from the
// run counts; the page merges walks of ti_order (one per DAG; by id two
// per DAG, of its unmapped blocks and of its mapped ones by lo, each
// mapped block opened as a walk of its own when the merge reaches it),
// and of the DAGs' pending blocks, to the page's end,
// passing whole blocks for the offset where no other walk reaches into
// them, and reads the run rows of the blocks it takes task instances
// from. ok is false when a task instance of those DAGs has no id (a store
// restored from an edition before 3): it has no place in the index.
func (s *Store) TaskInstanceOrderPage(dagIDs []string, byID bool, offset, limit int) ([]RunTaskInstance, int, bool, error) {
	txn := s.read()
	m := &tiOrderMerge{txn: txn, byID: byID}
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(m.read)
		}
	}()
	total, dagIDs, ok, err := tiOrderTotal(txn, dagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if offset >= total || limit == 0 {
		return []RunTaskInstance{}, total, true, nil
	}
	if err := m.start(dagIDs); err != nil {
		return nil, 0, false, err
	}
	page, _, err := m.page(offset, limit, nil, false)
	if err != nil {
		return nil, 0, false, err
	}
	return page, total, true, nil
}

// TaskInstanceFilteredPage is TaskInstanceOrderPage over the task
// instances keep picks: the merge reads every task instance up to the
// page's last (no block is passed whole: the filter must see each), and
// the total is counted by a merge of them all once per version of the
// task-instance rows and filter (countKey names keep), then remembered.
func (s *Store) TaskInstanceFilteredPage(dagIDs []string, byID bool, offset, limit int, keep func(RunTaskInstance) bool, countKey string) ([]RunTaskInstance, int, bool, error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	_, ids, ok, err := tiOrderTotal(txn, dagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	total, err := s.filteredTITotal(txn, ids, keep, countKey, &read)
	if err != nil {
		return nil, 0, false, err
	}
	if offset >= total || limit == 0 {
		return []RunTaskInstance{}, total, true, nil
	}
	m := &tiOrderMerge{txn: txn, byID: byID}
	defer func() { read += m.read }()
	if err := m.start(ids); err != nil {
		return nil, 0, false, err
	}
	page, _, err := m.page(offset, min(limit, total-offset), keep, false)
	if err != nil {
		return nil, 0, false, err
	}
	return page, total, true, nil
}

// tiCountKey names the count of what a filter (countKey) picks among the
// task instances of dagIDs, whatever the order it is listed in.
func tiCountKey(dagIDs []string, countKey string) string {
	h := fnv.New64a()
	for _, id := range dagIDs {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("task instances of %x (%d DAGs) %s", h.Sum64(), len(dagIDs), countKey)
}

// start opens the merge's walks over dagIDs' blocks (one per DAG; by id
// two per DAG: addMapIndexWalks), and one of each DAG's pending blocks
// that has some.
func (m *tiOrderMerge) start(dagIDs []string) error {
	var err error
	if m.byID {
		err = m.addMapIndexWalks(dagIDs)
	} else {
		for _, dagID := range dagIDs {
			if err = m.add(m.txn.Get(tableTIOrder, indexID+"_prefix", dagID)); err != nil {
				break
			}
		}
	}
	for _, dagID := range dagIDs {
		if err != nil {
			break
		}
		if pending := blockList(runCountTxn(m.txn, dagID).Pending); len(pending) > 0 {
			if err = m.add(&pending, nil); err != nil {
				break
			}
		}
		it, gerr := m.txn.Get(tableTIOrderGroups, indexID+"_prefix", dagID)
		err = m.add(&groupedBlocks{it: it}, gerr)
	}
	heap.Init(m)
	if err != nil {
		return fmt.Errorf("list task instances: %w", err)
	}
	return nil
}

// page merges the walks to the page's end: the task instances keep picks
// (nil: every one) after the first offset of them, at most limit; with
// count it merges on to the end, to count every one keep picks. Without
// keep (or for a block m.passWhole names), a block wholly before the other walks' next task instances is
// passed for the offset by its count. It says how many task instances it
// picked.
func (m *tiOrderMerge) page(offset, limit int, keep func(RunTaskInstance) bool, count bool) ([]RunTaskInstance, int, error) {
	page := []RunTaskInstance{}
	picked := 0
	var err error
	for err == nil && (count || len(page) < limit) && len(m.walks) > 0 {
		w := m.walks[0]
		switch {
		case w.feeder:
			// A mapped block starts before every other walk's next task
			// instance: it joins the merge as a walk of its own, and the
			// feeder moves on to the next mapped block. (The feeder never
			// passes a block whole: its next block may start inside it.)
			b := w.block
			m.nextBlock(w)
			if w.block == nil {
				heap.Pop(m)
			} else {
				heap.Fix(m, 0)
			}
			heap.Push(m, &tiOrderWalk{it: noRows{}, block: b})
			continue
		case (keep == nil || m.passWhole != nil && m.passWhole(w.block)) && w.members == nil && offset >= w.block.N && m.passes(w):
			offset -= w.block.N
			picked += w.block.N
			m.nextBlock(w)
		case w.members == nil:
			// Its first member may come after its block's lo.
			err = m.readMembers(w)
		default:
			r := RunTaskInstance{Run: w.run, TI: w.members[w.at]}
			m.read++
			if w.at++; w.at == len(w.members) {
				m.nextBlock(w)
			}
			switch {
			case keep != nil && !keep(r):
			case offset > 0:
				offset--
				picked++
			default:
				picked++
				if len(page) < limit {
					page = append(page, r)
				}
			}
		}
		if len(m.walks) > 0 && m.walks[0] == w {
			if w.block == nil {
				heap.Pop(m)
			} else {
				heap.Fix(m, 0)
			}
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("list task instances: %w", err)
	}
	return page, picked, nil
}

// tiOrderTotal is how many task instances dagIDs have, from the run
// counts, and the DAGs to walk, sorted (for nil, every DAG with a DAG row
// and runs); ok is false when one of them has task instances without an
// id.
func tiOrderTotal(txn *memdb.Txn, dagIDs []string) (total int, ids []string, ok bool, err error) {
	of := func(c runCount) bool {
		total += c.OrderedTIs
		return c.OrderedTIs == c.TaskInstances
	}
	if dagIDs != nil {
		ids = slices.Compact(slices.Sorted(slices.Values(dagIDs)))
		for _, id := range ids {
			if !of(runCountTxn(txn, id)) {
				return 0, nil, false, nil
			}
		}
		return total, ids, true, nil
	}
	it, err := txn.Get(tableRunCounts, indexID)
	if err != nil {
		return 0, nil, false, fmt.Errorf("count task instances: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*runCount)
		if c.DagID == allDAGs || c.TaskInstances == 0 {
			continue
		}
		if _, err := dagRowTxn(txn, c.DagID); err != nil {
			continue // no DAG row (or none to read): not listed
		}
		if !of(*c) {
			return 0, nil, false, nil
		}
		ids = append(ids, c.DagID)
	}
	return total, ids, true, nil
}

// tiOrderMerge yields task instances in (map_index, id) order, or in id
// order when byID, from walks of ti_order each already in that order,
// kept as a heap by each walk's next task instance (or, before its block
// is read, the block's lo, which comes no later).
type tiOrderMerge struct {
	txn  *memdb.Txn
	byID bool
	// desc walks the order backwards (-id, -map_index: their walks'
	// blocks by hi down, each block's members by id down).
	desc bool
	// passWhole, when set, says keep picks every task instance of a
	// block: such a block is passed for the offset by its count, as
	// without keep (the NULL part by rendered_map_index: unmapped
	// blocks).
	passWhole func(*tiOrderRow) bool
	walks     []*tiOrderWalk
	read      int // blocks and task instances read
}

// tiOrderWalk is one walk of blocks: the block it is at (nil at its end)
// and, once read from the run's row, its members and the one it is at. A
// walk ends with its iterator or at the first block bound refuses.
type tiOrderWalk struct {
	it    memdb.ResultIterator
	bound func(*tiOrderRow) bool
	// feeder: the walk of a DAG's mapped blocks by lo, which may
	// overlap; its members are never read (each block it reaches opens a
	// walk of its own).
	feeder  bool
	block   *tiOrderRow
	run     *DagRun
	members []*TaskInstance
	at      int
}

// add starts a walk that ends with its iterator.
func (m *tiOrderMerge) add(it memdb.ResultIterator, err error) error {
	if err != nil {
		return err
	}
	w := &tiOrderWalk{it: it}
	if m.nextBlock(w) {
		m.walks = append(m.walks, w)
	}
	return nil
}

// addMapIndexWalks starts, for each DAG of dagIDs, two walks in id
// order: of its unmapped blocks (map_index -1, which do not overlap), and
// a feeder of its mapped blocks by lo (tableTIOrderMapped), whose blocks
// may overlap one another (each map_index's are apart): the page opens
// each of them as a walk of its own when the merge reaches its lo, or
// passes it whole for the offset.
func (m *tiOrderMerge) addMapIndexWalks(dagIDs []string) error {
	for _, dagID := range dagIDs {
		it, err := m.txn.LowerBound(tableTIOrder, indexID, dagID, -1)
		if err != nil {
			return err
		}
		w := &tiOrderWalk{it: it, bound: func(b *tiOrderRow) bool { return b.DagID == dagID && b.MapIndex == -1 }}
		if m.nextBlock(w) {
			m.walks = append(m.walks, w)
		}
		if it, err = m.txn.LowerBound(tableTIOrderMapped, indexID, dagID); err != nil {
			return err
		}
		w = &tiOrderWalk{it: it, feeder: true, bound: func(b *tiOrderRow) bool { return b.DagID == dagID }}
		if m.nextBlock(w) {
			m.walks = append(m.walks, w)
		}
	}
	return nil
}

// noRows is an iterator with no rows: a walk of one block, opened by a
// feeder, ends after it.
type noRows struct{}

// blockList walks blocks of a slice in its order: a DAG's pending ones,
// unmapped and by lo, in neither order's walks of ti_order.
type blockList []*tiOrderRow

func (l *blockList) Next() any {
	if len(*l) == 0 {
		return nil
	}
	b := (*l)[0]
	*l = (*l)[1:]
	return b
}

func (*blockList) WatchCh() <-chan struct{} { return nil }

// groupedBlocks walks the blocks of the groups it walks (a DAG's), group
// after group, each group's by lo (down: by lo down, for groups walked
// down).
type groupedBlocks struct {
	it     memdb.ResultIterator
	blocks []*tiOrderRow
	down   bool
}

func (g *groupedBlocks) Next() any {
	for len(g.blocks) == 0 {
		raw := g.it.Next()
		if raw == nil {
			return nil
		}
		g.blocks = raw.(*tiOrderGroup).Blocks
	}
	if g.down {
		b := g.blocks[len(g.blocks)-1]
		g.blocks = g.blocks[:len(g.blocks)-1]
		return b
	}
	b := g.blocks[0]
	g.blocks = g.blocks[1:]
	return b
}

func (g *groupedBlocks) WatchCh() <-chan struct{} { return g.it.WatchCh() }

func (noRows) Next() any                { return nil }
func (noRows) WatchCh() <-chan struct{} { return nil }

// nextBlock moves w to its next block, its members not read; false (and
// no block) at its end.
func (m *tiOrderMerge) nextBlock(w *tiOrderWalk) bool {
	w.block, w.members, w.at = nil, nil, 0
	raw := w.it.Next()
	if raw != nil {
		m.read++
	}
	if raw == nil || (w.bound != nil && !w.bound(raw.(*tiOrderRow))) {
		return false
	}
	w.block = raw.(*tiOrderRow)
	return true
}

// readMembers reads w's block's task instances and run.
func (m *tiOrderMerge) readMembers(w *tiOrderWalk) error {
	b := w.block
	run, err := runByRunIDTxn(m.txn, b.DagID, b.RunID)
	if err != nil {
		return fmt.Errorf("run %s/%s of a task-instance block: %w", b.DagID, b.RunID, err)
	}
	row, err := runTasksTxn(m.txn, b.DagID, b.RunID)
	if err != nil {
		return err
	}
	w.run, w.members = run, blockMembers(row, b)
	if m.desc {
		slices.Reverse(w.members)
	}
	if len(w.members) != b.N {
		return fmt.Errorf("task-instance block of %s/%s holds %d, not %d", b.DagID, b.RunID, len(w.members), b.N)
	}
	return nil
}

// passes reports whether every task instance of w's block (w on top of
// the heap) comes before every other walk's next one: the heap's second
// level holds the least of the others.
func (m *tiOrderMerge) passes(w *tiOrderWalk) bool {
	last := w.block.Hi
	if m.desc {
		last = w.block.Lo
	}
	for _, i := range []int{1, 2} {
		if i < len(m.walks) && !m.before(w.block.MapIndex, last, m.walks[i]) {
			return false
		}
	}
	return true
}

// key is where w is in the order: its next task instance, or its block's
// lo before the block is read (hi in a walk down).
func (w *tiOrderWalk) key(desc bool) (int, string) {
	if w.members != nil {
		ti := w.members[w.at]
		return ti.MapIndex, ti.ID
	}
	if desc {
		return w.block.MapIndex, w.block.Hi
	}
	return w.block.MapIndex, w.block.Lo
}

// before reports whether (mapIndex, id) comes before w's key.
func (m *tiOrderMerge) before(mapIndex int, id string, w *tiOrderWalk) bool {
	mi, wid := w.key(m.desc)
	if m.desc {
		mapIndex, mi, id, wid = mi, mapIndex, wid, id
	}
	if !m.byID && mapIndex != mi {
		return mapIndex < mi
	}
	return id < wid
}

func (m *tiOrderMerge) Len() int { return len(m.walks) }
func (m *tiOrderMerge) Less(i, j int) bool {
	mi, id := m.walks[i].key(m.desc)
	return m.before(mi, id, m.walks[j])
}
func (m *tiOrderMerge) Swap(i, j int) { m.walks[i], m.walks[j] = m.walks[j], m.walks[i] }
func (m *tiOrderMerge) Push(x any)    { m.walks = append(m.walks, x.(*tiOrderWalk)) }
func (m *tiOrderMerge) Pop() any {
	last := m.walks[len(m.walks)-1]
	m.walks = m.walks[:len(m.walks)-1]
	return last
}
