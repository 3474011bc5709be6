package main

// The stable API's connections: /connections, /connections/{connection_id}
// and /connections/test (Airflow 2.10.3
// airflow/api_connexion/endpoints/connection_endpoint.py,
// schemas/connection_schema.py).

import "fmt"

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
func v1Connection(m secretsMasker, c *Connection) (map[string]any, error) {
	out := v1ConnectionItem(c)
	out["extra"] = nil
	if c.Extra != nil {
		out["extra"] = *c.Extra
		if v, err := decodePyJSON([]byte(*c.Extra)); err == nil {
			masked, err := pyDumps(m.redact(v, "", 0))
			if err != nil {
				return nil, fmt.Errorf("connection %s: %w", c.ConnID, err)
			}
			out["extra"] = masked
		}
	}
	return out, nil
}

// V1GetConnection is GET /connections/{connection_id}.
func (s *server) V1GetConnection(id string) (map[string]any, error) {
	c, err := s.ops.connection(id)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Connection(s.rules().masker, c)
}

// V1GetConnections is GET /connections, ordered by id (default),
// connection_id, conn_type, description, host or port.
func (s *server) V1GetConnections(q v1Values) (map[string]any, error) {
	lq, err := v1ResourceQuery(q, "id", connectionOrders)
	if err != nil {
		return nil, err
	}
	conns, err := s.ops.connections(lq)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(conns.rows))
	for i, c := range conns.rows {
		items[i] = v1ConnectionItem(c)
	}
	return map[string]any{"connections": items, "total_entries": conns.total}, nil
}

// V1PostConnection is POST /connections: a new connection_id only.
func (s *server) V1PostConnection(body map[string]any) (map[string]any, error) {
	data, err := loadConnection(body, false)
	if err != nil {
		return nil, err
	}
	var c Connection
	setConnectionFields(&c, data)
	created, err := s.ops.createConnection(c)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Connection(s.rules().masker, created)
}

// V1PatchConnection is PATCH /connections/{connection_id}, in Airflow's
// order: a partial load, the connection's existence, its connection_id
// (which cannot change), then update_mask, which picks the loaded
// attributes that change.
func (s *server) V1PatchConnection(id string, body map[string]any, mask []string) (map[string]any, error) {
	data, err := loadConnection(body, true)
	if err != nil {
		return nil, err
	}
	ops := s.ops
	c, err := ops.connection(id)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	newID, _ := data["conn_id"].(string)
	if err := checkConnectionRename(c, newID); err != nil {
		return nil, v1ResourceError(err)
	}
	if len(mask) > 0 {
		if data, err = extractUpdateMask(mask, []string{"connection_id", "conn_id"}, data); err != nil {
			return nil, err
		}
	}
	delete(data, "conn_id")
	updated, err := ops.updateConnection(id, func(c *Connection) { setConnectionFields(c, data) })
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Connection(s.rules().masker, updated)
}

// V1DeleteConnection is DELETE /connections/{connection_id}.
func (s *server) V1DeleteConnection(id string) error {
	return v1ResourceError(s.ops.deleteConnection(id))
}

// testConnectionDisabled is the answer of POST /connections/test while
// [core] test_connection is Disabled, its default: a plain 403 Flask
// Response, not a problem document.
const testConnectionDisabled = "Testing connections is disabled in Airflow configuration. " +
	"Contact your deployment admin to enable it."
