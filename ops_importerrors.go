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
// keeps (nil: all; matchKey names it for the remembered totals), read from
// the store's indexes when keys' first is id or filename (both unique: the
// keys after it never decide, whichever way SortParam's primary key
// follows) or is timestamp alone (ties by id, in its direction, or
// ascending when tiesUp), and how many it picks; ok false for another
// order (stacktrace, bundle_name, timestamp then another key), which
// sorts.
func (o *operations) importErrorPage(keys []sortKey, tiesUp bool, match func(file string) bool, matchKey string, offset, limit int) (listed[*ImportError], bool, error) {
	order, desc := "id", false
	if len(keys) == 1 && keys[0].attr == "timestamp" {
		order, desc = "timestamp", keys[0].desc
	} else {
		byFilename, d, ok := keyedIndexOrder(keyedQuery{keys: keys}, "filename")
		if !ok {
			return listed[*ImportError]{}, false, nil
		}
		desc = d
		if byFilename {
			order = "filename"
		}
	}
	countKey := "all"
	if match != nil {
		countKey = matchKey
	}
	rows, total, err := o.store.ImportErrorPage(order, desc, tiesUp, offset, limit, match, countKey)
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
