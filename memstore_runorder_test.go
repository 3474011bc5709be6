package main

import (
	"fmt"
	"slices"
	"testing"
)

// randomRunQuery is a listing of f's runs in a random order (one key, as
// /api/v1 or /api/v2 asks it), of one DAG, two or every one, with random
// filters and window.
func (f *runOrderFixture) randomRunQuery(v2 bool) *runQuery {
	rng := f.rng
	q := &runQuery{offset: rng.IntN(90), limit: rng.IntN(50)}
	switch rng.IntN(3) {
	case 0:
		q.dagIDs = []string{f.dagIDs[rng.IntN(len(f.dagIDs))]}
	case 1:
		q.dagIDs = []string{f.dagIDs[3], f.dagIDs[rng.IntN(3)]}
	}
	if v2 {
		attr := []string{"id", "state", "dag_id", "run_id", "run_after", "start_date", "end_date", "updated_at", "duration", "logical_date", "conf"}[rng.IntN(11)]
		q.order = []runOrderKey{{attr, rng.IntN(2) == 0}}
		if rng.IntN(3) == 0 {
			// Several keys: the walks put the runs that tie on the first
			// in the order of the others.
			next := []string{"start_date", "run_id", "state", "conf", "duration", "end_date", "updated_at", "logical_date", "run_after"}[rng.IntN(9)]
			q.order = append(q.order, runOrderKey{next, rng.IntN(2) == 0})
		}
	} else {
		q.orderBy = []string{"id", "state", "dag_id", "execution_date", "dag_run_id", "start_date", "end_date", "updated_at", "external_trigger"}[rng.IntN(9)]
		q.desc = rng.IntN(2) == 0
	}
	switch rng.IntN(6) {
	case 0:
		q.states = [][]string{{"success"}, {"failed", "queued"}, {"running", "success"}}[rng.IntN(3)]
	case 1:
		q.states = []string{"none", "failed"}
	case 2:
		at := f.at()
		if v2 {
			q.more = &runFilters{start: timeRange{gte: at}, openDatesAt: f.at()}
		} else {
			q.startGTE = at
		}
	case 3:
		if v2 {
			q.more = &runFilters{runID: likePattern("_1"), runTypes: []string{"manual"}}
		} else {
			q.updatedLTE = f.at()
		}
	}
	return q
}

// TestRuns_OrderedPagesAsTheSort lists random pages of runs (one order
// key as each API asks it, any DAGs, filters) between random writes and
// holds each, asked twice, to the sorting path's page; the orders the
// store walks must be walked (RunOrderPage answers).
func TestRuns_OrderedPagesAsTheSort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    edition
		v2   bool
		seed uint64
	}{{edition3, true, 11}, {edition2, false, 12}, {edition3, false, 13}} {
		t.Run(fmt.Sprintf("%s_v2=%t", tc.e, tc.v2), func(t *testing.T) {
			t.Parallel()
			f := newRunOrderFixture(t, tc.e, tc.seed)
			o := f.ts.srv.ops
			walked := 0
			for i := range 400 {
				if i%20 == 0 {
					f.change(t, 5)
				}
				q := f.randomRunQuery(tc.v2)
				if q.orderBy == "execution_date" && tc.e == edition3 {
					// /api/v1 is edition 2's: RunPage's walk by date is
					// run_after, which edition 3's runs may not share.
					continue
				}
				want, wantTotal, err := o.sortedRuns(q)
				if err != nil {
					t.Fatal(err)
				}
				if oq, ok := q.orderQuery(); ok && slices.Contains(runOrderWalks, oq.Attr) && (oq.Lead == nil || slices.Contains(runLeadWalks, oq.Attr)) {
					_, _, served, err := f.ts.store.RunOrderPage(oq)
					if err != nil {
						t.Fatal(err)
					}
					if !served {
						t.Fatalf("listing %d (%+v): not walked", i, *q)
					}
					if served {
						walked++
					}
				}
				for range 2 {
					got, total, err := o.listRuns(q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(runRowIDs(got), runRowIDs(want)) || total != wantTotal {
						t.Fatalf("listing %d (%+v, more %+v): %v of %d, want %v of %d", i, *q, q.more, runRowIDs(got), total, runRowIDs(want), wantTotal)
					}
				}
			}
			if walked < 150 {
				t.Errorf("%d listings walked, want most of 400", walked)
			}
		})
	}
}

func runRowIDs(runs []*DagRun) []int64 {
	out := []int64{}
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}
