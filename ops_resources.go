package main

// The operations on the resources around runs: pools, variables,
// connections, XCom entries, the event log, a task instance's
// dependencies and datasets (ops_pools.go, ops_variables.go, ...), methods
// of the one operations value (ops.go) like those on runs and DAGs. Every
// API and the status page call them; they take and return typed values and
// say what went wrong as opErrors (ops_errors.go), which each dialect
// phrases in its own words (apiexp_errors.go, apiv1_errors.go). Listings
// take one neutral listQuery.
//
// Where a dialect must check things in Airflow's order around a write (a
// body's schema between "does it exist" and "change it"), the domain rules
// are their own small functions (checkPoolName, checkVariableKey, ...)
// that the dialect calls in its order and the write calls again.

import (
	"slices"
)

// listQuery is a neutral listing request: the attribute to order by (""
// for the resource's own order), descending or not, and the window. A
// limit of 0 means every row from offset on.
type listQuery struct {
	orderBy       string
	desc          bool
	offset, limit int
}

// listed is one window of a listing and the count of every row that
// matched, as every paged API answers them.
type listed[T any] struct {
	rows  []T
	total int
}

// faultOrderUnknown is an order attribute the resource does not sort by.
// Dialects check order_by against the resource's orders first, in their
// own words, so this is a caller's mistake.
const faultOrderUnknown opFault = "order_unknown"

// orderAndPage orders rows by q (stable: ties keep the order rows came
// in) with compare, which knows the resource's attributes, and cuts the
// window. orders are the attributes compare knows.
func orderAndPage[T any](rows []T, q listQuery, orders []string, compare func(a, b T, attr string) int) (listed[T], error) {
	if q.orderBy != "" {
		if !slices.Contains(orders, q.orderBy) {
			return listed[T]{}, opErr(errInvalid, faultOrderUnknown, "order_by", q.orderBy)
		}
		slices.SortStableFunc(rows, func(a, b T) int {
			c := compare(a, b, q.orderBy)
			if q.desc {
				c = -c
			}
			return c
		})
	}
	return listed[T]{rows: window(rows, q), total: len(rows)}, nil
}

// window is the rows of q's window: from offset, at most limit (all when
// limit is 0).
func window[T any](rows []T, q listQuery) []T {
	if q.offset >= len(rows) {
		return nil
	}
	rows = rows[max(q.offset, 0):]
	if q.limit > 0 && q.limit < len(rows) {
		rows = rows[:q.limit]
	}
	return rows
}
