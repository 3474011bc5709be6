package main

import (
	"net/http"
	"regexp"
)

// Edition 3's corpus (Airflow 3.2.1, /api/v2): the same servers as the
// other editions where Airflow 3 has their backend (the simple auth
// manager instead of basic_auth and password_auth), the v2 routes in an
// order in which each state-changing request sees what the ones before it
// did, then the pages, /_airlite and the routing of Airflow 3's app.

// corpusV2Run is the run the v2 sequence triggers first; the pages and
// /_airlite steps of edition 3 read it.
const corpusV2Run = "v2_run_1"

// corpusV2MainSequence is edition 3's main server: every v2 route with its
// happy path and its errors, then what every edition has.
func corpusV2MainSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	corpusV2(q)
	corpusPages(q, e)
	corpusAdmin(q, e)
	corpusRouting(q, e)
	q.post("/_airlite/reset", `{}`)
	q.get("/api/v2/dags/corpus_chain/dagRuns")
	q.get("/api/v2/pools")
	return q.steps
}

// corpusV2 covers /api/v2.
func corpusV2(q *corpusSeq) {
	const v = "/api/v2"
	const run = v + "/dags/corpus_chain/dagRuns/" + corpusV2Run
	const ti = run + "/taskInstances"
	q.get(v + "/version")
	q.get(v + "/monitor/health")
	q.get(v + "/config")
	q.get(v + "/config/section/core/option/dags_folder")
	q.get(v + "/plugins")
	q.get(v + "/plugins/importErrors")
	q.get(v + "/providers")
	q.get(v + "/jobs")
	q.get(v + "/jobs?job_state=running&limit=-1")
	q.get(v + "/importErrors")
	q.get(v + "/importErrors/1")
	q.get(v + "/importErrors/abc")
	q.get(v + "/dagWarnings")
	q.get(v + "/dagWarnings?warning_type=nope")

	// DAGs.
	q.get(v + "/dags")
	q.get(v + "/dags?limit=2&offset=1&order_by=-dag_id")
	q.get(v + "/dags?order_by=dag_display_name&order_by=-dag_id&limit=3")
	q.get(v + "/dags?limit=abc")
	q.get(v + "/dags?limit=-5")
	q.get(v + "/dags?offset=-1")
	q.get(v + "/dags?order_by=nope")
	q.get(v + "/dags?tags=example&tags_match_mode=all&exclude_stale=false")
	q.get(v + "/dags?paused=true")
	q.get(v + "/dags?paused=maybe")
	q.get(v + "/dags?dag_id_pattern=corpus")
	q.get(v + "/dags?dag_id_pattern=corpus_c%7Ctutorial")
	q.get(v + "/dags?unknown=1")
	q.get(v + "/dags/corpus_chain")
	q.get(v + "/dags/nope")
	q.get(v + "/dags/corpus_chain/details")
	q.get(v + "/dags/example_bash_operator/details")
	q.get(v + "/dags/nope/details")
	q.get(v + "/dags/corpus_chain/tasks")
	q.get(v + "/dags/corpus_chain/tasks?order_by=-task_id")
	q.get(v + "/dags/corpus_chain/tasks?order_by=nope")
	q.get(v + "/dags/nope/tasks")
	q.get(v + "/dags/corpus_chain/tasks/extract")
	q.get(v + "/dags/corpus_chain/tasks/nope")
	q.patch(v+"/dags/corpus_chain", `{"is_paused": false}`)
	q.patch(v+"/dags/example_bash_operator?update_mask=is_paused", `{"is_paused": true}`)
	q.patch(v+"/dags/example_bash_operator?update_mask=nope", `{"is_paused": true}`)
	q.patch(v+"/dags/example_bash_operator", `{"is_paused": "yes"}`)
	q.patch(v+"/dags/example_bash_operator", `{"is_paused": true, "nope": 1}`)
	q.patch(v+"/dags/example_bash_operator", `{bad`)
	q.patch(v+"/dags/nope", `{"is_paused": true}`)
	q.patch(v+"/dags?dag_id_pattern=tutorial", `{"is_paused": true}`)
	q.patch(v+"/dags?dag_id_pattern=~", `{"is_paused": true}`)
	q.patch(v+"/dags?dag_id_pattern=corpus_", `{"is_paused": false}`)
	q.post(v+"/dags/corpus_chain/favorite", ``)
	q.post(v+"/dags/corpus_chain/favorite", ``)
	q.get(v + "/dags?is_favorite=true")
	q.post(v+"/dags/corpus_chain/unfavorite", ``)
	q.post(v+"/dags/corpus_chain/unfavorite", ``)
	q.post(v+"/dags/nope/favorite", ``)
	q.get(v + "/dagTags")
	q.get(v + "/dagTags?tag_name_pattern=ex&order_by=-name")
	q.get(v + "/dags/corpus_chain/dagVersions")
	q.get(v + "/dags/corpus_chain/dagVersions/1")
	q.get(v + "/dags/corpus_chain/dagVersions/99")
	q.get(v + "/dags/corpus_chain/dagVersions/abc")
	q.get(v + "/dagSources/corpus_chain")
	q.req(http.MethodGet, v+"/dagSources/corpus_chain", "", "Accept", "text/plain")
	q.get(v + "/dagSources/corpus_chain?version_number=5")
	q.get(v + "/dagSources/nope")

	// Triggers: a logical date, a null one (named, so that its run id is
	// fixed), and every refusal.
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "`+corpusV2Run+`", "logical_date": "2024-03-01T00:00:00Z", "conf": {"a": 1}, "note": "first"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v2_null", "logical_date": null}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v2_null_2", "logical_date": null}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v2_dup_date", "logical_date": "2024-03-01T00:00:00Z"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "`+corpusV2Run+`", "logical_date": "2024-03-09T00:00:00Z"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{}`)
	q.post(v+"/dags/corpus_chain/dagRuns", ``)
	q.post(v+"/dags/corpus_chain/dagRuns", `{not json`)
	q.post(v+"/dags/corpus_chain/dagRuns", `[1]`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": "not a date"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": "2024-03-02T00:00:00"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": null, "conf": "text"}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": null, "unknown": 1}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "v2_interval", "logical_date": "2024-03-03T00:00:00Z", "data_interval_start": "2024-03-02T00:00:00Z"}`)
	q.post(v+"/dags/nope/dagRuns", `{"logical_date": null}`)
	// A real BashOperator try, its templates rendered with Airflow 3's
	// context.
	q.post(v+"/dags/corpus_bash/dagRuns", `{"dag_run_id": "exp_bash", "logical_date": "2024-03-13T00:00:00Z"}`)
	q.schedulerPass()
	q.get(v + "/dags/corpus_bash/dagRuns/exp_bash/taskInstances/say")
	q.get(v + "/dags/corpus_bash/dagRuns/exp_bash/taskInstances/say/logs/1")
	q.get(v + "/dags/corpus_bash/dagRuns/exp_bash")

	// Runs.
	q.get(v + "/dags/corpus_chain/dagRuns")
	q.get(v + "/dags/corpus_chain/dagRuns?state=failed&order_by=-run_after")
	q.get(v + "/dags/corpus_chain/dagRuns?state=nope")
	q.get(v + "/dags/corpus_chain/dagRuns?logical_date_gte=2024-03-01T00:00:00Z&limit=1")
	q.get(v + "/dags/corpus_chain/dagRuns?logical_date_gte=yesterday")
	q.get(v + "/dags/~/dagRuns?run_type=manual&limit=2")
	q.get(v + "/dags/nope/dagRuns")
	q.post(v+"/dags/~/dagRuns/list", `{"dag_ids": ["corpus_chain"], "page_limit": 2, "order_by": "-run_after"}`)
	q.post(v+"/dags/~/dagRuns/list", `{"states": ["nope"]}`)
	q.post(v+"/dags/corpus_chain/dagRuns/list", `{}`)
	q.get(run)
	q.get(v + "/dags/corpus_chain/dagRuns/nope")
	q.get(run + "/upstreamAssetEvents")
	q.patch(v+"/dags/corpus_chain/dagRuns/v2_null?update_mask=note", `{"note": "patched"}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/v2_null", `{"state": "queued"}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/v2_null", `{"state": "running"}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/v2_null", `{"state": "success"}`)
	q.patch(v+"/dags/corpus_chain/dagRuns/nope", `{"state": "success"}`)
	q.get(v + "/dags/corpus_chain/dagRuns/v2_null/wait?interval=1")
	q.get(v + "/dags/corpus_chain/dagRuns/v2_null/wait?interval=0")
	q.post(run+"/clear", `{"dry_run": true}`)
	q.post(run+"/clear", `{"dry_run": true, "only_failed": true}`)
	q.post(run+"/clear", `{"dry_run": "maybe"}`)

	// Task instances.
	q.get(ti)
	q.get(ti + "?state=failed&state=upstream_failed")
	q.get(ti + "?state=nope")
	q.get(ti + "?order_by=-task_id&limit=2")
	q.get(v + "/dags/~/dagRuns/~/taskInstances?dag_ids=corpus_chain&limit=3")
	q.get(v + "/dags/corpus_chain/dagRuns/nope/taskInstances")
	q.post(v+"/dags/~/dagRuns/~/taskInstances/list", `{"dag_ids": ["corpus_chain"], "task_ids": ["extract"], "page_limit": 5}`)
	q.post(v+"/dags/~/dagRuns/~/taskInstances/list", `{"nope": 1}`)
	q.get(ti + "/extract")
	q.get(ti + "/transform")
	q.get(ti + "/nope")
	q.get(ti + "/extract/-1")
	q.get(ti + "/extract/0")
	q.get(ti + "/extract/listMapped")
	q.get(ti + "/extract/dependencies")
	q.get(ti + "/load/dependencies")
	q.get(ti + "/extract/tries")
	q.get(ti + "/extract/tries/1")
	q.get(ti + "/extract/tries/9")
	q.get(ti + "/extract/logs/1")
	q.req(http.MethodGet, ti+"/extract/logs/1", "", "Accept", "application/x-ndjson")
	q.get(ti + "/extract/logs/1?full_content=true")
	q.get(ti + "/extract/logs/9")
	q.get(ti + "/extract/externalLogUrl/1")
	q.get(ti + "/extract/links")
	q.patch(ti+"/transform/dry_run", `{"new_state": "success"}`)
	q.patch(ti+"/transform", `{"new_state": "nope"}`)
	q.patch(ti+"/transform?update_mask=note", `{"note": "looked at"}`)
	q.patch(ti+"/nope", `{"new_state": "success"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "only_failed": true, "dag_run_id": "`+corpusV2Run+`"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "task_ids": ["nope"]}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dry_run": true, "start_date": "x"}`)
	q.post(v+"/dags/corpus_chain/clearTaskInstances", `{"dag_run_id": "`+corpusV2Run+`", "task_ids": ["transform"], "include_downstream": true}`)
	q.get(ti)

	// XCom.
	q.get(ti + "/extract/xcomEntries")
	q.get(ti + "/extract/xcomEntries/return_value")
	q.get(ti + "/extract/xcomEntries/rows")
	q.get(ti + "/extract/xcomEntries/nope")
	q.get(v + "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=2")
	q.post(ti+"/extract/xcomEntries", `{"key": "added", "value": {"n": [1, 2]}}`)
	q.post(ti+"/extract/xcomEntries", `{"key": "added", "value": 1}`)
	q.post(ti+"/extract/xcomEntries", `{"value": 1}`)
	q.patch(ti+"/extract/xcomEntries/added", `{"value": "changed"}`)
	q.patch(ti+"/extract/xcomEntries/nope", `{"value": "changed"}`)
	q.get(ti + "/extract/xcomEntries/added?deserialize=true")
	q.del(ti + "/extract/xcomEntries/added")
	q.del(ti + "/extract/xcomEntries/added")

	// Pools.
	q.get(v + "/pools")
	q.post(v+"/pools", `{"name": "v2_pool", "slots": 3, "description": "from the corpus"}`)
	q.post(v+"/pools", `{"name": "v2_pool", "slots": 4}`)
	q.post(v+"/pools", `{"name": "v2_bad", "slots": "many"}`)
	q.post(v+"/pools", `{"slots": 1}`)
	q.get(v + "/pools/v2_pool")
	q.get(v + "/pools/nope")
	q.patch(v+"/pools/v2_pool", `{"slots": 5}`)
	q.patch(v+"/pools/v2_pool?update_mask=description", `{"description": "masked"}`)
	q.patch(v+"/pools/default_pool", `{"name": "renamed"}`)
	q.patch(v+"/pools", `{"actions": [{"action": "create", "entities": [{"name": "bulk_pool", "slots": 1}], "action_on_existence": "skip"}, {"action": "delete", "entities": ["nope"], "action_on_non_existence": "fail"}]}`)
	q.patch(v+"/pools", `{"actions": [{"action": "nope"}]}`)
	q.del(v + "/pools/v2_pool")
	q.del(v + "/pools/v2_pool")
	q.del(v + "/pools/default_pool")
	q.get(v + "/pools?pool_name_pattern=pool&order_by=-name")

	// Variables.
	q.post(v+"/variables", `{"key": "v2_var", "value": "plain", "description": "d"}`)
	q.post(v+"/variables", `{"key": "v2_json", "value": {"x": [1, 2]}}`)
	q.post(v+"/variables", `{"key": "v2_var", "value": "again"}`)
	q.post(v+"/variables", `{"key": "password", "value": "hidden"}`)
	q.get(v + "/variables")
	q.get(v + "/variables/v2_json")
	q.get(v + "/variables/password")
	q.get(v + "/variables/nope")
	q.patch(v+"/variables/v2_var", `{"key": "v2_var", "value": "changed"}`)
	q.patch(v+"/variables/v2_var", `{"key": "other", "value": "changed"}`)
	q.patch(v+"/variables", `{"actions": [{"action": "update", "entities": [{"key": "nope", "value": "x"}], "action_on_non_existence": "skip"}]}`)
	q.del(v + "/variables/v2_var")
	q.del(v + "/variables/v2_var")

	// Connections.
	q.post(v+"/connections", `{"connection_id": "v2_conn", "conn_type": "http", "host": "example.com", "password": "secret", "extra": "{\"token\": \"t\"}"}`)
	q.post(v+"/connections", `{"connection_id": "v2_conn", "conn_type": "http"}`)
	q.post(v+"/connections", `{"connection_id": "bad id!", "conn_type": "http"}`)
	q.get(v + "/connections")
	q.get(v + "/connections/v2_conn")
	q.get(v + "/connections/nope")
	q.patch(v+"/connections/v2_conn?update_mask=host", `{"connection_id": "v2_conn", "conn_type": "http", "host": "example.org"}`)
	q.post(v+"/connections/test", `{"connection_id": "v2_conn", "conn_type": "http"}`)
	q.post(v+"/connections/defaults", ``)
	q.del(v + "/connections/v2_conn")
	q.del(v + "/connections/v2_conn")

	// Assets and backfills.
	q.get(v + "/assets")
	q.get(v + "/assets/1")
	q.get(v + "/assets/abc")
	q.get(v + "/assets/aliases")
	q.get(v + "/assets/events")
	q.post(v+"/assets/events", `{"asset_id": 999}`)
	q.get(v + "/assets/1/queuedEvents")
	q.get(v + "/dags/corpus_chain/assets/queuedEvents")
	q.post(v+"/backfills/dry_run", `{"dag_id": "example_bash_operator", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-03T00:00:00Z"}`)
	q.post(v+"/backfills", `{"dag_id": "example_bash_operator", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z", "max_active_runs": 1}`)
	q.post(v+"/backfills", `{"dag_id": "corpus_chain", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z"}`)
	q.post(v+"/backfills", `{"dag_id": "nope", "from_date": "2024-01-01T00:00:00Z", "to_date": "2024-01-02T00:00:00Z"}`)
	q.get(v + "/backfills?dag_id=example_bash_operator")
	q.get(v + "/backfills/1")
	q.put(v+"/backfills/1/pause", ``)
	q.put(v+"/backfills/1/unpause", ``)
	q.put(v+"/backfills/1/cancel", ``)
	q.put(v+"/backfills/1/cancel", ``)
	q.get(v + "/backfills/99")

	// What the requests above left behind.
	q.get(v + "/dagStats?dag_ids=corpus_chain")
	q.get(v + "/eventLogs?limit=5&order_by=-id")
	q.get(v + "/eventLogs?event=trigger_dag_run")
	q.get(v + "/eventLogs/1")
	q.get(v + "/eventLogs/99999")

	// Human-in-the-loop, with nothing configured.
	q.get(v + "/dags/~/dagRuns/~/hitlDetails")

	// Deletes.
	q.del(v + "/dags/corpus_chain/dagRuns/v2_null_2")
	q.del(v + "/dags/corpus_chain/dagRuns/v2_null_2")
	q.del(v + "/dags/tutorial")
	q.del(v + "/dags/nope")

	// Methods and unknown routes.
	q.req(http.MethodPut, v+"/dags/corpus_chain/dagRuns", `{}`, "Content-Type", jsonType)
	q.get(v + "/nope")
	q.get(v)
	q.get(v + "/dags/")
}

