package main

// A DAG's unfinished runs (queued, running) as the marked orders' pages
// read them (memstore_runorder.go), remembered per version of the DAG's
// runs: their values change while they run, so no mark keeps them, and a
// page read them all from the state index and sorted them (a backfill's
// queued runs: thousands), and its walks of the settled runs by id passed
// the unfinished ones among them (the newest runs, on top of the ids).
// A new version reads again only the blocks of ids a write touched: the
// runs are remembered by block of 256 ids, with the block's node in the
// (dag_id, id) index, which every write of a run in the block copies.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	memdb "github.com/hashicorp/go-memdb"
)

// maxPendingDAGs bounds the DAGs whose unfinished runs are remembered:
// past it the memory starts again empty.
const maxPendingDAGs = 1024

// pendingBlockDigits are the hex digits of a run id below a block's
// prefix (seqPrefix): blocks of 256 ids. A write of one run reads its
// block again, 256 rows at most, where a block of 4,096 would cost 16
// times as many; a new version looks up each remembered block's node (a
// seek), about as many as a backfill's unfinished runs over 256.
const pendingBlockDigits = 2

// pendingBlocksMin is how many unfinished runs a DAG has at least for
// them to be remembered by block: fewer are read again (from the state
// index, and down from the newest run), about as many rows as a block or
// four, without the lookups of each block.
const pendingBlocksMin = 1024

// pendingRunsMemo remembers each DAG's unfinished runs for the version of
// its runs they were read from.
type pendingRunsMemo struct {
	mu sync.Mutex
	of map[string]*pendingRuns
}

// pendingRuns are a DAG's unfinished runs at one version of its runs
// (watch: the DAG's part of the runs' (dag_id, id) index, a node that
// every write of one of its runs copies, so a new version has another).
type pendingRuns struct {
	watch   <-chan struct{}
	idOrder []*DagRun // by id: byID
	// blocks are the blocks of ids that hold unfinished runs, by
	// prefix.
	blocks map[string]*pendingBlock
	// newest is the DAG's highest run id; lastSettled its highest
	// settled run's (0: none); unsettledN its count of runs that went
	// back from finished (runCount.UnsettledN).
	newest, lastSettled, unsettledN int64
	// tail is the least id from which every run of the DAG is
	// unfinished (the newest runs, not yet settled): a walk of settled
	// runs by id stops below it.
	tail int64
	// everyBlock is the nodes of the DAG's runs down to every block, as
	// they were when last looked up (changedBlocksTxn; shared by the
	// versions after, never changed): when more runs went back from
	// finished than the counts name, a block whose node changed since, or
	// that was not there, is read again, not every unfinished run, found
	// down the prefixes whose node changed, not among every block. A block unchanged since then and without unfinished runs then
	// (not in blocks) has none. nil without blocks.
	everyBlock runBlocks
	// sorted are runs in the orders pages asked for, by the order's
	// name (RunOrderQuery.CompareName; with a state, its runs alone).
	mu     sync.Mutex
	sorted map[string]sortedPending
}

// pendingBlock is a block's unfinished runs, by id, as of the block's
// node (watch).
type pendingBlock struct {
	watch <-chan struct{}
	runs  []*DagRun
}

// sortedPending is a list of unfinished runs sorted in compare's order,
// those of state alone when state is set.
type sortedPending struct {
	runs    []*DagRun
	compare func(a, b *DagRun) int
	state   RunState
}

