package main

// Import errors: the DAG files that did not load (memstore_importerrors.go),
// listed and one by id, for the APIs that answer them.

import (
	"errors"
	"strconv"
)

// faultImportErrorNotFound is an import error id no row has.
const faultImportErrorNotFound opFault = "import_error_not_found" // id

// importErrors are every import error, by id.
func (o *operations) importErrors() ([]*ImportError, error) { return o.store.ImportErrors() }

// importError is the import error with id.
func (o *operations) importError(id int64) (*ImportError, error) {
	e, err := o.store.ImportErrorByID(id)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultImportErrorNotFound, "id", strconv.FormatInt(id, 10))
	}
	return e, err
}