// corpusTokenSequence is the simple auth manager with a users file: the
// token route, and the refusals of a missing, wrong or expired token. The
// server's own credentials (a token it signed) go with every request that
// names no Authorization.
func corpusTokenSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	const v = "/api/v2"
	q.post("/auth/token", `{"username": "admin", "password": "secret"}`)
	q.post("/auth/token", `{"username": "admin", "password": "wrong"}`)
	q.post("/auth/token", `{"username": "", "password": ""}`)
	q.post("/auth/token", `{"username": "admin"}`)
	q.req(http.MethodPost, "/auth/token", "username=admin&password=secret", "Content-Type", "application/x-www-form-urlencoded")
	q.get("/auth/token")
	for _, path := range []string{v + "/dags", v + "/version", v + "/monitor/health", "/", "/_airlite/clock"} {
		q.get(path)
		q.req(http.MethodGet, path, "", "Authorization", "")
		q.req(http.MethodGet, path, "", "Authorization", "Bearer not.a.token")
		q.req(http.MethodGet, path, "", "Authorization", "Basic "+base64Std("admin:secret"))
	}
	q.req(http.MethodGet, v+"/dags", "", "Authorization", "", "Cookie", "_token=not.a.token")
	return q.steps
}

// corpusV2LimitsSequence reaches the store's limits through /api/v2.
func corpusV2LimitsSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	const v = "/api/v2"
	q.post(v+"/pools", `{"name": "lim_1", "slots": 1}`)
	q.post(v+"/pools", `{"name": "lim_2", "slots": 1}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"logical_date": "2024-03-01T00:00:00Z", "conf": {"far_too_long": "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"}}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "lim_1", "logical_date": null}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "lim_2", "logical_date": null}`)
	q.post(v+"/dags/corpus_chain/dagRuns", `{"dag_run_id": "lim_3", "logical_date": null}`)
	q.post(v+"/variables", `{"key": "a", "value": "short"}`)
	q.post(v+"/variables", `{"key": "b", "value": "short"}`)
	q.post(v+"/variables", `{"key": "c", "value": "far too long a value"}`)
	q.post(v+"/connections", `{"connection_id": "c1", "conn_type": "http"}`)
	q.post(v+"/connections", `{"connection_id": "c2", "conn_type": "http"}`)
	q.get(v + "/eventLogs")
	return q.steps
}

