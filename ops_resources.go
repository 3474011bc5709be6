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
	"errors"
	"regexp"
	"slices"
	"strings"
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

// Bulk changes (Airflow 3.2.1 core_api/datamodels/common.py BulkBody,
// core_api/services/public/common.py BulkService and its pools,
// variables and connections services): a list of actions, each a
// create, an update or a delete of many entities, run in order. An
// action that finds keys it may not touch (a create of existing keys
// under "fail", an update or a delete of missing keys under "fail")
// changes nothing and reports one fault naming those keys; otherwise
// its entities are changed one by one, and the first fault stops the
// action, the changes before it kept (Airflow's session is committed
// with them). The three resources share this logic; bulkKind says how
// each one looks its keys up and changes one entity.

// bulkVerb is an action's kind, as BulkAction's values name it.
type bulkVerb string

const (
	bulkCreate bulkVerb = "create"
	bulkUpdate bulkVerb = "update"
	bulkDelete bulkVerb = "delete"
)

// bulkVerbs is the order a bulk answer lists its actions in
// (BulkResponse's fields).
var bulkVerbs = []bulkVerb{bulkCreate, bulkUpdate, bulkDelete}

// The bulk actions' faults: keys names the keys, joined by bulkKeySep.
const (
	faultBulkExist   opFault = "bulk_exist"   // resource, keys: a create's keys that exist (fail)
	faultBulkMissing opFault = "bulk_missing" // resource, keys: an update's or a delete's keys that do not (fail)
)

// bulkKeySep joins the keys a bulk fault names (no key holds it).
const bulkKeySep = "\x00"

// bulkAction is one action of a bulk request. A create's entities are
// E, an update's too; a delete names keys.
type bulkAction[E any] struct {
	verb     bulkVerb
	entities []E
	keys     []string
	// onExistence is a create's action_on_existence: "fail", "skip" or
	// "overwrite"; onMissing an update's or a delete's
	// action_on_non_existence: "fail" or "skip".
	onExistence, onMissing string
	// mask is an update's update_mask (nil: every field given).
	mask []string
}

// bulkOutcome is what one verb's actions did: the keys changed and the
// faults met, in order.
type bulkOutcome struct {
	success []string
	faults  []*opError
}

// bulkKind is how bulk actions change one resource.
type bulkKind[E any] struct {
	resource string // "pools", "variables", "connections": named in the faults
	key      func(E) string
	exists   func(key string) (bool, error)
	// create adds an entity, or replaces the existing one (existed).
	create func(e E, existed bool) error
	patch  func(e E, mask []string) error
	delete func(key string) error
	// createsTeam and patchesTeam tell whether a create, or an update
	// under mask, would store a team (nil: never).
	createsTeam func(e E) bool
	patchesTeam func(e E, mask []string) bool
	// patchRaises is the error an update under mask raises at its write
	// (a 500 that rolls the request back), or nil (nil: never).
	patchRaises func(e E, mask []string) error
}

// errTeamMissing is a write that would store a team_name. Airflow 3.2.1's
// pool, connection and variable rows hold their team_name under a
// foreign key to the team table (c57fba0e models/pool.py:86-87,
// connection.py:138-140, variable.py:60-62), which holds no team with
// multi_team off, as airlite's store holds none; 3.2.1's bodies take the
// field (no multi_team validator: apache/airflow#63994 came later), so
// the commit's IntegrityError, which no handler answers (the unique
// constraint's handler passes it by, common/exceptions.py), is
// Starlette's plain 500, and the session rolls the request's changes
// back. It is no opError: no dialect phrases it.
var errTeamMissing = errors.New("team_name: the team table holds no such team")

// storesTeam reports whether a change that sets team_name (set) sets it
// to a team rather than null.
func storesTeam(team *string, set bool) bool { return set && team != nil }

// runBulk runs the actions in order and gathers what each verb did; a
// fault that is not an opError (the store failing) ends the request. A
// request one of whose changes would store a team changes nothing
// (checkBulkTeams).
func runBulk[E any](k bulkKind[E], actions []bulkAction[E]) (map[bulkVerb]*bulkOutcome, error) {
	if err := checkBulkTeams(k, actions); err != nil {
		return nil, err
	}
	return runBulkActions(k, actions)
}

