// Package support holds what the tests of several packages share: a
// renameat2 swap for races, and the red line a rewritten transcript must hold
// (Verify).
package support
