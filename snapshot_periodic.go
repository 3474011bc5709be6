package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// snapshotter writes the store to its snapshot file every interval when
// the state changed, keeps the id lease ahead of the id counters, and
// writes a last snapshot at stop. Its loops own lastIndex, failing and
// lease; stop waits for them before the final write.
type snapshotter struct {
	store    *Store
	path     string
	interval time.Duration
	log      zerolog.Logger
	now      func() time.Time
	// writeLease writes the id lease file; tests swap it for one that
	// fails like a full disk.
	writeLease func(path string, run, pool int64) error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	lastIndex    int64 // change index of the last snapshot written
	written      bool  // a snapshot was written by this process
	failing      bool  // the last write failed (logged once per episode)
	lease        idLease
	leaseFailing bool
}

func newSnapshotter(store *Store, path string, interval time.Duration, log zerolog.Logger) *snapshotter {
	ctx, cancel := context.WithCancel(context.Background())
	return &snapshotter{store: store, path: path, interval: interval, log: log, now: time.Now, writeLease: writeLease, ctx: ctx, cancel: cancel}
}

// start launches the snapshot loop and the lease loop.
func (sn *snapshotter) start() {
	sn.wg.Add(2)
	go func() {
		defer sn.wg.Done()
		sn.loop()
	}()
	go func() {
		defer sn.wg.Done()
		sn.leaseLoop()
	}()
}

// stop ends the loops, writes a final snapshot and, when it is written,
// sets the id lease back to the exact counters so that ids continue from
// the highest one after a clean restart. Call it once nothing writes to
// the store any more (HTTP server shut down, scheduler stopped).
func (sn *snapshotter) stop() error {
	sn.cancel()
	sn.wg.Wait()
	if err := sn.write(); err != nil {
		return fmt.Errorf("write final snapshot: %w", err)
	}
	// The ceiling comes down to the counters first: from here no id is
	// handed out that the exact lease would not cover.
	run, pool := sn.store.PinIDCeiling(leasePath(sn.path))
	if err := sn.writeLease(leasePath(sn.path), run, pool); err != nil {
		sn.store.LeaseFailed(leasePath(sn.path), err)
		return err
	}
	return nil
}

func (sn *snapshotter) loop() {
	ticker := time.NewTicker(sn.interval)
	defer ticker.Stop()
	for {
		select {
		case <-sn.ctx.Done():
			return
		case <-ticker.C:
		}
		_ = sn.write() // logged there; retried at the next tick
	}
}

// write writes a snapshot when the change index moved since the last one.
// A failure is logged once per episode; the previous snapshot stays.
func (sn *snapshotter) write() error {
	if sn.written && sn.store.ChangeIndex() == sn.lastIndex {
		return nil
	}
	start := time.Now()
	stats, err := writeSnapshot(sn.store, sn.path, sn.now())
	if err != nil {
		if !sn.failing {
			sn.log.Error().Err(err).Str("path", sn.path).
				Msg("snapshot not written; the previous one is kept, serving on and retrying every interval")
		}
		sn.failing = true
		return err
	}
	if sn.failing {
		sn.log.Info().Str("path", sn.path).Msg("snapshot written again")
	}
	sn.failing, sn.written, sn.lastIndex = false, true, stats.Index
	sn.log.Debug().Int64("index", stats.Index).Int("rows", stats.Rows).Int64("bytes", stats.Bytes).
		Dur("took", time.Since(start)).Msg("snapshot written")
	return nil
}

// leaseLoop extends the id lease whenever a counter comes within half a
// block of it; it wakes on every change of the counters, and after a
// failed write every interval. A failure is logged once per episode.
func (sn *snapshotter) leaseLoop() {
	for {
		ws := newIDWatch()
		if err := sn.renewLease(ws); err != nil {
			if !sn.leaseFailing {
				sn.log.Error().Err(err).Msg("id lease not written; retrying every interval, and refusing new runs and pools once their ids pass it")
			}
			sn.leaseFailing = true
		} else if sn.leaseFailing {
			sn.log.Info().Msg("id lease written again")
			sn.leaseFailing = false
		}
		ctx := sn.ctx
		var cancel context.CancelFunc = func() {}
		if sn.leaseFailing {
			ctx, cancel = context.WithTimeout(sn.ctx, sn.interval)
		}
		err := ws.Wait(ctx)
		cancel()
		if err != nil && sn.ctx.Err() != nil {
			return
		}
	}
}

// renewLease writes the lease file a block ahead of the id counters when
// one of them came within half a block of it, and tells the store the
// outcome: ids are handed out only up to what the lease on disk covers.
// ws, when not nil, is given channels that fire when the counters move.
func (sn *snapshotter) renewLease(ws *idWatch) error {
	run, pool := sn.store.IDCounters(ws)
	if sn.lease.Format != "" && run <= sn.lease.DagRun-leaseBlock/2 && pool <= sn.lease.Pool-leaseBlock/2 {
		return nil
	}
	path := leasePath(sn.path)
	next := idLease{Format: leaseFormat, Version: leaseVersion, DagRun: run + leaseBlock, Pool: pool + leaseBlock}
	if err := sn.writeLease(path, next.DagRun, next.Pool); err != nil {
		sn.store.LeaseFailed(path, err)
		return err
	}
	sn.lease = next
	sn.store.LeaseWritten(path, next.DagRun, next.Pool)
	return nil
}
