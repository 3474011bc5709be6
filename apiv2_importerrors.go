package main

// Airflow 3's import errors (issue #21): core_api/routes/public/
// import_error.py get_import_errors and get_import_error over airlite's
// import errors (ops_importerrors.go).

import (
	"cmp"
	"net/http"
	"path/filepath"
	"strings"
)

// v2DagsFolderBundle is the DAG bundle airlite's DAG files are in: Airflow
// 3's default bundle, the DAGs folder ([dag_processor]
// dag_bundle_config_list: "dags-folder").
const v2DagsFolderBundle = "dags-folder"

// v2ImportError is datamodels/import_error.py ImportErrorResponse as 3.2.1's
// document has it.
type v2ImportError struct {
	ID         int64   `json:"import_error_id"`
	Timestamp  v2When  `json:"timestamp"`
	Filename   string  `json:"filename"`
	BundleName *string `json:"bundle_name"`
	StackTrace string  `json:"stack_trace"`
}

// v2ImportErrorCollection is ImportErrorCollectionResponse.
type v2ImportErrorCollection struct {
	ImportErrors []v2ImportError `json:"import_errors"`
	TotalEntries int             `json:"total_entries"`
}

// v2ImportErrorOrders are get_import_errors' sort attributes;
// import_error_id is id.
var v2ImportErrorOrders = []string{"id", "timestamp", "filename", "bundle_name", "stacktrace"}

// v2ImportErrorPhrases words the faults of these routes
// (import_error.py get_import_error).
var v2ImportErrorPhrases = phrasebook{
	faultImportErrorNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: "The ImportError with import_error_id: `" + e.value("id") + "` was not found"}
	},
}

// v2ImportErrorFilename is the file of an import error as Airflow 3 names
// it: its path inside the bundle (models/errors.py ParseImportError keeps
// the bundle and the relative path; full_file_path joins them again). A
// file outside folder, or no folder (the embedded examples), keeps the
// path the loader gave.
func v2ImportErrorFilename(folder, file string) string {
	if folder == "" {
		return file
	}
	rel, err := filepath.Rel(folder, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return file
	}
	return filepath.ToSlash(rel)
}

// v2ImportErrors are the import errors with their files named as Airflow 3
// names them (copies: the store's rows are not changed).
func (s *server) v2ImportErrors(rows []*ImportError) []*ImportError {
	out := make([]*ImportError, len(rows))
	for i, e := range rows {
		c := *e
		c.Filename = v2ImportErrorFilename(s.opts.DagsFolder, e.Filename)
		out[i] = &c
	}
	return out
}

// newV2ImportError is an import error in Airflow 3's form. Every caller
// of airlite may read every DAG, so no stack trace is redacted; a file
// that defines no DAG keeps its stack trace too, as Airflow 3.2.1 shows
// it to callers who may read all DAGs (apache/airflow#65329 redacted it
// for a while, #67465 restored it).
func newV2ImportError(e *ImportError) v2ImportError {
	bundle := v2DagsFolderBundle
	return v2ImportError{ID: e.ID, Timestamp: v2When(e.Timestamp), Filename: e.Filename, BundleName: &bundle, StackTrace: e.StackTrace}
}

// v2GetImportErrors is get_import_errors: filename_pattern, the order
// (id by default) and the page.
func (s *server) v2GetImportErrors(req *apiRequest) (any, error) {
	keys, err := v2OrderBy(req.query, "id", v2ImportErrorOrders, map[string]string{"import_error_id": "id"})
	if err != nil {
		return nil, err
	}
	like := req.query.v2Pattern("filename_pattern")
	pg := v2Page(req.query)
	var order []sortKey
	for _, k := range keys {
		order = append(order, sortKey{attr: k.attr, desc: k.desc})
	}
	// The pattern reads the file as Airflow 3 names it; the index's order
	// by the stored path is the same, every file being in the one folder.
	var match func(file string) bool
	matchKey := ""
	if like != nil {
		match = func(file string) bool { return like.MatchString(v2ImportErrorFilename(s.opts.DagsFolder, file)) }
		matchKey = "filename like " + like.String()
	}
	if page, ok, err := s.ops.importErrorPage(order, false, match, matchKey, pg.offset, pg.limit); ok || err != nil {
		if err != nil {
			return nil, err
		}
		out := v2ImportErrorCollection{ImportErrors: []v2ImportError{}, TotalEntries: page.total}
		for _, e := range s.v2ImportErrors(page.rows) {
			out.ImportErrors = append(out.ImportErrors, newV2ImportError(e))
		}
		return out, nil
	}
	stored, err := s.ops.importErrors()
	if err != nil {
		return nil, err
	}
	rows := s.v2ImportErrors(stored)
	picked := make([]*ImportError, 0, len(rows))
	for _, e := range rows {
		if like == nil || like.MatchString(e.Filename) {
			picked = append(picked, e)
		}
	}
	v2OrderRows(picked, keys, compareV2ImportErrors, func(a, b *ImportError) int { return cmp.Compare(a.ID, b.ID) })
	out := v2ImportErrorCollection{ImportErrors: []v2ImportError{}, TotalEntries: len(picked)}
	for _, e := range v2Window(picked, pg) {
		out.ImportErrors = append(out.ImportErrors, newV2ImportError(e))
	}
	return out, nil
}

// compareV2ImportErrors orders import errors by a sort attribute (every
// row is in the one bundle).
func compareV2ImportErrors(a, b *ImportError, attr string) int {
	switch attr {
	case "timestamp":
		return a.Timestamp.Compare(b.Timestamp)
	case "filename":
		return strings.Compare(a.Filename, b.Filename)
	case "stacktrace":
		return strings.Compare(a.StackTrace, b.StackTrace)
	case "bundle_name":
		return 0
	}
	return cmp.Compare(a.ID, b.ID)
}

// v2GetImportError is get_import_error.
func (s *server) v2GetImportError(req *apiRequest) (any, error) {
	e, err := s.ops.importError(req.v2PathInt("import_error_id"))
	if err != nil {
		return nil, v2ImportErrorPhrases.phrase(err)
	}
	return newV2ImportError(s.v2ImportErrors([]*ImportError{e})[0]), nil
}

// v2ImportErrorRoutes are import_error.py's rows.
func (s *server) v2ImportErrorRoutes(t *routeTable) {
	d := t.dialect
	t.add(http.MethodGet, "/importErrors/{import_error_id}", d.answer(s, s.v2GetImportError), withPathInts("import_error_id"))
	t.add(http.MethodGet, "/importErrors", d.answer(s, s.v2GetImportErrors),
		withQuery(qV2Limit, qV2Offset, qV2OrderBy, qV2Str("filename_pattern")))
}
