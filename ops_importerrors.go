package main

// Import errors: the DAG files that did not load (memstore_importerrors.go),
// listed and one by id, for the APIs that answer them.

import (
	"errors"
	"regexp"
	"strconv"
)

// faultImportErrorNotFound is an import error id no row has.
const faultImportErrorNotFound opFault = "import_error_not_found" // id

// importErrors are every import error, by id.
func (o *operations) importErrors() ([]*ImportError, error) { return o.store.ImportErrors() }

// importErrorPage is a page of the import errors whose filename like
// picks (nil: all), read from the store's indexes when keys' first is id
// or filename (both unique: the keys after it never decide, whichever
// way SortParam's primary key follows), and how many it picks; ok false
// for another order (timestamp, stacktrace, bundle_name), which sorts.
func (o *operations) importErrorPage(keys []sortKey, like *regexp.Regexp, offset, limit int) (listed[*ImportError], bool, error) {
	byFilename, desc, ok := keyedIndexOrder(keyedQuery{keys: keys}, "filename")
	if !ok {
		return listed[*ImportError]{}, false, nil
	}
	var keep func(string) bool
	countKey := "all"
	if like != nil {
		keep, countKey = like.MatchString, "filename like "+like.String()
	}
	rows, total, err := o.store.ImportErrorPage(byFilename, desc, offset, limit, keep, countKey)
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
