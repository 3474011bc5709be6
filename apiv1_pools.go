package main

// The stable API's pools: /pools and /pools/{pool_name} (Airflow 2.10.3
// airflow/api_connexion/endpoints/pool_endpoint.py, schemas/pool_schema.py,
// the slot counts of airflow/models/pool.py). The pools are the store's,
// the same the experimental API's /pools and the scheduler see.

import (
	"fmt"
	"slices"
	"strings"
)

// poolBodySchema is components/schemas/Pool as connexion checks a body:
// the slot counts are readOnly.
var poolBodySchema = bodySchema{
	rw("name", "string", false), rw("slots", "integer", false),
	ro("occupied_slots", "integer", false), ro("running_slots", "integer", false), ro("queued_slots", "integer", false),
	ro("open_slots", "integer", false), ro("scheduled_slots", "integer", false), ro("deferred_slots", "integer", false),
	rw("description", "string", true), rw("include_deferred", "boolean", false),
}

// poolFields is PoolSchema for marshmallow's load: name loads into pool
// (a String(256) column, so auto_field adds Length(max=256)); the slot
// counts are dump-only, so a load treats them as unknown.
var poolFields = []mmField{
	{name: "name", attr: "pool", allowNone: true, maxLen: maxPoolNameChars},
	{name: "slots", kind: "integer", allowNone: true},
	{name: "description", allowNone: true},
	{name: "include_deferred", kind: "boolean"},
}

// poolDeclaredFields are PoolSchema's declared fields, which an
// update_mask may name (Airflow looks them up in declared_fields).
var poolDeclaredFields = []string{"name", "slots", "occupied_slots", "running_slots", "queued_slots",
	"scheduled_slots", "open_slots", "deferred_slots", "description", "include_deferred"}

func checkPoolBody(v any) (map[string]any, error) { return checkBodySchema(v, poolBodySchema) }

// loadPool is PoolSchema.load: include_deferred defaults to false
// (load_default), then airlite's own bounds (docs/behaviour.md §5).
func loadPool(body map[string]any) (map[string]any, error) {
	data, msg := marshmallowLoad(body, poolFields, false)
	if msg != "" {
		return nil, v1BadRequest(msg)
	}
	if _, ok := data["include_deferred"]; !ok {
		data["include_deferred"] = false
	}
	if name, ok := data["pool"].(string); ok {
		if err := checkPoolName(name); err != nil {
			return nil, v1ResourceError(err)
		}
	}
	if d, ok := data["description"].(string); ok {
		if err := checkPoolDescription(&d); err != nil {
			return nil, v1ResourceError(err)
		}
	}
	return data, nil
}

