package main

// The stable API's wording of the resource operations' faults (pools,
// variables, connections, XCom, the event log, dependencies, datasets),
// each as Airflow 2.10.3's endpoint raises it (its file named per entry).
// To be merged with apiv1_errors.go's book.

import (
	"fmt"
	"net/http"
)

var apiv1ResourcePhrases = phrasebook{
	// pool_endpoint.py
	faultPoolNotFound: func(e *opError) error {
		return v1NotFound("Not Found", fmt.Sprintf("Pool with name:'%s' not found", e.value("name")))
	},
	faultPoolExists: func(e *opError) error {
		return v1Conflict("Conflict", fmt.Sprintf("Pool: %s already exists", e.value("name")))
	},
	faultPoolNameEmpty: func(*opError) error { return v1BadRequest("Pool name shouldn't be empty") },
	faultPoolNameTooLong: func(e *opError) error {
		return v1BadRequest("Pool name can't be more than " + e.value("max") + " characters")
	},
	faultPoolDescTooLong: func(e *opError) error {
		return v1BadRequest("Pool description can't be more than " + e.value("max") + " bytes")
	},
	faultDefaultPoolDelete:   func(*opError) error { return v1BadRequest("Default Pool can't be deleted") },
	faultDefaultPoolRenaming: func(*opError) error { return v1BadRequest("Default Pool's name can't be modified") },

	// variable_endpoint.py
	faultVariableNotFound:        func(*opError) error { return v1NotFound("Variable not found", "Variable does not exist") },
	faultVariableToDeleteMissing: func(*opError) error { return &problem{status: http.StatusNotFound, title: "Variable not found"} },
	faultVariableKeyTooLong: func(e *opError) error {
		return &problem{status: http.StatusBadRequest, title: "Invalid Variable schema",
			detail: fmt.Sprintf("key: at most %s characters (Airflow's column), got %s", e.value("max"), e.value("got"))}
	},

	// connection_endpoint.py and helpers.validate_key
	faultConnectionNotFound: func(e *opError) error {
		return v1NotFound("Connection not found", fmt.Sprintf("The Connection with connection_id: `%s` was not found", e.value("conn_id")))
	},
	faultConnectionExists: func(e *opError) error {
		return v1Conflict("Conflict", "Connection already exist. ID: "+e.value("conn_id"))
	},
	faultConnectionIDTooLong: func(*opError) error { return v1BadRequest("The key has to be less than 200 characters") },
	faultConnectionIDInvalid: func(e *opError) error {
		return v1BadRequest(fmt.Sprintf("The key %s has to be made of alphanumeric characters, dashes, dots and underscores exclusively",
			pyQuote(e.value("conn_id"))))
	},
	faultConnectionIDFixed: func(*opError) error { return v1BadRequest("The connection_id cannot be updated.") },

	// xcom_endpoint.py
	faultXComNotFound: func(*opError) error { return &problem{status: http.StatusNotFound, title: "XCom entry not found"} },

	// event_log_endpoint.py
	faultEventLogNotFound: func(*opError) error { return &problem{status: http.StatusNotFound, title: "Event Log not found"} },

	// task_instance_endpoint.py get_task_instance_dependencies
	faultDepsTaskInstanceNotFound: func(e *opError) error {
		return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Task Instance not found for dag_id=%s, run_id=%s, task_id=%s",
			e.value("dag_id"), e.value("run_id"), e.value("task_id"))}
	},

	// dataset_endpoint.py, dag_parsing.py
	faultDatasetNotFound: func(e *opError) error {
		return v1NotFound("Dataset not found", fmt.Sprintf("The Dataset with uri: `%s` was not found", e.value("uri")))
	},
	faultDatasetOfEventNotFound: func(e *opError) error {
		return v1NotFound("Dataset not found", fmt.Sprintf("Dataset with uri: '%s' not found", e.value("uri")))
	},
	faultQueuedEventNotFound: func(e *opError) error {
		dagID, uri := e.value("dag_id"), e.value("uri")
		var detail string
		switch {
		case dagID != "" && uri != "":
			detail = fmt.Sprintf("Queue event with dag_id: `%s` and dataset uri: `%s` was not found", dagID, uri)
		case dagID != "":
			detail = fmt.Sprintf("Queue event with dag_id: `%s` was not found", dagID)
		default:
			detail = fmt.Sprintf("Queue event with dataset uri: `%s` was not found", uri)
		}
		return v1NotFound("Queue event not found", detail)
	},
	faultDagFileNotFound: func(*opError) error { return &problem{status: http.StatusNotFound, title: "File not found"} },
}

// v1ResourceError phrases a resource operation's error in the stable
// API's words; nil stays nil.
func v1ResourceError(err error) error { return apiv1ResourcePhrases.phrase(err) }