// checkBulkTeams runs the actions as runBulkActions does but writes
// nothing, and answers errTeamMissing when one of them would store a
// team: 3.2.1's foreign key fails the request at its flush or commit,
// and the session rolls back every action before it too.
func checkBulkTeams[E any](k bulkKind[E], actions []bulkAction[E]) error {
	if !carriesTeam(k, actions) {
		return nil // the usual request: no dry pass, no second lookup a key
	}
	made := map[string]bool{} // the keys earlier actions created (true) or deleted
	dry := k
	dry.exists = func(key string) (bool, error) {
		if there, ok := made[key]; ok {
			return there, nil
		}
		return k.exists(key)
	}
	dry.create = func(e E, _ bool) error {
		made[k.key(e)] = true
		return nil
	}
	dry.patch = func(E, []string) error { return nil }
	dry.delete = func(key string) error {
		made[key] = false
		return nil
	}
	_, err := runBulkActions(dry, actions)
	return err
}

// carriesTeam reports whether an entity of actions would store a team if
// its action reached it (a create's, or an update's under its mask), or
// raise at an update's write (patchRaises): only then can the dry pass
// find errTeamMissing or that error.
func carriesTeam[E any](k bulkKind[E], actions []bulkAction[E]) bool {
	for _, a := range actions {
		for _, e := range a.entities {
			switch {
			case a.verb == bulkCreate && k.createsTeam != nil && k.createsTeam(e):
				return true
			case a.verb == bulkUpdate && k.patchesTeam != nil && k.patchesTeam(e, a.mask):
				return true
			case a.verb == bulkUpdate && k.patchRaises != nil && k.patchRaises(e, a.mask) != nil:
				return true
			}
		}
	}
	return false
}

// runBulkActions is runBulk's loop.
func runBulkActions[E any](k bulkKind[E], actions []bulkAction[E]) (map[bulkVerb]*bulkOutcome, error) {
	out := map[bulkVerb]*bulkOutcome{}
	for _, a := range actions {
		res := out[a.verb]
		if res == nil {
			res = &bulkOutcome{success: []string{}}
			out[a.verb] = res
		}
		if err := k.run(a, res); err != nil {
			var oe *opError
			if !errors.As(err, &oe) {
				return nil, err
			}
			res.faults = append(res.faults, oe)
		}
	}
	return out, nil
}

// run is one action: its keys sorted into those that exist and those
// that do not, the action's rule for each, then its changes.
func (k bulkKind[E]) run(a bulkAction[E], res *bulkOutcome) error {
	keys := a.keys
	if a.verb != bulkDelete {
		keys = make([]string, len(a.entities))
		for i, e := range a.entities {
			keys[i] = k.key(e)
		}
	}
	found := make(map[string]bool, len(keys))
	var existing, missing []string
	for _, key := range keys {
		if _, seen := found[key]; seen {
			continue
		}
		ok, err := k.exists(key)
		if err != nil {
			return err
		}
		found[key] = ok
		if ok {
			existing = append(existing, key)
		} else {
			missing = append(missing, key)
		}
	}
	switch a.verb {
	case bulkCreate:
		if a.onExistence == "fail" && len(existing) > 0 {
			return opErr(errConflict, faultBulkExist, "resource", k.resource, "keys", strings.Join(existing, bulkKeySep))
		}
		for _, e := range a.entities {
			key := k.key(e)
			if found[key] && a.onExistence == "skip" {
				continue
			}
			if k.createsTeam != nil && k.createsTeam(e) {
				return errTeamMissing
			}
			if err := k.create(e, found[key]); err != nil {
				return err
			}
			res.success = append(res.success, key)
		}
	case bulkUpdate:
		if a.onMissing == "fail" && len(missing) > 0 {
			return opErr(errNotFound, faultBulkMissing, "resource", k.resource, "keys", strings.Join(missing, bulkKeySep))
		}
		for _, e := range a.entities {
			key := k.key(e)
			if !found[key] {
				continue
			}
			if k.patchesTeam != nil && k.patchesTeam(e, a.mask) {
				return errTeamMissing
			}
			if k.patchRaises != nil {
				if err := k.patchRaises(e, a.mask); err != nil {
					return err
				}
			}
			if err := k.patch(e, a.mask); err != nil {
				return err
			}
			res.success = append(res.success, key)
		}
	case bulkDelete:
		if a.onMissing == "fail" && len(missing) > 0 {
			return opErr(errNotFound, faultBulkMissing, "resource", k.resource, "keys", strings.Join(missing, bulkKeySep))
		}
		for _, key := range existing {
			if err := k.delete(key); err != nil {
				return err
			}
			res.success = append(res.success, key)
		}
	}
	return nil
}

