package main

// Airflow 3's pools (Airflow 3.2.1 core_api/routes/public/pools.py,
// core_api/datamodels/pools.py, core_api/services/public/pools.py):
// their bodies, their answers and the handlers of their rows
// (api_route_v2.go), over the operations (ops_pools.go).

import (
	"net/http"
)

// v2TeamName is the team_name field of the bodies: Field(max_length=50),
// with no validator in 3.2.1 (the multi_team one, apache/airflow#63994,
// came later); a team is refused where it is written (errTeamMissing).
var v2TeamName = v2Field{name: "team_name", typ: v2Type{kind: v2String, maxLen: v2MaxLen(50)}, nullable: true}

// v2PoolSlots is PoolSlots: an int, -1 for unlimited.
var v2PoolSlots = v2Type{kind: v2Int, ge: minimum(-1)}

// v2PoolBody is PoolBody: its pool field is "name" in bodies (alias),
// "pool" accepted too.
var v2PoolBody = &v2Model{name: "PoolBody", fields: []v2Field{
	{name: "name", alias: "pool", typ: v2Type{kind: v2String, maxLen: v2MaxLen(256)}, required: true},
	{name: "slots", typ: v2PoolSlots, required: true},
	{name: "description", typ: v2TStr, nullable: true},
	{name: "include_deferred", typ: v2TBool},
	v2TeamName,
}}

// v2PoolPatchBody is PoolPatchBody: every field optional; its name
// field is "pool" in bodies (alias), "name" accepted too.
var v2PoolPatchBody = &v2Model{name: "PoolPatchBody", fields: []v2Field{
	{name: "pool", alias: "name", typ: v2TStr, nullable: true},
	{name: "slots", typ: v2PoolSlots, nullable: true},
	{name: "description", typ: v2TStr, nullable: true},
	{name: "include_deferred", typ: v2TBool, nullable: true},
	v2TeamName,
}}

// v2PoolBulkBody is BulkBody[PoolBody].
var v2PoolBulkBody = v2BulkBody(v2PoolBody)

// v2PoolResponse is PoolResponse.
type v2PoolResponse struct {
	Name            string  `json:"name"`
	Slots           int64   `json:"slots"`
	Description     *string `json:"description"`
	IncludeDeferred bool    `json:"include_deferred"`
	OccupiedSlots   int64   `json:"occupied_slots"`
	RunningSlots    int64   `json:"running_slots"`
	QueuedSlots     int64   `json:"queued_slots"`
	ScheduledSlots  int64   `json:"scheduled_slots"`
	OpenSlots       int64   `json:"open_slots"`
	DeferredSlots   int64   `json:"deferred_slots"`
	TeamName        *string `json:"team_name"`
}

// v2PoolCollection is PoolCollectionResponse.
type v2PoolCollection struct {
	Pools        []v2PoolResponse `json:"pools"`
	TotalEntries int              `json:"total_entries"`
}

// v2Pool is a pool as PoolResponse shows it: occupied slots are those of
// running and queued task instances (airlite defers none), open slots
// what is left, -1 for an unlimited pool (_sanitize_open_slots).
func v2Pool(p pooled) v2PoolResponse {
	return v2PoolResponse{
		Name: p.Name, Slots: p.Slots, Description: p.Description, IncludeDeferred: p.IncludeDeferred,
		OccupiedSlots: p.Used.Running + p.Used.Queued, RunningSlots: p.Used.Running, QueuedSlots: p.Used.Queued,
		ScheduledSlots: p.Used.Scheduled, OpenSlots: p.Open(),
	}
}

// poolChangeOf is a checked PoolBody or PoolPatchBody as the operations
// take it; nameField is where the body keeps the pool's name.
func poolChangeOf(body map[string]any, nameField string) poolChange {
	p := poolChange{given: given(body, map[string]string{nameField: "pool"})}
	p.Name, _ = body[nameField].(string)
	p.Slots, _ = body["slots"].(int64)
	p.Description = optString(body["description"])
	p.IncludeDeferred, _ = body["include_deferred"].(bool)
	p.Team = optString(body["team_name"])
	// A null where BasePool wants a value is no value (pydantic refuses
	// it as BasePool is validated); airlite counts it as not given.
	for _, f := range poolBaseFields {
		key := f
		if f == "pool" {
			key = nameField
		}
		if v, ok := body[key]; ok && v == nil {
			delete(p.given, f)
		}
	}
	return p
}

// optString is a nullable string field of a checked body.
func optString(v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return &s
}

// v2PoolBaseIssues is the 422 update_orm_from_pydantic raises when a
// change of a pool other than default_pool lacks one of BasePool's
// fields: pydantic's errors without "body" in their place, with the
// change as the model dumps it (by alias) and the documentation's url
// (the errors are re-raised as they came, services/public/pools.py).
func v2PoolBaseIssues(p poolChange, dumped pyDict, fields []string) error {
	issues := make([]v2Issue, 0, len(fields))
	for _, f := range fields {
		issues = append(issues, v2Issue{Type: "missing", Loc: []any{f}, Msg: "Field required", Input: v2Ordered{dumped}, URL: v2ErrorURL("missing")})
	}
	return v2Invalid(issues)
}

