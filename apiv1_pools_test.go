package main

import (
	"fmt"
	"testing"
)

// withPools creates pools (name, slots, include_deferred) after
// default_pool, in order, as Airflow's tests add them to the session.
func withPools(pools ...Pool) func(t *testing.T, ts *testServer) {
	return func(t *testing.T, ts *testServer) {
		t.Helper()
		for _, p := range pools {
			if _, err := ts.store.CreatePool(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// poolJSONText is PoolSchema's dump of a pool no task instance uses.
func poolJSONText(name string, slots int, desc string, includeDeferred bool) string {
	return fmt.Sprintf(`{"name": %q, "slots": %d, "occupied_slots": 0, "running_slots": 0, "queued_slots": 0,
		"scheduled_slots": 0, "deferred_slots": 0, "open_slots": %d, "description": %s, "include_deferred": %v}`,
		name, slots, slots, desc, includeDeferred)
}

// wantPool checks the stored pool after the request.
func wantPool(name string, slots int64, includeDeferred bool) func(t *testing.T, ts *testServer, _ response) {
	return func(t *testing.T, ts *testServer, _ response) {
		t.Helper()
		p, err := ts.store.PoolByName(name)
		if err != nil || p.Slots != slots || p.IncludeDeferred != includeDeferred {
			t.Errorf("stored pool %s: %+v (%v), want slots %d include_deferred %v", name, p, err, slots, includeDeferred)
		}
	}
}

func manyPools(n int) func(t *testing.T, ts *testServer) {
	pools := make([]Pool, n)
	for i := range pools {
		pools[i] = Pool{Name: fmt.Sprintf("test_pool%d", i+1), Slots: 1}
	}
	return withPools(pools...)
}

// wantPoolNames checks the names of a pool collection, in order.
func wantPoolNames(names ...string) func(t *testing.T, _ *testServer, res response) {
	return func(t *testing.T, _ *testServer, res response) {
		t.Helper()
		c := decodeJSON[struct{ Pools []struct{ Name string } }](t, res.body)
		got := make([]string, len(c.Pools))
		for i, p := range c.Pools {
			got[i] = p.Name
		}
		if fmt.Sprint(got) != fmt.Sprint(names) {
			t.Errorf("pools %v, want %v", got, names)
		}
	}
}

func poolRange(from, to int) []string {
	var names []string
	for i := from; i <= to; i++ {
		names = append(names, fmt.Sprintf("test_pool%d", i))
	}
	return names
}

// TestServerV1_Pools follows Airflow 2.10.3
// tests/api_connexion/endpoints/test_pool_endpoint.py.
func TestServerV1_Pools(t *testing.T) {
	t.Parallel()
	poolA := withPools(Pool{Name: "test_pool_a", Slots: 3, IncludeDeferred: true})
	testPool := withPools(Pool{Name: "test_pool", Slots: 3})
	defaultPool := poolJSONText("default_pool", 128, `"Default pool"`, false)
	notFound := func(name string) *wantProblem {
		return &wantProblem{title: "Not Found", detail: fmt.Sprintf("Pool with name:'%s' not found", name)}
	}
	bad := func(detail string) *wantProblem { return &wantProblem{title: "Bad Request", detail: detail} }
	runV1Cases(t, []v1Case{
		// test_pool_endpoint.py:68 (TestGetPools.test_response_200)
		{name: "list", path: "/pools", setup: poolA, wantStatus: 200,
			wantJSON: `{"pools": [` + defaultPool + `, ` + poolJSONText("test_pool_a", 3, "null", true) + `], "total_entries": 2}`},
		// test_pool_endpoint.py:106 (test_response_200_with_order_by)
		{name: "list: order_by slots", path: "/pools?order_by=slots", setup: poolA, wantStatus: 200,
			wantJSON: `{"pools": [` + poolJSONText("test_pool_a", 3, "null", true) + `, ` + defaultPool + `], "total_entries": 2}`},
		{name: "list: order_by -name", path: "/pools?order_by=-name&limit=1", setup: poolA, wantStatus: 200,
			check: wantPoolNames("test_pool_a")},
		// test_pool_endpoint.py:155-177 (test_limit_and_offset)
		{name: "list: offset 1", path: "/pools?offset=1", setup: manyPools(120), wantStatus: 200, check: wantPoolNames(poolRange(1, 100)...)},
		{name: "list: offset 3", path: "/pools?offset=3", setup: manyPools(120), wantStatus: 200, check: wantPoolNames(poolRange(3, 102)...)},
		{name: "list: limit 2", path: "/pools?limit=2", setup: manyPools(120), wantStatus: 200, check: wantPoolNames("default_pool", "test_pool1")},
		{name: "list: limit 2 offset 1", path: "/pools?limit=2&offset=1", setup: manyPools(120), wantStatus: 200,
			check: wantPoolNames("test_pool1", "test_pool2")},
		{name: "list: limit 3 offset 2", path: "/pools?limit=3&offset=2", setup: manyPools(120), wantStatus: 200,
			check: wantPoolNames("test_pool2", "test_pool3", "test_pool4")},
		// test_pool_endpoint.py:188 (test_should_respect_page_size_limit_default)
		{name: "list: page limit default", path: "/pools?limit=180", setup: manyPools(120), wantStatus: 200,
			check: wantPoolNames(append([]string{"default_pool"}, poolRange(1, 99)...)...)},
		// test_pool_endpoint.py:198 (test_should_raise_400_for_invalid_orderby)
		{name: "list: order_by not allowed", path: "/pools?order_by=open_slots", wantStatus: 400,
			wantProblem: bad("Ordering with 'open_slots' is disallowed or the attribute does not exist on the model")},
		// test_pool_endpoint.py:224 (TestGetPool.test_response_200)
		{name: "get", path: "/pools/test_pool_a", setup: poolA, wantStatus: 200, wantJSON: poolJSONText("test_pool_a", 3, "null", true)},
		// test_pool_endpoint.py:243 (test_response_404)
		{name: "get: unknown", path: "/pools/invalid_pool", wantStatus: 404, wantProblem: notFound("invalid_pool")},
		// airflow/models/pool.py:230-300: the counts by task-instance state
		{name: "get: slots held by task instances", path: "/pools/default_pool", wantStatus: 200,
			setup: func(t *testing.T, ts *testServer) {
				ts.postRun(t, "example_bash_operator", `{"dag_run_id": "r"}`)
				ts.setTaskState(t, "example_bash_operator", "r", "runme_0", TaskRunning)
				ts.setTaskState(t, "example_bash_operator", "r", "runme_1", TaskQueued)
				ts.setTaskState(t, "example_bash_operator", "r", "runme_2", TaskScheduled)
				ts.setTaskState(t, "example_bash_operator", "r", "also_run_this", TaskSuccess)
			},
			wantJSON: `{"name": "default_pool", "slots": 128, "occupied_slots": 2, "running_slots": 1, "queued_slots": 1,
				"scheduled_slots": 1, "deferred_slots": 0, "open_slots": 126, "description": "Default pool", "include_deferred": false}`},
		{name: "get: unlimited pool", path: "/pools/unlimited", setup: withPools(Pool{Name: "unlimited", Slots: -1}), wantStatus: 200,
			wantJSON: `{"name": "unlimited", "slots": -1, "occupied_slots": 0, "running_slots": 0, "queued_slots": 0,
				"scheduled_slots": 0, "deferred_slots": 0, "open_slots": -1, "description": null, "include_deferred": false}`},
		// test_pool_endpoint.py:260 (TestDeletePool.test_response_204)
		{name: "delete", method: "DELETE", path: "/pools/test_pool", setup: testPool, wantStatus: 204,
			check: func(t *testing.T, ts *testServer, _ response) {
				if res := ts.v1(t, "GET", "/pools/test_pool", ""); res.status != 404 {
					t.Errorf("after delete: %d %s", res.status, res.body)
				}
			}},
		// test_pool_endpoint.py:273 (test_response_404)
		{name: "delete: unknown", method: "DELETE", path: "/pools/invalid_pool", wantStatus: 404, wantProblem: notFound("invalid_pool")},
		// test_pool_endpoint.py:464 (TestModifyDefaultPool.test_delete_400)
		{name: "delete: default_pool", method: "DELETE", path: "/pools/default_pool", wantStatus: 400,
			wantProblem: bad("Default Pool can't be deleted")},
		// test_pool_endpoint.py:299 (TestPostPool.test_response_200)
		{name: "post", method: "POST", path: "/pools", body: `{"name": "test_pool_a", "slots": 3, "description": "test pool", "include_deferred": true}`,
			wantStatus: 200, wantJSON: poolJSONText("test_pool_a", 3, `"test pool"`, true), check: wantPool("test_pool_a", 3, true)},
		{name: "post: the experimental API sees it", method: "POST", path: "/pools", body: `{"name": "p", "slots": 2}`, wantStatus: 200,
			check: func(t *testing.T, ts *testServer, _ response) {
				res := ts.do(t, "GET", apiPrefix+"/pools/p", "")
				if res.status != 200 || decodeJSON[map[string]any](t, res.body)["slots"] != 2.0 {
					t.Errorf("experimental: %d %s", res.status, res.body)
				}
			}},
		// test_pool_endpoint.py:320 (test_response_409)
		{name: "post: taken name", method: "POST", path: "/pools", body: `{"name": "test_pool_a", "slots": 3, "include_deferred": false}`,
			setup: poolA, wantStatus: 409, wantProblem: &wantProblem{title: "Conflict", detail: "Pool: test_pool_a already exists"}},
		// test_pool_endpoint.py:339-363 (test_response_400)
		{name: "post: name missing", method: "POST", path: "/pools", body: `{"slots": 3}`, wantStatus: 400,
			wantProblem: bad("Missing required property(ies): ['name']")},
		{name: "post: slots missing", method: "POST", path: "/pools", body: `{"name": "invalid_pool"}`, wantStatus: 400,
			wantProblem: bad("Missing required property(ies): ['slots']")},
		{name: "post: both missing", method: "POST", path: "/pools", body: `{}`, wantStatus: 400,
			wantProblem: bad("Missing required property(ies): ['name', 'slots']")},
		{name: "post: extra field", method: "POST", path: "/pools", body: `{"name": "invalid_pool", "slots": 3, "extra_field_1": "extra"}`,
			wantStatus: 400, wantProblem: bad("{'extra_field_1': ['Unknown field.']}")},
		// connexion's checks against components/schemas/Pool
		{name: "post: slots not an integer", method: "POST", path: "/pools", body: `{"name": "p", "slots": "3"}`, wantStatus: 400,
			wantProblem: bad("'3' is not of type 'integer' - 'slots'")},
		{name: "post: name too long", method: "POST", path: "/pools", body: fmt.Sprintf(`{"name": "%0257d", "slots": 3}`, 0),
			wantStatus: 400, wantProblem: bad("{'name': ['Longer than maximum length 256.']}")},
		{name: "post: over --max-pools", method: "POST", path: "/pools", body: `{"name": "p", "slots": 3}`,
			options: []testOption{withLimits(Limits{Pools: 1})}, wantStatus: 400,
			wantProblem: bad("airlite has 1 pools, the limit of --max-pools: delete pools (DELETE /api/experimental/pools/{name}) or start airlite with a higher --max-pools")},
		// test_pool_endpoint.py:382 (TestPatchPool.test_response_200)
		{name: "patch: rename", method: "PATCH", path: "/pools/test_pool", body: `{"name": "test_pool_a", "slots": 3, "include_deferred": false}`,
			setup: withPools(Pool{Name: "test_pool", Slots: 2, IncludeDeferred: true}), wantStatus: 200,
			wantJSON: poolJSONText("test_pool_a", 3, "null", false),
			check: func(t *testing.T, ts *testServer, res response) {
				wantPool("test_pool_a", 3, false)(t, ts, res)
				if _, err := ts.store.PoolByName("test_pool"); err == nil {
					t.Error("the old name is still a pool")
				}
			}},
		{name: "patch: rename onto a taken name", method: "PATCH", path: "/pools/test_pool", body: `{"name": "test_pool_a", "slots": 3}`,
			setup: func(t *testing.T, ts *testServer) { testPool(t, ts); poolA(t, ts) }, wantStatus: 409,
			wantProblem: &wantProblem{title: "Conflict", detail: "Pool: test_pool_a already exists"}},
		// test_pool_endpoint.py:405-421 (test_response_400)
		{name: "patch: name missing", method: "PATCH", path: "/pools/test_pool", body: `{"slots": 3}`, setup: testPool,
			wantStatus: 400, wantProblem: bad("Missing required property(ies): ['name']")},
		{name: "patch: both missing", method: "PATCH", path: "/pools/test_pool", body: `{}`, setup: testPool,
			wantStatus: 400, wantProblem: bad("Missing required property(ies): ['name', 'slots']")},
		{name: "patch: extra field", method: "PATCH", path: "/pools/test_pool", setup: testPool,
			body:       `{"name": "test_pool_a", "slots": 3, "include_deferred": true, "extra_field": "extra"}`,
			wantStatus: 400, wantProblem: bad("{'extra_field': ['Unknown field.']}")},
		// test_pool_endpoint.py:436 (test_not_found_when_no_pool_available)
		{name: "patch: unknown", method: "PATCH", path: "/pools/test_pool", body: `{"name": "test_pool_a", "slots": 3}`,
			wantStatus: 404, wantProblem: notFound("test_pool")},
		// test_pool_endpoint.py:475-597 (TestModifyDefaultPool.test_patch)
		{name: "patch default_pool: rename", method: "PATCH", path: "/pools/default_pool",
			body: `{"name": "test_pool_a", "slots": 3, "include_deferred": false}`, wantStatus: 400,
			wantProblem: bad("Default Pool's name can't be modified")},
		{name: "patch default_pool: mask with name", method: "PATCH", path: "/pools/default_pool?update_mask=name,%20slots",
			body: `{"name": "test_pool_a", "slots": 3, "include_deferred": false}`, wantStatus: 400,
			wantProblem: bad("Default Pool's name can't be modified")},
		{name: "patch default_pool: mask slots", method: "PATCH", path: "/pools/default_pool?update_mask=slots",
			body: `{"name": "test_pool_a", "slots": 3}`, wantStatus: 200, wantJSON: poolJSONText("default_pool", 3, `"Default pool"`, false)},
		{name: "patch default_pool: mask include_deferred", method: "PATCH", path: "/pools/default_pool?update_mask=include_deferred",
			body: `{"name": "test_pool_a", "include_deferred": true}`, wantStatus: 200,
			wantJSON: poolJSONText("default_pool", 128, `"Default pool"`, true)},
		{name: "patch default_pool: mask slots and include_deferred", method: "PATCH",
			path: "/pools/default_pool?update_mask=slots,include_deferred", body: `{"name": "test_pool_a", "slots": 3, "include_deferred": true}`,
			wantStatus: 200, wantJSON: poolJSONText("default_pool", 3, `"Default pool"`, true)},
		{name: "patch default_pool: mask name and slots, same name", method: "PATCH", path: "/pools/default_pool?update_mask=name,slots",
			body: `{"name": "default_pool", "slots": 3}`, wantStatus: 200, wantJSON: poolJSONText("default_pool", 3, `"Default pool"`, false)},
		{name: "patch default_pool: no mask, same name", method: "PATCH", path: "/pools/default_pool",
			body: `{"name": "default_pool", "slots": 3, "include_deferred": true}`, wantStatus: 200,
			wantJSON: poolJSONText("default_pool", 3, `"Default pool"`, true), check: wantPool("default_pool", 3, true)},
		// test_pool_endpoint.py:603-646 (TestPatchPoolWithUpdateMask.test_response_200)
		{name: "patch: mask name and slots", method: "PATCH", path: "/pools/test_pool?update_mask=name,%20slots",
			body: `{"name": "test_pool_a", "slots": 2}`, setup: testPool, wantStatus: 200, wantJSON: poolJSONText("test_pool_a", 2, "null", false)},
		{name: "patch: mask name", method: "PATCH", path: "/pools/test_pool?update_mask=name",
			body: `{"name": "test_pool_a", "slots": 2}`, setup: testPool, wantStatus: 200, wantJSON: poolJSONText("test_pool_a", 3, "null", false)},
		{name: "patch: mask slots", method: "PATCH", path: "/pools/test_pool?update_mask=slots",
			body: `{"slots": 2}`, setup: testPool, wantStatus: 200, wantJSON: poolJSONText("test_pool", 2, "null", false)},
		{name: "patch: mask include_deferred", method: "PATCH", path: "/pools/test_pool?update_mask=include_deferred",
			body: `{"include_deferred": true}`, setup: testPool, wantStatus: 200, wantJSON: poolJSONText("test_pool", 3, "null", true)},
		// test_pool_endpoint.py:669-698 (TestPatchPoolWithUpdateMask.test_response_400)
		{name: "patch: read-only occupied_slots", method: "PATCH", path: "/pools/test_pool?update_mask=slots,%20name,%20occupied_slots",
			body: `{"name": "test_pool_a", "slots": 2, "occupied_slots": 1}`, setup: testPool, wantStatus: 400,
			wantProblem: bad("Property is read-only - 'occupied_slots'")},
		{name: "patch: read-only queued_slots", method: "PATCH", path: "/pools/test_pool?update_mask=slots,%20name,%20queued_slots",
			body: `{"name": "test_pool_a", "slots": 2, "queued_slots": 1}`, setup: testPool, wantStatus: 400,
			wantProblem: bad("Property is read-only - 'queued_slots'")},
		{name: "patch: mask names", method: "PATCH", path: "/pools/test_pool?update_mask=slots,%20names,",
			body: `{"name": "test_pool_a", "slots": 2}`, setup: testPool, wantStatus: 400, wantProblem: bad("Invalid field: names in update mask")},
		{name: "patch: mask slot", method: "PATCH", path: "/pools/test_pool?update_mask=slot,%20name,",
			body: `{"name": "test_pool_a", "slots": 2}`, setup: testPool, wantStatus: 400, wantProblem: bad("Invalid field: slot in update mask")},
		// A masked field the body lacks stays (Airflow: a KeyError, 500).
		{name: "patch: mask description, none sent", method: "PATCH", path: "/pools/test_pool?update_mask=description",
			body: `{"slots": 2}`, setup: testPool, wantStatus: 200, wantJSON: poolJSONText("test_pool", 3, "null", false)},
	})
}
