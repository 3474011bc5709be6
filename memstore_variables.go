package main

// Airflow Variables.

import (
	"errors"
	"fmt"

	memdb "github.com/hashicorp/go-memdb"
)

// variablesTable holds Airflow Variables by key, and by the id that orders
// them.
func variablesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableVariables,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Variable]{func(v *Variable) string { return v.Key }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Variable]{func(v *Variable) int64 { return v.ID }}},
		},
	}
}

// Variable returns the variable under key; false when there is none.
// Templates read var.value.{key} through it.
func (s *Store) Variable(key string) (Variable, bool) {
	v, err := variableTxn(s.read(), key)
	if err != nil {
		return Variable{}, false
	}
	return *v, true
}

// VariableValue is Variable's value alone: the lookup a template engine
// takes.
func (s *Store) VariableValue(key string) (string, bool) {
	v, ok := s.Variable(key)
	return v.Val, ok
}

func variableTxn(txn *memdb.Txn, key string) (*Variable, error) {
	raw, err := txn.First(tableVariables, indexID, key)
	if err != nil {
		return nil, fmt.Errorf("look up variable %s: %w", key, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Variable), nil
}

// Variables lists every variable by id: the order they were set in.
func (s *Store) Variables() ([]*Variable, error) {
	it, err := s.read().Get(tableVariables, indexRowID)
	if err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	vars := []*Variable{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		vars = append(vars, raw.(*Variable))
	}
	return vars, nil
}

// SetVariable stores a variable as Airflow's Variable.set does: any
// variable under the key is replaced by a new one, with a new id. A new
// key is refused at the variable limit; a value over the size limit
// always.
func (s *Store) SetVariable(key, val string, description *string) (*Variable, error) {
	var out *Variable
	err := s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		switch {
		case err == nil:
			if err := txn.Delete(tableVariables, old); err != nil {
				return fmt.Errorf("replace variable %s: %w", key, err)
			}
		case !errors.Is(err, errNotFound):
			return err
		default:
			if err := enforceCountTxn(txn, tableVariables, s.limits.Variables, limitVariables); err != nil {
				return err
			}
		}
		id, err := nextCounter(txn, counterVariableID)
		if err != nil {
			return err
		}
		out = &Variable{ID: id, Key: key, Val: val, Description: description}
		return s.putVariableTxn(txn, out)
	})
	return out, err
}

// UpdateVariable changes an existing variable as change says, keeping its
// key and id (Airflow's PATCH sets the row's attributes); errNotFound when
// there is none.
func (s *Store) UpdateVariable(key string, change func(v Variable) Variable) (*Variable, error) {
	var out *Variable
	err := s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		if err != nil {
			return err
		}
		next := change(*old)
		next.ID, next.Key = old.ID, old.Key
		out = &next
		return s.putVariableTxn(txn, out)
	})
	return out, err
}

func (s *Store) putVariableTxn(txn *memdb.Txn, v *Variable) error {
	if max := s.limits.VariableBytes; max > 0 && len(v.Val) > max {
		return &limitError{limit: limitVariableBytes, key: v.Key, adding: int64(len(v.Val)), max: int64(max)}
	}
	if err := txn.Insert(tableVariables, v); err != nil {
		return fmt.Errorf("store variable %s: %w", v.Key, err)
	}
	return nil
}

// DeleteVariable removes a variable; errNotFound when there is none.
func (s *Store) DeleteVariable(key string) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := variableTxn(txn, key)
		if err != nil {
			return err
		}
		if err := txn.Delete(tableVariables, old); err != nil {
			return fmt.Errorf("delete variable %s: %w", key, err)
		}
		return nil
	})
}

// ResetVariables removes every variable.
func (s *Store) ResetVariables() error {
	return s.update(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tableVariables, indexID); err != nil {
			return fmt.Errorf("delete variables: %w", err)
		}
		return nil
	})
}
