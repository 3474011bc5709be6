package main

// The stable API's connections: /connections, /connections/{connection_id}
// and /connections/test (Airflow 2.10.3
// airflow/api_connexion/endpoints/connection_endpoint.py,
// schemas/connection_schema.py).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// connectionBodySchema is components/schemas/Connection as connexion
// checks a body: ConnectionCollectionItem's properties, then password
// and extra.
var connectionBodySchema = bodySchema{
	rw("connection_id", "string", false), rw("conn_type", "string", false), rw("description", "string", true),
	rw("host", "string", true), rw("login", "string", true), rw("schema", "string", true), rw("port", "integer", true),
	rw("password", "string", false), rw("extra", "string", true),
}

// connectionFields is ConnectionSchema for marshmallow's load: the
// auto_fields take the column's nullability and String(n) length.
var connectionFields = []mmField{
	{name: "connection_id", attr: "conn_id", required: true, maxLen: 250},
	{name: "conn_type", required: true, maxLen: 500},
	{name: "description", allowNone: true},
	{name: "host", allowNone: true, maxLen: 500},
	{name: "login", allowNone: true},
	{name: "schema", allowNone: true, maxLen: 500},
	{name: "port", kind: "integer", allowNone: true},
	{name: "password", allowNone: true},
	{name: "extra", allowNone: true},
}

func checkConnectionBody(v any) (map[string]any, error) {
	return checkBodySchema(v, connectionBodySchema)
}

// loadConnection is ConnectionSchema.load: its errors are a plain Bad
// Request.
func loadConnection(body map[string]any, partial bool) (map[string]any, error) {
	data, msg := marshmallowLoad(body, connectionFields, partial)
	if msg != "" {
		return nil, v1BadRequest(msg)
	}
	return data, nil
}

// setConnectionFields sets a connection's attributes from loaded data.
func setConnectionFields(c *Connection, data map[string]any) {
	str := func(key string) *string {
		if s, ok := data[key].(string); ok {
			return &s
		}
		return nil
	}
	for key := range data {
		switch key {
		case "conn_id":
			c.ConnID = data[key].(string)
		case "conn_type":
			c.ConnType = data[key].(string)
		case "description":
			c.Description = str(key)
		case "host":
			c.Host = str(key)
		case "login":
			c.Login = str(key)
		case "schema":
			c.Schema = str(key)
		case "password":
			c.Password = str(key)
		case "extra":
			c.Extra = str(key)
		case "port":
			if n, ok := data[key].(int64); ok {
				p := int(n)
				c.Port = &p
			} else {
				c.Port = nil
			}
		}
	}
}

// validConnectionKey is Airflow's helpers.validate_key(conn_id,
// max_length=200): word characters, dots and dashes (Python's $ also
// lets one final newline by).
func validConnectionKey(id string) error {
	if n := len([]rune(id)); n > 200 {
		return v1BadRequest("The key has to be less than 200 characters")
	}
	body := strings.TrimSuffix(id, "\n")
	ok := body != "" && strings.IndexFunc(body, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '.' || r == '-')
	}) < 0
	if !ok {
		return v1BadRequest(fmt.Sprintf("The key %s has to be made of alphanumeric characters, dashes, dots and underscores exclusively", pyQuote(id)))
	}
	return nil
}

func v1OptString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// v1ConnectionItem is ConnectionCollectionItemSchema's dump.
func v1ConnectionItem(c *Connection) map[string]any {
	out := map[string]any{
		"connection_id": c.ConnID, "conn_type": c.ConnType, "description": v1OptString(c.Description),
		"host": v1OptString(c.Host), "login": v1OptString(c.Login), "schema": v1OptString(c.Schema), "port": nil,
	}
	if c.Port != nil {
		out["port"] = *c.Port
	}
	return out
}

// v1Connection is ConnectionSchema's dump: the item and extra, with the
// secrets masker over a JSON extra (re-serialized by json.dumps); the
// password is write-only.
func v1Connection(c *Connection) (map[string]any, error) {
	out := v1ConnectionItem(c)
	out["extra"] = nil
	if c.Extra != nil {
		out["extra"] = *c.Extra
		if v, err := decodePyJSON([]byte(*c.Extra)); err == nil {
			masked, err := pyDumps(redactValue(v, "", 0))
			if err != nil {
				return nil, fmt.Errorf("connection %s: %w", c.ConnID, err)
			}
			out["extra"] = masked
		}
	}
	return out, nil
}

