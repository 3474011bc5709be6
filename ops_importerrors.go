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

// importErrorPage is a page of the import errors whose filename match
// keeps (nil: all; matchKey names it for the remembered totals), read from the store's indexes when keys' first is id
// or filename (both unique: the keys after it never decide, whichever
// way SortParam's primary key follows), and how many it picks; ok false
// for another order (timestamp, stacktrace, bundle_name), which sorts.
func (o *operations) importErrorPage(keys []sortKey, match func(file string) bool, matchKey string, offset, limit int) (listed[*ImportError], bool, error) {
	byFilename, desc, ok := keyedIndexOrder(keyedQuery{keys: keys}, "filename")
	if !ok {
		return listed[*ImportError]{}, false, nil
	}
	countKey := "all"
	if match != nil {
		countKey = matchKey
	}
	rows, total, err := o.store.ImportErrorPage(byFilename, desc, offset, limit, match, countKey)
	return listed[*ImportError]{rows: rows, total: total}, true, err
}

// importError is the import error with id.
func (o *operations) importError(id int64) (*ImportError, error) {
	e, err := o.store.ImportErrorByID(id)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultImportErrorNotFound, "id", strconv.FormatInt(id, 10))
	}
	return e, err
}
