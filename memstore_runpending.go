package main

// A DAG's unfinished runs (queued, running) as the marked orders' pages
// read them (memstore_runorder.go), remembered per version of the DAG's
// runs: their values change while they run, so no mark keeps them, and a
// page read them all from the state index and sorted them (a backfill's
// queued runs: thousands), and its walks of the settled runs by id passed
// the unfinished ones among them (the newest runs, on top of the ids).

import (
	"slices"
	"sync"

	memdb "github.com/hashicorp/go-memdb"
)

// maxPendingDAGs bounds the DAGs whose unfinished runs are remembered:
// past it the memory starts again empty.
const maxPendingDAGs = 1024

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
	watch <-chan struct{}
	runs  []*DagRun // by id
	// tail is the least id from which every run of the DAG is
	// unfinished (the newest runs, not yet settled): a walk of settled
	// runs by id stops below it. 1<<63-1 when the DAG's last run is
	// settled.
	tail int64
	// sorted are runs in the orders pages asked for, by the order's
	// name (RunOrderQuery.CompareName).
	mu     sync.Mutex
	sorted map[string][]*DagRun
}

// pendingRunsTxn is the DAG's unfinished runs as txn sees them; read
// counts the rows read when they are not remembered.
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
	p = &pendingRuns{watch: watch, tail: 1<<63 - 1, sorted: map[string][]*DagRun{}}
	down, err := dagRunsByID(txn, dagID, true)
	if err != nil {
		return nil, err
	}
	for raw := down.Next(); raw != nil; raw = down.Next() {
		r := raw.(*DagRun)
		if r.DagID != dagID {
			break
		}
		*read++
		if runSettled(r) {
			break
		}
		p.tail = r.ID
		p.runs = append(p.runs, r)
	}
	for _, state := range []RunState{RunQueued, RunRunning} {
		it, err := txn.Get(tableDagRuns, indexState, string(state), dagID)
		if err != nil {
			return nil, err
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if r := raw.(*DagRun); r.ID < p.tail {
				*read++
				p.runs = append(p.runs, r)
			}
		}
	}
	slices.SortFunc(p.runs, func(a, b *DagRun) int { return compareInt64(a.ID, b.ID) })
	s.pending.mu.Lock()
	if s.pending.of == nil || len(s.pending.of) >= maxPendingDAGs {
		s.pending.of = map[string]*pendingRuns{}
	}
	s.pending.of[dagID] = p
	s.pending.mu.Unlock()
	return p, nil
}

// inOrder is the unfinished runs in compare's order, which name names
// ("": not remembered, sorted at each call); the caller does not change
// the slice.
func (p *pendingRuns) inOrder(name string, compare func(a, b *DagRun) int) []*DagRun {
	if name != "" {
		p.mu.Lock()
		runs, ok := p.sorted[name]
		p.mu.Unlock()
		if ok {
			return runs
		}
	}
	runs := slices.Clone(p.runs)
	slices.SortFunc(runs, compare)
	if name != "" {
		p.mu.Lock()
		p.sorted[name] = runs
		p.mu.Unlock()
	}
	return runs
}

// inStateOrder is inOrder of the unfinished runs in state alone.
func (p *pendingRuns) inStateOrder(name string, compare func(a, b *DagRun) int, state RunState) []*DagRun {
	key := name + "\x00" + string(state)
	if name != "" {
		p.mu.Lock()
		runs, ok := p.sorted[key]
		p.mu.Unlock()
		if ok {
			return runs
		}
	}
	runs := []*DagRun{}
	for _, r := range p.inOrder(name, compare) {
		if r.State == state {
			runs = append(runs, r)
		}
	}
	if name != "" {
		p.mu.Lock()
		p.sorted[key] = runs
		p.mu.Unlock()
	}
	return runs
}
