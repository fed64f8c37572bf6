//go:build amd64 || arm64

package prunesession

import (
	"io"
	"os"
	"syscall"
)

// writebackChunk is how much of the fork is written before the kernel is
// asked to start putting it on disk: large enough that the calls cost
// nothing next to the writes, small enough that the disk starts early.
const writebackChunk = 8 << 20

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE (linux/fs.h): start writeback
// of the range's dirty pages and return without waiting for it.
const syncFileRangeWrite = 2

// withWriteback returns a writer to f that asks the kernel to start
// writing each chunk to disk as soon as it is written (sync_file_range).
// Without it the fork's pages stay dirty in memory until atomicfile's
// fsync, which then waits for all of them at once: measured on the bench's
// 200 MB fork, most of a second with nothing else to do. A hint only:
// durability still comes from that fsync, and a failed call changes
// nothing, so its error is ignored.
func withWriteback(f *os.File) io.Writer { return &writeback{f: f} }

type writeback struct {
	f         *os.File
	off, done int64 // bytes written; bytes handed to writeback
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.off += int64(n)
	if w.off-w.done >= writebackChunk {
		syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, w.f.Fd(), uintptr(w.done), uintptr(w.off-w.done), syncFileRangeWrite, 0, 0)
		w.done = w.off
	}
	return n, err
}
