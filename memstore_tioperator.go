package main

// Every run's task instances by operator alone, either way (a
// TaskInstance column, the task's type: c57fba0e
// models/taskinstance.py:532, 874; SortParam looks the name up on the
// model, api_fastapi/common/parameters.py:315, so the column, not
// custom_operator_name; ties by the id in the key's direction, :327-330). A DAG has few
// operators: the task instances of each are counted once per version of
// each DAG's task-instance rows (remembered), a page passes whole operators for
// its offset by their counts and walks ti_order by id picking the
// operator's task instances. No write of its own.

import (
	"maps"
	"slices"

	memdb "github.com/hashicorp/go-memdb"
)

// TIOperatorQuery is a page of task instances by (operator, id), either
// way.
type TIOperatorQuery struct {
	// DagIDs are the DAGs whose runs' task instances are listed; nil:
	// every DAG with a DAG row.
	DagIDs []string
	Desc   bool
	// Keep, when set, picks the task instances (every filter of the
	// listing); KeepKey names it.
	Keep          func(RunTaskInstance) bool
	KeepKey       string
	Offset, Limit int
}

// TIOperatorPage is a page of the task instances q picks by operator
// and how many it picks; ok is false when the store cannot walk it (a
// task instance without an id, a mapped block that holds more than one
// walked down: the caller sorts). An operator's task instances are
// picked along the id walk: a rare operator's page reads the walk up to
// its last.
func (s *Store) TIOperatorPage(q TIOperatorQuery) (page []RunTaskInstance, total int, ok bool, err error) {
	txn := s.read()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	_, ids, ok, err := tiOrderTotal(txn, q.DagIDs)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	counts, err := s.operatorCountsTxn(txn, ids, q.Keep, q.KeepKey, &read)
	if err != nil {
		return nil, 0, false, err
	}
	ops := slices.Sorted(maps.Keys(counts))
	if q.Desc {
		slices.Reverse(ops)
	}
	for _, n := range counts {
		total += n
	}
	page = []RunTaskInstance{}
	if q.Offset >= total || q.Limit <= 0 {
		return page, total, true, nil
	}
	limit, offset := min(q.Limit, total-q.Offset), q.Offset
	for _, op := range ops {
		if len(page) >= limit {
			break
		}
		if n := counts[op]; offset >= n {
			offset -= n
			continue
		}
		m := &tiOrderMerge{txn: txn, byID: true, desc: q.Desc}
		if q.Desc {
			var wide bool
			if err := m.startDesc(ids, &wide); err != nil || wide {
				read += m.read
				return nil, 0, false, err
			}
		} else if err := m.start(ids); err != nil {
			return nil, 0, false, err
		}
		got, _, err := m.page(offset, limit-len(page), func(r RunTaskInstance) bool {
			return r.TI.Operator == op && (q.Keep == nil || q.Keep(r))
		}, false)
		read += m.read
		if err != nil {
			return nil, 0, false, err
		}
		page, offset = append(page, got...), 0
	}
	return page, total, true, nil
}

// operatorCountsTxn is how many task instances of dagIDs keep picks each
// operator has: each DAG's counted once per version of its task-instance
// rows and filter, then remembered (tiValueCountsTxn), so that a write of
// one DAG's task instances has the next page count that DAG's again.
func (s *Store) operatorCountsTxn(txn *memdb.Txn, dagIDs []string, keep func(RunTaskInstance) bool, keepKey string, read *int) (map[string]int, error) {
	return tiValueCountsTxn(txn, &s.tiOperators, "operator", dagIDs, func(r RunTaskInstance) string { return r.TI.Operator }, keep, keepKey, read)
}
