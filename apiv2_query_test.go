package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// v2ErrorBody renders err as the v2 dialect answers it.
func v2ErrorBody(t *testing.T, err error) string {
	t.Helper()
	e, ok := err.(*v2Error)
	if !ok {
		t.Fatalf("error %v (%T), want a *v2Error", err, err)
	}
	b, jerr := json.Marshal(v2Detail{Detail: e.detail})
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(b)
}

// TestV2Query_PydanticErrors checks the 422 lists FastAPI writes for bad
// query parameters (pydantic 2's types, messages, inputs and ctx), all of
// a request's errors in the declared order, and that undeclared
// parameters are ignored.
func TestV2Query_PydanticErrors(t *testing.T) {
	t.Parallel()
	params := []v1Param{qV2Limit, qV2Offset, qV2Bool("paused"), qV2Date("logical_date_gte"),
		qV2Literal("tags_match_mode", "any", "all"), qV2Ints("try_number"), {name: "dag_ids", kind: paramString, required: true}}
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"dag_ids=a&limit=x", `{"detail":[{"type":"int_parsing","loc":["query","limit"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
		{"dag_ids=a&limit=-1", `{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"dag_ids=a&offset=1.5", `{"detail":[{"type":"int_from_float","loc":["query","offset"],"msg":"Input should be a valid integer, got a number with a fractional part","input":"1.5"}]}`},
		{"dag_ids=a&paused=maybe", `{"detail":[{"type":"bool_parsing","loc":["query","paused"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`},
		{"dag_ids=a&logical_date_gte=2024-1", `{"detail":[{"type":"datetime_from_date_parsing","loc":["query","logical_date_gte"],"msg":"Input should be a valid datetime or date, input is too short","input":"2024-1","ctx":{"error":"input is too short"}}]}`},
		{"dag_ids=a&tags_match_mode=some", `{"detail":[{"type":"literal_error","loc":["query","tags_match_mode"],"msg":"Input should be 'any' or 'all'","input":"some","ctx":{"expected":"'any' or 'all'"}}]}`},
		{"dag_ids=a&try_number=1&try_number=z", `{"detail":[{"type":"int_parsing","loc":["query","try_number",1],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"z"}]}`},
		{"limit=x&paused=no", `{"detail":[{"type":"int_parsing","loc":["query","limit"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"},{"type":"missing","loc":["query","dag_ids"],"msg":"Field required","input":null}]}`},
	} {
		q, _ := url.ParseQuery(tc.query)
		_, err := v2Query(q, params)
		if err == nil {
			t.Errorf("%s: no error, want %s", tc.query, tc.want)
			continue
		}
		if got := v2ErrorBody(t, err); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
	q, _ := url.ParseQuery("dag_ids=a&limit=5&limit=7&paused=YES&unknown=1&logical_date_gte=2024-01-02T03:04:05%2B01:00")
	got, err := v2Query(q, params)
	if err != nil {
		t.Fatal(err)
	}
	if p := v2Page(got); p.limit != 7 || p.offset != 0 {
		t.Errorf("page %+v, want the last limit (7) and offset 0", p)
	}
	if b, given := got.v2Bool("paused"); !b || !given {
		t.Errorf("paused = %v %v, want true given", b, given)
	}
	if _, kept := got["unknown"]; kept {
		t.Error("an undeclared parameter was kept")
	}
	if at := got.v2Time("logical_date_gte"); at == nil || !at.Equal(time.Date(2024, 1, 2, 2, 4, 5, 0, time.UTC)) {
		t.Errorf("logical_date_gte = %v, want 2024-01-02T02:04:05Z", at)
	}
	if p := v2Page(nil); p.limit != v2DefaultLimit {
		t.Errorf("default limit %d, want %d", p.limit, v2DefaultLimit)
	}
}

