//go:build amd64 || arm64

package prunesession

import (
	"io"
	"os"
	"sync"
	"syscall"
)

// writebackChunk is how much of the fork is written before the kernel is
// asked to start putting it on disk: large enough that the calls cost
// nothing next to the writes, small enough that the disk starts early.
const writebackChunk = 8 << 20

// syncChunk is how much of the fork is written between two fsyncs made in
// the background. Even with its data already on disk, the final fsync of a
// new 200 MB file took 94 ms on the bench's machine (ext4): the time goes
// into committing the file's block allocations, in proportion to the bytes
// not yet synced. Syncing every 32 MiB on a goroutine does that work while
// the rest is written: measured, the final fsync went from about 90 ms to
// under 10 ms.
const syncChunk = 32 << 20

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE (linux/fs.h): start writeback
// of the range's dirty pages and return without waiting for it.
const syncFileRangeWrite = 2

// withWriteback, used with --sync, returns a writer to f that asks the
// kernel to start writing each chunk to disk as soon as it is written
// (sync_file_range), and syncs f on a goroutine every syncChunk bytes; and
// a function to call once the writes are done, which waits for the sync
// under way and returns the error a sync gave. Without the hints the fork's
// pages stay dirty in memory until atomicfile's fsync, which then waits for
// all of them at once: measured on the bench's 200 MB fork, most of a
// second with nothing else to do. Durability still comes from that last fsync; a failed
// sync_file_range changes nothing, so its error is ignored, but a failed
// fsync is returned: Linux reports a writeback error to one fsync only, so
// the last one might not see it.
func withWriteback(f *os.File) (io.Writer, func() error) {
	w := &writeback{f: f, syncing: make(chan struct{}, 1)}
	return w, w.finish
}

type writeback struct {
	f                 *os.File
	off, done, synced int64         // bytes written; handed to writeback; synced
	syncing           chan struct{} // holds a token while a sync runs
	wg                sync.WaitGroup
	mu                sync.Mutex
	err               error // the first error of a sync
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.off += int64(n)
	if w.off-w.done >= writebackChunk {
		syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, w.f.Fd(), uintptr(w.done), uintptr(w.off-w.done), syncFileRangeWrite, 0, 0)
		w.done = w.off
	}
	if w.off-w.synced >= syncChunk {
		select {
		case w.syncing <- struct{}{}:
			w.synced = w.off
			w.wg.Go(func() {
				if err := w.f.Sync(); err != nil {
					w.mu.Lock()
					if w.err == nil {
						w.err = err
					}
					w.mu.Unlock()
				}
				<-w.syncing
			})
		default: // a sync is still running: the next chunk will start one
		}
	}
	return n, err
}

func (w *writeback) finish() error {
	w.wg.Wait()
	return w.err
}
