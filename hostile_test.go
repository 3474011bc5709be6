package main

// Hostile input: every endpoint against bad bodies, wrong types, huge and
// empty strings, bad bytes and path tricks. Each answer is Airflow's
// status with a JSON error, and the store is unchanged afterwards.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"
	"github.com/rs/zerolog"
)

// withRunLimit sets --max-runs-per-dag and --run-retention.
func withRunLimit(l RunLimit) testOption {
	return func(t *testing.T, s *testSetup) { s.runLimit = l }
}

type badCase struct {
	name     string
	method   string
	path     string // below /api/experimental unless it starts with /_
	body     string
	status   int
	editions []edition // nil: all
}

// badInputCases are requests no endpoint may act on. The statuses are
// Airflow's: 400 and 404 as it answers them, 500 where Airflow crashes
// (HTML there, JSON here), 413 over the body limit.
func badInputCases() []badCase {
	const trig = "/dags/example_bash_operator/dag_runs"
	const run = "/dags/example_bash_operator/dag_runs/2024-01-01T00:00:00+00:00"
	huge := strings.Repeat("x", 600<<10)
	hugeConf := `{"conf": {"k": "` + strings.Repeat("y", maxConfBytes) + `"}}`
	cases := []badCase{
		// Trigger: bodies.
		{name: "trigger malformed JSON", method: "POST", path: trig, body: `{"conf": `, status: 400},
		{name: "trigger trailing garbage", method: "POST", path: trig, body: `{} x`, status: 400},
		{name: "trigger empty body", method: "POST", path: trig, body: ``, status: 400},
		{name: "trigger blank body", method: "POST", path: trig, body: " \n\t ", status: 400},
		{name: "trigger null body", method: "POST", path: trig, body: `null`, status: 500},
		// Airflow's `"run_id" in data` finds the key in a list or a str, then
		// cannot look it up (a list or str without a key name is a default
		// trigger: TestServer_TriggerDAG_BodyKinds).
		{name: "trigger array body", method: "POST", path: trig, body: `["run_id"]`, status: 500},
		{name: "trigger string body", method: "POST", path: trig, body: `"my run_id"`, status: 500},
		{name: "trigger number body", method: "POST", path: trig, body: `1`, status: 500},
		{name: "trigger non-UTF-8", method: "POST", path: trig, body: "{\"run_id\": \"\xff\xfe\"}", status: 400},
		{name: "trigger non-UTF-8 key", method: "POST", path: trig, body: "{\"\xc3\": 1}", status: 400},
		{name: "trigger over 1 MiB", method: "POST", path: trig, body: `{"conf": {"k": "` + strings.Repeat("z", 1<<20) + `"}}`, status: 413},
		// Trigger: conf of every wrong type.
		{name: "conf string", method: "POST", path: trig, body: `{"conf": "{\"k\": 1}"}`, status: 400, editions: airflow2},
		{name: "conf invalid JSON string", method: "POST", path: trig, body: `{"conf": "{k"}`, status: 500, editions: airflow1},
		{name: "conf number", method: "POST", path: trig, body: `{"conf": 5}`, status: 400, editions: airflow2},
		{name: "conf number 1.10", method: "POST", path: trig, body: `{"conf": 5}`, status: 500, editions: airflow1},
		{name: "conf array", method: "POST", path: trig, body: `{"conf": [1]}`, status: 400, editions: airflow2},
		{name: "conf array 1.10", method: "POST", path: trig, body: `{"conf": [1]}`, status: 500, editions: airflow1},
		{name: "conf true", method: "POST", path: trig, body: `{"conf": true}`, status: 400, editions: airflow2},
		{name: "conf true 1.10", method: "POST", path: trig, body: `{"conf": true}`, status: 500, editions: airflow1},
		{name: "conf null", method: "POST", path: trig, body: `{"conf": null}`, status: 400, editions: airflow2},
		{name: "conf over 64 KiB", method: "POST", path: trig, body: hugeConf, status: 400},
		{name: "conf duplicate key, last wins", method: "POST", path: trig, body: `{"conf": {}, "conf": 7}`, status: 400, editions: airflow2},
		// Trigger: execution_date.
		{name: "date number", method: "POST", path: trig, body: `{"execution_date": 20240101}`, status: 500},
		{name: "date object", method: "POST", path: trig, body: `{"execution_date": {}}`, status: 500},
		{name: "date array", method: "POST", path: trig, body: `{"execution_date": ["2024-01-01"]}`, status: 500},
		{name: "date boolean", method: "POST", path: trig, body: `{"execution_date": true}`, status: 500},
		{name: "date empty", method: "POST", path: trig, body: `{"execution_date": ""}`, status: 400},
		{name: "date garbage", method: "POST", path: trig, body: `{"execution_date": "yesterday-ish"}`, status: 400},
		{name: "date huge", method: "POST", path: trig, body: `{"execution_date": "` + huge + `"}`, status: 400},
		{name: "date year 0", method: "POST", path: trig, body: `{"execution_date": "0000-01-01"}`, status: 400},
		{name: "date Feb 30", method: "POST", path: trig, body: `{"execution_date": "2024-02-30"}`, status: 400},
		// dateutil skips NUL characters, and refuses the word after it.
		{name: "date NUL", method: "POST", path: trig, body: `{"execution_date": "2024-01-01\u0000x"}`, status: 400},
		{name: "date duplicate key, last wins", method: "POST", path: trig,
			body: `{"execution_date": "2024-06-01", "execution_date": "bad"}`, status: 400},
		{name: "date existing run", method: "POST", path: trig, body: `{"execution_date": "2024-01-01T00:00:00+00:00"}`, status: 400, editions: airflow2},
		{name: "date existing run 1.10", method: "POST", path: trig, body: `{"execution_date": "2024-01-01T00:00:00+00:00", "run_id": "other"}`, status: 500, editions: airflow1},
		// Trigger: replace_microseconds.
		{name: "replace_microseconds boolean", method: "POST", path: trig, body: `{"replace_microseconds": true}`, status: 500},
		{name: "replace_microseconds number", method: "POST", path: trig, body: `{"replace_microseconds": 1}`, status: 500},
		{name: "replace_microseconds object", method: "POST", path: trig, body: `{"replace_microseconds": {}}`, status: 500},
		{name: "replace_microseconds null 1.10", method: "POST", path: trig, body: `{"replace_microseconds": null}`, status: 500, editions: airflow1},
		// Trigger: run_id.
		{name: "run_id number", method: "POST", path: trig, body: `{"run_id": 5}`, status: 500},
		{name: "run_id array", method: "POST", path: trig, body: `{"run_id": ["a"]}`, status: 500},
		{name: "run_id boolean", method: "POST", path: trig, body: `{"run_id": true}`, status: 500},
		{name: "run_id huge", method: "POST", path: trig, body: `{"run_id": "` + huge + `"}`, status: 400},
		{name: "run_id 251 characters", method: "POST", path: trig, body: `{"run_id": "` + strings.Repeat("é", maxRunIDChars+1) + `"}`, status: 400},
		{name: "run_id with ..", method: "POST", path: trig, body: `{"run_id": "../../etc/passwd"}`, status: 500, editions: airflow2},
		{name: "run_id with shell text", method: "POST", path: trig, body: `{"run_id": "$(touch x)"}`, status: 500, editions: airflow2},
		{name: "run_id existing", method: "POST", path: trig, body: `{"run_id": "existing"}`, status: 400},
		{name: "run_id duplicate key, last wins", method: "POST", path: trig, body: `{"run_id": "fresh", "run_id": 5}`, status: 500},
		// Trigger: unknown DAGs and path tricks.
		{name: "trigger unknown dag", method: "POST", path: "/dags/nope/dag_runs", body: `{}`, status: 404},
		{name: "trigger dag ..", method: "POST", path: "/dags/../dag_runs", body: `{}`, status: 404},
		{name: "trigger dag %2e%2e", method: "POST", path: "/dags/%2e%2e/dag_runs", body: `{}`, status: 404},
		{name: "trigger dag slash encoded", method: "POST", path: "/dags/example_bash_operator%2F..%2Fx/dag_runs", body: `{}`, status: 404},
		{name: "trigger dag NUL", method: "POST", path: "/dags/example_bash_operator%00/dag_runs", body: `{}`, status: 404},
		{name: "trigger dag bad UTF-8", method: "POST", path: "/dags/%FF%FE/dag_runs", body: `{}`, status: 404},
		{name: "trigger dag unknown fields only", method: "POST", path: "/dags/nope/dag_runs", body: `{"x": 1, "y": [2]}`, status: 404},
		{name: "trigger wrong method", method: "PUT", path: trig, body: `{}`, status: 405},

		// Run listing and run state.
		{name: "runs unknown dag", path: "/dags/nope/dag_runs", status: 400},
		{name: "runs dag ..", path: "/dags/../dag_runs", status: 400},
		{name: "runs dag %2e%2e", path: "/dags/%2e%2e/dag_runs", status: 400},
		{name: "runs huge dag id", path: "/dags/" + strings.Repeat("d", 8000) + "/dag_runs", status: 400},
		{name: "runs bad state", path: trig + "?state=bogus", status: 500, editions: airflow2},
		{name: "run state bad date", path: "/dags/example_bash_operator/dag_runs/not-a-date", status: 400},
		{name: "run state blank date", path: "/dags/example_bash_operator/dag_runs/%20", status: 400},
		{name: "run state date ..", path: "/dags/example_bash_operator/dag_runs/..", status: 400},
		{name: "run state date %2F", path: "/dags/example_bash_operator/dag_runs/2024%2F01%2F01", status: 404},
		{name: "run state bad UTF-8 date", path: "/dags/example_bash_operator/dag_runs/%FF", status: 400},
		{name: "run state huge date", path: "/dags/example_bash_operator/dag_runs/" + strings.Repeat("9", 8000), status: 400},
		{name: "run state no run", path: "/dags/example_bash_operator/dag_runs/1990-01-01", status: 404},
		{name: "run state unknown dag", path: "/dags/nope/dag_runs/2024-01-01", status: 404},

		// Task instance and task info.
		{name: "ti bad date", path: run[:strings.LastIndex(run, "/")] + "/x/tasks/runme_0", status: 400},
		{name: "ti unknown task", path: run + "/tasks/nope", status: 404},
		{name: "ti task ..", path: run + "/tasks/..", status: 404},
		{name: "ti task %2e%2e", path: run + "/tasks/%2e%2e", status: 404},
		{name: "ti task empty", path: run + "/tasks/", status: 404},
		{name: "ti no run", path: "/dags/example_bash_operator/dag_runs/1990-01-01/tasks/runme_0", status: 404},
		{name: "task unknown dag", path: "/dags/nope/tasks/runme_0", status: 404},
		{name: "task unknown task", path: "/dags/example_bash_operator/tasks/nope", status: 404},
		{name: "task huge id", path: "/dags/example_bash_operator/tasks/" + strings.Repeat("t", 8000), status: 404},
		{name: "task bad UTF-8", path: "/dags/example_bash_operator/tasks/%C3%28", status: 404},

		// Code, pause, delete.
		{name: "code unknown dag", path: "/dags/nope/code", status: 404},
		{name: "code dag ..", path: "/dags/%2e%2e/code", status: 404},
		{name: "pause unknown dag", path: "/dags/nope/paused/true", status: 500},
		{name: "pause dag %00", path: "/dags/%00/paused/false", status: 500},
		{name: "paused unknown dag", path: "/dags/nope/paused", status: 500},
		{name: "delete unknown dag", method: "DELETE", path: "/dags/nope", status: 404, editions: []edition{edition2, edition110}},
		{name: "delete dag ..", method: "DELETE", path: "/dags/%2e%2e", status: 404, editions: []edition{edition2, edition110}},
		{name: "delete dag prefix", method: "DELETE", path: "/dags/example_bash", status: 404, editions: []edition{edition2, edition110}},
		{name: "delete dag rbac", method: "DELETE", path: "/dags/example_bash_operator", status: 404, editions: []edition{edition110RBAC}},

		// Pools.
		{name: "pool blank name", path: "/pools/%20%20", status: 400},
		{name: "pool tab name", path: "/pools/%09", status: 400},
		{name: "pool unknown", path: "/pools/nope", status: 404},
		{name: "pool ..", path: "/pools/..", status: 404},
		{name: "pool %2e%2e", path: "/pools/%2e%2e", status: 404},
		{name: "pool slash encoded", path: "/pools/default_pool%2F..", status: 404},
		{name: "pool huge name", path: "/pools/" + strings.Repeat("p", 8000), status: 404},
		{name: "pool trailing slash", path: "/pools/", status: 404},
		{name: "delete pool blank", method: "DELETE", path: "/pools/%20", status: 400},
		{name: "delete default_pool", method: "DELETE", path: "/pools/default_pool", status: 400},
		{name: "delete pool unknown", method: "DELETE", path: "/pools/nope", status: 404},
		{name: "delete pool ..", method: "DELETE", path: "/pools/..", status: 404},
		{name: "create pool malformed", method: "POST", path: "/pools", body: `{"name": "p",`, status: 400},
		{name: "create pool empty", method: "POST", path: "/pools", body: ``, status: 400},
		{name: "create pool non-UTF-8", method: "POST", path: "/pools", body: "{\"name\": \"\xff\", \"slots\": 1, \"description\": \"\"}", status: 400},
		{name: "create pool null", method: "POST", path: "/pools", body: `null`, status: 500},
		{name: "create pool array", method: "POST", path: "/pools", body: `[]`, status: 500},
		{name: "create pool missing key", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1}`, status: 500},
		{name: "create pool unknown key", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": "", "x": 1}`, status: 500},
		{name: "create pool include_deferred", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": "", "include_deferred": true}`, status: 500},
		{name: "create pool name number", method: "POST", path: "/pools", body: `{"name": 5, "slots": 1, "description": ""}`, status: 500},
		{name: "create pool name object", method: "POST", path: "/pools", body: `{"name": {}, "slots": 1, "description": ""}`, status: 500},
		{name: "create pool name null", method: "POST", path: "/pools", body: `{"name": null, "slots": 1, "description": ""}`, status: 400},
		{name: "create pool name empty", method: "POST", path: "/pools", body: `{"name": "", "slots": 1, "description": ""}`, status: 400},
		{name: "create pool name blank", method: "POST", path: "/pools", body: `{"name": " \t\n", "slots": 1, "description": ""}`, status: 400},
		{name: "create pool name 257", method: "POST", path: "/pools", body: `{"name": "` + strings.Repeat("ü", maxPoolNameChars+1) + `", "slots": 1, "description": ""}`, status: 400},
		{name: "create pool name huge", method: "POST", path: "/pools", body: `{"name": "` + huge + `", "slots": 1, "description": ""}`, status: 400},
		{name: "create pool slots text", method: "POST", path: "/pools", body: `{"name": "p", "slots": "foo", "description": ""}`, status: 400},
		{name: "create pool slots decimal text", method: "POST", path: "/pools", body: `{"name": "p", "slots": "5.5", "description": ""}`, status: 400},
		{name: "create pool slots empty text", method: "POST", path: "/pools", body: `{"name": "p", "slots": "", "description": ""}`, status: 400},
		{name: "create pool slots huge text", method: "POST", path: "/pools", body: `{"name": "p", "slots": "` + strings.Repeat("9", 400) + `", "description": ""}`, status: 400},
		{name: "create pool slots 1e400", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1e400, "description": ""}`, status: 400},
		{name: "create pool slots null", method: "POST", path: "/pools", body: `{"name": "p", "slots": null, "description": ""}`, status: 500},
		{name: "create pool slots array", method: "POST", path: "/pools", body: `{"name": "p", "slots": [1], "description": ""}`, status: 500},
		{name: "create pool slots object", method: "POST", path: "/pools", body: `{"name": "p", "slots": {}, "description": ""}`, status: 500},
		{name: "create pool description number", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": 5}`, status: 500},
		{name: "create pool description array", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": ["d"]}`, status: 500},
		{name: "create pool description 4 KiB + 1", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": "` + strings.Repeat("d", maxPoolDescriptionBytes+1) + `"}`, status: 400},
		{name: "create pool duplicate key, last wins", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "slots": "foo", "description": ""}`, status: 400},
		{name: "create pool over 1 MiB", method: "POST", path: "/pools", body: `{"name": "p", "slots": 1, "description": "` + strings.Repeat("d", 1<<20) + `"}`, status: 413},

		// Airflow 2 only routes.
		{name: "lineage bad date", path: "/lineage/example_bash_operator/nope", status: 400, editions: airflow2},
		{name: "lineage unknown dag", path: "/lineage/nope/2024-01-01", status: 404, editions: airflow2},
		{name: "lineage no run", path: "/lineage/example_bash_operator/1990-01-01", status: 404, editions: airflow2},
		{name: "lineage dag ..", path: "/lineage/%2e%2e/2024-01-01", status: 404, editions: airflow2},
		{name: "info wrong method", method: "POST", path: "/info", body: `{}`, status: 405, editions: airflow2},
		{name: "test wrong method", method: "DELETE", path: "/test", status: 405},

		// airlite's admin endpoints.
		{name: "admin load dag malformed", method: "POST", path: "/_airlite/dags", body: "dag_id: [", status: 400},
		{name: "admin load dag non-UTF-8", method: "POST", path: "/_airlite/dags", body: "dag_id: \xff\ntasks: []\n", status: 400},
		{name: "admin load dag dot-dot id", method: "POST", path: "/_airlite/dags",
			body: "dag_id: ../x\ntasks:\n  - {task_id: t, operator: EmptyOperator}\n", status: 400},
		{name: "admin run state bad JSON", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/state", body: `{"state": `, status: 400},
		{name: "admin run state unknown field", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/state", body: `{"state": "success", "x": 1}`, status: 400},
		{name: "admin run state wrong type", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/state", body: `{"state": 1}`, status: 400},
		{name: "admin run state bogus", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/state", body: `{"state": "bogus"}`, status: 400},
		{name: "admin run state unknown run", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/%2e%2e/state", body: `{"state": "success"}`, status: 404},
		{name: "admin task state wrong type", method: "POST", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/tasks/runme_0/state", body: `{"state": "success", "upstream": "yes"}`, status: 400},
		{name: "admin wait bad timeout", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/wait?timeout=forever", status: 400},
		{name: "admin wait timeout too long", path: "/_airlite/dags/example_bash_operator/dag_runs/existing/wait?timeout=11m", status: 400},
		{name: "admin reset bad scope", method: "POST", path: "/_airlite/reset?scope=everything", status: 400},
		{name: "admin clock bad body", method: "POST", path: "/_airlite/clock", body: `{"advance": 5}`, status: 400},
	}
	return cases
}

// TestServer_BadInputs sends every bad input to every edition and checks
// the status, the JSON error body, and that the store did not change.
func TestServer_BadInputs(t *testing.T) {
	t.Parallel()
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.Logger = zerolog.Nop() }))
			ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-01-01T00:00:00+00:00", "run_id": "existing", "conf": {"k": "v"}}`)
			ts.addExperimentalPools(t)
			for _, tc := range badInputCases() {
				if tc.editions != nil && !containsEdition(tc.editions, e) {
					continue
				}
				method := tc.method
				if method == "" {
					method = http.MethodGet
				}
				path := tc.path
				if !strings.HasPrefix(path, "/_") {
					path = apiPrefix + path
				}
				before := stateDigest(t, ts.store)
				res := ts.do(t, method, path, tc.body)
				if res.status != tc.status {
					t.Errorf("%s: status %d, want %d; body %.300q", tc.name, res.status, tc.status, res.body)
				}
				checkJSONError(t, tc.name, res)
				if after := stateDigest(t, ts.store); after != before {
					t.Errorf("%s: the store changed:\nbefore %s\nafter  %s", tc.name, before, after)
				}
			}
		})
	}
}

