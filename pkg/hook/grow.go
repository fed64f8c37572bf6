package hook

import "io"

// firstReadBuffer is readGrowing's first buffer: most payloads fit in it.
const firstReadBuffer = 64 << 10

// readGrowing reads r whole, as io.ReadAll does, for a stdin of unknown size
// (a pipe, as Claude Code gives it). A payload that outgrows the first
// buffer goes on in a large buffer (largeBuffer): on Linux, memory mapped
// for it and backed by huge pages, which it never copies.
//
// release frees that buffer; call it when the bytes are not kept (an
// invalid payload), and do not use them after. It is never nil.
func readGrowing(r io.Reader) (b []byte, release func(), err error) {
	b = make([]byte, 0, firstReadBuffer)
	release = func() {}
	for {
		if len(b) == cap(b) {
			if cap(b) == firstReadBuffer {
				widenPipe(r)
			}
			b, release = largeBuffer(b, release)
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, release, nil
		}
		if err != nil {
			release()
			return nil, func() {}, err
		}
	}
}

// growHeap returns a buffer of twice b's capacity on the Go heap, holding
// b's bytes: the fallback where memory cannot be mapped.
func growHeap(b []byte) []byte {
	next := make([]byte, len(b), 2*cap(b))
	adviseHugePages(next[:cap(next)])
	copy(next, b)
	return next
}
