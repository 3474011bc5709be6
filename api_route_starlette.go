package main

// Starlette's routing, for FastAPI's APIs (Airflow 3's /api/v2): the
// routes are tried in the order they were declared and the first whose
// path and method fit answers (starlette/routing.py Router.app); a route
// whose path fits but not its method is remembered, and answers 405 when
// no route fits both. A {name} segment matches any non-empty segment
// (Starlette's default str convertor): a path parameter FastAPI types as
// an integer is checked by pydantic after the match, a 422 rather than a
// miss. httprouter cannot hold a literal and a parameter at one position
// (/assets/events beside /assets/{asset_id}), so such a dialect has one
// catch-all per method and the table behind it.

import (
	"net/http"
	"slices"
	"strings"
)

// matchFirst returns the first row, in the table's order, whose path fits
// and whose method is method, with the path's parameters; when none does,
// partial is the first row whose path fits with another method (nil when
// no path fits). Only the rows of the path's shape are tried (its first
// segment and segment count; rows ending in {name:path} by first segment).
func (t *routeTable) matchFirst(method, path string) (rt *apiRoute, params map[string]string, partial *apiRoute) {
	var buf [16]string // most paths' segments, without an allocation
	segs := splitSegments(buf[:0], strings.TrimPrefix(path, "/"))
	for _, row := range t.shapeIndex().rowsOf(segs) {
		if !row.fitsAnySegment(segs) {
			continue
		}
		if row.method == method {
			return row, row.params(segs), nil
		}
		if partial == nil {
			partial = row
		}
	}
	return nil, nil, partial
}

// splitSegments is strings.Split(path, "/") appended to segs.
func splitSegments(segs []string, path string) []string {
	for {
		seg, rest, more := strings.Cut(path, "/")
		segs = append(segs, seg)
		if !more {
			return segs
		}
		path = rest
	}
}

// shapeIndex lists the rows a path may match by its shape, its first
// segment and number of segments, each list in the table's order: the
// rows of that many segments whose first segment is the path's or a
// parameter, and the rows ending in {name:path} whose first segment is
// the path's or a parameter. A request reads one list, merged when the
// index is built (once, on first use: a table is complete before it
// serves).
type shapeIndex struct {
	byFirst map[string]*shapeRows
	// other serves a first segment no row names: the rows that start
	// with a parameter.
	other *shapeRows
}

// shapeRows are the lists of one first segment.
type shapeRows struct {
	byCount [][]*apiRoute // [n]: the rows a path of n segments may match
	tails   []*apiRoute   // a path of more segments: the {name:path} rows
}

// anyFirst keys the rows whose first segment is a parameter.
const anyFirst = "{}"

// rowsOf is the list of segs' shape.
func (idx *shapeIndex) rowsOf(segs []string) []*apiRoute {
	rows, ok := idx.byFirst[segs[0]]
	if !ok {
		rows = idx.other
	}
	if n := len(segs); n < len(rows.byCount) {
		return rows.byCount[n]
	}
	return rows.tails
}

func (t *routeTable) shapeIndex() *shapeIndex {
	t.indexOnce.Do(func() {
		// The rows' positions by first segment, those of a fixed number
		// of segments by that number too.
		fixed, tails := map[string]map[int][]int{}, map[string][]int{}
		maxCount := 0
		for i, row := range t.routes {
			first := row.segs[0]
			if strings.HasPrefix(first, "{") {
				first = anyFirst
			}
			if _, isPath := row.pathParam(); isPath {
				tails[first] = append(tails[first], i)
				continue
			}
			if fixed[first] == nil {
				fixed[first] = map[int][]int{}
			}
			fixed[first][len(row.segs)] = append(fixed[first][len(row.segs)], i)
			maxCount = max(maxCount, len(row.segs))
		}
		rowsFor := func(first string) *shapeRows {
			byPosition := func(lists ...[]int) []*apiRoute {
				positions := slices.Concat(lists...)
				slices.Sort(positions)
				positions = slices.Compact(positions) // first == anyFirst lists its rows twice
				rows := make([]*apiRoute, len(positions))
				for i, at := range positions {
					rows[i] = t.routes[at]
				}
				return rows
			}
			r := &shapeRows{byCount: make([][]*apiRoute, maxCount+1), tails: byPosition(tails[first], tails[anyFirst])}
			for n := range r.byCount {
				r.byCount[n] = byPosition(fixed[first][n], tails[first], fixed[anyFirst][n], tails[anyFirst])
			}
			return r
		}
		idx := &shapeIndex{byFirst: map[string]*shapeRows{}, other: rowsFor(anyFirst)}
		for first := range fixed {
			idx.byFirst[first] = rowsFor(first)
		}
		for first := range tails {
			idx.byFirst[first] = rowsFor(first)
		}
		delete(idx.byFirst, anyFirst)
		t.index = idx
	})
	return t.index
}

