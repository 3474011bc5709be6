package main

import "testing"

// TestAPIv2_AirflowAssetEventTies: test_assets.py's events at one
// timestamp (create_assets_events without varying_timestamps), ordered by
// a key they share: SortParam ends every order with the primary key, in
// the direction of the first key (c57fba0e common/parameters.py:324-329),
// and the route's default key is timestamp (routes/public/assets.py:283-296).
// Empty query values are FastAPI's: a string filter compares with "", an
// int, a bool or a date refuses it, before= is the parser's 400.
func TestAPIv2_AirflowAssetEventTies(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	seedAssetEvents(t, ts, 3, false)
	const path = "/api/v2/assets/events"
	for _, c := range []v2ListCase{
		{query: "", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?order_by=-timestamp", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?order_by=-source_dag_id", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?order_by=source_map_index", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?order_by=-source_task_id&order_by=timestamp", wantIDs: []int64{3, 2, 1}, wantTotal: 3},
		{query: "?source_dag_id=", wantIDs: []int64{}, wantTotal: 0},
		{query: "?name_pattern=simple_", wantIDs: []int64{1, 2, 3}, wantTotal: 3},
		{query: "?asset_id=", wantStatus: 422,
			wantBody: `{"detail":[{"type":"int_parsing","loc":["query","asset_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":""}]}`},
		{query: "?order_by=a&order_by=b&order_by=c&order_by=d&order_by=e&order_by=f&order_by=g&order_by=h&order_by=i&order_by=j&order_by=k", wantStatus: 400,
			wantBody: `{"detail":"Ordering with more than 10 parameters is not allowed. Provided: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']"}`},
	} {
		t.Run(c.query, func(t *testing.T) { c.check(t, ts, path, "asset_events") })
	}
	runAirflowCases(t, ts, []airflowCase{
		{"GET", "/assets?only_active=", "", 422,
			`{"detail":[{"type":"bool_parsing","loc":["query","only_active"],"msg":"Input should be a valid boolean, unable to interpret input","input":""}]}`},
		{"GET", "/assets?only_active=false&dag_ids=", "", 200, `{"assets":[],"total_entries":0}`},
		{"GET", "/assets/1/queuedEvents?before=", "", 400, `{"detail":"Invalid datetime: ''. Please check the date parameter have this value."}`},
		{"DELETE", "/dags/d/assets/x/queuedEvents", "", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","asset_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		{"POST", "/assets/events", `{"asset_id": 1, "partition_key": 5}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","partition_key"],"msg":"Input should be a valid string","input":5}]}`},
		{"POST", "/assets/events", ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"GET", "/dags/tutorial/dagRuns/r1/taskInstances/print_date/x/hitlDetails/tries/y", "", 422,
			`{"detail":[{"type":"int_parsing","loc":["path","map_index"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"},` +
				`{"type":"int_parsing","loc":["path","try_number"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"y"}]}`},
		{"GET", "/dags/~/dagRuns/~/hitlDetails?order_by=responded_by_user_id&order_by=responded_by_user_name&order_by=task_display_name", "", 200,
			`{"hitl_details":[],"total_entries":0}`},
		{"GET", "/dags/~/dagRuns/~/hitlDetails?order_by=map_index", "", 400,
			`{"detail":"Ordering with 'map_index' is disallowed or the attribute does not exist on the model"}`},
	})
}