// pendingRunsTxn is the DAG's unfinished runs as txn sees them; read
// counts the rows read when they are not remembered. A version after the
// remembered one is that one with the blocks a write changed read again
// (pendingRuns.next); when the counts say an unfinished run is elsewhere
// (a settled run cleared), every unfinished run is read again.
func (s *Store) pendingRunsTxn(txn *memdb.Txn, dagID string, read *int) (*pendingRuns, error) {
	it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, nil)
	if err != nil {
		return nil, err
	}
	watch := it.WatchCh()
	s.pending.mu.Lock()
	p := s.pending.of[dagID]
	s.pending.mu.Unlock()
	if p != nil && p.watch == watch && watch != nil {
		return p, nil
	}
	var next *pendingRuns
	if p != nil && p.blocks != nil {
		if next, err = p.next(txn, dagID, watch, read); err != nil {
			return nil, err
		}
	}
	if next == nil {
		if next, err = readPendingRuns(txn, dagID, watch, read); err != nil {
			return nil, err
		}
	}
	s.pending.mu.Lock()
	if s.pending.of == nil || len(s.pending.of) >= maxPendingDAGs {
		s.pending.of = map[string]*pendingRuns{}
	}
	s.pending.of[dagID] = next
	s.pending.mu.Unlock()
	return next, nil
}

// readPendingRuns reads a DAG's unfinished runs: down from its newest run
// to its last settled one, then the state index's below it.
func readPendingRuns(txn *memdb.Txn, dagID string, watch <-chan struct{}, read *int) (*pendingRuns, error) {
	p := &pendingRuns{watch: watch, blocks: map[string]*pendingBlock{}, sorted: map[string]sortedPending{},
		unsettledN: runCountTxn(txn, dagID).UnsettledN}
	down, err := dagRunsByID(txn, dagID, true)
	if err != nil {
		return nil, err
	}
	tail := int64(1<<63 - 1)
	for raw := down.Next(); raw != nil; raw = down.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		*read++
		p.newest = max(p.newest, r.ID)
		if runSettled(r) {
			p.lastSettled = r.ID
			break
		}
		tail = r.ID
		p.idOrder = append(p.idOrder, r)
	}
	for _, state := range []RunState{RunQueued, RunRunning} {
		it, err := txn.Get(tableDagRuns, indexState, string(state), dagID)
		if err != nil {
			return nil, err
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if r := raw.(*DagRun); r.ID < tail {
				*read++
				p.idOrder = append(p.idOrder, r)
			}
		}
	}
	slices.SortFunc(p.idOrder, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) })
	p.tail = p.lastSettled + 1
	if len(p.idOrder) < pendingBlocksMin {
		p.blocks = nil // read again at the next version
		return p, nil
	}
	if p.everyBlock, _, err = changedBlocksTxn(txn, dagID, nil, read); err != nil {
		return nil, err
	}
	for _, r := range p.idOrder {
		prefix := seqPrefix(r.ID, pendingBlockDigits)
		b := p.blocks[prefix]
		if b == nil {
			b = &pendingBlock{}
			p.blocks[prefix] = b
		}
		b.runs = append(b.runs, r)
	}
	if err := p.watchBlocks(txn, dagID); err != nil {
		return nil, err
	}
	return p, nil
}

// watchBlocks looks up the node of each block without one.
func (p *pendingRuns) watchBlocks(txn *memdb.Txn, dagID string) error {
	for prefix, b := range p.blocks {
		if b.watch != nil {
			continue
		}
		it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
		if err != nil {
			return err
		}
		b.watch = it.WatchCh()
	}
	return nil
}

