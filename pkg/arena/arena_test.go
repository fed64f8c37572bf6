package arena

import (
	"strings"
	"testing"
	"unsafe"
)

// TestCopy: copies equal their source and stay so when the source's bytes
// are overwritten, across chunks and for strings too long for one.
func TestCopy(t *testing.T) {
	var a Strings
	src := []byte(strings.Repeat("0123456789abcdef", chunkBytes/16*3))
	type kept struct{ want, got string }
	var all []kept
	for _, n := range []int{0, 1, 36, 100, chunkBytes / 8, chunkBytes/8 + 1, 3 * chunkBytes / 2} {
		for i := 0; i < 3*chunkBytes/max(n, 1) && i < 500; i++ {
			view := unsafe.String(unsafe.SliceData(src), n) // its bytes change below
			all = append(all, kept{strings.Clone(view), a.Copy(view)})
		}
	}
	for i := range src {
		src[i] = 'x'
	}
	for _, k := range all {
		if k.got != k.want {
			t.Fatalf("copy of %d bytes changed: %.20q, want %.20q", len(k.want), k.got, k.want)
		}
	}
}
