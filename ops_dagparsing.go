package main

// Asking for a DAG file to be read again (the stable API's and Airflow 3's
// parseDagFile): the request goes to the DAG folder's reloader
// (dag_reload.go dagParseRequests), which reads the file at once.

// The faults of a parse request.
const (
	faultDagFileNotFound   opFault = "dag_file_not_found"   // path
	faultDagFileParseAsked opFault = "dag_file_parse_asked" // path: a request for it waits already
)

// reparseDagFile asks for the DAG file at path (a DAG's fileloc) to be
// read again: a file no DAG comes from is not found, one asked for and
// not yet read again is a conflict (the request's unique key).
func (o *operations) reparseDagFile(path string) error {
	return o.reparseDagFileOf(func(row *DagRow) bool { return row.FileLoc == path }, path)
}

// reparseDagFileRel is reparseDagFile for Airflow 3's token, which names
// the file by bundle and relative fileloc (3.2.1 dag_parsing.py
// reparse_dag_file selects the DAG rows with both).
func (o *operations) reparseDagFileRel(bundle, rel string) error {
	return o.reparseDagFileOf(func(row *DagRow) bool { return bundle == bundleName && relativeFileloc(row) == rel }, rel)
}

func (o *operations) reparseDagFileOf(match func(*DagRow) bool, name string) error {
	rows, err := o.store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if !match(row) || row.FileLoc == loadedDAGFileLoc {
			continue
		}
		if o.parseRequests != nil && !o.parseRequests.add(absPath(row.FileLoc)) {
			return opErr(errConflict, faultDagFileParseAsked, "path", row.FileLoc)
		}
		return nil
	}
	return opErr(errNotFound, faultDagFileNotFound, "path", name)
}
