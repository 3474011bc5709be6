package main

// What the store says happened when it refuses or cannot find something.
// A kind names no status and no answer's text: each API decides how it
// answers each kind (api_answer.go: storeKinds, storeErrorText). The
// types carry the figures an answer needs, not sentences.

import (
	"errors"
	"fmt"
	"time"
)

// The store's kinds of error. The APIs use errNotFound and errUnavailable
// for their own answers of the same meaning too.
var (
	// errNotFound: the row asked for is not in the store.
	errNotFound = errors.New("not found")
	// errExists: a row cannot be created because its key is taken
	// (existsError).
	errExists = errors.New("already exists")
	// errLimitReached: a write refused at one of the store's limits
	// (limitError).
	errLimitReached = errors.New("limit reached")
	// errSubDagRunExists: a run cannot be created because a sub-DAG
	// below it already has its run (subDagRunExists).
	errSubDagRunExists = errors.New("a sub-DAG already has the run")
	// errUnavailable: a write the store cannot take now but may later,
	// such as a new id the id lease does not cover yet (leaseError).
	errUnavailable = errors.New("unavailable")
)

// The store's limits on what it keeps (the command line sets them).
const (
	limitRunsPerDag     = "runs per DAG"
	limitConfBytesTotal = "conf bytes in total"
	limitDags           = "DAGs loaded at runtime"
	limitPools          = "pools"
	limitVariables      = "variables"
	limitVariableBytes  = "bytes of a variable"
	limitConnections    = "connections"
	limitConnBytes      = "bytes of a connection"
	limitXComs          = "XCom entries"
	limitXComBytes      = "bytes of an XCom value"
)

// limitError is a write refused at one of the store's limits, with the
// figures. It matches errLimitReached.
type limitError struct {
	limit    string
	dagID    string // runs per DAG
	have     int64  // what is kept now
	finished int64  // runs per DAG with drop-oldest: how many have finished (-1: not asked)
	adding   int64  // conf bytes: the new conf's size; a value's size
	max      int64  // conf bytes, a value's size: the limit
	key      string // the variable, connection or XCom key refused
}

func (e *limitError) Error() string        { return "limit of " + e.limit + " reached" }
func (e *limitError) Is(target error) bool { return target == errLimitReached }

// subDagRunExists is a run that cannot be created because a sub-DAG below
// it already has a run with its run_id or date. It matches
// errSubDagRunExists.
type subDagRunExists struct {
	childID string
	runID   string    // set when the run_id is taken
	date    time.Time // else the date
}

func (e *subDagRunExists) Error() string        { return "sub-DAG " + e.childID + " already has the run" }
func (e *subDagRunExists) Is(target error) bool { return target == errSubDagRunExists }

// missingError says which row a write did not find. It matches
// errNotFound.
type missingError struct {
	what                 string // "dag", "run" or "task"
	dagID, runID, taskID string
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s %s/%s/%s not found", e.what, e.dagID, e.runID, e.taskID)
}

func (e *missingError) Is(target error) bool { return target == errNotFound }

// existsError is a row that cannot be created because its key is taken.
// It matches errExists.
type existsError struct {
	what string // "pool", "connection"
	id   string
}

func (e *existsError) Error() string        { return e.what + " " + e.id + " already exists" }
func (e *existsError) Is(target error) bool { return target == errExists }

// leaseError is a new id the store does not hand out now, because the id
// lease on disk does not cover it (snapshot_idlease.go), or, from
// LeaseProblem, the lease's own state. It matches errUnavailable.
type leaseError struct {
	path string
	// problem is why the lease cannot be written; nil while it is being
	// extended.
	problem error
	// what is the id refused, "run" or "pool", and ceiling the last id of
	// that kind the lease covers; "" for the lease's state alone, with
	// run and pool the last ids it covers.
	what      string
	ceiling   int64
	run, pool int64
}

func (e *leaseError) Error() string {
	switch {
	case e.what == "":
		return fmt.Sprintf("id lease %s cannot be written: %v", e.path, e.problem)
	case e.problem != nil:
		return fmt.Sprintf("no %s id past %d: id lease %s cannot be written: %v", e.what, e.ceiling, e.path, e.problem)
	}
	return fmt.Sprintf("no %s id past %d: id lease %s not extended yet", e.what, e.ceiling, e.path)
}

func (e *leaseError) Is(target error) bool { return target == errUnavailable }
