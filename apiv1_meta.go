package main

// The stable API's endpoints about airlite itself: health, version,
// config, providers, plugins, import errors and DAG warnings.

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// V1Health is GET /health: what the webserver's /health says
// (schedulerHealth), in the stable API's form; Airflow 2.10.3 answers both
// from airflow/api/common/airflow_health.py. airlite has no triggerer or
// DAG processor jobs, which Airflow reports as null.
func (s *server) V1Health() map[string]any {
	h := schedulerHealth(s.opts.SchedulerHeartbeat, s.opts.Now())
	var beat any
	if h.schedulerBeat != nil {
		beat = isoFormat(*h.schedulerBeat)
	}
	return map[string]any{
		"metadatabase":  map[string]any{"status": "healthy"},
		"scheduler":     map[string]any{"status": healthStatus(h.schedulerAlive), "latest_scheduler_heartbeat": beat},
		"triggerer":     map[string]any{"status": nil, "latest_triggerer_heartbeat": nil},
		"dag_processor": map[string]any{"status": nil, "latest_dag_processor_heartbeat": nil},
	}
}

func (s *server) handleV1Health(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	s.writeV1JSON(w, r, http.StatusOK, s.V1Health())
}

// handleV1Version is GET /version: the release and its git_version file.
func (s *server) handleV1Version(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	rules := s.rules()
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"version": rules.version, "git_version": rules.gitVersion})
}

// handleV1Config is GET /config with Airflow's default expose_config =
// False: the Accept header is read first (406 when it names neither text
// nor JSON, as Werkzeug's best_match finds nothing in an absent header),
// then the refusal.
func (s *server) handleV1Config(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	if bestMatch(r.Header.Get("Accept"), "text/plain", "application/json") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	s.answerError(w, r, v1Forbidden("Your Airflow administrator chose not to expose the configuration, most likely for security reasons."))
}

// handleV1Providers is GET /providers: airlite runs no providers.
func (s *server) handleV1Providers(w http.ResponseWriter, r *http.Request, _ *v1Request) {
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"providers": []any{}, "total_entries": 0})
}

// handleV1Plugins is GET /plugins: airlite loads no plugins.
func (s *server) handleV1Plugins(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if _, err := req.query.page(); err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"plugins": []any{}, "total_entries": 0})
}

// handleV1ImportErrors is GET /importErrors: airlite refuses a DAG file
// that does not load at start (docs/behaviour.md §4.10), so none is
// ever listed; order_by is still checked as Airflow checks it.
func (s *server) handleV1ImportErrors(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if _, err := req.query.page(); err != nil {
		s.answerError(w, r, err)
		return
	}
	if _, _, err := req.query.orderBy("import_error_id", []string{"import_error_id", "timestamp", "filename"}); err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"import_errors": []any{}, "total_entries": 0})
}

// handleV1DagWarnings is GET /dagWarnings: airlite raises no warnings.
func (s *server) handleV1DagWarnings(w http.ResponseWriter, r *http.Request, req *v1Request) {
	if _, err := req.query.page(); err != nil {
		s.answerError(w, r, err)
		return
	}
	if _, _, err := req.query.orderBy("timestamp", []string{"dag_id", "warning_type", "message", "timestamp"}); err != nil {
		s.answerError(w, r, err)
		return
	}
	s.writeV1JSON(w, r, http.StatusOK, map[string]any{"dag_warnings": []any{}, "total_entries": 0})
}

// bestMatch is Werkzeug's MIMEAccept.best_match: the offered type the
// Accept header rates highest (exact, type/*, */*), the first offered on
// a tie; "" when the header is absent or rates none above zero.
func bestMatch(accept string, offered ...string) string {
	best, bestQ := "", 0.0
	for _, o := range offered {
		q := acceptQuality(accept, o)
		if q > bestQ {
			best, bestQ = o, q
		}
	}
	return best
}

// acceptQuality is the quality the most specific entry of accept that
// matches mediaType gives it.
func acceptQuality(accept, mediaType string) float64 {
	q, specificity := 0.0, -1
	for _, item := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
		if err != nil {
			continue
		}
		spec := -1
		switch {
		case mt == mediaType:
			spec = 2
		case mt == "*/*" || mt == "*":
			spec = 0
		case strings.HasSuffix(mt, "/*") && strings.HasPrefix(mediaType, strings.TrimSuffix(mt, "*")):
			spec = 1
		}
		if spec < specificity || spec < 0 {
			continue
		}
		quality := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				quality = f
			}
		}
		q, specificity = quality, spec
	}
	return q
}
