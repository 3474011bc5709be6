package main

// Benchmarks of the stable API (/api/v1), each beside its experimental
// twin in the same run and each against a bare twin that serves the same
// bytes (bench_test.go), so that v1/bare and experimental/bare are ratios
// of one run. A smoke pass (-benchtime=1x) shrinks the states unless
// AIRLITE_BENCH_FULL=1; BENCHMARKS.md has the figures and the commands.

import (
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// pairURL benchmarks the GET path of airlite (a path from the server's
// root) against a bare twin that answers the bytes airlite answered.
func pairURL(b *testing.B, ts *httptest.Server, path string) {
	client := benchClient()
	a := target{client: client, url: ts.URL + path}
	bare := httptest.NewServer(bareGet(captureOf(b, a)))
	defer bare.Close()
	compare(b, a, target{client: client, url: bare.URL + path}, "bare")
}

// BenchmarkV1ListRuns10k lists a page of 100 runs of a DAG with 10,000
// runs (every tenth failed, the others successful) through the stable
// API: the default order (id), by logical date descending, a state
// filter, and every DAG ("~"); beside it the experimental listing of the
// same DAG, which answers every run.
func BenchmarkV1ListRuns10k(b *testing.B) {
	many := benchDAG(b, "bench_many", 1)
	store, dags := benchStoreWith(b, many)
	addRunsIn(b, store, many, benchDate, benchSize(10000, 200), false, func(i int) RunState {
		if i%10 == 9 {
			return RunFailed
		}
		return RunSuccess
	})
	ts := benchServer(b, store, dags)
	runs := apiV1Prefix + "/dags/bench_many/dagRuns?limit=100"
	for _, c := range []struct{ name, path string }{
		{"v1_default", runs},
		{"v1_desc_date", runs + "&order_by=-execution_date"},
		{"v1_state_success", runs + "&state=success"},
		{"v1_state_failed", runs + "&state=failed"},
		{"v1_all_dags", apiV1Prefix + "/dags/~/dagRuns?limit=100"},
		{"experimental", apiPrefix + "/dags/bench_many/dag_runs"},
	} {
		b.Run(c.name, func(b *testing.B) { pairURL(b, ts, c.path) })
	}
}

// BenchmarkV1TaskInstance reads one task instance of a run through the
// stable API and through the experimental task-instance info.
func BenchmarkV1TaskInstance(b *testing.B) {
	ts := withRun(b)
	runID := "manual__" + benchDatePath
	for _, c := range []struct{ name, path string }{
		{"v1", apiV1Prefix + "/dags/example_bash_operator/dagRuns/" + runID + "/taskInstances/runme_0"},
		{"experimental", apiPrefix + "/dags/example_bash_operator/dag_runs/" + benchDatePath + "/tasks/runme_0"},
	} {
		b.Run(c.name, func(b *testing.B) { pairURL(b, ts, c.path) })
	}
}

// BenchmarkV1Trigger creates runs of example_bash_operator (a run and
// seven task instances each time) through POST /api/v1/.../dagRuns and
// through the experimental trigger, on one store, each against a bare
// handler that decodes the same JSON into a map and keeps it.
func BenchmarkV1Trigger(b *testing.B) {
	store, dags := benchStoreWith(b)
	ts := benchServer(b, store, dags)
	var n atomic.Int64
	next := func() (string, string) {
		i := n.Add(1)
		return isoFormat(benchDate.Add(time.Duration(i) * time.Second)), "bench_" + strconv.FormatInt(i, 10)
	}
	for _, c := range []struct {
		name, path string
		body       func() []byte
	}{
		{"v1", apiV1Prefix + "/dags/example_bash_operator/dagRuns", func() []byte {
			date, runID := next()
			return []byte(`{"conf": {"key": "value"}, "logical_date": "` + date + `", "dag_run_id": "` + runID + `"}`)
		}},
		{"experimental", apiPrefix + "/dags/example_bash_operator/dag_runs", func() []byte {
			date, runID := next()
			return []byte(`{"conf": {"key": "value"}, "execution_date": "` + date + `", "run_id": "` + runID + `"}`)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			client := benchClient()
			a := target{client: client, url: ts.URL + c.path, body: c.body}
			bare := httptest.NewServer(barePost(captureOf(b, a)))
			defer bare.Close()
			compare(b, a, target{client: client, url: bare.URL + c.path, body: c.body}, "bare")
		})
	}
}
