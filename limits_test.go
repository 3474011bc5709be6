package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// withLimits sets --max-pools, --max-dags and --max-conf-bytes-total.
func withLimits(l Limits) testOption {
	return func(t *testing.T, s *testSetup) { s.limits = l }
}

// limitStep is one request of a limit test and the status it must get.
type limitStep struct {
	method, path, body string
	status             int
}

func (st limitStep) String() string { return st.method + " " + st.path + " " + st.body }

// confOf is a conf whose compact form is n bytes (n >= 8).
func confOf(n int) string { return `{"k":"` + strings.Repeat("x", n-8) + `"}` }

// loadedDAG is a DAG definition for POST /_airlite/dags.
func loadedDAG(dagID string) string {
	return `{"dag_id": "` + dagID + `", "tasks": [{"task_id": "t", "operator": "EmptyOperator"}]}`
}

// Each total limit: the requests below it are accepted, the one that
// would pass it is refused with a 400 that names its flag and changes
// nothing stored, edits of what exists are still accepted at the limit,
// and removing something makes room again.
func TestServer_TotalLimits(t *testing.T) {
	t.Parallel()
	trigger := func(day int, conf string) string {
		return fmt.Sprintf(`{"execution_date": "2024-01-%02dT00:00:00+00:00", "conf": %s}`, day, conf)
	}
	const runs = apiPrefix + "/dags/example_bash_operator/dag_runs"
	tests := []struct {
		name     string
		editions []edition
		limits   Limits
		below    []limitStep // accepted: they bring the store to the limit
		over     limitStep   // refused at the limit
		flag     string
		atLimit  []limitStep // accepted at the limit, in order
	}{
		{
			name: "pools", editions: allEditions, limits: Limits{Pools: 3}, flag: "--max-pools",
			// default_pool is the first of the three.
			below: []limitStep{
				{"POST", apiPrefix + "/pools", `{"name": "p1", "slots": 1, "description": null}`, 200},
				{"POST", apiPrefix + "/pools", `{"name": "p2", "slots": 1, "description": null}`, 200},
			},
			over: limitStep{"POST", apiPrefix + "/pools", `{"name": "p3", "slots": 1, "description": null}`, 400},
			atLimit: []limitStep{
				{"POST", apiPrefix + "/pools", `{"name": "p1", "slots": 9, "description": "edited"}`, 200},
				{"POST", apiPrefix + "/pools", `{"name": "default_pool", "slots": 7, "description": null}`, 200},
				// A bad pool body is still answered as Airflow answers it.
				{"POST", apiPrefix + "/pools", `{"name": " ", "slots": 1, "description": null}`, 400},
				{"GET", apiPrefix + "/pools", "", 200},
				{"DELETE", apiPrefix + "/pools/p2", "", 200},
				{"POST", apiPrefix + "/pools", `{"name": "p3", "slots": 1, "description": null}`, 200},
			},
		},
		{
			name: "DAGs loaded at runtime", editions: airflow2, limits: Limits{LoadedDAGs: 2}, flag: "--max-dags",
			below: []limitStep{
				{"POST", "/_airlite/dags", loadedDAG("loaded_a"), 200},
				{"POST", "/_airlite/dags", loadedDAG("loaded_b"), 200},
			},
			over: limitStep{"POST", "/_airlite/dags", loadedDAG("loaded_c"), 400},
			atLimit: []limitStep{
				{"POST", "/_airlite/dags", loadedDAG("loaded_a"), 200}, // replaced
				{"DELETE", apiPrefix + "/dags/loaded_b", "", 200},
				{"POST", "/_airlite/dags", loadedDAG("loaded_c"), 200},
			},
		},
		{
			name: "conf bytes of every run", editions: allEditions, limits: Limits{ConfBytes: 100}, flag: "--max-conf-bytes-total",
			below: []limitStep{
				{"POST", runs, trigger(1, confOf(60)), 200},
				{"POST", runs, trigger(2, confOf(40)), 200}, // exactly the limit
			},
			over: limitStep{"POST", runs, trigger(3, `{"a": 1}`), 400},
			atLimit: []limitStep{
				{"POST", "/_airlite/reset?scope=runs&dag_id=example_bash_operator", "", 200},
				{"POST", runs, trigger(3, confOf(100)), 200},
			},
		},
	}
	for _, tc := range tests {
		for _, e := range tc.editions {
			t.Run(tc.name+"/"+string(e), func(t *testing.T) {
				t.Parallel()
				ts := newTestServer(t, e, withLimits(tc.limits))
				step := func(st limitStep) response {
					t.Helper()
					res := ts.do(t, st.method, st.path, st.body)
					if res.status != st.status {
						t.Fatalf("%s: %d %.300s, want %d", st, res.status, res.body, st.status)
					}
					return res
				}
				for _, st := range tc.below {
					step(st)
				}
				before := stateDigest(t, ts.store)
				res := step(tc.over)
				checkJSONError(t, tc.over.String(), res)
				if !strings.Contains(res.body, tc.flag) {
					t.Errorf("refusal %.300s does not name %s", res.body, tc.flag)
				}
				if after := stateDigest(t, ts.store); after != before {
					t.Errorf("the refused request changed the store:\nbefore %s\nafter  %s", before, after)
				}
				for _, st := range tc.atLimit {
					step(st)
				}
			})
		}
	}
}

