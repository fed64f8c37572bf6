package hook

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// hugePagesFrom is the buffer size from which a buffer on the Go heap is
// advised to huge pages (madvise, the default THP mode of most
// distributions, only gives them on request). Below it the faults cost
// little.
const hugePagesFrom = 8 << 20

// adviseHugePages hints that b's memory be backed by huge pages. It is only
// a hint: an error (no THP in the kernel) changes nothing but the speed.
func adviseHugePages(b []byte) {
	if len(b) >= hugePagesFrom {
		syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}

// mappedReserve is the address space largeBuffer reserves for one payload:
// more than any payload Claude Code can build (a V8 string holds at most
// 2^30 UTF-16 units). Reserved, not allocated: MAP_NORESERVE, and a page
// costs memory only once it is written. A 32-bit process (linux/386,
// linux/arm), where 4 GiB is no int and more than its address space,
// reserves 1 GiB; a payload that fills it goes on on the heap.
const mappedReserve = 1 << (30 + 2*(strconv.IntSize/64))

// largeBuffer returns a buffer for a payload that has outgrown b, holding
// b's bytes, and the function that frees it.
//
// The payload is read into anonymous memory mapped for it and advised to
// huge pages. Every first touch of a 4 KiB page is a fault, and in the
// virtual machines the benchmarks ran in each costs about 12 µs (64 MB
// written page by page: 200 ms; as huge pages: 4 ms). On the Go heap a
// growing buffer cannot be given huge pages reliably, and each doubling
// copies it: spill-guard's 50 MB case spent 140 to 260 ms reading its
// stdin that way, against 35 ms for this buffer, which is never copied.
//
// Where the mapping fails (a strict overcommit policy, a ulimit on address
// space), and once a payload fills it, the buffer grows on the Go heap.
func largeBuffer(b []byte, release func()) ([]byte, func()) {
	if cap(b) > firstReadBuffer {
		// Called again: the mapping is full, or could not be made.
		return growHeap(b), release
	}
	m, err := syscall.Mmap(-1, 0, mappedReserve, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return growHeap(b), release
	}
	syscall.Madvise(m, syscall.MADV_HUGEPAGE)
	return append(m[:0], b...), func() { syscall.Munmap(m) }
}

// pipeSize is what widenPipe asks a pipe to hold: the most an unprivileged
// process may ask by default (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// fSetPipeSize is F_SETPIPE_SZ (linux/fcntl.h).
const fSetPipeSize = 1031

// widenPipe asks the kernel to let the pipe r reads from hold pipeSize
// bytes instead of 64 KiB, when a payload turns out large: the writer then
// runs ahead by a megabyte, and the reader makes a sixteenth of the reads
// and waits. Reading 59 MB from a pipe took 34 ms instead of 39. A hint
// only: an error (not a pipe, a lower limit) changes nothing but the speed.
func widenPipe(r io.Reader) {
	f, ok := r.(*os.File)
	if !ok {
		return
	}
	// Through SyscallConn: Fd would put the descriptor in blocking mode.
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, pipeSize) })
	}
}