// TestV2OrderBy checks SortParam's checks: the attribute without its "-",
// renamed attributes, at most ten keys, and Airflow's 400 texts.
func TestV2OrderBy(t *testing.T) {
	t.Parallel()
	allowed := []string{"dag_id", "next_dagrun"}
	keys, err := v2OrderBy(v1Values{"order_by": {"-dag_id", "last_run_state"}}, "dag_id", allowed, map[string]string{"last_run_state": "state"})
	if err != nil || len(keys) != 2 || keys[0] != (v2SortKey{"dag_id", true}) || keys[1] != (v2SortKey{"state", false}) {
		t.Errorf("keys %v, %v", keys, err)
	}
	if keys, _ := v2OrderBy(nil, "dag_id", allowed, nil); len(keys) != 1 || keys[0].attr != "dag_id" {
		t.Errorf("default keys %v", keys)
	}
	_, err = v2OrderBy(v1Values{"order_by": {"-owner"}}, "dag_id", allowed, nil)
	if got, want := v2ErrorBody(t, err), `{"detail":"Ordering with 'owner' is disallowed or the attribute does not exist on the model"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	many := v1Values{"order_by": {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}}
	_, err = v2OrderBy(many, "dag_id", nil, nil)
	if got, want := v2ErrorBody(t, err), `{"detail":"Ordering with more than 10 parameters is not allowed. Provided: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestV2Body_PydanticErrors checks a body's checks against a model: every
// field's error in field order, then unknown fields, the missing body,
// JSON that does not parse and a body that is not JSON.
func TestV2Body_PydanticErrors(t *testing.T) {
	t.Parallel()
	model := &v2Model{name: "TriggerDAGRunPostBody", fields: []v2Field{
		{name: "dag_run_id", typ: v2TStr, nullable: true},
		{name: "logical_date", typ: v2TAware, required: true, nullable: true},
		{name: "conf", typ: v2TDict, nullable: true},
		{name: "slots", typ: v2Type{kind: v2Int, ge: minimum(-1)}},
		{name: "state", typ: v2TEnum("queued", "running")},
	}}
	check := func(raw, contentType string) (map[string]any, error) {
		body, err := decodeV2Body([]byte(raw), contentType)
		if err != nil {
			return nil, err
		}
		rt := &apiRoute{}
		v2Body(model)(rt)
		return rt.body(body.plain)
	}
	for _, tc := range []struct{ raw, ct, want string }{
		{`{}`, "application/json", `{"detail":[{"type":"missing","loc":["body","logical_date"],"msg":"Field required","input":{}}]}`},
		{``, "application/json", `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{`{"logical_date":null,"x":1,"conf":[1]}`, "application/json", `{"detail":[{"type":"dict_type","loc":["body","conf"],"msg":"Input should be a valid dictionary","input":[1]},{"type":"extra_forbidden","loc":["body","x"],"msg":"Extra inputs are not permitted","input":1}]}`},
		{`{"logical_date":"2024-01-01T00:00:00","dag_run_id":5}`, "", `{"detail":[{"type":"string_type","loc":["body","dag_run_id"],"msg":"Input should be a valid string","input":5},{"type":"timezone_aware","loc":["body","logical_date"],"msg":"Input should have timezone info","input":"2024-01-01T00:00:00"}]}`},
		{`{"logical_date":null,"slots":-2,"state":"x"}`, "application/json", `{"detail":[{"type":"greater_than_equal","loc":["body","slots"],"msg":"Input should be greater than or equal to -1","input":-2,"ctx":{"ge":-1}},{"type":"enum","loc":["body","state"],"msg":"Input should be 'queued' or 'running'","input":"x","ctx":{"expected":"'queued' or 'running'"}}]}`},
		{`{"logical_date":`, "application/json", `{"detail":[{"type":"json_invalid","loc":["body",16],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}`},
		{`[1]`, "application/json", `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1]}]}`},
		{`logical_date=x`, "application/x-www-form-urlencoded", `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":"logical_date=x"}]}`},
	} {
		_, err := check(tc.raw, tc.ct)
		if err == nil {
			t.Errorf("%s: no error, want %s", tc.raw, tc.want)
			continue
		}
		if got := v2ErrorBody(t, err); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.raw, got, tc.want)
		}
	}
	got, err := check(`{"logical_date":"2024-01-01T01:00:00+01:00","slots":"3","conf":{"a":[1]}}`, "application/json")
	if err != nil {
		t.Fatal(err)
	}
	if at, _ := got["logical_date"].(time.Time); !at.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || got["slots"] != int64(3) {
		t.Errorf("kept %v", got)
	}
	if _, given := got["dag_run_id"]; given {
		t.Error("an absent field was kept")
	}
}

// TestV2ParseDateTime checks speedate's readings and wordings.
func TestV2ParseDateTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		want   time.Time
		reason string
	}{
		{"2024-05-06", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), ""},
		{"2024-05-06T07:08:09.5Z", time.Date(2024, 5, 6, 7, 8, 9, 5e8, time.UTC), ""},
		{"2024-05-06 07:08-02:00", time.Date(2024, 5, 6, 9, 8, 0, 0, time.UTC), ""},
		{"1700000000", time.Unix(1700000000, 0).UTC(), ""},
		{"2024-0506", time.Time{}, "input is too short"}, {"20240506", time.Unix(20240506, 0).UTC(), ""},
		{"2024/05/06", time.Time{}, "invalid date separator, expected `-`"},
		{"abcd-05-06", time.Time{}, "invalid character in year"},
		{"2024-13-06", time.Time{}, "month value is outside expected range of 1-12"},
		{"2024-02-30", time.Time{}, "day value is outside expected range"},
		{"2024-02-03T25:00", time.Time{}, "hour value is outside expected range of 0-23"},
		// The clock's parts, as strings.SplitN(clock, ":", 3) cut them.
		{"2024-02-03T07", time.Time{}, "invalid character in hour"},
		{"2024-02-03T07:8", time.Time{}, "invalid character in hour"},
		{"2024-02-03T07:08:09:10", time.Time{}, "second value is outside expected range of 0-59"},
		{"2024-02-03T07:08:09+05:30", time.Date(2024, 2, 3, 1, 38, 9, 0, time.UTC), ""},
		{"-1.5", time.Unix(-2, 5e8).UTC(), ""},
		{"1700000000000", time.Unix(1700000000, 0).UTC(), ""},
	} {
		got, reason := v2ParseDateTime(tc.in)
		if reason != tc.reason || (reason == "" && !got.Equal(tc.want)) {
			t.Errorf("%q = %v %q, want %v %q", tc.in, got, reason, tc.want, tc.reason)
		}
	}
}