// next is p at the version of the DAG's runs txn sees (watch): the
// blocks whose node changed read again, and those of the runs that went
// back from finished since (runCount.Unsettled), the runs above p's
// newest read, and p's last settled run looked up (a run settles in a
// block read, or comes new); nil when more runs went back than the
// counts name, or the counts hold more unfinished runs than that finds,
// for the caller to read them all. The sorted lists are p's with the
// runs that changed taken out and put in.
func (p *pendingRuns) next(txn *memdb.Txn, dagID string, watch <-chan struct{}, read *int) (*pendingRuns, error) {
	count := runCountTxn(txn, dagID)
	unfinished := count.N - count.States[runStateSlot(RunSuccess)] - count.States[runStateSlot(RunFailed)]
	if count.States[len(runStates)] > 0 || unfinished < pendingBlocksMin {
		return nil, nil // a state the walks do not take (they sort), or few to read
	}
	back := count.UnsettledN - p.unsettledN
	over := back > int64(len(count.Unsettled)) // more than the counts name: every block looked up
	if back < 0 || (over && p.everyBlock == nil) {
		return nil, nil
	}
	back = min(back, int64(len(count.Unsettled)))
	n := &pendingRuns{watch: watch, blocks: map[string]*pendingBlock{}, sorted: map[string]sortedPending{},
		newest: count.NewestID, lastSettled: p.lastSettled, unsettledN: count.UnsettledN, everyBlock: p.everyBlock}
	var gone, came []*DagRun
	settled := int64(0) // the highest settled id read
	block := func(prefix string) *pendingBlock {
		b := n.blocks[prefix]
		if b == nil {
			b = &pendingBlock{}
			n.blocks[prefix] = b
		}
		return b
	}
	readBlock := func(prefix string, it memdb.ResultIterator) {
		nb := block(prefix)
		nb.watch = it.WatchCh()
		for raw := it.Next(); raw != nil; raw = it.Next() {
			*read++
			if r := raw.(*DagRun); runSettled(r) {
				settled = max(settled, r.ID)
			} else if r.ID <= p.newest { // the newer ones come below
				nb.runs = append(nb.runs, r)
			}
		}
	}
	for prefix, b := range p.blocks {
		it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
		if err != nil {
			return nil, err
		}
		if it.WatchCh() == b.watch {
			n.blocks[prefix] = b
			continue
		}
		gone = append(gone, b.runs...)
		readBlock(prefix, it)
	}
	for _, id := range count.Unsettled[int64(len(count.Unsettled))-back:] {
		prefix := seqPrefix(id, pendingBlockDigits)
		if _, done := n.blocks[prefix]; done {
			continue
		}
		it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
		if err != nil {
			return nil, err
		}
		readBlock(prefix, it)
	}
	if over {
		every, changed, err := changedBlocksTxn(txn, dagID, p.everyBlock, read)
		if err != nil {
			return nil, err
		}
		for _, prefix := range changed {
			if _, done := n.blocks[prefix]; done {
				continue
			}
			it, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, prefix)
			if err != nil {
				return nil, err
			}
			readBlock(prefix, it)
		}
		n.everyBlock = every
	}
	if n.newest > p.newest {
		up, err := txn.LowerBound(tableDagRuns, indexDagRow, dagID, p.newest+1)
		if err != nil {
			return nil, err
		}
		for raw := up.Next(); raw != nil; raw = up.Next() {
			r := raw.(*DagRun)
			if r.DagID != dagID {
				break
			}
			*read++
			if runSettled(r) {
				settled = max(settled, r.ID)
			} else {
				b := block(seqPrefix(r.ID, pendingBlockDigits))
				b.runs = append(b.runs, r)
			}
		}
	}
	found := 0
	for prefix, b := range n.blocks {
		found += len(b.runs)
		if b == p.blocks[prefix] {
			continue
		}
		came = append(came, b.runs...)
		if len(b.runs) == 0 {
			delete(n.blocks, prefix)
		}
	}
	if found != unfinished {
		return nil, nil
	}
	if settled > p.lastSettled {
		n.lastSettled = settled
	} else if p.lastSettled > 0 {
		raw, err := txn.First(tableDagRuns, indexDagRow, dagID, p.lastSettled)
		if err != nil {
			return nil, err
		}
		*read++
		if raw == nil || !runSettled(raw.(*DagRun)) {
			if n.lastSettled, err = lastSettledBelowTxn(txn, dagID, p.lastSettled, read); err != nil {
				return nil, err
			}
		}
	}
	if err := n.watchBlocks(txn, dagID); err != nil {
		return nil, err
	}
	n.tail = n.lastSettled + 1
	gone, came = unchangedOut(gone, came)
	p.mu.Lock()
	for name, list := range p.sorted {
		if next, ok := list.with(gone, came); ok {
			n.sorted[name] = next
		}
	}
	p.mu.Unlock()
	return n, nil
}

