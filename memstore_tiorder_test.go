package main

import (
	"testing"

	memdb "github.com/hashicorp/go-memdb"
)

// orderBlocks lists every block of the default orders: ti_order's rows
// and the blocks pending in the run counts.
func orderBlocks(tb testing.TB, txn *memdb.Txn) []*tiOrderRow {
	tb.Helper()
	var out []*tiOrderRow
	it, err := txn.Get(tableTIOrder, indexID)
	if err != nil {
		tb.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*tiOrderRow))
	}
	if it, err = txn.Get(tableRunCounts, indexID); err != nil {
		tb.Fatal(err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*runCount).Pending...)
	}
	return out
}
