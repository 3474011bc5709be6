package main

// The operations layer's errors. An operation (ops_*.go) says what went
// wrong in its own terms: a fault, the neutral kind of that fault, and the
// values involved. It never says how an API answers it: each dialect keeps
// a phrasebook (apiexp_errors.go, apiv1_errors.go, and Airflow 3's next)
// that turns a fault into that API's status and exact text, because the
// same fault reads differently in each Airflow API (a missing DAG is "Dag
// id x not found in DagModel" to the experimental API and a problem
// document titled "DAG not found" to /api/v1).

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// errInvalid is a request the operation refuses as it stands: a value out
// of range, a missing or contradictory field. Dialects answer it as their
// API answers bad input (400 in Airflow 1 and 2, 422 or 400 in Airflow 3).
var errInvalid = errors.New("invalid")

// opFault names one thing that can go wrong in an operation, e.g.
// "dag_not_found" or "run_id_taken". Phrasebooks are keyed by it.
type opFault string

// opError is an operation's error: which fault, its neutral kind
// (errNotFound, errConflict, errInvalid, errUnavailable, or a store
// kind), the values a phrasing may name (dag_id, run_id, task_id, ...),
// and a detail in neutral words for a fault whose text comes from the
// operation itself (a validation message).
type opError struct {
	fault  opFault
	kind   error
	values map[string]string
	detail string
}

// opErr builds an opError; values are name/value pairs.
func opErr(kind error, fault opFault, values ...string) *opError {
	e := &opError{fault: fault, kind: kind}
	if len(values) > 0 {
		e.values = make(map[string]string, len(values)/2)
		for i := 0; i+1 < len(values); i += 2 {
			e.values[values[i]] = values[i+1]
		}
	}
	return e
}

// withDetail adds a neutral detail text.
func (e *opError) withDetail(format string, args ...any) *opError {
	e.detail = fmt.Sprintf(format, args...)
	return e
}

// value is one of the values the error names ("" when absent).
func (e *opError) value(name string) string { return e.values[name] }

// Error is for logs and tests, never an answer: dialects phrase faults.
func (e *opError) Error() string {
	var b strings.Builder
	b.WriteString(string(e.fault))
	names := make([]string, 0, len(e.values))
	for k := range e.values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, " %s=%q", k, e.values[k])
	}
	if e.detail != "" {
		b.WriteString(": " + e.detail)
	}
	return b.String()
}

func (e *opError) Unwrap() error { return e.kind }

// phrasebook is one dialect's wording of the operations' faults: each
// entry returns the error that dialect answers (an *apiError, a
// *problem, ...). A fault with no entry falls to the dialect's answer for
// its kind.
type phrasebook map[opFault]func(e *opError) error

// phrase turns err into the dialect's own error when it is an opError the
// book knows; any other error is returned as it is.
func (b phrasebook) phrase(err error) error {
	var oe *opError
	if !errors.As(err, &oe) {
		return err
	}
	if say, ok := b[oe.fault]; ok {
		return say(oe)
	}
	return err
}
