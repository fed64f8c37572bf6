package hook

import "syscall"

// mappedReserve is the address space grow reserves for a payload: room
// for the largest ReadPayload accepts, so the buffer never moves. It is
// reserved, not allocated (MAP_NORESERVE): a page costs memory only once
// written.
const mappedReserve = MaxPayload + firstBuffer

// grow returns a buffer for a payload that has outgrown b, holding b's
// bytes: anonymous memory mapped for it and advised to huge pages, never
// copied again and never unmapped (the process ends soon after).
//
// Each first write of a 4 KiB page is a fault, 2 to 3 µs in the
// benchmarks' VM; huge pages make that one fault per 2 MiB, and a buffer
// that never moves writes each page once. On a 1 MB payload, growing on
// the Go heap instead made a whole hook run 1.5x slower
// (docs/BENCHMARKS.md, "What the read path's pieces buy").
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
	syscall.Madvise(m, syscall.MADV_HUGEPAGE) // a hint: without THP, 4 KiB pages
	return append(m[:0], b...)
}
