package main

// Airflow Connections.

import (
	"errors"
	"fmt"

	memdb "github.com/hashicorp/go-memdb"
)

// connectionsTable holds Airflow Connections by connection_id, and by the
// id that orders them.
func connectionsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableConns,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: stringField[Connection]{func(c *Connection) string { return c.ConnID }}},
			indexRowID: {Name: indexRowID, Unique: true, Indexer: intField[Connection]{func(c *Connection) int64 { return c.ID }}},
		},
	}
}

// ConnectionByID returns a connection, or errNotFound.
func (s *Store) ConnectionByID(connID string) (*Connection, error) {
	return connectionTxn(s.read(), connID)
}

// connectionFound is ConnectionByID for templates: found or not; a lookup
// error counts as not found, which fails the render naming the conn_id.
func (s *Store) connectionFound(connID string) (*Connection, bool) {
	c, err := s.ConnectionByID(connID)
	return c, err == nil
}

func connectionTxn(txn *memdb.Txn, connID string) (*Connection, error) {
	raw, err := txn.First(tableConns, indexID, connID)
	if err != nil {
		return nil, fmt.Errorf("look up connection %s: %w", connID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*Connection), nil
}

// Connections lists every connection by id: the order they were created in.
func (s *Store) Connections() ([]*Connection, error) {
	it, err := s.read().Get(tableConns, indexRowID)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	conns := []*Connection{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		conns = append(conns, raw.(*Connection))
	}
	return conns, nil
}

// CreateConnection stores a new connection with a new id; a
// connection_id already taken is an *existsError, as Airflow's POST
// refuses it.
func (s *Store) CreateConnection(c Connection) (*Connection, error) {
	var out *Connection
	err := s.update(func(txn *memdb.Txn) error {
		_, err := connectionTxn(txn, c.ConnID)
		switch {
		case err == nil:
			return &existsError{what: "connection", id: c.ConnID}
		case !errors.Is(err, errNotFound):
			return err
		}
		if err := enforceCountTxn(txn, tableConns, s.limits.Connections, limitConnections); err != nil {
			return err
		}
		if c.ID, err = nextCounter(txn, counterConnectionID); err != nil {
			return err
		}
		out = &c
		return s.putConnectionTxn(txn, out)
	})
	return out, err
}

// UpdateConnection changes an existing connection as change says, keeping
// its connection_id and id; errNotFound when there is none. change may
// refuse with an error, which the write returns.
func (s *Store) UpdateConnection(connID string, change func(c Connection) (Connection, error)) (*Connection, error) {
	var out *Connection
	err := s.update(func(txn *memdb.Txn) error {
		old, err := connectionTxn(txn, connID)
		if err != nil {
			return err
		}
		next, err := change(*old)
		if err != nil {
			return err
		}
		next.ID, next.ConnID = old.ID, old.ConnID
		out = &next
		return s.putConnectionTxn(txn, out)
	})
	return out, err
}

func (s *Store) putConnectionTxn(txn *memdb.Txn, c *Connection) error {
	if max := s.limits.ConnectionBytes; max > 0 && c.Bytes() > max {
		return &limitError{limit: limitConnBytes, key: c.ConnID, adding: int64(c.Bytes()), max: int64(max)}
	}
	if err := txn.Insert(tableConns, c); err != nil {
		return fmt.Errorf("store connection %s: %w", c.ConnID, err)
	}
	return nil
}

// DeleteConnection removes a connection; errNotFound when there is none.
func (s *Store) DeleteConnection(connID string) error {
	return s.update(func(txn *memdb.Txn) error {
		old, err := connectionTxn(txn, connID)
		if err != nil {
			return err
		}
		if err := txn.Delete(tableConns, old); err != nil {
			return fmt.Errorf("delete connection %s: %w", connID, err)
		}
		return nil
	})
}

// ResetConnections removes every connection.
func (s *Store) ResetConnections() error {
	return s.update(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(tableConns, indexID); err != nil {
			return fmt.Errorf("delete connections: %w", err)
		}
		return nil
	})
}
