//go:build !linux

package hook

// grow grows the buffer on the Go heap: the mapped buffer of the Linux
// build relies on MAP_NORESERVE and huge pages.
func grow(b []byte) []byte { return growHeap(b) }
