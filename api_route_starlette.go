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
	idx := t.shapeIndex()
	lists := [4][]int{
		idx.fixed[routeShape{first: segs[0], n: len(segs)}], idx.tails[segs[0]],
		idx.fixed[routeShape{first: anyFirst, n: len(segs)}], idx.tails[anyFirst],
	}
	for {
		// The next row in the table's order among the four lists.
		pick := -1
		for l := range lists {
			if len(lists[l]) > 0 && (pick < 0 || lists[l][0] < lists[pick][0]) {
				pick = l
			}
		}
		if pick < 0 {
			break
		}
		i := lists[pick][0]
		lists[pick] = lists[pick][1:]
		row := t.routes[i]
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

// routeShape is what a path's rows share: the first segment (anyFirst
// for a row that starts with a parameter) and the number of segments.
type routeShape struct {
	first string
	n     int
}

// shapeIndex lists a table's rows by shape, in the table's order: fixed
// for rows of a fixed number of segments, tails for rows whose last
// segment takes the rest of the path. Built once, on first use (a table
// is complete before it serves).
type shapeIndex struct {
	fixed map[routeShape][]int
	tails map[string][]int
}

// anyFirst keys the rows whose first segment is a parameter.
const anyFirst = "{}"

func (t *routeTable) shapeIndex() *shapeIndex {
	t.indexOnce.Do(func() {
		idx := &shapeIndex{fixed: map[routeShape][]int{}, tails: map[string][]int{}}
		for i, row := range t.routes {
			first := row.segs[0]
			if strings.HasPrefix(first, "{") {
				first = anyFirst
			}
			if _, isPath := row.pathParam(); isPath {
				idx.tails[first] = append(idx.tails[first], i)
				continue
			}
			key := routeShape{first: first, n: len(row.segs)}
			idx.fixed[key] = append(idx.fixed[key], i)
		}
		t.index = idx
	})
	return t.index
}

// fitsAnySegment is fits without Werkzeug's integer converter: Starlette
// matches {name} against any non-empty segment.
func (rt *apiRoute) fitsAnySegment(segs []string) bool {
	if _, isPath := rt.pathParam(); isPath {
		_, ok := rt.fits(segs)
		return ok
	}
	if len(segs) != len(rt.segs) {
		return false
	}
	for i, p := range rt.segs {
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
	req := &apiRequest{path: params}
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
