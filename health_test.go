package main

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// GET /health answers as each release's webserver does, so that container
// health checks written for Airflow work against airlite.
func TestServer_AirflowHealth(t *testing.T) {
	t.Parallel()
	beat := func(age time.Duration, running bool) func(*serverOptions) {
		return func(o *serverOptions) {
			o.SchedulerHeartbeat = func() (time.Time, bool) { return testNow.Add(-age), running }
		}
	}
	// Airflow 2.10.3 airflow/www/views.py:740-749 and
	// airflow/api/common/airflow_health.py:29-89: sorted keys (airflow/utils/json.py:34-40),
	// no triggerer or dag processor job, so their status is None.
	body2 := func(status, heartbeat string) string {
		return `{"dag_processor": {"latest_dag_processor_heartbeat": null, "status": null}, ` +
			`"metadatabase": {"status": "healthy"}, ` +
			`"scheduler": {"latest_scheduler_heartbeat": ` + heartbeat + `, "status": "` + status + `"}, ` +
			`"triggerer": {"latest_triggerer_heartbeat": null, "status": null}}`
	}
	// Airflow 1.10.15 airflow/www/blueprints.py:35-61 (classic UI) and
	// airflow/www_rbac/views.py:224-250 (RBAC UI): json.dumps(payload, indent=4)
	// (airflow/www/utils.py:341-349, airflow/www_rbac/utils.py:190-198).
	body110 := func(status, heartbeat string) string {
		return "{\n    \"metadatabase\": {\n        \"status\": \"healthy\"\n    },\n" +
			"    \"scheduler\": {\n        \"status\": \"" + status + "\",\n" +
			"        \"latest_scheduler_heartbeat\": " + heartbeat + "\n    }\n}"
	}
	body := func(e edition, status, heartbeat string) string {
		if e == edition2 {
			return body2(status, heartbeat)
		}
		return body110(status, heartbeat)
	}
	cases := []struct {
		name      string
		options   []testOption
		status    string
		heartbeat string
	}{
		// is_alive: running and a heartbeat less than
		// scheduler_health_check_threshold (30 s) old (1.10.15
		// airflow/jobs/scheduler_job.py:443-447, 2.10.3 airflow/jobs/job.py:313-316).
		{"scheduler alive", []testOption{withOptions(beat(5*time.Second, true))}, "healthy", `"2024-05-01T09:59:55.123456+00:00"`},
		{"heartbeat 30 s old", []testOption{withOptions(beat(30*time.Second, true))}, "unhealthy", `"2024-05-01T09:59:30.123456+00:00"`},
		{"scheduler stopped", []testOption{withOptions(beat(time.Second, false))}, "unhealthy", `"2024-05-01T09:59:59.123456+00:00"`},
		// No scheduler job: no heartbeat, unhealthy.
		{"scheduler off", nil, "unhealthy", "null"},
		// health has no auth decorator in either release.
		{"auth does not apply", []testOption{withAuth(authDenyAll, ""), withOptions(beat(0, true))}, "healthy", `"2024-05-01T10:00:00.123456+00:00"`},
	}
	for _, e := range allEditions {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ts := newTestServer(t, e, tc.options...)
				res := ts.do(t, http.MethodGet, "/health", "")
				if res.status != http.StatusOK {
					t.Fatalf("status %d, want 200 (body %q)", res.status, res.body)
				}
				if got := res.header.Get("Content-Type"); got != "application/json" {
					t.Errorf("Content-Type %q, want application/json", got)
				}
				if want := body(e, tc.status, tc.heartbeat); res.body != want {
					t.Errorf("body\n%s\nwant\n%s", res.body, want)
				}
				// Airflow 2's app sets these on every answer (§2.4); not the
				// experimental API's deprecation headers.
				if got, want := res.header.Get("X-Robots-Tag") != "", e == edition2; got != want {
					t.Errorf("X-Robots-Tag present %v, want %v", got, want)
				}
				if res.header.Get("Deprecation") != "" {
					t.Error("Deprecation header on /health")
				}
				head := ts.do(t, http.MethodHead, "/health", "")
				if head.status != http.StatusOK || head.body != "" {
					t.Errorf("HEAD: status %d, body %q", head.status, head.body)
				}
			})
		}
	}
}

// /health is a webserver route, not an API one: the journal does not
// record it.
func TestServer_AirflowHealthNotJournaled(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.Journal = newJournal(16) }))
	if res := ts.do(t, http.MethodGet, "/health", ""); res.status != http.StatusOK {
		t.Fatalf("status %d", res.status)
	}
	res := ts.do(t, http.MethodGet, "/_airlite/requests", "")
	if res.status != http.StatusOK || res.body != "{\"requests\":[]}\n" {
		t.Errorf("journal: %d %q, want no request", res.status, res.body)
	}
}

// The scheduler's loop beats after each pass and says when it has ended.
func TestScheduler_Heartbeat(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sched := newScheduler(schedulerOptions{Store: storeWith(t, &DAGSet{}), Edition: edition2,
			Logger: zerolog.New(zerolog.NewTestWriter(t)), Interval: time.Second})
		if last, running := sched.Heartbeat(); !last.IsZero() || !running {
			t.Fatalf("before the loop: %v, %v; want no heartbeat, running", last, running)
		}
		start := time.Now()
		sched.start()
		time.Sleep(2500 * time.Millisecond) // the bubble's clock: passes at 0 s, 1 s and 2 s
		synctest.Wait()
		last, running := sched.Heartbeat()
		if want := start.Add(2 * time.Second).UTC(); !last.Equal(want) || !running {
			t.Errorf("heartbeat %v, running %v; want %v, true", last, running, want)
		}
		sched.stop()
		if _, running := sched.Heartbeat(); running {
			t.Error("running after stop")
		}
	})
}

// A page of another site may read the health check as it may open a
// status page: the browser guard refuses only the API, the admin
// endpoints and forms (docs/behaviour.md §4.11.1).
func TestServer_AirflowHealthCrossSite(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	if res := ts.do(t, http.MethodGet, "/health", "", "Sec-Fetch-Site", "cross-site", "Origin", "http://evil.example"); res.status != http.StatusOK {
		t.Errorf("cross-site GET /health: %d %s", res.status, res.body)
	}
	if res := ts.do(t, http.MethodPost, "/health", "", "Sec-Fetch-Site", "cross-site", "Origin", "http://evil.example"); res.status != http.StatusForbidden {
		t.Errorf("cross-site POST /health: %d, want 403", res.status)
	}
}
