package main

// Airflow 3's DAG parsing request (3.2.1 core_api/routes/public/
// dag_parsing.py reparse_dag_file): the file a DAG's file_token names is
// read again by the DAG folder's reloader at once (dag_reload.go).

import (
	"encoding/json"
	"errors"
	"net/http"
)

// v2FileNotFound is dag_parsing.py:57 and :71's 404 (a token the secret
// did not sign; a file no DAG row comes from).
var v2FileNotFound = &v2Error{status: http.StatusNotFound, detail: "File not found"}

// v2DagParsingRoutes is the dag_parsing_router block.
func (s *server) v2DagParsingRoutes(t *routeTable) {
	t.add(http.MethodPut, "/parseDagFile/{file_token}", v2Created(s, s.dialV2, s.V2ReparseDagFile), withV2Action("reparse_dag_file"))
}

// V2ReparseDagFile is PUT /parseDagFile/{file_token}: 201 with a null
// body once the file is asked for; a second request before the file was
// read again breaks the request table's unique key, which Airflow's
// IntegrityError handler answers 409 (test_dag_parsing.py
// test_201_and_400_requests).
func (s *server) V2ReparseDagFile(req *apiRequest) (any, error) {
	raw, err := loadSignedJSON(s.v1Secret, req.path["file_token"])
	if err != nil {
		return nil, v2FileNotFound
	}
	var payload struct {
		Bundle *string `json:"bundle_name"`
		Rel    *string `json:"relative_fileloc"`
	}
	// A signed value that is not the object DAGResponse signs (a stable
	// API token, a log's continuation token) names no DAG file.
	if err := json.Unmarshal(raw, &payload); err != nil || payload.Bundle == nil || payload.Rel == nil {
		return nil, v2FileNotFound
	}
	err = s.ops.reparseDagFileRel(*payload.Bundle, *payload.Rel)
	switch {
	case errors.Is(err, errConflict):
		return nil, v2UniqueViolation()
	case errors.Is(err, errNotFound):
		return nil, v2FileNotFound
	}
	return nil, err
}
