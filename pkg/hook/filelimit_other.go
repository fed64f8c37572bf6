//go:build !unix

package hook

// openFileLimit is unknown outside Unix.
func openFileLimit() (uint64, bool) { return 0, false }