func v1ConnectionNotFound(id string) error {
	return v1NotFound("Connection not found", fmt.Sprintf("The Connection with connection_id: `%s` was not found", id))
}

// V1GetConnection is GET /connections/{connection_id}.
func (s *server) V1GetConnection(id string) (map[string]any, error) {
	c, err := s.opts.Store.ConnectionByID(id)
	if errors.Is(err, errNotFound) {
		return nil, v1ConnectionNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	return v1Connection(c)
}

// V1GetConnections is GET /connections, ordered by id (default),
// connection_id, conn_type, description, host or port; a missing value
// sorts after every value, as PostgreSQL sorts NULL.
func (s *server) V1GetConnections(q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("id", []string{"connection_id", "conn_type", "description", "host", "port", "id"})
	if err != nil {
		return nil, err
	}
	conns, err := s.opts.Store.Connections() // by id
	if err != nil {
		return nil, err
	}
	optCmp := func(a, b *string) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		case b == nil:
			return -1
		}
		return strings.Compare(*a, *b)
	}
	slices.SortStableFunc(conns, func(a, b *Connection) int {
		var c int
		switch attr {
		case "connection_id":
			c = strings.Compare(a.ConnID, b.ConnID)
		case "conn_type":
			c = strings.Compare(a.ConnType, b.ConnType)
		case "description":
			c = optCmp(a.Description, b.Description)
		case "host":
			c = optCmp(a.Host, b.Host)
		case "port":
			switch {
			case a.Port == nil && b.Port == nil:
			case a.Port == nil:
				c = 1
			case b.Port == nil:
				c = -1
			default:
				c = cmp.Compare(*a.Port, *b.Port)
			}
		default:
			c = cmp.Compare(a.ID, b.ID)
		}
		if desc {
			c = -c
		}
		return c
	})
	items := []any{}
	for _, c := range pageOf(conns, p) {
		items = append(items, v1ConnectionItem(c))
	}
	return map[string]any{"connections": items, "total_entries": len(conns)}, nil
}

// V1PostConnection is POST /connections: a new connection_id only.
func (s *server) V1PostConnection(body map[string]any) (map[string]any, error) {
	data, err := loadConnection(body, false)
	if err != nil {
		return nil, err
	}
	id := data["conn_id"].(string)
	if err := validConnectionKey(id); err != nil {
		return nil, err
	}
	var c Connection
	setConnectionFields(&c, data)
	created, err := s.opts.Store.CreateConnection(c)
	var exists *existsError
	if errors.As(err, &exists) {
		return nil, v1Conflict("Conflict", "Connection already exist. ID: "+id)
	}
	if err != nil {
		return nil, err
	}
	return v1Connection(created)
}

// V1PatchConnection is PATCH /connections/{connection_id}: a partial
// load; the connection_id cannot change; update_mask picks the loaded
// attributes that change.
func (s *server) V1PatchConnection(id string, body map[string]any, mask []string) (map[string]any, error) {
	data, err := loadConnection(body, true)
	if err != nil {
		return nil, err
	}
	c, err := s.opts.Store.ConnectionByID(id)
	if errors.Is(err, errNotFound) {
		return nil, v1ConnectionNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	if newID, _ := data["conn_id"].(string); newID != "" && newID != c.ConnID {
		return nil, v1BadRequest("The connection_id cannot be updated.")
	}
	if len(mask) > 0 {
		if data, err = extractUpdateMask(mask, []string{"connection_id", "conn_id"}, data); err != nil {
			return nil, err
		}
	}
	delete(data, "conn_id")
	updated, err := s.opts.Store.UpdateConnection(id, func(c Connection) (Connection, error) {
		setConnectionFields(&c, data)
		return c, nil
	})
	if errors.Is(err, errNotFound) {
		return nil, v1ConnectionNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	return v1Connection(updated)
}

// V1DeleteConnection is DELETE /connections/{connection_id}.
func (s *server) V1DeleteConnection(id string) error {
	if err := s.opts.Store.DeleteConnection(id); errors.Is(err, errNotFound) {
		return v1ConnectionNotFound(id)
	} else if err != nil {
		return err
	}
	return nil
}

// testConnectionDisabled is the answer of POST /connections/test while
// [core] test_connection is Disabled, its default: a plain 403 Flask
// Response, not a problem document.
const testConnectionDisabled = "Testing connections is disabled in Airflow configuration. " +
	"Contact your deployment admin to enable it."