// corpusV2StartingSequence is what edition 3 answers before it is ready.
func corpusV2StartingSequence(e edition) []corpusStep {
	q := &corpusSeq{}
	q.get("/_airlite/ready")
	q.get("/api/v2/monitor/health")
	q.get("/api/v2/version")
	q.get("/api/v2/dags")
	q.post("/api/v2/dags/corpus_chain/dagRuns", `{"logical_date": null}`)
	q.get("/")
	return q.steps
}

// Edition 3's answers carry values no option of the server fixes: task
// instance and DAG version ids (UUID version 7, time and chance), the
// tokens the simple auth manager signs (their jti is random), the ids of
// the runs Airflow 3 names with a random part, and the random ID a
// database error's answer names for the log, and how long each DAG file's
// read took (last_parse_duration).
var (
	corpusParseTime = regexp.MustCompile(`("last_parse_duration":)[0-9.e+-]+`)
	corpusUUID      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	corpusJWT       = regexp.MustCompile(`eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
	// A run id as JSON, a page (+ as &#43;) or a link (escaped) writes it.
	corpusRandomID = regexp.MustCompile(`((?:manual|scheduled|backfill|asset_triggered)__[0-9T:.+%A-F&#;-]+_)[A-Za-z0-9]{8}`)
	corpusLogID    = regexp.MustCompile(`(look for ID )[A-Za-z0-9]{8}`)
)

// maskV2CorpusRecord hides edition 3's volatile values in rec's body and
// headers (a token also comes back as a cookie).
func maskV2CorpusRecord(rec *corpusRecord) {
	mask := func(s string) string {
		s = corpusUUID.ReplaceAllString(s, "<uuid>")
		s = corpusJWT.ReplaceAllString(s, "<jwt>")
		s = corpusLogID.ReplaceAllString(s, "${1}<random>")
		s = corpusParseTime.ReplaceAllString(s, `${1}"<masked>"`)
		return corpusRandomID.ReplaceAllString(s, "${1}<random>")
	}
	body := mask(rec.Body)
	if body != rec.Body {
		rec.Body = body
		if _, ok := rec.Header["Content-Length"]; ok {
			rec.Header["Content-Length"] = "<masked>"
		}
	}
	for name, value := range rec.Header {
		rec.Header[name] = mask(value)
	}
}
