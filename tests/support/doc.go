// Package support holds what the tests of several packages share: a txtar
// reader for golden files, CPU-time bounds, a renameat2 swap for races, and
// the red line a rewritten transcript must hold (Verify).
package support
