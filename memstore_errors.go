package main

import (
	"fmt"
	"time"
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
// figures; the HTTP layer phrases it (limitText). It matches
// errBadRequest.
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
func (e *limitError) Is(target error) bool { return target == errBadRequest }

// subDagRunExists is a run that cannot be created because a sub-DAG below
// it already has a run with its run_id or date (Airflow crashes on its
// unique keys). It matches errCrash.
type subDagRunExists struct {
	childID string
	runID   string    // set when the run_id is taken
	date    time.Time // else the date
}

func (e *subDagRunExists) Error() string        { return "sub-DAG " + e.childID + " already has the run" }
func (e *subDagRunExists) Is(target error) bool { return target == errCrash }

// missingError says which row a write did not find. It matches
// errNotFound; the HTTP layer phrases it.
type missingError struct {
	what                 string // "dag", "run" or "task"
	dagID, runID, taskID string
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s %s/%s/%s not found", e.what, e.dagID, e.runID, e.taskID)
}

func (e *missingError) Is(target error) bool { return target == errNotFound }

// existsError is a row that cannot be created because its key is taken.
// It matches errConflict; the HTTP layer phrases it.
type existsError struct {
	what string // "connection"
	id   string
}

func (e *existsError) Error() string        { return e.what + " " + e.id + " already exists" }
func (e *existsError) Is(target error) bool { return target == errConflict }
