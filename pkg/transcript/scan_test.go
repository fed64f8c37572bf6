package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// numbered is lines lines, each its number and enough filler that the
// transcript spans many batches.
func numbered(lines int) string {
	var b strings.Builder
	for n := 1; n <= lines; n++ {
		fmt.Fprintf(&b, "%d %s\n", n, strings.Repeat("x", n%5000))
	}
	return b.String()
}

// TestTransform: the outputs come in the order of the lines on any number
// of workers, each worker's state is its own, and the error returned is the
// first in the order of the lines, whichever worker met it first.
func TestTransform(t *testing.T) {
	const lines = 2000 // about 5 MB: twenty batches
	in := numbered(lines)
	upper := func() LineFunc {
		return func(n int, raw, out []byte) ([]byte, error) {
			if !bytes.HasPrefix(raw, fmt.Appendf(nil, "%d ", n)) {
				return out, fmt.Errorf("line %d is %.10q", n, raw)
			}
			if n%3 == 0 {
				return out, nil // dropped
			}
			out = append(out, bytes.ToUpper(raw)...)
			return append(out, '\n'), nil
		}
	}
	var want strings.Builder
	for n, l := range strings.SplitAfter(in, "\n") {
		if l != "" && (n+1)%3 != 0 {
			want.WriteString(strings.ToUpper(l))
		}
	}
	for _, workers := range []int{0, 1, 2, 7} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			var out bytes.Buffer
			n, err := Transform(strings.NewReader(in), &out, workers, upper)
			if err != nil {
				t.Fatal(err)
			}
			if n != lines {
				t.Errorf("read %d lines, want %d", n, lines)
			}
			if out.String() != want.String() {
				t.Errorf("the output differs from the lines transformed in order")
			}
		})
	}

	errAt := func(bad ...int) func() LineFunc {
		return func() LineFunc {
			return func(n int, raw, out []byte) ([]byte, error) {
				for _, b := range bad {
					if n == b {
						if b%2 == 0 {
							panic("boom")
						}
						return out, fmt.Errorf("bad %d", n)
					}
				}
				return append(out, raw...), nil
			}
		}
	}
	tests := []struct {
		name string
		bad  []int
		want string
	}{
		{"one error", []int{1501}, "bad 1501"},
		{"the first of two, the later in an earlier batch", []int{1999, 1001}, "bad 1001"},
		{"a panic", []int{1500}, "line 1500: internal error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Transform(strings.NewReader(in), &bytes.Buffer{}, 2, errAt(tt.bad...))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	t.Run("write error", func(t *testing.T) {
		_, err := Transform(strings.NewReader(in), failingWriter{}, 2, errAt())
		if !errors.Is(err, errFailing) {
			t.Errorf("got %v, want %v", err, errFailing)
		}
	})
}

var errFailing = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFailing }
