package main

// Airflow 3's DAG sources (issue #21): core_api/routes/public/
// dag_sources.py get_dag_source, by dag_id and version_number, as JSON or
// as the text itself by the Accept header.

import (
	"net/http"
	"strconv"
)

// v2DagSource is datamodels/dag_sources.py DAGSourceResponse as 3.2.1's
// document has it.
type v2DagSource struct {
	Content        *string `json:"content"`
	DagID          string  `json:"dag_id"`
	VersionNumber  *int64  `json:"version_number"`
	DagDisplayName string  `json:"dag_display_name"`
}

// v2DagSourcePhrases words the faults of the route (dag_sources.py: the
// version asked printed as Python prints it, None when none was).
var v2DagSourcePhrases = phrasebook{
	faultDagSourceNotFound: func(e *opError) error {
		version := e.value("version")
		if version == "" {
			version = "None"
		}
		return &v2Error{status: http.StatusNotFound,
			detail: "The source code of the DAG " + e.value("dag_id") + ", version_number " + version + " was not found"}
	},
}

// handleV2GetDagSource is get_dag_source: the source as text/plain when
// the Accept header starts with text/plain, else DAGSourceResponse.
func (s *server) handleV2GetDagSource(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	var version *int64
	if _, given := req.query.str("version_number"); given {
		n := req.query.v2Int("version_number", 0)
		version = &n
	}
	dagID := req.param("dag_id")
	code, number, err := s.ops.dagSource(dagID, version)
	if err != nil {
		writeV2Error(w, r, v2DagSourcePhrases.phrase(err))
		return
	}
	if code == nil {
		// A version without its DagCode row: the route's 404, before the
		// Accept header picks a form (dag_sources.py lines 66-70 of the
		// 3.2.0-era main, Phinhas214/airflow c57fba0e, from
		// apache/airflow#48803 in 3.0), the version as asked, None when
		// none was.
		asked := "None"
		if version != nil {
			asked = strconv.FormatInt(*version, 10)
		}
		writeV2Error(w, r, v2Detail404("Code not found. dag_id='%s' version_number='%s'", dagID, asked))
		return
	}
	if accept, _ := v2AcceptJSONOrText(r); accept == v2AcceptText {
		// Starlette's Response(content, media_type="text/plain") adds the
		// charset to a text type.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(*code))
		}
		return
	}
	writeV2JSON(w, r, http.StatusOK, v2DagSource{Content: code, DagID: dagID, VersionNumber: &number, DagDisplayName: s.v2DagDisplayName(dagID)})
}

// v2DagSourceRoutes are dag_sources.py's rows.
func (s *server) v2DagSourceRoutes(t *routeTable) {
	t.add(http.MethodGet, "/dagSources/{dag_id}", s.handleV2GetDagSource, withDependency(v2AcceptCheck),
		withQuery(qV2Int("version_number")))
}
