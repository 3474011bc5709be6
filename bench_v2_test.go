package main

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkV2Health is Airflow 3's GET /api/v2/monitor/health against a
// bare net/http twin serving the same bytes (issue #21: at least 0.9 ×
// the bare server's throughput, i.e. x-bare at most 1.11).
func BenchmarkV2Health(b *testing.B) {
	store, dags := benchStoreWith(b)
	ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
	b.Cleanup(ts.Close)
	pairURL(b, ts, apiV2Prefix+"/monitor/health")
}
