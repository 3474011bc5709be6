package main

// The experimental API's wording of the resource operations' faults: its
// only resource beyond DAGs and runs is pools (Airflow 1.10.15
// airflow/api/common/experimental/pool.py, the same in 2.10.3). To be
// merged with apiexp_errors.go's book.

var apiexpResourcePhrases = phrasebook{
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

// expResourceError phrases a resource operation's error in the
// experimental API's words; nil stays nil.
func expResourceError(err error) error { return apiexpResourcePhrases.phrase(err) }