// DAGs loaded at runtime keep their rows across a restart (without a
// definition), so they still count against --max-dags: restarts cannot
// pile up DAG rows. A reset forgets them.
func TestStore_LoadedDAGLimit_AcrossRestart(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withLimits(Limits{LoadedDAGs: 2}))
	for _, id := range []string{"loaded_a", "loaded_b"} {
		if res := ts.do(t, "POST", "/_airlite/dags", loadedDAG(id)); res.status != 200 {
			t.Fatalf("load %s: %d %s", id, res.status, res.body)
		}
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(ts.store, path, testNow); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := restored.LoadDAGs(ts.dags); err != nil {
		t.Fatal(err)
	}
	restored.SetLimits(Limits{LoadedDAGs: 2})
	d, err := parseDAG([]byte(loadedDAG("loaded_c")))
	if err != nil {
		t.Fatal(err)
	}
	d.FilePath = loadedDAGFileLoc
	_, err = restored.UpsertDAG(d)
	var limit *limitError
	if text, _ := storeErrorText(err); !errors.As(err, &limit) || limit.limit != limitDags || !strings.Contains(text, "--max-dags") {
		t.Fatalf("a third loaded DAG after a restart: %v, want a refusal at the limit of --max-dags", err)
	}
	if err := restored.Reset(ts.dags); err != nil {
		t.Fatal(err)
	}
	if _, err := restored.UpsertDAG(d); err != nil {
		t.Fatalf("a loaded DAG after a reset: %v", err)
	}
}

