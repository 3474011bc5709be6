package main

// Connections: one by connection_id, listing them, creating, changing and
// deleting one (Airflow 2.10.3 airflow/models/connection.py,
// api_connexion/endpoints/connection_endpoint.py, the key rule of
// airflow/utils/helpers.py validate_key).

import (
	"cmp"
	"errors"
	"strings"
	"unicode"
)

// The connections' faults.
const (
	faultConnectionNotFound  opFault = "connection_not_found"   // conn_id
	faultConnectionExists    opFault = "connection_exists"      // conn_id
	faultConnectionIDTooLong opFault = "connection_id_too_long" // conn_id
	faultConnectionIDInvalid opFault = "connection_id_invalid"  // conn_id
	faultConnectionIDFixed   opFault = "connection_id_fixed"    // conn_id, new_id: a connection keeps its id
)

// connectionOrders are the attributes connections are listed by.
var connectionOrders = []string{"id", "connection_id", "conn_type", "description", "host", "port"}

// maxConnectionIDChars is validate_key's max_length for a conn_id.
const maxConnectionIDChars = 200

// checkConnectionID is Airflow's helpers.validate_key(conn_id,
// max_length=200): word characters, dots and dashes (Python's $ also
// lets one final newline by).
func checkConnectionID(id string) error {
	if len([]rune(id)) > maxConnectionIDChars {
		return opErr(errInvalid, faultConnectionIDTooLong, "conn_id", id)
	}
	body := strings.TrimSuffix(id, "\n")
	ok := body != "" && strings.IndexFunc(body, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '.' || r == '-')
	}) < 0
	if !ok {
		return opErr(errInvalid, faultConnectionIDInvalid, "conn_id", id)
	}
	return nil
}

// checkConnectionRename refuses a change that gives a connection another
// connection_id ("" names none).
func checkConnectionRename(c *Connection, newID string) error {
	if newID != "" && newID != c.ConnID {
		return opErr(errInvalid, faultConnectionIDFixed, "conn_id", c.ConnID, "new_id", newID)
	}
	return nil
}

// connection is the connection with connection_id id.
func (o *operations) connection(id string) (*Connection, error) {
	c, err := o.store.ConnectionByID(id)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultConnectionNotFound, "conn_id", id)
	}
	return c, err
}

// connections lists connections in q's order (by id when q names none);
// a missing value sorts after every value, as PostgreSQL sorts NULL.
func (o *operations) connections(q listQuery) (listed[*Connection], error) {
	conns, err := o.store.Connections() // by id
	if err != nil {
		return listed[*Connection]{}, err
	}
	return orderAndPage(conns, q, connectionOrders, func(a, b *Connection, attr string) int {
		switch attr {
		case "connection_id":
			return strings.Compare(a.ConnID, b.ConnID)
		case "conn_type":
			return strings.Compare(a.ConnType, b.ConnType)
		case "description":
			return compareNullable(a.Description, b.Description, strings.Compare)
		case "host":
			return compareNullable(a.Host, b.Host, strings.Compare)
		case "port":
			return compareNullable(a.Port, b.Port, cmp.Compare[int])
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// createConnection adds a connection whose connection_id is valid and
// not taken.
func (o *operations) createConnection(c Connection) (*Connection, error) {
	if err := checkConnectionID(c.ConnID); err != nil {
		return nil, err
	}
	created, err := o.store.CreateConnection(c)
	if errors.Is(err, errExists) {
		return nil, opErr(errConflict, faultConnectionExists, "conn_id", c.ConnID)
	}
	return created, err
}

// updateConnection changes an existing connection by change; its
// connection_id stays.
func (o *operations) updateConnection(id string, change func(*Connection)) (*Connection, error) {
	c, err := o.store.UpdateConnection(id, func(c Connection) (Connection, error) {
		change(&c)
		return c, nil
	})
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultConnectionNotFound, "conn_id", id)
	}
	return c, err
}

// deleteConnection removes the connection with connection_id id.
func (o *operations) deleteConnection(id string) error {
	err := o.store.DeleteConnection(id)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultConnectionNotFound, "conn_id", id)
	}
	return err
}