// v2PoolDump is model_dump(include=fields_set, by_alias=True) of a pool
// change, keyed as BasePool reads it: PoolPatchBody dumps its name as
// "pool" in its place; PoolBody as "name", which is moved to the end
// under "pool".
func v2PoolDump(p poolChange, body map[string]any, patch bool) pyDict {
	var d pyDict
	if patch && p.given["pool"] {
		d = append(d, pyField{"pool", body["pool"]})
	}
	for _, f := range []string{"slots", "description", "include_deferred", "team_name"} {
		if v, ok := body[f]; ok {
			d = append(d, pyField{f, pyJSONValue(v)})
		}
	}
	if !patch && p.given["pool"] {
		d = append(d, pyField{"pool", body["name"]})
	}
	return d
}

// pyJSONValue is a kept body value as pydantic echoes it (an int64 as a
// number).
func pyJSONValue(v any) any {
	return v
}

// checkPoolBase is the BasePool validation of a change of the pool
// named name (none for default_pool, whose rule is the operation's).
func checkPoolBase(name string, p poolChange, body map[string]any, patch bool) error {
	if name == defaultPoolName {
		return nil
	}
	var missing []string
	for _, f := range poolBaseFields {
		if !p.given[f] {
			missing = append(missing, f)
		}
	}
	if missing == nil {
		return nil
	}
	return v2PoolBaseIssues(p, v2PoolDump(p, body, patch), missing)
}

// V2GetPools is GET /pools.
func (s *server) V2GetPools(req *apiRequest) (any, error) {
	keys, err := v2Keys(req.query, "id", []string{"id", "pool"}, map[string]string{"name": "pool"})
	if err != nil {
		return nil, err
	}
	pg := v2Page(req.query)
	res, err := s.ops.poolsKeyed(keyedQuery{match: req.query.v2Pattern("pool_name_pattern"), keys: v2WithPK(keys), offset: pg.offset, limit: pg.limit})
	if err != nil {
		return nil, err
	}
	out := v2PoolCollection{Pools: make([]v2PoolResponse, len(res.rows)), TotalEntries: res.total}
	for i, p := range res.rows {
		out.Pools[i] = v2Pool(p)
	}
	return out, nil
}

// V2GetPool is GET /pools/{pool_name}.
func (s *server) V2GetPool(name string) (any, error) {
	p, err := s.ops.pool(name)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Pool(p), nil
}

// V2PostPool is POST /pools (answered 201).
func (s *server) V2PostPool(body map[string]any) (any, error) {
	p := poolChangeOf(body, "name")
	created, err := s.ops.createPoolChange(p)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Pool(created), nil
}

// V2PatchPool is PATCH /pools/{pool_name}: the body's name must be the
// pool's, the pool must exist, then update_orm_from_pydantic's rules.
func (s *server) V2PatchPool(name string, body map[string]any, mask []string) (any, error) {
	p := poolChangeOf(body, "pool")
	if p.Name != "" && p.Name != name {
		return nil, &v2Error{status: http.StatusBadRequest, detail: "Invalid body, pool name from request body doesn't match uri parameter"}
	}
	if _, err := s.ops.pool(name); err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	if name == defaultPoolName {
		if err := checkPoolChange(name, p, mask); err != nil {
			return nil, apiv2ResourcePhrases.phrase(err)
		}
	} else if err := checkPoolBase(name, p, body, true); err != nil {
		return nil, err
	}
	out, err := s.ops.patchPool(name, p, mask)
	if err != nil {
		return nil, apiv2ResourcePhrases.phrase(err)
	}
	return v2Pool(out), nil
}

// V2DeletePool is DELETE /pools/{pool_name}.
func (s *server) V2DeletePool(name string) error {
	_, err := s.ops.deletePool(name)
	return apiv2ResourcePhrases.phrase(err)
}

// V2BulkPools is PATCH /pools. A change of a pool other than
// default_pool that lacks BasePool's fields fails the whole request
// with its 422 before anything changes (Airflow raises it mid-request
// and its session rolls every change back).
func (s *server) V2BulkPools(body map[string]any) (any, error) {
	raw, _ := body["actions"].([]any)
	for _, item := range raw {
		a, _ := item.(map[string]any)
		if a["action"] != string(bulkUpdate) {
			continue
		}
		entities, _ := a["entities"].([]any)
		for _, e := range entities {
			m, _ := e.(map[string]any)
			p := poolChangeOf(m, "name")
			if _, err := s.ops.pool(p.Name); err != nil {
				continue // not found: the action's own rule answers
			}
			if err := checkPoolBase(p.Name, p, m, false); err != nil {
				return nil, err
			}
		}
	}
	actions, err := v2BulkActions(body, func(m map[string]any) poolChange { return poolChangeOf(m, "name") })
	if err != nil {
		return nil, err
	}
	out, err := runBulk(s.ops.poolBulk(), actions)
	if err != nil {
		return nil, err
	}
	return v2Bulk(out)
}
