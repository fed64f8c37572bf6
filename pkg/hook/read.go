package hook

import (
	"io"
	"unsafe"
)

// firstBuffer is the buffer readAll starts with, on the Go heap: most
// payloads fit in it.
const firstBuffer = 64 << 10

// readAll reads r whole, as io.ReadAll does, but a payload that outgrows
// firstBuffer goes on in a buffer that grows without copying where the
// system allows (grow).
func readAll(r io.Reader) ([]byte, error) {
	b := make([]byte, 0, firstBuffer)
	for {
		if len(b) == cap(b) {
			b = grow(b)
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// growHeap returns a buffer of twice b's capacity on the Go heap, holding
// b's bytes.
func growHeap(b []byte) []byte { return append(b[:cap(b)], make([]byte, cap(b))...)[:len(b)] }

// view is b as a string, without a copy: a payload is never written once
// read.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
