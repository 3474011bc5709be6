package main

// Pages of the task instances of named runs (get_task_instances with a
// dag_run_id, get_task_instances_batch's dag_run_ids) in
// get_task_instances' default order, map_index then id (SortParam adds the
// primary key after the order_by: routes/public/task_instances.py and
// common/parameters.py): a run's row keeps its task instances by
// (task_id, map_index), so each task's instances are already in
// map_index order, a task has one instance per map_index, and a page
// merges the runs' tasks instead of sorting every task instance of the
// runs (a mapped task's thousands). Read paths only: ti_order
// (memstore_tiorder.go) is not used, as it keeps no run's blocks apart.

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	memdb "github.com/hashicorp/go-memdb"
)

// NamedRunsTIQuery is a page of the task instances of named runs in
// (map_index, id) order.
type NamedRunsTIQuery struct {
	// DagIDs are the DAGs whose runs are named, each once, sorted; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// RunIDs are the run ids looked up in each of those DAGs.
	RunIDs []string
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it, for the count of what it picks.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	Offset, Limit int
}

// NamedRunsTIPage is a page of the task instances of q's runs in
// (map_index, id) order and how many there are (that Keep picks). It
// reads the runs and their rows, finds each task's instances in a row
// (binary searches), passes the offset by counting the instances below a
// map_index (a binary search over map indexes) when nothing filters, and
// merges the tasks to the page's end; with Keep it merges from the start,
// the filter seeing each task instance up to the page's last, and counts
// what Keep picks once per version of the task-instance rows and filter.
// ok is false when a task instance of those DAGs has no id (a store
// restored from an edition before 3): the caller sorts.
func (s *Store) NamedRunsTIPage(q NamedRunsTIQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	txn := s.read()
	m := &namedRunsMerge{}
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(m.read)
		}
	}()
	dagIDs, ok, err := namedRunsScopeTxn(txn, q.DagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if err := m.open(txn, dagIDs, q.RunIDs); err != nil {
		return nil, 0, false, err
	}
	page = []RunTaskInstance{}
	if q.Keep == nil {
		total = m.size()
		if q.Offset >= total || q.Limit <= 0 {
			return page, total, true, nil
		}
		skip := m.seek(q.Offset)
		heap.Init(m)
		for ; skip > 0; skip-- {
			m.pop()
		}
		for len(page) < q.Limit && len(m.heads) > 0 {
			page = append(page, m.pop())
		}
		return page, total, true, nil
	}
	root, err := txn.Get(tableTasks, indexID)
	if err != nil {
		return nil, 0, false, fmt.Errorf("count task instances: %w", err)
	}
	h := fnv.New64a()
	for _, list := range [][]string{dagIDs, q.RunIDs} {
		for _, id := range list {
			h.Write([]byte(id))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	key := fmt.Sprintf("task instances of named runs %x (%d DAGs, %d runs) %s", h.Sum64(), len(dagIDs), len(q.RunIDs), q.KeepKey)
	total, err = s.counts.count(root.WatchCh(), key, func() (int, error) {
		n := 0
		for _, c := range m.tasks {
			for _, ti := range c.tis {
				m.read++
				if q.Keep(RunTaskInstance{Run: c.run, TI: ti}) {
					n++
				}
			}
		}
		return n, nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	if q.Offset >= total || q.Limit <= 0 {
		return page, total, true, nil
	}
	m.heads = slices.Clone(m.tasks)
	heap.Init(m)
	offset := q.Offset
	for len(page) < q.Limit && len(m.heads) > 0 {
		r := m.pop()
		switch {
		case !q.Keep(r):
		case offset > 0:
			offset--
		default:
			page = append(page, r)
		}
	}
	return page, total, true, nil
}

// namedRunsScopeTxn is the DAGs whose runs are looked up (nil: every DAG
// with a DAG row and runs, by id); ok is false when one of them has task
// instances without an id.
func namedRunsScopeTxn(txn *memdb.Txn, dagIDs []string) ([]string, bool, error) {
	if dagIDs == nil {
		it, err := txn.Get(tableRunCounts, indexID)
		if err != nil {
			return nil, false, fmt.Errorf("list the DAGs with runs: %w", err)
		}
		dagIDs = []string{}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			c := raw.(*runCount)
			if c.DagID == allDAGs || c.N == 0 {
				continue
			}
			if _, err := dagRowTxn(txn, c.DagID); err == nil {
				dagIDs = append(dagIDs, c.DagID)
			}
		}
	}
	for _, id := range dagIDs {
		if c := runCountTxn(txn, id); c.OrderedTIs != c.TaskInstances {
			return nil, false, nil
		}
	}
	return dagIDs, true, nil
}

// namedRunsMerge merges the instances of each task of the named runs in
// (map_index, id) order: a heap of the tasks by their next instance.
type namedRunsMerge struct {
	tasks []*namedRunTask // every task of every run, each at its start
	heads []*namedRunTask // the heap: tasks with instances left
	read  int             // runs, rows and task instances read
}

// namedRunTask is one task's instances in a run's row, by map_index, and
// the one the merge is at.
type namedRunTask struct {
	run *DagRun
	tis []*TaskInstance
	at  int
}

// open looks each run id up in each DAG and splits the rows found by task.
func (m *namedRunsMerge) open(txn *memdb.Txn, dagIDs, runIDs []string) error {
	for _, dagID := range dagIDs {
		for _, runID := range runIDs {
			run, err := runByRunIDTxn(txn, dagID, runID)
			if errors.Is(err, errNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			m.read++
			row, err := runTasksTxn(txn, dagID, runID)
			if err != nil {
				return err
			}
			if row == nil {
				continue
			}
			m.read++
			for tis := row.TIs; len(tis) > 0; {
				task := tis[0].TaskID
				end, _ := slices.BinarySearchFunc(tis, task, func(ti *TaskInstance, t string) int {
					if ti.TaskID > t {
						return 1
					}
					return -1 // the task's own come before the end
				})
				m.tasks = append(m.tasks, &namedRunTask{run: run, tis: tis[:end]})
				tis = tis[end:]
			}
		}
	}
	return nil
}

// size is how many task instances the runs have.
func (m *namedRunsMerge) size() int {
	n := 0
	for _, c := range m.tasks {
		n += len(c.tis)
	}
	return n
}

// below is how many task instances have a map_index under mapIndex.
func (m *namedRunsMerge) below(mapIndex int) int {
	n := 0
	for _, c := range m.tasks {
		n += c.firstAt(mapIndex)
	}
	return n
}

// firstAt is where c's instances of mapIndex and above begin.
func (c *namedRunTask) firstAt(mapIndex int) int {
	i, _ := slices.BinarySearchFunc(c.tis, mapIndex, func(ti *TaskInstance, m int) int { return cmp.Compare(ti.MapIndex, m) })
	return i
}

// seek passes offset task instances: it finds the greatest map_index
// with no more than offset instances below it, sets each task at that
// map_index and puts the tasks with instances left in the heap (not yet
// a heap); what is left of the offset (fewer than the tasks: a task has
// one instance a map_index) is returned, for the merge to pass.
func (m *namedRunsMerge) seek(offset int) int {
	lo, hi := -1, -1 // below(lo) <= offset; hi: past every map_index
	for _, c := range m.tasks {
		hi = max(hi, c.tis[len(c.tis)-1].MapIndex+1)
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if m.below(mid) <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	m.heads = m.heads[:0]
	for _, c := range m.tasks {
		if c.at = c.firstAt(lo); c.at < len(c.tis) {
			m.heads = append(m.heads, c)
		}
	}
	return offset - m.below(lo)
}

// pop takes the merge's next task instance.
func (m *namedRunsMerge) pop() RunTaskInstance {
	c := m.heads[0]
	r := RunTaskInstance{Run: c.run, TI: c.tis[c.at]}
	m.read++
	if c.at++; c.at == len(c.tis) {
		heap.Pop(m)
	} else {
		heap.Fix(m, 0)
	}
	return r
}

func (m *namedRunsMerge) Len() int { return len(m.heads) }
func (m *namedRunsMerge) Less(i, j int) bool {
	a, b := m.heads[i].tis[m.heads[i].at], m.heads[j].tis[m.heads[j].at]
	return cmp.Or(cmp.Compare(a.MapIndex, b.MapIndex), strings.Compare(a.ID, b.ID)) < 0
}
func (m *namedRunsMerge) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *namedRunsMerge) Push(x any)    { m.heads = append(m.heads, x.(*namedRunTask)) }
func (m *namedRunsMerge) Pop() any {
	last := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return last
}

// RunTaskInstancesWindow is a run's task instances as its row keeps them
// (task_id, then map_index) from offset, at most limit, and how many the
// run has: a slice of the row, where a listing read every one (rowsRead
// hears of those returned). A run that is not there has none.
func (s *Store) RunTaskInstancesWindow(dagID, runID string, offset, limit int) ([]*TaskInstance, int, error) {
	row, err := runTasksTxn(s.read(), dagID, runID)
	if err != nil || row == nil {
		return nil, 0, err
	}
	n := len(row.TIs)
	from := min(max(offset, 0), n)
	to := min(from+max(limit, 0), n)
	if s.rowsRead != nil {
		s.rowsRead(to - from)
	}
	return slices.Clone(row.TIs[from:to]), n, nil
}

// NamedRunsSortedQuery is a page of the task instances of named runs in
// an order other than (map_index, id): the batch's id, the Airflow 3
// UI's run and mapped task pages (-start_date, -run_after), any
// order_by.
type NamedRunsSortedQuery struct {
	// DagIDs are the DAGs whose runs are named, each once, sorted; nil:
	// every DAG with a DAG row.
	DagIDs []string
	// RunIDs are the run ids looked up in each of those DAGs.
	RunIDs []string
	// TaskIDs, when set, are the only tasks whose instances Keep can
	// pick: the others are not read.
	TaskIDs []string
	// Compare is the listing's order; OrderName names it, for the sort
	// remembered.
	Compare   func(a, b RunTaskInstance) int
	OrderName string
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	Offset, Limit int
}

// maxNamedRunsSorts bounds the sorts remembered, and maxNamedRunsSorted
// the task instances they hold in all: past either the memory starts
// again empty.
const (
	maxNamedRunsSorts  = 32
	maxNamedRunsSorted = 1 << 20
)

// namedRunsSorts remembers the task instances that listings of named runs
// picked, sorted, each for the versions of the runs' rows they were read
// from.
type namedRunsSorts struct {
	mu   sync.Mutex
	of   map[string]*namedRunsSorted
	size int
}

// namedRunsSorted is a listing's task instances, sorted, and the task
// spans of the runs' rows (and the runs) they were read from: a write of
// a run's task instances makes its row anew (storeTaskInstancesTxn), so
// a span that starts at the same element and has the same length is the
// same version.
type namedRunsSorted struct {
	spans []namedRunsSpan
	// tasks are the spans' task instances, which the next version's are
	// compared with (resort).
	tasks  [][]*TaskInstance
	sorted []RunTaskInstance
}

type namedRunsSpan struct {
	run   *DagRun
	first **TaskInstance
	n     int
}

// NamedRunsSortedPage is a page of the task instances of q's runs that
// q.Keep picks, in q.Compare's order, and how many there are. The runs'
// task instances (those of q.TaskIDs) are read and sorted once per
// version of the runs' rows and listing, and remembered: a page asked
// again reads the runs, their rows and its own task instances, where
// every task instance of the runs was read and sorted at each page. A
// write of one of the runs' task instances (a running run's) costs the
// next page the sort again. ok is false when a task instance of those
// DAGs has no id (a store restored from an edition before 3): the caller
// sorts.
func (s *Store) NamedRunsSortedPage(q NamedRunsSortedQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	txn := s.read()
	m := &namedRunsMerge{}
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(m.read)
		}
	}()
	dagIDs, ok, err := namedRunsScopeTxn(txn, q.DagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	if err := m.open(txn, dagIDs, q.RunIDs); err != nil {
		return nil, 0, false, err
	}
	tasks := m.tasks
	if q.TaskIDs != nil {
		tasks = slices.DeleteFunc(slices.Clone(tasks), func(c *namedRunTask) bool { return !slices.Contains(q.TaskIDs, c.tis[0].TaskID) })
	}
	spans := make([]namedRunsSpan, len(tasks))
	for i, c := range tasks {
		spans[i] = namedRunsSpan{run: c.run, first: &c.tis[0], n: len(c.tis)}
	}
	key := fmt.Sprintf("%q %q %q %s %s", dagIDs, q.RunIDs, q.TaskIDs, q.OrderName, q.KeepKey)
	got := s.tiSorts.get(key)
	hit := got != nil && slices.Equal(got.spans, spans)
	var sorted []RunTaskInstance
	if hit {
		sorted = got.sorted
	} else {
		next := &namedRunsSorted{spans: spans, tasks: make([][]*TaskInstance, len(tasks))}
		for i, c := range tasks {
			next.tasks[i] = c.tis
		}
		var resorted bool
		if got != nil {
			sorted, resorted = got.resort(next, q, &m.read)
		}
		if !resorted {
			for _, c := range tasks {
				for _, ti := range c.tis {
					m.read++
					if r := (RunTaskInstance{Run: c.run, TI: ti}); q.Keep == nil || q.Keep(r) {
						sorted = append(sorted, r)
					}
				}
			}
			slices.SortStableFunc(sorted, q.Compare)
		}
		next.sorted = sorted
		s.tiSorts.remember(key, next)
	}
	total = len(sorted)
	page = []RunTaskInstance{}
	if q.Offset < total && q.Limit > 0 {
		page = slices.Clone(sorted[q.Offset:min(total, q.Offset+q.Limit)])
		if hit {
			m.read += len(page)
		}
	}
	return page, total, true, nil
}

// get is the sort remembered under key, of whichever version (nil:
// none).
func (x *namedRunsSorts) get(key string) *namedRunsSorted {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.of[key]
}

// resort is the sort of next's task instances (q.Keep's) from this one's,
// an earlier version of the same runs' rows: the task instances a write
// replaced, added or took away (a row's others are the same pointers) are
// taken out by binary searches and put in by a merge, and read (counted
// in read), where a sort reads every one (a running run's mapped task
// of thousands at each try's state). false when the runs or their tasks
// are not the same ones (a run's own write, a task that came or went) or
// a quarter of the task instances changed: the caller sorts.
func (x *namedRunsSorted) resort(next *namedRunsSorted, q NamedRunsSortedQuery, read *int) ([]RunTaskInstance, bool) {
	if len(x.spans) != len(next.spans) {
		return nil, false
	}
	var drops, adds []RunTaskInstance
	for i, span := range next.spans {
		old, tis := x.tasks[i], next.tasks[i]
		if x.spans[i].run != span.run || old[0].TaskID != tis[0].TaskID {
			return nil, false
		}
		if x.spans[i] == span {
			continue
		}
		keep := func(ti *TaskInstance, to *[]RunTaskInstance) {
			if r := (RunTaskInstance{Run: span.run, TI: ti}); q.Keep == nil || q.Keep(r) {
				*to = append(*to, r)
			}
		}
		// Both by map_index (a task's part of its row).
		a, b := 0, 0
		for a < len(old) || b < len(tis) {
			switch {
			case b == len(tis) || (a < len(old) && old[a].MapIndex < tis[b].MapIndex):
				keep(old[a], &drops)
				a++
			case a == len(old) || tis[b].MapIndex < old[a].MapIndex:
				keep(tis[b], &adds)
				b++
			default:
				if old[a] != tis[b] {
					keep(old[a], &drops)
					keep(tis[b], &adds)
				}
				a++
				b++
			}
		}
		if 4*(len(drops)+len(adds)) > len(x.sorted)+4 {
			return nil, false
		}
	}
	*read += len(drops) + len(adds)
	// Where each drop is: the sort is total (the id last), so a binary
	// search finds the very task instance.
	at := make([]int, len(drops))
	for i, d := range drops {
		j, found := slices.BinarySearchFunc(x.sorted, d, q.Compare)
		if !found || x.sorted[j].TI != d.TI {
			return nil, false
		}
		at[i] = j
	}
	slices.Sort(at)
	// Where each add goes among the old ones (before a drop at its place).
	slices.SortFunc(adds, q.Compare)
	ins := make([]int, len(adds))
	for i, a := range adds {
		ins[i], _ = slices.BinarySearchFunc(x.sorted, a, q.Compare)
	}
	out := make([]RunTaskInstance, 0, len(x.sorted)-len(drops)+len(adds))
	from := 0 // the old ones from here on are not copied yet
	for {
		next := len(x.sorted)
		if len(ins) > 0 {
			next = min(next, ins[0])
		}
		if len(at) > 0 {
			next = min(next, at[0])
		}
		out = append(out, x.sorted[from:next]...)
		from = next
		switch {
		case len(ins) > 0 && ins[0] == next:
			out, adds, ins = append(out, adds[0]), adds[1:], ins[1:]
		case len(at) > 0 && at[0] == next:
			from, at = next+1, at[1:]
		default:
			return out, true
		}
	}
}

// remember keeps a sort under key.
func (x *namedRunsSorts) remember(key string, v *namedRunsSorted) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if old := x.of[key]; old != nil {
		x.size -= len(old.sorted)
		delete(x.of, key)
	}
	if x.of == nil || len(x.of) >= maxNamedRunsSorts || x.size+len(v.sorted) > maxNamedRunsSorted {
		x.of, x.size = map[string]*namedRunsSorted{}, 0
	}
	x.of[key] = v
	x.size += len(v.sorted)
}
