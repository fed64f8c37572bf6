// Package arena copies many small strings into shared chunks, so that a
// reader keeping ids and uuids from every line of a transcript makes an
// allocation per chunk instead of one per string.
//
// A string kept keeps its whole chunk alive: a caller keeping few strings
// of many should copy those into an arena of its own, which is what
// prune-session does with the ones transcript.Parse hands it.
package arena

import (
	"strings"
	"unsafe"
)

// Strings is an arena of strings. The zero value is ready to use; it is
// not safe for concurrent use.
type Strings struct{ chunk []byte }

// chunkBytes is the size of one allocation: large next to a uuid (36
// bytes), small next to the memory a reader of 200 MB keeps.
const chunkBytes = 16 << 10

// Copy returns a copy of s that stays as it is whatever happens to s's
// bytes.
func (a *Strings) Copy(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > chunkBytes/8 {
		return strings.Clone(s) // a long one alone, not a chunk's worth of waste
	}
	if cap(a.chunk)-len(a.chunk) < len(s) {
		a.chunk = make([]byte, 0, chunkBytes)
	}
	at := len(a.chunk)
	a.chunk = append(a.chunk, s...)
	return unsafe.String(&a.chunk[at], len(s))
}
