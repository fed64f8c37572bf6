package spill

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePointersShapes: where pointers are found (several, line-numbered
// by Read, in a JSON-decoded tool result) and what only looks like one.
func TestParsePointersShapes(t *testing.T) {
	a := File{Path: "/w/.flower/spill/a.txt", Chars: 5000, Lines: 10, Head: "abc"}
	b := File{Path: "/w/.flower/spill/b.txt", Chars: 4001, Lines: 2}
	tests := []struct {
		name, text string
		want       []File
	}{
		{"none", "plain output", nil},
		{"two", a.Text() + "\n" + b.Text(), []File{{Path: a.Path, Chars: 5000, Lines: 10}, {Path: b.Path, Chars: 4001, Lines: 2}}},
		{"read with line numbers", "     1\t" + a.Pointer() + "\n     2\tabc", []File{{Path: a.Path, Chars: 5000, Lines: 10}}},
		{"no number", pointerStart + "many characters, 3 lines, in full at /x. Use Read on that file with offset/limit to see the rest.]", nil},
		{"negative", pointerStart + "-1 characters, 3 lines, in full at /x" + pointerRead, nil},
		{"no path", pointerStart + "1 characters, 3 lines, in full at " + pointerRead, nil},
		{"cut before the end", pointerStart + "1 characters, 3 lines, in full at /x", nil},
		{"end on the next line", pointerStart + "1 characters, 3 lines, in full at /x\n" + pointerRead, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParsePointers(tt.text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParsePointers: never panics, finds no more pointers than the text
// has starts, and reads back a pointer it is given after any text.
func FuzzParsePointers(f *testing.F) {
	f.Add("", "/w/spill/a.txt")
	f.Add(pointerStart+"1 characters, 3 lines, in full at /x"+pointerRead, "/w/spill/b c.txt")
	f.Add("     1\t", "/tmp/audit/work/.flower/spill/Bash-run1-stdout.txt")
	f.Fuzz(func(t *testing.T, text, path string) {
		got := ParsePointers(text)
		if len(got) > strings.Count(text, pointerStart) {
			t.Fatalf("%d pointers from %d starts", len(got), strings.Count(text, pointerStart))
		}
		if path == "" || strings.ContainsRune(path, '\n') || strings.Contains(path, pointerRead) {
			return // not a path Pointer could name unambiguously
		}
		want := File{Path: path, Chars: 42, Lines: 7}
		all := ParsePointers(text + "\n" + want.Pointer())
		if len(all) == 0 || !cmp.Equal(want, all[len(all)-1]) {
			t.Fatalf("text %q then the pointer of %q: got %+v", text, path, all)
		}
	})
}
