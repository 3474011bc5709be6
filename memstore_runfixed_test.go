package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// TestTriggerIndexWrites_FixedMarks: a trigger compares its run's conf
// and external_trigger with the DAG's newest run's, which the DAG's counts
// keep, and writes a fixed mark only when one of them is below that run's
// (a descent of the order): triggers with the same conf write none, a
// smaller conf ({"a": 1} sorts before {}) one row, the next trigger with
// {} none again; and the external_trigger order, every run's true, none.
func TestTriggerIndexWrites_FixedMarks(t *testing.T) {
	t.Parallel()
	store, dags := benchStoreWith(t)
	var got []string
	store.committed = func(c memdb.Changes) { got = indexWrites(t, c) }
	h := benchHandlerOf(t, edition2, store, dags)
	for i, tc := range []struct {
		conf  string
		marks []string
	}{
		{`{}`, nil},
		{`{}`, nil},
		{`{"a": 1}`, []string{tableFixedMarks + ".id"}},
		{`{}`, nil},
		{`{"b": 1}`, []string{tableFixedMarks + ".id"}}, // below {}: a second break in the same row
	} {
		body := fmt.Sprintf(`{"conf": %s, "execution_date": "2026-01-01T00:%02d:00+00:00"}`, tc.conf, i)
		req := httptest.NewRequest(http.MethodPost, apiPrefix+"/dags/example_bash_operator/dag_runs", strings.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("trigger %d: %d %s", i, rec.Code, rec.Body)
		}
		var marks []string
		for _, entry := range got {
			if strings.HasPrefix(entry, tableFixedMarks) {
				marks = append(marks, entry)
			}
		}
		if !slices.Equal(marks, tc.marks) {
			t.Errorf("trigger %d (conf %s): index entries %q, want %q of the fixed marks", i, tc.conf, got, tc.marks)
		}
	}
	m, err := fixedMarksTxn(store.read(), "example_bash_operator", "conf")
	if err != nil {
		t.Fatal(err)
	}
	var breaks []string
	for _, b := range m.Breaks {
		breaks = append(breaks, fmt.Sprintf("%s after %s", b.Value.Conf, b.PrevValue.Conf))
	}
	if want := []string{`{"a":1} after {}`, `{"b":1} after {}`}; !slices.Equal(breaks, want) {
		t.Errorf("conf marks %q, want %q", breaks, want)
	}
}

// TestRunFixedMarks_PastTheMaxWalkSorted stores a DAG's runs whose confs
// descend every other run, past fixedMarksMax marks: the DAG's order by
// conf is no longer kept (Unkept), so its pages walk its runs sorted
// (fixedOrderTxn; until runlists5 they sorted), with the answers of the
// sort; its order by external_trigger, which the runs keep, is walked
// between its marks.
func TestRunFixedMarks_PastTheMaxWalkSorted(t *testing.T) {
	t.Parallel()
	f := newRunOrderFixture(t, edition3, 21)
	const dagID = "tutorial"
	err := f.ts.store.update(func(txn *memdb.Txn) error {
		for i := range 2*fixedMarksMax + 4 {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			r := &DagRun{ID: id, DagID: dagID, RunID: fmt.Sprintf("many_%d", i), ExecutionDate: f.base.Add(-100 * 24 * time.Hour).Add(time.Duration(i) * time.Minute),
				State: RunSuccess, Conf: json.RawMessage([]string{`{}`, `{"a":1}`}[i%2])}
			if err := txn.Insert(tableDagRuns, r); err != nil {
				return err
			}
			if err := markRunTxn(txn, nil, r); err != nil {
				return err
			}
			if err := countRunTxn(txn, r, 1, 0, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := fixedMarksTxn(f.ts.store.read(), dagID, "conf")
	if err != nil {
		t.Fatal(err)
	}
	if !conf.Unkept || len(conf.Breaks) != 0 {
		t.Fatalf("conf marks: unkept %t with %d breaks, want unkept with none", conf.Unkept, len(conf.Breaks))
	}
	for _, tc := range []struct {
		q      runQuery
		walked bool
	}{
		{runQuery{dagIDs: []string{dagID}, order: []runOrderKey{{"conf", false}}, offset: 500, limit: 30}, true},
		{runQuery{order: []runOrderKey{{"conf", true}}, limit: 30}, true},
		{runQuery{dagIDs: []string{dagID}, orderBy: "external_trigger", desc: true, offset: 7, limit: 30}, true},
	} {
		want, wantTotal, err := f.ts.srv.ops.sortedRuns(&tc.q)
		if err != nil {
			t.Fatal(err)
		}
		oq, _ := tc.q.orderQuery()
		if _, _, walked, err := f.ts.store.RunOrderPage(oq); err != nil || walked != tc.walked {
			t.Errorf("%+v: walked %t (%v), want %t", tc.q, walked, err, tc.walked)
		}
		got, total, err := f.ts.srv.ops.listRuns(&tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(runRowIDs(got), runRowIDs(want)) || total != wantTotal {
			t.Errorf("%+v: %v of %d, want %v of %d", tc.q, runRowIDs(got), total, runRowIDs(want), wantTotal)
		}
	}
}
