package main

// Datasets and DAG-file parse requests (Airflow 2.10.3
// airflow/api_connexion/endpoints/dataset_endpoint.py, dag_parsing.py).
// airlite's DAGs have no dataset schedules or outlets, so it has no
// datasets, dataset events or queued events: listings are empty and every
// lookup finds nothing. It reads DAG files only at start, so a parse
// request for a known file is taken and changes nothing.

// The datasets' faults.
const (
	faultDatasetNotFound        opFault = "dataset_not_found"          // uri
	faultDatasetOfEventNotFound opFault = "dataset_of_event_not_found" // uri: an event's dataset, worded apart by Airflow
	faultQueuedEventNotFound    opFault = "queued_event_not_found"     // dag_id and/or uri
	faultDagFileNotFound        opFault = "dag_file_not_found"         // path
)

// datasetOrders and datasetEventOrders are the attributes the (empty)
// listings are ordered by (allowed_attrs).
var (
	datasetOrders      = []string{"id", "uri", "created_at", "updated_at"}
	datasetEventOrders = []string{"source_dag_id", "source_task_id", "source_run_id", "source_map_index", "timestamp"}
)

// dataset is the dataset at uri: there is none.
func (o *operations) dataset(uri string) error {
	return opErr(errNotFound, faultDatasetNotFound, "uri", uri)
}

// createDatasetEvent records an event of the dataset at uri, which must
// exist: none does.
func (o *operations) createDatasetEvent(uri string) error {
	return opErr(errNotFound, faultDatasetOfEventNotFound, "uri", uri)
}

// queuedEvents are the queued dataset events of a DAG, a dataset, or the
// pair ("" for either: any): there are none. It reads nothing, so it
// needs no operations.
func queuedEvents(dagID, uri string) error {
	return opErr(errNotFound, faultQueuedEventNotFound, "dag_id", dagID, "uri", uri)
}

// reparseDagFile asks for the DAG file at path to be parsed again: a file
// no DAG comes from is not found.
func (o *operations) reparseDagFile(path string) error {
	rows, err := o.store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.FileLoc == path {
			return nil
		}
	}
	return opErr(errNotFound, faultDagFileNotFound, "path", path)
}
