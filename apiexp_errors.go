package main

// The experimental API's phrasebook: how each of the operations' faults
// reads in Airflow's experimental API (airflow/www/api/experimental/
// endpoints.py and airflow/api/common), with today's exact texts. One book
// per edition, made once (newAirflowAPI): its only resource beyond DAGs
// and runs is pools.

import "time"

// expPhrases is the experimental API's wording under rules' edition.
func expPhrases(rules *editionRules) phrasebook {
	book := phrasebook{
		faultDagNotFound: func(e *opError) error {
			return newAPIError(errNotFound, "Dag id %s not found in DagModel", e.value("dag_id"))
		},
		faultDagNotLoaded: func(e *opError) error {
			return newAPIError(errNotFound, "Dag id %s not found", e.value("dag_id"))
		},
		faultBeforeStart: func(e *opError) error {
			return newAPIError(errCrash, "The execution_date [%s] should be >= start_date [%s] from DAG's default_args",
				e.value("date"), e.value("start"))
		},
		faultRunIDTooLong: func(*opError) error {
			return newAPIError(errBadRequest, "run_id can't be more than %d characters", maxRunIDChars)
		},
		faultRunExists: func(e *opError) error {
			// The rules' duplicate rule reads which runs were found.
			date, _ := time.Parse(time.RFC3339Nano, e.value("date"))
			var byID, byDate *DagRun
			if id := e.value("by_id"); id != "" {
				byID = &DagRun{ID: 1, RunID: id}
			}
			if id := e.value("by_date"); id != "" {
				byDate = &DagRun{ID: 2, RunID: id}
				if e.value("same") == "true" {
					byDate.ID = 1
				}
			}
			return rules.duplicate(e.value("dag_id"), e.value("run_id"), date, byID, byDate)
		},
		faultRunIDInvalid: func(e *opError) error {
			return newAPIError(errAirflow,
				"The provided run ID '%s' is invalid. It does not match either the configured pattern: '%s' or the built-in pattern: '%s'",
				e.value("run_id"), allowedRunIDPattern, builtinRunIDPattern)
		},
		// ParamValidationError is an AirflowException, whose status_code
		// (500) trigger_dag's handler answers with (2.10.3
		// airflow/exceptions.py:44,318; www/api/experimental/
		// endpoints.py:127-133).
		faultParamInvalid: func(e *opError) error { return newAPIError(errAirflow, "%s", e.value("message")) },
		faultDagRunning:   func(*opError) error { return newAPIError(errAirflow, "TaskInstances still running") },
		// The status page's trigger in edition 3: trigger_dag's ValueError
		// (c57fba0e api/common/trigger_dag.py:168-169).
		faultRunTypeNotAllowed: func(e *opError) error {
			return newAPIError(errBadRequest, "Dag with dag_id: '%s' does not allow %s runs", e.value("dag_id"), e.value("run_type"))
		},
		faultNoRunAt: func(e *opError) error {
			date, _ := time.Parse(time.RFC3339Nano, e.value("date"))
			return newAPIError(errNotFound, "Dag Run for date %s not found in dag %s", rules.errorDate(date), e.value("dag_id"))
		},
	}
	for fault, say := range expPoolPhrases {
		book[fault] = say
	}
	return book
}

// expPoolPhrases is the pool endpoints' wording (Airflow 1.10.15
// airflow/api/common/experimental/pool.py, the same in 2.10.3), the same
// in every edition.
var expPoolPhrases = phrasebook{
	faultPoolNotFound: func(e *opError) error {
		return newAPIError(errNotFound, "Pool '%s' doesn't exist", e.value("name"))
	},
	faultPoolNameEmpty: func(*opError) error { return newAPIError(errBadRequest, "Pool name shouldn't be empty") },
	faultPoolNameTooLong: func(e *opError) error {
		return newAPIError(errBadRequest, "Pool name can't be more than %s characters", e.value("max"))
	},
	faultPoolDescTooLong: func(e *opError) error {
		return newAPIError(errBadRequest, "Pool description can't be more than %s bytes", e.value("max"))
	},
	faultDefaultPoolDelete: func(*opError) error { return newAPIError(errBadRequest, "default_pool cannot be deleted") },
}

// expPausePhrases is the pause endpoint's: Airflow reads the DagModel
// row without a check and crashes on a missing one.
var expPausePhrases = phrasebook{
	faultDagNotFound: func(e *opError) error {
		return newAPIError(errCrash, "Dag id %s not found in DagModel", e.value("dag_id"))
	},
	faultDagNotLoaded: func(e *opError) error {
		return newAPIError(errCrash, "Dag id %s not found: its definition could not be loaded", e.value("dag_id"))
	},
}

// phrase is err in the experimental API's words.
func (a *airflowAPI) phrase(err error) error {
	if err == nil {
		return nil
	}
	return a.phrases.phrase(err)
}
