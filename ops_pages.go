package main

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
func pageKeyed[T any](q keyedQuery, nameAttr string, page func(byName, desc bool, offset, limit int, keep func(string) bool) ([]T, int, error)) (listed[T], bool, error) {
	byName, desc, ok := keyedIndexOrder(q, nameAttr)
	if !ok {
		return listed[T]{}, false, nil
	}
	rows, total, err := page(byName, desc, q.offset, q.limit, q.match)
	return listed[T]{rows: rows, total: total}, true, err
}