// A task instance's log keeps its last maxLogTries tries: a task retried
// forever holds at most maxLogTries × maxTaskOutput bytes of output, and
// the run page says how many earlier tries were dropped.
func TestStore_TaskLogKeepsLastTries(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	ts.trigger(t, "example_bash_operator", `{"execution_date": "2024-01-01T00:00:00+00:00"}`)
	key := tiKey{"example_bash_operator", "manual__2024-01-01T00:00:00+00:00", "runme_0", -1}
	const tries = maxLogTries + 5
	for try := 1; try <= tries; try++ {
		err := ts.store.update(func(txn *memdb.Txn) error {
			return appendTaskLogTxn(txn, key, TryLog{Try: try, Output: fmt.Sprintf("output of try %d\n", try)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	logs, err := ts.store.TaskLogsOfRun(key.dagID, key.runID)
	if err != nil {
		t.Fatal(err)
	}
	log := logs[key.taskID]
	if len(log.Tries) != maxLogTries || log.Tries[0].Try != 6 || log.Tries[maxLogTries-1].Try != tries || log.Dropped != 5 {
		t.Fatalf("log keeps %d tries (%d to %d), %d dropped; want %d (6 to %d), 5 dropped",
			len(log.Tries), log.Tries[0].Try, log.Tries[len(log.Tries)-1].Try, log.Dropped, maxLogTries, tries)
	}
	page := ts.do(t, "GET", edition2.dagRunURL(key.dagID, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), "")
	if page.status != 200 {
		t.Fatalf("run page: %d", page.status)
	}
	if want := fmt.Sprintf("5 earlier tries are not kept: a task's log keeps its last %d tries", maxLogTries); !strings.Contains(page.body, want) {
		t.Errorf("the run page does not say %q:\n%s", want, page.body)
	}
	if strings.Contains(page.body, "output of try 5\n") || !strings.Contains(page.body, "output of try 6\n") {
		t.Errorf("the run page shows the wrong tries")
	}
}

// GET /api/experimental/pools is Airflow's answer: every pool, with no
// pagination (Airflow has none); --max-pools is what bounds it.
func TestServer_Pools_ListsEveryPool(t *testing.T) {
	t.Parallel()
	const n = uiPageRows + 50
	ts := newTestServer(t, edition2, withLimits(Limits{Pools: n}))
	for i := 1; i < n; i++ {
		if res := ts.do(t, "POST", apiPrefix+"/pools", fmt.Sprintf(`{"name": "p%03d", "slots": 1, "description": null}`, i)); res.status != 200 {
			t.Fatalf("pool %d: %d %s", i, res.status, res.body)
		}
	}
	res := ts.do(t, "GET", apiPrefix+"/pools", "")
	var pools []map[string]any
	if err := json.Unmarshal([]byte(res.body), &pools); err != nil || res.status != 200 {
		t.Fatalf("GET /pools: %d %v", res.status, err)
	}
	if len(pools) != n {
		t.Errorf("GET /pools lists %d pools, want all %d", len(pools), n)
	}
}

// TestLimits_V2AnswersFastAPIsForm checks that a write refused at one of
// airlite's limits through /api/v2 is a 400 in FastAPI's form naming the
// flag, as /api/v1 answers it in its own form, and never Starlette's 500.
func TestLimits_V2AnswersFastAPIsForm(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3, withLimits(Limits{Pools: 2, Variables: 1, Connections: 1, ConfBytes: 16}),
		withRunLimit(RunLimit{Max: 1}))
	for _, tc := range []struct {
		name, path, first, refused, want string
	}{
		{"pools", "/api/v2/pools", `{"name": "a", "slots": 1}`, `{"name": "b", "slots": 1}`, "delete pools (DELETE /api/v2/pools/{pool_name}) or start airlite with a higher --max-pools"},
		{"variables", "/api/v2/variables", `{"key": "a", "value": "v"}`, `{"key": "b", "value": "v"}`, "delete variables (DELETE /api/v2/variables/{variable_key})"},
		{"connections", "/api/v2/connections", `{"connection_id": "a", "conn_type": "http"}`, `{"connection_id": "b", "conn_type": "http"}`, "delete connections (DELETE /api/v2/connections/{connection_id})"},
		{"runs", "/api/v2/dags/tutorial/dagRuns", `{"logical_date": null}`, `{"logical_date": null}`, "the limit of --max-runs-per-dag"},
		{"conf", "/api/v2/dags/example_bash_operator/dagRuns", `{"logical_date": null, "conf": {"far_too_long": "abcdefghijklmnop"}}`, "", "the limit of --max-conf-bytes-total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(t, http.MethodPost, tc.path, tc.first)
			if tc.refused != "" {
				if res.status >= 300 {
					t.Fatalf("first POST %s = %d %s", tc.path, res.status, res.body)
				}
				res = ts.do(t, http.MethodPost, tc.path, tc.refused)
			}
			var body struct{ Detail string }
			if err := json.Unmarshal([]byte(res.body), &body); res.status != http.StatusBadRequest || err != nil || !strings.Contains(body.Detail, tc.want) {
				t.Errorf("POST %s = %d %s, want 400 {\"detail\": \"...%s...\"}", tc.path, res.status, res.body, tc.want)
			}
		})
	}
}
