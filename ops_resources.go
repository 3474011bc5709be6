package main

// The operations on the resources around runs: pools, variables,
// connections, XCom entries, the event log, a task instance's
// dependencies and datasets (ops_pools.go, ops_variables.go, ...). Every
// API and the status page call them; they take and return typed values and
// say what went wrong as opErrors (ops_errors.go), which each dialect
// phrases in its own words (apiexp_errors_resources.go,
// apiv1_errors_resources.go). Listings take one neutral listQuery.
//
// Where a dialect must check things in Airflow's order around a write (a
// body's schema between "does it exist" and "change it"), the domain rules
// are their own small functions (checkPoolName, checkVariableKey, ...)
// that the dialect calls in its order and the write calls again.

import (
	"slices"
	"time"
)

// resourceOps holds what the resource operations need: the store, the
// edition's rules, the clock, and how to wake the scheduler.
type resourceOps struct {
	store *Store
	rules *editionRules
	now   func() time.Time
	// wake tells the scheduler there may be work (a pool grew or
	// appeared); nil when there is no scheduler.
	wake func()
}

// wakeScheduler is the one way these operations wake the scheduler.
func (o *resourceOps) wakeScheduler() {
	if o.wake != nil {
		o.wake()
	}
}

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

// resourceOps are the resource operations as the server's APIs and pages
// call them.
func (s *server) resourceOps() *resourceOps {
	return &resourceOps{store: s.opts.Store, rules: s.rules(), now: s.opts.Now, wake: s.ops.wake}
}