// missingPoolFields is the endpoints' own check that name and slots were
// sent: "Missing required property(ies): ['name', 'slots']".
func missingPoolFields(body map[string]any) error {
	var missing []string
	for _, k := range []string{"name", "slots"} {
		if _, ok := body[k]; !ok {
			missing = append(missing, pyQuote(k))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return v1BadRequest("Missing required property(ies): [" + strings.Join(missing, ", ") + "]")
}

// v1Pool is PoolSchema's dump: the slot counts from what task instances
// hold now. airlite has no deferred state, so deferred_slots is 0 and
// include_deferred changes nothing. An unlimited pool (slots -1) has
// infinite open slots in Airflow, which its JSON writes as Infinity (not
// JSON); airlite answers -1 there (docs/behaviour.md §5).
func v1Pool(p pooled) map[string]any {
	var desc any
	if p.Description != nil {
		desc = *p.Description
	}
	return map[string]any{
		"name": p.Name, "slots": p.Slots, "description": desc, "include_deferred": p.IncludeDeferred,
		"occupied_slots": p.Used.Running + p.Used.Queued, "running_slots": p.Used.Running, "queued_slots": p.Used.Queued,
		"scheduled_slots": p.Used.Scheduled, "deferred_slots": 0, "open_slots": p.Open(),
	}
}

// V1GetPools is GET /pools: ordered by id (default), name or slots.
func (s *server) V1GetPools(q v1Values) (map[string]any, error) {
	lq, err := v1ResourceQuery(q, "id", poolOrders)
	if err != nil {
		return nil, err
	}
	pools, err := s.ops.pools(lq)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(pools.rows))
	for i, p := range pools.rows {
		items[i] = v1Pool(p)
	}
	return map[string]any{"pools": items, "total_entries": pools.total}, nil
}

// V1GetPool is GET /pools/{pool_name}.
func (s *server) V1GetPool(name string) (map[string]any, error) {
	p, err := s.ops.pool(name)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Pool(p), nil
}

// V1PostPool is POST /pools: a new pool; a taken name is a 409.
func (s *server) V1PostPool(body map[string]any) (map[string]any, error) {
	if err := missingPoolFields(body); err != nil {
		return nil, err
	}
	data, err := loadPool(body)
	if err != nil {
		return nil, err
	}
	p := Pool{IncludeDeferred: data["include_deferred"].(bool)}
	setPoolFields(&p, data)
	created, err := s.ops.createPool(p)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Pool(created), nil
}

// setPoolFields sets the loaded attributes a body or a mask gives.
func setPoolFields(p *Pool, data map[string]any) {
	for key, v := range data {
		switch key {
		case "pool":
			if name, ok := v.(string); ok {
				p.Name = name
			}
		case "slots":
			if n, ok := v.(int64); ok {
				p.Slots = n
			}
		case "description":
			if d, ok := v.(string); ok {
				p.Description = &d
			} else {
				p.Description = nil
			}
		case "include_deferred":
			p.IncludeDeferred = v.(bool)
		}
	}
}

// poolPatchData is what a PATCH changes: with a mask, the masked loaded
// attributes (a field PoolSchema does not declare is refused; one the body
// lacks is left as it is, where Airflow fails with a 500); without one,
// everything loaded, name and slots required.
func poolPatchData(body, data map[string]any, mask []string) (map[string]any, error) {
	if len(mask) == 0 {
		if err := missingPoolFields(body); err != nil {
			return nil, err
		}
		return data, nil
	}
	out := map[string]any{}
	for _, field := range mask {
		field = strings.TrimSpace(field)
		if !slices.Contains(poolDeclaredFields, field) {
			return nil, v1BadRequest(fmt.Sprintf("Invalid field: %s in update mask", field))
		}
		attr := field
		if field == "name" {
			attr = "pool"
		}
		if v, ok := data[attr]; ok {
			out[attr] = v
		}
	}
	return out, nil
}

// V1PatchPool is PATCH /pools/{pool_name}, in Airflow's order: the
// default pool's name rule, the pool's existence, the body, the mask.
func (s *server) V1PatchPool(name string, body map[string]any, mask []string) (map[string]any, error) {
	ops := s.ops
	namedAs, _ := body["name"].(string)
	fields := make([]string, len(mask))
	for i, f := range mask {
		fields[i] = strings.TrimSpace(f)
	}
	if err := checkDefaultPoolChange(name, namedAs, fields); err != nil {
		return nil, v1ResourceError(err)
	}
	if _, err := ops.pool(name); err != nil {
		return nil, v1ResourceError(err)
	}
	data, err := loadPool(body)
	if err != nil {
		return nil, err
	}
	if data, err = poolPatchData(body, data, mask); err != nil {
		return nil, err
	}
	p, err := ops.updatePool(name, func(p Pool) Pool {
		setPoolFields(&p, data)
		return p
	})
	if err != nil {
		return nil, v1ResourceError(err)
	}
	return v1Pool(p), nil
}

// V1DeletePool is DELETE /pools/{pool_name}.
func (s *server) V1DeletePool(name string) error {
	_, err := s.ops.deletePool(name)
	return v1ResourceError(err)
}