// runBlocks are the nodes of a DAG's runs in the (dag_id, id) index at
// each prefix of their ids' hex digits (encodeSeq) that some run has, from
// one digit to a block's (pendingBlockDigits below the whole id), by
// prefix: in the order of a walk down the digits, each prefix before
// those below it (lexicographic). A node is never changed once stored:
// the same node at a prefix is the same runs below it.
type runBlocks []runBlockNode

type runBlockNode struct {
	prefix string
	node   <-chan struct{}
}

// blocks calls f with each block (a prefix of the whole block's length)
// and its node.
func (rb runBlocks) blocks(f func(prefix string, node <-chan struct{})) {
	for _, b := range rb {
		if len(b.prefix) == 16-pendingBlockDigits {
			f(b.prefix, b.node)
		}
	}
}

// changedBlocksTxn is the DAG's runBlocks as txn sees them, and the
// blocks whose node is not old's (or that old had not): a walk down the
// prefixes whose node changed, from one digit, looking up the existing
// children of each (a seek to a child's first run, a row read, and one
// to its node), where a prefix whose node is old's keeps old's below it
// unlooked. With old nil every block is looked up (about runs/256 of
// each, and the levels above); else about 16 children a level of each
// changed prefix, not every block.
func changedBlocksTxn(txn *memdb.Txn, dagID string, old runBlocks, read *int) (now runBlocks, changed []string, err error) {
	const whole = 16 - pendingBlockDigits // a block's prefix length
	var walk func(prefix string, from int64) error
	walk = func(prefix string, from int64) error {
		n := len(prefix) + 1
		shift := 4 * (16 - n) // a hex digit a nibble
		for {
			it, err := txn.LowerBound(tableDagRuns, indexDagRow, dagID, from)
			if err != nil {
				return err
			}
			raw := it.Next()
			if raw == nil || raw.(*DagRun).DagID != dagID {
				return nil
			}
			id := raw.(*DagRun).ID
			child := string(encodeSeq(id)[:n])
			if child[:n-1] != prefix {
				return nil // past prefix
			}
			*read++
			cit, err := txn.Get(tableDagRuns, indexDagRow+"_prefix", dagID, child)
			if err != nil {
				return err
			}
			node := cit.WatchCh()
			now = append(now, runBlockNode{prefix: child, node: node})
			i, found := slices.BinarySearchFunc(old, child, func(b runBlockNode, p string) int { return strings.Compare(b.prefix, p) })
			switch {
			case found && old[i].node == node:
				for j := i + 1; j < len(old) && strings.HasPrefix(old[j].prefix, child); j++ {
					now = append(now, old[j])
				}
			case n == whole:
				changed = append(changed, child)
			default:
				if err := walk(child, id); err != nil {
					return err
				}
			}
			from = (id>>shift + 1) << shift
			if from <= 0 {
				return nil // past the last id
			}
		}
	}
	if err := walk("", 0); err != nil {
		return nil, nil, fmt.Errorf("look up the blocks of runs of %s: %w", dagID, err)
	}
	return now, changed, nil
}

// lastSettledBelowTxn is the DAG's highest settled run id below id (0:
// none), found by a walk down that passes the unfinished runs.
func lastSettledBelowTxn(txn *memdb.Txn, dagID string, id int64, read *int) (int64, error) {
	if id <= 1 {
		return 0, nil
	}
	it, err := txn.ReverseLowerBound(tableDagRuns, indexDagRow, dagID, id-1)
	if err != nil {
		return 0, err
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		*read++
		if runSettled(r) {
			return r.ID, nil
		}
	}
	return 0, nil
}

