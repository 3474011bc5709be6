package main

// Connections: one by connection_id, listing them, creating, changing and
// deleting one (Airflow 2.10.3 airflow/models/connection.py,
// api_connexion/endpoints/connection_endpoint.py, the key rule of
// airflow/utils/helpers.py validate_key).

import (
	"cmp"
	"errors"
	"slices"
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

// Airflow 3's connection changes (Airflow 3.2.1 core_api/routes/public/
// connections.py patch_connection, core_api/services/public/
// connections.py update_orm_from_pydantic, BulkConnectionService).
const faultConnectionIDMismatch opFault = "connection_id_mismatch" // conn_id, body_id

// connectionChange is a connection as an Airflow 3 body gives it
// (ConnectionBody): its values and the fields given, by the model's
// Python names ("connection_id", "conn_type", "description", "host",
// "login", "port", "password", "extra", "team_name"), except the schema,
// which is "schema" however the body names it: update_orm_from_pydantic
// renames model_fields_set's "schema_" so that an update_mask may say
// "schema".
type connectionChange struct {
	Connection
	Team  *string // team_name (errTeamMissing)
	given fieldSet
}

// connectionFixed are the fields update_orm_from_pydantic never sets as
// they come: the id, and the password and extra, which have setters.
var connectionFixed = []string{"connection_id", "password", "extra"}

// createConnectionChange is POST /connections of Airflow 3: a new
// connection with a team fails at its foreign key (errTeamMissing), an
// id taken first at its unique constraint (createConnection's conflict).
func (o *operations) createConnectionChange(c connectionChange) (*Connection, error) {
	if c.Team != nil {
		if _, err := o.store.ConnectionByID(c.ConnID); errors.Is(err, errNotFound) {
			return nil, errTeamMissing
		}
	}
	return o.createConnection(c.Connection)
}

// patchConnection changes the connection id as Airflow 3.2.1's
// update_orm_from_pydantic does (services/public/connections.py): its id
// never changes; the fields c gives are set, only those of mask when
// there is one. The password and the extra are set when c gives them and
// there is no mask, or when the mask names them (absent from c: none); a
// value left "***" there keeps the stored one (secretsMasker.merge, the secrets
// masker's merge since apache/airflow#53943).
func (o *operations) patchConnection(id string, c connectionChange, mask []string) (*Connection, error) {
	if c.ConnID != id {
		return nil, opErr(errInvalid, faultConnectionIDMismatch, "conn_id", id, "body_id", c.ConnID)
	}
	set := c.given.masked(mask, connectionFixed...)
	if storesTeam(c.Team, set["team_name"]) {
		if _, err := o.connection(id); err != nil {
			return nil, err
		}
		return nil, errTeamMissing
	}
	setter := func(field string) bool {
		if len(mask) == 0 {
			return c.given[field]
		}
		return slices.Contains(mask, field)
	}
	return o.updateConnection(id, func(old *Connection) {
		if set["conn_type"] {
			old.ConnType = c.ConnType
		}
		if set["description"] {
			old.Description = c.Description
		}
		if set["host"] {
			old.Host = c.Host
		}
		if set["login"] {
			old.Login = c.Login
		}
		if set["schema"] {
			old.Schema = c.Schema
		}
		if set["port"] {
			old.Port = c.Port
		}
		if setter("password") {
			old.Password = mergedPassword(c.Password, old.Password)
		}
		if setter("extra") {
			old.Extra = mergedExtra(o.rules().masker, c.Extra, old.Extra)
		}
	})
}

// mergedPassword is the password an update stores: none when the body
// gives none, else the body's with "***" read as the stored one
// (merge(new, old, "password")).
func mergedPassword(given, stored *string) *string {
	if given == nil {
		return nil
	}
	if *given == maskedValue {
		return stored
	}
	return given
}

// mergedExtra is the extra an update stores: the body's when either side
// is none or either is not JSON, else the two merged (each value left
// "***" under a sensitive key taking the stored one) and written again by
// json.dumps.
func mergedExtra(m secretsMasker, given, stored *string) *string {
	if given == nil || stored == nil {
		return given
	}
	newV, err := decodePyJSON([]byte(*given))
	if err != nil {
		return given
	}
	oldV, err := decodePyJSON([]byte(*stored))
	if err != nil {
		return given
	}
	dumped, err := pyDumps(m.merge(newV, oldV, "", 0, false))
	if err != nil {
		return given
	}
	return &dumped
}

// connectionBulk is how bulk actions change connections: a create
// replaces an existing connection's every field (overwrite), an update
// is patchConnection without a mask (BulkConnectionService passes none).
func (o *operations) connectionBulk() bulkKind[connectionChange] {
	return bulkKind[connectionChange]{
		resource: "connections",
		key:      func(c connectionChange) string { return c.ConnID },
		exists:   foundBy(o.store.ConnectionByID),
		create: func(c connectionChange, existed bool) error {
			if !existed {
				_, err := o.createConnection(c.Connection)
				return err
			}
			_, err := o.updateConnection(c.ConnID, func(old *Connection) {
				id, connID := old.ID, old.ConnID
				*old = c.Connection
				old.ID, old.ConnID = id, connID
			})
			return err
		},
		patch: func(c connectionChange, _ []string) error {
			_, err := o.patchConnection(c.ConnID, c, nil)
			return err
		},
		delete: o.deleteConnection,
		// A create sets every field, team_name too (Connection(**
		// model_dump()), setattr of each for an overwrite); an update
		// the fields given, whatever the mask.
		createsTeam: func(c connectionChange) bool { return c.Team != nil },
		patchesTeam: func(c connectionChange, _ []string) bool {
			return storesTeam(c.Team, c.given.masked(nil, connectionFixed...)["team_name"])
		},
	}
}

// connectionsKeyed lists connections for Airflow 3 (ordered by
// "conn_id", "conn_type", "description", "host", "port", "id" or
// "team_name").
func (o *operations) connectionsKeyed(q keyedQuery) (listed[*Connection], error) {
	if res, ok, err := pageKeyed(q, "conn_id", o.store.ConnectionKeyedPage); ok {
		return res, err
	}
	all, err := o.store.Connections()
	if err != nil {
		return listed[*Connection]{}, err
	}
	return listKeyed(all, func(c *Connection) string { return c.ConnID }, q, func(a, b *Connection, attr string) int {
		switch attr {
		case "conn_id":
			return strings.Compare(a.ConnID, b.ConnID)
		case "conn_type":
			return strings.Compare(a.ConnType, b.ConnType)
		case "description":
			return compareNullable(a.Description, b.Description, strings.Compare)
		case "host":
			return compareNullable(a.Host, b.Host, strings.Compare)
		case "port":
			return compareNullable(a.Port, b.Port, cmp.Compare[int])
		case "team_name":
			return 0 // no connection has a team
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}