func containsEdition(list []edition, e edition) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// checkJSONError checks that a refusal is a JSON object that says what was
// wrong: {"error": …}, or connexion's problem document for Airflow 2's
// unknown routes.
func checkJSONError(t *testing.T, name string, res response) {
	t.Helper()
	ct := res.header.Get("Content-Type")
	if ct != "application/json" && ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want JSON", name, ct)
		return
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.body), &body); err != nil {
		t.Errorf("%s: body is not a JSON object: %v: %.200q", name, err, res.body)
		return
	}
	msg, _ := body["error"].(string)
	if msg == "" {
		msg, _ = body["detail"].(string)
	}
	if msg == "" {
		t.Errorf("%s: no error message in %.200q", name, res.body)
	}
	if strings.Contains(msg, "internal error") {
		t.Errorf("%s: an internal error, not an answer to the input: %q", name, msg)
	}
}

// The limits on what one request may store, at and over each limit.
func TestServer_Limits(t *testing.T) {
	t.Parallel()
	confAt := func(n int) string {
		// {"k":"…"} compact is n bytes.
		return `{"conf": {"k": "` + strings.Repeat("c", n-len(`{"k":""}`)) + `"}}`
	}
	for _, e := range allEditions {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, e)
			post := func(path, body string) response {
				return ts.do(t, http.MethodPost, apiPrefix+path, body)
			}
			res := post("/dags/example_bash_operator/dag_runs", confAt(maxConfBytes))
			if res.status != 200 {
				t.Errorf("conf of exactly %d bytes: %d %.200s", maxConfBytes, res.status, res.body)
			}
			res = post("/dags/example_bash_operator/dag_runs", confAt(maxConfBytes+1))
			if res.status != 400 || !strings.Contains(res.body, "conf is too large: 65537 bytes serialized, the limit is 65536") {
				t.Errorf("conf of %d bytes: %d %.200s", maxConfBytes+1, res.status, res.body)
			}
			runID := strings.Repeat("r", maxRunIDChars)
			if res = post("/dags/example_bash_operator/dag_runs", `{"run_id": "`+runID+`", "replace_microseconds": "false"}`); res.status != 200 {
				t.Errorf("run_id of %d characters: %d %.200s", maxRunIDChars, res.status, res.body)
			}
			name := strings.Repeat("n", maxPoolNameChars)
			desc := strings.Repeat("d", maxPoolDescriptionBytes)
			if res = post("/pools", `{"name": "`+name+`", "slots": 1, "description": "`+desc+`"}`); res.status != 200 {
				t.Errorf("pool name of %d and description of %d: %d %.200s", maxPoolNameChars, maxPoolDescriptionBytes, res.status, res.body)
			}
			res = post("/pools", `{"name": "`+name+`n", "slots": 1, "description": ""}`)
			if want := errorBody(e, "Pool name can't be more than 256 characters"); res.status != 400 || res.body != want {
				t.Errorf("pool name of 257: %d %q, want 400 %q", res.status, res.body, want)
			}
			res = post("/pools", `{"name": "p", "slots": 1, "description": "`+desc+`d"}`)
			if want := errorBody(e, "Pool description can't be more than 4096 bytes"); res.status != 400 || res.body != want {
				t.Errorf("description of 4097: %d %q, want 400 %q", res.status, res.body, want)
			}
		})
	}
}

