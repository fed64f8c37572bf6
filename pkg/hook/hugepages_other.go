//go:build !linux

package hook

import "io"

// adviseHugePages is a no-op where there is no madvise(MADV_HUGEPAGE).
func adviseHugePages([]byte) {}

// largeBuffer grows the buffer on the Go heap: the mapped buffer of the
// Linux build relies on MAP_NORESERVE and huge pages.
func largeBuffer(b []byte, release func()) ([]byte, func()) { return growHeap(b), release }

// widenPipe does nothing: F_SETPIPE_SZ is Linux's.
func widenPipe(io.Reader) {}
