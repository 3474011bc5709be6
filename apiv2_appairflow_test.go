package main

import (
	"io"
	"net/http"
	"testing"
)

// TestAPIv2_AirflowHealthNotChunked: Airflow 3.2's core_api/test_app.py
// TestGzipMiddleware.test_gzip_middleware_should_not_be_chunked (c57fba0e
// airflow-core/tests/unit/api_fastapi/core_api/test_app.py): GET
// /api/v2/monitor/health answers with its length, without
// Transfer-Encoding: chunked. (airlite compresses no answer; the rest of
// test_app.py and api_fastapi/test_app.py test how the apps are built,
// their plugins and their lifespans, which airlite has none of.)
func TestAPIv2_AirflowHealthNotChunked(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/v2/monitor/health", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || len(res.TransferEncoding) > 0 || res.ContentLength <= 0 {
		t.Errorf("GET /monitor/health = %d, Transfer-Encoding %v, Content-Length %d; want 200 with a length, not chunked",
			res.StatusCode, res.TransferEncoding, res.ContentLength)
	}
}