// fieldSet is the fields a body gave (pydantic's model_fields_set), by
// their Python names.
type fieldSet map[string]bool

// masked is the fields a change sets: those given, only those of the
// update_mask when there is one, never those of fixed.
func (given fieldSet) masked(mask []string, fixed ...string) fieldSet {
	out := fieldSet{}
	for f := range given {
		if len(mask) > 0 && !slices.Contains(mask, f) {
			continue
		}
		if slices.Contains(fixed, f) {
			continue
		}
		out[f] = true
	}
	return out
}

// sortKey is one key of a listing's order (order_by's values): an
// attribute, descending or not. nullsLow puts NULL below every value, as
// SQLite sorts it, first ascending and last descending: Airflow 3.2's
// SortParam.to_orm orders by the column alone (c57fba0e
// airflow-core/src/airflow/api_fastapi/common/parameters.py:283-330,
// apache/airflow#59004 took out the "nullscheck" column that kept NULLs
// last both ways), so the database decides, and Airflow's tests pin
// SQLite's order (test_dags.py:440-470, test_task_instances.py:868-895,
// test_event_logs.py:316-340). Without it NULL is above every value and a
// descending key puts it first, as PostgreSQL and /api/v1 do.
type sortKey struct {
	attr     string
	desc     bool
	nullsLow bool
}

// nullRank is what a comparison answers when exactly one side is NULL
// (compareNullable): a magnitude no comparison of two values gives, so
// that a nullsLow key can tell a NULL from a value.
const nullRank = 2

// directed is c, a comparison of the key's attribute (NULLs after
// values), in the key's direction; a nullsLow key turns the NULL's place
// against the key's direction (before the values ascending, after them
// descending).
func (k sortKey) directed(c int) int {
	if k.nullsLow && (c == nullRank || c == -nullRank) {
		if k.desc {
			return c
		}
		return -c
	}
	if !k.desc {
		return c
	}
	return -c
}

// sortParamCompare orders rows as Airflow 3.2's SortParam.to_orm orders a
// select on SQLite (sortKey's nullsLow): for each key a NULL (isNull)
// below every value, so first ascending and last descending, then the
// value (compare) in the key's direction; last the primary key (pk) in
// the first key's direction.
func sortParamCompare[T any](keys []sortKey, isNull func(attr string, x T) bool, compare func(attr string, a, b T) int, pk func(a, b T) int) func(a, b T) int {
	return func(a, b T) int {
		for _, k := range keys {
			if an, bn := isNull(k.attr, a), isNull(k.attr, b); an != bn {
				if an == k.desc {
					return 1
				}
				return -1
			}
			c := compare(k.attr, a, b)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		if len(keys) > 0 && keys[0].desc {
			return pk(b, a)
		}
		return pk(a, b)
	}
}

// keyedQuery is an Airflow 3 listing request: the rows whose key match
// takes (a pattern, nil: all), ordered by keys then by the resource's primary key
// (SortParam adds it), the window from offset, at most limit rows.
type keyedQuery struct {
	match         *regexp.Regexp
	keys          []sortKey
	offset, limit int
}

// listKeyed filters rows by q.match on key, orders them by q's keys with
// compare (which knows the resource's attributes, "id" its primary key)
// and cuts the window.
func listKeyed[T any](rows []T, key func(T) string, q keyedQuery, compare func(a, b T, attr string) int) listed[T] {
	if q.match != nil {
		kept := rows[:0:0]
		for _, r := range rows {
			if q.match.MatchString(key(r)) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	keys := append(slices.Clone(q.keys), sortKey{attr: "id"})
	slices.SortStableFunc(rows, func(a, b T) int {
		for _, k := range keys {
			if c := k.directed(compare(a, b, k.attr)); c != 0 {
				return c
			}
		}
		return 0
	})
	total := len(rows)
	if q.offset >= len(rows) {
		return listed[T]{rows: []T{}, total: total}
	}
	rows = rows[q.offset:]
	if q.limit < len(rows) {
		rows = rows[:q.limit]
	}
	return listed[T]{rows: rows, total: total}
}

// foundBy is a bulk kind's exists for a store lookup by key: found, or
// not (errNotFound), or the lookup's error.
func foundBy[T any](lookup func(key string) (T, error)) func(key string) (bool, error) {
	return func(key string) (bool, error) {
		_, err := lookup(key)
		if errors.Is(err, errNotFound) {
			return false, nil
		}
		return err == nil, err
	}
}
