package main

// Pools.

import (
	"errors"
	"fmt"

	memdb "github.com/hashicorp/go-memdb"
)

// poolsTable holds pools by name, and by integer id.
func poolsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tablePools,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Pool]{func(p *Pool) string { return p.Name }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Pool]{func(p *Pool) int64 { return p.ID }}},
		},
	}
}

// ensurePoolsTxn creates default_pool and the fixture pools when missing;
// with overwrite, fixture values replace existing ones.
func (s *Store) ensurePoolsTxn(txn *memdb.Txn, pools []*Pool, overwrite bool) error {
	desc := "Default pool"
	all := append([]*Pool{{Name: defaultPoolName, Slots: defaultPoolSlots, Description: &desc}}, pools...)
	for _, p := range all {
		existing, err := poolTxn(txn, p.Name)
		if err == nil && !overwrite {
			continue
		}
		np := *p
		if existing != nil {
			np.ID = existing.ID
		} else if np.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
			return err
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("insert pool %s: %w", p.Name, err)
		}
	}
	return nil
}

// ResetPools puts the pools back to default_pool and the fixture pools.
func (s *Store) ResetPools(fixture []*Pool) error {
	return s.updateIDs(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tablePools, indexID); err != nil {
			return fmt.Errorf("delete pools: %w", err)
		}
		return s.ensurePoolsTxn(txn, fixture, true)
	})
}

// Pools lists every pool by name.
func (s *Store) Pools() ([]*Pool, error) {
	it, err := s.read().Get(tablePools, indexID)
	if err != nil {
		return nil, fmt.Errorf("list pools: %w", err)
	}
	pools := []*Pool{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		pools = append(pools, raw.(*Pool))
	}
	return pools, nil
}

// PoolPage lists the pools from the offset-th by name, at most limit of
// them, and counts them all.
func (s *Store) PoolPage(offset, limit int) (page []*Pool, total int, err error) {
	it, err := s.read().Get(tablePools, indexID)
	if err != nil {
		return nil, 0, fmt.Errorf("list pools: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if total >= offset && len(page) < limit {
			page = append(page, raw.(*Pool))
		}
		total++
	}
	return page, total, nil
}

// PoolByName returns a pool, or errNotFound.
func (s *Store) PoolByName(name string) (*Pool, error) { return poolTxn(s.read(), name) }

func poolTxn(txn *memdb.Txn, name string) (*Pool, error) {
	raw, err := txn.First(tablePools, indexID, name)
	if err != nil {
		return nil, fmt.Errorf("look up pool %s: %w", name, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Pool), nil
}

// UpsertPool creates a pool or replaces an existing one's slots and
// description (its id and include_deferred stay), and returns the result.
func (s *Store) UpsertPool(name string, slots int64, description *string) (*Pool, error) {
	var out *Pool
	err := s.updateIDs(func(txn *memdb.Txn) error {
		p := &Pool{Name: name, Slots: slots, Description: description}
		existing, err := poolTxn(txn, name)
		switch {
		case err == nil:
			p.ID, p.IncludeDeferred = existing.ID, existing.IncludeDeferred
		case errors.Is(err, errNotFound):
			if err := enforcePoolLimitTxn(txn, s.limits.Pools); err != nil {
				return err
			}
			if p.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
				return err
			}
		default:
			return err
		}
		if err := txn.Insert(tablePools, p); err != nil {
			return fmt.Errorf("store pool %s: %w", name, err)
		}
		out = p
		return nil
	})
	return out, err
}

// CreatePool adds a pool that must not exist yet (the stable API's POST
// /pools): a taken name is errConflict, --max-pools applies.
func (s *Store) CreatePool(p Pool) (*Pool, error) {
	var out *Pool
	err := s.updateIDs(func(txn *memdb.Txn) error {
		if _, err := poolTxn(txn, p.Name); err == nil {
			return &existsError{what: "pool", id: p.Name}
		} else if !errors.Is(err, errNotFound) {
			return err
		}
		if err := enforcePoolLimitTxn(txn, s.limits.Pools); err != nil {
			return err
		}
		np := p
		var err error
		if np.ID, err = s.nextIDTxn(txn, counterPoolID); err != nil {
			return err
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("store pool %s: %w", np.Name, err)
		}
		out = &np
		return nil
	})
	return out, err
}

// UpdatePool changes a pool by change, which gets a copy; it may rename
// the pool (its id stays; a taken name is errConflict). Task instances
// keep the pool name they were created with, as Airflow's rows do.
func (s *Store) UpdatePool(name string, change func(Pool) Pool) (*Pool, error) {
	var out *Pool
	err := s.update(func(txn *memdb.Txn) error {
		old, err := poolTxn(txn, name)
		if err != nil {
			return err
		}
		np := change(*old)
		np.ID = old.ID
		if np.Name != old.Name {
			if _, err := poolTxn(txn, np.Name); err == nil {
				return &existsError{what: "pool", id: np.Name}
			} else if !errors.Is(err, errNotFound) {
				return err
			}
			if err := txn.Delete(tablePools, old); err != nil {
				return fmt.Errorf("rename pool %s: %w", name, err)
			}
		}
		if err := txn.Insert(tablePools, &np); err != nil {
			return fmt.Errorf("store pool %s: %w", np.Name, err)
		}
		out = &np
		return nil
	})
	return out, err
}

// PoolSlots is what task instances of one pool hold, by state, in
// pool_slots, as Airflow's Pool counts them.
type PoolSlots struct {
	Running, Queued, Scheduled int64
}

// PoolSlotsByName counts the slots of scheduled, queued and running task
// instances per pool name, from one point in time.
func (s *Store) PoolSlotsByName() (map[string]PoolSlots, error) {
	txn := s.read()
	out := map[string]PoolSlots{}
	for _, state := range []TaskState{TaskScheduled, TaskQueued, TaskRunning} {
		tis, err := taskInstancesInStateTxn(txn, state)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			u := out[ti.Pool]
			switch state {
			case TaskScheduled:
				u.Scheduled += int64(ti.PoolSlots)
			case TaskQueued:
				u.Queued += int64(ti.PoolSlots)
			default:
				u.Running += int64(ti.PoolSlots)
			}
			out[ti.Pool] = u
		}
	}
	return out, nil
}

// enforcePoolLimitTxn refuses one more pool at max pools (--max-pools).
// Pools are few (the limit keeps them so), so it counts them.
func enforcePoolLimitTxn(txn *memdb.Txn, max int) error {
	if max <= 0 {
		return nil
	}
	it, err := txn.Get(tablePools, indexID)
	if err != nil {
		return fmt.Errorf("count pools: %w", err)
	}
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		n++
	}
	if n < max {
		return nil
	}
	return &limitError{limit: limitPools, have: int64(n)}
}

// DeletePool removes a pool and returns it as it was, or errNotFound.
func (s *Store) DeletePool(name string) (*Pool, error) {
	var out *Pool
	err := s.update(func(txn *memdb.Txn) error {
		p, err := poolTxn(txn, name)
		if err != nil {
			return err
		}
		if err := txn.Delete(tablePools, p); err != nil {
			return fmt.Errorf("delete pool %s: %w", name, err)
		}
		out = p
		return nil
	})
	return out, err
}
