package main

import (
	"testing"
)

// TestServerV1_ArrayQueryCommas: connexion 2.14's OpenAPIURIParser reads
// a form-style array query parameter (explode true by default) by joining
// its repeated values with "," and splitting the result
// (connexion/decorators/uri_parsing.py:243-267), so one value with commas
// is several values: tags=a,b is tags=a&tags=b.
func TestServerV1_ArrayQueryCommas(t *testing.T) {
	t.Parallel()
	runV1Cases(t, []v1Case{
		{name: "tags split at commas", path: "/dags?tags=example2,nothing", wantStatus: 200,
			check: wantDags([]string{"example_bash_operator"}, 1)},
		{name: "fields split at commas", path: "/dags?fields=dag_id,is_paused&limit=1", wantStatus: 200,
			wantJSON: `{"dags": [{"dag_id": "example_bash_operator", "is_paused": false}], "total_entries": 6}`},
		{name: "fields: repeated and split", path: "/dags/tutorial?fields=dag_id,is_paused&fields=is_active", wantStatus: 200,
			wantJSON: `{"dag_id": "tutorial", "is_paused": false, "is_active": true}`},
		{name: "run states split at commas", path: "/dags/tutorial/dagRuns?state=queued,failed", setup: threeRuns,
			wantStatus: 200, check: wantRuns([]string{"r1", "r2", "r3"}, 3)},
		{name: "task instance states split at commas", path: "/dags/~/dagRuns/~/taskInstances?state=queued,exploded", wantStatus: 400,
			wantProblem: &wantProblem{title: "Bad Request", detail: "'exploded' is not a valid TaskInstanceState"}},
	})
}
