package main

// Pools: listing them with the slots their task instances hold, one pool,
// creating, replacing, changing and deleting one (Airflow 2.10.3
// airflow/models/pool.py; 1.10.15 airflow/api/common/experimental/pool.py;
// 2.10.3 airflow/api_connexion/endpoints/pool_endpoint.py). A write that
// may let waiting task instances start wakes the scheduler.

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The pools' faults.
const (
	faultPoolNotFound        opFault = "pool_not_found"            // name
	faultPoolExists          opFault = "pool_exists"               // name
	faultPoolNameEmpty       opFault = "pool_name_empty"           //
	faultPoolNameTooLong     opFault = "pool_name_too_long"        // max
	faultPoolDescTooLong     opFault = "pool_description_too_long" // max
	faultDefaultPoolDelete   opFault = "default_pool_delete"       //
	faultDefaultPoolRenaming opFault = "default_pool_rename"       //
)

// poolOrders are the attributes pools are listed by.
var poolOrders = []string{"id", "name", "slots"}

// pooled is a pool with the slots its task instances hold now.
type pooled struct {
	*Pool
	Used PoolSlots
}

// Open is the slots left, as Pool.open_slots counts them (running and
// queued hold slots); -1 for an unlimited pool (slots -1), whose open
// slots Airflow counts as infinite.
func (p pooled) Open() int64 {
	if p.Slots == -1 {
		return -1
	}
	return p.Slots - p.Used.Running - p.Used.Queued
}

// checkPoolName is Airflow's empty-name rule (a name of spaces is empty).
func checkPoolName(name string) error {
	if strings.TrimSpace(name) == "" {
		return opErr(errInvalid, faultPoolNameEmpty)
	}
	return nil
}

// checkPoolNameLength is Airflow 2's length rule (pool.py's 256), which
// airlite applies to 1.10 too, whose 50-character column fails in the
// database instead.
func checkPoolNameLength(name string) error {
	if utf8.RuneCountInString(name) > maxPoolNameChars {
		return opErr(errInvalid, faultPoolNameTooLong, "max", strconv.Itoa(maxPoolNameChars))
	}
	return nil
}

// checkPoolDescription is airlite's bound on a description
// (docs/behaviour.md §5).
func checkPoolDescription(d *string) error {
	if d != nil && len(*d) > maxPoolDescriptionBytes {
		return opErr(errInvalid, faultPoolDescTooLong, "max", strconv.Itoa(maxPoolDescriptionBytes))
	}
	return nil
}

// checkPoolFields applies every rule a stored pool meets.
func checkPoolFields(name string, description *string) error {
	return cmp.Or(checkPoolName(name), checkPoolNameLength(name), checkPoolDescription(description))
}

// checkDefaultPoolChange refuses a change that would rename default_pool:
// unless the change names it default_pool (namedAs), only slots and
// include_deferred may change (fields, PoolSchema's names; nil for all).
func checkDefaultPoolChange(name, namedAs string, fields []string) error {
	if name != defaultPoolName || namedAs == defaultPoolName {
		return nil
	}
	onlySlots := len(fields) > 0
	for _, f := range fields {
		onlySlots = onlySlots && (f == "slots" || f == "include_deferred")
	}
	if !onlySlots {
		return opErr(errInvalid, faultDefaultPoolRenaming)
	}
	return nil
}

