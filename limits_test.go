package main

import (
	"strings"
	"testing"
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

// Each total limit: the requests below it are accepted, the one that
// would pass it is refused with a 400 that names its flag and changes
// nothing stored, edits of what exists are still accepted at the limit,
// and removing something makes room again.
func TestServer_TotalLimits(t *testing.T) {
	t.Parallel()
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