// unchangedOut takes out of gone and came the runs in both (a block read
// again holds its unchanged runs as they were).
func unchangedOut(gone, came []*DagRun) ([]*DagRun, []*DagRun) {
	if len(gone) == 0 || len(came) == 0 {
		return gone, came
	}
	same := make(map[*DagRun]bool, len(gone))
	for _, r := range gone {
		same[r] = true
	}
	came = slices.DeleteFunc(came, func(r *DagRun) bool {
		if same[r] {
			same[r] = false // in both
			return true
		}
		return false
	})
	gone = slices.DeleteFunc(gone, func(r *DagRun) bool { v, ok := same[r]; return ok && !v })
	return gone, came
}

// with is the list with the runs of gone taken out and those of came put
// in, in its order: each found by a binary search (the list's runs are
// the objects it was sorted by), the rest copied, where a sort of every
// unfinished run compared each of them; false when a run of gone is not
// in its place.
func (l sortedPending) with(gone, came []*DagRun) (sortedPending, bool) {
	keep := func(r *DagRun) bool { return l.state == "" || r.State == l.state }
	var at []int
	for _, r := range gone {
		if !keep(r) {
			continue
		}
		i, ok := slices.BinarySearchFunc(l.runs, r, l.compare)
		if !ok || l.runs[i] != r {
			return sortedPending{}, false // not where its order puts it: sorted again
		}
		at = append(at, i)
	}
	slices.Sort(at)
	kept := make([]*DagRun, 0, len(l.runs)-len(at)+len(came))
	from := 0
	for _, i := range at {
		kept = append(kept, l.runs[from:i]...)
		from = i + 1
	}
	kept = append(kept, l.runs[from:]...)
	var add []*DagRun
	for _, r := range came {
		if keep(r) {
			add = append(add, r)
		}
	}
	if len(add) == 0 {
		return sortedPending{runs: kept, compare: l.compare, state: l.state}, true
	}
	slices.SortFunc(add, l.compare)
	out := make([]*DagRun, 0, len(kept)+len(add))
	from = 0
	for _, r := range add {
		i, _ := slices.BinarySearchFunc(kept[from:], r, l.compare)
		out = append(append(out, kept[from:from+i]...), r)
		from += i
	}
	out = append(out, kept[from:]...)
	return sortedPending{runs: out, compare: l.compare, state: l.state}, true
}

// byID is the unfinished runs by id: a version made from the last one
// (next) has them by block only, put together at the first order asked
// for that the last one had not sorted.
func (p *pendingRuns) byID() []*DagRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idOrder == nil && len(p.blocks) > 0 {
		prefixes := slices.Sorted(maps.Keys(p.blocks)) // hex digits: in id order
		for _, prefix := range prefixes {
			p.idOrder = append(p.idOrder, p.blocks[prefix].runs...)
		}
	}
	return p.idOrder
}

// inOrder is the unfinished runs in compare's order, which name names
// ("": not remembered, sorted at each call); the caller does not change
// the slice.
func (p *pendingRuns) inOrder(name string, compare func(a, b *DagRun) int) []*DagRun {
	return p.sortedIn(name, compare, "")
}

// inStateOrder is inOrder of the unfinished runs in state alone.
func (p *pendingRuns) inStateOrder(name string, compare func(a, b *DagRun) int, state RunState) []*DagRun {
	return p.sortedIn(name, compare, state)
}

func (p *pendingRuns) sortedIn(name string, compare func(a, b *DagRun) int, state RunState) []*DagRun {
	key := name + "\x00" + string(state)
	if name != "" {
		p.mu.Lock()
		list, ok := p.sorted[key]
		p.mu.Unlock()
		if ok {
			return list.runs
		}
	}
	runs := slices.Clone(p.byID())
	if state != "" {
		runs = slices.DeleteFunc(runs, func(r *DagRun) bool { return r.State != state })
	}
	slices.SortFunc(runs, compare)
	if name != "" {
		p.mu.Lock()
		p.sorted[key] = sortedPending{runs: runs, compare: compare, state: state}
		p.mu.Unlock()
	}
	return runs
}
