package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestV2TriggerSteps_Allocs bounds the allocations of the v2 trigger's
// own steps, BenchmarkV2TriggerSteps' body, action and answer (issue
// #21: the v2 trigger within 1.15 × the experimental one), whose counts
// are exact where the whole trigger's move with the HTTP round trip and
// the store's trees: 15, 4 and 4 with Go 1.26 (branch trigmargin), one
// over each for a compiler's change. Not parallel: AllocsPerRun.
func TestV2TriggerSteps_Allocs(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	raw := []byte(`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00", "dag_run_id": "bench_1"}`)
	decoded, err := decodeV2Body(raw, "application/json")
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", nil)
	r.Header.Set("Content-Type", "application/json")
	path := []pyField{{"dag_id", "example_bash_operator"}}
	s := benchV2Server(t)
	got, err := s.ops.trigger(triggerRequest{dagID: "example_bash_operator", dateUnit: time.Microsecond,
		triggeredBy: "rest_api", checks: triggerChecks{runIDPattern: true}, runID: "answer_1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		max  float64
		step func()
	}{
		{"body", 16, func() {
			d, err := decodeV2Body(raw, "application/json")
			if err != nil {
				t.Fatal(err)
			}
			if _, issues := v2TriggerBody.validate(d.plain, []any{"body"}); issues != nil {
				t.Fatal(issues)
			}
		}},
		{"action", 5, func() {
			if _, err := v2ActionEvent(edition3.rules().masker, "trigger_dag_run", r, path, raw, decoded.ordered, "admin", benchDate); err != nil {
				t.Fatal(err)
			}
		}},
		{"answer", 5, func() {
			out := s.v2RunNamed(got.run, dagDisplayName(got.dag))
			rendered, err := renderV2Run(&out)
			if err != nil || !strings.Contains(string(rendered.body), `"answer_1"`) {
				t.Fatal(err)
			}
			releaseV2Buffer(rendered.pooled)
		}},
	}
	for _, tc := range tests {
		if allocs := testing.AllocsPerRun(200, tc.step); allocs > tc.max {
			t.Errorf("%s: %.0f allocations, want at most %.0f", tc.name, allocs, tc.max)
		}
	}
}
