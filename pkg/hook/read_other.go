//go:build !linux

package hook

// grow grows the buffer on the Go heap: the mapped buffer of the Linux
// build relies on MAP_NORESERVE.
func grow(b []byte) []byte { return growHeap(b) }
