package main

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// eventLogShown reads the log every way a reader can (a page up, a page
// down, every row, the snapshot's rows) and fails unless each gives
// want, by id; the total of the pages must be len(want).
func eventLogShown(t *testing.T, store *Store, step string, want []int64) {
	t.Helper()
	idsOf := func(rows []*EventLog) []int64 {
		out := []int64{}
		for _, e := range rows {
			out = append(out, e.ID)
		}
		return out
	}
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	for _, desc := range []bool{false, true} {
		page, total, err := store.EventLogPage(desc, 0, len(want)+10)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if desc {
			w = reversed
		}
		if got := idsOf(page); total != len(want) || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("%s: page (desc %t) %v, total %d; want %v, %d", step, desc, got, total, w, len(want))
		}
	}
	// A filtered page (every event picked) shows the same rows: those
	// under the floor wait for their drop unseen.
	for _, desc := range []bool{false, true} {
		page, total, err := store.EventLogFilteredPage(desc, 0, len(want)+10, func(*EventLog) bool { return true }, "every")
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if desc {
			w = reversed
		}
		if got := idsOf(page); total != len(want) || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("%s: filtered page (desc %t) %v, total %d; want %v, %d", step, desc, got, total, w, len(want))
		}
	}
	all, err := store.EventLogs()
	if err != nil {
		t.Fatal(err)
	}
	if got := idsOf(all); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: EventLogs %v; want %v", step, got, want)
	}
	var snap []*EventLog
	if err := store.Snapshot().Rows(tableEventLogs, func(row any) error {
		snap = append(snap, row.(*EventLog))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := idsOf(snap); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: snapshot rows %v; want %v", step, got, want)
	}
}

// storedEventLogs counts the rows the log's table holds, shown or not.
func storedEventLogs(t *testing.T, store *Store) int {
	t.Helper()
	it, err := store.read().Get(tableEventLogs, indexID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	return n
}

// TestStore_EventLogDropEvery: at --max-event-logs the log shows the
// newest ids only, from the append that pushes a row out on, and the rows
// that fell out are deleted together every eventLogDropEvery appends, not
// one by one: an append between the drops writes its row and the
// counter, and deletes nothing.
func TestStore_EventLogDropEvery(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	const keep = 3
	store.limits.EventLogs = keep
	var deleted int
	store.committed = func(c memdb.Changes) {
		for _, ch := range c {
			if ch.Table == tableEventLogs && ch.After == nil {
				deleted++
			}
		}
	}
	drops := 0
	for id := int64(1); id <= 2*eventLogDropEvery+10; id++ {
		deleted = 0
		if err := store.AppendEventLog(EventLog{Event: "e"}); err != nil {
			t.Fatal(err)
		}
		var want []int64
		for i := max(id-keep+1, 1); i <= id; i++ {
			want = append(want, i)
		}
		step := fmt.Sprintf("append %d", id)
		eventLogShown(t, store, step, want)
		if floor := id - keep + 1; floor > 0 && floor%eventLogDropEvery == 0 {
			drops++
			want := eventLogDropEvery // the ids since the last drop
			if drops == 1 {
				want-- // ids start at 1
			}
			if deleted != want {
				t.Fatalf("%s: %d rows deleted, want %d", step, deleted, want)
			}
			if n := storedEventLogs(t, store); n != keep {
				t.Fatalf("%s: %d rows stored after the drop, want %d", step, n, keep)
			}
		} else if deleted != 0 {
			t.Fatalf("%s: %d rows deleted between drops", step, deleted)
		}
		if n := storedEventLogs(t, store); n > keep+eventLogDropEvery {
			t.Fatalf("%s: %d rows stored", step, n)
		}
		if id > keep {
			if _, err := store.EventLogByID(id - keep); !errors.Is(err, errNotFound) {
				t.Fatalf("%s: event %d, fallen out: %v, want errNotFound", step, id-keep, err)
			}
		}
		if e, err := store.EventLogByID(id); err != nil || e.ID != id {
			t.Fatalf("%s: event %d: %v, %v", step, id, e, err)
		}
	}
	if drops != 2 {
		t.Fatalf("%d drops, want 2", drops)
	}
}

// TestStore_EventLogDropEvery_Gaps: rows a restore brought with ids
// missing between them, under a cap that hides some of them: the hidden
// ones are neither shown nor counted, and the drop takes them and the
// missing ids out of the gaps' count.
func TestStore_EventLogDropEvery_Gaps(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Restore()
	if err != nil {
		t.Fatal(err)
	}
	restored := []int64{3, 4, 7, 9, 12, 13}
	for _, id := range restored {
		if err := r.Insert(tableEventLogs, &EventLog{ID: id, Event: "restored"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	store.limits.EventLogs = 6 // shows ids 8..13
	eventLogShown(t, store, "restored", []int64{9, 12, 13})
	// Appends up to the drop: the floor reaches eventLogDropEvery when
	// the id is eventLogDropEvery+5.
	for id := int64(14); id <= eventLogDropEvery+5; id++ {
		if err := store.AppendEventLog(EventLog{Event: "e"}); err != nil {
			t.Fatal(err)
		}
		if id == 20 {
			eventLogShown(t, store, "append 20", []int64{15, 16, 17, 18, 19, 20})
		}
	}
	if n := storedEventLogs(t, store); n != 6 {
		t.Fatalf("%d rows stored after the drop, want 6", n)
	}
	if gaps := totalTxn(store.read(), totalEventLogGaps); gaps != 0 {
		t.Fatalf("gaps %d after the drop, want 0", gaps)
	}
	want := []int64{}
	for id := int64(eventLogDropEvery); id <= eventLogDropEvery+5; id++ {
		want = append(want, id)
	}
	eventLogShown(t, store, "dropped", want)
}

// TestStore_EventLogDropEvery_LoweredCap: rows kept under no cap, then a
// cap of 3: they are hidden at once, and the next drop takes every block
// of them, not only the last eventLogDropEvery ids.
func TestStore_EventLogDropEvery_LoweredCap(t *testing.T) {
	t.Parallel()
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*eventLogDropEvery + 100
	for range n {
		if err := store.AppendEventLog(EventLog{Event: "e"}); err != nil {
			t.Fatal(err)
		}
	}
	store.limits.EventLogs = 3
	eventLogShown(t, store, "capped", []int64{n - 2, n - 1, n})
	if got := storedEventLogs(t, store); got != n {
		t.Fatalf("%d rows stored before the drop, want %d", got, n)
	}
	// The drop comes with the id whose floor (id-2) is a multiple of
	// eventLogDropEvery: 4*256+2.
	for id := int64(n + 1); id <= 4*eventLogDropEvery+2; id++ {
		if err := store.AppendEventLog(EventLog{Event: "e"}); err != nil {
			t.Fatal(err)
		}
	}
	const last = 4*eventLogDropEvery + 2
	eventLogShown(t, store, "dropped", []int64{last - 2, last - 1, last})
	if got := storedEventLogs(t, store); got != 3 {
		t.Fatalf("%d rows stored after the drop, want 3", got)
	}
}
