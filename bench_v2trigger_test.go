package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// BenchmarkV2TriggerSteps is the v2 trigger's own steps, each on its own
// (issue #21: the v2 trigger within 1.15 × the experimental one): the
// body read and checked as TriggerDAGRunPostBody, the action-log row
// built, the handler with its store write (the run and the action row;
// no HTTP), and the answer.
// Their allocations are exact, where BenchmarkV2TriggerAlone's move by
// about ten between runs (the HTTP round trip and the collector).
//
//	go test -run '^$' -bench 'V2TriggerSteps' -benchmem .
func BenchmarkV2TriggerSteps(b *testing.B) {
	raw := []byte(`{"conf": {"key": "value"}, "logical_date": "2026-01-01T00:00:00+00:00", "dag_run_id": "bench_1"}`)
	b.Run("body", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decoded, err := decodeV2Body(raw, "application/json")
			if err != nil {
				b.Fatal(err)
			}
			if _, issues := v2TriggerBody.validate(decoded.plain, []any{"body"}); issues != nil {
				b.Fatal(issues)
			}
		}
	})
	b.Run("action", func(b *testing.B) {
		decoded, err := decodeV2Body(raw, "application/json")
		if err != nil {
			b.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", nil)
		r.Header.Set("Content-Type", "application/json")
		path := []pyField{{"dag_id", "example_bash_operator"}}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v2ActionEvent(edition3.rules().masker, "trigger_dag_run", r, path, raw, decoded.ordered, "admin", benchDate); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		s := benchV2Server(b)
		r := httptest.NewRequest(http.MethodPost, apiV2Prefix+"/dags/example_bash_operator/dagRuns", nil)
		r.Header.Set("Content-Type", "application/json")
		path := []pyField{{"dag_id", "example_bash_operator"}}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			body := []byte(`{"conf": {"key": "value"}, "logical_date": "` + isoFormat(benchDate.Add(time.Duration(i)*time.Second)) +
				`", "dag_run_id": "bench_` + strconv.Itoa(i) + `"}`)
			b.StopTimer()
			decoded, err := decodeV2Body(body, "application/json")
			if err != nil {
				b.Fatal(err)
			}
			checked, issues := v2TriggerBody.validate(decoded.plain, []any{"body"})
			if issues != nil {
				b.Fatal(issues)
			}
			ev, err := v2ActionEvent(edition3.rules().masker, "trigger_dag_run", r, path, body, decoded.ordered, "admin", benchDate)
			if err != nil {
				b.Fatal(err)
			}
			req := &apiRequest{path: map[string]string{"dag_id": "example_bash_operator"}, body: checked, raw: body,
				ordered: decoded.ordered, caller: caller{user: "admin", via: viaBasic}, event: ev}
			b.StartTimer()
			out, err := s.v2TriggerDagRun(req)
			if err != nil {
				b.Fatal(err)
			}
			if r, ok := out.(*v2Rendered); ok {
				releaseV2Buffer(r.pooled)
			}
		}
	})
	b.Run("answer", func(b *testing.B) {
		s := benchV2Server(b)
		got, err := s.ops.trigger(triggerRequest{dagID: "example_bash_operator", dateUnit: time.Microsecond,
			triggeredBy: "rest_api", checks: triggerChecks{runIDPattern: true}, runID: "answer_1"})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			out := s.v2RunNamed(got.run, dagDisplayName(got.dag))
			r, err := renderV2Run(&out)
			if err != nil || !strings.Contains(string(r.body), `"answer_1"`) {
				b.Fatal(err)
			}
			releaseV2Buffer(r.pooled)
		}
	})
}

// benchV2Server is an edition 3 server over benchStoreWith's store, for
// the benchmarks that call its handlers without HTTP.
func benchV2Server(tb testing.TB) *server {
	tb.Helper()
	store, dags := benchStoreWith(tb)
	auth, err := newAuthenticator(authDefault, "")
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := newServer(serverOptions{Edition: edition3, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.New(io.Discard), Now: time.Now, Unixname: "bench", Journal: newJournal(1000)})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}