// fitsAnySegment is fits without Werkzeug's integer converter: Starlette
// matches {name} against any non-empty segment, and a last {name:path}
// against the rest of the path, whatever it is: its convertor's regex is
// ".*" (starlette/convertors.py PathConvertor), so /pools/ is
// /pools/{pool_name:path} with an empty name and /pools// with "/".
func (rt *apiRoute) fitsAnySegment(segs []string) bool {
	pattern := rt.segs
	if _, isPath := rt.pathParam(); isPath {
		if len(segs) < len(pattern) {
			return false
		}
		pattern, segs = pattern[:len(pattern)-1], segs[:len(pattern)-1]
	} else if len(segs) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return false
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	return true
}

// serveStarlette answers one request of a Starlette-matched dialect, in
// FastAPI's order: the route, the body's decoding, the caller (a
// dependency that raises, such as Airflow's token check, answers at
// once), then the request's checks,
// whose errors the dialect gathers into one answer (FastAPI collects the
// path's, the query's and the body's validation errors in one 422).
func (s *server) serveStarlette(w http.ResponseWriter, r *http.Request, t *routeTable, path string) {
	d := t.dialect
	rt, params, partial := t.matchFirst(r.Method, path)
	if rt == nil {
		allow := ""
		if partial != nil {
			allow = partial.method
		}
		d.miss(w, r, allow)
		return
	}
	req := rowRequests.Get().(*apiRequest) // as serveRow's: no handler keeps req past its return
	defer func() {
		*req = apiRequest{}
		rowRequests.Put(req)
	}()
	req.path = params
	req.referer = r.Header.Get("Referer")
	// FastAPI reads and decodes a body before it solves the route's
	// dependencies (fastapi/routing.py get_request_handler): a body that
	// is not JSON is a 422 even without a token.
	var decoded v1Body
	if rt.body != nil || rt.rawBody {
		raw, err := s.readBody(w, r)
		if err != nil {
			d.answerError(s, w, r, err)
			return
		}
		req.raw = raw
		if rt.body != nil {
			if decoded, err = d.decode(raw, r.Header.Get("Content-Type")); err != nil {
				d.answerError(s, w, r, err)
				return
			}
			req.ordered = decoded.ordered
		}
	}
	if !s.identifyCaller(w, r, d, rt, req) {
		return
	}
	// action_logging is a dependency of the route: its row is committed
	// before the endpoint's parameters are validated, so a request
	// refused with a 422 is logged (apiv2_actions.go).
	if rt.v2Action != "" {
		if err := s.recordV2Action(rt, r, req); err != nil {
			d.answerError(s, w, r, err)
			return
		}
		defer s.flushV2Action(req)
	}
	// FastAPI solves an endpoint's sub-dependencies before it validates
	// the endpoint's own parameters, and one that raises answers at once
	// (fastapi/dependencies/utils.py solve_dependencies).
	if rt.dependency != nil {
		if err := rt.dependency(r); err != nil {
			d.answerError(s, w, r, err)
			return
		}
	}
	var pathErr, queryErr, bodyErr error
	if d.checkPath != nil {
		pathErr = d.checkPath(rt, params)
	}
	req.query, queryErr = d.checkQuery(r, rt.query)
	if rt.body != nil {
		req.ordered = decoded.ordered
		req.body, bodyErr = rt.body(decoded.plain)
	}
	if pathErr != nil || queryErr != nil || bodyErr != nil {
		// Gathered only when there is something to gather (a variadic
		// call through a func value allocates its arguments).
		if err := d.gather(pathErr, queryErr, bodyErr); err != nil {
			d.answerError(s, w, r, err)
			return
		}
	}
	rt.handle(w, r, req)
}
