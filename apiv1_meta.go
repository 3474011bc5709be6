package main

// The stable API's endpoints about airlite itself: health, version,
// config, providers, plugins, import errors and DAG warnings.

import (
	"mime"
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
