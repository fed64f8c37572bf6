package prunesession

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChunkWriter: what goes through a chunkWriter reaches its writer whole
// and in order, whatever the sizes of the pieces, and a write error comes
// back from Close.
func TestChunkWriter(t *testing.T) {
	tests := []struct {
		name   string
		pieces []int // sizes, written alternately with Write, WriteString, WriteByte
	}{
		{"nothing", nil},
		{"small", []int{1, 10, 100}},
		{"one chunk exactly", []int{chunkBytes}},
		{"across chunks", []int{chunkBytes - 1, 1, 2, chunkBytes + 3}},
		{"many chunks in one piece", []int{5*chunkBytes + 7}},
		{"more chunks than in flight", []int{(chunksInFlight + 3) * chunkBytes, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got bytes.Buffer
			w := newChunkWriter(&got)
			for i, size := range tt.pieces {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, size)
				want.Write(p)
				switch i % 3 {
				case 0:
					w.Write(p)
				case 1:
					w.WriteString(string(p))
				case 2:
					for _, c := range p {
						w.WriteByte(c)
					}
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want.Bytes(), got.Bytes()) {
				t.Errorf("wrote %d bytes, got %d, or not the same", want.Len(), got.Len())
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		w := newChunkWriter(failingWriter{})
		w.Write(make([]byte, 3*chunkBytes))
		if err := w.Close(); !errors.Is(err, errFailing) {
			t.Errorf("Close: %v, want %v", err, errFailing)
		}
	})
}

var errFailing = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFailing }

// TestRewriteChanged: pass two copies the lines pass one checked and no
// more. Lines appended between the passes are left out; a line that changed
// makes it refuse.
func TestRewriteChanged(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	line := func(uuid, parent, text string) string {
		return `{"parentUuid":` + parent + `,"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","sessionId":"` + oldID + `"}` + "\n"
	}
	a, b := line("a", "null", "one"), line("b", `"a"`, "two")
	read := a + b
	tests := []struct {
		name, then, want string
		err              error
	}{
		{"unchanged", read, strings.ReplaceAll(read, oldID, newID), nil},
		{"appended", read + line("c", `"b"`, "three"), strings.ReplaceAll(read, oldID, newID), nil},
		{"appended to the last line", strings.TrimSuffix(read, "\n") + `x` + "\n", "", errChanged},
		{"a line changed, same length", a + strings.Replace(b, oldID[:8], "99999999", 1), "", errChanged},
		{"a line changed length", a + line("b", `"a"`, "twenty") + line("c", `"b"`, "x"), "", errChanged},
		{"truncated", a, "", errChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := buildPlan(strings.NewReader(read), options{})
			if err != nil {
				t.Fatal(err)
			}
			rw := &rewriter{p: p, oldID: oldID, newID: newID}
			var out bytes.Buffer
			err = rw.rewrite(strings.NewReader(tt.then), &out)
			if !errors.Is(err, tt.err) {
				t.Fatalf("rewrite: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
