package main

import "regexp"

// Lists of named rows (pools, variables, connections) paged from the
// store's indexes when their order is one an index keeps.

// keyedIndexOrder says whether q's order is one the store's indexes keep:
// its first key the integer id (the default) or the name (nameAttr), both
// unique, so that the keys after it never decide; and whether by name and
// descending.
func keyedIndexOrder(q keyedQuery, nameAttr string) (byName, desc, ok bool) {
	k := sortKey{attr: "id"}
	if len(q.keys) > 0 {
		k = q.keys[0]
	}
	switch k.attr {
	case "id":
		return false, k.desc, true
	case nameAttr:
		return true, k.desc, true
	}
	return false, false, false
}

// pageKeyed is listKeyed's answer read from the store's page (a walk of
// an index to the page's end), when keyedIndexOrder allows it.
func pageKeyed[T any](q keyedQuery, nameAttr string, page func(byName, desc bool, offset, limit int, keep func(string) bool, countKey string) ([]T, int, error)) (listed[T], bool, error) {
	byName, desc, ok := keyedIndexOrder(q, nameAttr)
	if !ok {
		return listed[T]{}, false, nil
	}
	keep, countKey := patternKeep(q.match)
	rows, total, err := page(byName, desc, q.offset, q.limit, keep, countKey)
	return listed[T]{rows: rows, total: total}, true, err
}

// patternKeep is a pattern filter (a LIKE '%x%': _SearchParam, or
// 2.10.3's uri_pattern) as a page's keep (nil: every row), and the name
// the count of what it picks is remembered under, per version of the
// table (tablePage's countKey: "all" without a filter). A substring
// filter has no index to seek (Airflow's database scans for it too): the
// page walks its order's index and stops when it is full, and the total
// is counted once per change of the table and pattern, not per page.
func patternKeep(re *regexp.Regexp) (keep func(string) bool, countKey string) {
	if re == nil {
		return nil, "all"
	}
	return re.MatchString, "pattern " + re.String()
}
