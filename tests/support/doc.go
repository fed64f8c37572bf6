// Package support holds what the tests of several packages share: a txtar
// reader for golden files, CPU-time bounds, and a renameat2 swap for races.
package support
