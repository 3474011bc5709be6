//go:build race

package main

// raceBuild says the tests run under the race detector, whose
// instrumentation moves values to the heap: allocation bounds do not hold.
const raceBuild = true
