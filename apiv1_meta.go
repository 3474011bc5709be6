package main

// The stable API's endpoints about airlite itself: health, version,
// config, providers, plugins, import errors and DAG warnings.

import (
	"mime"
	"slices"
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

// V1GetImportErrors is GET /importErrors: the DAG files that did not load
// (2.10.3 api_connexion/endpoints/import_error_endpoint.py
// get_import_errors), ordered by import_error_id unless order_by names
// timestamp or filename. airlite's callers may read every DAG, so no
// stack trace is redacted.
func (s *server) V1GetImportErrors(q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("import_error_id", []string{"import_error_id", "timestamp", "filename"})
	if err != nil {
		return nil, err
	}
	// A page of an index: the rows by id sorted stably, so that ties of
	// timestamp stay by id either way (tiesUp).
	if attr == "import_error_id" {
		attr = "id"
	}
	page, _, err := s.ops.importErrorPage([]sortKey{{attr: attr, desc: desc}}, true, nil, "", p.offset, p.limit)
	if err != nil {
		return nil, err
	}
	items := []any{}
	for _, e := range page.rows {
		items = append(items, v1ImportError(e))
	}
	return map[string]any{"import_errors": items, "total_entries": page.total}, nil
}

// V1GetDagWarnings is GET /dagWarnings (2.10.3
// api_connexion/endpoints/dag_warning_endpoint.py): the warnings the DAG
// file processor records (ops_dagwarnings.go), filtered by dag_id and
// warning_type (equal), ordered by one order_by key (timestamp by
// default; ties in dag_id order, the table's), paged. A warning's
// timestamp is when its DAG was parsed.
func (s *server) V1GetDagWarnings(q v1Values) (map[string]any, error) {
	p, err := q.page()
	if err != nil {
		return nil, err
	}
	attr, desc, err := q.orderBy("timestamp", []string{"dag_id", "warning_type", "message", "timestamp"})
	if err != nil {
		return nil, err
	}
	all, err := s.ops.dagWarnings() // by dag_id
	if err != nil {
		return nil, err
	}
	dagID, byDag := q.str("dag_id")
	kind, byKind := q.str("warning_type")
	rows := all[:0:0]
	for _, w := range all {
		if (!byDag || w.row.DagID == dagID) && (!byKind || w.warningType == kind) {
			rows = append(rows, w)
		}
	}
	slices.SortStableFunc(rows, func(a, b dagWarning) int {
		var c int
		switch attr {
		case "dag_id":
			c = strings.Compare(a.row.DagID, b.row.DagID)
		case "warning_type":
			c = strings.Compare(a.warningType, b.warningType)
		case "message":
			c = strings.Compare(a.message, b.message)
		default:
			c = s.lastParsed(a.row).Compare(s.lastParsed(b.row))
		}
		if desc {
			c = -c
		}
		return c
	})
	items := []any{}
	for _, w := range pageOf(rows, p) {
		parsed := s.lastParsed(w.row)
		items = append(items, map[string]any{"dag_id": w.row.DagID, "warning_type": w.warningType, "message": w.message,
			"timestamp": v1Date(&parsed)})
	}
	return map[string]any{"dag_warnings": items, "total_entries": len(rows)}, nil
}

// V1GetImportError is GET /importErrors/{import_error_id}; an unknown id
// is Airflow's 404 (import_error_endpoint.py:48-54), the id printed as
// the Python int Werkzeug's converter made of it.
func (s *server) V1GetImportError(idText string) (map[string]any, error) {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err == nil {
		if e, err := s.opts.Store.ImportErrorByID(id); err == nil {
			return v1ImportError(e), nil
		}
	}
	shown := strings.TrimLeft(idText, "0")
	if shown == "" {
		shown = "0"
	}
	return nil, v1NotFound("Import error not found", "The ImportError with import_error_id: `"+shown+"` was not found")
}

// v1ImportError is the ImportErrorSchema (2.10.3
// api_connexion/schemas/error_schema.py): id, timestamp, filename and
// stack_trace.
func v1ImportError(e *ImportError) map[string]any {
	return map[string]any{
		"import_error_id": e.ID,
		"timestamp":       isoFormat(e.Timestamp),
		"filename":        e.Filename,
		"stack_trace":     e.StackTrace,
	}
}
