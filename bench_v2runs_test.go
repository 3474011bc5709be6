package main

import (
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkV2Trigger creates runs of example_bash_operator (a run and its
// task instances each time) through Airflow 3's POST /api/v2/.../dagRuns
// (edition 3) and through the experimental trigger (edition 2), in the
// same run, each against a bare handler that decodes the same JSON into a
// map and keeps it (issue #21: the v2 trigger within 1.15 × the
// experimental one).
func BenchmarkV2Trigger(b *testing.B) {
	for _, c := range v2TriggerCases() {
		b.Run(c.name, func(b *testing.B) {
			store, dags := benchStoreWith(b)
			ts := httptest.NewServer(benchHandlerOf(b, c.edition, store, dags))
			defer ts.Close()
			client := benchClient()
			a := target{client: client, url: ts.URL + c.path, body: c.body}
			bare := httptest.NewServer(barePost(captureOf(b, a)))
			defer bare.Close()
			compare(b, a, target{client: client, url: bare.URL + c.path, body: c.body}, "bare")
		})
	}
}

// BenchmarkV2TriggerAlone is BenchmarkV2Trigger's triggers without the
// bare twin, for a count of the process's CPU (client, server and
// collector together), which the machine's other work sways less than
// the time: run at two counts, the difference of the CPU over the
// difference of the counts is one trigger without the set-up.
//
//	go test -c -o /tmp/t.test .
//	/usr/bin/time -f "%U %S" /tmp/t.test -test.run '^$' -test.bench 'V2TriggerAlone/v2$' -test.benchtime 2000x
func BenchmarkV2TriggerAlone(b *testing.B) {
	for _, c := range v2TriggerCases() {
		b.Run(c.name, func(b *testing.B) {
			store, dags := benchStoreWith(b)
			ts := httptest.NewServer(benchHandlerOf(b, c.edition, store, dags))
			defer ts.Close()
			plain(b, target{client: benchClient(), url: ts.URL + c.path, body: c.body})
		})
	}
}

// v2TriggerCase is one trigger the v2 trigger benchmarks send.
type v2TriggerCase struct {
	name    string
	edition edition
	path    string
	body    func() []byte
}

// v2TriggerCases are the v2 trigger with a logical date and without, and
// the experimental trigger, each body a new run id and date.
func v2TriggerCases() []v2TriggerCase {
	var n atomic.Int64
	next := func() (string, string) {
		i := n.Add(1)
		return isoFormat(benchDate.Add(time.Duration(i) * time.Second)), "bench_" + strconv.FormatInt(i, 10)
	}
	return []v2TriggerCase{
		{"v2", edition3, apiV2Prefix + "/dags/example_bash_operator/dagRuns", func() []byte {
			date, runID := next()
			return []byte(`{"conf": {"key": "value"}, "logical_date": "` + date + `", "dag_run_id": "` + runID + `"}`)
		}},
		{"v2_null_date", edition3, apiV2Prefix + "/dags/example_bash_operator/dagRuns", func() []byte {
			return []byte(`{"conf": {"key": "value"}, "logical_date": null}`)
		}},
		{"experimental", edition2, apiPrefix + "/dags/example_bash_operator/dag_runs", func() []byte {
			date, runID := next()
			return []byte(`{"conf": {"key": "value"}, "execution_date": "` + date + `", "run_id": "` + runID + `"}`)
		}},
	}
}