// --max-runs-per-dag with --run-retention keep refuses the run over the
// limit with a 400 that names the flag and changes nothing.
func TestServer_RunLimit_Keep(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withRunLimit(RunLimit{Max: 3}))
	for i := 1; i <= 3; i++ {
		ts.trigger(t, "example_bash_operator", fmt.Sprintf(`{"execution_date": "2024-01-0%d"}`, i))
	}
	before := stateDigest(t, ts.store)
	res := ts.do(t, http.MethodPost, apiPrefix+"/dags/example_bash_operator/dag_runs", `{"execution_date": "2024-01-04"}`)
	if res.status != 400 || !strings.Contains(res.body, "--max-runs-per-dag") {
		t.Fatalf("fourth run: %d %s, want 400 naming --max-runs-per-dag", res.status, res.body)
	}
	checkJSONError(t, "fourth run", res)
	if after := stateDigest(t, ts.store); after != before {
		t.Errorf("the refused run changed the store")
	}
	// Other DAGs have their own count.
	ts.trigger(t, "example_python_operator", `{"execution_date": "2024-01-04"}`)
}

// With drop-oldest-finished the oldest finished runs go, with their task
// instances, lineage and task logs, in the trigger's transaction; running
// runs stay, and when none has finished the new run is refused.
func TestServer_RunLimit_DropOldestFinished(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withRunLimit(RunLimit{Max: 3, DropOldestFinished: true}))
	const dag = "example_bash_operator"
	for i := 1; i <= 3; i++ {
		ts.trigger(t, dag, fmt.Sprintf(`{"execution_date": "2024-01-0%d", "run_id": "r%d"}`, i, i))
	}
	res := ts.do(t, http.MethodPost, apiPrefix+"/dags/"+dag+"/dag_runs", `{"execution_date": "2024-01-04", "run_id": "r4"}`)
	if res.status != 400 || !strings.Contains(res.body, "only 0 have finished") {
		t.Fatalf("no finished run to drop: %d %s, want 400", res.status, res.body)
	}
	// r2 finishes first, r1 later: by execution date r1 is the oldest.
	for _, id := range []string{"r2", "r1"} {
		res := ts.do(t, http.MethodPost, "/_airlite/dags/"+dag+"/dag_runs/"+id+"/state", `{"state": "success"}`)
		if res.status != 200 {
			t.Fatalf("force %s: %d %s", id, res.status, res.body)
		}
	}
	err := ts.store.UpsertLineage(&LineageRecord{DagID: dag, RunID: "r1", TaskID: "runme_0", Inlets: json.RawMessage(`[1]`)})
	if err != nil {
		t.Fatal(err)
	}
	ts.trigger(t, dag, `{"execution_date": "2024-01-04", "run_id": "r4"}`)
	runs, err := ts.store.RunsOfDag(dag, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	if got := strings.Join(ids, ","); got != "r2,r3,r4" {
		t.Errorf("runs after the fourth trigger: %s, want r2,r3,r4", got)
	}
	if tis, _ := ts.store.TaskInstancesOfRun(dag, "r1"); len(tis) != 0 {
		t.Errorf("r1 left %d task instances", len(tis))
	}
	if recs, _ := ts.store.Lineage(dag, "r1"); len(recs) != 0 {
		t.Errorf("r1 left %d lineage records", len(recs))
	}
	if tis, _ := ts.store.TaskInstancesOfRun(dag, "r2"); len(tis) == 0 {
		t.Errorf("r2 lost its task instances")
	}
}