// pools lists pools in q's order (by name when q names none; ties in the
// order they were created) with the slots their task instances hold.
func (o *operations) pools(q listQuery) (listed[pooled], error) {
	pools, err := o.store.Pools() // by name
	if err != nil {
		return listed[pooled]{}, err
	}
	used, err := o.store.PoolSlotsByName()
	if err != nil {
		return listed[pooled]{}, err
	}
	rows := make([]pooled, len(pools))
	for i, p := range pools {
		rows[i] = pooled{p, used[p.Name]}
	}
	if q.orderBy != "" {
		// ties (equal slots) in the order the pools were created
		slices.SortFunc(rows, func(a, b pooled) int { return cmp.Compare(a.ID, b.ID) })
	}
	return orderAndPage(rows, q, poolOrders, func(a, b pooled, attr string) int {
		switch attr {
		case "name":
			return strings.Compare(a.Name, b.Name)
		case "slots":
			return cmp.Compare(a.Slots, b.Slots)
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// pool is one pool with the slots held now.
func (o *operations) pool(name string) (pooled, error) {
	p, err := o.store.PoolByName(name)
	if errors.Is(err, errNotFound) {
		return pooled{}, opErr(errNotFound, faultPoolNotFound, "name", name)
	}
	if err != nil {
		return pooled{}, err
	}
	return o.withSlots(p)
}

func (o *operations) withSlots(p *Pool) (pooled, error) {
	used, err := o.store.PoolSlotsByName()
	if err != nil {
		return pooled{}, err
	}
	return pooled{p, used[p.Name]}, nil
}

// putPool creates a pool or replaces an existing one's slots and
// description (the experimental API's POST /pools, Pool.create_or_update_pool).
func (o *operations) putPool(name string, slots int64, description *string) (*Pool, error) {
	if err := checkPoolFields(name, description); err != nil {
		return nil, err
	}
	p, err := o.store.UpsertPool(name, slots, description)
	if err != nil {
		return nil, err
	}
	o.wake() // more slots may let waiting tasks start
	return p, nil
}

// createPool adds a pool whose name is not taken (the stable API's POST).
// The empty-name rule is left to the caller's body check: a stable-API
// body with "name": null arrives here with an empty name, which airlite
// has always stored (Airflow's NOT NULL column fails there with a 500);
// kept so that answers stay as they were.
func (o *operations) createPool(p Pool) (pooled, error) {
	if err := cmp.Or(checkPoolNameLength(p.Name), checkPoolDescription(p.Description)); err != nil {
		return pooled{}, err
	}
	created, err := o.store.CreatePool(p)
	if errors.Is(err, errExists) {
		return pooled{}, opErr(errConflict, faultPoolExists, "name", p.Name)
	}
	if err != nil {
		return pooled{}, err
	}
	o.wake() // a pool a waiting task names may now exist
	return o.withSlots(created)
}

// updatePool changes a pool by change, which may rename it.
func (o *operations) updatePool(name string, change func(Pool) Pool) (pooled, error) {
	p, err := o.store.UpdatePool(name, change)
	var exists *existsError
	switch {
	case errors.Is(err, errNotFound):
		return pooled{}, opErr(errNotFound, faultPoolNotFound, "name", name)
	case errors.As(err, &exists):
		return pooled{}, opErr(errConflict, faultPoolExists, "name", exists.id)
	case err != nil:
		return pooled{}, err
	}
	o.wake() // more slots may let waiting tasks start
	return o.withSlots(p)
}

// deletePool removes a pool other than default_pool and returns it as it
// was.
func (o *operations) deletePool(name string) (*Pool, error) {
	if name == defaultPoolName {
		return nil, opErr(errInvalid, faultDefaultPoolDelete)
	}
	p, err := o.store.DeletePool(name)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultPoolNotFound, "name", name)
	}
	return p, err
}

// Airflow 3's pool changes (Airflow 3.2.1 core_api/services/public/
// pools.py update_orm_from_pydantic, BulkPoolService).
const (
	faultDefaultPoolFields opFault = "default_pool_fields" // a change of default_pool beyond slots and include_deferred
	faultPoolFieldsMissing opFault = "pool_fields_missing" // fields: what a change of another pool must give (BasePool)
)

// poolChange is a pool as an Airflow 3 body gives it (PoolBody,
// PoolPatchBody): its values and the fields given, by BasePool's names
// ("pool", "slots", "description", "include_deferred", "team_name").
type poolChange struct {
	Name            string
	Slots           int64
	Description     *string
	IncludeDeferred bool
	Team            *string // team_name (errTeamMissing)
	given           fieldSet
}

// patchesTeam reports whether a change of the pool under mask would
// store a team: update_orm_from_pydantic sets the fields given (those of
// the mask), and default_pool takes slots and include_deferred alone.
func (p poolChange) patchesTeam(mask []string) bool {
	return checkPoolChange(p.Name, p, mask) == nil && storesTeam(p.Team, p.given.masked(mask)["team_name"])
}

// createPoolChange is POST /pools of Airflow 3: a new pool with a team
// fails at its foreign key (errTeamMissing), a name taken first at its
// unique constraint (createPool's conflict).
func (o *operations) createPoolChange(p poolChange) (pooled, error) {
	if p.Team != nil {
		if _, err := o.store.PoolByName(p.Name); errors.Is(err, errNotFound) {
			return pooled{}, errTeamMissing
		}
	}
	return o.createPool(Pool{Name: p.Name, Slots: p.Slots, Description: p.Description, IncludeDeferred: p.IncludeDeferred})
}

// poolBaseFields are BasePool's required fields: a change of a pool
// other than default_pool is validated against BasePool with the fields
// given, so each must be there.
var poolBaseFields = []string{"pool", "slots", "include_deferred"}

// checkPoolChange is update_orm_from_pydantic's rule for a change of
// the pool named name: default_pool takes a mask of slots and
// include_deferred only; any other pool a change giving BasePool's
// fields.
func checkPoolChange(name string, p poolChange, mask []string) error {
	if name == defaultPoolName {
		onlySlots := len(mask) > 0
		for _, m := range mask {
			m = strings.TrimSpace(m)
			onlySlots = onlySlots && (m == "slots" || m == "include_deferred")
		}
		if !onlySlots {
			return opErr(errInvalid, faultDefaultPoolFields)
		}
		return nil
	}
	var missing []string
	for _, f := range poolBaseFields {
		if !p.given[f] {
			missing = append(missing, f)
		}
	}
	if missing != nil {
		return opErr(errInvalid, faultPoolFieldsMissing, "fields", strings.Join(missing, ","))
	}
	return nil
}

// patchPool changes the pool named name by the fields p gives, only
// those of mask when there is one (apply_patch_with_update_mask).
func (o *operations) patchPool(name string, p poolChange, mask []string) (pooled, error) {
	if _, err := o.pool(name); err != nil {
		return pooled{}, err
	}
	if err := checkPoolChange(name, p, mask); err != nil {
		return pooled{}, err
	}
	if err := checkPoolDescription(p.Description); err != nil {
		return pooled{}, err
	}
	set := p.given.masked(mask)
	if storesTeam(p.Team, set["team_name"]) {
		return pooled{}, errTeamMissing
	}
	return o.updatePool(name, func(old Pool) Pool {
		if set["pool"] {
			old.Name = p.Name
		}
		if set["slots"] {
			old.Slots = p.Slots
		}
		if set["description"] {
			old.Description = p.Description
		}
		if set["include_deferred"] {
			old.IncludeDeferred = p.IncludeDeferred
		}
		return old
	})
}

// poolBulk is how bulk actions change pools: a create replaces an
// existing pool's every field (overwrite), an update is patchPool, and
// default_pool is never deleted (airlite keeps the rule of DELETE
// /pools/default_pool for a bulk delete too, rather than lose the pool
// every task instance falls back to).
func (o *operations) poolBulk() bulkKind[poolChange] {
	return bulkKind[poolChange]{
		resource: "pools",
		key:      func(p poolChange) string { return p.Name },
		exists:   foundBy(o.store.PoolByName),
		create: func(p poolChange, existed bool) error {
			if !existed {
				_, err := o.createPool(Pool{Name: p.Name, Slots: p.Slots, Description: p.Description, IncludeDeferred: p.IncludeDeferred})
				return err
			}
			if err := checkPoolDescription(p.Description); err != nil {
				return err
			}
			_, err := o.updatePool(p.Name, func(old Pool) Pool {
				old.Slots, old.Description, old.IncludeDeferred = p.Slots, p.Description, p.IncludeDeferred
				return old
			})
			return err
		},
		patch: func(p poolChange, mask []string) error {
			_, err := o.patchPool(p.Name, p, mask)
			return err
		},
		delete: func(name string) error {
			_, err := o.deletePool(name)
			return err
		},
		// A create sets every field, team_name too (Pool(**model_dump()),
		// setattr of each for an overwrite).
		createsTeam: func(p poolChange) bool { return p.Team != nil },
		patchesTeam: func(p poolChange, mask []string) bool { return p.patchesTeam(mask) },
	}
}

// poolsKeyed lists pools for Airflow 3 (ordered by "id" or "pool").
func (o *operations) poolsKeyed(q keyedQuery) (listed[pooled], error) {
	if res, ok, err := pageKeyed(q, "pool", o.store.PoolKeyedPage); ok {
		if err != nil {
			return listed[pooled]{}, err
		}
		used, err := o.store.PoolSlotsByName()
		if err != nil {
			return listed[pooled]{}, err
		}
		rows := make([]pooled, len(res.rows))
		for i, p := range res.rows {
			rows[i] = pooled{p, used[p.Name]}
		}
		return listed[pooled]{rows: rows, total: res.total}, nil
	}
	all, err := o.pools(listQuery{})
	if err != nil {
		return listed[pooled]{}, err
	}
	return listKeyed(all.rows, func(p pooled) string { return p.Name }, q, func(a, b pooled, attr string) int {
		if attr == "pool" {
			return strings.Compare(a.Name, b.Name)
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}
