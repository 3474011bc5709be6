package main

// The stable API's phrasebooks: how the operations' faults read in
// Airflow 2.10.3's /api/v1, as problem documents with Airflow's titles
// and details. Airflow words the same fault differently per endpoint
// (a missing DAG is "DAG not found" to post_dag_run and "Dag id x not
// found" to post_clear_task_instances), so there is one book per family
// of endpoints, each named after the endpoints that use it; the resources
// around runs (pools, variables, connections, XCom, the event log,
// dependencies, datasets) share one, apiv1ResourcePhrases.

import (
	"fmt"
	"net/http"
	"time"
)

// v1DagMissing phrases both missing-DAG faults alike: /api/v1 does not
// tell a DAG without a row from one without a definition.
func v1DagMissing(say func(dagID string) error) func(e *opError) error {
	return func(e *opError) error { return say(e.value("dag_id")) }
}

// v1TriggerPhrases is post_dag_run's wording
// (airflow/api_connexion/endpoints/dag_run_endpoint.py:313-366).
var v1TriggerPhrases = func() phrasebook {
	dag := v1DagMissing(func(dagID string) error {
		return v1NotFound("DAG not found", fmt.Sprintf("DAG with dag_id: '%s' not found", dagID))
	})
	return phrasebook{
		faultDagNotFound:  dag,
		faultDagNotLoaded: dag,
		faultDagImportErrors: func(e *opError) error {
			return &problem{status: http.StatusBadRequest, title: "DAG cannot be triggered",
				detail: fmt.Sprintf("DAG with dag_id: '%s' has import errors", e.value("dag_id"))}
		},
		faultRunExists: func(e *opError) error {
			// The logical date is checked before the run id.
			if e.value("by_date") != "" {
				at, _ := time.Parse(time.RFC3339Nano, e.value("by_date_at"))
				return v1Conflict("Conflict", fmt.Sprintf("DAGRun with DAG ID: '%s' and DAGRun logical date: '%s' already exists",
					e.value("dag_id"), strFormat(at)))
			}
			return v1Conflict("Conflict", fmt.Sprintf("DAGRun with DAG ID: '%s' and DAGRun ID: '%s' already exists",
				e.value("dag_id"), e.value("run_id")))
		},
		faultRunIDReserved: func(e *opError) error {
			return v1BadRequest(fmt.Sprintf("A manual DAG run cannot use ID %s since it is reserved for %s runs",
				pyRepr(e.value("run_id")), e.value("run_type")))
		},
		// DAG.create_dagrun raises AirflowException (2.10.3
		// airflow/models/dag.py:3175-3181), which post_dag_run does not
		// catch (dag_run_endpoint.py:360): a crash 500.
		// post_dag_run answers a ParamValidationError with BadRequest and
		// its text (2.10.3 dag_run_endpoint.py:360-361).
		faultParamInvalid: func(e *opError) error { return v1BadRequest(e.value("message")) },
		faultRunIDInvalid: func(e *opError) error {
			return newAPIError(errCrash,
				"The provided run ID '%s' is invalid. It does not match either the configured pattern: '%s' or the built-in pattern: '%s'",
				e.value("run_id"), allowedRunIDPattern, builtinRunIDPattern)
		},
	}
}()

// v1RunPhrases is get_dag_run's and set_dag_run_note's missing run.
var v1RunPhrases = phrasebook{
	faultRunNotFound: func(e *opError) error { return v1RunNotFound(e.value("dag_id"), e.value("run_id")) },
}

// v1DeleteRunPhrases is delete_dag_run's missing run.
var v1DeleteRunPhrases = phrasebook{
	faultRunNotFound: func(e *opError) error {
		return &problem{status: http.StatusNotFound, title: "Not Found",
			detail: fmt.Sprintf("DAGRun with DAG ID: '%s' and DagRun ID: '%s' not found", e.value("dag_id"), e.value("run_id"))}
	},
}

// v1DagPhrases is patch_dag's and delete_dag's wording
// (airflow/api_connexion/endpoints/dag_endpoint.py).
var v1DagPhrases = phrasebook{
	faultDagNotFound: func(e *opError) error {
		return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag with id: '%s' not found", e.value("dag_id"))}
	},
	faultDagRunning: func(e *opError) error {
		return v1Conflict("Conflict", fmt.Sprintf("Task instances of dag with id: '%s' are still running", e.value("dag_id")))
	},
}

// v1TIStatePhrases is _convert_ti_states' refusal of a state name: a
// ValueError get_task_instances does not catch (2.10.3
// api_connexion/endpoints/task_instance_endpoint.py:278-281,338), a crash
// 500, as the real Airflow 2.10.3 answered.
var v1TIStatePhrases = phrasebook{
	faultBadTIState: func(e *opError) error {
		return newAPIError(errCrash, "'%s' is not a valid TaskInstanceState", e.value("state"))
	},
}

// v1PatchTIPhrases is patch_task_instance's wording.
var v1PatchTIPhrases = func() phrasebook {
	dag := v1DagMissing(func(dagID string) error {
		return v1NotFound("DAG not found", fmt.Sprintf("DAG %s not found", pyQuote(dagID)))
	})
	return phrasebook{
		faultDagNotFound:  dag,
		faultDagNotLoaded: dag,
		faultTaskMissing: func(e *opError) error {
			return v1NotFound("Task not found", fmt.Sprintf("Task %s not found in DAG %s", pyQuote(e.value("task_id")), pyQuote(e.value("dag_id"))))
		},
		faultTINotFound: func(e *opError) error {
			return v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on DAG run with ID %s",
				pyQuote(e.value("task_id")), pyQuote(e.value("run_id"))))
		},
	}
}()

// v1MarkTIsPhrases is post_set_task_instances_state's wording.
var v1MarkTIsPhrases = func() phrasebook {
	dag := v1DagMissing(func(dagID string) error {
		return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag ID %s not found", dagID)}
	})
	return phrasebook{
		faultDagNotFound:  dag,
		faultDagNotLoaded: dag,
		faultTaskMissing: func(e *opError) error {
			return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Task ID %s not found", e.value("task_id"))}
		},
		faultTINotFound: func(e *opError) error {
			if e.value("run_id") == "" {
				date, _ := time.Parse(time.RFC3339Nano, e.value("date"))
				return v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on execution_date %s",
					pyQuote(e.value("task_id")), strFormat(date)))
			}
			return v1NotFound("Not Found", fmt.Sprintf("Task instance not found for task %s on DAG run with ID %s",
				pyQuote(e.value("task_id")), pyQuote(e.value("run_id"))))
		},
	}
}()

// v1ClearTIsPhrases is post_clear_task_instances' wording.
var v1ClearTIsPhrases = func() phrasebook {
	dag := v1DagMissing(func(dagID string) error {
		return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag id %s not found", dagID)}
	})
	return phrasebook{
		faultDagNotFound:  dag,
		faultDagNotLoaded: dag,
		faultRunNotFound: func(e *opError) error {
			return &problem{status: http.StatusNotFound, title: fmt.Sprintf("Dag Run id %s not found in dag %s", e.value("run_id"), e.value("dag_id"))}
		},
	}
}()

// apiv1ResourcePhrases is the resource operations' faults (pools,
// variables, connections, XCom, the event log, dependencies, datasets),
// each as Airflow 2.10.3's endpoint raises it (its file named per entry).
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
