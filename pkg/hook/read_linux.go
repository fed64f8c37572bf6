package hook

import "syscall"

// mappedReserve is the address space grow reserves for a payload: room
// for the largest ReadPayload accepts, so the buffer never moves. It is
// reserved, not allocated (MAP_NORESERVE): a page costs memory only once
// written.
const mappedReserve = MaxPayload + firstBuffer

// grow returns a buffer for a payload that has outgrown b, holding b's
// bytes: anonymous memory mapped for it, never copied again and never
// unmapped (the process ends soon after).
//
// A buffer that never moves writes each page once, and the garbage
// collector never scans or copies it. On a 1 MB payload, growing on the Go
// heap instead made a whole hook run 1.5x (at 2342113) to 2.5x slower;
// advising the mapping to huge pages changed nothing (1.00-1.03x), so it
// is not done (docs/BENCHMARKS.md, "What the read path's pieces buy").
//
// Where the mapping fails (a strict overcommit policy, a ulimit on
// address space, a 32-bit system), the buffer grows on the Go heap.
func grow(b []byte) []byte {
	if cap(b) > firstBuffer {
		return growHeap(b)
	}
	m, err := syscall.Mmap(-1, 0, mappedReserve, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return growHeap(b)
	}
	return append(m[:0], b...)
}