// TestV2Render checks pydantic's datetime form.
func TestV2Render(t *testing.T) {
	t.Parallel()
	for in, want := range map[time.Time]string{
		time.Date(2026, 11, 26, 17, 57, 58, 0, time.UTC):                 "2026-11-26T17:57:58Z",
		time.Date(2026, 11, 26, 17, 57, 58, 123456789, time.UTC):         "2026-11-26T17:57:58.123456Z",
		time.Date(2026, 11, 26, 18, 57, 58, 0, time.FixedZone("", 3600)): "2026-11-26T17:57:58Z",
	} {
		if got := v2Time(in); got != want {
			t.Errorf("v2Time(%v) = %s, want %s", in, got, want)
		}
	}
	if v2At(nil) != nil || v2At(&time.Time{}) != nil {
		t.Error("v2At of nothing is not null")
	}
	if got := v2Window([]int{1, 2, 3, 4}, page{offset: 1, limit: 2}); len(got) != 2 || got[0] != 2 {
		t.Errorf("window %v", got)
	}
	if got := v2Window([]int{1}, page{offset: 5, limit: 2}); got == nil || len(got) != 0 {
		t.Errorf("window past the end %v, want an empty list", got)
	}
}

// TestV2Routing_FirstMatchAndGathering checks Starlette's matching on a
// table: the first declared row wins (a literal row declared before a
// parameter row takes its path), a path that fits another method is a
// 405 naming that method, an integer path parameter that is not one is a
// 422 gathered with the query's errors.
func TestV2Routing_FirstMatchAndGathering(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	srv := ts.srv
	tbl := &routeTable{dialect: srv.dialV2}
	var hit string
	tbl.add(http.MethodGet, "/things/events", func(w http.ResponseWriter, r *http.Request, req *apiRequest) { hit = "events" })
	tbl.add(http.MethodGet, "/things/{id}", func(w http.ResponseWriter, r *http.Request, req *apiRequest) { hit = "thing " + req.param("id") },
		withPathInts("id"), withQuery(qV2Limit))
	for _, tc := range []struct{ method, path, hit string }{
		{"GET", "/things/events", "events"},
		{"GET", "/things/7", "thing 7"},
	} {
		rt, params, _ := tbl.matchFirst(tc.method, tc.path)
		if rt == nil {
			t.Fatalf("%s %s: no row", tc.method, tc.path)
		}
		rt.handle(nil, nil, &apiRequest{path: params})
		if hit != tc.hit {
			t.Errorf("%s %s hit %q, want %q", tc.method, tc.path, hit, tc.hit)
		}
	}
	if rt, _, partial := tbl.matchFirst("POST", "/things/7"); rt != nil || partial == nil || partial.method != "GET" {
		t.Errorf("POST: row %v partial %v, want the GET row as partial", rt, partial)
	}
	rt, params, _ := tbl.matchFirst("GET", "/things/x")
	err := v2Gather(v2CheckPath(rt, params), func() error { _, err := v2Query(url.Values{"limit": {"-1"}}, rt.query); return err }())
	want := `{"detail":[{"type":"int_parsing","loc":["path","id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"},{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`
	if got := v2ErrorBody(t, err); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestMatchFirst_IndexKeepsDeclaredOrder checks the shape index against a
// plain walk of the table in order, over rows of every kind (literal,
// parameter, a parameter first segment, a {name:path} tail) and paths of
// every shape.
func TestMatchFirst_IndexKeepsDeclaredOrder(t *testing.T) {
	t.Parallel()
	tbl := &routeTable{}
	noop := func(http.ResponseWriter, *http.Request, *apiRequest) {}
	for _, row := range []struct{ method, pattern string }{
		{"GET", "/files/{rest:path}"}, {"GET", "/assets/events"}, {"POST", "/assets/events"},
		{"GET", "/{kind}/events"}, {"GET", "/assets/{id}"}, {"DELETE", "/assets/{id}"},
		{"GET", "/{kind}/{id}"}, {"GET", "/{any:path}"}, {"PATCH", "/dags/{dag_id}/x"}, {"GET", "/dags/~/x"},
	} {
		tbl.add(row.method, row.pattern, noop)
	}
	walk := func(method, path string) (*apiRoute, *apiRoute) {
		segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
		var partial *apiRoute
		for _, row := range tbl.routes {
			if !row.fitsAnySegment(segs) {
				continue
			}
			if row.method == method {
				return row, nil
			}
			if partial == nil {
				partial = row
			}
		}
		return nil, partial
	}
	for _, method := range []string{"GET", "POST", "DELETE", "PATCH", "PUT"} {
		for _, path := range []string{"/assets/events", "/assets/7", "/pools/events", "/pools/7", "/files/a/b",
			"/dags/~/x", "/dags/d/x", "/a/b/c/d", "/assets", "/", "/dags//x", "/{}/events", "/{}/7", "/files",
			"/files/a/b/c/d/e", "/assets/events/x"} {
			gotRow, _, gotPartial := tbl.matchFirst(method, path)
			wantRow, wantPartial := walk(method, path)
			if gotRow != wantRow || gotPartial != wantPartial {
				t.Errorf("%s %s: index found %v/%v, the walk %v/%v", method, path, gotRow, gotPartial, wantRow, wantPartial)
			}
		}
	}
}

// TestServeStarlette_BodyDecodedBeforeTheCaller checks FastAPI's order on
// a row with a body: JSON that does not parse is a 422 even without a
// token (the body is read before the dependencies), a body that parses
// but breaks the model is the token check's 401 first, and with a token
// the model's 422.
func TestServeStarlette_BodyDecodedBeforeTheCaller(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	tbl := &routeTable{dialect: ts.srv.dialV2}
	model := &v2Model{name: "PoolBody", fields: []v2Field{{name: "name", typ: v2TStr, required: true}}}
	tbl.add(http.MethodPost, "/pools", ts.srv.dialV2.answer(ts.srv, func(req *apiRequest) (any, error) { return req.body, nil }), v2Body(model))
	token := tokenOf(t, ts.do(t, http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`))
	for _, tc := range []struct {
		name, body, auth string
		status           int
		want             string
	}{
		{"bad JSON, no token", `{"name":`, "", 422, `{"detail":[{"type":"json_invalid","loc":["body",8],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}`},
		{"bad model, no token", `{"x":1}`, "", 401, `{"detail":"Not authenticated"}`},
		{"bad model, token", `{"x":1}`, "Bearer " + token, 422, `{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{"x":1}},{"type":"extra_forbidden","loc":["body","x"],"msg":"Extra inputs are not permitted","input":1}]}`},
		{"good, token", `{"name":"p"}`, "Bearer " + token, 200, `{"name":"p"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/pools", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			rec := httptest.NewRecorder()
			ts.srv.serveStarlette(rec, req, tbl, "/pools")
			if rec.Code != tc.status || rec.Body.String() != tc.want {
				t.Errorf("= %d %s, want %d %s", rec.Code, rec.Body.String(), tc.status, tc.want)
			}
		})
	}
}

// TestV2TriggerBody_ConfAsSent checks the trigger's body model: its conf
// is kept as decoded, in the body's order (v2CreateRun reads it with
// v2BodyField; no map is made), a conf that is not an object is still
// dict_type at ["body", "conf"] (a loc from the model's cache), and a
// second check answers the same.
func TestV2TriggerBody_ConfAsSent(t *testing.T) {
	t.Parallel()
	for _, model := range []*v2Model{v2TriggerBody, v2MaterializeBody} {
		decoded, err := decodeV2Body([]byte(`{"conf": {"b": 1, "a": {"c": 2}}, "logical_date": null}`), "application/json")
		if err != nil {
			t.Fatal(err)
		}
		got, issues := model.validate(decoded.plain, []any{"body"})
		if issues != nil {
			t.Fatalf("%s: %v", model.name, issues)
		}
		conf, ok := got["conf"].(pyDict)
		if !ok || len(conf) != 2 || conf[0].key != "b" || conf[1].key != "a" {
			t.Errorf("%s: conf kept as %#v, want the decoded object in its order", model.name, got["conf"])
		}
		for range 2 {
			bad, err := decodeV2Body([]byte(`{"conf": [1], "logical_date": null}`), "application/json")
			if err != nil {
				t.Fatal(err)
			}
			_, issues := model.validate(bad.plain, []any{"body"})
			if len(issues) != 1 || issues[0].Type != "dict_type" || fmt.Sprint(issues[0].Loc) != "[body conf]" {
				t.Errorf("%s: conf [1] = %+v, want one dict_type at [body conf]", model.name, issues)
			}
		}
	}
}
