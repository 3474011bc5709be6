package main

// Airflow 3's connections (Airflow 3.2.1 core_api/routes/public/
// connections.py, core_api/datamodels/connections.py,
// core_api/services/public/connections.py): their bodies, their answers
// (the password and the extra masked) and the handlers of their rows
// (api_route_v2.go), over the operations (ops_connections.go).

import (
	"net/http"
	"regexp"
)

// v2ConnectionExtra is ConnectionBody's extra: a JSON object in a
// string, "" read as "{}" (validate_extra).
var v2ConnectionExtra = v2Type{kind: v2Custom, check: func(v any, loc []any) (any, []v2Issue) {
	s, ok := v.(string)
	if !ok {
		return nil, []v2Issue{{Type: "string_type", Loc: loc, Msg: "Input should be a valid string", Input: v2Input(v)}}
	}
	if s == "" {
		return "{}", nil
	}
	decoded, err := decodePyJSON([]byte(s))
	if err != nil {
		return nil, []v2Issue{v2ValueError(loc, s, "The `extra` field must be a valid JSON object (e.g., {'key': 'value'}), but encountered non-JSON in `extra` field")}
	}
	if _, isDict := decoded.(pyDict); !isDict {
		return nil, []v2Issue{v2ValueError(loc, s, "The `extra` field must be a valid JSON object (e.g., {'key': 'value'})")}
	}
	return s, nil
}}

// v2ConnectionBody is ConnectionBody.
var v2ConnectionBody = &v2Model{name: "ConnectionBody", fields: []v2Field{
	{name: "connection_id", typ: v2Type{kind: v2String, maxLen: v2MaxLen(maxConnectionIDChars),
		pattern: regexp.MustCompile(`^[\p{L}\p{N}_.-]+$`), patternText: `^[\w.-]+$`}, required: true},
	{name: "conn_type", typ: v2TStr, required: true},
	{name: "description", typ: v2TStr, nullable: true},
	{name: "host", typ: v2TStr, nullable: true},
	{name: "login", typ: v2TStr, nullable: true},
	{name: "schema", alias: "schema_", typ: v2TStr, nullable: true},
	{name: "port", typ: v2TInt, nullable: true},
	{name: "password", typ: v2TStr, nullable: true},
	{name: "extra", typ: v2ConnectionExtra, nullable: true},
	v2TeamName,
}}

// v2ConnectionBulkBody is BulkBody[ConnectionBody].
var v2ConnectionBulkBody = v2BulkBody(v2ConnectionBody)

// v2ConnectionResponse is ConnectionResponse.
type v2ConnectionResponse struct {
	ConnectionID string  `json:"connection_id"`
	ConnType     string  `json:"conn_type"`
	Description  *string `json:"description"`
	Host         *string `json:"host"`
	Login        *string `json:"login"`
	Schema       *string `json:"schema"`
	Port         *int    `json:"port"`
	Password     *string `json:"password"`
	Extra        *string `json:"extra"`
	TeamName     *string `json:"team_name"`
}

// v2ConnectionCollection is ConnectionCollectionResponse.
type v2ConnectionCollection struct {
	Connections  []v2ConnectionResponse `json:"connections"`
	TotalEntries int                    `json:"total_entries"`
}

// v2ConnectionTestResponse is ConnectionTestResponse.
type v2ConnectionTestResponse struct {
	Status  bool   `json:"status"`
	Message string `json:"message"`
}

// v2Connection is a connection as ConnectionResponse shows it: a
// password is always "***" (redact under the field's name), an extra
// that is JSON is masked and written again by json.dumps.
func v2Connection(m secretsMasker, c *Connection) v2ConnectionResponse {
	out := v2ConnectionResponse{ConnectionID: c.ConnID, ConnType: c.ConnType, Description: c.Description, Host: c.Host,
		Login: c.Login, Schema: c.Schema, Port: c.Port, Extra: c.Extra}
	if c.Password != nil {
		masked := "***"
		out.Password = &masked
	}
	if c.Extra != nil {
		if decoded, err := decodePyJSON([]byte(*c.Extra)); err == nil {
			if dumped, err := pyDumps(m.redact(decoded, "", 0)); err == nil {
				out.Extra = &dumped
			}
		}
	}
	return out
}

// connectionChangeOf is a checked ConnectionBody as the operations take
// it.
func connectionChangeOf(body map[string]any) connectionChange {
	c := connectionChange{given: given(body, nil)}
	c.ConnID, _ = body["connection_id"].(string)
	c.ConnType, _ = body["conn_type"].(string)
	c.Description = optString(body["description"])
	c.Host = optString(body["host"])
	c.Login = optString(body["login"])
	c.Schema = optString(body["schema"])
	if p, ok := body["port"].(int64); ok {
		port := int(p)
		c.Port = &port
	}
	c.Password = optString(body["password"])
	c.Extra = optString(body["extra"])
	c.Team = optString(body["team_name"])
	return c
}

// V2GetConnections is GET /connections.
func (s *server) V2GetConnections(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "id", []string{"conn_id", "conn_type", "description", "host", "port", "id", "team_name"},
		map[string]string{"connection_id": "conn_id"})
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	res, err := s.ops.connectionsKeyed(keyedQuery{match: req.query.v2Pattern("connection_id_pattern"), keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit})
	if err != nil {
		return nil, err
	}
	out := v2ConnectionCollection{Connections: make([]v2ConnectionResponse, len(res.rows)), TotalEntries: res.total}
	for i, c := range res.rows {
		out.Connections[i] = v2Connection(s.rules().masker, c)
	}
	return out, nil
}

// V2GetConnection is GET /connections/{connection_id}.
func (s *server) V2GetConnection(id string) (any, error) {
	c, err := s.ops.connection(id)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Connection(s.rules().masker, c), nil
}

// V2PostConnection is POST /connections (answered 201).
func (s *server) V2PostConnection(body map[string]any) (any, error) {
	c, err := s.ops.createConnectionChange(connectionChangeOf(body))
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Connection(s.rules().masker, c), nil
}

// V2PatchConnection is PATCH /connections/{connection_id}.
func (s *server) V2PatchConnection(id string, body map[string]any, mask []string) (any, error) {
	c, err := s.ops.patchConnection(id, connectionChangeOf(body), mask)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Connection(s.rules().masker, c), nil
}

// V2DeleteConnection is DELETE /connections/{connection_id}.
func (s *server) V2DeleteConnection(id string) error {
	return apiv2ResourcePhrases.phrase(s.ops.deleteConnection(id))
}

// V2BulkConnections is PATCH /connections.
func (s *server) V2BulkConnections(body map[string]any) (any, error) {
	actions, err := v2BulkActions(body, connectionChangeOf)
	if err != nil {
		return nil, err
	}
	out, err := runBulk(s.ops.connectionBulk(), actions)
	if err != nil {
		return nil, err
	}
	return v2Bulk(out)
}

// v2ConnectionTestDisabled is test_connection's answer under [core]
// test_connection = Disabled, its default: airlite tests no connection.
var v2ConnectionTestDisabled = &v2Error{status: http.StatusForbidden,
	detail: "Testing connections is disabled in Airflow configuration. Contact your deployment admin to enable it."}
