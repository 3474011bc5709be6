package main

import (
	"net/http"
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

// BenchmarkV2HealthChain is the handler chain of GET
// /api/v2/monitor/health alone, without sockets or net/http's own work:
// airlite's whole handler as the binary builds it (access log, journal,
// browser guard, token cookie, router, the v2 dialect) against the bare
// twin's (a ServeMux and the captured headers), each into a writer that
// keeps nothing (BenchmarkHandler's, for the experimental API). Their
// difference is what airlite adds to every request of a load run.
func BenchmarkV2HealthChain(b *testing.B) {
	store, dags := benchStoreWith(b)
	airlite := benchHandlerOf(b, edition3, store, dags)
	path := apiV2Prefix + "/monitor/health"
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Host = "127.0.0.1:8080"
	w := &discardWriter{h: http.Header{}}
	airlite.ServeHTTP(w, r)
	if w.status != http.StatusOK {
		b.Fatalf("status %d", w.status)
	}
	mux := http.NewServeMux()
	twin := capture{header: w.h.Clone(), body: []byte(`{"metadatabase":{"status":"healthy"}}`)}
	mux.Handle("GET "+path, bareGet(twin))
	for _, h := range []struct {
		name    string
		handler http.Handler
	}{{"airlite", airlite}, {"bare", mux}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.handler.ServeHTTP(w, r)
			}
		})
	}
}
