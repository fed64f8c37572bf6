// Package cputime measures the CPU time a function takes on its own
// thread, for tests that bound the work a hostile input costs. A loaded
// machine (a CI box running the whole suite with the race detector, two
// cores shared with the end-to-end tests) stretches wall time by tens of
// times; the CPU time a thread spends does not move with the load.
package cputime

import (
	"runtime"
	"time"
)

// Of runs f on a thread of its own and returns the CPU time (user and
// system) that thread spent in it. Work f hands to other goroutines, and
// the garbage collector's background workers, are not counted: the bounds
// it serves are on the work of one call.
func Of(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := threadTime()
	start := time.Now()
	f()
	after, ok2 := threadTime()
	if !ok || !ok2 {
		return time.Since(start) // no per-thread clock here: wall time
	}
	return after - before
}
