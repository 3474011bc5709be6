package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	memdb "github.com/hashicorp/go-memdb"
)

// Group commit for the store's hottest write, the trigger. A go-memdb write
// transaction copies every radix-tree node on the path of each key it
// inserts, once per transaction, and commits once; concurrent triggers that
// share one transaction share those copies and that commit. Writers queue; the
// one at the front applies everything queued as one transaction, wakes the
// others with their answers and hands the front to the next waiter, the
// scheme of LevelDB's DBImpl::Write. A lone writer applies its own write at
// once: no goroutine sits between a request and the store.

// maxWriteBatch bounds how many writes share a transaction, and with it how
// long the leader's own caller waits.
const maxWriteBatch = 128

// writeQueue is the queue of writers waiting for a batched update.
type writeQueue struct {
	mu      sync.Mutex
	pending []*batchedWrite
	busy    bool // a leader is applying a batch

	callers atomic.Int64 // inside updateBatched, queued or not yet
}

// batchedWrite is one caller's write. done is closed once err is final, or
// once lead is set: the caller is then the leader of the next batch.
type batchedWrite struct {
	fn   func(*memdb.Txn) error
	err  error
	lead bool
	done chan struct{}
}

// updateBatched runs fn in a write transaction, as update does, possibly
// with the writes of concurrent callers in the same transaction. Each
// caller gets the answer it would have got alone, in arrival order: when fn
// fails, nothing it wrote is kept and the others are applied without it.
// fn may therefore run more than once; only its writes to txn may have
// effects, and the results it leaves in its closure are those of its last
// run. fn writes whenever it succeeds (a trigger writes its run): the
// change index moves without the transaction tracking its changes.
func (s *Store) updateBatched(fn func(*memdb.Txn) error) error {
	w := &batchedWrite{fn: guarded(fn), done: make(chan struct{})}
	q := &s.writes
	q.callers.Add(1)
	defer q.callers.Add(-1)
	q.mu.Lock()
	q.pending = append(q.pending, w)
	if q.busy {
		q.mu.Unlock()
		<-w.done
		if !w.lead {
			return raised(w.err)
		}
		q.mu.Lock()
	} else if q.callers.Load() > 1 {
		// Other writers are on their way to the queue: yield once so
		// that they join this batch rather than wait for the next. A lone
		// caller (a client's sequential requests) never waits here.
		q.busy = true
		q.mu.Unlock()
		runtime.Gosched()
		q.mu.Lock()
	}
	q.busy = true
	// w is at the front: alone when it found no leader, first in the queue
	// when the last leader handed over.
	n := min(len(q.pending), maxWriteBatch)
	batch := q.pending[:n:n]
	q.pending = q.pending[n:]
	q.mu.Unlock()

	s.applyBatch(batch)

	q.mu.Lock()
	if len(q.pending) > 0 {
		next := q.pending[0]
		next.lead = true
		close(next.done)
	} else {
		q.busy = false
	}
	q.mu.Unlock()
	for _, o := range batch {
		if o != w {
			close(o.done)
		}
	}
	return raised(w.err)
}

// writePanic is a panic inside a batched write. It is caught where the
// batch is applied, so that the other writers get their answers and the
// queue moves on, and raised again in the goroutine of the caller whose
// write it was: that request fails as it would have unbatched.
type writePanic struct {
	value any
	stack []byte
}

func (p *writePanic) Error() string { return fmt.Sprintf("write panicked: %v", p.value) }

// guarded turns a panic of fn into a *writePanic error.
func guarded(fn func(*memdb.Txn) error) func(*memdb.Txn) error {
	return func(txn *memdb.Txn) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = &writePanic{value: v, stack: debug.Stack()}
			}
		}()
		return fn(txn)
	}
}

// raised returns err, or panics again when err is a caught panic, with
// the stack where it first happened.
func raised(err error) error {
	if p, ok := err.(*writePanic); ok {
		panic(fmt.Sprintf("%v (in a batched write, first raised at:\n%s)", p.value, p.stack))
	}
	return err
}

// applyBatch applies the writes in one transaction and sets each one's err.
// When a write fails, the transaction is dropped and the batch is applied
// again in three parts: the writes before it, it alone (to fail on its own,
// with nothing kept), and the writes after it.
func (s *Store) applyBatch(batch []*batchedWrite) {
	switch len(batch) {
	case 0:
		return
	case 1:
		batch[0].err = s.write(batch[0].fn, true)
		return
	}
	failed := -1
	err := s.write(func(txn *memdb.Txn) error {
		for i, w := range batch {
			if err := w.fn(txn); err != nil {
				failed = i
				return err
			}
		}
		return nil
	}, true)
	switch {
	case err == nil: // every err stays nil
	case failed < 0: // the commit itself failed, for every write in it
		for _, w := range batch {
			w.err = err
		}
	default:
		s.applyBatch(batch[:failed])
		batch[failed].err = s.write(batch[failed].fn, true)
		s.applyBatch(batch[failed+1:])
	}
}
