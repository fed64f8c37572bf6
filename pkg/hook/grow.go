package hook

import "io"

// firstReadBuffer is readGrowing's first buffer: most payloads fit in it.
const firstReadBuffer = 64 << 10

// readGrowing reads r whole, as io.ReadAll does, for a stdin of unknown size
// (a pipe, as Claude Code gives it). It doubles its buffer, and a buffer
// from hugePagesFrom up is advised to huge pages before it is touched:
// through io.ReadAll a 59 MB payload faults in about 124 MB of 4 KiB pages,
// which took spill-guard's 50 MB case from a pipe 1.1 s, against 0.38 s
// this way (medians of 9 runs, interleaved, in the benchmarks' VM).
func readGrowing(r io.Reader) ([]byte, error) {
	b := make([]byte, 0, firstReadBuffer)
	for {
		if len(b) == cap(b) {
			next := make([]byte, len(b), 2*cap(b))
			adviseHugePages(next[:cap(next)])
			copy(next, b)
			b = next
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