// A panicking handler is answered with a JSON 500, its stack is logged,
// and the server goes on serving.
func TestServer_PanicRecovered(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) {
		o.Logger = zerolog.New(&logs)
	}))
	// The same server's router with one more route, served as routes() does.
	router := ts.srv.router()
	router.Handle(http.MethodGet, apiPrefix+"/_test/panic", routed(apiPrefix+"/_test/panic",
		func(http.ResponseWriter, *http.Request, httprouter.Params) { panicForTest() }))
	panicking := *ts
	panicking.Server = httptest.NewServer(ts.srv.guarded(router))
	t.Cleanup(panicking.Close)
	res := panicking.do(t, http.MethodGet, apiPrefix+"/_test/panic", "")
	if res.status != 500 || res.body != `{"error": "internal error: see the airlite log"}` {
		t.Errorf("panic answered %d %q", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	out := logs.String()
	for _, want := range []string{"handler panicked", "boom for the test", "panicForTest", "/_test/panic"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// Still serving, and the next request works.
	if res := panicking.do(t, http.MethodGet, apiPrefix+"/test", ""); res.status != 200 {
		t.Errorf("after the panic: %d %s", res.status, res.body)
	}
	ts.trigger(t, "example_bash_operator", `{}`)
}

func panicForTest() { panic("boom for the test") }

// Credentials never reach the log, whatever the outcome.
func TestServer_CredentialsNeverLogged(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{authBasic, authPassword} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			ts := newTestServer(t, edition2, withAuth(backend, "admin:s3cret-Pa55\n"), withOptions(func(o *serverOptions) {
				o.Logger = zerolog.New(&logs).Level(zerolog.DebugLevel)
				o.AccessLog = &o.Logger
			}))
			for _, pass := range []string{"s3cret-Pa55", "wr0ng-Pa55"} {
				ts.do(t, http.MethodGet, apiPrefix+"/test", "", "Authorization", "Basic "+base64Std("admin:"+pass))
			}
			ts.do(t, http.MethodGet, apiPrefix+"/test", "", "Authorization", "Basic !!!"+base64Std("x"))
			out := logs.String()
			if out == "" {
				t.Fatal("nothing logged: the test sees no log")
			}
			for _, secret := range []string{"s3cret-Pa55", "wr0ng-Pa55", base64Std("admin:s3cret-Pa55"), "Authorization"} {
				if strings.Contains(out, secret) {
					t.Errorf("the log holds %q:\n%s", secret, out)
				}
			}
		})
	}
}

// The default address is loopback.
func TestParseConfig_DefaultAddrIsLoopback(t *testing.T) {
	t.Parallel()
	c, err := parseConfig(nil, mapEnv(map[string]string{"HOME": t.TempDir()}), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" {
		t.Errorf("default --addr %q, want 127.0.0.1:8080", c.Addr)
	}
	if c.MaxRunsPerDag != 10000 || c.RunRetention != runRetentionKeep {
		t.Errorf("defaults --max-runs-per-dag %d --run-retention %q, want 10000 keep", c.MaxRunsPerDag, c.RunRetention)
	}
	for _, args := range [][]string{{"--max-runs-per-dag", "-1"}, {"--run-retention", "forever"}} {
		if _, err := parseConfig(args, mapEnv(nil), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: error %v, want one naming %s", args, err, args[0])
		}
	}
	c, err = parseConfig(nil, mapEnv(map[string]string{"HOME": "/h", "AIRLITE_MAX_RUNS_PER_DAG": "5", "AIRLITE_RUN_RETENTION": runRetentionDrop}), &bytes.Buffer{})
	if err != nil || c.MaxRunsPerDag != 5 || c.RunRetention != runRetentionDrop {
		t.Errorf("from the environment: %+v, %v", c, err)
	}
}
